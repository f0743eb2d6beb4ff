//! `ndnpy._ndnpy`: the Rust half of the Python package `ndnpy`. It is thin on purpose: the
//! package's Python code keeps numpy's signatures and builds numpy's arrays; this module
//! hands it what ndnpy's engine reads and writes: `.npy` headers, array data into memory
//! numpy allocated (no second copy), `.npz` members, object arrays rebuilt by the pickle
//! reader that runs no code, and archives deflated on every core.

use ndnpy::dtype::DType;
use ndnpy::dynamic::{PyTime, PyTimeZone};
use ndnpy::header::PickleEncoding;
use ndnpy::npz::{Compression, NpzWriteOptions};
use ndnpy::{DynArray, DynData, Error, ErrorKind, Fault, Header, PyValue, ReadOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyOSError, PyUnicodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PyList, PySet, PyTuple};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

create_exception!(
    _ndnpy,
    UnsafePickleError,
    PyValueError,
    "An object array's pickle names a global (a function or class) that ndnpy does not \
     rebuild, or holds something it does not rebuild. Nothing of it was run or imported."
);

/// The engine's error as Python's: I/O errors `OSError` (with the path), a pickle that
/// would run code `UnsafePickleError`, a missing member `KeyError`, the rest `ValueError`
/// (as numpy raises for a malformed file).
fn py_err(e: Error, path: Option<&str>) -> PyErr {
    let text = e.to_string();
    match (e.kind(), e.fault()) {
        (ErrorKind::Io, _) => {
            let errno = e.io_error().and_then(std::io::Error::raw_os_error);
            match (errno, path) {
                (Some(n), Some(p)) => PyOSError::new_err((n, text, p.to_string())),
                (Some(n), None) => PyOSError::new_err((n, text)),
                (None, _) => PyOSError::new_err(text),
            }
        }
        (_, Some(Fault::PickleGlobal | Fault::PickleUnsupported)) => {
            UnsafePickleError::new_err(text)
        }
        // numpy's `UnicodeError` for a Python 2 str beyond ASCII under encoding='ASCII'.
        (_, Some(Fault::PickleEncoding)) => PyUnicodeError::new_err(text),
        (ErrorKind::MissingMember, _) => PyKeyError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

fn io_err(e: std::io::Error, path: &str) -> PyErr {
    py_err(Error::from(e), Some(path))
}

/// A header as the Python code takes it: numpy's descr literal (for
/// `numpy.lib.format.descr_to_dtype`), Fortran order, the shape, where the data starts from
/// the `.npy` file's first byte, and the data's length.
type HeaderTuple = (String, bool, Vec<usize>, u64, usize);

fn options(max_header_size: usize) -> ReadOptions {
    ReadOptions::new().max_header_len(max_header_size)
}

fn header_tuple(info: &ndnpy::header::HeaderInfo) -> HeaderTuple {
    let h = &info.header;
    (
        h.dtype.descr(),
        h.fortran_order,
        h.shape.clone(),
        info.data_offset,
        info.data_len,
    )
}

/// The header of the `.npy` file whose first bytes are `prefix` (all of the header).
#[pyfunction]
fn parse_header(prefix: &[u8], max_header_size: usize) -> PyResult<HeaderTuple> {
    let info =
        Header::read(&mut &prefix[..], &options(max_header_size)).map_err(|e| py_err(e, None))?;
    Ok(header_tuple(&info))
}

/// The header of the `.npy` file that starts at `offset` in the file at `path`.
#[pyfunction]
fn header_at(path: &str, offset: u64, max_header_size: usize) -> PyResult<HeaderTuple> {
    let mut file = File::open(path).map_err(|e| io_err(e, path))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| io_err(e, path))?;
    let info =
        Header::read(&mut file, &options(max_header_size)).map_err(|e| py_err(e, Some(path)))?;
    Ok(header_tuple(&info))
}

/// A buffer of numpy's: its address and length.
#[derive(Clone, Copy)]
struct Buffer {
    address: usize,
    len: usize,
}

impl Buffer {
    /// # Safety
    ///
    /// The Python caller passes `address` and `len` from `ndarray.__array_interface__` of a
    /// C- or Fortran-contiguous, writable array that it allocated for this call, holds a
    /// reference to until the call returns, and shares with no other thread meanwhile.
    unsafe fn slice<'a>(self) -> &'a mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as the function's contract says, `address..address + len` is one live,
        // writable allocation that nothing else reads or writes during the call.
        unsafe { std::slice::from_raw_parts_mut(self.address as *mut u8, self.len) }
    }

    /// # Safety
    ///
    /// As [`Buffer::slice`], but the array need not be writable: it is only read, and
    /// nothing writes it during the call.
    unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: as the function's contract says, `address..address + len` is one live
        // allocation that nothing writes during the call.
        unsafe { std::slice::from_raw_parts(self.address as *const u8, self.len) }
    }
}

