//! The bevy-tnua character controller on this physics (the `tnua` feature): walk, jump with
//! coyote time and input buffering, crouch, dash, wall slide and fall-through platforms, from
//! [bevy-tnua](https://docs.rs/bevy-tnua), with this crate as its physics backend.
//!
//! # Setting it up
//!
//! Add [`TnuaPlatformerPlugin`] and tnua's `TnuaControllerPlugin` in the physics schedule
//! (`FixedUpdate` unless you gave [`PhysicsPlugin`](crate::PhysicsPlugin) another), and give the
//! character, besides its [`Aabb`] and [`Velocity`], tnua's `TnuaController` and `TnuaConfig`
//! and a [`TnuaPlatformerBundle`]. Its basis' `float_height` is the height of the box's centre
//! above the ground: make it a little more than half the box's height, so the box floats just
//! above the ground.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_platformer_physics::prelude::*;
//! use bevy_platformer_physics::tnua::{TnuaPlatformerBundle, TnuaPlatformerPlugin};
//! use bevy_tnua::builtins::{TnuaBuiltinJumpConfig, TnuaBuiltinWalkConfig};
//! use bevy_tnua::prelude::*;
//!
//! #[derive(TnuaScheme)]
//! #[scheme(basis = TnuaBuiltinWalk)]
//! enum Controls {
//!     Jump(TnuaBuiltinJump),
//! }
//!
//! fn spawn_player(mut commands: Commands, mut configs: ResMut<Assets<ControlsConfig>>) {
//!     let config = configs.add(ControlsConfig {
//!         // A box 12 high floats 2 units above the ground.
//!         basis: TnuaBuiltinWalkConfig { speed: 90.0, float_height: 8.0, ..default() },
//!         jump: TnuaBuiltinJumpConfig { height: 40.0, ..default() },
//!     });
//!     commands.spawn((
//!         Aabb::new(Vec2::new(40.0, 40.0), Vec2::new(5.0, 6.0)),
//!         TnuaController::<Controls>::default(),
//!         TnuaConfig::<Controls>(config),
//!         TnuaPlatformerBundle::default(),
//!     ));
//! }
//!
//! /// What the player asks for, read from the keyboard or a gamepad by the game.
//! #[derive(Resource, Default)]
//! struct PlayerInput {
//!     right: f32,
//!     jump: bool,
//! }
//!
//! fn controls(input: Res<PlayerInput>, mut player: Query<&mut TnuaController<Controls>>) {
//!     for mut controller in &mut player {
//!         controller.initiate_action_feeding();
//!         controller.basis.desired_motion = Vec3::X * input.right;
//!         if input.jump {
//!             // Fed while the button is held: a longer press jumps higher.
//!             controller.action(Controls::Jump(default()));
//!         }
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, AssetPlugin::default(), PhysicsPlugin::default()))
//!     .add_plugins((
//!         TnuaControllerPlugin::<Controls>::new(FixedUpdate),
//!         TnuaPlatformerPlugin::default(),
//!     ))
//!     .init_resource::<PlayerInput>()
//!     .insert_resource(TileMap::from_ascii("....\n####", 16.0).unwrap())
//!     .add_systems(Startup, spawn_player)
//!     .add_systems(FixedUpdate, controls.in_set(TnuaUserControlsSystems));
//! ```
//!
//! # What the backend does each step
//!
//! Tnua's systems run in the physics schedule before [`PhysicsSystems::Integrate`]:
//!
//! 1. **Sensors.** Each character's `TnuaRigidBodyTracker` gets its box's centre, its velocity
//!    and its gravity ([`PhysicsConfig::gravity`](crate::PhysicsConfig::gravity), or its
//!    `TnuaGravity`), no rotation. Each proximity sensor is a box cast
//!    ([`SpatialQuery::cast_box_hits`]) of the character's own box from its centre along the
//!    sensor's direction, against the tiles and the bodies the character collides with
//!    (`TnuaNotPlatform` bodies left out): the proximity is the distance from the centre to the
//!    surface met (the cast's distance plus the box's half extent that way), with the
//!    surface's normal and the velocity of what was met (a body's [`Velocity`], so a moving
//!    platform carries the character; zero for tiles).
//! 2. **Ghosts.** One-way surfaces are tnua's ghost platforms: one-way tiles, ladder tops,
//!    one-way slopes, and bodies that are a [`OneWayPlatform`] or a `TnuaGhostPlatform`. A
//!    sensor with a `TnuaGhostSensor` (a character with tnua's `TnuaGhostOverwrites`) lists them
//!    there, nearest first, up to the first other surface, so tnua's fall-through helper decides
//!    which to stand on; a sensor without one sees them as ground like any other.
//! 3. **Motors.** After tnua's logic, its motor changes the [`Velocity`] (its boost, and its
//!    acceleration over the step), and the physics moves the body. A character with a ghost
//!    sensor drops through one-way surfaces while tnua ignores one it sees, and until its box
//!    has left the one-way surfaces it overlaps: the backend sets its
//!    [`BodySwitches::drop_through`] (a game does not set that switch on such a character).
//!    A character with a `TnuaGravity` falls by it instead of the physics' gravity, whose
//!    switch ([`BodySwitches::gravity`]) the backend turns off.
//!
//! # Tiles as entities
//!
//! Tnua names what a character stands on by an entity, and tiles are not entities. The backend
//! spawns stand-ins ([`TnuaTileEntities`]): one entity for the tile map's solid tiles and
//! slopes, and one for each group of one-way tiles, ladders and one-way slopes that touch
//! (diagonally too), marked `TnuaGhostPlatform`, so tnua's fall-through helper tells one
//! platform from the next. They are made again (the same entities, as far as they go) when the
//! [`TileMap`] changes.
//!
//! # Tnua's floating spring and this physics
//!
//! Tnua holds a character up with a spring, floating at its `float_height`, so its box does not
//! touch the ground while it walks or stands:
//!
//! - **Friction** acts only on a box that touches the ground, and tnua brakes and accelerates
//!   the character itself: [`TnuaPlatformerBundle`] turns it off, so a landing that touches the
//!   ground does not brake it as well.
//! - **Riders.** The physics carries a body standing on a moving platform; a floating character
//!   does not touch the platform, so tnua moves it along instead, from the platform's velocity
//!   in the sensor's output. A character that does touch (a hard landing) is carried for that
//!   step too, and tnua's spring takes it back to its height.
//! - **Walls, crates, ceilings and relaxation** are the physics': the character's box slides
//!   along walls, pushes crates and is pushed out of bodies like any body. A crate the
//!   character floats over is below its box, not touching it.
//! - **Slopes.** The sensor is the character's own box, so on a slope it measures to the
//!   surface under the box's uphill corner: the box floats above the slope by the same gap as
//!   above flat ground, and a jump from a slope goes as high as from flat ground.
//!
//! Tnua's obstacle radar is not filled: a game finds the walls beside a character from the
//! physics ([`PushFlags`](crate::PushFlags), or a [`SpatialQuery`] cast).

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_tnua::math::{Quaternion, Vector3};
use bevy_tnua::{
    TnuaGhostPlatform, TnuaGhostSensor, TnuaGravity, TnuaMotor, TnuaNotPlatform,
    TnuaPipelineSystems, TnuaProximitySensor, TnuaProximitySensorOutput, TnuaRigidBodyTracker,
    TnuaSensorOf, TnuaSystems, TnuaToggle,
};

