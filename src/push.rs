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
#[derive(Clone, Copy)]
pub(crate) struct PushableBody {
    pub(crate) entity: Entity,
    pub(crate) center: Vec2,
    pub(crate) share: f32,
    /// The sides it touched tiles on at the last step (left 1, right 2, top 4, bottom 8).
    pub(crate) tile_sides: u8,
}

/// How another body pushes or holds: its velocity now, and whether it is kinematic.
#[derive(Clone, Copy)]
pub(crate) struct Other {
    pub(crate) velocity: Vec2,
    pub(crate) kinematic: bool,
}

/// The push's buffers, kept between steps so that a step allocates nothing once they are
/// grown.
#[derive(Default)]
pub(crate) struct PushBuffers {
    /// Per direction (right, then left): each body's speed along it (0: not pushed).
    speeds: [Vec<f32>; 2],
    /// The bodies from the rear of the push, and whether each is held.
    order: Vec<usize>,
    held: Vec<bool>,
    /// (pusher, direction, pushed body).
    pushers: Vec<(Entity, usize, usize)>,
    /// The new x velocities.
    out: Vec<(Entity, f32)>,
}

/// The new x velocities of the pushable bodies and their pushers (see the [algorithm](self)),
/// in the order of `bodies` then of the pushers by entity, each body once. `contacts(k)` are
/// body `k`'s contacts at the last step, `other(e)` is body `e`'s velocity and kind (`None`:
/// gone), `pushable(e)` its place in `bodies` if it is one.
pub(crate) fn push_along<'a>(
    bodies: &[PushableBody],
    contacts: impl Fn(usize) -> &'a [CollisionData],
    (other, pushable): (
        impl Fn(Entity) -> Option<Other>,
        impl Fn(Entity) -> Option<usize>,
    ),
    touch: f32,
    b: &'a mut PushBuffers,
) -> &'a [(Entity, f32)] {
    let n = bodies.len();
    b.pushers.clear();
    for (d, sign) in [1.0f32, -1.0].into_iter().enumerate() {
        b.order.clear();
        b.order.extend(0..n);
        let key = |k: usize| (sign * bodies[k].center.x, bodies[k].entity);
        b.order
            .sort_by(|&x, &y| key(x).0.total_cmp(&key(y).0).then(key(x).1.cmp(&key(y).1)));
        let speed = &mut b.speeds[d];
        speed.clear();
        speed.resize(n, 0.0);
        // From the rear: what pushes each body.
        for &k in &b.order {
            let me = &bodies[k];
            for c in side_contacts(contacts(k), -sign, touch) {
                let pushed = match pushable(c.other) {
                    Some(j) => speed[j],
                    None => match other(c.other) {
                        Some(o) if !o.kinematic && sign * o.velocity.x > 0.0 => {
                            b.pushers.push((c.other, d, k));
                            me.share.clamp(0.0, 1.0) * sign * o.velocity.x
                        }
                        _ => 0.0,
                    },
                };
                speed[k] = speed[k].max(pushed);
            }
        }
        // From the front: what holds each body.
        b.held.clear();
        b.held.resize(n, false);
        for &k in b.order.iter().rev() {
            let wall = bodies[k].tile_sides & if sign > 0.0 { 2 } else { 1 } != 0;
            let held = &b.held;
            let holds = |c: &CollisionData| match pushable(c.other) {
                Some(j) => held[j],
                None => other(c.other).is_none_or(|o| sign * o.velocity.x <= 0.0),
            };
            b.held[k] = wall || side_contacts(contacts(k), sign, touch).any(holds);
            if b.held[k] {
                speed[k] = 0.0;
            }
        }
    }
    let speeds = &b.speeds;
    let velocity_x = |k: usize| match (speeds[0][k], speeds[1][k]) {
        (right, 0.0) => right,
        (0.0, left) => -left,
        _ => 0.0,
    };
    b.out.clear();
    for (k, body) in bodies.iter().enumerate() {
        if speeds[0][k] != 0.0 || speeds[1][k] != 0.0 {
            b.out.push((body.entity, velocity_x(k)));
        }
    }
    // A pusher slows down to the slowest body it moves (it stays where it is against a held
    // one: the response stops it).
    b.pushers.sort_by_key(|&(e, _, _)| e);
    for group in b.pushers.chunk_by(|a, b| a.0 == b.0) {
        let slowest = group
            .iter()
            .map(|&(_, _, k)| velocity_x(k).abs())
            .reduce(f32::min);
        let sign = if group[0].1 == 0 { 1.0 } else { -1.0 };
        if let Some(speed) = slowest.filter(|&s| s > 0.0) {
            b.out.push((group[0].0, sign * speed));
        }
    }
    &b.out
}

/// Of `contacts`, those on the side toward `sign` along x (+1: right), touched side on.
fn side_contacts(
    contacts: &[CollisionData],
    sign: f32,
    touch: f32,
) -> impl Iterator<Item = &CollisionData> {
    contacts.iter().filter(move |c| {
        let skin = pair_skin(touch, c.position, c.other_position);
        let side_on = c.overlap.y.abs() > skin && c.overlap.x.abs() <= c.overlap.y.abs();
        side_on && sign * (c.other_position.x - c.position.x) > 0.0
    })
}

/// The pushable bodies, by entity, and the push's buffers.
#[derive(Default)]
pub(crate) struct Pushing {
    bodies: Vec<PushableBody>,
    buffers: PushBuffers,
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
    mut velocities: Query<(&mut Velocity, Has<Kinematic>)>,
    mut pushing: Local<Pushing>,
) {
    if pushables.is_empty() {
        return;
    }
    let Pushing { bodies, buffers } = &mut *pushing;
    bodies.clear();
    bodies.extend(
        pushables
            .iter()
            .map(|(entity, aabb, pushable, flags, _)| PushableBody {
                entity,
                center: aabb.center,
                share: pushable.share,
                tile_sides: flags.tile_sides(),
            }),
    );
    bodies.sort_by_key(|b| b.entity);
    let contacts = |k: usize| {
        pushables
            .get(bodies[k].entity)
            .map_or(&[][..], |p| &p.4.0[..])
    };
    let other = |e: Entity| {
        (velocities.get(e).ok()).map(|(v, kinematic)| Other {
            velocity: v.0,
            kinematic,
        })
    };
    let place = |e: Entity| bodies.binary_search_by_key(&e, |b| b.entity).ok();
    let touch = config.contact_tolerance;
    let changes = push_along(bodies, contacts, (other, place), touch, buffers);
    for &(entity, x) in changes {
        if let Ok((mut v, _)) = velocities.get_mut(entity)
            && v.x != x
        {
            v.x = x;
        }
    }
}
