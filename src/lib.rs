//! Read and write NumPy's `.npy` and `.npz` files as [`ndarray`] arrays: every file numpy
//! writes, written back byte for byte as `np.save` would, faster than `np.load`.
//!
//! # The map
//!
//! - **Reading**: [`read_npy`] (a path), [`ReadNpyExt`] (any [`Read`](std::io::Read), any
//!   dimension; a `File`, `BufReader<File>` or bytes in memory read through the file or bytes
//!   behind them, as a path is), [`read_npy_into`] (into memory the caller owns), and
//!   [`ReadOptions`] (limits for untrusted input, threads).
//! - **Writing**: [`write_npy`], [`create_new_npy`], [`WriteNpyExt`] and [`WriteOptions`]
//!   (byte order, durability). Files are published atomically;
//!   [`write_file_atomically`] does the same for bytes of one's own.
//! - **Views and maps**: [`ViewNpyExt`] and [`ViewMutNpyExt`] view bytes in place;
//!   [`mmap`] (feature `mmap`) maps files, [`write_zeroed_npy`] creates sparse ones.
//! - **Out of core**: [`NpyReader`] reads rows, elements and N-d regions (`s![..]`, typed or
//!   any dtype) of any byte source ([`source::ReadAt`]: a file, bytes, an object in a store,
//!   a type of one's own); [`NpyAppender`] grows a file row by row; [`NpyWriter`] writes block by block.
//! - **Archives**: [`npz`] (feature `npz`): [`NpzReader`] reads members by name or index, or
//!   as handles ([`NpzMember`](npz::NpzMember): header, any dtype, bytes, views, regions);
//!   [`NpzWriter`] writes what `np.savez` and `np.savez_compressed` write, deflating on
//!   every core.
//! - **Dtypes known at run time**: [`read_npy_dyn`] and [`DynArray`] read any file; [`DType`]
//!   and [`Header`] parse and format what numpy writes.
//! - **Element types**: [`element`]: numbers, `bool`, complex, strings, [`Datetime64`] and
//!   [`Timedelta64`]; `half::f16` and `half::bf16` with the feature `half`.
//! - **Records**: [`record`]: `#[derive(NpyRecord)]` (feature `derive`) reads and writes
//!   structs as numpy records.
//! - **Object arrays** (feature `object`): pickled arrays read as [`PyValue`]s without
//!   running code, and written as `np.save` writes them.
//! - **Object stores** (feature `object_store`): [`RemoteFile`][remote-file] is an object as a
//!   `Read + Seek` for every reader here; [`RemoteWriter`][remote-writer] uploads.
//! - **Conversions**, each its feature: to and from [safetensors files][safetensors-mod],
//!   [Arrow arrays][arrow-mod] and [Parquet files][parquet-mod].
//! - **Errors**: [`Error`], whose [`ErrorKind`] says what went wrong and [`Fault`] which
//!   fault exactly (a checksum, a truncated member, a bad magic); ndarray-npy's functions
//!   return ndarray-npy's error types ([`npy`]), which convert into [`Error`] and back.
//!
//! Each module's documentation holds the details; `ARCHITECTURE.md` in the repository maps
//! the code.
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
//! # Limitations
//!
//! - Long doubles (`<f16`, `<f12`) are raw bytes (through [`DynArray`]): their format depends
//!   on the platform that wrote them. So are ml_dtypes' float8 and float4 arrays (`'<V1'`:
//!   [`RawData::bytes`](dynamic::RawData::bytes) holds their bits); no element type reads them.
//! - Object arrays are read from their pickle (protocols 0 to 5, numpy 1 and 2, Python 2
//!   files as numpy's `encoding` reads them: [`header::PickleEncoding`]) when they hold
//!   Python data, `datetime` values and numpy arrays
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
    not(feature = "object_store"),
    doc = "[remote-file]: https://docs.rs/ndnpy/latest/ndnpy/remote/struct.RemoteFile.html"
)]
#![cfg_attr(
    not(feature = "object_store"),
    doc = "[remote-writer]: https://docs.rs/ndnpy/latest/ndnpy/remote/struct.RemoteWriter.html"
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

