//! Shared helpers: a headless app with the plugin, exact fixed steps, spawning and reading
//! bodies, capturing warnings.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::ecs::change_detection::Tick;
use bevy::ecs::message::Messages;
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::log::tracing::{self, Event, Subscriber};
use bevy::log::tracing_subscriber::{self, Layer, layer::Context, prelude::*};
use bevy::prelude::*;
pub use bevy_platformer_physics::PartitionError;
pub use bevy_platformer_physics::prelude::*;
use bevy_platformer_physics::tiles::SlopeTile;

/// The step used by every test: 1/60 s.
pub const DT: f32 = 1.0 / 60.0;

/// A headless app: MinimalPlugins + PhysicsPlugin, a 60 Hz fixed step, and `map`.
///
/// The physics schedule runs its systems on the calling thread (so [`count_warnings`] sees
/// them); the pair loop and response still fan out on the compute task pool above
/// `PhysicsConfig::parallel_min_bodies`.
pub fn app(map: TileMap) -> App {
    app_skipping(map, true)
}

/// [`app`], with rest skipping (the default) or with [`RestSkippingPlugin`] left out.
pub fn app_skipping(map: TileMap, skip: bool) -> App {
    let mut physics = PhysicsPlugin::default().build();
    if !skip {
        physics = physics.disable::<RestSkippingPlugin>();
    }
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), physics))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(DT)))
        .insert_resource(map);
    app.edit_schedule(FixedUpdate, |s| {
        s.set_executor(SingleThreadedExecutor::new());
    });
    app
}

/// `MinimalPlugins` with the task pools every test app asks for: whichever app initialises the
/// process-wide compute pool first gives it two threads, even on a two-core machine (Bevy's
/// default leaves it one there), so the parallel paths really run in parallel.
pub fn minimal_plugins() -> impl PluginGroup {
    MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(4),
    })
}

/// The same app with gravity off (top-down tests, constant-velocity tests).
pub fn app_without_gravity(map: TileMap) -> App {
    let mut app = app(map);
    app.world_mut().resource_mut::<PhysicsConfig>().gravity = Vec2::ZERO;
    app
}

/// The same app with `passes` relaxation passes (`PhysicsConfig::relaxation_passes`, 4 by
/// default).
pub fn relaxed_app(map: TileMap, passes: u32) -> App {
    let mut app = app(map);
    app.world_mut()
        .resource_mut::<PhysicsConfig>()
        .relaxation_passes = passes;
    app
}

/// Numbers in [0, 1) from xorshift32 seeded with `seed` (the benchmark scene's generator).
pub fn unit_floats(seed: u32) -> impl FnMut() -> f32 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x as f32 / 4_294_967_296.0
    }
}

