//! The same scene run twice gives bit-identical positions.

use bevy::prelude::*;

use crate::common::*;

/// A level with platforms, one-ways and a ladder, and 300 bodies of assorted sizes and speeds.
pub fn busy_scene() -> App {
    let mut map = empty_map(64, 32);
    map.fill(IVec2::new(0, 0), IVec2::new(63, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 31), TileKind::Solid);
    map.fill(IVec2::new(63, 0), IVec2::new(63, 31), TileKind::Solid);
    for (i, y) in [6, 12, 18, 24].into_iter().enumerate() {
        let kind = if i % 2 == 0 {
            TileKind::Solid
        } else {
            TileKind::OneWay
        };
        map.fill(
            IVec2::new(5 + 7 * i as i32, y),
            IVec2::new(20 + 7 * i as i32, y),
            kind,
        );
    }
    map.fill(IVec2::new(40, 1), IVec2::new(40, 20), TileKind::Ladder);
    let mut app = app(map);
    let mut next = unit_floats(0x9E37_79B9);
    for _ in 0..300 {
        let center = Vec2::new(24.0 + next() * 960.0, 24.0 + next() * 460.0);
        let half = Vec2::new(2.0 + next() * 8.0, 2.0 + next() * 8.0);
        let velocity = Vec2::new(next() * 800.0 - 400.0, next() * 800.0 - 400.0);
        spawn(&mut app, center, half, velocity);
    }
    app
}

fn positions(app: &mut App) -> Vec<(u32, u32)> {
    let mut q = app.world_mut().query::<&Aabb>();
    q.iter(app.world())
        .map(|a| (a.center.x.to_bits(), a.center.y.to_bits()))
        .collect()
}

#[test]
fn same_scene_twice_gives_bit_identical_positions() {
    let mut a = busy_scene();
    let mut b = busy_scene();
    step(&mut a, 300);
    step(&mut b, 300);
    let (pa, pb) = (positions(&mut a), positions(&mut b));
    assert_eq!(pa.len(), 300);
    assert_eq!(pa, pb);
}

/// Bodies of two kinds (two tables) packed so that most have several contacts, whose order
/// sets the rounding of their response; before them, `unrelated` resources and archetypes
/// that the physics never reads.
fn packed_scene_after(unrelated: usize) -> App {
    #[derive(Resource)]
    struct Score<const N: usize>;
    #[derive(Component)]
    struct Tag<const N: usize>;
    let mut map = empty_map(40, 24);
    map.fill(IVec2::new(0, 0), IVec2::new(39, 0), TileKind::Solid);
    map.fill(IVec2::new(0, 0), IVec2::new(0, 23), TileKind::Solid);
    map.fill(IVec2::new(39, 0), IVec2::new(39, 23), TileKind::Solid);
    let mut app = app(map);
    let world = app.world_mut();
    let extras: [fn(&mut World); 6] = [
        |w| w.insert_resource(Score::<0>),
        |w| {
            w.spawn(Tag::<1>);
        },
        |w| w.insert_resource(Score::<2>),
        |w| {
            w.spawn((Tag::<3>, Tag::<1>));
        },
        |w| w.insert_resource(Score::<4>),
        |w| {
            w.spawn(Tag::<5>);
        },
    ];
    for extra in &extras[..unrelated] {
        extra(world);
    }
    let mut next = unit_floats(0x51ED_2701);
    for k in 0..400 {
        let center = Vec2::new(
            40.0 + (k % 40) as f32 * 14.0 + next() * 6.0,
            30.0 + (k / 40) as f32 * 13.0,
        );
        let half = Vec2::new(5.0 + next() * 3.0, 5.0 + next() * 2.0);
        let velocity = Vec2::new(next() * 120.0 - 60.0, 0.0);
        if k % 9 == 4 {
            spawn_kinematic(&mut app, center, half, Vec2::new(velocity.x * 0.25, 0.0));
        } else {
            spawn(&mut app, center, half, velocity);
        }
    }
    app
}

/// A body's entity, box centre and velocity, and contacts (partner and overlap), as bits.
type BodyBits = (Entity, [u32; 4], Vec<(Entity, u32, u32)>);

