//! Large reads split into disjoint parts copied on two threads at once.
//!
//! A read from the page cache or from memory into fresh memory is bound by one core: the
//! kernel (or `memcpy`) copies the bytes and faults the destination's pages in on the thread
//! that copies. [`SplitFile`] turns one large `read` of a file into positioned reads (`pread`)
//! of disjoint parts of the buffer, and [`SplitSlice`] one large read of bytes in memory into
//! copies of disjoint parts, all but the first on scoped helper threads, so the cores copy and
//! fault at once. They are used on Unix (standard threads, no feature needed) by every read
//! whose input is a regular file or bytes in memory (`read_npy`, and
//! `ReadNpyExt::read_npy` of a `File`, `BufReader<File>`,
//! `&[u8]` or `Cursor`), with as many parts as
//! [`ReadOptions::threads`](crate::ReadConfig::threads) allows (2 by default) and the machine
//! has cores; anything smaller than [`SPLIT_MIN`] is one plain read or copy.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// The smallest read that is split: below it a thread costs more than it saves.
pub const SPLIT_MIN: usize = 16 << 20;

/// A reader of `file` from `pos` on, by positioned reads; large reads are split in `parts`.
pub struct SplitFile<'a> {
    file: &'a File,
    pos: u64,
    parts: usize,
}

impl<'a> SplitFile<'a> {
    /// A reader of `file` from offset `pos` whose large reads use up to `threads` threads, no
    /// more than the machine's cores.
    #[doc(hidden)]
    pub fn new(file: &'a File, pos: u64, threads: usize) -> SplitFile<'a> {
        SplitFile {
            file,
            pos,
            parts: parts(threads),
        }
    }

    /// The offset of the next byte this reader reads.
    #[doc(hidden)]
    pub fn position(&self) -> u64 {
        self.pos
    }
}

/// The parts a large read is split in: `threads`, at most the machine's cores, at least 1.
pub fn parts(threads: usize) -> usize {
    threads.clamp(1, crate::platform::prefault::cores().max(1))
}

/// Reads at `pos` until `buf` is full or the file ends; returns the bytes read.
pub fn read_full_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], pos + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

impl Read for SplitFile<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = if self.parts > 1 && buf.len() >= SPLIT_MIN {
            let (file, pos) = (self.file, self.pos);
            fill_parts(buf, self.parts, |part, offset| {
                Ok((read_full_at(file, part, pos + offset as u64)?, ()))
            })?
            .0
        } else {
            read_full_at(self.file, buf, self.pos)?
        };
        self.pos += n as u64;
        Ok(n)
    }
}

/// The bytes `pos..end` of a file, read by positioned reads; [`FileSpan::read_hashing`]
/// reads a large part of them on several threads, hashing as it goes (a stored `.npz`
/// member and its CRC-32).
#[cfg(feature = "npz")]
pub struct FileSpan<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
    /// The parts a large read is split in.
    parts: usize,
}

/// The step in which each thread of a split, hashed read reads and hashes its part: small
/// enough that the bytes are still in the core's own cache when hashed (2 MiB steps made the
/// member read 1.3x the `.npy` read, 256 KiB steps 1.1x).
#[cfg(feature = "npz")]
const HASH_STEP: usize = 256 << 10;

#[cfg(feature = "npz")]
impl<'a> FileSpan<'a> {
    /// The `len` bytes of `file` at `pos`, whose large reads use up to `threads` threads,
    /// no more than the machine's cores.
    #[doc(hidden)]
    pub fn new(file: &'a File, pos: u64, len: u64, threads: usize) -> FileSpan<'a> {
        FileSpan {
            file,
            pos,
            end: pos.saturating_add(len),
            parts: parts(threads),
        }
    }

    /// The parts a large read is split in.
    #[doc(hidden)]
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// Fills `out` from the span (as far as it goes) by positioned reads of disjoint parts,
    /// each read and hashed in cache-sized steps on its own thread, so the hash reads bytes
    /// still in cache rather than the whole part from memory a second time. Returns the
    /// bytes read and their CRC-32.
    #[doc(hidden)]
    pub fn read_hashing(&mut self, out: &mut [u8]) -> io::Result<(usize, crc32fast::Hasher)> {
        let left = usize::try_from(self.end - self.pos).unwrap_or(usize::MAX);
        let len = out.len().min(left);
        let (file, pos) = (self.file, self.pos);
        let (n, hashes) = fill_parts(&mut out[..len], self.parts, |part, offset| {
            let mut h = crc32fast::Hasher::new();
            let mut done = 0;
            for step in part.chunks_mut(HASH_STEP) {
                let n = read_full_at(file, step, pos + (offset + done) as u64)?;
                h.update(&step[..n]);
                done += n;
                if n < step.len() {
                    break;
                }
            }
            Ok((done, h))
        })?;
        self.pos += n as u64;
        let mut all = crc32fast::Hasher::new();
        for h in &hashes {
            all.combine(h);
        }
        Ok((n, all))
    }
}

#[cfg(feature = "npz")]
impl Read for FileSpan<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end - self.pos).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// A reader of bytes in memory whose large reads copy `parts` disjoint parts at once.
pub struct SplitSlice<'a> {
    src: &'a [u8],
    pos: usize,
    parts: usize,
}

