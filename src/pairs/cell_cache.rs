//! A cell's bodies as the pair loop reads them ([`CellCache`]), kept from one step to the next.
//!
//! The pair loop (`crate::pairs`) reads each searched cell's bodies contiguously: their slots,
//! boxes, tolerances and layers, and their boxes laid out for the screen (`crate::pairs::screen`);
//! which of them search is read again at every step, from their modes. Gathering them means a
//! lookup and a snapshot read per body, scattered over memory, and in a settled scene most
//! bodies of a searched cell are resting ones, whose snapshots did not change. So each cell
//! keeps what was cell_cache for it, with the list it was cell_cache from. At the next step it is
//! searched in, if its list is the same and no body changed slot since (the pair loop carries
//! contacts over: see `crate::rest_skipping::memory`), only the awake bodies are read again; a body that is not
//! awake has the snapshot it had (its box is the one it had at the last step, and it kept its
//! slot). Otherwise the cell is cell_cache again.

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

use crate::layers::CollisionLayers;
use crate::pairs::contact_lists::ContactLists;
use crate::pairs::screen::CellBoxes;
use crate::pairs::store::{BodyRecord, slot_record};
use crate::partition::shared_corner_bits;
use crate::rest_skipping::memory::AWAKE;

/// What the pair loop reads of each body of a cell: its slot, box and ownership data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CellBody {
    pub(crate) slot: u32,
    /// [`shared_corner_bits`] of the body's first cell and the cell searched.
    pub(crate) corner: u8,
    /// The contact tolerance at the body's centre ([`skin_at`](crate::geometry::skin_at)): a
    /// pair's is the larger of its two bodies' ([`pair_skin`](crate::geometry::pair_skin)).
    pub(crate) skin: f32,
    pub(crate) center: Vec2,
    pub(crate) half: Vec2,
    pub(crate) layers: CollisionLayers,
    /// A one-way platform: its pairs pass the one-way rule too.
    pub(crate) one_way: bool,
}

impl CellBody {
    /// What the pair loop reads of slot `k` (snapshot `b`) in `cell`.
    #[inline]
    fn of(k: usize, b: &BodyRecord, cell: UVec2) -> CellBody {
        CellBody {
            slot: k as u32,
            corner: shared_corner_bits(b.first_cell, cell),
            skin: b.skin,
            center: b.center,
            half: b.half,
            layers: b.layers,
            one_way: b.one_way,
        }
    }

    /// Its box as the screen reads it.
    #[inline]
    fn screened(&self) -> (Vec2, Vec2, u8) {
        (self.center, self.half, self.corner)
    }
}

/// One cell's bodies as cell_cache for the pair loop, kept between steps.
#[derive(Default)]
pub(crate) struct CellCache {
    /// The cell's list they were cell_cache from.
    list: Vec<Entity>,
    /// The bodies, in the list's order (a body without a snapshot is left out).
    pub(crate) near: Vec<CellBody>,
    /// Their boxes laid out for the screen, and which of them search.
    pub(crate) boxes: CellBoxes,
    /// At least the largest contact tolerance of the bodies.
    pub(crate) widest: f32,
    /// The layers of every body, if they all have the same (`None` may also mean they did not
    /// when last cell_cache).
    pub(crate) layers: Option<CollisionLayers>,
}

/// What the pair loop reads from the snapshot: the snapshots and slots, and every slot's mode.
pub(crate) type Read<'a> = (&'a [BodyRecord], &'a ContactLists, &'a [AtomicU8]);

