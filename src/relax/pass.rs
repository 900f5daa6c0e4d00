//! The passes over one group (see the [algorithm](super)): the rules a sweep follows (a pair to
//! settle along an axis, the order of the bodies, a body's need, its push through the tile
//! sweep), shared with the reference step, and the sweeps themselves, from a heap of the
//! bodies to visit.

use bevy::prelude::*;
use core::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::flags::{Side, side_bit};
use crate::geometry::pair_skin;
use crate::tiles::TileMap;
use crate::tiles::collide::{PassThrough, sweep_displacement};

/// A body as relaxation sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RelaxBody {
    pub(crate) center: Vec2,
    pub(crate) half: Vec2,
    /// The sides it cannot be pushed toward (left 1, right 2, top 4, bottom 8).
    pub(crate) blocked: u8,
    /// Its entity's bits: the last word of the order in which a sweep visits bodies.
    pub(crate) id: u64,
    pub(crate) mobility: Mobility,
}

/// Every side: how a body that never moves is blocked.
pub(crate) const ALL_SIDES: u8 = 0xF;

/// How a body may be moved: not at all (kinematic), freely (no world collision), or through
/// the tile sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mobility {
    Fixed,
    Free,
    Swept(PassThrough),
}

/// One direction along one axis: where a sweep pushes bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Direction {
    /// 0: x, 1: y.
    pub(crate) axis: usize,
    /// Toward +axis (right, up).
    pub(crate) ahead: bool,
}

impl Direction {
    pub(crate) const UP: Self = Self {
        axis: 1,
        ahead: true,
    };
    pub(crate) const RIGHT: Self = Self {
        axis: 0,
        ahead: true,
    };

    pub(crate) fn reversed(self) -> Self {
        Self {
            ahead: !self.ahead,
            ..self
        }
    }

    fn sign(self) -> f32 {
        if self.ahead { 1.0 } else { -1.0 }
    }

    /// The side a body pushed this way is pushed toward.
    fn side(self) -> u8 {
        side_bit(match (self.axis, self.ahead) {
            (0, true) => Side::Right,
            (0, false) => Side::Left,
            (_, true) => Side::Top,
            (_, false) => Side::Bottom,
        })
    }
}

/// Where a phase found the bodies (each body's centre), and its axis: what orders the bodies
/// and decides along which axis a pair is settled, whatever the phase's sweeps do.
pub(crate) struct Phase<'a> {
    pub(crate) start: &'a [Vec2],
    pub(crate) touch: f32,
}

