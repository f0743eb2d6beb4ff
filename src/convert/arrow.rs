//! Conversions between arrays and [Apache Arrow](https://arrow.apache.org) arrays of the
//! arrow-rs crates (feature `arrow`, off by default).
//!
//! # numpy to Arrow
//!
//! | numpy | Arrow |
//! |---|---|
//! | `b1` | `Boolean` (packed bits) |
//! | `i1`..`i8`, `u1`..`u8` | `Int8`..`Int64`, `UInt8`..`UInt64` |
//! | `f2`, `f4`, `f8` | `Float16`, `Float32`, `Float64` |
//! | `c8`, `c16` | `FixedSizeList<Float32/Float64, 2>` (real, imaginary), field metadata `numpy.dtype` |
//! | `Sn` | `Binary`, trailing NULs stripped (numpy's rule) |
//! | `Un` | `Utf8`, trailing NULs stripped |
//! | `Vn` | `FixedSizeBinary(n)` |
//! | `M8[s/ms/us/ns]` | `Timestamp(unit)`; `W`, `D`, `h`, `m` as seconds, `ps`/`fs`/`as` as nanoseconds when exact; NaT is null |
//! | `m8[unit]` | `Duration(unit)`, the same units |
//! | records | `Struct` (one child per named field, padding dropped); [`to_record_batch`]: one column per field |
//! | sub-array field, axes after the first | `FixedSizeList`, nested per axis, or one flat list with the canonical `arrow.fixed_shape_tensor` extension ([`ArrowOptions::tensor_extension`]) |
//!
//! Complex numbers have no Arrow type: a list of two floats keeps numpy's interleaved layout
//! (so `pyarrow`'s `to_numpy().view(np.complex128)` gives the numbers back without a copy of
//! the values), and the field's `numpy.dtype` metadata lets [`from_record_batch`] rebuild
//! the complex dtype. Datetimes in years or months have no fixed length in seconds, and
//! `ps`/`fs`/`as` values that are not whole nanoseconds cannot be held exactly: both are
//! errors rather than a rounding. Long doubles (`f12`, `f16`), complex long doubles and
//! Python objects are errors naming the field.
//!
//! Read back, an `arrow.fixed_shape_tensor` column's metadata gives its axes; an explicit
//! identity `permutation` (pyarrow's `FixedShapeTensorArray.from_numpy_ndarray` writes one) is
//! the data as stored, and another permutation is refused naming it, as is a column whose
//! axes and the rows' pass numpy's 64.
//!
//! A one-axis array of numbers ([`to_arrow`], and [`dyn_to_arrow`] for a [`DynArray`] of
//! numbers) becomes an Arrow array **without copying** when it is in standard (C) layout:
//! the array's allocation becomes the Arrow buffer. More axes wrap that same buffer in
//! `FixedSizeList`s, also without copying. Fortran-order arrays are read out in C order;
//! big-endian data is converted to this machine's order.
//!
//! # Arrow to numpy
//!
//! [`from_arrow`], [`from_record_batch`] and [`ArrowOptions::from_column`] read the same
//! types back (and also `Date32` as `M8[D]`, `Date64` as `M8[ms]`, large and view strings
//! and binaries), lists of fixed size as sub-arrays or axes, structs as records. Strings
//! become `U` of the longest string's length, binaries `S` of the longest value's; values are
//! written in this machine's byte order, as `np.save` writes them. A null is NaT in a datetime
//! or timedelta; anywhere else numpy has no null, so a null is an error unless the caller
//! gives a fill value ([`ArrowOptions::fill_nulls`]).
//!
//! # Examples
//!
//! ```
//! use arrow_array::{cast::AsArray, types::Float64Type, Array};
//! let a = ndarray::array![1.0f64, 2.0, 3.0].into_dyn();
//! let address = a.as_ptr();
//! let arrow = ndnpy::arrow::to_arrow(a)?;
//! let values = arrow.as_primitive::<Float64Type>();
//! assert_eq!(values.values().as_ptr(), address); // the same memory: no copy
//!
//! let back = ndnpy::arrow::from_arrow(&arrow)?;
//! assert_eq!(back.dtype().descr(), "'<f8'");
//! assert_eq!(back.into_array::<f64>()?, ndarray::array![1.0, 2.0, 3.0].into_dyn());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::array::dynamic::{DynArray, DynData};
use crate::array::options::ReadOptions;
use arrow_array::cast::AsArray;
use arrow_array::{make_array, Array, ArrayRef, RecordBatch};
use arrow_buffer::{ArrowNativeType, BooleanBuffer, Buffer, MutableBuffer, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, TimeUnit as ArrowUnit};
use ndarray::{Array as NdArray, Dimension};
use ndnpy_engine::base::dtype::{
    ByteOrder, DType, DateTimeUnit, Field as NpField, Scalar, ScalarKind,
};
use ndnpy_engine::base::dtype::{Structured, SubArray, TimeUnit};
use ndnpy_engine::base::error::{conversion, Error, MismatchError, UsageError};
use ndnpy_engine::format::header::Header;
use std::collections::HashMap;
use std::sync::Arc;

/// The field metadata key under which a complex column keeps its numpy dtype.
///
/// ```
/// let a = ndarray::array![num_complex::Complex::new(1.0f64, 2.0)].into_dyn();
/// let mut npy = Vec::new();
/// ndnpy::WriteNpyExt::write_npy(&a, &mut npy)?;
/// let batch = ndnpy::arrow::to_record_batch(ndnpy::DynArray::read_npy(&npy[..])?)?;
/// assert_eq!(batch.schema().field(0).metadata()[ndnpy::arrow::NUMPY_DTYPE_KEY], "<c16");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub const NUMPY_DTYPE_KEY: &str = "numpy.dtype";

const EXTENSION_NAME: &str = "ARROW:extension:name";
const EXTENSION_METADATA: &str = "ARROW:extension:metadata";
const TENSOR: &str = "arrow.fixed_shape_tensor";

/// How arrays are converted: the options and the calls they end in.
///
/// # Examples
///
/// ```
/// use ndnpy::arrow::ArrowOptions;
/// // A (2, 3) float array as a column of tensors, and back.
/// let a = ndarray::Array2::<f32>::zeros((2, 3)).into_dyn();
/// let a = ndnpy::DynArray::read_npy(&npy_bytes(&a)[..])?;
/// let opts = ArrowOptions::new().tensor_extension(true).column_name("emb");
/// let batch = opts.to_record_batch(a)?;
/// let field = batch.schema().field(0).clone();
/// assert_eq!(field.name(), "emb");
/// assert_eq!(field.metadata()["ARROW:extension:name"], "arrow.fixed_shape_tensor");
/// let back = opts.from_column(&batch, "emb")?;
/// assert_eq!(back.shape(), [2, 3]);
/// # fn npy_bytes(a: &ndarray::ArrayD<f32>) -> Vec<u8> {
/// #     let mut v = Vec::new();
/// #     ndnpy::WriteNpyExt::write_npy(a, &mut v).unwrap();
/// #     v
/// # }
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArrowOptions {
    tensor_extension: bool,
    fill: Option<f64>,
    column_name: Option<String>,
}

impl ArrowOptions {
    /// The defaults: axes after the first as nested `FixedSizeList`s, nulls refused where
    /// numpy has no null, a non-record array's column named `values`.
    ///
    /// ```
    /// assert_eq!(ndnpy::arrow::ArrowOptions::new(), Default::default());
    /// ```
    pub fn new() -> ArrowOptions {
        ArrowOptions::default()
    }

    /// Axes after the first as one flat `FixedSizeList` per row with the canonical
    /// `arrow.fixed_shape_tensor` extension type (in the field's metadata, so only a
    /// [`RecordBatch`] carries it) instead of one nested list per axis.
    ///
    /// ```
    /// let opts = ndnpy::arrow::ArrowOptions::new().tensor_extension(true);
    /// # let _ = opts;
    /// ```
    pub fn tensor_extension(mut self, yes: bool) -> ArrowOptions {
        self.tensor_extension = yes;
        self
    }

