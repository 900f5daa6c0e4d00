//! Pushable bodies: a body walking into a [`Pushable`] body pushes it along, at a share of its
//! speed, as a character pushes a crate (Phaser's Arcade physics calls such a body
//! `pushable`).
//!
//! # Algorithm
//!
//! Before integration, from each pushable body's [`Contacts`] at the last step (which
//! [`Pushable`] requires), along x, one direction after the other:
//!
//! - A body **pushes** a pushable body when it touches it on the side it comes from (a contact
//!   deeper along y than along x, beyond the contact tolerance) and its velocity points at it.
//!   A pushable body so pushed by a body that is neither pushable nor kinematic moves at
//!   [`Pushable::share`] of that body's speed, and the pusher slows down to the same speed:
//!   they go on touching. Pushed by a pushable body, it moves at that body's speed, so a row
//!   of pushable bodies moves as one.
//! - A pushable body is **held** when, on the side it would move to, it touched a tile at the
//!   last step, or it touches a body that is neither pushable nor moving away (a wall of
//!   bodies, a heavier body), or a held pushable body. A held body and the row behind it are
//!   not moved, and the pusher is stopped by the response as by any body that cannot give way.
//!
//! The pushable bodies are read from the rear of the push (by their centres, then entities),
//! so a row passes its speed on in one step whatever order the bodies were spawned in. A body
//! pushed both ways at once stays. Vertical contacts are the response's: a body lands on a
//! pushable body as on any other, and a body standing on a pushed one rides along by ground
//! friction. Kinematic bodies push through the response, as they always did.

use bevy::prelude::*;

use crate::body::{Kinematic, Velocity};
use crate::contacts::{CollisionData, Contacts};
use crate::geometry::pair_skin;

/// Makes a body one that bodies walking into it push along (see the [algorithm](self)): a
/// crate a character can push. Bodies without it keep article 003's behaviour: a walking body
/// takes the whole overlap with a resting body and stops.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_crate(mut commands: Commands) {
///     commands.spawn((
///         Aabb::new(Vec2::new(80.0, 24.0), Vec2::splat(8.0)),
///         Velocity::default(),
///         // Pushed at half the pusher's speed.
///         Pushable { share: 0.5 },
///     ));
/// }
/// # App::new().add_systems(Startup, spawn_crate);
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Contacts)]
pub struct Pushable {
    /// The share of its pusher's speed it moves at, and the pusher with it, between 0 and 1:
    /// how light it is. Default 0.5.
    pub share: f32,
}

impl Default for Pushable {
    fn default() -> Self {
        Self { share: 0.5 }
    }
}

/// A pushable body as the push reads it.
pub(crate) struct PushableBody<'a> {
    pub(crate) entity: Entity,
    pub(crate) center: Vec2,
    pub(crate) share: f32,
    /// The sides it touched tiles on at the last step (left 1, right 2, top 4, bottom 8).
    pub(crate) tile_sides: u8,
    pub(crate) contacts: &'a [CollisionData],
}

/// How another body pushes or holds: its velocity now, and whether it is kinematic.
#[derive(Clone, Copy)]
pub(crate) struct Other {
    pub(crate) velocity: Vec2,
    pub(crate) kinematic: bool,
}

