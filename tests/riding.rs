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
    let offset = pos(&app, rider) - pos(&app, platform);
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = v;
    // From the very step the platform starts, the rider moves with it: no lag, no slide.
    for i in 1..=120 {
        step(&mut app, 1);
        let now = pos(&app, rider) - pos(&app, platform);
        assert!(
            (now - offset).abs().max_element() < 1e-2,
            "step {i}: {now} vs {offset}"
        );
        assert_eq!(vel(&app, rider).x, v.x, "step {i}: at the platform's speed");
        assert!(flags(&app, rider).on_ground(), "step {i}");
    }
    assert_eq!(state(&app, rider).ground_velocity, v);
    assert_eq!(state(&app, rider).ground, Some(platform));
}

/// Runs `platform` at `velocity`, reversed every 30 steps, for 600 steps, and checks after each
/// step that every one of `riders` keeps its offset from the platform to 0.01 (so its height
/// over it is constant), stands, and never lands again.
fn ride_a_reversing_platform(app: &mut App, platform: Entity, riders: &[Entity], velocity: Vec2) {
    step(app, 20);
    let offsets: Vec<Vec2> = riders
        .iter()
        .map(|&r| pos(app, r) - pos(app, platform))
        .collect();
    drain_landed(app);
    let start = pos(app, platform);
    let mut v = velocity;
    for i in 0..600 {
        if i % 30 == 0 {
            app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = v;
            v = -v;
        }
        step(app, 1);
        for (&rider, &offset) in riders.iter().zip(&offsets) {
            let now = pos(app, rider) - pos(app, platform);
            assert!(
                (now - offset).abs().max_element() < 1e-2,
                "step {i}: rider {rider} at {now} from the platform, was {offset}"
            );
            assert!(flags(app, rider).on_ground(), "step {i}: {rider} stands");
        }
        assert_eq!(drain_landed(app), vec![], "step {i}: nobody lands again");
    }
    // The platform really went back and forth.
    assert!((pos(app, platform) - start).length() < 1e-2);
}

#[test]
fn a_rider_of_a_platform_going_up_and_down_keeps_its_height_over_it() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    // Down first: the rider must not float off when it starts to descend.
    ride_a_reversing_platform(&mut app, platform, &[rider], Vec2::new(0.0, -45.0));
}

#[test]
fn a_rider_of_a_platform_going_left_and_right_keeps_its_place_on_it() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(290.0, 66.0), HALF, Vec2::ZERO);
    ride_a_reversing_platform(&mut app, platform, &[rider], Vec2::new(80.0, 0.0));
}

#[test]
fn a_stack_of_riders_moves_with_a_platform_reversing_on_both_axes() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    // A crate on a crate on the platform, and a third crate beside them.
    let bottom = spawn(
        &mut app,
        Vec2::new(300.0, 68.0),
        Vec2::splat(8.0),
        Vec2::ZERO,
    );
    let top = spawn(&mut app, Vec2::new(302.0, 82.0), HALF, Vec2::ZERO);
    let beside = spawn(&mut app, Vec2::new(250.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 20);
    assert_eq!(
        state(&app, top).ground,
        Some(bottom),
        "the top crate stands on the bottom one"
    );
    ride_a_reversing_platform(
        &mut app,
        platform,
        &[bottom, top, beside],
        Vec2::new(60.0, -40.0),
    );
}

#[test]
fn a_rider_of_a_descending_platform_rides_it_down_to_the_floor() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 20);
    drain_landed(&mut app);
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(0.0, -120.0);
    // 36 units down to the floor at 2 units a step; then the platform stops there.
    for i in 0..18 {
        step(&mut app, 1);
        let gap = (pos(&app, rider).y - HALF.y) - (pos(&app, platform).y + 8.0);
        assert!(gap.abs() < 1e-2, "step {i}: gap {gap}");
        assert!(flags(&app, rider).on_ground(), "step {i}");
    }
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::ZERO;
    step(&mut app, 5);
    assert!((pos(&app, platform).y - 16.0).abs() < 1e-3);
    assert!(
        (pos(&app, rider).y - 30.0).abs() < 1e-2,
        "{}",
        pos(&app, rider).y
    );
    assert_eq!(vel(&app, rider), Vec2::ZERO, "stopped with it");
    assert_eq!(drain_landed(&mut app), vec![], "it never left the platform");
}

