//! One member's bytes, stored or inflated, checked against what its central directory entry
//! declares: never more bytes than the declared size (a member that inflates further is a
//! [`ErrorKind::Archive`](crate::ErrorKind::Archive), found without inflating past one extra byte), exactly that
//! many (else [`ErrorKind::Archive`](crate::ErrorKind::Archive)), and the declared CRC-32 once the end is reached.
//!
//! The reader hands these errors through [`std::io::Read`] as `io::Error`s carrying a
//! [`FormatError`]; [`lift`] turns them back into an [`Error`] of the same kind at the API
//! boundary.

use super::inflate::{Fail, Inflater};
use super::{EntryRef, DEFLATED};
use crate::base::error::MismatchError;
use crate::base::error::{Detail, Error, FormatError};
use crate::element::bulk::read_vec;
use crate::element::Input;
use crate::format::header::{Header, HeaderInfo, ReadConfig, MAGIC};
use crate::platform::ioutil::read_full;
use crate::platform::prefault;
use crate::source::span::{HashingRead, PARALLEL_CRC_MIN};
use std::io::{self, Read};

/// The most bytes of a stored member copied per read, and the steps in which an inflated
/// member is hashed (see [`MemberReader`]'s `read`).
const CACHE_STEP: usize = 256 << 10;

/// Reads one member's uncompressed bytes from its compressed data `src`.
pub struct MemberReader<'e, B> {
    src: B,
    /// `None` for a stored member.
    inflater: Option<Box<Inflater>>,
    entry: EntryRef<'e>,
    produced: u64,
    hasher: crc32fast::Hasher,
    /// All bytes were read and checked.
    done: bool,
    /// The threads this reader may use (`ReadOptions::threads`): 1 keeps the CRC-32 of a
    /// stored member and the faulting in of an inflated member's array on the reading thread.
    threads: usize,
}

impl<'e, B: HashingRead> MemberReader<'e, B> {
    /// A reader of `entry`'s bytes from its compressed data; the caller has checked the entry
    /// ([`EntryRef::check`]).
    pub fn new(src: B, entry: EntryRef<'e>) -> Self {
        MemberReader {
            src,
            inflater: (entry.method == DEFLATED).then(|| Box::new(Inflater::new())),
            entry,
            produced: 0,
            hasher: crc32fast::Hasher::new(),
            done: false,
            threads: ReadConfig::new().threads,
        }
    }

    /// The same reader, using at most `threads` threads (`ReadOptions::threads`; the
    /// default is its default).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    fn fail(&self, e: FormatError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }

    fn corrupt(&self, reason: impl Into<String>) -> io::Error {
        self.fail(FormatError::CorruptMember {
            reason: reason.into(),
        })
    }

    /// Inflates into `out`; 0 means the deflate stream has ended.
    fn inflate(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let Some(z) = self.inflater.as_deref_mut() else {
            return Ok(0);
        };
        match z.inflate(&mut self.src, out) {
            Ok(n) => Ok(n),
            Err(Fail::Io(e)) => Err(e),
            Err(Fail::Invalid(why)) => Err(self.corrupt(format!("invalid deflate stream ({why})"))),
            Err(Fail::Truncated) => Err(self.corrupt(format!(
                "its {} bytes of compressed data end before the deflate stream does",
                self.entry.compressed_size
            ))),
        }
    }

    /// At the declared size: the deflate stream must end there, and the CRC-32 must match.
    fn finish(&mut self) -> io::Result<()> {
        if self.inflater.as_ref().is_some_and(|z| !z.ended()) {
            let mut one = [0u8; 1];
            if self.inflate(&mut one)? > 0 {
                return Err(self.fail(FormatError::MemberOverrun {
                    declared: self.entry.size,
                }));
            }
        }
        check_crc(self.entry.crc32, self.hasher.clone().finalize()).map_err(|e| self.fail(e))?;
        self.done = true;
        Ok(())
    }

