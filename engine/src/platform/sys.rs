//! The operating system calls this crate makes (through `libc`), each behind a function
//! that states its contract: file locks, linking an unnamed file, renaming without replacing,
//! reserving a file's extent, page advice, the page size. The modules above call these and
//! hold no foreign calls of their own.
//!
//! Encapsulates: FFI calls, whose arguments are descriptors borrowed from `File`s, C strings
//! that live across the call, or (for page advice) address ranges the caller vouches for.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::path::Path;

/// The outcome of trying to lock a file without waiting.
#[cfg_attr(not(all(unix, not(target_os = "solaris"))), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// This open file now holds the exclusive lock.
    Acquired,
    /// Another open file holds a lock.
    Held,
    /// Locks are not available here (platform or filesystem).
    Unsupported,
}

/// Tries to take an exclusive `flock` on `file` without waiting.
pub fn try_lock(file: &File) -> Lock {
    #[cfg(all(unix, not(target_os = "solaris")))]
    {
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: the descriptor is valid while `file` is borrowed; flock touches no
            // memory of ours.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Lock::Acquired;
            }
            match io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return Lock::Held,
                _ => return Lock::Unsupported,
            }
        }
    }
    #[cfg(not(all(unix, not(target_os = "solaris"))))]
    {
        let _ = file;
        Lock::Unsupported
    }
}

/// Releases a lock [`try_lock`] took (for every descriptor of the same open file).
pub fn unlock(file: &File) {
    #[cfg(all(unix, not(target_os = "solaris")))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: as in try_lock. Unlocking a file that holds no lock is harmless.
        unsafe {
            libc::flock(file.as_raw_fd(), libc::LOCK_UN);
        }
    }
    #[cfg(not(all(unix, not(target_os = "solaris"))))]
    let _ = file;
}

/// A C string of `path`.
#[cfg(target_os = "linux")]
fn c_path(path: &Path) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

/// Gives the unnamed file `file` the name `to`; fails with `AlreadyExists` if it exists.
#[cfg(target_os = "linux")]
pub fn link_unnamed(file: &File, to: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let from = c_path(Path::new(&format!("/proc/self/fd/{}", file.as_raw_fd())))?;
    let to = c_path(to)?;
    // SAFETY: both strings are NUL-terminated and live across the call, which only reads
    // them; the descriptor named by `from` is valid while `file` is borrowed.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub fn link_unnamed(_file: &File, _to: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Renames `from` to `to` unless `to` exists (`AlreadyExists` then).
#[cfg(target_os = "linux")]
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: renameat2 only reads the two NUL-terminated strings, which live across the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub fn rename_noreplace(_from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Asks the filesystem to allocate `[offset, offset + len)` without changing the file size.
#[allow(unused_variables)]
pub fn reserve(file: &File, offset: u64, len: u64) {
    // Miri cannot run fallocate; it only reserves, so skipping it changes nothing read.
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        use std::os::fd::AsRawFd;
        // 64-bit offsets on every target: glibc's `fallocate` takes a 32-bit `off_t` on
        // 32-bit targets, `fallocate64` does not; musl's `off_t` is 64-bit everywhere.
        #[cfg(any(target_env = "musl", target_env = "ohos"))]
        use libc::fallocate;
        #[cfg(not(any(target_env = "musl", target_env = "ohos")))]
        use libc::fallocate64 as fallocate;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: the descriptor is valid while `file` is borrowed; fallocate reads and writes
        // no memory of ours, and with KEEP_SIZE it changes neither the size nor the contents
        // of the file. A failure (unsupported filesystem) is harmless and ignored.
        unsafe {
            fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len);
        }
    }
}

/// The size of a memory page, if the system says.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn page_size() -> Option<usize> {
    // SAFETY: sysconf takes no pointers.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|p| p.is_power_of_two())
}

/// What [`advise`] asks of the kernel for a range of anonymous memory.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[derive(Debug, Clone, Copy)]
pub enum Advice {
    /// Back the range with huge pages where possible (never changes contents).
    HugePage,
    /// Drop the range's pages: the next access sees zero-filled pages.
    DontNeed,
    /// Fault the range's pages in for writing now (never changes what a program reads).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    PopulateWrite,
}

/// `madvise(addr, len, advice)`; false if the kernel refused.
///
/// # Safety
///
/// `addr..addr + len` must be page-aligned at its start and lie in memory mapped for the
/// whole call. For [`Advice::DontNeed`] the caller must own the range, hold nothing in it that
/// anyone relies on, and treat its bytes as zero afterwards; the other advice never changes
/// what the range reads as.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub unsafe fn advise(addr: *mut u8, len: usize, advice: Advice) -> bool {
    // Miri cannot run madvise: there it is refused, as a kernel may refuse it, and every
    // caller takes its path for a refusal.
    if cfg!(miri) {
        return false;
    }
    let advice = match advice {
        Advice::HugePage => libc::MADV_HUGEPAGE,
        Advice::DontNeed => libc::MADV_DONTNEED,
        Advice::PopulateWrite => libc::MADV_POPULATE_WRITE,
    };
    // SAFETY: the caller's contract above.
    unsafe { libc::madvise(addr.cast(), len, advice) == 0 }
}
