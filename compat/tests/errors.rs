//! The README's migration table for ndarray-npy 0.10's error variants, row by row: each test
//! feeds the real ndarray-npy 0.10 a bad input and checks that it gives the variant the row is
//! about, then feeds ndnpy (as `ndarray_npy`) the same input and checks the table's right-hand
//! column.
//!
//! ndnpy's `ReadNpyError`, `WriteNpyError`, `ViewNpyError`, `ReadNpzError` and
//! `WriteNpzError` all name `ndarray_npy::Error`, one type with no public variants: what went
//! wrong is its `kind()` (an `ErrorKind`: `Io`, `Header`, `Truncated`, `DType`, ...), and the
//! context is in its accessors (`io_error()`, `member()`, `dtype()`, `shape()`,
//! `byte_counts()`, ...). Each test checks the kind and the accessors its row names; where the
//! row's input says more than those (the part of the file that was cut, the byte found), the
//! test checks the message, which says it.

use ndarray::{array, Array1, Array2, Array3, ArrayView1, ArrayViewMut1, Ix1};
use ndarray_npy::{
    ErrorKind, Header, NpzReader, NpzWriter, ReadNpyError, ReadNpyExt, ReadNpzError, ReadOptions,
    ViewMutNpyExt, ViewNpyError, ViewNpyExt, WriteNpyError, WriteNpyExt, WriteNpzError,
};
use std::io::{self, Cursor};

/// The real ndarray-npy 0.10, kept in a module of its own so that its extension traits never
/// meet ndnpy's in one scope.
mod real {
    use ndarray::{Array, ArrayView, ArrayViewMut, Dimension};
    pub use real_ndarray_npy::{
        NpzReader, NpzWriter, ReadNpyError, ReadNpzError, ViewNpyError, WriteNpyError,
        WriteNpzError,
    };
    use real_ndarray_npy::{
        ReadNpyExt, ReadableElement, ViewElement, ViewMutElement, ViewMutNpyExt, ViewNpyExt,
        WritableElement, WriteNpyExt,
    };

    pub fn read<A: ReadableElement, D: Dimension>(
        bytes: &[u8],
    ) -> Result<Array<A, D>, ReadNpyError> {
        Array::<A, D>::read_npy(bytes)
    }

    pub fn view<A: ViewElement, D: Dimension>(
        bytes: &[u8],
    ) -> Result<ArrayView<'_, A, D>, ViewNpyError> {
        ArrayView::<A, D>::view_npy(bytes)
    }

    pub fn view_mut<A: ViewMutElement, D: Dimension>(
        bytes: &mut [u8],
    ) -> Result<ArrayViewMut<'_, A, D>, ViewNpyError> {
        ArrayViewMut::<A, D>::view_mut_npy(bytes)
    }

    pub fn write<A: WritableElement, D: Dimension, W: std::io::Write>(
        array: &Array<A, D>,
        writer: W,
    ) -> Result<(), WriteNpyError> {
        array.write_npy(writer)
    }
}

/// A version 1.0 `.npy` file with header dict `dict` (padded as numpy pads it) and `data`.
fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut header = dict.to_string();
    header.push_str(&" ".repeat(total - unpadded));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A version 3.0 `.npy` file (UTF-8 header) with header bytes `dict` and `data`.
fn npy_v3(dict: &[u8], data: &[u8]) -> Vec<u8> {
    let unpadded = 12 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut header = dict.to_vec();
    header.resize(dict.len() + total - unpadded, b' ');
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x03\x00".to_vec();
    out.extend_from_slice(&u32::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(data);
    out
}

/// A well-formed file: three native-endian `f64`s.
fn three_f64() -> Vec<u8> {
    let mut out = Vec::new();
    array![1.0f64, 2.0, 3.0].write_npy(&mut out).unwrap();
    out
}

/// A copy of `bytes` that starts `offset` bytes past an 8-byte boundary (0: aligned for every
/// element type), and the range it occupies in the returned buffer.
fn placed(bytes: &[u8], offset: usize) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut buf = vec![0u8; bytes.len() + 16];
    let start = (0..8)
        .find(|i| (buf.as_ptr() as usize + i) % 8 == offset)
        .unwrap();
    buf[start..start + bytes.len()].copy_from_slice(bytes);
    (buf, start..start + bytes.len())
}

