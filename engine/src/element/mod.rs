//! Rust element types and the dtypes they read and write (ndnpy's `element` module documents
//! them for users).

#[cfg(feature = "half")]
pub mod bf16;
pub mod bulk;
pub mod datetime;
pub mod pod;
pub mod primitive;
pub mod reserve;
pub mod scalars;
pub mod strided;
pub mod string;

/// Seals the element traits: they are implemented by this crate's element types and by
/// `#[derive(NpyRecord)]` structs (whose generated code names this trait), and by nothing else,
/// so that their methods can change without breaking anyone.
pub mod sealed {
    /// The supertrait of the element traits; not for implementing by hand.
    pub trait Sealed {}
}
use sealed::Sealed;

#[cfg(feature = "half")]
pub use bf16::bf16_order;
pub use datetime::{convert, convertible, Lost};
pub use datetime::{Datetime64, DatetimeIn, Timedelta64, TimedeltaIn, NAT};
#[cfg(feature = "safetensors")]
pub use primitive::check_bools_at;
pub use strided::StridedMut;
pub use strided::{Iter, Strided};
pub use string::{FixedBytes, FixedUnicode};

use crate::base::dtype::DType;
use crate::base::error::Error;
use crate::format::header::{Header, HeaderInfo};
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
/// fn load<T: ReadableElement>(bytes: &[u8]) -> Result<Array1<T>, ndnpy::ReadNpyError> {
///     Array1::<T>::read_npy(bytes)
/// }
/// let a: Array1<i16> = load(include_bytes!("../../testdata/i2_be_c_5.npy"))?;
/// assert_eq!(a.len(), 5);
/// # Ok::<(), ndnpy::ReadNpyError>(())
/// ```
///
/// # Sealed
///
/// The element traits are implemented by this crate's element types and by
/// `#[derive(NpyRecord)]` structs, and cannot be implemented by hand, so that their methods
/// can change in minor releases:
///
/// ```compile_fail
/// struct Mine(u8);
/// impl ndnpy::ReadableElement for Mine {
///     fn read_vec<R: std::io::Read + ?Sized>(
///         _: &mut R, _: &ndnpy::DType, _: usize, _: ndnpy::element::Input,
///     ) -> Result<Vec<Self>, ndnpy::Error> {
///         Ok(Vec::new())
///     }
/// }
/// ```
pub trait ReadableElement: Sized + Sealed {
    /// Reads `len` elements stored as `dtype` from `reader`, consuming exactly their bytes.
    ///
    /// `input` says what is known of the reader: how many bytes it still holds, when known
    /// (implementations use it to allocate once, and must otherwise never allocate much more
    /// than the bytes that have really arrived), and whether its bytes come slower than
    /// memory takes them.
    ///
    /// # Errors
    ///
    /// a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if `dtype` cannot be read as `Self`; a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the data
    /// is short or invalid (for example bool bytes other than 0 and 1).
    fn read_vec<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        len: usize,
        input: Input,
    ) -> Result<Vec<Self>, Error>;

    /// Reads `out.len()` elements stored as `dtype` from `reader` into `out`, consuming
    /// exactly their bytes: the element read of the reads into memory the caller owns
    /// (`NpyReader::read_into`). Plain numbers are read
    /// straight into `out`'s bytes and swapped there; other types are decoded in parts of
    /// at most 64 KiB of elements through [`ReadableElement::read_vec`], so memory stays
    /// bounded whatever `out`'s length.
    ///
    /// # Errors
    ///
    /// As [`ReadableElement::read_vec`]. On an error, `out` holds some of the data and is
    /// otherwise unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, ReadableElement};
    /// let mut out = [0u16; 2];
    /// u16::read_into(&mut &[0u8, 1, 0, 2][..], &DType::from_descr("'>u2'")?, &mut out)?;
    /// assert_eq!(out, [1, 2]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    fn read_into<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        out: &mut [Self],
    ) -> Result<(), Error> {
        bulk::fill_by_parts(reader, dtype, out.iter_mut())
    }
}

