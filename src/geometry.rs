//! Pure axis-aligned box geometry: signed overlap, swept entry time, tolerances. No ECS here.

use bevy::math::{IVec2, Vec2};

/// One of the two world axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Horizontal.
    X,
    /// Vertical (y up).
    Y,
}

impl Axis {
    /// The component of `v` along this axis.
    #[inline]
    pub fn of(self, v: Vec2) -> f32 {
        match self {
            Axis::X => v.x,
            Axis::Y => v.y,
        }
    }

    /// A mutable reference to the component of `v` along this axis.
    #[inline]
    pub fn of_mut(self, v: &mut Vec2) -> &mut f32 {
        match self {
            Axis::X => &mut v.x,
            Axis::Y => &mut v.y,
        }
    }
}

/// Signed overlap of box `a` against box `b` (centre + half extents), article 000's convention.
///
/// Returns `None` when the boxes are apart or either has a zero extent. Touching boxes
/// (zero overlap on an axis) *do* count and return `Some` with that component `0.0`.
/// Each component is positive when `a` must move in the positive direction to leave `b`
/// (so `x < 0` when `b` lies to the right of `a`).
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_platformer_physics::geometry::signed_overlap;
///
/// // b is 3 units to the right and overlaps a by 1 on x and fully on y.
/// let o = signed_overlap(Vec2::ZERO, Vec2::splat(2.0), Vec2::new(3.0, 0.0), Vec2::splat(2.0));
/// assert_eq!(o, Some(Vec2::new(-1.0, 4.0)));
/// ```
pub fn signed_overlap(a_center: Vec2, a_half: Vec2, b_center: Vec2, b_half: Vec2) -> Option<Vec2> {
    signed_overlap_within(a_center, a_half, b_center, b_half, 0.0)
}

internal! {
    /// [`signed_overlap`], with boxes up to `tolerance` apart counting as touching too: on an axis
    /// where they are apart, the component is minus the gap (its sign is then the opposite of the
    /// direction `a` would leave `b` in). Pair detection uses it with the
    /// [`contact_tolerance`](crate::PhysicsConfig::contact_tolerance) ([`pair_skin`]), so a body
    /// put back on top of another, which can end a rounding error above it, still stands on it.
    ///
    /// ```
    /// use bevy::math::Vec2;
    /// use bevy_platformer_physics::geometry::signed_overlap_within;
    ///
    /// // a rests on b with a gap of a thousandth of a unit between them.
    /// let (a, b) = (Vec2::new(0.0, 4.001), Vec2::ZERO);
    /// let o = signed_overlap_within(a, Vec2::splat(2.0), b, Vec2::splat(2.0), 0.002).unwrap();
    /// assert!((o.y + 0.001).abs() < 1e-6 && o.x == 4.0);
    /// assert_eq!(signed_overlap_within(a, Vec2::splat(2.0), b, Vec2::splat(2.0), 0.0005), None);
    /// ```
    pub fn signed_overlap_within(
        a_center: Vec2,
        a_half: Vec2,
        b_center: Vec2,
        b_half: Vec2,
        tolerance: f32,
    ) -> Option<Vec2> {
        if a_half.x == 0.0 || a_half.y == 0.0 || b_half.x == 0.0 || b_half.y == 0.0 {
            return None;
        }
        let delta = a_center - b_center;
        let reach = a_half + b_half;
        if delta.x.abs() > reach.x + tolerance || delta.y.abs() > reach.y + tolerance {
            return None;
        }
        // `signum` of 0.0 is 1.0: coincident centres push a in +x / +y, which is deterministic.
        Some(Vec2::new(
            delta.x.signum() * (reach.x - delta.x.abs()),
            delta.y.signum() * (reach.y - delta.y.abs()),
        ))
    }
}

/// How far two intervals `[a_min, a_max]` and `[b_min, b_max]` overlap (negative: the gap).
#[inline]
pub fn interval_overlap(a_min: f32, a_max: f32, b_min: f32, b_max: f32) -> f32 {
    a_max.min(b_max) - a_min.max(b_min)
}

