//! What a body touches: [`CollisionData`] for one contact, [`Contacts`] for all of a body's
//! contacts at the last step (found by pair detection, read by the response).

use bevy::prelude::*;

/// One contact between the owner of a [`Contacts`] buffer and another body, as captured when
/// the pair was detected (article 000's `CollisionData`): the response reads only this, never
/// the other body's current state.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, Default, PartialEq, Clone)]
pub struct CollisionData {
    /// The other body.
    pub other: Entity,
    /// Signed overlap from the owner's side: the direction the owner must move to get out
    /// (negative x when the other body is on the owner's right). Zero on an axis means the
    /// boxes touch along it; so does a component within
    /// [`PhysicsConfig::contact_tolerance`](crate::PhysicsConfig::contact_tolerance) of zero, and a negative one that small is the gap
    /// between boxes that touch within it.
    pub overlap: Vec2,
    /// The owner's velocity.
    pub velocity: Vec2,
    /// The other body's velocity.
    pub other_velocity: Vec2,
    /// The owner's centre before this step.
    pub old_position: Vec2,
    /// The other body's centre before this step.
    pub other_old_position: Vec2,
    /// The owner's centre when detected.
    pub position: Vec2,
    /// The other body's centre when detected.
    pub other_position: Vec2,
    /// The owner's half extents.
    pub half_extents: Vec2,
    /// The other body's half extents.
    pub other_half_extents: Vec2,
    /// The other body is [`Kinematic`](crate::Kinematic).
    pub other_kinematic: bool,
    /// The sides on which the owner cannot give way: it touches a tile there this step, or
    /// touched a body there last step (four bits: left 1, right 2, top 4, bottom 8).
    pub blocked: u8,
    /// The same for the other body.
    pub other_blocked: u8,
}

impl Default for CollisionData {
    /// No contact: [`Entity::PLACEHOLDER`], every vector zero, nothing kinematic or blocked.
    fn default() -> Self {
        Self {
            other: Entity::PLACEHOLDER,
            overlap: Vec2::ZERO,
            velocity: Vec2::ZERO,
            other_velocity: Vec2::ZERO,
            old_position: Vec2::ZERO,
            other_old_position: Vec2::ZERO,
            position: Vec2::ZERO,
            other_position: Vec2::ZERO,
            half_extents: Vec2::ZERO,
            other_half_extents: Vec2::ZERO,
            other_kinematic: false,
            blocked: 0,
            other_blocked: 0,
        }
    }
}

/// Every body this body overlaps or touches, refilled at each step by
/// [`PhysicsSystems::DetectPairs`](crate::PhysicsSystems::DetectPairs). The order is
/// deterministic.
///
/// Opt-in: add it to the bodies whose contacts you read (like the [`Aabb`](crate::Aabb)
/// itself, it can be added or removed at any time). Bodies without it collide, push and land
/// all the same, and write [`CollisionStarted`](crate::CollisionStarted) and [`CollisionEnded`](crate::CollisionEnded); they only skip the copy
/// of their contacts, which is a large part of pair detection in a crowded scene.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_hero(mut commands: Commands) {
///     commands.spawn((
///         Aabb::new(Vec2::new(100.0, 40.0), Vec2::new(6.0, 10.0)),
///         Contacts::default(),
///     ));
/// }
///
/// fn hurt_on_touch(bodies: Query<(Entity, &Contacts)>) {
///     for (entity, contacts) in &bodies {
///         for contact in contacts.iter() {
///             info!("{entity} touches {} (overlap {})", contact.other, contact.overlap);
///         }
///     }
/// }
/// # App::new().add_systems(Update, (spawn_hero, hurt_on_touch));
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect, Deref)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Contacts(pub(crate) Vec<CollisionData>);

impl Contacts {
    /// The contacts, in the order the response reads them: by the partner's place in the
    /// step's body order, which stays the same while no body is added or removed.
    pub fn as_slice(&self) -> &[CollisionData] {
        &self.0
    }

    /// Drops the contacts with `other`.
    pub(crate) fn forget(&mut self, other: Entity) {
        self.0.retain(|c| c.other != other);
    }
}
