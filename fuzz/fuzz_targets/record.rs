//! Derived records read from arbitrary bytes, decoded field by field and read in place
//! (`#[repr(C)]`): errors, never panics; what reads writes back and reads again equal.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndarray::ArrayD;
use ndnpy::{element::FixedBytes, NpyRecord, ReadNpyExt, WriteNpyExt};

#[derive(NpyRecord, Debug, PartialEq, Clone)]
struct Decoded {
    id: i32,
    val: f64,
    #[npy(len = 4)]
    name: String,
    #[npy(len = 3)]
    tag: Vec<u8>,
    ok: bool,
    v: [f32; 2],
}

#[derive(NpyRecord, Debug, PartialEq, Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    id: i32,
    val: f64,
    tag: FixedBytes<3>,
    ok: bool,
}

#[derive(NpyRecord, Debug, PartialEq, Clone)]
struct Outer {
    inner: Packed,
    n: u16,
}

fn check<T: ndnpy::ReadableElement + ndnpy::WritableElement + PartialEq + std::fmt::Debug>(
    data: &[u8],
) {
    if let Ok(a) = ArrayD::<T>::read_npy(data) {
        let mut out = Vec::new();
        a.write_npy(&mut out).expect("writing to memory");
        let b = ArrayD::<T>::read_npy(&out[..]).expect("what we wrote reads");
        assert_eq!(a, b);
    }
}

fuzz_target!(|data: &[u8]| {
    check::<Decoded>(data);
    check::<Packed>(data);
    check::<Outer>(data);
});