/// Fills `buf` from `file` at `offset`, in two halves on two threads when it is large (as
/// the engine reads files): the data is read once, into place.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        const SPLIT: usize = 16 << 20;
        if buf.len() >= SPLIT && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
            let half = buf.len() / 2;
            let (a, b) = buf.split_at_mut(half);
            return std::thread::scope(|s| {
                let other = s.spawn(|| file.read_exact_at(b, offset + half as u64));
                let mine = file.read_exact_at(a, offset);
                let theirs = other
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("a reading thread failed")));
                mine.and(theirs)
            });
        }
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::Read;
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// Fills numpy's buffer at `address` (`nbytes`, see [`Buffer::slice`]) from `file` (shown
/// as `name`) at `offset`, with the interpreter running other threads meanwhile; a file too
/// short for it is numpy's `ValueError`.
fn fill_from(
    py: Python<'_>,
    file: &File,
    name: &str,
    offset: u64,
    address: usize,
    nbytes: usize,
) -> PyResult<()> {
    let len = file.metadata().map_err(|e| io_err(e, name))?.len();
    if len < offset.saturating_add(nbytes as u64) {
        return Err(PyValueError::new_err(format!(
            "{name}: EOF: reading array data, expected {nbytes} bytes got {}",
            len.saturating_sub(offset)
        )));
    }
    let buffer = Buffer {
        address,
        len: nbytes,
    };
    // SAFETY: the caller's contract (Buffer::slice): `read_into` and `read_into_fd` are
    // called by ndnpy/__init__.py (`_load_npy_path`, `_load_npy_stream`,
    // `NpzFile.__getitem__`) with the array it has just allocated, kept alive across the call.
    let out = unsafe { buffer.slice() };
    py.detach(|| read_at(file, out, offset))
        .map_err(|e| io_err(e, name))
}

/// Reads `nbytes` of array data at `offset` of the file at `path` into numpy's buffer at
/// `address` (see [`Buffer::slice`]).
#[pyfunction]
fn read_into(
    py: Python<'_>,
    path: &str,
    offset: u64,
    address: usize,
    nbytes: usize,
) -> PyResult<()> {
    let file = File::open(path).map_err(|e| io_err(e, path))?;
    fill_from(py, &file, path, offset, address, nbytes)
}

/// Reads `nbytes` of array data at `offset` of the open file `fd` (a descriptor the Python
/// caller duplicated for this call, which is closed here) into numpy's buffer at `address`
/// (see [`Buffer::slice`]): a file object's array read in place, as a path's.
#[cfg(unix)]
#[pyfunction]
fn read_into_fd(
    py: Python<'_>,
    fd: i32,
    offset: u64,
    address: usize,
    nbytes: usize,
) -> PyResult<()> {
    use std::os::fd::FromRawFd;
    // SAFETY: `_load_npy_stream` passes `os.dup(fileno())`, a descriptor that nothing else
    // owns; the File takes it over and closes it when dropped.
    let file = unsafe { File::from_raw_fd(fd) };
    fill_from(py, &file, "<file object>", offset, address, nbytes)
}

