//! Readers of a file that grows, and of files that are not regular files.
//!
//! `read_npy` and `NpyMmap::open` read the header first and only then the file's length, so a
//! reader racing an `NpyAppender` sees the array as of some append (old or new), never a
//! spurious error; pipes are read as streams, and a memory map of a pipe is a clear error
//! rather than a hang.

use ndarray::{Array2, ArrayView2, Ix2};
use ndnpy::{ErrorKind, NpyAppender, NpyMmap, WriteNpyExt};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::Scratch;

const COLS: usize = 16;

/// Row `i` of the growing array: `i * COLS + j` in column `j`.
fn rows(start: usize, n: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, COLS), |(i, j)| ((start + i) * COLS + j) as f64)
}

/// Checks that `a` is the first rows of the growing array; returns its number of rows.
fn check_prefix(a: ArrayView2<'_, f64>, what: &str) -> usize {
    assert_eq!(a.ncols(), COLS, "{what}");
    for ((i, j), &v) in a.indexed_iter() {
        assert_eq!(v, (i * COLS + j) as f64, "{what}: element [{i}, {j}]");
    }
    a.nrows()
}

#[test]
fn readers_see_the_old_or_the_new_array_while_an_appender_grows_it() {
    let dir = Scratch::new("growing");
    let path = dir.path("grow.npy");
    NpyAppender::<f64>::create(&path, (0, COLS), false).unwrap();
    let done = AtomicBool::new(false);
    // Bounded: two seconds of appending, restarting from an empty file every 600 rows so
    // that readers keep reading small files (many reads, many races).
    let run_for = Duration::from_secs(2);
    let (appends, (npy_reads, npy_counts), (map_reads, map_counts)) = std::thread::scope(|s| {
        let appender = s.spawn(|| {
            let start = Instant::now();
            let mut appends = 0u64;
            while start.elapsed() < run_for {
                let mut app = NpyAppender::<f64>::create(&path, (0, COLS), false).unwrap();
                let mut n = 0;
                while n < 600 {
                    let k = 1 + appends as usize % 3;
                    app.append(&rows(n, k)).unwrap();
                    n += k;
                    appends += 1;
                }
            }
            done.store(true, Ordering::Relaxed);
            appends
        });
        let npy = s.spawn(|| {
            let (mut reads, mut counts) = (0u64, std::collections::BTreeSet::new());
            while !done.load(Ordering::Relaxed) {
                let a: Array2<f64> = ndnpy::read_npy(&path)
                    .unwrap_or_else(|e| panic!("read_npy failed after {reads} reads: {e}"));
                counts.insert(check_prefix(a.view(), "read_npy"));
                reads += 1;
            }
            (reads, counts)
        });
        let map = s.spawn(|| {
            let (mut reads, mut counts) = (0u64, std::collections::BTreeSet::new());
            while !done.load(Ordering::Relaxed) {
                // SAFETY: the appender only writes the header and after the data; replacing
                // the file goes by rename. Neither touches the mapped data.
                let map = unsafe { NpyMmap::open(&path) }
                    .unwrap_or_else(|e| panic!("NpyMmap::open failed after {reads} reads: {e}"));
                let view = map.view::<f64, Ix2>().unwrap();
                counts.insert(check_prefix(view, "NpyMmap"));
                reads += 1;
            }
            (reads, counts)
        });
        (
            appender.join().unwrap(),
            npy.join().unwrap(),
            map.join().unwrap(),
        )
    });
    eprintln!(
        "{appends} appends; read_npy: {npy_reads} reads, {} distinct row counts; \
         NpyMmap: {map_reads} reads, {} distinct row counts",
        npy_counts.len(),
        map_counts.len()
    );
    // The readers really raced the appender: they saw the array at many sizes.
    assert!(npy_counts.len() > 1 && map_counts.len() > 1);
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path, which lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Runs `f` on a thread and returns its result, failing the test rather than hanging if it
/// does not return within a minute.
fn without_hanging<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the call blocked")
}

#[test]
fn read_npy_reads_a_named_pipe() {
    let dir = Scratch::new("fifo-read");
    let fifo = dir.path("pipe.npy");
    mkfifo(&fifo);
    // Larger than a pipe's buffer: the reader must stream it, not trust a length.
    let a = rows(0, 4_000);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, &bytes).unwrap())
    };
    let back = without_hanging(move || ndnpy::read_npy::<_, Array2<f64>>(&fifo)).unwrap();
    writer.join().unwrap();
    assert_eq!(back, a);
}

#[test]
fn read_npy_into_reads_a_named_pipe() {
    // A pipe has no positions: the path door's positioned read falls back to a stream.
    let dir = Scratch::new("fifo-read-into");
    let fifo = dir.path("pipe.npy");
    mkfifo(&fifo);
    let a = rows(0, 4_000);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, &bytes).unwrap())
    };
    let shape = a.dim();
    let back = without_hanging(move || {
        let mut buffer = Array2::<f64>::zeros(shape);
        ndnpy::read_npy_into(&fifo, buffer.view_mut()).map(|()| buffer)
    })
    .unwrap();
    writer.join().unwrap();
    assert_eq!(back, a);
}

#[test]
fn a_memory_map_of_a_pipe_or_a_directory_is_a_clear_error() {
    let dir = Scratch::new("fifo-map");
    let fifo = dir.path("pipe.npy");
    mkfifo(&fifo);
    // No writer ever opens the FIFO: opening it must not wait for one.
    let (f, d) = (fifo.clone(), dir.0.clone());
    let errs = without_hanging(move || {
        // SAFETY: nothing is mapped: each call fails before mapping.
        unsafe {
            [
                NpyMmap::open(&f).unwrap_err(),
                ndnpy::NpyMmapMut::open(&f).unwrap_err(),
                ndnpy::NpyMmapMut::open_copy_on_write(&f).unwrap_err(),
                NpyMmap::open(&d).unwrap_err(),
            ]
        }
    });
    for e in errs {
        assert_eq!(e.kind(), ErrorKind::Io, "{e:?}");
        let io = e.io_error().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput, "{io}");
    }
}