use crate::body::{Aabb, BodySwitches, Velocity};
use crate::config::PhysicsConfig;
use crate::geometry::skin_at;
use crate::layers::CollisionLayers;
use crate::one_way::OneWayPlatform;
use crate::query::{CastHit, HitTarget, QueryFilter, SpatialQuery};
use crate::schedule::PhysicsSystems;
use crate::tiles::collide::overlaps_tile_where;
use crate::tiles::{TileKind, TileMap};

/// This physics as bevy-tnua's backend (see the [module](self)). Add it with tnua's
/// `TnuaControllerPlugin`, both in the physics schedule.
pub struct TnuaPlatformerPlugin {
    schedule: InternedScheduleLabel,
}

impl TnuaPlatformerPlugin {
    /// The backend in `schedule`: the one [`PhysicsPlugin`](crate::PhysicsPlugin) runs in.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Default for TnuaPlatformerPlugin {
    /// In `FixedUpdate`, the physics' default schedule.
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl Plugin for TnuaPlatformerPlugin {
    fn build(&self, app: &mut App) {
        let map = app.world_mut().spawn(Name::new("tile map")).id();
        app.insert_resource(TnuaTileEntities {
            map,
            groups: HashMap::default(),
            platforms: Vec::new(),
        })
        .configure_sets(self.schedule, TnuaSystems.before(PhysicsSystems::Integrate))
        .add_systems(
            self.schedule,
            (name_tile_groups, (track_bodies, sense_proximity))
                .chain()
                .in_set(TnuaPipelineSystems::Sensors),
        )
        .add_systems(
            self.schedule,
            (apply_motors, follow_ghost_choices).in_set(TnuaPipelineSystems::Motors),
        );
    }
}

/// What a tnua character needs on this physics besides its [`Aabb`], [`Velocity`] and tnua's
/// components: ground friction off, since tnua accelerates and brakes the character itself
/// (see the [module](self)).
///
/// ```
/// use bevy_platformer_physics::tnua::TnuaPlatformerBundle;
///
/// assert!(!TnuaPlatformerBundle::default().switches.friction);
/// ```
#[derive(Bundle, Clone, Debug)]
pub struct TnuaPlatformerBundle {
    /// Friction off, the rest as by default.
    pub switches: BodySwitches,
}

impl Default for TnuaPlatformerBundle {
    fn default() -> Self {
        Self {
            switches: BodySwitches {
                friction: false,
                ..default()
            },
        }
    }
}

/// The entities that stand for tiles in tnua's sensor outputs (see the [module](self)).
#[derive(Resource, Debug)]
pub struct TnuaTileEntities {
    map: Entity,
    /// The group of each one-way tile, ladder and one-way slope: an index into `platforms`.
    groups: HashMap<IVec2, usize>,
    platforms: Vec<Entity>,
}

impl TnuaTileEntities {
    /// The entity standing for the tile at `tile`: its group's for a one-way tile, a ladder or
    /// a one-way slope, the map's for any other.
    pub fn of(&self, tile: IVec2) -> Entity {
        self.groups
            .get(&tile)
            .map_or(self.map, |&group| self.platforms[group])
    }

