//! A character driven by bevy-tnua on this physics, in the demo's level: walk, jump (higher
//! while held, with coyote time and a buffered press), crouch, dash, slide down walls and jump
//! off them, jump up through one-way platforms and drop through them, ride the moving ones, and
//! walk up and down the slopes.
//!
//! ```sh
//! cargo run --example tnua --features debug,tnua
//! ```
//!
//! | input | action |
//! | --- | --- |
//! | A / D or arrows | walk |
//! | W, up or Space | jump (hold for a higher jump); against a wall in the air, jump off it |
//! | S or down | crouch; on a one-way platform, drop through it |
//! | Shift | dash the way you walk (or face) |
//! | walk into a wall in the air | slide down it |
//!
//! Tnua floats the character a little above the ground on a spring: the physics moves its box
//! through the level, tnua decides its velocity (see `bevy_platformer_physics::tnua`). With
//! `TNUA_SMOKE=shot.png` set, it plays a fixed script instead of reading the keyboard, saves a
//! screenshot, checks what it drew and what the character did, and exits (the window test in
//! CI).

#[path = "common/mod.rs"]
#[allow(dead_code, reason = "this example has its own scripted window test")]
mod common;

use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_platformer_physics::interpolation::{InterpolationPlugin, TranslationInterpolation};
use bevy_platformer_physics::levels::{CurrentLevel, LevelApplied, LevelPlugin, SpawnPoint};
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::tnua::{TnuaPlatformerBundle, TnuaPlatformerPlugin};
use bevy_tnua::builtins::{
    TnuaBuiltinCrouch, TnuaBuiltinCrouchConfig, TnuaBuiltinDash, TnuaBuiltinDashConfig,
    TnuaBuiltinJumpConfig, TnuaBuiltinWalkConfig, TnuaBuiltinWallSlide, TnuaBuiltinWallSlideConfig,
};
use bevy_tnua::control_helpers::TnuaSimpleFallThroughPlatformsHelper;
use bevy_tnua::prelude::*;
use bevy_tnua::{TnuaGhostOverwrites, TnuaGhostSensor, TnuaSensorsEntities, TnuaSystems};
use common::{CHARACTER_SPRITE, SpritesPlugin, Tileset, pictured_body};

/// Screen pixels per world unit.
const ZOOM: f32 = 2.0;
/// The character's box: 12 x 20, and 12 x 12 crouched.
const HALF: Vec2 = Vec2::new(6.0, 10.0);
const CROUCHED: f32 = 6.0;
const WALK: f32 = 130.0;

#[derive(TnuaScheme)]
#[scheme(basis = TnuaBuiltinWalk)]
enum Moves {
    Jump(TnuaBuiltinJump),
    Crouch(TnuaBuiltinCrouch),
    Dash(TnuaBuiltinDash),
    WallSlide(TnuaBuiltinWallSlide),
    #[scheme(same_trigger(Jump))]
    WallJump(TnuaBuiltinJump),
}

/// Tnua's settings for a character 20 units tall in a world of 16-unit tiles.
fn moves_config() -> MovesConfig {
    MovesConfig {
        basis: TnuaBuiltinWalkConfig {
            speed: WALK,
            // The box floats 2 units above the ground.
            float_height: HALF.y + 2.0,
            cling_distance: 6.0,
            acceleration: 1200.0,
            air_acceleration: 700.0,
            free_fall_extra_gravity: 900.0,
            coyote_time: 0.12,
            ..default()
        },
        jump: TnuaBuiltinJumpConfig {
            height: 56.0,
            takeoff_extra_gravity: 1500.0,
            takeoff_above_velocity: 100.0,
            fall_extra_gravity: 900.0,
            shorten_extra_gravity: 2500.0,
            peak_prevention_at_upward_velocity: 50.0,
            peak_prevention_extra_gravity: 900.0,
            upslope_extra_gravity: 1500.0,
            input_buffer_time: 0.15,
            ..default()
        },
        // The crouched box is 8 lower at the top, its centre 4 lower.
        crouch: TnuaBuiltinCrouchConfig {
            float_offset: CROUCHED - HALF.y,
            height_change_impulse_limit: 400.0,
            ..default()
        },
        dash: TnuaBuiltinDashConfig {
            speed: 420.0,
            horizontal_distance: 64.0,
            vertical_distance: 0.0,
            brake_to_speed: WALK,
            acceleration: 8000.0,
            brake_acceleration: 4000.0,
            input_buffer_time: 0.1,
        },
        wall_slide: TnuaBuiltinWallSlideConfig {
            max_fall_speed: 60.0,
            max_sideways_speed: 0.0,
            max_sideways_acceleration: 2000.0,
            ..default()
        },
        wall_jump: TnuaBuiltinJumpConfig {
            height: 40.0,
            horizontal_distance: 24.0,
            takeoff_extra_gravity: 1500.0,
            takeoff_above_velocity: 100.0,
            fall_extra_gravity: 900.0,
            ..default()
        },
    }
}

