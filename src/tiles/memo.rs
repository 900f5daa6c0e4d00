//! `TileMemo`: each body's last tile collision, reused when the body comes back to it exactly
//! as it was (a body resting on the ground does, step after step).

use bevy::prelude::*;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::tiles::TileMap;
use crate::tiles::collide::{PassThrough, TileBody, TileOutcome, TileParams, collide_with_tiles};

/// What tile collision was given and found for this body at its last step.
///
/// Tile collision is a pure function of the body (centre, half extents, velocity), its
/// pass-through switches, the step's parameters and the tile map. When all of them are, bit for
/// bit, what they were at the body's last step, so is the result, and it is taken from here
/// instead of being worked out again. A body resting on the ground is in that case at nearly
/// every step: gravity gives it the same downward speed, the ground takes it away again, and it
/// ends where it started (in a settled pile, about nine tile contacts in ten).
///
/// Written by the physics, on every body ([`PhysicsPlugin`](crate::PhysicsPlugin) adds it with
/// the [`Aabb`](crate::Aabb)).
/// A memo is only ever used in the world and the generation of map and parameters it was made in:
/// one copied into another world, restored from a snapshot taken before the map changed, or
/// loaded from a scene (reflection leaves its contents out) is worked out again. Changes to
/// the [`TileMap`] are seen through Bevy's change detection, so edit it through `ResMut` (as
/// usual), not behind `bypass_change_detection`.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub(crate) struct TileMemo {
    /// The body's centre, half extents and velocity as given, as bits (so `-0.0` is not `0.0`
    /// and a NaN equals itself), one word per vector ([`bits`]).
    #[reflect(ignore)]
    input: [u64; 3],
    /// The pass-through switches, the friction switch and the slope-walking switch, as bits.
    #[reflect(ignore)]
    switches: u8,
    /// The [`MemoGeneration`] the entry was made in; 0 is never one, so a new memo matches nothing.
    #[reflect(ignore)]
    epoch: u32,
    /// The body's centre and velocity after the collision.
    #[reflect(ignore)]
    center: Vec2,
    #[reflect(ignore)]
    velocity: Vec2,
    /// What the collision found.
    #[reflect(ignore)]
    outcome: TileOutcome,
}

impl TileMemo {
    /// [`collide_with_tiles`] for `body`, or its result at the body's last step when every
    /// input is the same (see [`TileMemo`]). `params` are the step's as the body's switches
    /// have them, and `friction` says whether its friction is on (the epoch was made from the
    /// step's own); `epoch` is the [`MemoGeneration`] of this step.
    #[inline]
    pub(crate) fn collide(
        &mut self,
        map: &TileMap,
        body: &mut TileBody,
        pass: PassThrough,
        params: &TileParams,
        friction: bool,
        epoch: u32,
    ) -> TileOutcome {
        let input = [bits(body.center), bits(body.half), bits(body.velocity)];
        let switches = u8::from(pass.drop_through)
            | u8::from(pass.climbing) << 1
            | u8::from(friction) << 2
            | u8::from(params.walk_slopes) << 3;
        // Word by word: compared as one array, the key was stored to the stack and read back
        // as a vector, and that read waited for the stores (a quarter of the stage's time).
        if self.epoch == epoch
            && self.input[0] == input[0]
            && self.input[1] == input[1]
            && self.input[2] == input[2]
            && self.switches == switches
        {
            body.center = self.center;
            body.velocity = self.velocity;
            return self.outcome;
        }
        let outcome = collide_with_tiles(map, body, pass, params);
        *self = TileMemo {
            input,
            switches,
            epoch,
            center: body.center,
            velocity: body.velocity,
            outcome,
        };
        outcome
    }
}

/// `v`'s two coordinates as one word of bits.
#[inline(always)]
fn bits(v: Vec2) -> u64 {
    u64::from(v.x.to_bits()) | u64::from(v.y.to_bits()) << 32
}

/// Numbers the generations during which the tile map and the step's parameters stay the same: a
/// [`TileMemo`] made in an earlier generation is never used. The numbers come from one counter for
/// the whole process, so no two generations share one, in one world or in several.
#[derive(Debug, Default)]
pub(crate) struct MemoGeneration {
    epoch: u32,
    params: Option<TileParams>,
}

