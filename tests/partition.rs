//! The partition (article 000): cells always match every body's `GridAreas`, through jitter,
//! despawns, bodies outside the map and rebuilds (pair detection is in `pairs.rs`).

use bevy::prelude::*;
use bevy_platformer_physics::geometry::{pair_skin, signed_overlap_within};
use proptest::prelude::*;

use crate::common::*;

/// An app with cells of `tiles` tiles over a 64 x 64 map of 16-unit tiles, without gravity.
pub fn grid_app(tiles: u32) -> App {
    let mut app = app_without_gravity(empty_map(64, 64));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .partition_cell_tiles = tiles;
    app
}

pub fn others(app: &App, e: Entity) -> Vec<Entity> {
    contacts(app, e).iter().map(|c| c.other).collect()
}

#[derive(Clone, Debug)]
enum Op {
    Spawn { at: Vec2, half: Vec2 },
    Despawn(usize),
    Teleport(usize, Vec2),
    Resize(usize, Vec2),
    RemoveAabb(usize),
    MakeInvalid(usize),
    Step,
}

fn arb_op() -> impl Strategy<Value = Op> {
    // Positions reach well outside the 1024 x 1024 map; sizes reach past a 64-unit cell.
    let at = (-600.0f32..1700.0, -600.0f32..1700.0).prop_map(|(x, y)| Vec2::new(x, y));
    let half = (0.5f32..90.0, 0.5f32..90.0).prop_map(|(x, y)| Vec2::new(x, y));
    prop_oneof![
        3 => (at.clone(), half.clone()).prop_map(|(at, half)| Op::Spawn { at, half }),
        1 => any::<usize>().prop_map(Op::Despawn),
        2 => (any::<usize>(), at).prop_map(|(i, p)| Op::Teleport(i, p)),
        1 => (any::<usize>(), half).prop_map(|(i, h)| Op::Resize(i, h)),
        1 => any::<usize>().prop_map(Op::RemoveAabb),
        1 => any::<usize>().prop_map(Op::MakeInvalid),
        3 => Just(Op::Step),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn partition_matches_grid_areas_after_random_moves_spawns_despawns_and_resizes(
        ops in prop::collection::vec(arb_op(), 200..400),
    ) {
        let mut app = grid_app(4);
        let mut live: Vec<Entity> = Vec::new();
        for (n, op) in ops.iter().enumerate() {
            let pick = |i: usize| (!live.is_empty()).then(|| i % live.len());
            match op.clone() {
                Op::Spawn { at, half } => live.push(spawn(&mut app, at, half, Vec2::ZERO)),
                Op::Despawn(i) => {
                    if let Some(i) = pick(i) {
                        app.world_mut().despawn(live.swap_remove(i));
                    }
                }
                Op::Teleport(i, p) => {
                    if let Some(i) = pick(i)
                        && let Some(mut a) = app.world_mut().get_mut::<Aabb>(live[i])
                    {
                        a.center = p;
                    }
                }
                Op::Resize(i, h) => {
                    if let Some(i) = pick(i)
                        && let Some(mut a) = app.world_mut().get_mut::<Aabb>(live[i])
                    {
                        a.half_extents = h;
                    }
                }
                Op::RemoveAabb(i) => {
                    if let Some(i) = pick(i) {
                        app.world_mut().entity_mut(live[i]).remove::<Aabb>();
                    }
                }
                Op::MakeInvalid(i) => {
                    if let Some(i) = pick(i)
                        && let Some(mut a) = app.world_mut().get_mut::<Aabb>(live[i])
                    {
                        a.half_extents.x = -1.0;
                    }
                }
                Op::Step => step(&mut app, 1),
            }
            // Consistent after every operation, not only after steps: the hooks keep it so.
            prop_assert_eq!(verify_partition(&mut app), Ok(()), "after op {} {:?}", n, op);
        }
        step(&mut app, 1);
        prop_assert_eq!(verify_partition(&mut app), Ok(()));
        // After a step, exactly the bodies with a valid box are partitioned: in every cell their
        // boxes cover where the step left them (also those the response pushed apart), and in
        // no cell farther than `LEAVE_MARGIN_TILES` from it and relaxation's reach (a quarter
        // of a tile, by which every filed box is grown so near bodies share a cell).
        let world = app.world_mut();
        let mut q = world.query::<(&Aabb, &GridAreas)>();
        let world = app.world();
        let partition = world.resource::<Partition>();
        let margin = Vec2::splat(16.0 * (bevy_platformer_physics::partition::LEAVE_MARGIN_TILES + 0.25));
        let (cover, near) = (
            |a: &Aabb| partition.cell_range(a.min(), a.max()),
            |a: &Aabb| partition.cell_range(a.min() - margin, a.max() + margin),
        );
        for (aabb, areas) in q.iter(world) {
            if aabb.is_valid() {
                let (lo, hi) = areas.range().unwrap();
                let ((clo, chi), (nlo, nhi)) = (cover(aabb), near(aabb));
                prop_assert!(lo.cmple(clo).all() && hi.cmpge(chi).all(), "covers the box");
                prop_assert!(lo.cmpge(nlo).all() && hi.cmple(nhi).all(), "and little more");
            } else {
                prop_assert_eq!(areas.range(), None);
            }
        }
    }
}

#[test]
fn a_body_jittering_across_a_cell_edge_keeps_its_cells_until_it_moves_away() {
    let mut app = grid_app(4); // 64-unit cells
    // Relaxation off: its reach would grow the box filed by a quarter of a tile.
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .relaxation_passes = 0;
    // Right edge just short of the edge x = 64 between cells (0, 0) and (1, 0).
    let body = spawn(
        &mut app,
        Vec2::new(55.0, 20.0),
        Vec2::splat(8.0),
        Vec2::ZERO,
    );
    let range = |app: &App| app.world().get::<GridAreas>(body).unwrap().range().unwrap();
    let teleport = |app: &mut App, x: f32| {
        app.world_mut().get_mut::<Aabb>(body).unwrap().center.x = x;
        step(app, 1);
    };
    let (one, two) = ((UVec2::ZERO, UVec2::ZERO), (UVec2::ZERO, UVec2::new(1, 0)));
    step(&mut app, 1);
    assert_eq!(range(&app), one);
    // Across the edge: now in both cells.
    teleport(&mut app, 56.5);
    assert_eq!(range(&app), two);
    // Back by half a unit (less than the margin, a sixteenth of a 16-unit tile): kept in both.
    teleport(&mut app, 55.6);
    assert_eq!(range(&app), two, "a jitter does not change cells");
    teleport(&mut app, 56.4);
    assert_eq!(range(&app), two);
    // Farther than the margin from cell (1, 0): it leaves it.
    teleport(&mut app, 54.9);
    assert_eq!(range(&app), one);
    assert_eq!(verify_partition(&mut app), Ok(()));
    // A body is always in every cell its box covers, however it moves.
    teleport(&mut app, 56.01);
    assert_eq!(range(&app), two);
}

#[test]
fn bodies_kept_in_cells_they_jittered_out_of_are_still_paired_exactly_once() {
    // 16-unit cells and a lattice of 8-unit boxes every 8 units, every box side on a cell edge:
    // each step moves every box by less than the margin, to either side of its edges, so bodies
    // keep cells their boxes left. Every pair must still be found, once, against testing every
    // pair (touching within the contact tolerance counts).
    let mut app = grid_app(1);
    let mut seed = 0x9E37_79B9u32;
    let mut jitter = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed as f32 / u32::MAX as f32 - 0.5) * 1.2
    };
    let half = Vec2::splat(4.0);
    let base: Vec<Vec2> = (0..64)
        .map(|i| Vec2::new(108.0 + 8.0 * (i % 8) as f32, 108.0 + 8.0 * (i / 8) as f32))
        .collect();
    let bodies: Vec<Entity> = (base.iter())
        .map(|&c| spawn(&mut app, c, half, Vec2::ZERO))
        .collect();
    let mut kept_extra = 0;
    for _ in 0..60 {
        let at: Vec<Vec2> = base
            .iter()
            .map(|&c| c + Vec2::new(jitter(), jitter()))
            .collect();
        for (&e, &c) in bodies.iter().zip(&at) {
            app.world_mut().get_mut::<Aabb>(e).unwrap().center = c;
        }
        step(&mut app, 1);
        let partition = app.world().resource::<Partition>();
        let mut expected_pairs = 0;
        for (i, &e) in bodies.iter().enumerate() {
            let covered = partition.cell_range(at[i] - half, at[i] + half);
            // Boxes that touch within the contact tolerance touch.
            let skin = |c: Vec2| pair_skin(PhysicsConfig::default().contact_tolerance, at[i], c);
            let held = app.world().get::<GridAreas>(e).unwrap().range().unwrap();
            kept_extra += usize::from(held != covered);
            let mut expected: Vec<Entity> = (bodies.iter().zip(&at))
                .filter(|&(&o, &c)| {
                    o != e && signed_overlap_within(at[i], half, c, half, skin(c)).is_some()
                })
                .map(|(&o, _)| o)
                .collect();
            expected_pairs += expected.len();
            let mut found = others(&app, e);
            expected.sort();
            found.sort();
            assert_eq!(found, expected, "{e}");
        }
        let stats = app.world().resource::<PhysicsStats>();
        assert_eq!(stats.pairs_found * 2, expected_pairs, "each pair once");
    }
    assert!(
        kept_extra > 100,
        "bodies were kept in cells they left: {kept_extra}"
    );
}

