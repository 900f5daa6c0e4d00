//! The bevy-tnua backend (`tnua::TnuaPlatformerPlugin`): a tnua character stands, walks,
//! jumps (with coyote time and a buffered press), rides a moving platform, and jumps up through
//! and drops through one-way platforms, on this physics.

use std::time::Duration;

use bevy::prelude::*;
use bevy_platformer_physics::tnua::{TnuaPlatformerBundle, TnuaPlatformerPlugin};
use bevy_tnua::builtins::{TnuaBuiltinJumpConfig, TnuaBuiltinWalkConfig};
use bevy_tnua::control_helpers::TnuaSimpleFallThroughPlatformsHelper;
use bevy_tnua::prelude::*;
use bevy_tnua::{
    TnuaGhostOverwrites, TnuaGhostPlatform, TnuaGhostSensor, TnuaProximitySensor,
    TnuaSensorsEntities,
};

use crate::common::*;

#[derive(TnuaScheme)]
#[scheme(basis = TnuaBuiltinWalk)]
enum Controls {
    Jump(TnuaBuiltinJump),
}

/// The character's box: 10 x 16.
const HALF: Vec2 = Vec2::new(5.0, 8.0);
/// Its centre floats this high above the ground: its box 2 units above it.
const FLOAT: f32 = 10.0;
const SPEED: f32 = 120.0;
const JUMP: f32 = 48.0;

/// What the test presses this step.
#[derive(Resource, Default)]
struct Pad {
    right: f32,
    jump: bool,
    down: bool,
    down_before: bool,
}

#[allow(
    clippy::type_complexity,
    reason = "a system's query: the character's tnua components"
)]
fn controls(
    mut pad: ResMut<Pad>,
    mut characters: Query<(
        &mut TnuaController<Controls>,
        &TnuaSensorsEntities<Controls>,
        Option<(
            &mut TnuaSimpleFallThroughPlatformsHelper,
            &mut TnuaGhostOverwrites<Controls>,
        )>,
    )>,
    ghosts: Query<&TnuaGhostSensor>,
) {
    for (mut controller, sensors, falling) in &mut characters {
        controller.initiate_action_feeding();
        controller.basis.desired_motion = Vec3::X * pad.right;
        if pad.jump {
            controller.action(Controls::Jump(default()));
        }
        let ghost = sensors.ground.and_then(|e| ghosts.get(e).ok());
        if let (Some((mut helper, mut overwrites)), Some(ghost)) = (falling, ghost) {
            // A platform counts once the box is above it.
            let mut helper = helper.with(&mut overwrites.ground, ghost, HALF.y);
            if pad.down {
                helper.try_falling(!pad.down_before);
            } else {
                helper.dont_fall();
            }
        }
    }
    pad.down_before = pad.down;
}

/// A headless app with the physics, tnua and the backend in `FixedUpdate`, and `map`.
fn tnua_app(map: TileMap) -> App {
    let mut app = app(map);
    app.add_plugins((
        AssetPlugin::default(),
        TnuaControllerPlugin::<Controls>::new(FixedUpdate),
        TnuaPlatformerPlugin::default(),
    ))
    .init_resource::<Pad>()
    .add_systems(FixedUpdate, controls.in_set(TnuaUserControlsSystems));
    app.finish();
    app
}

/// Spawns the character at `center`; `fall_through` gives it tnua's fall-through helper.
fn spawn_character(app: &mut App, center: Vec2, fall_through: bool) -> Entity {
    let config = app
        .world_mut()
        .resource_mut::<Assets<ControlsConfig>>()
        .add(ControlsConfig {
            basis: TnuaBuiltinWalkConfig {
                speed: SPEED,
                float_height: FLOAT,
                cling_distance: 4.0,
                acceleration: 1200.0,
                air_acceleration: 800.0,
                free_fall_extra_gravity: 1000.0,
                coyote_time: 0.15,
                ..default()
            },
            jump: TnuaBuiltinJumpConfig {
                height: JUMP,
                takeoff_extra_gravity: 1500.0,
                takeoff_above_velocity: 100.0,
                fall_extra_gravity: 1000.0,
                shorten_extra_gravity: 3000.0,
                peak_prevention_at_upward_velocity: 50.0,
                peak_prevention_extra_gravity: 1000.0,
                upslope_extra_gravity: 1500.0,
                input_buffer_time: 0.2,
                ..default()
            },
        });
    let mut character = app.world_mut().spawn((
        Aabb::new(center, HALF),
        TnuaController::<Controls>::default(),
        TnuaConfig::<Controls>(config),
        TnuaPlatformerBundle::default(),
    ));
    if fall_through {
        character.insert((
            TnuaSimpleFallThroughPlatformsHelper::default(),
            TnuaGhostOverwrites::<Controls>::default(),
        ));
    }
    character.id()
}

