//! Table rows read as slices. The per-body systems walk each table's columns directly instead
//! of fetching every body's components one by one through the query (about a third fewer
//! instructions in a pass over many bodies), and mark change ticks themselves, exactly where
//! Bevy's `Mut` would: on every mutable access, except the writes made through
//! [`Tracked::bypass_change_detection`] (the push flags, marked once per step if they changed).
//!
//! With Bevy's location tracking on (its `track_location` feature, for debugging), each pass
//! also records itself as the writer of the rows it wrote ([`stamp_writes`]), so `Ref::changed_by`
//! names the physics stage that last changed a body's `Velocity` or `Aabb`.
//!
//! All of it goes through Bevy's public contiguous API, the way its docs describe:
//! `ContiguousMut::bypass_change_detection_split`, then the tick slices of
//! `ContiguousComponentTicksMut` (`changed_mut`, `changed_by_mut`) and `Tick::is_newer_than`.
//! Bevy 0.19 gives no per-row `Mut` over a contiguous column (`Mut::new` needs a row's added
//! tick, changed tick and location borrowed at once, which those accessors cannot give
//! together), and `ContiguousMut`'s own marking marks every row, which would make every resting
//! body `Changed`. Hence [`Tracked`]: the few lines of `Mut` the passes need.

use bevy::ecs::change_detection::{
    ContiguousComponentTicksMut, ContiguousMut, ContiguousRef, MaybeLocation, Tick,
};
use bevy::ecs::query::{QueryData, QueryFilter};
use bevy::ecs::system::Query;
use core::ops::{Deref, DerefMut};

use crate::fast::parallel::{CHUNKS, Threads, chunk_range, run_pieces};

/// The message when a physics query cannot be read as slices, which happens only when a
/// physics component is given sparse-set storage.
pub(crate) const DENSE: &str = "the physics components are stored in tables";

/// The values and ticks of a `ContiguousMut`, for [`Column::new`] (change detection is left to
/// the column, which marks each row it writes).
#[inline]
pub(crate) fn unpack<T>(
    column: ContiguousMut<'_, T>,
) -> (&mut [T], ContiguousComponentTicksMut<'_>) {
    ContiguousMut::bypass_change_detection_split(column)
}

/// Records `writer` as the location that changed every row of `column` written in this run
/// (its change tick is this run's), for Bevy's `track_location`. A pass over the change ticks,
/// after the writes; nothing at all when location tracking is off.
pub(crate) fn stamp_writes<T>(
    column: &mut (&mut [T], ContiguousComponentTicksMut<'_>),
    writer: MaybeLocation,
) {
    let Some(writer) = writer.into_option() else {
        return;
    };
    let ticks = &mut column.1;
    let this_run = ticks.this_run();
    let len = ticks.changed().len();
    // In blocks of 64 rows: the ticks are read, then the locations written (the two cannot be
    // borrowed at once), with nothing allocated.
    for start in (0..len).step_by(64) {
        let rows = start..(start + 64).min(len);
        let written = (ticks.changed()[rows.clone()].iter().enumerate())
            .fold(0u64, |bits, (k, &tick)| {
                bits | u64::from(tick == this_run) << k
            });
        ticks.changed_by_mut().map(|by| {
            for (k, by) in by[rows].iter_mut().enumerate() {
                if written >> k & 1 != 0 {
                    *by = writer;
                }
            }
        });
    }
}

/// How many rows a pass that picks its rows with [`mark_newer`] marks at a time.
pub(crate) const BLOCK: usize = 64;

/// Where the block of rows that begins at `start` ends, in a pass over `len` rows.
#[inline]
pub(crate) fn end_of_block(start: usize, len: usize) -> usize {
    (start + BLOCK).min(len)
}

/// Calls `f` with the index of each nonzero mark (each 0 or 1) of a block, in order, reading
/// eight marks at a time.
#[inline]
pub(crate) fn for_each_marked(marks: &[u8; BLOCK], mut f: impl FnMut(usize)) {
    for (word, eight) in marks.chunks_exact(8).enumerate() {
        let mut bits = u64::from_le_bytes(eight.try_into().expect("eight marks"));
        while bits != 0 {
            f(word * 8 + bits.trailing_zeros() as usize / 8);
            bits &= bits - 1;
        }
    }
}

/// Sets `marks[i]` to 1 for each tick `ticks[i]` newer than `last_run` (seen from `this_run`,
/// by Bevy's [`Tick::is_newer_than`]), leaving the others as they are. A pass that leaves most
/// rows alone finds the few it must look at this way, a run of rows at a time (the compiler
/// does several rows per instruction), instead of testing each row's ticks one by one.
#[inline]
pub(crate) fn mark_newer(ticks: &[Tick], (last_run, this_run): (Tick, Tick), marks: &mut [u8]) {
    for (mark, tick) in marks.iter_mut().zip(ticks) {
        *mark |= u8::from(tick.is_newer_than(last_run, this_run));
    }
}

/// A mutable component column of one table (or a piece of one), with its change ticks.
pub(crate) struct Column<'a, T> {
    values: &'a mut [T],
    changed: &'a mut [Tick],
    last_run: Tick,
    this_run: Tick,
}

