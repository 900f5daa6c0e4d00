//! Relaxation: what the response leaves overlapping is pushed apart within the step, pass after
//! pass, from what holds it (tiles, kinematic bodies) outward.
//!
//! # Algorithm
//!
//! Article 003's response resolves each contact once, from what detection saw. In a pile or in
//! a crowd pressed into a wall, moving a body out of one neighbour moves it into another, and
//! what is left waits for the next step, which adds its own. Relaxation finishes the job in the
//! step. Over the pairs detection found and those touching where the response left the bodies
//! (a body the response moved into one it was not touching at detection), up to
//! [`PhysicsConfig::relaxation_passes`] times:
//!
//! 1. Every non-kinematic body with contacts reads itself and its partners where the last pass
//!    left them (the first pass: where the response left them). Each pass reads one picture
//!    and writes the next, so the order in which bodies are handled changes nothing.
//! 2. **Blocked sides.** A body is blocked on a side when it touches a solid tile there this
//!    step, when the sweep stopped one of its pushes on that side, or when a partner that
//!    touches or overlaps it on that side is kinematic or was blocked on that same side at the
//!    last pass. Blocking spreads from the floor and the walls outward, one body per pass, and
//!    is kept for the rest of the step.
//! 3. **Pushes.** For each partner it overlaps by more than the contact tolerance on both axes,
//!    the body is pushed out along the axis of the smaller overlap: the whole overlap when the
//!    partner cannot give way on that side and the body can, none of it in the opposite case,
//!    half otherwise (both free, or both held: a squeeze). Of the pushes in one direction the
//!    largest counts (a body sunk into two side by side rises once, not twice); opposite ones
//!    add up.
//! 4. The push is applied through the tile sweep, so a body is never pushed into a tile.
//! 5. The passes end early when one moves nobody.
//!
//! Relaxation moves boxes only: velocities, push flags, contacts and messages are the
//! response's. A body it moved is `Changed<Aabb>`, its `Transform` follows, and it is filed in
//! the partition where it ended.

use bevy::prelude::*;

use crate::body::Aabb;
use crate::config::PhysicsConfig;
use crate::fast::crew::CrewSlot;
use crate::fast::parallel::{CHUNKS, chunk_range, for_each_split};
use crate::fast::relaxing::MadePairs;
use crate::fast::rest::Awake;
use crate::fast::snapshot::ContactLayout;
use crate::flags::{Side, side_bit};
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::partition::Partition;
use crate::tiles::TileMap;
use crate::tiles::collide::{PassThrough, sweep_displacement};

/// A body as one pass of relaxation sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Piece {
    pub(crate) center: Vec2,
    pub(crate) half: Vec2,
    /// The sides it cannot be pushed toward (four bits: left 1, right 2, top 4, bottom 8).
    pub(crate) blocked: u8,
}

/// Every side: how a kinematic body is blocked (nothing moves it).
pub(crate) const ALL_SIDES: u8 = 0xF;

/// How a body may be moved by relaxation: not at all (kinematic, invalid or without contacts),
/// freely (no world collision), or through the tile sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mobility {
    Fixed,
    Free,
    Swept(PassThrough),
}

/// Steps 2 and 3 for one body: its push and its blocked sides after this pass, from its own
/// piece and its partners' (as the last pass left them).
pub(crate) fn relax_piece(
    me: Piece,
    partners: impl IntoIterator<Item = Piece>,
    touch: f32,
) -> (Vec2, u8) {
    let (mut plus, mut minus) = (Vec2::ZERO, Vec2::ZERO);
    let mut blocked = me.blocked;
    for other in partners {
        let skin = pair_skin(touch, me.center, other.center);
        let Some(o) = signed_overlap_within(me.center, me.half, other.center, other.half, skin)
        else {
            continue;
        };
        let (ax, ay) = (o.x.abs(), o.y.abs());
        // Which of my sides the partner is on, and how deep we overlap (zero: touching).
        let (horizontal, depth) = match (ax <= skin, ay <= skin) {
            (true, true) => continue,
            (true, false) => (true, 0.0),
            (false, true) => (false, 0.0),
            (false, false) if ax <= ay => (true, ax),
            (false, false) => (false, ay),
        };
        // A positive component pushes me toward +axis: the partner is on my min side.
        let toward = match (horizontal, if horizontal { o.x } else { o.y } > 0.0) {
            (true, true) => Side::Left,
            (true, false) => Side::Right,
            (false, true) => Side::Bottom,
            (false, false) => Side::Top,
        };
        let away = toward.opposite();
        let (toward_bit, away_bit) = (side_bit(toward), side_bit(away));
        // The partner is pushed away from me, toward its own side `toward`.
        let held = other.blocked & toward_bit != 0;
        if held {
            blocked |= toward_bit;
        }
        if depth == 0.0 {
            continue;
        }
        let share = match (me.blocked & away_bit != 0, held) {
            (false, true) => 1.0,
            (true, false) => 0.0,
            _ => 0.5,
        };
        let largest = match away {
            Side::Right => &mut plus.x,
            Side::Left => &mut minus.x,
            Side::Top => &mut plus.y,
            Side::Bottom => &mut minus.y,
        };
        *largest = largest.max(depth * share);
    }
    (plus - minus, blocked)
}

