//! N-d region reads: a selection (one [`Select`] per axis, as ndarray's slice elements are)
//! planned as runs of bytes of the array data, read from any positioned source. (The element
//! readers decode the bytes, in the layer above that knows the array type.)
//!
//! The plan ([`Plan::new`]) turns each axis's selection into an arithmetic progression of
//! indices (first, signed step, count), exactly as ndarray's `slice` does, and orders the axes
//! as the file stores them (C: the last axis innermost; Fortran: the first). The selected
//! elements, in the file's storage order, are then a sequence of *runs*: contiguous spans of
//! bytes. The innermost axis gives one run per line when its step is 1 (else one per
//! element); an innermost axis selected whole folds into the next axis's runs, and so on.
//! [`Runs`] yields them lazily, one odometer step at a time, so a plan costs a few words per
//! axis whatever the selection.
//!
//! [`RegionRead`] serves the runs' bytes, in order, as a [`Read`]: that is what the element
//! readers (`ReadableElement::read_vec`) consume, so strings, records and byte swaps are
//! decoded as in a whole read. Runs are merged into one read when the gap between them is at
//! most the source's `gap` (the bytes in between are read and dropped: one read of a few KiB
//! more costs less than another call), as long as the merged window stays within the
//! source's `block` bytes; a run of `block` bytes or more is read straight into the
//! destination, never through a window. Several windows are handed to the source at once
//! ([`ReadAt::read_many`]) so that a remote source fetches them concurrently. Memory: the
//! output, plus the windows of one batch (at most `block * batch` bytes, and less than
//! `batch_bytes + block`), whatever the file's header says.

use std::io::{self, Read};

use super::{Merge, ReadAt};
use crate::base::error::{Error, UsageError};
use crate::format::header::Header;

/// One axis's selection, as ndarray's slice elements say it: a range with a step, an index
/// (the axis dropped), or a new axis of length 1. Indices and ends count from the end when
/// negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    /// Indices `start..end` (`end` `None`: to the axis's end) every `step`; a negative step
    /// takes them from the last one back.
    Slice {
        start: isize,
        end: Option<isize>,
        step: isize,
    },
    /// One index: the axis is dropped from the result.
    Index(isize),
    /// A new axis of length 1 in the result.
    NewAxis,
}

/// The most runs one batch of windows serves (16 bytes each of bookkeeping).
const MAX_RUNS: usize = 1 << 16;

/// One axis of the selection, in storage order.
#[derive(Debug, Clone, Copy)]
struct Axis {
    /// The first index selected.
    first: usize,
    /// The step between indices (negative: backwards).
    step: isize,
    /// How many indices are selected.
    count: usize,
    /// Bytes between consecutive indices of this axis in the data.
    stride: u64,
}

/// A selection planned against one array.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The result's shape (axes dropped by an index removed, `NewAxis` ones inserted).
    #[doc(hidden)]
    pub shape: Vec<usize>,
    /// The selected elements.
    #[doc(hidden)]
    pub count: usize,
    /// The axes outside the run, outermost first.
    outer: Vec<Axis>,
    /// Where the first run starts when every outer index is its first (bytes).
    base: u64,
    /// The bytes of one run.
    #[doc(hidden)]
    pub run_len: u64,
}

