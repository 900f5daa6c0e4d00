//! What relaxation reads of each slot: where its body ended the response, and how it may be
//! moved. The response records it for the bodies it handles; a resting body's stays from the
//! step that wrote it, which is where the body still is (see `crate::fast::rest`).
//!
//! And where relaxation looks for the pairs the response and the passes made: every slot
//! filed once a step, where the response left it, in one array by cell ([`Residents`]).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::{Aabb, BodySwitches};
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk};
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::partition::{CellRange, Partition};
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
    /// body's search box read from `residents` (every body filed where the response left it),
    /// in [`CHUNKS`] pieces of the moved bodies on `threads`, each into its own buffer of
    /// `chunks`, then into `out` in the pieces' order.
    pub(crate) fn touching_moved(
        &self,
        (partition, residents): (&Partition, &Residents),
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
                let range = partition.cell_range(min, max);
                let a = &search.pieces[k];
                for_each_cell(range, residents.width, |c| {
                    for near in residents.of_cell(c) {
                        let j = near.slot as usize;
                        let b = &search.pieces[j];
                        if apart((a.center, a.half), (b.center, b.half), search.touch)
                            || !(search.new_pair(k, j) && self.may_pair(k, j))
                        {
                            continue;
                        }
                        found.push((k as u32, near.slot));
                    }
                });
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

/// Every slot's box where the response left it, filed in the partition's grid as the
/// partition files a body ([`Partition::filed_box`]: its box grown by its contact tolerance,
/// so two bodies touching share a cell), in one array by cell: the bodies relaxation's
/// searches read, with no lookup from entity to slot. Filed once a step, by a counting sort of
/// the slots over the cells (each cell's residents in slot order).
#[derive(Default)]
pub(crate) struct Residents {
    /// Cell `c`'s residents are `residents[starts[c]..starts[c + 1]]` (after filing).
    starts: Vec<u32>,
    residents: Vec<Resident>,
    /// Each slot's cells, and the box and body they are of.
    filed: Vec<Filed>,
    /// The grid the cells are of: its size in cells, cell size, origin, and the contact
    /// tolerance the boxes are grown by.
    grid: (UVec2, u32, Vec2, u32),
    /// The cells holding a body the response moved, each once.
    moved_cells: Vec<u32>,
    /// By cell: the last filing that listed it in `moved_cells`.
    listed: Vec<u32>,
    filing: u32,
    /// The grid's width in cells.
    width: u32,
}

/// Where a slot is filed: the cells its box covers (none: filed nowhere), and the box (centre,
/// half extents) and body (its entity's bits) they are of.
#[derive(Clone, Copy, Default)]
struct Filed {
    range: Option<CellRange>,
    placed: Option<(Vec2, Vec2, u64)>,
}

/// A body of a cell: its slot, its box where the response left it, and whether the response
/// moved it.
#[derive(Clone, Copy)]
struct Resident {
    slot: u32,
    center: Vec2,
    half: Vec2,
    moved: bool,
}

impl Residents {
    /// Files every slot of `pieces` (where the response left it) in `partition`'s grid, noting
    /// the cells of those `moved` says the response moved; an empty slot and an invalid box
    /// are filed nowhere.
    fn file(
        &mut self,
        (partition, pieces): (&Partition, &[Piece]),
        moved: impl Fn(usize) -> bool,
        touch: f32,
    ) {
        let dims = partition.dims();
        let cells = (dims.x * dims.y) as usize;
        self.width = dims.x;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        // A slot whose box is the one it was filed with last step, in the same grid, keeps its
        // cells (in a pile most bodies rest).
        let grid = (
            dims,
            partition.cell_size().to_bits(),
            partition.origin(),
            touch.to_bits(),
        );
        if core::mem::replace(&mut self.grid, grid) != grid {
            self.filed.clear();
        }
        self.filed.resize(pieces.len(), Filed::default());
        for (piece, filed) in pieces.iter().zip(&mut self.filed) {
            let placed = (piece.center, piece.half, piece.id);
            if filed.placed != Some(placed) {
                let aabb = Aabb::new(piece.center, piece.half);
                let corners = Partition::filed_box(&aabb, touch);
                let real = piece.id != Entity::PLACEHOLDER.to_bits();
                filed.range =
                    (corners.filter(|_| real)).map(|(min, max)| partition.cell_range(min, max));
                filed.placed = Some(placed);
            }
            if let Some(range) = filed.range {
                for_each_cell(range, dims.x, |c| self.starts[c + 1] += 1);
            }
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.residents.clear();
        self.residents.resize(
            self.starts[cells] as usize,
            Resident {
                slot: 0,
                center: Vec2::ZERO,
                half: Vec2::ZERO,
                moved: false,
            },
        );
        self.listed.resize(cells, 0);
        self.filing = self.filing.wrapping_add(1);
        if self.filing == 0 {
            self.listed.fill(0);
            self.filing = 1;
        }
        self.moved_cells.clear();
        // `starts[c]` is the next free place of cell `c`, then the end of its residents.
        for (k, filed) in self.filed.iter().enumerate() {
            let Some(range) = filed.range else {
                continue;
            };
            let Piece { center, half, .. } = pieces[k];
            let moved = moved(k);
            let resident = Resident {
                slot: k as u32,
                center,
                half,
                moved,
            };
            let (starts, residents) = (&mut self.starts, &mut self.residents);
            let (listed, moved_cells, filing) =
                (&mut self.listed, &mut self.moved_cells, self.filing);
            for_each_cell(range, self.width, |c| {
                residents[starts[c] as usize] = resident;
                starts[c] += 1;
                if moved && listed[c] != filing {
                    listed[c] = filing;
                    moved_cells.push(c as u32);
                }
            });
        }
        // Each cell's start is now the one of the cell after it: shift them back.
        for c in (0..cells).rev() {
            self.starts[c + 1] = self.starts[c];
        }
        self.starts[0] = 0;
    }

    /// The residents of the cell with flat index `flat`.
    #[inline]
    fn of_cell(&self, flat: usize) -> &[Resident] {
        match self.starts.get(flat..flat + 2) {
            Some(&[start, end]) => &self.residents[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// Whether boxes `a` and `b` (centre, half extents) are too far apart to touch within any
/// tolerance their pair may have: a screen cheaper than the full test. A pair's tolerance is
/// `touch` plus one float step of its largest coordinate `m` ([`pair_skin`]), which is at most
/// `touch + m * EPSILON` (plus the smallest normal float, for `m` near zero). A NaN passes, to
/// the full test.
#[inline]
fn apart((a, a_half): (Vec2, Vec2), (b, b_half): (Vec2, Vec2), touch: f32) -> bool {
    let m = a.abs().max(b.abs()).max_element();
    let widest = touch + (m * f32::EPSILON + f32::MIN_POSITIVE);
    let (delta, reach) = ((a - b).abs(), a_half + b_half);
    delta.x > reach.x + widest || delta.y > reach.y + widest
}

/// Calls `f` with the flat index of every cell of `range`, in a grid `width` cells wide.
#[inline]
fn for_each_cell((lo, hi): CellRange, width: u32, mut f: impl FnMut(usize)) {
    // Most bodies are in one cell.
    if lo == hi {
        return f((lo.y * width + lo.x) as usize);
    }
    for y in lo.y..hi.y + 1 {
        for x in lo.x..hi.x + 1 {
            f((y * width + x) as usize);
        }
    }
}

/// The pairs the response made: pairs touching where the response left the bodies that
/// detection did not find (never with a one-way platform). Only a body the response moved can
/// be in one. They are searched cell by cell of the [`Residents`] (two bodies touching share
/// a cell), in the cells holding a moved body: each pair of a cell's residents with a moved
/// body is tested there, first against a bound on any pair's tolerance, then with the pair's
/// own. Each pair is listed once from both ends, in slot order, as the reference step lists
/// them: the order in which relaxation settles a body's pairs is part of its outcome.
#[derive(Default)]
pub(crate) struct MadePairs {
    /// What each piece of the search found: (slot, partner slot).
    pieces: Vec<Vec<(u32, u32)>>,
    /// Where the response left every body, by cell.
    pub(crate) residents: Residents,
    /// Every pair from both ends, sorted.
    pairs: Vec<(u32, u32)>,
    /// Slot `k`'s partners are `pairs[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
}

impl MadePairs {
    /// Files the [`Residents`] and finds the pairs of this step (see the type), among
    /// `pieces` (where the response left every slot).
    pub(crate) fn find(
        &mut self,
        layout: &ContactLayout,
        (partition, pieces): (&Partition, &[Piece]),
        touch: f32,
        threads: Threads,
    ) {
        let slots = pieces.len();
        let moved = |k: usize| layout.ended[k].moved.load(Relaxed) == MOVED;
        self.residents.file((partition, pieces), moved, touch);
        let residents = &self.residents;
        let to_search = &residents.moved_cells;
        self.pieces.resize_with(CHUNKS, Vec::new);
        for_each_chunk(&mut self.pieces, threads, |i, found| {
            found.clear();
            for &flat in &to_search[chunk_range(i, CHUNKS, to_search.len())] {
                let cell = residents.of_cell(flat as usize);
                for (at, a) in cell.iter().enumerate() {
                    if !a.moved {
                        continue;
                    }
                    // Each pair once: with a body it did not move, or a later one it moved.
                    for (bt, b) in cell.iter().enumerate() {
                        if b.moved && bt <= at {
                            continue;
                        }
                        if apart((a.center, a.half), (b.center, b.half), touch) {
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
            for &(k, j) in piece {
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

    /// Slot `k`'s partners in the pairs the response made.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.starts[k] as usize..self.starts[k + 1] as usize;
        self.pairs[range].iter().map(|&(_, j)| j as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::TileMap;

    fn piece(x: f32, y: f32, id: u64) -> Piece {
        Piece {
            center: Vec2::new(x, y),
            half: Vec2::splat(4.0),
            blocked: 0,
            id,
            quiet: false,
        }
    }

    fn slots_in(residents: &Residents, flat: usize) -> Vec<u32> {
        (residents.of_cell(flat).iter()).map(|r| r.slot).collect()
    }

    #[test]
    fn every_body_is_filed_in_the_cells_its_grown_box_covers_and_refiled_when_that_changes() {
        let mut partition = Partition::default();
        // Cells of 64 units, 4 across and 2 up.
        partition.fit(&TileMap::new(16, 8, 16.0), 4);
        let mut pieces = vec![
            piece(32.0, 32.0, 10),
            piece(64.0, 32.0, 20),
            piece(200.0, 100.0, 30),
            // Its right side 0.0005 short of the cells' border at x = 64.
            piece(59.9995, 100.0, 40),
            piece(0.0, 0.0, Entity::PLACEHOLDER.to_bits()),
        ];
        let mut residents = Residents::default();
        let first_moved = |k: usize| k == 0;
        residents.file((&partition, &pieces), first_moved, 1e-3);
        assert_eq!(slots_in(&residents, 0), [0, 1]);
        assert_eq!(slots_in(&residents, 1), [1]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [3]);
        assert_eq!(slots_in(&residents, 7), [2]);
        assert_eq!(
            residents.residents.len(),
            6,
            "the empty slot is filed nowhere"
        );
        assert_eq!(residents.moved_cells, [0]);

        // The first body moved into the third cell; the fourth, with a tolerance smaller than
        // its distance to the border, no longer reaches the cell beyond it.
        pieces[0].center.x = 160.0;
        residents.file((&partition, &pieces), first_moved, 1e-4);
        assert_eq!(slots_in(&residents, 0), [1]);
        assert_eq!(slots_in(&residents, 2), [0]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [] as [u32; 0]);
        assert_eq!(residents.moved_cells, [2]);
    }
}
