//! The differential test: random scenes through the plugin's fast path and through the
//! reference step, compared bit for bit at every step.

use core::time::Duration;

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::ecs::message::Messages;
use bevy::prelude::*;
use proptest::prelude::*;

use super::ReferencePhysicsPlugin;
use crate::layers::{CollisionLayers, LayerMask};
use crate::prelude::*;
use crate::rollback::PhysicsSnapshot;
use crate::test_rng::unit_floats;

const TILE: f32 = 16.0;
const W: i32 = 24;
const H: i32 = 14;

/// An app with the fast path (`PhysicsPlugin`, with or without rest skipping) or the
/// reference step.
fn app(reference: bool, map: &TileMap, config: &PhysicsConfig, skip: bool) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(4),
    }))
    .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(
        1.0 / 60.0,
    )))
    .insert_resource(map.clone())
    .insert_resource(config.clone());
    if reference {
        app.add_plugins(ReferencePhysicsPlugin);
    } else if skip {
        app.add_plugins(PhysicsPlugin::default());
    } else {
        app.add_plugins(
            PhysicsPlugin::default()
                .build()
                .disable::<RestSkippingPlugin>(),
        );
    }
    app.finish();
    app.cleanup();
    app
}

/// A random map: a solid floor and walls, and scattered solid, one-way, ladder and slope tiles.
fn random_map(u: &mut impl FnMut() -> f32) -> TileMap {
    let mut map = TileMap::new(W as u32, H as u32, TILE);
    for x in 0..W {
        map.set(x, 0, TileKind::Solid);
    }
    for y in 0..H {
        map.set(0, y, TileKind::Solid);
        map.set(W - 1, y, TileKind::Solid);
    }
    for y in 1..H - 1 {
        for x in 1..W - 1 {
            let r = u();
            let kind = if r < 0.06 {
                TileKind::Solid
            } else if r < 0.10 {
                TileKind::OneWay
            } else if r < 0.13 {
                TileKind::Ladder
            } else if r < 0.17 {
                // Any slope: the kinds after the four plain ones.
                let slopes = &TileKind::CHARS[4..];
                slopes[(u() * slopes.len() as f32) as usize % slopes.len()].1
            } else {
                continue;
            };
            map.set(x, y, kind);
        }
    }
    map
}

/// A random body: a box somewhere over the map (sometimes overlapping tiles or others), a
/// velocity, and now and then kinematic, with switches, layers or contacts listed.
fn random_body(u: &mut impl FnMut() -> f32) -> impl Bundle {
    let center = Vec2::new(
        TILE + u() * (W - 2) as f32 * TILE,
        TILE + u() * (H - 2) as f32 * TILE,
    );
    let half = Vec2::new(2.0 + u() * 12.0, 2.0 + u() * 12.0);
    let velocity = Velocity(Vec2::new(u() * 600.0 - 300.0, u() * 600.0 - 300.0));
    let switches = BodySwitches {
        world_collision: u() > 0.1,
        gravity: u() > 0.1,
        friction: u() > 0.2,
        drop_through: u() < 0.15,
        climbing: u() < 0.15,
        walk_slopes: u() > 0.2,
    };
    let layers = if u() < 0.3 {
        let mask = |r: f32| LayerMask((1 + (r * 3.0) as u32) & 3);
        CollisionLayers::new(mask(u()), mask(u()))
    } else {
        CollisionLayers::default()
    };
    (Aabb::new(center, half), velocity, switches, layers)
}

/// The body's index in `bodies` (the two apps' entities differ: the plugins spawn their own).
fn index_of(bodies: &[Entity], e: Entity) -> Option<usize> {
    bodies.iter().position(|&b| b == e)
}

/// What is compared of every body: its whole state, floats by their bits (through `Debug`,
/// which tells -0.0 from 0.0 and prints every distinct value differently), bodies by their
/// index in `bodies`.
fn states(app: &mut App, bodies: &[Entity]) -> Vec<String> {
    let world = app.world();
    bodies
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let Ok(entity) = world.get_entity(e) else {
                return format!("#{i}: despawned");
            };
            let contacts = entity.get::<Contacts>().map(|c| {
                c.iter()
                    .map(|c| {
                        (
                            index_of(bodies, c.other),
                            CollisionData {
                                other: Entity::PLACEHOLDER,
                                ..*c
                            },
                        )
                    })
                    .collect::<Vec<_>>()
            });
            let state = entity.get::<BodyState>().map(|s| {
                let ground = s.ground.map(|e| index_of(bodies, e));
                (s.standing_on, s.overlaps_ladder, s.ground_velocity, ground)
            });
            format!(
                "#{i}: {:?} {:?} {:?} {:?} {:?} {contacts:?}",
                entity.get::<Aabb>(),
                entity.get::<Velocity>(),
                entity.get::<OldPosition>(),
                entity.get::<PushFlags>().map(PushFlags::bits),
                state,
            )
        })
        .collect()
}

