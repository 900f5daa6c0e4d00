//! Body components: `Aabb`, `Velocity`, `Kinematic`, per-body switches and per-body state.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::flags::PushFlags;
use crate::tiles::{Slope, TileKind};

/// A physics body's box: centre and half extents in world units, y up.
///
/// This is the body's authoritative position: the physics reads and writes it, and the
/// entity's [`Transform`] translation (x and y; z is left alone) is set from it when it is
/// inserted and after every step. To teleport a body, write its `Aabb`, not its `Transform`.
///
/// Adding an `Aabb` makes an entity a body: [`Velocity`], [`PushFlags`], [`BodySwitches`],
/// [`BodyState`], [`OldPosition`] and [`Transform`] arrive with it through `#[require]`, and
/// [`PhysicsPlugin`](crate::PhysicsPlugin) adds what its stages keep on each body
/// ([`GridAreas`](crate::GridAreas) and private ones). Add [`Contacts`](crate::Contacts) as well to have the body's
/// contacts listed at every step. Removing the `Aabb` (or despawning) takes the body out of the
/// [`Partition`](crate::partition::Partition) and ends its contacts
/// ([`CollisionEnded`](crate::CollisionEnded)) at once.
///
/// Not to be confused with `bevy::camera::primitives::Aabb`, Bevy's 3D culling box: import
/// this one through `bevy_platformer_physics::prelude`, or rename one of them on import.
///
/// # Invalid boxes
///
/// A box with a non-finite centre or half extents, or a half extent that is zero or negative,
/// is left out of the simulation (not moved, not collided) with one `warn!` until it is fixed.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_player(mut commands: Commands) {
///     // A 12 x 20 box standing at (100, 40), walking right at 60 units per second.
///     commands.spawn((
///         Aabb::new(Vec2::new(100.0, 40.0), Vec2::new(6.0, 10.0)),
///         Velocity(Vec2::new(60.0, 0.0)),
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Velocity, PushFlags, BodySwitches, BodyState, OldPosition, Transform)]
#[component(on_insert = sync_transform_on_insert)]
pub struct Aabb {
    /// Centre in world units.
    pub center: Vec2,
    /// Half the width and half the height; both must be positive.
    pub half_extents: Vec2,
}

impl Default for Aabb {
    /// A 1 x 1 box at the origin.
    fn default() -> Self {
        Self::new(Vec2::ZERO, Vec2::splat(0.5))
    }
}

impl Aabb {
    /// A box from its centre and half extents.
    pub const fn new(center: Vec2, half_extents: Vec2) -> Self {
        Self {
            center,
            half_extents,
        }
    }

    /// A box from its centre and full size (width, height).
    pub fn from_size(center: Vec2, size: Vec2) -> Self {
        Self::new(center, size * 0.5)
    }

    /// The bottom-left corner.
    pub fn min(&self) -> Vec2 {
        self.center - self.half_extents
    }

    /// The top-right corner.
    pub fn max(&self) -> Vec2 {
        self.center + self.half_extents
    }

    /// Full width and height.
    pub fn size(&self) -> Vec2 {
        self.half_extents * 2.0
    }

    /// Whether the physics can simulate this box (finite, with positive half extents).
    #[inline]
    pub fn is_valid(&self) -> bool {
        // The four numbers at once (every stage checks every moving body): each strictly
        // between its lower bound and infinity, which NaN never is.
        let (c, h) = (self.center, self.half_extents);
        let numbers = Vec4::new(c.x, c.y, h.x, h.y);
        let above = numbers.cmpgt(Vec4::new(f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0, 0.0));
        (above & numbers.cmplt(Vec4::INFINITY)).all()
    }
}

fn sync_transform_on_insert(mut world: DeferredWorld, context: HookContext) {
    let Some(aabb) = world.get::<Aabb>(context.entity).copied() else {
        return;
    };
    if let Some(mut transform) = world.get_mut::<Transform>(context.entity)
        && aabb.center.is_finite()
    {
        transform.translation.x = aabb.center.x;
        transform.translation.y = aabb.center.y;
    }
}

