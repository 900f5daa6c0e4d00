//! What relaxation reads of each slot: where its body ended the response, and how it may be
//! moved. The response records it for the bodies it handles; a resting body's stays from the
//! step that wrote it, which is where the body still is (see `crate::fast::rest`).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::BodySwitches;
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk};
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within, skin_at};
use crate::partition::Partition;
use crate::response::relax::{ALL_SIDES, Mobility, Piece};
use crate::tiles::collide::PassThrough;

/// One slot's record: its centre's bits and [`How`] bits. Atomics, so the response's threads
/// each write their own bodies' slots through a shared layout.
#[derive(Default)]
pub(crate) struct Ended {
    center: AtomicU64,
    how: AtomicU8,
    moved: AtomicU8,
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
}

/// The `Ended::moved` byte: the response moved the body (it ended away from where detection
/// saw it).
const MOVED: u8 = 1;

fn pack(center: Vec2) -> u64 {
    u64::from(center.x.to_bits()) | u64::from(center.y.to_bits()) << 32
}

fn unpack(bits: u64) -> Vec2 {
    Vec2::new(
        f32::from_bits(bits as u32),
        f32::from_bits((bits >> 32) as u32),
    )
}

impl ContactLayout {
    /// Records where the response left `entity` (if it was detected): its centre, the sides
    /// touching tiles this step, and its switches.
    #[inline]
    pub(crate) fn record_response(
        &self,
        entity: Entity,
        center: Vec2,
        tile_sides: u8,
        switches: &BodySwitches,
    ) {
        let Some(k) = self.now.slot(entity) else {
            return;
        };
        let mut how = How::RECORDED | tile_sides & ALL_SIDES;
        if !switches.world_collision {
            how |= How::FREE;
        }
        if switches.drop_through {
            how |= How::DROP_THROUGH;
        }
        if switches.climbing {
            how |= How::CLIMBING;
        }
        let ended = &self.ended[k];
        ended.center.store(pack(center), Relaxed);
        ended.how.store(how, Relaxed);
        let moved = center != self.snaps[k].center;
        ended.moved.store(if moved { MOVED } else { 0 }, Relaxed);
    }

    /// Every slot as relaxation's first pass sees it, into `out`: a kinematic body where
    /// detection saw it, blocked on every side; another body where the response left it,
    /// blocked where it touches tiles; an empty slot nowhere, blocked.
    pub(crate) fn pieces_into(&self, out: &mut Vec<Piece>) {
        out.clear();
        out.extend(self.snaps.iter().zip(&self.ended).map(|(snap, ended)| {
            let how = ended.how.load(Relaxed);
            if snap.kinematic || snap.entity == Entity::PLACEHOLDER || how & How::RECORDED == 0 {
                Piece {
                    center: snap.center,
                    half: snap.half,
                    blocked: ALL_SIDES,
                }
            } else {
                Piece {
                    center: unpack(ended.center.load(Relaxed)),
                    half: snap.half,
                    blocked: how & ALL_SIDES,
                }
            }
        }));
    }

    /// How relaxation may move slot `k`'s body: not at all when it is kinematic or was not
    /// recorded.
    #[inline]
    pub(crate) fn mobility(&self, k: usize) -> Mobility {
        let how = self.ended[k].how.load(Relaxed);
        let snap = &self.snaps[k];
        if snap.kinematic || snap.entity == Entity::PLACEHOLDER || how & How::RECORDED == 0 {
            Mobility::Fixed
        } else if how & How::FREE != 0 {
            Mobility::Free
        } else {
            Mobility::Swept(PassThrough {
                drop_through: how & How::DROP_THROUGH != 0,
                climbing: how & How::CLIMBING != 0,
            })
        }
    }

    /// Whether relaxation moved slot `k`'s body to `center`; if so, that is where it ended.
    #[inline]
    pub(crate) fn moved_by_relaxation(&self, k: usize, center: Vec2) -> bool {
        if self.mobility(k) == Mobility::Fixed {
            return false;
        }
        let ended = &self.ended[k].center;
        let bits = pack(center);
        if ended.load(Relaxed) == bits {
            return false;
        }
        ended.store(bits, Relaxed);
        true
    }
}

/// The pairs the response made: pairs touching where the response left the bodies that
/// detection did not find (never with a one-way platform). Only a body the response moved can be in one, so only those are
/// searched, in the partition (where every body is filed where it now is), each in the cells
/// its box covers grown by its contact tolerance. Each pair is listed from both ends, in slot
/// order; relaxation's outcome does not depend on the order of a body's partners, nor on a
/// partner listed twice.
#[derive(Default)]
pub(crate) struct MadePairs {
    /// What each piece of the search found: (slot, partner slot).
    found: Vec<Vec<(u32, u32)>>,
    /// Every pair from both ends, sorted.
    pairs: Vec<(u32, u32)>,
    /// Slot `k`'s partners are `pairs[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
}

impl MadePairs {
    /// Finds the pairs of this step (see the type), among `pieces` (where the response left
    /// every slot).
    pub(crate) fn find(
        &mut self,
        layout: &ContactLayout,
        (partition, pieces): (&Partition, &[Piece]),
        touch: f32,
        threads: Threads,
    ) {
        let slots = pieces.len();
        self.found.resize_with(CHUNKS, Vec::new);
        for_each_chunk(&mut self.found, threads, |i, found| {
            found.clear();
            for k in chunk_range(i, CHUNKS, slots) {
                if layout.ended[k].moved.load(Relaxed) != MOVED {
                    continue;
                }
                let me = pieces[k];
                let skin = skin_at(touch, me.center);
                let range =
                    partition.cell_range(me.center - me.half - skin, me.center + me.half + skin);
                let links = layout.now.links_of(k);
                let layers = layout.snaps[k].layers;
                for (_, other) in partition.bodies_in(range) {
                    let Some(j) = layout.now.slot(other) else {
                        continue;
                    };
                    if j == k
                        || !layers.interacts_with(layout.snaps[j].layers)
                        || layout.snaps[k].one_way
                        || layout.snaps[j].one_way
                        || links.iter().any(|l| l.other as usize == j)
                    {
                        continue;
                    }
                    let them = pieces[j];
                    let skin = pair_skin(touch, me.center, them.center);
                    if signed_overlap_within(me.center, me.half, them.center, them.half, skin)
                        .is_some()
                    {
                        found.push((k as u32, j as u32));
                    }
                }
            }
        });
        self.pairs.clear();
        for &(k, j) in self.found.iter().flatten() {
            self.pairs.push((k, j));
            self.pairs.push((j, k));
        }
        self.pairs.sort_unstable();
        self.starts.clear();
        self.starts.resize(slots + 1, 0);
        for &(k, _) in &self.pairs {
            self.starts[k as usize + 1] += 1;
        }
        for k in 0..slots {
            self.starts[k + 1] += self.starts[k];
        }
    }

    /// Slot `k`'s partners in the pairs the response made.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.starts[k] as usize..self.starts[k + 1] as usize;
        self.pairs[range].iter().map(|&(_, j)| j as usize)
    }
}
