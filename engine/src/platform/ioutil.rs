//! Generic read loops that every reader of this crate uses (`.npy` headers and data, ZIP
//! records, member data): read until a buffer is full, or fail naming the part of the file
//! that was cut short.

use crate::base::error::{Error, FormatError};
use std::io::{self, Read};

/// Reads until `buf` is full or the input ends; returns how many bytes were read.
pub fn read_full<R: Read + ?Sized>(reader: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads exactly `buf.len()` bytes or reports which part of the file was cut short.
pub fn read_part<R: Read + ?Sized>(
    reader: &mut R,
    buf: &mut [u8],
    part: &'static str,
) -> Result<(), Error> {
    let n = read_full(reader, buf)?;
    if n < buf.len() {
        return Err(FormatError::Truncated {
            part,
            expected: buf.len() as u64,
            found: n as u64,
        }
        .into());
    }
    Ok(())
}
