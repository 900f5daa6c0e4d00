use super::pass::*;
use super::squeeze::{Squeezes, find_squeezes};
use crate::tiles::collide::{PassThrough, overlaps_solid};
use crate::tiles::{SlopeTile, TileKind, TileMap};
use bevy::prelude::*;

const TOUCH: f32 = 1e-3;
const LEFT: u8 = 1;
const RIGHT: u8 = 2;
const BOTTOM: u8 = 8;

fn body(x: f32, y: f32, blocked: u8) -> RelaxBody {
    RelaxBody {
        center: Vec2::new(x, y),
        half: Vec2::splat(6.0),
        blocked,
        id: 0,
        mobility: Mobility::Free,
    }
}

/// Partner lists in which every body partners every other.
fn all_pairs(n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0];
    let mut others = vec![];
    for k in 0..n {
        others.extend((0..n as u32).filter(|&j| j as usize != k));
        starts.push(others.len() as u32);
    }
    (starts, others)
}

/// Relaxes `bodies` on `map` with every pair partners, for `passes` passes; returns how many
/// changed them.
fn solve(map: &TileMap, bodies: &mut [RelaxBody], passes: u32) -> u32 {
    let (starts, others) = all_pairs(bodies.len());
    let partners = Partners {
        starts: &starts,
        others: &others,
    };
    relax_group(
        map,
        bodies,
        partners,
        (passes, TOUCH),
        &mut Buffers::default(),
    )
}

/// Relaxes `bodies` (every pair partners, no tiles) for `passes` passes; ids follow the list.
fn relaxed(mut bodies: Vec<RelaxBody>, passes: u32) -> Vec<RelaxBody> {
    for (k, p) in bodies.iter_mut().enumerate() {
        p.id = k as u64 + 1;
    }
    solve(&TileMap::new(1, 1, 16.0), &mut bodies, passes);
    bodies
}

fn centers(bodies: &[RelaxBody]) -> Vec<Vec2> {
    bodies.iter().map(|p| p.center).collect()
}

#[test]
fn a_stack_sunk_into_its_support_rises_from_the_support_up_in_one_pass() {
    // Each crate 2 units into the one below; the bottom one stands on the floor.
    let stack = (0..5).map(|i| body(0.0, 6.0 + 10.0 * i as f32, if i == 0 { BOTTOM } else { 0 }));
    let out = relaxed(stack.collect(), 1);
    let heights: Vec<f32> = out.iter().map(|p| p.center.y).collect();
    assert_eq!(heights, [6.0, 18.0, 30.0, 42.0, 54.0]);
}

#[test]
fn two_free_bodies_side_by_side_move_apart_half_each() {
    let out = relaxed(vec![body(0.0, 0.0, 0), body(10.0, 0.0, 0)], 1);
    assert_eq!(centers(&out), [Vec2::new(-1.0, 0.0), Vec2::new(11.0, 0.0)]);
}

#[test]
fn a_free_row_spreads_out_evenly_about_its_middle() {
    // Three crates each 2 units into the next: rightward the middle one goes to 12 and
    // leftward to 8; it ends halfway.
    let row = (0..3).map(|i| body(10.0 * i as f32, 0.0, 0));
    let out = relaxed(row.collect(), 1);
    let xs: Vec<f32> = out.iter().map(|p| p.center.x).collect();
    assert_eq!(xs, [-2.0, 10.0, 22.0]);
}

#[test]
fn a_row_pressed_against_a_wall_is_pushed_away_from_it_whole() {
    // Five crates each 2 units into the next, the last one against a wall on its right.
    let row = (0..5).map(|i| body(10.0 * i as f32, 0.0, if i == 4 { RIGHT } else { 0 }));
    let out = relaxed(row.collect(), 1);
    let xs: Vec<f32> = out.iter().map(|p| p.center.x).collect();
    assert_eq!(xs, [-8.0, 4.0, 16.0, 28.0, 40.0]);
}

#[test]
fn a_body_held_on_both_sides_is_left_where_it_is() {
    let out = relaxed(vec![body(0.0, 0.0, LEFT), body(10.0, 0.0, RIGHT)], 4);
    assert_eq!(centers(&out), [Vec2::ZERO, Vec2::new(10.0, 0.0)]);
}

