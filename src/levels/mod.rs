//! Levels as assets (the `levels` feature): a [`Level`] is a [`TileMap`] and the objects placed
//! in it, loaded by Bevy's asset server from an ASCII `.txt` level ([`ascii`]), a Tiled `.tmx`
//! map ([`tiled`]) or a level of an LDtk `.ldtk` project ([`ldtk`]); [`LevelPlugin`] makes the [`CurrentLevel`] the world's map and spawns its
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
//!
//! A level of an LDtk project is chosen by its identifier, as the asset's label:
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_platformer_physics::levels::CurrentLevel;
//! fn load(mut commands: Commands, assets: Res<AssetServer>) {
//!     commands.insert_resource(CurrentLevel(assets.load("levels/levels.ldtk#castle")));
//! }
//! ```
//!
//! `assets/levels/` holds four levels, each as an ASCII `.txt` file, as a Tiled `.tmx` map, and
//! as a level of the LDtk project `levels.ldtk`: `articles` (the articles' cases in one room),
//! `demo` (the platformer example's level), `versus` (the versus example's) and `castle` (120 x
//! 40 tiles). `assets/tools/generate.py` draws the tileset (`assets/sprites/`: brick, plank,
//! ladder, grass, crate, character) and writes each `.tmx` and the `.ldtk` from the `.txt`
//! files; a test checks that the three forms of a level load to the same level. `levels::ascii::write` turns a level
//! back into ASCII (the demo's "Save level" button writes the level with its tile edits).
//!
//! The demo draws the map itself, one sprite per tile from the tileset, and reads its collision
//! from the same `.tmx` through `LevelPlugin`. We did not use bevy_ecs_tiled to draw it: its
//! release for Bevy 0.19 (0.13) reads maps with the `tiled` crate 0.15, one version behind ours
//! (0.16), so its map asset and ours cannot share one parsed map; and the demo's maps are small
//! enough that plain sprites draw them at full speed.
//!
//! What the files may contain:
//!
//! - **ASCII**: the tile characters of the table in [`crate::tiles`]. Objects: `P` spawn point,
//!   `B` crate, `G` circle sensor, `K` and `V` platforms going 4 tiles right or up and back (`k`
//!   and `v`: the same, one-way). An
//!   optional first line `tile_size: 16` sets the tile size.
//! - **LDtk**: IntGrid layers are the tiles, each value named by its tile kind (the names
//!   Tiled's `kind` property takes, below); `Spawn`, `Crate`, `Sensor` and `Platform` entities
//!   are the objects, and other entities are the game's ([`ldtk`] has the details).
//! - **Tiled**: an orthogonal, finite map with square tiles. One pixel is one world unit, and the
//!   map's bottom-left corner is at the origin.
//!   - Tile kinds: each tileset tile has a string property `kind`, one of `solid`, `one_way`,
//!     `ladder` or `empty`, or a slope: `slope_right`, `slope_left`, `slope_right_low`,
//!     `slope_right_high`, `slope_left_low`, `slope_left_high`, the same with `ceiling_` for
//!     `slope_`, and with `one_way_` before them. A tile without it is decoration. Every tile
//!     layer counts.
//!   - Objects, by their class ("Type" in older Tiled):
//!     - `spawn`: a point or a rectangle;
//!     - `crate`: a rectangle;
//!     - `sensor`: a rectangle, or an ellipse, which becomes a circle;
//!     - `platform`: a polyline, the path the platform follows, from its first point and back.
//!       Float properties `width`, `height` and `speed`; bool property `one_way`.
//!
//! What the plugin spawns for these objects:
//!
//! - `SpawnPoint` for spawn points;
//! - dynamic bodies with `LevelCrate` for crates;
//! - `Sensor`s for sensors;
//! - kinematic bodies with `PathPlatform` for platforms (and `OneWayPlatform` for one-way ones).
//!
//! Everything it spawns carries `FromLevel`. `LevelApplied` is written each time a level is
//! applied.
//!
//! A bad file fails to load with a `LevelError` that names the file and the fault: an unknown
//! tile kind, character or IntGrid value, a tileset or level file that is missing, a map too
//! large for the partition, IntGrid layers that do not share one grid, or a Tiled object of an
//! unknown class or shape. Bevy logs the error once, and the world keeps the
//! level it had.

pub mod ascii;
mod error;
pub mod ldtk;
mod spawn;
pub mod tiled;

use bevy::asset::io::Reader;
use bevy::prelude::*;
use std::path::{Component as PathPart, Path, PathBuf};

use crate::sensors::SensorShape;
use crate::tiles::{TileKind, TileMap};

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

/// Loads levels from `.txt`, `.tmx` and `.ldtk` files, and keeps the world on the [`CurrentLevel`]: its
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

    fn finish(&self, app: &mut App) {
        // Registered after every plugin's `build`: Bevy picks the loader of a labelled path
        // (`levels.ldtk#demo`) by its extension alone, the last registered for it, and a game
        // may draw the same project with a plugin of its own for `.ldtk` files (bevy_ecs_ldtk's
        // `LdtkProject`), which it still loads by type.
        app.register_asset_loader(ldtk::LdtkLevelLoader);
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

/// `path` without `.` and with each `..` taken back (`levels/../tilesets/a.tsx` is
/// `tilesets/a.tsx`), as the asset server names files.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            PathPart::CurDir => {}
            PathPart::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The tile kind a name stands for (a Tiled tile's `kind` property, an LDtk IntGrid value's
/// identifier in lower case): `solid`, `one_way`, `ladder`, `empty`, and the
/// slopes in snake case (`slope_right`, `slope_left_low`, `ceiling_right_high`,
/// `one_way_slope_left`, ...: [`TileKind`]'s variant names).
fn kind_named(name: &str) -> Option<TileKind> {
    use TileKind::*;
    let kind = match name {
        "solid" => Solid,
        "one_way" => OneWay,
        "ladder" => Ladder,
        "empty" => Empty,
        "slope_right" => SlopeRight,
        "slope_left" => SlopeLeft,
        "slope_right_low" => SlopeRightLow,
        "slope_right_high" => SlopeRightHigh,
        "slope_left_low" => SlopeLeftLow,
        "slope_left_high" => SlopeLeftHigh,
        "ceiling_right" => CeilingRight,
        "ceiling_left" => CeilingLeft,
        "ceiling_right_low" => CeilingRightLow,
        "ceiling_right_high" => CeilingRightHigh,
        "ceiling_left_low" => CeilingLeftLow,
        "ceiling_left_high" => CeilingLeftHigh,
        "one_way_slope_right" => OneWaySlopeRight,
        "one_way_slope_left" => OneWaySlopeLeft,
        "one_way_slope_right_low" => OneWaySlopeRightLow,
        "one_way_slope_right_high" => OneWaySlopeRightHigh,
        "one_way_slope_left_low" => OneWaySlopeLeftLow,
        "one_way_slope_left_high" => OneWaySlopeLeftHigh,
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn every_tile_kind_is_named_by_its_variant_in_snake_case() {
        for (_, kind) in TileKind::CHARS {
            let mut snake = String::new();
            for (i, ch) in format!("{kind:?}").chars().enumerate() {
                if ch.is_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(ch.to_ascii_lowercase());
            }
            assert_eq!(kind_named(&snake), Some(kind), "{snake}");
        }
        assert_eq!(kind_named("slope"), None);
    }
}