/// The dtype in the header of `.npy` file `bytes`.
fn dtype_of(bytes: &[u8]) -> ndarray_npy::DType {
    Header::read(&mut &bytes[..], &ReadOptions::default())
        .unwrap()
        .header
        .dtype
}

/// The descr of `f8` in the byte order this machine does not use.
fn foreign_f8() -> &'static str {
    if cfg!(target_endian = "little") {
        ">f8"
    } else {
        "<f8"
    }
}

// ---- ReadNpyError ------------------------------------------------------------------------

/// `ReadNpyError::Io(e)` when the reader fails is `ErrorKind::Io`, and `io_error()` is `e`.
#[test]
fn read_io_is_io() {
    let missing = std::env::temp_dir().join(format!("ndnpy-no-such-{}.npy", std::process::id()));
    let r: Result<Array1<f64>, _> = real_ndarray_npy::read_npy(&missing);
    assert!(matches!(r, Err(real::ReadNpyError::Io(e)) if e.kind() == io::ErrorKind::NotFound));
    let r: Result<Array1<f64>, ReadNpyError> = ndarray_npy::read_npy(&missing);
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert_eq!(err.io_error().unwrap().kind(), io::ErrorKind::NotFound);
}

/// ndarray-npy reports input that ends inside the header as `Io` (`UnexpectedEof`); ndnpy as
/// `ErrorKind::Truncated`, and the message names the part that was cut.
#[test]
fn read_io_unexpected_eof_in_the_header_is_truncated() {
    let file = three_f64();
    for cut in [3, 9, 40] {
        let r = real::read::<f64, Ix1>(&file[..cut]);
        assert!(
            matches!(r, Err(real::ReadNpyError::Io(ref e)) if e.kind() == io::ErrorKind::UnexpectedEof),
            "{cut}: {r:?}"
        );
        let err = Array1::<f64>::read_npy(&file[..cut]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Truncated, "{cut}: {err:?}");
        let (expected, found) = err.byte_counts().unwrap();
        assert!(found < expected, "{cut}: {err:?}");
        let text = err.to_string();
        assert!(
            ["magic string", "header length", "header"]
                .iter()
                .any(|part| text.starts_with(&format!("file ends in the {part}: "))),
            "{cut}: {text}"
        );
    }
}

/// `ParseHeader(_)` is `ErrorKind::Header`: bad magic, unsupported version, malformed literal,
/// not a dict, wrong keys, bad shape or `fortran_order`, a version 3.0 header that is not
/// UTF-8, each with its own message.
#[test]
fn read_parse_header_is_header() {
    let mut bad_magic = three_f64();
    bad_magic[1] = b'X';
    let mut bad_version = three_f64();
    bad_version[6] = 9;
    let cases: [(Vec<u8>, &str); 8] = [
        (bad_magic, "not an .npy file: expected magic "),
        (bad_version, "unsupported .npy format version 9."),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)",
                &[0; 24],
            ),
            "cannot parse header at byte ",
        ),
        (
            npy("{'descr': '<f8', 'fortran_order': False}", &[0; 24]),
            "header keys must be exactly 'descr', 'fortran_order', 'shape'; found ",
        ),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (-3,)}",
                &[0; 24],
            ),
            "shape must be a tuple of non-negative integers; found ",
        ),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}",
                &[0; 24],
            ),
            "fortran_order must be True or False; found ",
        ),
        (
            npy("['descr', 'fortran_order', 'shape']", &[0; 24]),
            "header is not a dict: ",
        ),
        (
            npy_v3(
                b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), '\xff': 0}",
                &[0; 24],
            ),
            "version 3.0 header is not valid utf-8 ",
        ),
    ];
    for (i, (bytes, start)) in cases.iter().enumerate() {
        let r = real::read::<f64, Ix1>(bytes);
        assert!(
            matches!(r, Err(real::ReadNpyError::ParseHeader(_))),
            "{i}: {r:?}"
        );
        let err = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Header, "{i}: {err:?}");
        assert!(err.to_string().starts_with(start), "{i}: {err}");
    }
}

