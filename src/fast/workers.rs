//! The workers: tasks on Bevy's compute task pool that stay with one app's physics step from one
//! parallel pass to the next.
//!
//! A step runs about a dozen parallel passes, each a fraction of a millisecond long. Spawning a
//! task per pass and thread (a task-pool scope) allocates at every pass, and the
//! helping thread goes back to the pool and to sleep after each pass, so that the next pass
//! begins with a system call to wake it and the wait for it to run. The workers are
//! spawned once, when the app's first step needs them, and end with the app (the workers are a
//! resource, [`Workers`]).
//!
//! Two systems of the step bracket its passes: [`call_workers`] (the step's first system) wakes
//! the tasks, and between passes each then watches for the next one for at most [`WATCH`]
//! instead of going back to the pool; [`release_workers`] (after the last pass) sends them back.
//! A task that saw no pass within its watch returns its thread to the pool and waits for news
//! off any thread, so a system of the game placed between two stages that uses the compute
//! pool gets the threads within a watch.
//!
//! The workers have one task fewer than the pool has threads (the thread that asks for a pass works
//! too), so a step uses as many threads as the app gave the compute pool, and no others. Each
//! app has its own workers: two apps stepping at the same time each run their passes on their own
//! tasks.

use bevy::platform::time::Instant;
use core::pin::Pin;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::Thread;
use std::time::Duration;

use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};

use crate::body::Aabb;
use crate::config::PhysicsConfig;

/// How long a worker task watches for the next pass during a step before it gives its thread back
/// all the same. Longer than most gaps between passes, and short, because the thread it keeps
/// may be the one that would run the step's next stage or another system's task.
const WATCH: Duration = Duration::from_micros(200);

/// How many times the asking thread checks, spinning, whether the workers left a pass, before it
/// parks until the last task out wakes it. A task leaving is usually a piece's time away.
const SPINS_BEFORE_PARK: u32 = 1 << 12;

/// A pass's work, with its lifetime erased: `call(data)` runs it. Built by [`Job::erase`] and
/// called only while the pass is on offer (see [`WorkerTasks::run`]).
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    call: unsafe fn(*const ()),
}

// SAFETY: a `Job` is made from a `&F` with `F: Sync` (`Job::erase`), so calling it from any
// thread is what `&F: Send` allows.
unsafe impl Send for Job {}

impl Job {
    /// `job` as a pointer and the function that calls it.
    fn erase<F: Fn() + Sync>(job: &F) -> Job {
        /// SAFETY (for the caller): `data` points to a live `F`.
        unsafe fn call<F: Fn()>(data: *const ()) {
            // SAFETY: see above.
            unsafe { (*data.cast::<F>())() }
        }
        Job {
            data: core::ptr::from_ref(job).cast(),
            call: call::<F>,
        }
    }
}

/// What the workers and the asking thread change under a lock.
struct Board {
    /// The pass on offer, until the asking thread has finished its share of it.
    job: Option<Job>,
    /// The thread whose pass is on offer, woken by the last task to leave it.
    asker: Option<Thread>,
    /// The wakers of the workers waiting for news, by task.
    waiting: Vec<Option<Waker>>,
}

/// What the workers and the asking thread share.
struct Shared {
    board: Mutex<Board>,
    /// How many passes were offered and calls made so far (changed under the board's lock).
    news: AtomicU64,
    /// Between [`WorkerTasks::call`] and [`WorkerTasks::dismiss`]: the workers watch between passes.
    on_shift: AtomicBool,
    /// The workers were dropped: its tasks end.
    closed: AtomicBool,
    /// Worker tasks inside the current pass's job.
    working: AtomicUsize,
    /// Passes a worker task took part in (counted in tests only).
    #[cfg(test)]
    joined: AtomicU64,
    /// Passes refused because the workers ran another pass (counted in tests only).
    #[cfg(test)]
    refused: AtomicU64,
    /// Held by the thread whose pass the workers run.
    turn: Mutex<()>,
}

