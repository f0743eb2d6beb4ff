//! Whole arrays of records: read (decoded record by record, or copied in one piece when the
//! layout is the struct's), written, and viewed in place.

use super::*;
use super::{fields::*, matching::*};
use crate::base::dtype::DType;
use crate::base::error::{not_native, Detail, Error, FormatError, MismatchError};
use crate::element::Input;
use crate::element::{bulk, pod};
use std::io::{Read, Write};
use std::mem::{align_of, size_of};

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
/// As [`ReadableElement::read_vec`]: a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if `dtype` does not hold `T`'s
/// fields; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the data is short; [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData)
/// for invalid bytes (with the record index and field path).
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{DType, NpyRecord};
///
/// #[derive(NpyRecord, Debug, PartialEq)]
/// struct Sample {
///     t: u16,
///     ok: bool,
/// }
///
/// let dtype = DType::from_descr("[('ok', '|b1'), ('t', '>u2')]")?;
/// let data = [1u8, 0, 7, 0, 1, 8];
/// let v: Vec<Sample> = record::read_vec(&mut &data[..], &dtype, 2, ndnpy::element::Input::new(None))?;
/// assert_eq!(v, [Sample { t: 7, ok: true }, Sample { t: 264, ok: false }]);
/// # }
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_vec<T: RecordField, R: Read + ?Sized>(
    reader: &mut R,
    dtype: &DType,
    len: usize,
    input: Input,
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
    bulk::read_decoded(reader, len, itemsize, input, |chunk, first, count, out| {
        if itemsize == 0 {
            for i in 0..count {
                if T::NEEDS_CHECK {
                    T::check(&plan, &[]).map_err(|e| e.at_record((first + i) as u64))?;
                }
                out.push(T::decode(&plan, &[]));
            }
            return Ok(());
        }
        if T::NEEDS_CHECK {
            for (i, rec) in chunk.chunks_exact(itemsize).enumerate() {
                T::check(&plan, rec).map_err(|e| e.at_record((first + i) as u64))?;
            }
        }
        // An exact-size iterator: `extend` writes in place without a capacity check per record.
        out.extend(
            chunk
                .chunks_exact(itemsize)
                .map(|rec| T::decode(&plan, rec)),
        );
        Ok(())
    })
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
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{DType, NpyRecord};
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
/// let a: Vec<Flag> = record::read_vec_plain(&mut &data[..], &same, 2, ndnpy::element::Input::new(Some(4)))?;
/// // The fields the other way round: decoded field by field instead.
/// let b: Vec<Flag> = record::read_vec_plain(&mut &[7u8, 1, 8, 0][..], &other, 2, ndnpy::element::Input::new(None))?;
/// assert_eq!(a, [Flag { on: true, id: 7 }, Flag { on: false, id: 8 }]);
/// assert_eq!(a, b);
/// assert!(record::read_vec_plain::<Flag, _>(&mut &[2u8, 0][..], &same, 1, ndnpy::element::Input::new(None)).is_err());
/// # }
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_vec_plain<T: PlainField, R: Read + ?Sized>(
    reader: &mut R,
    dtype: &DType,
    len: usize,
    input: Input,
) -> Result<Vec<T>, Error> {
    let size = size_of::<T>();
    if size == 0 || T::check_layout(dtype).is_err() {
        return read_vec(reader, dtype, len, input);
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
        bulk::read_plain(reader, len, input, part, |first, bytes| {
            if T::NEEDS_CHECK {
                for (i, rec) in bytes.chunks_exact(size).enumerate() {
                    T::check(&plan, rec).map_err(|e| e.at_record((first + i) as u64))?;
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
/// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if a value does not fit its
/// field (with the record index and field path); a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if `dtype` does not hold
/// `T`'s fields.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{dtype::ByteOrder, DType, NpyRecord, record::RecordField};
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
/// # }
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
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{NpyRecord, record::RecordField};
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
/// # }
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
                .map_err(|e| e.at_record(i as u64))?;
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
        v.encode(&plan, rec).map_err(|e| e.at_record(i as u64))?;
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
pub fn check_view<T: PlainField>(bytes: &[u8], dtype: &DType, len: usize) -> Result<(), Error> {
    T::check_layout(dtype).map_err(|e| match e.detail() {
        // Name the whole record, not just the field found in the other order.
        Detail::Mismatch(MismatchError::ByteOrder { .. }) => not_native(dtype.clone()),
        _ => e,
    })?;
    let size = size_of::<T>();
    pod::check_len_align(bytes, len, size, align_of::<T>())?;
    if T::NEEDS_CHECK && size > 0 {
        let plan = T::plan(dtype)?;
        for (i, rec) in bytes.chunks_exact(size).enumerate() {
            T::check(&plan, rec).map_err(|e| e.at_record(i as u64))?;
        }
    }
    Ok(())
}

/// Views `bytes` (exactly `len` records of `dtype`) in place as `&[T]`: the
/// [`ViewElement`](crate::ViewElement) implementation of `#[repr(C)]` records.
///
/// # Errors
///
/// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if the file's record layout is not `T`'s (fields at other
/// offsets or in another order, another size, padding elsewhere);
/// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if a field is not in native byte order;
/// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if `bytes` is not aligned for `T`;
/// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) / [`ErrorKind::TrailingBytes`](crate::ErrorKind::TrailingBytes) for a wrong length;
/// [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) for invalid bytes (a bool of 2).
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{DType, NpyRecord};
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
/// # }
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn view<'a, T: PlainField>(
    bytes: &'a [u8],
    dtype: &DType,
    len: usize,
) -> Result<&'a [T], Error> {
    check_view::<T>(bytes, dtype, len)?;
    // Where no bytes are viewed, a dangling, aligned pointer serves any number of zero-sized
    // values (an empty slice's pointer need not be aligned for `T`).
    let ptr = if len == 0 || size_of::<T>() == 0 {
        std::ptr::NonNull::<T>::dangling().as_ptr().cast_const()
    } else {
        bytes.as_ptr().cast::<T>()
    };
    // SAFETY: either the slice covers no memory and `ptr` is non-null and aligned, or
    // `check_view` verified that `bytes` is exactly `len * size_of::<T>()` long and aligned
    // for `T`, that the dtype has `T`'s layout (`T::check_layout`), and that every record
    // passed `T::check`; by `PlainField`'s contract those bytes are valid `T`s. `T` has no
    // interior mutability, and the result borrows `bytes` for 'a, so the memory is neither
    // freed nor mutated while viewed.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Views `bytes` (exactly `len` records of `dtype`) in place as `&mut [T]`: the
/// [`ViewMutElement`](crate::ViewMutElement) implementation of `#[repr(C)]` records.
///
/// # Errors
///
/// As [`view`]; also [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if `T` has padding bytes, which a store
/// through the view would leave uninitialised in the buffer.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use ndnpy::record::derive_runtime as record;
/// use ndnpy::{DType, NpyRecord};
///
/// #[derive(NpyRecord)]
/// #[repr(C, packed)]
/// struct Hit {
///     id: u32,
///     hit: bool,
/// }
///
/// let n = ndnpy::dtype::ByteOrder::NATIVE.as_char();
/// let dtype = DType::from_descr(&format!("[('id', '{n}u4'), ('hit', '|b1')]"))?;
/// let mut bytes = [0u8; 10];
/// let hits: &mut [Hit] = record::view_mut(&mut bytes, &dtype, 2)?;
/// hits[1] = Hit { id: 7, hit: true };
/// assert_eq!(&bytes[5..], &[7u32.to_ne_bytes().as_slice(), &[1]].concat()[..]);
/// # }
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
    let ptr = if len == 0 || size_of::<T>() == 0 {
        std::ptr::NonNull::<T>::dangling().as_ptr()
    } else {
        bytes.as_mut_ptr().cast::<T>()
    };
    // SAFETY: as in `view`; in addition the exclusive borrow of `bytes` moves to the result,
    // and `T` has no padding bytes (checked above), so every byte stays initialised after any
    // store of a `T`, and the buffer holds valid bytes when the view ends.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}
