//! The `.npz` cases: many tiny members (`npz_tiny`), deflating one large member
//! (`npz_compress`), inflating it (`npz_decompress`), and inflating several members on all
//! cores (`npz_parallel`). Every archive that is read was written by numpy.

use crate::cases::{path_str, remove_if_exists, tiny_array, Cleanup};
use crate::cases::{NDARRAY_NPY, NDNPY, NUMPY};
use crate::numpy::Numpy;
use crate::{fmt_secs, median_secs, Config, Goal, Imp, Report, Res};
use ndarray::{Array1, ArrayD, IxDyn, OwnedRepr};
use std::cell::RefCell;
use std::fs::File;
use std::hint::black_box;
use std::io::BufWriter;
use std::path::Path;
use std::time::Instant;

/// Element `i` of member `k` of `n` elements (must match `int_array` in numpy_worker.py):
/// runs of 16 equal values below 100,000, so the array deflates well.
fn int_value(i: usize, k: usize, n: usize) -> i64 {
    (((i + k * n) / 16) % 100_000) as i64
}

fn int_array(n: usize, k: usize) -> Array1<i64> {
    Array1::from_iter((0..n).map(|i| int_value(i, k, n)))
}

/// The exact sum of `int_array(n, k)` (below 2^53, so exact as f64 too).
fn int_sum(n: usize, k: usize) -> f64 {
    (0..n).map(|i| int_value(i, k, n) as u64).sum::<u64>() as f64
}

/// Elements per large member: `size_mib / 4` MiB of i64, 8M (64 MiB) by default.
fn large_len(cfg: &Config) -> usize {
    (cfg.size_mib * (1 << 20) / 4 / 8).max(16)
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / f64::from(1 << 20))
}

fn check_int(who: &str, got: &Array1<i64>, k: usize, n: usize) -> Res<()> {
    if got.len() != n
        || got
            .iter()
            .enumerate()
            .any(|(i, &v)| v != int_value(i, k, n))
    {
        return Err(format!("{who}: member {k} differs from the expected array").into());
    }
    Ok(())
}

fn tiny_names(count: usize) -> Vec<String> {
    (0..count).map(|k| format!("t{k}")).collect()
}

fn check_tiny(who: &str, names: &[String], arrays: &[ArrayD<f32>]) -> Res<()> {
    if names.len() != arrays.len() || *names != tiny_names(arrays.len())[..] {
        return Err(format!("{who}: unexpected member names").into());
    }
    for (k, a) in arrays.iter().enumerate() {
        if *a != tiny_array(k) {
            return Err(format!("{who}: member t{k} differs").into());
        }
    }
    Ok(())
}

/// `npz_tiny`: two tables, loading every member of an archive of `tiny_count` tiny f32
/// members, and listing the names only.
/// The `read_all` row of `npz_tiny`.
const READ_ALL: &str = "ndnpy read_all";

