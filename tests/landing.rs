//! `Landed` fires once per landing, not on every step a body rests.

use bevy::prelude::*;

use crate::common::*;

#[test]
fn landed_fires_once_per_landing() {
    let mut app = app(ascii("....\n....\n....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 50.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 120);
    let landed = drain_landed(&mut app);
    assert_eq!(landed.len(), 1, "one landing, then resting: {landed:?}");
    assert_eq!(landed[0].entity, body);
    assert!(
        landed[0].velocity.y < -100.0,
        "impact velocity recorded: {:?}",
        landed[0]
    );

    // Jump; land again: exactly one more.
    set_vel(&mut app, body, Vec2::new(0.0, 300.0));
    step(&mut app, 120);
    assert_eq!(drain_landed(&mut app).len(), 1);
    step(&mut app, 60);
    assert!(drain_landed(&mut app).is_empty(), "resting writes nothing");
}

#[test]
fn a_body_spawned_on_the_ground_lands_once() {
    let mut app = app(ascii("....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 30);
    let landed = drain_landed(&mut app);
    assert_eq!(landed.len(), 1);
    assert_eq!(landed[0].entity, body);
}

#[test]
fn walking_off_a_ledge_and_landing_below_fires_again() {
    let mut app = app(ascii("......\n##....\n######"));
    let body = spawn_frictionless(&mut app, Vec2::new(8.0, 38.0), Vec2::splat(6.0), Vec2::ZERO);
    step(&mut app, 10);
    assert_eq!(drain_landed(&mut app).len(), 1);
    set_vel(&mut app, body, Vec2::new(120.0, 0.0));
    step(&mut app, 40);
    assert_eq!(drain_landed(&mut app).len(), 1, "landed on the lower floor");
    assert!(pos(&app, body).y < 30.0);
}
