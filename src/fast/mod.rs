//! The machinery that makes the step fast, kept apart from the stages' algorithms.
//!
//! **The contract:** nothing here changes an outcome. Whatever the stages compute through this
//! module, positions, velocities, flags, contacts and messages are bit for bit those of the
//! reference step (`crate::reference`, tested by its differential property test), on any
//! number of threads, with rest skipping on or off.
//!
//! | module | what it makes fast |
//! | --- | --- |
//! | [`detection`] | pair detection's snapshot, cell loop (prefetching, in pieces on the crew) and layout |
//! | [`rows`] | table columns read as slices, with change ticks marked as Bevy's `Mut` would |
//! | [`snapshot`] | each body's detection data in one slot-indexed array (the contact store) |
//! | [`layout`] | every body's contacts laid out contiguously, in slot order |
//! | [`gathered`] | each cell's bodies gathered once per step (the cell cache) |
//! | [`screen`] | the SIMD screen that rejects far pairs four at a time |
//! | [`rest`] | resting bodies left out of every stage |
//! | [`memo`] | a body given the same input as last step reuses its tile result |
//! | [`relaxing`] | where each slot's body ended the response, for relaxation's passes over slots; the near lists and escapees its searches read |
//! | [`moving`] | the bodies tile collision and the response move, table by table |
//! | [`crew`], [`parallel`] | the app's worker tasks and the deterministic fan-out over them |
//!
//! It is the only module allowed `unsafe` code (the crate denies it elsewhere).

#![allow(
    unsafe_code,
    reason = "the worker crew erases a pass's lifetime while it is on offer, and the snapshot prefetches"
)]

pub(crate) mod crew;
pub(crate) mod detection;
pub(crate) mod gathered;
pub(crate) mod layout;
pub(crate) mod memo;
pub(crate) mod moving;
pub(crate) mod parallel;
pub(crate) mod relaxing;
pub(crate) mod rest;
pub(crate) mod rows;
pub(crate) mod screen;
pub(crate) mod snapshot;
