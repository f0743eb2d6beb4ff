//! Arrays in object stores through the `object_store` crate (feature `object_store`): S3 and
//! S3-compatible servers, Google Cloud Storage, Azure Blob Storage and plain HTTP, all alike.
//! `.npy` objects ([`RemoteNpy`]) and, with the `npz` feature, `.npz` archives ([`RemoteNpz`]).
//!
//! [`RemoteNpy::open`] reads the header with one ranged GET of the first
//! [`RemoteOptions::header_guess`] bytes (a second GET only when the header is longer; its
//! declared length is checked against [`ReadOptions::max_header_len`] first) and pins the
//! object's version: every later GET carries the first response's ETag (`If-Match`) and
//! version, and checks the ETag of its response, so that an object replaced between two
//! requests is an error rather than a mix of two files. [`RemoteNpy::read`],
//! [`RemoteNpy::read_rows`], [`RemoteNpy::read_element`] and [`RemoteNpy::read_slice`] are
//! region reads (the crate's one planner, over this object as a positioned source): they fetch
//! exactly the runs of bytes they need; a run longer than [`RemoteOptions::part_size`] is
//! split into parts fetched by up to [`RemoteOptions::concurrency`] GETs at once, each
//! streamed into its own slot of the destination (allocated only after the object's size,
//! from the store's metadata, is known to hold the data the header declares). The element
//! readers decode from them as from any reader: plain types (numbers, `bool`, plain records)
//! are fetched straight into the array's own memory, decoded types (strings, datetimes,
//! records with conversions) through windows of at most `part_size * concurrency` bytes.
//! [`BlockingRemoteNpy`] does this on the calling thread, [`RemoteNpy`] on a thread of the
//! tokio runtime's blocking pool.

use crate::error::UsageError;
use crate::error::{Error, FormatError};
use crate::header::ReadOptions;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, ObjectStoreExt};
use std::borrow::Borrow;
use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

mod npy;
#[cfg(feature = "npz")]
mod npz;
mod write;

pub use npy::{BlockingRemoteNpy, RemoteNpy};
#[cfg(feature = "npz")]
pub use npz::{BlockingRemoteNpz, BlockingRemoteNpzMember, RemoteNpz, RemoteNpzMember};
pub use write::{BlockingRemoteWriter, RemoteWriter, SpooledRemoteWriter, Uploaded};

/// How a [`RemoteNpy`] talks to its store: the speculative header read, the size of the parts
/// a large read is split into, how many parts are fetched at once, and the limits of
/// [`ReadOptions`].
///
/// # Examples
///
/// ```
/// use ndnpy::{ReadOptions, remote::RemoteOptions};
/// let opts = RemoteOptions::new()
///     .concurrency(16)
///     .part_size(4 << 20)
///     .header_guess(1024)
///     .read_options(ReadOptions::new().max_header_len(10_000));
/// assert_eq!((opts.concurrency, opts.part_size, opts.header_guess), (16, 4 << 20, 1024));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// The most GETs in flight at once for one read ([`RemoteOptions::concurrency`]).
    pub concurrency: usize,
    /// The size in bytes of the parts a large read is split into
    /// ([`RemoteOptions::part_size`]).
    pub part_size: usize,
    /// How many bytes the first GET asks for ([`RemoteOptions::header_guess`]).
    pub header_guess: usize,
    /// Runs of a region read at most this many bytes apart are fetched by one GET
    /// ([`RemoteOptions::region_gap`]).
    pub region_gap: usize,
    /// The limits applied to the header and the data ([`RemoteOptions::read_options`]).
    pub read: ReadOptions,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions::new()
    }
}

impl RemoteOptions {
    /// The defaults: 8 GETs at once, parts of 8 MiB, a first GET of 4 KiB, region runs up
    /// to 256 KiB apart merged, and [`ReadOptions::new`]'s limits.
    ///
    /// ```
    /// let opts = ndnpy::remote::RemoteOptions::new();
    /// assert_eq!((opts.concurrency, opts.part_size, opts.header_guess), (8, 8 << 20, 4096));
    /// ```
    pub fn new() -> RemoteOptions {
        RemoteOptions {
            concurrency: 8,
            part_size: 8 << 20,
            header_guess: 4096,
            region_gap: 256 << 10,
            read: ReadOptions::new(),
        }
    }

