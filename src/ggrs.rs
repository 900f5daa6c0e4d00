//! Rollback netcode through [bevy_ggrs](https://docs.rs/bevy_ggrs) (the `ggrs` feature).
//!
//! [`GgrsPhysicsPlugin`] makes the physics part of GGRS's rollback: at each frame GGRS saves,
//! it takes a [`PhysicsSnapshot`] (everything the next steps' outcome depends on), and at each
//! frame it loads, it restores that snapshot, so re-simulated frames are bit for bit the frames
//! first simulated. It adds the physics' checksum to GGRS's frame checksum (which a
//! `SyncTestSession` compares after each re-simulation and peers compare with each other),
//! naming bodies by their place in [`RollbackOrdered`] rather than by entity id, so two peers
//! whose entity ids differ agree.
//!
//! Run the physics in [`GgrsSchedule`](bevy_ggrs::GgrsSchedule), give every body and sensor
//! [`Rollback`](bevy_ggrs::Rollback), and order the game's systems that set velocities (player
//! input, moving platforms) before the physics ([`PhysicsSystems::Integrate`]): GGRS's
//! schedule refuses ambiguous systems. Game state the physics reads besides bodies (a
//! `levels::PathPlatform`'s progress, for one) needs rolling back too,
//! through bevy_ggrs's `rollback_component_with_clone` and friends. The plugin sets the fixed
//! timestep, which the physics steps by, to one GGRS frame
//! ([`RollbackFrameRate`]).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_ggrs::prelude::*;
//! use bevy_platformer_physics::ggrs::GgrsPhysicsPlugin;
//! use bevy_platformer_physics::prelude::*;
//!
//! type Config = GgrsConfig<u8>;
//!
//! fn run(ggrs: Session<Config>) {
//!     App::new()
//!         .add_plugins((
//!             DefaultPlugins,
//!             GgrsPlugin::<Config>::default(),
//!             PhysicsPlugin::new(GgrsSchedule),
//!             GgrsPhysicsPlugin,
//!         ))
//!         .insert_resource(RollbackFrameRate(60))
//!         .insert_resource(ggrs)
//!         .run();
//! }
//! ```
//!
//! Over a network, give the GGRS session an input delay of at least one frame
//! (`SessionBuilder::with_input_delay`). At the start of a P2P session GGRS lets a peer run a
//! whole prediction window ahead before the other's first input arrives, and bevy_ggrs keeps
//! one snapshot fewer than a rollback to the first frame then needs (it panics, "Could not
//! rollback to 0"); with a delay, the first frames' inputs are known to both peers and never
//! rolled back to. The versus example and its two-peer test use two frames.
//!
//! A body's `Entity` may change when a rollback spawns it again (GGRS gives it a new id and
//! keeps its [`RollbackId`]); the restore follows the ids, for the bodies, the sensors' contents
//! and the contacts.

use bevy::ecs::world::DeferredWorld;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ggrs::{
    ChecksumFlag, ChecksumPart, GgrsSnapshots, LoadWorld, LoadWorldSystems, RollbackDespawned,
    RollbackFrameCount, RollbackFrameRate, RollbackId, RollbackOrdered, SaveWorld,
    SaveWorldSystems,
};

use crate::body::WholeBody;
use crate::checksum::body_hash;
use crate::plugin::leave_simulation;
use crate::rollback::PhysicsSnapshot;

#[cfg(doc)]
use crate::schedule::PhysicsSystems;

/// Saves and restores the physics with GGRS's frames, and adds its checksum to GGRS's (see the
/// [module](self)).
pub struct GgrsPhysicsPlugin;

/// One saved frame: the physics, and the rollback id of each rollback entity then.
struct Frame {
    physics: PhysicsSnapshot,
    ids: HashMap<Entity, RollbackId>,
}

type Frames = GgrsSnapshots<PhysicsSnapshot, Frame>;

impl Plugin for GgrsPhysicsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Frames>()
            .add_systems(
                SaveWorld,
                (Frames::sync_depth, Frames::discard_old_snapshots, save)
                    .chain()
                    .in_set(SaveWorldSystems::Snapshot),
            )
            .add_systems(SaveWorld, checksum.in_set(SaveWorldSystems::Checksum))
            .add_systems(LoadWorld, load.in_set(LoadWorldSystems::Data))
            .add_observer(leave_when_despawned);
        app.world_mut()
            .spawn((ChecksumPart(0), ChecksumFlag::<PhysicsSnapshot>::default()));
    }

    fn finish(&self, app: &mut App) {
        let rate = app
            .world()
            .get_resource::<RollbackFrameRate>()
            .map_or(60, |r| r.0);
        app.world_mut()
            .resource_mut::<Time<Fixed>>()
            .set_timestep_hz(rate as f64);
    }
}

/// A body despawned for rollback (kept, disabled, until its frame is confirmed) leaves the
/// simulation; brought back by a rollback, it is awake and filed again.
fn leave_when_despawned(despawned: On<Add, RollbackDespawned>, world: DeferredWorld) {
    leave_simulation(world, despawned.entity);
}

fn save(world: &mut World) {
    let frame = world.resource::<RollbackFrameCount>().0;
    let physics = PhysicsSnapshot::take(world);
    let ids = (world.query::<(Entity, &RollbackId)>().iter(world))
        .map(|(entity, &id)| (entity, id))
        .collect();
    world
        .resource_mut::<Frames>()
        .push(frame, Frame { physics, ids });
}

fn load(world: &mut World) {
    let frame = world.resource::<RollbackFrameCount>().0;
    let now: HashMap<RollbackId, Entity> = (world.query::<(Entity, &RollbackId)>().iter(world))
        .map(|(entity, &id)| (id, entity))
        .collect();
    world.resource_scope(|world, mut frames: Mut<Frames>| {
        let saved = frames.rollback(frame).get();
        let map = |e: Entity| (saved.ids.get(&e).and_then(|id| now.get(id))).map_or(e, |&e| e);
        if let Err(error) = saved.physics.restore_mapped(world, map) {
            error!("the physics could not go back to frame {frame}: {error}");
        }
    });
}

/// The physics' part of GGRS's checksum: [`PhysicsChecksum`](crate::checksum::PhysicsChecksum)'s
/// sum, with each rollback entity named by its place in [`RollbackOrdered`].
fn checksum(
    bodies: Query<WholeBody>,
    ids: Query<&RollbackId>,
    ordered: Res<RollbackOrdered>,
    mut part: Single<&mut ChecksumPart, With<ChecksumFlag<PhysicsSnapshot>>>,
) {
    // The top bit tells an entity without a rollback id from a place in the order.
    let id = |e: Entity| {
        ids.get(e)
            .map_or(e.to_bits(), |&id| ordered.order(id) | 1 << 63)
    };
    let sum = (bodies.iter()).fold(0u64, |sum, body| sum.wrapping_add(body_hash(body, id)));
    part.0 = u128::from(sum);
}
