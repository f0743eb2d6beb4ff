//! [`NpzReader`]: the members of an `.npz` archive, lazily, each through an [`NpzMember`]
//! handle found by key or by index.

use super::member;
use super::Compression;
use crate::array::dynamic::DynArray;
use crate::array::options::ReadOptions;
use crate::array::outofcore::NpyReader;
use ndarray::{Array, ArrayBase, ArrayView, DataOwned, Dimension, IxDyn, SliceArg};
use ndnpy_engine::archive::member::{self as checked, Content, MemberReader};
use ndnpy_engine::archive::{Directory, EntryRef, Located, DEFLATED, STORED};
use ndnpy_engine::base::error::{with_path, Detail, Error, LimitError, MismatchError};
use ndnpy_engine::element::{ReadableElement, ViewElement};
use ndnpy_engine::format::header::HeaderInfo;
use ndnpy_engine::source::span::Span;
use ndnpy_engine::source::{Door, Positioned, ReadAt, Section, Seeking, SourceReader};
use std::fs::File;
use std::io::{Cursor, Read, Seek};
use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;

use super::ReadNpzError;

/// Reads the members of an `.npz` archive (what `np.savez` and `np.savez_compressed` write),
/// over any [`Read`] + [`Seek`].
///
/// Opening reads the central directory only; nothing is decompressed until a member is read,
/// and each member is read on its own, so one corrupt member (or one whose header is over a
/// [`ReadOptions`] limit) fails only when it is read, never the others. Stored and deflated
/// members, zip64 archives, data descriptors (archives numpy streamed to an unseekable file)
/// and names with `/` and non-ASCII characters are all read.
///
/// [`by_name`](NpzReader::by_name) and [`by_index`](NpzReader::by_index) read an array, as in
/// ndarray-npy. Everything else about one member goes through the handle
/// [`member`](NpzReader::member) returns, by key or by index: its directory facts, its `.npy`
/// header alone, the array of a dtype known only at run time, its raw bytes, numpy's
/// array-or-bytes answer, and for a stored member its place in the archive and a zero-copy view
/// (see [`NpzMember`]). [`iter`](NpzReader::iter) and [`read_all`](NpzReader::read_all) read
/// every member.
///
/// # Names and keys
///
/// numpy stores the array of key `k` as the member `k.npy`. This reader follows `np.load`'s
/// `NpzFile`:
///
/// - [`names`](NpzReader::names) gives each member's *key*: its name with one `.npy` suffix
///   removed (`w.npy` → `w`, `x.npy.npy` → `x.npy`, `metadata` → `metadata`), for every member,
///   in archive order;
/// - [`member`](NpzReader::member), [`by_name`](NpzReader::by_name) and
///   [`contains`](NpzReader::contains) take a key or a full member name: the member named
///   exactly so if there is one, else the one named so plus `.npy` (`"a"` finds `a.npy`;
///   `"x.npy"` finds a member `x.npy`, else `x.npy.npy`). When several members share a name,
///   the last one is found, as in `zipfile`;
/// - a member that does not start with the `.npy` magic is not an array: numpy returns its
///   bytes, and so do [`NpzMember::get`] and [`NpzMember::bytes`]; asking for it as an array
///   gives [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy). A member that does start with the magic is read as an
///   array whatever its name.
///
/// # Trust
///
/// Every size in the archive is checked before it is used: a member's declared size bounds
/// what is read (a member that inflates further fails with
/// [`ErrorKind::Archive`](crate::ErrorKind::Archive) after one extra byte), a
/// deflated member may declare at most 1032 bytes per compressed byte (deflate's maximum
/// ratio), a member's data must lie in the archive and end before the next member (members
/// that overlap, or share a local header, are refused), and each member's CRC-32 is checked
/// once it is read in full. So the largest allocation for a member is its declared size, which
/// is at most what its compressed bytes can hold.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array1, Array2};
/// use ndnpy::NpzReader;
///
/// // np.savez_compressed("testdata/npz_compressed.npz", a=..., fortran=..., big_endian=..., ...)
/// let mut npz = NpzReader::open("testdata/npz_compressed.npz")?;
/// assert!(npz.names()?.contains(&"a".to_string()));
/// let a: Array2<f64> = npz.by_name("a")?;
/// assert_eq!(a, array![[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
/// let be: Array1<u16> = npz.by_name("big_endian.npy")?; // the full member name works too
/// assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
///
/// // One member through its handle: what the directory says, its header, then its data.
/// let mut fortran = npz.member("fortran")?;
/// assert_eq!(fortran.info().name(), "fortran.npy");
/// assert_eq!(fortran.header()?.header.shape, [3, 4]);
/// let f: Array2<i32> = fortran.read()?;
/// assert_eq!(f[[2, 3]], 11);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub struct NpzReader<R: Read + Seek> {
    pub(super) reader: R,
    /// How `reader` is read at offsets: the door's guess from its type (a file, bytes, an
    /// object in a store), or, for [`NpzReader::from_source`], its source as itself.
    pub(super) door: Door<R>,
    pub(super) dir: Directory,
    pub(super) options: ReadOptions,
    pub(super) scratch: Vec<u8>,
    /// The bytes read out of members so far, for [`ReadOptions::max_inflated_len`].
    pub(super) inflated: u64,
}

impl<R: Read + Seek> std::fmt::Debug for NpzReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// The first keys, as many as an error message lists.
        struct Keys<'a>(&'a Directory);
        impl std::fmt::Debug for Keys<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut list = f.debug_list();
                for e in self.0.entries().take(10) {
                    list.entry(&ndnpy_engine::base::error::Capped(format_args!(
                        "{:?}",
                        e.key()
                    )));
                }
                if self.0.len() > 10 {
                    list.entry(&format_args!("..."));
                }
                list.finish()
            }
        }
        f.debug_struct("NpzReader")
            .field("len", &self.dir.len())
            .field("keys", &Keys(&self.dir))
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// What a member holds, as `np.load(...)[key]` returns it: an array when the member starts
/// with the `.npy` magic, its raw bytes otherwise ([`NpzMember::get`]).
///
/// # Examples
///
/// ```
/// use ndarray::{ArrayD, IxDyn, OwnedRepr};
/// use ndnpy::{NpzReader, npz::NpzValue};
///
/// // Written with zipfile: "metadata" is text, "a.npy" an array.
/// let mut npz = NpzReader::open("testdata/npz_non_npy.npz")?;
/// let meta = npz.member("metadata")?.get::<OwnedRepr<i64>, IxDyn>()?;
/// assert_eq!(meta, NpzValue::Bytes(b"Name: Test".to_vec()));
/// let a = npz.member("a")?.get::<OwnedRepr<i64>, IxDyn>()?;
/// assert!(matches!(a, NpzValue::Array(a) if a.len() == 3));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum NpzValue<A> {
    /// The member is an `.npy` array.
    Array(A),
    /// The member is something else; these are its bytes.
    Bytes(Vec<u8>),
}