/// The new x velocities of the pushable bodies and their pushers (see the [algorithm](self)),
/// in the order of `bodies` then of the pushers found, each body once. `other(e)` is body
/// `e`'s velocity and kind (`None`: gone), `pushable(e)` its place in `bodies` if it is one.
pub(crate) fn push_along(
    bodies: &[PushableBody],
    other: impl Fn(Entity) -> Option<Other>,
    pushable: impl Fn(Entity) -> Option<usize>,
    touch: f32,
) -> Vec<(Entity, f32)> {
    let n = bodies.len();
    // Per direction (right, then left): each body's speed along it (0: not pushed), and the
    // pushers (body, pushed body).
    let mut speeds = [vec![0.0f32; n], vec![0.0f32; n]];
    let mut pushers: Vec<(Entity, usize, usize)> = vec![];
    for (d, sign) in [1.0f32, -1.0].into_iter().enumerate() {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let key = |k: usize| (sign * bodies[k].center.x, bodies[k].entity);
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(core::cmp::Ordering::Equal)
        });
        let speed = &mut speeds[d];
        // From the rear: what pushes each body.
        for &k in &order {
            let me = &bodies[k];
            for c in side_contacts(me, -sign, touch) {
                let pushed = match pushable(c.other) {
                    Some(j) => speed[j],
                    None => match other(c.other) {
                        Some(o) if !o.kinematic && sign * o.velocity.x > 0.0 => {
                            pushers.push((c.other, d, k));
                            me.share.clamp(0.0, 1.0) * sign * o.velocity.x
                        }
                        _ => 0.0,
                    },
                };
                speed[k] = speed[k].max(pushed);
            }
        }
        // From the front: what holds each body.
        let mut held = vec![false; n];
        for &k in order.iter().rev() {
            let me = &bodies[k];
            let wall = me.tile_sides & if sign > 0.0 { 2 } else { 1 } != 0;
            held[k] = wall
                || side_contacts(me, sign, touch).any(|c| match pushable(c.other) {
                    Some(j) => held[j],
                    None => other(c.other).is_none_or(|o| sign * o.velocity.x <= 0.0),
                });
            if held[k] {
                speed[k] = 0.0;
            }
        }
    }
    let mut out = Vec::new();
    let velocity_x = |k: usize| match (speeds[0][k], speeds[1][k]) {
        (right, 0.0) => right,
        (0.0, left) => -left,
        _ => 0.0,
    };
    for (k, body) in bodies.iter().enumerate() {
        if speeds[0][k] != 0.0 || speeds[1][k] != 0.0 {
            out.push((body.entity, velocity_x(k)));
        }
    }
    // A pusher slows down to the slowest body it moves (it stays where it is against a held
    // one: the response stops it).
    pushers.sort_by_key(|&(e, _, _)| e);
    for group in pushers.chunk_by(|a, b| a.0 == b.0) {
        let slowest = group
            .iter()
            .map(|&(_, _, k)| velocity_x(k).abs())
            .reduce(f32::min);
        let sign = if group[0].1 == 0 { 1.0 } else { -1.0 };
        if let Some(speed) = slowest.filter(|&s| s > 0.0) {
            out.push((group[0].0, sign * speed));
        }
    }
    out
}

/// `body`'s contacts on its side toward `sign` along x (+1: right) that it touches side on.
fn side_contacts<'a>(
    body: &'a PushableBody,
    sign: f32,
    touch: f32,
) -> impl Iterator<Item = &'a CollisionData> {
    body.contacts.iter().filter(move |c| {
        let skin = pair_skin(touch, c.position, c.other_position);
        let side_on = c.overlap.y.abs() > skin && c.overlap.x.abs() <= c.overlap.y.abs();
        side_on && sign * (c.other_position.x - c.position.x) > 0.0
    })
}

/// Sets the velocities of the pushable bodies and their pushers (see the [algorithm](self)),
/// before integration.
pub(crate) fn push_bodies(
    config: Res<crate::config::PhysicsConfig>,
    pushables: Query<(
        Entity,
        &crate::body::Aabb,
        &Pushable,
        &crate::flags::PushFlags,
        &Contacts,
    )>,
    mut velocities: Query<(&mut Velocity, Has<Kinematic>, Has<Pushable>)>,
    mut list: Local<Vec<Entity>>,
) {
    if pushables.is_empty() {
        return;
    }
    let mut bodies: Vec<PushableBody> = pushables
        .iter()
        .map(|(entity, aabb, pushable, flags, contacts)| PushableBody {
            entity,
            center: aabb.center,
            share: pushable.share,
            tile_sides: flags.tile_sides(),
            contacts: &contacts.0,
        })
        .collect();
    bodies.sort_by_key(|b| b.entity);
    list.clear();
    list.extend(bodies.iter().map(|b| b.entity));
    let other = |e: Entity| {
        velocities.get(e).ok().map(|(v, kinematic, _)| Other {
            velocity: v.0,
            kinematic,
        })
    };
    let place = |e: Entity| list.binary_search(&e).ok();
    let changes = push_along(&bodies, other, place, config.contact_tolerance);
    drop(bodies);
    for (entity, x) in changes {
        if let Ok((mut v, _, _)) = velocities.get_mut(entity)
            && v.x != x
        {
            v.x = x;
        }
    }
}
