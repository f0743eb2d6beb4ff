//! The globals a data pickle may name, and what calling and building them means here:
//! numpy's array, dtype and scalar reconstruction, and the builtins of Python data.

use super::globals::Global;
use super::machine::{Called, Host, Id, Machine, MaskedObj, Obj, Payload};
use super::source::Source;
use ndnpy_engine::base::dtype::{
    ByteOrder, DType, DateTimeUnit, Field, Scalar, ScalarKind, Structured, SubArray, TimeUnit,
    MAX_DIMS,
};
use ndnpy_engine::base::error::{Error, LimitError, MismatchError};
use std::collections::HashMap;
use std::io::Read;
use std::rc::Rc;

/// The deepest nesting of dtypes in a pickle (records of sub-arrays of records...), as the
/// header's descriptors allow by default.
const MAX_DTYPE_DEPTH: usize = 64;

fn unsupported<R: Read + ?Sized>(m: &Machine, _src: &Source<'_, R>, what: String) -> Error {
    MismatchError::PickleUnsupported {
        offset: m.at,
        what: ndnpy_engine::base::error::excerpt(what),
    }
    .into()
}

fn int_of(m: &Machine, id: Id) -> Option<i64> {
    match m.arena[id] {
        Obj::Int(v) => Some(v),
        Obj::Bool(b) => Some(b.into()),
        _ => None,
    }
}

fn float_of(m: &Machine, id: Id) -> Option<f64> {
    match m.arena[id] {
        Obj::Float(v) => Some(v),
        Obj::Int(v) => Some(v as f64),
        Obj::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    }
}

/// The items of a tuple of at most `max` items (checked before they are copied: a pickle can
/// hand the same huge tuple to many opcodes).
fn tuple_of(m: &Machine, id: Id, max: usize) -> Option<Vec<Id>> {
    match &m.arena[id] {
        Obj::Tuple(t) if t.len() <= max => Some(t.clone()),
        _ => None,
    }
}

fn dtype_of(m: &Machine, id: Id) -> Option<(Rc<DType>, usize, u64)> {
    match &m.arena[id] {
        Obj::DType(d, depth, nodes, _) => Some((d.clone(), *depth, *nodes)),
        _ => None,
    }
}

/// The length in bytes of a bytes-like object that can be an array's data.
fn raw_len(m: &Machine, id: Id) -> Option<usize> {
    match &m.arena[id] {
        Obj::Bytes(b) | Obj::ByteArray(b) | Obj::Py2Str(b) => Some(b.len()),
        _ => None,
    }
}

/// A shape tuple (or a bare int, as numpy accepts), checked: at most 64 dimensions, none
/// negative, and the element count times `itemsize` within `isize`.
fn shape_of(m: &Machine, id: Id, itemsize: usize) -> Option<(Vec<usize>, usize)> {
    let dims: Vec<Id> = match &m.arena[id] {
        Obj::Tuple(t) | Obj::List(t) if t.len() <= MAX_DIMS => t.clone(),
        Obj::Tuple(_) | Obj::List(_) => return None,
        Obj::Int(_) => vec![id],
        _ => return None,
    };
    if dims.len() > MAX_DIMS {
        return None;
    }
    let mut shape = Vec::with_capacity(dims.len());
    for d in dims {
        shape.push(usize::try_from(int_of(m, d)?).ok()?);
    }
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    count
        .checked_mul(itemsize.max(1))
        .filter(|&n| n <= isize::MAX as usize)?;
    Some((shape, count))
}

/// Charges `bytes` of copies (or work) against the expansion limit.
fn charge<R: Read + ?Sized>(m: &Machine, bytes: u64, src: &Source<'_, R>) -> Result<(), Error> {
    m.spent.set(m.spent.get().saturating_add(bytes));
    let limit = super::expansion_limit(src.offset);
    if m.spent.get() > limit {
        return Err(LimitError::PickleExpansion {
            pickle_len: src.offset,
            limit,
        }
        .into());
    }
    Ok(())
}

