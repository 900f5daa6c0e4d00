//! The stage `PartitionPlugin` ([`PhysicsSystems::UpdatePartition`]): keeping the
//! [`Partition`] up to date (article 000's uniform grid).
//!
//! # Algorithm
//!
//! Every body whose box may have moved is checked against the cells it is filed in; a body
//! that now covers other cells leaves the old ones (swap-remove, fixing the moved body's index)
//! and joins the new ones. The changes are applied in entity order, so the cells' lists are the
//! same on any number of threads. A hook takes a body out of every cell when it leaves.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use bevy::utils::Parallel;

use super::{CellRange, GridArea, GridAreas, Partition};
use crate::body::Aabb;
use crate::config::PhysicsConfig;
use crate::fast::rows::{Changes, DENSE, Rows, count_rows, for_each_piece};
use crate::fast::workers::Workers;
use crate::rest_skipping::memory::Awake;
use crate::schedule::PhysicsSystems;
use crate::tiles::TileMap;
use bevy::ecs::schedule::InternedScheduleLabel;

/// Points `areas`' entry for `cell` at `index`.
fn repoint(areas: &mut GridAreas, cell: UVec2, index: u32) {
    if let Some(a) = areas.areas.iter_mut().find(|a| a.cell == cell) {
        a.index = index;
    }
}

/// The `on_remove` hook of [`Aabb`] and [`GridAreas`]: the body leaves every cell at once,
/// and each body swapped into a freed slot gets its index fixed (article 000's swap-remove).
pub(crate) fn leave_partition_hook(world: DeferredWorld, context: HookContext) {
    leave_partition(world, context.entity);
}

/// `entity` leaves every cell at once (see [`leave_partition_hook`]).
pub(crate) fn leave_partition(mut world: DeferredWorld, entity: Entity) {
    let Some(areas) = world
        .get_mut::<GridAreas>(entity)
        .map(|mut a| core::mem::take(&mut *a))
    else {
        return;
    };
    for area in areas.areas {
        let moved = world
            .get_resource_mut::<Partition>()
            .and_then(|mut p| p.swap_remove(area.cell, area.index));
        if let Some(moved) = moved
            && let Some(mut other) = world.get_mut::<GridAreas>(moved)
        {
            repoint(&mut other, area.cell, area.index);
        }
    }
}

/// A body whose cells change, and its new range (`None`: it leaves the partition).
type CellChange = (Entity, Option<CellRange>);

/// `Mut` rather than `&mut` for the areas: its read-only view keeps their added ticks.
type PartitionQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        Ref<'static, Aabb>,
        Mut<'static, GridAreas>,
        Mut<'static, Awake>,
    ),
>;