/// Runs `n` steps of 1/60 s, tnua's clock included.
fn run(app: &mut App, n: usize) {
    for _ in 0..n {
        let dt = Duration::from_secs_f32(DT);
        app.world_mut().resource_mut::<Time>().advance_by(dt);
        step(app, 1);
    }
}

fn press(app: &mut App, f: impl FnOnce(&mut Pad)) {
    f(&mut app.world_mut().resource_mut::<Pad>());
}

/// The character's ground sensor output: (proximity, entity), if it senses ground.
fn ground(app: &mut App, e: Entity) -> Option<(f32, Entity)> {
    let sensor = app
        .world()
        .get::<TnuaSensorsEntities<Controls>>(e)?
        .ground?;
    let output = app
        .world()
        .get::<TnuaProximitySensor>(sensor)?
        .output
        .as_ref()?;
    Some((output.proximity, output.entity))
}

/// A long floor at y = 16 (tile row 0), 40 tiles wide and 20 high.
fn floor() -> TileMap {
    let mut map = empty_map(40, 20);
    map.fill(IVec2::ZERO, IVec2::new(39, 0), TileKind::Solid);
    map
}

/// A 45-degree ramp rising right from x = 160 to x = 240 (tiles 10..14 of rows 1..5) on the
/// floor, solid under it, flat again at y = 96 from x = 240.
fn ramp() -> TileMap {
    let mut map = floor();
    for i in 0..5 {
        map.set(10 + i, 1 + i, TileKind::SlopeRight);
        map.fill(
            IVec2::new(10 + i, 1),
            IVec2::new(10 + i, i),
            TileKind::Solid,
        );
    }
    map.fill(IVec2::new(15, 1), IVec2::new(39, 5), TileKind::Solid);
    map
}

/// The highest centre the character reaches within `n` steps.
fn peak(app: &mut App, e: Entity, n: usize) -> f32 {
    let mut top = f32::NEG_INFINITY;
    for _ in 0..n {
        run(app, 1);
        top = top.max(pos(app, e).y);
    }
    top
}

#[test]
fn a_tnua_character_stands_still_on_flat_ground_and_on_a_slope() {
    // On the floor (y = 16), and halfway up the ramp (its surface at x + 5 is x - 139).
    let cases = [
        (floor(), Vec2::new(100.0, 16.0 + FLOAT)),
        (ramp(), Vec2::new(197.0, 63.0 + FLOAT)),
    ];
    for (map, start) in cases {
        let mut app = tnua_app(map);
        let me = spawn_character(&mut app, start, false);
        run(&mut app, 120);
        let settled = pos(&app, me);
        assert!(ground(&mut app, me).is_some(), "it stands on the ground");
        run(&mut app, 600);
        let drift = pos(&app, me) - settled;
        assert!(drift.length() < 0.01, "drifted {drift} from {settled}");
        // It floats: the box does not touch the ground.
        let (proximity, _) = ground(&mut app, me).unwrap();
        assert!((proximity - FLOAT).abs() < 0.01, "{proximity}");
        assert!(!flags(&app, me).on_ground());
    }
}

#[test]
fn a_tnua_character_walks_at_its_desired_speed() {
    let mut app = tnua_app(floor());
    let me = spawn_character(&mut app, Vec2::new(60.0, 16.0 + FLOAT), false);
    run(&mut app, 60);
    press(&mut app, |p| p.right = 1.0);
    run(&mut app, 30);
    let x = pos(&app, me).x;
    run(&mut app, 60);
    assert!(
        (pos(&app, me).x - x - SPEED).abs() < 0.01,
        "{}",
        pos(&app, me).x - x
    );
    assert!((vel(&app, me).x - SPEED).abs() < 0.01);
    // And stops when let go.
    press(&mut app, |p| p.right = 0.0);
    run(&mut app, 30);
    assert!(vel(&app, me).x.abs() < 0.01);
}

