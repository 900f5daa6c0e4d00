//! What pair detection saw: every body's snapshot by slot ([`BodyRecord`], one cache line each) and
//! the contacts laid out per body ([`ContactStore`]), from which the response, the collision
//! events and [`Contacts`](crate::Contacts) read each contact as a [`CollisionData`].

use bevy::prelude::*;

use crate::body::{Aabb, BodySwitches, Kinematic, OldPosition, Velocity};
use crate::contacts::CollisionData;
use crate::fast::parallel::CHUNKS;
use crate::fast::rows::{DENSE, for_each_row_chunk};
use crate::fast::workers::Workers;
use crate::flags::PushFlags;
use crate::geometry::{settled_where_detected, skin_at};
use crate::layers::{CollisionLayers, LayerMask};
use crate::one_way::{OneWayPlatform, Passing};
use crate::pairs::contact_lists::{ContactLists, Link};
use crate::partition::{CellRange, GridAreas};
use crate::rest_skipping::memory::{ACTIVE, AWAKE, Awake, Rest};
use bevy::ecs::entity::Entities;
use bevy::ecs::query::QueryData;
use bevy::utils::Parallel;
use core::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};

use crate::pairs::contact_lists::split_shift;

/// A body as pair detection saw it. Aligned to a cache line, so each random read of a snapshot
/// (the pair loop's gather, the other body of a contact read by the response or for
/// `Contacts`) loads one line, not two: a large `Vec` is only 16-byte aligned otherwise.
#[derive(Clone, Copy)]
#[repr(align(64))]
pub(crate) struct BodyRecord {
    pub(crate) entity: Entity,
    pub(crate) center: Vec2,
    pub(crate) half: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) old: Vec2,
    pub(crate) first_cell: UVec2,
    /// The contact tolerance at `center` ([`skin_at`]), worked out once here for every cell
    /// the body is searched in.
    pub(crate) skin: f32,
    pub(crate) kinematic: bool,
    /// A [`OneWayPlatform`].
    pub(crate) one_way: bool,
    /// It drops through one-way platforms.
    pub(crate) drops: bool,
    pub(crate) blocked: u8,
    pub(crate) layers: CollisionLayers,
}

// One cache line each (see `BodyRecord`).
const _: () = assert!(size_of::<BodyRecord>() == 64);

impl BodyRecord {
    /// The contents of an empty slot (never read).
    pub(crate) const EMPTY: BodyRecord = BodyRecord {
        entity: Entity::PLACEHOLDER,
        center: Vec2::ZERO,
        half: Vec2::ZERO,
        velocity: Vec2::ZERO,
        old: Vec2::ZERO,
        first_cell: UVec2::ZERO,
        skin: 0.0,
        kinematic: false,
        one_way: false,
        drops: false,
        blocked: 0,
        layers: CollisionLayers::new(LayerMask::NONE, LayerMask::NONE),
    };

    /// What the one-way rule reads of it.
    #[inline]
    pub(crate) fn passing(&self) -> Passing {
        Passing {
            old: self.old,
            half: self.half,
            velocity: self.velocity,
            one_way: self.one_way,
            drops: self.drops,
        }
    }
}

/// The contacts of the last detection, laid out contiguously in slot order: the response reads
/// them from here (one sequential pass, not one heap block per body), and the collision events
/// compare this step's partners with the previous step's.
#[derive(Resource, Default)]
pub(crate) struct ContactStore {
    /// This step's partners (slots, entity lookup, layout).
    pub(crate) now: ContactLists,
    /// The previous step's.
    pub(crate) last: ContactLists,
    /// Every detected body as detection saw it, by slot. A resting body's stays from the step
    /// that wrote it (see `crate::rest_skipping::memory`).
    pub(crate) records: Vec<BodyRecord>,
    /// Each slot's kind this step: [`AWAKE`] and [`ACTIVE`] bits; none when at rest.
    pub(crate) modes: Vec<AtomicU8>,
    /// The pairs within relaxation's reach at detection.
    pub(crate) near: crate::pairs::near::NearLists,
    /// Every body kept its slot at the last detection.
    pub(crate) kept_before: bool,
    /// The body tables as the query matches them: each one's table id, place in the query's
    /// order and length, sorted by table id; then each one's first slot, in the query's order.
    tables: (Vec<(u32, u32, usize)>, Vec<usize>),
}

