//! Slope tiles as geometry (named by the way their surface rises: `Right` rises to the right):
//! their solid part as a convex polygon, the height of a floor slope
//! under a box, the first contact of a moving box with a slope, and the shortest push out of
//! one. Pure functions, in world units; the tile collision builds slopes on them.
//!
//! A slope tile's surface is a straight line across the tile, given by its heights at the
//! tile's left and right edges as fractions of the tile side: 45-degree slopes go from 0 to 1
//! (or 1 to 0), and a 2:1 slope is two tiles, a low half (0 to 1/2) and a high half (1/2 to 1).
//! A floor slope is solid below its surface, a ceiling slope above it (heights measured down
//! from the tile's top).
//!
//! The contact test is the slab test of [`sweep_point_box`](crate::geometry::sweep_point_box)
//! generalised to the separating axes of a box and a convex polygon (x, y and the slope's
//! normal): the moving box becomes its centre, the polygon grows by the box's extent along
//! each axis, and a contact counts only if the centre's path enters the grown polygon shrunk by
//! the skin on every axis, so a path that grazes the surface or passes a corner is never hit.

use bevy::math::Vec2;
use bevy::reflect::Reflect;

/// Which way a slope's surface rises, and how steeply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub enum SlopeShape {
    /// 45 degrees, rising to the right.
    Right,
    /// 45 degrees, rising to the left.
    Left,
    /// The low half of a 2:1 slope rising to the right (heights 0 to 1/2).
    RightLow,
    /// The high half of a 2:1 slope rising to the right (heights 1/2 to 1).
    RightHigh,
    /// The low half of a 2:1 slope rising to the left (heights 1/2 to 0).
    LeftLow,
    /// The high half of a 2:1 slope rising to the left (heights 1 to 1/2).
    LeftHigh,
}

impl SlopeShape {
    /// Every shape.
    pub const ALL: [Self; 6] = [
        Self::Right,
        Self::Left,
        Self::RightLow,
        Self::RightHigh,
        Self::LeftLow,
        Self::LeftHigh,
    ];

    /// The surface's heights at the tile's left and right edges, as fractions of the side.
    pub fn heights(self) -> (f32, f32) {
        match self {
            Self::Right => (0.0, 1.0),
            Self::Left => (1.0, 0.0),
            Self::RightLow => (0.0, 0.5),
            Self::RightHigh => (0.5, 1.0),
            Self::LeftLow => (0.5, 0.0),
            Self::LeftHigh => (1.0, 0.5),
        }
    }
}

/// A slope tile: its shape, and whether it is a ceiling (solid above the surface).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub struct Slope {
    /// Which way it rises.
    pub shape: SlopeShape,
    /// A ceiling (solid above the surface) rather than a floor.
    pub ceiling: bool,
    /// A one-way floor slope: only its surface collides, with bodies coming from above it
    /// (never a ceiling).
    pub one_way: bool,
}

impl Slope {
    /// The surface's outward normal (out of the solid part), unit length.
    ///
    /// ```
    /// use bevy::math::Vec2;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// let ramp = TileKind::SlopeRight.slope().unwrap();
    /// assert!((ramp.normal() - Vec2::new(-1.0, 1.0).normalize()).length() < 1e-6);
    /// ```
    pub fn normal(self) -> Vec2 {
        let (left, right) = self.shape.heights();
        let rise = right - left;
        match self.ceiling {
            false => Vec2::new(-rise, 1.0).normalize(),
            true => Vec2::new(-rise, -1.0).normalize(),
        }
    }
}

/// A slope tile in the world: the slope and the tile's rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlopeTile {
    /// The slope.
    pub slope: Slope,
    /// The tile's bottom-left corner.
    pub min: Vec2,
    /// The tile's top-right corner.
    pub max: Vec2,
}

/// A slope tile's solid part: three or four corners, counter-clockwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polygon {
    corners: [Vec2; 4],
    len: usize,
}

impl Polygon {
    /// The corners, counter-clockwise.
    pub fn corners(&self) -> &[Vec2] {
        &self.corners[..self.len]
    }
}

