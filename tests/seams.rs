//! No snagging on seams between tiles: floors of separate tiles, walls of stacked tiles, and a
//! body standing exactly on a seam.

use bevy::prelude::*;

use crate::common::*;

/// A floor row of 100 separate solid tiles (x = 2..102) under a 110 x 6 map.
fn long_floor() -> TileMap {
    let mut map = empty_map(110, 6);
    for x in 2..102 {
        map.set(x, 0, TileKind::Solid);
    }
    map
}

#[test]
fn sliding_across_a_floor_of_100_tiles_keeps_speed_over_every_seam() {
    for half in [Vec2::splat(6.0), Vec2::new(5.3, 7.1), Vec2::new(0.7, 3.3)] {
        let mut app = app(long_floor());
        let y = 16.0 + half.y;
        let body = spawn_frictionless(&mut app, Vec2::new(40.0, y), half, Vec2::new(300.0, 0.0));
        step(&mut app, 1);
        let rest_y = pos(&app, body).y;
        assert!(
            (rest_y - y).abs() < 1e-4,
            "settled on the floor at {rest_y}"
        );
        let mut last_x = pos(&app, body).x;
        // 5 units a step for 290 steps: 1450 units, about 90 seams.
        for i in 0..290 {
            step(&mut app, 1);
            let (p, v) = (pos(&app, body), vel(&app, body));
            assert_eq!(
                v,
                Vec2::new(300.0, 0.0),
                "half {half}, step {i} at x {}",
                p.x
            );
            assert_eq!(p.y, rest_y, "half {half}, step {i}: height changed");
            assert!(
                (p.x - last_x - 5.0).abs() < 1e-3,
                "half {half}, step {i}: moved {}",
                p.x - last_x
            );
            assert!(flags(&app, body).on_ground());
            last_x = p.x;
        }
        assert!(last_x > 1480.0);
    }
}

#[test]
fn sliding_up_and_down_a_wall_of_stacked_tiles_keeps_speed() {
    let mut map = empty_map(12, 120);
    for y in 0..120 {
        map.set(5, y, TileKind::Solid);
    }
    for half in [Vec2::splat(6.0), Vec2::new(2.3, 9.7)] {
        for vy in [250.0f32, -250.0] {
            let mut app = app_without_gravity(map.clone());
            let x = 6.0 * 16.0 + half.x;
            let y0 = if vy > 0.0 { 100.0 } else { 1800.0 };
            let body = spawn(&mut app, Vec2::new(x, y0), half, Vec2::new(-120.0, vy));
            for i in 0..100 {
                // Keep pushing into the wall, as a player holding the direction would.
                let v = vel(&app, body);
                set_vel(&mut app, body, Vec2::new(-120.0, v.y));
                let before = pos(&app, body).y;
                step(&mut app, 1);
                let (p, v) = (pos(&app, body), vel(&app, body));
                assert_eq!(
                    v.y, vy,
                    "half {half}, step {i}: vertical speed changed at y {}",
                    p.y
                );
                assert_eq!(v.x, 0.0);
                assert_eq!(p.x, x, "half {half}, step {i}: pushed off the wall");
                assert!(
                    (p.y - before - vy * DT).abs() < 1e-3,
                    "half {half}, step {i}"
                );
                assert!(flags(&app, body).pushes_tile(Side::Left));
            }
        }
    }
}

#[test]
fn body_standing_exactly_on_a_seam_neither_falls_nor_sticks() {
    let map = ascii("......\n......\n######");
    for half in [Vec2::splat(6.0), Vec2::new(4.1, 5.3)] {
        let mut app = app(map.clone());
        // Centred on the seam x = 32 between tiles 1 and 2.
        let start = Vec2::new(32.0, 16.0 + half.y);
        let body = spawn_frictionless(&mut app, start, half, Vec2::ZERO);
        step(&mut app, 120);
        let rest = pos(&app, body);
        assert_eq!(rest.x, 32.0);
        assert!((rest.y - start.y).abs() < 1e-4, "fell or rose: {rest}");
        assert_eq!(vel(&app, body), Vec2::ZERO);
        assert!(flags(&app, body).on_ground());
        // Walk off the seam both ways: one unit a step, never blocked.
        for vx in [60.0f32, -60.0] {
            for _ in 0..8 {
                let x = pos(&app, body).x;
                set_vel(&mut app, body, Vec2::new(vx, 0.0));
                step(&mut app, 1);
                assert!(
                    (pos(&app, body).x - x - vx * DT).abs() < 1e-4,
                    "stuck at the seam"
                );
                assert_eq!(pos(&app, body).y, rest.y);
            }
        }
    }
}

#[test]
fn sliding_across_seams_far_from_the_origin_keeps_speed() {
    // 120 000 units out, where one f32 step is about 0.008: contacts must still read as flush.
    let origin = Vec2::new(120_000.0, 3_000.0);
    let map = long_floor().with_origin(origin);
    let mut app = app(map);
    let half = Vec2::new(5.3, 7.1);
    let y = origin.y + 16.0 + half.y;
    let body = spawn_frictionless(
        &mut app,
        Vec2::new(origin.x + 40.0, y),
        half,
        Vec2::new(300.0, 0.0),
    );
    step(&mut app, 1);
    let rest_y = pos(&app, body).y;
    assert!(
        (rest_y - y).abs() < 0.01,
        "settled on the floor at {rest_y}"
    );
    for i in 0..280 {
        step(&mut app, 1);
        assert_eq!(
            vel(&app, body),
            Vec2::new(300.0, 0.0),
            "step {i} at x {}",
            pos(&app, body).x
        );
        assert_eq!(pos(&app, body).y, rest_y, "step {i}");
    }
    assert!(pos(&app, body).x > origin.x + 1400.0);
}
