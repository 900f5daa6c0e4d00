//! The spatial partition (article 000): a grid of cells over the tile map, each a list of the
//! bodies it holds, and each body's `GridAreas` (its cells and its index in each).
//!
//! # How the article's assumptions are lifted
//!
//! - **Bodies larger than a cell** occupy every cell their box covers (a rectangle of cells).
//! - **Bodies outside the map**: cell coordinates are clamped to the grid, so a body beyond an
//!   edge is kept in the border cells it is nearest to. It is still detected against every body
//!   there (pairs are always confirmed by their boxes), only tested against more neighbours.
//! - **Despawned bodies, or bodies that lose their `Aabb` or `GridAreas`,** leave every cell at
//!   once, through component hooks, so no cell ever holds a stale entity.
//! - **Bodies with an invalid `Aabb`** are kept out of the cells until it is fixed.
//! - **Bodies jittering across a cell edge** (a crowd pressed together moves by fractions of a
//!   unit every step) would change cells at every step. A body leaves a cell only once it is
//!   more than a sixteenth of a tile (`LEAVE_MARGIN_TILES`) away from it; it is always in every cell its box covers,
//!   so pairs are found as before (each in the first cell both bodies' ranges share).

use bevy::prelude::*;

use crate::geometry::{divide, floor_clamped, skin_at};
use crate::tiles::TileMap;

mod update;

pub(crate) use update::{PartitionPlugin, leave_partition, leave_partition_hook, update_partition};

internal! {
/// How far, in tiles, a body may move out of a cell before it leaves it (a sixteenth of a
/// tile). Bodies pressed together in a crowd jitter by fractions of a unit across cell edges,
/// so without it most cell changes undo the one before (see `BENCHMARKS.md`). A body is always
/// in every cell its box covers, so no pair is missed; it is at most in one more row or column
/// of cells.
pub const LEAVE_MARGIN_TILES: f32 = 1.0 / 16.0;
}

/// An inclusive rectangle of cells: (bottom-left, top-right).
pub(crate) type CellRange = (UVec2, UVec2);

/// One cell a body occupies, and the body's index in that cell's list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
pub struct GridArea {
    /// Cell coordinate.
    pub cell: UVec2,
    /// Index of the body in [`Partition::cell`]`(cell)`.
    pub index: u32,
}

/// The cells a body occupies in the [`Partition`] and its index in each (article 000's
/// `mAreas` and `mIdsInAreas`). Written by the physics; arrives with [`Aabb`](crate::Aabb).
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[component(on_remove = leave_partition_hook)]
pub struct GridAreas {
    areas: Vec<GridArea>,
    /// Inclusive range of cells covered, when in the partition.
    range: Option<CellRange>,
}

impl GridAreas {
    /// The cells and indices, in the order they were entered.
    pub fn areas(&self) -> &[GridArea] {
        &self.areas
    }

    /// The inclusive rectangle of cells the body covers, (bottom-left, top-right) (`None` when
    /// not partitioned).
    pub fn range(&self) -> Option<(UVec2, UVec2)> {
        self.range
    }
}

internal! {
/// What [`Partition::verify`] found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionError {
    /// A body's `GridAreas` names a cell outside the grid.
    CellOutOfGrid {
        /// The body.
        entity: Entity,
        /// The cell it names.
        cell: UVec2,
    },
    /// A body's `GridAreas` entry does not point at the body in that cell.
    WrongIndex {
        /// The body.
        entity: Entity,
        /// The cell.
        cell: UVec2,
        /// The index it records.
        index: u32,
        /// What the cell holds there (`None`: past the end).
        found: Option<Entity>,
    },
    /// A body's `GridAreas` does not match the cells its `range` covers.
    WrongCells {
        /// The body.
        entity: Entity,
    },
    /// The cells hold more entries than all `GridAreas` together: some are stale.
    StaleEntries {
        /// Entries in the cells.
        in_cells: usize,
        /// Entries in the bodies' `GridAreas`.
        in_bodies: usize,
    },
}
}

impl core::fmt::Display for PartitionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "partition out of sync: {self:?}")
    }
}

