//! A span of a caller's reader (an `.npz` member's compressed bytes) as a buffered reader,
//! and the hashed read a stored member's CRC-32 asks for ([`HashingRead`]).
//!
//! The door decides once what the span is: bytes already in memory, a file's range read by
//! positioned reads (a large read split over threads, each part hashed as it lands), a
//! source's range read by its own positioned reads (a large read with its CRC-32, as the
//! source computes it), or the reader itself after a seek, whose large reads an object in a
//! store fetches whole by concurrent requests.

#[cfg(unix)]
use super::pio::FileSpan;
use super::{Positioned, ReadAt};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// The smallest read whose CRC-32 runs on a second thread, or that a file splits over
/// threads (unless the caller allows one thread, or the machine has one core).
pub const PARALLEL_CRC_MIN: usize = 16 << 20;

/// A buffered reader that may read a large part of what it holds together with its CRC-32
/// faster than a read followed by a hash.
pub trait HashingRead: BufRead {
    /// Reads `out` whole (fewer bytes only where the source ends), hashing the bytes as they
    /// land (a file on several threads, a remote object in concurrent parts), and returns how
    /// many bytes were read with their CRC-32, if this source can for a read of this size;
    /// `None` (the default) to have it read the plain way.
    fn read_hashing(&mut self, out: &mut [u8]) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
        let _ = out;
        None
    }
}

impl HashingRead for &[u8] {}

/// Any buffered reader (the remote archive's ranges, say), read the plain way.
impl<R: Read> HashingRead for BufReader<R> {}

/// `len` bytes of a caller's reader or source: already in memory (small members are read
/// with their local header, and bytes in memory are all there), read from a file by
/// positioned reads on Unix (large reads split over threads), read by a source's own reads
/// ([`ReadAt`]: an object in a store by its read-ahead, a large read with its CRC-32 by
/// [`ReadAt::read_at_crc32`], which a store fetches by concurrent requests straight into
/// place), or the reader itself after a seek.
pub enum Span<'a> {
    Memory(&'a [u8]),
    Stream(BufReader<io::Take<&'a mut dyn Read>>),
    #[cfg(unix)]
    File(BufReader<FileSpan<'a>>),
    Source(BufReader<SourceSpan<'a>>),
}

impl<'a> Span<'a> {
    /// The `len` bytes at `start` in `reader`, seen through its door, buffered in steps of up
    /// to 64 KiB; a file's large reads use up to `threads` threads.
    #[doc(hidden)]
    pub fn of<R: Read + Seek>(
        reader: Positioned<'a, R>,
        start: u64,
        len: u64,
        threads: usize,
    ) -> io::Result<Self> {
        let cap = len.min(64 << 10) as usize;
        #[cfg(not(unix))]
        let _ = threads;
        let reader: &'a mut dyn Read = match reader {
            #[cfg(unix)]
            Positioned::File(file) => {
                let span = FileSpan::new(file, start, len, threads);
                return Ok(Span::File(BufReader::with_capacity(cap, span)));
            }
            Positioned::Bytes(all) => return Ok(Span::Memory(within(all, start, len))),
            Positioned::Source(source) => return Span::of_source(source, start, len, threads),
            Positioned::Ranged(file) => return Span::of_source(file, start, len, threads),
            Positioned::Other(reader) => {
                reader.seek(SeekFrom::Start(start))?;
                reader
            }
        };
        let stream = BufReader::with_capacity(cap, reader.take(len));
        Ok(Span::Stream(stream))
    }

    /// [`Span::of`] a source: its file's range or its bytes in memory where it has them, else
    /// its own positioned reads.
    fn of_source(
        source: &'a mut dyn ReadAt,
        start: u64,
        len: u64,
        threads: usize,
    ) -> io::Result<Self> {
        let cap = len.min(64 << 10) as usize;
        #[cfg(not(unix))]
        let _ = threads;
        if (cfg!(unix) && source.file().is_some()) || source.memory().is_some() {
            let source: &'a dyn ReadAt = source;
            #[cfg(unix)]
            if let Some((file, base)) = source.file() {
                let start = base
                    .checked_add(start)
                    .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
                let span = FileSpan::new(file, start, len, threads);
                return Ok(Span::File(BufReader::with_capacity(cap, span)));
            }
            return Ok(Span::Memory(within(
                source.memory().unwrap_or(&[]),
                start,
                len,
            )));
        }
        // A source that says it is shorter ends the span there: the member reader then finds
        // the member truncated, as it would a stream's end.
        let end = start.saturating_add(len).min(source.size()?);
        let span = SourceSpan {
            source,
            pos: start.min(end),
            end,
        };
        Ok(Span::Source(BufReader::with_capacity(cap, span)))
    }
}

/// `len` bytes of `all` from `start` on, fewer where `all` ends first.
fn within(all: &[u8], start: u64, len: u64) -> &[u8] {
    let rest = usize::try_from(start)
        .ok()
        .and_then(|s| all.get(s..))
        .unwrap_or(&[]);
    &rest[..usize::try_from(len).map_or(rest.len(), |l| l.min(rest.len()))]
}

/// Bytes `pos..end` of a source, read by its positioned reads (or its own read-ahead: an
/// object in a store).
pub struct SourceSpan<'a> {
    source: &'a mut dyn ReadAt,
    pos: u64,
    end: u64,
}

impl Read for SourceSpan<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.end - self.pos) as usize;
        if n == 0 {
            return Ok(0);
        }
        let n = match self.source.read_ahead(self.pos, &mut buf[..n]) {
            Some(read) => read?.min(n),
            None => {
                self.source.read_at(self.pos, &mut buf[..n])?;
                n
            }
        };
        self.pos += n as u64;
        Ok(n)
    }
}

