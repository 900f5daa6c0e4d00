//! The platformer's window test: with `PLATFORMER_SMOKE=<png>` the demo runs one fixed step a
//! frame, waits for its Tiled level to load, plays a fixed script of key presses and mouse
//! clicks, saves the edited level, takes a screenshot, checks that the level's tiles, the
//! character and the panel were really drawn and that the script had its effects (the saved
//! level has the edits), saves the PNG, prints `SMOKE OK` or `SMOKE FAIL` and exits 0 or 1.

use std::path::PathBuf;

use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_platformer_physics::prelude::*;

use super::{LevelFile, Player, TILE};
use bevy_platformer_physics::levels::ascii;

/// Frames of the script.
const RECORD_START: u32 = 5;
const WALK_END: u32 = 60;
const JUMP: u32 = 62;
const CLONE: u32 = 80;
const PLACE_SOLID: u32 = 90;
const PLACE_ONE_WAY: u32 = 96;
const SAVE: u32 = 110;
const SHOOT: u32 = 160;
const GIVE_UP: u32 = 900;
/// Tiles the script places: a solid one and a one-way one, in open air.
const SOLID_AT: IVec2 = IVec2::new(40, 17);
const ONE_WAY_AT: IVec2 = IVec2::new(44, 17);

/// Replaces the mouse cursor for the level editor while the script runs.
#[derive(Resource, Default)]
pub struct ScriptedCursor(pub Option<Vec2>);

#[derive(Resource)]
struct Script {
    frame: u32,
    shot: PathBuf,
    start: Option<Vec2>,
    shooting: bool,
}

/// The environment variable that asks for this window test and names its screenshot.
pub const VARIABLE: &str = "PLATFORMER_SMOKE";

/// Plays the script, then checks and saves the screenshot to `shot`.
pub fn install(app: &mut App, shot: PathBuf) {
    app.init_resource::<ScriptedCursor>()
        .insert_resource(Script {
            frame: 0,
            shot,
            start: None,
            shooting: false,
        })
        .add_systems(PreUpdate, play_script.after(InputSystems));
}

/// Where the window test saves the edited level: next to its screenshot.
fn saved_level(shot: &std::path::Path) -> PathBuf {
    shot.with_extension("level.txt")
}

fn tile_center(t: IVec2) -> Vec2 {
    t.as_vec2() * TILE + TILE / 2.0
}

fn play_script(
    mut commands: Commands,
    mut script: ResMut<Script>,
    (mut keys, mut mouse): (
        ResMut<ButtonInput<KeyCode>>,
        ResMut<ButtonInput<MouseButton>>,
    ),
    (mut cursor, mut file): (ResMut<ScriptedCursor>, ResMut<LevelFile>),
    players: Query<&Aabb, With<Player>>,
    mut exit: MessageWriter<AppExit>,
    mut waited: Local<u32>,
) {
    // The script starts once the level is loaded and the character stands in it.
    if players.is_empty() && script.frame == 0 {
        *waited += 1;
        if *waited == GIVE_UP {
            println!("SMOKE FAIL: no character after {GIVE_UP} frames (the level did not load)");
            exit.write(AppExit::from_code(1));
        }
        return;
    }
    script.frame += 1;
    let f = script.frame;
    // Releases first, so a press lasts exactly the frames the script says.
    keys.release_all();
    mouse.release_all();
    cursor.0 = None;
    match f {
        RECORD_START => script.start = players.iter().next().map(|a| a.center),
        _ if f > RECORD_START && f < WALK_END => keys.press(KeyCode::KeyD),
        JUMP => keys.press(KeyCode::KeyW),
        CLONE => keys.press(KeyCode::Space),
        PLACE_SOLID => {
            cursor.0 = Some(tile_center(SOLID_AT));
            mouse.press(MouseButton::Right);
        }
        PLACE_ONE_WAY => {
            cursor.0 = Some(tile_center(ONE_WAY_AT));
            mouse.press(MouseButton::Middle);
        }
        SAVE => {
            file.save_to = Some(saved_level(&script.shot));
            file.save = true;
        }
        SHOOT if !script.shooting => {
            script.shooting = true;
            commands
                .spawn(Screenshot::primary_window())
                .observe(check_and_save);
        }
        GIVE_UP => {
            println!("SMOKE FAIL: no screenshot arrived within {GIVE_UP} frames");
            exit.write(AppExit::from_code(1));
        }
        _ => {}
    }
}

