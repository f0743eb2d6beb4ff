//! Running the built `ndnpy` as a user would, on fixtures numpy writes, with python3 as the
//! oracle.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The directory of fixtures that `tests/data/generate.py` writes: one per version of the
/// script (named by a hash of it), written once into a temporary directory and renamed into
/// place, so test binaries share it and reruns reuse it.
pub fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/generate.py");
        let text = std::fs::read(script).expect("generate.py");
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&text, &mut hasher);
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let dir = tmp.join(format!(
            "ndnpy-cli-fixtures-{:016x}",
            std::hash::Hasher::finish(&hasher)
        ));
        if dir.is_dir() {
            return dir;
        }
        let part = tmp.join(format!("ndnpy-cli-fixtures-part-{}", std::process::id()));
        let out = Command::new("python3")
            .arg(script)
            .arg(&part)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "generate.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Another test binary may have got there first: then its copy is used.
        if std::fs::rename(&part, &dir).is_err() {
            std::fs::remove_dir_all(&part).expect("remove the spare fixtures");
        }
        dir
    })
}

/// The path of fixture `name`, as a string for the command line.
pub fn fx(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

/// What a run of the binary gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `ndnpy args...`.
pub fn ndnpy(args: &[&str]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_ndnpy"))
        .args(args)
        .output()
        .expect("ndnpy runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// Runs `ndnpy args...` and expects success: its standard output.
pub fn ok(args: &[&str]) -> String {
    let r = ndnpy(args);
    assert_eq!(r.code, 0, "ndnpy {args:?} failed: {}", r.stderr);
    r.stdout
}

/// What `python3` prints for `code`, run after `import numpy as np` with `D` the fixtures
/// directory (a string ending in `/`).
pub fn numpy(code: &str) -> String {
    let prelude = format!(
        "import numpy as np, json, sys\nD = {:?}\n",
        format!("{}/", fixtures().display())
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!("{prelude}{code}"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed on {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A fresh directory for one test's outputs, `ndnpy-cli-{tag}-{pid}` under cargo's
/// temporary directory.
#[allow(dead_code)]
pub fn out_dir(tag: &str) -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ndnpy-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as an argument.
#[allow(dead_code)]
pub fn s(p: std::path::PathBuf) -> String {
    p.display().to_string()
}

/// What `python3` prints for `code`, run after `prelude` (its imports) with `d` the
/// directory `dir` as a string ending in `/`; panics with python's error if it fails.
#[allow(dead_code)]
pub fn py_in(dir: &std::path::Path, prelude: &str, code: &str) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "{prelude}\nd = {:?}\n{code}",
            format!("{}/", dir.display())
        ))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
