//! Object arrays (`|O`): the Python values numpy pickles after the header, read without
//! running any code.
//!
//! [`read_npy_dyn`](crate::read_npy_dyn), [`DynArray::read_npy`] and
//! [`NpzMember::read_dyn`](crate::npz::NpzMember::read_dyn) read an object array as
//! [`DynData::Object`]: one [`PyValue`] per element. The pickle is interpreted as data by
//! the crate's own machine (`pickle`), which resolves only the globals that describe numpy
//! arrays, dtypes and scalars (`recarray` and `MaskedArray` included) and Python's data
//! types, by exact module and name; any other
//! global is refused with [`ErrorKind::DType`](crate::ErrorKind::DType) naming it. What each Python value
//! becomes is listed on [`PyValue`].
//!
//! [`DynArray::write_npy`] writes an object array as `np.save` does (protocol 4, framed and
//! memoized as Python's pickler does; see [`DynArray::from_objects`] for where the bytes can
//! differ), and [`DynArray::from_objects`] makes one from values.
//!
//! Limits: the values nest at most [`ReadOptions::max_pickle_depth`] levels (default 256);
//! every length in the pickle is checked against the bytes present; the values built take
//! at most 64 bytes per pickle byte plus 16 MiB, shared values (the memo) counted where they
//! repeat ([`ErrorKind::Limit`](crate::ErrorKind::Limit)); a container
//! that contains itself is refused ([`ErrorKind::DType`](crate::ErrorKind::DType)). While it runs, the
//! pickle machine holds one object of at most 48 bytes per opcode and one stack or memo slot
//! of 8 to 24 bytes, so reading a pickle of `n` bytes holds at most about `120 n` bytes plus
//! 16 MiB (an object array is the one input whose memory is not bounded by its length plus a
//! constant: a list of a million `None`s is a million one-byte opcodes).
//!
//! The pickle reader and writer are the feature `object` (off by default). Without it, this
//! module keeps only what every build has: [`PyValue`]'s accessors, the [`DynArray`] entry
//! points (which then refuse an object array with [`ErrorKind::DType`](crate::ErrorKind::DType),
//! naming the feature, before reading its pickle) and [`DynArray::into_strings`] of `U` arrays.
//!
//! [`ReadOptions::max_pickle_depth`]: crate::ReadOptions::max_pickle_depth

#[cfg(feature = "object")]
pub(crate) mod pickle;

use crate::array::dynamic::{DynArray, DynData, DynElement, PyValue};
#[cfg(feature = "object")]
use crate::array::dynamic::{PyDate, PyTime, PyTimeDelta, PyTimeZone};
use crate::array::options::ReadOptions;
#[cfg(feature = "object")]
use crate::object::pickle::write::Pickler;
#[cfg(feature = "object")]
use crate::object::pickle::{ArrayMeta, Leaf, Limits, Seq, Sink};
#[cfg(feature = "object")]
use ndarray::ShapeBuilder;
use ndarray::{ArrayD, IxDyn};
use ndnpy_engine::base::dtype::{DType, ScalarKind};
#[cfg(feature = "object")]
use ndnpy_engine::base::error::FormatError;
use ndnpy_engine::base::error::{wrong_dtype, Error, MismatchError};
use ndnpy_engine::element::Input;
use ndnpy_engine::format::header::{Header, HeaderInfo};
use std::io::{Read, Write};

