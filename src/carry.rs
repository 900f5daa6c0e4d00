//! Riders carried by what holds them: a change of a kinematic body's velocity passes, in the
//! same step, to every body standing on it and to every body standing on those.
//!
//! # Algorithm
//!
//! A body that stood on another body at the end of the last step (its bottom pushed an
//! object) remembers which one ([`BodyState::ground`]) and that body's velocity
//! ([`BodyState::ground_velocity`]). It moved with its support at that velocity: the response
//! left it falling no faster than a support that goes down, and integration lets it fall no
//! faster than one that goes up.
//!
//! When the game changes a kinematic body's velocity (a platform starts, stops or reverses),
//! the bodies it carries would go on at the old velocity for a step: they would float off a
//! platform that starts to descend, or sink into one that reverses upward. So before
//! integration, each body follows its chain of supports down to the first kinematic body:
//!
//! - the change passed to a body standing directly on kinematic body `K` is `K`'s velocity
//!   now less the ground velocity the body remembers;
//! - a body standing on a non-kinematic body gets the change passed to that body;
//! - a chain that ends on tiles, in the air, or at a body that is gone passes nothing, and so
//!   does a kinematic body whose velocity is not finite (integration sets it to zero).
//!
//! The change is added to the body's velocity and to its ground velocity, on both axes: a
//! rider keeps its speed relative to the platform, so a crate on a crate on a reversing
//! platform reverses with it, with no gap and no jolt. Across, the carry is friction's work:
//! when a body of the chain has friction off (its [`BodySwitches::friction`], or a
//! [`PhysicsConfig::ground_friction`] of zero), no horizontal change passes through it, and the
//! platform slides away under it as it would on ice.
//!
//! [`BodySwitches::friction`]: crate::BodySwitches::friction
//! [`PhysicsConfig::ground_friction`]: crate::PhysicsConfig::ground_friction Every change is worked out from the
//! state at the end of the last step before any is applied, so the order bodies are handled
//! in changes nothing.
//!
//! # A controller that sets its own speed
//!
//! The carry lives in the body's [`Velocity`]. A character controller that overwrites the
//! velocity every step keeps it by adding the ground's velocity to its own:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::prelude::*;
//!
//! /// The speed the player's input asks for (set from the keyboard or a gamepad).
//! #[derive(Component)]
//! struct Walk(f32);
//!
//! fn walk(mut players: Query<(&mut Velocity, &BodyState, &Walk)>) {
//!     for (mut velocity, state, walk) in &mut players {
//!         // Walk relative to whatever carries the player (zero on tiles and in the air).
//!         velocity.x = walk.0 + state.ground_velocity.x;
//!     }
//! }
//! # App::new().add_systems(FixedUpdate, walk.before(PhysicsSystems::Integrate));
//! ```
//!
//! (The vertical speed is best left to the physics, as above: a jump sets it once.)

use bevy::prelude::*;

use crate::body::{Aabb, BodyState, BodySwitches, Kinematic, Velocity};
use crate::config::PhysicsConfig;
use crate::flags::{PushFlags, Side};

/// How long a chain of supports is followed; a longer one (or a loop, which only a game
/// writing `BodyState` could make) passes nothing further.
const LONGEST_CHAIN: usize = 1024;

/// What [`carried_change`] reads of one body, at the end of the last step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainLink {
    /// Its velocity now, if it is kinematic (its chain ends here).
    pub kinematic: Option<Vec2>,
    /// The body it stood on and that body's velocity then, if it stood on one.
    pub stood_on: Option<(Entity, Vec2)>,
    /// Friction acts on it: the horizontal carry passes to it and through it.
    pub grips: bool,
}

impl ChainLink {
    /// The link of a body from its components.
    #[inline]
    pub(crate) fn of(
        (kinematic, grips): (bool, bool),
        velocity: Vec2,
        flags: &PushFlags,
        state: &BodyState,
    ) -> Self {
        let stood_on = match state.ground {
            Some(ground) if flags.pushes_object(Side::Bottom) => {
                Some((ground, state.ground_velocity))
            }
            _ => None,
        };
        Self {
            kinematic: kinematic.then_some(velocity),
            stood_on,
            grips,
        }
    }
}

/// The change of velocity passed to the body whose link is `body` (see the module's
/// algorithm); `link` finds any body's link, `None` for a body that is gone.
pub(crate) fn carried_change(body: ChainLink, link: impl Fn(Entity) -> Option<ChainLink>) -> Vec2 {
    if body.kinematic.is_some() {
        return Vec2::ZERO;
    }
    let mut rider = body;
    let mut grips = body.grips;
    for _ in 0..LONGEST_CHAIN {
        let Some((support, remembered)) = rider.stood_on else {
            return Vec2::ZERO;
        };
        let Some(below) = link(support) else {
            return Vec2::ZERO;
        };
        if let Some(now) = below.kinematic {
            let change = now - remembered;
            // A non-finite velocity (which integration is about to set to zero) passes nothing.
            if !change.is_finite() {
                return Vec2::ZERO;
            }
            return if grips {
                change
            } else {
                Vec2::new(0.0, change.y)
            };
        }
        grips &= below.grips;
        rider = below;
    }
    Vec2::ZERO
}

/// Adds a carried `change` to a body's velocity and ground velocity (nothing when it is
/// zero, so a body with nothing to carry keeps its bits).
#[inline]
pub(crate) fn carry(change: Vec2, velocity: &mut Vec2, state: &mut BodyState) {
    if change != Vec2::ZERO {
        *velocity += change;
        state.ground_velocity += change;
    }
}

