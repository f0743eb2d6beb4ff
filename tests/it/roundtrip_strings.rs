//! Property tests of strings: arrays of `String` (`<U`/`>U`), `Vec<u8>` (`|S`),
//! `FixedUnicode<N>` and `FixedBytes<N>` (non-ASCII, astral, empty, with NULs inside and at
//! the end) round trip in any layout and byte order. `String` and `Vec<u8>` read back as numpy
//! gives them, without trailing NULs; the fixed-size types keep every code unit and byte, even
//! code units that are not characters. numpy loads the same strings.

use crate::common::{numpy, Scratch};
use crate::layouts::{
    arrange, cases, layouts, orders, round_trip, round_trip_typed, sample, shapes,
};
use ndarray::ArrayD;
use ndnpy::{
    dtype::ByteOrder, element::FixedBytes, element::FixedUnicode, WriteNpyExt, WriteOptions,
};
use proptest::prelude::*;

/// Texts of up to `max` characters: any printable ones, or few distinct ones with NULs inside
/// and at the end, multi-byte and astral characters, spaces, and the empty text.
fn texts(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::string::string_regex(&format!("\\PC{{0,{max}}}")).unwrap(),
        prop::string::string_regex(&format!("[a\\x00é整😀 ]{{0,{max}}}")).unwrap(),
        Just(String::new()),
    ]
}

/// Byte strings of up to 7 bytes, NULs frequent.
fn byte_strings() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![3 => any::<u8>(), 1 => Just(0u8)], 0..8)
}

/// numpy's value of a `U` item: the text without trailing NULs.
fn unpadded(s: &str) -> &str {
    s.trim_end_matches('\0')
}

/// numpy's value of an `S` item: the bytes without trailing NULs.
fn unpadded_bytes(b: &[u8]) -> &[u8] {
    &b[..b.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1)]
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn string_arrays_read_back_without_trailing_nuls(shape in shapes(), v in prop::collection::vec(texts(6), 1..24), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, |read: &String, written| read == unpadded(written))?;
    }

    #[test]
    fn byte_string_arrays_read_back_without_trailing_nuls(shape in shapes(), v in prop::collection::vec(byte_strings(), 1..24), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, |read: &Vec<u8>, written| read == unpadded_bytes(written))?;
    }

    #[test]
    fn fixed_unicode_arrays_round_trip_exactly(shape in shapes(), v in prop::collection::vec(texts(4), 1..24), layout in layouts(), order in orders()) {
        let v: Vec<FixedUnicode<4>> = v.iter().map(|s| FixedUnicode::new(s).unwrap()).collect();
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }

    #[test]
    fn fixed_unicode_keeps_code_units_that_are_not_characters(shape in shapes(), v in prop::collection::vec(any::<[u32; 3]>(), 1..24), layout in layouts(), order in orders()) {
        let v: Vec<FixedUnicode<3>> = v.into_iter().map(FixedUnicode).collect();
        round_trip_typed(&shape, &v, layout, order, PartialEq::eq)?;
    }

    #[test]
    fn fixed_byte_arrays_round_trip_exactly(shape in shapes(), v in prop::collection::vec(any::<[u8; 5]>(), 1..24), layout in layouts(), order in orders()) {
        let v: Vec<FixedBytes<5>> = v.into_iter().map(FixedBytes).collect();
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }
}

/// The edge cases first, then generated texts.
fn text_cases() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "a",
        "héllo",
        "整形😀",
        "nul\0inside",
        "trailing\0\0",
        "\0",
        "\0lead",
        " ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(sample(prop::collection::vec(texts(6), 29)));
    v
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `a` as `name` in `order`; returns the line numpy should print for it: the name and
/// each item's numpy value (trailing NULs stripped) as hex, in C order.
fn write<T: ndnpy::WritableElement>(
    dir: &Scratch,
    name: &str,
    a: &ArrayD<T>,
    order: ByteOrder,
    value: impl Fn(&T) -> Vec<u8>,
) -> String {
    a.write_npy_with_options(
        std::fs::File::create(dir.path(name)).unwrap(),
        &WriteOptions::new().byte_order(order),
    )
    .unwrap();
    let items: Vec<String> = a.iter().map(|x| hex(&value(x))).collect();
    format!("{name} {}", items.join(" "))
}

/// numpy loads our `U` and `S` arrays (`String`, `Vec<u8>`, `FixedUnicode`, `FixedBytes`),
/// in both byte orders and memory orders, as the same strings, and `np.save` of what it loaded
/// gives our exact bytes.
#[test]
fn numpy_loads_the_strings_we_write() {
    let dir = Scratch::new("strings-oracle");
    let texts = text_cases();
    let bytes: Vec<Vec<u8>> = texts
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .chain(sample(prop::collection::vec(
            byte_strings(),
            38 - texts.len(),
        )))
        .take(38)
        .collect();
    let fixed_u: Vec<FixedUnicode<4>> = texts
        .iter()
        .filter(|s| s.chars().count() <= 4)
        .map(|s| FixedUnicode::new(s).unwrap())
        .collect();
    let fixed_b: Vec<FixedBytes<5>> = sample(prop::collection::vec(any::<[u8; 5]>(), 38))
        .into_iter()
        .map(FixedBytes)
        .collect();
    let mut expect = Vec::new();
    for (order, o) in [(ByteOrder::Little, "le"), (ByteOrder::Big, "be")] {
        for (fortran, f) in [(false, "c"), (true, "f")] {
            let shape = [2, texts.len() / 2];
            let a = arrange(&shape, &texts, fortran).unwrap();
            expect.push(write(&dir, &format!("u_{o}_{f}.npy"), &a, order, |s| {
                unpadded(s).as_bytes().to_vec()
            }));
            let a = arrange(&shape, &bytes, fortran).unwrap();
            expect.push(write(&dir, &format!("s_{o}_{f}.npy"), &a, order, |b| {
                unpadded_bytes(b).to_vec()
            }));
            let a = arrange(&[fixed_u.len()], &fixed_u, fortran).unwrap();
            expect.push(write(&dir, &format!("fu_{o}_{f}.npy"), &a, order, |s| {
                s.to_string().unwrap().into_bytes()
            }));
            let a = arrange(&[2, 19], &fixed_b, fortran).unwrap();
            expect.push(write(&dir, &format!("fb_{o}_{f}.npy"), &a, order, |b| {
                b.as_bytes().to_vec()
            }));
        }
    }
    let out = numpy(
        &dir.0,
        r#"
import os
for name in sorted(os.listdir(d)):
    raw = open(f"{d}/{name}", "rb").read()
    a = np.load(f"{d}/{name}")
    assert a.dtype.kind == ("U" if name.startswith(("u_", "fu_")) else "S"), (name, a.dtype)
    buf = io.BytesIO(); np.save(buf, a)
    assert buf.getvalue() == raw, f"{name}: np.save writes other bytes"
    items = a.ravel(order="C").tolist()
    print(name, " ".join((x.encode() if isinstance(x, str) else x).hex() or "-" for x in items))
"#,
    );
    expect.sort();
    assert_eq!(out.lines().collect::<Vec<_>>(), expect);
}