/// The bits of `f` as an unsigned number in the order of the floats (negative ones first).
pub(crate) fn ordered_bits(f: f32) -> u32 {
    let bits = f.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

impl Phase<'_> {
    /// Body `k`'s place in a sweep along `dir`, lowest first: its centre where the phase found
    /// it along `dir`'s axis, then its entity.
    pub(crate) fn key(&self, bodies: &[RelaxBody], k: usize, dir: Direction) -> u128 {
        let place =
            u128::from(ordered_bits(self.start[k][dir.axis])) << 64 | u128::from(bodies[k].id);
        if dir.ahead {
            place
        } else {
            !place & (u128::MAX >> 32)
        }
    }

    /// Whether body `i` comes before body `j` in a sweep along `dir`.
    pub(crate) fn before(
        &self,
        bodies: &[RelaxBody],
        (i, j): (usize, usize),
        dir: Direction,
    ) -> bool {
        self.key(bodies, i, dir) < self.key(bodies, j, dir)
    }

    /// The distance between the centres of bodies `i` and `j` along `axis` when they touch, if
    /// their pair is **settled along** that axis: they overlap across it by more than the
    /// pair's tolerance now, and by no less than they overlapped along it where the phase found
    /// them.
    pub(crate) fn pair_along(
        &self,
        bodies: &[RelaxBody],
        (i, j): (usize, usize),
        axis: usize,
    ) -> Option<f32> {
        let (a, b) = (&bodies[i], &bodies[j]);
        let across = 1 - axis;
        let overlap_across =
            (a.half[across] + b.half[across]) - (a.center[across] - b.center[across]).abs();
        // Boxes without area touch nothing (and a NaN settles nothing). The pair's tolerance is
        // at least the contact tolerance: that test first, it is cheaper.
        let settles = overlap_across > self.touch
            && overlap_across > pair_skin(self.touch, a.center, b.center);
        if !settles || a.half.min_element() == 0.0 || b.half.min_element() == 0.0 {
            return None;
        }
        let gap = a.half[axis] + b.half[axis];
        let overlap_along = gap - (self.start[i][axis] - self.start[j][axis]).abs();
        (overlap_along <= overlap_across).then_some(gap)
    }

    /// Where (signed: the coordinate times the direction's sign) body `i` has body `j` go in a
    /// sweep along `dir`, if `i` comes before `j`, their pair is settled along the axis, and
    /// that is beyond `j` by more than the pair's tolerance.
    fn wanted(&self, bodies: &[RelaxBody], (i, j): (usize, usize), dir: Direction) -> Option<f32> {
        if !self.before(bodies, (i, j), dir) {
            return None;
        }
        let gap = self.pair_along(bodies, (i, j), dir.axis)?;
        self.beyond(bodies, (i, j), gap, dir)
    }

    /// Where body `i` has body `j` go along `dir` to touch it (their centres `gap` apart), if
    /// that is beyond `j` by more than the pair's tolerance.
    fn beyond(
        &self,
        bodies: &[RelaxBody],
        (i, j): (usize, usize),
        gap: f32,
        dir: Direction,
    ) -> Option<f32> {
        let (me, other) = (&bodies[j], &bodies[i]);
        let sign = dir.sign();
        let wanted = sign * (other.center[dir.axis] + sign * gap);
        let beyond = wanted - sign * me.center[dir.axis];
        let far = beyond > self.touch && beyond > pair_skin(self.touch, me.center, other.center);
        far.then_some(wanted)
    }

    /// Body `j`'s **need** in a sweep along `dir`: the furthest that a partner has it go
    /// ([`wanted`](Self::wanted)).
    pub(crate) fn need(
        &self,
        bodies: &[RelaxBody],
        j: usize,
        partners: impl IntoIterator<Item = usize>,
        dir: Direction,
    ) -> Option<f32> {
        let wanted = partners
            .into_iter()
            .filter_map(|i| self.wanted(bodies, (i, j), dir));
        wanted.reduce(f32::max)
    }

    /// The bodies the pair of bodies `i` and `j` gives a need: the later one in a sweep along
    /// `dir`, and (when `both`) the earlier one in the sweep the other way. Reading each pair
    /// once so finds every body with a need.
    pub(crate) fn needs(
        &self,
        bodies: &[RelaxBody],
        (i, j): (usize, usize),
        (dir, both): (Direction, bool),
    ) -> [Option<usize>; 2] {
        let Some(gap) = self.pair_along(bodies, (i, j), dir.axis) else {
            return [None, None];
        };
        let (first, second) = match self.before(bodies, (i, j), dir) {
            true => (i, j),
            false => (j, i),
        };
        let ahead = self
            .beyond(bodies, (first, second), gap, dir)
            .map(|_| second);
        let behind = both
            .then(|| self.beyond(bodies, (second, first), gap, dir.reversed()))
            .flatten()
            .map(|_| first);
        [ahead, behind]
    }
}

/// What visiting a body did.
pub(crate) struct Visit {
    pub(crate) moved: bool,
    /// It ended short of its need.
    pub(crate) short: bool,
}

/// Pushes body `j` along `dir` to its need, through the tile sweep; a side on which it is
/// blocked, or a push stopped, leaves it blocked there.
pub(crate) fn visit(
    map: &TileMap,
    bodies: &mut [RelaxBody],
    j: usize,
    (need, dir): (f32, Direction),
    touch: f32,
) -> Visit {
    let me = bodies[j];
    let sign = dir.sign();
    let mut push = Vec2::ZERO;
    push[dir.axis] = sign * (need - sign * me.center[dir.axis]);
    let (to, stopped) = if me.blocked & dir.side() != 0 {
        (me.center, dir.side())
    } else {
        apply_push(map, (me.center, me.half), push, me.mobility, touch)
    };
    bodies[j].center = to;
    bodies[j].blocked |= stopped;
    Visit {
        moved: to != me.center,
        short: sign * to[dir.axis] < need,
    }
}

/// Where `push` takes a body at `center` (half extents `half`), and the sides on which the tile
/// sweep stopped it.
pub(crate) fn apply_push(
    map: &TileMap,
    (center, half): (Vec2, Vec2),
    push: Vec2,
    mobility: Mobility,
    touch: f32,
) -> (Vec2, u8) {
    let wanted = center + push;
    let to = match mobility {
        Mobility::Fixed => return (center, 0),
        Mobility::Free => wanted,
        Mobility::Swept(pass) => sweep_displacement(map, center, half, push, pass, touch),
    };
    let stopped = |axis: usize, toward: Side, away: Side| match to[axis] != wanted[axis] {
        true => side_bit(if push[axis] > 0.0 { toward } else { away }),
        false => 0,
    };
    let stopped = stopped(0, Side::Right, Side::Left) | stopped(1, Side::Top, Side::Bottom);
    (to, stopped)
}

