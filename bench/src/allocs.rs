//! Heap allocations per step, counted by a global allocator that is compiled in only with the
//! `count-allocs` feature (the timed runs use the system allocator untouched):
//!
//! ```sh
//! cargo run --release -p pile-bench --features count-allocs -- one ours 16000
//! ```
//!
//! After the measured steps it runs 100 more and prints their allocations per step (stderr),
//! counted on every thread: the engine's own and those of Bevy's scheduler and task pool.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::app::App;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Counts allocations and reallocations on every thread, then defers to `System`.
struct Counting;

// SAFETY: every method forwards to `System` with the arguments it was given; the count is one
// atomic add, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
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

/// Runs `steps` more steps of `app` and returns the allocations per step.
pub fn per_step(app: &mut App, steps: usize) -> f64 {
    counted(|| {
        for _ in 0..steps {
            app.update();
        }
    }) as f64
        / steps.max(1) as f64
}

/// The allocations made on every thread while `f` runs.
pub fn counted(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
}
