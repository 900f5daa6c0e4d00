//! Tiled maps (`.tmx`, with their `.tsx` tilesets), read with the `tiled` crate.
//!
//! # Conventions
//!
//! - The map is orthogonal and finite, with square tiles: the tile side in pixels is the tile
//!   side in world units. Its bottom-left corner is the world's origin; y goes up.
//! - **Tiles**: every tile layer counts (the layers are merged, a later layer's tile over an
//!   earlier one's). A tile's kind is its `kind` property in the tileset: `solid`, `one_way`,
//!   `ladder` or `empty`. A tile without it is decoration: empty for the physics.
//! - **Objects** (any object layer), by class (Tiled's "Class", formerly "Type"):
//!   - `spawn`: a point or a rectangle: a [`SpawnPoint`](super::SpawnPoint) at its centre;
//!   - `crate`: a rectangle: a dynamic body of that box;
//!   - `sensor`: a rectangle (a box sensor) or an ellipse (a circle, of the ellipse's width);
//!   - `platform`: a polyline, the path a kinematic platform goes back and forth along, from its
//!     first point; properties `width` and `height` (floats, world units; default 48 x 8) and
//!     `speed` (float, units per second; default 50).
//!
//!   Objects of any other class, or of a shape their class does not take, are an error.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use ::tiled::{
    Error as TiledError, LayerType, Loader, Map, ObjectLayer, ObjectShape, Orientation,
    PropertyValue, ResourceReader, TileLayer,
};

use super::{Level, LevelError, LevelObject, ObjectKind, kind_named, normalize, read_file};
use crate::sensors::SensorShape;
use crate::tiles::{TileMap, TileMapError};

/// Loads `.tmx` levels (see [the module](self)). The tilesets (and templates) the map refers
/// to are read through the asset server, so a change to any of them reloads the map.
#[derive(Clone, Copy, Debug, Default, TypePath)]
pub struct TiledLevelLoader;

/// The files the `tiled` crate may ask for, read beforehand through the asset server.
struct Files(HashMap<PathBuf, Vec<u8>>);

/// A file `tiled` asked for that is not (yet) among the [`Files`].
#[derive(Debug)]
struct NotRead(PathBuf);

impl core::fmt::Display for NotRead {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} not read yet", self.0.display())
    }
}

impl core::error::Error for NotRead {}

impl ResourceReader for Files {
    type Resource = Cursor<Vec<u8>>;
    type Error = NotRead;

    fn read_from(&mut self, path: &Path) -> Result<Self::Resource, NotRead> {
        let path = normalize(path);
        self.0
            .get(&path)
            .map(|bytes| Cursor::new(bytes.clone()))
            .ok_or(NotRead(path))
    }
}

impl AssetLoader for TiledLevelLoader {
    type Asset = Level;
    type Settings = ();
    type Error = LevelError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Level, LevelError> {
        let path = normalize(context.path().path());
        let bytes = read_file(reader, &path).await?;
        check_size(&bytes, &path)?;
        let mut files = Files(HashMap::from([(path.clone(), bytes)]));
        // `tiled` reads synchronously and the asset server asynchronously: each file the map
        // refers to (a tileset, a template) is read when `tiled` first asks for it, and the map
        // parsed again. Each round adds a file, so this ends.
        loop {
            let mut loader = Loader::with_reader(files);
            let error = match loader.load_tmx_map(&path) {
                Ok(map) => return level(&map, &path),
                Err(error) => error,
            };
            files = loader.into_inner().1;
            let wanted = match &error {
                TiledError::ResourceLoadingError { path: wanted, err } if err.is::<NotRead>() => {
                    normalize(wanted)
                }
                _ => return Err(tiled_error(&path, &error)),
            };
            let source = context.path().source().clone_owned();
            let asset = AssetPath::from_path_buf(wanted.clone()).with_source(source);
            let bytes = context
                .read_asset_bytes(asset)
                .await
                .map_err(|e| LevelError::Io {
                    path: wanted.clone(),
                    error: format!("{e} (a file {} refers to)", path.display()),
                })?;
            files.0.insert(wanted, bytes);
        }
    }

    fn extensions(&self) -> &[&str] {
        &["tmx"]
    }
}

