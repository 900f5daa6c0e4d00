//! Thousands of bodies in the benchmark's "pile" scene, with the panel's counters and stage
//! timings. The body count is the first argument (default 4000).
//!
//! ```sh
//! cargo run --example stress --features debug -- 8000
//! ```

#[path = "common/mod.rs"]
#[allow(dead_code, reason = "the stress test frames its own camera")]
mod common;

use bevy::prelude::*;
use bevy_platformer_physics::debug::{DebugOverlays, DebugPlugin};
use bevy_platformer_physics::prelude::*;
use common::{ScreenshotAfter, SpritesPlugin, body};

fn main() -> AppExit {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4000);
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: format!("bevy_platformer_physics: stress, {n} bodies"),
                resolution: (common::WINDOW.x as u32, common::WINDOW.y as u32).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            PhysicsPlugin::default(),
            DebugPlugin::default(),
            SpritesPlugin,
        ))
        .add_plugins(ScreenshotAfter(240))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // Thousands of boxes: keep the panel, drop the per-body overlays.
        .insert_resource(DebugOverlays {
            tiles: false,
            partition: false,
            bodies: false,
            pairs: false,
            push_flags: false,
            ..default()
        })
        .insert_resource(Pile(n))
        .add_systems(Startup, setup)
        .add_systems(
            FixedUpdate,
            swing_platforms.before(PhysicsSystems::Integrate),
        )
        .run()
}

#[derive(Resource)]
struct Pile(usize);

/// Counts fixed steps, to reverse the platforms as the benchmark scene does.
#[derive(Component)]
struct Swing(u32);

/// The benchmark scene of `BENCH_SCENE.md`: floor, walls, platform rows, one-way rows 16 and
/// 40, boxes in a grid, kinematic platforms swinging at y = 60.
fn setup(mut commands: Commands, pile: Res<Pile>) {
    let n = pile.0;
    let (w, h) = ((n / 8).max(64) as i32, 64);
    let mut map = TileMap::new(w as u32, h as u32, 16.0);
    map.fill(IVec2::new(0, 0), IVec2::new(w - 1, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, h - 1), TileKind::Solid);
    map.fill(
        IVec2::new(w - 1, 0),
        IVec2::new(w - 1, h - 1),
        TileKind::Solid,
    );
    for y in [8, 16, 24, 32, 40, 48] {
        let kind = if y == 16 || y == 40 {
            TileKind::OneWay
        } else {
            TileKind::Solid
        };
        let mut x0 = 4 + (y / 8 % 2) * 12;
        while x0 + 11 < w - 1 {
            map.fill(IVec2::new(x0, y), IVec2::new(x0 + 11, y), kind);
            x0 += 24;
        }
    }
    let mut x: u32 = 0x9E37_79B9;
    let mut u = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x as f32 / 4_294_967_296.0
    };
    let columns = ((w - 4) / 2) as usize;
    for i in 0..n {
        let half = Vec2::new(4.0 + 8.0 * u(), 4.0 + 8.0 * u());
        let vx = -100.0 + 200.0 * u();
        let (c, l) = (i % columns, i / columns);
        let center = Vec2::new(
            (2 + 2 * c) as f32 * 16.0 + 8.0,
            (4 + 2 * l) as f32 * 16.0 + 8.0,
        );
        let hue = (i % 360) as f32;
        commands.spawn((
            body(center, half, Color::hsl(hue, 0.6, 0.6)),
            Velocity(Vec2::new(vx, 0.0)),
        ));
    }
    let platforms = (n / 50).max(1);
    for j in 0..platforms {
        let x = 112.0 + (j as f32 + 0.5) * (w as f32 * 16.0 - 224.0) / platforms as f32;
        commands.spawn((
            body(
                Vec2::new(x, 60.0),
                Vec2::new(24.0, 4.0),
                Color::srgb(1.0, 0.6, 0.15),
            ),
            Velocity(Vec2::new(80.0, 0.0)),
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
    commands.insert_resource(map);
}

fn swing_platforms(mut platforms: Query<(&mut Velocity, &mut Swing)>) {
    for (mut v, mut s) in &mut platforms {
        s.0 += 1;
        if s.0 == 60 || (s.0 > 60 && (s.0 - 60) % 120 == 0) {
            v.x = -v.x;
        }
    }
}
