//! The bulk I/O engine: whole arrays read straight into their own allocation in one pass
//! (or, when the input's length is unknown, into a lazy reservation, or growing with the bytes
//! that arrive), decoded types filled in bounded chunks, and writes of whole slices or
//! 256 KiB chunks of a gathered or swapped copy.
//!
//! Unsafe here: reading into a vector's zeroed spare capacity and setting its length to what
//! arrived.
#![allow(unsafe_code)]

use super::pod::*;
use super::reserve::*;
use super::Input;
use super::Strided;
use crate::base::error::{truncated, Error, FormatError};
use crate::platform::ioutil::read_full;
use crate::platform::prefault;
use std::io::{Read, Write};
use std::mem::size_of;

/// Fails as [`truncated`] when the input is known to hold fewer than the `nbytes` bytes of
/// array data, before anything is allocated.
pub fn check_available(nbytes: usize, available: Option<u64>) -> Result<(), Error> {
    match available {
        Some(avail) if avail < nbytes as u64 => Err(truncated(nbytes as u64, avail)),
        _ => Ok(()),
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
pub fn read_vec<T: Pod, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    input: Input,
) -> Result<Vec<T>, Error> {
    // SAFETY: every byte pattern is a valid `T` (`T: Pod`), so accepting every part is right.
    unsafe { read_plain(reader, len, input, None, |_, _| Ok(())) }
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
pub unsafe fn read_plain<T, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    input: Input,
    part: Option<usize>,
    mut check: impl FnMut(usize, &[u8]) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    let size = size_of::<T>();
    debug_assert!(size > 0);
    // The caller checked len * size against isize::MAX (Header::sizes).
    let nbytes = len * size;
    check_available(nbytes, input.available)?;
    // The same memory for every door: reserved at once, committed as data lands (a fresh
    // calloc of a size the allocator recycles would be cleared with a memset first, which
    // cost a 33 MB record read twice its time). With the length known and checked, a failed
    // reservation is an out-of-memory error; without it, the array grows instead.
    let whole = match input.available {
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
        Some(part) => prefault::fill_parts(
            reader,
            bytes,
            part.max(1) * size,
            input.slow,
            |offset, bytes| {
                check(offset / size, bytes)?;
                valid = (offset + bytes.len()) / size;
                Ok::<(), Error>(())
            },
        ),
        None => prefault::fill(reader, bytes, input.slow)
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
        return Err(truncated(nbytes as u64, got as u64));
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
            return Err(truncated(nbytes as u64, (done * size + got) as u64));
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
pub const MAX_ZERO_SIZE_BYTES: usize = 16 << 20;

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
pub fn read_decoded<T, R: Read + ?Sized>(
    reader: &mut R,
    len: usize,
    itemsize: usize,
    input: Input,
    mut decode: impl FnMut(&[u8], usize, usize, &mut Vec<T>) -> Result<(), Error>,
) -> Result<Vec<T>, Error> {
    // The caller's header check bounds len * itemsize by isize::MAX.
    let nbytes = len * itemsize;
    check_available(nbytes, input.available)?;
    if itemsize == 0 {
        let limit = MAX_ZERO_SIZE_BYTES / size_of::<T>().max(1);
        if len > limit {
            return Err(crate::base::error::LimitError::ArrayTooLarge {
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
            return Err(truncated(nbytes as u64, (done * itemsize + got) as u64));
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
pub fn fill_growing<R: Read + ?Sized>(
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

/// The bytes of the elements one part of [`fill_by_parts`] decodes.
const INTO_PART: usize = 64 << 10;

/// Reads elements stored as `dtype` into `slots`, in their order: parts of at most
/// `INTO_PART` bytes of elements read with `read_vec` and moved in (at least one read, so
/// that no slots still check the dtype). The engine of
/// [`ReadableElement::read_into`](super::ReadableElement::read_into) for decoded types, and
/// of a read into a buffer laid out otherwise than the data.
pub fn fill_by_parts<'a, T, R>(
    reader: &mut R,
    dtype: &crate::base::dtype::DType,
    mut slots: impl ExactSizeIterator<Item = &'a mut T>,
) -> Result<(), Error>
where
    T: super::ReadableElement + 'a,
    R: Read + ?Sized,
{
    let per_part = (INTO_PART / size_of::<T>().max(1)).max(1);
    let (len, itemsize) = (slots.len(), dtype.itemsize() as u64);
    if len == 0 {
        T::read_vec(reader, dtype, 0, Input::new(None))?;
    }
    let mut done = 0;
    while done < len {
        let k = (len - done).min(per_part);
        let values = T::read_vec(reader, dtype, k, Input::new(None))
            .map_err(|e| in_whole(e, done as u64 * itemsize, len as u64 * itemsize))?;
        for (slot, value) in slots.by_ref().zip(values) {
            *slot = value;
        }
        done += k;
    }
    Ok(())
}

/// A truncation error `e` of a part of the data that starts `before` bytes into data of
/// `total` bytes, restated for the whole data (any other error as it is).
fn in_whole(e: Error, before: u64, total: u64) -> Error {
    match (e.fault(), e.byte_counts()) {
        (Some(crate::base::error::Fault::Truncated), Some((_, found))) => {
            truncated(total, before.saturating_add(found))
        }
        _ => e,
    }
}

/// Reads exactly `out.len()` bytes of array data into `out` (plain values read in place),
/// or fails as [`truncated`].
pub fn read_exact_into<R: Read + ?Sized>(reader: &mut R, out: &mut [u8]) -> Result<(), Error> {
    let got = read_full(reader, out)?;
    if got < out.len() {
        return Err(truncated(out.len() as u64, got as u64));
    }
    Ok(())
}

/// Size of the chunks in which swapped or gathered data is written.
const WRITE_CHUNK: usize = 256 << 10;

/// Writes `data` in file byte order: as it is when `swap` is false, else through a reusable
/// chunk in which the bytes are swapped.
pub fn write_slice<T: Pod, W: Write + ?Sized>(
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
pub fn write_iter<'a, T: Pod, W: Write + ?Sized>(
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
/// outputs instead of one. Otherwise element by element, in C order.
pub fn write_strided<T: Pod, W: Write + ?Sized>(
    view: Strided<'_, T>,
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    if let Some(slice) = view.as_slice() {
        return write_slice(slice, writer, swap);
    }
    let shape = view.shape();
    let nd = view.ndim();
    let last = nd.saturating_sub(1);
    let fastest = (0..nd)
        .filter(|&a| shape[a] > 1)
        .min_by_key(|&a| view.stride(a).unsigned_abs());
    match fastest {
        // Tile only when one index of p is a bounded output block, so memory stays small.
        Some(p)
            if p != last
                && view.stride(p).unsigned_abs() < view.stride(last).unsigned_abs()
                && shape[p + 1..].iter().product::<usize>() * size_of::<T>() <= TILE_BUDGET / 2 =>
        {
            write_tiled(view, p, writer, swap)
        }
        // Rows along a contiguous last axis, a run at a time; else element by element.
        _ => match view.rows() {
            Some(rows) => write_iter(rows.flatten(), writer, swap),
            None => write_iter(view.iter(), writer, swap),
        },
    }
}

/// The tiled gather of [`write_strided`]: for each index of the axes before `p`, blocks of up
/// to 16 consecutive indices along `p` are copied into a C-ordered buffer, reading along `p`
/// innermost.
fn write_tiled<T: Pod, W: Write + ?Sized>(
    view: Strided<'_, T>,
    p: usize,
    writer: &mut W,
    swap: bool,
) -> Result<(), Error> {
    let shape = view.shape();
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
        let mut start = 0;
        while start < shape[p] {
            let t = tile.min(shape[p] - start);
            buf.clear();
            buf.resize(t * inner, zeroed_value::<T>());
            // The buffer is C-ordered (t, rest...); the block is read along p, so each source
            // cache line is read once for t outputs.
            if !view.copy_block(&idx, p, start, &mut buf) {
                return Err(FormatError::ShapeOverflow {
                    shape: shape.to_vec(),
                    itemsize: size_of::<T>(),
                }
                .into());
            }
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
        let whole = read_vec::<u64, _>(&mut &bytes[..], n, Input::default());
        let known = read_vec::<u64, _>(&mut &bytes[..], n, Input::new(Some(bytes.len() as u64)));
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
            let err = err.unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Truncated);
            assert_eq!(err.byte_counts().unwrap().1, short.len() as u64);
        }
        let err = read_vec::<u64, _>(&mut &bytes[..], n, Input::new(Some(10))).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Truncated);
        assert_eq!(err.byte_counts().unwrap().1, 10);
    }

    #[test]
    fn lazily_zeroed_capacity_reads_as_zero_at_every_alignment() {
        // Lengths around page boundaries, so the head, the madvised body and the tail all occur.
        let lazy = ZEROED_AT_ONCE + 4097;
        for len in [1usize, 7, 4095, 4096, 4097, 3 * 4096 + 17, lazy] {
            if let Some(mut v) = lazily_zeroed_capacity::<u8>(len) {
                assert_eq!(v.capacity(), len);
                // SAFETY: the spare capacity comes zeroed and is not written yet.
                let bytes = unsafe { spare_bytes(&mut v, len) };
                assert!(bytes.iter().all(|&b| b == 0), "len {len}");
            }
        }
        // Recycled memory is zeroed too: fill an allocation, free it, reserve again.
        let big = if cfg!(miri) { 3 << 12 } else { 3 << 20 };
        for _ in 0..4 {
            drop(vec![0xAAu8; big]);
            let mut v = lazily_zeroed_capacity::<u64>(big / 8).unwrap_or_default();
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
        // The buffer grows three times (once under Miri, where every byte is slow).
        let len = if cfg!(miri) {
            STREAM_FIRST + 7
        } else {
            300_000
        };
        let data: Vec<u8> = (0..len as u32).map(|i| i as u8).collect();
        assert_eq!(
            fill_growing(&mut &data[..], &mut buf, data.len()).unwrap(),
            data.len()
        );
        assert_eq!(&buf[..data.len()], &data[..]);
    }

    #[test]
    fn tiled_gather_matches_naive_c_order() {
        let shapes: [&[usize]; 4] = [&[37, 5, 3], &[2, 19, 4, 3], &[33, 2], &[3, 1, 17, 2]];
        // Under Miri the first shape only (its rotations still put the stride-1 axis first,
        // in the middle and last).
        let shapes = if cfg!(miri) {
            &shapes[..1]
        } else {
            &shapes[..]
        };
        for &shape in shapes {
            let n: usize = shape.iter().product();
            let data: Vec<u64> = (0..n as u64).collect();
            let nd = shape.len();
            let c: Vec<isize> = (0..nd)
                .map(|a| shape[a + 1..].iter().product::<usize>() as isize)
                .collect();
            // Every rotation of the axes puts the stride-1 axis somewhere else.
            for rot in 0..nd {
                let perm: Vec<usize> = (0..nd).map(|i| (i + rot) % nd).collect();
                let sh: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
                let st: Vec<isize> = perm.iter().map(|&a| c[a]).collect();
                // SAFETY: a permutation of `data`'s C strides reaches each element once.
                let view = unsafe { Strided::from_raw_parts(data.as_ptr(), &sh, &st) };
                for swap in [false, true] {
                    let mut ours = Vec::new();
                    write_strided(view, &mut ours, swap).unwrap();
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
        let v: Vec<u32> = read_vec(&mut &[][..], 0, Input::default()).unwrap();
        assert!(v.is_empty());
        assert!(zeroed_capacity::<u8>(0).unwrap().is_empty());
        assert!(lazily_zeroed_capacity::<u8>(0).is_none_or(|v| v.capacity() == 0));
    }
}
