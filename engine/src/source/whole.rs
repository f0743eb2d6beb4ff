//! A whole read: the header through the caller's reader, then the data from the file or the
//! bytes behind it when the door recognises one (so the data's length is known before it is
//! read, and a large read splits over threads), else through the reader itself.

use super::door::{self, ConcreteReader};
use crate::base::error::Error;
use crate::format::header::{Header, HeaderInfo, ReadConfig};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

/// Reads one array from `reader` (its header, then `body` reads the data): through the file
/// or the bytes behind the standard reader types ([`door::reader`]), so that the data's
/// length is known before it is read, and read on as many threads as `opts` allows; through
/// `reader` itself otherwise. `body` gets the header and how many bytes the input still holds,
/// when known. The reader is left just past what `body` read.
pub fn read_through<R: Read, T>(
    reader: &mut R,
    opts: &ReadConfig,
    body: impl FnOnce(&mut dyn Read, HeaderInfo, Option<u64>) -> Result<T, Error>,
) -> Result<T, Error> {
    match door::reader(reader) {
        ConcreteReader::File(mut file) => {
            let info = Header::read(&mut file, opts)?;
            let Some(len) = regular_len(file)? else {
                return body(&mut file, info, None);
            };
            let pos = file.stream_position()?;
            let (value, end) = read_file_data(file, pos, len, info, opts, body)?;
            file.seek(SeekFrom::Start(end))?;
            Ok(value)
        }
        ConcreteReader::BufFile(b) => {
            let info = Header::read(b, opts)?;
            let Some(len) = regular_len(b.get_ref())? else {
                return body(b, info, None);
            };
            // The position of the data: the file's, less what the buffer holds.
            let pos = b.stream_position()?;
            let (value, end) = read_file_data(b.get_ref(), pos, len, info, opts, body)?;
            // This empties the buffer, so reads go on at `end`.
            b.seek(SeekFrom::Start(end))?;
            Ok(value)
        }
        ConcreteReader::Bytes(mut rest) => {
            let len = rest.len();
            let result = read_bytes_rest(&mut rest, opts, body);
            let used = len - rest.len();
            door::advance(reader, used);
            result
        }
        ConcreteReader::Other(r) => {
            let info = Header::read(r, opts)?;
            body(r, info, None)
        }
    }
}

/// The length of `file` if it is a regular file; `None` for pipes and devices, whose length
/// of 0 is no length at all (they are read as streams). Taken after the header is read, so a
/// file an appender grows meanwhile holds at least the data its header describes.
fn regular_len(file: &File) -> Result<Option<u64>, Error> {
    let meta = file.metadata()?;
    Ok(meta.is_file().then_some(meta.len()))
}

/// Reads the data of a regular file of length `len` whose header was read and whose data
/// starts at `pos`; returns the value and the offset just past what was read.
fn read_file_data<T>(
    file: &File,
    pos: u64,
    len: u64,
    info: HeaderInfo,
    opts: &ReadConfig,
    body: impl FnOnce(&mut dyn Read, HeaderInfo, Option<u64>) -> Result<T, Error>,
) -> Result<(T, u64), Error> {
    let available = Some(len.saturating_sub(pos));
    #[cfg(unix)]
    {
        let mut split = crate::source::pio::SplitFile::new(file, pos, opts.threads);
        let value = body(&mut split, info, available)?;
        Ok((value, split.position()))
    }
    #[cfg(not(unix))]
    {
        let _ = opts;
        let mut f = file;
        f.seek(SeekFrom::Start(pos))?;
        let value = body(&mut f, info, available)?;
        Ok((value, f.stream_position()?))
    }
}

/// Reads header and data from bytes in memory, advancing `bytes` past them.
fn read_bytes_rest<T>(
    bytes: &mut &[u8],
    opts: &ReadConfig,
    body: impl FnOnce(&mut dyn Read, HeaderInfo, Option<u64>) -> Result<T, Error>,
) -> Result<T, Error> {
    let info = Header::read(bytes, opts)?;
    let available = Some(bytes.len() as u64);
    #[cfg(unix)]
    {
        let mut split = crate::source::pio::SplitSlice::new(bytes, opts.threads);
        let value = body(&mut split, info, available)?;
        *bytes = &bytes[split.position()..];
        Ok(value)
    }
    #[cfg(not(unix))]
    body(bytes, info, available)
}
