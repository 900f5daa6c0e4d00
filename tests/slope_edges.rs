//! Where slopes end and meet other tiles: a landing near a slope's end, a move along a slope
//! past its end, one-way slopes passed beside and under, the one-way snap under a slope, a push
//! along a slope far from the origin.

use bevy::prelude::*;

use crate::common::*;

/// The body's feet.
fn feet(app: &App, e: Entity) -> f32 {
    aabb(app, e).min().y
}

/// Whether the body ends a step floating: its vertical speed stopped, yet nothing holds it,
/// though it was not on the ground when the step began (a body that walks off a ledge ends that
/// step with the vertical speed it walked with, as on flat ground).
fn floats(app: &App, e: Entity) -> bool {
    let f = flags(app, e);
    vel(app, e).y == 0.0 && !f.on_ground() && !f.pushed(Side::Bottom)
}

#[test]
fn a_body_landing_near_the_top_of_a_slope_lands_on_it_or_falls_past_it() {
    // A ramp tile (its top corner at (80, 32)) then a drop; and the same ramp with a flat top.
    for (text, center, half) in [
        (
            "..../.......\n############",
            Vec2::new(72.0, 36.0),
            Vec2::new(5.0, 2.0),
        ),
        (
            "..../##.....\n############",
            Vec2::new(71.0, 40.0),
            Vec2::new(6.0, 6.0),
        ),
    ] {
        let mut app = app(ascii(text));
        let body = spawn(&mut app, center, half, Vec2::new(120.0, -100.0));
        let mut last = feet(&app, body);
        for i in 1..=8 {
            step(&mut app, 1);
            let (f, v) = (feet(&app, body), vel(&app, body));
            assert!(
                !floats(&app, body),
                "{text:?} step {i}: feet at {f}, velocity {v}, not on the ground"
            );
            if !flags(&app, body).on_ground() {
                assert!(
                    f < last,
                    "{text:?} step {i}: rose from {last} to {f} in the air"
                );
            }
            last = f;
        }
        assert!(flags(&app, body).on_ground(), "{text:?}: landed in the end");
    }
}

#[test]
fn a_fast_landing_on_a_slopes_top_corner_never_floats_above_it() {
    // Falls of 64 tiles a step onto the top corner of each 45-degree floor slope, moving
    // sideways both ways, from a range of offsets around the corner.
    for (text, corner_x) in [
        ("..../.......\n############", 80.0),
        ("....\\.......\n############", 64.0),
        ("....{.......\n############", 80.0),
        ("....}.......\n############", 64.0),
    ] {
        for vx in [-120.0, 120.0] {
            for k in 0..24 {
                let x = corner_x - 8.0 + k as f32 * (16.0 / 23.0);
                let mut app = app(ascii(text));
                let half = Vec2::new(5.0, 2.0);
                let start = Vec2::new(x, 32.0 + half.y + 1.0 + 64.0 * 16.0);
                let body = spawn(&mut app, start, half, Vec2::new(vx, -64.0 * 16.0 / DT));
                for i in 1..=4 {
                    step(&mut app, 1);
                    assert!(
                        !floats(&app, body),
                        "{text:?} x {x} vx {vx} step {i}: floats at {}",
                        pos(&app, body)
                    );
                }
            }
        }
    }
}

