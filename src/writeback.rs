//! Copies each body's box centre into its `Transform` after the step.

use bevy::prelude::*;

use crate::body::Aabb;
use crate::config::PhysicsConfig;
use crate::parallel::for_each_item;

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
    for_each_item(&mut bodies, config.parallel_min_bodies, write);
}
