//! Pair detection (article 000): every overlapping or touching pair of bodies, found once per
//! step through the partition, laid out for both bodies (and copied into their `Contacts`).
//!
//! # Algorithm
//!
//! 1. **Snapshot.** Every partitioned body's box, velocity, old position and first cell are
//!    copied into one 64-byte record per body ([`store::BodyRecord`]), in a dense array, so the
//!    pair loop reads contiguous memory. A body's slot is its row, table after table in the
//!    order the world made the tables (read in pieces on several threads); a body outside the
//!    partition leaves its slot empty.
//! 2. **Pairs.** For each cell, row by row, each pair `i < j` of its list whose
//!    [`CollisionLayers`] match is tested with the signed overlap of article 000 (touching
//!    counts, within [`PhysicsConfig::contact_tolerance`]: a body put back on top of another
//!    can end a rounding error above it, and still stands on it), after a screen that compares
//!    four bodies' boxes at a time. A pair sharing several cells is kept only in the *first*
//!    cell both cover (the bottom-left corner of the intersection of their cell ranges), which
//!    is O(1) and needs no scan of earlier contacts. The cells are cut into a fixed number of
//!    pieces that run on several threads above [`PhysicsConfig::parallel_min_bodies`]; the
//!    pieces are joined in cell order, so the result is the same on any number of threads.
//!    Resting bodies (see [`RestSkippingPlugin`](crate::RestSkippingPlugin)) are left out: only
//!    the pairs with an awake body are tested, in the awake bodies' cells. Two bodies that are
//!    not awake had the same boxes at the last step, so their pair is what it was then. What is
//!    read of each cell's bodies is kept from one step to the next, and only the awake bodies'
//!    part is read again. With relaxation on, the loop also lists the pairs near each other
//!    (relaxation's partners besides contacts).
//! 3. **Layout.** The pairs are counted per body and laid out per body in partner-slot order
//!    (a counting sort, then each body's few contacts sorted), contiguously in slot order, as
//!    the other body's slot and the overlap (12 bytes per contact); a body that is not awake
//!    keeps its last step's contacts with the other bodies that are not, to which its pairs
//!    with awake bodies found this step are added. It runs in parallel by slot range: the pair
//!    loop files each pair's two ends by the range of each body's slot, so each range reads
//!    only its own. A [`CollisionData`] is built from that and the two records when it is
//!    read: by the response, and for [`Contacts`].
//! 4. **Events.** Each body's new contacts are compared with its old ones for
//!    [`CollisionStarted`] and [`CollisionEnded`] (touching counts; one side of each pair
//!    reports it).
//! 5. **Contacts.** Each body's contacts are written into its [`Contacts`], for the bodies
//!    that have one (it is opt-in).
//!
//! Where each part is: the records and the contact store ([`store::ContactStore`]) in
//! `store.rs`; the pair loop in `detection.rs`, with the cell cache (`cell_cache.rs`) and the
//! screen (`screen.rs`) it reads; the layout in `contact_lists.rs`; the near pairs in
//! `near.rs`. The reference step (`src/reference/`) has the same loop written for reading.

pub(crate) mod cell_cache;
pub(crate) mod contact_lists;
pub(crate) mod detection;
pub(crate) mod near;
pub(crate) mod screen;
pub(crate) mod store;

use bevy::ecs::entity::Entities;
use bevy::ecs::schedule::InternedScheduleLabel;
use bevy::prelude::*;

use crate::collision_events::{Change, report_contact_changes};
use crate::config::PhysicsConfig;
use crate::contacts::{CollisionData, Contacts};
use crate::diagnostics::PhysicsStats;
use crate::fast::workers::Workers;
use crate::layers::{CollisionLayers, LayerMask};
use crate::messages::{CollisionEnded, CollisionStarted};
use crate::pairs::detection::{DetectScratch, fill_contacts, find_pairs};
use crate::pairs::store::{ContactStore, DetectionQuery};
use crate::partition::Partition;
use crate::rest_skipping::RestSkipping;
use crate::schedule::PhysicsSystems;

/// Finds every touching or overlapping pair and refills every body's [`Contacts`].
pub(crate) fn detect_pairs(
    (config, workers): (Res<PhysicsConfig>, Res<Workers>),
    (partition, skipping): (Res<Partition>, Res<RestSkipping>),
    (bodies, entities): (DetectionQuery, &Entities),
    mut contacts: Query<(Entity, &mut Contacts)>,
    mut stats: ResMut<PhysicsStats>,
    (mut scratch, mut changes, mut layout): (
        Local<DetectScratch>,
        Local<Vec<Vec<Change>>>,
        ResMut<ContactStore>,
    ),
    (mut started, mut ended): (
        MessageWriter<CollisionStarted>,
        MessageWriter<CollisionEnded>,
    ),
) {
    // 1 to 3. The snapshot, the pairs cell by cell, each body's contacts laid out.
    let found = find_pairs(
        (&config, &workers),
        (&partition, skipping.enabled),
        (&bodies, entities),
        (&mut scratch, &mut layout),
    );
    // 4. Collision events, from last step's partners and this step's (both are laid out
    //    whether or not events are written, so turning them on later compares the right steps).
    if config.collision_events {
        report_contact_changes(
            &layout.now,
            &layout.last,
            |e| bodies.contains(e),
            (|k| found.keeps_all(&layout, k), found.same_slots()),
            workers.threads(found.slots >= config.parallel_min_bodies),
            &mut changes,
            &mut started,
            &mut ended,
        );
    }
    // 5. Each body's contacts into its `Contacts`.
    fill_contacts(&mut contacts, &layout, (&config, &workers));
    *stats = PhysicsStats {
        bodies: found.detected,
        awake_bodies: found.awake,
        occupied_cells: partition.occupied_cells(),
        pairs_tested: found.tested,
        pairs_found: found.pairs,
        ..default()
    };
}

/// The stage [`PhysicsSystems::DetectPairs`]:
/// [`detect_pairs`], with the contact store, the [`Contacts`] it fills, the collision events and
/// the [`PhysicsStats`].
pub(crate) struct PairDetectionPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for PairDetectionPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PhysicsStats>()
            .init_resource::<ContactStore>()
            .add_message::<CollisionStarted>()
            .add_message::<CollisionEnded>()
            .register_type::<Contacts>()
            .register_type::<CollisionData>()
            .register_type::<PhysicsStats>()
            .register_type::<CollisionLayers>()
            .register_type::<LayerMask>()
            .add_systems(self.0, detect_pairs.in_set(PhysicsSystems::DetectPairs));
    }
}
