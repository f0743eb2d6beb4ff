//! ndarray-npy 0.10's error types, variant by variant: each test feeds the real ndarray-npy
//! 0.10 and ndnpy (as `ndarray_npy`) the same input, and checks that both give the same variant
//! with the same fields, and the same message (ndnpy's may go on after ndarray-npy's text,
//! never replace it). Then it checks that `ndnpy::Error::from` of ndnpy's error keeps the
//! detail ndnpy knows (kind, member, field, offsets, the OS error) wherever the variant has a
//! payload to carry it.

use ndarray::{array, Array1, Array2, Array3, ArrayView1, ArrayViewMut1, Ix1, Ix2};
use ndarray_npy::npy::header::{FormatHeaderError, ParseHeaderError};
use ndarray_npy::npy::PyLiteral;
use ndarray_npy::{
    Error, ErrorKind, NpzReader, NpzWriter, ReadDataError, ReadNpyError, ReadNpyExt, ReadNpzError,
    ViewDataError, ViewMutNpyExt, ViewNpyError, ViewNpyExt, WriteDataError, WriteNpyError,
    WriteNpyExt, WriteNpzError,
};
use std::io::{self, Cursor};
use zip::result::ZipError;

/// The real ndarray-npy 0.10, kept in a module of its own so that its extension traits never
/// meet ndnpy's in one scope.
mod real {
    use ndarray::{Array, ArrayView, ArrayViewMut, Dimension};
    pub use real_ndarray_npy::npy::header::ParseHeaderError;
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

/// ndnpy's message is ndarray-npy's, or ndarray-npy's followed by more. Where ndarray-npy's
/// message ends in text of another crate's (py_literal's parser, zip's reasons, an I/O
/// error's text), `payload` is the part before that text, and both start with it.
fn same_text(real: &dyn std::fmt::Display, ours: &dyn std::fmt::Display, payload: Option<&str>) {
    let (real, ours) = (real.to_string(), ours.to_string());
    if let Some(prefix) = payload {
        assert!(real.starts_with(prefix), "ndarray-npy: {real}");
        assert!(ours.starts_with(prefix), "ndnpy: {ours}");
    } else {
        assert!(
            ours.starts_with(&real),
            "ndnpy's message does not start with ndarray-npy's:\n  ndarray-npy: {real}\n  ndnpy:       {ours}"
        );
    }
}

fn assert_send_sync<T: Send + Sync + 'static + std::error::Error>() {}

#[test]
fn every_type_is_an_error_that_is_send_sync_and_static() {
    assert_send_sync::<ReadNpyError>();
    assert_send_sync::<ReadDataError>();
    assert_send_sync::<WriteNpyError>();
    assert_send_sync::<WriteDataError>();
    assert_send_sync::<ViewNpyError>();
    assert_send_sync::<ViewDataError>();
    assert_send_sync::<ReadNpzError>();
    assert_send_sync::<WriteNpzError>();
    assert_send_sync::<ParseHeaderError>();
    assert_send_sync::<FormatHeaderError>();
}

// ---- ReadNpyError ------------------------------------------------------------------------

#[test]
fn read_io_of_a_missing_file_is_the_os_error() {
    let missing = std::env::temp_dir().join(format!("ndnpy-no-such-{}.npy", std::process::id()));
    let real: Result<Array1<f64>, _> = real_ndarray_npy::read_npy(&missing);
    let real = real.unwrap_err();
    let ours: Result<Array1<f64>, ReadNpyError> = ndarray_npy::read_npy(&missing);
    let ours = ours.unwrap_err();
    let (real::ReadNpyError::Io(r), ReadNpyError::Io(o)) = (&real, &ours) else {
        panic!("{real:?} / {ours:?}")
    };
    assert_eq!((r.kind(), r.raw_os_error()), (o.kind(), o.raw_os_error()));
    assert_eq!(real.to_string(), ours.to_string());
    let err = Error::from(ours);
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(err.io_error().unwrap().raw_os_error(), r.raw_os_error());
}

#[test]
fn read_input_that_ends_in_the_header_is_io_unexpected_eof() {
    let file = three_f64();
    for cut in [0, 3, 9, 40] {
        let real = real::read::<f64, Ix1>(&file[..cut]).unwrap_err();
        let ours = Array1::<f64>::read_npy(&file[..cut]).unwrap_err();
        match (&real, &ours) {
            (real::ReadNpyError::Io(r), ReadNpyError::Io(o)) => {
                assert_eq!(r.kind(), io::ErrorKind::UnexpectedEof, "{cut}");
                assert_eq!(o.kind(), io::ErrorKind::UnexpectedEof, "{cut}");
            }
            _ => panic!("{cut}: {real:?} / {ours:?}"),
        }
        same_text(&real, &ours, Some("I/O error: "));
        // The detail: which part, how many bytes (no bytes at all are not an `.npy` file).
        let err = Error::from(ours);
        if cut > 0 {
            assert_eq!(err.kind(), ErrorKind::Truncated, "{cut}");
            assert!(err.byte_counts().is_some(), "{cut}");
        } else {
            assert_eq!(err.kind(), ErrorKind::Header);
        }
    }
}

#[test]
fn read_parse_header_variants_are_ndarray_npys() {
    let mut bad_magic = three_f64();
    bad_magic[1] = b'X';
    let mut bad_version = three_f64();
    bad_version[6] = 9;
    let v3 = npy_v3(
        b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), '\xff': 0}",
        &[0; 24],
    );
    let dict = |d: &str| npy(d, &[0; 24]);
    const DICT: Option<&str> = Some("error parsing header: error parsing metadata dict: ");
    type Check = fn(&real::ParseHeaderError, &ParseHeaderError) -> bool;
    let cases: Vec<(Vec<u8>, Check, Option<&str>)> = vec![
        (
            bad_magic,
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ParseHeaderError::MagicString,
                        ParseHeaderError::MagicString
                    )
                )
            },
            None,
        ),
        (
            bad_version,
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ParseHeaderError::Version { major: 9, minor: 0 },
                        ParseHeaderError::Version { major: 9, minor: 0 }
                    )
                )
            },
            None,
        ),
        (
            dict("{'descr': '<f8', 'fortran_order': False}"),
            |r, o| matches!((r, o), (real::ParseHeaderError::MissingKey(a), ParseHeaderError::MissingKey(b)) if a == b),
            None,
        ),
        (
            dict("{'descr': '<f8', 'shape': (3,)}"),
            |r, o| matches!((r, o), (real::ParseHeaderError::MissingKey(a), ParseHeaderError::MissingKey(b)) if a == b),
            None,
        ),
        (
            dict("{'fortran_order': False, 'shape': (3,)}"),
            |r, o| matches!((r, o), (real::ParseHeaderError::MissingKey(a), ParseHeaderError::MissingKey(b)) if a == b),
            None,
        ),
        (
            dict("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'extra': 1}"),
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ParseHeaderError::UnknownKey(_),
                        ParseHeaderError::UnknownKey(_)
                    )
                )
            },
            None,
        ),
        (
            dict("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,)}"),
            |r, o| matches!((r, o), (real::ParseHeaderError::IllegalValue { key: a, .. }, ParseHeaderError::IllegalValue { key: b, .. }) if a == b),
            None,
        ),
        (
            dict("{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}"),
            |r, o| matches!((r, o), (real::ParseHeaderError::IllegalValue { key: a, .. }, ParseHeaderError::IllegalValue { key: b, .. }) if a == b),
            None,
        ),
        (
            dict("['descr', 'fortran_order', 'shape']"),
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ParseHeaderError::MetaNotDict(_),
                        ParseHeaderError::MetaNotDict(_)
                    )
                )
            },
            None,
        ),
        (
            dict("{'descr': '<f8', 'fortran_order': False, 'shape': (3,)"),
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ParseHeaderError::DictParse(_),
                        ParseHeaderError::DictParse(_)
                    )
                )
            },
            DICT,
        ),
        (
            v3,
            |r, o| matches!((r, o), (real::ParseHeaderError::Utf8Parse(a), ParseHeaderError::Utf8Parse(b)) if a == b),
            None,
        ),
    ];
    for (i, (bytes, same, payload)) in cases.into_iter().enumerate() {
        let real = real::read::<f64, Ix1>(&bytes).unwrap_err();
        let ours = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
        let (real::ReadNpyError::ParseHeader(r), ReadNpyError::ParseHeader(o)) = (&real, &ours)
        else {
            panic!("{i}: {real:?} / {ours:?}")
        };
        assert!(same(r, o), "{i}: {r:?} / {o:?}");
        same_text(&real, &ours, payload);
        assert_eq!(ours.kind(), ErrorKind::Header, "{i}");
        assert_eq!(Error::from(ours).kind(), ErrorKind::Header, "{i}");
    }
}

