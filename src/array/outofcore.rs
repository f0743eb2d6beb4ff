//! Out-of-core `.npy` work: partial reads, files that grow, and writes produced block by
//! block.
//!
//! The *growth axis* is the one along which an `.npy` file's data is contiguous in blocks:
//! the first axis of a C-order file, the last axis of a Fortran-order file. numpy (>= 1.24)
//! leaves room in every header for that axis to grow to 21 digits, so a file can be extended
//! by writing data at its end and then rewriting the header in place.
//!
//! - [`NpyReader`] reads a range along the growth axis, one element, a region or the whole
//!   array from any byte source ([`ReadAt`]) without touching the rest.
//! - [`NpyAppender`] appends blocks to a file on disk, crash-safely.
//! - [`NpyWriter`] writes an array of known shape block by block to any `Write`.

use crate::array::encode::write_c_order;
use crate::array::nd::shape_and_order;
use crate::array::options::ReadOptions;
use crate::array::write::WriteOptions;
use ndarray::{
    Array, ArrayBase, ArrayView, Axis, Data, Dimension, IntoDimension, IxDyn, ShapeBuilder,
    SliceArg,
};
use ndnpy_engine::base::dtype::ByteOrder;
use ndnpy_engine::base::dtype::DType;
use ndnpy_engine::base::error::{truncated, wrong_dtype, Error, UsageError};
use ndnpy_engine::element::{FixedDType, ReadableElement, WritableElement};
use ndnpy_engine::format::header::{growth_axis, Header, HeaderInfo, Version};
use ndnpy_engine::platform::fsutil::{replace_atomically, sync_data, Sync};
use ndnpy_engine::source::{ReadAt, SourceReader};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Reads parts of an `.npy` array from a byte source ([`ReadAt`]): a range along the growth
/// axis, single elements, regions, without reading the rest.
///
/// # Examples
///
/// ```
/// use ndarray::{s, Array2};
/// use ndnpy::NpyReader;
/// let file = std::fs::File::open("testdata/i4_le_c_2x3x4.npy")?;
/// let mut npy = NpyReader::new(file)?;
/// let slab: ndarray::Array3<i32> = npy.read_rows(1..2)?; // the second 3x4 plane
/// let all: ndarray::Array3<i32> = ndnpy::read_npy("testdata/i4_le_c_2x3x4.npy")?;
/// assert_eq!(slab, all.slice(s![1..2, .., ..]));
/// assert_eq!(npy.read_element::<i32>(&[1, 2, 3])?, all[[1, 2, 3]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct NpyReader<S> {
    /// The source, read through at its header.
    inner: SourceReader<S>,
    info: HeaderInfo,
    /// The source's length, measured at the open.
    end: u64,
    /// The threads a read of a file may use ([`ReadOptions::threads`]).
    threads: usize,
}

