//! Conversions between numpy's `.npz`/`.npy` files and [safetensors] files (feature
//! `safetensors`): the weights format of the Hugging Face hub and MLX.
//!
//! - [`npz_to_safetensors`] writes every array of an `.npz` archive (or the one array of an
//!   `.npy` file) as a tensor of the same name (the archive's key: the member name without
//!   `.npy`), its data made little-endian and C order, the only layout safetensors has. The
//!   file is the one the Python package's `safetensors.numpy.save_file` writes for the same
//!   arrays, byte for byte: tensors ordered by dtype (widest first) then name, the JSON
//!   header padded with spaces to a multiple of 8 bytes, no `__metadata__`.
//! - [`safetensors_to_npz`] writes every tensor as an array of the same key, in the file's
//!   order (the order `safetensors.numpy.load_file` returns them in), each member byte for
//!   byte what `np.savez(out, **load_file(path))` writes in it. `BF16` tensors become the
//!   two-byte voids (`'<V2'`) that `np.save` writes for an ml_dtypes `bfloat16` array: numpy
//!   has no bfloat16 of its own, and a void is what it can express without ml_dtypes
//!   (`half::bf16` reads them back, see [`DynArray::view_as`](crate::DynArray::view_as)).
//!   [`SafetensorsOptions::safetensors_to_npy`] writes one tensor as an `.npy` file.
//!
//! Dtypes one format lacks are refused, naming the array and its dtype: numpy's strings,
//! records, objects, datetimes, timedeltas, complex128 (safetensors' one complex dtype,
//! `C64`, is numpy's complex64, converted both ways) and long doubles; safetensors' FP8, FP6
//! and FP4 (numpy has none; ml_dtypes' float8 arrays are voids). A two-byte void (`'<V2'`) is
//! converted only when the caller says it holds bfloat16
//! ([`SafetensorsOptions::void_as_bf16`]): a void is never guessed to be one.
//! Neither format has a place for the other's extras: members of an archive that are not
//! arrays are refused, and a safetensors file's `__metadata__` is not carried over.
//!
//! # Memory and speed
//!
//! Data is streamed: an array in C order (any byte order) passes through an 8 MiB buffer,
//! so converting a bundle of any size takes a few MiB. The data of a stored archive member
//! (what `np.savez` writes) that needs no conversion (little-endian or one-byte elements, C
//! order) is copied by two threads in a pipeline: one reads 4 MiB at a time and hashes it
//! for the member's CRC-32 while it is in the cache, the other writes the chunk before
//! (three buffers, 12 MiB), so the data is read once (the `safetensors` case of
//! `ndnpy-benchmarks` measures it against copying the same bytes). An array stored in Fortran order with
//! more than one axis longer than one is transposed in memory: it is read whole (memory
//! grows with the bytes that arrive), then written in C order. A safetensors header is at
//! most 100,000,000 bytes (the safetensors crate's limit), read only if the file holds it;
//! every offset and size in it is checked against the others and against the file's
//! length before any data is read.
//!
//! Outputs are written atomically, as [`write_file_atomically`] writes: after an error
//! (a truncated or foreign input, a dtype the target lacks) no output file is left behind,
//! and an existing one is untouched.
//!
//! # Examples
//!
//! ```
//! use ndarray::array;
//! # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-mod-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let mut npz = ndnpy::NpzWriter::create(dir.join("weights.npz"))?;
//! npz.add_array("layer1.weight", &array![[0.5f32, 1.5], [2.5, 3.5]])?;
//! npz.add_array("layer1.bias", &array![1i64, 2])?;
//! npz.finish()?;
//!
//! ndnpy::safetensors::npz_to_safetensors(dir.join("weights.npz"), dir.join("w.safetensors"))?;
//! ndnpy::safetensors::safetensors_to_npz(dir.join("w.safetensors"), dir.join("back.npz"))?;
//!
//! let mut back = ndnpy::NpzReader::open(dir.join("back.npz"))?;
//! // The safetensors file's order: I64 sorts after F32 in save_file's order (widest first).
//! assert_eq!(back.names()?, ["layer1.bias", "layer1.weight"]);
//! let w: ndarray::Array2<f32> = back.by_name("layer1.weight")?;
//! assert_eq!(w, array![[0.5f32, 1.5], [2.5, 3.5]]);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [safetensors]: https://huggingface.co/docs/safetensors

use crate::array::options::ReadOptions;
use crate::array::write::{write_file_atomically, WriteNpyExt, WriteOptions};
use crate::npz::{NpzReader, NpzWriteOptions, NpzWriter};
use crate::source::ReadAt;
use ::safetensors::tensor::{Dtype, Metadata, TensorInfo};
use ndnpy_engine::base::dtype::{ByteOrder, DType, ScalarKind};
use ndnpy_engine::base::error::{
    conversion, truncated, with_path, Error, FormatError, MismatchError, UsageError,
};
use ndnpy_engine::element::check_bools_at;
use ndnpy_engine::format::header::Header;
use ndnpy_engine::platform::fsutil::{write_file, Publish, Sync};
use ndnpy_engine::platform::ioutil::read_part;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

