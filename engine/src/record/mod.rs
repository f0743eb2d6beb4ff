//! Structured records (ndnpy's `record` module documents them for users).
//!
//! Unsafe here: `PlainField` (a field type whose bytes are its value) and its impls, and the
//! views and bulk reads of records built on it, after their layout is checked against the
//! file's.
#![allow(unsafe_code)]

use crate::base::dtype::DType;
use crate::base::error::Error;
#[allow(unused_imports)] // named by the docs
use crate::base::error::{MismatchError, UsageError};
use crate::element::{FixedDType, ReadableElement, WritableElement};
pub mod bulk;
pub mod fields;
pub mod matching;
pub mod plan;
#[cfg(all(test, feature = "derive"))]
mod tests;

pub use plan::{ArrayPlan, ScalarPlan, TextPlan, TimePlan};

/// The runtime of `#[derive(NpyRecord)]`: what the generated code calls. Not for other use;
/// it may change in any release.
#[doc(hidden)]
pub mod derive_runtime {
    pub use super::bulk::{read_vec, read_vec_plain, view, view_mut, write_iter, write_slice};
    pub use super::matching::{layout_field, layout_of, record_dtype, record_of};
    pub use super::plan::FieldPlan;
    pub use crate::element::sealed::Sealed;
}

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
/// `half::bf16` (both with the feature `half`; ml_dtypes' `bfloat16` is a `'<V2'` field), `Complex<f32>`/`Complex<f64>`, `String` and `Vec<u8>`
/// (with a length), [`FixedBytes`](crate::element::FixedBytes), [`FixedUnicode`](crate::element::FixedUnicode),
/// [`DatetimeIn`](crate::element::DatetimeIn), [`TimedeltaIn`](crate::element::TimedeltaIn),
/// `[T; N]` for every `T: RecordField`, and every
/// `#[derive(NpyRecord)]` struct. Implement it for your own field types (a newtype can
/// delegate to its inner type's implementation).
///
/// A datetime or timedelta field declares its unit in its type:
/// [`DatetimeIn<unit::Days>`](crate::element::DatetimeIn) is `datetime64[D]`,
/// [`TimedeltaIn<unit::Seconds>`](crate::element::TimedeltaIn) is `timedelta64[s]`.
/// [`Datetime64`](crate::Datetime64) and [`Timedelta64`](crate::Timedelta64) carry a unit in
/// each value, so no field dtype can be written for them, and they are not `RecordField`s;
/// the compiler says so, and what to write instead:
///
/// ```compile_fail,E0277
/// #[derive(ndnpy::NpyRecord)]
/// struct Quote {
///     date: ndnpy::Datetime64, // error: `Datetime64` cannot be a field of a numpy record
///     close: f64,
/// }
/// ```
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, record::RecordField};
/// let found = DType::from_descr("'>i4'")?; // a big-endian field in a file
/// let plan = i32::plan(&found)?;
/// assert_eq!(i32::decode(&plan, &[0, 0, 1, 2]), 258);
/// let mut out = [0u8; 4];
/// 258i32.encode(&plan, &mut out)?;
/// assert_eq!(out, [0, 0, 1, 2]);
/// assert_eq!(<[f32; 3]>::npy_dtype(None).descr(), format!("('{}f4', (3,))", ndnpy::dtype::ByteOrder::NATIVE.as_char()));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a numpy record",
    label = "not a `RecordField`",
    note = "record fields are numbers, `bool`, `half::f16`, `half::bf16`, `Complex`, `[T; N]`, `String` and \
            `Vec<u8>` with `#[npy(len = N)]`, `FixedBytes`, `FixedUnicode`, \
            `#[derive(NpyRecord)]` structs, and datetimes and timedeltas with a unit",
    note = "a datetime or timedelta field declares its unit in its type: \
            `ndnpy::element::DatetimeIn<ndnpy::unit::Days>` is numpy's `datetime64[D]`, \
            `ndnpy::element::TimedeltaIn<ndnpy::unit::Seconds>` is `timedelta64[s]`; `Datetime64` and \
            `Timedelta64` hold a unit in each value, so they cannot be fields"
)]
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
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) (which records turn into [`ErrorKind::DType`](crate::ErrorKind::DType)) if `found`
    /// cannot hold this type; [`ErrorKind::DType`](crate::ErrorKind::DType) for a record missing fields.
    fn plan(found: &DType) -> Result<Self::Plan, Error>;

    /// Checks that `bytes` (the field's bytes, at least `found.itemsize()` long) hold a valid
    /// value. Called before [`decode`](RecordField::decode) when
    /// [`NEEDS_CHECK`](RecordField::NEEDS_CHECK) is true.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) saying what is wrong.
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
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the value does not fit (a string longer than the field)
    /// or `out` is shorter than the field.
    fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error>;
}

/// A record field type whose values are plain bytes in memory, so that a file with the same
/// layout can be viewed in place as `&[Self]`.
///
/// Implemented for the numbers, `bool` (bytes are checked to be 0 or 1), `half::f16` and
/// `half::bf16` (feature `half`),
/// `Complex`, `FixedBytes`, `FixedUnicode`, `DatetimeIn` and `TimedeltaIn` (viewed when the
/// file's unit is the declared one), `[T; N]` of plain types, and `#[derive(NpyRecord)]` structs declared
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
/// use ndnpy::{DType, record::PlainField};
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
    /// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) for a different layout, [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) for
    /// non-native byte order, [`ErrorKind::DType`](crate::ErrorKind::DType) for a different type.
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
/// # #[cfg(feature = "derive")] {
/// use ndnpy::{element::FixedDType, NpyRecord};
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
/// let n = ndnpy::dtype::ByteOrder::NATIVE.as_char();
/// assert_eq!(descr_of::<Point>(), format!("[('x', '{n}f4'), ('y', '{n}f4')]"));
/// # }
/// ```
pub trait NpyRecord: RecordField + ReadableElement + WritableElement + FixedDType {}