impl PyValue {
    /// The Python type's name: `"int"`, `"str"`, `"numpy.ndarray"`, ...
    ///
    /// ```
    /// assert_eq!(ndnpy::PyValue::Str("a".into()).type_name(), "str");
    /// assert_eq!(ndnpy::PyValue::BigInt(vec![0; 9]).type_name(), "int");
    /// ```
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) | PyValue::BigInt(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Complex(_) => "complex",
            PyValue::Str(_) | PyValue::CodePoints(_) => "str",
            PyValue::Bytes(_) => "bytes",
            PyValue::ByteArray(_) => "bytearray",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
            PyValue::FrozenSet(_) => "frozenset",
            PyValue::Array(_) => "numpy.ndarray",
            PyValue::Scalar(_) => "numpy scalar",
            PyValue::RecArray(_) => "numpy.recarray",
            PyValue::Record(_) => "numpy.record",
            PyValue::Range { .. } => "range",
            PyValue::Class(_) => "type",
            PyValue::MaskedArray { .. } => "numpy.ma.MaskedArray",
            PyValue::Date(_) => "datetime.date",
            PyValue::Time(_) => "datetime.time",
            PyValue::DateTime(..) => "datetime.datetime",
            PyValue::TimeDelta(_) => "datetime.timedelta",
            PyValue::TimeZone(_) => "datetime.timezone",
        }
    }

    /// The text of a [`PyValue::Str`].
    ///
    /// ```
    /// assert_eq!(ndnpy::PyValue::Str("cat".into()).as_str(), Some("cat"));
    /// assert_eq!(ndnpy::PyValue::Int(1).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value of an [`Int`](PyValue::Int) (or a [`Bool`](PyValue::Bool), as Python's
    /// `int(True)`).
    ///
    /// ```
    /// assert_eq!(ndnpy::PyValue::Int(-3).as_i64(), Some(-3));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PyValue::Int(v) => Some(*v),
            PyValue::Bool(b) => Some((*b).into()),
            _ => None,
        }
    }

    /// The value of any int that fits in `i128`, [`BigInt`](PyValue::BigInt)s of up to 16
    /// bytes included.
    ///
    /// ```
    /// use ndnpy::PyValue;
    /// // 2**70, as pickle stores it
    /// let big = PyValue::BigInt(vec![0, 0, 0, 0, 0, 0, 0, 0, 0x40]);
    /// assert_eq!(big.as_i128(), Some(1 << 70));
    /// ```
    pub fn as_i128(&self) -> Option<i128> {
        match self {
            PyValue::BigInt(b) if b.len() <= 16 => {
                let fill = if b.last().is_some_and(|&x| x & 0x80 != 0) {
                    0xff
                } else {
                    0
                };
                let mut buf = [fill; 16];
                buf[..b.len()].copy_from_slice(b);
                Some(i128::from_le_bytes(buf))
            }
            other => other.as_i64().map(i128::from),
        }
    }

    /// The value of a [`Float`](PyValue::Float), or of an int as Python's `float(x)` would
    /// give it (ints beyond `i128` are `None`).
    ///
    /// ```
    /// assert_eq!(ndnpy::PyValue::Int(2).as_f64(), Some(2.0));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            PyValue::Float(v) => Some(*v),
            other => other.as_i128().map(|v| v as f64),
        }
    }

    /// The value of the key `key` (a `str`) in a [`Dict`](PyValue::Dict).
    ///
    /// ```
    /// use ndnpy::PyValue;
    /// let d = PyValue::Dict(vec![(PyValue::Str("a".into()), PyValue::Int(1))]);
    /// assert_eq!(d.get("a"), Some(&PyValue::Int(1)));
    /// assert_eq!(d.get("b"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&PyValue> {
        match self {
            PyValue::Dict(pairs) => pairs
                .iter()
                .rev()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

impl ndnpy_engine::element::sealed::Sealed for PyValue {}

/// `DynArray::into_array::<PyValue>()` takes the elements of an object array.
impl DynElement for PyValue {
    fn from_data(data: DynData) -> Result<ArrayD<Self>, DynData> {
        match data {
            DynData::Object(a) => Ok(a),
            other => Err(other),
        }
    }
    fn ref_data(data: &DynData) -> Option<&ArrayD<Self>> {
        match data {
            DynData::Object(a) => Some(a),
            _ => None,
        }
    }
}

/// Whether `dtype` is the object dtype `'|O'` (which alone is read as a pickle here; records
/// holding objects are not).
pub(crate) fn is_object(dtype: &DType) -> bool {
    matches!(dtype, DType::Scalar(s) if s.kind() == ScalarKind::Object)
}

/// Reads the pickle of the object array `info` describes.
#[cfg(feature = "object")]
fn read_object<R: Read + ?Sized>(
    reader: &mut R,
    info: HeaderInfo,
    input: Input,
    opts: &ReadOptions,
) -> Result<DynArray, Error> {
    let limits = Limits {
        max_depth: opts.max_pickle_depth,
        encoding: opts.pickle_encoding,
    };
    let value = pickle::load(reader, input.available, limits, &mut Values)?;
    let dtype = info.header.dtype;
    match value {
        PyValue::Array(a) if a.shape() == info.header.shape && is_object(a.dtype()) => {
            Ok(DynArray::from_parts(dtype, a.into_data()))
        }
        other => Err(FormatError::Pickle {
            offset: 0,
            reason: ndnpy_engine::base::error::excerpt(format_args!(
                "the header describes an object array of shape {:?}; the pickle holds {}",
                info.header.shape,
                match &other {
                    PyValue::Array(a) =>
                        format!("an array of shape {:?} and dtype {}", a.shape(), a.dtype()),
                    v => format!("a {}", v.type_name()),
                }
            )),
        }
        .into()),
    }
}

/// Refuses an object array: this build has no pickle reader.
#[cfg(not(feature = "object"))]
fn read_object<R: Read + ?Sized>(
    _reader: &mut R,
    info: HeaderInfo,
    _input: Input,
    _opts: &ReadOptions,
) -> Result<DynArray, Error> {
    Err(need_feature(info.header.dtype))
}

/// The error of an object array in a build without the feature `object`: its message names
/// the feature (`MismatchError::DType`'s, for an object dtype asked of a `DynArray`).
#[cfg(not(feature = "object"))]
fn need_feature(dtype: DType) -> Error {
    wrong_dtype("DynArray", dtype)
}

/// An array of a dtype without objects from its pickled bytes.
#[cfg(feature = "object")]
fn plain_array(meta: ArrayMeta, bytes: Vec<u8>) -> Result<DynArray, Error> {
    let to_native = meta.to_native;
    let a = DynArray::from_raw(meta.dtype, meta.shape, meta.fortran_order, bytes)?;
    // numpy swaps an array of a non-native scalar dtype into native order as it unpickles it
    // (array_setstate, not protocol 5's frombuffer); so does this (the values are decoded
    // already, only the dtype changes). Records keep their fields' orders, as in numpy.
    let swapped = matches!(a.dtype(), DType::Scalar(s) if s.byte_order().needs_swap());
    Ok(
        if to_native && swapped && !matches!(a.data(), DynData::Raw(_)) {
            let native = a
                .dtype()
                .with_byte_order(ndnpy_engine::base::dtype::ByteOrder::NATIVE);
            DynArray::from_parts(native, a.into_data())
        } else {
            a
        },
    )
}

/// `'|b1'`, a mask's dtype.
#[cfg(feature = "object")]
fn bool_dtype() -> DType {
    DType::Scalar(
        ndnpy_engine::base::dtype::Scalar::new(
            ScalarKind::Bool,
            ndnpy_engine::base::dtype::ByteOrder::NotApplicable,
            1,
            None,
        )
        .expect("bool is a dtype"),
    )
}

/// Builds a pickle's values as `PyValue`s.
#[cfg(feature = "object")]
struct Values;

#[cfg(feature = "object")]
impl Sink for Values {
    type Value = PyValue;

    fn leaf(&mut self, leaf: Leaf) -> Result<PyValue, Error> {
        Ok(match leaf {
            Leaf::None => PyValue::None,
            Leaf::Bool(b) => PyValue::Bool(b),
            Leaf::Int(v) => PyValue::Int(v),
            Leaf::BigInt(b) => PyValue::BigInt(b),
            Leaf::Float(v) => PyValue::Float(v),
            Leaf::Complex(re, im) => PyValue::Complex(num_complex::Complex::new(re, im)),
            Leaf::Str(s) => PyValue::Str(s),
            Leaf::CodePoints(p) => PyValue::CodePoints(p),
            Leaf::Bytes(b) => PyValue::Bytes(b),
            Leaf::ByteArray(b) => PyValue::ByteArray(b),
            Leaf::Scalar(dtype, bytes, record) => {
                let a = Box::new(DynArray::from_raw(dtype, Vec::new(), false, bytes)?);
                if record {
                    PyValue::Record(a)
                } else {
                    PyValue::Scalar(a)
                }
            }
            Leaf::Array(meta, bytes) => {
                let recarray = meta.recarray;
                let a = Box::new(plain_array(meta, bytes)?);
                if recarray {
                    PyValue::RecArray(a)
                } else {
                    PyValue::Array(a)
                }
            }
            Leaf::Range(start, stop, step) => PyValue::Range { start, stop, step },
            Leaf::Class(module, name) => PyValue::Class(format!("{module}.{name}")),
            Leaf::Time(v) => v,
            Leaf::Masked { data, mask, fill } => {
                let (meta, bytes) = data;
                let mask_meta = ArrayMeta {
                    dtype: bool_dtype(),
                    shape: meta.shape.clone(),
                    fortran_order: meta.fortran_order,
                    to_native: false,
                    recarray: false,
                };
                PyValue::MaskedArray {
                    data: Box::new(plain_array(meta, bytes)?),
                    mask: Box::new(plain_array(mask_meta, mask)?),
                    fill_value: match fill {
                        Some((meta, bytes)) => Some(Box::new(plain_array(meta, bytes)?)),
                        None => None,
                    },
                }
            }
        })
    }

    fn seq(&mut self, kind: Seq, items: Vec<PyValue>) -> Result<PyValue, Error> {
        Ok(match kind {
            Seq::List => PyValue::List(items),
            Seq::Tuple => PyValue::Tuple(items),
            Seq::Set => PyValue::Set(items),
            Seq::FrozenSet => PyValue::FrozenSet(items),
        })
    }

    fn dict(&mut self, pairs: Vec<(PyValue, PyValue)>) -> Result<PyValue, Error> {
        Ok(PyValue::Dict(pairs))
    }

    fn object_array(&mut self, meta: ArrayMeta, items: Vec<PyValue>) -> Result<PyValue, Error> {
        let ArrayMeta {
            shape,
            fortran_order,
            ..
        } = meta;
        let overflow = || FormatError::ShapeOverflow {
            shape: shape.clone(),
            itemsize: 8,
        };
        // The items are in C (logical) order whatever the array's order.
        let mut c = ArrayD::from_shape_vec(IxDyn(&shape), items).map_err(|_| overflow())?;
        let array = if fortran_order && shape.len() > 1 {
            let mut f = Vec::with_capacity(c.len());
            for x in c.view_mut().reversed_axes().iter_mut() {
                f.push(std::mem::replace(x, PyValue::None));
            }
            ArrayD::from_shape_vec(IxDyn(&shape).f(), f).map_err(|_| overflow())?
        } else {
            c
        };
        Ok(PyValue::Array(Box::new(DynArray::from_parts(
            pickle::object_dtype(),
            DynData::Object(array),
        ))))
    }
}

/// Takes the elements of an object array out, each converted by `f` (given its logical
/// index), into a C-order array.
fn try_map<B>(
    a: DynArray,
    requested: &'static str,
    mut f: impl FnMut(PyValue) -> Result<B, PyValue>,
) -> Result<ArrayD<B>, Error> {
    let dtype = a.dtype().clone();
    let DynData::Object(values) = a.into_data() else {
        return Err(wrong_dtype(requested, dtype));
    };
    let shape = values.shape().to_vec();
    let mut out = Vec::with_capacity(values.len());
    for (index, v) in values.into_iter().enumerate() {
        match f(v) {
            Ok(b) => out.push(b),
            Err(v) => {
                return Err(MismatchError::ObjectValue {
                    index,
                    requested,
                    found: v.type_name(),
                }
                .into())
            }
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("same element count"))
}

impl DynArray {
    /// An object array (`'|O'`) of `values`, which [`DynArray::write_npy`] writes as `np.save`
    /// does: the values pickled with protocol 4, loaded by `np.load(...,
    /// allow_pickle=True)` as equal objects. Strings, ints, floats, `None`, lists, tuples,
    /// dicts and float arrays are written byte for byte as `np.save` writes them when the
    /// Python objects were distinct; where Python's objects were one object referred to twice
    /// (an interned string of several characters, a dict key repeated across dicts), numpy
    /// writes a memo reference and ndnpy the value again. `StringDType` arrays are written as
    /// object arrays; nested arrays of non-native scalar dtypes are written in native order,
    /// the order numpy gives them when it loads them.
    ///
    /// # Examples
    ///
    /// Write an `Array<String>` as an object array (numpy's label arrays):
    ///
    /// ```
    /// use ndnpy::{DynArray, PyValue};
    /// let labels = ndarray::array!["cat".to_string(), "dog".to_string()].into_dyn();
    /// let a = DynArray::from_objects(labels.mapv(PyValue::Str));
    /// let mut bytes = Vec::new();
    /// a.write_npy(&mut bytes)?;
    /// assert_eq!(DynArray::read_npy(&bytes[..])?.into_strings()?, labels);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[cfg(feature = "object")]
    pub fn from_objects(values: ArrayD<PyValue>) -> DynArray {
        DynArray::from_parts(pickle::object_dtype(), DynData::Object(values))
    }

    /// The single value of a 0-d object array: what numpy's `np.load(...,
    /// allow_pickle=True).item()` gives, as for a dict saved with `np.save("meta.npy",
    /// {...})`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) if the array is not an object array; [`ErrorKind::Ndim`](crate::ErrorKind::Ndim)
    /// if it is not 0-d.
    ///
    /// # Examples
    ///
    /// ```
    /// let meta = ndnpy::read_npy_dyn("testdata/object/meta.npy")?.into_item()?;
    /// let classes = meta.get("classes").unwrap();
    /// assert_eq!(classes.type_name(), "list");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[cfg(feature = "object")]
    pub fn into_item(self) -> Result<PyValue, Error> {
        let shape = self.shape().to_vec();
        let mut values = self.into_array::<PyValue>()?;
        if !shape.is_empty() {
            return Err(MismatchError::Ndim {
                expected: 0,
                found: shape.len(),
                shape,
            }
            .into());
        }
        Ok(std::mem::replace(&mut values[IxDyn(&[])], PyValue::None))
    }

    /// The strings of an object array of `str` (numpy's label arrays, and `StringDType`
    /// arrays, which `np.save` pickles), or of a `U` array, as a C-order array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) naming the first element that is not a
    /// `str` (a `str` with surrogates is not a `String` either), or if the array holds neither
    /// objects nor `U` strings; [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData)
    /// naming the first element and code unit that is not a Unicode scalar value, for a `U`
    /// array read as [`DynData::CodePoints`] (lone surrogates).
    ///
    /// A `U` array holding lone surrogates reads as code points, and converts only
    /// explicitly:
    ///
    /// ```
    /// use ndnpy::{read_npy_dyn, DynData, ErrorKind};
    /// let a = read_npy_dyn("testdata/U_surrogates.npy")?; // ['a\ud800b', 'ok']
    /// let DynData::CodePoints(units) = a.data() else { panic!() };
    /// assert_eq!(units[0], [0x61, 0xd800, 0x62]);
    /// let err = a.into_strings().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidData);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    ///
    /// # Examples
    ///
    /// An object array of `str` (with the feature `object`):
    ///
    #[cfg_attr(feature = "object", doc = "```")]
    #[cfg_attr(not(feature = "object"), doc = "```ignore")]
    /// let labels = ndnpy::read_npy_dyn("testdata/object/labels.npy")?.into_strings()?;
    /// assert_eq!(labels.as_slice().unwrap(), ["cat", "dog", "émeu", "🦀"]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn into_strings(self) -> Result<ArrayD<String>, Error> {
        if matches!(self.data(), DynData::Unicode(_)) {
            return self.into_array::<String>();
        }
        if let DynData::CodePoints(units) = self.data() {
            let strings = ndnpy_engine::element::string::units_to_strings(units.iter())?;
            let shape = units.shape().to_vec();
            return Ok(ArrayD::from_shape_vec(IxDyn(&shape), strings).expect("same element count"));
        }
        try_map(self, "String", |v| match v {
            PyValue::Str(s) => Ok(s),
            other => Err(other),
        })
    }

    /// The strings of an object array of `str` and `None` (a `StringDType(na_object=None)`
    /// array, or a label array with missing values), `None` kept, as a C-order array.
    ///
    /// # Errors
    ///
    /// As [`DynArray::into_strings`], `None` elements excepted.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/object/stringdtype_na.npy")?;
    /// let s = a.into_optional_strings()?;
    /// assert_eq!(s.as_slice().unwrap(), [Some("a".to_string()), None, Some("bc".into())]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[cfg(feature = "object")]
    pub fn into_optional_strings(self) -> Result<ArrayD<Option<String>>, Error> {
        try_map(self, "Option<String>", |v| match v {
            PyValue::Str(s) => Ok(Some(s)),
            PyValue::None => Ok(None),
            other => Err(other),
        })
    }

    /// The arrays of a ragged array (an object array of numpy arrays, what
    /// `np.array([a, b], dtype=object)` makes of arrays of different lengths), each as an
    /// array of `T`, in logical (C) order of the outer array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) for an element that is not an array;
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) for one whose dtype is not `T`'s, or if this is not an object
    /// array.
    ///
    /// # Examples
    ///
    /// ```
    /// let parts = ndnpy::read_npy_dyn("testdata/object/ragged_f8.npy")?.into_arrays::<f64>()?;
    /// assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [3, 1, 0]);
    /// assert_eq!(parts[0].as_slice().unwrap(), [0.0, 0.5, 1.0]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[cfg(feature = "object")]
    pub fn into_arrays<T: DynElement>(self) -> Result<Vec<ArrayD<T>>, Error> {
        let arrays = try_map(self, "numpy.ndarray", |v| match v {
            PyValue::Array(a) | PyValue::RecArray(a) => Ok(*a),
            other => Err(other),
        })?;
        arrays.into_iter().map(DynArray::into_array::<T>).collect()
    }
}

