//! The screen of the pair loop: which of a cell's bodies may touch one of them, four bodies at
//! a time.
//!
//! The pair loop (`crate::pairs`) tests each searching body of a cell against the bodies whose
//! pair with it is its to test (every later body in the cell's list, and every earlier one that
//! does not search), and most of those bodies are far from it. The screen compares boxes
//! grown by the cell's widest contact tolerance, on four bodies at once (one SIMD comparison
//! per axis where the target has one, through `glam`'s `Vec4`), and keeps, in a 64-bit mask per
//! block of 64 bodies, those whose pair this cell owns ([`shared_corner_bits`]) and whose grown
//! boxes overlap. Only those are then confirmed one by one with the pair's own tolerance.
//!
//! The boxes are kept from one step to the next with the cell's cell_cache bodies
//! (`crate::pairs::cell_cache`): only the bodies that moved are written again ([`CellBoxes::set`]).
//!
//! [`shared_corner_bits`]: crate::partition::shared_corner_bits

use bevy::math::{Vec2, Vec4};

/// Four bodies' boxes, lane by lane (one cache line; each row loads as one `Vec4`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
struct Quad {
    x: [f32; 4],
    y: [f32; 4],
    half_x: [f32; 4],
    half_y: [f32; 4],
}

/// Four lanes that hold no body: infinitely far from every body, so they never pass the
/// screen.
const NOBODY: Quad = Quad {
    x: [f32::INFINITY; 4],
    y: [f32::INFINITY; 4],
    half_x: [0.0; 4],
    half_y: [0.0; 4],
};

/// The boxes of a cell's bodies, in its list's order, laid out for the screen.
#[derive(Default, Debug, PartialEq)]
pub(crate) struct CellBoxes {
    quads: Vec<Quad>,
    /// Bit `j % 64` of word `j / 64`: the first cell of body `j` has the cell's column (bit 0
    /// of its corner bits).
    column: Vec<u64>,
    /// The same for the cell's row (bit 1).
    row: Vec<u64>,
    /// Bit `j % 64` of word `j / 64`: body `j` searches its pairs (see [`CellBoxes::screen`]).
    searching: Vec<u64>,
    len: usize,
}

impl CellBoxes {
    /// Lays out the boxes of `bodies` (what `of` gives of each: its centre, half extents and
    /// corner bits), replacing the last cell's. No body searches until
    /// [`CellBoxes::searching_mut`] says so.
    pub(crate) fn fill<T>(&mut self, bodies: &[T], of: impl Fn(&T) -> (Vec2, Vec2, u8)) {
        self.len = bodies.len();
        self.quads.clear();
        self.column.clear();
        self.row.clear();
        self.searching.clear();
        self.searching.resize(self.len.div_ceil(64), 0);
        self.quads.resize(self.len.div_ceil(4), NOBODY);
        self.column.resize(self.len.div_ceil(64), 0);
        self.row.resize(self.len.div_ceil(64), 0);
        for (j, body) in bodies.iter().enumerate() {
            self.set(j, of(body));
        }
    }

    /// Writes the box of body `j` (its centre, half extents and corner bits) over the one laid
    /// out for it.
    #[inline]
    pub(crate) fn set(&mut self, j: usize, (center, half, corner): (Vec2, Vec2, u8)) {
        let (quad, lane) = (&mut self.quads[j / 4], j % 4);
        quad.x[lane] = center.x;
        quad.y[lane] = center.y;
        quad.half_x[lane] = half.x;
        quad.half_y[lane] = half.y;
        let (word, bit) = (j / 64, j % 64);
        let put = |bits: &mut u64, on: u8| *bits = *bits & !(1 << bit) | u64::from(on) << bit;
        put(&mut self.column[word], corner & 1);
        put(&mut self.row[word], corner >> 1 & 1);
    }

    /// Which bodies search their pairs, one bit each (bit `j % 64` of word `j / 64`), to be
    /// written before the bodies are screened; the bits at or past the number of bodies stay
    /// clear.
    pub(crate) fn searching_mut(&mut self) -> &mut [u64] {
        &mut self.searching
    }

    /// Which bodies search their pairs (see [`CellBoxes::searching_mut`]).
    pub(crate) fn searching(&self) -> &[u64] {
        &self.searching
    }