/// The longest safetensors header read: the safetensors crate's own limit (100 MB).
///
/// ```
/// use ndnpy::safetensors::{safetensors_to_npz, MAX_HEADER_LEN};
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-max-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// // A header length over the limit is refused before anything is allocated.
/// let mut st = (MAX_HEADER_LEN + 1).to_le_bytes().to_vec();
/// st.extend_from_slice(b"{}");
/// std::fs::write(dir.join("huge.safetensors"), &st)?;
/// let err = safetensors_to_npz(dir.join("huge.safetensors"), dir.join("out.npz")).unwrap_err();
/// assert_eq!(err.kind(), ndnpy::ErrorKind::Header);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_HEADER_LEN: u64 = 100_000_000;

/// The buffer that streamed data passes through.
const CHUNK: usize = 8 << 20;

/// How a conversion treats what it cannot tell from the file, and how outputs are written.
///
/// # Examples
///
/// ```
/// use ndnpy::safetensors::SafetensorsOptions;
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-opts-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// // A bfloat16 array saved by numpy through ml_dtypes is a two-byte void ('<V2').
/// let bf16 = [half::bf16::from_f32(1.5), half::bf16::from_f32(-2.0)];
/// ndnpy::write_npy(dir.join("w.npy"), &ndarray::arr1(&bf16))?;
/// let opts = SafetensorsOptions::new().void_as_bf16(true).tensor_name("w");
/// opts.npz_to_safetensors(dir.join("w.npy"), dir.join("w.safetensors"))?;
/// // Without void_as_bf16, the void is refused rather than guessed.
/// let err = SafetensorsOptions::new()
///     .npz_to_safetensors(dir.join("w.npy"), dir.join("x.safetensors"))
///     .unwrap_err();
/// assert_eq!(err.kind(), ndnpy::ErrorKind::DType);
/// assert!(!dir.join("x.safetensors").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SafetensorsOptions {
    void_as_bf16: bool,
    tensor_name: Option<String>,
    durable: bool,
}

impl SafetensorsOptions {
    /// The defaults: voids refused, a lone `.npy` named after its file, not durable.
    ///
    /// # Examples
    ///
    /// ```
    /// let opts = ndnpy::safetensors::SafetensorsOptions::new();
    /// assert_eq!(opts, Default::default());
    /// ```
    pub fn new() -> SafetensorsOptions {
        SafetensorsOptions::default()
    }

    /// With `true`, arrays of dtype `'<V2'` (or `'>V2'`, `'|V2'`) are read as bfloat16 and
    /// written as `BF16` tensors; without it they are refused. numpy has no bfloat16: the
    /// arrays JAX and ml_dtypes save are two-byte voids, which could hold anything.
    ///
    /// # Examples
    ///
    /// ```
    /// let opts = ndnpy::safetensors::SafetensorsOptions::new().void_as_bf16(true);
    /// # let _ = opts;
    /// ```
    pub fn void_as_bf16(mut self, yes: bool) -> SafetensorsOptions {
        self.void_as_bf16 = yes;
        self
    }

    /// The name of the tensor a lone `.npy` file becomes (by default its file name without
    /// the extension, or `arr_0`, numpy's name for a positional array, if it has none); for
    /// [`SafetensorsOptions::safetensors_to_npy`], the tensor to write.
    ///
    /// # Examples
    ///
    /// ```
    /// let opts = ndnpy::safetensors::SafetensorsOptions::new().tensor_name("embeddings");
    /// # let _ = opts;
    /// ```
    pub fn tensor_name(mut self, name: impl Into<String>) -> SafetensorsOptions {
        self.tensor_name = Some(name.into());
        self
    }

    /// With `true`, the output survives power loss once the call returns, as
    /// [`WriteOptions::durable`] says.
    ///
    /// # Examples
    ///
    /// ```
    /// let opts = ndnpy::safetensors::SafetensorsOptions::new().durable(true);
    /// # let _ = opts;
    /// ```
    pub fn durable(mut self, yes: bool) -> SafetensorsOptions {
        self.durable = yes;
        self
    }

