//! Step 3 of tile collision (see [`collide`](super::collide)): a box swept through the tiles,
//! stopping at the first open face it meets and sliding along it. Tile collision moves bodies
//! with [`move_and_slide`]; the response pushes them with [`sweep_displacement`], so a body
//! pushed by another is never pushed into a tile.

use bevy::math::{IVec2, Vec2};

use super::map::{TileKind, TileMap};
use super::reach::{PassThrough, TileBody, any_tile, for_each_tile, swept_box};
use super::slope::{SlopeHit, SlopeTile, sweep_box_slope};
use crate::flags::{Side, side_bit};
use crate::geometry::{Axis, PointSweep, SweepHit, skin_at};

/// Sweeps the body through `velocity * dt`, stopping and sliding at the first contacts (step 3).
/// At each contact the velocity's component into the face is removed. Returns the sides that
/// made contact during the move.
///
/// On a floor slope, a `walking` body goes up or down the surface at its horizontal pace, and
/// its vertical speed stops as on flat ground, until the slope's tile ends: from there the rest
/// of its move goes on as it came. Any other body, and any body on a ceiling slope, slides
/// along the surface (losing only the velocity into it).
pub fn move_and_slide(
    map: &TileMap,
    body: &mut TileBody,
    pass: PassThrough,
    dt: f32,
    skin_base: f32,
    walking: bool,
) -> u8 {
    let velocity = &mut body.velocity;
    slide(
        map,
        &mut body.center,
        body.half,
        *velocity * dt,
        (pass, walking),
        skin_base,
        |contact| match contact {
            Contact::Face(hit) => {
                let v = hit.axis.of_mut(velocity);
                if *v * hit.normal_sign < 0.0 {
                    *v = 0.0;
                }
            }
            Contact::Surface(hit, _) if walks_on(hit, walking) => {
                velocity.y = velocity.y.max(0.0);
            }
            Contact::Surface(hit, _) => {
                let into = velocity.dot(hit.normal);
                if into < 0.0 {
                    *velocity -= hit.normal * into;
                }
            }
        },
    )
}

/// Whether a body walks along the slope surface `hit` met (see [`move_and_slide`]).
#[inline]
fn walks_on(hit: SlopeHit, walking: bool) -> bool {
    walking && hit.normal.y > 0.0
}

/// Moves a box by `displacement` through the tiles, stopping and sliding at open faces like
/// [`move_and_slide`] but leaving any velocity alone (object response uses it, so a body pushed
/// by another body is never pushed into a tile). Returns the new centre.
pub fn sweep_displacement(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    displacement: Vec2,
    pass: PassThrough,
    skin_base: f32,
) -> Vec2 {
    // Fast path: no tile in the range the first sweep would scan, so it would move the whole
    // way (most pushes between bodies happen away from tiles).
    if displacement != Vec2::ZERO && displacement.is_finite() {
        let (lo, hi) = swept_box(center, half, displacement, skin_at(skin_base, center));
        if !any_tile(map, lo, hi) {
            return center + displacement;
        }
    }
    let mut center = center;
    slide(
        map,
        &mut center,
        half,
        displacement,
        (pass, false),
        skin_base,
        |_| {},
    );
    center
}

/// A contact of the sweep: a tile's face, or a slope's surface (with its tile).
#[derive(Clone, Copy, Debug)]
pub(super) enum Contact {
    Face(SweepHit),
    Surface(SlopeHit, SlopeTile),
}

impl Contact {
    #[inline]
    pub(super) fn time(self) -> f32 {
        match self {
            Self::Face(hit) => hit.time,
            Self::Surface(hit, _) => hit.time,
        }
    }
}

