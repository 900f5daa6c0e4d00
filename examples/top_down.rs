//! Top-down movement (article 004): no gravity; the character slides along walls instead of
//! sticking to them, and wanderers bump into walls, pillars and each other.
//!
//! ```sh
//! cargo run --example top_down --features debug
//! ```
//!
//! WASD or arrows move the character in eight directions.

#[allow(
    dead_code,
    reason = "the window-test helpers belong to the scripted examples"
)]
#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_platformer_physics::debug::DebugPlugin;
use bevy_platformer_physics::prelude::*;
use common::{ScreenshotAfter, SpritesPlugin, body, camera_over};

const ROOM: &str = "\
##############################################
#............................................#
#....###.........#...........#######.........#
#....###.........#.................#.........#
#................#.....W...........#....W....#
#.......W........#.................#.........#
#................######....................###
#............................................#
#....#.....#.........................W.......#
#....#.....#.....W.......#####...............#
#....#######.............#...#...............#
#........................#...#.......####....#
#...........P............#####.......#.......#
#....................................#...W...#
#......######........W...............#.......#
#............................................#
##############################################";

const SPEED: f32 = 140.0;

#[derive(Component)]
struct Player;

/// Wanders in a straight line, picking a new direction when it stops against something.
#[derive(Component)]
struct Wanderer(u32);

fn main() -> AppExit {
    App::new()
        .add_plugins(common::window_plugins("top-down"))
        .add_plugins((
            PhysicsPlugin::default(),
            DebugPlugin::default(),
            SpritesPlugin,
        ))
        .add_plugins(ScreenshotAfter(240))
        .insert_resource(PhysicsConfig {
            gravity: Vec2::ZERO,
            ground_friction: 0.0,
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(
            FixedUpdate,
            (steer, wander).before(PhysicsSystems::Integrate),
        )
        .run()
}

fn setup(mut commands: Commands) {
    let mut spawns = Vec::new();
    let map = TileMap::from_ascii_with(ROOM, 24.0, |ch, at| {
        "PW".contains(ch).then(|| {
            spawns.push((ch, at));
            TileKind::Empty
        })
    })
    .expect("the room parses");
    commands.spawn(camera_over(&map, 300.0));
    for (i, (ch, at)) in spawns.into_iter().enumerate() {
        let center = at.as_vec2() * 24.0 + 12.0;
        if ch == 'P' {
            commands.spawn((
                Player,
                body(center, Vec2::splat(8.0), Color::srgb(0.35, 0.6, 1.0)),
            ));
        } else {
            commands.spawn((
                Wanderer(i as u32 * 7 + 3),
                body(center, Vec2::splat(7.0), Color::srgb(0.9, 0.5, 0.3)),
            ));
        }
    }
    commands.insert_resource(map);
}

fn steer(keys: Res<ButtonInput<KeyCode>>, mut player: Query<&mut Velocity, With<Player>>) {
    let held = |a: KeyCode, b: KeyCode| (keys.pressed(a) || keys.pressed(b)) as i32 as f32;
    let dir = Vec2::new(
        held(KeyCode::KeyD, KeyCode::ArrowRight) - held(KeyCode::KeyA, KeyCode::ArrowLeft),
        held(KeyCode::KeyW, KeyCode::ArrowUp) - held(KeyCode::KeyS, KeyCode::ArrowDown),
    );
    for mut v in &mut player {
        v.0 = dir.normalize_or_zero() * SPEED;
    }
}

fn wander(mut wanderers: Query<(&mut Velocity, &mut Wanderer)>) {
    for (mut v, mut w) in &mut wanderers {
        if v.length_squared() < 100.0 {
            // A small deterministic generator: a new heading each time it is stopped.
            w.0 = w.0.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let angle = (w.0 >> 8) as f32 / (1u32 << 24) as f32 * std::f32::consts::TAU;
            v.0 = Vec2::from_angle(angle) * 90.0;
        }
    }
}
