//! The `records` case: a numpy structured array of 5 fields (`i4`, `f8`, `S8`, `bool`,
//! `('<f4', (3,))`), read into derived Rust structs.

use crate::cases::{path_str, Cleanup};
use crate::cases::{NDNPY, NUMPY};
use crate::doors::{door_goals, door_imps, DoorNames};
use crate::numpy::Numpy;
use crate::{fmt_secs, median_secs, Config, Goal, Imp, Report, Res};
use ndarray::Array1;
use ndnpy::{element::FixedBytes, DynData};
use std::cell::RefCell;
use std::fs::File;
use std::hint::black_box;
use std::io::BufReader;
use std::time::Instant;

/// An ordinary derived record: the `|S8` field as a `Vec<u8>` (one allocation per record).
#[derive(ndnpy::NpyRecord, Debug, Clone)]
struct RecVec {
    id: i32,
    val: f64,
    #[npy(len = 8)]
    tag: Vec<u8>,
    ok: bool,
    v: [f32; 3],
}

/// The same with the string as `FixedBytes<8>` (no allocation), decoded field by field.
#[derive(ndnpy::NpyRecord, Debug, Clone)]
struct RecFixed {
    id: i32,
    val: f64,
    tag: FixedBytes<8>,
    ok: bool,
    v: [f32; 3],
}

/// `#[repr(C, packed)]` of plain fields: the file's layout exactly (33 bytes, no padding),
/// so the bytes are read straight into the array and checked in place (one copy).
#[derive(ndnpy::NpyRecord, Debug, Clone, Copy)]
#[repr(C, packed)]
struct RecPacked {
    id: i32,
    val: f64,
    tag: FixedBytes<8>,
    ok: bool,
    v: [f32; 3],
}

/// npyz's derive; `|S8` into `Vec<u8>`.
#[derive(npyz::Deserialize, Debug, Clone)]
struct RecNpyz {
    id: i32,
    val: f64,
    tag: Vec<u8>,
    ok: bool,
    v: [f32; 3],
}

/// Record `i`'s fields (must match `rec_array` in numpy_worker.py).
struct Expected {
    id: i32,
    val: f64,
    tag: Vec<u8>,
    ok: bool,
    v: [f32; 3],
}

fn expected_record(i: usize) -> Expected {
    Expected {
        id: (7 * i as i64 - 3) as i32,
        val: i as f64 * 0.5,
        tag: format!("r{}", i % 10_000_000).into_bytes(),
        ok: i.is_multiple_of(3),
        v: [i as f32 * 0.25, -(i as f32), 1.5],
    }
}

/// Compares records given as (id, val, tag without trailing NULs, ok, v).
fn check_records<'a>(
    who: &str,
    count: usize,
    got: impl ExactSizeIterator<Item = (i32, f64, &'a [u8], bool, [f32; 3])>,
) -> Res<()> {
    if got.len() != count {
        return Err(format!("{who}: {} records, expected {count}", got.len()).into());
    }
    for (i, (id, val, tag, ok, v)) in got.enumerate() {
        let e = expected_record(i);
        if id != e.id || val != e.val || tag != e.tag || ok != e.ok || v != e.v {
            return Err(format!("{who}: record {i} differs").into());
        }
    }
    Ok(())
}

fn strip_nuls(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
    &b[..end]
}

/// The doors of the packed read (its path row is `ndnpy`, the case's reference).
const PACKED_DOORS: DoorNames = DoorNames {
    path: NDNPY,
    path1: "ndnpy, one thread",
    file: "ndnpy File",
    buf: "ndnpy BufReader<File>",
    bytes: "ndnpy &[u8]",
    member: "ndnpy .npz member",
};