#[test]
fn despawned_or_unboxed_bodies_leave_every_cell_at_once() {
    let mut app = grid_app(1);
    let big = spawn(&mut app, Vec2::splat(168.0), Vec2::splat(20.0), Vec2::ZERO);
    let keep = spawn(&mut app, Vec2::splat(168.0), Vec2::splat(2.0), Vec2::ZERO);
    let other = spawn(&mut app, Vec2::splat(300.0), Vec2::splat(20.0), Vec2::ZERO);
    step(&mut app, 1);
    app.world_mut().despawn(big);
    // Immediately, before any step: no cell holds it, and the swapped bodies' indices are fixed.
    assert_eq!(verify_partition(&mut app), Ok(()));
    let world = app.world();
    assert!(
        world
            .resource::<Partition>()
            .cells()
            .all(|(_, c)| !c.contains(&big))
    );
    app.world_mut().entity_mut(other).remove::<Aabb>();
    assert_eq!(verify_partition(&mut app), Ok(()));
    assert!(
        app.world()
            .resource::<Partition>()
            .cells()
            .all(|(_, c)| !c.contains(&other))
    );
    step(&mut app, 1);
    assert_eq!(verify_partition(&mut app), Ok(()));
    assert!(
        app.world()
            .resource::<Partition>()
            .cells()
            .any(|(_, c)| c.contains(&keep))
    );
}