/// The kinematic bodies' velocities, whose change ticks say whether the game wrote one.
type Carriers<'w, 's> = Query<'w, 's, Ref<'static, Velocity>, With<Kinematic>>;

/// The bodies' links, read by [`carry_riders`].
type Links<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Velocity,
        &'static mut BodyState,
        &'static PushFlags,
        &'static BodySwitches,
        Has<Kinematic>,
    ),
    With<Aabb>,
>;

/// The carry, as the first system of [`PhysicsSystems::Integrate`](crate::PhysicsSystems::Integrate).
/// Only a change of a kinematic body's velocity can pass anything (otherwise each rider's
/// support moves as it remembers), so it does nothing in a step where the game wrote no
/// kinematic body's velocity.
pub(crate) fn carry_riders(
    config: Res<PhysicsConfig>,
    mut queries: ParamSet<(Carriers, Links)>,
    mut changes: Local<Vec<(Entity, Vec2)>>,
) {
    if !queries.p0().iter().any(|velocity| velocity.is_changed()) {
        return;
    }
    let friction = config.ground_friction > 0.0;
    let mut bodies = queries.p1();
    let of = |(_, velocity, state, flags, switches, kinematic): (
        _,
        &Velocity,
        _,
        _,
        &BodySwitches,
        _,
    )| {
        ChainLink::of(
            (kinematic, friction && switches.friction),
            velocity.0,
            flags,
            state,
        )
    };
    let link = |entity| bodies.get(entity).ok().map(of);
    changes.clear();
    for body in &bodies {
        let entity = body.0;
        let change = carried_change(of(body), link);
        if change != Vec2::ZERO {
            changes.push((entity, change));
        }
    }
    for &(entity, change) in changes.iter() {
        if let Ok((_, mut velocity, mut state, ..)) = bodies.get_mut(entity) {
            carry(change, &mut velocity.0, &mut state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32) -> Entity {
        Entity::from_raw_u32(index).unwrap()
    }

    /// A chain: body 0 on body 1 on body 2 on kinematic body 3.
    fn chain(now: Vec2, remembered: Vec2) -> impl Fn(Entity) -> Option<ChainLink> {
        move |e: Entity| {
            let on = |i: u32, v: Vec2| ChainLink {
                kinematic: None,
                stood_on: Some((entity(i), v)),
                grips: true,
            };
            match e.index_u32() {
                1 => Some(on(2, Vec2::new(7.0, -1.0))),
                2 => Some(on(3, remembered)),
                3 => Some(ChainLink {
                    kinematic: Some(now),
                    stood_on: None,
                    grips: true,
                }),
                _ => None,
            }
        }
    }

    #[test]
    fn a_change_of_the_platform_passes_up_the_whole_stack() {
        let top = ChainLink {
            kinematic: None,
            stood_on: Some((entity(1), Vec2::new(40.0, 0.0))),
            grips: true,
        };
        // The platform went from (40, 20) to (-40, -20): everything on it changes by (-80, -40),
        // whatever the bodies in between were doing.
        let change = carried_change(top, chain(Vec2::new(-40.0, -20.0), Vec2::new(40.0, 20.0)));
        assert_eq!(change, Vec2::new(-80.0, -40.0));
        // An unchanged platform passes nothing.
        let same = carried_change(top, chain(Vec2::new(40.0, 20.0), Vec2::new(40.0, 20.0)));
        assert_eq!(same, Vec2::ZERO);
        // Without friction, only the vertical change passes.
        let slides = ChainLink {
            grips: false,
            ..top
        };
        let change = carried_change(
            slides,
            chain(Vec2::new(-40.0, -20.0), Vec2::new(40.0, 20.0)),
        );
        assert_eq!(change, Vec2::new(0.0, -40.0));
    }

    #[test]
    fn chains_that_end_off_a_kinematic_body_pass_nothing() {
        let on = |i: u32| ChainLink {
            kinematic: None,
            stood_on: Some((entity(i), Vec2::ZERO)),
            grips: true,
        };
        let nothing = |_: Entity| -> Option<ChainLink> { None };
        // Its support is gone.
        assert_eq!(carried_change(on(9), nothing), Vec2::ZERO);
        // In the air or on tiles.
        let air = ChainLink {
            kinematic: None,
            stood_on: None,
            grips: true,
        };
        assert_eq!(carried_change(air, nothing), Vec2::ZERO);
        // A loop (only a game writing `BodyState` makes one) ends.
        let looped = |e: Entity| Some(on(e.index_u32() ^ 1));
        assert_eq!(carried_change(on(1), looped), Vec2::ZERO);
        // A kinematic body is not carried.
        let kinematic = ChainLink {
            kinematic: Some(Vec2::ONE),
            stood_on: Some((entity(3), Vec2::ZERO)),
            grips: true,
        };
        assert_eq!(
            carried_change(kinematic, chain(Vec2::ONE, Vec2::ZERO)),
            Vec2::ZERO
        );
        // A platform whose velocity the game made NaN (integration sets it to zero).
        let rider = on(2);
        assert_eq!(
            carried_change(rider, chain(Vec2::NAN, Vec2::ZERO)),
            Vec2::ZERO
        );
    }

    #[test]
    fn carrying_nothing_keeps_the_bits() {
        let mut state = BodyState::default();
        let mut v = Vec2::new(-0.0, 3.0);
        carry(Vec2::ZERO, &mut v, &mut state);
        assert!(v.x.is_sign_negative());
        carry(Vec2::new(2.0, -1.0), &mut v, &mut state);
        assert_eq!(
            (v, state.ground_velocity),
            (Vec2::new(2.0, 2.0), Vec2::new(2.0, -1.0))
        );
    }
}
