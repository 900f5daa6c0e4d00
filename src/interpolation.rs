//! Smooth drawing between fixed steps (cargo feature `interpolation`).
//!
//! The physics moves bodies once per fixed step (60 times a second by default); a game that
//! draws at 144 frames a second, or slows time down, shows each body standing still for
//! several frames and then jumping. [`InterpolationPlugin`] draws each body between its last
//! two fixed-step positions instead, by how far time has gone into the next step (Bevy's
//! `Time<Fixed>::overstep_fraction`): at a fraction of 0 where the step before the last left
//! it, at 0.5 half way from there to where the last step left it. Drawing thus runs one step
//! behind the physics, as any interpolation does. Only the `Transform` is eased; the [`Aabb`]
//! (the physics' own position) is never touched.
//!
//! It is [bevy_transform_interpolation](https://docs.rs/bevy_transform_interpolation) (its
//! release for Bevy 0.19), which eases any `Transform` written in the fixed-step schedules,
//! plus one rule of ours: a body moved between steps by the game (a teleport: its `Aabb` set
//! outside the physics, or its spawn) is drawn where it is, never smeared from where it was.
//! We use that crate rather than our own easing because it already does what the physics
//! needs (the physics writes `Transform` in the fixed step, like any fixed-step system), and a
//! game that uses it for its other entities gets one easing for everything.
//!
//! Add the plugin, and [`TranslationInterpolation`] to each body drawn smoothly:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::interpolation::{InterpolationPlugin, TranslationInterpolation};
//! use bevy_platformer_physics::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, PhysicsPlugin::default(), InterpolationPlugin));
//! app.world_mut().spawn((
//!     Aabb::new(Vec2::new(40.0, 40.0), Vec2::splat(6.0)),
//!     Velocity(Vec2::new(60.0, 0.0)),
//!     TranslationInterpolation,
//! ));
//! ```
//!
//! [`Aabb`]: crate::Aabb

use bevy::prelude::*;
use bevy_transform_interpolation::prelude::TransformInterpolationPlugin;
use bevy_transform_interpolation::{TransformEasingSystems, TranslationEasingState};

pub use bevy_transform_interpolation::prelude::TranslationInterpolation;

use crate::body::OldPosition;

/// Draws bodies with [`TranslationInterpolation`] between their last two fixed-step positions
/// (see the [module](self)). Adds bevy_transform_interpolation's `TransformInterpolationPlugin`
/// if the app has none.
pub struct InterpolationPlugin;

impl Plugin for InterpolationPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TransformInterpolationPlugin>() {
            app.add_plugins(TransformInterpolationPlugin::default());
        }
        app.add_systems(
            FixedLast,
            draw_moved_bodies_where_they_are.before(TransformEasingSystems::UpdateEnd),
        );
    }
}

/// A body whose step began somewhere else than where the last step left it was moved by the
/// game in between (a teleport): it is not eased this step, so it is drawn where the physics
/// left it, not on the way from its old place.
fn draw_moved_bodies_where_they_are(
    mut bodies: Query<(&OldPosition, &mut TranslationEasingState)>,
) {
    for (old, mut easing) in &mut bodies {
        if let Some(start) = easing.start
            && start.truncate() != old.0
        {
            easing.start = None;
        }
    }
}