/// What the player asks for (read every frame, used at the next fixed step).
#[derive(Resource, Default, Clone, Copy)]
struct Input {
    x: f32,
    jump: bool,
    down: bool,
    down_before: bool,
    dash: bool,
}

#[derive(Component)]
struct Player;

/// Whether the player crouches: its box is then lower (see [`fit_box_to_stance`]).
#[derive(Component, Default)]
struct Crouching(bool);

fn main() -> AppExit {
    let mut app = App::new();
    app.add_plugins(common::window_plugins("tnua"))
        .add_plugins((
            PhysicsPlugin::default(),
            SpritesPlugin,
            LevelPlugin,
            InterpolationPlugin,
            TnuaControllerPlugin::<Moves>::new(FixedUpdate),
            TnuaPlatformerPlugin::default(),
        ))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(PhysicsConfig {
            relaxation_passes: 4,
            ..default()
        })
        .init_resource::<Input>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                read_keyboard,
                (spawn_character, common::dress_level_bodies),
                follow_player,
            )
                .chain(),
        )
        .add_systems(FixedUpdate, apply_controls.in_set(TnuaUserControlsSystems))
        .add_systems(
            FixedUpdate,
            fit_box_to_stance
                .after(TnuaSystems)
                .before(PhysicsSystems::Integrate),
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
    commands.insert_resource(CurrentLevel(assets.load("levels/demo.tmx")));
    commands.insert_resource(Tileset::load(&assets, &mut layouts));
    commands.spawn(common::zoomed_camera(ZOOM));
}

/// Once the level is applied, the character appears at its spawn point.
fn spawn_character(
    mut commands: Commands,
    mut applied: MessageReader<LevelApplied>,
    spawns: Query<&Transform, With<SpawnPoint>>,
    players: Query<(), With<Player>>,
    tileset: Res<Tileset>,
    mut configs: ResMut<Assets<MovesConfig>>,
) {
    let Some(at) = common::new_spawn_point(&mut applied, &spawns) else {
        return;
    };
    if !players.is_empty() {
        return;
    }
    info!("the character appears at {at}");
    let picture = tileset.sprite(CHARACTER_SPRITE, HALF * 2.0);
    commands.spawn((
        Player,
        Name::new("character"),
        pictured_body(at, HALF, picture, Color::WHITE),
        TranslationInterpolation,
        TnuaController::<Moves>::default(),
        TnuaConfig::<Moves>(configs.add(moves_config())),
        TnuaPlatformerBundle::default(),
        // Jump up through one-way platforms and drop through them on command.
        TnuaSimpleFallThroughPlatformsHelper::default(),
        TnuaGhostOverwrites::<Moves>::default(),
        Crouching::default(),
    ));
}

fn read_keyboard(keys: Res<ButtonInput<KeyCode>>, mut input: ResMut<Input>) {
    let held = |keys_: &[KeyCode]| keys.any_pressed(keys_.iter().copied());
    input.x = held(&[KeyCode::KeyD, KeyCode::ArrowRight]) as i32 as f32
        - held(&[KeyCode::KeyA, KeyCode::ArrowLeft]) as i32 as f32;
    input.jump = held(&[KeyCode::KeyW, KeyCode::ArrowUp, KeyCode::Space]);
    input.down = held(&[KeyCode::KeyS, KeyCode::ArrowDown]);
    input.dash = held(&[KeyCode::ShiftLeft, KeyCode::ShiftRight]);
}

