//! Case `region`: N-d region reads of a 3-D f8 file, by ndnpy (`NpyReader::read_slice` on a
//! `File` opened per call, the same runtime-typed with `read_slice_dyn`, and
//! `NpyMmap::read_slice` on a map opened per call) against
//! numpy's `np.load(p, mmap_mode='r')[sel].copy()`, for the four selections of issue 21: a
//! band of planes, a block of columns, a strided box and one element; and the same file over
//! HTTP on loopback (`scripts/range_server.py`), `NpyReader<RemoteFile>::read_slice` against the
//! floor of the same byte windows fetched by raw ranged GETs, 8 at once.

use crate::cases::{path_str, Cleanup, NDNPY, NUMPY};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{s, ArrayD, SliceInfoElem};
use std::cell::RefCell;
use std::fs::File;
use std::hint::black_box;
use std::time::Instant;

const MMAP: &str = "ndnpy, NpyMmap::read_slice";
const DYN: &str = "ndnpy, NpyReader::read_slice_dyn (any dtype)";

const REMOTE: &str = "ndnpy, NpyReader<RemoteFile>::read_slice (HTTP)";
const FLOOR: &str = "floor: the same windows by raw ranged GETs, 8 at once";
const PREAD: &str = "floor: ndnpy's windows by bare positioned reads";

/// The byte windows (offset from the data's start, length) a local read of selection `k`
/// reads (runs under 4 KiB apart merged): the band whole, a window a column block, a window
/// of 7,176 bytes for each row of the box (its eight elements 1 KiB apart), the element.
fn local_windows(k: usize, planes: usize) -> Vec<(u64, usize)> {
    const PLANE: u64 = 1 << 20;
    match k {
        2 => (0..planes as u64)
            .step_by(10)
            .flat_map(|p| {
                (0..128u64)
                    .step_by(16)
                    .map(move |r| (p * PLANE + r * 8192, 7176))
            })
            .collect(),
        _ => windows(k, planes),
    }
}

/// Opens `path` and reads `wins` (offsets from `data`) by `read_exact_at` into one reused
/// buffer, the second half of them on a second thread when there are 256 or more (as ndnpy
/// splits a selection of that many runs): the system calls and copies of a region read,
/// without its header, gather or new array.
fn pread_windows(path: &std::path::Path, data: u64, wins: &[(u64, usize)]) -> Res<usize> {
    use std::os::unix::fs::FileExt;
    let file = File::open(path)?;
    let read = |wins: &[(u64, usize)]| -> std::io::Result<usize> {
        let most = wins.iter().map(|w| w.1).max().unwrap_or(0);
        let mut buf = vec![0u8; most];
        for &(off, len) in wins {
            file.read_exact_at(&mut buf[..len], data + off)?;
        }
        Ok(black_box(&buf).len())
    };
    if wins.len() < 256 {
        return Ok(read(wins)?);
    }
    let (first, second) = wins.split_at(wins.len() / 2);
    let got = std::thread::scope(|s| {
        let other = s.spawn(|| read(second));
        let here = read(first);
        here.and_then(|a| {
            Ok(a + other
                .join()
                .map_err(|_| std::io::Error::other("panicked"))??)
        })
    })?;
    Ok(got)
}

/// The byte windows (offset from the data's start, length) the remote read of selection `k`
/// fetches with the default options (runs under 256 KiB apart merged): what
/// `tests/remote/http.rs` counts for the 1 GiB file.
fn windows(k: usize, planes: usize) -> Vec<(u64, usize)> {
    const PLANE: u64 = 1 << 20;
    let mid = (planes / 2) as u64;
    match k {
        0 => vec![(mid * PLANE, 4 << 20)],
        1 => (0..planes as u64)
            .map(|p| (p * PLANE + 5 * 8192 + 800, 1024))
            .collect(),
        2 => (0..planes as u64)
            .step_by(10)
            .map(|p| (p * PLANE, 112 * 8192 + 896 * 8 + 8))
            .collect(),
        _ => vec![(mid * PLANE + 100 * 8192 + 8000, 8)],
    }
}

