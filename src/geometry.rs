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

/// The contact tolerance of two bodies at `a` and `b`: [`skin_at`] the one farther from the
/// origin (the same from either side, so detection and response agree on it).
#[inline]
pub fn pair_skin(base: f32, a: Vec2, b: Vec2) -> f32 {
    skin_at(base, a.abs().max(b.abs()))
}

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
mod tests {
    use super::*;

    #[test]
    fn overlap_within_a_tolerance_reports_small_gaps_as_minus_the_gap() {
        let h = Vec2::splat(2.0);
        // a right of b by a gap of 0.25 on x, overlapping fully on y.
        let a = Vec2::new(4.25, 0.0);
        assert_eq!(signed_overlap(a, h, Vec2::ZERO, h), None);
        assert_eq!(signed_overlap_within(a, h, Vec2::ZERO, h, 0.2), None);
        assert_eq!(
            signed_overlap_within(a, h, Vec2::ZERO, h, 0.25),
            Some(Vec2::new(-0.25, 4.0))
        );
        // From b's side: the same gap, mirrored.
        assert_eq!(
            signed_overlap_within(Vec2::ZERO, h, a, h, 0.3),
            Some(Vec2::new(0.25, 4.0))
        );
        // No tolerance is signed_overlap; overlaps are unchanged by one.
        let b = Vec2::new(3.0, 1.0);
        assert_eq!(
            signed_overlap_within(Vec2::ZERO, h, b, h, 0.5),
            signed_overlap(Vec2::ZERO, h, b, h)
        );
        // Zero-sized boxes never touch.
        assert_eq!(
            signed_overlap_within(a, Vec2::new(0.0, 2.0), Vec2::ZERO, h, 1.0),
            None
        );
    }

    #[test]
    fn a_pairs_skin_is_the_same_from_either_side() {
        let (a, b) = (Vec2::new(30_000.0, 5.0), Vec2::new(-2.0, 40_000.0));
        assert_eq!(pair_skin(1e-3, a, b), pair_skin(1e-3, b, a));
        assert_eq!(
            pair_skin(1e-3, a, b),
            skin_at(1e-3, Vec2::new(0.0, 40_000.0))
        );
    }

    #[test]
    fn a_pairs_skin_is_the_larger_of_its_bodies_skins() {
        // The step uses the larger of the two bodies' own (each worked out once, in its
        // snapshot) where `pair_skin` is documented: they must agree bit for bit.
        let mut next = crate::test_rng::xorshift32(0x9E37_79B9);
        let mut coordinate = move || {
            let scale = [1.0, 16.0, 1000.0, 131_072.0, 1e7][next() as usize % 5];
            (next() as f32 / u32::MAX as f32 - 0.5) * 2.0 * scale
        };
        for base in [0.0, 1e-3, 0.25] {
            for _ in 0..5000 {
                let a = Vec2::new(coordinate(), coordinate());
                let b = Vec2::new(coordinate(), coordinate());
                let larger = skin_at(base, a).max(skin_at(base, b));
                assert_eq!(larger.to_bits(), pair_skin(base, a, b).to_bits(), "{a} {b}");
            }
        }
    }