/// What is known of an input before an array's data is read from it, passed to
/// [`ReadableElement::read_vec`].
///
/// ```
/// use ndnpy::{DType, element::Input, ReadableElement};
/// let input = Input::new(Some(4));
/// assert!(!input.slow);
/// let v = u16::read_vec(&mut &[1u8, 0, 2, 0][..], &DType::from_descr("'<u2'")?, 2, input)?;
/// assert_eq!(v, [1, 2]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Input {
    /// How many bytes the input still holds, when known (a file's or a slice's length, a
    /// stored `.npz` member's size).
    pub available: Option<u64>,
    /// Whether the bytes arrive slower than memory takes them (a member being inflated): on
    /// Linux a helper thread may then fault the array's pages in ahead of them.
    pub slow: bool,
}

impl Input {
    /// An input that holds `available` bytes, when known, and is as fast as memory.
    ///
    /// ```
    /// assert_eq!(ndnpy::element::Input::new(None), ndnpy::element::Input::default());
    /// ```
    pub fn new(available: Option<u64>) -> Input {
        Input {
            available,
            slow: false,
        }
    }

    /// This input, its bytes arriving slower than memory takes them if `slow`.
    #[doc(hidden)]
    pub fn with_slow(self, slow: bool) -> Input {
        Input { slow, ..self }
    }
}

/// What is known of the input after the header `info`, from what was known before it.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub fn after_header(whole: Input, info: &HeaderInfo) -> Input {
    Input {
        available: whole.available.map(|t| t.saturating_sub(info.data_offset)),
        ..whole
    }
}

/// The data of one array as the engine reads it: its elements in file order, with the
/// header's shape, order and item size. Each ndarray layer makes its own array of it.
pub struct Decoded<A> {
    /// The elements, as many as the shape holds, in the file's order (C or Fortran).
    #[doc(hidden)]
    pub data: Vec<A>,
    /// The header's shape.
    #[doc(hidden)]
    pub shape: Vec<usize>,
    /// Whether `data` is in Fortran order.
    #[doc(hidden)]
    pub fortran_order: bool,
    /// The dtype's item size, for messages about the shape.
    #[doc(hidden)]
    pub itemsize: usize,
}

/// Reads the data described by `info` (the header already consumed); `input` is what is known
/// of the rest of the reader.
pub fn read_data<A: ReadableElement, R: Read + ?Sized>(
    reader: &mut R,
    info: HeaderInfo,
    input: Input,
) -> Result<Decoded<A>, Error> {
    let Header {
        dtype,
        fortran_order,
        shape,
    } = info.header;
    let data = A::read_vec(reader, &dtype, info.num_elements, input)?;
    Ok(Decoded {
        data,
        shape,
        fortran_order,
        itemsize: dtype.itemsize(),
    })
}

/// Reads data of `dtype`, in Fortran order or not, of `shape` (an array's, or a selection's)
/// from `reader` into `out`, which must have that shape: straight into `out`'s memory when it
/// is laid out as the data is (C order for C, Fortran for Fortran), else in 64 KiB parts
/// assigned in storage order.
pub fn read_data_into<A, R>(
    reader: &mut R,
    (dtype, fortran_order, shape): (&DType, bool, &[usize]),
    out: StridedMut<'_, A>,
) -> Result<(), Error>
where
    A: ReadableElement,
    R: Read + ?Sized,
{
    if out.shape() != shape {
        return Err(crate::base::error::MismatchError::Shape {
            buffer: out.shape().to_vec(),
            found: shape.to_vec(),
        }
        .into());
    }
    // Storage order is the logical order of the reversed axes for Fortran data.
    let mut out = if fortran_order {
        out.reversed_axes()
    } else {
        out
    };
    if let Some(slice) = out.as_slice_mut() {
        return A::read_into(reader, dtype, slice);
    }
    bulk::fill_by_parts(reader, dtype, out.into_iter_mut())
}