/// Fetches `wins` of `name` by raw ranged GETs, 8 at once, each into a fresh buffer.
fn raw_windows(port: u16, name: &str, data: u64, wins: &[(u64, usize)]) -> Res<usize> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let got = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(off, len)) = wins.get(i) else {
                            return Ok(());
                        };
                        let mut buf = vec![0u8; len];
                        crate::remote::raw_range_into(port, name, data + off, &mut buf)
                            .map_err(|e| e.to_string())?;
                        got.fetch_add(black_box(buf).len(), std::sync::atomic::Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join()
                .map_err(|_| "a floor thread panicked".to_string())??;
        }
        Ok::<(), String>(())
    })?;
    Ok(got.into_inner())
}

/// (name, ndarray selection, numpy's spelling, calls per run)
fn selections(planes: usize) -> Vec<(&'static str, Vec<SliceInfoElem>, String, usize)> {
    let mid = planes / 2;
    vec![
        (
            "band of 4 planes (4 MiB)",
            s![mid..mid + 4, .., ..].as_ref().to_vec(),
            format!("{mid}:{}", mid + 4),
            20,
        ),
        (
            "block of columns (1 KiB runs 1 MiB apart)",
            s![.., 5, 100..228].as_ref().to_vec(),
            ":,5,100:228".into(),
            20,
        ),
        (
            "strided box (every 10th, 16th, 128th)",
            s![..;10, ..;16, ..;128].as_ref().to_vec(),
            "::10,::16,::128".into(),
            20,
        ),
        (
            "one element",
            s![mid, 100, 1000].as_ref().to_vec(),
            format!("{mid},100,1000"),
            1000,
        ),
    ]
}

