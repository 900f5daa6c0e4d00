//! A sweep: bodies visited in the order of their places along a direction, each pushed as far
//! as the bodies behind it need, through the tile sweep; and the sweep back from what a sweep
//! left short.

use bevy::prelude::*;
use core::cmp::Reverse;
use std::collections::BinaryHeap;

use super::phase::{Direction, PhaseStart};
use super::{Links, Mobility, Piece};
use crate::flags::{Side, side_bit};
use crate::geometry::pair_skin;
use crate::tiles::TileMap;
use crate::tiles::collide::sweep_displacement;

/// The buffers of one order of sweeps.
#[derive(Default)]
pub(super) struct Order {
    /// The bodies the phase moved (some maybe back where they were).
    pub(super) touched: Vec<u32>,
    /// The bodies the phase left where they were, but blocked on a side they were not.
    pub(super) blocked: Vec<u32>,
    /// The bodies to visit.
    queue: Visits,
    /// Which sweep (or reading) last marked each body.
    pub(super) queued: Vec<u32>,
    /// The last mark handed out.
    pub(super) sweep: u32,
    /// The bodies a sweep could not take as far as their pairs needed.
    pub(super) short: Vec<u32>,
    /// The bodies the sweep back starts from.
    pub(super) back: Vec<u32>,
}

/// The bodies a sweep is to visit, each with its place in the sweep's order (then its slot),
/// handed out lowest first: the sweep's seeds, sorted once, and a heap of the bodies met on
/// the way. The same order as one heap of all of them, which costs more when the seeds are
/// many (a crowd's first pass has thousands).
///
/// A visit is one number, its place ([`PhaseStart::key`], 96 bits) then its slot.
#[derive(Default)]
struct Visits {
    seeds: Vec<u128>,
    /// The next seed to hand out.
    next: usize,
    met: BinaryHeap<Reverse<u128>>,
}

impl Visits {
    fn visit((place, slot): (u128, u32)) -> u128 {
        place << 32 | u128::from(slot)
    }

    /// Starts a sweep from `seeds` (each once).
    fn start(&mut self, seeds: impl Iterator<Item = (u128, u32)>) {
        self.seeds.clear();
        self.seeds.extend(seeds.map(Self::visit));
        self.seeds.sort_unstable();
        self.next = 0;
        self.met.clear();
    }

    /// Adds a body met on the way (not a seed, and after the one being visited).
    fn push(&mut self, visit: (u128, u32)) {
        self.met.push(Reverse(Self::visit(visit)));
    }

    /// The slot of the next body to visit.
    fn pop(&mut self) -> Option<u32> {
        let seed = self.seeds.get(self.next).copied();
        let visit = match (seed, self.met.peek()) {
            (Some(seed), Some(&Reverse(met))) if met < seed => self.met.pop()?.0,
            (Some(seed), _) => {
                self.next += 1;
                seed
            }
            (None, _) => self.met.pop()?.0,
        };
        Some(visit as u32)
    }
}

/// One sweep along `dir` from the bodies `seeds`, in the order of the phase's picture (step
/// 4): each body visited is pushed as far as the bodies behind it (already visited) need,
/// through the tile sweep, and the bodies ahead of it it then overlaps are visited in turn.
/// The bodies left short of what they needed are listed in `sweeps.short`. Returns whether
/// anybody moved.
pub(super) fn sweep<P, F, M>(
    map: &TileMap,
    pieces: &mut [Piece],
    links: &Links<F, M>,
    dir: Direction,
    touch: f32,
    (phase, sweeps): (&PhaseStart, &mut Order),
    seeds: &[u32],
) -> bool
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P,
    M: Fn(usize) -> Mobility,
{
    let axis = dir.axis;
    let sign = if dir.ahead { 1.0 } else { -1.0 };
    sweeps.sweep = sweeps.sweep.wrapping_add(1);
    let stamp = sweeps.sweep;
    sweeps.short.clear();
    let queued = &mut sweeps.queued;
    let unqueued = seeds.iter().filter(|&&s| {
        let new = queued[s as usize] != stamp;
        queued[s as usize] = stamp;
        new
    });
    (sweeps.queue).start(unqueued.map(|&s| (phase.key(pieces, s as usize, dir), s)));
    let mut moved = false;
    while let Some(s) = sweeps.queue.pop() {
        let j = s as usize;
        let me = pieces[j];
        // How far the bodies behind need it to go (signed along `dir`), if further than it is.
        let mut need: Option<f32> = None;
        for i in (links.partners)(j) {
            let Some(gap) = phase.pair_along(pieces, (i, j), axis, touch) else {
                continue;
            };
            if !phase.before(pieces, (i, j), dir) {
                continue;
            }
            let other = &pieces[i];
            let wanted = sign * (other.center[axis] + sign * gap);
            if wanted - sign * me.center[axis] > pair_skin(touch, me.center, other.center) {
                need = Some(need.map_or(wanted, |n| n.max(wanted)));
            }
        }
        let Some(need) = need else {
            continue;
        };
        let push = dir.unit() * (need - sign * me.center[axis]);
        let how = (links.mobility)(j);
        let (to, stopped) = if me.blocked & dir.side() != 0 {
            (me.center, dir.side())
        } else {
            apply_push(map, (me.center, me.half), push, how, touch)
        };
        pieces[j].center = to;
        pieces[j].blocked |= stopped;
        pieces[j].quiet &= to == me.center;
        if sign * to[axis] < need {
            sweeps.short.push(s);
        }
        if to == me.center {
            if stopped & !me.blocked != 0 {
                sweeps.blocked.push(s);
            }
            continue;
        }
        moved = true;
        sweeps.touched.push(s);
        for k in (links.partners)(j) {
            if sweeps.queued[k] == stamp {
                continue;
            }
            let Some(gap) = phase.pair_along(pieces, (j, k), axis, touch) else {
                continue;
            };
            if !phase.before(pieces, (j, k), dir) {
                continue;
            }
            let other = &pieces[k];
            let over = sign * (to[axis] - other.center[axis]) + gap;
            if over > pair_skin(touch, to, other.center) {
                sweeps.queued[k] = stamp;
                let key = phase.key(pieces, k, dir);
                sweeps.queue.push((key, k as u32));
            }
        }
    }
    moved
}

