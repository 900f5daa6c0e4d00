//! Article 002's "Collision Test" tool, rebuilt: drag a circle, a box and a rotated rectangle
//! with the left mouse button, turn the rectangle with the wheel. A shape turns red while it
//! collides with another one; the points of the box and the rectangle closest to the circle's
//! centre are drawn. The three shapes are also [`Sensor`]s: crates raining through them are
//! outlined in yellow while inside.
//!
//! ```sh
//! cargo run --example shapes --features debug
//! ```

#[allow(dead_code, reason = "shared helpers the shapes tool does not use")]
#[path = "common/mod.rs"]
mod common;
#[path = "shapes/smoke.rs"]
mod smoke;

use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_platformer_physics::debug::{cursor_world_position, draw_shape};
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::shapes::Shape;

const TILE: f32 = 16.0;
const SHAPE: Color = Color::srgba(0.85, 0.9, 1.0, 0.35);
const HIT: Color = Color::srgba(1.0, 0.15, 0.1, 0.6);
const CLOSEST: Color = Color::srgb(1.0, 0.85, 0.1);
const CRATE: Color = Color::srgb(0.55, 0.45, 0.3);
const INSIDE: Color = Color::srgb(1.0, 0.9, 0.2);
const CRATES: usize = 40;

/// One of the three shapes the tool drags; its colour shows whether it collides.
#[derive(Component)]
struct Draggable {
    material: Handle<ColorMaterial>,
}

/// The shape being dragged and where it was grabbed.
#[derive(Resource, Default)]
struct Drag(Option<(Entity, Vec2)>);

/// The pointer in the world this frame: the mouse, or the window test's script.
#[derive(Resource, Default)]
pub struct Pointer(pub Option<Vec2>);

/// Which shapes collide with another one, in spawn order (circle, box, rectangle).
#[derive(Resource, Default)]
pub struct Collisions(pub Vec<bool>);

#[derive(Component)]
struct Crate;

fn main() -> AppExit {
    let mut app = App::new();
    app.add_plugins(common::window_plugins("shapes"))
        .add_plugins(PhysicsPlugin::default())
        .insert_resource(TileMap::new(80, 45, TILE))
        .insert_resource(ClearColor(common::BACKGROUND))
        .init_resource::<Drag>()
        .init_resource::<Pointer>()
        .init_resource::<Collisions>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                read_pointer,
                (drag, turn),
                collide_shapes,
                draw_closest_points,
                draw_crates,
            )
                .chain(),
        )
        .add_systems(FixedUpdate, rain.before(PhysicsSystems::Integrate));
    if let Some(shot) = common::window_test_shot(&mut app, smoke::VARIABLE) {
        smoke::install(&mut app, shot);
    }
    app.run()
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn((Camera2d, Transform::from_xyz(640.0, 360.0, 0.0)));
    let mut spawn = |sensor: Sensor, mesh: Mesh, at: Vec2, angle: f32| {
        let material = materials.add(SHAPE);
        commands.spawn((
            sensor,
            Draggable {
                material: material.clone(),
            },
            Mesh2d(meshes.add(mesh)),
            MeshMaterial2d(material),
            Transform::from_translation(at.extend(1.0)).with_rotation(Quat::from_rotation_z(angle)),
        ));
    };
    spawn(
        Sensor::circle(70.0),
        Circle::new(70.0).into(),
        Vec2::new(340.0, 380.0),
        0.0,
    );
    spawn(
        Sensor::rectangle(Vec2::new(90.0, 60.0)),
        Rectangle::new(180.0, 120.0).into(),
        Vec2::new(640.0, 380.0),
        0.0,
    );
    spawn(
        Sensor::rotated_rect(Vec2::new(130.0, 35.0)),
        Rectangle::new(260.0, 70.0).into(),
        Vec2::new(960.0, 380.0),
        0.5,
    );
    for i in 0..CRATES {
        let x = 40.0 + (i as f32 * 397.0) % 1200.0;
        let y = 420.0 + (i as f32 * 173.0) % 280.0;
        let half = Vec2::splat(5.0 + (i % 3) as f32);
        commands.spawn((Crate, common::body(Vec2::new(x, y), half, CRATE)));
    }
    commands.spawn((
        Text::new(
            "left drag: move a shape   wheel: turn the rectangle\n\
             red: colliding   yellow dots: closest points to the circle   \
             yellow crates: inside a shape (sensors)",
        ),
        TextFont::from_font_size(16.0),
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(12.0),
            top: Val::Px(8.0),
            ..default()
        },
    ));
}

