//! Memory-mapped `.npy` files, as numpy's `open_memmap` / `np.load(mmap_mode=...)`.
//!
//! [`NpyMmap`] maps a file read-only (`mmap_mode='r'`); [`NpyMmapMut`] maps it read-write
//! (`'r+'`, changes reach the file), copy-on-write (`'c'`, changes stay in memory), or creates
//! a new zero-filled, sparse file of a given element type, shape and order (`'w+'`), byte for
//! byte what `np.save` would write for a zero array. Opening parses the header only; views
//! cost nothing more, whatever the size.
//!
//! # Examples
//!
//! ```
//! // SAFETY: nothing modifies the fixture while it is mapped.
//! let map = unsafe { ndnpy::mmap::NpyMmap::open("testdata/f8_le_c_2x3.npy")? };
//! let v = map.view::<f64, ndarray::Ix2>()?; // no copy, whatever the size
//! assert_eq!(v.shape(), [2, 3]);
//! # Ok::<(), ndnpy::Error>(())
//! ```
//!
//! Unsafe here: mapping a file (another process may change it underneath; the constructors that
//! map are `unsafe fn` for that reason, as in `memmap2`) and the views of the mapped bytes.
#![allow(unsafe_code)]

use crate::array::options::ReadOptions;
use crate::array::view::{split_data, view_data, view_data_mut};
use crate::array::write::{zeroed, WriteOptions};
use memmap2::{Mmap, MmapMut, MmapOptions};
use ndarray::{Array, ArrayView, ArrayViewMut, Dimension, IxDyn, ShapeBuilder, SliceArg};
use ndnpy_engine::base::error::{not_native, Error};
use ndnpy_engine::element::{FixedDType, ReadableElement, ViewElement, ViewMutElement};
use ndnpy_engine::format::header::{Header, HeaderInfo};
use ndnpy_engine::platform::fsutil::replace_atomically;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Seek, SeekFrom};
use std::path::Path;

/// Opens `path` for mapping: without blocking on a FIFO (which has no bytes to map), and
/// refusing anything but a regular file.
fn open_regular(path: &Path, write: bool) -> Result<File, Error> {
    let mut opts = OpenOptions::new();
    opts.read(true).write(write);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = opts
        .open(path)
        .map_err(ndnpy_engine::base::error::with_path("open", path))?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a regular file: only files on disk can be memory-mapped, not pipes, \
                 devices or directories (read it with read_npy instead)",
                path.display()
            ),
        )
        .into());
    }
    Ok(file)
}

/// Reads the header of `file`, then (after it, so that a file growing meanwhile is measured
/// after its header was written) checks that the file holds the data the header describes.
/// Returns the header facts; the data is at `info.data_offset`.
fn read_header_then_len(mut file: &File) -> Result<HeaderInfo, Error> {
    file.seek(SeekFrom::Start(0))?;
    // One read of the first 4 KiB holds the header of nearly every file.
    let info = Header::read(
        &mut BufReader::with_capacity(4096, file),
        &ReadOptions::default(),
    )?;
    info.check_data_within(file.metadata()?.len())?;
    Ok(info)
}

/// Options mapping exactly the data of the file `info` describes (the header and anything
/// after the data are outside the map).
fn data_only(info: &HeaderInfo) -> MmapOptions {
    let mut opts = MmapOptions::new();
    opts.offset(info.data_offset).len(info.data_len);
    opts
}

/// A read-only memory-mapped `.npy` file.
///
/// # Examples
///
/// ```
/// use ndarray::ArrayView2;
/// use ndnpy::NpyMmap;
/// // SAFETY: nothing modifies the fixture while it is mapped.
/// let map = unsafe { NpyMmap::open("testdata/example.npy")? };
/// let view: ArrayView2<f64> = map.view()?;
/// assert_eq!(view.sum(), 1.5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyMmap {
    map: Mmap,
    info: HeaderInfo,
    /// Where the data starts in `map`: 0 when only the data is mapped.
    start: usize,
}

