//! The articles' demo, rebuilt in Bevy: walk, jump, climb and drop through platforms, ride the
//! moving ones, edit the level with the mouse and save it, clone the character, resize it, and
//! watch the debug panel.
//!
//! The level is `assets/levels/demo.tmx` (a Tiled map), loaded through the asset server; set
//! `PLATFORMER_LEVEL` to another file under `assets/` (`levels/castle.tmx`, `levels/demo.txt`)
//! to play that one. The camera follows the character, and bodies are drawn smoothly between
//! fixed steps (`InterpolationPlugin`).
//!
//! ```sh
//! cargo run --example platformer --features debug
//! ```
//!
//! In a browser: `web/build.sh` builds it for the web with the `web` feature (the README's "In
//! a browser"); "Save level" has no file to write to there and says so.
//!
//! | input | action |
//! | --- | --- |
//! | A / D or arrows | walk |
//! | W or up | jump; on a ladder, climb up |
//! | S or down | on a ladder, climb down; on a one-way platform, drop through |
//! | Space | spawn a clone of the character (clones follow the same input) |
//! | left mouse | remove a tile (or, on a body, inspect it in the panel) |
//! | middle mouse | place a one-way platform tile |
//! | right mouse | place a solid tile |
//!
//! Bodies that touch another body are drawn semi-transparent. The platform going up and down
//! in the middle is one-way: jump up through it. The solid one in the room at the bottom right
//! is a crusher: it lifts its crate (or you) to just under the ceiling, and the crushed body is
//! reported `Squished` (the panel counts it and flashes it red). Relaxation is on (4 passes),
//! so clones and crates pushed together stack and stand side by side instead of sinking into
//! each other; the window at the top right sets the passes (0 turns it off). The circle at the
//! top right is a sensor: reaching it logs a message. "Save level" writes the level with your
//! tile edits as ASCII to `assets/levels/<name>.txt` (the name of the level played). With
//! `PLATFORMER_SMOKE=shot.png` set, it plays a fixed script instead of reading the keyboard,
//! saves a screenshot, checks what it drew and exits (the window test in CI).

#[path = "common/mod.rs"]
#[allow(dead_code, reason = "the platformer has its own scripted window test")]
mod common;
#[path = "common/drive.rs"]
mod drive;
#[path = "platformer/smoke.rs"]
mod smoke;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui, input::egui_wants_any_pointer_input};
use bevy_platformer_physics::debug::{DebugPlugin, body_at, cursor_world_position};
use bevy_platformer_physics::interpolation::{InterpolationPlugin, TranslationInterpolation};
use bevy_platformer_physics::levels::{
    CurrentLevel, Level, LevelApplied, LevelPlugin, SpawnPoint, ascii,
};
use bevy_platformer_physics::prelude::*;
use common::{CHARACTER_SPRITE, SpritesPlugin, Tileset, pictured_body};
use drive::{Controls, drive};

const TILE: f32 = 16.0;
/// The width the debug panel takes at the left of the window.
const PANEL: f32 = 300.0;
/// Screen pixels per world unit.
const ZOOM: f32 = 2.0;
/// The level played unless `PLATFORMER_LEVEL` names another.
const DEFAULT_LEVEL: &str = "levels/demo.tmx";
/// The character's tint: its picture as drawn; clones are lighter.
const PLAYER: Color = Color::WHITE;
const CLONE: Color = Color::srgb(0.6, 0.8, 1.0);

/// A body the keyboard drives (the character and its clones).
#[derive(Component)]
struct Player;

/// The character the camera follows (the first one; clones are [`Player`]s too).
#[derive(Component)]
struct Leader;

/// The level file played (under `assets/`), and what "Save level" does.
#[derive(Resource)]
struct LevelFile {
    /// As given to the asset server.
    path: String,
    /// Set by the button (or the window test): save at the next frame.
    save: bool,
    /// Where to save; `None`: `assets/levels/<name>.txt`.
    save_to: Option<std::path::PathBuf>,
    /// What the last save did, shown under the button.
    said: String,
}

/// The character's size, set by the sliders.
#[derive(Resource)]
struct CharacterSize(Vec2);

