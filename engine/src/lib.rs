//! The engine of [ndnpy](https://docs.rs/ndnpy): numpy's dtypes and `.npy` format, the byte
//! sources a read comes through, the element and record types and their encodings, the ZIP
//! container of `.npz` archives, and the system calls that publish files. It knows no `ndarray`: it does not depend on it. Each
//! ndarray major is served by a layer over this crate (`ndnpy` for ndarray 0.17), which turns
//! the engine's vectors, shapes and strides into that major's arrays.
//!
//! Use `ndnpy`, not this crate: its modules are for ndnpy's layers, not a stable API, and
//! may change in any release. The items at this crate's root are the ones ndnpy re-exports
//! (with their documentation), named here so that their documentation links resolve.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_code)]

#[cfg(feature = "npz")]
#[doc(hidden)]
pub mod archive;
#[doc(hidden)]
pub mod base;
#[doc(hidden)]
pub mod element;
#[doc(hidden)]
pub mod format;
#[doc(hidden)]
pub mod platform;
#[doc(hidden)]
pub mod record;
#[cfg(feature = "object_store")]
#[cfg_attr(docsrs, doc(cfg(feature = "object_store")))]
pub mod remote;
#[doc(hidden)]
pub mod source;

pub use crate::base::dtype::DType;
pub use crate::base::error::ndarray_npy::{
    ReadDataError, ReadNpyError, ViewDataError, ViewNpyError, WriteDataError, WriteNpyError,
};
#[cfg(feature = "npz")]
pub use crate::base::error::ndarray_npy::{ReadNpzError, WriteNpzError, ZipErrorType};
pub use crate::base::error::{Error, ErrorKind, Fault};
pub use crate::base::{dtype, unit};
pub use crate::element::{
    Datetime64, ReadableElement, Timedelta64, ViewElement, ViewMutElement, WritableElement,
};
pub use crate::format::header;
pub use crate::format::header::{Header, ReadConfig};
pub use crate::record::NpyRecord;
pub use crate::source::{ReadAt, Section, Seeking};
