//! Messages the physics writes: `Landed`, `CollisionStarted`, `CollisionEnded` (and, in
//! [`sensors`](crate::sensors), `SensorEntered` and `SensorExited`).

use bevy::prelude::*;
use bevy::utils::Parallel;

/// Written when a body lands: it stands on something at the end of a step after not standing
/// on anything at the end of the previous one. Written once per landing, not while it rests.
///
/// Landings on tiles are written by [`PhysicsSystems::TileCollide`], then landings on other
/// bodies by [`PhysicsSystems::Respond`], each group in entity order: the same order on every
/// run and on any number of threads.
///
/// [`PhysicsSystems::TileCollide`]: crate::PhysicsSystems::TileCollide
/// [`PhysicsSystems::Respond`]: crate::PhysicsSystems::Respond
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

/// Landings found by a stage that runs on several threads, written in entity order, so the
/// messages come in the same order on any number of threads.
#[derive(Default)]
pub(crate) struct Landings {
    found: Parallel<Vec<Landed>>,
    sorted: Vec<Landed>,
}

impl Landings {
    /// Records a landing (from any thread).
    #[inline]
    pub(crate) fn push(&self, landed: Landed) {
        self.found.borrow_local_mut().push(landed);
    }

    /// Writes every recorded landing, in entity order, and forgets them.
    pub(crate) fn write(&mut self, writer: &mut MessageWriter<Landed>) {
        self.sorted.clear();
        self.found.drain_into(&mut self.sorted);
        self.sorted.sort_unstable_by_key(|l| l.entity);
        writer.write_batch(self.sorted.drain(..));
    }
}

/// Written when two bodies start touching or overlapping: once per contact episode, at the
/// step their pair is first detected. `a` is the smaller entity of the two. The order of the
/// messages of one step is deterministic.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn bump(mut started: MessageReader<CollisionStarted>) {
///     for c in started.read() {
///         info!("{} and {} collide", c.a, c.b);
///     }
/// }
/// # App::new().add_systems(Update, bump);
/// ```
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionStarted {
    /// The smaller entity of the pair.
    pub a: Entity,
    /// The larger entity of the pair.
    pub b: Entity,
}

/// Written when two bodies that were touching or overlapping no longer are: once per contact
/// episode, at the step the pair is no longer detected, or at once when either body is
/// despawned (or loses its [`Aabb`](crate::Aabb)); the entity may then no longer exist. `a` is
/// the smaller entity of the two.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionEnded {
    /// The smaller entity of the pair.
    pub a: Entity,
    /// The larger entity of the pair.
    pub b: Entity,
}
