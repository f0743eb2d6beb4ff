//! The npz reader on arbitrary bytes: listing, and through each member's handle header peeks,
//! typed and runtime-typed reads, raw bytes, numpy's array-or-bytes and in-place views give
//! errors, never panics; what reads writes back. The same archive read through a caller's
//! byte source (`NpzReader::from_source`, no bytes in memory to take) lists the same members
//! and gives each member's bytes, or the same kind of error; a stored member as a source
//! (`stored_source`) is read by `NpyReader` without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::source::ReadAt;
use ndnpy::{DynArray, NpyReader, NpzReader};
use std::io::{self, Cursor};

/// Bytes read only by `read_at`, as a caller's source of its own is.
struct Opaque<'a>(&'a [u8]);

impl ReadAt for Opaque<'_> {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.0.len() as u64)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.0.read_at(offset, buf)
    }
}

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
    let mut by_source = NpzReader::from_source(Opaque(data)).expect("the same directory reads");
    assert_eq!(by_source.names().ok(), Some(names.clone()));
    for i in 0..npz.len().min(16) {
        let want = npz.member(i).expect("an index in range").bytes();
        let mut m = by_source.member(i).expect("an index in range");
        match (m.bytes(), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want),
            (Err(got), Err(want)) => assert_eq!(got.kind(), want.kind()),
            (got, want) => panic!("by source {got:?}, by cursor {want:?}"),
        }
        let stored = m.stored_source();
        if let Ok(Some(source)) = stored {
            if let Ok(mut npy) = NpyReader::new(source) {
                let _ = npy.read_rows::<u8, ndarray::IxDyn>(0..1);
            }
        }
    }
});
