//! Bad input never panics: NaN or infinite velocity or size, zero or negative size, a body far
//! outside the map. Each gets one warning and a documented outcome; other bodies are unaffected.
//! The same with relaxation on ([`PhysicsConfig::relaxation_passes`]).

use bevy::prelude::*;

use crate::common::*;

fn level() -> TileMap {
    ascii("..........\n..........\n..........\n##########")
}

/// Relaxation off (the default), and on.
const PASSES: [u32; 2] = [0, 4];

/// Runs 60 steps of the level with a well-behaved body, plus `bad` (spawned by the closure),
/// with `passes` relaxation passes, and returns: the good body's final position, the bad body's
/// entity, the app, the warnings.
fn run_with(passes: u32, bad: impl FnOnce(&mut App) -> Entity) -> (Vec2, Entity, App, usize) {
    let ((good, bad, app), warnings) = count_warnings(|| {
        let mut app = relaxed_app(level(), passes);
        let good = spawn(
            &mut app,
            Vec2::new(24.0, 50.0),
            Vec2::splat(6.0),
            Vec2::new(30.0, 0.0),
        );
        let bad = bad(&mut app);
        step(&mut app, 60);
        (pos(&app, good), bad, app)
    });
    (good, bad, app, warnings)
}

/// Where the good body ends when it is alone.
fn reference(passes: u32) -> Vec2 {
    run_with(passes, |app| app.world_mut().spawn_empty().id()).0
}

/// A body resting on the floor given the velocity `v` (not finite) gets one warning, its
/// velocity is reset to zero and it stays where it is; the good body is not affected.
fn bad_velocity_is_reset_to_zero_with_one_warning(v: Vec2) {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let start = Vec2::new(100.0, 22.0);
        let (good, bad, app, warnings) =
            run_with(passes, |app| spawn(app, start, Vec2::splat(6.0), v));
        assert_eq!(warnings, 1);
        assert_eq!(good, reference(passes));
        assert!(vel(&app, bad).is_finite());
        assert_eq!(pos(&app, bad), start, "reset to rest on the floor");
    }
}

#[test]
fn nan_velocity_is_reset_to_zero_with_one_warning() {
    bad_velocity_is_reset_to_zero_with_one_warning(Vec2::new(f32::NAN, 1.0));
}

#[test]
fn infinite_velocity_is_reset_to_zero_with_one_warning() {
    bad_velocity_is_reset_to_zero_with_one_warning(Vec2::new(0.0, f32::NEG_INFINITY));
}

#[test]
fn invalid_sizes_are_left_out_with_one_warning_each() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        for half in [
            Vec2::new(f32::NAN, 6.0),
            Vec2::new(6.0, f32::INFINITY),
            Vec2::new(-6.0, 6.0),
            Vec2::new(6.0, 0.0),
            Vec2::ZERO,
        ] {
            let start = Vec2::new(100.0, 40.0);
            let (good, bad, app, warnings) =
                run_with(passes, |app| spawn(app, start, half, Vec2::new(10.0, 0.0)));
            assert_eq!(warnings, 1, "half {half}");
            assert_eq!(good, reference(passes), "half {half}");
            assert_eq!(pos(&app, bad), start, "half {half}: not simulated");
        }
    }
}

#[test]
fn nan_position_is_left_out_with_one_warning() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let (good, _, _, warnings) = run_with(passes, |app| {
            spawn(app, Vec2::new(f32::NAN, 3.0), Vec2::splat(6.0), Vec2::ZERO)
        });
        assert_eq!(warnings, 1);
        assert_eq!(good, reference(passes));
    }
}

#[test]
fn a_fixed_body_is_simulated_again() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let (_, bad, mut app, _) = run_with(passes, |app| {
            spawn(app, Vec2::new(100.0, 40.0), Vec2::ZERO, Vec2::ZERO)
        });
        app.world_mut().get_mut::<Aabb>(bad).unwrap().half_extents = Vec2::splat(6.0);
        step(&mut app, 60);
        assert_eq!(pos(&app, bad).y, 22.0, "fell onto the floor once valid");
    }
}

