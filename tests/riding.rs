//! Riding and sliding on bodies: platforms carry their riders, and friction on a body works
//! as on tiles.

use bevy::prelude::*;

use crate::common::*;

const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn body_standing_on_a_rising_kinematic_platform_is_lifted_with_it() {
    let mut app = app(floor_room());
    let platform = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 60.0),
        Vec2::new(24.0, 4.0),
        Vec2::ZERO,
    );
    let rider = spawn(&mut app, Vec2::new(205.0, 70.0), HALF, Vec2::ZERO);
    step(&mut app, 30);
    assert!(
        (pos(&app, rider).y - 70.0).abs() < 1e-3,
        "rests on the platform"
    );
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(0.0, 45.0);
    for i in 1..=120 {
        step(&mut app, 1);
        let top = pos(&app, platform).y + 4.0;
        let feet = pos(&app, rider).y - HALF.y;
        assert!(
            (feet - top).abs() < 0.8,
            "step {i}: feet {feet}, platform top {top}"
        );
        assert!(flags(&app, rider).on_ground(), "step {i}: still standing");
    }
    assert!(
        pos(&app, rider).y > 150.0,
        "lifted by 90 units: {}",
        pos(&app, rider).y
    );
    assert_eq!(pos(&app, platform).x, 200.0);
}

/// A wide kinematic slab resting on nothing (no gravity for it), its top at y = 60.
fn slab(app: &mut App, x: f32, velocity: Vec2) -> Entity {
    spawn_kinematic(app, Vec2::new(x, 52.0), Vec2::new(120.0, 8.0), velocity)
}

#[test]
fn a_body_sliding_on_a_body_stops_like_on_tiles() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let on_slab = spawn(
        &mut app,
        Vec2::new(260.0, 66.0),
        HALF,
        Vec2::new(200.0, 0.0),
    );
    let on_tiles = spawn(
        &mut app,
        Vec2::new(100.0, 22.0),
        HALF,
        Vec2::new(200.0, 0.0),
    );
    step(&mut app, 60);
    // Tile friction and body friction decay the speed the same way, step for step.
    let k = PhysicsConfig::default().ground_friction;
    let expected = 200.0 * (-k * DT).exp().powi(60);
    for (body, name) in [(on_slab, "on the slab"), (on_tiles, "on tiles")] {
        assert!(
            (vel(&app, body).x - expected).abs() < 1e-2,
            "{name}: {} vs {expected}",
            vel(&app, body).x
        );
    }
    step(&mut app, 120);
    assert_eq!(vel(&app, on_slab).x, 0.0, "stopped for good");
    let stopped_at = pos(&app, on_slab).x;
    step(&mut app, 30);
    assert_eq!(pos(&app, on_slab).x, stopped_at);
    assert!(flags(&app, on_slab).on_ground(), "still on the slab");
}

#[test]
fn a_rider_is_carried_along_by_a_platform_moving_sideways() {
    let mut app = app(floor_room());
    let v = Vec2::new(80.0, 0.0);
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 10);
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = v;
    step(&mut app, 120);
    assert_eq!(vel(&app, rider).x, v.x, "moves at the platform's speed");
    assert_eq!(state(&app, rider).ground_velocity, v);
    // It lagged behind while friction took hold, then kept its place on the platform.
    let offset = pos(&app, rider).x - pos(&app, platform).x;
    assert!(
        (-10.0..0.0).contains(&offset),
        "offset on the platform {offset}"
    );
    step(&mut app, 60);
    let later = pos(&app, rider).x - pos(&app, platform).x;
    assert!((later - offset).abs() < 1e-2, "{later} vs {offset}");
    assert!(flags(&app, rider).on_ground());
}

#[test]
fn a_controller_setting_its_speed_walks_at_that_speed_on_a_body() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let walker = spawn(&mut app, Vec2::new(240.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 10);
    let start = pos(&app, walker).x;
    for _ in 0..60 {
        let v = vel(&app, walker);
        set_vel(&mut app, walker, Vec2::new(90.0, v.y));
        step(&mut app, 1);
    }
    // Friction acts after the move: each step moved the full 90 * DT.
    let walked = pos(&app, walker).x - start;
    assert!((walked - 90.0).abs() < 1e-2, "walked {walked}");
}

#[test]
fn the_friction_switch_lets_a_body_slide_on_bodies_too() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let body = spawn_frictionless(&mut app, Vec2::new(220.0, 66.0), HALF, Vec2::new(60.0, 0.0));
    step(&mut app, 60);
    assert_eq!(vel(&app, body).x, 60.0);
    assert!(flags(&app, body).on_ground());
}

#[test]
fn zero_ground_friction_leaves_speeds_on_bodies_exactly_as_they_are() {
    let mut app = app(floor_room());
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .ground_friction = 0.0;
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    // Close to the platform's speed, but not equal: no friction means no snapping to it either.
    let v = 0.1;
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::new(v, 0.0));
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(80.0, 0.0);
    for _ in 0..30 {
        step(&mut app, 1);
        assert_eq!(vel(&app, rider).x, v);
    }
    assert!(flags(&app, rider).on_ground());
}

#[test]
fn a_body_on_a_tile_and_a_body_at_once_gets_friction_once() {
    // A tile row one tile up (x 160 to 240) and a still box on the floor just right of it,
    // its top level with the row's: the slider stands on both.
    let mut map = floor_room();
    map.fill(IVec2::new(10, 1), IVec2::new(14, 1), TileKind::Solid);
    let mut app = app(map);
    // Box top at y = 32, the same height as the tile row's top.
    spawn(
        &mut app,
        Vec2::new(250.0, 24.0),
        Vec2::new(8.0, 8.0),
        Vec2::ZERO,
    );
    let slider = spawn(&mut app, Vec2::new(240.0, 38.0), HALF, Vec2::new(30.0, 0.0));
    step(&mut app, 1);
    let f = flags(&app, slider);
    assert!(
        f.pushes_tile(Side::Bottom) && f.pushes_object(Side::Bottom),
        "stands on both: {f:?}"
    );
    let k = PhysicsConfig::default().ground_friction;
    let once = 30.0 * (-k * DT).exp();
    assert!(
        (vel(&app, slider).x - once).abs() < 1e-3,
        "{} vs {once}",
        vel(&app, slider).x
    );
}