    /// Arrow to numpy: write `value` where a number or bool is null (converted to the
    /// column's dtype: an integer column needs a whole number in range; a complex one takes
    /// it as the real part), an empty string or bytes where a string or binary is null, and
    /// zero bytes where a fixed-size binary is. Datetimes and timedeltas take NaT whatever
    /// this says.
    ///
    /// ```
    /// use arrow_array::Int32Array;
    /// let a = Int32Array::from(vec![Some(1), None]);
    /// assert!(ndnpy::arrow::from_arrow(&a).is_err());
    /// let b = ndnpy::arrow::ArrowOptions::new().fill_nulls(-1.0).from_arrow(&a)?;
    /// assert_eq!(b.into_array::<i32>()?, ndarray::array![1, -1].into_dyn());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn fill_nulls(mut self, value: f64) -> ArrowOptions {
        self.fill = Some(value);
        self
    }

    /// The column name [`to_record_batch`](ArrowOptions::to_record_batch) gives an array
    /// that is not a record array (default `values`).
    ///
    /// ```
    /// let opts = ndnpy::arrow::ArrowOptions::new().column_name("embedding");
    /// # let _ = opts;
    /// ```
    pub fn column_name(mut self, name: impl Into<String>) -> ArrowOptions {
        self.column_name = Some(name.into());
        self
    }

    /// The array as one Arrow array: records as a `Struct`, axes after the first as
    /// `FixedSizeList`s (nested per axis: the extension type needs a field, see
    /// [`to_record_batch`](ArrowOptions::to_record_batch)). Numbers in C order are not
    /// copied.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) for a dtype Arrow cannot hold (see the
    /// module's table), naming the field.
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/example.npy")?; // (2, 3) f8
    /// let arrow = ndnpy::arrow::ArrowOptions::new().to_arrow(a)?;
    /// assert_eq!(arrow.len(), 2);
    /// # use arrow_array::Array;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn to_arrow(&self, array: DynArray) -> Result<ArrayRef, Error> {
        let name = self.column_name.clone().unwrap_or_else(|| "values".into());
        Ok(self.column(&name, array)?.1)
    }

    /// The array as a record batch: a record array (one axis, or more as lists) one column
    /// per named field, any other array one column (named by
    /// [`column_name`](ArrowOptions::column_name)).
    ///
    /// # Errors
    ///
    /// As [`to_arrow`](ArrowOptions::to_arrow).
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/rec_pdescr.npy")?; // x, y, z
    /// let batch = ndnpy::arrow::to_record_batch(a)?;
    /// assert_eq!(batch.num_columns(), 3);
    /// assert_eq!(batch.schema().field(0).name(), "x");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn to_record_batch(&self, array: DynArray) -> Result<RecordBatch, Error> {
        let shape = array.shape().to_vec();
        if let Some(record) = array.dtype().as_structured().cloned() {
            let (bytes, _) = c_bytes(array)?;
            let rows = shape.first().copied().unwrap_or(1);
            let columns = record_columns(&record, &bytes, rows, &shape, self)?;
            return batch(columns, rows);
        }
        let name = self.column_name.clone().unwrap_or_else(|| "values".into());
        let rows = shape.first().copied().unwrap_or(1);
        batch(vec![self.column(&name, array)?], rows)
    }

    /// One column of a record batch: records, or an array of any dtype (sub-arrays and
    /// lists of fixed size as axes; the tensor extension and complex marker read from the
    /// field's metadata).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the batch has no such column; as
    /// [`from_arrow`](ArrowOptions::from_arrow).
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/rec_pdescr.npy")?;
    /// let batch = ndnpy::arrow::to_record_batch(a)?;
    /// let y = ndnpy::arrow::ArrowOptions::new().from_column(&batch, "y")?;
    /// assert_eq!(y.shape(), [2, 3, 2, 2]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn from_column(&self, batch: &RecordBatch, name: &str) -> Result<DynArray, Error> {
        let schema = batch.schema();
        let Some((index, field)) = schema.column_with_name(name) else {
            return Err(UsageError::NoSuchField {
                name: name.to_string(),
                available: schema.fields().iter().map(|f| f.name().clone()).collect(),
            }
            .into());
        };
        let column = batch.column(index);
        let dtype = infer(field, column.as_ref())?;
        to_dyn(field.name(), column.as_ref(), dtype, self)
    }

    /// An Arrow array as an array of the numpy dtype its type maps to (the module's table,
    /// read backwards): lists of fixed size become axes, structs records.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) for an Arrow type numpy cannot hold
    /// (lists of variable length, maps, unions, dictionaries, decimals, intervals);
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a null where numpy has none and
    /// no fill value was given.
    ///
    /// ```
    /// let a = arrow_array::StringArray::from(vec!["ab", "c"]);
    /// let s = ndnpy::arrow::ArrowOptions::new().from_arrow(&a)?;
    /// assert_eq!(s.dtype().descr(), "'<U2'");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn from_arrow(&self, array: &dyn Array) -> Result<DynArray, Error> {
        let field = Field::new("values", array.data_type().clone(), true);
        let dtype = infer(&field, array)?;
        to_dyn("values", array, dtype, self)
    }

    /// A record batch as one record array: a field per column, in the batch's order, packed
    /// as numpy packs `np.dtype([...])`.
    ///
    /// # Errors
    ///
    /// As [`from_arrow`](ArrowOptions::from_arrow).
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/rec_pdescr.npy")?;
    /// let batch = ndnpy::arrow::to_record_batch(a)?;
    /// let back = ndnpy::arrow::from_record_batch(&batch)?;
    /// // The file's shape is (2, 3): the second axis went into each column's lists.
    /// assert_eq!(
    ///     back.dtype().descr(),
    ///     "[('x', '<i4', (3, 2)), ('y', '<f8', (3, 2, 2)), ('z', '|u1', (3,))]"
    /// );
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn from_record_batch(&self, batch: &RecordBatch) -> Result<DynArray, Error> {
        let dtype = batch_dtype(batch)?;
        let mut bytes = zeroed(batch.num_rows(), dtype.itemsize())?;
        encode_batch(batch, &dtype, self, &mut bytes)?;
        DynArray::from_raw(dtype, vec![batch.num_rows()], false, bytes)
    }

    /// Whether axes after the first become one tensor-extension list.
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(crate) fn is_tensor(&self) -> bool {
        self.tensor_extension
    }

    /// One column: the field (with the extension or complex metadata) and the array.
    pub(crate) fn column(
        &self,
        name: &str,
        array: DynArray,
    ) -> Result<(FieldRef, ArrayRef), Error> {
        let shape = array.shape().to_vec();
        let dtype = array.dtype().clone();
        let (_, inner) = split_shape(&shape);
        let leaf = match numbers_to_arrow(array.into_data()) {
            Ok(leaf) => leaf,
            Err(data) => {
                let (bytes, n) = c_bytes(DynArray::from_parts(dtype.clone(), data))?;
                leaf_to_arrow(name, &dtype, &bytes, n)?
            }
        };
        wrap_axes(name, leaf, &dtype, inner, self.tensor_extension)
    }
}

/// The columns of a block of rows of an array of `dtype` (`shape`, C order, in `bytes`): a
/// column per field of a record, else one column.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn block_columns(
    dtype: &DType,
    bytes: &[u8],
    shape: &[usize],
    opts: &ArrowOptions,
) -> Result<Vec<(FieldRef, ArrayRef)>, Error> {
    let (rows, inner) = split_shape(shape);
    if let Some(record) = dtype.as_structured() {
        return record_columns(record, bytes, rows, shape, opts);
    }
    let name = opts.column_name.as_deref().unwrap_or("values");
    let n = rows
        .checked_mul(product(inner)?)
        .ok_or_else(|| conversion("shape"))?;
    let leaf = leaf_to_arrow(name, dtype, bytes, n)?;
    Ok(vec![wrap_axes(
        name,
        leaf,
        dtype,
        inner,
        opts.tensor_extension,
    )?])
}

/// A one-axis or N-axis array of numbers as an Arrow array, with
/// [`ArrowOptions::new`]'s defaults: the array's buffer is the Arrow buffer (no copy) when
/// it is in standard layout, axes after the first are nested `FixedSizeList`s.
///
/// # Errors
///
/// None today for numbers; the `Result` leaves room for the array's allocation to be
/// refused by Arrow.
///
/// # Examples
///
/// ```
/// use arrow_array::Array;
/// let a = ndarray::Array2::<i16>::zeros((4, 3));
/// let arrow = ndnpy::arrow::to_arrow(a)?;
/// assert_eq!(arrow.len(), 4);
/// assert_eq!(arrow.data_type().to_string(), "FixedSizeList(3 x Int16)");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn to_arrow<T: ArrowElement, D: Dimension>(array: NdArray<T, D>) -> Result<ArrayRef, Error> {
    let shape = array.shape().to_vec();
    let dtype = DType::Scalar(T::scalar());
    let leaf = primitive(T::data_type(), into_c_vec(array));
    let (_, inner) = split_shape(&shape);
    Ok(wrap_axes("values", leaf, &dtype, inner, false)?.1)
}

