//! Box casts (`SpatialQuery::cast_box`, `cast_box_hits`): a box swept through the tiles as the
//! tile collision sweeps a body (slopes by their surface, one-way tiles, one-way slopes and
//! ladder tops only from above), and against bodies by layer and filter.

use bevy::prelude::*;
use bevy_platformer_physics::one_way::OneWayPlatform;
use bevy_platformer_physics::tiles::SlopeTile;
use bevy_platformer_physics::tiles::collide::{PassThrough, TileBody, move_and_slide};

use crate::common::*;

const ALL: QueryFilter = QueryFilter {
    layers: LayerMask::ALL,
    tiles: true,
    exclude: None,
};

/// Every floor slope kind, solid and one-way.
const FLOOR_SLOPES: [TileKind; 12] = [
    TileKind::SlopeRight,
    TileKind::SlopeLeft,
    TileKind::SlopeRightLow,
    TileKind::SlopeRightHigh,
    TileKind::SlopeLeftLow,
    TileKind::SlopeLeftHigh,
    TileKind::OneWaySlopeRight,
    TileKind::OneWaySlopeLeft,
    TileKind::OneWaySlopeRightLow,
    TileKind::OneWaySlopeRightHigh,
    TileKind::OneWaySlopeLeftLow,
    TileKind::OneWaySlopeLeftHigh,
];

fn tile_of(hit: Option<CastHit>) -> IVec2 {
    match hit {
        Some(CastHit {
            target: HitTarget::Tile(t),
            ..
        }) => t,
        other => panic!("expected a tile, got {other:?}"),
    }
}

#[test]
fn a_box_cast_down_onto_each_slope_kind_meets_its_surface_at_the_uphill_corner() {
    // Each slope kind alone on a solid floor, every other column.
    let mut map = empty_map(2 * FLOOR_SLOPES.len() as u32 + 1, 8);
    map.fill(
        IVec2::ZERO,
        IVec2::new(map.width() as i32 - 1, 0),
        TileKind::Solid,
    );
    for (i, &kind) in FLOOR_SLOPES.iter().enumerate() {
        map.set(2 * i as i32 + 1, 1, kind);
    }
    let mut app = app_without_gravity(map.clone());
    step(&mut app, 1);
    let half = Vec2::new(4.0, 6.0);
    with_query(&mut app, |q| {
        for (i, &kind) in FLOOR_SLOPES.iter().enumerate() {
            let x = 2 * i as i32 + 1;
            let (min, max) = map.tile_rect(x, 1);
            let tile = SlopeTile {
                slope: kind.slope().unwrap(),
                min,
                max,
            };
            let center = Vec2::new((min.x + max.x) / 2.0 + 1.5, 100.0);
            let hit = q.cast_box(center, half, Vec2::new(0.0, -200.0), ALL);
            assert_eq!(tile_of(hit), IVec2::new(x, 1), "{kind:?}");
            let hit = hit.unwrap();
            // The surface's normal, met by the box's bottom corner on the uphill side.
            let normal = tile.normal();
            assert!((hit.normal - normal).length() < 1e-6, "{kind:?}: {hit:?}");
            let corner_x = center.x - half.x * normal.x.signum();
            let surface = tile.surface_y(corner_x);
            assert!(
                (hit.point - Vec2::new(corner_x, surface)).length() < 1e-3,
                "{kind:?}: {hit:?}"
            );
            let fall = center.y - half.y - surface;
            assert!((hit.distance - fall).abs() < 1e-3, "{kind:?}: {hit:?}");
        }
    });
}

