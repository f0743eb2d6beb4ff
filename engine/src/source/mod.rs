//! Sources: bytes at an offset, whatever holds them.
//!
//! Every read that is not a stream (a region of an `.npy` or of a stored `.npz` member, rows,
//! elements) asks its source one thing: the bytes at an offset ([`ReadAt`], public as
//! `ndnpy::source`), with how its reads are best merged and batched ([`Merge`]). The sources
//! are bytes in memory (a map, a `Cursor`), a file read by positioned reads ([`FileAt`]), any
//! `Read + Seek` by seeking ([`Seeking`]), part of another source ([`Section`]), an object in
//! a store by ranged requests ([`RangedFile`], which the `remote` module opens), and a type of
//! a caller's own. `NpyReader` takes a [`ReadAt`] and reads it by its type
//! ([`SourceReader`]); ndarray-npy's generic doors (`read_npy<R: Read>`, `NpzReader<R: Read +
//! Seek>`) take any reader, which becomes one of these in one place, the door ([`door`]): the
//! only code that looks at what type a caller's reader is. A stored `.npz` member's whole read
//! is a `span` of the archive's reader as its door (the guess, or a `SourceReader`'s own) sees
//! it: bytes in memory, a file's range, a source's range, or the reader after a seek; a file's
//! range, a source's (by [`ReadAt::read_at_crc32`]) and an object in a store read a large part
//! together with its CRC-32.
//!
//! Which source takes which path (each type by value or `&mut`; `&File` too):
//!
//! | the source | whole reads (`read_npy`, `DynArray::read_npy`) | rows, elements, regions (`NpyReader`, `NpzMember::read_slice`) | a stored `.npz` member (`NpzReader`) |
//! |---|---|---|---|
//! | `File`, `BufReader<File>` | header through the reader; the length taken after it; the data by positioned reads, a large read split over `ReadOptions::threads` (2 by default; Unix) | positioned reads, nearby runs merged, many runs over two threads (Unix) | positioned reads; a large member read and hashed in 256 KiB steps over `threads` (Unix) |
//! | `&[u8]`, `Cursor<&[u8]>`, `Cursor<Vec<u8>>` (`Vec<u8>` too as a source) | the bytes copied, a large copy split over `threads` (Unix) | the runs copied from the bytes | copied from the bytes |
//! | `RemoteFile` | a stream; a large read fetched in concurrent parts | concurrent ranged GETs, runs within `region_gap` merged | a large member fetched whole by concurrent GETs, then hashed |
//! | a caller's `ReadAt` (`NpyReader`, `NpzReader::from_source`) | — | its `read_many` of merged windows (by default one `read_at` each) | through a 64 KiB buffer; a large read by its `read_at_crc32` |
//! | anything else (`Seeking` as a source) | a stream | a seek and a read per merged window | through a 64 KiB buffer, hashed as it streams |
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
pub mod reader;
pub mod region;
#[cfg(feature = "npz")]
pub mod span;
pub mod whole;

pub use door::{positioned, Door, Positioned};
pub use ranged::Ranged;
pub use ranged::RangedFile;
pub use reader::SourceReader;

