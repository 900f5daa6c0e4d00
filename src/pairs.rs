//! Pair detection (article 000): every overlapping or touching pair of bodies, found once per
//! step through the partition, laid out for both bodies (and copied into their `Contacts`).
//!
//! # Algorithm
//!
//! 1. **Snapshot.** Every partitioned body's box, velocity, old position and first cell are
//!    copied into a dense array, so the pair loop reads contiguous memory. A body's slot is its
//!    row in query order (read table by table, in pieces on the task pool); a body outside the
//!    partition leaves its slot empty.
//! 2. **Pairs.** For each cell, row by row, each pair `i < j` of its list whose
//!    [`CollisionLayers`] match is tested with the
//!    signed overlap of article 000 (touching counts, within
//!    [`PhysicsConfig::contact_tolerance`]: a body put back on top of another can end a
//!    rounding error above it, and still stands on it). A pair sharing several cells is kept only
//!    in the *first* cell both cover (the bottom-left corner of the intersection of their cell
//!    ranges), which is O(1) and needs no scan of earlier contacts. The cells are cut into a
//!    fixed number of pieces that run on the task pool above
//!    [`PhysicsConfig::parallel_min_bodies`]; the pieces are joined in cell order, so the result
//!    is the same on any number of threads.
//! 3. **Layout.** The pairs are counted per body and laid out per body in pair order (a
//!    counting sort), contiguously in slot order, as the other body's slot and the overlap
//!    (12 bytes per contact). It runs in parallel by slot range: the pair loop files each
//!    pair's two ends by the range of each body's slot, so each range reads only its own
//!    (`src/layout.rs`). A [`CollisionData`] is built from that and the two snapshots when
//!    it is read: by the response, and for [`Contacts`].
//! 4. **Events.** Each body's new contacts are compared with its old ones for
//!    [`CollisionStarted`] and [`CollisionEnded`] (touching counts; one side of each pair reports it).
//! 5. **Contacts.** Each body's contacts are written into its [`Contacts`], for the bodies
//!    that have one (it is opt-in).

use bevy::prelude::*;

use crate::body::{Aabb, Kinematic, OldPosition, Velocity};
use crate::collision_events::{Change, Link, Partners, report_contact_changes};
use crate::config::PhysicsConfig;
use crate::flags::PushFlags;
use crate::geometry::{signed_overlap_within, skin_at};
use crate::layers::{CollisionLayers, LayerMask};
use crate::layout::{Ends, file_pair, lay_out, split_shift};
use crate::messages::{CollisionEnded, CollisionStarted};
use crate::parallel::{CHUNKS, chunk_range, for_each_chunk, for_each_item, for_each_split};
use crate::partition::{GridAreas, Partition, shared_corner_bits};
use crate::rows::DENSE;

/// One contact between the owner of a [`Contacts`] buffer and another body, as captured when
/// the pair was detected (article 000's `CollisionData`): the response reads only this, never
/// the other body's current state.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, Default, PartialEq, Clone)]
pub struct CollisionData {
    /// The other body.
    pub other: Entity,
    /// Signed overlap from the owner's side: the direction the owner must move to get out
    /// (negative x when the other body is on the owner's right). Zero on an axis means the
    /// boxes touch along it; so does a component within
    /// [`PhysicsConfig::contact_tolerance`] of zero, and a negative one that small is the gap
    /// between boxes that touch within it
    /// ([`signed_overlap_within`]).
    pub overlap: Vec2,
    /// The owner's velocity.
    pub velocity: Vec2,
    /// The other body's velocity.
    pub other_velocity: Vec2,
    /// The owner's centre before this step.
    pub old_position: Vec2,
    /// The other body's centre before this step.
    pub other_old_position: Vec2,
    /// The owner's centre when detected.
    pub position: Vec2,
    /// The other body's centre when detected.
    pub other_position: Vec2,
    /// The owner's half extents.
    pub half_extents: Vec2,
    /// The other body's half extents.
    pub other_half_extents: Vec2,
    /// The other body is [`Kinematic`].
    pub other_kinematic: bool,
    /// The sides on which the owner cannot give way: it touches a tile there this step, or
    /// touched a body there last step ([`side_bit`](crate::flags::side_bit) layout).
    pub blocked: u8,
    /// The same for the other body.
    pub other_blocked: u8,
}