pub fn npz_tiny_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    let count = cfg.tiny_count;
    let path = cfg.dir.join("npz_tiny.npz");
    let deflated = cfg.dir.join("npz_tiny_deflated.npz");
    let _cleanup = Cleanup(vec![path.clone(), deflated.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("npz_tiny_gen {p} {count}"))?;
    let pd = path_str(&deflated)?;
    np.ok(&format!("npz_tiny_gen {pd} {count} compressed"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let deflated_len = std::fs::metadata(&deflated)?.len();
    let total: f64 = (0..count).flat_map(tiny_array).map(f64::from).sum::<f64>();
    let expected_names = tiny_names(count);
    let load_rows = tiny_load_rows(cfg, np, &path, count, total)?;
    let deflated_rows = tiny_load_rows(cfg, np, &deflated, count, total)?;

    let (path, expected_names) = (path.as_path(), &expected_names[..]);
    let np = RefCell::new(np);
    let np = &np;
    let check_names = move |who: &str, names: &[String]| -> Res<()> {
        if names != expected_names {
            return Err(format!("{who}: unexpected member names").into());
        }
        Ok(())
    };
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let names = ndnpy::NpzReader::open(path)?.names()?;
            let d = t.elapsed();
            if check {
                check_names(NDNPY, &names)?;
            }
            black_box(names);
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            let names = ndarray_npy::NpzReader::new(File::open(path)?)?.names()?;
            let d = t.elapsed();
            if check {
                check_names(NDARRAY_NPY, &names)?;
            }
            black_box(names);
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("npz_names {p}"))?;
            if check {
                np.check_sum(&format!("npz_tiny_check {p} {count}"), total)?;
            }
            Ok(d)
        }),
    ];
    let names_rows = crate::measure(imps, cfg.tiny_rounds)?;

    let file_note = format!(
        "Archive written by `np.savez(path, t0=..., t1=..., ...)`: {count} stored members \
         `t{{k}}.npy`, the f32 arrays of `tiny` (shapes (3,), (2, 2), (5,), (2, 3)), {file_len} \
         bytes; page cache warm. Opening the archive is timed for everyone; dropping the \
         arrays is not."
    );
    Ok(vec![
        Report {
            title: format!("npz_tiny: load all {count} members of a numpy `.npz` of tiny f32 arrays"),
            items: Some(count),
            per: "member",
            rows: load_rows,
            targets: vec![(NUMPY, 0.25), (NDARRAY_NPY, 0.5)],
            notes: vec![
                file_note.clone(),
                format!(
                    "ndnpy: `NpzReader::open(path)` + `names()` + `by_name::<OwnedRepr<f32>, \
                     IxDyn>(name)` for each name; {READ_ALL}: `NpzReader::open(path)` + \
                     `read_all()` (the members are stored, so nothing runs in parallel); \
                     ndarray-npy: `NpzReader::new(File::open(path))` + `names()` + `by_name` \
                     for each name; numpy: `d = np.load(path); [d[k] for k in d.files]; \
                     d.close()`. Checked: every name and every array (numpy's in the worker, \
                     dtype '<f4' and values)."
                ),
            ],
            ..Report::default()
        },
        Report {
            title: format!(
                "npz_tiny: load all {count} members of a `np.savez_compressed` archive of the \
                 same arrays"
            ),
            items: Some(count),
            per: "member",
            rows: deflated_rows,
            targets: vec![(NUMPY, 0.25), (NDARRAY_NPY, 0.5)],
            notes: vec![format!(
                "The same arrays written by `np.savez_compressed`: {count} deflated members, \
                 {deflated_len} bytes; page cache warm. The rows are those of the table above \
                 ({READ_ALL} inflates on all cores with the `parallel` feature, the benchmarks' \
                 build has it). Checked: every name and every array."
            )],
            ..Report::default()
        },
        Report {
            title: format!("npz_tiny: list the names of the {count} members"),
            items: Some(count),
            per: "member",
            rows: names_rows,
            targets: vec![(NUMPY, 0.2)],
            notes: vec![
                file_note,
                "ndnpy: `NpzReader::open(path)?.names()`; ndarray-npy: \
                 `NpzReader::new(File::open(path)?)?.names()` (it opens each member with the zip crate's \
                 `by_index` to read its name); numpy: `d = np.load(path); d.files; \
                 d.close()`. Checked: the names, in archive order."
                    .to_string(),
            ],
            ..Report::default()
        },
    ])
}

