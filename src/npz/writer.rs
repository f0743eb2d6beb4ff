//! [`NpzWriter`]: `.npz` archives as `np.savez` and `np.savez_compressed` write them.

use super::Compression;
use crate::array::write::{WriteNpyExt, WriteOptions};
use ndnpy_engine::archive::deflate::{self, ChunkedDeflate};
use ndnpy_engine::base::dtype::ByteOrder;
use ndnpy_engine::base::error::{Error, UsageError};
use ndnpy_engine::platform::fsutil::{Pending, Publish, Sync};
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::Path;
use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};
// The `zip` crate's options that ndarray-npy's version takes (`new_with_options`,
// `add_array_with_options`): zip 6's, but zip 2's in `ndnpy-ndarray16` (ndarray-npy 0.9).
#[cfg(not(nd16))]
use zip::write::{FileOptionExtension, FileOptions, SimpleFileOptions as ZipOptions};
#[cfg(nd16)]
use zip2::write::{FileOptionExtension, FileOptions, SimpleFileOptions as ZipOptions};

/// The deflate level used when none is given (see [`NpzWriteOptions::level`]).
const DEFAULT_LEVEL: u32 = 4;

use super::WriteNpzError;

/// The alignment [`NpzWriteOptions::align`] gives stored members' data.
const ALIGN: u16 = 64;

/// How one member of an `.npz` archive is written: compression, deflate level, alignment of
/// stored data, and the byte order of the array; and, for an archive written by path, whether
/// it is written durably.
///
/// The defaults are `np.savez`'s: stored, unaligned, native byte order, not durable.
///
/// # Examples
///
/// ```
/// use ndnpy::{dtype::ByteOrder, npz::Compression, npz::NpzWriteOptions};
/// let opts = NpzWriteOptions::new()
///     .compression(Compression::Deflated)
///     .level(Some(1))
///     .byte_order(ByteOrder::Big);
/// assert_eq!(opts.compression, Compression::Deflated);
/// assert_eq!(opts.level, Some(1));
/// ```
///
/// The fields can be read (`opts.level`) and set; the methods of the same names build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NpzWriteOptions {
    /// Stored or deflated ([`NpzWriteOptions::compression`]).
    pub compression: Compression,
    /// The deflate level; `None` is the default, 4 ([`NpzWriteOptions::level`]).
    pub level: Option<u32>,
    /// Whether stored members' data is 64-byte aligned ([`NpzWriteOptions::align`]).
    pub align: bool,
    /// The byte order of the members' data ([`NpzWriteOptions::byte_order`]).
    pub byte_order: ByteOrder,
    /// Whether `NpzWriter::create` waits for the disk ([`NpzWriteOptions::durable`]).
    pub durable: bool,
    /// How many threads deflate a large member; 0 is one per core
    /// ([`NpzWriteOptions::threads`]).
    pub threads: usize,
}

impl Default for NpzWriteOptions {
    fn default() -> Self {
        NpzWriteOptions::new()
    }
}

impl NpzWriteOptions {
    /// `np.savez`'s choices: stored (no compression), unaligned, native byte order.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::new();
    /// assert_eq!(opts.compression, ndnpy::npz::Compression::Stored);
    /// assert!(!opts.align);
    /// ```
    pub fn new() -> NpzWriteOptions {
        NpzWriteOptions {
            compression: Compression::Stored,
            level: None,
            align: false,
            byte_order: ByteOrder::NATIVE,
            durable: false,
            threads: 0,
        }
    }

    /// Deflated members, as `np.savez_compressed` writes, at this crate's default level, 4
    /// (numpy's zlib uses 6, which [`NpzWriteOptions::level`] can ask for).
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::compressed();
    /// assert_eq!(opts.compression, ndnpy::npz::Compression::Deflated);
    /// assert_eq!(opts.level, None);
    /// ```
    pub fn compressed() -> NpzWriteOptions {
        NpzWriteOptions::new().compression(Compression::Deflated)
    }

    /// Stores members as they are, or deflates them.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::new().compression(ndnpy::npz::Compression::Deflated);
    /// # assert_eq!(opts.compression, ndnpy::npz::Compression::Deflated);
    /// ```
    pub fn compression(mut self, compression: Compression) -> NpzWriteOptions {
        self.compression = compression;
        self
    }

