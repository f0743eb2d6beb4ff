//! Object arrays (`|O`, pickled): every fixture of `testdata/object/` compared value by value
//! with what numpy loads from it, the typed conveniences, the globals refused, and hostile
//! pickles (depth, cycles, memo bombs, huge lengths, truncations), each a typed error.

use ndarray::ShapeBuilder;
use ndnpy::dynamic::{PyTime, PyTimeDelta, PyTimeZone};
use ndnpy::{read_npy_dyn, DynArray, DynData, Error, ErrorKind, Fault, PyValue, ReadOptions};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/object")
        .join(name)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The decimal text of a little-endian two's complement integer.
fn decimal(le: &[u8]) -> String {
    let neg = le.last().is_some_and(|&b| b & 0x80 != 0);
    let mut mag: Vec<u8> = le.to_vec();
    if neg {
        let mut carry = 1u16;
        for b in mag.iter_mut() {
            let v = u16::from(!*b) + carry;
            *b = v as u8;
            carry = v >> 8;
        }
    }
    let mut digits = Vec::new();
    while mag.iter().any(|&b| b != 0) {
        let mut rem = 0u32;
        for b in mag.iter_mut().rev() {
            let v = (rem << 8) | u32::from(*b);
            *b = (v / 10) as u8;
            rem = v % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    if neg {
        digits.push(b'-');
    }
    digits.reverse();
    String::from_utf8(digits).unwrap()
}

/// Code points as Python's `surrogatepass` UTF-8.
fn wtf8(points: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &c in points {
        match c {
            0..=0x7f => out.push(c as u8),
            0x80..=0x7ff => out.extend([0xc0 | (c >> 6) as u8, 0x80 | (c & 0x3f) as u8]),
            0x800..=0xffff => out.extend([
                0xe0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
            _ => out.extend([
                0xf0 | (c >> 18) as u8,
                0x80 | ((c >> 12) & 0x3f) as u8,
                0x80 | ((c >> 6) & 0x3f) as u8,
                0x80 | (c & 0x3f) as u8,
            ]),
        }
    }
    out
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(",")
}

/// `canon()` of testdata/object/generate.py, for ndnpy's values.
fn canon(v: &PyValue) -> String {
    match v {
        PyValue::None => "N".into(),
        PyValue::Bool(b) => format!("B{}", u8::from(*b)),
        PyValue::Int(i) => format!("I{i}"),
        PyValue::BigInt(b) => format!("I{}", decimal(b)),
        PyValue::Float(f) => format!("F{}", hex(&f.to_le_bytes())),
        PyValue::Complex(c) => format!("C{}{}", hex(&c.re.to_le_bytes()), hex(&c.im.to_le_bytes())),
        PyValue::Str(s) => format!("S{}", hex(s.as_bytes())),
        PyValue::CodePoints(p) => format!("S{}", hex(&wtf8(p))),
        PyValue::Bytes(b) => format!("Y{}", hex(b)),
        PyValue::ByteArray(b) => format!("R{}", hex(b)),
        PyValue::List(v) => format!("L[{}]", join(v.iter().map(canon))),
        PyValue::Tuple(v) => format!("T[{}]", join(v.iter().map(canon))),
        PyValue::Dict(v) => format!(
            "D[{}]",
            join(v.iter().map(|(k, x)| format!("{}:{}", canon(k), canon(x))))
        ),
        PyValue::Set(v) => format!("E[{}]", sorted(v)),
        PyValue::FrozenSet(v) => format!("G[{}]", sorted(v)),
        PyValue::Array(a) => canon_array(a),
        PyValue::Scalar(a) => {
            let mut out = Vec::new();
            a.write_npy(&mut out).unwrap();
            format!("Z{}", hex(&out))
        }
        PyValue::Record(a) => {
            let mut out = Vec::new();
            a.write_npy(&mut out).unwrap();
            format!("J{}", hex(&out))
        }
        PyValue::RecArray(a) => format!("P{}", canon_array(a)),
        PyValue::Range { start, stop, step } => format!("Q[{start},{stop},{step}]"),
        PyValue::Class(name) => format!("K{name}"),
        PyValue::MaskedArray {
            data,
            mask,
            fill_value,
        } => format!(
            "M[{},{},{}]",
            canon_array(data),
            canon_array(mask),
            fill_value.as_deref().map_or("N".into(), canon_array)
        ),
        PyValue::Date(d) => format!("Xa[{},{},{}]", d.year, d.month, d.day),
        PyValue::Time(t) => format!("Xt[{}]", canon_time(t)),
        PyValue::DateTime(d, t) => {
            format!("Xw[{},{},{},{}]", d.year, d.month, d.day, canon_time(t))
        }
        PyValue::TimeDelta(d) => canon_delta(d),
        PyValue::TimeZone(tz) => canon_zone(tz),
        other => panic!("unexpected value {other:?}"),
    }
}

fn canon_delta(d: &PyTimeDelta) -> String {
    format!("Xd[{},{},{}]", d.days, d.seconds, d.microseconds)
}

fn canon_zone(tz: &PyTimeZone) -> String {
    let name = tz
        .name
        .as_ref()
        .map_or("N".into(), |n| format!("S{}", hex(n.as_bytes())));
    format!("Xz[{},{name}]", canon_delta(&tz.offset))
}

fn canon_time(t: &PyTime) -> String {
    let tz = t.tzinfo.as_deref().map_or("N".into(), canon_zone);
    format!(
        "{},{},{},{},{},{tz}",
        t.hour,
        t.minute,
        t.second,
        t.microsecond,
        u8::from(t.fold)
    )
}

fn sorted(v: &[PyValue]) -> String {
    let mut items: Vec<String> = v.iter().map(canon).collect();
    items.sort();
    items.join(",")
}

fn canon_array(a: &DynArray) -> String {
    match a.data() {
        DynData::Object(o) => format!("O{:?}[{}]", a.shape(), join(o.iter().map(canon))),
        _ => {
            let mut out = Vec::new();
            a.write_npy(&mut out).unwrap();
            format!("A{}", hex(&out))
        }
    }
}

/// The fixtures numpy loads, with canon() of what it loads (one python run for all).
fn numpy_canon(names: &[&str]) -> Vec<String> {
    let out = std::process::Command::new("python3")
        .arg(fixture("generate.py"))
        .args(names.iter().map(|n| fixture(n)))
        .output()
        .expect("python3 with numpy is needed for these tests");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const LOADABLE: [&str; 36] = [
    "meta.npy",
    "labels.npy",
    "ragged_f8.npy",
    "kinds.npy",
    "nested.npy",
    "fortran.npy",
    "stringdtype.npy",
    "stringdtype_na.npy",
    "shared.npy",
    "kinds_p0.npy",
    "kinds_p1.npy",
    "kinds_p2.npy",
    "kinds_p3.npy",
    "kinds_p4.npy",
    "kinds_p5.npy",
    "kinds_np1.npy",
    "py2_latin1.npy",
    "labels.npy",
    "subclasses.npy",
    "subclasses_p0.npy",
    "subclasses_p1.npy",
    "subclasses_p2.npy",
    "subclasses_p3.npy",
    "subclasses_p4.npy",
    "subclasses_p5.npy",
    "subclasses_np1.npy",
    "records.npy",
    "records_np1.npy",
    "datetimes.npy",
    "datetimes_p0.npy",
    "datetimes_p1.npy",
    "datetimes_p2.npy",
    "datetimes_p3.npy",
    "datetimes_p4.npy",
    "datetimes_p5.npy",
    "py2_datetime.npy",
];

#[test]
fn every_fixture_reads_as_numpy_loads_it() {
    let expected = numpy_canon(&LOADABLE);
    assert_eq!(expected.len(), LOADABLE.len());
    for (name, want) in LOADABLE.iter().zip(&expected) {
        let a = read_npy_dyn(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(a.dtype().descr(), "'|O'", "{name}");
        assert_eq!(&canon_array(&a), want, "{name}");
    }
}

#[test]
fn every_protocol_and_module_path_gives_the_same_values() {
    let base = read_npy_dyn(fixture("kinds.npy")).unwrap();
    for name in [
        "kinds_p0.npy",
        "kinds_p1.npy",
        "kinds_p2.npy",
        "kinds_p3.npy",
        "kinds_np1.npy",
    ] {
        assert_eq!(read_npy_dyn(fixture(name)).unwrap(), base, "{name}");
    }
    // Protocols before 4 leave out `fold` (Python's `_getstate`), so only 4 and 5 are the
    // same values; numpy's own loads of 0 to 3 are compared in the test above.
    let base = read_npy_dyn(fixture("datetimes.npy")).unwrap();
    for proto in 4..6 {
        let name = format!("datetimes_p{proto}.npy");
        assert_eq!(read_npy_dyn(fixture(&name)).unwrap(), base, "{name}");
    }
}

#[test]
fn value_kinds_map_to_their_variants() {
    let a = read_npy_dyn(fixture("kinds.npy")).unwrap();
    let v = a.as_array::<PyValue>().unwrap();
    assert_eq!(v[0], PyValue::None);
    assert_eq!(v[1], PyValue::Bool(true));
    assert_eq!(v[9], PyValue::Int(i64::MIN));
    // 2**64 and -2**70 are beyond i64: their two's complement bytes.
    assert_eq!(v[10], PyValue::BigInt(vec![0, 0, 0, 0, 0, 0, 0, 0, 1]));
    assert_eq!(v[10].as_i128(), Some(1 << 64));
    assert_eq!(v[11].as_i128(), Some(-(1 << 70)));
    assert_eq!(v[12].type_name(), "int");
    assert_eq!(v[12].as_i128(), None); // 10**40 is beyond i128
    assert_eq!(
        v[16],
        PyValue::Complex(num_complex::Complex::new(1.0, -2.0))
    );
    assert_eq!(v[19], PyValue::Str("é🦀".into()));
    // A lone surrogate: every code point kept.
    let PyValue::CodePoints(p) = &v[20] else {
        panic!("{:?}", v[20])
    };
    assert_eq!(p[5], 0xd800);
    assert_eq!(v[23], PyValue::ByteArray(b"ba".to_vec()));
    assert_eq!(v[29], PyValue::FrozenSet(vec![PyValue::Int(3)]));
    let PyValue::Scalar(f) = &v[30] else {
        panic!("{:?}", v[30])
    };
    assert_eq!(
        (f.dtype().descr(), f.shape()),
        ("'<f4'".to_string(), &[][..])
    );
    assert_eq!(f.as_array::<f32>().unwrap()[[]], 1.5);
    let PyValue::Array(arr) = &v[39] else {
        panic!("{:?}", v[39])
    };
    assert_eq!(arr.shape(), [2, 3]);
    assert_eq!(arr.as_array::<i64>().unwrap()[[1, 2]], 5);
    let PyValue::Array(fo) = &v[41] else { panic!() };
    assert!(fo.is_fortran_order());
    assert_eq!(fo.as_array::<u16>().unwrap()[[1, 0]], 3);
    let PyValue::Array(rec) = &v[46] else {
        panic!()
    };
    assert_eq!(rec.field("b").unwrap().shape(), [2, 2]);
}

#[test]
fn a_dict_saved_alone_is_the_item_of_a_0d_array() {
    let a = read_npy_dyn(fixture("meta.npy")).unwrap();
    assert_eq!(a.shape(), [] as [usize; 0]);
    let meta = a.into_item().unwrap();
    assert_eq!(meta.get("lr"), Some(&PyValue::Float(0.1)));
    assert_eq!(
        meta.get("classes"),
        Some(&PyValue::List(vec![
            PyValue::Str("cat".into()),
            PyValue::Str("dog".into())
        ]))
    );
    let err = read_npy_dyn(fixture("labels.npy"))
        .unwrap()
        .into_item()
        .unwrap_err();
    assert_eq!(err.fault(), Some(Fault::Ndim), "{err}");
}

#[test]
fn typed_conveniences() {
    let labels = read_npy_dyn(fixture("labels.npy"))
        .unwrap()
        .into_strings()
        .unwrap();
    assert_eq!(labels.as_slice().unwrap(), ["cat", "dog", "émeu", "🦀"]);
    let s = read_npy_dyn(fixture("stringdtype.npy"))
        .unwrap()
        .into_strings()
        .unwrap();
    assert_eq!(s.as_slice().unwrap(), ["a", "bc", "", "é🦀"]);
    let na = read_npy_dyn(fixture("stringdtype_na.npy")).unwrap();
    let err = na.clone().into_strings().unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::ObjectValue), "{err:?}");
    assert_eq!(err.element_index(), Some(1));
    let opt = na.into_optional_strings().unwrap();
    assert_eq!(
        opt.as_slice().unwrap(),
        [Some("a".into()), None, Some("bc".to_string())]
    );
    let ragged = read_npy_dyn(fixture("ragged_f8.npy")).unwrap();
    let parts = ragged.clone().into_arrays::<f64>().unwrap();
    assert_eq!(parts[1].as_slice().unwrap(), [7.0]);
    assert!(parts[2].is_empty());
    let err = ragged.into_arrays::<f32>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert!(err.dtype().is_some(), "{err:?}");
    // A `U` array is strings too.
    let u = read_npy_dyn("testdata/dt_U3_be.npy")
        .unwrap()
        .into_strings()
        .unwrap();
    assert_eq!(u.ndim(), 2);
}

#[test]
fn fortran_object_arrays_keep_their_layout_and_logical_values() {
    let a = read_npy_dyn(fixture("fortran.npy")).unwrap();
    assert!(a.is_fortran_order());
    let v = a.as_array::<PyValue>().unwrap();
    assert_eq!(v[[0, 0]], PyValue::Int(1));
    assert_eq!(v[[0, 1]], PyValue::Str("b".into()));
    assert_eq!(v[[1, 2]], PyValue::Tuple(vec![PyValue::Int(4)]));
}

#[test]
fn shared_values_are_repeated() {
    let a = read_npy_dyn(fixture("shared.npy")).unwrap();
    let v = a.as_array::<PyValue>().unwrap();
    assert_eq!(v[0], v[1]);
    assert_eq!(v[2], v[3]);
    assert_eq!(v[4], PyValue::List(vec![v[2].clone(), v[0].clone()]));
}

#[test]
fn cycles_and_foreign_globals_are_refused_by_name() {
    let err = read_npy_dyn(fixture("cycle.npy")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.fault(), Some(Fault::PickleUnsupported), "{err}");
    assert!(err.offset().is_some(), "{err:?}");
    let err = read_npy_dyn(fixture("fraction.npy")).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::PickleGlobal), "{err}");
}

#[cfg(feature = "npz")]
#[test]
fn npz_members_holding_objects() {
    let mut npz = ndnpy::NpzReader::open(fixture("objects.npz")).unwrap();
    let meta = npz
        .member("meta")
        .unwrap()
        .read_dyn()
        .unwrap()
        .into_item()
        .unwrap();
    assert_eq!(meta.get("lr"), Some(&PyValue::Float(0.1)));
    let labels = npz.by_name_dyn("labels").unwrap().into_strings().unwrap();
    assert_eq!(labels.len(), 4);
}

// ---- hostile pickles ---------------------------------------------------------------------

/// An `.npy` file of an object array of `n` (< 256) elements whose items are the opcodes
/// `items` (run between the list's MARK and APPENDS), protocol 2 apart from the opcodes given.
fn object_npy(n: u8, items: &[u8]) -> Vec<u8> {
    object_npy_shaped(n.into(), &[b'K', n], items)
}

/// [`object_npy`]'s file, the shape's length given in the header as `n` and in the pickle
/// as the opcodes `len` (`K` and a byte, or `J` and four).
fn object_npy_shaped(n: usize, len: &[u8], items: &[u8]) -> Vec<u8> {
    let text = format!("{{'descr': '|O', 'fortran_order': False, 'shape': ({n},), }}");
    let hlen = text.len() + 1;
    let pad = 64 - (10 + hlen) % 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&((hlen + pad) as u16).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out.extend_from_slice(b"\x80\x02cnumpy._core.multiarray\n_reconstruct\ncnumpy\nndarray\n");
    out.extend_from_slice(b"K\x00\x85C\x01b\x87R(K\x01");
    out.extend_from_slice(len);
    out.extend_from_slice(b"\x85cnumpy\ndtype\nX\x02\x00\x00\x00O8\x89\x88\x87R");
    out.extend_from_slice(b"(K\x03X\x01\x00\x00\x00|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb");
    out.extend_from_slice(b"\x89](");
    out.extend_from_slice(items);
    out.extend_from_slice(b"etb.");
    out
}

fn read(bytes: &[u8]) -> Result<DynArray, Error> {
    DynArray::read_npy(bytes)
}

#[test]
fn a_handmade_pickle_reads() {
    let a = read(&object_npy(2, b"K\x05N")).unwrap();
    assert_eq!(
        a.as_array::<PyValue>().unwrap().as_slice().unwrap(),
        [PyValue::Int(5), PyValue::None]
    );
}

#[test]
fn deep_nesting_is_a_limit_not_a_stack_overflow() {
    let depth = 100_000;
    let mut items = vec![b']'; depth];
    items.extend(std::iter::repeat_n(b'a', depth - 1));
    let err = read(&object_npy(1, &items)).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::PickleDepthLimit), "{err}");
    // Within the limit it reads; a lower limit refuses it.
    let mut items = vec![b']'; 100];
    items.extend(std::iter::repeat_n(b'a', 99));
    let bytes = object_npy(1, &items);
    read(&bytes).unwrap();
    let opts = ReadOptions::new().max_pickle_depth(50);
    let err = DynArray::read_npy_with_options(&bytes[..], &opts).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::PickleDepthLimit), "{err}");
}