    /// Writes the arrays of `input`, an `.npz` archive or an `.npy` file (told apart by their
    /// first bytes), as the safetensors file `output` (see the [module docs](self)).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::DType`](crate::ErrorKind::DType) for an array whose dtype safetensors
    ///   lacks (the message names the array and the dtype);
    /// - [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy) for an archive member that is not an
    ///   array;
    /// - [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the input is neither an `.npz` nor
    ///   an `.npy` file, or two members have the same key;
    /// - what reading the archive or `.npy` file returns (a truncated or corrupt input);
    /// - [`ErrorKind::Io`](crate::ErrorKind::Io) if reading or writing fails.
    ///
    /// No output file is left behind after an error.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::safetensors::SafetensorsOptions;
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-to-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// ndnpy::write_npy(dir.join("emb.npy"), &ndarray::array![[1.0f64, 2.0], [3.0, 4.0]])?;
    /// SafetensorsOptions::new().npz_to_safetensors(dir.join("emb.npy"), dir.join("emb.safetensors"))?;
    /// let bytes = std::fs::read(dir.join("emb.safetensors"))?;
    /// assert!(bytes[8..].starts_with(br#"{"emb":{"dtype":"F64","shape":[2,2],"data_offsets":[0,32]}}"#));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn npz_to_safetensors<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let input = input.as_ref();
        let mut magic = [0u8; 6];
        // The file is closed at the end of this block, before it is opened again below.
        let n = {
            let mut file = File::open(input).map_err(with_path("open", input))?;
            ndnpy_engine::platform::ioutil::read_full(&mut file, &mut magic)?
        };
        if magic[..n].starts_with(b"PK") {
            self.npz_source(input, output.as_ref())
        } else if magic[..n] == *b"\x93NUMPY" {
            self.npy_source(input, output.as_ref())
        } else {
            Err(UsageError::Archive {
                reason: format!(
                    "{} is neither an .npz archive nor an .npy file (it starts with b\"{}\")",
                    input.display(),
                    magic[..n].escape_ascii()
                ),
            }
            .into())
        }
    }

    /// Writes every tensor of the safetensors file `input` as an array of the `.npz`
    /// archive `output` (see the [module docs](self)).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::Header`](crate::ErrorKind::Header) for a malformed header (its length
    ///   over [`MAX_HEADER_LEN`], JSON that is not a safetensors header, offsets or sizes
    ///   that contradict each other, bytes after the last tensor);
    /// - [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the file ends before the
    ///   header or the data it declares;
    /// - [`ErrorKind::DType`](crate::ErrorKind::DType) for a tensor whose dtype numpy lacks;
    /// - [`ErrorKind::Io`](crate::ErrorKind::Io) if reading or writing fails.
    ///
    /// No output file is left behind after an error.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::safetensors::SafetensorsOptions;
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-npz-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // A file as safetensors.numpy.save_file({"x": np.array([1, 2], np.int32)}) writes it.
    /// let mut st = 56u64.to_le_bytes().to_vec();
    /// st.extend_from_slice(br#"{"x":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}}  "#);
    /// st.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
    /// std::fs::write(dir.join("x.safetensors"), &st)?;
    /// SafetensorsOptions::new().safetensors_to_npz(dir.join("x.safetensors"), dir.join("x.npz"))?;
    /// let x: ndarray::Array1<i32> = ndnpy::NpzReader::open(dir.join("x.npz"))?.by_name("x")?;
    /// assert_eq!(x, ndarray::array![1, 2]);
    ///
    /// // Cut short: an error, and no x2.npz.
    /// std::fs::write(dir.join("cut.safetensors"), &st[..st.len() - 1])?;
    /// let err = SafetensorsOptions::new()
    ///     .safetensors_to_npz(dir.join("cut.safetensors"), dir.join("x2.npz"))
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::Truncated);
    /// assert!(!dir.join("x2.npz").exists());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn safetensors_to_npz<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let st = StFile::open(input.as_ref())?;
        let arrays = st.arrays()?;
        let options = NpzWriteOptions::new().durable(self.durable);
        let mut npz = NpzWriter::create_with_options(output, &options)?;
        for array in &arrays {
            npz.add(array.name.clone(), array)?;
        }
        npz.close()?;
        Ok(())
    }

    /// Writes one tensor of the safetensors file `input` as the `.npy` file `output`: the
    /// one named by [`SafetensorsOptions::tensor_name`], or else the file's only tensor.
    /// The file is what `np.save` writes for the array `safetensors.numpy.load_file` gives.
    ///
    /// # Errors
    ///
    /// As [`SafetensorsOptions::safetensors_to_npz`];
    /// [`ErrorKind::MissingMember`](crate::ErrorKind::MissingMember) if the named tensor is
    /// not in the file, [`ErrorKind::Usage`](crate::ErrorKind::Usage) if no name is given and
    /// the file does not hold exactly one tensor.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::safetensors::SafetensorsOptions;
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-npy-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut npz = ndnpy::NpzWriter::create(dir.join("ab.npz"))?;
    /// npz.add_array("a", &ndarray::array![1u8, 2])?;
    /// npz.add_array("b", &ndarray::array![0.5f32])?;
    /// npz.finish()?;
    /// let opts = SafetensorsOptions::new();
    /// opts.npz_to_safetensors(dir.join("ab.npz"), dir.join("ab.safetensors"))?;
    /// opts.clone().tensor_name("b").safetensors_to_npy(dir.join("ab.safetensors"), dir.join("b.npy"))?;
    /// let b: ndarray::Array1<f32> = ndnpy::read_npy(dir.join("b.npy"))?;
    /// assert_eq!(b, ndarray::array![0.5]);
    /// // Two tensors and no name: which one?
    /// assert!(opts.safetensors_to_npy(dir.join("ab.safetensors"), dir.join("c.npy")).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn safetensors_to_npy<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let st = StFile::open(input.as_ref())?;
        let name = match &self.tensor_name {
            Some(name) => name.clone(),
            None if st.tensors.len() == 1 => st.tensors[0].0.clone(),
            None => {
                return Err(UsageError::Archive {
                    reason: format!(
                        "{} holds {} tensors; name the one to write as .npy",
                        input.as_ref().display(),
                        st.tensors.len()
                    ),
                }
                .into())
            }
        };
        let arrays = st.arrays()?;
        let Some(array) = arrays.iter().find(|a| a.name == name) else {
            return Err(MismatchError::MissingMember {
                name,
                keys: arrays.iter().take(10).map(|a| a.name.clone()).collect(),
                len: arrays.len(),
            }
            .into());
        };
        let opts = WriteOptions::new().durable(self.durable);
        write_file_atomically(output, &opts, |w| {
            array.write_npy_with_options(w, &WriteOptions::default())
        })
    }

    /// `.npz` input: plan every member from its header, then stream them in safetensors'
    /// order.
    fn npz_source(&self, input: &Path, output: &Path) -> Result<(), Error> {
        let mut npz = NpzReader::open(input)?;
        let mut plans = Vec::with_capacity(npz.len());
        let mut seen = HashSet::new();
        for index in 0..npz.len() {
            let mut member = npz.member(index)?;
            let key = member.info().key().to_string();
            let (name, crc32) = (member.info().name().to_string(), member.info().crc32());
            let info = member.header()?;
            let range = member.stored_range()?;
            if !seen.insert(key.clone()) {
                return Err(UsageError::DuplicateMember { name: key }.into());
            }
            let mut plan = Plan::new(key, info.header, index, self.void_as_bf16)?;
            if let Some(range) = range {
                let data_start = range.start.saturating_add(info.data_offset);
                // A member too short for its array takes the streaming path, whose error
                // says so.
                let fits = data_start.saturating_add(plan.len as u64) <= range.end;
                if fits && plan.len > 0 && !plan.swaps() && !plan.transposes() {
                    plan.stored = Some(Stored {
                        member: name,
                        range,
                        data_start,
                        crc32,
                    });
                }
            }
            plans.push(plan);
        }
        let archive = File::open(input).map_err(with_path("open", input))?;
        write_safetensors(output, plans, self.durable, |plan, out| {
            if let Some(stored) = &plan.stored {
                return copy_stored(&archive, stored, plan, out);
            }
            let mut member = npz.member(plan.source)?;
            member.with_reader(|r, opts| {
                stream_npy(r, opts, plan, out)?;
                // Read to the member's end, so that its CRC-32 is checked.
                io::copy(r, &mut io::sink())?;
                Ok(())
            })
        })
    }

    /// `.npy` input: one tensor.
    fn npy_source(&self, input: &Path, output: &Path) -> Result<(), Error> {
        let name = match &self.tensor_name {
            Some(name) => name.clone(),
            None => input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "arr_0".to_string()),
        };
        let opts = ReadOptions::default();
        let mut file = File::open(input).map_err(with_path("open", input))?;
        let info = Header::read(&mut file, &opts)?;
        let len = file.metadata().map_err(with_path("read", input))?.len();
        info.check_data_within(len)?;
        let plan = Plan::new(name, info.header, 0, self.void_as_bf16)?;
        write_safetensors(output, vec![plan], self.durable, |plan, out| {
            let out: &mut dyn Write = out;
            let mut file = File::open(input).map_err(with_path("open", input))?;
            stream_npy(&mut file, &opts, plan, out)
        })
    }
}

