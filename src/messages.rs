//! Messages the physics writes: `Landed`.

use bevy::prelude::*;

/// Written when a body lands: it stands on something at the end of a step after not standing
/// on anything at the end of the previous one. Written once per landing, not while it rests.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn thud(mut landings: MessageReader<Landed>) {
///     for landing in landings.read() {
///         info!("{} landed at {} units/s", landing.entity, -landing.velocity.y);
///     }
/// }
/// # App::new().add_systems(Update, thud);
/// ```
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Landed {
    /// The body that landed.
    pub entity: Entity,
    /// Its velocity just before the landing removed the downward part.
    pub velocity: Vec2,
}
