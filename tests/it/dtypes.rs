//! Strings, datetimes, raw dtypes and runtime-typed arrays, against numpy in both directions.

use ndarray::{ArrayD, IxDyn};
use ndnpy::{
    dtype::DateTimeUnit, dtype::TimeUnit, element::FixedBytes, element::FixedUnicode, read_npy_dyn,
    Datetime64, DynArray, DynData, ErrorKind, Fault, ReadNpyExt, Timedelta64, ViewNpyExt,
    WriteNpyExt,
};

use crate::common::{numpy, Scratch};
use crate::error_checks::is_dtype_mismatch;

const STRINGS: [&str; 8] = [
    "",
    "a",
    "héllo",
    "整形😀",
    "tab\there",
    "nul\0inside",
    "x",
    "trailing",
];

#[test]
fn strings_both_directions() {
    let dir = Scratch::new("strings");
    // numpy writes: U in both byte orders and a wider size, S with embedded NULs, F order.
    numpy(
        &dir.0,
        r#"
s = ["", "a", "héllo", "整形😀", "tab\there", "nul\x00inside", "x", "trailing"]
np.save(f"{d}/u_le.npy", np.array(s, dtype="<U12").reshape(2, 4))
np.save(f"{d}/u_be.npy", np.array(s, dtype=">U10").reshape(2, 4))
np.save(f"{d}/u_f.npy", np.asfortranarray(np.array(s).reshape(2, 4)))
b = [x.encode("utf8") for x in s]
np.save(f"{d}/s.npy", np.array(b, dtype="S20").reshape(4, 2))
"#,
    );
    let want = ArrayD::from_shape_vec(
        IxDyn(&[2, 4]),
        STRINGS.iter().map(|s| s.to_string()).collect(),
    )
    .unwrap();
    for name in ["u_le.npy", "u_be.npy", "u_f.npy"] {
        let got: ArrayD<String> = ndnpy::read_npy(dir.path(name)).unwrap();
        assert_eq!(got, want, "{name}");
        // Written back in the stored dtype: numpy's exact bytes.
        let dynamic = read_npy_dyn(dir.path(name)).unwrap();
        let mut out = Vec::new();
        dynamic.write_npy(&mut out).unwrap();
        assert_eq!(out, std::fs::read(dir.path(name)).unwrap(), "{name}");
    }
    let bytes: ArrayD<Vec<u8>> = ndnpy::read_npy(dir.path("s.npy")).unwrap();
    assert_eq!(bytes.shape(), [4, 2]);
    assert_eq!(
        bytes
            .iter()
            .map(|b| String::from_utf8(b.clone()).unwrap())
            .collect::<Vec<_>>(),
        STRINGS
    );
    let fixed: ArrayD<FixedBytes<20>> = ndnpy::read_npy(dir.path("s.npy")).unwrap();
    assert_eq!(fixed[[2, 1]].as_bytes(), b"nul\0inside");
    let fixed_u: ArrayD<FixedUnicode<10>> = ndnpy::read_npy(dir.path("u_be.npy")).unwrap();
    assert_eq!(fixed_u[[0, 3]].to_string().unwrap(), "整形😀");
    // Nine code units do not hold numpy's ten.
    let err = ndnpy::Error::from(
        ndnpy::read_npy::<_, ArrayD<FixedUnicode<9>>>(dir.path("u_be.npy")).unwrap_err(),
    );
    assert!(is_dtype_mismatch(&err), "{err:?}");

    // We write: numpy's choice of length, and np.save's exact bytes.
    let ours = want.clone();
    ours.write_npy(std::fs::File::create(dir.path("ours_u.npy")).unwrap())
        .unwrap();
    let strs: ArrayD<&str> = ArrayD::from_shape_vec(IxDyn(&[8]), STRINGS.to_vec()).unwrap();
    strs.write_npy(std::fs::File::create(dir.path("ours_str.npy")).unwrap())
        .unwrap();
    bytes
        .t()
        .write_npy(std::fs::File::create(dir.path("ours_s.npy")).unwrap())
        .unwrap();
    let fixed_v = fixed.view();
    fixed_v
        .write_npy(std::fs::File::create(dir.path("ours_fixed.npy")).unwrap())
        .unwrap();
    let out = numpy(
        &dir.0,
        r#"
s = ["", "a", "héllo", "整形😀", "tab\there", "nul\x00inside", "x", "trailing"]
checks = [
    ("ours_u.npy", np.array(s).reshape(2, 4)),
    ("ours_str.npy", np.array(s)),
    ("ours_s.npy", np.array([x.encode() for x in s]).reshape(4, 2).T),
    ("ours_fixed.npy", np.array([x.encode() for x in s], dtype="S20").reshape(4, 2)),
]
for name, want in checks:
    got = np.load(f"{d}/{name}")
    assert got.dtype == want.dtype and (got == want).all(), (name, got, want)
    buf = io.BytesIO(); np.save(buf, want)
    assert buf.getvalue() == open(f"{d}/{name}", "rb").read(), name
print("ok")
"#,
    );
    assert_eq!(out, "ok");
}

