//! Object-vs-object response (article 003, with its errata): bodies move out of each other.
//!
//! # Algorithm
//!
//! For each non-kinematic body, reading only its own contacts (as in
//! [`Contacts`](crate::Contacts): captured at detection, so the result does not depend on the
//! order bodies are processed in):
//!
//! 1. Start with no offset. For each contact, take its overlap minus the offset already
//!    applied (so landing on two bodies at once corrects once, not twice). On an axis where
//!    the offset has already carried the body out of this contact (or past it), the contact is
//!    resolved: it counts as touching, never as an overlap from the other side, so the outcome
//!    does not depend on the order of the contacts.
//! 2. **Touching** (overlap within [`PhysicsConfig::contact_tolerance`] on an axis, or a gap
//!    that small: the tolerance detection used, grown by a float step far from the origin): set the push flag toward the
//!    other body and remove the velocity toward it. Nothing moves.
//! 3. **Overlapping**: split the overlap by how far each body actually moved this step
//!    (`|position - old position|` per axis): the faster one takes the larger share; both
//!    still, half each; against a kinematic body, all of it. A body that cannot give way in
//!    the direction it would be pushed (it touches a tile on that side this step, or touched a
//!    body there last step) counts as immovable on that axis, like a kinematic body: without
//!    this, a crowd pressed against a wall keeps half of every overlap.
//! 4. **Axis**: from last step's positions. Overlapping before on y only: a horizontal bump,
//!    resolve on x. On x only: a vertical bump, on y. On neither (diagonal) or on both
//!    (spawned overlapping): the axis with the smaller overlap. (The errata's final condition
//!    resolves "both" on y; separating on the smaller overlap keeps two crates spawned side by
//!    side from being stacked.)
//! 5. Add the share to the offset on that axis, set the push flag and remove the velocity
//!    toward the other body.
//! 6. The total offset is applied through the tile sweep (a body is never pushed into a
//!    tile). The velocity of the body stood on is recorded in
//!    [`BodyState::ground_velocity`](crate::BodyState::ground_velocity): at the next step
//!    gravity does not make the body fall faster than its support, so stacks rest without
//!    sinking into each other and rising platforms lift what stands on them.
//! 7. A body standing on another body (and not on a tile, whose friction tile collision
//!    applied) loses horizontal speed to [`PhysicsConfig::ground_friction`] relative to the
//!    body stood on ([`apply_ground_friction`]): a crate stops sliding on the crate below, and a
//!    rider is carried along by a platform moving sideways.

use bevy::prelude::*;
use core::borrow::Borrow;

use crate::body::{warn_bits, warn_once_while};
use crate::config::PhysicsConfig;
use crate::contacts::CollisionData;
use crate::fast::workers::Workers;
use crate::fast::workers::release_workers;
use crate::flags::PushFlags;
use crate::flags::{Side, side_bit};
use crate::friction::{apply_ground_friction, friction_decay};
use crate::geometry::pair_skin;
use crate::messages::{InEntityOrder, Landed, Landings, Presser, Squished};
use crate::pairs::store::ContactStore;
use crate::partition::update_partition;
use crate::rest_skipping::memory::Awake;
use crate::rest_skipping::moving::{MovingBodies, MovingBody, for_each_moving_body};
use crate::schedule::PhysicsSystems;
use crate::tiles::TileMap;
use crate::tiles::collide::{PassThrough, sweep_displacement};
use crate::writeback::{KinematicTransforms, follow, write_transforms};
use bevy::ecs::schedule::InternedScheduleLabel;
use ended::ResponseEnds;
use overlaps::measure_overlaps;

internal! {
/// What [`respond`] decided for one body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Response {
    /// How far to move the body.
    pub offset: Vec2,
    /// The velocity with the components toward touched bodies removed.
    pub velocity: Vec2,
    /// Sides touching other bodies (four bits: left 1, right 2, top 4, bottom 8).
    pub sides: u8,
    /// The body stood on and its velocity (the one moving up fastest, when several; the
    /// first of those in contact order).
    pub ground: Option<(Entity, Vec2)>,
    /// On each side (in [`Side::ALL`] order), the kinematic body that pushes it out from that
    /// side, by more than the tolerance, and how deep it overlaps (the deepest, when several;
    /// the lower entity, when as deep).
    pub pressers: [Option<(Entity, f32)>; 4],
}
}

