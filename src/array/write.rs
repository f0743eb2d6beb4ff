//! Writing arrays as `.npy` data, byte for byte as `np.save` does.

use crate::array::encode::{write_through, write_with_dtype};
use crate::array::nd::{fortran_order_of, shape_and_order};
use ndarray::{ArrayBase, ArrayView, Data, Dimension, ShapeBuilder};
use ndnpy_engine::base::dtype::ByteOrder;
use ndnpy_engine::base::error::ndarray_npy::WriteNpyError;
use ndnpy_engine::base::error::{Error, UsageError};
use ndnpy_engine::element::WritableElement;
use ndnpy_engine::format::header::Header;
use ndnpy_engine::platform::fsutil::{write_file, Preallocating, Publish, Sync};
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

/// Options for writing: the byte order of the data, and for files written by path whether
/// the write waits for the disk.
///
/// # Examples
///
/// ```
/// use ndnpy::{dtype::ByteOrder, WriteNpyExt, WriteOptions};
/// let mut out = Vec::new();
/// let opts = WriteOptions::new().byte_order(ByteOrder::Big);
/// ndarray::array![1u16, 2].write_npy_with_options(&mut out, &opts)?;
/// assert!(out.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '>u2'"));
/// assert_eq!(&out[128..], &[0, 1, 0, 2]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
///
/// The fields can be read (`opts.durable`) and set; the methods of the same names build.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// The byte order multi-byte elements are stored in ([`WriteOptions::byte_order`]).
    pub byte_order: ByteOrder,
    /// Whether files written by path wait for the disk ([`WriteOptions::durable`]).
    pub durable: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions::new()
    }
}

impl WriteOptions {
    /// The defaults: native byte order, not durable.
    ///
    /// ```
    /// assert_eq!(ndnpy::WriteOptions::new().byte_order, ndnpy::dtype::ByteOrder::NATIVE);
    /// assert!(!ndnpy::WriteOptions::new().durable);
    /// ```
    pub fn new() -> WriteOptions {
        WriteOptions {
            byte_order: ByteOrder::NATIVE,
            durable: false,
        }
    }

    /// Stores multi-byte elements in `order` (for example big-endian files for a big-endian
    /// consumer). [`ByteOrder::NotApplicable`] means native.
    ///
    /// ```
    /// let opts = ndnpy::WriteOptions::new().byte_order(ndnpy::dtype::ByteOrder::Big);
    /// # assert_eq!(opts.byte_order, ndnpy::dtype::ByteOrder::Big);
    /// ```
    pub fn byte_order(mut self, order: ByteOrder) -> WriteOptions {
        self.byte_order = match order {
            ByteOrder::NotApplicable => ByteOrder::NATIVE,
            o => o,
        };
        self
    }

    /// With `true`, a file written by path survives power loss once the write returns: its
    /// data is flushed to the disk (`fsync`) before it takes its name, and the directory is
    /// flushed after, so the name is on disk too. Without it (the default, as numpy), a write
    /// is still atomic (an error or a killed process never leaves a partial file at the
    /// path), but after power loss the path may hold the old file or, depending on the
    /// filesystem, an incomplete new one.
    ///
    /// Used by the writers that take a path: [`WriteOptions::write_npy`],
    /// [`WriteOptions::create_new_npy`],
    /// [`NpyMmapMut::create_with_options`](crate::NpyMmapMut::create_with_options) and
    /// [`NpyAppender::create_with_options`](crate::NpyAppender::create_with_options).
    /// [`WriteNpyExt::write_npy_with_options`] writes to any [`Write`] and ignores it (call
    /// [`File::sync_all`] yourself). Each durable write costs one `fsync` of the file and one
    /// of the directory: milliseconds on most disks.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-durable-opt-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let opts = ndnpy::WriteOptions::new().durable(true);
    /// opts.write_npy(dir.join("a.npy"), &ndarray::array![1.0f64, 2.0])?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durable(mut self, durable: bool) -> WriteOptions {
        self.durable = durable;
        self
    }

    /// The file synchronisation these options ask for.
    pub(crate) fn sync(&self) -> Sync {
        Sync::durable_if(self.durable)
    }
}

