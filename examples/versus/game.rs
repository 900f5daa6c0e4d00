//! The versus game's rules, without a window: two characters in `assets/levels/versus.txt`
//! (crates, a moving platform, a one-way lift, one-way tiles, a ladder and a sensor), stepped
//! by GGRS with rollback. The `versus` example draws it and reads the keyboard; the headless
//! tests (`tests/ggrs.rs`) run it in a `SyncTestSession` with scripted inputs.

use bevy::prelude::*;
use bevy_ggrs::prelude::*;
use bevy_platformer_physics::ggrs::GgrsPhysicsPlugin;
use bevy_platformer_physics::levels::{ObjectKind, PathPlatform, ascii, move_platforms};
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::sensors::SensorContents;

#[path = "../common/drive.rs"]
pub mod drive;

use drive::{Controls, drive};

/// GGRS's configuration: one byte of input per player (the bits below).
pub type VersusConfig = GgrsConfig<u8>;

pub const LEFT: u8 = 1;
pub const RIGHT: u8 = 2;
pub const UP: u8 = 4;
pub const DOWN: u8 = 8;

/// GGRS frames per second (and physics steps).
pub const FPS: usize = 60;

/// Frames a player's input waits before it counts, over a network: fewer rollbacks, and no
/// rollback to the first frame, which bevy_ggrs cannot make when the peer that started first is
/// a full prediction window ahead (it keeps one snapshot fewer than that takes).
pub const INPUT_DELAY: usize = 2;

/// The level, as text.
pub const LEVEL: &str = include_str!("../../assets/levels/versus.txt");

/// A character; the number is its GGRS player handle.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player(pub usize);

/// How many steps each player has spent inside the level's sensor (the goal): game state the
/// sensor's contents decide, rolled back with the rest.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Score(pub u32);

/// The level's sensor.
#[derive(Component, Clone, Copy, Debug)]
pub struct Goal;

/// The game, its physics in GGRS's schedule. Add GGRS's `ReadInputs` system and its session.
pub struct VersusPlugin;

impl Plugin for VersusPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            GgrsPlugin::<VersusConfig>::default(),
            PhysicsPlugin::new(GgrsSchedule),
            GgrsPhysicsPlugin,
        ))
        .insert_resource(RollbackFrameRate(FPS))
        // What the game keeps besides the physics' state.
        .rollback_component_with_clone::<PathPlatform>()
        .rollback_component_with_copy::<Score>()
        .checksum_component_with_hash::<Score>()
        .add_systems(Startup, spawn_level)
        .add_systems(
            GgrsSchedule,
            ((drive_players, move_platforms).before(PhysicsSystems::Integrate)).chain(),
        )
        .add_systems(GgrsSchedule, keep_score.after(PhysicsSystems::Sense));
    }
}

/// The bits for a player's controls.
pub fn input_bits(controls: Controls) -> u8 {
    let mut bits = 0;
    if controls.x < 0.0 {
        bits |= LEFT;
    }
    if controls.x > 0.0 {
        bits |= RIGHT;
    }
    if controls.up || controls.jump {
        bits |= UP;
    }
    if controls.down {
        bits |= DOWN;
    }
    bits
}

/// The controls a player's bits stand for (holding up jumps).
pub fn controls(bits: u8) -> Controls {
    let held = |bit: u8| bits & bit != 0;
    Controls {
        x: held(RIGHT) as i32 as f32 - held(LEFT) as i32 as f32,
        up: held(UP),
        down: held(DOWN),
        jump: held(UP),
    }
}

/// The level's map and objects, and a character at each spawn point (player 0 at the first),
/// every one rolled back.
fn spawn_level(mut commands: Commands) {
    let level = ascii::parse(LEVEL, "versus.txt".as_ref()).expect("the versus level parses");
    commands.insert_resource(level.map.clone());
    let mut players = 0;
    for object in &level.objects {
        let mut entity = object.spawn(&mut commands);
        entity.insert(Rollback);
        match object.kind {
            ObjectKind::Spawn => {
                let half = Vec2::new(6.0, 11.0);
                commands.spawn((
                    Player(players),
                    Score::default(),
                    Name::new(format!("player {players}")),
                    Aabb::new(object.center + Vec2::Y * (half.y - 8.0), half),
                    Velocity::default(),
                    Rollback,
                ));
                players += 1;
            }
            ObjectKind::Sensor(_) => {
                entity.insert(Goal);
            }
            _ => {}
        }
    }
}

fn drive_players(
    inputs: Res<PlayerInputs<VersusConfig>>,
    mut players: Query<(
        &Player,
        &mut Velocity,
        &mut BodySwitches,
        &PushFlags,
        &BodyState,
    )>,
    one_way_bodies: Query<(), With<OneWayPlatform>>,
) {
    for (player, mut v, mut switches, flags, state) in &mut players {
        let (bits, _) = inputs[player.0];
        let one_way = |body| one_way_bodies.contains(body);
        drive(
            controls(bits),
            (&mut v, &mut switches),
            (flags, state),
            one_way,
        );
    }
}

fn keep_score(goals: Query<&SensorContents, With<Goal>>, mut players: Query<(Entity, &mut Score)>) {
    for contents in &goals {
        for (player, mut score) in &mut players {
            if contents.contains(player) {
                score.0 += 1;
            }
        }
    }
}
