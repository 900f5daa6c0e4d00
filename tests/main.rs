//! Integration tests on a headless App, one module per behaviour, all in one test binary (it
//! links once, where a binary per file would link Bevy once each).

mod common;
// The versus example's game and its lossy network, for the GGRS tests.
#[path = "../examples/versus/game.rs"]
mod game;
#[path = "../examples/versus/network.rs"]
#[allow(dead_code, reason = "the wall clock is the versus example's")]
mod network;

mod allocation;
mod architecture;
mod bad_input;
mod box_casts;
mod checksum;
mod collision_events;
mod corners;
mod crushing;
mod determinism;
mod diagnostics;
mod fit;
mod ggrs;
mod ghost;
mod golden;
mod gravity;
mod interpolation;
mod jumps;
mod ladders;
mod landing;
mod layers;
mod levels;
mod maps;
mod objects;
mod one_way;
mod order;
mod p2p;
mod pairs;
mod partition;
mod properties;
mod push;
mod queries;
mod readme;
mod relaxation;
mod relaxation_tiles;
mod rest;
mod riding;
mod rollback;
mod seams;
mod sensors;
mod sliding;
mod slope_edges;
mod slope_scenes;
mod slopes;
mod stacks;
mod stepping;
mod tnua;
mod tunnelling;
mod world;
// `cargo test --features track_location --test main track_location` (CI runs it).
#[cfg(feature = "track_location")]
mod track_location;
