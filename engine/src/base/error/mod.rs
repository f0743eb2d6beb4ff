//! The error type: one boxed [`Error`], grouped by who is at fault.
//!
//! Every fallible function in the crate returns [`Error`]. It is one pointer wide. Its
//! [`kind`](Error::kind) says what went wrong, in groups by who is at fault: the I/O layer or
//! the memory allocator, the file's bytes, a mismatch between the file and what the caller
//! asked for, a configured limit, or the caller's request. Its accessors give the context a
//! program can act on ([`member`](Error::member), [`record_index`](Error::record_index),
//! [`field`](Error::field), [`offset`](Error::offset), [`dtype`](Error::dtype), ...); its
//! message (`Display`) says everything, with what was expected and what was found.
//!
//! Inside the crate the details are the enums below ([`FormatError`], [`MismatchError`],
//! [`LimitError`], [`UsageError`]), converted into an [`Error`] with `?` or `Error::from`.
//! Context that is added on the way up (the record index and field path of a record error,
//! the archive member being read) is added by methods of [`Error`] itself.

use crate::base::dtype::{DType, ScalarKind};
use std::error::Error as StdError;
use std::fmt;
use std::io;

pub mod ndarray_npy;

/// An error reading or writing `.npy` or `.npz` data.
///
/// Match on [`kind`](Error::kind); take the context from the accessors; print it for the
/// whole story (messages quote at most 200 characters of input).
///
/// # Examples
///
/// ```
/// use ndarray::Array1;
/// use ndnpy::{ErrorKind, ReadNpyExt, ReadOptions};
///
/// // ndnpy's own doors return it (ndarray-npy's return ndarray-npy's types, which convert).
/// let err = Array1::<f64>::read_npy_with_options(&b"not an npy file"[..], &ReadOptions::new())
///     .unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Header);
/// assert_eq!(
///     err.to_string(),
///     "not an .npy file: expected magic b\"\\x93NUMPY\", found b\"not an\""
/// );
/// assert_eq!(std::mem::size_of::<ndnpy::Error>(), std::mem::size_of::<usize>());
/// ```
pub struct Error(Box<Inner>);

/// What an [`Error`] holds: the detail, and the archive member it happened in.
struct Inner {
    detail: Detail,
    /// The archive member being read, set by the `.npz` reader as the error passes it.
    member: Option<String>,
}

/// The detail of an [`Error`], by who is at fault.
#[derive(Debug)]
pub enum Detail {
    Io(io::Error),
    OutOfMemory(io::Error),
    Format(FormatError),
    Mismatch(MismatchError),
    Limit(LimitError),
    Usage(UsageError),
    /// One of ndarray-npy's error types ([`ndarray_npy`]) that no error of ndnpy's stands
    /// behind (one a caller built, or a variant that holds only numbers), kept as it is.
    Compat {
        kind: ErrorKind,
        error: Box<dyn StdError + Send + Sync + 'static>,
    },
}

/// What went wrong, as [`Error::kind`] tells it. The kinds come in groups by who is at fault:
///
/// - the system: [`Io`](ErrorKind::Io), [`OutOfMemory`](ErrorKind::OutOfMemory);
/// - the file's bytes: [`Header`](ErrorKind::Header), [`Truncated`](ErrorKind::Truncated),
///   [`TrailingBytes`](ErrorKind::TrailingBytes), [`InvalidData`](ErrorKind::InvalidData),
///   [`Archive`](ErrorKind::Archive);
/// - the file is valid but holds something else than what was asked for:
///   [`DType`](ErrorKind::DType), [`Ndim`](ErrorKind::Ndim), [`Shape`](ErrorKind::Shape),
///   [`CannotView`](ErrorKind::CannotView), [`MissingMember`](ErrorKind::MissingMember),
///   [`NotNpy`](ErrorKind::NotNpy);
/// - a limit set in [`ReadOptions`](crate::ReadConfig): [`Limit`](ErrorKind::Limit);
/// - the caller's arguments: [`Usage`](ErrorKind::Usage).
///
/// # Examples
///
/// ```
/// use ndnpy::{ErrorKind, NpzReader};
///
/// let mut npz = NpzReader::open("testdata/npz_stored.npz")?;
/// let err = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix1>("no such array").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::MissingMember);
/// assert!(err.kind().is_mismatch());
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The reader or writer failed; [`Error::io_error`] is its error. The message includes
    /// its text and, for a file opened by path, the path: `cannot open "x.npy": No such file
    /// or directory (os error 2)`. Running out of bytes while reading is
    /// [`Truncated`](ErrorKind::Truncated) instead.
    Io,
    /// Memory for the data could not be allocated (the system refused it, or the size is more
    /// than the address space holds).
    OutOfMemory,
    /// The `.npy` header is malformed: magic, version, the dict's syntax or keys, the shape,
    /// `fortran_order`, a dtype descriptor numpy refuses too, or a shape whose size in bytes
    /// overflows the address space.
    Header,
    /// The input ends before the data it declares: [`Error::byte_counts`] gives the bytes
    /// expected and found.
    Truncated,
    /// A view of a whole `.npy` file was asked of a buffer with bytes after the array:
    /// [`Error::byte_counts`] gives the bytes expected and found.
    TrailingBytes,
    /// An element's bytes are not a valid value of its type: a `bool` byte other than 0 and 1,
    /// a code point that is not a unicode scalar value, a record field's value
    /// ([`Error::record_index`] and [`Error::field`] say which), an object array's malformed
    /// pickle ([`Error::offset`] says where).
    InvalidData,
    /// The `.npz` (ZIP) archive is malformed or cut short, or a member is corrupt (fails its
    /// size or CRC-32 check, or uses a compression method ndnpy does not read).
    Archive,
    /// The file's dtype cannot be read as (or a value cannot be written as) the requested
    /// type: [`Error::dtype`] is the file's; for a record, [`Error::field`] is the field's path.
    /// For object arrays: a pickle that calls anything but numpy's and Python's data types
    /// (the message names it), holds what ndnpy does not rebuild (a cycle, records holding
    /// objects), or an element of another Python type than a typed conversion needs.
    DType,
    /// The file's number of dimensions differs from the requested array type's:
    /// [`Error::shape`] is the file's shape.
    Ndim,
    /// A read into memory the caller owns
    /// (`NpyReader::read_into` and its kin) was given a buffer
    /// of another shape than the array or selection read: [`Error::shape`] is the array's
    /// (or the selection's) shape. The buffer's contents are unchanged.
    Shape,
    /// The data cannot be viewed in place: it is not in this machine's byte order, not
    /// aligned, compressed, or a record whose memory layout differs from the Rust type's. A
    /// read (which copies) works.
    CannotView,
    /// The archive has no member of this name (nor of this name with `.npy`), or no member at
    /// this index.
    MissingMember,
    /// The archive member is not an `.npy` array; read its bytes with
    /// `NpzMember::bytes`.
    NotNpy,
    /// The file exceeds a limit set in [`ReadOptions`](crate::ReadConfig) (header length,
    /// nesting depth, data length, bytes inflated out of an archive).
    Limit,
    /// The caller asked for something the arguments cannot give, reading or writing: an index
    /// or row range outside the array, a block of the wrong shape, a value its dtype cannot
    /// hold, a shape whose size overflows, a duplicate archive member. The file is not at
    /// fault.
    Usage,
}

impl ErrorKind {
    /// Whether the file's bytes are at fault: [`Header`](ErrorKind::Header),
    /// [`Truncated`](ErrorKind::Truncated), [`TrailingBytes`](ErrorKind::TrailingBytes),
    /// [`InvalidData`](ErrorKind::InvalidData) or [`Archive`](ErrorKind::Archive).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(ndnpy::ErrorKind::Truncated.is_format());
    /// assert!(!ndnpy::ErrorKind::DType.is_format());
    /// ```
    pub fn is_format(self) -> bool {
        matches!(
            self,
            ErrorKind::Header
                | ErrorKind::Truncated
                | ErrorKind::TrailingBytes
                | ErrorKind::InvalidData
                | ErrorKind::Archive
        )
    }

    /// Whether the file is valid but holds something else than what was asked for:
    /// [`DType`](ErrorKind::DType), [`Ndim`](ErrorKind::Ndim), [`Shape`](ErrorKind::Shape),
    /// [`CannotView`](ErrorKind::CannotView), [`MissingMember`](ErrorKind::MissingMember) or
    /// [`NotNpy`](ErrorKind::NotNpy).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(ndnpy::ErrorKind::Ndim.is_mismatch());
    /// assert!(!ndnpy::ErrorKind::Usage.is_mismatch());
    /// ```
    pub fn is_mismatch(self) -> bool {
        matches!(
            self,
            ErrorKind::DType
                | ErrorKind::Ndim
                | ErrorKind::Shape
                | ErrorKind::CannotView
                | ErrorKind::MissingMember
                | ErrorKind::NotNpy
        )
    }
}