/// Writes the arrays of the `.npz` archive (or `.npy` file) `input` as the safetensors file
/// `output`, with the default [`SafetensorsOptions`] (two-byte voids refused).
///
/// # Errors
///
/// As [`SafetensorsOptions::npz_to_safetensors`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-fn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let mut npz = ndnpy::NpzWriter::create(dir.join("a.npz"))?;
/// npz.add_array("names", &ndarray::array!["x".to_string()])?;
/// npz.finish()?;
/// let err = ndnpy::safetensors::npz_to_safetensors(dir.join("a.npz"), dir.join("a.safetensors"))
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "'names': dtype '<U1' has no safetensors equivalent: strings have no safetensors dtype"
/// );
/// assert!(!dir.join("a.safetensors").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn npz_to_safetensors<P: AsRef<Path>, Q: AsRef<Path>>(
    input: P,
    output: Q,
) -> Result<(), Error> {
    SafetensorsOptions::new().npz_to_safetensors(input, output)
}

/// Writes the tensors of the safetensors file `input` as the `.npz` archive `output`, with
/// the default [`SafetensorsOptions`].
///
/// # Errors
///
/// As [`SafetensorsOptions::safetensors_to_npz`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-st-fn2-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("foreign.safetensors"), b"not a safetensors file")?;
/// let err = ndnpy::safetensors::safetensors_to_npz(
///     dir.join("foreign.safetensors"),
///     dir.join("out.npz"),
/// )
/// .unwrap_err();
/// assert!(err.kind().is_format());
/// assert!(!dir.join("out.npz").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn safetensors_to_npz<P: AsRef<Path>, Q: AsRef<Path>>(
    input: P,
    output: Q,
) -> Result<(), Error> {
    SafetensorsOptions::new().safetensors_to_npz(input, output)
}

