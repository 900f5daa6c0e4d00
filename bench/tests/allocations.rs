//! The plugin's heap allocations per step do not grow with the number of bodies, on the
//! parallel path the benchmark scene takes (above `parallel_min_bodies`).
//!
//! The plugin's own code allocates nothing per step once the scene has settled
//! (`tests/allocation.rs` at the root counts 0 on the sequential path); on the parallel path
//! Bevy's task pool allocates for every task it spawns, a fixed number per step. A separate test
//! binary with a counting global allocator, and one test in it, so nothing else allocates at
//! the same time.

// The bench's counting allocator (its `count-allocs` feature), installed in this binary.
#[path = "../src/allocs.rs"]
mod allocs;
#[path = "../src/harness.rs"]
#[allow(dead_code, reason = "only the app set-up is used")]
mod harness;
#[path = "../src/scene.rs"]
#[allow(dead_code, reason = "only the scene builder is used")]
mod scene;

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

/// Settles the pile, then returns its allocations per step over 100 more steps.
fn allocations_per_step(n: usize, parallel_min_bodies: usize) -> f64 {
    let mut app = pile(n, parallel_min_bodies);
    for _ in 0..300 {
        app.update();
    }
    let stats = *app.world().resource::<PhysicsStats>();
    assert!(
        stats.bodies > n && stats.pairs_found > n / 2,
        "a real pile: {stats:?}"
    );
    allocs::per_step(&mut app, 100)
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
    // The task pool allocates for each task spawned: each parallel pass spawns one per thread
    // (a handful of allocations with the pass's own), not one per piece of work (64 pieces,
    // over 500 allocations a step in all).
    let sequential = allocations_per_step(10_000, usize::MAX);
    let threads = bevy::tasks::ComputeTaskPool::get().thread_num() as f64;
    eprintln!("{sequential:.1} on one thread, {threads} threads in the pool");
    assert!(
        large - sequential <= 10.0 * (8.0 + threads),
        "the parallel passes add {:.1} allocations per step with {threads} threads",
        large - sequential
    );
}