impl ContactStore {
    /// Whether each of slot `k`'s pairs at detection is settled where detected
    /// ([`settled_where_detected`]).
    pub(crate) fn shallow(&self, k: usize) -> bool {
        let me = self.records[k].skin;
        (self.now.links_of(k).iter()).all(|l| {
            // The pair's tolerance, as detection worked it out.
            let skin = me.max(self.records[l.other as usize].skin);
            settled_where_detected(l.overlap, skin)
        })
    }
}

/// The contacts of one body at the last detection, as [`CollisionData`] records built from the
/// layout (see [`ContactStore::of`]).
#[derive(Clone)]
pub(crate) struct ContactsOf<'a> {
    me: &'a BodyRecord,
    links: core::slice::Iter<'a, Link>,
    records: &'a [BodyRecord],
}

impl<'a> ContactsOf<'a> {
    /// The owner's velocity at detection (which every contact carries).
    pub(crate) fn velocity(&self) -> Vec2 {
        self.me.velocity
    }

    /// The contacts, each with its pair's contact tolerance: the larger of the two bodies'
    /// ([`skin_at`] their centres, in their snapshots), which is
    /// [`pair_skin`](crate::geometry::pair_skin) of the two centres without working it out
    /// again (both are the tolerance at the larger coordinate of either).
    pub(crate) fn with_skins(self) -> impl Iterator<Item = (CollisionData, f32)> + 'a {
        let (me, records) = (self.me, self.records);
        self.links.map(move |link| {
            let other = &records[link.other as usize];
            (
                collision_data(me, other, link.overlap),
                me.skin.max(other.skin),
            )
        })
    }
}

impl Iterator for ContactsOf<'_> {
    type Item = CollisionData;

    #[inline]
    fn next(&mut self) -> Option<CollisionData> {
        let link = self.links.next()?;
        Some(collision_data(
            self.me,
            &self.records[link.other as usize],
            link.overlap,
        ))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.links.size_hint()
    }
}

impl ExactSizeIterator for ContactsOf<'_> {}

impl ContactStore {
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

    /// The contacts `entity` got at the last detection, in partner-slot order (none when it
    /// was not detected).
    #[inline]
    pub(crate) fn of(&self, entity: Entity) -> ContactsOf<'_> {
        let (me, links) = match self.now.slot(entity) {
            Some(k) => {
                self.prefetch_partners(k + PARTNERS_AHEAD);
                (&self.records[k], self.now.links_of(k))
            }
            None => (&BodyRecord::EMPTY, &[][..]),
        };
        ContactsOf {
            me,
            links: links.iter(),
            records: &self.records,
        }
    }

    /// The body's kind this step (`crate::rest_skipping::memory`'s bits; `None` when it was
    /// not detected).
    #[inline]
    pub(crate) fn mode_of(&self, entity: Entity) -> Option<u8> {
        let k = self.now.slot(entity)?;
        self.modes.get(k).map(|m| m.load(Relaxed))
    }

    /// The slot of the body in each row of a run of table rows (`None`: not detected this
    /// step). Made from the run's `entities` (in table order), and given them again with the
    /// row.
    ///
    /// A table's bodies have consecutive slots (a slot is a body's row in the detection's
    /// query order), so the slot of the run's first row is found once, and each row's is the
    /// next one's, checked by the entity it holds; a row whose check fails is looked up by its
    /// entity.
    pub(crate) fn slots_by_row(
        &self,
        entities: &[Entity],
    ) -> impl Fn(&[Entity], usize) -> Option<usize> + use<'_> {
        let slots = &self.now.entities;
        // The slot of row 0, from the first row that was detected.
        let base = (entities.iter().enumerate())
            .find_map(|(row, &e)| self.now.slot(e)?.checked_sub(row))
            .unwrap_or(usize::MAX / 2);
        move |entities, row| {
            let (k, e) = (base + row, entities[row]);
            match slots.get(k) {
                Some(&slot) if slot == e => Some(k),
                _ => self.now.slot(e),
            }
        }
    }

    /// Whether the body in each row of a run of table rows responds this step: its slot is
    /// [`ACTIVE`] (an undetected body does not respond), found by
    /// [`slots_by_row`](Self::slots_by_row).
    pub(crate) fn responds_by_row(
        &self,
        entities: &[Entity],
    ) -> impl Fn(&[Entity], usize) -> bool + use<'_> {
        let slot_of = self.slots_by_row(entities);
        move |entities, row| {
            let mode = slot_of(entities, row).and_then(|k| self.modes.get(k));
            mode.is_some_and(|mode| mode.load(Relaxed) & ACTIVE != 0)
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
                if let Some(snap) = self.records.get(link.other as usize) {
                    crate::fast::rows::prefetch(snap);
                }
            }
        }
    }
}

