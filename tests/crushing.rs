//! Bodies squeezed by kinematic bodies against tiles or against each other: never pushed into
//! a tile, reported once per episode as `Squished`, with what pressed them.

use bevy::prelude::*;

use crate::common::*;

const HALF: Vec2 = Vec2::splat(6.0);

/// A kinematic slab 40 wide and 8 tall, no gravity for it.
fn press(app: &mut App, center: Vec2, velocity: Vec2) -> Entity {
    spawn_kinematic(app, center, Vec2::new(20.0, 4.0), velocity)
}

/// An app in the default configuration (relaxing), with two crates 12 tall stacked on the floor (top at 40),
/// settled for 5 steps: the lower crate and the upper one.
fn two_crates_on_the_floor() -> (App, Entity, Entity) {
    let mut app = app(floor_room());
    let lower = spawn(&mut app, Vec2::new(100.0, 22.0), HALF, Vec2::ZERO);
    let upper = spawn(&mut app, Vec2::new(100.0, 34.0), HALF, Vec2::ZERO);
    step(&mut app, 5);
    (app, lower, upper)
}

#[test]
fn a_body_crushed_by_a_descending_platform_onto_the_floor_is_squished_once_and_stays_out_of_the_floor()
 {
    let mut app = app(floor_room());
    let body = spawn(&mut app, Vec2::new(100.0, 22.0), HALF, Vec2::ZERO);
    step(&mut app, 5);
    // Its bottom 12 units above the body's top; down at one unit a step, for 40 steps.
    let platform = press(&mut app, Vec2::new(100.0, 44.0), Vec2::new(0.0, -60.0));
    let mut all = Vec::new();
    for i in 0..40 {
        step(&mut app, 1);
        let feet = pos(&app, body).y - HALF.y;
        assert!(feet >= 16.0 - 1e-3, "step {i}: feet {feet} in the floor");
        all.extend(drain::<Squished>(&mut app));
    }
    assert_eq!(all.len(), 1, "one message for the episode: {all:?}");
    let s = all[0];
    assert_eq!(s.entity, body);
    assert!(s.vertically && !s.horizontally);
    assert_eq!(s.pressed_by(Side::Top), Some(Presser::Body(platform)));
    assert_eq!(s.pressed_by(Side::Bottom), Some(Presser::Tile));
    assert_eq!(s.pressed_by(Side::Left), None);
    assert_eq!(
        s.center,
        pos(&app, body),
        "it was left where the floor stopped it"
    );

    // The platform is put back up, still: the episode ends; down again, a new one.
    app.world_mut().get_mut::<Aabb>(platform).unwrap().center.y = 44.0;
    set_vel(&mut app, platform, Vec2::ZERO);
    step(&mut app, 5);
    assert_eq!(drain::<Squished>(&mut app), vec![]);
    set_vel(&mut app, platform, Vec2::new(0.0, -60.0));
    step(&mut app, 40);
    let again = drain::<Squished>(&mut app);
    assert_eq!(again.len(), 1, "{again:?}");
    assert!(pos(&app, body).y - HALF.y >= 16.0 - 1e-3);
}

#[test]
fn a_body_between_two_closing_kinematic_walls_is_squished_across() {
    let mut app = app_without_gravity(empty_map(40, 40));
    let body = spawn(&mut app, Vec2::new(200.0, 200.0), HALF, Vec2::ZERO);
    let wall = Vec2::new(4.0, 30.0);
    let left = spawn_kinematic(
        &mut app,
        Vec2::new(170.0, 200.0),
        wall,
        Vec2::new(60.0, 0.0),
    );
    let right = spawn_kinematic(
        &mut app,
        Vec2::new(230.0, 200.0),
        wall,
        Vec2::new(-60.0, 0.0),
    );
    step(&mut app, 30);
    let squished = drain::<Squished>(&mut app);
    assert_eq!(squished.len(), 1, "{squished:?}");
    let s = squished[0];
    assert_eq!(s.entity, body);
    assert!(s.horizontally && !s.vertically);
    assert_eq!(s.pressed_by(Side::Left), Some(Presser::Body(left)));
    assert_eq!(s.pressed_by(Side::Right), Some(Presser::Body(right)));
}

