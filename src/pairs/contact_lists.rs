//! The per-body contact layout of pair detection: every pair found, laid out once for each
//! of its two bodies, contiguously in slot order ([`ContactLists`]' `starts` and `links`), each
//! body's contacts in partner-slot order; beside them, the contacts each body keeps from the
//! last step ([`LastContacts`]).
//!
//! # Algorithm
//!
//! A counting sort, cut by slot range so that it runs in parallel and its result does not
//! depend on the cut:
//!
//! 1. The pair loop files each pair's two ends ([`End`]) by the range of each body's slot
//!    ([`file_end`]; the ranges are a power of two long, so finding one is a shift).
//! 2. The ranges' sizes (found and kept contacts), summed in order, say where each range's
//!    contacts begin.
//! 3. Each range, on its own (on several threads for large scenes), counts its slots' contacts,
//!    sums the counts into where each slot's contacts begin, copies the kept contacts there,
//!    writes each found contact after them, reading the pieces' lists for its range in pair
//!    order, and sorts each slot's contacts by partner slot where some were found.

use bevy::prelude::*;

use bevy::utils::Parallel;

use crate::fast::parallel::{Threads, for_each_split};

/// One contact of a body in the layout: the other body's slot and the overlap from the owner's
/// side. Everything else a [`CollisionData`](crate::CollisionData) holds is in the two bodies'
/// snapshots, so the layout moves 12 bytes per contact instead of a whole record.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Link {
    pub(crate) other: u32,
    pub(crate) overlap: Vec2,
}

/// Every detected body's contacts at one step, laid out compactly (slot order, each body's
/// contacts in partner-slot order): what pair detection builds, what the response reads, and what
/// the next step compares with, without touching the bodies' [`Contacts`](crate::Contacts).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactLists {
    /// The body in each slot.
    pub(crate) entities: Vec<Entity>,
    /// Entity index to slot (stale entries are caught by checking `entities`).
    pub(crate) slot_of: Vec<u32>,
    /// Slot `k`'s contacts are `links[starts[k]..starts[k + 1]]`.
    pub(crate) starts: Vec<u32>,
    pub(crate) links: Vec<Link>,
    /// Some body went away after this detection: its slot holds `Entity::PLACEHOLDER`.
    pub(crate) forgotten: bool,
}

impl ContactLists {
    /// The same contacts with each body's entity replaced by `map`'s (a placeholder stays).
    pub(crate) fn mapped(&self, map: impl Fn(Entity) -> Entity) -> Self {
        let entities: Vec<Entity> = (self.entities.iter())
            .map(|&e| if e == Entity::PLACEHOLDER { e } else { map(e) })
            .collect();
        let mut slot_of = vec![u32::MAX; self.slot_of.len()];
        for (k, e) in entities.iter().enumerate() {
            if *e == Entity::PLACEHOLDER {
                continue;
            }
            let index = e.index_u32() as usize;
            if slot_of.len() <= index {
                slot_of.resize(index + 1, u32::MAX);
            }
            slot_of[index] = k as u32;
        }
        Self {
            entities,
            slot_of,
            starts: self.starts.clone(),
            links: self.links.clone(),
            forgotten: self.forgotten,
        }
    }

    /// The slot of `entity`, if it was detected.
    #[inline]
    pub(crate) fn slot(&self, entity: Entity) -> Option<usize> {
        let k = *self.slot_of.get(entity.index_u32() as usize)? as usize;
        (self.entities.get(k) == Some(&entity)).then_some(k)
    }

    /// The contacts of slot `k`.
    #[inline]
    pub(crate) fn links_of(&self, k: usize) -> &[Link] {
        &self.links[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// The partners of slot `k`, in partner-slot order; a partner that went away since (see
    /// [`ContactStore::forget`](crate::pairs::store::ContactStore)) is `Entity::PLACEHOLDER`.
    #[inline]
    pub(crate) fn of_slot(&self, k: usize) -> impl Iterator<Item = Entity> + Clone + '_ {
        (self.links_of(k).iter()).map(|link| self.entities[link.other as usize])
    }
}

/// One side of a found pair: the body in `slot`, its partner, and the overlap from its side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct End {
    pub(crate) slot: u32,
    pub(crate) other: u32,
    pub(crate) overlap: Vec2,
}

