//! `PushFlags`: which sides of a body touch a tile or another body, this step and last step.

use bevy::prelude::*;

/// A side of a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub enum Side {
    /// The min-x side.
    Left,
    /// The max-x side.
    Right,
    /// The max-y side (y up).
    Top,
    /// The min-y side: the feet.
    Bottom,
}

impl Side {
    /// All four sides, in bit order.
    pub const ALL: [Side; 4] = [Side::Left, Side::Right, Side::Top, Side::Bottom];

    /// The side facing the other way.
    ///
    /// ```
    /// use bevy_platformer_physics::Side;
    ///
    /// assert_eq!(Side::Left.opposite(), Side::Right);
    /// assert_eq!(Side::Bottom.opposite(), Side::Top);
    /// ```
    #[inline]
    pub const fn opposite(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
            Side::Top => Side::Bottom,
            Side::Bottom => Side::Top,
        }
    }

    #[inline]
    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

const TILE_NOW: u16 = 0;
const OBJECT_NOW: u16 = 4;
const TILE_LAST: u16 = 8;
const OBJECT_LAST: u16 = 12;

/// Which sides of a body push against a tile or another body (article 003's push flags), for
/// the step that just ran ("pushes") and the one before it ("pushed").
///
/// A side "pushes" when the body touches something on that side at the end of the step, with
/// zero or more overlap, whether or not it moves toward it. Kinematic bodies never get object
/// flags. Written by the physics; read it after [`PhysicsSystems::Respond`].
///
/// It is marked changed (for `Changed<PushFlags>`) only in the steps at whose end it differs
/// from the step before: a body resting in place keeps its change tick, one that lands, leaves
/// the ground or bumps into something gets a new one (and again in the next step, when "pushed"
/// catches up with "pushes").
///
/// ```
/// use bevy_platformer_physics::prelude::*;
///
/// fn can_jump(flags: &PushFlags) -> bool {
///     flags.on_ground()
/// }
/// fn just_hit_the_ceiling(flags: &PushFlags) -> bool {
///     flags.pushes(Side::Top) && !flags.pushed(Side::Top)
/// }
/// # assert!(!can_jump(&PushFlags::default()));
/// # assert!(!just_hit_the_ceiling(&PushFlags::default()));
/// ```
///
/// [`PhysicsSystems::Respond`]: crate::PhysicsSystems::Respond
#[derive(Component, Reflect, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct PushFlags {
    bits: u16,
}

impl PushFlags {
    /// Touches a tile or a body on `side` now.
    #[inline]
    pub fn pushes(&self, side: Side) -> bool {
        self.pushes_tile(side) || self.pushes_object(side)
    }

    /// Touched a tile or a body on `side` at the end of the previous step.
    #[inline]
    pub fn pushed(&self, side: Side) -> bool {
        self.pushed_tile(side) || self.pushed_object(side)
    }

    /// Touches a tile on `side` now.
    #[inline]
    pub fn pushes_tile(&self, side: Side) -> bool {
        self.get(TILE_NOW, side)
    }

    /// Touches another body on `side` now.
    #[inline]
    pub fn pushes_object(&self, side: Side) -> bool {
        self.get(OBJECT_NOW, side)
    }

    /// Touched a tile on `side` at the end of the previous step.
    #[inline]
    pub fn pushed_tile(&self, side: Side) -> bool {
        self.get(TILE_LAST, side)
    }

    /// Touched another body on `side` at the end of the previous step.
    #[inline]
    pub fn pushed_object(&self, side: Side) -> bool {
        self.get(OBJECT_LAST, side)
    }

    /// Stands on a tile or a body: [`pushes`](Self::pushes)`(Side::Bottom)`.
    #[inline]
    pub fn on_ground(&self) -> bool {
        self.pushes(Side::Bottom)
    }

    /// Was standing on something at the end of the previous step.
    #[inline]
    pub fn was_on_ground(&self) -> bool {
        self.pushed(Side::Bottom)
    }

    /// The raw bits: tile sides now (bits 0-3), object sides now (4-7), tile sides last step
    /// (8-11), object sides last step (12-15); within each group Left, Right, Top, Bottom.
    #[inline]
    pub fn bits(&self) -> u16 {
        self.bits
    }

