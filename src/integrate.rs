//! The first stage, `IntegratePlugin` ([`PhysicsSystems::Integrate`]): the carry
//! ([`crate::carry`]), then integration.
//!
//! # Algorithm (article 001: gravity and the maximum fall speed)
//!
//! For every body: its flags start a new step and its old position is remembered; a
//! non-finite velocity becomes zero (with one warning); gravity is added, capped at the maximum
//! fall speed, unless the body is kinematic, has gravity switched off or climbs a ladder; a body
//! that stood on another falls no faster than its support; kinematic bodies and bodies without
//! world collision move by their velocity here (tile collision moves the others).

use bevy::ecs::change_detection::MaybeLocation;
use bevy::ecs::query::QueryData;
use bevy::prelude::*;

use crate::body::{
    Aabb, BodyState, BodySwitches, Kinematic, OldPosition, Velocity, warn_bits, warn_once_while,
};
use crate::carry::carry_riders;
use crate::config::{CheckedFall, PhysicsConfig};
use crate::fast::rows::{
    BLOCK, Changes, Column, DENSE, Rows, Tracked, count_rows, end_of_block, for_each_marked,
    for_each_piece, stamp_writes, unpack,
};
use crate::fast::workers::Workers;
use crate::fast::workers::call_workers;
use crate::flags::{PushFlags, Side};
use crate::geometry::skin_at;
use crate::layers::CollisionLayers;
use crate::rest_skipping::RestSkipping;
use crate::rest_skipping::memory::{Awake, Rest};
use crate::schedule::PhysicsSystems;
use crate::tiles::collide::overlaps_kind;
use crate::tiles::{TileKind, TileMap};
use bevy::ecs::schedule::InternedScheduleLabel;

/// Adds `gravity * dt` to `velocity`, but never makes the body fall faster than
/// `max_fall_speed` along gravity: a body already falling at least that fast (at the cap, or
/// faster because the game set its speed) gains nothing from gravity and keeps its speed; a
/// slower one gains at most what takes it to the cap. Only the component along gravity
/// changes, so slanted gravity never adds speed across itself.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::apply_gravity;
///
/// let g = Vec2::new(0.0, -600.0);
/// // Gravity accelerates a body up to the cap...
/// assert_eq!(apply_gravity(Vec2::new(5.0, -900.0), g, 1000.0, 0.5), Vec2::new(5.0, -1000.0));
/// // ...and leaves alone a dive the game set faster than it.
/// assert_eq!(apply_gravity(Vec2::new(0.0, -3000.0), g, 1000.0, 0.5), Vec2::new(0.0, -3000.0));
/// ```
#[inline(always)]
pub fn apply_gravity(velocity: Vec2, gravity: Vec2, max_fall_speed: f32, dt: f32) -> Vec2 {
    let v = velocity + gravity * dt;
    // Axis-aligned gravity (the usual case) is capped exactly on its axis.
    if gravity.x == 0.0 && gravity.y != 0.0 {
        let fall = cap_fall(velocity.y, v.y, gravity.y.signum(), max_fall_speed);
        return Vec2::new(v.x, fall);
    }
    cap_fall_off_axis(velocity, v, gravity, max_fall_speed)
}

/// The speed along an axis of gravity pointing to `down` (`1` or `-1`) after gravity took it
/// from `before` to `after`: `before` when that was at the cap or beyond, else `after` capped.
#[inline(always)]
fn cap_fall(before: f32, after: f32, down: f32, max_fall_speed: f32) -> f32 {
    if before * down >= max_fall_speed {
        before
    } else if after * down > max_fall_speed {
        max_fall_speed * down
    } else {
        after
    }
}

/// [`apply_gravity`]'s cap for sideways or slanted gravity, out of line: every body takes the
/// vertical case every step. `v` is `before` plus the step's gravity.
#[inline(never)]
fn cap_fall_off_axis(before: Vec2, v: Vec2, gravity: Vec2, max_fall_speed: f32) -> Vec2 {
    if gravity.y == 0.0 && gravity.x != 0.0 {
        let fall = cap_fall(before.x, v.x, gravity.x.signum(), max_fall_speed);
        return Vec2::new(fall, v.y);
    }
    let Some(down) = gravity.try_normalize() else {
        return v;
    };
    let falling = before.dot(down);
    if falling >= max_fall_speed {
        return before;
    }
    // The gravity added, along `down` only, and no more than to the cap.
    let added = (v - before).dot(down).min(max_fall_speed - falling);
    before + down * added
}

