//! The benchmark cases. Each builds one closure per implementation; a closure times only the
//! operation itself (file deletion, result checks and drops happen outside the timer) and,
//! when asked to `check`, verifies its result against the expected array.

use crate::doors::NDNPY_DOORS;
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{Array, Array2, ArrayD, ArrayView, Dimension, IxDyn, ShapeBuilder};
use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub(crate) const NDNPY: &str = "ndnpy";
pub(crate) const NDARRAY_NPY: &str = "ndarray-npy 0.10";
pub(crate) const NPYZ: &str = "npyz 0.9";
pub(crate) const NUMPY: &str = "numpy";
pub(crate) const RAW: &str = "raw floor";
pub(crate) const NDARRAY_NPY_FILE: &str = "ndarray-npy 0.10 File";
const NDNPY_FILE: &str = "ndnpy File";
const NDNPY_BUFWRITER: &str = "ndnpy BufWriter<File>";

/// Shapes of the tiny arrays, in turn (must match TINY_SHAPES in numpy_worker.py).
pub(crate) const TINY_SHAPES: [&[usize]; 4] = [&[3], &[2, 2], &[5], &[2, 3]];

/// The array every large case reads or writes: element `i` in C order is `i * 0.5` (exact in
/// f64, with varied bytes). numpy_worker.py builds the same values.
pub(crate) fn base(rows: usize, cols: usize) -> Array2<f64> {
    Array::from_iter((0..rows * cols).map(|i| i as f64 * 0.5))
        .into_shape_with_order((rows, cols))
        .expect("rows * cols elements")
}

/// The sum of `base`'s `n` elements, exactly.
pub(crate) fn base_sum(n: usize) -> f64 {
    (n as u128 * (n as u128).saturating_sub(1)) as f64 / 4.0
}

/// Tiny array `k`: f32 values `k % 1000 + 0.25 * j`, all exact.
pub(crate) fn tiny_array(k: usize) -> ArrayD<f32> {
    let shape = TINY_SHAPES[k % TINY_SHAPES.len()];
    let n = shape.iter().product::<usize>();
    let data = (0..n)
        .map(|j| (k % 1000) as f32 + 0.25 * j as f32)
        .collect();
    ArrayD::from_shape_vec(IxDyn(shape), data).expect("shape matches data")
}

/// Files a case creates, removed when the case ends (also on error).
pub(crate) struct Cleanup(pub(crate) Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

pub(crate) fn remove_if_exists(path: &Path) -> Res<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}

pub(crate) fn path_str(path: &Path) -> Res<&str> {
    match path.to_str() {
        Some(s) if !s.contains(char::is_whitespace) => Ok(s),
        _ => {
            Err(format!("path {path:?} must be UTF-8 without spaces (numpy line protocol)").into())
        }
    }
}

pub(crate) fn verify(who: &str, got: &Array2<f64>, expected: &Array2<f64>) -> Res<()> {
    if got != expected {
        return Err(format!("{who}: read result differs from the expected array").into());
    }
    Ok(())
}

/// Reads a 2-D f64 file with npyz: its element iterator into a Vec, then the ndarray.
fn npyz_read(path: &Path) -> Res<Array2<f64>> {
    let npy = npyz::NpyFile::new(BufReader::new(File::open(path)?))?;
    let fortran = npy.order() == npyz::Order::Fortran;
    let (rows, cols) = match *npy.shape() {
        [r, c] => (r as usize, c as usize),
        ref s => return Err(format!("npyz: expected 2-D, got shape {s:?}").into()),
    };
    let data = npy.into_vec::<f64>()?;
    Ok(Array2::from_shape_vec((rows, cols).set_f(fortran), data)?)
}