/// The step's messages, in the order written.
fn messages(app: &mut App, bodies: &[Entity]) -> String {
    let world = app.world_mut();
    let landed: Vec<_> = (world.resource_mut::<Messages<Landed>>().drain())
        .map(|m| (index_of(bodies, m.entity), m.velocity))
        .collect();
    let squished: Vec<_> = (world.resource_mut::<Messages<Squished>>().drain())
        .map(|m| {
            (
                index_of(bodies, m.entity),
                m.vertically,
                m.horizontally,
                m.center,
                m.pressers.map(|p| match p {
                    Some(Presser::Body(e)) => Some(index_of(bodies, e)),
                    Some(Presser::Tile) => Some(Some(usize::MAX)),
                    None => None,
                }),
            )
        })
        .collect();
    format!("{landed:?} {squished:?}")
}

/// One change a game might make between two steps, applied to both apps alike.
fn churn(world: &mut World, bodies: &mut Vec<Entity>, u: &mut impl FnMut() -> f32) {
    if bodies.is_empty() {
        return;
    }
    let pick = bodies[(u() * bodies.len() as f32) as usize % bodies.len()];
    let Ok(mut body) = world.get_entity_mut(pick) else {
        return;
    };
    match (u() * 13.0) as u32 {
        0 => {
            body.insert(Velocity(Vec2::new(
                u() * 800.0 - 400.0,
                u() * 800.0 - 400.0,
            )));
        }
        1 => {
            if let Some(mut s) = body.get_mut::<BodySwitches>() {
                s.drop_through = !s.drop_through;
                s.climbing = u() < 0.5;
            }
        }
        2 => {
            if let Some(mut s) = body.get_mut::<BodySwitches>() {
                s.world_collision = !s.world_collision;
                s.gravity = u() < 0.8;
            }
        }
        3 => {
            if let Some(mut a) = body.get_mut::<Aabb>() {
                a.center = Vec2::new(u() * W as f32 * TILE, u() * H as f32 * TILE);
            }
        }
        4 => {
            // An invalid box, made valid again by a later teleport or left as it is.
            if let Some(mut a) = body.get_mut::<Aabb>() {
                a.half_extents.x = if u() < 0.5 { f32::NAN } else { 0.0 };
            }
        }
        5 => {
            body.insert(Velocity(Vec2::new(f32::NAN, 3.0)));
        }
        6 => {
            body.despawn();
        }
        7 if u() < 0.5 => {
            if body.contains::<Kinematic>() {
                body.remove::<Kinematic>();
            } else {
                body.insert(Kinematic);
            }
        }
        7 => {
            if body.contains::<OneWayPlatform>() {
                body.remove::<OneWayPlatform>();
            } else {
                body.insert(OneWayPlatform);
            }
        }
        8 => {
            let mask = LayerMask((1 + (u() * 3.0) as u32) & 3);
            body.insert(CollisionLayers::new(mask, LayerMask::ALL));
        }
        9 => {
            // Out of the simulation and back in at once, or out for good.
            let aabb = body.take::<Aabb>();
            if let Some(aabb) = aabb
                && u() < 0.5
            {
                body.insert(aabb);
            }
        }
        10 => {
            let mut map = world.resource_mut::<TileMap>();
            let (x, y) = (
                1 + (u() * (W - 2) as f32) as i32,
                1 + (u() * (H - 2) as f32) as i32,
            );
            map.set(
                x,
                y,
                if u() < 0.5 {
                    TileKind::Empty
                } else {
                    TileKind::Solid
                },
            );
        }
        11 => {
            let mut config = world.resource_mut::<PhysicsConfig>();
            config.gravity.y = -200.0 - u() * 1000.0;
            config.ground_friction = if u() < 0.3 { 0.0 } else { u() * 20.0 };
            config.relaxation_passes = [1, 2, 8][(u() * 3.0) as usize % 3];
        }
        _ => {
            let new = world.spawn(random_body(u)).id();
            if u() < 0.5 {
                world.entity_mut(new).insert(Contacts::default());
            }
            bodies.push(new);
        }
    }
}

