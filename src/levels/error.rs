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
            LevelError::UnknownObject { path, object, what } => {
                write!(f, "level {}: object {object:?}: {what}", path.display())
            }
        }
    }
}

impl core::error::Error for LevelError {}
