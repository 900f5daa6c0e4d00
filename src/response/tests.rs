//! Tests of `response`.

use super::*;

const H: Vec2 = Vec2::splat(6.0);

/// Owner at `pos` (from `old`), other at `opos` (from `oold`), both 12 x 12.
fn contact(old: Vec2, pos: Vec2, oold: Vec2, opos: Vec2) -> CollisionData {
    CollisionData {
        other: Entity::PLACEHOLDER,
        overlap: crate::geometry::signed_overlap(pos, H, opos, H).expect("in contact"),
        velocity: (pos - old) * 60.0,
        other_velocity: (opos - oold) * 60.0,
        old_position: old,
        other_old_position: oold,
        position: pos,
        other_position: opos,
        half_extents: H,
        other_half_extents: H,
        other_kinematic: false,
        blocked: 0,
        other_blocked: 0,
    }
}

#[test]
fn touching_sets_flags_and_clamps_velocity_only() {
    let c = contact(
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::new(12.0, 3.0),
        Vec2::new(12.0, 3.0),
    );
    let r = respond(Vec2::new(50.0, 7.0), [c], 1e-3);
    assert_eq!(r.offset, Vec2::ZERO);
    assert_eq!(r.velocity, Vec2::new(0.0, 7.0));
    assert_eq!(r.sides, side_bit(Side::Right));
}

#[test]
fn contacts_can_be_given_as_a_slice_an_array_or_an_iterator() {
    let c = contact(
        Vec2::new(-3.0, 0.0),
        Vec2::ZERO,
        Vec2::new(9.0, 1.0),
        Vec2::new(8.0, 1.0),
    );
    let v = Vec2::new(180.0, 0.0);
    let from_array = respond(v, [c, c], 1e-3);
    let list = vec![c, c];
    assert_eq!(respond(v, &list, 1e-3), from_array, "a slice");
    assert_eq!(respond(v, list.iter(), 1e-3), from_array, "borrowed");
    assert_eq!(respond(v, list.into_iter(), 1e-3), from_array, "owned");
    assert_ne!(
        from_array,
        respond(v, [c], 1e-3),
        "the second contact counts"
    );
}

#[test]
fn horizontal_bump_resolves_on_x_by_speed_ratio() {
    // Owner moved 3 right, other moved 1 left; they now overlap by 4 on x.
    let c = contact(
        Vec2::new(-3.0, 0.0),
        Vec2::ZERO,
        Vec2::new(9.0, 1.0),
        Vec2::new(8.0, 1.0),
    );
    let r = respond(Vec2::new(180.0, 0.0), [c], 1e-3);
    assert_eq!(r.offset, Vec2::new(-3.0, 0.0), "3/4 of the 4-unit overlap");
    assert_eq!(r.sides, side_bit(Side::Right));
    assert_eq!(r.velocity.x, 0.0);
}

#[test]
fn vertical_bump_resolves_on_y_even_when_x_overlap_is_smaller() {
    // Falling onto the other's corner: overlapped on x before, not on y.
    let c = contact(
        Vec2::new(10.0, 14.0),
        Vec2::new(10.0, 9.0),
        Vec2::ZERO,
        Vec2::ZERO,
    );
    assert!(c.overlap.x.abs() < c.overlap.y.abs());
    let r = respond(Vec2::new(0.0, -300.0), [c], 1e-3);
    assert_eq!(r.offset, Vec2::new(0.0, 3.0));
    assert_eq!(r.sides, side_bit(Side::Bottom));
    assert_eq!(r.ground.map(|(_, v)| v), Some(Vec2::ZERO));
}

#[test]
fn errata_axis_condition_diagonal_bump_takes_the_smaller_overlap() {
    // Apart on both axes last step, overlapping on both now: diagonal.
    let c = contact(
        Vec2::new(-14.0, 14.0),
        Vec2::new(-10.0, 9.0),
        Vec2::ZERO,
        Vec2::ZERO,
    );
    assert_eq!(c.overlap, Vec2::new(-2.0, 3.0));
    let r = respond(Vec2::ZERO, [c], 1e-3);
    assert_eq!(r.offset, Vec2::new(-2.0, 0.0), "x overlap is the smaller");
    // The first snippet of article 003 (`!lastX && lastY` twice) would not resolve this
    // on x; the final condition does.
}

