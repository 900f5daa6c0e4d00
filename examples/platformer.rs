//! The articles' demo, rebuilt in Bevy: walk, jump, climb and drop through platforms, edit the
//! level with the mouse, clone the character, resize it, and watch the debug panel.
//!
//! ```sh
//! cargo run --example platformer --features debug
//! ```
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
//! Bodies that touch another body are drawn semi-transparent. The circle at the top right is a
//! sensor: reaching it logs a message. With
//! `PLATFORMER_SMOKE=shot.png` set, it plays a fixed script instead of reading the keyboard,
//! saves a screenshot, checks what it drew and exits (the window test in CI).

#[path = "common/mod.rs"]
#[allow(dead_code, reason = "the platformer has its own scripted window test")]
mod common;
#[path = "platformer/smoke.rs"]
mod smoke;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui, input::egui_wants_any_pointer_input};
use bevy_platformer_physics::debug::{DebugPlugin, body_at, cursor_world_position};
use bevy_platformer_physics::prelude::*;
use common::{SpritesPlugin, body, camera_over};

/// '#' solid, '-' one-way, 'H' ladder, 'P' the character, 'B' a crate, 'K' a platform moving
/// sideways, 'V' a platform moving up and down.
const LEVEL: &str = "\
########################################################################
#......................................................................#
#......................................................................#
#......................................................................#
#..............................................................B...G...#
#...........................................................---------..#
#......................................................................#
#.........................H............................................#
#.....B...............----H----........................................#
#.....---------...........H..............................B.............#
#.........................H...........................#########........#
#.........................H............................................#
#.........................H.......................V....................#
#..................B......H............................................#
#................#####....H.........................................####
#.........................H...........................................##
#.........................H.......K..........................----.....##
#...---------.............H......................................######
#.........................H....................B.................#.....#
#.........................H.....................................#......#
#..P...............................B....####....................#......#
#..............######.................#####################.....#......#
#.............##########.............######...................B........#
########################################################################";

const TILE: f32 = 16.0;
const PANEL: f32 = 300.0;
const PLAYER: Color = Color::srgb(0.35, 0.6, 1.0);
const CLONE: Color = Color::srgb(0.6, 0.8, 1.0);
const CRATE: Color = Color::srgb(0.75, 0.5, 0.3);
const PLATFORM: Color = Color::srgb(1.0, 0.6, 0.15);
const WALK: f32 = 130.0;
const CLIMB: f32 = 90.0;
const JUMP: f32 = 360.0;

/// A body the keyboard drives (the character and its clones).
#[derive(Component)]
struct Player;

/// A kinematic platform that goes back and forth along `axis`, `reach` units either side of
/// where it started.
#[derive(Component)]
struct Patrol {
    origin: Vec2,
    axis: Vec2,
    reach: f32,
    speed: f32,
}

/// The keyboard (or the smoke-test script), read once per frame, used by every fixed step.
#[derive(Resource, Default)]
struct Controls {
    x: f32,
    up: bool,
    down: bool,
    /// Latched until a fixed step uses it.
    jump: bool,
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
        ))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .init_resource::<Controls>()
        .insert_resource(CharacterSize(Vec2::new(12.0, 20.0)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                read_keyboard,
                edit_tiles.run_if(not(egui_wants_any_pointer_input)),
            ),
        )
        .add_systems(EguiPrimaryContextPass, size_sliders)
        .add_systems(Update, announce_goal)
        .add_systems(
            FixedUpdate,
            (patrol, drive_players, resize_players).before(PhysicsSystems::Integrate),
        );
    if let Some(shot) = common::window_test_shot(&mut app, smoke::VARIABLE) {
        smoke::install(&mut app, shot);
    }
    app.run()
}

