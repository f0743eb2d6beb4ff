//! Strings: `|Sn` (NUL-padded bytes) and `<Un` / `>Un` (UCS-4 code units).
//!
//! - `String` reads and writes `U`; `Vec<u8>` reads and writes `S`. As numpy does, trailing
//!   NULs are stripped on reading (embedded ones are kept), and writing picks the longest
//!   item's length (at least 1).
//! - `&str` writes `U` like `String`.
//! - [`FixedBytes<N>`] (`|SN`) and [`FixedUnicode<N>`] (`<UN`) are fixed-size, so they can be
//!   viewed in place (memory maps), appended and streamed.
//!
//! Unsafe here: the `Pod` impls of `FixedBytes` and `FixedUnicode`, which are plain bytes.
#![allow(unsafe_code)]

use super::bulk;
use super::pod::{self, Pod};
use super::Input;
use super::{FixedDType, ReadableElement, ViewElement, ViewMutElement, WritableElement};
use crate::base::dtype::{ByteOrder, DType, Scalar, ScalarKind};
use crate::base::error::{not_native, wrong_dtype, Error, FormatError, UsageError};
use std::io::{Read, Write};

fn string_dtype(kind: ScalarKind, size: usize) -> DType {
    match Scalar::new(kind, ByteOrder::NATIVE, size, None) {
        Ok(s) => DType::Scalar(s),
        Err(_) => unreachable!("S and U take any size (U a multiple of 4)"),
    }
}

/// The size of `dtype` if it is a scalar of `kind`, else a mismatch naming `requested`.
fn expect_kind(
    dtype: &DType,
    kind: ScalarKind,
    requested: &'static str,
) -> Result<(usize, ByteOrder), Error> {
    match dtype.as_scalar() {
        Some(s) if s.kind() == kind => Ok((s.size(), s.byte_order())),
        _ => Err(wrong_dtype(requested, dtype.clone())),
    }
}

/// One UCS-4 code unit from four bytes.
fn unit(b: &[u8], swap: bool) -> u32 {
    let u = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    if swap {
        u.swap_bytes()
    } else {
        u
    }
}

/// Decodes one `U` item (trailing NULs stripped) into `out`.
///
/// A first pass checks the code units and sums their UTF-8 length, so `out` is allocated once
/// at its exact size; a second pass pushes the characters.
fn decode_ucs4(item: &[u8], swap: bool, index: usize, out: &mut String) -> Result<(), Error> {
    let units = item.chunks_exact(4).map(|b| unit(b, swap));
    let end = units.clone().rposition(|u| u != 0).map_or(0, |k| k + 1);
    if end == 0 {
        return Ok(());
    }
    let mut bytes = 0;
    for u in units.clone().take(end) {
        // Lazily: built eagerly, the error (an enum with drop glue) is made and dropped for
        // every character, which made the strings benchmark's fastest read 70-72 ms
        // against 57 ms (`--case strings --rounds 15`).
        #[allow(clippy::unnecessary_lazy_evaluations)]
        let c = char::from_u32(u).ok_or_else(|| FormatError::InvalidCodePoint {
            index: index as u64,
            value: u,
        })?;
        bytes += c.len_utf8();
    }
    out.reserve_exact(bytes);
    // Every unit was checked above: none is dropped here.
    out.extend(units.take(end).filter_map(char::from_u32));
    Ok(())
}

/// Encodes `s` as a `U` item of `units` code units into `out`.
fn encode_ucs4(
    s: &str,
    units: usize,
    swap: bool,
    index: usize,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let start = out.len();
    for c in s.chars() {
        let u = if swap {
            (c as u32).swap_bytes()
        } else {
            c as u32
        };
        out.extend_from_slice(&u.to_ne_bytes());
    }
    let used = (out.len() - start) / 4;
    if used > units {
        out.truncate(start);
        return Err(UsageError::StringTooLong {
            index,
            len: used,
            max: units,
        }
        .into());
    }
    out.resize(start + 4 * units, 0);
    Ok(())
}

/// Encodes `b` as an `S` item of `size` bytes into `out`.
fn encode_bytes(b: &[u8], size: usize, index: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    if b.len() > size {
        return Err(UsageError::StringTooLong {
            index,
            len: b.len(),
            max: size,
        }
        .into());
    }
    out.extend_from_slice(b);
    out.resize(out.len() + size - b.len(), 0);
    Ok(())
}

