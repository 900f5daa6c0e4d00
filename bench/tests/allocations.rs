//! The plugin allocates nothing per step once the benchmark's pile has settled, also on the
//! parallel path the benchmark takes (above `parallel_min_bodies`, where the passes run on the
//! plugin's worker tasks), and the app's allocations per step do not grow with the
//! bodies.
//!
//! `tests/allocation.rs` at the root counts the allocations of the test's own thread on the
//! sequential path; this one counts those of every thread. A separate test binary with a
//! counting global allocator, and one test in it, so nothing else allocates at the same time.

// The bench's counting allocator (its `count-allocs` feature), installed in this binary.
#[path = "../src/allocs.rs"]
mod allocs;
#[path = "../src/harness.rs"]
#[allow(dead_code, reason = "only the app set-up is used")]
mod harness;
#[path = "../src/scene.rs"]
#[allow(dead_code, reason = "only the scene builder is used")]
mod scene;

use bevy::ecs::message::Messages;
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;

/// The pile of `n` bodies as the benchmark builds it (its kinematic platforms standing still),
/// with the benchmark's app set-up: one fixed step per update, every core in the task pool.
/// With `parallel_min_bodies` bodies or more, the passes run on the task pool.
fn pile(n: usize, parallel_min_bodies: usize) -> App {
    let s = scene::Scene::pile(n);
    let mut app = harness::base_app();
    app.add_plugins(PhysicsPlugin::default())
        .insert_resource(PhysicsConfig {
            gravity: Vec2::new(0.0, scene::GRAVITY),
            partition_cell_tiles: 4,
            parallel_min_bodies,
            ..default()
        })
        .insert_resource(s.tile_map());
    let world = app.world_mut();
    for b in &s.bodies {
        world.spawn((Aabb::new(b.center, b.half), Velocity(Vec2::new(b.vx, 0.0))));
    }
    for &p in &s.platforms {
        world.spawn((Kinematic, Aabb::new(p, scene::PLATFORM_HALF)));
    }
    app.finish();
    app.cleanup();
    app
}

/// The pile of `n` bodies after 300 steps.
fn settled_pile(n: usize, parallel_min_bodies: usize) -> App {
    let mut app = pile(n, parallel_min_bodies);
    for _ in 0..300 {
        app.update();
    }
    let stats = *app.world().resource::<PhysicsStats>();
    assert!(
        stats.bodies > n && stats.pairs_found > n / 2,
        "a real pile: {stats:?}"
    );
    app
}

/// Settles the pile, then returns its allocations per step over 100 more steps (the whole
/// app's: Bevy's scheduler and executor allocate too).
fn allocations_per_step(n: usize, parallel_min_bodies: usize) -> f64 {
    allocs::per_step(&mut settled_pile(n, parallel_min_bodies), 100)
}

#[test]
fn allocations_per_step_do_not_grow_with_the_bodies() {
    // Both above the default `parallel_min_bodies` (2 048): every pass of the step runs on the
    // task pool.
    let min = PhysicsConfig::default().parallel_min_bodies;
    let small = allocations_per_step(2_500, min);
    let large = allocations_per_step(10_000, min);
    eprintln!("allocations per step: {small:.1} at 2 500 bodies, {large:.1} at 10 000");
    // Some of the task pool's allocations depend on timing: a thread that finds no work, or
    // waits for a scope to finish, allocates a listener (`event_listener::Event::listen`), so
    // the count moves by a few per step with the machine's load (CI once saw 81.9 at 2 500
    // bodies and 72.2 at 10 000). One allocation per body would add 7 500 per step here, one
    // per occupied partition cell several hundred; the margin below is far under both.
    assert!(
        large <= 1.25 * small + 10.0,
        "{large:.1} allocations per step at 10 000 bodies against {small:.1} at 2 500: something \
         allocates per body or per contact"
    );
    // The parallel passes add nothing to what the app allocates anyway (Bevy's scheduler):
    // they run on the plugin's workers, spawned once, where a task-pool scope per pass allocated
    // for every task spawned (about 40 allocations a step on two threads, over 500 with a
    // task per piece of work).
    let sequential = allocations_per_step(10_000, usize::MAX);
    let threads = bevy::tasks::ComputeTaskPool::get().thread_num();
    eprintln!("{sequential:.1} on one thread, {threads} threads in the pool");
    assert!(
        large <= sequential + 10.0,
        "the parallel passes add {:.1} allocations per step with {threads} threads",
        large - sequential
    );
    // The physics step alone, every system on this thread (so Bevy's executor spawns no task
    // for them) and every pass on the workers: nothing allocates per step on any thread. The one
    // allocation left is not the plugin's: waking the workers' task at the start of a step puts
    // it in the task pool's queue, which takes a new block of 31 places every 31 tasks queued
    // (16 allocations in 500 steps; an app's own systems fill that queue far faster). The
    // messages are cleared after each step, as `App::update` does (else their buffers grow).
    let mut app = settled_pile(10_000, min);
    app.edit_schedule(FixedUpdate, |s| {
        s.set_executor(SingleThreadedExecutor::new());
    });
    let world = app.world_mut();
    let mut physics_step = || {
        world.run_schedule(FixedUpdate);
        world.resource_mut::<Messages<Landed>>().update();
        world.resource_mut::<Messages<CollisionStarted>>().update();
        world.resource_mut::<Messages<CollisionEnded>>().update();
    };
    // This thread's first steps as the one that runs the systems: its per-thread buffers.
    for _ in 0..50 {
        physics_step();
    }
    let steps = 500;
    let made = allocs::counted(|| {
        for _ in 0..steps {
            physics_step();
        }
    });
    eprintln!("{made} allocations in {steps} physics steps");
    assert!(threads > 1, "the passes ran on several threads");
    assert!(
        made * 10 < steps,
        "{made} allocations in {steps} settled steps of 10 000 bodies: one per step or more"
    );
}
