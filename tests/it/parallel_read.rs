//! The `parallel` feature's large reads, end to end on files numpy wrote: a read by path split
//! over several threads gives the same array as one thread, in C and Fortran order and in
//! either byte order; a large stored `.npz` member, read in parts on two threads (from a file)
//! or with its CRC-32 on a second thread (from memory), reads whole and fails its check when a
//! byte is flipped anywhere.

use crate::common::{numpy, Scratch};
use ndarray::{Array2, ArrayD};
use ndnpy::{ErrorKind, NpzReader, ReadOptions};

/// 3 x 1,000,003 f64 (24 MB): over the 16 MiB at which reads are split, and not a multiple of
/// the 2 MiB part boundary.
const ROWS: usize = 3;
const COLS: usize = 1_000_003;

fn expected() -> Array2<f64> {
    Array2::from_shape_fn((ROWS, COLS), |(i, j)| (i * COLS + j) as f64 * 0.5)
}

#[test]
fn split_reads_by_path_equal_one_thread_reads_in_every_layout() {
    let dir = Scratch::new("parallel-read");
    numpy(
        &dir.0,
        &format!(
            "a = (np.arange({ROWS} * {COLS}) * 0.5).reshape({ROWS}, {COLS})\n\
             np.save(d + '/c.npy', a)\n\
             np.save(d + '/f.npy', np.asfortranarray(a))\n\
             np.save(d + '/be.npy', a.astype('>f8'))"
        ),
    );
    let want = expected();
    for name in ["c.npy", "f.npy", "be.npy"] {
        for threads in [1, 2, 3, 4] {
            let opts = ReadOptions::new().threads(threads);
            let a: Array2<f64> = opts.read_npy(dir.path(name)).unwrap();
            assert_eq!(a, want, "{name} with {threads} threads");
        }
        let d = ndnpy::read_npy_dyn(dir.path(name)).unwrap();
        assert_eq!(d.shape(), [ROWS, COLS], "{name} through read_npy_dyn");
    }
}

#[test]
fn large_stored_members_are_read_whole_and_checked() {
    let dir = Scratch::new("parallel-member");
    numpy(
        &dir.0,
        &format!(
            "a = (np.arange({ROWS} * {COLS}) * 0.5).reshape({ROWS}, {COLS})\n\
             np.savez(d + '/z.npz', a=a)"
        ),
    );
    let a: Array2<f64> = NpzReader::open(dir.path("z.npz"))
        .unwrap()
        .by_name("a")
        .unwrap();
    assert_eq!(a, expected());

    // Flip one bit of one value: near the data's start (in the bytes buffered with the
    // header), in its first half, in its second half, near its end. Each time the archive's
    // CRC-32 no longer matches, read from a file (two threads) or from memory (one copy).
    let good = dir.read("z.npz");
    for i in [3, ROWS * COLS / 3, 2 * ROWS * COLS / 3, ROWS * COLS - 2] {
        let mut bytes = good.clone();
        let at = bytes
            .windows(8)
            .rposition(|w| w == (i as f64 * 0.5).to_le_bytes())
            .expect("the value is in the archive");
        bytes[at] ^= 1;
        std::fs::write(dir.path("bad.npz"), &bytes).unwrap();
        let from_file = NpzReader::open(dir.path("bad.npz"))
            .unwrap()
            .by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>("a")
            .map(|a: ArrayD<f64>| a.len());
        let from_memory = NpzReader::new(std::io::Cursor::new(&bytes))
            .unwrap()
            .by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>("a")
            .map(|a: ArrayD<f64>| a.len());
        for (err, how) in [(from_file, "file"), (from_memory, "memory")] {
            let err = ndnpy::Error::from(err.unwrap_err());
            assert_eq!(
                err.kind(),
                ErrorKind::Archive,
                "value {i} flipped, read from {how}: {err:?}"
            );
            assert_eq!(
                err.member(),
                Some("a.npy"),
                "value {i} flipped, read from {how}"
            );
            assert_eq!(
                err.fault(),
                Some(ndnpy::Fault::Checksum),
                "value {i} flipped, read from {how}: {err}"
            );
        }
    }
}
