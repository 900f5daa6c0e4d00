//! Pair detection (article 000): every overlapping or touching pair of bodies, found once per
//! step through the partition, laid out for both bodies (and copied into their `Contacts`).
//!
//! # Algorithm
//!
//! 1. **Snapshot.** Every partitioned body's box, velocity, old position and first cell are
//!    copied into a dense array, so the pair loop reads contiguous memory. A body's slot is its
//!    row, table after table in the order the world made the tables (read in pieces on several
//!    threads); a body outside the partition leaves its slot empty (`src/fast/snapshot.rs`).
//! 2. **Pairs.** For each cell, row by row, each pair `i < j` of its list whose
//!    [`CollisionLayers`] match is tested with the
//!    signed overlap of article 000 (touching counts, within
//!    [`PhysicsConfig::contact_tolerance`]: a body put back on top of another can end a
//!    rounding error above it, and still stands on it), after a screen that compares four
//!    bodies' boxes at a time (`src/fast/screen.rs`). A pair sharing several cells is kept only
//!    in the *first* cell both cover (the bottom-left corner of the intersection of their cell
//!    ranges), which is O(1) and needs no scan of earlier contacts. The cells are cut into a
//!    fixed number of pieces that run on several threads above
//!    [`PhysicsConfig::parallel_min_bodies`]; the pieces are joined in cell order, so the result
//!    is the same on any number of threads.
//!    Resting bodies (see `src/fast/rest.rs`) are left out: only the pairs with an awake body are
//!    tested, in the awake bodies' cells. Two bodies that are not awake had the same boxes at
//!    the last step, so their pair is what it was then. What is read of each cell's bodies is
//!    kept from one step to the next, and only the awake bodies' part is read again
//!    (`src/fast/gathered.rs`).
//! 3. **Layout.** The pairs are counted per body and laid out per body in partner-slot order
//!    (a counting sort, then each body's few contacts sorted), contiguously in slot order, as
//!    the other body's slot and the overlap (12 bytes per contact); a body that is not awake
//!    keeps its last step's contacts with the other bodies that are not, to which its pairs
//!    with awake bodies found this step are added. It runs in parallel by slot range: the pair
//!    loop files each pair's two ends by the range of each body's slot, so each range reads
//!    only its own (`src/fast/layout.rs`). A [`CollisionData`] is built from that and the two
//!    snapshots when it is read: by the response, and for [`Contacts`].
//! 4. **Events.** Each body's new contacts are compared with its old ones for
//!    [`CollisionStarted`] and [`CollisionEnded`] (touching counts; one side of each pair
//!    reports it).
//! 5. **Contacts.** Each body's contacts are written into its [`Contacts`], for the bodies
//!    that have one (it is opt-in).

use bevy::ecs::change_detection::MaybeLocation;
use bevy::prelude::*;

use crate::collision_events::{Change, report_contact_changes};
use crate::config::PhysicsConfig;
use crate::contacts::CollisionData;
use crate::fast::crew::CrewSlot;
use crate::fast::gathered::{Gathered, Near};
use crate::fast::layout::Partners;
use crate::fast::layout::{Carried, Ends, Kept, SPLITS, file_end, lay_out};
use crate::fast::parallel::{CHUNKS, chunk_range, for_each_chunk};
use crate::fast::rest::{ACTIVE, AWAKE};
use crate::fast::rows::{Column, DENSE, count_rows, for_each_piece, stamp_writes, unpack};
use crate::fast::snapshot::{BodyQuery, ContactLayout, Snap, prefetch, slot_snap};
use crate::geometry::signed_overlap_within;
use crate::layers::{CollisionLayers, LayerMask};
use crate::messages::{CollisionEnded, CollisionStarted};
use crate::partition::Partition;
use crate::schedule::PhysicsSystems;
use bevy::ecs::entity::Entities;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::utils::Parallel;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use crate::contacts::Contacts;