impl NpyMmap {
    /// Maps the array data of the `.npy` file at `path` read-only, after reading its header.
    ///
    /// The header is read first and the file's length after it, and only the data the header
    /// describes is mapped: a file that an [`NpyAppender`](crate::NpyAppender) is growing
    /// meanwhile maps as the array its header gave when read (the appender writes new data
    /// before the header that counts it, and never touches old data). Bytes after the data
    /// are ignored, as numpy does; a file shorter than its header says is an error.
    ///
    /// # Safety
    ///
    /// As for [`memmap2::Mmap::map`], for the mapped bytes: the array's data must not be
    /// truncated or modified by this or another process while the map lives (that would
    /// change or unmap memory behind a shared reference). Changes outside the data are fine:
    /// an [`NpyAppender`](crate::NpyAppender) appending to the file rewrites only the header
    /// and writes after the data. Files this crate replaces ([`write_npy`](crate::write_npy),
    /// [`NpyMmapMut::create`]) are replaced by rename, which keeps an existing map intact.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be opened or mapped, or is not a regular file (a
    /// pipe, a device: those cannot be mapped; read them with [`read_npy`](crate::read_npy));
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) or [`ErrorKind::Limit`](crate::ErrorKind::Limit) if its header is invalid or the data is cut
    /// short.
    ///
    /// # Examples
    ///
    /// ```
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/example.npy")? };
    /// assert_eq!(map.view::<f64, ndarray::Ix2>()?[[1, 2]], 1.5);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub unsafe fn open<P: AsRef<Path>>(path: P) -> Result<NpyMmap, Error> {
        let file = open_regular(path.as_ref(), false)?;
        let info = read_header_then_len(&file)?;
        // SAFETY: the caller upholds the contract above; the range lies within the file.
        let map = unsafe { data_only(&info).map(&file)? };
        Ok(NpyMmap {
            map,
            info,
            start: 0,
        })
    }

    /// Wraps a map the caller made (and vouched for): the escape hatch for maps made with
    /// what [`NpyMmap::open`] does not offer (`memmap2::MmapOptions`: `populate`, huge pages,
    /// anonymous maps). With [`NpyMmapMut::from_mmap_mut`], the only place a `memmap2` type
    /// appears in this crate's API.
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::open`], without the I/O.
    ///
    /// # Examples
    ///
    /// ```
    /// let file = std::fs::File::open("testdata/example.npy")?;
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { memmap2::Mmap::map(&file)? };
    /// let npy = ndnpy::NpyMmap::from_mmap(map)?;
    /// assert_eq!(npy.info().header.shape, [2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_mmap(map: Mmap) -> Result<NpyMmap, Error> {
        let info = split_data(&map, false)?;
        let start = info.data_offset as usize;
        Ok(NpyMmap { map, info, start })
    }

    /// The header, version and data offset.
    ///
    /// ```
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/f4_be_f_3x4.npy")? };
    /// assert!(map.info().header.fortran_order);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// A view of the data (any dimension `D`, C or Fortran layout as stored).
    ///
    /// # Errors
    ///
    /// a mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) if the dtype is not `A` in native byte order, or the number of
    /// dimensions differs from `D`'s.
    ///
    /// # Examples
    ///
    /// ```
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/f4_be_f_3x4.npy")? };
    /// let err = map.view::<f32, ndarray::Ix2>().unwrap_err(); // big-endian: read, don't view
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::CannotView);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn view<A: ViewElement, D: Dimension>(&self) -> Result<ArrayView<'_, A, D>, Error> {
        view_data(self.data(), &self.info)
    }

    /// A view of the region `selection` (ndarray's slice syntax, `s![..]`), without a copy:
    /// [`NpyMmap::view`] sliced, with a selection outside the shape an error rather than a
    /// panic. Only the pages of the elements used are read from disk.
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::view`]; [`ErrorKind::Usage`](crate::ErrorKind::Usage) as
    /// [`NpyReader::read_slice`](crate::NpyReader::read_slice).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/example.npy")? };
    /// let col = map.view_slice::<f64, _>(s![.., 1])?;
    /// assert_eq!(col, array![-0.5, 1.0]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn view_slice<A, I>(&self, selection: I) -> Result<ArrayView<'_, A, I::OutDim>, Error>
    where
        A: ViewElement,
        I: SliceArg<IxDyn>,
    {
        let view = self.view::<A, IxDyn>()?;
        crate::array::region::check::<I::OutDim>(&self.info.header, selection.as_ref())?;
        Ok(view.slice_move(selection))
    }

    /// Reads the region `selection` into a new array, as
    /// [`NpyReader::read_slice`](crate::NpyReader::read_slice) does: any element type, either
    /// byte order, only the selected runs copied. For native plain types,
    /// [`NpyMmap::view_slice`] needs no copy.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice`](crate::NpyReader::read_slice).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/f4_be_f_3x4.npy")? };
    /// let block: ndarray::Array2<f32> = map.read_slice(s![1.., ..2])?; // big-endian: a copy
    /// assert_eq!(block.shape(), [2, 2]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_slice<A, I>(&self, selection: I) -> Result<Array<A, I::OutDim>, Error>
    where
        A: ReadableElement,
        I: SliceArg<IxDyn>,
    {
        let (elems, merge) = (selection.as_ref(), ndnpy_engine::source::Merge::MEMORY);
        // `data` holds the whole array data, as the map was made for.
        crate::array::region::read_region(&self.info, elems, self.data(), merge, None)
    }

    /// Reads the region `selection` of an array of any dtype into a
    /// [`DynArray`](crate::DynArray), as
    /// [`NpyReader::read_slice_dyn`](crate::NpyReader::read_slice_dyn) does.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice_dyn`](crate::NpyReader::read_slice_dyn).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::s;
    /// // SAFETY: nothing modifies the fixture while it is mapped.
    /// let map = unsafe { ndnpy::NpyMmap::open("testdata/f4_be_f_3x4.npy")? };
    /// let block = map.read_slice_dyn(s![1.., ..2])?;
    /// assert_eq!((block.dtype().descr(), block.shape()), ("'>f4'".to_string(), &[2, 2][..]));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_slice_dyn<I: SliceArg<IxDyn>>(
        &self,
        selection: I,
    ) -> Result<crate::array::dynamic::DynArray, Error> {
        let (elems, merge) = (selection.as_ref(), ndnpy_engine::source::Merge::MEMORY);
        crate::array::region::read_region_dyn(&self.info, elems, self.data(), merge, None)
    }

    /// The mapped array data.
    fn data(&self) -> &[u8] {
        &self.map[self.start..self.start + self.info.data_len]
    }
}