impl core::error::Error for PartitionError {}

/// The grid of cells over the tile map (article 000). Each cell lists the bodies whose boxes
/// touch it; a body is in every cell its box covers (grown by
/// [`PhysicsConfig::contact_tolerance`](crate::PhysicsConfig::contact_tolerance), so bodies
/// that touch within it share a cell; with relaxation on, grown by a quarter of a tile more, so
/// that the bodies near each other do too), and stays in a cell it has left until it is more than
/// a sixteenth of a tile away from it. Updated incrementally in
/// [`PhysicsSystems::UpdatePartition`](crate::PhysicsSystems::UpdatePartition); read it (and
/// every body's [`GridAreas`]) for tools and debugging.
///
/// The grid covers the [`TileMap`] in square cells of
/// [`PhysicsConfig::partition_cell_tiles`](crate::PhysicsConfig::partition_cell_tiles) tiles;
/// it is rebuilt when either changes, or when relaxation is turned on or off.
#[derive(Resource, Debug, Default)]
pub struct Partition {
    origin: Vec2,
    cell_size: f32,
    /// [`LEAVE_MARGIN_TILES`] in world units.
    margin: f32,
    /// How much further than the contact tolerance each body's box is grown where it is
    /// filed (relaxation's near reach; 0 without relaxation).
    reach: f32,
    dims: UVec2,
    cells: Vec<Vec<Entity>>,
    /// (map width, height, tile size, origin, tiles per cell) the grid was built for.
    built_for: Option<(u32, u32, u32, [u32; 2], u32, u32)>,
}

impl Partition {
    /// How much further than the contact tolerance each body's box is grown where it is
    /// filed: relaxation's near reach, 0 without relaxation.
    pub(crate) fn reach(&self) -> f32 {
        self.reach
    }

    /// Side of a cell in world units.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// World position of the bottom-left corner of cell (0, 0).
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// Number of cells along x and y.
    pub fn dims(&self) -> UVec2 {
        self.dims
    }

    /// The bodies in `cell` (empty outside the grid).
    pub fn cell(&self, cell: UVec2) -> &[Entity] {
        self.index(cell).map_or(&[], |i| &self.cells[i])
    }

    /// The bodies in the cell with flat index `flat` (`y * width + x`); none outside.
    #[inline]
    pub(crate) fn cell_at_flat(&self, flat: usize) -> &[Entity] {
        self.cells.get(flat).map_or(&[], |c| c.as_slice())
    }

    /// Every cell with its bodies, row by row from the bottom.
    pub fn cells(&self) -> impl Iterator<Item = (UVec2, &[Entity])> {
        let w = self.dims.x.max(1);
        self.cells
            .iter()
            .enumerate()
            .map(move |(i, c)| (UVec2::new(i as u32 % w, i as u32 / w), c.as_slice()))
    }

    /// The world rectangle of `cell`.
    pub fn cell_rect(&self, cell: UVec2) -> Rect {
        let min = self.origin + cell.as_vec2() * self.cell_size;
        Rect::from_corners(min, min + Vec2::splat(self.cell_size))
    }

    /// How many cells hold at least one body.
    pub fn occupied_cells(&self) -> usize {
        self.cells.iter().filter(|c| !c.is_empty()).count()
    }

    /// The cells a body with box corners `min`, `max` is kept in, when it is in the cells
    /// `held` now: `held` while those still include every cell the box covers and lie within
    /// the box grown by [`LEAVE_MARGIN_TILES`] (so it has not moved that far out of any of
    /// them); else exactly the cells the box covers ([`Partition::cell_range`]).
    #[inline]
    pub(crate) fn kept_range(&self, min: Vec2, max: Vec2, held: Option<CellRange>) -> CellRange {
        let covered = self.cell_range(min, max);
        if let Some((lo, hi)) = held
            && held != Some(covered)
        {
            let (near_lo, near_hi) = self.cell_range(min - self.margin, max + self.margin);
            let holds = lo.cmple(covered.0).all() && hi.cmpge(covered.1).all();
            let near = lo.cmpge(near_lo).all() && hi.cmple(near_hi).all();
            if holds && near {
                return (lo, hi);
            }
        }
        covered
    }