/// Writes items through a chunk buffer, encoding each with `encode`.
fn write_encoded<'a, T: 'a + ?Sized, W: Write + ?Sized>(
    items: impl Iterator<Item = &'a T>,
    writer: &mut W,
    itemsize: usize,
    mut encode: impl FnMut(&T, usize, &mut Vec<u8>) -> Result<(), Error>,
) -> Result<(), Error> {
    const CHUNK: usize = 256 << 10;
    // Grows as items are encoded: the dtype may declare huge items for an empty array.
    let mut buf = Vec::with_capacity(CHUNK.min(itemsize.saturating_mul(4)));
    for (i, item) in items.enumerate() {
        encode(item, i, &mut buf)?;
        if buf.len() >= CHUNK {
            writer.write_all(&buf)?;
            buf.clear();
        }
    }
    writer.write_all(&buf)?;
    Ok(())
}

impl ReadableElement for String {
    fn read_vec<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        len: usize,
        input: Input,
    ) -> Result<Vec<Self>, Error> {
        let (size, order) =
            expect_kind(dtype, ScalarKind::Unicode, "String (dtype '<Un' or '>Un')")?;
        let swap = order.needs_swap();
        bulk::read_decoded(reader, len, size, input, |chunk, first, count, out| {
            for i in 0..count {
                let mut s = String::new();
                if size > 0 {
                    decode_ucs4(&chunk[i * size..(i + 1) * size], swap, first + i, &mut s)?;
                }
                out.push(s);
            }
            Ok(())
        })
    }
}

/// A `U` item as `read_npy_dyn` reads it: a `String`, or its code
/// units when one of them is not a Unicode scalar value (numpy's `str` can hold lone
/// surrogates, U+D800 to U+DFFF).
pub enum Ucs4Item {
    Str(String),
    Units(Vec<u32>),
}

/// Reads `len` `U` items stored as `dtype`, each as a `String` where it is valid Unicode and
/// as its code units otherwise, so that no file numpy loads fails here.
pub fn read_ucs4_items<R: Read + ?Sized>(
    reader: &mut R,
    dtype: &DType,
    len: usize,
    input: Input,
) -> Result<Vec<Ucs4Item>, Error> {
    let (size, order) = expect_kind(dtype, ScalarKind::Unicode, "String (dtype '<Un' or '>Un')")?;
    let swap = order.needs_swap();
    bulk::read_decoded(reader, len, size, input, |chunk, first, count, out| {
        for i in 0..count {
            let item = &chunk[i * size..(i + 1) * size];
            let mut s = String::new();
            if size == 0 || decode_ucs4(item, swap, first + i, &mut s).is_ok() {
                out.push(Ucs4Item::Str(s));
            } else {
                out.push(Ucs4Item::Units(units_of(item, swap)));
            }
        }
        Ok(())
    })
}

/// The code units of a `U` item, trailing NULs stripped (as numpy strips them).
fn units_of(item: &[u8], swap: bool) -> Vec<u32> {
    let mut units: Vec<u32> = item.chunks_exact(4).map(|b| unit(b, swap)).collect();
    let end = units.iter().rposition(|&u| u != 0).map_or(0, |k| k + 1);
    units.truncate(end);
    units
}

/// `items` (code units) as `String`s: the fallible step `DynArray::into_strings` takes for strings read as code units. The first unit that
/// is not a Unicode scalar value is an error naming its element (in the order given) and
/// value.
pub fn units_to_strings<'a>(
    items: impl Iterator<Item = &'a Vec<u32>>,
) -> Result<Vec<String>, Error> {
    items
        .enumerate()
        .map(|(index, units)| {
            units
                .iter()
                .map(|&value| {
                    #[allow(clippy::unnecessary_lazy_evaluations)] // as in `decode_ucs4`
                    char::from_u32(value).ok_or_else(|| FormatError::InvalidCodePoint {
                        index: index as u64,
                        value,
                    })
                })
                .collect::<Result<String, _>>()
                .map_err(Error::from)
        })
        .collect()
}

/// Writes `U` items given as code units, in `dtype`'s size and byte order.
pub fn write_units<'a, W: Write + ?Sized>(
    items: impl Iterator<Item = &'a Vec<u32>>,
    writer: &mut W,
    dtype: &DType,
) -> Result<(), Error> {
    let (size, order) = expect_kind(
        dtype,
        ScalarKind::Unicode,
        "Vec<u32> (dtype '<Un' or '>Un')",
    )?;
    let (units, swap) = (size / 4, order.needs_swap());
    write_encoded(items, writer, size, |item, index, out| {
        if item.len() > units {
            return Err(UsageError::StringTooLong {
                index,
                len: item.len(),
                max: units,
            }
            .into());
        }
        for &u in item {
            out.extend_from_slice(&if swap { u.swap_bytes() } else { u }.to_ne_bytes());
        }
        out.resize(out.len() + 4 * (units - item.len()), 0);
        Ok(())
    })
}