impl Default for CollisionData {
    /// No contact: [`Entity::PLACEHOLDER`], every vector zero, nothing kinematic or blocked.
    fn default() -> Self {
        Self {
            other: Entity::PLACEHOLDER,
            overlap: Vec2::ZERO,
            velocity: Vec2::ZERO,
            other_velocity: Vec2::ZERO,
            old_position: Vec2::ZERO,
            other_old_position: Vec2::ZERO,
            position: Vec2::ZERO,
            other_position: Vec2::ZERO,
            half_extents: Vec2::ZERO,
            other_half_extents: Vec2::ZERO,
            other_kinematic: false,
            blocked: 0,
            other_blocked: 0,
        }
    }
}

/// Every body this body overlaps or touches, refilled at each step by
/// [`PhysicsSystems::DetectPairs`](crate::PhysicsSystems::DetectPairs). The order is
/// deterministic.
///
/// Opt-in: add it to the bodies whose contacts you read (like the
/// [`Aabb`] itself, it can be added or removed at any time). Bodies without it collide, push
/// and land all the same, and write [`CollisionStarted`] and [`CollisionEnded`]; they only skip
/// the copy of their contacts, which is a large part of pair detection in a crowded scene.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_hero(mut commands: Commands) {
///     commands.spawn((
///         Aabb::new(Vec2::new(100.0, 40.0), Vec2::new(6.0, 10.0)),
///         Contacts::default(),
///     ));
/// }
///
/// fn hurt_on_touch(bodies: Query<(Entity, &Contacts)>) {
///     for (entity, contacts) in &bodies {
///         for contact in contacts.iter() {
///             info!("{entity} touches {} (overlap {})", contact.other, contact.overlap);
///         }
///     }
/// }
/// # App::new().add_systems(Update, (spawn_hero, hurt_on_touch));
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect, Deref)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Contacts(Vec<CollisionData>);

impl Contacts {
    /// The contacts, in detection order.
    pub fn as_slice(&self) -> &[CollisionData] {
        &self.0
    }

    /// Drops the contacts with `other`.
    pub(crate) fn forget(&mut self, other: Entity) {
        self.0.retain(|c| c.other != other);
    }
}

/// Counters of the last step, for tools and the debug panel.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct PhysicsStats {
    /// Bodies in the partition.
    pub bodies: usize,
    /// Cells holding at least one body.
    pub occupied_cells: usize,
    /// Pairs whose boxes were compared.
    pub pairs_tested: usize,
    /// Pairs found overlapping or touching.
    pub pairs_found: usize,
}

/// A body as pair detection saw it. Aligned to a cache line, so each random read of a snapshot
/// (the pair loop's gather, the other body of a contact read by the response or for
/// `Contacts`) loads one line, not two: a large `Vec` is only 16-byte aligned otherwise.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Snap {
    entity: Entity,
    center: Vec2,
    half: Vec2,
    velocity: Vec2,
    old: Vec2,
    first_cell: UVec2,
    kinematic: bool,
    blocked: u8,
    layers: CollisionLayers,
}

impl Snap {
    /// The contents of an empty slot (never read).
    const EMPTY: Snap = Snap {
        entity: Entity::PLACEHOLDER,
        center: Vec2::ZERO,
        half: Vec2::ZERO,
        velocity: Vec2::ZERO,
        old: Vec2::ZERO,
        first_cell: UVec2::ZERO,
        kinematic: false,
        blocked: 0,
        layers: CollisionLayers::new(LayerMask::NONE, LayerMask::NONE),
    };
}

#[derive(Default)]
struct PieceOut {
    /// Each pair found, once per body, filed by slot range ([`file_pair`]).
    ends: Ends,
    tested: usize,
    /// The bodies of the cell being searched, gathered contiguously.
    near: Vec<Near>,
}

/// What the pair loop reads of each body of a cell: its slot, box and ownership data.
#[derive(Clone, Copy)]
struct Near {
    slot: u32,
    /// [`shared_corner_bits`] of the body's first cell and the cell searched.
    corner: u8,
    /// The contact tolerance at the body's centre ([`skin_at`]): a pair's is the larger of its
    /// two bodies' ([`pair_skin`](crate::geometry::pair_skin)).
    skin: f32,
    center: Vec2,
    half: Vec2,
    layers: CollisionLayers,
}

/// Buffers kept between steps, so detection allocates nothing once the scene has settled.
#[derive(Default)]
pub(crate) struct DetectScratch {
    pieces: Vec<PieceOut>,
    changes: Vec<Vec<Change>>,
}

/// The contacts of the last detection, laid out contiguously in slot order: the response reads
/// them from here (one sequential pass, not one heap block per body), and the collision events
/// compare this step's partners with the previous step's.
#[derive(Resource, Default)]
pub(crate) struct ContactLayout {
    /// This step's partners (slots, entity lookup, layout).
    now: Partners,
    /// The previous step's.
    last: Partners,
    /// Every detected body as detection saw it, by slot.
    snaps: Vec<Snap>,
}

