//! Slope tiles: walked at full horizontal speed up and down, on the ground every step, landed
//! on from any height, stood on.

use bevy::prelude::*;

use bevy_platformer_physics::tiles::SlopeTile;

use crate::common::*;

const WALK: f32 = 100.0;

/// A floor, a ramp of `up` tiles rising to the right (each with solid tiles under it), a flat
/// top, and a ramp of the mirrored `down` tiles back to the floor. `rise` is how many tiles of
/// height each ramp tile climbs (1 for 45 degrees, 1/2 for 2:1, whose tiles come in pairs).
fn ramp_map(up: &[TileKind], down: &[TileKind], rise: f32) -> (TileMap, f32) {
    let mut map = empty_map(60, 16);
    map.fill(IVec2::new(0, 0), IVec2::new(59, 0), TileKind::Solid);
    let mut height = 1.0f32; // the ground's height, in tiles
    let mut x = 8;
    for &kind in up {
        let row = height.floor() as i32;
        map.set(x, row, kind);
        map.fill(IVec2::new(x, 1), IVec2::new(x, row - 1), TileKind::Solid);
        height += rise;
        x += 1;
    }
    let top = height;
    let flat_end = x + 6;
    map.fill(
        IVec2::new(x, 1),
        IVec2::new(flat_end - 1, top as i32 - 1),
        TileKind::Solid,
    );
    x = flat_end;
    for &kind in down {
        height -= rise;
        let row = height.floor() as i32;
        map.set(x, row, kind);
        map.fill(IVec2::new(x, 1), IVec2::new(x, row - 1), TileKind::Solid);
        x += 1;
    }
    (map, top * 16.0)
}

/// Walks a body from the floor over the ramps; returns each step's (x before, x after, on the
/// ground after) and the highest the feet went.
fn walk_over(map: TileMap, half: Vec2) -> (Vec<(f32, f32, bool)>, f32, usize) {
    let mut app = app(map);
    let body = spawn(&mut app, Vec2::new(40.0, 16.0 + half.y), half, Vec2::ZERO);
    step(&mut app, 5);
    drain_landed(&mut app);
    let mut steps = Vec::new();
    let mut highest = 0.0f32;
    while pos(&app, body).x < 700.0 && steps.len() < 2000 {
        let before = pos(&app, body).x;
        let v = vel(&app, body);
        set_vel(&mut app, body, Vec2::new(WALK, v.y));
        step(&mut app, 1);
        highest = highest.max(pos(&app, body).y - half.y);
        steps.push((before, pos(&app, body).x, flags(&app, body).on_ground()));
    }
    let landed = drain_landed(&mut app).len();
    (steps, highest, landed)
}

fn assert_walked_smoothly(map: TileMap, top: f32, half: Vec2) {
    let (steps, highest, landed) = walk_over(map, half);
    let dx = WALK * DT;
    for (i, &(before, after, ground)) in steps.iter().enumerate() {
        assert!(
            ((after - before) - dx).abs() < 1e-3,
            "step {i} at x = {before}: went {} instead of {dx}",
            after - before
        );
        assert!(ground, "step {i} at x = {before}: off the ground");
    }
    assert!(
        (highest - top).abs() < 1e-2,
        "the top is at {top}, the feet reached {highest}"
    );
    assert_eq!(landed, 0, "walking is not landing");
}

#[test]
fn a_45_degree_ramp_is_walked_up_and_down_at_full_speed_on_the_ground_every_step() {
    let (map, top) = ramp_map(&[TileKind::SlopeRight; 4], &[TileKind::SlopeLeft; 4], 1.0);
    assert_walked_smoothly(map.clone(), top, Vec2::new(6.0, 10.0));
    // Wider than a tile, and flat.
    assert_walked_smoothly(map, top, Vec2::new(20.0, 5.0));
}

#[test]
fn a_2_to_1_ramp_is_walked_up_and_down_at_full_speed_on_the_ground_every_step() {
    use TileKind::*;
    let up = [SlopeRightLow, SlopeRightHigh, SlopeRightLow, SlopeRightHigh];
    let down = [SlopeLeftHigh, SlopeLeftLow, SlopeLeftHigh, SlopeLeftLow];
    let (map, top) = ramp_map(&up, &down, 0.5);
    assert_walked_smoothly(map.clone(), top, Vec2::new(6.0, 10.0));
    assert_walked_smoothly(map, top, Vec2::new(20.0, 5.0));
}

