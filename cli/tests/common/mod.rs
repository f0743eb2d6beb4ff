//! Running the built `ndnpy` as a user would, on fixtures numpy writes, with python3 as the
//! oracle.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The directory of fixtures, written once per test binary by `tests/data/generate.py`.
pub fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("ndnpy-cli-fixtures-{}", std::process::id()));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/generate.py");
        let out = Command::new("python3")
            .arg(script)
            .arg(&dir)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "generate.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
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
