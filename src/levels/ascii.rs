//! ASCII levels (`.txt`): one character per tile, the top line the top row.
//!
//! | character | what |
//! | --- | --- |
//! | `#` | solid tile |
//! | `-` | one-way platform |
//! | `H` | ladder |
//! | `.` or space | empty |
//! | `P` | a spawn point |
//! | `B` | a crate (14 x 14 units at 16-unit tiles, scaled with the tile size) |
//! | `G` | a circular sensor (radius 1.25 tiles), named `G` |
//! | `K` | a kinematic platform (3 x 0.5 tiles) going 4 tiles right and back, at 50 units a second (scaled with the tile size) |
//! | `V` | the same, going 4 tiles up and back |
//! | `k`, `v` | the same as `K` and `V`, one-way ([`OneWayPlatform`](crate::OneWayPlatform)) |
//!
//! An optional first line `tile_size: 16` sets the tile side in world units (default 16).
//! Every object character stands on an empty tile.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;
use std::path::Path;

use super::{Level, LevelError, LevelObject, ObjectKind, read_file};
use crate::sensors::SensorShape;
use crate::tiles::{TileKind, TileMap};

/// The characters that stand for objects.
const OBJECTS: &str = "PBGKVkv";

/// The tile side of a level without a `tile_size:` line.
pub const DEFAULT_TILE_SIZE: f32 = 16.0;

/// Loads `.txt` levels (see [the module](self)).
#[derive(Clone, Copy, Debug, Default, TypePath)]
pub struct AsciiLevelLoader;

impl AssetLoader for AsciiLevelLoader {
    type Asset = Level;
    type Settings = ();
    type Error = LevelError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Level, LevelError> {
        let path = context.path().path().to_path_buf();
        let bytes = read_file(reader, &path).await?;
        let text = String::from_utf8(bytes).map_err(|e| LevelError::Io {
            path: path.clone(),
            error: format!("not UTF-8 text: {e}"),
        })?;
        parse(&text, &path)
    }

    fn extensions(&self) -> &[&str] {
        &["txt"]
    }
}

/// The level of an ASCII text (see [the module](self)); `path` names it in errors.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::levels::{ObjectKind, ascii};
/// use bevy_platformer_physics::prelude::*;
///
/// let level = ascii::parse("tile_size: 8\n#P.B#\n#####", "inline.txt".as_ref()).unwrap();
/// assert_eq!(level.map.tile_size(), 8.0);
/// assert_eq!(level.map.get(0, 1), TileKind::Solid);
/// assert_eq!(level.objects[0].kind, ObjectKind::Spawn);
/// assert_eq!(level.objects[0].center, Vec2::new(12.0, 12.0));
/// assert_eq!(level.objects[1].kind, ObjectKind::Crate);
/// ```
pub fn parse(text: &str, path: &Path) -> Result<Level, LevelError> {
    let (tile, text) = match text.split_once('\n') {
        Some((first, rest)) if first.trim_start().starts_with("tile_size:") => {
            let value = first.trim_start()["tile_size:".len()..].trim();
            let size = value.parse::<f32>().map_err(|_| LevelError::Map {
                path: path.to_path_buf(),
                error: crate::tiles::TileMapError::InvalidTileSize(f32::NAN),
            })?;
            (size, rest)
        }
        _ => (DEFAULT_TILE_SIZE, text),
    };
    let mut placed = Vec::new();
    let map = TileMap::from_ascii_with(text, tile, |ch, at| {
        OBJECTS.contains(ch).then(|| {
            placed.push((ch, at));
            TileKind::Empty
        })
    })
    .map_err(|error| LevelError::Map {
        path: path.to_path_buf(),
        error,
    })?;
    let objects = placed
        .into_iter()
        .map(|(ch, at)| object(ch, map.origin() + (at.as_vec2() + 0.5) * tile, tile))
        .collect();
    Ok(Level { map, objects })
}

/// The ASCII text of `level` (see [the module](self)), which [`parse`] reads back as the same
/// level: what the demo's "Save level" button writes after tile edits.
///
/// Every tile is written as its character (an empty one as `.`, so every line is as long as
/// the map is wide), then every object that an ASCII level can hold (one
/// named by its character, `P`, `B`, `G`, `K`, `V`, `k` or `v`, as [`parse`] names them) as its character
/// on the tile under its centre, over whatever tile is there. A `tile_size:` line comes first
/// when the tile side is not [`DEFAULT_TILE_SIZE`]. The map's origin is not written (an ASCII
/// level starts at zero).
///
/// ```
/// use bevy_platformer_physics::levels::ascii;
///
/// let text = "tile_size: 8\n#P.B#\n#-H.#\n#####\n";
/// let level = ascii::parse(text, "inline.txt".as_ref()).unwrap();
/// assert_eq!(ascii::write(&level), text);
/// ```
pub fn write(level: &Level) -> String {
    let map = &level.map;
    let (width, height) = (map.width() as usize, map.height() as usize);
    let mut rows = vec![vec!['.'; width]; height];
    for (y, row) in rows.iter_mut().enumerate() {
        for (x, ch) in row.iter_mut().enumerate() {
            *ch = map.get(x as i32, y as i32).to_char();
        }
    }
    for object in &level.objects {
        let mut chars = object.name.chars();
        let (Some(ch), None) = (chars.next(), chars.next()) else {
            continue;
        };
        let at = ((object.center - map.origin()) / map.tile_size()).floor();
        let inside = at.cmpge(Vec2::ZERO).all() && at.x < width as f32 && at.y < height as f32;
        if OBJECTS.contains(ch) && inside {
            rows[at.y as usize][at.x as usize] = ch;
        }
    }
    let mut text = String::new();
    if map.tile_size() != DEFAULT_TILE_SIZE {
        text.push_str(&format!("tile_size: {}\n", map.tile_size()));
    }
    for row in rows.iter().rev() {
        text.extend(row);
        text.push('\n');
    }
    text
}

/// The object a character stands for, centred on its tile.
fn object(ch: char, center: Vec2, tile: f32) -> LevelObject {
    let scale = tile / DEFAULT_TILE_SIZE;
    let (kind, half_extents) = match ch {
        'P' => (ObjectKind::Spawn, Vec2::ZERO),
        'B' => (ObjectKind::Crate, Vec2::splat(7.0 * scale)),
        'G' => {
            let radius = 1.25 * tile;
            (
                ObjectKind::Sensor(SensorShape::Circle { radius }),
                Vec2::splat(radius),
            )
        }
        _ => {
            let axis = if ch.eq_ignore_ascii_case(&'K') {
                Vec2::X
            } else {
                Vec2::Y
            };
            let path = vec![center, center + 4.0 * tile * axis];
            let speed = 50.0 * scale;
            let one_way = ch.is_ascii_lowercase();
            (
                ObjectKind::Platform {
                    path,
                    speed,
                    one_way,
                },
                Vec2::new(1.5, 0.25) * tile,
            )
        }
    };
    LevelObject {
        name: ch.to_string(),
        kind,
        center,
        half_extents,
    }
}
