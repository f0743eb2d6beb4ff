//! Memory maps and out-of-core cases: `mmap_sum`, `view_create`, `append`, `rows`.
//!
//! As in cases.rs, each implementation is a closure that times only the operation and, when
//! asked to `check`, verifies its result. Cases that print several tables (`view_create`,
//! `rows`) run all their implementations in one interleaved measurement and split the
//! results by table afterwards, so every table saw the same machine conditions.

use crate::cases::{base, base_sum, path_str, remove_if_exists, Cleanup};
use crate::cases::{NDARRAY_NPY, NDNPY, NUMPY, RAW};
use crate::numpy::Numpy;
use crate::{fmt_micros, median_secs, Config, Goal, Imp, Report, Res};
use ndarray::{s, Array2, ArrayView2, Axis, Ix2};
use std::cell::RefCell;
use std::fs::File;
use std::hint::black_box;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Results of one measurement, in implementation order.
type Rows = Vec<(&'static str, Vec<Duration>)>;

/// Splits `rows` into consecutive tables of `sizes[i]` rows each.
fn split_rows(mut rows: Rows, sizes: &[usize]) -> Vec<Rows> {
    let mut out = Vec::with_capacity(sizes.len());
    for &n in sizes {
        let rest = rows.split_off(n);
        out.push(rows);
        rows = rest;
    }
    out
}

/// The median of the row named `name`, in seconds.
fn median_of(rows: &Rows, name: &str) -> f64 {
    rows.iter()
        .find(|r| r.0 == name)
        .map_or(f64::NAN, |r| median_secs(&r.1))
}

/// Length in bytes of the data of a `rows` x `cols` f64 file, and the offset where it starts
/// (the file's length minus the data: np.save writes nothing after the data).
fn data_offset(path: &Path, rows: usize, cols: usize) -> Res<(usize, usize)> {
    let file_len = usize::try_from(std::fs::metadata(path)?.len())?;
    let nbytes = rows * cols * 8;
    let offset = file_len
        .checked_sub(nbytes)
        .ok_or_else(|| format!("{}: shorter than its data", path.display()))?;
    Ok((nbytes, offset))
}

/// Sum of the native-endian f64s in `bytes`, without `unsafe`: eight accumulators over 64-byte
/// chunks (the shape of ndarray's unrolled `sum`), which the compiler vectorizes.
fn sum_f64_bytes(bytes: &[u8]) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = bytes.chunks_exact(64);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, c) in acc.iter_mut().zip(chunk.chunks_exact(8)) {
            *a += f64::from_ne_bytes(c.try_into().expect("8 bytes"));
        }
    }
    let mut sum = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for c in rest.chunks_exact(8) {
        sum += f64::from_ne_bytes(c.try_into().expect("8 bytes"));
    }
    sum
}

fn check_sum(who: &str, got: f64, expected: f64) -> Res<()> {
    if got != expected {
        return Err(format!("{who}: sum {got} differs from the expected {expected}").into());
    }
    Ok(())
}

/// Checks a view of `base(rows, cols)`: shape, layout, corners and the sum of all elements.
fn check_view(who: &str, v: &ArrayView2<f64>, rows: usize, cols: usize) -> Res<()> {
    let last = (rows * cols - 1) as f64 * 0.5;
    if v.dim() != (rows, cols)
        || !v.is_standard_layout()
        || v[[0, 1]] != 0.5
        || v[[rows - 1, cols - 1]] != last
    {
        return Err(format!("{who}: the view differs from the expected array").into());
    }
    check_sum(who, v.sum(), base_sum(rows * cols))
}

