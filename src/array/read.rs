//! Reading `.npy` data into owned arrays.

use crate::array::nd::dimension;
use crate::array::options::ReadOptions;
use ndarray::{ArrayBase, DataOwned, Dimension, ShapeBuilder};
use ndnpy_engine::base::dtype::DType;
use ndnpy_engine::base::error::{Error, FormatError};
use ndnpy_engine::element::{
    after_header, read_data, read_data_into, Decoded, Input, ReadableElement,
};
use ndnpy_engine::format::header::{Header, HeaderInfo};
use ndnpy_engine::source::whole::read_through;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Reads the `.npy` file at `path`.
///
/// Any type that implements [`ReadNpyExt`] can be read, as with ndarray-npy. The header is
/// read first and the file's length after it, so a file that grows meanwhile (an
/// [`NpyAppender`](crate::NpyAppender) at work) reads as the array its header describes; a
/// regular file's length is checked against the header before the array is allocated, and the
/// array is allocated once, at its final size. Pipes and devices (`/dev/stdin`) are read as
/// streams.
///
/// # Errors
///
/// See [`ReadNpyExt::read_npy`]; also [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be opened, whose
/// message names the path and gives the reason (`cannot open "x.npy": No such file or
/// directory (os error 2)`).
///
/// # Examples
///
/// ```
/// use ndarray::Array2;
/// let a: Array2<f64> = ndnpy::read_npy("testdata/f8_le_c_2x3.npy")?;
/// assert_eq!(a.shape(), [2, 3]);
///
/// // Generic code bounded the ndarray-npy way.
/// fn load<T: ndnpy::ReadNpyExt>(path: &str) -> Result<T, ndnpy::ReadNpyError> {
///     ndnpy::read_npy(path)
/// }
/// let b: Array2<f64> = load("testdata/example.npy")?;
/// assert_eq!(b[[1, 2]], 1.5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn read_npy<P, T>(path: P) -> Result<T, ReadNpyError>
where
    P: AsRef<Path>,
    T: ReadNpyExt,
{
    let path = path.as_ref();
    let mut file = File::open(path).map_err(ndnpy_engine::base::error::with_path("open", path))?;
    Ok(T::read_npy_with_options(
        &mut file,
        &ReadOptions::default(),
    )?)
}

/// The path reader with options: the terminal call of a [`ReadOptions`].
impl ReadOptions {
    /// Reads the `.npy` file at `path` with limits and a thread count other than the defaults
    /// ([`ReadOptions`]).
    ///
    /// # Errors
    ///
    /// As [`read_npy`], with [`ErrorKind::Limit`](crate::ErrorKind::Limit) for the given limits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array2;
    /// use ndnpy::ReadOptions;
    /// let opts = ReadOptions::new().max_header_len(10_000).threads(1);
    /// let a: Array2<f64> = opts.read_npy("testdata/example.npy")?;
    /// assert_eq!(a[[1, 2]], 1.5);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_npy<P, T>(&self, path: P) -> Result<T, Error>
    where
        P: AsRef<Path>,
        T: ReadNpyExt,
    {
        let path = path.as_ref();
        let mut file =
            File::open(path).map_err(ndnpy_engine::base::error::with_path("open", path))?;
        T::read_npy_with_options(&mut file, self)
    }
}

use ndnpy_engine::base::error::ndarray_npy::ReadNpyError;

