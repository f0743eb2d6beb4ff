//! ndarray-npy 0.10's error types, so that code written for it builds unchanged.
//!
//! Each of ndarray-npy's functions and methods returns here the type it returns there
//! (`read_npy` a [`ReadNpyError`], `NpzWriter::add_array`
//! a `WriteNpzError`, ...), with ndarray-npy's variants, fields and messages: an application
//! that implements `From` for several of them, builds or matches their variants, or asserts
//! their messages builds and behaves as before. ndnpy's own API (options, runtime-typed reads,
//! regions, remote objects, conversions) returns [`Error`].
//!
//! Every one of these types converts into an [`Error`] (`?` works) and back. Where ndarray-npy's
//! variant has a payload, the payload carries the whole [`Error`] it came from, so
//! `Error::from(e)` gives back its kind, member, field path, offsets and OS error. The variants
//! that hold only numbers ([`ReadNpyError::WrongNdim`], [`ReadNpyError::MissingData`],
//! [`ReadNpyError::LengthOverflow`], [`ParseHeaderError::MagicString`], ...) keep what they
//! hold and the [`ErrorKind`], not the rest: for that, read with ndnpy's own methods
//! (`ReadOptions::read_npy`,
//! `NpzReader::member`), which return [`Error`].
//!
//! Where ndarray-npy holds a `py_literal::Value` (a descriptor, a header key or value), these
//! types hold a [`PyLiteral`], which prints the same; where it holds `py_literal`'s parse or
//! format errors, they hold an [`Error`].

use super::{
    Detail, Error, ErrorKind, FormatError, LimitError, MismatchError, PathError, UsageError,
};
use std::error::Error as StdError;
use std::fmt;
use std::io;

/// The boxed errors of ndarray-npy's `ParseData`, `InvalidData` and `FormatData` variants.
type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// A Python literal from an `.npy` header (a descriptor, a key, a value), as numpy's repr
/// writes it: what ndarray-npy's error variants hold as a `py_literal::Value`.
///
/// It prints as the literal (`'<f8'`, `[('x', '<f4')]`), as `py_literal::Value` does; made by
/// ndnpy, it also carries the [`Error`] it describes, which `Error::from` gives back.
///
/// # Examples
///
/// ```
/// use ndnpy::{npy::PyLiteral, ReadNpyError, ReadNpyExt};
/// let bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
/// let err = ndarray::Array2::<i32>::read_npy(&bytes[..]).unwrap_err();
/// let ReadNpyError::WrongDescriptor(descr) = &err else { panic!("{err}") };
/// assert_eq!(descr.to_string(), "'<f8'");
/// assert_eq!(err.to_string(), "incorrect descriptor ('<f8') for this type");
/// assert_eq!(PyLiteral::new("'<f8'"), *descr);
/// // The detail is all there.
/// let err = ndnpy::Error::from(err);
/// assert_eq!(err.dtype().unwrap().descr(), "'<f8'");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PyLiteral {
    text: String,
    error: Option<Box<Error>>,
}

impl PyLiteral {
    /// A literal of this text (Python's repr of the value).
    ///
    /// # Examples
    ///
    /// ```
    /// let lit = ndnpy::npy::PyLiteral::new("'<i4'");
    /// assert_eq!(lit.as_str(), "'<i4'");
    /// ```
    pub fn new(text: impl Into<String>) -> PyLiteral {
        PyLiteral {
            text: text.into(),
            error: None,
        }
    }

    /// The literal's text.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(ndnpy::npy::PyLiteral::new("(2, 3)").as_str(), "(2, 3)");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn with_error(text: impl Into<String>, error: Error) -> PyLiteral {
        PyLiteral {
            text: text.into(),
            error: Some(Box::new(error)),
        }
    }

    fn kind_or(&self, kind: ErrorKind) -> ErrorKind {
        self.error.as_ref().map_or(kind, |e| e.kind())
    }
}

impl fmt::Display for PyLiteral {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for PyLiteral {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PyLiteral").field(&self.text).finish()
    }
}

/// Literals are equal when their texts are.
impl PartialEq for PyLiteral {
    fn eq(&self, other: &PyLiteral) -> bool {
        self.text == other.text
    }
}

impl Eq for PyLiteral {}

/// A message of ndarray-npy's, as the error of a boxed payload that no [`Error`] stands behind.
#[derive(Debug)]
struct Message(&'static str);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl StdError for Message {}

/// The [`ErrorKind`] of a boxed payload: its [`Error`]'s, or `kind`.
fn boxed_kind(b: &BoxError, kind: ErrorKind) -> ErrorKind {
    b.downcast_ref::<Error>().map_or(kind, Error::kind)
}

/// The [`ErrorKind`] of an I/O error: that of the [`Error`] it carries, or by its own kind.
fn io_kind(e: &io::Error) -> ErrorKind {
    match e.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
        Some(inner) => inner.kind(),
        None if e.kind() == io::ErrorKind::OutOfMemory => ErrorKind::OutOfMemory,
        None => ErrorKind::Io,
    }
}

/// An I/O error back as an [`Error`]: the [`Error`] it carries, or itself.
fn io_into_error(e: io::Error) -> Error {
    if e.get_ref().is_some_and(|i| i.is::<Error>()) {
        if let Some(inner) = e.into_inner() {
            if let Ok(inner) = inner.downcast::<Error>() {
                return *inner;
            }
        }
        unreachable!("checked above")
    }
    Error::from(e)
}

/// A boxed payload back as an [`Error`]: the [`Error`] it is, or `whole`, the error that holds
/// it, kept as it is under `kind`.
fn boxed_into_error<T: StdError + Send + Sync + 'static>(
    b: BoxError,
    rebuild: impl FnOnce(BoxError) -> T,
    kind: ErrorKind,
) -> Error {
    match b.downcast::<Error>() {
        Ok(e) => *e,
        Err(b) => compat(kind, rebuild(b)),
    }
}

/// An [`Error`] that holds one of these types as it is.
fn compat<T: StdError + Send + Sync + 'static>(kind: ErrorKind, error: T) -> Error {
    Error::new(Detail::Compat {
        kind,
        error: Box::new(error),
    })
}

/// The error an [`Error`] of kind `Compat` holds, if it is a `T`.
fn held<T: StdError + 'static>(e: Error) -> Result<T, Error> {
    let Error(inner) = e;
    match inner.detail {
        Detail::Compat { kind, error } => match error.downcast::<T>() {
            Ok(t) => Ok(*t),
            Err(error) => Err(Error(Box::new(super::Inner {
                detail: Detail::Compat { kind, error },
                member: inner.member,
            }))),
        },
        detail => Err(Error(Box::new(super::Inner {
            detail,
            member: inner.member,
        }))),
    }
}

/// An [`Error`] as the I/O error an ndarray-npy `Io` variant holds: the operating system's
/// own error where that is all there is (a path it was about is dropped, as ndarray-npy never
/// had it), else an error of the nearest [`io::ErrorKind`] that carries the [`Error`].
fn into_io(e: Error) -> io::Error {
    let kind = e.kind();
    let Error(inner) = e;
    match inner.detail {
        Detail::Io(io) | Detail::OutOfMemory(io) if inner.member.is_none() => {
            if io.get_ref().is_some_and(|i| i.is::<PathError>()) {
                let kind = io.kind();
                if let Some(Ok(path)) = io.into_inner().map(|i| i.downcast::<PathError>()) {
                    return path.error;
                }
                return io::Error::from(kind);
            }
            io
        }
        detail => {
            let io_kind = match (&detail, kind) {
                (Detail::Io(io) | Detail::OutOfMemory(io), _) => io.kind(),
                (_, ErrorKind::Truncated) => io::ErrorKind::UnexpectedEof,
                (_, ErrorKind::MissingMember) => io::ErrorKind::NotFound,
                (_, ErrorKind::Limit | ErrorKind::Usage) => io::ErrorKind::InvalidInput,
                _ => io::ErrorKind::InvalidData,
            };
            let e = Error(Box::new(super::Inner {
                detail,
                member: inner.member,
            }));
            io::Error::new(io_kind, e)
        }
    }
}

/// A `std::str::Utf8Error` whose `valid_up_to` is `offset` (ndarray-npy's error for a version
/// 3.0 header that is not UTF-8 holds one), for offsets up to 1 MiB.
fn utf8_error(offset: usize) -> Option<std::str::Utf8Error> {
    if offset > 1 << 20 {
        return None;
    }
    let mut bytes = vec![b' '; offset];
    bytes.push(0xff);
    std::str::from_utf8(&bytes).err()
}

/// A header key as Python's repr (ndnpy keeps a key that is a string as its text).
fn key_literal(key: &str) -> String {
    let mut out = String::new();
    crate::base::pyrepr::repr_str(key, &mut out);
    out
}

