//! `TileMemo`: each body's last tile collision, reused when the body comes back to it exactly
//! as it was (a body resting on the ground does, step after step).

use bevy::prelude::*;

use super::collide::{
    PassThrough, TileBody, TileOutcome, TileParams, collide_with_tiles, sweep_displacement,
};
use super::map::TileMap;

/// What the tile queries of a body's last step were given and found.
///
/// Tile collision is a pure function of the body (centre, half extents, velocity), its
/// pass-through switches, the step's parameters and the tile map; so is the sweep that moves a
/// body pushed by other bodies. When all of an input is, bit for bit, what it was the last time,
/// so is the result, and it is taken from here instead of being worked out again. A body
/// resting on the ground or on other bodies is in that case at nearly every step: gravity gives
/// it the same downward speed, its support takes it away again, and it ends where it started
/// (in the benchmark's settled pile, about nine tile contacts in ten).
///
/// Written by the physics; arrives with [`Aabb`](crate::Aabb). There is nothing in it to read.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct TileMemo {
    /// Tile collision: the body (centre, half extents, velocity) and its switches, and the
    /// result (the body after it, and the outcome).
    #[reflect(ignore)]
    collide: Memo<([u32; 6], u8), (TileBody, TileOutcome)>,
    /// The response's sweep: centre, half extents, displacement and switches, and the centre
    /// it ends at.
    #[reflect(ignore)]
    sweep: Memo<([u32; 6], u8), Vec2>,
}

/// One input and its result, from the epoch (see [`MemoEpoch`]) they were made in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Memo<I, O> {
    input: I,
    /// 0 is never an epoch, so a new memo matches nothing.
    epoch: u32,
    output: O,
}

impl<I: PartialEq, O: Copy> Memo<I, O> {
    /// The result for `input`: the one kept when the input and the epoch are those it was
    /// made for, else `compute()`, which is kept instead.
    #[inline]
    fn reuse_or(&mut self, input: I, epoch: u32, compute: impl FnOnce() -> O) -> O {
        if self.epoch != epoch || self.input != input {
            *self = Memo {
                input,
                epoch,
                output: compute(),
            };
        }
        self.output
    }
}

/// A box's centre and half extents and a vector, as bits (so `-0.0` is not `0.0` and a NaN
/// equals itself).
#[inline]
fn bits(center: Vec2, half: Vec2, v: Vec2) -> [u32; 6] {
    [center.x, center.y, half.x, half.y, v.x, v.y].map(f32::to_bits)
}

/// The pass-through switches and one more switch, as bits.
#[inline]
fn switch_bits(pass: PassThrough, more: bool) -> u8 {
    u8::from(pass.drop_through) | u8::from(pass.climbing) << 1 | u8::from(more) << 2
}

impl TileMemo {
    /// [`collide_with_tiles`] for `body`, or the result kept from the last time it was given
    /// the same input in this epoch. `friction` says which of the step's two parameter sets
    /// `params` is; `epoch` is the tile collision's [`MemoEpoch`] of this step.
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
        let input = (
            bits(body.center, body.half, body.velocity),
            switch_bits(pass, friction),
        );
        let (after, outcome) = self.collide.reuse_or(input, epoch, || {
            let mut after = *body;
            let outcome = collide_with_tiles(map, &mut after, pass, params);
            (after, outcome)
        });
        *body = after;
        outcome
    }

    /// [`sweep_displacement`] of the box by `displacement`, or the centre kept from the last
    /// time it was given the same input in this epoch (the response's [`MemoEpoch`]).
    #[inline]
    pub(crate) fn sweep(
        &mut self,
        map: &TileMap,
        (center, half): (Vec2, Vec2),
        displacement: Vec2,
        pass: PassThrough,
        skin: f32,
        epoch: u32,
    ) -> Vec2 {
        let input = (bits(center, half, displacement), switch_bits(pass, false));
        self.sweep.reuse_or(input, epoch, || {
            sweep_displacement(map, center, half, displacement, pass, skin)
        })
    }
}

