//! Case `into`: many files of one shape read into one buffer the caller owns
//! (`ndnpy::read_npy_into`, `NpyReader::read_into`, `NpyReader::read_slice_into`) against an
//! allocating read per file (`ndnpy::read_npy`, `NpyReader::read_slice`, ndarray-npy's
//! `read_npy`) and numpy's `np.load` per file (`np.load(p, mmap_mode='r')[a:b].copy()` for
//! the region): 100,000 files of (64, 128) float64, 64 KiB of data each (10,000 with
//! `--quick`, or `--files N`). Peak resident memory over a whole pass is measured in a child
//! process per door (`--child-into MODE DIR COUNT`), since a process's peak only grows. Then
//! the other doors into a buffer, each against its allocating read and numpy: a `File`, a
//! `BufReader<File>`, bytes in memory, stored and deflated `.npz` members (the first 1,000
//! files' arrays).

use crate::cases::{NDNPY, NUMPY};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{s, Array2};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ROWS: usize = 64;
const COLS: usize = 128;
/// The rows the region rows read: 16 KiB of each file.
const REGION: (usize, usize) = (16, 32);

const ALLOC: &str = "ndnpy read_npy, an array per file";
const READER_INTO: &str = "ndnpy NpyReader::read_into (File)";
const PEER: &str = "ndarray-npy 0.10 read_npy, an array per file";
const SLICE_ALLOC: &str = "ndnpy NpyReader::read_slice, an array per file";

/// File `i`: element `j` in C order is `i + j / 2` (exact in f64), so its first is `i`.
fn file_array(i: usize) -> Array2<f64> {
    Array2::from_shape_fn((ROWS, COLS), |(r, c)| {
        i as f64 + (r * COLS + c) as f64 * 0.5
    })
}

fn file_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("{i}.npy"))
}

/// Writes the `count` files into `dir` unless a marker says an earlier run did.
fn ensure_files(dir: &Path, count: usize) -> Res<()> {
    let marker = dir.join(format!("complete-{count}"));
    if marker.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    for i in 0..count {
        ndnpy::write_npy(file_path(dir, i), &file_array(i))?;
    }
    std::fs::write(marker, b"")?;
    Ok(())
}

/// Checks that `a` is file `i`'s array, or its rows `REGION` when `region`.
fn check(a: &ndarray::ArrayView2<'_, f64>, i: usize, region: bool) -> Res<()> {
    let first = if region { REGION.0 * COLS } else { 0 };
    let rows = if region { REGION.1 - REGION.0 } else { ROWS };
    let ok = a.shape() == [rows, COLS]
        && a.iter()
            .enumerate()
            .all(|(j, &x)| x == i as f64 + (first + j) as f64 * 0.5);
    if ok {
        Ok(())
    } else {
        Err(format!("file {i} read wrong").into())
    }
}

/// Reads every file of `paths` through `read` (which gets the file's index and path),
/// checking each result when `checking`; returns the time of the whole pass.
fn pass(
    paths: &[PathBuf],
    checking: bool,
    mut read: impl FnMut(usize, &Path, bool) -> Res<()>,
) -> Res<std::time::Duration> {
    let t = Instant::now();
    for (i, p) in paths.iter().enumerate() {
        read(i, p, checking)?;
    }
    Ok(t.elapsed())
}