/// The deepest nesting of values written (the array being level 1).
#[cfg(feature = "object")]
const WRITE_MAX_DEPTH: usize = pickle::MAX_DEPTH;

/// Writes an object array as `np.save` does: its header, then the array pickled with
/// protocol 4 (see `pickle::write` for what is byte for byte Python's).
#[cfg(feature = "object")]
pub(crate) fn write_object(
    a: &ArrayD<PyValue>,
    writer: &mut dyn std::io::Write,
) -> Result<(), Error> {
    let header = ndnpy_engine::format::header::Header {
        dtype: pickle::object_dtype(),
        fortran_order: crate::array::nd::fortran_order_of(a),
        shape: a.shape().to_vec(),
    };
    writer.write_all(&header.to_bytes()?)?;
    let mut p = Pickler::new();
    write_tree(&mut p, Act::ObjectArray(a, 1))?;
    writer.write_all(&p.finish())?;
    Ok(())
}

/// One step of writing a tree of values: the loop of `write_tree` runs them from a stack, so
/// that nesting costs heap, not call stack.
#[cfg(feature = "object")]
enum Act<'a> {
    Value(&'a PyValue, usize),
    ObjectArray(&'a ArrayD<PyValue>, usize),
    Op(u8),
    Memoize,
    Mark,
    Tuple(usize),
    End,
}

#[cfg(feature = "object")]
fn write_tree(p: &mut Pickler, first: Act<'_>) -> Result<(), Error> {
    let mut stack = vec![first];
    let mut acts = Vec::new();
    while let Some(act) = stack.pop() {
        match act {
            Act::Op(op) => p.op(op),
            Act::Memoize => {
                p.memoize();
            }
            Act::Mark => p.mark(),
            Act::Tuple(n) => p.tuple(n),
            Act::End => p.end_value(),
            Act::ObjectArray(a, depth) => {
                if depth > WRITE_MAX_DEPTH {
                    return Err(too_deep());
                }
                let fortran = crate::array::nd::fortran_order_of(a);
                reconstruct_head(p, &pickle::object_dtype(), a.shape(), fortran)?;
                // The items in C (logical) order, as a list.
                seq(&mut acts, Seq::List, a.iter(), a.len(), depth + 1);
                acts.extend([Act::Tuple(5), Act::Op(b'b'), Act::End]);
            }
            Act::Value(v, depth) => write_value(p, v, depth, &mut acts)?,
        }
        stack.extend(acts.drain(..).rev());
    }
    Ok(())
}

/// `_reconstruct(ndarray, (0,), b'b')` and the array's state up to its data.
#[cfg(feature = "object")]
fn reconstruct_head(
    p: &mut Pickler,
    dtype: &DType,
    shape: &[usize],
    fortran_order: bool,
) -> Result<(), Error> {
    reconstruct_head_as(p, dtype, shape, fortran_order, Subclass::NdArray)
}

/// [`reconstruct_head`] of an ndarray or a recarray.
#[cfg(feature = "object")]
fn reconstruct_head_as(
    p: &mut Pickler,
    dtype: &DType,
    shape: &[usize],
    fortran_order: bool,
    class: Subclass,
) -> Result<(), Error> {
    p.global("numpy._core.multiarray", "_reconstruct");
    match class {
        Subclass::NdArray => p.global("numpy", "ndarray"),
        Subclass::RecArray => p.global("numpy.rec", "recarray"),
    }
    p.int(0);
    p.tuple(1);
    p.bytes(b"b");
    p.tuple(3);
    p.op(b'R');
    p.memoize();
    p.mark();
    p.int(1);
    p.shape(shape);
    match class {
        Subclass::NdArray => p.dtype(dtype)?,
        Subclass::RecArray => p.record_dtype(dtype)?,
    }
    p.bool(fortran_order);
    Ok(())
}

/// The steps of a list or set (`EMPTY_*`, `MEMOIZE`, batches of `APPENDS`/`ADDITEMS`; one
/// item of a list is an `APPEND`), or a tuple or frozenset (`MARK`, items,
/// `TUPLE`/`FROZENSET`), as Python's pickler writes them.
#[cfg(feature = "object")]
fn seq<'a>(
    acts: &mut Vec<Act<'a>>,
    kind: Seq,
    items: impl Iterator<Item = &'a PyValue>,
    len: usize,
    depth: usize,
) {
    let values = items.map(|v| Act::Value(v, depth));
    match kind {
        Seq::Tuple => {
            if len > 3 {
                acts.push(Act::Mark);
            }
            acts.extend(values);
            acts.push(Act::Tuple(len));
        }
        Seq::FrozenSet => {
            acts.push(Act::Mark);
            acts.extend(values);
            acts.extend([Act::Op(0x91), Act::Memoize, Act::End]);
        }
        Seq::List | Seq::Set => {
            let (empty, add) = if kind == Seq::List {
                (b']', b'e')
            } else {
                (0x8f, 0x90)
            };
            acts.extend([Act::Op(empty), Act::Memoize]);
            if kind == Seq::List && len == 1 {
                acts.extend(values);
                acts.push(Act::Op(b'a'));
            } else {
                let mut values = values.peekable();
                while values.peek().is_some() {
                    acts.push(Act::Mark);
                    acts.extend(values.by_ref().take(pickle::write::BATCH));
                    acts.push(Act::Op(add));
                }
            }
            acts.push(Act::End);
        }
    }
}