/// The next epoch number of the process.
static NEXT_EPOCH: AtomicU32 = AtomicU32::new(1);

/// Takes the next number from `counter`, skipping 0 (which no epoch is) when it wraps, after
/// 2^32 - 1 generations.
fn next_epoch(counter: &AtomicU32) -> u32 {
    loop {
        let epoch = counter.fetch_add(1, Ordering::Relaxed);
        if epoch != 0 {
            return epoch;
        }
    }
}

impl MemoGeneration {
    /// The epoch of this step: a new one when the map changed since the last step
    /// (`map_changed`) or the parameters differ from the last step's (a NaN parameter starts
    /// a new one every step).
    pub(crate) fn of_step(&mut self, map_changed: bool, params: TileParams) -> u32 {
        if map_changed || self.params != Some(params) || self.epoch == 0 {
            self.epoch = next_epoch(&NEXT_EPOCH);
            self.params = Some(params);
        }
        self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::unit_floats;
    use crate::tiles::TileKind;

    const PARAMS: TileParams = TileParams {
        ground_friction: 10.0,
        walk_slopes: true,
        ..crate::tiles::collide::TEST_PARAMS
    };

    #[test]
    fn a_reused_result_is_the_result_worked_out_again() {
        // Random bodies near and on solid, one-way and ladder tiles; each is collided, fed back
        // its own input (a hit) and then a slightly different one (a miss): every answer is
        // what collide_with_tiles gives, to the bit.
        let map = TileMap::from_ascii(
            "..........\n\
             ...H..#...\n\
             ...H.--...\n\
             .####.....\n\
             ##########",
            16.0,
        )
        .unwrap();
        let mut u = unit_floats(0x3E30_0001);
        let mut memo = TileMemo::default();
        let mut hits = 0;
        for _ in 0..4000 {
            let body = TileBody {
                center: Vec2::new(u() * 160.0, u() * 80.0),
                half: Vec2::new(1.0 + u() * 12.0, 1.0 + u() * 12.0),
                velocity: Vec2::new(u() * 400.0 - 200.0, u() * 400.0 - 300.0),
            };
            let pass = PassThrough {
                drop_through: u() < 0.2,
                climbing: u() < 0.2,
            };
            let check = |memo: &mut TileMemo, body: TileBody| {
                let (mut reused, mut fresh) = (body, body);
                let a = memo.collide(&map, &mut reused, pass, &PARAMS, true, 1);
                let b = collide_with_tiles(&map, &mut fresh, pass, &PARAMS);
                assert_eq!((a, reused), (b, fresh), "{body:?}");
                let bits =
                    |b: TileBody| [b.center, b.velocity].map(|v| v.to_array().map(f32::to_bits));
                assert_eq!(bits(reused), bits(fresh));
                reused
            };
            check(&mut memo, body);
            let before = memo;
            check(&mut memo, body);
            hits += usize::from(memo == before);
            let nudged = TileBody {
                center: body.center + Vec2::new(0.0, 1e-3),
                ..body
            };
            check(&mut memo, nudged);
        }
        assert_eq!(hits, 4000, "every repeated input is a hit");
    }

    #[test]
    fn a_memo_is_used_only_for_the_same_switches_and_epoch() {
        // A body standing on a one-way platform: held by it, unless dropping through.
        let map = TileMap::from_ascii("....\n.--.\n....", 16.0).unwrap();
        let body = TileBody {
            center: Vec2::new(32.0, 38.0),
            half: Vec2::splat(6.0),
            velocity: Vec2::new(0.0, -100.0),
        };
        let mut memo = TileMemo::default();
        let run = |memo: &mut TileMemo, drop_through: bool, friction: bool, epoch: u32| {
            let mut b = body;
            let pass = PassThrough {
                drop_through,
                climbing: false,
            };
            let out = memo.collide(&map, &mut b, pass, &PARAMS, friction, epoch);
            (b.center.y, out.standing_on)
        };
        assert_eq!(
            run(&mut memo, false, true, 1),
            (38.0, Some(TileKind::OneWay))
        );
        assert!(
            run(&mut memo, true, true, 1).0 < 38.0,
            "drop_through is part of the key"
        );
        assert_eq!(run(&mut memo, false, false, 1).0, 38.0, "so is friction");
        // A memo from another epoch is not used: here a forged one says the body fell.
        let mut forged = memo;
        forged.center.y = 0.0;
        let mut same = forged;
        assert_eq!(run(&mut same, false, false, 1).0, 0.0, "same epoch: reused");
        assert_eq!(
            run(&mut forged, false, false, 2).0,
            38.0,
            "new epoch: worked out"
        );
    }

    #[test]
    fn a_new_epoch_starts_when_the_map_or_the_parameters_change() {
        let mut e = MemoGeneration::default();
        let first = e.of_step(false, PARAMS);
        assert_ne!(
            first, 0,
            "0 is never an epoch, so a new memo matches nothing"
        );
        assert_eq!(e.of_step(false, PARAMS), first);
        let second = e.of_step(true, PARAMS);
        assert_ne!(second, first, "the map changed");
        let shorter = TileParams {
            dt: 1.0 / 120.0,
            ..PARAMS
        };
        let third = e.of_step(false, shorter);
        assert!(third != second && third != first, "the step changed");
        assert_eq!(e.of_step(false, shorter), third);
        // Another world's generations never take these numbers.
        let mut other = MemoGeneration::default();
        let theirs = other.of_step(false, PARAMS);
        assert!(![first, second, third].contains(&theirs));
    }

    #[test]
    fn reflection_leaves_the_contents_out() {
        // What a scene saves and loads: a memo rebuilt from its reflection holds nothing, so it
        // can never be taken for one made in the world it is loaded into.
        let map = TileMap::from_ascii("....\n####", 16.0).unwrap();
        let mut memo = TileMemo::default();
        let mut body = TileBody {
            center: Vec2::new(24.0, 22.0),
            half: Vec2::splat(6.0),
            velocity: Vec2::new(0.0, -10.0),
        };
        memo.collide(&map, &mut body, PassThrough::default(), &PARAMS, true, 7);
        assert_ne!(memo, TileMemo::default());
        let loaded = TileMemo::from_reflect(memo.as_partial_reflect()).unwrap();
        assert_eq!(loaded, TileMemo::default());
    }

    #[test]
    fn the_epoch_count_wraps_past_0() {
        let counter = AtomicU32::new(u32::MAX);
        assert_eq!(next_epoch(&counter), u32::MAX);
        assert_eq!(next_epoch(&counter), 1);
        assert_eq!(next_epoch(&counter), 2);
    }

    /// A headless app with the physics and `map`, at 60 steps a second.
    fn app(map: &str) -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, crate::PhysicsPlugin::default()))
            .insert_resource(Time::<Fixed>::from_hz(60.0))
            .insert_resource(TileMap::from_ascii(map, 16.0).unwrap());
        app
    }

    fn step(app: &mut App, n: usize) {
        for _ in 0..n {
            app.world_mut().run_schedule(FixedUpdate);
        }
    }

    #[test]
    fn a_tile_memo_carried_into_another_world_is_not_reused() {
        // A body at rest on a floor in one world; the same body, with that world's memo, in a
        // world without the floor falls (as a copy between worlds or a restored snapshot would
        // bring it).
        let mut with_floor = app("....\n....\n####");
        let body = (
            crate::Aabb::new(Vec2::new(24.0, 22.0), Vec2::splat(6.0)),
            crate::Velocity::default(),
        );
        let resting = with_floor.world_mut().spawn(body).id();
        step(&mut with_floor, 10);
        let world = with_floor.world();
        assert_eq!(world.get::<crate::Aabb>(resting).unwrap().center.y, 22.0);
        let memo = *world.get::<TileMemo>(resting).unwrap();
        let aabb = *world.get::<crate::Aabb>(resting).unwrap();
        let velocity = *world.get::<crate::Velocity>(resting).unwrap();
        let mut without = app("....\n....\n....");
        let body = without.world_mut().spawn((aabb, velocity, memo)).id();
        step(&mut without, 1);
        let y = without.world().get::<crate::Aabb>(body).unwrap().center.y;
        assert!(y < 22.0, "it falls");
    }
}