/// The error for arguments the global `what` does not take.
fn bad_args<R: Read + ?Sized>(m: &Machine, src: &Source<'_, R>, what: &str) -> Error {
    m.bad(src, format_args!("bad arguments to {what}"))
}

/// Calls the global `g` with the objects `args`.
pub(super) fn call<R: Read + ?Sized>(
    m: &mut Machine,
    g: Global,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    match g {
        Global::Reconstruct => reconstruct(m, args, src),
        Global::DTypeClass => dtype_class(m, args, src),
        Global::Scalar => scalar(m, args, src),
        Global::FromBuffer => from_buffer(m, args, src),
        Global::StringDType => string_dtype(m, args, src),
        Global::Range => range(m, args, src),
        Global::MaReconstruct => ma_reconstruct(m, args, src),
        Global::Complex => Ok(Called::New(match args {
            [] => Obj::Complex(0.0, 0.0),
            [re] => Obj::Complex(
                float_of(m, *re).ok_or_else(|| bad_args(m, src, "complex"))?,
                0.0,
            ),
            [re, im] => match (float_of(m, *re), float_of(m, *im)) {
                (Some(re), Some(im)) => Obj::Complex(re, im),
                _ => return Err(bad_args(m, src, "complex")),
            },
            _ => return Err(bad_args(m, src, "complex")),
        })),
        Global::Set | Global::FrozenSet => set(m, g, args, src),
        Global::ByteArray | Global::Bytes => bytes(m, g, args, src),
        Global::Encode => encode(m, args, src),
        Global::Date | Global::Time | Global::DateTime | Global::TimeDelta | Global::TimeZone => {
            super::time::call(m, g, args, src)
        }
        Global::NdArray | Global::RecArray | Global::MaskedArray | Global::Record => {
            Err(unsupported(
                m,
                src,
                format!(
                    "{} called directly (numpy pickles arrays through _reconstruct)",
                    match g {
                        Global::RecArray => "numpy.recarray",
                        Global::MaskedArray => "numpy.ma.MaskedArray",
                        Global::Record => "numpy.record",
                        _ => "numpy.ndarray",
                    }
                ),
            ))
        }
    }
}

/// `_reconstruct` called with `args`.
fn reconstruct<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // _reconstruct(ndarray, (0,), b'b'): an empty array that BUILD fills. A recarray's
        // state is an ndarray's (its dtype made from numpy.record): it is rebuilt as the
        // array it holds, marked a recarray.
        match args.first().map(|&a| &m.arena[a]) {
            Some(Obj::Global(Global::NdArray)) => Obj::ArrayNew(false),
            Some(Obj::Global(Global::RecArray)) => Obj::ArrayNew(true),
            Some(Obj::Global(_)) | None => return Err(bad_args(m, src, "_reconstruct")),
            Some(_) => {
                return Err(unsupported(
                    m,
                    src,
                    "an ndarray subclass (only numpy.ndarray is rebuilt)".into(),
                ))
            }
        }
    }))
}

/// `numpy.dtype` called with `args`.
fn dtype_class<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // numpy.dtype(numpy.record, False, True): a recarray's dtype, a record dtype whose
        // fields its BUILD state gives (a void without them).
        if let Some(Obj::Global(Global::Record)) = args.first().map(|&a| &m.arena[a]) {
            if args.len() > 3 {
                return Err(bad_args(m, src, "numpy.dtype"));
            }
            return Ok(Called::New(Obj::DTypeNew("V".into(), true)));
        }
        let short = args.first().is_some_and(|&a| match &m.arena[a] {
            Obj::Str(s) => s.len() <= 32,
            Obj::Py2Str(b) => b.len() <= 32,
            _ => false,
        });
        let text = args.first().filter(|_| short).and_then(|&a| m.text_of(a));
        match text {
            Some(t) if args.len() <= 3 && t.len() <= 32 => Obj::DTypeNew(t, false),
            _ => return Err(bad_args(m, src, "numpy.dtype")),
        }
    }))
}