#[test]
fn string_errors() {
    // A code unit that is not a scalar value.
    let mut bytes = Vec::new();
    ndarray::array![FixedUnicode::<2>([0x41, 0xD800])]
        .write_npy(&mut bytes)
        .unwrap();
    let err = ndarray::Array1::<String>::read_npy(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert_eq!(ndnpy::Error::from(err).element_index(), Some(0));
    // Too long for a fixed size.
    let err = FixedUnicode::<2>::new("abc").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    assert_eq!(err.fault(), Some(Fault::ValueDoesNotFit));
    // Zero-size items claimed by the trillion: a limit, not an allocation.
    let text = "{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000,), }";
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(text.len() as u16).to_le_bytes());
    f.extend_from_slice(text.as_bytes());
    let err = ndnpy::Error::from(ndarray::Array1::<String>::read_npy(&f[..]).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.fault(), Some(Fault::DataLimit));
    let (limit, found) = err.byte_counts().unwrap();
    assert!(found > limit);
    // Wrong kind.
    let u = std::fs::read("testdata/dt_U3_le.npy").unwrap();
    let err = ndnpy::Error::from(ndarray::Array2::<Vec<u8>>::read_npy(&u[..]).unwrap_err());
    assert!(is_dtype_mismatch(&err), "{err:?}");
}

#[test]
fn fixed_strings_view_in_place() {
    let mut bytes = Vec::new();
    ndarray::array![
        FixedBytes::<3>::new(b"ab").unwrap(),
        FixedBytes::new(b"xyz").unwrap()
    ]
    .write_npy(&mut bytes)
    .unwrap();
    let view = ndarray::ArrayView1::<FixedBytes<3>>::view_npy(&bytes).unwrap();
    assert_eq!(view[1].as_bytes(), b"xyz");
    let be = std::fs::read("testdata/dt_U3_be.npy").unwrap();
    let mut aligned = vec![0u32; be.len() / 4 + 1];
    let buf: &mut [u8] = unsafe_bytes(&mut aligned);
    buf[..be.len()].copy_from_slice(&be);
    // Big-endian code units cannot be viewed in place (as native ones).
    let err = ndarray::ArrayView2::<FixedUnicode<3>>::view_npy(&buf[..be.len()]).unwrap_err();
    assert!(
        matches!(err, ndnpy::ViewNpyError::NonNativeEndian),
        "{err:?}"
    );
}

