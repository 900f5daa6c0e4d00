//! The pairs of bodies near each other where detection saw them: the partners relaxation
//! reads besides contacts ([`NearLists`]).

/// The pairs of bodies apart (not touching) by at most twice the reach ([`PhysicsConfig::relaxation_reach`](crate::config::PhysicsConfig::relaxation_reach)) along
/// both axes where pair detection saw them, neither a one-way platform and their layers
/// interacting ([`within_reach`](crate::geometry::within_reach)), each listed from both ends.
/// The pair loop finds those with an awake end; those of two bodies it did not search (neither
/// moved since) are kept from the last step's lists, as their contacts are.
#[derive(Default)]
pub(crate) struct NearLists {
    /// Slot `k`'s list is `others[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    others: Vec<u32>,
    /// The last step's lists.
    last_starts: Vec<u32>,
    last_others: Vec<u32>,
    /// Where the next of each slot's goes, while they are filled.
    next: Vec<u32>,
    /// The pairs kept from the last step's lists.
    kept: Vec<(u32, u32)>,
}

impl NearLists {
    /// The lists of `slots` slots, from the pairs each piece of the pair loop found (`pieces`)
    /// and, when `searched(k)` says neither end's pairs were searched, the last step's; none
    /// when `reach` is 0.
    pub(crate) fn build<'a>(
        &mut self,
        slots: usize,
        reach: f32,
        pieces: impl Iterator<Item = &'a [(u32, u32)]> + Clone,
        searched: impl Fn(usize) -> bool,
    ) {
        core::mem::swap(&mut self.starts, &mut self.last_starts);
        core::mem::swap(&mut self.others, &mut self.last_others);
        self.starts.clear();
        self.others.clear();
        if reach <= 0.0 {
            return;
        }
        // The last step's pairs of two bodies not searched, from their lower slot.
        let mut kept = core::mem::take(&mut self.kept);
        kept.clear();
        let last = (&self.last_starts[..], &self.last_others[..]);
        for k in (0..slots).filter(|&k| !searched(k)) {
            let unsearched = list_of(last, k)
                .iter()
                .filter(|&&j| j as usize > k && !searched(j as usize));
            kept.extend(unsearched.map(|&j| (k as u32, j)));
        }
        self.starts.resize(slots + 1, 0);
        for (a, b) in pieces
            .clone()
            .flatten()
            .copied()
            .chain(kept.iter().copied())
        {
            self.starts[a as usize + 1] += 1;
            self.starts[b as usize + 1] += 1;
        }
        for k in 0..slots {
            self.starts[k + 1] += self.starts[k];
        }
        self.others.resize(self.starts[slots] as usize, 0);
        self.next.clear();
        self.next.extend_from_slice(&self.starts[..slots]);
        for (a, b) in pieces.flatten().copied().chain(kept.iter().copied()) {
            for (me, other) in [(a, b), (b, a)] {
                let at = &mut self.next[me as usize];
                self.others[*at as usize] = other;
                *at += 1;
            }
        }
        self.kept = kept;
    }

    /// Slot `k`'s list.
    #[inline]
    pub(crate) fn of(&self, k: usize) -> &[u32] {
        list_of((&self.starts, &self.others), k)
    }
}

fn list_of<'a>((starts, others): (&[u32], &'a [u32]), k: usize) -> &'a [u32] {
    match starts.get(k..k + 2) {
        Some(&[start, end]) => &others[start as usize..end as usize],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_lists_hold_each_pair_from_both_ends_and_only_when_relaxing() {
        let mut near = NearLists::default();
        let pieces: [&[(u32, u32)]; 2] = [&[(0, 2), (3, 1)], &[(2, 3)]];
        near.build(5, 4.0, pieces.iter().copied(), |_| true);
        assert_eq!(near.of(0), [2]);
        assert_eq!(near.of(1), [3]);
        assert_eq!(near.of(2), [0, 3]);
        assert_eq!(near.of(3), [1, 2]);
        assert_eq!(near.of(4), [] as [u32; 0]);
        // Without relaxation's reach, none.
        near.build(5, 0.0, pieces.iter().copied(), |_| true);
        assert_eq!(near.of(2), [] as [u32; 0]);
    }

    #[test]
    fn the_near_pairs_of_two_bodies_not_searched_are_kept_from_the_last_step() {
        let mut near = NearLists::default();
        let first: [&[(u32, u32)]; 1] = [&[(0, 1), (1, 2), (2, 3)]];
        near.build(4, 4.0, first.iter().copied(), |_| true);
        // Slot 1 searched: its pairs are found again (here only 1-2); 2-3 is kept, 0-1 gone.
        let second: [&[(u32, u32)]; 1] = [&[(1, 2)]];
        near.build(4, 4.0, second.iter().copied(), |k| k == 1);
        assert_eq!(near.of(0), [] as [u32; 0]);
        assert_eq!(near.of(1), [2]);
        assert_eq!(near.of(2), [1, 3]);
        assert_eq!(near.of(3), [2]);
    }
}