/// A header longer than `ReadOptions::max_header_len` (1 MiB by default), which ndarray-npy
/// reads, is `ErrorKind::Limit`; `byte_counts()` is the limit and the header's length.
#[test]
fn read_header_over_the_limit_is_limit_header_too_large() {
    let dict = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}}{}",
        " ".repeat(1 << 20)
    );
    let header_len = u32::try_from(dict.len() + 1).unwrap();
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&header_len.to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(&[0; 24]);
    assert!(real::read::<f64, Ix1>(&bytes).is_ok());
    let err = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err:?}");
    assert_eq!(err.byte_counts(), Some((1 << 20, u64::from(header_len))));
    assert_eq!(
        err.to_string(),
        format!(
            "header of {header_len} bytes exceeds the limit of 1048576 bytes \
             (raise it with ReadOptions::max_header_len)"
        )
    );
}

/// `ParseData(_)` (a bool byte other than 0 or 1) is `ErrorKind::InvalidData`.
#[test]
fn read_parse_data_is_invalid_data() {
    let bytes = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        &[1, 5, 0],
    );
    assert!(matches!(
        real::read::<bool, Ix1>(&bytes),
        Err(real::ReadNpyError::ParseData(_))
    ));
    let err = Array1::<bool>::read_npy(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!(
        err.to_string(),
        "bool element 1 is byte 0x05; expected 0x00 or 0x01"
    );
}

/// `LengthOverflow` is `ErrorKind::Header`, and the message says the shape overflows the
/// address space.
#[test]
fn read_length_overflow_is_header() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    assert!(matches!(
        real::read::<f64, ndarray::Ix2>(&bytes),
        Err(real::ReadNpyError::LengthOverflow)
    ));
    let err = Array2::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header, "{err:?}");
    assert_eq!(
        err.to_string(),
        "shape [4294967296, 4294967296] with 8-byte elements overflows the address space"
    );
}

/// `WrongNdim(Some(expected), found)` is `ErrorKind::Ndim`, and `shape()` is the file's
/// shape, of `found` dimensions.
#[test]
fn read_wrong_ndim_is_ndim() {
    let bytes = three_f64();
    assert!(matches!(
        real::read::<f64, ndarray::Ix2>(&bytes),
        Err(real::ReadNpyError::WrongNdim(Some(2), 1))
    ));
    let err = Array2::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim, "{err:?}");
    assert_eq!(err.shape(), Some(&[3][..]));
    assert_eq!(
        err.to_string(),
        "expected an array of 2 dimensions, found one of 1: shape (3,)"
    );
}