/// One read of file `i` by `mode` into `buffer` (or a new array), checked when asked.
fn read_one(mode: &str, buffer: &mut Array2<f64>, i: usize, p: &Path, checking: bool) -> Res<()> {
    let region = s![REGION.0..REGION.1, ..];
    match mode {
        "into" => {
            ndnpy::read_npy_into(p, buffer.view_mut())?;
            if checking {
                check(&buffer.view(), i, false)?;
            }
        }
        "alloc" => {
            let a: Array2<f64> = ndnpy::read_npy(p)?;
            if checking {
                check(&a.view(), i, false)?;
            }
            black_box(a);
        }
        "reader_into" => {
            ndnpy::NpyReader::new(std::fs::File::open(p)?)?.read_into(buffer.view_mut())?;
            if checking {
                check(&buffer.view(), i, false)?;
            }
        }
        "peer" => {
            let a: Array2<f64> = ndarray_npy::read_npy(p)?;
            if checking {
                check(&a.view(), i, false)?;
            }
            black_box(a);
        }
        "slice_into" => {
            let mut rows = buffer.slice_mut(s![..REGION.1 - REGION.0, ..]);
            let mut npy = ndnpy::NpyReader::new(std::fs::File::open(p)?)?;
            npy.read_slice_into(region, rows.view_mut())?;
            if checking {
                check(&rows.view(), i, true)?;
            }
        }
        "slice_alloc" => {
            let mut npy = ndnpy::NpyReader::new(std::fs::File::open(p)?)?;
            let a: Array2<f64> = npy.read_slice(region)?;
            if checking {
                check(&a.view(), i, true)?;
            }
            black_box(a);
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    black_box(&buffer);
    Ok(())
}

/// `--child-into MODE DIR COUNT`: reads file 0 once, then all `COUNT` files by `MODE`, and
/// prints the peak resident memory (VmHWM, KiB) after the first read and after the pass.
pub fn child_into(mode: &str, dir: &Path, count: usize) -> Res<()> {
    let mut buffer = Array2::<f64>::zeros((ROWS, COLS));
    let paths: Vec<PathBuf> = (0..count).map(|i| file_path(dir, i)).collect();
    read_one(mode, &mut buffer, 0, &paths[0], true)?;
    let before = crate::vm_hwm_kib()?;
    pass(&paths, false, |i, p, c| {
        read_one(mode, &mut buffer, i, p, c)
    })?;
    let after = crate::vm_hwm_kib()?;
    println!("{before} {after}");
    Ok(())
}

/// The peak-memory note: each mode's growth over a pass, measured in a child process.
fn peak_note(dir: &Path, count: usize) -> String {
    let mut parts = Vec::new();
    for (mode, name) in [
        ("into", "read_npy_into"),
        ("alloc", "read_npy"),
        ("reader_into", "NpyReader::read_into"),
        ("peer", "ndarray-npy read_npy"),
        ("slice_into", "read_slice_into"),
        ("slice_alloc", "read_slice"),
    ] {
        let result = (|| -> Res<(u64, u64)> {
            let out = Command::new(std::env::current_exe()?)
                .args(["--child-into", mode])
                .arg(dir)
                .arg(count.to_string())
                .output()?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
            }
            let text = String::from_utf8(out.stdout)?;
            let mut it = text.split_whitespace().map(str::parse::<u64>);
            match (it.next(), it.next()) {
                (Some(Ok(a)), Some(Ok(b))) => Ok((a, b)),
                _ => Err(format!("unexpected child output {text:?}").into()),
            }
        })();
        parts.push(match result {
            Ok((before, after)) => format!(
                "{name} {:.1} MiB after the first file, {:.1} MiB after all (+{} KiB)",
                before as f64 / 1024.0,
                after as f64 / 1024.0,
                after.saturating_sub(before)
            ),
            Err(e) => format!("{name}: not measured ({e})"),
        });
    }
    format!(
        "Peak resident memory (VmHWM) over one pass of all {count} files, each door in its \
         own child process (`--child-into MODE DIR COUNT`): {}.",
        parts.join("; ")
    )
}

pub fn into_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    let count = cfg.files;
    let dir = cfg.dir.join(format!("into-{count}"));
    ensure_files(&dir, count)?;
    let dir_s = dir.to_str().ok_or("non-UTF-8 directory")?.to_string();
    np.check_sum(
        &format!("many_check {dir_s} {count}"),
        (count * count.saturating_sub(1) / 2) as f64,
    )?;
    let np = std::cell::RefCell::new(np);
    let paths: Vec<PathBuf> = (0..count).map(|i| file_path(&dir, i)).collect();
    // Each row its own buffer, made once (the allocating rows leave theirs unused).
    let rust = |mode: &'static str| {
        let mut buffer = Array2::<f64>::zeros((ROWS, COLS));
        let paths = &paths;
        move |checking: bool| {
            pass(paths, checking, |i, p, c| {
                read_one(mode, &mut buffer, i, p, c)
            })
        }
    };
    let whole = vec![
        Imp::new(NDNPY, rust("into")),
        Imp::new(ALLOC, rust("alloc")),
        Imp::new(READER_INTO, rust("reader_into")),
        Imp::new(PEER, rust("peer")),
        Imp::new(NUMPY, |_| {
            np.borrow_mut().timed(&format!("many_load {dir_s} {count}"))
        }),
    ];
    let rows = crate::measure(whole, cfg.rounds)?;
    let (a, b) = REGION;
    let region = vec![
        Imp::new(NDNPY, rust("slice_into")),
        Imp::new(SLICE_ALLOC, rust("slice_alloc")),
        Imp::new(NUMPY, |_| {
            np.borrow_mut()
                .timed(&format!("many_region {dir_s} {count} {a} {b}"))
        }),
    ];
    let region_rows = crate::measure(region, cfg.rounds)?;
    let note = peak_note(&dir, count);
    let doors = door_reports(cfg, &np, &dir, &paths)?;
    let mut reports = vec![
        Report {
            title: format!(
                "Many files into one buffer: {count} files of (64, 128) f8 (64 KiB), \
                 ndnpy = read_npy_into (a path) into one Array2"
            ),
            bytes: Some((count * ROWS * COLS * 8) as u64),
            items: Some(count),
            per: "file",
            rows,
            targets: vec![(ALLOC, 1.0), (NUMPY, 1.0)],
            goals: Vec::new(),
            notes: vec![note],
        },
        Report {
            title: format!(
                "Many files, a region into one buffer: rows {a}..{b} (16 KiB) of each of the \
                 {count} files, ndnpy = NpyReader::read_slice_into"
            ),
            bytes: Some((count * (b - a) * COLS * 8) as u64),
            items: Some(count),
            per: "file",
            rows: region_rows,
            targets: vec![(SLICE_ALLOC, 1.0), (NUMPY, 1.0)],
            goals: Vec::new(),
            notes: Vec::new(),
        },
    ];
    reports.extend(doors);
    Ok(reports)
}