    /// The entity standing for the tile map's solid tiles and slopes.
    pub fn map(&self) -> Entity {
        self.map
    }
}

/// Whether tiles of `kind` let a body through from below: tnua's ghost platforms.
fn passes_from_below(kind: TileKind) -> bool {
    matches!(kind, TileKind::OneWay | TileKind::Ladder) || kind.slope().is_some_and(|s| s.one_way)
}

/// Groups the map's one-way tiles, ladders and one-way slopes that touch (diagonally too),
/// each group named by an entity, when the map changed.
fn name_tile_groups(
    map: Res<TileMap>,
    mut tiles: ResMut<TnuaTileEntities>,
    mut commands: Commands,
) {
    if !map.is_changed() {
        return;
    }
    let tiles = &mut *tiles;
    tiles.groups.clear();
    let mut count = 0;
    let mut stack = Vec::new();
    for y in 0..map.height() as i32 {
        for x in 0..map.width() as i32 {
            let start = IVec2::new(x, y);
            if !passes_from_below(map.get(x, y)) || tiles.groups.contains_key(&start) {
                continue;
            }
            tiles.groups.insert(start, count);
            stack.push(start);
            while let Some(tile) = stack.pop() {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let next = tile + IVec2::new(dx, dy);
                        let kind = map.checked_get(next.x, next.y);
                        if kind.is_some_and(passes_from_below) && !tiles.groups.contains_key(&next)
                        {
                            tiles.groups.insert(next, count);
                            stack.push(next);
                        }
                    }
                }
            }
            count += 1;
        }
    }
    // The same entities as far as they go, so what a character stands on keeps its name.
    while tiles.platforms.len() < count {
        let platform = commands
            .spawn((Name::new("one-way tiles"), TnuaGhostPlatform))
            .id();
        tiles.platforms.push(platform);
    }
    for gone in tiles.platforms.drain(count..) {
        commands.entity(gone).despawn();
    }
}

