//! Object-vs-object response (article 003 and its errata): kinematic bodies, landing on bodies,
//! speed-ratio splits, resting stacks, riding platforms, thread-count independence.

use bevy::prelude::*;

use crate::common::*;

fn floor_room() -> TileMap {
    let mut map = empty_map(40, 40);
    map.fill(IVec2::new(0, 0), IVec2::new(39, 0), TileKind::Solid);
    map
}

const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn kinematic_platform_is_never_moved_by_anything() {
    let mut app = app(floor_room());
    let start = Vec2::new(320.0, 200.0);
    let v = Vec2::new(40.0, 20.0);
    let platform = spawn_kinematic(&mut app, start, Vec2::new(24.0, 4.0), v);
    // Bodies thrown at it from every side, fast.
    for (from, vel) in [
        (Vec2::new(240.0, 202.0), Vec2::new(900.0, 0.0)),
        (Vec2::new(400.0, 198.0), Vec2::new(-900.0, 0.0)),
        (Vec2::new(322.0, 300.0), Vec2::new(0.0, -900.0)),
        (Vec2::new(318.0, 120.0), Vec2::new(0.0, 900.0)),
        (Vec2::new(250.0, 260.0), Vec2::new(600.0, -600.0)),
    ] {
        spawn(&mut app, from, HALF, vel);
    }
    for i in 1..=60 {
        step(&mut app, 1);
        let expected = start + v * DT * i as f32;
        assert!(
            (pos(&app, platform) - expected).length() < 1e-3,
            "step {i}: moved by a body"
        );
        assert_eq!(vel(&app, platform), v);
    }
}

#[test]
fn body_pushing_into_a_kinematic_block_stops_at_its_face() {
    let mut app = app(floor_room());
    let block = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 32.0),
        Vec2::splat(16.0),
        Vec2::ZERO,
    );
    let body = spawn_frictionless(&mut app, Vec2::new(120.0, 22.0), HALF, Vec2::ZERO);
    for _ in 0..90 {
        let v = vel(&app, body);
        set_vel(&mut app, body, Vec2::new(240.0, v.y));
        step(&mut app, 1);
    }
    assert_eq!(pos(&app, block), Vec2::new(200.0, 32.0));
    assert!(
        (pos(&app, body).x - (184.0 - HALF.x)).abs() < 1e-3,
        "stopped at the face: {}",
        pos(&app, body)
    );
    assert_eq!(vel(&app, body).x, 0.0);
    assert!(flags(&app, body).pushes_object(Side::Right));
}

#[test]
fn body_falling_onto_a_resting_body_stops_on_top_of_it() {
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(203.0, 120.0), HALF, Vec2::ZERO);
    let config = app.world().resource::<PhysicsConfig>().clone();
    let mut landings = Vec::new();
    for _ in 0..120 {
        let falling = vel(&app, above);
        step(&mut app, 1);
        for l in drain_landed(&mut app) {
            if l.entity == above {
                // The velocity it hit the body with: gravity's last step included, before the
                // landing removed the downward part.
                let expected = bevy_platformer_physics::apply_gravity(
                    falling,
                    config.gravity,
                    config.max_fall_speed,
                    DT,
                );
                landings.push((l.velocity, expected));
            }
        }
    }
    assert_eq!(
        pos(&app, below),
        Vec2::new(200.0, 22.0),
        "the resting body is not pushed"
    );
    assert!(
        (pos(&app, above).y - 34.0).abs() < 1e-3,
        "on top: {}",
        pos(&app, above)
    );
    assert_eq!(pos(&app, above).x, 203.0);
    assert_eq!(vel(&app, above), Vec2::ZERO);
    assert!(flags(&app, above).pushes_object(Side::Bottom) && flags(&app, above).on_ground());
    assert!(flags(&app, below).pushes_object(Side::Top));
    assert_eq!(landings.len(), 1, "Landed once for the landing on a body");
    let (velocity, expected) = landings[0];
    assert!(velocity.y < -100.0, "landed falling: {velocity}");
    assert!(
        (velocity - expected).length() < 1e-3,
        "{velocity} against {expected}"
    );
}

