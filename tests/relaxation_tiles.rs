//! Relaxation never moves a body into a tile.

use bevy::prelude::*;

use crate::common::*;

/// A body of a scene: its centre, half extents and horizontal velocity.
type Body = ((f32, f32), (f32, f32), f32);

/// Spawns `bodies` (centre, half extents, horizontal velocity).
fn spawn_all(app: &mut App, bodies: &[Body]) -> Vec<Entity> {
    (bodies.iter())
        .map(|&((x, y), (hx, hy), vx)| {
            spawn(app, Vec2::new(x, y), Vec2::new(hx, hy), Vec2::new(vx, 0.0))
        })
        .collect()
}

/// Spawns `bodies` on `map` with 0, 1 and 4 relaxation passes and checks for 30 steps that
/// none ends inside a solid tile or a solid slope.
fn assert_never_deeper_in_a_tile(map: &TileMap, bodies: &[Body]) {
    for passes in [0, 1, 4] {
        let mut app = relaxed_app(map.clone(), passes);
        let spawned = spawn_all(&mut app, bodies);
        for i in 0..30 {
            step(&mut app, 1);
            for (k, &e) in spawned.iter().enumerate() {
                let depth = depth_in_tiles(map, &aabb(&app, e));
                assert!(
                    depth <= 0.01,
                    "{passes} passes, step {i}, body {k}: {depth} deep"
                );
            }
        }
    }
}

#[test]
fn relaxations_two_horizontal_orders_never_meet_inside_a_slope() {
    // A heap of eight bodies spawned inside each other beside a 2:1 slope (`3`, rising left).
    // One horizontal order pushes a body left, up the slope; the other pushes it right: the
    // middle of the two places, at the height of the second, lay 1.7 units inside the slope.
    let map = ascii(
        "........................
.............H.(........
..................{.....
....................6...
.a.......4..............
........................
........................
..............5.-.......
.................1....a.
........................
.......3................
.......#.#..\\..#.c.#.b..
.#./...#.#.##.##.#.#.#..
########################",
    );
    let bodies = [
        ((107.96766, 114.25634), (15.489715, 25.489658), -66.21063),
        ((118.36454, 139.10907), (8.488252, 27.129843), -82.209564),
        ((113.04888, 140.32484), (26.012821, 17.930069), 91.29117),
        ((110.34238, 129.99113), (3.007897, 14.103035), 68.95222),
        ((119.67347, 101.22769), (24.273228, 29.504284), -73.64217),
        ((159.46333, 109.904915), (10.249624, 4.1879992), 37.880196),
        ((109.40198, 105.09179), (4.9190087, 17.528696), -81.31582),
        ((106.154686, 134.84564), (19.890562, 18.382551), 94.21413),
    ];
    assert_never_deeper_in_a_tile(&map, &bodies);
}

#[test]
fn a_push_that_starts_a_rounding_inside_a_ceiling_slope_never_passes_through_it() {
    // One order slides a flat body up along a ceiling slope (`(`); the middle of where the two
    // orders left it rounds a hair inside the surface, and the next pass pushes it up from there.
    let map = ascii(
        "........................
...................(....
.............6........4.
......................\\.
.c...............H......
...............8........
....3................}..
.......................7
........................
........................
......d.1.d...{......}..
..\\.1.#.#.#..1#.{.#b.#..
.##.#.#.####.##.#.##.#..
########################",
    );
    let bodies = [
        ((306.31485, 128.80565), (31.338383, 28.331852), 37.942577),
        ((302.50964, 155.05246), (4.427513, 35.141518), -29.952532),
        ((279.5948, 185.10327), (34.04026, 5.4673824), 74.93475),
        ((296.09958, 170.60312), (38.73831, 12.933261), 44.01667),
        ((320.58392, 143.44388), (18.108408, 31.640474), -17.732561),
        ((309.94452, 178.61516), (21.417015, 11.674927), -43.260254),
        ((299.60352, 168.17052), (8.210785, 15.069613), -68.24457),
        ((276.61627, 136.01566), (3.494485, 21.045605), 97.45123),
    ];
    assert_never_deeper_in_a_tile(&map, &bodies);
}

#[test]
fn a_body_under_a_tile_is_never_pushed_up_round_its_corner_onto_it() {
    // Eleven bodies dropped inside each other, one step at a strong gravity. The seventh starts
    // with its top against the bottom of the solid tile at x 224..240, y 192..208; pushed left
    // by the response, then up and right in separate pushes, it ended on top of the tile.
    let map = ascii(
        "....................
.......-...........#
....................
....................
..............#.....
....................
....................
....................
....................
.....-..............
...#................
....#...............
....................
....................
....................
....................
####################",
    );
    let bodies = [
        ((154.5, 150.3), (45.5, 22.2), 0.5),
        ((224.0, 56.1), (25.8, 40.1), 3.4),
        ((160.3, 157.3), (30.7, 34.0), 0.6),
        ((96.0, 168.4), (42.7, 40.4), 0.0),
        ((144.0, 41.3), (39.5, 25.3), 0.0),
        ((200.0, 149.8), (33.8, 42.2), 0.0),
        ((200.0, 149.8), (39.4, 42.2), 0.0),
        ((163.5, 28.8), (22.9, 12.8), 0.0),
        ((224.0, 63.7), (40.4, 47.7), 0.6),
        ((224.0, 49.1), (30.7, 33.1), 0.5),
        ((144.0, 46.3), (37.6, 30.3), 0.0),
    ];
    for passes in [0, 1, 4] {
        let mut app = relaxed_app(map.clone(), passes);
        app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::new(0.0, -3000.0);
        let spawned = spawn_all(&mut app, &bodies);
        step(&mut app, 1);
        let seventh = aabb(&app, spawned[6]);
        let under_the_tile = seventh.max().x > 224.0 && seventh.min().x < 240.0;
        assert!(
            !under_the_tile || seventh.max().y <= 192.0 + 0.01,
            "{passes} passes: the seventh body went through the tile to {seventh:?}"
        );
        for (k, &e) in spawned.iter().enumerate() {
            let depth = depth_in_tiles(&map, &aabb(&app, e));
            assert!(depth <= 0.01, "{passes} passes, body {k}: {depth} deep");
        }
    }
}
