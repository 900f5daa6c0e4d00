//! The workers inside apps: each app has its own, and it leaves the compute pool to the game's
//! systems between stages.

use core::time::Duration;
use std::sync::Barrier;
use std::sync::mpsc::channel;

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use super::Workers;
use crate::prelude::*;

/// A box of a 40 x 30 tile room filled with `n` falling bodies in a grid, every pass on the
/// workers (`parallel_min_bodies` 1).
fn crowded_app(n: usize) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(4),
    }))
    .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(
        1.0 / 60.0,
    )))
    .insert_resource(PhysicsConfig {
        parallel_min_bodies: 1,
        ..default()
    });
    let mut map = TileMap::new(40, 30, 16.0);
    for x in 0..40 {
        map.set(x, 0, TileKind::Solid);
    }
    for y in 0..30 {
        map.set(0, y, TileKind::Solid);
        map.set(39, y, TileKind::Solid);
    }
    app.insert_resource(map)
        .add_plugins(PhysicsPlugin::default());
    app.finish();
    app.cleanup();
    for k in 0..n {
        let (col, row) = ((k % 60) as f32, (k / 60) as f32);
        let center = Vec2::new(24.0 + col * 9.5, 24.0 + row * 9.0);
        let drift = Vec2::new(((k * 7) % 11) as f32 - 5.0, 0.0);
        app.world_mut()
            .spawn((Aabb::new(center, Vec2::splat(4.0)), Velocity(drift)));
    }
    app
}

/// Every body's box and velocity, as bits, in spawn order.
fn outcome(app: &mut App) -> Vec<[u32; 4]> {
    let world = app.world_mut();
    let mut bodies: Vec<(Entity, [u32; 4])> = world
        .query::<(Entity, &Aabb, &Velocity)>()
        .iter(world)
        .map(|(e, a, v)| {
            let bits = [a.center.x, a.center.y, v.x, v.y].map(f32::to_bits);
            (e, bits)
        })
        .collect();
    bodies.sort_unstable_by_key(|(e, _)| *e);
    bodies.into_iter().map(|(_, bits)| bits).collect()
}

/// `(passes its workers joined, passes refused to it)` in `app`.
fn crew_record(app: &App) -> (u64, u64) {
    let workers = app.world().resource::<Workers>().threads(true);
    let workers = workers.expect("the app has a workers (its compute pool has several threads)");
    (workers.passes_joined(), workers.passes_refused())
}

const BODIES: usize = 1_500;
const STEPS: usize = 90;

#[test]
fn two_apps_stepping_at_once_each_have_their_crew_and_the_outcome_of_one_alone() {
    let mut alone = crowded_app(BODIES);
    for _ in 0..STEPS {
        alone.world_mut().run_schedule(FixedUpdate);
    }
    let expected = outcome(&mut alone);
    drop(alone);
    let start = Barrier::new(2);
    let results: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut app = crowded_app(BODIES);
                    // Both step at the same time, from their own threads.
                    start.wait();
                    for _ in 0..STEPS {
                        app.world_mut().run_schedule(FixedUpdate);
                    }
                    (outcome(&mut app), crew_record(&app))
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    assert!(ComputeTaskPool::get().thread_num() > 1, "a real pool");
    for (app, (got, (joined, refused))) in results.into_iter().enumerate() {
        assert!(got == expected, "app {app} differs from one app alone");
        assert!(joined > 0, "app {app}: its workers took part in its passes");
        assert_eq!(
            refused, 0,
            "app {app}: no pass ran on one thread because another app held the workers"
        );
    }
}

#[test]
fn a_game_system_between_stages_gets_the_compute_pool() {
    let mut app = crowded_app(BODIES);
    // Between two stages, while the workers are on shift: a task spawned on the compute pool
    // must run on one of its threads while the system waits for it (it does not help).
    app.add_systems(
        FixedUpdate,
        (|| {
            let (sent, received) = channel();
            ComputeTaskPool::get()
                .spawn(async move {
                    let _ = sent.send(());
                })
                .detach();
            received
                .recv_timeout(Duration::from_secs(10))
                .expect("the pool ran the game's task while the physics stepped");
        })
        .after(PhysicsSystems::TileCollide)
        .before(PhysicsSystems::UpdatePartition),
    );
    // The workers joins a pass when its threads get there in time; on a machine busy with other
    // work that may take more than a few steps, so step until it has (at most 600 steps).
    let mut steps = 0;
    while steps < 30 || (crew_record(&app).0 == 0 && steps < 600) {
        app.world_mut().run_schedule(FixedUpdate);
        steps += 1;
    }
    let (joined, _) = crew_record(&app);
    assert!(
        joined > 0,
        "the workers were at work in the same steps ({steps} steps)"
    );
}