/// Where the horizontal phase leaves a body its two orders left at `mine` and `theirs`: the
/// middle when both moved it only along x (it lies on their paths); else halfway from `mine`
/// through the tile sweep (the middle of two places on a slope can lie inside it). Blocked
/// where either blocked it.
pub(crate) fn merge(
    map: &TileMap,
    mine: &mut RelaxBody,
    theirs: &RelaxBody,
    start: Vec2,
    touch: f32,
) {
    if mine.center.y == start.y && theirs.center.y == start.y {
        if mine.center.x != theirs.center.x {
            mine.center.x = (mine.center.x + theirs.center.x) * 0.5;
        }
    } else if mine.center != theirs.center {
        let middle = (mine.center + theirs.center) * 0.5;
        let push = middle - mine.center;
        mine.center = match apply_push(map, (mine.center, mine.half), push, mine.mobility, touch) {
            (_, 0) => middle,
            (to, _) => to,
        };
    }
    mine.blocked |= theirs.blocked;
}

/// Where a body relaxation moved along both axes ends: where the tile sweep takes it from
/// `origin` (where relaxation found it) by its whole displacement, so a body pushed round a
/// tile's corner in separate pushes is stopped by the tile instead.
pub(crate) fn whole_path(map: &TileMap, body: &RelaxBody, origin: Vec2, touch: f32) -> Vec2 {
    let moved = body.center - origin;
    match body.mobility {
        Mobility::Swept(pass) if moved.x != 0.0 && moved.y != 0.0 && moved.is_finite() => {
            sweep_displacement(map, origin, body.half, moved, pass, touch)
        }
        _ => body.center,
    }
}

/// Whether a pass changed nothing: every body where it was (bit for bit), blocked where it was.
pub(crate) fn unchanged(bodies: &[RelaxBody], before: &[RelaxBody]) -> bool {
    let bits = |p: &RelaxBody| (p.center.x.to_bits(), p.center.y.to_bits(), p.blocked);
    bodies.iter().zip(before).all(|(a, b)| bits(a) == bits(b))
}

/// Whether two boxes overlap by more than `touch` on both axes (boxes without area never do).
pub(crate) fn overlapping(a: &RelaxBody, b: &RelaxBody, touch: f32) -> bool {
    let o = (a.half + b.half) - (a.center - b.center).abs();
    o.x > touch && o.y > touch && a.half.min_element() != 0.0 && b.half.min_element() != 0.0
}

/// A group's partner lists: body `k`'s partners (indices in the group) are
/// `others[starts[k]..starts[k + 1]]`.
#[derive(Clone, Copy)]
pub(crate) struct Partners<'a> {
    pub(crate) starts: &'a [u32],
    pub(crate) others: &'a [u32],
}

impl Partners<'_> {
    pub(crate) fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.starts[k] as usize..self.starts[k + 1] as usize;
        self.others[range].iter().map(|&j| j as usize)
    }
}

/// The buffers of one group's passes, kept between steps.
#[derive(Default)]
pub(crate) struct Buffers {
    /// Where relaxation found each body.
    pub(crate) origin: Vec<Vec2>,
    /// Where the phase found each body.
    start: Vec<Vec2>,
    /// The bodies as the pass found them.
    before: Vec<RelaxBody>,
    /// The bodies as the horizontal phase's leftward order leaves them.
    other: Vec<RelaxBody>,
    /// Which sweep last queued each body, and the last mark handed out.
    queued: Vec<u32>,
    mark: u32,
    heap: BinaryHeap<Reverse<u128>>,
    /// The bodies a sweep starts from, and those the sweep the other way starts from.
    seeds: Vec<u32>,
    back: Vec<u32>,
    short: Vec<u32>,
}

