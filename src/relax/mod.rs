//! [`RelaxationPlugin`]: what the response leaves overlapping is pushed apart within the step,
//! in ordered sweeps from what holds it (the floor, walls, kinematic bodies) outward.
//!
//! # Algorithm
//!
//! Article 003's response resolves each contact once, from what detection saw. In a pile or in
//! a crowd pressed into a wall, moving a body out of one neighbour moves it into another, and
//! what is left waits for the next step, which adds its own. Relaxation finishes the job in the
//! step. Its terms:
//!
//! - Two bodies are **partners** when detection found them in contact, or saw them apart by at
//!   most twice the **reach** (a quarter of a tile) along both axes, or they touch where the
//!   response left them, or are that near there when the response moved one of them more than
//!   half the reach; their layers interacting and neither a one-way platform. Relaxation
//!   settles partners only; a body it pushes further than the reach meets the others at the
//!   next step's detection.
//! - A body is **blocked** on a side when it touches a solid tile there this step, or once a
//!   push toward that side was stopped by the tile sweep; a kinematic body never moves.
//! - A **phase** runs along one axis. Where it **found** the bodies (their centres when it
//!   began) orders them: a sweep toward +y visits them from the lowest up, by that height, then
//!   by entity; toward -y the other way round; the same along x.
//! - A pair is **settled along** the phase's axis when it overlaps across that axis by more than
//!   the pair's contact tolerance now, and by no less than it overlapped along the axis where
//!   the phase found it.
//! - A body's **need** in a sweep: the furthest along the sweep that a partner before it, in a
//!   pair settled along the axis, has it go to touch it, when that is beyond it by more than
//!   the tolerance.
//! - A **sweep** visits, in its order, the bodies with a need where the phase found them and
//!   every partner after a body it moved; each visited body is pushed to its need through the
//!   tile sweep. A body that ends short of its need (blocked, or stopped by a tile) is
//!   **short**. The **sweep back** is a sweep the other way from the partners behind the short
//!   bodies: what pushed into a body that could not give way is pushed back.
//!
//! Up to [`PhysicsConfig::relaxation_passes`] passes, each:
//!
//! 1. **Vertical phase:** a sweep up (a stack settles in one sweep), then its sweep back down.
//! 2. **Horizontal phase:** from the same start, a sweep right and its sweep back, and a sweep
//!    left and its sweep back; each body ends halfway between where the two left it (neither
//!    direction is favoured; through the tile sweep when a slope moved the body), blocked where
//!    either blocked it. A row pushed into a wall settles in one phase.
//!
//! The passes end early when one changes nothing (no body moved or newly blocked). Then a
//! body moved along both axes is put where the tile sweep takes it from where relaxation found
//! it by its whole displacement, so no body goes round a tile's corner in separate pushes.
//! Every push goes through the tile sweep, so no body is pushed into a tile.
//!
//! **Squeezes.** What the passes leave overlapping by more than ten contact tolerances cannot
//! be undone where the bodies are: a body is **pressed** on a side when it is blocked there,
//! when a kinematic body touches or overlaps it there, or when a body touching or overlapping
//! it on that side is itself pressed on that side. A body with such an overlap along an axis,
//! pressed on both sides along it, is squeezed: it is reported [`Squished`] once per episode,
//! naming what presses each side, and left where relaxation left it.
//!
//! # Groups
//!
//! Bodies that are not partners never meet in relaxation, so it solves apart each **group**:
//! a body the response left unsettled (moved, or overlapping a partner by more than the
//! tolerance on both axes), with every body linked to it through partners. A body in no group
//! would not be moved by any pass. The groups are cut into pieces of whole groups solved on
//! the workers' threads; a group's outcome depends on nothing else, so neither does the step's
//! on the thread count, the order of the bodies or of their partners. The reference step
//! (`src/reference/relax.rs`) relaxes every body in one list, every pair of it, and the
//! differential test requires the same outcome bit for bit.
//!
//! Relaxation moves boxes only: velocities, push flags, contacts and messages are the
//! response's. A body it moved is `Changed<Aabb>`, its `Transform` follows, and it is filed in
//! the partition where it ended.
//!
//! Where each part is: the groups in `groups.rs`, the passes over one group and the rules of a
//! sweep in `pass.rs`, the squeezes in `squeeze.rs`.

use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;
use core::ops::DerefMut;

use crate::body::{Aabb, warn_bits, warn_once_while};
use crate::config::PhysicsConfig;
use crate::diagnostics::PhysicsStats;
use crate::fast::parallel::{CHUNKS, for_each_split};
use crate::fast::workers::Workers;
use crate::messages::{InEntityOrder, Squished};
use crate::pairs::store::ContactStore;
use crate::partition::Partition;
use crate::response::RespondSteps;
use crate::response::ended::ResponseEnds;
use crate::rest_skipping::memory::Awake;
use crate::rest_skipping::moving::{MovingBodies, for_each_moving_body, for_each_state};
use crate::tiles::TileMap;

