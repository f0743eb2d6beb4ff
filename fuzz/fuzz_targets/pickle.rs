//! Object arrays: the data-only pickle reader on any bytes after an object header, then, for
//! what reads, a write and a second read that must give the same bytes again.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::{DynArray, Header, ReadOptions};

fuzz_target!(|data: &[u8]| {
    // The first byte chooses the header's shape, (n,) with n < 64 (the pickle's array must
    // match it); the rest is the pickle.
    let Some((&n, pickle)) = data.split_first() else {
        return;
    };
    let header = Header {
        dtype: ndnpy::DType::from_descr("'|O'").unwrap(),
        fortran_order: false,
        shape: vec![usize::from(n % 64)],
    };
    let mut bytes = header.to_bytes().unwrap();
    bytes.extend_from_slice(pickle);
    let opts = ReadOptions::new();
    if let Ok(a) = DynArray::read_npy_with_options(&bytes[..], &opts) {
        let mut out = Vec::new();
        if a.write_npy(&mut out).is_ok() {
            let b = DynArray::read_npy(&out[..]).expect("what we wrote reads");
            let mut again = Vec::new();
            b.write_npy(&mut again).expect("what we read back writes");
            assert_eq!(out, again);
        }
    }
});