/// Linear velocity in world units per second, y up.
///
/// Set it from your controller systems before [`PhysicsSystems::Integrate`]; the physics adds
/// gravity, removes the part that runs into tiles or other bodies, and applies ground friction.
/// A non-finite velocity is reset to zero with one `warn!`.
///
/// [`PhysicsSystems::Integrate`]: crate::PhysicsSystems::Integrate
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Velocity(pub Vec2);

/// Marks a body that moves only by its own [`Velocity`]: no gravity, no tile collision, and
/// never pushed by other bodies, which move out of its way instead (moving platforms, doors).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_lift(mut commands: Commands) {
///     commands.spawn((
///         Aabb::new(Vec2::new(200.0, 64.0), Vec2::new(24.0, 4.0)),
///         Velocity(Vec2::new(0.0, 30.0)),
///         Kinematic,
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Aabb)]
pub struct Kinematic;

/// Per-body switches (article 001's `HasWorldCollision`, `ApplyGravity`, `ApplyFriction`) and
/// the two control inputs a platformer character needs: dropping through one-way platforms and
/// climbing ladders.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// // A thrown bone that flies through walls and is not slowed on the ground.
/// let switches = BodySwitches { world_collision: false, friction: false, ..default() };
/// # let _ = switches;
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct BodySwitches {
    /// Collide with the tile map (default `true`). When `false` the body moves freely through
    /// tiles; it still collides with other bodies.
    pub world_collision: bool,
    /// Apply [`PhysicsConfig::gravity`] and the maximum fall speed (default `true`).
    ///
    /// [`PhysicsConfig::gravity`]: crate::PhysicsConfig::gravity
    pub gravity: bool,
    /// Apply [`PhysicsConfig::ground_friction`] while standing on tiles or on another body
    /// (default `true`).
    ///
    /// [`PhysicsConfig::ground_friction`]: crate::PhysicsConfig::ground_friction
    pub friction: bool,
    /// Walk on floor slopes (default `true`): on a slope's surface the body goes up or down it
    /// at its horizontal speed and its vertical speed stops, as on flat ground, so a character
    /// stands still on a slope and walks over it at the speed its controller sets. When
    /// `false` it slides along the surface like a crate on ice, losing only the speed into it
    /// (and, with [`friction`](Self::friction), the speed friction takes). Independent of
    /// friction: a controller that turns friction off to decelerate the body itself keeps
    /// walking on slopes.
    pub walk_slopes: bool,
    /// Fall through one-way platforms and ladder tops (default `false`).
    ///
    /// Keep it set for as long as the body should fall through, for example while the "down"
    /// key is held: a body whose feet are less than [`PhysicsConfig::one_way_tolerance`] below
    /// a platform's top is put back on it once the switch is cleared.
    ///
    /// [`PhysicsConfig::one_way_tolerance`]: crate::PhysicsConfig::one_way_tolerance
    pub drop_through: bool,
    /// Climb ladders (default `false`). While set *and* the box overlaps a ladder tile at the
    /// start of the step, gravity is off, so your controller moves the body up and down with
    /// its velocity (the velocity it had is kept: set it to zero to hang still); ladder tops do
    /// not hold a climbing body, so it can climb down from the top.
    pub climbing: bool,
}

impl Default for BodySwitches {
    fn default() -> Self {
        Self {
            world_collision: true,
            gravity: true,
            friction: true,
            walk_slopes: true,
            drop_through: false,
            climbing: false,
        }
    }
}

