//! Writing objects: [`RemoteWriter`] (async), [`BlockingRemoteWriter`] (a [`Write`]),
//! [`SpooledRemoteWriter`] (a [`Write`] + [`Seek`] for `.npz` archives), and the one-call
//! array writers [`RemoteNpy::write`] and [`BlockingRemoteNpy::write`].
//!
//! The parts of a multipart upload go through object_store's own [`WriteMultipart`]; what is
//! ours is the first part (held back so that a small object is one PUT), the back pressure
//! (`concurrency` parts in flight), aborting on error and drop, the encoding of arrays, the
//! blocking [`Write`] on the crate's runtime, and the spool. The writers' contract (what is
//! atomic, the memory used, part sizes) is written once, in [`RemoteWriter`]'s docs, where
//! users see it: this module is private.

use super::{
    block_on, parse_url, quoted, request_error, BlockingRemoteNpy, RemoteNpy, RemoteOptions,
};
use crate::element::WritableElement;
use crate::error::Error;
use crate::header::Header;
use crate::layout::fortran_order_of;
use crate::write::{WriteNpyExt, WriteOptions};
use ndarray::{ArrayRef, ArrayViewD, Axis, Dimension, Slice};
use object_store::path::Path;
use object_store::{
    MultipartUpload, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult,
    UploadPart, WriteMultipart,
};
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// The smallest part S3 accepts (all parts but the last).
const MIN_PART_SIZE: usize = 5 << 20;
/// The largest part S3 accepts.
const MAX_PART_SIZE: u64 = 5 << 30;
/// The most parts S3 accepts in one upload.
const MAX_PARTS: u64 = 10_000;
/// About how many bytes [`RemoteWriter::write_array`] encodes between two awaits.
const ENCODE_CHUNK: usize = 1 << 20;

/// What a completed write made: the object's path, size, ETag and version.
///
/// # Examples
///
/// ```no_run
/// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
/// let done = ndnpy::remote::BlockingRemoteNpy::write(store, "a.npy".into(), &ndarray::array![1.0f64])?;
/// println!("{}: {} bytes, ETag {:?}", done.path, done.size, done.e_tag);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Uploaded {
    /// Where the object is.
    pub path: Path,
    /// Its size in bytes.
    pub size: u64,
    /// Its ETag, if the store gave one (for S3, of a multipart upload, `"…-N"`).
    pub e_tag: Option<String>,
    /// Its version, if the store versions objects.
    pub version: Option<String>,
    /// How many parts it was uploaded in: 0 for an object sent with one PUT.
    pub parts: u64,
}

/// The state of a writer's requests.
enum Upload {
    /// No request made yet: an object that ends within the first part is one PUT.
    NotStarted,
    /// A task is creating the multipart upload and handing it the first part.
    Creating(JoinHandle<object_store::Result<WriteMultipart>>),
    /// Parts are being uploaded by object_store's writer.
    Started(WriteMultipart),
    /// Completed, aborted or failed: nothing left to do.
    Closed,
}

/// Aborts the upload `upload` holds, if any: its parts in flight are cancelled, then the
/// store is told to abort. Owned, so that a dropped writer can spawn it.
async fn abort(upload: Upload) -> object_store::Result<()> {
    match upload {
        Upload::Creating(creating) => match creating.await {
            Ok(Ok(parts)) => parts.abort().await,
            // Never created: nothing to abort.
            _ => Ok(()),
        },
        Upload::Started(parts) => parts.abort().await,
        Upload::NotStarted | Upload::Closed => Ok(()),
    }
}

/// A multipart upload that numbers its parts and records the number of the first that
/// fails, for the error message ([`WriteMultipart`] reports only the store's error), and
/// that is aborted if dropped before it was completed or aborted: the backstop for a
/// [`WriteMultipart::finish`] future dropped (cancelled by a timeout, say) while it runs,
/// when the upload is no longer the writer's to abort.
#[derive(Debug)]
struct Numbered {
    /// `None` once completed or aborted.
    inner: Option<Box<dyn MultipartUpload>>,
    parts: u64,
    /// The first failed part's number; 0 while none has.
    failed: Arc<AtomicU64>,
    /// Where a dropped upload's abort runs.
    runtime: Handle,
}

impl Numbered {
    fn upload(&mut self) -> object_store::Result<&mut Box<dyn MultipartUpload>> {
        let ended = || object_store::Error::Generic {
            store: "ndnpy",
            source: "the multipart upload was completed or aborted".into(),
        };
        self.inner.as_mut().ok_or_else(ended)
    }
}

#[async_trait::async_trait]
impl MultipartUpload for Numbered {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        self.parts += 1;
        let (number, failed) = (self.parts, Arc::clone(&self.failed));
        let part = self.upload().map(|upload| upload.put_part(data));
        Box::pin(async move {
            let result = match part {
                Ok(part) => part.await,
                Err(e) => Err(e),
            };
            if result.is_err() {
                let _ = failed.compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst);
            }
            result
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        let result = self.upload()?.complete().await;
        if result.is_ok() {
            self.inner = None;
        }
        result
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        let result = self.upload()?.abort().await;
        self.inner = None;
        result
    }
}

impl Drop for Numbered {
    fn drop(&mut self) {
        if let Some(mut upload) = self.inner.take() {
            // Best effort: its result has nowhere to go.
            self.runtime.spawn(async move { upload.abort().await });
        }
    }
}

