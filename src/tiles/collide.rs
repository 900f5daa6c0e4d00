//! Body-vs-tile collision as pure functions: depenetration, one-way snap, swept move-and-slide,
//! touching sides. The `TileCollide` system is a thin shell over [`collide_with_tiles`].
//!
//! # Algorithm
//!
//! For one body and one step of length `dt` (when no tile at all lies within reach of the
//! step, the body just moves by `v * dt`, which is what the steps below would do):
//!
//! 1. **Depenetrate.** If the box overlaps solid tiles by more than the skin, each such tile
//!    proposes the shortest push out through one of its *open* faces (a face whose neighbour
//!    is not solid; the others are internal edges). Only the smallest push is applied, then the
//!    overlaps are found again, so two tiles under the feet correct once, never twice (article
//!    001's comment thread). Velocity is left alone: the correction adds no energy.
//!    A body that cannot be pushed out (no open face within
//!    [`max_depenetration`](crate::PhysicsConfig::max_depenetration), or no room: it is taller
//!    than the gap between a floor and a ceiling) stays where it was, and is *held*: the tiles
//!    it overlaps press on its sides (each tile on the side of its shallower overlap), and it
//!    neither moves nor keeps speed toward a pressing side. So it is never moved through a
//!    floor; it can still move away from what presses it.
//! 2. **One-way snap.** A body not moving up whose feet are less than the one-way tolerance
//!    below the top of a one-way tile or ladder top is put on top of it (article 001). When
//!    that would put it into a solid tile or a solid slope (a ceiling too low), it is held where
//!    it is instead, standing on the platform (a pressing bottom side), rather than falling
//!    through it.
//! 3. **Move and slide** (`src/tiles/sweep.rs`). The step's displacement `v * dt` is swept
//!    against every tile in the box that encloses the whole motion (the tiles-as-broad-phase
//!    of articles 001 and 004).
//!    Each tile is a slab test of the body's centre against the tile grown by the body's half
//!    extents, so the exact time and face of first contact are known: no tunnelling at any
//!    speed, the right face for non-square boxes at corners, and no ghost collisions, since a
//!    path that misses the tile is never hit (unlike article 001's infinite planes). Internal
//!    faces are ignored (no snagging on seams). At the first contact the body stops at the face,
//!    the normal component of its velocity and of the rest of the motion is removed, and the rest
//!    is swept again (at most twice: each contact removes one axis), so the body slides along
//!    walls and floors (article 004) and stops in corners.
//! 4. **Touching sides.** After the move, every side within the skin of an open solid face (and
//!    the bottom side on a one-way top that holds the body), and every pressing side of a held
//!    body, is reported as pushing. Standing bodies lose horizontal speed to ground friction.
//!    A held body pushing on two opposite sides does not fit where it is: it is *squished*
//!    ([`TileOutcome::squished`], and the [`Squished`](crate::Squished) message).
//!
//! # Slopes
//!
//! A slope tile's solid part is a convex polygon (`src/tiles/slope.rs`). Step 1 pushes a body
//! out of a solid slope by the shortest of the polygon's separating axes (never out of a one-way
//! slope). Step 2 never lifts a body onto a one-way slope: a one-way slope holds only a body
//! that is on or above its surface where the step begins, so one that passes under it or beside
//! it (out of its low end, say) is never lifted; and a solid slope above a one-way top holds a
//! body under it like a solid tile. Step 3 sweeps against the polygon with the same slab test
//! over its three axes (x, y, the surface's normal); a one-way slope counts only through its
//! surface, for a body that starts above it. At a floor slope's surface a body that walks on
//! slopes ([`BodySwitches::walk_slopes`](crate::BodySwitches::walk_slopes)) goes on along the
//! surface at its horizontal pace and its vertical speed stops, as on flat ground, until the
//! slope's tile ends; from there the rest of its move goes on as it came (up a ramp and on from
//! its top, never along the ramp's line in the air). Other bodies, and bodies at a ceiling
//! slope, slide along the surface and lose only the velocity into it.
//! Then a body that stood on the ground, or landed during its move, is not rising and no longer
//! touches the ground is put back down onto the floor within the distance a 45-degree slope
//! falls over its sideways move, when that floor or the ground it left is a slope (walking down
//! a ramp, from a ramp onto flat ground or from flat ground onto a ramp, off a slope's top
//! corner it landed on). A body that landed during its move and still has nothing under it
//! (it went off the edge within the step) keeps falling at the speed it came with. Step 4
//! counts a slope's surface as the bottom (floor) or top (ceiling) side it touches. Maps
//! without slopes skip all of this (`TileMap::has_slopes`).

