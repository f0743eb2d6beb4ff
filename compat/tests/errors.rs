//! The README's migration table for ndarray-npy 0.10's error variants, row by row: each test
//! feeds the real ndarray-npy 0.10 a bad input and checks that it gives the variant the row is
//! about, then feeds ndnpy (as `ndarray_npy`) the same input and matches the table's pattern.
//!
//! ndnpy's `ReadNpyError`, `WriteNpyError`, `ViewNpyError`, `ReadNpzError` and
//! `WriteNpzError` all name `ndarray_npy::Error`, so its variants (`Io`, `Format`, `Mismatch`,
//! `Limit`, `Usage`) can be written under any of the five names; the table uses the name the
//! function returns, as ndarray-npy code does.

use ndarray::{array, Array1, Array2, Array3, ArrayView1, ArrayViewMut1, Ix1};
use ndarray_npy::{
    FormatError, LimitError, MismatchError, NpzReader, NpzWriter, ReadNpyError, ReadNpyExt,
    ReadNpzError, UsageError, ViewMutNpyExt, ViewNpyError, ViewNpyExt, WriteNpyError, WriteNpyExt,
    WriteNpzError,
};
use std::io::{Cursor, ErrorKind};

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

/// The descr of `f8` in the byte order this machine does not use.
fn foreign_f8() -> &'static str {
    if cfg!(target_endian = "little") {
        ">f8"
    } else {
        "<f8"
    }
}

// ---- ReadNpyError ------------------------------------------------------------------------

/// `ReadNpyError::Io(e)` when the reader fails is `ReadNpyError::Io(e)` unchanged.
#[test]
fn read_io_is_io() {
    let missing = std::env::temp_dir().join(format!("ndnpy-no-such-{}.npy", std::process::id()));
    let r: Result<Array1<f64>, _> = real_ndarray_npy::read_npy(&missing);
    assert!(matches!(r, Err(real::ReadNpyError::Io(e)) if e.kind() == ErrorKind::NotFound));
    let r: Result<Array1<f64>, _> = ndarray_npy::read_npy(&missing);
    assert!(matches!(r, Err(ReadNpyError::Io(e)) if e.kind() == ErrorKind::NotFound));
}

/// ndarray-npy reports input that ends inside the header as `Io` (`UnexpectedEof`); ndnpy as
/// `Format(FormatError::Truncated { .. })`, naming the part that was cut.
#[test]
fn read_io_unexpected_eof_in_the_header_is_format_truncated() {
    let file = three_f64();
    for cut in [3, 9, 40] {
        let r = real::read::<f64, Ix1>(&file[..cut]);
        assert!(
            matches!(r, Err(real::ReadNpyError::Io(ref e)) if e.kind() == ErrorKind::UnexpectedEof),
            "{cut}: {r:?}"
        );
        let r = Array1::<f64>::read_npy(&file[..cut]);
        assert!(
            matches!(
                r,
                Err(ReadNpyError::Format(FormatError::Truncated {
                    part: "magic string" | "header length" | "header",
                    ..
                }))
            ),
            "{cut}: {r:?}"
        );
    }
}

/// `ParseHeader(_)` is `Format(_)` with a header variant: bad magic, unsupported version,
/// malformed literal, not a dict, wrong keys, bad shape or `fortran_order`, a version 3.0
/// header that is not UTF-8.
#[test]
fn read_parse_header_is_format_header_variants() {
    let mut bad_magic = three_f64();
    bad_magic[1] = b'X';
    let mut bad_version = three_f64();
    bad_version[6] = 9;
    type IsHeaderVariant = fn(&FormatError) -> bool;
    let cases: [(Vec<u8>, IsHeaderVariant); 8] = [
        (bad_magic, |e| matches!(e, FormatError::BadMagic { .. })),
        (bad_version, |e| {
            matches!(e, FormatError::UnsupportedVersion { major: 9, .. })
        }),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)",
                &[0; 24],
            ),
            |e| matches!(e, FormatError::HeaderSyntax { .. }),
        ),
        (
            npy("{'descr': '<f8', 'fortran_order': False}", &[0; 24]),
            |e| matches!(e, FormatError::HeaderKeys { .. }),
        ),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (-3,)}",
                &[0; 24],
            ),
            |e| matches!(e, FormatError::InvalidShape { .. }),
        ),
        (
            npy(
                "{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}",
                &[0; 24],
            ),
            |e| matches!(e, FormatError::InvalidFortranOrder { .. }),
        ),
        (npy("['descr', 'fortran_order', 'shape']", &[0; 24]), |e| {
            matches!(e, FormatError::HeaderNotDict { .. })
        }),
        (
            npy_v3(
                b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), '\xff': 0}",
                &[0; 24],
            ),
            |e| matches!(e, FormatError::HeaderEncoding { .. }),
        ),
    ];
    for (i, (bytes, is_header_variant)) in cases.iter().enumerate() {
        let r = real::read::<f64, Ix1>(bytes);
        assert!(
            matches!(r, Err(real::ReadNpyError::ParseHeader(_))),
            "{i}: {r:?}"
        );
        match Array1::<f64>::read_npy(&bytes[..]) {
            Err(ReadNpyError::Format(e)) => assert!(is_header_variant(&e), "{i}: {e:?}"),
            other => panic!("{i}: {other:?}"),
        }
    }
}