/// Files every body whose box moved to other cells since it was last filed (every body when
/// the grid was rebuilt). It runs twice a step:
///
/// - `update_partition::<true>` is the `UpdatePartition` system, before pair detection, on
///   several threads above [`PhysicsConfig::parallel_min_bodies`];
/// - `update_partition::<false>` is the last system of `Respond`, on this thread (few bodies
///   move there): the bodies the response moved are filed where they ended, so that spatial
///   queries, sensors and tools after the step see every body in the cells its box covers,
///   however far it was pushed.
///
/// The bodies looked at are those that may have moved this step so far
/// ([`Awake::may_have_moved`]) and the new ones.
pub(crate) fn update_partition<const PARALLEL: bool>(
    (config, workers): (Res<PhysicsConfig>, Res<Workers>),
    map: Res<TileMap>,
    mut partition: ResMut<Partition>,
    mut bodies: PartitionQuery,
    (mut changed, mut found): (Local<Vec<CellChange>>, Local<Parallel<Vec<CellChange>>>),
) {
    let parallel_min = if PARALLEL {
        config.parallel_min_bodies
    } else {
        usize::MAX
    };
    // Relaxation's near lists need the bodies within its reach of each other to share a cell.
    let reach = config.relaxation_reach(map.tile_size());
    let rebuilt = partition.fit(&map, config.partition_cell_tiles, reach);
    if rebuilt {
        // A new grid holds nobody yet (rare: the map or the cell size changed).
        for (_, _, mut areas, _) in &mut bodies {
            areas.areas.clear();
            areas.range = None;
        }
    }
    // Which bodies change cells: every body that may have moved (see `crate::rest_skipping::memory`) and every
    // new one (all of them after a rebuild) is checked, read as table slices and on several threads for
    // large scenes; few change. A resting body's box is the one it was filed with. They are
    // then handled in entity order, so the cells' lists come out the same on any number of
    // threads.
    let grid = &*partition;
    let shared = &*found;
    let (total, parallel) = count_rows(&bodies, parallel_min);
    for (entities, aabbs, areas, rests) in bodies.contiguous_iter().expect(DENSE) {
        let (arrived, aabbs, areas) = (
            Changes::added(&areas),
            aabbs.into_inner(),
            areas.into_inner(),
        );
        let rests = rests.into_inner();
        let rows = (entities, (aabbs, rests), (areas, arrived));
        for_each_piece(
            rows,
            entities.len(),
            total,
            workers.threads(parallel),
            |rows| {
                let len = rows.row_count();
                let (entities, (aabbs, rests), (areas, arrived)) = rows;
                for row in 0..len {
                    // Decided from the `Awake` byte and the added tick alone: most bodies rest.
                    if !(rebuilt || rests[row].may_have_moved() || arrived.at(row)) {
                        continue;
                    }
                    let (entity, aabb, areas) = (entities[row], &aabbs[row], &areas[row]);
                    let range = Partition::filed_box(aabb, config.contact_tolerance + reach)
                        .map(|(min, max)| grid.kept_range(min, max, areas.range));
                    if range != areas.range {
                        shared.borrow_local_mut().push((entity, range));
                    }
                }
            },
        );
    }
    changed.clear();
    found.drain_into(&mut changed);
    changed.sort_unstable_by_key(|&(entity, _)| entity);
    for &(entity, range) in changed.iter() {
        let Ok((_, _, mut areas, _)) = bodies.get_mut(entity) else {
            continue;
        };
        let mut mine = core::mem::take(&mut *areas);
        // Leave the cells outside the new range (article 000's removal loop).
        let mut i = 0;
        while i < mine.areas.len() {
            let area = mine.areas[i];
            let keep = range
                .is_some_and(|(lo, hi)| area.cell.cmpge(lo).all() && area.cell.cmple(hi).all());
            if keep {
                i += 1;
                continue;
            }
            mine.areas.swap_remove(i);
            if let Some(moved) = partition.swap_remove(area.cell, area.index) {
                if moved == entity {
                    repoint(&mut mine, area.cell, area.index);
                } else if let Ok((_, _, mut other, _)) = bodies.get_mut(moved) {
                    repoint(&mut other, area.cell, area.index);
                }
            }
        }
        // Enter the new cells not already held.
        if let Some((lo, hi)) = range {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    let cell = UVec2::new(x, y);
                    let held = mine
                        .range
                        .is_some_and(|(olo, ohi)| cell.cmpge(olo).all() && cell.cmple(ohi).all());
                    if !held {
                        let index = partition.push(cell, entity);
                        mine.areas.push(GridArea { cell, index });
                    }
                }
            }
        }
        mine.range = range;
        if let Ok((_, _, mut areas, mut awake)) = bodies.get_mut(entity) {
            *areas = mine;
            // Filed again after the response (which moved it across a cell's edge): its
            // snapshot, which names its first cell, is taken again at the next step, so the
            // pair loop never reads a resting body's old first cell against its new cells.
            if !PARALLEL {
                awake.bypass_change_detection().moved();
            }
        }
    }
}

/// The stage [`PhysicsSystems::UpdatePartition`]:
/// [`update_partition`], with the [`Partition`] and the [`GridAreas`] it keeps on every body.
/// (The response files the bodies it moved again at the end of its own stage.)
pub(crate) struct PartitionPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for PartitionPlugin {
    fn build(&self, app: &mut App) {
        app.register_required_components::<Aabb, GridAreas>()
            .init_resource::<Partition>()
            .register_type::<GridAreas>()
            .add_systems(
                self.0,
                update_partition::<true>.in_set(PhysicsSystems::UpdatePartition),
            );
    }
}
