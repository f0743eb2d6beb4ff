//! `ndnpy stats`: count, NaN and infinity counts, min, max, mean and standard deviation, per
//! field for records, computed in one streaming pass over chunks of the file.

use crate::fail::{Fail, Res};
use crate::ls::{numpy_name, shape_tuple};
use crate::pyfmt::{self, Float, Width};
use crate::source::{ArraySource, Target};
use ndnpy::{DType, DynArray, DynData};
use serde_json::{json, Value};
use std::ops::Range;

/// What kind of values a column holds, which decides what is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Booleans and integers: exact min and max.
    Int,
    /// Floats (and each part of complex numbers).
    Float,
    /// Datetimes: min and max as dates, NaT counted.
    Datetime(Option<ndnpy::dtype::DateTimeUnit>),
    /// Timedeltas: min and max as counts of the unit, NaT counted.
    Timedelta,
    /// Strings, bytes, void: counted only.
    Other,
}

/// The running statistics of one column (an array, or one field of records).
#[derive(Debug, Clone)]
struct Acc {
    name: Option<String>,
    kind: Kind,
    /// The float type, whose shortest digits min and max are printed with.
    width: Width,
    count: u64,
    /// NaN (floats) or NaT (datetimes).
    nan: u64,
    posinf: u64,
    neginf: u64,
    imin: Option<i128>,
    imax: Option<i128>,
    fmin: Option<f64>,
    fmax: Option<f64>,
    /// Long doubles that do not fit a float64 exactly (counted at their nearest float64).
    inexact: u64,
    /// Finite values seen, their mean and sum of squared deviations (Chan et al.'s merge).
    n: u64,
    mean: f64,
    m2: f64,
}

impl Acc {
    fn new(name: Option<String>, kind: Kind) -> Acc {
        Acc {
            name,
            kind,
            width: Width::F64,
            count: 0,
            nan: 0,
            posinf: 0,
            neginf: 0,
            imin: None,
            imax: None,
            fmin: None,
            fmax: None,
            inexact: 0,
            n: 0,
            mean: 0.0,
            m2: 0.0,
        }
    }

    /// Adds finite values: a two-pass mean and deviation of the chunk, merged into the total.
    fn merge_finite(&mut self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let nb = values.len() as f64;
        let mean_b = values.iter().sum::<f64>() / nb;
        let m2_b: f64 = values.iter().map(|v| (v - mean_b) * (v - mean_b)).sum();
        let na = self.n as f64;
        let total = na + nb;
        let delta = mean_b - self.mean;
        self.mean += delta * nb / total;
        self.m2 += m2_b + delta * delta * na * nb / total;
        self.n += values.len() as u64;
    }

    fn add_ints(&mut self, values: impl Iterator<Item = i128>) {
        let mut buf = Vec::new();
        for v in values {
            self.count += 1;
            self.imin = Some(self.imin.map_or(v, |m| m.min(v)));
            self.imax = Some(self.imax.map_or(v, |m| m.max(v)));
            buf.push(v as f64);
        }
        self.merge_finite(&buf);
    }

    fn add_floats(&mut self, values: impl Iterator<Item = f64>) {
        let mut buf = Vec::new();
        for v in values {
            self.count += 1;
            if v.is_nan() {
                self.nan += 1;
                continue;
            }
            self.fmin = Some(self.fmin.map_or(v, |m| m.min(v)));
            self.fmax = Some(self.fmax.map_or(v, |m| m.max(v)));
            if v == f64::INFINITY {
                self.posinf += 1;
            } else if v == f64::NEG_INFINITY {
                self.neginf += 1;
            } else {
                buf.push(v);
            }
        }
        self.merge_finite(&buf);
    }

    fn add_times(&mut self, values: impl Iterator<Item = Option<i64>>) {
        for v in values {
            self.count += 1;
            match v {
                None => self.nan += 1,
                Some(v) => {
                    let v = i128::from(v);
                    self.imin = Some(self.imin.map_or(v, |m| m.min(v)));
                    self.imax = Some(self.imax.map_or(v, |m| m.max(v)));
                }
            }
        }
    }