/// Any array as one Arrow array, with [`ArrowOptions::new`]'s defaults.
///
/// # Errors
///
/// As [`ArrowOptions::to_arrow`].
///
/// # Examples
///
/// ```
/// let a = ndnpy::read_npy_dyn("testdata/dt_U3_be.npy")?; // (2, 3) '>U3'
/// let arrow = ndnpy::arrow::dyn_to_arrow(a)?;
/// assert_eq!(arrow.data_type().to_string(), "FixedSizeList(3 x Utf8)");
/// # use arrow_array::Array;
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn dyn_to_arrow(array: DynArray) -> Result<ArrayRef, Error> {
    ArrowOptions::new().to_arrow(array)
}

/// Any array as a record batch, with [`ArrowOptions::new`]'s defaults.
///
/// # Errors
///
/// As [`ArrowOptions::to_record_batch`].
///
/// # Examples
///
/// ```
/// let batch = ndnpy::arrow::to_record_batch(ndnpy::read_npy_dyn("testdata/example.npy")?)?;
/// assert_eq!(batch.schema().field(0).name(), "values");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn to_record_batch(array: DynArray) -> Result<RecordBatch, Error> {
    ArrowOptions::new().to_record_batch(array)
}

/// An Arrow array as an array, with [`ArrowOptions::new`]'s defaults (nulls refused where
/// numpy has none).
///
/// # Errors
///
/// As [`ArrowOptions::from_arrow`].
///
/// # Examples
///
/// ```
/// let a = arrow_array::BooleanArray::from(vec![true, false]);
/// let b = ndnpy::arrow::from_arrow(&a)?;
/// assert_eq!(b.dtype().descr(), "'|b1'");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn from_arrow(array: &dyn Array) -> Result<DynArray, Error> {
    ArrowOptions::new().from_arrow(array)
}

/// A record batch as a record array, with [`ArrowOptions::new`]'s defaults.
///
/// # Errors
///
/// As [`ArrowOptions::from_record_batch`].
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// let batch = arrow_array::RecordBatch::try_from_iter([
///     ("id", Arc::new(arrow_array::Int64Array::from(vec![1, 2])) as _),
///     ("name", Arc::new(arrow_array::StringArray::from(vec!["a", "bc"])) as _),
/// ])
/// .unwrap();
/// let r = ndnpy::arrow::from_record_batch(&batch)?;
/// assert_eq!(r.dtype().descr(), "[('id', '<i8'), ('name', '<U2')]");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn from_record_batch(batch: &RecordBatch) -> Result<DynArray, Error> {
    ArrowOptions::new().from_record_batch(batch)
}

/// The element types [`to_arrow`] converts without copying: numbers Arrow has a primitive
/// type for (`i8`..`i64`, `u8`..`u64`, `half::f16`, `f32`, `f64`). Sealed.
///
/// ```
/// fn column<T: ndnpy::arrow::ArrowElement>(values: Vec<T>) -> arrow_array::ArrayRef {
///     ndnpy::arrow::to_arrow(ndarray::Array1::from(values)).unwrap()
/// }
/// assert_eq!(column(vec![half::f16::ONE]).data_type().to_string(), "Float16");
/// # use arrow_array::Array;
/// ```
pub trait ArrowElement: ArrowNativeType + ndnpy_engine::element::sealed::Sealed {
    /// The Arrow type.
    #[doc(hidden)]
    fn data_type() -> DataType;
    /// numpy's dtype for it, native order.
    #[doc(hidden)]
    fn scalar() -> Scalar;
}

macro_rules! arrow_element {
    ($($ty:ty => $variant:ident, $dt:ident, $kind:ident;)*) => {
        $(
            impl ArrowElement for $ty {
                fn data_type() -> DataType {
                    DataType::$dt
                }
                fn scalar() -> Scalar {
                    Scalar::native(ScalarKind::$kind, std::mem::size_of::<$ty>())
                }
            }
        )*

        /// A `DynData` of numbers as an Arrow array (its buffer, without copying when in C
        /// order); anything else back.
        fn numbers_to_arrow(data: DynData) -> Result<ArrayRef, DynData> {
            match data {
                $(
                    DynData::$variant(a) => Ok(primitive(DataType::$dt, into_c_vec(a))),
                )*
                other => Err(other),
            }
        }
    };
}

arrow_element! {
    i8 => I8, Int8, Int;
    i16 => I16, Int16, Int;
    i32 => I32, Int32, Int;
    i64 => I64, Int64, Int;
    u8 => U8, UInt8, UInt;
    u16 => U16, UInt16, UInt;
    u32 => U32, UInt32, UInt;
    u64 => U64, UInt64, UInt;
    half::f16 => F16, Float16, Float;
    f32 => F32, Float32, Float;
    f64 => F64, Float64, Float;
}

/// The array's values in C order: its own vector when it is in standard layout from the
/// start of its allocation (no copy), else a copy in logical order.
fn into_c_vec<T: Clone, D: Dimension>(array: NdArray<T, D>) -> Vec<T> {
    if array.is_standard_layout() {
        let len = array.len();
        let (vec, offset) = crate::array::nd::into_raw_vec_and_offset(array);
        if offset.unwrap_or(0) == 0 && vec.len() == len {
            return vec;
        }
        let start = offset.unwrap_or(0);
        return vec[start..start + len].to_vec();
    }
    array.iter().cloned().collect()
}

/// A primitive array owning `values`' allocation.
fn primitive<T: ArrowNativeType>(data_type: DataType, values: Vec<T>) -> ArrayRef {
    let len = values.len();
    let data = ArrayData::builder(data_type)
        .len(len)
        .add_buffer(Buffer::from_vec(values));
    // A Vec<T> of `len` values is a valid, aligned buffer of `len` values of T.
    make_array(data.build().expect("a Vec<T> is a valid buffer of T"))
}

/// `(rows, axes after the first)`; a 0-d array is one row.
fn split_shape(shape: &[usize]) -> (usize, &[usize]) {
    match shape.split_first() {
        Some((&rows, inner)) => (rows, inner),
        None => (1, &[]),
    }
}

/// Wraps `leaf` (rows × product(inner) values) in one `FixedSizeList` per axis of `inner`
/// (innermost first), or in one flat list with the tensor extension; the field says which,
/// and marks complex numbers.
fn wrap_axes(
    name: &str,
    leaf: ArrayRef,
    dtype: &DType,
    inner: &[usize],
    tensor: bool,
) -> Result<(FieldRef, ArrayRef), Error> {
    let mut metadata = HashMap::new();
    if is_complex(dtype) {
        metadata.insert(NUMPY_DTYPE_KEY.to_string(), native_descr(dtype));
    }
    let mut array = leaf;
    if tensor && !inner.is_empty() {
        let size = product(inner)?;
        array = fixed_list(array, size, metadata.clone())?;
        let shape: Vec<String> = inner.iter().map(usize::to_string).collect();
        let mut m = HashMap::new();
        m.insert(EXTENSION_NAME.to_string(), TENSOR.to_string());
        m.insert(
            EXTENSION_METADATA.to_string(),
            format!("{{\"shape\":[{}]}}", shape.join(",")),
        );
        metadata = m;
    } else {
        for &axis in inner.iter().rev() {
            array = fixed_list(array, axis, std::mem::take(&mut metadata))?;
        }
    }
    let field = Field::new(name, array.data_type().clone(), true).with_metadata(metadata);
    Ok((Arc::new(field), array))
}

fn is_complex(dtype: &DType) -> bool {
    dtype
        .as_scalar()
        .is_some_and(|s| s.kind() == ScalarKind::Complex)
}

/// The dtype's descr in this machine's byte order, without quotes (`<c16`).
fn native_descr(dtype: &DType) -> String {
    dtype
        .with_byte_order(ByteOrder::NATIVE)
        .descr()
        .trim_matches('\'')
        .to_string()
}

fn product(shape: &[usize]) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| conversion("a shape's product overflows"))
}