/// What a compared run went through: contacts listed, messages written, changes made.
#[derive(Default)]
struct Seen {
    contacts: usize,
    messages: usize,
    churned: usize,
}

/// The app's bodies (entities with an `Aabb`), in entity order.
fn listed(app: &mut App) -> Vec<Entity> {
    let world = app.world_mut();
    let mut bodies: Vec<Entity> = world
        .query_filtered::<Entity, With<Aabb>>()
        .iter(world)
        .collect();
    bodies.sort();
    bodies
}

/// The scene of `seed`: its map, configuration and rest skipping, drawn from `u`.
fn scene(u: &mut impl FnMut() -> f32) -> (TileMap, PhysicsConfig, bool) {
    let map = random_map(u);
    let gravity = [
        Vec2::new(0.0, -980.0),
        Vec2::new(0.0, -400.0),
        Vec2::new(150.0, -600.0),
    ][(u() * 3.0) as usize % 3];
    let ground_friction = if u() < 0.3 { 0.0 } else { 10.0 };
    let skip = u() < 0.7;
    let config = PhysicsConfig {
        gravity,
        ground_friction,
        // The parallel passes, too.
        parallel_min_bodies: [1, 12, 2048][(u() * 3.0) as usize % 3],
        partition_cell_tiles: 1 + (u() * 4.0) as u32,
        relaxation_passes: [1, 4, 8][(u() * 3.0) as usize % 3],
        ..default()
    };
    (map, config, skip)
}

/// Spawns the scene's bodies, drawn from `u`, the same in every app of `apps`.
fn populate(u: &mut impl FnMut() -> f32, apps: &mut [&mut App]) {
    let count = 4 + (u() * 28.0) as usize;
    for _ in 0..count {
        let (kinematic, contacts, draw) = (u() < 0.15, u() < 0.5, u());
        // Now and then a pushable crate, light or heavy.
        let pushable = (!kinematic && u() < 0.25).then(|| Pushable { share: u() });
        // Mostly kinematic platforms, now and then another body.
        let one_way = u() < if kinematic { 0.5 } else { 0.05 };
        for app in apps.iter_mut() {
            let mut again = unit_floats(draw.to_bits() | 1);
            let mut body = app.world_mut().spawn(random_body(&mut again));
            if kinematic {
                body.insert(Kinematic);
            }
            if one_way {
                body.insert(OneWayPlatform);
            }
            if contacts {
                body.insert(Contacts::default());
            }
            if let Some(pushable) = pushable {
                body.insert(pushable);
            }
        }
    }
}

/// Runs the scene of `seed` in both apps for `steps` steps, comparing after every step.
fn compare(seed: u32, steps: usize) -> Result<Seen, TestCaseError> {
    let mut seen = Seen::default();
    let mut u = unit_floats(seed | 1);
    let (map, config, skip) = scene(&mut u);
    let mut fast = app(false, &map, &config, skip);
    let mut reference = app(true, &map, &config, skip);
    populate(&mut u, &mut [&mut fast, &mut reference]);
    let (mut fast_bodies, mut reference_bodies) = (listed(&mut fast), listed(&mut reference));
    for step in 0..steps {
        if step > 0 && u() < 0.5 {
            let draw = u().to_bits() | 1;
            churn(fast.world_mut(), &mut fast_bodies, &mut unit_floats(draw));
            churn(
                reference.world_mut(),
                &mut reference_bodies,
                &mut unit_floats(draw),
            );
            seen.churned += 1;
        }
        fast.world_mut().run_schedule(FixedUpdate);
        reference.world_mut().run_schedule(FixedUpdate);
        let f = states(&mut fast, &fast_bodies);
        let r = states(&mut reference, &reference_bodies);
        for (f, r) in f.iter().zip(&r) {
            prop_assert_eq!(f, r, "seed {:#x}, step {}, {:?}", seed, step, config);
        }
        let written = messages(&mut fast, &fast_bodies);
        prop_assert_eq!(
            &written,
            &messages(&mut reference, &reference_bodies),
            "step {}",
            step
        );
        seen.messages += written.matches("Some(").count();
        seen.contacts += f
            .iter()
            .map(|s| s.matches("CollisionData").count())
            .sum::<usize>();
    }
    Ok(seen)
}

