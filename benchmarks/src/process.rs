//! The `process` case: whole processes that start, load one 256 MiB file and exit, as a script
//! or a command-line tool would, against `python3 -c "import numpy; numpy.load(path)"`.

use crate::cases::{path_str, Cleanup, NDARRAY_NPY, NUMPY};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::Array2;
use std::fs::File;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const PATH_ROW: &str = "ndnpy";
const FILE_ROW: &str = "ndnpy File";
const EMPTY_ROW: &str = "this binary, no load";
const PY_EMPTY_ROW: &str = "python3 + import numpy, no load";

/// The child's side (`--child-load DOOR PATH`): loads `path` through `door` and exits.
pub fn child_load(door: &str, path: &Path) -> Res<()> {
    match door {
        "path" => black_box(ndnpy::read_npy::<_, Array2<f64>>(path)?).len(),
        "file" => black_box(<Array2<f64> as ndnpy::ReadNpyExt>::read_npy(File::open(
            path,
        )?)?)
        .len(),
        "ndarray-npy" => black_box(ndarray_npy::read_npy::<_, Array2<f64>>(path)?).len(),
        "none" => 0,
        other => return Err(format!("unknown door {other}").into()),
    };
    Ok(())
}

/// Runs `cmd` to completion and returns its wall time.
fn run(cmd: &mut Command) -> Res<Duration> {
    let t = Instant::now();
    let out = cmd.output()?;
    let d = t.elapsed();
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(d)
}

pub fn process_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    let (rows, cols) = cfg.shape2();
    let path = cfg.dir.join("process.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?.to_string();
    np.ok(&format!("gen {p} c {rows} {cols}"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let exe = std::env::current_exe()?;
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let ours = |door: &'static str| {
        let (exe, p) = (exe.clone(), p.clone());
        move |_check: bool| run(Command::new(&exe).args(["--child-load", door, &p]))
    };
    let py = |script: String| {
        let python = python.clone();
        move |_check: bool| run(Command::new(&python).arg("-c").arg(&script))
    };
    let imps = vec![
        Imp::new(PATH_ROW, ours("path")),
        Imp::new(FILE_ROW, ours("file")),
        Imp::new(NDARRAY_NPY, ours("ndarray-npy")),
        Imp::new(EMPTY_ROW, ours("none")),
        Imp::new(NUMPY, py(format!("import numpy; numpy.load({p:?})"))),
        Imp::new(PY_EMPTY_ROW, py("import numpy".to_string())),
    ];
    let rows_out = crate::measure(imps, cfg.rounds)?;
    Ok(Report {
        title: format!(
            "process: a fresh process loads {} MiB f64 ({rows}, {cols}) and exits",
            cfg.size_mib
        ),
        bytes: Some(file_len),
        rows: rows_out,
        targets: vec![(NUMPY, 1.0), (NDARRAY_NPY, 1.0)],
        notes: vec![format!(
            "Wall time of a whole process, start to exit, page cache warm; the file written by \
             np.save. ndnpy: this binary run as `--child-load path PATH` \
             (`ndnpy::read_npy::<_, Array2<f64>>(path)`); ndnpy File: `--child-load file PATH` \
             (`Array2::<f64>::read_npy(File::open(path)?)`); ndarray-npy: \
             `ndarray_npy::read_npy(path)`; numpy: `{python} -c \"import numpy; \
             numpy.load(path)\"`. The two `no load` rows are the start-up floors: this binary \
             exiting at once, and Python importing numpy."
        )],
        ..Report::default()
    })
}
