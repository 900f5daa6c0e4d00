//! No ghost collisions: a fast body whose path passes a tile corner one unit away keeps its
//! velocity exactly (article 001's speculative contacts would hit the face's infinite plane).

use bevy::prelude::*;

use crate::common::*;

const HALF: f32 = 6.0;
/// 50 tiles per step on each axis.
const SPEED: f32 = 50.0 * 16.0 / DT;

/// One solid tile at (50, 50) in a 100 x 100 map: world rect [800, 816]^2.
fn lone_tile() -> TileMap {
    let mut map = empty_map(100, 100);
    map.set(50, 50, TileKind::Solid);
    map
}

fn assert_passes(start: Vec2, velocity: Vec2, what: &str) {
    let mut app = app_without_gravity(lone_tile());
    let body = spawn(&mut app, start, Vec2::splat(HALF), velocity);
    step(&mut app, 1);
    assert_eq!(vel(&app, body), velocity, "{what}: velocity changed");
    let expected = start + velocity * DT;
    assert!(
        pos(&app, body).distance(expected) < 1e-3,
        "{what}: ended at {}, expected {expected}",
        pos(&app, body)
    );
    assert!(
        flags(&app, body).bits() & 0xF == 0,
        "{what}: reported a tile contact"
    );
}

#[test]
fn no_ghost_collision_passing_any_tile_corner_diagonally() {
    let center = Vec2::splat(808.0);
    for sx in [-1.0f32, 1.0] {
        for sy in [-1.0f32, 1.0] {
            let corner = center + Vec2::new(sx, sy) * 8.0;
            // At the closest moment the box is flush with the corner on one axis and one unit
            // clear of it on the other, moving diagonally past it.
            for gap_on_y in [true, false] {
                let gap = if gap_on_y {
                    Vec2::new(0.0, 1.0)
                } else {
                    Vec2::new(1.0, 0.0)
                };
                let closest = corner + Vec2::new(sx, sy) * (Vec2::splat(HALF) + gap);
                for forward in [1.0f32, -1.0] {
                    let dir = Vec2::new(sx, -sy) * forward;
                    let velocity = dir * SPEED;
                    let start = closest - velocity * DT * 0.5;
                    assert_passes(
                        start,
                        velocity,
                        &format!("corner {corner} dir {dir} gap {gap}"),
                    );
                }
            }
        }
    }
}

#[test]
fn no_ghost_collision_passing_a_face_one_unit_away() {
    // Horizontal pass one unit above the tile, and one unit below it.
    for y in [816.0 + HALF + 1.0, 800.0 - HALF - 1.0] {
        assert_passes(
            Vec2::new(400.0, y),
            Vec2::new(SPEED, 0.0),
            &format!("horizontal at y {y}"),
        );
        assert_passes(
            Vec2::new(1200.0, y),
            Vec2::new(-SPEED, 0.0),
            &format!("horizontal at y {y}"),
        );
    }
    // Vertical pass one unit beside it.
    for x in [816.0 + HALF + 1.0, 800.0 - HALF - 1.0] {
        assert_passes(
            Vec2::new(x, 1200.0),
            Vec2::new(0.0, -SPEED),
            &format!("vertical at x {x}"),
        );
        assert_passes(
            Vec2::new(x, 400.0),
            Vec2::new(0.0, SPEED),
            &format!("vertical at x {x}"),
        );
    }
}

#[test]
fn no_ghost_collision_falling_past_a_ledge_with_gravity() {
    // Falling at full speed one unit beside a ledge: the ledge's top plane extends under the
    // body, but the body never reaches the ledge, so it must keep falling.
    let mut app = app(lone_tile());
    let start = Vec2::new(816.0 + HALF + 1.0, 900.0);
    let body = spawn(&mut app, start, Vec2::splat(HALF), Vec2::new(0.0, -1200.0));
    step(&mut app, 10);
    // Ten steps at the 1200 units/s fall cap: 200 units, unhindered.
    assert!(
        (pos(&app, body).y - 700.0).abs() < 1e-3,
        "fell past the ledge: {}",
        pos(&app, body)
    );
    assert_eq!(pos(&app, body).x, start.x);
}