    /// The deflate level, 1 (fastest) to 9 (smallest); `None` is this crate's default, 4.
    /// Ignored for stored members (use [`Compression::Stored`] rather than level 0). A level
    /// outside 1 to 9 is refused when a member is added.
    ///
    /// `np.savez_compressed` uses zlib's default, 6; `Some(6)` gives that level. The default is
    /// 4 because zlib-rs's levels trade speed for size differently from zlib's: on numeric
    /// arrays its level 4 gave archives within about 2% of `np.savez_compressed`'s size in a
    /// third to a half of its level-6 time. Any level is read by numpy alike.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::compressed().level(Some(9));
    /// # assert_eq!(opts.level, Some(9));
    /// ```
    pub fn level(mut self, level: Option<u32>) -> NpzWriteOptions {
        self.level = level;
        self
    }

    /// Whether a stored member's data starts on a 64-byte boundary of the archive, so that its
    /// array can be viewed in place in a memory-mapped archive (see
    /// [`NpzMember::view`](crate::npz::NpzMember::view)). The padding is a ZIP extra
    /// field (id `0xa11e`, as the zip crate and Android's zipalign write it), which numpy and
    /// every other ZIP reader skip. numpy's own archives are not aligned. Ignored for
    /// deflated members.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::new().align(true);
    /// # assert!(opts.align);
    /// ```
    pub fn align(mut self, align: bool) -> NpzWriteOptions {
        self.align = align;
        self
    }

    /// The byte order of the arrays' data (see
    /// [`WriteOptions::byte_order`](crate::WriteOptions::byte_order)).
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::new().byte_order(ndnpy::dtype::ByteOrder::Big);
    /// # assert_eq!(opts.byte_order, ndnpy::dtype::ByteOrder::Big);
    /// ```
    pub fn byte_order(mut self, order: ByteOrder) -> NpzWriteOptions {
        self.byte_order = match order {
            ByteOrder::NotApplicable => ByteOrder::NATIVE,
            o => o,
        };
        self
    }

    /// With `true`, an archive written by [`NpzWriter::create_with_options`] survives power
    /// loss once [`finish`](NpzWriter::finish) returns: the archive is flushed to the disk
    /// (`fsync`) before it takes its name and the directory after (see
    /// [`WriteOptions::durable`](crate::WriteOptions::durable)). It concerns the whole
    /// archive, so it is ignored in the options of a single member and by writers over any
    /// other [`Write`]. Default `false`, as numpy.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::compressed().durable(true);
    /// # assert!(opts.durable);
    /// ```
    pub fn durable(mut self, durable: bool) -> NpzWriteOptions {
        self.durable = durable;
        self
    }

    /// How many threads deflate a member of 1 MiB or more: 0 (the default) is one per core,
    /// and 1 keeps every member one deflate stream written on the calling thread.
    ///
    /// With any other value, a large member is deflated as pigz does: its bytes are cut into
    /// 1 MiB chunks, each compressed with the 32 KiB before it as its dictionary and ended
    /// with a sync flush, the threads taking chunks as they finish. The result is one ordinary
    /// deflate stream, which numpy and every ZIP reader read; it is the same bytes whatever the
    /// number of threads (the chunks depend on the member's length alone, so 0 gives the same
    /// archive on any machine), and slightly larger than one stream, as each chunk starts a
    /// new block. The compressed bytes are held until the member is complete (past 256 MiB,
    /// in a scratch file in the temporary directory) and then copied into the archive.
    /// Ignored for stored members.
    ///
    /// ```
    /// let opts = ndnpy::npz::NpzWriteOptions::compressed().threads(1); // one stream, as before
    /// # assert_eq!(opts.threads, 1);
    /// ```
    pub fn threads(mut self, threads: usize) -> NpzWriteOptions {
        self.threads = threads;
        self
    }

