//! The `.npy` header: magic, format versions 1.0/2.0/3.0, and the dict text.
//!
//! Reading checks every length before trusting it: the declared header length is capped
//! (by `ReadOptions::max_header_len`) before anything is allocated, nesting is bounded, and
//! the shape's element count and byte size use checked arithmetic. Writing reproduces
//! `np.save` byte for byte: sorted keys, `", "` after every entry, growth-axis spaces, 64-byte
//! alignment with 1 to 64 pad spaces and `\n`, and numpy's choice of version.
//!
//! # Examples
//!
//! ```
//! use ndnpy::header::{Version, MAGIC};
//! use ndnpy::{Header, ReadOptions};
//! let bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
//! assert!(bytes.starts_with(MAGIC));
//! let info = Header::read(&mut &bytes[..], &ReadOptions::default())?;
//! assert_eq!((info.version, info.data_offset), (Version::V1_0, 128));
//! assert_eq!(info.header.to_bytes()?, bytes[..128]); // written back as np.save wrote it
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::base::dtype::{DType, MAX_DIMS};
use crate::base::error::{excerpt, truncated, Error, FormatError, LimitError, UsageError};
use crate::base::pyrepr::write_shape;
use crate::format::literal::{self, Seq, Value};
use crate::platform::ioutil::{read_full, read_part};
use std::fmt;
use std::io::Read;

/// The growth axis of an array: first for C order, last for Fortran order.
#[doc(hidden)]
pub fn growth_axis(header: &Header) -> Result<usize, Error> {
    match header.shape.len() {
        0 => Err(UsageError::NoGrowthAxis.into()),
        n => Ok(if header.fortran_order { n - 1 } else { 0 }),
    }
}

/// The magic string at the start of every `.npy` file.
///
/// ```
/// let bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
/// assert_eq!(&bytes[..6], ndnpy::header::MAGIC);
/// # Ok::<(), std::io::Error>(())
/// ```
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// numpy's `GROWTH_AXIS_MAX_DIGITS`: room left in the header so the growth axis can reach
/// 21 digits without moving the data.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The `.npy` format version.
///
/// ```
/// use ndnpy::header::Version;
/// let h = ndnpy::Header { dtype: ndnpy::DType::from_descr("'<i4'")?, fortran_order: false, shape: vec![3] };
/// assert_eq!(&h.to_bytes()?[6..8], [1, 0]); // np.save's choice: 1.0
/// let v2 = h.to_bytes_with_version(Version::V2_0)?;
/// assert_eq!((&v2[6..8], v2.len() % 64), (&[2u8, 0][..], 0));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Version {
    /// 1.0: a 2-byte header length, latin1 text. What `np.save` writes almost always.
    V1_0,
    /// 2.0: a 4-byte header length, latin1 text (headers over 64 KiB).
    V2_0,
    /// 3.0: a 4-byte header length, UTF-8 text (field names latin1 cannot encode).
    V3_0,
}

impl Version {
    /// Bytes before the header text: magic, version, length field.
    fn prefix_len(self) -> usize {
        match self {
            Version::V1_0 => 10,
            Version::V2_0 | Version::V3_0 => 12,
        }
    }

    /// The major and minor version numbers.
    #[doc(hidden)]
    pub fn bytes(self) -> [u8; 2] {
        match self {
            Version::V1_0 => [1, 0],
            Version::V2_0 => [2, 0],
            Version::V3_0 => [3, 0],
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [major, minor] = self.bytes();
        write!(f, "{major}.{minor}")
    }
}

/// What a read is configured with: the limits that bound what a hostile file can make it
/// allocate or do, its threads, its pickle encoding. Users build it as
/// [`ReadOptions`](https://docs.rs/ndnpy/latest/ndnpy/struct.ReadOptions.html), which derefs to
/// it: its fields are these.
///
/// ```
/// let mut opts = ndnpy::ReadOptions::new().max_data_len(Some(1 << 30));
/// let config: &ndnpy::header::ReadConfig = &opts;
/// assert_eq!(config.max_data_len, Some(1 << 30));
/// opts.threads = 1; // set through the same fields
/// assert_eq!(opts.threads, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadConfig {
    /// The largest header length read (`ReadOptions::max_header_len`).
    pub max_header_len: usize,
    /// The deepest nesting of the header literal (`ReadOptions::max_depth`).
    pub max_depth: usize,
    /// The largest array data, in bytes, if any (`ReadOptions::max_data_len`).
    pub max_data_len: Option<u64>,
    /// How many threads a large read may use; 0 counts as 1 (`ReadOptions::threads`).
    pub threads: usize,
    /// The most bytes read out of an `.npz` archive's members in all, if any
    /// (`ReadOptions::max_inflated_len`).
    pub max_inflated_len: Option<u64>,
    /// The deepest nesting of the values pickled in an object array
    /// (`ReadOptions::max_pickle_depth`).
    pub max_pickle_depth: usize,
    /// What a Python 2 `str` in an object array's pickle becomes
    /// (`ReadOptions::pickle_encoding`).
    pub pickle_encoding: PickleEncoding,
}