/// An error parsing an `.npy` header: ndarray-npy's `npy::header::ParseHeaderError`, carried by
/// [`ReadNpyError::ParseHeader`] and [`ViewNpyError::ParseHeader`].
///
/// # Examples
///
/// ```
/// use ndnpy::{npy::header::ParseHeaderError, ReadNpyError, ReadNpyExt};
/// let err = ndarray::Array1::<f64>::read_npy(&b"not an npy file"[..]).unwrap_err();
/// assert!(matches!(err, ReadNpyError::ParseHeader(ParseHeaderError::MagicString)));
/// assert_eq!(err.to_string(), "error parsing header: start does not match magic string");
/// ```
#[derive(Debug)]
pub enum ParseHeaderError {
    /// The first several bytes are not the expected magic string.
    MagicString,
    /// The version number specified in the header is unsupported.
    Version {
        /// The major version byte.
        major: u8,
        /// The minor version byte.
        minor: u8,
    },
    /// The `HEADER_LEN` doesn't fit in `usize`.
    HeaderLengthOverflow(u32),
    /// The array format string contains non-ASCII characters (versions 1.0 and 2.0).
    NonAscii,
    /// Error parsing the array format string as UTF-8 (version 3.0).
    Utf8Parse(std::str::Utf8Error),
    /// The Python dictionary in the header contains an unexpected key.
    UnknownKey(PyLiteral),
    /// The Python dictionary in the header is missing an expected key.
    MissingKey(String),
    /// The value corresponding to an expected key is illegal (e.g., the wrong type).
    IllegalValue {
        /// The key in the header dictionary.
        key: String,
        /// The corresponding (illegal) value.
        value: PyLiteral,
    },
    /// Error parsing the dictionary in the header (also: a header over a
    /// [`ReadOptions`](crate::ReadConfig) limit, or a shape of more than 64 dimensions).
    DictParse(Error),
    /// The metadata in the header is not a dictionary.
    MetaNotDict(PyLiteral),
    /// There is no newline at the end of the header.
    MissingNewline,
}

impl ParseHeaderError {
    /// What went wrong, as [`Error::kind`] tells it.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{npy::header::ParseHeaderError, ErrorKind};
    /// assert_eq!(ParseHeaderError::MagicString.kind(), ErrorKind::Header);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            ParseHeaderError::DictParse(e) => e.kind(),
            ParseHeaderError::UnknownKey(l)
            | ParseHeaderError::IllegalValue { value: l, .. }
            | ParseHeaderError::MetaNotDict(l) => l.kind_or(ErrorKind::Header),
            _ => ErrorKind::Header,
        }
    }

    /// The [`Error`] behind it, if it carries one.
    fn take_error(self) -> Result<Error, ParseHeaderError> {
        match self {
            ParseHeaderError::DictParse(e) => Ok(e),
            ParseHeaderError::UnknownKey(PyLiteral { error: Some(e), .. })
            | ParseHeaderError::IllegalValue {
                value: PyLiteral { error: Some(e), .. },
                ..
            }
            | ParseHeaderError::MetaNotDict(PyLiteral { error: Some(e), .. }) => Ok(*e),
            ParseHeaderError::Utf8Parse(e) => Ok(FormatError::HeaderEncoding {
                offset: e.valid_up_to(),
            }
            .into()),
            ParseHeaderError::Version { major, minor } => {
                Ok(FormatError::UnsupportedVersion { major, minor }.into())
            }
            other => Err(other),
        }
    }
}

impl StdError for ParseHeaderError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ParseHeaderError::Utf8Parse(e) => Some(e),
            ParseHeaderError::DictParse(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for ParseHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseHeaderError::*;
        match self {
            MagicString => write!(f, "start does not match magic string"),
            Version { major, minor } => write!(f, "unknown version number: {major}.{minor}"),
            HeaderLengthOverflow(len) => write!(f, "HEADER_LEN {len} does not fit in `usize`"),
            NonAscii => write!(
                f,
                "non-ascii in array format string; this is not supported in .npy format \
                 versions 1.0 and 2.0"
            ),
            Utf8Parse(e) => write!(f, "error parsing array format string as UTF-8: {e}"),
            UnknownKey(key) => write!(f, "unknown key: {key}"),
            MissingKey(key) => write!(f, "missing key: {key}"),
            IllegalValue { key, value } => write!(f, "illegal value for key {key}: {value}"),
            DictParse(e) => write!(f, "error parsing metadata dict: {e}"),
            MetaNotDict(value) => write!(f, "metadata is not a dict: {value}"),
            MissingNewline => write!(f, "newline missing at end of header"),
        }
    }
}

/// The header fault ndarray-npy reports for the input that gave `e`; a fault that is not the
/// header's is `DictParse` of it.
impl From<Error> for ParseHeaderError {
    fn from(e: Error) -> ParseHeaderError {
        let e = match held::<ParseHeaderError>(e) {
            Ok(h) => return h,
            Err(e) => e,
        };
        match NpyFault::of(e) {
            NpyFault::Header(h) => h,
            other => ParseHeaderError::DictParse(Error::from(ReadNpyError::from(other))),
        }
    }
}

/// The [`Error`] it carries; otherwise an [`Error`] of kind `Header` that holds it.
impl From<ParseHeaderError> for Error {
    fn from(h: ParseHeaderError) -> Error {
        match h.take_error() {
            Ok(e) => e,
            Err(h) => compat(ErrorKind::Header, h),
        }
    }
}

impl From<std::str::Utf8Error> for ParseHeaderError {
    fn from(e: std::str::Utf8Error) -> ParseHeaderError {
        ParseHeaderError::Utf8Parse(e)
    }
}

/// An error formatting an `.npy` header: ndarray-npy's `npy::header::FormatHeaderError`,
/// carried by [`WriteNpyError::FormatHeader`].
///
/// # Examples
///
/// ```
/// use ndnpy::npy::header::FormatHeaderError;
/// assert_eq!(FormatHeaderError::HeaderTooLong.to_string(), "the header is too long");
/// ```
#[derive(Debug)]
pub enum FormatHeaderError {
    /// Error formatting the header's metadata dictionary (a shape numpy cannot hold).
    PyValue(Error),
    /// The total header length overflows `usize`, or `HEADER_LEN` exceeds the maximum
    /// encodable value.
    HeaderTooLong,
}

impl StdError for FormatHeaderError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            FormatHeaderError::PyValue(e) => Some(e),
            FormatHeaderError::HeaderTooLong => None,
        }
    }
}

impl fmt::Display for FormatHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatHeaderError::PyValue(e) => write!(f, "error formatting Python value: {e}"),
            FormatHeaderError::HeaderTooLong => write!(f, "the header is too long"),
        }
    }
}

impl From<Error> for FormatHeaderError {
    fn from(e: Error) -> FormatHeaderError {
        let e = match held::<FormatHeaderError>(e) {
            Ok(h) => return h,
            Err(e) => e,
        };
        match e.detail() {
            Detail::Usage(UsageError::HeaderTooLarge { .. }) => FormatHeaderError::HeaderTooLong,
            _ => FormatHeaderError::PyValue(e),
        }
    }
}

/// The [`Error`] it carries; otherwise an [`Error`] of kind `Usage` that holds it.
impl From<FormatHeaderError> for Error {
    fn from(h: FormatHeaderError) -> Error {
        match h {
            FormatHeaderError::PyValue(e) => e,
            h => compat(ErrorKind::Usage, h),
        }
    }
}

/// How ndarray-npy's `.npy` readers and views report a fault: what [`ReadNpyError`],
/// [`ViewNpyError`], [`ReadDataError`] and [`ViewDataError`] have in common, so that each
/// converts into the others and an [`Error`] is classified once.
enum NpyFault {
    Io(io::Error),
    Header(ParseHeaderError),
    /// `ParseData`, `InvalidData`.
    Data(BoxError),
    LengthOverflow,
    WrongNdim(Option<usize>, usize),
    WrongDescriptor(PyLiteral),
    NonNativeEndian(Option<Error>),
    Misaligned(Option<Error>),
    /// The bytes missing, when known.
    Missing(Option<usize>),
    Extra(usize),
}

