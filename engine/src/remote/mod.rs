//! Arrays in object stores through the `object_store` crate (feature `object_store`): S3 and
//! S3-compatible servers, Google Cloud Storage, Azure Blob Storage and plain HTTP, all alike.
//!
//! An object is a file here. [`RemoteFile`] is one version of an object as a [`Read`] +
//! [`Seek`](std::io::Seek): every reader of the crate reads it as it reads a local file
//! (`NpyReader`, `NpzReader`,
//! `ReadNpyExt`, `DynArray`), and the region reads of
//! `NpyReader` and of a stored `.npz` member fetch their runs by concurrent ranged GETs.
//! [`RemoteWriter`] is a [`Write`](std::io::Write) whose bytes become a multipart upload, and
//! [`SpooledRemoteWriter`] a `Write + Seek` for `NpzWriter`. What is
//! remote lives here: opening and pinning an object, its ranged GETs, uploads.
//!
//! [`Read`]: std::io::Read
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use object_store::{memory::InMemory, ObjectStore};
//! use ndnpy::remote::{RemoteFile, RemoteWriter};
//! use ndnpy::{NpyReader, WriteNpyExt};
//!
//! let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
//! let mut upload = RemoteWriter::create(Arc::clone(&store), "runs/7/x.npy".into());
//! ndarray::Array2::<f64>::from_shape_fn((100, 4), |(i, j)| (i * 4 + j) as f64).write_npy(&mut upload)?;
//! upload.finish()?;
//!
//! let mut x = NpyReader::new(RemoteFile::open(store, "runs/7/x.npy".into())?)?;
//! let rows: ndarray::Array2<f64> = x.read_slice(ndarray::s![10..12, ..])?;
//! assert_eq!(rows[[1, 3]], 47.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::base::error::UsageError;
use crate::base::error::{truncated, Error};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, ObjectStoreExt};
use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

mod file;
mod write;

pub use file::RemoteFile;
pub use write::{RemoteWriter, SpooledRemoteWriter, Uploaded};

/// How a [`RemoteFile`] or [`RemoteWriter`] talks to its store: the size of its first GET,
/// the size of the parts a large read or an upload is split into, how many are in flight at
/// once, and the gap a region read fetches across.
///
/// # Examples
///
/// ```
/// use ndnpy::remote::RemoteOptions;
/// let opts = RemoteOptions::new().concurrency(16).part_size(4 << 20).header_guess(1024);
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
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions::new()
    }
}

impl RemoteOptions {
    /// The defaults: 8 GETs at once, parts of 8 MiB, a first GET of 4 KiB, region runs up
    /// to 256 KiB apart merged.
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

    /// How many bytes of the object the first GET asks for (default 4096; at least 12): an
    /// `.npy` header that fits is read from them. numpy's headers are 128 bytes unless the
    /// dtype is a large record.
    ///
    /// ```
    /// assert_eq!(ndnpy::remote::RemoteOptions::new().header_guess(0).header_guess, 12);
    /// ```
    pub fn header_guess(mut self, bytes: usize) -> RemoteOptions {
        self.header_guess = bytes.max(12);
        self
    }

