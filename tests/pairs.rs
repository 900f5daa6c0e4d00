//! Pair detection (article 000): pairs are found once however many cells they share; touching
//! counts; the overlap's sign convention; crowded cells and new bodies.

use bevy::prelude::*;
use bevy_platformer_physics::geometry::signed_overlap;

use crate::common::*;
use crate::partition::{grid_app, others};

#[test]
fn boxes_touching_within_the_tolerance_across_a_cell_edge_touch_once() {
    let mut app = grid_app(4); // 64-unit cells: the edge x = 64 lies between the two boxes
    let half = Vec2::splat(8.0);
    let tolerance = PhysicsConfig::default().contact_tolerance;
    // Two boxes either side of the edge, `gap` apart, at height `y`.
    let pair = |app: &mut App, gap: f32, y: f32| {
        let at = |side: f32| Vec2::new(64.0 + side * (gap / 2.0 + 8.0), y);
        let left = spawn(app, at(-1.0), half, Vec2::ZERO);
        (left, spawn(app, at(1.0), half, Vec2::ZERO))
    };
    // A gap of 0.6 tolerance, then (far away) one of 2 tolerances.
    let gap = 0.6 * tolerance;
    let (left, right) = pair(&mut app, gap, 40.0);
    let (far_left, far_right) = pair(&mut app, 2.0 * tolerance, 400.0);
    step(&mut app, 1);
    assert_eq!(others(&app, left), [right]);
    assert_eq!(others(&app, right), [left]);
    let o = contacts(&app, left)[0].overlap;
    // The gap, signed against the way out (left would leave toward -x): +0.6 tolerance.
    assert!((o.x - gap).abs() < 1e-5, "{o}");
    assert!(flags(&app, left).pushes_object(Side::Right));
    assert!(flags(&app, right).pushes_object(Side::Left));
    assert_eq!(
        app.world().resource::<PhysicsStats>().pairs_found,
        1,
        "found once"
    );
    assert_eq!(others(&app, far_left), []);
    assert_eq!(others(&app, far_right), []);
    assert!(!flags(&app, far_left).pushes(Side::Right));
}

#[test]
fn body_spanning_3x3_cells_is_detected_against_small_bodies_in_each() {
    let mut app = grid_app(1); // 16-unit cells
    // Detection alone: relaxation would push the small boxes out of the big one at once.
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .relaxation_passes = 0;
    // Big box centred on cell (10, 10), reaching one cell beyond on every side.
    let big = spawn(&mut app, Vec2::splat(168.0), Vec2::splat(20.0), Vec2::ZERO);
    let mut small = Vec::new();
    for dy in -1..=1 {
        for dx in -1..=1 {
            let c = Vec2::new(168.0 + 16.0 * dx as f32, 168.0 + 16.0 * dy as f32);
            small.push(spawn(&mut app, c, Vec2::splat(2.0), Vec2::ZERO));
        }
    }
    step(&mut app, 1);
    let areas = app.world().get::<GridAreas>(big).unwrap().clone();
    assert_eq!(
        areas.areas().len(),
        9,
        "big body occupies 3 x 3 cells: {areas:?}"
    );
    let mut found = others(&app, big);
    found.sort();
    let mut expected = small.clone();
    expected.sort();
    assert_eq!(found, expected);
    for s in small {
        assert_eq!(others(&app, s), vec![big]);
    }
}