/// Writes an array as `.npy` data, the same bytes `np.save` writes for it.
///
/// # Examples
///
/// ```
/// use ndnpy::WriteNpyExt;
/// let a = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
/// let mut out = Vec::new();
/// a.t().write_npy(&mut out)?; // a transposed view is written in Fortran order
/// assert!(out.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': True"));
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait WriteNpyExt {
    /// Writes the array to `writer` in native byte order.
    ///
    /// A C-contiguous array is written with one `write_all` of its memory, a Fortran-contiguous
    /// one likewise with `fortran_order: True`; any other layout (permuted, sliced, negative
    /// strides) is written in C order through a reusable chunk buffer. The writer is flushed.
    ///
    /// A `File` or `BufWriter<File>` (by value or `&mut`) is written as [`write_npy`] writes a
    /// path: through a buffer of its own, asking the filesystem to reserve the extent of each
    /// large write first, as `np.save` does (a `BufWriter`'s buffered bytes are written out
    /// before the array). The file's position ends just past the array either way.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ReadNpyExt, WriteNpyExt};
    /// let a = ndarray::Array3::<i64>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as i64);
    /// let permuted = a.view().permuted_axes([2, 0, 1]);
    /// let mut out = Vec::new();
    /// permuted.write_npy(&mut out)?;
    /// assert_eq!(ndarray::Array3::<i64>::read_npy(&out[..])?, permuted);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    fn write_npy<W: Write>(&self, writer: W) -> Result<(), WriteNpyError>;

    /// Like [`WriteNpyExt::write_npy`], with options (the byte order; the writer is any
    /// [`Write`], so [`WriteOptions::durable`] does not apply).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, WriteNpyExt, WriteOptions};
    /// let mut out = Vec::new();
    /// ndarray::array![1.5f32].write_npy_with_options(&mut out, &WriteOptions::new().byte_order(ByteOrder::Little))?;
    /// assert_eq!(&out[128..], &1.5f32.to_le_bytes());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    ///
    /// The default, for a type implemented outside this crate as ndarray-npy let users do
    /// (with `write_npy` only), writes through [`WriteNpyExt::write_npy`]: such a type writes
    /// its own bytes, in the byte order it chooses, and `opts` does not apply to it.
    fn write_npy_with_options<W: Write>(
        &self,
        writer: W,
        opts: &WriteOptions,
    ) -> Result<(), Error> {
        let _ = opts;
        Ok(self.write_npy(writer)?)
    }

    /// The number of bytes [`WriteNpyExt::write_npy_with_options`] writes, when it is known
    /// without writing (`None` otherwise). `.npz` writing uses it to give a member zip64 sizes
    /// only when it needs them.
    ///
    /// ```
    /// use ndnpy::{WriteNpyExt, WriteOptions};
    /// let a = ndarray::array![1.0f64, 2.0, 3.0];
    /// assert_eq!(a.npy_len(&WriteOptions::new()), Some(128 + 24));
    /// ```
    #[doc(hidden)]
    fn npy_len(&self, opts: &WriteOptions) -> Option<u64> {
        let _ = opts;
        None
    }
}

/// The length of the `.npy` data `WriteOptions::write_npy` writes for `arr`.
fn npy_len_of<A: WritableElement, D: Dimension>(
    arr: &ArrayView<'_, A, D>,
    opts: &WriteOptions,
) -> Option<u64> {
    let header = Header {
        dtype: A::dtype_of(arr.iter()).with_byte_order(opts.byte_order),
        fortran_order: fortran_order_of(arr),
        shape: arr.shape().to_vec(),
    };
    let (_, data_len) = header.sizes().ok()?;
    let header_len = header.to_bytes().ok()?.len();
    u64::try_from(header_len)
        .ok()?
        .checked_add(u64::try_from(data_len).ok()?)
}

/// Writes `arr` as `.npy` to `writer`: every array type's `write_npy_with_options`, through a
/// view (one instance per element type and dimension, whatever holds the data).
fn write_view<A: WritableElement, D: Dimension, W: Write>(
    arr: &ArrayView<'_, A, D>,
    mut writer: W,
    opts: &WriteOptions,
) -> Result<(), Error> {
    let dtype = A::dtype_of(arr.iter()).with_byte_order(opts.byte_order);
    write_through(&mut writer, |w| write_with_dtype(arr, w, dtype))?;
    Ok(())
}

