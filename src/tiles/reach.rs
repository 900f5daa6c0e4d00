//! What tile collision works on: a body as it sees it ([`TileBody`], [`PassThrough`]), and the
//! tiles a box reaches ([`tile_range`]).

use bevy::math::{IVec2, Vec2};

use super::map::{TileKind, TileMap, corner_in_tiles};

/// A body as tile collision sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileBody {
    /// Centre in world units.
    pub center: Vec2,
    /// Half extents (positive).
    pub half: Vec2,
    /// Velocity in units per second.
    pub velocity: Vec2,
}

/// Which pass-through surfaces hold the body this step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassThrough {
    /// Ignore one-way platforms and ladder tops.
    pub drop_through: bool,
    /// Ignore ladder tops.
    pub climbing: bool,
}

impl PassThrough {
    #[inline]
    pub(super) fn holds(self, kind: TileKind) -> bool {
        match kind {
            TileKind::OneWay => !self.drop_through,
            TileKind::Ladder => !self.drop_through && !self.climbing,
            _ => false,
        }
    }
}

/// The inclusive range of tile coordinates that `[min, max]` touches, clipped to the map.
#[inline]
pub fn tile_range(map: &TileMap, min: Vec2, max: Vec2) -> Option<(IVec2, IVec2)> {
    // Every body makes several of these a step, so the corners are rounded towards zero, which
    // takes fewer instructions than rounding down. The two differ only on negative fractions:
    // the lower corner clamps those to 0 either way, and the upper corner maps every negative
    // coordinate to -1 (an empty range, as rounding down gives; see `TileMap::range_corner`).
    let (lo, hi) = (map.in_tiles(min), map.in_tiles(max));
    let lo = IVec2::new(lo.x as i32, lo.y as i32).max(IVec2::ZERO);
    let hi = corner_in_tiles(hi).min(IVec2::new(map.width() as i32 - 1, map.height() as i32 - 1));
    (lo.x <= hi.x && lo.y <= hi.y).then_some((lo, hi))
}

/// Calls `f(x, y, kind)` for every non-empty tile in the range `[min, max]` touches.
#[inline]
pub(super) fn for_each_tile(
    map: &TileMap,
    min: Vec2,
    max: Vec2,
    mut f: impl FnMut(i32, i32, TileKind),
) {
    let Some((lo, hi)) = tile_range(map, min, max) else {
        return;
    };
    // The range lies inside the map: each row is one slice, checked once.
    let (width, tiles) = (map.width() as usize, map.tiles());
    for y in lo.y..=hi.y {
        let row = &tiles[y as usize * width..][lo.x as usize..=hi.x as usize];
        for (x, &kind) in (lo.x..).zip(row) {
            if kind != TileKind::Empty {
                f(x, y, kind);
            }
        }
    }
}

/// The box that encloses a box of `half` extents moving from `center` by `d`, grown by
/// `margin` on every side: what a sweep scans, and what its fast paths check first.
#[inline]
pub(super) fn swept_box(center: Vec2, half: Vec2, d: Vec2, margin: f32) -> (Vec2, Vec2) {
    let end = center + d;
    (
        center.min(end) - half - margin,
        center.max(end) + half + margin,
    )
}

/// Whether any non-empty tile lies in the range `[min, max]` touches.
#[inline]
pub(super) fn any_tile(map: &TileMap, min: Vec2, max: Vec2) -> bool {
    tile_range(map, min, max).is_some_and(|(lo, hi)| map.any_in(lo, hi))
}
