//! Helpers shared by the integration tests: scratch directories and calls to numpy.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A fresh, empty directory named after the test.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ndnpy-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A path in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The bytes of a file in the directory.
    pub fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The names in the directory, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a python snippet with numpy imported as `np` (and `sys`, `io`); `d` is `dir`, and
/// numpy's warnings (such as "Stored array in format 3.0") are silenced. Returns its trimmed
/// standard output, panicking with its output if it fails.
pub fn numpy(dir: &Path, script: &str) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sys, io, numpy as np\nd = sys.argv[1]\n{script}"
        ))
        .arg(dir)
        .output()
        .expect("python3 with numpy is needed for these tests (python3 -m pip install numpy)");
    assert!(
        out.status.success(),
        "python failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A fresh, empty directory that the caller removes (for tests that keep it on failure).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ndnpy-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs a whole python script with `args`; returns its standard output, panicking with its
/// output if it fails.
pub fn python(script: &str, args: &[&Path]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 with numpy is needed for these tests (python3 -m pip install numpy)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "python failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
