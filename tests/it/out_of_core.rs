//! Views, memory maps, partial reads, appending and streaming writes, with numpy as the
//! oracle for every file we create or grow.

use ndarray::{
    s, Array1, Array2, Array3, ArrayD, ArrayView1, ArrayView2, ArrayViewD, ArrayViewMut1,
    Dimension, ShapeBuilder,
};
use ndnpy::{
    dtype::ByteOrder, Error, ErrorKind, Fault, NpyAppender, NpyMmap, NpyMmapMut, NpyReader,
    NpyWriter, ReadNpyExt, ViewMutNpyExt, ViewNpyError, ViewNpyExt, WriteNpyExt, WriteOptions,
};
use std::path::{Path, PathBuf};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

use crate::common::{numpy, Scratch};
use crate::error_checks::is_dtype_mismatch;

/// Whether `err` is a usage error whose message is `message`.
fn usage(err: &Error, message: &str) -> bool {
    err.kind() == ErrorKind::Usage && err.to_string() == message
}

/// Whether `err` is an index or range out of bounds (its message gives both).
fn out_of_bounds(err: &Error) -> bool {
    err.fault() == Some(Fault::OutOfBounds)
}

/// Whether `err` is a block of the wrong shape (its message gives both shapes).
fn block_shape(err: &Error) -> bool {
    err.fault() == Some(Fault::BlockShape)
}

const NO_GROWTH_AXIS: &str = "a 0-d array has no axis to read or write in steps";

/// A copy of `bytes` at an address that is `offset` past a 64-byte boundary.
fn at_offset(bytes: &[u8], offset: usize) -> (Vec<u64>, usize) {
    let mut backing = vec![0u64; bytes.len() / 8 + 16];
    let base = backing.as_ptr() as usize;
    let start = (64 - base % 64) % 64 + offset;
    let b: &mut [u8] = bytemuck_bytes(&mut backing);
    b[start..start + bytes.len()].copy_from_slice(bytes);
    (backing, start)
}

