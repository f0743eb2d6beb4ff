//! Structured records: Rust structs read from and written as numpy record dtypes.
//!
//! `#[derive(NpyRecord)]` (feature `derive`, on by default) turns a struct of named fields
//! into an array element whose dtype is a numpy record, `[('a', '<i4'), ('b', '<f8')]`.
//! Each field's type implements [`RecordField`]: the numbers, `bool`, `half::f16` and
//! `Complex` (behind their features), fixed arrays `[T; N]` of any field type (a sub-array
//! field; `[[T; N]; M]` is `(M, N)`), `String` (`'<UN'`) and `Vec<u8>` (`'|SN'`) with
//! `#[npy(len = N)]`, and other derived structs (nested records).
//!
//! # Reading
//!
//! Fields are matched **by name** (or by title), never by position: the file may hold them in
//! any order, with padding (`('', '|V3')` from `align=True` or explicit offsets), titles, in
//! either byte order field by field, and with fields the struct does not have (they are
//! skipped). What the struct needs and the file lacks is a [`MismatchError::MissingFields`];
//! a field of the wrong type is a [`MismatchError::Field`] naming the field, the file's dtype
//! and the Rust type.
//!
//! The match is made once per read: [`RecordField::plan`] resolves every field to its offset
//! and a decoder for its dtype (native or swapped, which string length). The data is then
//! read in 256 KiB chunks into one reusable buffer and each record is decoded with the plan,
//! never one `read` call per element. A `#[repr(C)]` record whose layout is exactly the
//! file's (see below) skips decoding: the bytes are read straight into the array, one copy
//! as with `np.load`, and checked in place. String fields accept any length in the file and
//! drop trailing NULs, as numpy does.
//!
//! # Writing
//!
//! Records are written packed, in field declaration order, as numpy's default structured
//! dtype is: `np.save` of the array numpy loads from our file gives back our exact bytes.
//! Strings are NUL-padded; a string longer than its field is a [`UsageError::FieldValue`].
//!
//! # Zero-copy views
//!
//! A `#[repr(C)]` (or `#[repr(C, packed)]`) struct whose fields are all plain data (numbers,
//! `bool`, arrays and `#[repr(C)]` records of them) also implements [`PlainField`], and with
//! it [`ViewElement`](crate::ViewElement) and [`ViewMutElement`](crate::ViewMutElement): a
//! file whose record layout equals the struct's (same fields at the same offsets, the same
//! size, native byte order) is viewed in place, and memory-mapped. Any difference is a
//! [`MismatchError::Layout`], [`MismatchError::ByteOrder`] or [`MismatchError::Misaligned`]
//! error. Mutable views also need a struct without padding bytes.
//!
//! # Example
//!
//! ```
//! use ndarray::{array, Array1};
//! use ndnpy::{NpyRecord, ReadNpyExt, WriteNpyExt};
//!
//! #[derive(NpyRecord, Debug, Clone, PartialEq)]
//! struct Star {
//!     #[npy(len = 8)]
//!     name: String,
//!     pos: [f64; 3],
//!     #[npy(rename = "mag")]
//!     magnitude: f32,
//! }
//!
//! let stars = array![
//!     Star { name: "Vega".into(), pos: [1.0, 2.0, 3.0], magnitude: 0.03 },
//!     Star { name: "Deneb".into(), pos: [4.0, 5.0, 6.0], magnitude: 1.25 },
//! ];
//! let mut file = Vec::new();
//! stars.write_npy(&mut file)?;
//! let descr = "[('name', '<U8'), ('pos', '<f8', (3,)), ('mag', '<f4')]";
//! let header = ndnpy::Header::read(&mut &file[..], &Default::default())?.header;
//! assert_eq!(header.dtype.descr(), descr);
//! assert_eq!(Array1::<Star>::read_npy(&file[..])?, stars);
//! # Ok::<(), ndnpy::Error>(())
//! ```
//!
//! The derive refers to this crate as `::ndnpy`; if it is a dependency under another name,
//! say so with `#[npy(crate = "path::to::ndnpy")]` on the struct.
//!
//! Unsafe here: `PlainField` (a field type whose bytes are its value) and its impls, and the
//! views and bulk reads of records built on it, after their layout is checked against the
//! file's.
#![allow(unsafe_code)]

use crate::dtype::{ByteOrder, DType, Field, Record, Scalar, ScalarKind, SubArray};
use crate::element::pod;
use crate::element::{FixedBytes, FixedDType, FixedUnicode, ReadableElement, WritableElement};
use crate::error::{at_record, in_field, Error, FormatError, MismatchError, UsageError};
use std::any::type_name;
use std::io::{Read, Write};
use std::mem::{align_of, size_of};

/// A Rust type that can be one field of a structured record: it knows the dtype it is
/// written as, which file dtypes it can be read from, and how to convert one value.
///
/// The conversion is split in two so that the per-record work is a straight line: a
/// [`plan`](RecordField::plan) is made once per read or write from the file's dtype of the
/// field, then every record runs [`check`](RecordField::check) (only when
/// [`NEEDS_CHECK`](RecordField::NEEDS_CHECK); it finds invalid bytes such as a bool of 2) and
/// [`decode`](RecordField::decode), or [`encode`](RecordField::encode).
///
/// Implemented for `bool`, `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `half::f16`,
/// `Complex<f32>`/`Complex<f64>`, `String` and `Vec<u8>`
/// (with a length), `[T; N]` for every `T: RecordField`, and every
/// `#[derive(NpyRecord)]` struct. Implement it for your own field types (a newtype can
/// delegate to its inner type's implementation).
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, RecordField};
/// let found = DType::from_descr("'>i4'")?; // a big-endian field in a file
/// let plan = i32::plan(&found)?;
/// assert_eq!(i32::decode(&plan, &[0, 0, 1, 2]), 258);
/// let mut out = [0u8; 4];
/// 258i32.encode(&plan, &mut out)?;
/// assert_eq!(out, [0, 0, 1, 2]);
/// assert_eq!(<[f32; 3]>::npy_dtype(None).descr(), format!("('{}f4', (3,))", ndnpy::ByteOrder::NATIVE.as_char()));
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait RecordField: Sized {
    /// What [`plan`](RecordField::plan) resolves once per read or write: for a number, whether
    /// to swap bytes; for a string, its length in the file; for a record, every field's
    /// offset and plan.
    type Plan;

    /// Whether the type takes a length (`#[npy(len = N)]` in the derive): `String` and
    /// `Vec<u8>`, and arrays of them. The derive refuses a length on other types and requires
    /// one on these, at compile time.
    const TAKES_LEN: bool = false;

    /// Whether some bytes are not a valid value, so that [`check`](RecordField::check) must
    /// run before [`decode`](RecordField::decode) (`bool`, `String`, and records and arrays
    /// holding them).
    const NEEDS_CHECK: bool = false;

    /// The dtype written for this type, in native byte order. `len` is the field's
    /// `#[npy(len = N)]`, for the types that take one (a `String` without one is `'<U0'`).
    ///
    /// # Panics
    ///
    /// If the dtype's size overflows `isize::MAX` bytes (a string length or record size no
    /// array could hold). This depends on the type definition only, never on file contents.
    fn npy_dtype(len: Option<usize>) -> DType;

    /// Resolves how to read and write this type as `found`, the dtype of a field in a file
    /// (or of the field being written).
    ///
    /// # Errors
    ///
    /// [`MismatchError::DType`] (which records turn into [`MismatchError::Field`]) if `found`
    /// cannot hold this type; [`MismatchError::MissingFields`] for a record missing fields.
    fn plan(found: &DType) -> Result<Self::Plan, Error>;

    /// Checks that `bytes` (the field's bytes, at least `found.itemsize()` long) hold a valid
    /// value. Called before [`decode`](RecordField::decode) when
    /// [`NEEDS_CHECK`](RecordField::NEEDS_CHECK) is true.
    ///
    /// # Errors
    ///
    /// [`FormatError::InvalidField`] saying what is wrong.
    fn check(plan: &Self::Plan, bytes: &[u8]) -> Result<(), Error> {
        let _ = (plan, bytes);
        Ok(())
    }

    /// Decodes a value from `bytes`, which [`check`](RecordField::check) accepted. Never
    /// panics: given bytes that were not checked, or too few, it returns some value.
    fn decode(plan: &Self::Plan, bytes: &[u8]) -> Self;

    /// Encodes the value into `out`, the field's bytes; every byte of the field is written.
    ///
    /// # Errors
    ///
    /// [`UsageError::FieldValue`] if the value does not fit (a string longer than the field)
    /// or `out` is shorter than the field.
    fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error>;
}