/// The central directory's facts about one member, available without reading it: from
/// [`NpzMember::info`], or for every member from [`NpzReader::members`].
///
/// # Examples
///
/// ```
/// use ndnpy::{npz::Compression, NpzReader};
///
/// let mut npz = NpzReader::open("testdata/npz_compressed.npz")?;
/// let a = npz.member("a")?;
/// let m = a.info();
/// assert_eq!((m.index(), m.name(), m.key()), (0, "a.npy", "a"));
/// assert_eq!(m.compression(), Some(Compression::Deflated));
/// assert_eq!(m.size(), 128 + 6 * 8);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MemberInfo<'a> {
    index: usize,
    entry: EntryRef<'a>,
}

impl<'a> MemberInfo<'a> {
    /// The member's position in the archive.
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert_eq!(npz.member("fortran")?.info().index(), 1);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The member's full name in the archive (for an array: its key with `.npy` appended).
    /// Names are UTF-8 when the entry says so, else code page 437, as Python's `zipfile`
    /// decodes them.
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert_eq!(npz.member(0)?.info().name(), "a.npy");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn name(&self) -> &'a str {
        self.entry.name
    }

    /// The member's key: its name with one `.npy` suffix removed, as `NpzFile.files` lists it.
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert_eq!(npz.member(0)?.info().key(), "a");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn key(&self) -> &'a str {
        self.entry.key()
    }

    /// How the member is compressed, or `None` for a method this crate does not read (see
    /// [`MemberInfo::method`]).
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// assert_eq!(npz.member(0)?.info().compression(), Some(ndnpy::npz::Compression::Stored));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn compression(&self) -> Option<Compression> {
        match self.entry.method {
            STORED => Some(Compression::Stored),
            DEFLATED => Some(Compression::Deflated),
            _ => None,
        }
    }

    /// The ZIP compression method number (0 stored, 8 deflate).
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert_eq!(npz.member(0)?.info().method(), 8);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn method(&self) -> u16 {
        self.entry.method
    }

    /// The member's uncompressed size in bytes, as the central directory declares it (checked
    /// when the member is read).
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// let a = npz.member("a")?;
    /// assert_eq!(a.info().size(), a.info().compressed_size());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn size(&self) -> u64 {
        self.entry.size
    }

    /// The member's compressed size in bytes.
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let a = npz.member("a")?;
    /// assert!(a.info().compressed_size() < a.info().size());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn compressed_size(&self) -> u64 {
        self.entry.compressed_size
    }

    /// The CRC-32 of the member's uncompressed bytes, as declared (checked when the member is
    /// read in full).
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// assert_ne!(npz.member(0)?.info().crc32(), 0);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn crc32(&self) -> u32 {
        self.entry.crc32
    }
}

/// What [`NpzReader::member`] finds a member by: its key or full name (`&str`, `String`), with
/// numpy's rules (see [Names and keys](NpzReader#names-and-keys)), or its position in the
/// archive (`usize`); also a reference to any of these.
///
/// The trait is sealed: these are its only implementations.
///
/// # Examples
///
/// ```
/// let mut npz = ndnpy::NpzReader::open("testdata/npz_keywords.npz")?;
/// assert_eq!(npz.member("arr_0")?.info().index(), 2);
/// assert_eq!(npz.member(String::from("arr_0.npy"))?.info().index(), 2);
/// assert_eq!(npz.member(2)?.info().key(), "arr_0");
/// for key in npz.names()? {
///     assert_eq!(npz.member(&key)?.info().key(), key);
/// }
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub trait MemberKey: sealed::Sealed {}

mod sealed {
    /// A member key, as [`NpzReader::member`](super::NpzReader::member) looks it up.
    pub enum Key<'a> {
        Name(&'a str),
        Index(usize),
    }

    pub trait Sealed {
        fn key(&self) -> Key<'_>;
    }

    impl Sealed for str {
        fn key(&self) -> Key<'_> {
            Key::Name(self)
        }
    }

    impl Sealed for String {
        fn key(&self) -> Key<'_> {
            Key::Name(self)
        }
    }

    impl Sealed for usize {
        fn key(&self) -> Key<'_> {
            Key::Index(*self)
        }
    }

    impl<K: Sealed + ?Sized> Sealed for &K {
        fn key(&self) -> Key<'_> {
            (**self).key()
        }
    }
}

impl MemberKey for str {}
impl MemberKey for String {}
impl MemberKey for usize {}
impl<K: MemberKey + ?Sized> MemberKey for &K {}

/// The index of the member `key` finds in `dir`: by numpy's key rules for a name, by position
/// for an index. The error of a missing name lists the first keys.
pub(crate) fn member_index<K: MemberKey>(dir: &Directory, key: K) -> Result<usize, Error> {
    match key.key() {
        sealed::Key::Name(name) => dir.lookup(name).ok_or_else(|| missing(dir, name)),
        sealed::Key::Index(index) => entry_at(dir, index).map(|_| index),
    }
}

/// The error of a name no member of `dir` has; it lists the first keys.
fn missing(dir: &Directory, name: &str) -> Error {
    Error::from(MismatchError::MissingMember {
        name: name.to_owned(),
        // The ones the message lists, not a copy of a directory of any size.
        keys: dir.entries().take(10).map(|e| e.key().to_owned()).collect(),
        len: dir.len(),
    })
}

/// Member `index` of `dir`, or the error of an index out of range.
pub(crate) fn entry_at(dir: &Directory, index: usize) -> Result<EntryRef<'_>, Error> {
    dir.entry(index)
        .ok_or(Error::from(MismatchError::MemberIndex {
            index,
            len: dir.len(),
        }))
}

impl NpzReader<File> {
    /// Opens the `.npz` archive at `path` and reads its central directory.
    ///
    /// # Errors
    ///
    /// As [`NpzReader::new`]; also [`ErrorKind::Io`](crate::ErrorKind::Io) if the file cannot be opened, whose message
    /// names the path and gives the reason.
    ///
    /// # Examples
    ///
    /// ```
    /// let npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// assert!(!npz.is_empty());
    ///
    /// let err = ndnpy::NpzReader::open("no/such.npz").unwrap_err();
    /// assert!(err.to_string().starts_with("cannot open \"no/such.npz\": "));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn open<P: AsRef<Path>>(path: P) -> Result<NpzReader<File>, Error> {
        let path = path.as_ref();
        NpzReader::with_options(
            File::open(path).map_err(with_path("open", path))?,
            &ReadOptions::default(),
        )
    }
}

