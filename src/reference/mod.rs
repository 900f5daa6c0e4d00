//! The whole physics step written for reading: the articles' algorithm, one body at a time,
//! with none of the machinery that makes the plugin fast.
//!
//! [`ReferencePhysicsPlugin`] runs this step in place of [`PhysicsPlugin`](crate::PhysicsPlugin)'s
//! stages. It is the executable specification of the plugin: the differential property test
//! below runs random scenes through both and requires the same positions, velocities, flags,
//! body states, contacts and messages, bit for bit, at every step. Whatever the fast path does
//! (table columns, snapshots, the contact store, the SIMD screen, rest skipping, the tile memo,
//! worker threads) must not change an outcome this step defines.
//!
//! # The step
//!
//! Every body is read into a plain list, table after table in the order the world made the
//! tables, rows in table order (the order in which the fast path gives bodies their slots),
//! the stages run over that list, and what changed is written back.
//!
//! 0. **Carry** (every non-kinematic body): the change of velocity of the kinematic body at
//!    the end of its chain of supports, worked out for every body before any is applied
//!    (`src/carry.rs`).
//!    Then the pushable bodies and their pushers get their velocities along x (`src/push.rs`).
//! 1. **Integrate** (every body): the flags start a new step, the old position is remembered;
//!    an invalid box is left alone from here on; a non-finite velocity becomes zero; gravity
//!    with the fall cap (not on a ladder the body climbs, not for kinematic bodies); a body
//!    that stood on another falls no faster than its support; kinematic bodies and bodies
//!    without world collision move by their velocity.
//! 2. **Tiles** (every valid, non-kinematic body): `collide_with_tiles` (`src/tiles/collide.rs`: push out of solid
//!    tiles or hold, one-way snap, swept move and slide, walking along slopes and following them
//!    down, flags, friction); [`Landed`] when the
//!    body stands on a tile it did not stand on before; [`Squished`] once per episode.
//! 3. **Pairs** (every valid body): each pair of bodies whose layers interact and whose boxes
//!    overlap or touch within the pair's tolerance (`signed_overlap_within`, `src/geometry.rs`),
//!    and, when one is a one-way platform, the other comes from above (`src/one_way.rs`); the overlap
//!    taken from the side of the body earlier in the list; each body's contacts in the order of
//!    its partners in the list, captured as [`CollisionData`]. The list's order decides the
//!    order of a body's contacts, and so the rounding of its response when it has several; it
//!    depends on the bodies' tables and rows, never on other entities or resources.
//! 4. **Response** (every non-kinematic body): article 003's response to its own contacts
//!    (`respond`, whose algorithm is the module doc of `src/response.rs`);
//!    ground friction on a body stood on; [`Landed`] on a body; the offset applied through the
//!    tile sweep; object push flags; the velocity of the ground stood on.
//! 5. **Relaxation** (`relax.rs`): what is still overlapping is pushed apart, pass after pass
//!    over the whole list (the algorithm is the module doc of `src/relax/mod.rs`), between
//!    partners: bodies in contact at detection, or near each other there (never a one-way
//!    platform).
//!
//! Messages are written in entity order, per stage, as the fast path writes them.
//!
//! What it leaves out: the partition (pairs are found by testing every pair), collision events,
//! sensors, `Transform`s and warnings in the log. Those are not part of the bodies' state.

use bevy::prelude::*;

use crate::body::{
    Aabb, BodyState, BodySwitches, OldPosition, Velocity, WholeBody, warn_bits, warn_once_while,
};
use crate::carry::{ChainLink, carried_change, carry};
use crate::config::{CheckedFall, PhysicsConfig};
use crate::contacts::{CollisionData, Contacts};
use crate::flags::{PushFlags, Side, side_bit};
use crate::friction::{apply_ground_friction, friction_decay};
use crate::geometry::{pair_skin, signed_overlap_within, skin_at};
use crate::integrate::apply_gravity;
use crate::layers::CollisionLayers;
use crate::messages::{Landed, Squished, tile_pressers};
use crate::one_way::{Passing, one_way_contact};
use crate::push::{Other, PushBuffers, Pushable, PushableBody, push_along};
use crate::response::{respond, squeezed, squished_by_bodies};
use crate::schedule::PhysicsSystems;
use crate::tiles::collide::{
    PassThrough, TileBody, TileParams, collide_with_tiles, overlaps_kind, sweep_displacement,
};
use crate::tiles::{TileKind, TileMap, left_the_map};