/// Which fault, within an [`ErrorKind`], an error reports: what a caller tells apart to act
/// on it (a checksum failure is worth a new download, an unsupported compression method is
/// not), from [`Error::fault`]. Grouped as the kinds they refine.
///
/// # Examples
///
/// ```
/// use ndnpy::{ErrorKind, Fault};
///
/// // An archive read as one `.npy` file.
/// let err = ndnpy::read_npy_dyn("testdata/npz_stored.npz").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Header);
/// assert_eq!(err.fault(), Some(Fault::Magic));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// [`ErrorKind::Header`]: the first six bytes are not `\x93NUMPY`.
    Magic,
    /// [`ErrorKind::Header`]: a format version numpy does not write (not 1.0, 2.0 or 3.0).
    Version,
    /// [`ErrorKind::Header`]: a version 3.0 header that is not UTF-8.
    HeaderEncoding,
    /// [`ErrorKind::Header`]: the header is not a Python literal of the grammar numpy writes.
    HeaderSyntax,
    /// [`ErrorKind::Header`]: the header is a literal, but not a dict.
    HeaderNotDict,
    /// [`ErrorKind::Header`]: the dict's keys are not exactly `descr`, `fortran_order`, `shape`.
    HeaderKeys,
    /// [`ErrorKind::Header`]: the shape is not a tuple of non-negative integers, has more than
    /// 64 dimensions, or its size overflows the address space.
    Shape,
    /// [`ErrorKind::Header`]: `fortran_order` is not `True` or `False`.
    FortranOrder,
    /// [`ErrorKind::Header`]: `descr` is not a dtype numpy accepts.
    Descr,
    /// [`ErrorKind::Truncated`]: the input ends before the data it declares.
    Truncated,
    /// [`ErrorKind::TrailingBytes`]: bytes after the array where a whole file was viewed.
    TrailingBytes,
    /// [`ErrorKind::InvalidData`]: an element or record field holds a value its Rust type
    /// cannot represent (a `bool` byte other than 0 and 1, a code unit that is not a `char`).
    InvalidValue,
    /// [`ErrorKind::InvalidData`]: an object array's pickle is malformed.
    Pickle,
    /// [`ErrorKind::Archive`]: the input is not a ZIP archive (no end of central directory
    /// record; a truncated archive looks like this too).
    NotAnArchive,
    /// [`ErrorKind::Archive`]: a ZIP structure is malformed, or one of its lengths or offsets
    /// points outside the archive or contradicts another ([`Error::offset`] says where).
    ArchiveStructure,
    /// [`ErrorKind::Archive`]: a member's deflated data is not a valid deflate stream.
    MemberCorrupt,
    /// [`ErrorKind::Archive`]: a member holds fewer bytes than its entry declares.
    MemberTruncated,
    /// [`ErrorKind::Archive`]: a member inflates to more bytes than its entry declares (a
    /// corrupt archive or a zip bomb).
    MemberOverrun,
    /// [`ErrorKind::Archive`]: a member's bytes fail the CRC-32 its entry declares.
    Checksum,
    /// [`ErrorKind::Archive`]: a member uses a ZIP feature this crate does not read
    /// (encryption, a compression method other than stored and deflate).
    UnsupportedMember,
    /// [`ErrorKind::MissingMember`]: no member of this name or index.
    MissingMember,
    /// [`ErrorKind::Usage`]: a member of this name was already written to the archive.
    DuplicateMember,
    /// [`ErrorKind::NotNpy`]: the member is not an `.npy` array.
    NotNpy,
    /// [`ErrorKind::CannotView`]: the data is not in this machine's byte order.
    ByteOrder,
    /// [`ErrorKind::CannotView`]: the data is not aligned for the element type.
    Misaligned,
    /// [`ErrorKind::CannotView`]: the archive member is compressed.
    Compressed,
    /// [`ErrorKind::CannotView`]: a record's memory layout differs from the Rust type's.
    Layout,
    /// [`ErrorKind::Header`]: a safetensors or Parquet file is malformed (features
    /// `safetensors`, `parquet`).
    Foreign,
    /// [`ErrorKind::DType`]: an object array's pickle calls a global that is not one of
    /// numpy's or Python's data types (the message names it).
    PickleGlobal,
    /// [`ErrorKind::DType`]: an object array's pickle holds what this crate does not rebuild
    /// (a cycle, records holding objects, a range beyond `i64`, a masked array of records).
    PickleUnsupported,
    /// [`ErrorKind::DType`]: an object array's pickle holds a Python 2 `str` that is not
    /// ASCII, read with [`PickleEncoding::Ascii`](crate::header::PickleEncoding::Ascii)
    /// (numpy's `UnicodeError`; Latin-1 or bytes read it).
    PickleEncoding,
    /// [`ErrorKind::DType`]: an element of an object array is of another Python type than a
    /// typed conversion needs.
    ObjectValue,
    /// [`ErrorKind::DType`]: the file's dtype is not one the requested element type reads.
    DType,
    /// [`ErrorKind::DType`]: a dtype or value has no equivalent in the other format of a
    /// conversion (Arrow, Parquet, safetensors).
    NoEquivalent,
    /// [`ErrorKind::DType`]: a record field's dtype is not one its Rust field reads
    /// ([`Error::field`] names it).
    FieldType,
    /// [`ErrorKind::DType`]: the record type's fields are not all in the file.
    MissingFields,
    /// [`ErrorKind::Ndim`]: the array has another number of dimensions than asked for.
    Ndim,
    /// [`ErrorKind::Shape`]: the array or selection has another shape than the buffer it is
    /// read into.
    ShapeMismatch,
    /// [`ErrorKind::Limit`]: the header is longer than
    /// [`ReadOptions::max_header_len`](crate::ReadConfig::max_header_len).
    HeaderLimit,
    /// [`ErrorKind::Limit`]: the dtype nests deeper than
    /// [`ReadOptions::max_depth`](crate::ReadConfig::max_depth).
    DepthLimit,
    /// [`ErrorKind::Limit`]: the array, or a member read as bytes, is larger than
    /// [`ReadOptions::max_data_len`](crate::ReadConfig::max_data_len).
    DataLimit,
    /// [`ErrorKind::Limit`]: an archive's members would inflate past
    /// [`ReadOptions::max_inflated_len`](crate::ReadConfig::max_inflated_len).
    InflatedLimit,
    /// [`ErrorKind::Limit`]: an object array's values nest deeper than
    /// [`ReadOptions::max_pickle_depth`](crate::ReadConfig::max_pickle_depth).
    PickleDepthLimit,
    /// [`ErrorKind::Limit`]: an object array's pickle decodes to more than 64 bytes of values
    /// per byte of pickle, plus 16 MiB.
    PickleExpansion,
    /// [`ErrorKind::Usage`]: an index or range is outside the array.
    OutOfBounds,
    /// [`ErrorKind::Usage`]: a selection does not have one element per axis of the array.
    SliceAxes,
    /// [`ErrorKind::Usage`]: a block's shape does not fit the array it is written to, or the
    /// array has no axis to grow (0-d).
    BlockShape,
    /// [`ErrorKind::Usage`]: a streaming write got another number of elements than its array
    /// has.
    ElementCount,
    /// [`ErrorKind::Usage`]: a value does not fit its dtype where it is written: a string
    /// longer than its fixed size, a record field's value, datetimes of mixed units, a value
    /// of an object array that numpy could not unpickle.
    ValueDoesNotFit,
    /// [`ErrorKind::Usage`]: no record field of that name.
    NoSuchField,
    /// [`ErrorKind::Usage`]: a shape or header too large to write: too many dimensions, more
    /// bytes than the address space, a header no version holds or not the requested one.
    TooLargeToWrite,
    /// [`ErrorKind::Usage`]: a conversion to or from Arrow, Parquet or safetensors cannot be
    /// made as asked.
    Conversion,
    /// [`ErrorKind::Usage`]: an archive cannot be written as asked (a member name over 65,535
    /// bytes, a compression level outside 1 to 9, the ZIP writer's refusal).
    ArchiveWrite,
    /// [`ErrorKind::Usage`]: a URL that names no object in a store this build has.
    Url,
    /// [`ErrorKind::Io`]: an object in a store changed after it was opened (feature
    /// `object_store`): open it again to read the new one.
    Changed,
}

impl Fault {
    /// The kind this fault refines.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, Fault};
    /// assert_eq!(Fault::Checksum.kind(), ErrorKind::Archive);
    /// assert_eq!(Fault::InflatedLimit.kind(), ErrorKind::Limit);
    /// ```
    pub fn kind(self) -> ErrorKind {
        match self {
            Fault::Magic
            | Fault::Version
            | Fault::HeaderEncoding
            | Fault::HeaderSyntax
            | Fault::HeaderNotDict
            | Fault::HeaderKeys
            | Fault::Shape
            | Fault::FortranOrder
            | Fault::Descr
            | Fault::Foreign => ErrorKind::Header,
            Fault::Truncated => ErrorKind::Truncated,
            Fault::TrailingBytes => ErrorKind::TrailingBytes,
            Fault::InvalidValue | Fault::Pickle => ErrorKind::InvalidData,
            Fault::NotAnArchive
            | Fault::ArchiveStructure
            | Fault::MemberCorrupt
            | Fault::MemberTruncated
            | Fault::MemberOverrun
            | Fault::Checksum
            | Fault::UnsupportedMember => ErrorKind::Archive,
            Fault::MissingMember => ErrorKind::MissingMember,
            Fault::NotNpy => ErrorKind::NotNpy,
            Fault::ByteOrder | Fault::Misaligned | Fault::Compressed | Fault::Layout => {
                ErrorKind::CannotView
            }
            Fault::PickleGlobal
            | Fault::PickleUnsupported
            | Fault::PickleEncoding
            | Fault::ObjectValue
            | Fault::DType
            | Fault::NoEquivalent
            | Fault::FieldType
            | Fault::MissingFields => ErrorKind::DType,
            Fault::Ndim => ErrorKind::Ndim,
            Fault::ShapeMismatch => ErrorKind::Shape,
            Fault::HeaderLimit
            | Fault::DepthLimit
            | Fault::DataLimit
            | Fault::InflatedLimit
            | Fault::PickleDepthLimit
            | Fault::PickleExpansion => ErrorKind::Limit,
            Fault::DuplicateMember
            | Fault::OutOfBounds
            | Fault::SliceAxes
            | Fault::BlockShape
            | Fault::ElementCount
            | Fault::ValueDoesNotFit
            | Fault::NoSuchField
            | Fault::TooLargeToWrite
            | Fault::Conversion
            | Fault::ArchiveWrite
            | Fault::Url => ErrorKind::Usage,
            Fault::Changed => ErrorKind::Io,
        }
    }
}

impl Error {
    #[doc(hidden)]
    pub fn new(detail: Detail) -> Self {
        Error(Box::new(Inner {
            detail,
            member: None,
        }))
    }

