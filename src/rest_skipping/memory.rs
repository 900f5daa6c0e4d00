//! Bodies at rest: the step leaves out a body it would not change.
//!
//! # Why it is exact
//!
//! A body's step is a function of its own state (box, velocity, flags, ground velocity,
//! switches, layers) and of its contacts (its partners' snapshots, in partner-slot order). A
//! body is **still** when its last processed step ended exactly where it began. If it is still,
//! its state is what that step began with (nobody wrote it since), and no partner it had then
//! or would have now changed, then this step would repeat that one input for input: it would
//! end where it begins again. Such a body is left out of every stage, and its contacts are
//! carried over from the last layout unchanged.
//!
//! Each step sorts bodies into three kinds ([`Awake`] per body; per slot, [`AWAKE`] and
//! [`ACTIVE`], [`ACTIVE`] alone, or none):
//!
//! - **awake**: not still; or one of its `Aabb`, `Velocity`, `PushFlags`, `BodyState` was
//!   written since the last step started (change ticks) and its state differs from the start
//!   of its last processed step; or its `BodySwitches` or `CollisionLayers` were written; or
//!   every body, after a change of the map, the configuration or the time step. Integrated,
//!   collided with tiles and snapshotted as usual.
//! - **active**: not awake, but a partner of an awake body at the last step or at this one
//!   (the pair loop marks both). Its contacts with awake bodies are found again; those with
//!   the other bodies are the last step's (neither body moved since). It responds to them from
//!   the state tile collision left it in at its last processed step (which it would reach
//!   again: same input, same output).
//! - **at rest**: neither. Its components are not read (only its change ticks and [`Awake`])
//!   nor written; its contacts are the last step's.
//!
//! Only the awake bodies' pairs are searched: a pair of two bodies that are not awake is
//! carried over with both bodies' contacts.
//!
//! Contacts are laid out in partner-slot order, not discovery order, and a pair's overlap is
//! worked out from the body in the lower slot, so a body's contacts do not depend on which
//! bodies were searched: the outcome is bit for bit that of a step that processes every body
//! (`tests/rest.rs`). Whenever a body changed slot or went away since the last step, every body
//! is searched again (resting ones respond from their remembered state).

use bevy::prelude::*;

use crate::body::{Aabb, BodyState, Velocity};
use crate::flags::PushFlags;

/// The slot's body is awake: processed in full this step.
pub(crate) const AWAKE: u8 = 1;
/// The slot's body responds this step: it is awake, or an awake body's partner at the last
/// step or at this one. Every body has it when every body's pairs are searched.
pub(crate) const ACTIVE: u8 = 2;

/// What a body's state was at the start of the last step that processed it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Start {
    center: Vec2,
    half: Vec2,
    velocity: Vec2,
    ground_velocity: Vec2,
    flags: PushFlags,
}

impl Start {
    #[inline]
    fn of(aabb: &Aabb, velocity: &Velocity, flags: &PushFlags, state: &BodyState) -> Self {
        Self {
            center: aabb.center,
            half: aabb.half_extents,
            velocity: velocity.0,
            ground_velocity: state.ground_velocity,
            flags: *flags,
        }
    }
}

/// What the physics remembers about a body to leave it out of steps that would not change it
/// (see [`RestSkippingPlugin`](crate::RestSkippingPlugin)).
/// Added with [`Aabb`]; written only by the physics, and never marked changed. Read and written
/// only for the bodies a step processes.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Rest {
    start: Start,
    /// The centre, velocity and flags tile collision left at the last processed step.
    tile_center: Vec2,
    tile_velocity: Vec2,
    tile_flags: PushFlags,
}

/// Whether the body is processed in full this step, and whether its last processed step ended
/// where it began: a one-byte column that every pass reads, so that a resting body's larger
/// [`Rest`] is not read at all. Added with [`Aabb`]; written only by the physics.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Awake(u8);

impl Awake {
    const AWAKE: u8 = 1;
    const STILL: u8 = 2;

    /// The body is integrated and collided with tiles this step.
    #[inline]
    pub(crate) fn is_awake(self) -> bool {
        self.0 & Self::AWAKE != 0
    }

    /// The body may have moved in the step under way: it is awake, or the response moved it
    /// (which [`end`](Self::end) records as not still). A body neither awake nor moved by the
    /// response is where it was filed.
    #[inline]
    pub(crate) fn may_have_moved(self) -> bool {
        self.0 & (Self::AWAKE | Self::STILL) != Self::STILL
    }

    /// The body's last processed step ended where it began.
    #[inline]
    pub(crate) fn is_still(self) -> bool {
        self.0 & Self::STILL != 0
    }

    /// The start of a step for a body that nothing forces awake, whose last processed step
    /// ended where it began and none of whose components was written since: it rests (what
    /// [`begin`](Self::begin) decides for it, without reading its components).
    #[inline]
    pub(crate) fn rest(&mut self) {
        self.0 &= !Self::AWAKE;
    }

    /// Decides at the start of a step whether the body is awake: when `wake` is set (a
    /// kinematic or invalid body, or every body after a change of the map, the configuration
    /// or the time step), when its last processed step did not end where it began, or when one
    /// of its components was `written` since (by the last step that processed it, or by the
    /// game) and its state now differs from the start of that step. An awake body's state now
    /// is recorded in `rest` as the start the step's end is compared with.
    #[inline]
    pub(crate) fn begin(
        &mut self,
        rest: &mut Rest,
        written: bool,
        (aabb, velocity, flags, state): (&Aabb, &Velocity, &PushFlags, &BodyState),
        wake: bool,
    ) -> bool {
        let forced = wake || !self.is_still();
        if !forced && !written {
            self.0 &= !Self::AWAKE;
            return false;
        }
        let now = Start::of(aabb, velocity, flags, state);
        if !forced && now == rest.start {
            self.0 &= !Self::AWAKE;
            return false;
        }
        rest.start = now;
        self.0 = Self::AWAKE;
        true
    }

    /// Records that relaxation moved the body after the response: its step did not end where
    /// it began (so it is awake at the next step, and filed again in the partition now).
    #[inline]
    pub(crate) fn moved(&mut self) {
        self.0 &= !Self::STILL;
    }

    /// Records, after the response, whether the step ended where it began (`rest.start`).
    #[inline]
    pub(crate) fn end(
        &mut self,
        rest: &Rest,
        (aabb, velocity, flags, state): (&Aabb, &Velocity, &PushFlags, &BodyState),
    ) {
        if Start::of(aabb, velocity, flags, state) == rest.start {
            self.0 |= Self::STILL;
        } else {
            self.0 &= !Self::STILL;
        }
    }
}

impl Rest {
    /// Records what tile collision left (awake bodies, after it).
    #[inline]
    pub(crate) fn after_tiles(&mut self, center: Vec2, velocity: Vec2, flags: PushFlags) {
        self.tile_center = center;
        self.tile_velocity = velocity;
        self.tile_flags = flags;
    }

    /// What tile collision left at the last processed step: centre, velocity, flags (the state
    /// an active body responds from).
    #[inline]
    pub(crate) fn tile_state(&self) -> (Vec2, Vec2, PushFlags) {
        (self.tile_center, self.tile_velocity, self.tile_flags)
    }
}
