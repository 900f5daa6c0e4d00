//! The scene against BENCH_SCENE.md, the merged colliders against the tiles, the outcome
//! measures against hand-worked cases.

use bevy::math::Vec2;

use crate::scene::*;

#[test]
fn the_pile_is_built_as_bench_scene_md_says() {
    let s = Scene::pile(1000);
    // W = max(64, N / 8), H = 64; C = (W - 4) / 2 columns.
    assert_eq!((s.w, s.h), (125, 64));
    // The first three xorshift32 numbers from 0x9E3779B9, worked out separately:
    // 0x510C4619, 0xE02E553E, 0x7BB98F3A.
    let u = [0x510C_4619u32, 0xE02E_553E, 0x7BB9_8F3A].map(|x| x as f64 / 4_294_967_296.0);
    let b = &s.bodies[0];
    assert_eq!(b.half.x, (4.0 + 8.0 * u[0]) as f32);
    assert_eq!(b.half.y, (4.0 + 8.0 * u[1]) as f32);
    assert_eq!(b.vx, (-100.0 + 200.0 * u[2]) as f32);
    assert!((b.half.x - 6.5327).abs() < 1e-3 && (b.vx + 3.3400).abs() < 1e-3);
    // Body i: column i % 60, layer i / 60.
    assert_eq!(b.center, Vec2::new(40.0, 72.0));
    assert_eq!(s.bodies[61].center, Vec2::new(72.0, 104.0));
    assert_eq!(s.bodies[59].center, Vec2::new(1928.0, 72.0));
    assert_eq!(s.bodies.len(), 1000);
    // P = max(1, N / 50) platforms at y = 60, spread over the inner width.
    assert_eq!(s.platforms.len(), 20);
    assert!((s.platforms[0] - Vec2::new(156.4, 60.0)).length() < 1e-3);
    // Border, floor, platform rows (offset by 12 on odd multiples of 8), one-way rows.
    assert_eq!(s.tile(0, 30), Tile::Solid);
    assert_eq!(s.tile(124, 30), Tile::Solid);
    assert_eq!(s.tile(60, 0), Tile::Solid);
    assert_eq!(s.tile(60, 1), Tile::Empty);
    assert_eq!((s.tile(15, 8), s.tile(16, 8)), (Tile::Empty, Tile::Solid));
    assert_eq!((s.tile(27, 8), s.tile(28, 8)), (Tile::Solid, Tile::Empty));
    assert_eq!((s.tile(3, 16), s.tile(4, 16)), (Tile::Empty, Tile::OneWay));
    assert_eq!((s.tile(4, 40), s.tile(16, 40)), (Tile::Empty, Tile::OneWay));
    assert_eq!((s.tile(4, 24), s.tile(4, 32)), (Tile::Empty, Tile::Solid));
    // The last run of a row ends before the right wall (x0 + 11 < W - 1 = 124).
    assert_eq!((s.tile(112, 8), s.tile(123, 8)), (Tile::Solid, Tile::Solid));
    assert_eq!(
        (s.tile(100, 16), s.tile(111, 16)),
        (Tile::OneWay, Tile::OneWay)
    );
    assert_eq!(
        s.tile(112, 16),
        Tile::Empty,
        "x0 = 124 would reach the wall"
    );
    assert_eq!(
        s.tile(100, 8),
        Tile::Empty,
        "between the runs 88..99 and 112..123"
    );
}

#[test]
fn merged_rectangles_cover_exactly_the_tiles_of_their_kind() {
    let s = Scene::pile(4000);
    for kind in [Tile::Solid, Tile::OneWay] {
        let rects = s.merged(kind);
        let mut covered = vec![0u8; s.tiles.len()];
        for (c, h) in &rects {
            let (lo, hi) = ((*c - *h) / TILE, (*c + *h) / TILE);
            assert_eq!(lo, lo.round(), "on tile edges");
            for y in lo.y as i32..hi.y as i32 {
                for x in lo.x as i32..hi.x as i32 {
                    covered[(y * s.w + x) as usize] += 1;
                }
            }
        }
        for (i, t) in s.tiles.iter().enumerate() {
            let want = (*t == kind) as u8;
            assert_eq!(
                covered[i], want,
                "tile {i} ({t:?}) covered {} times",
                covered[i]
            );
        }
        assert!(rects.len() * 4 < s.tiles.iter().filter(|t| **t == kind).count());
    }
}