/// An array's bytes as `DynArray::write_npy` writes them, without the header.
#[cfg(feature = "object")]
fn raw_bytes(a: &DynArray) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    a.write_npy(&mut out)?;
    let opts = ReadOptions::new().max_header_len(usize::MAX);
    let info = ndnpy_engine::format::header::Header::read(&mut &out[..], &opts)?;
    Ok(out.split_off(info.data_offset as usize))
}

/// Writes a value without children at once; pushes the steps of a container onto `acts`.
#[cfg(feature = "object")]
fn write_value<'a>(
    p: &mut Pickler,
    v: &'a PyValue,
    depth: usize,
    acts: &mut Vec<Act<'a>>,
) -> Result<(), Error> {
    let container = matches!(
        v,
        PyValue::List(_)
            | PyValue::Tuple(_)
            | PyValue::Set(_)
            | PyValue::FrozenSet(_)
            | PyValue::Dict(_)
            | PyValue::Array(_)
    );
    if container && depth > WRITE_MAX_DEPTH {
        return Err(too_deep());
    }
    match v {
        PyValue::None => p.none(),
        PyValue::Bool(b) => p.bool(*b),
        PyValue::Int(i) => p.int(*i),
        PyValue::BigInt(b) if b.is_empty() => p.int(0),
        PyValue::BigInt(b) => p.long(b),
        PyValue::Float(f) => p.float(*f),
        PyValue::Complex(c) => {
            p.global("builtins", "complex");
            p.float(c.re);
            p.float(c.im);
            p.tuple(2);
            p.op(b'R');
            p.memoize();
            p.end_value();
        }
        PyValue::Str(s) => {
            let first = s.chars().next().map(u32::from);
            p.str(s.as_bytes(), first, s.chars().count());
        }
        PyValue::CodePoints(points) => {
            let mut utf8 = Vec::with_capacity(points.len());
            for &c in points {
                if c > 0x10ffff {
                    return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                        reason: format!("code point {c:#x} is beyond U+10FFFF"),
                    }
                    .into());
                }
                push_wtf8(&mut utf8, c);
            }
            p.str(&utf8, points.first().copied(), points.len());
        }
        PyValue::Bytes(b) => p.bytes(b),
        PyValue::ByteArray(b) => {
            p.global("builtins", "bytearray");
            p.bytes(b);
            p.tuple(1);
            p.op(b'R');
            p.memoize();
            p.end_value();
        }
        PyValue::List(items) => seq(acts, Seq::List, items.iter(), items.len(), depth + 1),
        PyValue::Tuple(items) => seq(acts, Seq::Tuple, items.iter(), items.len(), depth + 1),
        PyValue::Set(items) => seq(acts, Seq::Set, items.iter(), items.len(), depth + 1),
        PyValue::FrozenSet(items) => {
            seq(acts, Seq::FrozenSet, items.iter(), items.len(), depth + 1)
        }
        PyValue::Dict(pairs) => {
            acts.extend([Act::Op(b'}'), Act::Memoize]);
            let item = |(k, x): &'a (PyValue, PyValue)| {
                [Act::Value(k, depth + 1), Act::Value(x, depth + 1)]
            };
            if pairs.len() == 1 {
                acts.extend(item(&pairs[0]));
                acts.push(Act::Op(b's'));
            } else {
                for batch in pairs.chunks(pickle::write::BATCH) {
                    acts.push(Act::Mark);
                    acts.extend(batch.iter().flat_map(item));
                    acts.push(Act::Op(b'u'));
                }
            }
            acts.push(Act::End);
        }
        PyValue::Array(a) => match a.data() {
            DynData::Object(o) => acts.push(Act::ObjectArray(o, depth)),
            _ => write_plain_array(p, a)?,
        },
        PyValue::Range { start, stop, step } => {
            if *step == 0 {
                return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                    reason: "a range's step must not be 0".into(),
                }
                .into());
            }
            p.global("builtins", "range");
            for v in [start, stop, step] {
                p.int(*v);
            }
            p.tuple(3);
            p.op(b'R');
            p.memoize();
            p.end_value();
        }
        PyValue::Class(name) => match name.as_str() {
            "builtins.range" => p.global("builtins", "range"),
            other => {
                return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                    reason: ndnpy_engine::base::error::excerpt(format_args!(
                        "the class {other:?} is not one ndnpy writes (only builtins.range)"
                    )),
                }
                .into())
            }
        },
        PyValue::MaskedArray {
            data,
            mask,
            fill_value,
        } => write_masked(p, data, mask, fill_value.as_deref())?,
        PyValue::Date(d) => {
            check_date(d)?;
            p.packed_time("date", &packed_date(d), None);
        }
        PyValue::Time(t) => {
            check_time(t)?;
            let mut state = packed_time(t).to_vec();
            state[0] |= u8::from(t.fold) << 7;
            p.packed_time("time", &state, t.tzinfo.as_deref());
        }
        PyValue::DateTime(d, t) => {
            check_date(d)?;
            check_time(t)?;
            let mut state = packed_date(d).to_vec();
            state[2] |= u8::from(t.fold) << 7;
            state.extend_from_slice(&packed_time(t));
            p.packed_time("datetime", &state, t.tzinfo.as_deref());
        }
        PyValue::TimeDelta(d) => {
            check_timedelta(d)?;
            p.timedelta(d);
        }
        PyValue::TimeZone(tz) => {
            check_timezone(tz)?;
            p.timezone(tz);
        }
        PyValue::RecArray(a) => {
            if !matches!(a.dtype(), DType::Structured(_)) || a.dtype().has_object() {
                return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                    reason: "a numpy.recarray must be an array of a record dtype without objects"
                        .into(),
                }
                .into());
            }
            write_plain_array_as(p, a, Subclass::RecArray)?;
        }
        PyValue::Scalar(a) | PyValue::Record(a) => {
            let record = matches!(v, PyValue::Record(_));
            if !a.shape().is_empty() || matches!(a.data(), DynData::Object(_)) {
                return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                    reason: "a numpy scalar must be a 0-d array of a dtype without objects".into(),
                }
                .into());
            }
            if record && !matches!(a.dtype(), DType::Structured(_)) {
                return Err(ndnpy_engine::base::error::UsageError::ObjectValue {
                    reason: "a numpy.record must be a 0-d array of a record dtype".into(),
                }
                .into());
            }
            let bytes = raw_bytes(a)?;
            p.global("numpy._core.multiarray", "scalar");
            if record {
                p.record_dtype(a.dtype())?;
            } else {
                p.dtype(a.dtype())?;
            }
            p.bytes(&bytes);
            p.tuple(2);
            p.op(b'R');
            p.memoize();
            p.end_value();
        }
    }
    Ok(())
}

