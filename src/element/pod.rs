//! Bulk reads and writes of plain-old-data elements: the crate's fast path.
//!
//! Data moves as whole slices of bytes: reads go straight into the array's own allocation
//! (zeroed by the OS for fresh memory, with transparent huge pages requested on Linux),
//! non-native byte order is swapped in place in one pass, and writes hand whole slices, or
//! 256 KiB chunks of a gathered or swapped copy, to `write_all`. Nearly all of the crate's
//! `unsafe` lives here.
#![allow(unsafe_code)]

use crate::error::{Error, FormatError, MismatchError};
use crate::ioutil::read_full;
use crate::prefault;
use ndarray::{ArrayViewD, ArrayViewMutD, Axis, Zip};
use std::alloc::{self, Layout};
use std::io::{self, Read, Write};
use std::mem::size_of;

/// A type whose values are plain bytes.
///
/// # Safety
///
/// Implementors guarantee that every bit pattern of `size_of::<Self>()` bytes is a valid
/// value, that the type has no padding bytes, and that `SWAP` divides its size and is the
/// width of the units a byte-order change reverses (1 for no swapping).
pub(crate) unsafe trait Pod: Copy + 'static {
    /// Width in bytes of the units whose byte order is reversed for non-native data.
    const SWAP: usize;
}

