//! Resting bodies are left out of the step ([`RestSkippingPlugin`]) without
//! changing what happens: the same pile run with and without the skip is bit for bit the same,
//! through settling, platforms pushing into it, and a game writing to bodies between steps.

use bevy::ecs::message::Messages;
use bevy::prelude::*;

use crate::common::*;

#[derive(Component)]
struct Lift;

/// Reverses the lifts' velocities every 90 steps.
fn swing(mut steps: Local<u32>, mut lifts: Query<&mut Velocity, With<Lift>>) {
    *steps += 1;
    if steps.is_multiple_of(90) {
        for mut v in &mut lifts {
            v.0 = -v.0;
        }
    }
}

/// A walled room with a one-way shelf, 600 boxes of assorted sizes dropped in columns (they
/// settle into a pile) and three kinematic lifts sliding through the bottom of the pile.
/// Every pass runs on the task pool from 64 bodies, and collision events are on.
fn pile(skip: bool) -> (App, Vec<Entity>) {
    let mut map = empty_map(48, 24);
    map.fill(IVec2::new(0, 0), IVec2::new(47, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 23), TileKind::Solid);
    map.fill(IVec2::new(47, 0), IVec2::new(47, 23), TileKind::Solid);
    map.fill(IVec2::new(6, 8), IVec2::new(17, 8), TileKind::OneWay);
    map.fill(IVec2::new(28, 10), IVec2::new(39, 10), TileKind::Solid);
    let mut app = app_skipping(map, skip);
    {
        let mut config = app.world_mut().resource_mut::<PhysicsConfig>();
        config.parallel_min_bodies = 64;
        config.partition_cell_tiles = 4;
    }
    app.add_systems(FixedUpdate, swing.before(PhysicsSystems::Integrate));

    let mut next = unit_floats(0x9E37_79B9);
    let mut bodies = Vec::new();
    for i in 0..600 {
        let half = Vec2::new(3.0 + 5.0 * next(), 3.0 + 5.0 * next());
        let vx = 60.0 * next() - 30.0;
        let (column, layer) = (i % 30, i / 30);
        let center = Vec2::new(40.0 + 22.0 * column as f32, 40.0 + 18.0 * layer as f32);
        bodies.push(spawn(&mut app, center, half, Vec2::new(vx, 0.0)));
    }
    for k in 0..3 {
        let center = Vec2::new(150.0 + 220.0 * k as f32, 36.0);
        let lift = spawn_kinematic(&mut app, center, Vec2::new(20.0, 4.0), Vec2::new(40.0, 0.0));
        app.world_mut().entity_mut(lift).insert(Lift);
    }
    (app, bodies)
}

/// One body's centre, velocity and ground velocity (as bits), flags and contacts (the other
/// body and the overlap's bits).
type BodyBits = (Entity, [u32; 6], u16, Vec<(Entity, u32, u32)>);

/// Everything the step decides about every body, as bits, with its contacts.
fn outcome(app: &mut App) -> Vec<BodyBits> {
    let mut q = app.world_mut().query::<(
        Entity,
        &Aabb,
        &Velocity,
        &PushFlags,
        &BodyState,
        Option<&Contacts>,
    )>();
    let mut all: Vec<_> = q
        .iter(app.world())
        .map(|(e, a, v, f, s, c)| {
            let bits = [
                a.center.x.to_bits(),
                a.center.y.to_bits(),
                v.x.to_bits(),
                v.y.to_bits(),
                s.ground_velocity.x.to_bits(),
                s.ground_velocity.y.to_bits(),
            ];
            let contacts = c
                .map(|c| {
                    c.iter()
                        .map(|d| (d.other, d.overlap.x.to_bits(), d.overlap.y.to_bits()))
                        .collect()
                })
                .unwrap_or_default();
            (e, bits, f.bits(), contacts)
        })
        .collect();
    all.sort_by_key(|b| b.0);
    all
}

/// This step's messages, as (kind, entities) in the order written.
fn messages(app: &mut App) -> Vec<(u8, Entity, Entity)> {
    let world = app.world_mut();
    let mut out: Vec<(u8, Entity, Entity)> = Vec::new();
    out.extend((world.resource_mut::<Messages<Landed>>().drain()).map(|m| (0, m.entity, m.entity)));
    out.extend((world.resource_mut::<Messages<CollisionStarted>>().drain()).map(|m| (1, m.a, m.b)));
    out.extend((world.resource_mut::<Messages<CollisionEnded>>().drain()).map(|m| (2, m.a, m.b)));
    out
}

