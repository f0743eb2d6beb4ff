//! `ndnpy plot`: a PNG of an array, drawn in one or two streaming passes so that any size of
//! file works: a heatmap (viridis, with a colour bar) of a 2-D array, a line (min-max per
//! pixel column) or a histogram of a 1-D array, with axes, ticks and labels in an 8x8 bitmap
//! font.

use crate::fail::{Fail, Res};
use crate::source::{ArraySource, Target};
use ndnpy::{DynArray, DynData};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// The image's size in pixels.
pub const WIDTH: usize = 800;
/// The image's height in pixels.
pub const HEIGHT: usize = 600;
/// The plot area: left, top, right, bottom edges (exclusive right and bottom).
const LEFT: usize = 90;
const TOP: usize = 40;
const BOTTOM: usize = HEIGHT - 60;
/// The right edge of the plot area without and with a colour bar.
const RIGHT: usize = WIDTH - 30;
const RIGHT_BAR: usize = WIDTH - 120;

type Rgb = [u8; 3];
const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const LINE: Rgb = [31, 119, 180];
const GRAY: Rgb = [200, 200, 200];

/// What to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The default: heatmap for 2-D, line for 1-D.
    Auto,
    /// A line of the values against their index (1-D).
    Line,
    /// A histogram of the values (any shape).
    Hist,
    /// A heatmap (2-D).
    Heatmap,
}