    /// The corners of the box a body with box `aabb` is filed by (grown by `tolerance`, the
    /// contact tolerance at its place, so bodies that touch within it share a cell), or `None`
    /// for an invalid box, which is filed nowhere.
    #[inline]
    pub(crate) fn filed_box(aabb: &crate::body::Aabb, tolerance: f32) -> Option<(Vec2, Vec2)> {
        aabb.is_valid().then(|| {
            let skin = skin_at(tolerance, aabb.center);
            (aabb.min() - skin, aabb.max() + skin)
        })
    }

    /// The inclusive range of cells a box with corners `min`, `max` covers, clamped to the grid
    /// (so boxes outside the map use the border cells): (bottom-left, top-right).
    pub fn cell_range(&self, min: Vec2, max: Vec2) -> (UVec2, UVec2) {
        let last = self.dims.saturating_sub(UVec2::ONE).as_ivec2();
        let to_cell = |p: Vec2| {
            floor_clamped(divide(p - self.origin, self.cell_size), IVec2::ZERO, last).as_uvec2()
        };
        (to_cell(min), to_cell(max))
    }

    internal! {
    /// Checks that the cells and the bodies' [`GridAreas`] agree: every recorded area points at
    /// the body in its cell, every body is in exactly the cells of its range, and the cells hold
    /// nothing else (no stale entity).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, PhysicsPlugin::default()));
    /// app.world_mut().spawn(Aabb::new(Vec2::ZERO, Vec2::splat(4.0)));
    /// app.world_mut().run_schedule(FixedUpdate);
    /// let world = app.world_mut();
    /// let bodies: Vec<(Entity, GridAreas)> = world
    ///     .query::<(Entity, &GridAreas)>()
    ///     .iter(world)
    ///     .map(|(e, a)| (e, a.clone()))
    ///     .collect();
    /// let partition = world.resource::<Partition>();
    /// assert!(partition.verify(bodies.iter().map(|(e, a)| (*e, a))).is_ok());
    /// ```
    pub fn verify<'a>(
        &self,
        bodies: impl IntoIterator<Item = (Entity, &'a GridAreas)>,
    ) -> Result<(), PartitionError> {
        let mut in_bodies = 0;
        for (entity, areas) in bodies {
            in_bodies += areas.areas.len();
            let expected = areas.range.map_or(0, |(lo, hi)| {
                ((hi.x - lo.x + 1) * (hi.y - lo.y + 1)) as usize
            });
            if expected != areas.areas.len() {
                return Err(PartitionError::WrongCells { entity });
            }
            for area in &areas.areas {
                let Some(i) = self.index(area.cell) else {
                    return Err(PartitionError::CellOutOfGrid {
                        entity,
                        cell: area.cell,
                    });
                };
                let (lo, hi) = areas.range.unwrap_or_default();
                let inside = area.cell.cmpge(lo).all() && area.cell.cmple(hi).all();
                let found = self.cells[i].get(area.index as usize).copied();
                if !inside {
                    return Err(PartitionError::WrongCells { entity });
                }
                if found != Some(entity) {
                    return Err(PartitionError::WrongIndex {
                        entity,
                        cell: area.cell,
                        index: area.index,
                        found,
                    });
                }
            }
        }
        let in_cells = self.cells.iter().map(Vec::len).sum();
        if in_cells != in_bodies {
            return Err(PartitionError::StaleEntries {
                in_cells,
                in_bodies,
            });
        }
        Ok(())
    }
    }

    /// The cells to search for bodies that may touch the box `min..max` *now*: the cells it
    /// covers and one more on every side (clamped to the grid). After a step every body is
    /// filed where it is; a query made during the step, after tile collision moved bodies and
    /// before they are filed again, still finds a body that has crossed into a neighbouring
    /// cell. `None` before the grid exists or for a non-finite box.
    pub(crate) fn search_range(&self, min: Vec2, max: Vec2) -> Option<CellRange> {
        if self.dims.cmpeq(UVec2::ZERO).any() || !min.is_finite() || !max.is_finite() {
            return None;
        }
        let (lo, hi) = self.cell_range(min, max);
        Some((
            lo.saturating_sub(UVec2::ONE),
            (hi + UVec2::ONE).min(self.dims - UVec2::ONE),
        ))
    }