/// Bytes at an offset: the one thing a positioned read (a region, rows, one element, a whole
/// array) needs of its source, as gimli's `ReadRef` is for object files.
///
/// Offsets count from the source's first byte. This crate implements it for bytes in memory
/// (`&[u8]`, `Vec<u8>`, a `Cursor` of them, and so a map as `&map[..]`), for a
/// [`File`](std::fs::File) and a `BufReader` of one (positioned reads, the file's position
/// untouched; on Unix a selection of many runs is read on two threads), for any `Read + Seek`
/// named explicitly as [`Seeking`], for part of another source ([`Section`]), and for an
/// object in a store ([`RangedFile`], concurrent ranged requests); and through `&mut` and
/// `Box`. A type of the caller's own implements [`size`](ReadAt::size) and
/// [`read_at`](ReadAt::read_at), and [`memory`](ReadAt::memory) or
/// [`read_many`](ReadAt::read_many) where it can do better than one read at a time.
/// `NpyReader` reads an `.npy` through it: the fast path is in the source's type, not guessed
/// from a reader's.
///
/// Every length a file states is checked against [`size`](ReadAt::size) before it is read,
/// and a read past the end is an error of the source ([`io::ErrorKind::UnexpectedEof`]), never
/// a short buffer.
///
/// # Examples
///
/// A source of the caller's own: a file's bytes after a prefix of `skip` bytes.
///
/// ```
/// use ndnpy::source::ReadAt;
/// use std::io;
///
/// struct After { bytes: Vec<u8>, skip: u64 }
///
/// impl ReadAt for After {
///     fn size(&mut self) -> io::Result<u64> {
///         Ok(self.bytes.len() as u64 - self.skip)
///     }
///     fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
///         let at = self.skip + offset;
///         let from = self.bytes.get(at as usize..).ok_or(io::ErrorKind::UnexpectedEof)?;
///         let from = from.get(..buf.len()).ok_or(io::ErrorKind::UnexpectedEof)?;
///         buf.copy_from_slice(from);
///         Ok(())
///     }
/// }
///
/// let mut s = After { bytes: b"junk\x93NUMPY".to_vec(), skip: 4 };
/// let mut magic = [0u8; 6];
/// s.read_at(0, &mut magic)?;
/// assert_eq!(&magic, b"\x93NUMPY");
/// assert_eq!(s.size()?, 6);
/// # Ok::<(), io::Error>(())
/// ```
pub trait ReadAt {
    /// The source's length in bytes.
    ///
    /// # Errors
    ///
    /// The source's own (a file's `metadata`, a seek).
    fn size(&mut self) -> io::Result<u64>;

    /// Fills `buf` with the bytes at `offset`.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::UnexpectedEof`] if the source ends before `buf` is full; the source's
    /// own errors.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// The source's bytes, if it is bytes in memory (a map): their runs are then copied
    /// straight, with no call per run. `None` by default.
    fn memory(&self) -> Option<&[u8]> {
        None
    }

