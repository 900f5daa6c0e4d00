//! `CollisionStarted` / `CollisionEnded`: once per contact episode (touching counts), also when
//! a body is despawned, in a deterministic order.

use bevy::prelude::*;

use crate::common::*;

fn pair(x: Entity, y: Entity) -> (Entity, Entity) {
    if x < y { (x, y) } else { (y, x) }
}

fn started(app: &mut App) -> Vec<(Entity, Entity)> {
    drain::<CollisionStarted>(app)
        .iter()
        .map(|c| {
            assert!(c.a < c.b, "a is the smaller entity");
            (c.a, c.b)
        })
        .collect()
}

fn ended(app: &mut App) -> Vec<(Entity, Entity)> {
    drain::<CollisionEnded>(app)
        .iter()
        .map(|c| {
            assert!(c.a < c.b, "a is the smaller entity");
            (c.a, c.b)
        })
        .collect()
}

/// A 12 x 12 body moving right at 120 units/s, 74 units short of a kinematic 40 x 40 wall.
fn mover_and_wall(app: &mut App) -> (Entity, Entity) {
    let mover = spawn(
        app,
        Vec2::new(100.5, 100.0),
        Vec2::splat(6.0),
        Vec2::new(120.0, 0.0),
    );
    let wall = spawn_kinematic(app, Vec2::new(200.0, 100.0), Vec2::splat(20.0), Vec2::ZERO);
    (mover, wall)
}

/// Two still 12 x 12 bodies side by side, touching, after the step that started their contact.
fn touching_pair() -> (App, Entity, Entity) {
    let mut app = app_without_gravity(empty_map(20, 20));
    let a = still_box(&mut app, Vec2::new(100.0, 100.0));
    let b = still_box(&mut app, Vec2::new(112.0, 100.0));
    step(&mut app, 1);
    assert_eq!(started(&mut app), [pair(a, b)]);
    (app, a, b)
}

#[test]
fn bodies_that_meet_and_part_start_once_and_end_once() {
    let mut app = app_without_gravity(empty_map(40, 20));
    let (mover, wall) = mover_and_wall(&mut app);
    step(&mut app, 30);
    assert!(started(&mut app).is_empty(), "still apart");
    // It reaches the wall, stops touching it, and stays there for a second.
    step(&mut app, 60);
    assert_eq!(pos(&app, mover).x, 174.0, "resting against the wall's face");
    assert_eq!(
        started(&mut app),
        [pair(mover, wall)],
        "once, however long it rests"
    );
    assert!(ended(&mut app).is_empty());
    // Walking away ends the episode once; coming back starts a new one.
    set_vel(&mut app, mover, Vec2::new(-120.0, 0.0));
    step(&mut app, 10);
    assert_eq!(ended(&mut app), [pair(mover, wall)]);
    set_vel(&mut app, mover, Vec2::new(120.0, 0.0));
    step(&mut app, 30);
    assert_eq!(started(&mut app), [pair(mover, wall)]);
    assert!(ended(&mut app).is_empty());
}

#[test]
fn a_settled_stack_reports_each_contact_once() {
    let mut app = app(ascii(
        "#......#\n\
         #......#\n\
         #......#\n\
         #......#\n\
         #......#\n\
         ########",
    ));
    let boxes: Vec<Entity> = (0..4)
        .map(|i| still_box(&mut app, Vec2::new(64.0, 24.0 + 14.0 * i as f32)))
        .collect();
    step(&mut app, 300);
    let mut got = started(&mut app);
    got.sort();
    let mut expected: Vec<_> = boxes.windows(2).map(|w| pair(w[0], w[1])).collect();
    expected.sort();
    assert_eq!(got, expected, "one start per neighbouring pair, no flicker");
    assert!(ended(&mut app).is_empty());
}

#[test]
fn despawning_a_body_ends_its_contacts_at_once_and_only_once() {
    let mut app = app_without_gravity(empty_map(20, 20));
    let a = still_box(&mut app, Vec2::new(100.0, 100.0));
    let b = still_box(&mut app, Vec2::new(112.0, 100.0));
    let c = still_box(&mut app, Vec2::new(99.0, 112.0));
    step(&mut app, 1);
    assert_eq!(started(&mut app).len(), 2, "a touches b and c");
    app.world_mut().despawn(a);
    let mut got = ended(&mut app);
    got.sort();
    let mut expected = vec![pair(a, b), pair(a, c)];
    expected.sort();
    assert_eq!(got, expected, "written by the despawn itself");
    assert!(
        contacts(&app, b).is_empty() && contacts(&app, c).is_empty(),
        "and a left the others' contacts"
    );
    step(&mut app, 3);
    assert!(ended(&mut app).is_empty() && started(&mut app).is_empty());
    // Both sides of a pair despawned together: still one end.
    let d = still_box(&mut app, Vec2::new(124.0, 100.0));
    step(&mut app, 1);
    assert_eq!(started(&mut app), [pair(b, d)]);
    app.world_mut().despawn(b);
    app.world_mut().despawn(d);
    assert_eq!(ended(&mut app), [pair(b, d)]);
}