/// Every body's state and contacts (in their order), by entity.
fn bodies_and_contacts(app: &mut App) -> Vec<BodyBits> {
    let mut q = app
        .world_mut()
        .query::<(Entity, &Aabb, &Velocity, &Contacts)>();
    let mut all: Vec<_> = q
        .iter(app.world())
        .map(|(e, a, v, c)| {
            let bits = [a.center.x, a.center.y, v.x, v.y].map(f32::to_bits);
            let contacts = c
                .iter()
                .map(|d| (d.other, d.overlap.x.to_bits(), d.overlap.y.to_bits()))
                .collect();
            (e, bits, contacts)
        })
        .collect();
    all.sort_unstable_by_key(|b| b.0);
    all
}

#[test]
fn the_outcome_does_not_depend_on_resources_and_entities_the_physics_never_reads() {
    let run = |unrelated: usize| {
        let mut app = packed_scene_after(unrelated);
        step(&mut app, 150);
        let bodies = bodies_and_contacts(&mut app);
        // The entities differ by the unrelated ones spawned first: partners by spawn order.
        let mut all = app.world_mut().query_filtered::<Entity, With<Aabb>>();
        let mut all: Vec<Entity> = all.iter(app.world()).collect();
        all.sort_unstable();
        let nth = |e: Entity| all.binary_search(&e).expect("a partner is a body");
        (bodies.iter())
            .map(|(_, s, c)| (*s, c.iter().map(|&(e, x, y)| (nth(e), x, y)).collect()))
            .collect::<Vec<([u32; 4], Vec<_>)>>()
    };
    let alone = run(0);
    let several = alone.iter().filter(|(_, c)| c.len() >= 2).count();
    assert!(
        several >= 100,
        "most bodies have several contacts to order ({several})"
    );
    for unrelated in 1..=6 {
        assert!(
            run(unrelated) == alone,
            "{unrelated} unrelated resources and archetypes changed the outcome"
        );
    }
}

/// Puts bodies into another table.
#[derive(Component)]
struct Marker;

#[test]
fn results_are_bit_identical_with_one_thread_and_with_the_task_pool() {
    let run = |parallel_min_bodies: usize| {
        let mut app = crate::determinism::busy_scene();
        // Bodies in three tables (archetypes) of different sizes, so the per-body stages cut
        // several tables into pieces.
        let world = app.world_mut();
        let bodies: Vec<Entity> = world
            .query::<(Entity, &Aabb)>()
            .iter(world)
            .map(|(e, _)| e)
            .collect();
        for (i, &e) in bodies.iter().enumerate() {
            match i % 7 {
                0 | 3 => {
                    world.entity_mut(e).insert(Marker);
                }
                5 => {
                    world.entity_mut(e).insert((Marker, Name::new("odd one")));
                }
                _ => {}
            }
        }
        let mut config = app.world_mut().resource_mut::<PhysicsConfig>();
        config.parallel_min_bodies = parallel_min_bodies;
        // Relaxation's searches and its two orders along x on the workers' threads too.
        config.relaxation_passes = 4;
        step(&mut app, 200);
        let landed: Vec<Entity> = drain_landed(&mut app).iter().map(|l| l.entity).collect();
        let started: Vec<_> = drain::<CollisionStarted>(&mut app);
        let ended: Vec<_> = drain::<CollisionEnded>(&mut app);
        let world = app.world_mut();
        let mut q = world.query::<(&Aabb, &Velocity, &Contacts)>();
        let bodies: Vec<_> = q
            .iter(world)
            .map(|(a, v, c)| {
                let cs: Vec<(Entity, u32, u32)> = c
                    .iter()
                    .map(|d| (d.other, d.overlap.x.to_bits(), d.overlap.y.to_bits()))
                    .collect();
                (
                    a.center.to_array().map(f32::to_bits),
                    v.to_array().map(f32::to_bits),
                    cs,
                )
            })
            .collect();
        (bodies, landed, started, ended)
    };
    let single = run(usize::MAX);
    let pooled = run(0);
    assert!(
        bevy::tasks::ComputeTaskPool::get().thread_num() > 1,
        "the pool really has threads"
    );
    assert!(
        single.0.iter().any(|b| !b.2.is_empty()),
        "the scene has contacts to compare"
    );
    assert!(
        !single.1.is_empty(),
        "and landings, written in entity order"
    );
    assert!(
        !single.2.is_empty() && !single.3.is_empty(),
        "and collision events"
    );
    assert_eq!(single, pooled);
}
