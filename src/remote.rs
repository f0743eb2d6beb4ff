//! Remote `.npy` files read through the `object_store` crate (feature `object_store`): S3 and
//! S3-compatible servers, Google Cloud Storage, Azure Blob Storage and plain HTTP, all alike.
//!
//! [`RemoteNpy::open`] reads the header with one ranged GET of the first
//! [`RemoteOptions::header_guess`] bytes (a second GET only when the header is longer; its
//! declared length is checked against [`ReadOptions::max_header_len`] first) and pins the
//! object's version: every later GET carries the first response's ETag (`If-Match`) and
//! version, and checks the ETag of its response, so that an object replaced between two
//! requests is an error rather than a mix of two files. [`RemoteNpy::read`],
//! [`RemoteNpy::read_rows`] and [`RemoteNpy::read_element`] then fetch exactly the bytes they
//! need; a range longer than [`RemoteOptions::part_size`] is split into parts fetched by up to
//! [`RemoteOptions::concurrency`] GETs at once, each streamed into its own slot of the
//! destination (allocated only after the object's size, from the store's metadata, is known to
//! hold the data the header declares). In [`RemoteNpy`]'s async calls the destination is one
//! buffer of the range's size, from which the elements are decoded as from any bytes in memory
//! (one copy). [`BlockingRemoteNpy`] offers the same calls to code that is not async, and its
//! reads go through the element reader itself: plain types (numbers, `bool`, plain records)
//! are fetched straight into the array's own memory, decoded types (strings, datetimes,
//! records with conversions) through a window of at most `part_size * concurrency` bytes.

use crate::element::{Input, ReadableElement};
use crate::error::UsageError;
use crate::error::{Error, FormatError};
use crate::header::{
    declared_header_len, element_offset, rows_plan, Header, HeaderInfo, ReadOptions,
};
use crate::layout::dimension;
use crate::read::array_from_vec;
use futures::{StreamExt, TryStreamExt};
use ndarray::{Array, Dimension};
use object_store::path::Path;
use object_store::{GetOptions, GetResult, ObjectStore};
use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// How a [`RemoteNpy`] talks to its store: the speculative header read, the size of the parts
/// a large read is split into, how many parts are fetched at once, and the limits of
/// [`ReadOptions`].
///
/// # Examples
///
/// ```
/// use ndnpy::{ReadOptions, RemoteOptions};
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
    /// The limits applied to the header and the data ([`RemoteOptions::read_options`]).
    pub read: ReadOptions,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions::new()
    }
}

impl RemoteOptions {
    /// The defaults: 8 GETs at once, parts of 8 MiB, a first GET of 4 KiB, and
    /// [`ReadOptions::new`]'s limits.
    ///
    /// ```
    /// let opts = ndnpy::RemoteOptions::new();
    /// assert_eq!((opts.concurrency, opts.part_size, opts.header_guess), (8, 8 << 20, 4096));
    /// ```
    pub fn new() -> RemoteOptions {
        RemoteOptions {
            concurrency: 8,
            part_size: 8 << 20,
            header_guess: 4096,
            read: ReadOptions::new(),
        }
    }

    /// The most ranged GETs one read keeps in flight at once (default 8; 0 counts as 1).
    ///
    /// ```
    /// assert_eq!(ndnpy::RemoteOptions::new().concurrency(0).concurrency, 1);
    /// ```
    pub fn concurrency(mut self, requests: usize) -> RemoteOptions {
        self.concurrency = requests.max(1);
        self
    }

    /// The size of the parts a read is split into, in bytes (default 8 MiB; 0 counts as 1): a
    /// range no longer than this is one GET.
    ///
    /// ```
    /// assert_eq!(ndnpy::RemoteOptions::new().part_size(1 << 20).part_size, 1 << 20);
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
    /// assert_eq!(ndnpy::RemoteOptions::new().header_guess(0).header_guess, 12);
    /// ```
    pub fn header_guess(mut self, bytes: usize) -> RemoteOptions {
        self.header_guess = bytes.max(12);
        self
    }

    /// The limits of [`ReadOptions`] (header length, nesting, data length) for what is read.
    /// Its `threads` has no effect here: [`RemoteOptions::concurrency`] says how many parts
    /// are fetched at once.
    ///
    /// ```
    /// let opts = ndnpy::RemoteOptions::new()
    ///     .read_options(ndnpy::ReadOptions::new().max_data_len(Some(1 << 30)));
    /// assert_eq!(opts.read.max_data_len, Some(1 << 30));
    /// ```
    pub fn read_options(mut self, read: ReadOptions) -> RemoteOptions {
        self.read = read;
        self
    }
}