/// `v` rounded down to whole numbers, saturating at the `i32` range (NaN gives 0): the same as
/// `v.floor()` followed by `as i32`, without the library call `floor` compiles to on CPUs
/// without SSE4.1 (the default x86-64 target), which tile and cell lookups make per body.
#[inline]
pub fn floor_to_ivec2(v: Vec2) -> IVec2 {
    let t = IVec2::new(v.x as i32, v.y as i32);
    // Truncation rounds negative fractions up: step those down.
    t.saturating_sub(IVec2::new(
        (t.x as f32 > v.x) as i32,
        (t.y as f32 > v.y) as i32,
    ))
}

/// `floor_to_ivec2(v).clamp(lo, hi)` for `lo >= 0`, bit for bit, in fewer instructions: it
/// rounds towards zero, which differs from rounding down only on negative fractions, and those
/// clamp to `lo` either way.
#[inline]
pub(crate) fn floor_clamped(v: Vec2, lo: IVec2, hi: IVec2) -> IVec2 {
    debug_assert!(lo.cmpge(IVec2::ZERO).all());
    IVec2::new(v.x as i32, v.y as i32).clamp(lo, hi)
}

/// `v / by`, bit for bit, but without a division when `by` is a power of two (tile sizes and
/// cell sizes usually are): dividing by `2^k` and multiplying by the exact `2^-k` round the same
/// real number, so they give the same float. Tile and cell lookups make several per body.
#[inline]
pub(crate) fn divide(v: Vec2, by: f32) -> Vec2 {
    let bits = by.to_bits();
    let exp = bits >> 23;
    // Positive, no mantissa bits, and a reciprocal that is a normal float.
    if bits & 0x007F_FFFF == 0 && (2..=253).contains(&exp) {
        v * f32::from_bits((254 - exp) << 23)
    } else {
        v / by
    }
}

internal! {
    /// The contact tolerance of two bodies at `a` and `b`: [`skin_at`] the one farther from the
    /// origin (the same from either side, so detection and response agree on it).
    #[inline]
    pub fn pair_skin(base: f32, a: Vec2, b: Vec2) -> f32 {
        skin_at(base, a.abs().max(b.abs()))
    }
}

internal! {
    /// The tolerance used at world position `p`: `base` plus one float step (ulp) of `p`'s largest
    /// coordinate, so far from the origin, where one step can exceed `base`, a flush contact still
    /// reads as touching, and no overlap larger than that one step is ever tolerated.
    ///
    /// The step is the one above the coordinate, except at `f32::MAX`, where there is none (the
    /// next float is infinity) and the step below is used: the tolerance is finite for every
    /// finite position, so a body at the edge of the float range touches nothing near the origin.
    #[inline]
    pub fn skin_at(base: f32, p: Vec2) -> f32 {
        let m = p.x.abs().max(p.y.abs());
        let ulp = if m < f32::MAX {
            m.next_up() - m
        } else if m == f32::MAX {
            m - m.next_down()
        } else {
            0.0
        };
        base + ulp
    }
}

/// Whether a pair that overlapped by `overlap` where detection saw it (within the pair's
/// tolerance `skin`) is one that relaxation settles in no phase while neither body moves: it
/// overlaps by no more than `skin` along one axis or the other.
#[inline]
pub(crate) fn settled_where_detected(overlap: Vec2, skin: f32) -> bool {
    overlap.abs().min_element() <= skin
}

/// Whether boxes `a` and `b` are apart by at most twice `reach` along both axes (each grown by
/// `reach`, they overlap or touch): relaxation's near pairs.
#[inline]
pub(crate) fn within_reach(a: (Vec2, Vec2), b: (Vec2, Vec2), reach: f32) -> bool {
    let gap = (a.0 - b.0).abs() - (a.1 + b.1);
    gap.x <= 2.0 * reach && gap.y <= 2.0 * reach
}