#[test]
fn a_list_appended_to_itself_is_refused() {
    let err = read(&object_npy(1, b"]\x94h\x00a")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.fault(), Some(Fault::PickleUnsupported), "{err}");
}

#[test]
fn memo_bombs_stop_at_the_expansion_limit() {
    // A 16-byte string, then 60 tuples each holding the previous one twice: 2**60 strings.
    let mut items = b"\x8c\x10abcdefghijklmnop\x940".to_vec();
    for k in 0u8..60 {
        items.extend_from_slice(&[b'h', k, b'h', k, 0x86, 0x94, b'0']);
    }
    items.extend_from_slice(b"h\x3c");
    // 2**60 strings could not be built in any time: the limit stops it early.
    let err = read(&object_npy(1, &items)).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::PickleExpansion), "{err}");
}

#[test]
fn declared_lengths_beyond_the_input_are_truncations() {
    for op in [
        &b"\x8e\xff\xff\xff\xff\xff\xff\xff\x7f"[..], // BINBYTES8
        b"\x8d\x00\x00\x00\x00\x01\x00\x00\x00",      // BINUNICODE8
        b"\x96\x00\x00\x00\x00\x00\x01\x00\x00",      // BYTEARRAY8
        b"B\xff\xff\xff\xff",                         // BINBYTES
        b"\x95\x00\x00\x00\x00\x00\x00\x01\x00",      // FRAME
        b"\x8b\xff\xff\xff\x7f",                      // LONG4
    ] {
        let bytes = object_npy(1, op);
        let err = read(&bytes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
        // The same through a reader of unknown length: grown with the bytes, not allocated.
        let err = DynArray::read_npy(Stream(&bytes[..])).unwrap_err();
        assert!(err.kind() == ErrorKind::Truncated, "{err}");
    }
}

/// A reader of unknown length (read as a stream).
struct Stream<'a>(&'a [u8]);