/// The first contact of a moving box with a slope tile, from [`sweep_box_slope`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlopeHit {
    /// Fraction of the displacement travelled before contact, in `[0, 1]`.
    pub time: f32,
    /// The outward normal of the face met (unit length): the surface's, or an axis.
    pub normal: Vec2,
}

impl SlopeTile {
    /// The surface's height (y) at `x`, clamped to the tile's width.
    pub fn surface_y(&self, x: f32) -> f32 {
        let (left, right) = self.slope.shape.heights();
        let side = self.max.x - self.min.x;
        let u = ((x - self.min.x) / side).clamp(0.0, 1.0);
        let h = (left + (right - left) * u) * side;
        match self.slope.ceiling {
            false => self.min.y + h,
            true => self.max.y - h,
        }
    }

    /// The surface's outward normal (out of the solid part), unit length.
    pub fn normal(&self) -> Vec2 {
        self.slope.normal()
    }

    /// The solid part: the tile below (floor) or above (ceiling) the surface.
    pub fn polygon(&self) -> Polygon {
        let (min, max) = (self.min, self.max);
        let (left, right) = (self.surface_y(min.x), self.surface_y(max.x));
        let (base, left_edge, right_edge) = match self.slope.ceiling {
            false => (min.y, left, right),
            true => (max.y, left, right),
        };
        // The corners on the base line, then the surface's ends (a surface end on the base is
        // the same corner, left out).
        let mut corners = [Vec2::ZERO; 4];
        let mut len = 0;
        let mut push = |p: Vec2| {
            if len == 0 || corners[len - 1] != p {
                corners[len] = p;
                len += 1;
            }
        };
        if self.slope.ceiling {
            // Counter-clockwise with the solid above: top-left, surface left, surface right,
            // top-right.
            push(Vec2::new(min.x, base));
            push(Vec2::new(min.x, left_edge));
            push(Vec2::new(max.x, right_edge));
            push(Vec2::new(max.x, base));
        } else {
            push(Vec2::new(min.x, base));
            push(Vec2::new(max.x, base));
            push(Vec2::new(max.x, right_edge));
            push(Vec2::new(min.x, left_edge));
        }
        if len > 1 && corners[len - 1] == corners[0] {
            len -= 1;
        }
        Polygon { corners, len }
    }

    /// The separating axes of a box and this tile: the surface's normal, x and y. The normal
    /// comes first: where a contact is as much with a corner as with the surface (a box's
    /// corner on a tile's corner, where ramps meet), it is with the surface.
    fn axes(&self) -> [Vec2; 3] {
        [self.normal(), Vec2::X, Vec2::Y]
    }

    /// The same tile with its bottom-left corner at the origin, and `p` in that frame. The
    /// contact tests project positions onto the slanted normal: in world coordinates far from
    /// the origin those projections round by as much as the contact tolerance, in the tile's
    /// own frame they do not.
    fn local(&self, p: Vec2) -> (SlopeTile, Vec2) {
        let tile = SlopeTile {
            slope: self.slope,
            min: Vec2::ZERO,
            max: self.max - self.min,
        };
        (tile, p - self.min)
    }

    /// How high a floor slope holds a box whose bottom spans `lo..hi` in x: the highest point
    /// of the surface under that span (the uphill end, for a box of any width). `None` for a
    /// ceiling or a span beside the tile.
    pub fn support(&self, lo: f32, hi: f32) -> Option<f32> {
        if self.slope.ceiling || hi < self.min.x || lo > self.max.x {
            return None;
        }
        let (a, b) = (lo.max(self.min.x), hi.min(self.max.x));
        Some(self.surface_y(a).max(self.surface_y(b)))
    }
}

/// The interval a box centred at `center` with half extents `half` covers along `axis`.
fn box_interval(center: Vec2, half: Vec2, axis: Vec2) -> (f32, f32) {
    let c = center.dot(axis);
    let r = half.x * axis.x.abs() + half.y * axis.y.abs();
    (c - r, c + r)
}

/// The interval the polygon covers along `axis`.
fn polygon_interval(polygon: &Polygon, axis: Vec2) -> (f32, f32) {
    (polygon.corners().iter()).fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
        let x = p.dot(axis);
        (lo.min(x), hi.max(x))
    })
}

