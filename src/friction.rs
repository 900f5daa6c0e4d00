//! Ground friction (article 001): a body standing on something loses part of its horizontal
//! speed at every step, *relative to what it stands on*. On tiles that is the speed itself; on
//! another body it is the difference from that body's speed, so a crate stops sliding on the
//! crate below it and a rider is carried along by a moving platform.

/// Below this horizontal speed (units per second, relative to the ground) ground friction stops
/// a body outright: exponential decay never reaches zero.
pub const FRICTION_STOP_SPEED: f32 = 0.01;

/// The fraction of its relative speed a standing body keeps over one step of `dt` seconds at
/// `rate` per second ([`PhysicsConfig::ground_friction`](crate::PhysicsConfig::ground_friction)):
/// `exp(-rate * dt)`.
#[inline]
pub fn friction_decay(rate: f32, dt: f32) -> f32 {
    (-rate * dt).exp()
}

/// The horizontal velocity after one step of ground friction: the speed relative to the ground
/// (`ground_x`, zero for tiles) is multiplied by `decay` (see [`friction_decay`]), and once it
/// falls below [`FRICTION_STOP_SPEED`] the body moves exactly with the ground. The physics
/// calls it only while friction is on (a positive rate and the body's
/// [`BodySwitches::friction`](crate::BodySwitches::friction)): with no friction the speed is
/// left exactly as it is.
///
/// ```
/// use bevy_platformer_physics::friction::{apply_ground_friction, friction_decay};
///
/// let decay = friction_decay(10.0, 1.0 / 60.0);
/// // On the ground, a sliding body slows down...
/// assert!(apply_ground_friction(100.0, 0.0, decay) < 100.0);
/// // ...and on a platform moving at 80, a still rider speeds up toward 80.
/// let rider = apply_ground_friction(0.0, 80.0, decay);
/// assert!(rider > 0.0 && rider < 80.0);
/// ```
#[inline]
pub fn apply_ground_friction(velocity_x: f32, ground_x: f32, decay: f32) -> f32 {
    let relative = (velocity_x - ground_x) * decay;
    if relative.abs() < FRICTION_STOP_SPEED {
        ground_x
    } else {
        ground_x + relative
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECAY: f32 = 0.846_481_7; // exp(-10 / 60)

    #[test]
    fn decay_is_the_exponential_of_rate_times_step() {
        assert!((friction_decay(10.0, 1.0 / 60.0) - DECAY).abs() < 1e-6);
        assert_eq!(
            friction_decay(0.0, 1.0 / 60.0),
            1.0,
            "no friction keeps every speed"
        );
    }

    #[test]
    fn on_still_ground_the_speed_decays_toward_zero_and_stops() {
        assert_eq!(apply_ground_friction(100.0, 0.0, DECAY), 100.0 * DECAY);
        assert_eq!(apply_ground_friction(-100.0, 0.0, DECAY), -100.0 * DECAY);
        assert_eq!(
            apply_ground_friction(0.011, 0.0, DECAY),
            0.0,
            "below the stop speed"
        );
        assert_eq!(apply_ground_friction(0.0, 0.0, DECAY), 0.0);
    }

    #[test]
    fn on_moving_ground_the_speed_decays_toward_the_grounds() {
        let v = apply_ground_friction(0.0, 80.0, DECAY);
        assert!((v - 80.0 * (1.0 - DECAY)).abs() < 1e-4, "{v}");
        let v = apply_ground_friction(-20.0, -50.0, DECAY);
        assert!((v - (-50.0 + 30.0 * DECAY)).abs() < 1e-4, "{v}");
        assert_eq!(
            apply_ground_friction(80.005, 80.0, DECAY),
            80.0,
            "records to the ground"
        );
        let mut rider = 0.0;
        for _ in 0..120 {
            rider = apply_ground_friction(rider, 80.0, DECAY);
        }
        assert_eq!(
            rider, 80.0,
            "carried at the ground's speed after two seconds"
        );
    }

    #[test]
    fn no_decay_changes_nothing() {
        assert_eq!(apply_ground_friction(37.5, 80.0, 1.0), 37.5);
    }
}