/// What a game does to some bodies between steps, the same in both runs.
fn meddle(app: &mut App, bodies: &[Entity], at: usize) {
    let world = app.world_mut();
    match at {
        150 => {
            world.get_mut::<Velocity>(bodies[5]).unwrap().0 = Vec2::new(0.0, 400.0);
        }
        180 => {
            world.get_mut::<Aabb>(bodies[17]).unwrap().center += Vec2::new(30.0, 60.0);
        }
        210 => {
            world.get_mut::<BodySwitches>(bodies[33]).unwrap().gravity = false;
            world.get_mut::<Velocity>(bodies[33]).unwrap().0 = Vec2::new(0.0, 30.0);
        }
        240 => {
            let only_ground = CollisionLayers::new(LayerMask(2), LayerMask(2));
            world.entity_mut(bodies[48]).insert(only_ground);
        }
        270 => {
            world.despawn(bodies[60]);
        }
        300 => {
            world.spawn((
                Aabb::new(Vec2::new(300.0, 200.0), Vec2::splat(5.0)),
                Velocity::default(),
                Contacts::default(),
            ));
        }
        330 => {
            world.get_mut::<Aabb>(bodies[71]).unwrap().half_extents *= 1.5;
        }
        345 => {
            for &b in &bodies[100..130] {
                world.get_mut::<BodySwitches>(b).unwrap().drop_through = true;
            }
        }
        360 => {
            *world.get_mut::<CollisionLayers>(bodies[48]).unwrap() = CollisionLayers::default();
        }
        390 => {
            // A support's speed the game sets (as a conveyor would): most of these rest.
            for &b in &bodies[140..160] {
                world.get_mut::<BodyState>(b).unwrap().ground_velocity = Vec2::new(40.0, 90.0);
            }
        }
        400 => {
            // Flags the game clears: the next step starts from no contact last step.
            for &b in &bodies[160..190] {
                *world.get_mut::<PushFlags>(b).unwrap() = PushFlags::default();
            }
        }
        _ => {}
    }
}

#[test]
fn resting_bodies_are_skipped_without_changing_the_outcome() {
    skipping_changes_nothing(0);
}

/// Relaxation reads resting bodies where they rest, and moves some of them.
#[test]
fn resting_bodies_are_skipped_without_changing_the_outcome_with_relaxation() {
    skipping_changes_nothing(8);
}

/// The pile with and without rest skipping, with `passes` relaxation passes: the same bodies,
/// contacts, messages and pairs at every step, and far fewer pairs tested when skipping.
fn skipping_changes_nothing(passes: u32) {
    let (mut skipping, bodies) = pile(true);
    let (mut full, same_bodies) = pile(false);
    assert_eq!(bodies, same_bodies);
    for app in [&mut skipping, &mut full] {
        let mut config = app.world_mut().resource_mut::<PhysicsConfig>();
        config.relaxation_passes = passes;
    }
    let (mut tested_skipping, mut tested_full) = (0, 0);
    for at in 0..420 {
        meddle(&mut skipping, &bodies, at);
        meddle(&mut full, &bodies, at);
        step(&mut skipping, 1);
        step(&mut full, 1);
        assert_eq!(
            outcome(&mut skipping),
            outcome(&mut full),
            "bodies after step {at}"
        );
        assert_eq!(
            messages(&mut skipping),
            messages(&mut full),
            "messages of step {at}"
        );
        let stats = |app: &App| *app.world().resource::<PhysicsStats>();
        let (s, f) = (stats(&skipping), stats(&full));
        assert_eq!(s.pairs_found, f.pairs_found, "pairs of step {at}");
        if at >= 360 {
            tested_skipping += s.pairs_tested;
            tested_full += f.pairs_tested;
        }
    }
    // The skip does skip: once the pile has settled (the lifts still push into it), far fewer
    // pairs are tested.
    assert!(
        tested_skipping * 3 < tested_full * 2,
        "pairs tested over the last 60 steps: {tested_skipping} skipping, {tested_full} not"
    );
    verify_partition(&mut skipping).expect("the partition agrees with the bodies");
}