/// Reads an owned array from `.npy` data.
///
/// # Examples
///
/// ```
/// use ndarray::{Array2, ArrayD};
/// use ndnpy::ReadNpyExt;
/// let bytes = std::fs::read("testdata/example.npy")?;
/// let a = Array2::<f64>::read_npy(&bytes[..])?;
/// let d = ArrayD::<f64>::read_npy(&bytes[..])?; // any dimension
/// assert_eq!(a.into_dyn(), d);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ReadNpyExt: Sized {
    /// Reads one array from `reader`, consuming exactly its header and data: several arrays
    /// written one after another can be read in turn, and bytes after the data are left
    /// unread (as numpy does).
    ///
    /// A `fortran_order` file gives a Fortran-layout array without reordering; non-native byte
    /// order is swapped in place in one pass. Memory grows with the bytes that really arrive,
    /// so a short input claiming a huge array fails as truncated rather than allocating it.
    ///
    /// A `File`, `BufReader<File>`, `&[u8]` or `Cursor` over bytes in memory (by value or
    /// `&mut`) is read through the file or bytes behind it, the way [`read_npy`] reads a path:
    /// the input's length is known before the data is read (a regular file's is taken after
    /// its header), and a large array is read on as many threads as
    /// [`ReadOptions::threads`] allows. The reader is left just past the array all the same
    /// (a `BufReader`'s buffer emptied); a `File` that is a pipe or device is read as a stream.
    ///
    /// # Errors
    ///
    /// - a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the header is malformed or the data is cut short
    ///   ([`ErrorKind::Truncated`](crate::ErrorKind::Truncated)) or invalid ([`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData));
    /// - a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if the file's dtype is not the element type's
    ///   ([`ErrorKind::DType`](crate::ErrorKind::DType)) or its number of dimensions differs from `D`'s
    ///   ([`ErrorKind::Ndim`](crate::ErrorKind::Ndim));
    /// - [`ErrorKind::Limit`](crate::ErrorKind::Limit) if the header exceeds the default [`ReadOptions`];
    /// - [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array1;
    /// use ndnpy::{ReadNpyExt, WriteNpyExt};
    /// let mut stream = Vec::new();
    /// ndarray::array![1i32, 2].write_npy(&mut stream)?;
    /// ndarray::array![3i32].write_npy(&mut stream)?;
    /// let mut reader = &stream[..];
    /// assert_eq!(Array1::<i32>::read_npy(&mut reader)?, ndarray::array![1, 2]);
    /// assert_eq!(Array1::<i32>::read_npy(&mut reader)?, ndarray::array![3]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    fn read_npy<R: Read>(reader: R) -> Result<Self, ReadNpyError>;

    /// Like [`ReadNpyExt::read_npy`], with limits other than the defaults.
    ///
    /// # Errors
    ///
    /// As [`ReadNpyExt::read_npy`], with [`ErrorKind::Limit`](crate::ErrorKind::Limit) for the given limits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array2;
    /// use ndnpy::{ErrorKind, ReadNpyExt, ReadOptions};
    /// let bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
    /// let opts = ReadOptions::new().max_data_len(Some(16));
    /// let err = Array2::<f64>::read_npy_with_options(&bytes[..], &opts).unwrap_err();
    /// assert_eq!((err.kind(), err.byte_counts()), (ErrorKind::Limit, Some((16, 48))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// The default, for a type implemented outside this crate as ndarray-npy let users do
    /// (with `read_npy` only), reads through [`ReadNpyExt::read_npy`]: such a type does its own
    /// reading, and the limits do not apply to it.
    fn read_npy_with_options<R: Read>(reader: R, opts: &ReadOptions) -> Result<Self, Error> {
        let _ = opts;
        Ok(Self::read_npy(reader)?)
    }
}

impl<A, S, D> ReadNpyExt for ArrayBase<S, D>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
{
    fn read_npy<R: Read>(reader: R) -> Result<Self, ReadNpyError> {
        Ok(Self::read_npy_with_options(
            reader,
            &ReadOptions::default(),
        )?)
    }

    fn read_npy_with_options<R: Read>(mut reader: R, opts: &ReadOptions) -> Result<Self, Error> {
        read_through(&mut reader, opts, |r, info, available| {
            read_body(r, info, Input::new(available))
        })
    }
}

/// Reads header and data; `whole` is what is known of the input from the header's first byte
/// (its length, when known, counts the header).
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub(crate) fn read_array<A, S, D, R>(
    reader: &mut R,
    opts: &ReadOptions,
    whole: Input,
) -> Result<ArrayBase<S, D>, Error>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
    R: Read + ?Sized,
{
    let info = Header::read(reader, opts)?;
    let input = after_header(whole, &info);
    read_body(reader, info, input)
}

