//! `PhysicsDiagnosticsPlugin`: the step's counters and stage times reach Bevy's diagnostics.

use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::prelude::*;
use bevy_platformer_physics::diagnostics::{
    AWAKE_BODIES, BODIES, PAIRS_FOUND, PhysicsDiagnosticsPlugin, RELAXATION_PASSES, RELAXED_BODIES,
    STAGE_MS, STEP_MS,
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
