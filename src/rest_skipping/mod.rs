//! [`RestSkippingPlugin`]: the step leaves out the bodies it would not change.
//!
//! # Algorithm
//!
//! A body's step is a function of its own state and of its contacts. A body whose last step
//! ended exactly where it began, that nothing wrote to since, and none of whose partners (at
//! the last step or at this one) moves, would end this step where it begins again: the step
//! leaves it out (it is not integrated, collided with tiles, searched for pairs or responded
//! to) and keeps its contacts from the last step. This is not sleeping: the outcome is bit for
//! bit that of a step that processes every body, which is what the physics does without this
//! plugin.
//!
//! The plugin turns [`RestSkipping`] on; the stages read it. Without the plugin (or with the
//! resource turned off) every body is processed at every step. Where each part is: why it is
//! exact, and the memory it keeps per body to sort bodies into awake, active and at rest, in
//! `memory.rs`; the stages' pass over the bodies they move, resting ones left out, in
//! `moving.rs`.

use bevy::prelude::*;

pub(crate) mod memory;
pub(crate) mod moving;

/// Part of [`PhysicsPlugin`](crate::PhysicsPlugin): leaves out of the step the bodies it
/// would not change, with the same outcome, bit for bit, as without it. Leave it out to
/// measure what every body costs, or when a system writes bodies between the physics' stages
/// (a write there reaches a body the step left out only at the next step).
///
/// Bodies left out are not written, so `Changed<Aabb>` and `Changed<Velocity>` match only the
/// bodies that moved or were processed; any write to a body's `Aabb`, `Velocity`,
/// `BodySwitches` or `CollisionLayers` brings it back at the next step.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// // Every body processed at every step:
/// let mut app = App::new();
/// app.add_plugins((
///     MinimalPlugins,
///     PhysicsPlugin::default().build().disable::<RestSkippingPlugin>(),
/// ));
/// assert!(!app.world().resource::<RestSkipping>().enabled);
/// ```
#[derive(Default)]
pub struct RestSkippingPlugin;

impl Plugin for RestSkippingPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(RestSkipping { enabled: true });
    }
}

/// Whether the step leaves out resting bodies: inserted (off) by
/// [`PhysicsPlugin`](crate::PhysicsPlugin), turned on by [`RestSkippingPlugin`]. Change it at
/// any time; the next step follows it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
///     .insert_resource(TileMap::from_ascii("......\n######", 16.0).unwrap());
/// app.world_mut()
///     .spawn((Aabb::new(Vec2::new(40.0, 22.0), Vec2::splat(6.0)), Velocity::default()));
/// let awake_after_30_steps = |app: &mut App| {
///     for _ in 0..30 {
///         app.world_mut().run_schedule(FixedUpdate);
///     }
///     app.world().resource::<PhysicsStats>().awake_bodies
/// };
/// // The box rests on the floor: left out of the step.
/// assert_eq!(awake_after_30_steps(&mut app), 0);
/// // Processed at every step again.
/// app.world_mut().resource_mut::<RestSkipping>().enabled = false;
/// assert_eq!(awake_after_30_steps(&mut app), 1);
/// ```
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct RestSkipping {
    /// Leave out the bodies the step would not change.
    pub enabled: bool,
}