/// Writes with npyz's builder: C or Fortran order as the view's memory allows, else C order.
fn npyz_write<D: Dimension>(path: &Path, view: &ArrayView<f64, D>) -> Res<()> {
    use npyz::WriterBuilder;
    let shape: Vec<u64> = view.shape().iter().map(|&d| d as u64).collect();
    let fortran = !view.is_standard_layout() && view.t().is_standard_layout();
    let order = if fortran {
        npyz::Order::Fortran
    } else {
        npyz::Order::C
    };
    let mut w = npyz::WriteOptions::<f64>::new()
        .default_dtype()
        .shape(&shape)
        .order(order)
        .writer(BufWriter::new(File::create(path)?))
        .begin_nd()?;
    if fortran {
        w.extend(view.t().iter().copied())?;
    } else {
        w.extend(view.iter().copied())?;
    }
    w.finish()?;
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    C,
    F,
    BigEndian,
}

pub fn read_case(cfg: &Config, np: &mut Numpy, kind: ReadKind) -> Res<Report> {
    let (rows, cols) = cfg.shape2();
    let (tag, what) = match kind {
        ReadKind::C => ("c", "C order"),
        ReadKind::F => ("f", "Fortran order"),
        ReadKind::BigEndian => ("be", "big-endian '>f8' to native values"),
    };
    let path = cfg.dir.join(format!("read_{tag}.npy"));
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    // numpy writes the input file, so every reader reads what np.save wrote.
    np.ok(&format!("gen {p} {tag} {rows} {cols}"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let expected = base(rows, cols);
    let sum = base_sum(rows * cols);
    let conv = if kind == ReadKind::BigEndian {
        "inplace"
    } else {
        "none"
    };

    let npz = cfg.dir.join(format!("read_{tag}.npz"));
    let _cleanup_npz = Cleanup(vec![npz.clone()]);
    np.ok(&format!("npz_store {p} {}", path_str(&npz)?))?;
    let bytes = std::fs::read(&path)?;

    let (path, expected) = (path.as_path(), &expected);
    let mut imps = crate::doors::door_imps(
        NDNPY_DOORS,
        path,
        &npz,
        &bytes,
        |npz| Ok(ndnpy::NpzReader::open(npz)?.by_name("a")?),
        move |who, a: &Array2<f64>| verify(who, a, expected),
    );
    imps.extend(vec![
        Imp::new(NDARRAY_NPY_FILE, move |check| {
            let t = Instant::now();
            let a = <Array2<f64> as ndarray_npy::ReadNpyExt>::read_npy(File::open(path)?)?;
            let d = t.elapsed();
            if check {
                verify(NDARRAY_NPY_FILE, &a, expected)?;
            }
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            let a: Array2<f64> = ndarray_npy::read_npy(path)?;
            let d = t.elapsed();
            if check {
                verify(NDARRAY_NPY, &a, expected)?;
            }
            Ok(d)
        }),
        Imp::new(NPYZ, move |check| {
            let t = Instant::now();
            let a = npyz_read(path)?;
            let d = t.elapsed();
            if check {
                verify(NPYZ, &a, expected)?;
            }
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let d = np.timed(&format!("read {p} {conv}"))?;
            if check {
                np.check_sum(&format!("check {p} {conv} {rows} {cols}"), sum)?;
            }
            Ok(d)
        }),
        Imp::new(RAW, move |check| {
            let t = Instant::now();
            let mut f = File::open(path)?;
            let len = f.metadata()?.len() as usize;
            let mut buf = vec![0u8; len];
            f.read_exact(&mut buf)?;
            let d = t.elapsed();
            black_box(&buf);
            if check && buf.len() as u64 != file_len {
                return Err("raw floor: short read".into());
            }
            Ok(d)
        }),
    ]);
    if kind == ReadKind::C {
        imps.extend(one_thread_doors(path, &npz, &bytes, expected));
        imps.extend(crate::floors::read_floors(path, &bytes));
    }
    let rows_out = crate::measure(imps, cfg.rounds)?;

    let mut notes = vec![format!(
        "File written by np.save, {file_len} bytes; page cache warm. \
         ndnpy: `ndnpy::read_npy::<_, Array2<f64>>(path)` (two threads by default on Unix: a \
         large read of a regular file is split in two positioned reads); ndnpy, one \
         thread: `ReadOptions::new().threads(1).read_npy(path)`; ndnpy File, BufReader<File>, &[u8]: \
         `Array2::<f64>::read_npy(File::open(path)?)`, `read_npy(BufReader::new(File::open(path)?))` \
         and `read_npy(&bytes[..])` of the file read into memory beforehand (untimed); ndnpy .npz \
         member: `NpzReader::open(npz)?.by_name(\"a\")` of `np.savez(npz, a=np.load(path))` \
         (stored). Every door reaches the file or bytes behind these standard types and splits \
         the copy over two threads as the path does; targets: each within 1.10x of the path \
         row and 1.00x of numpy. read_c adds every door but the path on one thread \
         (`Array2::read_npy_with_options(reader, &ReadOptions::new().threads(1))`, the member through \
         `NpzReader::with_options`); targets (issue 22): each two-thread door ≤ 0.60x numpy, \
         each one-thread door ≤ 1.10x numpy. ndarray-npy: `ndarray_npy::read_npy(path)` and `read_npy(File::open(path)?)`; \
         npyz: `NpyFile::new(BufReader<File>)` + `into_vec::<f64>()` + `Array2::from_shape_vec`; \
         raw floor: `File::open` + `read_exact` of the whole file into a fresh `vec![0u8; len]`."
    )];
    notes.push(if kind == ReadKind::BigEndian {
        "numpy: `a = np.load(path); a.byteswap(inplace=True); a = a.view(a.dtype.newbyteorder())` \
         (numpy's cheapest conversion to native order: in place, no second array; \
         `astype('<f8')` allocates a copy and was slower). The raw floor does not swap."
            .to_string()
    } else {
        "numpy: `np.load(path)`.".to_string()
    });
    if kind == ReadKind::C {
        notes.push(crate::peak_memory_note(path, file_len));
    }
    Ok(Report {
        title: format!(
            "read_{tag}: read {} MiB f64, shape ({rows}, {cols}), {what}",
            cfg.size_mib
        ),
        bytes: Some(file_len),
        items: None,
        goals: {
            let mut goals = crate::doors::door_goals(
                NDNPY_DOORS,
                &rows_out,
                &[(NDNPY_DOORS.path, 1.1), (NUMPY, 1.0)],
            );
            if kind == ReadKind::C {
                // Two cores by default: every door ≤ 0.60x np.load; on one thread, the doors
                // ≤ 1.10x np.load.
                let d = NDNPY_DOORS;
                let two = [d.path, d.file, d.buf, d.bytes, d.member];
                goals.extend(crate::doors::ratio_goals(&rows_out, &two, &[(NUMPY, 0.6)]));
                let one = [d.path1, ONE_FILE, ONE_BUF, ONE_BYTES, ONE_MEMBER];
                goals.extend(crate::doors::ratio_goals(&rows_out, &one, &[(NUMPY, 1.1)]));
            }
            goals
        },
        rows: rows_out,
        targets: vec![(NUMPY, 0.7), (NDARRAY_NPY, 0.8)],
        notes,
        ..Report::default()
    })
}

const ONE_FILE: &str = "ndnpy File, one thread";
const ONE_BUF: &str = "ndnpy BufReader<File>, one thread";
const ONE_BYTES: &str = "ndnpy &[u8], one thread";
const ONE_MEMBER: &str = "ndnpy .npz member, one thread";

/// The doors other than the path kept on one thread (`ReadOptions::new().threads(1)`): what a
/// machine without a second core gets.
fn one_thread_doors<'a>(
    path: &'a Path,
    npz: &'a Path,
    bytes: &'a [u8],
    expected: &'a Array2<f64>,
) -> Vec<Imp<'a>> {
    use ndnpy::ReadNpyExt;
    fn timed(
        name: &'static str,
        check: bool,
        expected: &Array2<f64>,
        read: impl FnOnce(&ndnpy::ReadOptions) -> Res<Array2<f64>>,
    ) -> Res<std::time::Duration> {
        let one = ndnpy::ReadOptions::new().threads(1);
        let t = Instant::now();
        let a = read(&one)?;
        let d = t.elapsed();
        if check {
            verify(name, &a, expected)?;
        }
        drop(a);
        Ok(d)
    }
    vec![
        Imp::new(ONE_FILE, move |c| {
            timed(ONE_FILE, c, expected, |o| {
                Ok(Array2::read_npy_with_options(File::open(path)?, o)?)
            })
        }),
        Imp::new(ONE_BUF, move |c| {
            timed(ONE_BUF, c, expected, |o| {
                let r = BufReader::new(File::open(path)?);
                Ok(Array2::read_npy_with_options(r, o)?)
            })
        }),
        Imp::new(ONE_BYTES, move |c| {
            timed(ONE_BYTES, c, expected, |o| {
                Ok(Array2::read_npy_with_options(bytes, o)?)
            })
        }),
        Imp::new(ONE_MEMBER, move |c| {
            timed(ONE_MEMBER, c, expected, |o| {
                let f = File::open(npz)?;
                Ok(ndnpy::NpzReader::with_options(f, o)?.by_name("a")?)
            })
        }),
    ]
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    C,
    F,
    Permuted,
}

