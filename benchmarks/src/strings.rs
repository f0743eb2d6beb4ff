//! The `strings` case: a `<U16` file of varied ASCII and non-ASCII strings, read to `String`.

use crate::cases::{path_str, Cleanup};
use crate::cases::{NDNPY, NPYZ, NUMPY, RAW};
use crate::doors::{door_goals, door_imps, DoorNames};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{ArrayD, IxDyn};
use ndnpy::{element::FixedUnicode, NpzReader};
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

/// The doors of the `String` read (the path row is `ndnpy`, the case's reference).
const STRING_DOORS: DoorNames = DoorNames {
    path: NDNPY,
    path1: "ndnpy, one thread",
    file: "ndnpy File",
    buf: "ndnpy BufReader<File>",
    bytes: "ndnpy &[u8]",
    member: "ndnpy .npz member",
};

/// The doors of the `FixedUnicode<16>` read (UCS-4 kept, as numpy keeps it).
const FIXED_DOORS: DoorNames = DoorNames {
    path: "FixedUnicode<16> path",
    path1: "FixedUnicode<16> path, one thread",
    file: "FixedUnicode<16> File",
    buf: "FixedUnicode<16> BufReader<File>",
    bytes: "FixedUnicode<16> &[u8]",
    member: "FixedUnicode<16> .npz member",
};

pub fn strings_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    const TOLIST: &str = "numpy + tolist()";
    let count = cfg.size_mib * 4096;
    let path = cfg.dir.join("strings.npy");
    let npz = cfg.dir.join("strings.npz");
    let _cleanup = Cleanup(vec![path.clone(), npz.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("gen_str {p} {count}"))?;
    np.ok(&format!("npz_store {p} {}", path_str(&npz)?))?;
    let file_len = std::fs::metadata(&path)?.len();
    let bytes = std::fs::read(&path)?;
    let expected: Vec<String> = (0..count).map(text).collect();
    let utf8_bytes: usize = expected.iter().map(String::len).sum();

    let (path, expected) = (path.as_path(), &expected[..]);
    let np = std::cell::RefCell::new(np);
    let np = &np;
    let mut imps = door_imps(
        STRING_DOORS,
        path,
        &npz,
        &bytes,
        |npz| Ok(NpzReader::open(npz)?.by_name("a")?),
        move |who, a: &ArrayD<String>| {
            check_strings(who, a.shape(), a.iter().map(|s| Ok(&s[..])), expected)
        },
    );
    imps.extend(door_imps(
        FIXED_DOORS,
        path,
        &npz,
        &bytes,
        |npz| Ok(NpzReader::open(npz)?.by_name("a")?),
        move |who, a: &ArrayD<FixedUnicode<16>>| {
            let strings = a
                .iter()
                .map(FixedUnicode::to_string)
                .collect::<Result<Vec<_>, _>>()?;
            check_strings(who, a.shape(), strings.iter().map(|s| Ok(&s[..])), expected)
        },
    ));
    imps.extend(vec![
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
    ]);
    let rows_out = crate::measure(imps, cfg.rounds)?;
    let mut goals = door_goals(
        STRING_DOORS,
        &rows_out,
        &[(STRING_DOORS.path, 1.1), (TOLIST, 1.0)],
    );
    goals.extend(door_goals(
        FIXED_DOORS,
        &rows_out,
        &[(FIXED_DOORS.path, 1.1), (NUMPY, 1.0)],
    ));
    Ok(Report {
        title: format!("strings: read {count} '<U16' strings to `String`"),
        bytes: Some(file_len),
        items: Some(count),
        per: "string",
        rows: rows_out,
        goals,
        targets: vec![(NPYZ, 0.5)],
        notes: vec![
            format!(
                "File written by np.save (`np.array([...], dtype='<U16')`), {file_len} bytes \
                 (64 bytes per string, {utf8_bytes} bytes as UTF-8); page cache warm. Strings \
                 cycle through `s{{i}}`, `é{{i}}ü`, `日本{{i}}`, `{{i}}🙂` (outside the BMP), \
                 `abcdefgh{{i}}` and `\"\"`. ndnpy: \
                 `ndnpy::read_npy::<_, ArrayD<String>>(path)`; ndnpy File, BufReader<File>, \
                 &[u8]: `ArrayD::<String>::read_npy(File::open(path)?)`, \
                 `read_npy(BufReader::new(File::open(path)?))`, `read_npy(&bytes[..])` of the \
                 file read beforehand (untimed); ndnpy .npz member: \
                 `NpzReader::open(npz)?.by_name(\"a\")` of `np.savez(npz, a=np.load(path))` \
                 (stored). The FixedUnicode<16> rows make the same calls for \
                 `ArrayD<FixedUnicode<16>>` (the UCS-4 units as they are, no `String`; checked \
                 through `to_string()`, untimed). npyz: \
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
            "Targets: every `String` door within 1.10x of the `String` path row and of \
             numpy + tolist() (both build one string object per item); every \
             FixedUnicode<16> door within 1.10x of its path row and of numpy's `np.load` (both \
             keep the UCS-4 bytes)."
                .to_string(),
        ],
    })
}