impl<'a, T> Column<'a, T> {
    /// The column of the values and ticks [`unpack`] gave.
    #[inline]
    pub(crate) fn new(split: &'a mut (&mut [T], ContiguousComponentTicksMut<'_>)) -> Self {
        let (values, ticks) = split;
        let (last_run, this_run) = (ticks.last_run(), ticks.this_run());
        Self {
            values,
            changed: ticks.changed_mut(),
            last_run,
            this_run,
        }
    }

    /// Marks (see [`mark_newer`]) the rows from `start` on that were changed since the system
    /// last ran, by anyone, one mark per row.
    #[inline]
    pub(crate) fn mark_changed(&self, start: usize, marks: &mut [u8]) {
        mark_newer(
            &self.changed[start..],
            (self.last_run, self.this_run),
            marks,
        );
    }

    /// Row `row`, marking itself changed when written.
    #[inline]
    pub(crate) fn at(&mut self, row: usize) -> Tracked<'_, T> {
        Tracked {
            value: &mut self.values[row],
            changed: &mut self.changed[row],
            last_run: self.last_run,
            this_run: self.this_run,
        }
    }

    /// How many rows.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.values.len().min(self.changed.len())
    }

    /// The rows in order, each marking itself changed when written.
    #[inline]
    pub(crate) fn iter(&mut self) -> impl Iterator<Item = Tracked<'_, T>> {
        let (last_run, this_run) = (self.last_run, self.this_run);
        (self.values.iter_mut().zip(self.changed.iter_mut())).map(move |(value, changed)| Tracked {
            value,
            changed,
            last_run,
            this_run,
        })
    }
}

/// One component of one body: reads are free, every mutable access marks it changed (like
/// Bevy's `Mut`).
pub(crate) struct Tracked<'a, T> {
    value: &'a mut T,
    changed: &'a mut Tick,
    last_run: Tick,
    this_run: Tick,
}

impl<T> Tracked<'_, T> {
    /// Whether it was changed (or added) since the system last ran, by anyone, this system's
    /// own writes of this run included (like Bevy's `Mut::is_changed`).
    #[inline]
    pub(crate) fn is_changed(&self) -> bool {
        self.changed.is_newer_than(self.last_run, self.this_run)
    }

    /// The value, to write without marking it changed (like Bevy's
    /// `Mut::bypass_change_detection`): for a component whose writer marks it once, at the end,
    /// if its value then differs ([`set_changed`](Self::set_changed)).
    #[inline]
    pub(crate) fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// Marks it changed.
    #[inline]
    pub(crate) fn set_changed(&mut self) {
        *self.changed = self.this_run;
    }
}

impl<T> Deref for Tracked<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for Tracked<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

/// Which rows of a column were changed or added since the system last ran (the read side of a
/// `ContiguousRef`).
#[derive(Clone, Copy)]
pub(crate) struct Changes<'a> {
    ticks: &'a [Tick],
    last_run: Tick,
    this_run: Tick,
}

