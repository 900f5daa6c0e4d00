//! Smooth drawing between fixed steps (`InterpolationPlugin`): a body is drawn between its last
//! two fixed-step positions by the overstep, and a teleported body where it is.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_platformer_physics::interpolation::{InterpolationPlugin, TranslationInterpolation};

use crate::common::*;

/// 16 ms fixed steps (a whole number of nanoseconds, so the overstep is exact).
const STEP: Duration = Duration::from_millis(16);

/// An app whose frames last what [`frame`] says, with a body moving right at 62.5 units a
/// second (1 unit a step), no gravity, in open air.
fn moving_body() -> (App, Entity) {
    let mut app = app_without_gravity(empty_map(40, 40));
    app.add_plugins(InterpolationPlugin)
        .insert_resource(Time::<Fixed>::from_duration(STEP));
    let body = app
        .world_mut()
        .spawn((
            Aabb::new(Vec2::new(100.0, 300.0), Vec2::splat(6.0)),
            Velocity(Vec2::new(62.5, 0.0)),
            TranslationInterpolation,
        ))
        .id();
    // What `App::run` does before the first frame (the easing plugin is added there).
    app.finish();
    app.cleanup();
    // Bevy's first frame lasts no time.
    frame(&mut app, Duration::ZERO);
    (app, body)
}

/// One frame of `length`: the fixed steps it completes, then the drawing.
fn frame(app: &mut App, length: Duration) {
    app.insert_resource(TimeUpdateStrategy::ManualDuration(length));
    app.update();
}

fn drawn(app: &App, body: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(body)
        .unwrap()
        .translation
        .truncate()
}

#[test]
fn a_body_is_drawn_between_its_last_two_steps_by_the_overstep() {
    let (mut app, body) = moving_body();
    frame(&mut app, STEP * 2);
    let end = pos(&app, body);
    assert_eq!(end, Vec2::new(102.0, 300.0), "two steps");
    // Overstep 0: where the step before the last left it (drawing is one step behind).
    assert_eq!(drawn(&app, body), Vec2::new(101.0, 300.0));
    // Half a step later: half way to the last step's position.
    frame(&mut app, STEP / 2);
    assert_eq!(drawn(&app, body), Vec2::new(101.5, 300.0));
    assert_eq!(
        pos(&app, body),
        end,
        "the physics' own position is untouched"
    );
    // Just short of the next step: almost there.
    frame(&mut app, STEP / 2 - Duration::from_micros(160));
    assert!(
        (drawn(&app, body).x - 101.99).abs() < 1e-4,
        "{}",
        drawn(&app, body)
    );
    // The next step: from the last step's position on.
    frame(&mut app, Duration::from_micros(160));
    assert_eq!(pos(&app, body), Vec2::new(103.0, 300.0));
    assert_eq!(drawn(&app, body), end);
}

#[test]
fn a_teleported_body_is_drawn_where_it_is_not_on_the_way() {
    let (mut app, body) = moving_body();
    frame(&mut app, STEP * 2);
    app.world_mut().get_mut::<Aabb>(body).unwrap().center = Vec2::new(400.0, 200.0);
    frame(&mut app, STEP + STEP / 2);
    assert_eq!(pos(&app, body), Vec2::new(401.0, 200.0));
    assert_eq!(
        drawn(&app, body),
        Vec2::new(401.0, 200.0),
        "where it is, not on the way from (102, 300)"
    );
    // From the next step on, it is eased again, from where it was teleported to.
    frame(&mut app, STEP);
    assert_eq!(drawn(&app, body), Vec2::new(401.5, 200.0));
}

#[test]
fn a_body_without_the_component_is_drawn_at_its_step() {
    let (mut app, body) = moving_body();
    app.world_mut()
        .entity_mut(body)
        .remove::<TranslationInterpolation>();
    frame(&mut app, STEP * 2 + STEP / 2);
    assert_eq!(drawn(&app, body), pos(&app, body));
}