impl NpyFault {
    /// The fault ndarray-npy reports for the input that gave `e`.
    fn of(e: Error) -> NpyFault {
        // One of these types kept as it is.
        let e = match held::<ReadNpyError>(e) {
            Ok(r) => return r.into(),
            Err(e) => e,
        };
        let e = match held::<ViewNpyError>(e) {
            Ok(v) => return v.into(),
            Err(e) => e,
        };
        let e = match held::<ReadDataError>(e) {
            Ok(r) => return ReadNpyError::from(r).into(),
            Err(e) => e,
        };
        let e = match held::<ViewDataError>(e) {
            Ok(v) => return ViewNpyError::from(v).into(),
            Err(e) => e,
        };
        let literal = |text: String, e: Error| PyLiteral::with_error(text, e);
        match e.detail() {
            Detail::Io(_) | Detail::OutOfMemory(_) => NpyFault::Io(into_io(e)),
            Detail::Format(f) => match f {
                // ndarray-npy reads the six bytes of the magic string with `read_exact`.
                FormatError::BadMagic { found } if found.len() < 6 => {
                    NpyFault::Io(io::Error::new(io::ErrorKind::UnexpectedEof, e))
                }
                FormatError::BadMagic { .. } => NpyFault::Header(ParseHeaderError::MagicString),
                FormatError::UnsupportedVersion { major, minor } => {
                    NpyFault::Header(ParseHeaderError::Version {
                        major: *major,
                        minor: *minor,
                    })
                }
                FormatError::Truncated {
                    part: "array data",
                    expected,
                    found,
                } => NpyFault::Missing(usize::try_from(expected.saturating_sub(*found)).ok()),
                // ndarray-npy reads the header with `read_exact`.
                FormatError::Truncated { .. } => NpyFault::Io(into_io(e)),
                FormatError::HeaderEncoding { offset } => match utf8_error(*offset) {
                    Some(u) => NpyFault::Header(ParseHeaderError::Utf8Parse(u)),
                    None => NpyFault::Header(ParseHeaderError::DictParse(e)),
                },
                FormatError::HeaderNotDict { found } => {
                    NpyFault::Header(ParseHeaderError::MetaNotDict(literal(found.clone(), e)))
                }
                FormatError::HeaderKeys { found } => {
                    let known = ["descr", "fortran_order", "shape"];
                    if let Some(key) = found.iter().find(|k| !known.contains(&k.as_str())) {
                        let key = key_literal(key);
                        NpyFault::Header(ParseHeaderError::UnknownKey(literal(key, e)))
                    } else {
                        // ndarray-npy's own spelling of the third.
                        let missing = ["descr", "fortran_order", "shaper"]
                            .into_iter()
                            .zip(known)
                            .find(|(_, k)| !found.iter().any(|f| f == k))
                            .map_or("descr", |(name, _)| name);
                        NpyFault::Header(ParseHeaderError::MissingKey(missing.to_string()))
                    }
                }
                FormatError::InvalidShape { found } => {
                    NpyFault::Header(ParseHeaderError::IllegalValue {
                        key: "shape".to_string(),
                        value: literal(found.clone(), e),
                    })
                }
                FormatError::InvalidFortranOrder { found } => {
                    NpyFault::Header(ParseHeaderError::IllegalValue {
                        key: "fortran_order".to_string(),
                        value: literal(found.clone(), e),
                    })
                }
                FormatError::InvalidDescr { found, .. } => {
                    NpyFault::WrongDescriptor(literal(found.clone(), e))
                }
                FormatError::ShapeOverflow { .. } => NpyFault::LengthOverflow,
                FormatError::TrailingBytes { expected, found } => {
                    NpyFault::Extra(usize::try_from(found.saturating_sub(*expected)).unwrap_or(0))
                }
                FormatError::HeaderSyntax { .. } | FormatError::TooManyDimensions { .. } => {
                    NpyFault::Header(ParseHeaderError::DictParse(e))
                }
                FormatError::InvalidCodePoint { .. }
                | FormatError::InvalidBool { .. }
                | FormatError::InvalidField { .. }
                | FormatError::Pickle { .. }
                | FormatError::Foreign { .. } => NpyFault::Data(Box::new(e)),
                // An archive's faults, when an `.npy` type meets them: ndarray-npy reads a
                // member through zip's reader, whose faults are I/O errors.
                FormatError::NotZip { .. }
                | FormatError::Zip { .. }
                | FormatError::CorruptMember { .. }
                | FormatError::MemberTruncated { .. }
                | FormatError::MemberOverrun { .. }
                | FormatError::MemberChecksum { .. }
                | FormatError::UnsupportedMember { .. } => NpyFault::Io(into_io(e)),
            },
            Detail::Mismatch(m) => match m {
                MismatchError::Ndim {
                    expected, found, ..
                } => NpyFault::WrongNdim(Some(*expected), *found),
                MismatchError::DType { found, .. }
                | MismatchError::Field { found, .. }
                | MismatchError::Layout { found, .. } => {
                    NpyFault::WrongDescriptor(literal(found.descr(), e))
                }
                MismatchError::MissingFields { found, .. } => {
                    let names: Vec<String> = found.iter().map(|n| key_literal(n)).collect();
                    NpyFault::WrongDescriptor(literal(format!("[{}]", names.join(", ")), e))
                }
                MismatchError::ByteOrder { .. } => NpyFault::NonNativeEndian(Some(e)),
                MismatchError::Misaligned { .. } => NpyFault::Misaligned(Some(e)),
                MismatchError::NotNpy { found, .. } if found.len() < 6 => {
                    NpyFault::Io(io::Error::new(io::ErrorKind::UnexpectedEof, e))
                }
                MismatchError::NotNpy { .. } => NpyFault::Header(ParseHeaderError::MagicString),
                MismatchError::MissingMember { .. } | MismatchError::MemberIndex { .. } => {
                    NpyFault::Io(into_io(e))
                }
                _ => NpyFault::Data(Box::new(e)),
            },
            Detail::Limit(LimitError::HeaderTooLarge { .. } | LimitError::TooDeep { .. }) => {
                NpyFault::Header(ParseHeaderError::DictParse(e))
            }
            Detail::Compat { .. } if e.kind() == ErrorKind::Io => NpyFault::Io(into_io(e)),
            _ => NpyFault::Data(Box::new(e)),
        }
    }
}

/// An error reading a `.npy` file: ndarray-npy's `ReadNpyError`, returned by
/// `read_npy` and `ReadNpyExt::read_npy`.
///
/// Its messages are ndarray-npy's; [`kind`](ReadNpyError::kind) and `Error::from` give
/// ndnpy's detail.
///
/// # Examples
///
/// ```
/// use ndarray::Array1;
/// use ndnpy::{ErrorKind, ReadNpyError};
/// let err = ndnpy::read_npy::<_, Array1<f64>>("testdata/f8_le_c_2x3.npy").unwrap_err();
/// assert!(matches!(err, ReadNpyError::WrongNdim(Some(1), 2)));
/// assert_eq!(err.to_string(), "ndim 2 of array did not match Dimension type with NDIM = Some(1)");
/// assert_eq!(err.kind(), ErrorKind::Ndim);
/// // `?` into ndnpy's own error, or any boxed error.
/// fn load() -> Result<Array1<f64>, ndnpy::Error> {
///     Ok(ndnpy::read_npy("testdata/f8_le_c_2x3.npy")?)
/// }
/// assert_eq!(load().unwrap_err().kind(), ErrorKind::Ndim);
/// ```
#[derive(Debug)]
pub enum ReadNpyError {
    /// An error caused by I/O.
    Io(io::Error),
    /// An error parsing the file header.
    ParseHeader(ParseHeaderError),
    /// An error parsing the data.
    ParseData(BoxError),
    /// Overflow while computing the length of the array (in units of bytes or the number of
    /// elements) from the shape described in the file header.
    LengthOverflow,
    /// An error caused by incorrect `Dimension` type: the type's and the file's number of
    /// dimensions.
    WrongNdim(Option<usize>, usize),
    /// The type descriptor does not match the element type.
    WrongDescriptor(PyLiteral),
    /// The file does not contain all the data described in the header.
    MissingData,
    /// Extra bytes are present between the end of the data and the end of the file.
    ExtraBytes(usize),
}

impl ReadNpyError {
    /// What went wrong, as [`Error::kind`] tells it.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, ReadNpyError};
    /// assert_eq!(ReadNpyError::MissingData.kind(), ErrorKind::Truncated);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReadNpyError::Io(e) => io_kind(e),
            ReadNpyError::ParseHeader(p) => p.kind(),
            ReadNpyError::ParseData(b) => boxed_kind(b, ErrorKind::InvalidData),
            ReadNpyError::LengthOverflow => ErrorKind::Header,
            ReadNpyError::WrongNdim(..) => ErrorKind::Ndim,
            ReadNpyError::WrongDescriptor(l) => l.kind_or(ErrorKind::DType),
            ReadNpyError::MissingData => ErrorKind::Truncated,
            ReadNpyError::ExtraBytes(_) => ErrorKind::TrailingBytes,
        }
    }
}

impl StdError for ReadNpyError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ReadNpyError::Io(e) => Some(e),
            ReadNpyError::ParseHeader(e) => Some(e),
            ReadNpyError::ParseData(e) => Some(&**e),
            _ => None,
        }
    }
}