/// The rows of loading every member of the tiny archive at `path` (stored or deflated).
fn tiny_load_rows(
    cfg: &Config,
    np: &mut Numpy,
    path: &std::path::Path,
    count: usize,
    total: f64,
) -> Res<Vec<(&'static str, Vec<std::time::Duration>)>> {
    let p = path_str(path)?;
    let np = RefCell::new(np);
    let np = &np;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let (names, arrays) = {
                let mut npz = ndnpy::NpzReader::open(path)?;
                let names = npz.names()?;
                let mut arrays = Vec::with_capacity(names.len());
                for name in &names {
                    arrays.push(npz.by_name::<OwnedRepr<f32>, IxDyn>(name)?);
                }
                (names, arrays)
            };
            let d = t.elapsed();
            if check {
                check_tiny(NDNPY, &names, &arrays)?;
            }
            black_box((names, arrays));
            Ok(d)
        }),
        Imp::new(READ_ALL, move |check| {
            let t = Instant::now();
            let all = ndnpy::NpzReader::open(path)?.read_all::<OwnedRepr<f32>, IxDyn>();
            let d = t.elapsed();
            if check {
                let (names, arrays): (Vec<String>, Vec<_>) = all.into_iter().unzip();
                let arrays = arrays.into_iter().collect::<Result<Vec<_>, _>>()?;
                check_tiny(READ_ALL, &names, &arrays)?;
            } else {
                black_box(all);
            }
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            let (names, arrays) = {
                let mut npz = ndarray_npy::NpzReader::new(File::open(path)?)?;
                let names = npz.names()?;
                let mut arrays = Vec::with_capacity(names.len());
                for name in &names {
                    arrays.push(npz.by_name::<OwnedRepr<f32>, IxDyn>(name)?);
                }
                (names, arrays)
            };
            let d = t.elapsed();
            if check {
                check_tiny(NDARRAY_NPY, &names, &arrays)?;
            }
            black_box((names, arrays));
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("npz_load_all {p}"))?;
            if check {
                np.check_sum(&format!("npz_tiny_check {p} {count}"), total)?;
            }
            Ok(d)
        }),
    ];
    crate::measure(imps, cfg.rounds)
}

