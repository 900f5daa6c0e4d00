//! Deterministic fan-out over Bevy's compute task pool: the work is cut into the same pieces
//! whether it runs on one thread or many, so the results never depend on the thread count.

use bevy::tasks::ComputeTaskPool;

/// How many pieces chunked work is cut into (a constant, so results are the same on every
/// machine; enough to keep every core of a desktop busy).
pub(crate) const CHUNKS: usize = 64;

/// Runs `f(i, &mut outs[i])` for every `i`, on the compute task pool when `parallel` is set
/// (and a pool exists), else in order on this thread.
pub(crate) fn for_each_chunk<T: Send>(
    outs: &mut [T],
    parallel: bool,
    f: impl Fn(usize, &mut T) + Sync,
) {
    match ComputeTaskPool::try_get() {
        Some(pool) if parallel && outs.len() > 1 && pool.thread_num() > 1 => {
            let f = &f;
            pool.scope(|scope| {
                for (i, out) in outs.iter_mut().enumerate() {
                    scope.spawn(async move { f(i, out) });
                }
            });
        }
        _ => {
            for (i, out) in outs.iter_mut().enumerate() {
                f(i, out);
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
    fn sequential_fallback_visits_every_chunk() {
        let mut outs = vec![0usize; 5];
        for_each_chunk(&mut outs, false, |i, o| *o = i * 10);
        assert_eq!(outs, [0, 10, 20, 30, 40]);
    }
}
