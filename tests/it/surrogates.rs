//! `U` strings holding lone UTF-16 surrogates (U+D800 to U+DFFF), which numpy's `str` allows
//! and `np.save` keeps: `read_npy_dyn` never fails on them, keeps every code unit (written
//! back byte for byte), and converting to `String` is the explicit, fallible step.

use crate::common::{numpy, Scratch};
use ndarray::{Array1, ArrayD};
use ndnpy::{read_npy_dyn, DynArray, DynData, ErrorKind, ReadNpyExt};

/// Each element's code units as numpy sees them, in logical (C) order, one element per line.
fn numpy_units(path: &str) -> Vec<Vec<u32>> {
    let dir = Scratch::new("surrogates-numpy");
    let out = numpy(
        &dir.path(""),
        &format!(
            "a = np.load({path:?})\nfor s in a.ravel(order='C'):\n    print(' '.join(str(ord(c)) for c in s))"
        ),
    );
    out.lines()
        .map(|l| l.split_whitespace().map(|u| u.parse().unwrap()).collect())
        .collect()
}

#[test]
fn surrogates_read_as_code_points_as_numpy_holds_them() {
    for name in [
        "testdata/U_surrogates.npy",
        "testdata/U_surrogates_be_f.npy",
    ] {
        let a = read_npy_dyn(name).unwrap();
        let DynData::CodePoints(units) = a.data() else {
            panic!("{name}: {:?}", a.data())
        };
        let ours: Vec<Vec<u32>> = units.iter().cloned().collect();
        assert_eq!(ours, numpy_units(name), "{name}");
    }
    let a = read_npy_dyn("testdata/U_surrogates_be_f.npy").unwrap();
    assert_eq!(a.shape(), [2, 2]);
    assert!(a.is_fortran_order());
    assert_eq!(a.dtype().descr(), "'>U3'");
}

#[test]
fn code_points_are_written_back_byte_for_byte() {
    for name in [
        "testdata/U_surrogates.npy",
        "testdata/U_surrogates_be_f.npy",
    ] {
        let bytes = std::fs::read(name).unwrap();
        let a = DynArray::read_npy(&bytes[..]).unwrap();
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert_eq!(out, bytes, "{name}");
    }
}

#[test]
fn converting_to_strings_is_the_fallible_step() {
    let a = read_npy_dyn("testdata/U_surrogates_be_f.npy").unwrap();
    let err = a.clone().into_strings().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    // Element 0 in logical order is '\udfff' (its text, in `messages`, names the unit).
    assert_eq!(err.element_index(), Some(0));
    // The code units are there to take as they are.
    let units: ArrayD<Vec<u32>> = a.into_array::<Vec<u32>>().unwrap();
    assert_eq!(units[[1, 1]], [0x77, 0xd83d, 0x7a]);
    // A typed read as `String` fails the same way, naming the element and unit.
    let err = Array1::<String>::read_npy(std::fs::File::open("testdata/U_surrogates.npy").unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");
    assert_eq!(ndnpy::Error::from(err).element_index(), Some(0));
}

#[test]
fn valid_strings_still_read_as_strings() {
    let a = read_npy_dyn("testdata/dt_U3_be.npy").unwrap();
    assert!(matches!(a.data(), DynData::Unicode(_)), "{:?}", a.data());
    // Code points that are all valid convert.
    let units = ndarray::arr1(&[vec![0x68u32, 0x69], vec![]]).into_dyn();
    let strings = DynArray::read_npy(&write_units(&units)[..])
        .unwrap()
        .into_strings()
        .unwrap();
    assert_eq!(strings.as_slice().unwrap(), ["hi", ""]);
}

/// `units` written by numpy as a `<U` array (numpy builds the strings with `chr`).
fn write_units(units: &ArrayD<Vec<u32>>) -> Vec<u8> {
    let dir = Scratch::new("surrogates-write");
    let items: Vec<String> = units
        .iter()
        .map(|u| {
            let chars: Vec<String> = u.iter().map(|c| format!("chr({c})")).collect();
            format!("''.join([{}])", chars.join(", "))
        })
        .collect();
    numpy(
        &dir.path(""),
        &format!(
            "np.save(d + '/u.npy', np.array([{}], dtype='<U2'))",
            items.join(", ")
        ),
    );
    std::fs::read(dir.path("u.npy")).unwrap()
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let a = read_npy_dyn("testdata/U_surrogates_be_f.npy").unwrap();
    let typed =
        Array1::<String>::read_npy(std::fs::File::open("testdata/U_surrogates.npy").unwrap());
    vec![
        Message::is(
            "into_strings",
            a.into_strings().unwrap_err(),
            "string element 0 holds code unit 0xdfff, which is not a unicode scalar value",
        ),
        Message::is(
            "a typed read",
            typed.unwrap_err(),
            "error parsing data: string element 0 holds code unit 0xd800, which is not a unicode \
             scalar value",
        ),
    ]
}