impl fmt::Display for ReadNpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadNpyError::Io(e) => write!(f, "I/O error: {e}"),
            ReadNpyError::ParseHeader(e) => write!(f, "error parsing header: {e}"),
            ReadNpyError::ParseData(e) => write!(f, "error parsing data: {e}"),
            ReadNpyError::LengthOverflow => write!(f, "overflow computing length from shape"),
            ReadNpyError::WrongNdim(expected, actual) => write!(
                f,
                "ndim {actual} of array did not match Dimension type with NDIM = {expected:?}"
            ),
            ReadNpyError::WrongDescriptor(d) => {
                write!(f, "incorrect descriptor ({d}) for this type")
            }
            ReadNpyError::MissingData => write!(f, "reached EOF before reading all data"),
            ReadNpyError::ExtraBytes(n) => write!(f, "file had {n} extra bytes before EOF"),
        }
    }
}

impl From<io::Error> for ReadNpyError {
    fn from(e: io::Error) -> ReadNpyError {
        ReadNpyError::Io(e)
    }
}

impl From<ParseHeaderError> for ReadNpyError {
    fn from(e: ParseHeaderError) -> ReadNpyError {
        ReadNpyError::ParseHeader(e)
    }
}

impl From<ReadDataError> for ReadNpyError {
    fn from(e: ReadDataError) -> ReadNpyError {
        match e {
            ReadDataError::Io(e) => ReadNpyError::Io(e),
            ReadDataError::WrongDescriptor(d) => ReadNpyError::WrongDescriptor(d),
            ReadDataError::MissingData => ReadNpyError::MissingData,
            ReadDataError::ExtraBytes(n) => ReadNpyError::ExtraBytes(n),
            ReadDataError::ParseData(e) => ReadNpyError::ParseData(e),
        }
    }
}

impl From<NpyFault> for ReadNpyError {
    fn from(f: NpyFault) -> ReadNpyError {
        match f {
            NpyFault::Io(e) => ReadNpyError::Io(e),
            NpyFault::Header(h) => ReadNpyError::ParseHeader(h),
            NpyFault::Data(b) => ReadNpyError::ParseData(b),
            NpyFault::LengthOverflow => ReadNpyError::LengthOverflow,
            NpyFault::WrongNdim(e, f) => ReadNpyError::WrongNdim(e, f),
            NpyFault::WrongDescriptor(d) => ReadNpyError::WrongDescriptor(d),
            NpyFault::NonNativeEndian(e) => ReadNpyError::ParseData(match e {
                Some(e) => Box::new(e),
                None => Box::new(Message("descriptor does not match native endianness")),
            }),
            NpyFault::Misaligned(e) => ReadNpyError::ParseData(match e {
                Some(e) => Box::new(e),
                None => Box::new(Message(
                    "start of data is not properly aligned for the element type",
                )),
            }),
            NpyFault::Missing(_) => ReadNpyError::MissingData,
            NpyFault::Extra(n) => ReadNpyError::ExtraBytes(n),
        }
    }
}

impl From<ReadNpyError> for NpyFault {
    fn from(e: ReadNpyError) -> NpyFault {
        match e {
            ReadNpyError::Io(e) => NpyFault::Io(e),
            ReadNpyError::ParseHeader(h) => NpyFault::Header(h),
            ReadNpyError::ParseData(b) => NpyFault::Data(b),
            ReadNpyError::LengthOverflow => NpyFault::LengthOverflow,
            ReadNpyError::WrongNdim(e, f) => NpyFault::WrongNdim(e, f),
            ReadNpyError::WrongDescriptor(d) => NpyFault::WrongDescriptor(d),
            ReadNpyError::MissingData => NpyFault::Missing(None),
            ReadNpyError::ExtraBytes(n) => NpyFault::Extra(n),
        }
    }
}

/// ndnpy's error for the fault, with all its detail.
impl From<Error> for ReadNpyError {
    fn from(e: Error) -> ReadNpyError {
        NpyFault::of(e).into()
    }
}

/// The [`Error`] the payload carries; otherwise an [`Error`] of this kind that holds `e`.
impl From<ReadNpyError> for Error {
    fn from(e: ReadNpyError) -> Error {
        let kind = e.kind();
        match e {
            ReadNpyError::Io(io) => io_into_error(io),
            ReadNpyError::ParseHeader(h) => match h.take_error() {
                Ok(e) => e,
                Err(h) => compat(kind, ReadNpyError::ParseHeader(h)),
            },
            ReadNpyError::ParseData(b) => boxed_into_error(b, ReadNpyError::ParseData, kind),
            ReadNpyError::WrongDescriptor(PyLiteral { error: Some(e), .. }) => *e,
            other => compat(kind, other),
        }
    }
}

/// An error reading array data: ndarray-npy's `ReadDataError`, which its element traits'
/// methods return (ndnpy's return [`Error`]); it converts into a [`ReadNpyError`] and an
/// [`Error`].
///
/// # Examples
///
/// ```
/// use ndnpy::{ReadDataError, ReadNpyError};
/// let e: ReadNpyError = ReadDataError::MissingData.into();
/// assert!(matches!(e, ReadNpyError::MissingData));
/// ```
#[derive(Debug)]
pub enum ReadDataError {
    /// An error caused by I/O.
    Io(io::Error),
    /// The type descriptor does not match the element type.
    WrongDescriptor(PyLiteral),
    /// The file does not contain all the data described in the header.
    MissingData,
    /// Extra bytes are present between the end of the data and the end of the file.
    ExtraBytes(usize),
    /// An error parsing the data.
    ParseData(BoxError),
}

impl StdError for ReadDataError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ReadDataError::Io(e) => Some(e),
            ReadDataError::ParseData(e) => Some(&**e),
            _ => None,
        }
    }
}

impl fmt::Display for ReadDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadDataError::Io(e) => write!(f, "I/O error: {e}"),
            ReadDataError::WrongDescriptor(d) => {
                write!(f, "incorrect descriptor ({d}) for this type")
            }
            ReadDataError::MissingData => write!(f, "reached EOF before reading all data"),
            ReadDataError::ExtraBytes(n) => write!(f, "file had {n} extra bytes before EOF"),
            ReadDataError::ParseData(e) => write!(f, "error parsing data: {e}"),
        }
    }
}

/// `MissingData` for [`io::ErrorKind::UnexpectedEof`], `Io` otherwise, as in ndarray-npy.
impl From<io::Error> for ReadDataError {
    fn from(e: io::Error) -> ReadDataError {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            ReadDataError::MissingData
        } else {
            ReadDataError::Io(e)
        }
    }
}

impl From<Error> for ReadDataError {
    fn from(e: Error) -> ReadDataError {
        match held::<ReadDataError>(e) {
            Ok(r) => r,
            Err(e) => match ReadNpyError::from(e) {
                ReadNpyError::Io(e) => ReadDataError::Io(e),
                ReadNpyError::WrongDescriptor(d) => ReadDataError::WrongDescriptor(d),
                ReadNpyError::MissingData => ReadDataError::MissingData,
                ReadNpyError::ExtraBytes(n) => ReadDataError::ExtraBytes(n),
                ReadNpyError::ParseData(b) => ReadDataError::ParseData(b),
                other => ReadDataError::ParseData(Box::new(Error::from(other))),
            },
        }
    }
}

impl From<ReadDataError> for Error {
    fn from(e: ReadDataError) -> Error {
        match e {
            ReadDataError::Io(io) => io_into_error(io),
            ReadDataError::WrongDescriptor(PyLiteral { error: Some(e), .. }) => *e,
            ReadDataError::ParseData(b) => {
                boxed_into_error(b, ReadDataError::ParseData, ErrorKind::InvalidData)
            }
            other => {
                let kind = match &other {
                    ReadDataError::WrongDescriptor(_) => ErrorKind::DType,
                    ReadDataError::ExtraBytes(_) => ErrorKind::TrailingBytes,
                    _ => ErrorKind::Truncated,
                };
                compat(kind, other)
            }
        }
    }
}

/// An error viewing a `.npy` file: ndarray-npy's `ViewNpyError`, returned by
/// `ViewNpyExt::view_npy` and
/// `ViewMutNpyExt::view_mut_npy`.
///
/// # Examples
///
/// ```
/// use ndnpy::{ViewNpyError, ViewNpyExt};
/// let mut bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
/// bytes.extend_from_slice(&[0; 8]);
/// let err = ndarray::ArrayView2::<f64>::view_npy(&bytes).unwrap_err();
/// assert!(matches!(err, ViewNpyError::ExtraBytes(8)));
/// assert_eq!(err.to_string(), "file had 8 extra bytes before EOF");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ViewNpyError {
    /// An error caused by I/O.
    Io(io::Error),
    /// An error parsing the file header.
    ParseHeader(ParseHeaderError),
    /// Some of the data is invalid for the element type.
    InvalidData(BoxError),
    /// Overflow while computing the length of the array from the shape described in the file
    /// header.
    LengthOverflow,
    /// An error caused by incorrect `Dimension` type.
    WrongNdim(Option<usize>, usize),
    /// The type descriptor does not match the element type.
    WrongDescriptor(PyLiteral),
    /// The type descriptor does not match the native endianness.
    NonNativeEndian,
    /// The start of the data is not properly aligned for the element type.
    MisalignedData,
    /// The file does not contain all the data described in the header.
    MissingBytes(usize),
    /// Extra bytes are present between the end of the data and the end of the file.
    ExtraBytes(usize),
}