/// ndarray 0.17's array reference (`&ArrayRef`, which every 0.17 array derefs to), as
/// ndarray-npy 0.10 has it; ndarray 0.15 and 0.16 have no such type.
#[cfg(not(any(nd15, nd16)))]
impl<A, D> WriteNpyExt for ndarray::ArrayRef<A, D>
where
    A: WritableElement,
    D: Dimension,
{
    fn npy_len(&self, opts: &WriteOptions) -> Option<u64> {
        npy_len_of(&self.view(), opts)
    }

    fn write_npy<W: Write>(&self, writer: W) -> Result<(), WriteNpyError> {
        Ok(write_view(&self.view(), writer, &WriteOptions::default())?)
    }

    fn write_npy_with_options<W: Write>(
        &self,
        writer: W,
        opts: &WriteOptions,
    ) -> Result<(), Error> {
        write_view(&self.view(), writer, opts)
    }
}

impl<A, S, D> WriteNpyExt for ArrayBase<S, D>
where
    A: WritableElement,
    S: Data<Elem = A>,
    D: Dimension,
{
    fn npy_len(&self, opts: &WriteOptions) -> Option<u64> {
        npy_len_of(&self.view(), opts)
    }

    fn write_npy<W: Write>(&self, writer: W) -> Result<(), WriteNpyError> {
        Ok(write_view(&self.view(), writer, &WriteOptions::default())?)
    }

    fn write_npy_with_options<W: Write>(
        &self,
        writer: W,
        opts: &WriteOptions,
    ) -> Result<(), Error> {
        write_view(&self.view(), writer, opts)
    }
}

/// Writes `array` to the `.npy` file at `path`, creating or replacing it.
///
/// The file is written where no reader can see it (an unnamed file on Linux, else a temporary
/// name in the same directory) and takes the name `path` in one step when complete, so an
/// error or a killed process never leaves a half-written file at `path`: the old file stays
/// whole, and a reader that has it open or memory-mapped keeps reading it. A temporary file
/// left by a killed writer is removed by the next write to the same path (see
/// [`WriteOptions::write_npy`]). This does not wait for the disk; for a write that survives
/// power loss use [`WriteOptions::write_npy`] with [`WriteOptions::durable`].
///
/// # Errors
///
/// [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be created, written or renamed; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if a
/// value cannot be written in its dtype. In both cases `path` is unchanged.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("ndnpy-doc-write-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("a.npy");
/// ndnpy::write_npy(&path, &ndarray::array![[1u8, 2], [3, 4]])?;
/// let back: ndarray::Array2<u8> = ndnpy::read_npy(&path)?;
/// assert_eq!(back, ndarray::array![[1, 2], [3, 4]]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_npy<P, T>(path: P, array: &T) -> Result<(), WriteNpyError>
where
    P: AsRef<Path>,
    T: WriteNpyExt + ?Sized,
{
    Ok(WriteOptions::default().write_npy(path, array)?)
}

/// Writes `array` to a new `.npy` file at `path`; fails if the file exists, and never
/// replaces it.
///
/// The file is complete before it takes the name `path` (see [`WriteOptions::create_new_npy`]):
/// an error or a killed process leaves no file at `path`, and no other file either.
///
/// # Errors
///
/// [`ErrorKind::Io`](crate::ErrorKind::Io) (kind `AlreadyExists`) if the file exists, checked before writing and again,
/// without a race, when the complete file is linked in; [`ErrorKind::Io`](crate::ErrorKind::Io) if it cannot be
/// written.
///
/// # Examples
///
/// ```
/// let dir = std::env::temp_dir().join(format!("ndnpy-doc-create-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("new.npy");
/// let a = ndarray::array![1i32, 2, 3];
/// ndnpy::create_new_npy(&path, &a)?;
/// assert!(ndnpy::create_new_npy(&path, &a).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn create_new_npy<P, T>(path: P, array: &T) -> Result<(), WriteNpyError>
where
    P: AsRef<Path>,
    T: WriteNpyExt + ?Sized,
{
    Ok(WriteOptions::default().create_new_npy(path, array)?)
}