impl std::io::Read for Stream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

#[test]
fn malformed_opcodes_are_format_errors() {
    for items in [
        &b"h\x07"[..],       // BINGET of a key never set
        b"\xff",             // no such opcode
        b"0",                // POP past the mark
        b"a",                // APPEND to the mark
        b"\x86",             // TUPLE2 of nothing
        b"K\x01K\x02s",      // SETITEM on a list... of the outer stack
        b"P0\n",             // persistent id
        b"\x82\x01",         // extension code
        b"\x97",             // out-of-band buffer
        b"S'unterminated\n", // bad STRING
    ] {
        let err = read(&object_npy(1, items)).unwrap_err();
        assert!(
            err.kind() == ErrorKind::InvalidData && err.offset().is_some(),
            "{items:?}: {err}"
        );
        assert_eq!(err.fault(), Some(Fault::Pickle), "{err}");
    }
}

#[test]
fn code_is_never_run_whatever_the_global() {
    for items in [
        &b"cos\nsystem\n(S'touch /tmp/ndnpy-pwned'\ntR"[..],
        b"\x8c\x08builtins\x8c\x04eval\x93",
        b"c__builtin__\nset\n", // fix_imports only below protocol 3... this is protocol 2: ok
    ] {
        let err = read(&object_npy(1, items)).unwrap_err();
        let fault = err.fault();
        assert!(
            matches!(fault, Some(Fault::PickleGlobal | Fault::PickleUnsupported)),
            "{fault:?}: {err}"
        );
    }
    assert!(!Path::new("/tmp/ndnpy-pwned").exists());
}

