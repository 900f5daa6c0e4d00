//! A game that draws its LDtk project with bevy_ecs_ldtk and takes its collision from the same
//! file with this crate: bevy_ecs_ldtk spawns the level `demo` of `assets/levels/levels.ldtk`
//! (its IntGrid cells drawn in their LDtk colours), and `LevelPlugin` loads the same level as
//! the physics' tile map and objects (`levels.ldtk#demo`). The character walks with A/D, jumps
//! with W, climbs with W/S and drops through with S; crates and platforms are plain sprites.
//!
//! ```sh
//! cargo run -p bevy_ecs_ldtk_example
//! ```
//!
//! Both plugins read `.ldtk` files: bevy_ecs_ldtk's `LdtkProject` is loaded by type, and a
//! level of ours by its label, which `LevelPlugin` keeps for its own loader (it registers it
//! after every plugin's `build`). With `EXAMPLE_SCREENSHOT=shot.png` set it runs 240 fixed
//! steps, saves a screenshot and exits (CI runs it so).

#[path = "../../examples/common/mod.rs"]
#[allow(dead_code, reason = "this example draws its level with bevy_ecs_ldtk")]
mod common;
#[path = "../../examples/common/drive.rs"]
mod drive;

use bevy::asset::AssetMetaCheck;
use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::{
    LdtkPlugin, LdtkSettings, LdtkWorldBundle, LevelSelection, LevelSpawnBehavior,
};
use bevy_platformer_physics::levels::{
    CurrentLevel, LevelApplied, LevelCrate, LevelPlugin, PathPlatform, SpawnPoint,
};
use bevy_platformer_physics::prelude::*;
use drive::{Controls, drive};

/// The project, under `assets/` at the repository's root.
const PROJECT: &str = "levels/levels.ldtk";
/// The level played.
const LEVEL: &str = "demo";
/// Screen pixels per world unit.
const ZOOM: f32 = 2.0;
/// Bodies are drawn over bevy_ecs_ldtk's layers (the physics moves them in x and y only).
const BODIES_Z: f32 = 10.0;

#[derive(Component)]
struct Player;

fn main() -> AppExit {
    let mut app = App::new();
    app.add_plugins(
        common::window_plugins("bevy_ecs_ldtk")
            .build()
            .set(AssetPlugin {
                // The repository's assets, from this package's folder.
                file_path: "../assets".into(),
                meta_check: AssetMetaCheck::Never,
                ..default()
            }),
    )
    .add_plugins((LdtkPlugin, PhysicsPlugin::default(), LevelPlugin))
    // bevy_ecs_ldtk draws the level with its bottom-left corner at the origin, where the
    // physics puts the map.
    .insert_resource(LevelSelection::Identifier(LEVEL.into()))
    .insert_resource(LdtkSettings {
        level_spawn_behavior: LevelSpawnBehavior::UseZeroTranslation,
        ..default()
    })
    .insert_resource(ClearColor(common::BACKGROUND))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .init_resource::<Controls>()
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (read_keyboard, spawn_character, draw_level_bodies, follow).chain(),
    )
    .add_systems(
        FixedUpdate,
        drive_character.before(PhysicsSystems::Integrate),
    );
    app.add_plugins(common::ScreenshotAfter(240));
    app.run()
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    // What bevy_ecs_ldtk draws, and what the physics collides with: one file.
    commands.spawn(LdtkWorldBundle {
        ldtk_handle: assets.load(PROJECT).into(),
        ..default()
    });
    commands.insert_resource(CurrentLevel(assets.load(format!("{PROJECT}#{LEVEL}"))));
    commands.spawn(common::zoomed_camera(ZOOM));
}

/// Once the physics has the level, the character appears at its spawn point.
fn spawn_character(
    mut commands: Commands,
    mut applied: MessageReader<LevelApplied>,
    spawns: Query<&Transform, With<SpawnPoint>>,
    players: Query<(), With<Player>>,
) {
    let Some(at) = common::new_spawn_point(&mut applied, &spawns) else {
        return;
    };
    if !players.is_empty() {
        return;
    }
    let half = Vec2::new(6.0, 10.0);
    info!("the character appears at {at}");
    commands.spawn((
        Player,
        Aabb::new(at, half),
        Sprite::from_color(Color::srgb(0.35, 0.6, 1.0), 2.0 * half),
        Transform::from_translation(at.extend(BODIES_Z)),
    ));
}

/// Sprites for the crates and platforms the level spawned (bevy_ecs_ldtk leaves entities it
/// has no bundle for undrawn).
#[allow(
    clippy::type_complexity,
    reason = "a system's query: the bodies the level just spawned"
)]
fn draw_level_bodies(
    mut commands: Commands,
    mut added: Query<
        (Entity, &Aabb, &mut Transform, Has<PathPlatform>),
        Or<(Added<LevelCrate>, Added<PathPlatform>)>,
    >,
) {
    for (entity, aabb, mut transform, platform) in &mut added {
        transform.translation.z = BODIES_Z;
        let color = if platform {
            Color::srgb(0.75, 0.78, 0.85)
        } else {
            Color::srgb(0.71, 0.49, 0.26)
        };
        commands
            .entity(entity)
            .insert(Sprite::from_color(color, aabb.size()));
    }
}

fn read_keyboard(keys: Res<ButtonInput<KeyCode>>, mut controls: ResMut<Controls>) {
    let x = keys.pressed(KeyCode::KeyD) as i32 - keys.pressed(KeyCode::KeyA) as i32;
    controls.x = x as f32;
    controls.up = keys.pressed(KeyCode::KeyW);
    controls.down = keys.pressed(KeyCode::KeyS);
    controls.jump = controls.jump || keys.just_pressed(KeyCode::KeyW);
}

fn drive_character(
    mut controls: ResMut<Controls>,
    mut players: Query<(&mut Velocity, &mut BodySwitches, &PushFlags, &BodyState), With<Player>>,
    one_way: Query<(), With<OneWayPlatform>>,
) {
    for (mut v, mut switches, flags, state) in &mut players {
        drive(*controls, (&mut v, &mut switches), (flags, state), |e| {
            one_way.contains(e)
        });
    }
    controls.jump = false;
}

/// The camera follows the character.
fn follow(
    player: Query<&Transform, (With<Player>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
) {
    if let Some(at) = player.iter().next() {
        camera.translation.x = at.translation.x;
        camera.translation.y = at.translation.y;
    }
}
