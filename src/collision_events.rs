//! Collision events between bodies: [`CollisionStarted`] and [`CollisionEnded`], from the
//! difference between each body's partners at the last step and at this one.
//!
//! # Algorithm
//!
//! Pair detection lays out every detected body's partners compactly ([`ContactLists`]); the layout
//! of the last step is kept, so the comparison never reads the bodies' [`Contacts`]. Pairs are
//! symmetric (in both bodies' lists), so each change is seen twice; one side reports it:
//!
//! - a pair that **started** (a partner now, not last step) is reported by its smaller entity;
//! - a pair that **ended** is reported by the side that is more present: detected this step,
//!   over still a body but not detected (an invalid box, say). Equally present: the smaller
//!   entity.
//!
//! A body that is despawned (or loses its [`Aabb`](crate::Aabb)) ends all its contacts at once,
//! through a hook that also takes it out of the others' [`Contacts`] and out of the last
//! detection's partners; the comparison then skips its pairs, so nothing is reported twice. Bodies
//! are compared in fixed pieces of slot order (on several threads for large scenes) and the pieces
//! written in order, so the messages come in the same order on every run and on any number of
//! threads.

use bevy::ecs::message::Messages;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::config::PhysicsConfig;
use crate::contacts::Contacts;
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk};
use crate::messages::{CollisionEnded, CollisionStarted};
use crate::pairs::contact_lists::{ContactLists, Link};
use crate::pairs::store::ContactStore;

/// How present a body is at this step's pair detection, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Presence {
    /// Not a body any more (no [`Aabb`](crate::Aabb)): the hook already ended its contacts.
    Gone,
    /// Still a body, but not detected (not in the partition).
    Undetected,
    /// Detected this step.
    Detected,
}

/// The pair with the smaller entity first.
#[inline]
fn ordered(x: Entity, y: Entity) -> (Entity, Entity) {
    if x < y { (x, y) } else { (y, x) }
}

/// Whether `me` reports the end of its pair with `other`: the more present side, ties to the
/// smaller entity; nobody when either is gone (the removal hook reported it).
#[inline]
fn reports_end(me: Entity, me_at: Presence, other: Entity, other_at: Presence) -> bool {
    me_at != Presence::Gone
        && other_at != Presence::Gone
        && (me_at > other_at || (me_at == other_at && me < other))
}

/// A change found by the comparison, as the message it becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Started(Entity, Entity),
    Ended(Entity, Entity),
}

/// Whether `list` holds `e`.
#[inline]
fn has(list: &(impl Iterator<Item = Entity> + Clone), e: Entity) -> bool {
    list.clone().any(|x| x == e)
}

/// The changes one body reports, from its partners `old` (last step) and `new` (this step).
/// An old partner counts only if `counts` says so: one that went away (its removal hook ended
/// the pair) and came back before this step is a new partner.
fn changes(
    me: Entity,
    me_at: Presence,
    old: impl Iterator<Item = Entity> + Clone,
    new: impl Iterator<Item = Entity> + Clone,
    counts: impl Fn(Entity) -> bool,
    presence: impl Fn(Entity) -> Presence,
    out: &mut Vec<Change>,
) {
    if old.clone().eq(new.clone()) && old.clone().all(&counts) {
        return;
    }
    for other in old.clone() {
        if counts(other) && !has(&new, other) && reports_end(me, me_at, other, presence(other)) {
            let (a, b) = ordered(me, other);
            out.push(Change::Ended(a, b));
        }
    }
    for other in new {
        if me < other && !(has(&old, other) && counts(other)) {
            out.push(Change::Started(me, other));
        }
    }
}

/// Whether two lists of contacts name the same partner slots in the same order.
#[inline]
fn same_partners(a: &[Link], b: &[Link]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.other == b.other)
}