/// A record field type whose values are plain bytes in memory, so that a file with the same
/// layout can be viewed in place as `&[Self]`.
///
/// Implemented for the numbers, `bool` (bytes are checked to be 0 or 1), `half::f16`,
/// `Complex`, `[T; N]` of plain types, and `#[derive(NpyRecord)]` structs declared
/// `#[repr(C)]` (or `#[repr(C, packed)]`) whose fields are all `PlainField`.
///
/// # Safety
///
/// For every `found` for which [`check_layout`](PlainField::check_layout) returns `Ok`,
/// implementors guarantee:
///
/// - `found.itemsize() == size_of::<Self>()`;
/// - any `size_of::<Self>()` bytes laid out as `found` describes are a valid `Self` once
///   [`RecordField::check`] accepted them with the plan of `found` (always, if
///   [`RecordField::NEEDS_CHECK`] is false); bytes that are padding in `Self` may hold
///   anything;
/// - `Self` has no interior mutability;
/// - [`HAS_PADDING`](PlainField::HAS_PADDING) is false only if no byte of `Self` is padding,
///   so that storing a `Self` through a mutable view leaves every byte initialised.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, PlainField};
/// assert!(<[u16; 4]>::check_layout(&DType::from_descr("('=u2', (4,))")?).is_ok());
/// assert!(u16::check_layout(&DType::from_descr(if cfg!(target_endian = "little") { "'>u2'" } else { "'<u2'" })?).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not plain data, so a `#[repr(C)]` record holding it cannot be viewed in place",
    note = "fields of `#[repr(C)]` records must be numbers, bool, arrays or `#[repr(C)]` records; \
            add `#[npy(no_view)]` to the struct to derive without zero-copy views"
)]
pub unsafe trait PlainField: RecordField {
    /// Whether `Self` has padding bytes (between fields or at the end).
    const HAS_PADDING: bool;

    /// Checks that `found` has exactly `Self`'s memory layout: the same fields at the same
    /// offsets, the same size, native byte order.
    ///
    /// # Errors
    ///
    /// [`MismatchError::Layout`] for a different layout, [`MismatchError::ByteOrder`] for
    /// non-native byte order, [`MismatchError::DType`] for a different type.
    fn check_layout(found: &DType) -> Result<(), Error>;
}

/// A `#[derive(NpyRecord)]` struct: a record that is also an array element, readable,
/// writable and of fixed dtype.
///
/// The derive implements it together with [`RecordField`], [`ReadableElement`],
/// [`WritableElement`] and [`FixedDType`] (and, for `#[repr(C)]` structs, [`PlainField`],
/// [`ViewElement`](crate::ViewElement) and [`ViewMutElement`](crate::ViewMutElement)).
///
/// # Examples
///
/// ```
/// use ndnpy::{FixedDType, NpyRecord};
///
/// #[derive(NpyRecord)]
/// struct Point {
///     x: f32,
///     y: f32,
/// }
///
/// fn descr_of<T: NpyRecord>() -> String {
///     T::dtype().descr()
/// }
/// let n = ndnpy::ByteOrder::NATIVE.as_char();
/// assert_eq!(descr_of::<Point>(), format!("[('x', '{n}f4'), ('y', '{n}f4')]"));
/// ```
pub trait NpyRecord: RecordField + ReadableElement + WritableElement + FixedDType {}

/// The plan of a scalar field: whether its bytes are swapped.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, RecordField};
/// let plan = f64::plan(&DType::from_descr("'=f8'")?)?;
/// assert_eq!(f64::decode(&plan, &1.5f64.to_ne_bytes()), 1.5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarPlan {
    swap: bool,
}

/// The plan of a string field (`'|SN'` or `'<UN'`): its size in the file and byte order.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, RecordField};
/// let plan = String::plan(&DType::from_descr("'>U2'")?)?;
/// assert_eq!(String::decode(&plan, &[0, 0, 0, b'h', 0, 0, 0, b'i']), "hi");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPlan {
    size: usize,
    swap: bool,
}

/// The plan of a sub-array field `[T; N]`: the plan of its elements and their stride.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, RecordField};
/// let plan = <[u8; 2]>::plan(&DType::from_descr("('|u1', (2,))")?)?;
/// assert_eq!(<[u8; 2]>::decode(&plan, &[4, 5]), [4, 5]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayPlan<P> {
    stride: usize,
    elem: P,
}

/// One field of a record as resolved against a file: its offset within the record and the
/// plan of its type. The derive builds a tuple of these for each struct; the methods are
/// the steps of its generated code.
///
/// # Examples
///
/// A hand-written record, as the derive writes it:
///
/// ```
/// use ndnpy::record::{record_dtype, record_of, FieldPlan};
/// use ndnpy::{DType, Error, RecordField};
///
/// struct Pair { a: u8, b: i16 }
///
/// impl RecordField for Pair {
///     type Plan = (FieldPlan<<u8 as RecordField>::Plan>, FieldPlan<<i16 as RecordField>::Plan>);
///     fn npy_dtype(_len: Option<usize>) -> DType {
///         record_dtype(vec![("a", u8::npy_dtype(None)), ("b", i16::npy_dtype(None))])
///     }
///     fn plan(found: &DType) -> Result<Self::Plan, Error> {
///         let record = record_of::<Self>(found, &["a", "b"])?;
///         Ok((FieldPlan::resolve::<u8>(record, "a")?, FieldPlan::resolve::<i16>(record, "b")?))
///     }
///     fn decode(plan: &Self::Plan, bytes: &[u8]) -> Self {
///         Pair { a: plan.0.decode::<u8>(bytes), b: plan.1.decode::<i16>(bytes) }
///     }
///     fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error> {
///         plan.0.encode(&self.a, out, "a")?;
///         plan.1.encode(&self.b, out, "b")
///     }
/// }
///
/// // A file with the fields the other way round, padded, big-endian.
/// let found = DType::from_descr("[('b', '>i2'), ('', '|V2'), ('a', '|u1')]")?;
/// let plan = Pair::plan(&found)?;
/// let p = Pair::decode(&plan, &[1, 2, 0, 0, 9]);
/// assert_eq!((p.a, p.b), (9, 258));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlan<P> {
    offset: usize,
    plan: P,
}

impl<P> FieldPlan<P> {
    /// Resolves the field `name` of `record` (matched by name, then by title) as a `T`.
    ///
    /// # Errors
    ///
    /// [`MismatchError::MissingFields`] if there is no such field; the errors of
    /// [`RecordField::plan`], with `name` prefixed to the field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::FieldPlan;
    /// use ndnpy::DType;
    /// let d = DType::from_descr("[('', '|V4'), (('Title', 'x'), '<f4')]")?;
    /// let record = d.as_record().unwrap();
    /// assert_eq!(FieldPlan::resolve::<f32>(record, "x")?.offset(), 4);
    /// assert_eq!(FieldPlan::resolve::<f32>(record, "Title")?.offset(), 4);
    /// assert!(FieldPlan::resolve::<f64>(record, "x").is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn resolve<T: RecordField<Plan = P>>(record: &Record, name: &str) -> Result<Self, Error> {
        let field = find_field(record, name).ok_or_else(|| missing::<T>(record, &[name]))?;
        let plan = T::plan(&field.dtype).map_err(|e| in_field(e, name))?;
        Ok(FieldPlan {
            offset: field.offset,
            plan,
        })
    }

    /// The field's byte offset within the record.
    ///
    /// ```
    /// use ndnpy::record::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '<i8'), ('b', '|u1')]")?;
    /// assert_eq!(FieldPlan::resolve::<u8>(d.as_record().unwrap(), "b")?.offset(), 8);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Runs `T`'s [`check`](RecordField::check) on this field of `record` (the whole
    /// record's bytes); nothing when `T` needs no check.
    ///
    /// # Errors
    ///
    /// [`FormatError::InvalidField`], with `name` prefixed to the field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('ok', '|b1')]")?;
    /// let ok = FieldPlan::resolve::<bool>(d.as_record().unwrap(), "ok")?;
    /// assert!(ok.check::<bool>(&[7, 1], "ok").is_ok());
    /// let err = ok.check::<bool>(&[7, 2], "ok").unwrap_err();
    /// assert_eq!(err.to_string(), "record 0, field 'ok': byte 0x02 is not a bool; expected 0x00 or 0x01");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn check<T: RecordField<Plan = P>>(&self, record: &[u8], name: &str) -> Result<(), Error> {
        if !T::NEEDS_CHECK {
            return Ok(());
        }
        T::check(&self.plan, record.get(self.offset..).unwrap_or(&[]))
            .map_err(|e| in_field(e, name))
    }

    /// Decodes this field of `record` (the whole record's bytes) as a `T`.
    ///
    /// ```
    /// use ndnpy::record::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('b', '>u2')]")?;
    /// let b = FieldPlan::resolve::<u16>(d.as_record().unwrap(), "b")?;
    /// assert_eq!(b.decode::<u16>(&[9, 1, 0]), 256);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn decode<T: RecordField<Plan = P>>(&self, record: &[u8]) -> T {
        T::decode(&self.plan, record.get(self.offset..).unwrap_or(&[]))
    }

    /// Encodes `value` into this field of `out` (the whole record's bytes).
    ///
    /// # Errors
    ///
    /// [`UsageError::FieldValue`] if the value does not fit, with `name` prefixed to the
    /// field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('s', '|S3')]")?;
    /// let s = FieldPlan::resolve::<Vec<u8>>(d.as_record().unwrap(), "s")?;
    /// let mut out = [0u8; 4];
    /// s.encode(&b"ab".to_vec(), &mut out, "s")?;
    /// assert_eq!(out, [0, b'a', b'b', 0]);
    /// assert!(s.encode(&b"abcd".to_vec(), &mut out, "s").is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn encode<T: RecordField<Plan = P>>(
        &self,
        value: &T,
        out: &mut [u8],
        name: &str,
    ) -> Result<(), Error> {
        let len = out.len();
        match out.get_mut(self.offset..) {
            Some(slot) => value.encode(&self.plan, slot),
            None => Err(short_slot(len, self.offset)),
        }
        .map_err(|e| in_field(e, name))
    }
}