/// The bytes of a slice of `T`.
pub(crate) fn as_bytes<T: Pod>(s: &[T]) -> &[u8] {
    // SAFETY: `T: Pod` has no padding, so all `size_of_val(s)` bytes are initialised; the
    // pointer and length come from a valid slice, and u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// The bytes of a mutable slice of `T`.
pub(crate) fn as_bytes_mut<T: Pod>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; in addition every byte pattern written through the result is
    // a valid `T` because `T: Pod`.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// Checks that `bytes` holds exactly `len` values of `size` bytes, aligned to `align`: the
/// distinct errors of a view (short, extra bytes, misaligned).
pub(crate) fn check_len_align(
    bytes: &[u8],
    len: usize,
    size: usize,
    align: usize,
) -> Result<(), Error> {
    let need = len
        .checked_mul(size)
        .ok_or_else(|| FormatError::ShapeOverflow {
            shape: vec![len],
            itemsize: size,
        })?;
    if bytes.len() < need {
        return Err(FormatError::Truncated {
            part: "array data",
            expected: need as u64,
            found: bytes.len() as u64,
        }
        .into());
    }
    if bytes.len() > need {
        return Err(FormatError::TrailingBytes {
            expected: need as u64,
            found: bytes.len() as u64,
        }
        .into());
    }
    let offset = bytes.as_ptr() as usize % align.max(1);
    if offset != 0 && need > 0 {
        return Err(MismatchError::Misaligned { align, offset }.into());
    }
    Ok(())
}

/// Checks that `bytes` holds exactly `len` values of `T` and is aligned for `T`.
fn check_cast<T: Pod>(bytes: &[u8], len: usize) -> Result<(), Error> {
    check_len_align(bytes, len, size_of::<T>(), std::mem::align_of::<T>())
}

/// `bytes` as a slice of `len` values of `T`, in place.
pub(crate) fn cast_slice<T: Pod>(bytes: &[u8], len: usize) -> Result<&[T], Error> {
    check_cast::<T>(bytes, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: `check_cast` verified the length is exactly `len * size_of::<T>()` and the
    // pointer is aligned for `T`; every bit pattern is a valid `T` (`T: Pod`); the result
    // borrows `bytes`, so the memory outlives it and is not mutated meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// `bytes` as a mutable slice of `len` values of `T`, in place.
pub(crate) fn cast_slice_mut<T: Pod>(bytes: &mut [u8], len: usize) -> Result<&mut [T], Error> {
    check_cast::<T>(bytes, len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: as in `cast_slice`; the exclusive borrow of `bytes` moves to the result, and any
    // value written through it is valid bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
}

/// Reverses the byte order of every `unit`-byte group of `bytes` (a whole number of units).
///
/// Works for any alignment; the aligned middle is done with integer `swap_bytes`, which the
/// compiler vectorises.
pub(crate) fn swap_in_place(bytes: &mut [u8], unit: usize) {
    debug_assert_eq!(bytes.len() % unit.max(1), 0);
    macro_rules! swap_as {
        ($t:ty) => {{
            // SAFETY: every bit pattern is a valid integer, so viewing bytes as `$t` is sound;
            // `align_to_mut` only puts correctly aligned, whole `$t`s in the middle part.
            let (head, mid, tail) = unsafe { bytes.align_to_mut::<$t>() };
            if head.is_empty() && tail.is_empty() {
                for x in mid {
                    *x = x.swap_bytes();
                }
            } else {
                for c in bytes.chunks_exact_mut(size_of::<$t>()) {
                    c.reverse();
                }
            }
        }};
    }
    match unit {
        2 => swap_as!(u16),
        4 => swap_as!(u32),
        8 => swap_as!(u64),
        16 => swap_as!(u128),
        0 | 1 => {}
        n => {
            for c in bytes.chunks_exact_mut(n) {
                c.reverse();
            }
        }
    }
}

/// An empty vector with room for exactly `len` elements whose spare capacity is zeroed by the
/// allocator (fresh pages from the kernel, not a `memset`), with huge pages advised (see
/// [`advise_huge_pages`]). The caller may view that spare capacity as initialised bytes until it
/// writes there; nothing about `T` is assumed, so no `Pod` bound.
///
/// # Errors
///
/// An `OutOfMemory` I/O error if the allocation fails or `[T; len]` is too large.
pub(crate) fn zeroed_capacity<T>(len: usize) -> Result<Vec<T>, Error> {
    if len == 0 || size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout = Layout::array::<T>(len).map_err(|_| oom(len.saturating_mul(size_of::<T>())))?;
    // SAFETY: `layout` has non-zero size (len > 0 and T is not zero-sized).
    let ptr = unsafe { alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(oom(layout.size()));
    }
    advise_huge_pages(ptr.cast(), layout.size());
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[T; len]`, which
    // is what a vector of capacity `len` owns; length 0 means no element is claimed valid.
    Ok(unsafe { Vec::from_raw_parts(ptr, 0, len) })
}

/// The error for array data of `expected` bytes of which only `found` arrived.
pub(crate) fn truncated(expected: usize, found: u64) -> Error {
    Error::Format(FormatError::Truncated {
        part: "array data",
        expected: expected as u64,
        found,
    })
}

/// Fails as [`truncated`] when the input is known to hold fewer than the `nbytes` bytes of
/// array data, before anything is allocated.
pub(crate) fn check_available(nbytes: usize, available: Option<u64>) -> Result<(), Error> {
    match available {
        Some(avail) if avail < nbytes as u64 => Err(truncated(nbytes, avail)),
        _ => Ok(()),
    }
}

fn oom(bytes: usize) -> Error {
    Error::Io(io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("cannot allocate {bytes} bytes for the array"),
    ))
}

/// Asks Linux to back `[ptr, ptr + len)` with transparent huge pages, as numpy does for
/// buffers of 4 MiB and more. Fresh 4 KiB pages cost about twice as much to fault in as the
/// copy into them; 2 MiB pages make the read run at memory speed.
#[allow(unused_variables)]
pub(crate) fn advise_huge_pages(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if len < 4 << 20 {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside one live allocation owned by the caller and is
            // aligned to 2 MiB; MADV_HUGEPAGE only changes how the kernel backs the pages,
            // never their contents, and a failure (e.g. THP disabled) is harmless.
            unsafe {
                crate::sys::advise(start as *mut u8, end - start, crate::sys::Advice::HugePage);
            }
        }
    }
}

/// The largest claim of unknown length allocated zeroed at once (see
/// [`lazily_zeroed_capacity`]).
const ZEROED_AT_ONCE: usize = 16 << 20;

/// When the input's length is unknown and the whole array cannot be reserved at once: the
/// first reservation ...
const STREAM_FIRST: usize = 64 << 10;
/// ... and the parts in which data is zeroed and read (each is zeroed just before it is read
/// into, so it is in cache when the bytes land).
const STREAM_PART: usize = 2 << 20;

/// An empty vector with room for exactly `len` elements whose whole spare capacity reads as
/// zero bytes, though none of it is committed until written: for inputs of unknown length.
///
/// The allocation is only reserved (a plain `malloc`, which commits nothing), and Linux is
/// asked to drop whatever pages back its page-aligned interior (`MADV_DONTNEED`), so each
/// page is zero-filled by the kernel when first written, as for a fresh mapping; the partial
/// pages at both ends are zeroed here. So a stream that claims a huge array but holds little
/// commits only the pages its bytes land in, whatever the global allocator does, and a
/// stream that holds the whole array is read in one pass, as fast as a file of known length.
///
/// `None` off Linux, or when the reservation fails (a claim larger than the system will
/// reserve): the caller then grows with the bytes that arrive.
///
/// Claims of at most [`ZEROED_AT_ONCE`] bytes are allocated zeroed instead (`calloc`): an
/// allocator recycles memory of that size, and zeroing resident pages is cheaper than
/// dropping them and faulting them back in; the most such a claim commits is within the
/// slack every read allows.
#[allow(unused_variables)]
pub(crate) fn lazily_zeroed_capacity<T>(len: usize) -> Option<Vec<T>> {
    if len.saturating_mul(size_of::<T>()) <= ZEROED_AT_ONCE {
        return zeroed_capacity(len).ok();
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(len).ok()?;
        // The capacity's bytes fit in isize: the allocation exists.
        let bytes = v.capacity() * size_of::<T>();
        let page = crate::sys::page_size()?;
        let base = v.as_mut_ptr().cast::<u8>();
        let head = ((base as usize).next_multiple_of(page) - base as usize).min(bytes);
        let body_end = ((base as usize + bytes) & !(page - 1))
            .saturating_sub(base as usize)
            .max(head);
        // SAFETY: `base..base + bytes` is the vector's capacity, owned by `v` and borrowed by
        // nothing else; `head <= body_end <= bytes`, so both `write_bytes` calls and the
        // madvise range lie inside it, and the madvise range is page-aligned (start and end are
        // multiples of `page`). Nothing in the range holds data the allocator or anyone else
        // relies on: it is freshly allocated and unwritten. MADV_DONTNEED on private anonymous
        // memory (what allocators hand out) makes the next access see zero-filled pages; the
        // pointer passed keeps `v`'s provenance, so from Rust's point of view the call may
        // have written the range, and its bytes are initialised (to zero) when it returns.
        unsafe {
            std::ptr::write_bytes(base, 0, head);
            std::ptr::write_bytes(base.add(body_end), 0, bytes - body_end);
            if body_end > head
                && !crate::sys::advise(
                    base.add(head),
                    body_end - head,
                    crate::sys::Advice::DontNeed,
                )
            {
                return None;
            }
        }
        advise_huge_pages(base, bytes);
        Some(v)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    None
}

/// The first `k` elements of `v`'s spare capacity (at most what there is) as bytes.
///
/// # Safety
///
/// Those bytes must be initialised: zeroed by the allocation ([`zeroed_capacity`],
/// [`lazily_zeroed_capacity`]) and not written since, or written by the caller.
pub(crate) unsafe fn spare_bytes<T>(v: &mut Vec<T>, k: usize) -> &mut [u8] {
    let spare = v.spare_capacity_mut();
    let k = k.min(spare.len());
    // SAFETY: the range lies in the vector's spare capacity, which `v` owns and nothing else
    // borrows while the result (tied to `&mut v`) lives; the caller guarantees the bytes are
    // initialised, and `u8` has alignment 1 and no invalid values.
    unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<u8>(), k * size_of::<T>()) }
}

/// Like [`spare_bytes`], zeroing the bytes first, so it is safe.
pub(crate) fn zeroed_spare_bytes<T>(v: &mut Vec<T>, k: usize) -> &mut [u8] {
    let spare = v.spare_capacity_mut();
    let k = k.min(spare.len());
    // SAFETY: the first `k` elements of the spare capacity belong to `v`; `write_bytes`
    // initialises their bytes, which makes the `spare_bytes` call sound.
    unsafe {
        std::ptr::write_bytes(spare.as_mut_ptr().cast::<u8>(), 0, k * size_of::<T>());
        spare_bytes(v, k)
    }
}

/// Reads `len` elements of `T` (in file byte order) from `reader`.
///
/// `available` is how many bytes the input still holds, when known (a file's length): the
/// array is then allocated at once after checking the bytes are there. Without it, the
/// array is reserved at once without committing memory ([`lazily_zeroed_capacity`]) and
/// read in one pass, so any reader is as fast as a file of known length; where that
/// reservation is not possible the array grows with the bytes that arrive. Either way a
/// short input claiming a huge array fails as truncated after committing about what it held.
pub(crate) fn read_vec<T: Pod, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    available: Option<u64>,
) -> Result<Vec<T>, Error> {
    // SAFETY: every byte pattern is a valid `T` (`T: Pod`), so accepting every part is right.
    unsafe { read_plain(reader, len, available, None, |_, _| Ok(())) }
}

/// Reads `len` values of a plain type `T` from `reader` straight into the vector's memory: the
/// engine of [`read_vec`] and of `#[repr(C)]` record reads.
///
/// With `part`, the data is read in parts of that many elements and `check(first, bytes)` runs
/// on each part (its first element's index and its bytes) while it is in cache; a failed
/// check stops the read. Without it, one pass, and `check` sees the whole data once. Memory
/// as in [`read_vec`].
///
/// # Safety
///
/// Every `size_of::<T>()` bytes that `check` accepts must be a valid `T`, and `T` must not be
/// zero-sized.
pub(crate) unsafe fn read_plain<T, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    available: Option<u64>,
    part: Option<usize>,
    mut check: impl FnMut(usize, &[u8]) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    let size = size_of::<T>();
    debug_assert!(size > 0);
    // The caller checked len * size against isize::MAX (Header::sizes).
    let nbytes = len * size;
    check_available(nbytes, available)?;
    // The same memory for every door: reserved at once, committed as data lands (a fresh
    // calloc of a size the allocator recycles would be cleared with a memset first, which
    // cost a 33 MB record read twice its time). With the length known and checked, a failed
    // reservation is an out-of-memory error; without it, the array grows instead.
    let whole = match available {
        Some(_) => Some(match lazily_zeroed_capacity::<T>(len) {
            Some(v) => v,
            None => zeroed_capacity::<T>(len)?,
        }),
        None => lazily_zeroed_capacity::<T>(len),
    };
    let Some(mut v) = whole else {
        // SAFETY: passed on from the caller.
        return unsafe { read_plain_growing(reader, len, part, check) };
    };
    let mut valid = 0;
    // SAFETY: the spare capacity comes zeroed from the allocation and is not written yet.
    let bytes = unsafe { spare_bytes(&mut v, len) };
    let got = match part {
        Some(part) => prefault::fill_parts(reader, bytes, part.max(1) * size, |offset, bytes| {
            check(offset / size, bytes)?;
            valid = (offset + bytes.len()) / size;
            Ok::<(), Error>(())
        }),
        None => prefault::fill(reader, bytes)
            .map_err(Error::from)
            .and_then(|got| {
                let whole = got / size;
                check(0, &bytes[..whole * size])?;
                valid = whole;
                Ok(got)
            }),
    };
    // SAFETY: the first `valid` elements lie in the capacity (`valid <= len`) and hold bytes
    // that `check` accepted: valid `T`s by the caller's contract. On an error they are
    // dropped with `v`.
    unsafe { v.set_len(valid) };
    let got = got?;
    if got < nbytes {
        return Err(truncated(nbytes, got as u64));
    }
    Ok(v)
}

/// [`read_plain`] where the whole array cannot be reserved: the vector's reservation doubles
/// (a reallocation, which Linux does by moving pages, not copying), and each part is zeroed
/// just before it is read, so committed memory stays within the bytes that arrived plus one
/// part.
///
/// # Safety
///
/// As [`read_plain`].
unsafe fn read_plain_growing<T, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    part: Option<usize>,
    mut check: impl FnMut(usize, &[u8]) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    let size = size_of::<T>();
    let nbytes = len * size;
    let per = |bytes: usize| (bytes / size).max(1);
    let part = part.unwrap_or(per(STREAM_PART)).max(1);
    let mut v: Vec<T> = Vec::new();
    while v.len() < len {
        let done = v.len();
        if v.capacity() == done {
            let grow = (len - done).min(done.max(per(STREAM_FIRST)));
            v.try_reserve_exact(grow)
                .map_err(|_| oom(grow.saturating_mul(size)))?;
            advise_huge_pages(v.as_mut_ptr().cast(), v.capacity() * size);
        }
        let bytes = zeroed_spare_bytes(&mut v, (len - done).min(part));
        let k = bytes.len() / size;
        let got = read_full(reader, bytes)?;
        if got < bytes.len() {
            return Err(truncated(nbytes, (done * size + got) as u64));
        }
        check(done, bytes)?;
        // SAFETY: the `k` elements after the length lie in the capacity (`zeroed_spare_bytes`
        // took at most the spare capacity) and hold bytes that `check` accepted: valid `T`s by
        // the caller's contract.
        unsafe { v.set_len(done + k) };
    }
    Ok(v)
}

/// A `T` whose bytes are all zero.
fn zeroed_value<T: Pod>() -> T {
    // SAFETY: all-zero bytes are a valid `T` because every bit pattern is (`T: Pod`).
    unsafe { std::mem::zeroed() }
}

/// The most memory that values decoded from a zero-byte dtype (`'<U0'`, `'|S0'`, records
/// without fields) may take: such a file holds no bytes to bound the allocation by.
pub(crate) const MAX_ZERO_SIZE_BYTES: usize = 16 << 20;

/// Reads `len` elements of `itemsize` bytes and passes them to `decode` in chunks of whole
/// elements (about 256 KiB each) through one reusable buffer, with the index of the chunk's
/// first element and its element count. `decode` pushes one value per element. Returns the
/// decoded values.
///
/// The output is reserved at once (a reservation commits no memory; only the values written
/// do), so it is never copied as it grows; where the reservation fails it grows with what is
/// decoded. The buffer grows with the bytes that arrive, so one element declared far larger
/// than the input costs only what arrived. Zero-byte elements are refused beyond
/// [`MAX_ZERO_SIZE_BYTES`] of decoded values.
pub(crate) fn read_decoded<T, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    itemsize: usize,
    available: Option<u64>,
    mut decode: impl FnMut(&[u8], usize, usize, &mut Vec<T>) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    // The caller's header check bounds len * itemsize by isize::MAX.
    let nbytes = len * itemsize;
    check_available(nbytes, available)?;
    if itemsize == 0 {
        let limit = MAX_ZERO_SIZE_BYTES / size_of::<T>().max(1);
        if len > limit {
            return Err(crate::error::LimitError::ArrayTooLarge {
                limit: limit as u64,
                found: len as u64,
            }
            .into());
        }
        let mut out = Vec::new();
        out.try_reserve_exact(len)
            .map_err(|_| oom(len.saturating_mul(size_of::<T>())))?;
        decode(&[], 0, len, &mut out)?;
        return Ok(out);
    }
    let per_chunk = (WRITE_CHUNK / itemsize).max(1);
    let mut buf = Vec::new();
    let mut out = Vec::new();
    if out.try_reserve_exact(len).is_err() {
        let first = len.min(per_chunk);
        out.try_reserve_exact(first)
            .map_err(|_| oom(first.saturating_mul(size_of::<T>())))?;
    }
    let mut done = 0;
    while done < len {
        let k = (len - done).min(per_chunk);
        let want = k * itemsize;
        let got = fill_growing(reader, &mut buf, want)?;
        if got < want {
            return Err(truncated(nbytes, (done * itemsize + got) as u64));
        }
        if out.capacity() - out.len() < k {
            out.try_reserve(k)
                .map_err(|_| oom(k.saturating_mul(size_of::<T>())))?;
        }
        decode(&buf[..want], done, k, &mut out)?;
        done += k;
    }
    Ok(out)
}

/// Reads up to `want` bytes into the start of `buf`, a zeroed buffer reused across calls:
/// it grows towards `want` only as the bytes arrive (doubling, from 64 KiB), so a short
/// input costs about what it held. Returns the bytes read; fewer than `want` means the input
/// ended.
pub(crate) fn fill_growing<R: Read + ?Sized>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    want: usize,
) -> Result<usize, Error> {
    let mut got = 0;
    loop {
        let end = buf.len().min(want);
        got += read_full(reader, &mut buf[got..end])?;
        if got < end || got == want {
            return Ok(got);
        }
        let new = want.min(buf.len().max(STREAM_FIRST / 2).saturating_mul(2));
        buf.try_reserve_exact(new - buf.len())
            .map_err(|_| oom(new))?;
        buf.resize(new, 0);
    }
}

/// Size of the chunks in which swapped or gathered data is written.
const WRITE_CHUNK: usize = 256 << 10;

/// Writes `data` in file byte order: as it is when `swap` is false, else through a reusable
/// chunk in which the bytes are swapped.
pub(crate) fn write_slice<T: Pod, W: Write + ?Sized>(
    data: &[T],
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    if !swap || T::SWAP <= 1 {
        writer.write_all(as_bytes(data))?;
        return Ok(());
    }
    let per_chunk = (WRITE_CHUNK / size_of::<T>().max(1)).max(1);
    let mut buf: Vec<T> = Vec::with_capacity(per_chunk.min(data.len()));
    for chunk in data.chunks(per_chunk) {
        buf.clear();
        buf.extend_from_slice(chunk);
        swap_in_place(as_bytes_mut(&mut buf), T::SWAP);
        writer.write_all(as_bytes(&buf))?;
    }
    Ok(())
}

/// Writes the elements of `iter` in order, gathered into reusable chunks (one `write_all`
/// per chunk, never one per element).
pub(crate) fn write_iter<'a, T: Pod, W: Write + ?Sized>(
    iter: impl Iterator<Item = &'a T>,
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    let per_chunk = (WRITE_CHUNK / size_of::<T>().max(1)).max(1);
    let mut buf: Vec<T> = Vec::with_capacity(per_chunk);
    let mut flush = |buf: &mut Vec<T>| -> Result<(), Error> {
        if swap {
            swap_in_place(as_bytes_mut(buf), T::SWAP);
        }
        writer.write_all(as_bytes(buf))?;
        buf.clear();
        Ok(())
    };
    for x in iter {
        buf.push(*x);
        if buf.len() == per_chunk {
            flush(&mut buf)?;
        }
    }
    if !buf.is_empty() {
        flush(&mut buf)?;
    }
    Ok(())
}

