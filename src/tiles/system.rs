//! The `TileCollide` system: runs [`collide_with_tiles`] for every body and records the result.

use bevy::prelude::*;

use super::collide::{PassThrough, TileBody, TileParams, collide_with_tiles};
use super::map::TileMap;
use crate::body::{MovingBodies, MovingBody, warn_bits, warn_once_while};
use crate::config::PhysicsConfig;
use crate::flags::{Side, side_bit};
use crate::messages::{Landed, Landings};
use crate::parallel::for_each_item;

/// Tile collision for every valid, non-kinematic body with world collision on, on the task
/// pool above [`PhysicsConfig::parallel_min_bodies`]. [`Landed`] messages are written in
/// entity order, so the output does not depend on the thread count.
pub(crate) fn collide_tiles(
    time: Res<Time<Fixed>>,
    config: Res<PhysicsConfig>,
    map: Res<TileMap>,
    mut bodies: MovingBodies,
    mut landed: MessageWriter<Landed>,
    mut landings: Local<Landings>,
) {
    let params = TileParams {
        dt: time.timestep().as_secs_f32(),
        skin: config.contact_tolerance,
        one_way_tolerance: config.one_way_tolerance,
        max_depenetration: config.max_depenetration,
        ground_friction: config.ground_friction,
    };
    // Bodies with friction switched off use the same parameters without ground friction.
    let frictionless = TileParams {
        ground_friction: 0.0,
        ..params
    };
    let (params, frictionless) = (&params, &frictionless);
    let bounds = map.bounds();
    let map = &*map;
    let found = &*landings;
    let work = |(entity, mut aabb, mut velocity, mut flags, mut state, switches): MovingBody| {
        if !aabb.is_valid() {
            return;
        }
        if !switches.world_collision {
            flags.set_tile_sides(0);
            state.standing_on = None;
            state.overlaps_ladder = false;
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
        let params = if switches.friction {
            params
        } else {
            frictionless
        };
        let outcome = collide_with_tiles(map, &mut body, pass, params);
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
        flags.set_tile_sides(outcome.sides);
        let (standing_on, ladder) = (outcome.standing_on, outcome.overlaps_ladder);
        if state.standing_on != standing_on || state.overlaps_ladder != ladder {
            state.standing_on = standing_on;
            state.overlaps_ladder = ladder;
        }
        warn_once_while(&mut state, warn_bits::EMBEDDED, outcome.embedded, || {
            warn!(
                "body {entity} at {} is buried in solid tiles with no open face within \
                     PhysicsConfig::max_depenetration; it moves freely until it comes out",
                body.center
            )
        });
        let outside = !bounds.is_empty()
            && bounds
                .intersect(Rect::from_center_half_size(body.center, body.half))
                .is_empty();
        warn_once_while(&mut state, warn_bits::OUTSIDE_MAP, outside, || {
            warn!(
                "body {entity} at {} left the tile map {:?}; outside the map there are no \
                 tiles, so it moves freely",
                body.center, bounds
            )
        });
    };
    for_each_item(&mut bodies, config.parallel_min_bodies, work);
    landings.write(&mut landed);
}