/// `WrongDescriptor(_)` is `ErrorKind::DType`, and `dtype()` is the file's dtype, for a dtype
/// numpy writes (another element type, records); `ErrorKind::Header` for a descr numpy itself
/// refuses.
#[test]
fn read_wrong_descriptor_is_dtype_or_header() {
    let other_type = three_f64();
    let record = npy(
        "{'descr': [('x', '<i4'), ('y', '<i4')], 'fortran_order': False, 'shape': (3,), }",
        &[0; 24],
    );
    for bytes in [&other_type, &record] {
        assert!(matches!(
            real::read::<i32, Ix1>(bytes),
            Err(real::ReadNpyError::WrongDescriptor(_))
        ));
        let err = Array1::<i32>::read_npy(&bytes[..]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
        assert_eq!(err.dtype(), Some(&dtype_of(bytes)));
        assert_eq!(err.field(), None);
    }
    let nonsense = npy(
        "{'descr': '<x9', 'fortran_order': False, 'shape': (3,), }",
        &[0; 24],
    );
    assert!(matches!(
        real::read::<i32, Ix1>(&nonsense),
        Err(real::ReadNpyError::WrongDescriptor(_))
    ));
    let err = Array1::<i32>::read_npy(&nonsense[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header, "{err:?}");
    assert!(
        err.to_string().starts_with("invalid dtype descriptor "),
        "{err}"
    );
}

/// `MissingData` is `ErrorKind::Truncated`, in the array data.
#[test]
fn read_missing_data_is_truncated() {
    let file = three_f64();
    let short = &file[..file.len() - 3];
    assert!(matches!(
        real::read::<f64, Ix1>(short),
        Err(real::ReadNpyError::MissingData)
    ));
    let err = Array1::<f64>::read_npy(short).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    assert_eq!(err.byte_counts(), Some((24, 21)));
    assert_eq!(
        err.to_string(),
        "file ends in the array data: expected 24 bytes, found 21"
    );
}

/// `ExtraBytes(n)` is not an error: ndnpy reads exactly the array and leaves the bytes after
/// it in the reader, as `np.load` does. Code that wants to refuse them checks the reader.
#[test]
fn read_extra_bytes_is_no_error_and_the_bytes_stay_in_the_reader() {
    let mut file = three_f64();
    file.extend_from_slice(b"tail");
    assert!(matches!(
        real::read::<f64, Ix1>(&file),
        Err(real::ReadNpyError::ExtraBytes(4))
    ));
    let mut reader = &file[..];
    let a = Array1::<f64>::read_npy(&mut reader).unwrap();
    assert_eq!(a, array![1.0, 2.0, 3.0]);
    assert_eq!(reader, b"tail");
}

// ---- WriteNpyError -----------------------------------------------------------------------

/// `WriteNpyError::Io(e)` is `ErrorKind::Io`, and `io_error()` is `e`.
#[test]
fn write_io_is_io() {
    let a = array![1.0f64, 2.0, 3.0];
    let mut small = [0u8; 16];
    let r = real::write(&a, &mut small[..]);
    assert!(matches!(r, Err(real::WriteNpyError::Io(e)) if e.kind() == io::ErrorKind::WriteZero));
    let mut small = [0u8; 16];
    let r: Result<(), WriteNpyError> = a.write_npy(&mut small[..]);
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert_eq!(err.io_error().unwrap().kind(), io::ErrorKind::WriteZero);
}

/// `FormatData(_)` comes only from custom element types in ndarray-npy. ndnpy's counterpart,
/// a value its dtype cannot hold, is `ErrorKind::Usage`: here datetimes of two units in one
/// array.
#[test]
fn write_format_data_is_usage() {
    use ndarray_npy::{dtype::DateTimeUnit, dtype::TimeUnit, Datetime64};
    let unit = |unit| {
        Some(DateTimeUnit {
            unit,
            multiplier: 1,
        })
    };
    let mixed = array![
        Datetime64::new(1, unit(TimeUnit::Seconds)),
        Datetime64::new(1, unit(TimeUnit::Days)),
    ];
    let err = mixed.write_npy(Vec::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!(
        err.to_string(),
        "value 1 has dtype '<M8[D]', but the array is written as '<M8[s]'"
    );
}

// `FormatHeader(_)`: ndarray-npy returns it for a header over 4 GiB, which no array of its
// element types reaches in memory; ndnpy returns `ErrorKind::Usage` there. No test builds a
// 4 GiB header; the check is compiled only.
#[allow(dead_code)]
fn write_format_header_check(e: &WriteNpyError) -> bool {
    e.kind() == ErrorKind::Usage
        && e.to_string()
            .ends_with(" is too large for any .npy version")
}

// ---- ViewNpyError ------------------------------------------------------------------------

/// `Io(_)` from a view (a buffer that ends inside the header) is `ErrorKind::Truncated`.
#[test]
fn view_io_is_truncated() {
    let file = three_f64();
    let cut = &file[..40];
    assert!(matches!(
        real::view::<f64, Ix1>(cut),
        Err(real::ViewNpyError::Io(_))
    ));
    let r: Result<_, ViewNpyError> = ArrayView1::<f64>::view_npy(cut);
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    let (expected, found) = err.byte_counts().unwrap();
    assert_eq!(
        err.to_string(),
        format!("file ends in the header: expected {expected} bytes, found {found}")
    );
}

/// `ParseHeader(_)` is `ErrorKind::Header`, as for reads.
#[test]
fn view_parse_header_is_header() {
    let mut file = three_f64();
    file[0] = 0;
    assert!(matches!(
        real::view::<f64, Ix1>(&file),
        Err(real::ViewNpyError::ParseHeader(_))
    ));
    let err = ArrayView1::<f64>::view_npy(&file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header, "{err:?}");
    assert!(
        err.to_string()
            .starts_with("not an .npy file: expected magic "),
        "{err}"
    );
}

/// `InvalidData(_)` is `ErrorKind::InvalidData`, for views and mutable views.
#[test]
fn view_invalid_data_is_invalid_data() {
    let mut bytes = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        &[0, 1, 2],
    );
    assert!(matches!(
        real::view::<bool, Ix1>(&bytes),
        Err(real::ViewNpyError::InvalidData(_))
    ));
    assert!(matches!(
        real::view_mut::<bool, Ix1>(&mut bytes),
        Err(real::ViewNpyError::InvalidData(_))
    ));
    let bad_bool = "bool element 2 is byte 0x02; expected 0x00 or 0x01";
    let err = ArrayView1::<bool>::view_npy(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!(err.to_string(), bad_bool);
    let err = ArrayViewMut1::<bool>::view_mut_npy(&mut bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!(err.to_string(), bad_bool);
}

/// `LengthOverflow` is `ErrorKind::Header`.
#[test]
fn view_length_overflow_is_header() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    assert!(matches!(
        real::view::<f64, ndarray::Ix2>(&bytes),
        Err(real::ViewNpyError::LengthOverflow)
    ));
    let err = ndarray::ArrayView2::<f64>::view_npy(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header, "{err:?}");
    assert_eq!(
        err.to_string(),
        "shape [4294967296, 4294967296] with 8-byte elements overflows the address space"
    );
}

/// `WrongNdim(Some(expected), found)` is `ErrorKind::Ndim`, and `shape()` has `found`
/// dimensions.
#[test]
fn view_wrong_ndim_is_ndim() {
    let (buf, range) = placed(&three_f64(), 0);
    let file = &buf[range];
    assert!(matches!(
        real::view::<f64, ndarray::Ix3>(file),
        Err(real::ViewNpyError::WrongNdim(Some(3), 1))
    ));
    let err = ndarray::ArrayView3::<f64>::view_npy(file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim, "{err:?}");
    assert_eq!(err.shape(), Some(&[3][..]));
    assert_eq!(
        err.to_string(),
        "expected an array of 3 dimensions, found one of 1: shape (3,)"
    );
}

/// `WrongDescriptor(_)` is `ErrorKind::DType`.
#[test]
fn view_wrong_descriptor_is_dtype() {
    let (buf, range) = placed(&three_f64(), 0);
    let file = &buf[range];
    assert!(matches!(
        real::view::<i64, Ix1>(file),
        Err(real::ViewNpyError::WrongDescriptor(_))
    ));
    let err = ArrayView1::<i64>::view_npy(file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!(err.dtype(), Some(&dtype_of(file)));
    assert_eq!(err.field(), None);
}

/// `NonNativeEndian` is `ErrorKind::CannotView`, and `dtype()` is the file's dtype, in the
/// other byte order.
#[test]
fn view_non_native_endian_is_cannot_view() {
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': (3,), }}",
        foreign_f8()
    );
    // Aligned for f64, so that only the byte order is at fault.
    let (buf, range) = placed(&npy(&dict, &[0; 24]), 0);
    let view = &buf[range];
    assert!(matches!(
        real::view::<f64, Ix1>(view),
        Err(real::ViewNpyError::NonNativeEndian)
    ));
    let err = ArrayView1::<f64>::view_npy(view).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.dtype().unwrap().descr(), format!("'{}'", foreign_f8()));
    assert!(
        err.to_string()
            .contains("it is not in this machine's byte order"),
        "{err}"
    );
}

/// `MisalignedData` is `ErrorKind::CannotView`, for both view kinds; the message gives the
/// alignment.
#[test]
fn view_misaligned_data_is_cannot_view() {
    let (mut buf, range) = placed(&three_f64(), 1);
    assert!(matches!(
        real::view::<f64, Ix1>(&buf[range.clone()]),
        Err(real::ViewNpyError::MisalignedData)
    ));
    assert!(matches!(
        real::view_mut::<f64, Ix1>(&mut buf[range.clone()]),
        Err(real::ViewNpyError::MisalignedData)
    ));
    let misaligned = "cannot view the data in place: it is 1 bytes past a 8-byte boundary \
                      (read it with ReadNpyExt, which copies)";
    let err = ArrayView1::<f64>::view_npy(&buf[range.clone()]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.to_string(), misaligned);
    let err = ArrayViewMut1::<f64>::view_mut_npy(&mut buf[range]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.to_string(), misaligned);
}

/// `MissingBytes(n)` is `ErrorKind::Truncated`, in the array data, and `byte_counts()` is
/// `Some((expected, found))` with `n == expected - found`.
#[test]
fn view_missing_bytes_is_truncated() {
    let file = three_f64();
    let (buf, range) = placed(&file[..file.len() - 8], 0);
    let short = &buf[range];
    assert!(matches!(
        real::view::<f64, Ix1>(short),
        Err(real::ViewNpyError::MissingBytes(8))
    ));
    let err = ArrayView1::<f64>::view_npy(short).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    let (expected, found) = err.byte_counts().unwrap();
    assert_eq!((expected, found), (24, 16));
    assert_eq!(expected - found, 8);
    assert_eq!(
        err.to_string(),
        "file ends in the array data: expected 24 bytes, found 16"
    );
}

/// `ExtraBytes(n)` is `ErrorKind::TrailingBytes`, and `byte_counts()` is
/// `Some((expected, found))` with `n == found - expected`.
#[test]
fn view_extra_bytes_is_trailing_bytes() {
    let mut file = three_f64();
    file.extend_from_slice(&[0; 8]);
    // Aligned, so that only the length is at fault.
    let (buf, range) = placed(&file, 0);
    let bytes = &buf[range];
    assert!(matches!(
        real::view::<f64, Ix1>(bytes),
        Err(real::ViewNpyError::ExtraBytes(8))
    ));
    let err = ArrayView1::<f64>::view_npy(bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TrailingBytes, "{err:?}");
    let (expected, found) = err.byte_counts().unwrap();
    assert_eq!((expected, found), (24, 32));
    assert_eq!(found - expected, 8);
}

// ---- ReadNpzError ------------------------------------------------------------------------

/// A stored archive with one `f64` member `a` and one raw-bytes member `notes`.
fn archive() -> Vec<u8> {
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &array![1.0f64, 2.0, 3.0]).unwrap();
    npz.add_bytes("notes", b"not an array").unwrap();
    npz.finish().unwrap().into_inner()
}

fn real_zip_error(r: Result<impl std::fmt::Debug, real::ReadNpzError>) -> String {
    match r {
        Err(real::ReadNpzError::Zip(e)) => format!("{e:?}"),
        other => panic!("expected ReadNpzError::Zip, got {other:?}"),
    }
}

/// `Zip(_)` for input that is not a zip archive is `ErrorKind::Archive`; the message says no
/// end of central directory record was found.
#[test]
fn npz_zip_not_an_archive_is_archive() {
    let junk = three_f64();
    let e = real_zip_error(real::NpzReader::new(Cursor::new(&junk)).map(|_| ()));
    assert!(e.starts_with("InvalidArchive"), "{e}");
    let r: Result<_, ReadNpzError> = NpzReader::new(Cursor::new(&junk));
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "not an .npz (zip) archive: no end of central directory record in its {} bytes \
             (it starts with b\"\\x93NUM\"; a truncated archive looks like this too)",
            junk.len()
        )
    );
}

