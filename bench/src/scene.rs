//! The "pile" and "crowd" scenes of BENCH_SCENE.md, engine-independent: tiles, bodies,
//! platforms, the crowd's driver, and the end-of-run measurements (fell through the floor,
//! deepest overlaps).

use bevy::ecs::component::Component;
use bevy::math::{IVec2, Vec2};

pub const TILE: f32 = 16.0;
pub const DT: f32 = 1.0 / 60.0;
pub const GRAVITY: f32 = -980.0;
pub const PLATFORM_HALF: Vec2 = Vec2::new(24.0, 4.0);
pub const PLATFORM_SPEED: f32 = 80.0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tile {
    Empty,
    Solid,
    OneWay,
}

pub struct Body {
    pub center: Vec2,
    pub half: Vec2,
    pub vx: f32,
}

pub struct Scene {
    pub w: i32,
    pub h: i32,
    pub tiles: Vec<Tile>,
    pub bodies: Vec<Body>,
    pub platforms: Vec<Vec2>,
    /// The platforms' starting x velocity: [`PLATFORM_SPEED`], or 0 with `PILE_STILL=1` (a
    /// diagnostic, not the benchmark: nothing then moves once the pile has settled, which
    /// shows what a step costs that has almost nothing to do).
    pub platform_speed: f32,
    /// The crowd: no platforms, and every body is driven by its [`Walker`] before each step.
    pub crowd: bool,
}