/// One array on its way to a tensor.
struct Plan {
    name: String,
    header: Header,
    dtype: Dtype,
    /// Its data's length in bytes.
    len: usize,
    /// The member index (`.npz`).
    source: usize,
    /// Where a stored member's data lies in the archive, when it can be copied as it is.
    stored: Option<Stored>,
}

/// A stored archive member whose data needs no conversion (little-endian or one-byte
/// elements, C order or a single long axis): copied from the archive to the output file as
/// it is ([`copy_stored`]), its CRC-32 computed from the bytes read.
struct Stored {
    /// The member's name in the archive, for errors.
    member: String,
    /// The member's bytes in the archive (the whole `.npy` file: what the CRC-32 covers).
    range: std::ops::Range<u64>,
    /// Where the array data starts in the archive.
    data_start: u64,
    /// The CRC-32 its directory entry declares.
    crc32: u32,
}

impl Plan {
    /// Whether the data must be byte-swapped to little-endian.
    fn swaps(&self) -> bool {
        // A void's byte order is kept when parsed ('>V2': bfloat16 stored big-endian).
        self.header.dtype.itemsize() > 1
            && self.header.dtype.as_scalar().map(|s| s.byte_order()) == Some(ByteOrder::Big)
    }

    /// Whether the data are bools, whose bytes are checked as they are copied: the readers
    /// refuse a byte other than 0 or 1, so no conversion writes one.
    fn bools(&self) -> bool {
        is_bool(&self.header.dtype)
    }

    /// Whether the data must be reordered: Fortran order with more than one axis longer
    /// than one.
    fn transposes(&self) -> bool {
        self.header.fortran_order && self.header.shape.iter().filter(|&&d| d > 1).count() > 1
    }

    fn new(name: String, header: Header, source: usize, void_as_bf16: bool) -> Result<Plan, Error> {
        // A tensor of this name would be read back as the header's metadata, which every
        // reader (safetensors' own too) then refuses.
        if name == "__metadata__" {
            return Err(conversion(
                "an array named '__metadata__' cannot be a safetensors tensor: the \
                         format keeps that name for its metadata (rename the array)"
                    .to_string(),
            ));
        }
        let dtype = safetensors_dtype(&name, &header.dtype, void_as_bf16)?;
        let (_, len) = header.sizes()?;
        Ok(Plan {
            name,
            header,
            dtype,
            len,
            source,
            stored: None,
        })
    }
}

/// The safetensors dtype of `dtype`, or the error that names `name`.
fn safetensors_dtype(name: &str, dtype: &DType, void_as_bf16: bool) -> Result<Dtype, Error> {
    let refuse = |hint: &str| -> Error {
        MismatchError::NoEquivalent {
            name: name.to_string(),
            dtype: dtype.descr(),
            target: "safetensors",
            hint: hint.to_string(),
        }
        .into()
    };
    let Some(scalar) = dtype.as_scalar() else {
        return Err(refuse(if dtype.as_structured().is_some() {
            "records have no safetensors dtype (convert their fields one by one)"
        } else {
            "sub-array dtypes have no safetensors dtype"
        }));
    };
    Ok(match (scalar.kind(), scalar.size()) {
        (ScalarKind::Bool, 1) => Dtype::BOOL,
        (ScalarKind::Int, 1) => Dtype::I8,
        (ScalarKind::Int, 2) => Dtype::I16,
        (ScalarKind::Int, 4) => Dtype::I32,
        (ScalarKind::Int, 8) => Dtype::I64,
        (ScalarKind::UInt, 1) => Dtype::U8,
        (ScalarKind::UInt, 2) => Dtype::U16,
        (ScalarKind::UInt, 4) => Dtype::U32,
        (ScalarKind::UInt, 8) => Dtype::U64,
        (ScalarKind::Float, 2) => Dtype::F16,
        (ScalarKind::Float, 4) => Dtype::F32,
        (ScalarKind::Float, 8) => Dtype::F64,
        (ScalarKind::Complex, 8) => Dtype::C64,
        (ScalarKind::Void, 2) if void_as_bf16 => Dtype::BF16,
        (ScalarKind::Void, 2) => {
            return Err(refuse(
                "a two-byte void may hold bfloat16 (as ml_dtypes saves it); say so with \
                 void_as_bf16 (ndnpy convert --void-as bf16)",
            ))
        }
        (ScalarKind::Float, _) => return Err(refuse("long doubles have no safetensors dtype")),
        (ScalarKind::Complex, _) => {
            return Err(refuse(
                "safetensors' one complex dtype is C64, numpy's complex64 ('<c8')",
            ))
        }
        (ScalarKind::Bytes | ScalarKind::Unicode, _) => {
            return Err(refuse("strings have no safetensors dtype"))
        }
        (ScalarKind::Datetime | ScalarKind::Timedelta, _) => {
            return Err(refuse(
                "datetimes and timedeltas have no safetensors dtype (view them as int64 first)",
            ))
        }
        (ScalarKind::Object, _) => {
            return Err(refuse("pickled Python objects have no safetensors dtype"))
        }
        _ => {
            return Err(refuse(
                "only numbers, bools and (on request) bfloat16 voids",
            ))
        }
    })
}