/// numpy's `scalar` called with `args`.
fn scalar<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        let [dtype, data] = args else {
            return Err(bad_args(m, src, "numpy scalar"));
        };
        let record = matches!(m.arena[*dtype], Obj::DType(_, _, _, true));
        let Some((dtype, _, nodes)) = dtype_of(m, *dtype) else {
            return Err(bad_args(m, src, "numpy scalar"));
        };
        if dtype.has_object() {
            // scalar(dtype('O'), obj) is obj itself.
            if matches!(&*dtype, DType::Scalar(s) if s.kind() == ScalarKind::Object) {
                return Ok(Called::Same(*data));
            }
            return Err(unsupported(
                m,
                src,
                "a record scalar holding objects".into(),
            ));
        }
        let len = match &m.arena[*data] {
            Obj::Bytes(b) | Obj::Py2Str(b) | Obj::ByteArray(b) => b.len(),
            Obj::Str(s) => s.chars().count(),
            _ => return Err(bad_args(m, src, "numpy scalar")),
        };
        if len != dtype.itemsize() {
            return Err(m.bad(
                src,
                format_args!("a numpy scalar of dtype {dtype} has {len} bytes"),
            ));
        }
        charge(m, len as u64, src)?;
        let bytes = match &m.arena[*data] {
            Obj::Bytes(b) | Obj::Py2Str(b) | Obj::ByteArray(b) => b.clone(),
            Obj::Str(s) => latin1(s).ok_or_else(|| bad_args(m, src, "numpy scalar"))?,
            _ => return Err(bad_args(m, src, "numpy scalar")),
        };
        if bytes.len() != dtype.itemsize() {
            return Err(m.bad(
                src,
                format_args!(
                    "a numpy scalar of dtype {} has {} bytes",
                    dtype,
                    bytes.len()
                ),
            ));
        }
        charge(m, nodes * 64, src)?;
        Obj::Scalar(dtype, nodes, bytes, record)
    }))
}

/// `_frombuffer` called with `args`.
fn from_buffer<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // _frombuffer(buffer, dtype, shape, order): protocol 5's in-band array.
        let [buf, dtype, shape, order] = args else {
            return Err(bad_args(m, src, "_frombuffer"));
        };
        let Some((dtype, _, nodes)) = dtype_of(m, *dtype) else {
            return Err(bad_args(m, src, "_frombuffer"));
        };
        let fortran_order = match m.text_of(*order).as_deref() {
            Some("C") => false,
            Some("F") => true,
            _ => return Err(bad_args(m, src, "_frombuffer")),
        };
        let itemsize = dtype.itemsize();
        let (shape, count) =
            shape_of(m, *shape, itemsize).ok_or_else(|| bad_args(m, src, "_frombuffer"))?;
        if dtype.has_object() {
            return Err(bad_args(m, src, "_frombuffer"));
        }
        check_raw(m, *buf, count * itemsize, src)?;
        charge(m, nodes * 64, src)?;
        Obj::Array(Box::new(super::machine::ArrayObj {
            dtype,
            dtype_nodes: nodes,
            string_dtype: false,
            recarray: false,
            shape,
            fortran_order,
            to_native: false,
            data: Payload::Raw(*buf),
        }))
    }))
}

/// `_convert_to_stringdtype_kwargs` called with `args`.
fn string_dtype<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // _convert_to_stringdtype_kwargs(coerce, na_object=...): the NA object, if any,
        // is one of the items' values, read as any other.
        if args.is_empty() || args.len() > 2 {
            return Err(bad_args(m, src, "_convert_to_stringdtype_kwargs"));
        }
        Obj::StringDType
    }))
}

