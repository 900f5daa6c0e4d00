//! `PhysicsPlugin`: registers the types, resources, messages and the chained step.

use bevy::app::FixedMain;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::collision_events::end_contacts_hook;
use crate::fast::rest::{Awake, Rest};
use crate::partition::leave_partition_hook;

use crate::body::{Aabb, BodyState, BodySwitches, Kinematic, OldPosition, Velocity};
use crate::config::PhysicsConfig;
use crate::contacts::{CollisionData, Contacts};
use crate::fast::crew::{CrewSlot, call_crew, dismiss_crew};
use crate::fast::memo::TileMemo;
use crate::fast::snapshot::ContactLayout;
use crate::flags::{PushFlags, Side};
use crate::integrate::integrate;
use crate::layers::{CollisionLayers, LayerMask};
use crate::messages::{CollisionEnded, CollisionStarted, Landed, Squished};
use crate::pairs::{PhysicsStats, detect_pairs};
use crate::partition::{GridAreas, Partition, update_partition};
use crate::response::respond_to_contacts;
use crate::schedule::PhysicsSystems;
use crate::sensors::{
    Sensor, SensorContents, SensorEntered, SensorExited, SensorShape, update_sensors,
};
use crate::tiles::{TileKind, TileMap, collide_tiles};

/// Adds the platformer physics to an app.
///
/// It inserts [`PhysicsConfig`] and an empty [`TileMap`] unless you inserted your own,
/// registers the messages ([`Landed`], [`Squished`], [`CollisionStarted`], [`CollisionEnded`],
/// [`SensorEntered`], [`SensorExited`]), and runs the chained [`PhysicsSystems`] in `schedule`.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// // The default: one physics step per FixedUpdate run.
/// App::new().add_plugins((MinimalPlugins, PhysicsPlugin::default()));
///
/// // Or in another schedule; each run still advances Time<Fixed>::timestep().
/// App::new().add_plugins((MinimalPlugins, PhysicsPlugin::new(FixedPostUpdate)));
/// ```
pub struct PhysicsPlugin {
    /// The schedule the step runs in (default `FixedUpdate`).
    pub schedule: InternedScheduleLabel,
}

impl Default for PhysicsPlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl PhysicsPlugin {
    /// The physics in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for PhysicsPlugin {
    fn build(&self, app: &mut App) {
        if self.schedule == FixedMain.intern() {
            warn!("PhysicsPlugin in FixedMain runs no systems: use FixedUpdate");
        }
        // What the stages keep on each body, which the game never names.
        app.register_required_components::<Aabb, GridAreas>()
            .register_required_components::<Aabb, TileMemo>()
            .register_required_components::<Aabb, Rest>()
            .register_required_components::<Aabb, Awake>();
        app.world_mut()
            .register_component_hooks::<Aabb>()
            .on_remove(leave_simulation_hook);
        app.init_resource::<PhysicsConfig>()
            .init_resource::<TileMap>()
            .init_resource::<Partition>()
            .init_resource::<PhysicsStats>()
            .init_resource::<ContactLayout>()
            .init_resource::<CrewSlot>()
            .add_message::<Landed>()
            .add_message::<Squished>()
            .add_message::<CollisionStarted>()
            .add_message::<CollisionEnded>()
            .add_message::<SensorEntered>()
            .add_message::<SensorExited>()
            .register_type::<Aabb>()
            .register_type::<Velocity>()
            .register_type::<Kinematic>()
            .register_type::<BodySwitches>()
            .register_type::<BodyState>()
            .register_type::<OldPosition>()
            .register_type::<PushFlags>()
            .register_type::<Side>()
            .register_type::<TileKind>()
            .register_type::<TileMap>()
            .register_type::<TileMemo>()
            .register_type::<PhysicsConfig>()
            .register_type::<GridAreas>()
            .register_type::<Contacts>()
            .register_type::<CollisionData>()
            .register_type::<PhysicsStats>()
            .register_type::<CollisionLayers>()
            .register_type::<LayerMask>()
            .register_type::<Sensor>()
            .register_type::<SensorShape>()
            .register_type::<SensorContents>()
            .configure_sets(
                self.schedule,
                (
                    PhysicsSystems::Integrate,
                    PhysicsSystems::TileCollide,
                    PhysicsSystems::UpdatePartition,
                    PhysicsSystems::DetectPairs,
                    PhysicsSystems::Respond,
                    PhysicsSystems::Sense,
                )
                    .chain(),
            )
            .add_systems(
                self.schedule,
                (
                    // The step's first system calls the crew; its passes begin in Integrate.
                    (call_crew, integrate)
                        .chain()
                        .in_set(PhysicsSystems::Integrate),
                    collide_tiles.in_set(PhysicsSystems::TileCollide),
                    update_partition::<true>.in_set(PhysicsSystems::UpdatePartition),
                    detect_pairs.in_set(PhysicsSystems::DetectPairs),
                    // Then the crew's passes are over, and the bodies the response moved are
                    // filed where they ended.
                    (respond_to_contacts, dismiss_crew, update_partition::<false>)
                        .chain()
                        .in_set(PhysicsSystems::Respond),
                    // Without sensors, not even dispatched (a condition runs in the executor).
                    update_sensors
                        .run_if(any_with_component::<Sensor>)
                        .in_set(PhysicsSystems::Sense),
                ),
            );
    }
}

/// The `on_remove` hook of [`Aabb`]: the body leaves the partition, ends its contacts and
/// forgets its rest: given back an `Aabb`, it is awake at its next step, and so filed in the
/// partition again (a body left out as resting would not be, however equal its new box is to
/// the one it rested with).
fn leave_simulation_hook(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut awake) = world.get_mut::<Awake>(context.entity) {
        *awake = Awake::default();
    }
    leave_partition_hook(world.reborrow(), context);
    end_contacts_hook(world, context);
}
