//! Time travel: the last steps recorded as [`PhysicsSnapshot`]s, to go back to while paused.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use std::collections::VecDeque;

use crate::rollback::{PhysicsSnapshot, RestoreError};
use crate::schedule::PhysicsSystems;

/// The recent steps the panel can go back to: a snapshot after each step, as many as fit in
/// [`seconds`](Self::seconds) of steps and [`max_bytes`](Self::max_bytes) of memory (the
/// oldest go first). While the game is paused, [`go_to`](Self::go_to) asks for a recorded step
/// and the world is put back as it was after it (at the next frame); the panel's inspector
/// then shows any body as it was. The next step (resuming, or single-stepping) goes on from
/// the step shown, and the steps recorded after it are dropped.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::debug::{TimeTravel, TimeTravelPlugin};
/// use bevy_platformer_physics::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, PhysicsPlugin::default(), TimeTravelPlugin::default()))
///     .insert_resource(TileMap::from_ascii("#....#\n######", 16.0).unwrap());
/// let body = Aabb::new(Vec2::new(40.0, 40.0), Vec2::splat(6.0));
/// let falling = app.world_mut().spawn((body, Velocity::default())).id();
/// for _ in 0..10 {
///     app.world_mut().run_schedule(FixedUpdate);
/// }
/// let travel = app.world().resource::<TimeTravel>();
/// assert_eq!(travel.recorded(), 10);
/// // Back to the state after the third step.
/// app.world_mut().resource_mut::<TimeTravel>().go_to(2);
/// app.world_mut().run_schedule(Update);
/// assert_eq!(app.world().resource::<TimeTravel>().shown(), Some(2));
/// assert!(app.world().get::<Aabb>(falling).unwrap().center.y > 30.0);
/// ```
#[derive(Resource, Debug)]
pub struct TimeTravel {
    /// Record every step (default on).
    pub recording: bool,
    /// How far back to keep, in seconds of steps (default 5).
    pub seconds: f32,
    /// The most memory the recording may take, in bytes (default 64 MiB): a scene of many
    /// bodies keeps fewer steps.
    pub max_bytes: usize,
    steps: VecDeque<PhysicsSnapshot>,
    bytes: usize,
    /// The step the world shows, when it was put back to one.
    shown: Option<usize>,
    /// A step asked for and not yet shown.
    wanted: Option<usize>,
    /// Why the last step asked for could not be shown.
    failure: Option<RestoreError>,
}

impl Default for TimeTravel {
    fn default() -> Self {
        Self {
            recording: true,
            seconds: 5.0,
            max_bytes: 64 << 20,
            steps: VecDeque::new(),
            bytes: 0,
            shown: None,
            wanted: None,
            failure: None,
        }
    }
}

impl TimeTravel {
    /// How many steps are recorded (the oldest is 0, the last `recorded() - 1`).
    pub fn recorded(&self) -> usize {
        self.steps.len()
    }

    /// About how much memory the recorded steps take, in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The recorded step the world was put back to, if it was.
    pub fn shown(&self) -> Option<usize> {
        self.shown
    }

    /// Why the last step asked for could not be shown: the bodies then were not the bodies
    /// now (one was spawned or despawned since).
    pub fn failure(&self) -> Option<&RestoreError> {
        self.failure.as_ref()
    }

    /// Asks for the world as it was after recorded step `step` (clamped to those recorded),
    /// applied in the next `Update`.
    pub fn go_to(&mut self, step: usize) {
        self.wanted = Some(step.min(self.steps.len().saturating_sub(1)));
    }

    /// Forgets every recorded step.
    pub fn clear(&mut self) {
        self.steps.clear();
        self.bytes = 0;
        self.shown = None;
        self.wanted = None;
    }

    /// Records the state after a step of `dt` seconds: first dropping the steps after the
    /// one shown (the world went on from it), then the oldest ones beyond the limits.
    fn push(&mut self, snapshot: PhysicsSnapshot, dt: f32) {
        if let Some(shown) = self.shown.take() {
            for dropped in self.steps.drain(shown + 1..) {
                self.bytes -= dropped.size_bytes();
            }
        }
        self.wanted = None;
        self.bytes += snapshot.size_bytes();
        self.steps.push_back(snapshot);
        let most = ((self.seconds / dt).ceil() as usize).max(1);
        while self.steps.len() > most || (self.bytes > self.max_bytes && self.steps.len() > 1) {
            let oldest = self.steps.pop_front().expect("more than one step");
            self.bytes -= oldest.size_bytes();
        }
    }
}

/// Records the steps for [`TimeTravel`] (after each step, in the physics' schedule) and puts
/// the world back to the step asked for. [`DebugPlugin`](super::DebugPlugin) adds it.
pub struct TimeTravelPlugin {
    /// The physics' schedule (default `FixedUpdate`).
    pub schedule: InternedScheduleLabel,
}

impl Default for TimeTravelPlugin {
    fn default() -> Self {
        Self {
            schedule: FixedUpdate.intern(),
        }
    }
}

