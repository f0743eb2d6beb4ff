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

// ---- peak memory of one case, measured in a child process -----------------------------------

/// The environment variable that names the case a child process runs (see
/// [`child_peak_rss`]).
pub const CHILD_CASE: &str = "NDNPY_CHILD_CASE";

/// The environment variable with the address space (bytes) a child may add to what it has
/// when its case starts (see [`child_peak_rss`]).
pub const CHILD_VM_HEADROOM: &str = "NDNPY_CHILD_VM_HEADROOM";

/// What a case run in a child process measured, from the child's `/proc/self/status`.
#[derive(Debug, Clone)]
pub struct ChildPeak {
    /// Resident bytes (`VmRSS`) when the case started, right after the peak was reset.
    pub baseline: u64,
    /// The most resident bytes (`VmHWM`) from then until the case ended.
    pub peak: u64,
    /// The lines the case printed with [`child_say`], in order.
    pub said: Vec<String>,
}

impl ChildPeak {
    /// How far resident memory rose above the baseline during the case.
    pub fn rise(&self) -> u64 {
        self.peak.saturating_sub(self.baseline)
    }
}

/// The name libtest knows a test by: `name` in `module` (pass `module_path!()`), without the
/// crate's own name, as `--exact` wants it (`npz::reads_np_savez_stored`).
pub fn test_path(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

/// Re-runs the current test binary with only the test `name` of `module` (pass
/// `module_path!()`) selected and [`CHILD_CASE`] set to `case`, and returns its standard
/// output. Panics, with the child's output, if the child fails or did not run that test.
fn run_child(module: &str, name: &str, case: &str, vm_headroom: Option<u64>) -> String {
    let test = test_path(module, name);
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut cmd = Command::new(exe);
    cmd.args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_CASE, case);
    match vm_headroom {
        Some(bytes) => cmd.env(CHILD_VM_HEADROOM, bytes.to_string()),
        None => cmd.env_remove(CHILD_VM_HEADROOM),
    };
    let out = cmd.output().expect("cannot run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "case {case:?} of {test} failed in its child process ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // libtest selects nothing, and succeeds, for a name it does not know.
    assert!(
        stdout.contains("running 1 test"),
        "the child ran no test named {test}:\n{stdout}"
    );
    stdout
}

/// Runs test `name` of `module` (pass `module_path!()`) again in a child process, for a test
/// that changes something process-wide (a resource limit, a signal's disposition). That test
/// must start with
///
/// ```ignore
/// if common::child_case().is_none() {
///     return common::run_in_child(module_path!(), "its_name");
/// }
/// ```
///
/// so that the parent only starts the child, and the child runs the test's body. Panics, with
/// the child's output, if the child fails.
pub fn run_in_child(module: &str, name: &str) {
    run_child(module, name, "alone", None);
}

/// Runs one case of a test in a child process and returns its peak resident memory.
///
/// Peak resident memory (`VmHWM`) is a property of a whole process, so each case gets its own:
/// this re-runs the current test binary with only the test `name` of `module` selected (pass
/// `module_path!()`; see [`test_path`]) and [`CHILD_CASE`] set to `case`. That test must start
/// with
///
/// ```ignore
/// if let Some(case) = common::child_case() {
///     return common::run_child_case(|| run_case(&case));
/// }
/// ```
///
/// so that in the child it runs the case alone (see [`run_child_case`]). Input files should
/// be written by the parent, so that building them does not count.
///
/// With `vm_headroom`, the child limits its address space (`RLIMIT_AS`, as `ulimit -v` does)
/// to what it holds when the case starts plus `vm_headroom` bytes: an allocation beyond that
/// fails instead of being overcommitted, which shows that the case asks for no such
/// allocation, or survives its failure.
///
/// Panics, with the child's output, if the child fails: a failed assertion in the case, or
/// a crash (an abort on a failed allocation shows as a signal).
#[cfg(target_os = "linux")]
pub fn child_peak_rss(module: &str, name: &str, case: &str, vm_headroom: Option<u64>) -> ChildPeak {
    let stdout = run_child(module, name, case, vm_headroom);
    let test = test_path(module, name);
    let mut peak = None;
    let mut said = Vec::new();
    for line in stdout.lines() {
        // libtest prints the test's name first, on the line its output starts.
        let line = line.find("ndnpy-child-").map_or("", |at| &line[at..]);
        if let Some(rest) = line.strip_prefix("ndnpy-child-peak ") {
            let mut it = rest.split(' ').map(|n| n.parse::<u64>().unwrap());
            peak = Some((it.next().unwrap(), it.next().unwrap()));
        } else if let Some(rest) = line.strip_prefix("ndnpy-child-say ") {
            said.push(rest.to_string());
        }
    }
    let (baseline, peak) = peak.unwrap_or_else(|| {
        panic!("case {case:?} of {test} ran no case (does the test call child_case?):\n{stdout}")
    });
    ChildPeak {
        baseline,
        peak,
        said,
    }
}

/// The case to run when this process is a child started by [`child_peak_rss`] or
/// [`run_in_child`].
pub fn child_case() -> Option<String> {
    std::env::var(CHILD_CASE).ok()
}

/// In a child started by [`child_peak_rss`]: applies the address space limit if one was
/// asked for, resets the peak resident size to the current one, runs `case`, and prints the
/// measurement for the parent.
#[cfg(target_os = "linux")]
pub fn run_child_case(case: impl FnOnce()) {
    if let Ok(headroom) = std::env::var(CHILD_VM_HEADROOM) {
        let headroom: u64 = headroom.parse().unwrap();
        limit_address_space(status_bytes("VmSize") + headroom);
    }
    // "5" resets VmHWM to VmRSS (Linux 4.0 and later).
    std::fs::write("/proc/self/clear_refs", "5").expect("cannot reset the peak resident size");
    let baseline = status_bytes("VmRSS");
    case();
    let peak = status_bytes("VmHWM");
    println!("ndnpy-child-peak {baseline} {peak}");
}

/// In a child's case: a line for the parent ([`ChildPeak::said`]).
pub fn child_say(line: &str) {
    assert!(!line.contains('\n'));
    println!("ndnpy-child-say {line}");
}

/// A `kB` field of `/proc/self/status`, in bytes.
#[cfg(target_os = "linux")]
pub fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kb: u64 = line.trim().trim_end_matches("kB").trim().parse().unwrap();
    kb * 1024
}

/// Sets this process's address space limit (`RLIMIT_AS`, soft and hard), as `ulimit -v`.
#[cfg(target_os = "linux")]
fn limit_address_space(bytes: u64) {
    #[repr(C)]
    struct Rlimit {
        cur: u64,
        max: u64,
    }
    extern "C" {
        fn setrlimit(resource: std::ffi::c_int, rlim: *const Rlimit) -> std::ffi::c_int;
    }
    const RLIMIT_AS: std::ffi::c_int = 9;
    let lim = Rlimit {
        cur: bytes,
        max: bytes,
    };
    // SAFETY: setrlimit reads only the struct passed, which lives on the stack for the call;
    // the limit applies to this child process alone.
    let rc = unsafe { setrlimit(RLIMIT_AS, &lim) };
    assert_eq!(rc, 0, "setrlimit(RLIMIT_AS) failed");
}