/// The path writers with options: the terminal calls of a [`WriteOptions`].
impl WriteOptions {
    /// Like [`write_npy`], with options: the byte order, and whether the write is durable.
    ///
    /// # Atomic and durable writes
    ///
    /// On Linux the data goes to an `O_TMPFILE` file, which has no name until it is complete;
    /// elsewhere (or on filesystems without `O_TMPFILE`) to a temporary name in the same
    /// directory, `.NAME.ndnpy-tmp-K`. Either way the complete file is renamed over `path` in one
    /// step. With [`WriteOptions::durable`], the file is flushed to the disk (`fsync`) before the
    /// rename and the directory after it, so that once this returns, the new array (name
    /// included) survives power loss.
    ///
    /// A process killed while a temporary name exists leaves it behind. Each writer holds an
    /// exclusive `flock` on its temporary file while the name exists, so the next write to the
    /// same `path`, in any process, removes the temporary files of `path` that nobody holds
    /// locked: their writers are gone. Liveness is never guessed from a process id, so a reused
    /// PID or a writer in another container cannot lose its file. Where `flock` is unavailable
    /// (non-Unix platforms), such files are left alone.
    ///
    /// # Errors
    ///
    /// As [`write_npy`]. If only the final directory sync of a durable write fails, the new file
    /// is in place but may not survive power loss; the error says so by its presence.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, WriteOptions};
    /// let dir = std::env::temp_dir().join(format!("ndnpy-doc-write-opts-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("be.npy");
    /// let opts = WriteOptions::new().byte_order(ByteOrder::Big).durable(true);
    /// opts.write_npy(&path, &ndarray::array![1u16, 2])?;
    /// assert_eq!(&std::fs::read(&path)?[128..], &[0, 1, 0, 2]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_npy<P, T>(&self, path: P, array: &T) -> Result<(), Error>
    where
        P: AsRef<Path>,
        T: WriteNpyExt + ?Sized,
    {
        write_path(path.as_ref(), array, self, Publish::Replace)
    }

    /// Like [`create_new_npy`], with options: the byte order, and whether the write is durable
    /// ([`WriteOptions::durable`]).
    ///
    /// On Linux the data goes to an `O_TMPFILE` file, which `linkat` gives the name `path` when
    /// complete; the link fails if `path` exists, so two writers racing for one name cannot both
    /// win, and a killed process leaves nothing at all (the unnamed file is freed). Elsewhere the
    /// data goes to a temporary name, which is hard-linked to `path` (failing if it exists) and
    /// then removed; temporary files of killed writers are removed as described for
    /// [`WriteOptions::write_npy`]. Durable: `fsync` of the file before the link, of the directory
    /// after.
    ///
    /// # Errors
    ///
    /// As [`create_new_npy`].
    ///
    /// # Examples
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ndnpy-doc-create-opts-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("new.npy");
    /// let opts = ndnpy::WriteOptions::new().durable(true);
    /// opts.create_new_npy(&path, &ndarray::array![1i32, 2])?;
    /// let err = opts.create_new_npy(&path, &ndarray::array![3i32]).unwrap_err();
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::AlreadyExists);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_new_npy<P, T>(&self, path: P, array: &T) -> Result<(), Error>
    where
        P: AsRef<Path>,
        T: WriteNpyExt + ?Sized,
    {
        write_path(path.as_ref(), array, self, Publish::CreateNew)
    }
}

/// Writes `array` to a new file that takes the name `path` as `publish` says, reserving the
/// file's extent before large writes as `np.save` does.
/// Writes the file at `path` with bytes of one's own, published as [`write_npy`] publishes:
/// `fill` writes (through a buffer) into a file no reader can see (an unnamed file on Linux,
/// else a hidden temporary name that a later write removes if this process dies), which
/// replaces `path` in one step once `fill` returns `Ok`. With
/// [`WriteOptions::durable`] the file is flushed to the disk before it takes the name, and
/// the directory after. On any error `path` is untouched and nothing is left behind.
///
/// For `.npy` bytes written in steps, such as a [`NpyWriter`](crate::NpyWriter) streaming an
/// array too large to hold, or a conversion. Only `durable` is read from `opts`.
///
/// # Errors
///
/// [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be created, written or
/// renamed; what `fill` returns.
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-atomic-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("rows.npy");
/// ndnpy::write_file_atomically(&path, &ndnpy::WriteOptions::new(), |out| {
///     let mut w = ndnpy::NpyWriter::<_, f32>::new(out, (3, 2))?;
///     for i in 0..3 {
///         w.write_block(&ndarray::array![i as f32, 1.0])?; // one row at a time
///     }
///     w.finish().map(drop)
/// })?;
/// let a: ndarray::Array2<f32> = ndnpy::read_npy(&path)?;
/// assert_eq!(a[[2, 0]], 2.0);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file_atomically<P: AsRef<Path>, T>(
    path: P,
    opts: &WriteOptions,
    fill: impl FnOnce(&mut dyn Write) -> Result<T, Error>,
) -> Result<T, Error> {
    let (value, _file) = write_file(path.as_ref(), Publish::Replace, opts.sync(), |file| {
        let mut out = BufWriter::new(Preallocating(file));
        let value = fill(&mut out)?;
        out.flush()?;
        Ok(value)
    })?;
    Ok(value)
}

