//! The element impls of the numeric types and `bool`, generated from the table of scalar types
//! (`scalars`): one row per Rust type with the dtype it reads and writes (`half::bf16`, a
//! two-byte void to numpy and so not a row, is in `bf16`).
//!
//! A type reads its dtype in either byte order (`<`, `>`, and the lenient `=`, `|`, no prefix,
//! which the descr parser resolves) and writes native order unless asked otherwise.
//!
//! Unsafe here: the `Pod` impls (each type is plain bytes with no invalid values but `bool`'s)
//! and the views of `bool` data after every byte is checked to be 0 or 1.
#![allow(unsafe_code)]

use super::bulk;
use super::pod::{self, Pod};
use super::Input;
use super::{FixedDType, ReadableElement, ViewElement, ViewMutElement, WritableElement};
use crate::base::dtype::{ByteOrder, DType, Scalar, ScalarKind};
use crate::base::error::{not_native, wrong_dtype, Error, FormatError};
use std::io::{Read, Write};

/// The byte order of `dtype` if it is the scalar `kind` of `size` bytes (no datetime unit).
fn scalar_order(
    dtype: &DType,
    kind: ScalarKind,
    size: usize,
    requested: &'static str,
) -> Result<ByteOrder, Error> {
    match dtype {
        DType::Scalar(s) if s.kind() == kind && s.size() == size && s.unit().is_none() => {
            Ok(s.byte_order())
        }
        _ => Err(wrong_dtype(requested, dtype.clone())),
    }
}

/// Checks that `dtype` is the scalar `kind` of `size` bytes in native byte order (for views).
fn native_order(
    dtype: &DType,
    kind: ScalarKind,
    size: usize,
    requested: &'static str,
) -> Result<(), Error> {
    if scalar_order(dtype, kind, size, requested)?.needs_swap() {
        return Err(not_native(dtype.clone()));
    }
    Ok(())
}

/// Checks that every byte is 0 or 1, the valid bools.
fn check_bools(bytes: &[u8]) -> Result<(), Error> {
    check_bools_at(bytes, 0)
}

/// Checks that every byte of `bytes`, the bools from element `first` on, is 0 or 1: the
/// readers' check, for the writers that copy bool bytes they did not read as `bool`s.
pub fn check_bools_at(bytes: &[u8], first: u64) -> Result<(), Error> {
    match bytes.iter().position(|&b| b > 1) {
        Some(index) => Err(FormatError::InvalidBool {
            index: first + index as u64,
            value: bytes[index],
        }
        .into()),
        None => Ok(()),
    }
}

/// Whether data written as `dtype` must be byte-swapped from memory order.
pub(super) fn needs_swap(dtype: &DType) -> bool {
    dtype
        .as_scalar()
        .is_some_and(|s| s.byte_order().needs_swap())
}

fn native(kind: ScalarKind, size: usize) -> DType {
    match Scalar::new(kind, ByteOrder::NATIVE, size, None) {
        Ok(s) => DType::Scalar(s),
        Err(_) => unreachable!("the type table only lists dtypes numpy has"),
    }
}

/// `WritableElement` for a plain-old-data type of one fixed dtype: its values written as they
/// are, swapped when the dtype asks for the other byte order (the number types here, and
/// `half::bf16`).
macro_rules! writable_pod {
    ($ty:ty) => {
        impl WritableElement for $ty {
            fn dtype_of<'a, I: Iterator<Item = &'a Self>>(_: I) -> DType {
                <$ty as FixedDType>::dtype()
            }

            fn write_slice<W: Write + ?Sized>(
                slice: &[Self],
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_slice(slice, writer, needs_swap(dtype))
            }

            fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
                iter: I,
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_iter(iter, writer, needs_swap(dtype))
            }

            fn write_strided<W: Write + ?Sized>(
                view: $crate::element::Strided<'_, Self>,
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_strided(view, writer, needs_swap(dtype))
            }
        }
    };
}
#[cfg(feature = "half")]
pub(super) use writable_pod;

