//! What the machine itself costs, next to the reads and writes: the physical floors.

use crate::Imp;
use std::fs::File;
use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

pub(crate) const CAT: &str = "floor: cat file > /dev/null";
pub(crate) const READ_HUGE: &str = "floor: read into a fresh huge-page buffer";
pub(crate) const MEMCPY_FRESH: &str = "floor: memcpy into a fresh huge-page buffer";
pub(crate) const MEMCPY_WARM: &str = "floor: memcpy into a resident buffer";

/// A fresh, uninitialised-by-us buffer of `len` zero bytes (calloc: fresh pages from the
/// kernel) with transparent huge pages advised, as ndnpy allocates arrays.
fn fresh_huge(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    advise_huge(&mut v);
    v
}

fn advise_huge(v: &mut [u8]) {
    const HUGE: usize = 2 << 20;
    let p = v.as_mut_ptr() as usize;
    let start = p.next_multiple_of(HUGE);
    let end = (p + v.len()) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside `v`'s allocation; MADV_HUGEPAGE changes only how the
        // kernel backs the pages, never their contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// The floors of reading the file at `path` (whose bytes are `bytes`): `cat` to /dev/null
/// (the page cache read alone, as a process), one `read` into a fresh huge-page buffer (copy
/// plus page faults, one thread), a memcpy of the bytes into a fresh huge-page buffer (page
/// faults plus memory bandwidth, no kernel copy) and into a buffer already resident (memory
/// bandwidth alone).
pub(crate) fn read_floors<'a>(path: &'a Path, bytes: &'a [u8]) -> Vec<Imp<'a>> {
    let mut warm = vec![0u8; bytes.len()];
    vec![
        Imp::new(CAT, move |_| {
            let t = Instant::now();
            let status = Command::new("cat")
                .arg(path)
                .stdout(Stdio::null())
                .status()?;
            let d = t.elapsed();
            if !status.success() {
                return Err("cat failed".into());
            }
            Ok(d)
        }),
        Imp::new(READ_HUGE, move |_| {
            let t = Instant::now();
            let mut f = File::open(path)?;
            let mut buf = fresh_huge(bytes.len());
            f.read_exact(&mut buf)?;
            let d = t.elapsed();
            black_box(&buf);
            Ok(d)
        }),
        Imp::new(MEMCPY_FRESH, move |_| {
            let t = Instant::now();
            let mut buf = fresh_huge(bytes.len());
            buf.copy_from_slice(bytes);
            let d = t.elapsed();
            black_box(&buf);
            Ok(d)
        }),
        Imp::new(MEMCPY_WARM, move |_| {
            let t = Instant::now();
            warm.copy_from_slice(bytes);
            let d = t.elapsed();
            black_box(&warm);
            Ok(d)
        }),
    ]
}
