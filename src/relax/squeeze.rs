//! Squeezes: what relaxation leaves overlapping where the bodies cannot be pushed apart, and
//! what presses them (see the [algorithm](super), "Squeezes").

use bevy::prelude::*;

use crate::body::Aabb;

use super::pass::{Mobility, Piece, ordered_bits, overlapping};
use crate::flags::{Side, side_bit};
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::messages::{Presser, Squished};

/// How many contact tolerances two bodies must still overlap by, after relaxation, for the
/// overlap to count toward a squeeze.
pub(crate) const SQUEEZE_SKINS: f32 = 10.0;

/// What presses a squeezed body on one side: a tile, or the body in a slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PressedBy {
    Tile,
    Slot(usize),
}

/// The squeezes relaxation left (see the [algorithm](super)), and the buffers that find them.
#[derive(Default)]
pub(crate) struct Squeezes {
    /// (body, partner, the body's side facing the partner): pairs still overlapping deeper than
    /// the squeeze depth, from both ends.
    deep: Vec<(u32, u32, u8)>,
    /// The sides each body is known to be pressed on.
    pressed: Vec<u8>,
    /// The sides on which whether each body is pressed is being worked out.
    reached: Vec<u8>,
    /// The bodies reached for the side being worked out, each with its place along that side
    /// (see [`Squeezes::pressed_on`]).
    order: Vec<(u128, u32)>,
    /// Whether each body is squeezed.
    pub(crate) squeezed: Vec<bool>,
    /// Each squeezed body and what presses each of its sides, in [`Side::ALL`] order, by slot.
    pub(crate) found: Vec<(usize, [Option<PressedBy>; 4])>,
}

/// Which way along its axis `side` faces: +1 for right and top.
fn outward(side: Side) -> f32 {
    match side {
        Side::Right | Side::Top => 1.0,
        Side::Left | Side::Bottom => -1.0,
    }
}

/// The axis of `side`: 0 for left and right, 1 for top and bottom.
fn axis_of(side: Side) -> usize {
    match side {
        Side::Left | Side::Right => 0,
        Side::Top | Side::Bottom => 1,
    }
}

/// The side of body `a` facing body `b`, which it touches or overlaps with the signed overlap
/// `o` (see [`signed_overlap_within`]): both axes beyond `skin`, along the smaller; one within
/// it, along that one (they touch there). Which way is read from the centres (level ones by
/// entity, the lower one below), so a gap within `skin` faces like an overlap, and a body on
/// another's side `s` is always further that way along the axis of `s`, in the order of
/// (centre, entity): the bodies pressing each other never go round in a circle.
fn facing(a: &Piece, b: &Piece, o: Vec2, skin: f32) -> Option<Side> {
    let (ax, ay) = (o.x.abs(), o.y.abs());
    let horizontal = match (ax <= skin, ay <= skin) {
        (true, true) => return None,
        (true, false) => true,
        (false, true) => false,
        (false, false) => ax <= ay,
    };
    let axis = usize::from(!horizontal);
    let b_below =
        a.center[axis] > b.center[axis] || (a.center[axis] == b.center[axis] && a.id > b.id);
    Some(match (horizontal, b_below) {
        (true, true) => Side::Left,
        (true, false) => Side::Right,
        (false, true) => Side::Bottom,
        (false, false) => Side::Top,
    })
}

/// The opposite side bits of `sides`.
fn across(sides: u8) -> u8 {
    let horizontal = side_bit(Side::Left) | side_bit(Side::Right);
    if sides & horizontal != 0 {
        horizontal & !sides
    } else {
        (side_bit(Side::Top) | side_bit(Side::Bottom)) & !sides
    }
}

