//! Writing objects: [`RemoteWriter`] and [`SpooledRemoteWriter`]. The parts go through
//! object_store's [`WriteMultipart`]; ours are the first part (held back so that a small
//! object is one PUT), the back pressure, the aborts, and the spool.

use super::{block_on, parse_url, quoted, request_error, RemoteOptions};
use crate::base::error::Error;
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

/// The smallest part S3 accepts (all parts but the last).
const MIN_PART_SIZE: usize = 5 << 20;
/// The largest part S3 accepts.
const MAX_PART_SIZE: u64 = 5 << 30;
/// The most parts S3 accepts in one upload.
const MAX_PARTS: u64 = 10_000;

/// What a completed write made: the object's path, size, ETag and version.
///
/// ```no_run
/// # fn run(w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
/// let done = w.finish()?;
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
    /// Parts are being uploaded by object_store's writer.
    Started(WriteMultipart),
    /// Completed, aborted or failed: nothing left to do.
    Closed,
}

/// Aborts the upload `upload` holds, if any: its parts in flight are cancelled, then the
/// store is told to abort.
async fn abort(upload: Upload) -> object_store::Result<()> {
    match upload {
        Upload::Started(parts) => parts.abort().await,
        Upload::NotStarted | Upload::Closed => Ok(()),
    }
}

/// A multipart upload that records the number of its first part to fail, for the error
/// message ([`WriteMultipart`] reports only the store's error).
#[derive(Debug)]
struct Numbered {
    inner: Box<dyn MultipartUpload>,
    parts: u64,
    /// The first failed part's number; 0 while none has.
    failed: Arc<AtomicU64>,
}

#[async_trait::async_trait]
impl MultipartUpload for Numbered {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        self.parts += 1;
        let (number, failed) = (self.parts, Arc::clone(&self.failed));
        let part = self.inner.put_part(data);
        Box::pin(async move {
            let result = part.await;
            if result.is_err() {
                let _ = failed.compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst);
            }
            result
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.inner.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.inner.abort().await
    }
}

/// An object of a store being written: a [`Write`] whose bytes are buffered into parts of
/// [`RemoteOptions::part_size`] (at least 5 MiB) and uploaded [`RemoteOptions::concurrency`]
/// at once by this crate's runtime (one tokio worker thread, as for [`RemoteFile`](super::RemoteFile)'s reads)
/// while the caller goes on writing. The object appears at its path, whole, only when
/// [`finish`](RemoteWriter::finish) returns. See [Atomicity](#atomicity) and
/// [Memory](#memory) below.
///
/// Every writer works over it: `WriteNpyExt::write_npy`, a
/// streaming `NpyWriter`, `serde_json::to_writer`... Creating it makes no
/// request. A `write` call returns once its bytes are buffered; it blocks only to hand a full
/// part over while `concurrency` parts are in flight. [`flush`](Write::flush) waits for the
/// parts in flight (the part being filled stays buffered: S3 parts but the last must be
/// 5 MiB); it is no durability point, since nothing is visible before `finish`. In async
/// code, write on the runtime's blocking pool (`tokio::task::spawn_blocking`).
///
/// After an error the upload is aborted and every later call fails. Dropped without `finish`
/// (or [`abort`](RemoteWriter::abort)), the writer aborts its upload before `drop` returns
/// (best effort: one request, waited for).
///
/// # Atomicity
///
/// An object that ends within its first part is sent with one PUT at `finish`, a larger one
/// as a multipart upload whose parts the store keeps out of sight until `finish` completes
/// it: readers see the old object (or none) until then, and the whole new one after. On an
/// error, an `abort`, or a drop without `finish`, the parts in flight are cancelled and the
/// upload is aborted, so nothing is written at the path (best effort: the abort is one more
/// request, which can fail too; a bucket lifecycle rule that aborts incomplete uploads after
/// a day is the backstop for those, and for a part AWS was still storing as it aborted).
///
/// # Memory
///
/// One part being filled and at most `concurrency` being uploaded: at most
/// `part_size * (concurrency + 1)` bytes (72 MiB with the defaults). The first part's buffer
/// grows as bytes arrive (a small object never allocates a whole part); a full part's buffer
/// is handed to its upload without a copy.
///
/// # Part sizes
///
/// S3 refuses parts under 5 MiB (but the last) or over 5 GiB, and more than 10,000 parts. The
/// part size is [`RemoteOptions::part_size`] clamped to 5 MiB..=5 GiB
/// ([`RemoteWriter::part_size`]), so an object can be 10,000 parts long (78 GiB with 8 MiB
/// parts); [`SpooledRemoteWriter::finish`], which knows the size, raises it to fit.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::{remote::RemoteWriter, WriteNpyExt};
///
/// let store = AmazonS3Builder::from_env().with_bucket_name("data").build()?;
/// let mut w = RemoteWriter::create(Arc::new(store), "a.npy".into());
/// ndarray::Array2::<f64>::eye(3000).write_npy(&mut w)?;
/// let done = w.finish()?;
/// println!("{} bytes in {} parts", done.size, done.parts);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Rows streamed by an `NpyWriter`, never all in memory:
///
/// ```no_run
/// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
/// let w = ndnpy::remote::RemoteWriter::create(store, "rows.npy".into());
/// let mut rows = ndnpy::NpyWriter::<_, f32>::new(w, (1_000_000, 64))?;
/// for i in 0..1_000_000 {
///     rows.write_block(&ndarray::Array1::from_elem(64, i as f32))?;
/// }
/// rows.finish()?.finish()?; // the NpyWriter, then the upload
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
}