/// The contacts of one body at the last detection, as [`CollisionData`] records built from the
/// layout (see [`ContactLayout::of`]).
#[derive(Clone)]
pub(crate) struct ContactsOf<'a> {
    me: &'a Snap,
    links: core::slice::Iter<'a, Link>,
    snaps: &'a [Snap],
}

impl ContactsOf<'_> {
    /// The owner's velocity at detection (which every contact carries).
    pub(crate) fn velocity(&self) -> Vec2 {
        self.me.velocity
    }
}

impl Iterator for ContactsOf<'_> {
    type Item = CollisionData;

    #[inline]
    fn next(&mut self) -> Option<CollisionData> {
        let link = self.links.next()?;
        Some(collision_data(
            self.me,
            &self.snaps[link.other as usize],
            link.overlap,
        ))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.links.size_hint()
    }
}

impl ExactSizeIterator for ContactsOf<'_> {}

impl ContactLayout {
    /// The partners `entity` had at the last detection, leaving out those already forgotten
    /// (gone before it); from now on it has none there (it is going away: see the `Aabb`
    /// removal hook).
    pub(crate) fn forget(&mut self, entity: Entity) -> Vec<Entity> {
        let Some(k) = self.now.slot(entity) else {
            return Vec::new();
        };
        self.now.entities[k] = Entity::PLACEHOLDER;
        self.now.forgotten = true;
        let now = &self.now;
        now.of_slot(k)
            .filter(|&other| now.slot(other).is_some())
            .collect()
    }

    /// The contacts `entity` got at the last detection, in detection order (none when it was
    /// not detected).
    #[inline]
    pub(crate) fn of(&self, entity: Entity) -> ContactsOf<'_> {
        let (me, links) = match self.now.slot(entity) {
            Some(k) => {
                self.prefetch_partners(k + PARTNERS_AHEAD);
                (&self.snaps[k], self.now.links_of(k))
            }
            None => (&Snap::EMPTY, &[][..]),
        };
        ContactsOf {
            me,
            links: links.iter(),
            snaps: &self.snaps,
        }
    }

    /// Asks the processor to start loading the snapshots of slot `k`'s partners (if `k` is a
    /// slot). The response reads bodies in slot order, so the body `PARTNERS_AHEAD` slots on
    /// is read soon: its partners' snapshots, scattered over the whole array, then no longer
    /// stall it (at 64k bodies that read was over a third of the response's own time).
    #[inline]
    fn prefetch_partners(&self, k: usize) {
        if k + 1 < self.now.starts.len() {
            for link in self.now.links_of(k) {
                if let Some(snap) = self.snaps.get(link.other as usize) {
                    prefetch(snap);
                }
            }
        }
    }
}

/// How many slots ahead [`ContactLayout::of`] starts loading partners' snapshots.
const PARTNERS_AHEAD: usize = 4;

type BodyQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Aabb,
        &'static Velocity,
        &'static OldPosition,
        &'static GridAreas,
        &'static PushFlags,
        Option<&'static CollisionLayers>,
        Has<Kinematic>,
    ),
>;