/// ndarray-npy's messages, as tests of applications assert them.
#[test]
#[should_panic(expected = "error parsing header: start does not match magic string")]
fn bad_magic_panics_with_ndarray_npys_message() {
    if let Err(e) = Array1::<f64>::read_npy(&b"This is not an npy file"[..]) {
        panic!("{e}");
    }
}

/// The offset of a syntax error survives `DictParse`.
#[test]
fn dict_parse_carries_the_offset() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (3,)}",
        &[0; 24],
    );
    let ours = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert!(
        matches!(
            ours,
            ReadNpyError::ParseHeader(ParseHeaderError::DictParse(_))
        ),
        "{ours:?}"
    );
    assert_eq!(Error::from(ours).offset(), Some(34));
}

/// A header over `ReadOptions::max_header_len` (1 MiB), which ndarray-npy reads: ndnpy refuses
/// it as a header it cannot parse, with the limit in the detail.
#[test]
fn a_header_over_the_limit_is_dict_parse_with_the_limit() {
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
    let ours = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert!(
        matches!(
            ours,
            ReadNpyError::ParseHeader(ParseHeaderError::DictParse(_))
        ),
        "{ours:?}"
    );
    let err = Error::from(ours);
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.byte_counts(), Some((1 << 20, u64::from(header_len))));
}