    /// Every body of every cell of `range`, with its cell, once per cell it is in: keep each
    /// body only in the [`first_shared_cell`] of its range and `range`.
    pub(crate) fn bodies_in(&self, range: CellRange) -> impl Iterator<Item = (UVec2, Entity)> + '_ {
        let (lo, hi) = range;
        (lo.y..=hi.y).flat_map(move |y| {
            (lo.x..=hi.x).flat_map(move |x| {
                let cell = UVec2::new(x, y);
                self.cell(cell).iter().map(move |&e| (cell, e))
            })
        })
    }

    #[inline]
    fn index(&self, cell: UVec2) -> Option<usize> {
        (cell.x < self.dims.x && cell.y < self.dims.y)
            .then(|| (cell.y * self.dims.x + cell.x) as usize)
    }

    /// Rebuilds the grid for `map` if it changed; returns whether it did.
    pub(crate) fn fit(&mut self, map: &TileMap, tiles_per_cell: u32, reach: f32) -> bool {
        let tiles_per_cell = tiles_per_cell.max(1);
        let key = (
            map.width(),
            map.height(),
            map.tile_size().to_bits(),
            [map.origin().x.to_bits(), map.origin().y.to_bits()],
            tiles_per_cell,
            reach.to_bits(),
        );
        if self.built_for == Some(key) {
            return false;
        }
        self.built_for = Some(key);
        self.origin = map.origin();
        self.cell_size = map.tile_size() * tiles_per_cell as f32;
        self.margin = map.tile_size() * LEAVE_MARGIN_TILES;
        self.reach = reach;
        self.dims = grid_dims(map.width(), map.height(), tiles_per_cell);
        self.cells.clear();
        self.cells
            .resize_with((self.dims.x * self.dims.y) as usize, Vec::new);
        true
    }

    /// Appends `entity` to `cell`; returns its index there.
    fn push(&mut self, cell: UVec2, entity: Entity) -> u32 {
        let i = self.index(cell).expect("cell inside the grid");
        let list = &mut self.cells[i];
        list.push(entity);
        (list.len() - 1) as u32
    }

    /// Swap-removes entry `index` of `cell`; returns the entity moved into its place, if any.
    fn swap_remove(&mut self, cell: UVec2, index: u32) -> Option<Entity> {
        let i = self.index(cell)?;
        let list = &mut self.cells[i];
        let index = index as usize;
        if index >= list.len() {
            return None;
        }
        list.swap_remove(index);
        list.get(index).copied()
    }
}

/// The cells along x and y of a grid of `tiles_per_cell`-tile cells over a map of `width` x
/// `height` tiles: never more cells than the map has tiles, and a single cell for a map with
/// no tiles (it holds every body; pairs are still confirmed by their boxes). A map too large
/// to number its cells with `u32` (which [`TileMap::try_new`] refuses) gets the single cell too.
fn grid_dims(width: u32, height: u32, tiles_per_cell: u32) -> UVec2 {
    let dims = UVec2::new(
        width.div_ceil(tiles_per_cell),
        height.div_ceil(tiles_per_cell),
    );
    let cells = u64::from(dims.x) * u64::from(dims.y);
    if cells == 0 || cells > TileMap::MAX_TILES {
        return UVec2::ONE;
    }
    dims
}

/// The first cell (bottom-left) two cell ranges share, from their bottom-left cells: a body
/// found in several cells of a search (or a pair in several shared cells) is reported only in
/// this one, so it is reported once without remembering what was seen.
#[inline]
pub(crate) fn first_shared_cell(a_lo: UVec2, b_lo: UVec2) -> UVec2 {
    a_lo.max(b_lo)
}

