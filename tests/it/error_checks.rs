//! Checks of the errors the tests expect, shared by the modules: which error an
//! [`Error`] is, told by its kind, its fault and its accessors, never by its message.
#![allow(dead_code)]

use ndnpy::{Error, ErrorKind, Fault};

/// Whether `err` is a plain dtype mismatch: the file's dtype ([`Error::dtype`]) cannot be read
/// as the requested element type. Not a record field's mismatch (which names the field), nor
/// a record type's missing fields (which gives no dtype).
pub fn is_dtype_mismatch(err: &Error) -> bool {
    err.kind() == ErrorKind::DType && err.dtype().is_some() && err.field().is_none()
}

/// Whether `err` is a view refused because the data is not in this machine's byte order:
/// [`ErrorKind::CannotView`], [`Fault::ByteOrder`], with the file's dtype.
pub fn is_byte_order(err: &Error) -> bool {
    err.kind() == ErrorKind::CannotView
        && err.fault() == Some(Fault::ByteOrder)
        && err.dtype().is_some()
}

/// The fault of an archive member an [`ErrorKind::Archive`] error reports, with the
/// member named by [`Error::member`]: `"corrupt"` (not a valid deflate stream),
/// `"checksum"` (fails its CRC-32 check), `"truncated"` (fewer bytes than its entry declares),
/// `"overrun"` (more bytes than its entry declares) or `"unsupported"` (a ZIP feature ndnpy
/// does not read). `None` for any other error.
pub fn member_fault(err: &Error) -> Option<&'static str> {
    if err.kind() != ErrorKind::Archive {
        return None;
    }
    err.member()?;
    Some(match err.fault()? {
        Fault::MemberCorrupt => "corrupt",
        Fault::Checksum => "checksum",
        Fault::MemberTruncated => "truncated",
        Fault::MemberOverrun => "overrun",
        Fault::UnsupportedMember => "unsupported",
        _ => return None,
    })
}

/// Whether `err` is a malformed ZIP structure: [`ErrorKind::Archive`],
/// [`Fault::ArchiveStructure`], with the offset of the structure at fault.
pub fn is_zip_structure(err: &Error) -> bool {
    err.kind() == ErrorKind::Archive
        && err.fault() == Some(Fault::ArchiveStructure)
        && err.offset().is_some()
}

/// Whether `err` says the input is no ZIP archive (no end of central directory record):
/// [`ErrorKind::Archive`], [`Fault::NotAnArchive`], no member named. (`npz.rs` checks the
/// message, which gives the input's length and first bytes.)
pub fn is_not_zip(err: &Error) -> bool {
    err.kind() == ErrorKind::Archive
        && err.fault() == Some(Fault::NotAnArchive)
        && err.member().is_none()
}
