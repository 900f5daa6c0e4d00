//! Steps 1 to 3 and 5 of pair detection (see [`crate::pairs`] for the algorithm): the
//! snapshot, the pair loop over the partition's cells (cut into fixed pieces for the workers, with
//! the cell cache, the SIMD screen, prefetching and the resting bodies left out; with relaxation
//! on, it also lists the pairs near each other, [`NearLists`](crate::pairs::near::NearLists)),
//! the per-body layout, and the copy into each body's [`Contacts`].

use bevy::ecs::change_detection::MaybeLocation;
use bevy::ecs::entity::Entities;
use bevy::prelude::*;
use bevy::utils::Parallel;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use crate::config::PhysicsConfig;
use crate::contacts::Contacts;
use crate::fast::parallel::{CHUNKS, chunk_range, for_each_chunk};
use crate::fast::rows::prefetch;
use crate::fast::rows::{Column, DENSE, count_rows, for_each_piece, stamp_writes, unpack};
use crate::fast::workers::Workers;
use crate::geometry::{signed_overlap_within, within_reach};
use crate::one_way::one_way_contact;
use crate::pairs::cell_cache::{CellBody, CellCache};
use crate::pairs::contact_lists::{
    ContactLists, Ends, KeptContacts, LastContacts, SPLITS, file_end, lay_out,
};
use crate::pairs::store::{BodyRecord, ContactStore, DetectionQuery, slot_record};
use crate::partition::Partition;
use crate::rest_skipping::memory::{ACTIVE, AWAKE};

#[derive(Default)]
struct PieceOut {
    /// Each pair found, once per body, filed by slot range ([`file_end`]).
    ends: Ends,
    tested: usize,
    /// By slot range, the last step's contacts that this piece's share of the awake bodies
    /// takes out of the layout: theirs, and the other ends of theirs.
    gone: [usize; SPLITS],
    /// The bodies of this piece's cells, as last read (by cell, from the piece's first).
    cells: Vec<CellCache>,
    /// The pairs this piece found apart but within relaxation's near reach (see
    /// [`NearLists`](crate::pairs::near::NearLists)).
    near: Vec<(u32, u32)>,
}

/// Buffers kept between steps, so detection allocates nothing once the scene has settled.
#[derive(Default)]
pub(crate) struct DetectScratch {
    pieces: Vec<PieceOut>,
    /// The cells holding a body whose pairs are all searched this step.
    searched: Vec<AtomicBool>,
    /// The awake bodies' slots, listed by the snapshot.
    listed: Parallel<Vec<u32>>,
    awake: Vec<u32>,
    /// The layout's lists of slots to sort, one per thread.
    sorting: Parallel<Vec<u32>>,
    /// The grid the pieces' cells were read in (its size in cells and a cell's size).
    grid: (UVec2, f32),
}

/// What steps 1 to 3 found.
pub(crate) struct Found {
    /// The snapshot's slots.
    pub(crate) slots: usize,
    /// Bodies in the partition, and of those, the awake ones.
    pub(crate) detected: usize,
    pub(crate) awake: usize,
    /// Pairs tested and found.
    pub(crate) tested: usize,
    pub(crate) pairs: usize,
    /// Whether the resting bodies kept their contacts with each other from the last step.
    carry: bool,
}

impl Found {
    /// Whether slot `k` kept all its contacts from the last step (so its partners are the
    /// same, and it reports no change).
    pub(crate) fn keeps_all(&self, layout: &ContactStore, k: usize) -> bool {
        self.carry && k < self.slots && layout.modes[k].load(Relaxed) & (AWAKE | ACTIVE) == 0
    }

    /// Whether every body kept its slot and the resting ones their contacts.
    pub(crate) fn same_slots(&self) -> bool {
        self.carry
    }
}

