//! Rust element types and the dtypes they read and write.
//!
//! [`ReadableElement`] and [`WritableElement`] carry ndarray-npy's names so generic code keeps
//! compiling. Both move whole slices of bytes, never one element at a time. This crate
//! implements them for `bool`, `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, [`half::f16`] (feature
//! `half`) and [`num_complex::Complex`] of `f32`/`f64` (feature `num-complex`).

pub(crate) mod pod;
mod primitive;

use crate::descr::{ByteOrder, DType};
use crate::error::Error;
use std::io::{Read, Write};

/// An element type that can be read from `.npy` data.
///
/// # Examples
///
/// Generic code bounds on it as with ndarray-npy:
///
/// ```
/// use ndarray::Array1;
/// use ndnpy::{ReadNpyExt, ReadableElement};
///
/// fn load<T: ReadableElement>(bytes: &[u8]) -> Result<Array1<T>, ndnpy::Error> {
///     Array1::<T>::read_npy(bytes)
/// }
/// let a: Array1<i16> = load(include_bytes!("../../testdata/i2_be_c_5.npy"))?;
/// assert_eq!(a.len(), 5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait ReadableElement: Sized {
    /// Reads `len` elements stored as `dtype` from `reader`, consuming exactly their bytes.
    ///
    /// `available`, when known, is how many bytes the reader still holds; implementations
    /// use it to allocate once, and must otherwise never allocate much more than the bytes
    /// that have really arrived.
    ///
    /// # Errors
    ///
    /// [`Error::Mismatch`] if `dtype` cannot be read as `Self`; [`Error::Format`] if the data
    /// is short or invalid (for example bool bytes other than 0 and 1).
    fn read_vec<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        len: usize,
        available: Option<u64>,
    ) -> Result<Vec<Self>, Error>;
}

/// An element type that can be written as `.npy` data.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, WritableElement};
/// assert_eq!(<u16 as WritableElement>::dtype(), DType::from_descr("'=u2'")?);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait WritableElement: Sized {
    /// The dtype of this element type in native byte order.
    fn dtype() -> DType;

    /// Writes a contiguous slice, in `order`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the writer fails.
    fn write_slice<W: Write + ?Sized>(
        slice: &[Self],
        writer: &mut W,
        order: ByteOrder,
    ) -> Result<(), Error>;

    /// Writes elements in iteration order, in `order` (used for arrays that are neither C-
    /// nor Fortran-contiguous).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the writer fails.
    fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
        iter: I,
        writer: &mut W,
        order: ByteOrder,
    ) -> Result<(), Error>
    where
        Self: 'a;
}
