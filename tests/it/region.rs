//! N-d region reads (`read_slice`) through every local source: `NpyReader` over a file and
//! over bytes, a memory map (copy and view), a stored and a deflated `.npz` member. numpy is
//! the oracle for what a selection holds (arrays it wrote, sliced by numpy); proptest checks
//! the planner against ndarray's own `slice` over random shapes, layouts, byte orders and
//! selections; a counting reader shows that only the selected runs are read.

use std::cell::Cell;
use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::rc::Rc;

use ndarray::{s, Array, ArrayD, IxDyn, NewAxis, ShapeBuilder, SliceInfoElem};
use ndnpy::{read_npy, ErrorKind, Fault, NpyMmap, NpyReader, NpzReader, ReadNpyExt, WriteNpyExt};
use proptest::prelude::*;

use crate::common::{numpy, Scratch};

#[derive(ndnpy::NpyRecord, Debug, Clone, PartialEq)]
struct Rec {
    x: i32,
    #[npy(len = 3)]
    s: Vec<u8>,
    t: f64,
}

/// numpy's spelling of the selection `sel` on an array of `shape`: the same elements as
/// ndarray's `slice` (whose negative steps count from the end of the range, not its start).
fn numpy_index(shape: &[usize], sel: &[SliceInfoElem]) -> String {
    let mut parts = Vec::new();
    let mut axis = 0;
    for e in sel {
        match *e {
            SliceInfoElem::NewAxis => parts.push("None".to_string()),
            SliceInfoElem::Index(i) => {
                parts.push(i.to_string());
                axis += 1;
            }
            SliceInfoElem::Slice { start, end, step } => {
                let len = shape[axis] as isize;
                let abs = |i: isize| if i < 0 { len + i } else { i };
                let lo = abs(start);
                let hi = end.map_or(len, abs).max(lo);
                let m = hi - lo;
                let n = (m + step.abs() - 1) / step.abs();
                let first = if step > 0 || m == 0 { lo } else { hi - 1 };
                let stop = first + step * n;
                let stop = if stop < 0 {
                    "None".to_string()
                } else {
                    stop.to_string()
                };
                parts.push(format!("{first}:{stop}:{step}"));
                axis += 1;
            }
        }
    }
    format!("np.s_[{},]", parts.join(", "))
}

/// Has numpy write each array of `arrays` (a Python dict literal over `np`, of arrays of
/// `shape`) to `{name}.npy` in `d`, each selection of `sels` of it to `{name}_{k}.npy`, and all
/// of them to `stored.npz` (and `deflated.npz`, with `np.savez_compressed`).
fn numpy_arrays_and_slices(
    d: &std::path::Path,
    shape: &[usize],
    sels: &[Vec<SliceInfoElem>],
    arrays: &str,
) {
    let exprs: Vec<String> = sels.iter().map(|s| numpy_index(shape, s)).collect();
    numpy(
        d,
        &format!(
            r#"
import os
sels = [{sels}]
arrays = {arrays}
for name, arr in arrays.items():
    np.save(os.path.join(d, name + '.npy'), arr)
    for k, sel in enumerate(sels):
        np.save(os.path.join(d, f'{{name}}_{{k}}.npy'), arr[sel])
np.savez(os.path.join(d, 'stored.npz'), **arrays)
np.savez_compressed(os.path.join(d, 'deflated.npz'), **arrays)
"#,
            sels = exprs.join(", ")
        ),
    );
}

/// The selections every source is asked for, on a 3-D array of shape (4, 5, 6).
fn selections_3d() -> Vec<Vec<SliceInfoElem>> {
    vec![
        s![1..3, .., ..].as_ref().to_vec(), // a band along the first axis
        s![.., .., 2..5].as_ref().to_vec(), // a block of the last axis
        s![..;2, 1..5;3, ..;-2].as_ref().to_vec(), // a strided box
        s![2, 3, 4].as_ref().to_vec(),      // one element
        s![NewAxis, -1, ..;-1, 1..].as_ref().to_vec(), // a new axis, negative index and step
        s![3..3, .., ..].as_ref().to_vec(), // empty
    ]
}

