//! ndnpy's own doors, which return `ndnpy::Error` with all its detail (the member, the shape,
//! the byte counts, the offsets), for the tests of that detail. ndarray-npy's doors
//! (`read_npy`, `ReadNpyExt::read_npy`, `NpzReader::by_name`, ...) return its error types, whose
//! variants and messages `compat/` tests against ndarray-npy itself.

#[cfg(feature = "npz")]
use ndarray::{ArrayBase, DataOwned, Dimension};
use ndnpy::{Error, ReadNpyExt, ReadOptions};
#[cfg(feature = "npz")]
use ndnpy::{NpzReader, ReadableElement};
use std::io::Read;
#[cfg(feature = "npz")]
use std::io::Seek;
use std::path::Path;

/// `T::read_npy(reader)` with ndnpy's error.
pub fn read<T: ReadNpyExt>(reader: impl Read) -> Result<T, Error> {
    T::read_npy_with_options(reader, &ReadOptions::default())
}

/// `ndnpy::read_npy(path)` with ndnpy's error.
pub fn read_path<P: AsRef<Path>, T: ReadNpyExt>(path: P) -> Result<T, Error> {
    ReadOptions::new().read_npy(path)
}

/// `NpzReader::new(reader)` with ndnpy's error.
#[cfg(feature = "npz")]
pub fn open_npz<R: Read + Seek>(reader: R) -> Result<NpzReader<R>, Error> {
    NpzReader::with_options(reader, &ReadOptions::default())
}

/// `npz.by_name(key)` with ndnpy's error.
#[cfg(feature = "npz")]
pub fn by_name<S, D, R>(npz: &mut NpzReader<R>, key: &str) -> Result<ArrayBase<S, D>, Error>
where
    S: DataOwned,
    S::Elem: ReadableElement,
    D: Dimension,
    R: Read + Seek,
{
    npz.member(key)?.read()
}

/// `npz.by_index(index)` with ndnpy's error.
#[cfg(feature = "npz")]
pub fn by_index<S, D, R>(npz: &mut NpzReader<R>, index: usize) -> Result<ArrayBase<S, D>, Error>
where
    S: DataOwned,
    S::Elem: ReadableElement,
    D: Dimension,
    R: Read + Seek,
{
    npz.member(index)?.read()
}
