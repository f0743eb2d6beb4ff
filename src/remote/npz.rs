//! Remote `.npz` archives: [`RemoteNpz`] and [`BlockingRemoteNpz`].
//!
//! Opening reads the end of the archive with one suffix-range GET of its last 65,557 bytes
//! (the most Python's `zipfile` looks at for the end record), which also gives the object's
//! size and pins its version; the central directory, where the tail does not already hold
//! it, comes with one more ranged GET (in parts, concurrently, when it is longer than
//! [`RemoteOptions::part_size`]). Names, keys and directory facts are then in memory.
//!
//! [`RemoteNpz::member`] reads a member's local header, and the first
//! [`RemoteOptions::header_guess`] bytes of its data with it, in one GET: a member of up to
//! 64 KiB of compressed data arrives whole in that GET, and the `.npy` header of a larger one
//! usually does. Reading the member then fetches the rest of its compressed data in parts: a
//! stored member's straight into the array's memory, each part hashed as it arrives; a
//! deflated member's through a window, inflated as it arrives. The async reads do the same on
//! the tokio runtime's blocking pool (under another executor, they fetch the data whole).
//! Every member read is checked as [`NpzReader`](crate::NpzReader) checks it: sizes against
//! the directory, the CRC-32 once the end is reached. A stored member also opens as a
//! [`RemoteNpy`] ([`RemoteNpzMember::npy`]), for rows and elements by ranged GETs (these
//! partial reads cannot check the CRC-32).
//!
//! The archive's parsers are the local reader's: they read through [`Fetched`], the bytes
//! fetched so far, and a read of bytes not yet fetched records them, so that they are fetched
//! and the parse runs again.

use super::npy::{BlockingRemoteNpy, RemoteNpy};
use super::{block_on, parse_url, BlockingRange, Object, RemoteOptions};
use crate::dynamic::DynArray;
use crate::error::{Error, FormatError, LimitError, MismatchError};
use crate::header::HeaderInfo;
use crate::npz::archive::{Directory, Entry, EntryRef, Located, SMALL_MEMBER, STORED};
use crate::npz::member::{self, MemberReader, MemberSource};
use crate::npz::{member_index, MemberInfo, MemberKey};
use crate::ErrorKind;
use crate::ReadableElement;
use ndarray::{Array, Dimension};
use object_store::path::Path;
use object_store::{GetRange, ObjectStore};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How many bytes of the archive's end the first GET asks for: the end record and the
/// longest comment it may follow, as `zipfile` reads them.
const TAIL: u64 = 22 + 65_535;

/// The most GETs one parse may ask for before it is given up: a parse asks for a handful
/// (the end records, the directory, a local header, a member's header), never more.
const MAX_FETCHES: usize = 32;

/// An `.npz` archive in an object store (S3, GCS, Azure, HTTP: any [`ObjectStore`]): its
/// directory read at opening, its members by name or position, each read in the byte ranges
/// it needs, asynchronously.
///
/// Like [`RemoteNpy`], it pins the object's version at opening, so that an archive replaced
/// meanwhile is an [`ErrorKind::Io`](crate::ErrorKind::Io) that says so, never a mix. For code
/// that is not async, [`BlockingRemoteNpz`].
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::remote::RemoteNpz;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = AmazonS3Builder::from_env().with_bucket_name("models").build()?;
/// let npz = RemoteNpz::open(Arc::new(store), "run7/weights.npz".into()).await?;
/// for key in npz.keys() {
///     println!("{key}");
/// }
/// let w: ndarray::Array2<f32> = npz.member("dense/kernel").await?.read().await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RemoteNpz {
    object: Object,
    dir: Directory,
    /// The bytes read out of members so far, for
    /// [`ReadOptions::max_inflated_len`](crate::ReadOptions::max_inflated_len), as an
    /// [`NpzReader`](crate::NpzReader) counts them (shared by the reads on other threads).
    inflated: Arc<AtomicU64>,
}

