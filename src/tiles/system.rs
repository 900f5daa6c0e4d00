//! The stage `TileCollisionPlugin` ([`PhysicsSystems::TileCollide`]): runs
//! [`collide_with_tiles`](crate::tiles::collide::collide_with_tiles) (articles 001 and 004; its algorithm is in `src/tiles/collide.rs`) for
//! every non-kinematic body with world collision, writes the result, and reports [`Landed`]
//! and [`Squished`] in entity order.

use bevy::prelude::*;

use super::collide::{PassThrough, TileBody, TileParams};
use super::map::TileMap;
use crate::body::{Aabb, BodyState};
use crate::body::{warn_bits, warn_once_while};
use crate::config::PhysicsConfig;
use crate::fast::workers::Workers;
use crate::flags::{Side, side_bit};
use crate::messages::{InEntityOrder, Landed, Landings, Squished, tile_pressers};
use crate::rest_skipping::memory::Awake;
use crate::rest_skipping::moving::{MovingBodies, MovingBody, for_each_moving_body};
use crate::schedule::PhysicsSystems;
use crate::tiles::TileKind;
use crate::tiles::memo::{MemoGeneration, TileMemo};
use bevy::ecs::schedule::InternedScheduleLabel;

/// Tile collision for every valid, non-kinematic body with world collision on, on the task
/// pool above [`PhysicsConfig::parallel_min_bodies`]. [`Landed`] messages are written in
/// entity order, so the output does not depend on the thread count.
pub(crate) fn collide_tiles(
    time: Res<Time<Fixed>>,
    (config, workers): (Res<PhysicsConfig>, Res<Workers>),
    map: Res<TileMap>,
    mut bodies: MovingBodies<TileMemo>,
    (mut landed, mut squished): (MessageWriter<Landed>, MessageWriter<Squished>),
    (mut landings, mut squishes): (Local<Landings>, Local<InEntityOrder<Squished>>),
    mut epoch: Local<MemoGeneration>,
) {
    let params = TileParams {
        dt: time.timestep().as_secs_f32(),
        skin: config.contact_tolerance,
        one_way_tolerance: config.one_way_tolerance,
        max_depenetration: config.max_depenetration,
        ground_friction: config.ground_friction,
        walk_slopes: true,
    };
    // Tile collision results are reused only while the map and the parameters stay the same.
    let epoch = epoch.of_step(map.is_changed(), params);
    let params = &params;
    let bounds = map.bounds();
    let map = &*map;
    let (found, squish) = (&*landings, &*squishes);
    let work = |MovingBody {
                    entity,
                    mut aabb,
                    mut velocity,
                    mut flags,
                    mut state,
                    switches,
                    own: mut memo,
                    rest,
                    ..
                }: MovingBody<TileMemo>| {
        if !aabb.is_valid() {
            return;
        }
        if !switches.world_collision {
            // Marked changed by the response, if the step changes the flags.
            flags.bypass_change_detection().set_tile_sides(0);
            state.standing_on = None;
            state.overlaps_ladder = false;
            rest.after_tiles(aabb.center, velocity.0, *flags);
            return;
        }
        let mut body = TileBody {
            center: aabb.center,
            half: aabb.half_extents,
            velocity: velocity.0,
        };
        let pass = PassThrough {
            drop_through: switches.drop_through,
            climbing: switches.climbing,
        };
        // The step's parameters as this body's switches have them: without ground friction
        // when its friction is off, walking on slopes or not.
        let params = TileParams {
            ground_friction: if switches.friction {
                params.ground_friction
            } else {
                0.0
            },
            walk_slopes: switches.walk_slopes,
            ..*params
        };
        // The memo is the physics' own: its change ticks are left alone.
        let memo = memo.bypass_change_detection();
        let outcome = memo.collide(map, &mut body, pass, &params, switches.friction, epoch);
        if outcome.sides & side_bit(Side::Bottom) != 0 && !flags.pushed(Side::Bottom) {
            found.push(Landed {
                entity,
                velocity: velocity.0,
            });
        }
        // Written only when changed, so resting bodies keep their change ticks (and their
        // Transforms are not touched).
        if aabb.center != body.center {
            aabb.center = body.center;
        }
        if velocity.0 != body.velocity {
            velocity.0 = body.velocity;
        }
        flags
            .bypass_change_detection()
            .set_tile_sides(outcome.sides);
        rest.after_tiles(body.center, body.velocity, *flags);
        let (standing_on, ladder) = (outcome.standing_on, outcome.overlaps_ladder);
        if state.standing_on != standing_on || state.overlaps_ladder != ladder {
            state.standing_on = standing_on;
            state.overlaps_ladder = ladder;
        }
        warn_once_while(&mut state, warn_bits::EMBEDDED, outcome.embedded, || {
            warn!(
                "body {entity} at {} overlaps solid tiles it cannot be pushed out of (no \
                 open face within PhysicsConfig::max_depenetration, or no room between \
                 them); it is held there, moving only away from them, until it comes out",
                body.center
            )
        });
        warn_once_while(&mut state, warn_bits::SQUISHED, outcome.squished, || {
            let has = |side| outcome.sides & side_bit(side) != 0;
            squish.push(Squished {
                entity,
                vertically: has(Side::Bottom) && has(Side::Top),
                horizontally: has(Side::Left) && has(Side::Right),
                center: body.center,
                pressers: tile_pressers(outcome.sides),
            });
        });
        let outside = left_the_map(bounds, body.center, body.half);
        warn_once_while(&mut state, warn_bits::OUTSIDE_MAP, outside, || {
            warn!(
                "body {entity} at {} left the tile map {:?}; outside the map there are no \
                 tiles, so it moves freely",
                body.center, bounds
            )
        });
    };
    // Resting bodies are left alone (see `crate::rest_skipping::memory`).
    let resting = |_: &[Entity]| |_: &[Entity], _, awake: Awake| !awake.is_awake();
    for_each_moving_body(
        &mut bodies,
        (&workers, config.parallel_min_bodies),
        resting,
        work,
    );
    landings.write(&mut landed);
    squishes.write(&mut squished);
}