fn unsafe_bytes(v: &mut [u32]) -> &mut [u8] {
    let len = v.len() * 4;
    // SAFETY: u32 has no padding and every byte pattern is a valid u32; the slice covers the
    // vector's initialised elements and takes over its exclusive borrow.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

#[test]
fn datetimes_every_unit_both_directions() {
    let dir = Scratch::new("datetime");
    let out = numpy(
        &dir.0,
        r#"
units = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "25ms", "7D"]
vals = [0, 1, -1, 1234567, -7654321, np.iinfo(np.int64).max, np.iinfo(np.int64).min + 1]
for i, u in enumerate(units):
    for kind in "Mm":
        for order in "<>":
            a = np.array(vals + [np.iinfo(np.int64).min], dtype="i8").astype(f"{order}i8").view(f"{order}{kind}8[{u}]")
            a = np.append(a, np.array(["NaT"], dtype=a.dtype)).astype(a.dtype)
            np.save(f"{d}/{kind}{order == '>'}_{i}.npy", a)
np.save(f"{d}/generic.npy", np.array(["NaT", "NaT"], dtype="M8"))
print(len(units))
"#,
    );
    let n: usize = out.parse().unwrap();
    let codes = [
        "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "ms", "D",
    ];
    let mults = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 25, 7];
    let vals = [
        0i64,
        1,
        -1,
        1234567,
        -7654321,
        i64::MAX,
        i64::MIN + 1,
        i64::MIN,
        i64::MIN,
    ];
    for i in 0..n {
        for big in [false, true] {
            let unit = ndnpy::DType::from_type_str(&format!("<M8[{}]", codes[i])).unwrap();
            let unit = DateTimeUnit {
                multiplier: mults[i],
                ..unit.as_scalar().unwrap().unit().unwrap()
            };
            let name = format!("M{}_{i}.npy", if big { "True" } else { "False" });
            let a: ndarray::Array1<Datetime64> = ndnpy::read_npy(dir.path(&name)).unwrap();
            assert_eq!(
                a.iter().map(|t| t.value).collect::<Vec<_>>(),
                vals,
                "{name}"
            );
            assert!(a.iter().all(|t| t.unit == Some(unit)), "{name}");
            assert!(a[8].is_nat());
            let mut out = Vec::new();
            DynArray::read_npy(&std::fs::read(dir.path(&name)).unwrap()[..])
                .unwrap()
                .write_npy(&mut out)
                .unwrap();
            assert_eq!(out, std::fs::read(dir.path(&name)).unwrap(), "{name}");
            let name = format!("m{}_{i}.npy", if big { "True" } else { "False" });
            let d: ndarray::Array1<Timedelta64> = ndnpy::read_npy(dir.path(&name)).unwrap();
            assert_eq!(
                d.iter().map(|t| t.value).collect::<Vec<_>>(),
                vals,
                "{name}"
            );
            // Native writes match np.save of the same values.
            if !big {
                let mut ours = Vec::new();
                d.write_npy(&mut ours).unwrap();
                assert_eq!(ours, std::fs::read(dir.path(&name)).unwrap(), "{name}");
            }
        }
    }
    let g: ndarray::Array1<Datetime64> = ndnpy::read_npy(dir.path("generic.npy")).unwrap();
    assert!(g.iter().all(|t| t.is_nat() && t.unit.is_none()));
    // Mixed units cannot be one array.
    let s = Some(DateTimeUnit {
        unit: TimeUnit::Seconds,
        multiplier: 1,
    });
    let ms = Some(DateTimeUnit {
        unit: TimeUnit::Milliseconds,
        multiplier: 1,
    });
    let mixed = ndarray::array![Datetime64::new(1, s), Datetime64::new(1, ms)];
    let err = mixed.write_npy(Vec::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    assert_eq!(ndnpy::Error::from(err).element_index(), Some(1));
}

#[cfg(feature = "chrono")]
#[test]
fn chrono_conversions_match_numpy() {
    let dir = Scratch::new("chrono");
    let out = numpy(
        &dir.0,
        r#"
for u in ["Y", "M", "W", "D", "h", "s", "ms", "us", "ns", "ps", "25ms", "7D"]:
    a = np.array([-1000, -1, 0, 1, 600, 123456], dtype="i8").view(f"M8[{u}]")
    print(u, " ".join(str(x) for x in a.astype("M8[ns]").view("i8")))
"#,
    );
    for line in out.lines() {
        let mut parts = line.split(' ');
        let code = parts.next().unwrap();
        let (mult, base) = code.split_at(code.find(|c: char| !c.is_ascii_digit()).unwrap());
        let unit = ndnpy::DType::from_type_str(&format!("<M8[{base}]"))
            .unwrap()
            .as_scalar()
            .unwrap()
            .unit()
            .unwrap();
        let unit = DateTimeUnit {
            multiplier: mult.parse().unwrap_or(1),
            ..unit
        };
        for (v, ns) in [-1000i64, -1, 0, 1, 600, 123456].iter().zip(parts) {
            let t = Datetime64::new(*v, Some(unit))
                .to_chrono()
                .unwrap_or_else(|| panic!("{code} {v}"));
            let ns: i64 = ns.parse().unwrap();
            // numpy's astype('M8[ns]') wraps silently beyond ±292 years; compare where the
            // nanosecond count exists.
            if let Some(ours) = t.and_utc().timestamp_nanos_opt() {
                assert_eq!(ours, ns, "{code} {v}");
            }
            // Units finer than chrono's nanosecond are floored, so only coarser ones round-trip.
            let back = Datetime64::from_chrono(t, unit).unwrap().value;
            if base == "ps" {
                assert_eq!(back, v.div_euclid(1000) * 1000, "{code} {v}");
            } else {
                assert_eq!(back, *v, "{code} {v}");
            }
        }
    }
}

#[test]
fn dynamic_arrays_rewrite_every_fixture_byte_for_byte() {
    let mut count = 0;
    for entry in std::fs::read_dir("testdata").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".npy")
            || name.starts_with("stream_")
            || name == "py2_long_suffix.npy"
            || name.starts_with("v2_small")
            || name.starts_with("v3_small")
            // An object array needs the feature `object` (`no_object` tests the refusal).
            || (cfg!(not(feature = "object")) && name == "dt_object.npy")
        {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let a = read_npy_dyn(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert!(out == bytes, "{name}: rewritten bytes differ");
        let mut again = Vec::new();
        DynArray::read_npy(&bytes[..])
            .unwrap()
            .write_npy(&mut again)
            .unwrap();
        assert!(again == bytes, "{name}: reading from a stream differs");
        count += 1;
    }
    assert!(count > 200, "{count}");
}