/// Whether `err` says that the input has no end of central directory record, or that one of
/// its ZIP structures (at `offset()`) is malformed: the two ways an archive cut short fails.
fn is_no_end_record_or_malformed_zip(err: &ndarray_npy::Error) -> bool {
    let text = err.to_string();
    err.kind() == ErrorKind::Archive
        && (text.contains("no end of central directory record")
            || err.offset().is_some_and(|offset| {
                text.starts_with(&format!("malformed zip archive at byte {offset}: "))
            }))
}

/// `Zip(_)` for an archive cut short is `ErrorKind::Archive`: no end record, or a structure
/// that points outside the archive.
#[test]
fn npz_zip_truncated_archive_is_archive() {
    let full = archive();
    for cut in [full.len() - 10, full.len() / 2] {
        let short = &full[..cut];
        // ndarray-npy: InvalidArchive, or Io(UnexpectedEof) when the end record points past
        // the end.
        let e = real_zip_error(real::NpzReader::new(Cursor::new(short)).map(|_| ()));
        assert!(
            e.starts_with("InvalidArchive") || e.starts_with("Io"),
            "{cut}: {e}"
        );
        let err = NpzReader::new(Cursor::new(short)).unwrap_err();
        assert!(is_no_end_record_or_malformed_zip(&err), "{cut}: {err:?}");
    }
}