    /// The one constructor of out-of-memory errors ([`ErrorKind::OutOfMemory`]): `bytes`
    /// could not be allocated for `what` ("the array", "a pickle", ...).
    #[doc(hidden)]
    pub fn out_of_memory(bytes: usize, what: &str) -> Error {
        Error::new(Detail::OutOfMemory(io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("cannot allocate {bytes} bytes for {what}"),
        )))
    }

    /// What went wrong.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::ErrorKind;
    /// let err = ndnpy::ReadOptions::new().read_npy::<_, ndarray::Array1<f64>>("no/such/file.npy").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Io);
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match &self.0.detail {
            Detail::Io(_) => ErrorKind::Io,
            Detail::OutOfMemory(_) => ErrorKind::OutOfMemory,
            Detail::Compat { kind, .. } => *kind,
            Detail::Format(e) => e.fault().kind(),
            Detail::Mismatch(e) => e.fault().kind(),
            Detail::Limit(e) => e.fault().kind(),
            Detail::Usage(e) => e.fault().kind(),
        }
    }

    /// Which fault within [`kind`](Error::kind) this is ([`Fault`]); `None` for I/O and
    /// out-of-memory errors, and for an error converted from one of ndarray-npy's types that
    /// the caller built (which says only its kind).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{ErrorKind, Fault};
    /// let err = ndnpy::NpzReader::open("testdata/example.npy").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Archive);
    /// assert_eq!(err.fault(), Some(Fault::NotAnArchive));
    /// ```
    pub fn fault(&self) -> Option<Fault> {
        match &self.0.detail {
            Detail::Format(e) => Some(e.fault()),
            Detail::Mismatch(e) => Some(e.fault()),
            Detail::Limit(e) => Some(e.fault()),
            Detail::Usage(e) => Some(e.fault()),
            Detail::Io(e) if e.get_ref().is_some_and(|i| i.is::<Changed>()) => Some(Fault::Changed),
            Detail::Io(_) | Detail::OutOfMemory(_) | Detail::Compat { .. } => None,
        }
    }

    /// The I/O error, for [`ErrorKind::Io`] and [`ErrorKind::OutOfMemory`].
    ///
    /// # Examples
    ///
    /// ```
    /// let err = ndnpy::read_npy_dyn("no/such/file.npy").unwrap_err();
    /// assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    /// assert!(err.to_string().contains("no/such/file.npy"));
    /// ```
    pub fn io_error(&self) -> Option<&io::Error> {
        match &self.0.detail {
            Detail::Io(e) | Detail::OutOfMemory(e) => Some(e),
            _ => None,
        }
    }

    /// The `.npz` archive member the error happened in (its name in the archive), when it
    /// happened reading one.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_stored.npz")?;
    /// let err = npz.member("flags")?.read::<ndarray::OwnedRepr<f64>, ndarray::Ix1>().unwrap_err();
    /// assert_eq!(err.member(), Some("flags.npy"));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "archive member \"flags.npy\": cannot read dtype '|b1' as f64 (dtype '<f8' or '>f8')"
    /// );
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn member(&self) -> Option<&str> {
        self.0.member.as_deref()
    }

    /// The index of the record whose field holds an invalid value (reading) or a value its
    /// dtype cannot store (writing), counted from the array's first element.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use ndnpy::{NpyRecord, ReadNpyExt};
    /// #[derive(NpyRecord, Debug)]
    /// struct Flag { on: bool }
    /// // Two records of one `|b1` field; the second holds 7.
    /// let mut file = b"\x93NUMPY\x01\x00v\x00{'descr': [('on', '|b1')], 'fortran_order': False, 'shape': (2,), }".to_vec();
    /// file.resize(127, b' ');
    /// file.extend_from_slice(b"\n\x01\x07");
    /// // Through ndarray-npy's door the payload carries it, and `Error::from` gives it back.
    /// let err = ndnpy::Error::from(ndarray::Array1::<Flag>::read_npy(&file[..]).unwrap_err());
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::InvalidData);
    /// assert_eq!((err.record_index(), err.field()), (Some(1), Some("on")));
    /// # }
    /// ```
    pub fn record_index(&self) -> Option<u64> {
        match &self.0.detail {
            Detail::Format(FormatError::InvalidField { index, .. })
            | Detail::Usage(UsageError::FieldValue { index, .. }) => Some(*index),
            _ => None,
        }
    }

    /// The index of the element the error is about, counted from the array's first in the
    /// order read or written: a value its type cannot represent (reading: a `bool` byte other
    /// than 0 and 1, a code unit that is not a `char`, a record field's such value, an object
    /// array's element of another Python type than the one asked for), or a value
    /// that does not fit where it is written (a string longer than its size, a datetime of
    /// another unit than the first, a record field's value). For records, the record's index
    /// ([`Error::record_index`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{Datetime64, Fault, WriteNpyExt};
    /// use ndnpy::dtype::{DateTimeUnit, TimeUnit};
    /// let unit = |unit| Some(DateTimeUnit { unit, multiplier: 1 });
    /// let (s, d) = (unit(TimeUnit::Seconds), unit(TimeUnit::Days));
    /// let a = ndarray::array![Datetime64::new(1, s), Datetime64::new(2, s), Datetime64::new(3, d)];
    /// let err = ndnpy::Error::from(a.write_npy(Vec::new()).unwrap_err());
    /// assert_eq!((err.fault(), err.element_index()), (Some(Fault::ValueDoesNotFit), Some(2)));
    /// ```
    pub fn element_index(&self) -> Option<u64> {
        match &self.0.detail {
            Detail::Format(
                FormatError::InvalidCodePoint { index, .. }
                | FormatError::InvalidBool { index, .. }
                | FormatError::InvalidField { index, .. },
            )
            | Detail::Usage(UsageError::FieldValue { index, .. }) => Some(*index),
            Detail::Usage(
                UsageError::StringTooLong { index, .. } | UsageError::MixedUnits { index, .. },
            )
            | Detail::Mismatch(MismatchError::ObjectValue { index, .. }) => Some(*index as u64),
            _ => None,
        }
    }

    /// The path of the record field the error is about (`"n.y"`, `"pos[1]"`), for record
    /// reads and writes.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use ndnpy::{NpyRecord, ReadNpyExt};
    /// #[derive(NpyRecord, Debug)]
    /// struct Point { x: f64, y: i32 }
    /// let mut file = b"\x93NUMPY\x01\x00v\x00{'descr': [('x', '<f8'), ('y', '<f8')], 'fortran_order': False, 'shape': (0,), }".to_vec();
    /// file.resize(127, b' ');
    /// file.push(b'\n');
    /// let err = ndnpy::Error::from(ndarray::Array1::<Point>::read_npy(&file[..]).unwrap_err());
    /// assert_eq!((err.kind(), err.field()), (ndnpy::ErrorKind::DType, Some("y")));
    /// # }
    /// ```
    pub fn field(&self) -> Option<&str> {
        match &self.0.detail {
            Detail::Format(FormatError::InvalidField { field, .. })
            | Detail::Mismatch(MismatchError::Field { field, .. })
            | Detail::Usage(UsageError::FieldValue { field, .. }) => Some(field),
            Detail::Mismatch(MismatchError::MissingFields { field, .. }) if !field.is_empty() => {
                Some(field)
            }
            _ => None,
        }
    }

    /// The byte offset the error points at: in the `.npy` header's text for a header syntax
    /// or encoding error, in the archive for a malformed ZIP structure, in an object array's
    /// pickle (from its first byte) for a malformed or unsupported pickle.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::ReadNpyExt;
    /// let mut file = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': Maybe, 'shape': (), }".to_vec();
    /// file.resize(127, b' ');
    /// file.push(b'\n');
    /// let err = ndnpy::Error::from(ndarray::Array0::<f64>::read_npy(&file[..]).unwrap_err());
    /// assert_eq!(err.offset(), Some(34));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match &self.0.detail {
            Detail::Format(
                FormatError::HeaderEncoding { offset } | FormatError::HeaderSyntax { offset, .. },
            ) => Some(*offset as u64),
            Detail::Format(
                FormatError::Zip { offset, .. } | FormatError::Pickle { offset, .. },
            )
            | Detail::Mismatch(MismatchError::PickleUnsupported { offset, .. }) => Some(*offset),
            _ => None,
        }
    }

    /// The file's dtype, when it does not match what was asked for ([`ErrorKind::DType`]
    /// and a [`ErrorKind::CannotView`] of byte order or layout); for a record field, the
    /// field's dtype.
    ///
    /// # Examples
    ///
    /// ```
    /// let err = ndnpy::Error::from(ndnpy::read_npy::<_, ndarray::Array2<f32>>("testdata/f8_le_c_2x3.npy").unwrap_err());
    /// assert_eq!(err.dtype().unwrap().descr(), "'<f8'");
    /// ```
    pub fn dtype(&self) -> Option<&DType> {
        match &self.0.detail {
            Detail::Mismatch(
                MismatchError::DType { found, .. }
                | MismatchError::Field { found, .. }
                | MismatchError::ByteOrder { found }
                | MismatchError::Layout { found, .. },
            ) => Some(found),
            _ => None,
        }
    }

    /// The file's shape, when its number of dimensions is not the requested one
    /// ([`ErrorKind::Ndim`]); the array's or selection's shape, when it is not the shape of
    /// the buffer it was to be read into ([`ErrorKind::Shape`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let opts = ndnpy::ReadOptions::new();
    /// let err = opts.read_npy::<_, ndarray::Array1<f64>>("testdata/f8_le_c_2x3.npy").unwrap_err();
    /// assert_eq!(err.shape(), Some(&[2, 3][..]));
    /// ```
    pub fn shape(&self) -> Option<&[usize]> {
        match &self.0.detail {
            Detail::Mismatch(
                MismatchError::Ndim { shape, .. } | MismatchError::Shape { found: shape, .. },
            ) => Some(shape),
            _ => None,
        }
    }

    /// The byte counts a size error compares, as `(expected, found)`: the bytes the data
    /// needs and the bytes present ([`ErrorKind::Truncated`], [`ErrorKind::TrailingBytes`],
    /// a member smaller than its directory entry), or a limit and the size that exceeds it
    /// ([`ErrorKind::Limit`], except nesting depth).
    ///
    /// # Examples
    ///
    /// ```
    /// let bytes = std::fs::read("testdata/f8_le_c_2x3.npy")?;
    /// let err = ndnpy::DynArray::read_npy(&bytes[..bytes.len() - 8]).unwrap_err();
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::Truncated);
    /// assert_eq!(err.byte_counts(), Some((48, 40)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn byte_counts(&self) -> Option<(u64, u64)> {
        match &self.0.detail {
            Detail::Format(FormatError::Truncated {
                expected, found, ..
            }) => Some((*expected, *found)),
            Detail::Format(FormatError::TrailingBytes { expected, found }) => {
                Some((*expected, *found))
            }
            Detail::Format(FormatError::MemberTruncated {
                declared, found, ..
            }) => Some((*declared, *found)),
            Detail::Limit(
                LimitError::ArrayTooLarge { limit, found }
                | LimitError::MemberTooLarge { limit, found, .. }
                | LimitError::InflatedTooLarge { limit, found, .. },
            ) => Some((*limit, *found)),
            Detail::Limit(LimitError::HeaderTooLarge { limit, found }) => {
                Some((*limit as u64, *found))
            }
            _ => None,
        }
    }

    /// The detail, for the crate's own matching.
    #[doc(hidden)]
    pub fn detail(&self) -> &Detail {
        &self.0.detail
    }

    /// The detail, for the crate's own rewriting (any member context is dropped: this is for
    /// errors that have not passed an archive reader yet).
    #[doc(hidden)]
    pub fn into_detail(self) -> Detail {
        self.0.detail
    }

    /// Records that the error happened reading archive member `name`, unless it already
    /// names a member.
    #[cfg_attr(not(feature = "npz"), allow(dead_code))]
    #[doc(hidden)]
    pub fn in_member(mut self, name: &str) -> Self {
        if self.member().is_none() {
            self.0.member = Some(excerpt(name));
        }
        self
    }

    /// Prefixes the field path of a record error with `name` (a field name, or `[i]` for an
    /// element of a sub-array), turning a plain dtype mismatch into a field mismatch. Other
    /// errors pass through unchanged.
    #[doc(hidden)]
    pub fn in_field(mut self, name: &str) -> Self {
        fn join(name: &str, path: &mut String) {
            if path.is_empty() {
                *path = name.to_string();
            } else if path.starts_with('[') {
                path.insert_str(0, name);
            } else {
                path.insert(0, '.');
                path.insert_str(0, name);
            }
        }
        let detail = &mut self.0.detail;
        if let Detail::Mismatch(MismatchError::DType { requested, found }) = detail {
            *detail = Detail::Mismatch(MismatchError::Field {
                field: name.to_string(),
                requested,
                found: found.clone(),
            });
            return self;
        }
        match detail {
            Detail::Mismatch(
                MismatchError::Field { field, .. } | MismatchError::MissingFields { field, .. },
            )
            | Detail::Format(FormatError::InvalidField { field, .. })
            | Detail::Usage(UsageError::FieldValue { field, .. }) => join(name, field),
            _ => {}
        }
        self
    }

    /// Makes a shape overflow the caller's fault: for sizes computed from a shape the caller
    /// gave (a write, a new map, an append), not one read from a file.
    #[doc(hidden)]
    pub fn blame_caller(self) -> Self {
        match self.0.detail {
            Detail::Format(FormatError::ShapeOverflow { shape, itemsize }) => {
                UsageError::ShapeOverflow { shape, itemsize }.into()
            }
            _ => self,
        }
    }

    /// Sets the record index of a record value error.
    #[doc(hidden)]
    pub fn at_record(mut self, at: u64) -> Self {
        if let Detail::Format(FormatError::InvalidField { index, .. })
        | Detail::Usage(UsageError::FieldValue { index, .. }) = &mut self.0.detail
        {
            *index = at;
        }
        self
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind());
        if let Some(member) = &self.0.member {
            d.field("member", member);
        }
        d.field("detail", &self.0.detail).finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The member the error happened in: named by the details about a member, else first.
        let member = self.0.member.as_deref();
        let about_member = matches!(
            &self.0.detail,
            Detail::Format(
                FormatError::CorruptMember { .. }
                    | FormatError::MemberTruncated { .. }
                    | FormatError::MemberOverrun { .. }
                    | FormatError::MemberChecksum { .. }
                    | FormatError::UnsupportedMember { .. }
            ) | Detail::Mismatch(
                MismatchError::CompressedMember
                    | MismatchError::MisalignedMember { .. }
                    | MismatchError::NotNpy { .. }
            ) | Detail::Limit(
                LimitError::MemberTooLarge { .. } | LimitError::InflatedTooLarge { .. }
            )
        );
        if let (Some(member), false) = (member, about_member) {
            write!(f, "archive member {}: ", name(member))?;
        }
        let member = member.unwrap_or_default();
        match &self.0.detail {
            // The I/O error's own text, with the path when one is known (see `with_path`).
            Detail::Io(e) if e.get_ref().is_some_and(|i| i.is::<PathError>()) => e.fmt(f),
            Detail::Io(e) => write!(f, "i/o error: {e}"),
            Detail::OutOfMemory(e) => write!(f, "out of memory: {e}"),
            Detail::Format(e) => e.fmt_in(member, f),
            Detail::Mismatch(e) => e.fmt_in(member, f),
            Detail::Limit(e) => e.fmt_in(member, f),
            Detail::Usage(e) => e.fmt(f),
            Detail::Compat { error, .. } => error.fmt(f),
        }
    }
}