fn bytemuck_bytes(v: &mut [u64]) -> &mut [u8] {
    let len = v.len() * 8;
    // SAFETY: u64 has no padding and any byte pattern is a valid u64; the slice covers
    // exactly the vector's initialised elements and inherits its exclusive borrow.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

#[test]
fn views_of_numpy_files_equal_reads() {
    for name in [
        "f8_le_c_2x3.npy",
        "f8_le_f_3x4.npy",
        "i4_le_c_2x3x4.npy",
        "f8_le_e03.npy",
        "u1_na_s_4x3.npy",
        "b1_na_c_2x3.npy",
    ] {
        let bytes = std::fs::read(testdata(name)).unwrap();
        let (mut backing, start) = at_offset(&bytes, 0);
        let buf = &bytemuck_bytes(&mut backing)[start..start + bytes.len()];
        match name.as_bytes()[0] {
            b'f' => {
                let v = ArrayViewD::<f64>::view_npy(buf).unwrap();
                let r = ArrayD::<f64>::read_npy(&bytes[..]).unwrap();
                assert_eq!(v.shape(), r.shape());
                assert_eq!(v.strides(), r.strides(), "{name}: same layout");
                assert!(v
                    .iter()
                    .zip(r.iter())
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
            }
            b'i' => assert_eq!(
                ArrayViewD::<i32>::view_npy(buf).unwrap(),
                ArrayD::<i32>::read_npy(&bytes[..]).unwrap()
            ),
            b'u' => assert_eq!(
                ArrayViewD::<u8>::view_npy(buf).unwrap(),
                ArrayD::<u8>::read_npy(&bytes[..]).unwrap()
            ),
            _ => assert_eq!(
                ArrayViewD::<bool>::view_npy(buf).unwrap(),
                ArrayD::<bool>::read_npy(&bytes[..]).unwrap()
            ),
        }
    }
}

#[test]
fn view_errors_are_distinct() {
    let le = std::fs::read(testdata("f8_le_c_5.npy")).unwrap();
    let (mut backing, start) = at_offset(&le, 0);
    let all = bytemuck_bytes(&mut backing);
    let good = &all[start..start + le.len()];
    let view = ArrayView1::<f64>::view_npy(good).unwrap();
    let read: ndarray::Array1<f64> = crate::own::read(&le[..]).unwrap();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&view.to_vec()), bits(&read.to_vec())); // NaN among them
                                                            // Too short, and too long.
                                                            // ndarray-npy's variants: the counts of bytes missing and extra.
    let err = ArrayView1::<f64>::view_npy(&good[..good.len() - 1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert!(matches!(err, ViewNpyError::MissingBytes(1)), "{err:?}");
    let err = ArrayView1::<f64>::view_npy(&all[start..start + le.len() + 3]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TrailingBytes);
    assert!(matches!(err, ViewNpyError::ExtraBytes(3)), "{err:?}");
    // Big-endian data cannot be viewed in place.
    let be = std::fs::read(testdata("f8_be_c_5.npy")).unwrap();
    let (mut backing_be, start_be) = at_offset(&be, 0);
    let be_buf = &bytemuck_bytes(&mut backing_be)[start_be..start_be + be.len()];
    let err = ArrayView1::<f64>::view_npy(be_buf).unwrap_err();
    assert!(matches!(err, ViewNpyError::NonNativeEndian), "{err:?}");
    // Misaligned data, at every offset that breaks f64 alignment.
    for off in 1..8 {
        let (mut b, s) = at_offset(&le, off);
        let buf = &bytemuck_bytes(&mut b)[s..s + le.len()];
        let err = ArrayView1::<f64>::view_npy(buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::CannotView, "offset {off}");
        assert!(matches!(err, ViewNpyError::MisalignedData), "{err:?}");
        // u8 views do not care about alignment.
        let u = std::fs::read(testdata("u1_na_c_5.npy")).unwrap();
        let (mut b, s) = at_offset(&u, off);
        let view = ArrayView1::<u8>::view_npy(&bytemuck_bytes(&mut b)[s..s + u.len()]).unwrap();
        assert_eq!(
            view.as_slice(),
            Some(&u[u.len() - view.len()..]),
            "offset {off}"
        );
    }
    // Wrong type and wrong dimension.
    let err = ndnpy::Error::from(ArrayView1::<f32>::view_npy(good).unwrap_err());
    assert!(is_dtype_mismatch(&err), "{err:?}");
    let err = ArrayView2::<f64>::view_npy(good).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim);
    // Bool bytes other than 0 and 1.
    let mut bools = Vec::new();
    ndarray::array![true, false, true]
        .write_npy(&mut bools)
        .unwrap();
    bools[129] = 7;
    // ndarray-npy's message, then which element (`messages`).
    let err = ArrayView1::<bool>::view_npy(&bools).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData);
    assert_eq!(Error::from(err).element_index(), Some(1));
    let err = ArrayViewMut1::<bool>::view_mut_npy(&mut bools).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData);
    assert_eq!(Error::from(err).element_index(), Some(1));
    // Empty arrays view fine even from an odd address.
    let mut empty = vec![0u8];
    Array1::<f64>::zeros(0).write_npy(&mut empty).unwrap();
    assert_eq!(ArrayView1::<f64>::view_npy(&empty[1..]).unwrap().len(), 0);
}

#[test]
fn mutable_views_write_through() {
    let mut bytes = Vec::new();
    Array2::<i64>::zeros((2, 3).f())
        .write_npy(&mut bytes)
        .unwrap();
    {
        let mut v = ndarray::ArrayViewMut2::<i64>::view_mut_npy(&mut bytes).unwrap();
        v[[1, 2]] = 42;
    }
    let back = Array2::<i64>::read_npy(&bytes[..]).unwrap();
    assert_eq!(back[[1, 2]], 42);
    assert_eq!(back.sum(), 42);
}