    /// Screens the bodies whose pair with body `i` (a searching body: box `center`, `half`,
    /// corner bits `corner`) is `i`'s to test, the later bodies and the earlier ones that do
    /// not search, with the tolerance `widest`: calls `block(start, owned, near)` for each
    /// block of 64 bodies from `start` (a multiple of 64) holding some of them, where bit `k`
    /// of `owned` says the pair with body `start + k` is one to test here (one of those bodies,
    /// and this cell owns the pair), and bit `k` of `near` that it is one of those bodies and
    /// the two boxes, grown by `widest`, overlap or touch.
    ///
    /// The grown extents are summed in the order the confirmation sums them
    /// (`a.half + b.half + widest`), so the screen never drops a pair that the confirmation,
    /// with a tolerance no larger than `widest`, would keep.
    #[inline]
    pub(crate) fn screen(
        &self,
        i: usize,
        (center, half, corner): (Vec2, Vec2, u8),
        widest: f32,
        mut block: impl FnMut(usize, u64, u64),
    ) {
        let (x, y) = (Vec4::splat(center.x), Vec4::splat(center.y));
        let (half_x, half_y) = (Vec4::splat(half.x), Vec4::splat(half.y));
        let widest = Vec4::splat(widest);
        // Whether the pair belongs to this cell: each axis's bit set on either side.
        let column = |word: usize| {
            if corner & 1 != 0 {
                !0
            } else {
                self.column[word]
            }
        };
        let row = |word: usize| if corner & 2 != 0 { !0 } else { self.row[word] };
        for (word, start) in (0..self.len).step_by(64).enumerate() {
            // The bodies after `i`, and those that do not search (never `i` itself).
            let later = match i.checked_sub(start) {
                None => !0,
                Some(before) => (!0u64).checked_shl(before as u32 + 1).unwrap_or(0),
            };
            let theirs = (later | !self.searching[word]) & lanes_below(self.len - start);
            if theirs == 0 {
                continue;
            }
            // Only the quads holding some of them.
            let (first, last) = (
                theirs.trailing_zeros() / 4,
                (63 - theirs.leading_zeros()) / 4,
            );
            let quads = &self.quads[start / 4..][first as usize..=last as usize];
            let mut near = 0u64;
            for (b, lane) in quads.iter().zip((first * 4..).step_by(4)) {
                let lanes = Vec4::from_array;
                let reach_x = half_x + lanes(b.half_x) + widest;
                let reach_y = half_y + lanes(b.half_y) + widest;
                let overlaps =
                    (x - lanes(b.x)).abs().cmple(reach_x) & (y - lanes(b.y)).abs().cmple(reach_y);
                near |= u64::from(overlaps.bitmask()) << lane;
            }
            block(start, column(word) & row(word) & theirs, near & theirs);
        }
    }
}