impl<S: ReadAt> NpyReader<S> {
    /// Reads the header at the start of `source`, a [`ReadAt`]: a `File` (or `&File`,
    /// `&mut File`, `BufReader<File>`), bytes in memory (`&[u8]`, `Vec<u8>`, a `Cursor` of
    /// them: all its bytes, wherever its position; a map as `&map[..]`), an object in a store
    /// (`RemoteFile`, feature `object_store`), any `Read + Seek` named as
    /// [`Seeking`](crate::source::Seeking), part of any of these as
    /// [`Section`](crate::source::Section), or a type of the caller's own. Its regions, rows,
    /// elements and whole array are then read as that type reads: a file by positioned reads
    /// (on Unix a selection of many runs on two threads), bytes in memory copied straight, an
    /// object in a store by concurrent ranged requests, a caller's type by its own `read_at`
    /// and `read_many`.
    ///
    /// # Errors
    ///
    /// As [`Header::read`], and [`ErrorKind::Io`](crate::ErrorKind::Io) if the source fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let npy = ndnpy::NpyReader::new(std::fs::read("testdata/example.npy")?)?;
    /// assert_eq!(npy.info().header.shape, [2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(inner: S) -> Result<NpyReader<S>, Error> {
        NpyReader::with_options(inner, &ReadOptions::default())
    }

    /// Like [`NpyReader::new`], with other limits.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// let file = std::fs::File::open("testdata/v2_huge_header.npy")?;
    /// let opts = ndnpy::ReadOptions::new().max_header_len(10_000);
    /// assert!(ndnpy::NpyReader::with_options(file, &opts).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_options(source: S, opts: &ReadOptions) -> Result<NpyReader<S>, Error> {
        let mut inner = SourceReader::new(source)?;
        let info = Header::read(&mut inner, opts)?;
        let end = inner.measured_len();
        Ok(NpyReader {
            inner,
            info,
            end,
            threads: opts.threads,
        })
    }

    /// The header, version and data offset.
    ///
    /// ```
    /// let npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/f8_be_f_3x4.npy")?)?;
    /// assert!(npy.info().header.fortran_order);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// Reads steps `rows` along the growth axis (the first axis of a C-order file, the last of
    /// a Fortran-order file). The result has the file's number of dimensions, `rows.len()`
    /// along that axis, and the file's layout. Only those bytes are read.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the range exceeds the axis; [`ErrorKind::Usage`](crate::ErrorKind::Usage)
    /// for a 0-d array; a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) for a wrong element type or dimension;
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the file is shorter than its header says.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/f8_le_f_3x4.npy")?)?;
    /// let cols: ndarray::Array2<f64> = npy.read_rows(2..4)?; // Fortran: the last axis
    /// assert_eq!(cols.shape(), [3, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_rows<A: ReadableElement, D: Dimension>(
        &mut self,
        rows: Range<usize>,
    ) -> Result<Array<A, D>, Error> {
        let elems = crate::array::region::rows(&self.info.header, rows)?;
        self.region(&elems)
    }

    /// Reads the element at `index` (one index per dimension; `&[]` for a 0-d array).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a wrong index; a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) for a wrong element
    /// type; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the file is shorter than its header says.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/example.npy")?)?;
    /// assert_eq!(npy.read_element::<f64>(&[1, 2])?, 1.5);
    /// assert!(npy.read_element::<f64>(&[2, 0]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_element<A: ReadableElement>(&mut self, index: &[usize]) -> Result<A, Error> {
        let elems = crate::array::region::element(&self.info.header, index)?;
        Ok(self.region::<A, ndarray::Ix0>(&elems)?.into_scalar())
    }

    /// Reads the region `selection` of the array, in ndarray's slice syntax (`s![..]`: ranges
    /// with steps, negative steps, single indices that drop an axis, `NewAxis`): the array
    /// `read_npy(..)?.slice(selection).to_owned()` gives, in the file's layout, reading only
    /// the runs of bytes the selection covers (runs less than 4 KiB apart are read as one).
    /// Any element type and byte order; the source must hold the whole data.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the selection does not have one
    /// element per axis or lies outside the shape (naming the axis); a mismatch
    /// ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) for a wrong element type
    /// or dimension; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the source is
    /// shorter than its header says.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/example.npy")?)?;
    /// let a: ndarray::Array1<f64> = npy.read_slice(s![.., 2])?; // the last column
    /// assert_eq!(a, array![0.0, 1.5]);
    /// let b: ndarray::Array2<f64> = npy.read_slice(s![..;-1, 1..;2])?;
    /// assert_eq!(b, array![[1.0], [-0.5]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_slice<A, I>(&mut self, selection: I) -> Result<Array<A, I::OutDim>, Error>
    where
        A: ReadableElement,
        I: SliceArg<IxDyn>,
    {
        self.info.check_data_within(self.end)?;
        self.region(selection.as_ref())
    }

    /// Reads the region `selection` of an array of any dtype, as [`NpyReader::read_slice`]
    /// does, into a [`DynArray`](crate::DynArray): for tools that learn the dtype from the
    /// file (a viewer, a server, the command line). Only the selected runs are read, through
    /// every source `read_slice` takes (a file, memory, any `Read + Seek` as `Seeking`, an
    /// object in a store). Object arrays are refused: their elements are pickled as a whole.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice`]; a mismatch
    /// ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) for an object array.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::s;
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/example.npy")?)?;
    /// let col = npy.read_slice_dyn(s![.., 2])?; // whatever the dtype
    /// assert_eq!((col.dtype().descr(), col.shape()), ("'<f8'".to_string(), &[2][..]));
    /// assert_eq!(col.as_array::<f64>().unwrap().as_slice().unwrap(), [0.0, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_slice_dyn<I: SliceArg<IxDyn>>(
        &mut self,
        selection: I,
    ) -> Result<crate::array::dynamic::DynArray, Error> {
        self.info.check_data_within(self.end)?;
        let available = self.end.saturating_sub(self.info.data_offset);
        let (info, start) = (&self.info, self.info.data_offset);
        let (inner, threads) = (SourceReader::positioned(&mut self.inner), self.threads);
        let elems = selection.as_ref();
        crate::array::region::read_from_dyn(info, elems, inner, start, Some(available), threads)
    }

    /// Reads the whole array into `out`, memory the caller owns, as
    /// [`read_npy_into`](crate::read_npy_into) does for a path: `out` must have the file's
    /// shape, in either order (or be any strided view); the data is read straight into it
    /// when the layouts agree, else through a 64 KiB buffer.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_array`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if
    /// `out`'s shape is not the file's (before anything is read; `out` is then unchanged).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut buffer = ndarray::Array2::<f64>::zeros((2, 3));
    /// let file = std::fs::File::open("testdata/example.npy")?;
    /// ndnpy::NpyReader::new(file)?.read_into(buffer.view_mut())?;
    /// assert_eq!(buffer[[1, 2]], 1.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_into<A: ReadableElement, D: Dimension>(
        &mut self,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error> {
        let elems = crate::array::region::whole(&self.info.header);
        self.region_into(&elems, out.into_dyn())
    }

    /// Reads steps `rows` along the growth axis, as [`NpyReader::read_rows`] does, into
    /// `out`: an array of the file's number of dimensions with `rows.len()` steps along that
    /// axis, in either order.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_rows`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if
    /// `out`'s shape is not the rows' (before anything is read).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut rows = ndarray::Array3::<i32>::zeros((1, 3, 4));
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/i4_le_c_2x3x4.npy")?)?;
    /// for i in 0..2 {
    ///     npy.read_rows_into(i..i + 1, rows.view_mut())?; // one 3x4 plane at a time
    ///     assert_eq!(rows, npy.read_rows::<i32, ndarray::Ix3>(i..i + 1)?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_rows_into<A: ReadableElement, D: Dimension>(
        &mut self,
        rows: Range<usize>,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error> {
        let elems = crate::array::region::rows(&self.info.header, rows)?;
        self.region_into(&elems, out.into_dyn())
    }

    /// Reads the region `selection`, as [`NpyReader::read_slice`] does, into `out`: an array
    /// of the selection's shape (`read_slice(selection)?.shape()`), in either order, or any
    /// strided view. Only the runs of bytes the selection covers are read.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if
    /// `out`'s shape is not the selection's (before anything is read).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/example.npy")?)?;
    /// let mut column = ndarray::Array1::<f64>::zeros(2);
    /// npy.read_slice_into(s![.., 2], column.view_mut())?;
    /// assert_eq!(column, array![0.0, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_slice_into<A, I, D>(
        &mut self,
        selection: I,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error>
    where
        A: ReadableElement,
        I: SliceArg<IxDyn>,
        D: Dimension,
    {
        self.info.check_data_within(self.end)?;
        self.region_into(selection.as_ref(), out.into_dyn())
    }

    /// [`NpyReader::region`] into the caller's `out`.
    fn region_into<A: ReadableElement>(
        &mut self,
        elems: &[ndarray::SliceInfoElem],
        out: ndarray::ArrayViewMutD<'_, A>,
    ) -> Result<(), Error> {
        let available = self.end.saturating_sub(self.info.data_offset);
        let at = (self.info.data_offset, Some(available), self.threads);
        let inner = SourceReader::positioned(&mut self.inner);
        crate::array::region::read_from_into(&self.info, elems, inner, at, out)
    }

    /// Reads the whole array.
    ///
    /// # Errors
    ///
    /// As [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npy = ndnpy::NpyReader::new(std::fs::File::open("testdata/example.npy")?)?;
    /// let a: ndarray::Array2<f64> = npy.read_array()?;
    /// assert_eq!(a[[0, 0]], -1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_array<A: ReadableElement, D: Dimension>(&mut self) -> Result<Array<A, D>, Error> {
        self.region(&crate::array::region::whole(&self.info.header))
    }

    /// Reads the selection `elems` (the one engine of every read here: rows, an element, a
    /// region, the whole array), only the bytes it covers.
    fn region<A: ReadableElement, D: Dimension>(
        &mut self,
        elems: &[ndarray::SliceInfoElem],
    ) -> Result<Array<A, D>, Error> {
        let available = self.end.saturating_sub(self.info.data_offset);
        let (info, start) = (&self.info, self.info.data_offset);
        let (inner, threads) = (SourceReader::positioned(&mut self.inner), self.threads);
        crate::array::region::read_from(info, elems, inner, start, Some(available), threads)
    }

    /// The source.
    ///
    /// ```
    /// let npy = ndnpy::NpyReader::new(std::fs::read("testdata/example.npy")?)?;
    /// assert_eq!(npy.into_inner().len(), 176);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_inner(self) -> S {
        self.inner.into_inner()
    }
}