/// An `.npy` object in an object store (S3, GCS, Azure, HTTP: any [`ObjectStore`]), read in
/// the byte ranges each call needs, asynchronously.
///
/// Opening reads and checks the header, and pins the object's version (ETag and, where the
/// store has them, version ids): a later read of an object replaced meanwhile fails with
/// [`ErrorKind::Io`](crate::ErrorKind::Io) and a message that says the object changed. Store
/// and network errors are [`ErrorKind::Io`](crate::ErrorKind::Io) too; their
/// [`io_error`](Error::io_error)'s source is the [`object_store::Error`].
///
/// The futures are `Send`; the store's HTTP client needs a tokio runtime. For code that is
/// not async, [`BlockingRemoteNpy`].
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::RemoteNpy;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = AmazonS3Builder::from_env().with_bucket_name("data").build()?;
/// let npy = RemoteNpy::open(Arc::new(store), "runs/7/weights.npy".into()).await?;
/// println!("{:?} {}", npy.header().shape, npy.header().dtype);
/// let rows: ndarray::Array2<f32> = npy.read_rows(1000..1010).await?;
/// let x: f32 = npy.read_element(&[5, 3]).await?;
/// let all: ndarray::Array2<f32> = npy.read().await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RemoteNpy {
    object: Object,
    info: HeaderInfo,
}

/// One version of an object: where it is, and what its reads are pinned to.
#[derive(Debug)]
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