/// An object being written to a store, asynchronously: bytes given to
/// [`write_all`](RemoteWriter::write_all) (or an array to
/// [`write_array`](RemoteWriter::write_array)) are buffered into parts, uploaded
/// [`RemoteOptions::concurrency`] at once as tasks of the tokio runtime the calls are awaited
/// in, and the object appears at its path only when [`finish`](RemoteWriter::finish)
/// returns. See [Atomicity](#atomicity) and [Memory](#memory) below.
///
/// Creating the writer makes no request. An object that ends within one part
/// ([`RemoteWriter::part_size`]) is sent with one PUT by `finish`; a larger one is a multipart
/// upload, started when the first part is full.
///
/// After an error, the upload is aborted and every later call fails. Dropped without `finish`
/// (or [`abort`](RemoteWriter::abort)), the writer aborts its upload from a task spawned on
/// the runtime (best effort: a runtime that is shutting down may not run it); await
/// [`abort`](RemoteWriter::abort) to know it was done. A [`write_all`](RemoteWriter::write_all)
/// future dropped before it completes may have taken some of its bytes: abort the writer then.
///
/// The calls need a tokio runtime (the store's HTTP client does too). For code that is not
/// async, [`BlockingRemoteWriter`], a [`Write`].
///
/// # Atomicity
///
/// An object is visible at its path only once it is complete: bytes are buffered up to one
/// part ([`RemoteOptions::part_size`], at least 5 MiB); an object that ends within its first
/// part is sent with one PUT at `finish`, a larger one as a multipart upload whose parts the
/// store keeps out of sight until `finish` completes it. Readers see the old object (or none)
/// until then, and the whole new one after. On an error, an explicit `abort`, or a writer
/// dropped without `finish`, the upload is aborted (best effort: one more request, which can
/// fail too, for instance if the server is gone; a bucket lifecycle rule that aborts
/// incomplete multipart uploads after a day is the backstop for those). Nothing is ever
/// written at the path then. The parts in flight are cancelled, and their requests ended,
/// before the abort is sent; a part the server was still storing at that moment may, AWS
/// warns, outlive the abort, which the lifecycle rule covers too.
///
/// # Memory
///
/// A writer holds one part being filled and at most [`RemoteOptions::concurrency`] parts
/// being uploaded: at most `part_size * (concurrency + 1)` bytes (with the defaults, 72 MiB),
/// the first part's buffer growing as the bytes arrive (a small object never allocates a
/// whole part), each later part's allocated whole when it starts. The buffer
/// of a full part is handed to its upload without a copy and freed when that part is
/// uploaded. [`RemoteWriter::write_array`] encodes the array in pieces of about 1 MiB in
/// addition. [`SpooledRemoteWriter`] holds the archive in a temporary file, not in memory,
/// and uploads it through the same buffers.
///
/// # Part sizes
///
/// S3 (and the stores that follow it) refuses parts smaller than 5 MiB, except the last, and
/// larger than 5 GiB, and accepts at most 10,000 parts per object. A writer's part size is
/// [`RemoteOptions::part_size`] clamped to 5 MiB..=5 GiB ([`RemoteWriter::part_size`] says
/// which), so an object written in steps can be at most 10,000 parts long (78 GiB with the
/// default 8 MiB parts: set a larger `part_size` for more). The writers that know the size
/// beforehand ([`RemoteNpy::write`], [`BlockingRemoteNpy::write`],
/// [`SpooledRemoteWriter::finish`]) raise the part size so that the object fits in 10,000
/// parts.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::remote::RemoteWriter;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = AmazonS3Builder::from_env().with_bucket_name("data").build()?;
/// let mut w = RemoteWriter::create(Arc::new(store), "runs/7/weights.npy".into());
/// let a = ndarray::Array2::<f32>::zeros((1000, 1000));
/// w.write_array(&a, &ndnpy::WriteOptions::new()).await?;
/// let done = w.finish().await?;
/// println!("{} bytes in {} parts", done.size, done.parts);
/// # Ok(()) }
/// ```
pub struct RemoteWriter {
    store: Arc<dyn ObjectStore>,
    path: Path,
    part_size: usize,
    concurrency: usize,
    /// The part being filled (at most `part_size` bytes).
    buf: Vec<u8>,
    /// The offset of `buf`'s first byte in the object (the bytes of the parts handed over).
    shipped: u64,
    /// Parts handed over.
    parts: u64,
    upload: Upload,
    /// The number of the first part that failed ([`Numbered`]), 0 if none.
    failed_part: Arc<AtomicU64>,
    /// An error ended the upload.
    failed: bool,
    /// The runtime the part uploads run on: the one the first upload was started in.
    runtime: Option<Handle>,
}

impl fmt::Debug for RemoteWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.upload {
            Upload::NotStarted => "not started",
            Upload::Creating(_) => "creating",
            Upload::Started(_) => "uploading",
            Upload::Closed => "closed",
        };
        f.debug_struct("RemoteWriter")
            .field("store", &self.store)
            .field("path", &self.path)
            .field("part_size", &self.part_size)
            .field("concurrency", &self.concurrency)
            .field("bytes_written", &self.bytes_written())
            .field("state", &state)
            .field("parts", &self.parts)
            .field("failed", &self.failed)
            .finish()
    }
}

impl RemoteWriter {
    /// A writer of the object at `path` in `store`, with [`RemoteOptions::new`] (parts of
    /// 8 MiB, 8 uploaded at once). No request is made until a part is full or
    /// [`finish`](RemoteWriter::finish) is called.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let mut w = ndnpy::remote::RemoteWriter::create(store, "notes.txt".into());
    /// w.write_all(b"hello").await?;
    /// w.finish().await?; // one PUT
    /// # Ok(()) }
    /// ```
    pub fn create(store: Arc<dyn ObjectStore>, path: Path) -> RemoteWriter {
        RemoteWriter::create_with_options(store, path, RemoteOptions::new())
    }

    /// Like [`RemoteWriter::create`], with other options: [`RemoteOptions::part_size`]
    /// (clamped to 5 MiB..=5 GiB, see [`RemoteWriter`]'s [part sizes](RemoteWriter#part-sizes)) and
    /// [`RemoteOptions::concurrency`]; the others are for reads.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) {
    /// let opts = ndnpy::remote::RemoteOptions::new().part_size(1 << 20).concurrency(4);
    /// let w = ndnpy::remote::RemoteWriter::create_with_options(store, "a.npy".into(), opts);
    /// assert_eq!(w.part_size(), 5 << 20); // S3's smallest part
    /// # }
    /// ```
    pub fn create_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> RemoteWriter {
        RemoteWriter::sized(store, path, &opts, None)
    }

