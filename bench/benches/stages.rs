//! Criterion benchmarks of each stage of the physics step, and of the whole step, on the
//! "pile" scene at 10 000 bodies. Full steps always run (so every stage sees a realistic
//! state); each benchmark reports the time of its own stage, as the plugin's
//! `StageTimingPlugin` clocks it between the chained sets.
//!
//! ```sh
//! cargo bench -p pile-bench
//! ```

use std::time::Duration;

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::timing::{StageTimingPlugin, StageTimings};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../src/scene.rs"]
#[allow(dead_code, reason = "the benches use only the scene builder")]
mod scene;

fn pile_app(n: usize) -> App {
    let s = scene::Scene::pile(n);
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        PhysicsPlugin::default(),
        StageTimingPlugin::default(),
    ))
    .insert_resource(PhysicsConfig {
        partition_cell_tiles: 4,
        ..default()
    });
    app.insert_resource(s.tile_map());
    app.insert_resource(Time::<Fixed>::from_seconds(scene::DT as f64));
    for b in &s.bodies {
        app.world_mut()
            .spawn((Aabb::new(b.center, b.half), Velocity(Vec2::new(b.vx, 0.0))));
    }
    for &p in &s.platforms {
        app.world_mut().spawn((
            Kinematic,
            Aabb::new(p, scene::PLATFORM_HALF),
            Velocity(Vec2::new(scene::PLATFORM_SPEED, 0.0)),
        ));
    }
    app.finish();
    app.cleanup();
    for _ in 0..120 {
        app.world_mut().run_schedule(FixedUpdate);
    }
    app
}

/// The stages `from..to` (indices into `timing::STAGES`) of the step just run.
fn span(app: &App, from: usize, to: usize) -> Duration {
    app.world().resource::<StageTimings>().last[from..to]
        .iter()
        .sum()
}

fn stages(c: &mut Criterion) {
    let mut app = pile_app(10_000);
    let mut group = c.benchmark_group("pile_10k");
    for (name, from, to) in [
        ("integrate", 0, 1),
        ("tile_collision", 1, 2),
        ("partition_update", 2, 3),
        ("pair_detection", 3, 4),
        ("response", 4, 5),
        // Through the sensors stage, the last.
        ("whole_step", 0, 6),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    app.world_mut().run_schedule(FixedUpdate);
                    total += span(&app, from, to);
                }
                total
            });
        });
    }
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
