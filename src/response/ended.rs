//! Where the response left each body and how relaxation may move it ([`ResponseEnds`], by
//! slot of the contact layout; a resting body's record stays from the step that wrote it,
//! which is where the body still is, see `crate::rest_skipping::memory`).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::body::BodySwitches;
use crate::pairs::store::ContactStore;

/// One slot's record: its centre's bits and [`How`] bits. Atomics, so the response's threads
/// each write their own bodies' slots through a shared layout.
#[derive(Default)]
pub(crate) struct EndRecord {
    center: AtomicU64,
    how: AtomicU8,
    quiet: AtomicU8,
}

/// The bits of [`EndRecord::how`] above the four tile sides.
struct How;

impl How {
    /// Recorded by the response (the slot's body is a non-kinematic body it handled once).
    const RECORDED: u8 = 0x80;
    /// Without world collision: moved without the tile sweep.
    const FREE: u8 = 0x40;
    const DROP_THROUGH: u8 = 0x20;
    const CLIMBING: u8 = 0x10;
    /// The four tile sides.
    const SIDES: u8 = 0x0F;
}

fn pack(center: Vec2) -> u64 {
    u64::from(center.x.to_bits()) | u64::from(center.y.to_bits()) << 32
}

fn unpack(bits: u64) -> Vec2 {
    Vec2::new(
        f32::from_bits(bits as u32),
        f32::from_bits((bits >> 32) as u32),
    )
}

/// Where the response left a body it handled, and how relaxation may move it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ResponseEnd {
    pub(crate) center: Vec2,
    /// The sides touching tiles this step (left 1, right 2, top 4, bottom 8).
    pub(crate) tile_sides: u8,
    /// Without world collision.
    pub(crate) free: bool,
    pub(crate) drop_through: bool,
    pub(crate) climbing: bool,
    /// Left where detection saw it, overlapping each partner by no more than the pair's
    /// tolerance on one axis or the other (no pass would move it while its partners stay).
    pub(crate) quiet: bool,
}

impl EndRecord {
    /// Records where the response left the body: its centre, the sides touching tiles this
    /// step, its switches, and whether it is quiet ([`ResponseEnd::quiet`]).
    #[inline]
    pub(crate) fn record(
        &self,
        center: Vec2,
        tile_sides: u8,
        switches: &BodySwitches,
        quiet: bool,
    ) {
        let mut how = How::RECORDED | tile_sides & How::SIDES;
        if !switches.world_collision {
            how |= How::FREE;
        }
        if switches.drop_through {
            how |= How::DROP_THROUGH;
        }
        if switches.climbing {
            how |= How::CLIMBING;
        }
        self.center.store(pack(center), Relaxed);
        self.how.store(how, Relaxed);
        self.quiet.store(u8::from(quiet), Relaxed);
    }

    /// What was recorded, if the response ever recorded the body.
    #[inline]
    pub(crate) fn read(&self) -> Option<ResponseEnd> {
        let how = self.how.load(Relaxed);
        (how & How::RECORDED != 0).then(|| ResponseEnd {
            center: self.center(),
            tile_sides: how & How::SIDES,
            free: how & How::FREE != 0,
            drop_through: how & How::DROP_THROUGH != 0,
            climbing: how & How::CLIMBING != 0,
            quiet: self.quiet.load(Relaxed) != 0,
        })
    }

    /// Where the body ended the step so far.
    #[inline]
    pub(crate) fn center(&self) -> Vec2 {
        unpack(self.center.load(Relaxed))
    }

    /// Notes that relaxation moved the body to `center`; whether that is away from where it was.
    #[inline]
    pub(crate) fn move_to(&self, center: Vec2) -> bool {
        let bits = pack(center);
        self.center.swap(bits, Relaxed) != bits
    }
}

/// Where the response left each body of the contact layout, by slot: written by the response
/// when relaxation is on, read by relaxation.
#[derive(Resource, Default)]
pub(crate) struct ResponseEnds {
    ends: Vec<EndRecord>,
}

impl ResponseEnds {
    /// One record per slot of `layout` (new slots unrecorded).
    pub(crate) fn fit(&mut self, layout: &ContactStore) {
        self.ends
            .resize_with(layout.records.len(), Default::default);
    }

    /// Records where the response left `entity` (if it was detected): its centre, the sides
    /// touching tiles this step, and its switches.
    #[inline]
    pub(crate) fn record(
        &self,
        layout: &ContactStore,
        entity: Entity,
        (center, tile_sides): (Vec2, u8),
        switches: &BodySwitches,
    ) {
        if let Some(k) = layout.now.slot(entity) {
            let quiet = center == layout.records[k].center && layout.shallow(k);
            self.ends[k].record(center, tile_sides, switches, quiet);
        }
    }

    /// Where the response left slot `k`'s body, if it is a body the response handled (not
    /// kinematic, not an empty slot).
    #[inline]
    pub(crate) fn end(&self, layout: &ContactStore, k: usize) -> Option<ResponseEnd> {
        let snap = &layout.records[k];
        if snap.kinematic || snap.entity == Entity::PLACEHOLDER {
            return None;
        }
        self.ends.get(k)?.read()
    }

    /// Whether relaxation moved slot `k`'s body (one the response handled) to `center`; if so,
    /// that is where it ended ([`relaxed_center`](Self::relaxed_center)).
    #[inline]
    pub(crate) fn moved_by_relaxation(
        &self,
        layout: &ContactStore,
        k: usize,
        center: Vec2,
    ) -> bool {
        self.end(layout, k).is_some() && self.ends[k].move_to(center)
    }

    /// Where slot `k`'s body ended the step so far.
    #[inline]
    pub(crate) fn relaxed_center(&self, k: usize) -> Vec2 {
        self.ends[k].center()
    }
}