impl RemoteNpz {
    /// Opens the `.npz` object at `path` in `store` with [`RemoteOptions::new`]: reads its end
    /// records and its central directory (one GET when the directory lies in the archive's
    /// last 64 KiB, else two).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Archive`](crate::ErrorKind::Archive) if the object is not a ZIP archive
    /// or its directory is malformed, as for [`NpzReader::new`](crate::NpzReader::new);
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) for an error of the store, with the
    /// [`object_store::Error`] as its I/O error's source.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let npz = ndnpy::remote::RemoteNpz::open(store, "weights.npz".into()).await?;
    /// println!("{} members", npz.len());
    /// # Ok(()) }
    /// ```
    pub async fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<RemoteNpz, Error> {
        RemoteNpz::open_with_options(store, path, RemoteOptions::new()).await
    }

    /// Like [`RemoteNpz::open`], with other options (parts and concurrency of the reads, the
    /// first GET of each member, and the limits of [`ReadOptions`](crate::ReadOptions) for
    /// the members).
    ///
    /// # Errors
    ///
    /// As [`RemoteNpz::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().concurrency(16);
    /// let npz = ndnpy::remote::RemoteNpz::open_with_options(store, "weights.npz".into(), opts).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<RemoteNpz, Error> {
        let (object, tail, range) = Object::open(store, path, GetRange::Suffix(TAIL), opts).await?;
        let size = object.size;
        if range.end != size || range.end - range.start != TAIL.min(size) {
            return Err(object.misanswered(size.saturating_sub(TAIL)..size, range));
        }
        let mut fetched = Fetched::new(size);
        fetched.insert(range.start, tail);
        let span = fetched.parse(&object, 0, Directory::span).await?;
        // The directory's bytes that the tail does not hold, in one ranged read.
        let cd = span.range();
        if cd.start < range.start {
            let missing = cd.start..cd.end.min(range.start);
            let bytes = object.get(missing.clone()).await?;
            fetched.insert(missing.start, bytes);
        }
        let dir = fetched
            .parse(&object, 0, |f| {
                f.seek(SeekFrom::Start(cd.start))?;
                Directory::parse(&mut *f, &span)
            })
            .await?;
        let inflated = Arc::default();
        Ok(RemoteNpz {
            object,
            dir,
            inflated,
        })
    }

    /// Opens the `.npz` object at `url` (`s3://bucket/key`, `https://...`), the store built
    /// from the URL and `options` as for [`RemoteNpy::open_url`].
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::open_url`] for the URL; otherwise as [`RemoteNpz::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), ndnpy::Error> {
    /// let npz = ndnpy::remote::RemoteNpz::open_url(
    ///     "s3://models/weights.npz",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::remote::RemoteOptions::new(),
    /// )
    /// .await?;
    /// # Ok(()) }
    /// ```
    pub async fn open_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<RemoteNpz, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        RemoteNpz::open_with_options(store, path, opts).await
    }

    /// The number of members.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// println!("{} members", npz.len());
    /// # }
    /// ```
    pub fn len(&self) -> usize {
        self.dir.len()
    }

    /// Whether the archive has no members.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// assert!(!npz.is_empty());
    /// # }
    /// ```
    pub fn is_empty(&self) -> bool {
        self.dir.len() == 0
    }

    /// The members' keys in archive order: their names without one `.npy` suffix, as numpy's
    /// `NpzFile.files` lists them. No request is made: the directory is in memory.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// let keys: Vec<&str> = npz.keys().collect();
    /// # }
    /// ```
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.dir.entries().map(|e| e.key())
    }

    /// What the directory says of each member (name, compression, sizes, CRC-32), in archive
    /// order, without a request.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// for m in npz.members() {
    ///     println!("{} {} bytes, {:?}", m.name(), m.size(), m.compression());
    /// }
    /// # }
    /// ```
    pub fn members(&self) -> impl ExactSizeIterator<Item = MemberInfo<'_>> + '_ {
        self.dir
            .entries()
            .enumerate()
            .map(|(index, entry)| MemberInfo::new(index, entry))
    }

    /// Whether a member has the name or key `name` (numpy's rules, as
    /// [`NpzReader::contains`](crate::NpzReader::contains)).
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// assert!(npz.contains("weights"));
    /// # }
    /// ```
    pub fn contains(&self, name: &str) -> bool {
        self.dir.lookup(name).is_some()
    }

    /// The object's path in its store.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// println!("{}", npz.path());
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.object.path
    }

    /// The object's size in bytes and the ETag its reads are pinned to (if the store gave
    /// one).
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::RemoteNpz) {
    /// let (size, e_tag) = npz.object();
    /// # }
    /// ```
    pub fn object(&self) -> (u64, Option<&str>) {
        (self.object.size, self.object.e_tag.as_deref())
    }

    /// The member `key` finds, by name (numpy's key rules, as
    /// [`NpzReader::member`](crate::NpzReader::member)) or position: reads its local header
    /// and the first bytes of its data (one GET; two if its `.npy` header is longer than
    /// [`RemoteOptions::header_guess`] compressed bytes).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if no member has that
    /// key or position; [`ErrorKind::Archive`](crate::ErrorKind::Archive) for a malformed
    /// local header, an encrypted member or an unsupported method; a header error for a
    /// member that starts with the `.npy` magic and a malformed header; the store's errors as
    /// [`ErrorKind::Io`](crate::ErrorKind::Io). Every error names the member.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let kernel = npz.member("dense/kernel").await?;
    /// println!("{:?}", kernel.header()?.header.shape);
    /// let first = npz.member(0).await?;
    /// # Ok(()) }
    /// ```
    pub async fn member<K: MemberKey>(&self, key: K) -> Result<RemoteNpzMember<'_>, Error> {
        let index = member_index(&self.dir, key)?;
        let entry = self.entry(index);
        self.open_member(index, entry)
            .await
            .map_err(|e| e.in_member(entry.name))
    }

    /// Member `index`, which exists.
    fn entry(&self, index: usize) -> EntryRef<'_> {
        self.dir.entry(index).expect("the index was looked up")
    }

    async fn open_member(
        &self,
        index: usize,
        entry: EntryRef<'_>,
    ) -> Result<RemoteNpzMember<'_>, Error> {
        entry.check()?;
        let mut fetched = Fetched::new(self.object.size);
        let mut scratch = Vec::new();
        // A small member's data comes whole with its local header (the parser asks for it);
        // of a larger one, the first bytes, which hold its `.npy` header.
        let extra = if entry.compressed_size <= SMALL_MEMBER {
            0
        } else {
            self.object.opts.header_guess as u64
        };
        let Located { data_start, .. } = fetched
            .parse(&self.object, extra, |f| {
                self.dir.locate(f, index, &mut scratch)
            })
            .await?;
        drop(scratch);
        let data = data_start..data_start + entry.compressed_size;
        let header = fetched
            .parse(&self.object, extra, |f| {
                f.seek(SeekFrom::Start(data.start))?;
                let src = BufReader::with_capacity(8 << 10, (&mut *f).take(entry.compressed_size));
                match member::read_header(
                    &mut MemberReader::new(src, entry),
                    &self.object.opts.read,
                ) {
                    Ok(info) => Ok(Some(info)),
                    Err(e) if e.kind() == ErrorKind::NotNpy => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .await?;
        // What the GETs brought of the member's data, kept for its reads.
        let prefix = fetched.take_from(data.start, entry.compressed_size);
        Ok(RemoteNpzMember {
            npz: self,
            index,
            data,
            header,
            prefix,
        })
    }
}

/// One member of a [`RemoteNpz`]: its directory facts, its `.npy` header, and its data read
/// when asked.
///
/// # Examples
///
/// ```no_run
/// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
/// let m = npz.member("embeddings").await?;
/// println!("{} ({:?})", m.info().name(), m.info().compression());
/// let all: ndarray::Array2<f32> = m.read().await?;
/// if let Ok(npy) = m.npy() {
///     // a stored member: rows by ranged GETs
///     let rows: ndarray::Array2<f32> = npy.read_rows(100..200).await?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RemoteNpzMember<'a> {
    npz: &'a RemoteNpz,
    index: usize,
    /// The member's compressed data in the object.
    data: Range<u64>,
    /// Its `.npy` header; `None` for a member without the magic (numpy reads its bytes).
    header: Option<HeaderInfo>,
    /// The first bytes of its compressed data, as the opening GETs brought them (all of them
    /// for a small member).
    prefix: Vec<u8>,
}

