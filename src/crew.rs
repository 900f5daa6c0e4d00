//! The crew: threads that stay with the physics step from one parallel pass to the next.
//!
//! A step runs about a dozen parallel passes, each a fraction of a millisecond long. On Bevy's
//! task pool every pass would spawn a task per thread (heap allocations, about 40 a step), and
//! the helping thread would go to sleep after each pass, so that the next pass began with a
//! system call to wake it and the wait for it to run. The crew's threads are spawned once.
//! The step's first system calls them ([`call`]); between passes they watch for the next one
//! instead of sleeping, until the step's last parallel pass dismisses them ([`dismiss`]). Then
//! they sleep, after watching a while longer if the app asked for it
//! ([`PhysicsConfig::worker_linger`](crate::PhysicsConfig::worker_linger)).
//!
//! The crew has one thread fewer than Bevy's compute task pool (the thread that asks for a pass
//! works too), so a step uses as many threads as the app gave that pool.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use bevy::tasks::ComputeTaskPool;

/// How long a crew thread watches for the next pass during a step before it sleeps all the
/// same: far longer than the gaps between the passes of a step, so that in practice it sleeps
/// only when a step ended without dismissing the crew (a system panicked).
const WATCH: Duration = Duration::from_millis(2);

/// A pass's work: called once by each thread that joins the pass. It must not unwind.
type Job = &'static (dyn Fn() + Sync);

/// What the crew's threads and the asking thread change under a lock.
struct Board {
    /// The pass on offer, until the asking thread has finished its share of it.
    job: Option<Job>,
    /// Crew threads asleep.
    sleeping: usize,
}

/// What the crew's threads and the asking thread share.
struct Shared {
    board: Mutex<Board>,
    /// Rung when a pass is offered or the crew is called while some crew thread sleeps.
    bell: Condvar,
    /// How many passes were offered and calls made so far (changed under the board's lock).
    news: AtomicU64,
    /// Between [`Crew::call`] and [`Crew::dismiss`]: the crew watches between passes.
    on_shift: AtomicBool,
    /// How long to watch after a dismissal, in microseconds.
    linger_us: AtomicU64,
    /// Crew threads inside the current pass's job.
    working: AtomicUsize,
    /// Held by the thread whose pass the crew runs.
    turn: Mutex<()>,
}

impl Shared {
    fn board(&self) -> MutexGuard<'_, Board> {
        // The board is only written in short sections that cannot panic.
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the crew something new (a pass or a call), ringing for those asleep.
    fn announce(&self, board: &Board) {
        self.news.fetch_add(1, Ordering::AcqRel);
        if board.sleeping > 0 {
            self.bell.notify_all();
        }
    }

    /// A crew thread's life: wait for news; join the pass on offer, if any; and again.
    fn serve(&self) {
        let mut seen = 0;
        loop {
            if !self.watch(seen) {
                let mut board = self.board();
                board.sleeping += 1;
                while self.news.load(Ordering::Acquire) == seen {
                    board = self
                        .bell
                        .wait(board)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                board.sleeping -= 1;
            }
            let job = {
                let board = self.board();
                seen = self.news.load(Ordering::Acquire);
                let Some(job) = board.job else { continue };
                // Counted under the lock: once the job is off the board, nobody else joins.
                self.working.fetch_add(1, Ordering::AcqRel);
                job
            };
            // A job must not unwind; should one, the thread stays in the crew all the same.
            let _ = catch_unwind(AssertUnwindSafe(job));
            self.working.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Watches for news after `seen`: during a shift for at most [`WATCH`], after it for the
    /// linger time. Whether news came.
    fn watch(&self, seen: u64) -> bool {
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                if self.news.load(Ordering::Acquire) != seen {
                    return true;
                }
                core::hint::spin_loop();
            }
            let limit = if self.on_shift.load(Ordering::Acquire) {
                WATCH
            } else {
                Duration::from_micros(self.linger_us.load(Ordering::Relaxed))
            };
            if start.elapsed() >= limit {
                return false;
            }
        }
    }
}

/// Threads that run the pieces of a parallel pass beside the thread that asks for it.
pub(crate) struct Crew {
    shared: &'static Shared,
}

/// The crew of this process, once spawned.
static CREW: OnceLock<Option<Crew>> = OnceLock::new();

/// The step begins and will run parallel passes: the crew, spawned if need be, is called.
pub(crate) fn call(parallel: bool, linger: Duration) {
    if let Some(crew) = parallel.then(Crew::get).flatten() {
        crew.call(linger);
    }
}

/// The step's last parallel pass is over: the crew, if there is one, is dismissed.
pub(crate) fn dismiss() {
    if let Some(Some(crew)) = CREW.get() {
        crew.dismiss();
    }
}

impl Crew {
    /// The crew of this process, spawned on first use with one thread fewer than Bevy's
    /// compute task pool has; `None` when that pool has a single thread (or does not exist).
    pub(crate) fn get() -> Option<&'static Crew> {
        let pool = ComputeTaskPool::try_get()?;
        CREW.get_or_init(|| Crew::spawn(pool.thread_num().saturating_sub(1)))
            .as_ref()
    }

