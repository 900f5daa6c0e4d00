//! With Bevy's location tracking on (the `track_location` feature), `Ref::changed_by` names the
//! physics stage that last wrote a body's component, although the stages write whole table
//! columns and mark the change ticks themselves.

use bevy::prelude::*;

use crate::common::*;

/// The file that last changed `T` on `body`.
fn writer<T: Component>(app: &App, body: Entity) -> String {
    let entity = app.world().entity(body);
    let by = entity.get_ref::<T>().unwrap().changed_by();
    by.into_option().expect("tracking is on").file().to_string()
}

#[test]
fn each_component_names_the_stage_that_wrote_it_last() {
    let mut app = app(ascii("....\n....\n....\n####"));
    // Falling through the air, then landing on the floor.
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 40.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    set_vel(&mut app, body, Vec2::new(0.0, 10.0));
    assert!(
        writer::<Velocity>(&app, body).ends_with("common/mod.rs"),
        "the test's own write"
    );
    step(&mut app, 1);
    // Gravity changes the velocity in integrate; tile collision moves the box; the response
    // (the last stage to move a body) sets the Transform.
    let file = writer::<Velocity>(&app, body);
    assert!(file.ends_with("src/integrate.rs"), "{file}");
    let file = writer::<OldPosition>(&app, body);
    assert!(file.ends_with("src/integrate.rs"), "{file}");
    let file = writer::<Aabb>(&app, body);
    assert!(file.ends_with("src/tiles/system.rs"), "{file}");
    let file = writer::<Transform>(&app, body);
    assert!(file.ends_with("src/response.rs"), "{file}");
    // Landing: tile collision stops the fall and sets the flags, which the response marks
    // changed at the end of the step (it writes them last).
    let mut steps = 0;
    while !flags(&app, body).on_ground() {
        step(&mut app, 1);
        steps += 1;
        assert!(steps < 60, "lands");
    }
    let file = writer::<PushFlags>(&app, body);
    assert!(file.ends_with("src/response.rs"), "{file}");
    // The next step, integrate moves "pushes" into "pushed": the last change, since the body
    // then rests.
    step(&mut app, 1);
    assert!(flags(&app, body).was_on_ground());
    let file = writer::<PushFlags>(&app, body);
    assert!(file.ends_with("src/integrate.rs"), "{file}");
    step(&mut app, 5);
    let file = writer::<PushFlags>(&app, body);
    assert!(file.ends_with("src/integrate.rs"), "{file}");
}

#[test]
fn a_kinematic_body_names_integrate_and_the_write_back() {
    let mut app = app(ascii("....\n####"));
    let lift = spawn_kinematic(
        &mut app,
        Vec2::new(24.0, 40.0),
        Vec2::new(8.0, 2.0),
        Vec2::new(0.0, 5.0),
    );
    step(&mut app, 1);
    let file = writer::<Aabb>(&app, lift);
    assert!(file.ends_with("src/integrate.rs"), "{file}");
    let file = writer::<Transform>(&app, lift);
    assert!(file.ends_with("src/writeback.rs"), "{file}");
}
