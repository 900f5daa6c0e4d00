//! Tests of `geometry`.

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
