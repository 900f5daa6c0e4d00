//! What relaxation reads of the step: where the response left each body and how it may be
//! moved ([`Ended`], recorded by the response; a resting body's stays from the step that wrote
//! it, which is where the body still is, see `crate::fast::rest`), and the pairs near each
//! other where detection saw them ([`NearLists`]).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::BodySwitches;
use crate::config::PhysicsConfig;
use crate::tiles::TileMap;

/// One slot's record: its centre's bits and [`How`] bits. Atomics, so the response's threads
/// each write their own bodies' slots through a shared layout.
#[derive(Default)]
pub(crate) struct Ended {
    center: AtomicU64,
    how: AtomicU8,
    quiet: AtomicU8,
}

/// The bits of [`Ended::how`] above the four tile sides.
struct How;

impl How {
    /// Recorded by the response (the slot's body is a non-kinematic body it handled once).
    const RECORDED: u8 = 0x80;
    /// Without world collision: moved without the tile sweep.
    const FREE: u8 = 0x40;
    const DROP_THROUGH: u8 = 0x20;
    const CLIMBING: u8 = 0x10;
    /// The four tile sides.
    const SIDES: u8 = 0x0F;
}

fn pack(center: Vec2) -> u64 {
    u64::from(center.x.to_bits()) | u64::from(center.y.to_bits()) << 32
}

fn unpack(bits: u64) -> Vec2 {
    Vec2::new(
        f32::from_bits(bits as u32),
        f32::from_bits((bits >> 32) as u32),
    )
}

/// Where the response left a body it handled, and how relaxation may move it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ResponseEnd {
    pub(crate) center: Vec2,
    /// The sides touching tiles this step (left 1, right 2, top 4, bottom 8).
    pub(crate) tile_sides: u8,
    /// Without world collision.
    pub(crate) free: bool,
    pub(crate) drop_through: bool,
    pub(crate) climbing: bool,
    /// Left where detection saw it, overlapping each partner by no more than the pair's
    /// tolerance on one axis or the other (no pass would move it while its partners stay).
    pub(crate) quiet: bool,
}

impl Ended {
    /// Records where the response left the body: its centre, the sides touching tiles this
    /// step, its switches, and whether it is quiet ([`ResponseEnd::quiet`]).
    #[inline]
    pub(crate) fn record(
        &self,
        center: Vec2,
        tile_sides: u8,
        switches: &BodySwitches,
        quiet: bool,
    ) {
        let mut how = How::RECORDED | tile_sides & How::SIDES;
        if !switches.world_collision {
            how |= How::FREE;
        }
        if switches.drop_through {
            how |= How::DROP_THROUGH;
        }
        if switches.climbing {
            how |= How::CLIMBING;
        }
        self.center.store(pack(center), Relaxed);
        self.how.store(how, Relaxed);
        self.quiet.store(u8::from(quiet), Relaxed);
    }

    /// What was recorded, if the response ever recorded the body.
    #[inline]
    pub(crate) fn read(&self) -> Option<ResponseEnd> {
        let how = self.how.load(Relaxed);
        (how & How::RECORDED != 0).then(|| ResponseEnd {
            center: self.center(),
            tile_sides: how & How::SIDES,
            free: how & How::FREE != 0,
            drop_through: how & How::DROP_THROUGH != 0,
            climbing: how & How::CLIMBING != 0,
            quiet: self.quiet.load(Relaxed) != 0,
        })
    }

    /// Where the body ended the step so far.
    #[inline]
    pub(crate) fn center(&self) -> Vec2 {
        unpack(self.center.load(Relaxed))
    }

    /// Notes that relaxation moved the body to `center`; whether that is away from where it was.
    #[inline]
    pub(crate) fn move_to(&self, center: Vec2) -> bool {
        let bits = pack(center);
        self.center.swap(bits, Relaxed) != bits
    }
}

/// How far, per axis, [`NearLists`] reach from each body's box, in tiles.
const NEAR_REACH_TILES: f32 = 0.25;

/// How far, per axis, relaxation's [`NearLists`] reach from each body's box: a quarter of a
/// tile when relaxation is on, nothing without it. The partition files each body by its box
/// grown by this much more than the contact tolerance, so that two bodies within twice this of
/// each other share a cell.
pub(crate) fn near_reach(config: &PhysicsConfig, map: &TileMap) -> f32 {
    if config.relaxation_passes > 0 {
        map.tile_size() * NEAR_REACH_TILES
    } else {
        0.0
    }
}