pub fn write_case(cfg: &Config, np: &mut Numpy, kind: WriteKind) -> Res<Report> {
    let (rows, cols) = cfg.shape2();
    let src = base(rows, cols);
    let d3 = cfg.shape3();
    match kind {
        WriteKind::C => write_with(cfg, np, kind, src.view(), &format!("c {rows} {cols}")),
        WriteKind::F => write_with(cfg, np, kind, src.t(), &format!("f {rows} {cols}")),
        WriteKind::Permuted => {
            let v = src
                .view()
                .into_shape_with_order(d3)?
                .permuted_axes([2, 0, 1]);
            let prep = format!("perm {} {} {}", d3.0, d3.1, d3.2);
            write_with(cfg, np, kind, v, &prep)
        }
    }
}

fn write_with<D: Dimension>(
    cfg: &Config,
    np: &mut Numpy,
    kind: WriteKind,
    view: ArrayView<f64, D>,
    np_prep: &str,
) -> Res<Report> {
    let (tag, what, targets, np_note) = match kind {
        WriteKind::C => (
            "c",
            "C order",
            vec![(NDARRAY_NPY, 1.05)],
            "`np.save(path, a)`, a C-contiguous",
        ),
        WriteKind::F => (
            "f",
            "Fortran order (`a.t()` of a C array)",
            vec![],
            "`np.save(path, a.T)` (the same transposed view)",
        ),
        WriteKind::Permuted => (
            "perm",
            "permuted 3-D view `.permuted_axes([2, 0, 1])`, written in C order",
            vec![(NDARRAY_NPY, 1.0)],
            "`np.save(path, a.reshape(d0, d1, d2).transpose(2, 0, 1))`",
        ),
    };
    np.ok(&format!("prep {np_prep}"))?;
    let path_of = |imp: &str| cfg.dir.join(format!("write_{tag}_{imp}.npy"));
    let paths = [
        "ndnpy",
        "ndarray_npy",
        "npyz",
        "numpy",
        "raw",
        "ndnpy_file",
        "ndnpy_bufwriter",
    ]
    .map(path_of);
    let _cleanup = Cleanup(paths.to_vec());
    let np_path = path_str(&paths[3])?.to_string();
    let nbytes = view.len() * 8;
    let raw_buf = vec![0x5au8; nbytes];
    let expected_dyn = view.view().into_dyn();

    let view = &view;
    let expected = &expected_dyn;
    // Every written file is read back (with ndarray-npy) and compared with the source view.
    let verify_written = move |who: &str, path: &Path| -> Res<()> {
        let back: ArrayD<f64> = ndarray_npy::read_npy(path)?;
        if back != *expected {
            return Err(format!("{who}: written file does not read back as the source").into());
        }
        Ok(())
    };
    let [p_ndnpy, p_nn, p_npyz, p_numpy, p_raw, p_file, p_buf] = &paths;
    let imps = vec![
        Imp::new(NDNPY_FILE, move |check| {
            remove_if_exists(p_file)?;
            let t = Instant::now();
            ndnpy::WriteNpyExt::write_npy(view, File::create(p_file)?)?;
            let d = t.elapsed();
            if check {
                verify_written(NDNPY_FILE, p_file)?;
            }
            Ok(d)
        }),
        Imp::new(NDNPY_BUFWRITER, move |check| {
            remove_if_exists(p_buf)?;
            let t = Instant::now();
            let mut w = BufWriter::new(File::create(p_buf)?);
            ndnpy::WriteNpyExt::write_npy(view, &mut w)?;
            w.flush()?;
            drop(w);
            let d = t.elapsed();
            if check {
                verify_written(NDNPY_BUFWRITER, p_buf)?;
            }
            Ok(d)
        }),
        Imp::new(NDNPY, move |check| {
            remove_if_exists(p_ndnpy)?;
            let t = Instant::now();
            ndnpy::write_npy(p_ndnpy, view)?;
            let d = t.elapsed();
            if check {
                verify_written(NDNPY, p_ndnpy)?;
            }
            Ok(d)
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            remove_if_exists(p_nn)?;
            let t = Instant::now();
            ndarray_npy::write_npy(p_nn, view)?;
            let d = t.elapsed();
            if check {
                verify_written(NDARRAY_NPY, p_nn)?;
            }
            Ok(d)
        }),
        Imp::new(NPYZ, move |check| {
            remove_if_exists(p_npyz)?;
            let t = Instant::now();
            npyz_write(p_npyz, view)?;
            let d = t.elapsed();
            if check {
                verify_written(NPYZ, p_npyz)?;
            }
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            // The worker deletes its previous file itself, untimed.
            let d = np.timed(&format!("write {np_path}"))?;
            if check {
                verify_written(NUMPY, p_numpy)?;
            }
            Ok(d)
        }),
        Imp::new(RAW, move |check| {
            remove_if_exists(p_raw)?;
            let t = Instant::now();
            let mut f = File::create(p_raw)?;
            f.write_all(&raw_buf)?;
            drop(f);
            let d = t.elapsed();
            if check && std::fs::metadata(p_raw)?.len() != nbytes as u64 {
                return Err("raw floor: short write".into());
            }
            Ok(d)
        }),
    ];
    let rows_out = crate::measure(imps, cfg.rounds)?;
    let goals = crate::doors::ratio_goals(
        &rows_out,
        &[NDNPY, NDNPY_FILE, NDNPY_BUFWRITER],
        &[(NUMPY, 1.0)],
    );
    Ok(Report {
        goals,
        title: format!(
            "write_{tag}: write {} MiB f64, shape ({}), {what}",
            cfg.size_mib,
            view.shape()
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        bytes: Some(nbytes as u64),
        items: None,
        rows: rows_out,
        targets,
        notes: vec![
            format!(
                "Each implementation writes its own new file in {}; the previous round's file is \
                 deleted before the timer starts. ndnpy / ndarray-npy: their `write_npy(path, &view)`; \
                 ndnpy File: `view.write_npy(File::create(path)?)`; ndnpy BufWriter<File>: \
                 `view.write_npy(&mut BufWriter::new(File::create(path)?))` + `flush`; npyz: `WriteOptions::new().default_dtype().shape(..).order(..)` \
                 builder over a `BufWriter<File>`, `extend` with the elements in file order; \
                 raw floor: `File::create` + `write_all` of {nbytes} bytes from an existing buffer. \
                 No fsync: this measures writing into the page cache.",
                cfg.dir.display()
            ),
            format!("numpy: {np_note}, array prepared before the timed part."),
        ],
        ..Report::default()
    })
}

pub fn tiny_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    let count = cfg.tiny_count;
    let expected: Vec<ArrayD<f32>> = (0..count).map(tiny_array).collect();
    let mut blobs = Vec::with_capacity(count);
    for a in &expected {
        let mut b = Vec::new();
        ndnpy::WriteNpyExt::write_npy(a, &mut b)?;
        blobs.push(b);
    }
    let total: f64 = expected.iter().flatten().map(|&x| f64::from(x)).sum();

    // numpy builds its own blobs with np.save; compare them with ours byte for byte.
    np.ok(&format!("tiny_prep {count}"))?;
    let dump = cfg.dir.join("tiny_numpy.bin");
    let _cleanup = Cleanup(vec![dump.clone()]);
    np.ok(&format!("tiny_dump {}", path_str(&dump)?))?;
    let same_bytes = std::fs::read(&dump)? == blobs.concat();

    let (blobs, expected) = (&blobs, &expected);
    let mismatch = |who: &str, k: usize| format!("{who}: tiny array {k} differs");
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            for (k, b) in blobs.iter().enumerate() {
                let a = <ArrayD<f32> as ndnpy::ReadNpyExt>::read_npy(&b[..])?;
                if check && a != expected[k] {
                    return Err(mismatch(NDNPY, k).into());
                }
                black_box(a);
            }
            Ok(t.elapsed())
        }),
        Imp::new(NDARRAY_NPY, move |check| {
            let t = Instant::now();
            for (k, b) in blobs.iter().enumerate() {
                let a = <ArrayD<f32> as ndarray_npy::ReadNpyExt>::read_npy(&b[..])?;
                if check && a != expected[k] {
                    return Err(mismatch(NDARRAY_NPY, k).into());
                }
                black_box(a);
            }
            Ok(t.elapsed())
        }),
        Imp::new(NPYZ, move |check| {
            let t = Instant::now();
            for (k, b) in blobs.iter().enumerate() {
                let npy = npyz::NpyFile::new(&b[..])?;
                let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
                let fortran = npy.order() == npyz::Order::Fortran;
                let data = npy.into_vec::<f32>()?;
                let a = ArrayD::from_shape_vec(IxDyn(&shape).set_f(fortran), data)?;
                if check && a != expected[k] {
                    return Err(mismatch(NPYZ, k).into());
                }
                black_box(a);
            }
            Ok(t.elapsed())
        }),
        Imp::new(NUMPY, move |check| {
            let d = np.timed("tiny_read")?;
            if check {
                np.check_sum("tiny_check", total)?;
            }
            Ok(d)
        }),
        Imp::new(RAW, move |_check| {
            let t = Instant::now();
            for b in blobs {
                black_box(b.to_vec());
            }
            Ok(t.elapsed())
        }),
    ];
    let rows_out = crate::measure(imps, cfg.tiny_rounds)?;
    Ok(Report {
        title: format!(
            "tiny: read {count} tiny f32 arrays (shapes (3,), (2, 2), (5,), (2, 3)) from memory"
        ),
        bytes: None,
        items: Some(count),
        rows: rows_out,
        targets: vec![(NDARRAY_NPY, 0.1)],
        notes: vec![format!(
            "Blobs built once in memory ({} bytes in all); they are {} the blobs numpy's np.save \
                 builds in the worker. ndnpy / ndarray-npy: `ArrayD::<f32>::read_npy(&blob[..])`; \
                 npyz: `NpyFile::new(&blob[..])` + `into_vec::<f32>()` + `ArrayD::from_shape_vec`; \
                 numpy: `np.load(io.BytesIO(b))` in a Python loop over its own blobs; \
                 raw floor: `blob.to_vec()` (one allocation and copy per blob).",
            blobs.iter().map(Vec::len).sum::<usize>(),
            if same_bytes {
                "byte for byte"
            } else {
                "NOT byte for byte (!)"
            }
        )],
        ..Report::default()
    })
}

/// `--child-peak PATH`: reads PATH with ndnpy in a fresh process and prints VmHWM (KiB)
/// before and after the read.
pub fn child_peak(path: &Path) -> Res<()> {
    let before = crate::vm_hwm_kib()?;
    let a: Array2<f64> = ndnpy::read_npy(path)?;
    let after = crate::vm_hwm_kib()?;
    black_box(&a);
    println!("{before} {after}");
    Ok(())
}