impl fmt::Debug for RemoteWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteWriter")
            .field("path", &self.path)
            .field("part_size", &self.part_size)
            .field("bytes_written", &self.bytes_written())
            .field("parts", &self.parts)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl RemoteWriter {
    /// A writer of the object at `path` in `store`, with [`RemoteOptions::new`] (parts of
    /// 8 MiB, 8 uploaded at once). No request is made until a part is full or
    /// [`finish`](RemoteWriter::finish) is called.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use object_store::{memory::InMemory, ObjectStore};
    /// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    /// let mut w = ndnpy::remote::RemoteWriter::create(Arc::clone(&store), "a.npy".into());
    /// ndnpy::WriteNpyExt::write_npy(&ndarray::array![1.5f64, 2.5], &mut w)?;
    /// let done = w.finish()?;
    /// assert_eq!((done.size, done.parts), (144, 0)); // under a part: one PUT
    /// let a: ndarray::Array1<f64> =
    ///     ndnpy::ReadNpyExt::read_npy(ndnpy::remote::RemoteFile::open(store, "a.npy".into())?)?;
    /// assert_eq!(a, ndarray::array![1.5, 2.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(store: Arc<dyn ObjectStore>, path: Path) -> RemoteWriter {
        RemoteWriter::create_with_options(store, path, RemoteOptions::new())
    }

    /// Like [`RemoteWriter::create`], with other options: [`RemoteOptions::part_size`]
    /// (clamped to 5 MiB..=5 GiB, see [part sizes](RemoteWriter#part-sizes)) and
    /// [`RemoteOptions::concurrency`]; the others are for reads.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) {
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
    /// URL and `options` as [`RemoteFile::open_url`](super::RemoteFile::open_url) builds it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a URL that does not parse or names a
    /// store this build does not have.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let w = ndnpy::remote::RemoteWriter::create_url(
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
    ) -> Result<RemoteWriter, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        Ok(RemoteWriter::create_with_options(store, path, opts))
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
    /// 5 MiB..=5 GiB.
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
    /// # fn run(mut w: ndnpy::remote::RemoteWriter) -> std::io::Result<()> {
    /// use std::io::Write;
    /// w.write_all(&[0; 100])?;
    /// assert_eq!(w.bytes_written(), 100);
    /// # Ok(()) }
    /// ```
    pub fn bytes_written(&self) -> u64 {
        self.shipped + self.buf.len() as u64
    }

    /// Uploads what is buffered, waits for every part, and completes the upload (or sends a
    /// small object with one PUT): the object is then at its path, whole.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) for the store's errors (its
    /// [`object_store::Error`] is the source of the [`io_error`](Error::io_error)), if an
    /// earlier error ended the upload, or if the runtime cannot be started;
    /// [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory) if a part's buffer cannot be
    /// allocated. The upload is aborted: the path keeps whatever it held before.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// let done = w.finish()?;
    /// println!("ETag {:?}", done.e_tag);
    /// # Ok(()) }
    /// ```
    pub fn finish(mut self) -> Result<Uploaded, Error> {
        block_on(self.finish_mut())?
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
    /// # fn run(w: ndnpy::remote::RemoteWriter) -> Result<(), ndnpy::Error> {
    /// w.abort()?; // changed my mind
    /// # Ok(()) }
    /// ```
    pub fn abort(mut self) -> Result<(), Error> {
        let upload = std::mem::replace(&mut self.upload, Upload::Closed);
        block_on(abort(upload))?.map_err(|e| upload_error(&self.path, Doing::Abort, e))
    }

    /// Ends the upload after `e` ([`RemoteWriter::fail`]), blocking.
    fn fail_now(&mut self, e: Error) -> Error {
        block_on(self.fail(e)).unwrap_or_else(|runtime| runtime)
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
        }
    }

    /// Uploads what is buffered and completes the upload; the writer is closed after.
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

    /// Appends what fits of `bytes` to the part being filled; 0 if it is full. The first
    /// part's buffer grows with what arrives; each later part is allocated whole.
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

    /// Hands the part being filled to the store as the next part (on the crate's runtime,
    /// which `block_on` entered): creates the multipart upload first if this is the first
    /// part, else waits for a slot if [`RemoteOptions::concurrency`] parts are in flight.
    async fn ship(&mut self) -> Result<(), Error> {
        if let Upload::NotStarted = self.upload {
            let created = self
                .store
                .put_multipart_opts(&self.path, PutMultipartOptions::default())
                .await;
            let upload = created.map_err(|e| {
                self.upload = Upload::Closed;
                upload_error(&self.path, Doing::Create, e)
            })?;
            let inner = Numbered {
                inner: upload,
                parts: 0,
                failed: Arc::clone(&self.failed_part),
            };
            let parts = WriteMultipart::new_with_chunk_size(Box::new(inner), self.part_size);
            self.upload = Upload::Started(parts);
        } else {
            // Finished parts are collected first, so that an error is reported early.
            self.wait_for_capacity(self.concurrency).await?;
        }
        let Upload::Started(parts) = &mut self.upload else {
            unreachable!("the upload was started");
        };
        let len = self.buf.len() as u64;
        parts.put(std::mem::take(&mut self.buf).into());
        self.parts += 1;
        self.shipped += len;
        Ok(())
    }

    /// Waits until fewer than `max` parts are in flight (0: until none is).
    async fn wait_for_capacity(&mut self, max: usize) -> Result<(), Error> {
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
}