#[test]
fn a_fast_walk_up_a_short_ramp_leaves_the_ramps_line_where_it_ends() {
    // A body moving 998 units a step along the ground into a one-way 2:1 ramp (two tiles, 32
    // units long, 16 high): it goes up the ramp and on from its top, never hundreds of units up.
    let mut map = empty_map(100, 40);
    map.fill(IVec2::new(0, 0), IVec2::new(99, 0), TileKind::Solid);
    map.set(10, 1, TileKind::OneWaySlopeRightLow);
    map.set(11, 1, TileKind::OneWaySlopeRightHigh);
    let mut walled = map.clone();
    walled.fill(IVec2::new(30, 1), IVec2::new(30, 39), TileKind::Solid);
    for (map, wall) in [(map, false), (walled, true)] {
        let mut app = app(map);
        let half = Vec2::new(6.0, 6.0);
        let body = spawn(&mut app, Vec2::new(100.0, 22.0), half, Vec2::ZERO);
        step(&mut app, 2);
        set_vel(&mut app, body, Vec2::new(998.0 / DT, 0.0));
        step(&mut app, 1);
        let at = aabb(&app, body);
        // Up the ramp's 16 units, and at most a little more for the rest of the step.
        assert!(
            at.min().y <= 32.0 + 1e-2,
            "wall {wall}: feet at {} after the ramp",
            at.min().y
        );
        if wall {
            assert_eq!(at.max().x, 480.0, "stopped at the wall's face");
        }
        set_vel(&mut app, body, Vec2::ZERO);
        step(&mut app, 120);
        assert!(flags(&app, body).on_ground(), "wall {wall}");
    }
}

/// A 24 x 8 floor with `kinds` in a row from tile (10, 1).
fn floor_with(kinds: &[TileKind]) -> TileMap {
    let mut map = empty_map(24, 8);
    map.fill(IVec2::new(0, 0), IVec2::new(23, 0), TileKind::Solid);
    for (i, &kind) in kinds.iter().enumerate() {
        map.set(10 + i as i32, 1, kind);
    }
    map
}

#[test]
fn a_body_walking_under_a_one_way_slope_out_of_its_low_end_stays_on_the_floor() {
    use TileKind::*;
    for kinds in [
        &[OneWaySlopeRight][..],
        &[OneWaySlopeRightLow, OneWaySlopeRightHigh][..],
    ] {
        let mut app = app(floor_with(kinds));
        let body = spawn(
            &mut app,
            Vec2::new(240.0, 22.0),
            Vec2::splat(6.0),
            Vec2::ZERO,
        );
        step(&mut app, 2);
        drain_landed(&mut app);
        for i in 0..120 {
            let vy = vel(&app, body).y;
            set_vel(&mut app, body, Vec2::new(-100.0, vy));
            step(&mut app, 1);
            assert_eq!(
                feet(&app, body),
                16.0,
                "{kinds:?} step {i}: lifted off the floor"
            );
            assert!(flags(&app, body).on_ground(), "{kinds:?} step {i}");
            assert_eq!(
                vel(&app, body).x,
                -100.0 * (-10.0 * DT).exp(),
                "{kinds:?} {i}"
            );
        }
        assert!(pos(&app, body).x < 150.0, "{kinds:?}: walked past the ramp");
        assert_eq!(
            drain_landed(&mut app).len(),
            0,
            "{kinds:?}: never landed again"
        );
    }
}

#[test]
fn a_body_flying_through_a_one_way_slope_from_its_high_side_keeps_its_line_and_speed() {
    use TileKind::*;
    for kind in [OneWaySlopeRight, OneWaySlopeRightHigh] {
        let mut map = empty_map(12, 12);
        map.set(4, 4, kind);
        let mut app = app_without_gravity(map);
        let body = spawn(
            &mut app,
            Vec2::new(100.0, 67.5),
            Vec2::splat(3.0),
            Vec2::ZERO,
        );
        for i in 0..40 {
            set_vel(&mut app, body, Vec2::new(-100.0, 0.0));
            step(&mut app, 1);
            assert_eq!(pos(&app, body).y, 67.5, "{kind:?} step {i}");
            assert_eq!(vel(&app, body), Vec2::new(-100.0, 0.0), "{kind:?} step {i}");
        }
        assert!(pos(&app, body).x < 58.0, "{kind:?}: out the other side");
    }
}

