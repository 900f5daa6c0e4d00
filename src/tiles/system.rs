//! The `TileCollide` system: runs [`collide_with_tiles`] for every body and records the result.

use bevy::prelude::*;

use super::collide::{PassThrough, TileBody, TileParams, collide_with_tiles};
use super::map::TileMap;
use crate::body::{Aabb, BodyState, BodySwitches, Kinematic, Velocity, warn_bits};
use crate::config::PhysicsConfig;
use crate::flags::{PushFlags, Side, side_bit};
use crate::messages::Landed;

type TileQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Aabb,
        &'static mut Velocity,
        &'static mut PushFlags,
        &'static mut BodyState,
        &'static BodySwitches,
    ),
    Without<Kinematic>,
>;

/// Tile collision for every valid, non-kinematic body with world collision on.
pub(crate) fn collide_tiles(
    time: Res<Time<Fixed>>,
    config: Res<PhysicsConfig>,
    map: Res<TileMap>,
    mut bodies: TileQuery,
    mut landed: MessageWriter<Landed>,
) {
    let params = TileParams {
        dt: time.timestep().as_secs_f32(),
        skin: config.contact_tolerance,
        one_way_tolerance: config.one_way_tolerance,
        max_depenetration: config.max_depenetration,
        ground_friction: config.ground_friction,
    };
    let bounds = map.bounds();
    let has_tiles = !bounds.is_empty();
    for (entity, mut aabb, mut velocity, mut flags, mut state, switches) in &mut bodies {
        if !aabb.is_valid() {
            continue;
        }
        if !switches.world_collision {
            flags.set_tile_sides(0);
            state.standing_on = None;
            state.overlaps_ladder = false;
            continue;
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
        let params = TileParams {
            ground_friction: if switches.friction {
                params.ground_friction
            } else {
                0.0
            },
            ..params
        };
        let outcome = collide_with_tiles(&map, &mut body, pass, &params);
        let landed_now = outcome.sides & side_bit(Side::Bottom) != 0 && !flags.pushed(Side::Bottom);
        if landed_now {
            landed.write(Landed {
                entity,
                velocity: velocity.0,
            });
        }
        aabb.center = body.center;
        velocity.0 = body.velocity;
        flags.set_tile_sides(outcome.sides);
        state.standing_on = outcome.standing_on;
        state.overlaps_ladder = outcome.overlaps_ladder;

        if outcome.embedded {
            if state.raise(warn_bits::EMBEDDED) {
                warn!(
                    "body {entity} at {} is buried in solid tiles with no open face within \
                     PhysicsConfig::max_depenetration; it moves freely until it comes out",
                    body.center
                );
            }
        } else {
            state.clear(warn_bits::EMBEDDED);
        }
        let outside = has_tiles
            && bounds
                .intersect(Rect::from_center_half_size(body.center, body.half))
                .is_empty();
        if outside {
            if state.raise(warn_bits::OUTSIDE_MAP) {
                warn!(
                    "body {entity} at {} left the tile map {:?}; outside the map there are no \
                     tiles, so it moves freely",
                    body.center, bounds
                );
            }
        } else {
            state.clear(warn_bits::OUTSIDE_MAP);
        }
    }
}
