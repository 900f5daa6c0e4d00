//! Levels as assets: both loaders on every level in `assets/`, the bad-file errors, the
//! objects a level spawns, its moving platforms (the demo's crusher among them), and a level
//! replaced under resting bodies.

use std::path::PathBuf;
use std::time::Duration;

use bevy::asset::{AssetPlugin, LoadState};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_platformer_physics::levels::{
    CurrentLevel, FromLevel, Level, LevelCrate, LevelError, LevelPlugin, ObjectKind, PathPlatform,
    SpawnPoint, ascii,
};

use crate::common::*;

/// A headless app with the asset server reading `folder` (relative to the crate).
fn level_app(folder: &str) -> App {
    level_app_with(folder, |_| {})
}

/// [`level_app`] with more plugins, added after `LevelPlugin`.
fn level_app_with(folder: &str, more: impl FnOnce(&mut App)) -> App {
    let mut app = app(TileMap::new(1, 1, 16.0));
    app.add_plugins((
        AssetPlugin {
            file_path: folder.into(),
            ..default()
        },
        LevelPlugin,
    ));
    more(&mut app);
    // Updates load and apply levels; only `step` runs the physics.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    app.finish();
    app.cleanup();
    app
}

/// Loads `path` and updates the app until it is loaded or failed.
fn load(app: &mut App, path: &str) -> (Handle<Level>, LoadState) {
    let handle: Handle<Level> = app.world().resource::<AssetServer>().load(path.to_owned());
    for _ in 0..2000 {
        app.update();
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        if matches!(state, LoadState::Loaded | LoadState::Failed(_)) {
            return (handle, state);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("{path} neither loaded nor failed");
}

fn loaded(app: &mut App, path: &str) -> Level {
    let (handle, state) = load(app, path);
    assert!(matches!(state, LoadState::Loaded), "{path}: {state:?}");
    app.world()
        .resource::<Assets<Level>>()
        .get(&handle)
        .unwrap()
        .clone()
}

/// The level files in `assets/levels` with the given extension.
fn level_files(extension: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/levels");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(extension))
        .collect();
    names.sort();
    names
}

#[test]
fn every_level_in_assets_loads_the_same_from_its_ascii_tiled_and_ldtk_forms() {
    let mut app = level_app("assets");
    let texts = level_files(".txt");
    assert!(texts.len() >= 3, "at least three levels: {texts:?}");
    assert_eq!(
        texts.len(),
        level_files(".tmx").len(),
        "each level in both formats"
    );
    for text in texts {
        let name = text.trim_end_matches(".txt");
        let ascii = loaded(&mut app, &format!("levels/{name}.txt"));
        let tiled = loaded(&mut app, &format!("levels/{name}.tmx"));
        // The LDtk project holds every level, each labelled with its name.
        let ldtk = loaded(&mut app, &format!("levels/levels.ldtk#{name}"));
        assert!(
            ascii.map.width() >= 20 && !ascii.objects.is_empty(),
            "{name}"
        );
        assert_eq!(ascii.map, tiled.map, "{name}: the tiles");
        assert_eq!(ascii.objects, tiled.objects, "{name}: the objects");
        assert_eq!(ascii.map, ldtk.map, "{name}: the tiles (LDtk)");
        assert_eq!(ascii.objects, ldtk.objects, "{name}: the objects (LDtk)");
    }
    // The project alone is its first level.
    let first = loaded(&mut app, "levels/levels.ldtk");
    assert_eq!(first, loaded(&mut app, "levels/articles.txt"));
}

#[test]
fn an_ldtk_project_with_its_levels_in_separate_files_loads_each_by_name() {
    let mut app = level_app("tests/assets");
    let first = loaded(&mut app, "ldtk/external.ldtk#first");
    let second = loaded(&mut app, "ldtk/external.ldtk#second");
    assert_eq!(first, loaded(&mut app, "ldtk/external.ldtk"));
    let map = &first.map;
    assert_eq!((map.width(), map.height(), map.tile_size()), (4, 3, 16.0));
    // Rows go down from the top: the bottom row solid, one-way tiles above its middle.
    assert_eq!(map.get(0, 0), TileKind::Solid);
    assert_eq!(map.get(1, 1), TileKind::OneWay);
    assert_eq!(map.get(1, 2), TileKind::Empty);
    // A spawn point of pivot (0.5, 1) at (24, 32) from the top-left: its box's centre.
    assert_eq!(first.objects.len(), 1);
    assert_eq!(first.objects[0].kind, ObjectKind::Spawn);
    assert_eq!(first.objects[0].center, Vec2::new(24.0, 24.0));
    assert_eq!(second.map.get(3, 0), TileKind::Solid);
    assert_eq!(second.map.get(3, 1), TileKind::Empty);
    assert!(second.objects.is_empty());
}

#[test]
fn the_articles_level_has_the_tiles_and_objects_drawn_in_it() {
    let mut app = level_app("assets");
    let level = loaded(&mut app, "levels/articles.tmx");
    let map = &level.map;
    assert_eq!((map.width(), map.height(), map.tile_size()), (24, 11, 16.0));
    // Line 5 from the top (y = 6): a one-way shelf from x = 8 to 12, a ladder at x = 17.
    assert_eq!(map.get(8, 6), TileKind::OneWay);
    assert_eq!(map.get(17, 6), TileKind::Ladder);
    assert_eq!(map.get(0, 0), TileKind::Solid);
    let count = |f: fn(&ObjectKind) -> bool| level.objects.iter().filter(|o| f(&o.kind)).count();
    assert_eq!(count(|k| *k == ObjectKind::Spawn), 1);
    assert_eq!(count(|k| *k == ObjectKind::Crate), 3);
    assert_eq!(count(|k| matches!(k, ObjectKind::Sensor(_))), 1);
    let platform = level
        .objects
        .iter()
        .find(|o| matches!(o.kind, ObjectKind::Platform { .. }))
        .unwrap();
    // `K` at column 8, line 10 (y = 1): its tile's centre, going 4 tiles right.
    assert_eq!(platform.center, Vec2::new(136.0, 24.0));
    assert_eq!(
        platform.kind,
        ObjectKind::Platform {
            path: vec![Vec2::new(136.0, 24.0), Vec2::new(200.0, 24.0)],
            speed: 50.0,
            one_way: false,
        }
    );
}

/// A game's own asset read from the same `.ldtk` file, as bevy_ecs_ldtk's `LdtkProject` is: here,
/// the file's length.
#[derive(Asset, TypePath)]
struct OtherProject(usize);

#[derive(TypePath)]
struct OtherProjectLoader;

impl bevy::asset::AssetLoader for OtherProjectLoader {
    type Asset = OtherProject;
    type Settings = ();
    type Error = std::io::Error;

    async fn load(
        &self,
        reader: &mut dyn bevy::asset::io::Reader,
        _: &(),
        _: &mut bevy::asset::LoadContext<'_>,
    ) -> Result<OtherProject, std::io::Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        Ok(OtherProject(bytes.len()))
    }

    fn extensions(&self) -> &[&str] {
        &["ldtk"]
    }
}

#[test]
fn a_game_that_reads_the_ldtk_project_with_its_own_loader_still_gets_our_levels_from_it() {
    // The game's loader registered after `LevelPlugin`, as a plugin added later does.
    let mut app = level_app_with("assets", |app| {
        app.init_asset::<OtherProject>()
            .register_asset_loader(OtherProjectLoader);
    });
    let demo = loaded(&mut app, "levels/levels.ldtk#demo");
    assert_eq!(demo, loaded(&mut app, "levels/demo.txt"));
    assert_eq!(
        loaded(&mut app, "levels/levels.ldtk"),
        loaded(&mut app, "levels/articles.txt")
    );
    let other: Handle<OtherProject> = app
        .world()
        .resource::<AssetServer>()
        .load("levels/levels.ldtk");
    for _ in 0..2000 {
        app.update();
        if app
            .world()
            .resource::<Assets<OtherProject>>()
            .contains(&other)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let size = std::fs::metadata(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/levels/levels.ldtk"),
    )
    .unwrap()
    .len();
    let read = app.world().resource::<Assets<OtherProject>>().get(&other);
    assert_eq!(read.map(|p| p.0 as u64), Some(size), "the game's asset");
}

/// The error a bad file gives, as text (Bevy keeps the loader's error behind its own).
fn failure(app: &mut App, path: &str) -> String {
    let (_, state) = load(app, path);
    let LoadState::Failed(error) = state else {
        panic!("{path} loaded");
    };
    error.to_string()
}

#[test]
fn bad_level_files_fail_with_an_error_naming_the_file_and_the_fault() {
    let mut app = level_app("tests/assets");
    let cases = [
        (
            "bad/unknown_kind.tmx",
            "tile 1 of tileset \"lava\" has kind",
        ),
        ("bad/missing_tileset.tmx", "bad/nowhere.tsx"),
        ("bad/too_large.tmx", "100000 x 100000 tiles is too large"),
        ("bad/unknown_object.tmx", "object \"boss\": class \"enemy\""),
        (
            "bad/unknown_char.txt",
            "unknown tile character 'Z' at line 2, column 3",
        ),
        (
            "bad/unknown_value.ldtk",
            "IntGrid layer \"Collision\": value 3 is named \"lava\"",
        ),
        ("bad/missing_level.ldtk", "bad/nowhere.ldtkl"),
        (
            "bad/grids.ldtk",
            "IntGrid layer \"Fine\" has 8 x 6 cells of 8 pixels",
        ),
        ("bad/too_large.ldtk", "100000 x 100000 tiles is too large"),
    ];
    for (path, fault) in cases {
        let error = failure(&mut app, path);
        assert!(error.contains(path), "{path}: {error}");
        assert!(error.contains(fault), "{path}: {error}");
    }
}

#[test]
fn the_level_error_names_the_file() {
    let error = LevelError::UnknownObject {
        path: "levels/x.tmx".into(),
        object: "boss".into(),
        what: "class \"enemy\"".into(),
    };
    assert_eq!(
        error.to_string(),
        "level levels/x.tmx: object \"boss\": class \"enemy\""
    );
}

/// Sets the current level and updates until it is applied.
fn apply(app: &mut App, path: &str) -> Handle<Level> {
    let (handle, _) = load(app, path);
    app.world_mut()
        .insert_resource(CurrentLevel(handle.clone()));
    app.update();
    app.update();
    handle
}

fn count<F: bevy::ecs::query::QueryFilter>(app: &mut App) -> usize {
    let world = app.world_mut();
    world.query_filtered::<Entity, F>().iter(world).count()
}

#[test]
fn the_current_level_becomes_the_map_and_spawns_its_objects() {
    let mut app = level_app("assets");
    let handle = apply(&mut app, "levels/articles.tmx");
    let level = app
        .world()
        .resource::<Assets<Level>>()
        .get(&handle)
        .unwrap()
        .clone();
    assert_eq!(*app.world().resource::<TileMap>(), level.map);
    assert_eq!(count::<With<SpawnPoint>>(&mut app), 1);
    assert_eq!(
        count::<(With<LevelCrate>, With<Aabb>, With<Velocity>)>(&mut app),
        3
    );
    assert_eq!(count::<With<Sensor>>(&mut app), 1);
    assert_eq!(count::<(With<PathPlatform>, With<Kinematic>)>(&mut app), 1);
    assert_eq!(count::<With<FromLevel>>(&mut app), 6);
    // Another level replaces them.
    apply(&mut app, "levels/demo.txt");
    assert_eq!(app.world().resource::<TileMap>().width(), 72);
    assert_eq!(count::<With<SpawnPoint>>(&mut app), 1);
    assert_eq!(count::<With<PathPlatform>>(&mut app), 3);
    // Its lift (`v`) is one-way, in both files (the crusher, `V`, is solid).
    assert_eq!(
        count::<(With<PathPlatform>, With<OneWayPlatform>)>(&mut app),
        1
    );
    apply(&mut app, "levels/demo.tmx");
    assert_eq!(
        count::<(With<PathPlatform>, With<OneWayPlatform>)>(&mut app),
        1
    );
    // A level that fails to load leaves the world on the one it had.
    let mut bad = level_app("tests/assets");
    apply(&mut bad, "levels_that_do_not_exist.txt");
    assert_eq!(bad.world().resource::<TileMap>().width(), 1);
    let good = apply(&mut app, "levels/articles.txt");
    let (failed, _) = load(&mut app, "levels/nowhere.txt");
    app.world_mut().insert_resource(CurrentLevel(failed));
    app.update();
    assert_eq!(app.world().resource::<TileMap>().width(), 24);
    assert!(app.world().resource::<Assets<Level>>().contains(&good));
}

#[test]
fn a_path_platform_reaches_each_end_exactly_and_turns_back() {
    let mut app = level_app("assets");
    apply(&mut app, "levels/articles.txt");
    let world = app.world_mut();
    let platform = world
        .query_filtered::<Entity, With<PathPlatform>>()
        .single(world)
        .unwrap();
    let x = |app: &App| app.world().get::<Aabb>(platform).unwrap().center.x;
    assert_eq!(x(&app), 136.0);
    // 64 units at 50 units a second: 76.8 steps of 1/60 s.
    let mut seen = Vec::new();
    for _ in 0..240 {
        step(&mut app, 1);
        seen.push(x(&app));
    }
    let max = seen.iter().copied().fold(f32::MIN, f32::max);
    let min = seen.iter().copied().fold(f32::MAX, f32::min);
    assert_eq!(max, 200.0, "reaches the far end exactly");
    assert_eq!(min, 136.0, "and comes back exactly");
    assert!(
        seen[76] == 200.0 && seen[77] < 200.0,
        "turns at once: {:?}",
        &seen[74..80]
    );
}

#[test]
fn the_demo_levels_crusher_squishes_what_it_lifts() {
    // The bottom-right room of the demo: a solid lift (`V`) rising 64 units from the floor to
    // 4 units under the ceiling, with a 14-unit crate on it, crushed once a trip so the game's
    // panel flashes it. The demo's character (12 by 20) riding beside the crate is crushed
    // once: the lift, rising on, soon overlaps it more along y than the 13 units along x, so
    // the response pushes it out sideways, and it falls to the floor beside the lift.
    for passes in [0, 4] {
        let mut app = level_app("assets");
        app.world_mut()
            .resource_mut::<PhysicsConfig>()
            .relaxation_passes = passes;
        apply(&mut app, "levels/demo.tmx");
        let world = app.world_mut();
        let in_the_room =
            |(entity, aabb): (Entity, &Aabb)| (aabb.center.x == 1096.0).then_some(entity);
        let mut solid_lifts = world
            .query_filtered::<(Entity, &Aabb), (With<PathPlatform>, Without<OneWayPlatform>)>();
        let lift = solid_lifts
            .iter(world)
            .find_map(in_the_room)
            .expect("the crusher");
        let mut crates = world.query_filtered::<(Entity, &Aabb), With<LevelCrate>>();
        let crate_on_it = crates.iter(world).find_map(in_the_room).expect("its crate");
        let rider_half = Vec2::new(6.0, 10.0);
        let rider = spawn(&mut app, Vec2::new(1079.0, 39.0), rider_half, Vec2::ZERO);
        // The ceiling's underside (row 17 from the top of 24); each body, its half height and
        // how many times it is squished.
        let ceiling = 6.0 * 16.0;
        let bodies = [(crate_on_it, 7.0, 2), (rider, rider_half.y, 1)];
        let mut squished = Vec::new();
        // Two round trips of 128 units at 50 units a second, and a little more.
        for i in 0..330 {
            step(&mut app, 1);
            for (body, half, _) in bodies {
                let top = pos(&app, body).y + half;
                assert!(
                    top <= ceiling + 0.01,
                    "passes {passes}, step {i}: {top} in the ceiling"
                );
            }
            squished.extend(drain::<Squished>(&mut app));
        }
        for (body, _, times) in bodies {
            let episodes: Vec<&Squished> = squished.iter().filter(|s| s.entity == body).collect();
            assert_eq!(episodes.len(), times, "passes {passes}: {episodes:?}");
            for s in episodes {
                assert!(s.vertically && !s.horizontally, "passes {passes}: {s:?}");
                assert_eq!(s.pressed_by(Side::Top), Some(Presser::Tile));
                assert_eq!(s.pressed_by(Side::Bottom), Some(Presser::Body(lift)));
            }
        }
        // The character on the floor (its top 16), left of the lift (48 wide).
        let at = pos(&app, rider);
        assert_eq!(at.y, 16.0 + rider_half.y, "passes {passes}");
        assert!(
            at.x + rider_half.x <= 1096.0 - 24.0 + 1e-3,
            "passes {passes}: {at}"
        );
    }
}

#[test]
fn a_level_changed_under_resting_bodies_pushes_them_out_of_its_new_solid_tiles() {
    let mut app = level_app("assets");
    let handle = apply(&mut app, "levels/articles.txt");
    // Clear of the crates and of the platform's path.
    let bodies: Vec<Entity> = [24.0, 88.0, 240.0, 264.0, 296.0, 360.0]
        .into_iter()
        .map(|x| still_box(&mut app, Vec2::new(x, 40.0)))
        .collect();
    step(&mut app, 120);
    assert_eq!(
        app.world().resource::<PhysicsStats>().awake_bodies,
        1,
        "only the platform"
    );
    // Raise the floor by one tile under every body, as a file saved from the editor would.
    {
        let mut levels = app.world_mut().resource_mut::<Assets<Level>>();
        let mut level = levels.get_mut(&handle).unwrap();
        level
            .map
            .fill(IVec2::new(1, 1), IVec2::new(22, 1), TileKind::Solid);
    }
    app.update();
    app.update();
    assert_eq!(app.world().resource::<TileMap>().get(5, 1), TileKind::Solid);
    step(&mut app, 10);
    let map = app.world().resource::<TileMap>().clone();
    for &body in &bodies {
        let aabb = *app.world().get::<Aabb>(body).unwrap();
        assert!(
            aabb.min().y >= 32.0 - 1e-3,
            "{body}: {aabb:?} inside the raised floor"
        );
        assert!(!map_overlaps_solid(&map, &aabb), "{body}: {aabb:?}");
    }
    verify_partition(&mut app).expect("the partition agrees with the bodies");
}

/// Whether `aabb` overlaps a solid tile of `map` by more than the contact tolerance.
fn map_overlaps_solid(map: &TileMap, aabb: &Aabb) -> bool {
    let (lo, hi) = (aabb.min() + 1e-3, aabb.max() - 1e-3);
    let (a, b) = (map.tile_at(lo), map.tile_at(hi));
    (a.y..=b.y).any(|y| (a.x..=b.x).any(|x| map.get(x, y) == TileKind::Solid))
}

#[test]
fn every_ascii_level_in_assets_is_written_back_as_its_file() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/levels");
    let names = level_files(".txt");
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).unwrap();
        let level = ascii::parse(&text, &path).unwrap();
        // A line shorter than the longest ends in empty tiles, which are written out.
        let width = text.lines().map(str::len).max().unwrap();
        let padded: String = (text.lines())
            .map(|line| match line.starts_with("tile_size:") {
                true => format!("{line}\n"),
                false => format!("{line:.<width$}\n"),
            })
            .collect();
        assert_eq!(ascii::write(&level), padded, "{name}");
    }
}