#[test]
fn a_tnua_character_jumps_as_high_from_a_slope_as_from_flat_ground_every_time() {
    let mut heights = Vec::new();
    for (map, start) in [
        (floor(), Vec2::new(100.0, 16.0 + FLOAT)),
        (ramp(), Vec2::new(197.0, 63.0 + FLOAT)),
    ] {
        let mut app = tnua_app(map);
        let me = spawn_character(&mut app, start, false);
        run(&mut app, 120);
        for _ in 0..10 {
            let before = pos(&app, me).y;
            press(&mut app, |p| p.jump = true);
            let top = peak(&mut app, me, 40);
            press(&mut app, |p| p.jump = false);
            run(&mut app, 80);
            assert!(
                (pos(&app, me).y - before).abs() < 0.01,
                "it lands where it jumped from"
            );
            heights.push(top - before);
        }
    }
    // At least the jump's height (a step of 1/60 s overshoots tnua's continuous model).
    assert!(heights[0] > JUMP && heights[0] < JUMP * 1.2, "{heights:?}");
    for h in &heights {
        assert!((h - heights[0]).abs() < 0.01, "{heights:?}");
    }
}

/// A ledge: a block of rows 0..20 up to x = 160 (its top at 336), the floor far below after
/// it, further than the character falls in its coyote time and input buffer together.
fn ledge() -> TileMap {
    let mut map = empty_map(40, 30);
    map.fill(IVec2::ZERO, IVec2::new(39, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 1), IVec2::new(9, 20), TileKind::Solid);
    map
}

/// Walks the character off the ledge's edge (x = 160) and presses jump `wait` steps after
/// its box has left it; returns its highest vertical speed over the next 20 steps.
fn jump_after_leaving(wait: usize) -> f32 {
    let mut app = tnua_app(ledge());
    let me = spawn_character(&mut app, Vec2::new(120.0, 336.0 + FLOAT), false);
    run(&mut app, 60);
    press(&mut app, |p| p.right = 1.0);
    while aabb(&app, me).min().x <= 160.0 {
        run(&mut app, 1);
    }
    press(&mut app, |p| p.right = 0.0);
    run(&mut app, wait);
    press(&mut app, |p| p.jump = true);
    let mut fastest_up = f32::NEG_INFINITY;
    for _ in 0..20 {
        run(&mut app, 1);
        fastest_up = fastest_up.max(vel(&app, me).y);
    }
    fastest_up
}

#[test]
fn a_tnua_character_jumps_off_a_ledge_within_its_coyote_time_and_not_after() {
    // Coyote time 0.15 s: 9 steps.
    assert!(
        jump_after_leaving(3) > 200.0,
        "a jump 3 steps after the edge"
    );
    assert!(
        jump_after_leaving(7) > 200.0,
        "a jump 7 steps after the edge"
    );
    assert!(
        jump_after_leaving(14) < 1.0,
        "no jump 14 steps after the edge"
    );
}

#[test]
fn a_tnua_character_lands_a_jump_pressed_just_before_landing() {
    // Dropped from 200 units above the floor: when does it land?
    let drop = Vec2::new(100.0, 216.0 + FLOAT);
    let landing = {
        let mut app = tnua_app(floor());
        let me = spawn_character(&mut app, drop, false);
        (1..).find(|_| {
            run(&mut app, 1);
            ground(&mut app, me).is_some_and(|(p, _)| p <= FLOAT)
        })
    }
    .unwrap();
    // Its coyote time (9 steps) and input buffer (12 steps) are both over before it lands.
    assert!(landing > 24, "{landing}");
    let mut app = tnua_app(floor());
    let me = spawn_character(&mut app, drop, false);
    // Pressed 6 steps (0.1 s) before landing and held: it jumps when it lands.
    run(&mut app, landing - 6);
    press(&mut app, |p| p.jump = true);
    let top = peak(&mut app, me, 60);
    assert!(top > 16.0 + FLOAT + JUMP - 2.0, "it jumped to {top}");
    // Pressed in the air 14 steps before landing: no jump when it lands.
    let mut app = tnua_app(floor());
    let me = spawn_character(&mut app, drop, false);
    run(&mut app, landing - 14);
    press(&mut app, |p| p.jump = true);
    run(&mut app, 14);
    let top = peak(&mut app, me, 60);
    assert!(top < 16.0 + FLOAT + JUMP / 4.0, "it jumped to {top}");
}