/// The corners of the rectangle `[min, max]`, counter-clockwise from `min`.
#[inline]
pub(crate) fn rect_corners(min: Vec2, max: Vec2) -> [Vec2; 4] {
    [min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// Where a box (centre `center`, half extents `half`) that touches a convex shape (its
/// `corners`) on the shape's side with outward unit `normal` meets it: the middle of the
/// stretch the shape's side and the box's facing side share, or the single corner where only a
/// corner touches. Corners within `tolerance` of the touching line count as on it.
pub(crate) fn contact_point(
    corners: &[Vec2],
    center: Vec2,
    half: Vec2,
    normal: Vec2,
    tolerance: f32,
) -> Vec2 {
    let boxed = rect_corners(center - half, center + half);
    let reach = (corners.iter()).fold(f32::NEG_INFINITY, |r, p| r.max(p.dot(normal)));
    let near = (boxed.iter()).fold(f32::INFINITY, |r, p| r.min(p.dot(normal)));
    // The stretch along the line that the points on it cover.
    let tangent = normal.perp();
    let stretch = |points: &[Vec2], on: &dyn Fn(f32) -> bool| {
        points
            .iter()
            .filter(|p| on(p.dot(normal)))
            .map(|p| p.dot(tangent))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), t| {
                (lo.min(t), hi.max(t))
            })
    };
    let shape = stretch(corners, &|d| d >= reach - tolerance);
    let facing = stretch(&boxed, &|d| d <= near + tolerance);
    let middle = (shape.0.max(facing.0) + shape.1.min(facing.1)) / 2.0;
    normal * reach + tangent * middle
}

/// Where a moving point first enters a box, from [`sweep_point_box`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepHit {
    /// Fraction of the displacement travelled before contact, in `[0, 1]`.
    pub time: f32,
    /// The axis of the face entered.
    pub axis: Axis,
    /// `+1.0` when the face entered is the box's max face (its outward normal points along
    /// `+axis`), `-1.0` for its min face.
    pub normal_sign: f32,
    /// The coordinate of that face along `axis`.
    pub face: f32,
}

impl SweepHit {
    /// How far a point moving from `p` by `d` travelled to this hit: from the face's
    /// coordinate where it can, so a move along an axis onto a face at a whole number gives a
    /// whole number.
    #[inline]
    pub(crate) fn distance(&self, p: Vec2, d: Vec2) -> f32 {
        let length = d.length();
        let along = self.axis.of(d) / length;
        let exact = ((self.face - self.axis.of(p)) / along).abs();
        if exact.is_finite() {
            exact.min(length)
        } else {
            self.time * length
        }
    }

    /// The outward normal of the face entered.
    #[inline]
    pub(crate) fn normal(&self) -> Vec2 {
        match self.axis {
            Axis::X => Vec2::new(self.normal_sign, 0.0),
            Axis::Y => Vec2::new(0.0, self.normal_sign),
        }
    }
}

/// The time a point moving from `p` by `d` enters the box `[min, max]`, ignoring grazes.
///
/// This is the slab test on the Minkowski sum (grow the tile by the body's half extents, shrink
/// the body to its centre). A contact counts only if the path enters the box shrunk by `skin`
/// on every side, so a path that merely touches a face or passes a corner at a distance is never
/// hit (no ghost collisions, no snagging on flush seams). The time reported is the time the
/// *real* face is reached, clamped to 0 when the point starts up to `skin` inside it.
///
/// Returns `None` when the path misses, when it starts deeper than `skin` inside the box on
/// both axes (that is penetration, not a sweep contact), or when the box is only reached after
/// the whole displacement. When both axes are entered at the same instant (corner to corner)
/// `tie_prefers_y` picks the reported face.
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_platformer_physics::geometry::{sweep_point_box, Axis};
///
/// // Falling 10 units onto a face 4 units below.
/// let hit = sweep_point_box(Vec2::new(0.0, 4.0), Vec2::new(0.0, -10.0),
///     Vec2::new(-5.0, -5.0), Vec2::new(5.0, 0.0), 1e-3, true).unwrap();
/// assert_eq!((hit.axis, hit.normal_sign, hit.time), (Axis::Y, 1.0, 0.4));
/// // Passing one unit beside the corner: no hit.
/// assert!(sweep_point_box(Vec2::new(-6.0, 4.0), Vec2::new(0.0, -10.0),
///     Vec2::new(-5.0, -5.0), Vec2::new(5.0, 0.0), 1e-3, true).is_none());
/// ```
pub fn sweep_point_box(
    p: Vec2,
    d: Vec2,
    min: Vec2,
    max: Vec2,
    skin: f32,
    tie_prefers_y: bool,
) -> Option<SweepHit> {
    PointSweep::new(p, d)
        .entry(min, max, skin)
        .map(|entry| entry.hit(tie_prefers_y))
}