/// `Display` already includes the text of an [`ErrorKind::Io`] error's I/O error (and the
/// path, when known), so `source()` does not return it again (error-chain printers would
/// print it twice); [`Error::io_error`] returns it. An error that holds one of ndarray-npy's
/// types gives that one's source.
impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.0.detail {
            Detail::Compat { error, .. } => error.source(),
            _ => None,
        }
    }
}

/// An I/O error is [`ErrorKind::Io`], or [`ErrorKind::OutOfMemory`] if its kind is
/// [`io::ErrorKind::OutOfMemory`].
impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::OutOfMemory {
            Error::new(Detail::OutOfMemory(e))
        } else {
            Error::new(Detail::Io(e))
        }
    }
}

/// For code that returns [`io::Result`]: the I/O error itself for [`ErrorKind::Io`] and
/// [`ErrorKind::OutOfMemory`]; otherwise an error of kind [`io::ErrorKind::InvalidData`]
/// (the file's fault or a mismatch) or [`io::ErrorKind::InvalidInput`] (a limit or the
/// caller's request) that carries this one.
///
/// # Examples
///
/// ```
/// fn load() -> std::io::Result<ndarray::Array1<f64>> {
///     Ok(ndnpy::ReadOptions::new().read_npy("testdata/f8_le_c_2x3.npy")?)
/// }
/// assert_eq!(load().unwrap_err().kind(), std::io::ErrorKind::InvalidData);
/// ```
impl From<Error> for io::Error {
    fn from(e: Error) -> Self {
        let kind = e.kind();
        match e.0.detail {
            Detail::Io(io) | Detail::OutOfMemory(io) if e.0.member.is_none() => io,
            _ => {
                let io_kind = match kind {
                    ErrorKind::Io => io::ErrorKind::Other,
                    ErrorKind::OutOfMemory => io::ErrorKind::OutOfMemory,
                    ErrorKind::Limit | ErrorKind::Usage => io::ErrorKind::InvalidInput,
                    _ => io::ErrorKind::InvalidData,
                };
                io::Error::new(io_kind, e)
            }
        }
    }
}

impl From<FormatError> for Error {
    fn from(e: FormatError) -> Self {
        Error::new(Detail::Format(e))
    }
}

impl From<MismatchError> for Error {
    fn from(e: MismatchError) -> Self {
        Error::new(Detail::Mismatch(e))
    }
}

impl From<LimitError> for Error {
    fn from(e: LimitError) -> Self {
        Error::new(Detail::Limit(e))
    }
}

impl From<UsageError> for Error {
    fn from(e: UsageError) -> Self {
        Error::new(Detail::Usage(e))
    }
}

/// The file's bytes are not a valid `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
// The archive variants are built only with the `npz` feature.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub enum FormatError {
    /// The first six bytes are not `\x93NUMPY`.
    BadMagic {
        /// The bytes found instead (at most six).
        found: Vec<u8>,
    },
    /// The version bytes are not 1.0, 2.0 or 3.0.
    UnsupportedVersion {
        /// The major version byte.
        major: u8,
        /// The minor version byte.
        minor: u8,
    },
    /// The input ended before a part of the file was complete.
    Truncated {
        /// The part being read: `"magic string"`, `"header length"`, `"header"` or
        /// `"array data"`.
        part: &'static str,
        /// How many bytes that part needs.
        expected: u64,
        /// How many were there.
        found: u64,
    },
    /// A version 3.0 header is not valid UTF-8.
    HeaderEncoding {
        /// Byte offset of the first invalid byte within the header text.
        offset: usize,
    },
    /// The header text is not a Python literal of the accepted grammar.
    HeaderSyntax {
        /// Byte offset within the header text.
        offset: usize,
        /// What the parser expected there.
        expected: &'static str,
        /// What it found (a short excerpt).
        found: String,
    },
    /// The header is a literal, but not a dict.
    HeaderNotDict {
        /// The literal found.
        found: String,
    },
    /// The header dict does not have exactly the keys `descr`, `fortran_order`, `shape`.
    HeaderKeys {
        /// The keys found, sorted, without repeats: the first 16 different ones (a key that
        /// is not a string is given as its Python repr, cut to 200 characters).
        found: Vec<String>,
    },
    /// `shape` is not a tuple of non-negative integers.
    InvalidShape {
        /// The value found.
        found: String,
    },
    /// The shape has more dimensions than numpy arrays can (64).
    TooManyDimensions {
        /// The number of dimensions found.
        found: usize,
    },
    /// The element count or the byte size of the shape does not fit in memory addresses.
    ShapeOverflow {
        /// The shape.
        shape: Vec<usize>,
        /// The size in bytes of one element.
        itemsize: usize,
    },
    /// `fortran_order` is not `True` or `False`.
    InvalidFortranOrder {
        /// The value found.
        found: String,
    },
    /// `descr` is not a dtype descriptor numpy accepts.
    InvalidDescr {
        /// The descriptor (or the part of it at fault).
        found: String,
        /// Why it was refused.
        reason: String,
    },
    /// A buffer viewed as one `.npy` file holds more bytes than its array.
    TrailingBytes {
        /// The array's size in bytes.
        expected: u64,
        /// The bytes after the header.
        found: u64,
    },
    /// A `U` string holds a code unit that is not a Unicode scalar value.
    InvalidCodePoint {
        /// The element's index in memory order.
        index: u64,
        /// The code unit found.
        value: u32,
    },
    /// A `bool` element is a byte other than 0 or 1.
    InvalidBool {
        /// The element's index in memory order.
        index: u64,
        /// The byte found.
        value: u8,
    },
    /// A field of a structured record holds a value its Rust type cannot represent (a bool
    /// byte other than 0 or 1, a UCS-4 code unit that is not a `char`).
    InvalidField {
        /// The record's index in memory order.
        index: u64,
        /// The field's path within the record: names joined by `.`, array indices in
        /// brackets (`"n.y[1]"`).
        field: String,
        /// What was found and what was expected.
        reason: String,
    },
    /// A safetensors file's header is malformed (feature `safetensors`): its length, its
    /// JSON, or tensor offsets and sizes that contradict each other or the file; or a
    /// Parquet file cannot be read (feature `parquet`).
    #[cfg_attr(
        not(any(feature = "safetensors", feature = "parquet")),
        allow(dead_code)
    )]
    Foreign {
        /// The format: `"safetensors"` or `"Parquet"`.
        format: &'static str,
        /// What is wrong (bounded when shown).
        reason: String,
    },
    /// The input is not a ZIP archive (what `.npz` files are): no end of central directory
    /// record in its last 65,557 bytes.
    NotZip {
        /// The input's length in bytes.
        len: u64,
        /// Its first bytes (at most four; a ZIP archive starts with `PK`).
        found: Vec<u8>,
    },
    /// A ZIP structure of an archive is malformed, or one of its lengths or offsets points
    /// outside the archive or contradicts another.
    Zip {
        /// The byte offset in the archive of the structure at fault.
        offset: u64,
        /// What was expected there.
        expected: String,
        /// What was found.
        found: String,
    },
    /// An archive member's compressed data is not a valid deflate stream, or ends before it.
    CorruptMember {
        /// What is wrong.
        reason: String,
    },
    /// An archive member holds fewer bytes than its central directory entry declares.
    MemberTruncated {
        /// The size its entry declares.
        declared: u64,
        /// The bytes it holds.
        found: u64,
    },
    /// An archive member inflates to more bytes than its central directory entry declares: a
    /// corrupt archive, or a zip bomb. Reading stops at the declared size.
    MemberOverrun {
        /// The size its entry declares.
        declared: u64,
    },
    /// An archive member's bytes do not match the CRC-32 its entry declares.
    MemberChecksum {
        /// The CRC-32 its entry declares.
        expected: u32,
        /// The CRC-32 of its bytes.
        found: u32,
    },
    /// An archive member uses a ZIP feature this crate does not read: encryption, or a
    /// compression method other than stored (0) and deflate (8), the two numpy writes.
    UnsupportedMember {
        /// The feature, for example `"compression method 12 (bzip2)"`.
        feature: String,
    },
    /// The pickle of an object (`|O`) array is malformed: an unknown opcode, a stack or memo
    /// misuse, an argument of the wrong type, array data of the wrong length.
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    Pickle {
        /// The byte offset of the opcode at fault, from the pickle's first byte (the first
        /// data byte of the array).
        offset: u64,
        /// What is wrong (at most 200 characters of input quoted).
        reason: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in("", f)
    }
}

