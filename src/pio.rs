//! Positioned file reads split across two threads, for large reads from a path.
//!
//! A read from the page cache into fresh memory is bound by one core: the kernel copies the
//! bytes and faults the destination's pages in on the thread that reads. [`SplitFile`] turns
//! one large `read` into positioned reads (`pread`) of two disjoint halves of the buffer, one
//! on a scoped helper thread, so both cores copy and fault at once. It is used by
//! [`read_npy`](crate::read_npy) with the `parallel` feature on Unix; anything smaller than
//! [`SPLIT_MIN`], and every read on a single-core machine, is one plain positioned read.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// The smallest read that is split: below it a thread costs more than it saves.
pub(crate) const SPLIT_MIN: usize = 16 << 20;

/// A reader of `file` from `pos` on, by positioned reads; large reads are split in two.
pub(crate) struct SplitFile<'a> {
    file: &'a File,
    pos: u64,
    split: bool,
}

impl<'a> SplitFile<'a> {
    /// A reader of `file` from offset `pos`; reads are split only if the machine has more than
    /// one core.
    pub(crate) fn new(file: &'a File, pos: u64) -> SplitFile<'a> {
        use std::sync::OnceLock;
        static CORES: OnceLock<usize> = OnceLock::new();
        let cores =
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        SplitFile {
            file,
            pos,
            split: cores > 1,
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
        let n = if self.split && buf.len() >= SPLIT_MIN {
            // Halves on a 2 MiB boundary, so no huge page is faulted from both threads.
            let mid = (buf.len() / 2).next_multiple_of(2 << 20).min(buf.len());
            let (first, second) = buf.split_at_mut(mid);
            let (file, pos) = (self.file, self.pos);
            let (a, b) = std::thread::scope(|s| {
                let helper = s.spawn(move || read_full_at(file, second, pos + mid as u64));
                let a = read_full_at(file, first, pos);
                // A panic cannot happen in `read_full_at`; treat one as an I/O error anyway.
                let b = helper
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("read thread panicked")));
                (a, b)
            });
            let a = a?;
            // Bytes of the second half count only after a whole first half: the file may have
            // ended (or grown) in between, and what is returned must be contiguous.
            if a < mid {
                a
            } else {
                mid + b?
            }
        } else {
            read_full_at(self.file, buf, self.pos)?
        };
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(name: &str, data: &[u8]) -> (std::path::PathBuf, File) {
        let path =
            std::env::temp_dir().join(format!("ndnpy-pio-{name}-{}", std::process::id()));
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
        let mut r = SplitFile::new(&f, 100);
        r.split = true;
        let mut buf = vec![0u8; n];
        let got = r.read(&mut buf).unwrap();
        assert_eq!(got, n - 100);
        assert_eq!(&buf[..got], &data[100..]);
        assert_eq!(r.read(&mut buf).unwrap(), 0);
        // A buffer shorter than the rest: exactly its length, then the remainder.
        let mut r = SplitFile::new(&f, 0);
        r.split = true;
        let mut first = vec![0u8; SPLIT_MIN + 7];
        assert_eq!(r.read(&mut first).unwrap(), first.len());
        assert_eq!(&first[..], &data[..first.len()]);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(&rest[..], &data[first.len()..]);
        // The file ends inside the first half: only the first half's bytes count.
        let mut r = SplitFile::new(&f, (n - 1000) as u64);
        r.split = true;
        let mut big = vec![0u8; 2 * SPLIT_MIN];
        assert_eq!(r.read(&mut big).unwrap(), 1000);
        assert_eq!(&big[..1000], &data[n - 1000..]);
        std::fs::remove_file(path).unwrap();
    }
}
