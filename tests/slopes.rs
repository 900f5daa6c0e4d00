//! Slope tiles: walked at full horizontal speed up and down, on the ground every step, landed
//! on from any height, stood on.

use bevy::prelude::*;

use bevy_platformer_physics::tiles::SlopeTile;

use crate::common::*;

const WALK: f32 = 100.0;

/// How many tiles of height a slope tile climbs (1 at 45 degrees, 1/2 at 2:1).
fn rise(kind: TileKind) -> f32 {
    let (left, right) = kind.slope().unwrap().shape.heights();
    (right - left).abs()
}

/// A floor, a ramp of `up` tiles rising to the right (each with solid tiles under it), a flat
/// top, and a ramp of `down` tiles back to the floor; the height of the top in world units.
fn ramp_map(up: &[TileKind], down: &[TileKind]) -> (TileMap, f32) {
    let mut map = empty_map(60, 16);
    map.fill(IVec2::new(0, 0), IVec2::new(59, 0), TileKind::Solid);
    let mut height = 1.0f32; // the ground's height, in tiles
    let mut x = 8;
    for &kind in up {
        let row = height.floor() as i32;
        map.set(x, row, kind);
        map.fill(IVec2::new(x, 1), IVec2::new(x, row - 1), TileKind::Solid);
        height += rise(kind);
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
        height -= rise(kind);
        let row = height.floor() as i32;
        map.set(x, row, kind);
        map.fill(IVec2::new(x, 1), IVec2::new(x, row - 1), TileKind::Solid);
        x += 1;
    }
    (map, top * 16.0)
}

/// One step of a walk: x before and after, and whether the body then stood on the ground and
/// touched a wall.
#[derive(Clone, Copy)]
struct Walked {
    before: f32,
    after: f32,
    ground: bool,
    wall: bool,
}

/// Walks a body from the floor over the ramps; returns its steps, the highest the feet went and
/// how many times it landed.
fn walk_over(map: TileMap, half: Vec2, speed: f32) -> (Vec<Walked>, f32, usize) {
    let mut app = app(map);
    let body = spawn(&mut app, Vec2::new(40.0, 16.0 + half.y), half, Vec2::ZERO);
    step(&mut app, 5);
    drain_landed(&mut app);
    let mut steps = Vec::new();
    let mut highest = 0.0f32;
    while pos(&app, body).x < 700.0 && steps.len() < 2000 {
        let before = pos(&app, body).x;
        let v = vel(&app, body);
        set_vel(&mut app, body, Vec2::new(speed, v.y));
        step(&mut app, 1);
        highest = highest.max(pos(&app, body).y - half.y);
        let f = flags(&app, body);
        let wall = f.pushes_tile(Side::Left) || f.pushes_tile(Side::Right);
        steps.push(Walked {
            before,
            after: pos(&app, body).x,
            ground: f.on_ground(),
            wall,
        });
    }
    let landed = drain_landed(&mut app).len();
    (steps, highest, landed)
}

/// Walking over the ramps at a walking pace and at a run four times as fast: the same
/// horizontal distance every step, on the ground every step, up to the top, never landing.
fn assert_walked_smoothly(map: TileMap, top: f32, half: Vec2) {
    for speed in [WALK, 4.0 * WALK] {
        let (steps, highest, landed) = walk_over(map.clone(), half, speed);
        let dx = speed * DT;
        for (i, step) in steps.iter().enumerate() {
            let Walked {
                before,
                after,
                ground,
                wall,
            } = *step;
            assert!(
                ((after - before) - dx).abs() < 1e-3,
                "{speed}: step {i} at x = {before}: went {} instead of {dx}",
                after - before
            );
            assert!(ground, "{speed}: step {i} at x = {before}: off the ground");
            assert!(!wall, "{speed}: step {i} at x = {before}: against a wall");
        }
        assert!(
            (highest - top).abs() < 1e-2,
            "{speed}: the top is at {top}, the feet reached {highest}"
        );
        assert_eq!(landed, 0, "{speed}: walking is not landing");
    }
}

#[test]
fn a_45_degree_ramp_is_walked_up_and_down_at_full_speed_on_the_ground_every_step() {
    let (map, top) = ramp_map(&[TileKind::SlopeRight; 4], &[TileKind::SlopeLeft; 4]);
    assert_walked_smoothly(map.clone(), top, Vec2::new(6.0, 10.0));
    // Wider than a tile, and flat.
    assert_walked_smoothly(map, top, Vec2::new(20.0, 5.0));
}

