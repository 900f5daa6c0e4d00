//! The "pile" comparison (BENCH_SCENE.md): bevy_platformer_physics, avian2d, bevy_rapier2d
//! and the floor pass, each in its own process per body count, in one run.
//!
//! ```sh
//! cargo run --release -p pile-bench                 # 1k, 4k, 16k, 64k; writes bench/results/
//! cargo run --release -p pile-bench -- --rounds 1    # each engine once per size (default 5)
//! cargo run --release -p pile-bench -- --sizes 1000,4000 --engines ours,floor
//! cargo run --release -p pile-bench -- one ours 16000   # one process: one JSON line
//! PILE_STAGES=1 cargo run --release -p pile-bench -- one ours 64000   # and each stage's median
//! cargo run --release -p pile-bench -- one dense 64000  # the experiment of dense.rs
//! PILE_STEPS=40 cargo run --release -p pile-bench -- one ours 4000   # 40 measured steps
//! PILE_STILL=1 PILE_WARM_UP=600 cargo run --release -p pile-bench -- one ours 16000   # settled
//! bench/instructions.sh 4000          # instructions per body per step (valgrind)
//! cargo run --release -p pile-bench --features count-allocs -- one ours 16000   # allocations
//! ```

#[cfg(feature = "count-allocs")]
mod allocs;
mod avian;
mod chart;
mod dense;
mod floor;
mod harness;
mod ours;
#[cfg(test)]
mod outcome_tests;
mod rapier;
mod report;
mod scene;
#[cfg(test)]
mod scene_tests;

use std::process::Command;

use bevy::app::FixedUpdate;
use bevy::math::Vec2;
use std::time::Instant;

use scene::{Outcome, Scene};

/// The engines of the comparison, in the tables' order: ours (every core, rest skipping on),
/// ours without rest skipping, ours with Bevy's default task pools, the peers, the floor.
pub const ENGINES: [&str; 6] = [
    "ours",
    "ours-no-skip",
    "ours-bevy-pools",
    "avian2d",
    "rapier",
    "floor",
];
/// The scenes of BENCH_SCENE.md.
pub const SCENES: [&str; 2] = ["pile", "crowd"];
/// Steps run before the measured ones ([`warm_up`]).
const WARM_UP: usize = 60;
/// How many times each engine runs at each size by default (the median round is reported).
const ROUNDS: usize = 5;
/// Our partition's cell size in tiles in the comparison (see `run_one`).
const CELL_TILES: u32 = 8;
const MEASURED: usize = 240;
/// Skip an engine at larger sizes once a step takes longer than this.
const TOO_SLOW_MS: f64 = 1000.0;

/// One engine at one size.
#[derive(Clone, Debug)]
pub struct Run {
    pub engine: String,
    pub n: usize,
    /// The median and mean time of a step: one run of the fixed schedule, everything the
    /// engine does in it (`BENCH_SCENE.md`; [`harness::StepClock`]).
    pub median_ms: f64,
    pub mean_ms: f64,
    /// The median time of a whole `App::update`: the step, and the schedules Bevy runs around
    /// it every frame (time, messages, `Transform` propagation), which a game pays too.
    pub update_ms: f64,
    pub outcome: Outcome,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("one") {
        let engine = args.get(1).expect("engine");
        let n: usize = args
            .get(2)
            .and_then(|s| s.parse().ok())
            .expect("body count");
        let run = run_one(engine, n);
        println!("{}", report::json_line(&run));
        return;
    }
    let mut sizes = vec![1000, 4000, 16000, 64000];
    let mut scenes: Vec<String> = SCENES.iter().map(|s| s.to_string()).collect();
    let mut engines: Vec<String> = ENGINES.iter().map(|s| s.to_string()).collect();
    let mut rounds = ROUNDS;
    let mut out = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/results"));
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--sizes" => {
                sizes = args[i + 1]
                    .split(',')
                    .map(|s| s.parse().expect("size"))
                    .collect()
            }
            "--engines" => engines = args[i + 1].split(',').map(str::to_string).collect(),
            "--scenes" => scenes = args[i + 1].split(',').map(str::to_string).collect(),
            "--out" => out = args[i + 1].clone().into(),
            "--rounds" => rounds = args[i + 1].parse::<usize>().expect("rounds").max(1),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    std::fs::create_dir_all(&out).expect("results folder");
    for scene in &scenes {
        let runs = run_scene(scene, &sizes, &engines, rounds);
        let table = report::markdown(&runs);
        println!("## {scene}\n\n{table}");
        std::fs::write(out.join(format!("{scene}.md")), &table).expect("write the table");
        std::fs::write(out.join(format!("{scene}.json")), report::json(&runs))
            .expect("write the JSON");
        chart::write_png(&runs, &out.join(format!("{scene}.png"))).expect("write the chart");
    }
    eprintln!("wrote {}", out.display());
}