/// A header longer than `ReadOptions::max_header_len` (1 MiB by default), which ndarray-npy
/// reads, is `Limit(LimitError::HeaderTooLarge { .. })`.
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
    let r = Array1::<f64>::read_npy(&bytes[..]);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Limit(LimitError::HeaderTooLarge { .. }))
        ),
        "{r:?}"
    );
}

/// `ParseData(_)` (a bool byte other than 0 or 1) is `Format(FormatError::InvalidBool { .. })`.
#[test]
fn read_parse_data_is_format_invalid_bool() {
    let bytes = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        &[1, 5, 0],
    );
    assert!(matches!(
        real::read::<bool, Ix1>(&bytes),
        Err(real::ReadNpyError::ParseData(_))
    ));
    let r = Array1::<bool>::read_npy(&bytes[..]);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Format(FormatError::InvalidBool {
                index: 1,
                value: 5
            }))
        ),
        "{r:?}"
    );
}

/// `LengthOverflow` is `Format(FormatError::ShapeOverflow { .. })`.
#[test]
fn read_length_overflow_is_format_shape_overflow() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    assert!(matches!(
        real::read::<f64, ndarray::Ix2>(&bytes),
        Err(real::ReadNpyError::LengthOverflow)
    ));
    let r = Array2::<f64>::read_npy(&bytes[..]);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Format(FormatError::ShapeOverflow { .. }))
        ),
        "{r:?}"
    );
}

/// `WrongNdim(Some(expected), found)` is `Mismatch(MismatchError::Ndim { expected, found })`.
#[test]
fn read_wrong_ndim_is_mismatch_ndim() {
    let bytes = three_f64();
    assert!(matches!(
        real::read::<f64, ndarray::Ix2>(&bytes),
        Err(real::ReadNpyError::WrongNdim(Some(2), 1))
    ));
    let r = Array2::<f64>::read_npy(&bytes[..]);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Mismatch(MismatchError::Ndim {
                expected: 2,
                found: 1,
                ..
            }))
        ),
        "{r:?}"
    );
}

/// `WrongDescriptor(_)` is `Mismatch(MismatchError::DType { .. })` for a dtype numpy writes
/// (another element type, records), and `Format(FormatError::InvalidDescr { .. })` for a
/// descr numpy itself refuses.
#[test]
fn read_wrong_descriptor_is_mismatch_dtype_or_format_invalid_descr() {
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
        let r = Array1::<i32>::read_npy(&bytes[..]);
        assert!(
            matches!(r, Err(ReadNpyError::Mismatch(MismatchError::DType { .. }))),
            "{r:?}"
        );
    }
    let nonsense = npy(
        "{'descr': '<x9', 'fortran_order': False, 'shape': (3,), }",
        &[0; 24],
    );
    assert!(matches!(
        real::read::<i32, Ix1>(&nonsense),
        Err(real::ReadNpyError::WrongDescriptor(_))
    ));
    let r = Array1::<i32>::read_npy(&nonsense[..]);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Format(FormatError::InvalidDescr { .. }))
        ),
        "{r:?}"
    );
}

