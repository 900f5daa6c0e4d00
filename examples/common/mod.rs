//! Shared by the windowed examples: sprites for tiles and bodies, the camera, and what their
//! window tests use to read a screenshot and give a verdict.

use bevy::asset::AssetMetaCheck;
use bevy::prelude::*;
use bevy_platformer_physics::interpolation::TranslationInterpolation;
use bevy_platformer_physics::levels::{LevelCrate, PathPlatform};
use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::tiles::SlopeTile;

pub const SOLID: Color = Color::srgb(0.36, 0.37, 0.45);
pub const ONE_WAY: Color = Color::srgb(0.25, 0.7, 0.75);
pub const LADDER: Color = Color::srgb(0.62, 0.42, 0.2);
pub const BACKGROUND: Color = Color::srgb(0.07, 0.09, 0.18);
/// Tints of the level's moving platforms: solid ones, and one-way ones (like one-way tiles).
pub const PLATFORM: Color = Color::srgb(1.0, 0.75, 0.45);
pub const LIFT: Color = Color::srgb(0.55, 0.9, 0.95);

/// Marks the sprites drawn for the tile map.
#[derive(Component)]
pub struct TileSprite;

/// A body drawn as a sprite of its box, in this colour.
#[derive(Component, Clone, Copy)]
pub struct BodySprite(pub Color);

/// The project's tileset (`assets/sprites/tiles.png`, drawn by `assets/tools/generate.py`):
/// while this resource exists, tiles are drawn with it instead of plain colours.
#[derive(Resource, Clone)]
pub struct Tileset {
    pub image: Handle<Image>,
    pub layout: Handle<TextureAtlasLayout>,
}

/// The tileset's pictures, in its order.
pub const SOLID_SPRITE: usize = 0;
pub const ONE_WAY_SPRITE: usize = 1;
pub const LADDER_SPRITE: usize = 2;
pub const CRATE_SPRITE: usize = 4;
pub const CHARACTER_SPRITE: usize = 5;
pub const PLATFORM_SPRITE: usize = 6;
pub const FIRST_SLOPE_SPRITE: usize = 7;
/// Pictures in the tileset: the seven above, then the eighteen slopes.
pub const TILESET_PICTURES: u32 = 25;

impl Tileset {
    /// Loads the tileset ([`TILESET_PICTURES`] 16 x 16 pictures in a row).
    pub fn load(assets: &AssetServer, layouts: &mut Assets<TextureAtlasLayout>) -> Self {
        let layout =
            TextureAtlasLayout::from_grid(UVec2::splat(16), TILESET_PICTURES, 1, None, None);
        Self {
            image: assets.load("sprites/tiles.png"),
            layout: layouts.add(layout),
        }
    }

    /// A sprite of picture `index`, `size` units large.
    pub fn sprite(&self, index: usize, size: Vec2) -> Sprite {
        let atlas = TextureAtlas {
            layout: self.layout.clone(),
            index,
        };
        Sprite {
            custom_size: Some(size),
            ..Sprite::from_atlas_image(self.image.clone(), atlas)
        }
    }
}

/// Sprites for tiles and bodies, and the clear colour.
pub struct SpritesPlugin;

impl Plugin for SpritesPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(BACKGROUND))
            .add_systems(Update, (rebuild_tile_sprites, draw_bodies));
    }
}

