//! What goes wrong with a level file.

use std::path::PathBuf;

use crate::tiles::TileMapError;

/// Why a level file could not be loaded. Every case names the file.
#[derive(Debug)]
pub enum LevelError {
    /// The file (or a file it refers to, such as a Tiled tileset) could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        error: String,
    },
    /// The tiles do not make a map: an unknown character, a bad tile size, no rows, or a map
    /// larger than the [`Partition`](crate::Partition) can hold.
    Map {
        /// The file.
        path: PathBuf,
        /// Why.
        error: TileMapError,
    },
    /// The file is not a Tiled map this plugin can read (malformed XML, a missing attribute,
    /// an infinite or non-orthogonal map, tiles that are not square).
    Tiled {
        /// The file.
        path: PathBuf,
        /// Why.
        error: String,
    },
    /// A tile's `kind` property holds something other than `solid`, `one_way`, `ladder` or
    /// `empty`.
    UnknownTileKind {
        /// The file.
        path: PathBuf,
        /// The tileset's name.
        tileset: String,
        /// The tile's id in its tileset.
        tile: u32,
        /// The value found.
        value: String,
    },
    /// The file is not an LDtk project this plugin can read (malformed JSON, a missing field,
    /// IntGrid layers of different grids or with an offset, a project without levels).
    Ldtk {
        /// The file.
        path: PathBuf,
        /// Why.
        error: String,
    },
    /// A cell of an LDtk IntGrid layer holds a value whose identifier is not a tile kind
    /// (or that has no identifier).
    UnknownIntGridValue {
        /// The file.
        path: PathBuf,
        /// The layer's identifier.
        layer: String,
        /// The value.
        value: i64,
        /// Its identifier in the layer's definition, if it has one.
        identifier: Option<String>,
    },
    /// An object whose class (type) is not `spawn`, `crate`, `sensor` or `platform`, or whose
    /// shape does not fit its class.
    UnknownObject {
        /// The file.
        path: PathBuf,
        /// The object's name (or its id, when it has none).
        object: String,
        /// Its class and shape, and what was expected.
        what: String,
    },
}

impl core::fmt::Display for LevelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LevelError::Io { path, error } => {
                write!(f, "level {}: cannot read it: {error}", path.display())
            }
            LevelError::Map { path, error } => write!(f, "level {}: {error}", path.display()),
            LevelError::Tiled { path, error } => {
                write!(
                    f,
                    "level {}: not a usable Tiled map: {error}",
                    path.display()
                )
            }
            LevelError::UnknownTileKind {
                path,
                tileset,
                tile,
                value,
            } => write!(
                f,
                "level {}: tile {tile} of tileset {tileset:?} has kind {value:?} \
                 (expected \"solid\", \"one_way\", \"ladder\" or \"empty\")",
                path.display()
            ),
            LevelError::Ldtk { path, error } => {
                write!(
                    f,
                    "level {}: not a usable LDtk project: {error}",
                    path.display()
                )
            }
            LevelError::UnknownIntGridValue {
                path,
                layer,
                value,
                identifier,
            } => {
                write!(
                    f,
                    "level {}: IntGrid layer {layer:?}: value {value} ",
                    path.display()
                )?;
                match identifier {
                    Some(name) => write!(f, "is named {name:?}")?,
                    None => write!(f, "has no identifier")?,
                }
                write!(
                    f,
                    " (expected a tile kind: \"solid\", \"one_way\", \"ladder\", \"empty\" or a slope)"
                )
            }
            LevelError::UnknownObject { path, object, what } => {
                write!(f, "level {}: object {object:?}: {what}", path.display())
            }
        }
    }
}

impl core::error::Error for LevelError {}