macro_rules! primitive {
    ($($(#[$m:meta])* $ty:ty => $variant:ident $doc:literal, $kind:ident $size:literal, $unit:ty, $name:literal;)*) => {$(
        $(#[$m])*
        const _: () = assert!(std::mem::size_of::<$ty>() == $size);
        $(#[$m])*
        impl super::Sealed for $ty {}
        $(#[$m])*
        primitive!(@kind $kind, $ty, $size, $unit, $name);
    )*};

    // `bool` is read through `u8` and checked: numpy writes 0 and 1 only, and any other byte
    // would be an invalid Rust `bool`.
    (@kind Bool, $ty:ty, $size:literal, $unit:ty, $name:literal) => {
        // The code below is for `bool` and no other type: this is `bool`.
        const _: fn($ty) -> bool = |b| b;

        impl ReadableElement for bool {
            fn read_vec<R: Read + ?Sized>(
                reader: &mut R,
                dtype: &DType,
                len: usize,
                input: Input,
            ) -> Result<Vec<Self>, Error> {
                scalar_order(dtype, ScalarKind::Bool, $size, $name)?;
                let bytes: Vec<u8> = bulk::read_vec(reader, len, input)?;
                check_bools(&bytes)?;
                let mut bytes = std::mem::ManuallyDrop::new(bytes);
                // SAFETY: bool and u8 have the same size and alignment, so the allocation's
                // layout is unchanged; every byte was checked above to be 0 or 1, the valid
                // bools.
                Ok(unsafe {
                    Vec::from_raw_parts(
                        bytes.as_mut_ptr().cast::<bool>(),
                        bytes.len(),
                        bytes.capacity(),
                    )
                })
            }
        }

        impl ViewElement for bool {
            fn bytes_as_slice<'a>(
                bytes: &'a [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a [Self], Error> {
                native_order(dtype, ScalarKind::Bool, $size, $name)?;
                let bytes: &[u8] = pod::cast_slice(bytes, len)?;
                check_bools(bytes)?;
                // SAFETY: bool has the size and alignment of u8 and every byte is 0 or 1
                // (checked).
                Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<bool>(), len) })
            }
        }

        impl ViewMutElement for bool {
            fn bytes_as_mut_slice<'a>(
                bytes: &'a mut [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a mut [Self], Error> {
                native_order(dtype, ScalarKind::Bool, $size, $name)?;
                let bytes: &mut [u8] = pod::cast_slice_mut(bytes, len)?;
                check_bools(bytes)?;
                // SAFETY: as for the shared view; writes through `&mut bool` store only 0 or 1.
                Ok(unsafe {
                    std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<bool>(), len)
                })
            }
        }

        impl FixedDType for bool {
            fn dtype() -> DType {
                native(ScalarKind::Bool, $size)
            }
        }

        impl WritableElement for bool {
            fn dtype_of<'a, I: Iterator<Item = &'a Self>>(_: I) -> DType {
                <bool as FixedDType>::dtype()
            }

            fn write_slice<W: Write + ?Sized>(
                slice: &[Self],
                writer: &mut W,
                _dtype: &DType,
            ) -> Result<(), Error> {
                // SAFETY: a bool is one byte holding 0 or 1.
                let bytes = unsafe {
                    std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), slice.len())
                };
                writer.write_all(bytes)?;
                Ok(())
            }

            fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
                iter: I,
                writer: &mut W,
                _dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_iter(iter.map(|b| if *b { &1u8 } else { &0u8 }), writer, false)
            }
        }
    };

    // Every other kind is plain data, moved as bytes.
    (@kind $kind:ident, $ty:ty, $size:literal, $unit:ty, $name:literal) => {
        // SAFETY: the table admits only integers, IEEE floats, or #[repr(C)]/#[repr(transparent)]
        // wrappers of them (Complex, f16) for kinds other than `Bool`: every bit pattern is
        // valid and there is no padding (the size is asserted above); `$unit` is a scalar part,
        // whose width divides the size (a slice of them is the value's bytes).
        unsafe impl Pod for $ty {
            const SWAP: usize = std::mem::size_of::<$unit>();
        }
        // `Pod::SWAP` divides the type's size (for one-byte types, 1 % 1).
        #[allow(clippy::modulo_one)]
        const _: () = assert!(<$ty as Pod>::SWAP != 0 && $size % <$ty as Pod>::SWAP == 0);

        impl ReadableElement for $ty {
            fn read_vec<R: Read + ?Sized>(
                reader: &mut R,
                dtype: &DType,
                len: usize,
                input: Input,
            ) -> Result<Vec<Self>, Error> {
                let order = scalar_order(dtype, ScalarKind::$kind, $size, $name)?;
                let mut v: Vec<$ty> = bulk::read_vec(reader, len, input)?;
                if order.needs_swap() {
                    pod::swap_in_place(pod::as_bytes_mut(&mut v), <$ty as Pod>::SWAP);
                }
                Ok(v)
            }

            fn read_into<R: Read + ?Sized>(
                reader: &mut R,
                dtype: &DType,
                out: &mut [Self],
            ) -> Result<(), Error> {
                let order = scalar_order(dtype, ScalarKind::$kind, $size, $name)?;
                let bytes = pod::as_bytes_mut(out);
                bulk::read_exact_into(reader, bytes)?;
                if order.needs_swap() {
                    pod::swap_in_place(bytes, <$ty as Pod>::SWAP);
                }
                Ok(())
            }
        }

        impl ViewElement for $ty {
            fn bytes_as_slice<'a>(
                bytes: &'a [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a [Self], Error> {
                native_order(dtype, ScalarKind::$kind, $size, $name)?;
                pod::cast_slice(bytes, len)
            }
        }

        impl ViewMutElement for $ty {
            fn bytes_as_mut_slice<'a>(
                bytes: &'a mut [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a mut [Self], Error> {
                native_order(dtype, ScalarKind::$kind, $size, $name)?;
                pod::cast_slice_mut(bytes, len)
            }
        }

        impl FixedDType for $ty {
            fn dtype() -> DType {
                native(ScalarKind::$kind, $size)
            }
        }

        writable_pod!($ty);
    };
}

super::scalars::for_each_scalar!(primitive);