/// A list of `size` values per row over `values` (whose length is a multiple of `size`).
fn fixed_list(
    values: ArrayRef,
    size: usize,
    metadata: HashMap<String, String>,
) -> Result<ArrayRef, Error> {
    let size32 = i32::try_from(size).map_err(|_| conversion("an axis longer than 2^31 - 1"))?;
    // Nullable items and columns, as pyarrow makes them, so that files of both unite.
    let item = Field::new("item", values.data_type().clone(), true).with_metadata(metadata);
    let len = values.len().checked_div(size).unwrap_or(0);
    let data = ArrayData::builder(DataType::FixedSizeList(Arc::new(item), size32))
        .len(len)
        .add_child_data(values.to_data())
        .build()
        .map_err(arrow_error)?;
    Ok(make_array(data))
}

fn arrow_error(e: arrow_schema::ArrowError) -> Error {
    conversion(e.to_string())
}

fn no_equivalent(
    name: &str,
    dtype: impl std::fmt::Display,
    target: &'static str,
    hint: &str,
) -> Error {
    MismatchError::NoEquivalent {
        name: name.to_string(),
        dtype: dtype.to_string(),
        target,
        hint: hint.to_string(),
    }
    .into()
}

/// `dtype` (of the array or field `name`) has no Arrow type, because of `hint`.
fn no_arrow_type(name: &str, dtype: &DType, hint: &str) -> Error {
    no_equivalent(name, dtype.descr(), "Arrow", hint)
}

/// The array's data as `.npy` bytes in C order, and its number of elements.
fn c_bytes(array: DynArray) -> Result<(Vec<u8>, usize), Error> {
    if array.dtype().has_object() {
        return Err(no_arrow_type(
            "values",
            array.dtype(),
            "Python objects have no Arrow type",
        ));
    }
    let dtype = array.dtype().clone();
    let shape = array.shape().to_vec();
    let n = shape.iter().product();
    let (bytes, fortran) = match array.into_data() {
        // Records, voids and sub-arrays are held as their bytes: taken as they are.
        DynData::Raw(raw) => (raw.bytes, raw.fortran_order),
        // Strings, datetimes and the rest: their `.npy` bytes, as `np.save` writes them.
        data => {
            let array = DynArray::from_parts(dtype.clone(), data);
            let mut npy = Vec::new();
            array.write_npy(&mut npy)?;
            let info = Header::read(&mut &npy[..], &ReadOptions::default())?;
            let start = usize::try_from(info.data_offset).map_err(|_| conversion("header"))?;
            npy.drain(..start);
            (npy, info.header.fortran_order)
        }
    };
    let bytes = if fortran && shape.len() > 1 {
        ndnpy_engine::format::layout::fortran_to_c(&bytes, &shape, dtype.itemsize())?
    } else {
        bytes
    };
    Ok((bytes, n))
}

/// The columns of `record` for `rows` rows of records in C order (`shape`'s further axes as
/// lists over each field).
fn record_columns(
    record: &Structured,
    bytes: &[u8],
    rows: usize,
    shape: &[usize],
    opts: &ArrowOptions,
) -> Result<Vec<(FieldRef, ArrayRef)>, Error> {
    let (_, inner) = split_shape(shape);
    let n = rows
        .checked_mul(product(inner)?)
        .ok_or_else(|| conversion("shape"))?;
    let mut columns = Vec::new();
    for f in named(record) {
        let field_bytes = gather(bytes, record.itemsize(), f.offset, f.dtype.itemsize(), n);
        let leaf = leaf_to_arrow(&f.name, &f.dtype, &field_bytes, n)?;
        columns.push(wrap_axes(
            &f.name,
            leaf,
            &f.dtype,
            inner,
            opts.tensor_extension,
        )?);
    }
    Ok(columns)
}

/// The fields numpy shows (padding is not a field; an empty name is `f{i}` in numpy).
fn named(record: &Structured) -> impl Iterator<Item = NpField> + '_ {
    record.fields().iter().enumerate().map(|(i, f)| {
        let mut f = f.clone();
        if f.name.is_empty() {
            f.name = format!("f{i}");
        }
        f
    })
}

fn batch(columns: Vec<(FieldRef, ArrayRef)>, rows: usize) -> Result<RecordBatch, Error> {
    let (fields, arrays): (Vec<FieldRef>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Arc::new(Schema::new(Fields::from(fields)));
    let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &opts).map_err(arrow_error)
}

/// `size` bytes at `offset` of each of `n` items `stride` bytes apart, packed.
fn gather(bytes: &[u8], stride: usize, offset: usize, size: usize, n: usize) -> Vec<u8> {
    if stride == size && offset == 0 {
        return bytes[..n * size].to_vec();
    }
    let mut out = Vec::with_capacity(n * size);
    for i in 0..n {
        let at = i * stride + offset;
        out.extend_from_slice(&bytes[at..at + size]);
    }
    out
}

/// `n` elements of `dtype` (records, sub-arrays or scalars) packed in `bytes`, as an Arrow
/// array of `n` values.
pub(crate) fn leaf_to_arrow(
    name: &str,
    dtype: &DType,
    bytes: &[u8],
    n: usize,
) -> Result<ArrayRef, Error> {
    match dtype {
        DType::Scalar(s) => scalar_to_arrow(name, s, bytes, n),
        DType::SubArray(sub) => {
            let k = product(sub.shape())?;
            let values = n.checked_mul(k).ok_or_else(|| conversion("shape"))?;
            let mut array = leaf_to_arrow(name, sub.base(), bytes, values)?;
            let mut metadata = HashMap::new();
            if is_complex(sub.base()) {
                metadata.insert(NUMPY_DTYPE_KEY.to_string(), native_descr(sub.base()));
            }
            for &axis in sub.shape().iter().rev() {
                array = fixed_list(array, axis, std::mem::take(&mut metadata))?;
            }
            Ok(array)
        }
        DType::Structured(record) => {
            let mut fields = Vec::new();
            let mut arrays = Vec::new();
            for f in named(record) {
                let field_bytes = gather(bytes, record.itemsize(), f.offset, f.dtype.itemsize(), n);
                let array = leaf_to_arrow(&f.name, &f.dtype, &field_bytes, n)?;
                let mut metadata = HashMap::new();
                if is_complex(&f.dtype) {
                    metadata.insert(NUMPY_DTYPE_KEY.to_string(), native_descr(&f.dtype));
                }
                fields.push(Arc::new(
                    Field::new(&f.name, array.data_type().clone(), true).with_metadata(metadata),
                ));
                arrays.push(array);
            }
            if fields.is_empty() {
                return Err(no_arrow_type(name, dtype, "a record without named fields"));
            }
            let data = ArrayData::builder(DataType::Struct(Fields::from(fields)))
                .len(n)
                .child_data(arrays.iter().map(|a| a.to_data()).collect())
                .build()
                .map_err(arrow_error)?;
            Ok(make_array(data))
        }
        // DType is non-exhaustive: a kind this version does not know has no Arrow type.
        other => Err(no_arrow_type(
            name,
            other,
            "a dtype this version cannot convert",
        )),
    }
}

/// An aligned buffer holding `bytes`, each `size`-byte value byte-swapped if `swap`.
fn native_buffer(bytes: &[u8], size: usize, swap: bool) -> Buffer {
    let mut buf = MutableBuffer::with_capacity(bytes.len());
    buf.extend_from_slice(bytes);
    if swap && size > 1 {
        for v in buf.as_slice_mut().chunks_exact_mut(size) {
            v.reverse();
        }
    }
    buf.into()
}

