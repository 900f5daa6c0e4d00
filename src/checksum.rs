//! A checksum of the physics state after each step, for rollback netcode's desync checks
//! (GGRS compares one per frame between peers and in its sync tests) and for a game's own
//! determinism tests.
//!
//! [`PhysicsChecksumPlugin`] keeps [`PhysicsChecksum`] up to date at the end of every step:
//! a 64-bit hash of every body's state (its entity, box, velocity, old position, push flags,
//! body state and switches), summed over the bodies, so the same bodies in the same state give
//! the same checksum whatever order the world keeps them in, on any number of threads, with
//! rest skipping on or off. The hash is fixed (no random seed), so two runs, two processes or
//! two machines agree. It reads every body once per step (BENCHMARKS.md gives its cost), for
//! a game that wants it.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

use crate::body::{WholeBody, WholeBodyItem};
use crate::schedule::PhysicsSystems;

/// The checksum of the last step's outcome (see the [module](self)); 0 before the first step.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::checksum::{PhysicsChecksum, PhysicsChecksumPlugin};
/// use bevy_platformer_physics::prelude::*;
///
/// let run = || {
///     let mut app = App::new();
///     app.add_plugins((MinimalPlugins, PhysicsPlugin::default(), PhysicsChecksumPlugin::default()))
///         .insert_resource(TileMap::from_ascii("#....#\n######", 16.0).unwrap());
///     app.world_mut()
///         .spawn((Aabb::new(Vec2::new(40.0, 40.0), Vec2::splat(6.0)), Velocity::default()));
///     (0..30)
///         .map(|_| {
///             app.world_mut().run_schedule(FixedUpdate);
///             app.world().resource::<PhysicsChecksum>().0
///         })
///         .collect::<Vec<u64>>()
/// };
/// assert_eq!(run(), run());
/// ```
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PhysicsChecksum(pub u64);

/// Computes [`PhysicsChecksum`] after every physics step, in the schedule the physics runs in
/// (default `FixedUpdate`, as [`PhysicsPlugin`](crate::PhysicsPlugin)'s).
pub struct PhysicsChecksumPlugin {
    /// The physics' schedule.
    pub schedule: InternedScheduleLabel,
}

impl Default for PhysicsChecksumPlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl PhysicsChecksumPlugin {
    /// For a physics running in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for PhysicsChecksumPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PhysicsChecksum>()
            .add_systems(self.schedule, sum_bodies.after(PhysicsSystems::Sense));
    }
}

fn sum_bodies(bodies: Query<WholeBody>, mut checksum: ResMut<PhysicsChecksum>) {
    let sum = bodies.iter().fold(0u64, |sum, body| {
        sum.wrapping_add(body_hash(body, Entity::to_bits))
    });
    checksum.set_if_neq(PhysicsChecksum(sum));
}

/// One body's hash: its state's bits, eight 64-bit words folded with FxHash's step, then
/// spread by a finaliser (so that summing the bodies' hashes loses nothing). `id` names an
/// entity (the body's own and its ground's) by a word.
pub(crate) fn body_hash(body: WholeBodyItem, id: impl Fn(Entity) -> u64) -> u64 {
    let WholeBodyItem {
        entity,
        aabb,
        velocity,
        old,
        flags,
        state,
        switches,
        ..
    } = body;
    let pair = |v: Vec2| u64::from(v.x.to_bits()) | u64::from(v.y.to_bits()) << 32;
    let switches = [
        switches.world_collision,
        switches.gravity,
        switches.friction,
        switches.walk_slopes,
        switches.drop_through,
        switches.climbing,
        state.overlaps_ladder,
    ]
    .iter()
    .fold(0u64, |bits, &on| bits << 1 | u64::from(on));
    let standing = state.standing_on.map_or(0xFF, |kind| kind as u64);
    let small = u64::from(flags.bits()) | standing << 16 | switches << 24;
    let words = [
        pair(aabb.center),
        pair(aabb.half_extents),
        pair(velocity.0),
        pair(old.0),
        pair(state.ground_velocity),
        id(entity),
        state.ground.map_or(u64::MAX, id),
        small,
    ];
    let folded = words.iter().fold(0, |h: u64, &word| {
        (h.rotate_left(5) ^ word).wrapping_mul(0x517C_C1B7_2722_0A95)
    });
    mix(folded)
}

/// splitmix64's finaliser: every bit of the input moves every bit of the output.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