pub fn mmap_sum_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    let (rows, cols) = cfg.shape2();
    let path = cfg.dir.join("mmap_sum.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("gen {p} c {rows} {cols}"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let (nbytes, offset) = data_offset(&path, rows, cols)?;
    let sum = base_sum(rows * cols);

    let path = path.as_path();
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            // SAFETY: nothing modifies the file while it is mapped (the benchmark owns it).
            let map = unsafe { ndnpy::NpyMmap::open(path)? };
            let s = map.view::<f64, Ix2>()?.sum();
            drop(map);
            let d = t.elapsed();
            if check {
                check_sum(NDNPY, s, sum)?;
            }
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            let file = File::open(path)?;
            // SAFETY: as above.
            let map = unsafe { memmap2::Mmap::map(&file)? };
            let s = <ArrayView2<f64> as ndarray_npy::ViewNpyExt>::view_npy(&map)?.sum();
            drop(map);
            drop(file);
            let d = t.elapsed();
            if check {
                check_sum(NDARRAY_NPY, s, sum)?;
            }
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let d = np.timed(&format!("mmap_sum {p}"))?;
            if check {
                np.check_sum(&format!("mmap_check {p}"), sum)?;
            }
            Ok(d)
        }),
        Imp::new(RAW, move |check| {
            let t = Instant::now();
            let file = File::open(path)?;
            // SAFETY: as above.
            let map = unsafe { memmap2::Mmap::map(&file)? };
            let s = sum_f64_bytes(&map[offset..]);
            drop(map);
            drop(file);
            let d = t.elapsed();
            if check {
                check_sum(RAW, s, sum)?;
            }
            Ok(d)
        }),
    ];
    let rows_out = crate::measure(imps, cfg.rounds)?;
    Ok(Report {
        title: format!(
            "mmap_sum: map + view + sum of {} MiB f64, shape ({rows}, {cols}), C order",
            cfg.size_mib
        ),
        bytes: Some(nbytes as u64),
        rows: rows_out,
        targets: vec![(NUMPY, 1.0)],
        notes: vec![
            format!(
                "File written by np.save, {file_len} bytes; page cache warm. Every run opens and \
                 maps the file afresh, faults the mapping in while summing, and unmaps it: all \
                 inside the timer, for everyone. ndnpy: `NpyMmap::open(path)` + \
                 `.view::<f64, Ix2>()` + `.sum()`; ndarray-npy: `memmap2::Mmap::map(&File)` + \
                 `ArrayView2::<f64>::view_npy(&map)` + `.sum()`; numpy: \
                 `np.load(path, mmap_mode='r').sum()`; raw floor: `memmap2::Mmap::map` + a safe \
                 sum of the bytes after the header (offset known in advance, {offset} bytes) with \
                 `f64::from_ne_bytes` over 64-byte chunks into 8 accumulators, vectorized like \
                 ndarray's sum. npyz has no zero-copy view: omitted."
            ),
            "All sums are exact (multiples of 0.5 below 2^53), so every summation order gives \
             the same value and each is compared with it exactly."
                .to_string(),
        ],
        ..Report::default()
    })
}

