//! The safetensors conversions on arbitrary bytes: a safetensors file to `.npz` and to `.npy`,
//! and the same bytes as an `.npz` to safetensors, give errors, never panics, and leave no
//! output when they fail; what they write reads back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::safetensors::SafetensorsOptions;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("ndnpy-fuzz-safetensors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let input = dir.join("in");
    std::fs::write(&input, data).expect("writing the input to a temporary file");
    let opts = SafetensorsOptions::new();

    let npz = dir.join("out.npz");
    check(&npz, opts.safetensors_to_npz(&input, &npz), |p| {
        let mut r = ndnpy::NpzReader::open(p)?;
        for i in 0..r.len() {
            r.member(i)?.read_dyn()?;
        }
        Ok(())
    });
    let npy = dir.join("out.npy");
    check(&npy, opts.safetensors_to_npy(&input, &npy), |p| {
        ndnpy::read_npy_dyn(p).map(drop)
    });
    // The bytes as an archive: planned from its members' headers, streamed in safetensors'
    // order; what it writes converts back.
    let st = dir.join("out.safetensors");
    check(&st, opts.npz_to_safetensors(&input, &st), |p| {
        let back = dir.join("back.npz");
        opts.safetensors_to_npz(p, &back)?;
        std::fs::remove_file(&back).map_err(ndnpy::Error::from)
    });
});

/// After a conversion: no output if it failed, an output that `reads` if it succeeded.
fn check(
    out: &Path,
    result: Result<(), ndnpy::Error>,
    reads: impl FnOnce(&Path) -> Result<(), ndnpy::Error>,
) {
    match result {
        Ok(()) => {
            reads(out).expect("what a conversion wrote reads back");
            std::fs::remove_file(out).expect("removing the output");
        }
        Err(_) => assert!(!out.exists(), "a failed conversion left {out:?}"),
    }
}