impl ViewNpyError {
    /// What went wrong, as [`Error::kind`] tells it.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, ViewNpyError};
    /// assert_eq!(ViewNpyError::MisalignedData.kind(), ErrorKind::CannotView);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            ViewNpyError::Io(e) => io_kind(e),
            ViewNpyError::ParseHeader(p) => p.kind(),
            ViewNpyError::InvalidData(b) => boxed_kind(b, ErrorKind::InvalidData),
            ViewNpyError::LengthOverflow => ErrorKind::Header,
            ViewNpyError::WrongNdim(..) => ErrorKind::Ndim,
            ViewNpyError::WrongDescriptor(l) => l.kind_or(ErrorKind::DType),
            ViewNpyError::NonNativeEndian | ViewNpyError::MisalignedData => ErrorKind::CannotView,
            ViewNpyError::MissingBytes(_) => ErrorKind::Truncated,
            ViewNpyError::ExtraBytes(_) => ErrorKind::TrailingBytes,
        }
    }
}

impl StdError for ViewNpyError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ViewNpyError::Io(e) => Some(e),
            ViewNpyError::ParseHeader(e) => Some(e),
            ViewNpyError::InvalidData(e) => Some(&**e),
            _ => None,
        }
    }
}

impl fmt::Display for ViewNpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewNpyError::Io(e) => write!(f, "I/O error: {e}"),
            ViewNpyError::ParseHeader(e) => write!(f, "error parsing header: {e}"),
            ViewNpyError::InvalidData(e) => write!(f, "invalid data for element type: {e}"),
            ViewNpyError::LengthOverflow => write!(f, "overflow computing length from shape"),
            ViewNpyError::WrongNdim(expected, actual) => write!(
                f,
                "ndim {actual} of array did not match Dimension type with NDIM = {expected:?}"
            ),
            ViewNpyError::WrongDescriptor(d) => {
                write!(f, "incorrect descriptor ({d}) for this type")
            }
            ViewNpyError::NonNativeEndian => {
                write!(f, "descriptor does not match native endianness")
            }
            ViewNpyError::MisalignedData => write!(
                f,
                "start of data is not properly aligned for the element type"
            ),
            ViewNpyError::MissingBytes(n) => {
                write!(f, "missing {n} bytes of data specified in header")
            }
            ViewNpyError::ExtraBytes(n) => write!(f, "file had {n} extra bytes before EOF"),
        }
    }
}

impl From<ParseHeaderError> for ViewNpyError {
    fn from(e: ParseHeaderError) -> ViewNpyError {
        ViewNpyError::ParseHeader(e)
    }
}

impl From<ViewDataError> for ViewNpyError {
    fn from(e: ViewDataError) -> ViewNpyError {
        match e {
            ViewDataError::WrongDescriptor(d) => ViewNpyError::WrongDescriptor(d),
            ViewDataError::NonNativeEndian => ViewNpyError::NonNativeEndian,
            ViewDataError::Misaligned => ViewNpyError::MisalignedData,
            ViewDataError::MissingBytes(n) => ViewNpyError::MissingBytes(n),
            ViewDataError::ExtraBytes(n) => ViewNpyError::ExtraBytes(n),
            ViewDataError::InvalidData(b) => ViewNpyError::InvalidData(b),
        }
    }
}

impl From<NpyFault> for ViewNpyError {
    fn from(f: NpyFault) -> ViewNpyError {
        match f {
            NpyFault::Io(e) => ViewNpyError::Io(e),
            NpyFault::Header(h) => ViewNpyError::ParseHeader(h),
            NpyFault::Data(b) => ViewNpyError::InvalidData(b),
            NpyFault::LengthOverflow => ViewNpyError::LengthOverflow,
            NpyFault::WrongNdim(e, f) => ViewNpyError::WrongNdim(e, f),
            NpyFault::WrongDescriptor(d) => ViewNpyError::WrongDescriptor(d),
            NpyFault::NonNativeEndian(_) => ViewNpyError::NonNativeEndian,
            NpyFault::Misaligned(_) => ViewNpyError::MisalignedData,
            NpyFault::Missing(n) => ViewNpyError::MissingBytes(n.unwrap_or(0)),
            NpyFault::Extra(n) => ViewNpyError::ExtraBytes(n),
        }
    }
}

impl From<ViewNpyError> for NpyFault {
    fn from(e: ViewNpyError) -> NpyFault {
        match e {
            ViewNpyError::Io(e) => NpyFault::Io(e),
            ViewNpyError::ParseHeader(h) => NpyFault::Header(h),
            ViewNpyError::InvalidData(b) => NpyFault::Data(b),
            ViewNpyError::LengthOverflow => NpyFault::LengthOverflow,
            ViewNpyError::WrongNdim(e, f) => NpyFault::WrongNdim(e, f),
            ViewNpyError::WrongDescriptor(d) => NpyFault::WrongDescriptor(d),
            ViewNpyError::NonNativeEndian => NpyFault::NonNativeEndian(None),
            ViewNpyError::MisalignedData => NpyFault::Misaligned(None),
            ViewNpyError::MissingBytes(n) => NpyFault::Missing(Some(n)),
            ViewNpyError::ExtraBytes(n) => NpyFault::Extra(n),
        }
    }
}

impl From<Error> for ViewNpyError {
    fn from(e: Error) -> ViewNpyError {
        // A fault a view meets that carries its detail in a unit variant here.
        match e.detail() {
            Detail::Mismatch(MismatchError::ByteOrder { .. }) => ViewNpyError::NonNativeEndian,
            Detail::Mismatch(MismatchError::Misaligned { .. }) => ViewNpyError::MisalignedData,
            _ => NpyFault::of(e).into(),
        }
    }
}

impl From<ViewNpyError> for Error {
    fn from(e: ViewNpyError) -> Error {
        let kind = e.kind();
        match e {
            ViewNpyError::Io(io) => io_into_error(io),
            ViewNpyError::ParseHeader(h) => match h.take_error() {
                Ok(e) => e,
                Err(h) => compat(kind, ViewNpyError::ParseHeader(h)),
            },
            ViewNpyError::InvalidData(b) => boxed_into_error(b, ViewNpyError::InvalidData, kind),
            ViewNpyError::WrongDescriptor(PyLiteral { error: Some(e), .. }) => *e,
            other => compat(kind, other),
        }
    }
}

/// An error viewing array data: ndarray-npy's `ViewDataError`, which its element traits'
/// methods return (ndnpy's return [`Error`]); it converts into a [`ViewNpyError`] and an
/// [`Error`].
///
/// # Examples
///
/// ```
/// use ndnpy::{ViewDataError, ViewNpyError};
/// let e: ViewNpyError = ViewDataError::Misaligned.into();
/// assert!(matches!(e, ViewNpyError::MisalignedData));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ViewDataError {
    /// The type descriptor does not match the element type.
    WrongDescriptor(PyLiteral),
    /// The type descriptor does not match the native endianness.
    NonNativeEndian,
    /// The start of the data is not properly aligned for the element type.
    Misaligned,
    /// The file does not contain all the data described in the header.
    MissingBytes(usize),
    /// Extra bytes are present between the end of the data and the end of the file.
    ExtraBytes(usize),
    /// Some of the data is invalid for the element type.
    InvalidData(BoxError),
}

impl StdError for ViewDataError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ViewDataError::InvalidData(e) => Some(&**e),
            _ => None,
        }
    }
}

impl fmt::Display for ViewDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewDataError::WrongDescriptor(d) => {
                write!(f, "incorrect descriptor ({d}) for this type")
            }
            ViewDataError::NonNativeEndian => {
                write!(f, "descriptor does not match native endianness")
            }
            ViewDataError::Misaligned => write!(
                f,
                "start of data is not properly aligned for the element type"
            ),
            ViewDataError::MissingBytes(n) => {
                write!(f, "missing {n} bytes of data specified in header")
            }
            ViewDataError::ExtraBytes(n) => write!(f, "file had {n} extra bytes before EOF"),
            ViewDataError::InvalidData(e) => write!(f, "invalid data for element type: {e}"),
        }
    }
}