#[test]
fn a_body_pushed_into_a_wall_by_a_platform_is_squished_against_the_wall() {
    // A wall column at x = 10 (its left face at x = 160).
    let mut map = floor_room();
    map.fill(IVec2::new(10, 1), IVec2::new(10, 10), TileKind::Solid);
    let mut app = app_without_gravity(map);
    let body = spawn(&mut app, Vec2::new(150.0, 60.0), HALF, Vec2::ZERO);
    let pusher = spawn_kinematic(
        &mut app,
        Vec2::new(110.0, 60.0),
        Vec2::new(10.0, 10.0),
        Vec2::new(60.0, 0.0),
    );
    for i in 0..60 {
        step(&mut app, 1);
        let right = pos(&app, body).x + HALF.x;
        assert!(right <= 160.0 + 1e-3, "step {i}: in the wall at {right}");
    }
    let squished = drain::<Squished>(&mut app);
    assert_eq!(squished.len(), 1, "{squished:?}");
    assert!(squished[0].horizontally);
    assert_eq!(
        squished[0].pressed_by(Side::Left),
        Some(Presser::Body(pusher))
    );
    assert_eq!(squished[0].pressed_by(Side::Right), Some(Presser::Tile));
}

#[test]
fn a_body_a_platform_pushes_with_room_to_give_way_is_not_squished() {
    let mut app = app(floor_room());
    let rider = spawn(&mut app, Vec2::new(100.0, 66.0), HALF, Vec2::ZERO);
    let lifted = press(&mut app, Vec2::new(100.0, 56.0), Vec2::new(0.0, 60.0));
    let pushed = spawn(&mut app, Vec2::new(300.0, 22.0), HALF, Vec2::ZERO);
    spawn_kinematic(
        &mut app,
        Vec2::new(270.0, 22.0),
        Vec2::splat(6.0),
        Vec2::new(60.0, 0.0),
    );
    step(&mut app, 60);
    assert_eq!(drain::<Squished>(&mut app), vec![]);
    assert!(
        pos(&app, rider).y > pos(&app, lifted).y,
        "lifted, not squished"
    );
    assert!(pos(&app, pushed).x > 320.0, "pushed along the floor");
}