/// A writable memory-mapped `.npy` file: read-write, copy-on-write, or newly created.
///
/// # Examples
///
/// ```
/// use ndnpy::NpyMmapMut;
/// let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmapmut-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("grid.npy");
/// // SAFETY: the file is private to this example.
/// let mut map = unsafe { NpyMmapMut::create::<f32, _>(&path, (3, 4))? };
/// map.view_mut::<f32, ndarray::Ix2>()?[[2, 1]] = 7.5;
/// map.flush()?;
/// drop(map);
/// let back: ndarray::Array2<f32> = ndnpy::read_npy(&path)?;
/// assert_eq!(back[[2, 1]], 7.5);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct NpyMmapMut {
    map: MmapMut,
    info: HeaderInfo,
    /// Where the data starts in `map`: 0 when only the data is mapped.
    start: usize,
}

impl NpyMmapMut {
    /// Maps the array data of the `.npy` file at `path` read-write, after reading its header:
    /// changes through [`NpyMmapMut::view_mut`] reach the file (numpy's `mmap_mode='r+'`).
    ///
    /// # Safety
    ///
    /// As for [`NpyMmap::open`]: nothing else may truncate or modify the array's data while
    /// mapped.
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::open`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmopen-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("a.npy");
    /// ndnpy::write_npy(&path, &ndarray::array![1i32, 2, 3])?;
    /// // SAFETY: the file is private to this example.
    /// let mut map = unsafe { ndnpy::NpyMmapMut::open(&path)? };
    /// map.view_mut::<i32, ndarray::Ix1>()?[1] = 20;
    /// map.flush()?;
    /// drop(map);
    /// assert_eq!(ndnpy::read_npy::<_, ndarray::Array1<i32>>(&path)?, ndarray::array![1, 20, 3]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn open<P: AsRef<Path>>(path: P) -> Result<NpyMmapMut, Error> {
        let file = open_regular(path.as_ref(), true)?;
        let info = read_header_then_len(&file)?;
        // SAFETY: the caller upholds the contract above; the range lies within the file.
        let map = unsafe { data_only(&info).map_mut(&file)? };
        Ok(NpyMmapMut {
            map,
            info,
            start: 0,
        })
    }

    /// Maps the `.npy` file at `path` copy-on-write: the view is writable, but changes stay in
    /// this process's memory and never reach the file (numpy's `mmap_mode='c'`).
    ///
    /// # Safety
    ///
    /// As for [`NpyMmap::open`].
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::open`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmcow-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("a.npy");
    /// ndnpy::write_npy(&path, &ndarray::array![1u16, 2, 3])?;
    /// // SAFETY: the file is private to this example.
    /// let mut map = unsafe { ndnpy::NpyMmapMut::open_copy_on_write(&path)? };
    /// map.view_mut::<u16, ndarray::Ix1>()?[0] = 100;
    /// assert_eq!(map.view::<u16, ndarray::Ix1>()?[0], 100); // this process sees the change
    /// drop(map);
    /// let file: ndarray::Array1<u16> = ndnpy::read_npy(&path)?;
    /// assert_eq!(file, ndarray::array![1, 2, 3]); // the file does not
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn open_copy_on_write<P: AsRef<Path>>(path: P) -> Result<NpyMmapMut, Error> {
        let file = open_regular(path.as_ref(), false)?;
        let info = read_header_then_len(&file)?;
        // SAFETY: the caller upholds the contract above; the range lies within the file.
        let map = unsafe { data_only(&info).map_copy(&file)? };
        Ok(NpyMmapMut {
            map,
            info,
            start: 0,
        })
    }

