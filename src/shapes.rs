//! Shape tests for triggers and queries (article 002, corrected): circles, axis-aligned boxes,
//! rotated rectangles, points and segments. Pure functions; touching counts as colliding.

use bevy::math::Vec2;

/// A circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre.
    pub center: Vec2,
    /// Radius (non-negative).
    pub radius: f32,
}

/// An axis-aligned box by centre and half extents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxShape {
    /// Centre.
    pub center: Vec2,
    /// Half width and half height.
    pub half_extents: Vec2,
}

/// A rectangle rotated about its centre (article 002's `CollisionRectangle`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotatedRect {
    /// Centre.
    pub center: Vec2,
    /// Half width and half height before rotation.
    pub half_extents: Vec2,
    /// Counter-clockwise rotation in radians.
    pub rotation: f32,
}

impl RotatedRect {
    /// `p` in the rectangle's own frame: centred on it, its sides along the axes.
    #[inline]
    pub fn to_local(&self, p: Vec2) -> Vec2 {
        Vec2::from_angle(-self.rotation).rotate(p - self.center)
    }

    /// A point of the rectangle's own frame back in the world.
    #[inline]
    pub fn to_world(&self, local: Vec2) -> Vec2 {
        self.center + Vec2::from_angle(self.rotation).rotate(local)
    }

    /// The point of the rectangle (border or inside) closest to `p`.
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        let local = self.to_local(p);
        self.to_world(local.clamp(-self.half_extents, self.half_extents))
    }

    /// The four corners, counter-clockwise.
    pub fn corners(&self) -> [Vec2; 4] {
        let h = self.half_extents;
        [
            Vec2::new(-h.x, -h.y),
            Vec2::new(h.x, -h.y),
            Vec2::new(h.x, h.y),
            Vec2::new(-h.x, h.y),
        ]
        .map(|c| self.to_world(c))
    }
}

/// Whether two circles touch or overlap.
pub fn circle_circle(a: Circle, b: Circle) -> bool {
    let r = a.radius + b.radius;
    a.center.distance_squared(b.center) <= r * r
}

/// The point of an axis-aligned box closest to `p` (`p` itself when inside).
pub fn closest_point_on_box(b: BoxShape, p: Vec2) -> Vec2 {
    p.clamp(b.center - b.half_extents, b.center + b.half_extents)
}

/// Whether a circle touches or overlaps an axis-aligned box.
pub fn circle_box(c: Circle, b: BoxShape) -> bool {
    c.center.distance_squared(closest_point_on_box(b, c.center)) <= c.radius * c.radius
}

/// Whether a circle touches or overlaps a rotated rectangle: article 002's method (move the
/// circle into the rectangle's frame, clamp to the closest point), with its sign error fixed
/// (the squared distance is `dx² + dy²`, not `dx² - dy²`, which reports hits near corners that
/// are far away).
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_platformer_physics::shapes::{Circle, RotatedRect, circle_rotated_rect};
///
/// let r = RotatedRect { center: Vec2::ZERO, half_extents: Vec2::ONE, rotation: 0.0 };
/// // 1.5 units out along both axes from the corner (1, 1): about 2.1 away, radius 1.
/// let c = Circle { center: Vec2::splat(2.5), radius: 1.0 };
/// assert!(!circle_rotated_rect(c, r)); // `dx² - dy²` = 0 would say "hit"
/// ```
pub fn circle_rotated_rect(c: Circle, r: RotatedRect) -> bool {
    let local = r.to_local(c.center);
    let closest = local.clamp(-r.half_extents, r.half_extents);
    let d = local - closest;
    d.x * d.x + d.y * d.y <= c.radius * c.radius
}

