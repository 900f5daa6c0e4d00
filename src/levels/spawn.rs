//! The current level in the world: its map, its objects, and its moving platforms.

use bevy::prelude::*;

use super::{Level, LevelObject, ObjectKind};
use crate::body::{Aabb, Kinematic, Velocity};
use crate::one_way::OneWayPlatform;
use crate::schedule::PhysicsSystems;
use crate::sensors::Sensor;

/// The level the world is on. Set it (or replace it) to change levels; [`LevelPlugin`]
/// applies it once it is loaded, and again whenever its file changes.
///
/// [`LevelPlugin`]: super::LevelPlugin
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub struct CurrentLevel(pub Handle<Level>);

/// On every entity a level spawned: they are despawned when the level is replaced or
/// reloaded.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct FromLevel;

/// Where a character starts (a level's `spawn` object; `P` in an ASCII level). The game
/// spawns its character at its `Transform`.
#[derive(Component, Clone, Copy, Debug, Default)]
#[require(Transform)]
pub struct SpawnPoint;

/// A crate a level placed: a dynamic body (`B` in an ASCII level).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct LevelCrate;

/// A kinematic body that goes along `path` at `speed`, back and forth (a level's `platform`
/// object; with [`OneWayPlatform`] when the object is one-way). Its velocity is set before each physics step so that it reaches each point
/// exactly, then turns to the next.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct PathPlatform {
    /// The points, in world units.
    pub path: Vec<Vec2>,
    /// Units per second.
    pub speed: f32,
    /// The index of the point it is going to.
    pub target: usize,
    /// Going toward the end of the path (`true`) or back to its start.
    pub forward: bool,
}

impl PathPlatform {
    /// A platform at the first point of `path`, about to go to the next.
    pub fn new(path: Vec<Vec2>, speed: f32) -> Self {
        Self {
            target: usize::from(path.len() > 1),
            path,
            speed,
            forward: true,
        }
    }

    /// The velocity that takes a platform at `at` toward its target in a step of `dt`
    /// seconds, arriving exactly (turning at the ends of the path).
    fn velocity(&mut self, at: Vec2, dt: f32) -> Vec2 {
        let moves = dt > 0.0 && self.speed > 0.0;
        if self.path.len() < 2 || !moves {
            return Vec2::ZERO;
        }
        let step = self.speed * dt;
        let mut to = self.path[self.target] - at;
        if to.length() <= step * 1e-3 {
            // Arrived: on to the next point.
            let last = self.path.len() - 1;
            if self.forward && self.target == last || !self.forward && self.target == 0 {
                self.forward = !self.forward;
            }
            self.target = if self.forward {
                self.target + 1
            } else {
                self.target - 1
            };
            to = self.path[self.target] - at;
        }
        let distance = to.length();
        if distance <= step {
            to / dt
        } else {
            to / distance * self.speed
        }
    }
}

/// Written when a level was applied (set, loaded or reloaded): its objects are spawned and its
/// map is the world's. A game moves its character to a [`SpawnPoint`] here.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct LevelApplied(pub AssetId<Level>);

pub(super) fn build(app: &mut App) {
    app.add_message::<LevelApplied>()
        .add_systems(PreUpdate, (hold_level_file, apply_level).chain())
        .add_systems(
            FixedUpdate,
            move_platforms.before(PhysicsSystems::Integrate),
        );
}

/// Keeps the file of a current level chosen by label loaded (`levels.ldtk` for
/// `levels.ldtk#demo`): Bevy reloads a changed file, and the levels in it, only while a handle to
/// the file's own asset lives.
fn hold_level_file(
    current: Option<Res<CurrentLevel>>,
    server: Res<AssetServer>,
    mut held: Local<Option<Handle<Level>>>,
) {
    let Some(current) = current.filter(|c| c.is_changed()) else {
        return;
    };
    *held = current
        .0
        .path()
        .filter(|path| path.label().is_some())
        .map(|path| server.load(path.without_label().into_owned()));
}