impl<'a> RemoteNpzMember<'a> {
    /// What the directory says of the member.
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let m = npz.member(0).await?;
    /// println!("{} {} bytes", m.info().name(), m.info().size());
    /// # Ok(()) }
    /// ```
    pub fn info(&self) -> MemberInfo<'a> {
        MemberInfo::new(self.index, self.entry())
    }

    /// The member's `.npy` header, read when the member was opened (its `data_offset` counts
    /// from the member's first byte).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) for a member that is not an `.npy`
    /// array.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let m = npz.member("a").await?;
    /// println!("{:?} {}", m.header()?.header.shape, m.header()?.header.dtype);
    /// # Ok(()) }
    /// ```
    pub fn header(&self) -> Result<&HeaderInfo, Error> {
        self.header.as_ref().ok_or_else(|| self.not_npy())
    }

    /// Reads the member's array, as [`NpzMember::read`](crate::npz::NpzMember::read) does, the
    /// sizes and CRC-32 checked against the directory.
    ///
    /// Inside a tokio runtime, the read runs on the runtime's blocking pool as
    /// [`BlockingRemoteNpzMember::read`] does: a stored member's parts
    /// ([`RemoteOptions::part_size`], [`RemoteOptions::concurrency`] at once) land in the
    /// array's own memory, each hashed as it arrives, and a deflated member is inflated as it
    /// arrives, holding at most `part_size * concurrency` compressed bytes. Under another
    /// executor, the compressed data is fetched in parts into one buffer, then decoded from it.
    ///
    /// # Errors
    ///
    /// As [`NpzMember::read`](crate::npz::NpzMember::read); the store's errors as
    /// [`ErrorKind::Io`](crate::ErrorKind::Io). Every error names the member.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::ArrayD<f64> = npz.member("a").await?.read().await?;
    /// # Ok(()) }
    /// ```
    pub async fn read<A, D>(&self) -> Result<Array<A, D>, Error>
    where
        A: ReadableElement + Send + 'static,
        D: Dimension + 'static,
    {
        self.header()?;
        self.whole(member::read_npy).await
    }

    /// Reads the member's array whatever its dtype, as
    /// [`NpzMember::read_dyn`](crate::npz::NpzMember::read_dyn) does (object arrays included, their
    /// pickle decoded without running code; without the feature `object` they are refused
    /// before the member is fetched).
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let labels = npz.member("labels").await?.read_dyn().await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_dyn(&self) -> Result<DynArray, Error> {
        self.check_dyn()?;
        self.whole(member::read_dyn).await
    }

    /// The member's uncompressed bytes, whatever they hold (numpy gives a member without the
    /// `.npy` magic as bytes), checked against the directory.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::read`]; [`ErrorKind::Limit`](crate::ErrorKind::Limit) for a
    /// member larger than [`ReadOptions::max_data_len`](crate::ReadOptions::max_data_len).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let raw = npz.member("notes.txt").await?.bytes().await?;
    /// # Ok(()) }
    /// ```
    pub async fn bytes(&self) -> Result<Vec<u8>, Error> {
        self.whole(member::read_bytes).await
    }

    /// A stored member as a [`RemoteNpy`] over its bytes in the archive, for
    /// [`RemoteNpy::read_rows`] and [`RemoteNpy::read_element`] by ranged GETs. No request is
    /// made. These partial reads do not check the member's CRC-32 (a whole read through
    /// [`RemoteNpzMember::read`] does); the [`HeaderInfo::data_offset`] of the `RemoteNpy`
    /// counts from the archive's first byte.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) for a deflated member (read it
    /// whole);
    /// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) for a member that is not `.npy`;
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the member is shorter than
    /// its header says.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npz: ndnpy::remote::RemoteNpz) -> Result<(), ndnpy::Error> {
    /// let npy = npz.member("big").await?.npy()?;
    /// let rows: ndarray::Array2<f32> = npy.read_rows(1000..1010).await?;
    /// # Ok(()) }
    /// ```
    pub fn npy(&self) -> Result<RemoteNpy, Error> {
        let entry = self.entry();
        if entry.method != STORED {
            return Err(Error::from(MismatchError::CompressedMember {
                member: entry.name.to_string(),
                in_parts: true,
            }));
        }
        let mut info = self.header()?.clone();
        info.check_data_within(entry.size)
            .map_err(|e| e.in_member(entry.name))?;
        info.data_offset += self.data.start;
        Ok(RemoteNpy::from_parts(
            self.npz.object.clone(),
            info,
            self.data.clone(),
        ))
    }

    fn entry(&self) -> EntryRef<'a> {
        self.npz.entry(self.index)
    }

    /// What `read_dyn` checks before fetching the member: that it is an array, and one this
    /// build reads (an object array needs the feature `object`).
    fn check_dyn(&self) -> Result<(), Error> {
        let info = self.header()?;
        crate::object::check_readable(&info.header.dtype)
            .map_err(|e| e.in_member(self.entry().name))
    }

    fn not_npy(&self) -> Error {
        let found = &self.prefix[..self.prefix.len().min(6)];
        Error::from(MismatchError::NotNpy {
            member: self.entry().name.to_string(),
            found: if self.entry().method == STORED {
                found.to_vec()
            } else {
                Vec::new()
            },
        })
    }

    /// Runs `f` on a reader of the member's bytes: from what opening brought, if that is all
    /// of them; else streamed from the store on the blocking pool of the tokio runtime this
    /// runs in ([`WholeRead::run`]); else (another executor) from its compressed data fetched
    /// whole.
    async fn whole<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut MemberReader<'_, Streamed>, &crate::ReadOptions) -> Result<T, Error>
            + Send
            + 'static,
    {
        let entry = self.entry();
        self.charge_check()?;
        let whole = self.prefix.len() as u64 == self.data.end - self.data.start;
        if !whole {
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                let read = self.whole_read(
                    self.prefix.clone(),
                    self.data.start + self.prefix.len() as u64,
                );
                return handle
                    .spawn_blocking(move || read.run(f))
                    .await
                    .map_err(|e| {
                        io::Error::other(format!("a remote read's thread failed: {e}"))
                    })?;
            }
        }
        let bytes = if whole {
            self.prefix.clone()
        } else {
            self.npz
                .object
                .get(self.data.clone())
                .await
                .map_err(|e| e.in_member(entry.name))?
        };
        self.whole_read(bytes, self.data.end).run(f)
    }

    /// Checks that reading the member whole stays within
    /// [`ReadOptions::max_inflated_len`](crate::ReadOptions::max_inflated_len) after what
    /// was read out of the archive before, as [`NpzReader`](crate::NpzReader) checks it.
    fn charge_check(&self) -> Result<(), Error> {
        let (entry, opts) = (self.entry(), &self.npz.object.opts.read);
        let found = self
            .npz
            .inflated
            .load(Ordering::Relaxed)
            .saturating_add(entry.size);
        match opts.max_inflated_len {
            Some(limit) if found > limit => Err(Error::from(LimitError::InflatedTooLarge {
                member: entry.name.to_string(),
                limit,
                found,
            })
            .in_member(entry.name)),
            _ => Ok(()),
        }
    }

    /// A whole read of the member: `prefix`, its first bytes, then its bytes from `from` in
    /// the object.
    fn whole_read(&self, prefix: Vec<u8>, from: u64) -> WholeRead {
        let entry = self.entry();
        WholeRead {
            object: self.npz.object.clone(),
            inflated: self.npz.inflated.clone(),
            facts: *entry,
            name: entry.name.to_string(),
            entry_offset: entry.entry_offset,
            prefix,
            rest: from..self.data.end,
        }
    }
}

