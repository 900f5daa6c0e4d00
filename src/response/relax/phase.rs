//! A phase of a relaxation pass: where it finds the bodies ([`PhaseStart`]), the pairs it reads
//! ([`begin_phase`]), and its sweeps along y (from the support up, then back down) or along x
//! (both ways, each order from the same picture).

use bevy::prelude::*;

use super::reading::{list_pair, overlap_on, read_pairs};
use super::sweep::{apply_push, sweep, sweep_back};
use super::{Join, Links, Mobility, Piece, Sweeps, if_many, ordered_bits};
use crate::flags::{Side, side_bit};
use crate::geometry::pair_skin;
use crate::tiles::TileMap;

/// One direction along one axis: where a sweep pushes bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Direction {
    /// 0: x, 1: y.
    pub(super) axis: usize,
    /// Toward +axis (right, up).
    pub(super) ahead: bool,
}

impl Direction {
    pub(super) fn reversed(self) -> Self {
        Self {
            ahead: !self.ahead,
            ..self
        }
    }

    /// The side a body pushed this way is pushed toward.
    pub(super) fn side(self) -> u8 {
        side_bit(match (self.axis, self.ahead) {
            (0, true) => Side::Right,
            (0, false) => Side::Left,
            (_, true) => Side::Top,
            (_, false) => Side::Bottom,
        })
    }

    pub(super) fn unit(self) -> Vec2 {
        let mut unit = Vec2::ZERO;
        unit[self.axis] = if self.ahead { 1.0 } else { -1.0 };
        unit
    }
}

impl Sweeps {
    /// Whether the phase along `axis` left any body away from where it found it.
    fn moved_any(&self, pieces: &[Piece], axis: usize) -> bool {
        let start = &self.phase.start[axis];
        (self.order.touched.iter()).any(|&k| pieces[k as usize].center[axis] != start[k as usize])
    }
}

/// Where a phase found the bodies, along each axis: each body's centre. Noted for every body
/// when relaxation begins, then kept up to date from phase to phase with the bodies the phase
/// before changed.
#[derive(Default)]
pub(super) struct PhaseStart {
    pub(super) start: [Vec<f32>; 2],
    /// The axis of the phase.
    pub(super) axis: usize,
}

impl PhaseStart {
    /// Notes where relaxation finds every body.
    pub(super) fn begin(&mut self, pieces: &[Piece]) {
        for axis in 0..2 {
            self.start[axis].clear();
            self.start[axis].extend(pieces.iter().map(|p| p.center[axis]));
        }
    }

    /// Begins a phase along `axis`, the phase before having changed the bodies `changed`.
    pub(super) fn new_phase(&mut self, pieces: &[Piece], axis: usize, changed: &[u32]) {
        for &k in changed {
            let piece = &pieces[k as usize];
            // Along both axes, not only the phase's (`axis`).
            for along in 0..2 {
                self.start[along][k as usize] = piece.center[along];
            }
        }
        self.axis = axis;
    }

    /// Body `k`'s place in the phase's sweeps toward +axis: its centre's bits where the phase
    /// found it, in the order of the floats, then its entity's bits ([`Piece::id`], which no
    /// phase changes).
    #[inline]
    pub(super) fn place(&self, pieces: &[Piece], k: usize) -> u128 {
        u128::from(ordered_bits(self.start[self.axis][k])) << 64 | u128::from(pieces[k].id)
    }

    /// Whether body `i` comes before body `j` of `pieces` in a sweep along `dir`.
    #[inline]
    pub(super) fn before(&self, pieces: &[Piece], (i, j): (usize, usize), dir: Direction) -> bool {
        (self.place(pieces, i) < self.place(pieces, j)) == dir.ahead
    }

    /// Where body `k` of `pieces` comes in a sweep along `dir`: the lowest first (a 96-bit
    /// number, as its place is).
    #[inline]
    pub(super) fn key(&self, pieces: &[Piece], k: usize, dir: Direction) -> u128 {
        if dir.ahead {
            self.place(pieces, k)
        } else {
            !self.place(pieces, k) & (u128::MAX >> 32)
        }
    }

    /// The distance between the centres of bodies `i` and `j` along `axis` when they touch,
    /// if they are a pair along that axis: they overlap across it by more than the tolerance,
    /// and by more than they overlapped along it where the phase found them (else they are a
    /// pair across it).
    #[inline]
    pub(super) fn pair_along(
        &self,
        pieces: &[Piece],
        (i, j): (usize, usize),
        axis: usize,
        touch: f32,
    ) -> Option<f32> {
        let (a, b) = (&pieces[i], &pieces[j]);
        let across = 1 - axis;
        let overlap_across = overlap_on(a, b, across);
        // Boxes without area touch nothing.
        if overlap_across.is_nan()
            || overlap_across <= touch
            || a.half.min_element() == 0.0
            || b.half.min_element() == 0.0
        {
            return None;
        }
        let skin = pair_skin(touch, a.center, b.center);
        let gap = a.half[axis] + b.half[axis];
        let start = &self.start[axis];
        let overlap_along = gap - (start[i] - start[j]).abs();
        (overlap_across > skin && overlap_along <= overlap_across).then_some(gap)
    }
}

