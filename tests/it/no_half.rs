//! A build without the feature `half` (no `half::f16` element type): an `f2` array that numpy
//! wrote reads through `read_npy_dyn` as raw bytes, exactly as stored, whatever its byte order
//! and layout, and writes back byte for byte.
//! Compiled only without the feature: `cargo test -p ndnpy --test it no_half`.

use ndnpy::{read_npy_dyn, DynArray, DynData};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

#[test]
fn an_f2_array_reads_as_its_stored_bytes_and_writes_back_byte_for_byte() {
    for (name, descr, shape, fortran) in [
        ("f2_le_c_2x3.npy", "'<f2'", &[2usize, 3][..], false),
        ("f2_be_c_2x3x4.npy", "'>f2'", &[2, 3, 4][..], false),
        ("f2_be_f_3x4.npy", "'>f2'", &[3, 4][..], true),
        ("f2_le_0d.npy", "'<f2'", &[][..], false),
    ] {
        let file = std::fs::read(fixture(name)).unwrap();
        let a = read_npy_dyn(fixture(name)).unwrap();
        assert_eq!(a.dtype().descr(), descr, "{name}");
        let DynData::Raw(raw) = a.data() else {
            panic!("{name}: {:?}", a.data());
        };
        assert_eq!(raw.shape, shape, "{name}");
        assert_eq!(raw.fortran_order, fortran, "{name}");
        let n: usize = shape.iter().product();
        assert_eq!(raw.bytes.len(), 2 * n, "{name}");
        assert_eq!(raw.bytes[..], file[file.len() - 2 * n..], "{name}");
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert_eq!(out, file, "{name}");
        // The same through a reader.
        let b = DynArray::read_npy(&file[..]).unwrap();
        assert_eq!(b, a, "{name}");
    }
}
