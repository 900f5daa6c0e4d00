//! The tile map and body-vs-tile collision (articles 001 and 004).
//!
//! A `TileMap` is a grid of `TileKind`s: empty, solid, one-way platform, ladder, and slopes. A
//! slope tile's surface crosses it in a straight line: 45 degrees, or a 2:1 slope made of two
//! tiles (its low half and its high half), rising to the right or to the left; as a floor (solid
//! below the surface), a ceiling (solid above it) or a one-way floor (bodies pass through it from
//! below and from the sides, land on its surface from above, and drop through it with
//! `BodySwitches::drop_through`). In ASCII maps ([`TileMap::from_ascii`], and levels):
//!
//! | character | tile | character | tile |
//! | --- | --- | --- | --- |
//! | `.` or a space | empty | `#` | solid |
//! | `-` | one-way platform | `H` | ladder |
//! | `/` | floor slope, 45 degrees, rising right | `\` | floor slope, 45 degrees, rising left |
//! | `1` `2` | 2:1 floor slope rising right: low half, high half | `3` `4` | 2:1 floor slope rising left: high half, low half |
//! | `(` `)` | ceiling slopes: `/` and `\` upside down | `5` `6` `7` `8` | ceiling slopes: `1` `2` `3` `4` upside down |
//! | `{` `}` | one-way floor slopes: `/` and `\` | `a` `b` `c` `d` | one-way floor slopes: `1` `2` `3` `4` |
//!
//! A body walks up and down a floor slope at its horizontal speed and stays on the ground every
//! step (`on_ground()`; no `Landed`), across the seams between slopes, flat ground and slopes of
//! the other angle; its box rests on the slope by its uphill bottom corner, whatever its size; a
//! jump from a slope goes as high as from flat ground. That holds for bodies that walk on slopes
//! (`BodySwitches::walk_slopes`, on by default and independent of friction, so a controller that
//! turns friction off still walks); a body with it off slides down a slope, and bodies pushed
//! along a slope by others go up or down it. A walk up a ramp leaves the ramp's line where the
//! ramp ends (on over its top, never on up into the air), and a body that lands near a slope's end
//! lands on it or falls on past it, never stopping in mid-air. A body rising into a ceiling slope
//! is turned along it. Falls onto slopes are swept like every move: no tunnelling at any speed. A
//! one-way slope holds only a body that comes down onto its surface: one passing under it or
//! beside it (out of its low end along the floor) is never lifted onto it. A one-way platform
//! never lifts a body into a slope above it. Contacts with slopes are worked out in the tile's
//! own frame, so they hold as well far from the origin as near it.
//! `BodyState::slope()` names the slope a body stands on and `BodyState::ground_normal()` gives the
//! ground's normal. Segment casts stop on a slope's surface. Maps without slopes take none of the
//! slope paths (`TileMap::has_slopes`).

mod cast;
internal! { pub mod collide; }
mod map;
pub(crate) mod memo;
mod reach;
mod slope;
mod sweep;
mod system;

pub(crate) use cast::box_tile_hits;
pub use cast::{TileHit, cast_segment_tiles};
pub use map::{TileKind, TileMap, TileMapError};
pub use slope::{Polygon, Slope, SlopeShape, SlopeTile};
pub(crate) use system::TileCollisionPlugin;
#[cfg(any(test, feature = "reference"))]
pub(crate) use system::left_the_map;