/// Which coordinates of `cell` the bottom-left cell `lo` of a body in it shares: bit 0 x, bit 1
/// y. For two bodies both in `cell`, [`first_shared_cell`] of theirs is `cell` exactly when
/// their bits together have both set (each coordinate of the larger corner is `cell`'s when
/// one of the two has it), so the pair loop finds a pair's owner with one `or` per pair.
#[inline]
pub(crate) fn shared_corner_bits(lo: UVec2, cell: UVec2) -> u8 {
    u8::from(lo.x == cell.x) | u8::from(lo.y == cell.y) << 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_corner_bits_find_the_first_shared_cell() {
        // Every pair of bottom-left corners of bodies that are both in `cell`.
        let cell = UVec2::new(3, 5);
        for ax in 0..=3 {
            for ay in 2..=5 {
                for bx in 0..=3 {
                    for by in 2..=5 {
                        let (a, b) = (UVec2::new(ax, ay), UVec2::new(bx, by));
                        let bits = shared_corner_bits(a, cell) | shared_corner_bits(b, cell);
                        assert_eq!(bits == 3, first_shared_cell(a, b) == cell, "{a} {b}");
                    }
                }
            }
        }
    }

    fn grid(w: u32, h: u32) -> Partition {
        let mut p = Partition::default();
        p.fit(&TileMap::new(w, h, 16.0), 4, 0.0);
        p
    }

    #[test]
    fn grid_has_no_more_cells_than_the_map_has_tiles() {
        assert_eq!(grid_dims(10, 4, 4), UVec2::new(3, 1));
        assert_eq!(grid_dims(1, 1, 16), UVec2::ONE);
        // Maps with no tiles: one cell, however long their other side.
        assert_eq!(grid_dims(u32::MAX, 0, 16), UVec2::ONE);
        assert_eq!(grid_dims(0, u32::MAX, 1), UVec2::ONE);
        assert_eq!(grid_dims(0, 0, 16), UVec2::ONE);
        // More cells than a u32 numbers: one cell (TileMap::try_new refuses such maps).
        assert_eq!(grid_dims(u32::MAX, u32::MAX, 1), UVec2::ONE);
        for (w, h, c) in [(7, 300, 1), (1000, 3, 8), (65535, 65535, 1), (5, 5, 16)] {
            let d = grid_dims(w, h, c);
            assert!(u64::from(d.x) * u64::from(d.y) <= u64::from(w) * u64::from(h));
        }
    }

    #[test]
    fn grid_covers_the_map_with_ceiling_division() {
        let p = grid(10, 4);
        assert_eq!(p.dims(), UVec2::new(3, 1));
        assert_eq!(p.cell_size(), 64.0);
        assert_eq!(
            p.cell_rect(UVec2::new(1, 0)),
            Rect::new(64.0, 0.0, 128.0, 64.0)
        );
    }

    #[test]
    fn cell_range_is_closed_and_clamped() {
        let p = grid(16, 16);
        // Touching the boundary x = 64 from the left puts the box in both cells.
        assert_eq!(
            p.cell_range(Vec2::new(60.0, 1.0), Vec2::new(64.0, 2.0)),
            (UVec2::new(0, 0), UVec2::new(1, 0))
        );
        // Far outside: clamped to the border cells.
        assert_eq!(
            p.cell_range(Vec2::new(-1e9, 1e9), Vec2::new(-1e9 + 5.0, 1e9 + 5.0)),
            (UVec2::new(0, 3), UVec2::new(0, 3))
        );
    }

    #[test]
    fn swap_remove_reports_the_moved_entity() {
        let mut p = grid(4, 4);
        let (a, b, c) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
            Entity::from_raw_u32(3).unwrap(),
        );
        for e in [a, b, c] {
            p.push(UVec2::ZERO, e);
        }
        assert_eq!(p.swap_remove(UVec2::ZERO, 0), Some(c));
        assert_eq!(p.cell(UVec2::ZERO), [c, b]);
        assert_eq!(
            p.swap_remove(UVec2::ZERO, 1),
            None,
            "removing the last moves nothing"
        );
        assert_eq!(p.cell(UVec2::ZERO), [c]);
    }
}