/// Makes the current level the world's when it is set, loaded or modified.
fn apply_level(
    mut commands: Commands,
    current: Option<Res<CurrentLevel>>,
    levels: Res<Assets<Level>>,
    mut events: MessageReader<AssetEvent<Level>>,
    spawned: Query<Entity, With<FromLevel>>,
    mut applied: MessageWriter<LevelApplied>,
    mut shown: Local<Option<AssetId<Level>>>,
) {
    let Some(current) = current else {
        events.clear();
        return;
    };
    let id = current.0.id();
    // Every message is read (none is left for the next run).
    let changed = events
        .read()
        .filter(|event| {
            matches!(event, AssetEvent::LoadedWithDependencies { id: e }
                | AssetEvent::Modified { id: e } if *e == id)
        })
        .count()
        > 0;
    if !(changed || *shown != Some(id)) {
        return;
    }
    let Some(level) = levels.get(id) else {
        return; // Not loaded yet (or failed: the world keeps the level it had).
    };
    for entity in &spawned {
        commands.entity(entity).despawn();
    }
    commands.insert_resource(level.map.clone());
    for object in &level.objects {
        object.spawn(&mut commands);
    }
    *shown = Some(id);
    applied.write(LevelApplied(id));
}

impl LevelObject {
    /// Spawns the object (marked [`FromLevel`]) as [`LevelPlugin`](super::LevelPlugin) does,
    /// for a game that spawns a level's objects itself (adding its own components, such as
    /// bevy_ggrs's `Rollback`).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::levels::ascii;
    ///
    /// let level = ascii::parse("#B.#\n####", "inline.txt".as_ref()).unwrap();
    /// let mut world = World::new();
    /// let mut commands = world.commands();
    /// let crates: Vec<Entity> = level.objects.iter().map(|o| o.spawn(&mut commands).id()).collect();
    /// world.flush();
    /// assert!(world.get::<bevy_platformer_physics::Aabb>(crates[0]).is_some());
    /// ```
    pub fn spawn<'a>(&self, commands: &'a mut Commands) -> EntityCommands<'a> {
        let name = Name::new(self.name.clone());
        let at = Transform::from_translation(self.center.extend(0.0));
        let body = Aabb::new(self.center, self.half_extents);
        match &self.kind {
            ObjectKind::Spawn => commands.spawn((FromLevel, SpawnPoint, name, at)),
            ObjectKind::Crate => {
                commands.spawn((FromLevel, LevelCrate, name, body, Velocity::default()))
            }
            ObjectKind::Sensor(shape) => {
                commands.spawn((FromLevel, name, Sensor { shape: *shape }, at))
            }
            ObjectKind::Platform {
                path,
                speed,
                one_way,
            } => {
                let mut platform = commands.spawn((
                    FromLevel,
                    name,
                    body,
                    Velocity::default(),
                    Kinematic,
                    PathPlatform::new(path.clone(), *speed),
                ));
                if *one_way {
                    platform.insert(OneWayPlatform);
                }
                platform
            }
        }
    }
}

/// Sets each [`PathPlatform`]'s velocity for the coming step. [`LevelPlugin`](super::LevelPlugin)
/// runs it in `FixedUpdate` before the physics; a game stepping the physics in another schedule
/// (bevy_ggrs's, for one) adds it there, before
/// [`PhysicsSystems::Integrate`](crate::PhysicsSystems::Integrate).
pub fn move_platforms(
    time: Res<Time<Fixed>>,
    mut platforms: Query<(&Aabb, &mut Velocity, &mut PathPlatform)>,
) {
    let dt = time.timestep().as_secs_f32();
    for (aabb, mut velocity, mut platform) in &mut platforms {
        let v = platform.velocity(aabb.center, dt);
        if velocity.0 != v {
            velocity.0 = v;
        }
    }
}