/// The doors tables read the first this many files (64 MiB), or every file when fewer.
const DOOR_FILES: usize = 1000;

/// What the doors tables read: the files, their bytes in memory, and the same arrays as the
/// members `a0`, `a1`, ... of a stored and of a deflated archive.
struct DoorData {
    paths: Vec<PathBuf>,
    bytes: Vec<Vec<u8>>,
    names: Vec<String>,
    stored: PathBuf,
    deflated: PathBuf,
}

/// The doors into a buffer besides the path and `NpyReader` (the tables above): each reads
/// the same arrays into one buffer and allocating an array per read, as
/// `(door, into row, allocating row, numpy row's description)`.
const DOORS: [(&str, &str, &str, &str); 5] = [
    (
        "file",
        "ReadOptions::read_into(File)",
        "ndnpy ReadNpyExt::read_npy(File), an array per file",
        "np.load(path)",
    ),
    (
        "bufreader",
        "ReadOptions::read_into(BufReader<File>)",
        "ndnpy ReadNpyExt::read_npy(BufReader<File>), an array per file",
        "np.load(path)",
    ),
    (
        "bytes",
        "ReadOptions::read_into(&[u8])",
        "ndnpy ReadNpyExt::read_npy(&[u8]), an array per file",
        "np.load(io.BytesIO(b))",
    ),
    (
        "stored",
        "NpzMember::read_into (stored members)",
        "ndnpy NpzReader::by_name, an array per member (stored)",
        "np.load(npz)[name] for each member",
    ),
    (
        "deflated",
        "NpzMember::read_into (deflated members)",
        "ndnpy NpzReader::by_name, an array per member (deflated)",
        "np.load(npz)[name] for each member",
    ),
];