#[test]
fn pair_sharing_four_cells_is_reported_once() {
    let mut app = grid_app(1);
    // Both boxes straddle the corner where cells (9..=10, 9..=10) meet.
    let a = spawn(
        &mut app,
        Vec2::new(158.0, 158.0),
        Vec2::splat(5.0),
        Vec2::ZERO,
    );
    let b = spawn(
        &mut app,
        Vec2::new(162.0, 162.0),
        Vec2::splat(5.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    assert_eq!(app.world().get::<GridAreas>(a).unwrap().areas().len(), 4);
    assert_eq!(app.world().get::<GridAreas>(b).unwrap().areas().len(), 4);
    assert_eq!(others(&app, a), vec![b]);
    assert_eq!(others(&app, b), vec![a]);
    assert_eq!(app.world().resource::<PhysicsStats>().pairs_found, 1);
}

#[test]
fn touching_boxes_are_reported_with_zero_overlap() {
    let mut app = grid_app(16);
    let a = spawn(
        &mut app,
        Vec2::new(100.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let b = spawn(
        &mut app,
        Vec2::new(112.0, 104.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    // Touching across a cell boundary too: the boundary at x = 256 (16-tile cells).
    let c = spawn(
        &mut app,
        Vec2::new(250.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let d = spawn(
        &mut app,
        Vec2::new(262.0, 100.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    let ab = contacts(&app, a);
    assert_eq!(ab.len(), 1);
    assert_eq!(ab[0].overlap, Vec2::new(0.0, -8.0));
    assert_eq!(contacts(&app, b)[0].overlap, Vec2::new(0.0, 8.0));
    assert_eq!(others(&app, c), vec![d]);
    assert_eq!(contacts(&app, c)[0].overlap.x, 0.0);
    // Nothing moved: touching is not overlapping.
    assert_eq!(pos(&app, a), Vec2::new(100.0, 100.0));
    assert!(flags(&app, a).pushes_object(Side::Right) && flags(&app, b).pushes_object(Side::Left));
}

#[test]
fn overlap_sign_convention_of_article_000_holds_from_both_sides() {
    let mut app = grid_app(16);
    let a = spawn(
        &mut app,
        Vec2::new(100.0, 100.0),
        Vec2::splat(6.0),
        Vec2::new(30.0, 0.0),
    );
    // b overlaps a from the upper right by 2 on x and 9 on y.
    let b = spawn(
        &mut app,
        Vec2::new(110.0, 103.0),
        Vec2::splat(6.0),
        Vec2::new(-60.0, 0.0),
    );
    step(&mut app, 1);
    let from_a = contacts(&app, a)[0];
    let from_b = contacts(&app, b)[0];
    // a moved +0.5 and b -1 before detection: centres 8.5 apart, overlapping by 3.5 on x.
    assert_eq!(from_a.other, b);
    assert!(
        (from_a.overlap - Vec2::new(-3.5, -9.0)).length() < 1e-4,
        "{}",
        from_a.overlap
    );
    assert_eq!(from_b.overlap, -from_a.overlap);
    // Both speeds, both old and both new positions, from each side.
    assert_eq!(
        (from_a.velocity, from_a.other_velocity),
        (Vec2::new(30.0, 0.0), Vec2::new(-60.0, 0.0))
    );
    assert_eq!(
        (from_a.old_position, from_a.other_old_position),
        (Vec2::new(100.0, 100.0), Vec2::new(110.0, 103.0))
    );
    assert_eq!(from_a.position, from_b.other_position);
    assert_eq!(from_a.other_position, from_b.position);
}

/// A game's own marker component, one type per `K`.
#[derive(Component)]
struct Kind<const K: u8>;

#[test]
fn a_crowded_cell_reports_exactly_the_touching_pairs_once() {
    // 150 bodies in one 256-unit cell (more than the 64 the pair loop tests at a time): a
    // lattice of boxes touching their neighbours exactly, and larger boxes overlapping many.
    // One body in seven is on its own layer, and the bodies are of five kinds (five tables). No
    // gravity, no velocity: the pairs are those of
    // the spawned boxes, found by testing every pair. (Overlaps are compared in size: with
    // centres level on an axis, the sign on it depends on which body the pair names first.)
    let mut app = grid_app(16);
    let mut boxes = Vec::new();
    for k in 0..150 {
        // Spawned out of lattice order, so touching neighbours lie far apart in the cell's list.
        let i = k * 37 % 150;
        let (col, row) = (i % 12, i / 12);
        let (center, half) = if i % 10 == 9 {
            (
                Vec2::new(20.0 + 13.0 * col as f32, 24.0 + 9.0 * row as f32),
                Vec2::new(9.0, 4.5),
            )
        } else {
            (
                Vec2::new(10.0 + 10.0 * col as f32, 10.0 + 10.0 * row as f32),
                Vec2::splat(5.0),
            )
        };
        let layers = if i % 7 == 3 {
            CollisionLayers::new(LayerMask(2), LayerMask(2))
        } else {
            CollisionLayers::new(LayerMask(1), LayerMask(1))
        };
        let e = spawn(&mut app, center, half, Vec2::ZERO);
        let mut body = app.world_mut().entity_mut(e);
        body.insert(layers);
        // Five kinds of body, as a game has, so they lie in five tables of different sizes and
        // detection reads them table after table, not in spawn order.
        match [0, 0, 1, 2, 2, 2, 3, 4][k % 8] {
            0 => body.insert(Kind::<0>),
            1 => body.insert(Kind::<1>),
            2 => body.insert(Kind::<2>),
            3 => body.insert(Kind::<3>),
            _ => body.insert(Kind::<4>),
        };
        boxes.push((e, center, half, layers));
    }
    step(&mut app, 1);
    let expected_pairs = assert_every_overlapping_pair_found(&app, &boxes);
    let stats = *app.world().resource::<PhysicsStats>();
    assert_eq!(stats.pairs_found * 2, expected_pairs);
    assert!(stats.pairs_found > 300, "{stats:?}");
    // Every pair of the cell whose layers match is tested once.
    let same_layer = |k: u32| boxes.iter().filter(|b| b.3.memberships.0 == k).count();
    let pairs = |n: usize| n * (n - 1) / 2;
    assert_eq!(
        stats.pairs_tested,
        pairs(same_layer(1)) + pairs(same_layer(2))
    );
}

/// A spawned box: its entity, centre, half extents and layers.
type Box = (Entity, Vec2, Vec2, CollisionLayers);

/// Checks that every box of `boxes` has exactly the contacts found by testing it against every
/// other (compared by overlap size: with centres level on an axis, the sign on it depends on
/// which body the pair names first); returns how many contacts that is.
fn assert_every_overlapping_pair_found(app: &App, boxes: &[Box]) -> usize {
    let mut contacts_found = 0;
    for &(e, center, half, layers) in boxes {
        let mut expected: Vec<(Entity, Vec2)> = boxes
            .iter()
            .filter(|&&(o, ..)| o != e)
            .filter(|&&(.., l)| layers.interacts_with(l))
            .filter_map(|&(o, c, h, _)| signed_overlap(center, half, c, h).map(|v| (o, v.abs())))
            .collect();
        contacts_found += expected.len();
        let mut found: Vec<(Entity, Vec2)> = contacts(app, e)
            .iter()
            .map(|c| (c.other, c.overlap.abs()))
            .collect();
        expected.sort_by_key(|&(o, _)| o);
        found.sort_by_key(|&(o, _)| o);
        assert_eq!(found, expected, "{e}");
    }
    contacts_found
}

#[test]
fn bodies_spawned_between_steps_are_paired_at_their_first_detection() {
    // Pair detection enters each body in an entity-to-slot table sized by the entity indices
    // it has seen: bodies spawned later (new, larger indices) and bodies taking the index of a
    // despawned one (a new generation) must be found all the same. Three waves of overlapping boxes, every pass on the pool (one body is enough). No
    // gravity and no velocity: only the response moves them.
    let mut app = grid_app(4);
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .parallel_min_bodies = 1;
    let layers = CollisionLayers::default();
    let mut boxes: Vec<Box> = Vec::new();
    for wave in 0..3 {
        if wave == 2 {
            // Free every third index of the first wave for the next spawns.
            for (e, ..) in boxes.extract_if(.., |b| b.0.index_u32() % 3 == 0) {
                app.world_mut().despawn(e);
            }
        }
        for i in 0..400 {
            let center = Vec2::new(
                20.0 + (i % 40) as f32 * 14.0 + wave as f32 * 7.0,
                20.0 + (i / 40) as f32 * 14.0 + wave as f32 * 5.0,
            );
            let half = Vec2::new(6.0 + (i % 5) as f32, 5.0 + (i % 3) as f32);
            boxes.push((
                spawn(&mut app, center, half, Vec2::ZERO),
                center,
                half,
                layers,
            ));
        }
        // Detection sees the boxes where the last response left them.
        for b in &mut boxes {
            b.1 = app.world().get::<Aabb>(b.0).unwrap().center;
        }
        step(&mut app, 1);
        let contacts = assert_every_overlapping_pair_found(&app, &boxes);
        assert!(contacts > 500, "wave {wave}: {contacts} contacts");
    }
}
