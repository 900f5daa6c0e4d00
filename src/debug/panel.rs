//! The egui panel: overlay switches, counters, stage timings, time controls, body inspector
//! (with the sensors a body is in).

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, egui};

use super::squishes::describe;
use super::{DebugOverlays, DebugSelection, SquishLog, StageTimings, TimeTravel};
use crate::body::{Aabb, BodyState, Velocity};
use crate::diagnostics::{LastStep, PhysicsInspector, PhysicsStats};
use crate::flags::{PushFlags, Side};
use crate::partition::Partition;
use crate::sensors::SensorContents;
use crate::timing::STAGES;

/// The world position under the cursor of the primary window, seen by the first active 2D
/// camera, if the cursor is in the window.
pub fn cursor_world_position(
    window: &Window,
    cameras: &Query<(&Camera, &GlobalTransform)>,
) -> Option<Vec2> {
    let cursor = window.cursor_position()?;
    cameras
        .iter()
        .filter(|(camera, _)| camera.is_active)
        .find_map(|(camera, transform)| camera.viewport_to_world_2d(transform, cursor).ok())
}

/// The smallest body whose box contains `point`.
pub fn body_at<'a>(
    point: Vec2,
    bodies: impl IntoIterator<Item = (Entity, &'a Aabb)>,
) -> Option<Entity> {
    bodies
        .into_iter()
        .filter(|(_, a)| {
            let (min, max) = (a.min(), a.max());
            point.cmpge(min).all() && point.cmple(max).all()
        })
        .min_by(|(_, a), (_, b)| {
            a.size()
                .element_product()
                .total_cmp(&b.size().element_product())
        })
        .map(|(e, _)| e)
}

pub(super) fn select_clicked_body(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform)>,
    bodies: Query<(Entity, &Aabb)>,
    mut selection: ResMut<DebugSelection>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    if let Some(point) = cursor_world_position(&window, &cameras) {
        selection.0 = body_at(point, bodies);
    }
}