/// Reads the data described by `info` (the header already consumed) as an array; `input` is
/// what is known of the rest of the reader. The dimension is checked before any data is read.
pub(crate) fn read_body<A, S, D, R>(
    reader: &mut R,
    info: HeaderInfo,
    input: Input,
) -> Result<ArrayBase<S, D>, Error>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
    R: Read + ?Sized,
{
    dimension::<D>(&info.header.shape)?;
    let Decoded {
        data,
        shape,
        fortran_order,
        itemsize,
    } = read_data::<A, R>(reader, info, input)?;
    array_from_vec(data, shape, fortran_order, itemsize)
}

/// `data` as an array of `shape` in C or Fortran layout. The caller has read exactly
/// `shape`'s element count.
pub(crate) fn array_from_vec<A, S, D>(
    data: Vec<A>,
    shape: Vec<usize>,
    fortran_order: bool,
    itemsize: usize,
) -> Result<ArrayBase<S, D>, Error>
where
    S: DataOwned<Elem = A>,
    D: Dimension,
{
    let dim = dimension::<D>(&shape)?;
    ArrayBase::from_shape_vec(dim.set_f(fortran_order), data)
        .map_err(|_| FormatError::ShapeOverflow { shape, itemsize }.into())
}

/// Reads the `.npy` file at `path` into `out`, memory the caller owns: for reading many
/// files of one shape without allocating per file (numpy's long-requested `np.load(...,
/// out=)`). The file's shape must be `out`'s; either may be in C or Fortran order (or `out`
/// any strided view), the file in either byte order, with numpy's rules for the dtype (the
/// element types and dtypes [`read_npy`] reads). When the two layouts agree the data is read
/// straight into `out`; otherwise it passes through a 64 KiB buffer.
///
/// # Errors
///
/// As [`read_npy`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if the file's shape
/// is not `out`'s (checked before any data is read; `out` is then unchanged). After a
/// later error (a truncated file, an invalid value) `out` holds part of the data.
///
/// # Examples
///
/// ```
/// use ndarray::Array2;
/// let mut buffer = Array2::<i64>::zeros((2, 3));
/// for path in ["testdata/i8_le_c_2x3.npy", "testdata/i8_be_c_2x3.npy"] {
///     ndnpy::read_npy_into(path, buffer.view_mut())?; // no array allocated per file
///     assert_eq!(buffer, ndnpy::read_npy::<_, Array2<i64>>(path)?);
/// }
/// let err = ndnpy::read_npy_into("testdata/f8_le_f_3x4.npy", buffer.view_mut()).unwrap_err();
/// assert_eq!((err.kind(), err.shape()), (ndnpy::ErrorKind::Shape, Some(&[3, 4][..])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_npy_into<P, A, D>(path: P, out: ndarray::ArrayViewMut<'_, A, D>) -> Result<(), Error>
where
    P: AsRef<Path>,
    A: ReadableElement,
    D: Dimension,
{
    ReadOptions::default().read_npy_into(path, out)
}

impl ReadOptions {
    /// [`read_npy_into`] with limits and a thread count other than the defaults.
    ///
    /// # Errors
    ///
    /// As [`read_npy_into`], with [`ErrorKind::Limit`](crate::ErrorKind::Limit) for the given
    /// limits.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut buffer = ndarray::Array2::<f64>::zeros((2, 3));
    /// ndnpy::ReadOptions::new().threads(1).read_npy_into("testdata/example.npy", buffer.view_mut())?;
    /// assert_eq!(buffer[[1, 2]], 1.5);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_npy_into<P, A, D>(
        &self,
        path: P,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error>
    where
        P: AsRef<Path>,
        A: ReadableElement,
        D: Dimension,
    {
        let path = path.as_ref();
        let mut file =
            File::open(path).map_err(ndnpy_engine::base::error::with_path("open", path))?;
        #[cfg(unix)]
        match read_file_into(&file, self, out.into_dyn()) {
            Err(Fallback::Stream(out)) => self.read_into(&mut file, out),
            Err(Fallback::Failed(e)) => Err(e),
            Ok(()) => Ok(()),
        }
        #[cfg(not(unix))]
        self.read_into(&mut file, out)
    }