/// The sweep back along `dir` from what the last sweep left short: the bodies behind each
/// (in the last sweep's direction) that it still overlaps.
pub(super) fn sweep_back<P, F, M>(
    map: &TileMap,
    pieces: &mut [Piece],
    links: &Links<F, M>,
    dir: Direction,
    touch: f32,
    (phase, sweeps): (&PhaseStart, &mut Order),
) -> bool
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P,
    M: Fn(usize) -> Mobility,
{
    let mut seeds = core::mem::take(&mut sweeps.back);
    seeds.clear();
    let short = core::mem::take(&mut sweeps.short);
    for &s in &short {
        let j = s as usize;
        for i in (links.partners)(j) {
            let Some(gap) = phase.pair_along(pieces, (i, j), dir.axis, touch) else {
                continue;
            };
            // `i` was behind `j` in the last sweep: it comes after `j` in this one.
            if !phase.before(pieces, (j, i), dir) {
                continue;
            }
            let (a, b) = (&pieces[j], &pieces[i]);
            let sign = if dir.ahead { 1.0 } else { -1.0 };
            let over = sign * (a.center[dir.axis] - b.center[dir.axis]) + gap;
            if over > pair_skin(touch, a.center, b.center) {
                seeds.push(i as u32);
            }
        }
    }
    let moved = !seeds.is_empty() && sweep(map, pieces, links, dir, touch, (phase, sweeps), &seeds);
    sweeps.short = short;
    sweeps.back = seeds;
    moved
}

/// Step 5: where `push` takes a body at `center` (half extents `half`), and the sides on which
/// the sweep stopped it.
pub(super) fn apply_push(
    map: &TileMap,
    (center, half): (Vec2, Vec2),
    push: Vec2,
    mobility: Mobility,
    touch: f32,
) -> (Vec2, u8) {
    let wanted = center + push;
    let to = match mobility {
        Mobility::Fixed => return (center, 0),
        Mobility::Free => wanted,
        Mobility::Swept(pass) => sweep_displacement(map, center, half, push, pass, touch),
    };
    let mut stopped = 0;
    if to.x != wanted.x {
        stopped |= side_bit(if push.x > 0.0 {
            Side::Right
        } else {
            Side::Left
        });
    }
    if to.y != wanted.y {
        stopped |= side_bit(if push.y > 0.0 {
            Side::Top
        } else {
            Side::Bottom
        });
    }
    (to, stopped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::relax::tests::{BOTTOM, TOUCH};
    use crate::tiles::collide::PassThrough;

    #[test]
    fn a_sweep_visits_its_seeds_and_the_bodies_it_meets_in_one_heaps_order() {
        // Places with ties (broken by slot); each body met comes after the one visited.
        let mut u = crate::test_rng::unit_floats(5);
        let mut place = || u128::from((u() * 40.0) as u32) << 64 | u128::from((u() * 4.0) as u32);
        let seeds: Vec<(u128, u32)> = (0..300).map(|s| (place(), s)).collect();
        let mut visits = Visits::default();
        visits.start(seeds.iter().copied());
        let mut heap: BinaryHeap<Reverse<(u128, u32)>> =
            seeds.iter().copied().map(Reverse).collect();
        let (mut slot, mut order, mut expected) = (300u32, vec![], vec![]);
        while let Some(Reverse((at, s))) = heap.pop() {
            expected.push(s);
            order.push(visits.pop().expect("as many visits as the heap holds"));
            for _ in 0..(s % 3).min(1000u32.saturating_sub(slot)) {
                let met = (at + place() % 3 + 1, slot);
                slot += 1;
                heap.push(Reverse(met));
                visits.push(met);
            }
        }
        assert_eq!(visits.pop(), None);
        assert!(
            expected.len() > 500,
            "the sweep met bodies: {}",
            expected.len()
        );
        assert_eq!(order, expected);
    }

    #[test]
    fn a_push_stops_at_a_tile_and_says_where() {
        // Row 0 solid: a box with its feet on it pushed down stays, blocked below.
        let map = TileMap::from_ascii("....\n####", 16.0).unwrap();
        let pass = PassThrough {
            drop_through: false,
            climbing: false,
        };
        let at = (Vec2::new(24.0, 22.0), Vec2::splat(6.0));
        let (to, stopped) =
            apply_push(&map, at, Vec2::new(0.0, -3.0), Mobility::Swept(pass), TOUCH);
        assert_eq!((to, stopped), (at.0, BOTTOM));
        let (to, stopped) = apply_push(&map, at, Vec2::new(0.0, -3.0), Mobility::Free, TOUCH);
        assert_eq!(
            (to, stopped),
            (Vec2::new(24.0, 19.0), 0),
            "no world collision"
        );
        let (to, _) = apply_push(&map, at, Vec2::new(2.0, 1.0), Mobility::Swept(pass), TOUCH);
        assert_eq!(to, Vec2::new(26.0, 23.0));
        assert_eq!(
            apply_push(&map, at, Vec2::ONE, Mobility::Fixed, TOUCH),
            (at.0, 0)
        );
    }
}