impl FormatError {
    /// Writes the message; `member` is the archive member an error about one names.
    fn fmt_in(&self, member: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::BadMagic { found } => write!(
                f,
                "not an .npy file: expected magic b\"\\x93NUMPY\", found b\"{}\"",
                found.escape_ascii()
            ),
            FormatError::UnsupportedVersion { major, minor } => write!(
                f,
                "unsupported .npy format version {major}.{minor}: expected 1.0, 2.0 or 3.0"
            ),
            FormatError::Truncated {
                part,
                expected,
                found,
            } => write!(
                f,
                "file ends in the {part}: expected {expected} bytes, found {found}"
            ),
            FormatError::HeaderEncoding { offset } => write!(
                f,
                "version 3.0 header is not valid utf-8 (byte {offset} of the header)"
            ),
            FormatError::HeaderSyntax {
                offset,
                expected,
                found,
            } => write!(
                f,
                "cannot parse header at byte {offset}: expected {expected}, found {found}"
            ),
            FormatError::HeaderNotDict { found } => {
                write!(f, "header is not a dict: {found}")
            }
            FormatError::HeaderKeys { found } => write!(
                f,
                "header keys must be exactly 'descr', 'fortran_order', 'shape'; found {}",
                name_list(found)
            ),
            FormatError::InvalidShape { found } => write!(
                f,
                "shape must be a tuple of non-negative integers; found {found}"
            ),
            FormatError::TooManyDimensions { found } => write!(
                f,
                "shape has {found} dimensions; numpy arrays have at most 64"
            ),
            FormatError::ShapeOverflow { shape, itemsize } => {
                write!(f, "shape {}", Capped(format_args!("{shape:?}")))?;
                overflow(f, *itemsize)
            }
            FormatError::InvalidFortranOrder { found } => {
                write!(f, "fortran_order must be True or False; found {found}")
            }
            FormatError::InvalidDescr { found, reason } => {
                write!(f, "invalid dtype descriptor {found}: {reason}")
            }
            FormatError::TrailingBytes { expected, found } => write!(
                f,
                "buffer holds {found} bytes after the header; the array has {expected} \
                 (a view needs exactly one .npy file)"
            ),
            FormatError::InvalidCodePoint { index, value } => write!(
                f,
                "string element {index} holds code unit {value:#x}, which is not a unicode \
                 scalar value"
            ),
            // ndarray-npy's words first, then which element.
            FormatError::InvalidBool { index, value } => write!(
                f,
                "error parsing value {value:#04x} as a bool: element {index}; a bool is 0x00 or \
                 0x01"
            ),
            FormatError::InvalidField {
                index,
                field,
                reason,
            } => write!(
                f,
                "record {index}, field {}: {}",
                quote(field),
                Capped(reason)
            ),
            FormatError::Foreign { format, reason } => {
                write!(f, "not a valid {format} file: {}", Capped(reason))
            }
            FormatError::NotZip { len, found } if found.starts_with(b"PK\x03\x04") => write!(
                f,
                "no end of central directory record in the last bytes of this {len}-byte \
                 .npz (zip) archive: it may be truncated (it starts with a zip member, \
                 b\"{}\")",
                found.escape_ascii()
            ),
            FormatError::NotZip { len, found } => write!(
                f,
                "not an .npz (zip) archive: no end of central directory record in its {len} \
                 bytes (it starts with b\"{}\"; a truncated archive looks like this too)",
                found.escape_ascii()
            ),
            FormatError::Zip {
                offset,
                expected,
                found,
            } => write!(
                f,
                "malformed zip archive at byte {offset}: expected {expected}, found {found}"
            ),
            FormatError::CorruptMember { reason } => {
                write!(f, "archive member {} is corrupt: {reason}", name(member))
            }
            FormatError::MemberTruncated { declared, found } => write!(
                f,
                "archive member {} holds {found} bytes; its directory entry declares \
                 {declared}",
                name(member)
            ),
            FormatError::MemberOverrun { declared } => write!(
                f,
                "archive member {} inflates to more than the {declared} bytes its directory \
                 entry declares (a corrupt archive or a zip bomb)",
                name(member)
            ),
            FormatError::MemberChecksum { expected, found } => write!(
                f,
                "archive member {} fails its CRC-32 check: expected {expected:#010x}, \
                 found {found:#010x}",
                name(member)
            ),
            FormatError::UnsupportedMember { feature } => write!(
                f,
                "archive member {} uses {feature}, which ndnpy does not read \
                 (it reads stored and deflated members, as numpy writes them)",
                name(member)
            ),
            FormatError::Pickle { offset, reason } => {
                write!(f, "malformed pickle at byte {offset}: {}", Capped(reason))
            }
        }
    }
}

impl StdError for FormatError {}

/// The file is valid but holds something other than what the caller asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
// The archive variants are built only with the `npz` feature.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub enum MismatchError {
    /// A conversion between numpy and safetensors, Arrow or Parquet (features
    /// `safetensors`, `arrow`, `parquet`) met an array, tensor or column whose type the other
    /// format cannot hold.
    #[cfg_attr(not(any(feature = "safetensors", feature = "arrow")), allow(dead_code))]
    NoEquivalent {
        /// The array's key or the tensor's name.
        name: String,
        /// Its dtype as its own format spells it (`'<U3'`, `F8_E4M3`).
        dtype: String,
        /// The format that lacks it: `"safetensors"`, `"Arrow"` or `"numpy"`.
        target: &'static str,
        /// Why, or what to do instead (bounded when shown).
        hint: String,
    },
    /// The file's dtype cannot be read as the requested element type.
    DType {
        /// The Rust element type requested.
        requested: &'static str,
        /// The dtype in the file.
        found: DType,
    },
    /// A view in place was asked of an archive member that is compressed.
    CompressedMember,
    /// A view needs native byte order; the data is stored in the other one.
    ByteOrder {
        /// The file's dtype.
        found: DType,
    },
    /// A view needs the data aligned for its element type.
    Misaligned {
        /// The alignment the element type needs.
        align: usize,
        /// The data's address modulo `align`.
        offset: usize,
    },
    /// A view in place was asked of a stored archive member whose data is not aligned for
    /// the element type (numpy's archives put data at arbitrary offsets).
    MisalignedMember {
        /// The alignment the element type needs.
        align: usize,
        /// The data's address modulo `align`.
        offset: usize,
    },
    /// The file's number of dimensions differs from the requested array type's.
    Ndim {
        /// The requested number of dimensions.
        expected: usize,
        /// The file's number of dimensions.
        found: usize,
        /// The file's shape.
        shape: Vec<usize>,
    },
    /// The array or selection read into a caller's buffer has another shape than the buffer.
    Shape {
        /// The buffer's shape.
        buffer: Vec<usize>,
        /// The array's or selection's shape.
        found: Vec<usize>,
    },
    /// A field of a structured record has a dtype its Rust type cannot be read from or
    /// written as.
    Field {
        /// The field's path within the record (`"n.y"`).
        field: String,
        /// The Rust type requested for it.
        requested: &'static str,
        /// The field's dtype in the file.
        found: DType,
    },
    /// A Rust record type has fields the file's record does not.
    MissingFields {
        /// The path of the record within the outer record (empty for the array's element).
        field: String,
        /// The Rust record type.
        requested: &'static str,
        /// The names the Rust type needs and the file lacks.
        missing: Vec<String>,
        /// The names of the file's fields, in offset order.
        found: Vec<String>,
    },
    /// A record cannot be viewed in place as the Rust type: its memory layout (field offsets,
    /// size, padding) differs from the file's record layout.
    Layout {
        /// The Rust record type.
        requested: &'static str,
        /// The file's dtype.
        found: DType,
        /// The first difference.
        reason: String,
    },
    /// The archive has no member of this name, nor of this name with `.npy` appended.
    MissingMember {
        /// The name asked for.
        name: String,
        /// The archive's first keys (member names without one `.npy` suffix), in archive
        /// order: at most 10, the ones the message lists.
        keys: Vec<String>,
        /// The number of members in the archive.
        len: usize,
    },
    /// A member index is not below the archive's number of members.
    MemberIndex {
        /// The index asked for.
        index: usize,
        /// The number of members.
        len: usize,
    },
    /// The archive member is not an `.npy` array (it does not start with the `.npy` magic);
    /// numpy returns such members as raw bytes, and so do `NpzMember::bytes` and
    /// `NpzMember::get`.
    NotNpy {
        /// Its first bytes (at most six).
        found: Vec<u8>,
    },
    /// An object array's pickle names a global (a function or class) other than the ones
    /// that describe data; ndnpy never calls code from a file.
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    PickleGlobal {
        /// The module, as the pickle names it (at most 200 characters).
        module: String,
        /// The name in the module (at most 200 characters).
        name: String,
    },
    /// An object array's pickle is valid but holds something ndnpy does not rebuild: an
    /// ndarray subclass, records holding objects, a cycle, a dtype object as a value.
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    PickleUnsupported {
        /// The byte offset of the opcode at fault from the pickle's first byte (the pickle's
        /// length when found while building the values).
        offset: u64,
        /// What it is.
        what: String,
    },
    /// An object array's pickle holds a Python 2 `str` beyond ASCII, read as ASCII.
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    PickleNotAscii {
        /// The text, escaped (bounded when shown).
        text: String,
    },
    /// An element of an object array is not of the Python type a typed conversion needs
    /// (`DynArray::into_strings` of an array holding an int).
    ObjectValue {
        /// The element's index in logical (C) order.
        index: usize,
        /// The Rust type requested.
        requested: &'static str,
        /// The Python type found.
        found: &'static str,
    },
}