/// Step 2: from the support up, then down from what holds the top.
pub(super) fn vertical_phase<P, F, M>(
    map: &TileMap,
    pieces: &mut [Piece],
    links: &Links<F, M>,
    (up, touch): (Direction, f32),
    sweeps: &mut Sweeps,
    join: &impl Join,
) -> bool
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility + Sync,
{
    if !begin_phase(pieces, links, (up, touch), sweeps, join) {
        return false;
    }
    let order = (&sweeps.phase, &mut sweeps.order);
    sweep(map, pieces, links, up, touch, order, &sweeps.ahead);
    let order = (&sweeps.phase, &mut sweeps.order);
    sweep_back(map, pieces, links, up.reversed(), touch, order);
    // The other picture (the horizontal phase's second order) as the phase left the bodies.
    for &k in sweeps.order.touched.iter().chain(&sweeps.order.blocked) {
        sweeps.other[k as usize] = pieces[k as usize];
    }
    sweeps.moved_any(pieces, up.axis)
}

/// The horizontal phase's two orders run on two threads (if `join` has them) when the bodies
/// they start from, ahead and behind, are at least this many.
const SWEEP_IN_PARALLEL: usize = 64;

/// Step 3: rightward then leftward, and leftward then rightward, from the same picture (on
/// two threads if `join` has them and the orders start from [`SWEEP_IN_PARALLEL`] bodies or
/// more); each body ends halfway between where the two orders left it ([`halfway`]).
pub(super) fn horizontal_phase<P, F, M>(
    map: &TileMap,
    pieces: &mut [Piece],
    links: &Links<F, M>,
    (right, touch): (Direction, f32),
    sweeps: &mut Sweeps,
    join: &impl Join,
) -> bool
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility + Sync,
{
    if !begin_phase(pieces, links, (right, touch), sweeps, join) {
        return false;
    }
    let Sweeps {
        phase,
        order,
        other,
        other_order,
        ahead,
        behind,
        ..
    } = sweeps;
    other_order.queued.resize(pieces.len(), 0);
    other_order.touched.clear();
    other_order.blocked.clear();
    let left = right.reversed();
    let (phase, ahead, behind) = (&*phase, &*ahead, &*behind);
    let rightward = || {
        sweep(map, pieces, links, right, touch, (phase, order), ahead);
        sweep_back(map, pieces, links, left, touch, (phase, order));
    };
    let leftward = || {
        sweep(map, other, links, left, touch, (phase, other_order), behind);
        sweep_back(map, other, links, right, touch, (phase, other_order));
    };
    // On two threads only when the sweeps start from many bodies: handing one order to
    // another thread costs more than a few bodies' sweeps (a pile's).
    let many = ahead.len() + behind.len() >= SWEEP_IN_PARALLEL;
    if_many(join, many).join(rightward, leftward);
    // Only the bodies either order changed differ between the two pictures.
    order.touched.extend_from_slice(&other_order.touched);
    order.blocked.extend_from_slice(&other_order.blocked);
    for &k in order.touched.iter().chain(&order.blocked) {
        let (mine, theirs) = (&mut pieces[k as usize], &mut other[k as usize]);
        let start_y = phase.start[1][k as usize];
        if mine.center.y == start_y && theirs.center.y == start_y {
            // Both orders only moved it along x, through the tile sweep from the same place:
            // the middle lies on one of their paths.
            if mine.center.x != theirs.center.x {
                mine.center.x = (mine.center.x + theirs.center.x) * 0.5;
            }
        } else {
            let mobility = (links.mobility)(k as usize);
            mine.center = halfway(map, mine, theirs.center, mobility, touch);
        }
        mine.blocked |= theirs.blocked;
        // Moved by either order, it is no longer known to be quiet.
        mine.quiet &= theirs.quiet;
        // The two pictures agree again (a body listed twice is merged once).
        *theirs = *mine;
    }
    sweeps.moved_any(pieces, right.axis)
}

/// Halfway between where the two orders left a body (`piece` and `other`) when either order also
/// moved it along y (a slope it was pushed into slid it), reached through the tile sweep from
/// `piece`: the middle of two such places need not be one a body may be (the slope can lie
/// between them).
fn halfway(map: &TileMap, piece: &Piece, other: Vec2, mobility: Mobility, touch: f32) -> Vec2 {
    let middle = (piece.center + other) * 0.5;
    let push = middle - piece.center;
    match apply_push(map, (piece.center, piece.half), push, mobility, touch) {
        // Nothing in the way: the middle itself (the sweep's sum may round it).
        (_, 0) => middle,
        (to, _) => to,
    }
}

/// Notes where the phase finds every body along `dir`'s axis, and lists the bodies with a
/// pair to settle: ahead of it (`sweeps.ahead`: the body ahead) and behind it
/// (`sweeps.behind`: the body behind). Returns whether there is any.
///
/// The first phase reads every pair with an end that is not quiet. A later one reads only the
/// pairs that can have changed or still overlap: those overlapping when the phase before
/// listed them ([`Sweeps::live`]), the pairs of the bodies that phase moved, and the pairs
/// the pass made. Any other pair overlapped by no more than the tolerance then, and both its
/// bodies are where they were.
pub(super) fn begin_phase<P, F, M>(
    pieces: &[Piece],
    links: &Links<F, M>,
    (dir, touch): (Direction, f32),
    sweeps: &mut Sweeps,
    join: &impl Join,
) -> bool
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility + Sync,
{
    debug_assert!(dir.ahead, "a phase's pairs are listed toward +axis");
    // The bodies the phase before moved: where this phase finds them.
    sweeps
        .phase
        .new_phase(pieces, dir.axis, &sweeps.order.touched);
    sweeps.order.blocked.clear();
    sweeps.ahead.clear();
    sweeps.behind.clear();
    read_pairs(pieces, links, sweeps, join, |phase, pair, out| {
        list_pair((pieces, phase), pair, dir, touch, out);
    });
    !sweeps.ahead.is_empty()
}