fn scalar_to_arrow(name: &str, s: &Scalar, bytes: &[u8], n: usize) -> Result<ArrayRef, Error> {
    let size = s.size();
    let bytes = &bytes[..n * size];
    let swap = s.byte_order().needs_swap();
    let dtype = DType::Scalar(s.clone());
    let numeric = |dt: DataType| -> Result<ArrayRef, Error> {
        let data = ArrayData::builder(dt)
            .len(n)
            .add_buffer(native_buffer(bytes, size, swap))
            .build()
            .map_err(arrow_error)?;
        Ok(make_array(data))
    };
    match (s.kind(), size) {
        (ScalarKind::Bool, _) => Ok(Arc::new(arrow_array::BooleanArray::new(
            BooleanBuffer::from_iter(bytes.iter().map(|&b| b != 0)),
            None,
        ))),
        (ScalarKind::Int, 1) => numeric(DataType::Int8),
        (ScalarKind::Int, 2) => numeric(DataType::Int16),
        (ScalarKind::Int, 4) => numeric(DataType::Int32),
        (ScalarKind::Int, 8) => numeric(DataType::Int64),
        (ScalarKind::UInt, 1) => numeric(DataType::UInt8),
        (ScalarKind::UInt, 2) => numeric(DataType::UInt16),
        (ScalarKind::UInt, 4) => numeric(DataType::UInt32),
        (ScalarKind::UInt, 8) => numeric(DataType::UInt64),
        (ScalarKind::Float, 2) => numeric(DataType::Float16),
        (ScalarKind::Float, 4) => numeric(DataType::Float32),
        (ScalarKind::Float, 8) => numeric(DataType::Float64),
        (ScalarKind::Complex, 8 | 16) => {
            let part = if size == 8 {
                DataType::Float32
            } else {
                DataType::Float64
            };
            let data = ArrayData::builder(part)
                .len(2 * n)
                .add_buffer(native_buffer(bytes, size / 2, swap))
                .build()
                .map_err(arrow_error)?;
            fixed_list(make_array(data), 2, HashMap::new())
        }
        (ScalarKind::Float | ScalarKind::Complex, _) => Err(no_arrow_type(
            name,
            &dtype,
            "long doubles have no Arrow type (their format is the platform's)",
        )),
        (ScalarKind::Bytes, _) => {
            let values = bytes.chunks_exact(size.max(1)).take(n).map(strip_nuls);
            let array: arrow_array::BinaryArray = if size == 0 {
                std::iter::repeat_n(&b""[..], n).map(Some).collect()
            } else {
                values.map(Some).collect()
            };
            Ok(Arc::new(array))
        }
        (ScalarKind::Unicode, _) => {
            let chars = size / 4;
            let mut strings = arrow_array::builder::StringBuilder::with_capacity(n, n * chars);
            let mut s = String::new();
            for i in 0..n {
                s.clear();
                let item = &bytes[i * size..(i + 1) * size];
                let unit = |u: &[u8]| {
                    let v = u32::from_ne_bytes([u[0], u[1], u[2], u[3]]);
                    if swap {
                        v.swap_bytes()
                    } else {
                        v
                    }
                };
                // Trailing NULs are padding, as numpy strips them.
                let end = item
                    .chunks_exact(4)
                    .rposition(|u| unit(u) != 0)
                    .map_or(0, |p| p + 1);
                for u in item.chunks_exact(4).take(end).map(unit) {
                    match char::from_u32(u) {
                        Some(c) => s.push(c),
                        None => {
                            return Err(no_arrow_type(
                                name,
                                &dtype,
                                &format!("element {i} holds U+{u:04X}, which UTF-8 cannot encode"),
                            ))
                        }
                    }
                }
                strings.append_value(&s);
            }
            Ok(Arc::new(strings.finish()))
        }
        (ScalarKind::Void, _) => {
            let width =
                i32::try_from(size).map_err(|_| conversion("a void wider than 2^31 - 1"))?;
            let data = ArrayData::builder(DataType::FixedSizeBinary(width))
                .len(n)
                .add_buffer(native_buffer(bytes, 1, false))
                .build()
                .map_err(arrow_error)?;
            Ok(make_array(data))
        }
        (ScalarKind::Datetime | ScalarKind::Timedelta, _) => time_to_arrow(name, s, bytes, n),
        _ => Err(no_arrow_type(
            name,
            &dtype,
            "Python objects have no Arrow type",
        )),
    }
}

fn strip_nuls(item: &[u8]) -> &[u8] {
    let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    &item[..end]
}

/// NaT: the smallest `i64`.
const NAT: i64 = i64::MIN;

/// The Arrow unit a numpy unit converts to, and the factor (multiply when positive, divide
/// exactly when negative) from one tick of `unit` (its multiplier included).
fn arrow_unit(unit: DateTimeUnit) -> Option<(ArrowUnit, i64, bool)> {
    let m = i64::from(unit.multiplier);
    let (base, per_base, divide) = match unit.unit {
        TimeUnit::Weeks => (ArrowUnit::Second, 604_800, false),
        TimeUnit::Days => (ArrowUnit::Second, 86_400, false),
        TimeUnit::Hours => (ArrowUnit::Second, 3_600, false),
        TimeUnit::Minutes => (ArrowUnit::Second, 60, false),
        TimeUnit::Seconds => (ArrowUnit::Second, 1, false),
        TimeUnit::Milliseconds => (ArrowUnit::Millisecond, 1, false),
        TimeUnit::Microseconds => (ArrowUnit::Microsecond, 1, false),
        TimeUnit::Nanoseconds => (ArrowUnit::Nanosecond, 1, false),
        TimeUnit::Picoseconds => (ArrowUnit::Nanosecond, 1_000, true),
        TimeUnit::Femtoseconds => (ArrowUnit::Nanosecond, 1_000_000, true),
        TimeUnit::Attoseconds => (ArrowUnit::Nanosecond, 1_000_000_000, true),
        _ => return None,
    };
    if divide {
        Some((base, per_base, true))
    } else {
        Some((base, per_base.checked_mul(m)?, false))
    }
}

fn time_to_arrow(name: &str, s: &Scalar, bytes: &[u8], n: usize) -> Result<ArrayRef, Error> {
    let dtype = DType::Scalar(s.clone());
    let Some(unit) = s.unit() else {
        return Err(no_arrow_type(name, &dtype, "a datetime without a unit"));
    };
    let Some((arrow, factor, divide)) = arrow_unit(unit) else {
        return Err(no_arrow_type(
            name,
            &dtype,
            "years and months have no fixed length in seconds; convert to days first",
        ));
    };
    let m = i64::from(unit.multiplier);
    let swap = s.byte_order().needs_swap();
    let mut values = Vec::with_capacity(n);
    let mut valid = Vec::with_capacity(n);
    for (i, v) in bytes.chunks_exact(8).take(n).enumerate() {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(v);
        let t = if swap {
            i64::from_ne_bytes(raw).swap_bytes()
        } else {
            i64::from_ne_bytes(raw)
        };
        if t == NAT {
            values.push(0);
            valid.push(false);
            continue;
        }
        let converted = if divide {
            t.checked_mul(m)
                .filter(|x| x % factor == 0)
                .map(|x| x / factor)
        } else {
            t.checked_mul(factor)
        };
        let Some(c) = converted else {
            return Err(no_arrow_type(
                name,
                &dtype,
                &format!("element {i} ({t}) is not a whole number of {arrow:?}s in range"),
            ));
        };
        values.push(c);
        valid.push(true);
    }
    let data_type = if s.kind() == ScalarKind::Datetime {
        DataType::Timestamp(arrow, None)
    } else {
        DataType::Duration(arrow)
    };
    let nulls = NullBuffer::from(valid);
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    let data = ArrayData::builder(data_type)
        .len(n)
        .add_buffer(Buffer::from_vec(values))
        .nulls(nulls)
        .build()
        .map_err(arrow_error)?;
    Ok(make_array(data))
}

// ---------------------------------------------------------------------------------------
// Arrow to numpy.