    /// The deflate level asked for, or the default; an error outside 1 to 9.
    fn checked_level(&self) -> Result<u32, Error> {
        match self.level {
            Some(level) if !(1..=9).contains(&level) => {
                Err(UsageError::CompressionLevel { level }.into())
            }
            level => Ok(level.unwrap_or(DEFAULT_LEVEL)),
        }
    }
}

/// Writes `.npz` archives, over any [`Write`] + [`Seek`], as `np.savez` (stored) and
/// `np.savez_compressed` (deflated) do.
///
/// Each array is the member `key.npy` holding exactly the bytes `np.save` writes for it. The
/// archive is deterministic: every member has numpy's timestamp (1980-01-01 00:00:00) and
/// permissions (`0o600`). A member that reaches 4 GiB (or might, once deflated) gets zip64
/// sizes, and the archive a zip64 directory when it needs one; others keep the plain 32-bit
/// fields. Deflate runs on flate2's zlib-rs backend: a deflated member of 1 MiB or more on
/// every core, in chunks that make one standard stream ([`NpzWriteOptions::threads`]), a
/// smaller one through the `zip` crate.
///
/// Members are written in the order they are added; numpy's `savez` writes keyword arrays
/// first and positional ones (`arr_0`, `arr_1`, ...) after, so add them in that order to match
/// its member order.
///
/// Call [`NpzWriter::finish`] to write the central directory and see any error; if the writer
/// is dropped instead, the `zip` crate still writes the directory, but errors are lost.
///
/// # Examples
///
/// ```
/// use ndarray::{array, aview0, Array1, Array2};
/// use ndnpy::{NpzReader, NpzWriter};
/// use std::io::Cursor;
///
/// let mut npz = NpzWriter::new_compressed(Cursor::new(Vec::new()));
/// npz.add_array("a", &array![[1i32, 2, 3], [4, 5, 6]])?;
/// npz.add_array("b", &array![7i32, 8, 9])?;
/// npz.add_array("c", &aview0(&10i32))?;
/// let bytes = npz.finish()?.into_inner();
///
/// let mut npz = NpzReader::new(Cursor::new(bytes))?;
/// assert_eq!(npz.names()?, ["a", "b", "c"]);
/// let b: Array1<i32> = npz.by_name("b")?;
/// assert_eq!(b, array![7, 8, 9]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub struct NpzWriter<W: Write + Seek> {
    zip: ZipWriter<W>,
    options: NpzWriteOptions,
    /// The zip crate's options of [`NpzWriter::new_with_options`], which then take the place
    /// of `options` for members added without options of their own.
    zip_options: Option<ZipOptions>,
    names: HashSet<String>,
    positional: usize,
    /// For [`NpzWriter::create`]: the file that `finish` gives the target's name.
    pending: Option<Pending>,
}

