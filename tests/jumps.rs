//! Same jump height (article 001's comment thread): consecutive jumps from the ground reach
//! the same height, also when each jump starts on the very step the body lands and adds to
//! whatever vertical velocity it has.

use bevy::prelude::*;

use crate::common::*;

#[derive(Component)]
struct Jumper {
    /// Steps to wait on the ground before each jump, cycled.
    waits: Vec<usize>,
    waited: usize,
    jumps: usize,
}

const JUMP: f32 = 420.0;

/// Jumps by *adding* to the vertical velocity, as the commenter's controller did.
fn jump(mut q: Query<(&PushFlags, &mut Velocity, &mut Jumper)>) {
    for (flags, mut v, mut j) in &mut q {
        if !flags.on_ground() {
            continue;
        }
        let wait = j.waits[j.jumps % j.waits.len()];
        if j.waited < wait {
            j.waited += 1;
            continue;
        }
        v.y += JUMP;
        j.waited = 0;
        j.jumps += 1;
    }
}

/// Runs until ten jumps have landed; returns each apex height.
fn apexes(waits: Vec<usize>, half: Vec2, origin: Vec2) -> Vec<f32> {
    let map = ascii("........\n........\n........\n........\n########").with_origin(origin);
    let mut app = app(map);
    app.add_systems(FixedUpdate, jump.before(PhysicsSystems::Integrate));
    let floor = origin.y + 16.0;
    let body = spawn(
        &mut app,
        Vec2::new(origin.x + 60.0, floor + half.y + 0.37),
        half,
        Vec2::ZERO,
    );
    app.world_mut().entity_mut(body).insert(Jumper {
        waits,
        waited: 0,
        jumps: 0,
    });
    app.world_mut()
        .get_mut::<BodySwitches>(body)
        .unwrap()
        .friction = false;
    let mut apexes = Vec::new();
    let mut top = f32::MIN;
    for _ in 0..2000 {
        step(&mut app, 1);
        let (p, v, f) = (pos(&app, body), vel(&app, body), flags(&app, body));
        if f.on_ground() {
            assert_eq!(v.y, 0.0, "a body on the ground is not moving down");
            assert!((p.y - (floor + half.y)).abs() < 1e-4);
            if top > f32::MIN {
                apexes.push(top);
                top = f32::MIN;
            }
        } else {
            top = top.max(p.y);
        }
        if apexes.len() == 11 {
            break;
        }
    }
    // The first "apex" is the initial drop of 0.37 units.
    assert_eq!(apexes.len(), 11, "ten jumps landed");
    apexes.remove(0);
    apexes
}

fn assert_same_heights(heights: &[f32]) {
    let (lo, hi) = heights
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
    assert!(
        hi - lo <= 1e-3,
        "apex heights differ by {}: {heights:?}",
        hi - lo
    );
    assert!(
        hi - lo >= 0.0 && lo > 60.0,
        "the body really jumped: {heights:?}"
    );
}

#[test]
fn ten_jumps_on_the_step_the_body_lands_reach_the_same_height() {
    assert_same_heights(&apexes(vec![0], Vec2::splat(6.0), Vec2::ZERO));
    // Odd sizes and an odd map origin, so no value is a round number.
    assert_same_heights(&apexes(vec![0], Vec2::new(5.3, 7.1), Vec2::new(0.37, 0.13)));
}

#[test]
fn ten_jumps_after_varying_rests_reach_the_same_height() {
    assert_same_heights(&apexes(
        vec![3, 0, 1, 7, 0, 2],
        Vec2::new(4.9, 9.3),
        Vec2::new(-3.3, 1.7),
    ));
}
