//! The step's outcome on both scenes of BENCH_SCENE.md at 4 000 bodies, held to a recorded
//! hash: a change that alters any body's state by one bit in 600 steps fails here (a change
//! meant to alter the outcome records the new hash, and says so). Rest skipping and the task
//! pools do not change it. The configuration is the default one (relaxation on, 4 passes).

use crate::harness::Pools;
use crate::ours::{Variant, build, state_hash};
use crate::scene::Scene;

/// [`state_hash`] after 600 physics steps of `scene` with `variant`.
fn hash_after_600_steps(scene: &Scene, variant: Variant) -> u64 {
    let mut app = build(scene, 8, variant);
    app.finish();
    app.cleanup();
    // The first update runs no fixed step; each of the others runs exactly one.
    for _ in 0..601 {
        app.update();
    }
    state_hash(&mut app)
}

fn check(scene: &Scene, expected: u64) {
    let mut hashes = Vec::new();
    for skip_resting_bodies in [true, false] {
        for pools in [Pools::EveryCore, Pools::BevyDefault] {
            let variant = Variant {
                skip_resting_bodies,
                pools,
            };
            hashes.push((variant, hash_after_600_steps(scene, variant)));
        }
    }
    for (variant, hash) in &hashes {
        assert_eq!(
            *hash, expected,
            "{variant:?}: {hash:#018x}, recorded {expected:#018x}; all variants: {hashes:x?}"
        );
    }
}

#[test]
fn the_pile_of_4000_bodies_ends_600_steps_as_recorded() {
    check(&Scene::pile(4000), 0x7c85_7a27_4051_50f3);
}

#[test]
fn the_crowd_of_4000_bodies_ends_600_steps_as_recorded() {
    check(&Scene::crowd(4000), 0x31cb_8e26_01ba_9069);
}