#[derive(SystemParam)]
pub(super) struct PanelData<'w, 's> {
    overlays: ResMut<'w, DebugOverlays>,
    selection: ResMut<'w, DebugSelection>,
    stats: Res<'w, PhysicsStats>,
    timings: Res<'w, StageTimings>,
    squishes: Res<'w, SquishLog>,
    partition: Res<'w, Partition>,
    virtual_time: ResMut<'w, Time<Virtual>>,
    fixed_time: ResMut<'w, Time<Fixed>>,
    travel: ResMut<'w, TimeTravel>,
    cameras: Query<'w, 's, (&'static Camera, &'static GlobalTransform)>,
    bodies: Query<
        'w,
        's,
        (
            &'static Aabb,
            &'static Velocity,
            &'static PushFlags,
            &'static BodyState,
        ),
    >,
    inspector: PhysicsInspector<'w, 's>,
    sensors: Query<'w, 's, (Entity, &'static SensorContents)>,
}

const STAGE_COLORS: [egui::Color32; STAGES.len()] = [
    egui::Color32::from_rgb(120, 200, 255),
    egui::Color32::from_rgb(255, 210, 80),
    egui::Color32::from_rgb(190, 120, 255),
    egui::Color32::from_rgb(120, 255, 150),
    egui::Color32::from_rgb(255, 120, 120),
    egui::Color32::from_rgb(255, 160, 200),
    egui::Color32::from_rgb(100, 255, 210),
];

pub(super) fn draw_panel(mut contexts: EguiContexts, mut data: PanelData) -> Result {
    let ctx = contexts.ctx_mut()?;
    if data.overlays.partition {
        label_cells(ctx, &data);
    }
    if !data.overlays.panel {
        return Ok(());
    }
    egui::Window::new("Physics debug")
        .default_pos([8.0, 8.0])
        .default_width(280.0)
        .show(ctx, |ui| {
            overlay_switches(ui, &mut data.overlays);
            ui.separator();
            let sensed = (
                data.sensors.iter().len(),
                data.sensors.iter().map(|(_, c)| c.bodies().len()).sum(),
            );
            counters(ui, &data.stats, sensed);
            squish_counter(ui, &data.squishes);
            ui.separator();
            timings(ui, &data.timings);
            ui.separator();
            time_controls(ui, &mut data.virtual_time, &mut data.fixed_time);
            time_travel(ui, &mut data.travel, &data.virtual_time, &data.fixed_time);
            ui.separator();
            inspector(ui, &mut data);
        });
    Ok(())
}

fn overlay_switches(ui: &mut egui::Ui, o: &mut DebugOverlays) {
    ui.label("Overlays");
    egui::Grid::new("overlays").num_columns(2).show(ui, |ui| {
        ui.checkbox(&mut o.tiles, "tiles");
        ui.checkbox(&mut o.partition, "partition cells");
        ui.end_row();
        ui.checkbox(&mut o.bodies, "bodies");
        ui.checkbox(&mut o.pairs, "pairs");
        ui.end_row();
        ui.checkbox(&mut o.normals, "contact normals");
        ui.checkbox(&mut o.velocities, "velocities");
        ui.end_row();
        ui.checkbox(&mut o.push_flags, "push flags");
        ui.checkbox(&mut o.sensors, "sensors");
        ui.end_row();
    });
}

/// The counters; `sensed` is (sensors, bodies inside them, counted once per sensor).
fn counters(ui: &mut egui::Ui, s: &PhysicsStats, sensed: (usize, usize)) {
    egui::Grid::new("counters").num_columns(2).show(ui, |ui| {
        for (name, value) in [
            ("bodies", s.bodies),
            ("awake (the rest left out)", s.awake_bodies),
            ("occupied cells", s.occupied_cells),
            ("pairs tested", s.pairs_tested),
            ("pairs in contact", s.pairs_found),
            ("relaxation passes", s.relaxation_passes),
            ("bodies relaxed", s.relaxed_bodies),
            ("pairs over one unit", s.pairs_over_one_unit),
            ("sensors", sensed.0),
            ("bodies in sensors", sensed.1),
        ] {
            ui.label(name);
            ui.monospace(value.to_string());
            ui.end_row();
        }
        ui.label("deepest overlap");
        ui.monospace(format!("{:.3}", s.deepest_overlap));
        ui.end_row();
    });
}

/// The squished episodes, and the last one (the body and what pressed it).
fn squish_counter(ui: &mut egui::Ui, log: &SquishLog) {
    ui.horizontal(|ui| {
        ui.label("squished (episodes)");
        ui.monospace(log.episodes.to_string());
    });
    if let Some(last) = &log.last {
        ui.label(format!("last: {}", describe(last)));
    }
}

fn timings(ui: &mut egui::Ui, t: &StageTimings) {
    ui.label(format!(
        "last step: {:.3} ms",
        t.total().as_secs_f64() * 1000.0
    ));
    egui::Grid::new("stages").num_columns(2).show(ui, |ui| {
        for (i, name) in STAGES.iter().enumerate() {
            ui.colored_label(STAGE_COLORS[i], *name);
            ui.monospace(format!("{:8.3} ms", t.last[i].as_secs_f64() * 1000.0));
            ui.end_row();
        }
    });
    // History: one line per stage, scaled to the largest value shown.
    let (rect, _) = ui.allocate_exact_size(egui::vec2(260.0, 60.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(20));
    let peak = t
        .history
        .iter()
        .flat_map(|s| s.iter().copied())
        .fold(0.01f32, f32::max);
    let n = t.history.len().max(2) as f32;
    for (stage, color) in STAGE_COLORS.iter().enumerate() {
        let points: Vec<egui::Pos2> = t
            .history
            .iter()
            .enumerate()
            .map(|(i, s)| {
                egui::pos2(
                    rect.left() + rect.width() * i as f32 / (n - 1.0),
                    rect.bottom() - rect.height() * (s[stage] / peak),
                )
            })
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.0, *color)));
    }
    ui.small(format!(
        "peak {peak:.3} ms over the last {} steps",
        t.history.len()
    ));
}

fn time_controls(ui: &mut egui::Ui, virt: &mut Time<Virtual>, fixed: &mut Time<Fixed>) {
    ui.horizontal(|ui| {
        if virt.is_paused() {
            if ui.button("Resume").clicked() {
                virt.unpause();
            }
            if ui.button("Step").clicked() {
                // The fixed loop runs one step from the accumulated time, even while paused.
                let step = fixed.timestep();
                fixed.accumulate_overstep(step);
            }
        } else if ui.button("Pause").clicked() {
            virt.pause();
        }
    });
    let mut scale = virt.relative_speed();
    if ui
        .add(egui::Slider::new(&mut scale, 0.05..=2.0).text("time scale"))
        .changed()
    {
        virt.set_relative_speed(scale);
    }
}

/// The recorded steps, and (while paused) a slider back through them.
fn time_travel(
    ui: &mut egui::Ui,
    travel: &mut TimeTravel,
    virt: &Time<Virtual>,
    fixed: &Time<Fixed>,
) {
    let n = travel.recorded();
    ui.small(format!(
        "recorded {n} steps ({:.1} s, {:.1} MB)",
        n as f32 * fixed.timestep().as_secs_f32(),
        travel.bytes() as f32 / 1e6
    ));
    if !virt.is_paused() || n == 0 {
        ui.small("Pause to go back through them.");
        return;
    }
    let mut k = travel.shown().unwrap_or(n - 1);
    let slider = egui::Slider::new(&mut k, 0..=n - 1).text("step shown");
    if ui.add(slider).changed() {
        travel.go_to(k);
    }
    if travel.shown().is_some_and(|k| k + 1 < n) {
        ui.small(format!(
            "{} steps back: Resume or Step goes on from here (the later steps are dropped).",
            n - 1 - k
        ));
    }
    if let Some(failure) = travel.failure() {
        ui.colored_label(
            egui::Color32::LIGHT_RED,
            format!("cannot go back: {failure}"),
        );
    }
}