impl From<Error> for ViewDataError {
    fn from(e: Error) -> ViewDataError {
        match held::<ViewDataError>(e) {
            Ok(v) => v,
            Err(e) => match ViewNpyError::from(e) {
                ViewNpyError::WrongDescriptor(d) => ViewDataError::WrongDescriptor(d),
                ViewNpyError::NonNativeEndian => ViewDataError::NonNativeEndian,
                ViewNpyError::MisalignedData => ViewDataError::Misaligned,
                ViewNpyError::MissingBytes(n) => ViewDataError::MissingBytes(n),
                ViewNpyError::ExtraBytes(n) => ViewDataError::ExtraBytes(n),
                ViewNpyError::InvalidData(b) => ViewDataError::InvalidData(b),
                other => ViewDataError::InvalidData(Box::new(Error::from(other))),
            },
        }
    }
}

impl From<ViewDataError> for Error {
    fn from(e: ViewDataError) -> Error {
        match e {
            ViewDataError::WrongDescriptor(PyLiteral { error: Some(e), .. }) => *e,
            ViewDataError::InvalidData(b) => {
                boxed_into_error(b, ViewDataError::InvalidData, ErrorKind::InvalidData)
            }
            other => {
                let kind = match &other {
                    ViewDataError::WrongDescriptor(_) => ErrorKind::DType,
                    ViewDataError::NonNativeEndian | ViewDataError::Misaligned => {
                        ErrorKind::CannotView
                    }
                    ViewDataError::MissingBytes(_) => ErrorKind::Truncated,
                    _ => ErrorKind::TrailingBytes,
                };
                compat(kind, other)
            }
        }
    }
}

/// An error writing a `.npy` file: ndarray-npy's `WriteNpyError`, returned by
/// `write_npy`, `create_new_npy`,
/// `write_zeroed_npy` and
/// `WriteNpyExt::write_npy`.
///
/// # Examples
///
/// ```
/// use ndnpy::{ErrorKind, WriteNpyError};
/// let dir = std::env::temp_dir().join("ndnpy-doc-write-npy-error");
/// let err = ndnpy::write_npy(dir.join("no/such/dir/a.npy"), &ndarray::array![1.0]).unwrap_err();
/// let WriteNpyError::Io(io) = &err else { panic!("{err}") };
/// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
/// assert_eq!(err.kind(), ErrorKind::Io);
/// ```
#[derive(Debug)]
pub enum WriteNpyError {
    /// An error caused by I/O.
    Io(io::Error),
    /// An error formatting the header.
    FormatHeader(FormatHeaderError),
    /// An error formatting the data.
    FormatData(BoxError),
}

impl WriteNpyError {
    /// What went wrong, as [`Error::kind`] tells it.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{npy::header::FormatHeaderError, ErrorKind, WriteNpyError};
    /// let e = WriteNpyError::FormatHeader(FormatHeaderError::HeaderTooLong);
    /// assert_eq!(e.kind(), ErrorKind::Usage);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            WriteNpyError::Io(e) => io_kind(e),
            WriteNpyError::FormatHeader(FormatHeaderError::PyValue(e)) => e.kind(),
            WriteNpyError::FormatHeader(FormatHeaderError::HeaderTooLong) => ErrorKind::Usage,
            WriteNpyError::FormatData(b) => boxed_kind(b, ErrorKind::Usage),
        }
    }
}

impl StdError for WriteNpyError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            WriteNpyError::Io(e) => Some(e),
            WriteNpyError::FormatHeader(e) => Some(e),
            WriteNpyError::FormatData(e) => Some(&**e),
        }
    }
}

impl fmt::Display for WriteNpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteNpyError::Io(e) => write!(f, "I/O error: {e}"),
            WriteNpyError::FormatHeader(e) => write!(f, "error formatting header: {e}"),
            WriteNpyError::FormatData(e) => write!(f, "error formatting data: {e}"),
        }
    }
}

impl From<io::Error> for WriteNpyError {
    fn from(e: io::Error) -> WriteNpyError {
        WriteNpyError::Io(e)
    }
}

impl From<FormatHeaderError> for WriteNpyError {
    fn from(e: FormatHeaderError) -> WriteNpyError {
        WriteNpyError::FormatHeader(e)
    }
}

impl From<WriteDataError> for WriteNpyError {
    fn from(e: WriteDataError) -> WriteNpyError {
        match e {
            WriteDataError::Io(e) => WriteNpyError::Io(e),
            WriteDataError::FormatData(e) => WriteNpyError::FormatData(e),
        }
    }
}

impl From<Error> for WriteNpyError {
    fn from(e: Error) -> WriteNpyError {
        let e = match held::<WriteNpyError>(e) {
            Ok(w) => return w,
            Err(e) => e,
        };
        let e = match held::<WriteDataError>(e) {
            Ok(w) => return w.into(),
            Err(e) => e,
        };
        match e.detail() {
            Detail::Io(_) | Detail::OutOfMemory(_) => WriteNpyError::Io(into_io(e)),
            Detail::Usage(UsageError::HeaderTooLarge { .. }) => {
                WriteNpyError::FormatHeader(FormatHeaderError::HeaderTooLong)
            }
            Detail::Usage(UsageError::ShapeOverflow { .. })
            | Detail::Usage(UsageError::TooManyDimensions { .. }) => {
                WriteNpyError::FormatHeader(FormatHeaderError::PyValue(e))
            }
            Detail::Compat { .. } if e.kind() == ErrorKind::Io => WriteNpyError::Io(into_io(e)),
            _ => WriteNpyError::FormatData(Box::new(e)),
        }
    }
}

impl From<WriteNpyError> for Error {
    fn from(e: WriteNpyError) -> Error {
        let kind = e.kind();
        match e {
            WriteNpyError::Io(io) => io_into_error(io),
            WriteNpyError::FormatHeader(FormatHeaderError::PyValue(e)) => e,
            WriteNpyError::FormatData(b) => boxed_into_error(b, WriteNpyError::FormatData, kind),
            other => compat(kind, other),
        }
    }
}

/// An error writing array data: ndarray-npy's `WriteDataError`, which its element traits'
/// methods return (ndnpy's return [`Error`]); it converts into a [`WriteNpyError`] and an
/// [`Error`].
///
/// # Examples
///
/// ```
/// use ndnpy::{WriteDataError, WriteNpyError};
/// let e: WriteNpyError = WriteDataError::from(std::io::Error::other("disk full")).into();
/// assert_eq!(e.to_string(), "I/O error: disk full");
/// ```
#[derive(Debug)]
pub enum WriteDataError {
    /// An error caused by I/O.
    Io(io::Error),
    /// An error formatting the data.
    FormatData(BoxError),
}

impl StdError for WriteDataError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            WriteDataError::Io(e) => Some(e),
            WriteDataError::FormatData(e) => Some(&**e),
        }
    }
}

impl fmt::Display for WriteDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteDataError::Io(e) => write!(f, "I/O error: {e}"),
            WriteDataError::FormatData(e) => write!(f, "error formatting data: {e}"),
        }
    }
}

impl From<io::Error> for WriteDataError {
    fn from(e: io::Error) -> WriteDataError {
        WriteDataError::Io(e)
    }
}

impl From<Error> for WriteDataError {
    fn from(e: Error) -> WriteDataError {
        match held::<WriteDataError>(e) {
            Ok(w) => w,
            Err(e) => match WriteNpyError::from(e) {
                WriteNpyError::Io(e) => WriteDataError::Io(e),
                WriteNpyError::FormatData(b) => WriteDataError::FormatData(b),
                other => WriteDataError::FormatData(Box::new(Error::from(other))),
            },
        }
    }
}

impl From<WriteDataError> for Error {
    fn from(e: WriteDataError) -> Error {
        match e {
            WriteDataError::Io(io) => io_into_error(io),
            WriteDataError::FormatData(b) => {
                boxed_into_error(b, WriteDataError::FormatData, ErrorKind::Usage)
            }
        }
    }
}

#[cfg(feature = "npz")]
pub use npz::zip_refused;
#[cfg(feature = "npz")]
pub use npz::{ReadNpzError, WriteNpzError, ZipErrorType};

#[cfg(feature = "npz")]
mod npz {
    use super::*;
    use std::borrow::Cow;
    use zip::result::ZipError;

    mod sealed {
        pub trait Sealed {}
    }