#[test]
fn read_parse_data_of_a_bad_bool() {
    let bytes = npy(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        &[1, 5, 0],
    );
    let real = real::read::<bool, Ix1>(&bytes).unwrap_err();
    let ours = Array1::<bool>::read_npy(&bytes[..]).unwrap_err();
    assert!(matches!(real, real::ReadNpyError::ParseData(_)), "{real:?}");
    assert!(matches!(ours, ReadNpyError::ParseData(_)), "{ours:?}");
    same_text(&real, &ours, None);
    assert_eq!(
        ours.to_string(),
        "error parsing data: error parsing value 0x05 as a bool: element 1; a bool is 0x00 or 0x01"
    );
    assert_eq!(Error::from(ours).kind(), ErrorKind::InvalidData);
}

#[test]
fn read_length_overflow() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    let real = real::read::<f64, Ix2>(&bytes).unwrap_err();
    let ours = Array2::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert!(
        matches!(real, real::ReadNpyError::LengthOverflow),
        "{real:?}"
    );
    assert!(matches!(ours, ReadNpyError::LengthOverflow), "{ours:?}");
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(Error::from(ours).kind(), ErrorKind::Header);
}

#[test]
fn read_wrong_ndim() {
    let bytes = three_f64();
    let real = real::read::<f64, Ix2>(&bytes).unwrap_err();
    let ours = Array2::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert!(
        matches!(real, real::ReadNpyError::WrongNdim(Some(2), 1)),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpyError::WrongNdim(Some(2), 1)),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(Error::from(ours).kind(), ErrorKind::Ndim);
}