/// `Zip(FileNotFound)` is `ErrorKind::MissingMember`, from `by_name` and from `by_index`.
#[test]
fn npz_zip_file_not_found_is_missing_member() {
    let bytes = archive();
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let e = real_zip_error(npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("b"));
    assert!(e.starts_with("FileNotFound"), "{e}");
    let e = real_zip_error(npz.by_index::<ndarray::OwnedRepr<f64>, Ix1>(5));
    assert!(e.starts_with("FileNotFound"), "{e}");

    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("b")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    assert!(
        err.to_string()
            .starts_with("no member \"b\" (nor \"b.npy\") in the archive; "),
        "{err}"
    );
    let err = npz.by_index::<ndarray::OwnedRepr<f64>, Ix1>(5).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    assert_eq!(
        err.to_string(),
        "member index 5 is out of range for an archive of 2 members"
    );
}

/// `Zip(UnsupportedArchive)` for a compression method other than stored and deflate is
/// `ErrorKind::Archive`, and `member()` names the member.
#[test]
fn npz_zip_unsupported_method_is_archive() {
    let mut bytes = archive();
    // Mark every member as bzip2 (method 12) in its local header and its directory entry.
    let mut i = 0;
    while i + 4 <= bytes.len() {
        match &bytes[i..i + 4] {
            b"PK\x03\x04" => bytes[i + 8..i + 10].copy_from_slice(&12u16.to_le_bytes()),
            b"PK\x01\x02" => bytes[i + 10..i + 12].copy_from_slice(&12u16.to_le_bytes()),
            _ => {}
        }
        i += 1;
    }
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let e = real_zip_error(npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("a"));
    assert!(e.starts_with("UnsupportedArchive"), "{e}");
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err:?}");
    assert_eq!(err.member(), Some("a.npy"));
    assert!(
        err.to_string()
            .starts_with("archive member \"a.npy\" uses compression method 12 (bzip2), "),
        "{err}"
    );
}