/// The sweep shared by [`move_and_slide`] and [`sweep_displacement`]; `on_hit` sees each contact.
pub(super) fn slide(
    map: &TileMap,
    center: &mut Vec2,
    half: Vec2,
    displacement: Vec2,
    (pass, walking): (PassThrough, bool),
    skin_base: f32,
    mut on_hit: impl FnMut(Contact),
) -> u8 {
    let mut rest = displacement;
    let mut sides = 0;
    // What is left of the move when a walk along a slope reaches the slope's end, and the
    // height of that end.
    let mut beyond_slope: Option<(Vec2, f32)> = None;
    // The slope surface the rest of the move goes along, and its normal.
    let mut along_surface: Option<(SlopeTile, Vec2)> = None;
    // Every contact with a face removes one axis of the remaining motion, so two rounds suffice;
    // the third only moves the body when the second contact ended the motion early. A walk
    // along slopes takes two more rounds for each tile column it crosses (the walk up to the
    // tile's end, and the move beyond it).
    let columns = if displacement.x.is_finite() {
        ((displacement.x.abs() / map.tile_size()) as usize).min(map.width() as usize) + 1
    } else {
        0
    };
    for _ in 0..3 + 2 * columns {
        if !rest.is_finite() {
            break;
        }
        // The skin follows the body's own position: the far end of a huge displacement would
        // make it huge.
        let skin = skin_at(skin_base, *center);
        let contact = if rest == Vec2::ZERO {
            None
        } else {
            first_contact(map, *center, half, rest, skin, pass)
        };
        let Some(contact) = contact else {
            *center += rest;
            if let Some((tile, normal)) = along_surface {
                onto_surface(center, half, &tile, normal);
            }
            // At a slope's end: the body's feet on it, as they were on the surface, and the
            // rest of the move as it came.
            let Some((after, end_height)) = beyond_slope.take() else {
                break;
            };
            center.y = end_height + half.y;
            rest = after;
            continue;
        };
        beyond_slope = None;
        along_surface = None;
        match contact {
            Contact::Face(hit) => {
                *center += rest * hit.time;
                *hit.axis.of_mut(center) = hit.face;
                rest *= 1.0 - hit.time;
                *hit.axis.of_mut(&mut rest) = 0.0;
                sides |= side_bit(contact_side(hit));
            }
            Contact::Surface(hit, tile) => {
                *center += rest * hit.time;
                rest *= 1.0 - hit.time;
                if walks_on(hit, walking) {
                    // Along the surface at the same horizontal pace, up to the tile's end.
                    let n = hit.normal;
                    let along = Vec2::new(rest.x, -rest.x * n.x / n.y);
                    match walk_to_end(*center, half, rest.x, n, &tile) {
                        Some((share, end_height)) => {
                            beyond_slope = Some((rest * (1.0 - share), end_height));
                            rest = along * share;
                        }
                        None => rest = along,
                    }
                } else {
                    rest -= hit.normal * rest.dot(hit.normal);
                }
                along_surface = Some((tile, hit.normal));
                let side = if hit.normal.y > 0.0 {
                    Side::Bottom
                } else {
                    Side::Top
                };
                sides |= side_bit(side);
            }
        }
        on_hit(contact);
    }
    sides
}

/// Puts a box that moved along a slope's surface (outward normal `n`) back onto it when rounding
/// left the corner that touches it on the solid side: far from the origin a coordinate rounds
/// by about as much as the skin, and each move along the slanted surface rounds both.
fn onto_surface(center: &mut Vec2, half: Vec2, tile: &SlopeTile, n: Vec2) {
    if n.x == 0.0 || n.y == 0.0 {
        return;
    }
    // The corner on the surface: the bottom (floor) or top (ceiling) corner facing the slope.
    let corner = Vec2::new(
        center.x - half.x * n.x.signum(),
        center.y - half.y * n.y.signum(),
    );
    if corner.x < tile.min.x || corner.x > tile.max.x {
        return;
    }
    let below = tile.surface_y(corner.x) - corner.y;
    if below * n.y > 0.0 {
        center.y += below;
    }
}

