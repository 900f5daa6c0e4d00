//! Sensors (article 002's triggers): shapes that notice bodies without pushing them.
//!
//! # Algorithm
//!
//! After the response, for each [`Sensor`] in turn:
//!
//! 1. Its shape is placed at its `Transform` (translation, and for a rotated rectangle the
//!    rotation about z).
//! 2. The bodies of the [`Partition`] cells around the shape's bounding box are tested against
//!    it at their current [`Aabb`](crate::Aabb) (touching counts), each once, skipping the
//!    sensor's own entity and bodies whose [`CollisionLayers`] do not match.
//! 3. The sorted list is compared with last step's: bodies only in the old list get a
//!    [`SensorExited`], bodies only in the new one a [`SensorEntered`]. The new list becomes
//!    the sensor's [`SensorContents`].
//!
//! A despawned body is no longer found, so its exit is written at the next step. A despawned
//! sensor (or one whose `Sensor` is removed) writes the exit of every body inside at once.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::message::Messages;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::layers::CollisionLayers;
use crate::partition::Partition;
use crate::query::{NearQuery, bodies_near};
use crate::schedule::PhysicsSystems;
use crate::shapes::{BoxShape, Circle, RotatedRect, Shape};
use bevy::ecs::schedule::InternedScheduleLabel;

/// A shape that detects the bodies in it without pushing them (a trigger). Place it with the
/// entity's [`Transform`], read as a world position (a parent's transform is not applied): on
/// an entity that is also a body, the sensor follows the body (and never detects its own
/// body). The bodies inside are in [`SensorContents`]; every entry and exit writes one
/// [`SensorEntered`] or [`SensorExited`]. A [`CollisionLayers`] on the sensor filters what it
/// detects, both ways, as for bodies.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// fn spawn_checkpoint(mut commands: Commands) {
///     commands.spawn((Sensor::circle(24.0), Transform::from_xyz(300.0, 48.0, 0.0)));
/// }
///
/// fn reach_checkpoint(mut entered: MessageReader<SensorEntered>) {
///     for e in entered.read() {
///         info!("{} reached checkpoint {}", e.body, e.sensor);
///     }
/// }
/// # App::new().add_systems(Startup, spawn_checkpoint).add_systems(Update, reach_checkpoint);
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq, Clone)]
#[require(Transform, SensorContents)]
#[component(on_remove = exit_everything_hook)]
pub struct Sensor {
    /// The shape, centred on the entity's translation.
    pub shape: SensorShape,
}

/// The shape of a [`Sensor`], centred on its entity's translation.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub enum SensorShape {
    /// An axis-aligned box (the `Transform`'s rotation is ignored).
    Box {
        /// Half width and half height.
        half_extents: Vec2,
    },
    /// A circle.
    Circle {
        /// Radius.
        radius: f32,
    },
    /// A rectangle turned by the `Transform`'s rotation about z.
    RotatedRect {
        /// Half width and half height before rotation.
        half_extents: Vec2,
    },
}

impl Sensor {
    /// An axis-aligned box sensor.
    pub const fn rectangle(half_extents: Vec2) -> Self {
        Self {
            shape: SensorShape::Box { half_extents },
        }
    }

    /// A circle sensor.
    pub const fn circle(radius: f32) -> Self {
        Self {
            shape: SensorShape::Circle { radius },
        }
    }

    /// A rectangle sensor that turns with the entity's `Transform`.
    pub const fn rotated_rect(half_extents: Vec2) -> Self {
        Self {
            shape: SensorShape::RotatedRect { half_extents },
        }
    }

    /// The sensor's shape in the world, placed by `transform`.
    pub fn world_shape(&self, transform: &Transform) -> Shape {
        let center = transform.translation.truncate();
        match self.shape {
            SensorShape::Box { half_extents } => Shape::Box(BoxShape {
                center,
                half_extents,
            }),
            SensorShape::Circle { radius } => Shape::Circle(Circle { center, radius }),
            SensorShape::RotatedRect { half_extents } => Shape::Rotated(RotatedRect {
                center,
                half_extents,
                rotation: (transform.rotation * Vec3::X).truncate().to_angle(),
            }),
        }
    }
}

/// The bodies inside a [`Sensor`] after the last step, sorted by entity. Arrives with it.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct SensorContents {
    bodies: Vec<Entity>,
    /// A warning about an unusable shape was given (cleared when it is usable again).
    warned: bool,
}

