//! `.npz` archives: the ZIP files of `.npy` members that `np.savez` and `np.savez_compressed`
//! write and `np.load` reads.
//!
//! - [`NpzReader`] reads any archive numpy writes (stored or deflated, zip64, streamed with
//!   data descriptors), lazily and member by member, with numpy's key rules. Its
//!   [`member`](NpzReader::member) gives a handle, [`NpzMember`], to one member by key or index
//!   ([`MemberKey`]): its directory facts ([`MemberInfo`]), header, array, bytes, numpy's
//!   array-or-bytes answer ([`NpzValue`]), and a zero-copy view of a stored member.
//! - [`NpzWriter`] writes archives numpy reads, deterministic, stored or deflated per member
//!   ([`NpzWriteOptions`]), with zip64 sizes when a member needs them and, on request, stored
//!   data aligned to 64 bytes for in-place views.
//!
//! The ZIP directory is read here (the way Python's `zipfile` reads it, with every length
//! checked), and deflated members are inflated by the crate's own decoder, straight into the
//! array; writing goes through the `zip` crate (deflate on flate2's zlib-rs backend).
//!
//! # Examples
//!
//! ```
//! use ndnpy::{NpzReader, NpzWriter};
//! let mut npz = NpzWriter::new_compressed(std::io::Cursor::new(Vec::new()));
//! npz.add_array("w", &ndarray::array![[1.0f32, 2.0], [3.0, 4.0]])?;
//! npz.add_array("b", &ndarray::array![0.5f32])?;
//! let bytes = npz.finish()?.into_inner();
//!
//! let mut npz = NpzReader::new(std::io::Cursor::new(bytes))?;
//! assert_eq!(npz.names()?, ["w", "b"]);
//! let w: ndarray::Array2<f32> = npz.by_name("w")?; // `w` or `w.npy`, as np.load takes them
//! assert_eq!(w[[1, 0]], 3.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod member;
mod parallel;
mod reader;
mod writer;

pub use reader::{MemberInfo, MemberKey, NpzArrays, NpzMember, NpzReader, NpzValue};
pub use writer::{MemberOptions, NpzWriteOptions, NpzWriter};

/// The `ZipError` of the `zip` major this crate's ndarray-npy version holds in its errors:
/// zip 6 for `ndnpy` (ndarray-npy 0.10), zip 2 for `ndnpy-ndarray16` (0.9), zip 0.5 for
/// `ndnpy-ndarray15` (0.8). Code that names `zip::result::ZipError` with the `zip` line it
/// had beside that ndarray-npy version builds unchanged.
#[cfg(not(any(nd15, nd16)))]
use zip::result::ZipError;
#[cfg(nd15)]
use zip05::result::ZipError;
#[cfg(nd16)]
use zip2::result::ZipError;

/// An error reading a `.npz` file: ndarray-npy's `ReadNpzError`, returned by
/// [`NpzReader::new`], [`names`](NpzReader::names), [`by_name`](NpzReader::by_name) and
/// [`by_index`](NpzReader::by_index).
///
/// `Zip` holds the `zip` crate's `ZipError` of the ndarray-npy version this crate stands for:
/// zip 6's in `ndnpy` (0.10), zip 2's in `ndnpy-ndarray16` (0.9), zip 0.5's in
/// `ndnpy-ndarray15` (0.8). A missing member is `Zip(ZipError::FileNotFound)`, as there.
///
/// # Examples
///
/// ```
/// use ndnpy::{NpzReader, ReadNpzError};
/// use zip::result::ZipError;
/// let mut npz = NpzReader::new(std::fs::File::open("testdata/example.npz")?)?;
/// let err = npz.by_name::<ndarray::OwnedRepr<f32>, ndarray::Ix2>("nope").unwrap_err();
/// assert!(matches!(err, ReadNpzError::Zip(ZipError::FileNotFound)));
/// assert_eq!(err.to_string(), "zip file error: specified file not found in archive");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type ReadNpzError = ndnpy_engine::base::error::ndarray_npy::ReadNpzError<ZipError>;

/// An error writing a `.npz` file: ndarray-npy's `WriteNpzError`, returned by
/// [`NpzWriter::add_array`] and [`NpzWriter::finish`]. `Zip` holds the `ZipError` of this
/// crate's ndarray-npy version, as in [`ReadNpzError`].
///
/// # Examples
///
/// ```
/// use ndnpy::{NpzWriter, WriteNpzError};
/// use zip::result::ZipError;
/// let mut npz = NpzWriter::new(std::io::Cursor::new(Vec::new()));
/// npz.add_array("a", &ndarray::array![1])?;
/// let err = npz.add_array("a", &ndarray::array![2]).unwrap_err();
/// assert!(matches!(err, WriteNpzError::Zip(ZipError::InvalidArchive(_))));
/// assert_eq!(err.to_string(), "zip file error: invalid Zip archive: Duplicate filename: a.npy");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type WriteNpzError = ndnpy_engine::base::error::ndarray_npy::WriteNpzError<ZipError>;

/// How an `.npz` member is compressed: the two methods numpy writes.
///
/// # Examples
///
/// ```
/// use ndnpy::{npz::Compression, npz::NpzWriteOptions};
/// let opts = NpzWriteOptions::new().compression(Compression::Deflated);
/// assert_eq!(opts.compression, Compression::Deflated);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// No compression (ZIP method 0), as `np.savez` writes.
    Stored,
    /// Deflate (ZIP method 8), as `np.savez_compressed` writes.
    Deflated,
}
