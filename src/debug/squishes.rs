//! The [`Squished`] episodes the panel counts and the overlay flashes.

use bevy::prelude::*;

use crate::flags::Side;
use crate::messages::Squished;

/// How long a squished body flashes, in seconds of real time.
pub const FLASH_SECONDS: f32 = 1.0;

/// Every [`Squished`] message the debug plugin has read: how many, the last one, and the
/// bodies still flashing in the overlay.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::debug::SquishLog;
/// use bevy_platformer_physics::prelude::*;
///
/// let mut log = SquishLog::default();
/// let body = Entity::from_raw_u32(7).unwrap();
/// log.note(Squished {
///     entity: body,
///     vertically: true,
///     horizontally: false,
///     center: Vec2::ZERO,
///     pressers: [None, None, Some(Presser::Tile), Some(Presser::Tile)],
/// });
/// assert_eq!(log.episodes, 1);
/// assert_eq!(log.flash(body), 1.0);
/// log.age(0.25);
/// assert_eq!(log.flash(body), 0.75);
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct SquishLog {
    /// Episodes read (one message each).
    pub episodes: u64,
    /// The last one read.
    pub last: Option<Squished>,
    /// The bodies squished in the last [`FLASH_SECONDS`], with the seconds each has left.
    pub flashing: Vec<(Entity, f32)>,
}

impl SquishLog {
    /// Counts `squished` and (re)starts its body's flash.
    pub fn note(&mut self, squished: Squished) {
        self.episodes += 1;
        self.last = Some(squished);
        self.flashing.retain(|&(e, _)| e != squished.entity);
        self.flashing.push((squished.entity, FLASH_SECONDS));
    }

    /// Lets `seconds` pass: the flashes fade, and those that ended are dropped.
    pub fn age(&mut self, seconds: f32) {
        for (_, left) in &mut self.flashing {
            *left -= seconds;
        }
        self.flashing.retain(|&(_, left)| left > 0.0);
    }

    /// How bright `entity`'s flash is now, from 1 (just squished) down to 0 (not flashing).
    pub fn flash(&self, entity: Entity) -> f32 {
        (self.flashing.iter())
            .find(|&&(e, _)| e == entity)
            .map_or(0.0, |&(_, left)| left / FLASH_SECONDS)
    }
}

/// The panel's line for a squished body: the body, then what pressed each side.
pub(super) fn describe(squished: &Squished) -> String {
    let mut text = format!("{}", squished.entity);
    for side in Side::ALL {
        if let Some(presser) = squished.pressed_by(side) {
            text.push_str(&format!(" {side:?}: {presser:?}"));
        }
    }
    text
}

/// Reads this frame's [`Squished`] messages into the [`SquishLog`].
pub(super) fn note_squishes(
    time: Res<Time<Real>>,
    mut squished: MessageReader<Squished>,
    mut log: ResMut<SquishLog>,
) {
    log.age(time.delta_secs());
    for s in squished.read() {
        log.note(*s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Presser;

    fn squished(index: u32) -> Squished {
        Squished {
            entity: Entity::from_raw_u32(index).unwrap(),
            vertically: false,
            horizontally: true,
            center: Vec2::ZERO,
            pressers: [Some(Presser::Tile), Some(Presser::Tile), None, None],
        }
    }

    #[test]
    fn every_episode_counts_and_a_body_squished_again_flashes_again() {
        let mut log = SquishLog::default();
        log.note(squished(1));
        log.age(0.5);
        log.note(squished(2));
        log.note(squished(1));
        assert_eq!(log.episodes, 3);
        assert_eq!(log.last, Some(squished(1)));
        assert_eq!(log.flashing.len(), 2);
        assert_eq!(log.flash(squished(1).entity), 1.0);
        log.age(0.75);
        assert_eq!(log.flash(squished(1).entity), 0.25);
        log.age(0.5);
        assert!(log.flashing.is_empty());
        assert_eq!(log.flash(squished(2).entity), 0.0);
    }

    #[test]
    fn the_panel_names_what_pressed_each_side() {
        assert_eq!(
            describe(&squished(3)),
            format!("{} Left: Tile Right: Tile", squished(3).entity)
        );
    }
}