impl RemoteNpy {
    /// Opens the `.npy` object at `path` in `store` with [`RemoteOptions::new`]: reads and
    /// checks its header (one GET, two for a header longer than 4 KiB).
    ///
    /// # Errors
    ///
    /// As [`Header::read`]; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the
    /// object is shorter than its header says; [`ErrorKind::Io`](crate::ErrorKind::Io) for an
    /// error of the store (not found, denied, network), with the
    /// [`object_store::Error`] as its I/O error's source.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), ndnpy::Error> {
    /// use std::sync::Arc;
    /// let store = Arc::new(object_store::http::HttpBuilder::new()
    ///     .with_url("https://example.com/data")
    ///     .build()
    ///     .unwrap());
    /// let npy = ndnpy::RemoteNpy::open(store, "a.npy".into()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<RemoteNpy, Error> {
        RemoteNpy::open_with_options(store, path, RemoteOptions::new()).await
    }

    /// Like [`RemoteNpy::open`], with other options.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::open`];
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) for a header longer than
    /// [`ReadOptions::max_header_len`] (checked before its second GET) or data longer than
    /// [`ReadOptions::max_data_len`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::RemoteOptions::new().concurrency(32).part_size(16 << 20);
    /// let npy = ndnpy::RemoteNpy::open_with_options(store, "big.npy".into(), opts).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<RemoteNpy, Error> {
        let guess = opts.header_guess.max(12) as u64;
        let first = store
            .get_opts(&path, GetOptions::new().with_range(Some(0..guess)))
            .await
            .map_err(|e| store_error(&path, 0..guess, e))?;
        let (size, e_tag, version) = (
            first.meta.size,
            first.meta.e_tag.clone(),
            first.meta.version.clone(),
        );
        let npy = Object {
            store,
            path,
            size,
            e_tag,
            version,
            opts,
        };
        let mut bytes = npy.collect(first, 0..guess.min(size)).await?;
        let info = match Header::read(&mut &bytes[..], &npy.opts.read) {
            Ok(info) => info,
            Err(e) if is_short_header(&e) && (bytes.len() as u64) < size => {
                // Header::read checked the declared length against max_header_len before it
                // found the text short, so the second GET asks for a bounded range.
                let end = declared_header_len(&bytes).ok_or(e)?.min(size);
                let start = bytes.len() as u64;
                let rest = npy.get(start..end).await?;
                bytes.extend_from_slice(&rest);
                Header::read(&mut &bytes[..], &npy.opts.read)?
            }
            Err(e) => return Err(e),
        };
        let present = size.saturating_sub(info.data_offset);
        if present < info.data_len as u64 {
            return Err(FormatError::Truncated {
                part: "array data",
                expected: info.data_len as u64,
                found: present,
            }
            .into());
        }
        Ok(RemoteNpy { object: npy, info })
    }

    /// Opens the `.npy` object at `url` (`s3://bucket/key`, `gs://...`, `az://...`,
    /// `https://...`): the store is built by [`object_store::parse_url_opts`] from the URL and
    /// `options` (the builders' configuration keys, such as `aws_endpoint`, `aws_region`,
    /// `aws_allow_http`; credentials not given are taken from nowhere else, so pass them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a URL that does not parse or names a
    /// store this build does not have (this crate enables `object_store`'s `aws` and `http`
    /// stores; enable `gcp` or `azure` on `object_store` in your own `Cargo.toml` for those);
    /// otherwise as [`RemoteNpy::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), ndnpy::Error> {
    /// let npy = ndnpy::RemoteNpy::open_url(
    ///     "s3://data/a.npy",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::RemoteOptions::new(),
    /// )
    /// .await?;
    /// # Ok(()) }
    /// ```
    pub async fn open_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<RemoteNpy, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        RemoteNpy::open_with_options(store, path, opts).await
    }

    /// The header, as [`Header::read`] gives it (dtype, order, shape; version, data offset
    /// and sizes).
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) {
    /// println!("{} bytes of data at {}", npy.info().data_len, npy.info().data_offset);
    /// # }
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// The header: dtype, order and shape.
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) {
    /// println!("{:?} {}", npy.header().shape, npy.header().dtype);
    /// # }
    /// ```
    pub fn header(&self) -> &Header {
        &self.info.header
    }

    /// The object's path in its store.
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) {
    /// println!("{}", npy.path());
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.object.path
    }

    /// The object's size in bytes and the ETag its reads are pinned to (if the store gave
    /// one), as the first response gave them.
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) {
    /// let (size, e_tag) = npy.object();
    /// println!("{size} bytes, ETag {e_tag:?}");
    /// # }
    /// ```
    pub fn object(&self) -> (u64, Option<&str>) {
        (self.object.size, self.object.e_tag.as_deref())
    }

    /// Reads the whole array, in the file's layout (C or Fortran), fetching the data range
    /// in parts of [`RemoteOptions::part_size`] bytes, [`RemoteOptions::concurrency`] at once.
    ///
    /// # Errors
    ///
    /// A mismatch ([`ErrorKind::is_mismatch`](crate::ErrorKind::is_mismatch)) for a wrong
    /// element type or dimension; [`ErrorKind::Io`](crate::ErrorKind::Io) for the store's
    /// errors and for an object that changed since it was opened;
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the store returns fewer bytes
    /// than asked for; [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::ArrayD<f64> = npy.read().await?;
    /// # Ok(()) }
    /// ```
    pub async fn read<A: ReadableElement, D: Dimension>(&self) -> Result<Array<A, D>, Error> {
        let (first, count, shape) = self.plan_all::<D>()?;
        let data = self.read_elements::<A>(first, count).await?;
        self.finish(data, shape)
    }

    /// Reads steps `rows` along the growth axis (the first axis of a C-order file, the last of
    /// a Fortran-order file), as [`NpyReader::read_rows`](crate::NpyReader::read_rows) does:
    /// only those bytes are fetched (one GET up to [`RemoteOptions::part_size`] bytes).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the range exceeds the axis or the
    /// array is 0-d; otherwise as [`RemoteNpy::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let rows: ndarray::Array2<f32> = npy.read_rows(500..510).await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_rows<A: ReadableElement, D: Dimension>(
        &self,
        rows: Range<usize>,
    ) -> Result<Array<A, D>, Error> {
        let (first, count, shape) = rows_plan::<D>(&self.info.header, rows)?;
        let data = self.read_elements::<A>(first, count).await?;
        self.finish(data, shape)
    }

    /// Reads the element at `index` (one index per dimension; `&[]` for a 0-d array): one GET
    /// of its bytes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a wrong index; otherwise as
    /// [`RemoteNpy::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let x: i64 = npy.read_element(&[3, 4]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_element<A: ReadableElement>(&self, index: &[usize]) -> Result<A, Error> {
        let offset = element_offset(&self.info.header, index)?;
        let v = self.read_elements::<A>(offset, 1).await?;
        self.only(v)
    }

    /// Fetches the bytes of `count` elements from element `first` of the data into one
    /// buffer and decodes them.
    async fn read_elements<A: ReadableElement>(
        &self,
        first: usize,
        count: usize,
    ) -> Result<Vec<A>, Error> {
        let bytes = self.object.get(self.byte_range(first, count)).await?;
        A::read_vec(
            &mut &bytes[..],
            &self.info.header.dtype,
            count,
            Input::new(Some(bytes.len() as u64)),
        )
    }

    /// Reads `count` elements from element `first` of the data on this thread, the parts
    /// fetched (blocking) straight into the memory the element reader reads into: for
    /// plain types, the array's own; for decoded types, a buffer of at most
    /// `part_size * concurrency` bytes that they decode from.
    fn read_elements_blocking<A: ReadableElement>(
        &self,
        first: usize,
        count: usize,
    ) -> Result<Vec<A>, Error> {
        let range = self.byte_range(first, count);
        let len = range.end - range.start;
        let window = (self.object.opts.part_size).saturating_mul(self.object.opts.concurrency);
        // The buffer is used only by reads smaller than it (decoded types, small arrays), and
        // is no larger than the range, whose bytes open found in the object.
        let capacity = usize::try_from(len)
            .map_or(window, |len| len.min(window))
            .max(1);
        let mut reader = io::BufReader::with_capacity(
            capacity,
            BlockingRange {
                object: &self.object,
                pos: range.start,
                end: range.end,
            },
        );
        A::read_vec(
            &mut reader,
            &self.info.header.dtype,
            count,
            Input::new(Some(len)),
        )
    }

    /// The first element, the element count and the shape of the whole array.
    fn plan_all<D: Dimension>(&self) -> Result<(usize, usize, Vec<usize>), Error> {
        let shape = self.info.header.shape.clone();
        dimension::<D>(&shape)?;
        Ok((0, self.info.num_elements, shape))
    }

    /// The bytes of `count` elements from element `first` of the data, in the object. In
    /// range: at most the data, which open checked against the object's size.
    fn byte_range(&self, first: usize, count: usize) -> Range<u64> {
        let itemsize = self.info.header.dtype.itemsize() as u64;
        let start = self.info.data_offset + first as u64 * itemsize;
        start..start + count as u64 * itemsize
    }

    /// The elements read as an array of `shape` in the file's layout.
    fn finish<A, D: Dimension>(
        &self,
        data: Vec<A>,
        shape: Vec<usize>,
    ) -> Result<Array<A, D>, Error> {
        let header = &self.info.header;
        array_from_vec(data, shape, header.fortran_order, header.dtype.itemsize())
    }

    /// The one element read.
    fn only<A>(&self, mut v: Vec<A>) -> Result<A, Error> {
        // The element readers return exactly the one element asked for, or an error.
        v.pop().ok_or_else(|| {
            FormatError::Truncated {
                part: "array data",
                expected: self.info.header.dtype.itemsize() as u64,
                found: 0,
            }
            .into()
        })
    }
}