/// The packed record dtype of `fields` (name, dtype) in order, as numpy builds it from a
/// list of `(name, format)` pairs: each field right after the previous one, no padding.
///
/// # Panics
///
/// If two fields share a name, or the record's size overflows `isize::MAX` bytes. The derive
/// refuses duplicate names at compile time.
///
/// # Examples
///
/// ```
/// use ndnpy::record::record_dtype;
/// use ndnpy::DType;
/// let d = record_dtype(vec![("a", DType::from_descr("'<i4'")?), ("b", DType::from_descr("'|S3'")?)]);
/// assert_eq!(d.descr(), "[('a', '<i4'), ('b', '|S3')]");
/// assert_eq!(d.itemsize(), 7);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn record_dtype(fields: Vec<(&str, DType)>) -> DType {
    let mut offset = 0usize;
    let mut out = Vec::with_capacity(fields.len());
    for (name, dtype) in fields {
        let size = dtype.itemsize();
        out.push(Field {
            name: name.to_string(),
            title: None,
            dtype,
            offset,
        });
        offset = offset
            .checked_add(size)
            .filter(|&n| n <= isize::MAX as usize)
            .unwrap_or_else(|| panic!("record size overflows isize::MAX at field {name:?}"));
    }
    match Record::new(out, offset) {
        Ok(r) => DType::Record(r),
        Err(e) => panic!("invalid record type: {e}"),
    }
}

/// The record `found` is, after checking it has every field in `names` (by name or title).
///
/// # Errors
///
/// [`MismatchError::DType`] if `found` is not a record; [`MismatchError::MissingFields`]
/// listing the names it lacks and the names it has.
///
/// # Examples
///
/// ```
/// use ndnpy::record::record_of;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '<i4'), ('c', '<i4')]")?;
/// assert!(record_of::<()>(&d, &["c", "a"]).is_ok());
/// let err = record_of::<()>(&d, &["a", "b"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "record type () needs fields ['b'] that the file's record lacks; the file's fields are ['a', 'c']"
/// );
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn record_of<'d, T>(found: &'d DType, names: &[&str]) -> Result<&'d Record, Error> {
    let DType::Record(record) = found else {
        return Err(MismatchError::DType {
            requested: type_name::<T>(),
            found: found.clone(),
        }
        .into());
    };
    let absent: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| find_field(record, n).is_none())
        .collect();
    if !absent.is_empty() {
        return Err(missing::<T>(record, &absent));
    }
    Ok(record)
}

/// The record `found` is, after checking its size is `size_of::<T>()` (for views).
///
/// # Errors
///
/// [`MismatchError::DType`] if `found` is not a record; [`MismatchError::Layout`] if its
/// size differs.
///
/// # Examples
///
/// ```
/// use ndnpy::record::layout_of;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '<i4'), ('b', '<i4')]")?;
/// assert!(layout_of::<[i32; 2]>(&d).is_ok());
/// assert!(layout_of::<[i32; 3]>(&d).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn layout_of<T>(found: &DType) -> Result<&Record, Error> {
    let DType::Record(record) = found else {
        return Err(MismatchError::DType {
            requested: type_name::<T>(),
            found: found.clone(),
        }
        .into());
    };
    if record.itemsize() != size_of::<T>() {
        return Err(layout::<T>(
            found,
            format!(
                "the file's records are {} bytes, the Rust type's {}",
                record.itemsize(),
                size_of::<T>()
            ),
        ));
    }
    Ok(record)
}

/// Checks that the field `name` of `record` (by name or title) lies at `offset` (the Rust
/// field's offset) and has `T`'s layout: a step of the derive's
/// [`PlainField::check_layout`].
///
/// # Errors
///
/// [`MismatchError::Layout`] if the field is missing or elsewhere; the errors of `T`'s
/// [`PlainField::check_layout`].
///
/// # Examples
///
/// ```
/// use ndnpy::record::layout_field;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '=i4'), ('b', '=i4')]")?;
/// let r = d.as_record().unwrap();
/// assert!(layout_field::<i32, ()>(r, "b", 4).is_ok());
/// let err = layout_field::<i32, ()>(r, "b", 0).unwrap_err();
/// assert!(err.to_string().contains("field 'b' is at offset 4 in the file and 0 in the Rust type"));
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn layout_field<T: PlainField, R>(
    record: &Record,
    name: &str,
    offset: usize,
) -> Result<(), Error> {
    let whole = || DType::Record(record.clone());
    let Some(field) = find_field(record, name) else {
        return Err(layout::<R>(
            &whole(),
            format!("the file has no field {}", quoted(name)),
        ));
    };
    if field.offset != offset {
        return Err(layout::<R>(
            &whole(),
            format!(
                "field {} is at offset {} in the file and {offset} in the Rust type",
                quoted(name),
                field.offset
            ),
        ));
    }
    T::check_layout(&field.dtype).map_err(|e| match e {
        Error::Mismatch(MismatchError::Layout { reason, .. }) => {
            layout::<R>(&whole(), format!("in field {}: {reason}", quoted(name)))
        }
        Error::Mismatch(MismatchError::DType { requested, found }) => layout::<R>(
            &whole(),
            format!(
                "field {} is {found} in the file, {requested} in the Rust type",
                quoted(name)
            ),
        ),
        other => other,
    })
}

/// The field `name` of `record`, matched by name, then by title.
fn find_field<'r>(record: &'r Record, name: &str) -> Option<&'r Field> {
    record.field(name).or_else(|| {
        record
            .fields()
            .iter()
            .find(|f| f.title.as_deref() == Some(name))
    })
}

fn missing<T>(record: &Record, names: &[&str]) -> Error {
    MismatchError::MissingFields {
        field: String::new(),
        requested: type_name::<T>(),
        missing: names.iter().map(|n| n.to_string()).collect(),
        found: record.fields().iter().map(|f| f.name.clone()).collect(),
    }
    .into()
}

fn layout<T>(found: &DType, reason: String) -> Error {
    MismatchError::Layout {
        requested: type_name::<T>(),
        found: found.clone(),
        reason,
    }
    .into()
}

fn quoted(name: &str) -> String {
    let mut out = String::new();
    crate::pyrepr::repr_str(name, &mut out);
    out
}

fn mismatch<T>(found: &DType) -> Error {
    MismatchError::DType {
        requested: type_name::<T>(),
        found: found.clone(),
    }
    .into()
}

/// A value error at this field (the record index and path are filled in on the way out).
fn invalid(reason: String) -> Error {
    FormatError::InvalidField {
        index: 0,
        field: String::new(),
        reason,
    }
    .into()
}

fn unfit(reason: String) -> Error {
    UsageError::FieldValue {
        index: 0,
        field: String::new(),
        reason,
    }
    .into()
}

fn short_slot(have: usize, need: usize) -> Error {
    unfit(format!(
        "the output holds {have} bytes for a field that needs more than {need}"
    ))
}

/// The first `N` bytes of `bytes`, or zeros if there are fewer.
#[inline(always)]
fn head<const N: usize>(bytes: &[u8]) -> [u8; N] {
    match bytes.first_chunk::<N>() {
        Some(b) => *b,
        None => [0; N],
    }
}

/// Copies `b` to the start of `out`.
#[inline(always)]
fn put(out: &mut [u8], b: &[u8]) -> Result<(), Error> {
    let have = out.len();
    match out.get_mut(..b.len()) {
        Some(dst) => {
            dst.copy_from_slice(b);
            Ok(())
        }
        None => Err(short_slot(have, b.len())),
    }
}