/// What the last step found about a body's surroundings in the tile map. Written by the
/// physics; read it in your gameplay systems after [`PhysicsSystems::Respond`].
///
/// Whether the body stands on anything is in [`PushFlags::on_ground`].
///
/// [`PhysicsSystems::Respond`]: crate::PhysicsSystems::Respond
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct BodyState {
    /// The box overlaps at least one [`TileKind::Ladder`] tile.
    pub overlaps_ladder: bool,
    /// The kind of tile the body stands on: a slope if any supporting tile is one, else
    /// `Solid` if one is solid, else `OneWay`, else `Ladder` (the top of a ladder). `None` when
    /// not standing on a tile.
    pub standing_on: Option<TileKind>,
    /// The velocity of the body this one stands on (the one rising fastest when several);
    /// zero on tiles or in the air. Ground friction pulls the body's horizontal speed toward it;
    /// a controller that sets the velocity itself every step can add it to carry a character
    /// along on a moving platform exactly.
    pub ground_velocity: Vec2,
    /// The body this one stands on (the one [`ground_velocity`](Self::ground_velocity) is
    /// of); `None` on tiles or in the air. When a kinematic body below changes its velocity,
    /// the change is passed up to this body (and on to what stands on it).
    pub ground: Option<Entity>,
    /// Warnings already given for this body, so each problem is reported once.
    #[reflect(ignore)]
    pub(crate) warned: u8,
}

impl BodyState {
    /// Whether the body is squished now: held where it does not fit (between tiles, pressed
    /// by kinematic bodies, or squeezed where relaxation could not part it). True at every step
    /// of the episode that a [`Squished`](crate::Squished) message began, false from the step it
    /// fits again; a game that kills or shrinks a squished player can ask it in any system.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// fn crush(players: Query<(Entity, &BodyState)>, mut commands: Commands) {
    ///     for (player, state) in &players {
    ///         if state.is_squished() {
    ///             commands.entity(player).despawn();
    ///         }
    ///     }
    /// }
    /// # App::new().add_systems(Update, crush);
    /// ```
    pub fn is_squished(&self) -> bool {
        self.is_raised(warn_bits::SQUISHED | warn_bits::PRESSED | warn_bits::SQUEEZED)
    }

    /// The slope the body stands on, if it stands on one.
    pub fn slope(&self) -> Option<Slope> {
        self.standing_on.and_then(TileKind::slope)
    }

    /// The normal of the ground under the body: a slope's surface normal, straight up on a
    /// flat tile or on a body, `None` in the air.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// let mut state = BodyState::default();
    /// assert_eq!(state.ground_normal(), None, "in the air");
    /// state.standing_on = Some(TileKind::SlopeLeftLow);
    /// assert!(state.ground_normal().unwrap().x > 0.0, "a slope rising left faces right");
    /// state.standing_on = Some(TileKind::Solid);
    /// assert_eq!(state.ground_normal(), Some(Vec2::Y));
    /// ```
    pub fn ground_normal(&self) -> Option<Vec2> {
        match (self.slope(), self.standing_on, self.ground) {
            (Some(slope), ..) => Some(slope.normal()),
            (None, Some(_), _) | (None, None, Some(_)) => Some(Vec2::Y),
            (None, None, None) => None,
        }
    }
}

/// The body's centre before the current step moved it (article 000's "old position").
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct OldPosition(pub Vec2);

/// Bits of [`BodyState`]'s warning memory.
pub(crate) mod warn_bits {
    pub const INVALID_AABB: u8 = 1;
    pub const BAD_VELOCITY: u8 = 2;
    pub const OUTSIDE_MAP: u8 = 4;
    pub const EMBEDDED: u8 = 8;
    /// Not a warning: a [`Squished`](crate::Squished) message was written for this episode.
    pub const SQUISHED: u8 = 16;
    /// Not a warning: a [`Squished`](crate::Squished) message was written for this episode of a
    /// squeeze by kinematic bodies.
    pub const PRESSED: u8 = 32;
    /// Not a warning: a [`Squished`](crate::Squished) message was written for this episode of a
    /// squeeze relaxation could not undo.
    pub const SQUEEZED: u8 = 64;
}

impl BodyState {
    /// Returns `true` the first time `bit` is raised (so the caller warns once), and remembers it.
    pub(crate) fn raise(&mut self, bit: u8) -> bool {
        let first = self.warned & bit == 0;
        self.warned |= bit;
        first
    }

    /// Forgets `bit`, so the problem is reported again if it comes back.
    pub(crate) fn clear(&mut self, bit: u8) {
        self.warned &= !bit;
    }