/// Relaxes one group (see the [algorithm](super)) for at most `passes` passes. Returns how
/// many passes changed it.
pub(crate) fn relax_group(
    map: &TileMap,
    bodies: &mut [RelaxBody],
    partners: Partners,
    (passes, touch): (u32, f32),
    b: &mut Buffers,
) -> u32 {
    let n = bodies.len();
    b.origin.clear();
    b.origin.extend(bodies.iter().map(|p| p.center));
    b.queued.clear();
    b.queued.resize(n, 0);
    b.mark = 0;
    let mut changed = 0;
    for _ in 0..passes {
        b.before.clear();
        b.before.extend_from_slice(bodies);
        // The vertical phase: from the support up, then back down from what fell short.
        start_phase(bodies, b);
        seed(bodies, partners, (Direction::UP, false), touch, b);
        sweep_and_back(map, bodies, partners, Direction::UP, touch, b);
        // The horizontal phase: rightward and leftward from the same start, then halfway.
        start_phase(bodies, b);
        seed(bodies, partners, (Direction::RIGHT, true), touch, b);
        if !(b.seeds.is_empty() && b.back.is_empty()) {
            let mut other = core::mem::take(&mut b.other);
            other.clear();
            other.extend_from_slice(bodies);
            let mut leftward = core::mem::take(&mut b.back);
            sweep_and_back(map, bodies, partners, Direction::RIGHT, touch, b);
            core::mem::swap(&mut b.seeds, &mut leftward);
            let left = Direction::RIGHT.reversed();
            sweep_and_back(map, &mut other, partners, left, touch, b);
            for ((mine, theirs), &start) in bodies.iter_mut().zip(&other).zip(&b.start) {
                merge(map, mine, theirs, start, touch);
            }
            (b.other, b.back) = (other, leftward);
        }
        if unchanged(bodies, &b.before) {
            break;
        }
        changed += 1;
    }
    for (body, &origin) in bodies.iter_mut().zip(&b.origin) {
        body.center = whole_path(map, body, origin, touch);
    }
    changed
}

fn start_phase(bodies: &[RelaxBody], b: &mut Buffers) {
    b.start.clear();
    b.start.extend(bodies.iter().map(|p| p.center));
}

/// The bodies the sweep along `dir` (into `b.seeds`) and, when `both`, the sweep the other way
/// (into `b.back`) start from: those with a need where the phase found them, each pair read
/// once.
fn seed(
    bodies: &[RelaxBody],
    partners: Partners,
    (dir, both): (Direction, bool),
    touch: f32,
    b: &mut Buffers,
) {
    let phase = Phase {
        start: &b.start,
        touch,
    };
    b.seeds.clear();
    b.back.clear();
    for k in 0..bodies.len() {
        for j in partners.of(k).filter(|&j| j > k) {
            let [ahead, behind] = phase.needs(bodies, (k, j), (dir, both));
            b.seeds.extend(ahead.map(|s| s as u32));
            b.back.extend(behind.map(|s| s as u32));
        }
    }
}

/// A sweep along `dir` from the seeds, then the sweep back from the partners behind each body
/// it left short.
fn sweep_and_back(
    map: &TileMap,
    bodies: &mut [RelaxBody],
    partners: Partners,
    dir: Direction,
    touch: f32,
    b: &mut Buffers,
) {
    sweep(map, bodies, partners, dir, touch, b);
    let phase = Phase {
        start: &b.start,
        touch,
    };
    let back = dir.reversed();
    b.seeds.clear();
    for &s in &b.short {
        let s = s as usize;
        let behind = partners
            .of(s)
            .filter(|&i| phase.before(bodies, (s, i), back));
        b.seeds.extend(behind.map(|i| i as u32));
    }
    sweep(map, bodies, partners, back, touch, b);
}

/// One sweep along `dir`: the seeds and the bodies they push into, in the sweep's order, each
/// pushed to its need; those left short go to `b.short`.
fn sweep(
    map: &TileMap,
    bodies: &mut [RelaxBody],
    partners: Partners,
    dir: Direction,
    touch: f32,
    b: &mut Buffers,
) {
    let phase = Phase {
        start: &b.start,
        touch,
    };
    b.mark = b.mark.wrapping_add(1);
    let mark = b.mark;
    b.short.clear();
    b.heap.clear();
    for &s in &b.seeds {
        if core::mem::replace(&mut b.queued[s as usize], mark) != mark {
            b.heap.push(Reverse(
                phase.key(bodies, s as usize, dir) << 32 | u128::from(s),
            ));
        }
    }
    while let Some(Reverse(next)) = b.heap.pop() {
        let j = next as u32 as usize;
        let Some(need) = phase.need(bodies, j, partners.of(j), dir) else {
            continue;
        };
        let visited = visit(map, bodies, j, (need, dir), touch);
        if visited.short {
            b.short.push(j as u32);
        }
        if !visited.moved {
            continue;
        }
        for k in partners.of(j) {
            if b.queued[k] != mark && phase.before(bodies, (j, k), dir) {
                b.queued[k] = mark;
                b.heap
                    .push(Reverse(phase.key(bodies, k, dir) << 32 | k as u128));
            }
        }
    }
}
