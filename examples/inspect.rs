//! Prints what `.npy` and `.npz` files hold: for each array its name, dtype in numpy's
//! notation, shape, order, byte size and a short summary of its values (min, max, mean and NaN
//! count for numbers; the first items for strings, datetimes and records).
//!
//! ```text
//! cargo run --example inspect                            # testdata/example.npz, and more
//! cargo run --example inspect -- a.npz b.npy ...         # your files
//! ```

use ndarray::ArrayD;
use ndnpy::{DynArray, DynData, Header, NpzReader, ReadOptions};
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
        paths = [
            "example.npz",
            "f4_be_f_3x4.npy",
            "npz_non_npy.npz",
            "dt_object.npy",
        ]
        .iter()
        .map(|f| format!("{dir}/{f}"))
        .collect();
    }
    let mut failed = false;
    for path in &paths {
        println!("{path}");
        if let Err(e) = inspect(path) {
            println!("  error: {e}");
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}

fn inspect(path: &str) -> Result<(), ndnpy::Error> {
    let mut magic = [0u8; 2];
    std::io::Read::read_exact(&mut File::open(path)?, &mut magic)?;
    if &magic == b"PK" {
        return inspect_npz(path);
    }
    let mut file = BufReader::new(File::open(path)?);
    let info = Header::read(&mut file, &ReadOptions::default())?;
    describe(&info);
    if info.header.dtype.has_object() {
        println!("  holds pickled Python objects: not readable outside Python");
        return Ok(());
    }
    file.seek(SeekFrom::Start(0))?;
    for line in summarise(&DynArray::read_npy(file)?) {
        println!("  {line}");
    }
    Ok(())
}

/// Every member of an archive; a bad member is reported and the others still shown.
fn inspect_npz(path: &str) -> Result<(), ndnpy::Error> {
    let mut npz = NpzReader::open(path)?;
    println!("  .npz archive, {} members", npz.len());
    for index in 0..npz.len() {
        let mut member = npz.member(index)?;
        println!("  [{}]", member.info().key());
        match member.header() {
            Ok(info) => {
                describe(&info);
                if info.header.dtype.has_object() {
                    println!("    holds pickled Python objects");
                    continue;
                }
                match member.read_dyn() {
                    Ok(a) => summarise(&a).iter().for_each(|l| println!("    {l}")),
                    Err(e) => println!("    error: {e}"),
                }
            }
            Err(e) if e.kind() == ndnpy::ErrorKind::NotNpy => {
                let bytes = member.bytes()?;
                println!(
                    "    not an array: {} bytes, b\"{}\"",
                    bytes.len(),
                    bytes.escape_ascii()
                );
            }
            Err(e) => println!("    error: {e}"),
        }
    }
    Ok(())
}

fn describe(info: &ndnpy::header::HeaderInfo) {
    let order = if info.header.fortran_order {
        "Fortran"
    } else {
        "C"
    };
    println!(
        "  {}  shape {:?}  {order} order  {} bytes  (format {}, data at byte {})",
        info.header.dtype, info.header.shape, info.data_len, info.version, info.data_offset
    );
}

/// One or more lines describing the values.
fn summarise(a: &DynArray) -> Vec<String> {
    fn nums<T: Copy>(a: &ArrayD<T>, f: impl Fn(T) -> f64) -> Vec<String> {
        vec![stats(a.iter().map(|&x| f(x)))]
    }
    match a.data() {
        DynData::Bool(v) => vec![format!(
            "{} true of {}",
            v.iter().filter(|b| **b).count(),
            v.len()
        )],
        DynData::I8(v) => nums(v, f64::from),
        DynData::I16(v) => nums(v, f64::from),
        DynData::I32(v) => nums(v, f64::from),
        DynData::I64(v) => nums(v, |x| x as f64),
        DynData::U8(v) => nums(v, f64::from),
        DynData::U16(v) => nums(v, f64::from),
        DynData::U32(v) => nums(v, f64::from),
        DynData::U64(v) => nums(v, |x| x as f64),
        // With the feature `half`; without it, '<f2' arrays are raw bytes.
        #[cfg(feature = "half")]
        DynData::F16(v) => nums(v, |x| x.to_f64()),
        DynData::F32(v) => nums(v, f64::from),
        DynData::F64(v) => nums(v, |x| x),
        DynData::C64(v) => vec![
            format!("real {}", stats(v.iter().map(|c| f64::from(c.re)))),
            format!("imag {}", stats(v.iter().map(|c| f64::from(c.im)))),
        ],
        DynData::C128(v) => vec![
            format!("real {}", stats(v.iter().map(|c| c.re))),
            format!("imag {}", stats(v.iter().map(|c| c.im))),
        ],
        DynData::Unicode(v) => vec![first(v.iter().map(|s| format!("{s:?}")))],
        DynData::Bytes(v) => vec![first(
            v.iter().map(|b| format!("b\"{}\"", b.escape_ascii())),
        )],
        DynData::Datetime(v) => vec![first(v.iter().map(|t| match (t.is_nat(), t.unit) {
            (true, _) => "NaT".to_string(),
            (false, Some(u)) => format!("{} x {}{}", t.value, u.multiplier, u.unit.code()),
            (false, None) => t.value.to_string(),
        }))],
        DynData::Timedelta(v) => vec![first(v.iter().map(|t| t.value.to_string()))],
        DynData::Raw(_) => match a.dtype().as_structured() {
            Some(r) => r
                .fields()
                .iter()
                .map(|f| match a.field(&f.name) {
                    Ok(field) => format!("field {:?}: {}", f.name, summarise(&field).join("; ")),
                    Err(e) => format!("field {:?}: {e}", f.name),
                })
                .collect(),
            None => vec!["raw bytes (no summary for this dtype)".to_string()],
        },
        _ => vec!["(no summary for this dtype)".to_string()],
    }
}

fn first(items: impl Iterator<Item = String>) -> String {
    let shown: Vec<String> = items.take(4).collect();
    format!("first items: {}", shown.join(", "))
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
