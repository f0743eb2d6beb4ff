//! Deflate on every core, as pigz does, into one ordinary deflate stream: the member's bytes
//! are cut into [`CHUNK`]-sized chunks counted from its start, each compressed on its own
//! (on any thread) with the 32 KiB before it as its dictionary and ended with a sync flush,
//! the last with the final block. Decoders see one stream; the CRC-32 of the whole is
//! combined from the chunks'. The chunks depend only on the member's length, so the output is
//! the same whatever the number of threads, one included.
//!
//! The compressed chunks are held (in memory, or past `SPILL` bytes in a scratch file)
//! until the member is complete, then framed as a one-member ZIP archive that the `zip`
//! crate's writer copies into the real one: it has no way to take a deflate stream compressed
//! elsewhere, but it merges archives as they are.

use crc32fast::Hasher;
use flate2::{Compress, Compression, FlushCompress, Status};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The uncompressed bytes of one chunk. pigz's 128 KiB made archives of very compressible
/// data 1.6% larger than one stream (each chunk starts a block with its own code tables and
/// ends in a flush marker); 1 MiB keeps them within 0.1%, and the dictionary's cost small.
/// (Smaller in unit tests, to cross many chunks and rounds in little data.)
pub const CHUNK: usize = if cfg!(test) { 64 << 10 } else { 1 << 20 };

/// The dictionary each chunk gets: the 32 KiB of the member before it (deflate's window).
const DICT: usize = 32 << 10;

/// The input gathered from small writes before it is compressed in one round, its chunks
/// handed out to the threads at once. A multiple of [`CHUNK`], as is every round, so rounds
/// never move a chunk boundary.
const ROUND: usize = if cfg!(test) { 4 } else { 16 } * CHUNK;

/// The most input of one large write compressed in one round (where it is, uncopied): rounds
/// wait for their slowest chunk, so the fewer the better, but each holds its output in memory.
const LARGE_ROUND: usize = if cfg!(test) { 8 } else { 64 } * CHUNK;

/// Compressed bytes held in memory before the rest goes to a scratch file.
const SPILL: u64 = 256 << 20;

/// The smallest member compressed this way: below it, one stream on the calling thread is as
/// fast and a few bytes smaller.
pub const MIN_LEN: u64 = 1 << 20;

/// A [`Write`] that deflates what it is given in chunks on `threads` threads.
pub struct ChunkedDeflate {
    level: u32,
    threads: usize,
    /// Input not compressed yet: at most a round, kept until more input shows that it is not
    /// the member's end.
    pending: Vec<u8>,
    /// The last [`DICT`] bytes of the input compressed so far.
    dict: Vec<u8>,
    out: Spool,
    crc: Hasher,
    len: u64,
}

impl ChunkedDeflate {
    /// A deflater at `level` (1 to 9) on `threads` threads (0: as many as there are cores).
    pub fn new(level: u32, threads: usize) -> ChunkedDeflate {
        ChunkedDeflate::with_spill(level, threads, SPILL)
    }