internal! {
/// Article 003's response of one body to its contacts (see the module's algorithm), in the
/// order given (a body's [`Contacts`](crate::Contacts) are in the step's order): a slice or an array of [`CollisionData`] (such as a body's
/// [`Contacts`](crate::Contacts)), or any iterator of them, owned or borrowed.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::CollisionData;
/// use bevy_platformer_physics::response::respond;
///
/// // Fell 2 units onto a body that stood still: all 2 units are ours to undo.
/// let contact = CollisionData {
///     other: Entity::PLACEHOLDER,
///     overlap: Vec2::new(12.0, 2.0),
///     velocity: Vec2::new(0.0, -120.0),
///     other_velocity: Vec2::ZERO,
///     old_position: Vec2::new(0.0, 14.0),
///     other_old_position: Vec2::ZERO,
///     position: Vec2::new(0.0, 10.0),
///     other_position: Vec2::ZERO,
///     half_extents: Vec2::splat(6.0),
///     other_half_extents: Vec2::splat(6.0),
///     other_kinematic: false,
///     blocked: 0,
///     other_blocked: 0,
/// };
/// let r = respond(Vec2::new(0.0, -120.0), [contact], 1e-3);
/// assert_eq!(r.offset, Vec2::new(0.0, 2.0));
/// assert_eq!(r.velocity, Vec2::ZERO);
/// ```
#[inline]
pub fn respond<C: Borrow<CollisionData>>(
    velocity: Vec2,
    contacts: impl IntoIterator<Item = C>,
    touch: f32,
) -> Response {
    // The tolerance detection used for each pair, so a pair it found touching within it
    // (boxes a rounding error apart) is touching here too.
    let skinned = contacts.into_iter().map(|c| {
        let c = *c.borrow();
        (c, pair_skin(touch, c.position, c.other_position))
    });
    respond_skinned(velocity, skinned)
}
}

/// [`respond`] to contacts given with their pairs' contact tolerance ([`pair_skin`]): the
/// step has each body's at hand, in its snapshot.
#[inline]
pub(crate) fn respond_skinned(
    velocity: Vec2,
    contacts: impl IntoIterator<Item = (CollisionData, f32)>,
) -> Response {
    let mut r = Response {
        velocity,
        ..default()
    };
    for (c, touch) in contacts {
        let c = &c;
        let overlap = remaining_overlap(c.overlap, r.offset, touch);
        if overlap.x.abs() <= touch {
            r.block_x(c.other_position.x > c.position.x);
            continue;
        }
        if overlap.y.abs() <= touch {
            r.block_y(c.other_position.y > c.position.y, c);
            continue;
        }
        let ratio = share(c, overlap);
        let before = (c.old_position - c.other_old_position).abs();
        let reach = c.half_extents + c.other_half_extents;
        let (was_x, was_y) = (before.x < reach.x, before.y < reach.y);
        let horizontal =
            (!was_x && was_y) || (was_x == was_y && overlap.x.abs() <= overlap.y.abs());
        if horizontal {
            r.offset.x += overlap.x * ratio.x;
            r.block_x(overlap.x < 0.0);
        } else {
            r.offset.y += overlap.y * ratio.y;
            r.block_y(overlap.y < 0.0, c);
        }
        if c.other_kinematic {
            r.pressed(c.other, c.overlap, horizontal);
        }
    }
    r
}

/// The message for a body squished by kinematic bodies at `center`, pressed by `pressers`
/// (what [`squeezed`] found).
pub(crate) fn squished_by_bodies(
    entity: Entity,
    center: Vec2,
    pressers: Option<[Option<Presser>; 4]>,
) -> Squished {
    let pressers = pressers.unwrap_or_default();
    let pressed = |side: Side| pressers[side as usize].is_some();
    Squished {
        entity,
        vertically: pressed(Side::Top) && pressed(Side::Bottom),
        horizontally: pressed(Side::Left) && pressed(Side::Right),
        center,
        pressers,
    }
}