/// Python's values for the engine's, made by the package's helpers for what only numpy
/// makes (arrays, scalars, masked arrays).
struct Builder<'py> {
    py: Python<'py>,
    /// `array_from_npy(bytes)`: the array an `.npy` file's bytes hold (no objects in it).
    array_from_npy: Bound<'py, PyAny>,
    /// `object_array(shape, fortran, values)`: an object array of `values` in C order.
    object_array: Bound<'py, PyAny>,
    /// `masked(data, mask, fill_value)`: `numpy.ma.MaskedArray`.
    masked: Bound<'py, PyAny>,
    /// Short strings made so far, made once each (dict keys and labels repeat, as the
    /// pickle's memo shares them).
    strings: std::cell::RefCell<std::collections::HashMap<String, Bound<'py, PyAny>>>,
}

impl<'py> Builder<'py> {
    fn value(&self, v: &PyValue) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match v {
            PyValue::None => py.None().into_bound(py),
            PyValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
            PyValue::Int(i) => i.into_pyobject(py)?.into_any(),
            PyValue::BigInt(bytes) => {
                let kwargs = PyDict::new(py);
                kwargs.set_item("signed", true)?;
                py.get_type::<pyo3::types::PyInt>().call_method(
                    "from_bytes",
                    (PyBytes::new(py, bytes), "little"),
                    Some(&kwargs),
                )?
            }
            PyValue::Float(f) => f.into_pyobject(py)?.into_any(),
            PyValue::Complex(c) => pyo3::types::PyComplex::from_doubles(py, c.re, c.im).into_any(),
            PyValue::Str(s) if s.len() <= 64 => {
                let mut strings = self.strings.borrow_mut();
                if let Some(made) = strings.get(s.as_str()) {
                    return Ok(made.clone());
                }
                let made = s.into_pyobject(py)?.into_any();
                if strings.len() < 1 << 16 {
                    strings.insert(s.clone(), made.clone());
                }
                made
            }
            PyValue::Str(s) => s.into_pyobject(py)?.into_any(),
            PyValue::CodePoints(units) => {
                // Lone surrogates, as Python's str holds them.
                let chr = py.import("builtins")?.getattr("chr")?;
                let parts = units
                    .iter()
                    .map(|&u| chr.call1((u,)))
                    .collect::<PyResult<Vec<_>>>()?;
                "".into_pyobject(py)?.call_method1("join", (parts,))?
            }
            PyValue::Bytes(b) => PyBytes::new(py, b).into_any(),
            PyValue::ByteArray(b) => pyo3::types::PyByteArray::new(py, b).into_any(),
            PyValue::List(items) => PyList::new(py, self.values(items)?)?.into_any(),
            PyValue::Tuple(items) => PyTuple::new(py, self.values(items)?)?.into_any(),
            PyValue::Dict(pairs) => {
                let d = PyDict::new(py);
                for (k, v) in pairs {
                    d.set_item(self.value(k)?, self.value(v)?)?;
                }
                d.into_any()
            }
            PyValue::Set(items) => PySet::new(py, self.values(items)?)?.into_any(),
            PyValue::FrozenSet(items) => PyFrozenSet::new(py, self.values(items)?)?.into_any(),
            PyValue::Array(a) => self.array(a)?,
            // numpy's scalar: the 0-d array's element, as `a[()]` gives it.
            PyValue::Scalar(a) => self.array(a)?.get_item(PyTuple::empty(py))?,
            PyValue::RecArray(a) => self.recarray(a)?,
            PyValue::Record(a) => self.recarray(a)?.get_item(PyTuple::empty(py))?,
            PyValue::Range { start, stop, step } => py
                .import("builtins")?
                .getattr("range")?
                .call1((start, stop, step))?,
            PyValue::Class(name) if name == "builtins.range" => {
                py.import("builtins")?.getattr("range")?
            }
            PyValue::Class(name) => {
                return Err(UnsafePickleError::new_err(format!(
                    "the pickle refers to the class {name}, which ndnpy does not rebuild"
                )))
            }
            PyValue::MaskedArray {
                data,
                mask,
                fill_value,
            } => {
                let fill = match fill_value {
                    Some(f) => self.array(f)?,
                    None => py.None().into_bound(py),
                };
                self.masked
                    .call1((self.array(data)?, self.array(mask)?, fill))?
            }
            PyValue::Date(d) => self.datetime("date")?.call1((d.year, d.month, d.day))?,
            PyValue::Time(t) => {
                let kwargs = self.time_kwargs(t)?;
                let args = (t.hour, t.minute, t.second, t.microsecond);
                self.datetime("time")?.call(args, Some(&kwargs))?
            }
            PyValue::DateTime(d, t) => {
                let kwargs = self.time_kwargs(t)?;
                let args = (
                    d.year,
                    d.month,
                    d.day,
                    t.hour,
                    t.minute,
                    t.second,
                    t.microsecond,
                );
                self.datetime("datetime")?.call(args, Some(&kwargs))?
            }
            PyValue::TimeDelta(d) => {
                self.datetime("timedelta")?
                    .call1((d.days, d.seconds, d.microseconds))?
            }
            PyValue::TimeZone(tz) => self.timezone(tz)?,
            other => {
                return Err(UnsafePickleError::new_err(format!(
                    "the pickle holds a {}, which this package does not rebuild",
                    other.type_name()
                )))
            }
        })
    }

    /// A `numpy.recarray` viewing the array (its dtype becomes `(numpy.record, ...)`).
    fn recarray(&self, a: &DynArray) -> PyResult<Bound<'py, PyAny>> {
        let class = self.py.import("numpy")?.getattr("recarray")?;
        self.array(a)?.call_method1("view", (class,))
    }

    /// The class `name` of Python's `datetime` module.
    fn datetime(&self, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.py.import("datetime")?.getattr(name)
    }

    /// `timezone(offset[, name])`: `timezone.utc` itself for offset 0 without a name, as
    /// Python's unpickler gives.
    fn timezone(&self, tz: &PyTimeZone) -> PyResult<Bound<'py, PyAny>> {
        let o = tz.offset;
        let offset = self
            .datetime("timedelta")?
            .call1((o.days, o.seconds, o.microseconds))?;
        let class = self.datetime("timezone")?;
        match &tz.name {
            Some(name) => class.call1((offset, name)),
            None => class.call1((offset,)),
        }
    }

    /// `tzinfo` and `fold` of a time or datetime.
    fn time_kwargs(&self, t: &PyTime) -> PyResult<Bound<'py, PyDict>> {
        let kwargs = PyDict::new(self.py);
        kwargs.set_item("fold", u8::from(t.fold))?;
        if let Some(tz) = &t.tzinfo {
            kwargs.set_item("tzinfo", self.timezone(tz)?)?;
        }
        Ok(kwargs)
    }

    fn values(&self, items: &[PyValue]) -> PyResult<Vec<Bound<'py, PyAny>>> {
        items.iter().map(|v| self.value(v)).collect()
    }

    /// A numpy array for the engine's: objects element by element, anything else through
    /// its `.npy` bytes as the engine writes them (byte for byte as stored).
    fn array(&self, a: &DynArray) -> PyResult<Bound<'py, PyAny>> {
        if let DynData::Object(values) = a.data() {
            let items = values
                .iter()
                .map(|v| self.value(v))
                .collect::<PyResult<Vec<_>>>()?;
            let fortran = a.is_fortran_order();
            return self.object_array.call1((
                values.shape().to_vec(),
                fortran,
                PyList::new(self.py, items)?,
            ));
        }
        let mut npy = Vec::new();
        a.write_npy(&mut npy).map_err(|e| py_err(e, None))?;
        self.array_from_npy.call1((PyBytes::new(self.py, &npy),))
    }
}