/// Writes the safetensors file: `plans` sorted as safetensors sorts them, the header, then
/// each array's data through `data`.
fn write_safetensors(
    output: &Path,
    mut plans: Vec<Plan>,
    durable: bool,
    mut data: impl FnMut(&Plan, &mut File) -> Result<(), Error>,
) -> Result<(), Error> {
    // safetensors' order (safetensors::tensor::prepare): widest dtype first, then by name.
    plans.sort_by(|a, b| b.dtype.cmp(&a.dtype).then_with(|| a.name.cmp(&b.name)));
    let mut offset = 0usize;
    let mut infos = Vec::with_capacity(plans.len());
    for plan in &plans {
        let end = offset
            .checked_add(plan.len)
            .ok_or_else(|| too_large(&plan.name))?;
        infos.push((
            plan.name.clone(),
            TensorInfo {
                dtype: plan.dtype,
                shape: plan.header.shape.clone(),
                data_offsets: (offset, end),
            },
        ));
        offset = end;
    }
    let metadata = Metadata::new(None, infos).map_err(|e| UsageError::Archive {
        reason: format!("cannot write the safetensors header: {e}"),
    })?;
    let mut header = serde_json::to_vec(&metadata).map_err(io::Error::other)?;
    header.resize(header.len().next_multiple_of(8), b' ');
    // As write_file_atomically, with the file itself, which stored members are copied into.
    write_file(output, Publish::Replace, Sync::durable_if(durable), |out| {
        header.splice(0..0, (header.len() as u64).to_le_bytes());
        out.write_all(&header)?;
        for plan in &plans {
            data(plan, out)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Copies a stored member's data from `archive` to the end of `out`, checking the member's
/// CRC-32 on the bytes read (and bools' bytes): with two cores, one thread reads and hashes a
/// chunk while this one writes the last; with one, each chunk is read, hashed and written in
/// turn.
fn copy_stored(archive: &File, stored: &Stored, plan: &Plan, out: &mut File) -> Result<(), Error> {
    let (len, bools) = (plan.len, plan.bools());
    let data = stored.data_start..stored.data_start + len as u64;
    // The member's bytes around the data (its `.npy` header, anything after) count in its
    // CRC-32 too.
    let before = stored.range.start..data.start;
    let after = data.end..stored.range.end;
    let found = if ndnpy_engine::platform::prefault::cores() > 1 {
        // Two threads in a pipeline: this one writes a chunk while the other reads the next
        // and hashes it (while it is in the cache), so the data is read once.
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<(Vec<u8>, usize)>(COPY_BUFFERS);
        let (free_tx, free_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(COPY_BUFFERS);
        for _ in 0..COPY_BUFFERS {
            free_tx
                .send(vec![0u8; COPY_CHUNK.min(len.max(1))])
                .expect("the channel holds them");
        }
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || -> Result<crc32fast::Hasher, Error> {
                let mut hasher = crc32fast::Hasher::new();
                hash_range(archive, before, &mut hasher)?;
                let mut at = data.start;
                while at < data.end {
                    let Ok(mut buf) = free_rx.recv() else {
                        break; // the writer failed
                    };
                    let n = read_hashed(archive, &mut buf, at..data.end, &mut hasher)?;
                    at += n as u64;
                    if full_tx.send((buf, n)).is_err() {
                        break;
                    }
                }
                drop(full_tx);
                hash_range(archive, after, &mut hasher)?;
                Ok(hasher)
            });
            let mut written: Result<(), Error> = Ok(());
            let mut done = 0u64;
            for (buf, n) in full_rx.iter() {
                let checked = match bools {
                    true => check_bools_at(&buf[..n], done),
                    false => Ok(()),
                };
                if let Err(e) = checked.and_then(|()| Ok(out.write_all(&buf[..n])?)) {
                    written = Err(e);
                    break;
                }
                done += n as u64;
                let _ = free_tx.send(buf);
            }
            drop(full_rx);
            drop(free_tx);
            let hasher = reader
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the reading thread panicked").into()));
            written.and(hasher.map(|h| h.finalize()))
        })?
    } else {
        let mut hasher = crc32fast::Hasher::new();
        hash_range(archive, before, &mut hasher)?;
        let mut buf = vec![0u8; COPY_CHUNK.min(len.max(1))];
        let mut at = data.start;
        while at < data.end {
            let n = read_hashed(archive, &mut buf, at..data.end, &mut hasher)?;
            if bools {
                check_bools_at(&buf[..n], at - data.start)?;
            }
            out.write_all(&buf[..n])?;
            at += n as u64;
        }
        hash_range(archive, after, &mut hasher)?;
        hasher.finalize()
    };
    ndnpy_engine::archive::member::check_crc(stored.crc32, found)
        .map_err(|e| Error::from(e).in_member(&stored.member))
}

/// The buffers of a stored member's copy, and their size.
const COPY_BUFFERS: usize = 3;
const COPY_CHUNK: usize = 4 << 20;

/// Fills `buf` (or as much of it as `range` holds) from `file` at `range.start` and adds the
/// bytes to `hasher` in 256 KiB steps, each while it is in the cache; the bytes read.
fn read_hashed(
    file: &File,
    buf: &mut [u8],
    range: std::ops::Range<u64>,
    hasher: &mut crc32fast::Hasher,
) -> Result<usize, Error> {
    let n = ((range.end - range.start) as usize).min(buf.len());
    ReadAt::read_at(&mut { file }, range.start, &mut buf[..n])?;
    for step in buf[..n].chunks(256 << 10) {
        hasher.update(step);
    }
    Ok(n)
}

/// Adds `range` of `file` to `hasher` (the few bytes of a member around its data).
fn hash_range(
    file: &File,
    range: std::ops::Range<u64>,
    hasher: &mut crc32fast::Hasher,
) -> Result<(), Error> {
    let mut buf = vec![0u8; (range.end.saturating_sub(range.start)).min(256 << 10) as usize];
    let mut at = range.start;
    while at < range.end {
        at += read_hashed(file, &mut buf, at..range.end, hasher)? as u64;
    }
    Ok(())
}

fn too_large(name: &str) -> Error {
    UsageError::Archive {
        reason: format!(
            "the tensors up to {} add up to more bytes than fit in memory addresses",
            ndnpy_engine::base::error::Capped(name)
        ),
    }
    .into()
}

/// Reads an `.npy` stream (header included) and writes its data as `plan` says: little
/// endian, C order.
fn stream_npy(
    r: &mut dyn Read,
    opts: &ReadOptions,
    plan: &Plan,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let info = Header::read(r, opts)?;
    if info.header != plan.header {
        return Err(UsageError::Archive {
            reason: format!(
                "{} changed while it was being converted",
                ndnpy_engine::base::error::Capped(&plan.name)
            ),
        }
        .into());
    }
    let itemsize = plan.header.dtype.itemsize();
    // The bytes reversed at a time: each element, or each part of a complex number.
    let swap = match plan.header.dtype.as_scalar() {
        _ if !plan.swaps() => None,
        Some(s) if s.kind() == ScalarKind::Complex => Some(itemsize / 2),
        _ => Some(itemsize),
    };
    if plan.len == 0 {
        return Ok(());
    }
    if plan.transposes() {
        return transpose(r, plan, itemsize, swap, out);
    }
    let mut buf = vec![0u8; plan.len.min(CHUNK)];
    let mut left = plan.len;
    while left > 0 {
        let part = &mut buf[..left.min(CHUNK)];
        read_part(r, part, "array data")?;
        if plan.bools() {
            check_bools_at(part, (plan.len - left) as u64)?;
        }
        if let Some(unit) = swap {
            swap_items(part, unit);
        }
        out.write_all(part)?;
        left -= part.len();
    }
    Ok(())
}

/// Reverses the bytes of each `unit`-byte value of `bytes` (an element, or a part of one).
fn swap_items(bytes: &mut [u8], unit: usize) {
    for item in bytes.chunks_exact_mut(unit) {
        item.reverse();
    }
}

/// Reads the Fortran-order data of `plan` whole (memory grows with the bytes that arrive),
/// then writes it in C order.
fn transpose(
    r: &mut dyn Read,
    plan: &Plan,
    itemsize: usize,
    swap: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let mut data = Vec::new();
    data.try_reserve_exact(plan.len.min(CHUNK))
        .map_err(|_| Error::out_of_memory(plan.len.min(CHUNK), "a tensor's data"))?;
    let found = r.take(plan.len as u64).read_to_end(&mut data)?;
    if found < plan.len {
        return Err(truncated(plan.len as u64, found as u64));
    }
    if plan.bools() {
        check_bools_at(&data, 0)?;
    }
    let mut buf = Vec::with_capacity(plan.len.min(CHUNK));
    for at in ndnpy_engine::format::layout::fortran_offsets(&plan.header.shape) {
        let from = buf.len();
        buf.extend_from_slice(&data[at * itemsize..][..itemsize]);
        if let Some(unit) = swap {
            swap_items(&mut buf[from..], unit);
        }
        if buf.len() + itemsize > CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    Ok(())
}

/// An open safetensors file whose header has been checked against itself and the file.
struct StFile {
    file: File,
    /// Where the data starts.
    data_start: u64,
    /// The tensors in the order of their data.
    tensors: Vec<(String, TensorInfo)>,
}

impl StFile {
    fn open(path: &Path) -> Result<StFile, Error> {
        let mut file = File::open(path).map_err(with_path("open", path))?;
        let file_len = file.metadata().map_err(with_path("read", path))?.len();
        let mut n = [0u8; 8];
        read_part(&mut file, &mut n, "safetensors header length")?;
        let n = u64::from_le_bytes(n);
        if n > MAX_HEADER_LEN {
            return Err(bad(format!(
                "its header length is {n} bytes; at most {MAX_HEADER_LEN} are read"
            )));
        }
        let avail = file_len.saturating_sub(8);
        if n > avail {
            return Err(FormatError::Truncated {
                part: "safetensors header",
                expected: n,
                found: avail,
            }
            .into());
        }
        // n <= MAX_HEADER_LEN and the file holds n bytes more: allocate them.
        let mut header = Vec::new();
        header
            .try_reserve_exact(n as usize)
            .map_err(|_| Error::out_of_memory(n as usize, "the safetensors header"))?;
        header.resize(n as usize, 0);
        read_part(&mut file, &mut header, "safetensors header")?;
        // The safetensors crate checks the JSON, the dtypes, and that the offsets follow
        // each other from 0 with each tensor's size (checked arithmetic).
        let metadata: Metadata = serde_json::from_slice(&header).map_err(|e| bad(e.to_string()))?;
        let data_len = metadata.data_len() as u64;
        let data_start = 8 + n;
        let data_avail = file_len - data_start;
        if data_len > data_avail {
            return Err(FormatError::Truncated {
                part: "tensor data",
                expected: data_len,
                found: data_avail,
            }
            .into());
        }
        if data_len < data_avail {
            return Err(bad(format!(
                "{} bytes follow the last tensor's data",
                data_avail - data_len
            )));
        }
        let tensors = metadata
            .offset_keys()
            .into_iter()
            .filter_map(|name| {
                let info = metadata.info(&name)?.clone();
                Some((name, info))
            })
            .collect();
        Ok(StFile {
            file,
            data_start,
            tensors,
        })
    }

    /// The tensors as arrays to write, in the file's order.
    fn arrays(&self) -> Result<Vec<Tensor<'_>>, Error> {
        self.tensors
            .iter()
            .map(|(name, info)| {
                let descr = numpy_descr(name, info.dtype)?;
                let header = Header {
                    dtype: DType::from_descr(descr)?,
                    fortran_order: false,
                    shape: info.shape.clone(),
                };
                let (start, end) = info.data_offsets;
                Ok(Tensor {
                    name: name.clone(),
                    header,
                    file: &self.file,
                    start: self.data_start + start as u64,
                    len: end - start,
                })
            })
            .collect()
    }
}

/// Whether `dtype` is numpy's bool.
fn is_bool(dtype: &DType) -> bool {
    dtype
        .as_scalar()
        .is_some_and(|s| s.kind() == ScalarKind::Bool)
}

fn bad(reason: String) -> Error {
    FormatError::Foreign {
        format: "safetensors",
        reason,
    }
    .into()
}

/// numpy's descr for a safetensors dtype, as `np.save` writes the array
/// `safetensors.numpy.load_file` gives (for `BF16`, an ml_dtypes `bfloat16` array).
fn numpy_descr(name: &str, dtype: Dtype) -> Result<&'static str, Error> {
    Ok(match dtype {
        Dtype::BOOL => "'|b1'",
        Dtype::U8 => "'|u1'",
        Dtype::I8 => "'|i1'",
        Dtype::I16 => "'<i2'",
        Dtype::U16 => "'<u2'",
        Dtype::I32 => "'<i4'",
        Dtype::U32 => "'<u4'",
        Dtype::I64 => "'<i8'",
        Dtype::U64 => "'<u8'",
        Dtype::F16 => "'<f2'",
        Dtype::F32 => "'<f4'",
        Dtype::F64 => "'<f8'",
        Dtype::BF16 => "'<V2'",
        Dtype::C64 => "'<c8'",
        other => {
            return Err(MismatchError::NoEquivalent {
                name: name.to_string(),
                dtype: other.to_string(),
                target: "numpy",
                hint: "numpy has no float8, float6 or float4 dtype".to_string(),
            }
            .into())
        }
    })
}

/// A tensor of an open safetensors file, written as an `.npy` file by reading its bytes
/// in place.
struct Tensor<'f> {
    name: String,
    header: Header,
    file: &'f File,
    start: u64,
    len: usize,
}

