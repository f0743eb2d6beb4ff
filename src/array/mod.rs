//! One array's bytes in and out: whole reads from any reader (`read`), the encoder under
//! every writer (`encode`) and the writers (`write`), zero-copy views (`view`), region reads
//! (`region`), arrays whose dtype is known at run time (`dynamic`), row-wise readers and
//! writers of files larger than memory (`outofcore`), and memory-mapped files (`mmap`).

pub mod dynamic;
pub(crate) mod encode;
#[cfg(feature = "mmap")]
pub mod mmap;
pub(crate) mod nd;
pub(crate) mod options;
pub(crate) mod outofcore;
pub(crate) mod read;
pub(crate) mod region;
pub(crate) mod view;
pub(crate) mod write;

// The tests map files they created (`NpyMmapMut::create` is `unsafe` for files others may
// change).
#[cfg(test)]
#[allow(unsafe_code)]
mod durable_tests;
#[cfg(all(test, feature = "object_store"))]
mod ranged_tests;