#[test]
fn crates_resting_on_each_other_do_not_hold_each_other_sideways() {
    // Touching top to bottom: pushing the lower one sideways leaves the upper one.
    let out = relaxed(
        vec![
            body(0.0, 0.0, BOTTOM),
            body(4.0, 12.0, 0),
            body(-10.0, 0.0, 0),
        ],
        1,
    );
    assert_eq!(out[1].center, Vec2::new(4.0, 12.0));
    assert_eq!(out[0].center.x - out[2].center.x, 12.0);
}

#[test]
fn bodies_that_are_not_partners_are_not_pushed_apart() {
    // Only 0 and 1 are partners: 2, overlapping 1 by 1 unit, is left where it is.
    let mut bodies = vec![body(0.0, 0.0, LEFT), body(10.0, 0.0, 0), body(21.0, 0.0, 0)];
    for (k, p) in bodies.iter_mut().enumerate() {
        p.id = k as u64 + 1;
    }
    let (starts, others) = (vec![0, 1, 2, 2], vec![1, 0]);
    let partners = Partners {
        starts: &starts,
        others: &others,
    };
    let map = TileMap::new(1, 1, 16.0);
    let passes = relax_group(
        &map,
        &mut bodies,
        partners,
        (4, TOUCH),
        &mut Buffers::default(),
    );
    assert_eq!(
        centers(&bodies),
        [Vec2::ZERO, Vec2::new(12.0, 0.0), Vec2::new(21.0, 0.0)]
    );
    assert_eq!(passes, 1, "the second pass changes nothing");
}

#[test]
fn the_order_of_the_bodies_in_the_list_changes_nothing() {
    let mut u = crate::test_rng::unit_floats(7);
    let mut bodies: Vec<RelaxBody> = (0..40)
        .map(|k| RelaxBody {
            center: Vec2::new(u() * 60.0, u() * 60.0),
            half: Vec2::new(2.0 + u() * 6.0, 2.0 + u() * 6.0),
            blocked: 0,
            id: 100 + k,
            mobility: Mobility::Free,
        })
        .collect();
    let solve = |list: &[RelaxBody]| {
        let mut list = list.to_vec();
        let (starts, mut others) = all_pairs(list.len());
        // Each body's partners in another order.
        for k in 0..list.len() {
            others[starts[k] as usize..starts[k + 1] as usize].reverse();
        }
        let partners = Partners {
            starts: &starts,
            others: &others,
        };
        let map = TileMap::new(1, 1, 16.0);
        relax_group(
            &map,
            &mut list,
            partners,
            (3, TOUCH),
            &mut Buffers::default(),
        );
        list.sort_by_key(|p| p.id);
        list
    };
    let forward = solve(&bodies);
    bodies.reverse();
    bodies.swap(3, 17);
    assert_eq!(solve(&bodies), forward);
    let mut unsolved = bodies.clone();
    unsolved.sort_by_key(|p| p.id);
    assert_ne!(centers(&forward), centers(&unsolved));
}

#[test]
fn a_body_pushed_round_a_tiles_corner_is_stopped_by_the_tile() {
    // A solid tile at x 32..48, y 32..48. A crate beside it, below it (x -8..32, y 14..26), is
    // pushed up by a kinematic body it is sunk into, past the tile's top, then right by a tall
    // one on its left: in two pushes it would end on the tile. Swept along its whole
    // displacement, it meets the tile's bottom face.
    let map = TileMap::from_ascii("....\n..#.\n....\n....", 16.0).unwrap();
    let fixed = |center: Vec2, half: Vec2, id| RelaxBody {
        center,
        half,
        blocked: ALL_SIDES,
        id,
        mobility: Mobility::Fixed,
    };
    let crate_at = Vec2::new(12.0, 20.0);
    let mut bodies = vec![
        RelaxBody {
            center: crate_at,
            half: Vec2::new(20.0, 6.0),
            blocked: 0,
            id: 1,
            mobility: Mobility::Swept(PassThrough::default()),
        },
        fixed(Vec2::new(12.0, 18.0), Vec2::new(40.0, 30.0), 2),
        fixed(Vec2::new(-10.0, 19.0), Vec2::new(10.0, 40.0), 3),
    ];
    solve(&map, &mut bodies, 1);
    let b = bodies[0];
    assert!(b.center != crate_at, "relaxation moved it");
    let (min, max) = (b.center - b.half, b.center + b.half);
    let over_the_tile = max.x > 32.0 + TOUCH && min.y >= 48.0 - TOUCH;
    let in_the_tile = max.x > 32.0 + TOUCH && max.y > 32.0 + TOUCH && min.y < 48.0 - TOUCH;
    assert!(
        !over_the_tile && !in_the_tile,
        "it went round the tile to {:?}",
        b.center
    );
    // Each push alone was possible: up beside the tile, then right along its top.
    let up = apply_push(
        &map,
        (crate_at, b.half),
        Vec2::new(0.0, 34.0),
        b.mobility,
        TOUCH,
    );
    let right = apply_push(&map, (up.0, b.half), Vec2::new(8.0, 0.0), b.mobility, TOUCH);
    assert_eq!(
        (up, right),
        ((Vec2::new(12.0, 54.0), 0), (Vec2::new(20.0, 54.0), 0))
    );
}

