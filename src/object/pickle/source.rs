//! The bytes of a pickle, pulled from a reader no further than the pickle goes.
//!
//! A pickle has no length of its own: it ends at its `STOP` opcode, and an `.npy` stream may
//! hold more after it. So nothing is read ahead of what the opcodes ask for, except a
//! protocol-4 frame, which declares its length and is read whole (numpy's frames are at most
//! 64 KiB plus one opcode). Every length the pickle declares is hostile: a read of a declared
//! length allocates at once only what the input is known to hold (or 64 KiB), and otherwise
//! grows with the bytes that really arrive.

use ndnpy_engine::base::error::{Error, FormatError};
use ndnpy_engine::platform::ioutil::read_full;
use std::io::Read;

/// Reads up to this many bytes of a declared length at once, without knowing they exist.
const EAGER: usize = 1 << 16;

pub(crate) struct Source<'r, R: Read + ?Sized> {
    reader: &'r mut R,
    /// Bytes still in the input after the ones read, when known.
    available: Option<u64>,
    /// The current frame and the position in it (`frame_pos == frame.len()`: no frame).
    frame: Vec<u8>,
    frame_pos: usize,
    /// The offset of the next byte, from the pickle's first.
    pub(crate) offset: u64,
}

impl<'r, R: Read + ?Sized> Source<'r, R> {
    pub(crate) fn new(reader: &'r mut R, available: Option<u64>) -> Self {
        Source {
            reader,
            available,
            frame: Vec::new(),
            frame_pos: 0,
            offset: 0,
        }
    }

    /// The error for bytes at `at` that are not what the pickle format allows.
    pub(crate) fn bad(&self, at: u64, reason: impl std::fmt::Display) -> Error {
        FormatError::Pickle {
            offset: at,
            reason: ndnpy_engine::base::error::excerpt(reason),
        }
        .into()
    }

    fn truncated(&self, expected: u64, found: u64) -> Error {
        FormatError::Truncated {
            part: "pickle",
            expected,
            found,
        }
        .into()
    }

    /// Starts a frame of `len` bytes (the `FRAME` opcode), read whole now.
    pub(crate) fn start_frame(&mut self, len: u64) -> Result<(), Error> {
        if self.frame_pos < self.frame.len() {
            return Err(self.bad(self.offset, "a frame starts inside another frame"));
        }
        let at = self.offset;
        let bytes = self.read_stream(len)?;
        // The frame's bytes are counted as the opcodes read them.
        self.offset = at;
        self.frame = bytes;
        self.frame_pos = 0;
        Ok(())
    }

    /// The next `n` bytes, from the frame if one is open. An opcode may not cross the end of
    /// a frame (Python refuses that too).
    pub(crate) fn take(&mut self, n: u64) -> Result<Vec<u8>, Error> {
        if let Some(slice) = self.in_frame(n)? {
            return Ok(slice.to_vec());
        }
        self.read_stream(n)
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0u8; N];
        if let Some(slice) = self.in_frame(N as u64)? {
            out.copy_from_slice(slice);
            return Ok(out);
        }
        let got = read_full(self.reader, &mut out)?;
        self.consume(got as u64);
        if got < N {
            return Err(self.truncated(N as u64, got as u64));
        }
        Ok(out)
    }

    pub(crate) fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    /// The bytes up to the next `\n` (not included), for the text opcodes of protocol 0.
    pub(crate) fn line(&mut self) -> Result<Vec<u8>, Error> {
        let start = self.offset;
        if self.frame_pos < self.frame.len() {
            let rest = &self.frame[self.frame_pos..];
            let Some(end) = rest.iter().position(|&b| b == b'\n') else {
                return Err(self.bad(start, "a line of text runs past the end of its frame"));
            };
            let line = rest[..end].to_vec();
            self.frame_pos += end + 1;
            self.offset += end as u64 + 1;
            return Ok(line);
        }
        let mut line = Vec::new();
        loop {
            let mut b = [0u8; 1];
            if read_full(self.reader, &mut b)? == 0 {
                return Err(self.truncated(line.len() as u64 + 1, line.len() as u64));
            }
            self.consume(1);
            if b[0] == b'\n' {
                return Ok(line);
            }
            line.try_reserve(1).map_err(|_| oom(line.len() + 1))?;
            line.push(b[0]);
        }
    }

    fn in_frame(&mut self, n: u64) -> Result<Option<&[u8]>, Error> {
        if self.frame_pos == self.frame.len() {
            if !self.frame.is_empty() {
                self.frame = Vec::new();
                self.frame_pos = 0;
            }
            return Ok(None);
        }
        let rest = (self.frame.len() - self.frame_pos) as u64;
        if n > rest {
            return Err(self.bad(
                self.offset,
                format_args!("an opcode needs {n} bytes; its frame has {rest} left"),
            ));
        }
        let start = self.frame_pos;
        self.frame_pos += n as usize;
        self.offset += n;
        Ok(Some(&self.frame[start..start + n as usize]))
    }

    fn consume(&mut self, n: u64) {
        self.offset += n;
        if let Some(a) = &mut self.available {
            *a = a.saturating_sub(n);
        }
    }

    /// Reads `n` bytes from the reader: allocated at once if the input is known to hold them
    /// (or they are few), grown with what arrives otherwise.
    fn read_stream(&mut self, n: u64) -> Result<Vec<u8>, Error> {
        if let Some(a) = self.available {
            if n > a {
                return Err(self.truncated(n, a));
            }
        }
        let known = self.available.is_some() || n <= EAGER as u64;
        let mut buf = Vec::new();
        if known {
            let len = usize::try_from(n).map_err(|_| oom(usize::MAX))?;
            buf.try_reserve_exact(len).map_err(|_| oom(len))?;
            buf.resize(len, 0);
            let got = read_full(self.reader, &mut buf)?;
            self.consume(got as u64);
            if got < len {
                return Err(self.truncated(n, got as u64));
            }
        } else {
            let got = (&mut *self.reader).take(n).read_to_end(&mut buf)?;
            self.consume(got as u64);
            if (got as u64) < n {
                return Err(self.truncated(n, got as u64));
            }
        }
        Ok(buf)
    }
}

fn oom(bytes: usize) -> Error {
    Error::out_of_memory(bytes, "a pickle")
}
