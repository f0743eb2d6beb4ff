//! Every fixture numpy wrote in `testdata/` (see `testdata/generate.py`): values read back
//! equal, headers re-encode to the same bytes, and numeric arrays we write are byte-identical
//! to numpy's files.

use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, header::Version, ErrorKind, Fault, Header, ReadNpyExt, ReadOptions,
    ReadableElement, WritableElement, WriteNpyExt, WriteOptions,
};
use num_complex::Complex;
use std::fs;
use std::path::{Path, PathBuf};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// The values of `testdata/generate.py`'s `value()`.
trait Fixture: ReadableElement + WritableElement + Copy + std::fmt::Debug {
    const CODE: &'static str;
    fn value(i: usize) -> Self;
    /// Bitwise equality (NaN == NaN, -0.0 != 0.0).
    fn same(&self, other: &Self) -> bool;
}

macro_rules! int_fixture {
    ($($t:ty, $code:literal;)*) => {$(
        impl Fixture for $t {
            const CODE: &'static str = $code;
            fn value(i: usize) -> Self {
                match i {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0,
                    _ => (i as u64).wrapping_mul(2654435761) as $t,
                }
            }
            fn same(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}

int_fixture! {
    i8, "i1"; u8, "u1"; i16, "i2"; u16, "u2"; i32, "i4"; u32, "u4"; i64, "i8"; u64, "u8";
}

macro_rules! float_fixture {
    ($($t:ty, $code:literal, $from:expr, $bits:expr, $max:expr, $tiny:expr;)*) => {$(
        impl Fixture for $t {
            const CODE: &'static str = $code;
            fn value(i: usize) -> Self {
                let from: fn(f64) -> $t = $from;
                match i {
                    0 => from(f64::NAN),
                    1 => from(-0.0),
                    2 => from(f64::INFINITY),
                    3 => from(f64::NEG_INFINITY),
                    4 => $max,
                    5 => $tiny,
                    6 => -$max,
                    _ => from((i as f64 - 10.0) * 0.25),
                }
            }
            fn same(&self, other: &Self) -> bool {
                let bits: fn(&$t) -> u64 = $bits;
                bits(self) == bits(other)
            }
        }
    )*};
}

float_fixture! {
    f32, "f4", |x| x as f32, |x| x.to_bits() as u64, f32::MAX, f32::MIN_POSITIVE;
    f64, "f8", |x| x, |x| x.to_bits(), f64::MAX, f64::MIN_POSITIVE;
    half::f16, "f2", half::f16::from_f64, |x| x.to_bits() as u64, half::f16::MAX, half::f16::MIN_POSITIVE;
}

macro_rules! complex_fixture {
    ($($t:ty, $code:literal;)*) => {$(
        impl Fixture for Complex<$t> {
            const CODE: &'static str = $code;
            fn value(i: usize) -> Self {
                Complex::new(<$t>::value(i), (i as f64 * 0.5) as $t)
            }
            fn same(&self, other: &Self) -> bool {
                self.re.same(&other.re) && self.im.same(&other.im)
            }
        }
    )*};
}

complex_fixture! { f32, "c8"; f64, "c16"; }

impl Fixture for bool {
    const CODE: &'static str = "b1";
    fn value(i: usize) -> Self {
        i % 3 == 0
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

const LAYOUTS: [(&str, &[usize]); 8] = [
    ("0d", &[]),
    ("e0", &[0]),
    ("e03", &[0, 3]),
    ("c_5", &[5]),
    ("c_2x3", &[2, 3]),
    ("f_3x4", &[3, 4]),
    ("c_2x3x4", &[2, 3, 4]),
    ("s_4x3", &[4, 3]),
];

/// The logical array of a fixture, in C order.
fn expected<T: Fixture>(shape: &[usize]) -> ArrayD<T> {
    let n: usize = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(T::value).collect()).unwrap()
}

fn check_type<T: Fixture>() -> usize {
    let orders: &[(&str, ByteOrder)] = if std::mem::size_of::<T>() == 1 {
        &[("na", ByteOrder::NATIVE)]
    } else {
        &[("le", ByteOrder::Little), ("be", ByteOrder::Big)]
    };
    let mut checked = 0;
    for &(order_name, order) in orders {
        for (layout, shape) in LAYOUTS {
            let name = format!("{}_{order_name}_{layout}.npy", T::CODE);
            let path = testdata().join(&name);
            let file = fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let want = expected::<T>(shape);

            // Read: through a path, and through a reader.
            let got: ArrayD<T> = ndnpy::read_npy(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let got2 = ArrayD::<T>::read_npy(&file[..]).unwrap();
            assert_eq!(got.shape(), shape, "{name}");
            for (a, b) in got
                .iter()
                .zip(want.iter())
                .chain(got2.iter().zip(want.iter()))
            {
                assert!(a.same(b), "{name}: got {a:?}, want {b:?}");
            }
            if layout.starts_with("f_") {
                assert!(
                    got.t().is_standard_layout(),
                    "{name}: Fortran file gives F layout"
                );
            }

            // Write the same logical array with the same layout: numpy's bytes exactly.
            let opts = WriteOptions::new().byte_order(order);
            let mut out = Vec::new();
            if layout.starts_with("f_") {
                let mut f = ArrayD::from_elem(IxDyn(shape).f(), T::value(0));
                f.assign(&want);
                f.write_npy_with_options(&mut out, &opts).unwrap();
            } else if layout == "s_4x3" {
                let mut base = ArrayD::from_elem(IxDyn(&[8, 3]), T::value(0));
                let mut view = base.slice_mut(ndarray::s![..;2, ..;-1]);
                view.assign(&want);
                view.write_npy_with_options(&mut out, &opts).unwrap();
            } else {
                want.write_npy_with_options(&mut out, &opts).unwrap();
            }
            assert!(out == file, "{name}: written bytes differ from numpy's");
            checked += 1;
        }
    }
    checked
}

#[test]
fn numeric_fixtures_read_equal_and_write_byte_identical() {
    let n = check_type::<bool>()
        + check_type::<i8>()
        + check_type::<u8>()
        + check_type::<i16>()
        + check_type::<u16>()
        + check_type::<i32>()
        + check_type::<u32>()
        + check_type::<i64>()
        + check_type::<u64>()
        + check_type::<half::f16>()
        + check_type::<f32>()
        + check_type::<f64>()
        + check_type::<Complex<f32>>()
        + check_type::<Complex<f64>>();
    assert_eq!(n, 8 * (3 + 2 * 11));
}

#[test]
fn every_fixture_header_reencodes_to_numpys_bytes() {
    let mut count = 0;
    for entry in fs::read_dir(testdata()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".npy") || name == "py2_long_suffix.npy" || name.starts_with("stream_") {
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        let info = Header::read(&mut &bytes[..], &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours = if name.starts_with("v2_small") || name.starts_with("v3_small") {
            info.header.to_bytes_with_version(info.version).unwrap()
        } else {
            info.header.to_bytes().unwrap()
        };
        assert_eq!(ours.len() as u64, info.data_offset, "{name}");
        assert!(
            ours == bytes[..ours.len()],
            "{name}: header bytes differ:\n{}\n{}",
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&bytes[..ours.len()])
        );
        count += 1;
    }
    assert!(count > 200, "only {count} fixtures found");
}

#[test]
fn dtypes_without_an_element_type_name_the_files_dtype() {
    let err = ndnpy::Error::from(
        ArrayD::<f64>::read_npy(&fs::read(testdata().join("dt_M8_25ms.npy")).unwrap()[..])
            .unwrap_err(),
    );
    assert!(crate::error_checks::is_dtype_mismatch(&err), "{err:?}");
    let found = err.dtype().map(|d| d.descr());
    assert_eq!(found.as_deref(), Some("'<M8[25ms]'"), "{err}");
    let err = ndnpy::Error::from(
        ArrayD::<i32>::read_npy(&fs::read(testdata().join("rec_titles.npy")).unwrap()[..])
            .unwrap_err(),
    );
    assert!(crate::error_checks::is_dtype_mismatch(&err), "{err:?}");
    let found = err.dtype().map(|d| d.descr());
    let descr = "[('', '|V1'), (('aa', 'a'), '<i4'), ('', '|V1'), (('bb', 'b'), '<i4')]";
    assert_eq!(found.as_deref(), Some(descr), "{err}");
    let err = ndnpy::Error::from(
        ArrayD::<f32>::read_npy(&fs::read(testdata().join("f8_le_c_5.npy")).unwrap()[..])
            .unwrap_err(),
    );
    assert!(crate::error_checks::is_dtype_mismatch(&err), "{err:?}");
    assert_eq!(err.dtype().map(|d| d.descr()).as_deref(), Some("'<f8'"));
}

#[test]
fn object_arrays_say_they_are_pickled() {
    let bytes = fs::read(testdata().join("dt_object.npy")).unwrap();
    let err = ndnpy::Error::from(ArrayD::<i64>::read_npy(&bytes[..]).unwrap_err());
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType), "{err}");
    assert_eq!(
        err.dtype().map(|d| d.descr()).as_deref(),
        Some("'|O'"),
        "{err}"
    );
    let info = Header::read(&mut &bytes[..], &ReadOptions::default()).unwrap();
    assert_eq!(info.header.shape, [3]);
}

#[test]
fn wrong_ndim_is_a_mismatch() {
    let bytes = fs::read(testdata().join("f8_le_c_2x3.npy")).unwrap();
    let err = crate::own::read::<ndarray::Array1<f64>>(&bytes[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim);
    assert_eq!(err.shape(), Some(&[2, 3][..]));
    let a =
        ndarray::Array0::<i64>::read_npy(&fs::read(testdata().join("i8_le_0d.npy")).unwrap()[..])
            .unwrap();
    assert_eq!(a.into_scalar(), i64::MIN);
}

#[test]
fn reads_python2_long_suffix_and_other_versions() {
    let a: ndarray::Array1<f64> = ndnpy::read_npy(testdata().join("py2_long_suffix.npy")).unwrap();
    assert_eq!(a, ndarray::array![1.0, 1.0]);
    for (name, version) in [
        ("v2_small.npy", Version::V2_0),
        ("v3_small.npy", Version::V3_0),
    ] {
        let bytes = fs::read(testdata().join(name)).unwrap();
        assert_eq!(
            Header::read(&mut &bytes[..], &ReadOptions::default())
                .unwrap()
                .version,
            version
        );
        let a = ndarray::Array1::<i64>::read_npy(&bytes[..]).unwrap();
        assert_eq!(a, ndarray::array![0, 1, 2]);
    }
    let info = Header::read(
        &mut &fs::read(testdata().join("rec_unicode.npy")).unwrap()[..],
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(info.version, Version::V3_0);
    assert_eq!(
        info.header.dtype.as_structured().unwrap().fields()[0].name,
        "整形"
    );
    let info = Header::read(
        &mut &fs::read(testdata().join("rec_latin1.npy")).unwrap()[..],
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (
            info.version,
            info.header.dtype.as_structured().unwrap().fields()[0]
                .name
                .as_str()
        ),
        (Version::V1_0, "é")
    );
}

#[test]
fn huge_header_reads_by_default_and_honours_a_numpy_like_limit() {
    let bytes = fs::read(testdata().join("v2_huge_header.npy")).unwrap();
    let info = Header::read(&mut &bytes[..], &ReadOptions::default()).unwrap();
    assert_eq!(info.version, Version::V2_0);
    assert_eq!(
        info.header.dtype.as_structured().unwrap().fields().len(),
        10001
    );
    let strict = ReadOptions::new().max_header_len(10_000);
    let err = Header::read(&mut &bytes[..], &strict).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert_eq!(err.fault(), Some(Fault::HeaderLimit));
    let (limit, found) = err.byte_counts().unwrap();
    assert_eq!(limit, 10_000);
    assert!(found > limit);
}

#[test]
fn reads_several_arrays_from_one_stream_numpy_wrote() {
    let bytes = fs::read(testdata().join("stream_three_arrays.npy")).unwrap();
    let mut r = &bytes[..];
    assert_eq!(
        ndarray::Array0::<i64>::read_npy(&mut r)
            .unwrap()
            .into_scalar(),
        1
    );
    assert_eq!(
        ndarray::Array1::<f64>::read_npy(&mut r).unwrap(),
        ndarray::array![2.0, 3.0]
    );
    assert_eq!(
        ndarray::Array2::<bool>::read_npy(&mut r).unwrap(),
        ndarray::array![[true], [false]]
    );
    assert!(r.is_empty());
    let err = crate::own::read::<ndarray::Array0<i64>>(&mut r).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header);
    assert_eq!(err.fault(), Some(Fault::Magic));
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let read = |name: &str| fs::read(testdata().join(name)).unwrap();
    let strict = ReadOptions::new().max_header_len(10_000);
    let many = Header::read(&mut &read("v2_huge_header.npy")[..], &strict).unwrap_err();
    let (_, found) = many.byte_counts().unwrap();
    let mut empty: &[u8] = &[];
    vec![
        Message::is(
            "a datetime as f64",
            ndnpy::Error::from(ArrayD::<f64>::read_npy(&read("dt_M8_25ms.npy")[..]).unwrap_err()),
            "cannot read dtype '<M8[25ms]' as f64 (dtype '<f8' or '>f8')",
        ),
        Message::is(
            "f8 as f32",
            ndnpy::Error::from(ArrayD::<f32>::read_npy(&read("f8_le_c_5.npy")[..]).unwrap_err()),
            "cannot read dtype '<f8' as f32 (dtype '<f4' or '>f4')",
        ),
        Message::is(
            "dimensions",
            crate::own::read::<ndarray::Array1<f64>>(&read("f8_le_c_2x3.npy")[..]).unwrap_err(),
            "expected an array of 1 dimension, found one of 2: shape (2, 3)",
        ),
        Message::is(
            "header limit",
            many,
            format!(
                "header of {found} bytes exceeds the limit of 10000 bytes \
                 (raise it with ReadOptions::max_header_len)"
            ),
        ),
        Message::is(
            "nothing left",
            crate::own::read::<ndarray::Array0<i64>>(&mut empty).unwrap_err(),
            "not an .npy file: expected magic b\"\\x93NUMPY\", found b\"\"",
        ),
    ]
}
