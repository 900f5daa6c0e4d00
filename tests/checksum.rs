//! The per-step checksum (`PhysicsChecksumPlugin`): the same for the same run however it is
//! computed (threads, rest skipping), and different as soon as one body differs.

use bevy::prelude::*;
use bevy_platformer_physics::checksum::{PhysicsChecksum, PhysicsChecksumPlugin};

use crate::common::*;

/// 120 steps of 80 boxes falling into a room with a moving kinematic platform, with rest
/// skipping on or off and the parallel paths from `parallel_min` bodies; `nudge` is added to
/// the x velocity of box 40 at the start. The checksum after every step.
fn checksums(skip: bool, parallel_min: usize, nudge: f32) -> Vec<u64> {
    let mut app = app_skipping(floor_room(), skip);
    app.add_plugins(PhysicsChecksumPlugin::default());
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .parallel_min_bodies = parallel_min;
    spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 40.0),
        Vec2::new(30.0, 4.0),
        Vec2::new(40.0, 0.0),
    );
    let mut unit = unit_floats(7);
    for i in 0..80 {
        let at = Vec2::new(40.0 + 560.0 * unit(), 60.0 + 400.0 * unit());
        let v = Vec2::new(if i == 40 { nudge } else { 0.0 }, 0.0);
        spawn(&mut app, at, Vec2::splat(4.0 + 6.0 * unit()), v);
    }
    (0..120)
        .map(|_| {
            step(&mut app, 1);
            app.world().resource::<PhysicsChecksum>().0
        })
        .collect()
}

#[test]
fn the_checksum_is_the_same_on_any_path_and_changes_with_the_state() {
    let base = checksums(true, 2048, 0.0);
    assert_ne!(base[0], 0);
    assert!(
        base.windows(2).filter(|w| w[0] != w[1]).count() > 100,
        "the bodies move, so the checksum changes"
    );
    assert_eq!(checksums(true, 2048, 0.0), base, "run again");
    assert_eq!(checksums(false, 2048, 0.0), base, "without rest skipping");
    assert_eq!(checksums(true, 1, 0.0), base, "on the parallel path");
    let nudged = checksums(true, 2048, 1e-3);
    assert_ne!(nudged[0], base[0], "one body a thousandth faster");
}