/// How many slot ranges the layout is cut into (a constant, so the pieces are the same on
/// every machine).
pub(crate) const SPLITS: usize = 8;

/// The ends one piece of the pair loop found, by slot range, each list in pair order.
pub(crate) type Ends = [Vec<End>; SPLITS];

/// The shift that takes one of `slots` slots to its range: ranges are a power of two long, so
/// a slot's range is one shift, not a division, in the pair loop.
#[inline]
pub(crate) fn split_shift(slots: usize) -> u32 {
    slots.div_ceil(SPLITS).next_power_of_two().trailing_zeros()
}

/// Files the end of a pair in `slot` (its partner `other`, the overlap from `slot`'s side) in
/// the list of its slot's range ([`split_shift`]`(slots)` is `shift`).
#[inline]
pub(crate) fn file_end(ends: &mut Ends, shift: u32, slot: u32, other: u32, overlap: Vec2) {
    ends[(slot >> shift) as usize].push(End {
        slot,
        other,
        overlap,
    });
}

/// What a slot keeps of its contacts at the last step (see `crate::rest_skipping::memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeptContacts {
    /// None: its contacts are all found again (an awake body, or every body when the slots
    /// changed).
    None,
    /// Those with the partners that are not found again ([`LastContacts::partner`]); the others
    /// are found again (a resting body that touches, or touched, an awake one).
    Settled,
    /// All of them (a resting body none of whose partners moves).
    All,
}

/// What the layout carries over from the last step: the `last` layout, what each slot keeps
/// of it, for a [`KeptContacts::Settled`] slot whether its contact with a partner is kept, and how
/// many contacts the slots keep in all, by slot range.
pub(crate) struct LastContacts<'a, S, P> {
    pub(crate) last: &'a ContactLists,
    pub(crate) slot: S,
    pub(crate) partner: P,
    pub(crate) counts: [usize; SPLITS],
}

impl<S: Fn(usize) -> KeptContacts, P: Fn(u32) -> bool> LastContacts<'_, S, P> {
    /// The contacts a [`KeptContacts::Settled`] slot `k` keeps from the last layout.
    #[inline]
    fn settled_of(&self, k: usize) -> impl Iterator<Item = &Link> {
        (self.last.links_of(k).iter()).filter(|link| (self.partner)(link.other))
    }
}

/// Lays out the contacts among `slots` slots that the pair loop's `pieces` found (their
/// [`Ends`], filed with `shift`), and those each slot keeps from the last layout
/// (`carried`), into `partners`' `starts` and `links`, in parallel by slot range when
/// `parallel` is set, each slot's contacts in partner-slot order (`sorting`: a list per
/// thread, kept between steps, of the slots to sort). A slot that keeps some of its contacts
/// has the others found: the two never name the same partner. Returns how many contacts there
/// are (twice the pairs).
pub(crate) fn lay_out<'a, P: Sync>(
    pieces: &'a [P],
    ends_of: impl Fn(&'a P) -> &'a Ends + Sync,
    slots: usize,
    shift: u32,
    threads: Threads,
    carried: &LastContacts<'_, impl Fn(usize) -> KeptContacts + Sync, impl Fn(u32) -> bool + Sync>,
    (partners, sorting): (&mut ContactLists, &Parallel<Vec<u32>>),
) -> usize {
    let mut bases = [0; SPLITS + 1];
    for piece in pieces {
        for (range, ends) in ends_of(piece).iter().enumerate() {
            bases[range + 1] += ends.len();
        }
    }
    for (range, count) in carried.counts.into_iter().enumerate() {
        bases[range + 1] += count;
    }
    for range in 0..SPLITS {
        bases[range + 1] += bases[range];
    }
    let total = bases[SPLITS];
    let starts = &mut partners.starts;
    // Each range zeroes its own entries before counting into them: only the length and the
    // first entry are set here.
    starts.resize(slots + 1, 0);
    starts[0] = 0;
    // Only growth writes the blanks; every contact is overwritten here.
    let links = &mut partners.links;
    links.truncate(total);
    links.resize(total, Link::default());
    let end = |range: usize| (((range + 1) << shift).min(slots), bases[range + 1]);
    let range = |range: usize, ends: &mut [u32], links: &mut [Link]| {
        let lists = || pieces.iter().flat_map(|piece| &ends_of(piece)[range]);
        let first = range << shift;
        let mut sorting = sorting.borrow_local_mut();
        lay_out_range(
            first,
            bases[range],
            lists,
            carried,
            (ends, links),
            &mut sorting,
        );
    };
    for_each_split(&mut starts[1..], links, SPLITS, end, threads, range);
    total
}

