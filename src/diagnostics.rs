//! [`PhysicsDiagnosticsPlugin`]: the step's counters and stage times as Bevy diagnostics, for
//! `LogDiagnosticsPlugin` and every other tool that reads the `DiagnosticsStore`.

use bevy::diagnostic::{Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::contacts::CollisionData;
use crate::pairs::store::ContactStore;
use crate::rest_skipping::memory::{ACTIVE, Awake};

use crate::PhysicsSystems;
use crate::timing::{STAGES, StageTimingPlugin, StageTimings};

/// Counters of the last step, for tools and the debug panel.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct PhysicsStats {
    /// Bodies in the partition.
    pub bodies: usize,
    /// Of those, the bodies the step processed in full; the others were at rest, left out of
    /// the step (see [`RestSkippingPlugin`](crate::RestSkippingPlugin)). All of them without it.
    pub awake_bodies: usize,
    /// Cells holding at least one body.
    pub occupied_cells: usize,
    /// Pairs whose boxes were compared (the pairs of two resting bodies are not: see
    /// [`RestSkippingPlugin`](crate::RestSkippingPlugin)).
    pub pairs_tested: usize,
    /// Pairs found overlapping or touching.
    pub pairs_found: usize,
    /// Relaxation passes that changed something (moved a body, or found one blocked on a new
    /// side), in the group of bodies that needed the most (0 with relaxation off). As many as
    /// [`PhysicsConfig::relaxation_passes`](crate::PhysicsConfig::relaxation_passes) allows means relaxation stopped at that limit, not
    /// because nothing was left to move.
    pub relaxation_passes: usize,
    /// Bodies relaxation moved (each once, however many passes moved it).
    pub relaxed_bodies: usize,
    /// How deep the two bodies deepest inside each other are where the step left them: the
    /// smaller axis of their overlap (how far one must move to leave the other), over the pairs
    /// detection found; 0 when no two overlap. Pairs with a
    /// [squished](crate::BodyState::is_squished) body are left out. Measured only with
    /// [`PhysicsConfig::measure_overlaps`](crate::PhysicsConfig::measure_overlaps) on (0
    /// otherwise).
    pub deepest_overlap: f32,
    /// Of the same pairs, how many overlap by more than one unit (0 unless
    /// [`PhysicsConfig::measure_overlaps`](crate::PhysicsConfig::measure_overlaps) is on).
    pub pairs_over_one_unit: usize,
}

/// Records, after every physics step, [`PhysicsStats`] and the time of each stage (from
/// [`StageTimingPlugin`], which it adds if the app has not) as diagnostics:
///
/// | path | value |
/// | --- | --- |
/// | `physics/bodies` | bodies in the partition |
/// | `physics/awake_bodies` | bodies the step processed in full |
/// | `physics/pairs_tested`, `physics/pairs_found` | pairs compared, pairs in contact |
/// | `physics/occupied_cells` | partition cells holding a body |
/// | `physics/relaxation_passes` | relaxation passes that changed something |
/// | `physics/relaxed_bodies` | bodies relaxation moved |
/// | `physics/deepest_overlap`, `physics/pairs_over_one_unit` | how deep the bodies are inside each other where the step left them (it turns [`PhysicsConfig::measure_overlaps`](crate::PhysicsConfig::measure_overlaps) on) |
/// | `physics/step_ms` | the whole step, ms |
/// | `physics/stage/integrate_ms` ... `physics/stage/sensors_ms` | each stage, ms |
///
/// Add it to an app that has the physics (and `MinimalPlugins` or `DefaultPlugins`, which bring
/// Bevy's `DiagnosticsPlugin`), in the physics schedule (`FixedUpdate` by default):
///
/// ```
/// use bevy::diagnostic::{DiagnosticsStore, LogDiagnosticsPlugin};
/// use bevy::prelude::*;
/// use bevy_platformer_physics::diagnostics::{BODIES, PhysicsDiagnosticsPlugin};
/// use bevy_platformer_physics::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((
///     MinimalPlugins,
///     PhysicsPlugin::default(),
///     PhysicsDiagnosticsPlugin::default(),
///     LogDiagnosticsPlugin::default(),
/// ));
/// app.world_mut()
///     .spawn((Aabb::new(Vec2::new(8.0, 8.0), Vec2::splat(4.0)), Velocity::default()));
/// app.world_mut().run_schedule(FixedUpdate);
/// let store = app.world().resource::<DiagnosticsStore>();
/// assert_eq!(store.get(&BODIES).unwrap().value(), Some(1.0));
/// ```
pub struct PhysicsDiagnosticsPlugin {
    /// The schedule the physics runs in (default `FixedUpdate`).
    pub schedule: bevy::ecs::schedule::InternedScheduleLabel,
}

