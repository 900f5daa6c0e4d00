//! `PhysicsPlugin`: the chained stages, each a plugin of its own module, over what they share.

use bevy::app::FixedMain;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::body::Aabb;
use crate::collision_events::end_contacts_hook;
use crate::config::PhysicsConfig;
use crate::fast::crew::CrewSlot;
use crate::fast::rest::{Awake, Rest};
use crate::integrate::IntegratePlugin;
use crate::pairs::PairDetectionPlugin;
use crate::partition::{PartitionPlugin, leave_partition_hook};
use crate::response::ResponsePlugin;
use crate::schedule::PhysicsSystems;
use crate::sensors::SensorPlugin;
use crate::tiles::TileCollisionPlugin;

/// Adds the platformer physics to an app.
///
/// It inserts [`PhysicsConfig`] and an empty [`TileMap`](crate::TileMap) unless you inserted
/// your own, registers the messages ([`Landed`](crate::Landed), [`Squished`](crate::Squished),
/// [`CollisionStarted`](crate::CollisionStarted), [`CollisionEnded`](crate::CollisionEnded),
/// [`SensorEntered`](crate::SensorEntered), [`SensorExited`](crate::SensorExited)), and runs the
/// chained [`PhysicsSystems`] in `schedule`: each stage is a plugin of the module named after
/// it (`integrate`, `tiles`, `partition`, `pairs`, `response`, `sensors`), which adds its
/// systems to its set, its resources, its messages and what it keeps on each body.
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
        // What every stage shares: the configuration, the body, its rest and the crew.
        app.register_required_components::<Aabb, Rest>()
            .register_required_components::<Aabb, Awake>();
        app.world_mut()
            .register_component_hooks::<Aabb>()
            .on_remove(leave_simulation_hook);
        app.init_resource::<PhysicsConfig>()
            .init_resource::<CrewSlot>()
            .register_type::<PhysicsConfig>()
            .register_type::<Aabb>()
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
            .add_plugins((
                IntegratePlugin(self.schedule),
                TileCollisionPlugin(self.schedule),
                PartitionPlugin(self.schedule),
                PairDetectionPlugin(self.schedule),
                ResponsePlugin(self.schedule),
                SensorPlugin(self.schedule),
            ));
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
