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
//! run in a sync test for 600 frames, and as two peers over UDP for 3 600.
//!
//! Over a network, each player runs the example with their own port, the other's address and
//! their player number (two windows on one machine work too); WASD and the arrows both move
//! your player. `--lossy` makes the network poor on purpose (60 ms ± 20 ms, 5 % of packets
//! lost, some duplicated or reordered: `versus/network.rs`), `--harsh` worse (150 ms, 15 %):
//!
//! ```sh
//! cargo run --example versus --features debug -- --local-port 7000 --remote 127.0.0.1:7001 --player 0
//! cargo run --example versus --features debug -- --local-port 7001 --remote 127.0.0.1:7000 --player 1
//! ```
//!
//! GGRS then compares the peers' checksums every 10 frames; a desync is shown and logged.

#[allow(
    dead_code,
    reason = "the window-test helpers belong to the scripted examples"
)]
#[path = "common/mod.rs"]
mod common;
#[path = "versus/game.rs"]
mod game;
#[path = "versus/network.rs"]
mod network;

use std::net::{SocketAddr, ToSocketAddrs};

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_ggrs::ggrs::{DesyncDetection, GgrsEvent, P2PSession, UdpNonBlockingSocket};
use bevy_ggrs::prelude::*;
use bevy_ggrs::{LocalInputs, LocalPlayers, RollbackFrameCount};
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

/// The frames whose checksums differed, if any (in the sync test, or between the peers).
#[derive(Resource, Default)]
struct Mismatches(Vec<i32>);

/// How the two players play: on one keyboard through a sync test, or over a network.
enum Mode {
    SyncTest,
    Network {
        local_port: u16,
        remote: SocketAddr,
        player: usize,
        profile: Option<network::NetworkProfile>,
    },
}

impl Mode {
    /// From the command line: `--local-port`, `--remote` and `--player` (all three, or none),
    /// and `--lossy` or `--harsh`.
    fn from_args() -> Result<Self, String> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let value = |name: &str| {
            let at = args.iter().position(|a| a == name)?;
            Some(
                args.get(at + 1)
                    .cloned()
                    .ok_or(format!("{name} needs a value")),
            )
        };
        let (port, remote, player) = (value("--local-port"), value("--remote"), value("--player"));
        if port.is_none() && remote.is_none() && player.is_none() {
            return Ok(Self::SyncTest);
        }
        let (Some(port), Some(remote), Some(player)) = (port, remote, player) else {
            return Err("give --local-port, --remote and --player together".into());
        };
        let local_port = port?.parse().map_err(|e| format!("--local-port: {e}"))?;
        let remote = remote?;
        let remote = (remote.to_socket_addrs().ok().and_then(|mut a| a.next())).ok_or(format!(
            "--remote: no address for {remote} (give host:port)"
        ))?;
        let player = player?.parse().map_err(|e| format!("--player: {e}"))?;
        if player > 1 {
            return Err("--player is 0 or 1".into());
        }
        let flag = |name: &str| args.iter().any(|a| a == name);
        let profile = if flag("--harsh") {
            Some(network::NetworkProfile::HARSH)
        } else if flag("--lossy") {
            Some(network::NetworkProfile::POOR)
        } else {
            None
        };
        Ok(Self::Network {
            local_port,
            remote,
            player,
            profile,
        })
    }

    /// The GGRS session, and what the lossy network did to the packets (if there is one).
    fn session(&self) -> Result<(Session<VersusConfig>, Option<Link>), String> {
        let builder = SessionBuilder::<VersusConfig>::new()
            .with_num_players(2)
            .map_err(|e| e.to_string())?;
        match *self {
            Self::SyncTest => builder
                .with_check_distance(CHECK_DISTANCE)
                .add_player(PlayerType::Local, 0)
                .and_then(|b| b.add_player(PlayerType::Local, 1))
                .and_then(|b| b.start_synctest_session())
                .map(|s| (Session::SyncTest(s), None))
                .map_err(|e| e.to_string()),
            Self::Network {
                local_port,
                remote,
                player,
                profile,
            } => {
                let socket = UdpNonBlockingSocket::bind_to_port(local_port)
                    .map_err(|e| format!("port {local_port}: {e}"))?;
                let builder = builder
                    .with_input_delay(game::INPUT_DELAY)
                    .with_desync_detection_mode(DesyncDetection::On { interval: 10 })
                    .add_player(PlayerType::Local, player)
                    .and_then(|b| b.add_player(PlayerType::Remote(remote), 1 - player))
                    .map_err(|e| e.to_string())?;
                let (session, link): (Result<P2PSession<VersusConfig>, _>, _) = match profile {
                    Some(profile) => {
                        let (seed, clock) = (local_port as u64, network::wall_clock());
                        let lossy = network::LossySocket::new(socket, profile, seed, clock);
                        let link = Link(lossy.counts());
                        (builder.start_p2p_session(lossy), Some(link))
                    }
                    None => (builder.start_p2p_session(socket), None),
                };
                let session = session.map_err(|e| e.to_string())?;
                Ok((Session::P2P(session), link))
            }
        }
    }
}