/// One slope tile of `kind` at tile (4, 1) on a floor, solid under it.
fn one_slope(kind: TileKind) -> TileMap {
    let mut map = empty_map(12, 80);
    map.fill(IVec2::new(0, 0), IVec2::new(11, 0), TileKind::Solid);
    map.set(4, 1, kind);
    map
}

#[test]
fn a_body_falling_64_tiles_a_step_lands_on_the_slope_with_its_uphill_corner() {
    use TileKind::*;
    for kind in [
        SlopeRight,
        SlopeLeft,
        SlopeRightLow,
        SlopeRightHigh,
        SlopeLeftLow,
        SlopeLeftHigh,
    ] {
        for half in [Vec2::new(3.0, 9.0), Vec2::new(5.0, 2.0)] {
            let mut app = app(one_slope(kind));
            let start = Vec2::new(72.0, 1200.0);
            let body = spawn(&mut app, start, half, Vec2::new(0.0, -64.0 * 16.0 / DT));
            step(&mut app, 3);
            let at = pos(&app, body);
            let slope = kind.slope().unwrap();
            let tile = SlopeTile {
                slope,
                min: Vec2::new(64.0, 16.0),
                max: Vec2::new(80.0, 32.0),
            };
            let uphill = match slope.shape.heights() {
                (l, r) if r > l => at.x + half.x,
                _ => at.x - half.x,
            };
            let feet = at.y - half.y;
            assert!(
                (feet - tile.surface_y(uphill)).abs() < 1e-2,
                "{kind:?} {half}: feet at {feet}, surface at {}",
                tile.surface_y(uphill)
            );
            assert!(flags(&app, body).on_ground(), "{kind:?} {half}");
        }
    }
}

#[test]
fn a_body_with_friction_stands_on_a_slope_and_one_without_slides_down() {
    for (kind, downhill) in [(TileKind::SlopeRight, -1.0), (TileKind::SlopeLeft, 1.0)] {
        let mut app = app(one_slope(kind));
        let half = Vec2::new(4.0, 4.0);
        let standing = spawn(&mut app, Vec2::new(72.0, 40.0), half, Vec2::ZERO);
        let sliding = spawn_frictionless(&mut app, Vec2::new(72.0, 40.0), half, Vec2::ZERO);
        step(&mut app, 20);
        let (a, b) = (pos(&app, standing), pos(&app, sliding));
        step(&mut app, 30);
        assert_eq!(pos(&app, standing), a, "{kind:?}: it stays");
        assert!(flags(&app, standing).on_ground());
        assert!(
            (pos(&app, sliding).x - b.x) * downhill > 2.0,
            "{kind:?}: it slides down, from {b} to {}",
            pos(&app, sliding)
        );
    }
}

#[test]
fn a_jump_from_a_slope_goes_as_high_as_a_jump_from_flat_ground() {
    let jump = |kind: TileKind, x: f32| {
        let mut app = app(one_slope(kind));
        let half = Vec2::new(4.0, 8.0);
        let body = spawn(&mut app, Vec2::new(x, 60.0), half, Vec2::ZERO);
        step(&mut app, 30);
        assert!(flags(&app, body).on_ground());
        let feet = pos(&app, body).y - half.y;
        let v = vel(&app, body);
        set_vel(&mut app, body, Vec2::new(v.x, 300.0));
        let mut highest = feet;
        for _ in 0..120 {
            step(&mut app, 1);
            highest = highest.max(pos(&app, body).y - half.y);
        }
        highest - feet
    };
    let flat = jump(TileKind::Empty, 20.0);
    for kind in [TileKind::SlopeRight, TileKind::SlopeLeftLow] {
        let on_slope = jump(kind, 72.0);
        assert!(
            (on_slope - flat).abs() < 1e-3,
            "{kind:?}: {on_slope} against {flat}"
        );
    }
}