/// Marks the body whose velocity a system between detection and response overwrites.
#[derive(Component)]
struct Meddled;

#[test]
fn a_landing_on_a_body_reports_the_velocity_detection_saw() {
    let mut app = app(floor_room());
    // A gameplay system between the two stages sets a velocity the landing must not report.
    app.add_systems(
        FixedUpdate,
        (|mut q: Query<&mut Velocity, With<Meddled>>| {
            for mut v in &mut q {
                v.0 = Vec2::new(7.0, -1.0);
            }
        })
        .after(PhysicsSystems::DetectPairs)
        .before(PhysicsSystems::Respond),
    );
    spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    // 5 units above the body below, falling 8 units in one step.
    let above = spawn(
        &mut app,
        Vec2::new(200.0, 39.0),
        HALF,
        Vec2::new(0.0, -480.0),
    );
    app.world_mut().entity_mut(above).insert(Meddled);
    let gravity = app.world().resource::<PhysicsConfig>().gravity;
    step(&mut app, 1);
    let landings: Vec<Landed> = drain_landed(&mut app)
        .into_iter()
        .filter(|l| l.entity == above)
        .collect();
    assert_eq!(landings.len(), 1, "landed on the body below");
    let expected = Vec2::new(0.0, -480.0) + gravity * DT;
    assert!(
        (landings[0].velocity - expected).length() < 1e-3,
        "{} against {expected}",
        landings[0].velocity
    );
}

#[test]
fn a_stack_at_rest_leaves_its_body_state_unchanged() {
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(200.0, 34.0), HALF, Vec2::ZERO);
    step(&mut app, 30);
    let changed = last_changed::<BodyState>;
    let settled = (changed(&app, below), changed(&app, above));
    step(&mut app, 5);
    assert!(
        flags(&app, above).pushes_object(Side::Bottom),
        "still stacked"
    );
    assert_eq!(
        (changed(&app, below), changed(&app, above)),
        settled,
        "nothing about either body's surroundings changed, so neither state is written"
    );
}

#[test]
fn push_flags_are_marked_changed_only_in_the_steps_that_change_them() {
    // A stack at rest keeps its flags' change tick; a box that lands gets a new one in the
    // step it lands and in the next (when "pushed" catches up), then keeps it.
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(200.0, 34.0), HALF, Vec2::ZERO);
    let faller = spawn(&mut app, Vec2::new(300.0, 60.0), HALF, Vec2::ZERO);
    let changed = last_changed::<PushFlags>;
    step(&mut app, 3);
    assert!(flags(&app, above).pushes_object(Side::Bottom) && flags(&app, below).on_ground());
    assert!(!flags(&app, faller).on_ground(), "still falling");
    let stack = (changed(&app, below), changed(&app, above));
    let mut marks = Vec::new();
    for _ in 0..40 {
        let before = changed(&app, faller);
        let was = flags(&app, faller);
        step(&mut app, 1);
        let now = flags(&app, faller);
        assert_eq!(
            changed(&app, faller) != before,
            now != was,
            "marked changed exactly when the flags changed: {was:?} to {now:?}"
        );
        marks.push(now != was);
    }
    assert!(flags(&app, faller).on_ground(), "landed");
    assert_eq!(
        marks.iter().filter(|&&m| m).count(),
        2,
        "landing changes the flags in two steps: {marks:?}"
    );
    assert_eq!(
        (changed(&app, below), changed(&app, above)),
        stack,
        "the stack's flags did not change, so they are not marked"
    );
}

