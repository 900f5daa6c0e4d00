//! Pushable bodies (`src/push.rs`): a character walking into a crate pushes it at the crate's
//! share of its speed; rows move as one; walls and heavier bodies stop the pusher; riders ride;
//! bodies without the component keep the article's behaviour.

use bevy::prelude::*;

use crate::common::*;

const WALK: f32 = 120.0;
const HALF: Vec2 = Vec2::splat(8.0);

/// A character standing on the floor at x = 104 (half 8), its right side against `crates`
/// crates in a row on the floor (half 8, each touching the next), pushable with `share` if
/// given; `wall` puts a solid column right after the last crate.
fn scene(crates: usize, share: Option<f32>, wall: bool) -> (App, Entity, Vec<Entity>) {
    let mut map = floor_room();
    // Where a crate after the last one would be: the wall's column starts at its left side.
    let next = 120.0 + 16.0 * crates as f32;
    if wall {
        let column = (next - 8.0) as i32 / 16;
        map.fill(
            IVec2::new(column, 1),
            IVec2::new(column, 3),
            TileKind::Solid,
        );
    }
    let mut app = app(map);
    let walker = spawn(&mut app, Vec2::new(104.0, 24.0), HALF, Vec2::ZERO);
    let row = (0..crates)
        .map(|i| {
            let at = Vec2::new(120.0 + 16.0 * i as f32, 24.0);
            let e = spawn(&mut app, at, HALF, Vec2::ZERO);
            if let Some(share) = share {
                app.world_mut().entity_mut(e).insert(Pushable { share });
            }
            e
        })
        .collect();
    step(&mut app, 10);
    (app, walker, row)
}

/// Walks `walker` right at [`WALK`] for `n` steps (its speed set before each, as a controller
/// does).
fn walk(app: &mut App, walker: Entity, n: usize) {
    for _ in 0..n {
        let vy = vel(app, walker).y;
        set_vel(app, walker, Vec2::new(WALK, vy));
        step(app, 1);
    }
}

#[test]
fn a_walking_body_pushes_a_pushable_crate_at_its_share_of_its_speed() {
    let (mut app, walker, row) = scene(1, Some(0.5), false);
    let (start, crate_start) = (pos(&app, walker), pos(&app, row[0]));
    walk(&mut app, walker, 60);
    let moved = pos(&app, row[0]).x - crate_start.x;
    // One second at half of 120 units a second (friction on the floor takes a little).
    assert!((45.0..=62.0).contains(&moved), "the crate moved {moved}");
    let walked = pos(&app, walker).x - start.x;
    assert!(
        (walked - moved).abs() < 1.0,
        "walked {walked}, pushed {moved}"
    );
    let gap = aabb(&app, row[0]).min().x - aabb(&app, walker).max().x;
    assert!(
        gap.abs() < 0.5,
        "the walker keeps touching the crate: gap {gap}"
    );
    assert_eq!(pos(&app, row[0]).y, crate_start.y, "it slides on the floor");
}

#[test]
fn a_lighter_crate_is_pushed_faster() {
    let moved = |share| {
        let (mut app, walker, row) = scene(1, Some(share), false);
        let start = pos(&app, row[0]).x;
        walk(&mut app, walker, 60);
        pos(&app, row[0]).x - start
    };
    let (light, heavy) = (moved(0.8), moved(0.25));
    assert!(
        light > 2.5 * heavy && heavy > 15.0,
        "{light} against {heavy}"
    );
}

#[test]
fn without_the_component_a_walking_body_stops_at_a_crate() {
    let (mut app, walker, row) = scene(1, None, false);
    let crate_start = pos(&app, row[0]);
    walk(&mut app, walker, 60);
    assert!(
        pos(&app, row[0]).distance(crate_start) < 0.1,
        "the crate moved to {}",
        pos(&app, row[0])
    );
    assert!(aabb(&app, walker).max().x <= aabb(&app, row[0]).min().x + 0.01);
}

