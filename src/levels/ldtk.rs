//! LDtk projects (`.ldtk`, with their external `.ldtkl` level files), read with serde from
//! LDtk's JSON.
//!
//! # Conventions
//!
//! - **Levels**: each level of the project is a [`Level`], labelled with its identifier:
//!   `assets.load("levels/levels.ldtk#demo")` loads the level `demo`; the file alone
//!   (`levels/levels.ldtk`) is its first level. A project that saves its levels in separate
//!   files (LDtk's "save levels to separate files") is read with them, and a change to any of
//!   them reloads the project. (Set a level current as it starts loading: one loaded earlier and
//!   made current later can miss the changes to its own file, though not those to the
//!   project's.)
//! - **Tiles**: every IntGrid layer counts. The map has the layers' cells (they must share one
//!   grid size, and the grid is the tile size in world units); the level's bottom-left corner
//!   is the world's origin, y up. A cell's value is named in the layer's definition, and the
//!   name is the tile kind, as in a Tiled tileset's `kind` property: `solid`, `one_way`,
//!   `ladder`, `empty`, `slope_right`, `one_way_slope_left_low`, ... (any letter case). A value
//!   with another name, or with none, is an error. Where two layers give a cell a kind, the
//!   layer LDtk draws on top wins.
//! - **Entities**, by identifier (any letter case), placed by their box (width, height and
//!   pivot):
//!   - `Spawn`: a [`SpawnPoint`](super::SpawnPoint) at the centre of its box;
//!   - `Crate`: a dynamic body of its box;
//!   - `Sensor`: a box sensor, or a circle (of its width) when the entity is drawn as an
//!     ellipse;
//!   - `Platform`: a kinematic platform of its box, going from its centre through the points
//!     of its `path` field (an array of points; each is the centre of its cell) and back, at
//!     its `speed` field (float, units per second; default 50); bool field `one_way`.
//!
//!   An entity's `name` field (a string), when it has one, names the object; otherwise its
//!   iid does. Entities with other identifiers belong to the game (a coin, an enemy) and are
//!   left to it.
//!
//! A project that is not valid LDtk JSON, IntGrid layers of different grid sizes or with
//! offsets, a value without a tile kind, an external level file that cannot be read, or a
//! level too large for the partition fails with a [`LevelError`] naming the file.
//!
//! # Drawn with bevy_ecs_ldtk
//!
//! A game can draw the project with bevy_ecs_ldtk and take its collision from the same file:
//! bevy_ecs_ldtk loads its `LdtkProject` by type, and [`LevelPlugin`](super::LevelPlugin)
//! registers this loader after every plugin's `build`, so that a labelled path
//! (`levels.ldtk#demo`) reaches it. With bevy_ecs_ldtk's `LevelSpawnBehavior::UseZeroTranslation`
//! the level it draws sits where the physics puts the map. The repository's
//! `bevy_ecs_ldtk_example` does this.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::prelude::*;
use serde::Deserialize;
use std::path::Path;

use super::{Level, LevelError, LevelObject, ObjectKind, kind_named, read_file};
use crate::sensors::SensorShape;
use crate::tiles::TileMap;

/// Loads `.ldtk` projects (see [the module](self)): every level, labelled with its
/// identifier; the project's own asset is its first level.
#[derive(Clone, Copy, Debug, Default, TypePath)]
pub struct LdtkLevelLoader;

/// The parts of an LDtk project this loader reads (serde skips the rest).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Project {
    defs: Definitions,
    #[serde(default)]
    levels: Vec<LevelJson>,
    /// Multi-world projects keep their levels here instead.
    #[serde(default)]
    worlds: Vec<World>,
}

#[derive(Deserialize)]
struct World {
    #[serde(default)]
    levels: Vec<LevelJson>,
}