#[test]
fn memory_maps_read_write_copy_on_write_and_create() {
    let dir = Scratch::new("mmap");
    // Read-only map of a numpy file.
    // SAFETY: the fixture is not modified while mapped.
    let map = unsafe { NpyMmap::open(testdata("i4_le_c_2x3x4.npy")) }.unwrap();
    let want: Array3<i32> = ndnpy::read_npy(testdata("i4_le_c_2x3x4.npy")).unwrap();
    assert_eq!(map.view::<i32, ndarray::Ix3>().unwrap(), want);

    // r+: changes persist.
    let path = dir.path("rw.npy");
    std::fs::copy(testdata("f8_le_f_3x4.npy"), &path).unwrap();
    {
        // SAFETY: the scratch file is private to this test.
        let mut m = unsafe { NpyMmapMut::open(&path) }.unwrap();
        m.view_mut::<f64, ndarray::Ix2>().unwrap()[[2, 3]] = 123.0;
        m.flush().unwrap();
    }
    let back: Array2<f64> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(back[[2, 3]], 123.0);

    // c: changes stay in memory.
    {
        // SAFETY: as above.
        let mut m = unsafe { NpyMmapMut::open_copy_on_write(&path) }.unwrap();
        m.view_mut::<f64, ndarray::Ix2>().unwrap()[[2, 3]] = -1.0;
        assert_eq!(m.view::<f64, ndarray::Ix2>().unwrap()[[2, 3]], -1.0);
        m.flush().unwrap();
    }
    let back: Array2<f64> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(back[[2, 3]], 123.0);

    // w+: C and Fortran, byte-identical to np.save of zeros, loadable with mmap_mode.
    for (name, fortran) in [("c.npy", false), ("f.npy", true)] {
        let p = dir.path(name);
        // SAFETY: as above.
        let mut m = if fortran {
            unsafe { NpyMmapMut::create::<f32, _>(&p, (4, 5).f()) }.unwrap()
        } else {
            unsafe { NpyMmapMut::create::<f32, _>(&p, (4, 5)) }.unwrap()
        };
        assert_eq!(m.info().header.fortran_order, fortran);
        m.view_mut::<f32, ndarray::Ix2>().unwrap()[[3, 1]] = 2.5;
        m.flush().unwrap();
    }
    let out = numpy(
        &dir.0,
        r#"
import io
for name, order in [("c.npy", "C"), ("f.npy", "F")]:
    a = np.load(f"{d}/{name}", mmap_mode="r")
    assert a.shape == (4, 5) and a.dtype == np.float32 and a[3, 1] == 2.5 and a.sum() == 2.5
    z = np.zeros((4, 5), np.float32, order=order); z[3, 1] = 2.5
    buf = io.BytesIO(); np.save(buf, z)
    assert buf.getvalue() == open(f"{d}/{name}", "rb").read(), name
    m = np.load(f"{d}/{name}", mmap_mode="r+"); m[0, 0] = 1; m.flush()
print("ok")
"#,
    );
    assert_eq!(out, "ok");
    let back: Array2<f32> = ndnpy::read_npy(dir.path("f.npy")).unwrap();
    assert_eq!(back[[0, 0]], 1.0);

    // A truncated file is refused at open.
    let bytes = std::fs::read(testdata("f8_le_c_2x3.npy")).unwrap();
    std::fs::write(dir.path("short.npy"), &bytes[..bytes.len() - 8]).unwrap();
    // SAFETY: as above.
    let err = unsafe { NpyMmap::open(dir.path("short.npy")) }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
}

#[test]
fn write_zeroed_npy_matches_numpy_in_both_orders() {
    let dir = Scratch::new("zeroed");
    let f = std::fs::File::create(dir.path("c.npy")).unwrap();
    ndnpy::write_zeroed_npy::<u16, _>(&f, (3, 2, 4)).unwrap();
    let f = std::fs::File::create(dir.path("f.npy")).unwrap();
    ndnpy::write_zeroed_npy::<Complexish, _>(&f, (3, 2).f()).unwrap();
    let out = numpy(
        &dir.0,
        r#"
import io
for name, arr in [("c.npy", np.zeros((3, 2, 4), "<u2")), ("f.npy", np.zeros((3, 2), "<c16", order="F"))]:
    buf = io.BytesIO(); np.save(buf, arr)
    assert buf.getvalue() == open(f"{d}/{name}", "rb").read(), name
print("ok")
"#,
    );
    assert_eq!(out, "ok");
}

type Complexish = num_complex::Complex<f64>;