use bevy::math::{IVec2, Vec2};

use super::map::{TileKind, TileMap};
use crate::flags::{Side, side_bit};
use crate::friction::{apply_ground_friction, friction_decay};
use crate::geometry::{interval_overlap, skin_at};

pub use super::reach::{PassThrough, TileBody};
use super::reach::{any_tile, for_each_tile, swept_box};
use super::slope::{SlopeTile, push_out_of_slope, touching};
use super::sweep;
pub use super::sweep::{move_and_slide, sweep_displacement};

/// The step parameters of tile collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileParams {
    /// Step length in seconds.
    pub dt: f32,
    /// Base contact tolerance (grown far from the origin by [`skin_at`]).
    pub skin: f32,
    /// One-way snap distance.
    pub one_way_tolerance: f32,
    /// Largest push out of solid tiles.
    pub max_depenetration: f32,
    /// Ground friction rate per second, 0 for none.
    pub ground_friction: f32,
    /// The body walks on floor slopes ([`BodySwitches::walk_slopes`]).
    ///
    /// [`BodySwitches::walk_slopes`]: crate::BodySwitches::walk_slopes
    pub walk_slopes: bool,
}

/// What tile collision found for one body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TileOutcome {
    /// Sides touching tiles after the move, as [`side_bit`]s.
    pub sides: u8,
    /// Most solid kind of tile the body stands on.
    pub standing_on: Option<TileKind>,
    /// The box overlaps a ladder tile.
    pub overlaps_ladder: bool,
    /// The body overlaps solid tiles and could not be pushed out.
    pub embedded: bool,
    /// The body is held (embedded, or held on a one-way top it cannot be lifted onto) and
    /// pushes on two opposite sides: it does not fit where it is.
    pub squished: bool,
}

/// What [`snap_onto_one_way`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneWaySnap {
    /// No one-way top that holds the body lies within the tolerance above its feet.
    Free,
    /// The body was put on top of the highest such top.
    Lifted,
    /// There is such a top, but on it the body would overlap a solid tile or a solid slope (a
    /// ceiling too low): it is left where it is, standing on the platform with its feet in it.
    Held,
}

/// Runs one step of tile collision for `body` (see the module's algorithm).
///
/// Inlined, with the full path out of line: most bodies take the fast path, and then skip
/// the full path's entry and exit.
#[inline]
pub fn collide_with_tiles(
    map: &TileMap,
    body: &mut TileBody,
    pass: PassThrough,
    params: &TileParams,
) -> TileOutcome {
    let skin = skin_at(params.skin, body.center);
    // Fast path: no tile anywhere the steps below could look (the swept box grown by the one-way
    // tolerance and the skin, plus a margin): the body just moves, exactly as step 3 would.
    let rest = body.velocity * params.dt;
    let reach = params.one_way_tolerance.max(0.0) + 2.0 * skin + 1.0;
    let (lo, hi) = swept_box(body.center, body.half, rest, reach);
    if !any_tile(map, lo, hi) {
        if rest != Vec2::ZERO && rest.is_finite() {
            body.center += rest;
        }
        return TileOutcome::default();
    }
    collide_near_tiles(map, body, pass, params)
}