/// Steps 1 to 3 of pair detection: the snapshot of every body, the pairs of each searched
/// cell, and each body's contacts laid out in `layout.now` (the last step's in `layout.last`).
/// With `skip_resting` ([`RestSkipping`](crate::RestSkipping) on), only the awake bodies'
/// pairs are searched while the other bodies keep theirs; without it, every body's.
pub(crate) fn find_pairs(
    (config, workers): (&PhysicsConfig, &Workers),
    (partition, skip_resting): (&Partition, bool),
    (bodies, entities): (&DetectionQuery, &Entities),
    (scratch, layout): (&mut DetectScratch, &mut ContactStore),
) -> Found {
    let (s, l) = (scratch, layout);
    // The last detection's partners become the previous step's.
    core::mem::swap(&mut l.now, &mut l.last);
    // 1. Snapshot (see `ContactStore::take_snapshot`), which marks the awake bodies and the
    //    cells to search.
    let dims = partition.dims();
    let cell_count = (dims.x * dims.y) as usize;
    s.searched.clear();
    s.searched
        .resize_with(cell_count, || AtomicBool::new(false));
    let snapshot = l.take_snapshot(
        (bodies, entities),
        config.contact_tolerance,
        (workers, config.parallel_min_bodies),
        (&s.searched, dims.x as usize),
        skip_resting.then_some(&s.listed),
    );
    s.awake.clear();
    s.listed.drain_into(&mut s.awake);
    let (n, shift) = (snapshot.slots, snapshot.shift);
    let threads = workers.threads(n >= config.parallel_min_bodies);

    // Whose pairs are all searched: the awake bodies' (in their cells), when the other bodies
    // can keep their contacts with each other from the last step (every body kept its slot,
    // and no body went away since); otherwise every body's, in every cell.
    let carry = skip_resting && snapshot.kept && !l.last.forgotten && l.last.starts.len() == n + 1;
    let searcher = if carry {
        AWAKE
    } else {
        s.searched.iter_mut().for_each(|c| *c.get_mut() = true);
        l.modes.iter_mut().for_each(|m| *m.get_mut() |= ACTIVE);
        ACTIVE
    };

    // 2. Pairs, piece by piece of the cell list. What was read of each cell at the last step
    //    it was searched in is reused (see `crate::pairs::cell_cache`) while the resting bodies keep
    //    their contacts, in the same grid.
    s.pieces.resize_with(CHUNKS, PieceOut::default);
    let grid = (dims, partition.cell_size());
    if core::mem::replace(&mut s.grid, grid) != grid {
        s.pieces.iter_mut().for_each(|piece| piece.cells.clear());
    }
    let reuse = carry;
    let reach = partition.reach();
    {
        let (records, now, modes) = (&l.records, &l.now, &l.modes);
        let (searched, awake, last) = (&s.searched, &s.awake, &l.last);
        for_each_chunk(&mut s.pieces, threads, |i, out| {
            out.ends.iter_mut().for_each(Vec::clear);
            out.near.clear();
            out.tested = 0;
            out.gone = [0; SPLITS];
            // Each awake body's contacts at the last step go away (they are found again), and
            // so do their other ends; its resting partners then respond (`ACTIVE`).
            if carry {
                for &a in &awake[chunk_range(i, CHUNKS, awake.len())] {
                    let links = last.links_of(a as usize);
                    out.gone[a as usize >> shift] += links.len();
                    for link in links {
                        let other = &modes[link.other as usize];
                        if other.load(Relaxed) & AWAKE == 0 {
                            out.gone[link.other as usize >> shift] += 1;
                            mark_active(other);
                        }
                    }
                }
            }
            let cells = chunk_range(i, CHUNKS, cell_count);
            out.cells.resize_with(cells.len(), CellCache::default);
            // The cell's coordinates, stepped along with its flat index (no division per cell).
            let start = cells.start as u32;
            let mut cell = UVec2::new(start % dims.x.max(1), start / dims.x.max(1));
            for (flat, cell_cache) in cells.zip(&mut out.cells) {
                if searched[flat].load(Relaxed) {
                    // The cells searched next start loading early.
                    let ahead = |k: usize| searched.get(flat + k).is_some_and(|c| c.load(Relaxed));
                    if ahead(READ_AHEAD) {
                        prefetch_cell(partition, flat + READ_AHEAD);
                    }
                    if !reuse && ahead(1) {
                        prefetch_snaps(partition.cell_at_flat(flat + 1), records, now);
                    }
                    let list = partition.cell_at_flat(flat);
                    let read = (&records[..], now, &modes[..]);
                    cell_cache.read((list, cell), searcher, reuse, read);
                    let found = (&mut out.ends, &mut out.tested);
                    let rule = (&records[..], config.one_way_tolerance);
                    let near = (reach, &mut out.near);
                    find_pairs_in_cell(cell_cache, (shift, rule), modes, found, near);
                }
                cell.x += 1;
                if cell.x == dims.x {
                    cell = UVec2::new(0, cell.y + 1);
                }
            }
        });
    }

    // 3. Per-body layout: what resting bodies keep of their contacts (see `KeptContacts`).
    let tested = s.pieces.iter().map(|piece| piece.tested).sum();
    let modes = &l.modes;
    let mode = |k: usize| modes[k].load(Relaxed);
    let last = &l.last;
    // What each slot range keeps: its contacts at the last step but the awake slots' and the
    // other ends of theirs (contacts are symmetric: each pair is laid out for both bodies).
    let mut counts = [0; SPLITS];
    if carry {
        for (range, count) in counts.iter_mut().enumerate() {
            let start = |range: usize| last.starts[(range << shift).min(n)] as usize;
            let gone = s
                .pieces
                .iter()
                .map(|piece| piece.gone[range])
                .sum::<usize>();
            *count = start(range + 1) - start(range) - gone;
        }
    }
    let carried = LastContacts {
        last,
        counts,
        slot: |k: usize| match mode(k) {
            _ if !carry => KeptContacts::None,
            m if m & AWAKE != 0 => KeptContacts::None,
            m if m & ACTIVE != 0 => KeptContacts::Settled,
            _ => KeptContacts::All,
        },
        partner: |other: u32| mode(other as usize) & AWAKE == 0,
    };
    let found = lay_out(
        &s.pieces,
        |piece| &piece.ends,
        n,
        shift,
        threads,
        &carried,
        (&mut l.now, &s.sorting),
    ) / 2;
    // The near lists, when relaxation reads them: the pairs found, and the last step's of two
    // bodies whose pairs were not searched.
    let searched = |k: usize| l.modes[k].load(Relaxed) & searcher != 0;
    let pieces = s.pieces.iter().map(|piece| &piece.near[..]);
    l.near.build(n, reach, pieces, searched);
    Found {
        slots: n,
        detected: snapshot.detected,
        awake: snapshot.awake,
        tested,
        pairs: found,
        carry,
    }
}

