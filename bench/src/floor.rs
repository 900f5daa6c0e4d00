//! The floor: one pass over the same N entities, `position += velocity * dt`, in the same ECS
//! and the same fixed schedule: the least any engine could do per step.

use bevy::prelude::*;

use crate::harness::base_app;
use crate::scene::{DT, Scene};

#[derive(Component)]
struct Position(Vec2, Vec2);

#[derive(Component)]
struct Vel(Vec2);

pub fn build(scene: &Scene) -> App {
    let mut app = base_app();
    app.add_systems(FixedUpdate, integrate);
    app.world_mut().spawn_batch(
        scene
            .bodies
            .iter()
            .map(|b| (Position(b.center, b.half), Vel(Vec2::new(b.vx, 0.0))))
            .collect::<Vec<_>>(),
    );
    app
}

fn integrate(mut q: Query<(&mut Position, &Vel)>) {
    for (mut p, v) in &mut q {
        p.0 += v.0 * DT;
    }
}

/// The floor moves bodies without collision: its outcome is not meaningful, only its time.
pub fn boxes(app: &mut App) -> Vec<(Vec2, Vec2)> {
    let world = app.world_mut();
    world
        .query::<&Position>()
        .iter(world)
        .map(|p| (p.0, p.1))
        .collect()
}