#[test]
fn every_source_reads_what_numpy_slices() {
    let dir = Scratch::new("region-numpy");
    let d = dir.path("");
    let sels = selections_3d();
    numpy_arrays_and_slices(
        &d,
        &[4, 5, 6],
        &sels,
        r#"{
    'c': (np.arange(120, dtype='<f8') * 0.5 - 7).reshape(4, 5, 6),
    'f': np.asfortranarray((np.arange(120, dtype='<f8') * 0.5 - 7).reshape(4, 5, 6)),
    'be': np.asfortranarray(np.arange(120, dtype='>i4').reshape(4, 5, 6) - 60),
    'u': np.array([[[chr(65 + (i + j + k) % 26) * ((i + k) % 4) for k in range(6)] for j in range(5)] for i in range(4)], dtype='<U3'),
    'rec': np.array([[[(i * 30 + j * 6 + k, b'ab'[: (k % 3)], k / 4) for k in range(6)] for j in range(5)] for i in range(4)],
                    dtype=[('x', '<i4'), ('s', 'S3'), ('t', '<f8')]),
}"#,
    );
    fn all_sources<A: ndnpy::ReadableElement + PartialEq + std::fmt::Debug>(
        dir: &Scratch,
        name: &str,
        sels: &[Vec<SliceInfoElem>],
    ) {
        let path = dir.path(&format!("{name}.npy"));
        let bytes = std::fs::read(&path).unwrap();
        // SAFETY: the scratch file is not modified while mapped.
        let map = unsafe { NpyMmap::open(&path).unwrap() };
        let mut stored = NpzReader::open(dir.path("stored.npz")).unwrap();
        let mut deflated = NpzReader::open(dir.path("deflated.npz")).unwrap();
        for (k, sel) in sels.iter().enumerate() {
            let want: ArrayD<A> = read_npy(dir.path(&format!("{name}_{k}.npy"))).unwrap();
            let sel = &sel[..];
            let got: Vec<(&str, ArrayD<A>)> = vec![
                (
                    "file",
                    NpyReader::new(File::open(&path).unwrap())
                        .unwrap()
                        .read_slice(sel)
                        .unwrap(),
                ),
                (
                    "bytes",
                    NpyReader::new(Cursor::new(&bytes[..]))
                        .unwrap()
                        .read_slice(sel)
                        .unwrap(),
                ),
                ("mmap", map.read_slice(sel).unwrap()),
                (
                    "stored",
                    stored.member(name).unwrap().read_slice(sel).unwrap(),
                ),
                (
                    "deflated",
                    deflated.member(name).unwrap().read_slice(sel).unwrap(),
                ),
            ];
            for (source, got) in got {
                assert_eq!(got, want, "{name} selection {k} from {source}");
            }
        }
    }
    all_sources::<f64>(&dir, "c", &sels);
    all_sources::<f64>(&dir, "f", &sels);
    all_sources::<i32>(&dir, "be", &sels);
    all_sources::<String>(&dir, "u", &sels);
    all_sources::<Rec>(&dir, "rec", &sels);

    // A view of a memory map where the dtype allows one: the same elements, no copy.
    // SAFETY: as above.
    let map = unsafe { NpyMmap::open(dir.path("f.npy")).unwrap() };
    for (k, sel) in sels.iter().enumerate() {
        let want: ArrayD<f64> = read_npy(dir.path(&format!("f_{k}.npy"))).unwrap();
        let view = map.view_slice::<f64, _>(&sel[..]).unwrap();
        assert_eq!(view, want, "view of selection {k}");
    }
}

