//! Gizmo overlays: tiles (slopes outlined), partition cells, bodies, pairs, normals, velocities,
//! push flags (and, on a slope, the ground normal).

use bevy::prelude::*;

use super::{DebugOverlays, DebugSelection, SquishLog};
use crate::body::{Aabb, BodyState, Kinematic, Velocity};
use crate::diagnostics::PhysicsInspector;
use crate::flags::{PushFlags, Side};
use crate::partition::Partition;
use crate::sensors::{Sensor, SensorContents};
use crate::shapes::Shape;
use crate::tiles::{SlopeTile, TileKind, TileMap};

const SOLID: Color = Color::srgb(0.55, 0.55, 0.6);
const ONE_WAY: Color = Color::srgb(0.3, 0.85, 0.9);
const LADDER: Color = Color::srgb(0.8, 0.55, 0.25);
const GRID: Color = Color::srgba(1.0, 1.0, 1.0, 0.06);
const CELL: Color = Color::srgb(0.65, 0.35, 0.95);
const GROUNDED: Color = Color::srgb(0.3, 0.95, 0.4);
const AIRBORNE: Color = Color::srgb(0.45, 0.7, 1.0);
const KINEMATIC: Color = Color::srgb(1.0, 0.6, 0.15);
const INVALID: Color = Color::srgb(1.0, 0.1, 0.1);
const SELECTED: Color = Color::WHITE;
const SQUISHED: Color = Color::srgb(1.0, 0.05, 0.05);
const OVERLAP: Color = Color::srgb(1.0, 0.9, 0.1);
const TOUCH: Color = Color::srgba(1.0, 1.0, 1.0, 0.5);
const NORMAL: Color = Color::srgb(1.0, 0.3, 0.8);
const VELOCITY: Color = Color::srgb(0.95, 0.4, 1.0);
const PUSH_TILE: Color = Color::srgb(1.0, 0.85, 0.0);
const PUSH_OBJECT: Color = Color::srgb(1.0, 0.2, 0.2);
const SENSOR: Color = Color::srgba(0.4, 1.0, 0.8, 0.6);
const SENSOR_HOLDING: Color = Color::srgb(0.4, 1.0, 0.8);

type BodyItem<'a> = (
    Entity,
    &'a Aabb,
    &'a Velocity,
    &'a PushFlags,
    Has<Kinematic>,
    Option<&'a BodyState>,
);

pub(super) fn draw_overlays(
    overlays: Res<DebugOverlays>,
    (selection, squishes): (Res<DebugSelection>, Res<SquishLog>),
    map: Res<TileMap>,
    (partition, inspector): (Res<Partition>, PhysicsInspector),
    bodies: Query<BodyItem>,
    sensors: Query<(&Sensor, &Transform, &SensorContents)>,
    mut gizmos: Gizmos,
) {
    if overlays.sensors {
        for (sensor, transform, contents) in &sensors {
            let shape = sensor.world_shape(transform);
            let holding = !contents.bodies().is_empty();
            draw_shape(
                &mut gizmos,
                &shape,
                if holding { SENSOR_HOLDING } else { SENSOR },
            );
            for body in contents.bodies() {
                if let Ok((_, aabb, ..)) = bodies.get(*body) {
                    gizmos.line_2d(transform.translation.truncate(), aabb.center, SENSOR);
                }
            }
        }
    }
    if overlays.tiles {
        draw_tiles(&map, &mut gizmos);
    }
    if overlays.partition {
        for (cell, list) in partition.cells() {
            if !list.is_empty() {
                let r = partition.cell_rect(cell);
                gizmos.rect_2d(r.center(), r.size() - 2.0, CELL);
            }
        }
    }
    for (entity, aabb, velocity, flags, kinematic, state) in &bodies {
        if !aabb.center.is_finite() {
            continue;
        }
        let (c, h) = (aabb.center, aabb.half_extents.abs());
        if overlays.bodies {
            let color = if selection.0 == Some(entity) {
                SELECTED
            } else if !aabb.is_valid() {
                INVALID
            } else if kinematic {
                KINEMATIC
            } else if flags.on_ground() {
                GROUNDED
            } else {
                AIRBORNE
            };
            gizmos.rect_2d(c, h * 2.0, color);
        }
        // A squished body flashes, whatever overlays are on: a red box around it that fades.
        let flash = squishes.flash(entity);
        if flash > 0.0 {
            let grow = 2.0 + 4.0 * flash;
            gizmos.rect_2d(c, h * 2.0 + grow, SQUISHED.with_alpha(flash));
        }
        if overlays.velocities && velocity.length_squared() > 1.0 {
            gizmos.arrow_2d(c, c + velocity.0 * 0.1, VELOCITY);
        }
        if overlays.push_flags {
            for side in Side::ALL {
                let color = if flags.pushes_object(side) {
                    PUSH_OBJECT
                } else if flags.pushes_tile(side) {
                    PUSH_TILE
                } else {
                    continue;
                };
                let (a, b) = side_segment(c, h, side);
                gizmos.line_2d(a, b, color);
            }
            // On a slope: the ground's normal, from the middle of the feet.
            if let Some(n) = state
                .filter(|s| s.slope().is_some())
                .and_then(BodyState::ground_normal)
            {
                let feet = c - Vec2::new(0.0, h.y);
                gizmos.arrow_2d(feet, feet + n * 10.0, PUSH_TILE);
            }
        }
        // Every body's contacts, from the last detection (whether or not it has `Contacts`).
        for contact in inspector.contacts(entity) {
            if overlays.pairs && entity < contact.other {
                let touching = contact.overlap.x == 0.0 || contact.overlap.y == 0.0;
                let color = if touching { TOUCH } else { OVERLAP };
                gizmos.line_2d(contact.position, contact.other_position, color);
            }
            if overlays.normals {
                // The owner leaves along the axis of least overlap, in the overlap's direction.
                let o = contact.overlap;
                let n = if o.x.abs() <= o.y.abs() {
                    Vec2::new(o.x.signum(), 0.0)
                } else {
                    Vec2::new(0.0, o.y.signum())
                };
                let at = c - n * h;
                gizmos.arrow_2d(at, at + n * 8.0, NORMAL);
            }
        }
    }
}

