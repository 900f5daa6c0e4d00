//! Golden replays: recorded inputs played again, with the checksum of every 60th frame
//! compared against the one stored beside them (`tests/golden/*.replay`). A change of a single
//! bit of any body's state, from this crate, a dependency, the optimiser (CI runs them in a
//! release build too) or the platform, fails them; a release whose outcome changes on purpose
//! records them again (`GOLDEN_RECORD=1 cargo test --test main golden`) and says so in the
//! changelog.
//!
//! The scenes: the versus game (two players, crates, platforms, a sensor; GGRS's checksum, in a
//! sync test that rolls back as it goes), the demo level (a character, its crates and moving
//! platforms, ladders, slopes and one-way platforms) and a crowd (three hundred boxes of many
//! sizes poured onto slopes and pushed around by a character).

use std::fmt::Write as _;
use std::path::PathBuf;

use bevy::prelude::*;
use bevy_ggrs::prelude::*;
use bevy_ggrs::{Checksum, LocalInputs, RollbackFrameCount, SaveWorld, SaveWorldSystems};
use bevy_platformer_physics::checksum::{PhysicsChecksum, PhysicsChecksumPlugin};
use bevy_platformer_physics::levels::{ObjectKind, ascii, move_platforms};

use crate::common::*;
use crate::game::drive::drive;
use crate::game::{VersusConfig, controls};
use crate::ggrs::{sync_test, versus_app};

/// A recorded replay: its frames, the input bits each player holds from a frame on, and the
/// checksums after every 60th frame.
struct Replay {
    frames: u32,
    /// (from frame, one byte per player), in frame order.
    inputs: Vec<(u32, Vec<u8>)>,
    checksums: Vec<(u32, u128)>,
}

const EVERY: u32 = 60;

impl Replay {
    fn path(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.replay"))
    }

    fn read(name: &str) -> Self {
        let text = std::fs::read_to_string(Self::path(name))
            .unwrap_or_else(|e| panic!("{}: {e}", Self::path(name).display()));
        let mut replay = Self {
            frames: 0,
            inputs: Vec::new(),
            checksums: Vec::new(),
        };
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |i: usize| words[i].parse::<u32>().expect(line);
            match words[0] {
                "frames" => replay.frames = number(1),
                "input" => {
                    let bits = words[2..].iter().map(|b| b.parse().expect(line)).collect();
                    replay.inputs.push((number(1), bits));
                }
                "checksum" => {
                    let hex = u128::from_str_radix(words[2], 16).expect(line);
                    replay.checksums.push((number(1), hex));
                }
                _ => panic!("unknown line in {name}.replay: {line}"),
            }
        }
        replay
    }

    /// The input bits held at `frame`.
    fn at(&self, frame: u32) -> &[u8] {
        let i = self.inputs.partition_point(|(from, _)| *from <= frame);
        &self.inputs[i.max(1) - 1].1
    }

    /// Compares `checksums` with the recorded ones, or records them with `GOLDEN_RECORD`.
    fn check(&self, name: &str, checksums: Vec<(u32, u128)>) {
        if std::env::var_os("GOLDEN_RECORD").is_some() {
            let mut text = String::new();
            let old = std::fs::read_to_string(Self::path(name)).unwrap();
            for line in old.lines().filter(|l| !l.starts_with("checksum")) {
                writeln!(text, "{line}").unwrap();
            }
            for (frame, sum) in &checksums {
                writeln!(text, "checksum {frame} {sum:x}").unwrap();
            }
            std::fs::write(Self::path(name), text).unwrap();
            println!("recorded {} checksums of {name}", checksums.len());
            return;
        }
        assert_eq!(
            checksums.len(),
            self.checksums.len(),
            "{name}: checksums taken"
        );
        for (got, want) in checksums.iter().zip(&self.checksums) {
            assert_eq!(got, want, "{name}: the outcome changed at frame {}", want.0);
        }
    }
}

/// The inputs of the replay being played, for the game's systems.
#[derive(Resource)]
struct Playing(Replay);

