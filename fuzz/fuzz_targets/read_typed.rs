//! Typed reads of arbitrary bytes, for several element types: errors, never panics; what
//! reads writes back and reads again equal.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndarray::ArrayD;
use ndnpy::{ReadNpyExt, WriteNpyExt};

fn check<T: ndnpy::ReadableElement + ndnpy::WritableElement + PartialEq + std::fmt::Debug>(
    data: &[u8],
) {
    if let Ok(a) = ArrayD::<T>::read_npy(data) {
        let mut out = Vec::new();
        a.write_npy(&mut out).expect("writing to memory");
        let b = ArrayD::<T>::read_npy(&out[..]).expect("what we wrote reads");
        assert_eq!(a.shape(), b.shape());
    }
}

fuzz_target!(|data: &[u8]| {
    check::<f64>(data);
    check::<i16>(data);
    check::<bool>(data);
    check::<u8>(data);
    check::<String>(data);
    check::<Vec<u8>>(data);
    check::<ndnpy::Datetime64>(data);
    check::<ndnpy::element::FixedUnicode<3>>(data);
});