    fn with_spill(level: u32, threads: usize, spill: u64) -> ChunkedDeflate {
        let threads = match threads {
            // No threads to start on WebAssembly; the output is the same on one.
            _ if cfg!(target_family = "wasm") => 1,
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        ChunkedDeflate {
            level,
            threads,
            pending: Vec::new(),
            dict: Vec::new(),
            out: Spool::new(spill),
            crc: Hasher::new(),
            len: 0,
        }
    }

    /// Compresses the chunks of `first` then `second` (whole chunks but for the very last,
    /// if `last`), with `self.dict` before them.
    fn round(&mut self, first: &[u8], second: &[u8], last: bool) -> io::Result<()> {
        let chunks: Vec<&[u8]> = match (first.is_empty(), second.is_empty()) {
            (true, true) => vec![&[]],
            _ => first.chunks(CHUNK).chain(second.chunks(CHUNK)).collect(),
        };
        let count = chunks.len();
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<io::Result<Deflated>>>> =
            Mutex::new((0..count).map(|_| None).collect());
        let (level, dict, chunks) = (self.level, &self.dict[..], &chunks);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                // Every chunk before the last is whole, so at least a dictionary long.
                let before = match i {
                    0 => dict,
                    _ => &chunks[i - 1][CHUNK - DICT..],
                };
                let result = deflate_chunk(level, before, chunks[i], last && i + 1 == count);
                if let Ok(mut slots) = done.lock() {
                    slots[i] = Some(result);
                }
            }
        };
        let helpers = self.threads.min(count) - 1;
        if helpers == 0 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..helpers {
                    // A thread that cannot be started (a limit, no memory) leaves its chunks
                    // to the others, this one included.
                    let _ = std::thread::Builder::new().spawn_scoped(s, work);
                }
                work();
            });
        }
        let slots = done
            .into_inner()
            .map_err(|_| io::Error::other("a deflate thread panicked"))?;
        for slot in slots {
            let (bytes, crc) =
                slot.ok_or_else(|| io::Error::other("a chunk was not deflated"))??;
            self.out.write_all(&bytes)?;
            self.crc.combine(&crc);
        }
        self.len += (first.len() + second.len()) as u64;
        if !last {
            self.dict.clear();
            self.dict
                .extend_from_slice(&chunks[count - 1][CHUNK - DICT..]);
        }
        Ok(())
    }

    /// Compresses the rest, which ends the stream, and frames it as a one-member ZIP archive
    /// named `name`: a deflated member with numpy's timestamp and permissions, and zip64
    /// sizes if its sizes need them (they are known, so no member gets them in case).
    pub fn finish(mut self, name: &str) -> io::Result<Member> {
        let rest = std::mem::take(&mut self.pending);
        self.round(&rest, &[], true)?;
        let (crc, len, csize) = (self.crc.finalize(), self.len, self.out.len());
        let zip64 = len >= u64::from(u32::MAX) || csize >= u64::from(u32::MAX);
        let (head, tail) = frame(name, crc, len, csize, zip64)?;
        Ok(Member {
            head,
            body: self.out.into_body()?,
            body_len: csize,
            tail,
            pos: 0,
        })
    }
}

impl Write for ChunkedDeflate {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        if self.pending.len() + buf.len() <= ROUND {
            self.pending.extend_from_slice(buf);
            return Ok(());
        }
        // More than a round: complete the pending input's last chunk, and compress it with
        // the whole chunks of `buf` (where they are, uncopied) but the last, which may end the
        // member. More than a round was given, so at least a byte of `buf` is left after it.
        let take = (CHUNK - self.pending.len() % CHUNK) % CHUNK;
        self.pending.extend_from_slice(&buf[..take]);
        buf = &buf[take..];
        loop {
            let room = LARGE_ROUND - self.pending.len();
            let whole = ((buf.len() - 1) / CHUNK * CHUNK).min(room);
            let pending = std::mem::take(&mut self.pending);
            let result = self.round(&pending, &buf[..whole], false);
            self.pending = pending;
            self.pending.clear();
            result?;
            buf = &buf[whole..];
            if buf.len() <= ROUND {
                break;
            }
        }
        self.pending.extend_from_slice(buf);
        Ok(())
    }

    /// Does nothing: the stream ends in [`ChunkedDeflate::finish`] (and `write_npy` flushes
    /// its writer when done).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A chunk's deflated bytes and the CRC-32 of its input.
type Deflated = (Vec<u8>, Hasher);

/// Deflates `chunk` at `level` with `dict` as what came before it, ending with a sync flush
/// or, if `last`, the final block; returns the bytes and the chunk's CRC-32.
///
/// Each chunk gets a new compressor: a reused one, even reset, does not give the same bytes.
/// zlib-rs's reset (0.6.8, the newest) keeps the previous stream's window, which its match
/// finder reads past the valid data before checking a match, so at levels 1 to 8 a chunk's
/// bytes depended on whichever chunk that thread had compressed before, that is, on
/// scheduling (zlib-rs issue 459; C zlib gives the same bytes either way). A compressor costs
/// an allocation of a few hundred KiB per MiB of input.
fn deflate_chunk(level: u32, dict: &[u8], chunk: &[u8], last: bool) -> io::Result<Deflated> {
    let mut crc = Hasher::new();
    crc.update(chunk);
    let mut z = Compress::new(Compression::new(level), false);
    if !dict.is_empty() {
        z.set_dictionary(dict).map_err(io::Error::other)?;
    }
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    // Deflate's bound for stored blocks, plus the flush's marker; grown if ever short.
    let mut out = Vec::with_capacity(chunk.len() + chunk.len() / 1024 + 64);
    let start = z.total_in();
    loop {
        let (read, wrote) = (z.total_in(), out.len());
        let consumed = (read - start) as usize;
        let status = z
            .compress_vec(&chunk[consumed..], &mut out, flush)
            .map_err(io::Error::other)?;
        let all_in = (z.total_in() - start) as usize == chunk.len();
        // A sync flush is complete when it leaves output space unused; the final block,
        // when the stream ends.
        if all_in
            && (if last {
                status == Status::StreamEnd
            } else {
                out.len() < out.capacity()
            })
        {
            return Ok((out, crc));
        }
        if z.total_in() == read && out.len() == wrote && out.len() < out.capacity() {
            return Err(io::Error::other("deflate made no progress"));
        }
        if out.len() == out.capacity() {
            out.reserve(CHUNK / 4);
        }
    }
}

