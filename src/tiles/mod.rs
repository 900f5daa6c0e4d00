//! The tile map and body-vs-tile collision (articles 001 and 004).

mod cast;
internal! { pub mod collide; }
mod map;
mod reach;
#[allow(
    dead_code,
    reason = "slope tiles' geometry, which the tile collision does not use yet (issue 36)"
)]
mod slope;
mod sweep;
mod system;

pub use cast::{TileHit, cast_segment_tiles};
pub use map::{TileKind, TileMap, TileMapError};
pub(crate) use system::TileCollisionPlugin;
#[cfg(any(test, feature = "reference"))]
pub(crate) use system::left_the_map;
