//! [`SourceReader`]: a [`ReadAt`] as a `Read + Seek`, whose positioned reads keep to the
//! source's own path (its door is [`SourceReader::positioned`]): what `NpyReader` reads its
//! source through.

use super::{Positioned, ReadAt};
use std::io::{self, Read, Seek, SeekFrom};

/// Reads below this many bytes are served from a window this long read ahead: a header's
/// three small reads (magic, length, text) are one call to the source.
const WINDOW: usize = 1 << 10;

/// A [`ReadAt`] as a `Read + Seek` at a position of its own: what `NpyReader` reads the
/// header through, and the type its regions, rows and elements are read from by the source's
/// own positioned reads; the reader of an `NpzReader` opened by `NpzReader::from_source`,
/// whose members are read the same way.
///
/// Small reads are served from a window of up to 1 KiB read ahead; bytes in memory are
/// copied straight; a source with a read-ahead of its own (an object in a store) reads as it
/// does.
///
/// # Examples
///
/// ```
/// use ndnpy::source::SourceReader;
/// use std::io::{Read, Seek, SeekFrom};
/// let mut r = SourceReader::new(b"abcdef".to_vec())?;
/// r.seek(SeekFrom::Start(2))?;
/// let mut s = String::new();
/// r.read_to_string(&mut s)?;
/// assert_eq!(s, "cdef");
/// assert_eq!(r.into_inner(), b"abcdef");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct SourceReader<S> {
    source: S,
    pos: u64,
    /// The source's length as last measured (again at a seek from the end, and at a read
    /// that finds the position there: a file may grow).
    len: u64,
    /// Bytes `held_at..held_at + held.len()` of the source.
    held: Vec<u8>,
    held_at: u64,
}

impl<S: ReadAt> SourceReader<S> {
    /// `source` as a reader at its first byte.
    ///
    /// # Errors
    ///
    /// The source's, measuring its [`size`](ReadAt::size).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Read;
    /// let file = std::fs::File::open("testdata/example.npy")?;
    /// let mut magic = [0u8; 6];
    /// ndnpy::source::SourceReader::new(file)?.read_exact(&mut magic)?;
    /// assert_eq!(&magic, b"\x93NUMPY");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(mut source: S) -> io::Result<SourceReader<S>> {
        let len = source.size()?;
        Ok(SourceReader {
            source,
            pos: 0,
            len,
            held: Vec::new(),
            held_at: 0,
        })
    }

    /// The source's length as last measured (at [`SourceReader::new`], a seek from the end,
    /// or a read at the end).
    #[doc(hidden)]
    pub fn measured_len(&self) -> u64 {
        self.len
    }

    /// The source.
    ///
    /// ```
    /// let r = ndnpy::source::SourceReader::new(vec![1u8, 2])?;
    /// assert_eq!(r.get_ref().len(), 2);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// The source back.
    ///
    /// ```
    /// let r = ndnpy::source::SourceReader::new(vec![1u8, 2])?;
    /// assert_eq!(r.into_inner(), [1, 2]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> S {
        self.source
    }

    /// The door of this type: its source as itself, never guessed (a region read takes a
    /// file's own positioned reads from [`ReadAt::file`]).
    #[doc(hidden)]
    pub fn positioned(r: &mut SourceReader<S>) -> Positioned<'_, SourceReader<S>> {
        Positioned::Source(&mut r.source)
    }

    /// The bytes at the position, at most `max` of them, from the window or from the
    /// source's memory: `None` if neither holds them.
    fn held(&self, max: usize) -> Option<&[u8]> {
        let (bytes, at) = match self.source.memory() {
            Some(memory) => (memory, 0),
            None => (&self.held[..], self.held_at),
        };
        let from = usize::try_from(self.pos.checked_sub(at)?).ok()?;
        let rest = bytes.get(from..).filter(|r| !r.is_empty())?;
        Some(&rest[..rest.len().min(max)])
    }
}