#[test]
fn record_fields_match_numpys_indexing() {
    let dir = Scratch::new("fields");
    numpy(
        &dir.0,
        r#"
rng = np.random.default_rng(7)
dts = {
    "pdescr": [("x", "<i4", (2,)), ("y", ">f8", (2, 2)), ("z", "u1")],
    "aligned": np.dtype("i1,i4,i1", align=True),
    "titles": np.dtype({"names": ["a", "b"], "formats": ["<i4", ">i2"], "offsets": [1, 6], "titles": ["aa", "bb"], "itemsize": 10}),
    "nested": [("a", "<i2"), ("n", [("x", "<f4"), ("s", "S3"), ("u", "<U2")])],
    "subsub": [("c", ("<f8", (5,)), (2,))],
}
for name, dt in dts.items():
    dt = np.dtype(dt)
    raw = rng.integers(0, 256, size=6 * dt.itemsize, dtype=np.uint8).tobytes()
    a = np.frombuffer(raw, dtype=dt).copy().reshape(2, 3)
    for f in dt.names:
        if dt[f].kind in "fc" or (dt[f].subdtype and dt[f].subdtype[0].kind == "f"):
            a[f] = rng.standard_normal(a[f].shape)
        if dt[f].names:
            a[f] = np.zeros(1, dtype=dt[f])
    np.save(f"{d}/{name}.npy", a)
    np.save(f"{d}/{name}_F.npy", np.asfortranarray(a))
print("ok")
"#,
    );
    for name in ["pdescr", "aligned", "titles", "nested", "subsub"] {
        for suffix in ["", "_F"] {
            let file = format!("{name}{suffix}.npy");
            let a = read_npy_dyn(dir.path(&file)).unwrap();
            let rec = a.dtype().as_structured().unwrap().clone();
            for f in rec.fields() {
                let field = a.field(&f.name).unwrap();
                let mut out = Vec::new();
                field.write_npy(&mut out).unwrap();
                std::fs::write(dir.path(&format!("{file}.{}.field", f.name)), out).unwrap();
            }
        }
    }
    let err = read_npy_dyn(dir.path("pdescr.npy"))
        .unwrap()
        .field("nope")
        .unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::NoSuchField), "{err}");
    assert!(read_npy_dyn("testdata/example.npy")
        .unwrap()
        .field("x")
        .is_err());
    let out = numpy(
        &dir.0,
        r#"
import glob, os
n = 0
for path in sorted(glob.glob(f"{d}/*.field")):
    npy, field = os.path.basename(path)[:-6].split(".npy.")
    a = np.load(f"{d}/{npy}.npy")
    want = a[field]
    got = np.load(path)
    assert got.dtype == want.dtype and got.shape == want.shape, (path, got.dtype, want.dtype, got.shape, want.shape)
    assert got.tobytes() == np.ascontiguousarray(want).tobytes(), path
    n += 1
print(n)
"#,
    );
    assert_eq!(out, "22"); // 3 + 3 + 2 + 2 + 1 fields, in C and Fortran order
}

#[test]
fn raw_dtypes_round_trip_unchanged() {
    for name in [
        "dt_f16_longdouble.npy",
        "dt_c32.npy",
        "dt_V8.npy",
        "rec_itemsize0.npy",
        "rec_ndescr.npy",
    ] {
        let path = format!("testdata/{name}");
        let a = read_npy_dyn(&path).unwrap();
        assert!(matches!(a.data(), DynData::Raw(_)), "{name}");
        // Kept as bytes, written back as numpy wrote them.
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert!(
            out == std::fs::read(&path).unwrap(),
            "{name}: rewritten bytes differ"
        );
    }
}