/// A member whose bytes fail their CRC-32: ndarray-npy's zip reader reports it as an I/O
/// error inside the `.npy` read (`Npy(Io(_))`); ndnpy as `ErrorKind::Archive`, and `member()`
/// names the member.
#[test]
fn npz_corrupt_member_is_archive() {
    let mut bytes = archive();
    // The last byte of member `a`'s data: the last byte of 3.0f64 in native order.
    let pos = bytes
        .windows(8)
        .position(|w| w == 3.0f64.to_ne_bytes())
        .unwrap();
    bytes[pos] ^= 0x01;
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("a");
    assert!(
        matches!(r, Err(real::ReadNpzError::Npy(real::ReadNpyError::Io(_)))),
        "{r:?}"
    );
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err:?}");
    assert_eq!(err.member(), Some("a.npy"));
    assert!(
        err.to_string()
            .starts_with("archive member \"a.npy\" fails its CRC-32 check: "),
        "{err}"
    );
}

/// `Npy(e)`: an error inside a member is not wrapped; it passes the test of the
/// `ReadNpyError` row itself (here a dtype mismatch and a dimension mismatch), and `member()`
/// names the member.
#[test]
fn npz_npy_is_the_read_pattern_unwrapped() {
    let bytes = archive();
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let r = npz.by_name::<ndarray::OwnedRepr<i32>, Ix1>("a");
    assert!(
        matches!(
            r,
            Err(real::ReadNpzError::Npy(
                real::ReadNpyError::WrongDescriptor(_)
            ))
        ),
        "{r:?}"
    );
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>("a");
    assert!(
        matches!(
            r,
            Err(real::ReadNpzError::Npy(real::ReadNpyError::WrongNdim(..)))
        ),
        "{r:?}"
    );
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = npz
        .by_name::<ndarray::OwnedRepr<i32>, Ix1>("a")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!(err.dtype().unwrap().descr(), array_f64_descr());
    assert_eq!(err.member(), Some("a.npy"));
    let err = npz
        .by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>("a")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim, "{err:?}");
    assert_eq!(err.shape(), Some(&[3][..]));
    assert_eq!(err.member(), Some("a.npy"));
}