/// Finds the squeezes relaxation left in `pieces` (see the [algorithm](super)), whose
/// partners are `partners(k)`, into `out`.
pub(crate) fn find_squeezes<P>(
    pieces: &[Piece],
    partners: impl Fn(usize) -> P,
    touch: f32,
    out: &mut Squeezes,
) where
    P: Iterator<Item = usize>,
{
    let n = pieces.len();
    out.none(n);
    let fixed = |k: usize| pieces[k].mobility == Mobility::Fixed;
    let moving = |k: usize| !fixed(k) && Aabb::new(pieces[k].center, pieces[k].half).is_valid();
    let pairs = (0..n).flat_map(|k| partners(k).filter(move |&j| k < j).map(move |j| (k, j)));
    for (k, j) in pairs {
        if !(moving(k) && moving(j) && overlapping(&pieces[k], &pieces[j], touch)) {
            continue;
        }
        let (a, b) = (&pieces[k], &pieces[j]);
        let skin = pair_skin(touch, a.center, b.center);
        let Some(o) = signed_overlap_within(a.center, a.half, b.center, b.half, skin) else {
            continue;
        };
        if o.abs().min_element() <= SQUEEZE_SKINS * skin {
            continue;
        }
        if let (Some(mine), Some(theirs)) = (facing(a, b, o, skin), facing(b, a, -o, skin)) {
            out.deep.push((k as u32, j as u32, side_bit(mine)));
            out.deep.push((j as u32, k as u32, side_bit(theirs)));
        }
    }
    if out.deep.is_empty() {
        return;
    }
    // The side of body `k` that body `j` touches or overlaps.
    let side_of = |k: usize, j: usize| {
        let (a, b) = (&pieces[k], &pieces[j]);
        let skin = pair_skin(touch, a.center, b.center);
        let o = signed_overlap_within(a.center, a.half, b.center, b.half, skin)?;
        facing(a, b, o, skin)
    };
    out.pressed.clear();
    out.pressed.resize(n, 0);
    out.reached.clear();
    out.reached.resize(n, 0);
    for side in Side::ALL {
        out.pressed_on(side, pieces, (&partners, &fixed, &side_of));
    }
    for &(k, _, side) in &out.deep {
        let k = k as usize;
        if out.pressed[k] & across(side) != 0 && out.pressed[k] & side != 0 {
            out.squeezed[k] = true;
        }
    }
    // In slot order, each once (`relax_bodies` looks them up by slot).
    for k in (0..n).filter(|&k| out.squeezed[k]) {
        let by = Side::ALL.map(|side| {
            let bit = side_bit(side);
            if out.pressed[k] & bit == 0 {
                return None;
            }
            if pieces[k].blocked & bit != 0 {
                return Some(PressedBy::Tile);
            }
            // The lowest entity of what presses it there: a body that never moves, or a
            // pressed body, touching or overlapping it on that side.
            partners(k)
                .filter(|&j| fixed(j) || out.pressed[j] & bit != 0)
                .filter(|&j| side_of(k, j) == Some(side))
                .min_by_key(|&j| pieces[j].id)
                .map(PressedBy::Slot)
        });
        out.found.push((k, by));
    }
}

impl Squeezes {
    /// Nobody of `bodies` slots squeezed.
    pub(crate) fn none(&mut self, bodies: usize) {
        self.deep.clear();
        self.found.clear();
        self.squeezed.clear();
        self.squeezed.resize(bodies, false);
    }

    /// Works out whether each body of a deep pair along the axis of `side`, and each body it
    /// depends on, is pressed on `side`: it is when it is blocked there, when a body that
    /// never moves touches or overlaps it there, or when a body touching or overlapping it
    /// there is. The bodies it depends on lie further that way ([`facing`]), so they are
    /// settled first, from the furthest.
    fn pressed_on<P, F, X, S>(
        &mut self,
        side: Side,
        pieces: &[Piece],
        (partners, fixed, side_of): (&F, &X, &S),
    ) where
        P: Iterator<Item = usize>,
        F: Fn(usize) -> P,
        X: Fn(usize) -> bool,
        S: Fn(usize, usize) -> Option<Side>,
    {
        let bit = side_bit(side);
        let axis = axis_of(side);
        let sign = outward(side);
        self.order.clear();
        let mut next = 0;
        let key = |k: usize| {
            let p = &pieces[k];
            // `+ 0.0`: -0 as 0, as `facing` compares them.
            u128::from(ordered_bits(sign * p.center[axis] + 0.0)) << 64
                | u128::from(if sign > 0.0 { p.id } else { !p.id })
        };
        for &(k, _, deep_side) in &self.deep {
            let k = k as usize;
            if (deep_side | across(deep_side)) & bit != 0 && self.reached[k] & bit == 0 {
                self.reached[k] |= bit;
                self.order.push((key(k), k as u32));
            }
        }
        // Every body the seeds depend on: those on their side, and on theirs.
        while let Some(&(_, k)) = self.order.get(next) {
            next += 1;
            let k = k as usize;
            if pieces[k].blocked & bit != 0 {
                self.pressed[k] |= bit;
                continue;
            }
            for j in partners(k) {
                if side_of(k, j) != Some(side) {
                    continue;
                }
                if fixed(j) {
                    self.pressed[k] |= bit;
                } else if self.reached[j] & bit == 0 {
                    self.reached[j] |= bit;
                    self.order.push((key(j), j as u32));
                }
            }
        }
        // The furthest first: each body's are settled before it.
        self.order.sort_unstable_by(|a, b| b.cmp(a));
        for &(_, k) in &self.order {
            let k = k as usize;
            if self.pressed[k] & bit != 0 {
                continue;
            }
            let pressed =
                partners(k).any(|j| self.pressed[j] & bit != 0 && side_of(k, j) == Some(side));
            if pressed {
                self.pressed[k] |= bit;
            }
        }
    }
}

/// The [`Squished`] message for a squeezed body: `pressers` by slot, `entity(slot)` naming
/// them.
pub(crate) fn squished_by_relaxation(
    entity: Entity,
    center: Vec2,
    pressers: &[Option<PressedBy>; 4],
    entity_of: impl Fn(usize) -> Entity,
) -> Squished {
    let pressers = pressers.map(|p| {
        p.map(|p| match p {
            PressedBy::Tile => Presser::Tile,
            PressedBy::Slot(j) => Presser::Body(entity_of(j)),
        })
    });
    crate::response::squished_by_bodies(entity, center, Some(pressers))
}