/// Numbers the spells during which the tile map and a query's parameters `P` stay the same: a
/// memo made in an earlier spell is never used. Each query keeps its own.
#[derive(Debug)]
pub(crate) struct MemoEpoch<P> {
    epoch: u32,
    params: Option<P>,
}

impl<P> Default for MemoEpoch<P> {
    fn default() -> Self {
        Self {
            epoch: 0,
            params: None,
        }
    }
}

impl<P: PartialEq> MemoEpoch<P> {
    /// The epoch of this step: a new one when the map changed since the last step
    /// (`map_changed`) or the parameters differ from the last step's (a NaN parameter starts
    /// a new one every step).
    pub(crate) fn of_step(&mut self, map_changed: bool, params: P) -> u32 {
        if map_changed || self.params.as_ref() != Some(&params) || self.epoch == 0 {
            // After 2^32 - 1 spells the count starts again at 1, skipping 0.
            self.epoch = self.epoch.checked_add(1).unwrap_or(1);
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
        dt: 1.0 / 60.0,
        skin: 1e-3,
        one_way_tolerance: 4.0,
        max_depenetration: 64.0,
        ground_friction: 10.0,
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
    fn a_reused_sweep_is_the_sweep_worked_out_again() {
        // Boxes pushed by random displacements near every kind of tile, each swept twice with
        // the same input (the second is reused) and once more with a nudged one.
        let map = TileMap::from_ascii(
            "..........\n\
             ...H..#...\n\
             ...H.--...\n\
             .####.....\n\
             ##########",
            16.0,
        )
        .unwrap();
        let mut u = unit_floats(0x3E30_0002);
        let mut memo = TileMemo::default();
        let mut reused = 0;
        for _ in 0..4000 {
            let bounds = (
                Vec2::new(u() * 160.0, u() * 80.0),
                Vec2::new(1.0 + u() * 12.0, 1.0 + u() * 12.0),
            );
            let push = Vec2::new(u() * 16.0 - 8.0, u() * 16.0 - 8.0);
            let pass = PassThrough {
                drop_through: u() < 0.3,
                climbing: u() < 0.3,
            };
            let fresh = |push| sweep_displacement(&map, bounds.0, bounds.1, push, pass, 1e-3);
            let check = |memo: &mut TileMemo, push: Vec2| {
                let got = memo.sweep(&map, bounds, push, pass, 1e-3, 1);
                assert_eq!(
                    got.to_array().map(f32::to_bits),
                    fresh(push).to_array().map(f32::to_bits)
                );
            };
            check(&mut memo, push);
            let before = memo;
            check(&mut memo, push);
            reused += usize::from(memo == before);
            check(&mut memo, push + Vec2::new(1e-3, 0.0));
        }
        assert_eq!(reused, 4000);
        // The switches are part of the key: a body on a one-way top, pushed down into it, is
        // held unless it drops through.
        let map = TileMap::from_ascii("....\n.--.\n....", 16.0).unwrap();
        let bounds = (Vec2::new(32.0, 38.0), Vec2::splat(6.0));
        let mut memo = TileMemo::default();
        let hold = PassThrough::default();
        let drop = PassThrough {
            drop_through: true,
            climbing: false,
        };
        let down = Vec2::new(0.0, -4.0);
        assert_eq!(memo.sweep(&map, bounds, down, hold, 1e-3, 1).y, 38.0);
        assert_eq!(memo.sweep(&map, bounds, down, drop, 1e-3, 1).y, 34.0);
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
        forged.collide.output.0.center.y = 0.0;
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
        let mut e = MemoEpoch::<TileParams>::default();
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
        e.epoch = u32::MAX;
        assert_eq!(e.of_step(true, shorter), 1, "the count wraps past 0");
    }
}