/// An object array (or any array) from a whole `.npy` file's bytes, `source` from `offset`,
/// rebuilt without running code: what `np.load(..., allow_pickle=True)`
/// returns, made by the helpers (see [`Builder`]).
#[pyfunction]
#[pyo3(signature = (source, offset, max_header_size, encoding, array_from_npy, object_array, masked))]
#[allow(clippy::too_many_arguments)] // numpy's helpers, passed in once
fn load_objects<'py>(
    py: Python<'py>,
    source: &[u8],
    offset: u64,
    max_header_size: usize,
    encoding: &str,
    array_from_npy: Bound<'py, PyAny>,
    object_array: Bound<'py, PyAny>,
    masked: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let encoding = match encoding {
        "ASCII" => PickleEncoding::Ascii,
        "latin1" => PickleEncoding::Latin1,
        "bytes" => PickleEncoding::Bytes,
        other => {
            return Err(PyValueError::new_err(format!(
                "encoding must be 'ASCII', 'latin1', or 'bytes', not {other:?}"
            )))
        }
    };
    let opts = options(max_header_size).pickle_encoding(encoding);
    let start = (offset as usize).min(source.len());
    let array = py
        .detach(|| DynArray::read_npy_with_options(&source[start..], &opts))
        .map_err(|e| py_err(e, None))?;
    Builder {
        py,
        array_from_npy,
        object_array,
        masked,
        strings: Default::default(),
    }
    .array(&array)
}