#[test]
fn every_prefix_of_a_pickle_is_an_error_and_the_stream_position_is_exact() {
    let bytes = std::fs::read(fixture("kinds_p2.npy")).unwrap();
    for cut in 0..bytes.len() {
        assert!(read(&bytes[..cut]).is_err(), "prefix {cut}");
    }
    let subclasses = std::fs::read(fixture("subclasses_p2.npy")).unwrap();
    for cut in 0..subclasses.len() {
        assert!(read(&subclasses[..cut]).is_err(), "subclasses prefix {cut}");
    }
    // Two arrays in one stream: the pickle is read to its STOP and no further.
    let mut stream = bytes.clone();
    stream.extend_from_slice(&std::fs::read("testdata/example.npy").unwrap());
    for framed in [&bytes, &std::fs::read(fixture("kinds_p4.npy")).unwrap()] {
        let mut stream = framed.to_vec();
        stream.extend_from_slice(&std::fs::read("testdata/example.npy").unwrap());
        let mut r = &stream[..];
        DynArray::read_npy(&mut r).unwrap();
        let next = DynArray::read_npy(&mut r).unwrap();
        assert_eq!(next.shape(), [2, 3]);
        assert!(r.is_empty());
        let mut s = Stream(&stream[..]);
        DynArray::read_npy(&mut s).unwrap();
        assert_eq!(DynArray::read_npy(&mut s).unwrap().shape(), [2, 3]);
    }
}

#[test]
fn flipped_bytes_never_panic() {
    for name in ["kinds_p4.npy", "subclasses_p2.npy"] {
        flip_bytes(&std::fs::read(fixture(name)).unwrap());
    }
}

fn flip_bytes(bytes: &[u8]) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        let mut b = bytes.to_vec();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let i = 128 + (state as usize) % (b.len() - 128);
            b[i] = (state >> 32) as u8;
        }
        let _ = read(&b);
    }
}

// ---- writing -------------------------------------------------------------------------------

/// Fixtures whose contents (str, int, float, None, list, dict, tuples, nested float arrays,
/// datetime values) ndnpy writes byte for byte as np.save did. (Not records.npy: its two rows
/// of one recarray share one dtype object in Python, which ndnpy, holding values and not
/// identities, writes twice; not subclasses.npy: its big-endian masked array is written in
/// the native order numpy loads it in.)
const BYTE_EXACT: [&str; 6] = [
    "datetimes.npy",
    "meta.npy",
    "labels.npy",
    "ragged_f8.npy",
    "fortran.npy",
    "nested.npy",
];

#[test]
fn writes_np_save_bytes_for_plain_python_data() {
    for name in BYTE_EXACT {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let a = DynArray::read_npy(&bytes[..]).unwrap();
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert!(out == bytes, "{name}: written bytes differ from np.save's");
    }
    let bytes = std::fs::read("testdata/dt_object.npy").unwrap();
    let mut out = Vec::new();
    DynArray::read_npy(&bytes[..])
        .unwrap()
        .write_npy(&mut out)
        .unwrap();
    assert_eq!(out, bytes);
}