/// Runtime-typed region reads (`read_slice_dyn`) of every kind of dtype, through every local
/// source: what we read, written back, is what numpy's slicing gives, dtype and values.
#[test]
fn runtime_typed_regions_of_every_dtype_are_what_numpy_slices() {
    let dir = Scratch::new("region-dyn");
    let d = dir.path("");
    let sels = selections_3d();
    let names = [
        "i4", "f8_be_f", "c16", "b", "s", "u", "dt", "td", "rec", "f2", "u2_be", "void",
    ];
    numpy_arrays_and_slices(
        &d,
        &[4, 5, 6],
        &sels,
        r#"{
    'i4': np.arange(120, dtype='<i4').reshape(4, 5, 6) - 60,
    'f8_be_f': np.asfortranarray((np.arange(120, dtype='>f8') * 0.25).reshape(4, 5, 6)),
    'c16': (np.arange(120) * (1 - 2j)).astype('<c16').reshape(4, 5, 6),
    'b': (np.arange(120) % 3 == 0).reshape(4, 5, 6),
    's': np.array([b'x' * (i % 5) for i in range(120)], dtype='S4').reshape(4, 5, 6),
    'u': np.asfortranarray(np.array([chr(0x3b1 + i % 20) * (i % 4) for i in range(120)], dtype='<U3').reshape(4, 5, 6)),
    'dt': (np.arange(120) * 86400 + 10**9).astype('<M8[s]').reshape(4, 5, 6),
    'td': np.where(np.arange(120) % 7 == 0, np.timedelta64('NaT'), np.arange(120)).astype('<m8[ms]').reshape(4, 5, 6),
    'rec': np.array([(i, b'ab'[: i % 3], i / 4) for i in range(120)],
                    dtype=[('x', '<i4'), ('s', 'S3'), ('t', '>f8')]).reshape(4, 5, 6),
    'f2': (np.arange(120) / 8).astype('<f2').reshape(4, 5, 6),
    'u2_be': np.asfortranarray(np.arange(120, dtype='>u2').reshape(4, 5, 6)),
    'void': np.frombuffer(bytes(range(240)) * 4, dtype='V8').reshape(4, 5, 6),
}"#,
    );
    let mut stored = NpzReader::open(dir.path("stored.npz")).unwrap();
    let mut deflated = NpzReader::open(dir.path("deflated.npz")).unwrap();
    let mut written = Vec::new();
    for name in names {
        let path = dir.path(&format!("{name}.npy"));
        let bytes = std::fs::read(&path).unwrap();
        // SAFETY: the scratch file is not modified while mapped.
        let map = unsafe { NpyMmap::open(&path).unwrap() };
        for (k, sel) in sels.iter().enumerate() {
            let sel = &sel[..];
            let mut file = NpyReader::new(File::open(&path).unwrap()).unwrap();
            let mut in_memory = NpyReader::new(Cursor::new(&bytes[..])).unwrap();
            let got = [
                ("file", file.read_slice_dyn(sel).unwrap()),
                ("bytes", in_memory.read_slice_dyn(sel).unwrap()),
                ("mmap", map.read_slice_dyn(sel).unwrap()),
                (
                    "stored",
                    stored.member(name).unwrap().read_slice_dyn(sel).unwrap(),
                ),
                (
                    "deflated",
                    deflated.member(name).unwrap().read_slice_dyn(sel).unwrap(),
                ),
            ];
            let index = numpy_index(&[4, 5, 6], sel);
            for (source, a) in got {
                let out = format!("{name}_{k}.{source}.got.npy");
                a.write_npy(File::create(dir.path(&out)).unwrap()).unwrap();
                written.push(format!("('{name}.npy', {index}, '{out}')"));
            }
        }
    }
    let out = numpy(
        &d,
        &format!(
            r#"
import os
bad = []
for src, sel, got in [{pairs}]:
    # With `...` after the indices numpy gives an array of the source's dtype even where
    # they select one element (without it, a scalar: an 'S4' element becomes 'S2').
    w, g = np.load(os.path.join(d, src))[sel + (Ellipsis,)], np.load(os.path.join(d, got))
    same = w.dtype == g.dtype and w.shape == g.shape and w.tobytes() == g.tobytes()
    if not same:
        bad.append((got, w.dtype.str, g.dtype.str, w.shape, g.shape))
print(len(bad), bad[:5])
"#,
            pairs = written.join(", ")
        ),
    );
    assert_eq!(out, "0 []", "{} reads", written.len());
}

