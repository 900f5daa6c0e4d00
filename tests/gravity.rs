//! Gravity and the fall-speed cap: gravity never makes a body fall faster than
//! `max_fall_speed` along it, never adds speed across itself, and never slows a speed the game
//! set; a gravity that is not finite is refused.

use bevy::prelude::*;

use crate::common::*;

/// An app on a map with no tiles (nothing to meet, and no edge to leave), with `gravity`.
fn open_air(gravity: Vec2) -> App {
    let mut app = app(TileMap::default());
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = gravity;
    app
}

/// The velocity and the displacement of a body after one step from `velocity`.
fn one_step(app: &mut App, velocity: Vec2) -> (Vec2, Vec2) {
    let start = Vec2::new(0.0, 10_000.0);
    let body = spawn(app, start, Vec2::splat(6.0), velocity);
    step(app, 1);
    (vel(app, body), pos(app, body) - start)
}

#[test]
fn slanted_gravity_never_throws_a_fast_body_sideways() {
    let gravity = Vec2::new(-380.5, -500.0);
    let across = Vec2::new(-gravity.y, gravity.x).normalize();
    for velocity in [Vec2::new(0.0, -30_455.0), Vec2::new(0.0, -2000.0)] {
        let mut app = open_air(gravity);
        let (v, moved) = one_step(&mut app, velocity);
        // Already faster than the cap along gravity: gravity adds nothing, the cap takes
        // nothing.
        assert_eq!(v, velocity);
        assert_eq!(moved.x, 0.0, "{velocity}: moved sideways by {}", moved.x);
        assert!((v - velocity).dot(across).abs() < 1e-3);
    }
    // A slow body gains speed along gravity only, up to the cap.
    let mut app = open_air(gravity);
    let body = spawn(
        &mut app,
        Vec2::ZERO,
        Vec2::splat(6.0),
        Vec2::new(100.0, 0.0),
    );
    for _ in 0..600 {
        let before = vel(&app, body);
        step(&mut app, 1);
        let gained = vel(&app, body) - before;
        assert!(gained.dot(across).abs() < 1e-2, "{before} -> {gained}");
    }
    let fall = vel(&app, body).dot(gravity.normalize());
    assert!(
        (fall - 1200.0).abs() < 0.1,
        "capped at 1200 along gravity: {fall}"
    );
}

#[test]
fn the_fall_speed_cap_limits_gravity_not_speeds_the_game_sets() {
    // From rest, gravity takes a body to the cap and no further.
    let mut app = open_air(PhysicsConfig::default().gravity);
    let body = spawn(&mut app, Vec2::ZERO, Vec2::splat(6.0), Vec2::ZERO);
    step(&mut app, 120);
    assert_eq!(vel(&app, body), Vec2::new(0.0, -1200.0));
    // A dive the game sets keeps its speed.
    let mut app = open_air(PhysicsConfig::default().gravity);
    let (v, moved) = one_step(&mut app, Vec2::new(0.0, -30_000.0));
    assert_eq!(v, Vec2::new(0.0, -30_000.0));
    assert_eq!(moved.x, 0.0);
    assert!((moved.y + 30_000.0 * DT).abs() < 1e-3, "{moved}");
}

#[test]
fn a_gravity_that_is_not_finite_is_refused_with_one_warning() {
    let mut app = open_air(PhysicsConfig::default().gravity);
    let body = spawn(&mut app, Vec2::ZERO, Vec2::splat(6.0), Vec2::ZERO);
    step(&mut app, 3);
    let falling = vel(&app, body);
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::new(f32::NAN, -980.0);
    let (_, warnings) = count_warnings(|| step(&mut app, 3));
    assert_eq!(warnings, 1);
    // The last valid gravity goes on: three more steps of -980.
    let v = vel(&app, body);
    assert!(v.is_finite());
    assert!((v.y - (falling.y - 3.0 * 980.0 * DT)).abs() < 1e-3, "{v}");
    // Valid again, then bad again: a new warning.
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::ZERO;
    step(&mut app, 1);
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::splat(f32::INFINITY);
    let (_, warnings) = count_warnings(|| step(&mut app, 2));
    assert_eq!(warnings, 1);
    assert_eq!(vel(&app, body), v, "zero gravity kept");
    // A bad gravity from the start: no gravity at all, and every other body unaffected.
    let mut app = open_air(Vec2::new(0.0, f32::NAN));
    let still = spawn(&mut app, Vec2::ZERO, Vec2::splat(6.0), Vec2::ZERO);
    let moving = spawn(
        &mut app,
        Vec2::new(50.0, 0.0),
        Vec2::splat(6.0),
        Vec2::new(60.0, 0.0),
    );
    let (_, warnings) = count_warnings(|| step(&mut app, 10));
    assert_eq!(warnings, 1);
    assert_eq!(pos(&app, still), Vec2::ZERO);
    assert_eq!(vel(&app, moving), Vec2::new(60.0, 0.0));
}