#[test]
fn body_far_outside_the_map_warns_once_and_falls_freely() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let start = Vec2::new(1.0e6, -1.0e6);
        let (good, bad, app, warnings) = run_with(passes, |app| {
            spawn(app, start, Vec2::splat(6.0), Vec2::ZERO)
        });
        assert_eq!(warnings, 1);
        assert_eq!(good, reference(passes));
        let p = pos(&app, bad);
        assert_eq!(p.x, start.x);
        assert!(p.y < start.y - 100.0, "fell under gravity: {p}");
    }
}

#[test]
fn huge_finite_velocity_is_stopped_by_the_wall() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let (good, bad, app, warnings) = run_with(passes, |app| {
            spawn(
                app,
                Vec2::new(100.0, 30.0),
                Vec2::splat(6.0),
                Vec2::new(0.0, -1.0e30),
            )
        });
        assert_eq!(warnings, 0);
        assert_eq!(good, reference(passes));
        assert_eq!(pos(&app, bad), Vec2::new(100.0, 22.0));
    }
}

#[test]
fn a_body_left_out_takes_no_part_in_pair_detection_until_fixed() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let mut app = relaxed_app(level(), passes);
        let half = Vec2::splat(6.0);
        // Two bodies side by side on the floor, and between them in spawn order (so in the row
        // order pair detection reads) an invalid one at the same place.
        let left = spawn(&mut app, Vec2::new(100.0, 22.0), half, Vec2::ZERO);
        let broken = spawn(&mut app, Vec2::new(106.0, 22.0), Vec2::ZERO, Vec2::ZERO);
        let right = spawn(&mut app, Vec2::new(112.0, 22.0), half, Vec2::ZERO);
        step(&mut app, 1);
        let others =
            |app: &App, e| -> Vec<Entity> { contacts(app, e).iter().map(|c| c.other).collect() };
        assert_eq!(others(&app, left), [right]);
        assert_eq!(others(&app, right), [left]);
        assert!(contacts(&app, broken).is_empty());
        let stats = *app.world().resource::<PhysicsStats>();
        assert_eq!((stats.bodies, stats.pairs_found), (2, 1), "{stats:?}");
        // Given a size, it is detected again, against both.
        app.world_mut()
            .get_mut::<Aabb>(broken)
            .unwrap()
            .half_extents = half;
        step(&mut app, 1);
        let stats = *app.world().resource::<PhysicsStats>();
        assert_eq!(stats.bodies, 3, "{stats:?}");
        let mut found = others(&app, broken);
        found.sort();
        let mut both = vec![left, right];
        both.sort();
        assert_eq!(found, both);
    }
}

/// Bodies at the edge of the float range, or far out with huge finite sizes, meet nobody near
/// the origin: a body walking on the floor there keeps walking, with no contact.
#[test]
fn bodies_at_the_edge_of_the_float_range_do_not_meet_bodies_near_the_origin() {
    for passes in PASSES {
        eprintln!("{passes} relaxation passes");
        let far = [
            (Vec2::splat(f32::MAX), Vec2::splat(6.0)),
            (Vec2::new(f32::MAX, 22.0), Vec2::splat(6.0)),
            (Vec2::splat(-f32::MAX), Vec2::splat(6.0)),
            (Vec2::splat(f32::MAX), Vec2::splat(1e38)),
            (Vec2::new(3e38, 22.0), Vec2::new(1e38, 6.0)),
        ];
        for (center, half) in far {
            let mut app = relaxed_app(level(), passes);
            let walker = spawn_frictionless(
                &mut app,
                Vec2::new(40.0, 22.0),
                Vec2::splat(6.0),
                Vec2::new(175.0, 0.0),
            );
            let other = spawn(&mut app, center, half, Vec2::ZERO);
            count_warnings(|| step(&mut app, 1));
            assert!(contacts(&app, walker).is_empty(), "{center} {half}");
            assert!(contacts(&app, other).is_empty(), "{center} {half}");
            assert_eq!(vel(&app, walker), Vec2::new(175.0, 0.0), "{center} {half}");
            assert!((pos(&app, walker).x - (40.0 + 175.0 * DT)).abs() < 1e-4);
        }
    }
}