    /// Counts `n` bytes just produced (and hashed); none at all before the declared size is a
    /// truncated member.
    fn count(&mut self, n: usize) -> io::Result<usize> {
        if n == 0 {
            return Err(self.fail(FormatError::MemberTruncated {
                declared: self.entry.size,
                found: self.produced,
            }));
        }
        self.produced += n as u64;
        Ok(n)
    }

    /// Copies a large part of a stored member into `out` in cache-sized steps, while a scoped
    /// thread runs the CRC-32 of each step already copied (the hashes are combined in order):
    /// the check then costs no time on the reading thread. Returns the bytes copied, fewer
    /// than `out.len()` only if the source ended.
    fn read_stored_hashing(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let src = &mut self.src;
        let (tx, rx) = std::sync::mpsc::channel::<&[u8]>();
        let (copied, hasher, error) = std::thread::scope(|s| {
            // Where no thread can be started (a thread limit, no memory), this one hashes.
            let helper = std::thread::Builder::new()
                .spawn_scoped(s, move || {
                    let mut h = crc32fast::Hasher::new();
                    for step in rx {
                        h.update(step);
                    }
                    h
                })
                .ok();
            let mut inline = helper.is_none().then(crc32fast::Hasher::new);
            let mut rest = out;
            let mut copied = 0;
            let mut error = None;
            while !rest.is_empty() {
                let k = rest.len().min(CACHE_STEP);
                let (step, tail) = rest.split_at_mut(k);
                rest = tail;
                match read_full(src, step) {
                    Ok(n) => {
                        copied += n;
                        match inline.as_mut() {
                            Some(h) => h.update(&step[..n]),
                            // The helper only reads the bytes; this thread never touches them
                            // again before the scope ends. A send fails only if the helper is
                            // gone, which the join below reports.
                            None => {
                                let _ = tx.send(&step[..n]);
                            }
                        }
                        if n < k {
                            break;
                        }
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            drop(tx);
            let hasher = match (helper, inline) {
                (Some(h), _) => h.join().ok(),
                (None, inline) => inline,
            };
            (copied, hasher, error)
        });
        let hasher = hasher.ok_or_else(|| io::Error::other("the CRC-32 thread panicked"))?;
        // Bytes copied before an error are in `out` but not counted: the read fails.
        if let Some(e) = error {
            return Err(e);
        }
        self.hasher.combine(&hasher);
        Ok(copied)
    }

    /// The member's declared (and checked) size.
    pub fn size(&self) -> u64 {
        self.entry.size
    }

    /// The bytes produced so far (inflated, or copied for a stored member).
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// What is known of the member's bytes for the `.npy` reader: its length (see
    /// `MemberReader::length_hint`), and that an inflated member's bytes arrive slower than
    /// memory takes them (said only when a helper thread may use that: not on one thread).
    pub fn input(&self) -> Input {
        Input::new(self.length_hint()).with_slow(self.inflater.is_some() && self.threads > 1)
    }

    /// The length to give the `.npy` reader as the input's, from which it may allocate a whole
    /// array at once: the declared size when that is safe, else `None` (the array then grows
    /// with the bytes that arrive).
    ///
    /// A stored member's declared size is its compressed size, and its bytes lie in the
    /// archive (the archive reader checked). A deflated member's declared size (up to 1032
    /// times its compressed size) is only proven as it inflates. Allocating it at once is still
    /// cheap when the system can reserve it: fresh pages are touched only as bytes arrive, so
    /// resident memory follows what was inflated, and a stream that ends early fails as
    /// truncated. When it cannot (a size beyond what the system will reserve, or an address
    /// space limit), asking for it would fail a read that may need far less; so a size of
    /// [`PROBE_FROM`] bytes or more is first reserved and released, with [`PROBE_ROOM`] to
    /// spare, and if that fails the array grows with the bytes instead.
    fn length_hint(&self) -> Option<u64> {
        let size = self.entry.size;
        if self.inflater.is_none() || size < PROBE_FROM {
            return Some(size);
        }
        let probe = usize::try_from(size.saturating_add(PROBE_ROOM)).ok()?;
        let mut v: Vec<u8> = Vec::new();
        v.try_reserve_exact(probe).ok()?;
        Some(size)
    }
}

impl<B: HashingRead> Read for MemberReader<'_, B> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.done {
            return Ok(0);
        }
        let remaining = self.entry.size - self.produced;
        if remaining == 0 {
            self.finish()?;
            return Ok(0);
        }
        let want = usize::try_from(remaining).map_or(buf.len(), |r| r.min(buf.len()));
        if self.inflater.is_none() {
            if let Some(read) = self.src.read_hashing(&mut buf[..want]) {
                let (n, hasher) = read?;
                self.hasher.combine(&hasher);
                return self.count(n);
            }
            if want >= PARALLEL_CRC_MIN && self.threads > 1 && prefault::cores() > 1 {
                let n = self.read_stored_hashing(&mut buf[..want])?;
                return self.count(n);
            }
        }
        // Both are read in cache-sized steps, each hashed while still in cache rather than
        // the whole array read from memory a second time.
        let mut n = 0;
        for step in buf[..want].chunks_mut(CACHE_STEP) {
            let k = if self.inflater.is_some() {
                self.inflate(step)?
            } else {
                self.src.read(step)?
            };
            self.hasher.update(&step[..k]);
            n += k;
            if k < step.len() || self.inflater.is_none() {
                break;
            }
        }
        self.count(n)
    }
}

