//! How long each physics stage took: a clock read between the chained stages
//! ([`StageTimingPlugin`]; the debug panel shows it, and it works headless too).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

use crate::PhysicsSystems;

/// The timed stages, in step order.
pub const STAGES: [&str; N] = [
    "integrate",
    "tiles",
    "partition",
    "pairs",
    "respond",
    "sensors",
];

/// How many stages are timed.
pub(crate) const N: usize = 6;

/// How many steps the history keeps.
const HISTORY: usize = 240;

/// The duration of each stage of the last physics step, and of recent steps.
#[derive(Resource, Clone, Debug, Default)]
pub struct StageTimings {
    /// The last step, per stage (see [`STAGES`]).
    pub last: [Duration; N],
    /// Recent steps, oldest first, per stage in milliseconds.
    pub history: VecDeque<[f32; N]>,
    marks: [Option<Instant>; N + 1],
}

impl StageTimings {
    /// The last step's total.
    pub fn total(&self) -> Duration {
        self.last.iter().sum()
    }
}

pub(crate) fn mark<const I: usize>(mut timings: ResMut<StageTimings>) {
    timings.marks[I] = Some(Instant::now());
    if I == N {
        let marks = timings.marks;
        let mut last = [Duration::ZERO; N];
        for (i, d) in last.iter_mut().enumerate() {
            if let (Some(a), Some(b)) = (marks[i], marks[i + 1]) {
                *d = b.saturating_duration_since(a);
            }
        }
        timings.last = last;
        if timings.history.len() == HISTORY {
            timings.history.pop_front();
        }
        timings
            .history
            .push_back(last.map(|d| d.as_secs_f32() * 1000.0));
        timings.marks = [None; N + 1];
    }
}

/// Reads the clock between the [`PhysicsSystems`] stages and keeps the result in
/// [`StageTimings`]. The debug panel adds it; add it yourself to time the physics headless.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
/// use bevy_platformer_physics::timing::{STAGES, StageTimingPlugin, StageTimings};
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, PhysicsPlugin::default(), StageTimingPlugin::default()));
/// app.world_mut().spawn(Aabb::new(Vec2::ZERO, Vec2::splat(4.0)));
/// app.world_mut().run_schedule(FixedUpdate);
/// let timings = app.world().resource::<StageTimings>();
/// assert_eq!(timings.history.len(), 1);
/// assert!(timings.total() > std::time::Duration::ZERO);
/// for (stage, ms) in STAGES.iter().zip(timings.history[0]) {
///     println!("{stage}: {ms:.3} ms");
/// }
/// ```
pub struct StageTimingPlugin {
    /// The schedule the physics runs in; default `FixedUpdate`.
    pub schedule: InternedScheduleLabel,
}

impl Default for StageTimingPlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl StageTimingPlugin {
    /// Times the physics running in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for StageTimingPlugin {
    fn build(&self, app: &mut App) {
        build(app, self.schedule);
    }
}

fn build(app: &mut App, schedule: InternedScheduleLabel) {
    use PhysicsSystems::*;
    app.init_resource::<StageTimings>().add_systems(
        schedule,
        (
            mark::<0>.before(Integrate),
            mark::<1>.after(Integrate).before(TileCollide),
            mark::<2>.after(TileCollide).before(UpdatePartition),
            mark::<3>.after(UpdatePartition).before(DetectPairs),
            mark::<4>.after(DetectPairs).before(Respond),
            mark::<5>.after(Respond).before(Sense),
            mark::<6>.after(Sense),
        ),
    );
}