#[test]
fn read_wrong_descriptor_prints_the_same_descriptor() {
    let record = npy(
        "{'descr': [('x', '<i4'), ('y', '<i4')], 'fortran_order': False, 'shape': (3,), }",
        &[0; 24],
    );
    let nonsense = npy(
        "{'descr': '<x9', 'fortran_order': False, 'shape': (3,), }",
        &[0; 24],
    );
    for bytes in [three_f64(), record, nonsense] {
        let real = real::read::<i32, Ix1>(&bytes).unwrap_err();
        let ours = Array1::<i32>::read_npy(&bytes[..]).unwrap_err();
        let (real::ReadNpyError::WrongDescriptor(r), ReadNpyError::WrongDescriptor(o)) =
            (&real, &ours)
        else {
            panic!("{real:?} / {ours:?}")
        };
        assert_eq!(r.to_string(), o.to_string());
        assert_eq!(real.to_string(), ours.to_string());
    }
    // The file's dtype, in the detail.
    let err = Error::from(Array1::<i32>::read_npy(&three_f64()[..]).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::DType);
    assert_eq!(err.dtype().unwrap().descr(), "'<f8'");
}

#[test]
fn read_missing_data() {
    let bytes = three_f64();
    let cut = &bytes[..bytes.len() - 1];
    let real = real::read::<f64, Ix1>(cut).unwrap_err();
    let ours = Array1::<f64>::read_npy(cut).unwrap_err();
    assert!(matches!(real, real::ReadNpyError::MissingData), "{real:?}");
    assert!(matches!(ours, ReadNpyError::MissingData), "{ours:?}");
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(Error::from(ours).kind(), ErrorKind::Truncated);
}

/// `ExtraBytes`: ndarray-npy refuses bytes after the array; ndnpy leaves them in the reader,
/// as `np.load` does.
#[test]
fn read_extra_bytes_stay_in_the_reader() {
    let mut bytes = three_f64();
    bytes.extend_from_slice(b"more");
    let real = real::read::<f64, Ix1>(&bytes).unwrap_err();
    assert!(
        matches!(real, real::ReadNpyError::ExtraBytes(4)),
        "{real:?}"
    );
    let mut reader = &bytes[..];
    assert_eq!(
        Array1::<f64>::read_npy(&mut reader).unwrap(),
        array![1.0, 2.0, 3.0]
    );
    assert_eq!(reader, b"more");
}

// ---- WriteNpyError -----------------------------------------------------------------------

#[test]
fn write_io_is_the_writers_error() {
    let a = array![1.0f64, 2.0, 3.0];
    let mut small = [0u8; 16];
    let real = real::write(&a, &mut small[..]).unwrap_err();
    let mut small = [0u8; 16];
    let ours = a.write_npy(&mut small[..]).unwrap_err();
    let (real::WriteNpyError::Io(r), WriteNpyError::Io(o)) = (&real, &ours) else {
        panic!("{real:?} / {ours:?}")
    };
    assert_eq!(r.kind(), o.kind());
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(
        Error::from(ours).io_error().unwrap().kind(),
        io::ErrorKind::WriteZero
    );
}

/// `FormatData`: a value its dtype cannot hold (ndarray-npy's own element types never give
/// one); ndnpy's detail rides in it.
#[test]
fn write_format_data_carries_ndnpys_error() {
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
    let ours = mixed.write_npy(Vec::new()).unwrap_err();
    assert!(matches!(ours, WriteNpyError::FormatData(_)), "{ours:?}");
    assert!(
        ours.to_string().starts_with("error formatting data: "),
        "{ours}"
    );
    assert_eq!(Error::from(ours).kind(), ErrorKind::Usage);
}

// ---- ViewNpyError ------------------------------------------------------------------------