// The modules (rustfmt sorts them); `scripts/layers.py` lists them from the bottom layer up
// and checks that each imports only from its own folder and the folders below it.
mod array;
mod convert;
pub mod element {
    //! Rust element types and the dtypes they read and write.
    //!
    //! [`ReadableElement`] and [`WritableElement`] carry ndarray-npy's names so generic code keeps
    //! compiling. Plain-old-data types move whole slices of bytes, never one element at a time
    //! (`bulk`); the others decode and encode as the bytes stream past. This crate implements them
    //! for:
    //!
    //! - `bool`, `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `num_complex::Complex` of `f32`/`f64`,
    //!   and `half::f16` with the feature `half`: `primitive`, from the table of scalar types in
    //!   `scalars` (which also gives their record fields and `DynData` variants);
    //! - `half::bf16` (feature `half`), ml_dtypes' bfloat16, which numpy stores as a two-byte void
    //!   (`'<V2'`): `bf16`, written out (it reads only a void, and has no `DynData` variant);
    //! - `String` and `&str` (`U`), `Vec<u8>` (`S`), and the fixed-size [`FixedUnicode`] and
    //!   [`FixedBytes`], which can be viewed in place: `string`;
    //! - [`Datetime64`] and [`Timedelta64`], which carry their unit, and the record fields
    //!   [`DatetimeIn`] and [`TimedeltaIn`], whose unit is their type's: `datetime`;
    //! - structs that derive `NpyRecord` (records): in the crate's `record` module.
    //!
    //! A write reads its elements as a [`Strided`] view (an address, a shape and strides): this
    //! layer knows no array type, and each ndarray version's views become one without a copy.
    //!
    //! # Examples
    //!
    //! ```
    //! use ndnpy::{element::FixedUnicode, ReadNpyExt, WriteNpyExt};
    //! let names = ndarray::array!["ab".to_string(), "c".to_string()];
    //! let mut bytes = Vec::new();
    //! names.write_npy(&mut bytes)?; // numpy's 'U2': two code points of 4 bytes each
    //! let back: ndarray::Array1<String> = ndarray::Array1::read_npy(&bytes[..])?;
    //! assert_eq!(back, names);
    //! // The same file as fixed-size elements, which can also be viewed in place:
    //! let fixed: ndarray::Array1<FixedUnicode<2>> = ndarray::Array1::read_npy(&bytes[..])?;
    //! assert_eq!(fixed[1].to_string()?, "c");
    //! # Ok::<(), Box<dyn std::error::Error>>(())
    //! ```

    #[doc(inline)]
    pub use ndnpy_engine::element::{
        Datetime64, DatetimeIn, FixedBytes, FixedDType, FixedUnicode, Input, Iter, ReadableElement,
        Strided, Timedelta64, TimedeltaIn, ViewElement, ViewMutElement, WritableElement, NAT,
    };
}
pub mod record {
    //! Structured records: Rust structs read from and written as numpy record dtypes.
    //!
    //! `#[derive(NpyRecord)]` (feature `derive`, off by default) turns a struct of named fields
    //! into an array element whose dtype is a numpy record, `[('a', '<i4'), ('b', '<f8')]`.
    //! Each field's type implements [`RecordField`]: the numbers, `bool`, `half::f16` and
    //! `half::bf16` (feature `half`; ml_dtypes' `bfloat16`, `'<V2'`) and `Complex`, fixed arrays `[T; N]` of any field type (a sub-array
    //! field; `[[T; N]; M]` is `(M, N)`), `String` (`'<UN'`) and `Vec<u8>` (`'|SN'`) with
    //! `#[npy(len = N)]`, datetimes and timedeltas whose unit is in their type
    //! ([`DatetimeIn<unit::Days>`](crate::element::DatetimeIn) is `'<M8[D]'`,
    //! [`TimedeltaIn`](crate::element::TimedeltaIn); read from any unit that converts exactly), and other
    //! derived structs (nested records).
    //!
    //! # Reading
    //!
    //! Fields are matched **by name** (or by title), never by position: the file may hold them in
    //! any order, with padding (`('', '|V3')` from `align=True` or explicit offsets), titles, in
    //! either byte order field by field, and with fields the struct does not have (they are
    //! skipped). What the struct needs and the file lacks is an [`ErrorKind::DType`](crate::ErrorKind::DType) error;
    //! a field of the wrong type is an [`ErrorKind::DType`](crate::ErrorKind::DType) error naming the field, the file's dtype
    //! and the Rust type.
    //!
    //! The match is made once per read: [`RecordField::plan`] resolves every field to its offset
    //! and a decoder for its dtype (native or swapped, which string length). The data is then
    //! read in 256 KiB chunks into one reusable buffer and each record is decoded with the plan,
    //! never one `read` call per element. A `#[repr(C)]` record whose layout is exactly the
    //! file's (see below) skips decoding: the bytes are read straight into the array, one copy
    //! as with `np.load`, and checked in place. String fields accept any length in the file and
    //! drop trailing NULs, as numpy does.
    //!
    //! # Writing
    //!
    //! Records are written packed, in field declaration order, as numpy's default structured
    //! dtype is: `np.save` of the array numpy loads from our file gives back our exact bytes.
    //! Strings are NUL-padded; a string longer than its field is an [`ErrorKind::Usage`](crate::ErrorKind::Usage) error.
    //!
    //! # Zero-copy views
    //!
    //! A `#[repr(C)]` (or `#[repr(C, packed)]`) struct whose fields are all plain data (numbers,
    //! `bool`, fixed-size strings, datetimes with a unit, arrays and `#[repr(C)]` records of
    //! them) also implements [`PlainField`], and with it [`ViewElement`](crate::ViewElement) and
    //! [`ViewMutElement`](crate::ViewMutElement): a file whose record layout equals the struct's
    //! (same fields at the same offsets, the same size, native byte order) is viewed in place,
    //! and memory-mapped. Any difference is an
    //! [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) error (its [`Fault`](crate::Fault):
    //! `Layout`, `ByteOrder` or `Misaligned`). Mutable views also need a struct without padding
    //! bytes.
    //!
    //! # Example
    //!
    //! ```
    //! # #[cfg(feature = "derive")] {
    //! use ndarray::{array, Array1};
    //! use ndnpy::{NpyRecord, ReadNpyExt, WriteNpyExt};
    //!
    //! #[derive(NpyRecord, Debug, Clone, PartialEq)]
    //! struct Star {
    //!     #[npy(len = 8)]
    //!     name: String,
    //!     pos: [f64; 3],
    //!     #[npy(rename = "mag")]
    //!     magnitude: f32,
    //! }
    //!
    //! let stars = array![
    //!     Star { name: "Vega".into(), pos: [1.0, 2.0, 3.0], magnitude: 0.03 },
    //!     Star { name: "Deneb".into(), pos: [4.0, 5.0, 6.0], magnitude: 1.25 },
    //! ];
    //! let mut file = Vec::new();
    //! stars.write_npy(&mut file)?;
    //! let descr = "[('name', '<U8'), ('pos', '<f8', (3,)), ('mag', '<f4')]";
    //! let header = ndnpy::Header::read(&mut &file[..], &Default::default())?.header;
    //! assert_eq!(header.dtype.descr(), descr);
    //! assert_eq!(Array1::<Star>::read_npy(&file[..])?, stars);
    //! # }
    //! # Ok::<(), ndnpy::Error>(())
    //! ```
    //!
    //! The derive refers to this crate as `::ndnpy`; if it is a dependency under another name,
    //! say so with `#[npy(crate = "path::to::ndnpy")]` on the struct.