/// Redraws every tile when the map changes (the maps here are small).
fn rebuild_tile_sprites(
    mut commands: Commands,
    map: Res<TileMap>,
    tileset: Option<Res<Tileset>>,
    old: Query<Entity, With<TileSprite>>,
    (mut meshes, mut materials): (ResMut<Assets<Mesh>>, ResMut<Assets<ColorMaterial>>),
) {
    if !map.is_changed() && !tileset.as_ref().is_some_and(|t| t.is_added()) {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let size = map.tile_size();
    for y in 0..map.height() as i32 {
        for x in 0..map.width() as i32 {
            let (min, max) = map.tile_rect(x, y);
            let center = (min + max) / 2.0;
            if let Some(slope) = map.get(x, y).slope().filter(|_| tileset.is_none()) {
                // Its solid part, as a polygon around the tile's centre.
                let tile = SlopeTile { slope, min, max };
                let polygon = tile.polygon();
                let corners = polygon.corners().iter().map(|&p| p - center);
                let Ok(polygon) = ConvexPolygon::new(corners) else {
                    continue;
                };
                let color = if slope.one_way { ONE_WAY } else { SOLID };
                commands.spawn((
                    TileSprite,
                    Mesh2d(meshes.add(polygon)),
                    MeshMaterial2d(materials.add(color)),
                    Transform::from_xyz(center.x, center.y, -1.0),
                ));
                continue;
            }
            if let Some(tileset) = &tileset {
                let index = match map.get(x, y) {
                    TileKind::Empty => continue,
                    TileKind::Solid => SOLID_SPRITE,
                    TileKind::OneWay => ONE_WAY_SPRITE,
                    TileKind::Ladder => LADDER_SPRITE,
                    // The slopes follow the seven pictures, in the order of their characters.
                    kind => match TileKind::CHARS[4..].iter().position(|&(_, k)| k == kind) {
                        Some(i) => FIRST_SLOPE_SPRITE + i,
                        None => continue,
                    },
                };
                commands.spawn((
                    TileSprite,
                    tileset.sprite(index, Vec2::splat(size)),
                    Transform::from_xyz(center.x, center.y, -1.0),
                ));
                continue;
            }
            let (color, sprite_size, offset) = match map.get(x, y) {
                TileKind::Empty => continue,
                TileKind::Solid => (SOLID, Vec2::splat(size - 1.0), 0.0),
                TileKind::OneWay => (ONE_WAY, Vec2::new(size, size * 0.25), size * 0.375),
                TileKind::Ladder => (LADDER, Vec2::new(size * 0.6, size), 0.0),
                _ => continue,
            };
            commands.spawn((
                TileSprite,
                Sprite::from_color(color, sprite_size),
                Transform::from_xyz(center.x, center.y + offset, -1.0),
            ));
        }
    }
}

/// Body sprites follow their box size; bodies touching another body are semi-transparent
/// (the articles' demo).
fn draw_bodies(mut bodies: Query<(&Aabb, Option<&Contacts>, &BodySprite, &mut Sprite)>) {
    for (aabb, contacts, look, mut sprite) in &mut bodies {
        let size = aabb.size().abs();
        if sprite.custom_size != Some(size) {
            sprite.custom_size = Some(size);
        }
        let color = if contacts.is_none_or(|c| c.is_empty()) {
            look.0
        } else {
            look.0.with_alpha(0.5)
        };
        if sprite.color != color {
            sprite.color = color;
        }
    }
}

/// A body with a sprite of its box, and its contacts listed (`Contacts` is opt-in; the sprite
/// shows whether it touches another body).
pub fn body(center: Vec2, half: Vec2, color: Color) -> impl Bundle {
    (
        Aabb::new(center, half),
        Contacts::default(),
        BodySprite(color),
        Sprite::from_color(color, half * 2.0),
    )
}

/// The same with a picture of the tileset, tinted `tint` (white: as drawn).
pub fn pictured_body(center: Vec2, half: Vec2, picture: Sprite, tint: Color) -> impl Bundle {
    (
        Aabb::new(center, half),
        Contacts::default(),
        BodySprite(tint),
        Sprite {
            color: tint,
            ..picture
        },
    )
}

/// The debug overlays off but the sensors, the panel on: a scene that looks like the game, or
/// too many bodies for per-body overlays.
pub fn quiet_overlays() -> bevy_platformer_physics::debug::DebugOverlays {
    bevy_platformer_physics::debug::DebugOverlays {
        tiles: false,
        partition: false,
        bodies: false,
        pairs: false,
        push_flags: false,
        ..default()
    }
}

/// Draws what the level spawned with the tileset's pictures: crates, and platforms (the
/// one-way ones tinted like the one-way tiles).
#[allow(
    clippy::type_complexity,
    reason = "a system's queries: the bodies the level just spawned"
)]
pub fn dress_level_bodies(
    mut commands: Commands,
    tileset: Res<Tileset>,
    crates: Query<(Entity, &Aabb), Added<LevelCrate>>,
    platforms: Query<(Entity, &Aabb, Has<OneWayPlatform>), Added<PathPlatform>>,
) {
    for (entity, aabb) in &crates {
        let picture = tileset.sprite(CRATE_SPRITE, aabb.size());
        let look = pictured_body(aabb.center, aabb.half_extents, picture, Color::WHITE);
        commands
            .entity(entity)
            .insert((look, TranslationInterpolation));
    }
    for (entity, aabb, one_way) in &platforms {
        // The steel plate, tinted: the one-way ones like the one-way tiles.
        let tint = if one_way { LIFT } else { PLATFORM };
        let picture = tileset.sprite(PLATFORM_SPRITE, aabb.size());
        let look = pictured_body(aabb.center, aabb.half_extents, picture, tint);
        commands
            .entity(entity)
            .insert((look, TranslationInterpolation));
    }
}

/// Where a camera showing `zoom` screen pixels per world unit centres its view to follow a
/// character drawn at `drawn`, keeping it in the middle of the window right of a panel
/// `panel` screen pixels wide, without showing what lies beyond the map.
pub fn camera_following(drawn: Vec2, map: &TileMap, zoom: f32, panel: f32) -> Vec2 {
    // The view, in world units, and the part of it right of the panel.
    let view = WINDOW / zoom;
    let panel = panel / zoom;
    let bounds = map.bounds();
    let mut center = drawn - Vec2::new(panel / 2.0, 0.0);
    for axis in 0..2 {
        let (lo, hi) = (bounds.min[axis], bounds.max[axis]);
        let half = view[axis] / 2.0;
        // The panel's strip may hang over the map's left edge; the rest of the view may not.
        let low_edge = if axis == 0 {
            lo + half - panel
        } else {
            lo + half
        };
        center[axis] = if hi - low_edge < half {
            (lo + hi) / 2.0 - if axis == 0 { panel / 2.0 } else { 0.0 }
        } else {
            center[axis].clamp(low_edge, hi - half)
        };
    }
    center
}

