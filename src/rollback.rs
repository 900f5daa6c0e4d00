//! Saving the physics state and going back to it (rollback netcode, replays, tools).
//!
//! [`PhysicsSnapshot::take`] saves everything the next steps' outcome depends on: every body's
//! components (box, velocity, old position, push flags, body state, switches, layers, whether
//! it is kinematic, one-way or pushable, and its [`Contacts`] if it has them: the push reads a
//! pushable body's), every sensor's contents, the map, the configuration, and the contacts of
//! the last pair detection (collision events compare the next step's with them).
//! [`PhysicsSnapshot::restore`] puts it back; the steps that follow are then bit for bit the
//! steps that followed the snapshot.
//!
//! The plugin's caches are not saved: after a restore every body is processed in full at the
//! next step and filed again in the partition, and a step that processes every body has, by
//! the contract of rest skipping, the outcome of one that skips the resting ones. A restore
//! needs the same bodies as the snapshot (the same entities, none more, none less): bring
//! back or despawn the game's entities first, as a rollback framework does.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::prelude::*;
//! use bevy_platformer_physics::rollback::PhysicsSnapshot;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
//!     .insert_resource(TileMap::from_ascii("#....#\n######", 16.0).unwrap());
//! let body = app
//!     .world_mut()
//!     .spawn((Aabb::new(Vec2::new(40.0, 40.0), Vec2::splat(6.0)), Velocity::default()))
//!     .id();
//! let saved = PhysicsSnapshot::take(app.world_mut());
//! for _ in 0..10 {
//!     app.world_mut().run_schedule(FixedUpdate);
//! }
//! let after_ten = *app.world().get::<Aabb>(body).unwrap();
//! saved.restore(app.world_mut()).unwrap();
//! assert_eq!(app.world().get::<Aabb>(body).unwrap().center.y, 40.0);
//! for _ in 0..10 {
//!     app.world_mut().run_schedule(FixedUpdate);
//! }
//! assert_eq!(*app.world().get::<Aabb>(body).unwrap(), after_ten);
//! ```

use bevy::prelude::*;
use std::collections::BTreeSet;

use crate::body::{Aabb, BodyState, BodySwitches, Kinematic, OldPosition, Velocity, WholeBody};
use crate::config::PhysicsConfig;
use crate::contacts::{CollisionData, Contacts};
use crate::flags::PushFlags;
use crate::layers::CollisionLayers;
use crate::one_way::OneWayPlatform;
use crate::pairs::contact_lists::ContactLists;
use crate::pairs::store::ContactStore;
use crate::push::Pushable;
use crate::rest_skipping::RestSkipping;
use crate::sensors::SensorContents;
use crate::tiles::TileMap;

/// The physics state at one moment (see the [module](self)).
#[derive(Clone, Debug)]
pub struct PhysicsSnapshot {
    bodies: Vec<Saved>,
    sensors: Vec<(Entity, SensorContents)>,
    /// The bodies' [`Contacts`], for those that have them.
    contacts: Vec<(Entity, Contacts)>,
    map: TileMap,
    config: PhysicsConfig,
    partners: ContactLists,
}

/// One body as saved.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Saved {
    entity: Entity,
    aabb: Aabb,
    velocity: Velocity,
    old: OldPosition,
    flags: PushFlags,
    state: BodyState,
    switches: BodySwitches,
    layers: Option<CollisionLayers>,
    kinematic: bool,
    one_way: bool,
    pushable: Option<Pushable>,
}

/// Why a snapshot could not be restored: the world's bodies are not the snapshot's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// An entity of the snapshot's bodies is gone (despawned).
    Missing(Entity),
    /// A body that was not in the snapshot.
    Unknown(Entity),
}

impl core::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Missing(e) => write!(f, "body {e} of the snapshot is gone"),
            Self::Unknown(e) => write!(f, "body {e} was not in the snapshot"),
        }
    }
}

impl std::error::Error for RestoreError {}

impl PhysicsSnapshot {
    /// Saves the physics state of `world` (between steps).
    pub fn take(world: &mut World) -> Self {
        let mut bodies: Vec<Saved> = (world.query::<WholeBody>().iter(world))
            .map(|b| Saved {
                entity: b.entity,
                aabb: *b.aabb,
                velocity: *b.velocity,
                old: *b.old,
                flags: *b.flags,
                state: *b.state,
                switches: *b.switches,
                layers: b.layers.copied(),
                kinematic: b.kinematic,
                one_way: b.one_way,
                pushable: None,
            })
            .collect();
        for body in &mut bodies {
            body.pushable = world.get::<Pushable>(body.entity).copied();
        }
        let sensors = (world.query::<(Entity, &SensorContents)>().iter(world))
            .map(|(e, c)| (e, c.clone()))
            .collect();
        let contacts = (world
            .query_filtered::<(Entity, &Contacts), With<Aabb>>()
            .iter(world))
        .map(|(e, c)| (e, c.clone()))
        .collect();
        Self {
            bodies,
            sensors,
            contacts,
            map: world.resource::<TileMap>().clone(),
            config: world.resource::<PhysicsConfig>().clone(),
            partners: world.resource::<ContactStore>().now.clone(),
        }
    }