/// `range` called with `args`.
fn range<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // range(stop), range(start, stop[, step]): Python's pickler writes all three.
        let mut ints = [0i64; 3];
        for (slot, &a) in ints.iter_mut().zip(args) {
            *slot = match &m.arena[a] {
                Obj::BigInt(_) => {
                    return Err(unsupported(
                        m,
                        src,
                        "a range whose bounds do not fit in 64 bits".into(),
                    ))
                }
                _ => int_of(m, a).ok_or_else(|| bad_args(m, src, "range"))?,
            };
        }
        let (start, stop, step) = match args.len() {
            1 => (0, ints[0], 1),
            2 => (ints[0], ints[1], 1),
            3 => (ints[0], ints[1], ints[2]),
            _ => return Err(bad_args(m, src, "range")),
        };
        if step == 0 {
            // Python raises ValueError: so does np.load.
            return Err(m.bad(src, "a range with step 0"));
        }
        Obj::Range(start, stop, step)
    }))
}

/// `_mareconstruct` called with `args`.
fn ma_reconstruct<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        // _mareconstruct(MaskedArray, ndarray, (0,), 'b'): an empty masked array that
        // BUILD fills.
        let [class, base, _, _] = args else {
            return Err(bad_args(m, src, "_mareconstruct"));
        };
        match (&m.arena[*class], &m.arena[*base]) {
            (Obj::Global(Global::MaskedArray), Obj::Global(Global::NdArray)) => Obj::MaskedNew,
            (Obj::Global(Global::MaskedArray), Obj::Global(Global::RecArray)) => {
                return Err(unsupported(
                    m,
                    src,
                    "a MaskedArray of a recarray (only of a numpy.ndarray)".into(),
                ))
            }
            _ => return Err(bad_args(m, src, "_mareconstruct")),
        }
    }))
}

/// `set` and `frozenset` called with `args`.
fn set<R: Read + ?Sized>(
    m: &mut Machine,
    g: Global,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        let items = match args {
            [] => Vec::new(),
            [it] => match &m.arena[*it] {
                Obj::List(v) | Obj::Tuple(v) | Obj::Set(v) | Obj::FrozenSet(v) => v.clone(),
                _ => return Err(bad_args(m, src, "set")),
            },
            _ => return Err(bad_args(m, src, "set")),
        };
        charge(m, items.len() as u64 * 8, src)?;
        if g == Global::Set {
            Obj::Set(items)
        } else {
            Obj::FrozenSet(items)
        }
    }))
}

/// `bytearray` and `bytes` called with `args`.
fn bytes<R: Read + ?Sized>(
    m: &mut Machine,
    g: Global,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        let bytes = match args {
            [] => Vec::new(),
            [b] => match &m.arena[*b] {
                Obj::Bytes(b) | Obj::ByteArray(b) | Obj::Py2Str(b) => b.clone(),
                _ => return Err(bad_args(m, src, "bytearray")),
            },
            [s, enc] if is_latin1_name(m.text_of(*enc).as_deref()) => match &m.arena[*s] {
                Obj::Str(s) => latin1(s).ok_or_else(|| bad_args(m, src, "bytearray"))?,
                _ => return Err(bad_args(m, src, "bytearray")),
            },
            _ => return Err(bad_args(m, src, "bytearray")),
        };
        charge(m, bytes.len() as u64, src)?;
        if g == Global::Bytes {
            Obj::Bytes(bytes)
        } else {
            Obj::ByteArray(bytes)
        }
    }))
}