mod groups;
pub(crate) mod pass;
pub(crate) mod squeeze;

use groups::{Groups, Step};
use pass::{Buffers, RelaxBody, relax_group};
use squeeze::{PressedBy, Squeezes, find_squeezes, squished_by_relaxation};

/// Part of [`PhysicsPlugin`](crate::PhysicsPlugin): after the response, what still overlaps is
/// pushed apart in passes from the support up (see the [module docs](self)), so crates do not
/// sink into each other. [`PhysicsConfig::relaxation_passes`] sets how many passes (0: none).
/// Leave the plugin out for article 003's single response per step: cheaper, with the
/// overlaps it leaves (see `BENCHMARKS.md`).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// // The response alone, as article 003 has it:
/// let mut app = App::new();
/// app.add_plugins((
///     MinimalPlugins,
///     PhysicsPlugin::default().build().disable::<RelaxationPlugin>(),
/// ));
/// ```
pub struct RelaxationPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for RelaxationPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            self.0,
            relax_bodies
                .run_if(|config: Res<PhysicsConfig>| config.relaxation_passes > 0)
                .in_set(RespondSteps::Relax),
        );
    }
}

/// What relaxation keeps between steps, so a step allocates nothing once it is grown.
#[derive(Default)]
struct Relaxation {
    groups: Groups,
    relaxed: Vec<RelaxBody>,
    /// One per piece of whole groups.
    parts: Vec<Part>,
    /// By slot: squeezed this step.
    squeezed: Vec<bool>,
    /// The bodies whose episode of squeezes ends this step.
    unsqueezed: Vec<Entity>,
    written: Written,
    messages: InEntityOrder<Squished>,
}

/// What solving one piece of whole groups needs and finds.
#[derive(Default)]
struct Part {
    buffers: Buffers,
    squeezes: Squeezes,
    /// The most passes that changed one of its groups.
    passes: u32,
    /// Each squeezed body (by place in `relaxed`) and what presses its sides (by place).
    squeezed: Vec<(usize, [Option<PressedBy>; 4])>,
}

/// Relaxes the groups of the step (see the [algorithm](self)), on the workers' threads above
/// [`PhysicsConfig::parallel_min_bodies`], writes back the bodies it moved (box, `Transform`),
/// reports the squeezes it left ([`Squished`], once per episode, in entity order), and counts
/// its passes and the bodies it moved in [`PhysicsStats`].
fn relax_bodies(
    (config, workers, map, partition): (
        Res<PhysicsConfig>,
        Res<Workers>,
        Res<TileMap>,
        Res<Partition>,
    ),
    (layout, ends, mut stats): (Res<ContactStore>, Res<ResponseEnds>, ResMut<PhysicsStats>),
    mut bodies: MovingBodies<Transform>,
    mut relaxation: Local<Relaxation>,
    mut squished: MessageWriter<Squished>,
) {
    let Relaxation {
        groups,
        relaxed,
        parts,
        squeezed,
        unsqueezed,
        written,
        messages,
    } = &mut *relaxation;
    groups.build((&layout, &ends), (&partition, config.contact_tolerance));
    core::mem::swap(relaxed, &mut groups.bodies);
    let (map, groups) = (&*map, &*groups);
    let settings = (config.relaxation_passes, config.contact_tolerance);
    let threads = workers.threads(relaxed.len() >= config.parallel_min_bodies);
    parts.resize_with(CHUNKS, Part::default);
    let cut = |i: usize| (groups.cut(i, CHUNKS), i + 1);
    for_each_split(relaxed, parts, CHUNKS, cut, threads, |i, relaxed, part| {
        let part = &mut part[0];
        let start = if i == 0 { 0 } else { groups.cut(i - 1, CHUNKS) };
        part.passes = 0;
        part.squeezed.clear();
        let first = groups.ends.partition_point(|&end| end as usize <= start);
        let mut from = start;
        for &end in &groups.ends[first..] {
            let end = end as usize;
            if end > start + relaxed.len() {
                break;
            }
            let group = &mut relaxed[from - start..end - start];
            let partners = groups.partners(from..end);
            let passes = relax_group(map, group, partners, settings, &mut part.buffers);
            part.passes = part.passes.max(passes);
            find_squeezes(group, |k| partners.of(k), settings.1, &mut part.squeezes);
            let place = |(k, by): &(usize, [Option<PressedBy>; 4])| {
                let by = by.map(|p| match p {
                    Some(PressedBy::Slot(j)) => Some(PressedBy::Slot(from + j)),
                    other => other,
                });
                (from + k, by)
            };
            part.squeezed.extend(part.squeezes.found.iter().map(place));
            from = end;
        }
    });
    // Write back the bodies that moved, remembering where they are for the next step.
    let slot_of = |i: usize| groups.slots[i] as usize;
    written.note((&layout, &ends), relaxed, slot_of);
    let parallel = (&*workers, config.parallel_min_bodies);
    stats.relaxation_passes = parts.iter().map(|p| p.passes).max().unwrap_or(0) as usize;
    let step = (&*layout, &*ends);
    stats.relaxed_bodies += written.write(step, relaxed, groups, &mut bodies, parallel);
    // Start the episodes of the squeezed, and end those of the bodies squeezed no more.
    let entity_of = |i: usize| layout.records[slot_of(i)].entity;
    squeezed.clear();
    squeezed.resize(layout.records.len(), false);
    for (i, pressers) in parts.iter().flat_map(|p| &p.squeezed) {
        squeezed[slot_of(*i)] = true;
        let entity = entity_of(*i);
        let Ok(mut body) = bodies.get_mut(entity) else {
            continue;
        };
        warn_once_while(&mut body.state, warn_bits::SQUEEZED, true, || {
            let center = relaxed[*i].center;
            messages.push(squished_by_relaxation(entity, center, pressers, entity_of));
        });
    }
    unsqueezed.clear();
    for_each_state(&mut bodies, |entity, state| {
        let squeezed = || (layout.now.slot(entity)).is_some_and(|k| squeezed[k]);
        if state.is_raised(warn_bits::SQUEEZED) && !squeezed() {
            unsqueezed.push(entity);
        }
    });
    for &entity in unsqueezed.iter() {
        if let Ok(mut body) = bodies.get_mut(entity) {
            warn_once_while(&mut body.state, warn_bits::SQUEEZED, false, || {});
        }
    }
    messages.write(&mut squished);
}

