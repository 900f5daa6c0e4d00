//! The screen of the pair loop: which of a cell's bodies may touch one of them, four bodies at
//! a time.
//!
//! The pair loop (`crate::pairs`) tests each searching body of a cell against every body after
//! it in the cell's list, and most of those bodies are far from it. The screen compares boxes
//! grown by the cell's widest contact tolerance, on four bodies at once (one SIMD comparison
//! per axis where the target has one, through `glam`'s `Vec4`), and keeps, in a 64-bit mask per
//! block of 64 bodies, those whose pair this cell owns ([`shared_corner_bits`]) and whose grown
//! boxes overlap. Only those are then confirmed one by one with the pair's own tolerance.
//!
//! [`shared_corner_bits`]: crate::partition::shared_corner_bits

use bevy::math::{Vec2, Vec4};

/// Four bodies' boxes, lane by lane (one cache line).
#[derive(Clone, Copy)]
struct Quad {
    x: Vec4,
    y: Vec4,
    half_x: Vec4,
    half_y: Vec4,
}

/// A lane that holds no body: infinitely far from every body, so it never passes the screen.
const NOBODY: (Vec2, Vec2, u8) = (Vec2::INFINITY, Vec2::ZERO, 0);

/// The boxes of a cell's bodies, in its list's order, laid out for the screen.
#[derive(Default)]
pub(crate) struct CellBoxes {
    quads: Vec<Quad>,
    /// Bit `j % 64` of word `j / 64`: the first cell of body `j` has the cell's column (bit 0
    /// of its corner bits).
    column: Vec<u64>,
    /// The same for the cell's row (bit 1).
    row: Vec<u64>,
    len: usize,
}

impl CellBoxes {
    /// Lays out the boxes of `bodies` (what `of` gives of each: its centre, half extents and
    /// corner bits), replacing the last cell's.
    pub(crate) fn fill<T>(&mut self, bodies: &[T], of: impl Fn(&T) -> (Vec2, Vec2, u8)) {
        self.len = bodies.len();
        self.quads.clear();
        self.column.clear();
        self.row.clear();
        for block in bodies.chunks(64) {
            let (mut column, mut row) = (0, 0);
            for (k, body) in block.iter().enumerate() {
                let corner = of(body).2;
                column |= u64::from(corner & 1) << k;
                row |= u64::from(corner >> 1 & 1) << k;
            }
            self.column.push(column);
            self.row.push(row);
        }
        for quad in bodies.chunks(4) {
            let mut lanes = [NOBODY; 4];
            for (lane, body) in lanes.iter_mut().zip(quad) {
                *lane = of(body);
            }
            let lane = |f: fn(&(Vec2, Vec2, u8)) -> f32| Vec4::from_array(lanes.each_ref().map(f));
            self.quads.push(Quad {
                x: lane(|b| b.0.x),
                y: lane(|b| b.0.y),
                half_x: lane(|b| b.1.x),
                half_y: lane(|b| b.1.y),
            });
        }
    }

    /// Screens the bodies after body `i` (box `center`, `half`, corner bits `corner`) with the
    /// tolerance `widest`: calls `block(start, owned, near)` for each block of 64 bodies from
    /// `start` (a multiple of 64) holding some of them, where bit `k` of `owned` says the pair
    /// with body `start + k` is one to test here (a later body whose pair this cell owns), and
    /// bit `k` of `near` that it is a later body and the two boxes, grown by `widest`, overlap
    /// or touch.
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
        let first = i + 1;
        if first >= self.len {
            return;
        }
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
        let (mut start, mut q) = (first / 64 * 64, first / 4);
        while q < self.quads.len() {
            let end = (start / 4 + 16).min(self.quads.len());
            let mut near = 0u64;
            for (b, lane) in self.quads[q..end].iter().zip((q * 4 % 64..).step_by(4)) {
                let reach_x = half_x + b.half_x + widest;
                let reach_y = half_y + b.half_y + widest;
                let overlaps = (x - b.x).abs().cmple(reach_x) & (y - b.y).abs().cmple(reach_y);
                near |= u64::from(overlaps.bitmask()) << lane;
            }
            let word = start / 64;
            let later = (!0u64 << (first.max(start) - start)) & lanes_below(self.len - start);
            block(start, column(word) & row(word) & later, near & later);
            (start, q) = (start + 64, end);
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

    #[test]
    fn the_screen_keeps_exactly_the_later_owned_pairs_whose_grown_boxes_meet() {
        let mut next = xorshift32(0x9E37_79B9);
        let mut unit = move || next() as f32 / u32::MAX as f32;
        for len in [0, 1, 2, 3, 4, 5, 63, 64, 65, 130, 200] {
            let bodies: Vec<(Vec2, Vec2, u8)> = (0..len)
                .map(|_| {
                    let center = Vec2::new(unit() * 100.0, unit() * 100.0);
                    let half = Vec2::new(2.0 + unit() * 10.0, 2.0 + unit() * 10.0);
                    (center, half, (unit() * 4.0) as u8 & 3)
                })
                .collect();
            let mut boxes = CellBoxes::default();
            // Stale contents of a larger cell must not leak into this one.
            boxes.fill(&[(Vec2::ZERO, Vec2::splat(50.0), 3); 300], |&b| b);
            boxes.fill(&bodies, |&b| b);
            let widest = 0.5;
            for (i, &a) in bodies.iter().enumerate() {
                let got = screened(&boxes, i, a, widest);
                let mut want = Vec::new();
                for (j, &b) in bodies.iter().enumerate().skip(i + 1) {
                    let owned = (a.2 | b.2) == 3;
                    let delta = (a.0 - b.0).abs();
                    let reach = a.1 + b.1 + widest;
                    let near = delta.x <= reach.x && delta.y <= reach.y;
                    if owned || near {
                        want.push((j, owned, near));
                    }
                }
                assert_eq!(got, want, "body {i} of {len}");
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
        boxes.fill(&bodies, |&b| b);
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