/// The pointer: the script's while the window test runs, else the mouse.
fn read_pointer(
    window: Single<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform)>,
    scripted: Option<Res<smoke::ScriptedPointer>>,
    mut pointer: ResMut<Pointer>,
) {
    pointer.0 = match scripted {
        Some(s) => s.0,
        None => cursor_world_position(&window, &cameras),
    };
}

/// Press on a shape to grab it (the smallest under the pointer), move, release to drop.
fn drag(
    buttons: Res<ButtonInput<MouseButton>>,
    pointer: Res<Pointer>,
    mut drag: ResMut<Drag>,
    mut shapes: Query<(Entity, &Sensor, &mut Transform), With<Draggable>>,
) {
    let Some(p) = pointer.0 else { return };
    if buttons.just_pressed(MouseButton::Left) {
        drag.0 = shapes
            .iter()
            .map(|(e, sensor, t)| (e, sensor.world_shape(t), t.translation.truncate()))
            .filter(|(_, shape, _)| shape.contains(p))
            .min_by(|a, b| area(&a.1).total_cmp(&area(&b.1)))
            .map(|(e, _, at)| (e, at - p));
    }
    if !buttons.pressed(MouseButton::Left) {
        drag.0 = None;
    }
    if let Some((e, offset)) = drag.0
        && let Ok((_, _, mut t)) = shapes.get_mut(e)
    {
        let to = p + offset;
        t.translation.x = to.x;
        t.translation.y = to.y;
    }
}

fn area(shape: &Shape) -> f32 {
    match shape {
        Shape::Circle(c) => core::f32::consts::PI * c.radius * c.radius,
        Shape::Box(b) => 4.0 * b.half_extents.element_product(),
        Shape::Rotated(r) => 4.0 * r.half_extents.element_product(),
    }
}

/// The wheel turns the rotated rectangle, a sixteenth of a turn per notch.
fn turn(scroll: Res<AccumulatedMouseScroll>, mut shapes: Query<(&Sensor, &mut Transform)>) {
    if scroll.delta.y == 0.0 {
        return;
    }
    for (sensor, mut t) in &mut shapes {
        if matches!(sensor.shape, SensorShape::RotatedRect { .. }) {
            t.rotate_z(scroll.delta.y.signum() * core::f32::consts::TAU / 16.0);
        }
    }
}

/// Each shape against the others; red while it collides.
fn collide_shapes(
    shapes: Query<(&Sensor, &Transform, &Draggable)>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut collisions: ResMut<Collisions>,
) {
    let placed: Vec<(Shape, &Draggable)> = shapes
        .iter()
        .map(|(s, t, d)| (s.world_shape(t), d))
        .collect();
    collisions.0 = (0..placed.len())
        .map(|i| (0..placed.len()).any(|j| i != j && placed[i].0.overlaps(&placed[j].0)))
        .collect();
    for ((_, d), &hit) in placed.iter().zip(&collisions.0) {
        if let Some(mut m) = materials.get_mut(&d.material) {
            let color = if hit { HIT } else { SHAPE };
            if m.color != color {
                m.color = color;
            }
        }
    }
}

/// From the circle's centre to the closest point of each other shape (article 002's picture).
fn draw_closest_points(shapes: Query<(&Sensor, &Transform)>, mut gizmos: Gizmos) {
    let placed: Vec<Shape> = shapes.iter().map(|(s, t)| s.world_shape(t)).collect();
    for shape in &placed {
        draw_shape(&mut gizmos, shape, Color::WHITE);
    }
    for circle in placed.iter().filter_map(|s| match s {
        Shape::Circle(c) => Some(c),
        _ => None,
    }) {
        for other in placed.iter().filter(|s| !matches!(s, Shape::Circle(_))) {
            let p = other.closest_point(circle.center);
            gizmos.line_2d(circle.center, p, CLOSEST);
            gizmos.circle_2d(p, 5.0, CLOSEST);
        }
    }
}

/// Crates inside a shape are outlined.
fn draw_crates(
    shapes: Query<&SensorContents>,
    crates: Query<&Aabb, With<Crate>>,
    mut gizmos: Gizmos,
) {
    for body in shapes.iter().flat_map(|c| c.bodies()) {
        if let Ok(aabb) = crates.get(*body) {
            gizmos.rect_2d(aabb.center, aabb.size() + 4.0, INSIDE);
        }
    }
}

/// Crates that fall out of the bottom come back at the top.
fn rain(mut crates: Query<(&mut Aabb, &mut Velocity), With<Crate>>, mut seed: Local<u32>) {
    for (mut aabb, mut v) in &mut crates {
        if aabb.min().y < TILE {
            *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            aabb.center = Vec2::new(40.0 + (*seed >> 8) as f32 % 1200.0, 700.0);
            v.0 = Vec2::ZERO;
        }
    }
}