/// A `datetime` value's fields outside what Python's constructor takes: a usage error.
#[cfg(feature = "object")]
fn bad_time(what: &str) -> Error {
    ndnpy_engine::base::error::UsageError::ObjectValue {
        reason: format!("{what} is outside what Python's datetime module holds"),
    }
    .into()
}

#[cfg(feature = "object")]
fn check_date(d: &PyDate) -> Result<(), Error> {
    let leap = d.year % 4 == 0 && (d.year % 100 != 0 || d.year % 400 == 0);
    let days = match d.month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let ok =
        (1..=9999).contains(&d.year) && (1..=12).contains(&d.month) && (1..=days).contains(&d.day);
    if ok {
        Ok(())
    } else {
        Err(bad_time(&format!("the date {:?}", d)))
    }
}

#[cfg(feature = "object")]
fn check_time(t: &PyTime) -> Result<(), Error> {
    if t.hour >= 24 || t.minute >= 60 || t.second >= 60 || t.microsecond >= 1_000_000 {
        return Err(bad_time(&format!(
            "the time {:02}:{:02}:{:02}.{}",
            t.hour, t.minute, t.second, t.microsecond
        )));
    }
    match &t.tzinfo {
        Some(tz) => check_timezone(tz),
        None => Ok(()),
    }
}