/// Steps 1 to 4 of [`collide_with_tiles`], without its empty-neighbourhood fast path.
#[inline(never)]
fn collide_near_tiles(
    map: &TileMap,
    body: &mut TileBody,
    pass: PassThrough,
    params: &TileParams,
) -> TileOutcome {
    let skin = skin_at(params.skin, body.center);
    let start = body.center;
    let embedded = !depenetrate(
        map,
        &mut body.center,
        body.half,
        skin,
        params.max_depenetration,
    );
    // Held: the sides that tiles it cannot leave press on, and what it stands on there.
    let (mut pressed, mut held_on) = (0, None);
    if embedded {
        body.center = start;
        pressed = pressing_sides(map, body.center, body.half, skin);
        held_on = (pressed & side_bit(Side::Bottom) != 0).then_some(TileKind::Solid);
    }
    if body.velocity.y <= 0.0 {
        let snap = snap_onto_one_way(
            map,
            &mut body.center,
            body.half,
            skin,
            params.one_way_tolerance,
            pass,
        );
        if snap == OneWaySnap::Held {
            pressed |= side_bit(Side::Bottom);
            held_on = held_on.max(Some(TileKind::OneWay));
        }
    }
    hold(&mut body.velocity, pressed);
    // A body on the ground at the start of a step on a map with slopes follows the ground down
    // (see `follow_slope_down`).
    let (grounded, on_slope) = if map.has_slopes() && body.velocity.y <= 0.0 {
        let (sides, on, _) = surroundings(map, body.center, body.half, skin, pass);
        let on_slope = on.is_some_and(TileKind::is_slope);
        (sides & side_bit(Side::Bottom) != 0, on_slope)
    } else {
        (false, false)
    };
    let walking = params.walk_slopes;
    let (before, fall) = (body.center, body.velocity.y);
    let met = move_and_slide(map, body, pass, params.dt, params.skin, walking);
    let skin = skin_at(params.skin, body.center);
    let mut found = surroundings(map, body.center, body.half, skin, pass);
    // On a map with slopes, a body that landed during its move (on a slope's top corner, say)
    // follows the ground down like one that started on it.
    let landed = map.has_slopes() && !grounded && met & side_bit(Side::Bottom) != 0;
    if (grounded || landed)
        && found.0 & side_bit(Side::Bottom) == 0
        && follow_slope_down(map, body, pass, params.skin, (before, on_slope))
    {
        let skin = skin_at(params.skin, body.center);
        found = surroundings(map, body.center, body.half, skin, pass);
    }
    // One that landed and went off the edge within the move, with nothing under it now, goes
    // on falling as it came: it never hangs in the air with its fall stopped.
    if landed && found.0 & side_bit(Side::Bottom) == 0 {
        body.velocity.y = body.velocity.y.min(fall);
    }
    let (touching, standing_on, overlaps_ladder) = found;
    let sides = touching | pressed;
    if sides & side_bit(Side::Bottom) != 0 && params.ground_friction > 0.0 {
        let decay = friction_decay(params.ground_friction, params.dt);
        body.velocity.x = apply_ground_friction(body.velocity.x, 0.0, decay);
    }
    TileOutcome {
        sides,
        standing_on: standing_on.max(held_on),
        overlaps_ladder,
        embedded,
        squished: pressed != 0 && opposite_sides(sides),
    }
}

/// A body that stood on the ground (or landed during its move) and is not rising stays on it
/// when the ground falls away under it along a slope: after its move, when nothing holds its feet, it is swept down by as
/// far as a 45-degree slope falls over the distance it went sideways, and put there if it
/// meets a floor, when that floor or the ground it stood on is a slope (walking down a ramp,
/// from a ramp onto flat ground or from flat ground onto a ramp). A body that walks off a
/// ledge falls as before. Returns whether it moved the body.
fn follow_slope_down(
    map: &TileMap,
    body: &mut TileBody,
    pass: PassThrough,
    skin_base: f32,
    (before, on_slope): (Vec2, bool),
) -> bool {
    if body.velocity.y > 0.0 {
        return false;
    }
    let skin = skin_at(skin_base, body.center);
    let reach = (body.center.x - before.x).abs() + 2.0 * skin;
    let Some((center, slope)) =
        sweep::drop_onto(map, body.center, body.half, reach, pass, skin_base)
    else {
        return false;
    };
    if !(slope || on_slope) {
        return false;
    }
    body.center = center;
    body.velocity.y = body.velocity.y.max(0.0);
    true
}