#[test]
fn the_outcome_measures_falls_and_deepest_overlaps() {
    let s = Scene::pile(1000);
    let h = Vec2::splat(8.0);
    let boxes = [
        // On the floor, flush: no overlap.
        (Vec2::new(40.0, 24.0), h),
        // 3 units into the floor row.
        (Vec2::new(80.0, 21.0), h),
        // Two bodies overlapping by 2 on x (and 16 on y).
        (Vec2::new(200.0, 300.0), h),
        (Vec2::new(214.0, 300.0), h),
        // Below y = 16: fell through.
        (Vec2::new(300.0, 10.0), h),
    ];
    let o = outcome(&s, &boxes, &[]);
    assert_eq!(o.fell, 1);
    assert_eq!(o.body_overlap, 2.0);
    assert_eq!((o.body_p99, o.over_one, o.squished), (2.0, 1, 0));
    // The second body is 3 units into the floor; the fallen one (x 292..308, y 2..18) overlaps
    // floor tile 18 (x 288..304) by 12 on x and 14 on y.
    assert_eq!(o.tile_overlap, 12.0);
    // The same, with the right body of the overlapping pair reported squished.
    let squished = [false, false, false, true, false];
    let o = outcome(&s, &boxes, &squished);
    assert_eq!(
        (o.body_overlap, o.body_p99, o.over_one, o.squished),
        (0.0, 0.0, 0, 1)
    );
}

#[test]
fn the_outcome_gives_the_99th_percentile_and_the_pairs_over_one_unit() {
    let s = Scene::pile(1000);
    let h = Vec2::splat(4.0);
    // 100 pairs side by side, far apart: pair k overlaps by 0.01 * (k + 1) on x.
    let boxes: Vec<(Vec2, Vec2)> = (0..100)
        .flat_map(|k| {
            let at = Vec2::new(
                100.0 + 40.0 * (k % 20) as f32,
                200.0 + 40.0 * (k / 20) as f32,
            );
            let depth = 0.01 * (k + 1) as f32;
            [(at, h), (at + Vec2::new(8.0 - depth, 0.0), h)]
        })
        .collect();
    let o = outcome(&s, &boxes, &[]);
    assert!((o.body_overlap - 1.0).abs() < 1e-4, "{}", o.body_overlap);
    assert!((o.body_p99 - 0.99).abs() < 1e-4, "{}", o.body_p99);
    assert_eq!(o.over_one, 0, "1.0 is not over one unit");
}

#[test]
fn the_crowd_is_the_pile_without_platforms_driven_as_bench_scene_md_says() {
    let (crowd, pile) = (Scene::crowd(1000), Scene::pile(1000));
    assert!(crowd.crowd && crowd.platforms.is_empty());
    assert_eq!(crowd.tiles, pile.tiles);
    assert!(
        crowd
            .bodies
            .iter()
            .zip(&pile.bodies)
            .all(|(a, b)| { (a.center, a.half, a.vx) == (b.center, b.half, b.vx) })
    );
    // x velocity 120 sin(0.05 step + i); y kept, but +400 when step % 90 == i % 90.
    let v = Vec2::new(3.0, -7.0);
    let at = |step: u32, i: usize| Walker::new(i).drive(CrowdStep::new(step), v);
    assert_eq!(at(0, 0), Vec2::new(0.0, 400.0));
    assert_eq!(at(0, 1).y, -7.0);
    assert!((at(0, 1).x - 120.0 * 1f32.sin()).abs() < 1e-4);
    assert!((at(10, 3).x - 120.0 * 3.5f32.sin()).abs() < 1e-4);
    assert_eq!(at(10, 3).y, -7.0);
    assert_eq!((at(93, 3).y, at(183, 93).y), (400.0, 400.0));
    assert_eq!(at(94, 3).y, -7.0);
}
