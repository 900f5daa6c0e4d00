//! The scene in bevy_platformer_physics.

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::timing::{STAGES, StageTimingPlugin, StageTimings};

use crate::harness::{StepCount, base_app, count_steps};
use crate::scene::{PLATFORM_HALF, Scene, reverses_after};

#[derive(Component)]
struct Platform;

#[derive(Component)]
struct Dynamic;

pub fn build(scene: &Scene, cell_tiles: u32) -> App {
    let mut app = base_app();
    app.add_plugins(PhysicsPlugin::default())
        .insert_resource(PhysicsConfig {
            gravity: Vec2::new(0.0, crate::scene::GRAVITY),
            partition_cell_tiles: cell_tiles,
            // Nothing reads them, and the peers write none unless asked (rapier's
            // `ActiveEvents`, avian's `CollisionEventsEnabled`). `PILE_EVENTS=1` turns them on.
            collision_events: std::env::var_os("PILE_EVENTS").is_some(),
            // On by default (it does not change the outcome); `PILE_NO_SKIP=1` processes every
            // body at every step, for the figures without it.
            skip_resting_bodies: std::env::var_os("PILE_NO_SKIP").is_none(),
            ..default()
        })
        .init_resource::<StepCount>()
        .add_systems(
            FixedUpdate,
            (count_steps, swing)
                .chain()
                .before(PhysicsSystems::Integrate),
        );
    app.insert_resource(scene.tile_map());
    let world = app.world_mut();
    world.spawn_batch(
        scene
            .bodies
            .iter()
            .map(|b| {
                (
                    Dynamic,
                    Aabb::new(b.center, b.half),
                    Velocity(Vec2::new(b.vx, 0.0)),
                )
            })
            .collect::<Vec<_>>(),
    );
    for &p in &scene.platforms {
        world.spawn((
            Platform,
            Kinematic,
            Aabb::new(p, PLATFORM_HALF),
            Velocity(Vec2::new(scene.platform_speed, 0.0)),
        ));
    }
    app
}

fn swing(count: Res<StepCount>, mut platforms: Query<&mut Velocity, With<Platform>>) {
    if reverses_after(count.0) {
        for mut v in &mut platforms {
            v.x = -v.x;
        }
    }
}

pub fn boxes(app: &mut App) -> Vec<(Vec2, Vec2)> {
    let world = app.world_mut();
    world
        .query_filtered::<&Aabb, With<Dynamic>>()
        .iter(world)
        .map(|a| (a.center, a.half_extents))
        .collect()
}

/// With `PILE_STAGES` set, the plugin's own stage clock ([`StageTimingPlugin`]) runs, and the
/// median of each stage over the measured steps is printed at the end (stderr).
pub fn time_stages(app: &mut App) {
    app.add_plugins(StageTimingPlugin::default());
}

/// Prints each stage's median over the last `steps` steps.
pub fn print_stages(app: &mut App, steps: usize) {
    let timings = app.world().resource::<StageTimings>();
    let rows: Vec<_> = (timings.history.iter().rev().take(steps))
        .map(|r| r.map(f64::from))
        .collect();
    let line = crate::report::stage_medians("stages (median ms):", &STAGES, &rows);
    eprintln!("{line}");
    let stats = app.world().resource::<PhysicsStats>();
    eprintln!(
        "last step: {} bodies, {} awake, {} pairs",
        stats.bodies, stats.awake_bodies, stats.pairs_found
    );
}