/// Runs the [reference step](self) in place of the stages of
/// [`PhysicsPlugin`](crate::PhysicsPlugin): it adds that plugin (its types, resources,
/// messages and hooks), turns its stages off and runs the reference step between
/// [`PhysicsSystems::Integrate`] and [`PhysicsSystems::TileCollide`], so systems ordered
/// against the stages run before or after it as they would around the plugin's step. Add it
/// instead of `PhysicsPlugin`, in `FixedUpdate`.
///
/// The worlds of the two plugins then hold the same entities and archetypes, so Bevy's query
/// gives bodies in the same order in both (see the module's step 3).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
/// use bevy_platformer_physics::reference::ReferencePhysicsPlugin;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ReferencePhysicsPlugin))
///     .insert_resource(TileMap::from_ascii("#....#\n######", 16.0).unwrap());
/// let body = app
///     .world_mut()
///     .spawn((Aabb::new(Vec2::new(40.0, 28.0), Vec2::splat(6.0)), Velocity::default()))
///     .id();
/// for _ in 0..30 {
///     app.world_mut().run_schedule(FixedUpdate);
/// }
/// assert_eq!(app.world().get::<Aabb>(body).unwrap().center.y, 22.0);
/// ```
pub struct ReferencePhysicsPlugin;

impl Plugin for ReferencePhysicsPlugin {
    fn build(&self, app: &mut App) {
        use PhysicsSystems::*;
        app.add_plugins(crate::PhysicsPlugin::default())
            .configure_sets(
                FixedUpdate,
                (
                    Integrate,
                    TileCollide,
                    UpdatePartition,
                    DetectPairs,
                    Respond,
                    Sense,
                )
                    .run_if(|| false),
            )
            .add_systems(
                FixedUpdate,
                reference_step.after(Integrate).before(TileCollide),
            );
    }
}

/// One body as the reference step holds it.
struct Body {
    entity: Entity,
    aabb: Aabb,
    velocity: Vec2,
    old: Vec2,
    flags: PushFlags,
    state: BodyState,
    switches: BodySwitches,
    kinematic: bool,
    /// A [`OneWayPlatform`](crate::OneWayPlatform).
    one_way: bool,
    layers: CollisionLayers,
    /// The body's contacts this step: (partner's index in the list, overlap from this body).
    contacts: Vec<(usize, Vec2)>,
}

impl Body {
    /// What the one-way rule reads of it.
    fn passing(&self) -> Passing {
        Passing {
            old: self.old,
            half: self.aabb.half_extents,
            velocity: self.velocity,
            one_way: self.one_way,
            drops: self.switches.drop_through,
        }
    }
}

/// What every stage reads of the world apart from the bodies.
struct Step<'a> {
    map: &'a TileMap,
    config: &'a PhysicsConfig,
    dt: f32,
    gravity: Vec2,
    max_fall_speed: f32,
}

/// The reference step: read the bodies, run the stages, write back.
fn reference_step(
    world: &mut World,
    query: &mut QueryState<WholeBody>,
    mut fall: Local<CheckedFall>,
) {
    let dt = world.resource::<Time<Fixed>>().timestep().as_secs_f32();
    let config = world.resource::<PhysicsConfig>().clone();
    let (gravity, max_fall_speed) = fall.update(&config);
    let mut bodies = read_bodies(world, query);
    let pushables: Vec<(Entity, f32, Vec<CollisionData>)> =
        (world.query::<(Entity, &Pushable, &Contacts)>().iter(world))
            .map(|(e, p, c)| (e, p.share, c.0.clone()))
            .collect();
    let map = world.resource::<TileMap>();
    let step = Step {
        map,
        config: &config,
        dt,
        gravity,
        max_fall_speed,
    };
    carry_riders(&mut bodies, &step);
    push_bodies(&mut bodies, &pushables, &step);
    for body in &mut bodies {
        integrate(body, &step);
    }
    let mut landed = Vec::new();
    let mut squished = Vec::new();
    for body in bodies.iter_mut().filter(|b| !b.kinematic) {
        collide_tiles(body, &step, &mut landed, &mut squished);
    }
    detect_pairs(
        &mut bodies,
        (config.contact_tolerance, config.one_way_tolerance),
    );
    let snapshot: Vec<Detected> = bodies.iter().map(Detected::of).collect();
    let (mut landed_on_bodies, mut squished_by_bodies) = (Vec::new(), Vec::new());
    for (i, body) in bodies.iter_mut().enumerate() {
        if !body.kinematic {
            let messages = (&mut landed_on_bodies, &mut squished_by_bodies);
            respond_to_contacts(body, i, &snapshot, &step, messages);
        }
    }
    let mut squeezed = Vec::new();
    relax::relax(&mut bodies, &snapshot, &step, &mut squeezed);
    let contacts: Vec<Vec<CollisionData>> = (0..bodies.len())
        .map(|i| contacts_of(i, &bodies[i].contacts, &snapshot))
        .collect();
    write_bodies(world, &bodies, contacts);
    write_in_entity_order(world, landed);
    write_in_entity_order(world, squished);
    write_in_entity_order(world, landed_on_bodies);
    write_in_entity_order(world, squished_by_bodies);
    write_in_entity_order(world, squeezed);
}