    /// The most ranged GETs one read keeps in flight at once (default 8; 0 counts as 1).
    ///
    /// ```
    /// assert_eq!(ndnpy::remote::RemoteOptions::new().concurrency(0).concurrency, 1);
    /// ```
    pub fn concurrency(mut self, requests: usize) -> RemoteOptions {
        self.concurrency = requests.max(1);
        self
    }

    /// The size of the parts a read is split into, in bytes (default 8 MiB; 0 counts as 1): a
    /// range no longer than this is one GET.
    ///
    /// ```
    /// assert_eq!(ndnpy::remote::RemoteOptions::new().part_size(1 << 20).part_size, 1 << 20);
    /// ```
    pub fn part_size(mut self, bytes: usize) -> RemoteOptions {
        self.part_size = bytes.max(1);
        self
    }

    /// How many bytes of the object the first GET asks for (default 4096; at least the 12
    /// bytes of the length field): a header that fits is read in one request, a longer one in
    /// two. numpy's headers are 128 bytes unless the dtype is a large record.
    ///
    /// ```
    /// assert_eq!(ndnpy::remote::RemoteOptions::new().header_guess(0).header_guess, 12);
    /// ```
    pub fn header_guess(mut self, bytes: usize) -> RemoteOptions {
        self.header_guess = bytes.max(12);
        self
    }

    /// How far apart, in bytes, two runs of a region read
    /// ([`RemoteNpy::read_slice`](crate::remote::RemoteNpy::read_slice)) may be and still be
    /// fetched by one GET, the bytes between them fetched and dropped (default 256 KiB:
    /// about what a request costs on a fast network; raise it for stores whose requests are
    /// slow or billed, lower it to fetch fewer bytes).
    ///
    /// ```
    /// assert_eq!(ndnpy::remote::RemoteOptions::new().region_gap(0).region_gap, 0);
    /// ```
    pub fn region_gap(mut self, bytes: usize) -> RemoteOptions {
        self.region_gap = bytes;
        self
    }

    /// The limits of [`ReadOptions`] (header length, nesting, data length) for what is read.
    /// Its `threads` has no effect here: [`RemoteOptions::concurrency`] says how many parts
    /// are fetched at once.
    ///
    /// ```
    /// let opts = ndnpy::remote::RemoteOptions::new()
    ///     .read_options(ndnpy::ReadOptions::new().max_data_len(Some(1 << 30)));
    /// assert_eq!(opts.read.max_data_len, Some(1 << 30));
    /// ```
    pub fn read_options(mut self, read: ReadOptions) -> RemoteOptions {
        self.read = read;
        self
    }
}

/// One version of an object: where it is, and what its reads are pinned to.
#[derive(Debug, Clone)]
struct Object {
    store: Arc<dyn ObjectStore>,
    path: Path,
    /// The object's size in bytes, from the first response.
    size: u64,
    /// The ETag of the first response, sent as `If-Match` with every later GET.
    e_tag: Option<String>,
    /// The version of the first response, asked for by every later GET.
    version: Option<String>,
    opts: RemoteOptions,
}