/// A `tiled` error as a [`LevelError`] naming `path`.
fn tiled_error(path: &Path, error: &TiledError) -> LevelError {
    LevelError::Tiled {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

/// Refuses a map larger than a [`TileMap`] can hold before `tiled` allocates its layers: the
/// `width` and `height` of the `<map>` element, read from the text.
fn check_size(bytes: &[u8], path: &Path) -> Result<(), LevelError> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let Some(start) = text.find("<map ") else {
        return Ok(()); // `tiled` says what is wrong.
    };
    let tag = &text[start..];
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    let attribute = |name: &str| -> Option<u64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    let (Some(width), Some(height)) = (attribute("width"), attribute("height")) else {
        return Ok(());
    };
    let fits = width <= u64::from(TileMap::MAX_SIDE)
        && height <= u64::from(TileMap::MAX_SIDE)
        && width * height <= TileMap::MAX_TILES;
    if fits {
        Ok(())
    } else {
        Err(LevelError::Map {
            path: path.to_path_buf(),
            error: TileMapError::TooLarge { width, height },
        })
    }
}

/// The [`Level`] of a parsed map.
fn level(map: &Map, path: &Path) -> Result<Level, LevelError> {
    let refuse = |why: String| LevelError::Tiled {
        path: path.to_path_buf(),
        error: why,
    };
    if map.orientation != Orientation::Orthogonal {
        return Err(refuse(format!(
            "{:?} maps are not supported (orthogonal only)",
            map.orientation
        )));
    }
    if map.infinite() {
        return Err(refuse("infinite maps are not supported".into()));
    }
    if map.tile_width != map.tile_height {
        return Err(refuse(format!(
            "tiles are {} x {} pixels (square tiles only)",
            map.tile_width, map.tile_height
        )));
    }
    let tile = map.tile_width as f32;
    let mut tiles =
        TileMap::try_new(map.width, map.height, tile).map_err(|error| LevelError::Map {
            path: path.to_path_buf(),
            error,
        })?;
    let mut objects = Vec::new();
    let top = map.height as f32 * tile;
    for layer in map.layers() {
        match layer.layer_type() {
            LayerType::Tiles(layer) => fill(&mut tiles, &layer, path)?,
            LayerType::Objects(layer) => place(&mut objects, &layer, top, path)?,
            _ => {}
        }
    }
    Ok(Level {
        map: tiles,
        objects,
    })
}

/// Sets the tiles of `layer` that have a kind.
fn fill(tiles: &mut TileMap, layer: &TileLayer, path: &Path) -> Result<(), LevelError> {
    let height = tiles.height() as i32;
    for row in 0..height {
        for x in 0..tiles.width() as i32 {
            let Some(tile) = layer.get_tile(x, row) else {
                continue;
            };
            let Some(data) = tile.get_tile() else {
                continue;
            };
            let Some(value) = data.properties.get("kind") else {
                continue;
            };
            let kind = match value {
                PropertyValue::StringValue(s) => kind_named(s),
                _ => None,
            };
            let Some(kind) = kind else {
                return Err(LevelError::UnknownTileKind {
                    path: path.to_path_buf(),
                    tileset: tile.get_tileset().name.clone(),
                    tile: tile.id(),
                    value: format!("{value:?}"),
                });
            };
            // Tiled's rows go down from the top.
            tiles.set(x, height - 1 - row, kind);
        }
    }
    Ok(())
}

/// A float property of an object, or `default`.
fn float(properties: &::tiled::Properties, name: &str, default: f32) -> f32 {
    match properties.get(name) {
        Some(PropertyValue::FloatValue(v)) => *v,
        Some(PropertyValue::IntValue(v)) => *v as f32,
        _ => default,
    }
}

/// The objects of `layer`, in world units (`top`: the map's height in units).
fn place(
    objects: &mut Vec<LevelObject>,
    layer: &ObjectLayer,
    top: f32,
    path: &Path,
) -> Result<(), LevelError> {
    for object in layer.objects() {
        // Tiled's y goes down from the top of the map.
        let world = |x: f32, y: f32| Vec2::new(x, top - y);
        // A rectangle's (or an ellipse's) centre in the world and half its size: Tiled places
        // it by its top-left corner.
        let boxed = |width: f32, height: f32| {
            let half = Vec2::new(width, height) / 2.0;
            (world(object.x + half.x, object.y + half.y), half)
        };
        let name = if object.name.is_empty() {
            format!("#{}", object.id())
        } else {
            object.name.clone()
        };
        let class = object.user_type.as_str();
        let made = match (class, &object.shape) {
            ("spawn", ObjectShape::Point(..)) => {
                Some((ObjectKind::Spawn, world(object.x, object.y), Vec2::ZERO))
            }
            ("spawn", ObjectShape::Rect { width, height }) => {
                let (center, _) = boxed(*width, *height);
                Some((ObjectKind::Spawn, center, Vec2::ZERO))
            }
            ("crate", ObjectShape::Rect { width, height }) => {
                let (center, half) = boxed(*width, *height);
                Some((ObjectKind::Crate, center, half))
            }
            ("sensor", ObjectShape::Rect { width, height }) => {
                let (center, half) = boxed(*width, *height);
                let shape = SensorShape::Box { half_extents: half };
                Some((ObjectKind::Sensor(shape), center, half))
            }
            ("sensor", ObjectShape::Ellipse { width, height }) => {
                let (center, half) = boxed(*width, *height);
                let shape = SensorShape::Circle { radius: half.x };
                Some((ObjectKind::Sensor(shape), center, Vec2::splat(half.x)))
            }
            ("platform", ObjectShape::Polyline { points }) if !points.is_empty() => {
                let path: Vec<Vec2> = points
                    .iter()
                    .map(|&(x, y)| world(object.x + x, object.y + y))
                    .collect();
                let half = Vec2::new(
                    float(&object.properties, "width", 48.0),
                    float(&object.properties, "height", 8.0),
                ) / 2.0;
                let speed = float(&object.properties, "speed", 50.0);
                let one_way = matches!(
                    object.properties.get("one_way"),
                    Some(PropertyValue::BoolValue(true))
                );
                Some((
                    ObjectKind::Platform {
                        path: path.clone(),
                        speed,
                        one_way,
                    },
                    path[0],
                    half,
                ))
            }
            _ => None,
        };
        let Some((kind, center, half_extents)) = made else {
            let shape = format!("{:?}", object.shape);
            let shape = shape
                .split([' ', '(', '{'])
                .next()
                .unwrap_or_default()
                .to_owned();
            return Err(LevelError::UnknownObject {
                path: path.to_path_buf(),
                object: name,
                what: format!(
                    "class {class:?} with a {shape} shape (expected a spawn point or rectangle, a \
                     crate rectangle, a sensor rectangle or ellipse, or a platform polyline)"
                ),
            });
        };
        objects.push(LevelObject {
            name,
            kind,
            center,
            half_extents,
        });
    }
    Ok(())
}