#[test]
fn partial_reads_match_slices_of_full_reads() {
    for name in [
        "i4_le_c_2x3x4.npy",
        "i4_be_c_2x3x4.npy",
        "i4_le_f_3x4.npy",
        "i4_be_f_3x4.npy",
        "i4_le_c_5.npy",
    ] {
        let full: ArrayD<i32> = ndnpy::read_npy(testdata(name)).unwrap();
        let mut r = NpyReader::new(std::fs::File::open(testdata(name)).unwrap()).unwrap();
        let fortran = r.info().header.fortran_order;
        let axis = if fortran { full.ndim() - 1 } else { 0 };
        let len = full.shape()[axis];
        for a in 0..=len {
            for b in a..=len {
                let part: ArrayD<i32> = r.read_rows(a..b).unwrap();
                assert_eq!(
                    part,
                    full.slice_axis(ndarray::Axis(axis), (a..b).into()),
                    "{name} {a}..{b}"
                );
                assert_eq!(
                    part.t().is_standard_layout() && part.ndim() > 1 && part.len() > 1,
                    fortran && part.len() > 1 && part.ndim() > 1
                );
            }
        }
        #[allow(clippy::reversed_empty_ranges)]
        let bad = 2..1;
        let err = r.read_rows::<i32, ndarray::IxDyn>(bad).unwrap_err();
        assert!(out_of_bounds(&err), "{err:?}");
        let err = r.read_rows::<i32, ndarray::IxDyn>(0..len + 1).unwrap_err();
        assert!(out_of_bounds(&err), "{err:?}");
        for (idx, &v) in full.indexed_iter() {
            assert_eq!(
                r.read_element::<i32>(idx.slice()).unwrap(),
                v,
                "{name} {idx:?}"
            );
        }
        let mut bad_index = vec![0; full.ndim()];
        bad_index[0] = full.shape()[0];
        // Past the end of the first axis, and an index of the wrong length.
        for bad in [&bad_index[..], &[]] {
            let err = r.read_element::<i32>(bad).unwrap_err();
            assert!(out_of_bounds(&err), "{name} {bad:?}: {err:?}");
        }
    }
    let mut zero_d =
        NpyReader::new(std::fs::File::open(testdata("f8_le_0d.npy")).unwrap()).unwrap();
    assert!(zero_d.read_element::<f64>(&[]).unwrap().is_nan());
    let err = zero_d.read_rows::<f64, ndarray::IxDyn>(0..0).unwrap_err();
    assert!(usage(&err, NO_GROWTH_AXIS), "{err:?}");
}

#[test]
fn appender_grows_c_and_fortran_files_numpy_loads() {
    let dir = Scratch::new("append");
    // C order, created here, rows of 3, native and big-endian reopened from numpy.
    let mut app = NpyAppender::<f64>::create(dir.path("c.npy"), (0, 3), false).unwrap();
    let mut want = Array2::<f64>::zeros((0, 3));
    for i in 0..50 {
        let block = Array2::from_shape_fn((i % 4, 3), |(r, c)| (i * 100 + r * 10 + c) as f64);
        app.append(&block.t().t()).unwrap();
        want.append(ndarray::Axis(0), block.view()).unwrap();
    }
    // A non-contiguous block and a single row.
    let wide = Array2::from_shape_fn((3, 6), |(r, c)| (r * 6 + c) as f64);
    app.append(&wide.slice(s![.., ..;2])).unwrap();
    want.append(ndarray::Axis(0), wide.slice(s![.., ..;2]))
        .unwrap();
    app.append(&ndarray::array![7.0, 8.0, 9.0]).unwrap();
    want.push_row(ndarray::array![7.0, 8.0, 9.0].view())
        .unwrap();
    let err = app.append(&ndarray::array![[1.0, 2.0]]).unwrap_err();
    assert!(block_shape(&err), "{err:?}");
    assert_eq!(app.shape(), want.shape());
    assert_eq!(
        ndnpy::read_npy::<_, Array2<f64>>(dir.path("c.npy")).unwrap(),
        want
    );

    // Fortran order: grows along the last axis.
    let mut app = NpyAppender::<i16>::create(dir.path("f.npy"), (2, 0), true).unwrap();
    app.append(&ndarray::array![[1i16, 2, 3], [4, 5, 6]])
        .unwrap();
    app.append(&ndarray::array![7i16, 8]).unwrap();
    assert_eq!(app.shape(), [2, 4]);

    // A big-endian file numpy wrote, grown past 10 and 100 rows (more digits in the shape).
    std::fs::copy(testdata("i4_be_c_2x3x4.npy"), dir.path("be.npy")).unwrap();
    let mut app = NpyAppender::<i32>::open(dir.path("be.npy")).unwrap();
    for i in 0..120 {
        app.append(&Array3::<i32>::from_elem((1, 3, 4), i)).unwrap();
    }
    let err = NpyAppender::<f32>::open(dir.path("be.npy")).unwrap_err();
    assert!(err.kind().is_mismatch(), "{err:?}");
    let err = NpyAppender::<f32>::open(testdata("f4_le_0d.npy")).unwrap_err();
    assert!(usage(&err, NO_GROWTH_AXIS), "{err:?}");

    let out = numpy(
        &dir.0,
        r#"
import io
for name in ["c.npy", "f.npy", "be.npy"]:
    for mode in [None, "r"]:
        a = np.load(f"{d}/{name}", mmap_mode=mode)
    b = np.load(f"{d}/{name}")
    buf = io.BytesIO(); np.save(buf, b)
    assert buf.getvalue() == open(f"{d}/{name}", "rb").read(), name
    print(name, b.shape, b.dtype.str, bool(b.flags.f_contiguous and not b.flags.c_contiguous), int(b.sum()))
"#,
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "c.npy {:?} <f8 False {}",
            (want.nrows(), 3),
            want.sum() as i64
        )
        .replace("(", "(")
        .as_str()
    );
    assert_eq!(lines[1], "f.npy (2, 4) <i2 True 36");
    let be_sum: i64 = ndnpy::read_npy::<_, Array3<i32>>(testdata("i4_be_c_2x3x4.npy"))
        .unwrap()
        .iter()
        .map(|&x| x as i64)
        .sum::<i64>()
        + 12 * (0..120).sum::<i64>();
    assert_eq!(lines[2], format!("be.npy (122, 3, 4) >i4 False {be_sum}"));
}