/// Everything a whole read of a member needs, owned, so that it may run on another thread.
struct WholeRead {
    object: Object,
    /// The archive's count of bytes read out of its members.
    inflated: Arc<AtomicU64>,
    facts: Entry,
    name: String,
    entry_offset: u64,
    /// The member's first bytes, in memory.
    prefix: Vec<u8>,
    /// Where the rest of its compressed data lies in the object.
    rest: Range<u64>,
}

impl WholeRead {
    /// Runs `f` on a reader of the member's bytes (blocking this thread while parts are
    /// fetched), and names the member in its errors.
    fn run<T>(
        self,
        f: impl FnOnce(&mut MemberReader<'_, Streamed>, &crate::ReadOptions) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let entry = self.facts.named_at(&self.name, self.entry_offset);
        let opts = self.object.opts.read.clone();
        let src = Streamed::new(self.object, self.prefix, self.rest);
        let mut member = MemberReader::new(src, entry);
        let result = f(&mut member, &opts).map_err(|e| e.in_member(entry.name));
        self.inflated
            .fetch_add(member.produced(), Ordering::Relaxed);
        result
    }
}

/// A member's compressed data for the member reader: its first bytes from memory, then the
/// rest from the store, through a window of `part_size * concurrency` bytes for small reads
/// (and for inflating). A read at least as large as the window lands straight in the
/// caller's memory, and a stored member's is hashed there as each part arrives
/// ([`MemberSource::read_hashing`]).
struct Streamed {
    prefix: Vec<u8>,
    /// How much of `prefix` was read.
    at: usize,
    rest: BufReader<BlockingRange<Object>>,
}

impl Streamed {
    fn new(object: Object, prefix: Vec<u8>, rest: Range<u64>) -> Streamed {
        let window = object
            .opts
            .part_size
            .saturating_mul(object.opts.concurrency);
        let capacity = usize::try_from(rest.end - rest.start)
            .map_or(window, |len| len.min(window))
            .max(1);
        Streamed {
            prefix,
            at: 0,
            rest: BufReader::with_capacity(capacity, BlockingRange::new(object, rest)),
        }
    }
}

impl Read for Streamed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.prefix.len() {
            let n = (&self.prefix[self.at..]).read(buf)?;
            self.at += n;
            return Ok(n);
        }
        self.rest.read(buf)
    }
}

