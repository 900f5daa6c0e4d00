//! Tests of `collide`.

use super::*;
use crate::tiles::reach::tile_range;
use crate::geometry::skin_at;
use crate::test_rng::unit_floats;

const PARAMS: TileParams = TEST_PARAMS;

pub(in crate::tiles) fn map(text: &str) -> TileMap {
    TileMap::from_ascii(text, 16.0).unwrap()
}

pub(in crate::tiles) fn body(center: Vec2, half: Vec2, velocity: Vec2) -> TileBody {
    TileBody {
        center,
        half,
        velocity,
    }
}

#[test]
fn falling_body_lands_exactly_on_the_floor() {
    let m = map("...\n...\n###");
    let mut b = body(
        Vec2::new(24.0, 30.0),
        Vec2::splat(6.0),
        Vec2::new(0.0, -1200.0),
    );
    let out = collide_with_tiles(&m, &mut b, PassThrough::default(), &PARAMS);
    assert_eq!(b.center.y, 22.0);
    assert_eq!(b.velocity.y, 0.0);
    assert_eq!(out.sides, side_bit(Side::Bottom));
    assert_eq!(out.standing_on, Some(TileKind::Solid));
}

/// Solid, one-way and ladder tiles, seams, corners and open air.
pub(in crate::tiles) const MIXED: &str = "................\n\
                     ......#....H....\n\
                     ..-.......H#....\n\
                     ...--.....H.....\n\
                     ................\n\
                     ....###.....#...\n\
                     ################";

#[test]
fn fast_path_gives_bit_identical_results() {
    // Random bodies, many near tiles, many in open air, some large or very fast, some partly
    // off the map, with every pass-through setting: both paths agree to the bit.
    let m = map(MIXED);
    let mut u = unit_floats(0x1234_5678);
    let params = TileParams {
        ground_friction: 10.0,
        walk_slopes: true,
        ..PARAMS
    };
    for i in 0..6000 {
        // One body in ten is large (up to 8 tiles across), one in ten very fast.
        let size = if i % 10 == 0 { 64.0 } else { 8.0 };
        let speed = if i % 10 == 1 { 6000.0 } else { 600.0 };
        let b = body(
            Vec2::new(u() * 300.0 - 20.0, u() * 160.0 - 20.0),
            Vec2::new(1.0 + u() * size, 1.0 + u() * size),
            Vec2::new((u() * 2.0 - 1.0) * speed, (u() * 2.0 - 1.0) * speed),
        );
        let pass = PassThrough {
            drop_through: u() < 0.2,
            climbing: u() < 0.3,
        };
        let (mut fast, mut full) = (b, b);
        let a = collide_with_tiles(&m, &mut fast, pass, &params);
        let c = collide_near_tiles(&m, &mut full, pass, &params);
        assert_eq!(
            (a, fast.center.to_array().map(f32::to_bits)),
            (c, full.center.to_array().map(f32::to_bits)),
            "{b:?}"
        );
        assert_eq!(
            fast.velocity.to_array().map(f32::to_bits),
            full.velocity.to_array().map(f32::to_bits)
        );
    }
}

#[test]
fn tile_range_is_the_tiles_the_corners_fall_in_clipped_to_the_map() {
    // The reference: round each corner down to its tile, clip to the map, empty if crossed.
    // Maps with 16-unit tiles at the origin and with 10-unit tiles off it; corners on
    // edges, just either side of them, far outside, infinite and NaN.
    let reference = |m: &TileMap, min: Vec2, max: Vec2| {
        let last = IVec2::new(m.width() as i32 - 1, m.height() as i32 - 1);
        let (lo, hi) = (m.tile_at(min).max(IVec2::ZERO), m.tile_at(max).min(last));
        (lo.x <= hi.x && lo.y <= hi.y).then_some((lo, hi))
    };
    let maps = [
        TileMap::new(5, 4, 16.0),
        TileMap::new(5, 4, 10.0).with_origin(Vec2::new(-23.5, 7.25)),
        TileMap::new(1, 1, 16.0),
    ];
    let mut coords = vec![f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 3e9, -3e9, -0.0];
    for k in -3..=8 {
        for m in &maps {
            let edge = m.tile_rect(k, k).0;
            for e in [edge.x, edge.y] {
                coords.extend([e, e - 1e-3, e + 1e-3, e - 0.5, e + 0.5]);
            }
        }
    }
    let mut u = unit_floats(0x7117_0001);
    let mut pick = || coords[(u() * coords.len() as f32) as usize % coords.len()];
    for m in &maps {
        for _ in 0..20_000 {
            let (min, max) = (Vec2::new(pick(), pick()), Vec2::new(pick(), pick()));
            assert_eq!(
                tile_range(m, min, max),
                reference(m, min, max),
                "{min} {max}"
            );
        }
    }
}

