//! Zero-copy views of `.npy` data held in a byte buffer (a `memmap2::Mmap`, an `include_bytes!`,
//! a `Vec<u8>`).
//!
//! A view costs the header parse and nothing else for numeric types (bool bytes are checked to
//! be 0 or 1, one pass). The buffer must hold exactly the header and the data (ndarray-npy's
//! rule, which catches a wrong file or a wrong slice of one), the data must be in native byte
//! order, and aligned for the element type.

use crate::array::nd::dimension;
use crate::array::options::ReadOptions;
use ndarray::{ArrayView, ArrayViewMut, Dimension, ShapeBuilder};
use ndnpy_engine::base::error::{Error, FormatError};
use ndnpy_engine::element::{ViewElement, ViewMutElement};
use ndnpy_engine::format::header::{Header, HeaderInfo};

use ndnpy_engine::base::error::ndarray_npy::ViewNpyError;

/// Creates a read-only view of `.npy` data in a byte buffer.
///
/// # Examples
///
/// ```
/// use ndarray::ArrayView2;
/// use ndnpy::{ViewNpyExt, WriteNpyExt};
/// let mut bytes = Vec::new();
/// ndarray::array![[1.0f64, 2.0], [3.0, 4.0]].write_npy(&mut bytes)?;
/// let view = ArrayView2::<f64>::view_npy(&bytes)?;
/// assert_eq!(view[[1, 0]], 3.0);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait ViewNpyExt<'a>: Sized {
    /// Views `buf`, which must hold exactly one `.npy` file.
    ///
    /// # Errors
    ///
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the header is malformed, the data is cut short
    /// ([`ErrorKind::Truncated`](crate::ErrorKind::Truncated)) or followed by other bytes ([`ErrorKind::TrailingBytes`](crate::ErrorKind::TrailingBytes));
    /// a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if the dtype or number of dimensions differs, the data is not in
    /// native byte order ([`ErrorKind::CannotView`](crate::ErrorKind::CannotView)) or not aligned
    /// ([`ErrorKind::CannotView`](crate::ErrorKind::CannotView)).
    fn view_npy(buf: &'a [u8]) -> Result<Self, ViewNpyError>;
}

/// Creates a mutable view of `.npy` data in a byte buffer; writes go to the buffer.
///
/// # Examples
///
/// ```
/// use ndarray::ArrayViewMut1;
/// use ndnpy::{ViewMutNpyExt, WriteNpyExt};
/// let mut bytes = Vec::new();
/// ndarray::array![1i32, 2, 3].write_npy(&mut bytes)?;
/// ArrayViewMut1::<i32>::view_mut_npy(&mut bytes)?[0] = 10;
/// assert_eq!(&bytes[128..132], &10i32.to_ne_bytes());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait ViewMutNpyExt<'a>: Sized {
    /// Views `buf` mutably; it must hold exactly one `.npy` file.
    ///
    /// # Errors
    ///
    /// As [`ViewNpyExt::view_npy`].
    fn view_mut_npy(buf: &'a mut [u8]) -> Result<Self, ViewNpyError>;
}

/// Parses the header of `buf` and checks that the data after it is exactly `data_len` bytes
/// (or at least that many when `exact` is false). Returns the header facts.
pub(crate) fn split_data(buf: &[u8], exact: bool) -> Result<HeaderInfo, Error> {
    let mut r = buf;
    let info = Header::read(&mut r, &ReadOptions::default())?;
    let have = r.len();
    info.check_data_within(buf.len() as u64)?;
    if exact && have > info.data_len {
        return Err(FormatError::TrailingBytes {
            expected: info.data_len as u64,
            found: have as u64,
        }
        .into());
    }
    Ok(info)
}

/// A view of `data` (exactly the array's bytes) as described by `info`.
pub(crate) fn view_data<'a, A: ViewElement, D: Dimension>(
    data: &'a [u8],
    info: &HeaderInfo,
) -> Result<ArrayView<'a, A, D>, Error> {
    let dim = dimension::<D>(&info.header.shape)?;
    let slice = A::bytes_as_slice(data, &info.header.dtype, info.num_elements)?;
    ArrayView::from_shape(dim.set_f(info.header.fortran_order), slice).map_err(|_| shape_err(info))
}

/// A mutable view of `data` (exactly the array's bytes) as described by `info`.
pub(crate) fn view_data_mut<'a, A: ViewMutElement, D: Dimension>(
    data: &'a mut [u8],
    info: &HeaderInfo,
) -> Result<ArrayViewMut<'a, A, D>, Error> {
    let dim = dimension::<D>(&info.header.shape)?;
    let slice = A::bytes_as_mut_slice(data, &info.header.dtype, info.num_elements)?;
    ArrayViewMut::from_shape(dim.set_f(info.header.fortran_order), slice)
        .map_err(|_| shape_err(info))
}

fn shape_err(info: &HeaderInfo) -> Error {
    FormatError::ShapeOverflow {
        shape: info.header.shape.clone(),
        itemsize: info.header.dtype.itemsize(),
    }
    .into()
}

/// A view of `buf`, which holds exactly one `.npy` file: [`ViewNpyExt::view_npy`] with ndnpy's
/// error.
pub(crate) fn view<A: ViewElement, D: Dimension>(buf: &[u8]) -> Result<ArrayView<'_, A, D>, Error> {
    let info = split_data(buf, true)?;
    let start = info.data_offset as usize;
    view_data(&buf[start..], &info)
}

impl<'a, A: ViewElement, D: Dimension> ViewNpyExt<'a> for ArrayView<'a, A, D> {
    fn view_npy(buf: &'a [u8]) -> Result<Self, ViewNpyError> {
        Ok(view(buf)?)
    }
}

impl<'a, A: ViewMutElement, D: Dimension> ViewMutNpyExt<'a> for ArrayViewMut<'a, A, D> {
    fn view_mut_npy(buf: &'a mut [u8]) -> Result<Self, ViewNpyError> {
        let info = split_data(buf, true)?;
        let start = info.data_offset as usize;
        Ok(view_data_mut(&mut buf[start..], &info)?)
    }
}