/// Step 5 of pair detection: each body's [`Contacts`] from its slice of the layout (written
/// only when it had some or has some), read as table slices on the workers for large scenes.
#[track_caller]
pub(crate) fn fill_contacts(
    contacts: &mut Query<(Entity, &mut Contacts)>,
    layout: &ContactStore,
    (config, workers): (&PhysicsConfig, &Workers),
) {
    let (total, parallel) = count_rows(contacts, config.parallel_min_bodies);
    for (entities, lists) in contacts.contiguous_iter_mut().expect(DENSE) {
        let mut lists = unpack(lists);
        let rows = (entities, Column::new(&mut lists));
        for_each_piece(
            rows,
            entities.len(),
            total,
            workers.threads(parallel),
            |(entities, mut lists)| {
                for (&entity, mut contacts) in entities.iter().zip(lists.iter()) {
                    let mine = layout.of(entity);
                    if !contacts.0.is_empty() || mine.len() != 0 {
                        contacts.0.clear();
                        contacts.0.extend(mine);
                    }
                }
            },
        );
        stamp_writes(&mut lists, MaybeLocation::caller());
    }
}

/// How many cells ahead of the one being searched the pair loop starts reading.
const READ_AHEAD: usize = 2;

/// Asks the processor to start loading the list of the cell with flat index `flat` (if any).
/// Each cell's list is its own heap block, so the first read of a list is usually a cache
/// miss; started a few cells early, it overlaps the pair tests of the cells in between instead
/// of stalling the loop. A prefetch, which the loop does not wait for, helps more than a plain
/// read in its place (see `BENCHMARKS.md`).
#[inline]
fn prefetch_cell(partition: &Partition, flat: usize) {
    if let Some(first) = partition.cell_at_flat(flat).first() {
        prefetch(first);
    }
}

/// Asks the processor to start loading the snapshots of the bodies in `list` (a cell searched
/// soon), so the gather does not wait for them.
#[inline]
fn prefetch_snaps(list: &[Entity], records: &[BodyRecord], now: &ContactLists) {
    for &e in list {
        // A stale slot costs only a wasted hint.
        if let Some((_, snap)) = slot_record(e, records, now) {
            prefetch(snap);
        }
    }
}

/// Tests the pairs of one cell's bodies (`cell_cache`, read this step) that have a body whose
/// pairs are all searched, keeping the pairs this cell owns (`found`: their ends,
/// filed with `shift`, and the count of pairs tested); a resting body found touching an awake
/// one is marked [`ACTIVE`].
#[inline]
fn find_pairs_in_cell(
    cell_cache: &CellCache,
    filing: (u32, OneWayRule),
    modes: &[AtomicU8],
    found: (&mut Ends, &mut usize),
    near: (f32, &mut Vec<(u32, u32)>),
) {
    // Bodies that all share layers that collide with themselves (the usual case: the default
    // layers) need no layer test per pair.
    if cell_cache.layers.is_some_and(|l| l.interacts_with(l)) {
        test_cell_pairs::<false>(cell_cache, filing, modes, found, near);
    } else {
        test_cell_pairs::<true>(cell_cache, filing, modes, found, near);
    }
}