impl<W: Write + Seek> std::fmt::Debug for NpzWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzWriter")
            .field("members", &self.names.len())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl NpzWriter<BufWriter<File>> {
    /// Writes a stored archive to `path`, like `np.savez(path, ...)` (which appends `.npz` to
    /// a path without it; this does not). For other options use
    /// [`NpzWriter::create_with_options`].
    ///
    /// The archive is written where no reader sees it (an unnamed file on Linux, else a
    /// temporary name in the same directory) and renamed over `path` by
    /// [`finish`](NpzWriter::finish): until then, and if anything fails, the writer is dropped
    /// unfinished or the process is killed, an existing file at `path` is untouched (and a
    /// reader that has it open or memory-mapped keeps reading it). A temporary file is removed
    /// when the writer is dropped, or, left by a killed process, by the next write to `path`
    /// (see [`WriteOptions::write_npy`](crate::WriteOptions::write_npy)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the temporary file cannot be created.
    ///
    /// # Examples
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ndnpy-doc-npz-create-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("arrays.npz");
    /// let mut npz = ndnpy::NpzWriter::create(&path)?;
    /// npz.add_array("x", &ndarray::array![1.5f32, 2.5])?;
    /// npz.finish()?;
    /// let x: ndarray::Array1<f32> = ndnpy::NpzReader::open(&path)?.by_name("x")?;
    /// assert_eq!(x, ndarray::array![1.5, 2.5]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create<P: AsRef<Path>>(path: P) -> Result<NpzWriter<BufWriter<File>>, Error> {
        NpzWriter::create_with_options(path, &NpzWriteOptions::new())
    }

    /// Like [`NpzWriter::create`], with `options` for the members (unless
    /// [`NpzWriter::add_array_with_options`] says otherwise) and for the archive: with
    /// [`NpzWriteOptions::durable`], [`finish`](NpzWriter::finish) flushes the archive to the
    /// disk before renaming it over `path`, and the directory after.
    ///
    /// # Errors
    ///
    /// As [`NpzWriter::create`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{npz::NpzWriteOptions, NpzWriter};
    /// let dir = std::env::temp_dir().join(format!("ndnpy-doc-npz-create-opts-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("model.npz");
    /// let mut npz = NpzWriter::create_with_options(&path, &NpzWriteOptions::compressed().durable(true))?;
    /// npz.add_array("w", &ndarray::Array1::<f64>::zeros(10_000))?;
    /// npz.finish()?; // on disk, name included, when this returns
    /// assert!(std::fs::metadata(&path)?.len() < 1000);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_with_options<P: AsRef<Path>>(
        path: P,
        options: &NpzWriteOptions,
    ) -> Result<NpzWriter<BufWriter<File>>, Error> {
        let sync = Sync::durable_if(options.durable);
        let (file, pending) = Pending::create(path.as_ref(), Publish::Replace, sync)?;
        let mut npz = NpzWriter::with_options(BufWriter::new(file), options);
        npz.pending = Some(pending);
        Ok(npz)
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// A writer of stored (uncompressed) members, like `np.savez`.
    ///
    /// ```
    /// let mut npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// npz.add_array("a", &ndarray::array![1u8, 2])?;
    /// let bytes = npz.finish()?.into_inner();
    /// assert_eq!(bytes[8], 0); // compression method 0: stored
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new(writer: W) -> NpzWriter<W> {
        NpzWriter::with_options(writer, &NpzWriteOptions::new())
    }

    /// A writer of deflated members, like `np.savez_compressed`, at this crate's default
    /// level, 4 (see [`NpzWriteOptions::level`]).
    ///
    /// ```
    /// let mut npz = ndnpy::NpzWriter::new_compressed(std::io::Cursor::new(Vec::new()));
    /// npz.add_array("a", &ndarray::Array1::<f64>::zeros(10_000))?;
    /// let bytes = npz.finish()?.into_inner();
    /// assert_eq!(bytes[8], 8); // compression method 8: deflate
    /// assert!(bytes.len() < 1000);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new_compressed(writer: W) -> NpzWriter<W> {
        NpzWriter::with_options(writer, &NpzWriteOptions::compressed())
    }

    /// A writer whose members get `options` unless [`NpzWriter::add_array_with_options`]
    /// says otherwise.
    ///
    /// ```
    /// use ndnpy::{npz::NpzWriteOptions, NpzWriter};
    /// let opts = NpzWriteOptions::compressed().level(Some(1));
    /// let mut npz = NpzWriter::with_options(std::io::Cursor::new(Vec::new()), &opts);
    /// npz.add_array("a", &ndarray::Array1::<f64>::zeros(10_000))?;
    /// npz.finish()?;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn with_options(writer: W, options: &NpzWriteOptions) -> NpzWriter<W> {
        NpzWriter {
            zip: ZipWriter::new(writer),
            options: *options,
            zip_options: None,
            names: HashSet::new(),
            positional: 0,
            pending: None,
        }
    }

    /// A writer whose members get the `zip` crate's `options` (ndarray-npy's constructor, for
    /// code written for it): the compression method and level, timestamp and permissions as
    /// `options` say. [`NpzWriter::with_options`] is the way that keeps numpy's timestamp and
    /// permissions and offers alignment and byte order.
    ///
    /// The options are the `zip` major of ndarray-npy's version: zip 6's here, zip 2's in
    /// `ndnpy-ndarray16` (ndarray-npy 0.9), where each member is written by zip 2's own writer
    /// into a one-member archive in memory and then copied into this one as it is.
    ///
    /// ```
    /// use zip::{write::SimpleFileOptions, CompressionMethod};
    /// let opts = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    /// let mut npz = ndnpy::NpzWriter::new_with_options(std::io::Cursor::new(Vec::new()), opts);
    /// npz.add_array("a", &ndarray::Array1::<f64>::zeros(10_000))?;
    /// let bytes = npz.finish()?.into_inner();
    /// assert_eq!(bytes[8], 8); // compression method 8: deflate
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_with_options(writer: W, options: ZipOptions) -> NpzWriter<W> {
        let mut npz = NpzWriter::new(writer);
        npz.zip_options = Some(options);
        npz
    }

    /// Adds `array` as the member `name` + `".npy"` (numpy's naming: the key `"x.npy"` becomes
    /// the member `x.npy.npy`, and `"a/b"` the member `a/b.npy`), with the writer's options.
    ///
    /// The member holds exactly the bytes [`WriteNpyExt::write_npy`] writes. To write a
    /// scalar, pass a 0-d array ([`ndarray::arr0`], [`ndarray::aview0`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the archive already has a member of that name,
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a name over 65,535 bytes,
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a deflate level outside 1 to 9, [`ErrorKind::Io`](crate::ErrorKind::Io) if
    /// writing fails.
    /// After an error the member is left out of the archive, which stays usable.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// npz.add_array("layer1/weight", &ndarray::array![[1.0f32, 2.0]])?;
    /// assert!(npz.add_array("layer1/weight", &ndarray::array![0u8]).is_err());
    /// npz.finish()?;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    ///
    /// On ndarray 0.15 (`ndnpy-ndarray15`, for ndarray-npy 0.8's users) the member is named
    /// `name` as given, as ndarray-npy 0.8 named it; [`NpzWriter::add_array_with_options`]
    /// appends `".npy"` there too.
    pub fn add_array<N, T>(&mut self, name: N, array: &T) -> Result<(), WriteNpzError>
    where
        N: Into<String>,
        T: WriteNpyExt + ?Sized,
    {
        let name: String = name.into();
        #[cfg(not(nd15))]
        let name = name + ".npy";
        Ok(self.add_as(name, array)?)
    }

    /// [`NpzWriter::add_array`] for the crate's own callers: ndnpy's error, not ndarray-npy's.
    pub(crate) fn add<T: WriteNpyExt + ?Sized>(
        &mut self,
        name: String,
        array: &T,
    ) -> Result<(), Error> {
        self.add_as(name + ".npy", array)
    }

    /// Adds `array` as the member named `member`, with the writer's options.
    fn add_as<T: WriteNpyExt + ?Sized>(&mut self, member: String, array: &T) -> Result<(), Error> {
        match self.zip_options {
            Some(zip_options) => self.add_member_as(member, array, zip_options),
            None => {
                let options = self.options;
                self.add_member_as(member, array, &options)
            }
        }
    }

    /// Like [`NpzWriter::add_array`], with options for this member only: ndnpy's
    /// [`NpzWriteOptions`] (compression, level, alignment, byte order), or, as in ndarray-npy,
    /// the `zip` crate's `FileOptions`.
    ///
    /// # Errors
    ///
    /// As [`NpzWriter::add_array`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, npz::NpzWriteOptions, NpzWriter};
    /// let mut npz = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// let big = ndarray::Array1::<i64>::zeros(100_000);
    /// npz.add_array_with_options("big", &big, &NpzWriteOptions::compressed())?;
    /// npz.add_array_with_options("be", &ndarray::array![1u32], &NpzWriteOptions::new().byte_order(ByteOrder::Big))?;
    /// // ndarray-npy's way.
    /// let stored = zip::write::SimpleFileOptions::default();
    /// npz.add_array_with_options("zip", &ndarray::array![1u8], stored)?;
    /// let bytes = npz.finish()?.into_inner();
    /// assert!(bytes.len() < 10_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_array_with_options<N, T, O>(
        &mut self,
        name: N,
        array: &T,
        options: O,
    ) -> Result<(), WriteNpzError>
    where
        N: Into<String>,
        T: WriteNpyExt + ?Sized,
        O: MemberOptions,
    {
        Ok(self.add_member(name.into(), array, options)?)
    }

    /// Adds `array` as the member `name` + `".npy"` with `options`.
    fn add_member<T, O>(&mut self, name: String, array: &T, options: O) -> Result<(), Error>
    where
        T: WriteNpyExt + ?Sized,
        O: MemberOptions,
    {
        self.add_member_as(name + ".npy", array, options)
    }

    /// Adds `array` as the member named `name` with `options`.
    fn add_member_as<T, O>(&mut self, name: String, array: &T, options: O) -> Result<(), Error>
    where
        T: WriteNpyExt + ?Sized,
        O: MemberOptions,
    {
        let npy = WriteOptions::new().byte_order(options.byte_order());
        let len = array.npy_len(&npy);
        options.add(self, name, len, |w| array.write_npy_with_options(w, &npy))
    }

    /// Adds `array` under numpy's name for the next positional argument of `np.savez`:
    /// `arr_0`, then `arr_1`, and so on (counting only arrays added this way). Returns the key.
    ///
    /// # Errors
    ///
    /// As [`NpzWriter::add_array`]; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the key was already
    /// used by [`NpzWriter::add_array`] (numpy refuses that mix too).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// npz.add_array("weights", &ndarray::array![0.5f32])?;
    /// assert_eq!(npz.add_positional(&ndarray::array![1i64, 2])?, "arr_0");
    /// assert_eq!(npz.add_positional(&ndarray::array![3i64])?, "arr_1");
    /// let mut back = ndnpy::NpzReader::new(npz.finish()?)?;
    /// assert_eq!(back.names()?, ["weights", "arr_0", "arr_1"]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn add_positional<T>(&mut self, array: &T) -> Result<String, Error>
    where
        T: WriteNpyExt + ?Sized,
    {
        let key = format!("arr_{}", self.positional);
        self.add(key.clone(), array)?;
        self.positional += 1;
        Ok(key)
    }

    /// Adds a member of raw bytes, named exactly `name` (no `.npy` is appended), with the
    /// writer's compression. numpy's `np.load` returns such a member as `bytes`, and so does
    /// [`NpzMember::get`](crate::npz::NpzMember::get).
    ///
    /// # Errors
    ///
    /// As [`NpzWriter::add_array`].
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// npz.add_bytes("metadata.json", br#"{"epoch": 3}"#)?;
    /// let mut back = ndnpy::NpzReader::new(npz.finish()?)?;
    /// assert_eq!(back.member("metadata.json")?.bytes()?, br#"{"epoch": 3}"#);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn add_bytes<N: Into<String>>(&mut self, name: N, bytes: &[u8]) -> Result<(), Error> {
        let (name, options) = (name.into(), self.options);
        let len = Some(bytes.len() as u64);
        let write = |w: &mut dyn Write| Ok(w.write_all(bytes)?);
        match self.zip_options {
            Some(zip_options) => zip_options.add(self, name, len, write),
            None => (&options).add(self, name, len, write),
        }
    }

    /// Writes the central directory, flushes, and returns the writer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if writing fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// let bytes = npz.finish()?.into_inner();
    /// assert_eq!(bytes, b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"); // as np.savez(f)
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn finish(self) -> Result<W, WriteNpzError> {
        self.close().map_err(WriteNpzError::of_archive)
    }

    /// [`NpzWriter::finish`] for the crate's own callers: ndnpy's error.
    pub(crate) fn close(self) -> Result<W, Error> {
        let mut writer = self.zip.finish().map_err(zip_error)?;
        writer.flush()?;
        if let Some(pending) = self.pending {
            pending.commit()?;
        }
        Ok(writer)
    }

    /// Adds the member `name`, which `write` writes, deflated in chunks at
    /// `level` on `threads` threads, then copied into the archive.
    fn add_chunked(
        &mut self,
        name: String,
        level: u32,
        threads: usize,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.check_name(&name)?;
        let mut deflate = ChunkedDeflate::new(level, threads);
        write(&mut deflate)?;
        let member = deflate.finish(&name)?;
        self.merge(name, member)
    }

    /// Copies the one member of the archive `member` (its bytes as they are) into this one,
    /// as `name`, which [`NpzWriter::check_name`] has let through.
    fn merge<R: io::Read + Seek>(&mut self, name: String, member: R) -> Result<(), Error> {
        let member = ZipArchive::new(member).map_err(zip_error)?;
        // On an error part way, the bytes copied so far are left where the next member's
        // header goes after them; no directory entry names them.
        self.zip.merge_archive(member).map_err(zip_error)?;
        self.names.insert(name);
        Ok(())
    }

    /// Refuses a name too long for a ZIP header or already in the archive.
    fn check_name(&self, name: &str) -> Result<(), Error> {
        if name.len() > usize::from(u16::MAX) {
            return Err(UsageError::MemberNameTooLong { len: name.len() }.into());
        }
        if self.names.contains(name) {
            return Err(UsageError::DuplicateMember {
                name: name.to_owned(),
            }
            .into());
        }
        Ok(())
    }

    /// Starts the member `name` of `len` bytes (when known).
    fn start(
        &mut self,
        name: String,
        options: &NpzWriteOptions,
        len: Option<u64>,
    ) -> Result<(), Error> {
        self.check_name(&name)?;
        let mut zopts = SimpleFileOptions::default()
            .last_modified_time(DateTime::default())
            .unix_permissions(0o600)
            .large_file(needs_zip64(len));
        zopts = match options.compression {
            Compression::Stored => {
                let z = zopts.compression_method(CompressionMethod::Stored);
                if options.align {
                    z.with_alignment(ALIGN)
                } else {
                    z
                }
            }
            Compression::Deflated => zopts
                .compression_method(CompressionMethod::Deflated)
                .compression_level(Some(i64::from(options.checked_level()?))),
        };
        self.zip
            .start_file(name.as_str(), zopts)
            .map_err(zip_error)?;
        self.names.insert(name);
        Ok(())
    }

    /// Starts the member `name` with zip 6's `options`, as ndarray-npy 0.10 does.
    #[cfg(not(nd16))]
    fn start_zip<U: FileOptionExtension>(
        &mut self,
        name: String,
        options: FileOptions<'_, U>,
    ) -> Result<(), Error> {
        if self.names.contains(&name) {
            return Err(UsageError::DuplicateMember { name }.into());
        }
        self.zip
            .start_file(name.as_str(), options)
            .map_err(zip_error)?;
        self.names.insert(name);
        Ok(())
    }

    /// Writes the started member `name`'s bytes, which `write` gives, and removes the member
    /// from the archive if that fails.
    fn write_started(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let written = write(&mut NoFlush(&mut self.zip));
        self.abort_on_error(name, written)
    }

    /// On an error while writing the member `name`, removes it from the archive.
    fn abort_on_error(&mut self, name: &str, result: Result<(), Error>) -> Result<(), Error> {
        if result.is_err() {
            // The member's own error is the one to report; rewinding to its local header
            // leaves the archive as it was before it (and if even that fails, the next write
            // reports it).
            let _ = self.zip.abort_file();
            self.names.remove(name);
        }
        result
    }
}