#[cfg(feature = "object")]
fn check_timedelta(d: &PyTimeDelta) -> Result<(), Error> {
    let ok = d.days.unsigned_abs() <= 999_999_999
        && (0..86_400).contains(&d.seconds)
        && (0..1_000_000).contains(&d.microseconds);
    if ok {
        Ok(())
    } else {
        Err(bad_time(&format!("the timedelta {d:?} (not normalized)")))
    }
}

#[cfg(feature = "object")]
fn check_timezone(tz: &PyTimeZone) -> Result<(), Error> {
    check_timedelta(&tz.offset)?;
    let o = tz.offset;
    if o.days == 0 || (o.days == -1 && (o.seconds > 0 || o.microseconds > 0)) {
        Ok(())
    } else {
        Err(bad_time(&format!(
            "the timezone offset {o:?} (not within a day)"
        )))
    }
}

/// The year's two bytes, the month and the day, as `date.__reduce__` packs them.
#[cfg(feature = "object")]
fn packed_date(d: &PyDate) -> [u8; 4] {
    let [hi, lo] = d.year.to_be_bytes();
    [hi, lo, d.month, d.day]
}

/// Hour, minute, second and three bytes of microseconds, as `time.__reduce__` packs them.
#[cfg(feature = "object")]
fn packed_time(t: &PyTime) -> [u8; 6] {
    let [_, a, b, c] = t.microsecond.to_be_bytes();
    [t.hour, t.minute, t.second, a, b, c]
}