impl Scene {
    /// The scene with `n` dynamic bodies, exactly as BENCH_SCENE.md builds it.
    pub fn pile(n: usize) -> Scene {
        let (w, h) = ((n / 8).max(64) as i32, 64);
        let mut tiles = vec![Tile::Empty; (w * h) as usize];
        let mut set = |x: i32, y: i32, t: Tile| tiles[(y * w + x) as usize] = t;
        for x in 0..w {
            set(x, 0, Tile::Solid);
        }
        for y in 0..h {
            set(0, y, Tile::Solid);
            set(w - 1, y, Tile::Solid);
        }
        for y in [8, 16, 24, 32, 40, 48] {
            let kind = if y == 16 || y == 40 {
                Tile::OneWay
            } else {
                Tile::Solid
            };
            let mut k = 0;
            loop {
                let x0 = 4 + 24 * k + (y / 8 % 2) * 12;
                if x0 + 11 >= w - 1 {
                    break;
                }
                for x in x0..=x0 + 11 {
                    set(x, y, kind);
                }
                k += 1;
            }
        }
        let mut x: u32 = 0x9E37_79B9;
        let mut u = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as f64 / 4_294_967_296.0
        };
        let columns = ((w - 4) / 2) as usize;
        let bodies = (0..n)
            .map(|i| {
                let hx = (4.0 + 8.0 * u()) as f32;
                let hy = (4.0 + 8.0 * u()) as f32;
                let vx = (-100.0 + 200.0 * u()) as f32;
                let (c, l) = (i % columns, i / columns);
                Body {
                    center: Vec2::new(
                        (2 + 2 * c) as f32 * TILE + 8.0,
                        (4 + 2 * l) as f32 * TILE + 8.0,
                    ),
                    half: Vec2::new(hx, hy),
                    vx,
                }
            })
            .collect();
        let p = (n / 50).max(1);
        let platforms = (0..p)
            .map(|j| {
                Vec2::new(
                    112.0 + (j as f32 + 0.5) * (w as f32 * TILE - 224.0) / p as f32,
                    60.0,
                )
            })
            .collect();
        Scene {
            w,
            h,
            tiles,
            bodies,
            platforms,
            platform_speed: if std::env::var_os("PILE_STILL").is_some() {
                0.0
            } else {
                PLATFORM_SPEED
            },
            crowd: false,
        }
    }

    /// The "crowd" scene: the pile's map and bodies, no platforms; every body walks and jumps
    /// ([`Walker`]).
    pub fn crowd(n: usize) -> Scene {
        let mut scene = Scene::pile(n);
        scene.platforms.clear();
        scene.crowd = true;
        scene
    }

    /// In the crowd, gives each body its [`Walker`]: `bodies` are (the body's index in the
    /// scene, its entity), in the order they were spawned (the order the walkers are given in
    /// is the order of their rows in the ECS tables from then on). In the pile, nothing.
    pub fn drive_crowd(
        &self,
        world: &mut bevy::ecs::world::World,
        bodies: impl IntoIterator<Item = (usize, bevy::ecs::entity::Entity)>,
    ) {
        if self.crowd {
            let walkers = bodies.into_iter().map(|(i, body)| (body, Walker::new(i)));
            world.insert_batch(walkers);
        }
    }

    /// The order in which `ours` spawns the bodies (their indices in the scene): the scene's,
    /// or with `PILE_COLUMNS=1` (a diagnostic, not the scene) column by column from the left,
    /// each from the bottom, so that the physics' slots, which follow the ECS tables' rows,
    /// follow space: two bodies near each other are then near each other in every per-slot
    /// array. Entities and slots are then in another order, so the outcome is not bit for bit
    /// the scene's: compare times with it, not state hashes.
    pub fn spawn_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.bodies.len()).collect();
        if std::env::var_os("PILE_COLUMNS").is_some() {
            let at = |i: usize| self.bodies[i].center;
            order.sort_by(|&a, &b| (at(a).x, at(a).y).partial_cmp(&(at(b).x, at(b).y)).unwrap());
        }
        order
    }

    /// `pile` or `crowd` with `n` bodies.
    pub fn named(name: &str, n: usize) -> Scene {
        match name {
            "pile" => Scene::pile(n),
            "crowd" => Scene::crowd(n),
            other => panic!("unknown scene {other} (pile or crowd)"),
        }
    }

    /// The scene's tiles as this plugin's tile map.
    pub fn tile_map(&self) -> bevy_platformer_physics::TileMap {
        use bevy_platformer_physics::TileKind;
        let mut map = bevy_platformer_physics::TileMap::new(self.w as u32, self.h as u32, TILE);
        for y in 0..self.h {
            for x in 0..self.w {
                let kind = match self.tile(x, y) {
                    Tile::Empty => continue,
                    Tile::Solid => TileKind::Solid,
                    Tile::OneWay => TileKind::OneWay,
                };
                map.set(x, y, kind);
            }
        }
        map
    }

    pub fn tile(&self, x: i32, y: i32) -> Tile {
        if x < 0 || y < 0 || x >= self.w || y >= self.h {
            Tile::Empty
        } else {
            self.tiles[(y * self.w + x) as usize]
        }
    }

    /// The tiles of `kind` merged into rectangles (centre, half extents): runs along each row,
    /// then runs of identical runs stacked in the rows above (the static colliders the peers'
    /// documentation recommends over one collider per tile).
    pub fn merged(&self, kind: Tile) -> Vec<(Vec2, Vec2)> {
        let mut used = vec![false; self.tiles.len()];
        let mut rects = Vec::new();
        for y in 0..self.h {
            let mut x = 0;
            while x < self.w {
                let i = (y * self.w + x) as usize;
                if self.tile(x, y) != kind || used[i] {
                    x += 1;
                    continue;
                }
                let x0 = x;
                while x < self.w && self.tile(x, y) == kind && !used[(y * self.w + x) as usize] {
                    x += 1;
                }
                let x1 = x; // exclusive
                let row_free = |yy: i32| {
                    (x0..x1)
                        .all(|xx| self.tile(xx, yy) == kind && !used[(yy * self.w + xx) as usize])
                };
                let mut y1 = y + 1;
                while y1 < self.h && row_free(y1) {
                    y1 += 1;
                }
                for yy in y..y1 {
                    for xx in x0..x1 {
                        used[(yy * self.w + xx) as usize] = true;
                    }
                }
                let min = Vec2::new(x0 as f32, y as f32) * TILE;
                let max = Vec2::new(x1 as f32, y1 as f32) * TILE;
                rects.push(((min + max) / 2.0, (max - min) / 2.0));
            }
        }
        rects
    }
}

/// What the run left behind: bodies through the floor, the deepest overlaps, and how the
/// body-body overlaps spread. Pairs with a squished body (one the engine reported squished
/// during the run; only ours reports it) are left out of the body-body figures.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    pub fell: usize,
    pub body_overlap: f32,
    pub tile_overlap: f32,
    /// The 99th percentile of the depths of the overlapping body-body pairs (0 when none).
    pub body_p99: f32,
    /// Body-body pairs overlapping by more than 1 unit.
    pub over_one: usize,
    /// Bodies reported squished during the run.
    pub squished: usize,
}

