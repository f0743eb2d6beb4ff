//! The Python package's suite (tests/test_ndnpy.py, numpy its oracle), run by `cargo test`:
//! the package is built with maturin into a wheel, installed into a directory of this test's
//! own, and pytest imports it from there. Needs python3 with numpy, pytest and maturin
//! (`python3 -m pip install numpy pytest maturin`).

use std::path::Path;
use std::process::Command;

#[test]
fn the_pytest_suite_passes() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ndnpy-python");
    let (wheels, site) = (scratch.join("wheels"), scratch.join("site"));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&wheels).unwrap();
    let run = |cmd: &mut Command, what: &str| {
        let status = cmd.status().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(status.success(), "{what} failed: {status}");
    };
    // A debug build: the suite checks behaviour, not speed (python/bench.py measures that).
    run(
        Command::new("python3")
            .args(["-m", "maturin", "build", "--quiet", "--out"])
            .arg(&wheels)
            .arg("--manifest-path")
            .arg(crate_dir.join("Cargo.toml")),
        "maturin build",
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("maturin wrote a wheel");
    run(
        Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--target"])
            .arg(&site)
            .arg(&wheel),
        "pip install",
    );
    run(
        Command::new("python3")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(crate_dir.join("tests"))
            .env("PYTHONPATH", &site)
            .current_dir(&scratch),
        "pytest",
    );
}
