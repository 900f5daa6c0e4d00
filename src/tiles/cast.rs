//! Segment casts through the tile map: the first tile a segment enters that stops it.
//!
//! # Algorithm
//!
//! 1. The segment is clipped to the map's rectangle (everything outside is empty).
//! 2. It walks the grid one tile at a time (Amanatides and Woo's traversal): at each step it
//!    enters the next tile along x or along y, whichever boundary comes first, remembering the
//!    face it entered through. At an exact corner both side tiles are checked (touching counts)
//!    before the diagonal one.
//! 3. A tile stops the segment when it is [`TileKind::Solid`], or [`TileKind::OneWay`] entered
//!    through its top face while going down, or a slope whose solid part the segment meets
//!    (there, with that face's normal). Ladders and empty tiles never stop it.
//!
//! A segment that starts inside a solid tile stops at distance 0 with a zero normal; one that
//! starts exactly on a tile's face and goes into it stops at distance 0 with that face's normal.
//! A segment that runs exactly along a grid line walks the tiles above it (or to its right):
//! a horizontal cast at the height of a floor's top face slides along the floor instead of
//! stopping on it at once.

use bevy::math::{IVec2, Vec2};

use super::reach::PassThrough;
use super::slope::{SlopeTile, cast_segment_slope};
use super::sweep::{Contact, for_each_contact};
use super::{TileKind, TileMap};
use crate::geometry::{contact_point, rect_corners};
use crate::shapes::{BoxShape, cast_segment_box};

/// A tile a box cast met, from [`box_tile_hits`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TileBoxHit {
    /// The tile's coordinate.
    pub(crate) tile: IVec2,
    /// How far the box moved before it touched the tile.
    pub(crate) distance: f32,
    /// Outward normal of the tile's face or slope surface the box touched.
    pub(crate) normal: Vec2,
    /// Where they touch (the middle of the stretch they share).
    pub(crate) point: Vec2,
}

/// Calls `f` for every tile that a box (centre `center`, half extents `half`) moving by
/// `motion` touches on the way, once each, at its first contact, in no particular order. The
/// contacts are the tile sweep's, for a body that neither drops through nor climbs: the open
/// faces of solid tiles, the tops of one-way tiles and ladders met from above, slope surfaces
/// (one-way slopes only from above), never a tile the box starts inside; `skin` is the sweep's
/// tolerance. The caller ([`SpatialQuery`](crate::SpatialQuery)'s box casts) gives a box with
/// finite positive extents, finite and moving.
pub(crate) fn box_tile_hits(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    motion: Vec2,
    skin: f32,
    mut f: impl FnMut(TileBoxHit),
) {
    let pass = PassThrough::default();
    for_each_contact(map, center, half, motion, skin, pass, |tile, contact| {
        let moved = center + motion * contact.time();
        let (distance, normal, corners) = match contact {
            Contact::Face(hit) => {
                let (min, max) = map.tile_rect(tile.x, tile.y);
                let rect = rect_corners(min, max);
                (hit.distance(center, motion), hit.normal(), (rect, 4))
            }
            Contact::Surface(hit, slope) => {
                let polygon = slope.polygon();
                let mut corners = [Vec2::ZERO; 4];
                let n = polygon.corners().len();
                corners[..n].copy_from_slice(polygon.corners());
                (hit.time * motion.length(), hit.normal, (corners, n))
            }
        };
        f(TileBoxHit {
            tile,
            distance,
            normal,
            point: contact_point(&corners.0[..corners.1], moved, half, normal, skin),
        });
    });
}

/// The tile a segment cast stopped at, from [`cast_segment_tiles`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileHit {
    /// The tile's coordinate.
    pub tile: IVec2,
    /// Distance from the segment's start to the point where it entered the tile.
    pub distance: f32,
    /// Outward normal of the face entered (zero when the segment starts inside the tile).
    pub normal: Vec2,
}

/// The face a segment entered a tile through: the axis (0 = x, 1 = y) and the direction the
/// segment moved along it.
#[derive(Clone, Copy, PartialEq)]
struct Face {
    axis: usize,
    step: i32,
}

impl Face {
    fn normal(face: Option<Face>) -> Vec2 {
        let mut n = Vec2::ZERO;
        if let Some(f) = face {
            n[f.axis] = -f.step as f32;
        }
        n
    }
}

