//! Arrays whose dtype is known only at run time.
//!
//! [`read_npy_dyn`] and [`DynArray::read_npy`] read any `.npy` file: numbers, bool, strings
//! and datetimes become typed `ndarray` arrays ([`DynData`]); records, void, long doubles and
//! sub-arrays are kept as raw bytes with their dtype ([`RawData`]), from which record fields
//! can be taken out by name ([`DynArray::field`], numpy's `arr['x']`); object arrays (`|O`)
//! are read from their pickle, without running it, into [`PyValue`]s (`object`). Every
//! `DynArray` keeps the file's dtype, so writing it back gives the same bytes.

use crate::dtype::{DType, ScalarKind};
use crate::element::Input;
use crate::element::{bulk, Datetime64, Timedelta64};
use crate::encode::write_with_dtype;
use crate::error::{Error, MismatchError, UsageError};
use crate::header::{Header, HeaderInfo, ReadOptions};
use crate::layout::fortran_order_of;
use crate::object::{is_object, PyValue};
use crate::read::read_body;
use ndarray::{ArrayD, ShapeBuilder};
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// The values of a [`DynArray`], by element family.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DynData {
    /// `|b1`
    Bool(ArrayD<bool>),
    /// `|i1`
    I8(ArrayD<i8>),
    /// `i2`
    I16(ArrayD<i16>),
    /// `i4`
    I32(ArrayD<i32>),
    /// `i8`
    I64(ArrayD<i64>),
    /// `|u1`
    U8(ArrayD<u8>),
    /// `u2`
    U16(ArrayD<u16>),
    /// `u4`
    U32(ArrayD<u32>),
    /// `u8`
    U64(ArrayD<u64>),
    /// `f2`
    F16(ArrayD<half::f16>),
    /// `f4`
    F32(ArrayD<f32>),
    /// `f8`
    F64(ArrayD<f64>),
    /// `c8`
    C64(ArrayD<num_complex::Complex<f32>>),
    /// `c16`
    C128(ArrayD<num_complex::Complex<f64>>),
    /// `|Sn`, trailing NULs stripped.
    Bytes(ArrayD<Vec<u8>>),
    /// `Un`, trailing NULs stripped.
    Unicode(ArrayD<String>),
    /// `M8[unit]`
    Datetime(ArrayD<Datetime64>),
    /// `m8[unit]`
    Timedelta(ArrayD<Timedelta64>),
    /// Anything else (records, `|Vn`, long doubles, sub-arrays): the bytes as stored.
    Raw(RawData),
    /// `|O`: Python objects, one [`PyValue`] per element, read from the array's pickle
    /// without running any code (see [`PyValue`] for what each Python type becomes).
    Object(ArrayD<PyValue>),
}

/// An array kept as its stored bytes: records, void, long doubles and sub-array dtypes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawData {
    /// The shape.
    pub shape: Vec<usize>,
    /// Whether `bytes` is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The data, `itemsize` bytes per element, in the dtype's byte order.
    pub bytes: Vec<u8>,
}

/// An `.npy` array of any dtype: the dtype as stored, and the values.
///
/// # Examples
///
/// ```
/// use ndnpy::{read_npy_dyn, DynData};
/// let a = read_npy_dyn("testdata/i2_be_c_5.npy")?;
/// assert_eq!(a.dtype().descr(), "'>i2'");
/// assert_eq!(a.shape(), [5]);
/// let DynData::I16(values) = a.data() else { panic!("not i16") };
/// assert_eq!(values[0], i16::MIN);
/// let typed = a.into_array::<i16>()?; // or take it out typed
/// assert_eq!(typed.len(), 5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DynArray {
    dtype: DType,
    data: DynData,
}

/// Reads the `.npy` file at `path`, whatever its dtype.
///
/// # Errors
///
/// As [`read_npy`](crate::read_npy); for object arrays, the errors of their pickle
/// ([`FormatError::Pickle`](crate::FormatError::Pickle),
/// [`MismatchError::PickleGlobal`], [`MismatchError::PickleUnsupported`],
/// [`LimitError::PickleTooDeep`](crate::LimitError::PickleTooDeep),
/// [`LimitError::PickleExpansion`](crate::LimitError::PickleExpansion));
/// [`MismatchError::DType`] for records holding objects, which are not read.
///
/// # Examples
///
/// ```
/// let a = ndnpy::read_npy_dyn("testdata/rec_pdescr.npy")?;
/// assert_eq!(a.dtype().descr(), "[('x', '<i4', (2,)), ('y', '<f8', (2, 2)), ('z', '|u1')]");
/// assert_eq!(a.field("y")?.shape(), [2, 3, 2, 2]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_npy_dyn<P: AsRef<Path>>(path: P) -> Result<DynArray, Error> {
    let path = path.as_ref();
    let mut file = File::open(path).map_err(crate::error::with_path("open", path))?;
    DynArray::read_npy(&mut file)
}