/// An `.npz` archive open for reading, members read one at a time as asked.
#[pyclass(module = "ndnpy._ndnpy")]
struct Archive {
    path: String,
    reader: Option<ndnpy::NpzReader<File>>,
    max_header_size: usize,
}

impl Archive {
    fn reader(&mut self) -> PyResult<&mut ndnpy::NpzReader<File>> {
        self.reader
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the archive is closed"))
    }
}

#[pymethods]
impl Archive {
    #[new]
    fn new(path: String, max_header_size: usize) -> PyResult<Archive> {
        let file = File::open(&path).map_err(|e| io_err(e, &path))?;
        let reader = ndnpy::NpzReader::with_options(file, &options(max_header_size))
            .map_err(|e| py_err(e, Some(&path)))?;
        Ok(Archive {
            path,
            reader: Some(reader),
            max_header_size,
        })
    }

    /// The members' names in the archive, as stored (`a.npy`).
    fn names(&mut self) -> PyResult<Vec<String>> {
        Ok(self
            .reader()?
            .members()
            .map(|m| m.name().to_string())
            .collect())
    }

    /// The member's header, and where its `.npy` file starts in the archive if it is stored
    /// (its data can then be read in place), else `None`.
    fn header(&mut self, name: &str) -> PyResult<(HeaderTuple, Option<u64>)> {
        let path = self.path.clone();
        let mut member = self
            .reader()?
            .member(name)
            .map_err(|e| py_err(e, Some(&path)))?;
        let info = member.header().map_err(|e| py_err(e, Some(&path)))?;
        let stored = member.stored_range().map_err(|e| py_err(e, Some(&path)))?;
        Ok((header_tuple(&info), stored.map(|r| r.start)))
    }

    /// Inflates (or copies) the member's array data into numpy's buffer at `address` (see
    /// [`Buffer::slice`]), checking its CRC-32.
    fn read_into(
        &mut self,
        py: Python<'_>,
        name: &str,
        address: usize,
        nbytes: usize,
    ) -> PyResult<()> {
        let path = self.path.clone();
        let buffer = Buffer {
            address,
            len: nbytes,
        };
        let mut member = self
            .reader()?
            .member(name)
            .map_err(|e| py_err(e, Some(&path)))?;
        // SAFETY: the caller's contract (Buffer::slice): `NpzFile.__getitem__` passes the
        // array it has just allocated and keeps it alive across this call.
        let out = unsafe { buffer.slice() };
        py.detach(|| member.read_data_into(out))
            .map(drop)
            .map_err(|e| py_err(e, Some(&path)))
    }

