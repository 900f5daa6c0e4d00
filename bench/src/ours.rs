//! The scene in bevy_platformer_physics.

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;

use crate::harness::{StepCount, base_app, count_steps};
use crate::scene::{PLATFORM_HALF, PLATFORM_SPEED, Scene, reverses_after};

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
            Velocity(Vec2::new(PLATFORM_SPEED, 0.0)),
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

/// With `PILE_STAGES` set, the clock is read between the stages of our step and the median of
/// each stage is printed at the end (stderr).
#[derive(Resource, Default)]
pub struct StageClock {
    marks: [Option<std::time::Instant>; 7],
    pub samples: Vec<[f64; 6]>,
}

fn mark<const I: usize>(mut clock: ResMut<StageClock>) {
    clock.marks[I] = Some(std::time::Instant::now());
    if I == 6 {
        let m = clock.marks.map(|m| m.expect("every mark"));
        let row = std::array::from_fn(|i| (m[i + 1] - m[i]).as_secs_f64() * 1000.0);
        clock.samples.push(row);
    }
}

pub fn time_stages(app: &mut App) {
    use PhysicsSystems::*;
    app.init_resource::<StageClock>().add_systems(
        FixedUpdate,
        (
            mark::<0>.before(Integrate).after(swing),
            mark::<1>.after(Integrate).before(TileCollide),
            mark::<2>.after(TileCollide).before(UpdatePartition),
            mark::<3>.after(UpdatePartition).before(DetectPairs),
            mark::<4>.after(DetectPairs).before(Respond),
            mark::<5>.after(Respond).before(Sense),
            mark::<6>.after(Sense),
        ),
    );
}

pub fn print_stages(app: &mut App, skip: usize) {
    let clock = app.world().resource::<StageClock>();
    let names = [
        "integrate",
        "tiles",
        "partition",
        "pairs",
        "respond",
        "sense",
    ];
    let rows = &clock.samples[skip.min(clock.samples.len())..];
    let mut line = String::from("stages (median ms):");
    for (i, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = rows.iter().map(|r| r[i]).collect();
        v.sort_by(f64::total_cmp);
        line += &format!(" {name} {:.3}", v.get(v.len() / 2).copied().unwrap_or(0.0));
    }
    eprintln!("{line}");
}