impl<'a> Changes<'a> {
    /// The rows of `column` changed since the system last ran.
    #[inline]
    pub(crate) fn changed<T>(column: &ContiguousRef<'a, T>) -> Self {
        Self {
            ticks: column.changed_ticks_slice(),
            last_run: column.last_run_tick(),
            this_run: column.this_run_tick(),
        }
    }

    /// The rows of `column` added since the system last ran.
    #[inline]
    pub(crate) fn added<T>(column: &ContiguousRef<'a, T>) -> Self {
        Self {
            ticks: column.added_ticks_slice(),
            ..Self::changed(column)
        }
    }

    /// Whether row `row` is among them.
    #[inline]
    pub(crate) fn at(&self, row: usize) -> bool {
        self.ticks[row].is_newer_than(self.last_run, self.this_run)
    }

    /// Marks (see [`mark_newer`]) those from row `start` on, one mark per row.
    #[inline]
    pub(crate) fn mark(&self, start: usize, marks: &mut [u8]) {
        mark_newer(&self.ticks[start..], (self.last_run, self.this_run), marks);
    }

    /// For each row in order, whether it is among them.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.ticks.len()).map(|row| self.at(row))
    }
}

impl Rows for Changes<'_> {
    #[inline]
    fn row_count(&self) -> usize {
        self.ticks.len()
    }

    #[inline]
    fn split_rows(self, at: usize) -> (Self, Self) {
        let (a, b) = self.ticks.split_at(at);
        (Self { ticks: a, ..self }, Self { ticks: b, ..self })
    }
}

/// Columns of the same rows that can be cut into consecutive pieces, each piece going to its
/// own task.
pub(crate) trait Rows: Send + Sized {
    /// How many rows every column has (the shortest column's count; `usize::MAX` for a column
    /// every row shares). A loop over `0..row_count()` indexes each column without a bounds
    /// check.
    fn row_count(&self) -> usize;

    /// Rows `..at` and `at..`.
    fn split_rows(self, at: usize) -> (Self, Self);
}

impl<T: Sync> Rows for &[T] {
    #[inline]
    fn row_count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn split_rows(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }
}

impl<T: Send> Rows for &mut [T] {
    #[inline]
    fn row_count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn split_rows(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }
}

impl<T: Send> Rows for Column<'_, T> {
    #[inline]
    fn row_count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn split_rows(self, at: usize) -> (Self, Self) {
        let (va, vb) = self.values.split_at_mut(at);
        let (ca, cb) = self.changed.split_at_mut(at);
        let (last_run, this_run) = (self.last_run, self.this_run);
        let piece = |values, changed| Column {
            values,
            changed,
            last_run,
            this_run,
        };
        (piece(va, ca), piece(vb, cb))
    }
}

/// A column a table may not have (`Option<&T>` gives one per table).
impl<R: Rows> Rows for Option<R> {
    #[inline]
    fn row_count(&self) -> usize {
        self.as_ref().map_or(usize::MAX, Rows::row_count)
    }

    #[inline]
    fn split_rows(self, at: usize) -> (Self, Self) {
        match self {
            Some(rows) => {
                let (a, b) = rows.split_rows(at);
                (Some(a), Some(b))
            }
            None => (None, None),
        }
    }
}

/// A column every row shares (`Has<T>` gives one per table).
impl Rows for bool {
    #[inline]
    fn row_count(&self) -> usize {
        usize::MAX
    }

    #[inline]
    fn split_rows(self, _: usize) -> (Self, Self) {
        (self, self)
    }
}

macro_rules! rows_for_tuple {
    ($($name:ident)+) => {
        impl<$($name: Rows),+> Rows for ($($name,)+) {
            #[inline]
            #[allow(non_snake_case, reason = "the tuple's type parameters name its fields")]
            fn row_count(&self) -> usize {
                let ($($name,)+) = self;
                usize::MAX $(.min($name.row_count()))+
            }

            #[inline]
            #[allow(non_snake_case, reason = "the tuple's type parameters name its fields")]
            fn split_rows(self, at: usize) -> (Self, Self) {
                let ($($name,)+) = self;
                $(let $name = $name.split_rows(at);)+
                (($($name.0,)+), ($($name.1,)+))
            }
        }
    };
}
rows_for_tuple!(A B);
rows_for_tuple!(A B C);
rows_for_tuple!(A B C D);
rows_for_tuple!(A B C D E);
rows_for_tuple!(A B C D E F);
rows_for_tuple!(A B C D E F G);
rows_for_tuple!(A B C D E F G H);