impl Plugin for TimeTravelPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TimeTravel>()
            .add_systems(self.schedule, record.after(PhysicsSystems::Sense))
            .add_systems(Update, show_wanted_step);
    }
}

fn record(world: &mut World) {
    if !world.resource::<TimeTravel>().recording {
        return;
    }
    let snapshot = PhysicsSnapshot::take(world);
    let dt = world.resource::<Time<Fixed>>().timestep().as_secs_f32();
    world.resource_mut::<TimeTravel>().push(snapshot, dt);
}

fn show_wanted_step(world: &mut World) {
    world.resource_scope(|world, mut travel: Mut<TimeTravel>| {
        let Some(step) = travel.wanted.take() else {
            return;
        };
        let Some(snapshot) = travel.steps.get(step) else {
            return;
        };
        match snapshot.restore(world) {
            Ok(()) => {
                travel.shown = Some(step);
                travel.failure = None;
            }
            Err(error) => travel.failure = Some(error),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    /// Every body's state, in entity order.
    fn states(world: &mut World) -> Vec<(Entity, Aabb, Velocity, PushFlags, BodyState)> {
        let mut q = world.query::<(Entity, &Aabb, &Velocity, &PushFlags, &BodyState)>();
        let mut all: Vec<_> = q
            .iter(world)
            .map(|(e, a, v, f, s)| (e, *a, *v, *f, *s))
            .collect();
        all.sort_by_key(|s| s.0);
        all
    }

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
            .add_plugins(TimeTravelPlugin::default())
            .insert_resource(
                TileMap::from_ascii(
                    "#..........#\n#..........#\n#..........#\n############",
                    16.0,
                )
                .unwrap(),
            );
        for i in 0..6 {
            let at = Vec2::new(24.0 + 14.0 * i as f32, 40.0 + 5.0 * i as f32);
            let v = Vec2::new(30.0 * (i as f32 - 2.5), 0.0);
            app.world_mut()
                .spawn((Aabb::new(at, Vec2::splat(6.0)), Velocity(v)));
        }
        app
    }

    fn step(app: &mut App) {
        app.world_mut().run_schedule(FixedUpdate);
    }

    #[test]
    fn going_back_shows_the_recorded_step_exactly_and_steps_on_as_the_first_time() {
        let mut app = app();
        let mut after = Vec::new();
        for _ in 0..40 {
            step(&mut app);
            after.push(states(app.world_mut()));
        }
        assert_eq!(app.world().resource::<TimeTravel>().recorded(), 40);
        // Anywhere back, in any order.
        for k in [12, 3, 39, 0, 25] {
            app.world_mut().resource_mut::<TimeTravel>().go_to(k);
            app.world_mut().run_schedule(Update);
            assert_eq!(app.world().resource::<TimeTravel>().shown(), Some(k));
            assert_eq!(
                states(app.world_mut()),
                after[k],
                "the state after step {k}"
            );
        }
        // Going on from step 25: the steps after it are dropped, and the next ones are the
        // first run's, bit for bit.
        for (k, first_time) in after.iter().enumerate().skip(26) {
            step(&mut app);
            assert_eq!(states(app.world_mut()), *first_time, "step {k} again");
        }
        let travel = app.world().resource::<TimeTravel>();
        assert_eq!(travel.recorded(), 40);
        assert_eq!(travel.shown(), None);
    }

    #[test]
    fn the_recording_keeps_its_seconds_and_its_memory() {
        let mut app = app();
        let dt = app
            .world()
            .resource::<Time<Fixed>>()
            .timestep()
            .as_secs_f32();
        app.world_mut().resource_mut::<TimeTravel>().seconds = 20.0 * dt;
        for _ in 0..50 {
            step(&mut app);
        }
        let travel = app.world().resource::<TimeTravel>();
        assert_eq!(travel.recorded(), 20);
        let per_step = travel.bytes() / 20;
        app.world_mut().resource_mut::<TimeTravel>().max_bytes = per_step * 7 + per_step / 2;
        step(&mut app);
        let travel = app.world().resource::<TimeTravel>();
        assert_eq!(travel.recorded(), 7);
        assert!(travel.bytes() <= travel.max_bytes);
    }

    #[test]
    fn a_step_before_a_spawn_cannot_be_shown_and_says_why() {
        let mut app = app();
        for _ in 0..5 {
            step(&mut app);
        }
        let late = (app.world_mut())
            .spawn((
                Aabb::new(Vec2::new(60.0, 40.0), Vec2::splat(4.0)),
                Velocity::default(),
            ))
            .id();
        let before = states(app.world_mut());
        app.world_mut().resource_mut::<TimeTravel>().go_to(2);
        app.world_mut().run_schedule(Update);
        let travel = app.world().resource::<TimeTravel>();
        assert_eq!(travel.failure(), Some(&RestoreError::Unknown(late)));
        assert_eq!(travel.shown(), None);
        assert_eq!(states(app.world_mut()), before, "nothing changed");
    }
}
