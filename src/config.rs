//! `PhysicsConfig`: the runtime tuning of the step (gravity, fall speed, friction, tolerances).

use bevy::prelude::*;

/// Runtime tuning of the physics, read at every step. Insert your own before or after adding
/// [`PhysicsPlugin`](crate::PhysicsPlugin), or change it at any time.
///
/// All lengths are world units, all speeds world units per second, y up.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
///     .insert_resource(PhysicsConfig {
///         gravity: Vec2::new(0.0, -1500.0),
///         max_fall_speed: 900.0,
///         ..default()
///     });
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct PhysicsConfig {
    /// Acceleration applied to every body whose [`BodySwitches::gravity`] is on. Default
    /// `(0, -980)`. Use `Vec2::ZERO` for a top-down game.
    ///
    /// A gravity with a NaN or infinite component is refused: the step warns once and keeps
    /// the last valid gravity (zero if there was none) until a valid one is set.
    ///
    /// [`BodySwitches::gravity`]: crate::BodySwitches::gravity
    pub gravity: Vec2,
    /// Gravity never makes a body fall faster than this along gravity (article 001's clamp).
    /// Default `1200`; `f32::INFINITY` for no cap.
    ///
    /// It does not limit speeds you set yourself: a body already falling at this speed or
    /// faster (a dive the game set) gains nothing from gravity and keeps its speed, and a
    /// slower one gains at most what takes it to the cap. Only the speed along gravity is
    /// capped; the speed across it is never touched. A NaN or negative value is refused like a
    /// bad gravity (the last valid value is kept, `1200` if there was none).
    pub max_fall_speed: f32,
    /// How fast a body standing on tiles or on another body loses horizontal speed relative to
    /// what it stands on, per second: after standing for `t` seconds its speed relative to the
    /// ground is multiplied by `exp(-ground_friction * t)`. Default `10` (it keeps about 85% of
    /// it per 1/60 s step). On tiles the ground is still; on a body it moves at that body's
    /// [`Velocity`](crate::Velocity), so a rider is carried along by a moving platform. `0`
    /// disables friction
    /// for everyone; [`BodySwitches::friction`] disables it per body. A controller that sets the
    /// velocity every step still moves at that speed: friction is applied after the move. Below
    /// 0.01 units per second relative to the ground the body moves with the ground.
    /// Walking on slopes does not depend on friction
    /// ([`BodySwitches::walk_slopes`](crate::BodySwitches::walk_slopes)).
    ///
    /// [`BodySwitches::friction`]: crate::BodySwitches::friction
    pub ground_friction: f32,
    /// How far below a one-way platform's (or ladder top's) top a body's feet may be and still
    /// be put back on top of it when it is not moving up (article 001's jump-through
    /// tolerance). Default `4`.
    pub one_way_tolerance: f32,
    /// Contacts closer than this are "touching": a path that passes a tile within this
    /// distance, or an overlap smaller than this, is not a collision. It is grown by one float
    /// step of the position far from the origin. Default `0.001`.
    pub contact_tolerance: f32,
    /// A body found overlapping solid tiles is pushed out through their open faces. When it
    /// overlaps them by more than this on every open face (or has no room: it is taller than
    /// the gap between a floor and a ceiling), it is left in place with one warning and held
    /// there: it moves only away from the tiles that press on it, never deeper into them or
    /// through them, and a [`Squished`](crate::Squished) message is written if they press on
    /// two opposite sides. Default `64`.
    pub max_depenetration: f32,
    /// Side of a [`Partition`](crate::partition::Partition) cell, in tiles (article 000's
    /// 16 x 16). Changing it rebuilds the partition at the next step. Default `16`.
    ///
    /// Larger cells mean more boxes compared per body, smaller ones more cells per body (and
    /// more bodies changing cells each step); a cell several times the size of a typical body
    /// keeps both low. In the benchmark's crowded pile (boxes 8 to 24 units wide on 16-unit
    /// tiles) 8 gives the shortest step, 4 and 16 longer ones (see `BENCHMARKS.md`).
    pub partition_cell_tiles: u32,
    /// Each stage's pass over the bodies is spread over as many threads as Bevy's compute task
    /// pool has when there are at least this many bodies (below it, spreading the work costs
    /// more than it saves). The results are bit-identical either way. Default `2048`.
    ///
    /// Such a step keeps the pool's threads from its first stage to its last: between two
    /// passes they watch for the next one rather than go back to the pool, so that the step
    /// neither allocates nor waits for sleeping threads to wake. A system running beside the
    /// physics in the same schedule gets them once the step is over.
    pub parallel_min_bodies: usize,
    /// Write [`CollisionStarted`](crate::CollisionStarted) and
    /// [`CollisionEnded`](crate::CollisionEnded). Default `true`. Finding them compares the
    /// partners of each body that was not left at rest (see [`RestSkippingPlugin`](crate::RestSkippingPlugin)) with the
    /// last step's (in the benchmark's pile of 16 000, about a fifteenth of the step's work):
    /// turn it off when nothing reads them. [`Contacts`](crate::Contacts) are filled either
    /// way, and turning it back on reports only what changes from then on.
    pub collision_events: bool,
    /// How many relaxation passes may follow the response in each step
    /// ([`RelaxationPlugin`](crate::RelaxationPlugin)): bodies still overlapping are pushed
    /// apart in ordered sweeps, up from the support, then both ways along x, from what holds
    /// them (tiles, kinematic bodies) outward; the passes stop early when one changes nothing.
    /// A stack or a row pressed into a wall settles in one pass. Default `4`: the benchmark's
    /// pile and crowd end every run with no pair over one unit (bodies squeezed where they
    /// cannot fit are reported [`Squished`](crate::Squished)); what relaxation costs, and the
    /// overlaps left with fewer passes, are in `BENCHMARKS.md`. `0` turns it off (the article's
    /// response alone), as leaving out `RelaxationPlugin` does.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
    ///     .insert_resource(PhysicsConfig {
    ///         relaxation_passes: 2,
    ///         ..default()
    ///     });
    /// ```
    pub relaxation_passes: u32,
    /// Measure how deep the bodies are inside each other where each step leaves them, into
    /// [`PhysicsStats::deepest_overlap`](crate::PhysicsStats::deepest_overlap) and
    /// [`PhysicsStats::pairs_over_one_unit`](crate::PhysicsStats::pairs_over_one_unit) (both
    /// stay 0 while it is off). Default `false`;
    /// [`PhysicsDiagnosticsPlugin`](crate::diagnostics::PhysicsDiagnosticsPlugin) and the
    /// debug panel turn it on. It costs one pass over the bodies and one over the pairs
    /// detection found, on one thread (its cost is in `BENCHMARKS.md`).
    pub measure_overlaps: bool,
}