#[test]
fn a_stack_between_the_floor_and_a_kinematic_body_is_squeezed() {
    // Two crates, 4 units into each other, between a floor and a kinematic lid touching the
    // upper one: nothing can give way.
    let mut bodies = vec![
        body(0.0, 6.0, BOTTOM),
        body(0.0, 14.0, 0),
        RelaxBody {
            mobility: Mobility::Fixed,
            blocked: ALL_SIDES,
            ..body(0.0, 26.0, 0)
        },
    ];
    for (k, p) in bodies.iter_mut().enumerate() {
        p.id = k as u64 + 1;
    }
    solve(&TileMap::new(1, 1, 16.0), &mut bodies, 4);
    let mut squeezes = Squeezes::default();
    let every_other = |k: usize| (0..3).filter(move |&j| j != k);
    find_squeezes(&bodies, every_other, TOUCH, &mut squeezes);
    assert!(
        squeezes.squeezed[0] && squeezes.squeezed[1],
        "{:?}",
        centers(&bodies)
    );
}

/// A 24 x 14 map of 16-unit tiles: a solid floor, and tiles of every kind (solid, one-way,
/// ladders, every slope, solid or one-way) scattered above it.
fn random_map(u: &mut impl FnMut() -> f32) -> TileMap {
    let mut map = TileMap::new(24, 14, 16.0);
    map.fill(IVec2::new(0, 0), IVec2::new(23, 0), TileKind::Solid);
    let every: Vec<TileKind> = TileKind::CHARS.iter().map(|&(_, k)| k).collect();
    for _ in 0..60 {
        let (x, y) = ((u() * 24.0) as i32, 1 + (u() * 13.0) as i32);
        map.set(x, y, every[1 + (u() * (every.len() - 1) as f32) as usize]);
    }
    map
}

/// The height of each one-way top or one-way slope surface under the box's feet (within 0.01),
/// with its tile.
fn one_ways_under(map: &TileMap, center: Vec2, half: Vec2) -> Vec<(IVec2, f32)> {
    let (min, max) = (center - half, center + half);
    let (lo, hi) = (map.tile_at(min - 1.0), map.tile_at(max));
    let mut found = vec![];
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            if let Some(surface) = one_way_surface(map, IVec2::new(x, y), center, half)
                && (min.y - surface).abs() <= 0.01
            {
                found.push((IVec2::new(x, y), surface));
            }
        }
    }
    found
}

/// The height at which a one-way top or one-way slope at `tile` holds the box, if it is one and
/// lies under the box's bottom by more than 0.01 of its width.
fn one_way_surface(map: &TileMap, tile: IVec2, center: Vec2, half: Vec2) -> Option<f32> {
    let (min, max) = map.tile_rect(tile.x, tile.y);
    let (lo, hi) = (center.x - half.x + 0.01, center.x + half.x - 0.01);
    if hi <= min.x || lo >= max.x {
        return None;
    }
    let kind = map.get(tile.x, tile.y);
    match kind.slope() {
        Some(slope) if slope.one_way => SlopeTile { slope, min, max }.support(lo, hi),
        None if kind == TileKind::OneWay => Some(max.y),
        _ => None,
    }
}

