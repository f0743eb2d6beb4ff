//! [`ReadOptions`]: the engine's read configuration as this layer's type, so that the reads
//! of arrays (`read_npy`, `read_into`) can be its methods.

use ndnpy_engine::format::header::{PickleEncoding, ReadConfig};
use std::ops::{Deref, DerefMut};

/// Limits applied while reading, so that a hostile file cannot make a reader allocate or
/// work without bound.
///
/// # Examples
///
/// ```
/// use ndnpy::ReadOptions;
/// let opts = ReadOptions::new().max_header_len(10_000).max_data_len(Some(1 << 30));
/// assert_eq!(opts.max_header_len, 10_000);
/// ```
///
/// The fields (those of [`ReadConfig`], which it derefs to) can be read (`opts.threads`)
/// and set; the methods of the same names build.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadOptions(ReadConfig);

impl Deref for ReadOptions {
    type Target = ReadConfig;
    fn deref(&self) -> &ReadConfig {
        &self.0
    }
}

impl DerefMut for ReadOptions {
    fn deref_mut(&mut self) -> &mut ReadConfig {
        &mut self.0
    }
}

impl From<ReadConfig> for ReadOptions {
    fn from(config: ReadConfig) -> ReadOptions {
        ReadOptions(config)
    }
}

impl From<ReadOptions> for ReadConfig {
    fn from(options: ReadOptions) -> ReadConfig {
        options.0
    }
}

impl ReadOptions {
    /// The default limits: headers up to 1 MiB, descriptors nested up to 64 levels, no limit
    /// on the array size beyond the bytes really present, and none on the bytes read out of an
    /// `.npz` archive.
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new();
    /// assert_eq!(opts.max_header_len, 1 << 20);
    /// ```
    pub fn new() -> ReadOptions {
        ReadOptions(ReadConfig::new())
    }

    /// The largest header length (the `HEADER_LEN` field, in bytes, padding included) that is
    /// read. The check happens before the header is allocated.
    ///
    /// numpy's `np.load` has `max_header_size=10000` (characters) because Python's
    /// `literal_eval` is slow and can crash on large input; that default refuses the large
    /// structured headers `np.save` itself writes (test_huge_header: 178996 bytes). This
    /// crate's parser is linear and depth-bounded, so its default is 1 MiB, which only bounds
    /// memory. Set 10000 to refuse what `np.load` refuses by default.
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new().max_header_len(10_000);
    /// # assert_eq!(opts.max_header_len, 10_000);
    /// ```
    pub fn max_header_len(self, bytes: usize) -> ReadOptions {
        ReadOptions(self.0.max_header_len(bytes))
    }

    /// The deepest nesting of lists, tuples and dicts accepted in the header (default 64;
    /// the header dict itself is level 1, each record level adds two).
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new().max_depth(16);
    /// # assert_eq!(opts.max_depth, 16);
    /// ```
    pub fn max_depth(self, depth: usize) -> ReadOptions {
        ReadOptions(self.0.max_depth(depth))
    }

    /// The largest array, in bytes of data, that is read (default: no limit beyond the bytes
    /// really present in the input).
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new().max_data_len(Some(1 << 30));
    /// # assert_eq!(opts.max_data_len, Some(1 << 30));
    /// ```
    pub fn max_data_len(self, bytes: Option<u64>) -> ReadOptions {
        ReadOptions(self.0.max_data_len(bytes))
    }