#[test]
fn appender_rewrites_headers_without_room_safely() {
    let dir = Scratch::new("noroom");
    // A compact 64-byte header (no growth padding) that the canonical one cannot replace.
    let text = b"{'descr':'<i4','fortran_order':False,'shape':(9,)}";
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 64 - 10 - text.len() - 1;
    f.extend_from_slice(&((text.len() + pad + 1) as u16).to_le_bytes());
    f.extend_from_slice(text);
    f.extend(std::iter::repeat_n(b' ', pad));
    f.push(b'\n');
    assert_eq!(f.len(), 64);
    for i in 0..9i32 {
        f.extend_from_slice(&i.to_le_bytes());
    }
    let path = dir.path("compact.npy");
    std::fs::write(&path, &f).unwrap();
    let mut app = NpyAppender::<i32>::open(&path).unwrap();
    app.append(&ndarray::array![9, 10]).unwrap();
    app.append(&ndarray::array![11]).unwrap();
    let back: Array1<i32> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(back, Array1::from_iter(0..12));
    // Rewritten in numpy's own layout, and no temporary files left behind.
    let bytes = std::fs::read(&path).unwrap();
    let mut canonical = Vec::new();
    back.write_npy(&mut canonical).unwrap();
    assert_eq!(bytes, canonical);
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);
}