impl BufRead for Streamed {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.prefix.len() {
            return Ok(&self.prefix[self.at..]);
        }
        self.rest.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if self.at < self.prefix.len() {
            self.at = (self.at + amt).min(self.prefix.len());
        } else {
            self.rest.consume(amt);
        }
    }
}

impl MemberSource for Streamed {
    fn read_hashing(&mut self, out: &mut [u8]) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
        if out.len() < self.rest.capacity() {
            return None;
        }
        let mut hasher = crc32fast::Hasher::new();
        let mut n = 0;
        // What memory and the window hold, then the rest straight from the store.
        for held in [&self.prefix[self.at..], self.rest.buffer()] {
            let k = held.len().min(out.len() - n);
            out[n..n + k].copy_from_slice(&held[..k]);
            hasher.update(&out[n..n + k]);
            n += k;
        }
        let from_prefix = (self.prefix.len() - self.at).min(n);
        self.at += from_prefix;
        self.rest.consume(n - from_prefix);
        if n < out.len() {
            match self.rest.get_mut().read_hashing(&mut out[n..]) {
                Ok((k, h)) => {
                    hasher.combine(&h);
                    n += k;
                }
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok((n, hasher)))
    }
}

/// A [`RemoteNpz`] for code that is not async: each call blocks the calling thread, as
/// [`BlockingRemoteNpy`]'s do. A member's whole reads stream its compressed data through
/// the member reader (inflating a deflated member as it arrives), holding at most
/// `part_size * concurrency` bytes of it at once.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::remote::BlockingRemoteNpz;
///
/// let store = AmazonS3Builder::from_env().with_bucket_name("models").build()?;
/// let npz = BlockingRemoteNpz::open(Arc::new(store), "weights.npz".into())?;
/// let w: ndarray::Array2<f32> = npz.member("w")?.read()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct BlockingRemoteNpz {
    inner: RemoteNpz,
}