impl<S: ReadAt> NpzReader<SourceReader<S>> {
    /// Reads the central directory of the archive in `source`, a byte source named by its
    /// type ([`ReadAt`](crate::source::ReadAt)), with the default [`ReadOptions`] for its
    /// members.
    ///
    /// Every member is then read as the source's type reads, never guessed from a reader's:
    /// a file's stored members by positioned reads (a large one split over two threads,
    /// hashed as it lands), bytes in memory in place, regions by the source's
    /// [`read_many`](crate::source::ReadAt::read_many), a large stored member's checksum by
    /// its [`read_at_crc32`](crate::source::ReadAt::read_at_crc32). This is the door for a
    /// source of the caller's own, for an archive inside a larger file
    /// ([`Section`](crate::source::Section)), and for a wrapped file that
    /// [`NpzReader::new`] could only read by seeking.
    ///
    /// # Errors
    ///
    /// As [`NpzReader::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{source::Section, NpzReader};
    /// // An archive after a prefix of 4 bytes, in memory.
    /// let mut bytes = b"junk".to_vec();
    /// bytes.extend(std::fs::read("testdata/npz_stored.npz")?);
    /// let mut npz = NpzReader::from_source(Section::new(&bytes[..], 4, u64::MAX))?;
    /// let a: ndarray::Array2<f64> = npz.by_name("a")?;
    /// assert_eq!(a.shape(), [2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_source(source: S) -> Result<NpzReader<SourceReader<S>>, Error> {
        NpzReader::from_source_with_options(source, &ReadOptions::default())
    }

    /// Like [`NpzReader::from_source`], with limits for reading each member, as
    /// [`NpzReader::with_options`] takes them.
    ///
    /// # Errors
    ///
    /// As [`NpzReader::new`]. The limits apply when a member is read, not here.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, NpzReader, ReadOptions};
    /// let file = std::fs::File::open("testdata/npz_stored.npz")?;
    /// let opts = ReadOptions::new().max_data_len(Some(16));
    /// let mut npz = NpzReader::from_source_with_options(file, &opts)?;
    /// let err = npz.member("a")?.read::<ndarray::OwnedRepr<f64>, ndarray::Ix2>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Limit);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_source_with_options(
        source: S,
        options: &ReadOptions,
    ) -> Result<NpzReader<SourceReader<S>>, Error> {
        let mut reader = SourceReader::new(source)?;
        let dir = Directory::read(&mut reader)?;
        Ok(NpzReader {
            reader,
            door: SourceReader::positioned,
            dir,
            options: options.clone(),
            scratch: Vec::new(),
            inflated: 0,
        })
    }
}