/// What the network session last said, for the scoreboard.
#[derive(Resource, Default)]
struct NetworkStatus(String);

/// What the lossy network did to this peer's packets.
#[derive(Resource)]
struct Link(std::sync::Arc<std::sync::Mutex<network::LinkCounts>>);

#[derive(Component)]
struct Scoreboard;

fn main() -> AppExit {
    let (session, link) = match Mode::from_args().and_then(|mode| mode.session()) {
        Ok(session) => session,
        Err(problem) => {
            eprintln!("versus: {problem}");
            return AppExit::from_code(2);
        }
    };
    let mut app = App::new();
    if let Some(link) = link {
        app.insert_resource(link);
    }
    app.add_plugins(common::window_plugins("versus (GGRS)"))
        .add_plugins((VersusPlugin, SpritesPlugin, ScreenshotAfter(240)))
        .insert_resource(session)
        .init_resource::<Mismatches>()
        .init_resource::<NetworkStatus>()
        .add_systems(ReadInputs, read_keyboard)
        .add_systems(PostStartup, setup)
        .add_systems(
            Update,
            (dress_bodies, follow_network, show_scores, draw_goal).chain(),
        )
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

/// The players' controls, from one keyboard: WASD and the arrows each move a player, or both
/// move the one player of this peer over a network.
fn read_keyboard(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    local: Res<LocalPlayers>,
) {
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
    let inputs = match local.0[..] {
        [me] => HashMap::from_iter([(me, read(wasd) | read(arrows))]),
        _ => HashMap::from_iter([(0, read(wasd)), (1, read(arrows))]),
    };
    commands.insert_resource(LocalInputs::<VersusConfig>(inputs));
}

/// Follows a network session's events: the other player joining or leaving, and desyncs.
fn follow_network(
    mut session: ResMut<Session<VersusConfig>>,
    mut status: ResMut<NetworkStatus>,
    mut mismatches: ResMut<Mismatches>,
) {
    let Session::P2P(session) = &mut *session else {
        return;
    };
    for event in session.events() {
        match event {
            GgrsEvent::Synchronizing { count, total, .. } => {
                status.0 = format!("connecting {count}/{total}");
            }
            GgrsEvent::Synchronized { addr } => {
                info!("connected to the other player at {addr}");
                status.0 = "connected".into();
            }
            GgrsEvent::NetworkInterrupted { .. } => status.0 = "connection interrupted".into(),
            GgrsEvent::NetworkResumed { .. } => status.0 = "connected".into(),
            GgrsEvent::Disconnected { addr } => {
                info!("the other player at {addr} left");
                status.0 = "the other player left".into();
            }
            GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } => {
                error!(
                    "desync at frame {frame}: {local_checksum:x} here, {remote_checksum:x} there"
                );
                mismatches.0.push(frame);
            }
            _ => {}
        }
    }
    if matches!(
        session.current_state(),
        bevy_ggrs::ggrs::SessionState::Synchronizing
    ) && status.0.is_empty()
    {
        status.0 = "waiting for the other player".into();
    }
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
    (mismatches, status, link): (Res<Mismatches>, Res<NetworkStatus>, Option<Res<Link>>),
    mut board: Single<&mut Text, With<Scoreboard>>,
) {
    let mut scores: Vec<_> = players.iter().map(|(p, s)| (p.0, s.0)).collect();
    scores.sort();
    let scores: Vec<String> = (scores.iter())
        .map(|(p, s)| format!("player {}: {s}", p + 1))
        .collect();
    let checked = match (mismatches.0.first(), status.0.is_empty()) {
        (None, true) => {
            format!("re-simulated {CHECK_DISTANCE} frames back at every frame, no mismatch")
        }
        (None, false) => match link.and_then(|l| l.0.lock().ok().map(|c| *c)) {
            Some(c) => format!(
                "{}, no desync; {} of {} packets lost",
                status.0, c.lost, c.sent
            ),
            None => format!("{}, no desync", status.0),
        },
        (Some(frame), _) => format!("CHECKSUM MISMATCH at frame {frame}"),
    };
    let text = format!("{}   frame {}   {checked}", scores.join("   "), frame.0);
    if board.0 != text {
        board.0 = text;
    }
}