    #[doc(hidden)]
    pub use ndnpy_engine::record::derive_runtime;
    #[doc(inline)]
    pub use ndnpy_engine::record::{
        ArrayPlan, NpyRecord, PlainField, RecordField, ScalarPlan, TextPlan, TimePlan,
    };
}
#[cfg(feature = "npz")]
pub mod npz;
mod object;
#[cfg(feature = "object_store")]
#[doc(inline)]
pub use ndnpy_engine::remote;

// The public modules that live in a layer's folder, under their own names; `dynamic`
// gathers the runtime-typed types (`array`) and the doors that read them (`object`, which
// reads object arrays too).
pub mod dynamic {
    //! Arrays whose dtype is known only at run time.
    //!
    //! [`read_npy_dyn`] and [`DynArray::read_npy`] read any `.npy` file: numbers, bool, strings
    //! and datetimes become typed `ndarray` arrays ([`DynData`]; `U` strings holding lone
    //! surrogates keep their code units, [`DynData::CodePoints`]); records, void, long doubles and
    //! sub-arrays are kept as raw bytes with their dtype ([`RawData`]), from which record fields
    //! can be taken out by name ([`DynArray::field`], numpy's `arr['x']`); object arrays (`|O`)
    //! are read from their pickle, without running it, into [`PyValue`]s (`object`). Every
    //! `DynArray` keeps the file's dtype, so writing it back gives the same bytes.
    //!
    //! # Examples
    //!
    //! ```
    //! use ndnpy::{read_npy_dyn, DynData};
    //! let a = read_npy_dyn("testdata/rec_pdescr.npy")?; // a record dtype: kept as bytes
    //! let DynData::Raw(raw) = a.data() else { panic!("records are raw") };
    //! assert_eq!(raw.bytes.len(), 6 * a.dtype().itemsize());
    //! let z = a.field("z")?; // numpy's arr['z']: typed
    //! assert!(matches!(z.data(), DynData::U8(_)));
    //! # Ok::<(), ndnpy::Error>(())
    //! ```

