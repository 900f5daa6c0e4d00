//! Sensors detect bodies without pushing them; entries and exits are written exactly once,
//! also when either side is despawned.

use bevy::prelude::*;

use crate::common::*;

fn spawn_sensor(app: &mut App, sensor: Sensor, at: Vec2) -> Entity {
    app.world_mut()
        .spawn((sensor, Transform::from_translation(at.extend(0.0))))
        .id()
}

fn inside(app: &App, sensor: Entity) -> Vec<Entity> {
    app.world()
        .get::<SensorContents>(sensor)
        .unwrap()
        .bodies()
        .to_vec()
}

/// One body crossing each kind of sensor from left to right at 120 units/s (2 per step).
#[test]
fn a_body_crossing_a_sensor_enters_once_and_exits_once() {
    let shapes = [
        Sensor::rectangle(Vec2::new(20.0, 30.0)),
        Sensor::circle(25.0),
        Sensor::rotated_rect(Vec2::new(30.0, 8.0)),
    ];
    for shape in shapes {
        let mut app = app_without_gravity(empty_map(40, 20));
        let sensor = spawn_sensor(&mut app, shape, Vec2::new(300.0, 150.0));
        let body = spawn(
            &mut app,
            Vec2::new(150.5, 150.0),
            Vec2::splat(6.0),
            Vec2::new(120.0, 0.0),
        );
        let mut entered_at = None;
        let mut exited_at = None;
        let mut entries = 0;
        let mut exits = 0;
        for n in 1..=180 {
            step(&mut app, 1);
            for e in drain::<SensorEntered>(&mut app) {
                assert_eq!((e.sensor, e.body), (sensor, body));
                entries += 1;
                entered_at.get_or_insert(n);
            }
            for e in drain::<SensorExited>(&mut app) {
                assert_eq!((e.sensor, e.body), (sensor, body));
                exits += 1;
                exited_at.get_or_insert(n);
            }
            let expected_inside = entered_at.is_some() && exited_at.is_none();
            assert_eq!(
                inside(&app, sensor) == [body],
                expected_inside,
                "{shape:?} step {n}"
            );
        }
        assert_eq!((entries, exits), (1, 1), "{shape:?}");
        // The sensor did not push the body: it kept its speed and line.
        assert_eq!(vel(&app, body), Vec2::new(120.0, 0.0));
        assert_eq!(pos(&app, body).y, 150.0);
        // It entered when its right face reached the sensor's left extent (touching counts).
        let reach = match shape.shape {
            SensorShape::Box { half_extents } => half_extents.x,
            SensorShape::Circle { radius } => radius,
            SensorShape::RotatedRect { half_extents } => half_extents.x,
        };
        let entry_step = ((300.0 - reach - 6.0 - 150.5) / 2.0_f32).ceil() as usize;
        assert_eq!(entered_at, Some(entry_step), "{shape:?}");
    }
}

#[test]
fn despawning_a_body_inside_a_sensor_gives_its_exit() {
    let mut app = app_without_gravity(empty_map(20, 20));
    let sensor = spawn_sensor(&mut app, Sensor::circle(40.0), Vec2::splat(100.0));
    let body = still_box(&mut app, Vec2::splat(100.0));
    let stays = still_box(&mut app, Vec2::splat(120.0));
    step(&mut app, 2);
    assert_eq!(drain::<SensorEntered>(&mut app).len(), 2);
    app.world_mut().despawn(body);
    step(&mut app, 1);
    assert_eq!(
        drain::<SensorExited>(&mut app),
        [SensorExited { sensor, body }]
    );
    assert_eq!(inside(&app, sensor), [stays]);
    step(&mut app, 5);
    assert!(drain::<SensorExited>(&mut app).is_empty(), "exactly once");
    assert!(drain::<SensorEntered>(&mut app).is_empty());
}

#[test]
fn despawning_a_sensor_gives_the_exit_of_every_body_inside() {
    let mut app = app_without_gravity(empty_map(20, 20));
    let sensor = spawn_sensor(
        &mut app,
        Sensor::rectangle(Vec2::splat(40.0)),
        Vec2::splat(100.0),
    );
    let a = still_box(&mut app, Vec2::splat(90.0));
    let b = still_box(&mut app, Vec2::splat(110.0));
    step(&mut app, 1);
    assert_eq!(drain::<SensorEntered>(&mut app).len(), 2);
    app.world_mut().despawn(sensor);
    let mut exits: Vec<Entity> = drain::<SensorExited>(&mut app)
        .iter()
        .map(|e| {
            assert_eq!(e.sensor, sensor);
            e.body
        })
        .collect();
    exits.sort();
    let mut both = vec![a, b];
    both.sort();
    assert_eq!(exits, both, "written at once, before any step");
    step(&mut app, 3);
    assert!(drain::<SensorExited>(&mut app).is_empty());
}

