//! The `parquet` case: a (1M, 768) float16 `.npy` of embeddings (1.5 GB; `--rows`) to Parquet
//! by `ndnpy::parquet::ParquetOptions::npy_to_parquet`, against the pyarrow route
//! (`np.load(mmap_mode='r')`, `pa.FixedSizeListArray.from_arrays`, `pq.write_table`), with the
//! same codec on both sides: none (ndnpy's default) and snappy (pyarrow's). Every run is a
//! fresh process, so its peak resident memory is the conversion's own: this binary re-run as
//! `--child-parquet CODEC INPUT OUTPUT`, and `python3 -c` of the pyarrow route. Then the way
//! back, Parquet to `.npy` (`ndnpy::parquet::parquet_to_npy` against `pq.read_table` and
//! `np.save`), from the file as ndnpy writes it and as pyarrow does, of the float16 input and
//! of the same values as float32.

use crate::cases::{remove_if_exists, Cleanup, NDNPY};
use crate::{fmt_secs, Config, Goal, Imp, Report, Res};
use std::cell::RefCell;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const PYARROW: &str = "pyarrow";
const COLS: usize = 768;
const CODECS: [&str; 2] = ["none", "snappy"];
/// The child's "codec" that converts the other way, Parquet to `.npy`.
const TO_NPY: &str = "to-npy";
/// The child's "codec" that converts Parquet to `.npy` with the parquet crate's own column
/// reader (the Arrow record batch reader), the baseline of ndnpy's page reader
/// (`src/convert/parquet/dense.rs`).
const ARROW_READER: &str = "arrow-reader";
const PARQUET_CRATE: &str = "parquet crate's reader";
/// The bound on ndnpy's peak resident memory (issue text: ≤ 128 MiB).
const PEAK_TARGET_MIB: f64 = 128.0;

/// Writes the input: `standard_normal` f32 values (seed 0) as float16, in chunks of 65,536 rows
/// through `open_memmap`, so the generator never holds the whole array. Prints the versions.
const GEN: &str = "\
import platform, sys
import numpy as np
import pyarrow as pa
path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(path, mode='w+', dtype=np.float16, shape=(rows, cols))
for s in range(0, rows, 65536):
    e = min(rows, s + 65536)
    m[s:e] = rng.standard_normal((e - s, cols), dtype=np.float32).astype(np.float16)
m.flush()
del m
print(f'numpy {np.__version__}, pyarrow {pa.__version__}, Python {platform.python_version()}')
";

/// The pyarrow route, exactly as the issue gives it; only the conversion is timed (after the
/// imports). Prints the seconds and ru_maxrss (KiB on Linux) before and after it.
const PYARROW_ROUTE: &str = "\
import resource, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
p, out, codec = sys.argv[1], sys.argv[2], sys.argv[3]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
a = np.load(p, mmap_mode='r')
arr = pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), a.shape[1])
pq.write_table(pa.table({'values': arr}), out, compression=codec)
t = time.perf_counter() - t0
print(t, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
";

/// Reads a Parquet file back with pyarrow, batch by batch, and compares every value bit for bit
/// with the `.npy` input. Prints `ok ROW_GROUPS CODEC TYPE` or `bad ...`.
const CHECK: &str = "\
import sys
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
p, out = sys.argv[1], sys.argv[2]
a = np.load(p, mmap_mode='r')
f = pq.ParquetFile(out)
t = f.schema_arrow.field('values').type
if (f.schema_arrow.names != ['values'] or not pa.types.is_fixed_size_list(t)
        or t.list_size != a.shape[1] or t.value_type != pa.float16()
        or f.metadata.num_rows != a.shape[0]):
    print('bad schema', f.schema_arrow, f.metadata.num_rows)
    sys.exit()
at = 0
for b in f.iter_batches(batch_size=65536):
    col = b.column(0)
    n = len(col)
    v = col.flatten().to_numpy(zero_copy_only=False).view(np.uint16).reshape(n, -1)
    if col.null_count or not np.array_equal(v, a[at:at + n].view(np.uint16)):
        print('bad values in rows', at, at + n)
        sys.exit()
    at += n
if at != a.shape[0]:
    print('bad row count', at)
    sys.exit()
codec = f.metadata.row_group(0).column(0).compression if f.metadata.num_row_groups else '-'
print('ok', f.metadata.num_row_groups, codec, t)
";

/// Writes the input of the way back: the `.npy` input as pyarrow writes it by default
/// (dictionary pages, snappy).
const PYARROW_WRITE: &str = "\
import sys
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
a = np.load(sys.argv[1], mmap_mode='r')
arr = pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), a.shape[1])
pq.write_table(pa.table({'values': arr}), sys.argv[2])
";

