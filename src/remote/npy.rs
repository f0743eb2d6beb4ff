//! Remote `.npy` files: [`RemoteNpy`] and [`BlockingRemoteNpy`].

use super::{block_on, parse_url, Object, RemoteOptions};
use crate::dynamic::DynArray;
use crate::element::ReadableElement;
use crate::error::{Error, FormatError};
use crate::header::{declared_header_len, Header, HeaderInfo};
use crate::object::{check_readable, is_object};
use ndarray::{Array, Dimension, Ix0, IxDyn, SliceArg, SliceInfoElem};
use object_store::path::Path;
use object_store::{GetRange, ObjectStore};
use std::io;
use std::ops::Range;
use std::sync::Arc;

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
/// use ndnpy::remote::RemoteNpy;
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
    /// Where the `.npy` lies in the object: all of it, or a stored `.npz` member's data.
    extent: Range<u64>,
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
    /// let npy = ndnpy::remote::RemoteNpy::open(store, "a.npy".into()).await?;
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
    /// [`ReadOptions::max_header_len`](crate::ReadOptions::max_header_len) (checked before its second GET) or data longer than
    /// [`ReadOptions::max_data_len`](crate::ReadOptions::max_data_len).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().concurrency(32).part_size(16 << 20);
    /// let npy = ndnpy::remote::RemoteNpy::open_with_options(store, "big.npy".into(), opts).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<RemoteNpy, Error> {
        let guess = opts.header_guess.max(12) as u64;
        let (npy, mut bytes, answered) =
            Object::open(store, path, GetRange::Bounded(0..guess), opts).await?;
        let size = npy.size;
        if answered.start != 0 {
            return Err(npy.misanswered(0..guess, answered));
        }
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
        info.check_data_within(size)?;
        Ok(RemoteNpy {
            object: npy,
            info,
            extent: 0..size,
        })
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
    /// let npy = ndnpy::remote::RemoteNpy::open_url(
    ///     "s3://data/a.npy",
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
    ) -> Result<RemoteNpy, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        RemoteNpy::open_with_options(store, path, opts).await
    }

    /// The `.npy` that lies at `extent` in `object`, whose header `info` says (its data
    /// offset made absolute), the caller having checked that its data lies in `extent`.
    #[cfg_attr(not(feature = "npz"), allow(dead_code))]
    pub(super) fn from_parts(object: Object, info: HeaderInfo, extent: Range<u64>) -> RemoteNpy {
        RemoteNpy {
            object,
            info,
            extent,
        }
    }

    /// The header, as [`Header::read`] gives it (dtype, order, shape; version, data offset
    /// and sizes).
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) {
    /// println!("{} bytes of data at {}", npy.info().data_len, npy.info().data_offset);
    /// # }
    /// ```
    pub fn info(&self) -> &HeaderInfo {
        &self.info
    }

    /// The header: dtype, order and shape.
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) {
    /// println!("{:?} {}", npy.header().shape, npy.header().dtype);
    /// # }
    /// ```
    pub fn header(&self) -> &Header {
        &self.info.header
    }

    /// The object's path in its store.
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) {
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
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) {
    /// let (size, e_tag) = npy.object();
    /// println!("{size} bytes, ETag {e_tag:?}");
    /// # }
    /// ```
    pub fn object(&self) -> (u64, Option<&str>) {
        (self.object.size, self.object.e_tag.as_deref())
    }

    /// Reads the whole array, in the file's layout (C or Fortran), fetching the data range
    /// in parts of [`RemoteOptions::part_size`] bytes, [`RemoteOptions::concurrency`] at once.
    /// It is a region read of everything (as [`RemoteNpy::read_slice`]), on a thread of the
    /// tokio runtime's blocking pool: a plain array's parts are fetched straight into its
    /// memory, a decoded one's (strings, datetimes, records with conversions) through windows
    /// of at most `part_size * concurrency` bytes.
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
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::ArrayD<f64> = npy.read().await?;
    /// # Ok(()) }
    /// ```
    pub async fn read<A, D>(&self) -> Result<Array<A, D>, Error>
    where
        A: ReadableElement + Send + 'static,
        D: Dimension,
    {
        self.region(crate::region::whole(&self.info.header)).await
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
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let rows: ndarray::Array2<f32> = npy.read_rows(500..510).await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_rows<A, D>(&self, rows: Range<usize>) -> Result<Array<A, D>, Error>
    where
        A: ReadableElement + Send + 'static,
        D: Dimension,
    {
        self.region(crate::region::rows(&self.info.header, rows)?)
            .await
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
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let x: i64 = npy.read_element(&[3, 4]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_element<A>(&self, index: &[usize]) -> Result<A, Error>
    where
        A: ReadableElement + Send + 'static,
    {
        let elems = crate::region::element(&self.info.header, index)?;
        Ok(self.region::<A, Ix0>(elems).await?.into_scalar())
    }

    /// Reads the region `selection` of the array (ndarray's slice syntax, `s![..]`), as
    /// [`NpyReader::read_slice`](crate::NpyReader::read_slice) does, fetching only the runs
    /// of bytes the selection covers: runs less than [`RemoteOptions::region_gap`] bytes
    /// apart are fetched by one GET (the bytes between them are dropped), up to
    /// [`RemoteOptions::part_size`] bytes a GET, [`RemoteOptions::concurrency`] GETs at
    /// once; a run of a part or more is fetched in parts straight into the array. It runs
    /// on the tokio runtime's blocking pool (under another executor, on the calling thread).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a selection outside the shape
    /// (naming the axis), before any GET; otherwise as [`RemoteNpy::read`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// use ndarray::s;
    /// let block: ndarray::Array2<f32> = npy.read_slice(s![1000..1010, 64..128]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn read_slice<A, I>(&self, selection: I) -> Result<Array<A, I::OutDim>, Error>
    where
        A: ReadableElement + Send + 'static,
        I: SliceArg<IxDyn>,
    {
        self.region(selection.as_ref().to_vec()).await
    }

    /// Reads the selection `elems`, the one engine of every typed read here (the whole
    /// array, rows, an element, a region): checked before any GET, then read by
    /// [`region_blocking`] on the tokio runtime's blocking pool (under another executor, on
    /// the calling thread), so that long runs land in the array's own memory.
    async fn region<A, D>(&self, elems: Vec<SliceInfoElem>) -> Result<Array<A, D>, Error>
    where
        A: ReadableElement + Send + 'static,
        D: Dimension,
    {
        crate::region::check::<D>(&self.info.header, &elems)?;
        let a = match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let object = self.object.clone();
                let info = self.info.clone();
                handle
                    .spawn_blocking(move || region_blocking::<A, IxDyn>(&object, &info, &elems))
                    .await
                    .map_err(|e| {
                        io::Error::other(format!("a remote read's thread failed: {e}"))
                    })??
            }
            Err(_) => region_blocking(&self.object, &self.info, &elems)?,
        };
        // The dimension was checked above.
        Ok(a.into_dimensionality().expect("checked dimension"))
    }

    /// Reads the whole array whatever its dtype, as [`DynArray::read_npy`] does: numbers,
    /// strings, records, datetimes, and object arrays (their pickle, up to the file's end,
    /// is decoded without running code; without the feature `object` they are refused before
    /// any byte is fetched). The bytes are fetched into one buffer first, in parts as
    /// [`RemoteNpy::read`] fetches them.
    ///
    /// # Errors
    ///
    /// As [`DynArray::read_npy`] for the content; as [`RemoteNpy::read`] for the store.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(npy: ndnpy::remote::RemoteNpy) -> Result<(), ndnpy::Error> {
    /// let any = npy.read_dyn().await?;
    /// println!("{} {:?}", any.dtype(), any.shape());
    /// # Ok(()) }
    /// ```
    pub async fn read_dyn(&self) -> Result<DynArray, Error> {
        check_readable(&self.info.header.dtype)?;
        let bytes = self.object.get(self.dyn_range()).await?;
        self.dyn_from(&bytes)
    }

    /// The bytes [`RemoteNpy::read_dyn`] reads: the header and the data, and for an object
    /// array (whose pickle has no declared length) everything up to the object's end.
    fn dyn_range(&self) -> Range<u64> {
        let end = if is_object(&self.info.header.dtype) {
            self.extent.end
        } else {
            self.info.data_offset + self.info.data_len as u64
        };
        self.extent.start..end
    }

    /// The array in `bytes`, the range [`RemoteNpy::dyn_range`] gives.
    fn dyn_from(&self, bytes: &[u8]) -> Result<DynArray, Error> {
        DynArray::read_npy_with_options(bytes, &self.object.opts.read)
    }
}

/// Reads the selection `elems` of the array `info` describes in `object` on this thread:
/// runs less than [`RemoteOptions::region_gap`] apart fetched by one GET, windows of up to
/// [`RemoteOptions::part_size`] bytes, [`RemoteOptions::concurrency`] at once, and runs of a
/// part or more fetched in parts straight into the array. `open` checked that the object
/// holds the whole data.
fn region_blocking<A: ReadableElement, D: Dimension>(
    object: &Object,
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
) -> Result<Array<A, D>, Error> {
    let merge = crate::region::Merge {
        gap: object.opts.region_gap as u64,
        block: object.opts.part_size.max(1),
        batch: object.opts.concurrency.max(1),
        batch_bytes: usize::MAX,
        direct: false,
    };
    let source = object.at(info.data_offset);
    crate::region::read_region(info, elems, source, merge, None)
}

/// A [`RemoteNpy`] for code that is not async: each call runs the async one to completion on
/// a runtime of this crate's (one tokio worker thread for every `BlockingRemoteNpy`, started
/// at the first use), blocking the calling thread.
///
/// Its typed reads are [`RemoteNpy`]'s region reads, run on the calling thread: the parts of
/// a plain array (numbers, `bool`, plain records) fetched straight into the array's own
/// memory, decoded types (strings, datetimes, records with conversions) through windows of
/// at most `part_size * concurrency` bytes.
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
/// use ndnpy::remote::BlockingRemoteNpy;
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
    /// let npy = ndnpy::remote::BlockingRemoteNpy::open(store, "a.npy".into())?;
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
    /// let opts = ndnpy::remote::RemoteOptions::new().header_guess(64 << 10);
    /// let npy = ndnpy::remote::BlockingRemoteNpy::open_with_options(store, "a.npy".into(), opts)?;
    /// # Ok(()) }
    /// ```
    pub fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteNpy, Error> {
        let inner = block_on(RemoteNpy::open_with_options(store, path, opts))??;
        Ok(BlockingRemoteNpy::from_remote(inner))
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
    /// let npy = ndnpy::remote::BlockingRemoteNpy::open_url(
    ///     "s3://data/a.npy",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::remote::RemoteOptions::new(),
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

    /// The blocking form of `inner`.
    pub(super) fn from_remote(inner: RemoteNpy) -> BlockingRemoteNpy {
        BlockingRemoteNpy { inner }
    }

    /// The async reader, for [`RemoteNpy::info`], [`RemoteNpy::header`] and the rest.
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) {
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
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::Array2<f64> = npy.read()?;
    /// # Ok(()) }
    /// ```
    pub fn read<A: ReadableElement, D: Dimension>(&self) -> Result<Array<A, D>, Error> {
        self.region(&crate::region::whole(&self.inner.info.header))
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
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let rows: ndarray::Array2<f64> = npy.read_rows(10..20)?;
    /// # Ok(()) }
    /// ```
    pub fn read_rows<A: ReadableElement, D: Dimension>(
        &self,
        rows: Range<usize>,
    ) -> Result<Array<A, D>, Error> {
        self.region(&crate::region::rows(&self.inner.info.header, rows)?)
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
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let x: f64 = npy.read_element(&[1, 2])?;
    /// # Ok(()) }
    /// ```
    pub fn read_element<A: ReadableElement>(&self, index: &[usize]) -> Result<A, Error> {
        let elems = crate::region::element(&self.inner.info.header, index)?;
        Ok(self.region::<A, Ix0>(&elems)?.into_scalar())
    }

    /// [`RemoteNpy::read_slice`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::read_slice`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// use ndarray::s;
    /// let col: ndarray::Array1<f64> = npy.read_slice(s![.., 7])?;
    /// # Ok(()) }
    /// ```
    pub fn read_slice<A, I>(&self, selection: I) -> Result<Array<A, I::OutDim>, Error>
    where
        A: ReadableElement,
        I: SliceArg<IxDyn>,
    {
        self.region(selection.as_ref())
    }

    /// [`RemoteNpy::read_dyn`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::read_dyn`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(npy: ndnpy::remote::BlockingRemoteNpy) -> Result<(), ndnpy::Error> {
    /// let labels = npy.read_dyn()?.into_strings();
    /// # Ok(()) }
    /// ```
    pub fn read_dyn(&self) -> Result<DynArray, Error> {
        block_on(self.inner.read_dyn())?
    }

    /// Reads the selection `elems` on this thread ([`region_blocking`]).
    fn region<A, D>(&self, elems: &[SliceInfoElem]) -> Result<Array<A, D>, Error>
    where
        A: ReadableElement,
        D: Dimension,
    {
        region_blocking(&self.inner.object, &self.inner.info, elems)
    }
}

/// A header that [`Header::read`] found cut short in its text (the length field was read).
fn is_short_header(e: &Error) -> bool {
    matches!(
        e.detail(),
        crate::error::Detail::Format(FormatError::Truncated { part: "header", .. })
    )
}