/// Whether an axis-aligned box and a rotated rectangle touch or overlap (separating axes:
/// the box's two axes and the rectangle's two).
pub fn box_rotated_rect(b: BoxShape, r: RotatedRect) -> bool {
    let axes = [
        Vec2::X,
        Vec2::Y,
        Vec2::from_angle(r.rotation),
        Vec2::from_angle(r.rotation).perp(),
    ];
    let corners = r.corners();
    let box_corners = [
        b.center - b.half_extents,
        b.center + Vec2::new(b.half_extents.x, -b.half_extents.y),
        b.center + b.half_extents,
        b.center + Vec2::new(-b.half_extents.x, b.half_extents.y),
    ];
    axes.iter().all(|&axis| {
        let span = |points: &[Vec2; 4]| {
            points
                .iter()
                .map(|p| p.dot(axis))
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                })
        };
        let (a_lo, a_hi) = span(&box_corners);
        let (b_lo, b_hi) = span(&corners);
        a_lo <= b_hi && b_lo <= a_hi
    })
}

/// Whether `p` is in the circle (border included).
pub fn point_in_circle(p: Vec2, c: Circle) -> bool {
    p.distance_squared(c.center) <= c.radius * c.radius
}

/// Whether `p` is in the axis-aligned box (border included).
pub fn point_in_box(p: Vec2, b: BoxShape) -> bool {
    (p - b.center).abs().cmple(b.half_extents).all()
}

/// Whether `p` is in the rotated rectangle (border included).
pub fn point_in_rotated_rect(p: Vec2, r: RotatedRect) -> bool {
    r.to_local(p).abs().cmple(r.half_extents).all()
}

/// Any of the shapes, placed in the world: what a [`Sensor`](crate::sensors::Sensor) tests
/// and what the `shapes` example drags around.
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_platformer_physics::shapes::{BoxShape, Circle, Shape};
///
/// let ball = Shape::Circle(Circle { center: Vec2::new(3.0, 0.0), radius: 1.0 });
/// let crate_ = Shape::Box(BoxShape { center: Vec2::ZERO, half_extents: Vec2::splat(2.0) });
/// assert!(ball.overlaps(&crate_));
/// assert_eq!(crate_.closest_point(Vec2::new(3.0, 0.0)), Vec2::new(2.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A circle.
    Circle(Circle),
    /// An axis-aligned box.
    Box(BoxShape),
    /// A rotated rectangle.
    Rotated(RotatedRect),
}

impl Shape {
    /// The smallest axis-aligned rectangle holding the shape, as `(min, max)`.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        match *self {
            Shape::Circle(c) => (c.center - c.radius, c.center + c.radius),
            Shape::Box(b) => (b.center - b.half_extents, b.center + b.half_extents),
            Shape::Rotated(r) => {
                let (sin, cos) = r.rotation.sin_cos();
                let h = r.half_extents;
                let reach = Vec2::new(
                    h.x * cos.abs() + h.y * sin.abs(),
                    h.x * sin.abs() + h.y * cos.abs(),
                );
                (r.center - reach, r.center + reach)
            }
        }
    }

    /// Whether the shape's numbers are usable: finite, with no negative size.
    pub fn is_valid(&self) -> bool {
        match *self {
            Shape::Circle(c) => c.center.is_finite() && c.radius.is_finite() && c.radius >= 0.0,
            Shape::Box(b) => {
                b.center.is_finite()
                    && b.half_extents.is_finite()
                    && b.half_extents.min_element() >= 0.0
            }
            Shape::Rotated(r) => {
                r.center.is_finite()
                    && r.half_extents.is_finite()
                    && r.half_extents.min_element() >= 0.0
                    && r.rotation.is_finite()
            }
        }
    }

    /// Whether `p` is in the shape (border included).
    pub fn contains(&self, p: Vec2) -> bool {
        match *self {
            Shape::Circle(c) => point_in_circle(p, c),
            Shape::Box(b) => point_in_box(p, b),
            Shape::Rotated(r) => point_in_rotated_rect(p, r),
        }
    }

    /// The point of the shape (border or inside) closest to `p`: `p` itself when inside.
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        match *self {
            Shape::Circle(c) => {
                let d = p - c.center;
                if d.length_squared() <= c.radius * c.radius {
                    p
                } else {
                    c.center + d.normalize_or_zero() * c.radius
                }
            }
            Shape::Box(b) => closest_point_on_box(b, p),
            Shape::Rotated(r) => r.closest_point(p),
        }
    }

    /// Whether the two shapes touch or overlap.
    pub fn overlaps(&self, other: &Shape) -> bool {
        use Shape::{Box, Circle as C, Rotated};
        match (*self, *other) {
            (C(a), C(b)) => circle_circle(a, b),
            (C(c), Box(b)) | (Box(b), C(c)) => circle_box(c, b),
            (C(c), Rotated(r)) | (Rotated(r), C(c)) => circle_rotated_rect(c, r),
            (Box(a), Box(b)) => (a.center - b.center)
                .abs()
                .cmple(a.half_extents + b.half_extents)
                .all(),
            (Box(b), Rotated(r)) | (Rotated(r), Box(b)) => box_rotated_rect(b, r),
            (Rotated(a), Rotated(b)) => {
                // In `a`'s frame `a` is an axis-aligned box.
                let b_local = RotatedRect {
                    center: a.to_local(b.center),
                    half_extents: b.half_extents,
                    rotation: b.rotation - a.rotation,
                };
                let a_local = BoxShape {
                    center: Vec2::ZERO,
                    half_extents: a.half_extents,
                };
                box_rotated_rect(a_local, b_local)
            }
        }
    }
}