/// Feeds tnua the walk and the actions the player asks for.
#[allow(
    clippy::type_complexity,
    reason = "a system's queries: the character's tnua components"
)]
fn apply_controls(
    mut input: ResMut<Input>,
    space: SpatialQuery,
    mut players: Query<
        (
            Entity,
            &mut TnuaController<Moves>,
            &TnuaSensorsEntities<Moves>,
            &mut TnuaSimpleFallThroughPlatformsHelper,
            &mut TnuaGhostOverwrites<Moves>,
            &PushFlags,
            &Aabb,
            &mut Crouching,
        ),
        With<Player>,
    >,
    ghost_sensors: Query<&TnuaGhostSensor>,
) {
    for (me, mut controller, sensors, mut falling, mut ghosts, flags, aabb, mut crouching) in
        &mut players
    {
        controller.initiate_action_feeding();
        controller.basis.desired_motion = Vec3::X * input.x;
        let airborne = controller.is_airborne().unwrap_or(true);

        // Down: drop through the one-way platform under the character, or else crouch.
        let mut dropping = false;
        if let Some(ghost) = sensors.ground.and_then(|e| ghost_sensors.get(e).ok()) {
            // A platform counts once the box is above it.
            let mut helper = falling.with(&mut ghosts.ground, ghost, HALF.y);
            if input.down {
                dropping = helper.try_falling(!input.down_before);
            } else {
                helper.dont_fall();
            }
        }
        // A crouched character stays crouched while there is no room to stand up.
        let no_room = aabb.half_extents.y < HALF.y && {
            let rise = Vec2::Y * 2.0 * (HALF.y - aabb.half_extents.y);
            let filter = QueryFilter::default().excluding(me);
            space
                .cast_box(aabb.center, aabb.half_extents, rise, filter)
                .is_some()
        };
        crouching.0 = input.down && !dropping || no_room;
        if crouching.0 {
            controller.action(Moves::Crouch(TnuaBuiltinCrouch));
        }

        // In the air against a wall the player walks into: slide down it.
        let wall = if flags.pushes_tile(Side::Left) && input.x < 0.0 {
            Some(1.0)
        } else if flags.pushes_tile(Side::Right) && input.x > 0.0 {
            Some(-1.0)
        } else {
            None
        };
        let sliding = matches!(
            controller.action_discriminant(),
            Some(MovesActionDiscriminant::WallSlide)
        );
        if let (Some(out), true) = (wall, airborne) {
            let normal = Dir3::new(Vec3::X * out).expect("a unit vector");
            controller.action(Moves::WallSlide(TnuaBuiltinWallSlide {
                contact_point_with_wall: (aabb.center - Vec2::X * out * HALF.x).extend(0.0),
                normal,
                force_forward: None,
            }));
        }

        if input.jump {
            if sliding {
                let out = wall.unwrap_or(0.0);
                controller.action(Moves::WallJump(TnuaBuiltinJump {
                    horizontal_displacement: Some(Vec3::X * out),
                    allow_in_air: true,
                    ..default()
                }));
            } else {
                controller.action(Moves::Jump(default()));
            }
        }
        if input.dash {
            let way = if input.x != 0.0 { input.x } else { 1.0 };
            controller.action(Moves::Dash(TnuaBuiltinDash {
                displacement: Vec3::X * way,
                allow_in_air: true,
                ..default()
            }));
        }
    }
    input.down_before = input.down;
}

/// A crouching character's box is lower (its feet stay where they are); tnua lowers its
/// floating height to match.
fn fit_box_to_stance(mut players: Query<(&mut Aabb, &Crouching)>) {
    for (mut aabb, crouching) in &mut players {
        let half = if crouching.0 { CROUCHED } else { HALF.y };
        if aabb.half_extents.y != half {
            let feet = aabb.center.y - aabb.half_extents.y;
            aabb.half_extents.y = half;
            aabb.center.y = feet + half;
        }
    }
}

/// The camera follows the character.
fn follow_player(
    player: Query<&Transform, (With<Player>, Without<Camera2d>)>,
    mut camera: Single<&mut Transform, With<Camera2d>>,
    map: Res<TileMap>,
) {
    if let Some(drawn) = player.iter().next().map(|t| t.translation.truncate()) {
        let center = common::camera_following(drawn, &map, ZOOM, 0.0);
        camera.translation = center.extend(camera.translation.z);
    }
}

/// The window test: a fixed script of inputs, then a screenshot and a verdict.
mod smoke {
    use super::*;

    /// The environment variable that asks for this window test and names its screenshot.
    pub const VARIABLE: &str = "TNUA_SMOKE";

    /// What the script saw the character do.
    #[derive(Resource, Default)]
    struct Script {
        frame: u32,
        shot: std::path::PathBuf,
        start: Option<Vec2>,
        /// The centre's height just before the jump.
        takeoff: f32,
        highest: f32,
        fastest: f32,
        slid: bool,
        crouched: bool,
        shooting: bool,
    }

    const GIVE_UP: u32 = 900;
    const SHOOT: u32 = 260;

    pub fn install(app: &mut App, shot: std::path::PathBuf) {
        app.insert_resource(Script {
            shot,
            highest: f32::NEG_INFINITY,
            ..default()
        })
        .add_systems(PreUpdate, play_script.after(InputSystems))
        .add_systems(FixedPostUpdate, watch);
    }

