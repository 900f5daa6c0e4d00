//! `PhysicsPlugin`: the chained stages, each a plugin of its own module, over what they share,
//! and rest skipping.

use bevy::app::{FixedMain, PluginGroupBuilder};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::body::Aabb;
use crate::collision_events::end_contacts;
use crate::config::PhysicsConfig;
use crate::fast::workers::Workers;
use crate::integrate::IntegratePlugin;
use crate::one_way::OneWayPlatform;
use crate::pairs::PairDetectionPlugin;
use crate::partition::{PartitionPlugin, leave_partition};
use crate::relax::RelaxationPlugin;
use crate::response::ResponsePlugin;
use crate::rest_skipping::memory::{Awake, Rest};
use crate::rest_skipping::{RestSkipping, RestSkippingPlugin};
use crate::schedule::PhysicsSystems;
use crate::sensors::SensorPlugin;
use crate::tiles::TileCollisionPlugin;

/// Adds the platformer physics to an app: a plugin group of the stages, what they share, and
/// [`RestSkippingPlugin`].
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
///
/// // Without rest skipping: every body processed at every step (the same outcome).
/// App::new().add_plugins((
///     MinimalPlugins,
///     PhysicsPlugin::default().build().disable::<RestSkippingPlugin>(),
/// ));
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

impl PluginGroup for PhysicsPlugin {
    fn build(self) -> PluginGroupBuilder {
        let schedule = self.schedule;
        PluginGroupBuilder::start::<Self>()
            .add(SharedPlugin(schedule))
            .add(IntegratePlugin(schedule))
            .add(TileCollisionPlugin(schedule))
            .add(PartitionPlugin(schedule))
            .add(PairDetectionPlugin(schedule))
            .add(ResponsePlugin(schedule))
            .add(RelaxationPlugin(schedule))
            .add(SensorPlugin(schedule))
            .add(RestSkippingPlugin)
    }
}

/// What every stage shares: the configuration, the body and what the core keeps on it, the
/// workers, whether resting bodies are skipped (off until [`RestSkippingPlugin`] turns it on),
/// and the order of the stages.
struct SharedPlugin(InternedScheduleLabel);

impl Plugin for SharedPlugin {
    fn build(&self, app: &mut App) {
        if self.0 == FixedMain.intern() {
            warn!("PhysicsPlugin in FixedMain runs no systems: use FixedUpdate");
        }
        app.register_required_components::<Aabb, Rest>()
            .register_required_components::<Aabb, Awake>();
        app.world_mut()
            .register_component_hooks::<Aabb>()
            .on_remove(leave_simulation_hook);
        app.world_mut()
            .register_component_hooks::<OneWayPlatform>()
            .on_add(wake_hook)
            .on_remove(wake_hook);
        app.add_observer(leave_when_disabled);
        app.init_resource::<PhysicsConfig>()
            .init_resource::<Workers>()
            .init_resource::<RestSkipping>()
            .register_type::<PhysicsConfig>()
            .register_type::<RestSkipping>()
            .register_type::<Aabb>()
            .register_type::<OneWayPlatform>()
            .configure_sets(
                self.0,
                (
                    PhysicsSystems::Integrate,
                    PhysicsSystems::TileCollide,
                    PhysicsSystems::UpdatePartition,
                    PhysicsSystems::DetectPairs,
                    PhysicsSystems::Respond,
                    PhysicsSystems::Sense,
                )
                    .chain(),
            );
    }
}

/// The hook run when a body becomes or stops being a [`OneWayPlatform`]: whom it meets
/// changes, so it is processed in full at the next step (a resting body would keep its
/// contacts).
fn wake_hook(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut awake) = world.get_mut::<Awake>(context.entity) {
        awake.moved();
    }
}

/// The `on_remove` hook of [`Aabb`]: the body leaves the partition, ends its contacts and
/// forgets its rest: given back an `Aabb`, it is awake at its next step, and so filed in the
/// partition again (a body left out as resting would not be, however equal its new box is to
/// the one it rested with).
fn leave_simulation_hook(world: DeferredWorld, context: HookContext) {
    leave_simulation(world, context.entity);
}

/// A body disabled (Bevy's [`Disabled`]) is out of every query: it leaves the simulation as if
/// its `Aabb` were removed, and comes back awake when enabled again.
fn leave_when_disabled(disabled: On<Add, Disabled>, world: DeferredWorld) {
    leave_simulation(world, disabled.entity);
}

/// `entity` leaves the simulation (see [`leave_simulation_hook`]); nothing happens to an entity
/// that is not a body.
pub(crate) fn leave_simulation(mut world: DeferredWorld, entity: Entity) {
    if let Some(mut awake) = world.get_mut::<Awake>(entity) {
        *awake = Awake::default();
    }
    leave_partition(world.reborrow(), entity);
    end_contacts(world, entity);
}