#[test]
fn appender_crash_at_any_point_leaves_old_or_new_shape() {
    let dir = Scratch::new("crash");
    let path = dir.path("a.npy");
    let mut app = NpyAppender::<u32>::create(&path, (0, 2), false).unwrap();
    app.append(&ndarray::array![[1u32, 2], [3, 4]]).unwrap();
    let before = std::fs::read(&path).unwrap();
    app.append(&Array2::<u32>::from_shape_fn((12, 2), |(r, c)| {
        (r * 2 + c) as u32 + 100
    }))
    .unwrap();
    let after = std::fs::read(&path).unwrap();
    let old: Array2<u32> = Array2::read_npy(&before[..]).unwrap();
    let new: Array2<u32> = Array2::read_npy(&after[..]).unwrap();
    assert_eq!((old.nrows(), new.nrows()), (2, 14));
    let header_len = 128;
    assert_eq!(before[..header_len].len(), after[..header_len].len());

    // Step 1 interrupted after k bytes of data: old header, partial new data.
    let mut states = Vec::new();
    for k in (before.len()..=after.len())
        .step_by(4)
        .chain([before.len() + 1, after.len() - 1])
    {
        let mut s = before[..header_len].to_vec();
        s.extend_from_slice(&after[header_len..k]);
        states.push((s, 2usize));
    }
    // Step 2 done: the new header over complete data.
    states.push((after.clone(), 14));
    for (i, (state, rows)) in states.iter().enumerate() {
        let a = Array2::<u32>::read_npy(&state[..]).unwrap_or_else(|e| panic!("state {i}: {e}"));
        assert_eq!(a.nrows(), *rows, "state {i}");
        assert_eq!(a.slice(s![..2, ..]), old);
        std::fs::write(dir.path(&format!("state{i}.npy")), state).unwrap();
    }
    let out = numpy(
        &dir.0,
        &format!(
            r#"
import glob
rows = {rows:?}
for i, r in enumerate(rows):
    for mode in [None, "r"]:
        a = np.load(f"{{d}}/state{{i}}.npy", mmap_mode=mode)
        assert a.shape == (r, 2), (i, a.shape)
        assert a[:2].tolist() == [[1, 2], [3, 4]]
print("ok", len(rows))
"#,
            rows = states.iter().map(|s| s.1).collect::<Vec<_>>()
        ),
    );
    assert_eq!(out, format!("ok {}", states.len()));
}

#[test]
fn streaming_writer_checks_counts_and_matches_write_npy() {
    // C order, rows at a time.
    let full = Array2::from_shape_fn((5, 3), |(r, c)| (r * 3 + c) as f32);
    let mut w = NpyWriter::<_, f32>::new(Vec::new(), (5, 3)).unwrap();
    for row in full.rows() {
        w.write_block(&row).unwrap();
    }
    let mut want = Vec::new();
    full.write_npy(&mut want).unwrap();
    assert_eq!(w.finish().unwrap(), want);

    // Fortran order, big-endian, columns at a time.
    let mut full_f = Array2::<f32>::zeros((5, 3).f());
    full_f.assign(&full);
    let opts = WriteOptions::new().byte_order(ByteOrder::Big);
    let mut w = NpyWriter::<_, f32>::with_options(Vec::new(), (5, 3).f(), &opts).unwrap();
    w.write_block(&full_f.slice(s![.., 0..2])).unwrap();
    w.write_block(&full_f.column(2)).unwrap();
    let mut want = Vec::new();
    full_f.write_npy_with_options(&mut want, &opts).unwrap();
    assert_eq!(w.finish().unwrap(), want);

    // Too many, too few, wrong shape.
    let mut w = NpyWriter::<_, u8>::new(Vec::new(), (2, 2)).unwrap();
    w.write_slice(&[1, 2, 3]).unwrap();
    let err = w.write_slice(&[4, 5]).unwrap_err();
    assert!(
        usage(&err, "the array has 4 elements; 5 were written"),
        "{err:?}"
    );
    let err = w.write_block(&ndarray::array![1u8, 2, 3]).unwrap_err();
    assert!(block_shape(&err), "{err:?}");
    let err = w.finish().unwrap_err();
    assert!(
        usage(&err, "the array has 4 elements; 3 were written"),
        "{err:?}"
    );
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let le = std::fs::read(testdata("f8_le_c_5.npy")).unwrap();
    let (mut backing, start) = at_offset(&le, 0);
    let all = bytemuck_bytes(&mut backing);
    let short = &all[start..start + le.len() - 1];
    let mut bools = Vec::new();
    ndarray::array![true, false, true]
        .write_npy(&mut bools)
        .unwrap();
    bools[129] = 7;
    // ndarray-npy's message, then which element.
    let bad_bool = "invalid data for element type: error parsing value 0x07 as a bool: element 1; \
                    a bool is 0x00 or 0x01";
    vec![
        Message::is(
            "a view of too few bytes",
            ArrayView1::<f64>::view_npy(short).unwrap_err(),
            "missing 1 bytes of data specified in header",
        ),
        Message::is(
            "a view of a bad bool",
            ArrayView1::<bool>::view_npy(&bools).unwrap_err(),
            bad_bool,
        ),
        Message::is(
            "a mutable view of a bad bool",
            ArrayViewMut1::<bool>::view_mut_npy(&mut bools.clone()).unwrap_err(),
            bad_bool,
        ),
    ]
}
