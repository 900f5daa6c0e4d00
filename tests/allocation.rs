//! No heap allocation per step once the scene has settled: a counting allocator (per thread)
//! around a settled pile with sensors, stepped on the sequential path so every allocation is on this thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bevy::prelude::*;

use crate::common::*;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Counts allocations and reallocations made on the current thread, then defers to `System`.
struct Counting;

fn count() {
    // `try_with`: a thread being torn down has no counter any more, and that is fine.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards to `System` with the arguments it was given; counting touches
// only a thread-local `Cell`, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations_on_this_thread() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// A settled pile: bodies stacked and resting on a floor with platforms and walls.
fn settled_pile() -> App {
    let mut map = empty_map(48, 24);
    map.fill(IVec2::new(0, 0), IVec2::new(47, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 23), TileKind::Solid);
    map.fill(IVec2::new(47, 0), IVec2::new(47, 23), TileKind::Solid);
    map.fill(IVec2::new(10, 8), IVec2::new(20, 8), TileKind::OneWay);
    map.fill(IVec2::new(26, 6), IVec2::new(36, 6), TileKind::Solid);
    let mut app = app(map);
    for i in 0..400 {
        let (c, r) = (i % 40, i / 40);
        let center = Vec2::new(24.0 + 17.0 * c as f32, 40.0 + 20.0 * r as f32);
        spawn(
            &mut app,
            center,
            Vec2::new(5.0 + (i % 3) as f32, 6.0 + (i % 4) as f32),
            Vec2::ZERO,
        );
    }
    // Sensors of every shape over parts of the pile.
    for (sensor, x) in [
        (Sensor::rectangle(Vec2::new(60.0, 30.0)), 150.0),
        (Sensor::circle(50.0), 400.0),
        (Sensor::rotated_rect(Vec2::new(80.0, 10.0)), 650.0),
    ] {
        app.world_mut().spawn((
            sensor,
            Transform::from_xyz(x, 40.0, 0.0).with_rotation(Quat::from_rotation_z(0.3)),
        ));
    }
    step(&mut app, 900);
    app
}

#[test]
fn no_heap_allocation_per_step_once_the_scene_has_settled() {
    let mut app = settled_pile();
    let stats = *app.world().resource::<PhysicsStats>();
    assert!(
        stats.pairs_found > 300,
        "a real pile with contacts: {stats:?}"
    );
    let world = app.world_mut();
    let sensed: Vec<usize> = world
        .query::<&SensorContents>()
        .iter(world)
        .map(|c| c.bodies().len())
        .collect();
    assert!(
        sensed.len() == 3 && sensed.iter().all(|&n| n > 3),
        "every sensor holds bodies: {sensed:?}"
    );
    // One more step so every buffer has seen this state.
    step(&mut app, 1);
    let before = allocations_on_this_thread();
    step(&mut app, 100);
    let made = allocations_on_this_thread() - before;
    assert_eq!(made, 0, "{made} heap allocations in 100 settled steps");
}

#[test]
fn the_counter_sees_allocations() {
    let before = allocations_on_this_thread();
    let v: Vec<u64> = std::hint::black_box((0..100).collect());
    assert!(allocations_on_this_thread() > before);
    drop(v);
}

#[test]
fn pushing_a_row_of_crates_allocates_nothing_per_step() {
    let mut map = empty_map(200, 8);
    map.fill(IVec2::new(0, 0), IVec2::new(199, 0), TileKind::Solid);
    let mut app = app(map);
    let walker = spawn(
        &mut app,
        Vec2::new(104.0, 24.0),
        Vec2::splat(8.0),
        Vec2::ZERO,
    );
    let crates: Vec<Entity> = (0..3)
        .map(|i| {
            let at = Vec2::new(120.0 + 16.0 * i as f32, 24.0);
            let e = spawn(&mut app, at, Vec2::splat(8.0), Vec2::ZERO);
            app.world_mut().entity_mut(e).insert(Pushable::default());
            e
        })
        .collect();
    let walk = |app: &mut App, n: usize| {
        for _ in 0..n {
            let vy = vel(app, walker).y;
            set_vel(app, walker, Vec2::new(120.0, vy));
            step(app, 1);
        }
    };
    walk(&mut app, 30);
    let start = pos(&app, crates[2]).x;
    let before = allocations_on_this_thread();
    walk(&mut app, 30);
    let made = allocations_on_this_thread() - before;
    assert!(pos(&app, crates[2]).x - start > 10.0, "the row moved");
    assert_eq!(made, 0, "{made} heap allocations in 30 steps of pushing");
}
