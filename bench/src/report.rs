//! The results as one JSON line per run, a JSON file and a Markdown table.

use crate::scene::Outcome;
use crate::{ENGINES, Run};

/// `label`, then each stage's name and the median of its column of `rows` (ms), as one line.
pub fn stage_medians<const N: usize>(label: &str, names: &[&str; N], rows: &[[f64; N]]) -> String {
    let mut line = String::from(label);
    for (k, name) in names.iter().enumerate() {
        let mut column: Vec<f64> = rows.iter().map(|r| r[k]).collect();
        column.sort_by(f64::total_cmp);
        let median = column.get(column.len() / 2).copied().unwrap_or(0.0);
        line += &format!(" {name} {median:.3}");
    }
    line
}

pub fn json_line(r: &Run) -> String {
    format!(
        "{{\"engine\":\"{}\",\"n\":{},\"median_ms\":{:.5},\"mean_ms\":{:.5},\"update_ms\":{:.5},\"fell\":{},\"body_overlap\":{:.5},\"tile_overlap\":{:.5},\"body_p99\":{:.5},\"over_one\":{},\"squished\":{}}}",
        r.engine,
        r.n,
        r.median_ms,
        r.mean_ms,
        r.update_ms,
        r.outcome.fell,
        r.outcome.body_overlap,
        r.outcome.tile_overlap,
        r.outcome.body_p99,
        r.outcome.over_one,
        r.outcome.squished
    )
}

/// Reads back a line written by [`json_line`] (and nothing else).
pub fn parse_line(line: &str) -> Option<Run> {
    let line = line.trim().strip_prefix('{')?.strip_suffix('}')?;
    let field = |name: &str| {
        line.split(',').find_map(|kv| {
            let (k, v) = kv.split_once(':')?;
            (k.trim_matches('"') == name).then(|| v.trim_matches('"').to_string())
        })
    };
    Some(Run {
        engine: field("engine")?,
        n: field("n")?.parse().ok()?,
        median_ms: field("median_ms")?.parse().ok()?,
        mean_ms: field("mean_ms")?.parse().ok()?,
        update_ms: field("update_ms")?.parse().ok()?,
        outcome: Outcome {
            fell: field("fell")?.parse().ok()?,
            body_overlap: field("body_overlap")?.parse().ok()?,
            tile_overlap: field("tile_overlap")?.parse().ok()?,
            body_p99: field("body_p99")?.parse().ok()?,
            over_one: field("over_one")?.parse().ok()?,
            squished: field("squished")?.parse().ok()?,
        },
    })
}

pub fn json(runs: &[Run]) -> String {
    let lines: Vec<String> = runs.iter().map(json_line).collect();
    format!("[\n  {}\n]\n", lines.join(",\n  "))
}

fn find<'a>(runs: &'a [Run], engine: &str, n: usize) -> Option<&'a Run> {
    runs.iter().find(|r| r.engine == engine && r.n == n)
}

pub fn markdown(runs: &[Run]) -> String {
    let mut sizes: Vec<usize> = runs.iter().map(|r| r.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut s = String::new();
    s.push_str("| engine | N | median ms/step | mean ms/step | x floor | median ms/update | fell through floor | max body-body overlap | p99 body-body overlap | pairs over 1 unit | squished | max body-tile overlap |\n");
    s.push_str(
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for &n in &sizes {
        let floor = find(runs, "floor", n).map(|r| r.median_ms);
        for engine in ENGINES {
            let Some(r) = find(runs, engine, n) else {
                continue;
            };
            let vs_floor = floor.map_or("-".into(), |f| format!("{:.1}", r.median_ms / f));
            let o = &r.outcome;
            let outcome = if engine == "floor" {
                "- | - | - | - | - | -".to_string()
            } else {
                // Only ours reports squished bodies.
                let squished = if engine.starts_with("ours") {
                    o.squished.to_string()
                } else {
                    "-".into()
                };
                format!(
                    "{} | {:.3} | {:.3} | {} | {squished} | {:.3}",
                    o.fell, o.body_overlap, o.body_p99, o.over_one, o.tile_overlap
                )
            };
            s.push_str(&format!(
                "| {engine} | {n} | {:.3} | {:.3} | {vs_floor} | {:.3} | {outcome} |\n",
                r.median_ms, r.mean_ms, r.update_ms
            ));
        }
    }
    s.push_str("\n| N | ours vs the faster peer (median step) | the same, whole update | ours ms per 1k bodies (step) |\n| ---: | ---: | ---: | ---: |\n");
    for &n in &sizes {
        let Some(o) = find(runs, "ours", n) else {
            continue;
        };
        let peers: Vec<&Run> = (["avian2d", "rapier"].iter())
            .filter_map(|e| find(runs, e, n))
            .collect();
        let ratio = |time: fn(&Run) -> f64| {
            let peer = peers.iter().map(|r| time(r)).fold(f64::INFINITY, f64::min);
            if peer.is_finite() {
                format!("{:.1}x faster", peer / time(o))
            } else {
                "-".into()
            }
        };
        s.push_str(&format!(
            "| {n} | {} | {} | {:.4} |\n",
            ratio(|r| r.median_ms),
            ratio(|r| r.update_ms),
            o.median_ms / (n as f64 / 1000.0)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(engine: &str, median_ms: f64, update_ms: f64) -> Run {
        Run {
            engine: engine.into(),
            n: 16000,
            median_ms,
            mean_ms: median_ms * 1.1,
            update_ms,
            outcome: Outcome {
                fell: 2,
                body_overlap: 1.5,
                tile_overlap: 0.25,
                body_p99: 0.75,
                over_one: 3,
                squished: 1,
            },
        }
    }

    #[test]
    fn a_json_line_reads_back_the_same() {
        let r = run("rapier", 17.5, 18.0);
        let back = parse_line(&json_line(&r)).expect("a line it wrote");
        assert_eq!(
            (
                back.engine.as_str(),
                back.n,
                back.median_ms,
                back.mean_ms,
                back.update_ms
            ),
            ("rapier", 16000, 17.5, 19.25, 18.0)
        );
        let o = back.outcome;
        assert_eq!(
            (o.fell, o.body_p99, o.over_one, o.squished),
            (2, 0.75, 3, 1)
        );
        assert!(parse_line("median 1.0 ms").is_none());
    }

    #[test]
    fn the_table_gives_the_step_the_update_and_both_ratios() {
        let runs = [
            run("ours", 0.75, 0.95),
            run("avian2d", 40.0, 40.5),
            run("rapier", 18.0, 19.0),
            run("floor", 0.1, 0.2),
        ];
        let table = markdown(&runs);
        assert!(
            table.contains(
                "| ours | 16000 | 0.750 | 0.825 | 7.5 | 0.950 | 2 | 1.500 | 0.750 | 3 | 1 | 0.250 |"
            ),
            "{table}"
        );
        // Peers report no squished bodies.
        assert!(
            table.contains("| 2 | 1.500 | 0.750 | 3 | - | 0.250 |"),
            "{table}"
        );
        assert!(
            table.contains(
                "| floor | 16000 | 0.100 | 0.110 | 1.0 | 0.200 | - | - | - | - | - | - |"
            )
        );
        // Against the faster peer, rapier: 18 / 0.75 on the step, 19 / 0.95 on the update.
        assert!(
            table.contains("| 16000 | 24.0x faster | 20.0x faster | 0.0469 |"),
            "{table}"
        );
    }
}