#[test]
fn stacks_of_odd_sized_boxes_stay_on_the_ground_at_every_step() {
    // Sizes and places whose sums do not round exactly in f32: a body put back on top of
    // another can end a rounding error above it. It must still stand there, at every step,
    // and land once, not again and again.
    let mut app = app(floor_room());
    let mut stacks = Vec::new();
    for (k, halves) in [[5.3, 3.7, 6.1], [4.45, 7.9, 2.35], [9.99, 4.01, 5.55]]
        .iter()
        .enumerate()
    {
        let x = 123.456 + 97.3 * k as f32;
        let mut y = 16.0;
        let mut stack = Vec::new();
        for &h in halves {
            let half = Vec2::new(h + 1.7, h);
            // Dropped from a little above where it will rest.
            stack.push(spawn(
                &mut app,
                Vec2::new(x, y + h + 0.37),
                half,
                Vec2::ZERO,
            ));
            y += 2.0 * h + 0.37;
        }
        stacks.push(stack);
    }
    step(&mut app, 60);
    drain_landed(&mut app);
    for i in 0..120 {
        step(&mut app, 1);
        for stack in &stacks {
            for &body in stack {
                assert!(
                    flags(&app, body).on_ground(),
                    "step {i}: {body} lost its ground"
                );
            }
        }
        assert_eq!(drain_landed(&mut app), [], "step {i}: nothing lands again");
    }
}

#[test]
fn bodies_a_float_step_apart_far_from_the_origin_touch_and_stay_put() {
    // At x = 20 000 one float step is about 0.002, twice the contact tolerance: two boxes
    // placed side by side can end that far apart. They touch; nothing moves either.
    let mut map = empty_map(1400, 8);
    map.fill(IVec2::new(0, 0), IVec2::new(1399, 0), TileKind::Solid);
    let mut app = app(map);
    let (x, half) = (20_000.0, Vec2::splat(6.0));
    let left = spawn(&mut app, Vec2::new(x - 6.0, 22.0), half, Vec2::ZERO);
    let right = spawn(
        &mut app,
        Vec2::new(x + 6.0 + 0.0025, 22.0),
        half,
        Vec2::ZERO,
    );
    let start = (pos(&app, left), pos(&app, right));
    assert!(
        pos(&app, right).x - 6.0 > pos(&app, left).x + 6.0,
        "apart by a float step"
    );
    step(&mut app, 10);
    assert!(flags(&app, left).pushes_object(Side::Right));
    assert!(flags(&app, right).pushes_object(Side::Left));
    assert_eq!((pos(&app, left), pos(&app, right)), start, "neither moved");
}

#[test]
fn landing_across_two_equal_bodies_at_once_moves_it_up_once() {
    let mut app = app_without_gravity(floor_room());
    let left = spawn_kinematic(&mut app, Vec2::new(194.0, 22.0), HALF, Vec2::ZERO);
    let right = spawn_kinematic(&mut app, Vec2::new(206.0, 22.0), HALF, Vec2::ZERO);
    // Centred over the seam; 5 units above; falls 8 units in one step.
    let body = spawn(
        &mut app,
        Vec2::new(200.0, 39.0),
        HALF,
        Vec2::new(0.0, -480.0),
    );
    step(&mut app, 1);
    assert_eq!(contacts(&app, body).len(), 2, "detected against both");
    assert!(
        (pos(&app, body).y - 34.0).abs() < 1e-4,
        "corrected once: {}",
        pos(&app, body).y
    );
    assert_eq!(vel(&app, body).y, 0.0);
    let _ = (left, right);
}

#[test]
fn bodies_meeting_head_on_separate_in_proportion_to_their_speeds() {
    let mut app = app_without_gravity(floor_room());
    // 5 and 1.25 units a step; 13 apart: after one step 6.75 apart, overlapping by 5.25.
    let a = spawn(
        &mut app,
        Vec2::new(200.0, 200.0),
        HALF,
        Vec2::new(300.0, 0.0),
    );
    let b = spawn(
        &mut app,
        Vec2::new(213.0, 200.0),
        HALF,
        Vec2::new(-75.0, 0.0),
    );
    step(&mut app, 1);
    let overlap = 12.0 - ((213.0 - 1.25) - (200.0 + 5.0));
    let (pa, pb) = (pos(&app, a), pos(&app, b));
    assert!(
        (pa.x - (205.0 - 0.8 * overlap)).abs() < 1e-3,
        "a takes 4/5: {pa}"
    );
    assert!(
        (pb.x - (211.75 + 0.2 * overlap)).abs() < 1e-3,
        "b takes 1/5: {pb}"
    );
    assert!((pb.x - pa.x - 12.0).abs() < 1e-3, "touching after");
    assert_eq!((vel(&app, a).x, vel(&app, b).x), (0.0, 0.0));
}