fn write_path<T: WriteNpyExt + ?Sized>(
    path: &Path,
    array: &T,
    opts: &WriteOptions,
    publish: Publish,
) -> Result<(), Error> {
    write_file(path, publish, opts.sync(), |file| {
        array.write_npy_with_options(BufWriter::new(Preallocating(file)), opts)
    })?;
    Ok(())
}

/// Writes, at the file's current position, the header of an array of `A` with `shape` (C
/// order, or Fortran with `.f()`) and extends the file with zero bytes for its data (sparse
/// where the filesystem allows). The file ends right after the data; bytes before the
/// position are kept.
///
/// Useful for arrays larger than memory: map the file with
/// [`NpyMmapMut`](crate::NpyMmapMut) (or memmap2 and [`ViewMutNpyExt`](crate::ViewMutNpyExt))
/// and fill it in place.
///
/// Any [`WritableElement`] can be written, as with ndarray-npy. The dtype is the one
/// [`WritableElement::dtype_of`] gives for no elements, the dtype `np.save` writes for an
/// empty array of the type: fixed for numbers, `bool` and [`FixedDType`](ndnpy_engine::element::FixedDType)
/// types; `<U1` for `String` and `&str`, `|S1` for `Vec<u8>`, generic-unit `<M8` / `<m8` for
/// [`Datetime64`](crate::Datetime64) / [`Timedelta64`](crate::Timedelta64). Zero bytes are a
/// valid value of every such dtype (0, `False`, empty strings), so numpy loads the file as
/// `np.zeros(shape, dtype)`.
///
/// # Errors
///
/// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing or resizing fails;
/// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the shape is too large to address (ndarray-npy panics
/// there).
///
/// # Examples
///
/// ```
/// use ndarray::ShapeBuilder;
/// let dir = std::env::temp_dir().join(format!("ndnpy-doc-zeroed-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("zeros.npy");
/// let file = std::fs::File::create(&path)?;
/// ndnpy::write_zeroed_npy::<f64, _>(&file, (1000, 3).f())?;
/// let back: ndarray::Array2<f64> = ndnpy::read_npy(&path)?;
/// assert_eq!(back.shape(), [1000, 3]);
/// assert!(back.t().is_standard_layout()); // Fortran order
///
/// // Generic code bounded the ndarray-npy way.
/// fn zeroed<A: ndnpy::WritableElement>(file: &std::fs::File) -> Result<(), ndnpy::WriteNpyError> {
///     ndnpy::write_zeroed_npy::<A, _>(file, [2, 3])
/// }
/// zeroed::<String>(&std::fs::File::create(&path)?)?;
/// let strings: ndarray::Array2<String> = ndnpy::read_npy(&path)?;
/// assert_eq!(strings, ndarray::Array2::<String>::default((2, 3)));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_zeroed_npy<A, Sh>(file: &File, shape: Sh) -> Result<(), WriteNpyError>
where
    A: WritableElement,
    Sh: ShapeBuilder,
{
    Ok(zeroed::<A, Sh>(file, shape)?)
}

/// [`write_zeroed_npy`] for the crate's own callers: ndnpy's error.
pub(crate) fn zeroed<A, Sh>(mut file: &File, shape: Sh) -> Result<(), Error>
where
    A: WritableElement,
    Sh: ShapeBuilder,
{
    let (shape, fortran_order) = shape_and_order(shape)?;
    let header = Header {
        dtype: A::dtype_of(std::iter::empty()),
        fortran_order,
        shape,
    };
    let (_, data_len) = header.sizes().map_err(Error::blame_caller)?;
    let overflow = || UsageError::ShapeOverflow {
        shape: header.shape.clone(),
        itemsize: header.dtype.itemsize(),
    };
    file.write_all(&header.to_bytes()?)?;
    let end = file.stream_position()?;
    let file_len = u64::try_from(data_len)
        .ok()
        .and_then(|n| end.checked_add(n))
        .ok_or_else(overflow)?;
    file.set_len(end)?;
    file.set_len(file_len)?;
    Ok(())
}
