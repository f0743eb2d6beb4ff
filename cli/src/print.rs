//! numpy's `str(array)`: each value formatted to fit its column (`array2string`'s format
//! functions), laid out in nested brackets wrapped at 75 columns, summarised with `...` above
//! 1000 elements (three items at each edge of every axis).

use crate::fail::{Fail, Res};
use crate::pyfmt::{self, Float, FloatFormat, Width};
use ndnpy::{dtype::ScalarKind, DType, DynArray, DynData};

/// numpy's `threshold`: arrays of more elements are summarised.
pub const THRESHOLD: usize = 1000;
/// numpy's `edgeitems`.
pub const EDGE_ITEMS: usize = 3;
/// numpy's `linewidth`.
const LINE_WIDTH: usize = 75;

/// The values of a 1-D array, each formatted as numpy's format function fitted to all of
/// them formats it inside an array.
pub fn format_column(a: &DynArray, name: &str) -> Res<Vec<String>> {
    format_values(a, name, false)
}

/// [`format_column`], or with `float_str` each float as its scalar's `str()`: how numpy
/// prints the fields of one record (`np.void`'s str sets `float_kind=str`), `(8, 4.0, 'n8')`
/// where the array shows `(8, 4. , 'n8')`.
fn format_values(a: &DynArray, name: &str, float_str: bool) -> Res<Vec<String>> {
    fn ints<T: ToString>(v: impl Iterator<Item = T>) -> Vec<String> {
        right_justify(v.map(|x| x.to_string()).collect())
    }
    let floats = |v: Vec<Float>| -> Vec<String> {
        if float_str {
            return v.into_iter().map(pyfmt::scalar_float).collect();
        }
        let f = FloatFormat::new(&v, false);
        v.iter().map(|&x| f.format(x)).collect()
    };
    let fl = |value: f64, width: Width| Float { value, width };
    Ok(match a.data() {
        DynData::Bool(v) => v
            .iter()
            .map(|&b| if b { " True" } else { "False" }.to_string())
            .collect(),
        DynData::I8(v) => ints(v.iter()),
        DynData::I16(v) => ints(v.iter()),
        DynData::I32(v) => ints(v.iter()),
        DynData::I64(v) => ints(v.iter()),
        DynData::U8(v) => ints(v.iter()),
        DynData::U16(v) => ints(v.iter()),
        DynData::U32(v) => ints(v.iter()),
        DynData::U64(v) => ints(v.iter()),
        DynData::F16(v) => floats(v.iter().map(|x| fl(x.to_f64(), Width::F16)).collect()),
        DynData::F32(v) => floats(v.iter().map(|&x| fl(f64::from(x), Width::F32)).collect()),
        DynData::F64(v) => floats(v.iter().map(|&x| fl(x, Width::F64)).collect()),
        DynData::C64(v) => complex(
            v.iter()
                .map(|c| {
                    (
                        fl(f64::from(c.re), Width::F32),
                        fl(f64::from(c.im), Width::F32),
                    )
                })
                .collect(),
        ),
        DynData::C128(v) => complex(
            v.iter()
                .map(|c| (fl(c.re, Width::F64), fl(c.im, Width::F64)))
                .collect(),
        ),
        DynData::Unicode(v) => v.iter().map(|s| pyfmt::repr_str(s)).collect(),
        DynData::Bytes(v) => v.iter().map(|b| pyfmt::repr_bytes(b)).collect(),
        DynData::Datetime(v) => right_justify(
            v.iter()
                .map(|t| match (t.is_nat(), t.unit) {
                    (false, Some(u)) => format!("'{}'", pyfmt::datetime(t.value, u)),
                    _ => "'NaT'".to_string(),
                })
                .collect(),
        ),
        DynData::Timedelta(v) => right_justify(
            v.iter()
                .map(|t| {
                    if t.is_nat() {
                        "'NaT'".to_string()
                    } else {
                        t.value.to_string()
                    }
                })
                .collect(),
        ),
        DynData::Raw(raw) => match a.dtype() {
            DType::Structured(record) => {
                let n = raw.shape.iter().product::<usize>();
                let mut columns = Vec::new();
                for field in record.fields() {
                    let values = a.field(&field.name).map_err(|e| Fail::lib(name, e))?;
                    let sub: Vec<usize> = values.shape()[raw.shape.len()..].to_vec();
                    let flat = format_values(&flatten(&values, name)?, name, float_str)?;
                    columns.push((flat, sub));
                }
                (0..n)
                    .map(|i| {
                        let parts: Vec<String> = columns
                            .iter()
                            .map(|(flat, sub)| {
                                let per: usize = sub.iter().product();
                                nested(&flat[i * per..(i + 1) * per], sub)
                            })
                            .collect();
                        if parts.len() == 1 {
                            format!("({},)", parts[0])
                        } else {
                            format!("({})", parts.join(", "))
                        }
                    })
                    .collect()
            }
            DType::Scalar(s) if s.kind() == ScalarKind::Float && s.size() >= 10 => {
                // x87 long doubles, shown at double precision.
                let order = s.byte_order();
                let v: Vec<Float> = raw
                    .bytes
                    .chunks(s.size())
                    .map(|b| fl(long_double(b, order), Width::F64))
                    .collect();
                floats(v)
            }
            d => {
                let size = d.itemsize().max(1);
                raw.bytes.chunks(size).map(pyfmt::repr_bytes).collect()
            }
        },
        _ => {
            return Err(Fail::unsupported(
                name,
                format!("cannot print dtype {}", a.dtype().descr()),
            ))
        }
    })
}

