//! Messages the physics writes: `Landed`, `Squished`, `CollisionStarted`, `CollisionEnded`
//! (and, in [`sensors`](crate::sensors), `SensorEntered` and `SensorExited`).

use bevy::prelude::*;
use bevy::utils::Parallel;

use crate::flags::Side;

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

/// Written when a body is squished: pressed from two opposite sides by what does not give
/// way, so that it cannot be put where it fits. Two cases:
///
/// - **Among tiles**, by [`PhysicsSystems::TileCollide`]: it overlaps solid tiles it cannot be
///   pushed out of (it is taller than the gap between a floor and a ceiling, or buried deeper
///   than [`PhysicsConfig::max_depenetration`]), or it stands with its feet in a one-way
///   platform it cannot be lifted onto (a ceiling too low), and it pushes on two opposite
///   sides. The physics then holds it where it is: it never moves it, or lets it keep speed,
///   toward a side the tiles press on (so it never sinks through a floor), and it can still
///   move away from them.
/// - **By bodies**, by [`PhysicsSystems::Respond`]: a [`Kinematic`](crate::Kinematic) body
///   pushes it against a tile or against another kinematic body (a platform coming down on it
///   as it stands on the floor, two moving walls closing on it). The response then leaves it
///   where the tiles stop it: it is never pushed into a tile, and the kinematic body, which
///   nothing stops, goes on through it.
/// - **Through bodies**, by relaxation (when [`PhysicsConfig::relaxation_passes`] is on): it
///   still overlaps a body after relaxation, and on both sides along that axis it is held by a
///   tile, a kinematic body, or a body touching or overlapping it there that is itself held on
///   that side (a crate between the floor and a crate pressed by a platform coming down; a
///   stack taller than the gap under a platform). Relaxation leaves it where it could take it,
///   never in a tile; the crates still overlapping are reported (in a stack, those left
///   overlapping, wherever in the stack that is), each naming what presses it on each side.
///
/// Written once when the episode starts, in entity order (the tile cases, then the body cases,
/// then relaxation's); again only after the body has been free of that kind of squeeze for a
/// step. Its
/// [`PushFlags`](crate::PushFlags) show the sides that touch. What happens to it next is the
/// game's choice: kill it, shrink it or move it.
///
/// [`PhysicsConfig::max_depenetration`]: crate::PhysicsConfig::max_depenetration
/// [`PhysicsConfig::relaxation_passes`]: crate::PhysicsConfig::relaxation_passes
/// [`PhysicsSystems::TileCollide`]: crate::PhysicsSystems::TileCollide
/// [`PhysicsSystems::Respond`]: crate::PhysicsSystems::Respond
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn crush(mut squished: MessageReader<Squished>, mut commands: Commands) {
///     for s in squished.read() {
///         if let Some(Presser::Body(platform)) = s.pressed_by(Side::Top) {
///             info!("{} was crushed by {platform}", s.entity);
///         }
///         commands.entity(s.entity).despawn();
///     }
/// }
/// # App::new().add_systems(Update, crush);
/// ```
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Squished {
    /// The body that does not fit.
    pub entity: Entity,
    /// Pressed from below and above.
    pub vertically: bool,
    /// Pressed from the left and the right.
    pub horizontally: bool,
    /// Where it is held.
    pub center: Vec2,
    /// What presses on each side, in the order of [`Side::ALL`] (left, right, top, bottom);
    /// `None` where nothing does. See [`pressed_by`](Self::pressed_by).
    pub pressers: [Option<Presser>; 4],
}

impl Squished {
    /// What presses the body on `side`, if anything.
    #[inline]
    pub fn pressed_by(&self, side: Side) -> Option<Presser> {
        self.pressers[side as usize]
    }
}

/// What presses a [`Squished`] body on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presser {
    /// Solid tiles (or a one-way platform under its feet).
    Tile,
    /// A kinematic body, or (in a squeeze relaxation finds) a body held on that side.
    Body(Entity),
}

/// Tiles pressing on each of `sides` (four bits: left 1, right 2, top 4, bottom 8).
pub(crate) fn tile_pressers(sides: u8) -> [Option<Presser>; 4] {
    Side::ALL.map(|side| (sides & 1 << side as u8 != 0).then_some(Presser::Tile))
}

/// A message about one body, so that a stage can write its messages in entity order.
pub(crate) trait OfEntity {
    /// The body it is about.
    fn entity(&self) -> Entity;
}

impl OfEntity for Landed {
    fn entity(&self) -> Entity {
        self.entity
    }
}

impl OfEntity for Squished {
    fn entity(&self) -> Entity {
        self.entity
    }
}

/// Messages found by a stage that runs on several threads, written in entity order, so they
/// come in the same order on any number of threads.
pub(crate) struct InEntityOrder<M: Send> {
    found: Parallel<Vec<M>>,
    sorted: Vec<M>,
}

impl<M: Send> Default for InEntityOrder<M> {
    fn default() -> Self {
        Self {
            found: Parallel::default(),
            sorted: Vec::new(),
        }
    }
}

impl<M: Message + OfEntity> InEntityOrder<M> {
    /// Records a message (from any thread).
    #[inline]
    pub(crate) fn push(&self, message: M) {
        self.found.borrow_local_mut().push(message);
    }

    /// Writes every recorded message, in entity order, and forgets them.
    pub(crate) fn write(&mut self, writer: &mut MessageWriter<M>) {
        self.sorted.clear();
        self.found.drain_into(&mut self.sorted);
        self.sorted.sort_unstable_by_key(M::entity);
        writer.write_batch(self.sorted.drain(..));
    }
}

/// Landings found by a stage, written in entity order.
pub(crate) type Landings = InEntityOrder<Landed>;

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