#[test]
fn the_one_way_snap_never_lifts_a_body_into_a_slope_above_it() {
    // A still body whose feet are 3.9 below a one-way top and whose head touches a slope tile
    // above (rows top first, 16 units a tile: the slope at y 112..128, the platform's top at
    // 64).
    for above in ['2', '/', '\\', '(', '#'] {
        for under in ['-', '{', 'b'] {
            let text = format!(
                "......\n..{above}...\n......\n......\n......\n..{under}...\n......\n......\n######"
            );
            let mut app = app(ascii(&text));
            let body = spawn(
                &mut app,
                Vec2::new(40.0, 86.05),
                Vec2::new(8.0, 25.95),
                Vec2::ZERO,
            );
            step(&mut app, 1);
            let top = aabb(&app, body).max().y;
            assert!(
                top <= 112.0 + 1e-3,
                "{above} over {under}: lifted into the tile above, top at {top}"
            );
            if under == '-' {
                // Held on the platform, where it does not fit.
                assert_eq!(feet(&app, body), 86.05 - 25.95, "{above} over {under}");
                let squished = drain::<Squished>(&mut app);
                assert_eq!(squished.len(), 1, "{above} over {under}: {squished:?}");
            }
        }
    }
}

#[test]
fn a_body_pushed_along_a_slope_far_from_the_origin_stays_out_of_it() {
    let map = TileMap::from_ascii("......./...\n......3....\n...........\n.........#.", 32.0)
        .unwrap()
        .with_origin(Vec2::new(2144.0, 544.0));
    for origin in [Vec2::ZERO, map.origin()] {
        let map = map.clone().with_origin(origin);
        let shift = origin - Vec2::new(2144.0, 544.0);
        let slope = map.tile_rect(7, 3);
        let mut app = app(map);
        app.world_mut()
            .resource_mut::<PhysicsConfig>()
            .partition_cell_tiles = 32;
        let pushed = spawn(
            &mut app,
            Vec2::new(2352.154, 720.4197) + shift,
            Vec2::new(23.352966, 72.91436),
            Vec2::new(0.0, -16.333336),
        );
        spawn(
            &mut app,
            Vec2::new(2295.7, 726.6) + shift,
            Vec2::new(33.4, 81.1),
            Vec2::ZERO,
        );
        step(&mut app, 1);
        let b = aabb(&app, pushed);
        // The slope `/` in tile (7, 3) rises to the right: the surface under the box's right
        // edge.
        let surface = slope.0.y + (b.max().x - slope.0.x).clamp(0.0, 32.0);
        assert!(
            b.min().y >= surface - 2e-3,
            "origin {origin}: feet at {} under the surface at {surface}",
            b.min().y
        );
    }
}

#[test]
fn a_body_walking_up_a_one_way_ramp_far_from_the_origin_stays_on_it() {
    // Far from the origin a coordinate rounds by about as much as the contact tolerance: a walk
    // along a slanted surface must not end a step inside a one-way slope, which would then let
    // the body fall through it.
    let origin = Vec2::new(17152.0, 4352.0);
    let mut map = empty_map(16, 8).with_origin(origin);
    map.fill(IVec2::new(0, 0), IVec2::new(15, 1), TileKind::Solid);
    for (i, x) in (4..8).enumerate() {
        map.set(x, 2 + i as i32, TileKind::OneWaySlopeRight);
        map.fill(
            IVec2::new(x + 1, 2),
            IVec2::new(x + 1, 2 + i as i32),
            TileKind::Solid,
        );
    }
    for speed in [37.443_1, 100.0, 400.0] {
        let mut app = app(map.clone());
        let half = Vec2::splat(6.0);
        let body = spawn(&mut app, origin + Vec2::new(40.0, 38.0), half, Vec2::ZERO);
        step(&mut app, 30);
        for i in 0..200 {
            let vy = vel(&app, body).y;
            set_vel(&mut app, body, Vec2::new(speed, vy));
            step(&mut app, 1);
            let at = pos(&app, body) - origin;
            assert!(
                flags(&app, body).on_ground(),
                "{speed}: step {i}: off the ramp at {at}"
            );
            if at.x > 136.0 {
                break;
            }
        }
        let at = pos(&app, body) - origin;
        assert!(at.y - half.y == 96.0, "{speed}: up the ramp: {at}");
    }
}