/// Removes from `velocity` its components toward the `pressed` sides ([`side_bit`]s).
#[inline]
fn hold(velocity: &mut Vec2, pressed: u8) {
    let has = |side| pressed & side_bit(side) != 0;
    if has(Side::Bottom) {
        velocity.y = velocity.y.max(0.0);
    }
    if has(Side::Top) {
        velocity.y = velocity.y.min(0.0);
    }
    if has(Side::Left) {
        velocity.x = velocity.x.max(0.0);
    }
    if has(Side::Right) {
        velocity.x = velocity.x.min(0.0);
    }
}

/// Whether `sides` ([`side_bit`]s) hold two opposite sides.
#[inline]
fn opposite_sides(sides: u8) -> bool {
    let both = |a, b| sides & side_bit(a) != 0 && sides & side_bit(b) != 0;
    both(Side::Bottom, Side::Top) || both(Side::Left, Side::Right)
}

/// The sides of a box that the solid tiles it overlaps (by more than `skin` on both axes) press
/// on: each such tile presses along the axis of its shallower overlap (a floor the feet sank
/// into presses up on the bottom side), from the side of the box's centre it lies on.
fn pressing_sides(map: &TileMap, center: Vec2, half: Vec2, skin: f32) -> u8 {
    let (min, max) = (center - half, center + half);
    let mut sides = 0;
    for_each_tile(map, min + skin, max - skin, |x, y, kind| {
        if kind != TileKind::Solid {
            return;
        }
        let (tmin, tmax) = map.tile_rect(x, y);
        let depth = Vec2::new(
            interval_overlap(min.x, max.x, tmin.x, tmax.x),
            interval_overlap(min.y, max.y, tmin.y, tmax.y),
        );
        if depth.x <= skin || depth.y <= skin {
            return;
        }
        let tile_center = (tmin + tmax) * 0.5;
        sides |= side_bit(if depth.y <= depth.x {
            if tile_center.y < center.y {
                Side::Bottom
            } else {
                Side::Top
            }
        } else if tile_center.x < center.x {
            Side::Left
        } else {
            Side::Right
        });
    });
    sides
}

/// Whether the box overlaps a tile of `kind` by more than `skin` on both axes.
pub fn overlaps_kind(map: &TileMap, center: Vec2, half: Vec2, skin: f32, kind: TileKind) -> bool {
    overlaps_tile_where(map, center, half, skin, |k| k == kind)
}

/// Whether the box overlaps a tile whose kind `is` accepts by more than `skin` on both axes.
pub(crate) fn overlaps_tile_where(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    skin: f32,
    is: impl Fn(TileKind) -> bool,
) -> bool {
    let mut found = false;
    for_each_tile(
        map,
        center - half + skin,
        center + half - skin,
        |_, _, k| {
            found |= is(k);
        },
    );
    found
}

/// Pushes the box out of the solid tiles it overlaps (step 1). Returns `false` when it stays
/// embedded (no open face within `limit`).
///
/// Each overlapping tile proposes its shortest push out through an open face; the smallest
/// proposal is applied and the overlaps are found again, until none is left. Applying one push
/// at a time means adjacent tiles never add up to an over-correction, and a tile whose own open
/// faces are far away (the corner tile under a wall) is freed by its neighbours' pushes.
pub fn depenetrate(map: &TileMap, center: &mut Vec2, half: Vec2, skin: f32, limit: f32) -> bool {
    const ROUNDS: usize = 8;
    for _ in 0..ROUNDS {
        let (min, max) = (*center - half, *center + half);
        let mut overlapping = false;
        let mut best: Option<(f32, Vec2)> = None;
        for_each_tile(map, min + skin, max - skin, |x, y, kind| {
            if kind.is_slope()
                && let Some(slope) = kind.slope()
            {
                let (tmin, tmax) = map.tile_rect(x, y);
                let tile = SlopeTile { slope, min: tmin, max: tmax };
                // A one-way slope is passed through, never pushed out of.
                if slope.one_way {
                    return;
                }
                if let Some(push) = push_out_of_slope(*center, half, &tile, skin) {
                    overlapping = true;
                    let depth = push.length();
                    if depth <= limit && best.is_none_or(|(d, _)| depth < d) {
                        best = Some((depth, push / depth));
                    }
                }
                return;
            }
            if kind != TileKind::Solid {
                return;
            }
            let (tmin, tmax) = map.tile_rect(x, y);
            if interval_overlap(min.x, max.x, tmin.x, tmax.x) <= skin
                || interval_overlap(min.y, max.y, tmin.y, tmax.y) <= skin
            {
                return;
            }
            overlapping = true;
            let open = |dx: i32, dy: i32| map.get(x + dx, y + dy) != TileKind::Solid;
            // Order breaks ties: up first, as a platformer body usually belongs on top.
            let options = [
                (open(0, 1), tmax.y - min.y, Vec2::Y),
                (open(0, -1), max.y - tmin.y, Vec2::NEG_Y),
                (open(-1, 0), max.x - tmin.x, Vec2::NEG_X),
                (open(1, 0), tmax.x - min.x, Vec2::X),
            ];
            for (is_open, depth, dir) in options {
                if is_open && depth <= limit && best.is_none_or(|(d, _)| depth < d) {
                    best = Some((depth, dir));
                }
            }
        });
        match best {
            _ if !overlapping => return true,
            None => return false,
            Some((depth, dir)) => *center += dir * depth,
        }
    }
    false
}

