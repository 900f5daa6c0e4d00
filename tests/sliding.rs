//! Sliding (article 004): diagonal motion into a wall keeps the free component; into a corner
//! it stops both. Top-down, no gravity.

use bevy::prelude::*;

use crate::common::*;

/// A closed room of 10 x 10 tiles (walls one tile thick).
fn room() -> TileMap {
    let mut map = empty_map(10, 10);
    map.fill(IVec2::new(0, 0), IVec2::new(9, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 9), IVec2::new(9, 9), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 9), TileKind::Solid);
    map.fill(IVec2::new(9, 0), IVec2::new(9, 9), TileKind::Solid);
    map
}

const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn diagonal_motion_into_a_wall_keeps_the_free_component() {
    let mut app = app_without_gravity(room());
    let body = spawn(
        &mut app,
        Vec2::new(120.0, 40.0),
        HALF,
        Vec2::new(120.0, 30.0),
    );
    step(&mut app, 20);
    let wall_face = 9.0 * 16.0 - HALF.x;
    assert_eq!(pos(&app, body).x, wall_face);
    assert_eq!(vel(&app, body), Vec2::new(0.0, 30.0));
    // Keeps sliding along the wall at the free speed while pushing into it.
    for _ in 0..20 {
        let y = pos(&app, body).y;
        set_vel(&mut app, body, Vec2::new(120.0, 30.0));
        step(&mut app, 1);
        assert_eq!(pos(&app, body).x, wall_face);
        assert!((pos(&app, body).y - y - 0.5).abs() < 1e-4);
        assert!(flags(&app, body).pushes_tile(Side::Right));
    }
}

#[test]
fn diagonal_motion_into_a_corner_stops_both_components() {
    for dir in [
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
        Vec2::new(1.0, -1.0),
        Vec2::new(-1.0, -1.0),
    ] {
        let mut app = app_without_gravity(room());
        let body = spawn(
            &mut app,
            Vec2::new(70.0, 90.0),
            HALF,
            dir * Vec2::new(300.0, 200.0),
        );
        step(&mut app, 60);
        let corner = Vec2::new(80.0, 80.0) + dir * (Vec2::splat(64.0) - HALF);
        assert_eq!(pos(&app, body), corner, "dir {dir}");
        assert_eq!(vel(&app, body), Vec2::ZERO, "dir {dir}");
        let f = flags(&app, body);
        let (sx, sy) = (
            if dir.x > 0.0 { Side::Right } else { Side::Left },
            if dir.y > 0.0 { Side::Top } else { Side::Bottom },
        );
        assert!(f.pushes_tile(sx) && f.pushes_tile(sy), "dir {dir}: {f:?}");
    }
}

#[test]
fn a_fast_body_reaches_the_wall_exactly_instead_of_floating_short() {
    // Article 004's "float" problem: 3 units from the wall at 5 units a step.
    let mut app = app_without_gravity(room());
    let face = 9.0 * 16.0 - HALF.x;
    let body = spawn(
        &mut app,
        Vec2::new(face - 3.0, 80.0),
        HALF,
        Vec2::new(300.0, 0.0),
    );
    step(&mut app, 1);
    assert_eq!(pos(&app, body).x, face);
}
