//! How a character moves for its controls: walk, jump, climb, drop through (the examples'
//! characters, however they read their controls). Physics types only: the headless tests use
//! it too.

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;

pub const WALK: f32 = 130.0;
pub const CLIMB: f32 = 90.0;
pub const JUMP: f32 = 360.0;

/// What a player asks for at one step.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct Controls {
    /// -1 (left) to 1 (right).
    pub x: f32,
    pub up: bool,
    pub down: bool,
    pub jump: bool,
}

/// Sets a character's velocity and switches for `controls` (before the physics step).
/// `one_way` says whether a body is a one-way platform.
pub fn drive(
    controls: Controls,
    (v, switches): (&mut Velocity, &mut BodySwitches),
    (flags, state): (&PushFlags, &BodyState),
    one_way: impl Fn(Entity) -> bool,
) {
    // Walking is relative to what the character stands on: on a moving platform (or a crate
    // sliding along) its velocity carries the character. Zero on tiles.
    v.x = controls.x * WALK + state.ground_velocity.x;
    let on_ladder =
        state.overlaps_ladder || (state.standing_on == Some(TileKind::Ladder) && controls.down);
    switches.climbing = on_ladder && (controls.up || controls.down || switches.climbing);
    if switches.climbing {
        v.y = CLIMB * (controls.up as i32 - controls.down as i32) as f32;
    } else if controls.jump && flags.on_ground() {
        v.y += JUMP;
    }
    let on_pass_through = matches!(state.standing_on, Some(TileKind::OneWay | TileKind::Ladder))
        || state.ground.is_some_and(one_way);
    switches.drop_through = controls.down && (on_pass_through || switches.drop_through);
}