impl fmt::Display for MismatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in("", f)
    }
}

impl MismatchError {
    /// Writes the message; `member` is the archive member an error about one names.
    fn fmt_in(&self, member: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Without the feature `object`, an object array ('|O') names the feature.
            MismatchError::DType { requested, found }
                if cfg!(not(feature = "object"))
                    && matches!(found, DType::Scalar(s) if s.kind() == ScalarKind::Object) =>
            {
                if *requested == "DynArray" {
                    write!(
                        f,
                        "object arrays need ndnpy's `object` feature: the file holds pickled \
                         Python objects (dtype {}), which this build does not read",
                        Capped(found)
                    )
                } else {
                    write!(
                        f,
                        "the file holds pickled Python objects (dtype {}), which cannot be read \
                         as {requested}; object arrays need ndnpy's `object` feature, with \
                         which read_npy_dyn reads them as PyValues",
                        Capped(found)
                    )
                }
            }
            MismatchError::DType { requested, found } if found.has_object() => write!(
                f,
                "the file holds pickled Python objects (dtype {}), which cannot be read \
                 as {requested} (read it with read_npy_dyn, which reads the pickle as \
                 PyValues without running it)",
                Capped(found)
            ),
            MismatchError::DType { requested, found } => {
                write!(f, "cannot read dtype {} as {requested}", Capped(found))
            }
            MismatchError::CompressedMember => write!(
                f,
                "archive member {} is compressed and cannot be viewed in place \
                 (read it with NpzReader::by_name, which copies)",
                name(member)
            ),
            MismatchError::ByteOrder { found } => write!(
                f,
                "cannot view dtype {} in place: it is not in this machine's byte order \
                 (read it with ReadNpyExt, which swaps)",
                Capped(found)
            ),
            MismatchError::Misaligned { align, offset } => write!(
                f,
                "cannot view the data in place: it is {offset} bytes past a {align}-byte \
                 boundary (read it with ReadNpyExt, which copies)"
            ),
            MismatchError::MisalignedMember { align, offset } => write!(
                f,
                "cannot view archive member {} in place: its data is {offset} bytes past a \
                 {align}-byte boundary (read it with NpzReader::by_name, which copies; \
                 archives written with NpzWriteOptions::align can be viewed)",
                name(member)
            ),
            MismatchError::Ndim {
                expected,
                found,
                shape,
            } => {
                let mut text = String::new();
                crate::base::pyrepr::write_shape(shape, &mut text);
                write!(
                    f,
                    "expected an array of {expected} dimension{}, found one of {found}: shape {}",
                    if *expected == 1 { "" } else { "s" },
                    Capped(text)
                )
            }
            MismatchError::Shape { buffer, found } => {
                let (mut found_text, mut buffer_text) = (String::new(), String::new());
                crate::base::pyrepr::write_shape(found, &mut found_text);
                crate::base::pyrepr::write_shape(buffer, &mut buffer_text);
                write!(
                    f,
                    "cannot read an array of shape {} into a buffer of shape {}",
                    Capped(found_text),
                    Capped(buffer_text)
                )
            }
            MismatchError::Field {
                field,
                requested,
                found,
            } => write!(
                f,
                "field {}: cannot read dtype {} as {requested}",
                quote(field),
                Capped(found)
            ),
            MismatchError::MissingFields {
                field,
                requested,
                missing,
                found,
            } => {
                if !field.is_empty() {
                    write!(f, "field {}: ", quote(field))?;
                }
                write!(
                    f,
                    "record type {requested} needs fields {} that the file's record lacks; \
                     the file's fields are {}",
                    quote_list(missing),
                    quote_list(found)
                )
            }
            MismatchError::Layout {
                requested,
                found,
                reason,
            } => write!(
                f,
                "cannot view dtype {} in place as {requested}: {} \
                 (read it with ReadNpyExt, which matches fields by name)",
                Capped(found),
                Capped(reason)
            ),
            MismatchError::MissingMember {
                name: asked,
                keys,
                len,
            } => {
                let npy = format!("{asked}.npy");
                let (asked, npy) = (name(asked), name(&npy));
                if *len == 0 {
                    return write!(
                        f,
                        "no member {asked} (nor {npy}) in the archive, which is empty"
                    );
                }
                write!(
                    f,
                    "no member {asked} (nor {npy}) in the archive; its {len} keys are "
                )?;
                for (i, key) in keys.iter().take(LIST_MAX).enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", name(key))?;
                }
                if *len > keys.len().min(LIST_MAX) {
                    write!(f, ", ...")?;
                }
                Ok(())
            }
            MismatchError::NoEquivalent {
                name,
                dtype,
                target,
                hint,
            } => write!(
                f,
                "{}: dtype {} has no {target} equivalent: {}",
                quote(name),
                Capped(dtype),
                Capped(hint)
            ),
            MismatchError::MemberIndex { index, len } => write!(
                f,
                "member index {index} is out of range for an archive of {len} members"
            ),
            MismatchError::NotNpy { found } => write!(
                f,
                "archive member {} is not an .npy array: expected magic \
                 b\"\\x93NUMPY\", found b\"{}\" (read its bytes with NpzMember::bytes)",
                name(member),
                found.escape_ascii()
            ),
            MismatchError::PickleGlobal { module, name } => write!(
                f,
                "the pickle calls {}.{}, which ndnpy does not run: it rebuilds numpy arrays, \
                 dtypes and scalars and Python data, and never calls code from a file",
                Capped(module),
                Capped(name)
            ),
            MismatchError::PickleNotAscii { text } => write!(
                f,
                "the pickle holds the Python 2 str {} that is not ASCII (numpy's default \
                 encoding; read it with PickleEncoding::Latin1, numpy's encoding='latin1', or \
                 Bytes)",
                Capped(text)
            ),
            MismatchError::PickleUnsupported { offset, what } => write!(
                f,
                "the pickle holds {} (at byte {offset}), which ndnpy does not rebuild",
                Capped(what)
            ),
            MismatchError::ObjectValue {
                index,
                requested,
                found,
            } => write!(
                f,
                "object element {index} is a Python {found}, which cannot be read as {requested}"
            ),
        }
    }
}

impl StdError for MismatchError {}

/// The file exceeds a limit set in [`ReadOptions`](crate::ReadConfig).
#[derive(Debug, Clone, PartialEq, Eq)]
// The archive variants are built only with the `npz` feature.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub enum LimitError {
    /// The declared header length is over [`ReadOptions::max_header_len`](crate::ReadConfig::max_header_len).
    HeaderTooLarge {
        /// The limit in bytes.
        limit: usize,
        /// The declared header length in bytes.
        found: u64,
    },
    /// The descriptor nests deeper than [`ReadOptions::max_depth`](crate::ReadConfig::max_depth).
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The array's data is larger than [`ReadOptions::max_data_len`](crate::ReadConfig::max_data_len).
    ArrayTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The array's size in bytes.
        found: u64,
    },
    /// An archive member read as raw bytes is larger than
    /// [`ReadOptions::max_data_len`](crate::ReadConfig::max_data_len).
    MemberTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The member's declared size in bytes.
        found: u64,
    },
    /// Reading an archive member would take the bytes an
    /// `NpzReader` has read out of its members (decompressed) past
    /// [`ReadOptions::max_inflated_len`](crate::ReadConfig::max_inflated_len).
    InflatedTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The total the read would reach: the bytes read before it plus the member's
        /// declared size.
        found: u64,
    },
    /// An object array's values nest deeper than
    /// [`ReadOptions::max_pickle_depth`](crate::ReadConfig::max_pickle_depth).
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    PickleTooDeep {
        /// The limit.
        limit: usize,
    },
    /// An object array's pickle decodes to more bytes of values than its length allows: 64
    /// bytes per pickle byte plus 16 MiB (a value the pickle shares through its memo is
    /// counted at each place it appears).
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickle
    PickleExpansion {
        /// The pickle's length so far, in bytes.
        pickle_len: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in("", f)
    }
}

