//! The npz reader on arbitrary bytes: listing, header peeks, typed and runtime-typed member
//! reads, raw bytes and in-place views give errors, never panics; what reads writes back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::{DynArray, NpzReader};
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let Ok(mut npz) = NpzReader::new(Cursor::new(data)) else {
        return;
    };
    let Ok(names) = npz.names() else {
        return;
    };
    for name in names.iter().take(16) {
        let _ = npz.header(name);
        let _ = npz.raw_bytes(name);
        let _ = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>(name);
        let _ = npz.view::<u8, ndarray::IxDyn>(name);
        if let Ok(a) = npz.by_name_dyn(name) {
            let mut out = Vec::new();
            a.write_npy(&mut out).expect("writing to memory");
            DynArray::read_npy(&out[..]).expect("what we wrote reads");
        }
    }
});