#[test]
fn view_variants_are_ndarray_npys() {
    let good = three_f64();
    let (buf, at) = placed(&good, 0);
    let good = &buf[at.clone()];
    let mut be = three_f64();
    let native: &[u8] = if cfg!(target_endian = "little") {
        b"<f8"
    } else {
        b">f8"
    };
    let at_descr = be.windows(3).position(|w| w == native).unwrap();
    be[at_descr..at_descr + 3].copy_from_slice(foreign_f8().as_bytes());
    let (be_buf, be_at) = placed(&be, 0);
    let (odd, odd_at) = placed(&three_f64(), 3);
    let mut long = good.to_vec();
    long.extend_from_slice(&[0; 8]);
    let (long_buf, long_at) = placed(&long, 0);
    let mut bools = Vec::new();
    array![true, false, true].write_npy(&mut bools).unwrap();
    bools[129] = 7;
    let length = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
        &[],
    );
    let (length_buf, length_at) = placed(&length, 0);
    type Check = fn(&real::ViewNpyError, &ViewNpyError) -> bool;
    let cases: Vec<(&[u8], Check, Option<&str>)> = vec![
        (
            &good[..5],
            |r, o| matches!((r, o), (real::ViewNpyError::Io(_), ViewNpyError::Io(_))),
            Some("I/O error: "),
        ),
        (
            &good[..good.len() - 3],
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ViewNpyError::MissingBytes(3),
                        ViewNpyError::MissingBytes(3)
                    )
                )
            },
            None,
        ),
        (
            &long_buf[long_at],
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ViewNpyError::ExtraBytes(8),
                        ViewNpyError::ExtraBytes(8)
                    )
                )
            },
            None,
        ),
        (
            &be_buf[be_at],
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ViewNpyError::NonNativeEndian,
                        ViewNpyError::NonNativeEndian
                    )
                )
            },
            None,
        ),
        (
            &odd[odd_at],
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ViewNpyError::MisalignedData,
                        ViewNpyError::MisalignedData
                    )
                )
            },
            None,
        ),
        (
            &length_buf[length_at],
            |r, o| {
                matches!(
                    (r, o),
                    (
                        real::ViewNpyError::LengthOverflow,
                        ViewNpyError::LengthOverflow
                    )
                )
            },
            None,
        ),
    ];
    for (i, (bytes, same, payload)) in cases.into_iter().enumerate() {
        let real = real::view::<f64, Ix1>(bytes).unwrap_err();
        let ours = ArrayView1::<f64>::view_npy(bytes).unwrap_err();
        assert!(same(&real, &ours), "{i}: {real:?} / {ours:?}");
        same_text(&real, &ours, payload);
    }
    // Another dimension, another type, a bad bool.
    let real = real::view::<f64, Ix2>(good).unwrap_err();
    let ours = ndarray::ArrayView2::<f64>::view_npy(good).unwrap_err();
    assert!(matches!(
        (&real, &ours),
        (
            real::ViewNpyError::WrongNdim(Some(2), 1),
            ViewNpyError::WrongNdim(Some(2), 1)
        )
    ));
    assert_eq!(real.to_string(), ours.to_string());
    let real = real::view::<i64, Ix1>(good).unwrap_err();
    let ours = ArrayView1::<i64>::view_npy(good).unwrap_err();
    assert!(matches!(
        (&real, &ours),
        (
            real::ViewNpyError::WrongDescriptor(_),
            ViewNpyError::WrongDescriptor(_)
        )
    ));
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(Error::from(ours).dtype().unwrap().descr(), "'<f8'");
    let real = real::view_mut::<bool, Ix1>(&mut bools.clone()).unwrap_err();
    let ours = ArrayViewMut1::<bool>::view_mut_npy(&mut bools).unwrap_err();
    assert!(matches!(
        (&real, &ours),
        (
            real::ViewNpyError::InvalidData(_),
            ViewNpyError::InvalidData(_)
        )
    ));
    same_text(&real, &ours, None);
}

// ---- ReadNpzError ------------------------------------------------------------------------

/// A stored archive with one `f64` member `a` and one raw-bytes member `notes`.
fn archive() -> Vec<u8> {
    let mut npz = ndarray_npy::NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &array![1.0f64, 2.0, 3.0]).unwrap();
    npz.add_bytes("notes", b"not an array").unwrap();
    npz.finish().unwrap().into_inner()
}