impl Object {
    /// Opens the object at `path` with its first GET, of `range`: the object, pinned to the
    /// version that answered, with the bytes of the answer and where they lie. An empty
    /// object, which no range addresses (416), is opened through its metadata, with no bytes.
    async fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        range: GetRange,
        opts: RemoteOptions,
    ) -> Result<(Object, Vec<u8>, Range<u64>), Error> {
        let shown = match range {
            GetRange::Bounded(ref r) => r.clone(),
            GetRange::Offset(o) => o..u64::MAX,
            GetRange::Suffix(n) => 0..n,
        };
        let first = match store
            .get_opts(&path, GetOptions::new().with_range(Some(range)))
            .await
        {
            Ok(first) => first,
            Err(e @ object_store::Error::Generic { .. }) => match store.head(&path).await {
                Ok(meta) if meta.size == 0 => {
                    let object = Object {
                        store,
                        path,
                        size: 0,
                        e_tag: meta.e_tag,
                        version: meta.version,
                        opts,
                    };
                    return Ok((object, Vec::new(), 0..0));
                }
                _ => return Err(store_error(&path, shown, e)),
            },
            Err(e) => return Err(store_error(&path, shown, e)),
        };
        let answered = first.range.clone();
        let object = Object {
            store,
            path,
            size: first.meta.size,
            e_tag: first.meta.e_tag.clone(),
            version: first.meta.version.clone(),
            opts,
        };
        let bytes = object.collect(first, answered.clone()).await?;
        Ok((object, bytes, answered))
    }

    /// The bytes `range` of the pinned object, fetched into one buffer of the range's size
    /// ([`Object::fetch_into`]). The caller has checked the range lies in the object.
    async fn get(&self, range: Range<u64>) -> Result<Vec<u8>, Error> {
        let len = usize::try_from(range.end - range.start).map_err(|_| out_of_memory(u64::MAX))?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(len)
            .map_err(|_| out_of_memory(len as u64))?;
        buf.resize(len, 0);
        self.fetch_into(range, &mut buf).await?;
        Ok(buf)
    }

    /// Fetches the bytes `range` of the pinned object into `buf` (of the range's length):
    /// one GET per part of [`RemoteOptions::part_size`], [`RemoteOptions::concurrency`] at
    /// once, each streamed into its own slot of `buf`.
    async fn fetch_into(&self, range: Range<u64>, buf: &mut [u8]) -> Result<(), Error> {
        self.fetch_parts(range, buf, || (), |(), _| ()).await?;
        Ok(())
    }

    /// [`Object::fetch_into`], and the CRC-32 of the bytes: each part hashes every chunk
    /// right after copying it (while it is in cache), and the parts' hashes are combined in
    /// order.
    #[cfg(feature = "npz")]
    async fn fetch_into_hashing(
        &self,
        range: Range<u64>,
        buf: &mut [u8],
    ) -> Result<crc32fast::Hasher, Error> {
        let hashes = self
            .fetch_parts(range, buf, crc32fast::Hasher::new, |h, chunk| {
                h.update(chunk)
            })
            .await?;
        let mut all = crc32fast::Hasher::new();
        for h in &hashes {
            all.combine(h);
        }
        Ok(all)
    }

    /// The parts of [`Object::fetch_into`], each with a state made by `new` that `each` is
    /// given every chunk of the part after it is copied into place; the states in the parts'
    /// order.
    async fn fetch_parts<S: Send>(
        &self,
        range: Range<u64>,
        buf: &mut [u8],
        new: impl Fn() -> S,
        each: impl Fn(&mut S, &[u8]) + Sync,
    ) -> Result<Vec<S>, Error> {
        debug_assert_eq!(range.end - range.start, buf.len() as u64);
        let part = self.opts.part_size.max(1);
        let start = range.start;
        let each = &each;
        // Collected first: a stream that maps with a closure over borrowed slots would make
        // the future not `Send` (rustc's higher-ranked lifetime limitation, rust#64552).
        let parts: Vec<_> = (buf.chunks_mut(part).enumerate())
            .map(|(i, slot)| {
                let from = start + (i * part) as u64;
                let mut state = new();
                async move {
                    self.get_into(from..from + slot.len() as u64, slot, &mut |chunk| {
                        each(&mut state, chunk)
                    })
                    .await?;
                    Ok::<_, Error>((i, state))
                }
            })
            .collect();
        let mut done: Vec<(usize, S)> = futures::stream::iter(parts)
            .buffer_unordered(self.opts.concurrency.max(1))
            .try_collect()
            .await?;
        done.sort_unstable_by_key(|(i, _)| *i);
        Ok(done.into_iter().map(|(_, state)| state).collect())
    }

    /// One pinned GET of `range` into `slot` (of the range's length), `each` called on every
    /// chunk once it is in place.
    async fn get_into(
        &self,
        range: Range<u64>,
        slot: &mut [u8],
        each: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<(), Error> {
        let result = self
            .store
            .get_opts(
                &self.path,
                GetOptions::new()
                    .with_range(Some(range.clone()))
                    .with_if_match(self.e_tag.clone())
                    .with_version(self.version.clone()),
            )
            .await
            .map_err(|e| match e {
                object_store::Error::Precondition { .. } => self.changed(Some(e)),
                e => store_error(&self.path, range.clone(), e),
            })?;
        if result.meta.e_tag != self.e_tag || result.meta.size != self.size {
            // A store that ignored If-Match, or one without ETags whose size changed.
            return Err(self.changed(None));
        }
        let mut stream = result.into_stream();
        let mut filled = 0;
        while let Some(chunk) = stream
            .try_next()
            .await
            .map_err(|e| store_error(&self.path, range.clone(), e))?
        {
            let Some(dst) = slot.get_mut(filled..filled + chunk.len()) else {
                return Err(self.changed(None));
            };
            dst.copy_from_slice(&chunk);
            each(dst);
            filled += chunk.len();
        }
        if filled < slot.len() {
            return Err(FormatError::Truncated {
                part: "array data",
                expected: slot.len() as u64,
                found: filled as u64,
            }
            .into());
        }
        Ok(())
    }

    /// The bytes of the first response (`range` of the object, as far as it goes). A store
    /// that sends more than the range is refused as soon as it does, so the header's first
    /// read never holds more than [`RemoteOptions::header_guess`] bytes.
    async fn collect(&self, first: GetResult, range: Range<u64>) -> Result<Vec<u8>, Error> {
        let mut bytes = Vec::new();
        let mut stream = first.into_stream();
        while let Some(chunk) = stream
            .try_next()
            .await
            .map_err(|e| store_error(&self.path, range.clone(), e))?
        {
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > range.end - range.start {
                return Err(Error::from(io::Error::other(format!(
                    "the store sent more than the {} bytes asked for of {}",
                    range.end - range.start,
                    quoted(&self.path)
                ))));
            }
        }
        Ok(bytes)
    }

    /// The error of a store that answered a request for bytes `asked` with bytes `answered`.
    fn misanswered(&self, asked: Range<u64>, answered: Range<u64>) -> Error {
        Error::from(io::Error::other(format!(
            "the store answered a request for bytes {}..{} of {} with bytes {}..{} of {}",
            asked.start,
            asked.end,
            quoted(&self.path),
            answered.start,
            answered.end,
            self.size
        )))
    }

    /// The error for an object that is no longer the one opened.
    fn changed(&self, source: Option<object_store::Error>) -> Error {
        Error::from(io::Error::other(Changed {
            path: self.path.to_string(),
            e_tag: self.e_tag.clone(),
            source,
        }))
    }
}