/// Deflated members declaring at least this many bytes are allocated at once only if the
/// system can reserve them (see [`MemberReader::length_hint`]).
const PROBE_FROM: u64 = 64 << 20;

/// What the reservation probe of [`MemberReader::length_hint`] leaves to spare.
const PROBE_ROOM: u64 = 64 << 20;

/// The check of a stored or inflated member's CRC-32 against its directory entry's: the one
/// comparison of every member read and every copy of a member (the safetensors conversion).
pub fn check_crc(expected: u32, found: u32) -> Result<(), FormatError> {
    if found == expected {
        Ok(())
    } else {
        Err(FormatError::MemberChecksum { expected, found })
    }
}

/// Turns the member errors [`MemberReader`] passes through `io::Error` back into
/// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)).
pub fn lift(e: Error) -> Error {
    match e.detail() {
        Detail::Io(io) => match io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<FormatError>())
        {
            Some(f) => Error::from(f.clone()),
            None => e,
        },
        _ => e,
    }
}

/// Reads the rest of the member and discards it, which runs the end checks.
pub fn drain<B: HashingRead>(m: &mut MemberReader<'_, B>) -> Result<(), Error> {
    let mut buf = [0u8; 8192];
    while m.read(&mut buf)? > 0 {}
    Ok(())
}

/// Reads the first six bytes: the `.npy` magic, or the start of some other content (as many
/// as the member holds, up to six).
pub fn read_magic<B: HashingRead>(m: &mut MemberReader<'_, B>) -> Result<([u8; 6], usize), Error> {
    let mut magic = [0u8; 6];
    let n = read_full(m, &mut magic)?;
    Ok((magic, n))
}

/// Reads the first six bytes, which must be the `.npy` magic; else an
/// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) naming the member.
pub fn read_npy_magic<B: HashingRead>(m: &mut MemberReader<'_, B>) -> Result<[u8; 6], Error> {
    let (magic, n) = read_magic(m)?;
    if magic[..n] != MAGIC[..] {
        return Err(not_npy(m.entry, &magic[..n]));
    }
    Ok(magic)
}

fn not_npy(entry: EntryRef<'_>, found: &[u8]) -> Error {
    Error::from(MismatchError::NotNpy {
        found: found.to_vec(),
    })
    .in_member(entry.name)
}

/// What a member holds, as numpy's `NpzFile.__getitem__` decides: an array when it starts
/// with the `.npy` magic, else its bytes.
pub enum Content<A> {
    Array(A),
    Bytes(Vec<u8>),
}