/// One pass over the door's arrays, into `buffer` or allocating, checked when asked.
fn door_pass(
    door: &str,
    into: bool,
    data: &DoorData,
    buffer: &mut Array2<f64>,
    checking: bool,
) -> Res<std::time::Duration> {
    use ndnpy::ReadNpyExt;
    let opts = ndnpy::ReadOptions::new();
    let t = Instant::now();
    // Array `i`, read into `buffer` or allocated as `a`, checked when asked.
    let one = |i: usize, a: Option<Array2<f64>>, buffer: &Array2<f64>| -> Res<()> {
        if checking {
            check(&a.as_ref().unwrap_or(buffer).view(), i, false)?;
        }
        black_box(a);
        Ok(())
    };
    match door {
        "file" | "bufreader" => {
            for (i, p) in data.paths.iter().enumerate() {
                let file = std::fs::File::open(p)?;
                let a = match (door, into) {
                    ("file", true) => opts.read_into(file, buffer.view_mut()).map(|()| None)?,
                    ("file", false) => Some(Array2::<f64>::read_npy(file)?),
                    (_, true) => opts
                        .read_into(std::io::BufReader::new(file), buffer.view_mut())
                        .map(|()| None)?,
                    (_, false) => Some(Array2::<f64>::read_npy(std::io::BufReader::new(file))?),
                };
                one(i, a, buffer)?;
            }
        }
        "bytes" => {
            for (i, b) in data.bytes.iter().enumerate() {
                let a = if into {
                    opts.read_into(&b[..], buffer.view_mut())?;
                    None
                } else {
                    Some(Array2::<f64>::read_npy(&b[..])?)
                };
                one(i, a, buffer)?;
            }
        }
        _ => {
            let path = if door == "stored" {
                &data.stored
            } else {
                &data.deflated
            };
            let mut npz = ndnpy::NpzReader::new(std::fs::File::open(path)?)?;
            for (i, name) in data.names.iter().enumerate() {
                let a = if into {
                    npz.member(name)?.read_into(buffer.view_mut())?;
                    None
                } else {
                    Some(npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>(name)?)
                };
                one(i, a, buffer)?;
            }
        }
    }
    Ok(t.elapsed())
}

/// A table per door: into one buffer, allocating per array, numpy.
fn door_reports(
    cfg: &Config,
    np: &std::cell::RefCell<&mut Numpy>,
    dir: &Path,
    paths: &[PathBuf],
) -> Res<Vec<Report>> {
    let n = paths.len().min(DOOR_FILES);
    let stored = cfg.dir.join("into-doors-stored.npz");
    let deflated = cfg.dir.join("into-doors-deflated.npz");
    let _cleanup = crate::cases::Cleanup(vec![stored.clone(), deflated.clone()]);
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    for (path, compressed) in [(&stored, false), (&deflated, true)] {
        let file = std::io::BufWriter::new(std::fs::File::create(path)?);
        let mut w = if compressed {
            ndnpy::NpzWriter::new_compressed(file)
        } else {
            ndnpy::NpzWriter::new(file)
        };
        for (i, name) in names.iter().enumerate() {
            w.add_array(name.as_str(), &file_array(i))?;
        }
        w.finish()?;
    }
    let data = DoorData {
        paths: paths[..n].to_vec(),
        bytes: paths[..n]
            .iter()
            .map(std::fs::read)
            .collect::<Result<_, _>>()?,
        names,
        stored,
        deflated,
    };
    let dir_s = dir.to_str().ok_or("non-UTF-8 directory")?.to_string();
    let mut reports = Vec::new();
    for (door, into, alloc, numpy_does) in DOORS {
        let data = &data;
        let rust = |into: bool| {
            let mut buffer = Array2::<f64>::zeros((ROWS, COLS));
            move |checking: bool| door_pass(door, into, data, &mut buffer, checking)
        };
        let numpy_cmd = match door {
            "file" | "bufreader" => format!("many_load {dir_s} {n}"),
            "bytes" => format!("many_bytes {dir_s} {n}"),
            "stored" => format!("npz_load_all {}", data.stored.display()),
            _ => format!("npz_load_all {}", data.deflated.display()),
        };
        let imps = vec![
            Imp::new(NDNPY, rust(true)),
            Imp::new(alloc, rust(false)),
            Imp::new(NUMPY, |_| np.borrow_mut().timed(&numpy_cmd)),
        ];
        let rows = crate::measure(imps, cfg.rounds)?;
        reports.push(Report {
            title: format!(
                "Into one buffer by another door: {n} arrays of (64, 128) f8, ndnpy = {into}"
            ),
            bytes: Some((n * ROWS * COLS * 8) as u64),
            items: Some(n),
            per: "array",
            rows,
            targets: vec![(alloc, 1.0), (NUMPY, 1.0)],
            goals: Vec::new(),
            notes: vec![format!(
                "numpy: {numpy_does} for each array; the archives (members a0, a1, ...) were \
                 written by ndnpy's NpzWriter (np.savez's and np.savez_compressed's layout); \
                 each pass opens the archive once."
            )],
        });
    }
    Ok(reports)
}