/// Where a segment first meets a box, from [`cast_segment_box`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentHit {
    /// Distance from the segment's start to the entry point, in world units.
    pub distance: f32,
    /// Outward normal of the face entered (zero when the segment starts inside the box).
    pub normal: Vec2,
}

/// The first point where the segment from `start` to `end` meets the box: its distance from
/// `start` and the normal of the face it enters through. A segment that starts inside hits at
/// distance 0 with a zero normal; one that only grazes a face or corner hits it (touching
/// counts).
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_platformer_physics::shapes::{BoxShape, cast_segment_box};
///
/// let wall = BoxShape { center: Vec2::new(10.0, 0.0), half_extents: Vec2::new(1.0, 5.0) };
/// let hit = cast_segment_box(Vec2::ZERO, Vec2::new(20.0, 0.0), wall).unwrap();
/// assert_eq!((hit.distance, hit.normal), (9.0, Vec2::new(-1.0, 0.0)));
/// ```
pub fn cast_segment_box(start: Vec2, end: Vec2, b: BoxShape) -> Option<SegmentHit> {
    let d = end - start;
    let (min, max) = (b.center - b.half_extents, b.center + b.half_extents);
    let (mut t_in, mut t_out) = (0.0f32, 1.0f32);
    let mut normal = Vec2::ZERO;
    for axis in 0..2 {
        let (p, dir, lo, hi) = (start[axis], d[axis], min[axis], max[axis]);
        if dir == 0.0 {
            if p < lo || p > hi {
                return None;
            }
            continue;
        }
        let (mut a, mut b2, mut n) = ((lo - p) / dir, (hi - p) / dir, -1.0);
        if a > b2 {
            core::mem::swap(&mut a, &mut b2);
            n = 1.0;
        }
        if a > t_in {
            t_in = a;
            normal = Vec2::ZERO;
            normal[axis] = n;
        }
        t_out = t_out.min(b2);
        if t_in > t_out {
            return None;
        }
    }
    Some(SegmentHit {
        distance: t_in * d.length(),
        normal,
    })
}

#[cfg(test)]
mod tests {
    use core::f32::consts::FRAC_PI_4;

    use super::*;

    const UNIT: BoxShape = BoxShape {
        center: Vec2::ZERO,
        half_extents: Vec2::ONE,
    };

    fn circle(x: f32, y: f32, r: f32) -> Circle {
        Circle {
            center: Vec2::new(x, y),
            radius: r,
        }
    }

    #[test]
    fn circles_touching_collide_and_apart_do_not() {
        assert!(circle_circle(circle(0.0, 0.0, 1.0), circle(3.0, 4.0, 4.0)));
        assert!(!circle_circle(
            circle(0.0, 0.0, 1.0),
            circle(3.0, 4.0, 3.99)
        ));
    }

    #[test]
    fn circle_box_hand_cases() {
        assert!(circle_box(circle(0.2, 0.1, 0.01), UNIT), "centre inside");
        assert!(
            circle_box(circle(2.0, 0.0, 1.0), UNIT),
            "touching the right face"
        );
        assert!(
            !circle_box(circle(2.0, 2.0, 1.0), UNIT),
            "corner at distance sqrt(2)"
        );
        assert!(circle_box(circle(2.0, 2.0, 1.5), UNIT));
    }