    /// The member's whole `.npy` file (for object arrays, whose pickle is read from it).
    fn bytes<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let path = self.path.clone();
        let mut member = self
            .reader()?
            .member(name)
            .map_err(|e| py_err(e, Some(&path)))?;
        let bytes = py
            .detach(|| member.bytes())
            .map_err(|e| py_err(e, Some(&path)))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn close(&mut self) {
        self.reader = None;
    }

    #[getter]
    fn max_header_size(&self) -> usize {
        self.max_header_size
    }
}

/// An array numpy holds, as the engine writes it: its header's fields and its bytes in
/// memory order (C, or Fortran when `fortran`).
struct RawArray<'a> {
    header: Header,
    data: &'a [u8],
}

impl ndnpy::WriteNpyExt for RawArray<'_> {
    fn write_npy<W: Write>(&self, writer: W) -> Result<(), ndnpy::WriteNpyError> {
        Ok(self.write_npy_with_options(writer, &ndnpy::WriteOptions::default())?)
    }

    fn write_npy_with_options<W: Write>(
        &self,
        mut writer: W,
        _: &ndnpy::WriteOptions,
    ) -> Result<(), Error> {
        writer.write_all(&self.header.to_bytes()?)?;
        writer.write_all(self.data)?;
        Ok(())
    }

    fn npy_len(&self, _: &ndnpy::WriteOptions) -> Option<u64> {
        Some(self.header.to_bytes().ok()?.len() as u64 + self.data.len() as u64)
    }
}

