//! `ndnpy convert`: between `.npy` and `.npz`, C and Fortran layouts, byte orders and numeric
//! dtypes, writing exactly what `np.save` writes for the converted array, atomically.

use crate::fail::{Fail, Res};
use crate::source::{file_kind, ArraySource, FileKind, Target};
use ndnpy::{
    dtype::ByteOrder, dtype::ScalarKind, npz::NpzWriteOptions, DType, Header, NpzReader, NpzWriter,
};
use std::io::Write;
use std::path::Path;

/// What to change.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `Some(true)` Fortran, `Some(false)` C, `None` as the input.
    pub fortran: Option<bool>,
    /// The byte order of the output's multi-byte scalars.
    pub byte_order: Option<ByteOrder>,
    /// Deflate `.npz` members.
    pub compress: bool,
    /// The numeric dtype to cast to (as numpy's `astype`).
    pub dtype: Option<DType>,
    /// `--void-as bf16`: two-byte voids hold bfloat16 (safetensors output).
    pub void_as_bf16: bool,
}

/// numpy's byte order characters: `<`, `>`, `=` (this machine's), `|`/`native` not accepted.
pub fn parse_byte_order(s: &str) -> Res<ByteOrder> {
    match s {
        "<" | "little" => Ok(ByteOrder::Little),
        ">" | "big" => Ok(ByteOrder::Big),
        "=" | "native" => Ok(ByteOrder::NATIVE),
        _ => Err(Fail::usage(format!(
            "--byte-order {s:?}: expected < (little), > (big) or = (native)"
        ))),
    }
}

/// A numeric dtype as numpy spells it: `float32`, `<i4`, `>f8`, `f4`, `d`.
pub fn parse_dtype(s: &str) -> Res<DType> {
    let d = DType::from_descr(&format!("'{s}'"))
        .map_err(|e| Fail::usage(format!("--dtype {s:?}: {e}")))?;
    match d.as_scalar().map(|s| s.kind()) {
        Some(ScalarKind::Bool | ScalarKind::Int | ScalarKind::UInt | ScalarKind::Complex) => Ok(d),
        Some(ScalarKind::Float) if d.itemsize() <= 8 => Ok(d),
        _ => Err(Fail::usage(format!(
            "--dtype {s:?}: only numeric dtypes (bool, int*, uint*, float16/32/64, complex64/128) can be cast to"
        ))),
    }
}

/// Converts `input` into `output`.
pub fn run(
    input: &Target,
    output: &Path,
    opts: &Options,
    progress: &mut crate::progress::Progress,
) -> Res<()> {
    if opts.void_as_bf16 {
        return Err(Fail::usage(
            "--void-as applies to conversions to .safetensors",
        ));
    }
    let out_npz = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"));
    if opts.compress && !out_npz {
        return Err(Fail::usage(format!(
            "--compress applies to .npz output; {} is written as .npy",
            output.display()
        )));
    }
    // A URL is read as one array (an archive of one member, or the member it names).
    let whole_archive = input.member.is_none()
        && input.selection.is_none()
        && !input.is_url()
        && file_kind(&input.path)? == FileKind::Npz;
    if whole_archive {
        let name = input.path.display().to_string();
        let mut npz = NpzReader::open(&input.path).map_err(|e| Fail::lib(&name, e))?;
        let keys: Vec<String> = npz.keys().map(str::to_string).collect();
        if !out_npz {
            if keys.len() != 1 {
                return Err(Fail::usage(format!(
                    "{name} has {} members and {} is a .npy file: name one as {name}:MEMBER",
                    keys.len(),
                    output.display()
                )));
            }
            let src = ArraySource::open_member(&input.path, &mut npz, &keys[0])?;
            return write_npy_atomic(&src, output, opts, progress);
        }
        let mut members = Vec::new();
        for key in &keys {
            let mut member = npz.member(key.as_str()).map_err(|e| Fail::lib(&name, e))?;
            let member_name = member.info().name().to_string();
            match member.header() {
                // Pickled objects cannot be converted outside Python: copied unchanged.
                Ok(info) if info.header.dtype.has_object() => {
                    eprintln!(
                        "ndnpy: warning: {name}:{key} holds pickled Python objects: copied unchanged"
                    );
                    let bytes = member.bytes().map_err(|e| Fail::lib(&name, e))?;
                    members.push((member_name, bytes));
                }
                Ok(_) => {
                    let src = ArraySource::open_member(&input.path, &mut npz, key)?;
                    members.push((format!("{key}.npy"), npy_bytes(&src, opts, progress)?));
                }
                // Members that are not arrays are copied as they are.
                Err(e) if e.kind() == ndnpy::ErrorKind::NotNpy => {
                    let bytes = member.bytes().map_err(|e| Fail::lib(&name, e))?;
                    members.push((member_name, bytes));
                }
                Err(e) => return Err(Fail::lib(&format!("{name}:{key}"), e)),
            }
        }
        return write_npz(&members, output, opts);
    }
    let src = ArraySource::open(input)?;
    if out_npz {
        let key = input.member.clone().unwrap_or_else(|| {
            input
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "arr_0".into())
        });
        let bytes = npy_bytes(&src, opts, progress)?;
        write_npz(&[(format!("{key}.npy"), bytes)], output, opts)
    } else {
        write_npy_atomic(&src, output, opts, progress)
    }
}

