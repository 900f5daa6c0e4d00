//! Spatial queries: bodies at a point and in a rectangle, and the first tile or body along a
//! segment (one-way tiles from above only, ladders never), filtered by layers.

use bevy::prelude::*;

use crate::common::*;

/// 24 x 24 tiles of 16 units: a solid ring at tiles 2 and 21 (inner faces at 48 and 336 on
/// both axes), a one-way tile at (16, 6) (top face y = 112) and a ladder column at x = 6.
fn room() -> TileMap {
    let mut map = empty_map(24, 24);
    for (lo, hi) in [
        ((2, 2), (21, 2)),
        ((2, 21), (21, 21)),
        ((2, 2), (2, 21)),
        ((21, 2), (21, 21)),
    ] {
        map.fill(IVec2::from(lo), IVec2::from(hi), TileKind::Solid);
    }
    map.set(16, 6, TileKind::OneWay);
    map.fill(IVec2::new(6, 3), IVec2::new(6, 20), TileKind::Ladder);
    map
}

fn tile_hit(hit: Option<CastHit>) -> (IVec2, f32, Vec2) {
    match hit {
        Some(CastHit {
            target: HitTarget::Tile(t),
            distance,
            normal,
            point,
        }) => {
            assert!(point.is_finite());
            (t, distance, normal)
        }
        other => panic!("expected a tile, got {other:?}"),
    }
}

const ALL: QueryFilter = QueryFilter {
    layers: LayerMask::ALL,
    tiles: true,
    exclude: None,
};

#[test]
fn cast_segment_returns_the_first_solid_tile_in_all_eight_directions() {
    let mut app = app_without_gravity(room());
    step(&mut app, 1);
    let start = Vec2::new(200.0, 197.0);
    // (direction, tile, distance along each moving axis, normal). West and the two western
    // diagonals cross the ladder column on the way.
    let cases = [
        (Vec2::X, IVec2::new(21, 12), 136.0, Vec2::NEG_X),
        (Vec2::NEG_X, IVec2::new(2, 12), 152.0, Vec2::X),
        (Vec2::Y, IVec2::new(12, 21), 139.0, Vec2::NEG_Y),
        (Vec2::NEG_Y, IVec2::new(12, 2), 149.0, Vec2::Y),
        (Vec2::new(1.0, 1.0), IVec2::new(21, 20), 136.0, Vec2::NEG_X),
        (Vec2::new(-1.0, 1.0), IVec2::new(3, 21), 139.0, Vec2::NEG_Y),
        (Vec2::new(1.0, -1.0), IVec2::new(21, 3), 136.0, Vec2::NEG_X),
        (Vec2::new(-1.0, -1.0), IVec2::new(3, 2), 149.0, Vec2::Y),
    ];
    with_query(&mut app, |q| {
        for (dir, tile, along_axis, normal) in cases {
            let hit = q.cast_segment(start, start + dir * 400.0, ALL);
            let point = hit.unwrap().point;
            let (t, d, n) = tile_hit(hit);
            assert_eq!((t, n), (tile, normal), "direction {dir}");
            assert!(
                (d - along_axis * dir.length()).abs() < 1e-3,
                "direction {dir}: {d}"
            );
            assert!((point - (start + dir * along_axis)).length() < 1e-3);
        }
    });
}

#[test]
fn cast_segment_hits_a_one_way_tile_only_from_above_and_passes_ladders() {
    let mut app = app_without_gravity(room());
    step(&mut app, 1);
    with_query(&mut app, |q| {
        // Down through the one-way tile's column: its top face.
        let down = q.cast_segment(Vec2::new(264.0, 197.0), Vec2::new(264.0, 0.0), ALL);
        assert_eq!(tile_hit(down), (IVec2::new(16, 6), 85.0, Vec2::Y));
        // Up from the floor: through it to the ceiling.
        let up = q.cast_segment(Vec2::new(264.0, 60.0), Vec2::new(264.0, 400.0), ALL);
        assert_eq!(tile_hit(up), (IVec2::new(16, 21), 276.0, Vec2::NEG_Y));
        // Sideways through it: nothing before the segment ends.
        let side = q.cast_segment(Vec2::new(200.0, 104.0), Vec2::new(320.0, 104.0), ALL);
        assert_eq!(side, None);
        // Down the whole ladder column, top included: the floor.
        let ladder = q.cast_segment(Vec2::new(104.0, 330.0), Vec2::new(104.0, 0.0), ALL);
        assert_eq!(tile_hit(ladder), (IVec2::new(6, 2), 282.0, Vec2::Y));
        // Along the ladder column, up: the ceiling.
        let climb = q.cast_segment(Vec2::new(104.0, 60.0), Vec2::new(104.0, 400.0), ALL);
        assert_eq!(tile_hit(climb).0, IVec2::new(6, 21));
    });
}

