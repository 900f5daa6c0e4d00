//! `PhysicsDiagnosticsPlugin`: the step's counters and stage times reach Bevy's diagnostics.

use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_platformer_physics::diagnostics::{
    AWAKE_BODIES, BODIES, DEEPEST_OVERLAP, LastStep, PAIRS_FOUND, PAIRS_OVER_ONE_UNIT,
    PhysicsDiagnosticsPlugin, PhysicsInspector, RELAXATION_PASSES, RELAXED_BODIES, STAGE_MS,
    STEP_MS,
};

use crate::common::*;

#[test]
fn the_step_counters_and_stage_times_are_bevy_diagnostics() {
    let mut app = app(ascii("#........#\n##########"));
    app.add_plugins(PhysicsDiagnosticsPlugin::default());
    // Two boxes spawned overlapping, and one far from them.
    spawn(
        &mut app,
        Vec2::new(40.0, 24.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    spawn(
        &mut app,
        Vec2::new(40.0, 34.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    spawn(
        &mut app,
        Vec2::new(120.0, 60.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 3);
    let store = app.world().resource::<DiagnosticsStore>();
    let value = |path: &DiagnosticPath| store.get(path).and_then(|d| d.value());
    let stats = *app.world().resource::<PhysicsStats>();
    assert_eq!(value(&BODIES), Some(3.0));
    assert_eq!(value(&AWAKE_BODIES), Some(stats.awake_bodies as f64));
    assert_eq!(value(&PAIRS_FOUND), Some(1.0), "{stats:?}");
    // Relaxation is off by default.
    assert_eq!(value(&RELAXATION_PASSES), Some(0.0));
    assert_eq!(value(&RELAXED_BODIES), Some(0.0));
    let step_ms = value(&STEP_MS).expect("the step's time");
    let stages: f64 = STAGE_MS
        .iter()
        .map(|p| value(p).expect("a stage's time"))
        .sum();
    assert!(
        step_ms > 0.0 && (stages - step_ms).abs() < 1e-9,
        "{stages} {step_ms}"
    );
    // One measurement per step.
    assert_eq!(store.get(&BODIES).unwrap().history_len(), 3);
}

/// The deepest overlap (the smaller axis) of the pairs detection found among `boxes` (each
/// body's `Contacts`), where the step left them, and how many of those overlap by more than one
/// unit.
fn detected_overlaps(app: &App, boxes: &[Entity]) -> (f32, usize) {
    let (mut deepest, mut over) = (0.0f32, 0);
    for &a in boxes {
        for c in contacts(app, a) {
            if c.other.to_bits() <= a.to_bits() {
                continue;
            }
            let (pa, pb) = (aabb(app, a), aabb(app, c.other));
            let o = (pa.half_extents + pb.half_extents) - (pa.center - pb.center).abs();
            deepest = deepest.max(o.min_element());
            over += usize::from(o.min_element() > 1.0);
        }
    }
    (deepest, over)
}

#[test]
fn the_stats_give_the_deepest_overlap_where_the_step_left_the_bodies() {
    // A tower of ten crates spawned 8 units inside each other: without relaxation they stay
    // inside each other for a while, with it they part.
    for passes in [0, 4] {
        let mut app = relaxed_app(floor_room(), passes);
        app.add_plugins(PhysicsDiagnosticsPlugin::default());
        // Off by default; the diagnostics plugin turns it on at startup.
        assert!(!app.world().resource::<PhysicsConfig>().measure_overlaps);
        app.update();
        assert!(app.world().resource::<PhysicsConfig>().measure_overlaps);
        let boxes: Vec<Entity> = (0..10)
            .map(|i| {
                let at = Vec2::new(300.0 + (i % 3) as f32, 22.0 + 4.0 * i as f32);
                spawn(&mut app, at, Vec2::splat(6.0), Vec2::ZERO)
            })
            .collect();
        let (mut deepest, mut worst_over) = (0.0f32, 0);
        for i in 0..120 {
            step(&mut app, 1);
            let stats = *app.world().resource::<PhysicsStats>();
            let (detected, over) = detected_overlaps(&app, &boxes);
            assert_eq!(
                (stats.deepest_overlap, stats.pairs_over_one_unit),
                (detected, over),
                "{passes} passes, step {i}"
            );
            // Every pair, detected or not, for the figures below.
            deepest = deepest.max(max_pair_overlap(&app, &boxes));
            worst_over = worst_over.max(over);
        }
        let store = app.world().resource::<DiagnosticsStore>();
        let stats = *app.world().resource::<PhysicsStats>();
        let value = |path: &DiagnosticPath| store.get(path).and_then(|d| d.value());
        assert_eq!(
            value(&DEEPEST_OVERLAP),
            Some(f64::from(stats.deepest_overlap))
        );
        assert_eq!(
            value(&PAIRS_OVER_ONE_UNIT),
            Some(stats.pairs_over_one_unit as f64)
        );
        if passes == 0 {
            assert!(
                deepest > 1.0 && worst_over > 0,
                "sank: {deepest} {worst_over}"
            );
        } else {
            assert!(deepest < 0.1 && worst_over == 0, "parted: {deepest}");
        }
    }
}

/// `(contacts' other bodies, last step)` of `entity`, through the public inspector.
fn inspect(app: &mut App, entity: Entity) -> (Vec<Entity>, Option<LastStep>) {
    let mut state = SystemState::<PhysicsInspector>::new(app.world_mut());
    let inspector = state.get(app.world()).expect("the physics resources exist");
    let others = inspector.contacts(entity).map(|c| c.other).collect();
    (others, inspector.last_step(entity))
}

#[test]
fn the_inspector_reports_each_bodys_contacts_and_how_the_step_treated_it() {
    let mut app = app(ascii("#........#\n##########"));
    // A crate on a crate on the floor; neither has `Contacts`.
    let below = spawn_unlisted(&mut app, Vec2::new(40.0, 22.0));
    let above = spawn_unlisted(&mut app, Vec2::new(40.0, 34.0));
    step(&mut app, 1);
    assert_eq!(
        inspect(&mut app, below),
        (vec![above], Some(LastStep::Processed))
    );
    assert_eq!(inspect(&mut app, above).0, vec![below]);
    // Once they rest, the step leaves them out and keeps their contacts.
    step(&mut app, 30);
    assert_eq!(
        inspect(&mut app, below),
        (vec![above], Some(LastStep::Resting))
    );
    // A body walking into the crate below: the crate stays at rest (the walker takes the whole
    // overlap), but responds to the walker, found again at each step.
    let walker = spawn(
        &mut app,
        Vec2::new(60.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    for _ in 0..20 {
        set_vel(&mut app, walker, Vec2::new(-60.0, 0.0));
        step(&mut app, 1);
    }
    let (touching, last) = inspect(&mut app, walker);
    assert!(touching.contains(&below), "{touching:?}");
    assert_eq!(last, Some(LastStep::Processed));
    assert_eq!(inspect(&mut app, below).1, Some(LastStep::RestingResponded));
    // Not a body.
    let other = app.world_mut().spawn_empty().id();
    assert_eq!(inspect(&mut app, other), (vec![], None));
}