/// The `.npy` header numpy writes for `descr`, `fortran` and `shape`, as bytes.
#[pyfunction]
fn header_bytes<'py>(
    py: Python<'py>,
    descr: &str,
    fortran: bool,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let header = Header {
        dtype: DType::from_descr(descr).map_err(|e| py_err(e, None))?,
        fortran_order: fortran,
        shape,
    };
    let bytes = header.to_bytes().map_err(|e| py_err(e, None))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Writes the `.npy` file `path` atomically (a new file renamed over the old, as every
/// path writer of the engine does), waiting for the disk if `durable`: the header numpy
/// writes for `descr`, `fortran` and `shape`, then the array's memory at `address` (see
/// [`Buffer::bytes`]).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // an array's parts, as numpy holds them
fn write_npy(
    py: Python<'_>,
    path: &str,
    descr: &str,
    fortran: bool,
    shape: Vec<usize>,
    address: usize,
    nbytes: usize,
    durable: bool,
) -> PyResult<()> {
    let header = Header {
        dtype: DType::from_descr(descr).map_err(|e| py_err(e, None))?,
        fortran_order: fortran,
        shape,
    };
    let buffer = Buffer {
        address,
        len: nbytes,
    };
    py.detach(|| {
        // SAFETY: the caller's contract (Buffer::bytes): `save` in ndnpy/__init__.py keeps
        // the array alive across this call.
        let data = unsafe { buffer.bytes() };
        ndnpy::WriteOptions::new()
            .durable(durable)
            .write_npy(path, &RawArray { header, data })
    })
    .map_err(|e| py_err(e, Some(path)))
}

/// Writes `data` (a whole `.npy` file numpy wrote, an object array's) as the file `path`,
/// atomically as [`write_npy`] does.
#[pyfunction]
fn write_file(py: Python<'_>, path: &str, data: &[u8], durable: bool) -> PyResult<()> {
    let opts = ndnpy::WriteOptions::new().durable(durable);
    py.detach(|| ndnpy::write_file_atomically(path, &opts, |w| Ok(w.write_all(data)?)))
        .map_err(|e| py_err(e, Some(path)))
}

/// A member of [`write_npz`]'s list.
enum Member {
    Raw(String, Header, Buffer),
    Npy(String, Vec<u8>),
}

/// The members `(name, descr, fortran, shape, address, nbytes)` (the array's memory, see
/// [`Buffer::slice`]; read, not written), or `(name, npy_bytes)` for a whole `.npy` file
/// numpy wrote (object arrays).
fn members_of(members: &[Bound<'_, PyTuple>]) -> PyResult<Vec<Member>> {
    let mut list = Vec::with_capacity(members.len());
    for m in members {
        if m.len() == 2 {
            let (name, npy): (String, Vec<u8>) = m.extract()?;
            list.push(Member::Npy(name, npy));
            continue;
        }
        let (name, descr, fortran, shape, address, nbytes): (
            String,
            String,
            bool,
            Vec<usize>,
            usize,
            usize,
        ) = m.extract()?;
        let header = Header {
            dtype: DType::from_descr(&descr).map_err(|e| py_err(e, None))?,
            fortran_order: fortran,
            shape,
        };
        list.push(Member::Raw(
            name,
            header,
            Buffer {
                address,
                len: nbytes,
            },
        ));
    }
    Ok(list)
}

/// Adds `list` to `npz` and finishes it, deflated on every core when `compress`, as
/// `np.savez_compressed` stores it (names as given).
fn fill_npz<W: Write + Seek>(mut npz: ndnpy::NpzWriter<W>, list: &[Member]) -> Result<W, Error> {
    for m in list {
        match m {
            Member::Raw(name, header, buffer) => {
                // SAFETY: the caller's contract (Buffer::bytes): `_savez` in
                // ndnpy/__init__.py keeps every array alive across this call.
                let data = unsafe { (*buffer).bytes() };
                let array = RawArray {
                    header: header.clone(),
                    data,
                };
                npz.add_array(name.clone(), &array).map_err(Error::from)?;
            }
            Member::Npy(name, bytes) => npz.add_bytes(format!("{name}.npy"), bytes)?,
        }
    }
    Ok(npz.finish()?)
}

fn npz_options(compress: bool) -> NpzWriteOptions {
    if compress {
        NpzWriteOptions::compressed()
    } else {
        NpzWriteOptions::new().compression(Compression::Stored)
    }
}

/// Writes the `.npz` archive `path` atomically from the members [`members_of`] takes,
/// waiting for the disk if `durable`.
#[pyfunction]
fn write_npz(
    py: Python<'_>,
    path: &str,
    members: Vec<Bound<'_, PyTuple>>,
    compress: bool,
    durable: bool,
) -> PyResult<()> {
    let list = members_of(&members)?;
    let options = npz_options(compress).durable(durable);
    py.detach(|| -> Result<(), Error> {
        let npz = ndnpy::NpzWriter::create_with_options(path, &options)?;
        fill_npz(npz, &list)?;
        Ok(())
    })
    .map_err(|e| py_err(e, Some(path)))
}

/// The bytes of the `.npz` archive of `members` (as [`write_npz`] writes it), for a file
/// object: the same bytes a path gets.
#[pyfunction]
fn npz_bytes<'py>(
    py: Python<'py>,
    members: Vec<Bound<'py, PyTuple>>,
    compress: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let list = members_of(&members)?;
    let options = npz_options(compress);
    let out = py
        .detach(|| {
            let npz = ndnpy::NpzWriter::with_options(std::io::Cursor::new(Vec::new()), &options);
            fill_npz(npz, &list)
        })
        .map_err(|e| py_err(e, None))?;
    Ok(PyBytes::new(py, &out.into_inner()))
}

#[pymodule]
fn _ndnpy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("UnsafePickleError", m.py().get_type::<UnsafePickleError>())?;
    m.add_function(wrap_pyfunction!(parse_header, m)?)?;
    m.add_function(wrap_pyfunction!(header_at, m)?)?;
    m.add_function(wrap_pyfunction!(read_into, m)?)?;
    #[cfg(unix)]
    m.add_function(wrap_pyfunction!(read_into_fd, m)?)?;
    m.add_function(wrap_pyfunction!(load_objects, m)?)?;
    m.add_function(wrap_pyfunction!(header_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(write_npz, m)?)?;
    m.add_function(wrap_pyfunction!(npz_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(write_file, m)?)?;
    m.add_function(wrap_pyfunction!(write_npy, m)?)?;
    m.add_class::<Archive>()?;
    Ok(())
}