type IntegrateQuery<'w, 's> = Query<'w, 's, IntegrateRow>;

/// What Integrate reads and writes of every body, read table by table
/// ([`IntegrateRowContiguousItem`]).
#[derive(QueryData)]
#[query_data(mutable, contiguous(mutable))]
pub(crate) struct IntegrateRow {
    entity: Entity,
    aabb: &'static mut Aabb,
    velocity: &'static mut Velocity,
    old: &'static mut OldPosition,
    flags: &'static mut PushFlags,
    state: &'static mut BodyState,
    switches: Ref<'static, BodySwitches>,
    kinematic: Has<Kinematic>,
    rest: &'static mut Rest,
    awake: &'static mut Awake,
    layers: Option<Ref<'static, CollisionLayers>>,
}

/// One body as Integrate handles it: its components (marked changed when written, as through
/// Bevy's `Mut`) and the physics' own memory of it.
struct IntegratedBody<'a> {
    entity: Entity,
    aabb: Tracked<'a, Aabb>,
    velocity: Tracked<'a, Velocity>,
    old: Tracked<'a, OldPosition>,
    flags: Tracked<'a, PushFlags>,
    state: Tracked<'a, BodyState>,
    switches: &'a BodySwitches,
    rest: &'a mut Rest,
    awake: &'a mut Awake,
}

