//! The appender under injected I/O errors: the kernel refuses writes past a file size limit
//! (RLIMIT_FSIZE, like a full disk), in the middle of an append. The file must still load with
//! its old shape, and appending works again once the limit is lifted.
//!
//! Linux only. The limit applies to the whole process, so the test runs in a child process of
//! its own (`common::run_in_child`).

use ndarray::{Array2, Axis};
use ndnpy::{ErrorKind, NpyAppender, ReadNpyExt};

use crate::common::{numpy, Scratch};

/// Sets the soft file size limit of this process.
fn limit_file_size(bytes: u64) {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write only the struct passed, which lives on the
    // stack for the calls; the limit affects this child process alone.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut cur), 0);
        let lim = libc::rlimit {
            rlim_cur: bytes.min(cur.rlim_max),
            rlim_max: cur.rlim_max,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
    }
}

#[test]
fn a_failed_append_leaves_the_old_shape_and_the_next_one_works() {
    if crate::common::child_case().is_none() {
        return crate::common::run_in_child(
            module_path!(),
            "a_failed_append_leaves_the_old_shape_and_the_next_one_works",
        );
    }
    // Writes past the limit fail with EFBIG instead of killing the process.
    // SAFETY: ignoring SIGXFSZ changes only how this process reacts to that signal.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let dir = Scratch::new("appender-io");
    let path = dir.path("grow.npy");
    let block =
        |k: usize| Array2::from_shape_fn((128, 256), |(i, j)| (k * 1_000_000 + i * 256 + j) as f64);
    let mut app = NpyAppender::<f64>::create(&path, (0, 256), false).unwrap();
    app.append(&block(0)).unwrap();
    app.append(&block(1)).unwrap();
    let good = std::fs::read(&path).unwrap();

    // The next 256 KiB block can only get 100 KiB in: the data write fails part way.
    limit_file_size(good.len() as u64 + 100 * 1024);
    let err = app.append(&block(2)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    let on_disk = std::fs::read(&path).unwrap();
    assert!(
        on_disk.len() > good.len(),
        "the failed write left partial data after the old data"
    );
    assert_eq!(
        on_disk[..128],
        good[..128],
        "the header still gives the old shape"
    );
    let a = Array2::<f64>::read_npy(&on_disk[..]).unwrap();
    assert_eq!(a.nrows(), 256);
    let out = numpy(
        &dir.0,
        "a = np.load(f'{d}/grow.npy', mmap_mode='r'); print(a.shape)",
    );
    assert_eq!(out, "(256, 256)");

    // Lifted: the appender goes on from the old end, overwriting the partial data.
    limit_file_size(u64::MAX);
    app.append(&block(3)).unwrap();
    let a: Array2<f64> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(a.nrows(), 384);
    assert_eq!(a.slice_axis(Axis(0), (0..128).into()), block(0));
    assert_eq!(a.slice_axis(Axis(0), (256..384).into()), block(3));
    let out = numpy(
        &dir.0,
        "a = np.load(f'{d}/grow.npy'); print(a.shape, int(a[300, 5]))",
    );
    assert_eq!(out, format!("(384, 256) {}", 3_000_000 + 44 * 256 + 5));
}