    /// A writer of the object at `url` (`s3://bucket/key`, ...), the store built from the
    /// URL and `options` as [`RemoteNpy::open_url`] builds it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a URL that does not parse or names a
    /// store this build does not have.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), ndnpy::Error> {
    /// let mut w = ndnpy::remote::RemoteWriter::create_url(
    ///     "s3://data/a.bin",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::remote::RemoteOptions::new(),
    /// )?;
    /// w.write_all(&[1, 2, 3]).await?;
    /// w.finish().await?;
    /// # Ok(()) }
    /// ```
    pub fn create_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<RemoteWriter, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        Ok(RemoteWriter::create_with_options(store, path, opts))
    }

    /// A writer whose part size is large enough for an object of `size` bytes to fit in
    /// S3's 10,000 parts, if the size is known.
    fn sized(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: &RemoteOptions,
        size: Option<u64>,
    ) -> RemoteWriter {
        let max = usize::try_from(MAX_PART_SIZE).unwrap_or(usize::MAX);
        let needed = size.map_or(0, |size| {
            usize::try_from(size.div_ceil(MAX_PARTS)).unwrap_or(usize::MAX)
        });
        let part_size = opts.part_size.max(needed).clamp(MIN_PART_SIZE, max);
        RemoteWriter {
            store,
            path,
            part_size,
            concurrency: opts.concurrency.max(1),
            buf: Vec::new(),
            shipped: 0,
            parts: 0,
            upload: Upload::NotStarted,
            failed_part: Arc::default(),
            failed: false,
            runtime: None,
        }
    }

    /// The object's path in its store.
    ///
    /// ```no_run
    /// # fn run(w: ndnpy::remote::RemoteWriter) {
    /// println!("writing {}", w.path());
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size of the parts, in bytes: [`RemoteOptions::part_size`] clamped to
    /// 5 MiB..=5 GiB (and, for the writers that know the object's size, raised to fit it in
    /// 10,000 parts).
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) {
    /// let w = ndnpy::remote::RemoteWriter::create(store, "a.npy".into());
    /// assert_eq!(w.part_size(), 8 << 20);
    /// # }
    /// ```
    pub fn part_size(&self) -> usize {
        self.part_size
    }

    /// How many bytes were written so far (uploaded, being uploaded or buffered).
    ///
    /// ```no_run
    /// # async fn run(mut w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// w.write_all(&[0; 100]).await?;
    /// assert_eq!(w.bytes_written(), 100);
    /// # Ok(()) }
    /// ```
    pub fn bytes_written(&self) -> u64 {
        self.shipped + self.buf.len() as u64
    }

    /// Writes all of `bytes`: into the part being filled, uploading each full part (and
    /// waiting, if [`RemoteOptions::concurrency`] parts are being uploaded, for one of them to
    /// finish).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) for the store's errors (its
    /// [`object_store::Error`] is the source of the [`io_error`](Error::io_error)) and if an
    /// earlier error ended the upload; [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory)
    /// if a part's buffer cannot be allocated. The upload is aborted.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(mut w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// for line in ["a,b\n", "1,2\n"] {
    ///     w.write_all(line.as_bytes()).await?;
    /// }
    /// w.finish().await?;
    /// # Ok(()) }
    /// ```
    pub async fn write_all(&mut self, mut bytes: &[u8]) -> Result<(), Error> {
        self.check()?;
        loop {
            let taken = match self.push(bytes) {
                Ok(n) => n,
                Err(e) => return Err(self.fail(e).await),
            };
            bytes = &bytes[taken..];
            if bytes.is_empty() {
                return Ok(());
            }
            if let Err(e) = self.ship().await {
                return Err(self.fail(e).await);
            }
        }
    }

    /// Writes `array` as `.npy` data, the same bytes
    /// [`WriteNpyExt::write_npy_with_options`] writes (the byte order of `opts`), encoded in
    /// pieces of about 1 MiB, each written with [`RemoteWriter::write_all`]: the array is never
    /// copied whole. Usually the only thing written before [`finish`](RemoteWriter::finish);
    /// [`RemoteNpy::write`] does both.
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::write_all`]; [`ErrorKind::Usage`](crate::ErrorKind::Usage) if a
    /// value cannot be written in its dtype (the upload is aborted then too).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let a = ndarray::array![[1i64, 2], [3, 4]];
    /// let mut w = ndnpy::remote::RemoteWriter::create(store, "a.npy".into());
    /// w.write_array(&a.t(), &ndnpy::WriteOptions::new()).await?; // Fortran order
    /// w.finish().await?;
    /// # Ok(()) }
    /// ```
    pub async fn write_array<A, D>(
        &mut self,
        array: &ArrayRef<A, D>,
        opts: &WriteOptions,
    ) -> Result<(), Error>
    where
        A: WritableElement,
        D: Dimension,
    {
        self.check()?;
        // As encode::write_with_dtype: the header, then the elements in C order of the array
        // or, for a Fortran-order array, of its transpose (whose C order is its memory
        // order).
        let fortran_order = fortran_order_of(array);
        let header = Header {
            dtype: A::dtype_of(array.iter()).with_byte_order(opts.byte_order),
            fortran_order,
            shape: array.shape().to_vec(),
        };
        let bytes = match header.to_bytes() {
            Ok(bytes) => bytes,
            Err(e) => return Err(self.fail(e).await),
        };
        self.write_all(&bytes).await?;
        let view = if fortran_order {
            array.t().into_dyn()
        } else {
            array.view().into_dyn()
        };
        let itemsize = header.dtype.itemsize().max(1);
        let pieces = CPieces::new(view, (ENCODE_CHUNK / itemsize).max(1));
        let mut chunk = Vec::new();
        let mut done = 0;
        for piece in pieces {
            let len = piece.len();
            if let Err(e) = A::write_view(piece, &mut chunk, &header.dtype) {
                return Err(self.fail(e.after_elements(done)).await);
            }
            done += len;
            if chunk.len() >= ENCODE_CHUNK {
                self.write_all(&chunk).await?;
                chunk.clear();
            }
        }
        self.write_all(&chunk).await
    }

    /// Uploads what is buffered and completes the upload (or, for an object that ended within
    /// one part, sends it with one PUT): the object is then at its path, whole.
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::write_all`]. The upload is aborted: the path keeps whatever it held
    /// before.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(mut w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// let done = w.finish().await?;
    /// println!("{} bytes, ETag {:?}", done.size, done.e_tag);
    /// # Ok(()) }
    /// ```
    pub async fn finish(mut self) -> Result<Uploaded, Error> {
        self.finish_mut().await
    }

    /// Aborts the upload, if one was started, and waits for the store to confirm: nothing is
    /// written at the path.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the store refuses or cannot be reached (it
    /// may then keep the parts uploaded so far, out of sight, until a lifecycle rule removes
    /// them).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(mut w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// w.write_all(&[0; 100 << 20]).await?;
    /// w.abort().await?; // changed my mind
    /// # Ok(()) }
    /// ```
    pub async fn abort(mut self) -> Result<(), Error> {
        self.failed = true;
        self.buf = Vec::new();
        abort(std::mem::replace(&mut self.upload, Upload::Closed))
            .await
            .map_err(|e| upload_error(&self.path, Doing::Abort, e))
    }

    /// [`RemoteWriter::finish`] on a borrowed writer, which is closed after.
    async fn finish_mut(&mut self) -> Result<Uploaded, Error> {
        self.check()?;
        match self.complete().await {
            Ok(done) => Ok(done),
            Err(e) => Err(self.fail(e).await),
        }
    }

    async fn complete(&mut self) -> Result<Uploaded, Error> {
        let size = self.bytes_written();
        let result = if let Upload::NotStarted = self.upload {
            let data = std::mem::take(&mut self.buf);
            self.upload = Upload::Closed;
            let put = self
                .store
                .put_opts(&self.path, data.into(), PutOptions::default());
            put.await
                .map_err(|e| upload_error(&self.path, Doing::Put { size }, e))?
        } else {
            if !self.buf.is_empty() {
                self.ship().await?;
            }
            self.wait_for_capacity(0).await?;
            let Upload::Started(parts) = std::mem::replace(&mut self.upload, Upload::Closed) else {
                unreachable!("the upload was started");
            };
            // Uploads the last part, held in its buffer, and completes the upload (aborting
            // it on an error).
            let finished = parts.finish().await;
            let doing = Doing::Complete {
                parts: self.parts,
                size,
            };
            finished.map_err(|e| self.upload_failed(e, doing))?
        };
        Ok(Uploaded {
            path: self.path.clone(),
            size,
            e_tag: result.e_tag,
            version: result.version,
            parts: self.parts,
        })
    }

    /// The error of a writer an earlier error (or abort) ended.
    fn check(&self) -> Result<(), Error> {
        if self.failed || matches!(self.upload, Upload::Closed) {
            return Err(Error::from(io::Error::other(format!(
                "the upload of {} was ended by an earlier error or abort; nothing was written",
                quoted(&self.path)
            ))));
        }
        Ok(())
    }

    /// Ends the upload after `e`: aborts it (best effort) and returns `e`.
    async fn fail(&mut self, e: Error) -> Error {
        self.failed = true;
        self.buf = Vec::new();
        let _ = abort(std::mem::replace(&mut self.upload, Upload::Closed)).await;
        e
    }

    /// Appends what fits of `bytes` to the part being filled; 0 if it is full (and `bytes`
    /// is not empty). The first part's buffer grows with what arrives, up to the part size (a
    /// small object never allocates a whole part); once a part was handed over, the object is
    /// a multipart upload and each next part is allocated whole, without regrowing.
    fn push(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        let n = bytes.len().min(self.part_size - self.buf.len());
        if n > self.buf.capacity() - self.buf.len() {
            // Doubling, capped at the part size; at least what is needed now.
            let doubled = (self.buf.len() + n).max(self.buf.capacity().saturating_mul(2));
            let want = if self.shipped > 0 {
                self.part_size
            } else {
                doubled.min(self.part_size)
            };
            self.buf
                .try_reserve_exact(want - self.buf.len())
                .map_err(|_| out_of_memory(want))?;
        }
        self.buf.extend_from_slice(&bytes[..n]);
        Ok(n)
    }

    /// Hands the part being filled to the store as the next part: starts the multipart
    /// upload if this is the first, and first waits for a slot if
    /// [`RemoteOptions::concurrency`] parts are in flight. Each await leaves the state
    /// whole, so a dropped future loses nothing that `Drop` cannot abort.
    async fn ship(&mut self) -> Result<(), Error> {
        let runtime = self.runtime()?;
        let len = self.buf.len() as u64;
        if let Upload::NotStarted = self.upload {
            // The first part goes with the upload's creation, in a task of the runtime: a
            // dropped future leaves the task's handle, which an abort awaits.
            let (store, path) = (Arc::clone(&self.store), self.path.clone());
            let failed = Arc::clone(&self.failed_part);
            let (first, part_size) = (std::mem::take(&mut self.buf), self.part_size);
            let handle = runtime.clone();
            self.upload = Upload::Creating(runtime.spawn(async move {
                let upload = store
                    .put_multipart_opts(&path, PutMultipartOptions::default())
                    .await?;
                let inner = Numbered {
                    inner: Some(upload),
                    parts: 0,
                    failed,
                    runtime: handle,
                };
                let mut parts = WriteMultipart::new_with_chunk_size(Box::new(inner), part_size);
                parts.put(first.into());
                Ok(parts)
            }));
        } else {
            // Finished parts are collected first, so that an error is reported early, then
            // a slot is waited for: at most `concurrency` parts in flight.
            self.wait_for_capacity(self.concurrency).await?;
            let Upload::Started(parts) = &mut self.upload else {
                unreachable!("the upload was just started");
            };
            // WriteMultipart spawns the part's task on the current runtime: this writer's.
            let _entered = runtime.enter();
            parts.put(std::mem::take(&mut self.buf).into());
        }
        self.parts += 1;
        self.shipped += len;
        Ok(())
    }

    /// Waits for the multipart upload to be created, if it is being.
    async fn started(&mut self) -> Result<(), Error> {
        if let Upload::Creating(creating) = &mut self.upload {
            let created = creating.await.map_err(object_store::Error::from);
            match created.and_then(|created| created) {
                Ok(parts) => self.upload = Upload::Started(parts),
                Err(e) => {
                    self.upload = Upload::Closed;
                    return Err(upload_error(&self.path, Doing::Create, e));
                }
            }
        }
        Ok(())
    }

    /// Waits until fewer than `max` parts are in flight (0: until none is), after the
    /// upload's creation if it is being created.
    async fn wait_for_capacity(&mut self, max: usize) -> Result<(), Error> {
        self.started().await?;
        if let Upload::Started(parts) = &mut self.upload {
            let waited = parts.wait_for_capacity(max).await;
            waited.map_err(|e| self.upload_failed(e, Doing::Parts))?;
        }
        Ok(())
    }

    /// The error `e` of the upload `doing` something, or of the part that failed, if one did
    /// ([`Numbered`] records which): its number and bytes.
    fn upload_failed(&self, e: object_store::Error, doing: Doing) -> Error {
        let doing = match self.failed_part.load(Ordering::SeqCst) {
            0 => doing,
            number => {
                let start = (number - 1) * self.part_size as u64;
                let end = (start + self.part_size as u64).min(self.shipped);
                Doing::Part {
                    number,
                    range: start..end,
                }
            }
        };
        upload_error(&self.path, doing, e)
    }

    /// The runtime the uploads run on: the one this call runs in, the first time.
    fn runtime(&mut self) -> Result<Handle, Error> {
        if let Some(handle) = &self.runtime {
            return Ok(handle.clone());
        }
        let handle = Handle::try_current().map_err(|_| {
            io::Error::other(
                "RemoteWriter needs a tokio runtime (its parts are uploaded by tasks of the \
                 runtime it is awaited in); outside one, use BlockingRemoteWriter",
            )
        })?;
        self.runtime = Some(handle.clone());
        Ok(handle)
    }
}