/// The descr of the native-endian `f64` member `a` of [`archive`].
fn array_f64_descr() -> String {
    dtype_of(&three_f64()).descr()
}

/// `Npy(ParseHeader(_))` for a member that is not an `.npy` file (numpy returns it as bytes)
/// is `ErrorKind::NotNpy`.
#[test]
fn npz_npy_parse_header_of_a_non_array_member_is_not_npy() {
    let bytes = archive();
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let r = npz.by_name::<ndarray::OwnedRepr<u8>, Ix1>("notes");
    assert!(
        matches!(
            r,
            Err(real::ReadNpzError::Npy(real::ReadNpyError::ParseHeader(_)))
        ),
        "{r:?}"
    );
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = npz
        .by_name::<ndarray::OwnedRepr<u8>, Ix1>("notes")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotNpy, "{err:?}");
    assert_eq!(err.member(), Some("notes"));
}

// ---- WriteNpzError -----------------------------------------------------------------------

/// `Zip(_)` for a second member of the same name is `ErrorKind::Usage`; the message names the
/// member.
#[test]
fn npz_write_zip_duplicate_name_is_usage() {
    let a = array![1u8];
    let mut npz = real::NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let r = npz.add_array("a", &a);
    assert!(matches!(r, Err(real::WriteNpzError::Zip(_))), "{r:?}");
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let r: Result<(), WriteNpzError> = npz.add_array("a", &a);
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!(
        err.to_string(),
        "the archive already has a member named \"a.npy\""
    );
}

/// `Zip(Io(_))` or `Npy(Io(_))` when the writer fails is `ErrorKind::Io`.
#[test]
fn npz_write_io_is_io() {
    let big = Array3::<f64>::zeros((4, 64, 64));
    let mut real_buf = vec![0u8; 4096];
    let mut npz = real::NpzWriter::new(Cursor::new(&mut real_buf[..]));
    let r = npz.add_array("big", &big);
    // Dropping the failed writer makes the zip crate print its own error; skip the drop.
    std::mem::forget(npz);
    assert!(
        matches!(
            r,
            Err(real::WriteNpzError::Zip(_) | real::WriteNpzError::Npy(real::WriteNpyError::Io(_)))
        ),
        "{r:?}"
    );
    let mut buf = vec![0u8; 4096];
    let r = (|| {
        let mut npz = NpzWriter::new(Cursor::new(&mut buf[..]));
        npz.add_array("big", &big)?;
        npz.finish().map(drop)
    })();
    let err: WriteNpzError = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert!(err.io_error().is_some(), "{err:?}");
}

/// `Npy(e)` for a write error other than I/O (ndarray-npy's own element types never give one)
/// passes the test of `e`'s row, not wrapped: here `ErrorKind::Usage` for datetimes of two
/// units.
#[test]
fn npz_write_npy_is_the_write_pattern_unwrapped() {
    use ndarray_npy::{dtype::DateTimeUnit, dtype::TimeUnit, Datetime64};
    let unit = |unit| {
        Some(DateTimeUnit {
            unit,
            multiplier: 1,
        })
    };
    let mixed = array![
        Datetime64::new(1, unit(TimeUnit::Seconds)),
        Datetime64::new(1, unit(TimeUnit::Days)),
    ];
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    let err = npz.add_array("t", &mixed).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!(
        err.to_string(),
        "value 1 has dtype '<M8[D]', but the array is written as '<M8[s]'"
    );
}
