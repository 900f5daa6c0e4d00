//! Property tests on random maps with slopes of every kind: bodies of the slope tests' sizes
//! falling up to 64 tiles a step, walking both ways, pushed by kinematic bodies, near the origin
//! and far from it. After every step no body floats (its fall stopped with nothing under it),
//! none is inside a solid tile or a slope's solid part, and none is below a one-way top or
//! one-way slope it stood on when the step began.

use bevy::prelude::*;

use bevy_platformer_physics::tiles::SlopeTile;

use crate::common::*;

/// Overlaps smaller than this are touching (positions far from the origin round to a few
/// thousandths).
const TOLERANCE: f32 = 0.01;

/// The box sizes the slope tests use, and a few more.
const SIZES: [Vec2; 7] = [
    Vec2::new(3.0, 9.0),
    Vec2::new(5.0, 2.0),
    Vec2::new(12.0, 4.0),
    Vec2::new(6.0, 6.0),
    Vec2::new(3.0, 3.0),
    Vec2::new(6.0, 10.0),
    Vec2::new(20.0, 5.0),
];

/// A 24 x 14 map: a solid floor, ramps of every floor slope kind (solid or one-way) with solid
/// under them, and floating tiles of every kind (solid, one-way, ladders, every slope).
fn random_map(u: &mut impl FnMut() -> f32, origin: Vec2) -> TileMap {
    use TileKind::*;
    let mut map = empty_map(24, 14).with_origin(origin);
    map.fill(IVec2::new(0, 0), IVec2::new(23, 0), Solid);
    let floors = [
        SlopeRight,
        SlopeLeft,
        SlopeRightLow,
        SlopeRightHigh,
        SlopeLeftHigh,
        SlopeLeftLow,
        OneWaySlopeRight,
        OneWaySlopeLeft,
        OneWaySlopeRightLow,
        OneWaySlopeRightHigh,
        OneWaySlopeLeftHigh,
        OneWaySlopeLeftLow,
    ];
    let mut x = 1;
    while x < 23 {
        let height = 1 + (u() * 3.0) as i32;
        map.fill(IVec2::new(x, 1), IVec2::new(x, height - 1), Solid);
        if u() < 0.6 {
            map.set(x, height, floors[(u() * floors.len() as f32) as usize]);
        }
        x += 1 + (u() * 2.0) as i32;
    }
    let every: Vec<TileKind> = TileKind::CHARS.iter().map(|&(_, k)| k).collect();
    for _ in 0..10 {
        let (tx, ty) = ((u() * 24.0) as i32, 5 + (u() * 8.0) as i32);
        map.set(tx, ty, every[1 + (u() * (every.len() - 1) as f32) as usize]);
    }
    map
}

/// The one-way tops and one-way slopes the box's feet rest on (within the tolerance): their tile
/// coordinates.
fn one_ways_under(map: &TileMap, b: &Aabb) -> Vec<IVec2> {
    let feet = b.min().y;
    let (lo, hi) = (
        map.tile_at(Vec2::new(b.min().x, feet - 1.0)),
        map.tile_at(Vec2::new(b.max().x, feet)),
    );
    let mut found = Vec::new();
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            if let Some(surface) = one_way_surface(map, IVec2::new(x, y), b)
                && (feet - surface).abs() <= TOLERANCE
            {
                found.push(IVec2::new(x, y));
            }
        }
    }
    found
}

/// The height at which the one-way top or one-way slope at `tile` holds the box (its uphill end
/// on a slope), if it is one and lies under the box (by more than the tolerance).
fn one_way_surface(map: &TileMap, tile: IVec2, b: &Aabb) -> Option<f32> {
    let (tmin, tmax) = map.tile_rect(tile.x, tile.y);
    let (lo, hi) = (b.min().x + TOLERANCE, b.max().x - TOLERANCE);
    if hi <= tmin.x || lo >= tmax.x {
        return None;
    }
    let kind = map.get(tile.x, tile.y);
    match kind.slope() {
        Some(slope) if slope.one_way => SlopeTile {
            slope,
            min: tmin,
            max: tmax,
        }
        .support(lo, hi),
        None if kind == TileKind::OneWay => Some(tmax.y),
        _ => None,
    }
}

/// Whether anything holds the box's feet: a tile's top face or a floor slope's surface under
/// them, or the top of one of `others`, within the tolerance.
fn ground_under(map: &TileMap, b: &Aabb, others: &[Aabb]) -> bool {
    let (feet, lo, hi) = (b.min().y, b.min().x, b.max().x);
    let near = |top: f32| (feet - top).abs() <= TOLERANCE;
    let (first, last) = (
        map.tile_at(Vec2::new(lo, feet - 1.0)),
        map.tile_at(Vec2::new(hi, feet + 1.0)),
    );
    let tiles = (first.y..=last.y).any(|y| {
        (first.x..=last.x).any(|x| {
            let kind = map.get(x, y);
            let (tmin, tmax) = map.tile_rect(x, y);
            if kind == TileKind::Empty || hi < tmin.x || lo > tmax.x {
                return false;
            }
            match kind.slope() {
                Some(slope) if !slope.ceiling => SlopeTile {
                    slope,
                    min: tmin,
                    max: tmax,
                }
                .support(b.min().x, b.max().x)
                .is_some_and(near),
                _ => near(tmax.y),
            }
        })
    });
    tiles
        || others
            .iter()
            .any(|o| o.max().x >= lo && o.min().x <= hi && near(o.max().y) && o.center != b.center)
}