impl Shared {
    fn board(&self) -> MutexGuard<'_, Board> {
        // The board is only written in short sections that cannot panic.
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the workers something new (a pass, a call or the end), waking the tasks that wait.
    fn announce(&self, board: &mut Board) {
        self.news.fetch_add(1, Ordering::AcqRel);
        for waker in &mut board.waiting {
            if let Some(waker) = waker.take() {
                waker.wake();
            }
        }
    }

    /// Watches for news after `seen` while the workers are on shift, for at most [`WATCH`]:
    /// whether some came.
    fn watch(&self, seen: u64) -> bool {
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                if self.news.load(Ordering::Acquire) != seen {
                    return true;
                }
                core::hint::spin_loop();
            }
            if !self.on_shift.load(Ordering::Acquire) || start.elapsed() >= WATCH {
                return self.news.load(Ordering::Acquire) != seen;
            }
        }
    }
}

/// A worker task's life: wait for news; join the passes on offer while on shift; and again,
/// until the workers are dropped.
async fn serve(shared: Arc<Shared>, task: usize) {
    let mut seen = 0;
    loop {
        Wait {
            shared: &shared,
            seen,
            task,
        }
        .await;
        loop {
            if shared.closed.load(Ordering::Acquire) {
                return;
            }
            let job = {
                let board = shared.board();
                seen = shared.news.load(Ordering::Acquire);
                board.job.inspect(|_| {
                    // Counted under the lock: once the job is off the board, nobody joins.
                    shared.working.fetch_add(1, Ordering::AcqRel);
                })
            };
            if let Some(job) = job {
                #[cfg(test)]
                shared.joined.fetch_add(1, Ordering::Relaxed);
                // SAFETY: the job was on the board when `working` was raised, so the pass's
                // `Offer` has not finished dropping: the closure is alive until `working`
                // falls back to zero.
                // A job must not unwind; should one, the task serves on all the same.
                let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (job.call)(job.data) }));
                if shared.working.fetch_sub(1, Ordering::AcqRel) == 1
                    && let Some(asker) = &shared.board().asker
                {
                    // The last one out: the asking thread may be parked, waiting for it.
                    asker.unpark();
                }
            }
            if !shared.watch(seen) {
                break;
            }
        }
    }
}

/// A worker task's wait for news after `seen`, off its thread.
struct Wait<'a> {
    shared: &'a Shared,
    seen: u64,
    task: usize,
}

impl Future for Wait<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let news = || self.shared.news.load(Ordering::Acquire) != self.seen;
        if news() {
            return Poll::Ready(());
        }
        let mut board = self.shared.board();
        // Checked again under the lock, which `announce` holds: no news is missed.
        if news() {
            return Poll::Ready(());
        }
        match &mut board.waiting[self.task] {
            Some(waker) => waker.clone_from(cx.waker()),
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

/// Tasks that run the pieces of a parallel pass beside the thread that asks for it. Dropping
/// it ends them.
pub(crate) struct WorkerTasks {
    shared: Arc<Shared>,
}

impl Drop for WorkerTasks {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.announce(&mut self.shared.board());
    }
}

impl WorkerTasks {
    /// Workers of `size` tasks on `pool` (`None` for none).
    pub(crate) fn spawn(pool: &TaskPool, size: usize) -> Option<WorkerTasks> {
        if size == 0 {
            return None;
        }
        let shared = Arc::new(Shared {
            board: Mutex::new(Board {
                job: None,
                asker: None,
                waiting: vec![None; size],
            }),
            news: AtomicU64::new(0),
            on_shift: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            working: AtomicUsize::new(0),
            #[cfg(test)]
            joined: AtomicU64::new(0),
            #[cfg(test)]
            refused: AtomicU64::new(0),
            turn: Mutex::new(()),
        });
        for task in 0..size {
            pool.spawn(serve(shared.clone(), task)).detach();
        }
        Some(WorkerTasks { shared })
    }

    /// A step begins: the workers wake, and between passes watches for the next one until
    /// [`WorkerTasks::dismiss`]. Waking takes a while, so this is called before the step's first pass
    /// is ready.
    pub(crate) fn call(&self) {
        self.shared.on_shift.store(true, Ordering::Release);
        self.shared.announce(&mut self.shared.board());
    }