/// `MissingData` is `Format(FormatError::Truncated { part: "array data", .. })`.
#[test]
fn read_missing_data_is_format_truncated_array_data() {
    let file = three_f64();
    let short = &file[..file.len() - 3];
    assert!(matches!(
        real::read::<f64, Ix1>(short),
        Err(real::ReadNpyError::MissingData)
    ));
    let r = Array1::<f64>::read_npy(short);
    assert!(
        matches!(
            r,
            Err(ReadNpyError::Format(FormatError::Truncated {
                part: "array data",
                expected: 24,
                found: 21
            }))
        ),
        "{r:?}"
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

/// `WriteNpyError::Io(e)` is `WriteNpyError::Io(e)` unchanged.
#[test]
fn write_io_is_io() {
    let a = array![1.0f64, 2.0, 3.0];
    let mut small = [0u8; 16];
    let r = real::write(&a, &mut small[..]);
    assert!(matches!(r, Err(real::WriteNpyError::Io(e)) if e.kind() == ErrorKind::WriteZero));
    let mut small = [0u8; 16];
    let r = a.write_npy(&mut small[..]);
    assert!(matches!(r, Err(WriteNpyError::Io(e)) if e.kind() == ErrorKind::WriteZero));
}

/// `FormatData(_)` comes only from custom element types in ndarray-npy. ndnpy's counterpart,
/// a value its dtype cannot hold, is `Usage(_)`: here datetimes of two units in one array.
#[test]
fn write_format_data_is_usage() {
    use ndarray_npy::{DateTimeUnit, Datetime64, TimeUnit};
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
    let r = mixed.write_npy(Vec::new());
    assert!(
        matches!(r, Err(WriteNpyError::Usage(UsageError::MixedUnits { .. }))),
        "{r:?}"
    );
}

// `FormatHeader(_)`: ndarray-npy returns it for a header over 4 GiB, which no array of its
// element types reaches in memory; ndnpy returns `Usage(UsageError::HeaderTooLarge { .. })`
// there. No test builds a 4 GiB header; the pattern is checked to compile.
#[allow(dead_code)]
fn write_format_header_pattern(e: &WriteNpyError) -> bool {
    matches!(e, WriteNpyError::Usage(UsageError::HeaderTooLarge { .. }))
}

// ---- ViewNpyError ------------------------------------------------------------------------

/// `Io(_)` from a view (a buffer that ends inside the header) is
/// `Format(FormatError::Truncated { .. })`.
#[test]
fn view_io_is_format_truncated() {
    let file = three_f64();
    let cut = &file[..40];
    assert!(matches!(
        real::view::<f64, Ix1>(cut),
        Err(real::ViewNpyError::Io(_))
    ));
    let r = ArrayView1::<f64>::view_npy(cut);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::Truncated {
                part: "header",
                ..
            }))
        ),
        "{r:?}"
    );
}

/// `ParseHeader(_)` is `Format(_)` with a header variant, as for reads.
#[test]
fn view_parse_header_is_format() {
    let mut file = three_f64();
    file[0] = 0;
    assert!(matches!(
        real::view::<f64, Ix1>(&file),
        Err(real::ViewNpyError::ParseHeader(_))
    ));
    let r = ArrayView1::<f64>::view_npy(&file);
    assert!(
        matches!(r, Err(ViewNpyError::Format(FormatError::BadMagic { .. }))),
        "{r:?}"
    );
}

/// `InvalidData(_)` is `Format(FormatError::InvalidBool { .. })`, for views and mutable views.
#[test]
fn view_invalid_data_is_format_invalid_bool() {
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
    let r = ArrayView1::<bool>::view_npy(&bytes);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::InvalidBool {
                index: 2,
                value: 2
            }))
        ),
        "{r:?}"
    );
    let r = ArrayViewMut1::<bool>::view_mut_npy(&mut bytes);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::InvalidBool { .. }))
        ),
        "{r:?}"
    );
}

/// `LengthOverflow` is `Format(FormatError::ShapeOverflow { .. })`.
#[test]
fn view_length_overflow_is_format_shape_overflow() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    assert!(matches!(
        real::view::<f64, ndarray::Ix2>(&bytes),
        Err(real::ViewNpyError::LengthOverflow)
    ));
    let r = ndarray::ArrayView2::<f64>::view_npy(&bytes);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::ShapeOverflow { .. }))
        ),
        "{r:?}"
    );
}

/// `WrongNdim(Some(expected), found)` is `Mismatch(MismatchError::Ndim { expected, found })`.
#[test]
fn view_wrong_ndim_is_mismatch_ndim() {
    let (buf, range) = placed(&three_f64(), 0);
    let file = &buf[range];
    assert!(matches!(
        real::view::<f64, ndarray::Ix3>(file),
        Err(real::ViewNpyError::WrongNdim(Some(3), 1))
    ));
    let r = ndarray::ArrayView3::<f64>::view_npy(file);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Mismatch(MismatchError::Ndim {
                expected: 3,
                found: 1,
                ..
            }))
        ),
        "{r:?}"
    );
}