#[test]
fn bodies_spawned_overlapping_and_still_separate_half_each() {
    let mut app = app_without_gravity(floor_room());
    let a = spawn(&mut app, Vec2::new(200.0, 200.0), HALF, Vec2::ZERO);
    let b = spawn(&mut app, Vec2::new(208.0, 201.0), HALF, Vec2::ZERO);
    step(&mut app, 1);
    assert_eq!(pos(&app, a), Vec2::new(198.0, 200.0));
    assert_eq!(pos(&app, b), Vec2::new(210.0, 201.0));
}

#[test]
fn stack_of_ten_boxes_on_the_floor_settles() {
    let mut app = app(floor_room());
    let boxes: Vec<Entity> = (0..10)
        .map(|i| {
            spawn(
                &mut app,
                Vec2::new(300.0 + (i % 3) as f32, 22.0 + 13.0 * i as f32),
                HALF,
                Vec2::ZERO,
            )
        })
        .collect();
    step(&mut app, 300);
    let worst = max_pair_overlap(&app, &boxes);
    assert!(worst <= 0.01, "after 300 steps a pair overlaps by {worst}");
    let settled: Vec<Vec2> = boxes.iter().map(|&e| pos(&app, e)).collect();
    step(&mut app, 100);
    for (i, &e) in boxes.iter().enumerate() {
        let moved = pos(&app, e).distance(settled[i]);
        assert!(moved <= 0.001, "box {i} moved {moved} after settling");
    }
    let top = pos(&app, boxes[9]).y;
    assert!(
        (top - (22.0 + 12.0 * 9.0)).abs() < 0.1,
        "the stack stands 10 boxes high: {top}"
    );
}

fn max_pair_overlap(app: &App, boxes: &[Entity]) -> f32 {
    let mut worst = 0.0f32;
    for (i, &a) in boxes.iter().enumerate() {
        for &b in &boxes[i + 1..] {
            let (pa, pb) = (aabb(app, a), aabb(app, b));
            let o = (pa.half_extents + pb.half_extents) - (pa.center - pb.center).abs();
            if o.x > 0.0 && o.y > 0.0 {
                worst = worst.max(o.x.min(o.y));
            }
        }
    }
    worst
}

#[test]
fn body_standing_on_a_rising_kinematic_platform_is_lifted_with_it() {
    let mut app = app(floor_room());
    let platform = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 60.0),
        Vec2::new(24.0, 4.0),
        Vec2::ZERO,
    );
    let rider = spawn(&mut app, Vec2::new(205.0, 70.0), HALF, Vec2::ZERO);
    step(&mut app, 30);
    assert!(
        (pos(&app, rider).y - 70.0).abs() < 1e-3,
        "rests on the platform"
    );
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(0.0, 45.0);
    for i in 1..=120 {
        step(&mut app, 1);
        let top = pos(&app, platform).y + 4.0;
        let feet = pos(&app, rider).y - HALF.y;
        assert!(
            (feet - top).abs() < 0.8,
            "step {i}: feet {feet}, platform top {top}"
        );
        assert!(flags(&app, rider).on_ground(), "step {i}: still standing");
    }
    assert!(
        pos(&app, rider).y > 150.0,
        "lifted by 90 units: {}",
        pos(&app, rider).y
    );
    assert_eq!(pos(&app, platform).x, 200.0);
}

/// A wide kinematic slab resting on nothing (no gravity for it), its top at y = 60.
fn slab(app: &mut App, x: f32, velocity: Vec2) -> Entity {
    spawn_kinematic(app, Vec2::new(x, 52.0), Vec2::new(120.0, 8.0), velocity)
}