pub fn records_case(cfg: &Config, np: &mut Numpy) -> Res<Report> {
    const VEC: &str = "ndnpy Vec<u8> tag";
    const FIXED: &str = "ndnpy FixedBytes<8> tag";
    const DYN: &str = "ndnpy read_npy_dyn (raw bytes)";
    const NPYZ_ROW: &str = "npyz 0.9 derive";
    // The packed row is the one-copy path: it is "ndnpy", the row the ratios divide by.
    const PACKED: &str = NDNPY;
    let count = cfg.size_mib * 4096;
    let path = cfg.dir.join("records.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("rec_gen {p} {count}"))?;
    let file_len = std::fs::metadata(&path)?.len();

    let npz = cfg.dir.join("records.npz");
    let _cleanup_npz = Cleanup(vec![npz.clone()]);
    np.ok(&format!("npz_store {p} {}", path_str(&npz)?))?;
    let bytes = std::fs::read(&path)?;

    let path = path.as_path();
    let np = RefCell::new(np);
    let np = &np;
    let mut imps = door_imps(
        PACKED_DOORS,
        path,
        &npz,
        &bytes,
        |npz| Ok(ndnpy::NpzReader::open(npz)?.by_name("a")?),
        move |who, a: &Array1<RecPacked>| {
            let tags: Vec<FixedBytes<8>> = a.iter().map(|r| r.tag).collect();
            let got = a
                .iter()
                .zip(&tags)
                .map(|(r, tag)| ({ r.id }, { r.val }, strip_nuls(&tag.0), { r.ok }, { r.v }));
            check_records(who, count, got)
        },
    );
    imps.extend(vec![
        Imp::new(FIXED, move |check| {
            let t = Instant::now();
            let a: Array1<RecFixed> = ndnpy::read_npy(path)?;
            let d = t.elapsed();
            if check {
                let got = a
                    .iter()
                    .map(|r| (r.id, r.val, strip_nuls(&r.tag.0), r.ok, r.v));
                check_records(FIXED, count, got)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(VEC, move |check| {
            let t = Instant::now();
            let a: Array1<RecVec> = ndnpy::read_npy(path)?;
            let d = t.elapsed();
            if check {
                let got = a.iter().map(|r| (r.id, r.val, &r.tag[..], r.ok, r.v));
                check_records(VEC, count, got)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(DYN, move |check| {
            let t = Instant::now();
            let a = ndnpy::read_npy_dyn(path)?;
            let d = t.elapsed();
            if check {
                let DynData::Raw(raw) = a.data() else {
                    return Err(format!("{DYN}: not raw data").into());
                };
                if raw.shape != [count] || raw.bytes.len() != count * 33 {
                    return Err(format!("{DYN}: shape {:?}", raw.shape).into());
                }
                fn rec(c: &[u8]) -> (i32, f64, &[u8], bool, [f32; 3]) {
                    let f4 = |o: usize| f32::from_le_bytes(c[o..o + 4].try_into().expect("4"));
                    (
                        i32::from_le_bytes(c[0..4].try_into().expect("4 bytes")),
                        f64::from_le_bytes(c[4..12].try_into().expect("8 bytes")),
                        strip_nuls(&c[12..20]),
                        c[20] == 1,
                        [f4(21), f4(25), f4(29)],
                    )
                }
                check_records(DYN, count, raw.bytes.chunks_exact(33).map(rec))?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(NPYZ_ROW, move |check| {
            let t = Instant::now();
            let npy = npyz::NpyFile::new(BufReader::new(File::open(path)?))?;
            let a = Array1::from_vec(npy.into_vec::<RecNpyz>()?);
            let d = t.elapsed();
            if check {
                let got = a.iter().map(|r| (r.id, r.val, &r.tag[..], r.ok, r.v));
                check_records(NPYZ_ROW, count, got)?;
            }
            black_box(a);
            Ok(d)
        }),
        Imp::new(NUMPY, move |check| {
            let mut np = np.borrow_mut();
            let d = np.timed(&format!("rec_read {p}"))?;
            if check {
                np.check_sum(&format!("rec_check {p} {count}"), count as f64)?;
            }
            Ok(d)
        }),
    ]);
    let rows = crate::measure(imps, cfg.rounds)?;
    let med = |name: &str| {
        rows.iter()
            .find(|r| r.0 == name)
            .map_or(f64::NAN, |r| median_secs(&r.1))
    };
    let (best, best_med) = [PACKED, FIXED, VEC]
        .into_iter()
        .map(|n| (n, med(n)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("three rows");
    let best_name = if best == PACKED {
        "ndnpy #[repr(C, packed)] + FixedBytes<8>"
    } else {
        best
    };
    let (vs_npyz, vs_numpy) = (med(NPYZ_ROW) / best_med, best_med / med(NUMPY));
    let vec_vs_npyz = med(NPYZ_ROW) / med(VEC);
    Ok(Report {
        title: format!("records: read {count} 5-field records (33 bytes each) to derived structs"),
        bytes: Some(file_len),
        items: Some(count),
        per: "record",
        goals: vec![
            Goal {
                text: format!(
                    "best typed ndnpy row ({best_name}, {}) is {vs_npyz:.1}x faster than npyz \
                     (target ≥ 5x)",
                    fmt_secs(best_med)
                ),
                met: vs_npyz >= 5.0,
            },
            Goal {
                text: format!("best typed ndnpy row ÷ numpy = {vs_numpy:.2}x (target ≤ 1.00x)"),
                met: vs_numpy <= 1.0,
            },
        ]
        .into_iter()
        .chain(door_goals(
            PACKED_DOORS,
            &rows,
            &[(PACKED_DOORS.path, 1.1), (NUMPY, 1.0)],
        ))
        .collect(),
        rows,
        notes: vec![
            format!(
                "File written by np.save of a structured array, dtype `[('id', '<i4'), ('val', \
                 '<f8'), ('tag', 'S8'), ('ok', '?'), ('v', '<f4', (3,))]` (numpy's packed \
                 layout), {file_len} bytes; page cache warm. Every ndnpy row is \
                 `ndnpy::read_npy::<_, Array1<T>>(path)` with a `#[derive(NpyRecord)]` T: \
                 ndnpy = `#[repr(C, packed)]` with `tag: FixedBytes<8>` (its layout is the \
                 file's, so the bytes are read into the array in one copy and the bools checked \
                 in place); {FIXED}: the same fields in a plain struct (Rust's layout, decoded \
                 record by record); {VEC}: `#[npy(len = 8)] tag: Vec<u8>` (an allocation per \
                 record); {DYN}: `ndnpy::read_npy_dyn(path)` (untyped, `DynData::Raw` bytes). \
                 The packed struct is also read through every other door: \
                 `Array1::<RecPacked>::read_npy` of `File`, `BufReader<File>` and `&bytes[..]` \
                 (the file read beforehand, untimed), and `NpzReader::by_name(\"a\")` of \
                 `np.savez(npz, a=np.load(path))` (stored); each within 1.10x of the path and \
                 of numpy. \
                 npyz: `#[derive(npyz::Deserialize)]` with `tag: Vec<u8>`, \
                 `NpyFile::new(BufReader<File>)` + `into_vec()` + `Array1::from_vec`. numpy: \
                 `np.load(path)`. Checked: every field of every record (numpy's in the worker, \
                 dtype and `array_equal`). Dropping the arrays is untimed."
            ),
            format!(
                "Like for like with npyz (both allocate a `Vec<u8>` per record): {VEC} is \
                 {vec_vs_npyz:.1}x faster than npyz."
            ),
        ],
        ..Report::default()
    })
}