/// Counters of the last step, for tools and the debug panel.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct PhysicsStats {
    /// Bodies in the partition.
    pub bodies: usize,
    /// Of those, the bodies the step processed in full; the others were at rest, left out of
    /// the step (see [`PhysicsConfig::skip_resting_bodies`]). All of them when it is off.
    pub awake_bodies: usize,
    /// Cells holding at least one body.
    pub occupied_cells: usize,
    /// Pairs whose boxes were compared (the pairs of two resting bodies are not: see
    /// [`PhysicsConfig::skip_resting_bodies`]).
    pub pairs_tested: usize,
    /// Pairs found overlapping or touching.
    pub pairs_found: usize,
}

#[derive(Default)]
struct PieceOut {
    /// Each pair found, once per body, filed by slot range ([`file_end`]).
    ends: Ends,
    tested: usize,
    /// By slot range, the last step's contacts that this piece's share of the awake bodies
    /// takes out of the layout: theirs, and the other ends of theirs.
    gone: [usize; SPLITS],
    /// The bodies of this piece's cells, as last read (by cell, from the piece's first).
    cells: Vec<Gathered>,
}

/// Buffers kept between steps, so detection allocates nothing once the scene has settled.
#[derive(Default)]
pub(crate) struct DetectScratch {
    pieces: Vec<PieceOut>,
    changes: Vec<Vec<Change>>,
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

/// Finds every touching or overlapping pair and refills every body's [`Contacts`].
pub(crate) fn detect_pairs(
    (config, crew): (Res<PhysicsConfig>, Res<CrewSlot>),
    partition: Res<Partition>,
    (bodies, entities): (BodyQuery, &Entities),
    mut contacts: Query<(Entity, &mut Contacts)>,
    mut stats: ResMut<PhysicsStats>,
    (mut scratch, mut layout): (Local<DetectScratch>, ResMut<ContactLayout>),
    (mut started, mut ended): (
        MessageWriter<CollisionStarted>,
        MessageWriter<CollisionEnded>,
    ),
) {
    let s = &mut *scratch;
    let l = &mut *layout;
    // The last detection's partners become the previous step's.
    core::mem::swap(&mut l.now, &mut l.last);
    // 1. Snapshot (see `ContactLayout::take_snapshot`), which marks the awake bodies and the
    //    cells to search.
    let partition = &*partition;
    let dims = partition.dims();
    let cell_count = (dims.x * dims.y) as usize;
    s.searched.clear();
    s.searched
        .resize_with(cell_count, || AtomicBool::new(false));
    let snapshot = l.take_snapshot(
        (&bodies, entities),
        config.contact_tolerance,
        (&crew, config.parallel_min_bodies),
        (&s.searched, dims.x as usize),
        config.skip_resting_bodies.then_some(&s.listed),
    );
    s.awake.clear();
    s.listed.drain_into(&mut s.awake);
    let (n, shift) = (snapshot.slots, snapshot.shift);
    let threads = crew.threads(n >= config.parallel_min_bodies);

    // Whose pairs are all searched: the awake bodies' (in their cells), when the other bodies
    // can keep their contacts with each other from the last step (every body kept its slot,
    // and no body went away since); otherwise every body's, in every cell.
    let carry = config.skip_resting_bodies
        && snapshot.kept
        && !l.last.forgotten
        && l.last.starts.len() == n + 1;
    let searcher = if carry {
        AWAKE
    } else {
        s.searched.iter_mut().for_each(|c| *c.get_mut() = true);
        l.modes.iter_mut().for_each(|m| *m.get_mut() |= ACTIVE);
        ACTIVE
    };

    // 2. Pairs, piece by piece of the cell list. What was read of each cell at the last step
    //    it was searched in is reused (see `crate::fast::gathered`) while the resting bodies keep
    //    their contacts, in the same grid.
    s.pieces.resize_with(CHUNKS, PieceOut::default);
    let grid = (dims, partition.cell_size());
    if core::mem::replace(&mut s.grid, grid) != grid {
        s.pieces.iter_mut().for_each(|piece| piece.cells.clear());
    }
    let reuse = carry;
    {
        let (snaps, now, modes) = (&l.snaps, &l.now, &l.modes);
        let (searched, awake, last) = (&s.searched, &s.awake, &l.last);
        for_each_chunk(&mut s.pieces, threads, |i, out| {
            out.ends.iter_mut().for_each(Vec::clear);
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
            out.cells.resize_with(cells.len(), Gathered::default);
            // The cell's coordinates, stepped along with its flat index (no division per cell).
            let start = cells.start as u32;
            let mut cell = UVec2::new(start % dims.x.max(1), start / dims.x.max(1));
            for (flat, gathered) in cells.zip(&mut out.cells) {
                if searched[flat].load(Relaxed) {
                    // The cells searched next start loading early.
                    let ahead = |k: usize| searched.get(flat + k).is_some_and(|c| c.load(Relaxed));
                    if ahead(READ_AHEAD) {
                        prefetch_cell(partition, flat + READ_AHEAD);
                    }
                    if !reuse && ahead(1) {
                        prefetch_snaps(partition.cell_at_flat(flat + 1), snaps, now);
                    }
                    let list = partition.cell_at_flat(flat);
                    let read = (&snaps[..], now, &modes[..]);
                    gathered.read((list, cell), searcher, reuse, read);
                    let found = (&mut out.ends, &mut out.tested);
                    find_pairs_in_cell(gathered, shift, modes, found);
                }
                cell.x += 1;
                if cell.x == dims.x {
                    cell = UVec2::new(0, cell.y + 1);
                }
            }
        });
    }

    // 3. Per-body layout: what resting bodies keep of their contacts (see `Kept`).
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
    let carried = Carried {
        last,
        counts,
        slot: |k: usize| match mode(k) {
            _ if !carry => Kept::None,
            m if m & AWAKE != 0 => Kept::None,
            m if m & ACTIVE != 0 => Kept::Settled,
            _ => Kept::All,
        },
        partner: |other: u32| mode(other as usize) & AWAKE == 0,
    };
    let keeps = |k: usize| k < n && (carried.slot)(k) == Kept::All;
    let found = lay_out(
        &s.pieces,
        |piece| &piece.ends,
        n,
        shift,
        threads,
        &carried,
        (&mut l.now, &s.sorting),
    ) / 2;

    // 4. Collision events, from last step's partners and this step's (both are laid out
    //    whether or not events are written, so turning them on later compares the right steps).
    if config.collision_events {
        report_contact_changes(
            &l.now,
            &l.last,
            |e| bodies.contains(e),
            (keeps, carry),
            threads,
            &mut s.changes,
            &mut started,
            &mut ended,
        );
    }

    // 5. Refill each body's buffer from its slice.
    let l = &*l;
    let (total, parallel) = count_rows(&contacts, config.parallel_min_bodies);
    for (entities, lists) in contacts.contiguous_iter_mut().expect(DENSE) {
        let mut lists = unpack(lists);
        let rows = (entities, Column::new(&mut lists));
        for_each_piece(
            rows,
            entities.len(),
            total,
            crew.threads(parallel),
            |(entities, mut lists)| {
                for (&entity, mut contacts) in entities.iter().zip(lists.iter()) {
                    let mine = l.of(entity);
                    if !contacts.0.is_empty() || mine.len() != 0 {
                        contacts.0.clear();
                        contacts.0.extend(mine);
                    }
                }
            },
        );
        stamp_writes(&mut lists, MaybeLocation::caller());
    }

    *stats = PhysicsStats {
        bodies: snapshot.detected,
        awake_bodies: snapshot.awake,
        occupied_cells: partition.occupied_cells(),
        pairs_tested: tested,
        pairs_found: found,
    };
}

/// How many cells ahead of the one being searched the pair loop starts reading.
const READ_AHEAD: usize = 2;

/// Asks the processor to start loading the list of the cell with flat index `flat` (if any).
/// Each cell's list is its own heap block, so the first read of a list is usually a cache
/// miss; started a few cells early, it overlaps the pair tests of the cells in between instead
/// of stalling the loop. (Measured at 64k bodies: a plain read in its place saves 8-9% of pair
/// detection, and the prefetch, which the loop does not wait for, another 6-10%.)
#[inline]
fn prefetch_cell(partition: &Partition, flat: usize) {
    if let Some(first) = partition.cell_at_flat(flat).first() {
        prefetch(first);
    }
}

/// Asks the processor to start loading the snapshots of the bodies in `list` (a cell searched
/// soon), so the gather does not wait for them.
#[inline]
fn prefetch_snaps(list: &[Entity], snaps: &[Snap], now: &Partners) {
    for &e in list {
        // A stale slot costs only a wasted hint.
        if let Some((_, snap)) = slot_snap(e, snaps, now) {
            prefetch(snap);
        }
    }
}

/// Tests the pairs of one cell's bodies (`gathered`, read this step) that have a body whose
/// pairs are all searched, keeping the pairs this cell owns (`found`: their ends,
/// filed with `shift`, and the count of pairs tested); a resting body found touching an awake
/// one is marked [`ACTIVE`].
#[inline]
fn find_pairs_in_cell(
    gathered: &Gathered,
    shift: u32,
    modes: &[AtomicU8],
    found: (&mut Ends, &mut usize),
) {
    // Bodies that all share layers that collide with themselves (the usual case: the default
    // layers) need no layer test per pair.
    if gathered.layers.is_some_and(|l| l.interacts_with(l)) {
        test_cell_pairs::<false>(gathered, shift, modes, found);
    } else {
        test_cell_pairs::<true>(gathered, shift, modes, found);
    }
}

/// The pair loop of [`find_pairs_in_cell`]: each searching body of `gathered` against the
/// bodies whose pair with it is its to test (the later ones, and the earlier ones that do not
/// search), screened with the cell's widest tolerance (at least the pair's own: see
/// `crate::fast::screen`), testing layers only when `LAYERS` is set. The pairs that pass are
/// confirmed with the pair's own tolerance ([`signed_overlap_within`]). Both ends of each pair
/// found are filed; a resting body found touching an awake one is marked [`ACTIVE`] (it
/// responds this step).
#[inline]
fn test_cell_pairs<const LAYERS: bool>(
    Gathered {
        near,
        boxes,
        widest,
        ..
    }: &Gathered,
    shift: u32,
    modes: &[AtomicU8],
    (ends, tested): (&mut Ends, &mut usize),
) {
    let searching = boxes.searching();
    for (word, &bits) in searching.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let i = word * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let a = &near[i];
            boxes.screen(
                i,
                (a.center, a.half, a.corner),
                *widest,
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
                            continue;
                        };
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
fn pair_overlap(a: &Near, b: &Near, skin: f32) -> Option<Vec2> {
    if a.slot < b.slot {
        signed_overlap_within(a.center, a.half, b.center, b.half, skin)
    } else {
        signed_overlap_within(b.center, b.half, a.center, a.half, skin).map(|o| -o)
    }
}

/// The stage [`PhysicsSystems::DetectPairs`](crate::PhysicsSystems::DetectPairs):
/// [`detect_pairs`], with the contact store, the [`Contacts`] it fills, the collision events and
/// the [`PhysicsStats`].
pub(crate) struct PairDetectionPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for PairDetectionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PhysicsStats>()
            .init_resource::<ContactLayout>()
            .add_message::<CollisionStarted>()
            .add_message::<CollisionEnded>()
            .register_type::<Contacts>()
            .register_type::<CollisionData>()
            .register_type::<PhysicsStats>()
            .register_type::<CollisionLayers>()
            .register_type::<LayerMask>()
            .add_systems(self.0, detect_pairs.in_set(PhysicsSystems::DetectPairs));
    }
}