pub fn region_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    // Planes of 128 x 1024 f8 (1 MiB each).
    let planes = cfg.big_mib().max(64);
    let path = cfg.dir.join("region.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("region_gen {p} {planes}"))?;
    let np = RefCell::new(np);
    let data_offset = ndnpy::NpyReader::new(File::open(&path)?)?
        .info()
        .data_offset;
    let server = crate::remote::Server::start(&cfg.dir)?;
    let port = server.port;
    let store: std::sync::Arc<dyn object_store::ObjectStore> = std::sync::Arc::new(
        object_store::http::HttpBuilder::new()
            .with_url(format!("http://127.0.0.1:{port}"))
            .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
            .build()?,
    );
    let remote = std::cell::RefCell::new(ndnpy::NpyReader::new(ndnpy::remote::RemoteFile::open(
        store,
        "region.npy".into(),
    )?)?);
    let remote = &remote;
    let mut reports = Vec::new();
    for (k, (title, sel, expr, calls)) in selections(planes).into_iter().enumerate() {
        // Remote calls are slower: fewer of them per run.
        let remote_calls = [2, 1, 2, 100][k];
        let mut imps = Vec::new();
        let (sel_a, sel_b) = (sel.clone(), sel.clone());
        let path_a = path.clone();
        imps.push(Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..calls {
                let mut npy = ndnpy::NpyReader::new(File::open(&path_a)?)?;
                last = Some(npy.read_slice::<f64, _>(&sel_a[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(&path_a, &sel_a, last.as_ref())?;
            }
            black_box(last);
            Ok(d)
        }));
        let (path_d, sel_d) = (path.clone(), sel.clone());
        imps.push(Imp::new(DYN, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..calls {
                let mut npy = ndnpy::NpyReader::new(File::open(&path_d)?)?;
                last = Some(npy.read_slice_dyn(&sel_d[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(
                    &path_d,
                    &sel_d,
                    last.as_ref().and_then(|a| a.as_array::<f64>()),
                )?;
            }
            black_box(last);
            Ok(d)
        }));
        let path_b = path.clone();
        imps.push(Imp::new(MMAP, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..calls {
                // SAFETY: the benchmark's file is not modified while mapped.
                let map = unsafe { ndnpy::NpyMmap::open(&path_b)? };
                last = Some(map.read_slice::<f64, _>(&sel_b[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(&path_b, &sel_b, last.as_ref())?;
            }
            black_box(last);
            Ok(d)
        }));
        let (path_f, local) = (path.clone(), local_windows(k, planes));
        imps.push(Imp::new(PREAD, move |_| {
            let t = Instant::now();
            for _ in 0..calls {
                pread_windows(&path_f, data_offset, &local)?;
            }
            Ok(t.elapsed())
        }));
        let sel_r = sel.clone();
        let path_r = path.clone();
        imps.push(Imp::new(REMOTE, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..remote_calls {
                last = Some(remote.borrow_mut().read_slice::<f64, _>(&sel_r[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(&path_r, &sel_r, last.as_ref())?;
            }
            black_box(last);
            Ok(d)
        }));
        let wins = windows(k, planes);
        imps.push(Imp::new(FLOOR, move |_| {
            let t = Instant::now();
            for _ in 0..remote_calls {
                raw_windows(port, "region.npy", data_offset, &wins)?;
            }
            Ok(t.elapsed())
        }));
        let np = &np;
        let (p2, expr2) = (p.to_string(), expr.clone());
        imps.push(Imp::new(NUMPY, move |_| {
            np.borrow_mut()
                .timed(&format!("region_read {p2} {expr2} {calls}"))
        }));
        let mut rows = crate::measure(imps, cfg.rounds)?;
        // Remote rows ran `remote_calls` reads a run: scaled to `calls` for the table.
        for (name, times) in rows.iter_mut() {
            if *name == REMOTE || *name == FLOOR {
                for t in times.iter_mut() {
                    *t = *t * calls as u32 / remote_calls as u32;
                }
            }
        }
        // The like-for-like door: numpy's row maps the file too.
        let goals = crate::doors::ratio_goals(&rows, &[MMAP], &[(NUMPY, 1.0)]);
        reports.push(Report {
            title: format!("region: {title} of a {planes} MiB (N, 128, 1024) f8 file, C order"),
            items: Some(calls),
            per: "read",
            rows,
            targets: vec![(NUMPY, 1.0)],
            goals,
            notes: vec![format!(
                "Every call opens the file and reads `s![{expr}]` into a new array: ndnpy \
                 `NpyReader::new(File::open(p))?.read_slice(sel)` (positioned reads of the \
                 selected runs, runs under 4 KiB apart merged), the same with \
                 `read_slice_dyn(sel)` into a `DynArray`, and `NpyMmap::open(p)?.read_slice`; \
                 numpy `np.load(p, mmap_mode='r')[{expr}].copy()`. Page cache warm. The local \
                 floor opens the file and reads the {m} windows ndnpy reads by bare \
                 `read_exact_at` into one reused buffer (on two threads from 256 windows, as \
                 ndnpy splits from 256 runs): no header, no gather, no new array. Remote rows \
                 (scaled from {remote_calls} calls a run): `NpyReader<RemoteFile>::read_slice` of the \
                 same file served over HTTP on loopback by scripts/range_server.py (default \
                 options: runs under 256 KiB apart merged, 8 GETs at once), and the floor: \
                 the same {n} windows fetched by raw ranged GETs, 8 connections at once, no \
                 HTTP client.",
                n = windows(k, planes).len(),
                m = local_windows(k, planes).len(),
            )],
            ..Default::default()
        });
    }
    np.borrow_mut().ok("forget")?;
    drop(server);
    Ok(reports)
}

/// Checks a region read against the same selection of the whole array.
fn verify(path: &std::path::Path, sel: &[SliceInfoElem], got: Option<&ArrayD<f64>>) -> Res<()> {
    let whole: ArrayD<f64> = ndnpy::read_npy(path)?;
    if got != Some(&whole.slice(sel).to_owned()) {
        return Err("region read differs from the whole array's slice".into());
    }
    Ok(())
}
