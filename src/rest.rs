//! Bodies at rest: the step leaves out a body it would not change.
//!
//! # Why it is exact
//!
//! A body's step is a function of its own state (box, velocity, flags, ground velocity,
//! switches) and of its contacts (its partners' snapshots, in partner-slot order). A body is
//! **still** when its last processed step ended exactly where it began. If it is still, its
//! state is what that step began with (nobody wrote it since), and no partner it had then or
//! would have now changed, then this step would repeat that one input for input: it would end
//! where it begins again. Such a body is left out of every stage, and its contacts are carried
//! over from the last layout unchanged.
//!
//! Each step sorts bodies into three kinds (per slot, [`AWAKE`], [`ACTIVE`], neither):
//!
//! - **awake**: not still, or written since (a teleport, a new velocity, other switches), or
//!   everything after a change of the map, the configuration or the time step. Integrated,
//!   collided with tiles and snapshotted as usual.
//! - **active**: not awake, but a partner of an awake body at the last step or at this one. Its
//!   contacts are found again, and it responds to them from the state tile collision left it in
//!   at its last processed step (which it would reach again: same input, same output).
//! - **at rest**: neither. Nothing is read or written; its contacts are the last step's.
//!
//! Contacts are laid out in partner-slot order, not discovery order, so a body's contacts do
//! not depend on which bodies were searched; the outcome is bit for bit that of a step that
//! processes every body (`resting_bodies_are_skipped_without_changing_the_outcome`).

use bevy::prelude::*;

use crate::body::{Aabb, BodyState, BodySwitches, Velocity};
use crate::flags::PushFlags;

/// The slot's body is awake: processed in full this step.
pub(crate) const AWAKE: u8 = 1;
/// The slot's body is searched for pairs with every body (awake, or an awake body's partner at
/// the last step).
pub(crate) const ACTIVE: u8 = 2;
/// The slot's body became an awake body's partner this step: its pairs are searched for it
/// alone, after the cells are done.
pub(crate) const JOINED: u8 = 4;

/// What a body's state was at the start of the last step that processed it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Start {
    center: Vec2,
    half: Vec2,
    velocity: Vec2,
    ground_velocity: Vec2,
    flags: PushFlags,
    switches: Option<BodySwitches>,
}

/// What the physics remembers about a body to leave it out of steps that would not change it
/// (see [`PhysicsConfig::skip_resting_bodies`](crate::PhysicsConfig::skip_resting_bodies)).
/// Added with [`Aabb`]; written only by the physics, and never marked changed.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Rest {
    start: Start,
    /// The centre, velocity and flags tile collision left at the last processed step.
    tile_center: Vec2,
    tile_velocity: Vec2,
    tile_flags: PushFlags,
    /// The last processed step ended where it began.
    still: bool,
}

/// Whether the body is processed in full this step (integrated and collided with tiles): set
/// by `Integrate` from [`Rest`]. Its own one-byte column, so the passes that only ask this do
/// not read a resting body's [`Rest`].
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Awake(pub(crate) bool);

impl Rest {
    /// Decides at the start of a step whether the body is awake, from its state now; when it
    /// is, that state becomes the one the step is compared with at its end. `wake` wakes it
    /// whatever its state (a kinematic or invalid body, or every body after a change of the
    /// map, the configuration or the time step).
    #[inline]
    pub(crate) fn begin(
        &mut self,
        aabb: &Aabb,
        velocity: &Velocity,
        flags: &PushFlags,
        state: &BodyState,
        switches: &BodySwitches,
        wake: bool,
    ) -> bool {
        let now = Start {
            center: aabb.center,
            half: aabb.half_extents,
            velocity: velocity.0,
            ground_velocity: state.ground_velocity,
            flags: *flags,
            switches: Some(*switches),
        };
        let awake = wake || !self.still || now != self.start;
        if awake {
            self.start = now;
            self.still = false;
        }
        awake
    }

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

    /// Records, after the response, whether the step ended where it began.
    #[inline]
    pub(crate) fn end(
        &mut self,
        aabb: &Aabb,
        velocity: &Velocity,
        flags: &PushFlags,
        state: &BodyState,
        switches: &BodySwitches,
    ) {
        let end = Start {
            center: aabb.center,
            half: aabb.half_extents,
            velocity: velocity.0,
            ground_velocity: state.ground_velocity,
            flags: *flags,
            switches: Some(*switches),
        };
        self.still = end == self.start;
    }

    /// Forgets that the body was still: it is awake at the next step.
    #[inline]
    pub(crate) fn wake(&mut self) {
        self.still = false;
    }
}

/// Wakes the bodies whose [`CollisionLayers`](crate::CollisionLayers) were set since the last
/// step (the physics never writes them, so a change is the game's): who they meet changes.
pub(crate) fn wake_relayered(
    mut bodies: Query<&mut Rest, Changed<crate::layers::CollisionLayers>>,
) {
    for mut rest in &mut bodies {
        rest.bypass_change_detection().wake();
    }
}
