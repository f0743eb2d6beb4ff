//! Row ranges and single elements of arbitrary files through `NpyReader`: errors, never
//! panics; rows that read equal the same rows of the whole array.
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use ndarray::{ArrayD, Axis};
use ndnpy::{NpyReader, ReadNpyExt};
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(a), Ok(b), Ok(idx)) = (
        u16::arbitrary(&mut u),
        u16::arbitrary(&mut u),
        Vec::<u8>::arbitrary(&mut u),
    ) else {
        return;
    };
    let file = u.take_rest();
    let Ok(mut reader) = NpyReader::new(Cursor::new(file)) else {
        return;
    };
    let fortran = reader.info().header.fortran_order;
    let (start, end) = (usize::from(a.min(b)), usize::from(a.max(b)));
    let rows = reader.read_rows::<f64, ndarray::IxDyn>(start..end);
    let index: Vec<usize> = idx.iter().map(|&i| usize::from(i)).collect();
    let _ = reader.read_element::<u16>(&index);
    let _ = reader.read_rows::<bool, ndarray::IxDyn>(start..end);
    if let Ok(rows) = rows {
        if let Ok(whole) = ArrayD::<f64>::read_npy(file) {
            let axis = if fortran { whole.ndim() - 1 } else { 0 };
            let part = whole.slice_axis(Axis(axis), (start..end).into());
            let same = rows
                .iter()
                .zip(part.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same && rows.shape() == part.shape());
        }
    }
});
