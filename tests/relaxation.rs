//! Relaxation (`src/relax/mod.rs`), in the default configuration: stacks, pyramids and crowds
//! end a step without bodies inside each other, and come to rest.

use bevy::prelude::*;

use crate::common::*;

/// The contact tolerance, grown by the float step of coordinates up to 1 024.
const TOUCH: f32 = 1e-3 + 1.3e-4;

/// A 40 x 40 room with a floor and both walls.
fn walled_room() -> TileMap {
    let mut map = floor_room();
    map.fill(IVec2::new(0, 0), IVec2::new(0, 39), TileKind::Solid);
    map.fill(IVec2::new(39, 0), IVec2::new(39, 39), TileKind::Solid);
    map
}

/// Runs `n` steps; returns the deepest overlap among `boxes` seen at the end of any of them.
fn worst_over(app: &mut App, boxes: &[Entity], n: usize) -> f32 {
    let mut worst = 0.0f32;
    for _ in 0..n {
        step(app, 1);
        worst = worst.max(max_pair_overlap(app, boxes));
    }
    worst
}

#[test]
fn a_tower_of_ten_crates_settles_without_overlap_and_then_rests() {
    let mut app = app(walled_room());
    let crates: Vec<Entity> = (0..10)
        .map(|i| still_box(&mut app, Vec2::new(320.0, 30.0 + 14.0 * i as f32)))
        .collect();
    // `PhysicsStats` says what relaxation did: passes (at most the four allowed) and bodies
    // while the crates land on each other, nothing once they rest.
    let mut passes = [0; 2];
    let mut relaxed = 0;
    for _ in 0..240 {
        step(&mut app, 1);
        let stats = *app.world().resource::<PhysicsStats>();
        passes[stats.relaxation_passes.min(1)] += 1;
        assert!(stats.relaxation_passes <= 4, "{stats:?}");
        assert!(stats.relaxed_bodies <= crates.len(), "{stats:?}");
        relaxed += stats.relaxed_bodies;
    }
    assert!(
        passes[1] > 0 && relaxed >= passes[1],
        "{passes:?} {relaxed}"
    );
    let deepest = worst_over(&mut app, &crates, 60);
    assert!(deepest <= TOUCH, "a pair overlaps by {deepest}");
    assert_eq!(awake_bodies(&app), 0, "every crate rests");
    let stats = *app.world().resource::<PhysicsStats>();
    assert_eq!((stats.relaxation_passes, stats.relaxed_bodies), (0, 0));
    let top = pos(&app, crates[9]).y;
    assert!(
        (top - (22.0 + 12.0 * 9.0)).abs() < 0.1,
        "ten crates high: {top}"
    );
}

#[test]
fn without_relaxation_a_tower_of_ten_crates_lands_with_crates_inside_each_other() {
    // Article 003's response alone: each contact resolved once per step.
    let mut app = App::new();
    let physics = PhysicsPlugin::default()
        .build()
        .disable::<RelaxationPlugin>();
    app.add_plugins((minimal_plugins(), physics))
        .insert_resource(Time::<Fixed>::from_duration(
            std::time::Duration::from_secs_f32(DT),
        ))
        .insert_resource(walled_room());
    let crates: Vec<Entity> = (0..10)
        .map(|i| still_box(&mut app, Vec2::new(320.0, 30.0 + 14.0 * i as f32)))
        .collect();
    let deepest = worst_over(&mut app, &crates, 120);
    assert!(deepest > 1.0, "the deepest overlap was {deepest}");
    assert_eq!(app.world().resource::<PhysicsStats>().relaxed_bodies, 0);
}

#[test]
fn a_pyramid_of_55_crates_settles_without_overlap_and_then_rests() {
    let mut app = app(walled_room());
    let mut crates = Vec::new();
    for row in 0..10 {
        for i in 0..10 - row {
            let x = 240.0 + 8.0 * row as f32 + 16.0 * i as f32;
            let y = 26.0 + 18.0 * row as f32;
            crates.push(spawn(
                &mut app,
                Vec2::new(x, y),
                Vec2::splat(8.0),
                Vec2::ZERO,
            ));
        }
    }
    assert_eq!(crates.len(), 55);
    step(&mut app, 300);
    let deepest = worst_over(&mut app, &crates, 60);
    assert!(deepest <= TOUCH, "a pair overlaps by {deepest}");
    assert_eq!(awake_bodies(&app), 0, "every crate rests");
    let top = pos(&app, crates[54]).y;
    assert!(
        (top - (24.0 + 16.0 * 9.0)).abs() < 0.1,
        "ten rows high: {top}"
    );
}