impl Default for PhysicsDiagnosticsPlugin {
    fn default() -> Self {
        Self {
            schedule: FixedUpdate.intern(),
        }
    }
}

/// Bodies in the partition ([`PhysicsStats::bodies`]).
pub const BODIES: DiagnosticPath = DiagnosticPath::const_new("physics/bodies");
/// Bodies processed in full ([`PhysicsStats::awake_bodies`]).
pub const AWAKE_BODIES: DiagnosticPath = DiagnosticPath::const_new("physics/awake_bodies");
/// Pairs compared ([`PhysicsStats::pairs_tested`]).
pub const PAIRS_TESTED: DiagnosticPath = DiagnosticPath::const_new("physics/pairs_tested");
/// Pairs in contact ([`PhysicsStats::pairs_found`]).
pub const PAIRS_FOUND: DiagnosticPath = DiagnosticPath::const_new("physics/pairs_found");
/// Cells holding a body ([`PhysicsStats::occupied_cells`]).
pub const OCCUPIED_CELLS: DiagnosticPath = DiagnosticPath::const_new("physics/occupied_cells");
/// Relaxation passes that changed something ([`PhysicsStats::relaxation_passes`]).
pub const RELAXATION_PASSES: DiagnosticPath =
    DiagnosticPath::const_new("physics/relaxation_passes");
/// Bodies relaxation moved ([`PhysicsStats::relaxed_bodies`]).
pub const RELAXED_BODIES: DiagnosticPath = DiagnosticPath::const_new("physics/relaxed_bodies");
/// Pairs overlapping by more than one unit where the step left them
/// ([`PhysicsStats::pairs_over_one_unit`]).
pub const PAIRS_OVER_ONE_UNIT: DiagnosticPath =
    DiagnosticPath::const_new("physics/pairs_over_one_unit");
/// The deepest overlap of two bodies where the step left them
/// ([`PhysicsStats::deepest_overlap`]).
pub const DEEPEST_OVERLAP: DiagnosticPath = DiagnosticPath::const_new("physics/deepest_overlap");
/// The whole step, in milliseconds.
pub const STEP_MS: DiagnosticPath = DiagnosticPath::const_new("physics/step_ms");
/// Each stage, in milliseconds, in the order of [`StageTimings::by_stage`].
pub const STAGE_MS: [DiagnosticPath; STAGES.len()] = [
    DiagnosticPath::const_new("physics/stage/integrate_ms"),
    DiagnosticPath::const_new("physics/stage/tiles_ms"),
    DiagnosticPath::const_new("physics/stage/partition_ms"),
    DiagnosticPath::const_new("physics/stage/pairs_ms"),
    DiagnosticPath::const_new("physics/stage/respond_ms"),
    DiagnosticPath::const_new("physics/stage/relax_ms"),
    DiagnosticPath::const_new("physics/stage/sensors_ms"),
];

/// The counters, in the order they are recorded.
const COUNTERS: [DiagnosticPath; 8] = [
    BODIES,
    AWAKE_BODIES,
    PAIRS_TESTED,
    PAIRS_FOUND,
    OCCUPIED_CELLS,
    RELAXATION_PASSES,
    RELAXED_BODIES,
    PAIRS_OVER_ONE_UNIT,
];

impl Plugin for PhysicsDiagnosticsPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<StageTimingPlugin>() {
            app.add_plugins(StageTimingPlugin {
                schedule: self.schedule,
            });
        }
        for path in COUNTERS {
            app.register_diagnostic(Diagnostic::new(path));
        }
        app.register_diagnostic(Diagnostic::new(DEEPEST_OVERLAP))
            .add_systems(Startup, crate::config::measure_overlaps);
        app.register_diagnostic(Diagnostic::new(STEP_MS).with_suffix(" ms"));
        for path in STAGE_MS {
            app.register_diagnostic(Diagnostic::new(path).with_suffix(" ms"));
        }
        app.add_systems(
            self.schedule,
            // After the stage clock's last reading, so the times are this step's.
            record_diagnostics
                .after(PhysicsSystems::Sense)
                .after(crate::timing::mark::<{ crate::timing::LAST_MARK }>),
        );
    }
}

/// Records the last step's counters and stage times.
fn record_diagnostics(
    stats: Res<PhysicsStats>,
    timings: Option<Res<StageTimings>>,
    mut diagnostics: Diagnostics,
) {
    let counts = [
        stats.bodies,
        stats.awake_bodies,
        stats.pairs_tested,
        stats.pairs_found,
        stats.occupied_cells,
        stats.relaxation_passes,
        stats.relaxed_bodies,
        stats.pairs_over_one_unit,
    ];
    for (path, count) in COUNTERS.iter().zip(counts) {
        diagnostics.add_measurement(path, || count as f64);
    }
    diagnostics.add_measurement(&DEEPEST_OVERLAP, || f64::from(stats.deepest_overlap));
    let Some(timings) = timings else {
        return;
    };
    let ms = |d: core::time::Duration| d.as_secs_f64() * 1000.0;
    diagnostics.add_measurement(&STEP_MS, || ms(timings.total()));
    for (path, &time) in STAGE_MS.iter().zip(&timings.last) {
        diagnostics.add_measurement(path, || ms(time));
    }
}

/// How the last step treated a body ([`PhysicsInspector::last_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastStep {
    /// Processed in full.
    Processed,
    /// At rest, but a moving body came near it: its contacts were searched again and it
    /// responded to them (see [`RestSkippingPlugin`](crate::RestSkippingPlugin)).
    RestingResponded,
    /// At rest: left out of the step, its contacts kept.
    Resting,
    /// At rest and not in the partition (outside it, or not detected).
    RestingUndetected,
}

/// What the last step found for each body, for tools such as the debug panel: its contacts
/// (whether or not it has [`Contacts`](crate::Contacts)) and how the step treated it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::diagnostics::{LastStep, PhysicsInspector};
/// use bevy_platformer_physics::prelude::*;
///
/// fn report(inspector: PhysicsInspector, bodies: Query<Entity, With<Aabb>>) {
///     for entity in &bodies {
///         let contacts = inspector.contacts(entity).count();
///         if inspector.last_step(entity) == Some(LastStep::Processed) {
///             info!("{entity}: {contacts} contacts");
///         }
///     }
/// }
/// # let mut app = App::new();
/// # app.add_plugins((MinimalPlugins, PhysicsPlugin::default()));
/// # app.add_systems(Update, report);
/// # app.update();
/// ```
#[derive(SystemParam)]
pub struct PhysicsInspector<'w, 's> {
    store: Res<'w, ContactStore>,
    awake: Query<'w, 's, &'static Awake>,
}

impl PhysicsInspector<'_, '_> {
    /// `entity`'s contacts at the last pair detection, as its [`Contacts`](crate::Contacts)
    /// would hold them.
    pub fn contacts(&self, entity: Entity) -> impl ExactSizeIterator<Item = CollisionData> + '_ {
        self.store.of(entity)
    }

    /// How the last step treated `entity` (`None`: not a body).
    pub fn last_step(&self, entity: Entity) -> Option<LastStep> {
        let awake = self.awake.get(entity).ok()?;
        Some(match self.store.mode_of(entity) {
            _ if awake.is_awake() => LastStep::Processed,
            Some(m) if m & ACTIVE != 0 => LastStep::RestingResponded,
            Some(_) => LastStep::Resting,
            None => LastStep::RestingUndetected,
        })
    }
}
