//! The npz reader on arbitrary bytes: listing, and through each member's handle header peeks,
//! typed and runtime-typed reads, raw bytes, numpy's array-or-bytes and in-place views give
//! errors, never panics; what reads writes back.
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
        let _ = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>(name);
        // The names listed are found (a key finds a member, maybe another one of that name).
        let mut m = npz.member(name).expect("a listed key finds a member");
        let _ = m.header();
        let _ = m.bytes();
        let _ = m.get::<ndarray::OwnedRepr<u8>, ndarray::IxDyn>();
        let _ = m.stored_range();
        let _ = m.view::<u8, ndarray::IxDyn>();
        if let Ok(a) = m.read_dyn() {
            let mut out = Vec::new();
            a.write_npy(&mut out).expect("writing to memory");
            DynArray::read_npy(&out[..]).expect("what we wrote reads");
        }
    }
});