#[test]
fn selections_of_many_runs_from_a_file_read_on_two_threads_as_numpy_slices() {
    // Every third element of every other plane: thousands of runs, which a file read
    // splits over two threads (one thread and a stored member are read too).
    let dir = Scratch::new("region-halves");
    let d = dir.path("");
    let sels = [
        s![..;2, .., ..;3].as_ref().to_vec(),
        s![1..39;5, ..;-4, 7].as_ref().to_vec(),
        s![.., 3, ..].as_ref().to_vec(),
    ];
    numpy_arrays_and_slices(
        &d,
        &[40, 30, 50],
        &sels,
        r#"{
    'c': (np.arange(60000, dtype='<f8') * 0.5 - 7).reshape(40, 30, 50),
    'f': np.asfortranarray((np.arange(60000, dtype='<f8') * 0.5 - 7).reshape(40, 30, 50)),
    'be': np.asfortranarray(np.arange(60000, dtype='>i4').reshape(40, 30, 50) - 60),
    'u': np.array([chr(65 + i % 26) * (i % 4) for i in range(60000)], dtype='<U3').reshape(40, 30, 50),
    'rec': np.array([(i, b'abc'[: (i % 4)], i / 4) for i in range(60000)],
                    dtype=[('x', '<i4'), ('s', 'S3'), ('t', '<f8')]).reshape(40, 30, 50),
}"#,
    );
    fn check<A: ndnpy::ReadableElement + PartialEq + std::fmt::Debug>(
        dir: &Scratch,
        name: &str,
        sels: &[Vec<SliceInfoElem>],
    ) {
        let path = dir.path(&format!("{name}.npy"));
        let mut stored = NpzReader::open(dir.path("stored.npz")).unwrap();
        for (k, sel) in sels.iter().enumerate() {
            let want: ArrayD<A> = read_npy(dir.path(&format!("{name}_{k}.npy"))).unwrap();
            for threads in [1, 2] {
                let opts = ndnpy::ReadOptions::new().threads(threads);
                let mut npy = NpyReader::with_options(File::open(&path).unwrap(), &opts).unwrap();
                let got: ArrayD<A> = npy.read_slice(&sel[..]).unwrap();
                assert_eq!(got, want, "{name} selection {k}, {threads} threads");
            }
            let got: ArrayD<A> = stored.member(name).unwrap().read_slice(&sel[..]).unwrap();
            assert_eq!(got, want, "{name} selection {k} from a stored member");
        }
    }
    check::<f64>(&dir, "c", &sels);
    check::<f64>(&dir, "f", &sels);
    check::<i32>(&dir, "be", &sels);
    check::<String>(&dir, "u", &sels);
    check::<Rec>(&dir, "rec", &sels);
}

#[test]
fn a_selection_outside_the_shape_is_a_usage_error_naming_the_axis() {
    let a = Array::from_shape_vec((3, 4), (0..12i64).collect()).unwrap();
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let mut npy = NpyReader::new(Cursor::new(&bytes[..])).unwrap();
    let err = npy.read_slice::<i64, _>(s![.., 2..5]).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::OutOfBounds), "{err}");
    let err = npy.read_slice::<i64, _>(s![-4, ..]).unwrap_err();
    // The message names the index and its axis (`messages`).
    assert_eq!(err.fault(), Some(Fault::OutOfBounds), "{err}");
    let err = npy.read_slice::<i64, _>(s![.., .., ..]).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::SliceAxes), "{err}");
    // A wrong element type or result dimension is a mismatch, before any data is read.
    let err = npy.read_slice::<f32, _>(s![.., 1]).unwrap_err();
    assert!(err.kind().is_mismatch(), "{err}");
    // A file shorter than its header says is truncated, whatever is selected.
    let cut = &bytes[..bytes.len() - 8];
    let err = NpyReader::new(Cursor::new(cut))
        .unwrap()
        .read_slice::<i64, _>(s![0, 0])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
}