impl BlockingRemoteNpz {
    /// [`RemoteNpz::open`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpz::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let npz = ndnpy::remote::BlockingRemoteNpz::open(store, "weights.npz".into())?;
    /// # Ok(()) }
    /// ```
    pub fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<BlockingRemoteNpz, Error> {
        BlockingRemoteNpz::open_with_options(store, path, RemoteOptions::new())
    }

    /// [`RemoteNpz::open_with_options`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpz::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().part_size(16 << 20);
    /// let npz = ndnpy::remote::BlockingRemoteNpz::open_with_options(store, "w.npz".into(), opts)?;
    /// # Ok(()) }
    /// ```
    pub fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteNpz, Error> {
        let inner = block_on(RemoteNpz::open_with_options(store, path, opts))??;
        Ok(BlockingRemoteNpz { inner })
    }

    /// [`RemoteNpz::open_url`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpz::open_url`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let npz = ndnpy::remote::BlockingRemoteNpz::open_url(
    ///     "s3://models/weights.npz",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::remote::RemoteOptions::new(),
    /// )?;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn open_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteNpz, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        BlockingRemoteNpz::open_with_options(store, path, opts)
    }

    /// The async archive, for [`RemoteNpz::keys`], [`RemoteNpz::members`] and the rest.
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) {
    /// let keys: Vec<&str> = npz.remote().keys().collect();
    /// # }
    /// ```
    pub fn remote(&self) -> &RemoteNpz {
        &self.inner
    }

    /// [`RemoteNpz::member`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpz::member`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// let m = npz.member("w")?;
    /// println!("{:?}", m.remote().header()?.header.shape);
    /// # Ok(()) }
    /// ```
    pub fn member<K: MemberKey>(&self, key: K) -> Result<BlockingRemoteNpzMember<'_>, Error> {
        let inner = block_on(self.inner.member(key))??;
        Ok(BlockingRemoteNpzMember { inner })
    }
}