/// The map as the ASCII `TileMap::from_ascii` reads, for failure messages.
pub fn ascii_of(map: &TileMap) -> String {
    (0..map.height() as i32)
        .rev()
        .map(|y| {
            (0..map.width() as i32)
                .map(|x| map.get(x, y).to_char())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses an ASCII map of 16-unit tiles.
pub fn ascii(text: &str) -> TileMap {
    TileMap::from_ascii(text, 16.0).expect("test map parses")
}

/// Runs exactly `n` physics steps.
pub fn step(app: &mut App, n: usize) {
    for _ in 0..n {
        app.world_mut().run_schedule(FixedUpdate);
    }
}

/// Spawns a body with its contacts listed (`Contacts` is opt-in), so tests can read them.
pub fn spawn(app: &mut App, center: Vec2, half: Vec2, velocity: Vec2) -> Entity {
    app.world_mut()
        .spawn((
            Aabb::new(center, half),
            Velocity(velocity),
            Contacts::default(),
        ))
        .id()
}

/// Spawns a [`Kinematic`] body moving at `velocity`.
pub fn spawn_kinematic(app: &mut App, center: Vec2, half: Vec2, velocity: Vec2) -> Entity {
    app.world_mut()
        .spawn((Aabb::new(center, half), Velocity(velocity), Kinematic))
        .id()
}

/// Spawns a still 12 x 12 body the way a game does by default: an `Aabb`, no `Contacts`.
pub fn spawn_unlisted(app: &mut App, center: Vec2) -> Entity {
    app.world_mut()
        .spawn(Aabb::new(center, Vec2::splat(6.0)))
        .id()
}

/// Spawns a still 12 x 12 body.
pub fn still_box(app: &mut App, center: Vec2) -> Entity {
    spawn(app, center, Vec2::splat(6.0), Vec2::ZERO)
}

/// Spawns a body with friction off (so horizontal speed is kept on the ground).
pub fn spawn_frictionless(app: &mut App, center: Vec2, half: Vec2, velocity: Vec2) -> Entity {
    let e = spawn(app, center, half, velocity);
    app.world_mut().get_mut::<BodySwitches>(e).unwrap().friction = false;
    e
}

pub fn aabb(app: &App, e: Entity) -> Aabb {
    *app.world().get::<Aabb>(e).unwrap()
}

pub fn pos(app: &App, e: Entity) -> Vec2 {
    aabb(app, e).center
}

pub fn vel(app: &App, e: Entity) -> Vec2 {
    app.world().get::<Velocity>(e).unwrap().0
}

pub fn set_vel(app: &mut App, e: Entity, v: Vec2) {
    app.world_mut().get_mut::<Velocity>(e).unwrap().0 = v;
}

pub fn flags(app: &App, e: Entity) -> PushFlags {
    *app.world().get::<PushFlags>(e).unwrap()
}

/// The tick at which `e`'s `C` was last marked changed.
pub fn last_changed<C: Component>(app: &App, e: Entity) -> Tick {
    app.world().entity(e).get_ref::<C>().unwrap().last_changed()
}

pub fn state(app: &App, e: Entity) -> BodyState {
    *app.world().get::<BodyState>(e).unwrap()
}

pub fn switches(app: &mut App, e: Entity) -> Mut<'_, BodySwitches> {
    app.world_mut().get_mut::<BodySwitches>(e).unwrap()
}

/// Removes and returns the `Landed` messages written so far.
pub fn drain_landed(app: &mut App) -> Vec<Landed> {
    drain::<Landed>(app)
}

/// Removes and returns the messages of type `M` written so far, oldest first.
pub fn drain<M: Message>(app: &mut App) -> Vec<M> {
    app.world_mut()
        .resource_mut::<Messages<M>>()
        .drain()
        .collect()
}

/// Runs `f` with a [`SpatialQuery`] over the app's world as it is now.
pub fn with_query<R>(app: &mut App, f: impl FnOnce(&SpatialQuery) -> R) -> R {
    let mut state = bevy::ecs::system::SystemState::<SpatialQuery>::new(app.world_mut());
    let query = state.get(app.world()).expect("the physics resources exist");
    f(&query)
}

/// A map of `w` x `h` empty 16-unit tiles.
pub fn empty_map(w: u32, h: u32) -> TileMap {
    TileMap::new(w, h, 16.0)
}

/// Counts the `WARN` events this crate emits while `f` runs (single-threaded executor, so
/// every system runs on this thread).
pub fn count_warnings<R>(f: impl FnOnce() -> R) -> (R, usize) {
    struct Count(Arc<AtomicUsize>);
    impl<S: Subscriber> Layer<S> for Count {
        fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
            let meta = event.metadata();
            if *meta.level() == tracing::Level::WARN
                && meta.target().starts_with("bevy_platformer_physics")
            {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
    let count = Arc::new(AtomicUsize::new(0));
    let subscriber = tracing_subscriber::registry().with(Count(count.clone()));
    let result = tracing::subscriber::with_default(subscriber, f);
    (result, count.load(Ordering::SeqCst))
}

/// Checks the partition against every body's `GridAreas` (the crate's public check).
pub fn verify_partition(app: &mut App) -> Result<(), PartitionError> {
    let world = app.world_mut();
    let bodies: Vec<(Entity, GridAreas)> = world
        .query::<(Entity, &GridAreas)>()
        .iter(world)
        .map(|(e, a)| (e, a.clone()))
        .collect();
    world
        .resource::<Partition>()
        .verify(bodies.iter().map(|(e, a)| (*e, a)))
}

pub fn contacts(app: &App, e: Entity) -> Vec<CollisionData> {
    app.world().get::<Contacts>(e).unwrap().to_vec()
}

/// A 40 x 40 tile room with a solid floor.
pub fn floor_room() -> TileMap {
    let mut map = empty_map(40, 40);
    map.fill(IVec2::new(0, 0), IVec2::new(39, 0), TileKind::Solid);
    map
}

/// The deepest overlap of any two of `boxes` (the smaller of its two axes; 0 when none overlap).
pub fn max_pair_overlap(app: &App, boxes: &[Entity]) -> f32 {
    let mut worst = 0.0f32;
    for (i, &a) in boxes.iter().enumerate() {
        for &b in &boxes[i + 1..] {
            let (pa, pb) = (aabb(app, a), aabb(app, b));
            let o = (pa.half_extents + pb.half_extents) - (pa.center - pb.center).abs();
            if o.x > 0.0 && o.y > 0.0 {
                worst = worst.max(o.x.min(o.y));
            }
        }
    }
    worst
}

/// How many bodies the last step processed in full (the others rested).
pub fn awake_bodies(app: &App) -> usize {
    app.world().resource::<PhysicsStats>().awake_bodies
}

/// How deep the box is inside a solid tile or a slope's solid part (one-way tiles
/// and one-way slopes count nothing); 0 when clear.
pub fn depth_in_tiles(map: &TileMap, b: &Aabb) -> f32 {
    let (lo, hi) = (map.tile_at(b.min()), map.tile_at(b.max()));
    let mut worst = 0.0f32;
    for y in lo.y..=hi.y {
        for x in lo.x..=hi.x {
            let kind = map.get(x, y);
            let (tmin, tmax) = map.tile_rect(x, y);
            let depth = match kind.slope() {
                _ if kind == TileKind::Solid => {
                    (b.max().min(tmax) - b.min().max(tmin)).min_element()
                }
                Some(slope) if !slope.one_way => {
                    let tile = SlopeTile {
                        slope,
                        min: tmin,
                        max: tmax,
                    };
                    polygon_depth(&tile, b)
                }
                _ => 0.0,
            };
            worst = worst.max(depth);
        }
    }
    worst
}

/// The box's overlap with the slope's solid part along its shallowest separating axis.
fn polygon_depth(tile: &SlopeTile, b: &Aabb) -> f32 {
    let polygon = tile.polygon();
    [tile.normal(), Vec2::X, Vec2::Y]
        .into_iter()
        .map(|axis| {
            let (pl, ph) = polygon
                .corners()
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), p| {
                    (l.min(p.dot(axis)), h.max(p.dot(axis)))
                });
            let c = b.center.dot(axis);
            let r = b.half_extents.x * axis.x.abs() + b.half_extents.y * axis.y.abs();
            (ph - (c - r)).min((c + r) - pl)
        })
        .fold(f32::MAX, f32::min)
}