impl<'a> SplitSlice<'a> {
    /// A reader of `src` whose large reads use up to `threads` threads, no more than the
    /// machine's cores.
    #[doc(hidden)]
    pub fn new(src: &'a [u8], threads: usize) -> SplitSlice<'a> {
        SplitSlice {
            src,
            pos: 0,
            parts: parts(threads),
        }
    }

    /// The bytes of `src` read so far.
    #[doc(hidden)]
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Read for SplitSlice<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.src[self.pos..];
        let n = buf.len().min(rest.len());
        let (buf, rest) = (&mut buf[..n], &rest[..n]);
        if self.parts > 1 && n >= SPLIT_MIN {
            fill_parts(buf, self.parts, |part, offset| {
                copy_faulting_first(part, &rest[offset..offset + part.len()]);
                Ok((part.len(), ()))
            })?;
        } else {
            copy_faulting_first(buf, rest);
        }
        self.pos += n;
        Ok(n)
    }
}

/// `dst.copy_from_slice(src)` for a destination that may be fresh memory (an array's, not
/// yet touched): one 2 MiB page of `dst` at a time, its first byte stored before the rest is
/// copied. The page fault of a fresh huge page then happens at that store rather than inside
/// `memcpy`'s vector loop, where it costs more: `read_c`'s one-thread `&[u8]` row reads 256 MiB
/// this way in about the time the kernel takes to `read` the file into fresh memory (63 ms
/// and 64 ms in one run), where its floor row of one `memcpy` into a fresh huge-page buffer
/// took 76 ms.
pub fn copy_faulting_first(dst: &mut [u8], src: &[u8]) {
    const PAGE: usize = 2 << 20;
    let mut rest = (dst, src);
    while !rest.0.is_empty() {
        let (d, s) = rest;
        let step = match d.as_ptr().align_offset(PAGE) {
            0 => PAGE,
            head => head,
        }
        .min(d.len());
        let (d, d_more) = d.split_at_mut(step);
        let (s, s_more) = s.split_at(step);
        d[0] = s[0];
        // The store must happen first, not be folded into the copy that overwrites it.
        std::hint::black_box(&mut d[0]);
        d.copy_from_slice(s);
        rest = (d_more, s_more);
    }
}

