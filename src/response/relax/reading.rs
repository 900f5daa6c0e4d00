//! A phase's reading of the pairs: which pairs overlap by more than the tolerance, and which
//! are to be settled along the phase's axis, read in pieces that are independent of each other.

use bevy::math::Vec2;

use super::phase::{Direction, PhaseStart};
use super::{Join, Links, Mobility, Piece, Sweeps, if_many};
use crate::fast::parallel::chunk_range;
use crate::geometry::pair_skin;

/// What (a piece of) a reading of the pairs found: the pairs overlapping by more than the
/// tolerance on both axes, and the two ends of each pair to settle (the body ahead, the body
/// behind).
#[derive(Default)]
pub(super) struct Reading {
    pub(super) live: Vec<(u32, u32)>,
    pub(super) ahead: Vec<u32>,
    pub(super) behind: Vec<u32>,
}

impl Reading {
    fn clear(&mut self) {
        self.live.clear();
        self.ahead.clear();
        self.behind.clear();
    }
}

/// How many pieces each half of a reading of the pairs is cut into (the same on any number of
/// threads, so what it finds is too).
const READING_PIECES: usize = 32;

/// A reading of the pairs after the first runs on `join`'s threads when it reads at least this
/// many pairs and moved bodies; the first, which reads the partners of every body that is not
/// quiet, when there are eight times as many bodies. Below, handing the pieces out costs more
/// than it saves (a pile's readings are small).
const READ_IN_PARALLEL: usize = 1024;

/// Reads every pair that may overlap by more than the tolerance now (see
/// [`begin_phase`](super::phase::begin_phase)) with `read`, which notes what it finds in its
/// last argument. The pairs are read in pieces (maybe at once, on `join`'s threads), then what
/// the pieces found is put together in their order, which is the order of one thread reading
/// them all: the overlapping pairs become [`Sweeps::live`], the ends of the pairs to settle are
/// added to `sweeps.ahead` and `sweeps.behind`.
pub(super) fn read_pairs<P, F, M>(
    pieces: &[Piece],
    links: &Links<F, M>,
    sweeps: &mut Sweeps,
    join: &impl Join,
    read: impl Fn(&PhaseStart, (usize, usize), &mut Reading) + Sync,
) where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility + Sync,
{
    let before = core::mem::take(&mut sweeps.live);
    let mut readings = core::mem::take(&mut sweeps.readings);
    readings.resize_with(2 * READING_PIECES, Reading::default);
    let phase = &sweeps.phase;
    if !sweeps.listed {
        sweeps.listed = true;
        let n = pieces.len();
        // The bodies in the first half of the pieces, by slot; the second half reads nothing.
        let many = n >= 8 * READ_IN_PARALLEL;
        if_many(join, many).each(&mut readings, |i, out| {
            out.clear();
            let bodies = match i < READING_PIECES {
                true => chunk_range(i, READING_PIECES, n),
                false => 0..0,
            };
            for k in bodies {
                if pieces[k].quiet {
                    continue;
                }
                for j in (links.partners)(k) {
                    // Each pair once: from its lower slot, or from its only end that is not
                    // quiet.
                    if j < k && !pieces[j].quiet {
                        continue;
                    }
                    read(phase, (k, j), out);
                }
            }
        });
    } else {
        // The bodies the phase before moved, each once: marked, and numbered in the order
        // they are read.
        let order = &mut sweeps.order;
        order.sweep = order.sweep.wrapping_add(1);
        let stamp = order.sweep;
        sweeps.read_moved.clear();
        sweeps.read_rank.resize(pieces.len(), 0);
        for &k in &order.touched {
            let k = k as usize;
            if order.queued[k] != stamp {
                order.queued[k] = stamp;
                sweeps.read_rank[k] = sweeps.read_moved.len() as u32;
                sweeps.read_moved.push(k as u32);
            }
        }
        let (queued, rank, moved) = (&order.queued, &sweeps.read_rank, &sweeps.read_moved);
        let changed = |k: usize| queued[k] == stamp;
        let many = before.len() + moved.len() >= READ_IN_PARALLEL;
        if_many(join, many).each(&mut readings, |i, out| {
            out.clear();
            if i < READING_PIECES {
                // The pairs overlapping when the phase before read them, neither end moved.
                for &(k, j) in &before[chunk_range(i, READING_PIECES, before.len())] {
                    let (k, j) = (k as usize, j as usize);
                    if !changed(k) && !changed(j) {
                        read(phase, (k, j), out);
                    }
                }
                return;
            }
            // Then the pairs of the moved bodies, each once: from the end read first.
            let range = chunk_range(i - READING_PIECES, READING_PIECES, moved.len());
            for &k in &moved[range] {
                let k = k as usize;
                for j in (links.partners)(k) {
                    if !(changed(j) && rank[j] < rank[k]) {
                        read(phase, (k, j), out);
                    }
                }
            }
        });
    }
    sweeps.order.touched.clear();
    let mut live = core::mem::take(&mut sweeps.next_live);
    live.clear();
    for reading in &readings {
        live.extend_from_slice(&reading.live);
        sweeps.ahead.extend_from_slice(&reading.ahead);
        sweeps.behind.extend_from_slice(&reading.behind);
    }
    sweeps.next_live = before;
    sweeps.live = live;
    sweeps.readings = readings;
}