/// Bytes `pos..end` of a pinned object as a [`Read`](io::Read) for the blocking API: each
/// read fetches straight into the caller's buffer (in parts, concurrently, as
/// [`Object::fetch_into`] does), blocking this thread.
struct BlockingRange<'a> {
    object: &'a Object,
    pos: u64,
    end: u64,
}

impl io::Read for BlockingRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.end - self.pos) as usize;
        if n == 0 {
            return Ok(0);
        }
        let range = self.pos..self.pos + n as u64;
        block_on(self.object.fetch_into(range, &mut buf[..n]))??;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Object {
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
        debug_assert_eq!(range.end - range.start, buf.len() as u64);
        let part = self.opts.part_size.max(1);
        let start = range.start;
        // Collected first: a stream that maps with a closure over borrowed slots would make
        // the future not `Send` (rustc's higher-ranked lifetime limitation, rust#64552).
        let parts: Vec<_> = (buf.chunks_mut(part).enumerate())
            .map(|(i, slot)| {
                let from = start + (i * part) as u64;
                self.get_into(from..from + slot.len() as u64, slot)
            })
            .collect();
        futures::stream::iter(parts)
            .buffer_unordered(self.opts.concurrency.max(1))
            .try_collect::<()>()
            .await
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
                    crate::error::excerpt(format_args!("{:?}", self.path.as_ref()))
                ))));
            }
        }
        Ok(bytes)
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

/// A [`RemoteNpy`] for code that is not async: each call runs the async one to completion on
/// a runtime of this crate's (one tokio worker thread for every `BlockingRemoteNpy`, started
/// at the first use), blocking the calling thread.
///
/// Its reads fetch the parts of a plain array (numbers, `bool`, plain records) straight into
/// the array's own memory, without the copy [`RemoteNpy`]'s async reads make; decoded types
/// (strings, datetimes, records with conversions) are fetched through a window of at most
/// `part_size * concurrency` bytes.
///
/// It may be called from any thread, inside an async runtime too (the runtime's thread is
/// blocked meanwhile, so async code should rather await [`RemoteNpy`]).
///
/// # Examples
///
/// `examples/remote.rs` runs against a server named by environment variables; this is its
/// core:
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::BlockingRemoteNpy;
///
/// let store = AmazonS3Builder::new()
///     .with_endpoint("http://127.0.0.1:9000")
///     .with_allow_http(true)
///     .with_bucket_name("data")
///     .with_region("us-east-1")
///     .with_access_key_id("key")
///     .with_secret_access_key("secret")
///     .build()?;
/// let npy = BlockingRemoteNpy::open(Arc::new(store), "a.npy".into())?;
/// let a: ndarray::Array2<f64> = npy.read()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct BlockingRemoteNpy {
    inner: RemoteNpy,
}