impl Drop for RemoteWriter {
    fn drop(&mut self) {
        let upload = std::mem::replace(&mut self.upload, Upload::Closed);
        if let (Upload::Creating(_) | Upload::Started(_), Some(runtime)) = (&upload, &self.runtime)
        {
            // Best effort: its result has nowhere to go.
            runtime.spawn(abort(upload));
        }
    }
}

/// An object's pieces of at most `max` elements (or one element, if larger) in C order, as
/// views: the whole view if it is small enough, else runs of whole rows (subviews along the
/// first axis), else each row split the same way.
struct CPieces<'a, A> {
    first: Option<ArrayViewD<'a, A>>,
    /// Views being split, each with the next row to visit.
    stack: Vec<(ArrayViewD<'a, A>, usize)>,
    max: usize,
}

impl<'a, A> CPieces<'a, A> {
    fn new(view: ArrayViewD<'a, A>, max: usize) -> CPieces<'a, A> {
        CPieces {
            first: Some(view),
            stack: Vec::new(),
            max: max.max(1),
        }
    }
}

impl<'a, A> Iterator for CPieces<'a, A> {
    type Item = ArrayViewD<'a, A>;

    fn next(&mut self) -> Option<ArrayViewD<'a, A>> {
        if let Some(view) = self.first.take() {
            if view.len() <= self.max || view.ndim() == 0 {
                return Some(view);
            }
            self.stack.push((view, 0));
        }
        loop {
            let (view, next) = self.stack.last_mut()?;
            let rows = view.len_of(Axis(0));
            if *next >= rows {
                self.stack.pop();
                continue;
            }
            // Longer than `max` and not empty, so every row has elements.
            let row_len = view.len() / rows;
            if row_len <= self.max {
                let take = (self.max / row_len).min(rows - *next);
                let piece = view
                    .clone()
                    .slice_axis_move(Axis(0), Slice::from(*next..*next + take));
                *next += take;
                return Some(piece);
            }
            // A row longer than `max` has at least two elements: one dimension or more.
            let row = view.clone().index_axis_move(Axis(0), *next);
            *next += 1;
            self.stack.push((row, 0));
        }
    }
}

