//! Prints the header, shape and a summary of the values of `.npy` files.
//!
//! ```text
//! cargo run --example inspect                      # a file shipped in testdata/
//! cargo run --example inspect -- a.npy b.npy ...   # your files
//! ```
//!
//! Numeric arrays of any dimension are summarised (min, max, mean, NaN count); for other
//! dtypes the header is shown and the data left alone.

use ndarray::ArrayD;
use ndnpy::{DType, Header, ReadNpyExt, ReadOptions, ScalarKind};
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
        paths = [
            "example.npy",
            "f4_be_f_3x4.npy",
            "c16_le_c_2x3.npy",
            "rec_ndescr.npy",
        ]
        .iter()
        .map(|f| format!("{dir}/{f}"))
        .collect();
    }
    let mut failed = false;
    for path in &paths {
        if let Err(e) = inspect(path) {
            eprintln!("{path}: error: {e}");
            failed = true;
        }
        println!();
    }
    if failed {
        std::process::exit(1);
    }
}

fn inspect(path: &str) -> Result<(), ndnpy::Error> {
    let mut file = BufReader::new(File::open(path)?);
    let info = Header::read(&mut file, &ReadOptions::default())?;
    let h = &info.header;
    println!("{path}");
    println!(
        "  format version {}, data at byte {}",
        info.version, info.data_offset
    );
    println!("  dtype          {}", h.dtype);
    println!(
        "  shape          {:?} ({} elements, {} bytes)",
        h.shape, info.num_elements, info.data_len
    );
    println!(
        "  order          {}",
        if h.fortran_order { "Fortran" } else { "C" }
    );
    file.seek(SeekFrom::Start(0))?;
    match summarise(&h.dtype, &mut file)? {
        Some(line) => println!("  values         {line}"),
        None => println!("  values         (no summary for this dtype yet)"),
    }
    Ok(())
}

/// Reads the whole array as the matching Rust type and summarises it.
fn summarise<R: std::io::Read>(dtype: &DType, r: R) -> Result<Option<String>, ndnpy::Error> {
    let Some(s) = dtype.as_scalar() else {
        return Ok(None);
    };
    Ok(Some(match (s.kind(), s.size()) {
        (ScalarKind::Bool, 1) => {
            let a = ArrayD::<bool>::read_npy(r)?;
            format!("{} true of {}", a.iter().filter(|&&b| b).count(), a.len())
        }
        (ScalarKind::Int, 1) => stats(ArrayD::<i8>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::Int, 2) => stats(ArrayD::<i16>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::Int, 4) => stats(ArrayD::<i32>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::Int, 8) => stats(ArrayD::<i64>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::UInt, 1) => stats(ArrayD::<u8>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::UInt, 2) => stats(ArrayD::<u16>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::UInt, 4) => stats(ArrayD::<u32>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::UInt, 8) => stats(ArrayD::<u64>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::Float, 2) => {
            stats(ArrayD::<half::f16>::read_npy(r)?.iter().map(|x| x.to_f64()))
        }
        (ScalarKind::Float, 4) => stats(ArrayD::<f32>::read_npy(r)?.iter().map(|&x| x as f64)),
        (ScalarKind::Float, 8) => stats(ArrayD::<f64>::read_npy(r)?.iter().copied()),
        (ScalarKind::Complex, 8) => {
            let a = ArrayD::<num_complex::Complex<f32>>::read_npy(r)?;
            format!(
                "real {}; imag {}",
                stats(a.iter().map(|c| c.re as f64)),
                stats(a.iter().map(|c| c.im as f64))
            )
        }
        (ScalarKind::Complex, 16) => {
            let a = ArrayD::<num_complex::Complex<f64>>::read_npy(r)?;
            format!(
                "real {}; imag {}",
                stats(a.iter().map(|c| c.re)),
                stats(a.iter().map(|c| c.im))
            )
        }
        _ => return Ok(None),
    }))
}

fn stats(values: impl Iterator<Item = f64>) -> String {
    let (mut min, mut max, mut sum, mut n, mut nan) =
        (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize, 0usize);
    for x in values {
        if x.is_nan() {
            nan += 1;
            continue;
        }
        min = min.min(x);
        max = max.max(x);
        sum += x;
        n += 1;
    }
    if n == 0 {
        return format!("no numbers ({nan} NaN)");
    }
    format!("min {min}, max {max}, mean {}, NaN {nan}", sum / n as f64)
}
