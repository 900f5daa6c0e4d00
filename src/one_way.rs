//! One-way bodies: platforms a body can jump up through and land on.
//!
//! # Rule
//!
//! A pair of bodies one of which is a [`OneWayPlatform`] is a contact only when the other body
//! comes from above: at the last step its feet were no lower than
//! [`PhysicsConfig::one_way_tolerance`] below the platform's top, it does not move up faster
//! than the platform, and it is not dropping through
//! ([`BodySwitches::drop_through`](crate::BodySwitches::drop_through)). Otherwise the two
//! pass through each other: no contact, no response, no collision event. This is the rule of
//! one-way tiles (article 001), with the platform's own motion taken into account, so a rider
//! of a platform that moves down stays on it and a body jumping up through a rising platform
//! passes.
//!
//! Pair detection applies it to the pairs it finds; relaxation settles a one-way platform only
//! with the bodies detection found on it, never with one passing through it. A segment cast
//! ([`SpatialQuery::cast_segment`](crate::SpatialQuery::cast_segment)) stops at a one-way
//! platform only when it enters its top face going down, as at a one-way tile.
//!
//! [`PhysicsConfig::one_way_tolerance`]: crate::PhysicsConfig::one_way_tolerance

use bevy::prelude::*;

/// Marks a body as solid only from above: other bodies land on it and stand on it, and pass
/// through it from below and from the sides (see the [rule](self)). Meant for
/// [`Kinematic`](crate::Kinematic) platforms; a body standing on one is carried by it like on
/// any kinematic body.
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
///         OneWayPlatform,
///     ));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct OneWayPlatform;

/// What the rule reads of one body of a pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Passing {
    /// Its position at the last step.
    pub(crate) old: Vec2,
    pub(crate) half: Vec2,
    pub(crate) velocity: Vec2,
    /// It is a [`OneWayPlatform`].
    pub(crate) one_way: bool,
    /// It drops through one-way platforms.
    pub(crate) drops: bool,
}

/// Whether `body` comes onto `platform` from above (see the [rule](self)).
fn lands_on(body: &Passing, platform: &Passing, tolerance: f32) -> bool {
    let feet = body.old.y - body.half.y;
    let top = platform.old.y + platform.half.y;
    !body.drops && body.velocity.y <= platform.velocity.y && feet >= top - tolerance.max(0.0)
}

/// Whether the pair of `a` and `b`, found overlapping or touching, is a contact: always when
/// neither is a one-way platform; otherwise when the other comes from above each one that is.
pub(crate) fn one_way_contact(a: &Passing, b: &Passing, tolerance: f32) -> bool {
    (!b.one_way || lands_on(a, b, tolerance)) && (!a.one_way || lands_on(b, a, tolerance))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(old_y: f32, velocity_y: f32) -> Passing {
        Passing {
            old: Vec2::new(0.0, old_y),
            half: Vec2::splat(8.0),
            velocity: Vec2::new(0.0, velocity_y),
            one_way: false,
            drops: false,
        }
    }

    /// A platform whose top was at 0, moving at `velocity_y`.
    fn platform(velocity_y: f32) -> Passing {
        Passing {
            old: Vec2::new(0.0, -4.0),
            half: Vec2::new(32.0, 4.0),
            velocity: Vec2::new(0.0, velocity_y),
            one_way: true,
            drops: false,
        }
    }

    #[test]
    fn a_body_from_above_lands_and_one_from_below_passes() {
        let (p, tol) = (platform(0.0), 4.0);
        assert!(
            one_way_contact(&body(8.0, -100.0), &p, tol),
            "feet on the top"
        );
        assert!(one_way_contact(&p, &body(8.0, -100.0), tol), "either order");
        assert!(
            one_way_contact(&body(5.0, 0.0), &p, tol),
            "within the tolerance"
        );
        assert!(
            !one_way_contact(&body(3.0, 0.0), &p, tol),
            "below the tolerance"
        );
        assert!(!one_way_contact(&body(8.0, 50.0), &p, tol), "moving up");
        let dropping = Passing {
            drops: true,
            ..body(8.0, -100.0)
        };
        assert!(!one_way_contact(&dropping, &p, tol), "dropping through");
    }

    #[test]
    fn the_platforms_motion_counts() {
        // A rider of a platform moving down falls no faster than it; a body rising slower
        // than a rising platform is caught by it.
        assert!(one_way_contact(&body(8.0, -60.0), &platform(-60.0), 4.0));
        assert!(one_way_contact(&body(8.0, 30.0), &platform(60.0), 4.0));
        assert!(!one_way_contact(&body(8.0, 90.0), &platform(60.0), 4.0));
    }

    #[test]
    fn two_ordinary_bodies_always_touch() {
        assert!(one_way_contact(&body(-50.0, 100.0), &body(0.0, 0.0), 4.0));
    }
}