/// A member of a [`BlockingRemoteNpz`]: [`RemoteNpzMember`]'s calls, blocking, its whole reads
/// streamed.
///
/// # Examples
///
/// ```no_run
/// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
/// let m = npz.member("w")?;
/// let w: ndarray::Array2<f32> = m.read()?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct BlockingRemoteNpzMember<'a> {
    inner: RemoteNpzMember<'a>,
}

impl<'a> BlockingRemoteNpzMember<'a> {
    /// The async member, for [`RemoteNpzMember::info`] and [`RemoteNpzMember::header`].
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// println!("{}", npz.member(0)?.remote().info().name());
    /// # Ok(()) }
    /// ```
    pub fn remote(&self) -> &RemoteNpzMember<'a> {
        &self.inner
    }

    /// [`RemoteNpzMember::read`], blocking: the compressed data streams through the member
    /// reader (parts fetched concurrently into a window of `part_size * concurrency` bytes).
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// let w: ndarray::Array2<f32> = npz.member("w")?.read()?;
    /// # Ok(()) }
    /// ```
    pub fn read<A: ReadableElement, D: Dimension>(&self) -> Result<Array<A, D>, Error> {
        self.inner.header()?;
        self.stream(member::read_npy)
    }

    /// [`RemoteNpzMember::read_dyn`], blocking and streamed.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::read_dyn`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// let any = npz.member("labels")?.read_dyn()?;
    /// # Ok(()) }
    /// ```
    pub fn read_dyn(&self) -> Result<DynArray, Error> {
        self.inner.check_dyn()?;
        self.stream(member::read_dyn)
    }

    /// [`RemoteNpzMember::bytes`], blocking and streamed.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::bytes`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// let raw = npz.member("notes.txt")?.bytes()?;
    /// # Ok(()) }
    /// ```
    pub fn bytes(&self) -> Result<Vec<u8>, Error> {
        self.stream(member::read_bytes)
    }

    /// [`RemoteNpzMember::npy`], as a [`BlockingRemoteNpy`].
    ///
    /// # Errors
    ///
    /// As [`RemoteNpzMember::npy`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npz: ndnpy::remote::BlockingRemoteNpz) -> Result<(), ndnpy::Error> {
    /// let rows: ndarray::Array2<f32> = npz.member("big")?.npy()?.read_rows(0..10)?;
    /// # Ok(()) }
    /// ```
    pub fn npy(&self) -> Result<BlockingRemoteNpy, Error> {
        self.inner.npy().map(BlockingRemoteNpy::from_remote)
    }

    /// Runs `f` on the member's bytes: what opening brought, then the rest streamed from the
    /// store.
    fn stream<T>(
        &self,
        f: impl FnOnce(&mut MemberReader<'_, Streamed>, &crate::ReadOptions) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let m = &self.inner;
        m.charge_check()?;
        m.whole_read(m.prefix.clone(), m.data.start + m.prefix.len() as u64)
            .run(f)
    }
}

/// The bytes of an object fetched so far, in pieces, as `Read + Seek` for the archive's
/// parsers. A read of bytes not fetched fails, and records them as the miss;
/// [`Fetched::parse`] then fetches them and runs the parser again.
#[derive(Debug)]
struct Fetched {
    size: u64,
    /// Disjoint pieces: their first byte, and their bytes.
    pieces: Vec<(u64, Vec<u8>)>,
    pos: u64,
    miss: Option<Range<u64>>,
}

impl Fetched {
    fn new(size: u64) -> Fetched {
        Fetched {
            size,
            pieces: Vec::new(),
            pos: 0,
            miss: None,
        }
    }

