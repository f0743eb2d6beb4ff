//! Malformed and hostile inputs: each gives a typed error, never a panic, a hang, or an
//! allocation beyond the bytes present. Cases follow numpy's test_format.py (positioned as
//! the format doc's porting notes say) and the validation gaps numpy itself has.

use ndarray::{Array1, ArrayD};
use ndnpy::{Error, ErrorKind, Fault, Header, ReadNpyExt, ReadOptions};

/// A v1 file with `text` as its header dict, padded as numpy pads, followed by `data`.
fn npy_v1(text: &str, data: &[u8]) -> Vec<u8> {
    let hlen = text.len() + 1;
    let pad = 64 - (10 + hlen) % 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&((hlen + pad) as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out.extend_from_slice(data);
    out
}

fn read_f8(bytes: &[u8]) -> Result<ArrayD<f64>, Error> {
    crate::own::read(bytes)
}

fn format_err(bytes: &[u8]) -> Error {
    match read_f8(bytes) {
        Err(e) if e.kind().is_format() => e,
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn bad_magic_strings_from_numpy_tests() {
    for bad in [
        &b"\x92NUMPY\x01\x00"[..],
        b"\x00NUMPY\x01\x00",
        b"\x93numpy\x01\x00",
        b"\x93MATLB\x01\x00",
        b"",
        b"PK\x03\x04",
    ] {
        let err = format_err(bad);
        assert_eq!(err.kind(), ErrorKind::Header, "{bad:?}");
        assert_eq!(err.fault(), Some(Fault::Magic), "{bad:?}");
    }
    // A correct but short magic is a truncation, not a bad magic.
    for short in [&b"\x93NUMPY\x01"[..], b"\x93NUMPY", b"\x93NU"] {
        let err = format_err(short);
        assert_eq!(err.kind(), ErrorKind::Truncated, "{short:?}");
        let (expected, found) = err.byte_counts().unwrap();
        assert_eq!((expected, found), (8, short.len() as u64), "{short:?}");
    }
}

#[test]
fn bad_versions_from_numpy_tests() {
    for (v, major, minor) in [
        (&b"\x01\x01"[..], 1, 1),
        (b"\x00\x00", 0, 0),
        (b"\x00\x01", 0, 1),
        (b"\x02\x02", 2, 2),
        (b"\xff\xff", 255, 255),
    ] {
        let mut f = b"\x93NUMPY".to_vec();
        f.extend_from_slice(v);
        f.extend_from_slice(b"\x10\x00");
        let err = format_err(&f);
        assert_eq!(err.kind(), ErrorKind::Header);
        assert_eq!(err.fault(), Some(Fault::Version), "{major}.{minor}");
    }
    // A valid version with no length field.
    let err = format_err(b"\x93NUMPY\x02\x00");
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.byte_counts(), Some((4, 0)));
}

#[test]
fn bad_headers_from_numpy_tests() {
    // test_bad_header, read from offset 0 rather than mis-positioned.
    let err = format_err(b"\x93NUMPY\x01\x001");
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.byte_counts(), Some((2, 1)));
    let err = format_err(b"\x93NUMPY\x01\x00\x01\x00");
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.byte_counts(), Some((1, 0)));
    let missing = npy_v1("{'descr': 'x', 'shape': (1, 2), }", &[]);
    let err = format_err(&missing);
    assert_eq!(err.kind(), ErrorKind::Header);
    assert_eq!(err.fault(), Some(Fault::HeaderKeys));
    let extra = npy_v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extrakey': -1, }",
        &[0; 8],
    );
    let err = format_err(&extra);
    assert_eq!(err.kind(), ErrorKind::Header);
    assert_eq!(err.fault(), Some(Fault::HeaderKeys));
}

#[test]
fn invalid_header_values() {
    /// A header error of this fault.
    fn header_err(e: &Error, fault: Fault) -> bool {
        e.kind() == ErrorKind::Header && e.fault() == Some(fault)
    }
    type Check = fn(&Error) -> bool;
    let cases: &[(&str, Check)] = &[
        ("['descr', '<f8']", |e| header_err(e, Fault::HeaderNotDict)),
        ("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", |e| {
            header_err(e, Fault::FortranOrder)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': [3]}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (3)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (True, 3)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (3037000500, 3037000500)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,)}", |e| {
            header_err(e, Fault::Shape)
        }),
        ("{'descr': 'garbage', 'fortran_order': False, 'shape': (1,)}", |e| {
            header_err(e, Fault::Descr)
        }),
        ("{'descr': {'a': 1}, 'fortran_order': False, 'shape': (1,)}", |e| {
            header_err(e, Fault::Descr)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), b'x': 1}", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (int(3),)}", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': false, 'shape': (3,)}", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (1+2,)}", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (3,)", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (03,)}", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}\0", |e| {
            header_err(e, Fault::HeaderSyntax)
        }),
    ];
    for (text, check) in cases {
        let f = npy_v1(text, &[0u8; 64]);
        let e = format_err(&f);
        assert!(check(&e), "{text}: got {e}");
    }
}