#[test]
fn a_body_sliding_on_a_body_stops_like_on_tiles() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let on_slab = spawn(
        &mut app,
        Vec2::new(260.0, 66.0),
        HALF,
        Vec2::new(200.0, 0.0),
    );
    let on_tiles = spawn(
        &mut app,
        Vec2::new(100.0, 22.0),
        HALF,
        Vec2::new(200.0, 0.0),
    );
    step(&mut app, 60);
    // Tile friction and body friction decay the speed the same way, step for step.
    let k = PhysicsConfig::default().ground_friction;
    let expected = 200.0 * (-k * DT).exp().powi(60);
    for (body, name) in [(on_slab, "on the slab"), (on_tiles, "on tiles")] {
        assert!(
            (vel(&app, body).x - expected).abs() < 1e-2,
            "{name}: {} vs {expected}",
            vel(&app, body).x
        );
    }
    step(&mut app, 120);
    assert_eq!(vel(&app, on_slab).x, 0.0, "stopped for good");
    let stopped_at = pos(&app, on_slab).x;
    step(&mut app, 30);
    assert_eq!(pos(&app, on_slab).x, stopped_at);
    assert!(flags(&app, on_slab).on_ground(), "still on the slab");
}

#[test]
fn a_rider_is_carried_along_by_a_platform_moving_sideways() {
    let mut app = app(floor_room());
    let v = Vec2::new(80.0, 0.0);
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 10);
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = v;
    step(&mut app, 120);
    assert_eq!(vel(&app, rider).x, v.x, "moves at the platform's speed");
    assert_eq!(state(&app, rider).ground_velocity, v);
    // It lagged behind while friction took hold, then kept its place on the platform.
    let offset = pos(&app, rider).x - pos(&app, platform).x;
    assert!(
        (-10.0..0.0).contains(&offset),
        "offset on the platform {offset}"
    );
    step(&mut app, 60);
    let later = pos(&app, rider).x - pos(&app, platform).x;
    assert!((later - offset).abs() < 1e-2, "{later} vs {offset}");
    assert!(flags(&app, rider).on_ground());
}

#[test]
fn a_controller_setting_its_speed_walks_at_that_speed_on_a_body() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let walker = spawn(&mut app, Vec2::new(240.0, 66.0), HALF, Vec2::ZERO);
    step(&mut app, 10);
    let start = pos(&app, walker).x;
    for _ in 0..60 {
        let v = vel(&app, walker);
        set_vel(&mut app, walker, Vec2::new(90.0, v.y));
        step(&mut app, 1);
    }
    // Friction acts after the move: each step moved the full 90 * DT.
    let walked = pos(&app, walker).x - start;
    assert!((walked - 90.0).abs() < 1e-2, "walked {walked}");
}

#[test]
fn the_friction_switch_lets_a_body_slide_on_bodies_too() {
    let mut app = app(floor_room());
    slab(&mut app, 320.0, Vec2::ZERO);
    let body = spawn_frictionless(&mut app, Vec2::new(220.0, 66.0), HALF, Vec2::new(60.0, 0.0));
    step(&mut app, 60);
    assert_eq!(vel(&app, body).x, 60.0);
    assert!(flags(&app, body).on_ground());
}

#[test]
fn zero_ground_friction_leaves_speeds_on_bodies_exactly_as_they_are() {
    let mut app = app(floor_room());
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .ground_friction = 0.0;
    let platform = slab(&mut app, 300.0, Vec2::ZERO);
    // Close to the platform's speed, but not equal: no friction means no snapping to it either.
    let v = 0.1;
    let rider = spawn(&mut app, Vec2::new(300.0, 66.0), HALF, Vec2::new(v, 0.0));
    app.world_mut().get_mut::<Velocity>(platform).unwrap().0 = Vec2::new(80.0, 0.0);
    for _ in 0..30 {
        step(&mut app, 1);
        assert_eq!(vel(&app, rider).x, v);
    }
    assert!(flags(&app, rider).on_ground());
}

