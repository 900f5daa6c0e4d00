//! Copies each body's box centre into its `Transform` after the step.

use bevy::prelude::*;

use crate::body::Aabb;
use crate::config::PhysicsConfig;
use crate::rows::{Changes, Column, DENSE, count_rows, for_each_piece, unpack};

/// `Transform` x and y from the centre of every box changed since the last write-back; z,
/// rotation and scale are left alone. Read as table slices ([`crate::rows`]), on the task pool
/// above [`PhysicsConfig::parallel_min_bodies`] (each body writes only its own).
pub(crate) fn write_transforms(
    config: Res<PhysicsConfig>,
    mut bodies: Query<(Ref<Aabb>, &mut Transform)>,
) {
    let (total, parallel) = count_rows(&bodies, config.parallel_min_bodies);
    for (aabbs, transforms) in bodies.contiguous_iter_mut().expect(DENSE) {
        let (changed, aabbs) = (Changes::changed(&aabbs), aabbs.into_inner());
        let mut t = unpack(transforms);
        let rows = (aabbs, changed, Column::new(&mut t));
        for_each_piece(
            rows,
            aabbs.len(),
            total,
            parallel,
            |(aabbs, changed, mut t)| {
                for ((aabb, changed), mut transform) in
                    aabbs.iter().zip(changed.iter()).zip(t.iter())
                {
                    let c = aabb.center;
                    if !changed || !c.is_finite() {
                        continue;
                    }
                    if transform.translation.x != c.x || transform.translation.y != c.y {
                        transform.translation.x = c.x;
                        transform.translation.y = c.y;
                    }
                }
            },
        );
    }
}
