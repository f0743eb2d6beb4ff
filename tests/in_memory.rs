//! Reading and writing `.npy` and `.npz` data held in memory, with nothing but the standard
//! library's in-memory readers and writers: the part of the crate that works where there are
//! no files, threads or maps (WebAssembly). CI also builds this test for `wasm32-wasip1` and
//! runs it under Node.js's WASI (`scripts/wasm.sh`).

use ndarray::{array, Array1, Array2, ArrayD};
use ndnpy::{DynArray, NpzReader, NpzWriter, ReadNpyError, ReadNpyExt, WriteNpyExt};
use std::io::Cursor;

/// numpy's own bytes (`testdata/generate.py` and `testdata/generate_npz.py` wrote them).
const EXAMPLE_NPY: &[u8] = include_bytes!("../testdata/example.npy");
const COMPRESSED_NPZ: &[u8] = include_bytes!("../testdata/npz_compressed.npz");
const STORED_NPZ: &[u8] = include_bytes!("../testdata/npz_stored.npz");

#[test]
fn npy_bytes_read_and_write_back_as_numpy_wrote_them() {
    let a = Array2::<f64>::read_npy(EXAMPLE_NPY).unwrap();
    assert_eq!((a.shape(), a[[1, 2]]), (&[2, 3][..], 1.5));
    let d = DynArray::read_npy(EXAMPLE_NPY).unwrap();
    assert_eq!(d.shape(), [2, 3]);
    let mut out = Vec::new();
    a.write_npy(&mut out).unwrap();
    assert_eq!(out, EXAMPLE_NPY);
}

#[test]
fn npz_bytes_read_by_name_stored_and_deflated() {
    for archive in [STORED_NPZ, COMPRESSED_NPZ] {
        let mut npz = NpzReader::new(Cursor::new(archive)).unwrap();
        assert_eq!(
            npz.names().unwrap(),
            ["a", "fortran", "big_endian", "scalar", "empty", "flags"]
        );
        let a: Array2<f64> = npz.by_name("a").unwrap();
        assert_eq!(a.shape(), [2, 3]);
        let be: Array1<u16> = npz.by_name("big_endian").unwrap();
        assert_eq!(be.len(), 5);
        let any = npz.by_name_dyn("fortran").unwrap();
        assert_eq!(any.shape(), [3, 4]);
    }
}

#[test]
fn npz_written_in_memory_reads_back() {
    let mut npz = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    npz.add_array("x", &array![[1i32, 2], [3, 4]]).unwrap();
    npz.add_array("y", &ArrayD::<f32>::zeros(vec![2, 2, 2]))
        .unwrap();
    let bytes = npz.finish().unwrap().into_inner();
    let mut back = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let x: Array2<i32> = back.by_name("x").unwrap();
    assert_eq!(x, array![[1, 2], [3, 4]]);
    let y: ArrayD<f32> = back.by_name("y").unwrap();
    assert_eq!(y.len(), 8);
}

#[test]
fn bad_bytes_are_errors() {
    let err = Array1::<f64>::read_npy(&EXAMPLE_NPY[..40]).unwrap_err();
    assert!(matches!(err, ReadNpyError::Io(_)), "{err:?}");
    assert!(NpzReader::new(Cursor::new(EXAMPLE_NPY)).is_err());
}