fn write_npz(members: &[(String, Vec<u8>)], output: &Path, opts: &Options) -> Res<()> {
    let name = output.display().to_string();
    let options = if opts.compress {
        NpzWriteOptions::compressed()
    } else {
        NpzWriteOptions::new()
    };
    let mut npz =
        NpzWriter::create_with_options(output, &options).map_err(|e| Fail::lib(&name, e))?;
    for (member, bytes) in members {
        npz.add_bytes(member.clone(), bytes)
            .map_err(|e| Fail::lib(&name, e))?;
    }
    npz.finish().map_err(|e| Fail::lib(&name, e.into()))?;
    Ok(())
}

/// The converted array as `.npy` bytes in memory (for an archive member).
fn npy_bytes(
    src: &ArraySource,
    opts: &Options,
    progress: &mut crate::progress::Progress,
) -> Res<Vec<u8>> {
    let mut out = Vec::new();
    convert(src, &mut out, opts, progress)?;
    Ok(out)
}

/// Writes the converted array to `output` through the library's atomic publishing
/// (`ndnpy::write_file_atomically`, durable): readers see the old file or the new one, never a
/// part, and a killed conversion leaves no temporary file that the next write does not remove.
fn write_npy_atomic(
    src: &ArraySource,
    output: &Path,
    opts: &Options,
    progress: &mut crate::progress::Progress,
) -> Res<()> {
    // The conversion's own failure, kept whole while the library unwinds the write.
    let mut failed = None;
    let durable = ndnpy::WriteOptions::new().durable(true);
    let written = ndnpy::write_file_atomically(output, &durable, |out| {
        convert(src, out, opts, progress).map_err(|f| {
            failed = Some(f);
            std::io::Error::other("the conversion failed").into()
        })
    });
    match (written, failed) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(f)) => Err(f),
        (Err(e), None) => Err(Fail::lib(&output.display().to_string(), e)),
    }
}

/// Whether an array of `shape` in Fortran layout is stored as `fortran_order: True` by
/// `np.save` (only when it is not also C-contiguous: two or more axes longer than one).
fn stored_fortran(shape: &[usize], fortran: bool) -> bool {
    fortran && shape.iter().filter(|&&d| d > 1).count() > 1 && !shape.contains(&0)
}