/// The most bytes the tiled gather buffers.
const TILE_BUDGET: usize = 4 << 20;

/// Writes `view` in C order. Contiguous: one write. If some axis has a smaller stride than the
/// last one (a transposed or permuted view), the data is gathered in tiles: a few consecutive
/// indices of that axis are read together, so each cache line fetched is used for several
/// outputs instead of one. Otherwise lane by lane.
pub(crate) fn write_view<T: Pod, W: Write + ?Sized>(
    view: ArrayViewD<'_, T>,
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    if let Some(slice) = view.as_slice() {
        return write_slice(slice, writer, swap);
    }
    let nd = view.ndim();
    let last = nd.saturating_sub(1);
    let fastest = (0..nd)
        .filter(|&a| view.shape()[a] > 1)
        .min_by_key(|&a| view.strides()[a].unsigned_abs());
    let tile_axis = match fastest {
        // Tile only when one index of p is a bounded output block, so memory stays small.
        Some(p)
            if p != last
                && view.strides()[p].unsigned_abs() < view.strides()[last].unsigned_abs()
                && view.shape()[p + 1..].iter().product::<usize>() * size_of::<T>()
                    <= TILE_BUDGET / 2 =>
        {
            p
        }
        _ => {
            let elems = view
                .lanes(Axis(last))
                .into_iter()
                .flat_map(|l| l.into_iter());
            return write_iter(elems, writer, swap);
        }
    };
    write_tiled(view, tile_axis, writer, swap)
}