/// Every engine at every size in `scene`, `rounds` times.
fn run_scene(scene: &str, sizes: &[usize], engines: &[String], rounds: usize) -> Vec<Run> {
    let exe = std::env::current_exe().expect("own path");
    let mut runs = Vec::new();
    let mut too_slow: Vec<String> = Vec::new();
    for &n in sizes {
        // Every engine once per round, the order reversed every other round, so a busy or quiet
        // spell of the machine falls on all of them; each engine's round with the median
        // median is reported.
        let mut rounds_of: Vec<Vec<Run>> = vec![Vec::new(); engines.len()];
        for round in 0..rounds {
            for e in round_order(round, engines.len()) {
                let engine = &engines[e];
                if too_slow.contains(engine) {
                    if round == 0 {
                        eprintln!(
                            "{engine} at {n}: skipped (a step took over {TOO_SLOW_MS} ms at a smaller size)"
                        );
                    }
                    continue;
                }
                if let Some(run) = run_process(&exe, scene, engine, n, round, rounds) {
                    rounds_of[e].push(run);
                }
            }
        }
        for (engine, done) in engines.iter().zip(rounds_of) {
            let Some(run) = median_round(done) else {
                continue;
            };
            if run.median_ms > TOO_SLOW_MS {
                too_slow.push(engine.clone());
            }
            runs.push(run);
        }
    }
    runs
}

/// The order the engines run in at `round` (0, 1, ...): as given, reversed every other round.
fn round_order(round: usize, engines: usize) -> impl Iterator<Item = usize> {
    (0..engines).map(move |e| if round % 2 == 1 { engines - 1 - e } else { e })
}

/// Of an engine's rounds at one size, the one with the median median (of an even number, the
/// slower of the middle two); `None` when every round failed.
fn median_round(mut runs: Vec<Run>) -> Option<Run> {
    if runs.is_empty() {
        return None;
    }
    runs.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    let middle = runs.len() / 2;
    Some(runs.swap_remove(middle))
}