/// The encodings of a Parquet file's first column, as pyarrow reports them.
const ENCODINGS: &str = "\
import sys
import pyarrow.parquet as pq
m = pq.ParquetFile(sys.argv[1]).metadata
print(', '.join(sorted({e for g in range(m.num_row_groups) for e in m.row_group(g).column(0).encodings}))
      + '; ' + m.row_group(0).column(0).compression)
";

fn encodings(python: &str, file: &Path) -> Res<String> {
    Ok(output(Command::new(python).arg("-c").arg(ENCODINGS).arg(file))?.0)
}

/// The float16 input as float32, written in chunks of 65,536 rows through `open_memmap`.
const TO_F32: &str = "\
import sys
import numpy as np
a = np.load(sys.argv[1], mmap_mode='r')
m = np.lib.format.open_memmap(sys.argv[2], mode='w+', dtype='<f4', shape=a.shape)
for s in range(0, a.shape[0], 65536):
    m[s:s + 65536] = a[s:s + 65536]
m.flush()
";

/// The way back by pyarrow: the table, its column as one array, its values as numpy's, saved.
/// Prints the seconds and ru_maxrss (KiB) before and after it.
const PYARROW_BACK: &str = "\
import resource, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
p, out = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
col = pq.read_table(p).column('values').combine_chunks()
a = col.values.to_numpy(zero_copy_only=False).reshape(len(col), col.type.list_size)
np.save(out, a)
t = time.perf_counter() - t0
print(t, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
";

/// One run of a route, measured in its own process.
#[derive(Clone, Copy)]
struct Run {
    /// The conversion alone, timed inside the process.
    secs: f64,
    /// Peak resident memory (KiB) before the conversion (after start-up and imports) and at the
    /// end.
    before_kib: u64,
    peak_kib: u64,
    /// The whole process, start to exit, timed by this process.
    wall: Duration,
}

/// `--child-parquet CODEC INPUT OUTPUT`: converts INPUT to OUTPUT with ndnpy and prints the
/// seconds and VmHWM (KiB) before and after the conversion.
/// `--child-parquet to-npy INPUT OUTPUT` converts a Parquet INPUT to `.npy`.
pub fn child_parquet(codec: &str, input: &Path, output: &Path) -> Res<()> {
    let before = crate::vm_hwm_kib()?;
    let t = Instant::now();
    if codec == TO_NPY {
        ndnpy::parquet::parquet_to_npy(input, output)?;
    } else if codec == ARROW_READER {
        arrow_reader_to_npy(input, output)?;
    } else {
        ndnpy::parquet::ParquetOptions::new()
            .compression(codec)
            .npy_to_parquet(input, output)?;
    }
    let secs = t.elapsed().as_secs_f64();
    println!("{secs} {before} {}", crate::vm_hwm_kib()?);
    Ok(())
}

/// Parquet to `.npy` by the parquet crate's own reader, as a user of it would write it: a
/// `ParquetRecordBatchReader` over the file, each batch's fixed-size list column's values
/// written after numpy's header (the same bytes `parquet_to_npy` writes).
fn arrow_reader_to_npy(input: &Path, output: &Path) -> Res<()> {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use std::io::Write;
    let builder = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(input)?)?;
    let rows = usize::try_from(builder.metadata().file_metadata().num_rows())?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(output)?);
    let mut header = false;
    for batch in builder.with_batch_size(8192).build()? {
        let batch = batch?;
        let list = batch.column(0).as_fixed_size_list();
        let width = usize::try_from(list.value_length())?;
        let values = list
            .values()
            .slice(list.offset() * width, list.len() * width);
        let data = values.to_data();
        let size = data
            .data_type()
            .primitive_width()
            .ok_or("the list's values are not of a fixed width")?;
        if !header {
            let descr = match size {
                2 => "'<f2'",
                4 => "'<f4'",
                _ => "'<f8'",
            };
            let h = ndnpy::Header {
                dtype: ndnpy::DType::from_descr(descr)?,
                fortran_order: false,
                shape: vec![rows, width],
            };
            out.write_all(&h.to_bytes()?)?;
            header = true;
        }
        let start = data.offset() * size;
        out.write_all(&data.buffers()[0].as_slice()[start..start + values.len() * size])?;
    }
    out.flush()?;
    Ok(())
}