/// How many rows `query` holds (exact for the archetypal filters the physics queries use), and
/// whether a pass over them is spread over several threads (at least `parallel_min` rows).
pub(crate) fn count_rows<D: QueryData, F: QueryFilter>(
    query: &Query<D, F>,
    parallel_min: usize,
) -> (usize, bool) {
    let total = query.iter().size_hint().1.unwrap_or(usize::MAX);
    (total, total >= parallel_min)
}

/// The fewest rows [`for_each_piece`] gives a piece: a table of fewer than twice as many is
/// handled in one call on this thread, as spreading it over threads costs more than it
/// saves (the benchmark's kinematic platforms, one table of 320 bodies beside 16 000).
const MIN_PIECE_ROWS: usize = 512;

/// Runs `f` on the `len` rows of one table: in one call on this thread, or, given `threads`,
/// cut into consecutive pieces (one per
/// `CHUNKS`-th of the `total` rows of all tables, so a small table is never cut, and at least
/// [`MIN_PIECE_ROWS`] each) on the physics' threads ([`crate::fast::workers`]). Each row must be
/// handled on its own, so the result does not depend on the cut.
pub(crate) fn for_each_piece<R: Rows>(
    rows: R,
    len: usize,
    total: usize,
    threads: Threads,
    f: impl Fn(R) + Sync,
) {
    let pieces = (len * CHUNKS)
        .div_ceil(total.max(1))
        .min(len / MIN_PIECE_ROWS)
        .clamp(1, CHUNKS);
    let Some(workers) = threads.filter(|_| pieces > 1) else {
        f(rows);
        return;
    };
    let (mut rest, mut start, mut i) = (Some(rows), 0, 0);
    let next = move || {
        let rows = rest.take()?;
        let end = chunk_range(i, pieces, len).end;
        i += 1;
        if i == pieces {
            return Some(rows);
        }
        let (piece, tail) = rows.split_rows(end - start);
        (rest, start) = (Some(tail), end);
        Some(piece)
    };
    run_pieces(Some(workers), next, f);
}

/// Cuts `rows` (columns of `len` rows) into `pieces` nearly equal consecutive pieces
/// ([`chunk_range`]) and runs `f(range of rows, piece)` for each on `threads`.
pub(crate) fn for_each_row_chunk<R: Rows>(
    rows: R,
    len: usize,
    pieces: usize,
    threads: Threads,
    f: impl Fn(core::ops::Range<usize>, R) + Sync,
) {
    let (mut rest, mut i) = (Some(rows), 0);
    let mut cut = move || {
        if i == pieces {
            return None;
        }
        let range = chunk_range(i, pieces, len);
        let (head, tail) = rest.take()?.split_rows(range.len());
        rest = Some(tail);
        i += 1;
        Some((range, head))
    };
    match threads {
        Some(workers) => run_pieces(Some(workers), cut, |(range, rows)| f(range, rows)),
        None => {
            while let Some((range, rows)) = cut() {
                f(range, rows);
            }
        }
    }
}