/// The window size every example opens.
pub const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);

/// `DefaultPlugins` with a [`WINDOW`]-sized primary window titled `title`, and pixel art
/// drawn sharp (nearest sampling).
pub fn window_plugins(title: &str) -> impl PluginGroup {
    DefaultPlugins
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: format!("bevy_platformer_physics: {title}"),
                resolution: (WINDOW.x as u32, WINDOW.y as u32).into(),
                ..default()
            }),
            ..default()
        })
        .set(ImagePlugin::default_nearest())
        // No `.meta` files beside the assets: do not ask for them (on the web each would be a
        // failed request, and some hosts answer it with an error page).
        .set(AssetPlugin {
            meta_check: AssetMetaCheck::Never,
            ..default()
        })
}

/// A 2D camera showing `zoom` screen pixels per world unit.
pub fn zoomed_camera(zoom: f32) -> impl Bundle {
    (
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.0 / zoom,
            ..OrthographicProjection::default_2d()
        }),
    )
}

/// Where a character appears: the first spawn point of the level applied since the last call
/// (`None` if no level was, or if it has no spawn point, which it warns about).
pub fn new_spawn_point(
    applied: &mut MessageReader<bevy_platformer_physics::levels::LevelApplied>,
    spawns: &Query<&Transform, With<bevy_platformer_physics::levels::SpawnPoint>>,
) -> Option<Vec2> {
    if applied.read().count() == 0 {
        return None;
    }
    let at = spawns.iter().next().map(|t| t.translation.truncate());
    if at.is_none() {
        warn!("the level has no spawn point");
    }
    at
}

/// A 2D camera that fits the whole map in the window right of the debug panel.
pub fn camera_over(map: &TileMap, panel_width: f32) -> impl Bundle {
    let bounds = map.bounds();
    let room = Vec2::new(WINDOW.x - panel_width - 16.0, WINDOW.y - 16.0);
    let scale = (bounds.size() / room).max_element().max(1.0);
    let c = bounds.center();
    (
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(c.x - (panel_width + 8.0) * scale / 2.0, c.y, 0.0),
    )
}

/// With `EXAMPLE_SCREENSHOT=<png>` set, the example runs one fixed step a frame for
/// `frames` frames, saves a screenshot there and exits (CI checks the examples this way).
pub struct ScreenshotAfter(pub u32);

#[derive(Resource)]
struct ScreenshotPlan {
    path: std::path::PathBuf,
    at: u32,
    frame: u32,
}

/// When the environment variable `variable` names a screenshot path (a window test), sets the
/// app to run exactly one fixed step per frame and returns the path.
pub fn window_test_shot(app: &mut App, variable: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os(variable)?;
    app.insert_resource(bevy::time::TimeUpdateStrategy::FixedTimesteps(1));
    Some(path.into())
}

impl Plugin for ScreenshotAfter {
    fn build(&self, app: &mut App) {
        let Some(path) = window_test_shot(app, "EXAMPLE_SCREENSHOT") else {
            return;
        };
        app.insert_resource(ScreenshotPlan {
            path,
            at: self.0,
            frame: 0,
        })
        .add_systems(Update, take_screenshot);
    }
}

fn take_screenshot(mut commands: Commands, mut plan: ResMut<ScreenshotPlan>) {
    use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
    plan.frame += 1;
    if plan.frame != plan.at {
        return;
    }
    let mut save = save_to_disk(plan.path.clone());
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            save(captured);
            exit.write(AppExit::Success);
        },
    );
}

/// A colour as sRGB bytes.
pub fn rgb(color: Color) -> [i32; 3] {
    let c = color.to_srgba();
    [c.red, c.green, c.blue].map(|v| (v * 255.0).round() as i32)
}

/// The sRGB bytes of pixel `(x, y)` of a screenshot (black outside it).
pub fn pixel(image: &Image, x: u32, y: u32) -> [i32; 3] {
    image.get_color_at(x, y).map(rgb).unwrap_or([0, 0, 0])
}

/// Whether two colours are within `tolerance` per channel.
pub fn near(p: [i32; 3], q: [i32; 3], tolerance: i32) -> bool {
    (0..3).all(|i| (p[i] - q[i]).abs() <= tolerance)
}

/// Saves a window test's screenshot to `path`, prints `SMOKE OK: summary` or
/// `SMOKE FAIL: failures (summary)`, and ends the app with exit code 0 or 1.
pub fn smoke_verdict(
    captured: On<bevy::render::view::screenshot::ScreenshotCaptured>,
    path: std::path::PathBuf,
    failures: &[String],
    summary: &str,
    exit: &mut MessageWriter<AppExit>,
) {
    let mut save = bevy::render::view::screenshot::save_to_disk(path);
    save(captured);
    if failures.is_empty() {
        println!("SMOKE OK: {summary}");
        exit.write(AppExit::Success);
    } else {
        println!("SMOKE FAIL: {} ({summary})", failures.join("; "));
        exit.write(AppExit::from_code(1));
    }
}