/// Turns [`PhysicsConfig::measure_overlaps`] on, for the plugins that show the overlaps.
pub(crate) fn measure_overlaps(config: Option<ResMut<PhysicsConfig>>) {
    if let Some(mut config) = config {
        config.measure_overlaps = true;
    }
}

/// How far, per axis, relaxation's partners reach from each body's box, in tiles.
const RELAXATION_REACH_TILES: f32 = 0.25;

impl PhysicsConfig {
    /// How far, per axis, relaxation's partners reach from each body's box on a map of
    /// `tile_size` tiles: a quarter of a tile when relaxation is on, nothing without it. Pair
    /// detection lists the pairs apart by at most twice this (the near lists), and the
    /// partition files each body by its box grown by this much more than the contact
    /// tolerance, so that two such bodies share a cell.
    pub(crate) fn relaxation_reach(&self, tile_size: f32) -> f32 {
        if self.relaxation_passes > 0 {
            tile_size * RELAXATION_REACH_TILES
        } else {
            0.0
        }
    }
}

impl Default for PhysicsConfig {
    fn default() -> Self {
        Self {
            gravity: Vec2::new(0.0, -980.0),
            max_fall_speed: 1200.0,
            ground_friction: 10.0,
            one_way_tolerance: 4.0,
            contact_tolerance: 1e-3,
            max_depenetration: 64.0,
            partition_cell_tiles: 16,
            parallel_min_bodies: 2048,
            collision_events: true,
            relaxation_passes: 4,
            measure_overlaps: false,
        }
    }
}

/// The gravity and fall-speed cap the step uses: [`PhysicsConfig`]'s, or the last valid ones
/// while it holds a gravity that is not finite or a cap that is NaN or negative (with one
/// warning while the bad values last).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CheckedFall {
    gravity: Vec2,
    max_fall_speed: f32,
    warned: bool,
}

impl Default for CheckedFall {
    /// No valid value seen yet: zero gravity, the default cap.
    fn default() -> Self {
        Self {
            gravity: Vec2::ZERO,
            max_fall_speed: PhysicsConfig::default().max_fall_speed,
            warned: false,
        }
    }
}

impl CheckedFall {
    /// Takes `config`'s values that are valid, and returns the (gravity, cap) to use.
    pub(crate) fn update(&mut self, config: &PhysicsConfig) -> (Vec2, f32) {
        let gravity_ok = config.gravity.is_finite();
        let cap_ok = config.max_fall_speed >= 0.0;
        if gravity_ok {
            self.gravity = config.gravity;
        }
        if cap_ok {
            self.max_fall_speed = config.max_fall_speed;
        }
        let bad = !(gravity_ok && cap_ok);
        if bad && !self.warned {
            warn!(
                "PhysicsConfig has gravity {} and max_fall_speed {} (gravity must be finite, \
                 max_fall_speed zero or more); the step keeps gravity {} and max_fall_speed {} \
                 until both are valid",
                config.gravity, config.max_fall_speed, self.gravity, self.max_fall_speed
            );
        }
        self.warned = bad;
        (self.gravity, self.max_fall_speed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_gravity_keeps_the_last_valid_value() {
        let mut fall = CheckedFall::default();
        let mut config = PhysicsConfig {
            gravity: Vec2::new(f32::NAN, -10.0),
            ..default()
        };
        // No valid gravity seen yet: zero, and the default cap.
        assert_eq!(fall.update(&config), (Vec2::ZERO, 1200.0));
        assert!(fall.warned);
        config.gravity = Vec2::new(0.0, -500.0);
        assert_eq!(fall.update(&config), (Vec2::new(0.0, -500.0), 1200.0));
        assert!(!fall.warned, "valid again: a later bad value warns again");
        config.gravity = Vec2::new(0.0, f32::NEG_INFINITY);
        config.max_fall_speed = 300.0;
        assert_eq!(fall.update(&config), (Vec2::new(0.0, -500.0), 300.0));
        config.gravity = Vec2::ZERO;
        for bad in [f32::NAN, -1.0] {
            config.max_fall_speed = bad;
            assert_eq!(fall.update(&config), (Vec2::ZERO, 300.0), "{bad}");
        }
        config.max_fall_speed = f32::INFINITY;
        assert_eq!(fall.update(&config), (Vec2::ZERO, f32::INFINITY));
    }
}