    /// The sides on which the body cannot give way to a push: tiles touched this step and
    /// bodies touched at the end of the last step (four bits: left 1, right 2, top 4, bottom 8).
    #[inline]
    pub fn blocked_sides(&self) -> u8 {
        ((self.bits & 0xF) | (self.bits >> OBJECT_LAST) & 0xF) as u8
    }

    /// The sides touching a tile this step (four bits: left 1, right 2, top 4, bottom 8).
    #[inline]
    pub(crate) fn tile_sides(&self) -> u8 {
        (self.bits >> TILE_NOW & 0xF) as u8
    }

    /// The sides touched now are those touched at the end of the last step: starting a step
    /// leaves the flags as they were exactly when the step then touches the same sides again.
    #[inline]
    pub(crate) fn settled(&self) -> bool {
        self.bits & 0xFF == self.bits >> 8
    }

    /// Starts a step: "now" becomes "last step", and "now" is cleared.
    #[inline]
    pub(crate) fn begin_step(&mut self) {
        self.bits = (self.bits & 0x00FF) << 8;
    }

    /// Sets the tile-contact sides of this step from four bits (Left, Right, Top, Bottom).
    #[inline]
    pub(crate) fn set_tile_sides(&mut self, sides: u8) {
        self.bits = (self.bits & !0x000F) | u16::from(sides & 0xF) << TILE_NOW;
    }

    /// Marks object contacts this step on the sides of four bits (Left, Right, Top, Bottom).
    #[inline]
    pub(crate) fn add_object_sides(&mut self, sides: u8) {
        self.bits |= u16::from(sides & 0xF) << OBJECT_NOW;
    }

    #[inline]
    fn get(&self, group: u16, side: Side) -> bool {
        self.bits & (side.bit() << group) != 0
    }
}

internal! {
    /// The bit of `side` in a four-bit side set: Left 1, Right 2, Top 4, Bottom 8 (the layout of
    /// [`TileOutcome::sides`](crate::tiles::collide::TileOutcome::sides)).
    #[inline]
    pub const fn side_bit(side: Side) -> u8 {
        side.bit() as u8
    }
}

impl core::fmt::Debug for PushFlags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let list = |group: u16| {
            Side::ALL
                .into_iter()
                .filter(move |&s| self.get(group, s))
                .collect::<Vec<_>>()
        };
        f.debug_struct("PushFlags")
            .field("tile", &list(TILE_NOW))
            .field("object", &list(OBJECT_NOW))
            .field("tile_last", &list(TILE_LAST))
            .field("object_last", &list(OBJECT_LAST))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_step_moves_now_to_last() {
        let mut f = PushFlags::default();
        f.set_tile_sides(side_bit(Side::Bottom) | side_bit(Side::Left));
        f.add_object_sides(side_bit(Side::Top));
        assert!(f.on_ground() && f.pushes_tile(Side::Left) && f.pushes_object(Side::Top));
        assert!(!f.pushes_object(Side::Bottom) && !f.pushed(Side::Bottom));
        f.begin_step();
        assert!(!f.on_ground() && f.was_on_ground());
        assert!(f.pushed_tile(Side::Left) && f.pushed_object(Side::Top));
        assert!(!f.pushed_object(Side::Left) && !f.pushes(Side::Top));
        f.begin_step();
        assert_eq!(f.bits(), 0);
    }

    #[test]
    fn set_tile_sides_replaces_only_tile_bits() {
        let mut f = PushFlags::default();
        f.set_tile_sides(side_bit(Side::Top));
        f.begin_step();
        f.set_tile_sides(side_bit(Side::Bottom));
        assert!(f.pushes_tile(Side::Bottom) && !f.pushes_tile(Side::Top));
        assert!(f.pushed_tile(Side::Top), "last step's bits are kept");
    }

    #[test]
    fn debug_lists_sides() {
        let mut f = PushFlags::default();
        f.set_tile_sides(side_bit(Side::Bottom));
        assert!(format!("{f:?}").contains("tile: [Bottom]"));
    }
}