/// Whether the box is below the surface of a one-way tile it stood on (`stood_on`).
fn below_one_way(map: &TileMap, b: &Aabb, stood_on: &[IVec2]) -> Option<(IVec2, f32)> {
    stood_on.iter().find_map(|&tile| {
        let surface = one_way_surface(map, tile, b)?;
        (b.min().y < surface - TOLERANCE).then_some((tile, surface))
    })
}

/// A random scene: its map, its bodies (with the horizontal speed each walks at, if any) and a
/// kinematic body.
fn run_scene(case: u32, origin: Vec2) {
    let mut u = unit_floats(0x5C0E_0000 + case);
    let map = random_map(&mut u, origin);
    let mut app = app(map.clone());
    let mut bodies = Vec::new();
    let free = |c: Vec2, h: Vec2| {
        let b = Aabb::new(c, h);
        let (lo, hi) = (map.tile_at(b.min()), map.tile_at(b.max()));
        (lo.y..=hi.y).all(|y| (lo.x..=hi.x).all(|x| map.get(x, y) == TileKind::Empty))
            && b.min().x > origin.x
            && b.max().x < origin.x + 24.0 * 16.0
    };
    while bodies.len() < 3 {
        let half = SIZES[(u() * SIZES.len() as f32) as usize];
        let center = origin + Vec2::new(u() * 384.0, 40.0 + u() * 160.0);
        if !free(center, half) {
            continue;
        }
        let fall = match (u() * 3.0) as u32 {
            0 => 0.0,
            1 => u() * 600.0,
            _ => u() * 64.0 * 16.0 / DT,
        };
        let walk = match (u() * 4.0) as u32 {
            0 => 0.0,
            1 => (u() - 0.5) * 2.0 * 8.0 * 16.0 / DT,
            _ => (u() - 0.5) * 2.0 * 300.0,
        };
        let e = spawn(&mut app, center, half, Vec2::new(walk, -fall));
        // Now and then a controller's body without friction, or one that slides on slopes.
        let (friction, walk_slopes) = (u() > 0.25, u() > 0.2);
        let mut s = switches(&mut app, e);
        (s.friction, s.walk_slopes) = (friction, walk_slopes);
        bodies.push((e, walk));
    }
    if u() < 0.5 {
        let center = origin + Vec2::new(u() * 384.0, 40.0 + u() * 120.0);
        let v = if u() < 0.5 {
            Vec2::new((u() - 0.5) * 200.0, 0.0)
        } else {
            Vec2::new(0.0, -20.0 - u() * 60.0)
        };
        spawn_kinematic(&mut app, center, Vec2::new(8.0, 6.0), v);
    }
    let scene = || format!("case {case} origin {origin}\n{}", ascii_of(&map));
    for i in 0..90 {
        // What each body stood on when the step began (by its flags, or by where it is: a
        // body another pushed back onto a ledge after tile collision stands there unflagged).
        let all: Vec<Aabb> = (app.world_mut().query::<&Aabb>())
            .iter(app.world())
            .copied()
            .collect();
        let before: Vec<(Vec<IVec2>, bool)> = (bodies.iter())
            .map(|&(e, _)| {
                let b = aabb(&app, e);
                let grounded = flags(&app, e).on_ground() || ground_under(&map, &b, &all);
                (one_ways_under(&map, &b), grounded)
            })
            .collect();
        for &(e, walk) in &bodies {
            if walk != 0.0 {
                let vy = vel(&app, e).y;
                set_vel(&mut app, e, Vec2::new(walk, vy));
            }
        }
        step(&mut app, 1);
        let boxes: Vec<Aabb> = (app.world_mut().query::<&Aabb>())
            .iter(app.world())
            .copied()
            .collect();
        for (&(e, _), (stood_on, grounded)) in bodies.iter().zip(&before) {
            let (b, v, f) = (aabb(&app, e), vel(&app, e), flags(&app, e));
            // A body another body pushed after tile collision may end anywhere that push put
            // it (the response's own rules); the rest never float.
            let pushed = [Side::Left, Side::Right, Side::Top, Side::Bottom]
                .into_iter()
                .any(|side| f.pushes_object(side));
            let held = ground_under(&map, &b, &boxes) || f.pushes(Side::Top) || pushed;
            assert!(
                v.y != 0.0 || held || *grounded,
                "step {i}: {b:?} floats, velocity {v}: {}",
                scene()
            );
            let depth = depth_in_tiles(&map, &b);
            assert!(
                depth <= TOLERANCE,
                "step {i}: {b:?} {depth} inside a tile: {}",
                scene()
            );
            if let Some((tile, surface)) = below_one_way(&map, &b, stood_on) {
                panic!(
                    "step {i}: {b:?} below the one-way at {tile} it stood on ({surface}): {}",
                    scene()
                );
            }
        }
    }
}

#[test]
fn random_landings_and_walks_on_slopes_never_float_sink_or_pass_under_what_held_them() {
    for case in 0..600 {
        run_scene(case, Vec2::ZERO);
    }
}

#[test]
fn the_same_far_from_the_origin() {
    for case in 0..600 {
        run_scene(case, Vec2::new(17152.0, 4352.0));
    }
}