/// Random scene `case`: a map with tiles of every kind, and a heap of eight bodies of every
/// size up to several tiles inside each other, clear of tiles, some standing on them.
fn heap_scene(case: u32) -> (TileMap, Vec<RelaxBody>) {
    let mut u = crate::test_rng::unit_floats(0x4EA1_0000 + case);
    let map = random_map(&mut u);
    let spot = Vec2::new(32.0 + u() * 320.0, 24.0 + u() * 160.0);
    let mut bodies: Vec<RelaxBody> = vec![];
    for attempt in 0..200 {
        if bodies.len() == 8 {
            break;
        }
        // Every size up to several tiles, in a heap around one spot.
        let half = Vec2::new(2.0 + u() * 38.0, 2.0 + u() * 38.0);
        let center = spot + (Vec2::new(u(), u()) - 0.5) * 48.0;
        // A few bodies stand on what is under them: their feet on a tile's top.
        let center = if attempt % 3 == 0 {
            let feet = (center.y - half.y) / 16.0;
            Vec2::new(center.x, feet.round() * 16.0 + half.y)
        } else {
            center
        };
        // Clear of tiles, as tile collision and the response leave a body (within the
        // contact tolerance).
        if overlaps_solid(&map, center, half, TOUCH) {
            continue;
        }
        let pass = PassThrough {
            drop_through: u() < 0.1,
            climbing: u() < 0.1,
        };
        bodies.push(RelaxBody {
            center,
            half,
            blocked: 0,
            id: 1 + bodies.len() as u64,
            mobility: if u() < 0.1 {
                Mobility::Fixed
            } else {
                Mobility::Swept(pass)
            },
        });
    }
    (map, bodies)
}

/// A tile a box went through from `start` to `end`: a solid tile it went from one side to the
/// other of, overlapping it across at both places, or a slope it went from below to above or
/// the other way (the bottom of a floor slope and the top of a ceiling slope are solid across
/// the tile).
fn crossed_tile(map: &TileMap, (start, end): (Vec2, Vec2), half: Vec2) -> Option<IVec2> {
    let (lo, hi) = (start.min(end) - half, start.max(end) + half);
    let (first, last) = (map.tile_at(lo), map.tile_at(hi));
    let over = |a: f32, ah: f32, min: f32, max: f32| a + ah > min + 0.01 && a - ah < max - 0.01;
    let passed = |a: f32, b: f32, ah: f32, min: f32, max: f32| {
        (a + ah <= min + 0.01 && b - ah >= max - 0.01)
            || (a - ah >= max - 0.01 && b + ah <= min + 0.01)
    };
    for y in first.y..=last.y {
        for x in first.x..=last.x {
            let kind = map.get(x, y);
            let solid = kind == TileKind::Solid;
            if !solid && kind.slope().is_none_or(|s| s.one_way) {
                continue;
            }
            let (min, max) = map.tile_rect(x, y);
            let across_x = over(start.x, half.x, min.x, max.x) && over(end.x, half.x, min.x, max.x);
            let across_y = over(start.y, half.y, min.y, max.y) && over(end.y, half.y, min.y, max.y);
            let up_or_down = across_x && passed(start.y, end.y, half.y, min.y, max.y);
            let sideways = solid && across_y && passed(start.x, end.x, half.x, min.x, max.x);
            if up_or_down || sideways {
                return Some(IVec2::new(x, y));
            }
        }
    }
    None
}

#[test]
fn relaxation_never_moves_a_body_into_or_through_a_tile_nor_below_a_one_way_it_stood_on() {
    let (mut moved, mut on_one_ways) = (0, 0);
    for case in 0..4000u32 {
        let (map, mut bodies) = heap_scene(case);
        let passes = 1 + case % 4;
        let before = bodies.clone();
        let stood_on: Vec<_> = (bodies.iter())
            .map(|p| one_ways_under(&map, p.center, p.half))
            .collect();
        solve(&map, &mut bodies, passes);
        for (k, (p, b)) in bodies.iter().zip(&before).enumerate() {
            let Mobility::Swept(pass) = p.mobility else {
                assert_eq!(p.center, b.center, "case {case}: a fixed body moved");
                continue;
            };
            let scene = || {
                format!(
                    "case {case}, {passes} passes, body {k}: {b:?} to {:?}",
                    p.center
                )
            };
            moved += usize::from(p.center != b.center);
            assert!(
                !overlaps_solid(&map, p.center, p.half, 0.01),
                "in a tile: {}",
                scene()
            );
            // Nor from one side of a tile to the other.
            let crossed = crossed_tile(&map, (b.center, p.center), p.half);
            assert!(
                crossed.is_none(),
                "through the tile at {crossed:?}: {}",
                scene()
            );
            for &(tile, surface) in &stood_on[k] {
                on_one_ways += 1;
                let still_over = one_way_surface(&map, tile, p.center, p.half).is_some();
                let feet = p.center.y - p.half.y;
                assert!(
                    pass.drop_through || !still_over || feet >= surface - 0.01,
                    "below the one-way at {tile}: {}",
                    scene()
                );
            }
        }
    }
    assert!(
        moved > 1000 && on_one_ways > 50,
        "{moved} bodies moved, {on_one_ways} on one-ways"
    );
}
