//! `ndnpy plot`: the PNG decoded and checked (size, content, axes, values where they land).

mod common;
use common::{fx, ndnpy, numpy, ok};
use std::path::PathBuf;

// The plot area of the 800x600 image (kept in step with `src/plot.rs`).
const LEFT: usize = 90;
const TOP: usize = 40;
const BOTTOM: usize = 540;
const RIGHT: usize = 770;
const RIGHT_BAR: usize = 680;
const VIRIDIS_LOW: [u8; 3] = [68, 1, 84];
const VIRIDIS_HIGH: [u8; 3] = [253, 231, 37];

struct Image {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Image {
    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        let i = 3 * (y * self.w + x);
        [self.px[i], self.px[i + 1], self.px[i + 2]]
    }
}

fn plot(tag: &str, args: &[&str]) -> Image {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("plot-{tag}-{}.png", std::process::id()));
    let o = out.display().to_string();
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", &o]);
    ok(&all);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut px = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut px).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    std::fs::remove_file(&out).unwrap();
    Image {
        w: info.width as usize,
        h: info.height as usize,
        px,
    }
}

fn assert_axes(img: &Image, right: usize) {
    assert_eq!((img.w, img.h), (800, 600));
    for y in TOP..=BOTTOM {
        assert_eq!(img.at(LEFT - 1, y), [0, 0, 0], "y axis at row {y}");
    }
    for x in LEFT - 1..right {
        assert_eq!(img.at(x, BOTTOM), [0, 0, 0], "x axis at column {x}");
    }
    // Tick labels: black text left of the y axis and under the x axis.
    let dark = |x0: usize, x1: usize, y0: usize, y1: usize| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| img.at(x, y) == [0, 0, 0])
            .count()
    };
    assert!(dark(20, LEFT - 8, TOP, BOTTOM) > 20, "no y tick labels");
    assert!(
        dark(LEFT, right, BOTTOM + 8, BOTTOM + 20) > 20,
        "no x tick labels"
    );
    assert!(dark(0, 20, TOP, BOTTOM) > 10, "no y axis label");
    assert!(dark(LEFT, right, 570, 590) > 10, "no x axis label");
    assert!(dark(0, 800, 0, 30) > 50, "no title");
}

#[test]
fn heatmap_puts_each_cell_where_it_belongs() {
    let img = plot("heat", &[&fx("f8.npy")]);
    assert_axes(&img, RIGHT_BAR);
    // f8.npy is [[-1, -0.5, 0], [0.5, 1, 1.5]]: the top-left cell is the lowest colour, the
    // bottom-right the highest; the cells fill the area 2 rows by 3 columns.
    let (cw, ch) = ((RIGHT_BAR - LEFT) / 3, (BOTTOM - TOP) / 2);
    let centre = |r: usize, c: usize| img.at(LEFT + c * cw + cw / 2, TOP + r * ch + ch / 2);
    assert_eq!(centre(0, 0), VIRIDIS_LOW);
    assert_eq!(centre(1, 2), VIRIDIS_HIGH);
    let all: Vec<[u8; 3]> = (0..2)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| centre(r, c))
        .collect();
    let mut distinct = all.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 6, "{all:?}");
    // The colour bar runs from the highest colour at the top to the lowest at the bottom.
    assert_eq!(img.at(RIGHT_BAR + 30, TOP), VIRIDIS_HIGH);
    assert_eq!(img.at(RIGHT_BAR + 30, BOTTOM - 1), VIRIDIS_LOW);
    // A larger, Fortran-order array: values increase along the first axis in storage order.
    let img = plot("heat-f", &[&fx("f4_be_f.npy")]);
    assert_axes(&img, RIGHT_BAR);
}

#[test]
fn histogram_bars_are_numpys_counts() {
    let img = plot(
        "hist",
        &[&fx("big_stats.npy"), "--kind", "hist", "--bins", "20"],
    );
    assert_axes(&img, RIGHT);
    let counts: Vec<f64> = numpy("print(*np.histogram(np.load(D + 'big_stats.npy'), bins=20)[0])")
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    let max = counts.iter().cloned().fold(0.0, f64::max);
    let bar = (RIGHT - LEFT) as f64 / 20.0;
    for (b, n) in counts.iter().enumerate() {
        let x = LEFT + (bar * (b as f64 + 0.4)) as usize;
        let height = (TOP..BOTTOM)
            .rev()
            .take_while(|&y| img.at(x, y) != [255, 255, 255])
            .count();
        let expected = n / max * (BOTTOM - TOP) as f64;
        assert!(
            (height as f64 - expected).abs() <= 1.5,
            "bin {b}: {height} px, numpy's count gives {expected}"
        );
    }
}

#[test]
fn line_plot_spans_the_values() {
    let img = plot("line", &[&fx("f8_wide.npy")]);
    assert_axes(&img, RIGHT);
    // f8_wide is 0, 1/7, ... 29/7, increasing: the line starts at the bottom left and ends at
    // the top right of the plot area.
    let blue = |x: usize, y: usize| img.at(x, y) != [255, 255, 255] && img.at(x, y) != [0, 0, 0];
    assert!(blue(LEFT, BOTTOM - 1), "start");
    assert!(blue(RIGHT - 1, TOP), "end");
    let coloured = (TOP..BOTTOM)
        .flat_map(|y| (LEFT..RIGHT).map(move |x| (x, y)))
        .filter(|&(x, y)| blue(x, y))
        .count();
    assert!(coloured > 600, "{coloured} coloured pixels");
    let img = plot("field", &[&fx("rec_nan.npy"), "--field", "x"]);
    assert_axes(&img, RIGHT);
}

#[test]
fn plot_refuses_what_it_cannot_draw() {
    for (args, code) in [
        (vec![fx("U.npy")], 5),
        (vec![fx("i8_3d.npy")], 2),
        (vec![fx("f8.npy"), "--kind".into(), "line".into()], 2),
        (vec![fx("empty.npy")], 5),
        (vec![fx("f8.npy"), "--bins".into(), "0".into()], 2),
    ] {
        let mut all = vec!["plot".to_string()];
        all.extend(args);
        all.extend(["-o".to_string(), "/nonexistent/x.png".to_string()]);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let r = ndnpy(&all);
        assert_eq!(r.code, code, "{all:?}: {}", r.stderr);
    }
    let r = ndnpy(&["plot", &fx("f8.npy")]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("-o"), "{}", r.stderr);
}