/// Fills each character's `TnuaRigidBodyTracker` from its box and velocity.
#[allow(
    clippy::type_complexity,
    reason = "a system's queries, each used once, read best where they are used"
)]
fn track_bodies(
    config: Res<PhysicsConfig>,
    mut characters: Query<(
        &Aabb,
        &Velocity,
        Option<&BodySwitches>,
        &mut TnuaRigidBodyTracker,
        Option<&TnuaToggle>,
        Option<&TnuaGravity>,
    )>,
) {
    for (aabb, velocity, switches, mut tracker, toggle, tnua_gravity) in &mut characters {
        if toggle == Some(&TnuaToggle::Disabled) {
            continue;
        }
        let gravity = match tnua_gravity {
            Some(g) => g.0,
            None if switches.is_none_or(|s| s.gravity) => config.gravity.extend(0.0),
            None => Vector3::ZERO,
        };
        *tracker = TnuaRigidBodyTracker {
            translation: aabb.center.extend(0.0),
            rotation: Quaternion::IDENTITY,
            velocity: velocity.0.extend(0.0),
            angvel: Vector3::ZERO,
            gravity,
        };
    }
}

/// What a proximity sensor reads of the bodies its cast meets.
type MetBodies<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static Velocity>,
        Option<&'static CollisionLayers>,
        Has<OneWayPlatform>,
        Has<TnuaGhostPlatform>,
        Has<TnuaNotPlatform>,
    ),
>;

/// Casts each proximity sensor's box and writes its output and ghost hits.
#[allow(
    clippy::type_complexity,
    reason = "a system's queries, each used once, read best where they are used"
)]
fn sense_proximity(
    space: SpatialQuery,
    tiles: Res<TnuaTileEntities>,
    mut sensors: Query<(
        &mut TnuaProximitySensor,
        &TnuaSensorOf,
        Option<&mut TnuaGhostSensor>,
    )>,
    owners: Query<(&Aabb, Option<&CollisionLayers>, Option<&TnuaToggle>)>,
    met: MetBodies,
    mut hits: Local<Vec<CastHit>>,
) {
    for (mut sensor, &TnuaSensorOf(owner), mut ghosts) in &mut sensors {
        let Ok((aabb, layers, toggle)) = owners.get(owner) else {
            continue;
        };
        if toggle == Some(&TnuaToggle::Disabled) {
            continue;
        }
        if let Some(ghosts) = ghosts.as_mut() {
            ghosts.0.clear();
        }
        sensor.output = None;
        let direction = sensor.cast_direction.truncate();
        let Some(direction) = direction.try_normalize() else {
            continue;
        };
        let half = aabb.half_extents;
        // From the centre to the box's side that faces the cast.
        let extent = half.x * direction.x.abs() + half.y * direction.y.abs();
        let origin = aabb.center + sensor.cast_origin.truncate();
        let motion = direction * (sensor.cast_range - extent).max(0.0);
        let layers = layers.copied().unwrap_or_default();
        let filter = QueryFilter::layers(layers.filters).excluding(owner);
        space.box_hits_into(origin, half, motion, filter, &mut hits);
        let normal_or_back = |n: Vec2| Dir3::new(n.extend(0.0)).unwrap_or(-sensor.cast_direction);
        for hit in hits.iter() {
            let (entity, ghost, velocity) = match hit.target {
                HitTarget::Tile(tile) => {
                    (tiles.of(tile), tiles.groups.contains_key(&tile), Vec2::ZERO)
                }
                HitTarget::Body(body) => {
                    let Ok((velocity, body_layers, one_way, ghost, not_platform)) = met.get(body)
                    else {
                        continue;
                    };
                    let body_layers = body_layers.copied().unwrap_or_default();
                    if not_platform || !layers.interacts_with(body_layers) {
                        continue;
                    }
                    (body, one_way || ghost, velocity.map_or(Vec2::ZERO, |v| v.0))
                }
            };
            let output = TnuaProximitySensorOutput {
                entity,
                proximity: hit.distance + extent,
                normal: normal_or_back(hit.normal),
                entity_linvel: velocity.extend(0.0),
                entity_angvel: Vector3::ZERO,
            };
            match ghosts.as_mut() {
                Some(ghosts) if ghost => {
                    // The nearest hit of each platform: a box over a seam meets two tiles.
                    if !ghosts.0.iter().any(|g| g.entity == entity) {
                        ghosts.0.push(output);
                    }
                }
                _ => {
                    sensor.output = Some(output);
                    break;
                }
            }
        }
    }
}