#[test]
fn sensor_layers_filter_both_ways() {
    const PLAYER: LayerMask = LayerMask::layer(0);
    const ENEMY: LayerMask = LayerMask::layer(1);
    const PICKUP: LayerMask = LayerMask::layer(2);
    let mut app = app_without_gravity(empty_map(20, 20));
    // A pickup zone that only cares about players.
    let zone = app
        .world_mut()
        .spawn((
            Sensor::circle(50.0),
            Transform::from_xyz(100.0, 100.0, 0.0),
            CollisionLayers::new(PICKUP, PLAYER),
        ))
        .id();
    let player = still_box(&mut app, Vec2::splat(90.0));
    let enemy = still_box(&mut app, Vec2::splat(110.0));
    // A player that ignores pickups: filtered on the body's side.
    let aloof = still_box(&mut app, Vec2::new(100.0, 80.0));
    let plain = still_box(&mut app, Vec2::new(80.0, 110.0));
    let world = app.world_mut();
    world
        .entity_mut(player)
        .insert(CollisionLayers::new(PLAYER, LayerMask::ALL));
    world
        .entity_mut(enemy)
        .insert(CollisionLayers::new(ENEMY, LayerMask::ALL));
    world
        .entity_mut(aloof)
        .insert(CollisionLayers::new(PLAYER, !PICKUP));
    step(&mut app, 1);
    let mut expected = vec![player, plain];
    expected.sort();
    assert_eq!(
        inside(&app, zone),
        expected,
        "not the enemy (the zone's filter) nor the aloof player (its own filter)"
    );
}

#[test]
fn a_sensor_on_a_body_follows_it_and_never_detects_itself() {
    let mut app = app(ascii(
        "..........\n\
         ..........\n\
         ..........\n\
         ..........\n\
         ##########",
    ));
    let faller = app
        .world_mut()
        .spawn((
            Aabb::new(Vec2::new(40.0, 70.0), Vec2::splat(6.0)),
            Sensor::circle(30.0),
        ))
        .id();
    let resting = still_box(&mut app, Vec2::new(70.0, 22.0));
    step(&mut app, 1);
    assert!(
        inside(&app, faller).is_empty(),
        "itself excluded, the other far"
    );
    step(&mut app, 60);
    assert_eq!(pos(&app, faller).y, 22.0, "landed on the floor");
    assert_eq!(inside(&app, faller), [resting]);
}

#[test]
fn a_rotated_rect_sensor_turns_with_its_transform() {
    let mut app = app_without_gravity(empty_map(20, 20));
    // A long thin bar: 100 wide, 4 high. A body 30 above its centre is outside it...
    let bar = spawn_sensor(
        &mut app,
        Sensor::rotated_rect(Vec2::new(50.0, 2.0)),
        Vec2::splat(150.0),
    );
    let body = spawn(
        &mut app,
        Vec2::new(150.0, 180.0),
        Vec2::splat(4.0),
        Vec2::ZERO,
    );
    step(&mut app, 1);
    assert!(inside(&app, bar).is_empty());
    // ... until the bar stands upright.
    app.world_mut()
        .get_mut::<Transform>(bar)
        .unwrap()
        .rotate_z(core::f32::consts::FRAC_PI_2);
    step(&mut app, 1);
    assert_eq!(inside(&app, bar), [body]);
    // An axis-aligned box sensor ignores the rotation.
    app.world_mut()
        .entity_mut(bar)
        .insert(Sensor::rectangle(Vec2::new(50.0, 2.0)));
    step(&mut app, 1);
    assert!(inside(&app, bar).is_empty());
}

/// A body the response pushes into another cell is filed there in the same step, and found by
/// a sensor there in that same step.
#[test]
fn a_body_moved_by_the_response_is_sensed_in_the_same_step() {
    let mut app = app_without_gravity(empty_map(20, 20));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .partition_cell_tiles = 1;
    // Spawned overlapping by 4 on x: the response separates them, 2 units each.
    let a = still_box(&mut app, Vec2::new(103.0, 40.0));
    still_box(&mut app, Vec2::new(111.0, 40.0));
    let sensor = spawn_sensor(
        &mut app,
        Sensor::rectangle(Vec2::new(4.0, 4.0)),
        Vec2::new(91.5, 40.0),
    );
    step(&mut app, 1);
    assert_eq!(pos(&app, a).x, 101.0, "moved left by the response");
    let cells = app.world().get::<GridAreas>(a).unwrap().range().unwrap();
    assert_eq!(cells.0.x, 5, "filed from x = 80 on: its box reaches x = 95");
    assert_eq!(inside(&app, sensor), [a], "its box reaches x = 95 < 95.5");
}

#[test]
fn an_unusable_sensor_shape_warns_once_and_detects_nothing() {
    let mut app = app_without_gravity(empty_map(20, 20));
    let sensor = spawn_sensor(&mut app, Sensor::circle(f32::NAN), Vec2::splat(100.0));
    still_box(&mut app, Vec2::splat(100.0));
    let ((), warnings) = count_warnings(|| step(&mut app, 5));
    assert_eq!(warnings, 1);
    assert!(inside(&app, sensor).is_empty());
    // Fixed: it works, and a later breakage warns again.
    app.world_mut().get_mut::<Sensor>(sensor).unwrap().shape = SensorShape::Circle { radius: 10.0 };
    let ((), warnings) = count_warnings(|| step(&mut app, 2));
    assert_eq!((warnings, inside(&app, sensor).len()), (0, 1));
    app.world_mut().get_mut::<Sensor>(sensor).unwrap().shape = SensorShape::Circle { radius: -1.0 };
    let ((), warnings) = count_warnings(|| step(&mut app, 2));
    assert_eq!(warnings, 1);
    assert!(inside(&app, sensor).is_empty());
    assert_eq!(drain::<SensorExited>(&mut app).len(), 1);
}
