//! `Landed` fires once per landing, not on every step a body rests.

use bevy::prelude::*;

use crate::common::*;

#[test]
fn landed_fires_once_per_landing() {
    let mut app = app(ascii("....\n....\n....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 50.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 120);
    let landed = drain_landed(&mut app);
    assert_eq!(landed.len(), 1, "one landing, then resting: {landed:?}");
    assert_eq!(landed[0].entity, body);
    assert!(
        landed[0].velocity.y < -100.0,
        "impact velocity recorded: {:?}",
        landed[0]
    );

    // Jump; land again: exactly one more.
    set_vel(&mut app, body, Vec2::new(0.0, 300.0));
    step(&mut app, 120);
    assert_eq!(drain_landed(&mut app).len(), 1);
    step(&mut app, 60);
    assert!(drain_landed(&mut app).is_empty(), "resting writes nothing");
}

#[test]
fn a_body_spawned_on_the_ground_lands_once() {
    let mut app = app(ascii("....\n####"));
    let body = spawn(
        &mut app,
        Vec2::new(24.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 30);
    let landed = drain_landed(&mut app);
    assert_eq!(landed.len(), 1);
    assert_eq!(landed[0].entity, body);
}

#[test]
fn walking_off_a_ledge_and_landing_below_fires_again() {
    let mut app = app(ascii("......\n##....\n######"));
    let body = spawn_frictionless(&mut app, Vec2::new(8.0, 38.0), Vec2::splat(6.0), Vec2::ZERO);
    step(&mut app, 10);
    assert_eq!(drain_landed(&mut app).len(), 1);
    set_vel(&mut app, body, Vec2::new(120.0, 0.0));
    step(&mut app, 40);
    assert_eq!(drain_landed(&mut app).len(), 1, "landed on the lower floor");
    assert!(pos(&app, body).y < 30.0);
}

/// Two kinds of body, as a game has: they lie in two tables, so the order systems visit the
/// bodies in is not the entity order.
#[derive(Component)]
struct Crate;
#[derive(Component)]
struct Barrel;

#[test]
fn landings_of_one_step_come_tiles_first_then_bodies_each_in_entity_order() {
    let mut map = empty_map(40, 10);
    map.fill(IVec2::new(0, 0), IVec2::new(39, 0), TileKind::Solid);
    let mut app = app(map);
    let half = Vec2::splat(6.0);
    let fall = Vec2::new(0.0, -480.0);
    let (mut on_tiles, mut on_bodies) = (Vec::new(), Vec::new());
    for i in 0..6 {
        let x = 40.0 + 40.0 * i as f32;
        // Resting on the floor (it lands at its first step), one 5 units above it falling 8
        // units onto it, and one 5 units above the floor beside them.
        let below = spawn(&mut app, Vec2::new(x, 22.0), half, Vec2::ZERO);
        let above = spawn(&mut app, Vec2::new(x, 39.0), half, fall);
        let beside = spawn(&mut app, Vec2::new(x + 20.0, 27.0), half, fall);
        for (k, body) in [below, above, beside].into_iter().enumerate() {
            let mut body = app.world_mut().entity_mut(body);
            if (i + k) % 2 == 0 {
                body.insert(Crate);
            } else {
                body.insert(Barrel);
            }
        }
        on_tiles.extend([below, beside]);
        on_bodies.push(above);
    }
    step(&mut app, 1);
    let landed: Vec<Entity> = drain_landed(&mut app).iter().map(|l| l.entity).collect();
    on_tiles.sort();
    on_bodies.sort();
    assert_eq!(landed, [on_tiles, on_bodies].concat());
}