impl Plan {
    /// Plans `elems` (ndarray's slice elements, one per axis of the file plus any `NewAxis`)
    /// against the array `header` describes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the selection does not have one
    /// element per axis, or an index or range lies outside its axis (the error names the
    /// axis), or a step is 0.
    #[doc(hidden)]
    pub fn new(header: &Header, elems: &[Select]) -> Result<Plan, Error> {
        let ndim = header.shape.len();
        let used = elems
            .iter()
            .filter(|e| !matches!(e, Select::NewAxis))
            .count();
        if used != ndim {
            return Err(UsageError::SliceAxes { ndim, found: used }.into());
        }
        let itemsize = header.dtype.itemsize() as u64;
        // Byte strides in logical axis order, checked: the shape's product was checked
        // against the data length by the header, but a zero-length axis makes that product
        // 0 whatever the others are.
        let mut strides = vec![0u64; ndim];
        let mut acc = Some(itemsize);
        let order: Vec<usize> = if header.fortran_order {
            (0..ndim).collect()
        } else {
            (0..ndim).rev().collect()
        };
        for &a in &order {
            strides[a] = acc.unwrap_or(0);
            acc = acc.and_then(|s| s.checked_mul(header.shape[a] as u64));
        }
        let mut shape = Vec::with_capacity(elems.len());
        let mut axes = Vec::with_capacity(ndim); // logical order, `None` for an index
        let mut count: usize = 1;
        let mut base = 0u64;
        let mut axis = 0;
        for elem in elems {
            match *elem {
                Select::NewAxis => shape.push(1),
                Select::Index(i) => {
                    let len = header.shape[axis];
                    let index = abs_index(len, i)
                        .filter(|&i| i < len)
                        .ok_or_else(|| out_of_bounds(axis, format!("index {i}"), len))?;
                    base += index as u64 * strides[axis];
                    axes.push(None);
                    axis += 1;
                }
                Select::Slice { start, end, step } => {
                    let len = header.shape[axis];
                    let shown = || match end {
                        Some(e) => format!("slice {start}..{e};{step}"),
                        None => format!("slice {start}..;{step}"),
                    };
                    if step == 0 {
                        return Err(out_of_bounds(axis, format!("{} (step 0)", shown()), len));
                    }
                    let lo = abs_index(len, start)
                        .filter(|&s| s <= len)
                        .ok_or_else(|| out_of_bounds(axis, shown(), len))?;
                    let hi = match end {
                        None => len,
                        Some(e) => abs_index(len, e)
                            .filter(|&e| e <= len)
                            .ok_or_else(|| out_of_bounds(axis, shown(), len))?,
                    };
                    let hi = hi.max(lo);
                    let m = hi - lo;
                    let n = m.div_ceil(step.unsigned_abs());
                    let first = if step > 0 || m == 0 { lo } else { hi - 1 };
                    if n > 0 {
                        base += first as u64 * strides[axis];
                    }
                    count = count.saturating_mul(n);
                    shape.push(n);
                    axes.push(Some(Axis {
                        first,
                        step,
                        count: n,
                        stride: strides[axis],
                    }));
                    axis += 1;
                }
            }
        }
        // The kept axes in storage order, outermost first; the run is what the innermost
        // ones cover contiguously.
        let mut storage: Vec<(usize, Axis)> = order
            .iter()
            .rev()
            .filter_map(|&a| axes[a].map(|x| (a, x)))
            .collect();
        let mut run_len = itemsize;
        if count > 0 {
            // Fold innermost axes read whole and forwards into the run, then take the next
            // axis's line if its step is 1.
            while let Some(&(a, x)) = storage.last() {
                let whole = x.step == 1 && x.first == 0 && x.count == header.shape[a];
                if x.count == 1 || (whole && x.stride == run_len) {
                    run_len = run_len.saturating_mul(x.count as u64);
                    storage.pop();
                    continue;
                }
                if x.step == 1 && x.stride == run_len {
                    run_len = run_len.saturating_mul(x.count as u64);
                    storage.pop();
                }
                break;
            }
        }
        // `base` already counts every axis's first index; the outer axes step from it.
        let outer = storage
            .into_iter()
            .map(|(_, x)| Axis { first: 0, ..x })
            .collect();
        Ok(Plan {
            shape,
            count,
            outer,
            base,
            run_len,
        })
    }