#[test]
fn what_is_written_loads_in_numpy_as_equal_objects() {
    let dir = crate::common::scratch_dir("object-write");
    let mut names = Vec::new();
    for name in LOADABLE {
        let a = read_npy_dyn(fixture(name)).unwrap();
        let out = dir.join(name);
        let mut bytes = Vec::new();
        a.write_npy(&mut bytes).unwrap();
        std::fs::write(&out, &bytes).unwrap();
        names.push((name, out, canon_array(&a)));
    }
    let lines = canon_by_numpy(names.iter().map(|n| n.1.as_path()));
    let originals = numpy_canon(&LOADABLE);
    for (((name, _, ours), theirs), original) in names.iter().zip(lines.lines()).zip(&originals) {
        // What numpy loads from ndnpy's file is what it loads from the original...
        if *name != "kinds_p5.npy" {
            assert_eq!(
                theirs, original,
                "{name}: numpy loads other values from ndnpy's file"
            );
        }
        // ...and what ndnpy read (protocol 5's in-band arrays keep a big-endian dtype, which
        // numpy's _reconstruct, the way ndnpy writes them, loads in native order).
        let back = canon_array(&read_npy_dyn(dir.join(name)).unwrap());
        assert_eq!(
            &back, theirs,
            "{name}: numpy loads other values than ndnpy reads back"
        );
        if *name != "kinds_p5.npy" {
            assert_eq!(ours, theirs, "{name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn large_pickles_are_framed_as_python_frames_them() {
    let dir = crate::common::scratch_dir("object-frames");
    crate::common::numpy(
        &dir,
        r#"
import os
def obj(items):
    a = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        a[i] = x
    return a
# Many small values: frames close at value boundaries past 64 KiB; batches of 1000.
np.save(os.path.join(d, "many.npy"), obj(["s%d" % i for i in range(30000)] + list(range(2500))))
# Payloads of 64 KiB and more go outside frames.
np.save(os.path.join(d, "big.npy"), obj(["x" * 70000, b"y" * 65536, "z", np.arange(9000.0), [1.5] * 3000]))
np.save(os.path.join(d, "dicts.npy"), obj([{("k%d" % i): i for i in range(2500)}, {}, {"one": None}]))
"#,
    );
    for name in ["many.npy", "big.npy", "dicts.npy"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let a = DynArray::read_npy(&bytes[..]).unwrap();
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert!(out == bytes, "{name}: written bytes differ from np.save's");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- property tests ------------------------------------------------------------------------

use proptest::prelude::*;

/// Python values nested up to 4 levels: the kinds ndnpy writes.
fn values() -> impl Strategy<Value = PyValue> {
    let leaf = prop_oneof![
        Just(PyValue::None),
        any::<bool>().prop_map(PyValue::Bool),
        any::<i64>().prop_map(PyValue::Int),
        (-300i64..300).prop_map(PyValue::Int),
        prop::num::f64::ANY.prop_map(PyValue::Float),
        prop::string::string_regex("\\PC{0,5}")
            .unwrap()
            .prop_map(PyValue::Str),
        prop::collection::vec(any::<u8>(), 0..4).prop_map(PyValue::Bytes),
        prop::collection::vec(any::<u8>(), 0..4).prop_map(PyValue::ByteArray),
        (any::<f64>(), any::<f64>())
            .prop_map(|(re, im)| PyValue::Complex(num_complex::Complex::new(re, im))),
        // ints beyond i64 (minimal two's complement)
        (any::<u64>(), 1u8..3).prop_map(|(v, hi)| PyValue::BigInt(vec![
            v as u8,
            (v >> 8) as u8,
            (v >> 16) as u8,
            (v >> 24) as u8,
            (v >> 32) as u8,
            (v >> 40) as u8,
            (v >> 48) as u8,
            (v >> 56) as u8,
            hi,
        ])),
        prop::collection::vec(any::<f64>(), 0..5).prop_map(|v| {
            let a = ndarray::Array1::from(v).into_dyn();
            let mut bytes = Vec::new();
            ndnpy::WriteNpyExt::write_npy(&a, &mut bytes).unwrap();
            PyValue::Array(Box::new(DynArray::read_npy(&bytes[..]).unwrap()))
        }),
        (
            any::<i64>(),
            any::<i64>(),
            any::<i64>().prop_filter("step 0", |&s| s != 0)
        )
            .prop_map(|(start, stop, step)| PyValue::Range { start, stop, step }),
        Just(PyValue::Class("builtins.range".into())),
        datetimes(),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(PyValue::List),
            prop::collection::vec(inner.clone(), 0..6).prop_map(PyValue::Tuple),
            // Set items and dict keys are hashable and distinct, as in Python.
            prop::collection::btree_set("[a-z]{0,3}", 0..4)
                .prop_map(|s| PyValue::Set(s.into_iter().map(PyValue::Str).collect())),
            prop::collection::btree_set(any::<i16>(), 0..4).prop_map(|s| PyValue::FrozenSet(
                s.into_iter().map(|i| PyValue::Int(i.into())).collect()
            )),
            prop::collection::btree_map("[a-z]{0,3}", inner, 0..5).prop_map(|m| {
                PyValue::Dict(m.into_iter().map(|(k, v)| (PyValue::Str(k), v)).collect())
            }),
        ]
    })
}

/// The datetime module's values, in Python's ranges (every day of every month, both folds,
/// naive and with timezones east and west).
fn datetimes() -> impl Strategy<Value = PyValue> {
    use ndnpy::dynamic::PyDate;
    let delta = (-999_999_999i32..=999_999_999, 0i32..86_400, 0i32..1_000_000).prop_map(
        |(days, seconds, microseconds)| PyTimeDelta {
            days,
            seconds,
            microseconds,
        },
    );
    let zone = (
        any::<bool>(),
        0i32..86_400,
        0i32..1_000_000,
        prop::option::of("[A-Z]{1,4}"),
    )
        .prop_filter_map("zero west offset", |(west, s, us, name)| {
            let offset = if west {
                (s > 0 || us > 0).then_some(PyTimeDelta {
                    days: -1,
                    seconds: s,
                    microseconds: us,
                })?
            } else {
                PyTimeDelta {
                    days: 0,
                    seconds: s,
                    microseconds: us,
                }
            };
            Some(PyTimeZone { offset, name })
        });
    let date = (1u16..=9999, 1u8..=12, 1u8..=31).prop_filter_map("no such day", |(y, m, d)| {
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let days = match m {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        (d <= days).then_some(PyDate {
            year: y,
            month: m,
            day: d,
        })
    });
    let time = (
        0u8..24,
        0u8..60,
        0u8..60,
        0u32..1_000_000,
        any::<bool>(),
        prop::option::of(zone.clone()),
    )
        .prop_map(|(hour, minute, second, microsecond, fold, tz)| PyTime {
            hour,
            minute,
            second,
            microsecond,
            fold,
            tzinfo: tz.map(Box::new),
        });
    prop_oneof![
        date.clone().prop_map(PyValue::Date),
        time.clone().prop_map(PyValue::Time),
        (date, time).prop_map(|(d, t)| PyValue::DateTime(d, t)),
        delta.prop_map(PyValue::TimeDelta),
        zone.prop_map(|z| PyValue::TimeZone(Box::new(z))),
    ]
}

/// Equality with NaN equal to itself (by bits), for floats anywhere in the tree.
fn same(a: &PyValue, b: &PyValue) -> bool {
    canon(a) == canon(b)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn object_arrays_round_trip(values in prop::collection::vec(values(), 0..6), fortran in any::<bool>()) {
        let n = values.len();
        let a = if fortran && n % 2 == 0 && n > 0 {
            ndarray::Array::from_shape_vec(ndarray::IxDyn(&[2, n / 2]).f(), values).unwrap()
        } else {
            ndarray::Array::from_shape_vec(ndarray::IxDyn(&[n]), values).unwrap()
        };
        let array = DynArray::from_objects(a.clone());
        let mut bytes = Vec::new();
        array.write_npy(&mut bytes).unwrap();
        let back = DynArray::read_npy(&bytes[..]).unwrap();
        prop_assert_eq!(back.is_fortran_order(), array.is_fortran_order());
        let got = back.as_array::<PyValue>().unwrap();
        prop_assert_eq!(got.shape(), a.shape());
        for (x, y) in got.iter().zip(a.iter()) {
            prop_assert!(same(x, y), "{:?} != {:?}", x, y);
        }
    }
}

#[test]
fn generated_values_load_in_numpy_as_ndnpy_reads_them() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let dir = crate::common::scratch_dir("object-prop");
    let mut files = Vec::new();
    for i in 0..24 {
        let v = prop::collection::vec(values(), 1..5)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let n = v.len();
        let a = DynArray::from_objects(
            ndarray::Array::from_shape_vec(ndarray::IxDyn(&[n]), v).unwrap(),
        );
        let path = dir.join(format!("g{i}.npy"));
        let mut bytes = Vec::new();
        a.write_npy(&mut bytes).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        files.push((path, canon_array(&a)));
    }
    let lines = canon_by_numpy(files.iter().map(|f| f.0.as_path()));
    for ((path, ours), theirs) in files.iter().zip(lines.lines()) {
        assert_eq!(ours, theirs, "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn messages_quote_at_most_200_characters_of_a_hostile_name() {
    let module = "m".repeat(10_000);
    let mut items = vec![b'c'];
    items.extend_from_slice(module.as_bytes());
    items.extend_from_slice(b"\nname\n");
    let err = read(&object_npy(1, &items)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    // The module is quoted cut to 200 characters, then `…` and its length.
    assert!(err.to_string().len() < 600, "{}", err.to_string().len());
}

#[test]
fn values_that_cannot_be_pickled_are_usage_errors() {
    let bad = [
        PyValue::CodePoints(vec![0x11_0000]),
        PyValue::Scalar(Box::new(read_npy_dyn("testdata/example.npy").unwrap())),
    ];
    for v in bad {
        let a = DynArray::from_objects(ndarray::arr0(v).into_dyn());
        let err = a.write_npy(Vec::new()).unwrap_err();
        assert_eq!(err.fault(), Some(Fault::ValueDoesNotFit), "{err}");
    }
    // Nesting: the array and 999 levels of lists (1000 levels) are written, and read back
    // with the limit raised; one more level is refused.
    let mut v = PyValue::None;
    for _ in 0..999 {
        v = PyValue::List(vec![v]);
    }
    let a = DynArray::from_objects(ndarray::arr1(&[v.clone()]).into_dyn());
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let opts = ReadOptions::new().max_pickle_depth(1000);
    let back = DynArray::read_npy_with_options(&bytes[..], &opts).unwrap();
    assert_eq!(back, a);
    let deeper = DynArray::from_objects(ndarray::arr1(&[PyValue::List(vec![v])]).into_dyn());
    let err = deeper.write_npy(Vec::new()).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::ValueDoesNotFit), "{err}");
}

/// The fuzz target's check on every fixture: what ndnpy writes reads back into the same
/// bytes (found by fuzzing on protocol 5's big-endian in-band array, which was written in its
/// order and read back in native order).
#[test]
fn writing_what_was_read_is_idempotent() {
    for name in LOADABLE {
        let a = read_npy_dyn(fixture(name)).unwrap();
        let mut once = Vec::new();
        a.write_npy(&mut once).unwrap();
        let mut twice = Vec::new();
        DynArray::read_npy(&once[..])
            .unwrap()
            .write_npy(&mut twice)
            .unwrap();
        assert!(once == twice, "{name}");
    }
}

/// The canonical form numpy gives each of `paths` (one line each), from the fixtures'
/// generating script, which prints it for the files it is given.
fn canon_by_numpy<'a>(paths: impl Iterator<Item = &'a Path>) -> String {
    let out = std::process::Command::new("python3")
        .arg(fixture("generate.py"))
        .args(paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

// ---- datetime values and Python 2 str encodings --------------------------------------------

#[test]
fn datetime_values_map_to_their_variants() {
    use ndnpy::dynamic::PyDate;
    let v = read_npy_dyn(fixture("datetimes.npy"))
        .unwrap()
        .into_array::<PyValue>()
        .unwrap();
    let date = |year, month, day| PyDate { year, month, day };
    let utc = PyTimeZone {
        offset: PyTimeDelta {
            days: 0,
            seconds: 0,
            microseconds: 0,
        },
        name: None,
    };
    assert_eq!(v[0], PyValue::Date(date(2024, 2, 29)));
    assert_eq!(v[0].type_name(), "datetime.date");
    let PyValue::Time(t) = &v[4] else {
        panic!("{:?}", v[4])
    };
    assert_eq!((t.hour, t.minute, t.second, t.fold), (1, 2, 3, true));
    let PyValue::DateTime(d, t) = &v[6] else {
        panic!("{:?}", v[6])
    };
    assert_eq!(
        (*d, t.microsecond, t.fold, &t.tzinfo),
        (date(2024, 5, 6), 123_456, false, &None)
    );
    let PyValue::DateTime(_, t) = &v[8] else {
        panic!("{:?}", v[8])
    };
    assert_eq!(t.tzinfo.as_deref(), Some(&utc));
    // -timedelta(hours=3, minutes=30): normalized as Python holds it.
    let west = PyTimeDelta {
        days: -1,
        seconds: 86_400 - 12_600,
        microseconds: 0,
    };
    assert_eq!(
        v[20],
        PyValue::TimeZone(Box::new(PyTimeZone {
            offset: west,
            name: None
        }))
    );
    assert_eq!(
        v[17],
        PyValue::TimeDelta(PyTimeDelta {
            days: -999_999_999,
            seconds: 0,
            microseconds: 0
        })
    );
    assert_eq!(v[18], PyValue::TimeZone(Box::new(utc)));
    let PyValue::DateTime(d, t) = &v[12] else {
        panic!("{:?}", v[12])
    };
    assert_eq!(
        (*d, t.hour, t.microsecond),
        (date(9999, 12, 31), 23, 999_999)
    );
}

/// An object array of one value whose pickle is `value` (opcodes ending with the value on the
/// stack).
fn one_value(value: &[u8]) -> Vec<u8> {
    object_npy(1, value)
}

#[test]
fn datetime_states_python_would_not_build_are_refused() {
    let packed = |class: &str, state: &[u8], rest: &[u8]| {
        let mut p = format!("cdatetime\n{class}\n").into_bytes();
        p.push(b'C');
        p.push(state.len() as u8);
        p.extend_from_slice(state);
        p.extend_from_slice(rest);
        p
    };
    let good = packed("date", b"\x07\xe8\x02\x1d", b"\x85R");
    assert_eq!(
        read(&one_value(&good))
            .unwrap()
            .into_array::<PyValue>()
            .unwrap()[0],
        PyValue::Date(ndnpy::dynamic::PyDate {
            year: 2024,
            month: 2,
            day: 29
        })
    );
    let cases: Vec<Vec<u8>> = vec![
        packed("date", b"\x07\xe7\x02\x1d", b"\x85R"), // 2023-02-29
        packed("date", b"\x00\x00\x01\x01", b"\x85R"), // year 0
        packed("date", b"\x07\xe8\x0d\x01", b"\x85R"), // month 13
        packed("date", b"\x07\xe8\x02", b"\x85R"),     // 3 bytes
        packed("time", b"\x18\x00\x00\x00\x00\x00", b"\x85R"), // hour 24
        packed("time", b"\x01\x02\x03\x0f\x42\x40", b"\x85R"), // 1,000,000 us
        packed(
            "datetime",
            b"\x07\xe8\x01\x01\x00\x3c\x00\x00\x00\x00",
            b"\x85R",
        ), // minute 60
        // A tzinfo that is not a timezone.
        packed("time", b"\x01\x02\x03\x00\x00\x00", b"K\x01\x86R"),
        // timedelta beyond 999,999,999 days, and a timezone of a whole day.
        b"cdatetime\ntimedelta\nJ\x00\xca\x9a\x3bK\x00K\x00\x87R".to_vec(),
        b"cdatetime\ntimezone\ncdatetime\ntimedelta\nK\x01K\x00K\x00\x87R\x85R".to_vec(),
        b"cdatetime\ntimezone\nK\x00\x85R".to_vec(),
    ];
    for (i, case) in cases.iter().enumerate() {
        let e = read(&one_value(case)).unwrap_err();
        assert_eq!(e.fault(), Some(Fault::Pickle), "case {i}: {e}");
    }
    // Every other datetime global is refused by name, as any global outside the table.
    let e = read(&one_value(b"cdatetime\ntzinfo\n)R")).unwrap_err();
    assert_eq!(e.fault(), Some(Fault::PickleGlobal), "{e}");
}

#[test]
fn datetime_values_outside_pythons_ranges_are_not_written() {
    use ndnpy::dynamic::PyDate;
    for bad in [
        PyValue::Date(PyDate {
            year: 2023,
            month: 2,
            day: 29,
        }),
        PyValue::TimeDelta(PyTimeDelta {
            days: 0,
            seconds: 86_400,
            microseconds: 0,
        }),
        PyValue::TimeZone(Box::new(PyTimeZone {
            offset: PyTimeDelta {
                days: 1,
                seconds: 0,
                microseconds: 0,
            },
            name: None,
        })),
    ] {
        let a = DynArray::from_objects(ndarray::ArrayD::from_elem(ndarray::IxDyn(&[1]), bad));
        let e = a.write_npy(&mut Vec::new()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
    }
}

#[test]
fn python2_strs_read_as_each_encoding_numpy_offers() {
    use ndnpy::header::PickleEncoding;
    let dir = numpy_test_data();
    let mut paths: Vec<PathBuf> = NUMPY_OBJARR.iter().map(|n| dir.join(n)).collect();
    paths.push(fixture("py2_latin1.npy"));
    paths.push(fixture("py2_datetime.npy"));
    let out = std::process::Command::new("python3")
        .arg(fixture("generate.py"))
        .arg("--encoding=bytes")
        .args(&paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = String::from_utf8(out.stdout).unwrap();
    let opts = |e| ReadOptions::new().pickle_encoding(e);
    for (path, want) in paths.iter().zip(expected.lines()) {
        let bytes = std::fs::read(path).unwrap();
        let a = DynArray::read_npy_with_options(&bytes[..], &opts(PickleEncoding::Bytes)).unwrap();
        assert_eq!(canon_array(&a), want, "{}", path.display());
        // numpy's default, ASCII, raises (UnicodeError) for a file holding a Python 2 str
        // beyond ASCII anywhere (a value, array data, a datetime's state): every Python 2 file
        // here (the Python suite checks numpy raises for the same files).
        let ascii = DynArray::read_npy_with_options(&bytes[..], &opts(PickleEncoding::Ascii));
        let latin1 = DynArray::read_npy_with_options(&bytes[..], &opts(PickleEncoding::Latin1));
        let py2 = !path.ends_with("py3-objarr.npy");
        match ascii {
            Ok(a) => {
                assert!(!py2, "{}", path.display());
                assert_eq!(a, latin1.unwrap(), "{}", path.display());
            }
            Err(e) => {
                assert!(py2, "{}: {e}", path.display());
                assert_eq!(e.fault(), Some(Fault::PickleEncoding), "{e}");
                assert!(e.to_string().contains("not ASCII"), "{e}");
            }
        }
    }
}

// ---- numpy's own object arrays, ndarray subclasses and ranges -----------------------------

/// numpy's test data folder in the installed numpy wheel (`numpy/lib/tests/data`), which
/// holds the object arrays numpy's own tests load.
fn numpy_test_data() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import numpy, os; print(os.path.join(os.path.dirname(numpy.__file__), 'lib', \
             'tests', 'data'))",
        ])
        .output()
        .expect("python3 with numpy is needed for these tests (python3 -m pip install numpy)");
    assert!(
        out.status.success(),
        "python3 with numpy is needed for these tests: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        dir.join("py3-objarr.npy").is_file(),
        "numpy's test data is not in {} (a numpy wheel ships it)",
        dir.display()
    );
    dir
}

/// The object arrays of numpy's test data: Python 2 (`__builtin__.xrange`, Python 2 `str`,
/// numpy 1 paths), Python 3, and very old numpy's `numpy.core._internal._reconstruct`.
const NUMPY_OBJARR: [&str; 3] = ["py2-objarr.npy", "py3-objarr.npy", "py2-np0-objarr.npy"];

#[test]
fn numpys_own_object_arrays_read_as_numpy_loads_them() {
    let dir = numpy_test_data();
    let paths: Vec<PathBuf> = NUMPY_OBJARR.iter().map(|n| dir.join(n)).collect();
    let expected = canon_by_numpy(paths.iter().map(PathBuf::as_path));
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(expected.len(), NUMPY_OBJARR.len());
    for ((name, path), want) in NUMPY_OBJARR.iter().zip(&paths).zip(expected) {
        let a = read_npy_dyn(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(canon_array(&a), want, "{name}");
        let v = a.as_array::<PyValue>().unwrap();
        // [None, the class range, '優良', then a Python 2 str as Latin-1, or bytes]
        assert_eq!(v[0], PyValue::None, "{name}");
        assert_eq!(v[1], PyValue::Class("builtins.range".into()), "{name}");
        assert_eq!(v[1].type_name(), "type");
        assert_eq!(v[2], PyValue::Str("優良".into()), "{name}");
        let third = "不良".as_bytes().to_vec();
        let want = if name.starts_with("py3") {
            PyValue::Bytes(third)
        } else {
            PyValue::Str(third.iter().map(|&b| char::from(b)).collect())
        };
        assert_eq!(v[3], want, "{name}");
    }
    // The plain arrays beside them: Python 3's, and Python 2's with a `2L` in its shape.
    let plain = ["python3.npy", "win64python2.npy"].map(|n| dir.join(n));
    let expected = canon_by_numpy(plain.iter().map(PathBuf::as_path));
    for (path, want) in plain.iter().zip(expected.lines()) {
        let a = read_npy_dyn(path).unwrap();
        assert_eq!(canon_array(&a), want, "{}", path.display());
    }
}

#[cfg(feature = "npz")]
#[test]
fn numpys_own_object_npz_members_read_as_numpy_loads_them() {
    let dir = numpy_test_data();
    for name in ["py2-objarr.npz", "py3-objarr.npz"] {
        let path = dir.join(name);
        let want = canon_by_numpy(std::iter::once(path.as_path()));
        let mut npz = ndnpy::NpzReader::open(&path).unwrap();
        assert_eq!(npz.names().unwrap(), ["x"], "{name}");
        let a = npz
            .by_name_dyn("x")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(canon_array(&a), want.trim_end(), "{name}");
        assert_eq!(
            a.as_array::<PyValue>().unwrap()[1],
            PyValue::Class("builtins.range".into())
        );
    }
}

#[test]
fn record_scalars_are_records_and_void_scalars_scalars() {
    // RECORDS: two rows of a recarray (numpy.record), one of a structured array (numpy.void).
    let v = read_npy_dyn(fixture("records.npy"))
        .unwrap()
        .into_array::<PyValue>()
        .unwrap();
    let kinds: Vec<&str> = v.iter().map(PyValue::type_name).collect();
    assert_eq!(kinds, ["numpy.record", "numpy.record", "numpy scalar"]);
    let PyValue::Record(row) = &v[1] else {
        panic!("{:?}", v[1])
    };
    assert!(row.shape().is_empty());
    assert_eq!(
        row.dtype().descr(),
        "[('a', '<i4'), ('b', '<f8'), ('c', '|S2')]"
    );
}

#[test]
fn subclasses_and_ranges_map_to_their_variants() {
    let a = read_npy_dyn(fixture("subclasses.npy")).unwrap();
    let v = a.as_array::<PyValue>().unwrap();
    // A recarray is the record array it holds.
    assert_eq!(v[0].type_name(), "numpy.recarray");
    let PyValue::RecArray(rec) = &v[0] else {
        panic!("{:?}", v[0])
    };
    assert_eq!(
        rec.dtype().descr(),
        "[('a', '<i4'), ('b', '<f8'), ('c', '|S2')]"
    );
    assert_eq!(
        rec.field("b")
            .unwrap()
            .as_array::<f64>()
            .unwrap()
            .as_slice(),
        Some(&[2.5, 4.5][..])
    );
    // A MaskedArray: its data, its mask and its fill value.
    let PyValue::MaskedArray {
        data,
        mask,
        fill_value,
    } = &v[2]
    else {
        panic!("{:?}", v[2])
    };
    assert_eq!(v[2].type_name(), "numpy.ma.MaskedArray");
    assert_eq!(
        data.as_array::<i16>().unwrap().as_slice(),
        Some(&[0, 1, 2, 3][..])
    );
    assert_eq!(
        mask.as_array::<bool>().unwrap().as_slice(),
        Some(&[true, false, false, true][..])
    );
    let fill = fill_value.as_ref().expect("fill_value=7 was set");
    assert_eq!(fill.shape(), [] as [usize; 0]);
    assert_eq!(fill.as_array::<i16>().unwrap().first(), Some(&7));
    // The Fortran-ordered one keeps its order, its mask too.
    let PyValue::MaskedArray { data, mask, .. } = &v[3] else {
        panic!("{:?}", v[3])
    };
    assert!(data.is_fortran_order() && mask.is_fortran_order());
    assert!(mask.as_array::<bool>().unwrap()[[0, 1]]);
    // Nothing masked: a mask of false, no fill value (numpy pickles None until one is asked
    // for), and the big-endian data in native order as numpy loads it.
    let PyValue::MaskedArray {
        data,
        mask,
        fill_value,
    } = &v[4]
    else {
        panic!("{:?}", v[4])
    };
    assert!(mask.as_array::<bool>().unwrap().iter().all(|&m| !m));
    assert!(fill_value.is_none());
    assert_eq!(
        data.as_array::<u32>().unwrap().as_slice(),
        Some(&[1, 2][..])
    );
    // Ranges are values.
    assert_eq!(
        v[6],
        PyValue::Range {
            start: 1,
            stop: 10,
            step: 2
        }
    );
    assert_eq!(
        v[7],
        PyValue::Range {
            start: 0,
            stop: -5,
            step: 1
        }
    );
    assert_eq!(
        v[8],
        PyValue::Range {
            start: 0,
            stop: 1 << 62,
            step: 3
        }
    );
    assert_eq!(v[8].type_name(), "range");
    assert_eq!(v[10], PyValue::Class("builtins.range".into()));
    // Every protocol, and numpy 1's module paths, give the same values.
    for name in [
        "subclasses_p0.npy",
        "subclasses_p1.npy",
        "subclasses_p2.npy",
        "subclasses_p3.npy",
        "subclasses_p4.npy",
        "subclasses_p5.npy",
        "subclasses_np1.npy",
    ] {
        assert_eq!(read_npy_dyn(fixture(name)).unwrap(), a, "{name}");
    }
}

#[test]
fn ranges_masked_arrays_and_the_range_class_are_written_as_np_save_writes_them() {
    let dir = crate::common::scratch_dir("object-subclasses");
    crate::common::numpy(
        &dir,
        r#"
import os
a = np.empty(6, dtype=object)
a[:] = [range(1, 10, 2), range, range(-3, 2**62), np.ma.masked_array([1.5, 2.5], mask=[0, 1]),
        np.ma.masked_array(np.arange(3, dtype='<i2'), mask=[1, 0, 0], fill_value=9), range]
np.save(os.path.join(d, "a.npy"), a)
"#,
    );
    let bytes = std::fs::read(dir.join("a.npy")).unwrap();
    let a = DynArray::read_npy(&bytes[..]).unwrap();
    let mut out = Vec::new();
    a.write_npy(&mut out).unwrap();
    std::fs::write(dir.join("ndnpy.npy"), &out).unwrap();
    assert!(
        out == bytes,
        "written bytes differ from np.save's: compare {} with a.npy there",
        dir.join("ndnpy.npy").display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An object array of one range whose arguments are the opcodes `args` (a tuple's items).
fn range_npy(args: &[u8]) -> Vec<u8> {
    let mut items = b"c__builtin__\nxrange\n(".to_vec();
    items.extend_from_slice(args);
    items.extend_from_slice(b"tR");
    object_npy(1, &items)
}

#[test]
fn a_range_is_a_value_whatever_its_bounds() {
    // range(-2**63, 2**63 - 1): 2**64 - 1 items, read as three ints.
    let min = b"\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80";
    let max = b"\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f";
    let a = read(&range_npy(&[&min[..], max].concat())).unwrap();
    assert_eq!(
        a.as_array::<PyValue>().unwrap()[0],
        PyValue::Range {
            start: i64::MIN,
            stop: i64::MAX,
            step: 1
        }
    );
    // 10,000 of them: a value each, so the array is 10,000 values however many items the
    // ranges hold (expanding them would not end).
    let mut items = Vec::new();
    for _ in 0..10_000 {
        items.extend_from_slice(b"c__builtin__\nxrange\n(K\x00");
        items.extend_from_slice(max);
        items.extend_from_slice(b"tR");
    }
    let a = read(&object_npy_n(10_000, &items)).unwrap();
    let v = a.as_array::<PyValue>().unwrap();
    assert_eq!(v.len(), 10_000);
    assert!(v
        .iter()
        .all(|r| matches!(r, PyValue::Range { stop: i64::MAX, .. })));
    assert!(std::mem::size_of::<PyValue>() <= 32);
    // Bounds beyond i64 are refused by name, not rounded; a step of 0 is malformed (Python
    // raises ValueError); so is a range of floats.
    let big = b"K\x00\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01K\x01";
    let err = read(&range_npy(big)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.fault(), Some(Fault::PickleUnsupported), "{err}");
    let err = read(&range_npy(b"K\x00K\x05K\x00")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert_eq!(err.fault(), Some(Fault::Pickle), "{err}");
    let err = read(&range_npy(b"G?\xf8\x00\x00\x00\x00\x00\x00")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    // Writing a step of 0 is refused too.
    let bad = DynArray::from_objects(
        ndarray::arr1(&[PyValue::Range {
            start: 0,
            stop: 1,
            step: 0,
        }])
        .into_dyn(),
    );
    let err = bad.write_npy(Vec::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
}

/// `object_npy` with a shape of `n` elements (any `n`).
fn object_npy_n(n: usize, items: &[u8]) -> Vec<u8> {
    let mut len = vec![b'J'];
    len.extend_from_slice(&i32::try_from(n).unwrap().to_le_bytes());
    object_npy_shaped(n, &len, items)
}

/// Pickles of one object array's items that call a global ndnpy does not rebuild, and the
/// global's name.
fn refused_globals() -> [(&'static [u8], &'static str); 5] {
    [
        // Another ndarray subclass.
        (
            &b"cnumpy._core.multiarray\n_reconstruct\ncnumpy\nmatrix\nK\x00\x85C\x01b\x87R"[..],
            "numpy.matrix",
        ),
        // A function of numpy.rec, beside the class ndnpy rebuilds.
        (b"cnumpy.rec\nfromarrays\n)R", "numpy.rec.fromarrays"),
        // numpy.ma's other reconstructors.
        (
            b"cnumpy.ma.core\n_mareconstruct_mrecords\n)R",
            "numpy.ma.core",
        ),
        (
            b"cnumpy.ma.core\nMaskedConstant\n)R",
            "numpy.ma.core.MaskedConstant",
        ),
        // Another builtin.
        (
            b"c__builtin__\nslice\n(K\x00K\x01K\x01tR",
            "__builtin__.slice",
        ),
    ]
}

#[test]
fn other_globals_and_subclasses_are_still_refused_by_name() {
    // Each error's text names the global (`messages`).
    for (items, _) in refused_globals() {
        let err = read(&object_npy(1, items)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DType, "{err}");
        assert_eq!(err.fault(), Some(ndnpy::Fault::PickleGlobal), "{err}");
    }
    // Python 3 maps __builtin__.xrange only below protocol 3, and so does ndnpy.
    let mut p3 = range_npy(b"K\x00K\x01K\x01");
    let at = p3.windows(2).position(|w| w == b"\x80\x02").unwrap();
    p3[at + 1] = 3;
    let err = read(&p3).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::PickleGlobal), "{err}");
    // Classes other than range are not values; range is never called with a class.
    let err = read(&object_npy(1, b"c__builtin__\nset\n")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    // A MaskedArray of records (whose mask is a record) is refused, naming its dtype.
    let err = read(&object_npy(
        1,
        b"cnumpy.ma.core\n_mareconstruct\n(cnumpy.ma\nMaskedArray\ncnumpy\nndarray\nK\x00\x85\
          X\x01\x00\x00\x00btR\
          (K\x01K\x00\x85cnumpy\ndtype\nX\x02\x00\x00\x00O8\x89\x88\x87R\
          (K\x03X\x01\x00\x00\x00|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89]C\x00Ntb",
    ))
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.fault(), Some(Fault::PickleUnsupported), "{err}");
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let na = read_npy_dyn(fixture("stringdtype_na.npy")).unwrap();
    let mut m = vec![Message::is(
        "None as a String",
        na.into_strings().unwrap_err(),
        "object element 1 is a Python NoneType, which cannot be read as String",
    )];
    for (items, name) in refused_globals() {
        m.push(Message::starts(
            format!("the global {name}"),
            read(&object_npy(1, items)).unwrap_err(),
            format!("the pickle calls {name}"),
        ));
    }
    m
}