impl BlockingRemoteNpy {
    /// [`RemoteNpy::open`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::open`]; [`ErrorKind::Io`](crate::ErrorKind::Io) if the runtime cannot
    /// be started.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let npy = ndnpy::BlockingRemoteNpy::open(store, "a.npy".into())?;
    /// # Ok(()) }
    /// ```
    pub fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<BlockingRemoteNpy, Error> {
        BlockingRemoteNpy::open_with_options(store, path, RemoteOptions::new())
    }

    /// [`RemoteNpy::open_with_options`], blocking.
    ///
    /// # Errors
    ///
    /// As [`BlockingRemoteNpy::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::RemoteOptions::new().header_guess(64 << 10);
    /// let npy = ndnpy::BlockingRemoteNpy::open_with_options(store, "a.npy".into(), opts)?;
    /// # Ok(()) }
    /// ```
    pub fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteNpy, Error> {
        let inner = block_on(RemoteNpy::open_with_options(store, path, opts))??;
        Ok(BlockingRemoteNpy { inner })
    }

    /// [`RemoteNpy::open_url`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::open_url`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let npy = ndnpy::BlockingRemoteNpy::open_url(
    ///     "s3://data/a.npy",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::RemoteOptions::new(),
    /// )?;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn open_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteNpy, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        BlockingRemoteNpy::open_with_options(store, path, opts)
    }

    /// The async reader, for [`RemoteNpy::info`], [`RemoteNpy::header`] and the rest.
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::BlockingRemoteNpy) {
    /// println!("{:?}", npy.remote().header().shape);
    /// # }
    /// ```
    pub fn remote(&self) -> &RemoteNpy {
        &self.inner
    }

    /// [`RemoteNpy::read`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::Array2<f64> = npy.read()?;
    /// # Ok(()) }
    /// ```
    pub fn read<A: ReadableElement, D: Dimension>(&self) -> Result<Array<A, D>, Error> {
        let (first, count, shape) = self.inner.plan_all::<D>()?;
        let data = self.inner.read_elements_blocking::<A>(first, count)?;
        self.inner.finish(data, shape)
    }

    /// [`RemoteNpy::read_rows`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::read_rows`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let rows: ndarray::Array2<f64> = npy.read_rows(10..20)?;
    /// # Ok(()) }
    /// ```
    pub fn read_rows<A: ReadableElement, D: Dimension>(
        &self,
        rows: Range<usize>,
    ) -> Result<Array<A, D>, Error> {
        let (first, count, shape) = rows_plan::<D>(&self.inner.info.header, rows)?;
        let data = self.inner.read_elements_blocking::<A>(first, count)?;
        self.inner.finish(data, shape)
    }

    /// [`RemoteNpy::read_element`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::read_element`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let x: f64 = npy.read_element(&[1, 2])?;
    /// # Ok(()) }
    /// ```
    pub fn read_element<A: ReadableElement>(&self, index: &[usize]) -> Result<A, Error> {
        let offset = element_offset(&self.inner.info.header, index)?;
        let v = self.inner.read_elements_blocking::<A>(offset, 1)?;
        self.inner.only(v)
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

/// A header that [`Header::read`] found cut short in its text (the length field was read).
fn is_short_header(e: &Error) -> bool {
    matches!(
        e.detail(),
        crate::error::Detail::Format(FormatError::Truncated { part: "header", .. })
    )
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
    let kind = match &source {
        object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    Error::from(io::Error::new(
        kind,
        StoreError {
            path: path.to_string(),
            range,
            source,
        },
    ))
}

/// A store's error reading a range of an object.
#[derive(Debug)]
struct StoreError {
    path: String,
    range: Range<u64>,
    source: object_store::Error,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read bytes {}..{} of {}: {}",
            self.range.start,
            self.range.end,
            crate::error::excerpt(format_args!("{:?}", self.path)),
            crate::error::excerpt(&self.source)
        )
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