/// Whether the box overlaps a solid tile, or the solid part of a slope that is not one-way, by
/// more than `skin`.
pub(crate) fn overlaps_solid(map: &TileMap, center: Vec2, half: Vec2, skin: f32) -> bool {
    let mut found = false;
    for_each_tile(map, center - half + skin, center + half - skin, |x, y, kind| {
        found |= match kind.slope() {
            Some(slope) if !slope.one_way => {
                let (min, max) = map.tile_rect(x, y);
                let tile = SlopeTile { slope, min, max };
                push_out_of_slope(center, half, &tile, skin).is_some()
            }
            Some(_) => false,
            None => kind == TileKind::Solid,
        };
    });
    found
}

/// Puts a body whose feet are just under a one-way top back on it (step 2), unless that would
/// put it into a solid tile (then it is [`OneWaySnap::Held`] where it is).
pub fn snap_onto_one_way(
    map: &TileMap,
    center: &mut Vec2,
    half: Vec2,
    skin: f32,
    tolerance: f32,
    pass: PassThrough,
) -> OneWaySnap {
    if pass.drop_through || tolerance <= 0.0 {
        return OneWaySnap::Free;
    }
    let feet = center.y - half.y;
    let mut best_top: Option<f32> = None;
    for_each_tile(
        map,
        Vec2::new(center.x - half.x + skin, feet),
        Vec2::new(center.x + half.x - skin, feet + tolerance),
        |x, y, kind| {
            if !pass.holds(kind) || !map.is_one_way_top(x, y) {
                return;
            }
            let top = map.tile_rect(x, y).1.y;
            if top > feet + skin && top <= feet + tolerance {
                best_top = Some(best_top.map_or(top, |b| b.max(top)));
            }
        },
    );
    let Some(top) = best_top else {
        return OneWaySnap::Free;
    };
    // Never lift a body into a solid tile or slope (a one-way platform right under a ceiling).
    let lifted = Vec2::new(center.x, top + half.y);
    if overlaps_solid(map, lifted, half, skin) {
        return OneWaySnap::Held;
    }
    *center = lifted;
    OneWaySnap::Lifted
}

/// The sides of the box that touch open solid faces, or (bottom) a holding one-way top, and
/// the most solid kind of tile under the feet (step 4).
pub fn touching_sides(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    skin: f32,
    pass: PassThrough,
) -> (u8, Option<TileKind>) {
    let (sides, standing_on, _) = surroundings(map, center, half, skin, pass);
    (sides, standing_on)
}