/// What presses a body its response moved by `moved` when it wanted `wanted` (the tile sweep
/// stops it at tiles), on each side in [`Side::ALL`] order, if it is pressed from two opposite
/// sides (it is squished: see [`Squished`]): a tile on a side toward which the
/// sweep cut its push short by more than `touch`, else the kinematic body that pushes it from
/// that side.
pub(crate) fn squeezed(
    pressers: &[Option<(Entity, f32)>; 4],
    wanted: Vec2,
    moved: Vec2,
    touch: f32,
) -> Option<[Option<Presser>; 4]> {
    let cut = |side: Side| match side {
        Side::Left => wanted.x < 0.0 && moved.x - wanted.x > touch,
        Side::Right => wanted.x > 0.0 && wanted.x - moved.x > touch,
        Side::Bottom => wanted.y < 0.0 && moved.y - wanted.y > touch,
        Side::Top => wanted.y > 0.0 && wanted.y - moved.y > touch,
    };
    let by = Side::ALL.map(|side| {
        if cut(side) {
            Some(Presser::Tile)
        } else {
            pressers[side as usize].map(|(body, _)| Presser::Body(body))
        }
    });
    let pressed = |side: Side| by[side as usize].is_some();
    let squeezed = (pressed(Side::Left) && pressed(Side::Right))
        || (pressed(Side::Top) && pressed(Side::Bottom));
    squeezed.then_some(by)
}

/// What is left of `overlap` once the owner has moved by `offset` for the contacts before it
/// (step 1): the overlap less the offset, except on an axis where the owner overlapped the
/// other body by more than `touch` and the offset has already taken it out (or past): that
/// axis is left at zero, touching. (Within `touch` an overlap's sign says nothing: a gap is a
/// negative overlap.)
#[inline]
fn remaining_overlap(overlap: Vec2, offset: Vec2, touch: f32) -> Vec2 {
    let left = overlap - offset;
    let resolved = overlap.abs().cmpgt(Vec2::splat(touch)) & (left * overlap).cmplt(Vec2::ZERO);
    Vec2::select(resolved, Vec2::ZERO, left)
}

/// Per axis, whether the owner and the other body can each give way in the direction the
/// overlap pushes them: `[owner blocked, other blocked]` for x, then for y.
fn blocked_pair(c: &CollisionData, overlap: Vec2) -> [[bool; 2]; 2] {
    let blocked = |sides: u8, side: Side| sides & side_bit(side) != 0;
    // The owner moves along the overlap's sign; the other body the opposite way. A positive
    // x overlap moves the owner right: it is blocked if its right side is.
    let (mx, ox) = if overlap.x > 0.0 {
        (Side::Right, Side::Left)
    } else {
        (Side::Left, Side::Right)
    };
    let (my, oy) = if overlap.y > 0.0 {
        (Side::Top, Side::Bottom)
    } else {
        (Side::Bottom, Side::Top)
    };
    [
        [
            blocked(c.blocked, mx),
            blocked(c.other_blocked, ox) || c.other_kinematic,
        ],
        [
            blocked(c.blocked, my),
            blocked(c.other_blocked, oy) || c.other_kinematic,
        ],
    ]
}

/// The owner's share of `overlap` on each axis (step 3).
fn share(c: &CollisionData, overlap: Vec2) -> Vec2 {
    if c.other_kinematic {
        return Vec2::ONE;
    }
    let mine = (c.position - c.old_position).abs();
    let theirs = (c.other_position - c.other_old_position).abs();
    let sum = mine + theirs;
    let by_speed = |m: f32, s: f32| if s == 0.0 { 0.5 } else { m / s };
    // A body that cannot give way on the side it would be pushed to (a tile there, or a body it
    // rested against) is treated as immovable on that axis, as article 003 treats a body that
    // did not move.
    let axis = |[mine_blocked, theirs_blocked]: [bool; 2], m: f32, s: f32| match (
        mine_blocked,
        theirs_blocked,
    ) {
        (false, true) => 1.0,
        (true, false) => 0.0,
        _ => by_speed(m, s),
    };
    let [x, y] = blocked_pair(c, overlap);
    Vec2::new(axis(x, mine.x, sum.x), axis(y, mine.y, sum.y))
}

impl Response {
    /// A kinematic body `other` pushes this one out of an `overlap` (the contact's, so that the
    /// order of the contacts changes nothing) along x (`horizontal`) or y: it presses on the
    /// side it is on.
    fn pressed(&mut self, other: Entity, overlap: Vec2, horizontal: bool) {
        let (side, depth) = match (horizontal, overlap.x < 0.0, overlap.y < 0.0) {
            (true, true, _) => (Side::Right, -overlap.x),
            (true, false, _) => (Side::Left, overlap.x),
            (false, _, true) => (Side::Top, -overlap.y),
            (false, _, false) => (Side::Bottom, overlap.y),
        };
        let slot = &mut self.pressers[side as usize];
        let deeper = match *slot {
            Some((body, d)) => depth > d || (depth == d && other < body),
            None => true,
        };
        if deeper {
            *slot = Some((other, depth));
        }
    }

