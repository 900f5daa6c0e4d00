//! The same scene run twice gives bit-identical positions.

use bevy::prelude::*;

use crate::common::*;

/// A level with platforms, one-ways and a ladder, and 300 bodies of assorted sizes and speeds.
pub fn busy_scene() -> App {
    let mut map = empty_map(64, 32);
    map.fill(IVec2::new(0, 0), IVec2::new(63, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 31), TileKind::Solid);
    map.fill(IVec2::new(63, 0), IVec2::new(63, 31), TileKind::Solid);
    for (i, y) in [6, 12, 18, 24].into_iter().enumerate() {
        let kind = if i % 2 == 0 {
            TileKind::Solid
        } else {
            TileKind::OneWay
        };
        map.fill(
            IVec2::new(5 + 7 * i as i32, y),
            IVec2::new(20 + 7 * i as i32, y),
            kind,
        );
    }
    map.fill(IVec2::new(40, 1), IVec2::new(40, 20), TileKind::Ladder);
    let mut app = app(map);
    let mut next = unit_floats(0x9E37_79B9);
    for _ in 0..300 {
        let center = Vec2::new(24.0 + next() * 960.0, 24.0 + next() * 460.0);
        let half = Vec2::new(2.0 + next() * 8.0, 2.0 + next() * 8.0);
        let velocity = Vec2::new(next() * 800.0 - 400.0, next() * 800.0 - 400.0);
        spawn(&mut app, center, half, velocity);
    }
    app
}

fn positions(app: &mut App) -> Vec<(u32, u32)> {
    let mut q = app.world_mut().query::<&Aabb>();
    q.iter(app.world())
        .map(|a| (a.center.x.to_bits(), a.center.y.to_bits()))
        .collect()
}

#[test]
fn same_scene_twice_gives_bit_identical_positions() {
    let mut a = busy_scene();
    let mut b = busy_scene();
    step(&mut a, 300);
    step(&mut b, 300);
    let (pa, pb) = (positions(&mut a), positions(&mut b));
    assert_eq!(pa.len(), 300);
    assert_eq!(pa, pb);
}