/// Finds every touching or overlapping pair and refills every body's [`Contacts`].
pub(crate) fn detect_pairs(
    config: Res<PhysicsConfig>,
    partition: Res<Partition>,
    bodies: BodyQuery,
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
    // 1. Snapshot: every body gets a slot, its row in query order (table after table); a body
    //    outside the partition keeps its slot empty (`Entity::PLACEHOLDER`), so it is never
    //    found there. Filled in pieces of rows on the task pool, each piece writing only its
    //    own slots and walking the tables to find its rows (a game may have many small ones).
    let tables = || bodies.contiguous_iter().expect(DENSE);
    let n: usize = tables().map(|t| t.0.len()).sum();
    let parallel = n >= config.parallel_min_bodies;
    l.snaps.resize(n, Snap::EMPTY);
    l.now.entities.clear();
    l.now.entities.resize(n, Entity::PLACEHOLDER);
    l.now.forgotten = false;
    let end = |i: usize| chunk_range(i, CHUNKS, n).end;
    let snap = |i: usize, snaps: &mut [Snap], slots: &mut [Entity]| {
        let rows = chunk_range(i, CHUNKS, n);
        let mut base = 0;
        for (entities, aabbs, velocities, olds, areas, flags, layers, kinematic) in tables() {
            let table = base..base + entities.len();
            base = table.end;
            for slot in rows.start.max(table.start)..rows.end.min(table.end) {
                let (row, at) = (slot - table.start, slot - rows.start);
                let Some((first_cell, _)) = areas[row].range() else {
                    slots[at] = Entity::PLACEHOLDER;
                    snaps[at] = Snap::EMPTY;
                    continue;
                };
                slots[at] = entities[row];
                snaps[at] = Snap {
                    entity: entities[row],
                    center: aabbs[row].center,
                    half: aabbs[row].half_extents,
                    velocity: velocities[row].0,
                    old: olds[row].0,
                    first_cell,
                    kinematic,
                    blocked: flags[row].blocked_sides(),
                    layers: layers.map_or_else(CollisionLayers::default, |l| l[row]),
                };
            }
            if base >= rows.end {
                break;
            }
        }
    };
    let ends = |i: usize| (end(i), end(i));
    for_each_split(
        &mut l.snaps,
        &mut l.now.entities,
        CHUNKS,
        ends,
        parallel,
        snap,
    );
    let mut detected = 0;
    for (k, &entity) in l.now.entities.iter().enumerate() {
        if entity == Entity::PLACEHOLDER {
            continue;
        }
        let index = entity.index_u32() as usize;
        if l.now.slot_of.len() <= index {
            l.now.slot_of.resize(index + 1, u32::MAX);
        }
        l.now.slot_of[index] = k as u32;
        detected += 1;
    }

    // 2. Pairs, piece by piece of the cell list.
    let shift = split_shift(n);
    s.pieces.resize_with(CHUNKS, PieceOut::default);
    {
        let (snaps, now) = (&l.snaps, &l.now);
        let partition = &*partition;
        let touch = config.contact_tolerance;
        let dims = partition.dims();
        let cell_count = (dims.x * dims.y) as usize;
        for_each_chunk(&mut s.pieces, parallel, |i, out| {
            out.ends.iter_mut().for_each(Vec::clear);
            out.tested = 0;
            let cells = chunk_range(i, CHUNKS, cell_count);
            // The cell's coordinates, stepped along with its flat index (no division per cell).
            let start = cells.start as u32;
            let mut cell = UVec2::new(start % dims.x.max(1), start / dims.x.max(1));
            for flat in cells {
                prefetch_cell(partition, flat + READ_AHEAD);
                prefetch_snaps(partition.cell_at_flat(flat + 1), snaps, now);
                let list = partition.cell_at_flat(flat);
                find_pairs_in_cell(list, cell, touch, shift, snaps, now, out);
                cell.x += 1;
                if cell.x == dims.x {
                    cell = UVec2::new(0, cell.y + 1);
                }
            }
        });
    }

    // 3. Per-body layout.
    let tested = s.pieces.iter().map(|piece| piece.tested).sum();
    let found = lay_out(
        &s.pieces,
        |piece| &piece.ends,
        n,
        shift,
        parallel,
        &mut l.now,
    ) / 2;

    // 4. Collision events, from last step's partners and this step's (both are laid out
    //    whether or not events are written, so turning them on later compares the right steps).
    if config.collision_events {
        report_contact_changes(
            &l.now,
            &l.last,
            |e| bodies.contains(e),
            parallel,
            &mut s.changes,
            &mut started,
            &mut ended,
        );
    }

    // 5. Refill each body's buffer from its slice.
    let l = &*l;
    let refill = |(entity, mut contacts): (Entity, Mut<Contacts>)| {
        let mine = l.of(entity);
        if !contacts.0.is_empty() || mine.len() != 0 {
            contacts.0.clear();
            contacts.0.extend(mine);
        }
    };
    for_each_item(&mut contacts, config.parallel_min_bodies, refill);

    *stats = PhysicsStats {
        bodies: detected,
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
/// of stalling the loop. (A plain read in its place, kept until the fourth session, saved 8-9%
/// of pair detection at 64k bodies; the prefetch, which the loop does not wait for, another
/// 6-10%.)
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

/// The slot `now` names for `e` and the snapshot there, unchecked: not [`Partners::slot`],
/// whose check that the slot still holds `e` is one more random read. The snapshot may belong
/// to another body when the slot is stale; compare its `entity` where that matters.
#[inline]
fn slot_snap<'a>(e: Entity, snaps: &'a [Snap], now: &Partners) -> Option<(usize, &'a Snap)> {
    let k = *now.slot_of.get(e.index_u32() as usize)? as usize;
    snaps.get(k).map(|snap| (k, snap))
}

/// A hint to load `value`'s cache line; it never faults and changes nothing. The one `unsafe`
/// of the crate, for a measured reason: with it pair detection at 64k bodies was 5% lower in a
/// quiet spell and 15% in a busy one, and a plain read in its place gained about half as much.
#[inline(always)]
fn prefetch<T>(value: &T) {
    // SAFETY: a prefetch only hints the cache; it reads nothing the program sees and cannot
    // fault. SSE, which it needs, is part of every x86_64 processor.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Tests every pair of one cell's list, keeping the pairs this cell owns.
#[inline]
fn find_pairs_in_cell(
    list: &[Entity],
    cell: UVec2,
    touch: f32,
    shift: u32,
    snaps: &[Snap],
    now: &Partners,
    out: &mut PieceOut,
) {
    // Gather the cell's bodies once (every body in a cell was snapshotted; the lookup guards
    // against a stale slot anyway, with the snapshot's own entity, on the line read anyway),
    // so the pair loop reads contiguous memory. Two things are found on the way: the largest
    // contact tolerance of the cell, and whether every body has the same layers.
    out.near.clear();
    let mut widest = 0.0f32;
    let mut layers = None;
    let mut uniform = true;
    for &e in list {
        if let Some((k, b)) = slot_snap(e, snaps, now).filter(|(_, b)| b.entity == e) {
            let skin = skin_at(touch, b.center);
            widest = widest.max(skin);
            uniform &= *layers.get_or_insert(b.layers) == b.layers;
            out.near.push(Near {
                slot: k as u32,
                corner: shared_corner_bits(b.first_cell, cell),
                skin,
                center: b.center,
                half: b.half,
                layers: b.layers,
            });
        }
    }
    // Bodies that all share layers that collide with themselves (the usual case: the default
    // layers) need no layer test per pair.
    if uniform && layers.is_some_and(|l| l.interacts_with(l)) {
        test_cell_pairs::<false>(widest, shift, out);
    } else {
        test_cell_pairs::<true>(widest, shift, out);
    }
}

/// The pair loop of [`find_pairs_in_cell`] over `out.near`, testing layers per pair only when
/// `LAYERS` is set. Each pair is screened with the cell's widest tolerance `widest` (at least
/// the pair's own), then confirmed with the pair's ([`signed_overlap_within`]), so the screen
/// needs no per-pair maximum.
#[inline]
fn test_cell_pairs<const LAYERS: bool>(widest: f32, shift: u32, out: &mut PieceOut) {
    for (i, a) in out.near.iter().enumerate() {
        // The later bodies in blocks of 64: each test is branch-free and sets one bit, and
        // only the touching pairs (about one test in eight in a pile) are then visited.
        for later in out.near[i + 1..].chunks(64) {
            let (mut tested, mut touching) = (0, 0u64);
            for (k, b) in later.iter().enumerate() {
                // The pair belongs to the first cell both cover: report it there only. Pairs
                // whose layers do not match are never tested.
                let mine =
                    (a.corner | b.corner) == 3 && (!LAYERS || a.layers.interacts_with(b.layers));
                let delta = (a.center - b.center).abs();
                // Summed in the order the confirmation sums, so the screen (with a tolerance
                // at least the pair's) never rejects a pair the confirmation would keep.
                let reach = a.half + b.half + widest;
                let overlaps = (delta.x <= reach.x) & (delta.y <= reach.y);
                // A count, not a mask: counting a mask's bits takes a dozen instructions on
                // processors without a population count instruction (the default target).
                tested += usize::from(mine);
                touching |= u64::from(mine & overlaps) << k;
            }
            out.tested += tested;
            while touching != 0 {
                let b = &later[touching.trailing_zeros() as usize];
                touching &= touching - 1;
                // Touching within the pair's contact tolerance counts: a body put back on
                // another can end a rounding error away from it.
                let skin = a.skin.max(b.skin);
                if let Some(overlap) =
                    signed_overlap_within(a.center, a.half, b.center, b.half, skin)
                {
                    file_pair(&mut out.ends, shift, a.slot, b.slot, overlap);
                }
            }
        }
    }
}

#[inline]
fn collision_data(me: &Snap, other: &Snap, overlap: Vec2) -> CollisionData {
    CollisionData {
        other: other.entity,
        overlap,
        velocity: me.velocity,
        other_velocity: other.velocity,
        old_position: me.old,
        other_old_position: other.old,
        position: me.center,
        other_position: other.center,
        half_extents: me.half,
        other_half_extents: other.half,
        other_kinematic: other.kinematic,
        blocked: me.blocked,
        other_blocked: other.blocked,
    }
}