#[test]
fn lenient_headers_numpy_accepts_are_read() {
    for text in [
        "{'shape': (3,), 'fortran_order': False, 'descr': '<f8'}",
        "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,)}",
        "{'descr': '<f8',\n 'fortran_order': False,\r\n 'shape': (3,)}",
        "  \t{'descr': '<f8', 'fortran_order': False, 'shape': (0x3,)} # comment",
        "{'descr': '<' 'f8', 'fortran_order': False, 'shape': (+3,)}",
        "{'descr': '\\x3cf8', 'fortran_order': True, 'shape': (3,), 'shape': (3,)}",
        "{'descr': '=f8', 'fortran_order': False, 'shape': (1_0_0,)}",
    ] {
        let n = if text.contains("1_0_0") { 100 } else { 3 };
        let f = npy_v1(text, &vec![0u8; 8 * n]);
        let a = read_f8(&f).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(a.len(), n, "{text}");
    }
    // No padding and no newline: numpy does not check either.
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    let text = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}";
    f.extend_from_slice(&(text.len() as u16).to_le_bytes());
    f.extend_from_slice(text);
    f.extend_from_slice(&1.5f64.to_le_bytes());
    assert_eq!(read_f8(&f).unwrap()[[0]], 1.5);
}

#[test]
fn every_truncation_of_a_valid_file_is_an_error() {
    let bytes = std::fs::read("testdata/f8_le_c_2x3x4.npy").unwrap();
    for cut in 0..bytes.len() {
        let err = read_f8(&bytes[..cut]).unwrap_err();
        assert!(
            err.kind() == ErrorKind::Truncated
                || err.kind() == ErrorKind::Header
                    && matches!(err.fault(), Some(Fault::Magic | Fault::HeaderSyntax)),
            "cut at {cut}: {err:?}"
        );
    }
    assert_eq!(read_f8(&bytes).unwrap().shape(), [2, 3, 4]);
}

#[test]
fn huge_claims_in_tiny_inputs_fail_fast_without_allocating_them() {
    // 10^12 f8 elements claimed, 100 bytes present.
    let f = npy_v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
        &[0u8; 100],
    );
    let err = format_err(&f);
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.byte_counts(), Some((8_000_000_000_000, 100)));
    // The same through a path: the file length is checked before allocating.
    let dir = std::env::temp_dir().join(format!("ndnpy-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.npy");
    std::fs::write(&path, &f).unwrap();
    let err = crate::own::read_path::<_, ArrayD<f64>>(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
    assert_eq!(err.byte_counts().unwrap().1, 100, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();

    // v2 header length 0xFFFFFFFF: refused by the cap before any allocation.
    let f = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f8'";
    let err = read_f8(f).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.fault(), Some(Fault::HeaderLimit));
    let (limit, found) = err.byte_counts().unwrap();
    assert_eq!(found, 0xffff_ffff);
    assert!(limit < found);
    // v1 header length beyond EOF.
    let f = b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f8'";
    let err = format_err(f);
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.byte_counts(), Some((65535, 15)));
}

#[test]
fn deeply_nested_descr_is_a_limit_error() {
    let depth = 100_000;
    let text = format!(
        "{{'descr': {}'<f8'{}, 'fortran_order': False, 'shape': (1,)}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend_from_slice(&(text.len() as u32).to_le_bytes());
    f.extend_from_slice(text.as_bytes());
    let err = read_f8(&f).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.fault(), Some(Fault::DepthLimit));
    let opts = ReadOptions::new().max_depth(4);
    let nested = npy_v1(
        "{'descr': [('a', [('b', [('c', '<f8')])])], 'fortran_order': False, 'shape': (1,)}",
        &[0; 8],
    );
    let err = Header::read(&mut &nested[..], &opts).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.fault(), Some(Fault::DepthLimit));
    let info = Header::read(&mut &nested[..], &ReadOptions::default()).unwrap();
    assert_eq!((info.header.shape.as_slice(), info.data_len), (&[1][..], 8));
}