fn scalar_plan<T>(found: &DType, kind: ScalarKind, size: usize) -> Result<ScalarPlan, Error> {
    match found {
        DType::Scalar(s) if s.kind() == kind && s.size() == size && s.unit().is_none() => {
            Ok(ScalarPlan {
                swap: s.byte_order().needs_swap(),
            })
        }
        _ => Err(mismatch::<T>(found)),
    }
}

fn native_scalar<T>(found: &DType, kind: ScalarKind, size: usize) -> Result<(), Error> {
    if scalar_plan::<T>(found, kind, size)?.swap {
        return Err(MismatchError::ByteOrder {
            found: found.clone(),
        }
        .into());
    }
    Ok(())
}

macro_rules! number_field {
    ($($ty:ty => $kind:ident, $size:literal, $bits:ty, $from:expr, $to:expr;)*) => {$(
        impl RecordField for $ty {
            type Plan = ScalarPlan;

            fn npy_dtype(_len: Option<usize>) -> DType {
                <$ty as FixedDType>::dtype()
            }

            fn plan(found: &DType) -> Result<ScalarPlan, Error> {
                scalar_plan::<$ty>(found, ScalarKind::$kind, $size)
            }

            #[inline(always)]
            fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
                // One load and, for the other byte order, one `bswap`.
                let bits = <$bits>::from_ne_bytes(head::<$size>(bytes));
                let bits = if plan.swap { bits.swap_bytes() } else { bits };
                let from: fn($bits) -> $ty = $from;
                from(bits)
            }

            #[inline(always)]
            fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
                let to: fn(&$ty) -> $bits = $to;
                let bits = to(self);
                let bits = if plan.swap { bits.swap_bytes() } else { bits };
                put(out, &bits.to_ne_bytes())
            }
        }

        // SAFETY: every bit pattern of these numbers is a valid value, without padding or
        // interior mutability; `check_layout` accepts only the scalar of this kind and size
        // in native order, whose itemsize is `size_of::<$ty>()` (asserted in the element
        // impls).
        unsafe impl PlainField for $ty {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                native_scalar::<$ty>(found, ScalarKind::$kind, $size)
            }
        }
    )*};
}

number_field! {
    i8 => Int, 1, u8, |b| b as i8, |x| *x as u8;
    u8 => UInt, 1, u8, |b| b, |x| *x;
    i16 => Int, 2, u16, |b| b as i16, |x| *x as u16;
    u16 => UInt, 2, u16, |b| b, |x| *x;
    i32 => Int, 4, u32, |b| b as i32, |x| *x as u32;
    u32 => UInt, 4, u32, |b| b, |x| *x;
    i64 => Int, 8, u64, |b| b as i64, |x| *x as u64;
    u64 => UInt, 8, u64, |b| b, |x| *x;
    f32 => Float, 4, u32, f32::from_bits, |x| x.to_bits();
    f64 => Float, 8, u64, f64::from_bits, |x| x.to_bits();
}

number_field! {
    half::f16 => Float, 2, u16, half::f16::from_bits, |x| x.to_bits();
}

macro_rules! complex_field {
    ($($float:ty => $size:literal, $half:literal;)*) => {$(
        /// A complex number: two floats, each swapped on its own.
        impl RecordField for num_complex::Complex<$float> {
            type Plan = ScalarPlan;

            fn npy_dtype(_len: Option<usize>) -> DType {
                <Self as FixedDType>::dtype()
            }

            fn plan(found: &DType) -> Result<ScalarPlan, Error> {
                scalar_plan::<Self>(found, ScalarKind::Complex, $size)
            }

            #[inline(always)]
            fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
                let re = <$float>::decode(plan, bytes);
                let im = <$float>::decode(plan, bytes.get($half..).unwrap_or(&[]));
                num_complex::Complex::new(re, im)
            }

            #[inline(always)]
            fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
                self.re.encode(plan, out)?;
                let have = out.len();
                match out.get_mut($half..) {
                    Some(rest) => self.im.encode(plan, rest),
                    None => Err(short_slot(have, $size)),
                }
            }
        }

        // SAFETY: `Complex` is #[repr(C)] { re, im } of two floats: every bit pattern is
        // valid, no padding, no interior mutability; `check_layout` accepts only the native
        // complex dtype of this size, which is `size_of::<Complex<$float>>()`.
        unsafe impl PlainField for num_complex::Complex<$float> {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                native_scalar::<Self>(found, ScalarKind::Complex, $size)
            }
        }
    )*};
}

complex_field! {
    f32 => 8, 4;
    f64 => 16, 8;
}

/// `bool`: one byte, 0 or 1; other bytes are a [`FormatError::InvalidField`].
impl RecordField for bool {
    type Plan = ScalarPlan;
    const NEEDS_CHECK: bool = true;

    fn npy_dtype(_len: Option<usize>) -> DType {
        <bool as FixedDType>::dtype()
    }

    fn plan(found: &DType) -> Result<ScalarPlan, Error> {
        scalar_plan::<bool>(found, ScalarKind::Bool, 1)
    }

    #[inline(always)]
    fn check(_plan: &ScalarPlan, bytes: &[u8]) -> Result<(), Error> {
        match bytes.first() {
            Some(0 | 1) => Ok(()),
            Some(b) => Err(invalid(format!(
                "byte {b:#04x} is not a bool; expected 0x00 or 0x01"
            ))),
            None => Err(invalid("no byte for a bool".into())),
        }
    }

    #[inline(always)]
    fn decode(_plan: &ScalarPlan, bytes: &[u8]) -> Self {
        matches!(bytes.first(), Some(&b) if b != 0)
    }

    #[inline(always)]
    fn encode(&self, _plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
        put(out, &[u8::from(*self)])
    }
}

// SAFETY: a bool is one byte, valid when 0 or 1, which `RecordField::check` verifies (and
// zero is `false`); `check_layout` accepts only `|b1`, one byte.
unsafe impl PlainField for bool {
    const HAS_PADDING: bool = false;

    fn check_layout(found: &DType) -> Result<(), Error> {
        native_scalar::<bool>(found, ScalarKind::Bool, 1)
    }
}

/// A text dtype of `len` units of `kind` (`Bytes` or `Unicode`) in native order.
fn text_dtype(kind: ScalarKind, len: Option<usize>, unit: usize) -> DType {
    let size = len
        .unwrap_or(0)
        .checked_mul(unit)
        .filter(|&n| n <= isize::MAX as usize)
        .unwrap_or_else(|| panic!("string length {len:?} overflows isize::MAX bytes"));
    match Scalar::new(kind, ByteOrder::NATIVE, size, None) {
        Ok(s) => DType::Scalar(s),
        Err(e) => panic!("invalid string dtype: {e}"),
    }
}

fn text_plan<T>(found: &DType, kind: ScalarKind) -> Result<TextPlan, Error> {
    match found {
        DType::Scalar(s) if s.kind() == kind => Ok(TextPlan {
            size: s.size(),
            swap: s.byte_order().needs_swap(),
        }),
        _ => Err(mismatch::<T>(found)),
    }
}

/// The code units of a `U` field, in native order.
fn ucs4_units<'a>(plan: &TextPlan, bytes: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
    let swap = plan.swap;
    let end = plan.size.min(bytes.len());
    bytes[..end].chunks_exact(4).map(move |c| {
        let u = u32::from_ne_bytes(head(c));
        if swap {
            u.swap_bytes()
        } else {
            u
        }
    })
}

/// `String`: a numpy `U` field of `#[npy(len = N)]` characters (`'<UN'`, UCS-4). Reading
/// accepts any length in the file and drops trailing NULs, as numpy does; writing pads with
/// NULs and refuses a string of more than `N` characters.
impl RecordField for String {
    type Plan = TextPlan;
    const TAKES_LEN: bool = true;
    const NEEDS_CHECK: bool = true;

    fn npy_dtype(len: Option<usize>) -> DType {
        text_dtype(ScalarKind::Unicode, len, 4)
    }

    fn plan(found: &DType) -> Result<TextPlan, Error> {
        text_plan::<String>(found, ScalarKind::Unicode)
    }

    fn check(plan: &TextPlan, bytes: &[u8]) -> Result<(), Error> {
        for (i, u) in ucs4_units(plan, bytes).enumerate() {
            if char::from_u32(u).is_none() {
                return Err(invalid(format!(
                    "character {i} is code point {u:#x}, not a Unicode scalar value"
                )));
            }
        }
        Ok(())
    }

