//! How long each physics stage took: a clock read between the chained stages
//! ([`StageTimingPlugin`]; the debug panel shows it, and it works headless too).

use bevy::platform::time::Instant;
use std::collections::VecDeque;
use std::time::Duration;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

use crate::PhysicsSystems;

internal! {
/// The timed stages, in step order. `relax` is the part of [`PhysicsSystems::Respond`] that
/// relaxation takes ([`PhysicsConfig::relaxation_passes`](crate::PhysicsConfig)), next to
/// nothing when it is off; `respond` is the rest of that set.
pub const STAGES: [&str; N] = [
    "integrate",
    "tiles",
    "partition",
    "pairs",
    "respond",
    "relax",
    "sensors",
];
}

/// How many stages are timed.
pub(crate) const N: usize = 7;

/// The clock is read this many times a step: before each stage, after the last, and once more
/// because `respond` is read in two parts, before relaxation and after it.
const MARKS: usize = N + 2;

/// The last reading of the clock in a step.
pub(crate) const LAST_MARK: usize = MARKS - 1;

/// How many steps the history keeps.
const HISTORY: usize = 240;

/// The duration of each stage of the last physics step, and of recent steps.
#[derive(Resource, Clone, Debug, Default)]
pub struct StageTimings {
    /// The last step, per stage, in step order (named by [`by_stage`](Self::by_stage)).
    pub last: [Duration; N],
    /// Recent steps, oldest first, per stage in milliseconds.
    pub history: VecDeque<[f32; N]>,
    marks: [Option<Instant>; MARKS],
}

impl StageTimings {
    /// The last step's total.
    pub fn total(&self) -> Duration {
        self.last.iter().sum()
    }

    /// The last step's stages, in step order, each with its name: `integrate`, `tiles`,
    /// `partition`, `pairs`, `respond` and `relax` (the part of [`PhysicsSystems::Respond`]
    /// that relaxation takes, next to nothing when it is off), `sensors`.
    pub fn by_stage(&self) -> impl Iterator<Item = (&'static str, Duration)> + '_ {
        STAGES.into_iter().zip(self.last)
    }
}

pub(crate) fn mark<const I: usize>(mut timings: ResMut<StageTimings>) {
    timings.marks[I] = Some(Instant::now());
    if I == LAST_MARK {
        let marks = timings.marks;
        let between = |i: usize| match (marks[i], marks[i + 1]) {
            (Some(a), Some(b)) => b.saturating_duration_since(a),
            _ => Duration::ZERO,
        };
        // Readings 4 to 7: the response, relaxation, the rest of the response (see `build`).
        let last = [
            between(0),
            between(1),
            between(2),
            between(3),
            between(4) + between(6),
            between(5),
            between(7),
        ];
        timings.last = last;
        if timings.history.len() == HISTORY {
            timings.history.pop_front();
        }
        timings
            .history
            .push_back(last.map(|d| d.as_secs_f32() * 1000.0));
        timings.marks = [None; MARKS];
    }
}

/// Reads the clock between the [`PhysicsSystems`] stages and keeps the result in
/// [`StageTimings`]. The debug panel adds it; add it yourself to time the physics headless.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
/// use bevy_platformer_physics::timing::{StageTimingPlugin, StageTimings};
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, PhysicsPlugin::default(), StageTimingPlugin::default()));
/// app.world_mut().spawn(Aabb::new(Vec2::ZERO, Vec2::splat(4.0)));
/// app.world_mut().run_schedule(FixedUpdate);
/// let timings = app.world().resource::<StageTimings>();
/// assert_eq!(timings.history.len(), 1);
/// assert!(timings.total() > std::time::Duration::ZERO);
/// for (stage, time) in timings.by_stage() {
///     println!("{stage}: {time:?}");
/// }
/// assert_eq!(timings.by_stage().count(), timings.last.len());
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
    use crate::response::RespondSteps;
    use PhysicsSystems::*;
    app.init_resource::<StageTimings>().add_systems(
        schedule,
        (
            mark::<0>.before(Integrate),
            mark::<1>.after(Integrate).before(TileCollide),
            mark::<2>.after(TileCollide).before(UpdatePartition),
            mark::<3>.after(UpdatePartition).before(DetectPairs),
            mark::<4>.after(DetectPairs).before(Respond),
            mark::<5>
                .after(RespondSteps::Contacts)
                .before(RespondSteps::Relax),
            mark::<6>
                .after(RespondSteps::Relax)
                .before(RespondSteps::Finish),
            mark::<7>.after(Respond).before(Sense),
            mark::<8>.after(Sense),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::RespondSteps;
    use crate::{Aabb, PhysicsConfig, PhysicsPlugin, Velocity};

    /// Which readings of the clock the step had taken when relaxation ran, once per step.
    #[derive(Resource, Default)]
    struct Taken(Vec<[bool; MARKS]>);

    fn note_taken(timings: Res<StageTimings>, mut taken: ResMut<Taken>) {
        taken.0.push(timings.marks.map(|m| m.is_some()));
    }

    #[test]
    fn relaxation_is_timed_on_its_own_between_the_two_parts_of_the_response() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
            .add_plugins(StageTimingPlugin::default())
            .init_resource::<Taken>()
            .add_systems(FixedUpdate, note_taken.in_set(RespondSteps::Relax));
        app.world_mut()
            .resource_mut::<PhysicsConfig>()
            .relaxation_passes = 4;
        for y in [0.0, 6.0] {
            app.world_mut().spawn((
                Aabb::new(Vec2::new(0.0, y), Vec2::splat(4.0)),
                Velocity::default(),
            ));
        }
        for _ in 0..2 {
            app.world_mut().run_schedule(FixedUpdate);
        }
        // Before relaxation: the readings before each stage up to the response's, and the one
        // after the response's first part; the rest come after it.
        let before: [bool; MARKS] = core::array::from_fn(|i| i <= 5);
        assert_eq!(app.world().resource::<Taken>().0, [before, before]);
        let timings = app.world().resource::<StageTimings>();
        assert_eq!(timings.history.len(), 2);
        assert_eq!(STAGES[5], "relax");
        assert!(timings.last[5] > Duration::ZERO, "{:?}", timings.last);
    }
}