/// Draws the outline of `shape` (a circle, a box or a rotated rectangle) with gizmos.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_platformer_physics::debug::draw_shape;
/// use bevy_platformer_physics::shapes::{Circle, Shape};
///
/// fn draw(mut gizmos: Gizmos) {
///     let ball = Shape::Circle(Circle { center: Vec2::ZERO, radius: 10.0 });
///     draw_shape(&mut gizmos, &ball, Color::WHITE);
/// }
/// # App::new().add_systems(Update, draw);
/// ```
pub fn draw_shape(gizmos: &mut Gizmos, shape: &Shape, color: Color) {
    if !shape.is_valid() {
        return;
    }
    match *shape {
        Shape::Circle(c) => {
            gizmos.circle_2d(c.center, c.radius, color);
        }
        Shape::Box(b) => {
            gizmos.rect_2d(b.center, b.half_extents * 2.0, color);
        }
        Shape::Rotated(r) => {
            let iso = Isometry2d::new(r.center, Rot2::radians(r.rotation));
            gizmos.rect_2d(iso, r.half_extents * 2.0, color);
        }
    }
}

fn draw_tiles(map: &TileMap, gizmos: &mut Gizmos) {
    let size = map.tile_size();
    let bounds = map.bounds();
    if bounds.is_empty() {
        return;
    }
    gizmos.grid_2d(
        bounds.center(),
        UVec2::new(map.width(), map.height()),
        Vec2::splat(size),
        GRID,
    );
    for y in 0..map.height() as i32 {
        for x in 0..map.width() as i32 {
            let (min, max) = map.tile_rect(x, y);
            match map.get(x, y) {
                TileKind::Empty => {}
                TileKind::Solid => gizmos.rect_2d((min + max) / 2.0, max - min - 1.0, SOLID),
                TileKind::OneWay => {
                    gizmos.line_2d(Vec2::new(min.x, max.y - 1.0), max - Vec2::Y, ONE_WAY);
                }
                TileKind::Ladder => {
                    gizmos.line_2d(
                        Vec2::new(min.x + 3.0, min.y),
                        Vec2::new(min.x + 3.0, max.y),
                        LADDER,
                    );
                    gizmos.line_2d(
                        Vec2::new(max.x - 3.0, min.y),
                        Vec2::new(max.x - 3.0, max.y),
                        LADDER,
                    );
                    if map.is_one_way_top(x, y) {
                        gizmos.line_2d(Vec2::new(min.x, max.y - 1.0), max - Vec2::Y, ONE_WAY);
                    }
                }
                kind => {
                    // A slope: its solid part's outline.
                    let Some(slope) = kind.slope() else {
                        continue;
                    };
                    let tile = SlopeTile { slope, min, max };
                    let polygon = tile.polygon();
                    let corners = polygon.corners();
                    for (i, &a) in corners.iter().enumerate() {
                        gizmos.line_2d(a, corners[(i + 1) % corners.len()], SOLID);
                    }
                }
            }
        }
    }
}

/// The segment of a box's `side`, inset a little so it reads over the box outline.
fn side_segment(c: Vec2, h: Vec2, side: Side) -> (Vec2, Vec2) {
    let i = 1.5;
    match side {
        Side::Left => (
            Vec2::new(c.x - h.x + i, c.y - h.y),
            Vec2::new(c.x - h.x + i, c.y + h.y),
        ),
        Side::Right => (
            Vec2::new(c.x + h.x - i, c.y - h.y),
            Vec2::new(c.x + h.x - i, c.y + h.y),
        ),
        Side::Top => (
            Vec2::new(c.x - h.x, c.y + h.y - i),
            Vec2::new(c.x + h.x, c.y + h.y - i),
        ),
        Side::Bottom => (
            Vec2::new(c.x - h.x, c.y - h.y + i),
            Vec2::new(c.x + h.x, c.y - h.y + i),
        ),
    }
}