#[test]
fn still_overlapping_bodies_split_half_each_along_the_smaller_overlap() {
    let c = contact(
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::new(10.0, 0.0),
        Vec2::new(10.0, 0.0),
    );
    let r = respond(Vec2::ZERO, [c], 1e-3);
    assert_eq!(r.offset, Vec2::new(-1.0, 0.0));
}

#[test]
fn kinematic_other_takes_none_of_the_overlap() {
    let mut c = contact(
        Vec2::new(0.0, 10.0),
        Vec2::new(0.0, 10.0),
        Vec2::new(0.0, -4.0),
        Vec2::ZERO,
    );
    c.other_kinematic = true;
    let r = respond(Vec2::ZERO, [c], 1e-3);
    assert_eq!(
        r.offset,
        Vec2::new(0.0, 2.0),
        "all of it, though only the platform moved"
    );
}

#[test]
fn a_body_pinned_against_a_wall_gives_way_to_nobody() {
    // Still bodies overlapping by 2 on x; the other is against a wall on its right.
    let mut c = contact(
        Vec2::ZERO,
        Vec2::ZERO,
        Vec2::new(10.0, 0.0),
        Vec2::new(10.0, 0.0),
    );
    c.other_blocked = side_bit(Side::Right);
    assert_eq!(
        respond(Vec2::ZERO, [c], 1e-3).offset,
        Vec2::new(-2.0, 0.0),
        "we take it all"
    );
    // Seen from the pinned body: it moves right into the wall, so it takes none.
    let mut d = contact(
        Vec2::new(10.0, 0.0),
        Vec2::new(10.0, 0.0),
        Vec2::ZERO,
        Vec2::ZERO,
    );
    d.blocked = side_bit(Side::Right);
    assert_eq!(respond(Vec2::ZERO, [d], 1e-3).offset, Vec2::ZERO);
    // Blocked on the far side only: no effect, half each.
    let mut e = c;
    e.other_blocked = side_bit(Side::Left);
    assert_eq!(respond(Vec2::ZERO, [e], 1e-3).offset, Vec2::new(-1.0, 0.0));
}

#[test]
fn a_contact_resolved_by_an_earlier_one_counts_as_touching_in_any_order() {
    // Moving right at 200 into a still kinematic platform (owner 12 x 12, platform
    // 96 x 8), with a still 10 x 10 body resting on the platform's top in the way too.
    let owner_old = Vec2::new(266.0, 100.0);
    let owner = Vec2::new(269.333, 100.0);
    let with = |other: Vec2, half: Vec2, kinematic: bool| CollisionData {
        other: Entity::PLACEHOLDER,
        overlap: crate::geometry::signed_overlap(owner, H, other, half).unwrap(),
        velocity: Vec2::new(200.0, 0.0),
        other_velocity: Vec2::ZERO,
        old_position: owner_old,
        other_old_position: other,
        position: owner,
        other_position: other,
        half_extents: H,
        other_half_extents: half,
        other_kinematic: kinematic,
        blocked: 0,
        other_blocked: 0,
    };
    let platform = with(Vec2::new(320.0, 100.0), Vec2::new(48.0, 4.0), true);
    let resting = with(Vec2::new(280.0, 109.0), Vec2::splat(5.0), false);
    assert!((platform.overlap.x + 3.333).abs() < 1e-3);
    assert!(
        (resting.overlap - Vec2::new(-0.333, -2.0))
            .abs()
            .max_element()
            < 1e-3
    );
    let v = Vec2::new(200.0, 0.0);
    let first = respond(v, [platform, resting], 1e-3);
    let second = respond(v, [resting, platform], 1e-3);
    assert_eq!(first, second);
    assert!((first.offset - Vec2::new(-3.333, 0.0)).abs().max_element() < 1e-3);
    assert_eq!(
        first.sides,
        side_bit(Side::Right),
        "pushed from one side only"
    );
    assert_eq!(first.velocity, Vec2::ZERO);
}

#[test]
fn landing_on_two_bodies_at_once_corrects_once() {
    let a = contact(
        Vec2::new(6.0, 15.0),
        Vec2::new(6.0, 10.0),
        Vec2::ZERO,
        Vec2::ZERO,
    );
    let b = contact(
        Vec2::new(6.0, 15.0),
        Vec2::new(6.0, 10.0),
        Vec2::new(12.0, 0.0),
        Vec2::new(12.0, 0.0),
    );
    let r = respond(Vec2::new(0.0, -300.0), [a, b], 1e-3);
    assert_eq!(r.offset, Vec2::new(0.0, 2.0));
    assert_eq!(r.sides, side_bit(Side::Bottom));
}