pub fn view_create_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    const OPEN_VIEW: &str = "ndnpy NpyMmap::open + view";
    let count = if cfg.quick { 2_000 } else { 10_000 };
    let (rows, cols) = cfg.shape2();
    let files = [
        (cfg.dir.join("view_big.npy"), rows, cols),
        (cfg.dir.join("view_1mib.npy"), 16, 8192),
    ];
    let _cleanup = Cleanup(files.iter().map(|f| f.0.clone()).collect());
    let np = RefCell::new(np);
    let mut maps = Vec::new();
    for (path, r, c) in &files {
        np.borrow_mut()
            .ok(&format!("gen {} c {r} {c}", path_str(path)?))?;
        let file = File::open(path)?;
        // SAFETY: nothing modifies the file while it is mapped (the benchmark owns it).
        maps.push(unsafe { memmap2::Mmap::map(&file)? });
    }

    let mut imps = Vec::new();
    for ((path, rows, cols), map) in files.iter().zip(&maps) {
        let (path, rows, cols, map) = (path.as_path(), *rows, *cols, &map[..]);
        let p = path_str(path)?;
        let np = &np;
        imps.push(Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            for _ in 0..count {
                let v = <ArrayView2<f64> as ndnpy::ViewNpyExt>::view_npy(black_box(map))?;
                black_box(v);
            }
            let d = t.elapsed();
            if check {
                let v = <ArrayView2<f64> as ndnpy::ViewNpyExt>::view_npy(map)?;
                check_view(NDNPY, &v, rows, cols)?;
            }
            Ok(d)
        }));
        imps.push(Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            for _ in 0..count {
                let v = <ArrayView2<f64> as ndarray_npy::ViewNpyExt>::view_npy(black_box(map))?;
                black_box(v);
            }
            let d = t.elapsed();
            if check {
                let v = <ArrayView2<f64> as ndarray_npy::ViewNpyExt>::view_npy(map)?;
                check_view(NDARRAY_NPY, &v, rows, cols)?;
            }
            Ok(d)
        }));
        imps.push(Imp::new(OPEN_VIEW, move |check| {
            let t = Instant::now();
            for _ in 0..count {
                // SAFETY: as above.
                let m = unsafe { ndnpy::NpyMmap::open(black_box(path))? };
                black_box(m.view::<f64, Ix2>()?);
            }
            let d = t.elapsed();
            if check {
                // SAFETY: as above.
                let m = unsafe { ndnpy::NpyMmap::open(path)? };
                check_view(OPEN_VIEW, &m.view::<f64, Ix2>()?, rows, cols)?;
            }
            Ok(d)
        }));
        imps.push(Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("view_many {p} {count}"))?;
            if check {
                np.check_sum(&format!("mmap_check {p}"), base_sum(rows * cols))?;
            }
            Ok(d)
        }));
    }
    let all = crate::measure(imps, cfg.rounds)?;
    let tables = split_rows(all, &[4, 4]);
    let per_view = |t: &Rows| median_of(t, NDNPY) / count as f64;
    let (big_us, small_us) = (per_view(&tables[0]) * 1e6, per_view(&tables[1]) * 1e6);

    let note = format!(
        "Each run creates {count} views (the table gives the time per run and per view). \
         ndnpy: `ArrayView2::<f64>::view_npy(&map)` (`ndnpy::ViewNpyExt`) and ndarray-npy: \
         `ArrayView2::<f64>::view_npy(&map)` (`ndarray_npy::ViewNpyExt`), on one \
         `memmap2::Mmap` made before the timer: the header parse and checks, nothing else. \
         {OPEN_VIEW}: `NpyMmap::open(path)` + `.view::<f64, Ix2>()`, the map dropped at once: \
         includes open, mmap, munmap and close, like numpy's row. numpy: \
         `np.load(path, mmap_mode='r')` per view (its open + mmap + header parse; each memmap \
         is unmapped when the next replaces it). npyz has no views: omitted. Checked in the \
         warm-up round: shape, corners and the sum of the last view."
    );
    let mut reports = Vec::new();
    for (k, rows_out) in tables.into_iter().enumerate() {
        let (us, size) = if k == 0 {
            (big_us, format!("{} MiB", cfg.size_mib))
        } else {
            (small_us, "1 MiB".to_string())
        };
        let (r, c) = (files[k].1, files[k].2);
        let mut notes = vec![note.clone()];
        if k == 1 {
            notes.push(format!(
                "Independent of size: ndnpy `view_npy` takes {} µs per view of the {} MiB \
                 file and {} µs per view of the 1 MiB file: ratio {:.2}x (the same 128-byte \
                 header; only the header is read).",
                fmt_micros(big_us),
                cfg.size_mib,
                fmt_micros(small_us),
                big_us / small_us
            ));
        }
        reports.push(Report {
            title: format!("view_create: view of a mapped {size} f64 file, shape ({r}, {c})"),
            items: Some(count),
            per: "view",
            rows: rows_out,
            goals: vec![Goal {
                text: format!(
                    "ndnpy {} µs per view of the {size} file (target ≤ 5 µs)",
                    fmt_micros(us)
                ),
                met: us <= 5.0,
            }],
            notes,
            ..Report::default()
        });
    }
    Ok(reports)
}