fn main() -> AppExit {
    let mut app = App::new();
    app.add_plugins(common::window_plugins("platformer"))
        .add_plugins((
            PhysicsPlugin::default(),
            DebugPlugin::default(),
            SpritesPlugin,
            LevelPlugin,
            InterpolationPlugin,
        ))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // Bodies pushed together are pushed apart within the step (off by default: its cost
        // shows in scenes of thousands of bodies, not in this one).
        .insert_resource(PhysicsConfig {
            relaxation_passes: 4,
            ..default()
        })
        // The game as it looks: the overlays start off (but the sensors), the panel on.
        .insert_resource(common::quiet_overlays())
        .init_resource::<Controls>()
        .insert_resource(CharacterSize(Vec2::new(12.0, 20.0)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                read_keyboard,
                edit_tiles.run_if(not(egui_wants_any_pointer_input)),
                (spawn_character, common::dress_level_bodies),
                follow_leader,
                save_level,
                (announce_goal, announce_landing),
            )
                .chain(),
        )
        .add_systems(EguiPrimaryContextPass, character_window)
        .add_systems(
            FixedUpdate,
            (drive_players, resize_players).before(PhysicsSystems::Integrate),
        );
    if let Some(shot) = common::window_test_shot(&mut app, smoke::VARIABLE) {
        smoke::install(&mut app, shot);
    }
    app.run()
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut layouts: ResMut<Assets<TextureAtlasLayout>>,
) {
    let path = std::env::var("PLATFORMER_LEVEL").unwrap_or_else(|_| DEFAULT_LEVEL.into());
    commands.insert_resource(CurrentLevel(assets.load(path.clone())));
    commands.insert_resource(LevelFile {
        path,
        save: false,
        save_to: None,
        said: String::new(),
    });
    commands.insert_resource(Tileset::load(&assets, &mut layouts));
    commands.spawn(common::zoomed_camera(ZOOM));
}

/// Once the first level is applied, the character appears at its spawn point. (A level
/// reloaded later keeps the characters where they are.)
fn spawn_character(
    mut commands: Commands,
    mut applied: MessageReader<LevelApplied>,
    spawns: Query<&Transform, With<SpawnPoint>>,
    leaders: Query<(), With<Leader>>,
    (tileset, size): (Res<Tileset>, Res<CharacterSize>),
) {
    let Some(at) = common::new_spawn_point(&mut applied, &spawns) else {
        return;
    };
    if !leaders.is_empty() {
        return;
    }
    let picture = tileset.sprite(CHARACTER_SPRITE, size.0);
    info!("the character appears at {at}");
    commands.spawn((
        Player,
        Leader,
        Name::new("character"),
        pictured_body(at, size.0 / 2.0, picture, PLAYER),
        TranslationInterpolation,
    ));
}

/// The camera follows the character, keeping it in the middle of the window right of the
/// panel, and stays over the map.
fn follow_leader(
    leader: Query<&Transform, (With<Leader>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
    map: Res<TileMap>,
) {
    // Where the character is drawn (smoothed between steps), not its step's position.
    let Some(drawn) = leader.iter().next().map(|t| t.translation.truncate()) else {
        return;
    };
    let center = common::camera_following(drawn, &map, ZOOM, PANEL);
    camera.translation = center.extend(camera.translation.z);
}

/// Writes the level with the tile edits as ASCII (see [`LevelFile`]).
fn save_level(
    mut file: ResMut<LevelFile>,
    map: Res<TileMap>,
    current: Res<CurrentLevel>,
    levels: Res<Assets<Level>>,
) {
    if !std::mem::take(&mut file.save) {
        return;
    }
    let Some(level) = levels.get(&current.0) else {
        file.said = "the level is not loaded".into();
        return;
    };
    let edited = Level {
        map: map.clone(),
        objects: level.objects.clone(),
    };
    let to = file.save_to.clone().unwrap_or_else(|| {
        let name = std::path::Path::new(&file.path)
            .file_stem()
            .map_or("level".into(), |s| s.to_string_lossy().into_owned());
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/levels")
            .join(format!("{name}.txt"))
    });
    file.said = match std::fs::write(&to, ascii::write(&edited)) {
        Ok(()) => format!("saved to {}", to.display()),
        Err(e) => format!("could not save to {}: {e}", to.display()),
    };
    info!("{}", file.said);
}

fn read_keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    mut controls: ResMut<Controls>,
    mut commands: Commands,
    players: Query<&Aabb, With<Player>>,
    (tileset, size): (Res<Tileset>, Res<CharacterSize>),
) {
    let held = |a: KeyCode, b: KeyCode| keys.pressed(a) || keys.pressed(b);
    controls.x = held(KeyCode::KeyD, KeyCode::ArrowRight) as i32 as f32
        - held(KeyCode::KeyA, KeyCode::ArrowLeft) as i32 as f32;
    controls.up = held(KeyCode::KeyW, KeyCode::ArrowUp);
    controls.down = held(KeyCode::KeyS, KeyCode::ArrowDown);
    if keys.just_pressed(KeyCode::KeyW) || keys.just_pressed(KeyCode::ArrowUp) {
        controls.jump = true;
    }
    if keys.just_pressed(KeyCode::Space) {
        spawn_clone(&mut commands, &players, (&tileset, size.0));
    }
}