#[test]
fn npz_not_an_archive_is_zip_invalid_archive() {
    let junk = three_f64();
    let real = real::NpzReader::new(Cursor::new(&junk)).err().unwrap();
    let ours = NpzReader::new(Cursor::new(&junk)).err().unwrap();
    assert!(
        matches!(real, real::ReadNpzError::Zip(ZipError::InvalidArchive(_))),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Zip(ZipError::InvalidArchive(_))),
        "{ours:?}"
    );
    same_text(&real, &ours, Some("zip file error: invalid Zip archive: "));
    assert_eq!(ours.kind(), ErrorKind::Archive);
}

#[test]
fn npz_missing_member_is_zip_file_not_found() {
    let bytes = archive();
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let real = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("b")
        .unwrap_err();
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("b")
        .unwrap_err();
    assert!(
        matches!(real, real::ReadNpzError::Zip(ZipError::FileNotFound)),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Zip(ZipError::FileNotFound)),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    let ours = npz.by_index::<ndarray::OwnedRepr<f64>, Ix1>(7).unwrap_err();
    assert!(
        matches!(ours, ReadNpzError::Zip(ZipError::FileNotFound)),
        "{ours:?}"
    );
    assert_eq!(Error::from(ours).kind(), ErrorKind::MissingMember);
}

#[test]
fn npz_unsupported_method_is_zip_unsupported_archive() {
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
    let real = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    assert!(
        matches!(
            real,
            real::ReadNpzError::Zip(ZipError::UnsupportedArchive(_))
        ),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Zip(ZipError::UnsupportedArchive(_))),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(ours.kind(), ErrorKind::Archive);
}

/// A member that fails its CRC-32: `Npy(Io(_))` in both; the member and the checksums are in
/// ndnpy's detail.
#[test]
fn npz_corrupt_member_is_npy_io_and_keeps_the_member() {
    let mut bytes = archive();
    let pos = bytes
        .windows(8)
        .position(|w| w == 3.0f64.to_ne_bytes())
        .unwrap();
    bytes[pos] ^= 0x01;
    let mut npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let real = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("a")
        .unwrap_err();
    assert!(
        matches!(real, real::ReadNpzError::Npy(real::ReadNpyError::Io(_))),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Npy(ReadNpyError::Io(_))),
        "{ours:?}"
    );
    same_text(
        &real,
        &ours,
        Some("error reading npy file in npz archive: I/O error: "),
    );
    let err = Error::from(ours);
    assert_eq!(err.kind(), ErrorKind::Archive);
    assert_eq!(err.member(), Some("a.npy"));
}

#[test]
fn npz_errors_inside_a_member_are_npy_of_the_read_variant() {
    let bytes = archive();
    let mut real_npz = real::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let real = real_npz
        .by_name::<ndarray::OwnedRepr<i32>, Ix1>("a")
        .unwrap_err();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<i32>, Ix1>("a")
        .unwrap_err();
    assert!(
        matches!(
            real,
            real::ReadNpzError::Npy(real::ReadNpyError::WrongDescriptor(_))
        ),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Npy(ReadNpyError::WrongDescriptor(_))),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(Error::from(ours).member(), Some("a.npy"));
    let real = real_npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix2>("a")
        .unwrap_err();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix2>("a")
        .unwrap_err();
    assert!(
        matches!(
            real,
            real::ReadNpzError::Npy(real::ReadNpyError::WrongNdim(Some(2), 1))
        ),
        "{real:?}"
    );
    assert!(
        matches!(ours, ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), 1))),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    // A member that is not an array.
    let real = real_npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("notes")
        .unwrap_err();
    let ours = npz
        .by_name::<ndarray::OwnedRepr<f64>, Ix1>("notes")
        .unwrap_err();
    assert!(
        matches!(
            real,
            real::ReadNpzError::Npy(real::ReadNpyError::ParseHeader(
                real::ParseHeaderError::MagicString
            ))
        ),
        "{real:?}"
    );
    assert!(
        matches!(
            ours,
            ReadNpzError::Npy(ReadNpyError::ParseHeader(ParseHeaderError::MagicString))
        ),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
}

