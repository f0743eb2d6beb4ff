//! Reads into memory the caller owns (`read_npy_into`, `ReadOptions::read_into`,
//! `NpyReader::read_into`, `read_rows_into`, `read_slice_into`, `NpzMember::read_into`,
//! `read_slice_into`): numpy writes the arrays and slices them; every door fills buffers in C
//! order, Fortran order, a strided view and a reversed view with what numpy's slicing holds.
//! A buffer of the wrong shape is refused before anything is read and left as it was.

use std::fs::File;
use std::io::{BufReader, Cursor};

use ndarray::{s, ArrayD, ArrayViewMutD, IxDyn, ShapeBuilder, Slice, SliceInfoElem};
use ndnpy::{read_npy, read_npy_into, ErrorKind, Fault, NpyReader, NpzReader, ReadOptions};

use crate::common::{numpy, Scratch};

#[derive(ndnpy::NpyRecord, Debug, Clone, PartialEq, Default)]
struct Rec {
    x: i32,
    #[npy(len = 3)]
    s: Vec<u8>,
    t: f64,
}

/// Calls `f` with buffers of `shape` filled with `fill`, laid out four ways: C order,
/// Fortran order, every other element of a larger array, and C order with every axis
/// reversed.
fn each_buffer<A: Clone>(shape: &[usize], fill: &A, mut f: impl FnMut(&str, ArrayViewMutD<'_, A>)) {
    let mut c = ArrayD::from_elem(IxDyn(shape), fill.clone());
    f("C", c.view_mut());
    let mut fortran = ArrayD::from_elem(IxDyn(shape).f(), fill.clone());
    f("Fortran", fortran.view_mut());
    let larger: Vec<usize> = shape.iter().map(|&n| 2 * n + 1).collect();
    let mut larger = ArrayD::from_elem(IxDyn(&larger), fill.clone());
    f(
        "strided",
        larger.slice_each_axis_mut(|_| Slice::new(1, None, 2)),
    );
    let mut reversed = ArrayD::from_elem(IxDyn(shape), fill.clone());
    f(
        "reversed",
        reversed.slice_each_axis_mut(|_| Slice::new(0, None, -1)),
    );
}

/// A read into the buffer it is given.
type Door<'d, A> = &'d mut dyn FnMut(ArrayViewMutD<'_, A>) -> Result<(), ndnpy::Error>;

/// The selections read into buffers, on arrays of shape (4, 5, 6), with numpy's spelling.
fn selections() -> Vec<(Vec<SliceInfoElem>, &'static str)> {
    vec![
        (s![1..3, .., ..].as_ref().to_vec(), "1:3, :, :"),
        (
            s![..;2, 1..5;3, ..;-2].as_ref().to_vec(),
            "::2, 1:5:3, 5::-2",
        ),
        (s![2, .., 4].as_ref().to_vec(), "2, :, 4"),
        (s![3..3, .., ..].as_ref().to_vec(), "3:3, :, :"),
    ]
}

const ARRAYS: &str = r#"{
    'c': (np.arange(120, dtype='<f8') * 0.5 - 7).reshape(4, 5, 6),
    'f': np.asfortranarray((np.arange(120, dtype='<f8') * 0.5 - 7).reshape(4, 5, 6)),
    'be': np.asfortranarray(np.arange(120, dtype='>i4').reshape(4, 5, 6) - 60),
    'u': np.array([chr(0x3b1 + i % 20) * (i % 4) for i in range(120)], dtype='<U3').reshape(4, 5, 6),
    'rec': np.array([(i, b'ab'[: i % 3], i / 4) for i in range(120)],
                    dtype=[('x', '<i4'), ('s', 'S3'), ('t', '>f8')]).reshape(4, 5, 6),
    'b': (np.arange(120) % 3 == 0).reshape(4, 5, 6),
}"#;

/// Has numpy write each array of [`ARRAYS`] to `{name}.npy`, its selections to
/// `{name}_{k}.npy`, its rows 1..3 along the growth axis to `{name}_rows.npy`, and all of
/// them to `stored.npz` and `deflated.npz`.
fn write_with_numpy(dir: &Scratch) {
    let sels: Vec<String> = selections()
        .iter()
        .map(|(_, py)| format!("np.s_[{py}]"))
        .collect();
    numpy(
        &dir.path(""),
        &format!(
            r#"
import os
sels = [{sels}]
arrays = {ARRAYS}
for name, arr in arrays.items():
    np.save(os.path.join(d, name + '.npy'), arr)
    for k, sel in enumerate(sels):
        np.save(os.path.join(d, f'{{name}}_{{k}}.npy'), arr[sel])
    rows = arr[..., 1:3] if arr.flags.f_contiguous and not arr.flags.c_contiguous else arr[1:3]
    np.save(os.path.join(d, name + '_rows.npy'), rows)
np.savez(os.path.join(d, 'stored.npz'), **arrays)
np.savez_compressed(os.path.join(d, 'deflated.npz'), **arrays)
"#,
            sels = sels.join(", ")
        ),
    );
}

/// Reads the array `name` through every door into every kind of buffer, and its rows and
/// selections through every door that reads them, comparing each with numpy's.
fn every_door<A>(dir: &Scratch, name: &str, fill: A)
where
    A: ndnpy::ReadableElement + Clone + PartialEq + std::fmt::Debug,
{
    let path = dir.path(&format!("{name}.npy"));
    let bytes = std::fs::read(&path).unwrap();
    let mut stored = NpzReader::open(dir.path("stored.npz")).unwrap();
    let mut deflated = NpzReader::open(dir.path("deflated.npz")).unwrap();
    let opts = ReadOptions::new();

    let whole: ArrayD<A> = read_npy(&path).unwrap();
    each_buffer(whole.shape(), &fill, |layout, mut out| {
        let doors: [(&str, Door<'_, A>); 8] = [
            ("path", &mut |o| read_npy_into(&path, o)),
            ("File", &mut |o| {
                opts.read_into(File::open(&path).unwrap(), o)
            }),
            ("BufReader", &mut |o| {
                opts.read_into(BufReader::new(File::open(&path).unwrap()), o)
            }),
            ("bytes", &mut |o| opts.read_into(&bytes[..], o)),
            ("NpyReader over a file", &mut |o| {
                NpyReader::new(File::open(&path).unwrap())?.read_into(o)
            }),
            ("NpyReader over bytes", &mut |o| {
                NpyReader::new(Cursor::new(&bytes[..]))?.read_into(o)
            }),
            ("stored member", &mut |o| stored.member(name)?.read_into(o)),
            ("deflated member", &mut |o| {
                deflated.member(name)?.read_into(o)
            }),
        ];
        for (door, read) in doors {
            out.fill(fill.clone());
            read(out.view_mut()).unwrap_or_else(|e| panic!("{name} by {door} into {layout}: {e}"));
            assert_eq!(out, whole, "{name} by {door} into a {layout} buffer");
        }
    });

    let rows: ArrayD<A> = read_npy(dir.path(&format!("{name}_rows.npy"))).unwrap();
    each_buffer(rows.shape(), &fill, |layout, mut out| {
        let mut npy = NpyReader::new(File::open(&path).unwrap()).unwrap();
        npy.read_rows_into(1..3, out.view_mut()).unwrap();
        assert_eq!(out, rows, "{name} rows into a {layout} buffer");
    });

    for (k, (sel, py)) in selections().iter().enumerate() {
        let want: ArrayD<A> = read_npy(dir.path(&format!("{name}_{k}.npy"))).unwrap();
        let sel = &sel[..];
        each_buffer(want.shape(), &fill, |layout, mut out| {
            let doors: [(&str, Door<'_, A>); 4] = [
                ("file", &mut |o| {
                    NpyReader::new(File::open(&path).unwrap())?.read_slice_into(sel, o)
                }),
                ("bytes", &mut |o| {
                    NpyReader::new(Cursor::new(&bytes[..]))?.read_slice_into(sel, o)
                }),
                ("stored member", &mut |o| {
                    stored.member(name)?.read_slice_into(sel, o)
                }),
                ("deflated member", &mut |o| {
                    deflated.member(name)?.read_slice_into(sel, o)
                }),
            ];
            for (door, read) in doors {
                out.fill(fill.clone());
                read(out.view_mut()).unwrap();
                assert_eq!(out, want, "{name}[{py}] from {door} into a {layout} buffer");
            }
        });
    }
}

#[test]
fn every_door_fills_every_buffer_layout_with_what_numpy_holds() {
    let dir = Scratch::new("read-into");
    write_with_numpy(&dir);
    every_door::<f64>(&dir, "c", f64::NAN);
    every_door::<f64>(&dir, "f", f64::NAN);
    every_door::<i32>(&dir, "be", i32::MIN);
    every_door::<String>(&dir, "u", "unset".to_string());
    every_door::<Rec>(&dir, "rec", Rec::default());
    every_door::<bool>(&dir, "b", true);
}

#[test]
fn a_buffer_of_another_shape_or_type_is_refused_and_left_as_it_was() {
    let dir = Scratch::new("read-into-mismatch");
    write_with_numpy(&dir);
    let path = dir.path("c.npy");
    let mut stored = NpzReader::open(dir.path("stored.npz")).unwrap();
    let mut deflated = NpzReader::open(dir.path("deflated.npz")).unwrap();
    for shape in [&[4, 5][..], &[4, 6, 5], &[5, 4, 6], &[120]] {
        let mut buffer = ArrayD::from_elem(IxDyn(shape), 9.0f64);
        let errors = [
            read_npy_into(&path, buffer.view_mut()).unwrap_err(),
            stored
                .member("c")
                .unwrap()
                .read_into(buffer.view_mut())
                .unwrap_err(),
            deflated
                .member("c")
                .unwrap()
                .read_into(buffer.view_mut())
                .unwrap_err(),
            NpyReader::new(File::open(&path).unwrap())
                .unwrap()
                .read_slice_into(s![.., .., ..], buffer.view_mut())
                .unwrap_err(),
        ];
        for err in errors {
            assert_eq!(err.kind(), ErrorKind::Shape, "{err}");
            assert!(err.kind().is_mismatch());
            assert_eq!(err.fault(), Some(Fault::ShapeMismatch));
            assert_eq!(err.shape(), Some(&[4, 5, 6][..]));
            assert!(
                buffer.iter().all(|&x| x == 9.0),
                "{shape:?} changed on {err}"
            );
        }
    }
    let err = read_npy_into(&path, ArrayD::<f64>::zeros(IxDyn(&[4, 6])).view_mut()).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::ShapeMismatch), "{err}");
    let err = stored
        .member("c")
        .unwrap()
        .read_into(ArrayD::<f64>::zeros(IxDyn(&[1])).view_mut())
        .unwrap_err();
    assert_eq!(err.member(), Some("c.npy"));

    // Another element type: the dtype's mismatch, as an allocating read gives.
    let mut ints = ArrayD::<i64>::zeros(IxDyn(&[4, 5, 6]));
    let err = read_npy_into(&path, ints.view_mut()).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::DType));
    let err = deflated
        .member("c")
        .unwrap()
        .read_into(ints.view_mut())
        .unwrap_err();
    assert_eq!(err.fault(), Some(Fault::DType));

    // A file cut short: truncated, counting the bytes of the whole data (960) and those
    // that arrived, straight into the buffer or through parts (a Fortran file into a C
    // buffer, strings); the process whole.
    for (name, strings) in [("c", false), ("f", false), ("u", true)] {
        let bytes = std::fs::read(dir.path(&format!("{name}.npy"))).unwrap();
        let data = bytes.len() - 128;
        for cut in [bytes.len() - 1, bytes.len() - 500, 200] {
            let found = (cut - 128) as u64;
            let errors = if strings {
                let mut buffer = ArrayD::from_elem(IxDyn(&[4, 5, 6]), String::new());
                [
                    ReadOptions::new().read_into(&bytes[..cut], buffer.view_mut()),
                    NpyReader::new(Cursor::new(&bytes[..cut]))
                        .unwrap()
                        .read_into(buffer.view_mut()),
                ]
            } else {
                let mut buffer = ArrayD::<f64>::zeros(IxDyn(&[4, 5, 6]));
                [
                    ReadOptions::new().read_into(&bytes[..cut], buffer.view_mut()),
                    NpyReader::new(Cursor::new(&bytes[..cut]))
                        .unwrap()
                        .read_into(buffer.view_mut()),
                ]
            };
            for err in errors.map(Result::unwrap_err) {
                assert_eq!(
                    err.kind(),
                    ErrorKind::Truncated,
                    "{name} cut at {cut}: {err}"
                );
                assert_eq!(
                    err.byte_counts(),
                    Some((data as u64, found)),
                    "{name} cut at {cut}"
                );
            }
        }
    }
}

