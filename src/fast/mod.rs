//! The machinery that makes the step fast, kept apart from the stages' algorithms.
//!
//! **The contract:** nothing here changes an outcome. Whatever the stages compute through this
//! module, positions, velocities, flags, contacts and messages are bit for bit those of the
//! reference step (`crate::reference`, tested by its differential property test), on any
//! number of threads, with rest skipping on or off.
//!
//! | module | what it makes fast |
//! | --- | --- |
//! | [`rows`] | table columns read as slices, with change ticks marked as Bevy's `Mut` would; the prefetch |
//! | [`workers`], [`parallel`] | the app's worker tasks and the deterministic fan-out over them |
//!
//! It is the only module allowed `unsafe` code (the crate denies it elsewhere).

#![allow(
    unsafe_code,
    reason = "the workers erase a pass's lifetime while it is on offer, and the prefetch hints the cache"
)]

pub(crate) mod parallel;
pub(crate) mod rows;
pub(crate) mod workers;