#[test]
fn the_versus_game_replays_to_the_recorded_checksums() {
    let replay = Replay::read("versus");
    #[derive(Resource, Default)]
    struct Sums(Vec<(u32, u128)>);
    let mut app = versus_app(sync_test(2));
    app.init_resource::<Sums>()
        .add_systems(
            ReadInputs,
            |mut commands: Commands, frame: Res<RollbackFrameCount>, playing: Res<Playing>| {
                let bits = playing.0.at(frame.0 as u32);
                let inputs = (0..2).map(|player| (player, bits[player])).collect();
                commands.insert_resource(LocalInputs::<VersusConfig>(inputs));
            },
        )
        .add_systems(
            SaveWorld,
            (|frame: Res<RollbackFrameCount>, sum: Res<Checksum>, mut sums: ResMut<Sums>| {
                let frame = frame.0 as u32;
                // A frame saved again after a rollback has the same checksum (the sync test
                // checks that): keep the first.
                if frame > 0
                    && frame.is_multiple_of(EVERY)
                    && sums.0.last().is_none_or(|l| l.0 < frame)
                {
                    sums.0.push((frame, sum.0));
                }
            })
            .after(SaveWorldSystems::Checksum),
        );
    let frames = replay.frames;
    app.insert_resource(Playing(replay));
    // Frame `frames` is saved (and its checksum taken) as the next one begins.
    while app.world().resource::<RollbackFrameCount>().0 <= frames as i32 {
        app.update();
    }
    let sums = std::mem::take(&mut app.world_mut().resource_mut::<Sums>().0);
    app.world().resource::<Playing>().0.check("versus", sums);
}

/// The character of a replay: a body driven by the first player's bits.
#[derive(Component)]
struct Driven;

fn drive_character(
    frame: Res<StepCount>,
    playing: Res<Playing>,
    mut characters: Query<(&mut Velocity, &mut BodySwitches, &PushFlags, &BodyState), With<Driven>>,
    one_way: Query<(), With<OneWayPlatform>>,
) {
    let bits = playing.0.at(frame.0)[0];
    for (mut v, mut switches, flags, state) in &mut characters {
        let one_way = |body| one_way.contains(body);
        drive(
            controls(bits),
            (&mut v, &mut switches),
            (flags, state),
            one_way,
        );
    }
}

/// The physics steps taken.
#[derive(Resource, Default)]
struct StepCount(u32);

/// Plays `replay` in `app` (the physics in `FixedUpdate`, a `Driven` character), taking the
/// physics' checksum every 60th step.
fn play_steps(mut app: App, replay: Replay, name: &str) {
    app.add_plugins(PhysicsChecksumPlugin::default())
        .init_resource::<StepCount>()
        .add_systems(
            FixedUpdate,
            (drive_character, move_platforms).before(PhysicsSystems::Integrate),
        );
    let frames = replay.frames;
    app.insert_resource(Playing(replay));
    let mut sums = Vec::new();
    for frame in 1..=frames {
        step(&mut app, 1);
        app.world_mut().resource_mut::<StepCount>().0 = frame;
        if frame.is_multiple_of(EVERY) {
            let sum = app.world().resource::<PhysicsChecksum>().0;
            sums.push((frame, sum as u128));
        }
    }
    app.world().resource::<Playing>().0.check(name, sums);
}

#[test]
fn the_demo_level_replays_to_the_recorded_checksums() {
    let text = include_str!("../assets/levels/demo.txt");
    let level = ascii::parse(text, "demo.txt".as_ref()).expect("the demo level parses");
    let mut app = relaxed_app(level.map.clone(), 4);
    let mut commands = app.world_mut().commands();
    for object in &level.objects {
        object.spawn(&mut commands);
    }
    let spawn = (level.objects.iter())
        .find(|o| o.kind == ObjectKind::Spawn)
        .expect("a spawn point");
    commands.spawn((
        Driven,
        Aabb::new(spawn.center + Vec2::Y * 2.0, Vec2::new(6.0, 10.0)),
        Velocity::default(),
    ));
    app.world_mut().flush();
    play_steps(app, Replay::read("demo"), "demo");
}

#[test]
fn a_crowd_replays_to_the_recorded_checksums() {
    // A room 36 tiles wide: 20 rows of air, two one-way platforms, slopes on the floor.
    let air = format!("#{}#\n", ".".repeat(34));
    let map = ascii(&format!(
        "{}{}{}{}",
        air.repeat(20),
        "#.........------.........-----.....#\n",
        air.repeat(2),
        "#/..............12.............43.\\#\n####################################",
    ));
    let mut app = relaxed_app(map, 4);
    let mut u = unit_floats(0xC20D);
    for i in 0..300 {
        let half = Vec2::new(2.0 + u() * 5.0, 2.0 + u() * 5.0);
        let center = Vec2::new(
            24.0 + (i % 40) as f32 * 13.0,
            220.0 + (i / 40) as f32 * 14.0,
        );
        let velocity = Vec2::new(u() * 80.0 - 40.0, 0.0);
        let body = spawn(&mut app, center, half, velocity);
        if i % 3 == 0 {
            app.world_mut().entity_mut(body).insert(Pushable::default());
        }
    }
    app.world_mut().spawn((
        Driven,
        Aabb::new(Vec2::new(40.0, 40.0), Vec2::new(6.0, 10.0)),
        Velocity::default(),
    ));
    play_steps(app, Replay::read("crowd"), "crowd");
}