/// The mask of the lanes of a block below `count` (all 64 from 64 on).
#[inline]
fn lanes_below(count: usize) -> u64 {
    if count >= 64 { !0 } else { (1 << count) - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift32;

    /// Every (owned, near) bit the screen gives for body `i`, as a list of (j, owned, near).
    fn screened(
        boxes: &CellBoxes,
        i: usize,
        a: (Vec2, Vec2, u8),
        widest: f32,
    ) -> Vec<(usize, bool, bool)> {
        let mut out = Vec::new();
        boxes.screen(i, a, widest, |start, owned, near| {
            assert_eq!(start % 64, 0, "blocks start at multiples of 64");
            for k in 0..64 {
                if (owned | near) >> k & 1 != 0 {
                    out.push((start + k, owned >> k & 1 != 0, near >> k & 1 != 0));
                }
            }
        });
        out
    }

    /// Random bodies in a cell of `len`, every third one not searching.
    fn random_cell(
        len: usize,
        unit: &mut impl FnMut() -> f32,
    ) -> (Vec<(Vec2, Vec2, u8)>, Vec<bool>) {
        let bodies = (0..len)
            .map(|_| {
                let center = Vec2::new(unit() * 100.0, unit() * 100.0);
                let half = Vec2::new(2.0 + unit() * 10.0, 2.0 + unit() * 10.0);
                (center, half, (unit() * 4.0) as u8 & 3)
            })
            .collect();
        let searching = (0..len).map(|j| unit() < 0.66 || j == 0).collect();
        (bodies, searching)
    }

    /// Lays out `bodies` in `boxes`, with which of them search.
    fn lay_out(boxes: &mut CellBoxes, bodies: &[(Vec2, Vec2, u8)], searching: &[bool]) {
        boxes.fill(bodies, |&b| b);
        let words = boxes.searching_mut();
        words.fill(0);
        for (j, _) in searching.iter().enumerate().filter(|s| *s.1) {
            words[j / 64] |= 1 << (j % 64);
        }
    }

    /// What the screen must give for searching body `i`: every body after it or not
    /// searching, with whether the cell owns the pair and whether the grown boxes meet.
    fn wanted(
        bodies: &[(Vec2, Vec2, u8)],
        searching: &[bool],
        i: usize,
        widest: f32,
    ) -> Vec<(usize, bool, bool)> {
        let a = bodies[i];
        let mut want = Vec::new();
        for (j, &b) in bodies.iter().enumerate() {
            if j == i || (j < i && searching[j]) {
                continue;
            }
            let owned = (a.2 | b.2) == 3;
            let delta = (a.0 - b.0).abs();
            let reach = a.1 + b.1 + widest;
            let near = delta.x <= reach.x && delta.y <= reach.y;
            if owned || near {
                want.push((j, owned, near));
            }
        }
        want
    }

    #[test]
    fn the_screen_keeps_exactly_the_owned_pairs_to_test_whose_grown_boxes_meet() {
        let mut next = xorshift32(0x9E37_79B9);
        let mut unit = move || next() as f32 / u32::MAX as f32;
        for len in [0, 1, 2, 3, 4, 5, 63, 64, 65, 130, 200] {
            let (bodies, searching) = random_cell(len, &mut unit);
            let mut boxes = CellBoxes::default();
            // Stale contents of a larger cell must not leak into this one.
            lay_out(
                &mut boxes,
                &[(Vec2::ZERO, Vec2::splat(50.0), 3); 300],
                &[true; 300],
            );
            lay_out(&mut boxes, &bodies, &searching);
            let widest = 0.5;
            for (i, &a) in bodies.iter().enumerate().filter(|&(i, _)| searching[i]) {
                let got = screened(&boxes, i, a, widest);
                assert_eq!(
                    got,
                    wanted(&bodies, &searching, i, widest),
                    "body {i} of {len}"
                );
            }
        }
    }

    #[test]
    fn a_box_set_again_is_screened_as_if_laid_out_with_it() {
        let mut next = xorshift32(0x1234_5678);
        let mut unit = move || next() as f32 / u32::MAX as f32;
        for len in [1, 5, 64, 130] {
            let (mut bodies, searching) = random_cell(len, &mut unit);
            let mut boxes = CellBoxes::default();
            lay_out(&mut boxes, &bodies, &searching);
            // Every other body moves and changes size and corner bits.
            for j in (0..len).step_by(2) {
                let (center, half, corner) = bodies[j];
                bodies[j] = (center + Vec2::new(7.0, -5.0), half * 0.5, 3 - corner);
                boxes.set(j, bodies[j]);
            }
            for (i, &a) in bodies.iter().enumerate().filter(|&(i, _)| searching[i]) {
                let got = screened(&boxes, i, a, 0.25);
                assert_eq!(
                    got,
                    wanted(&bodies, &searching, i, 0.25),
                    "body {i} of {len}"
                );
            }
        }
    }

    #[test]
    fn boxes_that_only_touch_pass_the_screen() {
        let mut boxes = CellBoxes::default();
        let a = (Vec2::ZERO, Vec2::ONE, 3);
        let bodies = [
            a,
            (Vec2::new(2.0, 0.0), Vec2::ONE, 3),
            (Vec2::new(2.5, 0.0), Vec2::ONE, 3),
        ];
        lay_out(&mut boxes, &bodies, &[true; 3]);
        assert_eq!(
            screened(&boxes, 0, a, 0.0),
            [(1, true, true), (2, true, false)]
        );
        assert_eq!(
            screened(&boxes, 0, a, 0.5),
            [(1, true, true), (2, true, true)]
        );
    }
}