/// `WrongDescriptor(_)` is `Mismatch(MismatchError::DType { .. })`.
#[test]
fn view_wrong_descriptor_is_mismatch_dtype() {
    let (buf, range) = placed(&three_f64(), 0);
    let file = &buf[range];
    assert!(matches!(
        real::view::<i64, Ix1>(file),
        Err(real::ViewNpyError::WrongDescriptor(_))
    ));
    let r = ArrayView1::<i64>::view_npy(file);
    assert!(
        matches!(r, Err(ViewNpyError::Mismatch(MismatchError::DType { .. }))),
        "{r:?}"
    );
}

/// `NonNativeEndian` is `Mismatch(MismatchError::ByteOrder { .. })`.
#[test]
fn view_non_native_endian_is_mismatch_byte_order() {
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
    let r = ArrayView1::<f64>::view_npy(view);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Mismatch(MismatchError::ByteOrder { .. }))
        ),
        "{r:?}"
    );
}

/// `MisalignedData` is `Mismatch(MismatchError::Misaligned { .. })`, for both view kinds.
#[test]
fn view_misaligned_data_is_mismatch_misaligned() {
    let (mut buf, range) = placed(&three_f64(), 1);
    assert!(matches!(
        real::view::<f64, Ix1>(&buf[range.clone()]),
        Err(real::ViewNpyError::MisalignedData)
    ));
    assert!(matches!(
        real::view_mut::<f64, Ix1>(&mut buf[range.clone()]),
        Err(real::ViewNpyError::MisalignedData)
    ));
    let r = ArrayView1::<f64>::view_npy(&buf[range.clone()]);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Mismatch(MismatchError::Misaligned {
                align: 8,
                offset: 1
            }))
        ),
        "{r:?}"
    );
    let r = ArrayViewMut1::<f64>::view_mut_npy(&mut buf[range]);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Mismatch(MismatchError::Misaligned { .. }))
        ),
        "{r:?}"
    );
}

/// `MissingBytes(n)` is `Format(FormatError::Truncated { part: "array data", expected,
/// found })`, with `n == expected - found`.
#[test]
fn view_missing_bytes_is_format_truncated_array_data() {
    let file = three_f64();
    let (buf, range) = placed(&file[..file.len() - 8], 0);
    let short = &buf[range];
    assert!(matches!(
        real::view::<f64, Ix1>(short),
        Err(real::ViewNpyError::MissingBytes(8))
    ));
    let r = ArrayView1::<f64>::view_npy(short);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::Truncated {
                part: "array data",
                expected: 24,
                found: 16
            }))
        ),
        "{r:?}"
    );
}

/// `ExtraBytes(n)` is `Format(FormatError::TrailingBytes { expected, found })`, with
/// `n == found - expected`.
#[test]
fn view_extra_bytes_is_format_trailing_bytes() {
    let mut file = three_f64();
    file.extend_from_slice(&[0; 8]);
    // Aligned, so that only the length is at fault.
    let (buf, range) = placed(&file, 0);
    let bytes = &buf[range];
    assert!(matches!(
        real::view::<f64, Ix1>(bytes),
        Err(real::ViewNpyError::ExtraBytes(8))
    ));
    let r = ArrayView1::<f64>::view_npy(bytes);
    assert!(
        matches!(
            r,
            Err(ViewNpyError::Format(FormatError::TrailingBytes {
                expected: 24,
                found: 32
            }))
        ),
        "{r:?}"
    );
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

/// `Zip(_)` for input that is not a zip archive is `Format(FormatError::NotZip { .. })`.
#[test]
fn npz_zip_not_an_archive_is_format_not_zip() {
    let junk = three_f64();
    let e = real_zip_error(real::NpzReader::new(Cursor::new(&junk)).map(|_| ()));
    assert!(e.starts_with("InvalidArchive"), "{e}");
    let r = NpzReader::new(Cursor::new(&junk));
    assert!(
        matches!(r, Err(ReadNpzError::Format(FormatError::NotZip { .. }))),
        "{r:?}"
    );
}

/// `Zip(_)` for an archive cut short is `Format(FormatError::NotZip { .. })` (no end record)
/// or `Format(FormatError::Zip { .. })` (a structure that points outside the archive).
#[test]
fn npz_zip_truncated_archive_is_format_not_zip_or_zip() {
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
        let r = NpzReader::new(Cursor::new(short));
        assert!(
            matches!(
                r,
                Err(ReadNpzError::Format(
                    FormatError::NotZip { .. } | FormatError::Zip { .. }
                ))
            ),
            "{cut}: {r:?}"
        );
    }
}

