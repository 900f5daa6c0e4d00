//! Stage 5 of the reference step: relaxation, written for reading. Its algorithm is the module
//! doc of `src/relax/mod.rs`; here every body is in one list, every pair of it is a possible
//! partner, and each sweep goes through the whole list in its order. The rules of a sweep (a
//! pair settled along an axis, a body's need, its push through the tile sweep) are the
//! plugin's own functions.

use bevy::prelude::*;

use super::{Body, Detected, Step};
use crate::body::{warn_bits, warn_once_while};
use crate::geometry::{pair_skin, signed_overlap_within, within_reach};
use crate::messages::Squished;
use crate::relax::pass::{
    ALL_SIDES, Direction, Mobility, Phase, RelaxBody, merge, unchanged, visit, whole_path,
};
use crate::relax::squeeze::{Squeezes, find_squeezes, squished_by_relaxation};

/// Relaxes every body, pass after pass, until one changes nothing or the passes run out; then
/// the squeezes it left, each body's reported once per episode.
pub(super) fn relax(
    bodies: &mut [Body],
    detected: &[Detected],
    step: &Step,
    squished: &mut Vec<Squished>,
) {
    let passes = step.config.relaxation_passes;
    if passes == 0 {
        return;
    }
    let touch = step.config.contact_tolerance;
    let reach = step.config.relaxation_reach(step.map.tile_size());
    let n = bodies.len();
    // Partners: in contact at detection, or near each other there, or touching where the
    // response left them, or near each other there when the response moved one of them far.
    let far = |i: usize| {
        (bodies[i].aabb.center - detected[i].center)
            .abs()
            .max_element()
            > 0.5 * reach
    };
    let near = |i: usize, j: usize| {
        let (a, b) = (&bodies[i], &bodies[j]);
        let (da, db) = (&detected[i], &detected[j]);
        let (ca, cb) = (a.aabb.center, b.aabb.center);
        let (ha, hb) = (a.aabb.half_extents, b.aabb.half_extents);
        let skin = pair_skin(touch, ca, cb);
        a.aabb.is_valid()
            && b.aabb.is_valid()
            && !(a.one_way || b.one_way)
            && a.layers.interacts_with(b.layers)
            && (within_reach((da.center, da.half), (db.center, db.half), reach)
                || signed_overlap_within(ca, ha, cb, hb, skin).is_some()
                || (far(i) || far(j)) && within_reach((ca, ha), (cb, hb), reach))
    };
    let contact = |i: usize, j: usize| bodies[i].contacts.iter().any(|&(k, _)| k == j);
    let partners: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| j != i && (contact(i, j) || near(i, j)))
                .collect()
        })
        .collect();
    let mut relaxed: Vec<RelaxBody> = bodies.iter().map(relax_body).collect();
    let origin: Vec<Vec2> = relaxed.iter().map(|p| p.center).collect();
    let map = step.map;
    for _ in 0..passes {
        let before = relaxed.clone();
        let start: Vec<Vec2> = relaxed.iter().map(|p| p.center).collect();
        sweep_and_back(map, &mut relaxed, &partners, (&start, touch), Direction::UP);
        let start: Vec<Vec2> = relaxed.iter().map(|p| p.center).collect();
        let mut leftward = relaxed.clone();
        let phase = (&start[..], touch);
        sweep_and_back(map, &mut relaxed, &partners, phase, Direction::RIGHT);
        let left = Direction::RIGHT.reversed();
        sweep_and_back(map, &mut leftward, &partners, phase, left);
        for k in 0..n {
            merge(map, &mut relaxed[k], &leftward[k], start[k], touch);
        }
        if unchanged(&relaxed, &before) {
            break;
        }
    }
    for (relax_body, &origin) in relaxed.iter_mut().zip(&origin) {
        relax_body.center = whole_path(map, relax_body, origin, touch);
    }
    let squeezes = &mut Squeezes::default();
    find_squeezes(&relaxed, |k| partners[k].iter().copied(), touch, squeezes);
    let entities: Vec<Entity> = bodies.iter().map(|body| body.entity).collect();
    for (k, (body, relax_body)) in bodies.iter_mut().zip(&relaxed).enumerate() {
        body.aabb.center = relax_body.center;
        if body.kinematic {
            continue;
        }
        let pressers = squeezes.found.iter().find(|(at, _)| *at == k);
        let squeezed = pressers.is_some();
        warn_once_while(&mut &mut body.state, warn_bits::SQUEEZED, squeezed, || {
            let (_, pressers) = pressers.expect("squeezed");
            let message =
                squished_by_relaxation(body.entity, relax_body.center, pressers, |j| entities[j]);
            squished.push(message);
        });
    }
}

/// A body as relaxation begins: where the response left it, blocked where it touches tiles; a
/// kinematic body never moves.
fn relax_body(body: &Body) -> RelaxBody {
    let (blocked, mobility) = if body.kinematic {
        (ALL_SIDES, Mobility::Fixed)
    } else if !body.switches.world_collision {
        (body.flags.tile_sides(), Mobility::Free)
    } else {
        (
            body.flags.tile_sides(),
            Mobility::Swept(super::pass_through(&body.switches)),
        )
    };
    RelaxBody {
        center: body.aabb.center,
        half: body.aabb.half_extents,
        blocked,
        id: body.entity.to_bits(),
        mobility,
    }
}

/// A sweep along `dir` over the whole list in its order, from the bodies with a need where the
/// phase found them, then the sweep back from the partners behind the bodies it left short.
fn sweep_and_back(
    map: &crate::tiles::TileMap,
    relaxed: &mut [RelaxBody],
    partners: &[Vec<usize>],
    (start, touch): (&[Vec2], f32),
    dir: Direction,
) {
    let phase = Phase { start, touch };
    let n = relaxed.len();
    let seeds: Vec<bool> = (0..n)
        .map(|k| {
            phase
                .need(relaxed, k, partners[k].iter().copied(), dir)
                .is_some()
        })
        .collect();
    let short = sweep(map, relaxed, partners, (&phase, dir), seeds);
    let back = dir.reversed();
    let mut seeds = vec![false; n];
    for &s in &short {
        for &i in &partners[s] {
            if phase.before(relaxed, (s, i), back) {
                seeds[i] = true;
            }
        }
    }
    sweep(map, relaxed, partners, (&phase, back), seeds);
}

/// One sweep: every body of the list in the sweep's order; each that is to be visited and has
/// a need is pushed to it, and the partners after a body it moved are to be visited. Returns
/// the bodies left short.
fn sweep(
    map: &crate::tiles::TileMap,
    relaxed: &mut [RelaxBody],
    partners: &[Vec<usize>],
    (phase, dir): (&Phase, Direction),
    mut to_visit: Vec<bool>,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..relaxed.len()).collect();
    order.sort_by_key(|&k| phase.key(relaxed, k, dir));
    let mut short = Vec::new();
    for j in order {
        if !to_visit[j] {
            continue;
        }
        let Some(need) = phase.need(relaxed, j, partners[j].iter().copied(), dir) else {
            continue;
        };
        let visited = visit(map, relaxed, j, (need, dir), phase.touch);
        if visited.short {
            short.push(j);
        }
        if visited.moved {
            for &k in &partners[j] {
                if phase.before(relaxed, (j, k), dir) {
                    to_visit[k] = true;
                }
            }
        }
    }
    short
}