/// How many slots ahead [`ContactStore::of`] starts loading partners' snapshots.
const PARTNERS_AHEAD: usize = 4;

/// What the snapshot reads of every body.
pub(crate) type DetectionQuery<'w, 's> = Query<'w, 's, DetectionInput>;

/// What pair detection reads of each body, read table by table
/// ([`DetectionInputContiguousItem`]: a slice of each).
#[derive(QueryData)]
#[query_data(contiguous(all))]
pub(crate) struct DetectionInput {
    pub(crate) entity: Entity,
    pub(crate) aabb: &'static Aabb,
    pub(crate) velocity: &'static Velocity,
    pub(crate) old: &'static OldPosition,
    pub(crate) areas: &'static GridAreas,
    pub(crate) flags: &'static PushFlags,
    pub(crate) layers: Option<&'static CollisionLayers>,
    pub(crate) kinematic: Has<Kinematic>,
    pub(crate) one_way: Has<OneWayPlatform>,
    pub(crate) switches: &'static BodySwitches,
    pub(crate) rest: &'static Rest,
    pub(crate) awake: &'static Awake,
}

/// The slot `now` names for `e` and the snapshot there, unchecked: not [`ContactLists::slot`],
/// whose check that the slot still holds `e` is one more random read. The snapshot may belong
/// to another body when the slot is stale; compare its `entity` where that matters.
#[inline]
pub(crate) fn slot_record<'a>(
    e: Entity,
    records: &'a [BodyRecord],
    now: &ContactLists,
) -> Option<(usize, &'a BodyRecord)> {
    let k = *now.slot_of.get(e.index_u32() as usize)? as usize;
    records.get(k).map(|snap| (k, snap))
}