    fn decode(plan: &TextPlan, bytes: &[u8]) -> Self {
        let n = ucs4_units(plan, bytes)
            .enumerate()
            .filter(|&(_, u)| u != 0)
            .last()
            .map_or(0, |(i, _)| i + 1);
        ucs4_units(plan, bytes)
            .take(n)
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    fn encode(&self, plan: &TextPlan, out: &mut [u8]) -> Result<(), Error> {
        let cap = plan.size / 4;
        let have = out.len();
        let Some(slot) = out.get_mut(..plan.size) else {
            return Err(short_slot(have, plan.size));
        };
        let mut chars = self.chars();
        for unit in slot.chunks_exact_mut(4) {
            let u = chars.next().map_or(0, u32::from);
            let u = if plan.swap { u.swap_bytes() } else { u };
            unit.copy_from_slice(&u.to_ne_bytes());
        }
        if chars.next().is_some() {
            return Err(unfit(format!(
                "a string of {} characters does not fit in dtype '{}U{cap}'",
                self.chars().count(),
                order_char(plan.swap)
            )));
        }
        Ok(())
    }
}

fn order_char(swap: bool) -> char {
    match (ByteOrder::NATIVE, swap) {
        (o, false) => o.as_char(),
        (ByteOrder::Little, true) => '>',
        _ => '<',
    }
}

/// `Vec<u8>`: a numpy `S` field of `#[npy(len = N)]` bytes (`'|SN'`). Reading accepts any
/// length in the file and drops trailing NULs, as numpy does; writing pads with NULs and
/// refuses more than `N` bytes.
impl RecordField for Vec<u8> {
    type Plan = TextPlan;
    const TAKES_LEN: bool = true;

    fn npy_dtype(len: Option<usize>) -> DType {
        text_dtype(ScalarKind::Bytes, len, 1)
    }

    fn plan(found: &DType) -> Result<TextPlan, Error> {
        text_plan::<Vec<u8>>(found, ScalarKind::Bytes)
    }

    fn decode(plan: &TextPlan, bytes: &[u8]) -> Self {
        let field = &bytes[..plan.size.min(bytes.len())];
        let end = field.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        field[..end].to_vec()
    }

    fn encode(&self, plan: &TextPlan, out: &mut [u8]) -> Result<(), Error> {
        if self.len() > plan.size {
            return Err(unfit(format!(
                "{} bytes do not fit in dtype '|S{}'",
                self.len(),
                plan.size
            )));
        }
        let have = out.len();
        let Some(slot) = out.get_mut(..plan.size) else {
            return Err(short_slot(have, plan.size));
        };
        let (data, pad) = slot.split_at_mut(self.len());
        data.copy_from_slice(self);
        pad.fill(0);
        Ok(())
    }
}

/// `FixedBytes<N>`: a numpy `|SN` field of exactly `N` bytes, kept as stored (NUL padding
/// included). Fixed-size, so records holding it can be read in one copy and viewed in place.
///
/// ```
/// use ndnpy::{DType, FixedBytes, RecordField};
/// let plan = FixedBytes::<3>::plan(&DType::from_descr("'|S3'")?)?;
/// assert_eq!(FixedBytes::<3>::decode(&plan, b"ab\0").as_bytes(), b"ab");
/// assert!(FixedBytes::<3>::plan(&DType::from_descr("'|S4'")?).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
impl<const N: usize> RecordField for FixedBytes<N> {
    type Plan = ScalarPlan;

    fn npy_dtype(_len: Option<usize>) -> DType {
        <Self as FixedDType>::dtype()
    }

    fn plan(found: &DType) -> Result<ScalarPlan, Error> {
        scalar_plan::<Self>(found, ScalarKind::Bytes, N)
    }

    #[inline(always)]
    fn decode(_plan: &ScalarPlan, bytes: &[u8]) -> Self {
        FixedBytes(head(bytes))
    }

    #[inline(always)]
    fn encode(&self, _plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
        put(out, &self.0)
    }
}

// SAFETY: FixedBytes<N> is #[repr(transparent)] over [u8; N]: N bytes, any value valid, no
// padding, no interior mutability; `check_layout` accepts only `|SN`, N bytes.
unsafe impl<const N: usize> PlainField for FixedBytes<N> {
    const HAS_PADDING: bool = false;

    fn check_layout(found: &DType) -> Result<(), Error> {
        native_scalar::<Self>(found, ScalarKind::Bytes, N)
    }
}

/// `FixedUnicode<N>`: a numpy `<UN` field of exactly `N` code units, swapped to native order
/// on reading. Code units are not checked here ([`FixedUnicode::to_string`] does), so
/// records holding it can be read in one copy and viewed in place.
///
/// ```
/// use ndnpy::{DType, FixedUnicode, RecordField};
/// let plan = FixedUnicode::<2>::plan(&DType::from_descr("'>U2'")?)?;
/// let v = FixedUnicode::<2>::decode(&plan, &[0, 0, 0, b'h', 0, 0, 0, b'i']);
/// assert_eq!(v.to_string()?, "hi");
/// # Ok::<(), ndnpy::Error>(())
/// ```
impl<const N: usize> RecordField for FixedUnicode<N> {
    type Plan = ScalarPlan;

    fn npy_dtype(_len: Option<usize>) -> DType {
        <Self as FixedDType>::dtype()
    }

    fn plan(found: &DType) -> Result<ScalarPlan, Error> {
        scalar_plan::<Self>(found, ScalarKind::Unicode, 4 * N)
    }

    fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
        let mut units = [0u32; N];
        for (u, b) in units.iter_mut().zip(bytes.chunks_exact(4)) {
            let v = u32::from_ne_bytes(head(b));
            *u = if plan.swap { v.swap_bytes() } else { v };
        }
        FixedUnicode(units)
    }

    fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
        let have = out.len();
        let Some(slot) = out.get_mut(..4 * N) else {
            return Err(short_slot(have, 4 * N));
        };
        for (b, u) in slot.chunks_exact_mut(4).zip(self.0) {
            let v = if plan.swap { u.swap_bytes() } else { u };
            b.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    }
}

// SAFETY: FixedUnicode<N> is #[repr(transparent)] over [u32; N]: any bytes are valid, no
// padding, no interior mutability; `check_layout` accepts only native-order `UN`, 4N bytes.
unsafe impl<const N: usize> PlainField for FixedUnicode<N> {
    const HAS_PADDING: bool = false;

    fn check_layout(found: &DType) -> Result<(), Error> {
        native_scalar::<Self>(found, ScalarKind::Unicode, 4 * N)
    }
}

/// The dtype of `n` elements of `elem`: one more outer dimension for a sub-array element, as
/// numpy writes `('y', '<f8', (2, 2))`.
fn sub_array(elem: DType, n: usize) -> DType {
    let (base, shape) = match elem {
        DType::SubArray(s) => {
            let mut shape = Vec::with_capacity(s.shape().len() + 1);
            shape.push(n);
            shape.extend_from_slice(s.shape());
            (s.base().clone(), shape)
        }
        other => (other, vec![n]),
    };
    match SubArray::new(base, shape) {
        Ok(s) => DType::SubArray(Box::new(s)),
        Err(e) => panic!("sub-array type too large: {e}"),
    }
}

/// The element dtype of `found` seen as `n` elements: a sub-array whose first dimension is
/// `n`, minus that dimension.
fn peel(found: &DType, n: usize) -> Option<DType> {
    let DType::SubArray(s) = found else {
        return None;
    };
    let (&first, rest) = s.shape().split_first()?;
    if first != n {
        return None;
    }
    if rest.is_empty() {
        Some(s.base().clone())
    } else {
        SubArray::new(s.base().clone(), rest.to_vec())
            .ok()
            .map(|s| DType::SubArray(Box::new(s)))
    }
}

/// The bytes of element `i` of a sub-array (empty if out of range).
#[inline(always)]
fn elem_bytes(bytes: &[u8], i: usize, stride: usize) -> &[u8] {
    i.checked_mul(stride)
        .and_then(|o| bytes.get(o..))
        .unwrap_or(&[])
}

/// `[T; N]`: a sub-array field of `N` elements of `T`. Nested arrays give multi-dimensional
/// sub-arrays: `[[f64; 2]; 3]` is `('<f8', (3, 2))`; reading also accepts numpy's
/// sub-array-of-sub-array spelling `(('<f8', (2,)), (3,))`.
impl<T: RecordField, const N: usize> RecordField for [T; N] {
    type Plan = ArrayPlan<T::Plan>;
    const TAKES_LEN: bool = T::TAKES_LEN;
    const NEEDS_CHECK: bool = T::NEEDS_CHECK;

    fn npy_dtype(len: Option<usize>) -> DType {
        sub_array(T::npy_dtype(len), N)
    }

    fn plan(found: &DType) -> Result<Self::Plan, Error> {
        let elem = peel(found, N).ok_or_else(|| mismatch::<Self>(found))?;
        let plan = T::plan(&elem).map_err(|e| match e {
            // Report the whole field, not the element, when its type is wrong.
            Error::Mismatch(MismatchError::DType { .. }) => mismatch::<Self>(found),
            other => other,
        })?;
        Ok(ArrayPlan {
            stride: elem.itemsize(),
            elem: plan,
        })
    }