#[test]
fn a_row_of_pushable_crates_moves_as_one() {
    let (mut app, walker, row) = scene(3, Some(0.5), false);
    let starts: Vec<f32> = row.iter().map(|&e| pos(&app, e).x).collect();
    walk(&mut app, walker, 60);
    let moved: Vec<f32> = (row.iter().zip(&starts))
        .map(|(&e, s)| pos(&app, e).x - s)
        .collect();
    assert!(moved[0] > 40.0, "{moved:?}");
    for m in &moved {
        assert!((m - moved[0]).abs() < 1.0, "{moved:?}");
    }
    assert!(max_pair_overlap(&app, &row) < 0.01);
}

#[test]
fn a_crate_against_a_wall_stops_the_pusher() {
    let (mut app, walker, row) = scene(2, Some(0.5), true);
    let (start, crates) = (pos(&app, walker), [pos(&app, row[0]), pos(&app, row[1])]);
    walk(&mut app, walker, 60);
    assert!(pos(&app, walker).x - start.x < 0.1, "{}", pos(&app, walker));
    for (&e, at) in row.iter().zip(crates) {
        assert!(
            pos(&app, e).distance(at) < 0.1,
            "{} from {at}",
            pos(&app, e)
        );
    }
}

#[test]
fn a_heavier_body_stops_the_pusher() {
    let (mut app, walker, row) = scene(1, Some(0.5), false);
    // A body that is not pushable, standing against the crate's far side.
    let heavy = spawn(&mut app, Vec2::new(136.0, 24.0), HALF, Vec2::ZERO);
    step(&mut app, 5);
    let (start, at) = (pos(&app, walker), pos(&app, row[0]));
    walk(&mut app, walker, 60);
    assert!(pos(&app, walker).x - start.x < 0.1);
    assert!(pos(&app, row[0]).distance(at) < 0.1);
    assert!(pos(&app, heavy).x - 136.0 < 0.1);
}

#[test]
fn a_crate_standing_on_a_pushed_crate_rides_along() {
    let (mut app, walker, row) = scene(1, Some(0.5), false);
    let rider = spawn(&mut app, Vec2::new(120.0, 40.0), HALF, Vec2::ZERO);
    step(&mut app, 10);
    let start = pos(&app, rider);
    walk(&mut app, walker, 60);
    let (below, on) = (aabb(&app, row[0]), aabb(&app, rider));
    assert!(
        on.min().y - below.max().y < 0.01,
        "it stays on it: {on:?} {below:?}"
    );
    assert!(
        on.center.x - start.x > 30.0,
        "it rode {}",
        on.center.x - start.x
    );
}

#[test]
fn a_body_jumping_onto_a_pushable_crate_lands_on_it() {
    let (mut app, _, row) = scene(1, Some(0.5), false);
    let jumper = spawn(&mut app, Vec2::new(120.0, 80.0), HALF, Vec2::ZERO);
    step(&mut app, 60);
    let (below, on) = (aabb(&app, row[0]), aabb(&app, jumper));
    assert!(
        (on.min().y - below.max().y).abs() < 0.01,
        "{on:?} on {below:?}"
    );
    assert!(flags(&app, jumper).on_ground());
}

#[test]
fn the_order_the_crates_were_spawned_in_changes_nothing() {
    let run = |reversed: bool| {
        let mut app = app(floor_room());
        let walker = spawn(&mut app, Vec2::new(104.0, 24.0), HALF, Vec2::ZERO);
        let mut order: Vec<usize> = (0..4).collect();
        if reversed {
            order.reverse();
        }
        let mut row = [Entity::PLACEHOLDER; 4];
        for i in order {
            let at = Vec2::new(120.0 + 16.0 * i as f32, 24.0);
            row[i] = spawn(&mut app, at, HALF, Vec2::ZERO);
            app.world_mut()
                .entity_mut(row[i])
                .insert(Pushable::default());
        }
        walk(&mut app, walker, 60);
        row.iter().map(|&e| pos(&app, e)).collect::<Vec<_>>()
    };
    let forward = run(false);
    assert!(forward[3].x - 168.0 > 30.0, "the row moved: {forward:?}");
    assert_eq!(forward, run(true));
}