/// The compressed bytes: in memory, then (past the spill size) in a scratch file.
enum Spool {
    Memory { bytes: Vec<u8>, spill: u64 },
    File { file: std::fs::File, len: u64 },
}

/// Where the compressed bytes are when the member is framed.
pub enum Body {
    Memory(Vec<u8>),
    File(std::fs::File),
}

impl Spool {
    fn new(spill: u64) -> Spool {
        Spool::Memory {
            bytes: Vec::new(),
            spill,
        }
    }

    fn len(&self) -> u64 {
        match self {
            Spool::Memory { bytes, .. } => bytes.len() as u64,
            Spool::File { len, .. } => *len,
        }
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Spool::Memory { bytes, spill } => {
                if (bytes.len() + data.len()) as u64 > *spill {
                    // Without a scratch file (WebAssembly, no temporary directory) the bytes
                    // stay in memory.
                    let dir = std::env::temp_dir();
                    if let Ok(mut file) = crate::platform::fsutil::scratch_file(&dir) {
                        file.write_all(bytes)?;
                        file.write_all(data)?;
                        let len = (bytes.len() + data.len()) as u64;
                        *self = Spool::File { file, len };
                        return Ok(());
                    }
                    *spill = u64::MAX;
                }
                bytes.try_reserve(data.len()).map_err(|_| {
                    io::Error::new(io::ErrorKind::OutOfMemory, "no memory for deflated bytes")
                })?;
                bytes.extend_from_slice(data);
                Ok(())
            }
            Spool::File { file, len } => {
                file.write_all(data)?;
                *len += data.len() as u64;
                Ok(())
            }
        }
    }

    fn into_body(self) -> io::Result<Body> {
        match self {
            Spool::Memory { bytes, .. } => Ok(Body::Memory(bytes)),
            Spool::File { mut file, .. } => {
                file.rewind()?;
                Ok(Body::File(file))
            }
        }
    }
}

/// The local header before a member's data and the central directory after it, of a
/// one-member archive, field for field what the `zip` crate writes for a deflated member with
/// numpy's timestamp (1980-01-01) and permissions (`0o600`).
fn frame(
    name: &str,
    crc: u32,
    len: u64,
    csize: u64,
    zip64: bool,
) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let name = name.as_bytes();
    let name_len = u16::try_from(name.len()).map_err(io::Error::other)?;
    let (version, sizes): (u16, [u32; 2]) = if zip64 {
        (45, [u32::MAX; 2])
    } else {
        (20, [csize as u32, len as u32])
    };
    let extra: Vec<u8> = if zip64 {
        [
            &1u16.to_le_bytes()[..],
            &16u16.to_le_bytes(),
            &len.to_le_bytes(),
            &csize.to_le_bytes(),
        ]
        .concat()
    } else {
        Vec::new()
    };
    let extra_len = extra.len() as u16;
    // Method 8 (deflate), time 00:00, date 1980-01-01, then the CRC and sizes.
    let common = [
        &version.to_le_bytes()[..],
        &0u16.to_le_bytes(),
        &8u16.to_le_bytes(),
        &0u16.to_le_bytes(),
        &0x21u16.to_le_bytes(),
        &crc.to_le_bytes(),
        &sizes[0].to_le_bytes(),
        &sizes[1].to_le_bytes(),
        &name_len.to_le_bytes(),
        &extra_len.to_le_bytes(),
    ]
    .concat();
    let head = [&b"PK\x03\x04"[..], &common, name, &extra].concat();
    let dir_start = head.len() as u64 + csize;
    let entry = [
        &b"PK\x01\x02"[..],
        &(0x0300 | version).to_le_bytes(), // made by Unix
        &common,
        &0u16.to_le_bytes(), // comment
        &0u16.to_le_bytes(), // disk
        &0u16.to_le_bytes(), // internal attributes
        &(0o100600u32 << 16).to_le_bytes(),
        &0u32.to_le_bytes(), // the local header's offset
        name,
        &extra,
    ]
    .concat();
    let mut tail = entry;
    let dir_len = tail.len() as u64;
    if dir_start >= u64::from(u32::MAX) {
        // The zip64 end of the central directory and its locator.
        let end64 = dir_start + dir_len;
        tail.extend_from_slice(b"PK\x06\x06");
        tail.extend_from_slice(&44u64.to_le_bytes());
        tail.extend_from_slice(&(0x0300 | version).to_le_bytes());
        tail.extend_from_slice(&version.to_le_bytes());
        tail.extend_from_slice(&[0; 8]); // this disk, the directory's disk
        tail.extend_from_slice(&1u64.to_le_bytes());
        tail.extend_from_slice(&1u64.to_le_bytes());
        tail.extend_from_slice(&dir_len.to_le_bytes());
        tail.extend_from_slice(&dir_start.to_le_bytes());
        tail.extend_from_slice(b"PK\x06\x07");
        tail.extend_from_slice(&0u32.to_le_bytes());
        tail.extend_from_slice(&end64.to_le_bytes());
        tail.extend_from_slice(&1u32.to_le_bytes());
    }
    tail.extend_from_slice(b"PK\x05\x06");
    tail.extend_from_slice(&[0; 4]); // disks
    tail.extend_from_slice(&1u16.to_le_bytes());
    tail.extend_from_slice(&1u16.to_le_bytes());
    tail.extend_from_slice(&(dir_len as u32).to_le_bytes());
    tail.extend_from_slice(&u32::try_from(dir_start).unwrap_or(u32::MAX).to_le_bytes());
    tail.extend_from_slice(&0u16.to_le_bytes());
    Ok((head, tail))
}