/// `npz_compress`: deflate one large compressible i64 member into a new archive.
pub fn npz_compress_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    const LEVEL6: &str = "ndnpy level(Some(6))";
    const LEVEL6_ONE: &str = "ndnpy level(Some(6)), one thread";
    const BY_PATH: &str = "ndnpy, by path";
    let n = large_len(cfg);
    let data_bytes = (n * 8) as u64;
    let array = int_array(n, 0);
    let out = |name: &str| cfg.dir.join(format!("npz_compress_{name}.npz"));
    let (p_ours, p_six, p_theirs, p_numpy) = (
        out("ndnpy"),
        out("ndnpy6"),
        out("ndarray_npy"),
        out("numpy"),
    );
    let _cleanup = Cleanup(vec![
        p_ours.clone(),
        p_six.clone(),
        p_theirs.clone(),
        p_numpy.clone(),
    ]);
    let pn = path_str(&p_numpy)?;
    np.ok(&format!("npz_int_prep {n}"))?;

    // Every written archive is read back with ndarray-npy (an independent reader).
    let verify = |who: &str, path: &Path| -> Res<()> {
        let mut npz = ndarray_npy::NpzReader::new(File::open(path)?)?;
        if npz.names()? != ["a"] {
            return Err(format!("{who}: the archive's members are not [a]").into());
        }
        let a: Array1<i64> = npz.by_name("a")?;
        check_int(who, &a, 0, n)
    };
    let write_ndnpy = |path: &Path, level: Option<u32>, threads| -> Res<std::time::Duration> {
        remove_if_exists(path)?;
        let t = Instant::now();
        let w = BufWriter::new(File::create(path)?);
        let mut npz = match (level, threads) {
            (None, 0) => ndnpy::NpzWriter::new_compressed(w),
            (l, n) => ndnpy::NpzWriter::with_options(
                w,
                &ndnpy::npz::NpzWriteOptions::compressed()
                    .level(l)
                    .threads(n),
            ),
        };
        npz.add_array("a", &array)?;
        npz.finish()?;
        Ok(t.elapsed())
    };
    let (p_one, p_six_one, p_path) = (out("one"), out("ndnpy6_one"), out("path"));
    let (array, verify, write_ndnpy) = (&array, &verify, &write_ndnpy);
    let (p_ours, p_six, p_theirs, p_numpy) = (&p_ours, &p_six, &p_theirs, &p_numpy);
    let (p_one, p_six_one, p_path) = (&p_one, &p_six_one, &p_path);
    let np = RefCell::new(np);
    let np = &np;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let d = write_ndnpy(p_ours, None, 0)?;
            if check {
                verify(NDNPY, p_ours)?;
            }
            Ok(d)
        }),
        Imp::new(NDNPY_ONE, move |check| {
            let d = write_ndnpy(p_one, None, 1)?;
            if check {
                verify(NDNPY_ONE, p_one)?;
            }
            Ok(d)
        }),
        Imp::new(BY_PATH, move |check| {
            remove_if_exists(p_path)?;
            let t = Instant::now();
            let opts = ndnpy::npz::NpzWriteOptions::compressed();
            let mut npz = ndnpy::NpzWriter::create_with_options(p_path, &opts)?;
            npz.add_array("a", array)?;
            npz.finish()?;
            let d = t.elapsed();
            if check {
                verify(BY_PATH, p_path)?;
            }
            Ok(d)
        }),
        Imp::new(LEVEL6, move |check| {
            let d = write_ndnpy(p_six, Some(6), 0)?;
            if check {
                verify(LEVEL6, p_six)?;
            }
            Ok(d)
        }),
        Imp::new(LEVEL6_ONE, move |check| {
            let d = write_ndnpy(p_six_one, Some(6), 1)?;
            if check {
                verify(LEVEL6_ONE, p_six_one)?;
            }
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            remove_if_exists(p_theirs)?;
            let t = Instant::now();
            let mut npz = ndarray_npy::NpzWriter::new_compressed(File::create(p_theirs)?);
            npz.add_array("a", array)?;
            npz.finish()?;
            let d = t.elapsed();
            if check {
                verify(NDARRAY_NPY, p_theirs)?;
            }
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let d = np.borrow_mut().timed(&format!("npz_compress {pn}"))?;
            if check {
                verify(NUMPY, p_numpy)?;
            }
            Ok(d)
        }),
    ];
    let compress_rows = crate::measure(imps, cfg.rounds)?;
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len());
    let sizes = format!(
        "Archive sizes: ndnpy (level 4) {} ({:+.3}% against one thread's {}), ndnpy level 6 {} \
         ({:+.3}% against one thread's {}), ndarray-npy {}, numpy {} (data {}).",
        mib(size(p_ours)?),
        (size(p_ours)? as f64 / size(p_one)? as f64 - 1.0) * 100.0,
        mib(size(p_one)?),
        mib(size(p_six)?),
        (size(p_six)? as f64 / size(p_six_one)? as f64 - 1.0) * 100.0,
        mib(size(p_six_one)?),
        mib(size(p_theirs)?),
        mib(size(p_numpy)?),
        mib(data_bytes + 128),
    );
    let mut goals = crate::doors::ratio_goals(&compress_rows, &[NDNPY], &[(NDNPY_ONE, 0.55)]);
    goals.extend(crate::doors::ratio_goals(
        &compress_rows,
        &[LEVEL6],
        &[(LEVEL6_ONE, 0.55)],
    ));
    for p in [p_ours, p_six, p_theirs, p_numpy, p_one, p_six_one, p_path] {
        remove_if_exists(p)?;
    }
    let compress = Report {
        title: format!(
            "npz_compress: deflate a {} i64 array into a new `.npz`",
            mib(data_bytes)
        ),
        bytes: Some(data_bytes),
        rows: compress_rows,
        targets: vec![(NUMPY, 0.3)],
        goals,
        notes: vec![
            format!(
                "Data: `((np.arange({n}) // 16) % 100000).astype('<i8')` (runs of 16 equal \
                 values), built in Rust the same. ndnpy: \
                 `NpzWriter::new_compressed(BufWriter::new(File::create(path)))` + \
                 `add_array(\"a\", &a)` + `finish()` (its default level, 4, and threads, one per \
                 core: 128 KiB chunks deflated on every core); {NDNPY_ONE}: the same with \
                 `NpzWriteOptions::compressed().threads(1)` (one stream on the calling thread); \
                 {BY_PATH}: `NpzWriter::create_with_options(path, &NpzWriteOptions::compressed())` \
                 (atomic); {LEVEL6} and {LEVEL6_ONE}: the same with `.level(Some(6))` (numpy's zlib \
                 level); ndarray-npy: `NpzWriter::new_compressed(File::create(path))` \
                 (zip crate, flate2, its default level); numpy: `np.savez_compressed(path, a=a)`. \
                 Each writer's old file is deleted untimed; no fsync. Every archive is read back \
                 with ndarray-npy and compared with the array."
            ),
            sizes,
        ],
        ..Report::default()
    };

    Ok(compress)
}