#[test]
fn a_tnua_character_rides_a_platform_that_reverses_every_60_steps() {
    let mut app = tnua_app(floor());
    let platform = spawn_kinematic(
        &mut app,
        Vec2::new(200.0, 100.0),
        Vec2::new(24.0, 4.0),
        Vec2::new(60.0, 0.0),
    );
    let me = spawn_character(&mut app, Vec2::new(200.0, 104.0 + FLOAT), false);
    run(&mut app, 120);
    let offset = pos(&app, me) - pos(&app, platform);
    for turn in 0..10 {
        let v = if turn % 2 == 0 { -60.0 } else { 60.0 };
        set_vel(&mut app, platform, Vec2::new(v, 0.0));
        run(&mut app, 60);
        let now = pos(&app, me) - pos(&app, platform);
        assert!(
            (now - offset).length() < 0.01,
            "turn {turn}: {now} from {offset}"
        );
        assert_eq!(ground(&mut app, me).map(|(_, e)| e), Some(platform));
    }
}

/// A one-way platform row at y = 5 (top 96) from x = 128 to 256, over the floor.
fn platform_room() -> TileMap {
    let mut map = floor();
    map.fill(IVec2::new(8, 5), IVec2::new(15, 5), TileKind::OneWay);
    map
}

#[test]
fn a_tnua_character_jumps_up_through_a_one_way_platform_and_lands_on_it() {
    let mut app = tnua_app(platform_room());
    let me = spawn_character(&mut app, Vec2::new(200.0, 16.0 + FLOAT), true);
    run(&mut app, 60);
    // The platform's top is 70 units above the character's centre: a jump of 96.
    for (_, config) in app
        .world_mut()
        .resource_mut::<Assets<ControlsConfig>>()
        .iter_mut()
    {
        config.jump.height = 96.0;
    }
    press(&mut app, |p| p.jump = true);
    run(&mut app, 30);
    press(&mut app, |p| p.jump = false);
    run(&mut app, 90);
    assert!(
        (pos(&app, me).y - (96.0 + FLOAT)).abs() < 0.01,
        "{}",
        pos(&app, me)
    );
    let (_, on) = ground(&mut app, me).unwrap();
    assert!(app.world().get::<TnuaGhostPlatform>(on).is_some(), "{on}");
}

#[test]
fn a_tnua_character_drops_through_a_one_way_platform_on_command() {
    let mut app = tnua_app(platform_room());
    let me = spawn_character(&mut app, Vec2::new(200.0, 96.0 + FLOAT), true);
    run(&mut app, 60);
    assert!(
        (pos(&app, me).y - (96.0 + FLOAT)).abs() < 0.01,
        "it stands on the platform"
    );
    // Down, pressed for a moment: through the platform onto the floor.
    press(&mut app, |p| p.down = true);
    run(&mut app, 3);
    press(&mut app, |p| p.down = false);
    run(&mut app, 90);
    assert!(
        (pos(&app, me).y - (16.0 + FLOAT)).abs() < 0.01,
        "{}",
        pos(&app, me)
    );
    assert!(
        !switches(&mut app, me).drop_through,
        "the switch is off again"
    );
    // Without the helper the platform is ground like any other: it stays on it.
    let mut app = tnua_app(platform_room());
    let me = spawn_character(&mut app, Vec2::new(200.0, 96.0 + FLOAT), false);
    press(&mut app, |p| p.down = true);
    run(&mut app, 90);
    assert!(
        (pos(&app, me).y - (96.0 + FLOAT)).abs() < 0.01,
        "{}",
        pos(&app, me)
    );
}