/// How far bodies `a` and `b` overlap along `axis` (negative: the gap between them; the same
/// whichever comes first).
#[inline]
pub(super) fn overlap_on(a: &Piece, b: &Piece, axis: usize) -> f32 {
    (a.half[axis] + b.half[axis]) - (a.center[axis] - b.center[axis]).abs()
}

/// Whether a pair that pair detection found overlapping by `overlap` (its signed overlap within
/// the pair's tolerance `skin`) is one no phase settles while neither body moves: within `skin`
/// on one axis or the other. A phase computes the pair's overlap along an axis with the
/// operations detection used, on the same centres (so to the bit), and settles a pair only
/// where it overlaps by more than `skin` on both axes; it may note the pair as overlapping (by
/// more than the contact tolerance on both), which changes nothing, a squeeze being many
/// tolerances deep. (What `Piece::quiet` rests on.)
#[inline]
pub(crate) fn settled_where_detected(overlap: Vec2, skin: f32) -> bool {
    overlap.abs().min_element() <= skin
}

/// Whether bodies `a` and `b` overlap by more than `touch` on both axes.
pub(super) fn overlapping(a: &Piece, b: &Piece, touch: f32) -> bool {
    let o = (a.half + b.half) - (a.center - b.center).abs();
    o.x > touch && o.y > touch && a.half.min_element() != 0.0 && b.half.min_element() != 0.0
}

