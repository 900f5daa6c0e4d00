//! Squeezes: what relaxation leaves overlapping where the bodies cannot be pushed apart, and
//! what presses them (see the [algorithm](super), "Squeezes").

use bevy::prelude::*;

use crate::body::Aabb;

use super::pass::{Mobility, RelaxBody, ordered_bits, overlapping};
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
    /// The sides each body is pressed on.
    pressed: Vec<u8>,
    /// The bodies, each with its place along the side being worked out, furthest first.
    order: Vec<(u128, u32)>,
    /// Whether each body is squeezed.
    pub(crate) squeezed: Vec<bool>,
    /// Each squeezed body and what presses each of its sides, in [`Side::ALL`] order, by slot.
    pub(crate) found: Vec<(usize, [Option<PressedBy>; 4])>,
}

/// The side of body `a` facing body `b`, which it touches or overlaps with the signed overlap
/// `o` (see [`signed_overlap_within`]): both axes beyond `skin`, along the smaller; one within
/// it, along that one (they touch there). Which way is read from the centres (level ones by
/// entity, the lower one below), so a gap within `skin` faces like an overlap, and a body on
/// another's side `s` is always further that way along the axis of `s`, in the order of
/// (centre, entity): the bodies pressing each other never go round in a circle.
fn facing(a: &RelaxBody, b: &RelaxBody, o: Vec2, skin: f32) -> Option<Side> {
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

/// Finds the squeezes relaxation left in `bodies` (see the [algorithm](super)), whose
/// partners are `partners(k)`, into `out`.
pub(crate) fn find_squeezes<P>(
    bodies: &[RelaxBody],
    partners: impl Fn(usize) -> P,
    touch: f32,
    out: &mut Squeezes,
) where
    P: Iterator<Item = usize>,
{
    let n = bodies.len();
    out.none(n);
    let moving = |k: usize| {
        bodies[k].mobility != Mobility::Fixed
            && Aabb::new(bodies[k].center, bodies[k].half).is_valid()
    };
    let pairs = (0..n).flat_map(|k| partners(k).filter(move |&j| k < j).map(move |j| (k, j)));
    for (k, j) in pairs {
        if !(moving(k) && moving(j) && overlapping(&bodies[k], &bodies[j], touch)) {
            continue;
        }
        let (a, b) = (&bodies[k], &bodies[j]);
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
        let (a, b) = (&bodies[k], &bodies[j]);
        let skin = pair_skin(touch, a.center, b.center);
        let o = signed_overlap_within(a.center, a.half, b.center, b.half, skin)?;
        facing(a, b, o, skin)
    };
    out.pressed.clear();
    out.pressed.resize(n, 0);
    for side in Side::ALL {
        out.pressed_on(side, bodies, (&partners, &side_of));
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
            if bodies[k].blocked & bit != 0 {
                return Some(PressedBy::Tile);
            }
            // The lowest entity of what presses it there: a pressed body (one that never
            // moves is), touching or overlapping it on that side.
            partners(k)
                .filter(|&j| out.pressed[j] & bit != 0)
                .filter(|&j| side_of(k, j) == Some(side))
                .min_by_key(|&j| bodies[j].id)
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

    /// Works out which bodies are pressed on `side`: those blocked there (a body that never
    /// moves is blocked on every side), and those touching or overlapping there a body
    /// pressed there. That body lies further that way ([`facing`]), so one visit of the
    /// bodies from the furthest settles each after those it depends on.
    fn pressed_on<P, F, S>(
        &mut self,
        side: Side,
        bodies: &[RelaxBody],
        (partners, side_of): (&F, &S),
    ) where
        P: Iterator<Item = usize>,
        F: Fn(usize) -> P,
        S: Fn(usize, usize) -> Option<Side>,
    {
        let bit = side_bit(side);
        let (axis, ahead) = match side {
            Side::Left => (0, false),
            Side::Right => (0, true),
            Side::Bottom => (1, false),
            Side::Top => (1, true),
        };
        let key = |p: &RelaxBody| {
            let sign = if ahead { 1.0 } else { -1.0 };
            // `+ 0.0`: -0 as 0, as `facing` compares them.
            u128::from(ordered_bits(sign * p.center[axis] + 0.0)) << 64
                | u128::from(if ahead { p.id } else { !p.id })
        };
        self.order.clear();
        let places = bodies.iter().enumerate();
        self.order.extend(places.map(|(k, p)| (key(p), k as u32)));
        self.order.sort_unstable_by(|a, b| b.cmp(a));
        for &(_, k) in &self.order {
            let k = k as usize;
            let pressed = bodies[k].blocked & bit != 0
                || partners(k).any(|j| self.pressed[j] & bit != 0 && side_of(k, j) == Some(side));
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
