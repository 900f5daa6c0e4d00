//! The crew: tasks on Bevy's compute task pool that stay with the physics step from one
//! parallel pass to the next.
//!
//! A step runs about a dozen parallel passes, each a fraction of a millisecond long. Spawning a
//! task per pass and thread (a task-pool scope) allocates (about 40 times a step), and the
//! helping thread goes back to the pool and to sleep after each pass, so that the next pass
//! begins with a system call to wake it and the wait for it to run. The crew's tasks are
//! spawned once and never end. The step's first system calls them ([`call`]): each wakes on one
//! of the pool's threads and, between passes, watches for the next one instead of returning to
//! the pool, until the step's last parallel pass dismisses it ([`dismiss`]). Then it gives its
//! thread back to the pool, and waits for the next call.
//!
//! The crew has one task fewer than the pool has threads (the thread that asks for a pass works
//! too), so a step uses as many threads as the app gave the compute pool, and no others. During
//! a step the crew keeps those threads: other tasks (another system running beside the physics)
//! get them back when the step is over.

use core::pin::Pin;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bevy::tasks::{ComputeTaskPool, TaskPool};

/// How long a crew task watches for the next pass during a step before it gives its thread back
/// all the same. Longer than most gaps between passes (in the benchmark's pile, watches of
/// 100 us, 300 us and 2 ms gave the same steps within the machine's noise at 16 000 and 64 000
/// bodies), and short, because the thread it keeps may be the one that would run the step's
/// next stage: when the pool's other threads are busy with other systems and the crew's task
/// was queued before that stage, the stage waits for the watch to end.
const WATCH: Duration = Duration::from_micros(200);

/// A pass's work: called once by each thread that joins the pass. It must not unwind.
type Job = &'static (dyn Fn() + Sync);

/// What the crew's tasks and the asking thread change under a lock.
struct Board {
    /// The pass on offer, until the asking thread has finished its share of it.
    job: Option<Job>,
    /// The wakers of the crew's tasks waiting for news, by task.
    waiting: Vec<Option<Waker>>,
}

/// What the crew's tasks and the asking thread share.
struct Shared {
    board: Mutex<Board>,
    /// How many passes were offered and calls made so far (changed under the board's lock).
    news: AtomicU64,
    /// Between [`Crew::call`] and [`Crew::dismiss`]: the crew watches between passes.
    on_shift: AtomicBool,
    /// Crew tasks inside the current pass's job.
    working: AtomicUsize,
    /// Held by the thread whose pass the crew runs.
    turn: Mutex<()>,
}

impl Shared {
    fn board(&self) -> MutexGuard<'_, Board> {
        // The board is only written in short sections that cannot panic.
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the crew something new (a pass or a call), waking the tasks that wait for news.
    fn announce(&self, board: &mut Board) {
        self.news.fetch_add(1, Ordering::AcqRel);
        for waker in &mut board.waiting {
            if let Some(waker) = waker.take() {
                waker.wake();
            }
        }
    }

    /// A crew task's life: wait for news; join the passes on offer while on shift; and again.
    async fn serve(&'static self, task: usize) {
        let mut seen = 0;
        loop {
            Wait {
                shared: self,
                seen,
                task,
            }
            .await;
            loop {
                let job = {
                    let board = self.board();
                    seen = self.news.load(Ordering::Acquire);
                    board.job.inspect(|_| {
                        // Counted under the lock: once the job is off the board, nobody joins.
                        self.working.fetch_add(1, Ordering::AcqRel);
                    })
                };
                if let Some(job) = job {
                    // A job must not unwind; should one, the task serves on all the same.
                    let _ = catch_unwind(AssertUnwindSafe(job));
                    self.working.fetch_sub(1, Ordering::AcqRel);
                }
                if !self.watch(seen) {
                    break;
                }
            }
        }
    }