/// Measures `boxes` (centre, half extents of every dynamic body) against the scene;
/// `squished` marks the boxes the engine reported squished (empty: none).
pub fn outcome(scene: &Scene, boxes: &[(Vec2, Vec2)], squished: &[bool]) -> Outcome {
    let is_squished = |i: usize| squished.get(i).copied().unwrap_or(false);
    let fell = boxes.iter().filter(|(c, _)| c.y < TILE).count();
    // Body vs solid tile (one-way tiles are not obstacles from every side).
    let mut tile_overlap = 0.0f32;
    for &(c, h) in boxes {
        let (min, max) = (c - h, c + h);
        let lo = (min / TILE).floor().as_ivec2();
        let hi = (max / TILE).floor().as_ivec2();
        for y in lo.y.max(0)..=hi.y.min(scene.h - 1) {
            for x in lo.x.max(0)..=hi.x.min(scene.w - 1) {
                if scene.tile(x, y) == Tile::Solid {
                    let tmin = IVec2::new(x, y).as_vec2() * TILE;
                    let o = max.min(tmin + TILE) - min.max(tmin);
                    tile_overlap = tile_overlap.max(o.x.min(o.y));
                }
            }
        }
    }
    // Body vs body through a hash grid of 32-unit cells (bodies are at most 24 units wide).
    let cell = 32.0;
    let mut keyed: Vec<(i64, usize)> = Vec::with_capacity(boxes.len());
    for (i, (c, _)) in boxes.iter().enumerate() {
        let k = (c / cell).floor().as_ivec2();
        keyed.push((((k.y as i64) << 32) | (k.x as i64 & 0xFFFF_FFFF), i));
    }
    keyed.sort_unstable();
    let find = |key: i64| {
        let start = keyed.partition_point(|&(k, _)| k < key);
        keyed[start..]
            .iter()
            .take_while(move |&&(k, _)| k == key)
            .map(|&(_, i)| i)
    };
    let mut depths = Vec::new();
    for (i, &(c, h)) in boxes.iter().enumerate() {
        if is_squished(i) {
            continue;
        }
        let k = (c / cell).floor().as_ivec2();
        for dy in -1..=1 {
            for dx in -1..=1 {
                let kk = k + IVec2::new(dx, dy);
                for j in find(((kk.y as i64) << 32) | (kk.x as i64 & 0xFFFF_FFFF)) {
                    if j <= i || is_squished(j) {
                        continue;
                    }
                    let (c2, h2) = boxes[j];
                    let o = (h + h2) - (c - c2).abs();
                    if o.x > 0.0 && o.y > 0.0 {
                        depths.push(o.x.min(o.y));
                    }
                }
            }
        }
    }
    depths.sort_by(f32::total_cmp);
    let body_p99 = match depths.len() {
        0 => 0.0,
        n => depths[(n * 99).div_ceil(100) - 1],
    };
    Outcome {
        fell,
        body_overlap: depths.last().copied().unwrap_or(0.0),
        tile_overlap,
        body_p99,
        over_one: depths.iter().filter(|&&d| d > 1.0).count(),
        squished: squished.iter().filter(|&&s| s).count(),
    }
}

/// The crowd's driver of body `i`: its `sin(i)` and `cos(i)`, tabulated at start-up.
#[derive(Component, Clone, Copy, Debug)]
pub struct Walker {
    i: u32,
    sin_i: f64,
    cos_i: f64,
}

/// The crowd's clock for one step: `step` is the number of physics steps completed before it.
#[derive(Clone, Copy, Debug)]
pub struct CrowdStep {
    step: u32,
    sin_a: f64,
    cos_a: f64,
}

impl CrowdStep {
    pub fn new(step: u32) -> Self {
        let a = 0.05 * step as f64;
        Self {
            step,
            sin_a: a.sin(),
            cos_a: a.cos(),
        }
    }
}

impl Walker {
    pub fn new(i: usize) -> Self {
        let f = i as f64;
        Self {
            i: i as u32,
            sin_i: f.sin(),
            cos_i: f.cos(),
        }
    }

    /// The body's velocity for this step, from the one it has: x velocity
    /// `120 sin(0.05 step + i)`, and a jump (+400 up) when `step % 90 == i % 90`.
    pub fn drive(&self, at: CrowdStep, velocity: Vec2) -> Vec2 {
        let sine = at.sin_a * self.cos_i + at.cos_a * self.sin_i;
        let vy = if at.step % 90 == self.i % 90 {
            400.0
        } else {
            velocity.y
        };
        Vec2::new((120.0 * sine) as f32, vy)
    }
}

/// Every velocity is reversed after step 60 and then every 120 steps.
pub fn reverses_after(step: u32) -> bool {
    step == 60 || (step > 60 && (step - 60).is_multiple_of(120))
}

/// Prints the most overlapping pairs (for investigating a run).
pub fn print_worst(boxes: &[(Vec2, Vec2)]) {
    let mut worst: Vec<(f32, usize, usize)> = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            let ((c1, h1), (c2, h2)) = (boxes[i], boxes[j]);
            let o = (h1 + h2) - (c1 - c2).abs();
            if o.x > 1.0 && o.y > 1.0 {
                worst.push((o.x.min(o.y), i, j));
            }
        }
    }
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    eprintln!("{} pairs overlap by more than 1 unit", worst.len());
    for &(d, i, j) in worst.iter().take(8) {
        eprintln!("  {d:.2}: #{i} {:?} and #{j} {:?}", boxes[i], boxes[j]);
    }
}
