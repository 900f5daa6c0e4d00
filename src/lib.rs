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
//! # Bodies
//!
//! | component | what it is |
//! | --- | --- |
//! | `Aabb` | centre and half extents; the body's position (its `Transform` follows it) |
//! | `Velocity` | units per second, y up |
//! | `Kinematic` | moved only by its own velocity: no gravity, no tiles, never pushed |
//! | `Pushable` | opt-in: pushed along by a body walking into it, at its `share` of that body's speed (requires `Contacts`) |
//! | `OneWayPlatform` | solid only from above: bodies land and ride on it, and pass through it from below and from the sides (and drop through it with the switch); meant for kinematic platforms |
//! | `BodySwitches` | world collision, gravity, friction, walking on slopes; drop through one-way platforms; climb ladders |
//! | `PushFlags` | sides touching a tile or a body, this step and last step; `on_ground()`; marked changed (`Changed<PushFlags>`) only in the steps that change them |
//! | `BodyState` | overlaps a ladder; the kind of tile it stands on (`slope()`, `ground_normal()`); the velocity of the body it stands on; whether it is squished now (`is_squished()`) |
//! | `OldPosition` | the centre before this step |
//! | `Contacts` | opt-in (add it to the bodies whose contacts you read): every body it overlaps or touches, captured at detection (`CollisionData`) |
//! | `GridAreas` | the cells it occupies in the `Partition` and its index in each |
//! | *(private)* | the physics also keeps, on each body, its last tile collision (reused while the body rests exactly where it rested) and what lets a step leave out a body it would not change (`RestSkippingPlugin`, part of `PhysicsPlugin`; the outcome is bit for bit the same without it) |
//! | `CollisionLayers` | optional: the layers it is on and collides with (up to 32; mutual filtering; also on sensors) |
//!
//! # Crowds and piles
//!
//! Article 003's response resolves each contact once per step, so bodies in piles and crowds would
//! end a step inside each other. `RelaxationPlugin` (part of `PhysicsPlugin`) follows it with up to
//! `PhysicsConfig::relaxation_passes` passes (4 by default) that push apart what still overlaps, in
//! ordered sweeps from the floor and the walls outward: a stack or a row pressed into a wall
//! settles in one pass, every push goes through the tile sweep (no body is pushed into a tile, nor
//! round a tile's corner), and the outcome is the same, bit for bit, on any number of threads and
//! with rest skipping on or off. In the benchmark's pile and crowd it leaves the shallowest
//! overlaps of the three engines compared, and it is the largest part of the step where every body
//! moves; the figures, against avian2d and rapier, are in `BENCHMARKS.md`. Leave
//! the plugin out (`PhysicsPlugin::default().build().disable::<RelaxationPlugin>()`) or set
//! `relaxation_passes: 0` for the article's response alone.
//!
//! A walking body takes the whole overlap with a resting body and stops against it, as article
//! 003 has it. Give a crate `Pushable { share }` and a body walking into it pushes it along: the
//! crate moves at `share` of the walker's speed (0.5 by default; the lighter the crate, the closer
//! to 1) and the walker slows down to the same speed. A row of pushable crates moves as one; a
//! crate against a wall or against a body that is not pushable stops the pusher; a crate standing
//! on a pushed one rides along; bodies land on a pushable crate as on any other.
//!
//! What relaxation cannot undo, a stack taller than the gap under a platform, say, is reported: each crate
//! of the squeeze still overlapping another gets one `Squished` per episode, naming the tile,
//! kinematic body or crate that presses each of its sides. `PhysicsStats` says how many passes
//! changed something in the last step (as many as allowed: it stopped at the limit) and how many
//! bodies they moved, and the stage clock times relaxation as a stage of its own.
//!
//! # Sensors, collision events and queries
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::prelude::*;
//!
//! const PLAYER: LayerMask = LayerMask::layer(0);
//!
//! fn spawn(mut commands: Commands) {
//!     // A trigger zone (box, circle, or rectangle turned by its Transform) that only sees players.
//!     commands.spawn((
//!         Sensor::circle(24.0),
//!         Transform::from_xyz(300.0, 48.0, 0.0),
//!         CollisionLayers::new(LayerMask::ALL, PLAYER),
//!     ));
//! }
//!
//! fn react(
//!     mut entered: MessageReader<SensorEntered>,
//!     mut bumps: MessageReader<CollisionStarted>,
//!     space: SpatialQuery,
//! ) {
//!     for e in entered.read() {
//!         info!("{} entered {}", e.body, e.sensor);
//!     }
//!     for c in bumps.read() {
//!         info!("{} and {} touch", c.a, c.b);
//!     }
//!     // First tile or body along a segment; one-way tiles and bodies stop it only from above.
//!     if let Some(hit) = space.cast_segment(Vec2::new(0.0, 100.0), Vec2::new(0.0, 0.0), QueryFilter::default()) {
//!         info!("{:?} at {} with normal {}", hit.target, hit.distance, hit.normal);
//!     }
//! }
//! ```
//!
//! | messages | when |
//! | --- | --- |
//! | `Landed` | a body comes to stand on a tile or a body |
//! | `Squished` | a body is pressed from two opposite sides by what does not give way: among tiles (taller than the gap between a floor and a ceiling, buried, or under a ceiling too low to stand on a one-way top), or by a `Kinematic` body against a tile or another kinematic body (a platform coming down on it); `pressed_by(side)` says what pressed it (`Presser::Tile` or `Presser::Body`). Once per episode; `BodyState::is_squished()` is true at every step of the episode. The physics holds it where it fits (never into a tile); the game decides what happens to it |
//! | `CollisionStarted` / `CollisionEnded` | two bodies start / stop touching or overlapping: once per contact episode, also on despawn, in a deterministic order (`PhysicsConfig::collision_events = false` turns them off when nothing reads them) |
//! | `SensorEntered` / `SensorExited` | a body comes into / leaves a `Sensor` (its `SensorContents`): once each, also when either is despawned |
//!
//! `SpatialQuery` (a system parameter) offers `point`, `rect`, `cast_segment` and box casts
//! (`cast_box`, `cast_box_hits`: a box swept as the tile collision sweeps a body), filtered by
//! layers with `QueryFilter`.
//!
//! # Bodies against bodies, threads, determinism
//!
//! Bodies find each other through the `Partition` resource, a grid of cells over the map (16 x 16
//! tiles by default); each pair is found once per step and listed for both bodies (in their
//! `Contacts`, for the bodies that have one).
//! Overlapping bodies are then moved apart by the share of the step each actually moved;
//! `Kinematic` bodies are never moved. A body standing on a body loses horizontal speed to ground
//! friction relative to it, as on tiles: crates stop sliding on crates. Riders are carried: a body
//! standing on a kinematic platform, or on a body that stands on one, moves with it on both axes,
//! and when the game changes the platform's velocity (it starts, stops or reverses) the change
//! passes up the whole stack in the same step, so riders neither float off a descending platform
//! nor sink into one that turns upward (`BodyState::ground` names the body stood on; across, the
//! carry is friction's, so a frictionless body slides). A controller that sets its speed every
//! step adds `BodyState::ground_velocity` to keep the carry, as the platformer example does. A `OneWayPlatform` body is a contact only for a body that comes from
//! above (its feet at the last step no more than `PhysicsConfig::one_way_tolerance` below the
//! top, not rising faster than the platform, not dropping through): a character jumps up through
//! a one-way lift and lands on it (see the `one_way` module). Above
//! `PhysicsConfig::parallel_min_bodies` bodies every stage is spread over as many threads as
//! Bevy's compute task pool has, with bit-identical results (the step keeps those threads from
//! its first stage to its last, so a settled step allocates nothing and wakes nobody).
//! `PhysicsStats` counts the bodies (and how many were awake, the rest left out at rest), cells,
//! pairs, relaxation passes and relaxed bodies of the last step, and says how deep the bodies are
//! inside each other where the step left them (`deepest_overlap`, `pairs_over_one_unit`, over the
//! pairs detection found, squished bodies left out); the debug panel shows them, and its
//! inspector says how the last step treated the selected body.
//!
//! On a two-core machine Bevy's default task pools give the compute pool a single thread, so the
//! parallel paths run on one core. To use both, give the compute pool every core:
//!
//! ```
//! use bevy::app::{TaskPoolOptions, TaskPoolPlugin, TaskPoolThreadAssignmentPolicy};
//! use bevy::prelude::*;
//! # let mut app = App::new();
//!
//! let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
//! let pools = TaskPoolPlugin {
//!     task_pool_options: TaskPoolOptions {
//!         compute: TaskPoolThreadAssignmentPolicy {
//!             min_threads: cores,
//!             max_threads: cores,
//!             percent: 1.0,
//!             on_thread_spawn: None,
//!             on_thread_destroy: None,
//!         },
//!         ..default()
//!     },
//! };
//! // `DefaultPlugins.set(pools)` in a game with a window.
//! app.add_plugins(MinimalPlugins.set(pools));
//! ```
//!
//! When most bodies move every step (a crowd, a pile), Bevy's static-scene optimization of
//! `Transform` propagation costs more than it saves, as Bevy's documentation of it says; turning
//! it off shortens the step when most bodies move (the benchmark runs with it off, see
//! `BENCHMARKS.md`):
//!
//! ```
//! use bevy::transform::StaticTransformOptimizations;
//! # let mut app = bevy::app::App::new();
//!
//! app.insert_resource(StaticTransformOptimizations::Disabled);
//! ```
//!
//! The physics' stages run one after the other (each spreads its own passes over worker
//! threads), so for them Bevy's multi-threaded executor only adds the cost of handing each of
//! their systems to a task, a few microseconds each. If your fixed schedule holds little else,
//! its single-threaded executor makes the step a little shorter (see `BENCHMARKS.md`); your other
//! fixed systems then run one at a time too:
//!
//! ```
//! use bevy::ecs::schedule::SingleThreadedExecutor;
//! use bevy::prelude::*;
//! # let mut app = App::new();
//!
//! app.edit_schedule(FixedUpdate, |fixed| {
//!     fixed.set_executor(SingleThreadedExecutor::new());
//! });
//! ```
//!
//! Benchmarks against avian2d and bevy_rapier2d on the same scene are in
//! `BENCHMARKS.md`. To see where your own step's time goes, add
//! `timing::StageTimingPlugin`: the `StageTimings` resource then holds each stage's duration for
//! the last 240 steps, relaxation's (`relax`) apart from the rest of the response (the debug panel
//! draws it; it needs no renderer). Or add
//! `diagnostics::PhysicsDiagnosticsPlugin`: `PhysicsStats` and each stage's time become Bevy
//! diagnostics (`physics/bodies`, `physics/step_ms`, `physics/stage/pairs_ms`, ...), which
//! `LogDiagnosticsPlugin` prints and every diagnostics tool reads.
//!
//! Runtime tuning (gravity, maximum fall speed, ground friction, one-way tolerance, contact
//! tolerance, collision events on or off) is the `PhysicsConfig` resource.
//!
//! The outcome of a step is the same, bit for bit, in every run, on any number of threads and
//! with rest skipping on or off. `checksum::PhysicsChecksumPlugin` makes it checkable: the
//! `PhysicsChecksum` resource then holds, after every step, a 64-bit hash of every body's state
//! (fixed, not seeded), which is what rollback netcode (GGRS) compares between peers and in its
//! sync tests. `rollback::PhysicsSnapshot::take(world)` saves the physics state between steps and
//! `restore(world)` puts it back; the steps that follow are then bit for bit those that followed
//! the snapshot (a property test checks it on random scenes). A restore needs the snapshot's
//! bodies: the game brings back or despawns its entities first (`restore_mapped` follows bodies
//! that came back under new entity ids).
//!
//! With the `ggrs` feature, `ggrs::GgrsPhysicsPlugin` does this for bevy_ggrs (0.22): run the
//! physics in `GgrsSchedule` (`PhysicsPlugin::new(GgrsSchedule)`), give bodies and sensors
//! `Rollback`, and GGRS's saves and loads take and restore the physics, and its frame checksum
//! includes the physics' (bodies named by their rollback order, so peers whose entity ids differ
//! agree). A body despawned for rollback (`despawn_rollback`, which disables it until its frame is
//! confirmed) leaves the simulation at once and comes back with a rollback. The `versus` example
//! and `tests/ggrs.rs` run a level with crates, moving and one-way platforms, a ladder and a sensor
//! in GGRS's `SyncTestSession` (600 frames, re-simulated 7 frames back at every frame, no
//! mismatch).
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
//! | `panel` | no | `debug::DebugPlugin` (gizmo overlays and the egui panel), with the window, renderer and `bevy_egui` it needs, and `levels`, `interpolation` and `ggrs`; the examples need it |
//! | `debug` | no | `panel` on the desktop: X11, Bevy's threads, hot reload |
//! | `web` | no | `panel` in a browser: WebGL2 |
//! | `levels` | no | `levels::LevelPlugin`: levels as assets, from ASCII `.txt`, Tiled `.tmx` and LDtk `.ldtk` files |
//! | `hot_reload` | no | `levels`, applied again when their file changes on disk |
//! | `interpolation` | no | `interpolation::InterpolationPlugin`: bodies drawn between fixed steps |
//! | `ggrs` | no | `ggrs::GgrsPhysicsPlugin`: rollback with bevy_ggrs |
//! | `tnua` | no | `tnua::TnuaPlatformerPlugin`: this physics as the backend of the bevy-tnua (0.32) character controller |
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
#[cfg(feature = "panel")]
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
#[cfg(feature = "tnua")]
pub mod tnua;
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
