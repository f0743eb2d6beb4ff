//! Memory maps of arbitrary files: `NpyMmap::open` and its views give errors, never panics or
//! out-of-bounds reads, whatever the header claims about the data behind it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndarray::ArrayViewD;
use ndnpy::NpyMmap;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("ndnpy-fuzz-mmap-{}.npy", std::process::id()));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(data))
        .expect("writing the input to a temporary file");
    // SAFETY: the file is this process's own temporary file; nothing else changes it while
    // the map lives.
    if let Ok(map) = unsafe { NpyMmap::open(&path) } {
        if let Ok(v) = map.view::<f64, ndarray::IxDyn>() {
            let _ = v.iter().fold(0.0, |a, x| a + x);
        }
        if let Ok(v) = map.view::<bool, ndarray::IxDyn>() {
            assert!(v.iter().all(|b| *b as u8 <= 1));
        }
        let _: Option<ArrayViewD<'_, u16>> = map.view().ok();
        let _ = map.view::<ndnpy::element::FixedBytes<3>, ndarray::IxDyn>();
    }
});