    /// Reads one array from `reader` into `out`, as [`read_npy_into`] reads a file: a `File`,
    /// `BufReader<File>`, `&[u8]` or `Cursor` over bytes is read through the file or bytes
    /// behind it, as [`ReadNpyExt::read_npy`] does, and any other reader as a stream. The
    /// reader is left just past the array.
    ///
    /// # Errors
    ///
    /// As [`read_npy_into`].
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = std::fs::read("testdata/i4_be_f_3x4.npy")?; // big-endian, Fortran order
    /// let mut buffer = ndarray::Array2::<i32>::zeros((3, 4)); // C order
    /// ndnpy::ReadOptions::new().read_into(&bytes[..], buffer.view_mut())?;
    /// assert_eq!(buffer, ndnpy::read_npy::<_, ndarray::Array2<i32>>("testdata/i4_be_f_3x4.npy")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_into<R, A, D>(
        &self,
        mut reader: R,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error>
    where
        R: Read,
        A: ReadableElement,
        D: Dimension,
    {
        read_through(&mut reader, self, |r, info, _| {
            let h = &info.header;
            read_body_into(r, (&h.dtype, h.fortran_order, &h.shape), out.into_dyn())
        })
    }
}

/// Why [`read_file_into`] did not read: the file cannot be read by positioned reads (a
/// pipe or device; the buffer is handed back for a read as a stream), or the read failed.
#[cfg(unix)]
enum Fallback<'o, A> {
    Stream(ndarray::ArrayViewMutD<'o, A>),
    Failed(Error),
}

#[cfg(unix)]
impl<A> From<Error> for Fallback<'_, A> {
    fn from(e: Error) -> Self {
        Fallback::Failed(e)
    }
}

/// Reads the `.npy` file `file`, opened by this crate (its position is not the caller's to
/// keep), into `out`: the header and the data's first bytes by one positioned read of
/// 4 KiB, the rest of the data straight into `out`. A small file costs two reads where a
/// reader of it takes six system calls (the header's three reads, its length, two seeks).
#[cfg(unix)]
fn read_file_into<'o, A: ReadableElement>(
    file: &File,
    opts: &ReadOptions,
    out: ndarray::ArrayViewMutD<'o, A>,
) -> Result<(), Fallback<'o, A>> {
    let mut head = [0u8; 4096];
    let n = match ndnpy_engine::source::pio::read_full_at(file, &mut head, 0) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::NotSeekable => {
            return Err(Fallback::Stream(out));
        }
        Err(e) => return Err(Error::from(e).into()),
    };
    let rest = ndnpy_engine::source::pio::SplitFile::new(file, n as u64, opts.threads);
    let mut reader = (&head[..n]).chain(rest);
    let info = Header::read(&mut reader, opts)?;
    let h = &info.header;
    Ok(read_body_into(
        &mut reader,
        (&h.dtype, h.fortran_order, &h.shape),
        out,
    )?)
}

/// Reads data of `dtype`, in Fortran order or not, of `shape` (an array's, or a selection's)
/// from `reader` into `out`, which must have that shape ([`read_data_into`], on the view as
/// the engine's strided view).
pub(crate) fn read_body_into<A, R>(
    reader: &mut R,
    layout: (&DType, bool, &[usize]),
    out: ndarray::ArrayViewMutD<'_, A>,
) -> Result<(), Error>
where
    A: ReadableElement,
    R: Read + ?Sized,
{
    read_data_into(reader, layout, crate::array::nd::strided_mut(out))
}