    /// A contact on the right (`true`) or left side: flag it, stop moving toward it.
    fn block_x(&mut self, right: bool) {
        if right {
            self.sides |= side_bit(Side::Right);
            self.velocity.x = self.velocity.x.min(0.0);
        } else {
            self.sides |= side_bit(Side::Left);
            self.velocity.x = self.velocity.x.max(0.0);
        }
    }

    /// A contact on the top (`true`) or bottom side; a bottom contact is ground.
    ///
    /// Moving down, the body keeps at least its support's downward speed: it stops falling
    /// *relative to* the support, so a rider of a descending platform descends with it instead
    /// of stopping in mid-air. A rising support's speed is given at the next step's integration
    /// (a body falls no faster than its support). Against a body above, it only stops rising.
    fn block_y(&mut self, top: bool, c: &CollisionData) {
        if top {
            self.sides |= side_bit(Side::Top);
            self.velocity.y = self.velocity.y.min(0.0);
        } else {
            self.sides |= side_bit(Side::Bottom);
            let v = c.other_velocity;
            self.velocity.y = self.velocity.y.max(v.y.min(0.0));
            self.ground = Some(match self.ground {
                Some(g) if g.1.y >= v.y => g,
                _ => (c.other, v),
            });
        }
    }
}

/// Applies [`respond`] to every non-kinematic body, in parallel above
/// [`PhysicsConfig::parallel_min_bodies`], and writes [`Landed`] for the bodies that came to
/// stand on another body (tile landings are written by tile collision; a body landing on both
/// at once lands once). The landing velocity is the one the body had at detection (as in its
/// [`Contacts`](crate::Contacts)). The messages are written in entity order. Then the
/// kinematic bodies' `Transform`s follow their boxes ([`write_transforms`]).
#[allow(
    clippy::too_many_arguments,
    reason = "a system: each argument is a system parameter it reads or writes"
)]
pub(crate) fn respond_to_contacts(
    time: Res<Time<Fixed>>,
    (config, workers): (Res<PhysicsConfig>, Res<Workers>),
    (map, layout, mut ends): (Res<TileMap>, Res<ContactStore>, ResMut<ResponseEnds>),
    mut bodies: MovingBodies<Transform>,
    mut kinematic: KinematicTransforms,
    (mut landings, mut squishes): (Local<Landings>, Local<InEntityOrder<Squished>>),
    (mut landed, mut squished): (MessageWriter<Landed>, MessageWriter<Squished>),
) {
    let touch = config.contact_tolerance;
    let decay = friction_decay(config.ground_friction, time.timestep().as_secs_f32());
    // Off (or negative) means off, as on tiles: not even the snap to the ground's speed.
    let friction = config.ground_friction > 0.0;
    // Switching relaxation on changes the configuration, which wakes every body: each is
    // recorded before its first pass.
    let relaxing = config.relaxation_passes > 0;
    ends.fit(&layout);
    let (map, layout, found, squeezes) = (&*map, &*layout, &*landings, &*squishes);
    let ends = &*ends;
    let apply = |MovingBody {
                     entity,
                     mut aabb,
                     mut velocity,
                     mut flags,
                     mut state,
                     switches,
                     own: mut transform,
                     rest,
                     awake,
                 }: MovingBody<Transform>| {
        // An active body that is not awake (an awake body's partner) responds from the state
        // tile collision left it in at its last processed step (see `crate::rest_skipping::memory`).
        if !awake.is_awake() {
            let (center, v, tile_flags) = rest.tile_state();
            if aabb.center != center {
                aabb.center = center;
            }
            if velocity.0 != v {
                velocity.0 = v;
            }
            *flags.bypass_change_detection() = tile_flags;
        }
        let contacts = layout.of(entity);
        if contacts.len() == 0 {
            if state.ground_velocity != Vec2::ZERO || state.ground.is_some() {
                state.ground_velocity = Vec2::ZERO;
                state.ground = None;
            }
            warn_once_while(&mut state, warn_bits::PRESSED, false, || {});
        } else {
            let landing_velocity = contacts.velocity();
            let mut r = respond_skinned(velocity.0, contacts.with_skins());
            // Ground friction on a body, relative to its velocity (on tiles it was applied by
            // tile collision, once).
            if let Some((_, ground)) = r.ground
                && switches.friction
                && friction
                && !flags.pushes_tile(Side::Bottom)
            {
                r.velocity.x = apply_ground_friction(r.velocity.x, ground.x, decay);
            }
            let bottom = Side::Bottom;
            if r.sides & side_bit(bottom) != 0
                && !flags.pushes_tile(bottom)
                && !flags.pushed(bottom)
            {
                // The velocity at detection, which every contact carries.
                found.push(Landed {
                    entity,
                    velocity: landing_velocity,
                });
            }
            let start = aabb.center;
            if r.offset != Vec2::ZERO && aabb.is_valid() {
                let pass = PassThrough {
                    drop_through: switches.drop_through,
                    climbing: switches.climbing,
                };
                aabb.center = if switches.world_collision {
                    sweep_displacement(map, aabb.center, aabb.half_extents, r.offset, pass, touch)
                } else {
                    aabb.center + r.offset
                };
            }
            let pressed = squeezed(&r.pressers, r.offset, aabb.center - start, touch);
            warn_once_while(&mut state, warn_bits::PRESSED, pressed.is_some(), || {
                squeezes.push(squished_by_bodies(entity, aabb.center, pressed));
            });
            if velocity.0 != r.velocity {
                velocity.0 = r.velocity;
            }
            if r.sides != 0 {
                flags.bypass_change_detection().add_object_sides(r.sides);
            }
            // Written only when changed, so a resting body's `BodyState` keeps its change tick.
            let (on, ground) = r.ground.map_or((None, Vec2::ZERO), |(e, v)| (Some(e), v));
            if state.ground_velocity != ground || state.ground != on {
                state.ground_velocity = ground;
                state.ground = on;
            }
        }
        if relaxing {
            ends.record(layout, entity, (aabb.center, flags.tile_sides()), switches);
        }
        // The response writes the flags last: they are marked changed here if the step changed
        // them (see `integrate`).
        if !flags.settled() {
            flags.set_changed();
        }
        awake.end(rest, (&aabb, &velocity, &flags, &state));
        // The response is the last stage to move the body: its `Transform` follows here
        // (kinematic bodies' after this pass, in `write_transforms`).
        follow(aabb.center, aabb.is_changed(), &mut transform);
    };
    // A resting body (neither awake nor active) is left alone; so is one that was not
    // detected, such as an invalid one.
    let resting = |entities: &[Entity]| {
        let responds = layout.responds_by_row(entities);
        move |entities: &[Entity], row, awake: Awake| !awake.is_awake() && !responds(entities, row)
    };
    for_each_moving_body(
        &mut bodies,
        (&workers, config.parallel_min_bodies),
        resting,
        apply,
    );
    landings.write(&mut landed);
    squishes.write(&mut squished);
    write_transforms((&config, &workers), &mut kinematic);
}

