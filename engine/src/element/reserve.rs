//! Reserving an array's memory before its bytes arrive: zeroed by the allocator (fresh pages,
//! not a `memset`), or reserved lazily on Linux so that only the pages data lands in are
//! committed, with transparent huge pages requested for large arrays.
//!
//! Unsafe here: the spare capacity of a vector viewed as bytes (zeroed, so initialised), and
//! asking the kernel to drop or back pages (`sys::advise`).
#![allow(unsafe_code)]

use crate::base::error::Error;
use std::alloc::{self, Layout};
use std::mem::size_of;

/// An empty vector with room for exactly `len` elements whose spare capacity is zeroed by the
/// allocator (fresh pages from the kernel, not a `memset`), with huge pages advised (see
/// [`advise_huge_pages`]). The caller may view that spare capacity as initialised bytes until it
/// writes there; nothing about `T` is assumed, so no `Pod` bound.
///
/// # Errors
///
/// An `OutOfMemory` I/O error if the allocation fails or `[T; len]` is too large.
pub fn zeroed_capacity<T>(len: usize) -> Result<Vec<T>, Error> {
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

pub fn oom(bytes: usize) -> Error {
    Error::out_of_memory(bytes, "the array")
}

/// Asks Linux to back `[ptr, ptr + len)` with transparent huge pages, as numpy does for
/// buffers of 4 MiB and more. Fresh 4 KiB pages cost about twice as much to fault in as the
/// copy into them; 2 MiB pages make the read run at memory speed.
#[allow(unused_variables)]
pub fn advise_huge_pages(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if len < 4 << 20 {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if end > start {
            // Keep the allocation's provenance: an offset from `ptr`, not an address cast.
            let first = ptr.wrapping_add(start - ptr as usize);
            // SAFETY: the range lies inside one live allocation owned by the caller and is
            // aligned to 2 MiB; MADV_HUGEPAGE only changes how the kernel backs the pages,
            // never their contents, and a failure (e.g. THP disabled) is harmless.
            unsafe {
                crate::platform::sys::advise(
                    first,
                    end - start,
                    crate::platform::sys::Advice::HugePage,
                );
            }
        }
    }
}

/// The largest claim of unknown length allocated zeroed at once (see
/// [`lazily_zeroed_capacity`]).
/// (Under Miri, which interprets every byte, 64 KiB, so that its tests reach the lazy path.)
pub const ZEROED_AT_ONCE: usize = if cfg!(miri) { 64 << 10 } else { 16 << 20 };

/// When the input's length is unknown and the whole array cannot be reserved at once: the
/// first reservation ...
pub const STREAM_FIRST: usize = 64 << 10;
/// ... and the parts in which data is zeroed and read (each is zeroed just before it is read
/// into, so it is in cache when the bytes land).
/// (Under Miri, 128 KiB, so that its tests read several parts in a tenth of the bytes.)
pub const STREAM_PART: usize = if cfg!(miri) { 128 << 10 } else { 2 << 20 };

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
pub fn lazily_zeroed_capacity<T>(len: usize) -> Option<Vec<T>> {
    if len.saturating_mul(size_of::<T>()) <= ZEROED_AT_ONCE {
        return zeroed_capacity(len).ok();
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(len).ok()?;
        // The capacity's bytes fit in isize: the allocation exists.
        let bytes = v.capacity() * size_of::<T>();
        let page = crate::platform::sys::page_size()?;
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
                && !crate::platform::sys::advise(
                    base.add(head),
                    body_end - head,
                    crate::platform::sys::Advice::DontNeed,
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
pub unsafe fn spare_bytes<T>(v: &mut Vec<T>, k: usize) -> &mut [u8] {
    let spare = v.spare_capacity_mut();
    let k = k.min(spare.len());
    // SAFETY: the range lies in the vector's spare capacity, which `v` owns and nothing else
    // borrows while the result (tied to `&mut v`) lives; the caller guarantees the bytes are
    // initialised, and `u8` has alignment 1 and no invalid values.
    unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<u8>(), k * size_of::<T>()) }
}

/// Like [`spare_bytes`], zeroing the bytes first, so it is safe.
pub fn zeroed_spare_bytes<T>(v: &mut Vec<T>, k: usize) -> &mut [u8] {
    let spare = v.spare_capacity_mut();
    let k = k.min(spare.len());
    // SAFETY: the first `k` elements of the spare capacity belong to `v`; `write_bytes`
    // initialises their bytes, which makes the `spare_bytes` call sound.
    unsafe {
        std::ptr::write_bytes(spare.as_mut_ptr().cast::<u8>(), 0, k * size_of::<T>());
        spare_bytes(v, k)
    }
}