/// The numpy dtype of a column (a list of fixed size is a sub-array).
pub(crate) fn infer(field: &Field, array: &dyn Array) -> Result<DType, Error> {
    let name = field.name();
    let metadata = field.metadata();
    if metadata.get(EXTENSION_NAME).map(String::as_str) == Some(TENSOR) {
        if let DataType::FixedSizeList(item, size) = array.data_type() {
            let json = metadata.get(EXTENSION_METADATA).map_or("", |s| s);
            let refuse = |why: &str| no_equivalent(name, "arrow.fixed_shape_tensor", "numpy", why);
            let tensor = TensorMeta::parse(json).ok_or_else(|| {
                refuse("its metadata is not the extension's JSON object with a shape")
            })?;
            if product(&tensor.shape).ok() != usize::try_from(*size).ok() {
                return Err(refuse(&format!(
                    "its shape {:?} does not hold the list size, {size}",
                    tensor.shape
                )));
            }
            if let Some(p) = &tensor.permutation {
                let mut seen = vec![false; tensor.shape.len()];
                let valid = p.len() == seen.len()
                    && p.iter()
                        .all(|&i| i < seen.len() && !std::mem::replace(&mut seen[i], true));
                if !valid {
                    return Err(refuse(&format!(
                        "its permutation {p:?} is not one of the shape's {} axes",
                        tensor.shape.len()
                    )));
                }
                // The identity (pyarrow's from_numpy_ndarray writes one) is the data as
                // stored; another order is a transposed view, not read.
                if p.iter().enumerate().any(|(k, &i)| k != i) {
                    return Err(refuse(&format!(
                        "its permutation {p:?} reorders the stored axes {:?}; only the \
                         identity is read (store the tensors in the order they are read)",
                        tensor.shape
                    )));
                }
            }
            let values = array.as_fixed_size_list().values();
            let base = infer(item, values.as_ref())?;
            return within_numpy_dims(name, TENSOR, sub_array(base, tensor.shape)?);
        }
    }
    let native = |kind, size| DType::Scalar(Scalar::native(kind, size));
    Ok(match array.data_type() {
        DataType::Boolean => native(ScalarKind::Bool, 1),
        DataType::Int8 => native(ScalarKind::Int, 1),
        DataType::Int16 => native(ScalarKind::Int, 2),
        DataType::Int32 => native(ScalarKind::Int, 4),
        DataType::Int64 => native(ScalarKind::Int, 8),
        DataType::UInt8 => native(ScalarKind::UInt, 1),
        DataType::UInt16 => native(ScalarKind::UInt, 2),
        DataType::UInt32 => native(ScalarKind::UInt, 4),
        DataType::UInt64 => native(ScalarKind::UInt, 8),
        DataType::Float16 => native(ScalarKind::Float, 2),
        DataType::Float32 => native(ScalarKind::Float, 4),
        DataType::Float64 => native(ScalarKind::Float, 8),
        DataType::Timestamp(u, _) => time(ScalarKind::Datetime, numpy_unit(*u)),
        DataType::Date32 => time(ScalarKind::Datetime, TimeUnit::Days),
        DataType::Date64 => time(ScalarKind::Datetime, TimeUnit::Milliseconds),
        DataType::Duration(u) => time(ScalarKind::Timedelta, numpy_unit(*u)),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let chars = strings(array).map(|s| s.map_or(0, |s| s.chars().count())).max();
            let size = chars.unwrap_or(0).max(1).checked_mul(4).ok_or_else(|| conversion("string"))?;
            DType::Scalar(Scalar::native(ScalarKind::Unicode, size))
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let len = binaries(array).map(|b| b.map_or(0, <[u8]>::len)).max();
            bytes_dtype(len.unwrap_or(0).max(1))
        }
        DataType::FixedSizeBinary(n) => {
            DType::Scalar(Scalar::new(ScalarKind::Void, ByteOrder::NotApplicable, *n as usize, None)?)
        }
        DataType::FixedSizeList(item, size) => {
            let values = array.as_fixed_size_list().values();
            let base = infer(item, values.as_ref())?;
            if let Some(complex) = complex_of(item, metadata, &base, *size) {
                return Ok(complex);
            }
            within_numpy_dims(name, "FixedSizeList", sub_array(base, vec![*size as usize])?)?
        }
        DataType::Struct(fields) => {
            let columns = array.as_struct().columns();
            packed(fields.iter().zip(columns).map(|(f, child)| {
                Ok((f.name().clone(), infer(f, child.as_ref())?))
            }))?
        }
        other => {
            return Err(no_equivalent(
                name,
                other,
                "numpy",
                "numpy arrays hold fixed-size values: lists of variable length, maps, unions, dictionaries, decimals and intervals have no dtype",
            ))
        }
    })
}

/// A complex dtype for a list of two floats marked `numpy.dtype` (on the list's field or
/// its item).
fn complex_of(
    item: &Field,
    metadata: &HashMap<String, String>,
    base: &DType,
    size: i32,
) -> Option<DType> {
    let mark = metadata
        .get(NUMPY_DTYPE_KEY)
        .or_else(|| item.metadata().get(NUMPY_DTYPE_KEY))?;
    let want = DType::from_type_str(mark).ok()?;
    let s = want.as_scalar()?;
    let b = base.as_scalar()?;
    (s.kind() == ScalarKind::Complex
        && size == 2
        && b.kind() == ScalarKind::Float
        && b.size() * 2 == s.size())
    .then(|| DType::Scalar(Scalar::native(ScalarKind::Complex, s.size())))
}

/// The canonical tensor extension's metadata, `{"shape": [2, 3], "dim_names": [...],
/// "permutation": [1, 0]}` (the names are not kept).
#[derive(Debug, PartialEq)]
struct TensorMeta {
    shape: Vec<usize>,
    permutation: Option<Vec<usize>>,
}

impl TensorMeta {
    /// The metadata read from its JSON; `None` for anything but an object with a shape of
    /// whole numbers (and whole numbers in a permutation, if it has one).
    fn parse(json: &str) -> Option<TensorMeta> {
        let mut p = Json(json.as_bytes(), 0);
        let (mut shape, mut permutation) = (None, None);
        p.eat(b'{')?;
        if !p.peek_is(b'}') {
            loop {
                let key = p.string()?;
                p.eat(b':')?;
                match key.as_str() {
                    "shape" => shape = Some(p.numbers()?),
                    "permutation" => permutation = Some(p.numbers()?),
                    _ => p.skip_value()?,
                }
                if !p.peek_is(b',') {
                    break;
                }
                p.eat(b',')?;
            }
        }
        p.eat(b'}')?;
        p.end()?;
        Some(TensorMeta {
            shape: shape?,
            permutation,
        })
    }
}

/// A reader of the little JSON the tensor extension's metadata holds: the text and where it
/// is; every step `None` past what it expects, so hostile text is refused, never trusted.
struct Json<'a>(&'a [u8], usize);

impl Json<'_> {
    fn ws(&mut self) {
        while self.0.get(self.1).is_some_and(u8::is_ascii_whitespace) {
            self.1 += 1;
        }
    }

    fn peek_is(&mut self, b: u8) -> bool {
        self.ws();
        self.0.get(self.1) == Some(&b)
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.peek_is(b).then(|| self.1 += 1)
    }

    fn end(&mut self) -> Option<()> {
        self.ws();
        (self.1 == self.0.len()).then_some(())
    }

    /// A string without escapes but `\"` and `\\` (keys and names are plain).
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            match *self.0.get(self.1)? {
                b'"' => break,
                b'\\' => {
                    self.1 += 1;
                    out.push(*self.0.get(self.1)?);
                }
                b => out.push(b),
            }
            self.1 += 1;
        }
        self.1 += 1;
        String::from_utf8(out).ok()
    }

    /// `[1, 2, 3]`: whole numbers that fit a `usize`.
    fn numbers(&mut self) -> Option<Vec<usize>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        if self.eat(b']').is_some() {
            return Some(out);
        }
        loop {
            self.ws();
            let start = self.1;
            while self.0.get(self.1).is_some_and(u8::is_ascii_digit) {
                self.1 += 1;
            }
            out.push(
                std::str::from_utf8(&self.0[start..self.1])
                    .ok()?
                    .parse()
                    .ok()?,
            );
            if self.eat(b']').is_some() {
                return Some(out);
            }
            self.eat(b',')?;
        }
    }

    /// Any value: strings, numbers, literals, and arrays or objects of them (to a depth of
    /// 16), passed over.
    fn skip_value(&mut self) -> Option<()> {
        self.skip(16)
    }

    fn skip(&mut self, depth: u32) -> Option<()> {
        self.ws();
        match *self.0.get(self.1)? {
            b'"' => self.string().map(drop),
            open @ (b'[' | b'{') => {
                let close = if open == b'[' { b']' } else { b'}' };
                self.1 += 1;
                if self.eat(close).is_some() {
                    return Some(());
                }
                loop {
                    if open == b'{' {
                        self.string()?;
                        self.eat(b':')?;
                    }
                    self.skip(depth.checked_sub(1)?)?;
                    if self.eat(close).is_some() {
                        return Some(());
                    }
                    self.eat(b',')?;
                }
            }
            _ => {
                let start = self.1;
                while self
                    .0
                    .get(self.1)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                {
                    self.1 += 1;
                }
                (self.1 > start).then_some(())
            }
        }
    }
}

