//! What relaxation reads of each slot: where its body ended the response, and how it may be
//! moved. The response records it for the bodies it handles; a resting body's stays from the
//! step that wrote it, which is where the body still is (see `crate::fast::rest`).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::{Aabb, BodySwitches};
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk};
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::partition::Partition;
use crate::response::relax::{ALL_SIDES, Mobility, MovedSearch, Piece, SlotPairs};
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
/// The `Ended::moved` byte: the response left the body where detection saw it, overlapping
/// none of its partners by more than half its contact tolerance on both axes (see
/// [`Piece::quiet`]).
const QUIET: u8 = 2;

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
        let kind = match moved {
            true => MOVED,
            false if self.shallow(k) => QUIET,
            false => 0,
        };
        ended.moved.store(kind, Relaxed);
    }

    /// Every slot as relaxation's first pass sees it, into `out`: a kinematic body where
    /// detection saw it, blocked on every side; another body where the response left it,
    /// blocked where it touches tiles; an empty slot nowhere, blocked.
    pub(crate) fn pieces_into(&self, out: &mut Vec<Piece>) {
        out.clear();
        out.extend(
            self.snaps
                .iter()
                .zip(&self.ended)
                .enumerate()
                .map(|(k, (snap, ended))| {
                    let how = ended.how.load(Relaxed);
                    if snap.kinematic
                        || snap.entity == Entity::PLACEHOLDER
                        || how & How::RECORDED == 0
                    {
                        Piece {
                            center: snap.center,
                            half: snap.half,
                            blocked: ALL_SIDES,
                            id: snap.entity.to_bits(),
                            quiet: snap.kinematic && self.shallow(k),
                        }
                    } else {
                        Piece {
                            center: unpack(ended.center.load(Relaxed)),
                            half: snap.half,
                            blocked: how & ALL_SIDES,
                            id: snap.entity.to_bits(),
                            quiet: ended.moved.load(Relaxed) == QUIET,
                        }
                    }
                }),
        );
    }

    /// Whether slot `k`'s body overlapped none of its partners at detection by more than half
    /// its contact tolerance on both axes: where it still is, it overlaps none of them by more
    /// than the pair's tolerance (a pair the response made has a body it moved).
    fn shallow(&self, k: usize) -> bool {
        let half_skin = self.snaps[k].skin * 0.5;
        (self.now.links_of(k).iter()).all(|l| l.overlap.abs().min_element() <= half_skin)
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

    /// Whether the bodies in slots `k` and `j` may pair: their layers interact, and neither is
    /// a one-way platform (relaxation never pushes a body out of one).
    #[inline]
    fn may_pair(&self, k: usize, j: usize) -> bool {
        let (a, b) = (&self.snaps[k], &self.snaps[j]);
        a.layers.interacts_with(b.layers) && !(a.one_way || b.one_way)
    }

    /// [`Links::contacts`](crate::response::relax::Links) for relaxation's passes: each moved
    /// body's search box read from `partition` (where every body is filed where the response
    /// left it), in [`CHUNKS`] pieces of the moved bodies on `threads`, each into its own
    /// buffer of `chunks`, then into `out` in the pieces' order.
    pub(crate) fn touching_moved(
        &self,
        partition: &Partition,
        search: &MovedSearch,
        threads: Threads,
        (chunks, out): (&mut Vec<SlotPairs>, &mut SlotPairs),
    ) {
        chunks.resize_with(CHUNKS, Vec::new);
        let moved = search.moved;
        for_each_chunk(chunks, threads, |i, found| {
            found.clear();
            for &k in &moved[chunk_range(i, CHUNKS, moved.len())] {
                let k = k as usize;
                let (min, max) = search.search_box(k);
                let near = partition.bodies_in(partition.cell_range(min, max));
                for j in near.filter_map(|(_, entity)| self.now.slot(entity)) {
                    if search.new_pair(k, j) && self.may_pair(k, j) {
                        found.push((k as u32, j as u32));
                    }
                }
            }
        });
        for found in chunks.iter() {
            out.extend_from_slice(found);
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
/// detection did not find (never with a one-way platform). Only a body the response moved can
/// be in one. They are searched cell by cell of the partition (where every body is filed
/// where it now is, in the cells its box grown by its contact tolerance covers, so two bodies
/// touching share a cell), in the cells a moved body's box covers: each such cell's bodies
/// are read once into a short list, and each pair of them with a moved body is tested there.
/// Each pair is listed once from both ends, in slot order, as the reference step lists them:
/// the order in which relaxation settles a body's pairs is part of its outcome.
#[derive(Default)]
pub(crate) struct MadePairs {
    /// What each piece of the search found, and the cell it reads: (slot, partner slot).
    pieces: Vec<SearchPiece>,
    /// The cells to search (flat indices), each once: those a moved body's box covers.
    cells: Vec<u32>,
    /// By cell: the last search that listed it in `cells`.
    listed: Vec<u32>,
    search: u32,
    /// Every pair from both ends, sorted.
    pairs: Vec<(u32, u32)>,
    /// Slot `k`'s partners are `pairs[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
}

/// One piece of the search: the pairs it found, and the cell it is reading.
#[derive(Default)]
pub(crate) struct SearchPiece {
    found: Vec<(u32, u32)>,
    cell: Vec<Resident>,
}

/// A body of the cell being searched: its slot, box where the response left it, and whether
/// the response moved it.
#[derive(Clone, Copy)]
struct Resident {
    slot: u32,
    center: Vec2,
    half: Vec2,
    moved: bool,
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
        self.list_cells(layout, (partition, pieces), touch);
        let to_search = &self.cells;
        self.pieces.resize_with(CHUNKS, SearchPiece::default);
        for_each_chunk(&mut self.pieces, threads, |i, piece| {
            let SearchPiece { found, cell } = piece;
            found.clear();
            for &flat in &to_search[chunk_range(i, CHUNKS, to_search.len())] {
                let list = partition.cell_at_flat(flat as usize);
                if list.len() < 2 {
                    continue;
                }
                // A moved body covers the cell: it is in this list.
                cell.clear();
                for &entity in list {
                    let Some(k) = layout.now.slot(entity) else {
                        continue;
                    };
                    let moved = layout.ended[k].moved.load(Relaxed) == MOVED;
                    let Piece { center, half, .. } = pieces[k];
                    let slot = k as u32;
                    cell.push(Resident {
                        slot,
                        center,
                        half,
                        moved,
                    });
                }
                for (at, a) in cell.iter().enumerate() {
                    for b in &cell[at + 1..] {
                        if !(a.moved || b.moved) {
                            continue;
                        }
                        let skin = pair_skin(touch, a.center, b.center);
                        if signed_overlap_within(a.center, a.half, b.center, b.half, skin).is_none()
                        {
                            continue;
                        }
                        let (k, j) = (a.slot.min(b.slot), a.slot.max(b.slot));
                        let detected =
                            || (layout.now.links_of(k as usize).iter()).any(|l| l.other == j);
                        if layout.may_pair(k as usize, j as usize) && !detected() {
                            found.push((k, j));
                        }
                    }
                }
            }
        });
        self.pairs.clear();
        for piece in &self.pieces {
            for &(k, j) in &piece.found {
                self.pairs.push((k, j));
                self.pairs.push((j, k));
            }
        }
        self.pairs.sort_unstable();
        self.pairs.dedup();
        self.starts.clear();
        self.starts.resize(slots + 1, 0);
        for &(k, _) in &self.pairs {
            self.starts[k as usize + 1] += 1;
        }
        for k in 0..slots {
            self.starts[k + 1] += self.starts[k];
        }
    }

    /// Lists in `cells` every cell of `partition` the box of a body the response moved covers
    /// ([`Partition::filed_box`]: where it is filed), each once, in the order first reached.
    fn list_cells(
        &mut self,
        layout: &ContactLayout,
        (partition, pieces): (&Partition, &[Piece]),
        touch: f32,
    ) {
        let dims = partition.dims();
        self.listed.resize((dims.x * dims.y) as usize, 0);
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.listed.fill(0);
            self.search = 1;
        }
        self.cells.clear();
        for (ended, piece) in layout.ended.iter().zip(pieces) {
            if ended.moved.load(Relaxed) != MOVED {
                continue;
            }
            let aabb = Aabb::new(piece.center, piece.half);
            let Some((min, max)) = Partition::filed_box(&aabb, touch) else {
                continue;
            };
            let (lo, hi) = partition.cell_range(min, max);
            for y in lo.y..hi.y + 1 {
                for x in lo.x..hi.x + 1 {
                    let flat = y * dims.x + x;
                    if self.listed[flat as usize] != self.search {
                        self.listed[flat as usize] = self.search;
                        self.cells.push(flat);
                    }
                }
            }
        }
    }

    /// Slot `k`'s partners in the pairs the response made.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.starts[k] as usize..self.starts[k + 1] as usize;
        self.pairs[range].iter().map(|&(_, j)| j as usize)
    }
}