#[test]
fn one_buffer_reads_many_files_in_turn() {
    // The use the reads exist for: many files of one shape through one buffer.
    let dir = Scratch::new("read-into-many");
    numpy(
        &dir.path(""),
        r#"
import os
for i in range(20):
    a = np.arange(12, dtype='<f4').reshape(3, 4) + i
    np.save(os.path.join(d, f'{i}.npy'), a if i % 2 else np.asfortranarray(a.astype('>f4')))
"#,
    );
    let mut buffer = ndarray::Array2::<f32>::zeros((3, 4));
    for i in 0..20 {
        read_npy_into(dir.path(&format!("{i}.npy")), buffer.view_mut()).unwrap();
        let want = ndarray::Array::from_shape_fn((3, 4), |(r, c)| (r * 4 + c + i) as f32);
        assert_eq!(buffer, want, "file {i}");
    }
}

#[test]
fn a_header_longer_than_the_first_read_is_read_whole() {
    // The path door reads the first 4 KiB at once; a header padded past them (numpy reads
    // such a header: the padding is spaces) continues from the file.
    let dir = Scratch::new("read-into-long-header");
    numpy(
        &dir.path(""),
        r#"
import os
a = np.arange(600, dtype='>i2').reshape(20, 30)
d_ = "{'descr': '>i2', 'fortran_order': False, 'shape': (20, 30), }"
header = (d_ + ' ' * (6000 - len(d_) - 11) + '\n').encode()
with open(os.path.join(d, 'long.npy'), 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little') + header + a.tobytes())
assert (np.load(os.path.join(d, 'long.npy')) == a).all()
np.save(os.path.join(d, 'short.npy'), a)
"#,
    );
    let want: ndarray::Array2<i16> = read_npy(dir.path("short.npy")).unwrap();
    let mut buffer = ndarray::Array2::<i16>::zeros((20, 30));
    read_npy_into(dir.path("long.npy"), buffer.view_mut()).unwrap();
    assert_eq!(buffer, want);
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let dir = Scratch::new("read-into-messages");
    let path = dir.path("c.npy");
    ndnpy::write_npy(&path, &ArrayD::<f64>::zeros(IxDyn(&[4, 5, 6]))).unwrap();
    let mut buffer = ArrayD::<f64>::zeros(IxDyn(&[4, 6]));
    vec![Message::is(
        "a buffer of another shape",
        read_npy_into(&path, buffer.view_mut()).unwrap_err(),
        "cannot read an array of shape (4, 5, 6) into a buffer of shape (4, 6)",
    )]
}
