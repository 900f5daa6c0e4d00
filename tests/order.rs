//! The outcome does not depend on the order bodies were spawned in, or on when a component
//! was inserted: a body pushing into a kinematic platform with a resting body in the way stops
//! at the platform's face whichever contact it meets first.

use bevy::prelude::*;

use crate::common::*;

/// How the three bodies of [`push_into_platform`] come to be.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// The resting body, then the platform, then the mover.
    RestingFirst,
    /// The platform, then the resting body, then the mover.
    PlatformFirst,
    /// As `RestingFirst`, but the platform gets `Kinematic` after all three were spawned.
    KinematicInsertedLater,
}

/// Empty map, no gravity. A still 10 x 10 body resting on the top of a still kinematic
/// platform (96 x 8, left face at x = 272); a 12 x 12 body from the left whose velocity is set
/// to (200, 0) before every step. Returns, for each of 60 steps, the mover's centre, the
/// resting body's centre, and whether the mover pushed on its left and right at once.
fn push_into_platform(order: Order) -> Vec<(Vec2, Vec2, bool)> {
    let mut app = app_without_gravity(empty_map(64, 32));
    let resting_at = Vec2::new(280.0, 109.0);
    let platform = (Vec2::new(320.0, 100.0), Vec2::new(48.0, 4.0));
    let (resting, platform) = match order {
        Order::RestingFirst | Order::KinematicInsertedLater => {
            let r = spawn(&mut app, resting_at, Vec2::splat(5.0), Vec2::ZERO);
            let p = if matches!(order, Order::RestingFirst) {
                spawn_kinematic(&mut app, platform.0, platform.1, Vec2::ZERO)
            } else {
                spawn(&mut app, platform.0, platform.1, Vec2::ZERO)
            };
            (r, p)
        }
        Order::PlatformFirst => {
            let p = spawn_kinematic(&mut app, platform.0, platform.1, Vec2::ZERO);
            (spawn(&mut app, resting_at, Vec2::splat(5.0), Vec2::ZERO), p)
        }
    };
    let mover = spawn(
        &mut app,
        Vec2::new(250.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    if matches!(order, Order::KinematicInsertedLater) {
        app.world_mut().entity_mut(platform).insert(Kinematic);
    }
    (0..60)
        .map(|_| {
            set_vel(&mut app, mover, Vec2::new(200.0, 0.0));
            step(&mut app, 1);
            let f = flags(&app, mover);
            let both = f.pushes_object(Side::Left) && f.pushes_object(Side::Right);
            (pos(&app, mover), pos(&app, resting), both)
        })
        .collect()
}

#[test]
fn a_body_pushing_into_a_kinematic_platform_stops_at_its_face_in_any_spawn_order() {
    let runs = [
        Order::RestingFirst,
        Order::PlatformFirst,
        Order::KinematicInsertedLater,
    ]
    .map(|order| (order, push_into_platform(order)));
    for (order, run) in &runs {
        for (n, &(mover, resting, both_sides)) in run.iter().enumerate() {
            assert!(!both_sides, "{order:?} step {n}: pushed from both sides");
            assert!(
                mover.x <= 266.0 + 1e-3,
                "{order:?} step {n}: {mover} past the face"
            );
            assert_eq!(mover.y, 100.0, "{order:?} step {n}: pushed off its line");
            assert_eq!(
                resting,
                Vec2::new(280.0, 109.0),
                "{order:?} step {n}: shoved"
            );
        }
        // It reached the face (272 - 6) and stays there.
        for &(mover, _, _) in &run[10..] {
            assert!((mover.x - 266.0).abs() < 1e-3, "{order:?}: {mover}");
        }
    }
    // The same outcome, bit for bit, whatever the order.
    assert_eq!(runs[0].1, runs[1].1);
    assert_eq!(runs[0].1, runs[2].1);
}