/// A reader that counts the reads and bytes that reach it.
struct Counting<R> {
    inner: R,
    reads: Rc<Cell<u64>>,
    bytes: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.reads.set(self.reads.get() + 1);
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// What a region read of a 2000 x 1000 `f8` array (16 MB) reads: a band of rows is one read
/// of its bytes; a block of columns one run per row (rows 8000 bytes apart, more than the
/// 4 KiB gap that merges runs); runs closer than 4 KiB are one read.
#[test]
fn only_the_selected_runs_are_read() {
    let a = Array::from_shape_fn((2000, 1000), |(i, j)| (i * 1000 + j) as f64);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let cases: Vec<(Vec<SliceInfoElem>, u64, u64)> = vec![
        (s![100..110, ..].as_ref().to_vec(), 1, 80_000),
        (s![.., 10..12].as_ref().to_vec(), 2000, 2000 * 16),
        (s![1234, 567].as_ref().to_vec(), 1, 8),
        // Every 100th element of a row: runs 800 bytes apart, one read of the span.
        (s![7, ..;100].as_ref().to_vec(), 1, 900 * 8 + 8),
    ];
    for (sel, reads, read_bytes) in cases {
        let (r, b) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let src = Counting {
            inner: Cursor::new(&bytes[..]),
            reads: r.clone(),
            bytes: b.clone(),
        };
        let mut npy = NpyReader::new(ndnpy::source::Seeking::new(src)).unwrap();
        let (r0, b0) = (r.get(), b.get());
        let got: ArrayD<f64> = npy.read_slice(&sel[..]).unwrap();
        assert_eq!(
            got,
            a.view().into_dyn().slice(&sel[..]).to_owned(),
            "{sel:?}"
        );
        assert_eq!((r.get() - r0, b.get() - b0), (reads, read_bytes), "{sel:?}");
    }
}

/// One axis's selection, as proptest draws it: an index, or a range with a step.
fn elem(len: usize) -> impl Strategy<Value = SliceInfoElem> {
    let len = len as isize;
    prop_oneof![
        (-len.max(1)..len.max(1)).prop_map(SliceInfoElem::Index),
        (
            0..=len,
            0..=len,
            prop_oneof![1isize..4, -3isize..0],
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(move |(a, b, step, neg, open)| SliceInfoElem::Slice {
                start: if neg { a - len } else { a },
                end: if open { None } else { Some(b) },
                step,
            }),
    ]
}

fn case() -> impl Strategy<Value = (Vec<usize>, bool, bool, Vec<SliceInfoElem>)> {
    proptest::collection::vec(0usize..6, 0..5).prop_flat_map(|shape| {
        let elems: Vec<_> = shape.iter().map(|&n| elem(n)).collect();
        (
            Just(shape),
            any::<bool>(),
            any::<bool>(),
            elems,
            any::<u8>(),
        )
            .prop_map(|(shape, f, be, mut sel, newaxis)| {
                if newaxis % 4 == 0 {
                    sel.insert(newaxis as usize % (sel.len() + 1), SliceInfoElem::NewAxis);
                }
                (shape, f, be, sel)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Whatever the shape, order, byte order and selection: what ndarray's `slice` gives, or
    /// a usage error where it would panic.
    #[test]
    fn read_slice_is_ndarrays_slice((shape, fortran, big, sel) in case()) {
        let n: usize = shape.iter().product();
        let a = ArrayD::from_shape_vec(IxDyn(&shape).set_f(fortran), (0..n as i16).collect()).unwrap();
        let mut bytes = Vec::new();
        let opts = ndnpy::WriteOptions::new().byte_order(if big { ndnpy::dtype::ByteOrder::Big } else { ndnpy::dtype::ByteOrder::Little });
        a.write_npy_with_options(&mut bytes, &opts).unwrap();
        prop_assert_eq!(ArrayD::<i16>::read_npy(&bytes[..]).unwrap(), a.clone());
        let got = NpyReader::new(Cursor::new(&bytes[..])).unwrap().read_slice::<i16, _>(&sel[..]);
        let want = std::panic::catch_unwind(|| a.slice(&sel[..]).to_owned());
        match (got, want) {
            (Ok(got), Ok(want)) => prop_assert_eq!(got, want),
            (Err(e), Err(_)) => prop_assert_eq!(e.kind(), ErrorKind::Usage),
            (got, want) => prop_assert!(false, "{:?} vs {:?}", got.map(|_| ()), want.map(|_| ())),
        }
    }
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let a = Array::from_shape_vec((3, 4), (0..12i64).collect()).unwrap();
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let mut npy = NpyReader::new(Cursor::new(&bytes[..])).unwrap();
    vec![Message::has(
        "an index before the start",
        npy.read_slice::<i64, _>(s![-4, ..]).unwrap_err(),
        &["index -4 of axis 0"],
    )]
}