// ---- WriteNpzError -----------------------------------------------------------------------

#[test]
fn npz_duplicate_member_is_zip_invalid_archive() {
    let a = array![1u8];
    let mut npz = real::NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let real = npz.add_array("a", &a).unwrap_err();
    let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
    npz.add_array("a", &a).unwrap();
    let ours = npz.add_array("a", &a).unwrap_err();
    assert!(
        matches!(real, real::WriteNpzError::Zip(ZipError::InvalidArchive(_))),
        "{real:?}"
    );
    assert!(
        matches!(ours, WriteNpzError::Zip(ZipError::InvalidArchive(_))),
        "{ours:?}"
    );
    assert_eq!(real.to_string(), ours.to_string());
    assert_eq!(ours.kind(), ErrorKind::Usage);
}

#[test]
fn npz_write_io_is_npy_io_or_zip_io() {
    let big = Array3::<f64>::zeros((4, 64, 64));
    let mut buf = vec![0u8; 4096];
    let mut npz = real::NpzWriter::new(Cursor::new(&mut buf[..]));
    let real = npz.add_array("big", &big).unwrap_err();
    // Dropping the failed writer makes the zip crate print its own error; skip the drop.
    std::mem::forget(npz);
    assert!(
        matches!(real, real::WriteNpzError::Npy(real::WriteNpyError::Io(_))),
        "{real:?}"
    );
    let mut buf = vec![0u8; 4096];
    let mut npz = NpzWriter::new(Cursor::new(&mut buf[..]));
    let ours = npz.add_array("big", &big).unwrap_err();
    assert!(
        matches!(ours, WriteNpzError::Npy(WriteNpyError::Io(_))),
        "{ours:?}"
    );
    assert_eq!(ours.kind(), ErrorKind::Io);
    // The directory at `finish`: `Zip(Io(_))`.
    let mut buf = [0u8; 200];
    let mut npz = NpzWriter::new(Cursor::new(&mut buf[..]));
    npz.add_array("a", &array![1u8]).unwrap();
    let ours = npz.finish().unwrap_err();
    assert!(
        matches!(ours, WriteNpzError::Zip(ZipError::Io(_))),
        "{ours:?}"
    );
}

// ---- conversions -------------------------------------------------------------------------

