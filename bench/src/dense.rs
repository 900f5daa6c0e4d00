//! An experiment, not an engine of the comparison: our step's pure functions (tile collision,
//! the article-003 response, the signed overlap) driven over one dense array of bodies with no
//! ECS, no `Contacts`, no collision events, no landings, no sensors and no `Transform`s.
//! It measures how much of our step is the algorithms themselves and how much is the plumbing
//! and the public features around them. Run it with
//! `cargo run --release -p pile-bench -- one dense 64000`.

use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool, TaskPoolBuilder};
use bevy_platformer_physics::CollisionData;
use bevy_platformer_physics::apply_gravity;
use bevy_platformer_physics::flags::{Side, side_bit};
use bevy_platformer_physics::geometry::signed_overlap;
use bevy_platformer_physics::response::respond;
use bevy_platformer_physics::tiles::TileMap;
use bevy_platformer_physics::tiles::collide::{
    PassThrough, TileBody, TileParams, collide_with_tiles, sweep_displacement,
};

use crate::scene::{DT, GRAVITY, PLATFORM_HALF, Scene, reverses_after};

const PIECES: usize = 64;

/// The timed stages of the experiment's step.
pub const STAGES: [&str; 5] = ["integrate+tiles", "cells", "pairs", "contacts", "response"];

#[derive(Clone, Copy)]
struct Body {
    center: Vec2,
    half: Vec2,
    velocity: Vec2,
    old: Vec2,
    ground: Vec2,
    tile_now: u8,
    object_now: u8,
    object_last: u8,
    kinematic: bool,
    lo: UVec2,
    hi: UVec2,
}

#[derive(Clone, Copy)]
struct Near {
    slot: u32,
    center: Vec2,
    half: Vec2,
    lo: UVec2,
}

#[derive(Clone, Copy)]
struct Pair {
    a: u32,
    b: u32,
    overlap: Vec2,
}

pub struct Dense {
    map: TileMap,
    bodies: Vec<Body>,
    cell: f32,
    dims: UVec2,
    cell_starts: Vec<u32>,
    fill: Vec<u32>,
    near: Vec<Near>,
    pieces: Vec<Vec<Pair>>,
    starts: Vec<u32>,
    contacts: Vec<CollisionData>,
    step: u32,
    /// Per step: integrate with tile collision, cells, pairs, contacts, response (ms).
    pub stages: Vec<[f64; 5]>,
}

fn pool() -> &'static TaskPool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(cores).build())
}

/// Runs `f(first index, piece)` on each of `PIECES` nearly equal pieces of `items`, on the
/// task pool.
fn par_pieces<T: Send>(items: &mut [T], f: impl Fn(usize, &mut [T]) + Sync) {
    let len = items.len();
    let f = &f;
    pool().scope(|scope| {
        let mut rest = items;
        for i in 0..PIECES {
            let start = i * len / PIECES;
            let n = (i + 1) * len / PIECES - start;
            let (head, tail) = core::mem::take(&mut rest).split_at_mut(n);
            rest = tail;
            scope.spawn(async move { f(start, head) });
        }
    });
}

impl Dense {
    pub fn build(scene: &Scene, cell_tiles: u32) -> Self {
        let map = scene.tile_map();
        let cell = map.tile_size() * cell_tiles as f32;
        let dims = UVec2::new(
            map.width().div_ceil(cell_tiles),
            map.height().div_ceil(cell_tiles),
        );
        let body = |center: Vec2, half: Vec2, velocity: Vec2, kinematic: bool| Body {
            center,
            half,
            velocity,
            old: center,
            ground: Vec2::ZERO,
            tile_now: 0,
            object_now: 0,
            object_last: 0,
            kinematic,
            lo: UVec2::ZERO,
            hi: UVec2::ZERO,
        };
        let mut bodies: Vec<Body> = scene
            .bodies
            .iter()
            .map(|b| body(b.center, b.half, Vec2::new(b.vx, 0.0), false))
            .collect();
        bodies.extend(
            scene
                .platforms
                .iter()
                .map(|&p| body(p, PLATFORM_HALF, Vec2::new(scene.platform_speed, 0.0), true)),
        );
        Self {
            map,
            bodies,
            cell,
            dims,
            cell_starts: Vec::new(),
            fill: Vec::new(),
            near: Vec::new(),
            pieces: vec![Vec::new(); PIECES],
            starts: Vec::new(),
            contacts: Vec::new(),
            step: 0,
            stages: Vec::new(),
        }
    }

    pub fn boxes(&self) -> Vec<(Vec2, Vec2)> {
        self.bodies
            .iter()
            .filter(|b| !b.kinematic)
            .map(|b| (b.center, b.half))
            .collect()
    }