#[test]
fn an_edited_level_written_and_read_again_has_the_edits_and_the_objects() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/levels/articles.txt"),
    )
    .unwrap();
    let mut level = ascii::parse(&text, "articles.txt".as_ref()).unwrap();
    // The demo's edits: a solid tile placed, a one-way one, a tile removed.
    level.map.set(3, 2, TileKind::Solid);
    level.map.set(5, 2, TileKind::OneWay);
    level.map.set(0, 3, TileKind::Empty);
    let written = ascii::write(&level);
    assert_ne!(written, text);
    let again = ascii::parse(&written, "edited.txt".as_ref()).unwrap();
    assert_eq!(again, level);
}

/// With Bevy's file watcher (feature `hot_reload`): the level file rewritten on disk while the
/// game runs is applied again, under resting bodies, as an editor's save would.
#[cfg(feature = "hot_reload")]
#[test]
fn hot_reload_applies_a_level_file_rewritten_on_disk() {
    let root = std::env::temp_dir().join(format!("hot-reload-{}", std::process::id()));
    let levels = root.join("levels");
    std::fs::create_dir_all(&levels).unwrap();
    let original = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/levels/articles.txt");
    let text = std::fs::read_to_string(original).unwrap();
    let file = levels.join("room.txt");
    std::fs::write(&file, &text).unwrap();
    let mut app = level_app(root.to_str().unwrap());
    apply(&mut app, "levels/room.txt");
    let bodies: Vec<Entity> = [24.0, 88.0, 240.0, 264.0, 296.0, 360.0]
        .into_iter()
        .map(|x| still_box(&mut app, Vec2::new(x, 40.0)))
        .collect();
    step(&mut app, 120);
    assert_eq!(count::<With<FromLevel>>(&mut app), 6);
    // The floor raised by one tile under every body, saved over the file.
    let mut level = ascii::parse(&text, &file).unwrap();
    level
        .map
        .fill(IVec2::new(1, 1), IVec2::new(22, 1), TileKind::Solid);
    let written = ascii::write(&level);
    rewrite_until(&mut app, &file, &written, |map| {
        map.get(5, 1) == TileKind::Solid
    });
    // An object's character stands on an empty tile: what the file now holds.
    let on_disk = ascii::parse(&written, &file).unwrap().map;
    assert_eq!(*app.world().resource::<TileMap>(), on_disk);
    assert_eq!(count::<With<FromLevel>>(&mut app), 6, "its objects, once");
    step(&mut app, 10);
    let map = app.world().resource::<TileMap>().clone();
    for &body in &bodies {
        let aabb = *app.world().get::<Aabb>(body).unwrap();
        assert!(!map_overlaps_solid(&map, &aabb), "{body}: {aabb:?}");
        let under = map.tile_at(Vec2::new(aabb.center.x, 24.0));
        if map.get(under.x, under.y) == TileKind::Solid {
            assert!(
                aabb.min().y >= 32.0 - 1e-3,
                "{body}: {aabb:?} under the floor"
            );
        }
    }
    verify_partition(&mut app).expect("the partition agrees with the bodies");
    std::fs::remove_dir_all(&root).ok();
}