#[test]
fn a_stack_too_tall_for_the_gap_under_a_platform_is_squished_through_the_crate_between() {
    // A platform 8 tall above the two crates (bottom at 56).
    let (mut app, lower, upper) = two_crates_on_the_floor();
    let platform = press(&mut app, Vec2::new(100.0, 60.0), Vec2::new(0.0, -60.0));
    let mut seen = Vec::new();
    let run = |app: &mut App, steps: usize, seen: &mut Vec<Squished>| {
        for i in 0..steps {
            step(app, 1);
            let feet = aabb(app, lower).min().y;
            assert!(feet >= 16.0 - 1e-3, "step {i}: feet {feet} in the floor");
            seen.extend(drain::<Squished>(app));
        }
    };
    // Down one unit a step to a gap of 25: the stack fits.
    run(&mut app, 15, &mut seen);
    set_vel(&mut app, platform, Vec2::ZERO);
    run(&mut app, 10, &mut seen);
    assert_eq!(seen, vec![], "a stack that fits is not squished");
    assert!(max_pair_overlap(&app, &[lower, upper]) < 0.01);

    // Seven more: a gap of 18 for a stack 24 tall.
    set_vel(&mut app, platform, Vec2::new(0.0, -60.0));
    run(&mut app, 7, &mut seen);
    set_vel(&mut app, platform, Vec2::ZERO);
    run(&mut app, 30, &mut seen);
    assert_eq!(seen.len(), 2, "one message for each crate: {seen:?}");
    let of = |body: Entity| *seen.iter().find(|s| s.entity == body).unwrap();
    let (bottom, top) = (of(lower), of(upper));
    assert!(bottom.vertically && top.vertically);
    assert!(!bottom.horizontally && !top.horizontally);
    assert_eq!(bottom.pressed_by(Side::Bottom), Some(Presser::Tile));
    assert_eq!(bottom.pressed_by(Side::Top), Some(Presser::Body(upper)));
    assert_eq!(top.pressed_by(Side::Bottom), Some(Presser::Body(lower)));
    assert_eq!(top.pressed_by(Side::Top), Some(Presser::Body(platform)));
    assert_eq!(top.pressed_by(Side::Left), None);
    // Left where relaxation could take them: on the floor, under the platform.
    assert!((aabb(&app, upper).max().y - aabb(&app, platform).min().y).abs() < 0.01);

    // The platform goes back up: the squeeze is undone without a message, and a new one is
    // reported again.
    seen.clear();
    set_vel(&mut app, platform, Vec2::new(0.0, 60.0));
    run(&mut app, 20, &mut seen);
    assert_eq!(seen, vec![]);
    assert!(max_pair_overlap(&app, &[lower, upper]) < 0.01);
    set_vel(&mut app, platform, Vec2::new(0.0, -60.0));
    run(&mut app, 20, &mut seen);
    assert_eq!(seen.len(), 2, "a new episode: {seen:?}");
}

#[test]
fn a_stack_squeezed_under_a_platform_is_squished_where_its_crates_still_overlap_wherever_that_is() {
    let mut app = app(floor_room());
    // Three crates 12 tall on the floor (top at 52), a platform 8 tall above (bottom at 68).
    let crates = [22.0, 34.0, 46.0].map(|y| spawn(&mut app, Vec2::new(100.0, y), HALF, Vec2::ZERO));
    let [lower, middle, upper] = crates;
    step(&mut app, 5);
    let platform = press(&mut app, Vec2::new(100.0, 72.0), Vec2::new(0.0, -60.0));
    let mut seen = Vec::new();
    // Down one unit a step for 22 steps: a gap of 30 for a stack 36 tall.
    for i in 0..52 {
        if i == 22 {
            set_vel(&mut app, platform, Vec2::ZERO);
        }
        step(&mut app, 1);
        let feet = aabb(&app, lower).min().y;
        assert!(feet >= 16.0 - 1e-3, "step {i}: feet {feet} in the floor");
        seen.extend(drain::<Squished>(&mut app));
    }
    // Relaxation takes the stack up from the floor and back down from the platform: the upper
    // crates end touching, and the whole excess is left between the lower two.
    let gap = |a: Entity, b: Entity| aabb(&app, b).min().y - aabb(&app, a).max().y;
    assert!(gap(middle, upper).abs() < 0.01, "{}", gap(middle, upper));
    assert!((aabb(&app, upper).max().y - aabb(&app, platform).min().y).abs() < 0.01);
    assert!(gap(lower, middle) < -5.0, "{}", gap(lower, middle));
    // Those two are squished, through the crate that only touches: pressed from above by it.
    let mut squished: Vec<Entity> = seen.iter().map(|s| s.entity).collect();
    squished.sort();
    let mut expected = vec![lower, middle];
    expected.sort();
    assert_eq!(squished, expected, "{seen:?}");
    let of = |body: Entity| *seen.iter().find(|s| s.entity == body).unwrap();
    assert_eq!(of(lower).pressed_by(Side::Bottom), Some(Presser::Tile));
    assert_eq!(of(lower).pressed_by(Side::Top), Some(Presser::Body(middle)));
    assert_eq!(
        of(middle).pressed_by(Side::Bottom),
        Some(Presser::Body(lower))
    );
    assert_eq!(of(middle).pressed_by(Side::Top), Some(Presser::Body(upper)));
}