/// Where a walk along a floor slope's surface `n` leaves `tile`: the share of the horizontal
/// move `dx` that takes the box's corner on the surface (its downhill-facing bottom corner) to
/// the tile's end, and the surface's height there; `None` when the whole move stays on the
/// tile (or the surface is flat).
fn walk_to_end(center: Vec2, half: Vec2, dx: f32, n: Vec2, tile: &SlopeTile) -> Option<(f32, f32)> {
    if n.x == 0.0 || dx == 0.0 {
        return None;
    }
    let corner = center.x - half.x * n.x.signum();
    let (end, room) = if dx > 0.0 {
        (tile.max.x, tile.max.x - corner)
    } else {
        (tile.min.x, corner - tile.min.x)
    };
    let room = room.max(0.0);
    (room < dx.abs()).then(|| (room / dx.abs(), tile.surface_y(end)))
}

/// Where a box moved straight down by up to `depth` first meets a floor (a face or a floor
/// slope's surface), and whether that floor is a slope; `None` when it meets none.
pub(super) fn drop_onto(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    depth: f32,
    pass: PassThrough,
    skin_base: f32,
) -> Option<(Vec2, bool)> {
    let d = Vec2::new(0.0, -depth);
    let skin = skin_at(skin_base, center);
    match first_contact(map, center, half, d, skin, pass)? {
        // As the sweep puts a body on a face: exactly on it.
        Contact::Face(hit) if hit.axis == Axis::Y && hit.normal_sign > 0.0 => {
            Some((Vec2::new(center.x, hit.face), false))
        }
        Contact::Surface(hit, _) if hit.normal.y > 0.0 => Some((center + d * hit.time, true)),
        _ => None,
    }
}

/// The side of the moving body that touches the face `hit` entered.
#[inline]
fn contact_side(hit: SweepHit) -> Side {
    match (hit.axis, hit.normal_sign > 0.0) {
        (Axis::X, true) => Side::Left,
        (Axis::X, false) => Side::Right,
        (Axis::Y, true) => Side::Bottom,
        (Axis::Y, false) => Side::Top,
    }
}

/// The earliest open tile face or slope surface the box meets while moving by `d`, if any.
fn first_contact(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    d: Vec2,
    skin: f32,
    pass: PassThrough,
) -> Option<Contact> {
    let mut best: Option<Contact> = None;
    for_each_contact(map, center, half, d, skin, pass, |_, contact| {
        if best.is_none_or(|b| contact.time() < b.time()) {
            best = Some(contact);
        }
    });
    best
}