    /// Watches for news after `seen` while the crew is on shift, for at most [`WATCH`]:
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

/// A crew task's wait for news after `seen`, off its thread.
struct Wait {
    shared: &'static Shared,
    seen: u64,
    task: usize,
}

impl Future for Wait {
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

/// Tasks that run the pieces of a parallel pass beside the thread that asks for it.
pub(crate) struct Crew {
    shared: &'static Shared,
}

/// The crew of this process, once spawned.
static CREW: OnceLock<Option<Crew>> = OnceLock::new();

/// The step begins and will run parallel passes: the crew, spawned if need be, is called.
pub(crate) fn call(parallel: bool) {
    if let Some(crew) = crate::parallel::crew(parallel) {
        crew.call();
    }
}

/// The step's last parallel pass is over: the crew, if there is one, is dismissed.
pub(crate) fn dismiss() {
    if let Some(Some(crew)) = CREW.get() {
        crew.dismiss();
    }
}

impl Crew {
    /// The crew of this process, spawned on first use with one task fewer than Bevy's compute
    /// task pool has threads; `None` when that pool has a single thread (or does not exist).
    pub(crate) fn get() -> Option<&'static Crew> {
        let pool = ComputeTaskPool::try_get()?;
        CREW.get_or_init(|| Crew::spawn(pool, pool.thread_num().saturating_sub(1)))
            .as_ref()
    }

    /// A crew of `size` tasks on `pool` (`None` for none).
    pub(crate) fn spawn(pool: &TaskPool, size: usize) -> Option<Crew> {
        if size == 0 {
            return None;
        }
        // Shared for the rest of the process: the tasks never end.
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            board: Mutex::new(Board {
                job: None,
                waiting: vec![None; size],
            }),
            news: AtomicU64::new(0),
            on_shift: AtomicBool::new(false),
            working: AtomicUsize::new(0),
            turn: Mutex::new(()),
        }));
        for task in 0..size {
            pool.spawn(shared.serve(task)).detach();
        }
        Some(Crew { shared })
    }

    /// A step begins: the crew wakes, and between passes watches for the next one until
    /// [`Crew::dismiss`]. Waking takes a while, so this is called before the step's first pass
    /// is ready.
    pub(crate) fn call(&self) {
        self.shared.on_shift.store(true, Ordering::Release);
        self.shared.announce(&mut self.shared.board());
    }

    /// The step's passes are over: the crew gives its threads back to the pool.
    pub(crate) fn dismiss(&self) {
        self.shared.on_shift.store(false, Ordering::Release);
    }

    /// Runs `job` on this thread and on every crew task that joins in time, and returns once
    /// all of them have returned from it; `false` (and nothing run) when the crew is running
    /// another thread's pass. `job` must not unwind and must be safe to call on several threads
    /// at once (it takes its work from a shared source).
    pub(crate) fn run(&self, job: &(dyn Fn() + Sync)) -> bool {
        let Ok(_turn) = self.shared.turn.try_lock() else {
            return false;
        };
        // SAFETY: a crew task calls `job` only after taking it off the board, which it can do
        // only between here and `Offer::drop`. That drop takes `job` off the board, then waits
        // until every crew task that took it has returned from it, and it runs before
        // this function returns, also if `job` unwinds. So `job` is not called after the
        // borrow ends, and the lifetime made `'static` here is never relied on.
        let job: Job = unsafe { core::mem::transmute::<&(dyn Fn() + Sync), Job>(job) };
        let offer = Offer(self.shared);
        {
            let mut board = self.shared.board();
            board.job = Some(job);
            self.shared.announce(&mut board);
        }
        job();
        drop(offer);
        true
    }
}

/// Takes the pass off the board when dropped, and waits for the crew tasks inside it.
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

    /// Waits (at most a second) until `n` crew tasks wait for news off their threads.
    fn until_waiting(crew: &Crew, n: usize) -> bool {
        let start = Instant::now();
        while crew.shared.board().waiting.iter().flatten().count() != n {
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
        let crew = Crew::spawn(pool(2), 2).expect("a crew of two");
        let me = std::thread::current().id();
        // Off shift the crew waits off the pool's threads, and a pass wakes it.
        assert!(until_waiting(&crew, 2), "a new crew waits");
        let ran = threads_that_ran(&crew, Duration::from_micros(500));
        assert!(ran.len() >= 2 && ran.contains(&me), "{ran:?}");
        assert!(
            until_waiting(&crew, 2),
            "off shift it waits again after a pass"
        );
        // On shift it watches between passes instead (how long it watches is left to the
        // benchmark: a test that timed it would fail on a busy machine).
        crew.call();
        for pass in 0..3 {
            let ran = threads_that_ran(&crew, Duration::from_micros(500));
            assert!(ran.len() >= 2 && ran.contains(&me), "pass {pass}: {ran:?}");
        }
        crew.dismiss();
        assert!(
            until_waiting(&crew, 2),
            "dismissed, it gives its threads back"
        );
    }

    #[test]
    fn a_pass_asked_for_during_a_pass_is_refused() {
        let crew = Crew::spawn(pool(1), 1).expect("a crew of one");
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