impl<R: Read + Seek> NpzReader<R> {
    /// Reads the central directory of the archive in `reader`, with the default
    /// [`ReadOptions`] for its members.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Archive`](crate::ErrorKind::Archive) if there is no end of central
    /// directory record (not a ZIP archive), [`ErrorKind::Archive`](crate::ErrorKind::Archive) or
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the directory is malformed
    /// or cut short, [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, NpzReader};
    /// let bytes = std::fs::read("testdata/npz_stored.npz")?;
    /// let npz = NpzReader::new(std::io::Cursor::new(&bytes[..]))?;
    /// assert_eq!(npz.len(), 6);
    ///
    /// let err = NpzReader::new(std::io::Cursor::new(b"not a zip file")).err().unwrap();
    /// assert_eq!(err.kind(), ErrorKind::Archive);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(reader: R) -> Result<NpzReader<R>, ReadNpzError> {
        Ok(NpzReader::with_options(reader, &ReadOptions::default())?)
    }

    /// Like [`NpzReader::new`], with limits for reading each member (its header length, nesting
    /// and array size; [`ReadOptions::max_data_len`] also bounds [`NpzMember::bytes`]).
    ///
    /// # Errors
    ///
    /// As [`NpzReader::new`]. The limits apply when a member is read, not here.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, NpzReader, ReadOptions};
    /// let opts = ReadOptions::new().max_data_len(Some(16));
    /// let mut npz = NpzReader::with_options(std::fs::File::open("testdata/npz_stored.npz")?, &opts)?;
    /// let err = npz.member("a")?.read::<ndarray::OwnedRepr<f64>, ndarray::Ix2>().unwrap_err();
    /// assert_eq!((err.kind(), err.byte_counts()), (ErrorKind::Limit, Some((16, 48))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_options(mut reader: R, options: &ReadOptions) -> Result<NpzReader<R>, Error> {
        let dir = Directory::read(&mut reader)?;
        Ok(NpzReader {
            reader,
            door: ndnpy_engine::source::positioned::<R>,
            dir,
            options: options.clone(),
            scratch: Vec::new(),
            inflated: 0,
        })
    }

    /// The number of members (arrays and others).
    ///
    /// ```
    /// assert_eq!(ndnpy::NpzReader::open("testdata/npz_stored.npz")?.len(), 6);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.dir.len()
    }

    /// Whether the archive has no members (`np.savez(f)` with no arrays).
    ///
    /// ```
    /// assert!(ndnpy::NpzReader::open("testdata/npz_empty.npz")?.is_empty());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.dir.len() == 0
    }

    /// The keys of all members, in archive order: each member's name with one `.npy` suffix
    /// removed, as `NpzFile.files` lists them. Nothing is read or decompressed (the `Result`
    /// is ndarray-npy's signature). See also [`NpzReader::keys`],
    /// which does not allocate.
    ///
    /// On ndarray 0.15 (`ndnpy-ndarray15`, for ndarray-npy 0.8's users) these are the names
    /// as stored, `.npy` included, as ndarray-npy 0.8 listed them ([`NpzReader::keys`] gives
    /// the keys there too).
    ///
    /// # Errors
    ///
    /// None but an [`ErrorKind::Io`](crate::ErrorKind::Io) of kind `OutOfMemory` if the list cannot be allocated; the
    /// directory was read by [`NpzReader::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// // np.savez(f, np.arange(3), weights=..., bias=...): keywords first, then arr_0.
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_keywords.npz")?;
    /// assert_eq!(npz.names()?, ["weights", "bias", "arr_0", "arr_1"]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn names(&mut self) -> Result<Vec<String>, ReadNpzError> {
        let mut names = Vec::new();
        names.try_reserve_exact(self.len()).map_err(|_| {
            Error::out_of_memory(
                self.len().saturating_mul(std::mem::size_of::<String>()),
                "the names of the members",
            )
        })?;
        #[cfg(not(nd15))]
        names.extend(self.keys().map(str::to_owned));
        #[cfg(nd15)]
        names.extend(self.dir.entries().map(|e| e.name.to_owned()));
        Ok(names)
    }

    /// The keys of all members, in archive order, borrowed (see [`NpzReader::names`]).
    ///
    /// ```
    /// let npz = ndnpy::NpzReader::open("testdata/npz_names.npz")?;
    /// let keys: Vec<&str> = npz.keys().collect();
    /// assert_eq!(keys, ["layer1/weight", "données/α", "x.npy", ""]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.dir.entries().map(|e| e.key())
    }

    /// The central directory's facts about every member, in archive order (for one member:
    /// [`NpzMember::info`]).
    ///
    /// ```
    /// let npz = ndnpy::NpzReader::open("testdata/npz_names.npz")?;
    /// let names: Vec<&str> = npz.members().map(|m| m.name()).collect();
    /// assert_eq!(names, ["layer1/weight.npy", "données/α.npy", "x.npy.npy", ".npy"]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn members(&self) -> impl ExactSizeIterator<Item = MemberInfo<'_>> + '_ {
        self.dir
            .entries()
            .enumerate()
            .map(|(index, entry)| MemberInfo { index, entry })
    }

    /// Whether `name` finds a member, by numpy's key rules (see
    /// [Names and keys](NpzReader#names-and-keys)). Nothing is read.
    ///
    /// ```
    /// let npz = ndnpy::NpzReader::open("testdata/npz_names.npz")?;
    /// assert!(npz.contains("données/α"));
    /// assert!(npz.contains("x.npy")); // the member "x.npy.npy"
    /// assert!(!npz.contains("x"));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn contains(&self, name: &str) -> bool {
        self.dir.lookup(name).is_some()
    }

    /// The member `key` finds: by name (a key or a full member name, by numpy's rules; see
    /// [Names and keys](NpzReader#names-and-keys)) or by position (a `usize`). Only the
    /// directory, already in memory, is looked at; the handle reads the member when asked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if no member has that name (the error lists the
    /// keys), [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if there is no member at that position.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array2;
    /// use ndnpy::{ErrorKind, NpzReader};
    ///
    /// let mut npz = NpzReader::open("testdata/npz_stored.npz")?;
    /// let a: Array2<f64> = npz.member("a")?.read()?;
    /// assert_eq!(a.shape(), [2, 3]);
    /// assert_eq!(npz.member(1)?.info().key(), "fortran");
    ///
    /// let err = npz.member("b").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MissingMember);
    /// let err = npz.member(6).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MissingMember);
    /// assert_eq!(err.to_string(), "member index 6 is out of range for an archive of 6 members");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn member<K: MemberKey>(&mut self, key: K) -> Result<NpzMember<'_, R>, Error> {
        let index = member_index(&self.dir, key)?;
        Ok(NpzMember { npz: self, index })
    }

    pub(super) fn entry(&self, index: usize) -> Result<EntryRef<'_>, Error> {
        entry_at(&self.dir, index)
    }

    /// Checks that reading up to `bytes` more out of member `index` stays within
    /// [`ReadOptions::max_inflated_len`].
    pub(super) fn charge_check(&self, index: usize, bytes: u64) -> Result<(), Error> {
        let Some(limit) = self.options.max_inflated_len else {
            return Ok(());
        };
        let found = self.inflated.saturating_add(bytes);
        if found > limit {
            let name = self.entry(index)?.name;
            return Err(Error::from(LimitError::InflatedTooLarge { limit, found }).in_member(name));
        }
        Ok(())
    }

    /// Opens member `index` and hands a reader of its bytes to `f`; `most` is the most that
    /// `f` reads, checked against [`ReadOptions::max_inflated_len`] first (`None`: the whole
    /// member), and what it does read is counted.
    fn with_member<'s, T>(
        &'s mut self,
        index: usize,
        most: Option<u64>,
        f: impl FnOnce(&mut MemberReader<'s, Span<'s>>, &ReadOptions) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let entry = self.entry(index)?;
        entry.check()?;
        let most = most.map_or(entry.size, |m| m.min(entry.size));
        self.charge_check(index, most)?;
        let NpzReader {
            reader,
            door,
            dir,
            options,
            scratch,
            inflated,
        } = self;
        let entry = dir
            .entry(index)
            .ok_or(Error::from(MismatchError::MemberIndex {
                index,
                len: dir.len(),
            }))?;
        // Every error from here on says which member it happened in.
        let name = entry.name;
        let Located {
            data_start,
            in_scratch,
        } = (dir.locate(reader, index, scratch)).map_err(|e| e.in_member(name))?;
        let src = match in_scratch {
            Some(range) => Span::Memory(&scratch[range]),
            None => Span::of(
                (*door)(reader),
                data_start,
                entry.compressed_size,
                options.threads,
            )
            .map_err(|e| Error::from(e).in_member(name))?,
        };
        let mut m = MemberReader::new(src, entry).with_threads(options.threads);
        let result = f(&mut m, options).map_err(|e| e.in_member(name));
        *inflated = inflated.saturating_add(m.produced());
        result
    }

    /// Reads the array `name` finds, by numpy's key rules (see
    /// [Names and keys](NpzReader#names-and-keys)): `npz.member(name)?.read()`, under
    /// ndarray-npy's name.
    ///
    /// The array is allocated once, at its final size; `fortran_order` and big-endian members
    /// come back as [`ReadNpyExt`](crate::ReadNpyExt) reads them. This always copies the data
    /// out of the archive: it is the call for compressed members, and for stored members that
    /// cannot be viewed in place (see [`NpzMember::view`]).
    ///
    /// On ndarray 0.15 (`ndnpy-ndarray15`, for ndarray-npy 0.8's users) `name` is the member's
    /// name exactly, as ndarray-npy 0.8 looked it up (`"a.npy"`, not `"a"`);
    /// [`NpzReader::member`] follows numpy's key rules there too.
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if no member is found (the error lists the keys);
    /// - [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) if the member is not an `.npy` array (read it with
    ///   [`NpzMember::bytes`] or [`NpzMember::get`]);
    /// - what [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy) returns for its content;
    /// - a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the member is corrupt: a malformed local header, a corrupt deflate
    ///   stream, a size or CRC-32 that does not match its directory entry;
    /// - [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2, ArrayD};
    /// use ndnpy::{ErrorKind, NpzReader};
    ///
    /// let mut npz = NpzReader::open("testdata/npz_stored.npz")?;
    /// let f: Array2<i32> = npz.by_name("fortran")?; // stored in Fortran order
    /// assert_eq!(f[[1, 2]], 6);
    /// assert!(f.t().is_standard_layout());
    /// let any: ArrayD<f64> = npz.by_name("a")?; // any dimension
    /// assert_eq!(any.shape(), [2, 3]);
    ///
    /// let err = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>("b").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MissingMember);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn by_name<S, D>(&mut self, name: &str) -> Result<ArrayBase<S, D>, ReadNpzError>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
    {
        #[cfg(not(nd15))]
        return Ok(self.member(name)?.read()?);
        #[cfg(nd15)]
        {
            let index = self
                .dir
                .find(name)
                .ok_or_else(|| missing(&self.dir, name))?;
            Ok(self.member(index)?.read()?)
        }
    }

    /// Reads the array named `name`, whatever its dtype (object arrays with the feature `object`):
    /// `npz.member(name)?.read_dyn()`, as [`NpzReader::by_name`] is `member(name)?.read()`.
    ///
    /// # Errors
    ///
    /// As [`NpzReader::by_name`], without dtype or dimension mismatches.
    ///
    /// # Examples
    ///
    #[cfg_attr(feature = "object", doc = "```")]
    #[cfg_attr(not(feature = "object"), doc = "```ignore")]
    /// let mut npz = ndnpy::NpzReader::open("testdata/object/objects.npz")?;
    /// let meta = npz.by_name_dyn("meta")?.into_item()?; // np.savez(..., meta={"lr": 0.1})
    /// assert_eq!(meta.get("lr").and_then(ndnpy::PyValue::as_f64), Some(0.1));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn by_name_dyn(&mut self, name: &str) -> Result<DynArray, Error> {
        self.member(name)?.read_dyn()
    }

    /// Reads the array at position `index` in the archive: `npz.member(index)?.read()`, under
    /// ndarray-npy's name.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if there is no member `index`; otherwise as
    /// [`NpzReader::by_name`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array1};
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_keywords.npz")?;
    /// let arr_0: Array1<i64> = npz.by_index(2)?;
    /// assert_eq!(arr_0, array![0, 1, 2]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn by_index<S, D>(&mut self, index: usize) -> Result<ArrayBase<S, D>, ReadNpzError>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
    {
        Ok(self.member(index)?.read()?)
    }

    /// An iterator over all members as `(key, array)`, in archive order. Each member is read
    /// when the iterator reaches it, and its error (a corrupt member, a dtype other than
    /// `S::Elem`, a member that is not an array) is its own: the iteration goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::ArrayD;
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_keywords.npz")?;
    /// let mut found = Vec::new();
    /// for (key, array) in npz.iter::<ndarray::OwnedRepr<i64>, ndarray::IxDyn>() {
    ///     // weights and bias are f32: an error for them, not the end of the iteration.
    ///     found.push((key, array.is_ok()));
    /// }
    /// assert_eq!(found, [("weights".into(), false), ("bias".into(), false),
    ///                    ("arr_0".into(), true), ("arr_1".into(), true)]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn iter<S, D>(&mut self) -> NpzArrays<'_, R, S, D>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
    {
        NpzArrays {
            npz: self,
            next: 0,
            _marker: PhantomData,
        }
    }

    /// The underlying reader.
    ///
    /// ```
    /// let npz = ndnpy::NpzReader::open("testdata/npz_empty.npz")?;
    /// let file: std::fs::File = npz.into_inner();
    /// assert_eq!(file.metadata()?.len(), 22);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.reader
    }
}