    /// numpy's `nanmean`: NaN left out; infinite if infinities of one sign are present.
    fn mean(&self) -> Option<f64> {
        match (self.posinf > 0, self.neginf > 0) {
            (true, true) => Some(f64::NAN),
            (true, false) => Some(f64::INFINITY),
            (false, true) => Some(f64::NEG_INFINITY),
            _ if self.n == 0 => None,
            _ => Some(self.mean),
        }
    }

    /// numpy's `nanstd` (ddof 0): NaN left out; NaN if infinities are present.
    fn std(&self) -> Option<f64> {
        if self.posinf + self.neginf > 0 {
            Some(f64::NAN)
        } else if self.n == 0 {
            None
        } else {
            Some((self.m2 / self.n as f64).sqrt())
        }
    }

    fn is_numeric(&self) -> bool {
        matches!(self.kind, Kind::Int | Kind::Float)
    }

    /// min and max as text: integers exact, floats as numpy prints a scalar of the column's
    /// type, dates as ISO dates.
    fn min_max(&self) -> (Option<String>, Option<String>) {
        match self.kind {
            Kind::Int | Kind::Timedelta => (
                self.imin.map(|v| v.to_string()),
                self.imax.map(|v| v.to_string()),
            ),
            Kind::Float => {
                let w = |v: f64| {
                    pyfmt::scalar_float(Float {
                        value: v,
                        width: self.width,
                    })
                };
                (self.fmin.map(w), self.fmax.map(w))
            }
            Kind::Datetime(Some(unit)) => {
                let d = |v: i128| pyfmt::datetime(v as i64, unit);
                (self.imin.map(d), self.imax.map(d))
            }
            _ => (None, None),
        }
    }

    fn json(&self) -> Value {
        let num = |v: Option<f64>| match v {
            Some(v) if v.is_finite() => json!(v),
            Some(v) => json!(pyfmt::scalar_float(Float {
                value: v,
                width: Width::F64
            })),
            None => Value::Null,
        };
        let mut o = json!({ "name": self.name, "count": self.count });
        match self.kind {
            Kind::Int => {
                o["min"] = self.imin.map_or(Value::Null, |v| json!(v as f64));
                o["max"] = self.imax.map_or(Value::Null, |v| json!(v as f64));
                if let (Some(a), Some(b)) = (self.imin, self.imax) {
                    // Exact, where f64 would round large 64-bit integers.
                    o["min_exact"] = json!(a.to_string());
                    o["max_exact"] = json!(b.to_string());
                }
                o["mean"] = num(self.mean());
                o["std"] = num(self.std());
            }
            Kind::Float => {
                if self.inexact > 0 {
                    o["inexact"] = json!(self.inexact);
                }
                o["nan"] = json!(self.nan);
                o["posinf"] = json!(self.posinf);
                o["neginf"] = json!(self.neginf);
                o["min"] = num(self.fmin);
                o["max"] = num(self.fmax);
                o["mean"] = num(self.mean());
                o["std"] = num(self.std());
            }
            Kind::Datetime(_) | Kind::Timedelta => {
                let (min, max) = self.min_max();
                o["nat"] = json!(self.nan);
                o["min"] = json!(min);
                o["max"] = json!(max);
            }
            Kind::Other => {}
        }
        o
    }
}

/// Whether a float of `size` bytes is a long double (numpy's `float96`, `float128`).
fn long_double(size: usize) -> bool {
    matches!(size, 12 | 16)
}

/// The two formats numpy's long doubles come in: the x86 extended format (80 bits, padded to
/// 12 or 16 bytes), written by numpy on x86, and IEEE binary128, on 64-bit Arm Linux and
/// others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LongDouble {
    X87,
    Quad,
}