/// [`touching_sides`], and whether the box overlaps a ladder tile by more than the skin
/// ([`overlaps_kind`] for [`TileKind::Ladder`]): the tiles the box overlaps are the range the
/// sides span, so it is found once.
fn surroundings(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    skin: f32,
    pass: PassThrough,
) -> (u8, Option<TileKind>, bool) {
    let (min, max) = (center - half, center + half);
    let mut sides = 0u8;
    let mut standing_on: Option<TileKind> = None;
    // Each side looks at the tiles just beyond it, within the skin, across its length minus the
    // skin: one row of tiles (bottom, top) or one column (left, right), whose facing faces all
    // lie at the same distance from the side. So the distance is checked once per side, and the
    // tiles are looked at only when the side is within the skin of them.
    // Every line and the ladder range are clipped to the map below.
    let (span_lo, span_hi) = (map.range_corner(min + skin), map.range_corner(max - skin));
    let (beyond_lo, beyond_hi) = (map.range_corner(min - skin), map.range_corner(max + skin));
    let last = IVec2::new(map.width() as i32 - 1, map.height() as i32 - 1);
    let lines = [
        (
            Side::Bottom,
            IVec2::new(span_lo.x, beyond_lo.y),
            IVec2::new(span_hi.x, beyond_lo.y),
        ),
        (
            Side::Top,
            IVec2::new(span_lo.x, beyond_hi.y),
            IVec2::new(span_hi.x, beyond_hi.y),
        ),
        (
            Side::Left,
            IVec2::new(beyond_lo.x, span_lo.y),
            IVec2::new(beyond_lo.x, span_hi.y),
        ),
        (
            Side::Right,
            IVec2::new(beyond_hi.x, span_lo.y),
            IVec2::new(beyond_hi.x, span_hi.y),
        ),
    ];
    for (side, lo, hi) in lines {
        let (lo, hi) = (lo.max(IVec2::ZERO), hi.min(last));
        if lo.x > hi.x || lo.y > hi.y {
            continue;
        }
        let (tmin, tmax) = map.tile_rect(lo.x, lo.y);
        // Distance from the side to the facing faces of the line's tiles (0 when flush).
        let gap = match side {
            Side::Bottom => min.y - tmax.y,
            Side::Top => tmin.y - max.y,
            Side::Left => min.x - tmax.x,
            Side::Right => tmin.x - max.x,
        };
        if gap.abs() > skin {
            continue;
        }
        for y in lo.y..=hi.y {
            for x in lo.x..=hi.x {
                let kind = map.get(x, y);
                let holds = match kind {
                    TileKind::Solid => true,
                    _ => side == Side::Bottom && pass.holds(kind) && map.is_one_way_top(x, y),
                };
                if holds {
                    sides |= side_bit(side);
                    if side == Side::Bottom {
                        standing_on = standing_on.max(Some(kind));
                    }
                }
            }
        }
    }
    if map.has_slopes() {
        for_each_tile(map, min - skin, max + skin, |x, y, kind| {
            let Some(slope) = kind.slope() else {
                return;
            };
            let (tmin, tmax) = map.tile_rect(x, y);
            let tile = SlopeTile { slope, min: tmin, max: tmax };
            if slope.one_way {
                // It holds the feet that rest on its surface (at the box's uphill end), unless
                // the body drops through.
                let on = tile
                    .support(min.x, max.x)
                    .is_some_and(|top| (min.y - top).abs() <= skin);
                if on && !pass.drop_through {
                    sides |= side_bit(Side::Bottom);
                    standing_on = standing_on.max(Some(kind));
                }
                return;
            }
            let Some(n) = touching(center, half, &tile, skin) else {
                return;
            };
            let side = if n.x.abs() > n.y.abs() {
                if n.x > 0.0 { Side::Left } else { Side::Right }
            } else if n.y > 0.0 {
                Side::Bottom
            } else {
                Side::Top
            };
            sides |= side_bit(side);
            if side == Side::Bottom {
                standing_on = standing_on.max(Some(kind));
            }
        });
    }
    // The tiles the box overlaps by more than the skin: those the sides span.
    let (lo, hi) = (span_lo.max(IVec2::ZERO), span_hi.min(last));
    let ladder = (lo.y..=hi.y).any(|y| (lo.x..=hi.x).any(|x| map.get(x, y) == TileKind::Ladder));
    (sides, standing_on, ladder)
}

/// The step parameters of the tile tests: 60 Hz, the default tolerances, no ground friction.
#[cfg(test)]
pub(crate) const TEST_PARAMS: TileParams = TileParams {
    dt: 1.0 / 60.0,
    skin: 1e-3,
    one_way_tolerance: 4.0,
    max_depenetration: 64.0,
    ground_friction: 0.0,
    walk_slopes: false,
};

#[cfg(test)]
pub(super) mod tests;