/// One member of an `.npz` archive, as [`NpzReader::member`] finds it: what the central
/// directory says about it, and every way to read it.
///
/// | call | gives |
/// |---|---|
/// | [`info`] | the directory's facts: name, key, index, compression, sizes, CRC-32 |
/// | [`header`] | the `.npy` header alone: dtype, shape, order |
/// | [`read`] | the array, as a Rust element type (what [`NpzReader::by_name`] calls) |
/// | [`read_dyn`] | the array whatever its dtype, as a [`DynArray`] |
/// | [`bytes`] | the member's bytes (for an array, its whole `.npy` file) |
/// | [`get`] | as `np.load(...)[key]`: the array, or the bytes of a member that is not one |
/// | [`stored_range`] | where a stored member's bytes lie in the archive |
/// | [`stored_slice`], [`view`] | in an in-memory archive, those bytes and a zero-copy view |
///
/// [`info`]: NpzMember::info
/// [`header`]: NpzMember::header
/// [`read`]: NpzMember::read
/// [`read_dyn`]: NpzMember::read_dyn
/// [`bytes`]: NpzMember::bytes
/// [`get`]: NpzMember::get
/// [`stored_range`]: NpzMember::stored_range
/// [`stored_slice`]: NpzMember::stored_slice
/// [`view`]: NpzMember::view
///
/// Each call reads the member afresh (and checks it: sizes, CRC-32 when read in full), so the
/// handle can be asked more than once, a header before the data say. It borrows the reader
/// mutably; drop it to find another member.
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array1};
/// use ndnpy::{NpzReader, npz::NpzValue};
///
/// // np.savez(f, weights=..., bias=..., *[np.arange(3), [[1, 2]]])
/// let mut npz = NpzReader::open("testdata/npz_keywords.npz")?;
/// let mut bias = npz.member("bias")?;
/// assert_eq!(bias.info().name(), "bias.npy");
/// assert_eq!(bias.header()?.header.dtype.descr(), "'<f4'");
/// let b: Array1<f32> = bias.read()?;
/// assert_eq!(b, array![0.125, -0.5]);
/// assert!(bias.bytes()?.starts_with(b"\x93NUMPY"));
///
/// let arr_0 = npz.member(2)?.read_dyn()?; // by position, any dtype
/// assert_eq!(arr_0.dtype().descr(), "'<i8'");
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub struct NpzMember<'a, R: Read + Seek> {
    npz: &'a mut NpzReader<R>,
    /// The member's position; `NpzReader::member` checked that there is one.
    index: usize,
}

impl<R: Read + Seek> std::fmt::Debug for NpzMember<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzMember")
            .field("index", &self.index)
            .field(
                "name",
                &ndnpy_engine::base::error::Capped(format_args!("{:?}", self.info().name())),
            )
            .finish_non_exhaustive()
    }
}

