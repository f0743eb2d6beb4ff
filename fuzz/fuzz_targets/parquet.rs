//! The Parquet conversions on arbitrary bytes: a Parquet file to a `DynArray` and to `.npy`
//! (the footer walk, the page-by-page reader of dense columns, the parquet crate's reader
//! behind ndnpy's guard), and the same bytes as an `.npy` file to Parquet, give errors, never
//! panics, and leave no output when they fail; what they write reads back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::parquet::ParquetOptions;

/// libfuzzer-sys's panic hook aborts where a panic happens. The library turns the parquet
/// crate's panics on some damaged files into errors (and, being a library, leaves the hook to
/// its host), so this target's hook prints a panic and lets it unwind: one the conversions
/// catch is their error, one that escapes them still aborts (libfuzzer-sys catches it and
/// aborts), so a crash is still a panic the library let through.
static HOOK: std::sync::Once = std::sync::Once::new();

fuzz_target!(|data: &[u8]| {
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    });
    let dir = std::env::temp_dir().join(format!("ndnpy-fuzz-parquet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let input = dir.join("in");
    std::fs::write(&input, data).expect("writing the input to a temporary file");
    let opts = ParquetOptions::new();

    let whole = opts.parquet_to_dyn(&input);
    let npy = dir.join("out.npy");
    match opts.parquet_to_npy(&input, &npy) {
        Ok(()) => {
            let back = ndnpy::read_npy_dyn(&npy).expect("the .npy written reads back");
            if let Ok(whole) = &whole {
                assert_eq!(
                    whole.shape(),
                    back.shape(),
                    "both readers agree on the shape"
                );
            }
            std::fs::remove_file(&npy).expect("removing the output");
        }
        Err(_) => assert!(!npy.exists(), "a failed conversion left its output"),
    }
    let pq = dir.join("out.parquet");
    match opts.npy_to_parquet(&input, &pq) {
        Ok(()) => {
            opts.parquet_to_dyn(&pq)
                .expect("the Parquet file written reads back");
            std::fs::remove_file(&pq).expect("removing the output");
        }
        Err(_) => assert!(!pq.exists(), "a failed conversion left its output"),
    }
});
