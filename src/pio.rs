//! Positioned file reads split across two threads, for large reads from a path.
//!
//! A read from the page cache into fresh memory is bound by one core: the kernel copies the
//! bytes and faults the destination's pages in on the thread that reads. [`SplitFile`] turns
//! one large `read` into positioned reads (`pread`) of two disjoint halves of the buffer, one
//! on scoped helper threads, so the cores copy and fault at once. It is used by
//! [`read_npy`](crate::read_npy) with the `parallel` feature on Unix, with as many parts as
//! [`ReadOptions::threads`](crate::ReadOptions::threads) allows (2 by default) and the machine
//! has cores; anything smaller than [`SPLIT_MIN`] is one plain positioned read.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// The smallest read that is split: below it a thread costs more than it saves.
pub(crate) const SPLIT_MIN: usize = 16 << 20;

/// A reader of `file` from `pos` on, by positioned reads; large reads are split in `parts`.
pub(crate) struct SplitFile<'a> {
    file: &'a File,
    pos: u64,
    parts: usize,
}

impl<'a> SplitFile<'a> {
    /// A reader of `file` from offset `pos` whose large reads use up to `threads` threads, no
    /// more than the machine's cores.
    pub(crate) fn new(file: &'a File, pos: u64, threads: usize) -> SplitFile<'a> {
        SplitFile {
            file,
            pos,
            parts: threads.clamp(1, crate::prefault::cores().max(1)),
        }
    }
}

/// Reads at `pos` until `buf` is full or the file ends; returns the bytes read.
fn read_full_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
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
            read_parts_at(self.file, buf, self.pos, self.parts)?
        } else {
            read_full_at(self.file, buf, self.pos)?
        };
        self.pos += n as u64;
        Ok(n)
    }
}

/// Reads `buf` from `pos` as `parts` positioned reads of disjoint parts, all but the first on
/// scoped threads; returns the bytes read. The parts end on 2 MiB boundaries, so no huge page
/// is faulted from two threads. Bytes of a part count only when every part before it is
/// whole: the file may have ended (or grown) meanwhile, and what is returned is contiguous.
fn read_parts_at(file: &File, buf: &mut [u8], pos: u64, parts: usize) -> io::Result<usize> {
    // At most `parts` parts: the length rounded up, then to whole 2 MiB steps.
    let buf_len = buf.len();
    let step = buf_len.div_ceil(parts).next_multiple_of(2 << 20).max(1);
    // Each part waits in a slot until a thread takes it; a part whose thread cannot be
    // started (a thread limit, no memory) is read on this thread instead.
    let slots: Vec<std::sync::Mutex<Option<&mut [u8]>>> = buf
        .chunks_mut(step)
        .map(|c| std::sync::Mutex::new(Some(c)))
        .collect();
    let take = |i: usize| -> Option<&mut [u8]> {
        slots[i].lock().unwrap_or_else(|e| e.into_inner()).take()
    };
    let read_part = |i: usize| -> io::Result<usize> {
        match take(i) {
            Some(part) => read_full_at(file, part, pos + (i * step) as u64),
            None => Ok(0),
        }
    };
    let results: Vec<(usize, io::Result<usize>)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..slots.len())
            .map(|i| {
                let spawned = std::thread::Builder::new().spawn_scoped(s, move || read_part(i));
                (i, spawned.ok())
            })
            .collect();
        let wants: Vec<usize> = (0..slots.len())
            .map(|i| step.min(buf_len - i * step))
            .collect();
        let mut results = Vec::with_capacity(slots.len());
        results.push((wants[0], read_part(0)));
        for (i, h) in helpers {
            let r = match h {
                // `read_full_at` does not panic; were it to, that part is an I/O error.
                Some(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("read thread panicked"))),
                None => read_part(i),
            };
            results.push((wants[i], r));
        }
        results
    });
    let mut total = 0;
    for (want, got) in results {
        let got = got?;
        total += got;
        if got < want {
            break;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
}