/// The stage [`PhysicsSystems::Respond`]:
/// [`respond_to_contacts`]; relaxation, when [`RelaxationPlugin`](crate::RelaxationPlugin) is
/// there ([`RespondSteps::Relax`]); then the workers are released ([`release_workers`]), the
/// overlaps left are measured ([`measure_overlaps`]), and the bodies the response and relaxation moved are filed in the partition where they ended
/// ([`update_partition`]).
pub(crate) struct ResponsePlugin(pub(crate) InternedScheduleLabel);

/// The three steps of [`ResponsePlugin`]'s stage, in order: the response, relaxation (added by
/// [`RelaxationPlugin`](crate::RelaxationPlugin)), the finish (the stage clock times relaxation
/// on its own, [`crate::timing`]).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RespondSteps {
    /// The response.
    Contacts,
    /// Relaxation.
    Relax,
    /// The workers released, the overlaps left measured, the moved bodies filed in the partition.
    Finish,
}

impl Plugin for ResponsePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<PushFlags>()
            .register_type::<Side>()
            .init_resource::<ResponseEnds>()
            .configure_sets(
                self.0,
                (
                    RespondSteps::Contacts,
                    RespondSteps::Relax,
                    RespondSteps::Finish,
                )
                    .chain()
                    .in_set(PhysicsSystems::Respond),
            )
            .add_systems(
                self.0,
                (
                    respond_to_contacts.in_set(RespondSteps::Contacts),
                    (
                        release_workers,
                        measure_overlaps.run_if(overlaps::measuring),
                        update_partition::<false>,
                    )
                        .chain()
                        .in_set(RespondSteps::Finish),
                ),
            );
    }
}

pub(crate) mod ended;
mod overlaps;
#[cfg(test)]
mod tests;
