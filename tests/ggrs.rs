//! bevy_ggrs (`GgrsPhysicsPlugin`): the versus game (crates, a moving platform, a one-way
//! lift, one-way tiles, a ladder, a sensor and two players) runs in GGRS's `SyncTestSession`,
//! which rolls back and re-simulates frames all the time and compares their checksums.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ggrs::prelude::*;
use bevy_ggrs::{LoadWorld, LocalInputs, RollbackFrameCount};
use bevy_platformer_physics::levels::LevelCrate;
use bevy_platformer_physics::prelude::*;
use core::time::Duration;

use crate::game;
use game::drive::Controls;
use game::{Player, VersusConfig, VersusPlugin, input_bits};

/// Frames GGRS goes back and re-simulates at every frame.
const CHECK_DISTANCE: usize = 7;

/// What the session found wrong, and how often it went back.
#[derive(Resource, Default)]
struct Report {
    mismatched: Vec<i32>,
    loads: usize,
}

/// The versus game headless with `session`, at one GGRS frame per `update` (when the session
/// lets it go on).
pub fn versus_app(session: Session<VersusConfig>) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, VersusPlugin))
        // A hair over a frame per update: one frame each time, never two.
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_nanos(
            1_000_000_000 / game::FPS as u64 + 1,
        )))
        .insert_resource(session);
    app
}

/// A sync test of both players on this machine, going back `check_distance` frames at every
/// frame.
pub fn sync_test(check_distance: usize) -> Session<VersusConfig> {
    let session = SessionBuilder::<VersusConfig>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(check_distance)
        .add_player(PlayerType::Local, 0)
        .unwrap()
        .add_player(PlayerType::Local, 1)
        .unwrap()
        .start_synctest_session()
        .unwrap();
    Session::SyncTest(session)
}

/// The versus game in a sync test on the scripted inputs, reporting mismatches and loads.
fn sync_test_app() -> App {
    let mut app = versus_app(sync_test(CHECK_DISTANCE));
    app.init_resource::<Report>()
        .add_systems(ReadInputs, scripted_inputs)
        .add_systems(LoadWorld, |mut report: ResMut<Report>| report.loads += 1)
        .add_observer(
            |mismatch: On<SyncTestMismatch>, mut report: ResMut<Report>| {
                report.mismatched.extend(&mismatch.mismatched_frames);
            },
        );
    app
}

/// Both players run, jump, climb and drop through on a fixed script (a new move every 23 or 31
/// frames): their input bits at `frame`.
pub fn scripted_bits(frame: i32) -> [u8; 2] {
    let moves = [
        Controls {
            x: 1.0,
            ..default()
        },
        Controls {
            x: 1.0,
            jump: true,
            ..default()
        },
        Controls {
            up: true,
            ..default()
        },
        Controls {
            x: -1.0,
            ..default()
        },
        Controls {
            down: true,
            ..default()
        },
        Controls {
            x: -1.0,
            jump: true,
            ..default()
        },
        Controls::default(),
    ];
    let at =
        |period: i32, offset: usize| moves[((frame / period) as usize * 3 + offset) % moves.len()];
    [input_bits(at(23, 0)), input_bits(at(31, 4))]
}

fn scripted_inputs(mut commands: Commands, frame: Res<RollbackFrameCount>) {
    let bits = scripted_bits(frame.0);
    let inputs = (0..2).map(|player| (player, bits[player])).collect();
    commands.insert_resource(LocalInputs::<VersusConfig>(inputs));
}

/// Runs GGRS up to frame `frames`, or as far as it goes in twice as many updates (it stops at
/// a mismatch).
fn run(app: &mut App, frames: i32) {
    for _ in 0..frames * 2 {
        if app.world().resource::<RollbackFrameCount>().0 >= frames {
            return;
        }
        app.update();
    }
}

fn positions<F: bevy::ecs::query::QueryFilter>(app: &mut App) -> Vec<Vec2> {
    let mut q = app.world_mut().query_filtered::<&Aabb, F>();
    q.iter(app.world()).map(|b| b.center).collect()
}

#[test]
fn the_versus_game_runs_600_frames_of_sync_test_without_a_mismatch() {
    let mut app = sync_test_app();
    app.update();
    let players_at_start = positions::<With<Player>>(&mut app);
    let crates_at_start = positions::<With<LevelCrate>>(&mut app);
    let mut farthest = [0.0f32; 2];
    for frames in (20..=600).step_by(20) {
        run(&mut app, frames);
        let players = positions::<With<Player>>(&mut app);
        for (far, (now, then)) in farthest
            .iter_mut()
            .zip(players.iter().zip(&players_at_start))
        {
            *far = far.max(now.distance(*then));
        }
    }
    let report = app.world().resource::<Report>();
    assert_eq!(report.mismatched, Vec::<i32>::new(), "checksums differ");
    assert_eq!(app.world().resource::<RollbackFrameCount>().0, 600);
    // From the frame after the first CHECK_DISTANCE on, every frame goes back.
    assert!(
        report.loads >= 600 - CHECK_DISTANCE - 1,
        "GGRS went back {} times",
        report.loads
    );
    // The scene did something worth re-simulating.
    println!("farthest from the start: {farthest:?}");
    assert!(farthest.iter().all(|&far| far > 48.0), "{farthest:?}");
    let crates = positions::<With<LevelCrate>>(&mut app);
    assert_ne!(crates, crates_at_start, "no crate moved");
}

#[test]
fn a_sync_test_finds_physics_state_that_is_not_rolled_back() {
    // A push that depends on a counter GGRS does not roll back: re-simulated frames differ.
    let mut app = sync_test_app();
    app.add_systems(
        GgrsSchedule,
        (|mut pushes: Local<u32>, mut players: Query<&mut Velocity, With<Player>>| {
            *pushes += 1;
            for mut v in &mut players {
                v.0.x += (*pushes % 5) as f32;
            }
        })
        .after(bevy_platformer_physics::levels::move_platforms)
        .before(PhysicsSystems::Integrate),
    );
    run(&mut app, 120);
    assert!(!app.world().resource::<Report>().mismatched.is_empty());
}

#[test]
fn a_crate_despawned_for_rollback_comes_back_when_a_rollback_goes_before_it() {
    // At frame 200 the first crate is despawned (bevy_ggrs keeps it, disabled, until the frame
    // is confirmed); every later frame GGRS goes back before some despawn-free frames and
    // forward again, and the re-simulations agree.
    let mut app = sync_test_app();
    app.add_systems(
        GgrsSchedule,
        (|mut commands: Commands,
          frame: Res<RollbackFrameCount>,
          crates: Query<Entity, With<LevelCrate>>| {
            if frame.0 == 200
                && let Some(first) = crates.iter().min()
            {
                commands.entity(first).despawn_rollback();
            }
        })
        .after(PhysicsSystems::Sense),
    );
    app.update();
    let crates = positions::<With<LevelCrate>>(&mut app).len();
    // Until its frame is confirmed it is kept, disabled, and out of the partition.
    run(&mut app, 203);
    assert_eq!(positions::<With<LevelCrate>>(&mut app).len(), crates - 1);
    assert_eq!(crate::common::verify_partition(&mut app), Ok(()));
    run(&mut app, 400);
    assert_eq!(app.world().resource::<RollbackFrameCount>().0, 400);
    let report = app.world().resource::<Report>();
    assert_eq!(report.mismatched, Vec::<i32>::new(), "checksums differ");
    assert_eq!(positions::<With<LevelCrate>>(&mut app).len(), crates - 1);
    assert_eq!(crate::common::verify_partition(&mut app), Ok(()));
}