    #[test]
    fn divide_is_bit_identical_to_the_division() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            3.0,
            16.0,
            17.5,
            -123.456,
            1e-30,
            1e-38,
            3e38,
            -7e37,
            8_388_607.5,
            f32::MIN_POSITIVE,
            1.4e-45,
        ];
        let divisors = [
            16.0,
            8.0,
            64.0,
            1.0,
            0.5,
            0.25,
            2f32.powi(-100),
            2f32.powi(100),
            2f32.powi(126),
            10.0,
            12.0,
            3.0,
            0.1,
            24.0,
        ];
        for &x in &values {
            for &y in &values {
                for &by in &divisors {
                    let v = Vec2::new(x, y);
                    let (got, want) = (divide(v, by), v / by);
                    assert_eq!(
                        got.to_array().map(f32::to_bits),
                        want.to_array().map(f32::to_bits),
                        "{v} / {by}"
                    );
                }
            }
        }
    }

    #[test]
    fn floor_to_ivec2_matches_floor_then_cast() {
        let values = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.999,
            -1.001,
            16.0,
            -16.0,
            1e7 + 0.5,
            -8_388_607.5,
            3e9,
            -3e9,
            2_147_483_520.0,
            -2_147_483_648.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ];
        for &x in &values {
            for &y in &values {
                let v = Vec2::new(x, y);
                let expected = IVec2::new(v.x.floor() as i32, v.y.floor() as i32);
                assert_eq!(floor_to_ivec2(v), expected, "{v}");
            }
        }
    }

    #[test]
    fn floor_clamped_matches_floor_then_clamp() {
        let values = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            -0.999,
            1.0,
            -1.0,
            2.5,
            -2.5,
            7.999,
            8.0,
            9.5,
            3e9,
            -3e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::MIN_POSITIVE,
        ];
        let bounds = [(0, 0), (0, 8), (2, 5), (0, i32::MAX)];
        for &x in &values {
            for &y in &values {
                for &(lo, hi) in &bounds {
                    let v = Vec2::new(x, y);
                    let (lo, hi) = (IVec2::new(lo, 0), IVec2::new(hi, 3));
                    let expected = floor_to_ivec2(v).clamp(lo, hi);
                    assert_eq!(floor_clamped(v, lo, hi), expected, "{v} {lo} {hi}");
                }
            }
        }
    }

    const SKIN: f32 = 1e-3;
    const MIN: Vec2 = Vec2::new(0.0, 0.0);
    const MAX: Vec2 = Vec2::new(10.0, 10.0);

    #[test]
    fn overlap_sign_follows_article_000_from_both_sides() {
        let a = Vec2::ZERO;
        let b = Vec2::new(3.0, 1.0);
        let h = Vec2::splat(2.0);
        let ab = signed_overlap(a, h, b, h).unwrap();
        let ba = signed_overlap(b, h, a, h).unwrap();
        assert_eq!(
            ab,
            Vec2::new(-1.0, -3.0),
            "b right of and above a: a moves left/down"
        );
        assert_eq!(ba, -ab);
    }

    #[test]
    fn touching_boxes_overlap_by_zero() {
        let o = signed_overlap(Vec2::ZERO, Vec2::ONE, Vec2::new(2.0, 0.5), Vec2::ONE);
        assert_eq!(o, Some(Vec2::new(0.0, -1.5)));
        assert_eq!(
            signed_overlap(Vec2::ZERO, Vec2::ONE, Vec2::new(2.01, 0.0), Vec2::ONE),
            None
        );
    }

    #[test]
    fn zero_extent_never_overlaps() {
        assert_eq!(
            signed_overlap(Vec2::ZERO, Vec2::new(0.0, 1.0), Vec2::ZERO, Vec2::ONE),
            None
        );
    }

    #[test]
    fn sweep_reports_entry_face_and_time() {
        let hit = sweep_point_box(
            Vec2::new(-5.0, 5.0),
            Vec2::new(10.0, 0.0),
            MIN,
            MAX,
            SKIN,
            true,
        )
        .unwrap();
        assert_eq!(hit.axis, Axis::X);
        assert_eq!(hit.normal_sign, -1.0);
        assert_eq!(hit.face, 0.0);
        assert!((hit.time - 0.5).abs() < 1e-6);
    }

    #[test]
    fn sweep_ignores_a_path_that_only_touches_a_face() {
        // Sliding exactly along the top face.
        assert!(
            sweep_point_box(
                Vec2::new(-5.0, 10.0),
                Vec2::new(30.0, 0.0),
                MIN,
                MAX,
                SKIN,
                true
            )
            .is_none()
        );
        // Within the skin below the top face: still a graze.
        let p = Vec2::new(-5.0, 10.0 - SKIN * 0.5);
        assert!(sweep_point_box(p, Vec2::new(30.0, 0.0), MIN, MAX, SKIN, true).is_none());
    }

    #[test]
    fn sweep_passing_a_corner_at_one_unit_misses() {
        // The path x + y = 21 passes one unit above the corner (10, 10) at x = 10 and one unit
        // right of it at y = 10: it never enters the box (where x + y <= 20).
        let p = Vec2::new(0.0, 21.0);
        let d = Vec2::new(20.0, -20.0);
        assert!(sweep_point_box(p, d, MIN, MAX, SKIN, true).is_none());
        // One unit further in (x + y = 19) it does hit, through the top face.
        let hit = sweep_point_box(Vec2::new(0.0, 19.0), d, MIN, MAX, SKIN, true).unwrap();
        assert_eq!((hit.axis, hit.normal_sign), (Axis::Y, 1.0));
    }

    #[test]
    fn sweep_starting_in_contact_hits_at_time_zero() {
        let hit = sweep_point_box(
            Vec2::new(5.0, 10.0),
            Vec2::new(0.0, -3.0),
            MIN,
            MAX,
            SKIN,
            true,
        )
        .unwrap();
        assert_eq!(hit.time, 0.0);
        assert_eq!((hit.axis, hit.normal_sign), (Axis::Y, 1.0));
    }

    #[test]
    fn sweep_starting_deep_inside_is_not_a_contact() {
        assert!(
            sweep_point_box(
                Vec2::new(5.0, 5.0),
                Vec2::new(3.0, 3.0),
                MIN,
                MAX,
                SKIN,
                true
            )
            .is_none()
        );
    }

    #[test]
    fn sweep_beyond_the_displacement_misses() {
        assert!(
            sweep_point_box(
                Vec2::new(-5.0, 5.0),
                Vec2::new(4.0, 0.0),
                MIN,
                MAX,
                SKIN,
                true
            )
            .is_none()
        );
    }

    #[test]
    fn sweep_corner_tie_uses_preference() {
        let p = Vec2::new(-1.0, -1.0);
        let d = Vec2::new(2.0, 2.0);
        let y = sweep_point_box(p, d, MIN, MAX, SKIN, true).unwrap();
        let x = sweep_point_box(p, d, MIN, MAX, SKIN, false).unwrap();
        assert_eq!(y.axis, Axis::Y);
        assert_eq!(x.axis, Axis::X);
    }

    #[test]
    fn non_square_entry_axis_is_the_later_slab() {
        // A tall thin body (Minkowski sum is what the caller passes) falling onto a corner with a
        // small horizontal drift: it enters through the top, not the side.
        let hit = sweep_point_box(
            Vec2::new(-0.2, 12.0),
            Vec2::new(1.0, -4.0),
            MIN,
            MAX,
            SKIN,
            false,
        )
        .unwrap();
        assert_eq!((hit.axis, hit.normal_sign), (Axis::Y, 1.0));
        // Moving mostly sideways at the corner: enters through the side.
        let hit = sweep_point_box(
            Vec2::new(-2.0, 9.0),
            Vec2::new(4.0, 0.5),
            MIN,
            MAX,
            SKIN,
            true,
        )
        .unwrap();
        assert_eq!((hit.axis, hit.normal_sign), (Axis::X, -1.0));
    }

    #[test]
    fn skin_grows_by_one_float_step_with_distance_from_origin() {
        assert!((skin_at(1e-3, Vec2::ZERO) - 1e-3).abs() < 1e-9);
        // At x = 128 000 (the 64k benchmark map) one f32 step is 1/128.
        let far = skin_at(1e-3, Vec2::new(128_000.0, 5.0));
        assert!((far - (1e-3 + 1.0 / 128.0)).abs() < 1e-6, "{far}");
        assert!(far < 0.01);
    }

    #[test]
    fn skin_is_finite_at_the_edge_of_the_float_range() {
        // One step below f32::MAX is 2^104; above it there is only infinity.
        let edge = skin_at(1e-3, Vec2::new(f32::MAX, -f32::MAX));
        assert_eq!(edge, 1e-3 + 2f32.powi(104));
        assert_eq!(skin_at(1e-3, Vec2::splat(f32::INFINITY)), 1e-3);
        assert_eq!(skin_at(1e-3, Vec2::new(f32::NAN, 0.0)), 1e-3);
        // Below f32::MAX it is the step above the coordinate, as it always was.
        for m in [
            0.0,
            1e-40,
            16.0,
            31.999,
            128_000.0,
            3e38,
            f32::MAX.next_down(),
        ] {
            let above = f32::from_bits(f32::to_bits(m) + 1) - m;
            assert_eq!(skin_at(1e-3, Vec2::new(0.0, -m)), 1e-3 + above, "{m}");
        }
    }
}