impl<R: Read + Seek> NpzMember<'_, R> {
    /// The central directory's facts about the member: its name, key, position, compression,
    /// sizes and CRC-32. Nothing is read.
    ///
    /// ```
    /// use ndnpy::npz::Compression;
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let scalar = npz.member("scalar")?;
    /// let info = scalar.info();
    /// assert_eq!((info.index(), info.name(), info.key()), (3, "scalar.npy", "scalar"));
    /// assert_eq!(info.compression(), Some(Compression::Deflated));
    /// assert_eq!(info.size(), 128 + 4);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn info(&self) -> MemberInfo<'_> {
        let entry = self
            .npz
            .dir
            .entry(self.index)
            .expect("NpzReader::member checked the index, and the directory does not change");
        MemberInfo {
            index: self.index,
            entry,
        }
    }

    /// Reads only the member's `.npy` header: its dtype, shape and order, without reading (or
    /// inflating) its data. The data and the CRC-32 are not checked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) if the member is not an `.npy` array, what
    /// [`Header::read`](crate::Header::read) returns for its header, a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) for a
    /// corrupt member, [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let info = npz.member("fortran")?.header()?;
    /// assert_eq!(info.header.dtype.descr(), "'<i4'");
    /// assert_eq!(info.header.shape, [3, 4]);
    /// assert!(info.header.fortran_order);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn header(&mut self) -> Result<HeaderInfo, Error> {
        // The magic, version and length field, and the header.
        let most = 12u64.saturating_add(self.npz.options.max_header_len as u64);
        self.npz.with_member(self.index, Some(most), |m, opts| {
            checked::read_header(m, opts)
        })
    }

    /// Reads the member's array (what [`NpzReader::by_name`] and [`NpzReader::by_index`]
    /// call).
    ///
    /// The array is allocated once, at its final size; `fortran_order` and big-endian members
    /// come back as [`ReadNpyExt`](crate::ReadNpyExt) reads them. This always copies the data
    /// out of the archive: it is the call for compressed members, and for stored members that
    /// cannot be viewed in place (see [`NpzMember::view`]).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) if the member is not an `.npy` array (read it with
    ///   [`NpzMember::bytes`] or [`NpzMember::get`]);
    /// - what [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy) returns for its content;
    /// - a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the member is corrupt: a malformed local header, a corrupt deflate
    ///   stream, a size or CRC-32 that does not match its directory entry;
    /// - [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array0, Array1};
    /// use ndnpy::{ErrorKind, NpzReader};
    ///
    /// let mut npz = NpzReader::open("testdata/npz_compressed.npz")?;
    /// let be: Array1<u16> = npz.member("big_endian")?.read()?; // swapped to this machine's order
    /// assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
    /// let scalar: Array0<f32> = npz.member(3)?.read()?;
    /// assert_eq!(scalar[()], 3.5);
    ///
    /// let err = npz.member("a")?.read::<ndarray::OwnedRepr<i32>, ndarray::Ix2>().unwrap_err();
    /// assert_eq!((err.kind(), err.member()), (ErrorKind::DType, Some("a.npy")));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read<S, D>(&mut self) -> Result<ArrayBase<S, D>, Error>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
    {
        self.npz.with_member(self.index, None, member::read_npy)
    }

    /// Reads the member's array into `out`, memory the caller owns, as
    /// [`read_npy_into`](crate::read_npy_into) reads a file: stored or deflated (inflated as
    /// it streams into `out`, no copy of the member held), its size and CRC-32 checked as
    /// [`NpzMember::read`] checks them. `out` must have the array's shape, in either order.
    ///
    /// # Errors
    ///
    /// As [`NpzMember::read`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if `out`'s
    /// shape is not the array's (before its data is read; `out` is then unchanged). After a
    /// later error (a corrupt member) `out` holds part of the data, or all of it where only
    /// the CRC-32 failed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let mut buffer = ndarray::Array1::<u16>::zeros(5);
    /// npz.member("big_endian")?.read_into(buffer.view_mut())?;
    /// assert_eq!(buffer, ndarray::array![0, 1000, 2000, 3000, 4000]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_into<A: ReadableElement, D: Dimension>(
        &mut self,
        out: ndarray::ArrayViewMut<'_, A, D>,
    ) -> Result<(), Error> {
        let out = out.into_dyn();
        self.npz
            .with_member(self.index, None, |m, opts| member::read_into(m, opts, out))
    }

    /// Reads the member's array whatever its dtype, as a [`DynArray`].
    ///
    /// # Errors
    ///
    /// As [`NpzMember::read`], without dtype or dimension mismatches; an object array gives
    /// the errors of [`DynArray::read_npy`] (its pickle's, or, without the feature `object`,
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) naming the feature).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_keywords.npz")?;
    /// for i in 0..npz.len() {
    ///     let mut m = npz.member(i)?;
    ///     let a = m.read_dyn()?;
    ///     println!("{}: {} {:?}", m.info().key(), a.dtype(), a.shape());
    /// }
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_dyn(&mut self) -> Result<DynArray, Error> {
        self.npz.with_member(self.index, None, member::read_dyn)
    }

    /// Reads the member as `np.load(...)[key]` does: an array if it starts with the `.npy`
    /// magic, whatever its name, else its raw bytes.
    ///
    /// # Errors
    ///
    /// As [`NpzMember::read`], except that a member that is not an `.npy` array is not an
    /// error; for such a member, as [`NpzMember::bytes`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Ix1, OwnedRepr};
    /// use ndnpy::{NpzReader, npz::NpzValue};
    ///
    /// // "test2" has no .npy suffix but .npy content, as in numpy's test_load_non_npy.
    /// let mut npz = NpzReader::open("testdata/npz_non_npy.npz")?;
    /// let v = npz.member("test2")?.get::<OwnedRepr<i64>, Ix1>()?;
    /// assert_eq!(v, NpzValue::Array(array![1, 2, 3]));
    /// let v = npz.member("metadata")?.get::<OwnedRepr<i64>, Ix1>()?;
    /// assert_eq!(v, NpzValue::Bytes(b"Name: Test".to_vec()));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn get<S, D>(&mut self) -> Result<NpzValue<ArrayBase<S, D>>, Error>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
    {
        self.npz.with_member(self.index, None, |m, opts| {
            Ok(match member::read_content(m, opts)? {
                Content::Array(a) => NpzValue::Array(a),
                Content::Bytes(b) => NpzValue::Bytes(b),
            })
        })
    }

    /// Reads all the member's bytes (an `.npy` member gives its whole file: header and data),
    /// decompressed and checked against its size and CRC-32.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) if the member is
    /// larger than [`ReadOptions::max_data_len`]; a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if it is corrupt;
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_non_npy.npz")?;
    /// assert_eq!(npz.member("metadata")?.bytes()?, b"Name: Test");
    /// assert!(npz.member("a")?.bytes()?.starts_with(b"\x93NUMPY"));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        self.npz
            .with_member(self.index, None, |m, opts| checked::read_bytes(m, opts))
    }

    /// Reads the member's `.npy` header, then its array data as stored (the dtype's byte
    /// order, the header's C or Fortran order, no conversion) into `out`, inflating a
    /// compressed member straight into it; the header read. For callers that lay out memory
    /// by the header themselves, whatever the dtype: `out` is sized by the member's
    /// [`header`](NpzMember::header) (its `data_len`). The member is read to its end, so its
    /// CRC-32 is checked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if `out` is not the data's length; as
    /// [`NpzMember::read`] otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let mut member = npz.member("a")?;
    /// let mut data = vec![0u8; member.header()?.data_len];
    /// let info = member.read_data_into(&mut data)?;
    /// assert_eq!(info.header.shape, [2, 3]);
    /// assert_eq!(data.len(), 6 * info.header.dtype.itemsize());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_data_into(&mut self, out: &mut [u8]) -> Result<HeaderInfo, Error> {
        self.npz.with_member(self.index, None, |m, opts| {
            let mut read = |m: &mut MemberReader<'_, _>| -> Result<HeaderInfo, Error> {
                let info = ndnpy_engine::format::header::Header::read(m, opts)?;
                if out.len() != info.data_len {
                    return Err(ndnpy_engine::base::error::UsageError::OutOfBounds {
                        requested: format!("a buffer of {} bytes", out.len()),
                        len: info.data_len,
                    }
                    .into());
                }
                ndnpy_engine::platform::ioutil::read_part(m, out, "array data")?;
                std::io::copy(m, &mut std::io::sink())?;
                Ok(info)
            };
            read(m).map_err(checked::lift)
        })
    }

    /// Hands `f` a reader of the member's bytes (its whole `.npy` file), inflated if it is
    /// compressed, with the size checks of every member read; the CRC-32 is checked when `f`
    /// reads to the end. For the crate's converters (`safetensors`), which stream a member.
    #[cfg(feature = "safetensors")]
    pub(crate) fn with_reader<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Read, &ReadOptions) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.npz.with_member(self.index, None, |m, opts| {
            f(m, opts).map_err(checked::lift)
        })
    }

    /// For a stored (uncompressed) member, the byte range of its bytes (for an array, its
    /// whole `.npy` file, header included) in the archive; `None` for a compressed member.
    /// Only the local header is read.
    ///
    /// This is what zero-copy access builds on: a view of those bytes in an in-memory or
    /// memory-mapped archive needs no copy when the array data in them is aligned for its
    /// element type ([`NpzWriteOptions::align`](crate::npz::NpzWriteOptions::align) writes archives
    /// where it is; numpy's are not). For in-memory archives [`NpzMember::stored_slice`] gives
    /// the bytes themselves and [`NpzMember::view`] the view. When a member is compressed, or
    /// its data is misaligned, [`NpzMember::read`] is the explicit, copying fallback. The
    /// CRC-32 is not checked here.
    ///
    /// # Errors
    ///
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the member's directory entry or local header is malformed or its
    /// data lies outside the archive, [`ErrorKind::Io`](crate::ErrorKind::Io) if reading fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{Header, NpzReader, ReadOptions};
    /// let bytes = std::fs::read("testdata/npz_stored.npz")?;
    /// let mut npz = NpzReader::open("testdata/npz_stored.npz")?;
    /// let range = npz.member("a")?.stored_range()?.expect("np.savez stores its members");
    /// let npy = &bytes[range.start as usize..range.end as usize];
    /// let info = Header::read(&mut &npy[..], &ReadOptions::default())?;
    /// assert_eq!(info.header.shape, [2, 3]);
    ///
    /// let mut npz = NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert_eq!(npz.member("a")?.stored_range()?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stored_range(&mut self) -> Result<Option<Range<u64>>, Error> {
        let npz = &mut *self.npz;
        let entry = npz.entry(self.index)?;
        entry.check()?;
        if entry.method != STORED {
            return Ok(None);
        }
        let size = entry.compressed_size;
        let located = npz
            .dir
            .locate(&mut npz.reader, self.index, &mut npz.scratch)?;
        Ok(Some(located.data_start..located.data_start + size))
    }

    /// For a stored (uncompressed) member, its bytes (for an array, its whole `.npy` file)
    /// as a byte source of their own, read where they lie in the archive as the archive's
    /// reader reads: a file by positioned reads, bytes in memory in place, an object in a
    /// store by ranged requests, a [`from_source`](NpzReader::from_source) archive by its
    /// source. `None` for a compressed member. Only the local header is read.
    ///
    /// [`NpyReader`](crate::NpyReader) reads rows, elements and regions of it without reading
    /// the rest of the member. The CRC-32, which covers the whole member, is not checked;
    /// [`NpzMember::read`] checks it.
    ///
    /// # Errors
    ///
    /// As [`NpzMember::stored_range`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{NpyReader, NpzReader};
    /// let mut npz = NpzReader::open("testdata/npz_stored.npz")?;
    /// let mut member = npz.member("a")?;
    /// let npy = member.stored_source()?.expect("np.savez stores its members");
    /// let row: ndarray::Array2<f64> = NpyReader::new(npy)?.read_rows(1..2)?;
    /// assert_eq!(row, ndarray::array![[1.5, 2.0, 2.5]]);
    ///
    /// let mut npz = NpzReader::open("testdata/npz_compressed.npz")?;
    /// assert!(npz.member("a")?.stored_source()?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stored_source(&mut self) -> Result<Option<Section<Box<dyn ReadAt + '_>>>, Error> {
        let Some(range) = self.stored_range()? else {
            return Ok(None);
        };
        Ok(Some(self.section(range)))
    }

    /// The bytes `range` of the archive as a source, read as the archive's door sees its
    /// reader.
    fn section(&mut self, range: Range<u64>) -> Section<Box<dyn ReadAt + '_>> {
        let npz = &mut *self.npz;
        let source: Box<dyn ReadAt + '_> = match (npz.door)(&mut npz.reader) {
            #[cfg(unix)]
            Positioned::File(file) => Box::new(file),
            Positioned::Bytes(all) => Box::new(all),
            Positioned::Ranged(file) => Box::new(file),
            Positioned::Source(source) => Box::new(source),
            Positioned::Other(reader) => Box::new(Seeking::new(reader)),
        };
        Section::new(source, range.start, range.end - range.start)
    }

    /// Reads the region `selection` of the member's array (ndarray's slice syntax, `s![..]`),
    /// as [`NpyReader::read_slice`](crate::NpyReader::read_slice) reads one of a `.npy`: for
    /// a stored member (what `np.savez` writes), only the runs of bytes the selection covers,
    /// read in place in the archive (its CRC-32, which covers the whole member, is not
    /// checked); a deflated member is inflated whole first (checked), then sliced.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice`](crate::NpyReader::read_slice) and [`NpzMember::read`],
    /// naming the member.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// let row: ndarray::Array1<f64> = npz.member("a")?.read_slice(s![1, ..])?;
    /// assert_eq!(row, array![1.5, 2.0, 2.5]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_slice<A, I>(&mut self, selection: I) -> Result<Array<A, I::OutDim>, Error>
    where
        A: ReadableElement,
        I: SliceArg<IxDyn>,
    {
        let name = self.info().name().to_string();
        let result = self
            .region_reader()
            .and_then(|mut npy| npy.read_slice(selection));
        result.map_err(|e| e.in_member(&name))
    }

    /// Reads the region `selection` of a member of any dtype into a
    /// [`DynArray`](crate::DynArray), as [`NpzMember::read_slice`] does for a typed one:
    /// a stored member reads only the runs the selection covers; a deflated one is read
    /// whole first.
    ///
    /// # Errors
    ///
    /// As [`NpyReader::read_slice_dyn`](crate::NpyReader::read_slice_dyn); errors name the
    /// member.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/example.npz")?;
    /// let rows = npz.member("weights")?.read_slice_dyn(ndarray::s![1..3, ..])?;
    /// assert_eq!((rows.dtype().descr(), rows.shape()), ("'<f4'".to_string(), &[2, 3][..]));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read_slice_dyn<I: SliceArg<IxDyn>>(&mut self, selection: I) -> Result<DynArray, Error> {
        let name = self.info().name().to_string();
        let result = self
            .region_reader()
            .and_then(|mut npy| npy.read_slice_dyn(selection));
        result.map_err(|e| e.in_member(&name))
    }

    /// Reads the region `selection` of the member's array, as [`NpzMember::read_slice`]
    /// does, into `out`, memory the caller owns, of the selection's shape: a stored member
    /// reads only the runs the selection covers, straight into `out` where the layouts
    /// agree; a deflated one is inflated whole first.
    ///
    /// # Errors
    ///
    /// As [`NpzMember::read_slice`], and [`ErrorKind::Shape`](crate::ErrorKind::Shape) if
    /// `out`'s shape is not the selection's (before the selection is read).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, s};
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// let mut row = ndarray::Array1::<f64>::zeros(3);
    /// npz.member("a")?.read_slice_into(s![1, ..], row.view_mut())?;
    /// assert_eq!(row, array![1.5, 2.0, 2.5]);
    /// # Ok::<(), ndnpy::Error>(())
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
        let name = self.info().name().to_string();
        let result = self
            .region_reader()
            .and_then(|mut npy| npy.read_slice_into(selection, out));
        result.map_err(|e| e.in_member(&name))
    }

    /// The member as an `.npy` whose regions are read: a stored member read in place in the
    /// archive ([`NpzMember::stored_source`], its header read with the archive's options), a
    /// deflated one inflated whole first (checked) and read from memory.
    fn region_reader(&mut self) -> Result<NpyReader<Box<dyn ReadAt + '_>>, Error> {
        let Some(range) = self.stored_range()? else {
            return NpyReader::new(Box::new(self.bytes()?) as Box<dyn ReadAt>);
        };
        let options = self.npz.options.clone();
        NpyReader::with_options(Box::new(self.section(range)) as Box<dyn ReadAt>, &options)
    }
}