impl LimitError {
    /// Writes the message; `member` is the archive member an error about one names.
    fn fmt_in(&self, member: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::HeaderTooLarge { limit, found } => write!(
                f,
                "header of {found} bytes exceeds the limit of {limit} bytes \
                 (raise it with ReadOptions::max_header_len)"
            ),
            LimitError::TooDeep { limit } => write!(
                f,
                "header nests deeper than the limit of {limit} levels \
                 (raise it with ReadOptions::max_depth)"
            ),
            LimitError::ArrayTooLarge { limit, found } => write!(
                f,
                "array data of {found} bytes exceeds the limit of {limit} bytes \
                 (raise it with ReadOptions::max_data_len)"
            ),
            LimitError::MemberTooLarge { limit, found } => write!(
                f,
                "archive member {} of {found} bytes exceeds the limit of {limit} bytes \
                 (raise it with ReadOptions::max_data_len)",
                name(member)
            ),
            LimitError::InflatedTooLarge { limit, found } => write!(
                f,
                "reading archive member {} would bring the bytes read out of the archive to \
                 {found}, over the limit of {limit} (raise it with \
                 ReadOptions::max_inflated_len)",
                name(member)
            ),
            LimitError::PickleTooDeep { limit } => write!(
                f,
                "the pickled values nest deeper than the limit of {limit} levels \
                 (raise it with ReadOptions::max_pickle_depth)"
            ),
            LimitError::PickleExpansion { pickle_len, limit } => write!(
                f,
                "the pickle of {pickle_len} bytes decodes to more than {limit} bytes of values \
                 (64 per pickle byte plus 16 MiB; shared values count where they repeat)"
            ),
        }
    }
}

impl StdError for LimitError {}

/// The caller asked for something the arguments cannot give, reading or writing: an index or
/// row range outside the array, a block of the wrong shape, a value its dtype cannot hold, a
/// header too large for any format version. The file is not at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
// The archive variants are built only with the `npz` feature.
#[cfg_attr(not(feature = "npz"), allow(dead_code))]
pub enum UsageError {
    /// The header text does not fit in any format version (over 4 GiB).
    HeaderTooLarge {
        /// The header length in bytes.
        len: usize,
    },
    /// The operation needs a growth axis, and the array is 0-d.
    NoGrowthAxis,
    /// A selection (`s![..]`) does not have one element per axis of the array.
    SliceAxes {
        /// The array's number of axes.
        ndim: usize,
        /// The selection's axes (its `NewAxis` elements aside).
        found: usize,
    },
    /// An index or range is outside the array.
    OutOfBounds {
        /// The index or range asked for.
        requested: String,
        /// The length it was checked against.
        len: usize,
    },
    /// A block's shape does not fit the array it is written to.
    BlockShape {
        /// The array's shape (an appender's current shape; a streaming writer's whole
        /// array).
        expected: Vec<usize>,
        /// The growth axis, the one dimension that may differ.
        axis: usize,
        /// The block's shape, as given.
        found: Vec<usize>,
    },
    /// A streaming write did not get exactly the array's number of elements.
    ElementCount {
        /// The array's number of elements.
        expected: usize,
        /// How many were (or would have been) written.
        written: usize,
    },
    /// A string is longer than the fixed size it is written in.
    StringTooLong {
        /// The element's index in the order written.
        index: usize,
        /// Its length (characters for `U`, bytes for `S`).
        len: usize,
        /// The size available.
        max: usize,
    },
    /// Datetime values with different units were written as one array.
    MixedUnits {
        /// The index of the first value whose unit differs.
        index: usize,
        /// The array's dtype (from its first value).
        expected: DType,
        /// The dtype of the differing value.
        found: DType,
    },
    /// A record field was asked for that the array does not have.
    NoSuchField {
        /// The name asked for.
        name: String,
        /// The array's fields (empty if it is not a record array).
        available: Vec<String>,
    },
    /// The requested version cannot hold this header.
    VersionTooSmall {
        /// The requested version (major, minor).
        version: [u8; 2],
        /// Why it cannot.
        reason: &'static str,
    },
    /// A conversion to or from Arrow, Parquet or safetensors (features `arrow`, `parquet`,
    /// `safetensors`) cannot be made as asked: a null where numpy has none and no fill value,
    /// a fill value the dtype cannot hold, an axis longer than Arrow's lists, options that
    /// contradict each other, an array named as safetensors' metadata.
    #[cfg_attr(not(any(feature = "arrow", feature = "safetensors")), allow(dead_code))]
    Conversion {
        /// What and why (bounded when shown).
        reason: String,
    },
    /// A field of a structured record holds a value its dtype cannot store (a string longer
    /// than the field).
    FieldValue {
        /// The record's index in the order written.
        index: u64,
        /// The field's path within the record (`"n.name"`).
        field: String,
        /// What does not fit.
        reason: String,
    },
    /// The caller's shape has more elements or bytes than the address space holds.
    /// A header to write has more dimensions than numpy arrays can (64), which every reader
    /// refuses.
    TooManyDimensions {
        /// The number of dimensions.
        found: usize,
    },
    ShapeOverflow {
        /// The shape.
        shape: Vec<usize>,
        /// The element size in bytes (0 where only the element count was checked).
        itemsize: usize,
    },
    /// An archive already has a member of this name.
    DuplicateMember {
        /// The member name (the key with `.npy` appended).
        name: String,
    },
    /// A member name is longer than the 65,535 bytes a ZIP entry can hold.
    MemberNameTooLong {
        /// The name's length in bytes.
        len: usize,
    },
    /// A deflate compression level outside 1 to 9.
    CompressionLevel {
        /// The level asked for.
        level: u32,
    },
    /// The ZIP writer refused the request.
    #[cfg_attr(not(feature = "safetensors"), allow(dead_code))]
    Archive {
        /// Its reason.
        reason: String,
    },
    /// A URL that does not name an object in a store this build has.
    #[cfg_attr(not(feature = "object_store"), allow(dead_code))]
    Url {
        /// The URL (cut as `excerpt` does).
        url: String,
        /// Why not.
        reason: String,
    },
    /// An object array holds a value that cannot be pickled as numpy would load it (a
    /// numpy scalar that is not 0-d, a code point beyond U+10FFFF, values nested deeper than
    /// 1000 levels).
    #[cfg_attr(not(feature = "object"), allow(dead_code))] // made only by the pickler
    ObjectValue {
        /// What cannot be written.
        reason: String,
    },
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::HeaderTooLarge { len } => {
                write!(f, "header of {len} bytes is too large for any .npy version")
            }
            UsageError::NoGrowthAxis => {
                f.write_str("a 0-d array has no axis to read or write in steps")
            }
            UsageError::SliceAxes { ndim, found } => write!(
                f,
                "the selection has {found} axes (besides new ones), the array {ndim}"
            ),
            UsageError::OutOfBounds { requested, len } => {
                write!(f, "{requested} is out of bounds for length {len}")
            }
            UsageError::BlockShape {
                expected,
                axis,
                found,
            } => {
                write!(
                    f,
                    "block of shape {} does not fit an array of shape {} growing along axis \
                     {axis}: a block must have shape [",
                    Capped(format_args!("{found:?}")),
                    Capped(format_args!("{expected:?}"))
                )?;
                for (i, d) in expected.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    if i == *axis {
                        write!(f, "{sep}n")?;
                    } else {
                        write!(f, "{sep}{d}")?;
                    }
                }
                let step: Vec<usize> = (expected.iter().enumerate())
                    .filter(|&(i, _)| i != *axis)
                    .map(|(_, &d)| d)
                    .collect();
                write!(f, "], or {step:?} for one step")
            }
            UsageError::ElementCount { expected, written } => write!(
                f,
                "the array has {expected} elements; {written} were written"
            ),
            UsageError::StringTooLong { index, len, max } => write!(
                f,
                "string {index} has length {len}, more than the {max} its dtype holds"
            ),
            UsageError::MixedUnits {
                index,
                expected,
                found,
            } => write!(
                f,
                "value {index} has dtype {found}, but the array is written as {expected}"
            ),
            UsageError::NoSuchField {
                name: asked,
                available,
            } if available.is_empty() => {
                write!(
                    f,
                    "no field {}: the array is not a record array",
                    name(asked)
                )
            }
            UsageError::NoSuchField {
                name: asked,
                available,
            } => write!(
                f,
                "no field {}; the fields are {}",
                name(asked),
                name_list(available)
            ),
            UsageError::Conversion { reason } => write!(f, "{}", Capped(reason)),
            UsageError::VersionTooSmall {
                version: [major, minor],
                reason,
            } => write!(f, "cannot write a version {major}.{minor} header: {reason}"),
            UsageError::FieldValue {
                index,
                field,
                reason,
            } => write!(
                f,
                "cannot write record {index}, field {}: {}",
                quote(field),
                Capped(reason)
            ),
            UsageError::ShapeOverflow { shape, itemsize } => {
                write!(f, "shape {}", Capped(format_args!("{shape:?}")))?;
                overflow(f, *itemsize)
            }
            UsageError::TooManyDimensions { found } => write!(
                f,
                "cannot write a shape of {found} dimensions: numpy arrays have at most 64"
            ),
            UsageError::DuplicateMember { name: member } => {
                write!(f, "the archive already has a member named {}", name(member))
            }
            UsageError::MemberNameTooLong { len } => write!(
                f,
                "member name of {len} bytes is longer than a zip entry can hold (65535 bytes)"
            ),
            UsageError::CompressionLevel { level } => write!(
                f,
                "deflate compression level {level} is out of range: expected 1 to 9"
            ),
            UsageError::Archive { reason } => write!(f, "cannot write the archive: {reason}"),
            UsageError::Url { url, reason } => {
                write!(f, "cannot open {url:?}: {}", Capped(reason))
            }
            UsageError::ObjectValue { reason } => {
                write!(f, "cannot write the object array: {}", Capped(reason))
            }
        }
    }
}

impl StdError for UsageError {}

/// An I/O error on a file named by path: `cannot open "x.npy": No such file or directory (os
/// error 2)`. Carried inside the [`io::Error`] of an [`ErrorKind::Io`] error, whose kind
/// stays the original's.
#[derive(Debug)]
struct PathError {
    action: &'static str,
    path: std::path::PathBuf,
    error: io::Error,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot {} {:?}: {}", self.action, self.path, self.error)
    }
}

impl StdError for PathError {}

/// What an I/O error carries when the object it read changed after it was opened
/// ([`Fault::Changed`]): the error that says so, shown as it is.
#[derive(Debug)]
pub struct Changed(#[doc(hidden)] pub Box<dyn StdError + Send + Sync>);

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl StdError for Changed {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.source()
    }
}