#[test]
fn a_box_cast_meets_one_way_tiles_ladder_tops_and_one_way_slopes_only_from_above() {
    // A one-way tile at (2, 4), a ladder column at x = 5 topped at y = 4, a one-way slope at
    // (8, 4), a floor at y = 0.
    let mut map = empty_map(11, 10);
    map.fill(IVec2::ZERO, IVec2::new(10, 0), TileKind::Solid);
    map.set(2, 4, TileKind::OneWay);
    map.fill(IVec2::new(5, 1), IVec2::new(5, 4), TileKind::Ladder);
    map.set(8, 4, TileKind::OneWaySlopeRight);
    let mut app = app_without_gravity(map);
    step(&mut app, 1);
    let half = Vec2::new(4.0, 4.0);
    with_query(&mut app, |q| {
        for (x, top) in [(2, 80.0), (5, 80.0), (8, 80.0 - 8.0 + 4.0)] {
            let cx = x as f32 * 16.0 + 8.0;
            // From above: stops on it.
            let down = q.cast_box(Vec2::new(cx, 140.0), half, Vec2::new(0.0, -130.0), ALL);
            assert_eq!(tile_of(down), IVec2::new(x, 4), "column {x}");
            assert!(down.unwrap().normal.y > 0.0);
            let distance = down.unwrap().distance;
            // The one-way slope: the box's uphill corner (x = cx + 4) on the 45-degree surface.
            assert!(
                (distance - (136.0 - top)).abs() < 1e-3,
                "column {x}: {down:?}"
            );
            // From below, going up through it: nothing until the ceiling-less top of the map.
            let up = q.cast_box(Vec2::new(cx, 30.0), half, Vec2::new(0.0, 120.0), ALL);
            assert_eq!(up, None, "column {x}");
            // Sideways through it at its height, from the right (under the slope's surface
            // where the box enters it): nothing.
            let side = q.cast_box(Vec2::new(170.0, 72.0), half, Vec2::new(-165.0, 0.0), ALL);
            assert_eq!(side, None);
            // Starting inside it, going down: the floor.
            let inside = q.cast_box(Vec2::new(cx, 74.0), half, Vec2::new(0.0, -100.0), ALL);
            assert_eq!(tile_of(inside).y, 0, "column {x}");
        }
        // The floor is met from above and from nowhere else; its inner faces never.
        let floor = q.cast_box(Vec2::new(60.0, 40.0), half, Vec2::new(0.0, -50.0), ALL);
        assert_eq!(floor.map(|h| (h.distance, h.normal)), Some((20.0, Vec2::Y)));
    });
}

#[test]
fn a_box_cast_touching_counts_and_grazing_does_not() {
    let map = ascii("........\n.#......\n........\n########");
    let mut app = app_without_gravity(map);
    step(&mut app, 1);
    let half = Vec2::new(4.0, 4.0);
    with_query(&mut app, |q| {
        // Resting on the floor (y = 16), cast down: met at once.
        let rest = q.cast_box(Vec2::new(60.0, 20.0), half, Vec2::new(0.0, -10.0), ALL);
        assert_eq!(rest.map(|h| (h.distance, h.normal)), Some((0.0, Vec2::Y)));
        // Its point: the middle of the box's bottom.
        assert_eq!(rest.unwrap().point, Vec2::new(60.0, 16.0));
        // Sliding along the floor: never met.
        let slide = q.cast_box(Vec2::new(60.0, 20.0), half, Vec2::new(60.0, 0.0), ALL);
        assert_eq!(slide, None);
        // Along the block's right face (x = 32), down past it: not met.
        let graze = q.cast_box(Vec2::new(36.0, 60.0), half, Vec2::new(0.0, -20.0), ALL);
        assert_eq!(graze, None);
        // Into its right face from the side: met, point in the middle of the shared stretch.
        let wall = q
            .cast_box(Vec2::new(60.0, 44.0), half, Vec2::new(-40.0, 0.0), ALL)
            .unwrap();
        assert_eq!((wall.distance, wall.normal), (24.0, Vec2::X));
        assert_eq!(wall.point, Vec2::new(32.0, 44.0));
        // Corner to corner onto the block's top-right corner: the top face, at that corner.
        let diagonal = Vec2::new(-16.0, -16.0);
        let corner = q
            .cast_box(Vec2::new(44.0, 60.0), half, diagonal, ALL)
            .unwrap();
        assert_eq!(
            (corner.normal, corner.point),
            (Vec2::Y, Vec2::new(32.0, 48.0))
        );
        assert!((corner.distance - diagonal.length() / 2.0).abs() < 1e-4);
        // No motion, a non-finite input, an empty box: nothing, no panic.
        assert_eq!(
            q.cast_box(Vec2::new(60.0, 20.0), half, Vec2::ZERO, ALL),
            None
        );
        assert_eq!(q.cast_box(Vec2::NAN, half, Vec2::NEG_Y, ALL), None);
        assert_eq!(q.cast_box(Vec2::ONE, Vec2::ZERO, Vec2::NEG_Y, ALL), None);
        assert_eq!(q.cast_box(Vec2::ONE, half, Vec2::INFINITY, ALL), None);
        assert_eq!(q.cast_box_hits(Vec2::ONE, half, Vec2::NAN, ALL).count(), 0);
    });
}