/// Fills `buf` as at most `parts` disjoint parts, all but the first on scoped threads:
/// `fill(part, offset)` fills the part that starts `offset` bytes into `buf` and returns how
/// many of its bytes it filled, with a value of its own (a checksum of them). Returns the
/// bytes filled and the values of the parts they span, in order. The parts end on 2 MiB
/// boundaries, so no huge page is faulted from two threads. Bytes of a part count only when
/// every part before it is whole: a file may have ended (or grown) meanwhile, and what is
/// returned is contiguous.
pub fn fill_parts<X: Send>(
    buf: &mut [u8],
    parts: usize,
    fill: impl Fn(&mut [u8], usize) -> io::Result<(usize, X)> + Sync,
) -> io::Result<(usize, Vec<X>)> {
    // At most `parts` parts: the length rounded up, then to whole 2 MiB steps.
    let buf_len = buf.len();
    let step = buf_len.div_ceil(parts).next_multiple_of(2 << 20).max(1);
    // Each part waits in a slot until a thread takes it; a part whose thread cannot be
    // started (a thread limit, no memory) is filled on this thread instead.
    let slots: Vec<std::sync::Mutex<Option<&mut [u8]>>> = buf
        .chunks_mut(step)
        .map(|c| std::sync::Mutex::new(Some(c)))
        .collect();
    let take = |i: usize| -> Option<&mut [u8]> {
        slots[i].lock().unwrap_or_else(|e| e.into_inner()).take()
    };
    // A part already taken (never: each index is filled once) counts as empty.
    let fill_part = |i: usize| -> io::Result<Option<(usize, X)>> {
        take(i).map(|part| fill(part, i * step)).transpose()
    };
    // Per part: the bytes it should hold, and what its fill returned.
    type Filled<X> = (usize, io::Result<Option<(usize, X)>>);
    let results: Vec<Filled<X>> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..slots.len())
            .map(|i| {
                let spawned = std::thread::Builder::new().spawn_scoped(s, move || fill_part(i));
                (i, spawned.ok())
            })
            .collect();
        let wants: Vec<usize> = (0..slots.len())
            .map(|i| step.min(buf_len - i * step))
            .collect();
        let mut results = Vec::with_capacity(slots.len());
        results.push((wants[0], fill_part(0)));
        for (i, h) in helpers {
            let r = match h {
                // The fills do not panic; were one to, that part is an I/O error.
                Some(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("read thread panicked"))),
                None => fill_part(i),
            };
            results.push((wants[i], r));
        }
        results
    });
    let mut total = 0;
    let mut values = Vec::with_capacity(results.len());
    for (want, got) in results {
        let Some((got, value)) = got? else { break };
        total += got;
        values.push(value);
        if got < want {
            break;
        }
    }
    Ok((total, values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn copies_into_fresh_memory_are_copies_at_any_alignment_and_length() {
        let src: Vec<u8> = (0..5 << 20).map(|i: usize| (i * 31 % 251) as u8).collect();
        let huge = 2 << 20;
        for start in [0, 1, 7, 4095] {
            for len in [0, 1, 63, huge - 1, huge, huge + 1, src.len() - start] {
                let (mut dst, mut want) = (vec![0u8; src.len()], vec![0u8; src.len()]);
                copy_faulting_first(&mut dst[start..start + len], &src[start..start + len]);
                want[start..start + len].copy_from_slice(&src[start..start + len]);
                assert!(dst == want, "start {start} len {len}");
            }
        }
    }

    fn temp_file(name: &str, data: &[u8]) -> (std::path::PathBuf, File) {
        let path = std::env::temp_dir().join(format!("ndnpy-pio-{name}-{}", std::process::id()));
        File::create(&path).unwrap().write_all(data).unwrap();
        let f = File::open(&path).unwrap();
        (path, f)
    }

    #[test]
    fn split_reads_give_the_file_in_order_and_stop_at_its_end() {
        let n = SPLIT_MIN + (3 << 20) + 12345;
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let (path, f) = temp_file("order", &data);
        // From an offset, the whole rest in one read, then nothing.
        let mut r = SplitFile::new(&f, 100, 2);
        r.parts = 2;
        let mut buf = vec![0u8; n];
        let got = r.read(&mut buf).unwrap();
        assert_eq!(got, n - 100);
        assert_eq!(&buf[..got], &data[100..]);
        assert_eq!(r.read(&mut buf).unwrap(), 0);
        // A buffer shorter than the rest: exactly its length, then the remainder.
        let mut r = SplitFile::new(&f, 0, 3);
        r.parts = 3;
        let mut first = vec![0u8; SPLIT_MIN + 7];
        assert_eq!(r.read(&mut first).unwrap(), first.len());
        assert_eq!(&first[..], &data[..first.len()]);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(&rest[..], &data[first.len()..]);
        // The file ends inside the first half: only the first half's bytes count.
        let mut r = SplitFile::new(&f, (n - 1000) as u64, 2);
        r.parts = 2;
        let mut big = vec![0u8; 2 * SPLIT_MIN];
        assert_eq!(r.read(&mut big).unwrap(), 1000);
        assert_eq!(&big[..1000], &data[n - 1000..]);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn split_copies_give_the_bytes_in_order_and_stop_at_their_end() {
        let n = SPLIT_MIN + (3 << 20) + 12345;
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        // Everything in one read, split in two and in three parts, then nothing.
        for parts in [2, 3] {
            let mut r = SplitSlice::new(&data, parts);
            r.parts = parts;
            let mut buf = vec![0u8; n + 100];
            assert_eq!(r.read(&mut buf).unwrap(), n);
            assert_eq!(&buf[..n], &data[..]);
            assert_eq!(r.position(), n);
            assert_eq!(r.read(&mut buf).unwrap(), 0);
        }
        // A buffer shorter than the bytes (from a misaligned start): its length, then the rest.
        let mut r = SplitSlice::new(&data[1..], 2);
        r.parts = 2;
        let mut first = vec![0u8; SPLIT_MIN + 7];
        assert_eq!(r.read(&mut first).unwrap(), first.len());
        assert_eq!(&first[..], &data[1..first.len() + 1]);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(&rest[..], &data[first.len() + 1..]);
    }
}