#[test]
fn depenetration_corrects_once_for_two_tiles_under_the_feet() {
    // Sunk 3 units into a floor of two tiles: pushed up by 3, not 6.
    let m = map("..\n##");
    let mut c = Vec2::new(16.0, 19.0);
    assert!(depenetrate(&m, &mut c, Vec2::splat(6.0), 1e-3, 64.0));
    assert_eq!(c, Vec2::new(16.0, 22.0));
}

#[test]
fn depenetration_leaves_a_body_with_no_open_face_in_reach() {
    let m = map("#####\n#####\n#####\n#####\n#####");
    let mut c = Vec2::new(40.0, 40.0);
    assert!(!depenetrate(&m, &mut c, Vec2::splat(6.0), 1e-3, 16.0));
    assert_eq!(c, Vec2::new(40.0, 40.0));
}

#[test]
fn depenetration_out_of_a_corner_uses_both_open_faces() {
    // Floor and right wall; the box is 2 units into the wall and 3 into the floor.
    let m = map("..#\n..#\n###");
    let mut c = Vec2::new(32.0 - 6.0 + 2.0, 16.0 + 6.0 - 3.0);
    assert!(depenetrate(&m, &mut c, Vec2::splat(6.0), 1e-3, 64.0));
    assert_eq!(c, Vec2::new(26.0, 22.0));
}

#[test]
fn one_way_snap_only_within_tolerance_and_not_when_dropping() {
    let m = map("...\n.-.\n...");
    let half = Vec2::splat(6.0);
    let mut c = Vec2::new(24.0, 32.0 - 3.0 + 6.0);
    let snap = |c: &mut Vec2, pass| snap_onto_one_way(&m, c, half, 1e-3, 4.0, pass);
    assert_eq!(snap(&mut c, PassThrough::default()), OneWaySnap::Lifted);
    assert_eq!(c.y, 38.0);
    let mut deep = Vec2::new(24.0, 32.0 - 5.0 + 6.0);
    assert_eq!(snap(&mut deep, PassThrough::default()), OneWaySnap::Free);
    let mut dropping = Vec2::new(24.0, 32.0 - 3.0 + 6.0);
    let pass = PassThrough {
        drop_through: true,
        climbing: false,
    };
    assert_eq!(snap(&mut dropping, pass), OneWaySnap::Free);
}

#[test]
fn one_way_snap_never_lifts_a_body_into_a_solid_tile() {
    // A one-way tile under the body's right half, a solid tile above its left half.
    let m = map("#.\n.-\n..");
    let half = Vec2::new(6.0, 1.0);
    // Feet 3 units under the one-way top (y = 32): lifting it would put its head into the
    // solid tile above (y >= 32), so it stays, held on the platform.
    let mut c = Vec2::new(16.0, 31.0 - 2.0 + 1.0);
    assert_eq!(
        snap_onto_one_way(&m, &mut c, half, 1e-3, 4.0, PassThrough::default()),
        OneWaySnap::Held
    );
    assert_eq!(c, Vec2::new(16.0, 30.0));
}

#[test]
fn a_body_taller_than_its_gap_is_held_and_squished_not_sunk() {
    // Floor top at 16, ceiling bottom at 32; the body is 16.002 tall, its feet 0.002 into
    // the floor. It cannot be pushed out either way: it stays, pressed from both sides,
    // with no speed into either.
    let m = map("##\n..\n##");
    let start = Vec2::new(16.0, 16.0 - 0.002 + 8.001);
    let mut b = body(start, Vec2::new(6.0, 8.001), Vec2::new(0.0, -300.0));
    let out = collide_with_tiles(&m, &mut b, PassThrough::default(), &PARAMS);
    assert_eq!(b.center, start);
    assert_eq!(b.velocity, Vec2::ZERO);
    assert!(out.embedded && out.squished, "{out:?}");
    let vertical = side_bit(Side::Bottom) | side_bit(Side::Top);
    assert_eq!(out.sides & vertical, vertical);
    assert_eq!(out.standing_on, Some(TileKind::Solid));
}

#[test]
fn pressing_sides_follow_the_shallower_overlap() {
    let m = map("#..\n...\n###");
    // Feet 2 units into the floor: pressed from below only.
    let c = Vec2::new(24.0, 16.0 + 6.0 - 2.0);
    assert_eq!(
        pressing_sides(&m, c, Vec2::splat(6.0), 1e-3),
        side_bit(Side::Bottom)
    );
    // 3 units into the wall tile at the top left (it lies left of the centre and is
    // entered less deeply on x than on y).
    let c = Vec2::new(16.0 + 6.0 - 3.0, 48.0 - 6.0);
    assert_eq!(
        pressing_sides(&m, c, Vec2::splat(6.0), 1e-3),
        side_bit(Side::Left)
    );
}

