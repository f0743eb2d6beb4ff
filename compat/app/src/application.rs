#![allow(dead_code)] // each test uses some of the application
//! An application written for ndarray-npy the way applications use it, built (into
//! `tests/app.rs`) against each ndarray-npy version users are on and against ndnpy's crate for
//! the same ndarray, from this same source: `../app` (ndnpy, ndarray 0.17) and `../app-real`
//! (ndarray-npy 0.10), `../app09` (ndnpy-ndarray16) and `../app09-real` (ndarray-npy 0.9.1),
//! `../app08` (ndnpy-ndarray15) and `../app08-real` (ndarray-npy 0.8.1). Each pair's manifests
//! differ in the `ndarray-npy` line alone: the `zip` line is the one each ndarray-npy version
//! needs (0.5, 2, 6), whose `ZipError` (and options) ndnpy's crate for it holds too. `cfg(ndarray_npy = "0.8")` and `"0.9"` (set by `build.rs` from the
//! package's name) leave out what that version lacks, as an application written for it would. It wraps each of ndarray-npy's
//! error types in its own error with a `From` impl, builds ndarray-npy's variants by hand and
//! matches them, and its tests (`tests/app.rs`) assert ndarray-npy's messages, through every
//! door: a path, a `File`, a `BufReader`, bytes in memory, an `.npz` member, a view.

use ndarray::{Array1, Array2, ArrayD, ArrayView1, Ix2};
use ndarray_npy::{
    NpzReader, NpzWriter, ReadNpyError, ReadNpyExt, ReadNpzError, ViewNpyError, ViewNpyExt,
    WriteNpyError, WriteNpzError,
};
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, Write};
use std::path::Path;
use zip::result::ZipError;
#[cfg(not(ndarray_npy = "0.8"))]
use zip::write::SimpleFileOptions;
#[cfg(ndarray_npy = "0.10")]
use zip::CompressionMethod;

/// The member name an array saved as `key` has, and the name ndarray-npy looks it up by: the
/// key itself in 0.9 and later (they add and strip numpy's `.npy`), the key with `.npy` in 0.8
/// (which named members as given), for archives numpy wrote.
pub fn member_name(key: &str) -> String {
    if cfg!(ndarray_npy = "0.8") {
        format!("{key}.npy")
    } else {
        key.to_owned()
    }
}

/// The application's error: one variant and one `From` impl for each of ndarray-npy's error
/// types (what thiserror's `#[from]` writes).
#[derive(Debug)]
pub enum AppError {
    /// Reading an `.npy` file.
    Read(ReadNpyError),
    /// Writing an `.npy` file.
    Write(WriteNpyError),
    /// Viewing `.npy` bytes in place.
    View(ViewNpyError),
    /// Reading an `.npz` archive.
    ReadNpz(ReadNpzError),
    /// Writing an `.npz` archive.
    WriteNpz(WriteNpzError),
}

impl From<ReadNpyError> for AppError {
    fn from(e: ReadNpyError) -> Self {
        AppError::Read(e)
    }
}

impl From<WriteNpyError> for AppError {
    fn from(e: WriteNpyError) -> Self {
        AppError::Write(e)
    }
}

impl From<ViewNpyError> for AppError {
    fn from(e: ViewNpyError) -> Self {
        AppError::View(e)
    }
}

impl From<ReadNpzError> for AppError {
    fn from(e: ReadNpzError) -> Self {
        AppError::ReadNpz(e)
    }
}

impl From<WriteNpzError> for AppError {
    fn from(e: WriteNpzError) -> Self {
        AppError::WriteNpz(e)
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Read(e) => write!(f, "cannot read array: {e}"),
            AppError::Write(e) => write!(f, "cannot write array: {e}"),
            AppError::View(e) => write!(f, "cannot view array: {e}"),
            AppError::ReadNpz(e) => write!(f, "cannot read archive: {e}"),
            AppError::WriteNpz(e) => write!(f, "cannot write archive: {e}"),
        }
    }
}

impl std::error::Error for AppError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AppError::Read(e) => Some(e),
            AppError::Write(e) => Some(e),
            AppError::View(e) => Some(e),
            AppError::ReadNpz(e) => Some(e),
            AppError::WriteNpz(e) => Some(e),
        }
    }
}

/// What went wrong, by ndarray-npy's variants, as an application reports it.
pub fn describe(e: &AppError) -> &'static str {
    match e {
        AppError::Read(ReadNpyError::Io(_)) => "io",
        AppError::Read(ReadNpyError::ParseHeader(_)) => "not an npy file",
        AppError::Read(ReadNpyError::WrongNdim(..)) => "wrong number of dimensions",
        AppError::Read(ReadNpyError::WrongDescriptor(_)) => "wrong element type",
        AppError::Read(ReadNpyError::MissingData) => "truncated",
        AppError::Read(_) => "unreadable",
        AppError::ReadNpz(ReadNpzError::Zip(ZipError::FileNotFound)) => "no such array",
        AppError::ReadNpz(ReadNpzError::Zip(_)) => "not an archive",
        AppError::ReadNpz(ReadNpzError::Npy(ReadNpyError::WrongNdim(..))) => {
            "wrong number of dimensions"
        }
        AppError::ReadNpz(ReadNpzError::Npy(_)) => "bad member",
        AppError::View(ViewNpyError::ExtraBytes(_)) => "extra bytes",
        AppError::View(_) => "cannot view",
        AppError::Write(WriteNpyError::Io(_)) => "io",
        AppError::Write(_) => "unwritable",
        AppError::WriteNpz(WriteNpzError::Zip(_)) => "archive refused",
        AppError::WriteNpz(WriteNpzError::Npy(_)) => "member refused",
    }
}