    /// Whether `bit` is currently raised.
    pub(crate) fn is_raised(&self, bit: u8) -> bool {
        self.warned & bit != 0
    }
}

/// Calls `say` when `bad` starts holding for this body (once per episode), and forgets the
/// warning once it stops holding. Takes the change-tracking wrapper (a `Mut` or a
/// [`Tracked`](crate::fast::rows::Tracked) row) so the state is only marked changed when a warning bit actually changes.
///
/// Runs for every body several times a step and almost never changes anything: the check is
/// inlined, the change is not.
#[inline]
pub(crate) fn warn_once_while(
    state: &mut impl core::ops::DerefMut<Target = BodyState>,
    bit: u8,
    bad: bool,
    say: impl FnOnce(),
) {
    if bad != state.is_raised(bit) {
        flip_warning(state, bit, bad, say);
    }
}

/// The rare half of [`warn_once_while`]: the episode starts (warn) or ends (forget).
#[cold]
#[inline(never)]
fn flip_warning(
    state: &mut impl core::ops::DerefMut<Target = BodyState>,
    bit: u8,
    bad: bool,
    say: impl FnOnce(),
) {
    if bad {
        state.raise(bit);
        say();
    } else {
        state.clear(bit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aabb_validity() {
        assert!(Aabb::default().is_valid());
        assert!(!Aabb::new(Vec2::ZERO, Vec2::new(0.0, 1.0)).is_valid());
        assert!(!Aabb::new(Vec2::ZERO, Vec2::new(-1.0, 1.0)).is_valid());
        assert!(!Aabb::new(Vec2::NAN, Vec2::ONE).is_valid());
        assert!(!Aabb::new(Vec2::ZERO, Vec2::new(f32::INFINITY, 1.0)).is_valid());
        // Each of the four numbers alone spoils it.
        let good = [-1e30, 3.5, f32::MIN_POSITIVE, 1e30];
        for lane in 0..4 {
            let bad: &[f32] = if lane < 2 {
                &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]
            } else {
                &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, -1.0]
            };
            for &value in bad {
                let mut n = good;
                n[lane] = value;
                let aabb = Aabb::new(Vec2::new(n[0], n[1]), Vec2::new(n[2], n[3]));
                assert!(!aabb.is_valid(), "{aabb:?}");
            }
        }
        let n = good;
        assert!(Aabb::new(Vec2::new(n[0], n[1]), Vec2::new(n[2], n[3])).is_valid());
    }

    #[test]
    fn aabb_corners_and_size() {
        let b = Aabb::from_size(Vec2::new(10.0, 20.0), Vec2::new(4.0, 6.0));
        assert_eq!(b.min(), Vec2::new(8.0, 17.0));
        assert_eq!(b.max(), Vec2::new(12.0, 23.0));
        assert_eq!(b.size(), Vec2::new(4.0, 6.0));
    }

    #[test]
    fn warnings_are_raised_once_until_cleared() {
        let mut s = BodyState::default();
        assert!(s.raise(warn_bits::BAD_VELOCITY));
        assert!(!s.raise(warn_bits::BAD_VELOCITY));
        s.clear(warn_bits::BAD_VELOCITY);
        assert!(s.raise(warn_bits::BAD_VELOCITY));
    }
}

/// Everything a body is, as the game sees it: what the reference step, snapshots and the
/// checksum read of every body.
#[derive(bevy::ecs::query::QueryData)]
pub(crate) struct WholeBody {
    pub(crate) entity: Entity,
    pub(crate) aabb: &'static Aabb,
    pub(crate) velocity: &'static Velocity,
    pub(crate) old: &'static OldPosition,
    pub(crate) flags: &'static PushFlags,
    pub(crate) state: &'static BodyState,
    pub(crate) switches: &'static BodySwitches,
    pub(crate) layers: Option<&'static crate::layers::CollisionLayers>,
    pub(crate) kinematic: Has<Kinematic>,
    pub(crate) one_way: Has<crate::one_way::OneWayPlatform>,
}
