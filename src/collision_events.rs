//! Collision events between bodies: [`CollisionStarted`] and [`CollisionEnded`], from the
//! difference between each body's [`Contacts`] before and after pair detection.
//!
//! # Algorithm
//!
//! Contacts are symmetric (a pair is in both bodies' lists), so each change is seen twice; one
//! side reports it:
//!
//! - a pair that **started** (in the new list, not the old) is reported by its smaller entity;
//! - a pair that **ended** (in the old list, not the new) is reported by the side that is more
//!   present: detected this step, over still a body but not detected (an invalid box, say),
//!   over gone. Equally present: the smaller entity.
//!
//! Bodies are visited in query order and their contacts in detection order, so the messages
//! come in the same order on every run. A body that is despawned (or loses its [`Contacts`])
//! ends all its contacts at once, through a hook that also takes it out of the others' lists,
//! so nothing is reported twice.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::message::Messages;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::messages::{CollisionEnded, CollisionStarted};
use crate::pairs::{CollisionData, Contacts};

/// How present a body is at this step's pair detection, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Presence {
    /// No [`Contacts`] any more.
    Gone,
    /// Has [`Contacts`], but was not detected (not in the partition).
    Undetected,
    /// Detected this step.
    Detected,
}

/// The pair with the smaller entity first.
#[inline]
fn ordered(x: Entity, y: Entity) -> (Entity, Entity) {
    if x < y { (x, y) } else { (y, x) }
}

/// Whether `me` reports the end of its pair with `other` (see the module's rule).
#[inline]
fn reports_end(me: Entity, me_at: Presence, other: Entity, other_at: Presence) -> bool {
    me_at > other_at || (me_at == other_at && me < other)
}

/// Writes the changes between one body's `old` and `new` contacts that this body reports.
pub(crate) fn report_changes(
    me: Entity,
    me_at: Presence,
    old: &[CollisionData],
    new: &[CollisionData],
    presence: impl Fn(Entity) -> Presence,
    started: &mut MessageWriter<CollisionStarted>,
    ended: &mut MessageWriter<CollisionEnded>,
) {
    let same = old.len() == new.len() && old.iter().zip(new).all(|(o, n)| o.other == n.other);
    if same {
        return;
    }
    let holds = |list: &[CollisionData], e: Entity| list.iter().any(|c| c.other == e);
    for c in old {
        if !holds(new, c.other) && reports_end(me, me_at, c.other, presence(c.other)) {
            let (a, b) = ordered(me, c.other);
            ended.write(CollisionEnded { a, b });
        }
    }
    for c in new {
        if me < c.other && !holds(old, c.other) {
            started.write(CollisionStarted { a: me, b: c.other });
        }
    }
}

/// The `on_remove` hook of [`Contacts`]: every contact of a body that goes away ends now, and
/// the body leaves the other bodies' lists.
pub(crate) fn end_contacts_hook(mut world: DeferredWorld, context: HookContext) {
    let me = context.entity;
    let Some(contacts) = world.get_mut::<Contacts>(me).map(|mut c| c.take()) else {
        return;
    };
    for c in &contacts {
        if let Some(mut other) = world.get_mut::<Contacts>(c.other) {
            other.forget(me);
        }
    }
    if !contacts.is_empty() && world.contains_resource::<Messages<CollisionEnded>>() {
        world.write_message_batch(contacts.iter().map(|c| {
            let (a, b) = ordered(me, c.other);
            CollisionEnded { a, b }
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_side_reports_an_end() {
        let (x, y) = ordered(
            Entity::from_raw_u32(3).unwrap(),
            Entity::from_raw_u32(7).unwrap(),
        );
        let all = [Presence::Gone, Presence::Undetected, Presence::Detected];
        for px in all {
            for py in all {
                let count = reports_end(x, px, y, py) as u32 + reports_end(y, py, x, px) as u32;
                assert_eq!(count, 1, "{px:?} / {py:?}");
            }
        }
        assert!(reports_end(y, Presence::Detected, x, Presence::Undetected));
        assert!(reports_end(x, Presence::Detected, y, Presence::Detected));
    }
}
