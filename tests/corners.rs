//! Non-square boxes at tile corners (article 001's comment thread): a 4 x 20 or 20 x 4 box
//! that meets a corner resolves on the axis it actually arrived on, and never pops.

use bevy::prelude::*;

use crate::common::*;

const SHAPES: [Vec2; 2] = [Vec2::new(2.0, 10.0), Vec2::new(10.0, 2.0)];
/// 5 units a step.
const SPEED: f32 = 300.0;

/// One solid tile at (10, 10) in a 30 x 30 map: world rect [160, 176]^2.
fn lone_tile() -> TileMap {
    let mut map = empty_map(30, 30);
    map.set(10, 10, TileKind::Solid);
    map
}

const TILE_MIN: f32 = 160.0;
const TILE_MAX: f32 = 176.0;

/// The box overlaps the tile by one unit across the corner at (sx, sy) and moves toward the
/// tile along `axis`, from 3 units away; it must stop flush on that axis and not move on the
/// other.
fn hit_corner(half: Vec2, sx: f32, sy: f32, vertical: bool) {
    let corner = Vec2::new(
        if sx > 0.0 { TILE_MAX } else { TILE_MIN },
        if sy > 0.0 { TILE_MAX } else { TILE_MIN },
    );
    // Across the arrival axis the box reaches one unit past the corner into the tile's span.
    let start = if vertical {
        Vec2::new(
            corner.x + sx * (half.x - 1.0),
            corner.y + sy * (half.y + 3.0),
        )
    } else {
        Vec2::new(
            corner.x + sx * (half.x + 3.0),
            corner.y + sy * (half.y - 1.0),
        )
    };
    let velocity = if vertical {
        Vec2::new(0.0, -sy * SPEED)
    } else {
        Vec2::new(-sx * SPEED, 0.0)
    };
    let mut app = app_without_gravity(lone_tile());
    let body = spawn_frictionless(&mut app, start, half, velocity);
    step(&mut app, 1);
    let (p, v) = (pos(&app, body), vel(&app, body));
    let what = format!("half {half} corner ({sx}, {sy}) vertical {vertical}");
    if vertical {
        assert_eq!(p.y, corner.y + sy * half.y, "{what}: flush on y");
        assert_eq!(p.x, start.x, "{what}: popped sideways");
        assert_eq!(v, Vec2::ZERO, "{what}");
    } else {
        assert_eq!(p.x, corner.x + sx * half.x, "{what}: flush on x");
        assert_eq!(p.y, start.y, "{what}: popped vertically");
        assert_eq!(v, Vec2::ZERO, "{what}");
    }
    assert!(
        p.distance(start) <= 3.0 + 1e-4,
        "{what}: moved {} for a 3-unit gap",
        p.distance(start)
    );
}

#[test]
fn non_square_boxes_hitting_a_corner_vertically_resolve_on_y() {
    for half in SHAPES {
        for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            hit_corner(half, sx, sy, true);
        }
    }
}

#[test]
fn non_square_boxes_hitting_a_corner_horizontally_resolve_on_x() {
    for half in SHAPES {
        for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            hit_corner(half, sx, sy, false);
        }
    }
}

#[test]
fn non_square_boxes_sliding_along_a_face_past_its_corner_do_not_pop() {
    // Along each face, in both directions, until well past the corner.
    for half in SHAPES {
        for (normal, tangent) in [
            (Vec2::Y, Vec2::X),
            (Vec2::Y, -Vec2::X),
            (-Vec2::Y, Vec2::X),
            (-Vec2::Y, -Vec2::X),
            (Vec2::X, Vec2::Y),
            (Vec2::X, -Vec2::Y),
            (-Vec2::X, Vec2::Y),
            (-Vec2::X, -Vec2::Y),
        ] {
            let center = Vec2::splat(168.0);
            // Flush against the face, starting behind the tile's middle along the tangent.
            let along_face = normal * (8.0 + (normal.abs() * half).length());
            let start = center + along_face - tangent * 8.0;
            let velocity = tangent * SPEED;
            let mut app = app_without_gravity(lone_tile());
            let body = spawn_frictionless(&mut app, start, half, velocity);
            for i in 1..=10 {
                step(&mut app, 1);
                let p = pos(&app, body);
                assert_eq!(
                    vel(&app, body),
                    velocity,
                    "half {half} normal {normal} step {i}"
                );
                let off_face = (p - start).dot(normal);
                assert_eq!(
                    off_face, 0.0,
                    "half {half} normal {normal} step {i}: popped to {p}"
                );
            }
        }
    }
}

#[test]
fn non_square_box_falling_onto_a_corner_with_drift_lands() {
    // A 20 x 4 box falling fast with sideways drift over the top-right corner, overlapping the
    // tile's span by one unit when it arrives: it lands instead of being pushed off sideways.
    let half = Vec2::new(10.0, 2.0);
    let mut app = app_without_gravity(lone_tile());
    let start = Vec2::new(TILE_MAX + half.x - 3.0, TILE_MAX + half.y + 8.0);
    let body = spawn_frictionless(&mut app, start, half, Vec2::new(60.0, -600.0));
    step(&mut app, 1);
    let p = pos(&app, body);
    assert_eq!(p.y, TILE_MAX + half.y, "landed flush");
    assert_eq!(vel(&app, body), Vec2::new(60.0, 0.0));
    assert!(
        (p.x - (start.x + 1.0)).abs() < 1e-4,
        "kept its drift, no pop: {p}"
    );
}