/// Checks that `block` fits `shape` (all dimensions but `axis` equal; or one dimension fewer,
/// a single step) and returns it with the file's number of dimensions and its step count.
fn fit_block<'a, A, D: Dimension>(
    block: ArrayView<'a, A, D>,
    shape: &[usize],
    axis: usize,
) -> Result<(ArrayView<'a, A, IxDyn>, usize), Error> {
    let given = block.shape().to_vec();
    let mut block = block.into_dyn();
    if block.ndim() + 1 == shape.len() {
        block = block.insert_axis(Axis(axis));
    }
    let fits = block.ndim() == shape.len()
        && block
            .shape()
            .iter()
            .zip(shape)
            .enumerate()
            .all(|(i, (&b, &s))| i == axis || b == s);
    if !fits {
        return Err(UsageError::BlockShape {
            expected: shape.to_vec(),
            axis,
            found: given,
        }
        .into());
    }
    let steps = block.shape()[axis];
    Ok((block, steps))
}

/// Writes `block` in the file's memory order: C order, or Fortran order (C order of the
/// transpose).
fn write_block_data<A: WritableElement, W: Write + ?Sized>(
    block: &ArrayView<'_, A, IxDyn>,
    fortran_order: bool,
    writer: &mut W,
    dtype: &DType,
) -> Result<(), Error> {
    if fortran_order {
        write_c_order(&block.t(), writer, dtype)
    } else {
        write_c_order(block, writer, dtype)
    }
}