/// A pinned object as a positioned source for region reads, offsets counted from `base`.
struct At<'o> {
    object: &'o Object,
    base: u64,
}

impl Object {
    /// This object as a source of bytes at offsets from `base` (a `.npy`'s data).
    fn at(&self, base: u64) -> At<'_> {
        At { object: self, base }
    }
}

impl At<'_> {
    /// The object's bytes at `offset` from the base, as long as `len`.
    fn range(&self, offset: u64, len: usize) -> io::Result<Range<u64>> {
        let start = self.base.checked_add(offset);
        let end = start.and_then(|s| s.checked_add(len as u64));
        match (start, end) {
            (Some(start), Some(end)) if end <= self.object.size => Ok(start..end),
            _ => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

impl crate::region::ReadAt for At<'_> {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let range = self.range(offset, buf.len())?;
        block_on(self.object.fetch_into(range, buf))??;
        Ok(())
    }

    /// One GET per buffer, [`RemoteOptions::concurrency`] at once.
    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        let mut gets = Vec::with_capacity(reads.len());
        for (offset, buf) in reads.iter_mut() {
            let range = self.range(*offset, buf.len())?;
            let object = self.object;
            gets.push(async move { object.get_into(range, buf, &mut |_| ()).await });
        }
        block_on(
            futures::stream::iter(gets)
                .buffer_unordered(self.object.opts.concurrency.max(1))
                .try_collect::<Vec<()>>(),
        )??;
        Ok(())
    }
}

/// Bytes `pos..end` of a pinned object as a [`Read`](io::Read) for the blocking API: each
/// read fetches straight into the caller's buffer (in parts, concurrently, as
/// [`Object::fetch_into`] does), blocking this thread. `O` is the object, borrowed
/// (`&Object`) or owned (a read moved to another thread). Only the `.npz` reader uses it.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
struct BlockingRange<O> {
    object: O,
    pos: u64,
    end: u64,
}

#[cfg_attr(not(feature = "npz"), allow(dead_code))]
impl<O: Borrow<Object>> BlockingRange<O> {
    /// Bytes `range` of `object`.
    fn new(object: O, range: Range<u64>) -> BlockingRange<O> {
        BlockingRange {
            object,
            pos: range.start,
            end: range.end,
        }
    }

    /// The range `pos..` of a read into `buf`: as much of `buf` as the bytes left fill.
    fn next(&self, buf: &[u8]) -> Range<u64> {
        self.pos..self.pos + (buf.len() as u64).min(self.end - self.pos)
    }

    /// [`Read::read`](io::Read::read), and the CRC-32 of the bytes read
    /// ([`Object::fetch_into_hashing`]).
    #[cfg(feature = "npz")]
    fn read_hashing(&mut self, buf: &mut [u8]) -> io::Result<(usize, crc32fast::Hasher)> {
        let range = self.next(buf);
        let n = (range.end - range.start) as usize;
        if n == 0 {
            return Ok((0, crc32fast::Hasher::new()));
        }
        let hasher = block_on(
            self.object
                .borrow()
                .fetch_into_hashing(range, &mut buf[..n]),
        )??;
        self.pos += n as u64;
        Ok((n, hasher))
    }
}