#[test]
fn touching_sides_sees_walls_without_motion() {
    let m = map("#.#\n###");
    let (sides, on) = touching_sides(
        &m,
        Vec2::new(24.0, 24.0),
        Vec2::splat(8.0),
        1e-3,
        PassThrough::default(),
    );
    let expect = side_bit(Side::Left) | side_bit(Side::Right) | side_bit(Side::Bottom);
    assert_eq!(sides, expect);
    assert_eq!(on, Some(TileKind::Solid));
}

/// Touching sides by the definition: every non-empty tile in the band just beyond each
/// side, each checked on its own.
fn touching_sides_tile_by_tile(
    map: &TileMap,
    center: Vec2,
    half: Vec2,
    skin: f32,
    pass: PassThrough,
) -> (u8, Option<TileKind>) {
    let (min, max) = (center - half, center + half);
    let (mut sides, mut standing_on) = (0, None);
    let bands = [
        (
            Side::Bottom,
            min + Vec2::new(skin, -skin),
            Vec2::new(max.x - skin, min.y - skin),
        ),
        (
            Side::Top,
            Vec2::new(min.x + skin, max.y + skin),
            max + Vec2::new(-skin, skin),
        ),
        (
            Side::Left,
            min + Vec2::new(-skin, skin),
            Vec2::new(min.x - skin, max.y - skin),
        ),
        (
            Side::Right,
            Vec2::new(max.x + skin, min.y + skin),
            max + Vec2::new(skin, -skin),
        ),
    ];
    for (side, lo, hi) in bands {
        // Every tile the band touches, found with `tile_at` alone (not with the range
        // functions under test); `get` is empty off the map.
        let (lo, hi) = (map.tile_at(lo), map.tile_at(hi));
        let tiles = (lo.y..=hi.y).flat_map(|y| (lo.x..=hi.x).map(move |x| (x, y)));
        for (x, y) in tiles {
            let kind = map.get(x, y);
            let (tmin, tmax) = map.tile_rect(x, y);
            let gap = match side {
                Side::Bottom => min.y - tmax.y,
                Side::Top => tmin.y - max.y,
                Side::Left => min.x - tmax.x,
                Side::Right => tmin.x - max.x,
            };
            let holds = kind == TileKind::Solid
                || side == Side::Bottom && pass.holds(kind) && map.is_one_way_top(x, y);
            if gap.abs() <= skin && holds {
                sides |= side_bit(side);
                if side == Side::Bottom {
                    standing_on = standing_on.max(Some(kind));
                }
            }
        }
    }
    (sides, standing_on)
}

#[test]
fn touching_sides_and_ladders_are_found_as_each_tile_would_find_them() {
    // Boxes flush with faces, just off them, inside tiles and off the map, on a map far
    // from the origin (so float steps exceed the skin): the same as checking every tile.
    let m = map("#..H.##.\n\
         #..H-..#\n\
         .-.....#\n\
         ##.--###")
    .with_origin(Vec2::new(-4096.0, 10000.0));
    let mut u = unit_floats(0x0BAD_5EED);
    // Positions on a 4-unit lattice put many sides exactly on tile faces.
    let (mut touching, mut ladders) = (0, 0);
    for i in 0..20000 {
        let snap = |v: f32| {
            if i % 2 == 0 {
                (v / 4.0).round() * 4.0
            } else {
                v
            }
        };
        let half = Vec2::new(snap(2.0 + u() * 20.0), snap(2.0 + u() * 20.0));
        let mut min = Vec2::new(snap(u() * 160.0 - 16.0), snap(u() * 96.0 - 16.0));
        // One box in ten lies wholly left of the map, and one below it, by less than a
        // tile: its sides must not see the first column or row.
        match i % 10 {
            8 => min.x = -2.0 * half.x - snap(u() * 16.0),
            9 => min.y = -2.0 * half.y - snap(u() * 16.0),
            _ => {}
        }
        let center = m.origin() + min + half;
        let skin = skin_at(1e-3, center);
        let pass = PassThrough {
            drop_through: u() < 0.2,
            climbing: u() < 0.3,
        };
        let got = touching_sides(&m, center, half, skin, pass);
        assert_eq!(
            got,
            touching_sides_tile_by_tile(&m, center, half, skin, pass),
            "{center} {half} {pass:?}"
        );
        touching += usize::from(got.0 != 0);
        let ladder = surroundings(&m, center, half, skin, pass).2;
        assert_eq!(
            ladder,
            overlaps_kind(&m, center, half, skin, TileKind::Ladder)
        );
        ladders += usize::from(ladder);
    }
    assert!(touching > 2000, "too few touching cases: {touching}");
    assert!(ladders > 500, "too few boxes on ladders: {ladders}");
}