    fn check(plan: &Self::Plan, bytes: &[u8]) -> Result<(), Error> {
        for i in 0..N {
            T::check(&plan.elem, elem_bytes(bytes, i, plan.stride))
                .map_err(|e| in_field(e, &format!("[{i}]")))?;
        }
        Ok(())
    }

    #[inline]
    fn decode(plan: &Self::Plan, bytes: &[u8]) -> Self {
        std::array::from_fn(|i| T::decode(&plan.elem, elem_bytes(bytes, i, plan.stride)))
    }

    #[inline]
    fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error> {
        for (i, v) in self.iter().enumerate() {
            let have = out.len();
            let slot = i
                .checked_mul(plan.stride)
                .and_then(|o| out.get_mut(o..))
                .ok_or_else(|| short_slot(have, i.saturating_mul(plan.stride)))?;
            v.encode(&plan.elem, slot)
                .map_err(|e| in_field(e, &format!("[{i}]")))?;
        }
        Ok(())
    }
}

// SAFETY: an array of plain values is plain: its elements lie `size_of::<T>()` apart with no
// bytes between them, so it has padding only where `T` has; `check_layout` accepts a
// sub-array of `N` elements whose element dtype `T` accepts, i.e. of itemsize
// `size_of::<T>()`, so the whole is `N * size_of::<T>()` bytes; `check` checks every element.
unsafe impl<T: PlainField, const N: usize> PlainField for [T; N] {
    const HAS_PADDING: bool = T::HAS_PADDING;

    fn check_layout(found: &DType) -> Result<(), Error> {
        let elem = peel(found, N).ok_or_else(|| mismatch::<Self>(found))?;
        T::check_layout(&elem).map_err(|e| match e {
            Error::Mismatch(MismatchError::DType { .. }) => mismatch::<Self>(found),
            other => other,
        })
    }
}

/// Bytes of file data decoded per step.
const CHUNK: usize = 256 << 10;

/// Reads `len` records stored as `dtype` from `reader`: the [`ReadableElement`]
/// implementation of every `#[derive(NpyRecord)]` struct.
///
/// The plan is made once; the data is read in 256 KiB chunks into one reusable buffer and
/// decoded record by record. With `available` (the bytes left in the input) the result is
/// allocated once, after checking the bytes are there; without it, it grows with the records
/// that really arrive.
///
/// # Errors
///
/// As [`ReadableElement::read_vec`]: [`Error::Mismatch`] if `dtype` does not hold `T`'s
/// fields; [`FormatError::Truncated`] if the data is short; [`FormatError::InvalidField`]
/// for invalid bytes (with the record index and field path).
///
/// # Examples
///
/// ```
/// use ndnpy::{record, DType, NpyRecord};
///
/// #[derive(NpyRecord, Debug, PartialEq)]
/// struct Sample {
///     t: u16,
///     ok: bool,
/// }
///
/// let dtype = DType::from_descr("[('ok', '|b1'), ('t', '>u2')]")?;
/// let data = [1u8, 0, 7, 0, 1, 8];
/// let v: Vec<Sample> = record::read_vec(&mut &data[..], &dtype, 2, None)?;
/// assert_eq!(v, [Sample { t: 7, ok: true }, Sample { t: 264, ok: false }]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_vec<T: RecordField, R: Read + ?Sized>(
    reader: &mut R,
    dtype: &DType,
    len: usize,
    available: Option<u64>,
) -> Result<Vec<T>, Error> {
    let plan = T::plan(dtype)?;
    let itemsize = dtype.itemsize();
    len.checked_mul(itemsize)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| FormatError::ShapeOverflow {
            shape: vec![len],
            itemsize,
        })?;
    // The shared chunked reader: its buffer grows with the bytes that arrive (a record may be
    // declared far larger than the input), and zero-size records are capped.
    pod::read_decoded(
        reader,
        len,
        itemsize,
        available,
        |chunk, first, count, out| {
            if itemsize == 0 {
                for i in 0..count {
                    if T::NEEDS_CHECK {
                        T::check(&plan, &[]).map_err(|e| at_record(e, (first + i) as u64))?;
                    }
                    out.push(T::decode(&plan, &[]));
                }
                return Ok(());
            }
            if T::NEEDS_CHECK {
                for (i, rec) in chunk.chunks_exact(itemsize).enumerate() {
                    T::check(&plan, rec).map_err(|e| at_record(e, (first + i) as u64))?;
                }
            }
            // An exact-size iterator: `extend` writes in place without a capacity check per record.
            out.extend(
                chunk
                    .chunks_exact(itemsize)
                    .map(|rec| T::decode(&plan, rec)),
            );
            Ok(())
        },
    )
}

/// Reads `len` records of a plain type `T` stored as `dtype`: when the file's record layout
/// is exactly `T`'s ([`PlainField::check_layout`]), the data is read straight into the
/// array's memory, one copy like `np.load`, and checked in place (bools); otherwise as
/// [`read_vec`]. The [`ReadableElement`] implementation of `#[repr(C)]` records.
///
/// # Errors
///
/// As [`read_vec`].
///
/// # Examples
///
/// ```
/// use ndnpy::{record, DType, NpyRecord};
///
/// #[derive(NpyRecord, Debug, PartialEq)]
/// #[repr(C, packed)]
/// struct Flag {
///     on: bool,
///     id: u8,
/// }
///
/// let same = DType::from_descr("[('on', '|b1'), ('id', '|u1')]")?;
/// let other = DType::from_descr("[('id', '|u1'), ('on', '|b1')]")?;
/// let data = [1u8, 7, 0, 8];
/// let a: Vec<Flag> = record::read_vec_plain(&mut &data[..], &same, 2, Some(4))?;
/// // The fields the other way round: decoded field by field instead.
/// let b: Vec<Flag> = record::read_vec_plain(&mut &[7u8, 1, 8, 0][..], &other, 2, None)?;
/// assert_eq!(a, [Flag { on: true, id: 7 }, Flag { on: false, id: 8 }]);
/// assert_eq!(a, b);
/// assert!(record::read_vec_plain::<Flag, _>(&mut &[2u8, 0][..], &same, 1, None).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_vec_plain<T: PlainField, R: Read + ?Sized>(
    reader: &mut R,
    dtype: &DType,
    len: usize,
    available: Option<u64>,
) -> Result<Vec<T>, Error> {
    let size = size_of::<T>();
    if size == 0 || T::check_layout(dtype).is_err() {
        return read_vec(reader, dtype, len, available);
    }
    let plan = T::plan(dtype)?;
    len.checked_mul(size)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| FormatError::ShapeOverflow {
            shape: vec![len],
            itemsize: size,
        })?;
    // Straight into the array's memory: in cache-sized parts, each checked while in cache,
    // when records need checking (bools), else in one pass.
    let part = T::NEEDS_CHECK.then_some((CHUNK / size).max(1));
    // SAFETY: `check_layout` accepted `dtype`, so each record's bytes are laid out as `T`, and
    // those that pass `T::check` are valid `T`s by `PlainField`'s contract; `size > 0`.
    unsafe {
        pod::read_plain(reader, len, available, part, |first, bytes| {
            if T::NEEDS_CHECK {
                for (i, rec) in bytes.chunks_exact(size).enumerate() {
                    T::check(&plan, rec).map_err(|e| at_record(e, (first + i) as u64))?;
                }
            }
            Ok(())
        })
    }
}

/// Writes `slice` as records of `dtype` (a dtype from [`RecordField::npy_dtype`], in any byte
/// order): the [`WritableElement`] implementation of every `#[derive(NpyRecord)]` struct.
///
/// Records are encoded into a reusable 256 KiB buffer, one `write_all` per chunk. Bytes of
/// `dtype` that no field covers (padding) are written as zeros.
///
/// # Errors
///
/// [`Error::Io`] if writing fails; [`UsageError::FieldValue`] if a value does not fit its
/// field (with the record index and field path); [`Error::Mismatch`] if `dtype` does not hold
/// `T`'s fields.
///
/// # Examples
///
/// ```
/// use ndnpy::{record, ByteOrder, DType, NpyRecord, RecordField};
///
/// #[derive(NpyRecord)]
/// struct Id {
///     #[npy(len = 3)]
///     code: Vec<u8>,
///     n: u16,
/// }
///
/// let dtype = Id::npy_dtype(None).with_byte_order(ByteOrder::Big);
/// assert_eq!(dtype.descr(), "[('code', '|S3'), ('n', '>u2')]");
/// let mut out = Vec::new();
/// record::write_slice(&[Id { code: b"ab".to_vec(), n: 1 }], &mut out, &dtype)?;
/// assert_eq!(out, [b'a', b'b', 0, 0, 1]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn write_slice<T: RecordField, W: Write + ?Sized>(
    slice: &[T],
    writer: &mut W,
    dtype: &DType,
) -> Result<(), Error> {
    write_iter(slice.iter(), writer, dtype)
}

