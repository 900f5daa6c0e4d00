//! Object-vs-object response (article 003 and its errata): kinematic bodies, landing on bodies,
//! speed-ratio splits; the response never pushes a body into a tile (resting stacks are in
//! `stacks.rs`, riding in `riding.rs`, thread-count independence in `determinism.rs`).

use bevy::prelude::*;

use crate::common::*;

const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn kinematic_platform_is_never_moved_by_anything() {
    let mut app = app(floor_room());
    let start = Vec2::new(320.0, 200.0);
    let v = Vec2::new(40.0, 20.0);
    let platform = spawn_kinematic(&mut app, start, Vec2::new(24.0, 4.0), v);
    // Bodies thrown at it from every side, fast.
    for (from, vel) in [
        (Vec2::new(240.0, 202.0), Vec2::new(900.0, 0.0)),
        (Vec2::new(400.0, 198.0), Vec2::new(-900.0, 0.0)),
        (Vec2::new(322.0, 300.0), Vec2::new(0.0, -900.0)),
        (Vec2::new(318.0, 120.0), Vec2::new(0.0, 900.0)),
        (Vec2::new(250.0, 260.0), Vec2::new(600.0, -600.0)),
    ] {
        spawn(&mut app, from, HALF, vel);
    }
    for i in 1..=60 {
        step(&mut app, 1);
        let expected = start + v * DT * i as f32;
        assert!(
            (pos(&app, platform) - expected).length() < 1e-3,
            "step {i}: moved by a body"
        );
        assert_eq!(vel(&app, platform), v);
    }
}

#[test]
fn body_pushing_into_a_kinematic_block_stops_at_its_face() {
    let mut app = app(floor_room());
    let block = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 32.0),
        Vec2::splat(16.0),
        Vec2::ZERO,
    );
    let body = spawn_frictionless(&mut app, Vec2::new(120.0, 22.0), HALF, Vec2::ZERO);
    for _ in 0..90 {
        let v = vel(&app, body);
        set_vel(&mut app, body, Vec2::new(240.0, v.y));
        step(&mut app, 1);
    }
    assert_eq!(pos(&app, block), Vec2::new(200.0, 32.0));
    assert!(
        (pos(&app, body).x - (184.0 - HALF.x)).abs() < 1e-3,
        "stopped at the face: {}",
        pos(&app, body)
    );
    assert_eq!(vel(&app, body).x, 0.0);
    assert!(flags(&app, body).pushes_object(Side::Right));
}

#[test]
fn body_falling_onto_a_resting_body_stops_on_top_of_it() {
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(203.0, 120.0), HALF, Vec2::ZERO);
    let config = app.world().resource::<PhysicsConfig>().clone();
    let mut landings = Vec::new();
    for _ in 0..120 {
        let falling = vel(&app, above);
        step(&mut app, 1);
        for l in drain_landed(&mut app) {
            if l.entity == above {
                // The velocity it hit the body with: gravity's last step included, before the
                // landing removed the downward part.
                let expected = bevy_platformer_physics::apply_gravity(
                    falling,
                    config.gravity,
                    config.max_fall_speed,
                    DT,
                );
                landings.push((l.velocity, expected));
            }
        }
    }
    assert_eq!(
        pos(&app, below),
        Vec2::new(200.0, 22.0),
        "the resting body is not pushed"
    );
    assert!(
        (pos(&app, above).y - 34.0).abs() < 1e-3,
        "on top: {}",
        pos(&app, above)
    );
    assert_eq!(pos(&app, above).x, 203.0);
    assert_eq!(vel(&app, above), Vec2::ZERO);
    assert!(flags(&app, above).pushes_object(Side::Bottom) && flags(&app, above).on_ground());
    assert!(flags(&app, below).pushes_object(Side::Top));
    assert_eq!(landings.len(), 1, "Landed once for the landing on a body");
    let (velocity, expected) = landings[0];
    assert!(velocity.y < -100.0, "landed falling: {velocity}");
    assert!(
        (velocity - expected).length() < 1e-3,
        "{velocity} against {expected}"
    );
}

/// Marks the body whose velocity a system between detection and response overwrites.
#[derive(Component)]
struct Meddled;