/// `_codecs.encode` called with `args`.
fn encode<R: Read + ?Sized>(
    m: &mut Machine,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    Ok(Called::New({
        let [s, enc] = args else {
            return Err(bad_args(m, src, "_codecs.encode"));
        };
        if !is_latin1_name(m.text_of(*enc).as_deref()) {
            return Err(bad_args(m, src, "_codecs.encode"));
        }
        let len = match &m.arena[*s] {
            Obj::Str(s) => s.len(),
            Obj::Py2Str(b) => b.len(),
            _ => return Err(bad_args(m, src, "_codecs.encode")),
        };
        charge(m, len as u64, src)?;
        match &m.arena[*s] {
            Obj::Str(s) => Obj::Bytes(latin1(s).ok_or_else(|| bad_args(m, src, "_codecs.encode"))?),
            Obj::Py2Str(b) => Obj::Bytes(b.clone()),
            _ => return Err(bad_args(m, src, "_codecs.encode")),
        }
    }))
}

fn is_latin1_name(name: Option<&str>) -> bool {
    matches!(
        name,
        Some("latin1" | "latin-1" | "iso-8859-1" | "iso8859-1" | "latin_1")
    )
}

/// `s` encoded as Latin-1, if every character is below U+0100.
fn latin1(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// Checks that `id` is bytes-like data of `len` bytes.
fn check_raw<R: Read + ?Sized>(
    m: &Machine,
    id: Id,
    len: usize,
    src: &Source<'_, R>,
) -> Result<(), Error> {
    match raw_len(m, id) {
        Some(n) if n == len => Ok(()),
        Some(n) => Err(m.bad(
            src,
            format_args!("an array needs {len} bytes of data; its pickle holds {n}"),
        )),
        None => Err(m.bad(src, "an array's data is not bytes")),
    }
}

/// `BUILD`: gives `target` (a new dtype or array) its state.
pub(super) fn build<R: Read + ?Sized>(
    m: &mut Machine,
    target: Id,
    state: Id,
    src: &Source<'_, R>,
) -> Result<(), Error> {
    match &m.arena[target] {
        Obj::DTypeNew(t, record) => {
            let (typestr, record) = (t.clone(), *record);
            let (dtype, depth, nodes) = build_dtype(m, &typestr, state, src)?;
            charge(m, nodes * 64, src)?;
            m.arena[target] = Obj::DType(Rc::new(dtype), depth, nodes, record);
            Ok(())
        }
        Obj::ArrayNew(recarray) => {
            let recarray = *recarray;
            let items = tuple_of(m, state, 5)
                .ok_or_else(|| m.bad(src, "bad ndarray state: not a tuple of 4 or 5 items"))?;
            let mut array = build_array(m, &items, src)?;
            array.recarray = recarray;
            m.arena[target] = Obj::Array(Box::new(array));
            Ok(())
        }
        Obj::MaskedNew => {
            let masked = build_masked(m, state, src)?;
            m.arena[target] = Obj::Masked(Box::new(masked));
            Ok(())
        }
        _ => Err(m.bad(
            src,
            "BUILD of an object that is not a new numpy dtype or array",
        )),
    }
}

/// A `MaskedArray`'s `__setstate__`: `(version, shape, dtype, is_fortran, data, mask,
/// fill_value)`, the mask the bytes of a `bool` array in the data's order (numpy writes
/// `getmaskarray(self).tobytes(order)`, so it is there even when nothing is masked) and the
/// fill value `None` or a 0-d array.
fn build_masked<R: Read + ?Sized>(
    m: &Machine,
    state: Id,
    src: &Source<'_, R>,
) -> Result<MaskedObj, Error> {
    let bad = |why: &str| m.bad(src, format_args!("bad MaskedArray state: {why}"));
    let items = tuple_of(m, state, 7).ok_or_else(|| bad("not a tuple of 7 items"))?;
    let [version, shape, dtype, fortran, data, mask, fill] = items[..] else {
        return Err(bad("not a tuple of 7 items"));
    };
    let array = build_array(m, &[version, shape, dtype, fortran, data], src)?;
    let scalar = matches!(&*array.dtype, DType::Scalar(s) if s.kind() != ScalarKind::Object);
    if !scalar || array.string_dtype {
        // A record's mask is a record of bools, an object array's data a list: not read.
        return Err(unsupported(
            m,
            src,
            format!(
                "a MaskedArray of dtype {} (only of number, bool, string and time dtypes)",
                array.dtype
            ),
        ));
    }
    let count = array.shape.iter().product::<usize>();
    check_raw(m, mask, count, src).map_err(|_| bad("the mask is not one byte per element"))?;
    let fill = match &m.arena[fill] {
        Obj::None => None,
        Obj::Array(a) if a.shape.is_empty() && matches!(a.data, Payload::Raw(_)) => Some(fill),
        _ => return Err(bad("the fill value is not None or a 0-d array")),
    };
    Ok(MaskedObj { array, mask, fill })
}

/// An array's `__setstate__`: `(version, shape, dtype, is_fortran, data)`, or the same
/// without the version.
fn build_array<R: Read + ?Sized>(
    m: &Machine,
    items: &[Id],
    src: &Source<'_, R>,
) -> Result<super::machine::ArrayObj, Error> {
    let bad = |why: &str| m.bad(src, format_args!("bad ndarray state: {why}"));
    let [shape, dtype, fortran, data] = match items[..] {
        [version, shape, dtype, fortran, data] => {
            if int_of(m, version) != Some(1) {
                return Err(bad("version is not 1"));
            }
            [shape, dtype, fortran, data]
        }
        [shape, dtype, fortran, data] => [shape, dtype, fortran, data],
        _ => return Err(bad("expected 4 or 5 items")),
    };
    let (dtype, nodes, string_dtype) = match &m.arena[dtype] {
        Obj::DType(d, _, nodes, _) => (d.clone(), *nodes, false),
        Obj::StringDType => (Rc::new(object_dtype()), 1, true),
        _ => return Err(bad("the dtype is not a numpy dtype")),
    };
    let fortran_order = match m.arena[fortran] {
        Obj::Bool(b) => b,
        Obj::Int(0) => false,
        Obj::Int(1) => true,
        _ => return Err(bad("is_fortran is not a bool")),
    };
    let itemsize = dtype.itemsize();
    let (shape, count) = shape_of(m, shape, itemsize).ok_or_else(|| bad("invalid shape"))?;
    let is_object = matches!(&*dtype, DType::Scalar(s) if s.kind() == ScalarKind::Object);
    let data = if is_object {
        // One item per element, in C (logical) order whatever is_fortran says.
        match &m.arena[data] {
            Obj::List(items) if items.len() == count => Payload::Items(data),
            Obj::List(items) => {
                return Err(m.bad(
                    src,
                    format_args!(
                        "an object array of {count} elements has {} items",
                        items.len()
                    ),
                ))
            }
            _ => return Err(bad("an object array's data is not a list")),
        }
    } else if dtype.has_object() {
        return Err(unsupported(
            m,
            src,
            format!("an array of dtype {dtype}, records holding objects"),
        ));
    } else {
        check_raw(m, data, count * itemsize, src)?;
        Payload::Raw(data)
    };
    Ok(super::machine::ArrayObj {
        dtype,
        dtype_nodes: nodes,
        string_dtype,
        recarray: false,
        shape,
        fortran_order,
        to_native: true,
        data,
    })
}

pub(crate) fn object_dtype() -> DType {
    DType::Scalar(Scalar {
        kind: ScalarKind::Object,
        order: ByteOrder::NotApplicable,
        size: 8,
        unit: None,
    })
}

/// A dtype from `numpy.dtype(typestr, ...)` and its `__setstate__` (versions 3 and 4, what
/// numpy 1.x and 2.x write): `(version, endian, subarray, names, fields, elsize, alignment,
/// flags[, metadata])`, the metadata of a datetime being `(metadata, (unit, num, den,
/// events))`. Returns the dtype, its nesting depth and its node count.
fn build_dtype<R: Read + ?Sized>(
    m: &Machine,
    typestr: &str,
    state: Id,
    src: &Source<'_, R>,
) -> Result<(DType, usize, u64), Error> {
    let bad = |why: &str| m.bad(src, format_args!("bad dtype state for {typestr:?}: {why}"));
    let items = tuple_of(m, state, 9).ok_or_else(|| bad("not a tuple of 8 or 9 items"))?;
    let version = items.first().and_then(|&v| int_of(m, v));
    match (version, items.len()) {
        (Some(3), 8) | (Some(4), 9) => {}
        (Some(v @ (0..=2)), _) => {
            return Err(unsupported(
                m,
                src,
                format!("dtype state version {v} (numpy before 1.0 wrote it)"),
            ))
        }
        _ => return Err(bad("expected version 3 with 8 items or 4 with 9")),
    }
    let endian = m
        .text_of(items[1])
        .ok_or_else(|| bad("endian is not a str"))?;
    let order = match endian.as_str() {
        "<" => ByteOrder::Little,
        ">" => ByteOrder::Big,
        "|" => ByteOrder::NotApplicable,
        "=" => ByteOrder::NATIVE,
        _ => return Err(bad("endian is not one of < > | =")),
    };
    let elsize = int_of(m, items[5]).ok_or_else(|| bad("elsize is not an int"))?;
    let (subarray, names, fields) = (items[2], items[3], items[4]);
    let letter = typestr.chars().next().unwrap_or(' ');
    let digits = &typestr[letter.len_utf8().min(typestr.len())..];
    let size_of_str: Option<usize> = if digits.is_empty() {
        Some(0)
    } else {
        digits.parse().ok()
    };
    let Some(size_of_str) = size_of_str else {
        return Err(bad("the type string's size is not a number"));
    };
    // Records.
    if !matches!(m.arena[names], Obj::None) {
        let names = tuple_of(m, names, usize::MAX).ok_or_else(|| bad("names is not a tuple"))?;
        let Obj::Dict(entries) = &m.arena[fields] else {
            return Err(bad("fields is not a dict"));
        };
        // The work of this BUILD is charged: the same huge names and fields can be handed to
        // many dtypes.
        charge(m, (names.len() as u64 + entries.len() as u64) * 16, src)?;
        let mut by_name: HashMap<String, Id> = HashMap::with_capacity(entries.len());
        for &(k, v) in entries {
            if let Some(k) = m.text_of(k) {
                by_name.insert(k, v);
            }
        }
        let mut out = Vec::with_capacity(names.len());
        let (mut depth, mut nodes) = (1usize, 1u64);
        for n in names {
            let name = m
                .text_of(n)
                .ok_or_else(|| bad("a field name is not a str"))?;
            let entry = by_name
                .get(&name)
                .and_then(|&e| tuple_of(m, e, 3))
                .ok_or_else(|| bad("a name has no field"))?;
            let (dt, offset, title) = match entry[..] {
                [dt, off] => (dt, off, None),
                [dt, off, title] => (dt, off, Some(title)),
                _ => return Err(bad("a field is not (dtype, offset[, title])")),
            };
            let (dt, d, k) =
                dtype_of(m, dt).ok_or_else(|| bad("a field's dtype is not a dtype"))?;
            let offset = int_of(m, offset)
                .and_then(|o| usize::try_from(o).ok())
                .ok_or_else(|| bad("a field's offset is not a non-negative int"))?;
            let title = match title.map(|t| &m.arena[t]) {
                None | Some(Obj::None) => None,
                Some(_) => Some(
                    title
                        .and_then(|t| m.text_of(t))
                        .ok_or_else(|| bad("a field's title is not a str"))?,
                ),
            };
            depth = depth.max(d + 1);
            nodes = nodes.saturating_add(k);
            out.push(Field {
                name,
                title,
                dtype: (*dt).clone(),
                offset,
            });
        }
        out.sort_by_key(|f| f.offset);
        let itemsize = usize::try_from(elsize).map_err(|_| bad("elsize is negative"))?;
        let r = Structured::new(out, itemsize)?;
        return checked_depth(m, DType::Structured(r), depth, nodes, src);
    }
    // Sub-arrays.
    if !matches!(m.arena[subarray], Obj::None) {
        let pair = tuple_of(m, subarray, 2).ok_or_else(|| bad("subarray is not a pair"))?;
        let [base, shape] = pair[..] else {
            return Err(bad("subarray is not (dtype, shape)"));
        };
        let (base, d, k) = dtype_of(m, base).ok_or_else(|| bad("subarray base is not a dtype"))?;
        let (shape, _) =
            shape_of(m, shape, base.itemsize()).ok_or_else(|| bad("bad subarray shape"))?;
        let sub = SubArray::new((*base).clone(), shape)?;
        return checked_depth(m, DType::SubArray(Box::new(sub)), d + 1, k + 1, src);
    }
    let kind = match ScalarKind::from_letter(letter) {
        Some(kind) => kind,
        None => return Err(unsupported(m, src, format!("numpy dtype {typestr:?}"))),
    };
    let size = match kind {
        ScalarKind::Bytes | ScalarKind::Unicode | ScalarKind::Void if elsize >= 0 => {
            usize::try_from(elsize).map_err(|_| bad("elsize is negative"))?
        }
        ScalarKind::Unicode => size_of_str
            .checked_mul(4)
            .ok_or_else(|| bad("size overflows"))?,
        _ => size_of_str,
    };
    let unit = if matches!(kind, ScalarKind::Datetime | ScalarKind::Timedelta) {
        if items.len() != 9 {
            return Err(bad("a datetime dtype needs version 4"));
        }
        datetime_unit(m, items[8]).ok_or_else(|| bad("bad datetime metadata"))?
    } else {
        None
    };
    let s = Scalar::new(kind, order, size, unit)?;
    Ok((DType::Scalar(s), 1, 1))
}

fn checked_depth<R: Read + ?Sized>(
    m: &Machine,
    dtype: DType,
    depth: usize,
    nodes: u64,
    src: &Source<'_, R>,
) -> Result<(DType, usize, u64), Error> {
    if depth > MAX_DTYPE_DEPTH {
        return Err(m.bad(
            src,
            format_args!("a dtype nests deeper than {MAX_DTYPE_DEPTH} levels"),
        ));
    }
    Ok((dtype, depth, nodes))
}

/// A datetime dtype's unit from `(metadata, (unit, num, den, events))`; `None` inside for
/// the generic unit.
fn datetime_unit(m: &Machine, id: Id) -> Option<Option<DateTimeUnit>> {
    let outer = tuple_of(m, id, 2)?;
    let [_, info] = outer[..] else { return None };
    let info = tuple_of(m, info, 4)?;
    let [unit, num, ..] = info[..] else {
        return None;
    };
    let unit = match &m.arena[unit] {
        Obj::Bytes(b) | Obj::Py2Str(b) => String::from_utf8(b.clone()).ok()?,
        Obj::Str(s) => s.clone(),
        _ => return None,
    };
    if unit == "generic" {
        return Some(None);
    }
    let unit = TimeUnit::from_code(&unit)?;
    let multiplier = u32::try_from(int_of(m, num)?).ok()?;
    Some(Some(DateTimeUnit { unit, multiplier }))
}

/// numpy's reconstruction and Python's data types, as the machine's [`Host`].
pub(super) struct Numpy;

impl Host for Numpy {
    fn call<R: Read + ?Sized>(
        m: &mut Machine,
        g: Global,
        args: &[Id],
        src: &Source<'_, R>,
    ) -> Result<Called, Error> {
        call(m, g, args, src)
    }

    fn build<R: Read + ?Sized>(
        m: &mut Machine,
        target: Id,
        state: Id,
        src: &Source<'_, R>,
    ) -> Result<(), Error> {
        build(m, target, state, src)
    }
}