/// An RGB canvas.
struct Canvas {
    px: Vec<u8>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            px: [255u8; 3].repeat(WIDTH * HEIGHT),
        }
    }

    fn set(&mut self, x: usize, y: usize, c: Rgb) {
        if x < WIDTH && y < HEIGHT {
            let i = 3 * (y * WIDTH + x);
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }

    fn rect(&mut self, x0: usize, y0: usize, x1: usize, y1: usize, c: Rgb) {
        for y in y0..y1.min(HEIGHT) {
            for x in x0..x1.min(WIDTH) {
                self.set(x, y, c);
            }
        }
    }

    fn vline(&mut self, x: usize, y0: usize, y1: usize, c: Rgb) {
        let (a, b) = if y0 <= y1 { (y0, y1) } else { (y1, y0) };
        self.rect(x, a, x + 1, b + 1, c);
    }

    /// A straight line from (x0, y0) to (x1, y1) (Bresenham's).
    fn line(&mut self, (x0, y0): (usize, usize), (x1, y1): (usize, usize), c: Rgb) {
        let (mut x, mut y) = (x0 as i64, y0 as i64);
        let (x1, y1) = (x1 as i64, y1 as i64);
        let (dx, dy) = ((x1 - x).abs(), -(y1 - y).abs());
        let (sx, sy) = (if x < x1 { 1 } else { -1 }, if y < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        loop {
            self.set(x as usize, y as usize, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// `text` with its top-left corner at (x, y), `scale` pixels per font pixel.
    fn text(&mut self, x: usize, y: usize, text: &str, scale: usize) {
        for (i, ch) in text.chars().enumerate() {
            let glyph = font8x8::legacy::BASIC_LEGACY[(ch as usize).min(127)];
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits >> col & 1 == 1 {
                        let (gx, gy) = (x + (i * 8 + col) * scale, y + row * scale);
                        self.rect(gx, gy, gx + scale, gy + scale, BLACK);
                    }
                }
            }
        }
    }

    /// `text` centred on x.
    fn text_centred(&mut self, x: usize, y: usize, text: &str, scale: usize) {
        let w = text.chars().count() * 8 * scale;
        self.text(x.saturating_sub(w / 2), y, text, scale);
    }

    /// `text` ending at x (right-aligned), vertically centred on y.
    fn text_right(&mut self, x: usize, y: usize, text: &str) {
        let w = text.chars().count() * 8;
        self.text(x.saturating_sub(w), y.saturating_sub(4), text, 1);
    }

    /// `text` turned a quarter to the left (read bottom to top), centred on y.
    fn text_vertical(&mut self, x: usize, y: usize, text: &str) {
        let n = text.chars().count();
        let y_start = y + n * 8 / 2;
        for (i, ch) in text.chars().enumerate() {
            let glyph = font8x8::legacy::BASIC_LEGACY[(ch as usize).min(127)];
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits >> col & 1 == 1 {
                        self.set(x + row, y_start.saturating_sub(i * 8 + col), BLACK);
                    }
                }
            }
        }
    }

    fn save(&self, path: &Path) -> Res<()> {
        let name = path.display().to_string();
        let tmp = path.with_file_name(format!(
            ".{}.ndnpy-tmp-{}",
            path.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let result = (|| {
            let file = File::create(&tmp).map_err(|e| Fail::io(path, "create", e))?;
            let mut enc = png::Encoder::new(BufWriter::new(file), WIDTH as u32, HEIGHT as u32);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let png_err =
                |e: png::EncodingError| Fail::io_named(&name, "write", std::io::Error::other(e));
            let mut w = enc.write_header().map_err(png_err)?;
            w.write_image_data(&self.px).map_err(png_err)?;
            w.finish().map_err(png_err)?;
            std::fs::rename(&tmp, path).map_err(|e| Fail::io(path, "replace", e))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

/// The viridis colour map at `t` in [0, 1] (matplotlib's, at nine stops, interpolated).
pub fn viridis(t: f64) -> Rgb {
    const STOPS: [Rgb; 9] = [
        [68, 1, 84],
        [71, 44, 122],
        [59, 81, 139],
        [44, 113, 142],
        [33, 144, 141],
        [39, 173, 129],
        [92, 200, 99],
        [170, 220, 50],
        [253, 231, 37],
    ];
    let t = t.clamp(0.0, 1.0) * 8.0;
    let i = (t.floor() as usize).min(7);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [0, 1, 2].map(|k| (f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * f).round() as u8)
}

/// Tick positions for [lo, hi]: about five at 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 20 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// A tick label: as few decimals as the step needs; scientific for very large or small.
fn label(v: f64, step: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        return format!("{v:.1e}");
    }
    let decimals = if step > 0.0 {
        (-step.log10().floor()).max(0.0) as usize
    } else {
        0
    };
    format!("{v:.decimals$}")
}

/// The values of a chunk as floats (numbers and bools only).
fn floats(a: &DynArray, name: &str) -> Res<Vec<f64>> {
    Ok(match a.data() {
        DynData::Bool(v) => v.iter().map(|&b| f64::from(u8::from(b))).collect(),
        DynData::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::I16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        DynData::U8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::U16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        DynData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        DynData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        DynData::F64(v) => v.iter().copied().collect(),
        _ => {
            return Err(Fail::unsupported(
                name,
                format!(
                    "plot draws real numbers; this array is {} (name a numeric field with --field)",
                    crate::ls::numpy_name(a.dtype())
                ),
            ))
        }
    })
}

/// Calls `f(storage index, value)` for every element, chunk by chunk.
fn each_value(src: &ArraySource, mut f: impl FnMut(usize, f64)) -> Res<()> {
    src.for_each_chunk(
        0..src.len(),
        |first, chunk| {
            for (i, v) in floats(chunk, &src.name)?.into_iter().enumerate() {
                f(first + i, v);
            }
            Ok(())
        },
        &mut |_| {},
    )
}

/// The finite min and max, in one pass.
fn range(src: &ArraySource) -> Res<Option<(f64, f64)>> {
    let mut r: Option<(f64, f64)> = None;
    each_value(src, |_, v| {
        if v.is_finite() {
            r = Some(r.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
        }
    })?;
    Ok(r)
}

/// Draws the axes of the plot area [LEFT, right) x [TOP, BOTTOM) with ticks for x in
/// [x0, x1] and y in [y0, y1], and the labels.
#[allow(clippy::too_many_arguments)]
fn axes(
    c: &mut Canvas,
    right: usize,
    x: (f64, f64),
    y: (f64, f64),
    xlabel: &str,
    ylabel: &str,
    y_down: bool,
) {
    let (w, h) = ((right - LEFT - 1) as f64, (BOTTOM - TOP - 1) as f64);
    c.rect(LEFT - 1, TOP, LEFT, BOTTOM + 1, BLACK);
    c.rect(LEFT - 1, BOTTOM, right, BOTTOM + 1, BLACK);
    let xt = ticks(x.0, x.1);
    let xstep = if xt.len() > 1 { xt[1] - xt[0] } else { 1.0 };
    for t in &xt {
        let px = LEFT
            + (if x.1 > x.0 {
                (t - x.0) / (x.1 - x.0) * w
            } else {
                0.0
            })
            .round() as usize;
        c.rect(px, BOTTOM, px + 1, BOTTOM + 6, BLACK);
        c.text_centred(px, BOTTOM + 10, &label(*t, xstep), 1);
    }
    let yt = ticks(y.0, y.1);
    let ystep = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    for t in &yt {
        let f = if y.1 > y.0 {
            (t - y.0) / (y.1 - y.0)
        } else {
            0.0
        };
        let f = if y_down { f } else { 1.0 - f };
        let py = TOP + (f * h).round() as usize;
        c.rect(LEFT - 6, py, LEFT - 1, py + 1, BLACK);
        c.text_right(LEFT - 9, py, &label(*t, ystep));
    }
    c.text_centred((LEFT + right) / 2, HEIGHT - 22, xlabel, 1);
    c.text_vertical(12, (TOP + BOTTOM) / 2, ylabel);
}

/// Plots `target` (or its `field`) into `out`.
pub fn run(target: &Target, field: Option<&str>, kind: Kind, bins: usize, out: &Path) -> Res<()> {
    let mut src = ArraySource::open(target)?;
    let name = src.name.clone();
    if let Some(f) = field {
        let a = src.read_all()?;
        if a.dtype().as_structured().is_none() {
            return Err(Fail::usage(format!("{name}: --field needs a record array")));
        }
        let a = a
            .field(f)
            .map_err(|e| Fail::usage(format!("{name}: {e}")))?;
        src = ArraySource::from_array(&format!("{name}['{f}']"), &a)?;
    }
    let shape = src.shape().to_vec();
    let kind = match (kind, shape.len()) {
        (Kind::Auto, 2) => Kind::Heatmap,
        (Kind::Auto, 1) => Kind::Line,
        (Kind::Auto, _) => {
            return Err(Fail::usage(format!(
                "{name}: shape {}: plot draws 1-D arrays (line, histogram) and 2-D arrays (heatmap); --kind hist takes any shape",
                crate::ls::shape_tuple(&shape)
            )))
        }
        (Kind::Heatmap, n) if n != 2 => {
            return Err(Fail::usage(format!("{name}: a heatmap needs a 2-D array")))
        }
        (Kind::Line, n) if n != 1 => {
            return Err(Fail::usage(format!("{name}: a line plot needs a 1-D array")))
        }
        (k, _) => k,
    };
    if src.len() == 0 {
        return Err(Fail::unsupported(
            &name,
            "the array is empty: nothing to plot",
        ));
    }
    let title = target
        .display()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let mut c = Canvas::new();
    c.text_centred(
        WIDTH / 2,
        12,
        &format!(
            "{title}{}",
            field.map(|f| format!(" ['{f}']")).unwrap_or_default()
        ),
        2,
    );
    let Some((lo, hi)) = range(&src)? else {
        return Err(Fail::unsupported(&name, "no finite values to plot"));
    };
    match kind {
        Kind::Heatmap => heatmap(&mut c, &src, &shape, lo, hi)?,
        Kind::Line => line(&mut c, &src, lo, hi)?,
        _ => hist(&mut c, &src, lo, hi, bins.max(1))?,
    }
    c.save(out)
}

fn heatmap(c: &mut Canvas, src: &ArraySource, shape: &[usize], lo: f64, hi: f64) -> Res<()> {
    let (rows, cols) = (shape[0], shape[1]);
    let (pw, ph) = (RIGHT_BAR - LEFT, BOTTOM - TOP);
    // Cells averaged into bins of at most one pixel each.
    let (bw, bh) = (cols.min(pw), rows.min(ph));
    let mut sum = vec![0.0f64; bw * bh];
    let mut count = vec![0u32; bw * bh];
    let fortran = src.info.header.fortran_order;
    each_value(src, |i, v| {
        let (r, col) = if fortran {
            (i % rows, i / rows)
        } else {
            (i / cols, i % cols)
        };
        if v.is_finite() {
            let b = (r * bh / rows) * bw + col * bw / cols;
            sum[b] += v;
            count[b] += 1;
        }
    })?;
    let span = if hi > lo { hi - lo } else { 1.0 };
    for py in 0..ph {
        for px in 0..pw {
            let b = (py * bh / ph) * bw + px * bw / pw;
            let color = if count[b] == 0 {
                GRAY
            } else {
                viridis((sum[b] / f64::from(count[b]) - lo) / span)
            };
            c.set(LEFT + px, TOP + py, color);
        }
    }
    // The colour bar, with its value ticks.
    let (bx0, bx1) = (RIGHT_BAR + 20, RIGHT_BAR + 40);
    for py in 0..ph {
        let t = 1.0 - py as f64 / (ph - 1) as f64;
        c.rect(bx0, TOP + py, bx1, TOP + py + 1, viridis(t));
    }
    let yt = ticks(lo, hi);
    let step = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    for t in yt {
        let py = TOP + ((1.0 - (t - lo) / span) * (ph - 1) as f64).round() as usize;
        c.rect(bx1, py, bx1 + 4, py + 1, BLACK);
        c.text(bx1 + 6, py.saturating_sub(4), &label(t, step), 1);
    }
    // Axes in cell coordinates: columns across, rows down from the top.
    axes(
        c,
        RIGHT_BAR,
        (0.0, (cols - 1).max(1) as f64),
        (0.0, (rows - 1).max(1) as f64),
        "column",
        "row",
        true,
    );
    Ok(())
}

fn line(c: &mut Canvas, src: &ArraySource, lo: f64, hi: f64) -> Res<()> {
    let n = src.len();
    let pw = RIGHT - LEFT;
    let h = (BOTTOM - TOP - 1) as f64;
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let y_of = |v: f64| TOP + ((1.0 - (v - lo) / (hi - lo)) * h).round() as usize;
    // Per pixel column: the first, last, min and max finite value.
    let mut cols: Vec<Option<(f64, f64, f64, f64)>> = vec![None; pw];
    each_value(src, |i, v| {
        if !v.is_finite() {
            return;
        }
        let x = if n > 1 {
            i * (pw - 1) / (n - 1)
        } else {
            pw / 2
        };
        cols[x] = Some(match cols[x] {
            None => (v, v, v, v),
            Some((f, _, a, b)) => (f, v, a.min(v), b.max(v)),
        });
    })?;
    // Each column's range, joined to the previous column with values by a straight line.
    let mut prev: Option<(usize, f64)> = None;
    for (x, col) in cols.iter().enumerate() {
        if let Some((first, last, min, max)) = *col {
            if let Some((px, p)) = prev {
                c.line((LEFT + px, y_of(p)), (LEFT + x, y_of(first)), LINE);
            }
            c.vline(LEFT + x, y_of(min), y_of(max), LINE);
            prev = Some((x, last));
        }
    }
    axes(
        c,
        RIGHT,
        (0.0, (n - 1).max(1) as f64),
        (lo, hi),
        "index",
        "value",
        false,
    );
    Ok(())
}

/// numpy's `histogram(a, bins)` counts over [lo, hi] (the last bin closed).
pub fn bin_of(v: f64, lo: f64, hi: f64, bins: usize) -> usize {
    if hi <= lo {
        return 0;
    }
    (((v - lo) / (hi - lo) * bins as f64) as usize).min(bins - 1)
}

fn hist(c: &mut Canvas, src: &ArraySource, lo: f64, hi: f64, bins: usize) -> Res<()> {
    let mut counts = vec![0u64; bins];
    each_value(src, |_, v| {
        if v.is_finite() {
            counts[bin_of(v, lo, hi, bins)] += 1;
        }
    })?;
    let max = counts.iter().copied().max().unwrap_or(1).max(1);
    let pw = (RIGHT - LEFT) as f64;
    let h = (BOTTOM - TOP) as f64;
    for (b, &n) in counts.iter().enumerate() {
        let x0 = LEFT + (b as f64 * pw / bins as f64).round() as usize;
        let x1 = LEFT + ((b + 1) as f64 * pw / bins as f64).round() as usize;
        let top = BOTTOM - (n as f64 / max as f64 * h).round() as usize;
        c.rect(x0, top, x1.max(x0 + 1), BOTTOM, LINE);
        // A white edge between bars.
        if x1 > x0 + 2 {
            c.rect(x1 - 1, top, x1, BOTTOM, WHITE);
        }
    }
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    axes(
        c,
        RIGHT,
        (lo, hi),
        (0.0, max as f64),
        "value",
        "count",
        false,
    );
    Ok(())
}