/// What a Python 2 `str` (8-bit text, which Python 3 has no type for) in an object array's
/// pickle becomes: numpy's `np.load(..., encoding=...)`. Python 3's `str` and `bytes` are read
/// as they are whatever this says; the bytes of a numpy array's data are its bytes.
///
/// ```
/// use ndnpy::header::PickleEncoding;
/// let opts = ndnpy::ReadOptions::new().pickle_encoding(PickleEncoding::Bytes);
/// assert_eq!(opts.pickle_encoding, PickleEncoding::Bytes);
/// assert_eq!(ndnpy::ReadOptions::new().pickle_encoding, PickleEncoding::Latin1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PickleEncoding {
    /// Text, each byte one code point (`encoding='latin1'`; the default here, and what numpy
    /// asks for files holding numpy arrays).
    #[default]
    Latin1,
    /// Text if every byte is ASCII, else an [`ErrorKind::DType`](crate::ErrorKind::DType)
    /// error, as numpy's default `encoding='ASCII'` raises `UnicodeError` (array data
    /// included, as numpy decodes it before it rebuilds the array).
    Ascii,
    /// `PyValue::Bytes` (`encoding='bytes'`).
    Bytes,
}

impl Default for ReadConfig {
    fn default() -> Self {
        ReadConfig::new()
    }
}