/// The member read kept on one thread (no helper faulting the array in).
const NDNPY_ONE: &str = "ndnpy, one thread";

/// `npz_decompress`: read back the large member of numpy's archive of `npz_compress`'s array.
pub fn npz_decompress_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    let n = large_len(cfg);
    let data_bytes = (n * 8) as u64;
    let sum = int_sum(n, 0);
    let input = cfg.dir.join("npz_decompress.npz");
    let _cleanup = Cleanup(vec![input.clone()]);
    let pi = path_str(&input)?;
    np.ok(&format!("npz_int_gen {pi} {n} 1"))?;
    let file_len = std::fs::metadata(&input)?.len();
    let input = input.as_path();
    let np = RefCell::new(np);
    let np = &np;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let a: Array1<i64> = ndnpy::NpzReader::open(input)?.by_name("a")?;
            let d = t.elapsed();
            if check {
                check_int(NDNPY, &a, 0, n)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(NDNPY_ONE, move |check| {
            let one = ndnpy::ReadOptions::new().threads(1);
            let t = Instant::now();
            let a: Array1<i64> =
                ndnpy::NpzReader::with_options(File::open(input)?, &one)?.by_name("a")?;
            let d = t.elapsed();
            if check {
                check_int(NDNPY_ONE, &a, 0, n)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            let a: Array1<i64> = ndarray_npy::NpzReader::new(File::open(input)?)?.by_name("a")?;
            let d = t.elapsed();
            if check {
                check_int(NDARRAY_NPY, &a, 0, n)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("npz_read {pi} a"))?;
            if check {
                np.check_sum(&format!("npz_int_check {pi} a {n} 0"), sum)?;
            }
            Ok(d)
        }),
    ];
    let decompress_rows = crate::measure(imps, cfg.rounds)?;
    Ok(Report {
        title: format!(
            "npz_decompress: read the {} i64 member of a numpy `.npz` ({} deflated)",
            mib(data_bytes),
            mib(file_len)
        ),
        bytes: Some(data_bytes),
        rows: decompress_rows,
        targets: vec![(NUMPY, 0.5)],
        notes: vec![format!(
            "Archive written by `np.savez_compressed(path, a=a)` (the array of npz_compress), \
             page cache warm; GiB/s are of the inflated data. ndnpy: \
             `NpzReader::open(path)?.by_name::<_, Ix1>(\"a\")` (by default a helper thread \
             faults the array in ahead of the inflater); ndnpy, one thread: the same through \
             `NpzReader::with_options(File::open(path)?, &ReadOptions::new().threads(1))` (no \
             helper); ndarray-npy: \
             `NpzReader::new(File::open(path)?)?.by_name(\"a\")`; numpy: `with np.load(path) as \
             d: d['a']`. Checked: every element (numpy's in the worker, dtype '<i8', and its sum)."
        )],
        ..Report::default()
    })
}

