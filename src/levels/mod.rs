//! Levels as assets (the `levels` feature): a [`Level`] is a [`TileMap`] and the objects placed
//! in it, loaded by Bevy's asset server from an ASCII `.txt` level ([`ascii`]) or a Tiled `.tmx`
//! map ([`tiled`]); [`LevelPlugin`] makes the [`CurrentLevel`] the world's map and spawns its
//! objects, again whenever the file changes (with Bevy's `file_watcher`).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_platformer_physics::levels::{CurrentLevel, LevelPlugin};
//! use bevy_platformer_physics::prelude::*;
//!
//! fn load(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.insert_resource(CurrentLevel(assets.load("levels/castle.tmx")));
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, PhysicsPlugin::default(), LevelPlugin))
//!     .add_systems(Startup, load)
//!     .run();
//! ```
//!
//! A file that cannot be read gives a [`LevelError`] naming it and what is wrong; Bevy logs it
//! once, and the world keeps the level it had.

pub mod ascii;
mod error;
mod spawn;
pub mod tiled;

use bevy::asset::io::Reader;
use bevy::prelude::*;
use std::path::Path;

use crate::sensors::SensorShape;
use crate::tiles::TileMap;

pub use error::LevelError;
pub use spawn::{
    CurrentLevel, FromLevel, LevelApplied, LevelCrate, PathPlatform, SpawnPoint, move_platforms,
};

/// A level: its tiles and the objects placed in it, in world units (y up, the map's
/// bottom-left corner at its origin).
#[derive(Asset, TypePath, Clone, Debug, PartialEq)]
pub struct Level {
    /// The tiles.
    pub map: TileMap,
    /// What the level spawns, in the order the file lists it.
    pub objects: Vec<LevelObject>,
}

/// One object of a [`Level`].
#[derive(Clone, Debug, PartialEq)]
pub struct LevelObject {
    /// Its name in the file (Tiled's object name; the character in an ASCII level).
    pub name: String,
    /// What it is.
    pub kind: ObjectKind,
    /// Where it is: the centre of its box (a point object's position).
    pub center: Vec2,
    /// Half its size (zero for a point).
    pub half_extents: Vec2,
}

/// What a [`LevelObject`] spawns (see [`LevelPlugin`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ObjectKind {
    /// Where a character starts: a [`SpawnPoint`] the game spawns its character at.
    Spawn,
    /// A crate: a dynamic body ([`LevelCrate`]).
    Crate,
    /// A sensor of this shape.
    Sensor(SensorShape),
    /// A kinematic platform ([`PathPlatform`]) that goes along `path` at `speed` units per
    /// second, back and forth, starting at its `center`.
    Platform {
        /// The points it goes through, in world units.
        path: Vec<Vec2>,
        /// Units per second.
        speed: f32,
        /// It is a [`OneWayPlatform`](crate::OneWayPlatform): bodies jump up through it and
        /// land on it.
        one_way: bool,
    },
}

/// Loads levels from `.txt` and `.tmx` files, and keeps the world on the [`CurrentLevel`]: its
/// map becomes the [`TileMap`] resource and its objects are spawned (marked [`FromLevel`]),
/// replacing the last level's, whenever the current level is set, loaded or changes on disk
/// (with the crate's `hot_reload` feature, or Bevy's `file_watcher`).
/// Bodies the game spawned itself stay; the physics pushes them out of tiles that became solid
/// under them. [`PathPlatform`]s are moved before the physics step.
///
/// It needs Bevy's `AssetPlugin` (in `DefaultPlugins`), and [`PhysicsPlugin`](crate::PhysicsPlugin)
/// in `FixedUpdate`.
pub struct LevelPlugin;

impl Plugin for LevelPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<Level>()
            .register_asset_loader(ascii::AsciiLevelLoader)
            .register_asset_loader(tiled::TiledLevelLoader);
        spawn::build(app);
    }
}

/// The whole of a level file (`path` names it in the error).
async fn read_file(reader: &mut dyn Reader, path: &Path) -> Result<Vec<u8>, LevelError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| LevelError::Io {
            path: path.to_path_buf(),
            error: e.to_string(),
        })?;
    Ok(bytes)
}