/// The bodies relaxation moved this step, each once: by place, and marked by slot.
#[derive(Default)]
struct Written {
    places: Vec<u32>,
    marks: Vec<bool>,
}

/// A body relaxation moved has its rows read in table order, the physics' way
/// ([`for_each_moving_body`]), when at least one slot in this many was moved: below, each is
/// looked up by its entity, which costs tens of times a row's test.
const WRITE_BY_ROWS: usize = 32;

impl Written {
    /// Notes each body relaxation left away from where the response left it
    /// ([`ResponseEnds::moved_by_relaxation`]).
    fn note(
        &mut self,
        (layout, ends): Step,
        relaxed: &[RelaxBody],
        slot_of: impl Fn(usize) -> usize,
    ) {
        self.places.clear();
        self.marks.clear();
        self.marks.resize(layout.records.len(), false);
        for (i, relaxed_body) in relaxed.iter().enumerate() {
            if ends.moved_by_relaxation(layout, slot_of(i), relaxed_body.center) {
                self.places.push(i as u32);
                self.marks[slot_of(i)] = true;
            }
        }
    }

    /// Puts each body noted where `relaxed` has it: read by rows when they are many (on the
    /// workers' threads from `parallel.1` bodies), else each looked up. Returns how many.
    fn write(
        &self,
        (layout, ends): Step,
        relaxed: &[RelaxBody],
        groups: &Groups,
        bodies: &mut MovingBodies<Transform>,
        parallel: (&Workers, usize),
    ) -> usize {
        if self.places.len() * WRITE_BY_ROWS >= layout.records.len() {
            // Each moved slot's centre, by slot, for the rows to read.
            let marks = &self.marks;
            let skip = |entities: &[Entity]| {
                let slot_of = layout.slots_by_row(entities);
                move |entities: &[Entity], row, _| !slot_of(entities, row).is_some_and(|k| marks[k])
            };
            for_each_moving_body(bodies, parallel, skip, |mut body| {
                if let Some(k) = layout.now.slot(body.entity) {
                    let center = ends.relaxed_center(k);
                    place(center, &mut body.aabb, &mut body.own, body.awake);
                }
            });
        } else {
            for &i in &self.places {
                let k = groups.slots[i as usize] as usize;
                if let Ok(mut body) = bodies.get_mut(layout.records[k].entity) {
                    let awake = body.awake.bypass_change_detection();
                    place(
                        relaxed[i as usize].center,
                        &mut body.aabb,
                        &mut body.own,
                        awake,
                    );
                }
            }
        }
        self.places.len()
    }
}

/// Puts a body relaxation moved at `center`: its box, its `Transform` (if finite), and its
/// step no longer ends where it began.
fn place(
    center: Vec2,
    aabb: &mut impl DerefMut<Target = Aabb>,
    transform: &mut impl DerefMut<Target = Transform>,
    awake: &mut Awake,
) {
    aabb.center = center;
    if center.is_finite() {
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
    awake.moved();
}

#[cfg(test)]
mod tests;