#[test]
fn cast_segment_returns_the_nearest_body_before_any_tile_filtered_by_layers() {
    const CRATE: LayerMask = LayerMask::layer(3);
    let mut app = app_without_gravity(room());
    let caster = still_box(&mut app, Vec2::new(100.0, 200.0));
    let near = still_box(&mut app, Vec2::new(150.0, 200.0));
    let far = spawn(
        &mut app,
        Vec2::new(250.0, 205.0),
        Vec2::splat(10.0),
        Vec2::ZERO,
    );
    app.world_mut()
        .entity_mut(near)
        .insert(CollisionLayers::new(CRATE, LayerMask::ALL));
    step(&mut app, 1);
    let from = Vec2::new(100.0, 200.0);
    let to = Vec2::new(400.0, 200.0);
    with_query(&mut app, |q| {
        // Starting inside the caster: it is hit at once, unless left out.
        let own = q.cast_segment(from, to, ALL).unwrap();
        assert_eq!(
            (own.target, own.distance, own.normal),
            (HitTarget::Body(caster), 0.0, Vec2::ZERO)
        );
        let hit = q.cast_segment(from, to, ALL.excluding(caster)).unwrap();
        assert_eq!(hit.target, HitTarget::Body(near));
        assert_eq!(
            (hit.distance, hit.normal, hit.point),
            (44.0, Vec2::NEG_X, Vec2::new(144.0, 200.0))
        );
        // Crates left out by the layers: the next body.
        let no_crates = QueryFilter::layers(!CRATE).excluding(caster);
        let next = q.cast_segment(from, to, no_crates).unwrap();
        assert_eq!((next.target, next.distance), (HitTarget::Body(far), 140.0));
        // No bodies at all: the wall.
        let walls = QueryFilter::layers(LayerMask::NONE);
        assert_eq!(
            tile_hit(q.cast_segment(from, to, walls)).0,
            IVec2::new(21, 12)
        );
        // No tiles and no bodies in range: nothing.
        let short = q.cast_segment(
            Vec2::new(200.0, 100.0),
            Vec2::new(300.0, 100.0),
            ALL.without_tiles(),
        );
        assert_eq!(short, None);
    });
    // A body behind a wall is not hit: the wall is.
    let mut app = app_without_gravity(room());
    let outside = still_box(&mut app, Vec2::new(360.0, 300.0));
    step(&mut app, 1);
    with_query(&mut app, |q| {
        let hit = q.cast_segment(Vec2::new(300.0, 300.0), Vec2::new(380.0, 300.0), ALL);
        assert_eq!(tile_hit(hit).0, IVec2::new(21, 18));
        let through = q.cast_segment(
            Vec2::new(300.0, 300.0),
            Vec2::new(380.0, 300.0),
            ALL.without_tiles(),
        );
        assert_eq!(through.unwrap().target, HitTarget::Body(outside));
    });
}

#[test]
fn cast_segment_hits_a_one_way_body_only_from_above() {
    let mut app = app_without_gravity(room());
    let lift = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 200.0),
        Vec2::new(24.0, 4.0),
        Vec2::ZERO,
    );
    app.world_mut().entity_mut(lift).insert(OneWayPlatform);
    step(&mut app, 1);
    let no_tiles = ALL.without_tiles();
    with_query(&mut app, |q| {
        let down = q.cast_segment(Vec2::new(200.0, 260.0), Vec2::new(200.0, 150.0), no_tiles);
        let down = down.unwrap();
        assert_eq!(
            (down.target, down.distance, down.normal),
            (HitTarget::Body(lift), 56.0, Vec2::Y)
        );
        let up = q.cast_segment(Vec2::new(200.0, 150.0), Vec2::new(200.0, 260.0), no_tiles);
        assert_eq!(up, None, "through from below");
        let side = q.cast_segment(Vec2::new(150.0, 200.0), Vec2::new(250.0, 200.0), no_tiles);
        assert_eq!(side, None, "through from the side");
        let inside = q.cast_segment(Vec2::new(200.0, 201.0), Vec2::new(200.0, 150.0), no_tiles);
        assert_eq!(inside, None, "starting inside it");
    });
}