pub fn append_case(cfg: &Config) -> Res<Report> {
    const COLS: usize = 1024;
    const BLOCK_ROWS: usize = 128; // 128 x 1024 f64 = 1 MiB
    const DISTINCT: usize = 16; // distinct blocks, cycled
    let nblocks = cfg.big_mib();
    let total_rows = nblocks * BLOCK_ROWS;
    // Block k of the file is block k % 16 of `src`, so row r of the file is row r % 2048.
    let src = base(DISTINCT * BLOCK_ROWS, COLS);
    let blocks: Vec<ArrayView2<f64>> = src.axis_chunks_iter(Axis(0), BLOCK_ROWS).collect();
    let raw_blocks: Vec<Vec<u8>> = blocks
        .iter()
        .map(|b| b.iter().flat_map(|x| x.to_ne_bytes()).collect())
        .collect();
    let p_ndnpy = cfg.dir.join("append_ndnpy.npy");
    let p_raw = cfg.dir.join("append_raw.bin");
    let _cleanup = Cleanup(vec![p_ndnpy.clone(), p_raw.clone()]);
    let mut create_times = Vec::new();

    let (blocks, raw_blocks, src) = (&blocks, &raw_blocks, &src);
    let (p_ndnpy, p_raw) = (p_ndnpy.as_path(), p_raw.as_path());
    let created = &mut create_times;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            remove_if_exists(p_ndnpy)?;
            let t = Instant::now();
            let mut app = ndnpy::NpyAppender::<f64>::create(p_ndnpy, (0, COLS), false)?;
            let t_create = t.elapsed();
            for k in 0..nblocks {
                app.append(&blocks[k % DISTINCT])?;
            }
            let shape = app.shape().to_vec();
            drop(app);
            let d = t.elapsed();
            created.push(t_create);
            if check {
                if shape != [total_rows, COLS] {
                    return Err(format!("ndnpy: appender shape {shape:?}").into());
                }
                // Read back with ndarray-npy, an independent reader.
                let back: Array2<f64> = ndarray_npy::read_npy(p_ndnpy)?;
                let ok = back.dim() == (total_rows, COLS)
                    && back
                        .axis_chunks_iter(Axis(0), src.nrows())
                        .all(|c| c == src.slice(s![..c.nrows(), ..]));
                if !ok {
                    return Err("ndnpy: appended file does not read back as the blocks".into());
                }
            }
            Ok(d)
        }),
        Imp::new(RAW, move |check| {
            remove_if_exists(p_raw)?;
            let t = Instant::now();
            let mut f = File::create(p_raw)?;
            for k in 0..nblocks {
                f.write_all(&raw_blocks[k % DISTINCT])?;
            }
            drop(f);
            let d = t.elapsed();
            if check && std::fs::metadata(p_raw)?.len() != (nblocks as u64) << 20 {
                return Err("raw floor: short write".into());
            }
            Ok(d)
        }),
    ];
    let rows_out = crate::measure(imps, cfg.rounds)?;
    // The warm-up run is the first entry.
    let create_median = median_secs(&create_times[1..]);
    let without_create = (median_of(&rows_out, NDNPY) - create_median) / median_of(&rows_out, RAW);
    Ok(Report {
        title: format!(
            "append: grow a file to {} MiB in 1 MiB blocks of f64 rows, shape (rows, {COLS}) \
             + {BLOCK_ROWS} rows per block",
            cfg.big_mib()
        ),
        bytes: Some((nblocks as u64) << 20),
        items: Some(nblocks),
        per: "block",
        rows: rows_out,
        targets: vec![(RAW, 1.1)],
        notes: vec![
            format!(
                "Each run writes a new file in {} ({nblocks} blocks of {BLOCK_ROWS} x {COLS} \
                 f64, 16 distinct blocks cycled, all made before the timer); the previous run's \
                 file is deleted before the timer starts; closing the file is timed. No fsync \
                 (`durable` false): this measures writing into the page cache. ndnpy: \
                 `NpyAppender::<f64>::create(path, (0, {COLS}), false)` + `append(&block)` per \
                 block (each append: seek, one write of the block after the data, seek to 0, \
                 one write of the 128-byte header with the new shape); raw floor: \
                 `File::create` + `write_all` of the same 1 MiB blocks as bytes. numpy, \
                 ndarray-npy and npyz have no appending: omitted.",
                cfg.dir.display()
            ),
            format!(
                "Of ndnpy's time, `NpyAppender::create` (header written to a temporary file, \
                 renamed into place, not fsynced) takes a median {}; \
                 without it ndnpy ÷ raw floor would be {without_create:.2}x (difference of \
                 medians). The warm-up run's file was read back with ndarray-npy: shape \
                 ({total_rows}, {COLS}) and every value checked.",
                crate::fmt_secs(create_median)
            ),
        ],
        ..Report::default()
    })
}

