//! Thousands of bodies in the benchmark's "pile" scene, with the panel's counters and stage
//! timings. The body count is the first argument (default 4000). Relaxation is on (4 passes):
//! R switches it off and on again, to see the piles sink into themselves without it, and the
//! panel's `relax` stage time what it costs.
//!
//! ```sh
//! cargo run --example stress --features debug -- 8000
//! ```

#[path = "common/mod.rs"]
#[allow(dead_code, reason = "the stress test frames its own camera")]
mod common;
#[path = "../bench/src/scene.rs"]
#[allow(
    dead_code,
    reason = "the stress test uses the scene, not the measurements"
)]
mod pile_scene;

use bevy::prelude::*;
use bevy_platformer_physics::debug::DebugPlugin;
use bevy_platformer_physics::prelude::*;
use common::{ScreenshotAfter, SpritesPlugin, body};

fn main() -> AppExit {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4000);
    App::new()
        .add_plugins(common::window_plugins(&format!("stress, {n} bodies")))
        .add_plugins((
            PhysicsPlugin::default(),
            DebugPlugin::default(),
            SpritesPlugin,
        ))
        .add_plugins(ScreenshotAfter(240))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(PhysicsConfig {
            relaxation_passes: PASSES,
            ..default()
        })
        // Thousands of boxes: keep the panel, drop the per-body overlays.
        .insert_resource(common::quiet_overlays())
        .insert_resource(Pile(n))
        .add_systems(Startup, setup)
        .add_systems(Update, switch_relaxation)
        .add_systems(
            FixedUpdate,
            swing_platforms.before(PhysicsSystems::Integrate),
        )
        .run()
}

#[derive(Resource)]
struct Pile(usize);

/// Relaxation's passes while it is on.
const PASSES: u32 = 4;

/// Counts fixed steps, to reverse the platforms as the benchmark scene does.
#[derive(Component)]
struct Swing(u32);

/// The benchmark scene of `BENCH_SCENE.md` (built by the benchmark's own scene module): floor,
/// walls, platform rows, one-way rows 16 and 40, boxes in a grid, kinematic platforms at
/// y = 60.
fn setup(mut commands: Commands, pile: Res<Pile>) {
    let scene = pile_scene::Scene::pile(pile.0);
    for (i, b) in scene.bodies.iter().enumerate() {
        let color = Color::hsl((i % 360) as f32, 0.6, 0.6);
        commands.spawn((
            body(b.center, b.half, color),
            Velocity(Vec2::new(b.vx, 0.0)),
        ));
    }
    for &p in &scene.platforms {
        commands.spawn((
            body(p, pile_scene::PLATFORM_HALF, Color::srgb(1.0, 0.6, 0.15)),
            Velocity(Vec2::new(pile_scene::PLATFORM_SPEED, 0.0)),
            Kinematic,
            Swing(0),
        ));
    }
    // Show the left end of the pile at a scale where the boxes are visible.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.2,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(500.0, 420.0, 0.0),
    ));
    commands.insert_resource(scene.tile_map());
}

fn swing_platforms(mut platforms: Query<(&mut Velocity, &mut Swing)>) {
    for (mut v, mut s) in &mut platforms {
        s.0 += 1;
        if pile_scene::reverses_after(s.0) {
            v.x = -v.x;
        }
    }
}

/// R switches relaxation off and on.
fn switch_relaxation(keys: Res<ButtonInput<KeyCode>>, mut config: ResMut<PhysicsConfig>) {
    if keys.just_pressed(KeyCode::KeyR) {
        let on = config.relaxation_passes == 0;
        config.relaxation_passes = if on { PASSES } else { 0 };
        info!("relaxation {}", if on { "on" } else { "off" });
    }
}