    /// How far apart, in bytes, two runs of a region read
    /// (`NpyReader::read_slice` of a [`RemoteFile`]) may be and still be
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
    /// Opens the object at `path` with its first GET, of its first `guess` bytes: the
    /// object, pinned to the version that answered, and the bytes. An empty object, which no
    /// range addresses (416), is opened through its metadata, with no bytes.
    async fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        guess: u64,
        opts: RemoteOptions,
    ) -> Result<(Object, Vec<u8>), Error> {
        let asked = 0..guess;
        let get = GetOptions::new().with_range(Some(GetRange::Bounded(asked.clone())));
        let (first, size, e_tag, version) = match store.get_opts(&path, get).await {
            Ok(first) => {
                let meta = first.meta.clone();
                (Some(first), meta.size, meta.e_tag, meta.version)
            }
            Err(e @ object_store::Error::Generic { .. }) => match store.head(&path).await {
                Ok(meta) if meta.size == 0 => (None, 0, meta.e_tag, meta.version),
                _ => return Err(store_error(&path, asked, e)),
            },
            Err(e) => return Err(store_error(&path, asked, e)),
        };
        let object = Object {
            store,
            path,
            size,
            e_tag,
            version,
            opts,
        };
        let Some(first) = first else {
            return Ok((object, Vec::new()));
        };
        if first.range.start != 0 {
            return Err(Error::from(io::Error::other(format!(
                "the store answered a request for bytes 0..{guess} of {} with bytes {:?}",
                quoted(&object.path),
                first.range
            ))));
        }
        let bytes = object.collect(first, asked).await?;
        Ok((object, bytes))
    }

    /// Fetches the bytes `range` of the pinned object into `buf` (of the range's length):
    /// one GET per part of [`RemoteOptions::part_size`], [`RemoteOptions::concurrency`] at
    /// once, each streamed into its own slot of `buf`.
    async fn fetch_into(&self, range: Range<u64>, buf: &mut [u8]) -> Result<(), Error> {
        debug_assert_eq!(range.end - range.start, buf.len() as u64);
        let part = self.opts.part_size.max(1);
        // Collected first: a stream that maps with a closure over borrowed slots would make
        // the future not `Send` (rustc's higher-ranked lifetime limitation, rust#64552).
        let parts: Vec<_> = (buf.chunks_mut(part).enumerate())
            .map(|(i, slot)| {
                let from = range.start + (i * part) as u64;
                self.get_into(from..from + slot.len() as u64, slot)
            })
            .collect();
        futures::stream::iter(parts)
            .buffer_unordered(self.opts.concurrency.max(1))
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// One pinned GET of `range` into `slot` (of the range's length).
    async fn get_into(&self, range: Range<u64>, slot: &mut [u8]) -> Result<(), Error> {
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
            filled += chunk.len();
        }
        if filled < slot.len() {
            return Err(truncated(slot.len() as u64, filled as u64));
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

    /// The error for an object that is no longer the one opened.
    fn changed(&self, source: Option<object_store::Error>) -> Error {
        let opened = self.e_tag.as_deref().map_or(String::new(), |e_tag| {
            format!(
                " (it was opened with ETag {})",
                crate::base::error::excerpt(e_tag)
            )
        });
        let e = StoreError {
            doing: format!(
                "the object {} changed after it was opened{opened}",
                quoted(&self.path)
            ),
            after: "; open it again to read the new object",
            source,
        };
        Error::from(io::Error::other(crate::base::error::Changed(Box::new(e))))
    }
}

/// A pinned object is a ranged source: [`RemoteFile`] reads it.
impl crate::source::Ranged for Object {
    fn size(&self) -> u64 {
        self.size
    }

    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let range = offset..offset + buf.len() as u64;
        block_on(self.fetch_into(range, buf))??;
        Ok(())
    }

    /// One GET per buffer, [`RemoteOptions::concurrency`] at once.
    fn fetch_many(&self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        let gets: Vec<_> = (reads.iter_mut())
            .map(|(offset, buf)| self.get_into(*offset..*offset + buf.len() as u64, buf))
            .collect();
        block_on(
            futures::stream::iter(gets)
                .buffer_unordered(self.opts.concurrency.max(1))
                .try_collect::<Vec<()>>(),
        )??;
        Ok(())
    }

    /// Runs less than [`RemoteOptions::region_gap`] apart fetched by one GET, windows of up
    /// to [`RemoteOptions::part_size`] bytes, [`RemoteOptions::concurrency`] at once, and a
    /// run of a part or more fetched in parts straight into the array.
    fn merge(&self) -> crate::source::Merge {
        crate::source::Merge {
            gap: self.opts.region_gap as u64,
            block: self.opts.part_size.max(1),
            batch: self.opts.concurrency.max(1),
            batch_bytes: usize::MAX,
            direct: false,
        }
    }

    /// A part size times the concurrency: what one round of GETs fetches.
    fn max_window(&self) -> usize {
        self.opts.part_size.saturating_mul(self.opts.concurrency)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
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
        url: crate::base::error::excerpt(url),
        reason: e.to_string(),
    })?;
    let (store, path) =
        object_store::parse_url_opts(&parsed, options).map_err(|e| UsageError::Url {
            url: crate::base::error::excerpt(url),
            reason: e.to_string(),
        })?;
    Ok((Arc::from(store), path))
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
        source: Some(source),
    };
    Error::from(io::Error::new(kind, e))
}

/// An object's path, quoted, at most 200 characters of it.
fn quoted(path: &Path) -> String {
    crate::base::error::excerpt(format_args!("{:?}", path.as_ref()))
}

/// A store's error in a request, or (with no source) the object found changed.
#[derive(Debug)]
struct StoreError {
    doing: String,
    after: &'static str,
    source: Option<object_store::Error>,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.doing)?;
        if let Some(source) = &self.source {
            let top = crate::base::error::excerpt(source);
            write!(f, ": {top}")?;
            // The message is capped, and a long URL can push the reason (an HTTP status, a
            // refused connection) out of it: the innermost cause is named then.
            let mut cause: &(dyn StdError + 'static) = source;
            while let Some(next) = cause.source() {
                cause = next;
            }
            let inner = cause.to_string();
            let inner = inner.trim().trim_end_matches(':');
            if !inner.is_empty() && !top.contains(inner) {
                write!(f, " (cause: {})", crate::base::error::excerpt(inner))?;
            }
        }
        f.write_str(self.after)
    }
}

impl StdError for StoreError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