    /// Creates (or replaces) the file at `path` holding a zero array of element type `A` and
    /// `shape` (C order, or Fortran with `.f()`), sparse where the filesystem allows, and maps
    /// it read-write (numpy's `open_memmap(path, 'w+', dtype, shape, fortran_order)`, and the
    /// same bytes).
    ///
    /// The file is built where no reader sees it and renamed into place complete, as by
    /// [`write_npy`](crate::write_npy), so an existing file at `path` is replaced whole and a
    /// process that has it mapped keeps its old contents. Changes made through the map then
    /// reach the file in place, as with numpy's memmap: call [`flush`](NpyMmapMut::flush) to
    /// wait for them.
    ///
    /// # Safety
    ///
    /// As for [`NpyMmap::open`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be created, sized or mapped;
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the shape is too
    /// large to address.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::ShapeBuilder;
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmzero-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // SAFETY: the file is private to this example.
    /// let map = unsafe { ndnpy::NpyMmapMut::create::<i16, _>(dir.join("z.npy"), (2, 3).f())? };
    /// assert!(map.info().header.fortran_order);
    /// drop(map);
    /// // Byte for byte what np.save writes for np.zeros((2, 3), '<i2', order='F'):
    /// let mut expected = Vec::new();
    /// ndnpy::WriteNpyExt::write_npy(&ndarray::Array2::<i16>::zeros((2, 3).f()), &mut expected)?;
    /// assert_eq!(std::fs::read(dir.join("z.npy"))?, expected);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn create<A: FixedDType, Sh: ShapeBuilder>(
        path: impl AsRef<Path>,
        shape: Sh,
    ) -> Result<NpyMmapMut, Error> {
        // SAFETY: the caller upholds the same contract.
        unsafe { NpyMmapMut::create_with_options::<A, Sh>(path, shape, &WriteOptions::new()) }
    }

    /// Like [`NpyMmapMut::create`], with options: with [`WriteOptions::durable`] the new file
    /// is flushed to the disk before it takes its name and the directory after, so the zero
    /// array survives power loss once this returns; [`flush`](NpyMmapMut::flush) then makes
    /// the changes made through the map durable too.
    ///
    /// # Safety
    ///
    /// As for [`NpyMmap::open`].
    ///
    /// # Errors
    ///
    /// As [`NpyMmapMut::create`]; [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if the options ask for a
    /// non-native byte order for a multi-byte `A` (a map can only view native data).
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmcreate-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("durable.npy");
    /// let opts = ndnpy::WriteOptions::new().durable(true);
    /// // SAFETY: the file is private to this example.
    /// let mut map = unsafe { ndnpy::NpyMmapMut::create_with_options::<u32, _>(&path, 4, &opts)? };
    /// map.view_mut::<u32, ndarray::Ix1>()?.fill(7);
    /// map.flush()?; // the values are on disk too
    /// # drop(map);
    /// # assert_eq!(ndnpy::read_npy::<_, ndarray::Array1<u32>>(&path)?, ndarray::array![7, 7, 7, 7]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn create_with_options<A: FixedDType, Sh: ShapeBuilder>(
        path: impl AsRef<Path>,
        shape: Sh,
        opts: &WriteOptions,
    ) -> Result<NpyMmapMut, Error> {
        let dtype = A::dtype();
        let asked = dtype.with_byte_order(opts.byte_order);
        if asked != dtype {
            return Err(not_native(asked));
        }
        let ((), file) = replace_atomically(path.as_ref(), opts.sync(), |file| {
            zeroed::<A, Sh>(file, shape)?;
            Ok(())
        })?;
        let info = read_header_then_len(&file)?;
        // SAFETY: the caller upholds the contract above; the range lies within the file.
        let map = unsafe { data_only(&info).map_mut(&file)? };
        Ok(NpyMmapMut {
            map,
            info,
            start: 0,
        })
    }

    /// Wraps a writable map the caller made (and vouched for): the escape hatch for maps
    /// [`NpyMmapMut::open`] does not make (see [`NpyMmap::from_mmap`]).
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::from_mmap`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut anon = memmap2::MmapMut::map_anon(128 + 8)?;
    /// let mut bytes = Vec::new();
    /// ndnpy::WriteNpyExt::write_npy(&ndarray::array![1.0f64], &mut bytes)?;
    /// anon.copy_from_slice(&bytes);
    /// let mut npy = ndnpy::NpyMmapMut::from_mmap_mut(anon)?;
    /// npy.view_mut::<f64, ndarray::Ix1>()?[0] = 2.0;
    /// assert_eq!(npy.view::<f64, ndarray::Ix1>()?[0], 2.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_mmap_mut(map: MmapMut) -> Result<NpyMmapMut, Error> {
        let info = split_data(&map, false)?;
        let start = info.data_offset as usize;
        Ok(NpyMmapMut { map, info, start })
    }

    /// The header, version and data offset.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mminfo-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // SAFETY: the file is private to this example.
    /// let map = unsafe { ndnpy::NpyMmapMut::create::<u8, _>(dir.join("a.npy"), 10)? };
    /// assert_eq!(map.info().data_offset, 128);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// A read-only view of the data.
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::view`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmview-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // SAFETY: the file is private to this example.
    /// let map = unsafe { ndnpy::NpyMmapMut::create::<f64, _>(dir.join("v.npy"), 3)? };
    /// assert_eq!(map.view::<f64, ndarray::Ix1>()?.sum(), 0.0);
    /// // The element type and the dimension must be the file's.
    /// assert!(map.view::<f32, ndarray::Ix1>().is_err());
    /// assert!(map.view::<f64, ndarray::Ix2>().is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<A: ViewElement, D: Dimension>(&self) -> Result<ArrayView<'_, A, D>, Error> {
        let start = self.start;
        view_data(&self.map[start..start + self.info.data_len], &self.info)
    }

    /// A mutable view of the data.
    ///
    /// # Errors
    ///
    /// As [`NpyMmap::view`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmviewmut-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // SAFETY: the file is private to this example.
    /// let mut map = unsafe { ndnpy::NpyMmapMut::create::<u8, _>(dir.join("m.npy"), (2, 2))? };
    /// let mut v = map.view_mut::<u8, ndarray::Ix2>()?;
    /// v.row_mut(1).fill(9);
    /// assert_eq!(v, ndarray::array![[0, 0], [9, 9]]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view_mut<A: ViewMutElement, D: Dimension>(
        &mut self,
    ) -> Result<ArrayViewMut<'_, A, D>, Error> {
        let start = self.start;
        view_data_mut(&mut self.map[start..start + self.info.data_len], &self.info)
    }

    /// Writes changes back to the file and waits for the disk (`msync`; a no-op for
    /// copy-on-write): once it returns, the changes survive power loss. (Whether the file's
    /// name does depends on how it was created: see [`NpyMmapMut::create_with_options`].)
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the kernel reports a failure.
    ///
    /// # Examples
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-mmflush-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("f.npy");
    /// // SAFETY: the file is private to this example.
    /// let mut map = unsafe { ndnpy::NpyMmapMut::create::<i32, _>(&path, 2)? };
    /// map.view_mut::<i32, ndarray::Ix1>()?[1] = -5;
    /// map.flush()?; // in the file now, while still mapped
    /// let file: ndarray::Array1<i32> = ndnpy::read_npy(&path)?;
    /// assert_eq!(file, ndarray::array![0, -5]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush(&self) -> Result<(), Error> {
        self.map.flush()?;
        Ok(())
    }
}