impl<'b> NpzMember<'_, Cursor<&'b [u8]>> {
    /// For a stored member of an in-memory (or memory-mapped) archive, its bytes in place:
    /// for an array, its whole `.npy` file, ready for a zero-copy view when its data is
    /// aligned; `None` for a compressed member (see [`NpzMember::stored_range`]).
    ///
    /// # Errors
    ///
    /// As [`NpzMember::stored_range`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use ndnpy::{NpzReader, npz::NpzWriteOptions, NpzWriter};
    ///
    /// // An archive whose stored members have their array data on 64-byte boundaries.
    /// let mut w = NpzWriter::with_options(Cursor::new(Vec::new()), &NpzWriteOptions::new().align(true));
    /// w.add_array("x", &ndarray::array![1.0f64, 2.0, 3.0])?;
    /// let archive = w.finish()?.into_inner();
    ///
    /// let mut npz = NpzReader::new(Cursor::new(&archive[..]))?;
    /// let npy: &[u8] = npz.member("x")?.stored_slice()?.unwrap();
    /// assert!(npy.starts_with(b"\x93NUMPY"));
    /// let data = &npy[128..];
    /// assert_eq!(data.as_ptr() as usize % 64, archive.as_ptr() as usize % 64);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn stored_slice(&mut self) -> Result<Option<&'b [u8]>, Error> {
        let Some(range) = self.stored_range()? else {
            return Ok(None);
        };
        let bytes: &'b [u8] = self.npz.reader.get_ref();
        // stored_range checked that the range lies in the archive.
        let start = usize::try_from(range.start).unwrap_or(usize::MAX);
        let end = usize::try_from(range.end).unwrap_or(usize::MAX);
        Ok(bytes.get(start..end))
    }

    /// A zero-copy view of the member's array, in an in-memory or memory-mapped archive.
    ///
    /// Possible for a stored member whose data is in native byte order and aligned for `A`:
    /// archives written with [`NpzWriteOptions::align`](crate::npz::NpzWriteOptions::align) always
    /// are; numpy's own archives put data at arbitrary offsets, so an `f64` member is usually
    /// not (one-byte elements always are). Otherwise use [`NpzMember::read`], the explicit
    /// copying call, which reads any member, compressed or not.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) for a
    /// deflated member; [`ErrorKind::CannotView`](crate::ErrorKind::CannotView)
    /// when its data is not aligned for `A`;
    /// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) and the other errors of
    /// [`ViewNpyExt::view_npy`](crate::ViewNpyExt::view_npy); the errors of [`NpzMember::stored_range`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use ndnpy::{NpzReader, npz::NpzWriteOptions, NpzWriter};
    ///
    /// let mut w = NpzWriter::with_options(Cursor::new(Vec::new()), &NpzWriteOptions::new().align(true));
    /// w.add_array("weights", &ndarray::array![[1.0f64, 2.0], [3.0, 4.0]])?;
    /// let archive = w.finish()?.into_inner();
    ///
    /// let mut npz = NpzReader::new(Cursor::new(&archive[..]))?;
    /// let view: ndarray::ArrayView2<f64> = npz.member("weights")?.view()?;
    /// assert_eq!(view[[1, 0]], 3.0);
    ///
    /// // numpy's archives: one-byte elements can be viewed in place.
    /// let bytes = std::fs::read("testdata/npz_stored.npz")?;
    /// let mut npz = NpzReader::new(Cursor::new(&bytes[..]))?;
    /// let flags: ndarray::ArrayView1<bool> = npz.member("flags")?.view()?;
    /// assert_eq!(flags, ndarray::array![true, false, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<A: ViewElement, D: Dimension>(&mut self) -> Result<ArrayView<'b, A, D>, Error> {
        match self.stored_slice()? {
            Some(npy) => crate::array::view::view::<A, D>(npy).map_err(|e| match e.detail() {
                // Say which member, and that the copying read is the way.
                &Detail::Mismatch(MismatchError::Misaligned { align, offset }) => {
                    let e = MismatchError::MisalignedMember { align, offset };
                    Error::from(e).in_member(self.info().name())
                }
                _ => e,
            }),
            None => Err(Error::from(MismatchError::CompressedMember).in_member(self.info().name())),
        }
    }
}

