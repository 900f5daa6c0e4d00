//! The scene in bevy_rapier2d 0.36, configured as its documentation recommends for a pixel
//! game: pixels_per_meter of one tile, fixed schedule and timestep, merged static cuboids,
//! rotation locked, no sleeping; a physics hook takes the friction out of contacts against walls
//! and the sides of bodies, as ours has none there.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_rapier2d::prelude::*;

use crate::harness::{StepCount, base_app, count_steps};
use crate::scene::{
    CrowdStep, DT, GRAVITY, PLATFORM_HALF, Scene, TILE, Tile, Walker, reverses_after,
};

#[derive(Component)]
struct Platform;

#[derive(Component)]
struct Dynamic(Vec2);

pub fn build(scene: &Scene) -> App {
    let mut app = base_app();
    app.add_plugins((
        bevy::asset::AssetPlugin::default(),
        RapierPhysicsPlugin::<SideContactsWithoutFriction>::pixels_per_meter(TILE)
            .in_fixed_schedule(),
    ))
    .insert_resource(TimestepMode::Fixed {
        dt: DT,
        substeps: 1,
    })
    .init_resource::<StepCount>()
    .add_systems(
        FixedUpdate,
        (walk, count_steps, swing, set_gravity)
            .chain()
            .before(PhysicsSet::SyncBackend),
    );
    let world = app.world_mut();
    // One-way platforms need physics hooks in rapier: here they are solid (stated in the report).
    for kind in [Tile::Solid, Tile::OneWay] {
        for (center, half) in scene.merged(kind) {
            world.spawn((
                RigidBody::Fixed,
                Collider::cuboid(half.x, half.y),
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
                        Collider::cuboid(b.half.x, b.half.y),
                        LockedAxes::ROTATION_LOCKED,
                        Velocity::linear(Vec2::new(b.vx, 0.0)),
                        Restitution::coefficient(0.0),
                        Friction::coefficient(0.5),
                        ActiveHooks::MODIFY_SOLVER_CONTACTS,
                        Sleeping::disabled(),
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
            RigidBody::KinematicVelocityBased,
            Collider::cuboid(PLATFORM_HALF.x, PLATFORM_HALF.y),
            Velocity::linear(Vec2::new(scene.platform_speed, 0.0)),
            Transform::from_translation(p.extend(0.0)),
        ));
    }
    app
}

fn set_gravity(mut configs: Query<&mut RapierConfiguration>) {
    for mut c in &mut configs {
        if c.gravity.y != GRAVITY {
            c.gravity = Vec2::new(0.0, GRAVITY);
        }
    }
}

/// No friction where a contact's normal is more horizontal than vertical (a wall, or a body
/// beside this one): the scene's "none against walls", as in ours.
#[derive(SystemParam)]
struct SideContactsWithoutFriction;

impl BevyPhysicsHooks for SideContactsWithoutFriction {
    fn modify_solver_contacts(&self, context: ContactModificationContextView) {
        if context.raw.normal.x.abs() > context.raw.normal.y.abs() {
            *context.raw.friction = 0.0;
        }
    }
}

/// The crowd's driver (before the step; `count` is the number of steps completed).
fn walk(count: Res<StepCount>, mut walkers: Query<(&Walker, &mut Velocity)>) {
    let at = CrowdStep::new(count.0);
    for (walker, mut velocity) in &mut walkers {
        velocity.linear = walker.drive(at, velocity.linear);
    }
}

fn swing(count: Res<StepCount>, mut platforms: Query<&mut Velocity, With<Platform>>) {
    if reverses_after(count.0) {
        for mut v in &mut platforms {
            v.linear.x = -v.linear.x;
        }
    }
}

pub fn boxes(app: &mut App) -> Vec<(Vec2, Vec2)> {
    let world = app.world_mut();
    world
        .query::<(&Transform, &Dynamic)>()
        .iter(world)
        .map(|(t, d)| (t.translation.truncate(), d.0))
        .collect()
}