    /// Presses the keys of the script's frame: left into the wall with a jump (a wall slide),
    /// then right up the ramp with a dash, then a crouch.
    fn play_script(
        mut commands: Commands,
        mut script: ResMut<Script>,
        mut keys: ResMut<ButtonInput<KeyCode>>,
        players: Query<&Aabb, With<Player>>,
        mut exit: MessageWriter<AppExit>,
    ) {
        let Some(player) = players.iter().next() else {
            script.frame += 1;
            if script.frame == GIVE_UP {
                println!(
                    "SMOKE FAIL: no character after {GIVE_UP} frames (the level did not load)"
                );
                exit.write(AppExit::from_code(1));
            }
            return;
        };
        if script.start.is_none() {
            script.start = Some(player.center);
            script.frame = 0;
        }
        script.frame += 1;
        keys.release_all();
        let f = script.frame;
        if f == 29 {
            script.takeoff = player.center.y;
        }
        if (30..=34).contains(&f) {
            keys.press(KeyCode::KeyW);
        }
        if (30..=70).contains(&f) {
            keys.press(KeyCode::KeyA);
        }
        if (100..=200).contains(&f) {
            keys.press(KeyCode::KeyD);
        }
        if (130..=132).contains(&f) {
            keys.press(KeyCode::ShiftLeft);
        }
        if (215..=240).contains(&f) {
            keys.press(KeyCode::KeyS);
        }
        if f == SHOOT && !script.shooting {
            script.shooting = true;
            commands
                .spawn(Screenshot::primary_window())
                .observe(check_and_save);
        }
        if f == SHOOT + GIVE_UP {
            println!("SMOKE FAIL: no screenshot arrived");
            exit.write(AppExit::from_code(1));
        }
    }

    /// Records, after each fixed step, how high and fast the character went and which of
    /// tnua's actions it did.
    fn watch(
        mut script: ResMut<Script>,
        players: Query<(&Aabb, &Velocity, &TnuaController<Moves>), With<Player>>,
    ) {
        for (aabb, velocity, controller) in &players {
            script.highest = script.highest.max(aabb.center.y);
            script.fastest = script.fastest.max(velocity.x.abs());
            match controller.action_discriminant() {
                Some(MovesActionDiscriminant::WallSlide) => script.slid = true,
                Some(MovesActionDiscriminant::Crouch) if aabb.half_extents.y == CROUCHED => {
                    script.crouched = true
                }
                _ => {}
            }
        }
    }

    fn check_and_save(
        captured: On<ScreenshotCaptured>,
        script: Res<Script>,
        players: Query<&Aabb, With<Player>>,
        mut exit: MessageWriter<AppExit>,
    ) {
        let image = &captured.image;
        let (w, h) = (image.width(), image.height());
        let background = common::rgb(common::BACKGROUND);
        // The character's picture is the only bright blue of the scene.
        let character = |p: [i32; 3]| p[2] > 120 && p[2] > p[0] + 60 && p[2] > p[1] + 30;
        let (mut player_px, mut background_px, mut other_px, mut sampled) = (0, 0, 0, 0);
        for y in (0..h).step_by(2) {
            for x in (0..w).step_by(2) {
                let p = common::pixel(image, x, y);
                sampled += 1;
                if character(p) {
                    player_px += 1;
                } else if common::near(p, background, 24) {
                    background_px += 1;
                } else {
                    other_px += 1;
                }
            }
        }
        let share = |n: u32| 100.0 * n as f32 / sampled.max(1) as f32;
        let start = script.start.unwrap_or(Vec2::NAN);
        let now = players.iter().next().map_or(Vec2::NAN, |a| a.center);
        let mut failures = Vec::new();
        if player_px < 20 {
            failures.push(format!("character not drawn: {player_px} pixels"));
        }
        if share(background_px) < 20.0 {
            failures.push(format!(
                "background not drawn: {:.1}%",
                share(background_px)
            ));
        }
        if share(other_px) < 5.0 {
            failures.push(format!("level not drawn: {:.1}%", share(other_px)));
        }
        let (jumped, dashed) = (
            script.highest > script.takeoff + 24.0,
            script.fastest > WALK * 1.5,
        );
        if !jumped {
            let (highest, takeoff) = (script.highest, script.takeoff);
            failures.push(format!("no jump: highest {highest} from {takeoff}"));
        }
        if !script.slid {
            failures.push("no wall slide".into());
        }
        if !dashed {
            failures.push(format!("no dash: fastest {}", script.fastest));
        }
        if !script.crouched {
            failures.push("no crouch".into());
        }
        let walked = now.x > start.x + 100.0;
        if !walked {
            failures.push(format!("did not walk right: from {start} to {now}"));
        }
        let summary = format!(
            "{w}x{h}, character {player_px} px, background {:.1}%, level {:.1}%, from {start} \
             to {now}, jumped from {} to {}, fastest {}",
            share(background_px),
            share(other_px),
            script.takeoff,
            script.highest,
            script.fastest,
        );
        common::smoke_verdict(
            captured,
            script.shot.clone(),
            &failures,
            &summary,
            &mut exit,
        );
    }
}
