//! A PNG chart: milliseconds per step against body count, both on log scales, one line per
//! engine, with a small built-in pixel font for the labels.

use std::path::Path;

use crate::{ENGINES, Run};

const W: usize = 900;
const H: usize = 560;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 70.0;
const COLORS: [[u8; 3]; 6] = [
    [220, 60, 50],
    [240, 150, 60],
    [170, 40, 140],
    [40, 110, 220],
    [40, 160, 70],
    [120, 120, 120],
];

struct Canvas(Vec<u8>);

impl Canvas {
    fn put(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < W && (y as usize) < H {
            let i = (y as usize * W + x as usize) * 3;
            self.0[i..i + 3].copy_from_slice(&c);
        }
    }

    fn line(&mut self, (x0, y0): (f64, f64), (x1, y1): (f64, f64), c: [u8; 3], thick: i64) {
        let steps = ((x1 - x0).abs().max((y1 - y0).abs()) as usize).max(1);
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            for dy in -thick / 2..=thick / 2 {
                for dx in -thick / 2..=thick / 2 {
                    self.put(x as i64 + dx, y as i64 + dy, c);
                }
            }
        }
    }

    /// Text in a 3 x 5 pixel font, scaled by `s`.
    fn text(&mut self, x: f64, y: f64, text: &str, c: [u8; 3], s: i64) {
        for (k, ch) in text.chars().enumerate() {
            let rows = glyph(ch);
            for (r, bits) in rows.iter().enumerate() {
                for col in 0..3 {
                    if bits & (4 >> col) != 0 {
                        for dy in 0..s {
                            for dx in 0..s {
                                self.put(
                                    x as i64 + (k as i64 * 4 + col) * s + dx,
                                    y as i64 + r as i64 * s + dy,
                                    c,
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Rows of three bits, top first.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_lowercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        '/' => [1, 1, 2, 4, 4],
        '(' => [2, 4, 4, 4, 2],
        ')' => [2, 1, 1, 1, 2],
        'a' => [2, 5, 7, 5, 5],
        'b' => [6, 5, 6, 5, 6],
        'c' => [7, 4, 4, 4, 7],
        'd' => [6, 5, 5, 5, 6],
        'e' => [7, 4, 6, 4, 7],
        'f' => [7, 4, 6, 4, 4],
        'g' => [7, 4, 5, 5, 7],
        'h' => [5, 5, 7, 5, 5],
        'i' => [7, 2, 2, 2, 7],
        'k' => [5, 5, 6, 5, 5],
        'l' => [4, 4, 4, 4, 7],
        'm' => [5, 7, 7, 5, 5],
        'n' => [6, 5, 5, 5, 5],
        'o' => [7, 5, 5, 5, 7],
        'p' => [7, 5, 7, 4, 4],
        'r' => [6, 5, 6, 5, 5],
        's' => [7, 4, 7, 1, 7],
        't' => [7, 2, 2, 2, 2],
        'u' => [5, 5, 5, 5, 7],
        'v' => [5, 5, 5, 5, 2],
        'w' => [5, 5, 7, 7, 5],
        'x' => [5, 5, 2, 5, 5],
        'y' => [5, 5, 2, 2, 2],
        _ => [0; 5],
    }
}

pub fn write_png(runs: &[Run], path: &Path) -> std::io::Result<()> {
    let mut canvas = Canvas(vec![255; W * H * 3]);
    let ns: Vec<f64> = runs.iter().map(|r| r.n as f64).collect();
    let ms: Vec<f64> = runs.iter().map(|r| r.median_ms.max(1e-4)).collect();
    let (nx0, nx1) = (
        ns.iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .log10()
            .floor(),
        ns.iter().copied().fold(1.0, f64::max).log10().ceil(),
    );
    let (my0, my1) = (
        ms.iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .log10()
            .floor(),
        ms.iter().copied().fold(1e-4, f64::max).log10().ceil(),
    );
    let (nx1, my1) = (nx1.max(nx0 + 1.0), my1.max(my0 + 1.0));
    let px = |n: f64| LEFT + (n.log10() - nx0) / (nx1 - nx0) * (W as f64 - LEFT - RIGHT);
    let py =
        |m: f64| H as f64 - BOTTOM - (m.log10() - my0) / (my1 - my0) * (H as f64 - TOP - BOTTOM);
    let grey = [200, 200, 200];
    let dark = [40, 40, 40];
    // Decade grid and labels.
    for d in nx0 as i32..=nx1 as i32 {
        let x = px(10f64.powi(d));
        canvas.line((x, TOP), (x, H as f64 - BOTTOM), grey, 1);
        canvas.text(
            x - 10.0,
            H as f64 - BOTTOM + 10.0,
            &format!("{}", 10f64.powi(d)),
            dark,
            2,
        );
    }
    for d in my0 as i32..=my1 as i32 {
        let y = py(10f64.powi(d));
        canvas.line((LEFT, y), (W as f64 - RIGHT, y), grey, 1);
        let label = if d < 0 {
            format!("{:.*}", (-d) as usize, 10f64.powi(d))
        } else {
            format!("{}", 10f64.powi(d))
        };
        canvas.text(8.0, y - 5.0, &label, dark, 2);
    }
    canvas.line(
        (LEFT, H as f64 - BOTTOM),
        (W as f64 - RIGHT, H as f64 - BOTTOM),
        dark,
        2,
    );
    canvas.line((LEFT, TOP), (LEFT, H as f64 - BOTTOM), dark, 2);
    canvas.text(
        LEFT,
        12.0,
        "ms per step (median) vs bodies, log-log",
        dark,
        2,
    );
    canvas.text((W as f64 - RIGHT) / 2.0, H as f64 - 28.0, "bodies", dark, 2);
    for (k, engine) in ENGINES.iter().enumerate() {
        let mut points: Vec<(f64, f64)> = runs
            .iter()
            .filter(|r| r.engine == *engine)
            .map(|r| (px(r.n as f64), py(r.median_ms.max(1e-4))))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in points.windows(2) {
            canvas.line(w[0], w[1], COLORS[k], 3);
        }
        for &(x, y) in &points {
            for dy in -4..=4 {
                for dx in -4..=4 {
                    canvas.put(x as i64 + dx, y as i64 + dy, COLORS[k]);
                }
            }
        }
        let ly = TOP + 20.0 + k as f64 * 28.0;
        let lx = W as f64 - RIGHT + 20.0;
        canvas.line((lx, ly + 5.0), (lx + 30.0, ly + 5.0), COLORS[k], 5);
        canvas.text(lx + 40.0, ly, engine, dark, 2);
    }
    let file = std::fs::File::create(path)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), W as u32, H as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer
        .write_image_data(&canvas.0)
        .map_err(std::io::Error::other)?;
    Ok(())
}
