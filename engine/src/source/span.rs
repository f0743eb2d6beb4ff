//! A span of a caller's reader (an `.npz` member's compressed bytes) as a buffered reader,
//! and the hashed read a stored member's CRC-32 asks for ([`HashingRead`]).
//!
//! The door decides once what the span is: bytes already in memory, a file's range read by
//! positioned reads (a large read split over threads, each part hashed as it lands), or the
//! reader itself after a seek, whose large reads an object in a store fetches whole by
//! concurrent requests.

#[cfg(unix)]
use super::pio::FileSpan;
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

/// `len` bytes of a caller's reader: already in memory (small members are read with their
/// local header), streamed from the reader, or (a file, on Unix) read from the file by
/// positioned reads, which lets large reads be split over threads. A stream from an object
/// in a store (`ranged`) takes a large read whole, fetched by concurrent requests straight
/// into place.
pub enum Span<'a, R> {
    Memory(&'a [u8]),
    Stream {
        stream: BufReader<io::Take<&'a mut R>>,
        ranged: bool,
    },
    #[cfg(unix)]
    File(BufReader<FileSpan<'a>>),
}

impl<'a, R: Read + Seek> Span<'a, R> {
    /// The `len` bytes at `start` in `reader`, buffered in steps of up to 64 KiB; a file's
    /// large reads use up to `threads` threads.
    #[doc(hidden)]
    pub fn of(reader: &'a mut R, start: u64, len: u64, threads: usize) -> io::Result<Self> {
        let cap = len.min(64 << 10) as usize;
        let ranged = super::door::is_ranged::<R>();
        #[cfg(unix)]
        let reader = match super::door::file_behind(reader) {
            Ok(file) => {
                let span = FileSpan::new(file, start, len, threads);
                return Ok(Span::File(BufReader::with_capacity(cap, span)));
            }
            Err(reader) => reader,
        };
        #[cfg(not(unix))]
        let _ = threads;
        reader.seek(SeekFrom::Start(start))?;
        let stream = BufReader::with_capacity(cap, (reader as &mut R).take(len));
        Ok(Span::Stream { stream, ranged })
    }
}

impl<R: Read> Read for Span<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Span::Memory(m) => m.read(buf),
            Span::Stream { stream, .. } => stream.read(buf),
            #[cfg(unix)]
            Span::File(f) => f.read(buf),
        }
    }
}

impl<R: Read> BufRead for Span<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Span::Memory(m) => Ok(m),
            Span::Stream { stream, .. } => stream.fill_buf(),
            #[cfg(unix)]
            Span::File(f) => f.fill_buf(),
        }
    }

    fn consume(&mut self, amt: usize) {
        match self {
            Span::Memory(m) => m.consume(amt),
            Span::Stream { stream, .. } => stream.consume(amt),
            #[cfg(unix)]
            Span::File(f) => f.consume(amt),
        }
    }
}

impl<R: Read> HashingRead for Span<'_, R> {
    /// A file's range is read by `file_read_hashing`; an object in a store whole into
    /// `out`, its parts fetched concurrently straight there, then hashed.
    fn read_hashing(&mut self, out: &mut [u8]) -> Option<io::Result<(usize, crc32fast::Hasher)>> {
        if let Span::Stream { stream, ranged } = self {
            if !*ranged || out.len() < PARALLEL_CRC_MIN {
                return None;
            }
            return Some(crate::platform::ioutil::read_full(stream, out).map(|n| {
                let mut h = crc32fast::Hasher::new();
                h.update(&out[..n]);
                (n, h)
            }));
        }
        #[cfg(unix)]
        if let Span::File(f) = self {
            return file_read_hashing(f, out);
        }
        None
    }
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
    let mut all = crc32fast::Hasher::new();
    let buffered = f.buffer();
    let first = buffered.len().min(out.len());
    out[..first].copy_from_slice(&buffered[..first]);
    all.update(&out[..first]);
    f.consume(first);
    Some(
        f.get_mut()
            .read_hashing(&mut out[first..])
            .map(|(n, rest)| {
                all.combine(&rest);
                (first + n, all)
            }),
    )
}
