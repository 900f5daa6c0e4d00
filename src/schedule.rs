//! `PhysicsSystems`: the ordered stages of one physics step.

use bevy::prelude::*;

/// The stages of one physics step, chained in this order in the physics schedule
/// (`FixedUpdate` by default). Order your systems against them:
///
/// - controllers that set [`Velocity`](crate::Velocity), jump, climb or drop through:
///   `.before(PhysicsSystems::Integrate)`;
/// - gameplay that reads [`PushFlags`](crate::PushFlags), [`BodyState`](crate::BodyState),
///   contacts or messages: `.after(PhysicsSystems::Sense)` (the last stage).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn walk(mut bodies: Query<&mut Velocity>) {
///     for mut v in &mut bodies {
///         v.x = 60.0;
///     }
/// }
///
/// App::new()
///     .add_plugins((MinimalPlugins, PhysicsPlugin::default()))
///     .add_systems(FixedUpdate, walk.before(PhysicsSystems::Integrate));
/// ```
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhysicsSystems {
    /// Old position := position; bad input checked; gravity and maximum fall speed; kinematic
    /// bodies and bodies without world collision move by their velocity.
    Integrate,
    /// Bodies move through the tile map: swept contacts, sliding, one-way platforms, ladders,
    /// friction, tile push flags, [`Landed`](crate::Landed). A body whose input is bit for bit
    /// the one it had last time gets its last result again.
    TileCollide,
    /// The spatial partition follows the bodies that moved.
    UpdatePartition,
    /// Overlapping and touching pairs of bodies are found and stored per body.
    DetectPairs,
    /// Bodies move out of each other; object push flags; `Transform`s follow the boxes.
    Respond,
    /// [`Sensor`](crate::sensors::Sensor)s find the bodies inside them and write
    /// [`SensorEntered`](crate::sensors::SensorEntered) and
    /// [`SensorExited`](crate::sensors::SensorExited).
    Sense,
}