    /// The number of bodies saved.
    pub fn bodies(&self) -> usize {
        self.bodies.len()
    }

    /// About how much memory it holds, in bytes: the bodies, the sensors' lists, the map's
    /// tiles and the contacts.
    pub fn size_bytes(&self) -> usize {
        let sensors: usize = (self.sensors.iter())
            .map(|(_, c)| size_of::<(Entity, SensorContents)>() + c.bodies().len() * 8)
            .sum();
        let map = (self.map.width() * self.map.height()) as usize;
        let partners = &self.partners;
        size_of::<Self>()
            + self.bodies.len() * size_of::<Saved>()
            + sensors
            + (self.contacts.iter())
                .map(|(_, c)| {
                    size_of::<(Entity, Contacts)>() + c.0.len() * size_of::<CollisionData>()
                })
                .sum::<usize>()
            + map
            + partners.entities.len() * size_of::<Entity>()
            + partners.slot_of.len() * 4
            + partners.starts.len() * 4
            + partners.links.len() * size_of::<crate::pairs::contact_lists::Link>()
    }

    /// Puts the saved state back into `world`. Fails, changing nothing, when the world's
    /// bodies are not the snapshot's.
    pub fn restore(&self, world: &mut World) -> Result<(), RestoreError> {
        self.restore_mapped(world, |entity| entity)
    }

    /// Puts the saved state back into a world whose entities may have new ids: `map` gives,
    /// for each entity of the snapshot, the entity it is now (a rollback framework that
    /// spawned again the entities despawned since the snapshot knows their new ids). A body
    /// of the snapshot that is still an entity but has lost its components gets them back.
    /// Fails, changing nothing, when an entity of the snapshot is gone or the world has a body
    /// the snapshot does not know ([`RestoreError`] names it as it is in the world).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    /// use bevy_platformer_physics::rollback::PhysicsSnapshot;
    ///
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
    ///     .insert_resource(TileMap::from_ascii("#....#\n######", 16.0).unwrap());
    /// let body = Aabb::new(Vec2::new(40.0, 40.0), Vec2::splat(6.0));
    /// let first = app.world_mut().spawn((body, Velocity::default())).id();
    /// let saved = PhysicsSnapshot::take(app.world_mut());
    /// // The body is despawned, then spawned again (empty) under another id.
    /// app.world_mut().despawn(first);
    /// let again = app.world_mut().spawn_empty().id();
    /// saved
    ///     .restore_mapped(app.world_mut(), |e| if e == first { again } else { e })
    ///     .unwrap();
    /// assert_eq!(app.world().get::<Aabb>(again), Some(&body));
    /// ```
    pub fn restore_mapped(
        &self,
        world: &mut World,
        map: impl Fn(Entity) -> Entity,
    ) -> Result<(), RestoreError> {
        let saved: BTreeSet<Entity> = self.bodies.iter().map(|b| map(b.entity)).collect();
        if let Some(&e) = saved.iter().find(|&&e| world.get_entity(e).is_err()) {
            return Err(RestoreError::Missing(e));
        }
        let now: BTreeSet<Entity> =
            (world.query_filtered::<Entity, With<Aabb>>().iter(world)).collect();
        if let Some(&e) = now.difference(&saved).next() {
            return Err(RestoreError::Unknown(e));
        }
        for body in &self.bodies {
            let mut state = body.state;
            state.ground = state.ground.map(&map);
            let mut entity = world.entity_mut(map(body.entity));
            entity.insert((
                body.aabb,
                body.velocity,
                body.old,
                body.flags,
                state,
                body.switches,
            ));
            match body.layers {
                Some(layers) => entity.insert(layers),
                None => entity.remove::<CollisionLayers>(),
            };
            match body.kinematic {
                true => entity.insert(Kinematic),
                false => entity.remove::<Kinematic>(),
            };
            match body.one_way {
                true => entity.insert(OneWayPlatform),
                false => entity.remove::<OneWayPlatform>(),
            };
            match body.pushable {
                Some(pushable) => entity.insert(pushable),
                None => entity.remove::<Pushable>(),
            };
        }
        for (entity, contacts) in &self.contacts {
            if let Ok(mut e) = world.get_entity_mut(map(*entity)) {
                let mut contacts = contacts.clone();
                for c in &mut contacts.0 {
                    c.other = map(c.other);
                }
                e.insert(contacts);
            }
        }
        for (entity, contents) in &self.sensors {
            if let Ok(mut e) = world.get_entity_mut(map(*entity)) {
                e.insert(contents.mapped(&map));
            }
        }
        if *world.resource::<TileMap>() != self.map {
            world.insert_resource(self.map.clone());
        }
        if *world.resource::<PhysicsConfig>() != self.config {
            world.insert_resource(self.config.clone());
        }
        let mut layout = world.resource_mut::<ContactStore>();
        layout.now = self.partners.mapped(&map);
        // The slot tables are rebuilt at the next detection.
        layout.kept_before = false;
        // Every body is processed in full at the next step (see the module).
        world.resource_mut::<RestSkipping>().set_changed();
        Ok(())
    }
}