impl ReadConfig {
    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::new`.
    pub fn new() -> ReadConfig {
        ReadConfig {
            max_header_len: 1 << 20,
            max_depth: 64,
            max_data_len: None,
            threads: if cfg!(unix) { 2 } else { 1 },
            max_inflated_len: None,
            max_pickle_depth: 256,
            pickle_encoding: PickleEncoding::Latin1,
        }
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::max_header_len`.
    pub fn max_header_len(mut self, bytes: usize) -> ReadConfig {
        self.max_header_len = bytes;
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::max_depth`.
    pub fn max_depth(mut self, depth: usize) -> ReadConfig {
        self.max_depth = depth;
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::max_data_len`.
    pub fn max_data_len(mut self, bytes: Option<u64>) -> ReadConfig {
        self.max_data_len = bytes;
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::max_inflated_len`.
    pub fn max_inflated_len(mut self, bytes: Option<u64>) -> ReadConfig {
        self.max_inflated_len = bytes;
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::threads`.
    pub fn threads(mut self, threads: usize) -> ReadConfig {
        self.threads = threads.max(1);
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::max_pickle_depth`.
    pub fn max_pickle_depth(mut self, depth: usize) -> ReadConfig {
        self.max_pickle_depth = depth;
        self
    }

    #[doc(hidden)]
    /// As ndnpy's `ReadOptions::pickle_encoding`.
    pub fn pickle_encoding(mut self, encoding: PickleEncoding) -> ReadConfig {
        self.pickle_encoding = encoding;
        self
    }
}

/// What an `.npy` header says: the dtype, the memory order and the shape.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, Header};
/// let h = Header {
///     dtype: DType::from_descr("'<f8'")?,
///     fortran_order: false,
///     shape: vec![3],
/// };
/// let bytes = h.to_bytes()?;
/// assert_eq!(bytes.len(), 128);
/// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The element dtype.
    pub dtype: DType,
    /// Whether the data is in column-major (Fortran) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<usize>,
}

/// A header as read from a file, with the facts about its encoding.
///
/// # Examples
///
/// ```
/// use ndnpy::{Header, ReadOptions, header::Version};
/// let mut file = &include_bytes!("../../testdata/f8_le_c_2x3.npy")[..];
/// let info = Header::read(&mut file, &ReadOptions::default())?;
/// assert_eq!(info.header.shape, [2, 3]);
/// assert_eq!((info.version, info.data_offset, info.data_len), (Version::V1_0, 128, 48));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderInfo {
    /// The header.
    pub header: Header,
    /// The format version it was written in.
    pub version: Version,
    /// The byte offset of the data from the start of the `.npy` data (magic included).
    pub data_offset: u64,
    /// The number of elements (the product of the shape; 1 for a 0-d array).
    pub num_elements: usize,
    /// The data's size in bytes.
    pub data_len: usize,
}

impl HeaderInfo {
    /// What a read needs to know of an array held in memory under `header` (no file, so no
    /// version or offset of its own).
    #[doc(hidden)]
    pub fn in_memory(header: Header) -> Result<HeaderInfo, Error> {
        let (num_elements, data_len) = header.sizes()?;
        Ok(HeaderInfo {
            header,
            version: Version::V1_0,
            data_offset: 0,
            num_elements,
            data_len,
        })
    }

    /// Checks that an input of `len` bytes, counted from the magic, holds the whole array
    /// data; a [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) error saying how much
    /// of it does otherwise.
    #[doc(hidden)]
    pub fn check_data_within(&self, len: u64) -> Result<(), Error> {
        let found = len.saturating_sub(self.data_offset);
        if found < self.data_len as u64 {
            return Err(truncated(self.data_len as u64, found));
        }
        Ok(())
    }
}

impl Header {
    /// Reads a header from `reader`, leaving it positioned at the first data byte.
    ///
    /// # Errors
    ///
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) for a bad magic string, an unsupported version, a header that is cut
    /// short, not a valid literal, or not a valid dict (keys, shape, `fortran_order`, descr);
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) when a [`ReadOptions`](ReadConfig) limit is exceeded; [`ErrorKind::Io`](crate::ErrorKind::Io) if reading
    /// fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{Header, ReadOptions};
    /// let mut file = &include_bytes!("../../testdata/f8_le_c_2x3.npy")[..];
    /// let info = Header::read(&mut file, &ReadOptions::default())?;
    /// assert_eq!(info.header.dtype.descr(), "'<f8'");
    /// assert_eq!(file.len(), 48); // the reader now points at the data
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn read<R: Read + ?Sized>(reader: &mut R, opts: &ReadConfig) -> Result<HeaderInfo, Error> {
        let mut magic = [0u8; 8];
        let n = read_full(reader, &mut magic)?;
        let seen = n.min(MAGIC.len());
        if magic[..seen] != MAGIC[..seen] || n == 0 {
            return Err(FormatError::BadMagic {
                found: magic[..seen].to_vec(),
            }
            .into());
        }
        if n < magic.len() {
            return Err(FormatError::Truncated {
                part: "magic string",
                expected: 8,
                found: n as u64,
            }
            .into());
        }
        let version = match [magic[6], magic[7]] {
            [1, 0] => Version::V1_0,
            [2, 0] => Version::V2_0,
            [3, 0] => Version::V3_0,
            [major, minor] => return Err(FormatError::UnsupportedVersion { major, minor }.into()),
        };
        let header_len: u64 = if version == Version::V1_0 {
            let mut b = [0u8; 2];
            read_part(reader, &mut b, "header length")?;
            u16::from_le_bytes(b).into()
        } else {
            let mut b = [0u8; 4];
            read_part(reader, &mut b, "header length")?;
            u32::from_le_bytes(b).into()
        };
        if header_len > opts.max_header_len as u64 {
            return Err(LimitError::HeaderTooLarge {
                limit: opts.max_header_len,
                found: header_len,
            }
            .into());
        }
        // `header_len` fits in usize: it is at most max_header_len.
        let len = header_len as usize;
        let text = if len <= 1 << 16 {
            let mut buf = vec![0u8; len];
            read_part(reader, &mut buf, "header")?;
            buf
        } else {
            // Large declared lengths: grow with the bytes that really arrive.
            let mut buf = Vec::new();
            let got = reader.take(header_len).read_to_end(&mut buf)?;
            if got < len {
                return Err(FormatError::Truncated {
                    part: "header",
                    expected: header_len,
                    found: got as u64,
                }
                .into());
            }
            buf
        };
        let header = Header::parse_text(&text, version, opts)?;
        let (num_elements, data_len) = header.sizes()?;
        if let Some(limit) = opts.max_data_len {
            if data_len as u64 > limit {
                return Err(LimitError::ArrayTooLarge {
                    limit,
                    found: data_len as u64,
                }
                .into());
            }
        }
        Ok(HeaderInfo {
            header,
            version,
            data_offset: (version.prefix_len() + len) as u64,
            num_elements,
            data_len,
        })
    }

    /// Parses the header text (the bytes after the length field) of a file of `version`.
    fn parse_text(bytes: &[u8], version: Version, opts: &ReadConfig) -> Result<Header, Error> {
        let decoded: std::borrow::Cow<'_, str> = match version {
            Version::V3_0 => std::str::from_utf8(bytes)
                .map_err(|e| FormatError::HeaderEncoding {
                    offset: e.valid_up_to(),
                })?
                .into(),
            // Latin-1: every byte is the code point of the same value.
            _ if bytes.is_ascii() => std::str::from_utf8(bytes).unwrap_or_default().into(),
            _ => {
                // At most two bytes of UTF-8 per byte; the header's bytes are all present.
                let mut text = String::new();
                text.try_reserve_exact(bytes.len() * 2)
                    .map_err(|_| Error::out_of_memory(bytes.len() * 2, "the header"))?;
                text.extend(bytes.iter().map(|&b| char::from(b)));
                text.into()
            }
        };
        let value = literal::parse(&decoded, version != Version::V3_0, opts.max_depth)?;
        let Value::Dict(entries) = &value else {
            return Err(FormatError::HeaderNotDict {
                found: excerpt(&value),
            }
            .into());
        };
        // A dict kept as text (a huge one) is parsed again here, entry by entry; only the last
        // value of each key is kept, as in a Python dict.
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        let mut unexpected = false;
        let mut items = entries.iter();
        while let Some(k) = items.next() {
            let k = k?;
            let Some(v) = items.next().transpose()? else {
                break;
            };
            match &k {
                Value::Str(s) if s == "descr" => descr = Some(v),
                Value::Str(s) if s == "fortran_order" => fortran = Some(v),
                Value::Str(s) if s == "shape" => shape = Some(v),
                _ => unexpected = true,
            }
        }
        let (Some(descr), Some(fortran), Some(shape), false) = (descr, fortran, shape, unexpected)
        else {
            return Err(FormatError::HeaderKeys {
                found: keys_of(entries)?,
            }
            .into());
        };
        let shape = shape_of(&shape)?;
        let fortran_order = match fortran {
            Value::Bool(b) => b,
            other => {
                return Err(FormatError::InvalidFortranOrder {
                    found: excerpt(&other),
                }
                .into())
            }
        };
        let dtype = DType::from_value(&descr)?;
        Ok(Header {
            dtype,
            fortran_order,
            shape,
        })
    }