/// An element type that can be written as `.npy` data.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, WritableElement};
/// assert_eq!(u16::dtype_of([1u16, 2].iter()), DType::from_descr("'=u2'")?);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait WritableElement: Sized + Sealed {
    /// The dtype, in native byte order, in which `elems` are written. For most types it does
    /// not depend on the values; strings take numpy's choice, the longest item.
    fn dtype_of<'a, I: Iterator<Item = &'a Self>>(elems: I) -> DType
    where
        Self: 'a;

    /// Writes elements in iteration order as `dtype` (a dtype from
    /// [`WritableElement::dtype_of`], in any byte order).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the writer fails; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if a value cannot be stored in
    /// `dtype`.
    fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
        iter: I,
        writer: &mut W,
        dtype: &DType,
    ) -> Result<(), Error>
    where
        Self: 'a;

    /// Writes a contiguous slice as `dtype`. The default goes through
    /// [`write_iter`](WritableElement::write_iter); plain-data types write the memory at once.
    ///
    /// # Errors
    ///
    /// As [`WritableElement::write_iter`].
    fn write_slice<W: Write + ?Sized>(
        slice: &[Self],
        writer: &mut W,
        dtype: &DType,
    ) -> Result<(), Error> {
        Self::write_iter(slice.iter(), writer, dtype)
    }

    /// Writes the elements of `view` in C (row-major) order as `dtype`: one
    /// [`write_slice`](WritableElement::write_slice) if it is C-contiguous, else one element
    /// after another. Plain-data types override the gather with a tiled one.
    ///
    /// # Errors
    ///
    /// As [`WritableElement::write_slice`].
    fn write_strided<W: Write + ?Sized>(
        view: Strided<'_, Self>,
        writer: &mut W,
        dtype: &DType,
    ) -> Result<(), Error> {
        match view.as_slice() {
            Some(slice) => Self::write_slice(slice, writer, dtype),
            None => match view.rows() {
                Some(rows) => Self::write_iter(rows.flatten(), writer, dtype),
                None => Self::write_iter(view.iter(), writer, dtype),
            },
        }
    }
}

/// An element type whose dtype does not depend on its values (numbers, `bool`, fixed-size
/// strings). Files whose header is written before the data (memory maps, appending,
/// streaming writes) need one.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, element::FixedDType};
/// assert_eq!(f64::dtype(), DType::from_descr("'=f8'")?);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait FixedDType: WritableElement {
    /// The dtype of this element type in native byte order.
    fn dtype() -> DType;
}

/// An element type that can be viewed in place in `.npy` data (native byte order, aligned).
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, ViewElement, WriteNpyExt};
/// let mut file = Vec::new();
/// ndarray::array![7u32, 8].write_npy(&mut file)?;
/// let dtype = DType::from_descr("'=u4'")?;
/// assert_eq!(u32::bytes_as_slice(&file[128..], &dtype, 2)?, &[7, 8]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait ViewElement: Sized + Sealed {
    /// Views `bytes` (exactly `len` elements of `dtype`) as a slice.
    ///
    /// # Errors
    ///
    /// a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if `dtype` is not this type in native byte order or the bytes are
    /// misaligned; a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the length is wrong or the bytes are invalid values.
    fn bytes_as_slice<'a>(bytes: &'a [u8], dtype: &DType, len: usize) -> Result<&'a [Self], Error>;
}

/// An element type that can be viewed mutably in place in `.npy` data.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, ViewMutElement, WriteNpyExt};
/// let mut file = Vec::new();
/// ndarray::array![0u16, 0].write_npy(&mut file)?;
/// let dtype = DType::from_descr("'=u2'")?;
/// u16::bytes_as_mut_slice(&mut file[128..], &dtype, 2)?[1] = 9;
/// assert_eq!(&file[130..], &9u16.to_ne_bytes());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait ViewMutElement: ViewElement {
    /// Views `bytes` (exactly `len` elements of `dtype`) as a mutable slice.
    ///
    /// # Errors
    ///
    /// As [`ViewElement::bytes_as_slice`].
    fn bytes_as_mut_slice<'a>(
        bytes: &'a mut [u8],
        dtype: &DType,
        len: usize,
    ) -> Result<&'a mut [Self], Error>;
}