    /// One step, in the plugin's order, with the plugin's default parameters.
    pub fn step(&mut self) {
        self.step += 1;
        if reverses_after(self.step) {
            for b in self.bodies.iter_mut().filter(|b| b.kinematic) {
                b.velocity.x = -b.velocity.x;
            }
        }
        let gravity = Vec2::new(0.0, GRAVITY);
        let params = TileParams {
            dt: DT,
            skin: 1e-3,
            one_way_tolerance: 4.0,
            max_depenetration: 64.0,
            ground_friction: 10.0,
            walk_slopes: true,
        };
        let map = &self.map;
        let mut clock = [std::time::Instant::now(); 6];
        // Integrate and tile collision.
        par_pieces(&mut self.bodies, |_, piece| {
            for b in piece {
                b.old = b.center;
                b.object_last = b.object_now;
                b.object_now = 0;
                if b.kinematic {
                    b.center += b.velocity * DT;
                    b.tile_now = 0;
                    continue;
                }
                let mut v = apply_gravity(b.velocity, gravity, 1200.0, DT);
                if b.object_last & side_bit(Side::Bottom) != 0 {
                    v.y = v.y.max(b.ground.y);
                }
                let mut t = TileBody {
                    center: b.center,
                    half: b.half,
                    velocity: v,
                };
                b.tile_now = collide_with_tiles(map, &mut t, PassThrough::default(), &params).sides;
                b.center = t.center;
                b.velocity = t.velocity;
            }
        });
        clock[1] = std::time::Instant::now();
        // Cells: every body into each cell its box covers, sorted by cell (counting sort).
        let (cell, dims) = (self.cell, self.dims);
        let to_cell = |p: Vec2| {
            (p / cell)
                .floor()
                .as_ivec2()
                .clamp(IVec2::ZERO, dims.as_ivec2() - 1)
                .as_uvec2()
        };
        let cells = (dims.x * dims.y) as usize;
        self.cell_starts.clear();
        self.cell_starts.resize(cells + 1, 0);
        for b in &mut self.bodies {
            b.lo = to_cell(b.center - b.half);
            b.hi = to_cell(b.center + b.half);
            for y in b.lo.y..=b.hi.y {
                for x in b.lo.x..=b.hi.x {
                    self.cell_starts[(y * dims.x + x) as usize + 1] += 1;
                }
            }
        }
        for i in 0..cells {
            self.cell_starts[i + 1] += self.cell_starts[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.cell_starts[..cells]);
        let blank = Near {
            slot: 0,
            center: Vec2::ZERO,
            half: Vec2::ZERO,
            lo: UVec2::ZERO,
        };
        self.near.clear();
        self.near.resize(self.cell_starts[cells] as usize, blank);
        for (slot, b) in self.bodies.iter().enumerate() {
            for y in b.lo.y..=b.hi.y {
                for x in b.lo.x..=b.hi.x {
                    let at = &mut self.fill[(y * dims.x + x) as usize];
                    self.near[*at as usize] = Near {
                        slot: slot as u32,
                        center: b.center,
                        half: b.half,
                        lo: b.lo,
                    };
                    *at += 1;
                }
            }
        }
        clock[2] = std::time::Instant::now();
        // Pairs, each in the first cell both cover.
        let (near, starts) = (&self.near, &self.cell_starts);
        par_pieces(&mut self.pieces, |first, piece| {
            for (k, out) in piece.iter_mut().enumerate() {
                let i = first + k;
                out.clear();
                for c in i * cells / PIECES..(i + 1) * cells / PIECES {
                    let here = UVec2::new(c as u32 % dims.x, c as u32 / dims.x);
                    let list = &near[starts[c] as usize..starts[c + 1] as usize];
                    for (j, a) in list.iter().enumerate() {
                        for b in &list[j + 1..] {
                            if a.lo.max(b.lo) != here {
                                continue;
                            }
                            if let Some(overlap) =
                                signed_overlap(a.center, a.half, b.center, b.half)
                            {
                                out.push(Pair {
                                    a: a.slot,
                                    b: b.slot,
                                    overlap,
                                });
                            }
                        }
                    }
                }
            }
        });
        clock[3] = std::time::Instant::now();
        // Each body's contacts, contiguous.
        let n = self.bodies.len();
        self.starts.clear();
        self.starts.resize(n + 1, 0);
        for p in self.pieces.iter().flatten() {
            self.starts[p.a as usize + 1] += 1;
            self.starts[p.b as usize + 1] += 1;
        }
        for i in 0..n {
            self.starts[i + 1] += self.starts[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.starts[..n]);
        let total = self.starts[n] as usize;
        let blank = CollisionData::default();
        self.contacts.clear();
        self.contacts.resize(total, blank);
        let bodies = &self.bodies;
        let data = |me: &Body, other: &Body, overlap: Vec2| CollisionData {
            other: Entity::PLACEHOLDER,
            overlap,
            velocity: me.velocity,
            other_velocity: other.velocity,
            old_position: me.old,
            other_old_position: other.old,
            position: me.center,
            other_position: other.center,
            half_extents: me.half,
            other_half_extents: other.half,
            other_kinematic: other.kinematic,
            blocked: me.tile_now | me.object_last,
            other_blocked: other.tile_now | other.object_last,
        };
        for p in self.pieces.iter().flatten() {
            let (a, b) = (&bodies[p.a as usize], &bodies[p.b as usize]);
            self.contacts[self.fill[p.a as usize] as usize] = data(a, b, p.overlap);
            self.contacts[self.fill[p.b as usize] as usize] = data(b, a, -p.overlap);
            self.fill[p.a as usize] += 1;
            self.fill[p.b as usize] += 1;
        }
        clock[4] = std::time::Instant::now();
        // Response.
        let (contacts, starts) = (&self.contacts, &self.starts);
        par_pieces(&mut self.bodies, |first, piece| {
            for (k, b) in piece.iter_mut().enumerate() {
                let i = first + k;
                let mine = &contacts[starts[i] as usize..starts[i + 1] as usize];
                if b.kinematic || mine.is_empty() {
                    b.ground = Vec2::ZERO;
                    continue;
                }
                let r = respond(b.velocity, mine, 1e-3);
                if r.offset != Vec2::ZERO {
                    b.center = sweep_displacement(
                        map,
                        b.center,
                        b.half,
                        r.offset,
                        PassThrough::default(),
                        1e-3,
                    );
                }
                b.velocity = r.velocity;
                b.object_now = r.sides;
                b.ground = r.ground.map_or(Vec2::ZERO, |(_, v)| v);
            }
        });
        clock[5] = std::time::Instant::now();
        self.stages.push(core::array::from_fn(|k| {
            (clock[k + 1] - clock[k]).as_secs_f64() * 1000.0
        }));
    }
}
