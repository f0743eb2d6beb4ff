//! [`RemoteFile`]: one version of an object, read as a file.

use super::{block_on, parse_url, Object, RemoteOptions};
use crate::base::error::Error;
use object_store::path::Path;
use object_store::ObjectStore;
use std::sync::Arc;

/// An object in a store (S3 and S3-compatible servers, Google Cloud Storage, Azure, plain
/// HTTP: any [`ObjectStore`]) as a file: a [`Read`](std::io::Read) + [`Seek`](std::io::Seek) that every reader of this
/// crate takes, so that an `.npy` or `.npz` in a bucket reads as a local one does:
/// `NpyReader` (rows, elements, N-d regions), `NpzReader`
/// (members by name, checked as locally), `ReadNpyExt::read_npy`,
/// `DynArray::read_npy`.
///
/// **Pinned.** Opening makes one ranged GET of the object's first
/// [`RemoteOptions::header_guess`] bytes (kept, so that a header is read from memory) and
/// pins the version that answered: every later GET carries its ETag (`If-Match`) and version
/// and checks the response's, so that an object replaced meanwhile is an error
/// ([`ErrorKind::Io`](crate::ErrorKind::Io), "changed after it was opened"), never a mix of
/// two. Store and network errors are [`ErrorKind::Io`](crate::ErrorKind::Io) too, their
/// [`object_store::Error`] kept as the source.
///
/// **What it fetches.** A read that misses what is held fetches a read-ahead window: 64 KiB
/// after a seek, doubling while reads go on where the last one ended, up to
/// `part_size * concurrency` bytes (64 MiB with the defaults: the most it holds), so that a
/// stream (a member being inflated, a pickle) costs few GETs and a jump one small one. A read
/// at least as large as the window goes straight into the caller's buffer, in parts of
/// [`RemoteOptions::part_size`], [`RemoteOptions::concurrency`] at once. The region reads of
/// `NpyReader` and of a stored member
/// (`NpzMember::read_slice`) bypass the window: they
/// fetch their runs by concurrent ranged GETs, runs less than
/// [`RemoteOptions::region_gap`] apart by one.
///
/// **Blocking.** Each read runs the store's requests to completion on a one-worker tokio
/// runtime of this crate's (started at the first use), blocking the calling thread, as a
/// `File`'s read blocks it. In async code, read on the runtime's blocking pool
/// (`tokio::task::spawn_blocking`), as `tokio::fs` does for files.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
/// use ndarray::s;
/// use object_store::aws::AmazonS3Builder;
/// use ndnpy::{remote::RemoteFile, NpyReader, NpzReader};
///
/// let store: Arc<dyn object_store::ObjectStore> =
///     Arc::new(AmazonS3Builder::from_env().with_bucket_name("data").build()?);
/// let mut npy = NpyReader::new(RemoteFile::open(store.clone(), "runs/7/x.npy".into())?)?;
/// let block: ndarray::Array2<f32> = npy.read_slice(s![1000..1010, 64..128])?;
/// let mut npz = NpzReader::new(RemoteFile::open(store, "runs/7/weights.npz".into())?)?;
/// let w: ndarray::Array2<f32> = npz.by_name("dense/kernel")?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// From async code:
///
/// ```no_run
/// # async fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// use ndnpy::{remote::RemoteFile, ReadNpyExt};
/// let a = tokio::task::spawn_blocking(move || {
///     ndarray::Array2::<f64>::read_npy(RemoteFile::open(store, "a.npy".into())?)
/// })
/// .await??;
/// # Ok(()) }
/// ```
pub use crate::source::RangedFile as RemoteFile;

impl RemoteFile {
    /// Opens the object at `path` in `store` with [`RemoteOptions::new`]: one GET of its first
    /// 4 KiB, which pins its version.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) for an error of the store (not found, denied,
    /// network), with the [`object_store::Error`] as its I/O error's source.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let a: ndarray::ArrayD<f64> =
    ///     ndnpy::ReadNpyExt::read_npy(ndnpy::remote::RemoteFile::open(store, "a.npy".into())?)?;
    /// # Ok(()) }
    /// ```
    pub fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<RemoteFile, Error> {
        RemoteFile::open_with_options(store, path, RemoteOptions::new())
    }

    /// Like [`RemoteFile::open`], with other options: the first GET's size, the parts and
    /// their concurrency, the gap merged by region reads. (The limits of
    /// [`ReadOptions`](crate::ReadConfig) are the readers': give them to
    /// `NpyReader::with_options` and the like.)
    ///
    /// # Errors
    ///
    /// As [`RemoteFile::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn run(store: std::sync::Arc<dyn object_store::ObjectStore>) -> Result<(), ndnpy::Error> {
    /// let opts = ndnpy::remote::RemoteOptions::new().concurrency(32).part_size(16 << 20);
    /// let file = ndnpy::remote::RemoteFile::open_with_options(store, "big.npy".into(), opts)?;
    /// # Ok(()) }
    /// ```
    pub fn open_with_options(
        store: Arc<dyn ObjectStore>,
        path: Path,
        opts: RemoteOptions,
    ) -> Result<RemoteFile, Error> {
        let guess = opts.header_guess.max(12) as u64;
        let (object, held) = block_on(Object::open(store, path, guess, opts))??;
        Ok(RemoteFile::new(Box::new(object), held))
    }

    /// Opens the object at `url` (`s3://bucket/key`, `gs://...`, `az://...`, `https://...`):
    /// the store is built by [`object_store::parse_url_opts`] from the URL and `options` (the
    /// builders' configuration keys, such as `aws_endpoint`, `aws_region`, `aws_allow_http`;
    /// credentials not given are taken from nowhere else, so pass them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a URL that does not parse or names a
    /// store this build does not have (this crate enables `object_store`'s `aws` and `http`
    /// stores; enable `gcp` or `azure` on `object_store` in your own `Cargo.toml` for those);
    /// otherwise as [`RemoteFile::open`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let file = ndnpy::remote::RemoteFile::open_url(
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
    ) -> Result<RemoteFile, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let (store, path) = parse_url(url, options)?;
        RemoteFile::open_with_options(store, path, opts)
    }

    /// The object's path in its store.
    ///
    /// ```no_run
    /// # fn run(file: ndnpy::remote::RemoteFile) {
    /// println!("{}", file.path());
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &object_of(self).path
    }

    /// The object's size in bytes and the ETag its reads are pinned to (if the store gave
    /// one), as the first response gave them.
    ///
    /// ```no_run
    /// # fn run(file: ndnpy::remote::RemoteFile) {
    /// let (size, e_tag) = file.object();
    /// println!("{size} bytes, ETag {e_tag:?}");
    /// # }
    /// ```
    pub fn object(&self) -> (u64, Option<&str>) {
        let object = object_of(self);
        (object.size, object.e_tag.as_deref())
    }
}

/// The object a [`RemoteFile`] reads: every one is opened here, from an [`Object`].
fn object_of(file: &RemoteFile) -> &Object {
    match file.source().as_any().downcast_ref::<Object>() {
        Some(object) => object,
        None => unreachable!("a RemoteFile is only ever made by RemoteFile::open_with_options"),
    }
}