/// A one-member archive: its local header, compressed bytes and directory, read in turn.
pub struct Member {
    head: Vec<u8>,
    body: Body,
    body_len: u64,
    tail: Vec<u8>,
    pos: u64,
}

impl Member {
    fn len(&self) -> u64 {
        self.head.len() as u64 + self.body_len + self.tail.len() as u64
    }
}

impl Read for Member {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let head = self.head.len() as u64;
        let body_end = head + self.body_len;
        let from_slice = |bytes: &[u8], at: u64, buf: &mut [u8]| {
            let bytes = bytes.get(at as usize..).unwrap_or(&[]);
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            n
        };
        let n = if self.pos < head {
            from_slice(&self.head, self.pos, buf)
        } else if self.pos < body_end {
            let at = self.pos - head;
            let room = usize::try_from(body_end - self.pos).unwrap_or(usize::MAX);
            let buf_len = buf.len().min(room);
            match &mut self.body {
                Body::Memory(bytes) => from_slice(bytes, at, &mut buf[..buf_len]),
                Body::File(file) => {
                    file.seek(SeekFrom::Start(at))?;
                    file.read(&mut buf[..buf_len])?
                }
            }
        } else {
            from_slice(&self.tail, self.pos - body_end, buf)
        };
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Member {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

    fn sample(n: usize) -> Vec<u8> {
        // Compressible but not trivially: a slow ramp with noise.
        let mut x = 0x9e37_79b9u32;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                ((i / 300) as u8).wrapping_add((x % 7) as u8)
            })
            .collect()
    }

    fn deflate(data: &[u8], threads: usize, spill: u64, pieces: usize) -> Vec<u8> {
        let mut d = ChunkedDeflate::with_spill(4, threads, spill);
        let step = data.len().div_ceil(pieces).max(1);
        for piece in data.chunks(step) {
            d.write_all(piece).unwrap();
        }
        let mut m = d.finish("m.npy").unwrap();
        let mut all = Vec::new();
        m.read_to_end(&mut all).unwrap();
        let mut zip = ZipArchive::new(Cursor::new(all)).unwrap();
        let mut back = Vec::new();
        zip.by_index(0).unwrap().read_to_end(&mut back).unwrap();
        assert_eq!(back, data);
        let mut raw = Vec::new();
        zip.by_index_raw(0).unwrap().read_to_end(&mut raw).unwrap();
        raw
    }

    #[test]
    fn same_bytes_whatever_the_threads_and_writes() {
        let data = sample(3 * LARGE_ROUND + ROUND / 2 + 12_345);
        let one = deflate(&data, 1, SPILL, 1);
        assert_eq!(deflate(&data, 2, SPILL, 1), one);
        assert_eq!(deflate(&data, 3, SPILL, 7), one);
        assert_eq!(deflate(&data, 2, SPILL, 1000), one);
        // Spilled to a scratch file part way.
        assert_eq!(deflate(&data, 2, 100_000, 3), one);
        // Within 0.5% of one stream at the same level.
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), Compression::new(4));
        z.write_all(&data).unwrap();
        let single = z.finish().unwrap();
        assert!(
            (one.len() as f64) < single.len() as f64 * 1.005,
            "{} {}",
            one.len(),
            single.len()
        );
    }

    /// Floats in a ramp: long matches, as numeric arrays have. zlib-rs's reset compressor
    /// gave other bytes for such chunks after another chunk (at levels 1 to 8), so on two
    /// threads or more the output changed from run to run with the order the threads took
    /// the chunks in. Many runs, each on threads that take the chunks in their own order,
    /// must give one thread's bytes.
    #[test]
    fn same_bytes_in_every_run_on_any_threads() {
        let data: Vec<u8> = (0..24 * CHUNK as u64 / 8)
            .flat_map(|i| (i as f64 * 0.37).to_le_bytes())
            .collect();
        for level in [1, 4, 6] {
            let deflate_at = |threads| {
                let mut d = ChunkedDeflate::with_spill(level, threads, SPILL);
                d.write_all(&data).unwrap();
                let mut m = d.finish("m.npy").unwrap();
                let mut all = Vec::new();
                m.read_to_end(&mut all).unwrap();
                all
            };
            let one = deflate_at(1);
            for run in 0..12 {
                let threads = 2 + run % 3;
                assert!(
                    deflate_at(threads) == one,
                    "level {level}, run {run}, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn short_and_empty_members() {
        for n in [0, 1, DICT - 1, CHUNK, CHUNK + 1, ROUND, ROUND + 1] {
            deflate(&sample(n), 2, SPILL, 2);
        }
    }

    /// The framing is the zip crate's own: with its deflate stream as the body, the archive
    /// merged from the frame is the archive it writes itself.
    #[test]
    fn frame_is_the_zip_crates() {
        let data = sample(300_000);
        {
            let zip64 = false;
            let opts = SimpleFileOptions::default()
                .last_modified_time(DateTime::default())
                .unix_permissions(0o600)
                .large_file(zip64)
                .compression_method(CompressionMethod::Deflated)
                .compression_level(Some(4));
            let mut native = ZipWriter::new(Cursor::new(Vec::new()));
            native.start_file("x.npy", opts).unwrap();
            native.write_all(b"first").unwrap();
            native.start_file("a.npy", opts).unwrap();
            native.write_all(&data).unwrap();
            let native = native.finish().unwrap().into_inner();

            let mut zip = ZipArchive::new(Cursor::new(native.clone())).unwrap();
            let mut body = Vec::new();
            zip.by_index_raw(1).unwrap().read_to_end(&mut body).unwrap();
            let crc = crc32fast::hash(&data);
            let (head, tail) =
                frame("a.npy", crc, data.len() as u64, body.len() as u64, zip64).unwrap();
            let member = Member {
                head,
                body_len: body.len() as u64,
                body: Body::Memory(body),
                tail,
                pos: 0,
            };
            let mut merged = ZipWriter::new(Cursor::new(Vec::new()));
            merged.start_file("x.npy", opts).unwrap();
            merged.write_all(b"first").unwrap();
            merged
                .merge_archive(ZipArchive::new(member).unwrap())
                .unwrap();
            let merged = merged.finish().unwrap().into_inner();
            assert_eq!(merged, native);
        }
    }

    /// A member past 4 GiB: zip64 sizes, and a zip64 directory, which the zip crate reads.
    #[cfg(unix)]
    #[test]
    fn frame_past_4_gib() {
        let csize = (5u64 << 30) + 7;
        let file = crate::platform::fsutil::scratch_file(&std::env::temp_dir()).unwrap();
        file.set_len(csize).unwrap(); // sparse: nothing is written
        let (head, tail) = frame("big.npy", 0x1234_5678, 6 << 30, csize, true).unwrap();
        let member = Member {
            head,
            body: Body::File(file),
            body_len: csize,
            tail,
            pos: 0,
        };
        let mut zip = ZipArchive::new(member).unwrap();
        let raw = zip.by_index_raw(0).unwrap();
        assert_eq!(
            (raw.name(), raw.compressed_size(), raw.size()),
            ("big.npy", csize, 6 << 30)
        );
        assert_eq!(
            (raw.crc32(), raw.compression()),
            (0x1234_5678, CompressionMethod::Deflated)
        );
    }
}