/// An array of a dtype without objects: `_reconstruct` and its state.
#[cfg(feature = "object")]
fn write_plain_array(p: &mut Pickler, a: &DynArray) -> Result<(), Error> {
    write_plain_array_as(p, a, Subclass::NdArray)
}

/// The class an array is pickled as.
#[cfg(feature = "object")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Subclass {
    NdArray,
    /// `numpy.rec.recarray`, whose dtype is `dtype((numpy.record, ...))`.
    RecArray,
}

/// [`write_plain_array`] for an ndarray or a recarray.
#[cfg(feature = "object")]
fn write_plain_array_as(p: &mut Pickler, a: &DynArray, class: Subclass) -> Result<(), Error> {
    let a = native_order(a);
    let bytes = raw_bytes(&a)?;
    reconstruct_head_as(p, a.dtype(), a.shape(), a.is_fortran_order(), class)?;
    p.bytes(&bytes);
    p.tuple(5);
    p.op(b'b');
    p.end_value();
    Ok(())
}

/// `a` in native byte order, the order numpy gives it when it loads it (and ndnpy when it
/// reads it back), so that what is written reads back the same.
#[cfg(feature = "object")]
fn native_order(a: &DynArray) -> std::borrow::Cow<'_, DynArray> {
    let swapped = matches!(a.dtype(), DType::Scalar(s) if s.byte_order().needs_swap());
    if swapped && !matches!(a.data(), DynData::Raw(_)) {
        let dtype = a
            .dtype()
            .with_byte_order(ndnpy_engine::base::dtype::ByteOrder::NATIVE);
        std::borrow::Cow::Owned(DynArray::from_parts(dtype, a.data().clone()))
    } else {
        std::borrow::Cow::Borrowed(a)
    }
}

/// A `MaskedArray` as numpy pickles it: `_mareconstruct(MaskedArray, ndarray, (0,), 'b')`
/// and the state `(1, shape, dtype, is_fortran, data, mask, fill_value)`.
#[cfg(feature = "object")]
fn write_masked(
    p: &mut Pickler,
    data: &DynArray,
    mask: &DynArray,
    fill: Option<&DynArray>,
) -> Result<(), Error> {
    let bad = |reason: &str| -> Error {
        ndnpy_engine::base::error::UsageError::ObjectValue {
            reason: reason.into(),
        }
        .into()
    };
    if !matches!(data.dtype(), DType::Scalar(s) if s.kind() != ScalarKind::Object) {
        return Err(bad(
            "a MaskedArray's data must be an array of a scalar dtype without objects",
        ));
    }
    let DynData::Bool(m) = mask.data() else {
        return Err(bad("a MaskedArray's mask must be a bool array"));
    };
    if m.shape() != data.shape() {
        return Err(bad("a MaskedArray's mask must have its data's shape"));
    }
    if fill.is_some_and(|f| !f.shape().is_empty() || matches!(f.data(), DynData::Object(_))) {
        return Err(bad(
            "a MaskedArray's fill value must be a 0-d array without objects",
        ));
    }
    let data = native_order(data);
    let fortran = data.is_fortran_order();
    // The mask's bytes in the data's order, as numpy's getmaskarray(self).tobytes('CF'[fnc]).
    let mask_bytes: Vec<u8> = if fortran && m.ndim() > 1 {
        m.t().iter().map(|&b| u8::from(b)).collect()
    } else {
        m.iter().map(|&b| u8::from(b)).collect()
    };
    p.global("numpy.ma.core", "_mareconstruct");
    p.mark();
    p.global("numpy.ma", "MaskedArray");
    p.global("numpy", "ndarray");
    p.masked_shape();
    p.str(b"b", Some(u32::from(b'b')), 1);
    p.tuple(4);
    p.op(b'R');
    p.memoize();
    p.mark();
    p.int(1);
    p.shape(data.shape());
    p.dtype(data.dtype())?;
    p.bool(fortran);
    p.bytes(&raw_bytes(&data)?);
    p.bytes(&mask_bytes);
    match fill {
        Some(f) => write_plain_array(p, f)?,
        None => p.none(),
    }
    p.tuple(7);
    p.op(b'b');
    p.end_value();
    Ok(())
}

