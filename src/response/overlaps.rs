//! How deep the bodies are inside each other where the step left them: the deepest overlap and
//! the pairs over one unit, in [`PhysicsStats`].

use bevy::prelude::*;

use crate::body::{Aabb, BodyState};
use crate::config::PhysicsConfig;
use crate::diagnostics::PhysicsStats;
use crate::pairs::store::ContactStore;

/// Overlaps deeper than this are counted in [`PhysicsStats::pairs_over_one_unit`].
const ONE_UNIT: f32 = 1.0;

/// Whether the step measures the overlaps ([`PhysicsConfig::measure_overlaps`]).
pub(crate) fn measuring(config: Res<PhysicsConfig>) -> bool {
    config.measure_overlaps
}

/// Records in [`PhysicsStats`] the deepest overlap of two bodies where the response (and
/// relaxation after it) left them, and how many pairs overlap by more than one unit, over the
/// pairs detection found. A pair's overlap is the smaller of its two axes (how far one body
/// must move to leave the other). Pairs with a squished body are left out: a squeeze is reported
/// by [`Squished`](crate::Squished) and [`BodyState::is_squished`].
///
/// One pass over the bodies puts each one's box in its detection slot, then one pass over the
/// detected pairs reads them by slot; a body's state is looked up only for the few pairs deeper
/// than the deepest so far or than one unit.
pub(crate) fn measure_overlaps(
    layout: Res<ContactStore>,
    bodies: Query<(Entity, &Aabb, &BodyState)>,
    mut stats: ResMut<PhysicsStats>,
    mut boxes: Local<Vec<Option<Aabb>>>,
) {
    let slots = layout.now.entities.len();
    boxes.clear();
    boxes.resize(slots, None);
    for (entity, aabb, _) in &bodies {
        if let Some(k) = layout.now.slot(entity) {
            boxes[k] = Some(*aabb);
        }
    }
    let squished = |k: usize| {
        let entity = layout.now.entities[k];
        bodies
            .get(entity)
            .is_ok_and(|(_, _, state)| state.is_squished())
    };
    let (mut deepest, mut over_one_unit) = (0.0f32, 0);
    for (k, a) in boxes.iter().enumerate() {
        let Some(a) = a else {
            continue;
        };
        for link in layout.now.links_of(k) {
            let j = link.other as usize;
            let Some(b) = boxes[j].filter(|_| j > k) else {
                continue;
            };
            let reach = a.half_extents + b.half_extents - (a.center - b.center).abs();
            let depth = reach.min_element();
            if depth <= deepest && depth <= ONE_UNIT || squished(k) || squished(j) {
                continue;
            }
            deepest = deepest.max(depth);
            over_one_unit += usize::from(depth > ONE_UNIT);
        }
    }
    stats.deepest_overlap = deepest;
    stats.pairs_over_one_unit = over_one_unit;
}