/// Reads the pair of bodies `k` and `j` for the phase along `dir`: notes it in `live` when
/// they overlap by more than `touch` on both axes, and lists it to settle (see
/// [`begin_phase`](super::phase::begin_phase)) when they are a pair along the axis overlapping
/// by more than their tolerance.
pub(super) fn list_pair(
    (pieces, phase): (&[Piece], &PhaseStart),
    (k, j): (usize, usize),
    dir: Direction,
    touch: f32,
    out: &mut Reading,
) {
    // Neither live nor a pair along the axis unless they overlap across it by more than
    // `touch`: the cheapest test first, before their places in the sweep.
    let overlap_across = overlap_on(&pieces[k], &pieces[j], 1 - dir.axis);
    if overlap_across.is_nan() || overlap_across <= touch {
        return;
    }
    let (first, second) = if phase.before(pieces, (k, j), dir) {
        (k, j)
    } else {
        (j, k)
    };
    let (a, b) = (&pieces[first], &pieces[second]);
    // How far the second must move on, if they are a pair along the axis: the cheap tests
    // first (the tolerance is at least `touch`). The second is not behind the first where the
    // phase found them, which is where they are, so this is their overlap along the axis
    // ([`overlap_on`]) to the bit: the overlap pair detection computed, for bodies that have
    // not moved since (see `Piece::quiet`).
    let gap = a.half[dir.axis] + b.half[dir.axis];
    let over = gap - (b.center[dir.axis] - a.center[dir.axis]);
    if over.is_nan() || over <= touch {
        return;
    }
    if overlapping(a, b, touch) {
        out.live.push((k as u32, j as u32));
    }
    if phase.pair_along(pieces, (k, j), dir.axis, touch).is_none() {
        return;
    }
    if over > pair_skin(touch, a.center, b.center) {
        out.ahead.push(second as u32);
        out.behind.push(first as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::relax::tests::{TOUCH, piece};

    #[test]
    fn a_pair_detected_within_its_tolerance_on_one_axis_is_settled_in_no_phase() {
        use crate::geometry::signed_overlap_within;
        // Pairs overlapping along one axis by -1 to 3 times their tolerance and across it by
        // half to all of their reach, up to 40 000 units from the origin, where a float step
        // of a coordinate (0.004) is four times the tolerance.
        let mut u = crate::test_rng::unit_floats(0x0B5E);
        let (mut settled, mut listed) = (0, 0);
        for _ in 0..200_000 {
            let along = (u() * 2.0) as usize % 2;
            let a_center = Vec2::new(u() - 0.5, u() - 0.5) * 80_000.0;
            let (a_half, b_half) = (
                Vec2::new(2.0 + 10.0 * u(), 2.0 + 10.0 * u()),
                Vec2::new(2.0 + 10.0 * u(), 2.0 + 10.0 * u()),
            );
            let skin = pair_skin(TOUCH, a_center, a_center);
            let mut offset = Vec2::ZERO;
            offset[along] = a_half[along] + b_half[along] - (u() * 4.0 - 1.0) * skin;
            offset[1 - along] = (u() - 0.5) * (a_half[1 - along] + b_half[1 - along]);
            let b_center = a_center + offset * if u() < 0.5 { 1.0 } else { -1.0 };
            let skin = pair_skin(TOUCH, a_center, b_center);
            let Some(o) = signed_overlap_within(a_center, a_half, b_center, b_half, skin) else {
                continue;
            };
            let pieces = [
                Piece {
                    center: a_center,
                    half: a_half,
                    id: 1,
                    ..piece(0.0, 0.0, 0)
                },
                Piece {
                    center: b_center,
                    half: b_half,
                    id: 2,
                    ..piece(0.0, 0.0, 0)
                },
            ];
            let mut phase = PhaseStart::default();
            phase.begin(&pieces);
            let mut out = Reading::default();
            for axis in 0..2 {
                phase.new_phase(&pieces, axis, &[]);
                let dir = Direction { axis, ahead: true };
                list_pair((&pieces, &phase), (0, 1), dir, TOUCH, &mut out);
                list_pair((&pieces, &phase), (1, 0), dir, TOUCH, &mut out);
            }
            if settled_where_detected(o, skin) {
                settled += 1;
                assert!(
                    out.ahead.is_empty() && out.behind.is_empty(),
                    "{a_center} {a_half} {b_center} {b_half}: {o} within {skin}, listed"
                );
            } else if !out.ahead.is_empty() {
                listed += 1;
            }
        }
        // Both kinds came up many times.
        assert!(
            settled > 50_000 && listed > 50_000,
            "{settled} settled, {listed} listed"
        );
    }

    /// Runs the pieces of work in the reverse order, counting the times it is handed pieces.
    #[derive(Default)]
    struct Backwards(core::sync::atomic::AtomicUsize);

    impl Join for Backwards {
        fn join(&self, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
            b();
            a();
        }

        fn each<T: Send>(&self, outs: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
            self.0.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            for (i, out) in outs.iter_mut().enumerate().rev() {
                f(i, out);
            }
        }
    }

    /// Every pair two readings of the pairs of `pieces` read, in the order they put them
    /// together: the first phase's, then, `moved` having moved, the next one's.
    fn readings<P, F, M>(
        pieces: &[Piece],
        links: &Links<F, M>,
        moved: &[u32],
        join: &impl Join,
    ) -> [Vec<(u32, u32)>; 2]
    where
        P: IntoIterator<Item = usize>,
        F: Fn(usize) -> P + Sync,
        M: Fn(usize) -> Mobility + Sync,
    {
        let mut sweeps = Sweeps::default();
        sweeps.order.queued.resize(pieces.len(), 0);
        let read = |sweeps: &mut Sweeps| {
            read_pairs(pieces, links, sweeps, join, |_, (k, j), out| {
                out.live.push((k as u32, j as u32));
            });
            sweeps.live.clone()
        };
        let first = read(&mut sweeps);
        sweeps.order.touched.extend_from_slice(moved);
        [first, read(&mut sweeps)]
    }

    #[test]
    fn a_reading_in_pieces_reads_what_one_thread_reading_in_order_reads() {
        // A grid of 9 000 bodies (enough for readings in pieces), each paired with the bodies
        // beside, above and below it; one in three quiet.
        let (width, n) = (90, 9000);
        let pieces: Vec<Piece> = (0..n)
            .map(|k| Piece {
                id: k as u64 + 1,
                quiet: k % 3 == 0,
                ..piece((k % width) as f32 * 11.0, (k / width) as f32 * 11.0, 0)
            })
            .collect();
        let partners = |k: usize| {
            let (x, y) = (k % width, k / width);
            let near = [
                (x > 0).then(|| k - 1),
                (x + 1 < width).then_some(k + 1),
                (y > 0).then(|| k - width),
                (k + width < n).then_some(k + width),
            ];
            near.into_iter().flatten()
        };
        let links = Links {
            partners,
            mobility: |_| Mobility::Free,
            contacts: (),
        };
        // The bodies moved between the readings: some twice, in no order.
        let moved: Vec<u32> = (0..n as u32)
            .filter(|k| k % 7 == 0 || k % 11 == 0)
            .chain((0..n as u32).rev().filter(|k| k % 13 == 0))
            .collect();
        let in_order = readings(&pieces, &links, &moved, &());
        let join = Backwards::default();
        let backwards = readings(&pieces, &links, &moved, &join);
        assert_eq!(
            join.0.into_inner(),
            2,
            "both readings in pieces on the join"
        );
        assert_eq!(backwards, in_order);

        // One thread's reading, written out: first each pair once, from its lower slot or its
        // only end that is not quiet, where one is not quiet.
        let mut first = Vec::new();
        for k in (0..n).filter(|&k| !pieces[k].quiet) {
            let from_here = |&j: &usize| j > k || pieces[j].quiet;
            first.extend(partners(k).filter(from_here).map(|j| (k as u32, j as u32)));
        }
        assert_eq!(in_order[0], first);
        // Then the pairs read before with neither end moved, and each pair of a moved body
        // once, from the end that comes first among the moved.
        let is_moved = |k: u32| moved.contains(&k);
        let mut second: Vec<(u32, u32)> = (first.iter().copied())
            .filter(|&(k, j)| !is_moved(k) && !is_moved(j))
            .collect();
        let mut done = vec![false; n];
        for &k in &moved {
            if !done[k as usize] {
                done[k as usize] = true;
                let new = partners(k as usize).filter(|&j| !done[j]);
                second.extend(new.map(|j| (k, j as u32)));
            }
        }
        assert_eq!(in_order[1], second);
    }
}
