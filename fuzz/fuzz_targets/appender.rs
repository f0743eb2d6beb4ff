//! Reopening an arbitrary existing file with `NpyAppender` and appending to it: errors, never
//! panics; after a successful append the file reads back as the old rows plus the new ones.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndarray::{Array1, ArrayD, Axis, IxDyn};
use ndnpy::{NpyAppender, NpyReader, ReadNpyExt};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("ndnpy-fuzz-appender-{}.npy", std::process::id()));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(data))
        .expect("writing the input to a temporary file");
    let before = ArrayD::<i16>::read_npy(data);
    let Ok(mut app) = NpyAppender::<i16>::open(&path) else {
        return;
    };
    let shape = app.shape().to_vec();
    // One step of the growth axis (the last for Fortran order): the shape of a row, all sevens.
    let fortran = NpyReader::new(std::io::Cursor::new(data))
        .map(|r| r.info().header.fortran_order)
        .unwrap_or(false);
    let axis = if fortran { shape.len() - 1 } else { 0 };
    let mut row_shape = shape.clone();
    row_shape[axis] = 1;
    let n: usize = row_shape.iter().product();
    if n > 1 << 16 {
        return;
    }
    let row = Array1::from_elem(n, 7i16)
        .into_shape_with_order(IxDyn(&row_shape))
        .expect("n elements");
    if app.append(&row).is_err() {
        return;
    }
    drop(app);
    let after = ndnpy::read_npy::<_, ArrayD<i16>>(&path).expect("an appended file reads");
    if let Ok(before) = before {
        let old = after.slice_axis(Axis(axis), (0..shape[axis]).into());
        assert_eq!(old, before.view(), "the old rows are kept");
        let new = after.slice_axis(Axis(axis), (shape[axis]..shape[axis] + 1).into());
        assert!(new.iter().all(|&x| x == 7), "the new row is appended");
    }
});
