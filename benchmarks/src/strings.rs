//! The `strings` case: a `<U16` file of varied ASCII and non-ASCII strings, read to `String`.

use crate::cases::{path_str, Cleanup};
use crate::cases::{NDNPY, NPYZ, NUMPY, RAW};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{ArrayD, IxDyn};
use ndnpy::{FixedUnicode, ReadNpyExt};
use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, Read};
use std::time::Instant;

/// String `i` (must match `text` in numpy_worker.py): ASCII, 2-, 3- and 4-byte UTF-8 (the last
/// outside the BMP), up to 15 characters, and empty strings.
fn text(i: usize) -> String {
    let n = i % 10_000_000;
    match i % 6 {
        0 => format!("s{n}"),
        1 => format!("é{n}ü"),
        2 => format!("日本{n}"),
        3 => format!("{n}🙂"),
        4 => format!("abcdefgh{n}"),
        _ => String::new(),
    }
}

fn check_strings<'a>(
    who: &str,
    shape: &[usize],
    got: impl Iterator<Item = Res<&'a str>>,
    expected: &[String],
) -> Res<()> {
    if shape != [expected.len()] {
        return Err(format!("{who}: shape {shape:?}, expected [{}]", expected.len()).into());
    }
    for (i, (g, e)) in got.zip(expected).enumerate() {
        if g? != e {
            return Err(format!("{who}: string {i} differs from {e:?}").into());
        }
    }
    Ok(())
}

pub fn strings_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    const FIXED: &str = "ndnpy FixedUnicode<16>";
    const PATH: &str = "ndnpy, read_npy(path)";
    const FIXED_PATH: &str = "ndnpy FixedUnicode<16>, read_npy(path)";
    const TOLIST: &str = "numpy + tolist()";
    let count = cfg.size_mib * 4096;
    let path = cfg.dir.join("strings.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("gen_str {p} {count}"))?;
    let file_len = std::fs::metadata(&path)?.len();
    let expected: Vec<String> = (0..count).map(text).collect();
    let utf8_bytes: usize = expected.iter().map(String::len).sum();

    let (path, expected) = (path.as_path(), &expected[..]);
    let np = std::cell::RefCell::new(np);
    let np = &np;
    let imps = vec![
        Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let a = ArrayD::<String>::read_npy(BufReader::new(File::open(path)?))?;
            let d = t.elapsed();
            if check {
                check_strings(NDNPY, a.shape(), a.iter().map(|s| Ok(&s[..])), expected)?;
            }
            Ok(d)
        }),
        Imp::new(PATH, move |check| {
            let t = Instant::now();
            let a: ArrayD<String> = ndnpy::read_npy(path)?;
            let d = t.elapsed();
            if check {
                check_strings(PATH, a.shape(), a.iter().map(|s| Ok(&s[..])), expected)?;
            }
            Ok(d)
        }),
        Imp::new(FIXED, move |check| {
            let t = Instant::now();
            let a = ArrayD::<FixedUnicode<16>>::read_npy(BufReader::new(File::open(path)?))?;
            let d = t.elapsed();
            if check {
                let strings = a
                    .iter()
                    .map(FixedUnicode::to_string)
                    .collect::<Result<Vec<_>, _>>()?;
                check_strings(
                    FIXED,
                    a.shape(),
                    strings.iter().map(|s| Ok(&s[..])),
                    expected,
                )?;
            }
            Ok(d)
        }),
        Imp::new(FIXED_PATH, move |check| {
            let t = Instant::now();
            let a: ArrayD<FixedUnicode<16>> = ndnpy::read_npy(path)?;
            let d = t.elapsed();
            if check {
                let strings = a
                    .iter()
                    .map(FixedUnicode::to_string)
                    .collect::<Result<Vec<_>, _>>()?;
                let got = strings.iter().map(|s| Ok(&s[..]));
                check_strings(FIXED_PATH, a.shape(), got, expected)?;
            }
            Ok(d)
        }),
        Imp::new(NPYZ, move |check| {
            let t = Instant::now();
            let npy = npyz::NpyFile::new(BufReader::new(File::open(path)?))?;
            let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
            let data = npy.into_vec::<String>()?;
            let a = ArrayD::from_shape_vec(IxDyn(&shape), data)?;
            let d = t.elapsed();
            if check {
                check_strings(NPYZ, a.shape(), a.iter().map(|s| Ok(&s[..])), expected)?;
            }
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("str_read {p} load"))?;
            if check {
                np.check_sum(&format!("str_check {p} {count}"), count as f64)?;
            }
            Ok(d)
        }),
        Imp::new(TOLIST, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("str_read {p} tolist"))?;
            if check {
                np.check_sum(&format!("str_check {p} {count}"), count as f64)?;
            }
            Ok(d)
        }),
        Imp::new(RAW, move |check| {
            let t = Instant::now();
            let mut f = File::open(path)?;
            let len = f.metadata()?.len() as usize;
            let mut buf = vec![0u8; len];
            f.read_exact(&mut buf)?;
            let d = t.elapsed();
            black_box(&buf);
            if check && buf.len() as u64 != file_len {
                return Err("raw floor: short read".into());
            }
            Ok(d)
        }),
    ];
    let rows_out = crate::measure(imps, cfg.rounds)?;
    Ok(Report {
        title: format!("strings: read {count} '<U16' strings to `String`"),
        bytes: Some(file_len),
        items: Some(count),
        per: "string",
        rows: rows_out,
        targets: vec![(NPYZ, 0.5)],
        notes: vec![
            format!(
                "File written by np.save (`np.array([...], dtype='<U16')`), {file_len} bytes \
                 (64 bytes per string, {utf8_bytes} bytes as UTF-8); page cache warm. Strings \
                 cycle through `s{{i}}`, `é{{i}}ü`, `日本{{i}}`, `{{i}}🙂` (outside the BMP), \
                 `abcdefgh{{i}}` and `\"\"`. ndnpy: \
                 `ArrayD::<String>::read_npy(BufReader<File>)`; {PATH}: \
                 `ndnpy::read_npy::<_, ArrayD<String>>(path)`; {FIXED}: \
                 `ArrayD::<FixedUnicode<16>>::read_npy(BufReader<File>)` (the UCS-4 units as \
                 they are, no `String`; checked through `to_string()`, untimed); {FIXED_PATH}: \
                 `ndnpy::read_npy::<_, ArrayD<FixedUnicode<16>>>(path)`; npyz: \
                 `NpyFile::new(BufReader<File>)` + `into_vec::<String>()` + \
                 `ArrayD::from_shape_vec`; raw floor: `File::open` + `read_exact` of the whole \
                 file. Dropping the arrays is untimed. ndarray-npy 0.10 has no strings: omitted."
            ),
            "numpy: `np.load(path)` keeps the UCS-4 bytes in place in a '<U16' array and builds \
             no Python strings (comparable to FixedUnicode, not to String); `np.load(path)\
             .tolist()` also builds one Python `str` per item, the closest to `Vec<String>`. \
             Both checked in the worker: dtype '<U16' and every item equal to the expected \
             string."
                .to_string(),
            "The `read_npy(reader)` rows read through a `Read` of unknown length, so ndnpy \
             grows its buffer with the bytes that arrive (64 KiB, then steps of up to 16 MiB); \
             `read_npy(path)` knows the file's length and allocates once (with huge pages \
             advised)."
                .to_string(),
        ],
        ..Report::default()
    })
}