    /// The `zip` crate's error type that [`ReadNpzError`] and [`WriteNpzError`] hold, as the
    /// ndarray-npy version of each crate holds it: zip 6's `ZipError` in `ndnpy`
    /// (ndarray-npy 0.10), zip 2's in `ndnpy-ndarray16` (0.9), zip 0.5's in
    /// `ndnpy-ndarray15` (0.8). Sealed: implemented for those three types only.
    ///
    /// # Examples
    ///
    /// ```
    /// // ndnpy's `ReadNpzError` holds zip 6's error, as ndarray-npy 0.10's does.
    /// let e: ndnpy::ReadNpzError = ndnpy::ReadNpzError::Zip(zip::result::ZipError::FileNotFound);
    /// assert_eq!(e.to_string(), "zip file error: specified file not found in archive");
    /// ```
    pub trait ZipErrorType: StdError + Send + Sync + Sized + 'static + sealed::Sealed {
        /// `FileNotFound`.
        #[doc(hidden)]
        fn file_not_found() -> Self;
        /// `Io(e)`.
        #[doc(hidden)]
        fn io(e: io::Error) -> Self;
        /// `InvalidArchive`: `detail` where the variant holds text of its own making, else
        /// `fixed` (zip 0.5's and zip 2.0 to 2.4's hold a `&'static str`).
        #[doc(hidden)]
        fn invalid_archive(fixed: &'static str, detail: String) -> Self;
        /// `UnsupportedArchive(message)`.
        #[doc(hidden)]
        fn unsupported_archive(message: &'static str) -> Self;
        /// Whether this is `FileNotFound`.
        #[doc(hidden)]
        fn is_file_not_found(&self) -> bool;
        /// The I/O error of `Io`.
        #[doc(hidden)]
        fn as_io(&self) -> Option<&io::Error>;
        /// `Io`'s I/O error, or the error itself.
        #[doc(hidden)]
        fn into_io(self) -> Result<io::Error, Self>;
        /// zip 6's error (which the writer's `zip` crate returns) as this type.
        #[doc(hidden)]
        fn from_zip6(e: ZipError) -> Self {
            match e {
                ZipError::Io(e) => Self::io(e),
                ZipError::FileNotFound => Self::file_not_found(),
                ZipError::UnsupportedArchive(m) => Self::unsupported_archive(m),
                ZipError::InvalidArchive(m) => {
                    Self::invalid_archive("Invalid Zip archive", m.into_owned())
                }
                other => Self::invalid_archive("Invalid Zip archive", other.to_string()),
            }
        }
    }

    /// The payload of `InvalidArchive` from a fixed text and a detailed one: zip 0.5's and zip
    /// 2.0 to 2.4's `&'static str` take the fixed text (zip 0.5 prints none of it), zip 2.5's
    /// and later's `Cow` the detail, as their own writers fill them.
    trait InvalidText {
        fn text(fixed: &'static str, detail: String) -> Self;
    }

    impl InvalidText for &'static str {
        fn text(fixed: &'static str, _: String) -> Self {
            fixed
        }
    }

    impl InvalidText for Cow<'static, str> {
        fn text(_: &'static str, detail: String) -> Self {
            Cow::Owned(detail)
        }
    }

