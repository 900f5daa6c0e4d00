//! What every engine's app shares: the same task pools, one fixed step per update, 60 Hz, and
//! the clock around the fixed schedule.

use std::time::{Duration, Instant};

use bevy::app::{
    RunFixedMainLoop, RunFixedMainLoopSystems, TaskPoolOptions, TaskPoolPlugin,
    TaskPoolThreadAssignmentPolicy,
};
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
///
/// [`StepClock`] times each run of the fixed schedule (`FixedMain`), where every engine here
/// does all of its work.
pub fn base_app() -> App {
    base_app_with(Pools::EveryCore)
}

/// The task pools an app runs with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pools {
    /// Every core in the compute pool (what every engine gets in the comparison).
    EveryCore,
    /// Bevy's default `TaskPoolOptions` (on two cores: one compute thread).
    BevyDefault,
}

/// [`base_app`] with the given task pools.
pub fn base_app_with(pools: Pools) -> App {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools = match pools {
        Pools::EveryCore => TaskPoolOptions {
            compute: TaskPoolThreadAssignmentPolicy {
                min_threads: cores,
                max_threads: cores,
                percent: 1.0,
                on_thread_spawn: None,
                on_thread_destroy: None,
            },
            ..default()
        },
        Pools::BevyDefault => TaskPoolOptions::default(),
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
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
    .init_resource::<StepClock>()
    .add_systems(
        RunFixedMainLoop,
        (
            start_step_clock
                .after(RunFixedMainLoopSystems::BeforeFixedMainLoop)
                .before(RunFixedMainLoopSystems::FixedMainLoop),
            stop_step_clock
                .after(RunFixedMainLoopSystems::FixedMainLoop)
                .before(RunFixedMainLoopSystems::AfterFixedMainLoop),
        ),
    );
    app
}

/// How long the fixed schedule took in the last `App::update`: the step `BENCH_SCENE.md` times
/// ("everything the engine does in its fixed schedule"). It is read from the clock before and
/// after the fixed main loop (Bevy's `run_fixed_main_schedule`, which runs `FixedMain` once per
/// update here), by exclusive systems, which run on the main thread right before and after it
/// without a task of their own.
#[derive(Resource, Default)]
pub struct StepClock {
    started: Option<Instant>,
    /// The last update's fixed-schedule time.
    pub last: Duration,
}

fn start_step_clock(world: &mut World) {
    world.resource_mut::<StepClock>().started = Some(Instant::now());
}

fn stop_step_clock(world: &mut World) {
    let mut clock = world.resource_mut::<StepClock>();
    if let Some(started) = clock.started.take() {
        clock.last = started.elapsed();
    }
}

/// Counts fixed steps for the platforms' swing.
#[derive(Resource, Default)]
pub struct StepCount(pub u32);

pub fn count_steps(mut count: ResMut<StepCount>) {
    count.0 += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sleep_ms(ms: u64) -> impl Fn() {
        move || std::thread::sleep(Duration::from_millis(ms))
    }

    /// The clock counts what runs in the fixed schedules and nothing that runs around them.
    #[test]
    fn the_step_clock_times_the_fixed_schedule_only() {
        let mut app = base_app();
        app.add_systems(FixedFirst, sleep_ms(3))
            .add_systems(FixedUpdate, sleep_ms(5))
            .add_systems(FixedLast, sleep_ms(2))
            .add_systems(First, sleep_ms(20))
            .add_systems(Update, sleep_ms(20))
            .add_systems(PostUpdate, sleep_ms(20));
        app.finish();
        app.cleanup();
        // The first update starts the clock and runs no fixed step.
        app.update();
        for _ in 0..3 {
            app.update();
            let step = app.world().resource::<StepClock>().last;
            assert!(
                step >= Duration::from_millis(10) && step < Duration::from_millis(30),
                "one fixed step (10 ms of sleep), none of the 60 ms around it: {step:?}"
            );
        }
    }
}