impl LongDouble {
    /// The format of `values`, which the file does not say (numpy writes its platform's long
    /// double as `f16` either way): the one under which more of them read as plausible
    /// numbers (zero, infinity, NaN, or a normal number within 2^±4000), then as more of
    /// them non-zero. The x86 format's padding holds whatever memory held (numpy copies the
    /// 10 bytes), and its integer bit is set in every normal number; a binary128 number's
    /// low 10 bytes, read as the x86 format, rarely are one.
    fn of(values: &[&[u8]], big: bool) -> LongDouble {
        if values.first().is_some_and(|v| v.len() == 12) {
            return LongDouble::X87;
        }
        let (mut x87, mut quad) = ((0, 0), (0, 0));
        for v in values {
            let bits = bits_of(v, big);
            let (m, e) = (bits as u64, ((bits >> 64) & 0x7fff) as i32);
            let plausible = |e: i32, integer_bit: bool, zero: bool| match e {
                0x7fff => integer_bit,
                0 => zero,
                e => integer_bit && (e - 16383).abs() <= 4000,
            };
            if plausible(e, m >> 63 == 1, m == 0) {
                x87.0 += 1;
                x87.1 += usize::from(e != 0);
            }
            let e = ((bits >> 112) & 0x7fff) as i32;
            if plausible(e, true, bits << 1 == 0) {
                quad.0 += 1;
                quad.1 += usize::from(e != 0);
            }
        }
        if x87 >= quad {
            LongDouble::X87
        } else {
            LongDouble::Quad
        }
    }

    /// The value of `bytes` (in big-endian order if `big`) as the nearest float64, and
    /// whether it is exactly that.
    fn to_f64(self, bytes: &[u8], big: bool) -> (f64, bool) {
        let bits = bits_of(bytes, big);
        match self {
            LongDouble::X87 => {
                let mantissa = bits as u64; // the integer bit, then 63 of fraction
                let sign_exp = (bits >> 64) as u16;
                let exp = i32::from(sign_exp & 0x7fff);
                let negative = sign_exp & 0x8000 != 0;
                let fraction_bits = mantissa & (u64::MAX >> 1);
                if exp == 0x7fff {
                    return special(negative, fraction_bits == 0);
                }
                // value = mantissa * 2^(exp - 16383 - 63); denormals have exp 0 and count as 1.
                let scale = exp.max(1) - 16383 - 63;
                let exact = mantissa.trailing_zeros() >= 11 || mantissa == 0;
                finish(negative, mantissa as f64, scale, exact, mantissa == 0)
            }
            LongDouble::Quad => {
                let negative = bits >> 127 != 0;
                let exp = ((bits >> 112) & 0x7fff) as i32;
                let fraction = bits & ((1u128 << 112) - 1);
                if exp == 0x7fff {
                    return special(negative, fraction == 0);
                }
                // value = (implicit bit + fraction) * 2^(exp - 16383 - 112).
                let significand = fraction | (u128::from(exp != 0) << 112);
                let scale = exp.max(1) - 16383 - 112;
                let exact = significand.trailing_zeros() >= 60 || significand == 0;
                // The top 64 bits carry every bit an f64 can hold; the rest only round.
                let top =
                    (significand >> 49) as u64 | u64::from(significand & ((1 << 49) - 1) != 0);
                finish(negative, top as f64, scale + 49, exact, significand == 0)
            }
        }
    }
}

/// The bits of a long double of 12 or 16 bytes (big-endian if `big`), as a little-endian
/// number (the x86 format's padding in the top bytes).
fn bits_of(bytes: &[u8], big: bool) -> u128 {
    let mut le = [0u8; 16];
    le[..bytes.len()].copy_from_slice(bytes);
    if big {
        le[..bytes.len()].reverse();
    }
    u128::from_le_bytes(le)
}

/// Infinity (`inf`) or NaN of the sign.
fn special(negative: bool, inf: bool) -> (f64, bool) {
    match (inf, negative) {
        (true, false) => (f64::INFINITY, true),
        (true, true) => (f64::NEG_INFINITY, true),
        _ => (f64::NAN, true),
    }
}