/// Appends blocks to an `.npy` file along its growth axis (the first axis for C order, the
/// last for Fortran order), updating the shape in the header in place.
///
/// # Crash safety
///
/// Each [`append`](NpyAppender::append) writes in this order:
///
/// 1. the block's data, after the existing data (the header still gives the old shape, and
///    readers, numpy included, ignore bytes after the data);
/// 2. the header with the new shape, in one write of the same length over the old header
///    (numpy's growth padding leaves room for the axis to reach 21 digits).
///
/// So a crash during step 1 leaves a file that loads with the old shape, and after step 2
/// with the new one. The header is at most a few hundred bytes at the start of the file, one
/// write within one page and usually one disk sector. With
/// [`set_durable(true)`](NpyAppender::set_durable) each step is followed by `fsync`, so the
/// order also holds across power loss. If a header has no room for the new shape (files from
/// writers without growth padding), the file is rewritten whole where no reader sees it and
/// renamed into place, so the old file stays intact until the new one is complete (durable:
/// with the file and directory flushed, as [`WriteOptions::write_npy`](crate::WriteOptions::write_npy)
/// does). [`create`](NpyAppender::create) replaces a file the same way.
///
/// Readers may read the file while it grows: [`read_npy`](crate::read_npy) and
/// [`NpyMmap::open`](crate::NpyMmap::open) read the header first and then only the data it
/// describes, so they see the array as of some append, never a failure.
///
/// # Examples
///
/// ```
/// use ndnpy::NpyAppender;
/// let dir = std::env::temp_dir().join(format!("ndnpy-doc-append-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("log.npy");
/// let mut app = NpyAppender::<f32>::create(&path, (0, 3), false)?;
/// app.append(&ndarray::array![[1.0, 2.0, 3.0]])?;
/// app.append(&ndarray::array![4.0, 5.0, 6.0])?; // one row
/// assert_eq!(app.shape(), [2, 3]);
/// let back: ndarray::Array2<f32> = ndnpy::read_npy(&path)?;
/// assert_eq!(back, ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct NpyAppender<A> {
    file: File,
    path: PathBuf,
    header: Header,
    version: Version,
    data_offset: u64,
    axis: usize,
    durable: bool,
    _elem: PhantomData<fn(A)>,
}

