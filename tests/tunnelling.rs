//! No tunnelling: a 12 x 12 body at 50 tiles per step stops at the face of a one-tile wall.

use bevy::prelude::*;

use crate::common::*;

const N: i32 = 140;
const LINE: i32 = 70;
/// 50 tiles of 16 units per 1/60 s step.
const SPEED: f32 = 50.0 * 16.0 / DT;
const HALF: f32 = 6.0;

/// A map with one line of solid tiles, one tile thick: a wall (column) or a floor (row).
fn thin_line(vertical: bool) -> TileMap {
    let mut map = empty_map(N as u32, N as u32);
    let (min, max) = if vertical {
        (IVec2::new(LINE, 0), IVec2::new(LINE, N - 1))
    } else {
        (IVec2::new(0, LINE), IVec2::new(N - 1, LINE))
    };
    map.fill(min, max, TileKind::Solid);
    map
}

/// Sends the body along `dir` (each component -1, 0 or 1; the first non-zero one picks the
/// wall) from `tiles_away` tiles before the line, runs `steps` steps, and checks it rests
/// against the near face with the blocked velocity removed and the free one kept.
fn approach(dir: IVec2, wall_is_vertical: bool, tiles_away: i32, steps: usize) {
    let map = thin_line(wall_is_vertical);
    let (along, across) = if wall_is_vertical {
        (dir.x, dir.y)
    } else {
        (dir.y, dir.x)
    };
    let start_along = LINE - along * tiles_away;
    let start_across = 20 + 50 * i32::from(across < 0);
    let start_tile = if wall_is_vertical {
        IVec2::new(start_along, start_across)
    } else {
        IVec2::new(start_across, start_along)
    };
    let start = start_tile.as_vec2() * 16.0 + 8.0;
    let velocity = dir.as_vec2() * SPEED;
    let mut app = app_without_gravity(map);
    let body = spawn_frictionless(&mut app, start, Vec2::splat(HALF), velocity);
    step(&mut app, steps);

    let face = if along > 0 {
        LINE as f32 * 16.0 - HALF
    } else {
        (LINE + 1) as f32 * 16.0 + HALF
    };
    let (p, v) = (pos(&app, body), vel(&app, body));
    let (p_along, p_across, v_along, v_across) = if wall_is_vertical {
        (p.x, p.y, v.x, v.y)
    } else {
        (p.y, p.x, v.y, v.x)
    };
    assert_eq!(p_along, face, "dir {dir} stopped at the face ({p})");
    assert_eq!(v_along, 0.0, "dir {dir}: normal velocity removed");
    let v0_across = if wall_is_vertical {
        velocity.y
    } else {
        velocity.x
    };
    assert_eq!(v_across, v0_across, "dir {dir}: free velocity kept");
    let p0_across = if wall_is_vertical { start.y } else { start.x };
    let expected_across = p0_across + v0_across * DT * steps as f32;
    assert!(
        (p_across - expected_across).abs() < 1e-2,
        "dir {dir}: slid to {p_across}, expected {expected_across}"
    );
}

#[test]
fn no_tunnelling_moving_right_into_a_wall() {
    approach(IVec2::new(1, 0), true, 10, 1);
    approach(IVec2::new(1, 0), true, 65, 3);
}

#[test]
fn no_tunnelling_moving_left_into_a_wall() {
    approach(IVec2::new(-1, 0), true, 10, 1);
    approach(IVec2::new(-1, 0), true, 65, 3);
}

#[test]
fn no_tunnelling_falling_onto_a_floor() {
    approach(IVec2::new(0, -1), false, 10, 1);
    approach(IVec2::new(0, -1), false, 65, 3);
}

#[test]
fn no_tunnelling_rising_into_a_ceiling() {
    approach(IVec2::new(0, 1), false, 10, 1);
    approach(IVec2::new(0, 1), false, 65, 3);
}

#[test]
fn no_tunnelling_diagonally_into_a_wall() {
    for dir in [
        IVec2::new(1, 1),
        IVec2::new(1, -1),
        IVec2::new(-1, 1),
        IVec2::new(-1, -1),
    ] {
        approach(dir, true, 10, 1);
        approach(dir, true, 45, 2);
    }
}

#[test]
fn no_tunnelling_diagonally_onto_a_floor_or_ceiling() {
    for dir in [
        IVec2::new(1, 1),
        IVec2::new(1, -1),
        IVec2::new(-1, 1),
        IVec2::new(-1, -1),
    ] {
        approach(dir, false, 10, 1);
        approach(dir, false, 45, 2);
    }
}
