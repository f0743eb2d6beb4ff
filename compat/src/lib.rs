//! A small library written for ndarray-npy 0.10, built against ndnpy with only the crate name
//! changed (`ndarray-npy = { package = "ndnpy", ... }` in `Cargo.toml`).
//!
//! Every function is bounded the way ndarray-npy's traits are used in generic code: on
//! [`ReadNpyExt`], [`WriteNpyExt`], [`ReadableElement`], [`WritableElement`], [`ViewElement`],
//! [`ViewMutElement`], and [`IntoDimension`] for shapes, and returns ndarray-npy's error
//! type names. That it compiles is half the proof; the tests in `tests/` call it.
//!
//! An application's error type with a `From` impl for each of ndarray-npy's error types
//! compiles here as it does there: [`AppError`].
//!
//! An impl of ndarray-npy's extension traits for a type of one's own, with only ndarray-npy's
//! methods, compiles and works, by path and by reader:
//!
//! ```
//! use ndarray_npy::{ReadNpyExt, WriteNpyExt};
//! struct Samples(ndarray::Array1<f32>);
//! impl ReadNpyExt for Samples {
//!     fn read_npy<R: std::io::Read>(reader: R) -> Result<Self, ndarray_npy::ReadNpyError> {
//!         ndarray::Array1::<f32>::read_npy(reader).map(Samples)
//!     }
//! }
//! impl WriteNpyExt for Samples {
//!     fn write_npy<W: std::io::Write>(&self, writer: W) -> Result<(), ndarray_npy::WriteNpyError> {
//!         self.0.write_npy(writer)
//!     }
//! }
//! let path = std::env::temp_dir().join(format!("ndnpy-compat-samples-{}.npy", std::process::id()));
//! let s = Samples(ndarray::array![1.0, 2.5]);
//! s.write_npy(std::fs::File::create(&path)?)?;
//! let back: Samples = ndarray_npy::read_npy(&path)?;
//! assert_eq!(back.0, s.0);
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ndarray::{Array, ArrayBase, ArrayView, ArrayViewMut, Data, Dimension, IntoDimension};
use ndarray_npy::{
    create_new_npy, read_npy, write_npy, write_zeroed_npy, NpzReader, NpzWriter, ReadNpyError,
    ReadNpyExt, ReadNpzError, ReadableElement, ViewElement, ViewMutElement, ViewMutNpyExt,
    ViewNpyError, ViewNpyExt, WritableElement, WriteNpyError, WriteNpyExt, WriteNpzError,
};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// Loads any type ndarray-npy can read from a path (`fn f<T: ReadNpyExt>`).
///
/// ```
/// let a: ndarray::Array2<f64> = ndnpy_compat::load("../testdata/example.npy")?;
/// assert_eq!(a.shape(), [2, 3]);
/// # Ok::<(), ndarray_npy::ReadNpyError>(())
/// ```
pub fn load<T: ReadNpyExt, P: AsRef<Path>>(path: P) -> Result<T, ReadNpyError> {
    let value = read_npy(path)?;
    Ok(value)
}

/// Loads from any reader through the trait's associated function.
///
/// ```
/// let bytes = std::fs::read("../testdata/example.npy")?;
/// let a: ndarray::ArrayD<f64> = ndnpy_compat::load_from(&bytes[..])?;
/// assert_eq!(a.ndim(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_from<T: ReadNpyExt, R: Read>(reader: R) -> Result<T, ReadNpyError> {
    T::read_npy(reader)
}

/// Loads an owned array of element type `A` and dimension `D` from a path.
///
/// ```
/// let a = ndnpy_compat::load_array::<f64, ndarray::Ix2>("../testdata/example.npy".as_ref())?;
/// assert_eq!(a[[1, 2]], 1.5);
/// # Ok::<(), ndarray_npy::ReadNpyError>(())
/// ```
pub fn load_array<A: ReadableElement, D: Dimension>(
    path: &Path,
) -> Result<Array<A, D>, ReadNpyError> {
    read_npy(path)
}

