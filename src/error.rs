//! The error type, grouped by who is at fault.
//!
//! Every fallible function in the crate returns [`Error`]. Its variants say whose fault a
//! failure is: the I/O layer ([`Error::Io`]), the file's bytes ([`Error::Format`]), a mismatch
//! between the file and the type the caller asked for ([`Error::Mismatch`]), a configured limit
//! ([`Error::Limit`]), or a request that cannot be written ([`Error::Usage`]). The inner enums
//! carry what was expected and what was found.

use crate::dtype::DType;
use std::error::Error as StdError;
use std::fmt;
use std::io;

/// An error reading or writing `.npy` data.
///
/// # Examples
///
/// ```
/// use ndarray::Array1;
/// use ndnpy::{Error, FormatError, ReadNpyExt};
///
/// let err = Array1::<f64>::read_npy(&b"not an npy file"[..]).unwrap_err();
/// assert!(matches!(err, Error::Format(FormatError::BadMagic { .. })));
/// assert_eq!(
///     err.to_string(),
///     "not an .npy file: expected magic b\"\\x93NUMPY\", found b\"not an\""
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The reader or writer failed. Running out of bytes while reading is reported as
    /// [`FormatError::Truncated`] instead. The message includes the I/O error's text and,
    /// for files opened by path, the path: `cannot open "x.npy": No such file or directory
    /// (os error 2)`; the error's [`kind`](io::Error::kind) is the operating system's.
    Io(io::Error),
    /// The bytes are not a valid `.npy` file.
    Format(FormatError),
    /// The file is valid but does not hold what the caller asked for.
    Mismatch(MismatchError),
    /// The file exceeds a limit set in [`ReadOptions`](crate::ReadOptions).
    Limit(LimitError),
    /// The caller asked for something that cannot be written.
    Usage(UsageError),
}

/// The error type of reads, under the name ndarray-npy uses.
pub type ReadNpyError = Error;
/// The error type of writes, under the name ndarray-npy uses.
pub type WriteNpyError = Error;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The I/O error's own text, with the path when one is known (see `with_path`).
            Error::Io(e) if e.get_ref().is_some_and(|i| i.is::<PathError>()) => e.fmt(f),
            Error::Io(e) => write!(f, "i/o error: {e}"),
            Error::Format(e) => e.fmt(f),
            Error::Mismatch(e) => e.fmt(f),
            Error::Limit(e) => e.fmt(f),
            Error::Usage(e) => e.fmt(f),
        }
    }
}

/// `Display` already includes the text of an [`Error::Io`]'s I/O error (and the path, when
/// known), so `source()` does not return it again; match [`Error::Io`] to get the
/// [`io::Error`] itself.
impl StdError for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<FormatError> for Error {
    fn from(e: FormatError) -> Self {
        Error::Format(e)
    }
}

impl From<MismatchError> for Error {
    fn from(e: MismatchError) -> Self {
        Error::Mismatch(e)
    }
}

impl From<LimitError> for Error {
    fn from(e: LimitError) -> Self {
        Error::Limit(e)
    }
}

impl From<UsageError> for Error {
    fn from(e: UsageError) -> Self {
        Error::Usage(e)
    }
}

