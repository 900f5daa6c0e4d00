//! What every engine's app shares: the same task pools, one fixed step per update, 60 Hz.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::StaticTransformOptimizations;

use crate::scene::DT;

/// MinimalPlugins + TransformPlugin with every core in the compute pool (Bevy's default leaves
/// one compute thread on a two-core machine), one fixed step per `App::update`.
///
/// Bevy's static-scene optimization of `Transform` propagation is off, as Bevy's documentation
/// of [`StaticTransformOptimizations`] advises for very dynamic scenes: every body of the pile
/// moves every step, so tracking unchanged trees only adds work. The same for every engine.
pub fn base_app() -> App {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools = TaskPoolOptions {
        compute: TaskPoolThreadAssignmentPolicy {
            min_threads: cores,
            max_threads: cores,
            percent: 1.0,
            on_thread_spawn: None,
            on_thread_destroy: None,
        },
        ..default()
    };
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: pools,
        }),
        TransformPlugin,
    ))
    .insert_resource(StaticTransformOptimizations::Disabled)
    .insert_resource(Time::<Fixed>::from_seconds(DT as f64))
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

/// Counts fixed steps for the platforms' swing.
#[derive(Resource, Default)]
pub struct StepCount(pub u32);

pub fn count_steps(mut count: ResMut<StepCount>) {
    count.0 += 1;
}