#[test]
fn garbage_after_a_valid_header_and_bad_bools() {
    let f = npy_v1(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
        &[0, 1, 2, 1],
    );
    let err = crate::own::read::<Array1<bool>>(&f[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData);
    assert_eq!(err.element_index(), Some(2));
    for b in 2..=255u8 {
        let f = npy_v1(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }",
            &[b],
        );
        let err = crate::own::read::<Array1<bool>>(&f[..]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData, "byte {b}");
        assert_eq!(err.element_index(), Some(0), "byte {b}");
    }
    // Garbage where the data should be is just data; garbage after it is left unread.
    let mut f = npy_v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
        &[0xff; 8],
    );
    f.extend_from_slice(b"trailing garbage");
    let mut r = &f[..];
    assert!(crate::own::read::<Array1<f64>>(&mut r).unwrap()[0].is_nan());
    assert_eq!(r, b"trailing garbage");
}

#[test]
fn invalid_utf8_in_a_v3_header() {
    let text = b"{'descr': [('\xff', '|u1')], 'fortran_order': False, 'shape': (1,)}";
    let mut f = b"\x93NUMPY\x03\x00".to_vec();
    f.extend_from_slice(&(text.len() as u32).to_le_bytes());
    f.extend_from_slice(text);
    let err = Header::read(&mut &f[..], &ReadOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header);
    assert_eq!(err.offset(), Some(13));
    assert_eq!(err.fault(), Some(Fault::HeaderEncoding));
}

/// Whether `e` is an error of reading bad input: a format error, a limit the input claims
/// past, or a type it is not; never an I/O error (every input here is in memory) nor a usage
/// error (every call here is valid).
fn is_bad_input_error(e: &Error) -> bool {
    e.kind().is_format() || e.kind() == ErrorKind::Limit || e.kind().is_mismatch()
}

#[test]
fn random_mutations_of_a_valid_file_read_as_their_header_says_or_fail_typed() {
    // A cheap in-suite fuzz: mutate a valid file at random positions, and cut some short.
    let base = std::fs::read("testdata/f8_be_f_3x4.npy").unwrap();
    let mut state = 0x1234_5678_9abc_def0u64;
    let (mut arrays, mut errors) = (0, 0);
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut f = base.clone();
        for k in 0..1 + (state % 4) as usize {
            let pos = ((state >> (8 * k)) as usize) % f.len();
            f[pos] = (state >> 32 >> k) as u8;
        }
        let cut = if state % 5 == 0 {
            (state >> 40) as usize % f.len()
        } else {
            f.len()
        };
        let f = &f[..cut];
        let header = Header::read(&mut &f[..], &ReadOptions::default());
        match (read_f8(f), header) {
            // An array is what its header says: an f8 array of its shape and order.
            (Ok(a), Ok(info)) => {
                assert_eq!(a.shape(), info.header.shape, "{f:?}");
                assert!(
                    matches!(info.header.dtype.descr().as_str(), "'<f8'" | "'>f8'"),
                    "{}",
                    info.header.dtype.descr()
                );
                arrays += 1;
            }
            (Ok(a), Err(e)) => panic!("{f:?}: read {a:?} past a bad header: {e:?}"),
            // A bad header fails the read with the header's error.
            (Err(e), Err(h)) => {
                assert!(is_bad_input_error(&e), "{f:?}: {e:?}");
                let what = |e: &Error| (e.kind(), e.fault(), e.offset(), e.byte_counts());
                assert_eq!(what(&e), what(&h), "{f:?}");
                errors += 1;
            }
            (Err(e), Ok(_)) => {
                assert!(is_bad_input_error(&e), "{f:?}: {e:?}");
                errors += 1;
            }
        }
    }
    // Both outcomes are exercised: mutated data reads, mutated headers fail.
    assert!(
        arrays > 1000 && errors > 1000,
        "{arrays} arrays, {errors} errors"
    );
}

