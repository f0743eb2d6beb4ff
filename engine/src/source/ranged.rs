//! [`RangedFile`]: a source read by ranged requests (an object in a store), as a file.

use super::{Merge, ReadAt};
use std::any::Any;
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};

/// The first read-ahead window after a seek, in bytes: a local header, a `.npy` header, a
/// small member.
const FIRST_WINDOW: usize = 64 << 10;

/// Bytes fetched by range: what a [`RangedFile`] reads. The `remote` module's pinned object
/// is the one implementation.
pub trait Ranged: fmt::Debug + Send + Sync + 'static {
    /// The size in bytes.
    fn size(&self) -> u64;

    /// Fills `buf` with the bytes at `offset` (all of them there: the caller checked),
    /// split in parts fetched concurrently.
    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Fills each buffer with the bytes at its offset, one request each, several at once.
    fn fetch_many(&self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()>;

    /// How a region read merges and batches its runs here.
    fn merge(&self) -> Merge;

    /// The largest read-ahead window a stream grows to.
    fn max_window(&self) -> usize;

    /// This source, to be seen as the type it is by the module that made it.
    fn as_any(&self) -> &dyn Any;
}

/// Every reader of this crate sees this type for what it is, by value or behind `&mut`, and
/// reads regions and stored `.npz` members of it by concurrent ranged requests.
//
// In the crate: a source read by ranged requests (`Ranged`) as a file, a `Read` + `Seek`
// that reads ahead in windows held in memory; `remote` opens it and names it `RemoteFile`.
#[derive(Debug)]
pub struct RangedFile {
    source: Box<dyn Ranged>,
    pos: u64,
    /// Bytes `held_at..held_at + held.len()` of the source.
    held: Vec<u8>,
    held_at: u64,
    /// Where the last read ended: a read from there goes on with the stream.
    last_end: u64,
    /// The next read-ahead window.
    window: usize,
}

impl RangedFile {
    /// `source` as a file at its start, holding `first`, its first bytes.
    #[doc(hidden)]
    pub fn new(source: Box<dyn Ranged>, first: Vec<u8>) -> RangedFile {
        RangedFile {
            source,
            pos: 0,
            held: first,
            held_at: 0,
            last_end: 0,
            window: FIRST_WINDOW,
        }
    }

    /// The source.
    #[doc(hidden)]
    pub fn source(&self) -> &dyn Ranged {
        &*self.source
    }

    /// The source as a positioned source whose offsets count from `base`.
    #[doc(hidden)]
    pub fn at(&self, base: u64) -> RangedAt<'_> {
        RangedAt {
            source: &*self.source,
            base,
        }
    }
}

impl Read for RangedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.source.size();
        if buf.is_empty() || self.pos >= size {
            return Ok(0);
        }
        let held_end = self.held_at + self.held.len() as u64;
        if (self.held_at..held_end).contains(&self.pos) {
            let from = (self.pos - self.held_at) as usize;
            let n = buf.len().min(self.held.len() - from);
            buf[..n].copy_from_slice(&self.held[from..from + n]);
            self.pos += n as u64;
            self.last_end = self.pos;
            return Ok(n);
        }
        // A read that goes on where the last one ended doubles the window; a jump resets it.
        let max = self.source.max_window().max(FIRST_WINDOW);
        self.window = if self.pos == self.last_end && self.pos > 0 {
            self.window.saturating_mul(2).min(max)
        } else {
            FIRST_WINDOW
        };
        let left = size - self.pos;
        let want = (buf.len() as u64).min(left) as usize;
        if want >= self.window {
            self.source.fetch(self.pos, &mut buf[..want])?;
            self.pos += want as u64;
            self.last_end = self.pos;
            return Ok(want);
        }
        // At most `window` bytes, which fits in memory: the source's largest window, or less.
        let len = (self.window as u64).min(left) as usize;
        // Only the buffer's growth is zeroed: every byte it holds is fetched below.
        self.held
            .try_reserve_exact(len.saturating_sub(self.held.len()))
            .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        self.held.resize(len, 0);
        self.held_at = self.pos;
        if let Err(e) = self.source.fetch(self.pos, &mut self.held) {
            self.held.clear();
            return Err(e);
        }
        self.read(buf)
    }
}

impl Seek for RangedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(n) => (n, 0),
            SeekFrom::End(d) => (self.source.size(), d),
            SeekFrom::Current(d) => (self.pos, d),
        };
        self.pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start")
        })?;
        Ok(self.pos)
    }
}

/// A ranged source as a positioned source, offsets counted from `base`.
pub struct RangedAt<'s> {
    source: &'s dyn Ranged,
    base: u64,
}

impl RangedAt<'_> {
    /// The source's bytes at `offset` from the base, as long as `len`.
    fn start(&self, offset: u64, len: usize) -> io::Result<u64> {
        let start = self.base.checked_add(offset);
        let end = start.and_then(|s| s.checked_add(len as u64));
        match (start, end) {
            (Some(start), Some(end)) if end <= self.source.size() => Ok(start),
            _ => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

impl ReadAt for RangedAt<'_> {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.source.size().saturating_sub(self.base))
    }

    fn merge(&self) -> Merge {
        self.source.merge()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = self.start(offset, buf.len())?;
        self.source.fetch(start, buf)
    }

    /// One request per buffer, several at once.
    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        let mut within = Vec::with_capacity(reads.len());
        for (offset, buf) in reads.iter_mut() {
            within.push((self.start(*offset, buf.len())?, &mut **buf));
        }
        self.source.fetch_many(&mut within)
    }
}

/// An object in a store as a source: concurrent ranged requests, its runs merged and batched
/// as its store prefers.
impl ReadAt for RangedFile {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.source.size())
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.at(0).read_at(offset, buf)
    }

    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        self.at(0).read_many(reads)
    }

    fn merge(&self) -> Merge {
        self.source.merge()
    }

    /// Its own stream: the bytes its open fetched first, then windows that grow as a read
    /// goes on.
    fn read_ahead(&mut self, pos: u64, buf: &mut [u8]) -> Option<io::Result<usize>> {
        self.pos = pos;
        Some(Read::read(self, buf))
    }
}
