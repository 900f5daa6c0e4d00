//! One-way platforms: pass up through them, land on them from above, stand and walk on a row
//! of them, drop through with the switch, and the jump-through tolerance of article 001.

use bevy::prelude::*;

use crate::common::*;

/// Row 3 (top at y = 64) has one-way tiles at x = 2..=7; the floor is row 0 (top at 16).
fn platform_map() -> TileMap {
    ascii(
        "..........\n\
         ..........\n\
         ..........\n\
         ..------..\n\
         ..........\n\
         ..........\n\
         ##########",
    )
}

const TOP: f32 = 64.0;
const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn one_way_platform_lets_a_body_pass_up_through_it() {
    let mut app = app(platform_map());
    let body = spawn(&mut app, Vec2::new(72.0, 22.0), HALF, Vec2::new(0.0, 500.0));
    let mut max_y = f32::MIN;
    for _ in 0..90 {
        step(&mut app, 1);
        max_y = max_y.max(pos(&app, body).y);
    }
    assert!(
        max_y > TOP + HALF.y + 20.0,
        "rose through the platform to {max_y}"
    );
    // Coming back down it lands on the platform, not the floor.
    assert_eq!(pos(&app, body).y, TOP + HALF.y);
    assert!(flags(&app, body).on_ground());
    assert_eq!(state(&app, body).standing_on, Some(TileKind::OneWay));
}

#[test]
fn one_way_platform_holds_a_body_landing_from_above_and_standing() {
    let mut app = app(platform_map());
    let body = spawn(
        &mut app,
        Vec2::new(72.0, 100.0),
        HALF,
        Vec2::new(0.0, -900.0),
    );
    step(&mut app, 30);
    assert_eq!(pos(&app, body).y, TOP + HALF.y);
    for _ in 0..120 {
        step(&mut app, 1);
        assert_eq!(pos(&app, body).y, TOP + HALF.y, "keeps standing");
        assert_eq!(vel(&app, body).y, 0.0);
        assert!(flags(&app, body).pushes_tile(Side::Bottom));
    }
}

#[test]
fn walking_across_a_row_of_one_way_tiles_is_one_floor() {
    let mut app = app(platform_map());
    let body = spawn_frictionless(
        &mut app,
        Vec2::new(40.0, TOP + HALF.y),
        HALF,
        Vec2::new(60.0, 0.0),
    );
    let mut last_x = pos(&app, body).x;
    // From x = 40 to x = 110: the body's feet stay over the row the whole way.
    for i in 0..70 {
        step(&mut app, 1);
        let p = pos(&app, body);
        assert_eq!(p.y, TOP + HALF.y, "step {i} at x {}", p.x);
        assert_eq!(vel(&app, body), Vec2::new(60.0, 0.0), "step {i}");
        assert!((p.x - last_x - 1.0).abs() < 1e-4);
        last_x = p.x;
    }
}

#[test]
fn one_way_platform_does_not_block_sideways_motion() {
    let mut app = app_without_gravity(platform_map());
    // Level with the platform tiles, moving right through all of them.
    let body = spawn(
        &mut app,
        Vec2::new(16.0, 56.0),
        Vec2::splat(4.0),
        Vec2::new(600.0, 0.0),
    );
    step(&mut app, 12);
    assert_eq!(vel(&app, body), Vec2::new(600.0, 0.0));
    assert!((pos(&app, body).x - 136.0).abs() < 1e-3);
}

#[test]
fn drop_through_switch_falls_through_one_way_platforms() {
    let mut app = app(platform_map());
    let body = spawn(&mut app, Vec2::new(72.0, TOP + HALF.y), HALF, Vec2::ZERO);
    step(&mut app, 5);
    assert_eq!(pos(&app, body).y, TOP + HALF.y);
    switches(&mut app, body).drop_through = true;
    step(&mut app, 12);
    switches(&mut app, body).drop_through = false;
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 16.0 + HALF.y, "fell to the floor");
    assert_eq!(state(&app, body).standing_on, Some(TileKind::Solid));
}

#[test]
fn drop_through_does_not_pass_solid_tiles() {
    let mut app = app(platform_map());
    let body = spawn(&mut app, Vec2::new(16.0, 40.0), HALF, Vec2::ZERO);
    switches(&mut app, body).drop_through = true;
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 16.0 + HALF.y);
}

#[test]
fn one_way_tolerance_puts_a_body_just_under_the_top_back_on_it() {
    let tolerance = PhysicsConfig::default().one_way_tolerance;
    // Feet 3 units under the top, not moving up: put on top (article 001's tolerance).
    let mut near = app(platform_map());
    let body = spawn(
        &mut near,
        Vec2::new(72.0, TOP - 3.0 + HALF.y),
        HALF,
        Vec2::ZERO,
    );
    step(&mut near, 1);
    assert_eq!(pos(&near, body).y, TOP + HALF.y);
    assert!(flags(&near, body).on_ground());
    // Beyond the tolerance: it is below the platform and falls.
    let mut far = app(platform_map());
    let body = spawn(
        &mut far,
        Vec2::new(72.0, TOP - tolerance - 1.0 + HALF.y),
        HALF,
        Vec2::ZERO,
    );
    step(&mut far, 60);
    assert_eq!(pos(&far, body).y, 16.0 + HALF.y);
    // Within the tolerance but still rising: not snapped.
    let mut rising = app_without_gravity(platform_map());
    let body = spawn(
        &mut rising,
        Vec2::new(72.0, TOP - 3.0 + HALF.y),
        HALF,
        Vec2::new(0.0, 30.0),
    );
    step(&mut rising, 1);
    assert!((pos(&rising, body).y - (TOP - 2.5 + HALF.y)).abs() < 1e-4);
}

#[test]
fn jumping_up_to_just_under_a_one_way_top_ends_on_it() {
    // Apex of the jump 2 units short of the platform's top: the tolerance catches it.
    let mut app = app(platform_map());
    // Feet from the floor top to 2 units under the platform top, reached by the step's own
    // integration (gravity first, then the move), so the jump speed is found by bisection.
    let rise = TOP - 2.0 - 16.0;
    let apex = |v0: f32| {
        let (mut v, mut h, mut top) = (v0, 0.0f32, 0.0f32);
        while v > 0.0 {
            v -= 980.0 * DT;
            h += v.max(0.0) * DT;
            top = top.max(h);
        }
        top
    };
    let (mut lo, mut hi) = (0.0f32, 1000.0f32);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if apex(mid) < rise { lo = mid } else { hi = mid }
    }
    let jump = lo;
    let body = spawn(&mut app, Vec2::new(72.0, 16.0 + HALF.y), HALF, Vec2::ZERO);
    step(&mut app, 2);
    set_vel(&mut app, body, Vec2::new(0.0, jump));
    step(&mut app, 90);
    assert_eq!(pos(&app, body).y, TOP + HALF.y, "caught by the platform");
}