impl WriteNpyExt for Tensor<'_> {
    fn write_npy<W: Write>(
        &self,
        writer: W,
    ) -> Result<(), ndnpy_engine::base::error::ndarray_npy::WriteNpyError> {
        Ok(self.write_npy_with_options(writer, &WriteOptions::default())?)
    }

    /// The tensor's bytes as they are: `opts` does not apply.
    fn write_npy_with_options<W: Write>(
        &self,
        mut writer: W,
        _: &WriteOptions,
    ) -> Result<(), Error> {
        writer.write_all(&self.header.to_bytes()?)?;
        let mut buf = vec![0u8; self.len.min(CHUNK)];
        let mut done = 0usize;
        while done < self.len {
            let part = &mut buf[..(self.len - done).min(CHUNK)];
            ReadAt::read_at(&mut { self.file }, self.start + done as u64, part)?;
            if is_bool(&self.header.dtype) {
                check_bools_at(part, done as u64).map_err(|e| e.in_member(&self.name))?;
            }
            writer.write_all(part)?;
            done += part.len();
        }
        writer.flush()?;
        Ok(())
    }

    fn npy_len(&self, _opts: &WriteOptions) -> Option<u64> {
        let header = self.header.to_bytes().ok()?.len();
        Some(header as u64 + self.len as u64)
    }
}