    /// The element count and the data size in bytes, checked for overflow.
    ///
    /// numpy's rule (the one `np.empty` applies), whatever the position of a zero dimension:
    /// the product of the nonzero dimensions, times the item size, must fit in `isize`. So
    /// `(0, 2**40, 2**40)` is refused as `(2**40, 2**40, 0)` is, and `(0, 2**62)` is accepted
    /// for one-byte items and refused for eight-byte ones. (With a zero item size, numpy
    /// accepts any shape; here the nonzero dimensions must still multiply within `isize`, which
    /// an `ndarray` array needs.)
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Header`](crate::ErrorKind::Header) if the rule above fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, Header};
    /// let h = Header { dtype: DType::from_descr("'<f8'")?, fortran_order: false, shape: vec![2, 3] };
    /// assert_eq!(h.sizes()?, (6, 48));
    /// let huge = Header { shape: vec![1 << 62, 1 << 62], ..h };
    /// assert!(huge.sizes().is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn sizes(&self) -> Result<(usize, usize), Error> {
        let itemsize = self.dtype.itemsize();
        let overflow = || FormatError::ShapeOverflow {
            shape: self.shape.clone(),
            itemsize,
        };
        let nonzero = self
            .shape
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(overflow)?;
        nonzero
            .checked_mul(itemsize)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(overflow)?;
        let count = if self.shape.contains(&0) { 0 } else { nonzero };
        Ok((count, count * itemsize))
    }

    /// The dict text `np.save` writes, growth-axis spaces included (no alignment padding).
    fn text(&self) -> String {
        let mut text = String::with_capacity(96);
        text.push_str("{'descr': ");
        self.dtype.write_descr(&mut text);
        text.push_str(", 'fortran_order': ");
        text.push_str(if self.fortran_order { "True" } else { "False" });
        text.push_str(", 'shape': ");
        write_shape(&self.shape, &mut text);
        text.push_str(", }");
        let growth_axis = if self.fortran_order {
            self.shape.last()
        } else {
            self.shape.first()
        };
        if let Some(dim) = growth_axis {
            let digits = dim.checked_ilog10().map_or(1, |l| l as usize + 1);
            let spaces = GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits);
            text.extend(std::iter::repeat_n(' ', spaces));
        }
        text
    }

    /// The bytes `np.save` writes before the data: magic, version, length and padded dict
    /// text, in the version numpy would choose (1.0 up to a header length of 65535, then 2.0;
    /// 3.0 only for text latin1 cannot encode).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the header exceeds 4 GiB, or holds
    /// what every reader refuses (numpy's rules): more than 64 dimensions, or a shape whose
    /// dimensions other than 0, times the item size, exceed `isize::MAX` bytes (a zero-size
    /// shape of `[2**61, 0]` with 4-byte items too).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, Header};
    /// let h = Header { dtype: DType::from_descr("'|u1'")?, fortran_order: false, shape: vec![] };
    /// assert_eq!(&h.to_bytes()?[6..8], &[1, 0]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.to_bytes_impl(None)
    }

    /// Like [`Header::to_bytes`], in the given version.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the header needs a later version (numpy raises the
    /// same), [`ErrorKind::Usage`](crate::ErrorKind::Usage) if it exceeds 4 GiB.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, Header, header::Version};
    /// let h = Header { dtype: DType::from_descr("'<f8'")?, fortran_order: false, shape: vec![3] };
    /// let v2 = h.to_bytes_with_version(Version::V2_0)?;
    /// assert_eq!((&v2[6..8], v2.len()), (&[2u8, 0][..], 128));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn to_bytes_with_version(&self, version: Version) -> Result<Vec<u8>, Error> {
        self.to_bytes_impl(Some(version))
    }

    fn to_bytes_impl(&self, version: Option<Version>) -> Result<Vec<u8>, Error> {
        // The readers' rules, numpy's: no header is written that a reader refuses.
        if self.shape.len() > MAX_DIMS {
            return Err(UsageError::TooManyDimensions {
                found: self.shape.len(),
            }
            .into());
        }
        self.sizes().map_err(Error::blame_caller)?;
        let text = self.text();
        let latin1 = text.chars().all(|c| u32::from(c) <= 0xff);
        let body: Vec<u8> = if !latin1 || text.is_ascii() {
            // UTF-8 for version 3.0; ASCII is the same in both encodings.
            text.into_bytes()
        } else {
            // Every char is <= U+00FF here, so the narrowing cast is latin1 encoding.
            text.chars().map(|c| u32::from(c) as u8).collect()
        };
        // numpy: hlen = len(text) + 1 (for '\n'); pad to 64 with 1..=64 spaces.
        let padded_len = |prefix: usize| -> Option<usize> {
            let hlen = body.len().checked_add(1)?;
            let pad = 64 - (prefix.checked_add(hlen)? % 64);
            hlen.checked_add(pad)
        };
        let fits = |v: Version| -> Result<usize, &'static str> {
            let len = padded_len(v.prefix_len()).ok_or("the header length overflows")?;
            match v {
                Version::V1_0 | Version::V2_0 if !latin1 => {
                    Err("the header has characters latin1 cannot encode")
                }
                Version::V1_0 if len > u16::MAX as usize => {
                    Err("the header is longer than 65535 bytes")
                }
                _ if len > u32::MAX as usize => Err("the header is longer than 4 GiB"),
                _ => Ok(len),
            }
        };
        let (version, header_len) = match version {
            Some(v) => (
                v,
                fits(v).map_err(|reason| UsageError::VersionTooSmall {
                    version: v.bytes(),
                    reason,
                })?,
            ),
            None => [Version::V1_0, Version::V2_0, Version::V3_0]
                .into_iter()
                .find_map(|v| fits(v).ok().map(|len| (v, len)))
                .ok_or(UsageError::HeaderTooLarge { len: body.len() })?,
        };
        let mut out = Vec::with_capacity(version.prefix_len() + header_len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&version.bytes());
        if version == Version::V1_0 {
            out.extend_from_slice(&(header_len as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(header_len as u32).to_le_bytes());
        }
        out.extend_from_slice(&body);
        out.resize(version.prefix_len() + header_len - 1, b' ');
        out.push(b'\n');
        debug_assert_eq!(out.len() % 64, 0);
        Ok(out)
    }
}

/// The most keys an [`ErrorKind::Header`](crate::ErrorKind::Header) error lists.
const MAX_KEYS_LISTED: usize = 16;

/// The keys of the header dict `entries`, for an error: sorted, without repeats, the first
/// [`MAX_KEYS_LISTED`] different ones (each cut to a readable length).
fn keys_of(entries: &Seq<'_>) -> Result<Vec<String>, Error> {
    let mut keys: Vec<String> = Vec::new();
    for (i, k) in entries.iter().enumerate() {
        let k = k?;
        if i % 2 == 1 {
            continue;
        }
        let key = match &k {
            Value::Str(s) => excerpt(s),
            other => excerpt(other),
        };
        if !keys.contains(&key) {
            keys.push(key);
            if keys.len() == MAX_KEYS_LISTED {
                break;
            }
        }
    }
    keys.sort();
    Ok(keys)
}

/// The shape in a header: a tuple of non-negative integers, at most [`MAX_DIMS`] of them
/// (numpy's limit; a longer tuple is counted, not kept).
fn shape_of(value: &Value<'_>) -> Result<Vec<usize>, Error> {
    let invalid = || FormatError::InvalidShape {
        found: excerpt(value),
    };
    let Value::Tuple(items) = value else {
        return Err(invalid().into());
    };
    let mut dims = Vec::new();
    let mut ndim = 0usize;
    for item in items.iter() {
        let Value::Int(n) = item? else {
            return Err(invalid().into());
        };
        let d = usize::try_from(n).map_err(|_| invalid())?;
        ndim += 1;
        if ndim <= MAX_DIMS {
            dims.push(d);
        }
    }
    if ndim > MAX_DIMS {
        return Err(FormatError::TooManyDimensions { found: ndim }.into());
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::Detail;

    fn header(descr: &str, fortran_order: bool, shape: &[usize]) -> Header {
        Header {
            dtype: DType::from_descr(descr).unwrap(),
            fortran_order,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn writes_numpys_worked_example() {
        let bytes = header("'<f8'", false, &[3]).to_bytes().unwrap();
        let mut want =
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
                .to_vec();
        want.resize(127, b' '); // 20 growth spaces, then padding to 128 bytes
        want.push(b'\n');
        assert_eq!(bytes, want);
    }

    #[test]
    fn growth_axis_keeps_header_length_constant() {
        // numpy's test_header_growth_axis. Its header holds `dtype([...])`, the repr of the
        // dtype object it passes, 7 characters more than the descr list; the names here are 7
        // characters longer to produce the same lengths. numpy's header writer also takes the
        // sizes 10**18 and 10**19, whose arrays (16 bytes a row) no reader allocates; ndnpy
        // writes no header a reader refuses, so those are the caller's error here.
        for (fortran_order, pad, expected) in [
            (false, 22, 128),
            (false, 23, 192),
            (true, 23, 128),
            (true, 24, 192),
        ] {
            for i in 0..20u32 {
                let size = 10usize.pow(i);
                let name = " ".repeat(pad + 7);
                let shape = if fortran_order { [2, size] } else { [size, 2] };
                let h = header(&format!("[('{name}', '<i8')]"), fortran_order, &shape);
                if i < 18 {
                    assert_eq!(
                        h.to_bytes().unwrap().len(),
                        expected,
                        "{fortran_order} {pad} {size}"
                    );
                } else {
                    let err = h.to_bytes().unwrap_err();
                    assert_eq!(err.kind(), crate::ErrorKind::Usage, "{size}");
                }
            }
        }
    }

    #[test]
    fn version_thresholds_match_numpy() {
        let named = |n: usize| header(&format!("[('{}', '|u1')]", "x".repeat(n)), false, &[1]);
        let v1 = named(65439).to_bytes().unwrap();
        assert_eq!(
            (&v1[6..8], u16::from_le_bytes([v1[8], v1[9]])),
            (&[1u8, 0][..], 65526)
        );
        let v2 = named(65440).to_bytes().unwrap();
        assert_eq!(&v2[6..8], &[2, 0]);
        assert_eq!(u32::from_le_bytes([v2[8], v2[9], v2[10], v2[11]]), 65588);
        let latin1 = header("[('é', '|u1')]", false, &[1]).to_bytes().unwrap();
        assert_eq!(&latin1[6..8], &[1, 0]);
        assert!(latin1.windows(1).any(|w| w == [0xe9]));
        let utf8 = header("[('整形', '|u1')]", false, &[1]).to_bytes().unwrap();
        assert_eq!(&utf8[6..8], &[3, 0]);
        let escaped = header("[('\\u200b', '|u1')]", false, &[1])
            .to_bytes()
            .unwrap();
        assert_eq!(&escaped[6..8], &[1, 0]);
        assert!(header("[('整形', '|u1')]", false, &[1])
            .to_bytes_with_version(Version::V1_0)
            .is_err());
        assert!(named(70000).to_bytes_with_version(Version::V1_0).is_err());
    }

    #[test]
    fn reads_what_it_writes() {
        for h in [
            header("'<f8'", false, &[3]),
            header("'>i2'", true, &[2, 3]),
            header(
                "[('a', '<i4'), ('', '|V4'), ('b', '>f8', (2,))]",
                false,
                &[],
            ),
            header("[('整形', '|u1')]", false, &[0, 5]),
            header("[('é', '|u1')]", false, &[1]),
        ] {
            let bytes = h.to_bytes().unwrap();
            let info = Header::read(&mut &bytes[..], &ReadConfig::default()).unwrap();
            assert_eq!(info.header, h);
            assert_eq!(info.data_offset as usize, bytes.len());
        }
    }

    #[test]
    fn header_length_is_capped_before_allocation() {
        let mut v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'".to_vec();
        let err = Header::read(&mut &v2[..], &ReadConfig::default()).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Limit(LimitError::HeaderTooLarge {
                found: 0xffff_ffff,
                ..
            })
        ));
        let opts = ReadConfig::new().max_header_len(usize::MAX);
        let err = Header::read(&mut &v2[..], &opts).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::Truncated {
                part: "header",
                found: 8,
                ..
            })
        ));
        v2.truncate(9);
        assert!(matches!(
            Header::read(&mut &v2[..], &opts).unwrap_err().detail(),
            Detail::Format(FormatError::Truncated {
                part: "header length",
                expected: 4,
                found: 1
            })
        ));
    }

    #[test]
    fn accepts_python2_long_suffix_in_v1_only() {
        let text = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }          \n";
        let h = Header::parse_text(text.as_bytes(), Version::V1_0, &ReadConfig::default()).unwrap();
        assert_eq!(h.shape, [2]);
        assert!(
            Header::parse_text(text.as_bytes(), Version::V3_0, &ReadConfig::default()).is_err()
        );
    }
}
