//! `ndnpy diff`: how two arrays, or two archives, differ: dtype, shape, values (exactly, or
//! within numpy's `isclose` tolerances), the first differing indices; members added, removed
//! and changed.

use crate::fail::{Fail, Res, EXIT_FOUND, EXIT_OK};
use crate::ls::{numpy_name, shape_tuple};
use crate::pyfmt::{self, Float, Width};
use crate::source::{file_kind, ArraySource, FileKind, Target};
use ndnpy::{DType, DynArray, DynData, NpzReader};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// How many differing elements are listed.
const SHOWN: usize = 10;

/// numpy's `isclose` tolerances; both zero means exact comparison.
#[derive(Debug, Clone, Copy)]
pub struct Tolerance {
    /// Relative tolerance (of the second value).
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

/// The values of a chunk, in logical C order, in a form that compares.
enum Vals {
    Ints(Vec<i128>),
    Floats(Vec<f64>, Width),
    Complex(Vec<(f64, f64)>, Width),
    Text(Vec<String>),
}

impl Vals {
    fn of(a: &DynArray) -> Vals {
        fn ints<T: Copy + Into<i128>>(v: &ndarray::ArrayD<T>) -> Vals {
            Vals::Ints(v.iter().map(|&x| x.into()).collect())
        }
        match a.data() {
            DynData::Bool(v) => Vals::Ints(v.iter().map(|&b| i128::from(b)).collect()),
            DynData::I8(v) => ints(v),
            DynData::I16(v) => ints(v),
            DynData::I32(v) => ints(v),
            DynData::I64(v) => ints(v),
            DynData::U8(v) => ints(v),
            DynData::U16(v) => ints(v),
            DynData::U32(v) => ints(v),
            DynData::U64(v) => ints(v),
            DynData::F16(v) => Vals::Floats(v.iter().map(|x| x.to_f64()).collect(), Width::F16),
            DynData::F32(v) => Vals::Floats(v.iter().map(|&x| f64::from(x)).collect(), Width::F32),
            DynData::F64(v) => Vals::Floats(v.iter().copied().collect(), Width::F64),
            DynData::C64(v) => Vals::Complex(
                v.iter()
                    .map(|c| (f64::from(c.re), f64::from(c.im)))
                    .collect(),
                Width::F32,
            ),
            DynData::C128(v) => Vals::Complex(v.iter().map(|c| (c.re, c.im)).collect(), Width::F64),
            DynData::Unicode(v) => Vals::Text(v.iter().map(|s| pyfmt::repr_str(s)).collect()),
            DynData::Bytes(v) => Vals::Text(v.iter().map(|b| pyfmt::repr_bytes(b)).collect()),
            DynData::Datetime(v) => Vals::Text(
                v.iter()
                    .map(|t| match (t.is_nat(), t.unit) {
                        (false, Some(u)) => pyfmt::datetime(t.value, u),
                        _ => "NaT".into(),
                    })
                    .collect(),
            ),
            DynData::Timedelta(v) => Vals::Text(
                v.iter()
                    .map(|t| {
                        if t.is_nat() {
                            "NaT".into()
                        } else {
                            t.value.to_string()
                        }
                    })
                    .collect(),
            ),
            DynData::Raw(raw) => {
                let size = a.dtype().itemsize().max(1);
                Vals::Text(raw.bytes.chunks(size).map(pyfmt::repr_bytes).collect())
            }
            _ => Vals::Text(Vec::new()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Vals::Ints(v) => v.len(),
            Vals::Floats(v, _) => v.len(),
            Vals::Complex(v, _) => v.len(),
            Vals::Text(v) => v.len(),
        }
    }

    fn show(&self, i: usize) -> String {
        let f = |value, width| pyfmt::scalar_float(Float { value, width });
        match self {
            Vals::Ints(v) => v[i].to_string(),
            Vals::Floats(v, w) => f(v[i], *w),
            Vals::Complex(v, w) => format!("({}{:+}j)", f(v[i].0, *w), v[i].1),
            Vals::Text(v) => v[i].clone(),
        }
    }

    /// As floats, for comparisons across kinds and with tolerances.
    fn float(&self, i: usize) -> Option<(f64, f64)> {
        match self {
            Vals::Ints(v) => Some((v[i] as f64, 0.0)),
            Vals::Floats(v, _) => Some((v[i], 0.0)),
            Vals::Complex(v, _) => Some(v[i]),
            Vals::Text(_) => None,
        }
    }
}

/// `isclose(a, b)` with NaN equal to NaN; exact equality when both tolerances are zero.
fn close(a: f64, b: f64, tol: Tolerance) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    (a - b).abs() <= tol.atol + tol.rtol * b.abs()
}

/// The differences found in the values of one pair of arrays.
#[derive(Default)]
struct ValueDiff {
    compared: u64,
    differing: u64,
    /// The differences first in numpy's (C) order: (multi-index, field, a, b), sorted by
    /// index, at most `SHOWN`.
    first: Vec<(Vec<usize>, Option<String>, String, String)>,
    max_abs: f64,
}

impl ValueDiff {
    fn compare(
        &mut self,
        a: &Vals,
        b: &Vals,
        field: Option<&str>,
        index_of: &dyn Fn(usize) -> Vec<usize>,
        tol: Tolerance,
    ) {
        let n = a.len().min(b.len());
        self.compared += n as u64;
        for i in 0..n {
            let same = match (a, b) {
                (Vals::Ints(x), Vals::Ints(y)) if tol.rtol == 0.0 && tol.atol == 0.0 => {
                    x[i] == y[i]
                }
                (Vals::Text(x), Vals::Text(y)) => x[i] == y[i],
                _ => match (a.float(i), b.float(i)) {
                    (Some((ar, ai)), Some((br, bi))) => {
                        let same = close(ar, br, tol) && close(ai, bi, tol);
                        if !same {
                            let d = (ar - br).abs().max((ai - bi).abs());
                            if d.is_finite() && d > self.max_abs {
                                self.max_abs = d;
                            }
                        }
                        same
                    }
                    _ => a.show(i) == b.show(i),
                },
            };
            if !same {
                self.differing += 1;
                // Kept if among the first in C order (a Fortran file's storage order differs).
                let index = index_of(i);
                let pos = self.first.partition_point(|f| f.0 <= index);
                if pos < SHOWN {
                    self.first.insert(
                        pos,
                        (index, field.map(str::to_string), a.show(i), b.show(i)),
                    );
                    self.first.truncate(SHOWN);
                }
            }
        }
    }
}

/// The record fields of a dtype, as paths of names (one empty path for a plain dtype).
fn field_paths(d: &DType, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    match d {
        DType::Structured(r) => {
            for f in r.fields() {
                let mut p = path.clone();
                p.push(f.name.clone());
                field_paths(&f.dtype, p, out);
            }
        }
        _ => out.push(path),
    }
}

fn pick(a: &DynArray, path: &[String], name: &str) -> Res<DynArray> {
    let mut a = a.clone();
    for step in path {
        a = a.field(step).map_err(|e| Fail::lib(name, e))?;
    }
    Ok(a)
}

/// Compares two arrays; `None` if they are the same.
fn diff_arrays(
    a: &ArraySource,
    b: &ArraySource,
    tol: Tolerance,
    progress: &mut crate::progress::Progress,
) -> Res<Option<Value>> {
    let mut out = serde_json::Map::new();
    let (da, db) = (a.dtype(), b.dtype());
    if da != db {
        out.insert("dtype".into(), json!([numpy_name(da), numpy_name(db)]));
    }
    if a.shape() != b.shape() {
        out.insert("shape".into(), json!([a.shape(), b.shape()]));
        return Ok(Some(Value::Object(out)));
    }
    if da.has_object() || db.has_object() {
        return Err(Fail::unsupported(
            if da.has_object() { &a.name } else { &b.name },
            "holds pickled Python objects, which only numpy can compare",
        ));
    }
    // Record fields compared by name: both must have the same fields.
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    field_paths(da, Vec::new(), &mut pa);
    field_paths(db, Vec::new(), &mut pb);
    if pa != pb {
        out.insert("fields".into(), json!([pa, pb]));
        return Ok(Some(Value::Object(out)));
    }
    let shape = a.shape().to_vec();
    let unravel = |pos: usize, fortran: bool| -> Vec<usize> {
        let mut idx = vec![0; shape.len()];
        let mut rest = pos;
        let axes: Vec<usize> = if fortran {
            (0..shape.len()).collect()
        } else {
            (0..shape.len()).rev().collect()
        };
        for k in axes {
            let d = shape[k].max(1);
            idx[k] = rest % d;
            rest /= d;
        }
        idx
    };
    let mut vd = ValueDiff::default();
    let (fa, fb) = (a.info.header.fortran_order, b.info.header.fortran_order);
    let multi = shape.iter().filter(|&&d| d > 1).count() > 1;
    let compare_chunk = |vd: &mut ValueDiff,
                         ca: &DynArray,
                         cb: &DynArray,
                         first: usize,
                         fortran: bool|
     -> Res<()> {
        for path in &pa {
            let (xa, xb) = (pick(ca, path, &a.name)?, pick(cb, path, &b.name)?);
            let (va, vb) = (Vals::of(&xa), Vals::of(&xb));
            // Sub-array fields have several values per element.
            let per = (va.len() / ca.shape().iter().product::<usize>().max(1)).max(1);
            let field = (!path.is_empty()).then(|| path.join("."));
            vd.compare(
                &va,
                &vb,
                field.as_deref(),
                &|i| unravel(first + i / per, fortran),
                tol,
            );
        }
        Ok(())
    };
    if fa == fb || !multi {
        // Same storage order: compare chunk by chunk, in bounded memory.
        let total = a.len();
        let step = a.chunk_elements().min(b.chunk_elements());
        progress.start(
            &a.name,
            total as u64,
            (da.itemsize() + db.itemsize()) as u64,
        );
        let mut first = 0;
        while first < total {
            let end = (first + step).min(total);
            let (ca, cb) = (a.elements(first..end)?, b.elements(first..end)?);
            compare_chunk(&mut vd, &ca, &cb, first, fa && multi)?;
            progress.set(end as u64);
            first = end;
        }
        progress.finish();
    } else {
        // Different layouts: both read whole, compared in logical (C) order.
        let (ca, cb) = (a.read_all()?, b.read_all()?);
        compare_chunk(&mut vd, &ca, &cb, 0, false)?;
    }
    if vd.differing == 0 && !out.is_empty() {
        // Another dtype (a byte order, a wider type) holding the same values.
        out.insert("values_equal".into(), json!(true));
    }
    if vd.differing > 0 {
        out.insert("differing".into(), json!(vd.differing));
        out.insert("compared".into(), json!(vd.compared));
        if vd.max_abs > 0.0 {
            out.insert("max_abs_diff".into(), json!(vd.max_abs));
        }
        out.insert(
            "first".into(),
            Value::Array(
                vd.first
                    .iter()
                    .map(|(i, f, x, y)| json!({"index": i, "field": f, "a": x, "b": y}))
                    .collect(),
            ),
        );
    }
    Ok((!out.is_empty()).then_some(Value::Object(out)))
}

fn print_array_diff(prefix: &str, d: &Value) {
    if let Some(dt) = d.get("dtype") {
        outln!(
            "{prefix}dtype: {} -> {}",
            dt[0].as_str().unwrap_or(""),
            dt[1].as_str().unwrap_or("")
        );
    }
    if let Some(s) = d.get("shape") {
        let t = |v: &Value| {
            let dims: Vec<usize> = v
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_u64().map(|x| x as usize))
                .collect();
            shape_tuple(&dims)
        };
        outln!(
            "{prefix}shape: {} -> {} (values not compared)",
            t(&s[0]),
            t(&s[1])
        );
    }
    if let Some(b) = d.get("bytes") {
        outln!(
            "{prefix}{} -> {}",
            b[0].as_str().unwrap_or(""),
            b[1].as_str().unwrap_or("")
        );
    }
    if d.get("fields").is_some() {
        outln!("{prefix}fields differ (values not compared)");
    }
    if d.get("values_equal").is_some() {
        outln!("{prefix}values: equal");
    }
    if let Some(n) = d.get("differing") {
        let mut line = format!("{prefix}values: {n} of {} differ", d["compared"]);
        if let Some(m) = d.get("max_abs_diff").and_then(Value::as_f64) {
            line.push_str(&format!(
                " (max abs difference {})",
                pyfmt::scalar_float(Float {
                    value: m,
                    width: Width::F64
                })
            ));
        }
        outln!("{line}");
        for f in d["first"].as_array().into_iter().flatten() {
            let idx: Vec<String> = f["index"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|x| x.to_string())
                .collect();
            let field = f["field"]
                .as_str()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            outln!(
                "{prefix}  [{}]{field}: {} -> {}",
                idx.join(", "),
                f["a"].as_str().unwrap_or(""),
                f["b"].as_str().unwrap_or("")
            );
        }
    }
}

