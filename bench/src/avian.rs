//! The scene in avian2d 0.7, configured as its documentation recommends for a pixel-unit tile
//! game: length unit of one tile, merged static rectangles, rotation locked, no sleeping; a
//! collision hook takes the friction out of contacts against walls and the sides of bodies, as
//! ours has none there.

use avian2d::prelude::*;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::harness::{StepCount, base_app, count_steps};
use crate::scene::{CrowdStep, GRAVITY, PLATFORM_HALF, Scene, TILE, Tile, Walker, reverses_after};

#[derive(Component)]
struct Platform;

#[derive(Component)]
struct Dynamic(Vec2);

pub fn build(scene: &Scene) -> App {
    let mut app = base_app();
    app.add_plugins((
        bevy::asset::AssetPlugin::default(),
        PhysicsPlugins::default()
            .with_length_unit(TILE)
            .with_collision_hooks::<SideContactsWithoutFriction>(),
    ))
    .insert_resource(Gravity(Vec2::new(0.0, GRAVITY)))
    .init_resource::<StepCount>()
    .add_systems(
        FixedPostUpdate,
        (walk, count_steps, swing)
            .chain()
            .before(PhysicsSystems::First),
    );
    let world = app.world_mut();
    // One-way platforms need collision hooks in avian: here they are solid (stated in the report).
    for kind in [Tile::Solid, Tile::OneWay] {
        for (center, half) in scene.merged(kind) {
            world.spawn((
                RigidBody::Static,
                Collider::rectangle(half.x * 2.0, half.y * 2.0),
                Transform::from_translation(center.extend(0.0)),
            ));
        }
    }
    let bodies: Vec<Entity> = world
        .spawn_batch(
            scene
                .bodies
                .iter()
                .map(|b| {
                    (
                        Dynamic(b.half),
                        RigidBody::Dynamic,
                        Collider::rectangle(b.half.x * 2.0, b.half.y * 2.0),
                        LockedAxes::ROTATION_LOCKED,
                        LinearVelocity(Vec2::new(b.vx, 0.0)),
                        Restitution::ZERO,
                        Friction::new(0.5),
                        ActiveCollisionHooks::MODIFY_CONTACTS,
                        SleepingDisabled,
                        Transform::from_translation(b.center.extend(0.0)),
                    )
                })
                .collect::<Vec<_>>(),
        )
        .collect();
    scene.drive_crowd(world, bodies.into_iter().enumerate());
    for &p in &scene.platforms {
        world.spawn((
            Platform,
            RigidBody::Kinematic,
            Collider::rectangle(PLATFORM_HALF.x * 2.0, PLATFORM_HALF.y * 2.0),
            LinearVelocity(Vec2::new(scene.platform_speed, 0.0)),
            Transform::from_translation(p.extend(0.0)),
        ));
    }
    app
}

/// No friction where a contact's normal is more horizontal than vertical (a wall, or a body
/// beside this one): the scene's "none against walls", as in ours.
#[derive(SystemParam)]
struct SideContactsWithoutFriction;

impl CollisionHooks for SideContactsWithoutFriction {
    fn modify_contacts(&self, contacts: &mut ContactPair, _commands: &mut Commands) -> bool {
        for manifold in &mut contacts.manifolds {
            if manifold.normal.x.abs() > manifold.normal.y.abs() {
                manifold.friction = 0.0;
            }
        }
        true
    }
}

/// The crowd's driver (before the step; `count` is the number of steps completed).
fn walk(count: Res<StepCount>, mut walkers: Query<(&Walker, &mut LinearVelocity)>) {
    let at = CrowdStep::new(count.0);
    for (walker, mut velocity) in &mut walkers {
        velocity.0 = walker.drive(at, velocity.0);
    }
}

fn swing(count: Res<StepCount>, mut platforms: Query<&mut LinearVelocity, With<Platform>>) {
    if reverses_after(count.0) {
        for mut v in &mut platforms {
            v.x = -v.x;
        }
    }
}

pub fn boxes(app: &mut App) -> Vec<(Vec2, Vec2)> {
    let world = app.world_mut();
    world
        .query::<(&Position, &Dynamic)>()
        .iter(world)
        .map(|(p, d)| (p.0, d.0))
        .collect()
}