fn inspector(ui: &mut egui::Ui, data: &mut PanelData) {
    let Some(entity) = data.selection.0 else {
        ui.label("Click a body to inspect it.");
        return;
    };
    let Ok((aabb, velocity, flags, state)) = data.bodies.get(entity) else {
        ui.label(format!("{entity} is gone."));
        data.selection.0 = None;
        return;
    };
    ui.label(format!("Body {entity}"));
    egui::Grid::new("inspect").num_columns(2).show(ui, |ui| {
        let rows = [
            (
                "centre",
                format!("{:.3}, {:.3}", aabb.center.x, aabb.center.y),
            ),
            (
                "half extents",
                format!("{:.3}, {:.3}", aabb.half_extents.x, aabb.half_extents.y),
            ),
            ("velocity", format!("{:.3}, {:.3}", velocity.x, velocity.y)),
            (
                "pushes",
                sides(|s| flags.pushes_tile(s), |s| flags.pushes_object(s)),
            ),
            (
                "pushed",
                sides(|s| flags.pushed_tile(s), |s| flags.pushed_object(s)),
            ),
            ("last step", step_kind(data.inspector.last_step(entity))),
            ("standing on", format!("{:?}", state.standing_on)),
            ("on ladder", state.overlaps_ladder.to_string()),
            ("in sensors", {
                let inside: Vec<String> = data
                    .sensors
                    .iter()
                    .filter(|(_, c)| c.contains(entity))
                    .map(|(s, _)| s.to_string())
                    .collect();
                if inside.is_empty() {
                    "-".into()
                } else {
                    inside.join(" ")
                }
            }),
        ];
        for (name, value) in rows {
            ui.label(name);
            ui.monospace(value);
            ui.end_row();
        }
    });
    // From the last detection, whether or not the body has `Contacts`.
    let contacts = data.inspector.contacts(entity);
    ui.label(format!("{} contacts", contacts.len()));
    egui::ScrollArea::vertical()
        .max_height(180.0)
        .show(ui, |ui| {
            for c in contacts {
                ui.monospace(format!(
                    "{}{}\n overlap {:.3}, {:.3}\n v {:.1}, {:.1} | other v {:.1}, {:.1}\n \
                 pos {:.2}, {:.2} (was {:.2}, {:.2})\n other {:.2}, {:.2} (was {:.2}, {:.2})",
                    c.other,
                    if c.other_kinematic {
                        " (kinematic)"
                    } else {
                        ""
                    },
                    c.overlap.x,
                    c.overlap.y,
                    c.velocity.x,
                    c.velocity.y,
                    c.other_velocity.x,
                    c.other_velocity.y,
                    c.position.x,
                    c.position.y,
                    c.old_position.x,
                    c.old_position.y,
                    c.other_position.x,
                    c.other_position.y,
                    c.other_old_position.x,
                    c.other_old_position.y,
                ));
            }
        });
}

/// How the last step treated a body.
fn step_kind(last: Option<LastStep>) -> String {
    match last {
        Some(LastStep::Processed) => "awake: processed in full",
        Some(LastStep::RestingResponded) => "at rest, its contacts searched: responded",
        Some(LastStep::Resting) => "at rest: left out",
        Some(LastStep::RestingUndetected) => "at rest, not detected",
        None => "-",
    }
    .into()
}

/// "L:tile R:body ..." for the sides set in either group.
fn sides(tile: impl Fn(Side) -> bool, object: impl Fn(Side) -> bool) -> String {
    let parts: Vec<String> = Side::ALL
        .into_iter()
        .filter_map(|s| {
            let what = match (tile(s), object(s)) {
                (true, true) => "tile+body",
                (true, false) => "tile",
                (false, true) => "body",
                (false, false) => return None,
            };
            Some(format!("{s:?}:{what}"))
        })
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(" ")
    }
}

/// Writes each occupied cell's body count at its centre, behind the panel.
fn label_cells(ctx: &egui::Context, data: &PanelData) {
    let Some((camera, transform)) = data.cameras.iter().find(|(c, _)| c.is_active) else {
        return;
    };
    let painter = ctx.layer_painter(egui::LayerId::background());
    for (cell, list) in data.partition.cells() {
        if list.is_empty() {
            continue;
        }
        let r = data.partition.cell_rect(cell);
        let corner = Vec2::new(r.min.x + 4.0, r.max.y - 4.0);
        if let Ok(p) = camera.world_to_viewport(transform, corner.extend(0.0)) {
            painter.text(
                egui::pos2(p.x, p.y),
                egui::Align2::LEFT_TOP,
                list.len().to_string(),
                egui::FontId::monospace(11.0),
                egui::Color32::from_rgb(200, 150, 255),
            );
        }
    }
}