/// An object of a store being written from code that is not async: a [`Write`] whose bytes
/// are buffered into parts of [`RemoteOptions::part_size`] (at least 5 MiB) and uploaded
/// [`RemoteOptions::concurrency`] at once by this crate's runtime (one tokio worker thread,
/// as for [`BlockingRemoteNpy`]) while the caller goes on writing. The object appears at its
/// path, whole, only when [`finish`](BlockingRemoteWriter::finish) returns; see the
/// [atomicity](RemoteWriter#atomicity) and [memory](RemoteWriter#memory) of
/// [`RemoteWriter`], which apply here too.
///
/// Every writer works over it: [`WriteNpyExt::write_npy`], a streaming
/// [`NpyWriter`](crate::NpyWriter), `serde_json::to_writer`... A `write` call returns once its
/// bytes are buffered; it blocks only to hand a full part over while `concurrency` parts are
/// in flight. [`flush`](Write::flush) waits for the parts in flight (the part being filled
/// stays buffered: S3 parts but the last must be 5 MiB); it is no durability point, since
/// nothing is visible before `finish`.
///
/// After an error the upload is aborted and every later call fails. Dropped without `finish`,
/// the writer aborts its upload before `drop` returns (best effort: one request, waited for).
///
/// # Examples
///
/// ```no_run
/// use std::io::Write;
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::{remote::BlockingRemoteWriter, WriteNpyExt};
///
/// let store = AmazonS3Builder::from_env().with_bucket_name("data").build()?;
/// let mut w = BlockingRemoteWriter::create(Arc::new(store), "a.npy".into());
/// ndarray::Array2::<f64>::eye(3000).write_npy(&mut w)?;
/// let done = w.finish()?;
/// println!("{} bytes in {} parts", done.size, done.parts);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Rows streamed by an [`NpyWriter`](crate::NpyWriter), never all in memory:
///
/// ```no_run
/// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
/// let w = ndnpy::remote::BlockingRemoteWriter::create(store, "rows.npy".into());
/// let mut rows = ndnpy::NpyWriter::<_, f32>::new(w, (1_000_000, 64))?;
/// for i in 0..1_000_000 {
///     rows.write_block(&ndarray::Array1::from_elem(64, i as f32))?;
/// }
/// rows.finish()?.finish()?; // the NpyWriter, then the upload
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct BlockingRemoteWriter {
    inner: RemoteWriter,
}

