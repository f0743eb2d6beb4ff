//! Property tests of records: arrays of `#[derive(NpyRecord)]` structs (a number, a float of
//! any bits, a bool, fixed-size and NUL-padded strings, sub-array fields, a nested record),
//! and of a `#[repr(C, packed)]` struct, round trip in any layout and byte order; the packed
//! one also views in place in native order. numpy loads the same field values.

use crate::common::{numpy, Scratch};
use crate::layouts::{arrange, cases, layouts, orders, round_trip, sample, shapes};
use ndarray::{ArrayD, ArrayViewD};
use ndnpy::{
    dtype::ByteOrder, element::FixedBytes, NpyRecord, ReadNpyExt, ViewNpyExt, WriteNpyExt,
    WriteOptions,
};
use proptest::prelude::*;

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Point {
    x: i32,
    y: u16,
}

/// A record of every kind of field.
#[derive(NpyRecord, Debug, Clone)]
struct Reading {
    id: i64,
    value: f64,
    ok: bool,
    tag: FixedBytes<4>,
    #[npy(len = 3)]
    name: String,
    #[npy(len = 2)]
    raw: Vec<u8>,
    samples: [i16; 3],
    grid: [[u8; 2]; 2],
    at: Point,
}

/// A packed record: viewable in place, read without decoding in native order.
#[derive(NpyRecord, Debug, Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    id: u32,
    value: f64,
    ok: bool,
    tag: FixedBytes<3>,
    v: [f32; 2],
}

/// Whether `read` is what numpy gives for `written`: every field equal, floats bit for bit,
/// strings without their trailing NULs.
fn same_reading(read: &Reading, written: &Reading) -> bool {
    let unpadded = |b: &[u8]| b[..b.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1)].to_vec();
    read.id == written.id
        && read.value.to_bits() == written.value.to_bits()
        && read.ok == written.ok
        && read.tag == written.tag
        && read.name == written.name.trim_end_matches('\0')
        && read.raw == unpadded(&written.raw)
        && read.samples == written.samples
        && read.grid == written.grid
        && read.at == written.at
}

fn same_packed(read: &Packed, written: &Packed) -> bool {
    // Copied out: a packed struct's fields may not be borrowed.
    let (r, w) = (*read, *written);
    let bits = |v: [f32; 2]| v.map(f32::to_bits);
    let (r_id, w_id, r_value, w_value) = (r.id, w.id, r.value, w.value);
    let (r_ok, w_ok, r_tag, w_tag, r_v, w_v) = (r.ok, w.ok, r.tag, w.tag, r.v, w.v);
    r_id == w_id
        && r_value.to_bits() == w_value.to_bits()
        && r_ok == w_ok
        && r_tag == w_tag
        && bits(r_v) == bits(w_v)
}

fn readings() -> impl Strategy<Value = Reading> {
    (
        (any::<i64>(), any::<u64>(), any::<bool>(), any::<[u8; 4]>()),
        (
            "[a\\x00é😀]{0,3}",
            prop::collection::vec(prop_oneof![any::<u8>(), Just(0u8)], 0..3),
        ),
        (
            any::<[i16; 3]>(),
            any::<[[u8; 2]; 2]>(),
            any::<i32>(),
            any::<u16>(),
        ),
    )
        .prop_map(
            |((id, value, ok, tag), (name, raw), (samples, grid, x, y))| Reading {
                id,
                value: f64::from_bits(value),
                ok,
                tag: FixedBytes(tag),
                name,
                raw,
                samples,
                grid,
                at: Point { x, y },
            },
        )
}

fn packeds() -> impl Strategy<Value = Packed> {
    (
        any::<u32>(),
        any::<u64>(),
        any::<bool>(),
        any::<[u8; 3]>(),
        any::<[u32; 2]>(),
    )
        .prop_map(|(id, value, ok, tag, v)| Packed {
            id,
            value: f64::from_bits(value),
            ok,
            tag: FixedBytes(tag),
            v: v.map(f32::from_bits),
        })
}

