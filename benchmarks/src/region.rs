//! Case `region`: N-d region reads of a 3-D f8 file, by ndnpy (`NpyReader::read_slice` on a
//! `File` opened per call, and `NpyMmap::read_slice` on a map opened per call) against
//! numpy's `np.load(p, mmap_mode='r')[sel].copy()`, for the four selections of issue 21: a
//! band of planes, a block of columns, a strided box and one element.

use crate::cases::{path_str, Cleanup, NDNPY, NUMPY};
use crate::numpy::Numpy;
use crate::{Config, Imp, Report, Res};
use ndarray::{s, ArrayD, SliceInfoElem};
use std::cell::RefCell;
use std::fs::File;
use std::hint::black_box;
use std::time::Instant;

const MMAP: &str = "ndnpy, NpyMmap::read_slice";

/// (name, ndarray selection, numpy's spelling, calls per run)
fn selections(planes: usize) -> Vec<(&'static str, Vec<SliceInfoElem>, String, usize)> {
    let mid = planes / 2;
    vec![
        (
            "band of 4 planes (4 MiB)",
            s![mid..mid + 4, .., ..].as_ref().to_vec(),
            format!("{mid}:{}", mid + 4),
            20,
        ),
        (
            "block of columns (1 KiB runs 1 MiB apart)",
            s![.., 5, 100..228].as_ref().to_vec(),
            ":,5,100:228".into(),
            20,
        ),
        (
            "strided box (every 10th, 16th, 128th)",
            s![..;10, ..;16, ..;128].as_ref().to_vec(),
            "::10,::16,::128".into(),
            20,
        ),
        (
            "one element",
            s![mid, 100, 1000].as_ref().to_vec(),
            format!("{mid},100,1000"),
            1000,
        ),
    ]
}

pub fn region_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    // Planes of 128 x 1024 f8 (1 MiB each).
    let planes = cfg.big_mib().max(64);
    let path = cfg.dir.join("region.npy");
    let _cleanup = Cleanup(vec![path.clone()]);
    let p = path_str(&path)?;
    np.ok(&format!("region_gen {p} {planes}"))?;
    let np = RefCell::new(np);
    let mut reports = Vec::new();
    for (title, sel, expr, calls) in selections(planes) {
        let mut imps = Vec::new();
        let (sel_a, sel_b) = (sel.clone(), sel.clone());
        let path_a = path.clone();
        imps.push(Imp::new(NDNPY, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..calls {
                let mut npy = ndnpy::NpyReader::new(File::open(&path_a)?)?;
                last = Some(npy.read_slice::<f64, _>(&sel_a[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(&path_a, &sel_a, last.as_ref())?;
            }
            black_box(last);
            Ok(d)
        }));
        let path_b = path.clone();
        imps.push(Imp::new(MMAP, move |check| {
            let t = Instant::now();
            let mut last = None;
            for _ in 0..calls {
                // SAFETY: the benchmark's file is not modified while mapped.
                let map = unsafe { ndnpy::NpyMmap::open(&path_b)? };
                last = Some(map.read_slice::<f64, _>(&sel_b[..])?);
            }
            let d = t.elapsed();
            if check {
                verify(&path_b, &sel_b, last.as_ref())?;
            }
            black_box(last);
            Ok(d)
        }));
        let np = &np;
        let (p2, expr2) = (p.to_string(), expr.clone());
        imps.push(Imp::new(NUMPY, move |_| {
            np.borrow_mut()
                .timed(&format!("region_read {p2} {expr2} {calls}"))
        }));
        let rows = crate::measure(imps, cfg.rounds)?;
        reports.push(Report {
            title: format!("region: {title} of a {planes} MiB (N, 128, 1024) f8 file, C order"),
            items: Some(calls),
            per: "read",
            rows,
            targets: vec![(NUMPY, 1.0)],
            notes: vec![format!(
                "Every call opens the file and reads `s![{expr}]` into a new array: ndnpy \
                 `NpyReader::new(File::open(p))?.read_slice(sel)` (positioned reads of the \
                 selected runs, runs under 4 KiB apart merged) and `NpyMmap::open(p)?.read_slice`; \
                 numpy `np.load(p, mmap_mode='r')[{expr}].copy()`. Page cache warm."
            )],
            ..Default::default()
        });
    }
    np.borrow_mut().ok("forget")?;
    Ok(reports)
}

/// Checks a region read against the same selection of the whole array.
fn verify(path: &std::path::Path, sel: &[SliceInfoElem], got: Option<&ArrayD<f64>>) -> Res<()> {
    let whole: ArrayD<f64> = ndnpy::read_npy(path)?;
    if got != Some(&whole.slice(sel).to_owned()) {
        return Err("region read differs from the whole array's slice".into());
    }
    Ok(())
}