/// `Zip(FileNotFound)` from `by_name` is `Mismatch(MismatchError::MissingMember { .. })`,
/// and from `by_index` `Mismatch(MismatchError::MemberIndex { .. })`.
#[test]
fn npz_zip_file_not_found_is_mismatch_missing_member_or_member_index() {
    let bytes = archive();
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let e = real_zip_error(npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("b"));
    assert!(e.starts_with("FileNotFound"), "{e}");
    let e = real_zip_error(npz.by_index::<ndarray::OwnedRepr<f64>, Ix1>(5));
    assert!(e.starts_with("FileNotFound"), "{e}");

    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("b");
    assert!(
        matches!(
            r,
            Err(ReadNpzError::Mismatch(MismatchError::MissingMember { .. }))
        ),
        "{r:?}"
    );
    let r = npz.by_index::<ndarray::OwnedRepr<f64>, Ix1>(5);
    assert!(
        matches!(
            r,
            Err(ReadNpzError::Mismatch(MismatchError::MemberIndex {
                index: 5,
                len: 2
            }))
        ),
        "{r:?}"
    );
}

/// `Zip(UnsupportedArchive)` for a compression method other than stored and deflate is
/// `Format(FormatError::UnsupportedMember { .. })`.
#[test]
fn npz_zip_unsupported_method_is_format_unsupported_member() {
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
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("a");
    assert!(
        matches!(
            r,
            Err(ReadNpzError::Format(FormatError::UnsupportedMember { .. }))
        ),
        "{r:?}"
    );
}

/// A member whose bytes fail their CRC-32: ndarray-npy's zip reader reports it as an I/O
/// error inside the `.npy` read (`Npy(Io(_))`); ndnpy as
/// `Format(FormatError::MemberChecksum { .. })`.
#[test]
fn npz_corrupt_member_is_format_member_checksum() {
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
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, Ix1>("a");
    assert!(
        matches!(
            r,
            Err(ReadNpzError::Format(FormatError::MemberChecksum { .. }))
        ),
        "{r:?}"
    );
}

/// `Npy(e)`: an error inside a member is not wrapped; it is the `ReadNpyError` row's pattern
/// itself (here a dtype mismatch).
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
    let r = npz.by_name::<ndarray::OwnedRepr<i32>, Ix1>("a");
    assert!(
        matches!(r, Err(ReadNpzError::Mismatch(MismatchError::DType { .. }))),
        "{r:?}"
    );
    let r = npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>("a");
    assert!(
        matches!(r, Err(ReadNpzError::Mismatch(MismatchError::Ndim { .. }))),
        "{r:?}"
    );
}

/// `Npy(ParseHeader(_))` for a member that is not an `.npy` file (numpy returns it as bytes)
/// is `Mismatch(MismatchError::NotNpy { .. })`.
#[test]
fn npz_npy_parse_header_of_a_non_array_member_is_mismatch_not_npy() {
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
    let r = npz.by_name::<ndarray::OwnedRepr<u8>, Ix1>("notes");
    assert!(
        matches!(r, Err(ReadNpzError::Mismatch(MismatchError::NotNpy { .. }))),
        "{r:?}"
    );
}

// ---- WriteNpzError -----------------------------------------------------------------------

/// `Zip(_)` for a second member of the same name is
/// `Usage(UsageError::DuplicateMember { .. })`.
#[test]
fn npz_write_zip_duplicate_name_is_usage_duplicate_member() {
    let a = array![1u8];
    let mut npz = real::NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let r = npz.add_array("a", &a);
    assert!(matches!(r, Err(real::WriteNpzError::Zip(_))), "{r:?}");
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let r = npz.add_array("a", &a);
    assert!(
        matches!(
            r,
            Err(WriteNpzError::Usage(UsageError::DuplicateMember { .. }))
        ),
        "{r:?}"
    );
}

/// `Zip(Io(_))` or `Npy(Io(_))` when the writer fails is `Io(_)`.
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
    assert!(matches!(r, Err(WriteNpzError::Io(_))), "{r:?}");
}

/// `Npy(e)` for a write error other than I/O (ndarray-npy's own element types never give one)
/// is `e`'s pattern, not wrapped: here `Usage(UsageError::MixedUnits { .. })`.
#[test]
fn npz_write_npy_is_the_write_pattern_unwrapped() {
    use ndarray_npy::{DateTimeUnit, Datetime64, TimeUnit};
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
    let r = npz.add_array("t", &mixed);
    assert!(
        matches!(r, Err(WriteNpzError::Usage(UsageError::MixedUnits { .. }))),
        "{r:?}"
    );
}
