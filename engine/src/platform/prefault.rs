//! Faulting an output buffer in on a second core while slow data is read into it.
//!
//! A large read into fresh memory pays twice: for producing the bytes and for the kernel
//! handing out and zeroing every page as the bytes first land in it. When the bytes come from
//! the page cache, both are memory-bound and a second core gains nothing (measured: a 256 MiB
//! `.npy` read takes the same time with a helper). When they come slower than memory, as from
//! inflating an `.npz` member, the zeroing is a tenth of the time and can move to another core.
//! So, on Linux, reads of `MIN_LEN` bytes and more from a source its caller marks slow (the
//! `slow` argument, from `Input::slow`, which an `.npz` member reader sets only when
//! `ReadOptions::threads` allows more than one thread) on a machine with more than one core
//! start a helper thread that asks the kernel to populate the pages
//! (`MADV_POPULATE_WRITE`) a little ahead of the reader. The
//! helper never gets further ahead of the bytes that have really arrived than those bytes
//! themselves (at least one `STEP`, at most `LEAD`): a hostile input that declares a huge
//! array but holds little commits at most twice what arrived plus a step, not a fixed
//! 16 MiB more. Otherwise [`fill`] is [`read_full`].
//!
//! Unsafe here: asking the kernel to populate pages of a buffer another thread is filling
//! (`sys::advise`), and, in tests, a fresh mapping to watch.
#![allow(unsafe_code)]

use crate::platform::ioutil::read_full;
use std::io::{self, Read};

/// Reads into `buf` until it is full or the input ends, like [`read_full`], faulting `buf`'s
/// pages in ahead of the reader on a helper thread when that pays (see the module docs).
pub fn fill<R: Read + ?Sized>(reader: &mut R, buf: &mut [u8], slow: bool) -> io::Result<usize> {
    if !helper_pays(buf.len(), slow) {
        return read_full(reader, buf);
    }
    fill_parts(reader, buf, STEP, slow, |_, _| Ok::<(), io::Error>(()))
}