/// The file's bytes are not a valid `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
        /// The member's name in the archive.
        member: String,
        /// What is wrong.
        reason: String,
    },
    /// An archive member holds fewer bytes than its central directory entry declares.
    MemberTruncated {
        /// The member's name in the archive.
        member: String,
        /// The size its entry declares.
        declared: u64,
        /// The bytes it holds.
        found: u64,
    },
    /// An archive member inflates to more bytes than its central directory entry declares: a
    /// corrupt archive, or a zip bomb. Reading stops at the declared size.
    MemberOverrun {
        /// The member's name in the archive.
        member: String,
        /// The size its entry declares.
        declared: u64,
    },
    /// An archive member's bytes do not match the CRC-32 its entry declares.
    MemberChecksum {
        /// The member's name in the archive.
        member: String,
        /// The CRC-32 its entry declares.
        expected: u32,
        /// The CRC-32 of its bytes.
        found: u32,
    },
    /// An archive member uses a ZIP feature this crate does not read: encryption, or a
    /// compression method other than stored (0) and deflate (8), the two numpy writes.
    UnsupportedMember {
        /// The member's name in the archive.
        member: String,
        /// The feature, for example `"compression method 12 (bzip2)"`.
        feature: String,
    },
    /// The pickle of an object (`|O`) array is malformed: an unknown opcode, a stack or memo
    /// misuse, an argument of the wrong type, array data of the wrong length.
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
            FormatError::ShapeOverflow { shape, itemsize } => write!(
                f,
                "shape {} with {itemsize}-byte elements overflows the address space",
                Capped(format_args!("{shape:?}"))
            ),
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
            FormatError::InvalidBool { index, value } => write!(
                f,
                "bool element {index} is byte {value:#04x}; expected 0x00 or 0x01"
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
            FormatError::CorruptMember { member, reason } => {
                write!(f, "archive member {} is corrupt: {reason}", name(member))
            }
            FormatError::MemberTruncated {
                member,
                declared,
                found,
            } => write!(
                f,
                "archive member {} holds {found} bytes; its directory entry declares \
                 {declared}",
                name(member)
            ),
            FormatError::MemberOverrun { member, declared } => write!(
                f,
                "archive member {} inflates to more than the {declared} bytes its directory \
                 entry declares (a corrupt archive or a zip bomb)",
                name(member)
            ),
            FormatError::MemberChecksum {
                member,
                expected,
                found,
            } => write!(
                f,
                "archive member {} fails its CRC-32 check: expected {expected:#010x}, \
                 found {found:#010x}",
                name(member)
            ),
            FormatError::UnsupportedMember { member, feature } => write!(
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
#[non_exhaustive]
pub enum MismatchError {
    /// The file's dtype cannot be read as the requested element type.
    DType {
        /// The Rust element type requested.
        requested: &'static str,
        /// The dtype in the file.
        found: DType,
    },
    /// A view in place was asked of an archive member that is compressed.
    CompressedMember {
        /// The member's key.
        member: String,
    },
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
        /// The member's name in the archive.
        member: String,
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
        /// The member's name in the archive.
        member: String,
        /// Its first bytes (at most six).
        found: Vec<u8>,
    },
    /// An object array's pickle names a global (a function or class) other than the ones
    /// that describe data; ndnpy never calls code from a file.
    PickleGlobal {
        /// The module, as the pickle names it (at most 200 characters).
        module: String,
        /// The name in the module (at most 200 characters).
        name: String,
    },
    /// An object array's pickle is valid but holds something ndnpy does not rebuild: an
    /// ndarray subclass, records holding objects, a cycle, a dtype object as a value.
    PickleUnsupported {
        /// The byte offset of the opcode at fault from the pickle's first byte (the pickle's
        /// length when found while building the values).
        offset: u64,
        /// What it is.
        what: String,
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
        match self {
            MismatchError::DType { requested, found } if found.has_object() => write!(
                f,
                "the file holds pickled Python objects (dtype {}), which cannot be read \
                 as {requested}",
                Capped(found)
            ),
            MismatchError::DType { requested, found } => {
                write!(f, "cannot read dtype {} as {requested}", Capped(found))
            }
            MismatchError::CompressedMember { member } => write!(
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
            MismatchError::MisalignedMember {
                member,
                align,
                offset,
            } => write!(
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
                crate::pyrepr::write_shape(shape, &mut text);
                write!(
                    f,
                    "expected an array of {expected} dimension{}, found one of {found}: shape {}",
                    if *expected == 1 { "" } else { "s" },
                    Capped(text)
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
            MismatchError::MemberIndex { index, len } => write!(
                f,
                "member index {index} is out of range for an archive of {len} members"
            ),
            MismatchError::NotNpy { member, found } => write!(
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

/// The file exceeds a limit set in [`ReadOptions`](crate::ReadOptions).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimitError {
    /// The declared header length is over [`ReadOptions::max_header_len`](crate::ReadOptions::max_header_len).
    HeaderTooLarge {
        /// The limit in bytes.
        limit: usize,
        /// The declared header length in bytes.
        found: u64,
    },
    /// The descriptor nests deeper than [`ReadOptions::max_depth`](crate::ReadOptions::max_depth).
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The array's data is larger than [`ReadOptions::max_data_len`](crate::ReadOptions::max_data_len).
    ArrayTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The array's size in bytes.
        found: u64,
    },
    /// An archive member read as raw bytes is larger than
    /// [`ReadOptions::max_data_len`](crate::ReadOptions::max_data_len).
    MemberTooLarge {
        /// The member's name in the archive.
        member: String,
        /// The limit in bytes.
        limit: u64,
        /// The member's declared size in bytes.
        found: u64,
    },
    /// Reading an archive member would take the bytes an
    /// [`NpzReader`](crate::NpzReader) has read out of its members (decompressed) past
    /// [`ReadOptions::max_inflated_len`](crate::ReadOptions::max_inflated_len).
    InflatedTooLarge {
        /// The member's name in the archive.
        member: String,
        /// The limit in bytes.
        limit: u64,
        /// The total the read would reach: the bytes read before it plus the member's
        /// declared size.
        found: u64,
    },
    /// An object array's values nest deeper than
    /// [`ReadOptions::max_pickle_depth`](crate::ReadOptions::max_pickle_depth).
    PickleTooDeep {
        /// The limit.
        limit: usize,
    },
    /// An object array's pickle decodes to more bytes of values than its length allows: 64
    /// bytes per pickle byte plus 16 MiB (a value the pickle shares through its memo is
    /// counted at each place it appears).
    PickleExpansion {
        /// The pickle's length so far, in bytes.
        pickle_len: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            LimitError::MemberTooLarge {
                member,
                limit,
                found,
            } => write!(
                f,
                "archive member {} of {found} bytes exceeds the limit of {limit} bytes \
                 (raise it with ReadOptions::max_data_len)",
                name(member)
            ),
            LimitError::InflatedTooLarge {
                member,
                limit,
                found,
            } => write!(
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
#[non_exhaustive]
pub enum UsageError {
    /// The header text does not fit in any format version (over 4 GiB).
    HeaderTooLarge {
        /// The header length in bytes.
        len: usize,
    },
    /// The operation needs a growth axis, and the array is 0-d.
    NoGrowthAxis,
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
        /// The requested version.
        version: crate::Version,
        /// Why it cannot.
        reason: &'static str,
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
    Archive {
        /// Its reason.
        reason: String,
    },
    /// An object array holds a value that cannot be pickled as numpy would load it (a
    /// numpy scalar that is not 0-d, a code point beyond U+10FFFF, values nested deeper than
    /// 1000 levels).
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
            UsageError::VersionTooSmall { version, reason } => {
                write!(f, "cannot write a version {version} header: {reason}")
            }
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
            UsageError::ObjectValue { reason } => {
                write!(f, "cannot write the object array: {}", Capped(reason))
            }
        }
    }
}

impl StdError for UsageError {}

/// An I/O error on a file named by path: `cannot open "x.npy": No such file or directory (os
/// error 2)`. Carried inside an [`Error::Io`]'s [`io::Error`], whose kind stays the original's.
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

/// The error of `action` ("open", "create", ...) on the file at `path`, for `map_err`:
/// `File::open(&path).map_err(with_path("open", &path))?`. The message names the path and
/// gives the operating system's reason; the [`io::ErrorKind`] is kept.
pub(crate) fn with_path<'p>(
    action: &'static str,
    path: &'p std::path::Path,
) -> impl FnOnce(io::Error) -> Error + 'p {
    move |error| {
        Error::Io(io::Error::new(
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
pub(crate) const QUOTE_MAX: usize = 200;

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
pub(crate) struct Capped<T>(pub(crate) T);

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
pub(crate) fn excerpt(value: impl fmt::Display) -> String {
    Capped(value).to_string()
}

/// A name quoted as Rust's `{:?}` does, cut as [`Capped`] does.
fn name(s: &str) -> String {
    excerpt(format_args!("{s:?}"))
}

/// Shorthand for a syntax error in header text.
pub(crate) fn syntax(offset: usize, expected: &'static str, found: impl fmt::Display) -> Error {
    Error::Format(FormatError::HeaderSyntax {
        offset,
        expected,
        found: excerpt(found),
    })
}

/// Shorthand for an invalid descriptor.
pub(crate) fn bad_descr(found: impl fmt::Display, reason: impl fmt::Display) -> Error {
    Error::Format(FormatError::InvalidDescr {
        found: excerpt(found),
        reason: excerpt(reason),
    })
}

/// A field path for messages, in Python's quoting (`'n.y'`), cut as [`Capped`] does.
fn quote(field: &str) -> String {
    let mut out = String::new();
    crate::pyrepr::repr_str(excerpt(field).as_str(), &mut out);
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

/// Prefixes the field path of a record error with `name` (a field name, or `[i]` for an
/// element of a sub-array), turning a plain dtype mismatch into a field mismatch. Other errors
/// pass through unchanged.
pub(crate) fn in_field(err: Error, name: &str) -> Error {
    fn join(name: &str, path: &str) -> String {
        if path.is_empty() {
            name.to_string()
        } else if path.starts_with('[') {
            format!("{name}{path}")
        } else {
            format!("{name}.{path}")
        }
    }
    match err {
        Error::Mismatch(MismatchError::DType { requested, found }) => {
            Error::Mismatch(MismatchError::Field {
                field: name.to_string(),
                requested,
                found,
            })
        }
        Error::Mismatch(MismatchError::Field {
            field,
            requested,
            found,
        }) => Error::Mismatch(MismatchError::Field {
            field: join(name, &field),
            requested,
            found,
        }),
        Error::Mismatch(MismatchError::MissingFields {
            field,
            requested,
            missing,
            found,
        }) => Error::Mismatch(MismatchError::MissingFields {
            field: join(name, &field),
            requested,
            missing,
            found,
        }),
        Error::Format(FormatError::InvalidField {
            index,
            field,
            reason,
        }) => Error::Format(FormatError::InvalidField {
            index,
            field: join(name, &field),
            reason,
        }),
        Error::Usage(UsageError::FieldValue {
            index,
            field,
            reason,
        }) => Error::Usage(UsageError::FieldValue {
            index,
            field: join(name, &field),
            reason,
        }),
        other => other,
    }
}

/// Sets the record index of a record value error.
pub(crate) fn at_record(err: Error, at: u64) -> Error {
    match err {
        Error::Format(FormatError::InvalidField { field, reason, .. }) => {
            Error::Format(FormatError::InvalidField {
                index: at,
                field,
                reason,
            })
        }
        Error::Usage(UsageError::FieldValue { field, reason, .. }) => {
            Error::Usage(UsageError::FieldValue {
                index: at,
                field,
                reason,
            })
        }
        other => other,
    }
}