/// Lays out the contacts of the slots from `first` on, whose entries in the layout's
/// `starts` are `ends`: counts each slot's contacts in `found` (the pair loop's ends for this
/// range); then, from `base` (where this range's contacts begin in the whole layout), gives
/// each slot its place and copies each run of slots that keep all their contacts from the
/// last layout at once, and the contacts the others keep, writes each `found` contact into
/// `links` (its part of the layout, from `base` on), and sorts each slot's contacts by partner
/// slot where some were found (listing them in `sorting` on the way). A slot's entry is where
/// its contacts begin, then serves as its cursor, and ends where they end, as the layout wants.
fn lay_out_range<'a, I: Iterator<Item = &'a End>>(
    first: usize,
    base: usize,
    found: impl Fn() -> I,
    carried: &LastContacts<'_, impl Fn(usize) -> KeptContacts, impl Fn(u32) -> bool>,
    (ends, links): (&mut [u32], &mut [Link]),
    sorting: &mut Vec<u32>,
) {
    ends.fill(0);
    sorting.clear();
    for e in found() {
        ends[e.slot as usize - first] += 1;
    }
    let last = carried.last;
    let mut at = base as u32;
    let mut k = 0;
    while k < ends.len() {
        match (carried.slot)(first + k) {
            KeptContacts::All => {
                // A run of them: their contacts are contiguous in the last layout too, and
                // move by the same amount (either way: wrapping arithmetic is exact).
                let run = first + k;
                let moved = at.wrapping_sub(last.starts[run]);
                while k < ends.len() && (carried.slot)(first + k) == KeptContacts::All {
                    ends[k] = last.starts[first + k + 1].wrapping_add(moved);
                    k += 1;
                }
                let from = last.starts[run] as usize..last.starts[first + k] as usize;
                let to = at as usize - base;
                links[to..to + from.len()].copy_from_slice(&last.links[from]);
                at = ends[k - 1];
            }
            kept => {
                let (found, start) = (ends[k], at);
                if kept == KeptContacts::Settled {
                    for link in carried.settled_of(first + k) {
                        links[at as usize - base] = *link;
                        at += 1;
                    }
                }
                ends[k] = at;
                at += found;
                // Its contacts need sorting when some were found and it has several.
                if found > 0 && at - start > 1 {
                    sorting.push(k as u32);
                }
                k += 1;
            }
        }
    }
    debug_assert_eq!(
        at as usize - base,
        links.len(),
        "the slots' contacts fill the range's part of the layout"
    );
    for e in found() {
        let cursor = &mut ends[e.slot as usize - first];
        links[*cursor as usize - base] = Link {
            other: e.other,
            overlap: e.overlap,
        };
        *cursor += 1;
    }
    // Few contacts each: an insertion sort of each slot's that has found ones.
    for &k in sorting.iter() {
        let k = k as usize;
        let start = if k == 0 { base } else { ends[k - 1] as usize };
        sort_by_partner(&mut links[start - base..ends[k] as usize - base]);
    }
}