/// Reads into `buf` in parts of `part` bytes (the last may be shorter) until it is full or
/// the input ends, calling `each(offset, bytes)` on every part that arrived whole, while it
/// is still in cache; returns the bytes read, stopping at the first error of the reader or of
/// `each`. Pages are faulted in ahead on a helper thread when that pays.
pub fn fill_parts<R, E>(
    reader: &mut R,
    buf: &mut [u8],
    part: usize,
    slow: bool,
    mut each: impl FnMut(usize, &[u8]) -> Result<(), E>,
) -> Result<usize, E>
where
    R: Read + ?Sized,
    E: From<io::Error>,
{
    #[cfg(target_os = "linux")]
    if helper_pays(buf.len(), slow) {
        let (base, len) = (buf.as_mut_ptr() as usize, buf.len());
        return imp::with_helper(base, len, |progress| {
            read_parts(reader, buf, part, &mut each, progress)
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slow;
    read_parts(reader, buf, part, &mut each, &|_| {})
}

/// The loop of [`fill_parts`]; `progress(filled)` after every read.
fn read_parts<R, E>(
    reader: &mut R,
    buf: &mut [u8],
    part: usize,
    each: &mut impl FnMut(usize, &[u8]) -> Result<(), E>,
    progress: &dyn Fn(usize),
) -> Result<usize, E>
where
    R: Read + ?Sized,
    E: From<io::Error>,
{
    let part = part.max(1);
    let mut done = 0;
    while done < buf.len() {
        let end = done.saturating_add(part).min(buf.len());
        let got = read_full(reader, &mut buf[done..end])?;
        progress(done + got);
        if done + got < end {
            return Ok(done + got);
        }
        each(done, &buf[done..end])?;
        done = end;
    }
    Ok(done)
}

/// The smallest read that gets a helper: below it, starting a thread (tens of microseconds)
/// would cost more than it saves.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MIN_LEN: usize = 16 << 20;

/// The furthest ahead of the bytes read the helper may populate (see [`lead`]).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const LEAD: usize = 16 << 20;

/// How far past `filled` bytes the helper may populate: as far as has arrived, at least one
/// [`STEP`] and at most [`LEAD`]. So the lead grows with the input and a short input that
/// declared a huge buffer commits at most twice what it held plus a step.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn lead(filled: usize) -> usize {
    filled.clamp(STEP, LEAD)
}

/// The step of [`fill`]'s reads (the reader reports its progress after each) and of the
/// helper's populating.
const STEP: usize = 2 << 20;

/// The number of cores this process may use (1 if unknown), looked up once.
pub fn cores() -> usize {
    use std::sync::OnceLock;
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Whether a read of `len` bytes gets a helper: Linux, a `slow` source, at least [`MIN_LEN`]
/// bytes, a second core to populate on, and not already on one of rayon's workers (as in
/// [`NpzReader::read_all`](crate::NpzReader::read_all) with the `parallel` feature, whose
/// other reads keep the other cores busy).
fn helper_pays(len: usize, slow: bool) -> bool {
    #[cfg(target_os = "linux")]
    {
        len >= MIN_LEN && slow && !on_rayon_worker() && cores() > 1
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (len, slow);
        false
    }
}

/// Whether this thread is one of rayon's workers (never without the `parallel` feature).
#[cfg(target_os = "linux")]
fn on_rayon_worker() -> bool {
    #[cfg(feature = "parallel")]
    {
        rayon::current_thread_index().is_some()
    }
    #[cfg(not(feature = "parallel"))]
    {
        false
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{lead, STEP};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::thread;

    /// What the reader tells the helper.
    struct Shared {
        /// Bytes of the buffer filled so far.
        filled: AtomicUsize,
        /// The reader is done (finished, failed or unwinding): stop populating.
        stop: AtomicBool,
    }

    /// Tells the helper to stop however the reader leaves, so the scope's join never waits
    /// on a helper parked for progress that will not come (even when the reader panics).
    struct StopOnDrop<'a> {
        shared: &'a Shared,
        helper: Option<&'a thread::Thread>,
    }

    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            self.shared.stop.store(true, Ordering::Release);
            if let Some(h) = self.helper {
                h.unpark();
            }
        }
    }

    /// Runs `work` on this thread while a helper populates `[base, base + len)` ahead of the
    /// progress `work` reports. If the helper cannot be started, `work` runs alone.
    pub(super) fn with_helper<T>(
        base: usize,
        len: usize,
        work: impl FnOnce(&dyn Fn(usize)) -> T,
    ) -> T {
        let shared = Shared {
            filled: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        };
        thread::scope(|s| {
            let helper = thread::Builder::new()
                .name("ndnpy-prefault".into())
                .spawn_scoped(s, || populate(base, len, &shared))
                .ok();
            let helper = helper.as_ref().map(|h| h.thread());
            let _stop = StopOnDrop {
                shared: &shared,
                helper,
            };
            work(&|filled| {
                shared.filled.store(filled, Ordering::Release);
                if let Some(h) = helper {
                    h.unpark();
                }
            })
        })
    }

    /// The helper: populates `[base, base + len)` in 2 MiB steps, at most [`lead`] bytes past
    /// what the reader has filled, until all is populated or the reader stops.
    fn populate(base: usize, len: usize, shared: &Shared) {
        let mut populated = 0;
        while populated < len && !shared.stop.load(Ordering::Acquire) {
            let filled = shared.filled.load(Ordering::Acquire);
            let allowed = filled.saturating_add(lead(filled)).min(len);
            if populated >= allowed {
                thread::park();
                continue;
            }
            let end = (populated + STEP).min(allowed);
            if !populate_range(base + populated, end - populated) {
                return;
            }
            populated = end;
        }
    }

    /// Asks the kernel to make the pages of `[addr, addr + len)` present and writable, as a
    /// write to each would, without touching their contents. False if the kernel refuses
    /// (older than Linux 5.14, or a mapping it cannot populate): the reader then faults the
    /// pages in itself, as without the helper.
    fn populate_range(addr: usize, len: usize) -> bool {
        const PAGE: usize = 4096;
        let start = addr / PAGE * PAGE;
        // SAFETY: `[addr, addr + len)` lies in the buffer that `fill_parts`'s caller lent for
        // the whole scope this thread runs in, so its pages stay mapped; rounding out to whole
        // pages only reaches pages that hold some of the buffer's bytes. MADV_POPULATE_WRITE
        // never changes what a program reads from memory: a present page is left alone, an
        // absent anonymous page is faulted in holding the zeros a read would have seen, and a
        // private file page gets the copy a write would have made. So it cannot race with the
        // reader's writes to the same buffer (the kernel serialises the faults), and no Rust
        // reference is made from the address.
        unsafe {
            crate::platform::sys::advise(
                start as *mut u8,
                addr + len - start,
                crate::platform::sys::Advice::PopulateWrite,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out `total` bytes (byte i = i mod 251) in pieces of at most
    /// `piece`, then ends.
    struct Pattern {
        at: usize,
        total: usize,
        piece: usize,
    }

    impl Read for Pattern {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.piece).min(self.total - self.at);
            for (k, b) in buf[..n].iter_mut().enumerate() {
                *b = ((self.at + k) % 251) as u8;
            }
            self.at += n;
            Ok(n)
        }
    }

    fn pattern_ok(buf: &[u8]) -> bool {
        pattern_ok_at(0, buf)
    }

    fn pattern_ok_at(offset: usize, buf: &[u8]) -> bool {
        buf.iter()
            .enumerate()
            .all(|(i, &b)| b == ((offset + i) % 251) as u8)
    }

    /// Whether the page holding `addr` is resident (`mincore`).
    #[cfg(target_os = "linux")]
    fn resident(addr: usize) -> bool {
        let mut v = 0u8;
        // SAFETY: one page of a live mapping of the test's own; mincore only writes `v`.
        let r = unsafe { libc::mincore((addr / 4096 * 4096) as *mut libc::c_void, 1, &mut v) };
        assert_eq!(r, 0, "mincore failed");
        v & 1 == 1
    }

    /// With the helper: pages get populated ahead of the reader, but never further past the
    /// bytes that arrived than [`lead`] allows: as far as arrived, at least a step, at most
    /// `LEAD` (a short input that declared a huge array commits little).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_helper_populates_ahead_but_never_past_the_lead() {
        if !helper_pays(MIN_LEN, true) {
            return; // one core: no helper to observe
        }
        assert_eq!(
            (lead(0), lead(STEP + 1), lead(LEAD + 1)),
            (STEP, STEP + 1, LEAD)
        );
        /// Hands out `arrives` bytes, then waits (up to 10 s) for the page just below
        /// `arrives + lead(arrives)` to be resident, and 100 ms more, before ending the input.
        struct WaitForHelper {
            base: usize,
            arrives: usize,
            sent: usize,
            saw: bool,
        }
        impl Read for WaitForHelper {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.sent < self.arrives {
                    let n = buf.len().min(self.arrives - self.sent);
                    buf[..n].fill(1);
                    self.sent += n;
                    return Ok(n);
                }
                let target = self.base + self.arrives + lead(self.arrives) - 4096;
                for _ in 0..10_000 {
                    if resident(target) {
                        self.saw = true;
                        // Time for a helper that ignored the lead to show it.
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Ok(0)
            }
        }
        let len = 64 << 20;
        // One short input whose lead is the least, one whose lead grew, one past the most.
        for arrives in [STEP, 3 * STEP, LEAD + 4 * STEP] {
            // A fresh anonymous mapping (not the allocator's, whose memory may be resident
            // from earlier use).
            // SAFETY: a new mapping that nothing else refers to; unmapped below.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            assert!(ptr != libc::MAP_FAILED, "mmap failed");
            let base = ptr as usize;
            // SAFETY: `len` zeroed bytes of that mapping, used only until the munmap below.
            let buf = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) };
            let mut r = WaitForHelper {
                base,
                arrives,
                sent: 0,
                saw: false,
            };
            assert_eq!(fill(&mut r, buf, true).unwrap(), arrives);
            assert!(
                r.saw,
                "{arrives}: the helper never populated ahead of the reader"
            );
            let beyond = arrives + lead(arrives) + (2 << 20); // a huge page of slack
            for off in (beyond..len).step_by(4096) {
                assert!(
                    !resident(base + off),
                    "{arrives}: page at {off} populated past the lead"
                );
            }
            // SAFETY: mapped above with this length; `buf` is not used after this.
            assert_eq!(unsafe { libc::munmap(ptr, len) }, 0);
        }
    }

    #[test]
    fn only_slow_sources_get_a_helper() {
        assert!(!helper_pays(MIN_LEN, false));
        let inside = (helper_pays(MIN_LEN, true), helper_pays(MIN_LEN - 1, true));
        assert!(!inside.1);
        assert_eq!(
            inside.0,
            cfg!(target_os = "linux")
                && std::thread::available_parallelism().map_or(1, |n| n.get()) > 1
        );
    }

    #[test]
    fn fills_large_buffers_exactly_at_any_alignment() {
        // Large enough for the helper; odd offsets and lengths (not page multiples).
        let len = MIN_LEN + LEAD + 12_345;
        let mut backing = vec![0u8; len + 7];
        for offset in [0, 3, 7] {
            let buf = &mut backing[offset..offset + len];
            buf.fill(0);
            let mut r = Pattern {
                at: 0,
                total: len,
                piece: 1 << 20,
            };
            assert_eq!(fill(&mut r, buf, true).unwrap(), len);
            assert!(pattern_ok(buf));
        }
    }

    #[test]
    fn a_short_input_stops_the_helper_and_reports_what_arrived() {
        let len = MIN_LEN * 2;
        let mut buf = vec![0u8; len];
        for total in [0, 1, STEP - 1, STEP, STEP + 1, LEAD * 3 / 2 + 5] {
            let mut r = Pattern {
                at: 0,
                total,
                piece: 65_536,
            };
            assert_eq!(fill(&mut r, &mut buf, true).unwrap(), total);
            assert!(pattern_ok(&buf[..total]));
        }
    }

    #[test]
    fn reader_errors_and_panics_end_the_helper() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = buf.len().min(self.0);
                self.0 -= n;
                Ok(n)
            }
        }
        struct Panicking;
        impl Read for Panicking {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                panic!("reader panicked");
            }
        }
        let mut buf = vec![0u8; MIN_LEN];
        let err = fill(&mut Failing(STEP * 3), &mut buf, true).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        // An error from the per-part callback ends the read at that part.
        let mut r = Pattern {
            at: 0,
            total: MIN_LEN,
            piece: 1000,
        };
        let mut seen = Vec::new();
        let err = fill_parts(&mut r, &mut buf, 3 << 20, true, |offset, part| {
            assert!(pattern_ok_at(offset, part));
            seen.push(offset);
            if offset >= 6 << 20 {
                return Err(io::Error::other("bad part"));
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "bad part");
        assert_eq!(seen, [0, 3 << 20, 6 << 20]);
        // The panic propagates (the helper is told to stop, so the scope's join returns).
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fill(&mut Panicking, &mut buf, true)
        }));
        assert!(caught.is_err());
    }
}
