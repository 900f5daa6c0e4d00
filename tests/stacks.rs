//! Resting stacks of bodies (article 003): they settle, stay on the ground, keep their
//! state and flags still, and touch at float steps far from the origin.

use bevy::prelude::*;

use crate::common::*;

const HALF: Vec2 = Vec2::splat(6.0);

#[test]
fn a_stack_at_rest_leaves_its_body_state_unchanged() {
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(200.0, 34.0), HALF, Vec2::ZERO);
    step(&mut app, 30);
    let changed = last_changed::<BodyState>;
    let settled = (changed(&app, below), changed(&app, above));
    step(&mut app, 5);
    assert!(
        flags(&app, above).pushes_object(Side::Bottom),
        "still stacked"
    );
    assert_eq!(
        (changed(&app, below), changed(&app, above)),
        settled,
        "nothing about either body's surroundings changed, so neither state is written"
    );
}

#[test]
fn push_flags_are_marked_changed_only_in_the_steps_that_change_them() {
    // A stack at rest keeps its flags' change tick; a box that lands gets a new one in the
    // step it lands and in the next (when "pushed" catches up), then keeps it.
    let mut app = app(floor_room());
    let below = spawn(&mut app, Vec2::new(200.0, 22.0), HALF, Vec2::ZERO);
    let above = spawn(&mut app, Vec2::new(200.0, 34.0), HALF, Vec2::ZERO);
    let faller = spawn(&mut app, Vec2::new(300.0, 60.0), HALF, Vec2::ZERO);
    let changed = last_changed::<PushFlags>;
    step(&mut app, 3);
    assert!(flags(&app, above).pushes_object(Side::Bottom) && flags(&app, below).on_ground());
    assert!(!flags(&app, faller).on_ground(), "still falling");
    let stack = (changed(&app, below), changed(&app, above));
    let mut marks = Vec::new();
    for _ in 0..40 {
        let before = changed(&app, faller);
        let was = flags(&app, faller);
        step(&mut app, 1);
        let now = flags(&app, faller);
        assert_eq!(
            changed(&app, faller) != before,
            now != was,
            "marked changed exactly when the flags changed: {was:?} to {now:?}"
        );
        marks.push(now != was);
    }
    assert!(flags(&app, faller).on_ground(), "landed");
    assert_eq!(
        marks.iter().filter(|&&m| m).count(),
        2,
        "landing changes the flags in two steps: {marks:?}"
    );
    assert_eq!(
        (changed(&app, below), changed(&app, above)),
        stack,
        "the stack's flags did not change, so they are not marked"
    );
}

#[test]
fn stacks_of_odd_sized_boxes_stay_on_the_ground_at_every_step() {
    // Sizes and places whose sums do not round exactly in f32: a body put back on top of
    // another can end a rounding error above it. It must still stand there, at every step,
    // and land once, not again and again.
    let mut app = app(floor_room());
    let mut stacks = Vec::new();
    for (k, halves) in [[5.3, 3.7, 6.1], [4.45, 7.9, 2.35], [9.99, 4.01, 5.55]]
        .iter()
        .enumerate()
    {
        let x = 123.456 + 97.3 * k as f32;
        let mut y = 16.0;
        let mut stack = Vec::new();
        for &h in halves {
            let half = Vec2::new(h + 1.7, h);
            // Dropped from a little above where it will rest.
            stack.push(spawn(
                &mut app,
                Vec2::new(x, y + h + 0.37),
                half,
                Vec2::ZERO,
            ));
            y += 2.0 * h + 0.37;
        }
        stacks.push(stack);
    }
    step(&mut app, 60);
    drain_landed(&mut app);
    for i in 0..120 {
        step(&mut app, 1);
        for stack in &stacks {
            for &body in stack {
                assert!(
                    flags(&app, body).on_ground(),
                    "step {i}: {body} lost its ground"
                );
            }
        }
        assert_eq!(drain_landed(&mut app), [], "step {i}: nothing lands again");
    }
}

#[test]
fn bodies_a_float_step_apart_far_from_the_origin_touch_and_stay_put() {
    // At x = 20 000 one float step is about 0.002, twice the contact tolerance: two boxes
    // placed side by side can end that far apart. They touch; nothing moves either.
    let mut map = empty_map(1400, 8);
    map.fill(IVec2::new(0, 0), IVec2::new(1399, 0), TileKind::Solid);
    let mut app = app(map);
    let (x, half) = (20_000.0, Vec2::splat(6.0));
    let left = spawn(&mut app, Vec2::new(x - 6.0, 22.0), half, Vec2::ZERO);
    let right = spawn(
        &mut app,
        Vec2::new(x + 6.0 + 0.0025, 22.0),
        half,
        Vec2::ZERO,
    );
    let start = (pos(&app, left), pos(&app, right));
    assert!(
        pos(&app, right).x - 6.0 > pos(&app, left).x + 6.0,
        "apart by a float step"
    );
    step(&mut app, 10);
    assert!(flags(&app, left).pushes_object(Side::Right));
    assert!(flags(&app, right).pushes_object(Side::Left));
    assert_eq!((pos(&app, left), pos(&app, right)), start, "neither moved");
}

#[test]
fn stack_of_ten_boxes_on_the_floor_settles() {
    let mut app = app(floor_room());
    let boxes: Vec<Entity> = (0..10)
        .map(|i| {
            spawn(
                &mut app,
                Vec2::new(300.0 + (i % 3) as f32, 22.0 + 13.0 * i as f32),
                HALF,
                Vec2::ZERO,
            )
        })
        .collect();
    step(&mut app, 300);
    let worst = max_pair_overlap(&app, &boxes);
    assert!(worst <= 0.01, "after 300 steps a pair overlaps by {worst}");
    let settled: Vec<Vec2> = boxes.iter().map(|&e| pos(&app, e)).collect();
    step(&mut app, 100);
    for (i, &e) in boxes.iter().enumerate() {
        let moved = pos(&app, e).distance(settled[i]);
        assert!(moved <= 0.001, "box {i} moved {moved} after settling");
    }
    let top = pos(&app, boxes[9]).y;
    assert!(
        (top - (22.0 + 12.0 * 9.0)).abs() < 0.1,
        "the stack stands 10 boxes high: {top}"
    );
}