#[test]
fn a_2_to_1_ramp_is_walked_up_and_down_at_full_speed_on_the_ground_every_step() {
    use TileKind::*;
    let up = [SlopeRightLow, SlopeRightHigh, SlopeRightLow, SlopeRightHigh];
    let down = [SlopeLeftHigh, SlopeLeftLow, SlopeLeftHigh, SlopeLeftLow];
    let (map, top) = ramp_map(&up, &down);
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
        // Tall, flat, and wider than the tile.
        for half in [
            Vec2::new(3.0, 9.0),
            Vec2::new(5.0, 2.0),
            Vec2::new(12.0, 4.0),
        ] {
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
fn a_body_that_walks_on_slopes_stands_on_one_with_or_without_friction_and_one_that_does_not_slides_down()
 {
    for (kind, downhill) in [(TileKind::SlopeRight, -1.0), (TileKind::SlopeLeft, 1.0)] {
        // Each body alone on the slope: where it is after 20 steps, after 30 more, and whether
        // it then stands on the ground.
        let run = |friction: bool, walk_slopes: bool| {
            let mut app = app(one_slope(kind));
            let body = spawn(
                &mut app,
                Vec2::new(72.0, 40.0),
                Vec2::splat(4.0),
                Vec2::ZERO,
            );
            let mut s = switches(&mut app, body);
            (s.friction, s.walk_slopes) = (friction, walk_slopes);
            step(&mut app, 20);
            let before = pos(&app, body);
            step(&mut app, 30);
            (before, pos(&app, body), flags(&app, body).on_ground())
        };
        // With friction, and without it (a controller's character): it stays.
        for friction in [true, false] {
            let (before, after, ground) = run(friction, true);
            assert_eq!(after, before, "{kind:?} friction {friction}: it stays");
            assert!(ground, "{kind:?} friction {friction}");
        }
        let (before, after, _) = run(false, false);
        assert!(
            (after.x - before.x) * downhill > 2.0,
            "{kind:?}: it slides down, from {before} to {after}"
        );
    }
}

#[test]
fn a_body_without_friction_walks_over_ramps_at_the_speed_its_controller_sets() {
    // Friction off, walking on slopes on: the same horizontal distance every step, on the
    // ground every step, like a body with friction.
    let (map, top) = ramp_map(&[TileKind::SlopeRight; 2], &[TileKind::SlopeLeft; 2]);
    let mut app = app(map);
    let half = Vec2::new(6.0, 10.0);
    let body = spawn_frictionless(&mut app, Vec2::new(40.0, 16.0 + half.y), half, Vec2::ZERO);
    step(&mut app, 5);
    let mut highest = 0.0f32;
    for i in 0..400 {
        let before = pos(&app, body).x;
        let vy = vel(&app, body).y;
        set_vel(&mut app, body, Vec2::new(WALK, vy));
        step(&mut app, 1);
        assert!(
            ((pos(&app, body).x - before) - WALK * DT).abs() < 1e-3,
            "step {i} at {before}"
        );
        assert!(flags(&app, body).on_ground(), "step {i} at {before}");
        highest = highest.max(pos(&app, body).y - half.y);
    }
    assert!((highest - top).abs() < 1e-2, "over the top: {highest}");
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

#[test]
fn seams_between_slopes_of_both_angles_are_walked_without_a_bump() {
    use TileKind::*;
    // 2:1 into 45 degrees into 2:1 going up; 45 into 2:1 into 45 going down.
    let up = [
        SlopeRightLow,
        SlopeRightHigh,
        SlopeRight,
        SlopeRight,
        SlopeRightLow,
        SlopeRightHigh,
    ];
    let down = [SlopeLeft, SlopeLeftHigh, SlopeLeftLow, SlopeLeft, SlopeLeft];
    let (map, top) = ramp_map(&up, &down);
    assert_walked_smoothly(map.clone(), top, Vec2::new(6.0, 10.0));
    assert_walked_smoothly(map, top, Vec2::new(20.0, 5.0));
}

#[test]
fn a_body_rising_into_a_ceiling_slope_is_deflected_along_it() {
    use TileKind::*;
    for kind in [
        CeilingRight,
        CeilingLeft,
        CeilingRightLow,
        CeilingRightHigh,
        CeilingLeftLow,
        CeilingLeftHigh,
    ] {
        // The ceiling slope at tile (5, 6), solid above it, over an open room.
        let mut map = empty_map(12, 12);
        map.fill(IVec2::new(0, 0), IVec2::new(11, 0), Solid);
        map.set(5, 6, kind);
        map.fill(IVec2::new(5, 7), IVec2::new(5, 11), Solid);
        let mut app = app_without_gravity(map);
        let half = Vec2::splat(3.0);
        let body = spawn_frictionless(&mut app, Vec2::new(88.0, 60.0), half, Vec2::new(0.0, 200.0));
        step(&mut app, 30);
        let v = vel(&app, body);
        let n = kind.slope().unwrap().normal();
        // It goes on along the surface (the speed along it kept), not stopped, not into it.
        assert!(
            v.dot(n).abs() < 1e-3,
            "{kind:?}: {v} against the normal {n}"
        );
        let along = 200.0 * (1.0 - n.y * n.y).sqrt();
        assert!(
            (v.length() - along).abs() < 1e-2,
            "{kind:?}: {v}, expected speed {along}"
        );
        assert!(
            v.x * n.x > 0.0,
            "{kind:?}: turned the way the surface faces: {v}"
        );
    }
}

#[test]
fn a_crate_pushed_up_a_slope_goes_up_it() {
    let (map, top) = ramp_map(&[TileKind::SlopeRight; 4], &[TileKind::SlopeLeft; 4]);
    let mut app = app(map);
    let crate_ = spawn(
        &mut app,
        Vec2::new(112.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    // A tall kinematic block (which tiles do not stop) pushes it to the right, up the ramp.
    let half = Vec2::new(6.0, 48.0);
    spawn_kinematic(
        &mut app,
        Vec2::new(96.0, 16.0 + half.y),
        half,
        Vec2::new(WALK, 0.0),
    );
    step(&mut app, 80);
    let end = pos(&app, crate_);
    assert!(end.x > 200.0, "{end}");
    assert!(
        (end.y - 6.0 - top).abs() < 0.5,
        "up the ramp, on the top: {end}"
    );
}

#[test]
fn crates_stacked_on_a_slope_stay_stacked() {
    let mut app = app(one_slope(TileKind::SlopeRightLow));
    let half = Vec2::splat(5.0);
    let lower = spawn(&mut app, Vec2::new(72.0, 30.0), half, Vec2::ZERO);
    let upper = spawn(&mut app, Vec2::new(72.0, 41.0), half, Vec2::ZERO);
    step(&mut app, 60);
    let (a, b) = (pos(&app, lower), pos(&app, upper));
    step(&mut app, 120);
    assert_eq!((pos(&app, lower), pos(&app, upper)), (a, b), "still");
    assert!((b.y - a.y - 10.0).abs() < 0.1, "stacked: {a} {b}");
    assert!(flags(&app, lower).on_ground() && flags(&app, upper).on_ground());
}

/// A random terrain of flats, 45-degree and 2:1 ramps up and down (solid under every surface),
/// heights 1 to 8 tiles, 64 tiles wide.
fn random_terrain(u: &mut impl FnMut() -> f32) -> TileMap {
    use TileKind::*;
    let mut map = empty_map(64, 16);
    let mut height = 2;
    let mut x = 0;
    let column = |map: &mut TileMap, x: i32, top: i32, surface: Option<(TileKind, i32)>| {
        map.fill(IVec2::new(x, 0), IVec2::new(x, top - 1), Solid);
        if let Some((kind, row)) = surface {
            map.set(x, row, kind);
        }
    };
    while x < 62 {
        let pick = (u() * 5.0) as u32;
        match pick {
            1 if height < 8 => {
                column(&mut map, x, height, Some((SlopeRight, height)));
                height += 1;
            }
            2 if height > 1 => {
                height -= 1;
                column(&mut map, x, height, Some((SlopeLeft, height)));
            }
            3 if height < 8 => {
                column(&mut map, x, height, Some((SlopeRightLow, height)));
                x += 1;
                column(&mut map, x, height, Some((SlopeRightHigh, height)));
                height += 1;
            }
            4 if height > 1 => {
                height -= 1;
                column(&mut map, x, height, Some((SlopeLeftHigh, height)));
                x += 1;
                column(&mut map, x, height, Some((SlopeLeftLow, height)));
            }
            _ => column(&mut map, x, height, None),
        }
        x += 1;
    }
    while x < 64 {
        column(&mut map, x, height, None);
        x += 1;
    }
    map
}

/// Whether the box is inside a solid tile, or below the surface of a floor slope, by more
/// than `tolerance`.
fn inside_ground(map: &TileMap, center: Vec2, half: Vec2, tolerance: f32) -> bool {
    let (min, max) = (center - half, center + half);
    let (lo, hi) = (map.tile_at(min), map.tile_at(max));
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            let (tmin, tmax) = map.tile_rect(x, y);
            let kind = map.get(x, y);
            let overlap = (max.min(tmax) - min.max(tmin)).min_element();
            if kind == TileKind::Solid && overlap > tolerance {
                return true;
            }
            if let Some(slope) = kind.slope() {
                let tile = SlopeTile {
                    slope,
                    min: tmin,
                    max: tmax,
                };
                if let Some(support) = tile.support(min.x, max.x)
                    && overlap > tolerance
                    && min.y < support - tolerance
                {
                    return true;
                }
            }
        }
    }
    false
}

#[test]
fn walking_back_and_forth_over_random_ramps_stays_on_the_ground_and_out_of_it() {
    let mut u = unit_floats(0x005A_0BE5);
    for case in 0..24 {
        let map = random_terrain(&mut u);
        let half = Vec2::new(2.0 + u() * 14.0, 2.0 + u() * 12.0);
        let mut app = app(map.clone());
        let start = Vec2::new(24.0, 8.0 * 16.0 + half.y + 40.0);
        let body = spawn(&mut app, start, half, Vec2::ZERO);
        step(&mut app, 60);
        assert!(flags(&app, body).on_ground(), "case {case}: landed");
        for direction in [1.0, -1.0] {
            let mut i = 0;
            loop {
                let before = pos(&app, body);
                if (direction > 0.0 && before.x > 64.0 * 16.0 - 40.0)
                    || (direction < 0.0 && before.x < 40.0)
                {
                    break;
                }
                assert!(
                    i < 800,
                    "case {case} {half}: stuck at {before}\n{}",
                    ascii_of(&map)
                );
                i += 1;
                let v = vel(&app, body);
                set_vel(&mut app, body, Vec2::new(direction * WALK, v.y));
                step(&mut app, 1);
                let at = pos(&app, body);
                assert!(
                    ((at.x - before.x) - direction * WALK * DT).abs() < 1e-3,
                    "case {case} {half}: went {} at step {i} from {before}\n{}",
                    at.x - before.x,
                    ascii_of(&map)
                );
                let f = flags(&app, body);
                assert!(
                    !f.pushes_tile(Side::Left) && !f.pushes_tile(Side::Right),
                    "case {case} {half}: against a wall at step {i} at {at}\n{}",
                    ascii_of(&map)
                );
                assert!(
                    f.on_ground(),
                    "case {case} {half}: off the ground at step {i} ({direction}) at {at}\n{}",
                    ascii_of(&map)
                );
                assert!(
                    !inside_ground(&map, at, half, 0.01),
                    "case {case} {half}: inside the ground at step {i} at {at}"
                );
            }
        }
    }
}

#[test]
fn segment_casts_stop_on_a_slope_surface_and_pass_its_empty_half() {
    use bevy_platformer_physics::tiles::cast_segment_tiles;
    let map = one_slope(TileKind::SlopeRight);
    // Down at x = 68 (a quarter into the tile): the surface is at 16 + 4 = 20.
    let hit = cast_segment_tiles(&map, Vec2::new(68.0, 60.0), Vec2::new(68.0, 0.0)).unwrap();
    assert_eq!(hit.tile, IVec2::new(4, 1));
    assert!((hit.distance - 40.0).abs() < 1e-3, "{hit:?}");
    assert!((hit.normal - Vec2::new(-1.0, 1.0).normalize()).length() < 1e-5);
    // Through the empty half above the surface, to the floor beyond.
    let hit = cast_segment_tiles(&map, Vec2::new(60.0, 30.0), Vec2::new(70.0, 10.0)).unwrap();
    assert!(hit.normal.y > 0.0, "{hit:?}");
    let hit = cast_segment_tiles(&map, Vec2::new(50.0, 31.0), Vec2::new(70.0, 31.0));
    assert_eq!(hit, None, "above the surface all the way");
}

#[test]
fn the_body_state_names_the_slope_and_its_ground_normal() {
    let mut app = app(one_slope(TileKind::SlopeLeftHigh));
    let half = Vec2::new(3.0, 5.0);
    let body = spawn(&mut app, Vec2::new(72.0, 50.0), half, Vec2::ZERO);
    let flat = spawn(&mut app, Vec2::new(140.0, 30.0), half, Vec2::ZERO);
    step(&mut app, 60);
    let s = state(&app, body);
    assert_eq!(s.standing_on, Some(TileKind::SlopeLeftHigh));
    assert_eq!(s.slope().map(|s| s.shape), Some(SlopeShape::LeftHigh));
    let n = s.ground_normal().unwrap();
    assert!((n - Vec2::new(0.5, 1.0).normalize()).length() < 1e-6, "{n}");
    assert_eq!(state(&app, flat).ground_normal(), Some(Vec2::Y));
    assert_eq!(state(&app, flat).slope(), None);
}

#[test]
fn a_one_way_ramp_is_walked_up_and_down_like_a_solid_one() {
    use TileKind::*;
    let up = [
        OneWaySlopeRight,
        OneWaySlopeRight,
        OneWaySlopeRightLow,
        OneWaySlopeRightHigh,
    ];
    let down = [
        OneWaySlopeLeftHigh,
        OneWaySlopeLeftLow,
        OneWaySlopeLeft,
        OneWaySlopeLeft,
    ];
    let (map, top) = ramp_map(&up, &down);
    assert_walked_smoothly(map.clone(), top, Vec2::new(6.0, 10.0));
    assert_walked_smoothly(map, top, Vec2::new(20.0, 5.0));
}

/// A floating one-way slope tile of `kind` at tile (4, 4), over a floor.
fn floating_one_way(kind: TileKind) -> TileMap {
    let mut map = empty_map(12, 80);
    map.fill(IVec2::new(0, 0), IVec2::new(11, 0), TileKind::Solid);
    map.set(4, 4, kind);
    map
}

#[test]
fn a_one_way_slope_is_passed_from_below_and_from_the_side_and_landed_on_from_above() {
    for kind in [TileKind::OneWaySlopeRight, TileKind::OneWaySlopeLeftLow] {
        let slope = kind.slope().unwrap();
        let tile = SlopeTile {
            slope,
            min: Vec2::new(64.0, 64.0),
            max: Vec2::new(80.0, 80.0),
        };
        let half = Vec2::splat(3.0);
        // From below: up through it, and down onto its surface.
        let mut app = app(floating_one_way(kind));
        let body = spawn(&mut app, Vec2::new(72.0, 40.0), half, Vec2::new(0.0, 300.0));
        step(&mut app, 120);
        let at = pos(&app, body);
        let surface = tile.support(at.x - half.x, at.x + half.x).unwrap();
        assert!(
            (at.y - half.y - surface).abs() < 1e-2,
            "{kind:?}: on it at {at}"
        );
        assert!(flags(&app, body).on_ground());
        assert_eq!(state(&app, body).standing_on, Some(kind));
        // From the side, at the tile's height: through its high side unstopped; from its low
        // side onto the surface, and up it.
        let rises_right = slope.shape.heights().1 > slope.shape.heights().0;
        let side = |from_right: bool| {
            let mut app = app_without_gravity(floating_one_way(kind));
            let (x, v) = if from_right {
                (100.0, -100.0)
            } else {
                (44.0, 100.0)
            };
            let body = spawn(&mut app, Vec2::new(x, 67.5), half, Vec2::new(v, 0.0));
            step(&mut app, 40);
            pos(&app, body)
        };
        let (high, low) = if rises_right {
            (side(true), side(false))
        } else {
            (side(false), side(true))
        };
        // Out the other side of the tile (64 to 80).
        assert!(
            high.x < 61.0 || high.x > 83.0,
            "{kind:?}: high side: {high}"
        );
        assert!(low.y > 68.0, "{kind:?}: low side: {low}");
    }
}

#[test]
fn a_body_drops_through_a_one_way_slope() {
    let mut app = app(floating_one_way(TileKind::OneWaySlopeRight));
    let half = Vec2::splat(3.0);
    let body = spawn(&mut app, Vec2::new(72.0, 100.0), half, Vec2::ZERO);
    step(&mut app, 60);
    assert_eq!(
        state(&app, body).standing_on,
        Some(TileKind::OneWaySlopeRight)
    );
    switches(&mut app, body).drop_through = true;
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 16.0 + half.y, "on the floor under it");
}

#[test]
fn a_body_falling_64_tiles_a_step_lands_on_a_one_way_slope() {
    let mut app = app(floating_one_way(TileKind::OneWaySlopeLeftHigh));
    let half = Vec2::new(4.0, 7.0);
    let body = spawn(
        &mut app,
        Vec2::new(72.0, 1200.0),
        half,
        Vec2::new(0.0, -64.0 * 16.0 / DT),
    );
    step(&mut app, 3);
    assert_eq!(
        state(&app, body).standing_on,
        Some(TileKind::OneWaySlopeLeftHigh)
    );
    assert!(pos(&app, body).y > 64.0);
}