impl SensorContents {
    /// The bodies inside, sorted.
    pub fn bodies(&self) -> &[Entity] {
        &self.bodies
    }

    /// Whether `body` is inside.
    pub fn contains(&self, body: Entity) -> bool {
        self.bodies.binary_search(&body).is_ok()
    }

    /// The same contents with each body's entity replaced by `map`'s (sorted again).
    pub(crate) fn mapped(&self, map: impl Fn(Entity) -> Entity) -> Self {
        let mut bodies: Vec<Entity> = self.bodies.iter().map(|&e| map(e)).collect();
        bodies.sort_unstable();
        Self {
            bodies,
            warned: self.warned,
        }
    }
}

/// Written when a body comes into a [`Sensor`]: once per entry.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEntered {
    /// The sensor.
    pub sensor: Entity,
    /// The body.
    pub body: Entity,
}

/// Written when a body leaves a [`Sensor`]: once per exit, also when either is despawned (the
/// entity may then no longer exist).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorExited {
    /// The sensor.
    pub sensor: Entity,
    /// The body.
    pub body: Entity,
}

/// Everything inside a sensor that goes away has left it.
fn exit_everything_hook(mut world: DeferredWorld, context: HookContext) {
    let sensor = context.entity;
    let Some(bodies) = world
        .get_mut::<SensorContents>(sensor)
        .map(|mut c| core::mem::take(&mut c.bodies))
    else {
        return;
    };
    if !bodies.is_empty() && world.contains_resource::<Messages<SensorExited>>() {
        world.write_message_batch(bodies.into_iter().map(|body| SensorExited { sensor, body }));
    }
}

type SensorQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Sensor,
        &'static Transform,
        Option<&'static CollisionLayers>,
        &'static mut SensorContents,
    ),
>;

/// Refills every sensor's contents and writes the entries and exits (see the module's
/// algorithm).
pub(crate) fn update_sensors(
    partition: Res<Partition>,
    bodies: NearQuery,
    mut sensors: SensorQuery,
    mut entered: MessageWriter<SensorEntered>,
    mut exited: MessageWriter<SensorExited>,
    mut now: Local<Vec<Entity>>,
) {
    for (sensor, spec, transform, layers, mut contents) in &mut sensors {
        let shape = spec.world_shape(transform);
        let usable = shape.is_valid();
        if usable == contents.warned {
            contents.warned = !usable;
            if !usable {
                warn!("sensor {sensor} has an unusable shape ({shape:?}): it detects nothing");
            }
        }
        now.clear();
        let (min, max) = shape.bounds();
        let layers = layers.copied().unwrap_or_default();
        if usable {
            for (body, aabb, body_layers) in bodies_near(&partition, &bodies, min, max) {
                let inside = body != sensor
                    && layers.interacts_with(body_layers.copied().unwrap_or_default())
                    && shape.overlaps(&Shape::Box(BoxShape {
                        center: aabb.center,
                        half_extents: aabb.half_extents,
                    }));
                if inside {
                    now.push(body);
                }
            }
        }
        now.sort_unstable();
        if contents.bodies == *now {
            continue;
        }
        exited.write_batch(
            contents
                .bodies
                .iter()
                .filter(|b| now.binary_search(b).is_err())
                .map(|&body| SensorExited { sensor, body }),
        );
        entered.write_batch(
            now.iter()
                .filter(|b| contents.bodies.binary_search(b).is_err())
                .map(|&body| SensorEntered { sensor, body }),
        );
        core::mem::swap(&mut contents.bodies, &mut *now);
    }
}

/// The stage [`PhysicsSystems::Sense`]: [`update_sensors`], run
/// only while some [`Sensor`] exists.
pub(crate) struct SensorPlugin(pub(crate) InternedScheduleLabel);

impl Plugin for SensorPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<SensorEntered>()
            .add_message::<SensorExited>()
            .register_type::<Sensor>()
            .register_type::<SensorShape>()
            .register_type::<SensorContents>()
            .add_systems(
                self.0,
                // Without sensors, not even dispatched (a condition runs in the executor).
                update_sensors
                    .run_if(any_with_component::<Sensor>)
                    .in_set(PhysicsSystems::Sense),
            );
    }
}