/// Writes the records of `iter` in order as `dtype`, like [`write_slice`].
///
/// # Errors
///
/// As [`write_slice`].
///
/// # Examples
///
/// ```
/// use ndnpy::{record, NpyRecord, RecordField};
///
/// #[derive(NpyRecord)]
/// struct B {
///     b: u8,
/// }
///
/// let items = [B { b: 1 }, B { b: 2 }, B { b: 3 }];
/// let mut out = Vec::new();
/// record::write_iter(items.iter().rev(), &mut out, &B::npy_dtype(None))?;
/// assert_eq!(out, [3, 2, 1]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn write_iter<'a, T, W, I>(iter: I, writer: &mut W, dtype: &DType) -> Result<(), Error>
where
    T: RecordField + 'a,
    W: Write + ?Sized,
    I: Iterator<Item = &'a T>,
{
    let plan = T::plan(dtype)?;
    let itemsize = dtype.itemsize();
    if itemsize == 0 {
        for (i, v) in iter.enumerate() {
            v.encode(&plan, &mut [])
                .map_err(|e| at_record(e, i as u64))?;
        }
        return Ok(());
    }
    let (lower, upper) = iter.size_hint();
    let per_chunk = (CHUNK / itemsize).max(1).min(upper.unwrap_or(lower).max(1));
    // Zeroed once, on the first record (the dtype may declare huge records for an empty
    // array): bytes no field covers stay zero in every chunk.
    let mut buf = Vec::new();
    let mut n = 0usize;
    for (i, v) in iter.enumerate() {
        if buf.is_empty() {
            buf.resize(per_chunk * itemsize, 0u8);
        }
        let rec = &mut buf[n * itemsize..(n + 1) * itemsize];
        v.encode(&plan, rec).map_err(|e| at_record(e, i as u64))?;
        n += 1;
        if n == per_chunk {
            writer.write_all(&buf)?;
            n = 0;
        }
    }
    if n > 0 {
        writer.write_all(&buf[..n * itemsize])?;
    }
    Ok(())
}

/// Checks that `bytes` can be viewed as `len` values of `T` stored as `dtype`.
fn check_view<T: PlainField>(bytes: &[u8], dtype: &DType, len: usize) -> Result<(), Error> {
    T::check_layout(dtype).map_err(|e| match e {
        // Name the whole record, not just the field found in the other order.
        Error::Mismatch(MismatchError::ByteOrder { .. }) => MismatchError::ByteOrder {
            found: dtype.clone(),
        }
        .into(),
        other => other,
    })?;
    let size = size_of::<T>();
    pod::check_len_align(bytes, len, size, align_of::<T>())?;
    if T::NEEDS_CHECK && size > 0 {
        let plan = T::plan(dtype)?;
        for (i, rec) in bytes.chunks_exact(size).enumerate() {
            T::check(&plan, rec).map_err(|e| at_record(e, i as u64))?;
        }
    }
    Ok(())
}

/// Views `bytes` (exactly `len` records of `dtype`) in place as `&[T]`: the
/// [`ViewElement`](crate::ViewElement) implementation of `#[repr(C)]` records.
///
/// # Errors
///
/// [`MismatchError::Layout`] if the file's record layout is not `T`'s (fields at other
/// offsets or in another order, another size, padding elsewhere);
/// [`MismatchError::ByteOrder`] if a field is not in native byte order;
/// [`MismatchError::Misaligned`] if `bytes` is not aligned for `T`;
/// [`FormatError::Truncated`] / [`FormatError::TrailingBytes`] for a wrong length;
/// [`FormatError::InvalidField`] for invalid bytes (a bool of 2).
///
/// # Examples
///
/// ```
/// use ndnpy::{record, DType, NpyRecord};
///
/// #[derive(NpyRecord)]
/// #[repr(C)]
/// struct Px {
///     rgb: [u8; 3],
///     alpha: u8,
/// }
///
/// let dtype = DType::from_descr("[('rgb', '|u1', (3,)), ('alpha', '|u1')]")?;
/// let bytes = [1, 2, 3, 255, 4, 5, 6, 128];
/// let px: &[Px] = record::view(&bytes, &dtype, 2)?;
/// assert_eq!((px[1].rgb, px[1].alpha), ([4, 5, 6], 128));
/// // Another field order is another layout: read it instead.
/// let swapped = DType::from_descr("[('alpha', '|u1'), ('rgb', '|u1', (3,))]")?;
/// assert!(record::view::<Px>(&bytes, &swapped, 2).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn view<'a, T: PlainField>(
    bytes: &'a [u8],
    dtype: &DType,
    len: usize,
) -> Result<&'a [T], Error> {
    check_view::<T>(bytes, dtype, len)?;
    if len == 0 || size_of::<T>() == 0 {
        // No bytes are viewed; a dangling, aligned pointer is valid for any number of
        // zero-sized values.
        // SAFETY: `T` is zero-sized (or `len` is 0), so the slice covers no memory; the
        // pointer is non-null and aligned for `T`.
        return Ok(unsafe {
            std::slice::from_raw_parts(std::ptr::NonNull::<T>::dangling().as_ptr(), len)
        });
    }
    // SAFETY: `check_view` verified that `bytes` is exactly `len * size_of::<T>()` long and
    // aligned for `T`, that the dtype has `T`'s layout (`T::check_layout`), and that every
    // record passed `T::check`; by `PlainField`'s contract those bytes are valid `T`s. `T` has
    // no interior mutability, and the result borrows `bytes` for 'a, so the memory is neither
    // freed nor mutated while viewed.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// Views `bytes` (exactly `len` records of `dtype`) in place as `&mut [T]`: the