#[test]
fn a_box_cast_meets_bodies_by_layer_and_filter_and_one_way_bodies_from_above() {
    const CRATES: LayerMask = LayerMask::layer(1);
    const GHOSTS: LayerMask = LayerMask::layer(2);
    let mut app = app_without_gravity(empty_map(20, 20));
    let half = Vec2::splat(8.0);
    let me = spawn(&mut app, Vec2::new(100.0, 200.0), half, Vec2::ZERO);
    let ghost = spawn(&mut app, Vec2::new(100.0, 170.0), half, Vec2::ZERO);
    let crate_ = spawn(&mut app, Vec2::new(100.0, 130.0), half, Vec2::ZERO);
    let platform = spawn(&mut app, Vec2::new(100.0, 90.0), half, Vec2::ZERO);
    app.world_mut()
        .entity_mut(ghost)
        .insert(CollisionLayers::new(GHOSTS, LayerMask::ALL));
    app.world_mut()
        .entity_mut(crate_)
        .insert(CollisionLayers::new(CRATES, LayerMask::ALL));
    app.world_mut().entity_mut(platform).insert(OneWayPlatform);
    step(&mut app, 1);
    let down = Vec2::new(0.0, -150.0);
    let start = Vec2::new(100.0, 200.0);
    with_query(&mut app, |q| {
        let body = |f: QueryFilter| {
            q.cast_box(start, half, down, f)
                .map(|h| (h.target, h.distance))
        };
        // The caster's own box, which the cast starts inside, is never met.
        assert_eq!(body(ALL), Some((HitTarget::Body(ghost), 14.0)));
        assert_eq!(
            body(ALL.excluding(ghost)),
            Some((HitTarget::Body(crate_), 54.0))
        );
        assert_eq!(
            body(QueryFilter::layers(!GHOSTS)),
            Some((HitTarget::Body(crate_), 54.0))
        );
        assert_eq!(
            body(QueryFilter::layers(!GHOSTS & !CRATES)),
            Some((HitTarget::Body(platform), 94.0))
        );
        assert_eq!(body(QueryFilter::layers(LayerMask::NONE)), None);
        // Every body along the way, nearest first, the caster not among them.
        let all: Vec<_> = q
            .cast_box_hits(start, half, down, ALL.excluding(me))
            .map(|h| (h.target, h.distance, h.normal))
            .collect();
        assert_eq!(
            all,
            [
                (HitTarget::Body(ghost), 14.0, Vec2::Y),
                (HitTarget::Body(crate_), 54.0, Vec2::Y),
                (HitTarget::Body(platform), 94.0, Vec2::Y),
            ]
        );
        // The one-way body is not met from below or from the side.
        let up = q.cast_box(Vec2::new(100.0, 40.0), half, Vec2::new(0.0, 40.0), ALL);
        assert_eq!(up, None);
        let side = q.cast_box(Vec2::new(60.0, 90.0), half, Vec2::new(60.0, 0.0), ALL);
        assert_eq!(side, None);
    });
}