/// A clone of the character, just above the first one.
fn spawn_clone(
    commands: &mut Commands,
    players: &Query<&Aabb, With<Player>>,
    (tileset, size): (&Tileset, Vec2),
) {
    if let Some(first) = players.iter().next() {
        let at = first.center + Vec2::new(0.0, first.half_extents.y * 2.0 + 4.0);
        let picture = tileset.sprite(CHARACTER_SPRITE, size);
        let look = pictured_body(at, size / 2.0, picture, CLONE);
        commands.spawn((Player, Name::new("clone"), look, TranslationInterpolation));
    }
}

/// Walk, jump, climb and drop through, for every player body (before the physics step).
fn drive_players(
    mut controls: ResMut<Controls>,
    mut players: Query<(&mut Velocity, &mut BodySwitches, &PushFlags, &BodyState), With<Player>>,
    one_way_bodies: Query<(), With<OneWayPlatform>>,
) {
    for (mut v, mut switches, flags, state) in &mut players {
        let one_way = |body| one_way_bodies.contains(body);
        drive(*controls, (&mut v, &mut switches), (flags, state), one_way);
    }
    controls.jump = false;
}

fn resize_players(size: Res<CharacterSize>, mut players: Query<&mut Aabb, With<Player>>) {
    if !size.is_changed() {
        return;
    }
    for mut aabb in &mut players {
        aabb.half_extents = size.0 / 2.0;
    }
}

/// Mouse editing: middle places a one-way tile, right a solid tile, left removes one (unless a
/// body is under the cursor: then the debug panel inspects it).
fn edit_tiles(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform)>,
    bodies: Query<(Entity, &Aabb)>,
    scripted: Option<Res<smoke::ScriptedCursor>>,
    mut map: ResMut<TileMap>,
) {
    let kind = if buttons.pressed(MouseButton::Middle) {
        TileKind::OneWay
    } else if buttons.pressed(MouseButton::Right) {
        TileKind::Solid
    } else if buttons.pressed(MouseButton::Left) {
        TileKind::Empty
    } else {
        return;
    };
    let point = match scripted {
        Some(s) => s.0,
        None => cursor_world_position(&window, &cameras),
    };
    let Some(point) = point else { return };
    if kind == TileKind::Empty && body_at(point, bodies).is_some() {
        return;
    }
    let t = map.tile_at(point);
    if map.checked_get(t.x, t.y).is_some_and(|old| old != kind) {
        map.set(t.x, t.y, kind);
    }
}

/// The goal sensor (top right) reports characters that reach it.
fn announce_goal(mut entered: MessageReader<SensorEntered>, players: Query<(), With<Player>>) {
    for e in entered.read() {
        if players.contains(e.body) {
            info!("{} reached the goal", e.body);
        }
    }
}

/// Logs each landing of the character (the web page's test follows the character by it).
fn announce_landing(leader: Query<(&Aabb, &PushFlags), With<Leader>>, mut was: Local<bool>) {
    let Some((aabb, flags)) = leader.iter().next() else {
        return;
    };
    if flags.on_ground() && !*was {
        info!("the character landed at {}", aabb.center.round());
    }
    *was = flags.on_ground();
}

/// The character's size, the controls, relaxation's passes and "Save level", at the top right
/// (the debug panel is at the top left).
fn character_window(
    mut contexts: EguiContexts,
    (mut size, mut config): (ResMut<CharacterSize>, ResMut<PhysicsConfig>),
    mut file: ResMut<LevelFile>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Character")
        .anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
        .show(ctx, |ui| {
            let mut s = size.0;
            ui.add(egui::Slider::new(&mut s.x, 4.0..=40.0).text("width"));
            ui.add(egui::Slider::new(&mut s.y, 4.0..=40.0).text("height"));
            ui.small("WASD / arrows: walk, jump, climb, drop · Space: clone\nmouse: left remove, middle one-way, right solid");
            if s != size.0 {
                size.0 = s;
            }
            let mut passes = config.relaxation_passes;
            ui.add(egui::Slider::new(&mut passes, 0..=8).text("relaxation passes"));
            if passes != config.relaxation_passes {
                config.relaxation_passes = passes;
            }
            ui.separator();
            ui.label(format!("level: {}", file.path));
            if ui.button("Save level (ASCII)").clicked() {
                file.save = true;
            }
            if !file.said.is_empty() {
                ui.small(file.said.clone());
            }
        });
    Ok(())
}