    /// The step's passes are over: the workers give their threads back to the pool.
    pub(crate) fn dismiss(&self) {
        self.shared.on_shift.store(false, Ordering::Release);
    }

    /// How many times a worker task joined a pass so far.
    #[cfg(test)]
    pub(crate) fn passes_joined(&self) -> u64 {
        self.shared.joined.load(Ordering::Relaxed)
    }

    /// How many passes were refused so far because the workers ran another.
    #[cfg(test)]
    pub(crate) fn passes_refused(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// Runs `job` on this thread and on every worker task that joins in time, and returns once
    /// all of them have returned from it; `false` (and nothing run) when the workers are running
    /// another thread's pass. `job` must not unwind and must be safe to call on several threads
    /// at once (it takes its work from a shared source).
    pub(crate) fn run<F: Fn() + Sync>(&self, job: &F) -> bool {
        let Ok(_turn) = self.shared.turn.try_lock() else {
            #[cfg(test)]
            self.shared.refused.fetch_add(1, Ordering::Relaxed);
            return false;
        };
        // The workers call the job only while it is on the board, and `Offer::drop` (which runs
        // before this function returns, also if `job` unwinds) takes it off and waits for
        // every task inside it: the borrow of `job` outlives every call.
        let offer = Offer(&self.shared);
        {
            let mut board = self.shared.board();
            board.job = Some(Job::erase(job));
            board.asker = Some(std::thread::current());
            self.shared.announce(&mut board);
        }
        job();
        drop(offer);
        true
    }
}

/// Takes the pass off the board when dropped, and waits for the worker tasks inside it: spinning
/// a little, then parked until the last one out wakes it.
struct Offer<'a>(&'a Shared);

impl Drop for Offer<'_> {
    fn drop(&mut self) {
        self.0.board().job = None;
        // Nobody joins the pass now; those inside are finishing their last piece.
        let left = || self.0.working.load(Ordering::Acquire) == 0;
        for _ in 0..SPINS_BEFORE_PARK {
            if left() {
                return;
            }
            core::hint::spin_loop();
        }
        while !left() {
            // Woken by the last task out; the timeout only guards against a wake taken by an
            // earlier park of this thread.
            std::thread::park_timeout(Duration::from_millis(1));
        }
    }
}

/// The app's workers, spawned by the first step that runs passes in parallel.
#[derive(Resource, Default)]
pub(crate) struct Workers {
    workers: Option<WorkerTasks>,
    /// Whether workers were asked of the pool already (it has none with a single thread).
    asked: bool,
}

impl Workers {
    /// The workers a pass runs on: `None` (this thread alone) unless `parallel` is set and the
    /// app's workers exists.
    pub(crate) fn threads(&self, parallel: bool) -> Option<&WorkerTasks> {
        self.workers.as_ref().filter(|_| parallel)
    }
}

/// The step's first system: when the step will run passes in parallel (at least
/// [`PhysicsConfig::parallel_min_bodies`] bodies), the app's workers (spawned on first use, with
/// one task fewer than Bevy's compute task pool has threads) is called.
pub(crate) fn call_workers(
    mut slot: ResMut<Workers>,
    config: Res<PhysicsConfig>,
    bodies: Query<(), With<Aabb>>,
) {
    if bodies.iter().len() < config.parallel_min_bodies {
        return;
    }
    if !slot.asked {
        slot.asked = true;
        slot.workers = ComputeTaskPool::try_get()
            .and_then(|pool| WorkerTasks::spawn(pool, worker_count(pool)));
    }
    if let Some(workers) = &slot.workers {
        workers.call();
    }
}

/// How many workers the step asks of `pool`: one task fewer than it has threads, and none on
/// the web (`wasm32`), where Bevy's pools run every task on the one thread there is and a
/// worker waiting for a pass would hold it.
fn worker_count(pool: &TaskPool) -> usize {
    if cfg!(target_family = "wasm") {
        0
    } else {
        pool.thread_num().saturating_sub(1)
    }
}

