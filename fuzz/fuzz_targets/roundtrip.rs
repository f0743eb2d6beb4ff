//! Encode -> decode equality: any array we write, in any layout and byte order, reads back
//! equal (bitwise for floats) through a reader; numbers in native order also view in place
//! (or are refused as misaligned, never as anything else); and DynArray reads the bytes and
//! writes them back unchanged.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, DynArray, ErrorKind, ReadNpyExt, ViewNpyExt, WriteNpyExt, WriteOptions,
};

#[derive(Arbitrary, Debug)]
struct Case {
    dims: Vec<u8>,
    fortran: bool,
    reverse_axes: bool,
    invert_first: bool,
    big_endian: bool,
    kind: u8,
    values: Vec<u64>,
    strings: Vec<String>,
}

fn run<T: ndnpy::ReadableElement + ndnpy::WritableElement + Clone + std::fmt::Debug>(
    c: &Case,
    make: impl Fn(u64) -> T,
    same: impl Fn(&T, &T) -> bool,
) -> Option<(Vec<u8>, ArrayD<T>)> {
    let shape: Vec<usize> = c.dims.iter().take(4).map(|d| (*d % 5) as usize).collect();
    let n: usize = shape.iter().product();
    if c.values.is_empty() && n > 0 {
        return None;
    }
    let values: Vec<T> = (0..n).map(|i| make(c.values[i % c.values.len()])).collect();
    let base = if c.fortran {
        ArrayD::from_shape_vec(IxDyn(&shape).f(), values).unwrap()
    } else {
        ArrayD::from_shape_vec(IxDyn(&shape), values).unwrap()
    };
    let mut view = base.view();
    if c.reverse_axes {
        view = view.reversed_axes();
    }
    if c.invert_first && view.ndim() > 0 {
        view.invert_axis(ndarray::Axis(0));
    }
    let order = if c.big_endian {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };
    let mut bytes = Vec::new();
    view.write_npy_with_options(&mut bytes, &WriteOptions::new().byte_order(order))
        .unwrap();
    let back = ArrayD::<T>::read_npy(&bytes[..]).unwrap();
    assert_eq!(back.shape(), view.shape());
    assert!(back.iter().zip(view.iter()).all(|(a, b)| same(a, b)));
    let dynamic = DynArray::read_npy(&bytes[..]).unwrap();
    let mut again = Vec::new();
    dynamic.write_npy(&mut again).unwrap();
    assert_eq!(again, bytes);
    Some((bytes, back))
}

/// Runs `run` for a number type, then views the bytes in place when they are in native order.
fn run_viewed<T>(c: &Case, make: impl Fn(u64) -> T, same: impl Fn(&T, &T) -> bool)
where
    T: ndnpy::ReadableElement
        + ndnpy::WritableElement
        + ndnpy::ViewElement
        + Clone
        + std::fmt::Debug,
{
    let Some((bytes, back)) = run(c, make, &same) else {
        return;
    };
    if c.big_endian != (ByteOrder::NATIVE == ByteOrder::Big) {
        return;
    }
    match ArrayViewD::<T>::view_npy(&bytes) {
        Ok(view) => {
            assert_eq!(view.shape(), back.shape());
            assert!(view.iter().zip(back.iter()).all(|(a, b)| same(a, b)));
        }
        Err(e) if e.kind() == ErrorKind::CannotView => {}
        Err(e) => panic!("a native-order array we wrote did not view: {e}"),
    }
}

fuzz_target!(|c: Case| {
    match c.kind % 7 {
        0 => run_viewed(&c, f64::from_bits, |a: &f64, b: &f64| {
            a.to_bits() == b.to_bits()
        }),
        1 => run_viewed(&c, |v| v as i32, |a, b| a == b),
        2 => run_viewed(&c, |v| v & 1 == 1, |a, b| a == b),
        3 => run_viewed(
            &c,
            |v| f32::from_bits(v as u32),
            |a: &f32, b: &f32| a.to_bits() == b.to_bits(),
        ),
        4 => run_viewed(&c, |v| v as u16, |a, b| a == b),
        5 => {
            let strings = c.strings.clone();
            if strings.is_empty() {
                return;
            }
            let k = strings.len() as u64;
            run(
                &c,
                move |v| strings[(v % k) as usize].trim_end_matches('\0').to_string(),
                |a, b| a == b,
            );
        }
        _ => run_viewed(&c, |v| (v % 251) as i8, |a, b| a == b),
    }
});