#[test]
fn a_body_on_a_tile_and_a_body_at_once_gets_friction_once() {
    // A tile row one tile up (x 160 to 240) and a still box on the floor just right of it,
    // its top level with the row's: the slider stands on both.
    let mut map = floor_room();
    map.fill(IVec2::new(10, 1), IVec2::new(14, 1), TileKind::Solid);
    let mut app = app(map);
    // Box top at y = 32, the same height as the tile row's top.
    spawn(
        &mut app,
        Vec2::new(250.0, 24.0),
        Vec2::new(8.0, 8.0),
        Vec2::ZERO,
    );
    let slider = spawn(&mut app, Vec2::new(240.0, 38.0), HALF, Vec2::new(30.0, 0.0));
    step(&mut app, 1);
    let f = flags(&app, slider);
    assert!(
        f.pushes_tile(Side::Bottom) && f.pushes_object(Side::Bottom),
        "stands on both: {f:?}"
    );
    let k = PhysicsConfig::default().ground_friction;
    let once = 30.0 * (-k * DT).exp();
    assert!(
        (vel(&app, slider).x - once).abs() < 1e-3,
        "{} vs {once}",
        vel(&app, slider).x
    );
}

#[test]
fn response_never_pushes_a_body_into_a_tile() {
    // A body pressed against the wall is hit from the other side by a faster body: its share
    // of the overlap would push it into the wall; the tile sweep stops it at the face.
    let mut map = floor_room();
    map.fill(IVec2::new(10, 1), IVec2::new(10, 5), TileKind::Solid);
    let mut app = app_without_gravity(map);
    let wall_face = 176.0;
    let pinned = spawn(
        &mut app,
        Vec2::new(wall_face + 6.0, 40.0),
        HALF,
        Vec2::new(-60.0, 0.0),
    );
    let hitter = spawn(
        &mut app,
        Vec2::new(wall_face + 30.0, 40.0),
        HALF,
        Vec2::new(-900.0, 0.0),
    );
    step(&mut app, 5);
    assert!(
        pos(&app, pinned).x >= wall_face + 6.0 - 1e-3,
        "pushed into the wall: {}",
        pos(&app, pinned)
    );
    let _ = hitter;
}

/// Puts bodies into another table.
#[derive(Component)]
struct Marker;

#[test]
fn results_are_bit_identical_with_one_thread_and_with_the_task_pool() {
    let run = |parallel_min_bodies: usize| {
        let mut app = crate::determinism::busy_scene();
        // Bodies in three tables (archetypes) of different sizes, so the per-body stages cut
        // several tables into pieces.
        let world = app.world_mut();
        let bodies: Vec<Entity> = world
            .query::<(Entity, &Aabb)>()
            .iter(world)
            .map(|(e, _)| e)
            .collect();
        for (i, &e) in bodies.iter().enumerate() {
            match i % 7 {
                0 | 3 => {
                    world.entity_mut(e).insert(Marker);
                }
                5 => {
                    world.entity_mut(e).insert((Marker, Name::new("odd one")));
                }
                _ => {}
            }
        }
        app.world_mut()
            .resource_mut::<PhysicsConfig>()
            .parallel_min_bodies = parallel_min_bodies;
        step(&mut app, 200);
        let landed: Vec<Entity> = drain_landed(&mut app).iter().map(|l| l.entity).collect();
        let started: Vec<_> = drain::<CollisionStarted>(&mut app);
        let ended: Vec<_> = drain::<CollisionEnded>(&mut app);
        let world = app.world_mut();
        let mut q = world.query::<(&Aabb, &Velocity, &Contacts)>();
        let bodies: Vec<_> = q
            .iter(world)
            .map(|(a, v, c)| {
                let cs: Vec<(Entity, u32, u32)> = c
                    .iter()
                    .map(|d| (d.other, d.overlap.x.to_bits(), d.overlap.y.to_bits()))
                    .collect();
                (
                    a.center.to_array().map(f32::to_bits),
                    v.to_array().map(f32::to_bits),
                    cs,
                )
            })
            .collect();
        (bodies, landed, started, ended)
    };
    let single = run(usize::MAX);
    let pooled = run(0);
    assert!(
        bevy::tasks::ComputeTaskPool::get().thread_num() > 1,
        "the pool really has threads"
    );
    assert!(
        single.0.iter().any(|b| !b.2.is_empty()),
        "the scene has contacts to compare"
    );
    assert!(
        !single.1.is_empty(),
        "and landings, written in entity order"
    );
    assert!(
        !single.2.is_empty() && !single.3.is_empty(),
        "and collision events"
    );
    assert_eq!(single, pooled);
}