impl Read for Span<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Span::Memory(m) => m.read(buf),
            Span::Source(s) => s.read(buf),
            Span::Stream(stream) => stream.read(buf),
            #[cfg(unix)]
            Span::File(f) => f.read(buf),
        }
    }
}

impl BufRead for Span<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Span::Memory(m) => Ok(m),
            Span::Source(s) => s.fill_buf(),
            Span::Stream(stream) => stream.fill_buf(),
            #[cfg(unix)]
            Span::File(f) => f.fill_buf(),
        }
    }

    fn consume(&mut self, amt: usize) {
        match self {
            Span::Memory(m) => m.consume(amt),
            Span::Source(s) => s.consume(amt),
            Span::Stream(stream) => stream.consume(amt),
            #[cfg(unix)]
            Span::File(f) => f.consume(amt),
        }
    }
}

impl HashingRead for Span<'_> {
    /// A file's range is read by `file_read_hashing`; a source's by its
    /// [`ReadAt::read_at_crc32`] (an object in a store: whole into `out`, its parts fetched
    /// concurrently straight there, then hashed).
    fn read_hashing(&mut self, out: &mut [u8]) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
        #[cfg(unix)]
        if let Span::File(f) = self {
            return file_read_hashing(f, out);
        }
        if let Span::Source(s) = self {
            return source_read_hashing(s, out);
        }
        None
    }
}

/// [`HashingRead::read_hashing`] of a source's range: what the buffer holds, then the rest by
/// the source's [`ReadAt::read_at_crc32`].
fn source_read_hashing(
    s: &mut BufReader<SourceSpan<'_>>,
    out: &mut [u8],
) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
    if out.len() < PARALLEL_CRC_MIN {
        return None;
    }
    let (first, mut all) = take_buffered(s, out);
    let span = s.get_mut();
    let rest = ((out.len() - first) as u64).min(span.end - span.pos) as usize;
    let part = &mut out[first..first + rest];
    Some(span.source.read_at_crc32(span.pos, part).map(|crc| {
        span.pos += rest as u64;
        all.combine(&crc32fast::Hasher::new_with_initial_len(crc, rest as u64));
        (first + rest, all)
    }))
}

/// [`HashingRead::read_hashing`] of a file's range: what the buffer holds, then the rest
/// read and hashed on several threads ([`FileSpan::read_hashing`]).
#[cfg(unix)]
fn file_read_hashing(
    f: &mut BufReader<FileSpan<'_>>,
    out: &mut [u8],
) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
    if f.get_ref().parts() < 2
        || out.len() < PARALLEL_CRC_MIN
        || crate::platform::prefault::cores() < 2
    {
        return None;
    }
    let (first, mut all) = take_buffered(f, out);
    Some(
        f.get_mut()
            .read_hashing(&mut out[first..])
            .map(|(n, rest)| {
                all.combine(&rest);
                (first + n, all)
            }),
    )
}

/// Moves what `b` holds buffered (as much as `out` takes) to the start of `out`: how many
/// bytes, and their hash.
fn take_buffered<R: Read>(b: &mut BufReader<R>, out: &mut [u8]) -> (usize, crc32fast::Hasher) {
    let mut hash = crc32fast::Hasher::new();
    let buffered = b.buffer();
    let first = buffered.len().min(out.len());
    out[..first].copy_from_slice(&buffered[..first]);
    hash.update(&out[..first]);
    b.consume(first);
    (first, hash)
}