/// `dtype` as the dtype of a column's elements (Arrow type `what`), whose array has an axis
/// for the rows before the dtype's own: refused, naming the column, past numpy's 64 axes.
fn within_numpy_dims(name: &str, what: &str, dtype: DType) -> Result<DType, Error> {
    let axes = match &dtype {
        DType::SubArray(s) => s.shape().len(),
        _ => 0,
    };
    if axes >= 64 {
        let why = format!(
            "its {axes} axes and the rows' make {} dimensions; numpy arrays have at most 64",
            axes + 1
        );
        return Err(no_equivalent(name, what, "numpy", &why));
    }
    Ok(dtype)
}

fn bytes_dtype(len: usize) -> DType {
    DType::Scalar(Scalar::native(ScalarKind::Bytes, len))
}

fn time(kind: ScalarKind, unit: TimeUnit) -> DType {
    let mut s = Scalar::native(kind, 8);
    s.unit = Some(DateTimeUnit {
        unit,
        multiplier: 1,
    });
    DType::Scalar(s)
}

fn numpy_unit(u: ArrowUnit) -> TimeUnit {
    match u {
        ArrowUnit::Second => TimeUnit::Seconds,
        ArrowUnit::Millisecond => TimeUnit::Milliseconds,
        ArrowUnit::Microsecond => TimeUnit::Microseconds,
        ArrowUnit::Nanosecond => TimeUnit::Nanoseconds,
    }
}

/// `base` with axes `shape` in front of its own (numpy folds nested sub-arrays into one).
fn sub_array(base: DType, mut shape: Vec<usize>) -> Result<DType, Error> {
    let base = match base {
        DType::SubArray(inner) => {
            shape.extend_from_slice(inner.shape());
            inner.base().clone()
        }
        other => other,
    };
    Ok(DType::SubArray(Box::new(SubArray::new(base, shape)?)))
}

fn strings(array: &dyn Array) -> Box<dyn Iterator<Item = Option<&str>> + '_> {
    match array.data_type() {
        DataType::Utf8 => Box::new(array.as_string::<i32>().iter()),
        DataType::LargeUtf8 => Box::new(array.as_string::<i64>().iter()),
        _ => Box::new(array.as_string_view().iter()),
    }
}

fn binaries(array: &dyn Array) -> Box<dyn Iterator<Item = Option<&[u8]>> + '_> {
    match array.data_type() {
        DataType::Binary => Box::new(array.as_binary::<i32>().iter()),
        DataType::LargeBinary => Box::new(array.as_binary::<i64>().iter()),
        _ => Box::new(array.as_binary_view().iter()),
    }
}

/// Widens `a` to hold what `b` holds too (the longer string or binary): the dtype of a column
/// read in several batches.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn widen(a: &DType, b: &DType) -> DType {
    match (a, b) {
        (DType::Scalar(x), DType::Scalar(y))
            if x.kind() == y.kind()
                && matches!(x.kind(), ScalarKind::Unicode | ScalarKind::Bytes) =>
        {
            if y.size() > x.size() {
                b.clone()
            } else {
                a.clone()
            }
        }
        (DType::SubArray(x), DType::SubArray(y)) if x.shape() == y.shape() => {
            let base = widen(x.base(), y.base());
            SubArray::new(base, x.shape().to_vec())
                .map(|s| DType::SubArray(Box::new(s)))
                .unwrap_or_else(|_| a.clone())
        }
        (DType::Structured(x), DType::Structured(y)) if x.fields().len() == y.fields().len() => {
            let fields = x.fields().iter().zip(y.fields());
            packed(fields.map(|(f, g)| Ok((f.name.clone(), widen(&f.dtype, &g.dtype)))))
                .unwrap_or_else(|_| a.clone())
        }
        _ => a.clone(),
    }
}

/// The record dtype of a batch: one field per column.
pub(crate) fn batch_dtype(batch: &RecordBatch) -> Result<DType, Error> {
    let schema = batch.schema();
    packed(
        schema
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, column)| Ok((f.name().clone(), infer(f, column.as_ref())?))),
    )
}

/// A record of these fields packed one after another, as `np.dtype([...])` packs them.
fn packed(fields: impl Iterator<Item = Result<(String, DType), Error>>) -> Result<DType, Error> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for field in fields {
        let (name, dtype) = field?;
        let size = dtype.itemsize();
        out.push(NpField {
            name,
            title: None,
            dtype,
            offset,
        });
        offset = offset
            .checked_add(size)
            .ok_or_else(|| conversion("record"))?;
    }
    Ok(DType::Structured(Structured::new(out, offset)?))
}

/// Writes the batch's rows as records of `dtype` (from [`batch_dtype`], possibly widened)
/// into `out` (`rows × itemsize` bytes).
pub(crate) fn encode_batch(
    batch: &RecordBatch,
    dtype: &DType,
    opts: &ArrowOptions,
    out: &mut [u8],
) -> Result<(), Error> {
    let record = dtype.as_structured().expect("a record dtype");
    let schema = batch.schema();
    for ((f, column), nf) in schema
        .fields()
        .iter()
        .zip(batch.columns())
        .zip(record.fields())
    {
        encode(
            f.name(),
            column.as_ref(),
            &nf.dtype,
            opts,
            &mut out[nf.offset..],
            record.itemsize(),
        )?;
    }
    Ok(())
}

/// `n` zeroed bytes per row, allocated fallibly.
pub(crate) fn zeroed(rows: usize, itemsize: usize) -> Result<Vec<u8>, Error> {
    let len = rows
        .checked_mul(itemsize)
        .ok_or_else(|| conversion("array"))?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| conversion("the array does not fit in memory"))?;
    v.resize(len, 0);
    Ok(v)
}

/// The column as an array of `dtype` (a sub-array dtype's axes after the rows).
fn to_dyn(
    name: &str,
    array: &dyn Array,
    dtype: DType,
    opts: &ArrowOptions,
) -> Result<DynArray, Error> {
    let rows = array.len();
    let mut bytes = zeroed(rows, dtype.itemsize())?;
    let itemsize = dtype.itemsize();
    encode(name, array, &dtype, opts, &mut bytes, itemsize)?;
    let (dtype, shape) = match dtype {
        DType::SubArray(sub) => {
            let mut shape = vec![rows];
            shape.extend_from_slice(sub.shape());
            (sub.base().clone(), shape)
        }
        other => (other, vec![rows]),
    };
    DynArray::from_raw(dtype, shape, false, bytes)
}

/// Writes each of `array`'s values as `dtype` at `out[i * stride..]`.
pub(crate) fn encode(
    name: &str,
    array: &dyn Array,
    dtype: &DType,
    opts: &ArrowOptions,
    out: &mut [u8],
    stride: usize,
) -> Result<(), Error> {
    let s = match dtype {
        DType::Structured(record) => return encode_record(name, array, record, opts, out, stride),
        DType::SubArray(sub) => return encode_sub_array(name, array, sub, opts, out, stride),
        DType::Scalar(s) => s,
        other => {
            return Err(no_arrow_type(
                name,
                other,
                "a dtype this version cannot convert",
            ));
        }
    };
    match s.kind() {
        ScalarKind::Datetime | ScalarKind::Timedelta => encode_times(array, out, stride),
        ScalarKind::Unicode => {
            let fill = opts.fill.is_some();
            for (i, v) in strings(array).enumerate() {
                let v = match v {
                    Some(v) => v,
                    None if fill => "",
                    None => return Err(needs_fill(name, "string")),
                };
                let slot = &mut out[i * stride..i * stride + s.size()];
                for (c, chunk) in v.chars().zip(slot.chunks_exact_mut(4)) {
                    chunk.copy_from_slice(&u32::from(c).to_ne_bytes());
                }
            }
            Ok(())
        }
        ScalarKind::Bytes => {
            let fill = opts.fill.is_some();
            for (i, v) in binaries(array).enumerate() {
                let v = match v {
                    Some(v) => v,
                    None if fill => b"",
                    None => return Err(needs_fill(name, "binary")),
                };
                out[i * stride..i * stride + v.len()].copy_from_slice(v);
            }
            Ok(())
        }
        ScalarKind::Bool => {
            let b = array.as_boolean();
            for i in 0..array.len() {
                let v = if b.is_null(i) {
                    match opts.fill {
                        Some(f) => f != 0.0,
                        None => return Err(needs_fill(name, "bool")),
                    }
                } else {
                    b.value(i)
                };
                out[i * stride] = u8::from(v);
            }
            Ok(())
        }
        _ => encode_numbers(name, array, s, opts, out, stride),
    }
}