/// The collision events written since the last call, as indices into `bodies`.
fn events(app: &mut App, bodies: &[Entity]) -> String {
    let world = app.world_mut();
    let started: Vec<_> = (world.resource_mut::<Messages<CollisionStarted>>().drain())
        .map(|m| (index_of(bodies, m.a), index_of(bodies, m.b)))
        .collect();
    let ended: Vec<_> = (world.resource_mut::<Messages<CollisionEnded>>().drain())
        .map(|m| (index_of(bodies, m.a), index_of(bodies, m.b)))
        .collect();
    format!("{started:?} {ended:?}")
}

/// Runs the scene of `seed` on the fast path with the game changing it for 30 steps, saves a
/// [`PhysicsSnapshot`], runs 30 more steps recording every state and message, restores the
/// snapshot and runs those 30 steps again: they must be the same, bit for bit.
fn replay(seed: u32) -> Result<(), TestCaseError> {
    let mut u = unit_floats(seed | 1);
    let (map, config, skip) = scene(&mut u);
    let mut fast = app(false, &map, &config, skip);
    populate(&mut u, &mut [&mut fast]);
    let mut bodies = listed(&mut fast);
    for step in 0..30 {
        if step > 0 && u() < 0.5 {
            churn(
                fast.world_mut(),
                &mut bodies,
                &mut unit_floats(u().to_bits() | 1),
            );
        }
        fast.world_mut().run_schedule(FixedUpdate);
    }
    // What the game read before the snapshot.
    messages(&mut fast, &bodies);
    events(&mut fast, &bodies);
    let saved = PhysicsSnapshot::take(fast.world_mut());
    let run = |fast: &mut App| {
        (0..30)
            .map(|_| {
                fast.world_mut().run_schedule(FixedUpdate);
                let written = (messages(fast, &bodies), events(fast, &bodies));
                (states(fast, &bodies), written)
            })
            .collect::<Vec<_>>()
    };
    let first = run(&mut fast);
    saved
        .restore(fast.world_mut())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let again = run(&mut fast);
    for (step, (a, b)) in first.iter().zip(&again).enumerate() {
        prop_assert_eq!(a, b, "seed {:#x}, step {} after the restore", seed, step);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The fast path and the reference step agree, bit for bit, on random scenes with kinematic
    /// bodies, switches, layers, one-way platforms, ladders and a game changing things between
    /// steps (velocities, switches, teleports, invalid boxes, despawns, spawns, removed boxes,
    /// layers, tiles, gravity and friction).
    #[test]
    fn the_fast_path_takes_every_body_where_the_reference_step_does(seed in any::<u32>()) {
        compare(seed, 60)?;
    }

    /// A restored snapshot steps as the world stepped after it was taken, bit for bit: states,
    /// contacts and messages (collision events, landings, squishes, sensors), on random scenes
    /// the game changed before the snapshot.
    #[test]
    fn a_restored_snapshot_steps_as_the_original_did(seed in any::<u32>()) {
        replay(seed)?;
    }
}

/// The compared scenes are not idle: bodies touch, land and get squished, and the game changes
/// them between steps.
#[test]
fn the_compared_scenes_have_contacts_messages_and_changes() {
    let mut all = Seen::default();
    for seed in 1..=16u32 {
        let seen = compare(seed.wrapping_mul(0x9E37_79B9), 60).expect("the two steps agree");
        all.contacts += seen.contacts;
        all.messages += seen.messages;
        all.churned += seen.churned;
    }
    assert!(
        all.contacts > 1000 && all.messages > 50 && all.churned > 300,
        "{} contacts, {} messages, {} changes",
        all.contacts,
        all.messages,
        all.churned
    );
}

/// Riders carried by platforms that reverse on both axes (stacks of them, on and off friction)
/// and bodies crushed by a descending platform and between closing walls: the carry and the
/// squeeze by kinematic bodies, which random scenes meet only now and then, agree bit for bit,
/// with rest skipping and without.
#[test]
fn carried_and_crushed_bodies_move_the_same_in_both() {
    let mut map = TileMap::new(W as u32, H as u32, TILE);
    map.fill(IVec2::new(0, 0), IVec2::new(W - 1, 0), TileKind::Solid);
    let mut squeezes = 0;
    for (skip, relaxation_passes) in [(true, 4), (false, 4), (true, 1)] {
        let config = PhysicsConfig {
            relaxation_passes,
            ..default()
        };
        let mut apps = [
            app(false, &map, &config, skip),
            app(true, &map, &config, skip),
        ];
        let mut platforms = Vec::new();
        for app in &mut apps {
            let world = app.world_mut();
            let mut kinematic = |center: Vec2, half: Vec2, v: Vec2| {
                let e = world.spawn((Aabb::new(center, half), Velocity(v), Kinematic));
                e.id()
            };
            let lift = kinematic(Vec2::new(80.0, 60.0), Vec2::new(30.0, 4.0), Vec2::ZERO);
            let crusher = kinematic(Vec2::new(250.0, 52.0), Vec2::new(20.0, 4.0), Vec2::ZERO);
            let wall = Vec2::new(4.0, 20.0);
            kinematic(Vec2::new(300.0, 36.0), wall, Vec2::new(50.0, 0.0));
            kinematic(Vec2::new(350.0, 36.0), wall, Vec2::new(-50.0, 0.0));
            platforms.push((lift, crusher));
            let mut body = |center: Vec2, half: Vec2, friction: bool| {
                let switches = BodySwitches {
                    friction,
                    ..default()
                };
                world.spawn((Aabb::new(center, half), Velocity::default(), switches));
            };
            body(Vec2::new(70.0, 70.0), Vec2::splat(6.0), true);
            body(Vec2::new(72.0, 84.0), Vec2::splat(6.0), true);
            body(Vec2::new(95.0, 69.0), Vec2::new(5.0, 5.0), false);
            body(Vec2::new(250.0, 22.0), Vec2::splat(6.0), true);
            body(Vec2::new(325.0, 22.0), Vec2::splat(6.0), true);
        }
        let lists = [listed(&mut apps[0]), listed(&mut apps[1])];
        for step in 0..240 {
            for (app, &(lift, crusher)) in apps.iter_mut().zip(&platforms) {
                let world = app.world_mut();
                if step >= 20 && step % 30 == 20 {
                    let turn = if (step / 30) % 2 == 0 { 1.0 } else { -1.0 };
                    world.get_mut::<Velocity>(lift).unwrap().0 = Vec2::new(50.0, 35.0) * turn;
                }
                if step == 10 {
                    world.get_mut::<Velocity>(crusher).unwrap().0 = Vec2::new(0.0, -40.0);
                }
                world.run_schedule(FixedUpdate);
            }
            let [fast, reference] = &mut apps;
            assert_eq!(
                states(fast, &lists[0]),
                states(reference, &lists[1]),
                "step {step}, skipping {skip}, {relaxation_passes} passes"
            );
            let written = messages(fast, &lists[0]);
            assert_eq!(written, messages(reference, &lists[1]), "step {step}");
            // Pressers are listed as `Some(Some(index))`, tiles as `Some(Some(usize::MAX))`.
            squeezes += written.matches("Some(Some(").count()
                - written
                    .matches(&format!("Some(Some({}", usize::MAX))
                    .count();
        }
    }
    // Both squeezes are reported once in each of the three runs: the crusher presses one
    // side, the walls two.
    assert_eq!(squeezes, 3 * 3, "pressing bodies named in the messages");
}

/// A row of 150 crates on the floor, each 2 units into the next, then walking to and fro:
/// relaxation's horizontal phase starts from far more bodies than the few it sweeps on one
/// thread, so the fast path sweeps its two orders at once on the workers' threads, and agrees
/// with the reference step bit for bit, with rest skipping and without.
#[test]
fn a_long_row_relaxes_the_same_in_both_with_both_orders_at_once() {
    let map = walled_box(0, 130);
    let crates: Vec<_> = (0..150)
        .map(|i| (Vec2::new(40.0 + 10.0 * i as f32, 22.0), Vec2::splat(6.0)))
        .collect();
    let drive = |step: usize, i: usize, v: &mut Vec2| {
        v.x = 90.0 * (0.2 * step as f32 + 0.3 * i as f32).sin();
    };
    let moved = relax_the_same_in_both(&map, 8, &crates, 40, drive);
    assert!(moved > 1.0, "the row spread out: a crate moved {moved}");
}

/// A crowd walking into the walls and jumping, as the benchmark's crowd (`BENCH_SCENE.md`),
/// relaxed with 4 passes on many small cells and the workers' threads: the relaxation searches of
/// a crowd (every body filed, the pairs the response and the passes make) agree bit for bit,
/// with rest skipping and without.
#[test]
fn a_walking_jumping_crowd_relaxes_the_same_in_both() {
    crowd_relaxes_the_same_in_both(0);
}

/// The same crowd 1 300 tiles (20 800 units) from the origin, where a float step of a
/// coordinate (about 0.002) is larger than the contact tolerance (0.001): the pairs the fast
/// path's first reading skips (both bodies quiet) are still ones the reference step settles
/// nowhere.
#[test]
fn a_walking_jumping_crowd_far_from_the_origin_relaxes_the_same_in_both() {
    crowd_relaxes_the_same_in_both(1300);
}

/// The crowd of the tests above in a box of `W` by `H` tiles whose left wall is tile column
/// `left`.
fn crowd_relaxes_the_same_in_both(left: i32) {
    let map = walled_box(left, W);
    let x0 = left as f32 * TILE;
    let mut u = unit_floats(0x5EED_C0DE);
    let crowd: Vec<_> = (0..72)
        .map(|i| {
            let center = Vec2::new(
                x0 + 26.0 + 28.0 * (i % 12) as f32,
                26.0 + 28.0 * (i / 12) as f32,
            );
            (center, Vec2::new(4.0 + 6.0 * u(), 4.0 + 6.0 * u()))
        })
        .collect();
    let drive = |step: usize, i: usize, v: &mut Vec2| {
        v.x = 120.0 * (0.05 * step as f32 + i as f32).sin();
        if step % 90 == i % 90 {
            v.y = 400.0;
        }
    };
    let moved = relax_the_same_in_both(&map, 2, &crowd, 150, drive);
    assert!(moved > 10.0, "the crowd walked: a body moved {moved}");
}

/// A map as wide as it needs for a box of `width` by `H` tiles whose left wall is tile column
/// `left`: a solid floor and two solid walls.
fn walled_box(left: i32, width: i32) -> TileMap {
    let right = left + width - 1;
    let mut map = TileMap::new((right + 1) as u32, H as u32, TILE);
    map.fill(IVec2::new(left, 0), IVec2::new(right, 0), TileKind::Solid);
    for wall in [left, right] {
        map.fill(
            IVec2::new(wall, 0),
            IVec2::new(wall, H - 1),
            TileKind::Solid,
        );
    }
    map
}

/// Bodies (centre, half extents) on `map`, relaxed with 4 passes on partition cells of
/// `cell_tiles` tiles and the workers' threads, their speeds set by `drive(step, body, velocity)`
/// before each of `steps` steps: the fast path and the reference step agree bit for bit at
/// every step, with rest skipping and without. Returns the furthest any body of the fast path
/// got from where it started.
fn relax_the_same_in_both(
    map: &TileMap,
    cell_tiles: u32,
    bodies: &[(Vec2, Vec2)],
    steps: usize,
    drive: impl Fn(usize, usize, &mut Vec2),
) -> f32 {
    let mut moved = 0.0f32;
    for skip in [true, false] {
        let config = PhysicsConfig {
            relaxation_passes: 4,
            partition_cell_tiles: cell_tiles,
            parallel_min_bodies: 1,
            ..default()
        };
        let mut apps = [
            app(false, map, &config, skip),
            app(true, map, &config, skip),
        ];
        let lists = apps.each_mut().map(|app| {
            let world = app.world_mut();
            let spawn = |&(center, half): &(Vec2, Vec2)| {
                world
                    .spawn((Aabb::new(center, half), Velocity::default()))
                    .id()
            };
            bodies.iter().map(spawn).collect::<Vec<_>>()
        });
        for step in 0..steps {
            for (app, list) in apps.iter_mut().zip(&lists) {
                let world = app.world_mut();
                for (i, &body) in list.iter().enumerate() {
                    drive(step, i, &mut world.get_mut::<Velocity>(body).unwrap().0);
                }
                world.run_schedule(FixedUpdate);
            }
            let [fast, reference] = &mut apps;
            assert_eq!(
                states(fast, &lists[0]),
                states(reference, &lists[1]),
                "step {step}, skipping {skip}"
            );
            for (&body, &(start, _)) in lists[0].iter().zip(bodies) {
                let center = fast.world().get::<Aabb>(body).unwrap().center;
                moved = moved.max(center.distance(start));
            }
        }
    }
    moved
}