#[test]
fn bodies_outside_the_map_are_still_partitioned_and_detected() {
    let mut app = grid_app(4);
    let a = spawn(
        &mut app,
        Vec2::new(-5000.0, 3000.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let b = spawn(
        &mut app,
        Vec2::new(-4990.0, 3000.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let far = spawn(
        &mut app,
        Vec2::new(-9000.0, 3000.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    assert_eq!(others(&app, a), vec![b]);
    assert!(
        others(&app, far).is_empty(),
        "same border cell, but not touching"
    );
    assert_eq!(verify_partition(&mut app), Ok(()));
}

#[test]
fn changing_the_map_or_cell_size_rebuilds_the_partition() {
    let mut app = grid_app(4);
    let a = spawn(
        &mut app,
        Vec2::new(100.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    assert_eq!(
        app.world().resource::<Partition>().dims(),
        UVec2::new(16, 16)
    );
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .partition_cell_tiles = 8;
    step(&mut app, 1);
    assert_eq!(app.world().resource::<Partition>().dims(), UVec2::new(8, 8));
    assert_eq!(verify_partition(&mut app), Ok(()));
    app.insert_resource(empty_map(200, 10));
    step(&mut app, 1);
    assert_eq!(
        app.world().resource::<Partition>().dims(),
        UVec2::new(25, 2)
    );
    assert_eq!(verify_partition(&mut app), Ok(()));
    assert!(app.world().get::<GridAreas>(a).unwrap().range().is_some());
}