    /// Adds the bytes at `start`, which no piece holds yet.
    fn insert(&mut self, start: u64, bytes: Vec<u8>) {
        self.pieces.push((start, bytes));
    }

    /// The start of the first piece after `pos`, if any.
    fn next_start(&self, pos: u64) -> Option<u64> {
        self.pieces.iter().map(|p| p.0).filter(|&s| s > pos).min()
    }

    /// Runs `parse` until it no longer misses bytes: each miss is fetched (with `extra` bytes
    /// more, doubling at each miss, short of the next piece and the object's end) and `parse`
    /// runs again from the start.
    async fn parse<T>(
        &mut self,
        object: &Object,
        extra: u64,
        mut parse: impl FnMut(&mut Fetched) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut extra = extra;
        for _ in 0..MAX_FETCHES {
            self.miss = None;
            self.pos = 0;
            let result = parse(self);
            let Some(miss) = self.miss.take() else {
                return result;
            };
            let limit = self.next_start(miss.start).unwrap_or(self.size);
            let end = miss.end.saturating_add(extra).min(limit).max(miss.end);
            let bytes = object.get(miss.start..end).await?;
            self.insert(miss.start, bytes);
            extra = extra.saturating_mul(2).max(4 << 10);
        }
        Err(Error::from(FormatError::Zip {
            offset: self.pos,
            expected: format!("an archive read in at most {MAX_FETCHES} ranges"),
            found: "more".into(),
        }))
    }

    /// The bytes from `start` that the piece holding `start` has, at most `len`; the piece is
    /// taken out.
    fn take_from(&mut self, start: u64, len: u64) -> Vec<u8> {
        let Some(i) = self
            .pieces
            .iter()
            .position(|(s, b)| *s <= start && start < s + b.len() as u64)
        else {
            return Vec::new();
        };
        let (s, mut bytes) = self.pieces.swap_remove(i);
        bytes.drain(..(start - s) as usize);
        bytes.truncate(usize::try_from(len).unwrap_or(usize::MAX));
        bytes
    }
}

impl Read for Fetched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos >= self.size {
            return Ok(0);
        }
        let pos = self.pos;
        if let Some((s, bytes)) = self
            .pieces
            .iter()
            .find(|(s, b)| *s <= pos && pos < s + b.len() as u64)
        {
            let at = (pos - s) as usize;
            let n = buf.len().min(bytes.len() - at);
            buf[..n].copy_from_slice(&bytes[at..at + n]);
            self.pos += n as u64;
            return Ok(n);
        }
        let want = pos.saturating_add(buf.len() as u64).min(self.size);
        let end = self.next_start(pos).map_or(want, |s| s.min(want));
        self.miss = Some(pos..end);
        Err(io::Error::other("bytes not fetched yet"))
    }
}

impl Seek for Fetched {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the object's start",
            )
        })?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_serve_the_pieces_and_record_the_first_miss() {
        let mut f = Fetched::new(100);
        f.insert(10, (10..20).collect());
        f.insert(50, (50..60).collect());
        let mut buf = [0u8; 30];
        f.seek(SeekFrom::Start(15)).unwrap();
        // A read stops at its piece's end.
        assert_eq!(f.read(&mut buf).unwrap(), 5);
        assert_eq!(buf[..5], [15, 16, 17, 18, 19]);
        // The next read misses, up to the next piece.
        assert!(f.read(&mut buf).is_err());
        assert_eq!(f.miss, Some(20..50));
        // A miss past the last piece stops at the object's end.
        f.seek(SeekFrom::End(-5)).unwrap();
        assert!(f.read(&mut buf).is_err());
        assert_eq!(f.miss, Some(95..100));
        // At the end, a read is the end of input, not a miss.
        f.seek(SeekFrom::End(0)).unwrap();
        assert_eq!(f.read(&mut buf).unwrap(), 0);
        assert!(f.seek(SeekFrom::Current(-101)).is_err());
    }

    #[test]
    fn take_from_keeps_the_bytes_from_a_position() {
        let mut f = Fetched::new(100);
        f.insert(10, (10..40).collect());
        assert_eq!(f.take_from(15, 4), [15, 16, 17, 18]);
        assert!(f.pieces.is_empty());
        assert!(f.take_from(15, 4).is_empty());
    }
}