impl<S: ReadAt> Read for SourceReader<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some(held) = self.held(buf.len()) {
            let n = held.len();
            buf[..n].copy_from_slice(held);
            self.pos += n as u64;
            return Ok(n);
        }
        if let Some(read) = self.source.read_ahead(self.pos, buf) {
            let n = read?;
            self.pos += n as u64;
            return Ok(n);
        }
        if self.pos >= self.len {
            self.len = self.source.size()?;
            if self.pos >= self.len || self.source.memory().is_some() {
                return Ok(0);
            }
        }
        let left = self.len - self.pos;
        if buf.len() >= WINDOW {
            let n = (buf.len() as u64).min(left) as usize;
            self.source.read_at(self.pos, &mut buf[..n])?;
            self.pos += n as u64;
            return Ok(n);
        }
        let n = (WINDOW as u64).min(left) as usize;
        self.held.clear();
        self.held.resize(n, 0);
        if let Err(e) = self.source.read_at(self.pos, &mut self.held) {
            self.held.clear();
            return Err(e);
        }
        self.held_at = self.pos;
        self.read(buf)
    }
}

impl<S: ReadAt> Seek for SourceReader<S> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(n) => (n, 0),
            SeekFrom::End(d) => {
                self.len = self.source.size()?;
                (self.len, d)
            }
            SeekFrom::Current(d) => (self.pos, d),
        };
        self.pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a seek before the start")
        })?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that count the reads made of them.
    struct Counted<'a>(&'a [u8], usize);

    impl ReadAt for Counted<'_> {
        fn size(&mut self) -> io::Result<u64> {
            Ok(self.0.len() as u64)
        }

        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.1 += 1;
            let mut s = self.0;
            s.read_at(offset, buf)
        }
    }

    #[test]
    fn small_reads_share_one_window_and_large_ones_go_straight() {
        let bytes: Vec<u8> = (0..40_000u32).map(|i| i as u8).collect();
        // 100 reads of 10 bytes: one window of 1 KiB.
        let mut r = SourceReader::new(Counted(&bytes, 0)).unwrap();
        let mut small = [0u8; 10];
        for i in 0..100 {
            r.read_exact(&mut small).unwrap();
            assert_eq!(small[0], (i * 10) as u8);
        }
        assert_eq!(r.get_ref().1, 1);
        r.seek(SeekFrom::Start(20_000)).unwrap();
        let mut large = vec![0u8; 16 << 10]; // over the window: read straight
        r.read_exact(&mut large).unwrap();
        assert_eq!(large[..], bytes[20_000..20_000 + (16 << 10)]);
        assert_eq!(r.get_ref().1, 2);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest[..], bytes[20_000 + (16 << 10)..]);
        assert_eq!(r.seek(SeekFrom::End(-1)).unwrap(), 39_999);
        assert!(r.seek(SeekFrom::Current(-40_000)).is_err());
        // Past the end: nothing, and no read of the source.
        let before = r.get_ref().1;
        r.seek(SeekFrom::Start(1 << 40)).unwrap();
        assert_eq!(r.read(&mut small).unwrap(), 0);
        assert_eq!(r.get_ref().1, before);
    }

    #[test]
    fn bytes_in_memory_are_read_with_no_window() {
        let bytes = vec![7u8; 100];
        let mut r = SourceReader::new(&bytes[..]).unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, bytes);
        assert!(r.held.is_empty());
    }

    #[test]
    fn a_file_that_grows_is_read_to_its_new_end() {
        let path = std::env::temp_dir().join(format!("ndnpy-source-grow-{}", std::process::id()));
        std::fs::write(&path, b"abc").unwrap();
        let mut r = SourceReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| io::Write::write_all(&mut f, b"de"))
            .unwrap();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"abcde");
        assert!(r.get_ref().file().is_some_and(|(_, base)| base == 0));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_failing_source_fails_the_read_and_keeps_nothing() {
        struct Broken;
        impl ReadAt for Broken {
            fn size(&mut self) -> io::Result<u64> {
                Ok(100)
            }
            fn read_at(&mut self, _: u64, _: &mut [u8]) -> io::Result<()> {
                Err(io::Error::other("gone"))
            }
        }
        let mut r = SourceReader::new(Broken).unwrap();
        let mut b = [0u8; 4];
        assert_eq!(r.read(&mut b).unwrap_err().to_string(), "gone");
        assert!(r.held.is_empty());
        assert!(matches!(
            SourceReader::positioned(&mut r),
            Positioned::Source(_)
        ));
    }
}