/// Whether a box (centre and positive half extents) shares no area with the map's `bounds`
/// (touching counts as outside); never for an empty map. The same as intersecting the two
/// rectangles, in a handful of comparisons: every body is checked every step.
#[inline]
pub(crate) fn left_the_map(bounds: Rect, center: Vec2, half: Vec2) -> bool {
    let (lo, hi) = (center - half, center + half);
    let apart = |b_lo: f32, b_hi: f32, lo: f32, hi: f32| b_lo >= hi || lo >= b_hi || lo >= hi;
    !bounds.is_empty()
        && (apart(bounds.min.x, bounds.max.x, lo.x, hi.x)
            || apart(bounds.min.y, bounds.max.y, lo.y, hi.y))
}

/// The stage [`PhysicsSystems::TileCollide`]:
/// [`collide_tiles`], with the [`TileMap`] it reads and the [`TileMemo`] it keeps
/// on every body.
pub(crate) struct TileCollisionPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for TileCollisionPlugin {
    fn build(&self, app: &mut App) {
        app.register_required_components::<Aabb, TileMemo>()
            .init_resource::<TileMap>()
            .add_message::<Landed>()
            .add_message::<Squished>()
            .register_type::<TileKind>()
            .register_type::<TileMap>()
            .register_type::<TileMemo>()
            .register_type::<BodyState>()
            .add_systems(self.0, collide_tiles.in_set(PhysicsSystems::TileCollide));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::unit_floats;

    #[test]
    fn a_body_leaves_the_map_exactly_when_its_box_shares_no_area_with_it() {
        // Against the rectangle intersection, for boxes inside, across and just outside each
        // edge, touching it, and so far out that their half extents vanish in the centre.
        let maps = [
            Rect::new(0.0, 0.0, 160.0, 64.0),
            Rect::new(-50.0, 10.0, -20.0, 90.0),
            Rect::new(0.0, 0.0, 0.0, 0.0),
            // So large that the far-out boxes below lie inside it with no area of their own.
            Rect::new(-1e12, -1e12, 1e12, 1e12),
        ];
        let mut u = unit_floats(0x1EF7_0AAA);
        let (mut inside, mut outside) = (0, 0);
        for bounds in maps {
            for i in 0..20_000 {
                let half = Vec2::new(0.5 + u() * 20.0, 0.5 + u() * 20.0);
                let mut center = Vec2::new(u() * 300.0 - 100.0, u() * 200.0 - 60.0);
                match i % 4 {
                    // Touching an edge exactly.
                    0 => center.x = bounds.max.x + half.x,
                    1 => center.y = bounds.min.y - half.y,
                    2 if i % 8 == 2 => center *= 1e9,
                    _ => {}
                }
                let expected = !bounds.is_empty()
                    && bounds
                        .intersect(Rect::from_center_half_size(center, half))
                        .is_empty();
                assert_eq!(
                    left_the_map(bounds, center, half),
                    expected,
                    "{center} {half}"
                );
                if expected {
                    outside += 1;
                } else {
                    inside += 1;
                }
            }
        }
        assert!(inside > 5_000 && outside > 5_000, "{inside} {outside}");
    }
}