/// Writes the header and data `np.save` writes for the converted array.
fn convert(
    src: &ArraySource,
    out: &mut dyn Write,
    opts: &Options,
    progress: &mut crate::progress::Progress,
) -> Res<()> {
    let name = &src.name;
    let in_dtype = src.dtype().clone();
    if in_dtype.has_object() {
        return Err(Fail::unsupported(
            name,
            "holds pickled Python objects, which only numpy can convert",
        ));
    }
    let shape = src.shape().to_vec();
    let in_fortran = stored_fortran(&shape, src.info.header.fortran_order);
    let out_fortran = stored_fortran(
        &shape,
        opts.fortran.unwrap_or(src.info.header.fortran_order),
    );
    let mut out_dtype = opts.dtype.clone().unwrap_or_else(|| in_dtype.clone());
    if let Some(order) = opts.byte_order {
        out_dtype = out_dtype.with_byte_order(order);
    }
    if opts.dtype.is_some() && !is_numeric(&in_dtype) {
        return Err(Fail::unsupported(
            name,
            format!(
                "cannot cast {} to a number: only numeric arrays can be cast",
                crate::ls::numpy_name(&in_dtype)
            ),
        ));
    }
    let header = Header {
        dtype: out_dtype.clone(),
        fortran_order: out_fortran,
        shape: shape.clone(),
    };
    let write_err = |e: std::io::Error| Fail::io_named(name, "write the output", e);
    out.write_all(&header.to_bytes().map_err(|e| Fail::lib(name, e))?)
        .map_err(write_err)?;
    let transform = |raw: Vec<u8>| -> Res<Vec<u8>> {
        if opts.dtype.is_some() {
            cast(src, raw, &out_dtype)
        } else {
            Ok(swap_to(&in_dtype, &out_dtype, raw))
        }
    };
    let total = src.len();
    progress.start(name, total as u64, in_dtype.itemsize() as u64);
    if in_fortran == out_fortran {
        // Same layout: chunks in storage order, in bounded memory.
        let step = src.chunk_elements();
        let mut first = 0;
        while first < total {
            let end = (first + step).min(total);
            let raw = src.raw(first..end)?;
            out.write_all(&transform(raw)?).map_err(write_err)?;
            progress.set(end as u64);
            first = end;
        }
    } else {
        // The other layout: the array is read whole and its elements reordered.
        let raw = src.raw(0..total)?;
        let size = in_dtype.itemsize();
        let mut reordered = Vec::with_capacity(raw.len());
        let ndim = shape.len();
        let mut idx = vec![0usize; ndim];
        for _ in 0..total {
            // idx runs in the output's order; its position in the input's order:
            let mut pos = 0;
            if in_fortran {
                for k in (0..ndim).rev() {
                    pos = pos * shape[k] + idx[k];
                }
            } else {
                for k in 0..ndim {
                    pos = pos * shape[k] + idx[k];
                }
            }
            reordered.extend_from_slice(&raw[pos * size..(pos + 1) * size]);
            let axes: Vec<usize> = if out_fortran {
                (0..ndim).collect()
            } else {
                (0..ndim).rev().collect()
            };
            for k in axes {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        out.write_all(&transform(reordered)?).map_err(write_err)?;
    }
    progress.finish();
    Ok(())
}

fn is_numeric(d: &DType) -> bool {
    matches!(
        d.as_scalar().map(|s| (s.kind(), s.size())),
        Some((
            ScalarKind::Bool | ScalarKind::Int | ScalarKind::UInt | ScalarKind::Complex,
            _
        )) | Some((ScalarKind::Float, 2 | 4 | 8))
    )
}

/// Byte-swap units of a dtype: (offset in the element, unit size, count).
fn swap_units(d: &DType, base: usize, out: &mut Vec<(usize, usize, usize)>) {
    match d {
        DType::Scalar(s) => {
            if s.byte_order() == ByteOrder::NotApplicable || s.size() < 2 {
                return;
            }
            let unit = match s.kind() {
                ScalarKind::Complex => s.size() / 2,
                ScalarKind::Unicode => 4,
                _ => s.size(),
            };
            out.push((base, unit, s.size() / unit));
        }
        DType::Structured(r) => {
            for f in r.fields() {
                swap_units(&f.dtype, base + f.offset, out);
            }
        }
        DType::SubArray(s) => {
            let n: usize = s.shape().iter().product();
            let size = s.base().itemsize();
            for i in 0..n {
                swap_units(s.base(), base + i * size, out);
            }
        }
        _ => {}
    }
}

/// The byte order of each multi-byte scalar of `d`, in element order.
fn orders(d: &DType, out: &mut Vec<ByteOrder>) {
    match d {
        DType::Scalar(s) if s.byte_order() != ByteOrder::NotApplicable && s.size() >= 2 => {
            out.push(s.byte_order());
        }
        DType::Structured(r) => r.fields().iter().for_each(|f| orders(&f.dtype, out)),
        DType::SubArray(s) => {
            let n: usize = s.shape().iter().product();
            for _ in 0..n {
                orders(s.base(), out);
            }
        }
        _ => {}
    }
}

/// `raw` elements of `from` rewritten in the byte orders of `to` (the same dtype otherwise).
fn swap_to(from: &DType, to: &DType, mut raw: Vec<u8>) -> Vec<u8> {
    let mut units = Vec::new();
    swap_units(from, 0, &mut units);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    orders(from, &mut a);
    orders(to, &mut b);
    let swaps: Vec<(usize, usize, usize)> = units
        .into_iter()
        .zip(a.iter().zip(&b))
        .filter(|(_, (x, y))| x != y)
        .map(|(u, _)| u)
        .collect();
    if swaps.is_empty() {
        return raw;
    }
    let size = from.itemsize().max(1);
    for element in raw.chunks_mut(size) {
        for &(offset, unit, count) in &swaps {
            for k in 0..count {
                let start = offset + k * unit;
                element[start..start + unit].reverse();
            }
        }
    }
    raw
}

/// numpy's `astype` between numeric dtypes (C casts: integers wrap, floats truncate toward
/// zero, complex to real drops the imaginary part).
fn cast(src: &ArraySource, raw: Vec<u8>, to: &DType) -> Res<Vec<u8>> {
    use ndnpy::DynData as D;
    let n = raw.len() / src.dtype().itemsize().max(1);
    let a = src.decode(raw, vec![n], false)?;
    // Every value as (integer if exact, real, imaginary).
    let vals: Vec<(Option<i128>, f64, f64)> = match a.data() {
        D::Bool(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(u8::from(x)), 0.0))
            .collect(),
        D::I8(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::I16(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::I32(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::I64(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), x as f64, 0.0))
            .collect(),
        D::U8(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::U16(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::U32(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), f64::from(x), 0.0))
            .collect(),
        D::U64(v) => v
            .iter()
            .map(|&x| (Some(i128::from(x)), x as f64, 0.0))
            .collect(),
        D::F16(v) => v.iter().map(|x| (None, x.to_f64(), 0.0)).collect(),
        D::F32(v) => v.iter().map(|&x| (None, f64::from(x), 0.0)).collect(),
        D::F64(v) => v.iter().map(|&x| (None, x, 0.0)).collect(),
        D::C64(v) => v
            .iter()
            .map(|c| (None, f64::from(c.re), f64::from(c.im)))
            .collect(),
        D::C128(v) => v.iter().map(|c| (None, c.re, c.im)).collect(),
        _ => {
            return Err(Fail::unsupported(
                &src.name,
                "only numeric arrays can be cast",
            ))
        }
    };
    let Some(s) = to.as_scalar() else {
        return Err(Fail::usage("--dtype: only numeric dtypes"));
    };
    let big = s.byte_order() == ByteOrder::Big;
    let mut out = Vec::with_capacity(n * s.size());
    macro_rules! put {
        ($x:expr) => {{
            let x = $x;
            if big {
                out.extend_from_slice(&x.to_be_bytes());
            } else {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }};
    }
    // An integer value: exact integers wrap (as C), floats truncate toward zero first.
    let int = |i: Option<i128>, f: f64| -> i128 { i.unwrap_or(f as i128) };
    if matches!(s.kind(), ScalarKind::Int | ScalarKind::UInt) {
        // numpy's result for NaN, infinities and floats out of the integer's range is
        // undefined (it warns "invalid value encountered in cast"): refused here.
        let bits = 8 * s.size() as u32;
        let (lo, hi) = if s.kind() == ScalarKind::Int {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if let Some(pos) = vals.iter().position(|&(i, re, _)| {
            i.is_none() && !(re.is_finite() && (lo as f64..hi as f64 + 1.0).contains(&re.trunc()))
        }) {
            return Err(Fail::unsupported(
                &src.name,
                format!(
                    "the value {} does not fit {}: numpy's cast would give an undefined value",
                    vals[pos].1,
                    crate::ls::numpy_name(to)
                ),
            ));
        }
    }
    for &(i, re, im) in &vals {
        match (s.kind(), s.size()) {
            (ScalarKind::Bool, _) => out.push(u8::from(re != 0.0 || im != 0.0)),
            (ScalarKind::Int, 1) => put!(int(i, re) as i8),
            (ScalarKind::Int, 2) => put!(int(i, re) as i16),
            (ScalarKind::Int, 4) => put!(int(i, re) as i32),
            (ScalarKind::Int, 8) => put!(int(i, re) as i64),
            (ScalarKind::UInt, 1) => put!(int(i, re) as u8),
            (ScalarKind::UInt, 2) => put!(int(i, re) as u16),
            (ScalarKind::UInt, 4) => put!(int(i, re) as u32),
            (ScalarKind::UInt, 8) => put!(int(i, re) as u64),
            (ScalarKind::Float, 2) => put!(match i {
                Some(i) => half::f16::from_f64(i as f64),
                None => half::f16::from_f64(re),
            }),
            (ScalarKind::Float, 4) => put!(match i {
                Some(i) => i as f32,
                None => re as f32,
            }),
            (ScalarKind::Float, 8) => put!(match i {
                Some(i) => i as f64,
                None => re,
            }),
            (ScalarKind::Complex, 8) => {
                let r = i.map_or(re as f32, |i| i as f32);
                put!(r);
                put!(im as f32);
            }
            (ScalarKind::Complex, 16) => {
                put!(i.map_or(re, |i| i as f64));
                put!(im);
            }
            _ => return Err(Fail::usage("--dtype: only numeric dtypes")),
        }
    }
    Ok(out)
}