/// What the pair loop reads to apply the one-way rule (`crate::one_way`) to a pair with a
/// one-way platform: every slot's snapshot, and
/// [`PhysicsConfig::one_way_tolerance`](crate::PhysicsConfig::one_way_tolerance).
type OneWayRule<'a> = (&'a [BodyRecord], f32);

/// The pair loop of [`find_pairs_in_cell`]: each searching body of `cell_cache` against the
/// bodies whose pair with it is its to test (the later ones, and the earlier ones that do not
/// search), screened with the cell's widest tolerance (at least the pair's own: see
/// `crate::pairs::screen`), testing layers only when `LAYERS` is set. The pairs that pass are
/// confirmed with the pair's own tolerance ([`signed_overlap_within`]) and, when one of them
/// is a one-way platform, the one-way rule. Both ends of each pair found are filed; a resting body found touching an awake one is marked [`ACTIVE`] (it
/// responds this step).
#[inline]
fn test_cell_pairs<const LAYERS: bool>(
    CellCache {
        near,
        boxes,
        widest,
        ..
    }: &CellCache,
    (shift, (records, one_way_tolerance)): (u32, OneWayRule),
    modes: &[AtomicU8],
    (ends, tested): (&mut Ends, &mut usize),
    (reach, near_pairs): (f32, &mut Vec<(u32, u32)>),
) {
    let searching = boxes.searching();
    // With relaxation's near lists, the screen lets through the pairs within their reach too.
    let screened = *widest + 2.0 * reach;
    for (word, &bits) in searching.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let i = word * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let a = &near[i];
            boxes.screen(
                i,
                (a.center, a.half, a.corner),
                screened,
                |start, mut owned, overlapping| {
                    let block = &near[start..];
                    // Pairs whose layers do not match are never tested.
                    if LAYERS {
                        owned &= (block.iter().take(64).enumerate()).fold(0, |m, (k, b)| {
                            m | u64::from(a.layers.interacts_with(b.layers)) << k
                        });
                    }
                    *tested += owned.count_ones() as usize;
                    let mut touching = owned & overlapping;
                    while touching != 0 {
                        let b = &block[touching.trailing_zeros() as usize];
                        touching &= touching - 1;
                        // Touching within the pair's contact tolerance counts: a body put back on
                        // another can end a rounding error away from it.
                        let skin = a.skin.max(b.skin);
                        let Some(overlap) = pair_overlap(a, b, skin) else {
                            if reach > 0.0
                                && !(a.one_way || b.one_way)
                                && within_reach((a.center, a.half), (b.center, b.half), reach)
                            {
                                near_pairs.push((a.slot, b.slot));
                            }
                            continue;
                        };
                        if (a.one_way || b.one_way)
                            && !one_way_contact(
                                &records[a.slot as usize].passing(),
                                &records[b.slot as usize].passing(),
                                one_way_tolerance,
                            )
                        {
                            continue;
                        }
                        file_end(ends, shift, a.slot, b.slot, overlap);
                        file_end(ends, shift, b.slot, a.slot, -overlap);
                        // A resting body touching a searching one responds (every other body is
                        // `ACTIVE` already).
                        mark_active(&modes[b.slot as usize]);
                    }
                },
            );
        }
    }
}

/// Marks a resting body's slot (whose mode is nothing else) [`ACTIVE`] during the pair loop;
/// leaves any other slot as it is.
/// A store, not a read-modify-write: the pieces on other threads only ever store the same
/// value into such a slot, and a read-modify-write would wait for every load before it.
#[inline]
fn mark_active(mode: &AtomicU8) {
    if mode.load(Relaxed) == 0 {
        mode.store(ACTIVE, Relaxed);
    }
}

/// The overlap of `a` with `b`, from `a`'s side, worked out from the body in the lower slot's
/// side whichever is `a`, so a pair's overlap does not depend on which of them was met first.
#[inline]
fn pair_overlap(a: &CellBody, b: &CellBody, skin: f32) -> Option<Vec2> {
    if a.slot < b.slot {
        signed_overlap_within(a.center, a.half, b.center, b.half, skin)
    } else {
        signed_overlap_within(b.center, b.half, a.center, a.half, skin).map(|o| -o)
    }
}