/// Every variant, as an application builds it, converts into an `Error` of its kind and back
/// unchanged.
#[test]
fn built_variants_convert_to_error_and_back() {
    let read = || {
        vec![
            ReadNpyError::Io(io::Error::other("disk")),
            ReadNpyError::ParseHeader(ParseHeaderError::MagicString),
            ReadNpyError::ParseHeader(ParseHeaderError::MissingKey("shape".into())),
            ReadNpyError::ParseData("bad".into()),
            ReadNpyError::LengthOverflow,
            ReadNpyError::WrongNdim(Some(2), 3),
            ReadNpyError::WrongDescriptor(PyLiteral::new("'<f8'")),
            ReadNpyError::MissingData,
            ReadNpyError::ExtraBytes(4),
        ]
    };
    let kinds = [
        ErrorKind::Io,
        ErrorKind::Header,
        ErrorKind::Header,
        ErrorKind::InvalidData,
        ErrorKind::Header,
        ErrorKind::Ndim,
        ErrorKind::DType,
        ErrorKind::Truncated,
        ErrorKind::TrailingBytes,
    ];
    for ((e, again), kind) in read().into_iter().zip(read()).zip(kinds) {
        let text = e.to_string();
        let err = Error::from(e);
        assert_eq!(err.kind(), kind, "{text}");
        if kind != ErrorKind::Io {
            // An I/O error is ndnpy's own `ErrorKind::Io`, with ndnpy's words.
            assert_eq!(err.to_string(), text);
        }
        let back = ReadNpyError::from(err);
        assert_eq!(back.to_string(), again.to_string());
        assert_eq!(format!("{back:?}"), format!("{again:?}"));
    }
    // The ndarray-npy pattern of a shape problem reported by hand, through every wrapper.
    let built = ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), 3));
    let back = ReadNpzError::from(Error::from(built));
    assert!(matches!(
        back,
        ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), 3))
    ));
    let built = WriteNpzError::Zip(ZipError::FileNotFound);
    assert!(matches!(
        WriteNpzError::from(Error::from(built)),
        WriteNpzError::Zip(ZipError::FileNotFound)
    ));
    let built = ViewNpyError::MisalignedData;
    assert!(matches!(
        ViewNpyError::from(Error::from(built)),
        ViewNpyError::MisalignedData
    ));
    let built = WriteNpyError::FormatHeader(FormatHeaderError::HeaderTooLong);
    assert!(matches!(
        WriteNpyError::from(Error::from(built)),
        WriteNpyError::FormatHeader(FormatHeaderError::HeaderTooLong)
    ));
    // The header errors, alone.
    let back = ParseHeaderError::from(Error::from(ParseHeaderError::MissingNewline));
    assert!(matches!(back, ParseHeaderError::MissingNewline));
    let back = ParseHeaderError::from(Error::from(ParseHeaderError::Version {
        major: 7,
        minor: 1,
    }));
    assert!(matches!(
        back,
        ParseHeaderError::Version { major: 7, minor: 1 }
    ));
    let back = FormatHeaderError::from(Error::from(FormatHeaderError::HeaderTooLong));
    assert!(matches!(back, FormatHeaderError::HeaderTooLong));
    // The data errors go into the `.npy` errors as in ndarray-npy.
    assert!(matches!(
        ReadNpyError::from(ReadDataError::MissingData),
        ReadNpyError::MissingData
    ));
    assert!(matches!(
        ReadDataError::from(io::Error::from(io::ErrorKind::UnexpectedEof)),
        ReadDataError::MissingData
    ));
    assert!(matches!(
        ViewNpyError::from(ViewDataError::Misaligned),
        ViewNpyError::MisalignedData
    ));
    assert!(matches!(
        WriteNpyError::from(WriteDataError::Io(io::Error::other("x"))),
        WriteNpyError::Io(_)
    ));
}

/// ndnpy's errors converted into these types and back keep their detail where the variant
/// has a payload: the field path and record index of a bad record value, the offset of a
/// header syntax error, the member of an archive fault, the OS error.
#[test]
fn ndnpy_errors_keep_their_detail_through_these_types() {
    let bytes = npy(
        "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (3,)}",
        &[0; 24],
    );
    let e = Array1::<f64>::read_npy(&bytes[..]).unwrap_err();
    let err = Error::from(e);
    assert_eq!(err.offset(), Some(34));
    // Through each of the other types and back.
    let e = Error::from(ViewNpyError::from(err));
    let e = Error::from(ReadNpzError::from(e));
    let e = Error::from(ReadDataError::from(e));
    let e = Error::from(WriteNpyError::from(e));
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Header, Some(34)));
    // An OS error inside an archive member keeps its code and the member.
    let os = Error::from(io::Error::from_raw_os_error(5));
    let e = Error::from(ReadNpzError::from(os));
    assert_eq!(e.io_error().unwrap().raw_os_error(), Some(5));
    // `?` into ndnpy's error and into a boxed error.
    fn boxed() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        Array1::<f64>::read_npy(&b"x"[..])?;
        Ok(())
    }
    assert!(boxed().unwrap_err().to_string().starts_with("I/O error: "));
    fn own() -> Result<(), Error> {
        Array1::<f64>::read_npy(&b"not an npy file"[..])?;
        Ok(())
    }
    assert_eq!(own().unwrap_err().kind(), ErrorKind::Header);
}
