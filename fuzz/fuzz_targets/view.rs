//! Zero-copy views of arbitrary buffers at every alignment: errors, never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndarray::{ArrayViewD, ArrayViewMutD};
use ndnpy::{ViewMutNpyExt, ViewNpyExt};

fuzz_target!(|data: &[u8]| {
    // Copy into an 8-aligned buffer and try a few offsets, so alignment errors are reached.
    let mut backing = vec![0u64; data.len() / 8 + 2];
    for off in 0..3 {
        let bytes: &mut [u8] = bytemuck(&mut backing);
        let buf = &mut bytes[off..off + data.len()];
        buf.copy_from_slice(data);
        if let Ok(v) = ArrayViewD::<f64>::view_npy(buf) {
            let _ = v.sum();
        }
        if let Ok(v) = ArrayViewD::<bool>::view_npy(buf) {
            assert!(v.iter().all(|b| *b as u8 <= 1));
        }
        let _ = ArrayViewD::<ndnpy::element::FixedBytes<4>>::view_npy(buf);
        if let Ok(mut v) = ArrayViewMutD::<i32>::view_mut_npy(buf) {
            v.fill(7);
        }
    }
});

fn bytemuck(v: &mut [u64]) -> &mut [u8] {
    let len = v.len() * 8;
    // SAFETY: u64 has no padding and any bytes are a valid u64; the slice covers the vector's
    // elements and takes over its exclusive borrow.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}
