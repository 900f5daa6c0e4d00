//! 2D platformer physics for Bevy with axis-aligned boxes and a tile map.
//!
//! Add [`PhysicsPlugin`], insert a [`TileMap`], and give entities an [`Aabb`] and a
//! [`Velocity`]: they fall, land, slide along walls, stand on one-way platforms, climb ladders
//! and never pass through tiles, at any speed; crates stack without sinking into each other
//! ([`RelaxationPlugin`]), and a [`Pushable`] crate is pushed along by a character walking
//! into it. [`Sensor`]s notice bodies without pushing them,
//! [`CollisionLayers`] choose who meets whom, and [`SpatialQuery`] finds bodies at a point, in a
//! rectangle or along a segment.
//!
//! # Quick start
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
//!     .insert_resource(
//!         TileMap::from_ascii(
//!             "#......#\n\
//!              #..--..#\n\
//!              ########",
//!             16.0,
//!         )
//!         .unwrap(),
//!     );
//! let body = app
//!     .world_mut()
//!     .spawn((Aabb::new(Vec2::new(24.0, 40.0), Vec2::splat(6.0)), Velocity::default()))
//!     .id();
//! // Run 60 fixed steps by hand (a real app just calls `app.run()`).
//! for _ in 0..60 {
//!     app.world_mut().run_schedule(FixedUpdate);
//! }
//! // It fell onto the floor, whose top is at y = 16.
//! assert_eq!(app.world().get::<Aabb>(body).unwrap().center.y, 22.0);
//! assert!(app.world().get::<PushFlags>(body).unwrap().on_ground());
//! ```
//!
//! # The step
//!
//! Every step runs in the physics schedule (`FixedUpdate` by default) as the chained
//! [`PhysicsSystems`]; one run of the schedule advances the physics by
//! `Time<Fixed>::timestep()`, also when you run the schedule by hand (tests, servers, rollback).
//!
//! ```text
//! your input systems      .before(PhysicsSystems::Integrate): set Velocity, jump, climb
//!   -> Integrate          riders get their kinematic support's change of velocity
//!                         (carry); pushable bodies get their pushers' (push); old
//!                         position; bad input; gravity + max fall speed; kinematic moves
//!   -> TileCollide        depenetrate (or hold; Squished); one-way snap; swept
//!                         move-and-slide; flags; friction
//!                         (a body given the same input as last time reuses its result)
//!   -> UpdatePartition    moved bodies change cells in the Partition (incremental)
//!   -> DetectPairs        per cell, each pair once; each body's contacts laid out (and
//!                         written into its Contacts if it has one); touching counts;
//!                         CollisionStarted / CollisionEnded
//!   -> Respond            per body from its own contacts: speed-ratio split, axis choice,
//!                         accumulated offset; object PushFlags; Transform follows Aabb;
//!                         then relaxation (RelaxationPlugin) pushes apart what still
//!                         overlaps, in passes from the support up; the bodies moved are
//!                         filed again in the Partition
//!   -> Sense              each Sensor's bodies; SensorEntered / SensorExited
//! your gameplay systems   .after(PhysicsSystems::Sense): read PushFlags, BodyState, messages
//! ```
//!
//! A body the step would not change (it ended its last step where it began, nobody wrote to
//! it since, and nothing around it moves) is left out of every stage and keeps its contacts:
//! the outcome is bit for bit the same, and a settled pile costs little more than the bodies
//! moving in it ([`RestSkippingPlugin`], part of [`PhysicsPlugin`]).
//!
//! # Units and conventions
//!
//! World units (think pixels), seconds, y up. The [`Aabb`] is the body's position; its
//! `Transform` follows it. Tiles outside the map are empty.
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | *(none)* | yes | the headless physics: only `bevy` with `std` and `bevy_log` |
//! | `debug` | no | `debug::DebugPlugin` (gizmo overlays and the egui panel), with the window, renderer and `bevy_egui` it needs; the examples need it |
//! | `levels` | no | `levels::LevelPlugin`: levels as assets, from ASCII `.txt` and Tiled `.tmx` files, with hot reload |
//! | `reference` | no | `reference::ReferencePhysicsPlugin`: the whole step written for reading, one body at a time; the plugin's fast path is tested against it bit for bit |
//!
//! # References
//!
//! The docs cite five articles by number; the crate implements their algorithms, with their
//! known errors fixed (each a test case):
//!
//! - **article 000**: Daniel Branicki, "Basic 2D Platformer Physics, Part 5: Object vs. Object
//!   Collision Detection", Envato Tuts+: the uniform grid partition, the signed overlap where
//!   touching counts, per-body collision data, each pair once.
//! - **article 001**: Paul Firth, "How to make a 2d platform game, part 2: collision
//!   detection", wildbunny blog, and its comment thread: gravity and the fall-speed cap,
//!   speculative contacts against tiles (the swept box as the broad phase), internal-edge
//!   filtering, one-way platforms, ladders, ground friction, landing.
//! - **article 002**: "Practical 2D collision detection", parts 1 and 2, rapapaing.com blog:
//!   circle and (rotated) rectangle tests, detection without response ([`shapes`]).
//! - **article 003**: Daniel Branicki, "Basic 2D Platformer Physics, Part 6: Object vs. Object
//!   Collision Response", Envato Tuts+: kinematic bodies, push flags, the overlap split by
//!   speed, the axis chosen from the last step, the accumulated offset.
//! - **article 004**: Jonathan Whiting, the collision detection and response primer: moving
//!   along x then y to slide along walls, sub-steps against tunnelling, the top-down case.
//!
//! Beside them: the structure of avian2d (a plugin per stage, system sets) and Box2D v3 (a
//! copy of each body's state by role), whose designs the crate's layout follows.

