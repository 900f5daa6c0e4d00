//! Ladders: overlap is reported, climbing turns gravity off, a ladder's top tile holds a body
//! like a one-way platform, and a climbing body passes its top both ways.

use bevy::prelude::*;

use crate::common::*;

/// A ladder column at x = 3 from row 1 to row 4 (its top face at y = 80); floor at row 0.
fn ladder_map() -> TileMap {
    ascii(
        ".......\n\
         .......\n\
         .......\n\
         ...H...\n\
         ...H...\n\
         ...H...\n\
         ...H...\n\
         #######",
    )
}

const LADDER_X: f32 = 56.0;
const LADDER_TOP: f32 = 80.0;
const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn body_can_tell_it_overlaps_a_ladder() {
    let mut app = app(ladder_map());
    let on = spawn(&mut app, Vec2::new(LADDER_X, 40.0), HALF, Vec2::ZERO);
    let off = spawn(&mut app, Vec2::new(LADDER_X + 40.0, 40.0), HALF, Vec2::ZERO);
    step(&mut app, 1);
    assert!(state(&app, on).overlaps_ladder);
    assert!(!state(&app, off).overlaps_ladder);
}

#[test]
fn climbing_on_a_ladder_turns_gravity_off() {
    let mut app = app(ladder_map());
    let body = spawn(&mut app, Vec2::new(LADDER_X, 40.0), HALF, Vec2::ZERO);
    switches(&mut app, body).climbing = true;
    step(&mut app, 60);
    assert_eq!(
        pos(&app, body),
        Vec2::new(LADDER_X, 40.0),
        "hangs on the ladder from the first step"
    );
    assert_eq!(vel(&app, body), Vec2::ZERO);
    // Gravity is off, not the velocity: a climbing speed is kept exactly.
    set_vel(&mut app, body, Vec2::new(0.0, -30.0));
    step(&mut app, 10);
    assert_eq!(vel(&app, body), Vec2::new(0.0, -30.0));
    assert!((pos(&app, body).y - 35.0).abs() < 1e-4);
    // Letting go: it falls to the floor.
    switches(&mut app, body).climbing = false;
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 16.0 + HALF.y);
}

#[test]
fn climbing_switch_off_a_ladder_does_not_turn_gravity_off() {
    let mut app = app(ladder_map());
    let body = spawn(&mut app, Vec2::new(LADDER_X + 48.0, 60.0), HALF, Vec2::ZERO);
    switches(&mut app, body).climbing = true;
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 16.0 + HALF.y);
}

#[test]
fn ladder_top_holds_a_body_like_a_one_way_platform() {
    let mut app = app(ladder_map());
    let body = spawn(&mut app, Vec2::new(LADDER_X, 120.0), HALF, Vec2::ZERO);
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, LADDER_TOP + HALF.y);
    assert_eq!(state(&app, body).standing_on, Some(TileKind::Ladder));
    assert!(flags(&app, body).on_ground());
    // Lower ladder tiles are not platforms: a body inside the ladder falls through them.
    let inside = spawn(&mut app, Vec2::new(LADDER_X, 60.0), HALF, Vec2::ZERO);
    step(&mut app, 60);
    assert_eq!(pos(&app, inside).y, 16.0 + HALF.y);
}

#[test]
fn climbing_up_passes_the_ladder_top_and_climbing_down_passes_it_again() {
    let mut app = app(ladder_map());
    let body = spawn(&mut app, Vec2::new(LADDER_X, 40.0), HALF, Vec2::ZERO);
    switches(&mut app, body).climbing = true;
    step(&mut app, 1);
    for _ in 0..60 {
        set_vel(&mut app, body, Vec2::new(0.0, 60.0));
        step(&mut app, 1);
        if !state(&app, body).overlaps_ladder {
            break;
        }
    }
    assert!(
        pos(&app, body).y - HALF.y >= LADDER_TOP - 1e-3,
        "climbed out at the top"
    );
    // Off the ladder the climb ends; the body settles on the ladder top.
    switches(&mut app, body).climbing = false;
    step(&mut app, 30);
    assert_eq!(pos(&app, body).y, LADDER_TOP + HALF.y);
    // Climbing down from the top: the top does not hold a climbing body.
    switches(&mut app, body).climbing = true;
    for _ in 0..30 {
        set_vel(&mut app, body, Vec2::new(0.0, -60.0));
        step(&mut app, 1);
    }
    assert!(
        pos(&app, body).y < LADDER_TOP + HALF.y - 20.0,
        "climbed down: {}",
        pos(&app, body)
    );
    assert!(state(&app, body).overlaps_ladder);
}