/// The first contact of a box (centre `center`, half extents `half`) moving by `d` with the
/// slope tile's solid part, ignoring grazes (see the [module](self)); `None` when the path
/// misses, starts more than `skin` inside (penetration, for [`push_out_of_slope`]), or only
/// reaches the tile after the whole displacement; but a box inside the surface by less than
/// two skins that moves further in meets it at once (time 0).
pub fn sweep_box_slope(
    center: Vec2,
    half: Vec2,
    d: Vec2,
    tile: &SlopeTile,
    skin: f32,
) -> Option<SlopeHit> {
    let (tile, center) = tile.local(center);
    let polygon = tile.polygon();
    let (mut t_in, mut t_out) = (f32::NEG_INFINITY, f32::INFINITY);
    let mut hit = SlopeHit {
        time: 0.0,
        normal: Vec2::ZERO,
    };
    for axis in tile.axes() {
        let (pl, ph) = polygon_interval(&polygon, axis);
        let (bl, bh) = box_interval(Vec2::ZERO, half, axis);
        // The centre's interval of overlap along the axis, shrunk by the skin.
        let (lo, hi) = (pl - bh + skin, ph - bl - skin);
        let (p, v) = (center.dot(axis), d.dot(axis));
        if v == 0.0 {
            if p <= lo || p >= hi {
                return None;
            }
            continue;
        }
        let (enter, exit, face, sign) = match v > 0.0 {
            true => ((lo - p) / v, (hi - p) / v, lo - skin, -1.0),
            false => ((hi - p) / v, (lo - p) / v, hi + skin, 1.0),
        };
        if enter > t_in {
            t_in = enter;
            hit = SlopeHit {
                time: ((face - p) / v).clamp(0.0, 1.0),
                normal: axis * sign,
            };
        }
        t_out = t_out.min(exit);
    }
    if t_in < t_out && (0.0..=1.0).contains(&t_in) {
        return Some(hit);
    }
    // A box that starts inside the surface by no more than the skin beyond touching it (where
    // rounding leaves a box moved along a slanted surface), and moves further in, meets the
    // surface at once: a push that starts there never passes through.
    let n = tile.normal();
    let touching = polygon_interval(&polygon, n).1 - box_interval(Vec2::ZERO, half, n).0;
    let (p, v) = (center.dot(n), d.dot(n));
    let grazing = t_in < 0.0 && t_out > 0.0 && p < touching && p >= touching - 2.0 * skin;
    (grazing && v < 0.0).then_some(SlopeHit {
        time: 0.0,
        normal: n,
    })
}

/// The shortest move that takes a box out of the slope tile's solid part, along one of the
/// separating axes (x, y or the surface's normal); `None` when they do not overlap by more than
/// `skin`.
pub fn push_out_of_slope(center: Vec2, half: Vec2, tile: &SlopeTile, skin: f32) -> Option<Vec2> {
    let (tile, center) = tile.local(center);
    let polygon = tile.polygon();
    let mut best: Option<Vec2> = None;
    for axis in tile.axes() {
        let (pl, ph) = polygon_interval(&polygon, axis);
        let (bl, bh) = box_interval(center, half, axis);
        let (up, down) = (ph - bl, bh - pl);
        if up <= skin || down <= skin {
            return None;
        }
        let push = if up <= down { axis * up } else { -axis * down };
        if best.is_none_or(|b| push.length_squared() < b.length_squared()) {
            best = Some(push);
        }
    }
    best
}

/// Where the segment from `start` to `end` first meets the slope tile's solid part: the
/// fraction of the segment before it, and the outward normal of the edge it enters through
/// (zero when it starts inside). Touching counts. The clipping of the segment by each edge's
/// half-plane (Cyrus and Beck).
pub fn cast_segment_slope(start: Vec2, end: Vec2, tile: &SlopeTile) -> Option<(f32, Vec2)> {
    let d = end - start;
    let (tile, start) = tile.local(start);
    let polygon = tile.polygon();
    let corners = polygon.corners();
    let (mut t_in, mut t_out) = (0.0f32, 1.0f32);
    let mut normal = Vec2::ZERO;
    for (i, &a) in corners.iter().enumerate() {
        let b = corners[(i + 1) % corners.len()];
        // Counter-clockwise corners: the outward normal is the edge turned clockwise.
        let n = Vec2::new(b.y - a.y, a.x - b.x).normalize();
        // Inside the edge's half-plane while n . (p - a) <= 0.
        let (num, den) = (n.dot(start - a), n.dot(d));
        if den == 0.0 {
            if num > 0.0 {
                return None;
            }
            continue;
        }
        let t = -num / den;
        if den < 0.0 {
            if t > t_in {
                t_in = t;
                normal = n;
            }
        } else {
            t_out = t_out.min(t);
        }
    }
    (t_in <= t_out).then_some((t_in, normal))
}