proptest! {
    #![proptest_config(cases(48))]

    #[test]
    fn record_arrays_round_trip_field_by_field(shape in shapes(), v in prop::collection::vec(readings(), 1..12), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, same_reading)?;
    }

    #[test]
    fn packed_record_arrays_round_trip_and_view_in_place(shape in shapes(), v in prop::collection::vec(packeds(), 1..12), layout in layouts(), order in orders()) {
        let file = round_trip(&shape, &v, layout, order, same_packed)?;
        if order == ByteOrder::NATIVE {
            let read = ArrayD::<Packed>::read_npy(&file[..]).unwrap();
            let view = ArrayViewD::<Packed>::view_npy(&file).unwrap();
            prop_assert_eq!(view.shape(), read.shape());
            for (a, b) in view.iter().zip(read.iter()) {
                prop_assert!(same_packed(a, b), "{:?} viewed as {:?}", b, a);
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The native bytes numpy's `a[field]` holds for each field of a record (in field order),
/// strings padded to their length.
fn reading_fields(r: &Reading) -> Vec<(&'static str, Vec<u8>)> {
    let mut name: Vec<u8> = Vec::new();
    for c in r.name.chars().chain(std::iter::repeat('\0')).take(3) {
        name.extend((c as u32).to_ne_bytes());
    }
    let mut raw = r.raw.clone();
    raw.resize(2, 0);
    vec![
        ("id", r.id.to_ne_bytes().to_vec()),
        ("value", r.value.to_ne_bytes().to_vec()),
        ("ok", vec![u8::from(r.ok)]),
        ("tag", r.tag.0.to_vec()),
        ("name", name),
        ("raw", raw),
        (
            "samples",
            r.samples.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        ),
        ("grid", r.grid.concat()),
        (
            "at",
            [&r.at.x.to_ne_bytes()[..], &r.at.y.to_ne_bytes()].concat(),
        ),
    ]
}

fn packed_fields(p: &Packed) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("id", { p.id }.to_ne_bytes().to_vec()),
        ("value", { p.value }.to_ne_bytes().to_vec()),
        ("ok", vec![u8::from(p.ok)]),
        ("tag", { p.tag }.0.to_vec()),
        ("v", { p.v }.iter().flat_map(|x| x.to_ne_bytes()).collect()),
    ]
}

/// Writes `a` as `name` in `order`; returns the lines numpy should print for it: per field,
/// the file, the field and its native bytes for every record in C order.
fn write<T: ndnpy::WritableElement>(
    dir: &Scratch,
    name: &str,
    a: &ArrayD<T>,
    order: ByteOrder,
    fields: impl Fn(&T) -> Vec<(&'static str, Vec<u8>)>,
) -> Vec<String> {
    a.write_npy_with_options(
        std::fs::File::create(dir.path(name)).unwrap(),
        &WriteOptions::new().byte_order(order),
    )
    .unwrap();
    let mut lines: Vec<(&str, Vec<u8>)> = Vec::new();
    for r in a.iter() {
        for (i, (field, bytes)) in fields(r).into_iter().enumerate() {
            if lines.len() <= i {
                lines.push((field, Vec::new()));
            }
            lines[i].1.extend(bytes);
        }
    }
    lines
        .into_iter()
        .map(|(field, bytes)| format!("{name} {field} {}", hex(&bytes)))
        .collect()
}

/// numpy loads our record arrays, plain and packed, in both byte orders and memory orders,
/// with every field's values (compared as numpy's native bytes: floats bit for bit, strings
/// NUL-padded), and `np.save` of what it loaded gives our exact bytes.
#[test]
fn numpy_loads_the_records_we_write_field_by_field() {
    let dir = Scratch::new("records-oracle");
    let readings = sample(prop::collection::vec(readings(), 12));
    let packeds = sample(prop::collection::vec(packeds(), 12));
    let mut expect = Vec::new();
    for (order, o) in [(ByteOrder::Little, "le"), (ByteOrder::Big, "be")] {
        for (fortran, f) in [(false, "c"), (true, "f")] {
            let a = arrange(&[3, 4], &readings, fortran).unwrap();
            expect.extend(write(
                &dir,
                &format!("r_{o}_{f}.npy"),
                &a,
                order,
                reading_fields,
            ));
            let a = arrange(&[3, 4], &packeds, fortran).unwrap();
            expect.extend(write(
                &dir,
                &format!("p_{o}_{f}.npy"),
                &a,
                order,
                packed_fields,
            ));
        }
    }
    let out = numpy(
        &dir.0,
        r#"
import os
def native(x):
    return x if x.dtype.isnative else x.byteswap().view(x.dtype.newbyteorder())
for name in sorted(os.listdir(d)):
    raw = open(f"{d}/{name}", "rb").read()
    a = np.load(f"{d}/{name}")
    assert a.shape == (3, 4) and a.flags.f_contiguous == name.endswith("_f.npy"), name
    buf = io.BytesIO(); np.save(buf, a)
    assert buf.getvalue() == raw, f"{name}: np.save writes other bytes"
    for field in a.dtype.names:
        print(name, field, native(np.ascontiguousarray(a[field])).tobytes(order="C").hex())
"#,
    );
    let mut got: Vec<&str> = out.lines().collect();
    got.sort();
    expect.sort();
    assert_eq!(got, expect);
}