/// Step 4: where `push` takes a body at `center` (half extents `half`), and the sides on which
/// the sweep stopped it.
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
    let mut stopped = 0;
    if to.x != wanted.x {
        stopped |= side_bit(if push.x > 0.0 {
            Side::Right
        } else {
            Side::Left
        });
    }
    if to.y != wanted.y {
        stopped |= side_bit(if push.y > 0.0 {
            Side::Top
        } else {
            Side::Bottom
        });
    }
    (to, stopped)
}

/// One pass over `now` (steps 1 to 4), written to `next`: body `k`'s partners are
/// `partners(k)`, and it moves as `mobility(k)` says. Returns whether anybody moved.
pub(crate) fn relax_pass<P: IntoIterator<Item = usize>>(
    map: &TileMap,
    now: &[Piece],
    next: &mut [Piece],
    first: usize,
    (partners, mobility): (impl Fn(usize) -> P, impl Fn(usize) -> Mobility),
    touch: f32,
) -> bool {
    let mut moved = false;
    for (at, out) in next.iter_mut().enumerate() {
        let k = first + at;
        let me = now[k];
        *out = me;
        let how = mobility(k);
        if how == Mobility::Fixed {
            continue;
        }
        let (push, blocked) = relax_piece(me, partners(k).into_iter().map(|j| now[j]), touch);
        out.blocked = blocked;
        if push == Vec2::ZERO {
            continue;
        }
        let (center, stopped) = apply_push(map, (me.center, me.half), push, how, touch);
        out.center = center;
        out.blocked |= stopped;
        moved |= center != me.center;
    }
    moved
}

/// Relaxation is on ([`PhysicsConfig::relaxation_passes`] is not zero).
pub(crate) fn relaxing(config: Res<PhysicsConfig>) -> bool {
    config.relaxation_passes > 0
}

/// The relaxation buffers kept between steps (so a step allocates nothing once they are
/// grown): two pictures of every slot, and whether each piece of a pass moved anybody.
#[derive(Default)]
pub(crate) struct Pictures {
    now: Vec<Piece>,
    next: Vec<Piece>,
    moved: Vec<bool>,
    made: MadePairs,
}