/// `±m * 2^scale` as a float64, exact if `bits_fit` and it lands in the normal range.
fn finish(negative: bool, m: f64, scale: i32, bits_fit: bool, zero: bool) -> (f64, bool) {
    if zero {
        return (if negative { -0.0 } else { 0.0 }, true);
    }
    // Scale in steps that each stay exact (powers of two within f64's range).
    let mut v = m;
    let mut k = scale;
    while k != 0 {
        let step = k.clamp(-1000, 1000);
        v *= 2f64.powi(step);
        k -= step;
        if v == 0.0 || v.is_infinite() {
            break;
        }
    }
    let v = if negative { -v } else { v };
    (v, bits_fit && v.is_normal())
}

/// The float type of `size` bytes.
fn width(size: usize) -> Width {
    match size {
        2 => Width::F16,
        4 => Width::F32,
        _ => Width::F64,
    }
}

/// The columns of a dtype: one for a plain array, one per (nested) field for records, two
/// (real, imaginary) for complex numbers.
fn columns(
    dtype: &DType,
    name: Option<String>,
    out: &mut Vec<(Vec<String>, Acc)>,
    path: Vec<String>,
) {
    let mut base = dtype;
    while let DType::SubArray(s) = base {
        base = s.base();
    }
    match base {
        DType::Structured(r) => {
            for f in r.fields() {
                let mut p = path.clone();
                p.push(f.name.clone());
                let n = match &name {
                    Some(prefix) => format!("{prefix}.{}", f.name),
                    None => f.name.clone(),
                };
                columns(&f.dtype, Some(n), out, p);
            }
        }
        DType::Scalar(s) => {
            use ndnpy::dtype::ScalarKind as K;
            let kind = match s.kind() {
                K::Bool | K::Int | K::UInt => Kind::Int,
                K::Float if s.size() <= 8 || long_double(s.size()) => Kind::Float,
                K::Complex => {
                    for part in ["real", "imag"] {
                        let n = match &name {
                            Some(prefix) => format!("{prefix}.{part}"),
                            None => part.to_string(),
                        };
                        let mut p = path.clone();
                        p.push(format!("\0{part}"));
                        let mut acc = Acc::new(Some(n), Kind::Float);
                        acc.width = width(s.size() / 2);
                        out.push((p, acc));
                    }
                    return;
                }
                K::Datetime => Kind::Datetime(s.unit()),
                K::Timedelta => Kind::Timedelta,
                _ => Kind::Other,
            };
            let mut acc = Acc::new(name, kind);
            acc.width = width(s.size());
            out.push((path, acc));
        }
        _ => out.push((path, Acc::new(name, Kind::Other))),
    }
}