    /// A crew of `size` threads (fewer if the system refuses some; `None` without any).
    pub(crate) fn spawn(size: usize) -> Option<Crew> {
        if size == 0 {
            return None;
        }
        // Shared for the rest of the process: the threads never end.
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            board: Mutex::new(Board {
                job: None,
                sleeping: 0,
            }),
            bell: Condvar::new(),
            news: AtomicU64::new(0),
            on_shift: AtomicBool::new(false),
            linger_us: AtomicU64::new(0),
            working: AtomicUsize::new(0),
            turn: Mutex::new(()),
        }));
        let spawned = (0..size)
            .filter(|i| {
                std::thread::Builder::new()
                    .name(format!("physics crew {i}"))
                    .spawn(move || shared.serve())
                    .is_ok()
            })
            .count();
        (spawned > 0).then_some(Crew { shared })
    }

    /// A step begins: the crew wakes, and between passes watches for the next one until
    /// [`Crew::dismiss`], then for `linger`. Waking takes a while, so this is called before
    /// the step's first pass is ready.
    pub(crate) fn call(&self, linger: Duration) {
        let linger_us = u64::try_from(linger.as_micros()).unwrap_or(u64::MAX);
        self.shared.linger_us.store(linger_us, Ordering::Relaxed);
        self.shared.on_shift.store(true, Ordering::Release);
        self.shared.announce(&self.shared.board());
    }

    /// The step's passes are over: the crew sleeps once it has lingered.
    pub(crate) fn dismiss(&self) {
        self.shared.on_shift.store(false, Ordering::Release);
    }

    /// Runs `job` on this thread and on every crew thread that joins in time, and returns once
    /// all of them have returned from it; `false` (and nothing run) when the crew is running
    /// another thread's pass. `job` must not unwind and must be safe to call on several threads
    /// at once (it takes its work from a shared source).
    pub(crate) fn run(&self, job: &(dyn Fn() + Sync)) -> bool {
        let Ok(_turn) = self.shared.turn.try_lock() else {
            return false;
        };
        // SAFETY: a crew thread calls `job` only after taking it off the board, which it can
        // do only between here and `Offer::drop`. That drop takes `job` off the board, then
        // waits until every crew thread that took it has returned from it, and it runs before
        // this function returns, also if `job` unwinds. So `job` is not called after the
        // borrow ends, and the lifetime made `'static` here is never relied on.
        let job: Job = unsafe { core::mem::transmute::<&(dyn Fn() + Sync), Job>(job) };
        let offer = Offer(self.shared);
        {
            let mut board = self.shared.board();
            board.job = Some(job);
            self.shared.announce(&board);
        }
        job();
        drop(offer);
        true
    }
}

/// Takes the pass off the board when dropped, and waits for the crew threads inside it.
struct Offer(&'static Shared);

impl Drop for Offer {
    fn drop(&mut self) {
        self.0.board().job = None;
        // Nobody joins the pass now; those inside are finishing their last piece.
        while self.0.working.load(Ordering::Acquire) != 0 {
            core::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs 64 pieces of `piece_time` on `crew`; the threads that ran them.
    fn threads_that_ran(crew: &Crew, piece_time: Duration) -> Vec<std::thread::ThreadId> {
        let pieces = AtomicUsize::new(0);
        let ran = Mutex::new(Vec::new());
        let job = || {
            while pieces.fetch_add(1, Ordering::Relaxed) < 64 {
                std::thread::sleep(piece_time);
                ran.lock().unwrap().push(std::thread::current().id());
            }
        };
        assert!(crew.run(&job), "the crew was free");
        let mut ran = ran.into_inner().unwrap();
        assert_eq!(ran.len(), 64, "every piece ran once");
        ran.sort_unstable_by_key(|id| format!("{id:?}"));
        ran.dedup();
        ran
    }

    /// Waits (at most a second) until `n` crew threads sleep.
    fn until_asleep(crew: &Crew, n: usize) -> bool {
        let start = Instant::now();
        while crew.shared.board().sleeping != n {
            if start.elapsed() > Duration::from_secs(1) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    #[test]
    fn the_crew_and_the_asking_thread_share_a_pass() {
        let crew = Crew::spawn(2).expect("threads spawn");
        let me = std::thread::current().id();
        // Off shift the crew sleeps, and a pass wakes it.
        assert!(until_asleep(&crew, 2), "a new crew sleeps");
        let ran = threads_that_ran(&crew, Duration::from_micros(500));
        assert!(ran.len() >= 2 && ran.contains(&me), "{ran:?}");
        assert!(until_asleep(&crew, 2), "off shift it sleeps after a pass");
        // On shift it watches between passes instead of sleeping (how long it watches is
        // left to the benchmark: a test that timed it would fail on a busy machine).
        crew.call(Duration::ZERO);
        for pass in 0..3 {
            let ran = threads_that_ran(&crew, Duration::from_micros(500));
            assert!(ran.len() >= 2 && ran.contains(&me), "pass {pass}: {ran:?}");
        }
        crew.dismiss();
        assert!(until_asleep(&crew, 2), "dismissed, it sleeps");
    }

    #[test]
    fn a_pass_asked_for_during_a_pass_is_refused() {
        let crew = Crew::spawn(1).expect("a thread spawns");
        let inner = AtomicUsize::new(0);
        let refused = AtomicUsize::new(0);
        let job = || {
            // Whichever thread runs this, the crew is busy with the outer pass.
            let ran = crew.run(&|| {
                inner.fetch_add(1, Ordering::Relaxed);
            });
            refused.fetch_add(usize::from(!ran), Ordering::Relaxed);
        };
        assert!(crew.run(&job));
        assert!(
            refused.into_inner() >= 1,
            "the thread that asked was refused"
        );
        assert_eq!(inner.into_inner(), 0, "the refused pass ran nowhere");
        assert!(crew.run(&|| ()), "free again once the pass is over");
    }
}