/// The error of `action` ("open", "create", ...) on the file at `path`, for `map_err`:
/// `File::open(&path).map_err(with_path("open", &path))?`. The message names the path and
/// gives the operating system's reason; the [`io::ErrorKind`] is kept.
pub fn with_path<'p>(
    action: &'static str,
    path: &'p std::path::Path,
) -> impl FnOnce(io::Error) -> Error + 'p {
    move |error| {
        Error::from(io::Error::new(
            error.kind(),
            PathError {
                action,
                path: path.to_path_buf(),
                error,
            },
        ))
    }
}

/// The most characters of input text (header text, a descr, a name, a list of names) that an
/// error message quotes. Longer text is cut there, followed by `…` and its full length.
pub const QUOTE_MAX: usize = 200;

/// Keeps the first [`QUOTE_MAX`] characters written to it and counts the bytes of the rest,
/// so that formatting a huge value into it needs little memory.
#[derive(Default)]
struct Excerpt {
    kept: String,
    chars: usize,
    total: usize,
}

impl fmt::Write for Excerpt {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.total += s.len();
        for c in s.chars() {
            if self.chars == QUOTE_MAX {
                break;
            }
            self.kept.push(c);
            self.chars += 1;
        }
        Ok(())
    }
}

impl fmt::Display for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kept)?;
        if self.total > self.kept.len() {
            write!(f, "… ({} bytes in all)", self.total)?;
        }
        Ok(())
    }
}

/// `value` formatted as [`Display`](fmt::Display), cut to [`QUOTE_MAX`] characters (then `…`
/// and the full length). Used where a message quotes something the input controls.
pub struct Capped<T>(#[doc(hidden)] pub T);

impl<T: fmt::Display> fmt::Debug for Capped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<T: fmt::Display> fmt::Display for Capped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut e = Excerpt::default();
        fmt::write(&mut e, format_args!("{}", self.0))?;
        e.fmt(f)
    }
}

/// `value`'s text cut as [`Capped`] does, as a string (for error fields that hold text taken
/// from the input).
pub fn excerpt(value: impl fmt::Display) -> String {
    Capped(value).to_string()
}

/// The end of a shape overflow's message: the elements, or their bytes, overflow.
fn overflow(f: &mut fmt::Formatter<'_>, itemsize: usize) -> fmt::Result {
    if itemsize == 0 {
        f.write_str(" has more elements than the address space holds")
    } else {
        write!(
            f,
            " with {itemsize}-byte elements overflows the address space"
        )
    }
}

/// A name quoted as Rust's `{:?}` does, cut as [`Capped`] does.
fn name(s: &str) -> String {
    excerpt(format_args!("{s:?}"))
}

/// The error for array data of `expected` bytes of which only `found` arrived.
pub fn truncated(expected: u64, found: u64) -> Error {
    Error::from(FormatError::Truncated {
        part: "array data",
        expected,
        found,
    })
}

/// The error for a dtype `found` that is not the one `requested` (a type's name, or what it
/// reads).
pub fn wrong_dtype(requested: &'static str, found: DType) -> Error {
    Error::from(MismatchError::DType { requested, found })
}

/// The error for a conversion (Arrow, Parquet, safetensors) that cannot be made, and why.
#[cfg(any(feature = "arrow", feature = "safetensors"))]
pub fn conversion(reason: impl Into<String>) -> Error {
    Error::from(UsageError::Conversion {
        reason: reason.into(),
    })
}

/// The error for data in byte order `found` where only native order will do (a view, a map).
pub fn not_native(found: DType) -> Error {
    Error::from(MismatchError::ByteOrder { found })
}

/// Shorthand for a syntax error in header text.
pub fn syntax(offset: usize, expected: &'static str, found: impl fmt::Display) -> Error {
    Error::from(FormatError::HeaderSyntax {
        offset,
        expected,
        found: excerpt(found),
    })
}

/// Shorthand for an invalid descriptor.
pub fn bad_descr(found: impl fmt::Display, reason: impl fmt::Display) -> Error {
    Error::from(FormatError::InvalidDescr {
        found: excerpt(found),
        reason: excerpt(reason),
    })
}

/// A field path for messages, in Python's quoting (`'n.y'`), cut as [`Capped`] does.
fn quote(field: &str) -> String {
    let mut out = String::new();
    crate::base::pyrepr::repr_str(excerpt(field).as_str(), &mut out);
    out
}

/// A list of names for messages, as Python prints a list of strings: at most [`LIST_MAX`]
/// names (then `...` and how many there are), each cut as [`Capped`] does.
fn quote_list(names: &[String]) -> String {
    let mut out = String::from("[");
    for (i, n) in names.iter().take(LIST_MAX).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&quote(n));
    }
    if names.len() > LIST_MAX {
        out.push_str(&format!(", ... ({} in all)", names.len()));
    }
    out.push(']');
    out
}

/// The most names an error message lists.
const LIST_MAX: usize = 10;

/// A list of names quoted as Rust's `{:?}` does, as [`quote_list`] limits it.
fn name_list(names: &[String]) -> String {
    let mut out = String::from("[");
    for (i, n) in names.iter().take(LIST_MAX).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&name(n).to_string());
    }
    if names.len() > LIST_MAX {
        out.push_str(&format!(", ... ({} in all)", names.len()));
    }
    out.push(']');
    out
}

impl FormatError {
    /// Its [`Fault`].
    fn fault(&self) -> Fault {
        match self {
            FormatError::BadMagic { .. } => Fault::Magic,
            FormatError::UnsupportedVersion { .. } => Fault::Version,
            FormatError::HeaderEncoding { .. } => Fault::HeaderEncoding,
            FormatError::HeaderSyntax { .. } => Fault::HeaderSyntax,
            FormatError::HeaderNotDict { .. } => Fault::HeaderNotDict,
            FormatError::HeaderKeys { .. } => Fault::HeaderKeys,
            FormatError::InvalidShape { .. }
            | FormatError::TooManyDimensions { .. }
            | FormatError::ShapeOverflow { .. } => Fault::Shape,
            FormatError::InvalidFortranOrder { .. } => Fault::FortranOrder,
            FormatError::InvalidDescr { .. } => Fault::Descr,
            FormatError::Foreign { .. } => Fault::Foreign,
            FormatError::Truncated { .. } => Fault::Truncated,
            FormatError::TrailingBytes { .. } => Fault::TrailingBytes,
            FormatError::InvalidCodePoint { .. }
            | FormatError::InvalidBool { .. }
            | FormatError::InvalidField { .. } => Fault::InvalidValue,
            FormatError::Pickle { .. } => Fault::Pickle,
            FormatError::NotZip { .. } => Fault::NotAnArchive,
            FormatError::Zip { .. } => Fault::ArchiveStructure,
            FormatError::CorruptMember { .. } => Fault::MemberCorrupt,
            FormatError::MemberTruncated { .. } => Fault::MemberTruncated,
            FormatError::MemberOverrun { .. } => Fault::MemberOverrun,
            FormatError::MemberChecksum { .. } => Fault::Checksum,
            FormatError::UnsupportedMember { .. } => Fault::UnsupportedMember,
        }
    }
}

impl MismatchError {
    /// Its [`Fault`].
    fn fault(&self) -> Fault {
        match self {
            MismatchError::MissingMember { .. } | MismatchError::MemberIndex { .. } => {
                Fault::MissingMember
            }
            MismatchError::NotNpy { .. } => Fault::NotNpy,
            MismatchError::ByteOrder { .. } => Fault::ByteOrder,
            MismatchError::Misaligned { .. } | MismatchError::MisalignedMember { .. } => {
                Fault::Misaligned
            }
            MismatchError::CompressedMember => Fault::Compressed,
            MismatchError::Layout { .. } => Fault::Layout,
            MismatchError::PickleGlobal { .. } => Fault::PickleGlobal,
            MismatchError::PickleUnsupported { .. } => Fault::PickleUnsupported,
            MismatchError::PickleNotAscii { .. } => Fault::PickleEncoding,
            MismatchError::ObjectValue { .. } => Fault::ObjectValue,
            MismatchError::DType { .. } => Fault::DType,
            MismatchError::NoEquivalent { .. } => Fault::NoEquivalent,
            MismatchError::Field { .. } => Fault::FieldType,
            MismatchError::MissingFields { .. } => Fault::MissingFields,
            MismatchError::Ndim { .. } => Fault::Ndim,
            MismatchError::Shape { .. } => Fault::ShapeMismatch,
        }
    }
}

impl LimitError {
    /// Its [`Fault`].
    fn fault(&self) -> Fault {
        match self {
            LimitError::HeaderTooLarge { .. } => Fault::HeaderLimit,
            LimitError::TooDeep { .. } => Fault::DepthLimit,
            LimitError::ArrayTooLarge { .. } | LimitError::MemberTooLarge { .. } => {
                Fault::DataLimit
            }
            LimitError::InflatedTooLarge { .. } => Fault::InflatedLimit,
            LimitError::PickleTooDeep { .. } => Fault::PickleDepthLimit,
            LimitError::PickleExpansion { .. } => Fault::PickleExpansion,
        }
    }
}

impl UsageError {
    /// Its [`Fault`].
    fn fault(&self) -> Fault {
        match self {
            UsageError::DuplicateMember { .. } => Fault::DuplicateMember,
            UsageError::OutOfBounds { .. } => Fault::OutOfBounds,
            UsageError::SliceAxes { .. } => Fault::SliceAxes,
            UsageError::BlockShape { .. } | UsageError::NoGrowthAxis => Fault::BlockShape,
            UsageError::ElementCount { .. } => Fault::ElementCount,
            UsageError::StringTooLong { .. }
            | UsageError::MixedUnits { .. }
            | UsageError::FieldValue { .. }
            | UsageError::ObjectValue { .. } => Fault::ValueDoesNotFit,
            UsageError::NoSuchField { .. } => Fault::NoSuchField,
            UsageError::HeaderTooLarge { .. }
            | UsageError::VersionTooSmall { .. }
            | UsageError::TooManyDimensions { .. }
            | UsageError::ShapeOverflow { .. } => Fault::TooLargeToWrite,
            UsageError::Conversion { .. } => Fault::Conversion,
            UsageError::MemberNameTooLong { .. }
            | UsageError::CompressionLevel { .. }
            | UsageError::Archive { .. } => Fault::ArchiveWrite,
            UsageError::Url { .. } => Fault::Url,
        }
    }
}