/// Every body, by table (in the order the world made them) and row.
fn read_bodies(world: &mut World, query: &mut QueryState<WholeBody>) -> Vec<Body> {
    let mut bodies: Vec<Body> = query
        .iter(world)
        .map(|b| Body {
            entity: b.entity,
            aabb: *b.aabb,
            velocity: b.velocity.0,
            old: b.old.0,
            flags: *b.flags,
            state: *b.state,
            switches: *b.switches,
            kinematic: b.kinematic,
            one_way: b.one_way,
            layers: b.layers.copied().unwrap_or_default(),
            contacts: Vec::new(),
        })
        .collect();
    let place = |body: &Body| {
        let at = world.entities().get_spawned(body.entity).expect("a body");
        (at.table_id.as_u32(), at.table_row.index())
    };
    bodies.sort_by_key(place);
    bodies
}

/// Stage 0: every body's carried change, from the end of the last step, then applied.
fn carry_riders(bodies: &mut [Body], step: &Step) {
    let index: bevy::ecs::entity::EntityHashMap<usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.entity, i))
        .collect();
    let friction = step.config.ground_friction > 0.0;
    let link = |b: &Body| {
        let grips = friction && b.switches.friction;
        ChainLink::of((b.kinematic, grips), b.velocity, &b.flags, &b.state)
    };
    let changes: Vec<Vec2> = bodies
        .iter()
        .map(|b| carried_change(link(b), |e| index.get(&e).map(|&i| link(&bodies[i]))))
        .collect();
    for (body, change) in bodies.iter_mut().zip(changes) {
        carry(change, &mut body.velocity, &mut body.state);
    }
}

/// Stage 0, then: the pushable bodies and their pushers get their new x velocities
/// (`src/push.rs`), from the pushable bodies' contacts at the last step.
fn push_bodies(bodies: &mut [Body], pushables: &[(Entity, f32, Vec<CollisionData>)], step: &Step) {
    let index = |e: Entity| bodies.iter().position(|b| b.entity == e);
    let (list, contacts): (Vec<PushableBody>, Vec<&[CollisionData]>) = (pushables.iter())
        .filter_map(|(entity, share, contacts)| {
            let body = &bodies[index(*entity)?];
            let pushable = PushableBody {
                entity: *entity,
                center: body.aabb.center,
                share: *share,
                tile_sides: body.flags.tile_sides(),
            };
            Some((pushable, &contacts[..]))
        })
        .unzip();
    let other = |e: Entity| {
        index(e).map(|i| Other {
            velocity: bodies[i].velocity,
            kinematic: bodies[i].kinematic,
        })
    };
    let pushable = |e: Entity| list.iter().position(|b| b.entity == e);
    let mut buffers = PushBuffers::default();
    let touch = step.config.contact_tolerance;
    let changes = push_along(
        &list,
        |k| contacts[k],
        (other, pushable),
        touch,
        &mut buffers,
    );
    let changes = changes.to_vec();
    for (entity, x) in changes {
        if let Some(body) = bodies.iter_mut().find(|b| b.entity == entity) {
            body.velocity.x = x;
        }
    }
}

/// Stage 1.
fn integrate(body: &mut Body, step: &Step) {
    body.flags.begin_step();
    body.old = body.aabb.center;
    let valid = body.aabb.is_valid();
    warn_once_while(&mut &mut body.state, warn_bits::INVALID_AABB, !valid, || {});
    if !valid {
        return;
    }
    let finite = body.velocity.is_finite();
    warn_once_while(
        &mut &mut body.state,
        warn_bits::BAD_VELOCITY,
        !finite,
        || {},
    );
    if !finite {
        body.velocity = Vec2::ZERO;
    }
    let (center, half) = (body.aabb.center, body.aabb.half_extents);
    let skin = skin_at(step.config.contact_tolerance, center);
    let climbing =
        body.switches.climbing && overlaps_kind(step.map, center, half, skin, TileKind::Ladder);
    if !body.kinematic && body.switches.gravity && !climbing {
        body.velocity = apply_gravity(body.velocity, step.gravity, step.max_fall_speed, step.dt);
    }
    if !body.kinematic && body.flags.pushed_object(Side::Bottom) {
        body.velocity.y = body.velocity.y.max(body.state.ground_velocity.y);
    }
    if body.kinematic || !body.switches.world_collision {
        body.aabb.center += body.velocity * step.dt;
    }
}