/// Runs `cmd` to completion and returns its stdout (trimmed) and wall time.
fn output(cmd: &mut Command) -> Res<(String, Duration)> {
    let t = Instant::now();
    let out = cmd.output()?;
    let wall = t.elapsed();
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok((String::from_utf8(out.stdout)?.trim().to_string(), wall))
}

/// Runs one route (its process prints `SECS BEFORE_KIB PEAK_KIB`).
fn run_route(cmd: &mut Command) -> Res<Run> {
    let (text, wall) = output(cmd)?;
    let f: Vec<&str> = text.split_whitespace().collect();
    match f[..] {
        [secs, before, peak] => Ok(Run {
            secs: secs.parse()?,
            before_kib: before.parse()?,
            peak_kib: peak.parse()?,
            wall,
        }),
        _ => Err(format!("{cmd:?}: unexpected output {text:?}").into()),
    }
}

/// pyarrow reads `out` back equal to `input`; returns `ROW_GROUPS CODEC TYPE`.
fn check(python: &str, input: &Path, out: &Path) -> Res<String> {
    let (reply, _) = output(
        Command::new(python)
            .arg("-c")
            .arg(CHECK)
            .arg(input)
            .arg(out),
    )?;
    match reply.strip_prefix("ok ") {
        Some(rest) => Ok(rest.to_string()),
        None => Err(format!("pyarrow check of {}: {reply}", out.display()).into()),
    }
}