/// Runs on several threads above [`PhysicsConfig::parallel_min_bodies`]; each body is handled on
/// its own, so the result does not depend on the thread count.
pub(crate) fn integrate(
    time: Res<Time<Fixed>>,
    (config, workers): (Res<PhysicsConfig>, Res<Workers>),
    (map, skipping): (Res<TileMap>, Res<RestSkipping>),
    mut bodies: IntegrateQuery,
    (mut last_dt, mut fall): (Local<f32>, Local<CheckedFall>),
) {
    let dt = time.timestep().as_secs_f32();
    // Every body is awake after a change of what every body's step depends on (and always
    // without rest skipping).
    let wake_all = !skipping.enabled
        || skipping.is_changed()
        || config.is_changed()
        || map.is_changed()
        || core::mem::replace(&mut *last_dt, dt) != dt;
    // Copied out of the resource: read through it, they were loaded again for every body.
    // A bad gravity or cap is refused (warned once); the last valid one is used.
    let (gravity, max_fall_speed) = fall.update(&config);
    let touch = config.contact_tolerance;
    let map = &*map;
    let work = |IntegratedBody {
                    entity,
                    mut aabb,
                    mut velocity,
                    mut old,
                    mut flags,
                    mut state,
                    switches,
                    rest,
                    awake,
                }: IntegratedBody,
                (kinematic, wake): (bool, bool)| {
        // A resting body is left alone (see `crate::rest_skipping::memory`) unless something forces it awake
        // (`wake`: a kinematic body, a change of its switches or layers, or of what every
        // body's step depends on).
        // Written since the last step started: by that step (if it processed the body) or by
        // the game. A body neither processed nor written is compared with nothing.
        let written =
            aabb.is_changed() || velocity.is_changed() || flags.is_changed() || state.is_changed();
        if !awake.begin(rest, written, (&aabb, &velocity, &flags, &state), wake) {
            return;
        }
        // Marked changed only if the step can end with other flags than it began with: a
        // moving body's final flags are known only at the end of the response, which marks
        // them then if they are not settled (the same as at the start exactly when the start
        // was settled, too); a kinematic body's are final now.
        let mut next = *flags;
        next.begin_step();
        let changes = if kinematic {
            next != *flags
        } else {
            !flags.settled()
        };
        if changes {
            *flags = next;
        } else {
            *flags.bypass_change_detection() = next;
        }
        if old.0 != aabb.center {
            old.0 = aabb.center;
        }
        let valid = aabb.is_valid();
        warn_once_while(&mut state, warn_bits::INVALID_AABB, !valid, || {
            warn!(
                "body {entity} has an invalid Aabb {:?} (it needs a finite centre and \
                 positive finite half extents); it is left out of the physics until fixed",
                *aabb
            )
        });
        if !valid {
            return;
        }
        let finite = velocity.is_finite();
        warn_once_while(&mut state, warn_bits::BAD_VELOCITY, !finite, || {
            warn!(
                "body {entity} has a non-finite velocity {}; it is set to zero",
                velocity.0
            )
        });
        if !finite {
            velocity.0 = Vec2::ZERO;
        }
        // Climbing holds only on a ladder, looked up where the body is now, so it takes effect
        // on the very step the switch is set.
        let climbing = switches.climbing
            && overlaps_kind(
                map,
                aabb.center,
                aabb.half_extents,
                skin_at(touch, aabb.center),
                TileKind::Ladder,
            );
        let mut v = velocity.0;
        if !kinematic && switches.gravity && !climbing {
            v = apply_gravity(v, gravity, max_fall_speed, dt);
        }
        // Resting contact: a body that stood on another body does not fall faster than its
        // support, so stacks do not sink into each other and rising platforms carry riders.
        if !kinematic && flags.pushed_object(Side::Bottom) {
            v.y = v.y.max(state.ground_velocity.y);
        }
        if velocity.0 != v {
            velocity.0 = v;
        }
        if (kinematic || !switches.world_collision) && v != Vec2::ZERO {
            let moved = aabb.center + v * dt;
            aabb.center = moved;
        }
    };
    let (total, parallel) = count_rows(&bodies, config.parallel_min_bodies);
    for IntegrateRowContiguousItem {
        entity: entities,
        aabb: aabbs,
        velocity: velocities,
        old: olds,
        flags,
        state: states,
        switches,
        kinematic,
        rest: rests,
        awake,
        layers,
    } in bodies.contiguous_iter_mut().expect(DENSE)
    {
        // The game's writes of what the physics never writes: a body whose switches or layers
        // were set is awake (what it does or whom it meets may change).
        let switched = (
            Changes::changed(&switches),
            layers.as_ref().map(Changes::changed),
        );
        let switches = switches.into_inner();
        // The physics' own memory: never marked changed.
        let (rests, awake) = (unpack(rests).0, unpack(awake).0);
        let (mut a, mut v, mut o) = (unpack(aabbs), unpack(velocities), unpack(olds));
        let (mut f, mut s) = (unpack(flags), unpack(states));
        let columns = (
            Column::new(&mut a),
            Column::new(&mut v),
            Column::new(&mut o),
        );
        let rows = (
            entities,
            columns,
            Column::new(&mut f),
            Column::new(&mut s),
            (switches, (rests, awake), switched),
        );
        for_each_piece(
            (rows, kinematic),
            entities.len(),
            total,
            workers.threads(parallel),
            |(rows, kinematic)| {
                let len = rows.row_count();
                let (entities, (mut a, mut v, mut o), mut f, mut s, own) = rows;
                let (switches, (rests, awake), (switched, relayered)) = own;
                let forced = wake_all || kinematic;
                let wake = |row| forced || switched.at(row) || relayered.is_some_and(|c| c.at(row));
                // A block of rows at a time. A still body that nothing forces awake and nothing
                // wrote rests, decided from its `Awake` byte and change ticks alone (most bodies
                // of a settled scene): each column is compared for the whole block at once, a
                // few rows per instruction, marking the rows that may be awake. Only those are
                // decided by `Awake::begin`, from their components.
                for start in (0..len).step_by(BLOCK) {
                    let rows = end_of_block(start, len) - start;
                    let mut marks = [0u8; BLOCK];
                    let marked = &mut marks[..rows];
                    for (mark, awake) in marked.iter_mut().zip(&mut awake[start..]) {
                        *mark = u8::from(forced || !awake.is_still());
                        // A marked row is decided again below (`Awake::begin` sets the bit anew).
                        awake.rest();
                    }
                    a.mark_changed(start, marked);
                    v.mark_changed(start, marked);
                    f.mark_changed(start, marked);
                    s.mark_changed(start, marked);
                    switched.mark(start, marked);
                    if let Some(relayered) = relayered {
                        relayered.mark(start, marked);
                    }
                    for_each_marked(&marks, |i| {
                        let row = start + i;
                        let body = IntegratedBody {
                            entity: entities[row],
                            aabb: a.at(row),
                            velocity: v.at(row),
                            old: o.at(row),
                            flags: f.at(row),
                            state: s.at(row),
                            switches: &switches[row],
                            rest: &mut rests[row],
                            awake: &mut awake[row],
                        };
                        work(body, (kinematic, wake(row)));
                    });
                }
            },
        );
        // Integrate is the writer `track_location` records for what it changed.
        let writer = MaybeLocation::caller();
        stamp_writes(&mut a, writer);
        stamp_writes(&mut v, writer);
        stamp_writes(&mut o, writer);
        stamp_writes(&mut f, writer);
        stamp_writes(&mut s, writer);
    }
}