#[test]
fn point_and_rect_find_each_body_once_filtered_by_layers() {
    const GHOST: LayerMask = LayerMask::layer(5);
    let mut app = app_without_gravity(empty_map(40, 40));
    // One-tile cells, so a big body sits in many cells.
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .partition_cell_tiles = 1;
    let big = spawn(
        &mut app,
        Vec2::new(200.0, 200.0),
        Vec2::new(40.0, 30.0),
        Vec2::ZERO,
    );
    let small = spawn(
        &mut app,
        Vec2::new(260.0, 200.0),
        Vec2::splat(5.0),
        Vec2::ZERO,
    );
    let ghost = spawn(
        &mut app,
        Vec2::new(200.0, 260.0),
        Vec2::splat(5.0),
        Vec2::ZERO,
    );
    app.world_mut()
        .entity_mut(ghost)
        .insert(CollisionLayers::new(GHOST, LayerMask::ALL));
    step(&mut app, 1);
    assert!(
        app.world().get::<GridAreas>(big).unwrap().areas().len() > 20,
        "the big body is in many cells"
    );
    with_query(&mut app, |q| {
        let at = |p: Vec2| q.point(p, ALL).collect::<Vec<_>>();
        assert_eq!(at(Vec2::new(200.0, 200.0)), [big]);
        assert_eq!(at(Vec2::new(240.0, 230.0)), [big], "the corner counts");
        assert!(at(Vec2::new(240.1, 200.0)).is_empty());
        assert_eq!(at(Vec2::new(260.0, 204.0)), [small]);
        let mut all: Vec<Entity> = q.rect(Rect::new(150.0, 150.0, 270.0, 270.0), ALL).collect();
        all.sort();
        let mut expected = vec![big, small, ghost];
        expected.sort();
        assert_eq!(all, expected, "each once");
        let solid: Vec<Entity> = q
            .rect(
                Rect::new(150.0, 150.0, 270.0, 270.0),
                QueryFilter::layers(!GHOST).excluding(small),
            )
            .collect();
        assert_eq!(solid, [big]);
        assert!(
            q.rect(Rect::new(0.0, 0.0, 100.0, 100.0), ALL)
                .next()
                .is_none()
        );
        assert!(q.point(Vec2::NAN, ALL).next().is_none(), "no panic on NaN");
    });
}

#[test]
fn queries_before_the_first_step_and_on_an_empty_map_find_nothing() {
    let mut app = app_without_gravity(TileMap::default());
    spawn(&mut app, Vec2::ZERO, Vec2::splat(5.0), Vec2::ZERO);
    with_query(&mut app, |q| {
        assert!(q.point(Vec2::ZERO, ALL).next().is_none());
        assert!(
            q.cast_segment(Vec2::NEG_ONE * 50.0, Vec2::ONE * 50.0, ALL)
                .is_none()
        );
    });
    step(&mut app, 1);
    with_query(&mut app, |q| {
        // Outside the (empty) map every body shares the one border cell: still found.
        assert_eq!(q.point(Vec2::ZERO, ALL).count(), 1);
    });
}

/// Two 80 x 160 boxes spawned at one centre, 16-unit cells: the response pushes them 40 units
/// apart (more than two cells), and the queries after that step find them where they are.
#[test]
fn queries_after_a_step_find_bodies_where_the_response_pushed_them() {
    let mut app = app_without_gravity(empty_map(32, 16));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .partition_cell_tiles = 1;
    let half = Vec2::new(40.0, 80.0);
    let a = spawn(&mut app, Vec2::new(200.0, 96.0), half, Vec2::ZERO);
    let b = spawn(&mut app, Vec2::new(200.0, 96.0), half, Vec2::ZERO);
    step(&mut app, 1);
    let right = if pos(&app, a).x > pos(&app, b).x {
        a
    } else {
        b
    };
    assert_eq!(pos(&app, right).x, 240.0);
    let at_point: Vec<Entity> =
        with_query(&mut app, |q| q.point(Vec2::new(278.0, 96.0), ALL).collect());
    assert_eq!(at_point, [right]);
    let in_rect: Vec<Entity> = with_query(&mut app, |q| {
        q.rect(Rect::new(270.0, 20.0, 279.0, 30.0), ALL).collect()
    });
    assert_eq!(in_rect, [right]);
    assert_eq!(verify_partition(&mut app), Ok(()));
}