/// Applies each character's `TnuaMotor` (and its `TnuaGravity`) to its velocity.
#[allow(
    clippy::type_complexity,
    reason = "a system's queries, each used once, read best where they are used"
)]
fn apply_motors(
    time: Res<Time>,
    mut characters: Query<(
        &TnuaMotor,
        &mut Velocity,
        Option<&mut BodySwitches>,
        Option<&TnuaToggle>,
        Option<&TnuaGravity>,
    )>,
) {
    let dt = time.delta_secs();
    for (motor, mut velocity, switches, toggle, tnua_gravity) in &mut characters {
        if matches!(toggle, Some(TnuaToggle::Disabled | TnuaToggle::SenseOnly)) {
            continue;
        }
        let change = motor.lin.calc_boost(dt).truncate();
        if change.is_finite() {
            velocity.0 += change;
        }
        if let Some(gravity) = tnua_gravity {
            // Its own gravity instead of the physics' (which stays off).
            if let Some(mut switches) = switches
                && switches.gravity
            {
                switches.gravity = false;
            }
            let fall = gravity.0.truncate() * dt;
            if fall.is_finite() {
                velocity.0 += fall;
            }
        }
    }
}

/// Lets a character with a ghost sensor drop through the one-way surfaces tnua chose not to
/// stand on (see the [module](self)).
fn follow_ghost_choices(
    map: Res<TileMap>,
    config: Res<PhysicsConfig>,
    space: SpatialQuery,
    sensors: Query<(&TnuaProximitySensor, &TnuaGhostSensor, &TnuaSensorOf)>,
    mut characters: Query<(Entity, &Aabb, &mut BodySwitches, Option<&TnuaToggle>)>,
    one_way: Query<(), With<OneWayPlatform>>,
) {
    for (sensor, ghosts, &TnuaSensorOf(owner)) in &sensors {
        let Ok((entity, aabb, mut switches, toggle)) = characters.get_mut(owner) else {
            continue;
        };
        if matches!(toggle, Some(TnuaToggle::Disabled | TnuaToggle::SenseOnly)) {
            continue;
        }
        let skin = skin_at(config.contact_tolerance, aabb.center);
        let standing_on_ghost = sensor.output.as_ref().is_some_and(|o| {
            (ghosts.iter()).any(|g| g.entity == o.entity && g.proximity == o.proximity)
        });
        let ignoring_a_ghost = !ghosts.0.is_empty() && !standing_on_ghost;
        let dropping = ignoring_a_ghost
            || switches.drop_through
                && (overlaps_tile_where(
                    &map,
                    aabb.center,
                    aabb.half_extents,
                    skin,
                    passes_from_below,
                ) || (space.rect(
                    Rect::from_corners(aabb.min(), aabb.max()),
                    QueryFilter::default().excluding(entity),
                ))
                .any(|body| one_way.contains(body)));
        if switches.drop_through != dropping {
            switches.drop_through = dropping;
        }
    }
}