/// The iterator of [`NpzReader::iter`]: `(key, array)` for each member, in archive order.
///
/// # Examples
///
/// ```
/// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
/// let iter = npz.iter::<ndarray::OwnedRepr<f64>, ndarray::Ix2>();
/// assert_eq!(iter.len(), 6);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub struct NpzArrays<'a, R: Read + Seek, S, D> {
    npz: &'a mut NpzReader<R>,
    next: usize,
    _marker: PhantomData<fn() -> (S, D)>,
}

impl<R: Read + Seek, S, D> std::fmt::Debug for NpzArrays<'_, R, S, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzArrays")
            .field("next", &self.next)
            .field("len", &self.npz.len())
            .finish_non_exhaustive()
    }
}

impl<R, S, D> Iterator for NpzArrays<'_, R, S, D>
where
    R: Read + Seek,
    S::Elem: ReadableElement,
    S: DataOwned,
    D: Dimension,
{
    type Item = (String, Result<ArrayBase<S, D>, Error>);

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        let key = self.npz.dir.entry(i)?.key().to_owned();
        self.next += 1;
        Some((key, self.npz.member(i).and_then(|mut m| m.read())))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.npz.len().saturating_sub(self.next);
        (n, Some(n))
    }
}

impl<R, S, D> ExactSizeIterator for NpzArrays<'_, R, S, D>
where
    R: Read + Seek,
    S::Elem: ReadableElement,
    S: DataOwned,
    D: Dimension,
{
}
