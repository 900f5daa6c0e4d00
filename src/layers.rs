//! Collision layers: which bodies see each other. Up to 32 layers, named by your own constants.

use bevy::prelude::*;

/// A set of up to 32 collision layers, one bit each.
///
/// Name your layers with constants:
///
/// ```
/// use bevy_platformer_physics::layers::LayerMask;
///
/// const PLAYER: LayerMask = LayerMask::layer(0);
/// const ENEMY: LayerMask = LayerMask::layer(1);
/// const PICKUP: LayerMask = LayerMask::layer(2);
/// let hits = PLAYER | ENEMY;
/// assert!(hits.intersects(ENEMY) && !hits.intersects(PICKUP));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Default, Debug, PartialEq, Clone)]
pub struct LayerMask(pub u32);

impl LayerMask {
    /// No layer.
    pub const NONE: Self = Self(0);
    /// Every layer.
    pub const ALL: Self = Self(u32::MAX);

    /// Layer number `n` (0 to 31).
    ///
    /// # Panics
    ///
    /// At compile time in a `const`, or at run time otherwise, when `n` is 32 or more.
    pub const fn layer(n: u8) -> Self {
        assert!(n < 32, "there are 32 collision layers, numbered 0 to 31");
        Self(1 << n)
    }

    /// Whether the two sets share a layer.
    #[inline]
    pub const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }
}

impl core::ops::BitOr for LayerMask {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl core::ops::BitAnd for LayerMask {
    type Output = Self;
    fn bitand(self, rhs: Self) -> Self {
        Self(self.0 & rhs.0)
    }
}

impl core::ops::Not for LayerMask {
    type Output = Self;
    fn not(self) -> Self {
        Self(!self.0)
    }
}

/// The layers a body is on (`memberships`) and the layers it collides with (`filters`). Two
/// bodies are paired only if each one's filters include a layer of the other's memberships, so
/// a body that ignores another is ignored by it too: neither is in the other's contacts
/// ([`Contacts`](crate::Contacts)), neither pushes the other. Bodies without this component are
/// on every layer and collide with every layer.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::layers::{CollisionLayers, LayerMask};
/// use bevy_platformer_physics::prelude::*;
///
/// const PLAYER: LayerMask = LayerMask::layer(0);
/// const GHOST: LayerMask = LayerMask::layer(1);
///
/// fn spawn(mut commands: Commands) {
///     // A ghost: walks on tiles, passes through players (and they through it).
///     commands.spawn((
///         Aabb::new(Vec2::new(80.0, 40.0), Vec2::splat(6.0)),
///         CollisionLayers::new(GHOST, !PLAYER),
///     ));
/// }
/// # App::new().add_systems(Startup, spawn);
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct CollisionLayers {
    /// The layers this body is on.
    pub memberships: LayerMask,
    /// The layers this body collides with.
    pub filters: LayerMask,
}

impl Default for CollisionLayers {
    /// On every layer, colliding with every layer.
    fn default() -> Self {
        Self::new(LayerMask::ALL, LayerMask::ALL)
    }
}

impl CollisionLayers {
    /// A body on `memberships` that collides with `filters`.
    pub const fn new(memberships: LayerMask, filters: LayerMask) -> Self {
        Self {
            memberships,
            filters,
        }
    }

    /// Whether bodies with these layers are paired: each one's filters include a layer of the
    /// other's memberships.
    #[inline]
    pub const fn interacts_with(self, other: Self) -> bool {
        self.filters.intersects(other.memberships) && other.filters.intersects(self.memberships)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: LayerMask = LayerMask::layer(0);
    const B: LayerMask = LayerMask::layer(1);

    #[test]
    fn filtering_is_mutual() {
        let a = CollisionLayers::new(A, LayerMask::ALL);
        let b_ignores_a = CollisionLayers::new(B, !A);
        assert!(!a.interacts_with(b_ignores_a));
        assert!(!b_ignores_a.interacts_with(a));
        assert!(a.interacts_with(CollisionLayers::new(B, A)));
        assert!(CollisionLayers::default().interacts_with(CollisionLayers::default()));
        assert!(!CollisionLayers::new(LayerMask::NONE, LayerMask::ALL).interacts_with(a));
    }

    #[test]
    fn masks_combine() {
        assert_eq!((A | B).0, 3);
        assert_eq!(((A | B) & B), B);
        assert_eq!(LayerMask::layer(31).0, 1 << 31);
    }
}