/// The bytes of member `key` if it is not an array, `None` if it is one.
fn raw_member(npz: &mut NpzReader<std::fs::File>, path: &Path, key: &str) -> Res<Option<Vec<u8>>> {
    let name = format!("{}:{key}", path.display());
    let mut member = npz.member(key).map_err(|e| Fail::lib(&name, e))?;
    match member.header() {
        Ok(_) => Ok(None),
        Err(e) if e.kind() == ndnpy::ErrorKind::NotNpy => {
            Ok(Some(member.bytes().map_err(|e| Fail::lib(&name, e))?))
        }
        Err(e) => Err(Fail::lib(&name, e)),
    }
}

/// Compares `a` and `b`; prints the differences; 1 if there are any, else 0.
pub fn run(
    a: &Target,
    b: &Target,
    tol: Tolerance,
    as_json: bool,
    progress: &mut crate::progress::Progress,
) -> Res<i32> {
    let archives = a.member.is_none()
        && b.member.is_none()
        && a.selection.is_none()
        && b.selection.is_none()
        && !a.is_url()
        && !b.is_url()
        && file_kind(&a.path)? == FileKind::Npz
        && file_kind(&b.path)? == FileKind::Npz;
    let (an, bn) = (a.display(), b.display());
    let mut report = json!({"a": an, "b": bn});
    let equal;
    if archives {
        let open =
            |p: &Path| NpzReader::open(p).map_err(|e| Fail::lib(&p.display().to_string(), e));
        let (mut za, mut zb) = (open(&a.path)?, open(&b.path)?);
        let ka: BTreeSet<String> = za.keys().map(str::to_string).collect();
        let kb: BTreeSet<String> = zb.keys().map(str::to_string).collect();
        let removed: Vec<&String> = ka.difference(&kb).collect();
        let added: Vec<&String> = kb.difference(&ka).collect();
        let mut changed = serde_json::Map::new();
        for key in za.keys().map(str::to_string).collect::<Vec<_>>() {
            if !kb.contains(&key) {
                continue;
            }
            // Members that are not arrays (np.load gives their bytes) are compared as bytes.
            let (ra, rb) = (
                raw_member(&mut za, &a.path, &key)?,
                raw_member(&mut zb, &b.path, &key)?,
            );
            if ra.is_some() || rb.is_some() {
                if ra != rb {
                    let kind = |r: &Option<Vec<u8>>| match r {
                        Some(b) => format!("{} bytes (not an array)", b.len()),
                        None => "an array".to_string(),
                    };
                    changed.insert(key, json!({"bytes": [kind(&ra), kind(&rb)]}));
                }
                continue;
            }
            let sa = ArraySource::open_member(&a.path, &mut za, &key)?;
            let sb = ArraySource::open_member(&b.path, &mut zb, &key)?;
            if let Some(d) = diff_arrays(&sa, &sb, tol, progress)? {
                changed.insert(key, d);
            }
        }
        equal = removed.is_empty() && added.is_empty() && changed.is_empty();
        if !as_json && !equal {
            outln!("--- {an}\n+++ {bn}");
            for k in &removed {
                outln!("- {k}: only in {an}");
            }
            for k in &added {
                outln!("+ {k}: only in {bn}");
            }
            for (k, d) in &changed {
                outln!("~ {k}:");
                print_array_diff("    ", d);
            }
        }
        report["removed"] = json!(removed);
        report["added"] = json!(added);
        report["changed"] = Value::Object(changed);
    } else {
        let (sa, sb) = (ArraySource::open(a)?, ArraySource::open(b)?);
        let d = diff_arrays(&sa, &sb, tol, progress)?;
        equal = d.is_none();
        if !as_json {
            if let Some(d) = &d {
                outln!("--- {an}\n+++ {bn}");
                print_array_diff("", d);
            }
        }
        report["differences"] = d.unwrap_or(Value::Null);
    }
    report["equal"] = json!(equal);
    if as_json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    }
    Ok(if equal { EXIT_OK } else { EXIT_FOUND })
}
