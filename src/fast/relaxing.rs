//! What relaxation reads of each slot: where its body ended the response, and how it may be
//! moved. The response records it for the bodies it handles; a resting body's stays from the
//! step that wrote it, which is where the body still is (see `crate::fast::rest`).
//!
//! And where relaxation looks for the pairs the response and the passes made: the partition's
//! cells for the bodies the response did not move, and the moved ones filed once a step where
//! it left them, in one array by cell ([`Residents`]).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::{Aabb, BodySwitches};
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk, for_each_split};
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::partition::{CellRange, Partition};
use crate::response::relax::{
    ALL_SIDES, Mobility, MovedSearch, Piece, SlotPairs, settled_where_detected,
};
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
/// each of its partners by no more than the pair's tolerance on one axis or the other (see
/// [`ContactLayout::shallow`] and [`Piece::quiet`]).
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

    /// Whether each of slot `k`'s pairs at detection is one that no phase of relaxation settles
    /// while neither body moves ([`settled_where_detected`]). (A pair the response made has a
    /// body it moved, which is not quiet.)
    fn shallow(&self, k: usize) -> bool {
        let me = self.snaps[k].skin;
        (self.now.links_of(k).iter()).all(|l| {
            // The pair's tolerance, as detection worked it out.
            let skin = me.max(self.snaps[l.other as usize].skin);
            settled_where_detected(l.overlap, skin)
        })
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
    /// body's search box read from the partition and the `residents` (every body where the
    /// response left it), in [`CHUNKS`] pieces of the moved bodies on `threads`, each into its
    /// own buffer of `chunks`, then into `out` in the pieces' order.
    pub(crate) fn touching_moved(
        &self,
        (partition, residents): (&Partition, &Residents),
        search: &MovedSearch,
        threads: Threads,
        (chunks, out): (&mut Vec<SlotPairs>, &mut SlotPairs),
    ) {
        chunks.resize_with(CHUNKS, Vec::new);
        let moved = search.moved;
        let slot = |entity: Entity| self.now.slot(entity);
        for_each_chunk(chunks, threads, |i, found| {
            found.clear();
            for &k in &moved[chunk_range(i, CHUNKS, moved.len())] {
                let k = k as usize;
                let (min, max) = search.search_box(k);
                let range = partition.cell_range(min, max);
                let a = &search.pieces[k];
                // The residents of a cell are sorted from the left (see `Residents::file`):
                // those whose left edge is further left of the search box than the widest
                // resident is wide ended before it, and those whose left edge is past it began
                // beyond it (rounding included, at the largest coordinate either bound spans).
                let reach = 2.0 * residents.widest;
                let before = min.x - reach - rounded_tolerance(search.touch, min.x.abs() + reach);
                let beyond = max.x + rounded_tolerance(search.touch, max.x.abs());
                for_each_cell(range, residents.width, |c| {
                    let cell = residents.of_cell(c);
                    let first = cell.partition_point(|near| near.left() < before);
                    for near in &cell[first..] {
                        if near.left() > beyond {
                            break;
                        }
                        let j = near.slot as usize;
                        if touching(search, self, (k, a), j) {
                            found.push((k as u32, near.slot));
                        }
                    }
                    for j in residents.unmoved(partition, slot, c) {
                        if touching(search, self, (k, a), j) {
                            found.push((k as u32, j as u32));
                        }
                    }
                });
            }
            // In an order that depends only on the search, not on the partition's lists.
            if !residents.everyone {
                found.sort_unstable();
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

/// Where relaxation's searches find every body where the response left it. A body the
/// response did not move is where pair detection saw it, so in the [`Partition`]'s cells (the
/// partition files a body by its box grown by its contact tolerance, [`Partition::filed_box`],
/// so two bodies touching share a cell). The bodies it moved are filed here, in the
/// partition's grid by the same rule, once a step, by a counting sort over the cells, each
/// cell's residents then sorted by the left edges of their boxes, then by slot. In a pile few
/// bodies move and filing them is cheap; when more than one in [`FILE_EVERY_BODY`] moved (a
/// crowd), every body is filed here instead, which costs less than reading the partition's
/// lists entity by entity, and the cells of each body and each cell's sort are computed on the
/// crew's threads (each piece of the work the same on any number of threads).
#[derive(Default)]
pub(crate) struct Residents {
    /// Cell `c`'s residents are `residents[starts[c]..starts[c + 1]]` (after filing).
    starts: Vec<u32>,
    residents: Vec<Resident>,
    /// Every body is filed here, not only the moved ones.
    everyone: bool,
    /// By slot: the response left the body away from where detection saw it (so not where the
    /// partition files it).
    moved: Vec<bool>,
    /// The slots filed (the moved ones, or every one), and the cells each covers ([`UNFILED`]:
    /// none, an invalid box).
    filed: Vec<u32>,
    ranges: Vec<CellRange>,
    /// By cell: how many bodies it holds, then where the next one goes (counting sort).
    counts: Vec<u32>,
    /// The slots filed, in the cells' order (each cell's by slot before sorting).
    placed: Vec<u32>,
    /// By cell: it holds a moved body.
    holds_moved: Vec<bool>,
    /// The cells holding a moved body, in the grid's order.
    moved_cells: Vec<u32>,
    /// The grid's width in cells.
    width: u32,
    /// No body filed in a cell (an invalid box is filed nowhere) has a larger half width.
    widest: f32,
}

/// The cell range of a body filed nowhere (an invalid box).
const UNFILED: CellRange = (UVec2::ONE, UVec2::ZERO);

/// When more than one body in this many moved, [`Residents`] files every body.
const FILE_EVERY_BODY: usize = 8;

/// A body of a cell: its slot, its box where the response left it, and whether the response
/// moved it.
#[derive(Clone, Copy)]
struct Resident {
    slot: u32,
    center: Vec2,
    half: Vec2,
    moved: bool,
}

impl Resident {
    /// The left edge of its box: the order of a cell's residents, which the searches stop
    /// reading past their boxes by.
    #[inline]
    fn left(&self) -> f32 {
        self.center.x - self.half.x
    }
}

impl Residents {
    /// Files the slots of `pieces` (where the response left every body) that are away from
    /// `detected(k)` (where detection saw them), or every slot when many are, in
    /// `partition`'s grid, on `threads` when every slot is filed; an empty slot and an invalid
    /// box are filed nowhere.
    fn file(
        &mut self,
        (partition, pieces): (&Partition, &[Piece]),
        detected: impl Fn(usize) -> Vec2,
        touch: f32,
        threads: Threads,
    ) {
        let dims = partition.dims();
        let cells = (dims.x * dims.y) as usize;
        let slots = pieces.len();
        self.width = dims.x;
        self.moved.clear();
        // A NaN centre is away too: not read from the partition.
        (self.moved).extend((pieces.iter().enumerate()).map(|(k, p)| p.center != detected(k)));
        let moved = self.moved.iter().filter(|&&m| m).count();
        self.everyone = moved * FILE_EVERY_BODY > slots;
        let threads = threads.filter(|_| self.everyone);
        self.filed.clear();
        for (k, piece) in pieces.iter().enumerate() {
            if self.moved[k] || self.everyone && !piece.empty_slot() {
                self.filed.push(k as u32);
            }
        }
        // 1. The cells of each body filed.
        let filed = self.filed.len();
        self.ranges.clear();
        self.ranges.resize(filed, UNFILED);
        let by_body = |i: usize| {
            let end = chunk_range(i, CHUNKS, filed).end;
            (end, end)
        };
        let (ranges, slots) = (&mut self.ranges, &mut self.filed);
        for_each_split(
            ranges,
            slots,
            CHUNKS,
            by_body,
            threads,
            |_, ranges, slots| {
                for (range, &k) in ranges.iter_mut().zip(&*slots) {
                    let piece = &pieces[k as usize];
                    let aabb = Aabb::new(piece.center, piece.half);
                    if let Some((min, max)) = Partition::filed_box(&aabb, touch) {
                        *range = partition.cell_range(min, max);
                    }
                }
            },
        );
        // 2. How many bodies each cell holds, then where each cell's residents start; the
        //    counts become the places of the next ones.
        let width = dims.x;
        self.counts.clear();
        self.counts.resize(cells, 0);
        for &range in self.ranges.iter().filter(|&&r| r != UNFILED) {
            for_each_cell(range, width, |c| self.counts[c] += 1);
        }
        self.starts.clear();
        self.starts.push(0);
        let mut total = 0;
        for count in &mut self.counts {
            (*count, total) = (total, total + *count);
            self.starts.push(total);
        }
        self.placed.clear();
        self.placed.resize(total as usize, 0);
        self.widest = 0.0;
        for (&k, &range) in self.filed.iter().zip(&self.ranges) {
            if range != UNFILED {
                self.widest = self.widest.max(pieces[k as usize].half.x);
                for_each_cell(range, width, |c| {
                    self.placed[self.counts[c] as usize] = k;
                    self.counts[c] += 1;
                });
            }
        }
        // 3. Each cell's residents, from the left (then by slot), for the sweep of
        //    `MadePairs::find`; and whether it holds a moved body.
        let empty = Resident {
            slot: 0,
            center: Vec2::ZERO,
            half: Vec2::ZERO,
            moved: false,
        };
        self.residents.clear();
        self.residents.resize(total as usize, empty);
        self.holds_moved.clear();
        self.holds_moved.resize(cells, false);
        let (starts, moved, placed) = (&self.starts, &self.moved, &self.placed);
        let by_cell = |i: usize| {
            let end = chunk_range(i, CHUNKS, cells).end;
            (starts[end] as usize, end)
        };
        let (residents, holds_moved) = (&mut self.residents, &mut self.holds_moved);
        for_each_split(
            residents,
            holds_moved,
            CHUNKS,
            by_cell,
            threads,
            |i, mine, holds| {
                let first = chunk_range(i, CHUNKS, cells).start;
                let offset = starts[first] as usize;
                for (c, holds) in (first..).zip(holds) {
                    let (start, end) = (starts[c] as usize, starts[c + 1] as usize);
                    let cell = &mut mine[start - offset..end - offset];
                    for (resident, at) in cell.iter_mut().zip(&placed[start..end]) {
                        let k = *at as usize;
                        let Piece { center, half, .. } = pieces[k];
                        *resident = Resident {
                            slot: k as u32,
                            center,
                            half,
                            moved: moved[k],
                        };
                    }
                    cell.sort_unstable_by(|a, b| {
                        a.left().total_cmp(&b.left()).then(a.slot.cmp(&b.slot))
                    });
                    *holds = cell.iter().any(|r| r.moved);
                }
            },
        );
        self.moved_cells.clear();
        let held = self.holds_moved.iter().enumerate().filter(|&(_, &h)| h);
        self.moved_cells.extend(held.map(|(c, _)| c as u32));
    }

    /// The slots of the bodies of the cell with flat index `flat` that the response did not
    /// move and that are not filed here: from the partition (`slot` says an entity's slot),
    /// none when every body is filed here.
    #[inline]
    fn unmoved<'a>(
        &'a self,
        partition: &'a Partition,
        slot: impl Fn(Entity) -> Option<usize> + 'a,
        flat: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let entities = if self.everyone {
            &[][..]
        } else {
            partition.cell_at_flat(flat)
        };
        (entities.iter().filter_map(move |&entity| slot(entity))).filter(|&j| !self.moved[j])
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

/// Whether body `k` (`a`), which a pass moved, and body `j` make a new pair: they touch where
/// they are now and may pair (a cheap screen first).
#[inline(always)]
fn touching(
    search: &MovedSearch,
    layout: &ContactLayout,
    (k, a): (usize, &Piece),
    j: usize,
) -> bool {
    let b = &search.pieces[j];
    !apart((a.center, a.half), (b.center, b.half), search.touch)
        && search.new_pair(k, j)
        && layout.may_pair(k, j)
}

/// The pair of moved body `a` and the body in slot `j` (centre, half extents), lower slot
/// first, if the response made it: they touch within their tolerance, may pair, and detection
/// did not find them.
#[inline(always)]
fn made_pair(
    layout: &ContactLayout,
    a: &Resident,
    (j, center, half): (usize, Vec2, Vec2),
    touch: f32,
) -> Option<(u32, u32)> {
    if apart((a.center, a.half), (center, half), touch) {
        return None;
    }
    let skin = pair_skin(touch, a.center, center);
    signed_overlap_within(a.center, a.half, center, half, skin)?;
    let (k, j) = (a.slot.min(j as u32), a.slot.max(j as u32));
    let detected = || (layout.now.links_of(k as usize).iter()).any(|l| l.other == j);
    (layout.may_pair(k as usize, j as usize) && !detected()).then_some((k, j))
}

/// More than the tolerance of any pair of boxes within `largest` of the origin, float rounding
/// included: `touch` plus a few float steps of `largest` (a pair's tolerance is `touch` plus
/// one, [`apart`]).
#[inline]
fn rounded_tolerance(touch: f32, largest: f32) -> f32 {
    touch + largest * (8.0 * f32::EPSILON) + f32::MIN_POSITIVE
}

/// More than any pair of `residents` can reach past their two boxes along x and still touch:
/// twice [`rounded_tolerance`] at their largest coordinate.
fn tolerance_bound(residents: &[Resident], touch: f32) -> f32 {
    let largest = (residents.iter()).fold(0.0f32, |m, r| {
        m.max((r.center.abs() + r.half).max_element())
    });
    2.0 * rounded_tolerance(touch, largest)
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
/// be in one. They are searched cell by cell (two bodies touching share a cell), in the cells
/// holding a moved body. The cell's [`Residents`] are swept from the left: each is tested
/// against those after it whose left edges are within its right edge (plus a bound on any
/// pair's tolerance), when either moved; then each body of the partition's list the response
/// did not move is tested against the cell's moved bodies. A test screens with a bound on any
/// pair's tolerance, then uses the pair's own. Each pair is listed once from both ends, in slot
/// order, as the reference step lists them: the order in which relaxation settles a body's
/// pairs is part of its outcome.
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
        let detected_at = |k: usize| layout.snaps[k].center;
        self.residents
            .file((partition, pieces), detected_at, touch, threads);
        let residents = &self.residents;
        let to_search = &residents.moved_cells;
        let slot = |entity: Entity| layout.now.slot(entity);
        self.pieces.resize_with(CHUNKS, Vec::new);
        for_each_chunk(&mut self.pieces, threads, |i, found| {
            found.clear();
            for &flat in &to_search[chunk_range(i, CHUNKS, to_search.len())] {
                let flat = flat as usize;
                let cell = residents.of_cell(flat);
                // Each pair with a moved body once, sweeping the residents from the left: each
                // with those after it whose left edge is within its right edge (and more than
                // any pair's tolerance), then each of the partition's bodies the response did
                // not move (looked up once) with the cell's moved bodies.
                let beyond = tolerance_bound(cell, touch);
                for (at, a) in cell.iter().enumerate() {
                    let right = a.center.x + a.half.x + beyond;
                    for b in &cell[at + 1..] {
                        if b.left() > right {
                            break;
                        }
                        if a.moved || b.moved {
                            let j = b.slot as usize;
                            found.extend(made_pair(layout, a, (j, b.center, b.half), touch));
                        }
                    }
                }
                for j in residents.unmoved(partition, slot, flat) {
                    let (center, half) = (pieces[j].center, pieces[j].half);
                    for a in cell.iter().filter(|a| a.moved) {
                        found.extend(made_pair(layout, a, (j, center, half), touch));
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
        // Where each slot's pairs start, up to the last slot with one (most steps of a pile
        // make none).
        let listed = self.pairs.last().map_or(0, |&(k, _)| k as usize + 1);
        self.starts.clear();
        self.starts.resize(listed + 1, 0);
        for &(k, _) in &self.pairs {
            self.starts[k as usize + 1] += 1;
        }
        for k in 0..listed {
            self.starts[k + 1] += self.starts[k];
        }
    }

    /// Slot `k`'s partners in the pairs the response made.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = match self.starts.get(k..k + 2) {
            Some(&[start, end]) => start as usize..end as usize,
            _ => 0..0,
        };
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
    fn every_body_is_filed_the_same_on_the_crew_as_on_one_thread() {
        let mut partition = Partition::default();
        // Cells of 64 units, 8 across and 8 up; 300 bodies, every one moved.
        partition.fit(&TileMap::new(32, 32, 16.0), 4);
        let mut u = crate::test_rng::unit_floats(11);
        let pieces: Vec<Piece> = (0..300)
            .map(|i| piece(u() * 512.0, u() * 512.0, 1 + i))
            .collect();
        let filed = |threads: Threads| {
            let mut residents = Residents::default();
            residents.file((&partition, &pieces), |_| Vec2::NAN, 1e-3, threads);
            assert!(residents.everyone);
            let cells: Vec<Vec<u32>> = (0..64).map(|c| slots_in(&residents, c)).collect();
            (cells, residents.moved_cells)
        };
        let pool = Box::leak(Box::new(
            bevy::tasks::TaskPoolBuilder::new().num_threads(1).build(),
        ));
        let crew = crate::fast::crew::Crew::spawn(pool, 1).expect("a crew of one");
        let (alone, on_crew) = (filed(None), filed(Some(&crew)));
        assert_eq!(alone, on_crew);
        // Each cell holds the bodies whose grown box covers it, from the left.
        let (cells, moved_cells) = alone;
        for (c, cell) in cells.iter().enumerate() {
            let mut expected: Vec<(f32, u32)> = (pieces.iter().enumerate())
                .filter(|(_, p)| {
                    let aabb = Aabb::new(p.center, p.half);
                    let (min, max) = Partition::filed_box(&aabb, 1e-3).unwrap();
                    let (lo, hi) = partition.cell_range(min, max);
                    let (x, y) = (c as u32 % 8, c as u32 / 8);
                    (lo.x..=hi.x).contains(&x) && (lo.y..=hi.y).contains(&y)
                })
                .map(|(k, p)| (p.center.x - p.half.x, k as u32))
                .collect();
            expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let slots: Vec<u32> = expected.iter().map(|&(_, k)| k).collect();
            assert_eq!(*cell, slots, "cell {c}");
        }
        let occupied = (cells.iter().enumerate()).filter(|(_, c)| !c.is_empty());
        assert_eq!(
            moved_cells,
            occupied.map(|(c, _)| c as u32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_bodies_the_response_moved_are_filed_in_the_cells_their_grown_box_covers() {
        let mut partition = Partition::default();
        // Cells of 64 units, 4 across and 2 up.
        partition.fit(&TileMap::new(16, 8, 16.0), 4);
        let mut pieces = vec![
            piece(32.0, 32.0, 10),
            piece(64.0, 32.0, 20),
            piece(200.0, 100.0, 30),
            // Its right side 0.0005 short of the cells' border at x = 64.
            piece(59.9995, 100.0, 40),
            piece(f32::NAN, 0.0, 50),
        ];
        // Invalid too, and the widest: not counted among the filed bodies' widths.
        pieces[4].half.x = f32::INFINITY;
        // Where detection saw them: the second did not move since.
        let mut seen = vec![
            Vec2::new(30.0, 32.0),
            Vec2::new(64.0, 32.0),
            Vec2::new(190.0, 100.0),
            Vec2::new(59.0, 100.0),
            Vec2::ZERO,
        ];
        // Forty bodies that did not move, in the third cell.
        for i in 0..40 {
            pieces.push(piece(150.0, 10.0 + i as f32, 100 + i));
            seen.push(Vec2::new(150.0, 10.0 + i as f32));
        }
        let mut residents = Residents::default();
        residents.file((&partition, &pieces), |k| seen[k], 1e-3, None);
        assert!(!residents.everyone, "4 bodies of 45 moved");
        assert_eq!(slots_in(&residents, 0), [0]);
        assert_eq!(
            slots_in(&residents, 1),
            [] as [u32; 0],
            "a body the response did not move is read from the partition"
        );
        assert_eq!(slots_in(&residents, 2), [] as [u32; 0]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [3]);
        assert_eq!(slots_in(&residents, 7), [2]);
        assert_eq!(
            residents.residents.len(),
            4,
            "the invalid box is filed nowhere"
        );
        assert_eq!(residents.widest, 4.0, "the widest body filed in a cell");
        assert_eq!(residents.moved[..6], [true, false, true, true, true, false]);
        assert_eq!(residents.moved_cells, [0, 4, 5, 7]);

        // The first body moved into the third cell; the fourth, with a tolerance smaller than
        // its distance to the border, no longer reaches the cell beyond it; the third is back
        // where detection saw it.
        pieces[0].center.x = 160.0;
        pieces[2].center.x = 190.0;
        residents.file((&partition, &pieces), |k| seen[k], 1e-4, None);
        assert_eq!(slots_in(&residents, 0), [] as [u32; 0]);
        assert_eq!(slots_in(&residents, 2), [0]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [] as [u32; 0]);
        assert_eq!(slots_in(&residents, 7), [] as [u32; 0]);
        assert_eq!(residents.moved_cells, [2, 4]);

        // Six more moved: more than one body in eight, so every body is filed (an empty slot
        // nowhere), the moved ones noted as such.
        pieces.push(piece(0.0, 0.0, Entity::PLACEHOLDER.to_bits()));
        seen.push(Vec2::ZERO);
        for at in &mut seen[5..11] {
            at.x = 149.0;
        }
        residents.file((&partition, &pieces), |k| seen[k], 1e-4, None);
        assert!(residents.everyone, "9 bodies of 46 moved");
        assert_eq!(slots_in(&residents, 0), [1]);
        assert_eq!(slots_in(&residents, 2).len(), 41);
        let lefts: Vec<f32> = residents.of_cell(2).iter().map(Resident::left).collect();
        assert!(
            lefts.windows(2).all(|w| w[0] <= w[1]),
            "a cell's residents from the left: {lefts:?}"
        );
        let moved_in_2 = residents.of_cell(2).iter().filter(|r| r.moved).count();
        assert_eq!(moved_in_2, 7, "the first body and six of the forty");
        // The second and the third are each in two cells.
        assert_eq!(residents.residents.len(), 46);
        assert_eq!(residents.moved_cells, [2, 4]);
    }
}