    /// The runs, in storage order.
    #[doc(hidden)]
    pub fn runs(&self) -> Runs<'_> {
        self.runs_between(0, self.run_count())
    }

    /// How many runs the selection has.
    #[doc(hidden)]
    pub fn run_count(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        // At most the element count, which fits in usize.
        self.outer.iter().map(|a| a.count as u64).product()
    }

    /// The runs `from..to` (counted in storage order), `to` at most [`Plan::run_count`].
    #[doc(hidden)]
    pub fn runs_between(&self, from: u64, to: u64) -> Runs<'_> {
        // The odometer of run `from`: its digits in the outer axes' counts, innermost last.
        let mut index = vec![0; self.outer.len()];
        let mut rest = from;
        for (k, a) in index.iter_mut().zip(&self.outer).rev() {
            let n = a.count.max(1) as u64;
            *k = (rest % n) as usize;
            rest /= n;
        }
        let mut offset = self.base as i128;
        for (k, a) in index.iter().zip(&self.outer) {
            offset += *k as i128 * a.step as i128 * a.stride as i128;
        }
        Runs {
            plan: self,
            index,
            offset,
            left: to.saturating_sub(from),
        }
    }

    /// Where the selection's last byte ends, from the data's start (0 if it is empty): the
    /// bytes a source must hold for it.
    #[doc(hidden)]
    pub fn extent(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        // Negative steps start at their axis's largest index, which `base` counts.
        let forward = self.outer.iter().filter(|a| a.step > 0).map(|a| {
            ((a.count - 1) as u64)
                .saturating_mul(a.step as u64)
                .saturating_mul(a.stride)
        });
        forward.fold(self.base.saturating_add(self.run_len), u64::saturating_add)
    }

    /// The bytes the selection holds.
    #[doc(hidden)]
    pub fn bytes(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            let runs = self.outer.iter().map(|a| a.count as u64).product::<u64>();
            runs.saturating_mul(self.run_len)
        }
    }
}

/// An index counted from the end when negative (ndarray's rule); `None` if before the start.
fn abs_index(len: usize, index: isize) -> Option<usize> {
    if index < 0 {
        len.checked_sub(index.unsigned_abs())
    } else {
        Some(index as usize)
    }
}

/// The usage error of a selection outside axis `axis`.
fn out_of_bounds(axis: usize, what: String, len: usize) -> Error {
    UsageError::OutOfBounds {
        requested: format!("{what} of axis {axis}"),
        len,
    }
    .into()
}

/// The runs of a [`Plan`], as (offset, length) in bytes from the data's start.
#[derive(Debug, Clone)]
pub struct Runs<'p> {
    plan: &'p Plan,
    /// The odometer over the outer axes (the count of steps taken on each).
    index: Vec<usize>,
    /// Where the run the odometer points at starts.
    offset: i128,
    /// The runs still to come.
    left: u64,
}

impl Iterator for Runs<'_> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let here = self.offset;
        // Step the odometer, the innermost outer axis first, and the offset with it.
        for (k, a) in self.index.iter_mut().zip(&self.plan.outer).rev() {
            let step = a.step as i128 * a.stride as i128;
            *k += 1;
            if *k < a.count {
                self.offset += step;
                break;
            }
            self.offset -= (a.count as i128 - 1) * step;
            *k = 0;
        }
        // Every offset lies in the data: each index is within its axis.
        Some((here as u64, self.plan.run_len))
    }
}

impl Runs<'_> {
    /// The next run, without moving past it.
    fn peek(&self) -> Option<(u64, u64)> {
        (self.left > 0).then_some((self.offset as u64, self.plan.run_len))
    }

    /// The run after the next (a region read looks that far to see whether the next has a
    /// neighbour to merge with), found without moving the odometer.
    fn second(&self) -> Option<(u64, u64)> {
        let mut offset = self.offset;
        for (&k, a) in self.index.iter().zip(&self.plan.outer).rev() {
            let step = a.step as i128 * a.stride as i128;
            if k + 1 < a.count {
                return (self.left > 1).then_some(((offset + step) as u64, self.plan.run_len));
            }
            offset -= (a.count as i128 - 1) * step;
        }
        None
    }
}

/// The selected bytes of a [`Plan`], in storage order, read from `source`.
pub struct RegionRead<'p, S> {
    #[doc(hidden)]
    pub source: S,
    merge: Merge,
    runs: Runs<'p>,
    /// Windows read and not yet served: their bytes, one after another.
    #[doc(hidden)]
    pub scratch: Vec<u8>,
    /// The runs the windows hold, in order: where each starts in `scratch`, and its length.
    pending: std::collections::VecDeque<(u64, usize)>,
    /// Bytes of the front pending run already served.
    served: usize,
    /// Bytes of a long run (read straight into the destination) already served.
    long_done: u64,
}