/// Reads the member's `.npy` header only.
pub fn read_header<B: HashingRead>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadConfig,
) -> Result<HeaderInfo, Error> {
    let mut inner = || -> Result<HeaderInfo, Error> {
        let magic = read_npy_magic(m)?;
        Header::read(&mut (&magic[..]).chain(&mut *m), opts)
    };
    inner().map_err(lift)
}

/// The first reservation for a deflated member's bytes.
const FIRST_BYTES: usize = 64 << 10;

/// Reads all of the member's bytes.
pub fn read_bytes<B: HashingRead>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadConfig,
) -> Result<Vec<u8>, Error> {
    let mut inner = || {
        let total = checked_size(m, opts)?;
        // Into memory reserved as the array read's is (committed as the bytes land, no
        // zeroing pass), then the end checks.
        let input = m.input();
        let bytes = read_vec::<u8, _>(m, total, input)?;
        drain(m)?;
        Ok(bytes)
    };
    inner().map_err(lift)
}

/// The member's declared size, checked against `ReadOptions::max_data_len` and the address
/// space.
fn checked_size<B: HashingRead>(
    m: &MemberReader<'_, B>,
    opts: &ReadConfig,
) -> Result<usize, Error> {
    let size = m.size();
    if let Some(limit) = opts.max_data_len {
        if size > limit {
            let e = crate::base::error::LimitError::MemberTooLarge { limit, found: size };
            return Err(Error::from(e).in_member(m.entry.name));
        }
    }
    usize::try_from(size).map_err(|_| {
        Error::from(FormatError::MemberTruncated {
            declared: size,
            found: 0,
        })
        .in_member(m.entry.name)
    })
}