#[inline]
pub(crate) fn collision_data(me: &BodyRecord, other: &BodyRecord, overlap: Vec2) -> CollisionData {
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

impl ContactStore {
    /// Step 1 of pair detection: every body of `bodies` gets a slot, its row in query order
    /// (table after table), and its snapshot there; a body outside the partition keeps its slot
    /// empty (`Entity::PLACEHOLDER`), so it is never found there. Filled in pieces of rows on
    /// several threads (from `parallel_min` bodies), each piece writing only its own slots and
    /// walking the tables to find its rows (a game may have many small ones). `touch` is
    /// [`PhysicsConfig::contact_tolerance`](crate::PhysicsConfig::contact_tolerance).
    ///
    /// An awake body's snapshot is taken from its components; a resting one's (see
    /// `crate::rest_skipping::memory`) is left as it is when the body had the same slot at the last step (it
    /// is what the body would show again), and is otherwise rebuilt from what tile collision
    /// left at its last processed step. With `awake` (when resting bodies are skipped), an
    /// awake body's slot is marked [`AWAKE`] and [`ACTIVE`] and listed in `awake` (also when
    /// it left the partition: its partners then drop it) and its cells `searched` (a grid
    /// `width` cells wide); the pair loop marks its partners. Returns the number of slots, of
    /// bodies given one, and whether every body kept its slot of the last step.
    pub(crate) fn take_snapshot(
        &mut self,
        (bodies, world_entities): (&DetectionQuery, &Entities),
        touch: f32,
        (workers, parallel_min): (&Workers, usize),
        (searched, width): (&[AtomicBool], usize),
        awake: Option<&Parallel<Vec<u32>>>,
    ) -> SnapshotCounts {
        let tables = || bodies.contiguous_iter().expect(DENSE);
        let n: usize = tables().map(|t| t.entity.len()).sum();
        let threads = workers.threads(n >= parallel_min);
        let shift = split_shift(n);
        self.records.resize(n, BodyRecord::EMPTY);
        self.modes.resize_with(n, || AtomicU8::new(0));
        self.modes.iter_mut().for_each(|m| *m.get_mut() = 0);
        // Every slot is written below (its body, or the placeholder), or holds its body already
        // (see `kept_before`): only the length is set here, not every entry twice.
        self.now.entities.resize(n, Entity::PLACEHOLDER);
        self.now.forgotten = false;
        // Slots follow the tables in the order the world made them, not in the order the query
        // matched them (which follows the ids of every archetype, the unrelated ones too): so
        // the order of each body's contacts, and the rounding of its response, depends on the
        // bodies alone.
        let (order, bases) = &mut self.tables;
        order.clear();
        for (place, table) in tables().enumerate() {
            let made = (table.entity.first())
                .and_then(|&entity| world_entities.get_spawned(entity).ok())
                .map_or(u32::MAX, |at| at.table_id.as_u32());
            order.push((made, place as u32, table.entity.len()));
        }
        order.sort_unstable();
        bases.resize(order.len(), 0);
        let mut first = 0;
        for &(_, place, len) in order.iter() {
            bases[place as usize] = first;
            first += len;
        }
        let bases = &bases[..];
        let (last, modes, kept_before) = (&self.last, &self.modes[..], self.kept_before);
        let moved = AtomicBool::new(last.entities.len() != n);
        let detected = AtomicUsize::new(0);
        let woken = AtomicUsize::new(0);
        let snap = |rows: core::ops::Range<usize>,
                    (records, slots): (&mut [BodyRecord], &mut [Entity])| {
            let mut kept = true;
            let (mut placed, mut placed_awake) = (0, 0);
            let mut listed = awake.map(Parallel::borrow_local_mut);
            for (
                DetectionInputContiguousItem {
                    entity: entities,
                    aabb: aabbs,
                    velocity: velocities,
                    old: olds,
                    areas,
                    flags,
                    layers,
                    kinematic,
                    one_way,
                    switches,
                    rest: rests,
                    awake,
                },
                &first,
            ) in tables().zip(bases)
            {
                let table = first..first + entities.len();
                // This piece's rows of this table (none when they do not meet).
                let start = rows.start.max(table.start);
                let here = start..rows.end.min(table.end).max(start);
                let mut next = here.start;
                while next < here.end {
                    let slot = next;
                    let (row, at) = (slot - table.start, slot - rows.start);
                    // A run of resting bodies in the slots they had: their snapshots and cells
                    // are there (they were detected, so they are in the partition).
                    let run = resting_run(
                        (&entities[row..here.end - table.start], &awake[row..]),
                        last.entities.get(slot..).unwrap_or_default(),
                    );
                    if run > 0 {
                        // The slots hold them already when every body kept its slot at the
                        // last step too: `now` is the layout of the step before (see below).
                        if !kept_before {
                            slots[at..at + run].copy_from_slice(&entities[row..row + run]);
                        }
                        placed += run;
                        next += run;
                        continue;
                    }
                    // An awake body, or one that changed slot.
                    next += 1;
                    let entity = entities[row];
                    let awake = awake[row].is_awake();
                    kept &= last.entities.get(slot) == Some(&entity);
                    let mine = listed.as_mut().filter(|_| awake);
                    let marked = mine.is_some();
                    if let Some(mine) = mine {
                        mine.push(slot as u32);
                        // Only this piece writes its slots' modes during the snapshot (the
                        // partners are marked later, by the pair loop): a store, not a
                        // read-modify-write, which would wait for every load before it.
                        modes[slot].store(AWAKE | ACTIVE, Relaxed);
                    }
                    let Some(range) = areas[row].range() else {
                        slots[at] = Entity::PLACEHOLDER;
                        records[at] = BodyRecord::EMPTY;
                        continue;
                    };
                    slots[at] = entity;
                    placed += 1;
                    placed_awake += usize::from(awake);
                    let (center, velocity, blocked) = if awake {
                        (
                            aabbs[row].center,
                            velocities[row].0,
                            flags[row].blocked_sides(),
                        )
                    } else {
                        let (center, velocity, flags) = rests[row].tile_state();
                        (center, velocity, flags.blocked_sides())
                    };
                    records[at] = BodyRecord {
                        entity,
                        center,
                        half: aabbs[row].half_extents,
                        velocity,
                        old: olds[row].0,
                        first_cell: range.0,
                        skin: skin_at(touch, center),
                        kinematic,
                        one_way,
                        drops: switches[row].drop_through,
                        blocked,
                        layers: layers.map_or_else(CollisionLayers::default, |l| l[row]),
                    };
                    if marked {
                        mark_cells(searched, width, range);
                    }
                }
            }
            detected.fetch_add(placed, Relaxed);
            woken.fetch_add(placed_awake, Relaxed);
            if !kept {
                moved.store(true, Relaxed);
            }
        };
        let rows = (&mut self.records[..], &mut self.now.entities[..]);
        for_each_row_chunk(rows, n, CHUNKS, threads, snap);
        // Entity to slot (one sequential pass), unless every body kept its slot at this step
        // and the last one: the table of two steps ago (this one, before the swap) holds.
        let kept = !moved.into_inner();
        if !(kept && self.kept_before) {
            for (k, &entity) in self.now.entities.iter().enumerate() {
                if entity == Entity::PLACEHOLDER {
                    continue;
                }
                let index = entity.index_u32() as usize;
                if self.now.slot_of.len() <= index {
                    self.now.slot_of.resize(index + 1, u32::MAX);
                }
                self.now.slot_of[index] = k as u32;
            }
        }
        self.kept_before = kept;
        SnapshotCounts {
            slots: n,
            detected: detected.into_inner(),
            awake: woken.into_inner(),
            kept,
            shift,
        }
    }
}

/// How many of the first bodies of `entities` (with their `awake` bytes) rest in the slots
/// they had at the last step (`last`, from the same slot on).
#[inline]
fn resting_run((entities, awake): (&[Entity], &[Awake]), last: &[Entity]) -> usize {
    (entities.iter().zip(awake).zip(last))
        .take_while(|&((entity, awake), last)| !awake.is_awake() && entity == last)
        .count()
}

/// Marks the cells of `range` in `searched`, a grid `width` cells wide.
#[inline]
pub(crate) fn mark_cells(searched: &[AtomicBool], width: usize, (lo, hi): CellRange) {
    for y in lo.y..=hi.y {
        let row = y as usize * width;
        for cell in &searched[row + lo.x as usize..=row + hi.x as usize] {
            // Most cells are marked many times: a read is cheaper than a write.
            if !cell.load(Relaxed) {
                cell.store(true, Relaxed);
            }
        }
    }
}

/// What [`ContactStore::take_snapshot`] found.
pub(crate) struct SnapshotCounts {
    /// Slots (bodies with the physics' components).
    pub(crate) slots: usize,
    /// Bodies in the partition, given a slot.
    pub(crate) detected: usize,
    /// Of those, the bodies processed in full this step (awake, see `crate::rest_skipping::memory`).
    pub(crate) awake: usize,
    /// Every body kept its slot of the last step.
    pub(crate) kept: bool,
    /// The slot ranges' [`split_shift`].
    pub(crate) shift: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responds_by_row_follows_the_slots_and_looks_up_the_rest() {
        let e = |i| Entity::from_raw_u32(i).unwrap();
        // Slots 0..4 hold entities 10..14; 11 and 13 respond.
        let mut layout = ContactStore::default();
        layout.now.entities = (10..14).map(e).collect();
        layout.now.slot_of = vec![u32::MAX; 20];
        for (k, &entity) in layout.now.entities.iter().enumerate() {
            layout.now.slot_of[entity.index_u32() as usize] = k as u32;
        }
        let modes = [0, ACTIVE, 0, AWAKE | ACTIVE];
        layout.modes = modes.iter().map(|&m| AtomicU8::new(m)).collect();
        let responds = |rows: &[Entity]| {
            let test = layout.responds_by_row(rows);
            (0..rows.len())
                .map(|row| test(rows, row))
                .collect::<Vec<_>>()
        };
        // In slot order, from any slot on; and when the first row was not detected.
        assert_eq!(
            responds(&[e(10), e(11), e(12), e(13)]),
            [false, true, false, true]
        );
        assert_eq!(responds(&[e(12), e(13)]), [false, true]);
        assert_eq!(responds(&[e(15), e(11), e(12)]), [false, true, false]);
        // Out of slot order (a table the detection read in another order), row by row.
        assert_eq!(responds(&[e(13), e(10), e(11)]), [true, false, true]);
        assert_eq!(responds(&[e(19), e(18)]), [false, false]);
    }
}