impl<'p, S: ReadAt> RegionRead<'p, S> {
    /// The bytes of `plan`'s runs from `source`.
    #[doc(hidden)]
    pub fn new(plan: &'p Plan, source: S, merge: Merge) -> RegionRead<'p, S> {
        RegionRead::with_runs(plan.runs(), source, merge)
    }

    /// The bytes of `runs` (some of a plan's) from `source`.
    #[doc(hidden)]
    pub fn with_runs(runs: Runs<'p>, source: S, merge: Merge) -> RegionRead<'p, S> {
        RegionRead {
            source,
            merge,
            runs,
            scratch: Vec::new(),
            pending: std::collections::VecDeque::new(),
            served: 0,
            long_done: 0,
        }
    }

    /// Reads the next batch of merged windows into `scratch`.
    fn fill(&mut self) -> io::Result<()> {
        let block = self.merge.block as u64;
        let mut windows: Vec<(u64, u64)> = Vec::new();
        self.pending.clear();
        self.served = 0;
        let mut gathered = 0u64;
        while windows.len() < self.merge.batch.max(1)
            && self.pending.len() < MAX_RUNS
            && (windows.is_empty() || gathered < self.merge.batch_bytes as u64)
        {
            let Some((off, len)) = self.runs.peek() else {
                break;
            };
            if len >= block {
                break; // read on its own, straight into the destination
            }
            // A new window, grown with the runs that lie within `gap` of it.
            let (mut lo, mut hi) = (off, off + len);
            let first_run = self.pending.len();
            self.pending.push_back((off, len as usize));
            self.runs.next();
            while let Some((o, l)) = self.runs.peek() {
                if self.pending.len() >= MAX_RUNS {
                    break;
                }
                if l >= block {
                    break;
                }
                let (nlo, nhi) = (lo.min(o), hi.max(o + l));
                let near = o <= hi.saturating_add(self.merge.gap)
                    && o + l >= lo.saturating_sub(self.merge.gap);
                if !near || nhi - nlo > block {
                    break;
                }
                (lo, hi) = (nlo, nhi);
                // Both fit in usize: the window is at most `block` bytes.
                self.pending.push_back((o, l as usize));
                self.runs.next();
            }
            // The runs' offsets, from absolute to their place in `scratch`.
            for run in self.pending.range_mut(first_run..) {
                run.0 = gathered + (run.0 - lo);
            }
            windows.push((lo, hi));
            gathered += hi - lo;
        }
        self.load(&windows)
    }

    /// Whether the next run (`off`, `len`) would be read on its own anyway: it is the last
    /// run, or the source takes runs straight ([`Merge::direct`]) and the run after it lies
    /// further than `gap` away. Such a run goes straight into the destination when it has
    /// room, with no window to allocate and copy from (for a remote source, a band of rows
    /// is fetched into the array as a whole read is).
    fn alone(&self, off: u64, len: u64) -> bool {
        match self.runs.second() {
            None => true,
            // Several windows at once (concurrent GETs) beat one run alone.
            Some(_) if !self.merge.direct => false,
            Some((o, l)) => {
                o > (off + len).saturating_add(self.merge.gap)
                    || o + l < off.saturating_sub(self.merge.gap)
            }
        }
    }

    /// Reads the next bytes of the long run at `off` (`len` bytes, `long_done` of them
    /// served) into windows of `block` bytes, `batch` at once, for a reader that asks for
    /// less than a block at a time (the decoders of strings, records and dates).
    fn fill_long(&mut self, off: u64, len: u64) -> io::Result<()> {
        let block = self.merge.block.max(1) as u64;
        let mut windows: Vec<(u64, u64)> = Vec::new();
        self.pending.clear();
        self.served = 0;
        let mut at = 0;
        while windows.len() < self.merge.batch.max(1) && self.long_done < len {
            let n = (len - self.long_done).min(block);
            let lo = off + self.long_done;
            windows.push((lo, lo + n));
            // At most `block` bytes.
            self.pending.push_back((at, n as usize));
            at += n;
            self.long_done += n;
        }
        if self.long_done == len {
            self.runs.next();
            self.long_done = 0;
        }
        self.load(&windows)
    }

    /// Reads `windows` (absolute byte ranges, each at most `block` bytes) one after another
    /// into `scratch`, handing them to the source at once. `scratch` keeps its length
    /// between batches (only its growth is zeroed): every byte a run serves was read.
    fn load(&mut self, windows: &[(u64, u64)]) -> io::Result<()> {
        let total: u64 = windows.iter().map(|&(lo, hi)| hi - lo).sum();
        // Less than `batch_bytes + block` (or `block * batch`) bytes, which the caller's
        // memory budget allows.
        let total = usize::try_from(total).map_err(|_| io::ErrorKind::OutOfMemory)?;
        if self.scratch.len() < total {
            self.scratch
                .try_reserve(total - self.scratch.len())
                .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
            self.scratch.resize(total, 0);
        }
        let mut reads: Vec<(u64, &mut [u8])> = Vec::with_capacity(windows.len());
        let mut rest = &mut self.scratch[..total];
        for &(lo, hi) in windows {
            let (this, more) = rest.split_at_mut((hi - lo) as usize);
            reads.push((lo, this));
            rest = more;
        }
        self.source.read_many(&mut reads)
    }
}

impl<S: ReadAt> Read for RegionRead<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            if let Some(&(at, len)) = self.pending.front() {
                let n = (len - self.served).min(buf.len() - filled);
                // Within `scratch`, which is in memory.
                let from = at as usize + self.served;
                buf[filled..filled + n].copy_from_slice(&self.scratch[from..from + n]);
                filled += n;
                self.served += n;
                if self.served == len {
                    self.pending.pop_front();
                    self.served = 0;
                }
                continue;
            }
            if self.merge.block == 0 && self.long_done == 0 {
                if let Some(mem) = self.source.memory() {
                    let n = gather(mem, &mut self.runs, &mut buf[filled..]);
                    filled += n;
                    if n > 0 {
                        continue;
                    }
                }
            }
            let Some((off, len)) = self.runs.peek() else {
                break;
            };
            if len >= self.merge.block as u64 {
                let (left, room) = (len - self.long_done, (buf.len() - filled) as u64);
                if room < left.min(self.merge.block as u64) {
                    self.fill_long(off, len)?;
                    continue;
                }
                let n = left.min(room) as usize;
                self.source
                    .read_at(off + self.long_done, &mut buf[filled..filled + n])?;
                filled += n;
                self.long_done += n as u64;
                if self.long_done == len {
                    self.runs.next();
                    self.long_done = 0;
                }
                continue;
            }
            let room = buf.len() - filled;
            if self.alone(off, len) && room as u64 >= len {
                // A run with no neighbour to merge, and room for it: straight into `buf`.
                let n = len as usize;
                self.source.read_at(off, &mut buf[filled..filled + n])?;
                filled += n;
                self.runs.next();
                continue;
            }
            self.fill()?;
        }
        Ok(filled)
    }
}