impl Write for RemoteWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        if buf.is_empty() {
            return Ok(0);
        }
        let taken = match self.push(buf) {
            Ok(n) => n,
            Err(e) => return Err(self.fail_now(e).into()),
        };
        if taken > 0 {
            return Ok(taken);
        }
        // The part is full and more bytes come: hand it over.
        let inner = &mut *self;
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
        self.check()?;
        let inner = &mut *self;
        block_on(async {
            match inner.wait_for_capacity(0).await {
                Ok(()) => Ok(()),
                Err(e) => Err(inner.fail(e).await),
            }
        })??;
        Ok(())
    }
}

impl Drop for RemoteWriter {
    fn drop(&mut self) {
        let upload = std::mem::replace(&mut self.upload, Upload::Closed);
        if let Upload::Started(_) = upload {
            // Best effort, and waited for.
            let _ = block_on(abort(upload));
        }
    }
}

/// A [`Write`] + [`Seek`] for writers that need to seek, such as
/// `NpzWriter` (a ZIP archive's headers are patched after each member's
/// data): the bytes go to a temporary file, and [`finish`](SpooledRemoteWriter::finish)
/// uploads the file as one object (in parts, as [`RemoteWriter`] does). Blocking.
///
/// The temporary file is in [`std::env::temp_dir`] or the directory given to
/// [`create_in`](SpooledRemoteWriter::create_in), needs room for the whole object, and has
/// no name (nothing is left on disk, even by a killed process; Unix and Windows only). The
/// object appears at its path, whole, only when `finish` returns; dropped before, the writer
/// uploads nothing.
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
    /// ```
    /// use std::sync::Arc;
    /// use object_store::{memory::InMemory, ObjectStore};
    /// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    /// let spool = ndnpy::remote::SpooledRemoteWriter::create(Arc::clone(&store), "w.npz".into())?;
    /// let mut npz = ndnpy::NpzWriter::new(spool);
    /// npz.add_array("w", &ndarray::array![[1u8, 2], [3, 4]])?;
    /// npz.finish()?.finish()?;
    /// let file = ndnpy::remote::RemoteFile::open(store, "w.npz".into())?;
    /// let w: ndarray::Array2<u8> = ndnpy::NpzReader::new(file)?.by_name("w")?;
    /// assert_eq!(w[[1, 1]], 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
        let file = crate::platform::fsutil::scratch_file(dir.as_ref())?;
        Ok(SpooledRemoteWriter {
            file: BufWriter::new(file),
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
    /// As [`RemoteWriter::finish`]; [`ErrorKind::Io`](crate::ErrorKind::Io) if the
    /// file cannot be read. Nothing is written at the path then.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use object_store::{memory::InMemory, ObjectStore};
    /// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    /// let mut spool = ndnpy::remote::SpooledRemoteWriter::create(Arc::clone(&store), "b.npy".into())?;
    /// ndnpy::WriteNpyExt::write_npy(&ndarray::array![7u32], &mut spool)?;
    /// let done = spool.finish()?; // the object appears only now, whole
    /// assert_eq!((done.path.as_ref(), done.size), ("b.npy", 132));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(mut self) -> Result<Uploaded, Error> {
        self.file.flush()?;
        let file = self.file.get_mut();
        let size = file.seek(SeekFrom::End(0))?;
        file.seek(SeekFrom::Start(0))?;
        let mut w = RemoteWriter::sized(
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

/// The buffer of a part that cannot be allocated.
fn out_of_memory(bytes: usize) -> Error {
    Error::out_of_memory(bytes, "a part of an upload")
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