    /// Fills each buffer with the bytes at its offset; a source that can read several ranges
    /// at once (a remote object) does so. By default one [`read_at`](ReadAt::read_at) each.
    ///
    /// # Errors
    ///
    /// As [`read_at`](ReadAt::read_at).
    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        for (offset, buf) in reads.iter_mut() {
            self.read_at(*offset, buf)?;
        }
        Ok(())
    }

    /// Fills `buf` with the bytes at `offset`, as [`read_at`](ReadAt::read_at) does, and
    /// returns their CRC-32 (IEEE, as ZIP and `zlib.crc32` compute it): what a stored `.npz`
    /// member's large reads call, its checksum due. By default a `read_at`, then a hash; a
    /// file reads and hashes a large `buf` in two parts at once (on Unix, with `npz`), and a
    /// source that can do better (a store that keeps checksums, a read spread over threads)
    /// overrides it.
    ///
    /// # Errors
    ///
    /// As [`read_at`](ReadAt::read_at).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::source::ReadAt;
    /// let mut data = [0u8; 9];
    /// let crc = (&b"xx123456789"[..]).read_at_crc32(2, &mut data)?;
    /// assert_eq!((&data, crc), (b"123456789", 0xCBF4_3926));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
        self.read_at(offset, buf)?;
        Ok(crc32fast::hash(buf))
    }

    /// How a region read merges and batches runs of this source: bytes in memory each run
    /// straight, anything else as a local file.
    #[doc(hidden)]
    fn merge(&self) -> Merge {
        if self.memory().is_some() {
            Merge::MEMORY
        } else {
            Merge::LOCAL
        }
    }

    /// The file that holds this source's bytes, and where in it they start, to be read on
    /// several threads: a `File`'s own (at 0), `None` for anything else.
    #[doc(hidden)]
    fn file(&self) -> Option<(&std::fs::File, u64)> {
        None
    }
    /// A stream's read of `buf` at `pos`, for a source with a read-ahead of its own (an
    /// object in a store, whose first request holds the header): `None` (the default) to be
    /// read by [`read_at`](ReadAt::read_at) through a window.
    #[doc(hidden)]
    fn read_ahead(&mut self, pos: u64, buf: &mut [u8]) -> Option<io::Result<usize>> {
        let _ = (pos, buf);
        None
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

/// `ReadAt` for bytes in memory: their runs copied straight from them.
macro_rules! in_memory {
    ($($(#[$doc:meta])* $ty:ty),*) => {$(
        $(#[$doc])*
        impl ReadAt for $ty {
            fn size(&mut self) -> io::Result<u64> {
                Ok(self.len() as u64)
            }

            fn memory(&self) -> Option<&[u8]> {
                Some(self)
            }

            fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
                copy_at(self, offset, buf)
            }
        }
    )*};
}

in_memory!(
    /// Bytes in memory as a source (a map's too, as `&map[..]`).
    &[u8],
    /// Bytes in memory as a source, owned.
    Vec<u8>
);

/// Fills `buf` from `bytes` at `offset`, or [`io::ErrorKind::UnexpectedEof`] if they end first.
fn copy_at(bytes: &[u8], offset: u64, buf: &mut [u8]) -> io::Result<()> {
    let src = usize::try_from(offset)
        .ok()
        .and_then(|o| bytes.get(o..o.checked_add(buf.len())?))
        .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
    buf.copy_from_slice(src);
    Ok(())
}

/// `ReadAt` for a file: positioned reads (the file's position untouched; a seek and a read
/// elsewhere than Unix), its length from its metadata.
macro_rules! a_file {
    ($($(#[$doc:meta])* $ty:ty),*) => {$(
        $(#[$doc])*
        impl ReadAt for $ty {
            fn size(&mut self) -> io::Result<u64> {
                Ok(self.metadata()?.len())
            }

            fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
                read_exact_at(self, buf, offset)
            }

            /// A large `buf` read and hashed in two parts at once (on Unix, with `npz`).
            fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
                file_read_at_crc32(self, offset, buf)
            }

            fn file(&self) -> Option<(&std::fs::File, u64)> {
                Some((self, 0))
            }
        }
    )*};
}

a_file!(
    /// A file as a source: positioned reads (the file's position untouched; a seek and a
    /// read elsewhere than Unix), its length from its metadata.
    std::fs::File,
    /// A shared file as a source, as [`File`](std::fs::File) is.
    &std::fs::File
);

/// [`ReadAt::read_at_crc32`] of a file: a large `buf` (on Unix, with the feature `npz`) read
/// and hashed in two parts on two threads (as many as a read's default `threads`), each part
/// in cache-sized steps; else a read, then a hash.
fn file_read_at_crc32(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
    #[cfg(all(unix, feature = "npz"))]
    if buf.len() >= span::PARALLEL_CRC_MIN && crate::platform::prefault::cores() >= 2 {
        let len = buf.len() as u64;
        let (n, hash) = pio::FileSpan::new(file, offset, len, 2).read_hashing(buf)?;
        if n < buf.len() {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        return Ok(hash.finalize());
    }
    read_exact_at(file, buf, offset)?;
    Ok(crc32fast::hash(buf))
}

/// `ReadAt` for a pointer to a source (`&mut S`, `Box<S>`): every method the source's own.
macro_rules! through_pointer {
    ($($(#[$doc:meta])* $ty:ty),*) => {$(
        $(#[$doc])*
        impl<S: ReadAt + ?Sized> ReadAt for $ty {
            fn size(&mut self) -> io::Result<u64> {
                (**self).size()
            }

            fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
                (**self).read_at(offset, buf)
            }

            fn memory(&self) -> Option<&[u8]> {
                (**self).memory()
            }

            fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
                (**self).read_many(reads)
            }

            fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
                (**self).read_at_crc32(offset, buf)
            }

            fn merge(&self) -> Merge {
                (**self).merge()
            }

            fn file(&self) -> Option<(&std::fs::File, u64)> {
                (**self).file()
            }

            fn read_ahead(&mut self, pos: u64, buf: &mut [u8]) -> Option<io::Result<usize>> {
                (**self).read_ahead(pos, buf)
            }
        }
    )*};
}

through_pointer!(
    /// A source borrowed: what it is, through `&mut`.
    &mut S,
    /// A boxed source (one chosen at run time: a file or an object in a store), as what it
    /// holds.
    Box<S>
);

/// A cursor's bytes in memory as a source: all of them, wherever its position is.
impl<T: AsRef<[u8]>> ReadAt for io::Cursor<T> {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.get_ref().as_ref().len() as u64)
    }

    fn memory(&self) -> Option<&[u8]> {
        Some(self.get_ref().as_ref())
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        copy_at(self.get_ref().as_ref(), offset, buf)
    }
}

