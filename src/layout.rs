//! The per-body contact layout of pair detection: every pair found, laid out once for each
//! of its two bodies, contiguously in slot order ([`Partners`]' `starts` and `links`), each
//! body's contacts in pair order.
//!
//! # Algorithm
//!
//! A counting sort, cut by slot range so that it runs in parallel and its result does not
//! depend on the cut:
//!
//! 1. The pair loop files each pair's two ends ([`End`]) by the range of each body's slot
//!    ([`file_pair`]; the ranges are a power of two long, so finding one is a shift).
//! 2. The ranges' sizes, summed in order, say where each range's contacts begin.
//! 3. Each range, on its own (on several threads for large scenes), counts its slots' contacts,
//!    sums the counts into where each slot's contacts begin, and writes each contact there,
//!    reading the pieces' lists for its range in pair order.

use bevy::prelude::*;

use crate::collision_events::{Link, Partners};
use crate::parallel::for_each_split;

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

/// Lays out the contacts among `slots` slots that the pair loop's `pieces` found (their
/// [`Ends`], filed with `shift`), and those of the slots that `keeps` from the `last` layout
/// (which have no ends; `kept` counts them by slot range), into `partners`' `starts` and `links`, in parallel by slot range
/// when `parallel` is set, each slot's contacts in partner-slot order. Returns how many
/// contacts there are (twice the pairs).
pub(crate) fn lay_out<'a, P: Sync>(
    pieces: &'a [P],
    ends_of: impl Fn(&'a P) -> &'a Ends + Sync,
    slots: usize,
    shift: u32,
    parallel: bool,
    (last, keeps, kept): (&Partners, impl Fn(usize) -> bool + Sync, [usize; SPLITS]),
    partners: &mut Partners,
) -> usize {
    let mut bases = [0; SPLITS + 1];
    for piece in pieces {
        for (range, ends) in ends_of(piece).iter().enumerate() {
            bases[range + 1] += ends.len();
        }
    }
    for (range, count) in kept.into_iter().enumerate() {
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
        lay_out_range(first, bases[range], lists, (last, &keeps), ends, links);
    };
    for_each_split(&mut starts[1..], links, SPLITS, end, parallel, range);
    total
}

/// Lays out the contacts of the slots from `first` on, whose ends are `ends` (the layout's
/// `starts[first + 1..]`): counts each slot's found contacts, then, from `base` (where this
/// range's contacts begin in the whole layout), gives each slot its place and copies each run
/// of slots that keep their contacts from `last` at once, writes each found contact into
/// `links` (its part of the layout, from `base` on), and sorts each slot's found contacts by
/// partner slot. A found slot's entry is where its contacts begin, then serves as its cursor,
/// and ends where they end, as the layout wants.
fn lay_out_range<'a, I: Iterator<Item = &'a End>>(
    first: usize,
    base: usize,
    lists: impl Fn() -> I,
    (last, keeps): (&Partners, &impl Fn(usize) -> bool),
    ends: &mut [u32],
    links: &mut [Link],
) {
    ends.fill(0);
    for e in lists() {
        ends[e.slot as usize - first] += 1;
    }
    let mut at = base as u32;
    let mut k = 0;
    while k < ends.len() {
        if keeps(first + k) {
            // A run of kept slots: their contacts are contiguous in the last layout too, and
            // move by the same amount (either way: wrapping arithmetic is exact).
            let run = first + k;
            let moved = at.wrapping_sub(last.starts[run]);
            while k < ends.len() && keeps(first + k) {
                ends[k] = last.starts[first + k + 1].wrapping_add(moved);
                k += 1;
            }
            let from = last.starts[run] as usize..last.starts[first + k] as usize;
            let to = at as usize - base;
            links[to..to + from.len()].copy_from_slice(&last.links[from]);
            at = ends[k - 1];
        } else {
            let found = ends[k];
            ends[k] = at;
            at += found;
            k += 1;
        }
    }
    for e in lists() {
        let cursor = &mut ends[e.slot as usize - first];
        links[*cursor as usize - base] = Link {
            other: e.other,
            overlap: e.overlap,
        };
        *cursor += 1;
    }
    // Few contacts each: an insertion sort of each found slot's.
    let mut start = base;
    for (k, &end) in ends.iter().enumerate() {
        if end as usize - start > 1 && !keeps(first + k) {
            sort_by_partner(&mut links[start - base..end as usize - base]);
        }
        start = end as usize;
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

    /// Whether the layout test's slot `k` keeps its contacts from the last step.
    fn keeps(k: u32) -> bool {
        k % 3 == 1
    }

    /// Five pieces' [`Ends`] holding `pairs` random pairs among `slots` slots, filed as the pair
    /// loop files them (except the ends of the slots that keep their contacts); and each slot's
    /// contacts in pair order.
    fn random_pairs(slots: usize, pairs: usize, shift: u32) -> (Vec<Ends>, Vec<Vec<Link>>) {
        let mut next = xorshift32(0x9E37_79B9);
        let mut pieces: Vec<Ends> = (0..5).map(|_| Ends::default()).collect();
        let mut expected = vec![Vec::new(); slots];
        for i in 0..pairs {
            let a = next() % slots as u32;
            let b = (a + 1 + next() % (slots as u32 - 1)) % slots as u32;
            let overlap = Vec2::new(i as f32, -(i as f32));
            for (me, other, overlap) in [(a, b, overlap), (b, a, -overlap)] {
                if !keeps(me) {
                    file_end(&mut pieces[i * 5 / pairs], shift, me, other, overlap);
                }
                expected[me as usize].push(Link { other, overlap });
            }
        }
        (pieces, expected)
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
            let (pieces, in_pair_order) = if pairs == 0 {
                (vec![Ends::default(); 3], vec![Vec::new(); slots])
            } else {
                random_pairs(slots, pairs, shift)
            };
            // What a slot keeps is in partner order already (the last step's layout).
            let mut expected = in_pair_order.clone();
            expected.iter_mut().for_each(|l| l.sort_by_key(|l| l.other));
            // The last layout: only the kept slots' contacts matter.
            let mut last = Partners::default();
            last.starts.push(0);
            for (k, list) in expected.iter().enumerate() {
                if keeps(k as u32) {
                    last.links.extend(list);
                }
                last.starts.push(last.links.len() as u32);
            }
            let mut counts = [0; SPLITS];
            for k in (0..slots).filter(|&k| keeps(k as u32)) {
                counts[k >> shift] += expected[k].len();
            }
            let kept = (&last, |k: usize| keeps(k as u32), counts);
            // Stale contents from a larger step before must not leak into this one.
            let stale = Link {
                other: 99,
                overlap: Vec2::ONE,
            };
            let mut partners = Partners {
                starts: vec![7; slots + 9],
                links: vec![stale; 2 * pairs + 5],
                ..default()
            };
            let total = lay_out(
                &pieces,
                |ends| ends,
                slots,
                shift,
                false,
                kept,
                &mut partners,
            );
            assert_eq!(total, 2 * pairs);
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