/// `npz_parallel`: read every member of a numpy archive of 4 deflated large members, with
/// `read_all` (parallel) and with `by_name` one after another.
pub fn npz_parallel_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    const SEQ: &str = "ndnpy by_name loop (sequential)";
    const MEMBERS: usize = 4;
    let n = large_len(cfg);
    let data_bytes = (MEMBERS * n * 8) as u64;
    let path = cfg.dir.join("npz_parallel.npz");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("npz_int_gen {p} {n} {MEMBERS}"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let sum: f64 = (0..MEMBERS).map(|k| int_sum(n, k)).sum();
    let names: Vec<String> = (0..MEMBERS).map(|k| format!("a{k}")).collect();

    let check_all = move |who: &str, all: &[(String, Array1<i64>)]| -> Res<()> {
        if all.len() != MEMBERS {
            return Err(format!("{who}: {} members, expected {MEMBERS}", all.len()).into());
        }
        for (k, (name, a)) in all.iter().enumerate() {
            if *name != format!("a{k}") {
                return Err(format!("{who}: member {k} is {name}").into());
            }
            check_int(who, a, k, n)?;
        }
        Ok(())
    };
    let (path, names, check_all) = (path.as_path(), &names, &check_all);
    let np = RefCell::new(np);
    let np = &np;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let all = ndnpy::NpzReader::open(path)?.read_all::<OwnedRepr<i64>, ndarray::Ix1>();
            let d = t.elapsed();
            if check {
                let all = all
                    .into_iter()
                    .map(|(k, r)| r.map(|a| (k, a)))
                    .collect::<Result<Vec<_>, _>>()?;
                check_all(NDNPY, &all)?;
            } else {
                black_box(all);
            }
            Ok(d)
        }),
        Imp::new(SEQ, move |check| {
            let t = Instant::now();
            let all = {
                let mut npz = ndnpy::NpzReader::open(path)?;
                let mut all = Vec::with_capacity(names.len());
                for name in names {
                    all.push((
                        name.clone(),
                        npz.by_name::<OwnedRepr<i64>, ndarray::Ix1>(name)?,
                    ));
                }
                all
            };
            let d = t.elapsed();
            if check {
                check_all(SEQ, &all)?;
            }
            black_box(all);
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("npz_load_all {p}"))?;
            if check {
                let mut total = 0.0;
                for k in 0..MEMBERS {
                    let reply = np.call(&format!("npz_int_check {p} a{k} {n} {k}"))?;
                    total += reply
                        .strip_prefix("ok ")
                        .and_then(|s| s.parse::<f64>().ok())
                        .ok_or_else(|| format!("numpy check of a{k}: {reply}"))?;
                }
                if total != sum {
                    return Err(format!("numpy: sum {total}, expected {sum}").into());
                }
            }
            Ok(d)
        }),
    ];
    let rows = crate::measure(imps, cfg.rounds)?;
    let med = |name: &str| {
        rows.iter()
            .find(|r| r.0 == name)
            .map_or(f64::NAN, |r| median_secs(&r.1))
    };
    let (par, seq) = (med(NDNPY), med(SEQ));
    let speedup = seq / par;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(Report {
        title: format!(
            "npz_parallel: read all {MEMBERS} deflated {} i64 members of a numpy `.npz`",
            mib((n * 8) as u64)
        ),
        bytes: Some(data_bytes),
        rows,
        goals: vec![Goal {
            text: format!(
                "read_all speedup over the by_name loop {speedup:.2}x ({} vs {}, {threads} \
                 cores; target ≥ 1.60x)",
                fmt_secs(par),
                fmt_secs(seq)
            ),
            met: speedup >= 1.6,
        }],
        notes: vec![format!(
            "Archive written by `np.savez_compressed(path, a0=..., a1=..., a2=..., a3=...)`, \
                 member k `((np.arange({n}) + k * {n}) // 16) % 100000` as '<i8', {} in all; \
                 page cache warm; GiB/s are of the inflated data. ndnpy: \
                 `NpzReader::open(path)?.read_all::<OwnedRepr<i64>, Ix1>()`, built with ndnpy's \
                 `parallel` feature (rayon on all cores: the compressed bytes are read in turn, \
                 then inflated and parsed in parallel). {SEQ}: the same reader, `by_name` for \
                 a0..a3 one after another on this thread; it is the sequential path whatever \
                 the features (`read_all` without `parallel` does the same loop). numpy: \
                 `d = np.load(path); [d[k] for k in d.files]; d.close()` (sequential). Checked: \
                 names and every element (numpy's in the worker).",
            mib(file_len)
        )],
        ..Report::default()
    })
}
