//! The groups relaxation solves apart: each body the response left unsettled, with every body
//! linked to it through partners, laid out group after group with partner lists by place in
//! the group; and the cutting of the groups into pieces for the workers' threads.
//!
//! A body's partners are its contacts at detection and its near pairs (detection's lists), and
//! the bodies near it or touching it where the response left them when the response moved it
//! **far** (more than half the reach, along either axis). Two bodies neither of which moved far
//! touch after the response only if they were within the reach of each other at detection, so
//! they are in each other's near list already; a far body is searched where the response left it,
//! in the partition's cells (which file every body by its box at detection grown by the reach)
//! and against the other far bodies.

use bevy::prelude::*;

use super::pass::{ALL_SIDES, Mobility, Partners, RelaxBody};
use crate::body::Aabb;
use crate::geometry::{pair_skin, signed_overlap_within, within_reach};
use crate::pairs::store::ContactStore;
use crate::partition::Partition;
use crate::response::ended::ResponseEnds;
use crate::tiles::collide::PassThrough;

/// The groups of one step, in one layout.
#[derive(Default)]
pub(super) struct Groups {
    /// The bodies of every group, group after group, as relaxation moves them.
    pub(super) bodies: Vec<RelaxBody>,
    /// Each body's slot in the contact layout.
    pub(super) slots: Vec<u32>,
    /// Where each group ends in `bodies` (group `g` starts where group `g - 1` ends).
    pub(super) ends: Vec<u32>,
    /// Body `i`'s partners, by place in its group, are `others[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    others: Vec<u32>,
    /// By slot: its place in `bodies` ([`NOWHERE`]: in no group).
    place: Vec<u32>,
    /// The bodies the response moved far, by slot.
    far: Vec<u32>,
    /// The pairs of a far body touching where the response left them that are neither contacts
    /// nor near pairs, from both ends, sorted.
    far_pairs: Vec<(u32, u32)>,
}

const NOWHERE: u32 = u32::MAX;

/// What the step left for relaxation: detection's contact layout, and where the response left
/// each body.
pub(super) type Step<'a> = (&'a ContactStore, &'a ResponseEnds);

/// Slot `k` as relaxation's passes begin: a body the response handled where it left it,
/// blocked where it touches tiles; any other (kinematic, or an empty slot) where detection saw
/// it, never moved. And whether it is quiet (see [`ResponseEnd::quiet`]).
///
/// [`ResponseEnd::quiet`]: crate::response::ended::ResponseEnd::quiet
fn body_of((layout, ends): Step, k: usize) -> (RelaxBody, bool) {
    let snap = &layout.records[k];
    let Some(end) = ends.end(layout, k) else {
        let body = RelaxBody {
            center: snap.center,
            half: snap.half,
            blocked: ALL_SIDES,
            id: snap.entity.to_bits(),
            mobility: Mobility::Fixed,
        };
        return (body, true);
    };
    let mobility = match end.free {
        true => Mobility::Free,
        false => Mobility::Swept(PassThrough {
            drop_through: end.drop_through,
            climbing: end.climbing,
        }),
    };
    let body = RelaxBody {
        center: end.center,
        half: snap.half,
        blocked: end.tile_sides,
        id: snap.entity.to_bits(),
        mobility,
    };
    (body, end.quiet)
}

impl Groups {
    /// The groups of the step in `layout`: from each body that is not quiet, in slot order,
    /// every body linked to it through partners (its contacts at detection and its near
    /// pairs), each group's in the order they are reached.
    pub(super) fn build(&mut self, step: Step, (partition, touch): (&Partition, f32)) {
        let layout = step.0;
        let slots = layout.records.len();
        self.find_far_pairs(step, (partition, touch));
        self.bodies.clear();
        self.slots.clear();
        self.ends.clear();
        self.place.clear();
        self.place.resize(slots, NOWHERE);
        let far_pairs = &self.far_pairs;
        let partners = |k: usize| {
            let contacts = layout.now.links_of(k).iter().map(|l| l.other);
            let first = far_pairs.partition_point(|&(a, _)| (a as usize) < k);
            let far = far_pairs[first..]
                .iter()
                .take_while(move |&&(a, _)| a as usize == k);
            let far = far.map(|&(_, j)| j);
            contacts.chain(layout.near.of(k).iter().copied()).chain(far)
        };
        for root in 0..slots {
            if self.place[root] != NOWHERE {
                continue;
            }
            let (body, quiet) = body_of(step, root);
            if quiet {
                continue;
            }
            let start = self.slots.len();
            self.place[root] = start as u32;
            self.slots.push(root as u32);
            self.bodies.push(body);
            let mut next = start;
            while let Some(&k) = self.slots.get(next) {
                next += 1;
                for j in partners(k as usize) {
                    if self.place[j as usize] == NOWHERE {
                        self.place[j as usize] = self.slots.len() as u32;
                        self.slots.push(j);
                        self.bodies.push(body_of(step, j as usize).0);
                    }
                }
            }
            self.ends.push(self.slots.len() as u32);
        }
        // The partner lists, by place in the group.
        self.starts.clear();
        self.others.clear();
        self.starts.push(0);
        let mut group_start = 0;
        let mut ends = self.ends.iter();
        let mut end = ends.next().copied().unwrap_or(0);
        for (i, &k) in self.slots.iter().enumerate() {
            if i as u32 == end {
                (group_start, end) = (end, ends.next().copied().unwrap_or(0));
            }
            let local = partners(k as usize).map(|j| self.place[j as usize] - group_start);
            self.others.extend(local);
            self.starts.push(self.others.len() as u32);
        }
    }