/// The error for a null where numpy has no null value and no fill value was given.
fn needs_fill(name: &str, kind: &str) -> Error {
    conversion(format!(
        "{name:?}: a null {kind} where numpy has no null value; give a fill value \
         (ArrowOptions::fill_nulls, --fill-nulls)"
    ))
}

/// [`encode`] of a struct array as records: each field's column at its offset.
fn encode_record(
    name: &str,
    array: &dyn Array,
    record: &Structured,
    opts: &ArrowOptions,
    out: &mut [u8],
    stride: usize,
) -> Result<(), Error> {
    if array.null_count() > 0 {
        return Err(needs_fill(name, "record"));
    }
    let s = array.as_struct();
    let DataType::Struct(fields) = array.data_type() else {
        unreachable!()
    };
    for ((f, child), nf) in fields.iter().zip(s.columns()).zip(record.fields()) {
        encode(
            f.name(),
            child.as_ref(),
            &nf.dtype,
            opts,
            &mut out[nf.offset..],
            stride,
        )?;
    }
    Ok(())
}

/// [`encode`] of a list of fixed size as a sub-array: one list per axis, or one flat list
/// of the whole sub-array (the tensor extension's storage).
fn encode_sub_array(
    name: &str,
    array: &dyn Array,
    sub: &SubArray,
    opts: &ArrowOptions,
    out: &mut [u8],
    stride: usize,
) -> Result<(), Error> {
    if array.null_count() > 0 {
        return Err(needs_fill(name, "list"));
    }
    let n = array.len();
    let list = array.as_fixed_size_list();
    let per = list.value_length() as usize;
    let values = list.values().slice(0, n * per);
    let base = sub.base();
    let nested = sub.shape().len() > 1
        && per == sub.shape()[0]
        && matches!(values.data_type(), DataType::FixedSizeList(..));
    let inner = if nested {
        sub_array(base.clone(), sub.shape()[1..].to_vec())?
    } else {
        base.clone()
    };
    let step = inner.itemsize();
    let mut packed = zeroed(n * per, step)?;
    encode(name, values.as_ref(), &inner, opts, &mut packed, step)?;
    let row = per * step;
    for i in 0..n {
        out[i * stride..i * stride + row].copy_from_slice(&packed[i * row..(i + 1) * row]);
    }
    Ok(())
}

/// [`encode`] of timestamps, dates and durations as 64-bit counts; a null is NaT.
fn encode_times(array: &dyn Array, out: &mut [u8], stride: usize) -> Result<(), Error> {
    let n = array.len();
    let data = array.to_data();
    let values: &[u8] = data.buffers().first().map_or(&[], |b| b.as_slice());
    let width = if matches!(array.data_type(), DataType::Date32) {
        4
    } else {
        8
    };
    let start = data.offset() * width;
    if values.len() < start + n * width {
        return Err(conversion("an Arrow array shorter than its length"));
    }
    for i in 0..n {
        let v = if array.is_null(i) {
            NAT
        } else {
            let b = &values[start + i * width..start + (i + 1) * width];
            if width == 4 {
                i64::from(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            } else {
                let mut x = [0u8; 8];
                x.copy_from_slice(b);
                i64::from_ne_bytes(x)
            }
        };
        out[i * stride..i * stride + 8].copy_from_slice(&v.to_ne_bytes());
    }
    Ok(())
}

/// [`encode`] of numbers and fixed-size binaries: the values' bytes as they are; complex
/// numbers from their lists of two floats; a null the fill value.
fn encode_numbers(
    name: &str,
    array: &dyn Array,
    s: &Scalar,
    opts: &ArrowOptions,
    out: &mut [u8],
    stride: usize,
) -> Result<(), Error> {
    let (n, size) = (array.len(), s.size());
    let data = if s.kind() == ScalarKind::Complex {
        let list = array.as_fixed_size_list();
        list.values().slice(0, 2 * n).to_data()
    } else {
        array.to_data()
    };
    let values: &[u8] = data.buffers().first().map_or(&[], |b| b.as_slice());
    let start = data.offset() * size
        / if s.kind() == ScalarKind::Complex {
            2
        } else {
            1
        };
    if values.len() < start + n * size {
        return Err(conversion("an Arrow array shorter than its length"));
    }
    let fill = if array.null_count() > 0 {
        match opts.fill {
            Some(f) => Some(fill_bytes(name, s, f)?),
            None => return Err(needs_fill(name, "value")),
        }
    } else {
        None
    };
    for i in 0..n {
        let slot = &mut out[i * stride..i * stride + size];
        match &fill {
            Some(f) if array.is_null(i) => slot.copy_from_slice(f),
            _ => slot.copy_from_slice(&values[start + i * size..start + (i + 1) * size]),
        }
    }
    Ok(())
}

/// `value` as one element of `s` (native order).
fn fill_bytes(name: &str, s: &Scalar, value: f64) -> Result<Vec<u8>, Error> {
    let whole = value.fract() == 0.0;
    let bad = || -> Error {
        conversion(format!(
            "{name:?}: fill value {value} does not fit {}",
            DType::Scalar(s.clone()).descr()
        ))
    };
    macro_rules! int {
        ($t:ty) => {{
            if !whole || value < <$t>::MIN as f64 || value > <$t>::MAX as f64 {
                return Err(bad());
            }
            (value as $t).to_ne_bytes().to_vec()
        }};
    }
    Ok(match (s.kind(), s.size()) {
        (ScalarKind::Int, 1) => int!(i8),
        (ScalarKind::Int, 2) => int!(i16),
        (ScalarKind::Int, 4) => int!(i32),
        (ScalarKind::Int, 8) => int!(i64),
        (ScalarKind::UInt, 1) => int!(u8),
        (ScalarKind::UInt, 2) => int!(u16),
        (ScalarKind::UInt, 4) => int!(u32),
        (ScalarKind::UInt, 8) => int!(u64),
        (ScalarKind::Float, 2) => half::f16::from_f64(value).to_ne_bytes().to_vec(),
        (ScalarKind::Float, 4) => (value as f32).to_ne_bytes().to_vec(),
        (ScalarKind::Float, 8) => value.to_ne_bytes().to_vec(),
        (ScalarKind::Complex, 8) => [(value as f32).to_ne_bytes(), 0f32.to_ne_bytes()].concat(),
        (ScalarKind::Complex, 16) => [value.to_ne_bytes(), 0f64.to_ne_bytes()].concat(),
        (ScalarKind::Void, _) => vec![0; s.size()],
        _ => return Err(bad()),
    })
}

#[cfg(test)]
mod tests {
    use super::TensorMeta;

    #[test]
    fn tensor_metadata_is_read_as_json_and_hostile_text_refused() {
        let meta = |shape: &[usize], permutation: Option<&[usize]>| TensorMeta {
            shape: shape.to_vec(),
            permutation: permutation.map(<[usize]>::to_vec),
        };
        for (json, want) in [
            (r#"{"shape":[2,3]}"#, meta(&[2, 3], None)),
            (r#" { "shape" : [ 2 , 3 ] } "#, meta(&[2, 3], None)),
            (r#"{"shape":[]}"#, meta(&[], None)),
            (
                r#"{"dim_names":["shape","x\"y"],"shape":[4,3],"permutation":[1,0]}"#,
                meta(&[4, 3], Some(&[1, 0])),
            ),
            (
                r#"{"other":{"a":[1,{"b":null}],"c":-1.5e3,"d":true},"shape":[5]}"#,
                meta(&[5], None),
            ),
        ] {
            assert_eq!(TensorMeta::parse(json), Some(want), "{json}");
        }
        let deep = format!(
            r#"{{"x":{}1{},"shape":[1]}}"#,
            "[".repeat(40),
            "]".repeat(40)
        );
        for json in [
            "",
            "{}",
            r#"{"dim_names":["shape"]}"#,
            r#"{"shape":[2,3]"#,
            r#"{"shape":[2,3]}x"#,
            r#"{"shape":[-2]}"#,
            r#"{"shape":[2.5]}"#,
            r#"{"shape":[99999999999999999999999]}"#,
            r#"{"shape":[2,]}"#,
            r#"{"shape":"[2]"}"#,
            r#"{"shape":[2],"permutation":[x]}"#,
            r#"{"shape:[2]}"#,
            r#"{"a":"#,
            deep.as_str(),
        ] {
            assert_eq!(TensorMeta::parse(json), None, "{json}");
        }
    }
}
