//! Copies each body's box centre into its `Transform` after the step.

use bevy::prelude::*;

use crate::body::Aabb;
use crate::config::PhysicsConfig;

/// `Transform` x and y from the box centre; z, rotation and scale are left alone. On the task
/// pool above [`PhysicsConfig::parallel_min_bodies`] (each body writes only its own).
pub(crate) fn write_transforms(
    config: Res<PhysicsConfig>,
    mut bodies: Query<(&Aabb, &mut Transform), Changed<Aabb>>,
) {
    let write = |(aabb, mut transform): (&Aabb, Mut<Transform>)| {
        if aabb.center.is_finite() {
            let t = &mut transform.translation;
            if t.x != aabb.center.x || t.y != aabb.center.y {
                t.x = aabb.center.x;
                t.y = aabb.center.y;
            }
        }
    };
    // The upper bound counts every body, changed or not.
    if bodies.iter().size_hint().1.unwrap_or(0) >= config.parallel_min_bodies {
        bodies.par_iter_mut().for_each(write);
    } else {
        bodies.iter_mut().for_each(write);
    }
}