/// The outward normal of the slope tile's face a box touches: within `skin` of it and not
/// deeper than `skin` into the tile. `None` when apart or overlapping.
pub fn touching(center: Vec2, half: Vec2, tile: &SlopeTile, skin: f32) -> Option<Vec2> {
    let (tile, center) = tile.local(center);
    let tile = &tile;
    let polygon = tile.polygon();
    // The axis of the largest separation (a gap, or the shallowest overlap): the face met.
    let mut face: Option<(f32, Vec2)> = None;
    // The gap between the box and the surface, on the surface's side.
    let mut surface = f32::INFINITY;
    for (i, axis) in tile.axes().into_iter().enumerate() {
        let (pl, ph) = polygon_interval(&polygon, axis);
        let (bl, bh) = box_interval(center, half, axis);
        let (above, below) = (bl - ph, pl - bh);
        if i == 0 {
            surface = above;
        }
        let (gap, normal) = if above >= below {
            (above, axis)
        } else {
            (below, -axis)
        };
        if face.is_none_or(|(g, _)| gap > g) {
            face = Some((gap, normal));
        }
    }
    let (gap, normal) = face?;
    if gap.abs() > skin {
        return None;
    }
    // A box on the surface touches the surface, even where a tile face is as near (at the
    // tile's corners, where a ramp meets the next tile).
    if surface.abs() <= skin {
        return Some(tile.normal());
    }
    // A side face counts only where the box's side runs along it, not corner to corner.
    if normal.x != 0.0 {
        let x = if normal.x > 0.0 {
            tile.max.x
        } else {
            tile.min.x
        };
        let edge = tile.surface_y(x);
        let (lo, hi) = match tile.slope.ceiling {
            false => (tile.min.y, edge),
            true => (edge, tile.max.y),
        };
        let overlap = (center.y + half.y).min(hi) - (center.y - half.y).max(lo);
        if overlap <= skin {
            return None;
        }
    }
    Some(normal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::unit_floats;

    const SKIN: f32 = 1e-3;

    fn tile(shape: SlopeShape, ceiling: bool) -> SlopeTile {
        SlopeTile {
            slope: Slope {
                shape,
                ceiling,
                one_way: false,
            },
            min: Vec2::new(32.0, 16.0),
            max: Vec2::new(48.0, 32.0),
        }
    }

    /// How deep a box overlaps the tile's solid part (0 when apart): the least overlap over
    /// the separating axes.
    fn depth(center: Vec2, half: Vec2, t: &SlopeTile) -> f32 {
        let polygon = t.polygon();
        (t.axes().iter())
            .map(|&axis| {
                let (pl, ph) = polygon_interval(&polygon, axis);
                let (bl, bh) = box_interval(center, half, axis);
                (ph - bl).min(bh - pl).max(0.0)
            })
            .fold(f32::INFINITY, f32::min)
    }

    #[test]
    fn surfaces_rise_as_named_on_floors_and_ceilings() {
        let up = tile(SlopeShape::Right, false);
        assert_eq!(
            (up.surface_y(32.0), up.surface_y(40.0), up.surface_y(48.0)),
            (16.0, 24.0, 32.0)
        );
        let normal = up.normal();
        assert!((normal - Vec2::new(-1.0, 1.0).normalize()).length() < 1e-6);
        let low = tile(SlopeShape::LeftLow, false);
        assert_eq!((low.surface_y(32.0), low.surface_y(48.0)), (24.0, 16.0));
        assert!((low.normal() - Vec2::new(0.5, 1.0).normalize()).length() < 1e-6);
        // A ceiling: heights from the top, normal pointing down.
        let ceiling = tile(SlopeShape::RightHigh, true);
        assert_eq!(
            (ceiling.surface_y(32.0), ceiling.surface_y(48.0)),
            (24.0, 16.0)
        );
        assert!(ceiling.normal().y < 0.0);
        for shape in SlopeShape::ALL {
            for ceiling in [false, true] {
                let t = tile(shape, ceiling);
                let corners = t.polygon().len;
                let (l, r) = shape.heights();
                assert_eq!(
                    corners,
                    if l == 0.0 || r == 0.0 { 3 } else { 4 },
                    "{shape:?}"
                );
                // The surface's normal is perpendicular to the surface.
                let along = Vec2::new(16.0, t.surface_y(48.0) - t.surface_y(32.0));
                assert!(along.dot(t.normal()).abs() < 1e-4, "{shape:?} {ceiling}");
            }
        }
    }

    #[test]
    fn a_floor_slope_holds_a_box_of_any_width_at_its_uphill_end() {
        let up = tile(SlopeShape::Right, false);
        assert_eq!(up.support(34.0, 40.0), Some(24.0), "narrow: its right end");
        assert_eq!(
            up.support(20.0, 60.0),
            Some(32.0),
            "wider than the tile: the top"
        );
        assert_eq!(
            up.support(20.0, 36.0),
            Some(20.0),
            "hanging over the low end"
        );
        let left = tile(SlopeShape::Left, false);
        assert_eq!(
            left.support(36.0, 44.0),
            Some(28.0),
            "rising left: its left end"
        );
        assert_eq!(up.support(49.0, 60.0), None);
        assert_eq!(tile(SlopeShape::Right, true).support(34.0, 40.0), None);
    }

    #[test]
    fn a_box_falling_64_tiles_lands_with_its_uphill_corner_on_the_surface() {
        for shape in SlopeShape::ALL {
            let t = tile(shape, false);
            for half in [
                Vec2::new(3.0, 7.0),
                Vec2::new(5.0, 2.0),
                Vec2::new(12.0, 4.0),
            ] {
                let start = Vec2::new(39.0, 40.0 + half.y);
                let d = Vec2::new(0.0, -64.0 * 16.0);
                let hit = sweep_box_slope(start, half, d, &t, SKIN).expect("lands");
                let at = start + d * hit.time;
                let rest = t.support(at.x - half.x, at.x + half.x).unwrap();
                assert!(
                    (at.y - half.y - rest).abs() < 1e-2,
                    "{shape:?} {half}: feet at {} on {rest}",
                    at.y - half.y
                );
                assert!(depth(at, half, &t) <= SKIN + 1e-3);
            }
        }
    }

    #[test]
    fn walking_into_the_low_side_meets_the_surface_and_the_high_side_meets_a_wall() {
        let up = tile(SlopeShape::Right, false);
        let half = Vec2::splat(4.0);
        // From the left, feet at the tile's bottom: the surface, normal up and back.
        let hit = sweep_box_slope(Vec2::new(26.0, 20.0), half, Vec2::new(20.0, 0.0), &up, SKIN)
            .expect("meets the surface");
        assert!((hit.normal - up.normal()).length() < 1e-6);
        // From the right, below the top: the tile's right face.
        let hit = sweep_box_slope(
            Vec2::new(54.0, 22.0),
            half,
            Vec2::new(-20.0, 0.0),
            &up,
            SKIN,
        )
        .expect("meets the wall");
        assert_eq!(hit.normal, Vec2::X);
        assert!((hit.time - 0.1).abs() < 1e-5);
    }

    #[test]
    fn a_box_sliding_along_the_surface_or_passing_above_is_not_stopped() {
        let up = tile(SlopeShape::Right, false);
        let half = Vec2::splat(4.0);
        // Resting with its bottom-right corner on the surface at x = 40 (height 24).
        let on = Vec2::new(36.0, 28.0);
        assert!(sweep_box_slope(on, half, Vec2::new(4.0, 4.0), &up, SKIN).is_none());
        assert!(sweep_box_slope(on, half, Vec2::new(-4.0, -4.0), &up, SKIN).is_none());
        // Passing over the top corner one unit above it.
        let above = Vec2::new(20.0, 37.0);
        assert!(sweep_box_slope(above, half, Vec2::new(40.0, 0.0), &up, SKIN).is_none());
    }

    #[test]
    fn a_box_rising_into_a_ceiling_slope_meets_its_surface() {
        let ceiling = tile(SlopeShape::Left, true);
        // Surface from (32, 16) to (48, 32): normal down and to the right.
        let half = Vec2::new(3.0, 5.0);
        let start = Vec2::new(44.0, 10.0);
        let hit = sweep_box_slope(start, half, Vec2::new(0.0, 40.0), &ceiling, SKIN)
            .expect("meets the ceiling");
        assert!((hit.normal - ceiling.normal()).length() < 1e-6);
        assert!(hit.normal.x > 0.0 && hit.normal.y < 0.0);
        let at = start + Vec2::new(0.0, 40.0) * hit.time;
        assert!(depth(at, half, &ceiling) <= SKIN + 1e-3);
        // Its top-left corner touches the surface.
        assert!((at.y + half.y - ceiling.surface_y(at.x - half.x)).abs() < 1e-2);
    }

    #[test]
    fn a_box_in_a_slope_is_pushed_out_the_shortest_way() {
        let up = tile(SlopeShape::Right, false);
        let half = Vec2::splat(4.0);
        // Its bottom-right corner one unit (along the normal) inside the surface.
        let n = up.normal();
        let touching = Vec2::new(36.0, 28.0);
        let push = push_out_of_slope(touching - n, half, &up, SKIN).expect("inside");
        assert!((push - n).length() < 1e-4, "{push}");
        assert_eq!(
            push_out_of_slope(touching, half, &up, SKIN),
            None,
            "touching"
        );
        assert_eq!(
            push_out_of_slope(touching + n, half, &up, SKIN),
            None,
            "apart"
        );
    }

    #[test]
    fn segments_stop_on_the_surface_and_pass_over_the_empty_half() {
        let up = tile(SlopeShape::Right, false);
        // Straight down at x = 36: the surface is at y = 20.
        let (t, n) = cast_segment_slope(Vec2::new(36.0, 40.0), Vec2::new(36.0, 0.0), &up).unwrap();
        assert!((t * 40.0 - 20.0).abs() < 1e-4 && (n - up.normal()).length() < 1e-6);
        // Across the empty upper-left half: no hit.
        assert_eq!(
            cast_segment_slope(Vec2::new(30.0, 30.0), Vec2::new(38.0, 31.0), &up),
            None
        );
        // Into the high side from the right: the tile's right face.
        let (t, n) = cast_segment_slope(Vec2::new(60.0, 20.0), Vec2::new(40.0, 20.0), &up).unwrap();
        assert!((t * 20.0 - 12.0).abs() < 1e-4 && n == Vec2::X);
        // Starting inside: at once, no normal.
        assert_eq!(
            cast_segment_slope(Vec2::new(46.0, 18.0), Vec2::new(0.0, 0.0), &up),
            Some((0.0, Vec2::ZERO))
        );
    }

    #[test]
    fn random_sweeps_stop_at_the_solid_part_and_never_pass_through_it() {
        let mut u = unit_floats(0x0051_07E5);
        let mut hits = 0;
        for i in 0..20_000 {
            let t = tile(SlopeShape::ALL[i % 6], i % 12 >= 6);
            let half = Vec2::new(1.0 + u() * 12.0, 1.0 + u() * 12.0);
            let center = Vec2::new(u() * 80.0, u() * 48.0);
            if depth(center, half, &t) > 0.0 {
                continue;
            }
            let d = Vec2::new(u() * 120.0 - 60.0, u() * 120.0 - 60.0);
            let end = match sweep_box_slope(center, half, d, &t, SKIN) {
                Some(hit) => {
                    hits += 1;
                    center + d * hit.time
                }
                None => center + d,
            };
            // Nowhere on the way (sampled) does the box go deeper than the skin.
            for k in 0..=32 {
                let p = center + (end - center) * (k as f32 / 32.0);
                assert!(
                    depth(p, half, &t) <= SKIN + 1e-3,
                    "{i}: {center} {half} {d}: {} deep at {k}/32",
                    depth(p, half, &t)
                );
            }
        }
        assert!(hits > 2000, "{hits}");
    }
}