const ROW_COLS: usize = 1024; // 8 KiB rows

/// Rows a..b of `base(_, ROW_COLS)`.
fn rows_expected(a: usize, b: usize) -> Array2<f64> {
    Array2::from_shape_fn((b - a, ROW_COLS), |(r, c)| {
        ((a + r) * ROW_COLS + c) as f64 * 0.5
    })
}

/// The exact sum of rows a..b of `base(_, ROW_COLS)`: 0.5 * (lo + ... + hi - 1).
fn rows_sum(a: usize, b: usize) -> f64 {
    let (lo, hi) = ((a * ROW_COLS) as u128, (b * ROW_COLS) as u128);
    // Even, and below 2^54 for files up to 1 GiB, so exact in f64, as is the division.
    let x = hi * hi.saturating_sub(1) - lo * lo.saturating_sub(1);
    x as f64 / 4.0
}

fn verify_rows(who: &str, got: &Array2<f64>, a: usize, b: usize) -> Res<()> {
    if *got != rows_expected(a, b) {
        return Err(format!("{who}: rows {a}..{b} differ from the expected rows").into());
    }
    Ok(())
}

/// The reads of one run: `calls` ranges of `n` rows of a file of `total` rows. Call j reads
/// rows `start(j)..start(j) + n`, stepping through the file from its middle, so that no call
/// finds its rows in the CPU cache from the call before (numpy_worker.py steps the same way).
#[derive(Clone, Copy)]
struct RowReads {
    n: usize,
    total: usize,
    calls: usize,
}

impl RowReads {
    fn start(self, j: usize) -> usize {
        (self.total / 2 - self.n / 2 + j * self.n) % (self.total - self.n)
    }

    /// The range of call j.
    fn range(self, j: usize) -> std::ops::Range<usize> {
        self.start(j)..self.start(j) + self.n
    }
}

/// ndnpy, opening the file for every call: `calls` x open + `NpyReader::new` + `read_rows`.
fn ndnpy_rows_imp<'a>(name: &'static str, path: &'a Path, reads: RowReads) -> Imp<'a> {
    Imp::new(name, move |check| {
        let t = Instant::now();
        for j in 0..reads.calls {
            let mut r = ndnpy::NpyReader::new(File::open(path)?)?;
            black_box(r.read_rows::<f64, Ix2>(reads.range(j))?);
        }
        let d = t.elapsed();
        if check {
            for j in [0, reads.calls - 1] {
                let mut r = ndnpy::NpyReader::new(File::open(path)?)?;
                let ab = reads.range(j);
                verify_rows(name, &r.read_rows(ab.clone())?, ab.start, ab.end)?;
            }
        }
        Ok(d)
    })
}

/// numpy: `calls` x `m[a:b].copy()`, `m` mapped per call (`open`) or once (`kept`).
fn numpy_rows_imp<'a, 'b: 'a>(
    name: &'static str,
    np: &'a RefCell<&'b mut Numpy>,
    p: &'a str,
    reads: RowReads,
    mode: &'static str,
) -> Imp<'a> {
    Imp::new(name, move |check| {
        let RowReads { n, total, calls } = reads;
        let mut np = np.borrow_mut();
        let d = np.timed(&format!("rows_read {p} {n} {total} {calls} {mode}"))?;
        if check {
            for j in [0, calls - 1] {
                let ab = reads.range(j);
                let sum = rows_sum(ab.start, ab.end);
                np.check_sum(&format!("rows_check {p} {} {}", ab.start, ab.end), sum)?;
            }
        }
        Ok(d)
    })
}