/// Checks the screenshot and the world, saves the PNG, and ends the app with the verdict.
fn check_and_save(
    captured: On<ScreenshotCaptured>,
    script: Res<Script>,
    players: Query<&Aabb, With<Player>>,
    map: Res<TileMap>,
    stats: Res<PhysicsStats>,
    (images, tileset): (Res<Assets<Image>>, Res<super::common::Tileset>),
    mut exit: MessageWriter<AppExit>,
) {
    let mut failures = Vec::new();
    let image = &captured.image;
    let (w, h) = (image.width(), image.height());
    let pixel = |x: u32, y: u32| super::common::pixel(image, x, y);
    let near = |p: [i32; 3], q: [i32; 3]| super::common::near(p, q, 24);
    let as_rgb = super::common::rgb;
    let background = as_rgb(super::common::BACKGROUND);
    // The solid tiles' picture: every colour of it (drawn sharp, two screen pixels a texel).
    let mut solid: Vec<[i32; 3]> = Vec::new();
    if let Some(sheet) = images.get(&tileset.image) {
        for y in 0..16 {
            for x in 0..16 {
                let c = super::common::pixel(sheet, x, y);
                if !solid.contains(&c) {
                    solid.push(c);
                }
            }
        }
    }
    // The character and its clones: their picture is the only bright blue of the scene
    // (whether tinted, or half transparent while touching another body).
    let character = |p: [i32; 3]| p[2] > 120 && p[2] > p[0] + 60 && p[2] > p[1] + 30;
    let (mut solid_px, mut player_px, mut background_px, mut sampled) = (0u32, 0u32, 0u32, 0u32);
    for y in (0..h).step_by(2) {
        for x in (0..w).step_by(2) {
            let p = pixel(x, y);
            sampled += 1;
            solid_px += solid.iter().any(|&c| near(p, c)) as u32;
            player_px += character(p) as u32;
            background_px += near(p, background) as u32;
        }
    }
    // The panel sits at the top left: its pixels are neutral greys, unlike the blue background.
    let (mut panel_px, mut panel_sampled) = (0u32, 0u32);
    for y in (40..(300.min(h))).step_by(3) {
        for x in (16..(250.min(w))).step_by(3) {
            let p = pixel(x, y);
            panel_sampled += 1;
            let grey = (p[0] - p[1]).abs() < 10 && (p[1] - p[2]).abs() < 10 && p[0] < 110;
            panel_px += grey as u32;
        }
    }
    let share = |n: u32, of: u32| n as f32 / of.max(1) as f32;
    if w < 640 || h < 360 {
        failures.push(format!("screenshot is {w} x {h}"));
    }
    if share(solid_px, sampled) < 0.03 {
        failures.push(format!(
            "tiles not drawn: {:.1}% solid-tile pixels",
            100.0 * share(solid_px, sampled)
        ));
    }
    if share(background_px, sampled) < 0.2 {
        failures.push(format!(
            "background not drawn: {:.1}%",
            100.0 * share(background_px, sampled)
        ));
    }
    if player_px < 20 {
        failures.push(format!("character not drawn: {player_px} pixels"));
    }
    if share(panel_px, panel_sampled) < 0.5 {
        failures.push(format!(
            "debug panel not drawn: {:.1}% grey in its area",
            100.0 * share(panel_px, panel_sampled)
        ));
    }
    let xs: Vec<f32> = players.iter().map(|a| a.center.x).collect();
    let start = script.start.map_or(f32::NAN, |s| s.x);
    if !xs.iter().any(|&x| x > start + 60.0) {
        failures.push(format!(
            "the character did not walk right: started at {start}, now {xs:?}"
        ));
    }
    if xs.len() < 2 {
        failures.push("Space did not spawn a clone".into());
    }
    if map.get(SOLID_AT.x, SOLID_AT.y) != TileKind::Solid {
        failures.push("right click did not place a solid tile".into());
    }
    if map.get(ONE_WAY_AT.x, ONE_WAY_AT.y) != TileKind::OneWay {
        failures.push("middle click did not place a one-way tile".into());
    }
    match std::fs::read_to_string(saved_level(&script.shot)) {
        Ok(text) => match ascii::parse(&text, "saved.txt".as_ref()) {
            Ok(saved) => {
                let kinds = [SOLID_AT, ONE_WAY_AT].map(|t| saved.map.get(t.x, t.y));
                if kinds != [TileKind::Solid, TileKind::OneWay] {
                    failures.push(format!("the saved level lacks the edits: {kinds:?}"));
                }
            }
            Err(e) => failures.push(format!("the saved level does not load: {e}")),
        },
        Err(e) => failures.push(format!("no saved level: {e}")),
    }
    if stats.bodies < 8 {
        failures.push(format!("only {} bodies in the partition", stats.bodies));
    }
    let summary = format!(
        "{w}x{h}, tiles {:.1}%, background {:.1}%, character {player_px} px, panel {:.0}% grey, \
         players at {xs:?}, {} bodies, {} pairs",
        100.0 * share(solid_px, sampled),
        100.0 * share(background_px, sampled),
        100.0 * share(panel_px, panel_sampled),
        stats.bodies,
        stats.pairs_found,
    );
    super::common::smoke_verdict(
        captured,
        script.shot.clone(),
        &failures,
        &summary,
        &mut exit,
    );
}