#[test]
fn a_resting_body_is_left_unwritten_until_something_touches_it() {
    let mut app = app(ascii("........\n........\n........\n########"));
    let resting = still_box(&mut app, Vec2::new(40.0, 22.0));
    step(&mut app, 3);
    let written = last_changed::<Velocity>(&app, resting);
    step(&mut app, 5);
    assert_eq!(last_changed::<Velocity>(&app, resting), written, "left out");
    assert!(flags(&app, resting).on_ground(), "still on the ground");
    // A box dropped onto it: it is pushed (its flags say so) although it was resting.
    let dropped = spawn(
        &mut app,
        Vec2::new(40.0, 60.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 40);
    assert!(
        flags(&app, resting).pushes_object(Side::Top),
        "the box on it"
    );
    assert_eq!(pos(&app, dropped), Vec2::new(40.0, 34.0), "stands on it");
    assert_eq!(pos(&app, resting), Vec2::new(40.0, 22.0));
    // A velocity set by the game wakes it.
    set_vel(&mut app, resting, Vec2::new(120.0, 0.0));
    step(&mut app, 1);
    assert!(pos(&app, resting).x > 40.0, "moved: {}", pos(&app, resting));
}

#[test]
fn a_settled_pile_writes_only_the_bodies_near_motion() {
    // The lifts keep pushing into the pile's bottom, so bodies near them move at every step;
    // the rest is left out, its components not even written.
    let (mut app, bodies) = pile(true);
    step(&mut app, 300);
    let mut most = 0;
    for _ in 0..100 {
        let before = app.world_mut().change_tick();
        step(&mut app, 1);
        let mut q = app.world_mut().query::<Ref<Velocity>>();
        let written = (q.iter(app.world()))
            .filter(|v| v.last_changed().get() > before.get())
            .count();
        most = most.max(written);
    }
    assert!(
        most * 4 < bodies.len(),
        "at most {most} of {} bodies written per step",
        bodies.len()
    );
}

/// Sets the velocity of every body with `Poke` in the middle of a step (after `Integrate`).
fn poke_mid_step(mut bodies: Query<&mut Velocity, With<Poke>>) {
    for mut v in &mut bodies {
        v.0 = Vec2::new(90.0, 0.0);
    }
}

#[derive(Component)]
struct Poke;

#[test]
fn a_resting_body_written_in_the_middle_of_a_step_moves_from_the_next_step() {
    // Games set velocities before `Integrate`; one written between the stages reaches a body
    // that the step left out (it was resting) at the next step, which compares it.
    let mut app = app(ascii("........\n........\n........\n########"));
    app.add_systems(
        FixedUpdate,
        poke_mid_step
            .after(PhysicsSystems::Integrate)
            .before(PhysicsSystems::TileCollide),
    );
    let body = still_box(&mut app, Vec2::new(40.0, 22.0));
    step(&mut app, 5);
    assert_eq!(pos(&app, body), Vec2::new(40.0, 22.0), "resting");
    app.world_mut().entity_mut(body).insert(Poke);
    step(&mut app, 1);
    app.world_mut().entity_mut(body).remove::<Poke>();
    step(&mut app, 1);
    assert!(pos(&app, body).x > 40.0, "moved: {}", pos(&app, body));
}

#[test]
fn a_resting_body_whose_switches_or_layers_are_set_wakes() {
    // Neither is written by the physics, so the game's write is what wakes the body: nothing
    // else about it changed, and without the wake it would stay where it rests.
    let mut app = app(ascii(
        "........\n........\n........\n........\n.----...\n........\n........\n########",
    ));
    let on_shelf = still_box(&mut app, Vec2::new(40.0, 76.0));
    let lower = still_box(&mut app, Vec2::new(104.0, 22.0));
    let upper = still_box(&mut app, Vec2::new(104.0, 34.0));
    // Its layers are there from the start, so the change below moves it to no other table.
    let layers = CollisionLayers::default();
    app.world_mut().entity_mut(upper).insert(layers);
    step(&mut app, 20);
    let written = |app: &App| [on_shelf, upper].map(|e| last_changed::<Velocity>(app, e));
    let rested = written(&app);
    step(&mut app, 5);
    assert_eq!(written(&app), rested, "both resting: left out");
    assert_eq!(pos(&app, on_shelf).y, 70.0, "on the one-way shelf");
    assert_eq!(pos(&app, upper), Vec2::new(104.0, 34.0), "stacked");

    // Dropping through the shelf: it falls to the floor.
    switches(&mut app, on_shelf).drop_through = true;
    // Layers that pair with nothing: the upper box falls through the lower one to the floor.
    let alone = CollisionLayers::new(LayerMask(2), LayerMask::NONE);
    *app.world_mut().get_mut::<CollisionLayers>(upper).unwrap() = alone;
    step(&mut app, 40);
    assert_eq!(pos(&app, on_shelf).y, 22.0, "fell through the shelf");
    assert_eq!(pos(&app, upper).y, 22.0, "fell through the lower box");
    assert_eq!(pos(&app, lower), Vec2::new(104.0, 22.0), "which stays");
}

/// Rest skipping turned off and on again while the pile runs (`RestSkipping::enabled`)
/// changes nothing either, and does skip again once back on.
#[test]
fn rest_skipping_turned_off_and_on_at_run_time_changes_nothing() {
    let (mut toggled, bodies) = pile(true);
    let (mut full, _) = pile(false);
    let awake = |app: &App| app.world().resource::<PhysicsStats>().awake_bodies;
    for at in 0..420 {
        if at == 120 || at == 300 {
            let mut skipping = toggled.world_mut().resource_mut::<RestSkipping>();
            skipping.enabled = at == 300;
        }
        meddle(&mut toggled, &bodies, at);
        meddle(&mut full, &bodies, at);
        step(&mut toggled, 1);
        step(&mut full, 1);
        assert_eq!(
            outcome(&mut toggled),
            outcome(&mut full),
            "bodies after step {at}"
        );
        if (120..300).contains(&at) {
            assert_eq!(
                awake(&toggled),
                awake(&full),
                "every body processed, step {at}"
            );
        }
    }
    assert!(
        awake(&toggled) * 2 < awake(&full),
        "back on, most bodies are left out: {} of {}",
        awake(&toggled),
        awake(&full)
    );
}

#[test]
fn the_stats_count_the_bodies_the_step_processed_in_full() {
    let stats = |app: &App| *app.world().resource::<PhysicsStats>();
    for skip in [true, false] {
        let mut app = app_skipping(ascii("........\n........\n........\n########"), skip);
        let boxes: Vec<Entity> = (0..3)
            .map(|i| still_box(&mut app, Vec2::new(24.0 + 24.0 * i as f32, 22.0)))
            .collect();
        step(&mut app, 10);
        let settled = stats(&app);
        assert_eq!(settled.bodies, 3);
        // Left out once settled; with the skip off, every body is processed at every step.
        assert_eq!(
            settled.awake_bodies,
            if skip { 0 } else { 3 },
            "skip {skip}"
        );
        set_vel(&mut app, boxes[1], Vec2::new(30.0, 0.0));
        step(&mut app, 1);
        assert_eq!(
            stats(&app).awake_bodies,
            if skip { 1 } else { 3 },
            "skip {skip}"
        );
    }
}

/// A body given back its `Aabb` is filed in the partition again, counted and found, and holds
/// up a body dropped on it, with resting bodies skipped or not.
#[test]
fn a_body_given_back_its_aabb_is_partitioned_again_whether_or_not_resting_bodies_are_skipped() {
    for skip in [true, false] {
        let mut app = app_skipping(
            ascii("..........\n..........\n..........\n##########"),
            skip,
        );
        let resting = still_box(&mut app, Vec2::new(40.0, 22.0));
        step(&mut app, 30);
        let filed = app.world().get::<GridAreas>(resting).unwrap().clone();
        let taken = app.world_mut().entity_mut(resting).take::<Aabb>().unwrap();
        step(&mut app, 1);
        app.world_mut().entity_mut(resting).insert(taken);
        step(&mut app, 1);
        assert_eq!(
            app.world().get::<GridAreas>(resting).unwrap().range(),
            filed.range(),
            "skip {skip}: filed again"
        );
        assert_eq!(verify_partition(&mut app), Ok(()), "skip {skip}");
        assert_eq!(
            app.world().resource::<PhysicsStats>().bodies,
            1,
            "skip {skip}"
        );
        let found: Vec<Entity> = with_query(&mut app, |q| {
            q.point(Vec2::new(40.0, 22.0), default()).collect()
        });
        assert_eq!(found, [resting], "skip {skip}");
        // Dropped on it, a body lands on its top (y = 28), not inside it.
        let dropped = still_box(&mut app, Vec2::new(40.0, 60.0));
        step(&mut app, 60);
        assert_eq!(pos(&app, dropped).y, 28.0 + 6.0, "skip {skip}");
        assert_eq!(pos(&app, resting), Vec2::new(40.0, 22.0), "skip {skip}");
    }
}