#[cfg(feature = "object")]
fn too_deep() -> Error {
    ndnpy_engine::base::error::UsageError::ObjectValue {
        reason: format!("values nest deeper than {WRITE_MAX_DEPTH} levels"),
    }
    .into()
}

/// A code point as UTF-8, surrogates included (Python's `surrogatepass`).
#[cfg(feature = "object")]
fn push_wtf8(out: &mut Vec<u8>, c: u32) {
    match c {
        0..=0x7f => out.push(c as u8),
        0x80..=0x7ff => out.extend([0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8]),
        0x800..=0xffff => out.extend([
            0xe0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3f) as u8,
            0x80 | (c & 0x3f) as u8,
        ]),
        _ => out.extend([
            0xf0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3f) as u8,
            0x80 | ((c >> 6) & 0x3f) as u8,
            0x80 | (c & 0x3f) as u8,
        ]),
    }
}

/// Reads the `.npy` file at `path`, whatever its dtype.
///
/// # Errors
///
/// As [`read_npy`](crate::read_npy); an object array without the feature `object` is
/// [`ErrorKind::DType`](crate::ErrorKind::DType), with a message naming the feature. For
/// object arrays, the errors of their pickle: a
/// malformed pickle is [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) (with the
/// pickle's [`offset`](crate::Error::offset)); a global other than numpy's and Python's data
/// types, a cycle or a record holding objects is [`ErrorKind::DType`](crate::ErrorKind::DType);
/// nesting deeper than [`ReadOptions::max_pickle_depth`](crate::ReadOptions::max_pickle_depth) or values too large for the pickle's
/// length is [`ErrorKind::Limit`](crate::ErrorKind::Limit).
///
/// # Examples
///
/// ```
/// let a = ndnpy::read_npy_dyn("testdata/rec_pdescr.npy")?;
/// assert_eq!(a.dtype().descr(), "[('x', '<i4', (2,)), ('y', '<f8', (2, 2)), ('z', '|u1')]");
/// assert_eq!(a.field("y")?.shape(), [2, 3, 2, 2]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_npy_dyn<P: AsRef<std::path::Path>>(path: P) -> Result<DynArray, Error> {
    let path = path.as_ref();
    let mut file =
        std::fs::File::open(path).map_err(ndnpy_engine::base::error::with_path("open", path))?;
    DynArray::read_npy(&mut file)
}

/// The entry points of `DynArray` that meet object arrays: here, above `dynamic`, so that
/// `dynamic` (which holds `PyValue`, the type) never calls into the pickle.
impl DynArray {
    /// Reads one array of any dtype from `reader`, consuming exactly its bytes.
    ///
    /// # Errors
    ///
    /// As [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy), without dtype or dimension
    /// mismatches; object arrays as [`read_npy_dyn`](crate::read_npy_dyn) says.
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = std::fs::read("testdata/dt_U3_be.npy")?;
    /// let a = ndnpy::DynArray::read_npy(&bytes[..])?;
    /// assert_eq!(a.dtype().descr(), "'>U3'");
    /// assert_eq!(a.into_array::<String>()?[[0, 0]], "");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_npy<R: Read>(reader: R) -> Result<DynArray, Error> {
        DynArray::read_npy_with_options(reader, &ReadOptions::default())
    }

    /// Like [`DynArray::read_npy`], with other limits.
    ///
    /// # Errors
    ///
    /// As [`DynArray::read_npy`], and [`ErrorKind::Limit`](crate::ErrorKind::Limit) for the limits given.
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = std::fs::read("testdata/v2_huge_header.npy")?;
    /// let strict = ndnpy::ReadOptions::new().max_header_len(10_000);
    /// assert!(ndnpy::DynArray::read_npy_with_options(&bytes[..], &strict).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_npy_with_options<R: Read>(
        mut reader: R,
        opts: &ReadOptions,
    ) -> Result<DynArray, Error> {
        ndnpy_engine::source::whole::read_through(&mut reader, opts, |r, info, available| {
            if is_object(&info.header.dtype) {
                return read_object(r, info, Input::new(available), opts);
            }
            DynArray::read_body(r, info, Input::new(available))
        })
    }

    /// Reads one array from `reader`; `whole` is what is known of it from here (its length,
    /// when known, counts the header).
    #[cfg_attr(not(feature = "npz"), allow(dead_code))]
    pub(crate) fn read_sized<R: Read + ?Sized>(
        reader: &mut R,
        opts: &ReadOptions,
        whole: Input,
    ) -> Result<DynArray, Error> {
        let info = Header::read(reader, opts)?;
        let input = ndnpy_engine::element::after_header(whole, &info);
        if is_object(&info.header.dtype) {
            return read_object(reader, info, input, opts);
        }
        DynArray::read_body(reader, info, input)
    }

    /// Writes the array as `.npy` data in its stored dtype: a file read with
    /// [`DynArray::read_npy`] is written back byte for byte (numpy's unused long double
    /// bytes included).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if values were changed so that
    /// they no longer fit the dtype (a longer string, another datetime unit).
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = std::fs::read("testdata/rec_titles.npy")?;
    /// let a = ndnpy::DynArray::read_npy(&bytes[..])?;
    /// let mut out = Vec::new();
    /// a.write_npy(&mut out)?;
    /// assert_eq!(out, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_npy<W: Write>(&self, mut writer: W) -> Result<(), Error> {
        #[cfg(feature = "object")]
        let objects = write_object;
        // Without the feature no array holds objects (the reader and `from_objects` are the
        // feature's), so this refusal is only what `write_data` asks to be given.
        #[cfg(not(feature = "object"))]
        let objects =
            |_: &ArrayD<PyValue>, _: &mut dyn Write| Err(need_feature(self.dtype().clone()));
        crate::array::encode::write_through(&mut writer, |writer| self.write_data(writer, objects))
    }
}
