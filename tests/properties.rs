//! Property tests of the whole step: no body ends a step inside a solid tile, whatever the map,
//! sizes and speeds, with relaxation off (the default) or on, and with bodies spread over the
//! map or heaped in one spot.

use bevy::prelude::*;
use proptest::prelude::*;

use crate::common::*;

/// A random 16 x 12 map with a solid border.
fn arb_map() -> impl Strategy<Value = TileMap> {
    prop::collection::vec(0u8..10, 16 * 12).prop_map(|cells| {
        let mut map = empty_map(16, 12);
        for (i, c) in cells.into_iter().enumerate() {
            let (x, y) = ((i % 16) as i32, (i / 16) as i32);
            let border = x == 0 || y == 0 || x == 15 || y == 11;
            let kind = match c {
                _ if border => TileKind::Solid,
                0 | 1 => TileKind::Solid,
                2 => TileKind::OneWay,
                3 => TileKind::Ladder,
                _ => TileKind::Empty,
            };
            map.set(x, y, kind);
        }
        map
    })
}

#[derive(Clone, Debug)]
struct BodySpec {
    cell: (i32, i32),
    offset: Vec2,
    half: Vec2,
    velocity: Vec2,
}

fn arb_body() -> impl Strategy<Value = BodySpec> {
    (
        (1i32..15, 1i32..11),
        (-4.0f32..4.0, -4.0f32..4.0),
        (0.5f32..7.5, 0.5f32..7.5),
        (-3000.0f32..3000.0, -3000.0f32..3000.0),
    )
        .prop_map(|(cell, (ox, oy), (hx, hy), (vx, vy))| BodySpec {
            cell,
            offset: Vec2::new(ox, oy),
            half: Vec2::new(hx, hy),
            velocity: Vec2::new(vx, vy),
        })
}

/// The deepest overlap of the box with any solid tile (<= 0 when clear).
fn solid_overlap(map: &TileMap, a: &Aabb) -> f32 {
    let mut worst = f32::MIN;
    for y in 0..map.height() as i32 {
        for x in 0..map.width() as i32 {
            if map.get(x, y) != TileKind::Solid {
                continue;
            }
            let (min, max) = map.tile_rect(x, y);
            let ox = a.max().x.min(max.x) - a.min().x.max(min.x);
            let oy = a.max().y.min(max.y) - a.min().y.max(min.y);
            worst = worst.max(ox.min(oy));
        }
    }
    worst
}

/// Runs 40 steps of `bodies` in `map` (each body starting in its cell, with that cell and its
/// neighbours cleared) with `passes` relaxation passes, and checks after every step that no body
/// is inside a solid tile or anywhere but at a finite place.
fn no_body_inside_a_solid_tile(
    mut map: TileMap,
    bodies: &[BodySpec],
    gravity: bool,
    passes: u32,
) -> Result<(), TestCaseError> {
    for b in bodies {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (x, y) = (b.cell.0 + dx, b.cell.1 + dy);
                if x > 0 && y > 0 && x < 15 && y < 11 {
                    map.set(x, y, TileKind::Empty);
                }
            }
        }
    }
    let mut app = if gravity {
        app(map.clone())
    } else {
        app_without_gravity(map.clone())
    };
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .relaxation_passes = passes;
    let entities: Vec<Entity> = bodies
        .iter()
        .map(|b| {
            let center = Vec2::new(b.cell.0 as f32, b.cell.1 as f32) * 16.0 + 8.0 + b.offset;
            spawn(&mut app, center, b.half, b.velocity)
        })
        .collect();
    for s in 0..40 {
        step(&mut app, 1);
        for &e in &entities {
            let a = aabb(&app, e);
            let depth = solid_overlap(&map, &a);
            prop_assert!(
                depth <= 0.01,
                "step {s}: {a:?} overlaps a solid tile by {depth}\nmap:\n{}\nbodies: \
                 {bodies:?}\ngravity {gravity}, {passes} relaxation passes",
                ascii_of(&map)
            );
            prop_assert!(a.center.is_finite());
        }
    }
    Ok(())
}

/// Bodies heaped around one cell (the cell and its neighbours), deep inside each other.
fn arb_heap() -> impl Strategy<Value = Vec<BodySpec>> {
    (
        (2i32..14, 2i32..10),
        prop::collection::vec(arb_body(), 2..16),
    )
        .prop_map(|((cx, cy), mut bodies)| {
            for (i, b) in bodies.iter_mut().enumerate() {
                b.cell = (cx + (i as i32 % 3) - 1, cy + (i as i32 / 3 % 3) - 1);
            }
            bodies
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_body_ends_a_step_inside_a_solid_tile(
        map in arb_map(),
        bodies in prop::collection::vec(arb_body(), 1..12),
        gravity in prop::bool::ANY,
        passes in prop_oneof![Just(0u32), Just(4)],
    ) {
        no_body_inside_a_solid_tile(map, &bodies, gravity, passes)?;
    }

    #[test]
    fn no_body_of_a_heap_ends_a_step_inside_a_solid_tile(
        map in arb_map(),
        bodies in arb_heap(),
        gravity in prop::bool::ANY,
        passes in prop_oneof![Just(0u32), Just(1), Just(4)],
    ) {
        no_body_inside_a_solid_tile(map, &bodies, gravity, passes)?;
    }
}