impl<O: Borrow<Object>> io::Read for BlockingRange<O> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let range = self.next(buf);
        let n = (range.end - range.start) as usize;
        if n == 0 {
            return Ok(0);
        }
        block_on(self.object.borrow().fetch_into(range, &mut buf[..n]))??;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Runs `fut` to completion on this thread, inside the context of the crate's runtime (whose
/// worker thread drives the store's network I/O and timers).
fn block_on<F: std::future::Future>(fut: F) -> Result<F::Output, Error> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let rt = match RUNTIME.get() {
        Some(rt) => rt,
        None => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("ndnpy-remote")
                .enable_all()
                .build()?;
            // Another thread may have won the race; its runtime is the one kept.
            let _ = RUNTIME.set(rt);
            RUNTIME.get().expect("the runtime was just set")
        }
    };
    let _entered = rt.enter();
    Ok(futures::executor::block_on(fut))
}

/// The store and path of `url`.
fn parse_url<I, K, V>(url: &str, options: I) -> Result<(Arc<dyn ObjectStore>, Path), Error>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: Into<String>,
{
    let parsed = url::Url::parse(url).map_err(|e| UsageError::Url {
        url: crate::error::excerpt(url),
        reason: e.to_string(),
    })?;
    let (store, path) =
        object_store::parse_url_opts(&parsed, options).map_err(|e| UsageError::Url {
            url: crate::error::excerpt(url),
            reason: e.to_string(),
        })?;
    Ok((Arc::from(store), path))
}

/// The error of a buffer of `bytes` that cannot be allocated.
fn out_of_memory(bytes: u64) -> Error {
    Error::from(io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("cannot allocate {bytes} bytes for a remote read"),
    ))
}

/// A store error while reading `range` of `path`: [`ErrorKind::Io`](crate::ErrorKind::Io),
/// the store's error kept as the source.
fn store_error(path: &Path, range: Range<u64>, source: object_store::Error) -> Error {
    let (start, end, path) = (range.start, range.end, quoted(path));
    request_error(
        format!("cannot read bytes {start}..{end} of {path}"),
        "",
        source,
    )
}

/// A store's error `source` of a request that was `doing` something (a message that names
/// the object), `after` appended: [`ErrorKind::Io`](crate::ErrorKind::Io), of the
/// `io::ErrorKind` the store's error has (not found and denied as such, the rest `Other`),
/// the store's error kept as the source.
fn request_error(doing: String, after: &'static str, source: object_store::Error) -> Error {
    let kind = match source {
        object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    let e = StoreError {
        doing,
        after,
        source,
    };
    Error::from(io::Error::new(kind, e))
}

/// An object's path, quoted, at most 200 characters of it.
fn quoted(path: &Path) -> String {
    crate::error::excerpt(format_args!("{:?}", path.as_ref()))
}

/// A store's error in a request.
#[derive(Debug)]
struct StoreError {
    doing: String,
    after: &'static str,
    source: object_store::Error,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let top = crate::error::excerpt(&self.source);
        write!(f, "{}: {top}", self.doing)?;
        // The message is capped, and a long URL can push the reason (an HTTP status, a
        // refused connection) out of it: the innermost cause is named then.
        let mut cause: &(dyn StdError + 'static) = &self.source;
        while let Some(next) = cause.source() {
            cause = next;
        }
        let inner = cause.to_string();
        let inner = inner.trim().trim_end_matches(':');
        if !inner.is_empty() && !top.contains(inner) {
            write!(f, " (cause: {})", crate::error::excerpt(inner))?;
        }
        f.write_str(self.after)
    }
}

impl StdError for StoreError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&self.source)
    }
}

/// The object was replaced (or cut) after it was opened.
#[derive(Debug)]
struct Changed {
    path: String,
    e_tag: Option<String>,
    source: Option<object_store::Error>,
}

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the object {} changed after it was opened",
            crate::error::excerpt(format_args!("{:?}", self.path))
        )?;
        if let Some(e_tag) = &self.e_tag {
            write!(
                f,
                " (it was opened with ETag {})",
                crate::error::excerpt(e_tag)
            )?;
        }
        f.write_str("; open it again to read the new object")
    }
}

impl StdError for Changed {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