/// The options of one member of an archive, for [`NpzWriter::add_array_with_options`]: ndnpy's
/// [`NpzWriteOptions`] (by reference), or the `zip` crate's `FileOptions`, which ndarray-npy
/// takes there (zip 6's; zip 2's in `ndnpy-ndarray16`, as in ndarray-npy 0.9). Sealed:
/// implemented for those types only.
///
/// # Examples
///
/// ```
/// use ndnpy::npz::{MemberOptions, NpzWriteOptions};
/// fn takes<O: MemberOptions>(_: O) {}
/// takes(&NpzWriteOptions::compressed());
/// takes(zip::write::SimpleFileOptions::default());
/// ```
pub trait MemberOptions: sealed::Sealed {
    /// The byte order the array is written in.
    #[doc(hidden)]
    fn byte_order(&self) -> ByteOrder;

    /// Adds the member `name` of `len` bytes (when known) to `npz`, its bytes as `write`
    /// writes them.
    #[doc(hidden)]
    fn add<W: Write + Seek>(
        self,
        npz: &mut NpzWriter<W>,
        name: String,
        len: Option<u64>,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for &super::NpzWriteOptions {}
    impl<U: super::FileOptionExtension> Sealed for super::FileOptions<'_, U> {}
}

impl MemberOptions for &NpzWriteOptions {
    fn byte_order(&self) -> ByteOrder {
        self.byte_order
    }

