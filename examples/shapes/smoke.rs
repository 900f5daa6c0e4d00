//! The shapes tool's window test: with `SHAPES_SMOKE=<png>` it runs one fixed step a frame,
//! drags the circle onto the box with a scripted pointer, turns the rectangle with one wheel
//! notch, takes a screenshot, checks the picture and the world, saves the PNG, prints
//! `SMOKE OK` or `SMOKE FAIL` and exits 0 or 1.

use std::path::PathBuf;

use bevy::input::InputSystems;
use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_platformer_physics::prelude::*;

use super::Collisions;

const GRAB: u32 = 5;
const DROP: u32 = 36;
const TURN: u32 = 40;
const SHOOT: u32 = 120;
const GIVE_UP: u32 = 600;
/// The circle's centre at the start and where the script drops it (overlapping the box).
const FROM: Vec2 = Vec2::new(340.0, 380.0);
const TO: Vec2 = Vec2::new(560.0, 380.0);

/// Replaces the mouse pointer while the script runs.
#[derive(Resource, Default)]
pub struct ScriptedPointer(pub Option<Vec2>);

#[derive(Resource)]
struct Script {
    frame: u32,
    shot: PathBuf,
    shooting: bool,
    entries: usize,
}

/// The environment variable that asks for this window test and names its screenshot.
pub const VARIABLE: &str = "SHAPES_SMOKE";

/// Plays the script, then checks and saves the screenshot to `shot`.
pub fn install(app: &mut App, shot: PathBuf) {
    app.init_resource::<ScriptedPointer>()
        .insert_resource(Script {
            frame: 0,
            shot,
            shooting: false,
            entries: 0,
        })
        .add_systems(PreUpdate, play_script.after(InputSystems))
        .add_systems(Update, count_entries);
}

fn play_script(
    mut commands: Commands,
    mut script: ResMut<Script>,
    mut mouse: ResMut<ButtonInput<MouseButton>>,
    mut scroll: ResMut<AccumulatedMouseScroll>,
    mut pointer: ResMut<ScriptedPointer>,
    mut exit: MessageWriter<AppExit>,
) {
    script.frame += 1;
    let f = script.frame;
    // The left button stays down from the grab to the drop, the pointer moving with it.
    match f {
        GRAB => mouse.press(MouseButton::Left),
        DROP => mouse.release(MouseButton::Left),
        _ => mouse.clear(),
    }
    let along = (f.saturating_sub(GRAB) as f32 / (DROP - 1 - GRAB) as f32).min(1.0);
    pointer.0 = Some(FROM.lerp(TO, along));
    if f == TURN {
        scroll.delta = Vec2::Y;
    }
    if f == SHOOT && !script.shooting {
        script.shooting = true;
        commands
            .spawn(Screenshot::primary_window())
            .observe(check_and_save);
    }
    if f == GIVE_UP {
        println!("SMOKE FAIL: no screenshot arrived within {GIVE_UP} frames");
        exit.write(AppExit::from_code(1));
    }
}

fn count_entries(mut script: ResMut<Script>, mut entered: MessageReader<SensorEntered>) {
    script.entries += entered.read().count();
}

/// Checks the screenshot and the world, saves the PNG, and ends the app with the verdict.
fn check_and_save(
    captured: On<ScreenshotCaptured>,
    script: Res<Script>,
    collisions: Res<Collisions>,
    shapes: Query<(&Sensor, &Transform)>,
    mut exit: MessageWriter<AppExit>,
) {
    let mut failures = Vec::new();
    let image = &captured.image;
    let (w, h) = (image.width(), image.height());
    let background = super::common::rgb(super::common::BACKGROUND);
    let (mut red, mut back, mut sampled) = (0u32, 0u32, 0u32);
    for y in (0..h).step_by(2) {
        for x in (0..w).step_by(2) {
            let p = super::common::pixel(image, x, y);
            sampled += 1;
            red += (p[0] > 120 && p[1] < 70 && p[2] < 70) as u32;
            back += super::common::near(p, background, 12) as u32;
        }
    }
    let share = |n: u32| 100.0 * n as f32 / sampled.max(1) as f32;
    if w < 640 || h < 360 {
        failures.push(format!("screenshot is {w} x {h}"));
    }
    if share(red) < 1.0 {
        failures.push(format!("no red shapes: {:.2}% red pixels", share(red)));
    }
    if share(back) < 40.0 {
        failures.push(format!("background not drawn: {:.1}%", share(back)));
    }
    let colliding = collisions.0.iter().filter(|&&c| c).count();
    if colliding < 2 {
        failures.push(format!("{colliding} shapes collide after the drag"));
    }
    let mut circle_at = None;
    let mut turned = None;
    for (sensor, t) in &shapes {
        match sensor.shape {
            SensorShape::Circle { .. } => circle_at = Some(t.translation.truncate()),
            SensorShape::RotatedRect { .. } => {
                turned = Some((t.rotation * Vec3::X).truncate().to_angle());
            }
            SensorShape::Box { .. } => {}
        }
    }
    if circle_at.is_none_or(|c| c.distance(TO) > 1.0) {
        failures.push(format!("the circle was not dragged to {TO}: {circle_at:?}"));
    }
    let expected = 0.5 + core::f32::consts::TAU / 16.0;
    if turned.is_none_or(|a| (a - expected).abs() > 1e-3) {
        failures.push(format!("the wheel did not turn the rectangle: {turned:?}"));
    }
    if script.entries == 0 {
        failures.push("no crate entered a sensor".into());
    }
    let summary = format!(
        "{w}x{h}, red {:.1}%, background {:.1}%, {colliding} shapes colliding, circle at \
         {circle_at:?}, rectangle at {turned:?} rad, {} sensor entries",
        share(red),
        share(back),
        script.entries,
    );
    super::common::smoke_verdict(
        captured,
        script.shot.clone(),
        &failures,
        &summary,
        &mut exit,
    );
}