impl BlockingRemoteWriter {
    /// [`RemoteWriter::create`], for blocking writes.
    ///
    /// # Examples
    ///
    /// See [`BlockingRemoteWriter`].
    pub fn create(store: Arc<dyn ObjectStore>, path: Path) -> BlockingRemoteWriter {
        BlockingRemoteWriter::create_with_options(store, path, RemoteOptions::new())
    }

    /// [`RemoteWriter::create_with_options`], for blocking writes.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) {
    /// let opts = ndnpy::remote::RemoteOptions::new().part_size(64 << 20).concurrency(4);
    /// let w = ndnpy::remote::BlockingRemoteWriter::create_with_options(store, "big.npy".into(), opts);
    /// # }
    /// ```
    pub fn create_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> BlockingRemoteWriter {
        BlockingRemoteWriter::sized(store, path, &opts, None)
    }

    /// [`RemoteWriter::create_url`], for blocking writes.
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::create_url`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let w = ndnpy::remote::BlockingRemoteWriter::create_url(
    ///     "s3://data/a.npy",
    ///     [("aws_endpoint", "http://127.0.0.1:9000"), ("aws_allow_http", "true")],
    ///     ndnpy::remote::RemoteOptions::new(),
    /// )?;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn create_url<I, K, V>(
        url: &str,
        options: I,
        opts: RemoteOptions,
    ) -> Result<BlockingRemoteWriter, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        Ok(BlockingRemoteWriter::create_with_options(store, path, opts))
    }

    fn sized(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: &RemoteOptions,
        size: Option<u64>,
    ) -> BlockingRemoteWriter {
        BlockingRemoteWriter {
            inner: RemoteWriter::sized(store, path, opts, size),
        }
    }

    /// The async writer, for [`RemoteWriter::path`], [`RemoteWriter::part_size`] and
    /// [`RemoteWriter::bytes_written`].
    ///
    /// ```no_run
    /// # fn run(w: ndnpy::remote::BlockingRemoteWriter) {
    /// println!("{} bytes so far", w.remote().bytes_written());
    /// # }
    /// ```
    pub fn remote(&self) -> &RemoteWriter {
        &self.inner
    }

    /// [`RemoteWriter::finish`], blocking: uploads what is buffered, waits for every part,
    /// and completes the upload (or sends a small object with one PUT).
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::finish`]; [`ErrorKind::Io`](crate::ErrorKind::Io) if the runtime
    /// cannot be started.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(mut w: ndnpy::remote::BlockingRemoteWriter) -> Result<(), ndnpy::Error> {
    /// let done = w.finish()?;
    /// println!("ETag {:?}", done.e_tag);
    /// # Ok(()) }
    /// ```
    pub fn finish(mut self) -> Result<Uploaded, Error> {
        block_on(self.inner.finish_mut())?
    }

    /// [`RemoteWriter::abort`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::abort`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(w: ndnpy::remote::BlockingRemoteWriter) -> Result<(), ndnpy::Error> {
    /// w.abort()?;
    /// # Ok(()) }
    /// ```
    pub fn abort(mut self) -> Result<(), Error> {
        let upload = std::mem::replace(&mut self.inner.upload, Upload::Closed);
        block_on(abort(upload))?.map_err(|e| upload_error(&self.inner.path, Doing::Abort, e))
    }

    /// Ends the upload after `e` (see [`RemoteWriter::fail`]), blocking.
    fn fail(&mut self, e: Error) -> Error {
        block_on(self.inner.fail(e)).unwrap_or_else(|runtime| runtime)
    }
}

impl Write for BlockingRemoteWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.check()?;
        if buf.is_empty() {
            return Ok(0);
        }
        let taken = match self.inner.push(buf) {
            Ok(n) => n,
            Err(e) => return Err(self.fail(e).into()),
        };
        if taken > 0 {
            return Ok(taken);
        }
        // The part is full and more bytes come: hand it over.
        let inner = &mut self.inner;
        let taken = block_on(async {
            let shipped = inner.ship().await;
            match shipped.and_then(|()| inner.push(buf)) {
                Ok(n) => Ok(n),
                Err(e) => Err(inner.fail(e).await),
            }
        })??;
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.check()?;
        let inner = &mut self.inner;
        block_on(async {
            match inner.wait_for_capacity(0).await {
                Ok(()) => Ok(()),
                Err(e) => Err(inner.fail(e).await),
            }
        })??;
        Ok(())
    }
}

impl Drop for BlockingRemoteWriter {
    fn drop(&mut self) {
        let upload = std::mem::replace(&mut self.inner.upload, Upload::Closed);
        if let Upload::Creating(_) | Upload::Started(_) = upload {
            // Best effort, and waited for: the inner writer's drop then has nothing to do.
            let _ = block_on(abort(upload));
        }
    }
}

/// A [`Write`] + [`Seek`] for writers that need to seek, such as
/// [`NpzWriter`](crate::NpzWriter) (a ZIP archive's headers are patched after each member's
/// data): the bytes go to a temporary file, and [`finish`](SpooledRemoteWriter::finish)
/// uploads the file as one object (in parts, as [`BlockingRemoteWriter`] does). Blocking.
///
/// The temporary file is in [`std::env::temp_dir`] or the directory given to
/// [`create_in`](SpooledRemoteWriter::create_in), and needs room for the whole object. On
/// Linux it never has a name (`O_TMPFILE`); elsewhere on Unix its name is removed as soon as
/// it is open; on Windows it is opened to be deleted when closed (`FILE_FLAG_DELETE_ON_CLOSE`);
/// elsewhere it is removed when the writer is dropped. So nothing is left on disk, even by a
/// killed process on Unix and Windows. Memory: a 8 KiB write buffer until `finish`,
/// then the part buffers of [`BlockingRemoteWriter`].
///
/// As for the other writers, the object appears at its path, whole, only when `finish`
/// returns; dropped before, the writer uploads nothing at all.
///
/// # Examples
///
/// ```no_run
/// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
/// use ndnpy::{NpzWriter, remote::SpooledRemoteWriter};
/// let spool = SpooledRemoteWriter::create(store, "arrays.npz".into())?;
/// let mut npz = NpzWriter::new_compressed(spool);
/// npz.add_array("a", &ndarray::array![1.0f64, 2.0])?;
/// npz.add_array("b", &ndarray::array![[1u8, 2], [3, 4]])?;
/// let done = npz.finish()?.finish()?; // the archive, then the upload
/// println!("{} bytes", done.size);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SpooledRemoteWriter {
    file: BufWriter<File>,
    /// The file's name, on systems where it cannot be removed while open.
    #[cfg_attr(any(unix, windows), allow(dead_code))]
    name: Option<std::path::PathBuf>,
    store: Arc<dyn ObjectStore>,
    path: Path,
    opts: RemoteOptions,
}

