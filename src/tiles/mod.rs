//! The tile map and body-vs-tile collision (articles 001 and 004).

mod cast;
internal! { pub mod collide; }
mod map;
pub(crate) mod memo;
mod reach;
mod slope;
mod sweep;
mod system;

pub use cast::{TileHit, cast_segment_tiles};
pub use map::{TileKind, TileMap, TileMapError};
pub use slope::{Polygon, Slope, SlopeShape, SlopeTile};
pub(crate) use system::TileCollisionPlugin;
#[cfg(any(test, feature = "reference"))]
pub(crate) use system::left_the_map;