    /// A large deflated member is deflated in chunks on `threads` threads, then copied in.
    fn add<W: Write + Seek>(
        self,
        npz: &mut NpzWriter<W>,
        name: String,
        len: Option<u64>,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let large = len.is_some_and(|n| n >= deflate::MIN_LEN);
        if self.compression == Compression::Deflated && large && self.threads != 1 {
            return npz.add_chunked(name, self.checked_level()?, self.threads, write);
        }
        npz.start(name.clone(), self, len)?;
        npz.write_started(&name, write)
    }
}

/// ndarray-npy's member options: the array in native byte order, the member as `options`
/// say (compression, level, timestamp, permissions, zip64 or not), compressed by the zip
/// crate on one stream.
impl<U: FileOptionExtension> MemberOptions for FileOptions<'_, U> {
    fn byte_order(&self) -> ByteOrder {
        ByteOrder::NATIVE
    }

    #[cfg(not(nd16))]
    fn add<W: Write + Seek>(
        self,
        npz: &mut NpzWriter<W>,
        name: String,
        _: Option<u64>,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        npz.start_zip(name.clone(), self)?;
        npz.write_started(&name, write)
    }

    /// zip 2's options, which only zip 2's writer reads: the member is written by it, as
    /// ndarray-npy 0.9 writes it, into a one-member archive in memory, whose member is then
    /// copied into this one as it is. Deflate needs zip 2's `deflate` feature, as there (the
    /// `zip` crate's default features have it).
    #[cfg(nd16)]
    fn add<W: Write + Seek>(
        self,
        npz: &mut NpzWriter<W>,
        name: String,
        _: Option<u64>,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        use zip2::result::ZipError as Zip2Error;
        npz.check_name(&name)?;
        // zip 2's refusals (an unsupported method or level) are ndarray-npy 0.9's `Zip` error.
        let refused = |e: Zip2Error| match e {
            Zip2Error::Io(e) => Error::from(e),
            e => Error::from(WriteNpzError::Zip(e)),
        };
        let mut one = zip2::ZipWriter::new(io::Cursor::new(Vec::new()));
        one.start_file(name.as_str(), self).map_err(refused)?;
        write(&mut NoFlush(&mut one))?;
        let mut member = one.finish().map_err(refused)?;
        member.set_position(0);
        npz.merge(name, member)
    }
}