/// Saves anything ndarray-npy can write (arrays, views, `ArrayRef`s) to a path.
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndnpy-compat-doc-save-{}.npy", std::process::id()));
/// ndnpy_compat::save(&path, &ndarray::array![1u8, 2])?;
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save<T: WriteNpyExt + ?Sized, P: AsRef<Path>>(
    path: P,
    data: &T,
) -> Result<(), WriteNpyError> {
    write_npy(path, data)
}

/// Saves an array of any writable element, storage and dimension to a new file; fails if the
/// file exists.
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndnpy-compat-doc-new-{}.npy", std::process::id()));
/// # let _ = std::fs::remove_file(&path);
/// let a = ndarray::array![[true, false]];
/// ndnpy_compat::save_new(&path, &a)?;
/// assert!(ndnpy_compat::save_new(&path, &a).is_err());
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save_new<A, S, D>(path: &Path, array: &ArrayBase<S, D>) -> Result<(), WriteNpyError>
where
    A: WritableElement,
    S: Data<Elem = A>,
    D: Dimension,
{
    create_new_npy(path, array)
}

/// Writes an array to any writer through the trait method.
///
/// ```
/// let mut out = Vec::new();
/// ndnpy_compat::save_to(&ndarray::array![1.5f32], &mut out)?;
/// assert!(out.starts_with(b"\x93NUMPY"));
/// # Ok::<(), ndarray_npy::WriteNpyError>(())
/// ```
pub fn save_to<T: WriteNpyExt + ?Sized, W: Write>(
    data: &T,
    writer: W,
) -> Result<(), WriteNpyError> {
    data.write_npy(writer)
}

/// Creates a zero-filled `.npy` file of element type `A`, as ndarray-npy's
/// `write_zeroed_npy` is called from generic code (`A: WritableElement`, `D: IntoDimension`).
///
/// ```
/// let path = std::env::temp_dir().join(format!("ndnpy-compat-doc-zero-{}.npy", std::process::id()));
/// ndnpy_compat::zeroed::<i16, _>(&std::fs::File::create(&path)?, (2, 2))?;
/// let z: ndarray::Array2<i16> = ndnpy_compat::load(&path)?;
/// // The element type is spelled out: with serde_json in the build (ndnpy's `object_store`
/// // feature brings it), `i16 == _` has two impls and is not inferred.
/// assert_eq!(z, ndarray::Array2::<i16>::zeros((2, 2)));
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn zeroed<A: WritableElement, D: IntoDimension>(
    file: &File,
    shape: D,
) -> Result<(), WriteNpyError> {
    write_zeroed_npy::<A, D>(file, shape)
}

/// Views `.npy` bytes in place.
///
/// ```
/// let mut bytes = Vec::new();
/// ndnpy_compat::save_to(&ndarray::array![7u8, 8], &mut bytes)?;
/// let v = ndnpy_compat::view::<u8, ndarray::Ix1>(&bytes)?;
/// assert_eq!(v, ndarray::array![7, 8]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn view<A: ViewElement, D: Dimension>(
    bytes: &[u8],
) -> Result<ArrayView<'_, A, D>, ViewNpyError> {
    ArrayView::<A, D>::view_npy(bytes)
}

/// Views `.npy` bytes in place, mutably.
///
/// ```
/// let mut bytes = Vec::new();
/// ndnpy_compat::save_to(&ndarray::array![7u8, 8], &mut bytes)?;
/// ndnpy_compat::view_mut::<u8, ndarray::Ix1>(&mut bytes)?[1] = 9;
/// assert_eq!(bytes.last(), Some(&9));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn view_mut<A: ViewMutElement, D: Dimension>(
    bytes: &mut [u8],
) -> Result<ArrayViewMut<'_, A, D>, ViewNpyError> {
    ArrayViewMut::<A, D>::view_mut_npy(bytes)
}