/// Calls `f(tile, contact)` for every tile a box moving from `center` by `d` meets, at its
/// first contact with it, in no particular order: open faces of solid tiles, the tops of
/// the one-way tiles and ladder tops that `pass` holds, slope surfaces (one-way slopes only
/// from above). Box casts list them all; the sweep keeps the earliest.
pub(super) fn for_each_contact(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    d: Vec2,
    skin: f32,
    pass: PassThrough,
    mut f: impl FnMut(IVec2, Contact),
) {
    let sweep = PointSweep::new(center, d);
    let (lo, hi) = swept_box(center, half, d, skin);
    for_each_tile(map, lo, hi, |x, y, kind| {
        if kind.is_slope()
            && let Some(slope) = kind.slope()
        {
            if slope.one_way && pass.drop_through {
                return;
            }
            let (min, max) = map.tile_rect(x, y);
            let tile = SlopeTile { slope, min, max };
            // A one-way slope holds only bodies that come down onto its surface or its top
            // corner (a body that starts inside it, or meets it from below or from a side, is
            // not hit).
            if let Some(hit) = sweep_box_slope(center, half, d, &tile, skin)
                && !(slope.one_way && hit.normal.y <= 0.0)
            {
                f(IVec2::new(x, y), Contact::Surface(hit, tile));
            }
            return;
        }
        let solid = kind == TileKind::Solid;
        if !(solid || pass.holds(kind) && map.is_one_way_top(x, y)) {
            return;
        }
        let (tmin, tmax) = map.tile_rect(x, y);
        let (gmin, gmax) = (tmin - half, tmax + half);
        let usable = |hit: &SweepHit| {
            let top = hit.axis == Axis::Y && hit.normal_sign > 0.0;
            if !solid {
                return top;
            }
            let n = match hit.axis {
                Axis::X => IVec2::new(hit.normal_sign as i32, 0),
                Axis::Y => IVec2::new(0, hit.normal_sign as i32),
            };
            map.get(x + n.x, y + n.y) != TileKind::Solid
        };
        // A corner-to-corner contact may be reported on an internal face; then the other
        // face of the same corner is the real one.
        let Some(entry) = sweep.entry(gmin, gmax, skin) else {
            return;
        };
        let hit = Some(entry.hit(true))
            .filter(usable)
            .or_else(|| Some(entry.hit(false)).filter(usable));
        if let Some(hit) = hit {
            f(IVec2::new(x, y), Contact::Face(hit));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::unit_floats;
    use crate::tiles::collide::TEST_PARAMS as PARAMS;
    use crate::tiles::collide::tests::{MIXED, body, map};

    #[test]
    fn sweep_displacement_fast_path_gives_bit_identical_results() {
        // Pushes of every size and direction, near tiles and in open air: skipping the sweep when
        // no tile is in reach moves the box exactly as the sweep does.
        let m = map(MIXED);
        let mut u = unit_floats(0x0BAD_5EED);
        let (mut open_air, mut near) = (0, 0);
        for i in 0..6000 {
            let size = if i % 10 == 0 { 64.0 } else { 8.0 };
            let reach = if i % 10 == 1 { 200.0 } else { 12.0 };
            let mut center = Vec2::new(u() * 300.0 - 20.0, u() * 160.0 - 20.0);
            let half = Vec2::new(1.0 + u() * size, 1.0 + u() * size);
            if i % 3 == 2 {
                // The bottom-left corner just off a grid line (within the skin): pushes into the
                // tile there must still be swept.
                let grid = ((center - half) / 16.0).round() * 16.0;
                center = grid + half + Vec2::splat(u() * 2e-3);
            }
            let d = match i % 7 {
                0 => Vec2::ZERO,
                1 => Vec2::new((u() * 2.0 - 1.0) * reach, 0.0),
                _ => Vec2::new((u() * 2.0 - 1.0) * reach, (u() * 2.0 - 1.0) * reach),
            };
            let pass = PassThrough {
                drop_through: u() < 0.2,
                climbing: u() < 0.3,
            };
            let skin = PARAMS.skin;
            let fast = sweep_displacement(&m, center, half, d, pass, skin);
            let mut full = center;
            slide(&m, &mut full, half, d, (pass, false), skin, |_| {});
            assert_eq!(
                fast.to_array().map(f32::to_bits),
                full.to_array().map(f32::to_bits),
                "{center} {half} {d}"
            );
            let (lo, hi) = swept_box(center, half, d, skin_at(skin, center));
            if any_tile(&m, lo, hi) {
                near += 1;
            } else {
                open_air += 1;
            }
        }
        // Both paths were taken many times.
        assert!(open_air > 1000 && near > 1000, "{open_air} {near}");
    }

    #[test]
    fn internal_face_corner_contact_uses_the_open_face() {
        // Box moving diagonally so that its bottom-right corner meets the seam x = 32 of a
        // flat floor at the instant its feet reach the floor (t = 0.5): it lands and slides.
        let m = map("....\n....\n####");
        let half = Vec2::splat(4.0);
        let mut b = body(Vec2::new(26.0, 22.0), half, Vec2::new(240.0, -240.0));
        move_and_slide(&m, &mut b, PassThrough::default(), 1.0 / 60.0, 1e-3, false);
        assert_eq!(b.velocity, Vec2::new(240.0, 0.0));
        assert_eq!(b.center.y, 20.0);
    }
}
