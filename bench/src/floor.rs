//! The floor: one pass over the same N entities, `position += velocity * dt`, in the same ECS
//! and the same fixed schedule: the least any engine could do per step.

use bevy::prelude::*;

use crate::harness::{StepCount, base_app, count_steps};
use crate::scene::{CrowdStep, DT, Scene, Walker};

#[derive(Component)]
struct Position(Vec2, Vec2);

#[derive(Component)]
struct Vel(Vec2);

pub fn build(scene: &Scene) -> App {
    let mut app = base_app();
    app.init_resource::<StepCount>()
        .add_systems(FixedUpdate, (walk, count_steps, integrate).chain());
    let world = app.world_mut();
    let bodies: Vec<Entity> = world
        .spawn_batch(
            scene
                .bodies
                .iter()
                .map(|b| (Position(b.center, b.half), Vel(Vec2::new(b.vx, 0.0))))
                .collect::<Vec<_>>(),
        )
        .collect();
    scene.drive_crowd(world, bodies.into_iter().enumerate());
    app
}

/// The crowd's driver, as in the engines (before the pass).
fn walk(count: Res<StepCount>, mut walkers: Query<(&Walker, &mut Vel)>) {
    let at = CrowdStep::new(count.0);
    for (walker, mut velocity) in &mut walkers {
        velocity.0 = walker.drive(at, velocity.0);
    }
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