/// Writes named arrays into a `.npz` archive, stored or compressed, and returns the writer.
///
/// ```
/// let a = ndarray::array![1i64, 2];
/// let out = ndnpy_compat::archive(std::io::Cursor::new(Vec::new()), &[("a", a.view())], true)?;
/// assert!(out.into_inner().starts_with(b"PK"));
/// # Ok::<(), ndarray_npy::WriteNpzError>(())
/// ```
pub fn archive<W, A, D>(
    writer: W,
    arrays: &[(&str, ArrayView<'_, A, D>)],
    compressed: bool,
) -> Result<W, WriteNpzError>
where
    W: Write + Seek,
    A: WritableElement,
    D: Dimension,
{
    let mut npz = if compressed {
        NpzWriter::new_compressed(writer)
    } else {
        NpzWriter::new(writer)
    };
    for (name, array) in arrays {
        npz.add_array(*name, array)?;
    }
    npz.finish()
}

/// An array with its name in an archive.
pub type Named<A, D> = (String, Array<A, D>);

/// Reads every array of a `.npz` archive, by name, in archive order.
///
/// ```
/// let a = ndarray::array![1i64, 2];
/// let out = ndnpy_compat::archive(std::io::Cursor::new(Vec::new()), &[("a", a.view())], false)?;
/// let back = ndnpy_compat::unarchive::<_, i64, ndarray::Ix1>(std::io::Cursor::new(out.into_inner()))?;
/// assert_eq!(back, [("a".to_string(), a)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unarchive<R, A, D>(reader: R) -> Result<Vec<Named<A, D>>, ReadNpzError>
where
    R: Read + Seek,
    A: ReadableElement,
    D: Dimension,
{
    let mut npz = NpzReader::new(reader)?;
    let mut out = Vec::with_capacity(npz.len());
    for name in npz.names()? {
        let array = npz.by_name(&name)?;
        out.push((name, array));
    }
    Ok(out)
}

/// An application's error type as applications write it for ndarray-npy: a variant and a
/// `From` impl for each of its error types (thiserror's `#[from]` writes the same impls).
///
/// ```
/// fn run(path: &std::path::Path) -> Result<(), ndnpy_compat::AppError> {
///     let a: ndarray::Array1<u8> = ndarray_npy::read_npy(path)?; // a ReadNpyError
///     ndarray_npy::write_npy(path, &a)?; // a WriteNpyError
///     let mut npz = ndarray_npy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
///     npz.add_array("a", &a)?; // a WriteNpzError
///     Ok(())
/// }
/// assert!(matches!(
///     run("no-such-file.npy".as_ref()),
///     Err(ndnpy_compat::AppError::Read(ndarray_npy::ReadNpyError::Io(_)))
/// ));
/// ```
#[derive(Debug)]
pub enum AppError {
    /// Reading an `.npy` file.
    Read(ndarray_npy::ReadNpyError),
    /// Writing an `.npy` file.
    Write(ndarray_npy::WriteNpyError),
    /// Viewing `.npy` bytes.
    View(ndarray_npy::ViewNpyError),
    /// Reading an `.npz` archive.
    ReadNpz(ndarray_npy::ReadNpzError),
    /// Writing an `.npz` archive.
    WriteNpz(ndarray_npy::WriteNpzError),
    /// Something the application itself refused.
    Invalid(String),
}

impl From<ndarray_npy::ReadNpyError> for AppError {
    fn from(e: ndarray_npy::ReadNpyError) -> Self {
        AppError::Read(e)
    }
}

impl From<ndarray_npy::WriteNpyError> for AppError {
    fn from(e: ndarray_npy::WriteNpyError) -> Self {
        AppError::Write(e)
    }
}

impl From<ndarray_npy::ViewNpyError> for AppError {
    fn from(e: ndarray_npy::ViewNpyError) -> Self {
        AppError::View(e)
    }
}

impl From<ndarray_npy::ReadNpzError> for AppError {
    fn from(e: ndarray_npy::ReadNpzError) -> Self {
        AppError::ReadNpz(e)
    }
}

impl From<ndarray_npy::WriteNpzError> for AppError {
    fn from(e: ndarray_npy::WriteNpzError) -> Self {
        AppError::WriteNpz(e)
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Read(_) | AppError::View(_) | AppError::ReadNpz(_) => {
                f.write_str("cannot read array file")
            }
            AppError::Write(_) | AppError::WriteNpz(_) => f.write_str("cannot write array file"),
            AppError::Invalid(why) => f.write_str(why),
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
            AppError::Invalid(_) => None,
        }
    }
}