#[test]
fn a_squeeze_undone_in_a_step_that_leaves_every_body_quiet_ends_its_episode() {
    // Relaxation skips a step in which every body is quiet (none overlaps another by more than
    // the tolerance where the response left it): the episodes of squeezes end there as in any
    // other step, so that the next squeeze is reported again.
    let (mut app, lower, upper) = two_crates_on_the_floor();
    // A platform whose bottom (at 34) is 6 units below the top of the stack: it does not fit.
    let platform = press(&mut app, Vec2::new(100.0, 38.0), Vec2::ZERO);
    let put = |app: &mut App, at: [(Entity, Vec2); 3]| {
        for (body, center) in at {
            app.world_mut().get_mut::<Aabb>(body).unwrap().center = center;
            set_vel(app, body, Vec2::ZERO);
        }
    };
    let squeezed_stack = [
        (lower, Vec2::new(100.0, 22.0)),
        (upper, Vec2::new(100.0, 34.0)),
        (platform, Vec2::new(100.0, 38.0)),
    ];
    step(&mut app, 3);
    let seen = drain::<Squished>(&mut app);
    assert_eq!(seen.len(), 2, "one message for each crate: {seen:?}");

    // Taken apart by the game in one go: nobody touches anybody at the next step.
    put(
        &mut app,
        [
            (lower, Vec2::new(300.0, 22.0)),
            (upper, Vec2::new(400.0, 22.0)),
            (platform, Vec2::new(100.0, 200.0)),
        ],
    );
    step(&mut app, 3);
    assert_eq!(drain::<Squished>(&mut app), vec![]);

    // Put back: a new episode, reported again.
    put(&mut app, squeezed_stack);
    step(&mut app, 3);
    let seen = drain::<Squished>(&mut app);
    assert_eq!(seen.len(), 2, "a new episode for each crate: {seen:?}");
}

#[test]
fn a_squished_body_says_so_at_every_step_of_its_episode() {
    // Pressed by a kinematic platform onto the floor: it comes down until the body is squished,
    // then stays there pressing.
    let mut pressed = app(floor_room());
    let body = spawn(&mut pressed, Vec2::new(100.0, 22.0), HALF, Vec2::ZERO);
    step(&mut pressed, 5);
    let platform = press(&mut pressed, Vec2::new(100.0, 44.0), Vec2::new(0.0, -60.0));
    for i in 0..40 {
        assert!(!state(&pressed, body).is_squished(), "step {i}: not yet");
        step(&mut pressed, 1);
        if !drain::<Squished>(&mut pressed).is_empty() {
            break;
        }
    }
    set_vel(&mut pressed, platform, Vec2::ZERO);
    for i in 0..30 {
        assert!(
            state(&pressed, body).is_squished(),
            "step {i}: still pressed"
        );
        step(&mut pressed, 1);
    }
    assert_eq!(drain::<Squished>(&mut pressed), vec![], "one episode");
    pressed
        .world_mut()
        .get_mut::<Aabb>(platform)
        .unwrap()
        .center
        .y = 60.0;
    step(&mut pressed, 1);
    assert!(!state(&pressed, body).is_squished(), "released");

    // Held on a one-way platform under a ceiling too low for it (tile collision's squish).
    let map = ascii("......\n..#...\n......\n......\n......\n..-...\n......\n......\n######");
    let mut held = app(map);
    let body = spawn(
        &mut held,
        Vec2::new(40.0, 86.05),
        Vec2::new(8.0, 25.95),
        Vec2::ZERO,
    );
    for i in 0..10 {
        step(&mut held, 1);
        assert!(state(&held, body).is_squished(), "step {i}");
    }
    // Shrunk so that it fits: no longer squished.
    held.world_mut()
        .get_mut::<Aabb>(body)
        .unwrap()
        .half_extents
        .y = 20.0;
    step(&mut held, 2);
    assert!(!state(&held, body).is_squished());
}