#[derive(Deserialize)]
struct Definitions {
    #[serde(default)]
    layers: Vec<LayerDefinition>,
    #[serde(default)]
    entities: Vec<EntityDefinition>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LayerDefinition {
    uid: i64,
    #[serde(default)]
    int_grid_values: Vec<IntGridValue>,
}

#[derive(Deserialize)]
struct IntGridValue {
    value: i64,
    identifier: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EntityDefinition {
    uid: i64,
    #[serde(default)]
    render_mode: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LevelJson {
    identifier: String,
    /// The level's own file, for projects that save levels separately (relative to the
    /// project).
    external_rel_path: Option<String>,
    /// Absent (null) in a project whose levels are in separate files.
    layer_instances: Option<Vec<LayerInstance>>,
}

/// A layer of a level, as LDtk lists them: the top one first.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LayerInstance {
    #[serde(rename = "__identifier")]
    identifier: String,
    #[serde(rename = "__type")]
    kind: String,
    #[serde(rename = "__cWid")]
    columns: i64,
    #[serde(rename = "__cHei")]
    rows: i64,
    #[serde(rename = "__gridSize")]
    grid_size: i64,
    #[serde(rename = "__pxTotalOffsetX", default)]
    offset_x: i64,
    #[serde(rename = "__pxTotalOffsetY", default)]
    offset_y: i64,
    layer_def_uid: i64,
    #[serde(default)]
    int_grid_csv: Vec<i64>,
    #[serde(default)]
    entity_instances: Vec<EntityInstance>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EntityInstance {
    #[serde(rename = "__identifier")]
    identifier: String,
    #[serde(rename = "__pivot")]
    pivot: [f32; 2],
    iid: String,
    width: f32,
    height: f32,
    px: [f32; 2],
    def_uid: i64,
    #[serde(default)]
    field_instances: Vec<FieldInstance>,
}

#[derive(Deserialize)]
struct FieldInstance {
    #[serde(rename = "__identifier")]
    identifier: String,
    #[serde(rename = "__value")]
    value: serde_json::Value,
}

impl AssetLoader for LdtkLevelLoader {
    type Asset = Level;
    type Settings = ();
    type Error = LevelError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<Level, LevelError> {
        let path = context.path().path().to_path_buf();
        let bytes = read_file(reader, &path).await?;
        let project: Project = parse(&bytes, &path)?;
        let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut levels = project.levels;
        levels.extend(project.worlds.into_iter().flat_map(|w| w.levels));
        let mut first = None;
        for mut json in levels {
            // A level saved in its own file: read it through the asset server (so a change to
            // it reloads the project).
            if let (None, Some(relative)) = (&json.layer_instances, &json.external_rel_path) {
                let file = super::normalize(&folder.join(relative));
                let source = context.path().source().clone_owned();
                let asset = AssetPath::from_path_buf(file.clone()).with_source(source);
                let bytes = context
                    .read_asset_bytes(asset)
                    .await
                    .map_err(|e| LevelError::Io {
                        path: file.clone(),
                        error: format!("{e} (level {:?} of {})", json.identifier, path.display()),
                    })?;
                json = parse(&bytes, &file)?;
            }
            let level = level(&json, &project.defs, &path)?;
            if first.is_none() {
                first = Some(level.clone());
            }
            context.add_labeled_asset(json.identifier, level);
        }
        first.ok_or_else(|| LevelError::Ldtk {
            path: path.clone(),
            error: "the project has no level".into(),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["ldtk"]
    }
}

/// `bytes` as LDtk JSON of type `T`, or an error naming `path`.
fn parse<T: for<'a> Deserialize<'a>>(bytes: &[u8], path: &Path) -> Result<T, LevelError> {
    serde_json::from_slice(bytes).map_err(|e| LevelError::Ldtk {
        path: path.to_path_buf(),
        error: e.to_string(),
    })
}

/// The [`Level`] of one LDtk level (`path`: the project, for errors).
fn level(json: &LevelJson, defs: &Definitions, path: &Path) -> Result<Level, LevelError> {
    let refuse = |error: String| LevelError::Ldtk {
        path: path.to_path_buf(),
        error: format!("level {:?}: {error}", json.identifier),
    };
    let layers = json.layer_instances.as_deref().unwrap_or_default();
    let grids: Vec<&LayerInstance> = layers.iter().filter(|l| l.kind == "IntGrid").collect();
    // The map's grid: the IntGrid layers' (all the same).
    let Some(first) = grids.first() else {
        return Err(refuse("it has no IntGrid layer (the tiles)".into()));
    };
    let (columns, rows, grid) = (first.columns, first.rows, first.grid_size);
    for layer in &grids {
        if (layer.columns, layer.rows, layer.grid_size) != (columns, rows, grid) {
            return Err(refuse(format!(
                "IntGrid layer {:?} has {} x {} cells of {} pixels, layer {:?} {columns} x \
                 {rows} of {grid} (the IntGrid layers must share one square grid)",
                layer.identifier, layer.columns, layer.rows, layer.grid_size, first.identifier
            )));
        }
        if (layer.offset_x, layer.offset_y) != (0, 0) {
            return Err(refuse(format!(
                "IntGrid layer {:?} is offset by ({}, {}) pixels (offset layers are not \
                 supported)",
                layer.identifier, layer.offset_x, layer.offset_y
            )));
        }
    }
    let side = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    let mut map = TileMap::try_new(side(columns), side(rows), grid as f32).map_err(|error| {
        LevelError::Map {
            path: path.to_path_buf(),
            error,
        }
    })?;
    // The bottom layer first, so that the layers drawn over it win.
    for layer in grids.iter().rev() {
        fill(&mut map, layer, defs, json, path)?;
    }
    let top = map.height() as f32 * map.tile_size();
    let mut objects = Vec::new();
    for layer in layers.iter().rev().filter(|l| l.kind == "Entities") {
        for entity in &layer.entity_instances {
            if let Some(object) = object(entity, defs, top, map.tile_size(), path, json)? {
                objects.push(object);
            }
        }
    }
    Ok(Level { map, objects })
}

/// Sets the cells of an IntGrid `layer` that hold a value.
fn fill(
    map: &mut TileMap,
    layer: &LayerInstance,
    defs: &Definitions,
    json: &LevelJson,
    path: &Path,
) -> Result<(), LevelError> {
    let (width, height) = (map.width() as usize, map.height() as usize);
    if layer.int_grid_csv.len() != width * height {
        return Err(LevelError::Ldtk {
            path: path.to_path_buf(),
            error: format!(
                "level {:?}: IntGrid layer {:?} has {} values for {width} x {height} cells",
                json.identifier,
                layer.identifier,
                layer.int_grid_csv.len()
            ),
        });
    }
    let values = defs
        .layers
        .iter()
        .find(|d| d.uid == layer.layer_def_uid)
        .map_or(&[][..], |d| &d.int_grid_values[..]);
    for (i, &value) in layer.int_grid_csv.iter().enumerate() {
        if value == 0 {
            continue;
        }
        let identifier = values
            .iter()
            .find(|v| v.value == value)
            .and_then(|v| v.identifier.as_deref());
        let Some(kind) = identifier.and_then(|name| kind_named(&name.to_ascii_lowercase())) else {
            return Err(LevelError::UnknownIntGridValue {
                path: path.to_path_buf(),
                layer: layer.identifier.clone(),
                value,
                identifier: identifier.map(str::to_owned),
            });
        };
        // LDtk's rows go down from the top, left to right in each.
        let (x, row) = (i % width, i / width);
        map.set(x as i32, (height - 1 - row) as i32, kind);
    }
    Ok(())
}

/// The object an entity places, or `None` for the game's own entities.
fn object(
    entity: &EntityInstance,
    defs: &Definitions,
    top: f32,
    tile: f32,
    path: &Path,
    json: &LevelJson,
) -> Result<Option<LevelObject>, LevelError> {
    let size = Vec2::new(entity.width, entity.height);
    let pivot = Vec2::from(entity.pivot);
    // Where the entity's box is: its pivot is at `px` (y down from the level's top).
    let centre = Vec2::from(entity.px) - pivot * size + size / 2.0;
    let centre = Vec2::new(centre.x, top - centre.y);
    let half = size / 2.0;
    let field = |name: &str| {
        entity
            .field_instances
            .iter()
            .find(|f| f.identifier.eq_ignore_ascii_case(name))
            .map(|f| &f.value)
            .filter(|v| !v.is_null())
    };
    let name = match field("name").and_then(|v| v.as_str()) {
        Some(name) => name.to_owned(),
        None => entity.iid.clone(),
    };
    let (kind, centre, half_extents) = match entity.identifier.to_ascii_lowercase().as_str() {
        "spawn" => (ObjectKind::Spawn, centre, Vec2::ZERO),
        "crate" => (ObjectKind::Crate, centre, half),
        "sensor" => {
            let ellipse = defs
                .entities
                .iter()
                .any(|d| d.uid == entity.def_uid && d.render_mode == "Ellipse");
            if ellipse {
                let radius = half.x;
                let shape = SensorShape::Circle { radius };
                (ObjectKind::Sensor(shape), centre, Vec2::splat(radius))
            } else {
                let shape = SensorShape::Box { half_extents: half };
                (ObjectKind::Sensor(shape), centre, half)
            }
        }
        "platform" => {
            let mut points = vec![centre];
            if let Some(value) = field("path") {
                let cells = value.as_array().map(Vec::as_slice).unwrap_or_default();
                for cell in cells {
                    let (Some(cx), Some(cy)) = (cell["cx"].as_f64(), cell["cy"].as_f64()) else {
                        return Err(LevelError::UnknownObject {
                            path: path.to_path_buf(),
                            object: name,
                            what: format!(
                                "platform in level {:?}: its `path` field is not an array of \
                                 points",
                                json.identifier
                            ),
                        });
                    };
                    let cell = Vec2::new(cx as f32 + 0.5, cy as f32 + 0.5) * tile;
                    points.push(Vec2::new(cell.x, top - cell.y));
                }
            }
            let speed = field("speed").and_then(|v| v.as_f64()).unwrap_or(50.0) as f32;
            let one_way = field("one_way").and_then(|v| v.as_bool()) == Some(true);
            let kind = ObjectKind::Platform {
                path: points,
                speed,
                one_way,
            };
            (kind, centre, half)
        }
        _ => return Ok(None),
    };
    Ok(Some(LevelObject {
        name,
        kind,
        center: centre,
        half_extents,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::TileKind;

    const DEFS: &str = r#"{"layers": [{"uid": 1, "intGridValues": [
        {"value": 1, "identifier": "Solid"}, {"value": 2, "identifier": "one_way_slope_left"},
        {"value": 3, "identifier": "lava"}, {"value": 4, "identifier": null}]}],
        "entities": [{"uid": 7, "renderMode": "Ellipse"}, {"uid": 8, "renderMode": "Rectangle"}]}"#;

    fn defs() -> Definitions {
        serde_json::from_str(DEFS).unwrap()
    }

    fn level_json(csv: &str, entities: &str) -> LevelJson {
        serde_json::from_str(&format!(
            r#"{{"identifier": "room", "layerInstances": [
              {{"__identifier": "Entities", "__type": "Entities", "__cWid": 3, "__cHei": 2,
                "__gridSize": 16, "layerDefUid": 9, "entityInstances": [{entities}]}},
              {{"__identifier": "Collision", "__type": "IntGrid", "__cWid": 3, "__cHei": 2,
                "__gridSize": 16, "layerDefUid": 1, "intGridCsv": [{csv}]}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn int_grid_rows_go_down_from_the_top_and_name_their_kind_in_any_case() {
        let level = level(
            &level_json("0,2,0, 1,1,1", ""),
            &defs(),
            Path::new("p.ldtk"),
        )
        .unwrap();
        assert_eq!((level.map.width(), level.map.height()), (3, 2));
        assert_eq!(level.map.get(0, 0), TileKind::Solid);
        assert_eq!(level.map.get(1, 1), TileKind::OneWaySlopeLeft);
        assert_eq!(level.map.get(0, 1), TileKind::Empty);
    }

    #[test]
    fn a_value_without_a_tile_kind_is_an_error_naming_the_layer_and_the_value() {
        for (csv, value, identifier) in [("3,0,0,0,0,0", 3, Some("lava")), ("0,4,0,0,0,0", 4, None)]
        {
            let error = level(&level_json(csv, ""), &defs(), Path::new("p.ldtk")).unwrap_err();
            let LevelError::UnknownIntGridValue {
                layer,
                value: v,
                identifier: i,
                ..
            } = &error
            else {
                panic!("{error}");
            };
            assert_eq!(
                (layer.as_str(), *v, i.as_deref()),
                ("Collision", value, identifier)
            );
            assert!(error.to_string().contains("p.ldtk"), "{error}");
        }
    }

    #[test]
    fn entities_are_placed_by_their_pivot_and_unknown_ones_are_left_to_the_game() {
        let entities = r#"
            {"__identifier": "Crate", "__pivot": [0.5, 1], "iid": "c1", "width": 14,
             "height": 14, "px": [24, 32], "defUid": 8, "fieldInstances": []},
            {"__identifier": "sensor", "__pivot": [0, 0], "iid": "s1", "width": 20,
             "height": 20, "px": [0, 0], "defUid": 7, "fieldInstances": [
               {"__identifier": "name", "__value": "goal"}]},
            {"__identifier": "Coin", "__pivot": [0, 0], "iid": "x", "width": 8,
             "height": 8, "px": [0, 0], "defUid": 5, "fieldInstances": []},
            {"__identifier": "Platform", "__pivot": [0.5, 0.5], "iid": "p1", "width": 32,
             "height": 8, "px": [8, 24], "defUid": 6, "fieldInstances": [
               {"__identifier": "path", "__value": [{"cx": 2, "cy": 1}]},
               {"__identifier": "speed", "__value": 30.0},
               {"__identifier": "one_way", "__value": true}]}"#;
        let level = level(
            &level_json("0,0,0,0,0,0", entities),
            &defs(),
            Path::new("p"),
        )
        .unwrap();
        assert_eq!(level.objects.len(), 3, "the coin is the game's");
        let [crate_, sensor, platform] = &level.objects[..] else {
            unreachable!()
        };
        // Bottom-centre pivot at (24, 32) from the top-left: the box's centre 7 units up.
        assert_eq!(
            (crate_.name.as_str(), crate_.kind.clone()),
            ("c1", ObjectKind::Crate)
        );
        assert_eq!(crate_.center, Vec2::new(24.0, 7.0));
        assert_eq!(crate_.half_extents, Vec2::splat(7.0));
        assert_eq!(sensor.name, "goal");
        assert_eq!(
            sensor.kind,
            ObjectKind::Sensor(SensorShape::Circle { radius: 10.0 })
        );
        assert_eq!(sensor.center, Vec2::new(10.0, 22.0));
        assert_eq!(
            platform.kind,
            ObjectKind::Platform {
                path: vec![Vec2::new(8.0, 8.0), Vec2::new(40.0, 8.0)],
                speed: 30.0,
                one_way: true,
            }
        );
    }

    #[test]
    fn layers_of_different_grids_or_offset_are_refused() {
        let mut json = level_json("0,0,0,0,0,0", "");
        let layers = json.layer_instances.as_mut().unwrap();
        layers[0].kind = "IntGrid".into();
        layers[0].grid_size = 8;
        layers[0].int_grid_csv = vec![0; 6];
        let error = level(&json, &defs(), Path::new("p.ldtk"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("must share one square grid"), "{error}");
        let mut json = level_json("0,0,0,0,0,0", "");
        json.layer_instances.as_mut().unwrap()[1].offset_x = 4;
        let error = level(&json, &defs(), Path::new("p.ldtk"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("offset"), "{error}");
    }
}
