//! Plain-old-data elements as bytes: the `Pod` trait, byte views of element slices (checked
//! for length and alignment), and in-place byte swaps.
//!
//! Unsafe here: the casts between element slices and bytes, which `Pod`'s contract makes
//! sound.
#![allow(unsafe_code)]

use crate::base::error::{truncated, Error, FormatError, MismatchError};
use std::mem::size_of;

/// A type whose values are plain bytes.
///
/// # Safety
///
/// Implementors guarantee that every bit pattern of `size_of::<Self>()` bytes is a valid
/// value, that the type has no padding bytes, and that `SWAP` divides its size and is the
/// width of the units a byte-order change reverses (1 for no swapping).
pub unsafe trait Pod: Copy + 'static {
    /// Width in bytes of the units whose byte order is reversed for non-native data.
    const SWAP: usize;
}

/// The bytes of a slice of `T`.
pub fn as_bytes<T: Pod>(s: &[T]) -> &[u8] {
    // SAFETY: `T: Pod` has no padding, so all `size_of_val(s)` bytes are initialised; the
    // pointer and length come from a valid slice, and u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// The bytes of a mutable slice of `T`.
pub fn as_bytes_mut<T: Pod>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; in addition every byte pattern written through the result is
    // a valid `T` because `T: Pod`.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// Checks that `bytes` holds exactly `len` values of `size` bytes, aligned to `align`: the
/// distinct errors of a view (short, extra bytes, misaligned).
pub fn check_len_align(bytes: &[u8], len: usize, size: usize, align: usize) -> Result<(), Error> {
    let need = len
        .checked_mul(size)
        .ok_or_else(|| FormatError::ShapeOverflow {
            shape: vec![len],
            itemsize: size,
        })?;
    if bytes.len() < need {
        return Err(truncated(need as u64, bytes.len() as u64));
    }
    if bytes.len() > need {
        return Err(FormatError::TrailingBytes {
            expected: need as u64,
            found: bytes.len() as u64,
        }
        .into());
    }
    let offset = bytes.as_ptr() as usize % align.max(1);
    if offset != 0 && need > 0 {
        return Err(MismatchError::Misaligned { align, offset }.into());
    }
    Ok(())
}

/// Checks that `bytes` holds exactly `len` values of `T` and is aligned for `T`.
fn check_cast<T: Pod>(bytes: &[u8], len: usize) -> Result<(), Error> {
    check_len_align(bytes, len, size_of::<T>(), std::mem::align_of::<T>())
}

/// `bytes` as a slice of `len` values of `T`, in place.
pub fn cast_slice<T: Pod>(bytes: &[u8], len: usize) -> Result<&[T], Error> {
    check_cast::<T>(bytes, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: `check_cast` verified the length is exactly `len * size_of::<T>()` and the
    // pointer is aligned for `T`; every bit pattern is a valid `T` (`T: Pod`); the result
    // borrows `bytes`, so the memory outlives it and is not mutated meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// `bytes` as a mutable slice of `len` values of `T`, in place.
pub fn cast_slice_mut<T: Pod>(bytes: &mut [u8], len: usize) -> Result<&mut [T], Error> {
    check_cast::<T>(bytes, len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: as in `cast_slice`; the exclusive borrow of `bytes` moves to the result, and any
    // value written through it is valid bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
}

/// Reverses the byte order of every `unit`-byte group of `bytes` (a whole number of units).
///
/// Works for any alignment; the aligned middle is done with integer `swap_bytes`, which the
/// compiler vectorises.
pub fn swap_in_place(bytes: &mut [u8], unit: usize) {
    debug_assert_eq!(bytes.len() % unit.max(1), 0);
    macro_rules! swap_as {
        ($t:ty) => {{
            // SAFETY: every bit pattern is a valid integer, so viewing bytes as `$t` is sound;
            // `align_to_mut` only puts correctly aligned, whole `$t`s in the middle part.
            let (head, mid, tail) = unsafe { bytes.align_to_mut::<$t>() };
            if head.is_empty() && tail.is_empty() {
                for x in mid {
                    *x = x.swap_bytes();
                }
            } else {
                for c in bytes.chunks_exact_mut(size_of::<$t>()) {
                    c.reverse();
                }
            }
        }};
    }
    match unit {
        2 => swap_as!(u16),
        4 => swap_as!(u32),
        8 => swap_as!(u64),
        16 => swap_as!(u128),
        0 | 1 => {}
        n => {
            for c in bytes.chunks_exact_mut(n) {
                c.reverse();
            }
        }
    }
}