#[test]
fn a_crowd_of_200_walking_into_a_wall_does_not_interpenetrate() {
    // A heap about 20 bodies across.
    let mut app = app(walled_room());
    let mut crowd = Vec::new();
    for row in 0..8 {
        for i in 0..25 {
            let at = Vec2::new(
                100.0 + 16.0 * i as f32 + row as f32,
                24.0 + 14.0 * row as f32,
            );
            crowd.push(still_box(&mut app, at));
        }
    }
    let mut worst = 0.0f32;
    for n in 0..600 {
        // Every body walks right, every step, as a game's controller would make it.
        for &body in &crowd {
            let fall = vel(&app, body).y;
            set_vel(&mut app, body, Vec2::new(120.0, fall));
        }
        step(&mut app, 1);
        if n >= 300 {
            worst = worst.max(max_pair_overlap(&app, &crowd));
        }
    }
    let right = (crowd.iter())
        .map(|&e| aabb(&app, e).max().x)
        .fold(0.0, f32::max);
    assert!(right <= 624.0 + TOUCH, "a body is in the wall: {right}");
    let left = (crowd.iter())
        .map(|&e| aabb(&app, e).min().x)
        .fold(640.0, f32::min);
    assert!(left > 300.0, "the crowd walked to the wall: {left}");
    assert!(worst <= 0.1, "a pair overlapped by {worst}");
}

#[test]
fn every_body_relaxation_moves_has_its_transform_on_its_box() {
    // A tower landing: a crate or two moved by relaxation a step. Alone, they are many among
    // the detected bodies; beside 400 still kinematic bodies (detected, never relaxed), few.
    // Relaxation moves a box after the response has set its `Transform`, so it must set it
    // again, either way.
    for platforms in [0, 400] {
        let mut app = app(walled_room());
        let crates: Vec<Entity> = (0..10)
            .map(|i| still_box(&mut app, Vec2::new(320.0, 30.0 + 14.0 * i as f32)))
            .collect();
        for i in 0..platforms {
            let at = Vec2::new(
                40.0 + 28.0 * (i % 20) as f32,
                400.0 + 10.0 * (i / 20) as f32,
            );
            spawn_kinematic(&mut app, at, Vec2::new(12.0, 2.0), Vec2::ZERO);
        }
        let mut relaxed = 0;
        for n in 0..120 {
            step(&mut app, 1);
            relaxed += app.world().resource::<PhysicsStats>().relaxed_bodies;
            for &e in &crates {
                let t = app.world().get::<Transform>(e).unwrap().translation;
                let center = aabb(&app, e).center;
                assert_eq!(t.truncate(), center, "step {n}, {platforms} platforms");
            }
        }
        assert!(
            relaxed > 0,
            "relaxation moved a crate ({platforms} platforms)"
        );
    }
}

#[test]
fn a_body_the_response_moved_far_is_kept_apart_from_what_it_came_near() {
    // No gravity; 16-unit tiles, so relaxation's partners reach 8 units past each box. Two
    // kinematic slabs rise under a body `low` and under `lifted`, which stands beside and
    // under `low`'s right edge: the response moves `low` up 5 and `lifted` up 10 (into `low`),
    // then relaxation pushes `low` up 5 more. `high`, 9 units above `low` where detection saw
    // them (no partner of anything there), is 4 above it where the response left it: a
    // partner from there, so relaxation moves it too instead of leaving `low` inside it.
    let mut app = app_without_gravity(empty_map(40, 40));
    let half = Vec2::new(8.0, 6.0);
    let low = spawn(&mut app, Vec2::new(200.0, 200.0), half, Vec2::ZERO);
    let high = spawn(&mut app, Vec2::new(200.0, 221.0), half, Vec2::ZERO);
    let lifted = spawn(
        &mut app,
        Vec2::new(216.0, 186.0),
        Vec2::new(14.0, 8.0),
        Vec2::ZERO,
    );
    let up = |by: f32| Vec2::Y * by / DT;
    spawn_kinematic(
        &mut app,
        Vec2::new(195.0, 190.0),
        Vec2::new(3.0, 4.0),
        up(5.0),
    );
    spawn_kinematic(
        &mut app,
        Vec2::new(220.0, 168.0),
        Vec2::splat(10.0),
        up(10.0),
    );
    step(&mut app, 1);
    let (low_y, lifted_y) = (pos(&app, low).y, pos(&app, lifted).y);
    assert!(
        (low_y - 210.0).abs() < 0.01 && (lifted_y - 196.0).abs() < 0.01,
        "the scene is not the one described: low at {low_y}, lifted at {lifted_y}"
    );
    let deepest = max_pair_overlap(&app, &[low, high, lifted]);
    assert!(deepest <= TOUCH, "a pair overlaps by {deepest}");
    assert!(pos(&app, high).y > 221.5, "high was not moved");
}
