//! What relaxation reads of each slot: where its body ended the response, and how it may be
//! moved. The response records it for the bodies it handles; a resting body's stays from the
//! step that wrote it, which is where the body still is (see `crate::fast::rest`).
//!
//! And where relaxation looks for the pairs the response and the passes made. Pair detection
//! lists, for each body, the bodies near it ([`NearLists`]: within twice [`near_reach`] on both
//! axes); while two bodies stay within the reach of where detection saw them, they can only
//! touch if each is in the other's list. A body further away, or one detection did not search
//! the pairs of (a resting body), is an escapee ([`Escapees`]): the escapees are filed where
//! they are at each search, in one array by cell ([`Residents`]), and an escapee reads the
//! partition's cells as well. Whatever a search reads, it keeps the pairs touching now, so it
//! finds the pairs a search of every body would, and relaxation's outcome is that of the
//! reference step.

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::{Aabb, BodySwitches};
use crate::config::PhysicsConfig;
use crate::fast::parallel::{CHUNKS, Threads, chunk_range, for_each_chunk};
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::partition::{CellRange, Partition};
use crate::response::relax::{
    ALL_SIDES, Mobility, MovedSearch, Piece, SlotPairs, settled_where_detected,
};
use crate::tiles::TileMap;
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
    /// body tested against the bodies near it where they are now, in [`CHUNKS`] pieces of the
    /// moved bodies on `threads`, each into its own buffer of `chunks`, then into `out` in the
    /// pieces' order. The [`Escapees`] are filed where they are first; then a moved escapee
    /// reads the cells its box covers (the escapees filed there, and the partition's other
    /// bodies), and any other moved body its near list (the bodies that are no escapees; a pair
    /// of two such moved bodies from one end) and the escapees filed in its cells.
    pub(crate) fn touching_moved(
        &self,
        (partition, escapees): (&Partition, &mut Escapees),
        search: &MovedSearch,
        threads: Threads,
        (chunks, out): (&mut Vec<SlotPairs>, &mut SlotPairs),
    ) {
        escapees.join(
            self,
            search.pieces,
            search.moved.iter().copied(),
            search.touch,
        );
        escapees.file(partition, search.pieces, search.touch);
        let moved = search.moved;
        escapees.mark_searching(moved, true);
        chunks.resize_with(CHUNKS, Vec::new);
        let filed = (partition, &*escapees);
        let threads = threads.filter(|_| moved.len() >= SEARCH_IN_PARALLEL);
        for_each_chunk(chunks, threads, |i, found| {
            found.clear();
            for &k in &moved[chunk_range(i, CHUNKS, moved.len())] {
                self.search_moved(search, filed, k as usize, found);
            }
            // In an order that depends only on the search, not on the partition's lists.
            found.sort_unstable();
        });
        for found in chunks.iter() {
            out.extend_from_slice(found);
        }
        escapees.mark_searching(moved, false);
    }

    /// The new pairs of moved body `k` (see [`touching_moved`](Self::touching_moved)), onto
    /// `found`.
    fn search_moved(
        &self,
        search: &MovedSearch,
        (partition, escapees): (&Partition, &Escapees),
        k: usize,
        found: &mut SlotPairs,
    ) {
        let a = &search.pieces[k];
        if !Aabb::new(a.center, a.half).is_valid() {
            return;
        }
        let grown = a.half + 4.0 * pair_skin(search.touch, a.center.abs() + a.half, a.center);
        let (min, max) = (a.center - grown, a.center + grown);
        let range = partition.cell_range(min, max);
        let escaped = escapees.escaped[k];
        let residents = &escapees.residents;
        let slot = |entity: Entity| self.now.slot(entity);
        // The residents of a cell are sorted from the left (see `Residents::file`): those whose
        // left edge is further left of the search box than the widest resident is wide ended
        // before it, and those whose left edge is past it began beyond it (rounding included,
        // at the largest coordinate either bound spans).
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
            if escaped {
                for j in escapees.others(partition, slot, c) {
                    if touching(search, self, (k, a), j) {
                        found.push((k as u32, j as u32));
                    }
                }
            }
        });
        if !escaped {
            for &j in self.near.of(k) {
                let j = j as usize;
                if escapees.tests_near(k, j) && touching(search, self, (k, a), j) {
                    found.push((k as u32, j as u32));
                }
            }
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

/// A search runs on the crew's threads when it reads at least this many moved bodies.
const SEARCH_IN_PARALLEL: usize = 256;

/// The bodies the response moved are sorted out on the crew's threads from this many slots.
const SORT_IN_PARALLEL: usize = 8192;

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

/// The pairs of bodies apart by at most twice the reach ([`near_reach`]) along both axes where
/// pair detection saw them, each listed from both ends, found by the pair loop beside the
/// pairs touching. While two bodies are each no further than most of the reach from
/// where detection saw them, they can only touch if they are in each other's list; a body
/// further away, or one whose pairs detection did not all search (a resting body's), is an
/// escapee ([`Escapees`]), searched where it is.
#[derive(Default)]
pub(crate) struct NearLists {
    /// The reach the lists were built with (0: none built).
    reach: f32,
    /// Slot `k`'s list is `others[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    others: Vec<u32>,
    /// Where the next of each slot's goes, while they are filled.
    next: Vec<u32>,
    /// By slot: every pair of the body was searched (its list has every body near it).
    complete: Vec<bool>,
}

impl NearLists {
    /// The lists of `slots` slots, from the pairs each piece of the pair loop found (`pieces`),
    /// with `searched(k)` saying whether slot `k`'s pairs were all searched; none when `reach`
    /// is 0.
    pub(crate) fn build<'a>(
        &mut self,
        slots: usize,
        reach: f32,
        pieces: impl Iterator<Item = &'a [(u32, u32)]> + Clone,
        searched: impl Fn(usize) -> bool,
    ) {
        self.reach = reach;
        self.starts.clear();
        self.others.clear();
        self.complete.clear();
        if reach <= 0.0 {
            return;
        }
        self.starts.resize(slots + 1, 0);
        for &(a, b) in pieces.clone().flatten() {
            self.starts[a as usize + 1] += 1;
            self.starts[b as usize + 1] += 1;
        }
        for k in 0..slots {
            self.starts[k + 1] += self.starts[k];
        }
        self.others.resize(self.starts[slots] as usize, 0);
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..slots]);
        for &(a, b) in pieces.flatten() {
            for (me, other) in [(a, b), (b, a)] {
                let at = &mut self.next[me as usize];
                self.others[*at as usize] = other;
                *at += 1;
            }
        }
        self.complete.extend((0..slots).map(searched));
    }

    /// Slot `k`'s list.
    #[inline]
    fn of(&self, k: usize) -> &[u32] {
        match self.starts.get(k..k + 2) {
            Some(&[start, end]) => &self.others[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Whether slot `k`'s body, `piece` where it is now and `detected` where detection saw it,
    /// may touch a body outside its list that is no escapee either: its list is incomplete, or
    /// it is further than three quarters of the reach (less its pair tolerance) from where
    /// detection saw it. Two bodies within that of where detection saw them are at least half
    /// the reach short of the lists' bound when they touch: room for the rounding of the tests
    /// at any coordinate or size up to millions of units (where a float step is half a unit).
    fn escapes(&self, k: usize, detected: Vec2, piece: &Piece, touch: f32) -> bool {
        let complete = self.complete.get(k).copied().unwrap_or(false);
        let moved = (piece.center - detected).abs();
        let largest = (piece.center.abs() + piece.half).max_element();
        let limit = 0.75 * self.reach - 2.0 * rounded_tolerance(touch, largest);
        // Written so that a NaN escapes.
        !(complete && moved.x <= limit && moved.y <= limit)
    }
}

/// The bodies relaxation's searches read where they are, not from their near lists
/// ([`NearLists::escapes`]): once one, one until the step ends. Filed in [`Residents`] at
/// each search, where they are then.
#[derive(Default)]
pub(crate) struct Escapees {
    /// By slot.
    escaped: Vec<bool>,
    /// The escapees, each once.
    list: Vec<u32>,
    /// The escapees by cell, where they were at the last filing.
    residents: Residents,
    /// By slot: among the bodies the search under way reads (false between searches).
    searching: Vec<bool>,
}

impl Escapees {
    /// No escapee among `slots` slots.
    fn clear(&mut self, slots: usize) {
        self.escaped.clear();
        self.escaped.resize(slots, false);
        self.searching.clear();
        self.searching.resize(slots, false);
        self.list.clear();
    }

    /// Makes each body of `moved` that escapes ([`NearLists::escapes`]) an escapee.
    fn join(
        &mut self,
        layout: &ContactLayout,
        pieces: &[Piece],
        moved: impl Iterator<Item = u32>,
        touch: f32,
    ) {
        for k in moved {
            if !self.escaped[k as usize] && Self::escapes(layout, pieces, k as usize, touch) {
                self.add(k);
            }
        }
    }

    /// Whether slot `k`'s body, where `pieces` has it, is away from its near list
    /// ([`NearLists::escapes`]).
    #[inline]
    fn escapes(layout: &ContactLayout, pieces: &[Piece], k: usize, touch: f32) -> bool {
        let detected = layout.snaps[k].center;
        layout.near.escapes(k, detected, &pieces[k], touch)
    }

    /// Whether body `k` of the search under way, reading its near list, tests body `j` of it:
    /// `j` is no escapee (the escapees are searched where they are), and a pair of two bodies
    /// of the search is tested once, from its lower slot (the lists are symmetric, and so is
    /// the test).
    #[inline]
    fn tests_near(&self, k: usize, j: usize) -> bool {
        let tested_from_j = self.searching[j] && j < k;
        !self.escaped[j] && !tested_from_j
    }

    /// Begins (`true`) or ends a search of the bodies `moved` (see `searching`).
    fn mark_searching(&mut self, moved: &[u32], on: bool) {
        for &k in moved {
            self.searching[k as usize] = on;
        }
    }

    /// Makes slot `k`'s body an escapee (it is none yet).
    fn add(&mut self, k: u32) {
        self.escaped[k as usize] = true;
        self.list.push(k);
    }

    /// Files the escapees where `pieces` has them.
    fn file(&mut self, partition: &Partition, pieces: &[Piece], touch: f32) {
        self.residents.file(partition, pieces, &self.list, touch);
    }

    /// The slots of the bodies of the cell with flat index `flat` that are no escapees: from
    /// the partition (`slot` says an entity's slot).
    #[inline]
    fn others<'a>(
        &'a self,
        partition: &'a Partition,
        slot: impl Fn(Entity) -> Option<usize> + 'a,
        flat: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let entities = partition.cell_at_flat(flat);
        (entities.iter().filter_map(move |&entity| slot(entity))).filter(|&j| !self.escaped[j])
    }
}

/// Bodies filed in the partition's grid by their boxes where they are (grown by the contact
/// tolerance, [`Partition::filed_box`], so two touching share a cell), by a counting sort over
/// the cells, each cell's residents then sorted by the left edges of their boxes, then by slot.
#[derive(Default)]
pub(crate) struct Residents {
    /// Cell `c`'s residents are `residents[starts[c]..starts[c + 1]]` (after filing).
    starts: Vec<u32>,
    residents: Vec<Resident>,
    /// The cells each filed body covers ([`UNFILED`]: none, an invalid box).
    ranges: Vec<CellRange>,
    /// By cell: how many bodies it holds, then where the next one goes (counting sort).
    counts: Vec<u32>,
    /// The slots filed, in the cells' order (each cell's by slot before sorting).
    placed: Vec<u32>,
    /// The cells holding a body, in the grid's order.
    occupied: Vec<u32>,
    /// The grid's width in cells.
    width: u32,
    /// No body filed in a cell (an invalid box is filed nowhere) has a larger half width.
    widest: f32,
}

/// The cell range of a body filed nowhere (an invalid box).
const UNFILED: CellRange = (UVec2::ONE, UVec2::ZERO);

/// A body of a cell: its slot and its box.
#[derive(Clone, Copy)]
struct Resident {
    slot: u32,
    center: Vec2,
    half: Vec2,
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
    /// Files the slots `list` of `pieces` in `partition`'s grid, where `pieces` has them; an
    /// invalid box is filed nowhere.
    fn file(&mut self, partition: &Partition, pieces: &[Piece], list: &[u32], touch: f32) {
        let dims = partition.dims();
        let cells = (dims.x * dims.y) as usize;
        let width = dims.x;
        self.width = width;
        // 1. The cells of each body filed.
        self.ranges.clear();
        self.ranges.extend(list.iter().map(|&k| {
            let piece = &pieces[k as usize];
            let aabb = Aabb::new(piece.center, piece.half);
            Partition::filed_box(&aabb, touch)
                .map_or(UNFILED, |(min, max)| partition.cell_range(min, max))
        }));
        // 2. How many bodies each cell holds, then where each cell's residents start; the
        //    counts become the places of the next ones.
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
        for (&k, &range) in list.iter().zip(&self.ranges) {
            if range != UNFILED {
                self.widest = self.widest.max(pieces[k as usize].half.x);
                for_each_cell(range, width, |c| {
                    self.placed[self.counts[c] as usize] = k;
                    self.counts[c] += 1;
                });
            }
        }
        // 3. Each occupied cell's residents, from the left (then by slot).
        self.residents.clear();
        self.residents.extend(self.placed.iter().map(|&k| {
            let Piece { center, half, .. } = pieces[k as usize];
            Resident {
                slot: k,
                center,
                half,
            }
        }));
        self.occupied.clear();
        for c in 0..cells {
            let (start, end) = (self.starts[c] as usize, self.starts[c + 1] as usize);
            if start == end {
                continue;
            }
            self.occupied.push(c as u32);
            self.residents[start..end]
                .sort_unstable_by(|a, b| a.left().total_cmp(&b.left()).then(a.slot.cmp(&b.slot)));
        }
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
/// be in one. Each moved body that is no escapee ([`NearLists::escapes`]) is tested against
/// the bodies of its near list that are no escapees either (a pair of two such moved bodies
/// from one end); the escapees are searched cell by
/// cell (two bodies touching share a cell), in the cells holding one: the cell's escapees
/// ([`Residents`]) are swept from the left, each tested against those after it whose left
/// edges are within its right edge (plus a bound on any pair's tolerance), then each other
/// body of the partition's list against the cell's escapees. A test screens with a bound on
/// any pair's tolerance, then uses the pair's own. Each pair is listed once from both ends, in
/// slot order, as the reference step lists them: the order in which relaxation settles a
/// body's pairs is part of its outcome.
#[derive(Default)]
pub(crate) struct MadePairs {
    /// What each piece of the search found: (slot, partner slot).
    pieces: Vec<Vec<(u32, u32)>>,
    /// The bodies the response moved that are no escapees.
    listed: Vec<u32>,
    /// The bodies the response moved in each piece of the slots: those that are no escapees,
    /// and the escapees.
    moved: Vec<(Vec<u32>, Vec<u32>)>,
    /// Every pair from both ends, sorted.
    pairs: Vec<(u32, u32)>,
    /// Slot `k`'s partners are `pairs[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
}

impl MadePairs {
    /// Finds the pairs of this step (see the type), among `pieces` (where the response left
    /// every slot), starting the step's `escapees` from the bodies the response moved.
    pub(crate) fn find(
        &mut self,
        layout: &ContactLayout,
        (partition, pieces): (&Partition, &[Piece]),
        (touch, threads): (f32, Threads),
        escapees: &mut Escapees,
    ) {
        // The bodies the response moved, sorted out in pieces of the slots (at once on the
        // crew's threads when they are many), then put together in slot order.
        escapees.clear(pieces.len());
        let n = pieces.len();
        self.moved.resize_with(CHUNKS, Default::default);
        let many = threads.filter(|_| n >= SORT_IN_PARALLEL);
        for_each_chunk(&mut self.moved, many, |i, (listed, away)| {
            listed.clear();
            away.clear();
            for k in chunk_range(i, CHUNKS, n) {
                // A quiet body is where detection saw it (see `pieces_into`), so only the
                // others' snapshots are read. A NaN centre is away too.
                let piece = &pieces[k];
                let seen = || layout.snaps[k].center;
                // Checked in the crate's tests only: a game's debug build is not stopped here.
                #[cfg(test)]
                assert!(!piece.quiet || piece.center == seen(), "quiet, yet moved");
                if !piece.quiet && piece.center != seen() {
                    match Escapees::escapes(layout, pieces, k, touch) {
                        true => away.push(k as u32),
                        false => listed.push(k as u32),
                    }
                }
            }
        });
        self.listed.clear();
        for (listed, away) in &self.moved {
            self.listed.extend_from_slice(listed);
            for &k in away {
                escapees.add(k);
            }
        }
        escapees.file(partition, pieces, touch);
        escapees.mark_searching(&self.listed, true);
        let filed = &*escapees;
        let residents = &filed.residents;
        let to_search = &residents.occupied;
        let listed = &self.listed;
        let slot = |entity: Entity| layout.now.slot(entity);
        self.pieces.resize_with(CHUNKS, Vec::new);
        let threads = threads.filter(|_| listed.len() + filed.list.len() >= SEARCH_IN_PARALLEL);
        for_each_chunk(&mut self.pieces, threads, |i, found| {
            found.clear();
            for &flat in &to_search[chunk_range(i, CHUNKS, to_search.len())] {
                let flat = flat as usize;
                let cell = residents.of_cell(flat);
                // Each pair with an escapee once, sweeping the residents from the left: each
                // with those after it whose left edge is within its right edge (and more than
                // any pair's tolerance), then each of the partition's other bodies (looked up
                // once) with the cell's escapees.
                let beyond = tolerance_bound(cell, touch);
                for (at, a) in cell.iter().enumerate() {
                    let right = a.center.x + a.half.x + beyond;
                    for b in &cell[at + 1..] {
                        if b.left() > right {
                            break;
                        }
                        let j = b.slot as usize;
                        found.extend(made_pair(layout, a, (j, b.center, b.half), touch));
                    }
                }
                for j in filed.others(partition, slot, flat) {
                    let (center, half) = (pieces[j].center, pieces[j].half);
                    for a in cell {
                        found.extend(made_pair(layout, a, (j, center, half), touch));
                    }
                }
            }
            for &k in &listed[chunk_range(i, CHUNKS, listed.len())] {
                let Piece { center, half, .. } = pieces[k as usize];
                let a = Resident {
                    slot: k,
                    center,
                    half,
                };
                for &j in layout.near.of(k as usize) {
                    let j = j as usize;
                    if filed.tests_near(k as usize, j) {
                        let (center, half) = (pieces[j].center, pieces[j].half);
                        found.extend(made_pair(layout, &a, (j, center, half), touch));
                    }
                }
            }
        });
        escapees.mark_searching(&self.listed, false);
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
    fn the_bodies_filed_are_in_the_cells_their_grown_box_covers_from_the_left() {
        let mut partition = Partition::default();
        // Cells of 64 units, 4 across and 2 up.
        partition.fit(&TileMap::new(16, 8, 16.0), 4, 0.0);
        let mut pieces = vec![
            piece(32.0, 32.0, 10),
            piece(64.0, 32.0, 20),
            piece(200.0, 100.0, 30),
            // Its right side 0.0005 short of the cells' border at x = 64.
            piece(59.9995, 100.0, 40),
            piece(f32::NAN, 0.0, 50),
            piece(40.0, 36.0, 60),
            piece(36.0, 20.0, 70),
        ];
        // Invalid too, and the widest: not counted among the filed bodies' widths.
        pieces[4].half.x = f32::INFINITY;
        let mut residents = Residents::default();
        // Slot 1 is not filed: it is read from the partition.
        residents.file(&partition, &pieces, &[0, 2, 3, 4, 5, 6], 1e-3);
        assert_eq!(slots_in(&residents, 0), [0, 6, 5], "from the left");
        assert_eq!(slots_in(&residents, 1), [] as [u32; 0]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [3]);
        assert_eq!(slots_in(&residents, 7), [2]);
        assert_eq!(
            residents.residents.len(),
            6,
            "the invalid box is filed nowhere"
        );
        assert_eq!(residents.widest, 4.0, "the widest body filed in a cell");
        assert_eq!(residents.occupied, [0, 4, 5, 7]);

        // Filed again where they are now: the first moved into the third cell, and the fourth,
        // with a tolerance smaller than its distance to the border, no longer reaches the cell
        // beyond it.
        pieces[0].center.x = 160.0;
        residents.file(&partition, &pieces, &[0, 3], 1e-4);
        assert_eq!(slots_in(&residents, 0), [] as [u32; 0]);
        assert_eq!(slots_in(&residents, 2), [0]);
        assert_eq!(slots_in(&residents, 4), [3]);
        assert_eq!(slots_in(&residents, 5), [] as [u32; 0]);
        assert_eq!(residents.occupied, [2, 4]);
    }

    #[test]
    fn near_lists_hold_each_pair_from_both_ends_and_only_when_relaxing() {
        let mut near = NearLists::default();
        let pieces: [&[(u32, u32)]; 2] = [&[(0, 2), (3, 1)], &[(2, 3)]];
        near.build(5, 4.0, pieces.iter().copied(), |k| k != 3);
        assert_eq!(near.of(0), [2]);
        assert_eq!(near.of(1), [3]);
        assert_eq!(near.of(2), [0, 3]);
        assert_eq!(near.of(3), [1, 2]);
        assert_eq!(near.of(4), [] as [u32; 0]);
        assert_eq!(near.complete, [true, true, true, false, true]);
        // Without relaxation's reach, none: every moved body escapes.
        near.build(5, 0.0, pieces.iter().copied(), |_| true);
        assert_eq!(near.of(2), [] as [u32; 0]);
        assert!(near.escapes(0, Vec2::ZERO, &piece(0.5, 0.0, 1), 1e-3));
    }

    #[test]
    fn a_body_escapes_its_near_list_once_it_moved_most_of_the_reach_or_the_list_is_incomplete() {
        let mut near = NearLists::default();
        let pieces: [&[(u32, u32)]; 0] = [];
        near.build(2, 4.0, pieces.iter().copied(), |k| k == 0);
        let seen = Vec2::new(100.0, 50.0);
        let at = |dx: f32, dy: f32| piece(seen.x + dx, seen.y + dy, 1);
        assert!(!near.escapes(0, seen, &at(0.0, 0.0), 1e-3));
        assert!(!near.escapes(0, seen, &at(2.9, -2.9), 1e-3));
        assert!(
            near.escapes(0, seen, &at(3.0, 0.0), 1e-3),
            "half the reach kept for rounding"
        );
        assert!(near.escapes(0, seen, &at(0.0, -3.5), 1e-3));
        assert!(near.escapes(0, seen, &at(f32::NAN, 0.0), 1e-3));
        assert!(
            near.escapes(1, seen, &at(0.0, 0.0), 1e-3),
            "its pairs were not all searched"
        );
        assert!(
            near.escapes(7, seen, &at(0.0, 0.0), 1e-3),
            "a slot it has no list for"
        );
    }
}