#[test]
fn fuzz_findings_stay_fixed() {
    // Inputs the fuzzers (fuzz/) once crashed or hung on; every reader must now return
    // normally and quickly, with an array or a typed error.
    let mut n = 0;
    for entry in std::fs::read_dir("testdata/fuzz_regressions").unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let typed = |e: Error| assert!(is_bad_input_error(&e), "{path:?}: {e:?}");
        read_f8(&bytes).map(drop).unwrap_or_else(typed);
        ArrayD::<String>::read_npy(&bytes[..])
            .map(drop)
            .map_err(Error::from)
            .unwrap_or_else(typed);
        ArrayD::<Vec<u8>>::read_npy(&bytes[..])
            .map(drop)
            .map_err(Error::from)
            .unwrap_or_else(typed);
        ArrayD::<bool>::read_npy(&bytes[..])
            .map(drop)
            .map_err(Error::from)
            .unwrap_or_else(typed);
        match ndnpy::DynArray::read_npy(&bytes[..]) {
            Ok(a) => {
                // Every field of a record array is taken out (a zero-size field of billions
                // of records once looped over all of them).
                if let Some(r) = a.dtype().as_structured() {
                    for f in r.fields() {
                        a.field(&f.name).map(drop).unwrap_or_else(typed);
                    }
                }
                // What reads must write back (an empty array of a huge string dtype once
                // allocated the dtype's item size to do so).
                let mut out = Vec::new();
                a.write_npy(&mut out).unwrap();
                assert_eq!(
                    ndnpy::DynArray::read_npy(&out[..]).unwrap().shape(),
                    a.shape()
                );
            }
            Err(e) => typed(e),
        }
        Header::read(&mut &bytes[..], &ReadOptions::default())
            .map(drop)
            .unwrap_or_else(typed);
        n += 1;
    }
    assert!(n >= 1);
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let mut m = Vec::new();
    for bad in [
        &b"\x92NUMPY\x01\x00"[..],
        b"\x93MATLB\x01\x00",
        b"",
        b"PK\x03\x04",
    ] {
        m.push(Message::is(
            format!("magic {bad:?}"),
            format_err(bad),
            format!(
                "not an .npy file: expected magic b\"\\x93NUMPY\", found b\"{}\"",
                bad[..bad.len().min(6)].escape_ascii()
            ),
        ));
    }
    m.push(Message::is(
        "short magic",
        format_err(b"\x93NU"),
        "file ends in the magic string: expected 8 bytes, found 3",
    ));
    let mut v = b"\x93NUMPY\x02\x02".to_vec();
    v.extend_from_slice(b"\x10\x00");
    m.push(Message::is(
        "version",
        format_err(&v),
        "unsupported .npy format version 2.2: expected 1.0, 2.0 or 3.0",
    ));
    m.push(Message::is(
        "no header length",
        format_err(b"\x93NUMPY\x02\x00"),
        "file ends in the header length: expected 4 bytes, found 0",
    ));
    m.push(Message::is(
        "short header",
        format_err(b"\x93NUMPY\x01\x00\x01\x00"),
        "file ends in the header: expected 1 bytes, found 0",
    ));
    let missing = npy_v1("{'descr': 'x', 'shape': (1, 2), }", &[]);
    m.push(Message::is(
        "missing key",
        format_err(&missing),
        "header keys must be exactly 'descr', 'fortran_order', 'shape'; \
         found [\"descr\", \"shape\"]",
    ));
    let extra = npy_v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extrakey': -1, }",
        &[0; 8],
    );
    m.push(Message::is(
        "extra key",
        format_err(&extra),
        "header keys must be exactly 'descr', 'fortran_order', 'shape'; \
         found [\"descr\", \"extrakey\", \"fortran_order\", \"shape\"]",
    ));
    let huge = npy_v1(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
        &[0u8; 100],
    );
    m.push(Message::is(
        "huge claim",
        format_err(&huge),
        "file ends in the array data: expected 8000000000000 bytes, found 100",
    ));
    let long = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f8'";
    let limit = ReadOptions::default().max_header_len;
    m.push(Message::is(
        "header limit",
        read_f8(long).unwrap_err(),
        format!(
            "header of 4294967295 bytes exceeds the limit of {limit} bytes \
             (raise it with ReadOptions::max_header_len)"
        ),
    ));
    let nested = npy_v1(
        "{'descr': [('a', [('b', [('c', '<f8')])])], 'fortran_order': False, 'shape': (1,)}",
        &[0; 8],
    );
    let opts = ReadOptions::new().max_depth(4);
    m.push(Message::is(
        "depth limit",
        Header::read(&mut &nested[..], &opts).unwrap_err(),
        "header nests deeper than the limit of 4 levels (raise it with ReadOptions::max_depth)",
    ));
    let bools = npy_v1(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
        &[0, 1, 2, 1],
    );
    m.push(Message::is(
        "bad bool",
        crate::own::read::<Array1<bool>>(&bools[..]).unwrap_err(),
        "error parsing value 0x02 as a bool: element 2; a bool is 0x00 or 0x01",
    ));
    let text = b"{'descr': [('\xff', '|u1')], 'fortran_order': False, 'shape': (1,)}";
    let mut f = b"\x93NUMPY\x03\x00".to_vec();
    f.extend_from_slice(&(text.len() as u32).to_le_bytes());
    f.extend_from_slice(text);
    m.push(Message::is(
        "v3 utf-8",
        Header::read(&mut &f[..], &ReadOptions::default()).unwrap_err(),
        "version 3.0 header is not valid utf-8 (byte 13 of the header)",
    ));
    m
}