impl SpooledRemoteWriter {
    /// A writer of the object at `path` in `store`, spooled in [`std::env::temp_dir`], with
    /// [`RemoteOptions::new`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) if the temporary file cannot be created.
    ///
    /// # Examples
    ///
    /// See [`SpooledRemoteWriter`].
    pub fn create(store: Arc<dyn ObjectStore>, path: Path) -> Result<SpooledRemoteWriter, Error> {
        SpooledRemoteWriter::create_in(store, path, RemoteOptions::new(), std::env::temp_dir())
    }

    /// Like [`SpooledRemoteWriter::create`], with other options
    /// ([`RemoteOptions::part_size`] and [`RemoteOptions::concurrency`] of the upload), the
    /// temporary file in `dir`.
    ///
    /// # Errors
    ///
    /// As [`SpooledRemoteWriter::create`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().concurrency(16);
    /// let spool = ndnpy::remote::SpooledRemoteWriter::create_in(store, "a.npz".into(), opts, "/scratch")?;
    /// # Ok(()) }
    /// ```
    pub fn create_in<P: AsRef<std::path::Path>>(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
        dir: P,
    ) -> Result<SpooledRemoteWriter, Error> {
        let (file, name) = spool_file(dir.as_ref())?;
        Ok(SpooledRemoteWriter {
            file: BufWriter::new(file),
            name,
            store,
            path,
            opts,
        })
    }

    /// Uploads the file as the object (one PUT if it fits in a part, else a multipart
    /// upload, with parts large enough for 10,000 to hold it) and removes it: the object is
    /// then at its path, whole.
    ///
    /// # Errors
    ///
    /// As [`BlockingRemoteWriter::finish`]; [`ErrorKind::Io`](crate::ErrorKind::Io) if the
    /// file cannot be read. Nothing is written at the path then.
    ///
    /// # Examples
    ///
    /// See [`SpooledRemoteWriter`].
    pub fn finish(mut self) -> Result<Uploaded, Error> {
        self.file.flush()?;
        let file = self.file.get_mut();
        let size = file.seek(SeekFrom::End(0))?;
        file.seek(SeekFrom::Start(0))?;
        let mut w = BlockingRemoteWriter::sized(
            Arc::clone(&self.store),
            self.path.clone(),
            &self.opts,
            Some(size),
        );
        let copied = io::copy(&mut Read::by_ref(file).take(size), &mut w)?;
        if copied != size {
            return Err(Error::from(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the spool file of {size} bytes gave {copied}"),
            )));
        }
        w.finish()
    }
}

impl Write for SpooledRemoteWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for SpooledRemoteWriter {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        self.file.stream_position()
    }
}

#[cfg(not(any(unix, windows)))]
impl Drop for SpooledRemoteWriter {
    fn drop(&mut self) {
        if let Some(name) = &self.name {
            let _ = std::fs::remove_file(name);
        }
    }
}

/// A new temporary file in `dir` for a spool, readable and writable by this user only, and
/// the name it keeps (only where a name cannot be removed while the file is open).
fn spool_file(dir: &std::path::Path) -> io::Result<(File, Option<std::path::PathBuf>)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Any failure (no O_TMPFILE on this filesystem) falls back to a named file, whose
        // creation reports the real error if there is one.
        if let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(dir)
        {
            return Ok((file, None));
        }
    }
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    // FILE_FLAG_DELETE_ON_CLOSE: Windows removes the file when its last handle closes.
    #[cfg(windows)]
    std::os::windows::fs::OpenOptionsExt::custom_flags(&mut options, 0x0400_0000);
    let mut attempts = 0;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = dir.join(format!(
            ".ndnpy-spool-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match options.open(&name) {
            Ok(file) => {
                if cfg!(unix) {
                    // Open files outlive their names on Unix: nothing is left behind.
                    std::fs::remove_file(&name)?;
                    return Ok((file, None));
                }
                if cfg!(windows) {
                    return Ok((file, None));
                }
                return Ok((file, Some(name)));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => {
                attempts += 1;
            }
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot create a temporary file in {}: {e}",
                        crate::error::excerpt(format_args!("{:?}", dir))
                    ),
                ))
            }
        }
    }
}

impl RemoteNpy {
    /// Writes `array` as the `.npy` object at `path` in `store`, the same bytes as
    /// [`WriteNpyExt::write_npy`] (native byte order), with [`RemoteOptions::new`]: one PUT
    /// for an object of up to 8 MiB, else a multipart upload of 8 MiB parts, 8 at once. The
    /// object appears whole or not at all; see [`RemoteWriter`].
    ///
    /// # Errors
    ///
    /// As [`RemoteWriter::write_array`] and [`RemoteWriter::finish`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let a = ndarray::Array2::<f32>::zeros((4096, 4096)); // 64 MiB
    /// let done = ndnpy::remote::RemoteNpy::write(store, "zeros.npy".into(), &a).await?;
    /// assert_eq!(done.parts, 9);
    /// # Ok(()) }
    /// ```
    pub async fn write<A, D>(
        store: Arc<dyn ObjectStore>,
        path: Path,
        array: &ArrayRef<A, D>,
    ) -> Result<Uploaded, Error>
    where
        A: WritableElement,
        D: Dimension,
    {
        RemoteNpy::write_with_options(
            store,
            path,
            array,
            &WriteOptions::new(),
            RemoteOptions::new(),
        )
        .await
    }