/// Sorts one slot's contacts by partner slot (each partner appears once).
#[inline]
fn sort_by_partner(links: &mut [Link]) {
    for i in 1..links.len() {
        let mut j = i;
        while j > 0 && links[j - 1].other > links[j].other {
            links.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift32;

    /// Whether the layout test's slot `k` is awake: its contacts are all found again.
    fn awake(k: u32) -> bool {
        k.is_multiple_of(3)
    }

    /// A random layout problem among `slots` slots: `pairs` random pairs, those with an awake
    /// slot filed in five pieces' [`Ends`] as the pair loop files them and the others in the
    /// `last` layout (with some of the last step's contacts with awake slots, which are not
    /// kept); what each slot keeps, and each slot's contacts in partner order.
    fn random_problem(
        slots: usize,
        pairs: usize,
        shift: u32,
    ) -> (Vec<Ends>, ContactLists, Vec<KeptContacts>, Vec<Vec<Link>>) {
        let mut next = xorshift32(0x9E37_79B9);
        let mut pieces: Vec<Ends> = (0..5).map(|_| Ends::default()).collect();
        let mut expected = vec![Vec::new(); slots];
        let mut last_lists = vec![Vec::new(); slots];
        let mut kinds: Vec<KeptContacts> = (0..slots as u32)
            .map(|k| {
                if awake(k) {
                    KeptContacts::None
                } else {
                    KeptContacts::All
                }
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        for i in 0..pairs {
            let a = next() % slots as u32;
            let b = (a + 1 + next() % (slots as u32 - 1)) % slots as u32;
            if !seen.insert((a.min(b), a.max(b))) {
                continue;
            }
            let overlap = Vec2::new(i as f32, -(i as f32));
            let found = awake(a) || awake(b);
            // Every fourth pair with an awake slot touched at the last step and no longer does.
            let stale = found && i.is_multiple_of(4);
            for (me, other, overlap) in [(a, b, overlap), (b, a, -overlap)] {
                let link = Link { other, overlap };
                if found && !awake(me) {
                    kinds[me as usize] = KeptContacts::Settled;
                }
                if stale {
                    last_lists[me as usize].push(link);
                    continue;
                }
                if found {
                    file_end(&mut pieces[i * 5 / pairs], shift, me, other, overlap);
                } else {
                    last_lists[me as usize].push(link);
                }
                expected[me as usize].push(link);
            }
        }
        // The last layout, in partner order; an awake slot's is not read.
        let mut last = ContactLists::default();
        last.starts.push(0);
        for list in &mut last_lists {
            list.sort_by_key(|l| l.other);
            last.links.extend(list.iter());
            last.starts.push(last.links.len() as u32);
        }
        expected.iter_mut().for_each(|l| l.sort_by_key(|l| l.other));
        (pieces, last, kinds, expected)
    }

    #[test]
    fn the_layout_by_slot_range_is_each_slots_contacts_by_partner_found_or_kept() {
        for (slots, pairs) in [
            (0, 0),
            (1, 0),
            (2, 1),
            (7, 20),
            (8, 30),
            (9, 40),
            (1000, 3000),
            (4099, 9000),
        ] {
            let shift = split_shift(slots);
            assert!(
                slots == 0 || (slots - 1) >> shift < SPLITS,
                "{slots} slots fit the ranges"
            );
            let (pieces, last, kinds, expected) = if pairs == 0 {
                let last = ContactLists {
                    starts: vec![0; slots + 1],
                    ..default()
                };
                let kinds = vec![KeptContacts::All; slots];
                (
                    vec![Ends::default(); 3],
                    last,
                    kinds,
                    vec![Vec::new(); slots],
                )
            } else {
                random_problem(slots, pairs, shift)
            };
            assert!(
                slots < 1000
                    || kinds.contains(&KeptContacts::Settled) && kinds.contains(&KeptContacts::All),
                "the problem has slots of every kind"
            );
            let mut counts = [0; SPLITS];
            for (k, list) in expected.iter().enumerate() {
                let kept = list.iter().filter(|l| !awake(k as u32) && !awake(l.other));
                counts[k >> shift] += kept.count();
            }
            let carried = LastContacts {
                last: &last,
                slot: |k: usize| kinds[k],
                partner: |other: u32| !awake(other),
                counts,
            };
            // Stale contents from a larger step before must not leak into this one.
            let stale = Link {
                other: 99,
                overlap: Vec2::ONE,
            };
            let mut partners = ContactLists {
                starts: vec![7; slots + 9],
                links: vec![stale; 2 * pairs + 5],
                ..default()
            };
            let total = lay_out(
                &pieces,
                |ends| ends,
                slots,
                shift,
                None,
                &carried,
                (&mut partners, &Parallel::default()),
            );
            assert_eq!(total, expected.iter().map(Vec::len).sum::<usize>());
            assert_eq!(partners.starts.len(), slots + 1);
            assert_eq!(partners.links.len(), total);
            for (k, want) in expected.iter().enumerate() {
                let got = partners.links_of(k);
                let same = got.len() == want.len()
                    && got
                        .iter()
                        .zip(want)
                        .all(|(g, w)| g.other == w.other && g.overlap == w.overlap);
                assert!(same, "slot {k} of {slots}: {got:?} against {want:?}");
            }
        }
    }
}