#![warn(missing_docs)]
#![deny(unsafe_code)]

/// Declares an item `pub` with the `internals` feature (for the tests and the bench; hidden from
/// the docs), else `pub(crate)`.
macro_rules! internal {
    ($(#[$meta:meta])* pub $($item:tt)*) => {
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        $(#[$meta])*
        pub $($item)*
        #[cfg(not(feature = "internals"))]
        $(#[$meta])*
        #[allow(dead_code, reason = "used by the tests and the bench")]
        pub(crate) $($item)*
    };
}

pub mod body;
mod carry;
pub mod checksum;
mod collision_events;
pub mod config;
pub mod contacts;
#[cfg(feature = "debug")]
pub mod debug;
pub mod diagnostics;
mod fast;
pub mod flags;
internal! { pub mod friction; }
internal! { pub mod geometry; }
#[cfg(feature = "ggrs")]
pub mod ggrs;
mod integrate;
#[cfg(feature = "interpolation")]
pub mod interpolation;
pub mod layers;
#[cfg(feature = "levels")]
pub mod levels;
pub mod messages;
pub mod one_way;
mod pairs;
pub mod partition;
mod plugin;
pub mod push;
pub mod query;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
pub mod relax;
// The response's algorithm is in its module doc; the function itself is for the tests and the
// bench only.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod response;
#[cfg(not(feature = "internals"))]
mod response;
pub mod rest_skipping;
pub mod rollback;
pub mod schedule;
pub mod sensors;
pub mod shapes;
#[cfg(test)]
mod test_rng;
pub mod tiles;
pub mod timing;
mod writeback;

pub use body::{Aabb, BodyState, BodySwitches, Kinematic, OldPosition, Velocity};
pub use config::PhysicsConfig;
pub use contacts::{CollisionData, Contacts};
pub use diagnostics::PhysicsStats;
pub use flags::{PushFlags, Side};
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use integrate::apply_gravity;
pub use layers::{CollisionLayers, LayerMask};
pub use messages::{CollisionEnded, CollisionStarted, Landed, Presser, Squished};
pub use one_way::OneWayPlatform;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use partition::PartitionError;
pub use partition::{GridArea, GridAreas, Partition};
pub use plugin::PhysicsPlugin;
pub use push::Pushable;
pub use query::{CastHit, HitTarget, QueryFilter, SpatialQuery};
pub use relax::RelaxationPlugin;
pub use rest_skipping::{RestSkipping, RestSkippingPlugin};
pub use schedule::PhysicsSystems;
pub use sensors::{Sensor, SensorContents, SensorEntered, SensorExited, SensorShape};
pub use tiles::{Slope, SlopeShape, TileKind, TileMap, TileMapError};

/// Everything a game needs: `use bevy_platformer_physics::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Aabb, BodyState, BodySwitches, CastHit, CollisionData, CollisionEnded, CollisionLayers,
        CollisionStarted, Contacts, GridAreas, HitTarget, Kinematic, Landed, LayerMask,
        OldPosition, OneWayPlatform, Partition, PhysicsConfig, PhysicsPlugin, PhysicsStats,
        PhysicsSystems, Presser, PushFlags, Pushable, QueryFilter, RelaxationPlugin, RestSkipping,
        RestSkippingPlugin, Sensor, SensorContents, SensorEntered, SensorExited, SensorShape, Side,
        Slope, SlopeShape, SpatialQuery, Squished, TileKind, TileMap, TileMapError, Velocity,
    };
}