/// The pairs of bodies apart (not touching) by at most twice the reach ([`near_reach`]) along
/// both axes where pair detection saw them, neither a one-way platform and their layers
/// interacting ([`within_reach`](crate::geometry::within_reach)), each listed from both ends.
/// The pair loop finds those with an awake end; those of two bodies it did not search (neither
/// moved since) are kept from the last step's lists, as their contacts are.
#[derive(Default)]
pub(crate) struct NearLists {
    /// Slot `k`'s list is `others[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    others: Vec<u32>,
    /// The last step's lists.
    last_starts: Vec<u32>,
    last_others: Vec<u32>,
    /// Where the next of each slot's goes, while they are filled.
    next: Vec<u32>,
    /// The pairs kept from the last step's lists.
    kept: Vec<(u32, u32)>,
}

impl NearLists {
    /// The lists of `slots` slots, from the pairs each piece of the pair loop found (`pieces`)
    /// and, when `searched(k)` says neither end's pairs were searched, the last step's; none
    /// when `reach` is 0.
    pub(crate) fn build<'a>(
        &mut self,
        slots: usize,
        reach: f32,
        pieces: impl Iterator<Item = &'a [(u32, u32)]> + Clone,
        searched: impl Fn(usize) -> bool,
    ) {
        core::mem::swap(&mut self.starts, &mut self.last_starts);
        core::mem::swap(&mut self.others, &mut self.last_others);
        self.starts.clear();
        self.others.clear();
        if reach <= 0.0 {
            return;
        }
        // The last step's pairs of two bodies not searched, from their lower slot.
        let mut kept = core::mem::take(&mut self.kept);
        kept.clear();
        let last = (&self.last_starts[..], &self.last_others[..]);
        for k in (0..slots).filter(|&k| !searched(k)) {
            let unsearched = list_of(last, k)
                .iter()
                .filter(|&&j| j as usize > k && !searched(j as usize));
            kept.extend(unsearched.map(|&j| (k as u32, j)));
        }
        self.starts.resize(slots + 1, 0);
        for (a, b) in pieces
            .clone()
            .flatten()
            .copied()
            .chain(kept.iter().copied())
        {
            self.starts[a as usize + 1] += 1;
            self.starts[b as usize + 1] += 1;
        }
        for k in 0..slots {
            self.starts[k + 1] += self.starts[k];
        }
        self.others.resize(self.starts[slots] as usize, 0);
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..slots]);
        for (a, b) in pieces.flatten().copied().chain(kept.iter().copied()) {
            for (me, other) in [(a, b), (b, a)] {
                let at = &mut self.next[me as usize];
                self.others[*at as usize] = other;
                *at += 1;
            }
        }
        self.kept = kept;
    }

    /// Slot `k`'s list.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> &[u32] {
        list_of((&self.starts, &self.others), k)
    }
}

fn list_of<'a>((starts, others): (&[u32], &'a [u32]), k: usize) -> &'a [u32] {
    match starts.get(k..k + 2) {
        Some(&[start, end]) => &others[start as usize..end as usize],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_lists_hold_each_pair_from_both_ends_and_only_when_relaxing() {
        let mut near = NearLists::default();
        let pieces: [&[(u32, u32)]; 2] = [&[(0, 2), (3, 1)], &[(2, 3)]];
        near.build(5, 4.0, pieces.iter().copied(), |_| true);
        assert_eq!(near.of(0), [2]);
        assert_eq!(near.of(1), [3]);
        assert_eq!(near.of(2), [0, 3]);
        assert_eq!(near.of(3), [1, 2]);
        assert_eq!(near.of(4), [] as [u32; 0]);
        // Without relaxation's reach, none.
        near.build(5, 0.0, pieces.iter().copied(), |_| true);
        assert_eq!(near.of(2), [] as [u32; 0]);
    }

    #[test]
    fn the_near_pairs_of_two_bodies_not_searched_are_kept_from_the_last_step() {
        let mut near = NearLists::default();
        let first: [&[(u32, u32)]; 1] = [&[(0, 1), (1, 2), (2, 3)]];
        near.build(4, 4.0, first.iter().copied(), |_| true);
        // Slot 1 searched: its pairs are found again (here only 1-2); 2-3 is kept, 0-1 gone.
        let second: [&[(u32, u32)]; 1] = [&[(1, 2)]];
        near.build(4, 4.0, second.iter().copied(), |k| k == 1);
        assert_eq!(near.of(0), [] as [u32; 0]);
        assert_eq!(near.of(1), [2]);
        assert_eq!(near.of(2), [1, 3]);
        assert_eq!(near.of(3), [2]);
    }
}