/// Whether a member of `len` bytes (unknown: `None`) needs zip64 sizes, compressed or not:
/// deflate can grow incompressible data by a few bytes per 16 KiB block.
fn needs_zip64(len: Option<u64>) -> bool {
    len.is_none_or(|n| n.saturating_add(n / 1024).saturating_add(1024) >= u64::from(u32::MAX))
}

/// The zip crate's errors: I/O stays I/O; anything else is a request it refused
/// ([`ErrorKind::Usage`](crate::ErrorKind::Usage)), kept as the `WriteNpzError::Zip` that
/// ndarray-npy returns for it.
fn zip_error(e: ZipError) -> Error {
    match e {
        ZipError::Io(e) => Error::from(e),
        e => ndnpy_engine::base::error::ndarray_npy::zip_refused(e),
    }
}

/// Passes writes through and ignores `flush`: `write_npy` flushes its writer when done, which
/// on a deflate stream would emit a sync block; the member is finished by the zip writer.
struct NoFlush<'a, Z: Write>(&'a mut Z);

impl<Z: Write> Write for NoFlush<'_, Z> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zip64_only_near_4_gib() {
        assert!(!needs_zip64(Some(0)));
        assert!(!needs_zip64(Some(4_000_000_000)));
        assert!(needs_zip64(Some(u64::from(u32::MAX))));
        assert!(needs_zip64(Some(u64::from(u32::MAX) - 100)));
        assert!(needs_zip64(None));
        assert!(needs_zip64(Some(u64::MAX)));
    }
}
