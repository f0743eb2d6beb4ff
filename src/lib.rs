//! Read and write NumPy's `.npy` and `.npz` files as [`ndarray`] arrays: every file numpy
//! writes, written back byte for byte as `np.save` would, faster than `np.load`.
//!
//! # The map
//!
//! - **Reading**: [`read_npy`] (a path) and [`ReadNpyExt`] (any [`Read`](std::io::Read), any
//!   dimension, several arrays in one stream), both reading the array in one pass into memory
//!   reserved at once and committed only as data arrives (on Linux; elsewhere a stream's array
//!   grows with the bytes that arrive). A `File`, `BufReader<File>`, `&[u8]` or `Cursor` is
//!   read through the file or bytes behind it, the way a path is. Limits for untrusted input,
//!   and how many threads a large read of a file or of memory may use (two by default on
//!   Unix): [`ReadOptions`], [`ReadOptions::read_npy`].
//! - **Writing**: [`write_npy`], [`create_new_npy`] and [`WriteNpyExt`] (any layout; C and
//!   Fortran order kept, other layouts written in C order; a `File` or `BufWriter<File>`
//!   written as a path is), with a chosen byte order through [`WriteOptions`]. Files are
//!   written atomically (a killed process never leaves a partial file, nor a temporary one
//!   that the next write does not remove), and durably on request
//!   ([`WriteOptions::durable`], [`WriteOptions::write_npy`]); [`write_file_atomically`]
//!   publishes bytes of one's own (a streaming [`NpyWriter`]) the same way.
//! - **Zero-copy views**: [`ViewNpyExt`] and [`ViewMutNpyExt`] view `.npy` bytes in place
//!   (native byte order, aligned; C or Fortran layout).
//! - **Memory maps** (feature `mmap`, on by default): [`NpyMmap`] and [`NpyMmapMut`] open files
//!   read-only, read-write or copy-on-write, or create zero-filled sparse files, like numpy's
//!   `open_memmap`; [`write_zeroed_npy`] creates such a file from a `File`.
//! - **Out of core**: [`NpyReader`] reads a range of rows, single elements or an N-d region
//!   ([`NpyReader::read_slice`], ndarray's `s![..]`: only the selected bytes are read; also on
//!   [`NpyMmap`] and [`NpzMember`](npz::NpzMember)) from any `Read + Seek`, an object in a store
//!   too; [`NpyAppender`]
//!   grows a file on disk row by row, crash-safely;
//!   [`NpyWriter`] writes an array of known shape block by block.
//! - **Object stores** (feature `object_store`): [`RemoteFile`][remote-file] is an object
//!   of any store of the `object_store` crate (S3 and S3-compatible servers, GCS, Azure, HTTP),
//!   by `(store, path)` or by URL, as a `Read + Seek` pinned to the version that was opened:
//!   every reader here reads it as a local file ([`NpyReader`] fetching only the ranges a
//!   region needs, concurrently; [`NpzReader`] members by name). [`RemoteWriter`][remote-writer]
//!   is a `Write` whose bytes become a concurrent multipart upload, visible only once complete;
//!   [`SpooledRemoteWriter`][spooled-remote-writer] takes an [`NpzWriter`] to a store.
//! - **Archives** (feature `npz`, on by default): [`NpzReader`] reads `.npz` files
//!   (`np.savez`, `np.savez_compressed`, streamed, zip64) lazily, member by member, with
//!   numpy's key rules. [`NpzReader::by_name`] and [`NpzReader::by_index`] read an array, as
//!   in ndarray-npy; [`NpzReader::member`] finds one member by key or index and gives a
//!   handle, [`NpzMember`](npz::NpzMember), for all the rest: its directory facts, its header alone, its array
//!   of any dtype ([`NpzMember::read_dyn`](npz::NpzMember::read_dyn)), its raw bytes (for members that are not arrays),
//!   and a zero-copy [`NpzMember::view`](npz::NpzMember::view) of a stored member. [`NpzWriter`] writes archives
//!   `np.load` reads, stored or deflated per member ([`NpzWriteOptions`](npz::NpzWriteOptions)), deterministic,
//!   zip64 when needed, optionally 64-byte aligned so that stored members can be viewed in
//!   place. Deflated members are inflated by the crate's own decoder, straight into the
//!   array. With the `parallel` feature, [`NpzReader::read_all`] inflates members on all
//!   cores. Without asking (on Unix, unless [`ReadOptions::threads`] is 1): inflating a
//!   member of 16 MiB or more, a helper thread faults the array's pages in just ahead of the
//!   inflater, never further past the bytes inflated than those bytes nor more than 16 MiB
//!   (Linux); reading 16 MiB or more of a stored member, two threads read parts of an
//!   archive that is a file and hash each part (from other sources, a helper thread runs
//!   the CRC-32).
//! - **Conversions**: [`safetensors`][safetensors-mod] (feature `safetensors`): `.npz`/`.npy`
//!   weights to safetensors files and back, streamed, byte for byte what the Python package
//!   writes. [`arrow`][arrow-mod] (feature `arrow`): arrays to arrow-rs arrays and record
//!   batches and back (numbers without a copy). [`parquet`][parquet-mod] (feature
//!   `parquet`): `.npy` to Parquet streamed in row groups, `.npz` members as columns, Parquet
//!   back to `.npy`.
//! - **Headers**: [`Header`] reads and writes the header alone, with numpy's version choice
//!   and padding; [`HeaderInfo`](header::HeaderInfo) adds the version and data offset of a file.
//! - **Dtypes**: [`DType`] parses and formats every `descr` numpy writes (scalars, strings,
//!   datetimes, records with padding and titles, sub-arrays), whether or not a Rust element
//!   type exists for it yet.
//! - **Element types**: [`ReadableElement`] and [`WritableElement`], implemented for `bool`,
//!   `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `num_complex::Complex<f32/f64>`, `half::f16`
//!   (feature `half`), strings (`String` and `&str` for
//!   `U`, `Vec<u8>` for `S`, fixed-size [`FixedUnicode`](element::FixedUnicode) and [`FixedBytes`](element::FixedBytes)), and
//!   [`Datetime64`] / [`Timedelta64`], which carry their unit (chrono conversions with feature
//!   `chrono`), and `half::bf16` (feature `half`) for the bfloat16 arrays JAX and ml_dtypes save: numpy stores
//!   them as two-byte voids (`'<V2'`), so they are bf16 only when read, viewed or
//!   ([`DynArray::view_as`]) reinterpreted as `bf16`, and written as `np.save` writes them
//!   (in native order: numpy drops a void's byte order, so ml_dtypes would read the bytes of
//!   a `'>V2'` file as native; this crate reads either order). [`FixedDType`](element::FixedDType) marks the types whose dtype does not depend on the values.
//! - **Dtypes known at run time**: [`read_npy_dyn`] and [`DynArray`] read any file into typed
//!   arrays or raw bytes (records, void, long double), take record fields out by name, and
//!   write back the same bytes; `U` strings holding lone surrogates are kept as code points
//!   ([`DynData::CodePoints`]), converted to `String` only by [`DynArray::into_strings`].
//! - **Object arrays** (`|O`, pickled; feature `object`, off by default): read through
//!   [`read_npy_dyn`], [`DynArray`] and [`NpzReader::by_name_dyn`] by a pickle reader that
//!   interprets data and never runs code (only numpy's array, dtype and scalar reconstruction
//!   and Python's data types are resolved; any other global is an error naming it), into
//!   [`PyValue`]s: `None`, bools, ints of any size, floats, complex, `str`, bytes, lists,
//!   tuples, dicts, sets, ranges, numpy scalars, nested arrays of any dtype (ragged arrays,
//!   `StringDType`, recarrays) and masked arrays; written as `np.save` writes them. Typed
//!   conveniences: [`DynArray::into_item`][into-item] (a dict saved with `np.save`),
//!   [`DynArray::into_strings`], [`DynArray::into_optional_strings`][into-optional-strings],
//!   [`DynArray::into_arrays`][into-arrays] (ragged arrays). Without the feature the pickle
//!   code is not compiled, and an object array is an [`ErrorKind::DType`] error naming the
//!   feature.
//! - **Structured records**: `#[derive(NpyRecord)]` (feature `derive`, off by default) makes a
//!   struct of named fields an element whose dtype is a numpy record: numbers, `bool`,
//!   strings, fixed arrays (sub-arrays) and nested records as fields, matched by name when
//!   reading, written as `np.save` writes them; `#[repr(C)]` structs are also viewed in place.
//!   A datetime or timedelta field declares its unit in its type, [`DatetimeIn<unit::Days>`](element::DatetimeIn)
//!   for `datetime64[D]` ([`TimedeltaIn`](element::TimedeltaIn), the units in [`unit`](mod@unit)), and reads any unit that
//!   converts to it exactly.
//!   The traits are in [`record`]: [`RecordField`](record::RecordField) for field types, [`PlainField`](record::PlainField) for
//!   zero-copy ones, [`NpyRecord`](trait@NpyRecord) for the derived structs; what the derive's
//!   generated code calls is hidden (`record::derive_runtime`), not API.
//! - **Errors**: ndnpy's own API returns one [`Error`] type, one pointer wide: its
//!   [`kind`](Error::kind) ([`ErrorKind`]) says what went wrong, grouped by who is at fault
//!   (I/O or memory, malformed file, mismatch, limit, usage), and its accessors give the
//!   context (archive member, record index, field path, byte offset, the file's dtype and
//!   shape). ndarray-npy's functions and methods return ndarray-npy's error types, with its
//!   variants and messages ([`ReadNpyError`], [`WriteNpyError`], [`ViewNpyError`],
//!   `ReadNpzError`, `WriteNpzError`, and the rest in [`npy`]); each converts into [`Error`]
//!   and back.
//!
//! How the code behind this map is organised (its layers, the path of a read and of a write,
//! the invariants every change keeps) is `ARCHITECTURE.md` in the repository.
//!
//! # Switching from ndarray-npy 0.10
//!
//! The functions, traits, generic bounds, error types (their variants, fields and messages)
//! and feature names (`compressed_npz`, `npz`, `num-complex-0_4`) are ndarray-npy 0.10's, so
//! code written for it compiles with only the dependency line changed
//! (`ndarray-npy = { package = "ndnpy", ... }`), except code that implements the element
//! traits (sealed here: derive [`NpyRecord`](trait@NpyRecord) or implement
//! [`RecordField`](record::RecordField) instead) or calls their methods, which take
//! `py_literal`'s values in ndarray-npy (ndnpy's take a parsed [`DType`]), or uses
//! `ndarray_npy::npy::header::Header` (impls of [`ReadNpyExt`] and [`WriteNpyExt`] for types of
//! one's own compile as they are). Where ndarray-npy's error variants hold a
//! `py_literal::Value`, these hold a [`PyLiteral`](npy::PyLiteral), which prints the same.
//!
//! ndarray-npy's own tests, doc examples and examples pass against this crate apart from
//! those, and apart from tests that compare written files with copies from which numpy's
//! trailing comma in the header dict was removed: ndnpy writes `np.save`'s bytes.
//!
//! # Example
//!
//! ```
//! use ndarray::{array, Array2};
//! use ndnpy::{read_npy, write_npy, ReadNpyExt, WriteNpyExt};
//!
//! // A file numpy wrote: np.save("example.npy", np.arange(6.0).reshape(2, 3) * 0.5 - 1)
//! let a: Array2<f64> = read_npy("testdata/example.npy")?;
//! assert_eq!(a, array![[-1.0, -0.5, 0.0], [0.5, 1.0, 1.5]]);
//!
//! // Write the transpose: it is Fortran-contiguous, so it is stored as numpy would store it.
//! let mut bytes = Vec::new();
//! a.t().write_npy(&mut bytes)?;
//! let b = Array2::<f64>::read_npy(&bytes[..])?;
//! assert_eq!(b, a.t());
//! assert!(b.t().is_standard_layout()); // read back in Fortran layout, without reordering
//! # Ok::<(), ndnpy::Error>(())
//! ```
//!
//! # Limitations
//!
//! - Long doubles (`<f16`, `<f12`) are raw bytes (through [`DynArray`]): their format depends
//!   on the platform that wrote them. So are ml_dtypes' float8 and float4 arrays (`'<V1'`:
//!   [`RawData::bytes`](dynamic::RawData::bytes) holds their bits); no element type reads them.
//! - Object arrays are read from their pickle (protocols 0 to 5, numpy 1 and 2, Python 2
//!   files as `encoding='latin1'` reads them) when they hold Python data and numpy arrays
//!   (recarrays, and masked arrays of scalar dtypes, included); instances of other classes
//!   are refused by name, and so are masked arrays of records or objects and ranges whose
//!   bounds do not fit in `i64`. Records with object fields are not read.
//! - The header parser accepts the Python-literal subset numpy writes and has written (see
//!   [`DType::from_descr`] and the `literal` grammar in the source), not all of
//!   `ast.literal_eval`: no floats, bytes, sets, names other than `True`/`False`/`None`.
//! - Field names with characters outside Python 3.11's Unicode 14 printable set are escaped
//!   as Python 3.11 would; other Python versions may escape newer code points differently.
//! - `.npz` members must be stored or deflated (what numpy writes); encrypted members, other
//!   compression methods (bzip2, lzma, zstd) and archives spanning several disks give a clear
//!   error. Only stored, aligned members can be viewed in place ([`NpzMember::view`](npz::NpzMember::view));
//!   [`NpzReader::by_name`] copies any member.

