//! The README's quick start: a character on a small tile map, drawn with plain sprites.
//!
//! ```sh
//! cargo run --example quick_start --features debug
//! ```
//!
//! A and D walk, W jumps.

use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, PhysicsPlugin::default()))
        // '#' solid, '-' one-way platform, 'H' ladder, '/' a slope, '.' empty; line 1 is the
        // top row.
        .insert_resource(
            TileMap::from_ascii(
                "#..........#\n\
                 #...----...#\n\
                 #.......H./#\n\
                 ############",
                16.0,
            )
            .unwrap(),
        )
        .add_systems(Startup, (spawn_camera_and_player, draw_tiles))
        .add_systems(FixedUpdate, walk.before(PhysicsSystems::Integrate))
        .run();
}

#[derive(Component)]
struct Player;

fn spawn_camera_and_player(mut commands: Commands) {
    // The camera looks at the middle of the map, zoomed in three times.
    commands.spawn((
        Camera2d,
        Transform::from_xyz(96.0, 32.0, 0.0).with_scale(Vec3::splat(1.0 / 3.0)),
    ));
    // The body's `Transform` follows its `Aabb`, so its sprite moves with it.
    let half = Vec2::new(6.0, 10.0);
    commands.spawn((
        Player,
        Aabb::new(Vec2::new(40.0, 40.0), half),
        Sprite::from_color(Color::srgb(0.9, 0.5, 0.2), 2.0 * half),
    ));
}

/// A square sprite for every tile that is not empty (slopes drawn as squares, for brevity).
fn draw_tiles(mut commands: Commands, map: Res<TileMap>) {
    for y in 0..map.height() as i32 {
        for x in 0..map.width() as i32 {
            let color = match map.get(x, y) {
                TileKind::Empty => continue,
                TileKind::OneWay => Color::srgb(0.5, 0.8, 0.5),
                TileKind::Ladder => Color::srgb(0.7, 0.6, 0.3),
                _ => Color::srgb(0.4, 0.4, 0.5),
            };
            let (min, max) = map.tile_rect(x, y);
            let center = (min + max) / 2.0;
            commands.spawn((
                Sprite::from_color(color, max - min),
                Transform::from_xyz(center.x, center.y, -1.0),
            ));
        }
    }
}

fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    mut player: Single<(&mut Velocity, &PushFlags), With<Player>>,
) {
    let (velocity, flags) = &mut *player;
    let input = keys.pressed(KeyCode::KeyD) as i32 - keys.pressed(KeyCode::KeyA) as i32;
    velocity.x = 90.0 * input as f32;
    if flags.on_ground() && keys.just_pressed(KeyCode::KeyW) {
        velocity.y += 380.0;
    }
}