impl<A: FixedDType> NpyAppender<A> {
    /// Creates (or replaces, atomically) the file at `path` with an array of `shape`, usually
    /// 0 along the growth axis: `(0, 3)` for rows of 3 in C order, or `(3, 0)` with
    /// `fortran_order` for columns of 3 in Fortran order. (The order is a flag rather than
    /// ndarray's `.f()` because ndarray cannot tell C from Fortran for empty shapes.)
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be written; [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a 0-d
    /// shape.
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-fcreate-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut app = ndnpy::NpyAppender::<i16>::create(dir.join("cols.npy"), (2, 0), true)?;
    /// app.append(&ndarray::array![[1i16, 2, 3], [4, 5, 6]])?; // three columns
    /// assert_eq!(app.shape(), [2, 3]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create<P: AsRef<Path>, Sh: IntoDimension>(
        path: P,
        shape: Sh,
        fortran_order: bool,
    ) -> Result<NpyAppender<A>, Error> {
        NpyAppender::create_with_options(path, shape, fortran_order, &WriteOptions::new())
    }

    /// Like [`NpyAppender::create`], with options: the byte order of the file (kept by every
    /// append), and [`WriteOptions::durable`]. Durable, the new file is flushed to the disk
    /// before it takes its name and the directory after, and the appender starts with
    /// [`set_durable(true)`](NpyAppender::set_durable), so every append is durable too.
    ///
    /// # Errors
    ///
    /// As [`NpyAppender::create`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, NpyAppender, WriteOptions};
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-app-opts-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("be.npy");
    /// let opts = WriteOptions::new().byte_order(ByteOrder::Big).durable(true);
    /// let mut app = NpyAppender::<u16>::create_with_options(&path, (0, 2), false, &opts)?;
    /// app.append(&ndarray::array![1u16, 2])?; // written and synced: data, then header
    /// assert_eq!(&std::fs::read(&path)?[128..], &[0, 1, 0, 2]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_with_options<P: AsRef<Path>, Sh: IntoDimension>(
        path: P,
        shape: Sh,
        fortran_order: bool,
        opts: &WriteOptions,
    ) -> Result<NpyAppender<A>, Error> {
        let dims = shape.into_dimension().into_dyn();
        if dims.ndim() == 0 {
            return Err(UsageError::NoGrowthAxis.into());
        }
        let header = Header {
            dtype: A::dtype().with_byte_order(opts.byte_order),
            fortran_order,
            shape: dims.slice().to_vec(),
        };
        let (_, data_len) = header.sizes().map_err(Error::blame_caller)?;
        let bytes = header.to_bytes()?;
        let path = path.as_ref();
        replace_atomically(path, opts.sync(), |file| {
            file.write_all(&bytes)?;
            file.set_len((bytes.len() + data_len) as u64)?;
            Ok(())
        })?;
        let mut app = NpyAppender::open(path)?;
        app.set_durable(opts.durable);
        Ok(app)
    }

    /// Opens an existing `.npy` file (written by numpy or by this crate) to append to it. The
    /// file's byte order is kept.
    ///
    /// # Errors
    ///
    /// As [`Header::read`]; a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if the dtype is not `A`'s (in either byte
    /// order); [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a 0-d array; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the
    /// file is shorter than its header says.
    ///
    /// # Examples
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ndnpy-doc-reopen-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("big_endian.npy");
    /// std::fs::copy("testdata/i2_be_c_5.npy", &path)?;
    /// let mut app = ndnpy::NpyAppender::<i16>::open(&path)?;
    /// app.append(&ndarray::array![7i16, 8])?;
    /// let back: ndarray::Array1<i16> = ndnpy::read_npy(&path)?;
    /// assert_eq!(back.len(), 7);
    /// assert_eq!(back[6], 8);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open<P: AsRef<Path>>(path: P) -> Result<NpyAppender<A>, Error> {
        let path = path.as_ref().to_path_buf();
        let mut file = File::options()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(ndnpy_engine::base::error::with_path("open", &path))?;
        let info = Header::read(&mut file, &ReadOptions::default())?;
        if info.header.dtype.with_byte_order(ByteOrder::NATIVE) != A::dtype() {
            return Err(wrong_dtype(std::any::type_name::<A>(), info.header.dtype));
        }
        let axis = growth_axis(&info.header)?;
        info.check_data_within(file.metadata()?.len())?;
        let header = info.header;
        Ok(NpyAppender {
            file,
            path,
            header,
            version: info.version,
            data_offset: info.data_offset,
            axis,
            durable: false,
            _elem: PhantomData,
        })
    }

    /// With `true`, each append waits for the data, then the header, to reach the disk
    /// (`fsync`), so its crash guarantee holds across power loss too. Default `false`.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-durable-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut app = ndnpy::NpyAppender::<u8>::create(dir.join("d.npy"), 0, false)?;
    /// app.set_durable(true);
    /// app.append(&ndarray::array![1u8, 2])?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_durable(&mut self, durable: bool) {
        self.durable = durable;
    }

    /// The array's current shape.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-shape-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let app = ndnpy::NpyAppender::<u8>::create(dir.join("s.npy"), (0, 2, 2), false)?;
    /// assert_eq!(app.shape(), [0, 2, 2]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.header.shape
    }

    /// Appends `block` along the growth axis. Its other dimensions must equal the file's; a
    /// block with one dimension fewer is a single step (one row).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the block does not fit (nothing is written);
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the array would outgrow the address space;
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails (the file then still loads with its previous shape,
    /// unless the failure hit the header write itself).
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-append-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut app = ndnpy::NpyAppender::<f32>::create(dir.join("rows.npy"), (0, 3), false)?;
    /// app.append(&ndarray::array![1.0f32, 2.0, 3.0])?; // one row
    /// app.append(&ndarray::array![[4.0f32, 5.0, 6.0], [7.0, 8.0, 9.0]])?; // two rows
    /// let err = app.append(&ndarray::array![1.0f32, 2.0]).unwrap_err(); // two columns, not three
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::Usage);
    /// assert_eq!(app.shape(), [3, 3]); // nothing written
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn append<S: Data<Elem = A>, D: Dimension>(
        &mut self,
        block: &ArrayBase<S, D>,
    ) -> Result<(), Error> {
        let (block, steps) = fit_block(block.view(), &self.header.shape, self.axis)?;
        if steps == 0 {
            return Ok(());
        }
        let mut new_header = self.header.clone();
        new_header.shape[self.axis] =
            self.header.shape[self.axis]
                .checked_add(steps)
                .ok_or_else(|| UsageError::ShapeOverflow {
                    shape: self.header.shape.clone(),
                    itemsize: self.header.dtype.itemsize(),
                })?;
        let (_, old_len) = self.header.sizes()?;
        new_header.sizes().map_err(Error::blame_caller)?;

        // 1. The data, after the existing data.
        self.file
            .seek(SeekFrom::Start(self.data_offset + old_len as u64))?;
        write_block_data(
            &block,
            self.header.fortran_order,
            &mut self.file,
            &self.header.dtype,
        )?;
        if self.durable {
            sync_data(&self.file)?;
        }
        // 2. The header, in place if it has the room.
        match new_header.to_bytes_with_version(self.version) {
            Ok(bytes) if bytes.len() as u64 == self.data_offset => {
                self.file.seek(SeekFrom::Start(0))?;
                self.file.write_all(&bytes)?;
                if self.durable {
                    sync_data(&self.file)?;
                }
            }
            _ => self.rewrite(&new_header)?,
        }
        self.header = new_header;
        Ok(())
    }

    /// Rewrites the whole file with `header` under a temporary name and renames it into place.
    fn rewrite(&mut self, header: &Header) -> Result<(), Error> {
        let bytes = header.to_bytes()?;
        let (_, data_len) = header.sizes()?;
        let old = &mut self.file;
        let data_offset = self.data_offset;
        let sync = Sync::durable_if(self.durable);
        let ((), file) = replace_atomically(&self.path, sync, |new| {
            new.write_all(&bytes)?;
            old.seek(SeekFrom::Start(data_offset))?;
            let copied = io::copy(&mut Read::by_ref(old).take(data_len as u64), new)?;
            if copied != data_len as u64 {
                return Err(truncated(data_len as u64, copied));
            }
            Ok(())
        })?;
        let info = Header::read(&mut &bytes[..], &ReadOptions::default())?;
        self.file = file;
        self.version = info.version;
        self.data_offset = info.data_offset;
        Ok(())
    }
}

