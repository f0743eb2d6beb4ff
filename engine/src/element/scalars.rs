//! The scalar types: one row per Rust type, and every impl of it generated from that row.
//!
//! `for_each_scalar!(gen)` expands to `gen! { rows }`. Each generator takes every row whole and
//! uses the columns it needs:
//!
//! - `element::primitive`'s `primitive!`: `Pod`, `ReadableElement`, `WritableElement`,
//!   `FixedDType`, `ViewElement`, `ViewMutElement`;
//! - `record::fields`' `scalar_field!`: `RecordField`, `PlainField`;
//! - `dynamic`'s `dyn_data!`: the `DynData` variant, the dtypes read into it (`family`),
//!   `DynElement`.
//!
//! A row is `TYPE => VARIANT "DOC", KIND SIZE, UNIT, "NAME";`:
//!
//! - `TYPE`: the Rust type;
//! - `VARIANT "DOC"`: its `DynData` variant (public API: never renamed) and that variant's doc;
//! - `KIND SIZE`: the dtype, a `ScalarKind` and an itemsize (asserted to be the type's size),
//!   read in either byte order and written in native order;
//! - `UNIT`: the unit whose bytes a byte-order change reverses: the unsigned integer of the
//!   number's bits, or a complex number's part;
//! - `"NAME"`: what a dtype mismatch calls the type, with the dtype spellings it reads.
//!
//! How a row is read and written follows from its kind:
//!
//! - `Bool`: the row must be `bool` (checked at compile time). Not `Pod`, since only the bytes
//!   0 and 1 are valid: arrays are read as bytes and checked, record fields check their byte.
//! - any other kind: `Pod` (whole slices move as bytes, swapped in place in `UNIT`s), so the
//!   type must be one whose every bit pattern is valid, with no padding: an integer, an IEEE
//!   float, or a `#[repr(C)]`/`#[repr(transparent)]` wrapper of them (`Complex`, `f16`). As a
//!   record field, `Int`, `UInt` and `Float` are one load of `UNIT` (the bits), swapped and
//!   converted (`as` for `Int`, `from_bits` for `Float`); `Complex` is two `UNIT` floats, each
//!   swapped on its own.
//!
//! Adding a scalar type is one row here, plus its tests (see ARCHITECTURE.md).

/// Calls the macro `$gen` with the table of scalar types (see the module docs for the
/// columns). The rows are in `DynData`'s order; a row may start with `#[cfg(...)]` (`half::f16`
/// exists with the feature `half` only), which `$gen` puts on everything it makes of the row.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_scalar {
    ($gen:ident) => {
        $gen! {
            // Rust type                 DynData        dtype       unit  what errors call it
            bool                      => Bool "`|b1`",  Bool 1,     u8,   "bool (dtype '|b1')";
            i8                        => I8 "`|i1`",    Int 1,      u8,   "i8 (dtype '|i1')";
            i16                       => I16 "`i2`",    Int 2,      u16,  "i16 (dtype '<i2' or '>i2')";
            i32                       => I32 "`i4`",    Int 4,      u32,  "i32 (dtype '<i4' or '>i4')";
            i64                       => I64 "`i8`",    Int 8,      u64,  "i64 (dtype '<i8' or '>i8')";
            u8                        => U8 "`|u1`",    UInt 1,     u8,   "u8 (dtype '|u1')";
            u16                       => U16 "`u2`",    UInt 2,     u16,  "u16 (dtype '<u2' or '>u2')";
            u32                       => U32 "`u4`",    UInt 4,     u32,  "u32 (dtype '<u4' or '>u4')";
            u64                       => U64 "`u8`",    UInt 8,     u64,  "u64 (dtype '<u8' or '>u8')";
            #[cfg(feature = "half")]
            half::f16                 => F16 "`f2`",    Float 2,    u16,  "half::f16 (dtype '<f2' or '>f2')";
            f32                       => F32 "`f4`",    Float 4,    u32,  "f32 (dtype '<f4' or '>f4')";
            f64                       => F64 "`f8`",    Float 8,    u64,  "f64 (dtype '<f8' or '>f8')";
            num_complex::Complex<f32> => C64 "`c8`",    Complex 8,  f32,  "Complex<f32> (dtype '<c8' or '>c8')";
            num_complex::Complex<f64> => C128 "`c16`",  Complex 16, f64,  "Complex<f64> (dtype '<c16' or '>c16')";
        }
    };
}
pub use for_each_scalar;
