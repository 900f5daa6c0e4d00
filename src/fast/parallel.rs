//! Deterministic fan-out over the physics [`WorkerTasks`]: the work is cut into the same pieces
//! whether it runs on one thread or many, so the results never depend on the thread count.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Mutex, PoisonError};

use crate::fast::workers::WorkerTasks;

/// How many pieces chunked work is cut into (a constant, so results are the same on every
/// machine; enough to keep every core of a desktop busy).
pub(crate) const CHUNKS: usize = 64;

/// The threads a pass runs on: the app's workers beside this thread, or `None` for this thread
/// alone ([`crate::fast::workers::Workers::threads`]).
pub(crate) type Threads<'a> = Option<&'a WorkerTasks>;

/// Runs `f(i, &mut outs[i])` for every `i`, on `threads`.
pub(crate) fn for_each_chunk<T: Send>(
    outs: &mut [T],
    threads: Threads,
    f: impl Fn(usize, &mut T) + Sync,
) {
    let mut pieces = outs.iter_mut().enumerate();
    match threads.filter(|_| pieces.len() > 1) {
        Some(workers) => run_pieces(Some(workers), move || pieces.next(), |(i, out)| f(i, out)),
        // A plain loop: the same pieces with nothing between them (cheaper than `run_pieces`
        // without workers).
        None => pieces.for_each(|(i, out)| f(i, out)),
    }
}

/// Runs `work` on every piece `next` hands out (until it hands out `None`): on this thread and
/// every free thread of `workers`, each taking the next piece when it is done with one, or on
/// this thread alone without workers (or while the workers run another pass). So the pieces
/// (and what each computes) are the same on any number of threads, and a slow piece does not
/// hold the others up. Nothing is allocated: the workers wait for passes, where a
/// task-pool scope would spawn a task (a heap allocation) per pass and thread.
///
/// A panicking piece does not stop the others: the first panic is resumed once every piece
/// ran.
pub(crate) fn run_pieces<P: Send>(
    workers: Threads,
    next: impl FnMut() -> Option<P> + Send,
    work: impl Fn(P) + Sync,
) {
    let next = &Mutex::new(next);
    let work = &work;
    let panicked = &Mutex::new(None);
    let take_pieces = move || {
        loop {
            // A panic while a piece is cut poisons the lock: the others carry on.
            let piece = next.lock().unwrap_or_else(PoisonError::into_inner)();
            let Some(piece) = piece else { break };
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| work(piece))) {
                let mut first = panicked.lock().unwrap_or_else(PoisonError::into_inner);
                first.get_or_insert(payload);
            }
        }
    };
    if !workers.is_some_and(|workers| workers.run(&take_pieces)) {
        take_pieces();
    }
    let first = panicked
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(payload) = first {
        resume_unwind(payload);
    }
}

/// Cuts `a` and `b` into `pieces` consecutive pieces each, piece `i` of `a` ending at
/// `end(i).0` and of `b` at `end(i).1` (both non-decreasing, the last ones the lengths), and
/// runs `f(i, piece of a, piece of b)` for each on `threads`. The pieces are disjoint, so each
/// thread writes only its own.
pub(crate) fn for_each_split<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    pieces: usize,
    end: impl Fn(usize) -> (usize, usize) + Send,
    threads: Threads,
    f: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    let (mut rest_a, mut rest_b, mut start, mut i) = (a, b, (0, 0), 0);
    let mut cut = move || {
        if i == pieces {
            return None;
        }
        let (end_a, end_b) = end(i);
        let (len_a, len_b) = (end_a - start.0, end_b - start.1);
        start = (end_a, end_b);
        let (head_a, tail_a) = core::mem::take(&mut rest_a).split_at_mut(len_a);
        let (head_b, tail_b) = core::mem::take(&mut rest_b).split_at_mut(len_b);
        (rest_a, rest_b) = (tail_a, tail_b);
        i += 1;
        Some((i - 1, head_a, head_b))
    };
    match threads {
        Some(workers) => run_pieces(Some(workers), cut, |(i, pa, pb)| f(i, pa, pb)),
        None => {
            while let Some((i, pa, pb)) = cut() {
                f(i, pa, pb);
            }
        }
    }
}

/// The `i`-th of `n` nearly equal pieces of `0..len`.
#[inline]
pub(crate) fn chunk_range(i: usize, n: usize, len: usize) -> core::ops::Range<usize> {
    (i * len / n)..((i + 1) * len / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_range_once_in_order() {
        let mut next = 0;
        for i in 0..7 {
            let r = chunk_range(i, 7, 100);
            assert_eq!(r.start, next);
            next = r.end;
        }
        assert_eq!(next, 100);
        assert_eq!(
            chunk_range(3, 64, 10).len(),
            0,
            "more pieces than items: empty pieces"
        );
    }

    #[test]
    fn split_pieces_are_disjoint_and_cover_both_slices() {
        let mut a = vec![0usize; 100];
        let mut b = vec![0u8; 300];
        let end = |i: usize| {
            let k = chunk_range(i, CHUNKS, 100).end;
            (k, 3 * k)
        };
        for_each_split(&mut a, &mut b, CHUNKS, end, None, |i, pa, pb| {
            assert_eq!(pa.len(), chunk_range(i, CHUNKS, 100).len());
            assert_eq!(3 * pa.len(), pb.len());
            pa.iter_mut().for_each(|x| *x = i + 1);
            pb.iter_mut().for_each(|x| *x += 1);
        });
        let expected: Vec<usize> = (0..100)
            .map(|k| {
                (0..CHUNKS)
                    .find(|&i| chunk_range(i, CHUNKS, 100).contains(&k))
                    .unwrap()
                    + 1
            })
            .collect();
        assert_eq!(a, expected);
        assert!(b.iter().all(|&x| x == 1), "each element written once");
    }

    #[test]
    fn a_panicking_piece_is_reported_once_every_other_piece_ran() {
        let pool = Box::leak(Box::new(
            bevy::tasks::TaskPoolBuilder::new().num_threads(1).build(),
        ));
        for workers in [None, WorkerTasks::spawn(pool, 1)] {
            let threads = if workers.is_some() { 2 } else { 1 };
            // Pieces slow enough that both threads take some: whichever thread the failing
            // one lands on, every other piece runs before the panic comes out.
            for bad in 10..20 {
                let done = std::sync::atomic::AtomicUsize::new(0);
                let mut pieces = 0..64;
                let result = catch_unwind(AssertUnwindSafe(|| {
                    run_pieces(
                        workers.as_ref(),
                        move || pieces.next(),
                        |i| {
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            assert_ne!(i, bad, "piece {bad} fails");
                            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        },
                    );
                }));
                assert!(result.is_err(), "the panic of piece {bad} comes out");
                assert_eq!(
                    done.into_inner(),
                    63,
                    "every other piece ran ({threads} threads, piece {bad} failed)"
                );
            }
        }
    }

    #[test]
    fn sequential_fallback_visits_every_chunk() {
        let mut outs = vec![0usize; 5];
        for_each_chunk(&mut outs, None, |i, o| *o = i * 10);
        assert_eq!(outs, [0, 10, 20, 30, 40]);
    }
}
