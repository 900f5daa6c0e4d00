//! Loads a level, simulates 5 seconds without a window, and prints where each body came to rest
//! and its flags.
//!
//! ```sh
//! cargo run --example headless
//! ```

use bevy::ecs::message::Messages;
use bevy::prelude::*;
use bevy_platformer_physics::prelude::*;

/// '#' solid, '-' one-way, 'H' ladder; digits are bodies to drop (their numbers are names).
const LEVEL: &str = "\
#..............................#
#..1.......2...........3.......#
#..............................#
#.......----.......4...........#
#..............................#
#....#####.........H....5......#
#..................H...........#
#......6.....-----.H....####...#
#..................H...........#
################################";

fn main() {
    let mut drops = Vec::new();
    let map = TileMap::from_ascii_with(LEVEL, 16.0, |ch, at| {
        ch.to_digit(10).map(|n| {
            drops.push((n, at));
            TileKind::Empty
        })
    })
    .expect("the level parses");

    let mut app = App::new();
    app.add_plugins((MinimalPlugins, PhysicsPlugin::default()))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(map);
    let tile = 16.0;
    let bodies: Vec<(u32, Entity)> = drops
        .iter()
        .map(|&(n, at)| {
            let center = at.as_vec2() * tile + tile / 2.0;
            let half = Vec2::new(3.0 + n as f32, 4.0 + (n % 3) as f32 * 2.0);
            let velocity = Vec2::new(40.0 * (n as f32 - 4.0), 0.0);
            let e = app
                .world_mut()
                .spawn((
                    Name::new(format!("body {n}")),
                    Aabb::new(center, half),
                    Velocity(velocity),
                ))
                .id();
            (n, e)
        })
        .collect();

    // 5 seconds of fixed steps, run by hand: one run of FixedUpdate is one 1/60 s step.
    let steps = (5.0
        / app
            .world()
            .resource::<Time<Fixed>>()
            .timestep()
            .as_secs_f32())
    .round() as usize;
    let mut landings = 0;
    for _ in 0..steps {
        app.world_mut().run_schedule(FixedUpdate);
        landings += app
            .world_mut()
            .resource_mut::<Messages<Landed>>()
            .drain()
            .count();
    }

    println!(
        "after {steps} steps ({:.1} s), {landings} landings:",
        steps as f32 / 60.0
    );
    println!(
        "{:<8} {:>16} {:>16}  {:<28} standing on",
        "body", "centre", "velocity", "touching"
    );
    for (n, e) in bodies {
        let world = app.world();
        let aabb = world.get::<Aabb>(e).unwrap();
        let v = world.get::<Velocity>(e).unwrap();
        let flags = world.get::<PushFlags>(e).unwrap();
        let state = world.get::<BodyState>(e).unwrap();
        let touching: Vec<String> = Side::ALL
            .into_iter()
            .filter(|&s| flags.pushes(s))
            .map(|s| format!("{s:?}"))
            .collect();
        println!(
            "body {n:<3} ({:>6.1}, {:>6.1}) ({:>6.1}, {:>6.1})  {:<28} {:?}",
            aabb.center.x,
            aabb.center.y,
            v.x,
            v.y,
            touching.join(" "),
            state.standing_on,
        );
    }
}