impl CellCache {
    /// Reads the bodies of `cell` (its `list`) for this step: again from the snapshot when
    /// `reuse` is not set or the list changed, otherwise only the awake ones. Marks the bodies
    /// whose mode has a bit of `searcher` as searching in [`CellCache::boxes`].
    ///
    /// `reuse` may be set only when every body kept its slot since the cell was last read, and
    /// every body that is not [`AWAKE`] now kept its snapshot since then (see the module doc).
    #[inline]
    pub(crate) fn read(
        &mut self,
        (list, cell): (&[Entity], UVec2),
        searcher: u8,
        reuse: bool,
        (records, now, modes): Read<'_>,
    ) {
        let fresh = !(reuse && self.list[..] == *list);
        if fresh {
            // Every body in a cell was snapshotted; the lookup guards against a stale slot
            // anyway, with the snapshot's own entity, on the line read anyway.
            self.list.clear();
            self.list.extend_from_slice(list);
            self.near.clear();
            self.widest = 0.0;
            let mut layers = None;
            let mut uniform = true;
            for &e in list {
                if let Some((k, b)) = slot_record(e, records, now).filter(|(_, b)| b.entity == e) {
                    let near = CellBody::of(k, b, cell);
                    self.widest = self.widest.max(near.skin);
                    uniform &= *layers.get_or_insert(near.layers) == near.layers;
                    self.near.push(near);
                }
            }
            self.layers = layers.filter(|_| uniform);
            self.boxes.fill(&self.near, CellBody::screened);
        }
        // Which bodies search, and which are awake (their snapshots may be new), 64 at a time.
        for w in 0..self.near.len().div_ceil(64) {
            let (mut search, mut awake) = (0u64, 0u64);
            for (b, near) in self.near[w * 64..].iter().take(64).enumerate() {
                let mode = modes[near.slot as usize].load(Relaxed);
                search |= u64::from(mode & searcher != 0) << b;
                awake |= u64::from(mode & AWAKE != 0) << b;
            }
            self.boxes.searching_mut()[w] = search;
            if fresh {
                continue;
            }
            while awake != 0 {
                let j = w * 64 + awake.trailing_zeros() as usize;
                awake &= awake - 1;
                // It may have moved since it was read. The tolerance and layers only widen
                // what the pair loop tests (see `CellCache::widest` and `CellCache::layers`).
                let k = self.near[j].slot as usize;
                let near = CellBody::of(k, &records[k], cell);
                self.widest = self.widest.max(near.skin);
                if self.layers != Some(near.layers) {
                    self.layers = None;
                }
                self.near[j] = near;
                self.boxes.set(j, near.screened());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest_skipping::memory::ACTIVE;
    use crate::test_rng::xorshift32;

    /// Snapshots of `n` bodies (entities 0..n, in slots n-1..0) at random places around `cell`
    /// of a 64-unit grid, their slots, and every body's mode (every third awake).
    fn bodies(n: u32, seed: u32) -> (Vec<BodyRecord>, ContactLists, Vec<AtomicU8>) {
        let mut next = xorshift32(seed);
        let mut unit = move || next() as f32 / u32::MAX as f32;
        let mut now = ContactLists::default();
        let mut records = vec![BodyRecord::EMPTY; n as usize];
        for i in 0..n {
            let entity = Entity::from_raw_u32(i).unwrap();
            let k = (n - 1 - i) as usize;
            now.slot_of.push(k as u32);
            records[k] = BodyRecord {
                entity,
                center: Vec2::new(64.0 + 64.0 * unit(), 128.0 + 64.0 * unit()),
                half: Vec2::new(2.0 + 8.0 * unit(), 2.0 + 8.0 * unit()),
                first_cell: UVec2::new(1 - (unit() < 0.5) as u32, 2 - (unit() < 0.5) as u32),
                skin: 0.01 + 0.01 * unit(),
                ..BodyRecord::EMPTY
            };
        }
        now.entities = records.iter().map(|s| s.entity).collect();
        let modes = (0..n)
            .map(|i| {
                AtomicU8::new(if i.is_multiple_of(3) {
                    AWAKE | ACTIVE
                } else {
                    0
                })
            })
            .collect();
        (records, now, modes)
    }

    fn entities(ids: impl IntoIterator<Item = u32>) -> Vec<Entity> {
        ids.into_iter()
            .map(|i| Entity::from_raw_u32(i).unwrap())
            .collect()
    }

    /// A cell read from scratch.
    fn fresh(list: &[Entity], (records, now, modes): Read<'_>) -> CellCache {
        let mut cell_cache = CellCache::default();
        cell_cache.read((list, CELL), AWAKE, false, (records, now, modes));
        cell_cache
    }

    const CELL: UVec2 = UVec2::new(1, 2);

    #[test]
    fn a_cell_read_again_is_the_cell_read_from_scratch() {
        let (mut records, now, modes) = bodies(70, 0x9E37_79B9);
        let list = entities(0..70);
        let mut kept = CellCache::default();
        kept.read((&list, CELL), AWAKE, true, (&records, &now, &modes));
        assert_eq!(kept.near, fresh(&list, (&records, &now, &modes)).near);
        // The awake bodies move, grow and change first cells; the others keep their
        // snapshots, as they do between steps.
        for (k, snap) in records.iter_mut().enumerate() {
            let i = 69 - k;
            if i.is_multiple_of(3) {
                snap.center += Vec2::new(3.0, -2.0);
                snap.half *= 1.5;
                snap.first_cell = CELL;
                snap.skin = 0.05;
            }
        }
        kept.read((&list, CELL), AWAKE, true, (&records, &now, &modes));
        let scratch = fresh(&list, (&records, &now, &modes));
        assert_eq!(kept.near, scratch.near);
        assert_eq!(kept.boxes, scratch.boxes);
        assert_eq!(kept.widest, 0.05);
        assert_eq!(kept.boxes.searching(), scratch.boxes.searching());
        let awake = |w: usize| {
            (0..64)
                .filter(|b| (w * 64 + b).is_multiple_of(3))
                .fold(0, |m, b| m | 1 << b)
        };
        assert_eq!(scratch.boxes.searching(), [awake(0), awake(1) & 0x3f]);
    }

    #[test]
    fn a_changed_list_or_no_reuse_reads_every_body_again() {
        let (mut records, now, modes) = bodies(10, 0x1234_5678);
        let mut kept = CellCache::default();
        kept.read(
            (&entities(0..10), CELL),
            AWAKE,
            true,
            (&records, &now, &modes),
        );
        // A resting body's snapshot changes (between steps, only when slots change).
        records[9 - 4].center.x += 1.0;
        let shorter = entities(0..9);
        kept.read((&shorter, CELL), AWAKE, true, (&records, &now, &modes));
        assert_eq!(kept.near, fresh(&shorter, (&records, &now, &modes)).near);
        records[9 - 5].center.x += 1.0;
        kept.read((&shorter, CELL), AWAKE, false, (&records, &now, &modes));
        assert_eq!(kept.near, fresh(&shorter, (&records, &now, &modes)).near);
        assert_eq!(kept.near[5].center, records[9 - 5].center);
    }

    #[test]
    fn a_body_with_another_slot_or_no_snapshot_is_left_out() {
        let (records, mut now, modes) = bodies(5, 0x0BAD_F00D);
        // Entity 1 points at entity 2's slot; entity 7 has none.
        now.slot_of[1] = now.slot_of[2];
        let cell = fresh(&entities([0, 1, 2, 7]), (&records, &now, &modes));
        let slots: Vec<u32> = cell.near.iter().map(|n| n.slot).collect();
        assert_eq!(slots, [4, 2]);
    }
}
