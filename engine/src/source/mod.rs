//! Sources: bytes at an offset, whatever holds them.
//!
//! Every read that is not a stream (a region of an `.npy` or of a stored `.npz` member, rows,
//! elements) asks its source one thing: the bytes at an offset ([`ReadAt`]), with how its
//! reads are best merged and batched ([`Merge`]). The sources are bytes in memory (a map, a
//! `Cursor`), a file read by positioned reads ([`FileAt`]), any `Read + Seek` by seeking
//! ([`Seeking`]), and an object in a store by ranged requests ([`RangedFile`], which the
//! `remote` module opens). A caller's reader becomes one of these in one place, the door
//! ([`door`]): the only code that looks at what type a caller's reader is. A stored `.npz`
//! member's whole read is a `span` of the caller's reader: bytes already in memory, a file's
//! range, or the reader after a seek, chosen with the door's help; a file's range and an
//! object in a store read a large part together with its CRC-32.
//!
//! Which caller's reader takes which path (each type by value or `&mut`; `&File` too):
//!
//! | the caller's reader | whole reads (`read_npy`, `DynArray::read_npy`) | rows, elements, regions (`NpyReader`, `NpzMember::read_slice`) | a stored `.npz` member (`NpzReader`) |
//! |---|---|---|---|
//! | `File`, `BufReader<File>` | header through the reader; the length taken after it; the data by positioned reads, a large read split over `ReadOptions::threads` (2 by default; Unix) | positioned reads, nearby runs merged, many runs over two threads (Unix) | positioned reads; a large member read and hashed in 256 KiB steps over `threads` (Unix) |
//! | `&[u8]`, `Cursor<&[u8]>`, `Cursor<Vec<u8>>` | the bytes copied, a large copy split over `threads` (Unix) | `Cursor`s: the runs copied from the bytes | through a 64 KiB buffer |
//! | `RemoteFile` | a stream; a large read fetched in concurrent parts | concurrent ranged GETs, runs within `region_gap` merged | a large member fetched whole by concurrent GETs, then hashed |
//! | anything else | a stream | a seek and a read per merged window | through a 64 KiB buffer, hashed as it streams |
//!
//! Elsewhere than Unix a `File`'s whole read is one plain read of a known length, and its
//! regions and members take the last row's paths. Writers: a `File` or `BufWriter<File>`
//! gets each large write's extent reserved first ([`door::writer`]); anything else is
//! written to as it is.

use std::io::{self, Read};

pub mod door;
#[cfg(unix)]
pub mod pio;
pub mod ranged;
pub mod region;
#[cfg(feature = "npz")]
pub mod span;
pub mod whole;

pub use door::{positioned, Positioned};
pub use ranged::Ranged;
pub use ranged::RangedFile;

/// Bytes at an offset: the one thing a positioned read needs of its source. Offsets count
/// from where the source starts (for a region read, the first byte of the array data).
pub trait ReadAt {
    /// Fills `buf` with the bytes at `offset`.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// The source's bytes, if it is bytes in memory (a map): their runs are then copied
    /// straight, with no call per run.
    fn memory(&self) -> Option<&[u8]> {
        None
    }

    /// Fills each buffer with the bytes at its offset; a source that can read several ranges
    /// at once (a remote object) does so.
    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        for (offset, buf) in reads.iter_mut() {
            self.read_at(*offset, buf)?;
        }
        Ok(())
    }
}

/// How a source wants its runs merged and batched.
#[derive(Debug, Clone, Copy)]
pub struct Merge {
    /// Runs at most this many bytes apart are read as one.
    #[doc(hidden)]
    pub gap: u64,
    /// The largest merged window; runs this long or longer are read on their own, straight
    /// into the destination.
    #[doc(hidden)]
    pub block: usize,
    /// How many windows are handed to [`ReadAt::read_many`] at once.
    #[doc(hidden)]
    pub batch: usize,
    /// How many bytes of windows one batch gathers at most (it ends at the window that
    /// passes this, so a batch holds less than `batch_bytes + block` bytes).
    #[doc(hidden)]
    pub batch_bytes: usize,
    /// A run with no neighbour within `gap` is read straight into the destination when it
    /// has room, rather than batched with the next runs (a local source: it saves a copy;
    /// a remote one batches, since concurrent GETs beat one alone).
    #[doc(hidden)]
    pub direct: bool,
}

impl Merge {
    /// Bytes in memory (a map): every run copied straight into the destination, since a
    /// read costs no call there (see `gather`).
    #[doc(hidden)]
    pub const MEMORY: Merge = Merge {
        gap: 0,
        block: 0,
        batch: 1,
        batch_bytes: 0,
        direct: true,
    };

    /// Local sources (a file, bytes in memory): runs up to a page apart merged, windows of
    /// up to 1 MiB, read in batches of about 64 KiB of windows (one call to
    /// [`ReadAt::read_many`] each, into a scratch buffer that stays in the core's cache); a
    /// run with no neighbour goes straight into the destination.
    #[doc(hidden)]
    pub const LOCAL: Merge = Merge {
        gap: 4096,
        block: 1 << 20,
        batch: 4096,
        batch_bytes: 64 << 10,
        direct: true,
    };
}

/// Bytes in memory as a source: the array data itself.
impl ReadAt for &[u8] {
    fn memory(&self) -> Option<&[u8]> {
        Some(self)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|o| self.get(o..o.checked_add(buf.len())?))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// A `Read + Seek` as a source: the data starts at `start`.
pub struct Seeking<'r, R> {
    #[doc(hidden)]
    pub inner: &'r mut R,
    #[doc(hidden)]
    pub start: u64,
}

impl<R: Read + io::Seek> ReadAt for Seeking<'_, R> {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let pos = self
            .start
            .checked_add(offset)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        self.inner.seek(io::SeekFrom::Start(pos))?;
        self.inner.read_exact(buf)
    }
}

/// A file as a source, read by positioned reads (one system call a window, the file's
/// position untouched): the data starts at `start`.
#[cfg(unix)]
#[derive(Clone, Copy)]
pub struct FileAt<'f> {
    #[doc(hidden)]
    pub file: &'f std::fs::File,
    #[doc(hidden)]
    pub start: u64,
}

#[cfg(unix)]
impl ReadAt for FileAt<'_> {
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let pos = self
            .start
            .checked_add(offset)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        read_exact_at(self.file, buf, pos)
    }
}

/// Fills `buf` from `file` at `offset`: a positioned read on Unix (the file's position
/// untouched, so several threads may read one file), a seek and a read elsewhere.
#[cfg_attr(not(any(unix, feature = "safetensors")), allow(dead_code))]
pub fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        let mut f = file;
        io::Seek::seek(&mut f, io::SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}