/// Stage 2.
fn collide_tiles(
    body: &mut Body,
    step: &Step,
    landed: &mut Vec<Landed>,
    squished: &mut Vec<Squished>,
) {
    if !body.aabb.is_valid() {
        return;
    }
    if !body.switches.world_collision {
        body.flags.set_tile_sides(0);
        body.state.standing_on = None;
        body.state.overlaps_ladder = false;
        return;
    }
    let config = step.config;
    let params = TileParams {
        dt: step.dt,
        skin: config.contact_tolerance,
        one_way_tolerance: config.one_way_tolerance,
        max_depenetration: config.max_depenetration,
        ground_friction: if body.switches.friction {
            config.ground_friction
        } else {
            0.0
        },
        walk_slopes: body.switches.walk_slopes,
    };
    let mut moved = TileBody {
        center: body.aabb.center,
        half: body.aabb.half_extents,
        velocity: body.velocity,
    };
    let outcome = collide_with_tiles(step.map, &mut moved, pass_through(&body.switches), &params);
    let has = |side| outcome.sides & side_bit(side) != 0;
    if has(Side::Bottom) && !body.flags.pushed(Side::Bottom) {
        landed.push(Landed {
            entity: body.entity,
            velocity: body.velocity,
        });
    }
    body.aabb.center = moved.center;
    body.velocity = moved.velocity;
    body.flags.set_tile_sides(outcome.sides);
    body.state.standing_on = outcome.standing_on;
    body.state.overlaps_ladder = outcome.overlaps_ladder;
    let state = &mut &mut body.state;
    warn_once_while(state, warn_bits::EMBEDDED, outcome.embedded, || {});
    warn_once_while(state, warn_bits::SQUISHED, outcome.squished, || {
        squished.push(Squished {
            entity: body.entity,
            vertically: has(Side::Bottom) && has(Side::Top),
            horizontally: has(Side::Left) && has(Side::Right),
            center: moved.center,
            pressers: tile_pressers(outcome.sides),
        });
    });
    let outside = left_the_map(step.map.bounds(), moved.center, moved.half);
    warn_once_while(state, warn_bits::OUTSIDE_MAP, outside, || {});
}

fn pass_through(switches: &BodySwitches) -> PassThrough {
    PassThrough {
        drop_through: switches.drop_through,
        climbing: switches.climbing,
    }
}

/// Stage 3: every pair, tested once; a pair with a one-way platform counts only when the
/// other body comes from above (`src/one_way.rs`).
fn detect_pairs(bodies: &mut [Body], (touch, one_way_tolerance): (f32, f32)) {
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            let (a, b) = (&bodies[i], &bodies[j]);
            if let Some(overlap) = pair_overlap(a, b, touch)
                && one_way_contact(&a.passing(), &b.passing(), one_way_tolerance)
            {
                bodies[i].contacts.push((j, overlap));
                bodies[j].contacts.push((i, -overlap));
            }
        }
    }
}

/// The overlap of `a` and `b` from `a`'s side, when both are valid, their layers interact and
/// they overlap or touch within the pair's tolerance ([`pair_skin`]).
fn pair_overlap(a: &Body, b: &Body, touch: f32) -> Option<Vec2> {
    if !a.aabb.is_valid() || !b.aabb.is_valid() || !a.layers.interacts_with(b.layers) {
        return None;
    }
    let (ca, cb) = (a.aabb.center, b.aabb.center);
    let skin = pair_skin(touch, ca, cb);
    signed_overlap_within(ca, a.aabb.half_extents, cb, b.aabb.half_extents, skin)
}

/// A body as pair detection captured it: what its partners' contacts read of it.
#[derive(Clone, Copy)]
struct Detected {
    entity: Entity,
    center: Vec2,
    half: Vec2,
    velocity: Vec2,
    old: Vec2,
    kinematic: bool,
    blocked: u8,
}

impl Detected {
    fn of(body: &Body) -> Self {
        Self {
            entity: body.entity,
            center: body.aabb.center,
            half: body.aabb.half_extents,
            velocity: body.velocity,
            old: body.old,
            kinematic: body.kinematic,
            blocked: body.flags.blocked_sides(),
        }
    }
}