pub fn rows_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    const COLS: usize = ROW_COLS;
    const KEPT: &str = "ndnpy, reader kept open";
    const NP_KEPT: &str = "numpy, map kept open";
    const NDNPY_SMALL: &str = "ndnpy, 1 MiB file";
    const NUMPY_SMALL: &str = "numpy, 1 MiB file";
    const RAW_REUSED: &str = "raw floor, reused buffer";
    // (rows per call, calls per run)
    const SIZES: [(usize, usize); 3] = [(1, 1000), (64, 100), (4096, 4)];
    let mib = cfg.big_mib().max(64);
    let total = mib * 128;
    let path = cfg.dir.join("rows.npy");
    let small = cfg.dir.join("rows_1mib.npy");
    let _cleanup = Cleanup(vec![path.clone(), small.clone()]);
    let (p, p_small) = (path_str(&path)?, path_str(&small)?);
    np.ok(&format!("gen {p} c {total} {COLS}"))?;
    np.ok(&format!("gen {p_small} c 128 {COLS}"))?;
    let (_, offset) = data_offset(&path, total, COLS)?;
    let np = RefCell::new(np);

    let mut imps = Vec::new();
    let mut table_sizes = Vec::new();
    for (n, calls) in SIZES {
        let start = imps.len();
        let reads = RowReads { n, total, calls };
        imps.push(ndnpy_rows_imp(NDNPY, &path, reads));
        let mut reader = ndnpy::NpyReader::new(File::open(&path)?)?;
        imps.push(Imp::new(KEPT, move |check| {
            let t = Instant::now();
            for j in 0..calls {
                black_box(reader.read_rows::<f64, Ix2>(reads.range(j))?);
            }
            let d = t.elapsed();
            if check {
                for j in [0, calls - 1] {
                    let ab = reads.range(j);
                    verify_rows(KEPT, &reader.read_rows(ab.clone())?, ab.start, ab.end)?;
                }
            }
            Ok(d)
        }));
        imps.push(numpy_rows_imp(NUMPY, &np, p, reads, "open"));
        imps.push(numpy_rows_imp(NP_KEPT, &np, p, reads, "kept"));
        let mut file = File::open(&path)?;
        let pos = move |j: usize| (offset + reads.start(j) * COLS * 8) as u64;
        imps.push(Imp::new(RAW, move |check| {
            let t = Instant::now();
            for j in 0..calls {
                file.seek(SeekFrom::Start(pos(j)))?;
                let mut buf = vec![0u8; n * COLS * 8];
                file.read_exact(&mut buf)?;
                black_box(buf);
            }
            let d = t.elapsed();
            if check {
                for j in [0, calls - 1] {
                    file.seek(SeekFrom::Start(pos(j)))?;
                    let mut buf = vec![0u8; n * COLS * 8];
                    file.read_exact(&mut buf)?;
                    let ab = reads.range(j);
                    let want: Vec<u8> = rows_expected(ab.start, ab.end)
                        .iter()
                        .flat_map(|x| x.to_ne_bytes())
                        .collect();
                    if buf != want {
                        return Err("raw floor: bytes differ from the expected rows".into());
                    }
                }
            }
            Ok(d)
        }));
        let mut file = File::open(&path)?;
        let mut buf = vec![0u8; n * COLS * 8];
        imps.push(Imp::new(RAW_REUSED, move |check| {
            let t = Instant::now();
            for j in 0..calls {
                file.seek(SeekFrom::Start(pos(j)))?;
                file.read_exact(&mut buf)?;
                black_box(&buf);
            }
            let d = t.elapsed();
            if check {
                let ab = reads.range(calls - 1);
                let want: Vec<u8> = rows_expected(ab.start, ab.end)
                    .iter()
                    .flat_map(|x| x.to_ne_bytes())
                    .collect();
                if buf != want {
                    return Err("raw floor: bytes differ from the expected rows".into());
                }
            }
            Ok(d)
        }));
        if n == 1 {
            let small_reads = RowReads {
                total: 128,
                ..reads
            };
            imps.push(ndnpy_rows_imp(NDNPY_SMALL, &small, small_reads));
            imps.push(numpy_rows_imp(
                NUMPY_SMALL,
                &np,
                p_small,
                small_reads,
                "open",
            ));
        }
        table_sizes.push(imps.len() - start);
    }
    let all = crate::measure(imps, cfg.rounds)?;
    np.borrow_mut().ok("forget")?;
    let tables = split_rows(all, &table_sizes);

    // Per-call medians, in µs, by table and implementation.
    let per_call = |k: usize, name: &str| median_of(&tables[k], name) / SIZES[k].1 as f64 * 1e6;
    let mut scaling = String::from(
        "Scaling (median µs per call):\n\n\
         | implementation | 1 row (8 KiB) | 64 rows (512 KiB) | 4096 rows (32 MiB) | \
         4096 ÷ 64 rows (≈ 64 if proportional) | 64 ÷ 1 row |\n|---|---:|---:|---:|---:|---:|",
    );
    for name in [NDNPY, KEPT, NUMPY, NP_KEPT, RAW, RAW_REUSED] {
        let t: Vec<f64> = (0..3).map(|k| per_call(k, name)).collect();
        scaling.push_str(&format!(
            "\n| {name} | {} | {} | {} | {:.1}x | {:.1}x |",
            fmt_micros(t[0]),
            fmt_micros(t[1]),
            fmt_micros(t[2]),
            t[2] / t[1],
            t[1] / t[0]
        ));
    }
    let ratio = per_call(2, NDNPY) / per_call(1, NDNPY);
    let (one_big, one_small) = (per_call(0, NDNPY), per_call(0, NDNPY_SMALL));

    let note = format!(
        "File written by np.save: {mib} MiB, shape ({total}, {COLS}) f64, C order; page cache \
         warm. Each run makes its calls on successive ranges of n rows starting in the middle \
         (call j reads from a = ({total}/2 - n/2 + j*n) mod ({total} - n)), the same ranges \
         for everyone, so a call does not find its rows in the CPU cache from the call before \
         (the file is in the page cache; the rows are not in L2/L3). ndnpy: \
         `NpyReader::new(File::open(path)?)?.read_rows::<f64, Ix2>(a..b)` per call (open + \
         header parse + read, the same work as numpy's call); {KEPT}: `read_rows` on one \
         `NpyReader<File>` made before the timer; numpy: \
         `np.load(path, mmap_mode='r')[a:b].copy()` per call; {NP_KEPT}: `m[a:b].copy()` on \
         one memmap made before the timer; raw floor: `seek` + `read_exact` of the rows' bytes \
         into a fresh `vec![0u8; len]` on a `File` kept open; {RAW_REUSED}: the same into one \
         buffer allocated before the timer (moving the bytes, nothing else). ndarray-npy and \
         npyz have no partial reads: omitted. Results checked in the warm-up round (Rust: \
         element by element; numpy: `array_equal` in the worker and the exact sum)."
    );
    let mut reports = Vec::new();
    for (k, rows_out) in tables.into_iter().enumerate() {
        let (n, calls) = SIZES[k];
        let mut notes = vec![note.clone()];
        if k == 0 {
            notes.push(format!(
                "{NDNPY_SMALL} / {NUMPY_SMALL}: the same calls on a 1 MiB file (128 rows, from \
                 row 64 on). Independent of the file size: ndnpy takes {} µs per 1-row call on \
                 the {mib} MiB file and {} µs on the 1 MiB file, ratio {:.2}x (expected ≈ 1).",
                fmt_micros(one_big),
                fmt_micros(one_small),
                one_big / one_small
            ));
        }
        if k == 2 {
            notes.push(scaling.clone());
            notes.push(format!(
                "Scales with b - a: ndnpy time(4096 rows) ÷ time(64 rows) = {ratio:.1}x (64x if \
                 the cost per byte were the same). Readers with a small cost per call land \
                 above 64, ndnpy and numpy alike, because a 512 KiB result reuses memory the \
                 allocator just freed (hot in the cache), while every 32 MiB result is fresh \
                 memory from the kernel (glibc's mmap threshold stops at 32 MiB), faulted in and \
                 zeroed on each call, which costs about as much again as reading the bytes; \
                 the reused-buffer row moves the bytes alone. numpy's per-call row lands lower \
                 because its fixed cost per call (the 1-row time) is a large part of its \
                 64-row time."
            ));
        }
        let bytes = n * COLS * 8;
        reports.push(Report {
            title: format!(
                "rows: read {n} row{} ({}) from the middle of a {mib} MiB f64 file, {calls} \
                 calls per run",
                if n == 1 { "" } else { "s" },
                if bytes >= 1 << 20 {
                    format!("{} MiB", bytes >> 20)
                } else {
                    format!("{} KiB", bytes >> 10)
                }
            ),
            bytes: Some((bytes * calls) as u64),
            items: Some(calls),
            per: "call",
            rows: rows_out,
            notes,
            ..Report::default()
        });
    }
    Ok(reports)
}
