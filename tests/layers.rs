//! Collision layers filter pairs both ways: if A ignores B, neither gets the other in its
//! contacts, and neither pushes the other.

use bevy::prelude::*;

use crate::common::*;

const PLAYER: LayerMask = LayerMask::layer(0);
const GHOST: LayerMask = LayerMask::layer(1);

#[test]
fn layers_filter_pairs_both_ways() {
    let mut app = app_without_gravity(empty_map(32, 32));
    let player = spawn(
        &mut app,
        Vec2::new(100.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    app.world_mut()
        .entity_mut(player)
        .insert(CollisionLayers::new(PLAYER, LayerMask::ALL));
    // The ghost ignores players; the player would collide with it, but filtering is mutual.
    let ghost = spawn(
        &mut app,
        Vec2::new(104.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    app.world_mut()
        .entity_mut(ghost)
        .insert(CollisionLayers::new(GHOST, !PLAYER));
    // A plain body (every layer) overlapping both.
    let plain = spawn(
        &mut app,
        Vec2::new(102.0, 108.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    let others = |e: Entity| -> Vec<Entity> { contacts(&app, e).iter().map(|c| c.other).collect() };
    assert_eq!(
        others(player),
        vec![plain],
        "the player does not see the ghost"
    );
    assert_eq!(
        others(ghost),
        vec![plain],
        "the ghost does not see the player"
    );
    assert_eq!(others(plain).len(), 2, "the plain body sees both");
    // Player and ghost overlap by 8 on x and are still: they stay put relative to each other
    // (only the plain body pushes them), never resolving their own overlap.
    let dx = pos(&app, ghost).x - pos(&app, player).x;
    assert!(dx < 12.0, "player and ghost still overlap: {dx}");
}

#[test]
fn a_body_on_no_layer_collides_with_nothing() {
    let mut app = app_without_gravity(empty_map(32, 32));
    let a = spawn(
        &mut app,
        Vec2::new(100.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    app.world_mut()
        .entity_mut(a)
        .insert(CollisionLayers::new(LayerMask::NONE, LayerMask::ALL));
    let b = spawn(
        &mut app,
        Vec2::new(104.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 3);
    assert!(contacts(&app, a).is_empty() && contacts(&app, b).is_empty());
    assert_eq!(pos(&app, a), Vec2::new(100.0, 100.0));
    assert_eq!(pos(&app, b), Vec2::new(104.0, 100.0));
}