// The map's links to modules of features that may be off: to the item when its feature is on,
// to its page on docs.rs (built with every feature) when not.
#![doc = ""]
#![cfg_attr(feature = "object_store", doc = "[remote-file]: remote::RemoteFile")]
#![cfg_attr(
    feature = "object_store",
    doc = "[remote-writer]: remote::RemoteWriter"
)]
#![cfg_attr(
    feature = "object_store",
    doc = "[spooled-remote-writer]: remote::SpooledRemoteWriter"
)]
#![cfg_attr(
    not(feature = "object_store"),
    doc = "[remote-file]: https://docs.rs/ndnpy/latest/ndnpy/remote/struct.RemoteFile.html"
)]
#![cfg_attr(
    not(feature = "object_store"),
    doc = "[remote-writer]: https://docs.rs/ndnpy/latest/ndnpy/remote/struct.RemoteWriter.html"
)]
#![cfg_attr(
    not(feature = "object_store"),
    doc = "[spooled-remote-writer]: https://docs.rs/ndnpy/latest/ndnpy/remote/struct.SpooledRemoteWriter.html"
)]
#![cfg_attr(feature = "object", doc = "[into-item]: DynArray::into_item")]
#![cfg_attr(
    not(feature = "object"),
    doc = "[into-item]: https://docs.rs/ndnpy/latest/ndnpy/dynamic/struct.DynArray.html#method.into_item"
)]
#![cfg_attr(
    feature = "object",
    doc = "[into-optional-strings]: DynArray::into_optional_strings"
)]
#![cfg_attr(
    not(feature = "object"),
    doc = "[into-optional-strings]: https://docs.rs/ndnpy/latest/ndnpy/dynamic/struct.DynArray.html#method.into_optional_strings"
)]
#![cfg_attr(feature = "object", doc = "[into-arrays]: DynArray::into_arrays")]
#![cfg_attr(
    not(feature = "object"),
    doc = "[into-arrays]: https://docs.rs/ndnpy/latest/ndnpy/dynamic/struct.DynArray.html#method.into_arrays"
)]
#![cfg_attr(feature = "safetensors", doc = "[safetensors-mod]: safetensors")]
#![cfg_attr(
    not(feature = "safetensors"),
    doc = "[safetensors-mod]: https://docs.rs/ndnpy/latest/ndnpy/safetensors/index.html"
)]
#![cfg_attr(feature = "arrow", doc = "[arrow-mod]: arrow")]
#![cfg_attr(
    not(feature = "arrow"),
    doc = "[arrow-mod]: https://docs.rs/ndnpy/latest/ndnpy/arrow/index.html"
)]
#![cfg_attr(feature = "parquet", doc = "[parquet-mod]: parquet")]
#![cfg_attr(
    not(feature = "parquet"),
    doc = "[parquet-mod]: https://docs.rs/ndnpy/latest/ndnpy/parquet/index.html"
)]
// Each feature-gated item says which feature it needs (docs.rs builds with `--cfg docsrs`).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// `unsafe` only in the modules that say at their top what they encapsulate (`#![allow(unsafe_code)]`).
#![deny(unsafe_code)]
// Lets the derive's `::ndnpy::...` paths resolve inside this crate's own tests.
extern crate self as ndnpy;