/// Whether a tile of `kind` entered through `face` stops a cast.
#[inline]
fn stops(kind: TileKind, face: Option<Face>) -> bool {
    match kind {
        TileKind::Solid => true,
        TileKind::OneWay => face == Some(Face { axis: 1, step: -1 }),
        TileKind::Empty | TileKind::Ladder => false,
        // A slope stops it where it meets the solid part (see `cast_segment_tiles`).
        _ => true,
    }
}

/// The first tile that stops the segment from `start` to `end` (see the module's algorithm),
/// or `None`. Touching counts: a segment that ends exactly on a solid face hits it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
/// use bevy_platformer_physics::tiles::cast_segment_tiles;
///
/// // 16-unit tiles; a one-way platform at (1, 1) over a solid floor.
/// let map = TileMap::from_ascii(".-..\n####", 16.0).unwrap();
/// // Straight down through x = 24: stops on the platform's top face, y = 32.
/// let hit = cast_segment_tiles(&map, Vec2::new(24.0, 60.0), Vec2::new(24.0, 0.0)).unwrap();
/// assert_eq!((hit.tile, hit.distance, hit.normal), (IVec2::new(1, 1), 28.0, Vec2::Y));
/// // Straight up from the floor's top, the platform does not stop it.
/// assert!(cast_segment_tiles(&map, Vec2::new(24.0, 16.0), Vec2::new(24.0, 60.0)).is_none());
/// ```
pub fn cast_segment_tiles(map: &TileMap, start: Vec2, end: Vec2) -> Option<TileHit> {
    if map.width() == 0 || map.height() == 0 || !start.is_finite() || !end.is_finite() {
        return None;
    }
    let size = map.tile_size();
    let dims = IVec2::new(map.width() as i32, map.height() as i32);
    // Tile space: tile (x, y) covers [x, x + 1] x [y, y + 1].
    let a = (start - map.origin()) / size;
    let d = (end - start) / size;
    let world_length = (end - start).length();
    let bounds = BoxShape {
        center: dims.as_vec2() / 2.0,
        half_extents: dims.as_vec2() / 2.0,
    };
    // 1. Clip to the map: the entry parameter and face, and the exit parameter.
    let entry = cast_segment_box(a, a + d, bounds)?;
    let t_in = if d == Vec2::ZERO {
        0.0
    } else {
        entry.distance / d.length()
    };
    let exit = cast_segment_box(a + d, a, bounds).map_or(1.0, |h| {
        1.0 - if d == Vec2::ZERO {
            0.0
        } else {
            h.distance / d.length()
        }
    });
    let p = a + d * t_in;
    let step = IVec2::new(d.x.signum() as i32, d.y.signum() as i32)
        * IVec2::new((d.x != 0.0) as i32, (d.y != 0.0) as i32);
    // The first tile: on a boundary, the one the segment goes into.
    let mut cell = IVec2::ZERO;
    let mut face = None;
    for axis in 0..2 {
        let f = p[axis].floor();
        let on_boundary = f == p[axis] && step[axis] != 0;
        cell[axis] = f as i32 - (on_boundary && step[axis] < 0) as i32;
        cell[axis] = cell[axis].clamp(0, dims[axis] - 1);
        if on_boundary && (face.is_none() || axis == 1) {
            face = Some(Face {
                axis,
                step: step[axis],
            });
        }
    }
    if t_in > 0.0 {
        // Entered from outside the map, through the border face the clip found.
        let axis = (entry.normal.y != 0.0) as usize;
        face = Some(Face {
            axis,
            step: step[axis],
        });
    }
    let unit = (end - start) / world_length;
    let hit = |cell: IVec2, t: f32, face: Option<Face>| {
        let kind = map.checked_get(cell.x, cell.y)?;
        if let Some(slope) = kind.slope() {
            // Somewhere in the tile, or nowhere: the surface, or the face entered.
            let (min, max) = map.tile_rect(cell.x, cell.y);
            let tile = SlopeTile { slope, min, max };
            let (s, normal) = cast_segment_slope(start, end, &tile)?;
            return Some(TileHit {
                tile: cell,
                distance: s * world_length,
                normal,
            });
        }
        stops(kind, face).then(|| TileHit {
            tile: cell,
            // From the face's world coordinate where there is one: exact for whole numbers.
            distance: match face {
                Some(f) if t > 0.0 => {
                    let side = cell[f.axis] + (f.step < 0) as i32;
                    let plane = map.origin()[f.axis] + side as f32 * size;
                    ((plane - start[f.axis]) / unit[f.axis]).abs()
                }
                _ => t * world_length,
            },
            normal: Face::normal(face),
        })
    };
    if let Some(h) = hit(cell, t_in, face) {
        return Some(h);
    }
    // 2. Walk the grid.
    let next_boundary = |axis: usize, cell: IVec2| -> f32 {
        match step[axis] {
            0 => f32::INFINITY,
            s => ((cell[axis] + (s > 0) as i32) as f32 - a[axis]) / d[axis],
        }
    };
    let mut t_max = Vec2::new(next_boundary(0, cell), next_boundary(1, cell));
    let t_delta = Vec2::new(1.0 / d.x.abs(), 1.0 / d.y.abs());
    let x_face = Some(Face {
        axis: 0,
        step: step.x,
    });
    let y_face = Some(Face {
        axis: 1,
        step: step.y,
    });
    // Every turn enters the next tile along the segment's direction, so the walk leaves the map
    // (and ends) within a column and row count, even when rounding loses the parameter's steps
    // on absurdly long segments.
    loop {
        let t = t_max.min_element();
        // `t` is NaN only for a degenerate segment: stop then too.
        if t.is_nan() || t > exit {
            return None;
        }
        if t_max.x == t_max.y {
            // An exact corner: the two side tiles are touched, then the diagonal one entered.
            let side_x = cell + IVec2::new(step.x, 0);
            let side_y = cell + IVec2::new(0, step.y);
            if let Some(h) = hit(side_x, t, x_face).or_else(|| hit(side_y, t, y_face)) {
                return Some(h);
            }
            cell += step;
            t_max += t_delta;
            face = y_face;
        } else if t_max.x < t_max.y {
            cell.x += step.x;
            t_max.x += t_delta.x;
            face = x_face;
        } else {
            cell.y += step.y;
            t_max.y += t_delta.y;
            face = y_face;
        }
        if cell.cmplt(IVec2::ZERO).any() || cell.cmpge(dims).any() {
            return None;
        }
        if let Some(h) = hit(cell, t, face) {
            return Some(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 15 x 15 map of 10-unit tiles with a solid ring at x, y = 2 and 12.
    fn ring() -> TileMap {
        let mut map = TileMap::new(15, 15, 10.0);
        map.fill(IVec2::new(2, 2), IVec2::new(12, 2), TileKind::Solid);
        map.fill(IVec2::new(2, 12), IVec2::new(12, 12), TileKind::Solid);
        map.fill(IVec2::new(2, 2), IVec2::new(2, 12), TileKind::Solid);
        map.fill(IVec2::new(12, 2), IVec2::new(12, 12), TileKind::Solid);
        map
    }

    #[test]
    fn first_solid_tile_in_eight_directions() {
        let map = ring();
        // From (75, 73): walls' inner faces at x = 30 / 120 and y = 30 / 120.
        let start = Vec2::new(75.0, 73.0);
        let cases = [
            (Vec2::X, IVec2::new(12, 7), 45.0, Vec2::NEG_X),
            (Vec2::NEG_X, IVec2::new(2, 7), 45.0, Vec2::X),
            (Vec2::Y, IVec2::new(7, 12), 47.0, Vec2::NEG_Y),
            (Vec2::NEG_Y, IVec2::new(7, 2), 43.0, Vec2::Y),
            // Diagonals: x and y change by the same amount; the nearer wall is met first.
            (Vec2::new(1.0, 1.0), IVec2::new(12, 11), 45.0, Vec2::NEG_X),
            (Vec2::new(-1.0, 1.0), IVec2::new(2, 11), 45.0, Vec2::X),
            (Vec2::new(1.0, -1.0), IVec2::new(11, 2), 43.0, Vec2::Y),
            (Vec2::new(-1.0, -1.0), IVec2::new(3, 2), 43.0, Vec2::Y),
        ];
        for (dir, tile, along_axis, normal) in cases {
            let end = start + dir * 200.0;
            let hit = cast_segment_tiles(&map, start, end).expect("hits the ring");
            let distance = along_axis * dir.length();
            assert_eq!((hit.tile, hit.normal), (tile, normal), "direction {dir}");
            assert!(
                (hit.distance - distance).abs() < 1e-3,
                "direction {dir}: {hit:?}"
            );
        }
    }

    #[test]
    fn one_way_stops_a_downward_cast_only_and_ladders_never() {
        let mut map = TileMap::new(5, 8, 10.0);
        map.set(2, 3, TileKind::OneWay);
        map.fill(IVec2::new(0, 0), IVec2::new(4, 0), TileKind::Solid);
        map.fill(IVec2::new(1, 5), IVec2::new(1, 7), TileKind::Ladder);
        let down = cast_segment_tiles(&map, Vec2::new(25.0, 75.0), Vec2::new(25.0, 0.0)).unwrap();
        assert_eq!(
            (down.tile, down.distance, down.normal),
            (IVec2::new(2, 3), 35.0, Vec2::Y)
        );
        // Up through it, and sideways through it: the floor or nothing.
        assert!(cast_segment_tiles(&map, Vec2::new(25.0, 15.0), Vec2::new(25.0, 79.0)).is_none());
        assert!(cast_segment_tiles(&map, Vec2::new(1.0, 35.0), Vec2::new(49.0, 35.0)).is_none());
        // Diagonally down into its side: enters through the left face, passes, hits the floor.
        let side = cast_segment_tiles(&map, Vec2::new(15.0, 38.0), Vec2::new(45.0, 8.0)).unwrap();
        assert_eq!(side.tile.y, 0);
        // Down a ladder column (top included) to the floor.
        let ladder = cast_segment_tiles(&map, Vec2::new(15.0, 79.0), Vec2::new(15.0, 0.0)).unwrap();
        assert_eq!((ladder.tile, ladder.distance), (IVec2::new(1, 0), 69.0));
        // Starting inside the one-way tile, going down: it was not entered from above.
        let inside = cast_segment_tiles(&map, Vec2::new(25.0, 35.0), Vec2::new(25.0, 0.0)).unwrap();
        assert_eq!(inside.tile, IVec2::new(2, 0));
        // Starting exactly on its top face (feet on the platform): stops at once.
        let feet = cast_segment_tiles(&map, Vec2::new(25.0, 40.0), Vec2::new(25.0, 30.0)).unwrap();
        assert_eq!(
            (feet.tile, feet.distance, feet.normal),
            (IVec2::new(2, 3), 0.0, Vec2::Y)
        );
    }

    #[test]
    fn starts_and_ends_on_faces_inside_and_outside_the_map() {
        let map = ring();
        // Inside a solid tile: distance 0, no normal.
        let inside =
            cast_segment_tiles(&map, Vec2::new(25.0, 75.0), Vec2::new(75.0, 75.0)).unwrap();
        assert_eq!(
            (inside.tile, inside.distance, inside.normal),
            (IVec2::new(2, 7), 0.0, Vec2::ZERO)
        );
        // On a wall's face going away from it: the wall is not hit.
        let away = cast_segment_tiles(&map, Vec2::new(30.0, 75.0), Vec2::new(60.0, 75.0));
        assert!(away.is_none());
        // On a wall's face going into it: hit at 0 with the face's normal.
        let into = cast_segment_tiles(&map, Vec2::new(30.0, 75.0), Vec2::new(20.0, 75.0)).unwrap();
        assert_eq!(
            (into.tile, into.distance, into.normal),
            (IVec2::new(2, 7), 0.0, Vec2::X)
        );
        // Ending exactly on a face: touching counts.
        let touch =
            cast_segment_tiles(&map, Vec2::new(75.0, 75.0), Vec2::new(120.0, 75.0)).unwrap();
        assert_eq!((touch.tile, touch.distance), (IVec2::new(12, 7), 45.0));
        // Along the floor's top face (y = 30): slides along it to the right wall.
        let along =
            cast_segment_tiles(&map, Vec2::new(75.0, 30.0), Vec2::new(140.0, 30.0)).unwrap();
        assert_eq!((along.tile, along.distance), (IVec2::new(12, 3), 45.0));
        // Ending short of it: nothing.
        assert!(cast_segment_tiles(&map, Vec2::new(75.0, 75.0), Vec2::new(119.0, 75.0)).is_none());
        // From outside the map: clipped, enters the outer face of the left wall column.
        let from_outside =
            cast_segment_tiles(&map, Vec2::new(-100.0, 75.0), Vec2::new(75.0, 75.0)).unwrap();
        assert_eq!(
            (from_outside.tile, from_outside.distance),
            (IVec2::new(2, 7), 120.0)
        );
        assert_eq!(from_outside.normal, Vec2::NEG_X);
        // Missing the map entirely, a zero-length segment, non-finite input: nothing, no panic.
        assert!(
            cast_segment_tiles(&map, Vec2::new(-10.0, 500.0), Vec2::new(500.0, 500.0)).is_none()
        );
        assert!(cast_segment_tiles(&map, Vec2::new(75.0, 75.0), Vec2::new(75.0, 75.0)).is_none());
        assert!(cast_segment_tiles(&map, Vec2::new(25.0, 75.0), Vec2::new(25.0, 75.0)).is_some());
        assert!(cast_segment_tiles(&map, Vec2::NAN, Vec2::ONE).is_none());
        // Absurdly long segments through the map end (the walk is capped), without panicking.
        let huge = cast_segment_tiles(&map, Vec2::new(-1e30, 75.0), Vec2::new(1e30, 75.0));
        assert!(huge.is_none_or(|h| h.distance.is_finite()));
        let _ = cast_segment_tiles(&map, Vec2::splat(-1e30), Vec2::splat(1e30));
        let _ = cast_segment_tiles(&map, Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        assert!(cast_segment_tiles(&map, Vec2::ZERO, Vec2::INFINITY).is_none());
    }

    #[test]
    fn an_exact_corner_touches_both_side_tiles() {
        // From (1.5, 0.5) at 45° the segment passes exactly through the corners (2, 1), (3, 2)...
        let cast = |solid: IVec2| {
            let mut map = TileMap::new(6, 6, 1.0);
            map.set(solid.x, solid.y, TileKind::Solid);
            cast_segment_tiles(&map, Vec2::new(1.5, 0.5), Vec2::new(5.5, 4.5))
        };
        let along = |d: f32| d * 2.0_f32.sqrt();
        // The diagonal tile beyond the corner (3, 2), entered at that corner.
        let diagonal = cast(IVec2::new(3, 2)).unwrap();
        assert!((diagonal.distance - along(1.5)).abs() < 1e-5);
        // The tiles on either side of the corner are touched there too.
        let right = cast(IVec2::new(3, 1)).unwrap();
        assert_eq!((right.tile, right.normal), (IVec2::new(3, 1), Vec2::NEG_X));
        assert!((right.distance - along(1.5)).abs() < 1e-5);
        let above = cast(IVec2::new(2, 2)).unwrap();
        assert_eq!((above.tile, above.normal), (IVec2::new(2, 2), Vec2::NEG_Y));
        // A tile off the path is not.
        assert!(cast(IVec2::new(4, 1)).is_none());
    }

    proptest::proptest! {
        /// On maps of solid tiles, the grid walk finds the same first distance as casting the
        /// segment against every solid tile's box.
        #[test]
        fn the_walk_agrees_with_casting_against_every_solid_tile(
            solid in proptest::collection::vec(proptest::bool::weighted(0.2), 144),
            sx in -3.0f32..15.0, sy in -3.0f32..15.0, ex in -3.0f32..15.0, ey in -3.0f32..15.0,
        ) {
            let mut map = TileMap::new(12, 12, 16.0);
            for (i, &s) in solid.iter().enumerate() {
                if s {
                    map.set(i as i32 % 12, i as i32 / 12, TileKind::Solid);
                }
            }
            let (start, end) = (Vec2::new(sx, sy) * 16.0, Vec2::new(ex, ey) * 16.0);
            let brute = (0..144)
                .filter(|&i| solid[i])
                .filter_map(|i| {
                    let (min, max) = map.tile_rect(i as i32 % 12, i as i32 / 12);
                    let b = BoxShape { center: (min + max) / 2.0, half_extents: (max - min) / 2.0 };
                    cast_segment_box(start, end, b).map(|h| h.distance)
                })
                .fold(None, |best: Option<f32>, d| Some(best.map_or(d, |b| b.min(d))));
            let walk = cast_segment_tiles(&map, start, end);
            match (walk, brute) {
                (None, None) => {}
                (Some(w), Some(b)) => {
                    proptest::prop_assert!((w.distance - b).abs() < 1e-2, "walk {w:?}, brute {b}");
                    proptest::prop_assert_eq!(map.get(w.tile.x, w.tile.y), TileKind::Solid);
                }
                (w, b) => proptest::prop_assert!(false, "walk {w:?}, brute {b:?}"),
            }
        }
    }
}