    /// Like [`RemoteNpy::write`], with the byte order of `write` and the part size and
    /// concurrency of `opts` (the part size raised, if needed, for the object to fit in
    /// S3's 10,000 parts).
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::write`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// use ndnpy::{dtype::ByteOrder, remote::RemoteNpy, remote::RemoteOptions, WriteOptions};
    /// let a = ndarray::array![1u32, 2, 3];
    /// let be = WriteOptions::new().byte_order(ByteOrder::Big);
    /// RemoteNpy::write_with_options(store, "be.npy".into(), &a, &be, RemoteOptions::new()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn write_with_options<A, D>(
        store: Arc<dyn ObjectStore>,
        path: Path,
        array: &ArrayRef<A, D>,
        write: &WriteOptions,
        opts: RemoteOptions,
    ) -> Result<Uploaded, Error>
    where
        A: WritableElement,
        D: Dimension,
    {
        let size = array.npy_len(write);
        let mut w = RemoteWriter::sized(store, path, &opts, size);
        w.write_array(array, write).await?;
        w.finish().await
    }
}

impl BlockingRemoteNpy {
    /// [`RemoteNpy::write`], blocking, for any array [`WriteNpyExt`] writes (a
    /// [`DynArray`](crate::DynArray) too): through a [`BlockingRemoteWriter`], the array's
    /// bytes going straight from its memory into the parts.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::write`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let a = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
    /// ndnpy::remote::BlockingRemoteNpy::write(store, "a.npy".into(), &a)?;
    /// # Ok(()) }
    /// ```
    pub fn write<T: WriteNpyExt + ?Sized>(
        store: Arc<dyn ObjectStore>,
        path: Path,
        array: &T,
    ) -> Result<Uploaded, Error> {
        BlockingRemoteNpy::write_with_options(
            store,
            path,
            array,
            &WriteOptions::new(),
            RemoteOptions::new(),
        )
    }

    /// [`RemoteNpy::write_with_options`], blocking.
    ///
    /// # Errors
    ///
    /// As [`RemoteNpy::write`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().part_size(32 << 20).concurrency(4);
    /// let a = ndarray::Array1::<f64>::zeros(100_000_000);
    /// ndnpy::remote::BlockingRemoteNpy::write_with_options(
    ///     store, "big.npy".into(), &a, &ndnpy::WriteOptions::new(), opts)?;
    /// # Ok(()) }
    /// ```
    pub fn write_with_options<T: WriteNpyExt + ?Sized>(
        store: Arc<dyn ObjectStore>,
        path: Path,
        array: &T,
        write: &WriteOptions,
        opts: RemoteOptions,
    ) -> Result<Uploaded, Error> {
        let mut w = BlockingRemoteWriter::sized(store, path, &opts, array.npy_len(write));
        array.write_npy_with_options(&mut w, write)?;
        w.finish()
    }
}

/// The buffer of a part that cannot be allocated.
fn out_of_memory(bytes: usize) -> Error {
    Error::from(io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("cannot allocate {bytes} bytes for a part of an upload"),
    ))
}

/// The store's error `source` in an upload of `path`, which was `doing` something; the
/// upload is aborted (unless `doing` is the abort).
fn upload_error(path: &Path, doing: Doing, source: object_store::Error) -> Error {
    let path = quoted(path);
    let after = match doing {
        Doing::Abort => "",
        _ => "; nothing was written at the path (the upload is aborted, best effort)",
    };
    let doing = match doing {
        Doing::Put { size } => format!("cannot upload {path} ({size} bytes, one PUT)"),
        Doing::Create => format!("cannot start the multipart upload of {path}"),
        Doing::Part { number, range } => format!(
            "cannot upload part {number} (bytes {}..{}) of {path}",
            range.start, range.end
        ),
        Doing::Parts => format!("cannot upload the parts of {path}"),
        Doing::Complete { parts, size } => {
            format!("cannot complete the upload of {path} ({parts} parts, {size} bytes)")
        }
        Doing::Abort => format!("cannot abort the upload of {path}"),
    };
    request_error(doing, after, source)
}

/// What a failed request of an upload was for.
enum Doing {
    Put {
        size: u64,
    },
    Create,
    Part {
        number: u64,
        range: Range<u64>,
    },
    /// A part whose number is not known (its task panicked or was cancelled).
    Parts,
    Complete {
        parts: u64,
        size: u64,
    },
    Abort,
}

#[cfg(test)]
mod tests {
    use super::CPieces;
    use ndarray::{s, Array, ArrayViewD, IxDyn};

    /// The pieces' elements, concatenated, in order.
    fn flat(pieces: CPieces<'_, i32>) -> (Vec<i32>, Vec<usize>) {
        let mut all = Vec::new();
        let mut lens = Vec::new();
        for p in pieces {
            lens.push(p.len());
            all.extend(p.iter().copied());
        }
        (all, lens)
    }

    #[test]
    fn pieces_are_c_order_and_bounded() {
        let a = Array::from_shape_fn(IxDyn(&[3, 4, 5]), |i| {
            (i[0] * 100 + i[1] * 10 + i[2]) as i32
        });
        let views: Vec<ArrayViewD<'_, i32>> = vec![
            a.view(),
            a.t().into_dyn(),
            a.slice(s![.., ..;-1, 1..]).into_dyn(),
            a.view().permuted_axes(vec![1, 2, 0]),
        ];
        for v in views {
            let expected: Vec<i32> = v.iter().copied().collect();
            for max in [1, 2, 3, 5, 7, 20, 21, 59, 60, 1000] {
                let (all, lens) = flat(CPieces::new(v.clone(), max));
                assert_eq!(all, expected, "max {max}");
                assert!(
                    lens.iter().all(|&n| n <= max && n > 0),
                    "max {max}: {lens:?}"
                );
            }
        }
        // 0-d and empty arrays are one piece.
        let zero = Array::from_elem(IxDyn(&[]), 7);
        assert_eq!(flat(CPieces::new(zero.view(), 1)), (vec![7], vec![1]));
        let empty = Array::<i32, _>::zeros(IxDyn(&[4, 0, 3]));
        assert_eq!(flat(CPieces::new(empty.view(), 1)), (vec![], vec![0]));
    }
}
