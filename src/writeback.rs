//! `Transform`s follow the boxes after the step: the response sets those of the bodies it moves
//! ([`follow`]), then those of the kinematic bodies ([`write_transforms`]).

use bevy::ecs::change_detection::MaybeLocation;
use bevy::prelude::*;

use crate::body::{Aabb, Kinematic};
use crate::config::PhysicsConfig;
use crate::fast::rows::{
    Changes, Column, DENSE, Tracked, count_rows, for_each_piece, stamp_writes, unpack,
};
use crate::fast::workers::Workers;

/// Sets `transform`'s x and y to `center` when the box `changed` since the system last ran
/// (moved this step, or written by you), is finite, and differs from them; z, rotation and
/// scale are left alone. The `Transform` is marked changed only when written.
#[inline]
pub(crate) fn follow(center: Vec2, changed: bool, transform: &mut Tracked<Transform>) {
    if changed
        && center.is_finite()
        && (transform.translation.x != center.x || transform.translation.y != center.y)
    {
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
}

/// The kinematic bodies' boxes and `Transform`s (the response's system param).
pub(crate) type KinematicTransforms<'w, 's> =
    Query<'w, 's, (Ref<'static, Aabb>, &'static mut Transform), With<Kinematic>>;

/// [`follow`] for every kinematic body (the response does it for the others, which it visits
/// anyway), at the end of the response's system: a system of its own cost one more dispatch
/// of the executor per step. Read as table slices ([`crate::fast::rows`]), on several threads above
/// [`PhysicsConfig::parallel_min_bodies`] (each body writes only its own).
pub(crate) fn write_transforms(
    (config, workers): (&PhysicsConfig, &Workers),
    bodies: &mut KinematicTransforms,
) {
    let (total, parallel) = count_rows(bodies, config.parallel_min_bodies);
    for (aabbs, transforms) in bodies.contiguous_iter_mut().expect(DENSE) {
        let (changed, aabbs) = (Changes::changed(&aabbs), aabbs.into_inner());
        let mut t = unpack(transforms);
        let rows = (aabbs, changed, Column::new(&mut t));
        for_each_piece(
            rows,
            aabbs.len(),
            total,
            workers.threads(parallel),
            |(aabbs, changed, mut t)| {
                for ((aabb, changed), mut transform) in
                    aabbs.iter().zip(changed.iter()).zip(t.iter())
                {
                    follow(aabb.center, changed, &mut transform);
                }
            },
        );
        // The response's system is the writer `track_location` records.
        stamp_writes(&mut t, MaybeLocation::caller());
    }
}