/// A buffered source as the source it buffers (a `BufReader<File>` is its file): offsets count
/// from the source's start, and the buffer is passed by.
impl<S: ReadAt> ReadAt for io::BufReader<S> {
    fn size(&mut self) -> io::Result<u64> {
        self.get_mut().size()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.get_mut().read_at(offset, buf)
    }

    fn memory(&self) -> Option<&[u8]> {
        self.get_ref().memory()
    }

    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        self.get_mut().read_many(reads)
    }

    fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
        self.get_mut().read_at_crc32(offset, buf)
    }

    fn merge(&self) -> Merge {
        self.get_ref().merge()
    }

    fn file(&self) -> Option<(&std::fs::File, u64)> {
        self.get_ref().file()
    }

    fn read_ahead(&mut self, pos: u64, buf: &mut [u8]) -> Option<io::Result<usize>> {
        self.get_mut().read_ahead(pos, buf)
    }
}

/// Bytes `start..start + len` of another source, as a source of their own: an `.npy` inside a
/// larger file (a stored `.npz` member's bytes, a file with a prefix). Reads past its end
/// fail as reads past any source's end do.
///
/// # Examples
///
/// ```
/// use ndnpy::source::{ReadAt, Section};
/// let mut s = Section::new(b"prefix:data;trailer".to_vec(), 7, 4);
/// let mut data = [0u8; 4];
/// s.read_at(0, &mut data)?;
/// assert_eq!(&data, b"data");
/// assert_eq!(s.size()?, 4);
/// assert!(s.read_at(1, &mut data).is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Section<S> {
    source: S,
    start: u64,
    len: u64,
}

impl<S: ReadAt> Section<S> {
    /// The `len` bytes of `source` from `start` on (fewer where it ends first; `u64::MAX`
    /// for all the rest).
    ///
    /// ```
    /// // An `.npy` after a prefix of 5 bytes.
    /// let mut bytes = b"junk:".to_vec();
    /// bytes.extend(std::fs::read("testdata/example.npy")?);
    /// let npy = ndnpy::source::Section::new(&bytes[..], 5, u64::MAX);
    /// let a: ndarray::Array2<f64> = ndnpy::NpyReader::new(npy)?.read_array()?;
    /// assert_eq!(a[[0, 0]], -1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(source: S, start: u64, len: u64) -> Section<S> {
        Section { source, start, len }
    }

    /// The source back.
    ///
    /// ```
    /// let s = ndnpy::source::Section::new(vec![1u8, 2, 3], 1, 1);
    /// assert_eq!(s.into_inner(), [1, 2, 3]);
    /// ```
    pub fn into_inner(self) -> S {
        self.source
    }

    /// `offset` in the source, if `offset..offset + n` is within this section.
    fn at(&self, offset: u64, n: usize) -> io::Result<u64> {
        let end = offset.checked_add(n as u64);
        match end {
            Some(end) if end <= self.len => self
                .start
                .checked_add(offset)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof)),
            _ => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