/// Feeds the values of `a` (any shape) into `acc`; `part` picks a complex part.
fn feed(acc: &mut Acc, a: &DynArray, part: Option<&str>) {
    let re = part != Some("imag");
    match a.data() {
        DynData::Bool(v) => acc.add_ints(v.iter().map(|&b| i128::from(b))),
        DynData::I8(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::I16(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::I32(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::I64(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::U8(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::U16(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::U32(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::U64(v) => acc.add_ints(v.iter().map(|&x| i128::from(x))),
        DynData::F16(v) => acc.add_floats(v.iter().map(|x| x.to_f64())),
        DynData::F32(v) => acc.add_floats(v.iter().map(|&x| f64::from(x))),
        DynData::F64(v) => acc.add_floats(v.iter().copied()),
        DynData::C64(v) => {
            acc.add_floats(v.iter().map(|c| f64::from(if re { c.re } else { c.im })))
        }
        DynData::C128(v) => acc.add_floats(v.iter().map(|c| if re { c.re } else { c.im })),
        DynData::Datetime(v) => acc.add_times(v.iter().map(|t| (!t.is_nat()).then_some(t.value))),
        DynData::Timedelta(v) => acc.add_times(v.iter().map(|t| (!t.is_nat()).then_some(t.value))),
        DynData::Unicode(v) => acc.count += v.len() as u64,
        DynData::Bytes(v) => acc.count += v.len() as u64,
        DynData::Raw(raw) if acc.kind == Kind::Float => {
            // Long doubles (and their complex numbers), as raw bytes: each value (or part)
            // converted to the nearest float64, those it does not fit exactly counted.
            let Some(s) = a.dtype().as_scalar() else {
                return;
            };
            let complex = s.kind() == ndnpy::dtype::ScalarKind::Complex;
            let size = if complex { s.size() / 2 } else { s.size() };
            let big = s.byte_order() == ndnpy::dtype::ByteOrder::Big;
            let item = s.size();
            let skip = usize::from(complex && !re) * size;
            let parts: Vec<&[u8]> = raw
                .bytes
                .chunks_exact(item)
                .map(|e| &e[skip..skip + size])
                .collect();
            let format = LongDouble::of(&parts, big);
            let mut inexact = 0;
            let values: Vec<f64> = parts
                .iter()
                .map(|p| {
                    let (v, exact) = format.to_f64(p, big);
                    inexact += u64::from(!exact);
                    v
                })
                .collect();
            acc.inexact += inexact;
            acc.add_floats(values.into_iter());
        }
        _ => {
            let n: usize = a.shape().iter().product();
            acc.count += n as u64;
        }
    }
}

/// Computes and prints the statistics of `target` (or of `rows` of its first axis).
pub fn run(
    target: &Target,
    rows: Option<Range<usize>>,
    as_json: bool,
    progress: &mut crate::progress::Progress,
) -> Res<()> {
    let mut src = ArraySource::open(target)?;
    let name = src.name.clone();
    if src.dtype().has_object() {
        return Err(Fail::unsupported(
            &name,
            "holds pickled Python objects, which only numpy can read (np.load(..., allow_pickle=True))",
        ));
    }
    // The elements to read, in storage order.
    let mut range = 0..src.len();
    if let Some(r) = rows.clone() {
        if src.info.header.fortran_order && src.shape().len() > 1 {
            let a = src.read_rows(r)?;
            src = ArraySource::from_array(&name, &a)?;
            range = 0..src.len();
        } else {
            let n = src.shape().first().copied().ok_or_else(|| {
                Fail::usage(format!(
                    "{name}: --rows needs an array of at least one dimension"
                ))
            })?;
            if r.start > r.end || r.end > n {
                return Err(Fail::usage(format!(
                    "{name}: --rows {}..{} is outside the first axis (length {n})",
                    r.start, r.end
                )));
            }
            let per_row: usize = src.shape()[1..].iter().product();
            range = r.start * per_row..r.end * per_row;
        }
    }
    let mut cols = Vec::new();
    columns(src.dtype(), None, &mut cols, Vec::new());
    progress.start(&name, range.len() as u64, src.dtype().itemsize() as u64);
    src.for_each_chunk(
        range.clone(),
        |_, chunk| {
            for (path, acc) in cols.iter_mut() {
                if path.is_empty() {
                    feed(acc, chunk, None);
                    continue;
                }
                let mut a = chunk.clone();
                let mut part = None;
                for step in path.iter() {
                    if let Some(p) = step.strip_prefix('\0') {
                        part = Some(p);
                    } else {
                        a = a.field(step).map_err(|e| Fail::lib(&name, e))?;
                    }
                }
                feed(acc, &a, part);
            }
            Ok(())
        },
        &mut |done| progress.set(done as u64),
    )?;
    progress.finish();
    let dtype = numpy_name(src.dtype());
    let shape = shape_tuple(src.shape());
    if as_json {
        let v = json!({
            "file": name,
            "dtype": dtype,
            "shape": src.shape(),
            "rows": rows.map(|r| [r.start, r.end]),
            "columns": cols.iter().map(|(_, a)| a.json()).collect::<Vec<_>>(),
        });
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    match &rows {
        Some(r) => outln!("{name}: {dtype} {shape}, rows {}..{}", r.start, r.end),
        None => outln!("{name}: {dtype} {shape}"),
    }
    let mut table: Vec<Vec<String>> = vec![[
        "field", "count", "nan", "inf", "min", "max", "mean", "std",
    ]
    .map(String::from)
    .to_vec()];
    let f = |v: Option<f64>| {
        v.map_or("-".to_string(), |v| {
            pyfmt::scalar_float(Float {
                value: v,
                width: Width::F64,
            })
        })
    };
    for (_, a) in &cols {
        let (min, max) = a.min_max();
        let dash = || "-".to_string();
        let (nan, inf) = match a.kind {
            Kind::Float => (a.nan.to_string(), (a.posinf + a.neginf).to_string()),
            Kind::Datetime(_) | Kind::Timedelta => (format!("{} NaT", a.nan), dash()),
            _ => (dash(), dash()),
        };
        let (mean, std) = if a.is_numeric() {
            (f(a.mean()), f(a.std()))
        } else {
            (dash(), dash())
        };
        table.push(vec![
            a.name.clone().unwrap_or_else(|| "-".into()),
            a.count.to_string(),
            nan,
            inf,
            min.unwrap_or_else(dash),
            max.unwrap_or_else(dash),
            mean,
            std,
        ]);
    }
    let records = cols.iter().any(|(_, a)| a.name.is_some());
    let first = usize::from(!records);
    let widths: Vec<usize> = (0..8)
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let mut line = String::new();
        for c in first..8 {
            if c == 0 {
                line.push_str(&format!("  {}", crate::ls::pad(&row[c], widths[c], false)));
            } else {
                line.push_str(&format!("  {}", crate::ls::pad(&row[c], widths[c], true)));
            }
        }
        outln!("{}", line.trim_end());
    }
    for (_, a) in cols.iter().filter(|(_, a)| a.inexact > 0) {
        let name = a
            .name
            .as_deref()
            .map_or(String::new(), |n| format!(" of {n}"));
        outln!(
            "  {} long double values{name} do not fit a float64 exactly: their nearest float64s are counted",
            a.inexact
        );
    }
    Ok(())
}

#[cfg(test)]
mod long_double_tests {
    use super::*;

    /// `x` in binary128 and in the x86 format (with `pad` as its padding), little-endian.
    fn encode(x: f64, pad: u16) -> ([u8; 16], [u8; 16]) {
        let b = x.to_bits();
        let (sign, e, f) = (
            u128::from(b >> 63),
            ((b >> 52) & 0x7ff) as u128,
            u128::from(b & ((1 << 52) - 1)),
        );
        let e = e + 16383 - 1023;
        let quad = (sign << 127) | (e << 112) | (f << 60);
        let mantissa = (1u128 << 63) | (f << 11);
        let x87 = (u128::from(pad) << 80) | (sign << 79) | (e << 64) | mantissa;
        (quad.to_le_bytes(), x87.to_le_bytes())
    }

    #[test]
    fn both_formats_are_told_apart_and_read_exactly() {
        let xs = [2.5, -3.0, 0.1, 1e300, -7.25e-200];
        let (quad, x87): (Vec<_>, Vec<_>) = xs.iter().map(|&x| encode(x, 0x7ffd)).unzip();
        for (values, want) in [(&quad, LongDouble::Quad), (&x87, LongDouble::X87)] {
            let parts: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
            assert_eq!(LongDouble::of(&parts, false), want);
            for (p, &x) in parts.iter().zip(&xs) {
                assert_eq!(want.to_f64(p, false), (x, true), "{want:?} {x}");
                let mut be = p.to_vec();
                be.reverse();
                assert_eq!(want.to_f64(&be, true), (x, true), "{want:?} {x} big-endian");
            }
        }
        // A bit past float64's precision: the nearest float64, not exact.
        let (mut q, mut x) = encode(0.1, 0);
        q[0] |= 1;
        x[0] |= 1;
        assert_eq!(LongDouble::Quad.to_f64(&q, false), (0.1, false));
        assert_eq!(LongDouble::X87.to_f64(&x, false), (0.1, false));
        // Nice binary128 numbers read as zeros in the x86 format: the non-zero reading wins.
        let (two, _) = encode(2.0, 0);
        assert_eq!(LongDouble::of(&[&two[..]], false), LongDouble::Quad);
    }
}
