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

pub use reader::{MemberInfo, MemberKey, NpzArrays, NpzMember, NpzReader, NpzValue, ReadNpzError};
pub use writer::{MemberOptions, NpzWriteOptions, NpzWriter, WriteNpzError};

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
