//! The property tests' common step: generated values arranged in a shape and one of four
//! memory layouts, written in a byte order, then read back two ways and compared.

use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, DynArray, Header, ReadNpyExt, ReadOptions, ReadableElement, WritableElement,
    WriteNpyExt, WriteOptions,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

/// Shapes of up to four dimensions of up to five, zeros included.
pub fn shapes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..6, 0..5)
}

/// Both byte orders.
pub fn orders() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Little), Just(ByteOrder::Big)]
}

/// The layouts [`round_trip`] arranges values in: C order, Fortran order, C order with the
/// axes reversed (an F-contiguous view), and C order with every axis stepped backwards.
pub fn layouts() -> impl Strategy<Value = u8> {
    0u8..4
}

/// A config of `cases` cases, for the properties whose cases cost more than a number's.
pub fn cases(cases: u32) -> Config {
    Config::with_cases(cases)
}

/// One value of `strategy` from a fixed seed: the same on every run.
pub fn sample<S: Strategy>(strategy: S) -> S::Value {
    let mut runner = TestRunner::deterministic();
    strategy.new_tree(&mut runner).unwrap().current()
}

/// `values`, repeated or cut to fill `shape`, as an array in C or Fortran order; `None` if
/// there are no values to fill a shape with elements.
pub fn arrange<T: Clone>(shape: &[usize], values: &[T], fortran: bool) -> Option<ArrayD<T>> {
    let n: usize = shape.iter().product();
    let values: Vec<T> = values.iter().cycle().take(n).cloned().collect();
    if values.len() != n {
        return None;
    }
    Some(if fortran {
        ArrayD::from_shape_vec(IxDyn(shape).f(), values).unwrap()
    } else {
        ArrayD::from_shape_vec(IxDyn(shape), values).unwrap()
    })
}

/// [`round_trip_typed`], and then the runtime-typed read ([`DynArray`]) of the file writes it
/// back byte for byte. Returns the file.
pub fn round_trip<T>(
    shape: &[usize],
    values: &[T],
    layout: u8,
    order: ByteOrder,
    same: impl Fn(&T, &T) -> bool,
) -> Result<Vec<u8>, TestCaseError>
where
    T: ReadableElement + WritableElement + Clone + std::fmt::Debug,
{
    let bytes = round_trip_typed(shape, values, layout, order, same)?;
    let mut again = Vec::new();
    DynArray::read_npy(&bytes[..])
        .unwrap()
        .write_npy(&mut again)
        .unwrap();
    prop_assert!(again == bytes, "a runtime-typed read writes other bytes");
    Ok(bytes)
}

/// Writes `values` (repeated or cut to fill `shape`) arranged in `layout` (see [`layouts`])
/// with `order`, and checks: the header is 64-byte aligned, re-encodes to the same bytes and
/// declares the data's length; and the typed read gives an array of the same shape whose
/// every element is `same` as the one written (`same(read, written)`). Returns the file.
pub fn round_trip_typed<T>(
    shape: &[usize],
    values: &[T],
    layout: u8,
    order: ByteOrder,
    same: impl Fn(&T, &T) -> bool,
) -> Result<Vec<u8>, TestCaseError>
where
    T: ReadableElement + WritableElement + Clone + std::fmt::Debug,
{
    let base = arrange(shape, values, layout == 1);
    prop_assume!(base.is_some());
    let base = base.unwrap();
    let mut view = base.view();
    match layout {
        2 => view = view.reversed_axes(),
        3 => {
            for ax in 0..view.ndim() {
                view.invert_axis(ndarray::Axis(ax));
            }
        }
        _ => {}
    }
    let mut bytes = Vec::new();
    view.write_npy_with_options(&mut bytes, &WriteOptions::new().byte_order(order))
        .unwrap();

    let info = Header::read(&mut &bytes[..], &ReadOptions::default()).unwrap();
    prop_assert_eq!(info.data_offset % 64, 0);
    prop_assert_eq!(
        info.header.to_bytes().unwrap(),
        bytes[..info.data_offset as usize].to_vec()
    );
    prop_assert_eq!(bytes.len() as u64, info.data_offset + info.data_len as u64);

    let back = ArrayD::<T>::read_npy(&bytes[..]).unwrap();
    prop_assert_eq!(back.shape(), view.shape());
    for (read, written) in back.iter().zip(view.iter()) {
        prop_assert!(same(read, written), "{:?} read back as {:?}", written, read);
    }

    Ok(bytes)
}