    pub use crate::array::dynamic::*;
    pub use crate::object::read_npy_dyn;
}
#[cfg(feature = "mmap")]
pub use crate::array::mmap;
pub mod source {
    //! Byte sources: the bytes at an offset that a positioned read (a region, rows, one
    //! element, a whole array) asks for.
    //!
    //! [`ReadAt`] is the one trait: a file, bytes in memory (a map as `&map[..]`), any
    //! `Read + Seek` named as [`Seeking`], part of another source as [`Section`], an object in
    //! a store, or a type of the caller's own. [`NpyReader`](crate::NpyReader) reads an `.npy`
    //! through it and `NpzReader::from_source` an archive (as a [`SourceReader`]), as the
    //! source's type reads: the fast path is in the type, never guessed. A stored member of
    //! an archive is a source too (`NpzMember::stored_source`).
    //!
    //! # Examples
    //!
    //! ```
    //! use ndarray::s;
    //! let bytes = std::fs::read("testdata/i4_le_c_2x3x4.npy")?;
    //! let mut npy = ndnpy::NpyReader::new(&bytes[..])?;
    //! let plane: ndarray::Array2<i32> = npy.read_slice(s![1, .., ..])?; // only its bytes
    //! let all: ndarray::Array3<i32> = ndnpy::read_npy("testdata/i4_le_c_2x3x4.npy")?;
    //! assert_eq!(plane, all.slice(s![1, .., ..]));
    //! # Ok::<(), Box<dyn std::error::Error>>(())
    //! ```

    #[doc(inline)]
    pub use ndnpy_engine::source::{ReadAt, Section, Seeking, SourceReader};
}
#[cfg(feature = "arrow")]
pub use crate::convert::arrow;
#[cfg(feature = "parquet")]
pub use crate::convert::parquet;
#[cfg(feature = "safetensors")]
pub use crate::convert::safetensors;
#[doc(inline)]
pub use ndnpy_engine::base::{dtype, unit};
#[doc(inline)]
pub use ndnpy_engine::format::header;

// The names every user needs, and ndarray-npy 0.10's; everything else is in the module named
// after its concept (`dtype`, `dynamic`, `element`, `header`, `mmap`, `npz`, `record`,
// `remote`, `unit`).
pub use crate::array::dynamic::{DynArray, DynData, PyValue};
#[cfg(feature = "mmap")]
pub use crate::array::mmap::{NpyMmap, NpyMmapMut};
pub use crate::array::options::ReadOptions;
pub use crate::array::outofcore::{NpyAppender, NpyReader, NpyWriter};
pub use crate::array::read::{read_npy, read_npy_into, ReadNpyExt};
pub use crate::array::view::{ViewMutNpyExt, ViewNpyExt};
pub use crate::array::write::{
    create_new_npy, write_file_atomically, write_npy, write_zeroed_npy, WriteNpyExt, WriteOptions,
};
#[cfg(feature = "npz")]
pub use crate::npz::{NpzReader, NpzWriter};
#[cfg(feature = "npz")]
pub use crate::npz::{ReadNpzError, WriteNpzError};
pub use crate::object::read_npy_dyn;
#[doc(inline)]
pub use ndnpy_engine::base::dtype::DType;
#[doc(inline)]
pub use ndnpy_engine::base::error::ndarray_npy::{
    ReadDataError, ReadNpyError, ViewDataError, ViewNpyError, WriteDataError, WriteNpyError,
};
#[doc(inline)]
pub use ndnpy_engine::base::error::{Error, ErrorKind, Fault};
#[doc(inline)]
pub use ndnpy_engine::element::{
    Datetime64, ReadableElement, Timedelta64, ViewElement, ViewMutElement, WritableElement,
};
#[doc(inline)]
pub use ndnpy_engine::format::header::Header;
#[doc(inline)]
pub use ndnpy_engine::record::NpyRecord;
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
    pub use crate::{
        create_new_npy, read_npy, write_npy, write_zeroed_npy, ReadDataError, ReadNpyError,
        ReadNpyExt, ReadableElement, ViewDataError, ViewElement, ViewMutElement, ViewMutNpyExt,
        ViewNpyError, ViewNpyExt, WritableElement, WriteDataError, WriteNpyError, WriteNpyExt,
    };
    pub use ndnpy_engine::base::error::ndarray_npy::PyLiteral;

    /// ndarray-npy's `npy::header` module: the header errors its error variants carry.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::npy::{header::ParseHeaderError, ReadNpyError, ReadNpyExt};
    /// let err = ndarray::Array1::<f64>::read_npy(&b"not an npy file"[..]).unwrap_err();
    /// assert!(matches!(err, ReadNpyError::ParseHeader(ParseHeaderError::MagicString)));
    /// ```
    pub mod header {
        pub use ndnpy_engine::base::error::ndarray_npy::{
            FormatHeaderError, ParseHeaderError, PyLiteral,
        };
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

/// `docs/recipes.md`, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/recipes.md")]
pub struct MoreRecipes;

/// `docs/remote.md`, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/remote.md")]
pub struct RemoteRecipes;

/// `docs/switching.md`, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/switching.md")]
pub struct SwitchingRecipes;