#[test]
fn a_landing_on_a_body_reports_the_velocity_detection_saw() {
    let mut app = app(floor_room());
    // A gameplay system between the two stages sets a velocity the landing must not report.
    app.add_systems(
        FixedUpdate,
        (|mut q: Query<&mut Velocity, With<Meddled>>| {
            for mut v in &mut q {
                v.0 = Vec2::new(7.0, -1.0);
            }
        })
        .after(PhysicsSystems::DetectPairs)
        .before(PhysicsSystems::Respond),
    );
    spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    // 5 units above the body below, falling 8 units in one step.
    let above = spawn(
        &mut app,
        Vec2::new(200.0, 39.0),
        HALF,
        Vec2::new(0.0, -480.0),
    );
    app.world_mut().entity_mut(above).insert(Meddled);
    let gravity = app.world().resource::<PhysicsConfig>().gravity;
    step(&mut app, 1);
    let landings: Vec<Landed> = drain_landed(&mut app)
        .into_iter()
        .filter(|l| l.entity == above)
        .collect();
    assert_eq!(landings.len(), 1, "landed on the body below");
    let expected = Vec2::new(0.0, -480.0) + gravity * DT;
    assert!(
        (landings[0].velocity - expected).length() < 1e-3,
        "{} against {expected}",
        landings[0].velocity
    );
}

#[test]
fn landing_across_two_equal_bodies_at_once_moves_it_up_once() {
    let mut app = app_without_gravity(floor_room());
    let left = spawn_kinematic(&mut app, Vec2::new(194.0, 22.0), HALF, Vec2::ZERO);
    let right = spawn_kinematic(&mut app, Vec2::new(206.0, 22.0), HALF, Vec2::ZERO);
    // Centred over the seam; 5 units above; falls 8 units in one step.
    let body = spawn(
        &mut app,
        Vec2::new(200.0, 39.0),
        HALF,
        Vec2::new(0.0, -480.0),
    );
    step(&mut app, 1);
    assert_eq!(contacts(&app, body).len(), 2, "detected against both");
    assert!(
        (pos(&app, body).y - 34.0).abs() < 1e-4,
        "corrected once: {}",
        pos(&app, body).y
    );
    assert_eq!(vel(&app, body).y, 0.0);
    let _ = (left, right);
}

#[test]
fn bodies_meeting_head_on_separate_in_proportion_to_their_speeds() {
    let mut app = app_without_gravity(floor_room());
    // 5 and 1.25 units a step; 13 apart: after one step 6.75 apart, overlapping by 5.25.
    let a = spawn(
        &mut app,
        Vec2::new(200.0, 200.0),
        HALF,
        Vec2::new(300.0, 0.0),
    );
    let b = spawn(
        &mut app,
        Vec2::new(213.0, 200.0),
        HALF,
        Vec2::new(-75.0, 0.0),
    );
    step(&mut app, 1);
    let overlap = 12.0 - ((213.0 - 1.25) - (200.0 + 5.0));
    let (pa, pb) = (pos(&app, a), pos(&app, b));
    assert!(
        (pa.x - (205.0 - 0.8 * overlap)).abs() < 1e-3,
        "a takes 4/5: {pa}"
    );
    assert!(
        (pb.x - (211.75 + 0.2 * overlap)).abs() < 1e-3,
        "b takes 1/5: {pb}"
    );
    assert!((pb.x - pa.x - 12.0).abs() < 1e-3, "touching after");
    assert_eq!((vel(&app, a).x, vel(&app, b).x), (0.0, 0.0));
}

#[test]
fn bodies_spawned_overlapping_and_still_separate_half_each() {
    let mut app = app_without_gravity(floor_room());
    let a = spawn(&mut app, Vec2::new(200.0, 200.0), HALF, Vec2::ZERO);
    let b = spawn(&mut app, Vec2::new(208.0, 201.0), HALF, Vec2::ZERO);
    step(&mut app, 1);
    assert_eq!(pos(&app, a), Vec2::new(198.0, 200.0));
    assert_eq!(pos(&app, b), Vec2::new(210.0, 201.0));
}

#[test]
fn response_never_pushes_a_body_into_a_tile() {
    // A body pressed against the wall is hit from the other side by a faster body: its share
    // of the overlap would push it into the wall; the tile sweep stops it at the face.
    let mut map = floor_room();
    map.fill(IVec2::new(10, 1), IVec2::new(10, 5), TileKind::Solid);
    let mut app = app_without_gravity(map);
    let wall_face = 176.0;
    let pinned = spawn(
        &mut app,
        Vec2::new(wall_face + 6.0, 40.0),
        HALF,
        Vec2::new(-60.0, 0.0),
    );
    let hitter = spawn(
        &mut app,
        Vec2::new(wall_face + 30.0, 40.0),
        HALF,
        Vec2::new(-900.0, 0.0),
    );
    step(&mut app, 5);
    assert!(
        pos(&app, pinned).x >= wall_face + 6.0 - 1e-3,
        "pushed into the wall: {}",
        pos(&app, pinned)
    );
    let _ = hitter;
}