    /// The pairs of the bodies the response moved far (see the [module](self)).
    fn find_far_pairs(&mut self, step: Step, (partition, touch): (&Partition, f32)) {
        let (layout, ends) = step;
        self.far.clear();
        self.far_pairs.clear();
        let reach = partition.reach();
        let half_reach = 0.5 * reach;
        for (k, snap) in layout.records.iter().enumerate() {
            let Some(end) = ends.end(layout, k) else {
                continue;
            };
            let moved = (end.center - snap.center).abs().max_element();
            if moved > half_reach && Aabb::new(end.center, snap.half).is_valid() {
                self.far.push(k as u32);
            }
        }
        if self.far.is_empty() {
            return;
        }
        let at = |k: usize| body_of(step, k).0;
        // Whether far body `k` (at `a`) and body `j` are within reach and no partners yet.
        let new_pair = |(k, a): (usize, &RelaxBody), j: usize| {
            let b = at(j);
            let (sa, sb) = (&layout.records[k], &layout.records[j]);
            let skin = pair_skin(touch, a.center, b.center);
            j != k
                && sa.layers.interacts_with(sb.layers)
                && !(sa.one_way || sb.one_way)
                && (within_reach((a.center, a.half), (b.center, b.half), reach)
                    || signed_overlap_within(a.center, a.half, b.center, b.half, skin).is_some())
                && !layout.now.links_of(k).iter().any(|l| l.other as usize == j)
                && !layout.near.of(k).contains(&(j as u32))
        };
        // Each far body in the cells around it, and the far bodies against each other.
        for &k in &self.far {
            let a = at(k as usize);
            // A body that did not move far is filed by its box at detection, grown by the reach,
            // within half the reach of where the response left it.
            let skin = pair_skin(touch, a.center, a.center) + 2.0 * reach;
            let range = partition.cell_range(a.center - a.half - skin, a.center + a.half + skin);
            for (_, entity) in partition.bodies_in(range) {
                if let Some(j) = layout.now.slot(entity)
                    && new_pair((k as usize, &a), j)
                {
                    self.far_pairs.push((k, j as u32));
                    self.far_pairs.push((j as u32, k));
                }
            }
        }
        // The far bodies from the left: each against those starting before it ends.
        let left = |k: u32| {
            let a = at(k as usize);
            a.center.x - a.half.x
        };
        self.far
            .sort_unstable_by(|&a, &b| left(a).total_cmp(&left(b)).then(a.cmp(&b)));
        for (i, &k) in self.far.iter().enumerate() {
            let a = at(k as usize);
            // Beyond any pair's tolerance and twice the reach, at any coordinate.
            let beyond = 2.0 * reach + 1.0 + 1e-6 * (a.center.x.abs() + a.half.x);
            let right = a.center.x + a.half.x + beyond;
            for &j in self.far[i + 1..].iter().take_while(|&&j| left(j) <= right) {
                if new_pair((k as usize, &a), j as usize) {
                    self.far_pairs.push((k, j));
                    self.far_pairs.push((j, k));
                }
            }
        }
        self.far_pairs.sort_unstable();
        self.far_pairs.dedup();
    }

    /// The partner lists of the group at `range` in `bodies`.
    pub(super) fn partners(&self, range: core::ops::Range<usize>) -> Partners<'_> {
        Partners {
            starts: &self.starts[range.start..=range.end],
            others: &self.others,
        }
    }

    /// Where piece `i` of `bodies` ends when they are cut into `count` pieces of whole groups,
    /// of about as many bodies each.
    pub(super) fn cut(&self, i: usize, count: usize) -> usize {
        let len = self.slots.len();
        if i + 1 >= count {
            return len;
        }
        let aim = (i + 1) * len / count;
        let g = self.ends.partition_point(|&end| (end as usize) < aim);
        self.ends.get(g).map_or(len, |&end| end as usize)
    }
}