/// Writes `text` to `file` and updates `app` until `done` holds of its tile map (the file
/// watcher has reloaded the level). The file is written again each second until then: a write
/// made before the watcher watches the folder, or merged with the copy that made the file, is
/// not reported.
#[cfg(feature = "hot_reload")]
fn rewrite_until(
    app: &mut App,
    file: &std::path::Path,
    text: &str,
    done: impl Fn(&TileMap) -> bool,
) {
    let started = std::time::Instant::now();
    let mut writes = 0;
    while !done(app.world().resource::<TileMap>()) {
        let elapsed = started.elapsed();
        assert!(
            elapsed < Duration::from_secs(20),
            "the file watcher never reloaded the level ({writes} writes)"
        );
        if elapsed >= Duration::from_secs(writes) {
            std::fs::write(file, text).unwrap();
            writes += 1;
        }
        app.update();
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// With Bevy's file watcher: an LDtk project rewritten on disk, or one of its separate level
/// files, replaces the level played.
#[cfg(feature = "hot_reload")]
#[test]
fn hot_reload_applies_an_ldtk_project_or_level_file_rewritten_on_disk() {
    let root = std::env::temp_dir().join(format!("hot-reload-ldtk-{}", std::process::id()));
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/assets/ldtk");
    std::fs::create_dir_all(root.join("ldtk/external")).unwrap();
    for file in [
        "external.ldtk",
        "external/first.ldtkl",
        "external/second.ldtkl",
    ] {
        std::fs::copy(from.join(file), root.join("ldtk").join(file)).unwrap();
    }
    // The same first level, kept in the project (as LDtk saves it by default).
    let project = std::fs::read_to_string(from.join("external.ldtk")).unwrap();
    let first = std::fs::read_to_string(from.join("external/first.ldtkl")).unwrap();
    let inside = |level: &str| {
        let at = project.find("\"levels\"").unwrap();
        format!("{}\"levels\": [{level}]}}", &project[..at])
    };
    std::fs::write(root.join("ldtk/inside.ldtk"), inside(&first)).unwrap();
    let mut app = level_app(root.to_str().unwrap());

    apply(&mut app, "ldtk/inside.ldtk");
    assert_eq!(
        app.world().resource::<TileMap>().get(1, 1),
        TileKind::OneWay
    );
    assert_eq!(count::<With<SpawnPoint>>(&mut app), 1);
    // The one-way cells made solid, saved over the project.
    let solid = first.replace("[1, 0, 0, 1, 1, 2, 2, 1,", "[1, 0, 0, 1, 1, 1, 1, 1,");
    assert_ne!(solid, first, "the test's edit applies to the level file");
    let project = root.join("ldtk/inside.ldtk");
    rewrite_until(&mut app, &project, &inside(&solid), |map| {
        map.get(1, 1) == TileKind::Solid
    });
    assert_eq!(count::<With<SpawnPoint>>(&mut app), 1, "its objects, once");

    // A level of the project chosen by name, made current as it starts loading (as a game does):
    // the project reloads when its level file changes.
    let first: Handle<Level> = app
        .world()
        .resource::<AssetServer>()
        .load("ldtk/external.ldtk#first");
    app.world_mut().insert_resource(CurrentLevel(first));
    let started = std::time::Instant::now();
    while app.world().resource::<TileMap>().get(1, 1) != TileKind::OneWay {
        assert!(started.elapsed() < Duration::from_secs(10), "never applied");
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let level_file = root.join("ldtk/external/first.ldtkl");
    rewrite_until(&mut app, &level_file, &solid, |map| {
        map.get(1, 1) == TileKind::Solid
    });
    std::fs::remove_dir_all(&root).ok();
}
