//! Snapshots of the physics state (`PhysicsSnapshot`): a restore needs the snapshot's bodies.
//! (That a restored world steps as the original did, bit for bit, is the property test in
//! `src/reference/differential.rs`.)

use bevy::prelude::*;
use bevy_platformer_physics::rollback::{PhysicsSnapshot, RestoreError};

use crate::common::*;

#[test]
fn a_restore_fails_and_changes_nothing_when_the_bodies_are_not_the_snapshots() {
    let mut app = app(floor_room());
    let kept = spawn(
        &mut app,
        Vec2::new(100.0, 60.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let gone = spawn(
        &mut app,
        Vec2::new(200.0, 60.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let both = PhysicsSnapshot::take(app.world_mut());
    assert_eq!(both.bodies(), 2);
    step(&mut app, 10);
    let fallen = pos(&app, kept);
    app.world_mut().despawn(gone);
    assert_eq!(
        both.restore(app.world_mut()),
        Err(RestoreError::Missing(gone))
    );
    assert_eq!(pos(&app, kept), fallen, "nothing restored");
    // A body the snapshot does not know.
    let one = PhysicsSnapshot::take(app.world_mut());
    step(&mut app, 10);
    let newer = spawn(
        &mut app,
        Vec2::new(300.0, 60.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    assert_eq!(
        one.restore(app.world_mut()),
        Err(RestoreError::Unknown(newer))
    );
    app.world_mut().despawn(newer);
    assert_eq!(one.restore(app.world_mut()), Ok(()));
    assert_eq!(pos(&app, kept), fallen, "back where it was saved");
}