/// Appends the rest of the member to `bytes` (its declared size checked first). A stored
/// member's size is reserved at once: its bytes lie in the archive. A deflated member's
/// declared size is only proven as it inflates, so `bytes` grows with what arrives (doubling,
/// every reservation fallible): a stream that ends early fails as
/// [`ErrorKind::Archive`](crate::ErrorKind::Archive) having held only what it produced.
pub fn read_rest<B: HashingRead>(
    m: &mut MemberReader<'_, B>,
    bytes: &mut Vec<u8>,
    opts: &ReadConfig,
) -> Result<(), Error> {
    let total = checked_size(m, opts)?;
    let first = if m.inflater.is_some() {
        total.min(FIRST_BYTES)
    } else {
        total
    };
    let more = first.saturating_sub(bytes.len());
    bytes
        .try_reserve_exact(more)
        .map_err(|_| Error::out_of_memory(first, "an archive member"))?;
    // read_to_end grows the vector with try_reserve, so an allocation that fails is an
    // OutOfMemory error, not an abort.
    m.read_to_end(bytes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Entry;
    use super::*;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn entry(method: u16, data: &[u8], compressed: &[u8]) -> Entry {
        Entry::for_test(
            method,
            crc32fast::hash(data),
            compressed.len() as u64,
            data.len() as u64,
        )
    }

    fn read_all(entry: &Entry, src: &[u8]) -> Result<Vec<u8>, Error> {
        let mut m = MemberReader::new(src, entry.named("m.npy"));
        read_bytes(&mut m, &ReadConfig::new())
    }

    #[test]
    fn stored_and_deflated_bytes_come_back_checked() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let z = deflate(&data);
        assert_eq!(read_all(&entry(8, &data, &z), &z).unwrap(), data);
        assert_eq!(read_all(&entry(0, &data, &data), &data).unwrap(), data);
    }

    #[test]
    fn one_thread_asks_for_no_helper() {
        let data = vec![7u8; 1000];
        let z = deflate(&data);
        let (d, s) = (entry(8, &data, &z), entry(0, &data, &data));
        // An inflated member is slow: by default (two threads on Unix) a helper may fault its
        // array in; with one thread, none may.
        let m = MemberReader::new(&z[..], d.named("m.npy"));
        assert_eq!(m.input().slow, ReadConfig::new().threads > 1);
        let m = MemberReader::new(&z[..], d.named("m.npy")).with_threads(1);
        assert!(!m.input().slow);
        assert_eq!(m.input().available, Some(1000));
        // A stored member is as fast as its source.
        let m = MemberReader::new(&data[..], s.named("m.npy"));
        assert!(!m.input().slow);
    }

    #[test]
    fn large_stored_reads_are_checked_whole_and_after_a_small_read() {
        // Over 16 MiB: the CRC-32 runs on a second thread (on one with `with_threads(1)`).
        let n = (16 << 20) + 12345;
        let data: Vec<u8> = (0..n).map(|i| (i % 253) as u8).collect();
        let e = entry(0, &data, &data);
        for (first, threads) in [(0usize, 2), (6, 2), (0, 1), (6, 1)] {
            let mut m = MemberReader::new(&data[..], e.named("m.npy")).with_threads(threads);
            let mut out = vec![0u8; n];
            let mut got = read_full(&mut m, &mut out[..first]).unwrap();
            got += read_full(&mut m, &mut out[first..]).unwrap();
            assert_eq!(got, n);
            assert!(out == data);
            assert_eq!(m.read(&mut [0u8; 1]).unwrap(), 0, "the CRC matches");
        }
        // One flipped bit near the end fails the check.
        let mut bad = data.clone();
        bad[n - 100] ^= 1;
        let mut m = MemberReader::new(&bad[..], e.named("m.npy"));
        let mut out = vec![0u8; n];
        assert_eq!(read_full(&mut m, &mut out).unwrap(), n);
        let err = m.read(&mut [0u8; 1]).unwrap_err();
        let inner = err.get_ref().and_then(|i| i.downcast_ref::<FormatError>());
        assert!(
            matches!(inner, Some(FormatError::MemberChecksum { .. })),
            "{err}"
        );
        // A source that ends early: the bytes that came, then a truncated member.
        let mut m = MemberReader::new(&data[..n - 10], e.named("m.npy"));
        let mut out = vec![0u8; n];
        let err = read_full(&mut m, &mut out).unwrap_err();
        assert!(out[..n - 10] == data[..n - 10]);
        let inner = err.get_ref().and_then(|i| i.downcast_ref::<FormatError>());
        assert!(
            matches!(inner, Some(FormatError::MemberTruncated { .. })),
            "{err}"
        );
    }

    #[test]
    fn a_deflated_member_longer_than_declared_is_an_overrun() {
        let data = vec![7u8; 1 << 20];
        let z = deflate(&data);
        let mut e = entry(8, &data, &z);
        e.size = 1000;
        let err = read_all(&e, &z).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::MemberOverrun { declared: 1000, .. })
        ));
    }

    #[test]
    fn a_member_shorter_than_declared_is_truncated() {
        let data = vec![7u8; 5000];
        let z = deflate(&data);
        let mut e = entry(8, &data, &z);
        e.size = 6000;
        let err = read_all(&e, &z).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::MemberTruncated {
                declared: 6000,
                found: 5000,
                ..
            })
        ));
        let mut e = entry(0, &data, &data);
        e.size = 6000;
        let err = read_all(&e, &data).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::MemberTruncated { found: 5000, .. })
        ));
    }

    #[test]
    fn a_wrong_crc_and_a_corrupt_stream_are_reported() {
        let data = b"hello hello hello".to_vec();
        let mut e = entry(0, &data, &data);
        e.crc32 ^= 1;
        let err = read_all(&e, &data).unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::MemberChecksum { .. })
        ));
        let z = deflate(&data);
        // Cut the stream: it ends early.
        let e = entry(8, &data, &z[..z.len() - 3]);
        let err = read_all(&e, &z[..z.len() - 3]).unwrap_err();
        assert!(
            matches!(
                err.detail(),
                Detail::Format(FormatError::CorruptMember { .. })
            ),
            "{err}"
        );
        // An invalid block type (0b11).
        let bad = [0xffu8; 16];
        let e = entry(8, &data, &bad);
        let err = read_all(&e, &bad).unwrap_err();
        assert!(
            matches!(
                err.detail(),
                Detail::Format(FormatError::CorruptMember { .. })
            ),
            "{err}"
        );
    }
}
