//! A body that does not fit where it is among the tiles (taller than the gap between a floor
//! and a ceiling, or under a ceiling too low to be lifted onto a one-way top) is held where it
//! is: never moved through the floor, reported once as `Squished`.

use bevy::prelude::*;

use crate::common::*;

/// Runs `steps` steps and returns the body's lowest centre over them, with the warnings and
/// the `Squished` messages written.
fn run(app: &mut App, body: Entity, steps: usize) -> (f32, usize, Vec<Squished>) {
    let (lowest, warnings) = count_warnings(|| {
        (0..steps)
            .map(|_| {
                step(app, 1);
                pos(app, body).y
            })
            .fold(f32::INFINITY, f32::min)
    });
    (lowest, warnings, drain::<Squished>(app))
}

#[test]
fn a_body_taller_than_the_gap_between_floor_and_ceiling_stays_and_is_squished_once() {
    // Floor top at y = 16, ceiling bottom at 32; the body is 16.002 tall, feet 0.002 into the
    // floor.
    let mut app = app(ascii("########\n........\n########"));
    let start = Vec2::new(48.0, 16.0 - 0.002 + 8.001);
    let body = spawn(&mut app, start, Vec2::new(6.0, 8.001), Vec2::ZERO);
    let (lowest, warnings, squished) = run(&mut app, body, 60);
    assert_eq!(lowest, start.y, "never sinks");
    assert_eq!(pos(&app, body), start);
    assert_eq!(vel(&app, body).y, 0.0, "no speed into the floor");
    assert!(flags(&app, body).on_ground());
    assert_eq!(warnings, 1, "one warning for the episode");
    assert_eq!(
        squished,
        [Squished {
            entity: body,
            vertically: true,
            horizontally: false,
            center: start,
            pressers: [None, None, Some(Presser::Tile), Some(Presser::Tile)],
        }]
    );
}

#[test]
fn a_body_under_a_ceiling_too_low_for_a_one_way_top_stands_on_it_instead_of_sinking() {
    // One-way top at y = 48, ceiling bottom at 64; the body is 16.02 tall, feet 0.02 under the
    // one-way top: lifting it onto the top would put its head into the ceiling.
    let mut app = app(ascii("######\n......\n------\n......\n######"));
    let start = Vec2::new(40.0, 55.99);
    let body = spawn(&mut app, start, Vec2::new(6.0, 8.01), Vec2::ZERO);
    let (lowest, warnings, squished) = run(&mut app, body, 60);
    assert_eq!(lowest, start.y, "never sinks through the platform");
    assert_eq!(pos(&app, body), start);
    assert!(flags(&app, body).on_ground());
    assert_eq!(state(&app, body).standing_on, Some(TileKind::OneWay));
    assert_eq!(warnings, 0, "not buried in solid tiles");
    assert_eq!(squished.len(), 1, "{squished:?}");
    assert!(squished[0].vertically && squished[0].entity == body);
    // The ceiling goes: the body is put on the platform and fits again; squished again only
    // in a new episode.
    app.world_mut().resource_mut::<TileMap>().fill(
        IVec2::new(0, 4),
        IVec2::new(5, 4),
        TileKind::Empty,
    );
    let (_, _, squished) = run(&mut app, body, 10);
    assert!(squished.is_empty());
    assert_eq!(pos(&app, body).y, 48.0 + 8.01);
    assert!(flags(&app, body).on_ground());
}

#[test]
fn a_body_squeezed_between_walls_keeps_falling_between_them_but_not_into_them() {
    // A shaft 16 wide; the body is 16.004 wide, 0.002 into each wall, falling onto a floor.
    let mut app = app(ascii("#.#\n#.#\n#.#\n#.#\n###"));
    let start = Vec2::new(24.0, 56.0);
    let body = spawn(&mut app, start, Vec2::new(8.002, 6.0), Vec2::new(90.0, 0.0));
    let (_, _, squished) = run(&mut app, body, 60);
    assert_eq!(squished.len(), 1);
    assert!(squished[0].horizontally && !squished[0].vertically);
    let p = pos(&app, body);
    assert_eq!(p.x, start.x, "no speed into either wall");
    assert_eq!(p.y, 16.0 + 6.0, "fell down the shaft onto the floor");
}

#[test]
fn a_held_body_walks_out_of_a_tunnel_too_low_for_it_and_stands_up() {
    // A tunnel 16 high (floor top 16, ceiling bottom 32) for x < 80, open above after it. The
    // body is 16.002 tall, feet 0.002 into the floor, walking right at 120 across the seams.
    let mut app = app(ascii("#####.....\n..........\n##########"));
    let start = Vec2::new(24.0, 16.0 - 0.002 + 8.001);
    let body = spawn_frictionless(
        &mut app,
        start,
        Vec2::new(6.0, 8.001),
        Vec2::new(120.0, 0.0),
    );
    let (lowest, _, squished) = run(&mut app, body, 45);
    assert_eq!(lowest, start.y, "never sinks");
    assert_eq!(squished.len(), 1, "{squished:?}");
    let p = pos(&app, body);
    assert_eq!(
        p.x,
        start.x + 45.0 * 2.0,
        "walked on at full speed, across the seams"
    );
    // Out of the tunnel it fits: pushed up out of the floor, standing on it.
    assert_eq!(p.y, 16.0 + 8.001);
    assert!(flags(&app, body).on_ground());
}