/// Writes one `.npy` array of known shape to any `Write`, block by block, without holding it
/// in memory. Blocks are steps along the growth axis (rows of a C-order array, columns of a
/// Fortran-order one), or raw element slices in file order.
///
/// [`finish`](NpyWriter::finish) checks that every element was written: stopping early is an
/// error, never a silently short file.
///
/// # Examples
///
/// ```
/// use ndnpy::NpyWriter;
/// let mut out = Vec::new();
/// let mut w = NpyWriter::<_, f64>::new(&mut out, (3, 2))?;
/// for i in 0..3 {
///     w.write_block(&ndarray::array![i as f64, 10.0 * i as f64])?; // one row at a time
/// }
/// w.finish()?;
/// let a: ndarray::Array2<f64> = ndnpy::ReadNpyExt::read_npy(&out[..])?;
/// assert_eq!(a, ndarray::array![[0.0, 0.0], [1.0, 10.0], [2.0, 20.0]]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyWriter<W: Write, A> {
    writer: W,
    header: Header,
    axis: Option<usize>,
    expected: usize,
    written: usize,
    _elem: PhantomData<fn(A)>,
}

impl<W: Write, A: FixedDType> NpyWriter<W, A> {
    /// Writes the header for an array of `shape` (C order, or Fortran with `.f()`), in native
    /// byte order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails; [`ErrorKind::Usage`](crate::ErrorKind::Usage) for an unaddressable
    /// shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::ShapeBuilder;
    /// let mut w = ndnpy::NpyWriter::<_, i64>::new(Vec::new(), (2, 3).f())?;
    /// w.write_slice(&[1, 4, 2, 5, 3, 6])?; // Fortran order: column by column
    /// let bytes = w.finish()?;
    /// let a: ndarray::Array2<i64> = ndnpy::ReadNpyExt::read_npy(&bytes[..])?;
    /// assert_eq!(a, ndarray::array![[1, 2, 3], [4, 5, 6]]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new<Sh: ShapeBuilder>(writer: W, shape: Sh) -> Result<NpyWriter<W, A>, Error> {
        NpyWriter::with_options(writer, shape, &WriteOptions::default())
    }

    /// Like [`NpyWriter::new`], with options (the byte order).
    ///
    /// # Errors
    ///
    /// As [`NpyWriter::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, NpyWriter, WriteOptions};
    /// let opts = WriteOptions::new().byte_order(ByteOrder::Big);
    /// let mut w = NpyWriter::<_, u16>::with_options(Vec::new(), 2, &opts)?;
    /// w.write_slice(&[1, 2])?;
    /// assert_eq!(&w.finish()?[128..], &[0, 1, 0, 2]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn with_options<Sh: ShapeBuilder>(
        mut writer: W,
        shape: Sh,
        opts: &WriteOptions,
    ) -> Result<NpyWriter<W, A>, Error> {
        let (dims, fortran_order) = shape_and_order(shape)?;
        let order = opts.byte_order;
        let header = Header {
            dtype: A::dtype().with_byte_order(order),
            fortran_order,
            shape: dims,
        };
        let (expected, _) = header.sizes().map_err(Error::blame_caller)?;
        writer.write_all(&header.to_bytes()?)?;
        let axis = growth_axis(&header).ok();
        Ok(NpyWriter {
            writer,
            header,
            axis,
            expected,
            written: 0,
            _elem: PhantomData,
        })
    }

    fn reserve(&mut self, n: usize) -> Result<(), Error> {
        match self.written.checked_add(n) {
            Some(total) if total <= self.expected => {
                self.written = total;
                Ok(())
            }
            _ => Err(UsageError::ElementCount {
                expected: self.expected,
                written: self.written.saturating_add(n),
            }
            .into()),
        }
    }

    /// Writes elements in the file's memory order (C order, or Fortran order for a
    /// Fortran-order shape).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if this would exceed the array (nothing is written);
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut w = ndnpy::NpyWriter::<_, u8>::new(Vec::new(), 4)?;
    /// w.write_slice(&[1, 2, 3])?;
    /// let err = w.write_slice(&[4, 5]).unwrap_err(); // one too many: nothing written
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::Usage);
    /// w.write_slice(&[4])?;
    /// assert_eq!(&w.finish()?[128..], &[1, 2, 3, 4]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn write_slice(&mut self, elems: &[A]) -> Result<(), Error> {
        self.reserve(elems.len())?;
        A::write_slice(elems, &mut self.writer, &self.header.dtype)
    }

    /// Writes a block of steps along the growth axis (rows for C order, columns for Fortran
    /// order), or one step given with one dimension fewer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the block does not fit;
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if it would exceed the array (nothing is written in
    /// either case); [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::ShapeBuilder;
    /// let mut w = ndnpy::NpyWriter::<_, f64>::new(Vec::new(), (2, 3).f())?;
    /// w.write_block(&ndarray::array![[1.0, 2.0], [4.0, 5.0]])?; // the first two columns
    /// w.write_block(&ndarray::array![3.0, 6.0])?; // the last one
    /// let a: ndarray::Array2<f64> = ndnpy::ReadNpyExt::read_npy(&w.finish()?[..])?;
    /// assert_eq!(a, ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn write_block<S: Data<Elem = A>, D: Dimension>(
        &mut self,
        block: &ArrayBase<S, D>,
    ) -> Result<(), Error> {
        let axis = self.axis.ok_or(UsageError::NoGrowthAxis)?;
        let (block, _) = fit_block(block.view(), &self.header.shape, axis)?;
        self.reserve(block.len())?;
        write_block_data(
            &block,
            self.header.fortran_order,
            &mut self.writer,
            &self.header.dtype,
        )
    }

    /// Checks that the whole array was written, flushes, and returns the writer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if elements are missing; [`ErrorKind::Io`](crate::ErrorKind::Io) if flushing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut w = ndnpy::NpyWriter::<_, i32>::new(Vec::new(), 3)?;
    /// w.write_slice(&[1, 2])?;
    /// assert!(w.finish().is_err()); // one element short
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn finish(mut self) -> Result<W, Error> {
        if self.written != self.expected {
            return Err(UsageError::ElementCount {
                expected: self.expected,
                written: self.written,
            }
            .into());
        }
        self.writer.flush()?;
        Ok(self.writer)
    }
}