/// Body `i`'s contacts as [`CollisionData`], from what detection captured.
fn contacts_of(i: usize, contacts: &[(usize, Vec2)], snapshot: &[Detected]) -> Vec<CollisionData> {
    let me = &snapshot[i];
    contacts
        .iter()
        .map(|&(j, overlap)| {
            let other = &snapshot[j];
            CollisionData {
                other: other.entity,
                overlap,
                velocity: me.velocity,
                other_velocity: other.velocity,
                old_position: me.old,
                other_old_position: other.old,
                position: me.center,
                other_position: other.center,
                half_extents: me.half,
                other_half_extents: other.half,
                other_kinematic: other.kinematic,
                blocked: me.blocked,
                other_blocked: other.blocked,
            }
        })
        .collect()
}

/// Stage 4, for one non-kinematic body, the `index`-th of the list.
fn respond_to_contacts(
    body: &mut Body,
    index: usize,
    snapshot: &[Detected],
    step: &Step,
    (landed, squished): (&mut Vec<Landed>, &mut Vec<Squished>),
) {
    if body.contacts.is_empty() {
        body.state.ground_velocity = Vec2::ZERO;
        body.state.ground = None;
        warn_once_while(&mut &mut body.state, warn_bits::PRESSED, false, || {});
        return;
    }
    let contacts = contacts_of(index, &body.contacts, snapshot);
    let config = step.config;
    let mut r = respond(body.velocity, &contacts, config.contact_tolerance);
    let on_tile = body.flags.pushes_tile(Side::Bottom);
    if let Some((_, ground)) = r.ground
        && body.switches.friction
        && config.ground_friction > 0.0
        && !on_tile
    {
        let decay = friction_decay(config.ground_friction, step.dt);
        r.velocity.x = apply_ground_friction(r.velocity.x, ground.x, decay);
    }
    if r.sides & side_bit(Side::Bottom) != 0 && !on_tile && !body.flags.pushed(Side::Bottom) {
        landed.push(Landed {
            entity: body.entity,
            velocity: snapshot[index].velocity,
        });
    }
    let start = body.aabb.center;
    if r.offset != Vec2::ZERO && body.aabb.is_valid() {
        let (center, half) = (body.aabb.center, body.aabb.half_extents);
        body.aabb.center = if body.switches.world_collision {
            let pass = pass_through(&body.switches);
            sweep_displacement(
                step.map,
                center,
                half,
                r.offset,
                pass,
                config.contact_tolerance,
            )
        } else {
            center + r.offset
        };
    }
    let touch = config.contact_tolerance;
    let pressed = squeezed(&r.pressers, r.offset, body.aabb.center - start, touch);
    let center = body.aabb.center;
    warn_once_while(
        &mut &mut body.state,
        warn_bits::PRESSED,
        pressed.is_some(),
        || {
            squished.push(squished_by_bodies(body.entity, center, pressed));
        },
    );
    body.velocity = r.velocity;
    body.flags.add_object_sides(r.sides);
    body.state.ground_velocity = r.ground.map_or(Vec2::ZERO, |(_, v)| v);
    body.state.ground = r.ground.map(|(e, _)| e);
}

/// Writes the bodies' new state, and every [`Contacts`]: a body's own, empty on an entity that
/// is not a body (any more).
fn write_bodies(world: &mut World, bodies: &[Body], contacts: Vec<Vec<CollisionData>>) {
    let mut lists = bevy::ecs::entity::EntityHashMap::default();
    for (body, contacts) in bodies.iter().zip(contacts) {
        let mut entity = world.entity_mut(body.entity);
        set_if_changed(&mut entity, body.aabb);
        set_if_changed(&mut entity, Velocity(body.velocity));
        set_if_changed(&mut entity, OldPosition(body.old));
        set_if_changed(&mut entity, body.flags);
        set_if_changed(&mut entity, body.state);
        lists.insert(body.entity, contacts);
    }
    for (entity, mut listed) in world.query::<(Entity, &mut Contacts)>().iter_mut(world) {
        listed.0 = lists.remove(&entity).unwrap_or_default();
    }
}

fn set_if_changed<C: Component<Mutability = bevy::ecs::component::Mutable> + PartialEq>(
    entity: &mut EntityWorldMut,
    value: C,
) {
    if let Some(mut c) = entity.get_mut::<C>() {
        c.set_if_neq(value);
    }
}

fn write_in_entity_order<M: Message + crate::messages::OfEntity>(
    world: &mut World,
    mut found: Vec<M>,
) {
    found.sort_by_key(M::entity);
    world.write_message_batch(found);
}

#[cfg(test)]
mod differential;
mod relax;