#[test]
fn disabling_a_body_ends_its_contacts_and_enabling_it_brings_it_back() {
    use bevy::ecs::entity_disabling::Disabled;
    let mut app = app(floor_room());
    let lower = spawn(
        &mut app,
        Vec2::new(100.0, 22.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    let upper = spawn(
        &mut app,
        Vec2::new(100.0, 34.0),
        Vec2::splat(6.0),
        Vec2::ZERO,
    );
    step(&mut app, 5);
    assert_eq!(started(&mut app), [pair(lower, upper)]);
    // Disabled (as bevy_ggrs's despawn for rollback does): out of the world, like a despawn.
    app.world_mut().entity_mut(lower).insert(Disabled);
    assert_eq!(ended(&mut app), [pair(lower, upper)], "at once");
    assert!(contacts(&app, upper).is_empty());
    step(&mut app, 30);
    assert_eq!(
        pos(&app, upper).y,
        22.0,
        "the upper box fell where the lower one was"
    );
    assert_eq!(verify_partition(&mut app), Ok(()));
    assert!(started(&mut app).is_empty() && ended(&mut app).is_empty());
    // Enabled again, in the upper box: pushed apart, in contact again, filed again.
    app.world_mut().entity_mut(lower).remove::<Disabled>();
    step(&mut app, 30);
    assert_eq!(started(&mut app), [pair(lower, upper)]);
    assert_eq!(max_pair_overlap(&app, &[lower, upper]), 0.0);
    assert_eq!(verify_partition(&mut app), Ok(()));
    let at = pos(&app, lower);
    let found: Vec<Entity> =
        with_query(&mut app, |q| q.point(at, QueryFilter::default()).collect());
    assert!(found.contains(&lower), "{found:?}");
}

#[test]
fn a_body_leaving_the_simulation_ends_its_contacts() {
    let (mut app, a, b) = touching_pair();
    // An invalid box takes `a` out of the partition: the contact ends, reported once.
    app.world_mut().get_mut::<Aabb>(a).unwrap().half_extents = Vec2::ZERO;
    let _ = count_warnings(|| step(&mut app, 2));
    assert_eq!(ended(&mut app), [pair(a, b)]);
    // Removing the Aabb altogether (the body stays an entity): nothing more to end.
    app.world_mut().entity_mut(a).remove::<Aabb>();
    step(&mut app, 1);
    assert!(ended(&mut app).is_empty());
}

#[test]
fn pairs_filtered_by_layers_report_nothing() {
    let mut app = app_without_gravity(empty_map(20, 20));
    let a = still_box(&mut app, Vec2::new(100.0, 100.0));
    let b = still_box(&mut app, Vec2::new(104.0, 100.0));
    app.world_mut().entity_mut(a).insert(CollisionLayers::new(
        LayerMask::layer(0),
        !LayerMask::layer(1),
    ));
    app.world_mut()
        .entity_mut(b)
        .insert(CollisionLayers::new(LayerMask::layer(1), LayerMask::ALL));
    step(&mut app, 5);
    assert!(started(&mut app).is_empty() && ended(&mut app).is_empty());
}

#[test]
fn the_same_scene_gives_the_same_events_in_the_same_order() {
    let run = || {
        let mut app = crate::determinism::busy_scene();
        step(&mut app, 200);
        (started(&mut app), ended(&mut app))
    };
    let (first, second) = (run(), run());
    assert!(
        first.0.len() > 50 && first.1.len() > 20,
        "a busy scene: {} / {}",
        first.0.len(),
        first.1.len()
    );
    assert_eq!(first, second);
}

#[test]
fn collision_events_can_be_turned_off_and_back_on() {
    let mut app = app_without_gravity(empty_map(40, 20));
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .collision_events = false;
    let (mover, wall) = mover_and_wall(&mut app);
    let other = still_box(&mut app, Vec2::new(300.0, 100.0));
    let neighbour = still_box(&mut app, Vec2::new(312.0, 100.0));
    step(&mut app, 90);
    let contacts = |app: &App, e: Entity| app.world().get::<Contacts>(e).unwrap().len();
    assert_eq!(contacts(&app, mover), 1, "contacts are filled either way");
    assert_eq!(contacts(&app, other), 1);
    assert!(started(&mut app).is_empty(), "no messages while off");
    app.world_mut().despawn(neighbour);
    step(&mut app, 1);
    assert!(ended(&mut app).is_empty(), "not even for a despawn");
    // Back on: a contact that goes on is not news; its end is.
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .collision_events = true;
    step(&mut app, 5);
    assert!(started(&mut app).is_empty());
    assert!(ended(&mut app).is_empty());
    set_vel(&mut app, mover, Vec2::new(-120.0, 0.0));
    step(&mut app, 10);
    assert_eq!(ended(&mut app), [pair(mover, wall)]);
}

#[test]
fn contacts_are_listed_only_for_bodies_that_ask_and_everything_else_works_without() {
    let mut app = app(empty_map(40, 20));
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::new(0.0, -600.0);
    // Two plain bodies stacked on the floor row, and a listed one beside the lower one (2 units
    // clear of the upper one).
    app.world_mut().resource_mut::<TileMap>().fill(
        IVec2::new(0, 0),
        IVec2::new(39, 0),
        TileKind::Solid,
    );
    let below = spawn_unlisted(&mut app, Vec2::new(100.0, 22.0));
    let above = spawn_unlisted(&mut app, Vec2::new(98.0, 60.0));
    let listed = still_box(&mut app, Vec2::new(112.0, 22.0));
    step(&mut app, 60);
    assert!(app.world().get::<Contacts>(below).is_none(), "never added");
    // The upper body fell onto the lower one and rests there: the response works without
    // `Contacts`, and so do the landing and the collision events.
    assert!(
        (pos(&app, above).y - 34.0).abs() < 1e-3,
        "{}",
        pos(&app, above)
    );
    assert!(flags(&app, above).pushes_object(Side::Bottom));
    assert!(flags(&app, below).pushes_object(Side::Top));
    assert!(drain_landed(&mut app).iter().any(|l| l.entity == above));
    let mut got = started(&mut app);
    got.sort();
    let mut expected = vec![pair(below, above), pair(below, listed)];
    expected.sort();
    assert_eq!(got, expected);
    // The listed body names its plain neighbour.
    let others: Vec<Entity> = contacts(&app, listed).iter().map(|c| c.other).collect();
    assert_eq!(others, [below]);
    // Asking later: filled at the next step. Removing it again ends nothing.
    app.world_mut()
        .entity_mut(below)
        .insert(Contacts::default());
    step(&mut app, 1);
    let mut others: Vec<Entity> = contacts(&app, below).iter().map(|c| c.other).collect();
    others.sort();
    let mut expected = vec![above, listed];
    expected.sort();
    assert_eq!(others, expected);
    app.world_mut().entity_mut(below).remove::<Contacts>();
    step(&mut app, 1);
    assert!(ended(&mut app).is_empty() && started(&mut app).is_empty());
    // Despawning a plain body ends its contacts at once and leaves the listed one's list.
    app.world_mut().despawn(below);
    let mut got = ended(&mut app);
    got.sort();
    let mut expected = vec![pair(below, above), pair(below, listed)];
    expected.sort();
    assert_eq!(got, expected);
    assert!(contacts(&app, listed).is_empty());
    step(&mut app, 2);
    assert!(ended(&mut app).is_empty(), "once");
}

#[test]
fn removing_the_box_twice_before_a_step_ends_the_contacts_once() {
    let (mut app, a, b) = touching_pair();
    let aabb = aabb(&app, a);
    app.world_mut().entity_mut(a).remove::<Aabb>();
    app.world_mut().entity_mut(a).insert(aabb);
    app.world_mut().entity_mut(a).remove::<Aabb>();
    assert_eq!(ended(&mut app), [pair(a, b)]);
    step(&mut app, 2);
    assert!(ended(&mut app).is_empty());
}

#[test]
fn a_box_removed_and_put_back_before_a_step_starts_a_new_episode() {
    let (mut app, a, b) = touching_pair();
    let aabb = aabb(&app, a);
    app.world_mut().entity_mut(a).remove::<Aabb>();
    assert_eq!(ended(&mut app), [pair(a, b)], "the removal ends it");
    app.world_mut().entity_mut(a).insert(aabb);
    step(&mut app, 1);
    assert_eq!(
        started(&mut app),
        [pair(a, b)],
        "touching again: a new episode"
    );
    assert!(ended(&mut app).is_empty());
    step(&mut app, 2);
    assert!(started(&mut app).is_empty() && ended(&mut app).is_empty());
}
