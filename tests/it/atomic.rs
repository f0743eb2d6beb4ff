//! Writes never destroy the user's data: replacing is atomic, a failed write leaves the old
//! file whole, a live map of the old file keeps working, and create_new never replaces.

use ndarray::{array, Array1};
use ndnpy::{dtype::DateTimeUnit, dtype::TimeUnit, Datetime64, Error, ErrorKind, NpyMmap};

use crate::common::Scratch;

/// An array whose write fails after the header: mixed datetime units.
fn failing_array() -> Array1<Datetime64> {
    let s = Some(DateTimeUnit {
        unit: TimeUnit::Seconds,
        multiplier: 1,
    });
    let ms = Some(DateTimeUnit {
        unit: TimeUnit::Milliseconds,
        multiplier: 1,
    });
    let mut v = vec![Datetime64::new(1, s); 100_000];
    v.push(Datetime64::new(2, ms));
    Array1::from_vec(v)
}

#[test]
fn failed_write_leaves_the_old_file_whole() {
    let dir = Scratch::new("fail");
    let path = dir.0.join("a.npy");
    ndnpy::write_npy(&path, &array![1.0f64, 2.0, 3.0]).unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = ndnpy::Error::from(ndnpy::write_npy(&path, &failing_array()).unwrap_err());
    assert_mixed_units_at_100_000(&err);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(dir.entries(), ["a.npy"], "no temporary file left behind");
}

/// `err` is the error of writing [`failing_array`]: the value at index 100,000 has another
/// unit than the ones before it.
fn assert_mixed_units_at_100_000(err: &Error) {
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    assert_eq!(err.element_index(), Some(100_000), "{err}");
}

#[test]
fn a_live_map_of_the_old_file_survives_replacement() {
    let dir = Scratch::new("live-map");
    let path = dir.0.join("m.npy");
    let old = Array1::from_iter((0..100_000).map(|i| i as f64));
    ndnpy::write_npy(&path, &old).unwrap();
    // SAFETY: this test replaces the file only by rename, which leaves the mapped inode alone.
    let map = unsafe { NpyMmap::open(&path) }.unwrap();
    ndnpy::write_npy(&path, &array![42.0f64]).unwrap();
    // The map still sees every old value: the old file was never truncated.
    let view = map.view::<f64, ndarray::Ix1>().unwrap();
    assert_eq!(view, old);
    let new: Array1<f64> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(new, array![42.0]);
}

#[test]
fn create_new_never_replaces_and_cleans_up_after_itself() {
    let dir = Scratch::new("create");
    let path = dir.0.join("c.npy");
    ndnpy::create_new_npy(&path, &array![1u8]).unwrap();
    let err = ndnpy::Error::from(ndnpy::create_new_npy(&path, &array![2u8]).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert_eq!(
        err.io_error().unwrap().kind(),
        std::io::ErrorKind::AlreadyExists
    );
    assert_eq!(ndnpy::read_npy::<_, Array1<u8>>(&path).unwrap(), array![1]);
    let other = dir.0.join("d.npy");
    let err = ndnpy::Error::from(ndnpy::create_new_npy(&other, &failing_array()).unwrap_err());
    assert_mixed_units_at_100_000(&err);
    assert!(!other.exists(), "the partial file is removed");
}

#[test]
fn npz_create_replaces_only_on_finish() {
    let dir = Scratch::new("npz");
    let path = dir.0.join("a.npz");
    let mut npz = ndnpy::NpzWriter::create(&path).unwrap();
    npz.add_array("x", &array![1i32, 2]).unwrap();
    npz.finish().unwrap();
    let before = std::fs::read(&path).unwrap();
    // SAFETY: the archive is replaced only by rename, which leaves the mapped inode alone.
    let map = unsafe { memmap2::Mmap::map(&std::fs::File::open(&path).unwrap()) }.unwrap();

    // Dropped unfinished: the old archive stays, no temporary file remains.
    let mut npz = ndnpy::NpzWriter::create(&path).unwrap();
    npz.add_array("y", &array![3.0f64]).unwrap();
    drop(npz);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(dir.entries(), ["a.npz"]);

    // A failed member (mixed datetime units) and then a drop: still the old archive.
    let mut npz = ndnpy::NpzWriter::create(&path).unwrap();
    let err = ndnpy::Error::from(npz.add_array("bad", &failing_array()).unwrap_err());
    assert_mixed_units_at_100_000(&err);
    drop(npz);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(dir.entries(), ["a.npz"]);

    // Finished: replaced, while the old map still reads the old bytes.
    let mut npz = ndnpy::NpzWriter::create(&path).unwrap();
    npz.add_array("z", &array![4u8]).unwrap();
    npz.finish().unwrap();
    assert_eq!(&map[..], &before[..]);
    let mut back = ndnpy::NpzReader::open(&path).unwrap();
    assert_eq!(back.names().unwrap(), ["z"]);
    assert_eq!(dir.entries(), ["a.npz"]);
}