/// A matrix by path.
pub fn load_matrix(path: &Path) -> Result<Array2<f64>, AppError> {
    Ok(ndarray_npy::read_npy(path)?)
}

/// A matrix from an open file.
pub fn load_matrix_from_file(path: &Path) -> Result<Array2<f64>, AppError> {
    Ok(Array2::<f64>::read_npy(
        File::open(path).map_err(ReadNpyError::Io)?,
    )?)
}

/// A matrix from a buffered file.
pub fn load_matrix_buffered(path: &Path) -> Result<Array2<f64>, AppError> {
    let file = File::open(path).map_err(ReadNpyError::Io)?;
    Ok(Array2::<f64>::read_npy(BufReader::new(file))?)
}

/// A matrix from bytes in memory.
pub fn load_matrix_from_bytes(bytes: &[u8]) -> Result<Array2<f64>, AppError> {
    Ok(Array2::<f64>::read_npy(bytes)?)
}

/// An array of any dimension that must be a matrix: a shape problem reported by building
/// ndarray-npy's variant by hand.
pub fn load_as_matrix<R: Read + Seek>(
    npz: &mut NpzReader<R>,
    name: &str,
) -> Result<Array2<f64>, AppError> {
    let any: ArrayD<f64> = npz.by_name(name)?;
    let ndim = any.ndim();
    any.into_dimensionality::<Ix2>()
        .map_err(|_| ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), ndim)).into())
}

/// Every member of an archive as a vector of `f64`, by name.
pub fn load_vector<R: Read + Seek>(
    npz: &mut NpzReader<R>,
    name: &str,
) -> Result<Array1<f64>, AppError> {
    Ok(npz.by_name(name)?)
}

/// The names of an archive's arrays.
pub fn names(path: &Path) -> Result<Vec<String>, AppError> {
    let file = File::open(path).map_err(|e| ReadNpzError::Zip(ZipError::Io(e)))?;
    Ok(NpzReader::new(file)?.names()?)
}

/// Saves arrays into an archive.
pub fn save_archive<W: Write + Seek>(
    writer: W,
    arrays: &[(&str, &Array1<f64>)],
) -> Result<W, AppError> {
    let mut npz = NpzWriter::new(writer);
    for (name, array) in arrays {
        npz.add_array(*name, *array)?;
    }
    Ok(npz.finish()?)
}

/// Saves arrays with the `zip` crate's options for the writer (ndarray-npy 0.9 and later).
#[cfg(not(ndarray_npy = "0.8"))]
pub fn save_with_zip_options<W: Write + Seek>(
    writer: W,
    options: SimpleFileOptions,
    arrays: &[(&str, &Array1<f64>)],
) -> Result<W, AppError> {
    let mut npz = NpzWriter::new_with_options(writer, options);
    for (name, array) in arrays {
        npz.add_array(*name, *array)?;
    }
    Ok(npz.finish()?)
}

/// Saves arrays with the `zip` crate's options: the writer's, and one member's own
/// (ndarray-npy 0.10).
#[cfg(ndarray_npy = "0.10")]
pub fn save_with_member_options<W: Write + Seek>(
    writer: W,
    options: SimpleFileOptions,
    arrays: &[(&str, &Array1<f64>)],
    last: (&str, &Array1<f64>),
) -> Result<W, AppError> {
    let mut npz = NpzWriter::new_with_options(writer, options);
    for (name, array) in arrays {
        npz.add_array(*name, *array)?;
    }
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    npz.add_array_with_options(last.0, last.1, stored)?;
    Ok(npz.finish()?)
}

/// Saves a matrix by path, then reads it back.
pub fn round_trip(path: &Path, a: &Array2<f64>) -> Result<Array2<f64>, AppError> {
    ndarray_npy::write_npy(path, a)?;
    load_matrix(path)
}

/// Views bytes of an `.npy` file of `u8` in place.
pub fn view_bytes(bytes: &[u8]) -> Result<ArrayView1<'_, u8>, AppError> {
    Ok(ArrayView1::<u8>::view_npy(bytes)?)
}

/// An archive in memory, for tests.
pub fn archive_in_memory(arrays: &[(&str, &Array1<f64>)]) -> Result<Vec<u8>, AppError> {
    Ok(save_archive(Cursor::new(Vec::new()), arrays)?.into_inner())
}