/// After the step's last parallel pass: the workers give their threads back to the pool.
pub(crate) fn release_workers(slot: Res<Workers>) {
    if let Some(workers) = &slot.workers {
        workers.dismiss();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs 64 pieces of `piece_time` on `workers`; the threads that ran them.
    fn threads_that_ran(workers: &WorkerTasks, piece_time: Duration) -> Vec<std::thread::ThreadId> {
        let pieces = AtomicUsize::new(0);
        let ran = Mutex::new(Vec::new());
        let job = || {
            while pieces.fetch_add(1, Ordering::Relaxed) < 64 {
                std::thread::sleep(piece_time);
                ran.lock().unwrap().push(std::thread::current().id());
            }
        };
        assert!(workers.run(&job), "the workers were free");
        let mut ran = ran.into_inner().unwrap();
        assert_eq!(ran.len(), 64, "every piece ran once");
        ran.sort_unstable_by_key(|id| format!("{id:?}"));
        ran.dedup();
        ran
    }

    /// Waits (at most a second) until `n` worker tasks wait for news off their threads.
    fn until_waiting(workers: &WorkerTasks, n: usize) -> bool {
        let start = Instant::now();
        while workers.shared.board().waiting.iter().flatten().count() != n {
            if start.elapsed() > Duration::from_secs(1) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    /// A pool of `threads` threads, kept for the rest of the test process.
    fn pool(threads: usize) -> &'static TaskPool {
        Box::leak(Box::new(
            bevy::tasks::TaskPoolBuilder::new()
                .num_threads(threads)
                .build(),
        ))
    }

    #[test]
    fn the_crew_and_the_asking_thread_share_a_pass() {
        let workers = WorkerTasks::spawn(pool(2), 2).expect("workers of two");
        let me = std::thread::current().id();
        // Off shift the workers waits off the pool's threads, and a pass wakes it.
        assert!(until_waiting(&workers, 2), "a new workers waits");
        let ran = threads_that_ran(&workers, Duration::from_micros(500));
        assert!(ran.len() >= 2 && ran.contains(&me), "{ran:?}");
        assert!(
            until_waiting(&workers, 2),
            "off shift it waits again after a pass"
        );
        // On shift it watches between passes instead (how long it watches is left to the
        // benchmark: a test that timed it would fail on a busy machine).
        workers.call();
        for pass in 0..3 {
            let ran = threads_that_ran(&workers, Duration::from_micros(500));
            assert!(ran.len() >= 2 && ran.contains(&me), "pass {pass}: {ran:?}");
        }
        // On shift, a task that sees no pass within its watch gives its thread back too.
        assert!(
            until_waiting(&workers, 2),
            "on shift, it waits off its thread after a watch"
        );
        workers.dismiss();
    }

    #[test]
    fn a_dropped_crew_ends_its_tasks() {
        let pool = pool(1);
        let workers = WorkerTasks::spawn(pool, 1).expect("workers of one");
        let shared = Arc::downgrade(&workers.shared);
        assert!(until_waiting(&workers, 1), "a new workers waits");
        drop(workers);
        let start = Instant::now();
        // The task holds the last other reference: it is gone once the task ended.
        while shared.upgrade().is_some() {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the task of a dropped workers did not end"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_pass_asked_for_during_a_pass_is_refused() {
        let workers = WorkerTasks::spawn(pool(1), 1).expect("workers of one");
        let inner = AtomicUsize::new(0);
        let refused = AtomicUsize::new(0);
        let job = || {
            // Whichever thread runs this, the workers are busy with the outer pass.
            let ran = workers.run(&|| {
                inner.fetch_add(1, Ordering::Relaxed);
            });
            refused.fetch_add(usize::from(!ran), Ordering::Relaxed);
        };
        assert!(workers.run(&job));
        assert!(
            refused.into_inner() >= 1,
            "the thread that asked was refused"
        );
        assert_eq!(inner.into_inner(), 0, "the refused pass ran nowhere");
        assert!(workers.run(&|| ()), "free again once the pass is over");
    }
}

#[cfg(test)]
mod app_tests;