/// Compares this step's partners with last step's and writes the messages: the detected
/// bodies in fixed pieces of slot order (on several threads when `parallel`), then the bodies
/// detected last step but not now. `is_body` tells an undetected body from a gone one. The
/// slots that `kept` their contacts of the last step (resting bodies, see `crate::rest_skipping::memory`) are
/// not compared: each of their pairs is in both steps, so none of them started or ended.
/// With `same_slots` (every body has the slot it had at the last step, and none went away
/// since), a slot whose partners' slots are the ones it had is passed over too, without
/// looking up who they are.
#[allow(
    clippy::too_many_arguments,
    reason = "the two layouts, the messages and the scratch it writes are separate borrows of the caller's system parameters"
)]
pub(crate) fn report_contact_changes(
    now: &ContactLists,
    last: &ContactLists,
    is_body: impl Fn(Entity) -> bool + Sync,
    (kept, same_slots): (impl Fn(usize) -> bool + Sync, bool),
    threads: Threads,
    pieces: &mut Vec<Vec<Change>>,
    started: &mut MessageWriter<CollisionStarted>,
    ended: &mut MessageWriter<CollisionEnded>,
) {
    let presence = |e: Entity| {
        if now.slot(e).is_some() {
            Presence::Detected
        } else if is_body(e) {
            Presence::Undetected
        } else {
            Presence::Gone
        }
    };
    // Old partners that went away since (and may be back): not partners any more.
    let counts = |other: Entity| !last.forgotten || last.slot(other).is_some();
    let n = now.entities.len();
    pieces.resize_with(CHUNKS, Vec::new);
    for_each_chunk(pieces, threads, |i, out| {
        out.clear();
        for k in chunk_range(i, CHUNKS, n) {
            if kept(k) || (same_slots && same_partners(last.links_of(k), now.links_of(k))) {
                continue;
            }
            let me = now.entities[k];
            let old = last.slot(me).map(|p| last.of_slot(p));
            changes(
                me,
                Presence::Detected,
                old.into_iter().flatten(),
                now.of_slot(k),
                counts,
                presence,
                out,
            );
        }
    });
    let mut write = |c: &Change| match *c {
        Change::Started(a, b) => {
            started.write(CollisionStarted { a, b });
        }
        Change::Ended(a, b) => {
            ended.write(CollisionEnded { a, b });
        }
    };
    for piece in pieces.iter() {
        piece.iter().for_each(&mut write);
    }
    // Bodies that had partners last step and were not detected now.
    let Some(out) = pieces.first_mut() else {
        return;
    };
    out.clear();
    for (p, &me) in last.entities.iter().enumerate() {
        // (A slot that kept its contacts holds the same body, detected now.)
        if kept(p) {
            continue;
        }
        if !last.links_of(p).is_empty() && me != Entity::PLACEHOLDER && now.slot(me).is_none() {
            let old = last.of_slot(p);
            changes(me, presence(me), old, [].into_iter(), counts, presence, out);
        }
    }
    out.iter().for_each(&mut write);
}

/// Part of the `on_remove` hook of [`Aabb`](crate::Aabb): every contact of a body that goes
/// away ends now. It leaves the other bodies' [`Contacts`] and the last detection's partners
/// (so a second removal before the next step ends nothing twice).
pub(crate) fn end_contacts(mut world: DeferredWorld, me: Entity) {
    let Some(partners) = world
        .get_resource_mut::<ContactStore>()
        .map(|mut layout| layout.forget(me))
    else {
        return;
    };
    for &other in &partners {
        if let Some(mut contacts) = world.get_mut::<Contacts>(other) {
            contacts.forget(me);
        }
    }
    let wanted = world
        .get_resource::<PhysicsConfig>()
        .is_none_or(|c| c.collision_events);
    if wanted && !partners.is_empty() && world.contains_resource::<Messages<CollisionEnded>>() {
        world.write_message_batch(partners.iter().map(|&other| {
            let (a, b) = ordered(me, other);
            CollisionEnded { a, b }
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_side_reports_an_end_unless_the_hook_did() {
        let (x, y) = ordered(
            Entity::from_raw_u32(3).unwrap(),
            Entity::from_raw_u32(7).unwrap(),
        );
        let all = [Presence::Gone, Presence::Undetected, Presence::Detected];
        for px in all {
            for py in all {
                let count = reports_end(x, px, y, py) as u32 + reports_end(y, py, x, px) as u32;
                let gone = px == Presence::Gone || py == Presence::Gone;
                assert_eq!(count, (!gone) as u32, "{px:?} / {py:?}");
            }
        }
        assert!(reports_end(y, Presence::Detected, x, Presence::Undetected));
        assert!(reports_end(x, Presence::Detected, y, Presence::Detected));
    }

    #[test]
    fn changes_are_found_from_either_list() {
        let e = |i| Entity::from_raw_u32(i).unwrap();
        let (me, kept, gone, new) = (e(1), e(2), e(3), e(4));
        let mut out = Vec::new();
        changes(
            me,
            Presence::Detected,
            [kept, gone].into_iter(),
            [new, kept].into_iter(),
            |_| true,
            // The lost partner is no longer detected: this side reports the end.
            |e| {
                if e == gone {
                    Presence::Undetected
                } else {
                    Presence::Detected
                }
            },
            &mut out,
        );
        let (a, b) = ordered(me, gone);
        let mut expected = vec![Change::Ended(a, b)];
        if me < new {
            expected.push(Change::Started(me, new));
        }
        assert_eq!(out, expected);
        out.clear();
        changes(
            me,
            Presence::Detected,
            [kept].into_iter(),
            [kept].into_iter(),
            |_| true,
            |_| Presence::Detected,
            &mut out,
        );
        assert!(out.is_empty(), "unchanged");
        // A partner that went away and came back before this step starts again; one that went
        // away for good was ended by its removal hook.
        changes(
            me,
            Presence::Detected,
            [kept, gone].into_iter(),
            [kept].into_iter(),
            |e| e != kept && e != gone,
            |_| Presence::Detected,
            &mut out,
        );
        let expected: Vec<Change> = if me < kept {
            vec![Change::Started(me, kept)]
        } else {
            vec![]
        };
        assert_eq!(out, expected);
    }
}
