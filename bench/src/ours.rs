//! The scene in bevy_platformer_physics.

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::timing::{STAGES, StageTimingPlugin, StageTimings};

use crate::harness::{Pools, StepCount, base_app_with, count_steps};
use crate::scene::{CrowdStep, PLATFORM_HALF, Scene, Walker, reverses_after};

#[derive(Component)]
struct Platform;

/// A dynamic body of the scene, with its index in [`Scene::bodies`].
#[derive(Component)]
struct Dynamic(u32);

/// How our plugin runs in the comparison: the engine names `ours`, `ours-no-skip` and
/// `ours-bevy-pools`.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// With `RestSkippingPlugin` (left out in `ours-no-skip`, or with `PILE_NO_SKIP=1`).
    pub skip_resting_bodies: bool,
    /// Every core in the compute pool, or Bevy's default pools (`ours-bevy-pools`).
    pub pools: Pools,
}

impl Variant {
    /// The variant an engine name stands for; `None` for the other engines.
    pub fn named(engine: &str) -> Option<Variant> {
        let skip = std::env::var_os("PILE_NO_SKIP").is_none();
        let (skip_resting_bodies, pools) = match engine {
            "ours" => (skip, Pools::EveryCore),
            "ours-no-skip" => (false, Pools::EveryCore),
            "ours-bevy-pools" => (skip, Pools::BevyDefault),
            _ => return None,
        };
        Some(Variant {
            skip_resting_bodies,
            pools,
        })
    }
}

pub fn build(scene: &Scene, cell_tiles: u32, variant: Variant) -> App {
    let mut app = base_app_with(variant.pools);
    let mut physics = PhysicsPlugin::default().build();
    if !variant.skip_resting_bodies {
        // On by default (it does not change the outcome).
        physics = physics.disable::<RestSkippingPlugin>();
    }
    app.add_plugins(physics)
        .insert_resource(PhysicsConfig {
            gravity: Vec2::new(0.0, crate::scene::GRAVITY),
            partition_cell_tiles: cell_tiles,
            // Nothing reads them, and the peers write none unless asked (rapier's
            // `ActiveEvents`, avian's `CollisionEventsEnabled`). `PILE_EVENTS=1` turns them on.
            collision_events: std::env::var_os("PILE_EVENTS").is_some(),
            // `PILE_OVERLAPS=1` measures the overlaps left (`PhysicsStats::deepest_overlap`).
            measure_overlaps: std::env::var_os("PILE_OVERLAPS").is_some(),
            // `PILE_RELAX=K`: K relaxation passes instead of the default.
            relaxation_passes: std::env::var("PILE_RELAX")
                .ok()
                .and_then(|k| k.parse().ok())
                .unwrap_or(PhysicsConfig::default().relaxation_passes),
            ..default()
        })
        .init_resource::<StepCount>()
        .init_resource::<SquishedBodies>()
        .add_systems(FixedUpdate, note_squished.after(PhysicsSystems::Sense))
        .add_systems(
            FixedUpdate,
            (walk, count_steps, swing)
                .chain()
                .before(PhysicsSystems::Integrate),
        );
    if std::env::var_os("PILE_CHECKSUM").is_some() {
        // `PILE_CHECKSUM=1`: the per-step checksum too (inside the timed step).
        app.add_plugins(bevy_platformer_physics::checksum::PhysicsChecksumPlugin::default());
    }
    app.insert_resource(scene.tile_map());
    let world = app.world_mut();
    let order = scene.spawn_order();
    let bodies: Vec<Entity> = world
        .spawn_batch(
            (order.iter())
                .map(|&i| {
                    let b = &scene.bodies[i];
                    (
                        Dynamic(i as u32),
                        Aabb::new(b.center, b.half),
                        Velocity(Vec2::new(b.vx, 0.0)),
                    )
                })
                .collect::<Vec<_>>(),
        )
        .collect();
    scene.drive_crowd(world, order.into_iter().zip(bodies));
    for &p in &scene.platforms {
        world.spawn((
            Platform,
            Kinematic,
            Aabb::new(p, PLATFORM_HALF),
            Velocity(Vec2::new(scene.platform_speed, 0.0)),
        ));
    }
    app
}

/// The crowd's driver (before the step; `count` is the number of steps completed).
fn walk(count: Res<StepCount>, mut walkers: Query<(&Walker, &mut Velocity)>) {
    let at = CrowdStep::new(count.0);
    for (walker, mut velocity) in &mut walkers {
        velocity.0 = walker.drive(at, velocity.0);
    }
}

fn swing(count: Res<StepCount>, mut platforms: Query<&mut Velocity, With<Platform>>) {
    if reverses_after(count.0) {
        for mut v in &mut platforms {
            v.x = -v.x;
        }
    }
}

/// The bodies reported [`Squished`] so far (by a system after the physics; reading an empty
/// message queue costs the step nothing measurable).
#[derive(Resource, Default)]
struct SquishedBodies(bevy::ecs::entity::EntityHashSet);

fn note_squished(mut messages: MessageReader<Squished>, mut noted: ResMut<SquishedBodies>) {
    for m in messages.read() {
        noted.0.insert(m.entity);
    }
}