/// Relaxes the bodies the response left (see the [algorithm](self)), over the slots of the
/// step's [`ContactLayout`] and the pairs detection found or the response made
/// ([`MadePairs`]), on the crew's threads above
/// [`PhysicsConfig::parallel_min_bodies`] (each pass cut into the same pieces on any number of
/// threads), and writes back the bodies it moved.
pub(crate) fn relax_bodies(
    (config, crew): (Res<PhysicsConfig>, Res<CrewSlot>),
    (map, partition): (Res<TileMap>, Res<Partition>),
    layout: Res<ContactLayout>,
    mut bodies: Query<(&mut Aabb, &mut Transform, &mut Awake), Without<crate::body::Kinematic>>,
    mut pictures: Local<Pictures>,
) {
    let slots = layout.snaps.len();
    if slots == 0 {
        return;
    }
    let touch = config.contact_tolerance;
    let Pictures {
        now,
        next,
        moved,
        made,
    } = &mut *pictures;
    layout.pieces_into(now);
    next.clone_from(now);
    moved.resize(CHUNKS, false);
    let threads = crew.threads(slots >= config.parallel_min_bodies);
    made.find(&layout, (&partition, now), touch, threads);
    let made = &*made;
    let layout_ref = &*layout;
    let map = &*map;
    for _ in 0..config.relaxation_passes {
        let end = |i: usize| {
            let e = chunk_range(i, CHUNKS, slots).end;
            (e, i + 1)
        };
        let read = &now[..];
        for_each_split(next, moved, CHUNKS, end, threads, |i, out, moved| {
            let first = chunk_range(i, CHUNKS, slots).start;
            let links = |k: usize| {
                let found = layout_ref.now.links_of(k).iter().map(|l| l.other as usize);
                found.chain(made.of(k))
            };
            let mobility = |k: usize| layout_ref.mobility(k);
            moved[0] = relax_pass(map, read, out, first, (links, mobility), touch);
        });
        core::mem::swap(now, next);
        if !moved.iter().any(|&m| m) {
            break;
        }
    }
    // Write back the bodies that moved, and remember where they are for the next step.
    for (k, piece) in now.iter().enumerate() {
        let center = piece.center;
        if !layout.moved_by_relaxation(k, center) {
            continue;
        }
        let entity = layout.snaps[k].entity;
        if let Ok((mut aabb, mut transform, mut awake)) = bodies.get_mut(entity) {
            aabb.center = center;
            if center.is_finite() {
                transform.translation.x = center.x;
                transform.translation.y = center.y;
            }
            awake.moved();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOUCH: f32 = 1e-3;
    const BOTTOM: u8 = 8;

    fn piece(x: f32, y: f32, blocked: u8) -> Piece {
        Piece {
            center: Vec2::new(x, y),
            half: Vec2::splat(6.0),
            blocked,
        }
    }

    #[test]
    fn a_body_sunk_into_one_held_below_takes_the_whole_overlap() {
        let (push, blocked) = relax_piece(piece(0.0, 10.0, 0), [piece(0.0, 0.0, BOTTOM)], TOUCH);
        assert_eq!(push, Vec2::new(0.0, 2.0));
        assert_eq!(blocked, BOTTOM, "held by what holds its support");
    }

    #[test]
    fn two_free_bodies_take_half_each_and_a_held_one_none() {
        let (push, _) = relax_piece(piece(10.0, 0.0, 0), [piece(0.0, 0.0, 0)], TOUCH);
        assert_eq!(push, Vec2::new(1.0, 0.0));
        let left = side_bit(Side::Left);
        let (push, _) = relax_piece(piece(0.0, 0.0, left), [piece(10.0, 0.0, 0)], TOUCH);
        assert_eq!(push, Vec2::ZERO, "held on the side it would be pushed to");
    }

    #[test]
    fn pushes_one_way_count_once_and_opposite_ones_add_up() {
        // Sunk 2 into two supports side by side: up 2, not 4.
        let supports = [piece(-6.0, 0.0, BOTTOM), piece(6.0, 0.0, BOTTOM)];
        let (push, _) = relax_piece(piece(0.0, 10.0, 0), supports, TOUCH);
        assert_eq!(push, Vec2::new(0.0, 2.0));
        // Squeezed from the left by 1 and from the right by 3, by free bodies: half of each.
        let sides = [piece(-11.0, 0.0, 0), piece(9.0, 0.0, 0)];
        let (push, _) = relax_piece(piece(0.0, 0.0, 0), sides, TOUCH);
        assert_eq!(push, Vec2::new(0.5 - 1.5, 0.0));
    }

    #[test]
    fn touching_bodies_are_not_pushed_but_pass_blocking_on() {
        let right = side_bit(Side::Right);
        let wall_side = piece(12.0, 0.0, right);
        let (push, blocked) = relax_piece(piece(0.0, 0.0, 0), [wall_side], TOUCH);
        assert_eq!(push, Vec2::ZERO);
        assert_eq!(blocked, right);
        let apart = piece(12.5, 0.0, right);
        assert_eq!(
            relax_piece(piece(0.0, 0.0, 0), [apart], TOUCH),
            (Vec2::ZERO, 0)
        );
    }

    #[test]
    fn a_push_stops_at_a_tile_and_says_where() {
        // Row 0 solid: a box with its feet on it pushed down stays, blocked below.
        let map = TileMap::from_ascii("....\n####", 16.0).unwrap();
        let pass = PassThrough {
            drop_through: false,
            climbing: false,
        };
        let at = (Vec2::new(24.0, 22.0), Vec2::splat(6.0));
        let (to, stopped) =
            apply_push(&map, at, Vec2::new(0.0, -3.0), Mobility::Swept(pass), TOUCH);
        assert_eq!((to, stopped), (at.0, BOTTOM));
        let (to, stopped) = apply_push(&map, at, Vec2::new(0.0, -3.0), Mobility::Free, TOUCH);
        assert_eq!(
            (to, stopped),
            (Vec2::new(24.0, 19.0), 0),
            "no world collision"
        );
        let (to, _) = apply_push(&map, at, Vec2::new(2.0, 1.0), Mobility::Swept(pass), TOUCH);
        assert_eq!(to, Vec2::new(26.0, 23.0));
        assert_eq!(
            apply_push(&map, at, Vec2::ONE, Mobility::Fixed, TOUCH),
            (at.0, 0)
        );
    }
}