fn setup(mut commands: Commands) {
    let mut spawns = Vec::new();
    let map = TileMap::from_ascii_with(LEVEL, TILE, |ch, at| {
        "PBKVG".contains(ch).then(|| {
            spawns.push((ch, at));
            TileKind::Empty
        })
    })
    .expect("the level parses");
    commands.spawn(camera_over(&map, PANEL));
    for (ch, at) in spawns {
        let center = at.as_vec2() * TILE + TILE / 2.0;
        match ch {
            'P' => {
                commands.spawn((
                    Player,
                    Name::new("character"),
                    body(center, Vec2::new(6.0, 10.0), PLAYER),
                ));
            }
            'B' => {
                commands.spawn((Name::new("crate"), body(center, Vec2::splat(7.0), CRATE)));
            }
            'K' | 'V' => {
                let axis = if ch == 'K' { Vec2::X } else { Vec2::Y };
                let mut platform = commands.spawn((
                    Name::new("moving platform"),
                    body(center, Vec2::new(24.0, 4.0), PLATFORM),
                    Kinematic,
                    Patrol {
                        origin: center,
                        axis,
                        reach: 64.0,
                        speed: 50.0,
                    },
                ));
                // The lifts are one-way: jump up through them from below.
                if ch == 'V' {
                    platform.insert((Name::new("one-way lift"), OneWayPlatform));
                }
            }
            'G' => {
                // A sensor: it notices the character without stopping anything.
                commands.spawn((
                    Name::new("goal"),
                    Sensor::circle(20.0),
                    Transform::from_translation(center.extend(0.0)),
                ));
            }
            _ => unreachable!(),
        }
    }
    commands.insert_resource(map);
}

fn read_keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    mut controls: ResMut<Controls>,
    mut commands: Commands,
    players: Query<&Aabb, With<Player>>,
    size: Res<CharacterSize>,
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
        spawn_clone(&mut commands, &players, size.0);
    }
}

/// A clone of the character, just above the first one.
fn spawn_clone(commands: &mut Commands, players: &Query<&Aabb, With<Player>>, size: Vec2) {
    if let Some(first) = players.iter().next() {
        let at = first.center + Vec2::new(0.0, first.half_extents.y * 2.0 + 4.0);
        commands.spawn((Player, Name::new("clone"), body(at, size / 2.0, CLONE)));
    }
}

/// Walk, jump, climb and drop through, for every player body (before the physics step).
fn drive_players(
    mut controls: ResMut<Controls>,
    mut players: Query<(&mut Velocity, &mut BodySwitches, &PushFlags, &BodyState), With<Player>>,
) {
    for (mut v, mut switches, flags, state) in &mut players {
        // Walking is relative to what the character stands on: on a moving platform (or a
        // crate sliding along) its velocity carries the character. Zero on tiles.
        v.x = controls.x * WALK + state.ground_velocity.x;
        let on_ladder =
            state.overlaps_ladder || (state.standing_on == Some(TileKind::Ladder) && controls.down);
        switches.climbing = on_ladder && (controls.up || controls.down || switches.climbing);
        if switches.climbing {
            v.y = CLIMB * (controls.up as i32 - controls.down as i32) as f32;
        } else if controls.jump && flags.on_ground() {
            v.y += JUMP;
        }
        let on_pass_through =
            matches!(state.standing_on, Some(TileKind::OneWay | TileKind::Ladder));
        switches.drop_through = controls.down && (on_pass_through || switches.drop_through);
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

fn patrol(mut platforms: Query<(&Aabb, &mut Velocity, &Patrol)>) {
    for (aabb, mut v, p) in &mut platforms {
        let along = (aabb.center - p.origin).dot(p.axis);
        let heading = v.dot(p.axis);
        if heading == 0.0
            || (along >= p.reach && heading > 0.0)
            || (along <= -p.reach && heading < 0.0)
        {
            let sign = if along >= p.reach { -1.0 } else { 1.0 };
            v.0 = p.axis * p.speed * sign;
        }
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

fn size_sliders(mut contexts: EguiContexts, mut size: ResMut<CharacterSize>) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Character")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .show(ctx, |ui| {
            let mut s = size.0;
            ui.add(egui::Slider::new(&mut s.x, 4.0..=40.0).text("width"));
            ui.add(egui::Slider::new(&mut s.y, 4.0..=40.0).text("height"));
            ui.small("WASD / arrows: walk, jump, climb, drop · Space: clone\nmouse: left remove, middle one-way, right solid");
            if s != size.0 {
                size.0 = s;
            }
        });
    Ok(())
}