    #[test]
    fn errata_sign_of_the_squared_distance() {
        // Near a corner, dx = dy: the article's dx² - dy² is 0 and says "hit" for any radius.
        let r = RotatedRect {
            center: Vec2::ZERO,
            half_extents: Vec2::ONE,
            rotation: 0.0,
        };
        assert!(!circle_rotated_rect(circle(2.5, 2.5, 1.0), r));
        assert!(!circle_rotated_rect(circle(-11.0, 11.0, 0.5), r));
        // The correct distance is sqrt(1.5² + 1.5²) = 2.12.
        assert!(circle_rotated_rect(circle(2.5, 2.5, 2.13), r));
    }

    #[test]
    fn rotated_rect_hand_cases() {
        // A 2 x 2 square turned 45°: its corners reach sqrt(2) along the axes.
        let r = RotatedRect {
            center: Vec2::new(10.0, 0.0),
            half_extents: Vec2::ONE,
            rotation: FRAC_PI_4,
        };
        assert!(point_in_rotated_rect(Vec2::new(10.0 + 1.4, 0.0), r));
        assert!(
            !point_in_rotated_rect(Vec2::new(10.9, 0.9), r),
            "outside, though inside the unrotated square"
        );
        // Right corner at (10 + sqrt 2, 0): a circle 0.5 beyond it reaches it with radius 0.51.
        assert!(circle_rotated_rect(
            circle(10.0 + 2.0_f32.sqrt() + 0.5, 0.0, 0.51),
            r
        ));
        assert!(!circle_rotated_rect(
            circle(10.0 + 2.0_f32.sqrt() + 0.6, 0.0, 0.5),
            r
        ));
        let closest = r.closest_point(Vec2::new(20.0, 0.0));
        assert!((closest - Vec2::new(10.0 + 2.0_f32.sqrt(), 0.0)).length() < 1e-5);
    }

    #[test]
    fn box_against_rotated_rect_hand_cases() {
        let diamond = RotatedRect {
            center: Vec2::ZERO,
            half_extents: Vec2::ONE,
            rotation: FRAC_PI_4,
        };
        // A box whose corner is near the diamond's flat side: the box axes alone would say
        // "overlap", the diamond's axis separates them.
        let near = BoxShape {
            center: Vec2::new(1.3, 1.3),
            half_extents: Vec2::splat(0.5),
        };
        assert!(!box_rotated_rect(near, diamond));
        // A box reaching 0.01 past the diamond's right corner (sqrt 2, 0).
        let overlapping = BoxShape {
            center: Vec2::new(2.0_f32.sqrt() + 0.49, 0.0),
            half_extents: Vec2::splat(0.5),
        };
        assert!(box_rotated_rect(overlapping, diamond));
    }

    #[test]
    fn points_in_shapes() {
        assert!(point_in_box(Vec2::new(1.0, -1.0), UNIT));
        assert!(!point_in_box(Vec2::new(1.01, 0.0), UNIT));
        assert!(point_in_circle(Vec2::new(3.0, 4.0), circle(0.0, 0.0, 5.0)));
    }

    #[test]
    fn segment_cast_hand_cases() {
        let b = BoxShape {
            center: Vec2::new(0.0, 10.0),
            half_extents: Vec2::splat(2.0),
        };
        let down = cast_segment_box(Vec2::new(1.0, 20.0), Vec2::new(1.0, 0.0), b).unwrap();
        assert_eq!((down.distance, down.normal), (8.0, Vec2::Y));
        let diagonal = cast_segment_box(Vec2::new(-5.0, 5.0), Vec2::new(5.0, 15.0), b).unwrap();
        assert!((diagonal.distance - 3.0 * 2.0_f32.sqrt()).abs() < 1e-5);
        assert_eq!(
            diagonal.normal,
            Vec2::NEG_X,
            "enters at the corner (-2, 8): ties go to x"
        );
        assert!(cast_segment_box(Vec2::new(5.0, 0.0), Vec2::new(5.0, 20.0), b).is_none());
        assert!(
            cast_segment_box(Vec2::new(0.0, 20.0), Vec2::new(0.0, 13.0), b).is_none(),
            "stops short"
        );
        let inside = cast_segment_box(Vec2::new(0.0, 10.0), Vec2::new(9.0, 10.0), b).unwrap();
        assert_eq!((inside.distance, inside.normal), (0.0, Vec2::ZERO));
    }

