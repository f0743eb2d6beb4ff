//! Runtime-typed reads: any dtype, record fields by name, and a byte-exact rewrite.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::DynArray;

fuzz_target!(|data: &[u8]| {
    if let Ok(a) = DynArray::read_npy(data) {
        let mut out = Vec::new();
        a.write_npy(&mut out).expect("writing to memory");
        let b = DynArray::read_npy(&out[..]).expect("what we wrote reads");
        assert_eq!(a.shape(), b.shape());
        if let Some(r) = a.dtype().as_structured() {
            for f in r.fields().iter().take(8) {
                let _ = a.field(&f.name);
            }
        }
    }
});