/// A point moving from `p` by `d`, tested against many boxes: the reciprocal of `d` is computed
/// once, so each box costs no division until it is hit ([`sweep_point_box`] for one box).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointSweep {
    p: Vec2,
    d: Vec2,
    inv: Vec2,
}

/// The path entering one box: both slabs, from [`PointSweep::entry`].
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    x: Slab,
    y: Slab,
    p: Vec2,
    d: Vec2,
}

impl PointSweep {
    #[inline]
    pub(crate) fn new(p: Vec2, d: Vec2) -> Self {
        Self {
            p,
            d,
            inv: Vec2::new(1.0 / d.x, 1.0 / d.y),
        }
    }

    /// Whether the path enters `[min, max]` (see [`sweep_point_box`]), and how.
    #[inline]
    pub(crate) fn entry(&self, min: Vec2, max: Vec2, skin: f32) -> Option<Entry> {
        let (p, d, inv) = (self.p, self.d, self.inv);
        let x = slab(p.x, d.x, inv.x, min.x, max.x, skin)?;
        let y = slab(p.y, d.y, inv.y, min.y, max.y, skin)?;
        let t_in = x.t_in.max(y.t_in);
        let t_out = x.t_out.min(y.t_out);
        if t_in >= t_out || !(0.0..=1.0).contains(&t_in) {
            return None;
        }
        Some(Entry { x, y, p, d })
    }
}

impl Entry {
    /// The face entered; `tie_prefers_y` picks it when both axes are entered at once.
    #[inline]
    pub(crate) fn hit(&self, tie_prefers_y: bool) -> SweepHit {
        let (x, y, p, d) = (self.x, self.y, self.p, self.d);
        let use_y = if x.t_in == y.t_in {
            tie_prefers_y
        } else {
            y.t_in > x.t_in
        };
        let (slab, axis, pk, dk) = if use_y {
            (y, Axis::Y, p.y, d.y)
        } else {
            (x, Axis::X, p.x, d.x)
        };
        // A stationary axis has t_in = -inf and can never be the entry axis when t_in >= 0.
        let time = ((slab.face - pk) / dk).clamp(0.0, 1.0);
        SweepHit {
            time,
            axis,
            normal_sign: slab.normal_sign,
            face: slab.face,
        }
    }
}

#[derive(Clone, Copy)]
struct Slab {
    t_in: f32,
    t_out: f32,
    face: f32,
    normal_sign: f32,
}

/// One axis of the slab test against the interval shrunk by `skin`; `inv` is `1.0 / d`.
#[inline]
fn slab(p: f32, d: f32, inv: f32, min: f32, max: f32, skin: f32) -> Option<Slab> {
    let (lo, hi) = (min + skin, max - skin);
    if d == 0.0 {
        return (p > lo && p < hi).then_some(Slab {
            t_in: f32::NEG_INFINITY,
            t_out: f32::INFINITY,
            face: 0.0,
            normal_sign: 0.0,
        });
    }
    if d > 0.0 {
        Some(Slab {
            t_in: (lo - p) * inv,
            t_out: (hi - p) * inv,
            face: min,
            normal_sign: -1.0,
        })
    } else {
        Some(Slab {
            t_in: (hi - p) * inv,
            t_out: (lo - p) * inv,
            face: max,
            normal_sign: 1.0,
        })
    }
}

#[cfg(test)]
mod tests;