/// One-byte types with a byte order (`'<u1'`, `'>u1'`, `'<i1'`, `'<b1'`), which some writers
/// emit and numpy reads as `'|u1'`, `'|i1'`, `'|b1'`: read, viewed and read at run time as
/// `u8`, `i8` and `bool`, and the files rewritten as numpy writes those arrays.
#[test]
fn one_byte_types_with_a_byte_order_read_as_numpy_reads_them() {
    let dir = Scratch::new("one-byte-orders");
    let out = numpy(
        &dir.0,
        "cases = [('u1', np.array([0, 1, 255], np.uint8)), ('i1', np.array([-128, 0, 127], np.int8)),\n\
         ('b1', np.array([True, False, True]))]\n\
         for kind, a in cases:\n\
         \x20   b = io.BytesIO(); np.save(b, a); v = b.getvalue()\n\
         \x20   for order in '<>=':\n\
         \x20       w = v.replace(b\"'|\" + kind.encode() + b\"'\", (\"'\" + order + kind + \"'\").encode())\n\
         \x20       assert w != v\n\
         \x20       r = np.load(io.BytesIO(w))\n\
         \x20       assert r.dtype == a.dtype and (r == a).all(), (kind, order)\n\
         \x20       name = {'<': 'lt', '>': 'gt', '=': 'eq'}[order]\n\
         \x20       open(f'{d}/{kind}_{name}.npy', 'wb').write(w)\n\
         \x20       np.save(f'{d}/{kind}_{name}_numpy.npy', r)\n\
         print('ok')",
    );
    assert_eq!(out.trim(), "ok");
    for order in ["lt", "gt", "eq"] {
        let path = |kind: &str| dir.path(&format!("{kind}_{order}.npy"));
        let u: ndarray::Array1<u8> = ndnpy::read_npy(path("u1")).unwrap();
        assert_eq!(u, ndarray::array![0, 1, 255], "{order}");
        let i: ndarray::Array1<i8> = ndnpy::read_npy(path("i1")).unwrap();
        assert_eq!(i, ndarray::array![-128, 0, 127], "{order}");
        let b: ndarray::Array1<bool> = ndnpy::read_npy(path("b1")).unwrap();
        assert_eq!(b, ndarray::array![true, false, true], "{order}");
        let bytes = std::fs::read(path("u1")).unwrap();
        let v = ndarray::ArrayView1::<u8>::view_npy(&bytes).unwrap();
        assert_eq!(v, ndarray::array![0, 1, 255], "{order}");
        let bytes = std::fs::read(path("b1")).unwrap();
        let v = ndarray::ArrayView1::<bool>::view_npy(&bytes).unwrap();
        assert_eq!(v, ndarray::array![true, false, true], "{order}");
        for kind in ["u1", "i1", "b1"] {
            let d = ndnpy::read_npy_dyn(path(kind)).unwrap();
            let mut written = Vec::new();
            d.write_npy(&mut written).unwrap();
            let numpy_wrote =
                std::fs::read(dir.path(&format!("{kind}_{order}_numpy.npy"))).unwrap();
            assert_eq!(written, numpy_wrote, "{kind} {order}");
        }
    }
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let mut surrogate = Vec::new();
    ndarray::array![FixedUnicode::<2>([0x41, 0xD800])]
        .write_npy(&mut surrogate)
        .unwrap();
    let text = "{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000,), }";
    let mut zero = b"\x93NUMPY\x01\x00".to_vec();
    zero.extend_from_slice(&(text.len() as u16).to_le_bytes());
    zero.extend_from_slice(text.as_bytes());
    let zero = ndnpy::Error::from(ndarray::Array1::<String>::read_npy(&zero[..]).unwrap_err());
    let (limit, found) = zero.byte_counts().unwrap();
    let unit = |unit| {
        Some(DateTimeUnit {
            unit,
            multiplier: 1,
        })
    };
    let mixed = ndarray::array![
        Datetime64::new(1, unit(TimeUnit::Seconds)),
        Datetime64::new(1, unit(TimeUnit::Milliseconds))
    ];
    vec![
        Message::is(
            "a surrogate",
            ndarray::Array1::<String>::read_npy(&surrogate[..]).unwrap_err(),
            "error parsing data: string element 0 holds code unit 0xd800, which is not a unicode \
             scalar value",
        ),
        Message::is(
            "too long",
            FixedUnicode::<2>::new("abc").unwrap_err(),
            "string 0 has length 3, more than the 2 its dtype holds",
        ),
        Message::is(
            "zero-size items",
            zero,
            format!(
                "array data of {found} bytes exceeds the limit of {limit} bytes \
                 (raise it with ReadOptions::max_data_len)"
            ),
        ),
        Message::is(
            "mixed units, as ndnpy's error",
            ndnpy::Error::from(mixed.write_npy(Vec::new()).unwrap_err()),
            "value 1 has dtype '<M8[ms]', but the array is written as '<M8[s]'",
        ),
        Message::is(
            "mixed units",
            mixed.write_npy(Vec::new()).unwrap_err(),
            "error formatting data: value 1 has dtype '<M8[ms]', but the array is written as \
             '<M8[s]'",
        ),
    ]
}