/// `out` holds the bytes of `expected` (read 8 MiB at a time); returns `same bytes`.
fn same_bytes(expected: &Path, out: &Path) -> Res<String> {
    use std::io::Read;
    let (mut a, mut b) = (std::fs::File::open(expected)?, std::fs::File::open(out)?);
    let (mut x, mut y) = (vec![0u8; 8 << 20], vec![0u8; 8 << 20]);
    loop {
        let n = a.read(&mut x)?;
        b.read_exact(&mut y[..n]).map_err(|e| {
            format!(
                "{} is shorter than {}: {e}",
                out.display(),
                expected.display()
            )
        })?;
        if x[..n] != y[..n] {
            return Err(format!("{} differs from {}", out.display(), expected.display()).into());
        }
        if n == 0 {
            return if b.read(&mut y)? == 0 {
                Ok("same bytes".into())
            } else {
                Err(format!("{} is longer than {}", out.display(), expected.display()).into())
            };
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[m],
        _ => (v[m - 1] + v[m]) / 2.0,
    }
}

fn mib(kib: f64) -> f64 {
    kib / 1024.0
}

/// What one route did over the timed rounds.
struct Route {
    runs: Vec<Run>,
    /// Output size in bytes and the check's `ROW_GROUPS CODEC TYPE`, from the warm-up run.
    size: u64,
    checked: String,
}

impl Route {
    fn new() -> RefCell<Route> {
        RefCell::new(Route {
            runs: Vec::new(),
            size: 0,
            checked: String::new(),
        })
    }

    fn secs(&self) -> f64 {
        median(self.runs.iter().map(|r| r.secs).collect())
    }

    fn wall(&self) -> f64 {
        median(self.runs.iter().map(|r| r.wall.as_secs_f64()).collect())
    }

    fn peak_mib(&self) -> f64 {
        mib(median(
            self.runs.iter().map(|r| r.peak_kib as f64).collect(),
        ))
    }

    fn max_peak_mib(&self) -> f64 {
        mib(self.runs.iter().map(|r| r.peak_kib).max().unwrap_or(0) as f64)
    }

    fn before_mib(&self) -> f64 {
        mib(median(
            self.runs.iter().map(|r| r.before_kib as f64).collect(),
        ))
    }
}

/// One run of a route: removes `out` (untimed), runs the process, and in the warm-up round
/// checks the output (a Parquet file with pyarrow; an `.npy` file against `input`, byte for
/// byte) and records its size; in timed rounds records the run. The
/// output is removed again at once, so no output of an earlier run is left for the kernel
/// to write back during the next one.
fn one_run(
    route: &RefCell<Route>,
    checking: bool,
    cmd: &mut Command,
    python: Option<&str>,
    input: &Path,
    out: &Path,
) -> Res<Duration> {
    remove_if_exists(out)?;
    let run = run_route(cmd)?;
    let mut r = route.borrow_mut();
    if checking {
        r.size = std::fs::metadata(out)?.len();
        r.checked = match python {
            Some(python) => check(python, input, out)?,
            None => same_bytes(input, out)?,
        };
    } else {
        r.runs.push(run);
    }
    remove_if_exists(out)?;
    Ok(Duration::from_secs_f64(run.secs))
}

/// `parquet`: `--rows` (default 1,000,000) x 768 float16, codecs none and snappy (one table
/// each, then a summary table with peak memory, whole-process times and output sizes).
pub fn parquet_case(cfg: &Config) -> Res<Vec<Report>> {
    let rows = cfg.rows;
    let input = cfg.dir.join("parquet_f16.npy");
    let ours_out = cfg.dir.join("parquet_ndnpy.parquet");
    let theirs_out = cfg.dir.join("parquet_pyarrow.parquet");
    let _cleanup = Cleanup(vec![input.clone(), ours_out.clone(), theirs_out.clone()]);
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let (versions, gen_wall) = output(
        Command::new(&python)
            .arg("-c")
            .arg(GEN)
            .arg(&input)
            .arg(rows.to_string())
            .arg(COLS.to_string()),
    )?;
    // The input's pages written back before the first run, not during it.
    std::fs::File::open(&input)?.sync_all()?;
    let input_len = std::fs::metadata(&input)?.len();
    let exe = std::env::current_exe()?;
    let mut reports = Vec::new();
    let mut summary = Vec::new();
    for codec in CODECS {
        let (ours, theirs) = (Route::new(), Route::new());
        let imps = vec![
            Imp::new(NDNPY, |checking| {
                let mut cmd = Command::new(&exe);
                cmd.arg("--child-parquet")
                    .arg(codec)
                    .arg(&input)
                    .arg(&ours_out);
                one_run(&ours, checking, &mut cmd, Some(&python), &input, &ours_out)
            }),
            Imp::new(PYARROW, |checking| {
                let mut cmd = Command::new(&python);
                cmd.arg("-c")
                    .arg(PYARROW_ROUTE)
                    .arg(&input)
                    .arg(&theirs_out)
                    .arg(codec);
                one_run(
                    &theirs,
                    checking,
                    &mut cmd,
                    Some(&python),
                    &input,
                    &theirs_out,
                )
            }),
        ];
        let rows_out = crate::measure(imps, cfg.rounds)?;
        let (ours, theirs) = (ours.into_inner(), theirs.into_inner());
        let peak = ours.max_peak_mib();
        reports.push(Report {
            title: format!(
                "parquet: a ({rows}, {COLS}) float16 .npy ({:.0} MiB) to Parquet, codec {codec}",
                input_len as f64 / f64::from(1 << 20)
            ),
            bytes: Some(input_len),
            rows: rows_out,
            targets: vec![(PYARROW, 1.0)],
            goals: vec![Goal {
                text: format!(
                    "ndnpy peak RSS {peak:.1} MiB, the highest of {} runs (target ≤ \
                     {PEAK_TARGET_MIB:.0} MiB)",
                    ours.runs.len()
                ),
                met: peak <= PEAK_TARGET_MIB,
            }],
            notes: vec![format!(
                "Warm-up check (pyarrow reads each file back batch by batch, every value compared \
                 bit for bit with the input): ndnpy's file: {}; pyarrow's file: {} (row groups, \
                 codec, type). Sizes: ndnpy {} bytes ({:.1} MiB), pyarrow {} bytes ({:.1} MiB).",
                ours.checked,
                theirs.checked,
                ours.size,
                ours.size as f64 / f64::from(1 << 20),
                theirs.size,
                theirs.size as f64 / f64::from(1 << 20),
            )],
            ..Report::default()
        });
        summary.push((codec, ours, theirs));
    }
    let mut table = String::from(
        "| route | codec | median time | ndnpy ÷ pyarrow | median peak RSS | peak RSS before \
         the conversion | median whole process | output size |\n\
         |---|---|---:|---:|---:|---:|---:|---:|",
    );
    for (codec, ours, theirs) in &summary {
        let ratio = ours.secs() / theirs.secs();
        for (name, r, ratio) in [
            (NDNPY, ours, format!("{ratio:.2}x")),
            (PYARROW, theirs, "".into()),
        ] {
            table.push_str(&format!(
                "\n| {name} | {codec} | {} | {ratio} | {:.1} MiB | {:.1} MiB | {} | {:.1} MiB |",
                fmt_secs(r.secs()),
                r.peak_mib(),
                r.before_mib(),
                fmt_secs(r.wall()),
                r.size as f64 / f64::from(1 << 20),
            ));
        }
    }
    if let Some(last) = reports.last_mut() {
        last.notes.push(table);
        last.notes.push(format!(
            "{versions}. Every run is a fresh process, one after the other with nothing between \
             rounds but deleting the output (before and after each run, untimed; outputs are \
             written into the page cache, not fsynced). ndnpy: this binary re-run as \
             `--child-parquet CODEC INPUT OUTPUT`, timing \
             `ParquetOptions::new().compression(CODEC).npy_to_parquet(INPUT, OUTPUT)` \
             (default row groups, 32 MiB of array data), peak = VmHWM at the end. pyarrow: \
             `{python} -c`, timing with `time.perf_counter()`, after the imports, \
             `a = np.load(p, mmap_mode='r'); arr = pa.FixedSizeListArray.from_arrays(\
             pa.array(a.reshape(-1)), a.shape[1]); pq.write_table(pa.table({{'values': arr}}), \
             out, compression=CODEC)`, peak = `resource.getrusage(RUSAGE_SELF).ru_maxrss`. Both \
             peaks are of the whole process (mapped input pages it touched count as resident); \
             `before` is the peak after start-up and imports. Whole process: start to exit, as \
             timed by this binary. The input (standard normal f32 from \
             `np.random.default_rng(0)`, as float16) was written by numpy through `open_memmap` \
             in {} and synced before the first run; it is read from the page cache.",
            fmt_secs(gen_wall.as_secs_f64()),
        ));
    }
    reports.extend(back(cfg, &python, &input, &exe)?);
    Ok(reports)
}

/// The way back, Parquet to `.npy`: the float16 input, and the same values as float32, as
/// ndnpy writes them by default (no codec; plain pages for float16, dictionary pages for
/// float32, whose values are float16's 65,536 at most) and as pyarrow does (dictionary pages,
/// snappy), each converted by `ndnpy::parquet::parquet_to_npy` and by
/// pyarrow's route, in fresh processes.
fn back(cfg: &Config, python: &str, input: &Path, exe: &Path) -> Res<Vec<Report>> {
    let f32_input = cfg.dir.join("parquet_f32.npy");
    let _cleanup = Cleanup(vec![f32_input.clone()]);
    output(
        Command::new(python)
            .arg("-c")
            .arg(TO_F32)
            .arg(input)
            .arg(&f32_input),
    )?;
    let mut reports = back_of("float16", cfg, python, input, exe)?;
    reports.extend(back_of("float32", cfg, python, &f32_input, exe)?);
    Ok(reports)
}

/// The way back for one `.npy` input of `dtype`.
fn back_of(dtype: &str, cfg: &Config, python: &str, input: &Path, exe: &Path) -> Res<Vec<Report>> {
    let ours_in = cfg.dir.join("parquet_back_ndnpy.parquet");
    let theirs_in = cfg.dir.join("parquet_back_pyarrow.parquet");
    let (ours_out, theirs_out) = (
        cfg.dir.join("parquet_back_ndnpy.npy"),
        cfg.dir.join("parquet_back_pyarrow.npy"),
    );
    let _cleanup = Cleanup(vec![
        ours_in.clone(),
        theirs_in.clone(),
        ours_out.clone(),
        theirs_out.clone(),
    ]);
    ndnpy::parquet::npy_to_parquet(input, &ours_in)?;
    output(
        Command::new(python)
            .arg("-c")
            .arg(PYARROW_WRITE)
            .arg(input)
            .arg(&theirs_in),
    )?;
    let rows = cfg.rows;
    let mut reports = Vec::new();
    for (written_by, file) in [
        ("ndnpy (its defaults: no codec)", &ours_in),
        ("pyarrow (its defaults: snappy)", &theirs_in),
    ] {
        let (ours, theirs, crate_reader) = (Route::new(), Route::new(), Route::new());
        let crate_out = cfg.dir.join("parquet_back_crate.npy");
        let _cleanup_crate = Cleanup(vec![crate_out.clone()]);
        let imps = vec![
            Imp::new(NDNPY, |checking| {
                let mut cmd = Command::new(exe);
                cmd.arg("--child-parquet")
                    .arg(TO_NPY)
                    .arg(file)
                    .arg(&ours_out);
                one_run(&ours, checking, &mut cmd, None, input, &ours_out)
            }),
            Imp::new(PYARROW, |checking| {
                let mut cmd = Command::new(python);
                cmd.arg("-c").arg(PYARROW_BACK).arg(file).arg(&theirs_out);
                one_run(&theirs, checking, &mut cmd, None, input, &theirs_out)
            }),
            Imp::new(PARQUET_CRATE, |checking| {
                let mut cmd = Command::new(exe);
                cmd.arg("--child-parquet")
                    .arg(ARROW_READER)
                    .arg(file)
                    .arg(&crate_out);
                one_run(&crate_reader, checking, &mut cmd, None, input, &crate_out)
            }),
        ];
        let rows_out = crate::measure(imps, cfg.rounds)?;
        let (ours, theirs) = (ours.into_inner(), theirs.into_inner());
        let crate_reader = crate_reader.into_inner();
        let size = std::fs::metadata(file)?.len();
        reports.push(Report {
            title: format!(
                "parquet back: a Parquet file of ({rows}, {COLS}) {dtype} ({:.0} MiB) written by \
                 {written_by} to .npy",
                size as f64 / f64::from(1 << 20)
            ),
            bytes: Some(ours.size),
            rows: rows_out,
            targets: vec![(PYARROW, 1.0), (PARQUET_CRATE, 1.0)],
            notes: vec![format!(
                "Encodings: {}. Warm-up check: each output is, byte for byte, the `.npy` file numpy wrote \
                 (ndnpy: {}; pyarrow: {}; the parquet crate's reader: {}). Median peak RSS: \
                 ndnpy {:.1} MiB ({:.1} MiB before the conversion), pyarrow {:.1} MiB ({:.1} MiB \
                 before), the parquet crate's reader {:.1} MiB. Median whole process: \
                 ndnpy {}, pyarrow {}, the parquet crate's reader {}. The parquet crate's \
                 reader: this binary re-run as `--child-parquet arrow-reader INPUT OUTPUT`, a \
                 `ParquetRecordBatchReader` (batches of 8,192 rows) whose list values are \
                 written after numpy's header. ndnpy: this binary re-run as `--child-parquet to-npy \
                 INPUT OUTPUT`, timing `ndnpy::parquet::parquet_to_npy(INPUT, OUTPUT)`. \
                 pyarrow: `{python} -c`, timing, after the imports, `col = \
                 pq.read_table(p).column('values').combine_chunks(); a = \
                 col.values.to_numpy(zero_copy_only=False).reshape(len(col), \
                 col.type.list_size); np.save(out, a)`.",
                encodings(python, file)?,
                ours.checked,
                theirs.checked,
                crate_reader.checked,
                ours.peak_mib(),
                ours.before_mib(),
                theirs.peak_mib(),
                theirs.before_mib(),
                crate_reader.peak_mib(),
                fmt_secs(ours.wall()),
                fmt_secs(theirs.wall()),
                fmt_secs(crate_reader.wall()),
            )],
            ..Report::default()
        });
    }
    Ok(reports)
}