    /// For `.npz` archives: the most bytes an [`NpzReader`](crate::NpzReader) reads out of its
    /// members in all, decompressed (default: no limit). Every read counts the bytes it takes
    /// out of a member (a stored member's bytes count too; reading a member twice counts it
    /// twice). A read that would go past the limit, judged by the member's declared size
    /// before anything is inflated, fails with
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit).
    ///
    /// Each deflated member may legally declare up to 1032 times its compressed size, so an
    /// archive of a few megabytes can hold gigabytes; this bounds the whole archive where
    /// [`ReadOptions::max_data_len`](ReadOptions::max_data_len) bounds each array.
    ///
    /// ```
    /// # #[cfg(feature = "npz")] {
    /// use ndnpy::{ErrorKind, NpzReader, ReadOptions};
    /// let opts = ReadOptions::new().max_inflated_len(Some(300));
    /// let mut npz = NpzReader::with_options(std::fs::File::open("testdata/npz_compressed.npz")?, &opts)?;
    /// let _a: ndarray::Array2<f64> = npz.by_name("a")?; // 176 bytes
    /// let err = npz.member("a")?.read::<ndarray::OwnedRepr<f64>, ndarray::Ix2>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Limit);
    /// assert_eq!(err.byte_counts(), Some((300, 352)));
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_inflated_len(self, bytes: Option<u64>) -> ReadOptions {
        ReadOptions(self.0.max_inflated_len(bytes))
    }

    /// How many threads a large read may use when its input is a regular file or bytes in
    /// memory: [`read_npy`](crate::read_npy) and [`read_npy_dyn`](crate::read_npy_dyn) of a
    /// path, [`ReadNpyExt::read_npy`](crate::ReadNpyExt::read_npy) and
    /// [`DynArray::read_npy`](crate::DynArray::read_npy) of a `File`, `BufReader<File>`,
    /// `&[u8]` or `Cursor` (by value or `&mut`), and a stored member of an
    /// [`NpzReader`](crate::NpzReader) over a file. Arrays of 16 MiB and more are then read as
    /// that many positioned reads (or copies) of disjoint parts at once, one per thread, up to
    /// the number of cores. A region read of a file ([`NpyReader`](crate::NpyReader), a stored
    /// member's `read_slice`) of 256 runs or more is split over two threads the same way.
    /// Default 2 on Unix (standard threads; no feature needed), else 1;
    /// values above 1 have an effect only there. 0 counts as 1.
    ///
    /// 1 keeps every read of the crate's on the calling thread: no split reads, and no helper
    /// threads for `.npz` members either (the thread that runs a stored member's CRC-32, the
    /// one that faults an inflated member's array in ahead of the inflater).
    /// [`NpzReader::read_all`](crate::NpzReader::read_all) with the `parallel` feature runs on
    /// rayon's threads whatever this says.
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new().threads(1); // one thread
    /// # assert_eq!(opts.threads, 1);
    /// assert_eq!(ndnpy::ReadOptions::new().threads, if cfg!(unix) { 2 } else { 1 });
    /// ```
    pub fn threads(self, threads: usize) -> ReadOptions {
        ReadOptions(self.0.threads(threads))
    }

    /// The deepest nesting of the Python values in an object (`|O`) array: the array is level
    /// 1, a list in it level 2, and so on (lists, tuples, dicts, sets and nested arrays each
    /// add a level). Default 256; at most 1000 (Python's own recursion limit, about the deepest
    /// its pickler writes), larger values count as 1000. Deeper values give
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit).
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new().max_pickle_depth(16);
    /// # assert_eq!(opts.max_pickle_depth, 16);
    /// ```
    pub fn max_pickle_depth(self, depth: usize) -> ReadOptions {
        ReadOptions(self.0.max_pickle_depth(depth))
    }

    /// What a Python 2 `str` in an object array's pickle becomes (numpy's `encoding`):
    /// [`PickleEncoding::Latin1`] text by default.
    ///
    /// ```
    /// use ndnpy::{header::PickleEncoding, DynArray, PyValue, ReadOptions};
    /// // A Python 2 pickle of ['caf\xe9', u'x', 1, 2.5, None, array([1.5, -2.]), ['']]
    /// // (testdata/object/generate.py).
    /// let file = std::fs::read("testdata/object/py2_latin1.npy")?;
    /// let read = |opts: &ReadOptions| DynArray::read_npy_with_options(&file[..], opts);
    /// let latin1 = read(&ReadOptions::new())?.into_array::<PyValue>()?;
    /// assert_eq!(latin1[0], PyValue::Str("café".into()));
    /// let bytes = ReadOptions::new().pickle_encoding(PickleEncoding::Bytes);
    /// let raw = read(&bytes)?.into_array::<PyValue>()?;
    /// assert_eq!(raw[0], PyValue::Bytes(b"caf\xe9".to_vec()));
    /// assert_eq!(raw[1], PyValue::Str("x".into())); // a Python 2 unicode is text
    /// let ascii = ReadOptions::new().pickle_encoding(PickleEncoding::Ascii);
    /// assert!(read(&ascii).is_err()); // 'caf\xe9' is not ASCII
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pickle_encoding(self, encoding: PickleEncoding) -> ReadOptions {
        ReadOptions(self.0.pickle_encoding(encoding))
    }
}