#[cfg(feature = "arrow")]
pub mod arrow;
mod concrete;
mod descr;
pub mod dtype;
pub mod dynamic;
pub mod element;
mod encode;
mod error;
mod fsutil;
pub mod header;
mod ioutil;
mod layout;
mod literal;
#[cfg(feature = "mmap")]
pub mod mmap;
#[cfg(feature = "npz")]
pub mod npz;
mod object;
mod outofcore;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "object")]
mod pickle;
#[cfg(unix)]
mod pio;
mod prefault;
mod printable_table;
mod pyrepr;
mod read;
pub mod record;
mod region;
#[cfg(feature = "object_store")]
pub mod remote;
#[cfg(feature = "safetensors")]
pub mod safetensors;
mod sys;
pub mod unit;
mod view;
mod write;

// The names every user needs, and ndarray-npy 0.10's; everything else is in the module named
// after its concept (`dtype`, `dynamic`, `element`, `header`, `mmap`, `npz`, `record`,
// `remote`, `unit`).
pub use crate::dtype::DType;
pub use crate::dynamic::{read_npy_dyn, DynArray, DynData, PyValue};
pub use crate::element::{
    Datetime64, ReadableElement, Timedelta64, ViewElement, ViewMutElement, WritableElement,
};
pub use crate::error::ndarray_npy::{
    ReadDataError, ReadNpyError, ViewDataError, ViewNpyError, WriteDataError, WriteNpyError,
};
#[cfg(feature = "npz")]
pub use crate::error::ndarray_npy::{ReadNpzError, WriteNpzError};
pub use crate::error::{Error, ErrorKind};
pub use crate::header::{Header, ReadOptions};
#[cfg(feature = "mmap")]
pub use crate::mmap::{NpyMmap, NpyMmapMut};
#[cfg(feature = "npz")]
pub use crate::npz::{NpzReader, NpzWriter};
pub use crate::outofcore::{NpyAppender, NpyReader, NpyWriter};
pub use crate::read::{read_npy, ReadNpyExt};
pub use crate::record::NpyRecord;
pub use crate::view::{ViewMutNpyExt, ViewNpyExt};
pub use crate::write::{
    create_new_npy, write_file_atomically, write_npy, write_zeroed_npy, WriteNpyExt, WriteOptions,
};
/// ndarray-npy 0.10's `npy` module, under its paths: its error types and the
/// [`PyLiteral`](npy::PyLiteral) they hold where ndarray-npy holds a `py_literal::Value`.
///
/// # Examples
///
/// ```
/// use ndnpy::npy::header::ParseHeaderError;
/// use ndnpy::npy::ReadNpyError;
/// let e = ReadNpyError::ParseHeader(ParseHeaderError::MissingNewline);
/// assert_eq!(e.to_string(), "error parsing header: newline missing at end of header");
/// ```
pub mod npy {
    pub use crate::error::ndarray_npy::PyLiteral;
    pub use crate::{
        create_new_npy, read_npy, write_npy, write_zeroed_npy, ReadDataError, ReadNpyError,
        ReadNpyExt, ReadableElement, ViewDataError, ViewElement, ViewMutElement, ViewMutNpyExt,
        ViewNpyError, ViewNpyExt, WritableElement, WriteDataError, WriteNpyError, WriteNpyExt,
    };

    /// ndarray-npy's `npy::header` module: the header errors its error variants carry.
    pub mod header {
        pub use crate::error::ndarray_npy::{FormatHeaderError, ParseHeaderError, PyLiteral};
    }
}

/// Derives [`NpyRecord`](trait@NpyRecord) for a struct of named fields; see
/// [`record`] for what it reads and writes.
#[cfg(feature = "derive")]
pub use ndnpy_derive::NpyRecord;

/// The README's recipes, run as doc tests so that each one stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeRecipes;