/// The first stage, [`PhysicsSystems::Integrate`]: the app's
/// workers are called ([`call_workers`]), riders are carried ([`carry_riders`]), then
/// [`integrate`] runs.
pub(crate) struct IntegratePlugin(pub(crate) InternedScheduleLabel);

impl Plugin for IntegratePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<Velocity>()
            .register_type::<Kinematic>()
            .register_type::<BodySwitches>()
            .register_type::<OldPosition>()
            .register_type::<crate::push::Pushable>()
            .add_systems(
                self.0,
                (
                    call_workers,
                    carry_riders,
                    crate::push::push_bodies,
                    integrate,
                )
                    .chain()
                    .in_set(PhysicsSystems::Integrate),
            );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_accelerates_and_caps_the_fall() {
        let g = Vec2::new(0.0, -600.0);
        assert_eq!(
            apply_gravity(Vec2::ZERO, g, 1000.0, 0.5),
            Vec2::new(0.0, -300.0)
        );
        assert_eq!(
            apply_gravity(Vec2::new(5.0, -900.0), g, 1000.0, 0.5),
            Vec2::new(5.0, -1000.0)
        );
        // Rising bodies are not capped.
        assert_eq!(
            apply_gravity(Vec2::new(0.0, 2000.0), g, 1000.0, 0.5),
            Vec2::new(0.0, 1700.0)
        );
        // Sideways and slanted gravity are capped along their direction.
        assert_eq!(
            apply_gravity(Vec2::new(-900.0, 3.0), Vec2::new(-600.0, 0.0), 1000.0, 0.5),
            Vec2::new(-1000.0, 3.0)
        );
        let slanted = apply_gravity(Vec2::ZERO, Vec2::new(3000.0, -4000.0), 1000.0, 1.0);
        assert!((slanted - Vec2::new(600.0, -800.0)).length() < 1e-3);
        // A speed at the cap or beyond it (set by the game) is kept, on every axis.
        assert_eq!(
            apply_gravity(Vec2::new(2.0, -1000.0), g, 1000.0, 0.5),
            Vec2::new(2.0, -1000.0)
        );
        assert_eq!(
            apply_gravity(Vec2::new(7.0, -30_000.0), g, 1000.0, 0.5),
            Vec2::new(7.0, -30_000.0)
        );
        assert_eq!(
            apply_gravity(Vec2::new(5000.0, 1.0), Vec2::new(600.0, 0.0), 1000.0, 0.5),
            Vec2::new(5000.0, 1.0)
        );
        // No gravity, no cap.
        assert_eq!(
            apply_gravity(Vec2::new(0.0, -5000.0), Vec2::ZERO, 10.0, 0.5).y,
            -5000.0
        );
    }

    #[test]
    fn slanted_gravity_never_adds_speed_across_itself() {
        let g = Vec2::new(-380.5, -500.0);
        let down = g.normalize();
        let across = Vec2::new(-down.y, down.x);
        for v in [
            Vec2::ZERO,
            Vec2::new(0.0, -2000.0),
            Vec2::new(0.0, -30_455.0),
            Vec2::new(300.0, 900.0),
            Vec2::new(-800.0, -700.0),
        ] {
            let after = apply_gravity(v, g, 1200.0, 1.0 / 60.0);
            let gained = after - v;
            assert!(gained.dot(across).abs() < 1e-2, "{v} -> {after}");
            // Never faster along gravity than the cap, unless it already was (then unchanged).
            if v.dot(down) >= 1200.0 {
                assert_eq!(after, v);
            } else {
                assert!(after.dot(down) <= 1200.0 + 1e-2, "{v} -> {after}");
                assert!(gained.dot(down) >= 0.0, "{v} -> {after}");
            }
        }
    }
}