/// Runs one engine at one size in its own process; `None` (and the reason on stderr) when it
/// fails.
fn run_process(
    exe: &std::path::Path,
    scene: &str,
    engine: &str,
    n: usize,
    round: usize,
    rounds: usize,
) -> Option<Run> {
    eprintln!(
        "{scene}: {engine} at {n} (round {} of {rounds}) ...",
        round + 1
    );
    let output = Command::new(exe)
        .args(["one", engine, &n.to_string()])
        .env("PILE_SCENE", scene)
        .output()
        .expect("run one engine");
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(run) = text.lines().rev().find_map(report::parse_line) else {
        eprintln!(
            "{engine} at {n} failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        );
        return None;
    };
    eprintln!(
        "  step: median {:.3} ms, mean {:.3} ms; whole update: median {:.3} ms",
        run.median_ms, run.mean_ms, run.update_ms
    );
    Some(run)
}

/// The experiment of `dense.rs`, timed like the engines (its step only: it has no app), with
/// the median of each of its stages (stderr).
fn run_dense(scene: &Scene, cell_tiles: u32) -> Run {
    let mut dense = dense::Dense::build(scene, cell_tiles);
    // No app around it: the step is all there is.
    let times = measure(|| {
        dense.step();
        None
    });
    let rows = &dense.stages[warm_up()..];
    let line = report::stage_medians("dense stages (median ms):", &dense::STAGES, rows);
    eprintln!("{line}");
    summarize("dense", scene, times, (&dense.boxes(), &[]))
}

/// How many steps are timed: [`MEASURED`], or `PILE_STEPS` (at least 2) when set.
/// `bench/instructions.sh` runs each engine with two step counts and takes the difference, so
/// that building the scene does not count.
fn measured_steps() -> usize {
    std::env::var("PILE_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(MEASURED, |n: usize| n.max(2))
}

/// How many steps run before the measured ones: [`WARM_UP`], or `PILE_WARM_UP` when set (with
/// `PILE_STILL=1`, 600 lets the pile settle first).
fn warm_up() -> usize {
    std::env::var("PILE_WARM_UP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(WARM_UP)
}

/// What [`measure`] timed: each measured step and each whole update around it (ms).
struct Times {
    steps: Vec<f64>,
    updates: Vec<f64>,
}

/// Runs `update` [`warm_up`] times, then times it [`measured_steps`] times: the whole call,
/// and the step inside it that `update` returns (ms; `None`: the whole call is the step).
fn measure(update: impl FnMut() -> Option<f64>) -> Times {
    measure_counted(warm_up(), measured_steps(), update)
}

/// [`measure`] with `warm_up` and `measured` steps.
fn measure_counted(
    warm_up: usize,
    measured: usize,
    mut update: impl FnMut() -> Option<f64>,
) -> Times {
    for _ in 0..warm_up {
        update();
    }
    let (steps, updates) = (0..measured)
        .map(|_| {
            let t = Instant::now();
            let step = update();
            let whole = t.elapsed().as_secs_f64() * 1000.0;
            (step.unwrap_or(whole), whole)
        })
        .unzip();
    Times { steps, updates }
}

/// The median of `times` (of an even count, the mean of the middle two).
fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let half = times.len() / 2;
    if times.len().is_multiple_of(2) {
        (times[half - 1] + times[half]) / 2.0
    } else {
        times[half]
    }
}

/// Median, mean and the outcome of one run.
fn summarize(
    engine: &str,
    scene: &Scene,
    mut times: Times,
    (boxes, squished): (&[(Vec2, Vec2)], &[bool]),
) -> Run {
    let mean_ms = times.steps.iter().sum::<f64>() / times.steps.len() as f64;
    Run {
        engine: engine.to_string(),
        n: scene.bodies.len(),
        median_ms: median(&mut times.steps),
        mean_ms,
        update_ms: median(&mut times.updates),
        outcome: scene::outcome(scene, boxes, squished),
    }
}

/// Builds the scene in `engine`, runs the warm-up, times the measured steps, and measures what
/// was left behind.
fn run_one(engine: &str, n: usize) -> Run {
    let scene = Scene::named(
        &std::env::var("PILE_SCENE").unwrap_or_else(|_| "pile".into()),
        n,
    );
    // Our partition's cell size in tiles (`PhysicsConfig::partition_cell_tiles`): 8 (128-unit
    // cells) measured the shortest step at this density; `PILE_CELL_TILES` overrides it.
    let cell_tiles = std::env::var("PILE_CELL_TILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CELL_TILES);
    if engine == "dense" {
        assert!(!scene.crowd, "the dense experiment has no crowd driver");
        return run_dense(&scene, cell_tiles);
    }
    let ours = ours::Variant::named(engine);
    let mut app = match (ours, engine) {
        (Some(variant), _) => ours::build(&scene, cell_tiles, variant),
        (None, "avian2d") => avian::build(&scene),
        (None, "rapier") => rapier::build(&scene),
        (None, "floor") => floor::build(&scene),
        (None, other) => panic!("unknown engine {other}"),
    };
    let stages = ours.is_some() && std::env::var_os("PILE_STAGES").is_some();
    if stages {
        ours::time_stages(&mut app);
    }
    if std::env::var_os("PILE_FIXED_ONE_THREAD").is_some() {
        // A game's choice, not the comparison's: `FixedUpdate` on Bevy's single-threaded
        // executor, which hands no system to a task (see BENCHMARKS.md).
        app.edit_schedule(FixedUpdate, |fixed| {
            fixed.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        });
    }
    app.finish();
    app.cleanup();
    // The first update starts the clock and runs no fixed step.
    app.update();
    let times = measure(|| {
        app.update();
        let step = app.world().resource::<harness::StepClock>().last;
        Some(step.as_secs_f64() * 1000.0)
    });
    if stages {
        ours::print_stages(&mut app, measured_steps());
    }
    #[cfg(feature = "count-allocs")]
    eprintln!(
        "{engine} at {n}: {:.1} heap allocations per step",
        allocs::per_step(&mut app, 100)
    );
    if ours.is_some() && std::env::var_os("PILE_HASH").is_some() {
        eprintln!("state hash: {:#018x}", ours::state_hash(&mut app));
    }
    if ours.is_some() && std::env::var_os("PILE_SNAPSHOT").is_some() {
        ours::time_snapshots(&mut app);
    }
    let squished = match ours {
        Some(_) => ours::squished(&mut app),
        None => Vec::new(),
    };
    let boxes = match (ours, engine) {
        (Some(_), _) => ours::boxes(&mut app),
        (None, "avian2d") => avian::boxes(&mut app),
        (None, "rapier") => rapier::boxes(&mut app),
        _ => floor::boxes(&mut app),
    };
    if std::env::var_os("PILE_DEBUG").is_some() {
        scene::print_worst(&boxes);
    }
    summarize(engine, &scene, times, (&boxes, &squished))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_the_engines_order() {
        assert_eq!(round_order(0, 4).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(round_order(1, 4).collect::<Vec<_>>(), [3, 2, 1, 0]);
        assert_eq!(round_order(2, 4).collect::<Vec<_>>(), [0, 1, 2, 3]);
    }

    #[test]
    fn the_median_round_is_reported() {
        let run = |median_ms: f64| Run {
            engine: "ours".into(),
            n: 1000,
            median_ms,
            mean_ms: median_ms + 0.5,
            update_ms: median_ms + 0.25,
            outcome: Outcome::default(),
        };
        let median = |ms: &[f64]| median_round(ms.iter().map(|&m| run(m)).collect());
        assert_eq!(median(&[3.0, 1.0, 2.0]).unwrap().median_ms, 2.0);
        assert_eq!(
            median(&[2.5]).unwrap().mean_ms,
            3.0,
            "the whole run, not only its median"
        );
        assert_eq!(
            median(&[4.0, 1.0]).unwrap().median_ms,
            4.0,
            "the slower of two"
        );
        assert!(median(&[]).is_none());
    }

    #[test]
    fn measure_reports_the_step_and_the_whole_update() {
        let mut calls = 0;
        let times = measure_counted(1, 3, || {
            calls += 1;
            std::thread::sleep(std::time::Duration::from_millis(4));
            Some(1.5)
        });
        assert_eq!(calls, 4, "one warm-up and three measured updates");
        assert_eq!(times.steps, [1.5; 3]);
        assert!(
            times.updates.iter().all(|&ms| ms >= 4.0),
            "{:?}",
            times.updates
        );
        let run = summarize("ours", &Scene::pile(1000), times, (&[], &[]));
        assert_eq!((run.median_ms, run.mean_ms), (1.5, 1.5));
        assert!(run.update_ms >= 4.0);
        // Without a step of its own, the whole update is the step.
        let times = measure_counted(0, 3, || None);
        assert_eq!(times.steps, times.updates);
    }
}