/// numpy's length for `U` values: the most characters, at least 1.
fn unicode_dtype<'a>(items: impl Iterator<Item = &'a str>) -> DType {
    let chars = items.map(|s| s.chars().count()).max().unwrap_or(0).max(1);
    string_dtype(ScalarKind::Unicode, chars * 4)
}

macro_rules! str_writable {
    ($($ty:ty),*) => {$(
        impl WritableElement for $ty {
            fn dtype_of<'a, I: Iterator<Item = &'a Self>>(elems: I) -> DType
            where
                Self: 'a,
            {
                unicode_dtype(elems.map(|s| &**s))
            }

            fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
                iter: I,
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error>
            where
                Self: 'a,
            {
                let (size, order) = expect_kind(dtype, ScalarKind::Unicode, stringify!($ty))?;
                let swap = order.needs_swap();
                write_encoded(iter, writer, size, |s, i, out| {
                    encode_ucs4(s, size / 4, swap, i, out)
                })
            }
        }
    )*};
}

str_writable!(String, &str);

impl super::Sealed for String {}
impl super::Sealed for &str {}
impl super::Sealed for Vec<u8> {}
/// `U` strings as code units (`DynData::CodePoints`).
impl super::Sealed for Vec<u32> {}

impl ReadableElement for Vec<u8> {
    fn read_vec<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        len: usize,
        input: Input,
    ) -> Result<Vec<Self>, Error> {
        let (size, _) = expect_kind(dtype, ScalarKind::Bytes, "Vec<u8> (dtype '|Sn')")?;
        bulk::read_decoded(reader, len, size, input, |chunk, _, count, out| {
            for i in 0..count {
                let item = &chunk[i * size..(i + 1) * size];
                let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                out.push(item[..end].to_vec());
            }
            Ok(())
        })
    }
}

impl WritableElement for Vec<u8> {
    fn dtype_of<'a, I: Iterator<Item = &'a Self>>(elems: I) -> DType {
        let len = elems.map(Vec::len).max().unwrap_or(0).max(1);
        string_dtype(ScalarKind::Bytes, len)
    }

    fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
        iter: I,
        writer: &mut W,
        dtype: &DType,
    ) -> Result<(), Error> {
        let (size, _) = expect_kind(dtype, ScalarKind::Bytes, "Vec<u8>")?;
        write_encoded(iter, writer, size, |b, i, out| {
            encode_bytes(b, size, i, out)
        })
    }
}

/// A fixed-size byte string, numpy's `|SN`: exactly `N` bytes, NUL-padded.
///
/// Being fixed-size, it can be viewed in place (`ViewNpyExt`), memory
/// mapped, appended and streamed, unlike `Vec<u8>`.
///
/// # Examples
///
/// ```
/// use ndnpy::{element::FixedBytes, ReadNpyExt, WriteNpyExt};
/// let a = ndarray::array![FixedBytes::<4>::new(b"ab")?, FixedBytes::new(b"wxyz")?];
/// let mut file = Vec::new();
/// a.write_npy(&mut file)?;
/// assert!(file.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '|S4'"));
/// let back = ndarray::Array1::<FixedBytes<4>>::read_npy(&file[..])?;
/// assert_eq!(back[0].as_bytes(), b"ab");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct FixedBytes<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedBytes<N> {
    /// `bytes` padded with NULs to `N` bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if `bytes` is longer than `N`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(ndnpy::element::FixedBytes::<2>::new(b"abc").is_err());
    /// ```
    pub fn new(bytes: &[u8]) -> Result<Self, Error> {
        let mut out = [0u8; N];
        if bytes.len() > N {
            return Err(UsageError::StringTooLong {
                index: 0,
                len: bytes.len(),
                max: N,
            }
            .into());
        }
        out[..bytes.len()].copy_from_slice(bytes);
        Ok(FixedBytes(out))
    }

    /// The bytes without trailing NULs (numpy's value).
    ///
    /// ```
    /// assert_eq!(ndnpy::element::FixedBytes::<4>::new(b"a\0b")?.as_bytes(), b"a\0b");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        let end = self.0.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
        &self.0[..end]
    }
}

/// A fixed-size UCS-4 string, numpy's `<UN`: exactly `N` code units, NUL-padded, stored as
/// `u32`s in native byte order (a big-endian file is swapped on reading).
///
/// The code units are checked only when converted to a Rust string, so a view in place is
/// possible.
///
/// # Examples
///
/// ```
/// use ndnpy::{element::FixedUnicode, ReadNpyExt, WriteNpyExt};
/// let a = ndarray::array![FixedUnicode::<3>::new("héé")?, FixedUnicode::new("x")?];
/// let mut file = Vec::new();
/// a.write_npy(&mut file)?;
/// let back = ndarray::Array1::<FixedUnicode<3>>::read_npy(&file[..])?;
/// assert_eq!(back[0].to_string()?, "héé");
/// assert_eq!(back[1].to_string()?, "x");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct FixedUnicode<const N: usize>(pub [u32; N]);