#[test]
fn a_rider_without_friction_is_carried_up_and_down_but_not_across() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn_frictionless(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 20);
    let x = pos(&app, rider).x;
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(60.0, -30.0);
    for i in 0..30 {
        step(&mut app, 1);
        let gap = (pos(&app, rider).y - HALF.y) - (pos(&app, platform).y + 8.0);
        assert!(gap.abs() < 1e-2, "step {i}: gap {gap}");
        assert_eq!(
            pos(&app, rider).x,
            x,
            "step {i}: the platform slides under it"
        );
    }
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

#[test]
fn a_controller_that_sets_its_speed_keeps_the_carry_by_adding_the_ground_velocity() {
    let mut app = app(floor_room());
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let player = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 20);
    let offset = pos(&app, player).x - pos(&app, platform).x;
    let mut v = Vec2::new(70.0, 20.0);
    for i in 0..240 {
        if i % 40 == 0 {
            app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = v;
            v = -v;
        }
        // The controller of `carry`'s documentation, standing still: its own speed is zero.
        let ground = state(&app, player).ground_velocity;
        let y = vel(&app, player).y;
        set_vel(&mut app, player, Vec2::new(ground.x, y));
        step(&mut app, 1);
        let now = pos(&app, player).x - pos(&app, platform).x;
        assert!((now - offset).abs() < 1e-2, "step {i}: {now} vs {offset}");
    }
}

/// A one-way kinematic slab (see [`slab`]): its top at y = 60, 240 wide.
fn one_way_slab(app: &mut App, x: f32, velocity: Vec2) -> Entity {
    let platform = slab(app, x, velocity);
    app.world_mut().entity_mut(platform).insert(OneWayPlatform);
    platform
}

#[test]
fn a_body_jumps_up_through_a_one_way_platform_and_lands_on_it() {
    let mut app = app(floor_room());
    let platform = one_way_slab(&mut app, 300.0, Vec2::ZERO);
    // On the floor under the slab, jumping at 400 (about 80 units high: its feet clear the top).
    let jumper = spawn(
        &mut app,
        Vec2::new(300.0, 22.0),
        HALF,
        Vec2::new(0.0, 400.0),
    );
    let mut last = pos(&app, jumper).y;
    let mut rising = true;
    for i in 0..120 {
        step(&mut app, 1);
        let y = pos(&app, jumper).y;
        if rising {
            assert!(
                y > last || vel(&app, jumper).y <= 0.0,
                "step {i}: held back at {y}"
            );
            rising = vel(&app, jumper).y > 0.0;
        }
        last = y;
    }
    assert_eq!(pos(&app, jumper).y - HALF.y, 60.0, "stands on the top");
    assert!(flags(&app, jumper).on_ground());
    assert_eq!(state(&app, jumper).ground, Some(platform));
}

#[test]
fn a_body_walks_through_a_one_way_platform_from_the_side_and_drops_through_it() {
    let mut app = app(floor_room());
    // A one-way block on the floor, as high as the walker.
    let block = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 24.0),
        Vec2::splat(8.0),
        Vec2::ZERO,
    );
    app.world_mut().entity_mut(block).insert(OneWayPlatform);
    let walker = spawn_frictionless(
        &mut app,
        Vec2::new(150.0, 22.0),
        HALF,
        Vec2::new(120.0, 0.0),
    );
    step(&mut app, 60);
    assert!(
        pos(&app, walker).x > 260.0,
        "through: {}",
        pos(&app, walker).x
    );
    assert_eq!(pos(&app, walker).y, 22.0);
    // A rider of a one-way slab falls through it while the switch is on.
    one_way_slab(&mut app, 600.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(600.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 20);
    assert_eq!(pos(&app, rider).y, 66.0, "stands on it");
    switches(&mut app, rider).drop_through = true;
    step(&mut app, 60);
    assert_eq!(pos(&app, rider).y, 22.0, "on the floor below");
}

#[test]
fn a_rider_of_a_one_way_platform_going_up_and_down_keeps_its_height_over_it() {
    let mut app = app(floor_room());
    let platform = one_way_slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    ride_a_reversing_platform(&mut app, platform, &[rider], Vec2::new(0.0, -45.0));
}

#[test]
fn a_stack_of_riders_moves_with_a_one_way_platform_reversing_sideways() {
    let mut app = app(floor_room());
    let platform = one_way_slab(&mut app, 300.0, Vec2::ZERO);
    let low = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    let high = spawn(&mut app, Vec2::new(302.0, 78.0), HALF, Vec2::ZERO);
    ride_a_reversing_platform(&mut app, platform, &[low, high], Vec2::new(80.0, 0.0));
}