impl<S: ReadAt> ReadAt for Section<S> {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.source.size()?.saturating_sub(self.start).min(self.len))
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let at = self.at(offset, buf.len())?;
        self.source.read_at(at, buf)
    }

    fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
        let at = self.at(offset, buf.len())?;
        self.source.read_at_crc32(at, buf)
    }

    fn memory(&self) -> Option<&[u8]> {
        let memory = self.source.memory()?;
        let start = usize::try_from(self.start).map_or(memory.len(), |s| s.min(memory.len()));
        let rest = &memory[start..];
        let len = usize::try_from(self.len).map_or(rest.len(), |l| l.min(rest.len()));
        Some(&rest[..len])
    }

    /// The reads moved in place to the source's offsets, handed on together, and moved back.
    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        for (offset, buf) in reads.iter() {
            self.at(*offset, buf.len())?;
        }
        for (offset, _) in reads.iter_mut() {
            *offset += self.start;
        }
        let done = self.source.read_many(reads);
        for (offset, _) in reads.iter_mut() {
            *offset -= self.start;
        }
        done
    }

    fn merge(&self) -> Merge {
        self.source.merge()
    }

    fn file(&self) -> Option<(&std::fs::File, u64)> {
        let (file, base) = self.source.file()?;
        Some((file, base.checked_add(self.start)?))
    }

    /// The source's own read-ahead, within this section.
    fn read_ahead(&mut self, pos: u64, buf: &mut [u8]) -> Option<io::Result<usize>> {
        let left = self.len.saturating_sub(pos);
        let n = (buf.len() as u64).min(left) as usize;
        let at = self.start.checked_add(pos)?;
        self.source.read_ahead(at, &mut buf[..n])
    }
}

/// Any `Read + Seek` as a source, named so: each read a seek and a read (its position is
/// then this source's, not the caller's). What a reader of no type this crate knows is read
/// by; a `BufReader` over it is no help here, and a `File` is faster as itself.
///
/// # Examples
///
/// ```
/// use ndnpy::source::{ReadAt, Seeking};
/// let mut s = Seeking::new(std::io::Cursor::new(b"abcdef".to_vec()));
/// let mut two = [0u8; 2];
/// s.read_at(3, &mut two)?;
/// assert_eq!(&two, b"de");
/// assert_eq!(s.size()?, 6);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Seeking<R> {
    inner: R,
    start: u64,
}

impl<R> Seeking<R> {
    /// `inner` as a source, its offsets counted from its start.
    ///
    /// ```
    /// use std::io::BufReader;
    /// let file = BufReader::new(std::fs::File::open("testdata/example.npy")?);
    /// let mut npy = ndnpy::NpyReader::new(ndnpy::source::Seeking::new(file))?;
    /// assert_eq!(npy.read_element::<f64>(&[0, 0])?, -1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(inner: R) -> Seeking<R> {
        Seeking { inner, start: 0 }
    }

    /// `inner` as a source whose offsets count from `start`.
    #[doc(hidden)]
    pub fn from(inner: R, start: u64) -> Seeking<R> {
        Seeking { inner, start }
    }

    /// The reader, positioned wherever the last read left it.
    ///
    /// ```
    /// let s = ndnpy::source::Seeking::new(std::io::Cursor::new(vec![1u8]));
    /// assert_eq!(s.into_inner().into_inner(), [1]);
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read + io::Seek> ReadAt for Seeking<R> {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self
            .inner
            .seek(io::SeekFrom::End(0))?
            .saturating_sub(self.start))
    }

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
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len().saturating_sub(self.start))
    }

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
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
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