#[test]
fn cast_box_hits_lists_tiles_and_bodies_nearest_first_with_tiles_first_at_a_tie() {
    // One-way tiles at y = 6 and 3 over a floor; a body resting on the lower platform.
    let mut map = empty_map(10, 10);
    map.fill(IVec2::ZERO, IVec2::new(9, 0), TileKind::Solid);
    map.fill(IVec2::new(2, 6), IVec2::new(5, 6), TileKind::OneWay);
    map.fill(IVec2::new(2, 3), IVec2::new(5, 3), TileKind::OneWay);
    let mut app = app_without_gravity(map);
    let body = spawn(
        &mut app,
        Vec2::new(40.0, 72.0),
        Vec2::new(4.0, 8.0),
        Vec2::ZERO,
    );
    let beside = spawn(
        &mut app,
        Vec2::new(110.0, 104.0),
        Vec2::splat(8.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    let down = Vec2::new(0.0, -140.0);
    with_query(&mut app, |q| {
        // A box 16 wide over the seam x = 48 touches two tiles of each platform.
        let half = Vec2::new(8.0, 4.0);
        let start = Vec2::new(48.0, 150.0);
        let hits: Vec<_> = q
            .cast_box_hits(start, half, Vec2::new(0.0, -140.0), ALL)
            .map(|h| (h.target, h.distance))
            .collect();
        let tile = |x, y| HitTarget::Tile(IVec2::new(x, y));
        // The platform at y = 6 (top 112), its two tiles in map order; the body's top (80)
        // and the platform at y = 3 (top 64); the floor (16).
        let expected = [
            (tile(2, 6), 34.0),
            (tile(3, 6), 34.0),
            (HitTarget::Body(body), 66.0),
            (tile(2, 3), 82.0),
            (tile(3, 3), 82.0),
            (tile(2, 0), 130.0),
            (tile(3, 0), 130.0),
        ];
        assert_eq!(hits.len(), expected.len(), "{hits:?}");
        for ((target, distance), (want, want_distance)) in hits.iter().zip(expected) {
            assert!(
                *target == want
                    || matches!((target, want), (HitTarget::Tile(a), HitTarget::Tile(b)) if a.y == b.y),
                "{hits:?}"
            );
            assert_eq!(*distance, want_distance, "{hits:?}");
        }
        // The first hit is cast_box's.
        let first = q
            .cast_box(start, half, Vec2::new(0.0, -140.0), ALL)
            .unwrap();
        assert_eq!((first.target, first.distance), expected[0]);
        // The body beside the upper platform, its top flush with the platform's: a tile wins
        // the tie.
        let tie = q.cast_box(Vec2::new(96.0, 150.0), Vec2::new(10.0, 4.0), down, ALL);
        assert_eq!(
            tie.map(|h| (h.target, h.distance)),
            Some((tile(5, 6), 34.0))
        );
        let both: Vec<_> = q
            .cast_box_hits(Vec2::new(96.0, 150.0), Vec2::new(10.0, 4.0), down, ALL)
            .take(2)
            .map(|h| h.target)
            .collect();
        assert_eq!(both, [tile(5, 6), HitTarget::Body(beside)]);
    });
}

/// Random maps of every tile kind and random boxes: where a box cast first meets a tile is
/// where the tile sweep stops a body moving the same way. Straight down onto anything the body
/// stops there; in any direction on maps without slopes it stops there along the hit's normal
/// and slides on along the face.
#[test]
fn a_box_casts_first_hit_is_where_the_tile_sweep_stops_a_body_moving_the_same_way() {
    let kinds = [
        TileKind::Solid,
        TileKind::OneWay,
        TileKind::Ladder,
        TileKind::SlopeRight,
        TileKind::SlopeLeftHigh,
        TileKind::CeilingRight,
        TileKind::OneWaySlopeLeft,
        TileKind::OneWaySlopeRightLow,
    ];
    let mut u = unit_floats(0x00B0_CA57);
    let (mut met, mut missed) = (0, 0);
    let mut app = app_without_gravity(empty_map(12, 12));
    step(&mut app, 1);
    for case in 0..3000 {
        let sloped = case % 2 == 0;
        let mut map = empty_map(12, 12);
        for y in 0..12 {
            for x in 0..12 {
                if u() < 0.25 {
                    let k = (u() * if sloped { 8.0 } else { 3.0 }) as usize;
                    map.set(x, y, kinds[k.min(7)]);
                }
            }
        }
        app.insert_resource(map.clone());
        let half = Vec2::new(1.0 + u() * 10.0, 1.0 + u() * 10.0);
        let center = Vec2::new(u() * 192.0, u() * 192.0);
        let motion = if sloped {
            Vec2::new(0.0, -u() * 100.0)
        } else {
            Vec2::new(u() - 0.5, u() - 0.5) * 200.0
        };
        let hit = with_query(&mut app, |q| q.cast_box(center, half, motion, ALL));
        let skin = app.world().resource::<PhysicsConfig>().contact_tolerance;
        let mut body = TileBody {
            center,
            half,
            velocity: motion,
        };
        move_and_slide(&map, &mut body, PassThrough::default(), 1.0, skin, true);
        let Some(hit) = hit else {
            missed += 1;
            assert!(
                (body.center - (center + motion)).length() < 1e-3,
                "case {case}: the cast met nothing, the body stopped at {}",
                body.center
            );
            continue;
        };
        met += 1;
        let touching = center + motion.normalize() * hit.distance;
        if sloped {
            assert!(
                (body.center - touching).length() < 1e-3,
                "case {case}: {hit:?}, the body stopped at {}",
                body.center
            );
        } else {
            let axis = if hit.normal.x != 0.0 { 0 } else { 1 };
            assert!(
                (body.center[axis] - touching[axis]).abs() < 1e-3,
                "case {case}: {hit:?}, the body stopped at {}",
                body.center
            );
        }
    }
    assert!(met > 500 && missed > 200, "{met} {missed}");
}