/// Copies the next whole runs that fit in `buf` out of `mem` (bytes in memory), in batches:
/// the offsets of a batch first, then its copies, so that the loads of a scattered selection
/// (each often a cache miss or a page fault in a map) are in flight together rather than one
/// behind the other's bookkeeping. Returns the bytes copied (0: the next run does not fit
/// whole, or none is left).
fn gather(mem: &[u8], runs: &mut Runs<'_>, buf: &mut [u8]) -> usize {
    // Every run of a plan has its length; runs of no bytes (a zero-sized dtype) are left to
    // the caller.
    let len = runs.peek().and_then(|(_, l)| usize::try_from(l).ok());
    let Some(len) = len.filter(|&l| l > 0) else {
        return 0;
    };
    let mut offsets = [0usize; GATHER_BATCH];
    let mut filled = 0;
    loop {
        let (mut n, room) = (0, (buf.len() - filled) / len);
        while n < GATHER_BATCH.min(room) {
            // A run outside the bytes is left to the caller's `read_at`, which reports it.
            let off = runs.peek().and_then(|(o, _)| usize::try_from(o).ok());
            let Some(off) = off.filter(|o| o.checked_add(len).is_some_and(|e| e <= mem.len()))
            else {
                break;
            };
            offsets[n] = off;
            n += 1;
            runs.next();
        }
        if n == 0 {
            return filled;
        }
        let out = &mut buf[filled..filled + n * len];
        for (&off, dst) in offsets[..n].iter().zip(out.chunks_exact_mut(len)) {
            dst.copy_from_slice(&mem[off..off + len]);
        }
        filled += n * len;
    }
}

/// How many runs [`gather`] takes at once.
const GATHER_BATCH: usize = 64;