/// [`ViewMutElement`](crate::ViewMutElement) implementation of `#[repr(C)]` records.
///
/// # Errors
///
/// As [`view`]; also [`MismatchError::Layout`] if `T` has padding bytes, which a store
/// through the view would leave uninitialised in the buffer.
///
/// # Examples
///
/// ```
/// use ndnpy::{record, DType, NpyRecord};
///
/// #[derive(NpyRecord)]
/// #[repr(C, packed)]
/// struct Hit {
///     id: u32,
///     hit: bool,
/// }
///
/// let n = ndnpy::ByteOrder::NATIVE.as_char();
/// let dtype = DType::from_descr(&format!("[('id', '{n}u4'), ('hit', '|b1')]"))?;
/// let mut bytes = [0u8; 10];
/// let hits: &mut [Hit] = record::view_mut(&mut bytes, &dtype, 2)?;
/// hits[1] = Hit { id: 7, hit: true };
/// assert_eq!(&bytes[5..], &[7u32.to_ne_bytes().as_slice(), &[1]].concat()[..]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn view_mut<'a, T: PlainField>(
    bytes: &'a mut [u8],
    dtype: &DType,
    len: usize,
) -> Result<&'a mut [T], Error> {
    if T::HAS_PADDING {
        return Err(layout::<T>(
            dtype,
            "the Rust type has padding bytes, which stores through a mutable view would leave \
             uninitialised (use a #[repr(C, packed)] struct or add explicit padding fields)"
                .to_string(),
        ));
    }
    check_view::<T>(bytes, dtype, len)?;
    if len == 0 || size_of::<T>() == 0 {
        // SAFETY: as in `view`: no memory is covered, the pointer is non-null and aligned.
        return Ok(unsafe {
            std::slice::from_raw_parts_mut(std::ptr::NonNull::<T>::dangling().as_ptr(), len)
        });
    }
    // SAFETY: as in `view`; in addition the exclusive borrow of `bytes` moves to the result,
    // and `T` has no padding bytes (checked above), so every byte stays initialised after any
    // store of a `T`, and the buffer holds valid bytes when the view ends.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::*;
    use crate::NpyRecord;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn native(descr: &str) -> DType {
        DType::from_descr(&descr.replace('=', &ByteOrder::NATIVE.as_char().to_string())).unwrap()
    }

    #[derive(NpyRecord, Debug, PartialEq)]
    #[repr(C)]
    struct Nothing {}

    #[derive(NpyRecord, Debug, PartialEq)]
    #[repr(C, align(8))]
    struct AlignedNothing {}

    #[test]
    fn zero_sized_views_use_no_bytes_at_any_address() {
        let dtype = DType::from_descr("[]").unwrap();
        let v: &[Nothing] = view(&[], &dtype, 5).unwrap();
        assert_eq!(v.len(), 5);
        // An empty slice at an odd address is still a valid view of zero-sized values.
        let backing = [0u8; 3];
        let odd = &backing[1..1];
        let v: &[AlignedNothing] = view(odd, &dtype, 7).unwrap();
        assert_eq!(v.len(), 7);
        assert_eq!(std::mem::size_of::<AlignedNothing>(), 0);
        let mut none: [u8; 0] = [];
        assert_eq!(view_mut::<Nothing>(&mut none, &dtype, 2).unwrap().len(), 2);
        // Zero-sized values still need exactly zero bytes.
        assert!(matches!(
            view::<Nothing>(&[0], &dtype, 1),
            Err(Error::Format(FormatError::TrailingBytes { .. }))
        ));
        // And a record dtype: padding-only records are not the empty struct's layout.
        assert!(view::<Nothing>(&[0; 8], &DType::from_descr("[('', '|V8')]").unwrap(), 1).is_err());
    }

    #[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
    #[repr(C)]
    struct Inner {
        b: [bool; 2],
        h: u16,
    }

    #[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
    #[repr(C)]
    struct Outer {
        x: u32,
        inner: [Inner; 2],
    }

    #[test]
    fn nested_plain_records_view_and_read_in_place() {
        const { assert!(!<Outer as PlainField>::HAS_PADDING) };
        const { assert!(<Counted as PlainField>::HAS_PADDING) };
        let dtype = native("[('x', '=u4'), ('inner', [('b', '|b1', (2,)), ('h', '=u2')], (2,))]");
        let mut bytes = Vec::new();
        for i in 0..3u32 {
            bytes.extend_from_slice(&i.to_ne_bytes());
            for j in 0..2u16 {
                bytes.extend_from_slice(&[1, 0]);
                bytes.extend_from_slice(&(j + 10).to_ne_bytes());
            }
        }
        let want = Outer {
            x: 2,
            inner: [
                Inner {
                    b: [true, false],
                    h: 10,
                },
                Inner {
                    b: [true, false],
                    h: 11,
                },
            ],
        };
        // Reads work from any buffer; the view needs a 4-aligned copy.
        let read: Vec<Outer> = read_vec_plain(&mut &bytes[..], &dtype, 3, None).unwrap();
        assert_eq!(read[2], want);
        let decoded: Vec<Outer> = read_vec(&mut &bytes[..], &dtype, 3, None).unwrap();
        assert_eq!(read, decoded);
        let mut aligned = vec![0u8; bytes.len() + 4];
        let start2 = aligned.as_ptr().align_offset(4);
        aligned[start2..start2 + bytes.len()].copy_from_slice(&bytes);
        let v: &[Outer] = view(&aligned[start2..start2 + bytes.len()], &dtype, 3).unwrap();
        assert_eq!(v[2], want);
        // An invalid bool deep inside is found before viewing.
        aligned[start2 + 12 * 2 + 4 + 4 + 1] = 9;
        let err = view::<Outer>(&aligned[start2..start2 + bytes.len()], &dtype, 3).unwrap_err();
        assert!(
            matches!(&err, Error::Format(FormatError::InvalidField { index: 2, field, .. }) if field == "inner[1].b[1]"),
            "{err:?}"
        );
    }

    static DROPS: AtomicUsize = AtomicUsize::new(0);

    #[derive(NpyRecord, Debug, PartialEq)]
    #[repr(C)]
    struct Counted {
        a: [u64; 511],
        ok: bool,
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn plain_reads_grow_with_a_stream_and_drop_only_checked_records() {
        let size = std::mem::size_of::<Counted>();
        assert_eq!(size, 4096);
        let dtype = native("[('a', '=u8', (511,)), ('ok', '|b1'), ('', '|V7')]");
        let n = 2500; // 39 parts of 64 records and a partial one; the capacity doubles 6 times
        let mut bytes = vec![0u8; n * size];
        for (i, rec) in bytes.chunks_exact_mut(size).enumerate() {
            rec[..8].copy_from_slice(&(i as u64).to_ne_bytes());
            rec[4088] = (i % 2) as u8;
            rec[4089..].fill(0xAA); // padding bytes: anything
        }
        let v: Vec<Counted> = read_vec_plain(&mut &bytes[..], &dtype, n, None).unwrap();
        assert_eq!(v.len(), n);
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, r)| r.a[0] == i as u64 && r.ok == (i % 2 == 1)));
        DROPS.store(0, Ordering::SeqCst);
        drop(v);
        assert_eq!(DROPS.load(Ordering::SeqCst), n);
        // With the length known the array is allocated at once from zeroed pages and read in
        // the same parts: the same values.
        let w: Vec<Counted> =
            read_vec_plain(&mut &bytes[..], &dtype, n, Some(bytes.len() as u64)).unwrap();
        assert_eq!((w.len(), w.capacity()), (n, n));
        assert!(w
            .iter()
            .enumerate()
            .all(|(i, r)| r.a[0] == i as u64 && r.ok == (i % 2 == 1) && r.a[1..] == [0; 510]));
        drop(w);
        // An input that ends before the length it claimed: truncated, checked records dropped.
        DROPS.store(0, Ordering::SeqCst);
        let half = &bytes[..1000 * size + 5];
        let err = read_vec_plain::<Counted, _>(&mut &half[..], &dtype, n, Some(bytes.len() as u64))
            .unwrap_err();
        assert!(
            matches!(err, Error::Format(FormatError::Truncated { found, .. }) if found == half.len() as u64),
            "{err:?}"
        );
        assert_eq!(DROPS.load(Ordering::SeqCst), 960);
        // An invalid bool in the third piece: the records of the first two are dropped, the
        // unchecked ones never become values.
        bytes[2100 * size + 4088] = 2;
        DROPS.store(0, Ordering::SeqCst);
        let err = read_vec_plain::<Counted, _>(&mut &bytes[..], &dtype, n, None).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Format(FormatError::InvalidField { index: 2100, .. })
            ),
            "{err:?}"
        );
        assert_eq!(DROPS.load(Ordering::SeqCst), 2048);
        // The same with the length known: allocated at once, read and checked in the same
        // parts.
        DROPS.store(0, Ordering::SeqCst);
        let err =
            read_vec_plain::<Counted, _>(&mut &bytes[..], &dtype, n, Some(bytes.len() as u64))
                .unwrap_err();
        assert!(matches!(
            err,
            Error::Format(FormatError::InvalidField { index: 2100, .. })
        ));
        assert_eq!(DROPS.load(Ordering::SeqCst), 2048);
        // Truncated streams, in the first piece and later.
        bytes[2100 * size + 4088] = 0;
        for cut in [1, size * 1500 + 3] {
            DROPS.store(0, Ordering::SeqCst);
            let short = &bytes[..bytes.len() - cut];
            let err = read_vec_plain::<Counted, _>(&mut &short[..], &dtype, n, None).unwrap_err();
            let found = short.len() as u64;
            assert!(
                matches!(err, Error::Format(FormatError::Truncated { found: f, .. }) if f == found),
                "{err:?}"
            );
            let err =
                read_vec_plain::<Counted, _>(&mut &short[..], &dtype, n, Some(found)).unwrap_err();
            assert!(matches!(err, Error::Format(FormatError::Truncated { .. })));
        }
    }

    #[test]
    fn zero_itemsize_records_of_non_zero_sized_types() {
        #[derive(NpyRecord, Debug, PartialEq)]
        struct Blank {
            #[npy(len = 0)]
            s: Vec<u8>,
            e: [f64; 0],
        }
        let dtype = Blank::npy_dtype(None);
        assert_eq!(
            dtype.descr(),
            format!(
                "[('s', '|S0'), ('e', '{}f8', (0,))]",
                ByteOrder::NATIVE.as_char()
            )
        );
        let v: Vec<Blank> = read_vec(&mut &[][..], &dtype, 3, None).unwrap();
        assert_eq!(v.len(), 3);
        let mut out = Vec::new();
        write_slice(&v, &mut out, &dtype).unwrap();
        assert!(out.is_empty());
        // Writing into a zero-size field still refuses a value that does not fit.
        let full = [Blank {
            s: b"x".to_vec(),
            e: [],
        }];
        assert!(write_slice(&full, &mut out, &dtype).is_err());
    }

    #[test]
    fn decoders_never_panic_on_short_bytes() {
        let plan = i64::plan(&native("'=i8'")).unwrap();
        assert_eq!(i64::decode(&plan, &[1, 2]), 0);
        let plan = <[u16; 3]>::plan(&native("('=u2', (3,))")).unwrap();
        let first = u16::from_ne_bytes([1, 0]);
        assert_eq!(<[u16; 3]>::decode(&plan, &[1, 0, 2]), [first, 0, 0]);
        let plan = String::plan(&native("'=U4'")).unwrap();
        assert_eq!(String::decode(&plan, &[]), "");
        assert!(bool::check(&ScalarPlan { swap: false }, &[]).is_err());
        let mut out = [0u8; 1];
        assert!(7u32.encode(&ScalarPlan { swap: false }, &mut out).is_err());
        assert!("ab"
            .to_string()
            .encode(&String::plan(&native("'=U1'")).unwrap(), &mut out)
            .is_err());
    }
}