/// For each box of [`boxes`] (in the same order), whether its body was reported squished.
pub fn squished(app: &mut App) -> Vec<bool> {
    let world = app.world_mut();
    let bodies: Vec<Entity> = world
        .query_filtered::<Entity, (With<Aabb>, With<Dynamic>)>()
        .iter(world)
        .collect();
    let noted = &world.resource::<SquishedBodies>().0;
    bodies.iter().map(|e| noted.contains(e)).collect()
}

pub fn boxes(app: &mut App) -> Vec<(Vec2, Vec2)> {
    let world = app.world_mut();
    world
        .query_filtered::<&Aabb, With<Dynamic>>()
        .iter(world)
        .map(|a| (a.center, a.half_extents))
        .collect()
}

/// A hash (FNV-1a, 64 bits) of every body's state, dynamic bodies in the scene's order and
/// then the platforms in theirs: centre, half extents, velocity (their bits), push flags and
/// what each stands on. The same run gives the same hash on every machine and thread count.
pub fn state_hash(app: &mut App) -> u64 {
    let world = app.world_mut();
    let mut dynamic: Vec<_> = world
        .query::<(&Dynamic, &Aabb, &Velocity, &PushFlags, &BodyState)>()
        .iter(world)
        .map(|(d, a, v, f, s)| (d.0, *a, *v, *f, *s))
        .collect();
    dynamic.sort_by_key(|b| b.0);
    let mut platforms: Vec<_> = world
        .query_filtered::<(Entity, &Aabb, &Velocity, &PushFlags, &BodyState), With<Platform>>()
        .iter(world)
        .map(|(e, a, v, f, s)| (e.index_u32(), *a, *v, *f, *s))
        .collect();
    platforms.sort_by_key(|b| b.0);
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |word: u32| {
        for byte in word.to_le_bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (_, a, v, f, s) in dynamic.iter().chain(&platforms) {
        for x in [a.center, a.half_extents, v.0, s.ground_velocity] {
            eat(x.x.to_bits());
            eat(x.y.to_bits());
        }
        eat(f.bits() as u32);
        eat(s.standing_on.map_or(0, |k| k as u32 + 1));
    }
    hash
}

/// With `PILE_STAGES` set, the plugin's own stage clock ([`StageTimingPlugin`]) runs, and the
/// median of each stage over the measured steps is printed at the end (stderr), with what
/// relaxation did ([`PhysicsStats`]).
pub fn time_stages(app: &mut App) {
    app.add_plugins(StageTimingPlugin::default())
        .init_resource::<RelaxationCounts>()
        .add_systems(FixedUpdate, count_relaxation.after(PhysicsSystems::Sense));
}

/// Each step's relaxation passes that moved a body, and bodies relaxation moved.
#[derive(Resource, Default)]
struct RelaxationCounts(Vec<[f64; 2]>);

fn count_relaxation(stats: Res<PhysicsStats>, mut counts: ResMut<RelaxationCounts>) {
    let row = [stats.relaxation_passes, stats.relaxed_bodies].map(|c| c as f64);
    counts.0.push(row);
}

/// Prints each stage's median over the last `steps` steps, and relaxation's counts.
pub fn print_stages(app: &mut App, steps: usize) {
    let timings = app.world().resource::<StageTimings>();
    let rows: Vec<_> = (timings.history.iter().rev().take(steps))
        .map(|r| r.map(f64::from))
        .collect();
    let line = crate::report::stage_medians("stages (median ms):", &STAGES, &rows);
    eprintln!("{line}");
    let counts = &app.world().resource::<RelaxationCounts>().0;
    let last = &counts[counts.len().saturating_sub(steps)..];
    let names = ["passes", "bodies"];
    let line = crate::report::stage_medians("relaxation (median a step):", &names, last);
    eprintln!("{line}");
    let stats = app.world().resource::<PhysicsStats>();
    eprintln!(
        "last step: {} bodies, {} awake, {} pairs",
        stats.bodies, stats.awake_bodies, stats.pairs_found
    );
}

/// `PILE_SNAPSHOT=1`: after the run, the median time of 21 takes and of 21 restores of a
/// `PhysicsSnapshot` of the scene as it ended, and its size, printed per 1 000 bodies.
pub fn time_snapshots(app: &mut App) {
    use bevy_platformer_physics::rollback::PhysicsSnapshot;
    use std::time::Instant;
    let median = |mut t: Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let mut taken = Vec::new();
    let mut snapshot = None;
    for _ in 0..21 {
        let t = Instant::now();
        snapshot = Some(PhysicsSnapshot::take(app.world_mut()));
        taken.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let snapshot = snapshot.expect("taken");
    let restored: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            snapshot.restore(app.world_mut()).expect("the same bodies");
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let per_1k = 1000.0 / snapshot.bodies() as f64;
    eprintln!(
        "snapshot of {} bodies: take {:.3} ms, restore {:.3} ms, {} bytes; per 1 000 bodies: take {:.3} ms, restore {:.3} ms, {:.0} bytes",
        snapshot.bodies(),
        median(taken.clone()),
        median(restored.clone()),
        snapshot.size_bytes(),
        median(taken) * per_1k,
        median(restored) * per_1k,
        snapshot.size_bytes() as f64 * per_1k,
    );
}