/// Element types a [`DynArray`] can hold typed.
pub trait DynElement: Sized + crate::element::sealed::Sealed {
    /// The array, if `data` holds this element type.
    #[doc(hidden)]
    fn from_data(data: DynData) -> Result<ArrayD<Self>, DynData>;
    /// A reference to the array, if `data` holds this element type.
    #[doc(hidden)]
    fn ref_data(data: &DynData) -> Option<&ArrayD<Self>>;
}

macro_rules! dyn_element {
    ($($(#[$cfg:meta])* $ty:ty => $variant:ident;)*) => {
        $(
            $(#[$cfg])*
            impl DynElement for $ty {
                fn from_data(data: DynData) -> Result<ArrayD<Self>, DynData> {
                    match data {
                        DynData::$variant(a) => Ok(a),
                        other => Err(other),
                    }
                }
                fn ref_data(data: &DynData) -> Option<&ArrayD<Self>> {
                    match data {
                        DynData::$variant(a) => Some(a),
                        _ => None,
                    }
                }
            }
        )*

        impl DynArray {
            /// Reads the data described by `info` from `reader`.
            fn read_body<R: Read + ?Sized>(
                reader: &mut R,
                info: HeaderInfo,
                input: Input,
            ) -> Result<DynArray, Error> {
                let dtype = info.header.dtype.clone();
                let data = match family(&dtype)? {
                    $(
                        $(#[$cfg])*
                        Family::$variant => DynData::$variant(read_body::<$ty, _, _, _>(reader, info, input)?),
                    )*
                    Family::Raw => {
                        let bytes = bulk::read_vec::<u8, R>(reader, info.data_len, input)?;
                        DynData::Raw(RawData {
                            shape: info.header.shape,
                            fortran_order: info.header.fortran_order,
                            bytes,
                        })
                    }
                };
                Ok(DynArray { dtype, data })
            }

            /// Writes the array as `.npy` data in its stored dtype: a file read with
            /// [`DynArray::read_npy`] is written back byte for byte (numpy's unused long double
            /// bytes included).
            ///
            /// # Errors
            ///
            /// [`Error::Io`] if writing fails; [`Error::Usage`] if values were changed so that
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
                crate::encode::write_through(&mut writer, |writer| {
                    match &self.data {
                        $(
                            $(#[$cfg])*
                            DynData::$variant(a) => write_with_dtype(a, writer, self.dtype.clone()),
                        )*
                        DynData::Raw(raw) => {
                            let header = Header {
                                dtype: self.dtype.clone(),
                                fortran_order: raw.fortran_order,
                                shape: raw.shape.clone(),
                            };
                            writer.write_all(&header.to_bytes()?)?;
                            writer.write_all(&raw.bytes)?;
                            Ok(())
                        }
                        DynData::Object(a) => crate::object::write_object(a, writer),
                    }
                })
            }

            /// The shape.
            ///
            /// ```
            /// assert_eq!(ndnpy::read_npy_dyn("testdata/example.npy")?.shape(), [2, 3]);
            /// # Ok::<(), ndnpy::Error>(())
            /// ```
            pub fn shape(&self) -> &[usize] {
                match &self.data {
                    $(
                        $(#[$cfg])*
                        DynData::$variant(a) => a.shape(),
                    )*
                    DynData::Raw(raw) => &raw.shape,
                    DynData::Object(a) => a.shape(),
                }
            }

            /// Whether the values are in Fortran (column-major) layout, as the file stored them.
            ///
            /// ```
            /// assert!(ndnpy::read_npy_dyn("testdata/f4_be_f_3x4.npy")?.is_fortran_order());
            /// # Ok::<(), ndnpy::Error>(())
            /// ```
            pub fn is_fortran_order(&self) -> bool {
                match &self.data {
                    $(
                        $(#[$cfg])*
                        DynData::$variant(a) => fortran_order_of(a),
                    )*
                    DynData::Raw(raw) => raw.fortran_order,
                    DynData::Object(a) => fortran_order_of(a),
                }
            }
        }

        /// Which `DynData` variant a dtype reads into.
        enum Family {
            $(
                $(#[$cfg])*
                $variant,
            )*
            Raw,
        }
    };
}

dyn_element! {
    bool => Bool;
    i8 => I8;
    i16 => I16;
    i32 => I32;
    i64 => I64;
    u8 => U8;
    u16 => U16;
    u32 => U32;
    u64 => U64;
    half::f16 => F16;
    f32 => F32;
    f64 => F64;
    num_complex::Complex<f32> => C64;
    num_complex::Complex<f64> => C128;
    Vec<u8> => Bytes;
    String => Unicode;
    Datetime64 => Datetime;
    Timedelta64 => Timedelta;
}

/// The variant `dtype` reads into.
fn family(dtype: &DType) -> Result<Family, Error> {
    if dtype.has_object() {
        return Err(MismatchError::DType {
            requested: "DynArray",
            found: dtype.clone(),
        }
        .into());
    }
    let Some(s) = dtype.as_scalar() else {
        return Ok(Family::Raw);
    };
    Ok(match (s.kind(), s.size()) {
        (ScalarKind::Bool, _) => Family::Bool,
        (ScalarKind::Int, 1) => Family::I8,
        (ScalarKind::Int, 2) => Family::I16,
        (ScalarKind::Int, 4) => Family::I32,
        (ScalarKind::Int, 8) => Family::I64,
        (ScalarKind::UInt, 1) => Family::U8,
        (ScalarKind::UInt, 2) => Family::U16,
        (ScalarKind::UInt, 4) => Family::U32,
        (ScalarKind::UInt, 8) => Family::U64,
        (ScalarKind::Float, 2) => Family::F16,
        (ScalarKind::Float, 4) => Family::F32,
        (ScalarKind::Float, 8) => Family::F64,
        (ScalarKind::Complex, 8) => Family::C64,
        (ScalarKind::Complex, 16) => Family::C128,
        (ScalarKind::Bytes, _) => Family::Bytes,
        (ScalarKind::Unicode, _) => Family::Unicode,
        (ScalarKind::Datetime, _) => Family::Datetime,
        (ScalarKind::Timedelta, _) => Family::Timedelta,
        _ => Family::Raw,
    })
}

impl DynArray {
    /// Reads one array of any dtype from `reader`, consuming exactly its bytes.
    ///
    /// # Errors
    ///
    /// As [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy), without dtype or dimension
    /// mismatches; object arrays as [`read_npy_dyn`] says.
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
    /// As [`DynArray::read_npy`], and [`Error::Limit`] for the limits given.
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
        crate::read::read_through(&mut reader, opts, |r, info, available| {
            if is_object(&info.header.dtype) {
                return crate::object::read_object(r, info, Input::new(available), opts);
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
        let input = crate::read::after_header(whole, &info);
        if is_object(&info.header.dtype) {
            return crate::object::read_object(reader, info, input, opts);
        }
        DynArray::read_body(reader, info, input)
    }

    /// An array of `dtype` and `data` (the caller keeps them consistent).
    pub(crate) fn from_parts(dtype: DType, data: DynData) -> DynArray {
        DynArray { dtype, data }
    }

    /// An array of `dtype` from its bytes (`itemsize` per element, in the dtype's byte order
    /// and in C or Fortran order); `dtype` must not hold objects.
    pub(crate) fn from_raw(
        dtype: DType,
        shape: Vec<usize>,
        fortran_order: bool,
        bytes: Vec<u8>,
    ) -> Result<DynArray, Error> {
        let header = Header {
            dtype,
            fortran_order,
            shape,
        };
        let (num_elements, data_len) = header.sizes()?;
        let info = HeaderInfo {
            header,
            version: crate::Version::V1_0,
            data_offset: 0,
            num_elements,
            data_len,
        };
        let len = bytes.len() as u64;
        DynArray::read_body(&mut &bytes[..], info, Input::new(Some(len)))
    }

    /// The dtype as stored (byte order and string lengths included).
    ///
    /// ```
    /// assert_eq!(ndnpy::read_npy_dyn("testdata/dt_M8_25ms.npy")?.dtype().descr(), "'<M8[25ms]'");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn dtype(&self) -> &DType {
        &self.dtype
    }

    /// The values.
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/dt_V8.npy")?;
    /// assert!(matches!(a.data(), ndnpy::DynData::Raw(r) if r.bytes.len() == 48));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn data(&self) -> &DynData {
        &self.data
    }

    /// The values, taking them out.
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/u1_na_c_5.npy")?;
    /// assert!(matches!(a.into_data(), ndnpy::DynData::U8(_)));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn into_data(self) -> DynData {
        self.data
    }

    /// A typed view of the values, if they are `T`s.
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/example.npy")?;
    /// assert_eq!(a.as_array::<f64>().unwrap().sum(), 1.5);
    /// assert!(a.as_array::<f32>().is_none());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn as_array<T: DynElement>(&self) -> Option<&ArrayD<T>> {
        T::ref_data(&self.data)
    }

    /// The values as an array of `T`.
    ///
    /// # Errors
    ///
    /// [`MismatchError::DType`] if the values are not `T`s.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/example.npy")?;
    /// let err = a.clone().into_array::<i32>().unwrap_err();
    /// assert_eq!(err.to_string(), "cannot read dtype '<f8' as i32");
    /// let f = a.into_array::<f64>()?.into_dimensionality::<ndarray::Ix2>().unwrap();
    /// assert_eq!(f[[1, 2]], 1.5);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn into_array<T: DynElement>(self) -> Result<ArrayD<T>, Error> {
        let dtype = self.dtype;
        T::from_data(self.data).map_err(|_| {
            MismatchError::DType {
                requested: std::any::type_name::<T>(),
                found: dtype,
            }
            .into()
        })
    }

    /// The field `name` of a record array, as its own array (numpy's `arr['name']`). A
    /// sub-array field adds its dimensions after the record array's: a field `('y', '<f8',
    /// (2, 2))` of a `(2, 3)` array gives shape `(2, 3, 2, 2)`. Titles are accepted as names.
    ///
    /// # Errors
    ///
    /// [`UsageError::NoSuchField`] if the array is not a record array or has no such field.
    ///
    /// # Examples
    ///
    /// ```
    /// let a = ndnpy::read_npy_dyn("testdata/rec_titles.npy")?;
    /// let b = a.field("b")?;
    /// assert_eq!((b.dtype().descr(), b.shape()), ("'<i4'".to_string(), &[2, 3][..]));
    /// assert_eq!(a.field("bb")?, b); // by title
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn field(&self, name: &str) -> Result<DynArray, Error> {
        let (record, raw) = match (self.dtype.as_structured(), &self.data) {
            (Some(r), DynData::Raw(raw)) => (r, raw),
            _ => {
                return Err(UsageError::NoSuchField {
                    name: name.to_string(),
                    available: Vec::new(),
                }
                .into())
            }
        };
        let Some(field) = record
            .fields()
            .iter()
            .find(|f| f.name == name || f.title.as_deref() == Some(name))
        else {
            return Err(UsageError::NoSuchField {
                name: name.to_string(),
                available: record.fields().iter().map(|f| f.name.clone()).collect(),
            }
            .into());
        };
        let itemsize = record.itemsize();
        let size = field.dtype.itemsize();
        // Sub-array dimensions, outer first (a sub-array of a sub-array nests them).
        let mut base = field.dtype.clone();
        let mut sub_shape = Vec::new();
        while let DType::SubArray(s) = base {
            sub_shape.extend_from_slice(s.shape());
            base = s.base().clone();
        }
        // Records in C order (a Fortran array's records are reordered when a sub-array adds
        // inner dimensions, so that the result has one layout).
        let reorder = raw.fortran_order && !sub_shape.is_empty();
        let mut bytes = Vec::new();
        // A field of no bytes has nothing to gather, however many records the shape claims;
        // otherwise `size <= itemsize`, so the records counted here are bytes really present.
        if size > 0 {
            let count = raw.bytes.len() / itemsize;
            let order: Box<dyn Iterator<Item = usize>> = if reorder {
                let index = ArrayD::from_shape_vec(raw.shape.clone().f(), (0..count).collect())
                    .map_err(|_| crate::error::FormatError::ShapeOverflow {
                        shape: raw.shape.clone(),
                        itemsize,
                    })?;
                Box::new(index.into_iter())
            } else {
                Box::new(0..count)
            };
            bytes.reserve_exact(count * size);
            for i in order {
                let start = i * itemsize + field.offset;
                bytes.extend_from_slice(&raw.bytes[start..start + size]);
            }
        }
        let mut shape = raw.shape.clone();
        shape.extend_from_slice(&sub_shape);
        let header = Header {
            dtype: base,
            fortran_order: raw.fortran_order && !reorder,
            shape,
        };
        let (num_elements, data_len) = header.sizes()?;
        let info = HeaderInfo {
            header,
            version: crate::Version::V1_0,
            data_offset: 0,
            num_elements,
            data_len,
        };
        DynArray::read_body(&mut &bytes[..], info, Input::new(Some(bytes.len() as u64)))
    }
}
