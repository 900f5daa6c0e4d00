//! Debug overlays and the egui panel (cargo feature `debug` on the desktop, `web` in a
//! browser; both turn on `panel`): see the tiles, the partition,
//! the pairs and every body's flags, and why a body did what it did.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_platformer_physics::debug::DebugPlugin;
//! use bevy_platformer_physics::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, PhysicsPlugin::default(), DebugPlugin::default()))
//!     .run();
//! ```
//!
//! The panel switches each overlay, shows the counters of the last step and how long each
//! stage took (with a history graph), pauses, single-steps and slows down time, and inspects
//! the body you click: its `Aabb`, `Velocity`, `PushFlags` (this step and last) and every
//! `CollisionData` of its last pair detection (whether or not it has `Contacts`). It counts the
//! [`Squished`](crate::Squished) episodes and names the last one and what pressed it, and the
//! overlay flashes a squished body red for [`FLASH_SECONDS`] ([`SquishLog`]). It records the
//! last seconds of steps ([`TimeTravel`]): pause, drag the slider back through them, inspect
//! any body as it was, and resume from the step shown. Pointer
//! input over the panel belongs to the panel: guard your own mouse systems with
//! `not(bevy_egui::input::egui_wants_any_pointer_input)`.

mod overlays;
mod panel;
mod squishes;
mod time_travel;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;
use bevy_egui::{EguiPlugin, EguiPrimaryContextPass};

pub use crate::timing::{StageTimingPlugin, StageTimings};
pub use overlays::draw_shape;
pub use panel::{body_at, cursor_world_position};
pub use squishes::{FLASH_SECONDS, SquishLog};
pub use time_travel::{TimeTravel, TimeTravelPlugin};

/// Adds the gizmo overlays and the egui panel. Add it after [`PhysicsPlugin`]; it adds
/// `bevy_egui`'s `EguiPlugin` if the app has none.
///
/// [`PhysicsPlugin`]: crate::PhysicsPlugin
pub struct DebugPlugin {
    /// The schedule the physics runs in (to time its stages); default `FixedUpdate`.
    pub schedule: InternedScheduleLabel,
}

impl Default for DebugPlugin {
    fn default() -> Self {
        Self {
            schedule: FixedUpdate.intern(),
        }
    }
}

impl DebugPlugin {
    /// The overlays and panel for physics running in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

/// Which overlays are drawn. Switch them in the panel or from code.
#[derive(Resource, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct DebugOverlays {
    /// The tile grid and each tile's kind.
    pub tiles: bool,
    /// Partition cells that hold bodies, with their body counts.
    pub partition: bool,
    /// Every body's box, coloured by state (grounded, airborne, kinematic, selected).
    pub bodies: bool,
    /// A line between the centres of each overlapping or touching pair.
    pub pairs: bool,
    /// The normal of each contact, at the contact.
    pub normals: bool,
    /// Each body's velocity as an arrow (a tenth of a second of motion).
    pub velocities: bool,
    /// The sides that push a tile (yellow) or a body (red), as highlighted box sides.
    pub push_flags: bool,
    /// Every [`Sensor`](crate::sensors::Sensor)'s shape (brighter while it holds bodies), with
    /// a line to each body inside.
    pub sensors: bool,
    /// Show the panel.
    pub panel: bool,
}

impl Default for DebugOverlays {
    fn default() -> Self {
        Self {
            tiles: true,
            partition: true,
            bodies: true,
            pairs: true,
            normals: false,
            velocities: false,
            push_flags: true,
            sensors: true,
            panel: true,
        }
    }
}

/// The body the panel inspects (click a body to select it).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugSelection(pub Option<Entity>);

impl Plugin for DebugPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        app.init_resource::<DebugOverlays>()
            .add_systems(Startup, crate::config::measure_overlaps)
            .init_resource::<DebugSelection>()
            .init_resource::<SquishLog>()
            .register_type::<DebugOverlays>();
        if !app.is_plugin_added::<TimeTravelPlugin>() {
            app.add_plugins(TimeTravelPlugin {
                schedule: self.schedule,
            });
        }
        if !app.is_plugin_added::<StageTimingPlugin>() {
            app.add_plugins(StageTimingPlugin {
                schedule: self.schedule,
            });
        }
        app.add_systems(
            Update,
            (
                panel::select_clicked_body
                    .run_if(not(bevy_egui::input::egui_wants_any_pointer_input)),
                squishes::note_squishes,
                overlays::draw_overlays.after(squishes::note_squishes),
            ),
        )
        .add_systems(EguiPrimaryContextPass, panel::draw_panel);
    }
}
