//! Manual stepping: one run of the physics schedule advances exactly one fixed timestep.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

use crate::common::*;

#[test]
fn run_schedule_advances_exactly_one_fixed_timestep() {
    let mut app = app_without_gravity(empty_map(0, 0));
    app.insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(20)));
    let body = spawn(&mut app, Vec2::ZERO, Vec2::ONE, Vec2::new(100.0, -50.0));
    app.world_mut().run_schedule(FixedUpdate);
    assert_eq!(pos(&app, body), Vec2::new(2.0, -1.0));
    app.world_mut().run_schedule(FixedUpdate);
    assert_eq!(pos(&app, body), Vec2::new(4.0, -2.0));
    assert_eq!(
        app.world().get::<OldPosition>(body).unwrap().0,
        Vec2::new(2.0, -1.0)
    );
}

#[test]
fn gravity_uses_the_fixed_timestep() {
    let mut app = app(empty_map(0, 0));
    app.insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(20)));
    let body = spawn(&mut app, Vec2::ZERO, Vec2::ONE, Vec2::ZERO);
    app.world_mut().run_schedule(FixedUpdate);
    assert!((vel(&app, body).y - (-980.0 * 0.02)).abs() < 1e-4);
}

#[test]
fn app_update_runs_the_requested_number_of_fixed_steps() {
    let mut app = app_without_gravity(empty_map(0, 0));
    app.insert_resource(TimeUpdateStrategy::FixedTimesteps(3));
    let body = spawn(&mut app, Vec2::ZERO, Vec2::ONE, Vec2::new(60.0, 0.0));
    app.update(); // the first update only starts the clock
    let after_first = pos(&app, body).x;
    app.update();
    let moved = pos(&app, body).x - after_first;
    assert!(
        (moved - 3.0).abs() < 1e-4,
        "three steps of one unit: {moved}"
    );
}

#[test]
fn physics_can_run_in_another_schedule() {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), PhysicsPlugin::new(FixedPostUpdate)))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(10)));
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::ZERO;
    let body = spawn(&mut app, Vec2::ZERO, Vec2::ONE, Vec2::new(100.0, 0.0));
    // Nothing was added to FixedUpdate, so the schedule does not even exist.
    assert!(app.world_mut().try_run_schedule(FixedUpdate).is_err());
    assert_eq!(pos(&app, body).x, 0.0);
    app.world_mut().run_schedule(FixedPostUpdate);
    assert_eq!(pos(&app, body).x, 1.0);
}