/// An x87 80-bit extended float (the first 10 bytes of `<f16`/`<f12`) as the nearest f64.
fn long_double(b: &[u8], order: ndnpy::dtype::ByteOrder) -> f64 {
    let mut bytes = [0u8; 10];
    if order == ndnpy::dtype::ByteOrder::Big {
        let n = b.len();
        for (i, x) in bytes.iter_mut().enumerate() {
            *x = b[n - 1 - i];
        }
    } else {
        bytes.copy_from_slice(&b[..10]);
    }
    let mantissa = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
    let se = u16::from_le_bytes([bytes[8], bytes[9]]);
    let sign = if se & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(se & 0x7fff);
    if exp == 0x7fff {
        return if mantissa << 1 == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if mantissa == 0 {
        return sign * 0.0;
    }
    let e = if exp == 0 { -16382 } else { exp - 16383 } - 63;
    // In two steps, so that neither power of two overflows or underflows on its own.
    sign * (mantissa as f64) * 2f64.powi(e / 2) * 2f64.powi(e - e / 2)
}

/// A copy of `a` as a 1-D array in C order.
fn flatten(a: &DynArray, name: &str) -> Res<DynArray> {
    let mut bytes = Vec::new();
    let shape = a.shape().to_vec();
    if a.is_fortran_order() && shape.iter().filter(|&&d| d > 1).count() > 1 {
        // Fields come out of C-ordered records in C order: a Fortran result is a 1-D case.
        return Err(Fail::unsupported(
            name,
            "cannot flatten a Fortran-order field",
        ));
    }
    a.write_npy(&mut bytes).map_err(|e| Fail::lib(name, e))?;
    let mut reader = &bytes[..];
    let info = ndnpy::Header::read(&mut reader, &ndnpy::ReadOptions::default())
        .map_err(|e| Fail::lib(name, e))?;
    let header = ndnpy::Header {
        dtype: info.header.dtype,
        fortran_order: false,
        shape: vec![info.num_elements],
    };
    let mut npy = header.to_bytes().map_err(|e| Fail::lib(name, e))?;
    npy.extend_from_slice(reader);
    DynArray::read_npy(&npy[..]).map_err(|e| Fail::lib(name, e))
}

/// Sub-array values as numpy's `SubArrayFormat` nests them: `[a, b]`.
fn nested(flat: &[String], shape: &[usize]) -> String {
    match shape.split_first() {
        None => flat.first().cloned().unwrap_or_default(),
        Some((&n, rest)) => {
            let per: usize = rest.iter().product();
            let items: Vec<String> = (0..n)
                .map(|i| nested(&flat[i * per..(i + 1) * per], rest))
                .collect();
            format!("[{}]", items.join(", "))
        }
    }
}

fn complex(v: Vec<(Float, Float)>) -> Vec<String> {
    let re: Vec<Float> = v.iter().map(|c| c.0).collect();
    let im: Vec<Float> = v.iter().map(|c| c.1).collect();
    let (fr, fi) = (FloatFormat::new(&re, false), FloatFormat::new(&im, true));
    v.iter()
        .map(|&(r, i)| {
            let i = fi.format(i);
            let sp = i.trim_end().len();
            format!("{}{}j{}", fr.format(r), &i[..sp], &i[sp..])
        })
        .collect()
}

fn right_justify(v: Vec<String>) -> Vec<String> {
    let w = v.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    v.into_iter().map(|s| crate::ls::pad(&s, w, true)).collect()
}

/// `str()` of a 0-d array: the scalar's own `str`.
pub fn format_scalar(a: &DynArray, name: &str) -> Res<String> {
    let fl = |value: f64, width: Width| Float { value, width };
    let first = |a: &DynArray| -> Res<String> {
        // A record's fields as numpy's `np.void` prints them; anything else as in an array.
        let float_str = matches!(a.dtype(), DType::Structured(_));
        Ok(format_values(a, name, float_str)?
            .into_iter()
            .next()
            .unwrap_or_default())
    };
    Ok(match a.data() {
        DynData::Bool(v) => v
            .iter()
            .next()
            .map(|b| if *b { "True" } else { "False" })
            .unwrap_or("")
            .to_string(),
        DynData::F16(v) => v
            .iter()
            .map(|x| pyfmt::scalar_float(fl(x.to_f64(), Width::F16)))
            .collect(),
        DynData::F32(v) => v
            .iter()
            .map(|&x| pyfmt::scalar_float(fl(f64::from(x), Width::F32)))
            .collect(),
        DynData::F64(v) => v
            .iter()
            .map(|&x| pyfmt::scalar_float(fl(x, Width::F64)))
            .collect(),
        DynData::C64(v) => v
            .iter()
            .map(|c| {
                scalar_complex(
                    fl(f64::from(c.re), Width::F32),
                    fl(f64::from(c.im), Width::F32),
                )
            })
            .collect(),
        DynData::C128(v) => v
            .iter()
            .map(|c| scalar_complex(fl(c.re, Width::F64), fl(c.im, Width::F64)))
            .collect(),
        DynData::Unicode(v) => v.iter().cloned().collect(),
        DynData::Datetime(_) => first(a)?.trim().trim_matches('\'').to_string(),
        DynData::Timedelta(v) => v
            .iter()
            .map(|t| pyfmt::timedelta(t.value, t.is_nat(), t.unit))
            .collect(),
        // numpy prints a 0-d bytes array as the repr of its scalar.
        DynData::Bytes(v) => v
            .iter()
            .map(|b| format!("np.bytes_({})", pyfmt::repr_bytes(b)))
            .collect(),
        _ => first(a)?.trim().to_string(),
    })
}

fn scalar_complex(re: Float, im: Float) -> String {
    // Python's complex repr: `(1+2j)`, and `2j` alone when the real part is +0.
    let part = |x: Float| {
        let s = pyfmt::scalar_float(x);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let i = part(im);
    let sign = if i.starts_with('-') || i.starts_with('+') {
        ""
    } else {
        "+"
    };
    if re.value == 0.0 && re.value.is_sign_positive() {
        format!("{i}j")
    } else {
        format!("({}{sign}{i}j)", part(re))
    }
}

/// Which indices of an axis of `len` are shown: all, or the edges when summarising.
pub fn shown(len: usize, summarise: bool) -> Vec<usize> {
    if summarise && len > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(len - EDGE_ITEMS..len).collect()
    } else {
        (0..len).collect()
    }
}

/// Lays out `cells` (the shown values in C order of `shown_shape`) as numpy's `_formatArray`
/// does for `str()`; `summarised[axis]` says whether `...` goes in the middle of that axis.
pub fn layout(cells: &[String], shown_shape: &[usize], summarised: &[bool]) -> String {
    struct Ctx<'a> {
        cells: &'a [String],
        shape: &'a [usize],
        summarised: &'a [bool],
    }
    fn extend(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
        let mut wrap = line.len() + word.len() > width;
        if line.len() <= prefix.len() {
            wrap = false;
        }
        if wrap {
            s.push_str(line.trim_end());
            s.push('\n');
            *line = prefix.to_string();
        }
        line.push_str(word);
    }
    fn rec(c: &Ctx, offset: usize, axis: usize, indent: &str, width: usize) -> String {
        let ndim = c.shape.len();
        if axis == ndim {
            return c.cells[offset].clone();
        }
        let next_indent = format!("{indent} ");
        let next_width = width - 1;
        let n = c.shape[axis];
        let stride: usize = c.shape[axis + 1..].iter().product();
        let summary = c.summarised[axis];
        let (lead, trail) = if summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, n)
        };
        let mut s = String::new();
        if ndim - axis == 1 {
            let elem_width = width - 1;
            let mut line = indent.to_string();
            for i in 0..lead {
                let w = rec(c, offset + i * stride, axis + 1, &next_indent, next_width);
                extend(&mut s, &mut line, &w, elem_width, indent);
                line.push(' ');
            }
            if summary {
                extend(&mut s, &mut line, "...", elem_width, indent);
                line.push(' ');
            }
            for i in (2..=trail).rev() {
                let w = rec(
                    c,
                    offset + (n - i) * stride,
                    axis + 1,
                    &next_indent,
                    next_width,
                );
                extend(&mut s, &mut line, &w, elem_width, indent);
                line.push(' ');
            }
            if n > 0 {
                let w = rec(
                    c,
                    offset + (n - 1) * stride,
                    axis + 1,
                    &next_indent,
                    next_width,
                );
                extend(&mut s, &mut line, &w, elem_width, indent);
            }
            s.push_str(&line);
        } else {
            let line_sep = "\n".repeat(ndim - axis - 1);
            for i in 0..lead {
                s.push_str(indent);
                s.push_str(&rec(
                    c,
                    offset + i * stride,
                    axis + 1,
                    &next_indent,
                    next_width,
                ));
                s.push_str(&line_sep);
            }
            if summary {
                s.push_str(indent);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trail).rev() {
                s.push_str(indent);
                s.push_str(&rec(
                    c,
                    offset + (n - i) * stride,
                    axis + 1,
                    &next_indent,
                    next_width,
                ));
                s.push_str(&line_sep);
            }
            if n > 0 {
                s.push_str(indent);
                s.push_str(&rec(
                    c,
                    offset + (n - 1) * stride,
                    axis + 1,
                    &next_indent,
                    next_width,
                ));
            }
        }
        format!("[{}]", &s[indent.len().min(s.len())..])
    }
    let c = Ctx {
        cells,
        shape: shown_shape,
        summarised,
    };
    rec(&c, 0, 0, " ", LINE_WIDTH)
}