impl<const N: usize> FixedUnicode<N> {
    /// `s` padded with NULs to `N` code units.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if `s` has more than `N` characters.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(ndnpy::element::FixedUnicode::<1>::new("ab").is_err());
    /// ```
    pub fn new(s: &str) -> Result<Self, Error> {
        let mut out = [0u32; N];
        for (n, c) in s.chars().enumerate() {
            match out.get_mut(n) {
                Some(slot) => *slot = c as u32,
                None => {
                    return Err(UsageError::StringTooLong {
                        index: 0,
                        len: s.chars().count(),
                        max: N,
                    }
                    .into())
                }
            }
        }
        Ok(FixedUnicode(out))
    }

    /// The text without trailing NULs.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) if a code unit is not a Unicode scalar value.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(ndnpy::element::FixedUnicode([0xD800u32]).to_string().is_err());
    /// ```
    pub fn to_string(&self) -> Result<String, Error> {
        let mut s = String::new();
        decode_ucs4(pod::as_bytes(&self.0[..]), false, 0, &mut s)?;
        Ok(s)
    }
}

// SAFETY: both are #[repr(transparent)] over arrays of integers: every bit pattern is valid
// and there is no padding. FixedBytes is never swapped; FixedUnicode swaps 4-byte units.
unsafe impl<const N: usize> Pod for FixedBytes<N> {
    const SWAP: usize = 1;
}
// SAFETY: see above.
unsafe impl<const N: usize> Pod for FixedUnicode<N> {
    const SWAP: usize = 4;
}

macro_rules! fixed_string {
    ($ty:ident, $kind:ident, $unit:literal, $name:literal) => {
        impl<const N: usize> $ty<N> {
            fn expect(dtype: &DType) -> Result<ByteOrder, Error> {
                match expect_kind(dtype, ScalarKind::$kind, $name)? {
                    (size, order) if size == N * $unit => Ok(order),
                    _ => Err(wrong_dtype($name, dtype.clone())),
                }
            }
        }

        impl<const N: usize> super::Sealed for $ty<N> {}

        impl<const N: usize> FixedDType for $ty<N> {
            fn dtype() -> DType {
                string_dtype(ScalarKind::$kind, N * $unit)
            }
        }

        impl<const N: usize> WritableElement for $ty<N> {
            fn dtype_of<'a, I: Iterator<Item = &'a Self>>(_: I) -> DType {
                <Self as FixedDType>::dtype()
            }

            fn write_slice<W: Write + ?Sized>(
                slice: &[Self],
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_slice(slice, writer, Self::expect(dtype)?.needs_swap())
            }

            fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
                iter: I,
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                bulk::write_iter(iter, writer, Self::expect(dtype)?.needs_swap())
            }
        }

        impl<const N: usize> ReadableElement for $ty<N> {
            fn read_vec<R: Read + ?Sized>(
                reader: &mut R,
                dtype: &DType,
                len: usize,
                input: Input,
            ) -> Result<Vec<Self>, Error> {
                let swap = Self::expect(dtype)?.needs_swap();
                if N == 0 {
                    return bulk::read_decoded(reader, len, 0, input, |_, _, count, out| {
                        out.extend(std::iter::repeat_n($ty([0; N]), count));
                        Ok(())
                    });
                }
                let mut v: Vec<Self> = bulk::read_vec(reader, len, input)?;
                if swap {
                    pod::swap_in_place(pod::as_bytes_mut(&mut v), <Self as Pod>::SWAP);
                }
                Ok(v)
            }
        }

        impl<const N: usize> ViewElement for $ty<N> {
            fn bytes_as_slice<'a>(
                bytes: &'a [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a [Self], Error> {
                if Self::expect(dtype)?.needs_swap() {
                    return Err(not_native(dtype.clone()));
                }
                pod::cast_slice(bytes, len)
            }
        }

        impl<const N: usize> ViewMutElement for $ty<N> {
            fn bytes_as_mut_slice<'a>(
                bytes: &'a mut [u8],
                dtype: &DType,
                len: usize,
            ) -> Result<&'a mut [Self], Error> {
                if Self::expect(dtype)?.needs_swap() {
                    return Err(not_native(dtype.clone()));
                }
                pod::cast_slice_mut(bytes, len)
            }
        }
    };
}

fixed_string!(FixedBytes, Bytes, 1, "FixedBytes<N> (dtype '|SN')");
fixed_string!(
    FixedUnicode,
    Unicode,
    4,
    "FixedUnicode<N> (dtype '<UN' or '>UN')"
);