    #[test]
    fn shape_enum_dispatches_every_pair() {
        let c = Shape::Circle(circle(0.0, 0.0, 1.0));
        let b = Shape::Box(BoxShape {
            center: Vec2::new(2.5, 0.0),
            half_extents: Vec2::splat(1.0),
        });
        let r = Shape::Rotated(RotatedRect {
            center: Vec2::new(0.0, 3.0),
            half_extents: Vec2::new(2.0, 0.5),
            rotation: FRAC_PI_4,
        });
        // Circle and box are 0.5 apart; the diamond-ish rect reaches down to y = 3 - 1.77.
        assert!(!c.overlaps(&b) && !b.overlaps(&c));
        assert!(
            c.overlaps(&Shape::Circle(circle(1.5, 0.0, 0.5))),
            "touching"
        );
        assert!(b.overlaps(&Shape::Box(BoxShape {
            center: Vec2::new(4.5, 2.0),
            half_extents: Vec2::ONE
        })));
        // Two rectangles crossed like an X overlap; moved apart along x they do not.
        let cross = Shape::Rotated(RotatedRect {
            rotation: -FRAC_PI_4,
            ..match r {
                Shape::Rotated(r) => r,
                _ => unreachable!(),
            }
        });
        assert!(r.overlaps(&cross));
        let far = Shape::Rotated(RotatedRect {
            center: Vec2::new(4.0, 3.0),
            half_extents: Vec2::new(2.0, 0.5),
            rotation: -FRAC_PI_4,
        });
        assert!(!r.overlaps(&far) && !far.overlaps(&r));
        // Bounds of the 45° rectangle: (2 + 0.5) / sqrt 2 each way.
        let (lo, hi) = r.bounds();
        let reach = 2.5 / 2.0_f32.sqrt();
        assert!((hi - lo - Vec2::splat(2.0 * reach)).abs().max_element() < 1e-5);
        assert_eq!(c.closest_point(Vec2::new(3.0, 4.0)), Vec2::new(0.6, 0.8));
        assert_eq!(c.closest_point(Vec2::new(0.3, 0.0)), Vec2::new(0.3, 0.0));
        assert!(!Shape::Circle(circle(0.0, f32::NAN, 1.0)).is_valid());
        assert!(!Shape::Circle(circle(0.0, 0.0, -1.0)).is_valid());
    }

    proptest::proptest! {
        #[test]
        fn circle_rotated_rect_agrees_with_dense_sampling(
            cx in -6.0f32..6.0, cy in -6.0f32..6.0, radius in 0.1f32..3.0,
            hx in 0.2f32..3.0, hy in 0.2f32..3.0, rotation in -3.2f32..3.2,
        ) {
            let r = RotatedRect { center: Vec2::new(0.5, -0.25), half_extents: Vec2::new(hx, hy), rotation };
            let c = circle(cx, cy, radius);
            // Sample the rectangle (inside and border) on a fine grid in its own frame.
            let n = 80;
            let step = Vec2::new(2.0 * hx, 2.0 * hy) / n as f32;
            let mut nearest = f32::INFINITY;
            for i in 0..=n {
                for j in 0..=n {
                    let local = -r.half_extents + Vec2::new(i as f32, j as f32) * step;
                    nearest = nearest.min(r.to_world(local).distance(c.center));
                }
            }
            // The true distance lies in [nearest - half a cell diagonal, nearest].
            let slack = step.length() * 0.5 + 1e-4;
            if nearest < radius - 1e-4 {
                proptest::prop_assert!(circle_rotated_rect(c, r));
            } else if nearest - slack > radius + 1e-4 {
                proptest::prop_assert!(!circle_rotated_rect(c, r));
            }
        }
    }
}
