//! Copies each body's box centre into its `Transform` after the step.

use bevy::prelude::*;

use crate::body::Aabb;

/// `Transform` x and y from the box centre; z, rotation and scale are left alone.
pub(crate) fn write_transforms(mut bodies: Query<(&Aabb, &mut Transform), Changed<Aabb>>) {
    for (aabb, mut transform) in &mut bodies {
        if aabb.center.is_finite() {
            let t = &mut transform.translation;
            if t.x != aabb.center.x || t.y != aabb.center.y {
                t.x = aabb.center.x;
                t.y = aabb.center.y;
            }
        }
    }
}
