//! Checks of the errors the tests expect, shared by the modules: which error an
//! [`Error`] is, told by its kind, its accessors and, where they do not tell, its message.
#![allow(dead_code)]

use ndnpy::{Error, ErrorKind};

/// Whether `err` is a plain dtype mismatch: the file's dtype ([`Error::dtype`]) cannot be read
/// as the requested element type. Not a record field's mismatch (which names the field), nor
/// a record type's missing fields (which gives no dtype).
pub fn is_dtype_mismatch(err: &Error) -> bool {
    err.kind() == ErrorKind::DType && err.dtype().is_some() && err.field().is_none()
}

/// Whether `err` is a view refused because the data is not in this machine's byte order:
/// [`ErrorKind::CannotView`], with the file's dtype, and the message that says so.
pub fn is_byte_order(err: &Error) -> bool {
    err.kind() == ErrorKind::CannotView
        && err.dtype().is_some()
        && err
            .to_string()
            .contains("it is not in this machine's byte order")
}

/// The fault of an archive member an [`ErrorKind::Archive`] error reports, with the
/// member named by [`Error::member`]: `"corrupt"` (not a valid deflate stream),
/// `"checksum"` (fails its CRC-32 check), `"truncated"` (fewer bytes than its entry declares),
/// `"overrun"` (more bytes than its entry declares) or `"unsupported"` (a ZIP feature ndnpy
/// does not read), as its message says. `None` for any other error.
pub fn member_fault(err: &Error) -> Option<&'static str> {
    if err.kind() != ErrorKind::Archive {
        return None;
    }
    let text = err.to_string();
    let rest = text.strip_prefix(&format!("archive member {:?} ", err.member()?))?;
    [
        ("is corrupt: ", "corrupt"),
        ("fails its CRC-32 check: ", "checksum"),
        ("holds ", "truncated"),
        ("inflates to more than the ", "overrun"),
        ("uses ", "unsupported"),
    ]
    .into_iter()
    .find(|(start, _)| rest.starts_with(start))
    .map(|(_, fault)| fault)
}

/// Whether `err` is a malformed ZIP structure: [`ErrorKind::Archive`], with the offset
/// of the structure at fault, which the message gives (after the member being read, if any).
pub fn is_zip_structure(err: &Error) -> bool {
    let (Some(offset), ErrorKind::Archive) = (err.offset(), err.kind()) else {
        return false;
    };
    let text = err.to_string();
    let text = match err.member() {
        Some(member) => text.strip_prefix(&format!("archive member {member:?}: ")),
        None => Some(text.as_str()),
    };
    text.is_some_and(|t| t.starts_with(&format!("malformed zip archive at byte {offset}: ")))
}

/// Whether `err` says the input is no ZIP archive (no end of central directory record):
/// [`ErrorKind::Archive`], with a message that gives the input's length `len` and its
/// first bytes `found`.
pub fn is_not_zip(err: &Error, len: u64, found: &[u8]) -> bool {
    let text = if found.starts_with(b"PK\x03\x04") {
        format!(
            "no end of central directory record in the last bytes of this {len}-byte .npz (zip) \
             archive: it may be truncated (it starts with a zip member, b\"{}\")",
            found.escape_ascii()
        )
    } else {
        format!(
            "not an .npz (zip) archive: no end of central directory record in its {len} bytes \
             (it starts with b\"{}\"; a truncated archive looks like this too)",
            found.escape_ascii()
        )
    };
    err.kind() == ErrorKind::Archive && err.member().is_none() && err.to_string() == text
}
