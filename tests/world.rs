//! Whole-world behaviours: Transform follows Aabb, run-time map edits, kinematic bodies, the
//! per-body switches, friction.

use bevy::prelude::*;

use crate::common::*;

#[test]
fn transform_follows_the_aabb_from_spawn_and_after_each_step() {
    let mut app = app(ascii("....\n####"));
    let body = app
        .world_mut()
        .spawn((
            Aabb::new(Vec2::new(24.0, 40.0), Vec2::splat(6.0)),
            Transform::from_xyz(0.0, 0.0, 5.0),
        ))
        .id();
    let t = *app.world().get::<Transform>(body).unwrap();
    assert_eq!(
        t.translation,
        Vec3::new(24.0, 40.0, 5.0),
        "synced on insert, z kept"
    );
    step(&mut app, 60);
    let t = *app.world().get::<Transform>(body).unwrap();
    assert_eq!(t.translation, Vec3::new(24.0, 22.0, 5.0));
}

#[test]
fn only_what_the_step_changes_is_marked_changed() {
    // A body resting on the floor and one falling: the physics writes a component (and marks
    // it changed, as `Changed` filters and `Transform` propagation rely on) only when its
    // value changes.
    let mut app = app(ascii("....\n....\n....\n....\n####"));
    let resting = spawn(
        &mut app,
        Vec2::new(24.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let falling = spawn(
        &mut app,
        Vec2::new(48.0, 70.0),
        Vec2::splat(4.0),
        Vec2::ZERO,
    );
    step(&mut app, 3);
    let ticks = |app: &App, e: Entity| {
        (
            last_changed::<Aabb>(app, e),
            last_changed::<Transform>(app, e),
            last_changed::<Velocity>(app, e),
        )
    };
    let (rest_before, fall_before) = (ticks(&app, resting), ticks(&app, falling));
    step(&mut app, 1);
    let (rest_after, fall_after) = (ticks(&app, resting), ticks(&app, falling));
    assert_eq!(pos(&app, resting), Vec2::new(24.0, 22.0), "still resting");
    assert_eq!(
        (rest_after.0, rest_after.1),
        (rest_before.0, rest_before.1),
        "a box that did not move is not written, nor is its Transform"
    );
    assert_eq!(
        rest_after.2, rest_before.2,
        "a resting body is left out of the step: its velocity is not rewritten either"
    );
    assert!(pos(&app, falling).y < 70.0, "falling");
    assert!(
        fall_after.0 != fall_before.0 && fall_after.1 != fall_before.1,
        "a moving box and its Transform are marked changed every step"
    );
    let t = app.world().get::<Transform>(falling).unwrap().translation;
    assert_eq!(t.truncate(), pos(&app, falling));
}

#[test]
fn transform_follows_the_aabb_however_the_body_moved() {
    // Moved by the response (two boxes spawned overlapping), by a kinematic velocity, by tile
    // collision (falling), by nothing (resting), and teleported between steps.
    let mut app = app(ascii("..........\n..........\n..........\n##########"));
    let pushed = [
        spawn(
            &mut app,
            Vec2::new(40.0, 24.0),
            Vec2::splat(6.0),
            Vec2::ZERO,
        ),
        spawn(
            &mut app,
            Vec2::new(46.0, 24.0),
            Vec2::splat(6.0),
            Vec2::ZERO,
        ),
    ];
    let platform = spawn_kinematic(
        &mut app,
        Vec2::new(120.0, 40.0),
        Vec2::new(16.0, 4.0),
        Vec2::new(30.0, 0.0),
    );
    let falling = spawn(
        &mut app,
        Vec2::new(100.0, 56.0),
        Vec2::splat(4.0),
        Vec2::ZERO,
    );
    let resting = spawn(
        &mut app,
        Vec2::new(140.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let bodies = [pushed[0], pushed[1], platform, falling, resting];
    let follows = |app: &App, e: Entity| {
        let t = app.world().get::<Transform>(e).unwrap().translation;
        t.truncate() == aabb(app, e).center
    };
    step(&mut app, 1);
    assert!(
        pos(&app, pushed[1]).x - pos(&app, pushed[0]).x >= 12.0 - 1e-3,
        "pushed apart"
    );
    for e in bodies {
        assert!(follows(&app, e), "{e}");
    }
    app.world_mut().get_mut::<Aabb>(resting).unwrap().center = Vec2::new(20.0, 22.0);
    for _ in 0..30 {
        step(&mut app, 1);
        for e in bodies {
            assert!(follows(&app, e), "{e}");
        }
    }
    assert_eq!(pos(&app, resting), Vec2::new(20.0, 22.0));
    assert_eq!(pos(&app, platform).x, 120.0 + 31.0 * 0.5);
}

#[test]
fn map_edits_take_effect_at_the_next_step() {
    let mut app = app(ascii("....\n....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 10);
    assert_eq!(pos(&app, body).y, 22.0);
    // Remove the floor under it: it falls out of the map.
    app.world_mut()
        .resource_mut::<TileMap>()
        .set(1, 0, TileKind::Empty);
    step(&mut app, 1);
    assert!(pos(&app, body).y < 22.0);
    // A solid tile placed in a moving body's way stops it.
    let mut app = app_without_gravity(ascii("........\n........"));
    let body = spawn(
        &mut app,
        Vec2::new(8.0, 8.0),
        Vec2::splat(6.0),
        Vec2::new(120.0, 0.0),
    );
    step(&mut app, 2);
    app.world_mut()
        .resource_mut::<TileMap>()
        .set(4, 0, TileKind::Solid);
    step(&mut app, 60);
    assert_eq!(pos(&app, body).x, 64.0 - 6.0);
}

#[test]
fn config_changes_take_effect_at_the_next_step_for_a_body_at_rest() {
    // A still body 14 units deep in the top row of a block: with a push limit of 8 it stays
    // put, its input the same at every step (so its last tile collision is reused); raising
    // the limit frees it at the next step, through the open top.
    let mut app = app_without_gravity(ascii("....\n####\n####\n####"));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .max_depenetration = 8.0;
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 40.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 10);
    assert_eq!(pos(&app, body), Vec2::new(24.0, 40.0));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .max_depenetration = 64.0;
    step(&mut app, 1);
    assert_eq!(pos(&app, body), Vec2::new(24.0, 54.0));
}

#[test]
fn a_tile_placed_on_a_body_pushes_it_out_without_adding_velocity() {
    // Walls left and right of column 1, so the new tile's only open face is its top.
    let mut app = app(ascii("....\n#.#.\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 5);
    // The tile at (1, 1) covers the body: out through the open top, 16 units up.
    app.world_mut()
        .resource_mut::<TileMap>()
        .set(1, 1, TileKind::Solid);
    step(&mut app, 1);
    assert_eq!(pos(&app, body).y, 38.0);
    assert_eq!(vel(&app, body), Vec2::ZERO, "no energy added");
}

#[test]
fn kinematic_bodies_move_only_by_their_velocity() {
    let mut app = app(ascii("........\n...#....\n########"));
    let body = spawn_kinematic(
        &mut app,
        Vec2::new(8.0, 24.0),
        Vec2::splat(4.0),
        Vec2::new(60.0, 0.0),
    );
    step(&mut app, 60);
    assert_eq!(
        vel(&app, body),
        Vec2::new(60.0, 0.0),
        "no gravity, no tile contact"
    );
    assert!(
        (pos(&app, body) - Vec2::new(68.0, 24.0)).length() < 1e-3,
        "through the wall"
    );
}

#[test]
fn world_collision_switch_off_passes_through_tiles_but_falls() {
    let mut app = app(ascii("....\n....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 40.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    switches(&mut app, body).world_collision = false;
    step(&mut app, 60);
    assert!(pos(&app, body).y < -100.0);
    assert!(!flags(&app, body).on_ground());
}

#[test]
fn gravity_switch_off_floats() {
    let mut app = app(ascii("....\n....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 40.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    switches(&mut app, body).gravity = false;
    step(&mut app, 60);
    assert_eq!(pos(&app, body), Vec2::new(24.0, 40.0));
}

#[test]
fn max_fall_speed_caps_gravity() {
    let mut app = app(empty_map(0, 0));
    let body = spawn(&mut app, Vec2::ZERO, Vec2::ONE, Vec2::ZERO);
    step(&mut app, 300);
    assert_eq!(vel(&app, body).y, -PhysicsConfig::default().max_fall_speed);
}

#[test]
fn ground_friction_slows_a_sliding_body_and_the_switch_disables_it() {
    let mut app = app(ascii(
        "..........................................\n##########################################",
    ));
    let rough = spawn(
        &mut app,
        Vec2::new(40.0, 22.0),
        Vec2::splat(6.0),
        Vec2::new(200.0, 0.0),
    );
    // Far from the rough one, so they never meet.
    let smooth = spawn_frictionless(
        &mut app,
        Vec2::new(400.0, 22.0),
        Vec2::splat(6.0),
        Vec2::new(200.0, 0.0),
    );
    step(&mut app, 60);
    let k = PhysicsConfig::default().ground_friction;
    let expected = 200.0 * (-k * DT).exp().powi(60);
    assert!(
        (vel(&app, rough).x - expected).abs() < 1e-2,
        "{} vs {expected}",
        vel(&app, rough).x
    );
    assert_eq!(vel(&app, smooth).x, 200.0);
}

#[test]
fn push_flags_report_walls_touched_without_moving() {
    let mut app = app(ascii("#..#\n#..#\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(32.0, 24.0),
        Vec2::new(16.0, 8.0),
        Vec2::ZERO,
    );
    step(&mut app, 2);
    let f = flags(&app, body);
    assert!(f.pushes_tile(Side::Left) && f.pushes_tile(Side::Right) && f.pushes_tile(Side::Bottom));
    assert!(!f.pushes(Side::Top));
    assert!(f.pushed_tile(Side::Left), "last step too");
}