/// A hint to load `value`'s cache line; it never faults and changes nothing. An `unsafe` for a
/// measured reason: it shortens pair detection in large piles, more than a plain read in its
/// place does.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    // SAFETY: a prefetch only hints the cache; it reads nothing the program sees and cannot
    // fault. SSE, which it needs, is part of every x86_64 processor.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::ecs::change_detection::MAX_CHANGE_AGE;

    #[test]
    fn pieces_cover_every_row_once() {
        // Without workers: one call with every row.
        let values = [1u32, 2, 3, 4, 5];
        let calls = std::sync::Mutex::new(Vec::new());
        for_each_piece(&values[..], 5, 5, None, |piece: &[u32]| {
            calls.lock().unwrap().push(piece.to_vec());
        });
        assert_eq!(calls.into_inner().unwrap(), [vec![1, 2, 3, 4, 5]]);
        // Cut by hand: the tuple's columns are cut at the same row.
        let a = [1u8, 2, 3, 4];
        let b = [10u16, 20, 30, 40];
        let ((a0, b0, k0), (a1, b1, k1)) = (&a[..], &b[..], true).split_rows(1);
        assert_eq!((a0, b0, k0), (&[1u8][..], &[10u16][..], true));
        assert_eq!((a1, b1, k1), (&[2u8, 3, 4][..], &[20u16, 30, 40][..], true));
    }

    #[test]
    fn a_tuples_row_count_is_its_shortest_columns() {
        let (a, b) = ([1u8, 2, 3], [4u16, 5]);
        assert_eq!((&a[..], &b[..]).row_count(), 2);
        // Columns every row shares, and a column the table does not have, set no bound.
        assert_eq!((&a[..], true, None::<&[u8]>).row_count(), 3);
        assert_eq!((&b[..], Some(&a[..])).row_count(), 2);
        assert_eq!((true, false).row_count(), usize::MAX);
    }

    #[test]
    fn each_marked_row_is_visited_once_in_order() {
        let mut marks = [0u8; BLOCK];
        for i in [0, 7, 8, 9, 30, 63] {
            marks[i] = 1;
        }
        let mut seen = Vec::new();
        for_each_marked(&marks, |i| seen.push(i));
        assert_eq!(seen, [0, 7, 8, 9, 30, 63]);
        for_each_marked(&[0; BLOCK], |_| panic!("nothing is marked"));
        assert_eq!(end_of_block(128, 150), 150);
        assert_eq!(end_of_block(0, 150), BLOCK);
    }

    #[test]
    fn marks_are_is_newer_than_for_every_age_and_wraparound() {
        // Ticks around the system's last run, its present, and the cap of change ages, with the
        // world's tick near zero and wrapped around.
        for now in [9u32, 1_000, 7, u32::MAX - 3] {
            for gap in [
                0u32,
                1,
                4,
                MAX_CHANGE_AGE - 1,
                MAX_CHANGE_AGE,
                MAX_CHANGE_AGE + 5,
            ] {
                let (last_run, this_run) = (Tick::new(now.wrapping_sub(gap)), Tick::new(now));
                let ages = [0u32, 1, 2, 3, 4, 5, 9, 1 << 31, MAX_CHANGE_AGE, u32::MAX];
                let ages = ages
                    .iter()
                    .flat_map(|&a| [a, gap.wrapping_sub(1), gap, gap + 1]);
                let ticks: Vec<Tick> = ages.map(|age| Tick::new(now.wrapping_sub(age))).collect();
                let mut marks = vec![0u8; ticks.len()];
                mark_newer(&ticks, (last_run, this_run), &mut marks);
                for (tick, mark) in ticks.iter().zip(&marks) {
                    let newer = tick.is_newer_than(last_run, this_run);
                    assert_eq!(*mark == 1, newer, "{tick:?} at {now} since {last_run:?}");
                }
                // A mark already set stays set.
                let mut set = vec![1u8; ticks.len()];
                mark_newer(&ticks, (last_run, this_run), &mut set);
                assert!(set.iter().all(|&m| m == 1));
            }
        }
    }

    #[test]
    fn tracked_rows_mark_only_what_is_written() {
        let mut values = [1u32, 2, 3];
        let mut ticks = [Tick::new(1); 3];
        let mut column = Column {
            values: &mut values,
            changed: &mut ticks,
            last_run: Tick::new(5),
            this_run: Tick::new(9),
        };
        {
            let mut rows = column.iter();
            let first = rows.next().unwrap();
            assert_eq!(*first, 1, "a read leaves the tick");
            assert!(
                !first.is_changed(),
                "written at tick 1, before the last run (5)"
            );
            let mut second = rows.next().unwrap();
            *second = 7;
            assert!(second.is_changed(), "its own write counts");
        }
        let (_, mut tail) = column.split_rows(2);
        *tail.iter().next().unwrap() += 1;
        assert_eq!(values, [1, 7, 4]);
        assert_eq!(ticks.map(|t| t.get()), [1, 9, 9]);
    }
}
