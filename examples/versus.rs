//! Two players on one keyboard, stepped through GGRS (bevy_ggrs) with rollback: a GGRS
//! `SyncTestSession` goes back two frames at every frame, restores the physics, steps those
//! frames again and compares their checksums with the first run's, while you play. The level
//! is `assets/levels/versus.txt` (crates, a moving platform, a one-way lift, a ladder, and the
//! goal: the circle at the top, where each player's score counts the steps spent inside).
//!
//! ```sh
//! cargo run --example versus --features debug
//! ```
//!
//! | input | player 1 (red) | player 2 (blue) |
//! | --- | --- | --- |
//! | walk | A / D | left / right |
//! | jump; climb up a ladder | W | up |
//! | climb down; drop through a one-way platform | S | down |
//!
//! A checksum mismatch (the physics not re-simulating to the same bits) is shown on screen
//! and logged as an error. The game's rules are in `versus/game.rs`, which the headless tests
//! run in a sync test for 600 frames.

#[allow(
    dead_code,
    reason = "the window-test helpers belong to the scripted examples"
)]
#[path = "common/mod.rs"]
mod common;
#[path = "versus/game.rs"]
mod game;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ggrs::prelude::*;
use bevy_ggrs::{LocalInputs, RollbackFrameCount};
use bevy_platformer_physics::debug::draw_shape;
use bevy_platformer_physics::levels::{LevelCrate, PathPlatform};
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::sensors::{Sensor, SensorContents};
use common::{BodySprite, ScreenshotAfter, SpritesPlugin};
use game::drive::Controls;
use game::{Goal, Player, Score, VersusConfig, VersusPlugin, input_bits};

/// Frames the sync test goes back at every frame.
const CHECK_DISTANCE: usize = 2;

const COLORS: [Color; 2] = [Color::srgb(0.9, 0.3, 0.3), Color::srgb(0.3, 0.5, 0.95)];
const CRATE: Color = Color::srgb(0.75, 0.55, 0.3);
const PLATFORM: Color = Color::srgb(1.0, 0.75, 0.45);

/// The frames whose checksums differed, if any.
#[derive(Resource, Default)]
struct Mismatches(Vec<i32>);

#[derive(Component)]
struct Scoreboard;

fn main() -> AppExit {
    let sync_test = SessionBuilder::<VersusConfig>::new()
        .with_num_players(2)
        .and_then(|b| {
            b.with_check_distance(CHECK_DISTANCE)
                .add_player(PlayerType::Local, 0)
        })
        .and_then(|b| b.add_player(PlayerType::Local, 1))
        .and_then(|b| b.start_synctest_session())
        .expect("a two-player GGRS sync test");
    App::new()
        .add_plugins(common::window_plugins("versus (GGRS)"))
        .add_plugins((VersusPlugin, SpritesPlugin, ScreenshotAfter(240)))
        .insert_resource(Session::SyncTest(sync_test))
        .init_resource::<Mismatches>()
        .add_systems(ReadInputs, read_keyboard)
        .add_systems(PostStartup, setup)
        .add_systems(Update, (dress_bodies, show_scores, draw_goal))
        .add_observer(
            |mismatch: On<SyncTestMismatch>, mut mismatches: ResMut<Mismatches>| {
                error!(
                    "checksum mismatch at frames {:?}",
                    mismatch.mismatched_frames
                );
                mismatches.0.extend(&mismatch.mismatched_frames);
            },
        )
        .run()
}

fn setup(mut commands: Commands, map: Res<TileMap>) {
    // The whole level, as large as the window allows.
    let room = common::WINDOW - Vec2::splat(32.0);
    let scale = (map.bounds().size() / room).max_element();
    let center = map.bounds().center();
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_translation(center.extend(0.0)),
    ));
    commands.spawn((
        Scoreboard,
        Text::default(),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(12.0),
            left: Val::Px(12.0),
            ..default()
        },
    ));
}

/// Both players' controls, from one keyboard.
fn read_keyboard(mut commands: Commands, keys: Res<ButtonInput<KeyCode>>) {
    let read = |[left, right, up, down]: [KeyCode; 4]| {
        input_bits(Controls {
            x: keys.pressed(right) as i32 as f32 - keys.pressed(left) as i32 as f32,
            up: keys.pressed(up),
            down: keys.pressed(down),
            jump: keys.pressed(up),
        })
    };
    let wasd = [KeyCode::KeyA, KeyCode::KeyD, KeyCode::KeyW, KeyCode::KeyS];
    let arrows = [
        KeyCode::ArrowLeft,
        KeyCode::ArrowRight,
        KeyCode::ArrowUp,
        KeyCode::ArrowDown,
    ];
    let inputs = HashMap::from_iter([(0, read(wasd)), (1, read(arrows))]);
    commands.insert_resource(LocalInputs::<VersusConfig>(inputs));
}

/// A body, and what it is.
type BodyKind = (
    Entity,
    &'static Aabb,
    Option<&'static Player>,
    Has<LevelCrate>,
    Has<PathPlatform>,
);

/// A sprite for each body the level spawned (sprites are not rolled back: a body GGRS brings
/// back keeps its own).
fn dress_bodies(mut commands: Commands, bodies: Query<BodyKind, Without<Sprite>>) {
    for (entity, aabb, player, is_crate, platform) in &bodies {
        let color = match (player, is_crate, platform) {
            (Some(player), ..) => COLORS[player.0 % 2],
            (_, true, _) => CRATE,
            (_, _, true) => PLATFORM,
            _ => Color::WHITE,
        };
        let size = aabb.half_extents * 2.0;
        commands
            .entity(entity)
            .insert((BodySprite(color), Sprite::from_color(color, size)));
    }
}

/// The goal: brighter while a player is inside.
fn draw_goal(mut gizmos: Gizmos, goals: Query<(&Sensor, &Transform, &SensorContents), With<Goal>>) {
    for (sensor, at, contents) in &goals {
        let color = match contents.bodies().is_empty() {
            true => Color::srgb(0.9, 0.8, 0.2).with_alpha(0.5),
            false => Color::srgb(1.0, 0.95, 0.4),
        };
        draw_shape(&mut gizmos, &sensor.world_shape(at), color);
    }
}

fn show_scores(
    players: Query<(&Player, &Score)>,
    frame: Res<RollbackFrameCount>,
    mismatches: Res<Mismatches>,
    mut board: Single<&mut Text, With<Scoreboard>>,
) {
    let mut scores: Vec<_> = players.iter().map(|(p, s)| (p.0, s.0)).collect();
    scores.sort();
    let scores: Vec<String> = (scores.iter())
        .map(|(p, s)| format!("player {}: {s}", p + 1))
        .collect();
    let checked = match mismatches.0.first() {
        None => format!("re-simulated {CHECK_DISTANCE} frames back at every frame, no mismatch"),
        Some(frame) => format!("CHECKSUM MISMATCH at frame {frame}"),
    };
    let text = format!("{}   frame {}   {checked}", scores.join("   "), frame.0);
    if board.0 != text {
        board.0 = text;
    }
}