    /// The impl for one major of `zip` (a crate name in this crate's dependencies).
    macro_rules! zip_error_type {
        ($(#[$m:meta])* $krate:ident) => {
            $(#[$m])*
            impl sealed::Sealed for $krate::result::ZipError {}
            $(#[$m])*
            impl ZipErrorType for $krate::result::ZipError {
                fn file_not_found() -> Self {
                    Self::FileNotFound
                }
                fn io(e: io::Error) -> Self {
                    Self::Io(e)
                }
                fn invalid_archive(fixed: &'static str, detail: String) -> Self {
                    Self::InvalidArchive(InvalidText::text(fixed, detail))
                }
                fn unsupported_archive(message: &'static str) -> Self {
                    Self::UnsupportedArchive(message)
                }
                fn is_file_not_found(&self) -> bool {
                    matches!(self, Self::FileNotFound)
                }
                fn as_io(&self) -> Option<&io::Error> {
                    match self {
                        Self::Io(e) => Some(e),
                        _ => None,
                    }
                }
                fn into_io(self) -> Result<io::Error, Self> {
                    match self {
                        Self::Io(e) => Ok(e),
                        other => Err(other),
                    }
                }
            }
        };
    }

    zip_error_type!(zip);
    zip_error_type!(
        #[cfg(feature = "zip2")]
        zip2
    );
    zip_error_type!(
        #[cfg(feature = "zip05")]
        zip05
    );

    /// An error reading a `.npz` file: ndarray-npy's `ReadNpzError`, returned by
    /// `NpzReader::new`, `names`,
    /// `by_name` and `by_index`.
    ///
    /// A missing member is `Zip(ZipError::FileNotFound)`, as there. `Z` is the `zip` crate's
    /// `ZipError` of the ndarray-npy version (see [`ZipErrorType`]); each crate names this type
    /// with its own, as `ReadNpzError`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{NpzReader, ReadNpzError};
    /// use zip::result::ZipError;
    /// let mut npz = NpzReader::new(std::fs::File::open("testdata/example.npz")?)?;
    /// let err = npz.by_name::<ndarray::OwnedRepr<f32>, ndarray::Ix2>("nope").unwrap_err();
    /// assert!(matches!(err, ReadNpzError::Zip(ZipError::FileNotFound)));
    /// assert_eq!(err.to_string(), "zip file error: specified file not found in archive");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Debug)]
    pub enum ReadNpzError<Z = ZipError> {
        /// An error caused by the zip file.
        Zip(Z),
        /// An error caused by reading an inner `.npy` file.
        Npy(ReadNpyError),
    }

    impl<Z: ZipErrorType> ReadNpzError<Z> {
        /// What went wrong, as [`Error::kind`] tells it.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{ErrorKind, ReadNpzError};
        /// let e = ReadNpzError::Zip(zip::result::ZipError::FileNotFound);
        /// assert_eq!(e.kind(), ErrorKind::MissingMember);
        /// ```
        pub fn kind(&self) -> ErrorKind {
            match self {
                ReadNpzError::Zip(e) if e.is_file_not_found() => ErrorKind::MissingMember,
                ReadNpzError::Zip(e) => e.as_io().map_or(ErrorKind::Archive, io_kind),
                ReadNpzError::Npy(e) => e.kind(),
            }
        }
    }

    impl<Z: ZipErrorType> StdError for ReadNpzError<Z> {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            match self {
                ReadNpzError::Zip(e) => Some(e),
                ReadNpzError::Npy(e) => Some(e),
            }
        }
    }

    impl<Z: ZipErrorType> fmt::Display for ReadNpzError<Z> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                ReadNpzError::Zip(e) => write!(f, "zip file error: {e}"),
                ReadNpzError::Npy(e) => write!(f, "error reading npy file in npz archive: {e}"),
            }
        }
    }

    impl<Z: ZipErrorType> From<Z> for ReadNpzError<Z> {
        fn from(e: Z) -> ReadNpzError<Z> {
            ReadNpzError::Zip(e)
        }
    }

    impl<Z: ZipErrorType> From<ReadNpyError> for ReadNpzError<Z> {
        fn from(e: ReadNpyError) -> ReadNpzError<Z> {
            ReadNpzError::Npy(e)
        }
    }

    /// A request the zip crate's writer refused, as an [`Error`] of kind `Usage` that holds
    /// ndarray-npy's `WriteNpzError::Zip` of it.
    #[doc(hidden)]
    pub fn zip_refused(e: ZipError) -> Error {
        compat(ErrorKind::Usage, WriteNpzError::Zip(e))
    }

    /// A zip error of ndarray-npy's for a malformed archive: `InvalidArchive` with ndnpy's
    /// message.
    fn invalid<Z: ZipErrorType>(e: &Error) -> Z {
        Z::invalid_archive("Invalid Zip archive", e.to_string())
    }

    impl<Z: ZipErrorType> From<Error> for ReadNpzError<Z> {
        fn from(e: Error) -> ReadNpzError<Z> {
            let e = match held::<ReadNpzError<Z>>(e) {
                Ok(r) => return r,
                Err(e) => e,
            };
            match e.detail() {
                Detail::Mismatch(
                    MismatchError::MissingMember { .. } | MismatchError::MemberIndex { .. },
                ) => ReadNpzError::Zip(Z::file_not_found()),
                Detail::Format(FormatError::NotZip { .. } | FormatError::Zip { .. }) => {
                    ReadNpzError::Zip(invalid(&e))
                }
                Detail::Format(FormatError::UnsupportedMember { feature, .. }) => {
                    ReadNpzError::Zip(Z::unsupported_archive(if feature.contains("encrypt") {
                        // `ZipError::PASSWORD_REQUIRED` (which zip 0.5.0 lacks).
                        "Password required to decrypt file"
                    } else {
                        "Compression method not supported"
                    }))
                }
                // The archive's directory, read before any member.
                Detail::Io(_) | Detail::OutOfMemory(_) if e.member().is_none() => {
                    ReadNpzError::Zip(Z::io(into_io(e)))
                }
                _ => ReadNpzError::Npy(ReadNpyError::from(e)),
            }
        }
    }

    impl<Z: ZipErrorType> From<ReadNpzError<Z>> for Error {
        fn from(e: ReadNpzError<Z>) -> Error {
            let kind = e.kind();
            match e {
                ReadNpzError::Zip(z) => match z.into_io() {
                    Ok(io) => io_into_error(io),
                    Err(z) => compat(kind, ReadNpzError::<Z>::Zip(z)),
                },
                ReadNpzError::Npy(e) => Error::from(e),
            }
        }
    }

    /// An error writing a `.npz` file: ndarray-npy's `WriteNpzError`, returned by
    /// `NpzWriter::add_array` and
    /// `NpzWriter::finish`. `Z` is as in [`ReadNpzError`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{NpzWriter, WriteNpzError};
    /// use zip::result::ZipError;
    /// let mut npz = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// npz.add_array("a", &ndarray::array![1])?;
    /// let err = npz.add_array("a", &ndarray::array![2]).unwrap_err();
    /// assert!(matches!(err, WriteNpzError::Zip(ZipError::InvalidArchive(_))));
    /// assert_eq!(err.to_string(), "zip file error: invalid Zip archive: Duplicate filename: a.npy");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Debug)]
    pub enum WriteNpzError<Z = ZipError> {
        /// An error caused by the zip file.
        Zip(Z),
        /// An error caused by writing an inner `.npy` file.
        Npy(WriteNpyError),
    }

    impl<Z: ZipErrorType> WriteNpzError<Z> {
        /// What went wrong, as [`Error::kind`] tells it.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{ErrorKind, WriteNpzError};
        /// let e = WriteNpzError::Zip(zip::result::ZipError::Io(std::io::Error::other("full")));
        /// assert_eq!(e.kind(), ErrorKind::Io);
        /// ```
        pub fn kind(&self) -> ErrorKind {
            match self {
                WriteNpzError::Zip(e) => e.as_io().map_or(ErrorKind::Usage, io_kind),
                WriteNpzError::Npy(e) => e.kind(),
            }
        }

        /// An error of the archive's own writing (its directory, `finish`): I/O errors are
        /// `Zip(ZipError::Io)` there, as in ndarray-npy.
        #[doc(hidden)]
        pub fn of_archive(e: Error) -> WriteNpzError<Z> {
            match WriteNpzError::from(e) {
                WriteNpzError::Npy(WriteNpyError::Io(io)) => WriteNpzError::Zip(Z::io(io)),
                other => other,
            }
        }
    }

    impl<Z: ZipErrorType> StdError for WriteNpzError<Z> {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            match self {
                WriteNpzError::Zip(e) => Some(e),
                WriteNpzError::Npy(e) => Some(e),
            }
        }
    }

    impl<Z: ZipErrorType> fmt::Display for WriteNpzError<Z> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                WriteNpzError::Zip(e) => write!(f, "zip file error: {e}"),
                WriteNpzError::Npy(e) => {
                    write!(f, "error writing npy file to npz archive: {e}")
                }
            }
        }
    }

    impl<Z: ZipErrorType> From<Z> for WriteNpzError<Z> {
        fn from(e: Z) -> WriteNpzError<Z> {
            WriteNpzError::Zip(e)
        }
    }

    impl<Z: ZipErrorType> From<WriteNpyError> for WriteNpzError<Z> {
        fn from(e: WriteNpyError) -> WriteNpzError<Z> {
            WriteNpzError::Npy(e)
        }
    }

    impl<Z: ZipErrorType> From<Error> for WriteNpzError<Z> {
        fn from(e: Error) -> WriteNpzError<Z> {
            let e = match held::<WriteNpzError<Z>>(e) {
                Ok(w) => return w,
                Err(e) => e,
            };
            // What the writer's zip crate (zip 6) refused, as this crate's zip type.
            let e = match held::<WriteNpzError<ZipError>>(e) {
                Ok(WriteNpzError::Zip(z)) => return WriteNpzError::Zip(Z::from_zip6(z)),
                Ok(WriteNpzError::Npy(n)) => return WriteNpzError::Npy(n),
                Err(e) => e,
            };
            match e.detail() {
                Detail::Usage(UsageError::DuplicateMember { name }) => WriteNpzError::Zip(
                    Z::invalid_archive("Duplicate filename", format!("Duplicate filename: {name}")),
                ),
                Detail::Usage(UsageError::CompressionLevel { .. }) => {
                    WriteNpzError::Zip(Z::unsupported_archive("Unsupported compression level"))
                }
                Detail::Usage(
                    UsageError::MemberNameTooLong { .. } | UsageError::Archive { .. },
                ) => WriteNpzError::Zip(invalid(&e)),
                _ => WriteNpzError::Npy(WriteNpyError::from(e)),
            }
        }
    }

    impl<Z: ZipErrorType> From<WriteNpzError<Z>> for Error {
        fn from(e: WriteNpzError<Z>) -> Error {
            let kind = e.kind();
            match e {
                WriteNpzError::Zip(z) => match z.into_io() {
                    Ok(io) => io_into_error(io),
                    Err(z) => compat(kind, WriteNpzError::<Z>::Zip(z)),
                },
                WriteNpzError::Npy(e) => Error::from(e),
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// ndnpy's errors as each major's `ReadNpzError` and `WriteNpzError`, and back;
        /// `detail_printed`: whether the major's `Display` prints its variants' text (zip 0.5's
        /// does not).
        fn each_major<Z: ZipErrorType + fmt::Debug>(detail_printed: bool) {
            let missing = Error::from(MismatchError::MissingMember {
                name: "w".into(),
                keys: vec![],
                len: 0,
            });
            let e = ReadNpzError::<Z>::from(missing);
            assert!(
                matches!(&e, ReadNpzError::Zip(z) if z.is_file_not_found()),
                "{e:?}"
            );
            assert_eq!(
                e.to_string(),
                "zip file error: specified file not found in archive"
            );
            assert!(e.source().unwrap().downcast_ref::<Z>().is_some());
            assert_eq!(Error::from(e).kind(), ErrorKind::MissingMember);

            let not_zip = Error::from(FormatError::NotZip {
                len: 3,
                found: b"abc".to_vec(),
            });
            let e = ReadNpzError::<Z>::from(not_zip);
            assert_eq!(e.kind(), ErrorKind::Archive);
            assert!(e
                .to_string()
                .starts_with("zip file error: invalid Zip archive"));
            assert_eq!(Error::from(e).kind(), ErrorKind::Archive);

            let io = ReadNpzError::<Z>::Zip(Z::io(io::Error::other("disk")));
            assert_eq!(io.kind(), ErrorKind::Io);
            assert_eq!(Error::from(io).kind(), ErrorKind::Io);

            let dup = Error::from(UsageError::DuplicateMember {
                name: "a.npy".into(),
            });
            let e = WriteNpzError::<Z>::from(dup);
            assert_eq!(e.kind(), ErrorKind::Usage);
            let expected = if detail_printed {
                "zip file error: invalid Zip archive: Duplicate filename: a.npy"
            } else {
                "zip file error: invalid Zip archive"
            };
            assert_eq!(e.to_string(), expected);
            // A user's own error converts into ndnpy's and back as it was.
            let back = WriteNpzError::<Z>::from(Error::from(e));
            assert_eq!(back.to_string(), expected);

            // What the writer's zip 6 refused, as this major's error.
            let refused = zip_refused(ZipError::UnsupportedArchive(
                "Unsupported compression level",
            ));
            assert_eq!(refused.kind(), ErrorKind::Usage);
            let e = WriteNpzError::<Z>::from(refused);
            assert!(
                matches!(&e, WriteNpzError::Zip(z) if z.as_io().is_none()),
                "{e:?}"
            );
            let expected = if detail_printed {
                "zip file error: unsupported Zip archive: Unsupported compression level"
            } else {
                "zip file error: unsupported Zip archive"
            };
            assert_eq!(e.to_string(), expected);
            let e = WriteNpzError::<Z>::of_archive(Error::from(io::Error::other("full")));
            assert!(
                matches!(&e, WriteNpzError::Zip(z) if z.as_io().is_some()),
                "{e:?}"
            );
        }

        #[test]
        fn zip6_errors_are_ndarray_npy_0_10s() {
            each_major::<ZipError>(true);
        }

        #[cfg(feature = "zip2")]
        #[test]
        fn zip2_errors_are_ndarray_npy_0_9s() {
            each_major::<zip2::result::ZipError>(true);
        }

        #[cfg(feature = "zip05")]
        #[test]
        fn zip05_errors_are_ndarray_npy_0_8s() {
            each_major::<zip05::result::ZipError>(false);
        }
    }
}
