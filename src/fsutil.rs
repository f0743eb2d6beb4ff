//! Writing files without ever leaving a half-written one in place of a good one.

use crate::error::Error;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh name next to `path` for a temporary file: same directory (so a rename is atomic),
/// hidden, unique per process and call.
pub(crate) fn temp_sibling(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.ndnpy-tmp-{}-{n}", std::process::id()))
}

/// Creates `path` by writing a temporary sibling with `fill` and renaming it over `path`.
///
/// On any error the temporary file is removed and `path` is untouched: an existing file stays
/// whole, and a reader that has it open or memory-mapped keeps its (unlinked) old contents.
pub(crate) fn replace_atomically<T>(
    path: &Path,
    fill: impl FnOnce(&mut File) -> Result<T, Error>,
) -> Result<(T, File), Error> {
    let tmp = temp_sibling(path);
    let mut file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    let result = fill(&mut file).and_then(|v| {
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        Ok(v)
    });
    match result {
        Ok(v) => Ok((v, file)),
        Err(e) => {
            drop(file);
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}
