//! The integration tests, as one binary: each module is one area (its own `//!` says what it
//! covers), all linked against the crate once instead of once per file.
//!
//! A module that needs a feature or a platform is compiled only with it, as its file was when
//! it was a binary of its own. Tests that need a process to themselves (a resource limit, a
//! peak resident size) run their case in a child process, this binary run again with only
//! that test selected (see `common::child_peak_rss` and `common::run_in_child`). Only
//! `tests/kill.rs` stays a binary of its own: it is its own `main`, and kills its children.
//!
//! Run one area with `cargo test --all-features --test it npz::`.

#[path = "../common/mod.rs"]
mod common;
mod error_checks;
mod own;

#[cfg(target_os = "linux")]
mod appender_io_errors;
#[cfg(feature = "arrow")]
mod arrow;
#[cfg(all(feature = "mmap", feature = "npz"))]
mod atomic;
mod doors;
mod dtypes;
#[cfg(all(target_os = "linux", feature = "derive", feature = "npz"))]
mod hostile_alloc;
#[cfg(all(feature = "npz", target_os = "linux"))]
mod hostile_npz;
mod layouts;
mod malformed;
mod messages;
#[cfg(feature = "half")]
mod ml_dtypes;
#[cfg(not(feature = "half"))]
mod no_half;
#[cfg(not(feature = "object"))]
mod no_object;
#[cfg(feature = "npz")]
mod npz;
#[cfg(feature = "npz")]
mod npz_member;
#[cfg(feature = "npz")]
mod npz_source;
// The sweeps of every dtype numpy writes, `f2` included, need the feature `half`.
#[cfg(all(feature = "npz", feature = "half"))]
mod npz_numpy;
#[cfg(feature = "half")]
mod numpy;
#[cfg(feature = "object")]
mod object;
#[cfg(feature = "mmap")]
mod out_of_core;
#[cfg(all(feature = "parallel", feature = "npz", unix))]
mod parallel_read;
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(all(feature = "npz", feature = "derive"))]
mod read_into;
#[cfg(all(feature = "mmap", unix))]
mod read_while_growing;
#[cfg(all(feature = "derive", feature = "npz"))]
mod record_times;
// Its records hold an `f2` field among every other kind.
#[cfg(all(feature = "derive", feature = "mmap", feature = "half"))]
mod records;
#[cfg(all(feature = "mmap", feature = "npz", feature = "derive"))]
mod region;
mod roundtrip;
#[cfg(feature = "derive")]
mod roundtrip_records;
mod roundtrip_strings;
mod roundtrip_times;
#[cfg(feature = "safetensors")]
mod safetensors;
mod source;
mod surrogates;
#[cfg(feature = "half")]
mod testdata;
#[cfg(all(feature = "npz", feature = "mmap"))]
mod write_options;