/// The tiled gather of [`write_view`]: for each index of the axes before `p`, blocks of up to
/// 16 consecutive indices along `p` are copied into a C-ordered buffer, reading along `p`
/// innermost.
fn write_tiled<T: Pod, W: Write + ?Sized>(
    view: ArrayViewD<'_, T>,
    p: usize,
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    let shape = view.shape().to_vec();
    // Elements after axis p, per index of p: the contiguous output block of one p index.
    let inner: usize = shape[p + 1..].iter().product();
    let tile = (TILE_BUDGET / (inner * size_of::<T>()).max(1)).clamp(1, 16);
    let mut buf: Vec<T> = Vec::with_capacity(tile.min(shape[p]) * inner);
    // Every index of the axes before p, in C order.
    let lead = &shape[..p];
    let mut idx = vec![0usize; p];
    for flat in 0..lead.iter().product::<usize>() {
        let mut rem = flat;
        for axis in (0..p).rev() {
            idx[axis] = rem % lead[axis];
            rem /= lead[axis];
        }
        let mut sub = view.view();
        for &i in &idx {
            sub = sub.index_axis_move(Axis(0), i);
        }
        let mut start = 0;
        while start < shape[p] {
            let t = tile.min(shape[p] - start);
            let block = sub.slice_axis(Axis(0), (start..start + t).into());
            buf.clear();
            buf.resize(t * inner, zeroed_value::<T>());
            // The buffer as a C-ordered (t, rest...) array; copy lane by lane along p, so
            // each source cache line is read once for t outputs.
            let mut out =
                ArrayViewMutD::from_shape(block.raw_dim(), &mut buf[..]).map_err(|_| {
                    FormatError::ShapeOverflow {
                        shape: shape.clone(),
                        itemsize: size_of::<T>(),
                    }
                })?;
            Zip::from(out.lanes_mut(Axis(0)))
                .and(block.lanes(Axis(0)))
                .for_each(|mut o, b| o.assign(&b));
            if swap {
                swap_in_place(as_bytes_mut(&mut buf), T::SWAP);
            }
            writer.write_all(as_bytes(&buf))?;
            start += t;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_handles_misaligned_buffers() {
        let mut backing = [0u8; 17];
        let bytes = &mut backing[1..17];
        bytes.copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        swap_in_place(bytes, 8);
        assert_eq!(
            bytes,
            [8, 7, 6, 5, 4, 3, 2, 1, 16, 15, 14, 13, 12, 11, 10, 9]
        );
        swap_in_place(bytes, 2);
        assert_eq!(
            bytes,
            [7, 8, 5, 6, 3, 4, 1, 2, 15, 16, 13, 14, 11, 12, 9, 10]
        );
        swap_in_place(&mut [], 4);
    }

    /// Every way `read_plain` gets its memory: known length, reserved at once, and grown.
    fn read_each_way(bytes: &[u8], n: usize) -> Vec<Result<Vec<u64>, Error>> {
        let whole = read_vec::<u64, _>(&mut &bytes[..], n, None);
        let known = read_vec::<u64, _>(&mut &bytes[..], n, Some(bytes.len() as u64));
        // SAFETY: every byte pattern is a valid u64.
        let grown =
            unsafe { read_plain_growing::<u64, _>(&mut &bytes[..], n, None, |_, _| Ok(())) };
        vec![whole, known, grown]
    }

    #[test]
    fn read_vec_reads_a_stream_each_way_and_reports_truncation() {
        let n = STREAM_PART / 8 * 3 + 5;
        let data: Vec<u64> = (0..n as u64).collect();
        let bytes = as_bytes(&data).to_vec();
        for back in read_each_way(&bytes, n) {
            assert_eq!(back.unwrap(), data);
        }
        let short = &bytes[..bytes.len() - 3];
        for err in read_each_way(short, n) {
            assert!(matches!(
                err.unwrap_err(),
                Error::Format(FormatError::Truncated { found, .. }) if found as usize == short.len()
            ));
        }
        let err = read_vec::<u64, _>(&mut &bytes[..], n, Some(10)).unwrap_err();
        assert!(matches!(
            err,
            Error::Format(FormatError::Truncated { found: 10, .. })
        ));
    }

    #[test]
    fn lazily_zeroed_capacity_reads_as_zero_at_every_alignment() {
        // Lengths around page boundaries, so the head, the madvised body and the tail all occur.
        for len in [1usize, 7, 4095, 4096, 4097, 3 * 4096 + 17, 1 << 20] {
            if let Some(mut v) = lazily_zeroed_capacity::<u8>(len) {
                assert_eq!(v.capacity(), len);
                // SAFETY: the spare capacity comes zeroed and is not written yet.
                let bytes = unsafe { spare_bytes(&mut v, len) };
                assert!(bytes.iter().all(|&b| b == 0), "len {len}");
            }
        }
        // Recycled memory is zeroed too: fill an allocation, free it, reserve again.
        for _ in 0..4 {
            drop(vec![0xAAu8; 3 << 20]);
            let mut v = lazily_zeroed_capacity::<u64>(3 << 17).unwrap_or_default();
            let n = v.capacity();
            // SAFETY: as above.
            let bytes = unsafe { spare_bytes(&mut v, n) };
            assert!(bytes.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn fill_growing_grows_only_with_what_arrives() {
        let mut buf = Vec::new();
        let got = fill_growing(&mut &[5u8; 100][..], &mut buf, 1 << 30).unwrap();
        assert_eq!(got, 100);
        assert!(buf.len() <= STREAM_FIRST, "{}", buf.len());
        let data: Vec<u8> = (0..300_000u32).map(|i| i as u8).collect();
        assert_eq!(
            fill_growing(&mut &data[..], &mut buf, data.len()).unwrap(),
            data.len()
        );
        assert_eq!(&buf[..data.len()], &data[..]);
    }

    #[test]
    fn tiled_gather_matches_naive_c_order() {
        use ndarray::{ArrayD, IxDyn};
        let shapes: [&[usize]; 4] = [&[37, 5, 3], &[2, 19, 4, 3], &[33, 2], &[3, 1, 17, 2]];
        for shape in shapes {
            let n: usize = shape.iter().product();
            let base = ArrayD::from_shape_vec(IxDyn(shape), (0..n as u64).collect()).unwrap();
            let nd = shape.len();
            // Every rotation of the axes puts the stride-1 axis somewhere else.
            for rot in 0..nd {
                let perm: Vec<usize> = (0..nd).map(|i| (i + rot) % nd).collect();
                let view = base.view().permuted_axes(IxDyn(&perm));
                for swap in [false, true] {
                    let mut ours = Vec::new();
                    write_view(view.view(), &mut ours, swap).unwrap();
                    let mut naive: Vec<u64> = view.iter().copied().collect();
                    if swap {
                        naive.iter_mut().for_each(|x| *x = x.swap_bytes());
                    }
                    assert_eq!(ours, as_bytes(&naive), "{shape:?} rot {rot} swap {swap}");
                }
            }
        }
    }

    #[test]
    fn empty_and_zero_length_reads() {
        let v: Vec<u32> = read_vec(&mut &[][..], 0, None).unwrap();
        assert!(v.is_empty());
        assert!(zeroed_capacity::<u8>(0).unwrap().is_empty());
        assert!(lazily_zeroed_capacity::<u8>(0).is_none_or(|v| v.capacity() == 0));
    }
}
