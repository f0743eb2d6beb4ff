//! Structured records through `#[derive(NpyRecord)]`, with numpy as the oracle in both
//! directions: numpy writes record arrays (numpy's own test dtypes Pdescr and Ndescr in both
//! byte orders, aligned and padded structs, titles, sub-arrays of sub-arrays, latin1 and
//! non-latin1 field names, fields in another order) and we read them into structs; we write
//! arrays of structs, numpy loads them, compares values, and `np.save` of what it loaded
//! gives back our exact bytes. Then hostile records and zero-copy views.
//!
//! These tests need `python3 -c "import numpy"` to work; `.ci/run` installs numpy.

use half::f16;
use ndarray::{s, Array1, Array2, ArrayView1, ArrayViewMut1, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, element::FixedDType, record::RecordField, DType, Error, ErrorKind, Header,
    NpyRecord, NpyWriter, ReadNpyExt, ReadableElement, ViewMutNpyExt, ViewNpyExt, WritableElement,
    WriteNpyExt, WriteOptions,
};
use num_complex::Complex;

use crate::common::{numpy, Scratch};
use crate::error_checks::{is_byte_order, is_dtype_mismatch};

/// The end of the message of a record that cannot be viewed in place as the Rust type.
const LAYOUT_HINT: &str = " (read it with ReadNpyExt, which matches fields by name)";

/// The first difference between the memory layouts of a file's record and a Rust type, when
/// `err` says the record cannot be viewed in place as the type for that reason. The message
/// is `cannot view dtype D in place as T: REASON (read it with ...)`.
fn layout_difference(err: &Error) -> Option<String> {
    if err.kind() != ErrorKind::CannotView || err.dtype().is_none() {
        return None;
    }
    let text = err.to_string();
    let rest = text.strip_prefix("cannot view dtype ")?;
    let (_, rest) = rest.split_once(" in place as ")?;
    let (_, reason) = rest.split_once(": ")?;
    Some(reason.strip_suffix(LAYOUT_HINT)?.to_string())
}

/// The dtype descr in a file's header.
fn descr_of(file: &[u8]) -> String {
    Header::read(&mut &file[..], &Default::default())
        .unwrap()
        .header
        .dtype
        .descr()
}

/// Our bytes for `a` in `order`.
fn ours<T: WritableElement>(a: &Array1<T>, order: ByteOrder) -> Vec<u8> {
    let mut out = Vec::new();
    a.write_npy_with_options(&mut out, &WriteOptions::new().byte_order(order))
        .unwrap();
    out
}

/// Reads `file` through a stream (length unknown) and as a file (length known), checks
/// both agree, and returns the array.
fn read_both<T: ReadableElement + PartialEq + std::fmt::Debug>(
    scratch: &Scratch,
    name: &str,
) -> Array1<T> {
    let file = scratch.read(name);
    let streamed = Array1::<T>::read_npy(&file[..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let from_path: Array1<T> =
        ndnpy::read_npy(scratch.path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(streamed, from_path, "{name}");
    streamed
}

const PY_DESCRS: &str = r#"
import sys
import numpy as np
d = sys.argv[1]
Pdescr = [('x', 'i4', (2,)), ('y', 'f8', (2, 2)), ('z', 'u1')]
PbufferT = [([3, 2], [[6., 4.], [6., 4.]], 8), ([4, 3], [[7., 5.], [7., 5.]], 9)]
Ndescr = [
    ('x', 'i4', (2,)),
    ('Info', [
        ('value', 'c16'),
        ('y2', 'f8'),
        ('Info2', [
            ('name', 'S2'),
            ('value', 'c16', (2,)),
            ('y3', 'f8', (2,)),
            ('z3', 'u4', (2,))]),
        ('name', 'S2'),
        ('z2', 'b1')]),
    ('color', 'S2'),
    ('info', [
        ('Name', 'U8'),
        ('Value', 'c16')]),
    ('y', 'f8', (2, 2)),
    ('z', 'u1')]
NbufferT = [
    ([3, 2], (6j, 6., ('nn', [6j, 4j], [6., 4.], [1, 2]), 'NN', True),
     'cc', ('NN', 6j), [[6., 4.], [6., 4.]], 8),
    ([4, 3], (7j, 7., ('oo', [7j, 5j], [7., 5.], [2, 1]), 'OO', False),
     'dd', ('OO', 7j), [[7., 5.], [7., 5.]], 9),
]
"#;

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct P {
    x: [i32; 2],
    y: [[f64; 2]; 2],
    z: u8,
}

fn p_buffer() -> Array1<P> {
    Array1::from(vec![
        P {
            x: [3, 2],
            y: [[6., 4.], [6., 4.]],
            z: 8,
        },
        P {
            x: [4, 3],
            y: [[7., 5.], [7., 5.]],
            z: 9,
        },
    ])
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Info2 {
    #[npy(len = 2)]
    name: Vec<u8>,
    value: [Complex<f64>; 2],
    y3: [f64; 2],
    z3: [u32; 2],
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Info {
    value: Complex<f64>,
    y2: f64,
    #[npy(rename = "Info2")]
    info2: Info2,
    #[npy(len = 2)]
    name: Vec<u8>,
    z2: bool,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct NameValue {
    #[npy(rename = "Name", len = 8)]
    name: String,
    #[npy(rename = "Value")]
    value: Complex<f64>,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct N {
    x: [i32; 2],
    #[npy(rename = "Info")]
    big_info: Info,
    #[npy(len = 2)]
    color: Vec<u8>,
    info: NameValue,
    y: [[f64; 2]; 2],
    z: u8,
}

fn n_buffer() -> Array1<N> {
    let j = |im: f64| Complex::new(0.0, im);
    let row =
        |x: [i32; 2], v: f64, n: &str, w: [f64; 2], z3: [u32; 2], z2: bool, c: &str, z: u8| N {
            x,
            big_info: Info {
                value: j(v),
                y2: v,
                info2: Info2 {
                    name: n.as_bytes().to_vec(),
                    value: [j(w[0]), j(w[1])],
                    y3: w,
                    z3,
                },
                name: n.to_uppercase().into_bytes(),
                z2,
            },
            color: c.as_bytes().to_vec(),
            info: NameValue {
                name: n.to_uppercase(),
                value: j(v),
            },
            y: [w, w],
            z,
        };
    Array1::from(vec![
        row([3, 2], 6., "nn", [6., 4.], [1, 2], true, "cc", 8),
        row([4, 3], 7., "oo", [7., 5.], [2, 1], false, "dd", 9),
    ])
}

#[test]
fn numpy_test_dtypes_pdescr_and_ndescr_in_both_orders() {
    let scratch = Scratch::new("pn");
    numpy(
        &scratch.0,
        &format!(
            "{PY_DESCRS}
for o, tag in (('<', 'le'), ('>', 'be')):
    np.save(f'{{d}}/p_{{tag}}.npy', np.array(PbufferT, dtype=np.dtype(Pdescr).newbyteorder(o)))
    np.save(f'{{d}}/n_{{tag}}.npy', np.array(NbufferT, dtype=np.dtype(Ndescr).newbyteorder(o)))
"
        ),
    );
    for (tag, order) in [("le", ByteOrder::Little), ("be", ByteOrder::Big)] {
        let name = format!("p_{tag}.npy");
        assert_eq!(read_both::<P>(&scratch, &name), p_buffer());
        let file = scratch.read(&name);
        assert!(ours(&p_buffer(), order) == file, "{name}: our bytes differ");

        let name = format!("n_{tag}.npy");
        assert_eq!(read_both::<N>(&scratch, &name), n_buffer());
        let file = scratch.read(&name);
        assert!(
            ours(&n_buffer(), order) == file,
            "{name}: our bytes differ:\n{}\n{}",
            descr_of(&ours(&n_buffer(), order)),
            descr_of(&file)
        );
    }
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct SubSub {
    c: [[f64; 5]; 2],
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct Ab {
    a: i8,
    b: i8,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct NestedPadded {
    x: [[Ab; 3]; 4],
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Deep {
    a: i64,
    b: Ab,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Deepest {
    a: [[[Deep; 3]; 4]; 5],
}

#[test]
fn sub_arrays_of_sub_arrays_and_of_padded_structs() {
    let scratch = Scratch::new("subsub");
    numpy(
        &scratch.0,
        r#"
import sys
import numpy as np
d = sys.argv[1]
a = np.zeros(2, dtype=[('c', ('<f8', (5,)), (2,))])
a['c'] = np.arange(20.0).reshape(2, 2, 5)
np.save(f'{d}/subsub.npy', a)
ab = np.dtype({'names': ['a', 'b'], 'formats': ['i1', 'i1'], 'offsets': [0, 4], 'itemsize': 8})
dt = np.dtype([('x', np.dtype((np.dtype((ab, (3,))), (4,))))])
a = np.zeros(3, dt)
v = np.arange(3 * 4 * 3).reshape(3, 4, 3) % 100
a['x']['a'] = v
a['x']['b'] = -v
np.save(f'{d}/padded.npy', a)
dt = np.dtype([('a', np.dtype((np.dtype((np.dtype((np.dtype([('a', int), ('b', ab)]), (3,))), (4,))), (5,))))])
a = np.zeros(2, dt)
v = np.arange(2 * 5 * 4 * 3).reshape(2, 5, 4, 3)
a['a']['a'] = v * 1000
a['a']['b']['a'] = v % 128
a['a']['b']['b'] = -(v % 128)
np.save(f'{d}/deep.npy', a)
print(a.dtype.descr)
"#,
    );
    assert_eq!(
        descr_of(&scratch.read("subsub.npy")),
        "[('c', ('<f8', (5,)), (2,))]"
    );
    let a = read_both::<SubSub>(&scratch, "subsub.npy");
    for (i, r) in a.iter().enumerate() {
        for j in 0..2 {
            for k in 0..5 {
                assert_eq!(r.c[j][k], (i * 10 + j * 5 + k) as f64);
            }
        }
    }
    let a = read_both::<NestedPadded>(&scratch, "padded.npy");
    for (i, r) in a.iter().enumerate() {
        for j in 0..4 {
            for k in 0..3 {
                let v = ((i * 12 + j * 3 + k) % 100) as i8;
                assert_eq!(r.x[j][k], Ab { a: v, b: -v });
            }
        }
    }
    let a = read_both::<Deepest>(&scratch, "deep.npy");
    for (i, r) in a.iter().enumerate() {
        for j in 0..5 {
            for k in 0..4 {
                for l in 0..3 {
                    let v = ((i * 5 + j) * 4 + k) * 3 + l;
                    let want = Deep {
                        a: v as i64 * 1000,
                        b: Ab {
                            a: (v % 128) as i8,
                            b: -((v % 128) as i8),
                        },
                    };
                    assert_eq!(r.a[j][k][l], want);
                }
            }
        }
    }
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct D1 {
    f0: i8,
    f1: i32,
    f2: i8,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
#[repr(C)]
struct D1C {
    f0: i8,
    f1: i32,
    f2: i8,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct D2 {
    a: i32,
    b: i32,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct D3 {
    c: i32,
    d: D2,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Titled {
    #[npy(rename = "aa")]
    a: i32,
    #[npy(rename = "bb")]
    b: i32,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Empty {}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Unit;

#[test]
fn numpy_padded_dtypes_from_test_load_padded_dtype() {
    let scratch = Scratch::new("padded");
    numpy(
        &scratch.0,
        r#"
import sys
import numpy as np
d = sys.argv[1]
dt1 = np.dtype('i1, i4, i1', align=True)
dt2 = np.dtype({'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6]})
dt3 = np.dtype({'names': ['c', 'd'], 'formats': ['i4', dt2]})
dt4 = np.dtype({'names': ['a', '', 'b'], 'formats': ['i4'] * 3})
dt5 = np.dtype({'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6], 'titles': ['aa', 'bb']})
dt6 = np.dtype({'names': [], 'formats': [], 'itemsize': 8})
dt7 = np.dtype([])
for k, dt in enumerate([dt1, dt2, dt3, dt4, dt5, dt6, dt7], 1):
    arr = np.zeros(3, dt)
    for i in range(3):
        arr[i] = i + 5
    np.save(f'{d}/dt{k}.npy', arr)
"#,
    );
    assert_eq!(
        descr_of(&scratch.read("dt1.npy")),
        "[('f0', '|i1'), ('', '|V3'), ('f1', '<i4'), ('f2', '|i1'), ('', '|V3')]"
    );
    let want = |i: i32| D1 {
        f0: i as i8,
        f1: i,
        f2: i as i8,
    };
    assert_eq!(
        read_both::<D1>(&scratch, "dt1.npy"),
        Array1::from_iter((5..8).map(want))
    );
    // The aligned dtype is exactly a #[repr(C)] struct's layout: a zero-copy view.
    let file = scratch.read("dt1.npy");
    let view = ArrayView1::<D1C>::view_npy(&file).unwrap();
    assert_eq!(view.len(), 3);
    for (i, r) in view.iter().enumerate() {
        let v = i as i32 + 5;
        assert_eq!((r.f0, r.f1, r.f2), (v as i8, v, v as i8));
    }
    let pair = |i: i32| D2 { a: i, b: i };
    assert_eq!(
        descr_of(&scratch.read("dt2.npy")),
        "[('', '|V1'), ('a', '<i4'), ('', '|V1'), ('b', '<i4')]"
    );
    assert_eq!(
        read_both::<D2>(&scratch, "dt2.npy"),
        Array1::from_iter((5..8).map(pair))
    );
    assert_eq!(
        read_both::<D3>(&scratch, "dt3.npy"),
        Array1::from_iter((5..8).map(|i| D3 { c: i, d: pair(i) }))
    );
    // A real field named '' is kept by numpy; the struct just does not ask for it.
    assert_eq!(
        descr_of(&scratch.read("dt4.npy")),
        "[('a', '<i4'), ('', '<i4'), ('b', '<i4')]"
    );
    assert_eq!(
        read_both::<D2>(&scratch, "dt4.npy"),
        Array1::from_iter((5..8).map(pair))
    );
    // Titles: fields match by name or by title.
    assert_eq!(
        descr_of(&scratch.read("dt5.npy")),
        "[('', '|V1'), (('aa', 'a'), '<i4'), ('', '|V1'), (('bb', 'b'), '<i4')]"
    );
    assert_eq!(
        read_both::<D2>(&scratch, "dt5.npy"),
        Array1::from_iter((5..8).map(pair))
    );
    assert_eq!(
        read_both::<Titled>(&scratch, "dt5.npy"),
        Array1::from_iter((5..8).map(|i| Titled { a: i, b: i }))
    );
    // No fields: itemsize 8 (all padding) and itemsize 0.
    assert_eq!(descr_of(&scratch.read("dt6.npy")), "[('', '|V8')]");
    assert_eq!(read_both::<Empty>(&scratch, "dt6.npy").len(), 3);
    assert_eq!(read_both::<Unit>(&scratch, "dt6.npy").len(), 3);
    let file = scratch.read("dt7.npy");
    assert_eq!(descr_of(&file), "[]");
    assert_eq!(file.len(), 128);
    assert_eq!(read_both::<Empty>(&scratch, "dt7.npy").len(), 3);
    // And we write itemsize-0 records exactly as numpy does.
    assert!(ours(&Array1::from(vec![Empty {}; 3]), ByteOrder::NATIVE) == file);
    assert!(ours(&Array1::from(vec![Unit; 3]), ByteOrder::NATIVE) == file);
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Latin1 {
    #[npy(rename = "é")]
    e: i32,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Kanji {
    #[npy(rename = "整形")]
    int: f64,
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Quoted {
    #[npy(rename = "it's")]
    a: u8,
    #[npy(rename = "both ' and \"")]
    b: u8,
    #[npy(rename = "tab\there\\")]
    c: u8,
    #[npy(rename = "zw\u{200b}sp\u{80}")]
    d: u8,
}

#[test]
fn latin1_v3_and_escaped_field_names_both_ways() {
    let scratch = Scratch::new("names");
    numpy(
        &scratch.0,
        r#"
import sys
import numpy as np
d = sys.argv[1]
np.save(f'{d}/latin1.npy', np.array([(1,), (2,)], dtype=[('é', '<i4')]))
np.save(f'{d}/v3.npy', np.array([(1.5,), (2.5,)], dtype=[('整形', '<f8')]))
np.save(f'{d}/quoted.npy', np.array([(1, 2, 3, 4)], dtype=[("it's", 'u1'), ('both \' and "', 'u1'), ('tab\there\\', 'u1'), ('zw\u200bsp\x80', 'u1')]))
"#,
    );
    let file = scratch.read("latin1.npy");
    assert_eq!(&file[6..8], &[1, 0], "numpy writes latin1 names in v1");
    assert!(file.windows(3).any(|w| w == b"'\xe9'"), "raw latin1 byte");
    assert_eq!(
        read_both::<Latin1>(&scratch, "latin1.npy"),
        Array1::from(vec![Latin1 { e: 1 }, Latin1 { e: 2 }])
    );
    assert!(
        ours(
            &Array1::from(vec![Latin1 { e: 1 }, Latin1 { e: 2 }]),
            ByteOrder::Little
        ) == file
    );

    let file = scratch.read("v3.npy");
    assert_eq!(&file[6..8], &[3, 0], "numpy writes non-latin1 names in v3");
    let k = Array1::from(vec![Kanji { int: 1.5 }, Kanji { int: 2.5 }]);
    assert_eq!(read_both::<Kanji>(&scratch, "v3.npy"), k);
    assert!(ours(&k, ByteOrder::Little) == file);

    let file = scratch.read("quoted.npy");
    assert_eq!(&file[6..8], &[1, 0]);
    let q = Array1::from(vec![Quoted {
        a: 1,
        b: 2,
        c: 3,
        d: 4,
    }]);
    assert_eq!(read_both::<Quoted>(&scratch, "quoted.npy"), q);
    assert!(
        ours(&q, ByteOrder::Little) == file,
        "{}\n{}",
        descr_of(&ours(&q, ByteOrder::Little)),
        descr_of(&file)
    );
}

#[test]
fn fields_in_another_order_mixed_byte_orders_and_extra_fields() {
    let scratch = Scratch::new("order");
    numpy(
        &scratch.0,
        r#"
import sys
import numpy as np
d = sys.argv[1]
dt = [('extra', 'S3'), ('b', '>f8'), ('skip', '<c8', (2,)), ('a', '<i4')]
np.save(f'{d}/order.npy', np.array([(b'x', 1.5, [1j, 2], -1), (b'y', 2.5, [3, 4j], 7)], dtype=dt))
"#,
    );
    #[derive(NpyRecord, Debug, PartialEq)]
    struct Ab2 {
        a: i32,
        b: f64,
    }
    assert_eq!(
        read_both::<Ab2>(&scratch, "order.npy"),
        Array1::from(vec![Ab2 { a: -1, b: 1.5 }, Ab2 { a: 7, b: 2.5 }])
    );
}

/// The benchmark's record plus every other field kind, for bulk tests.
#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Row {
    id: i32,
    val: f64,
    #[npy(len = 8)]
    tag: Vec<u8>,
    ok: bool,
    v: [f32; 3],
    #[npy(len = 5)]
    name: String,
    h: f16,
    c: Complex<f32>,
    q: [u64; 1],
    i2: i16,
}

fn row(i: usize) -> Row {
    Row {
        id: i as i32 * 7 - 1000,
        val: i as f64 * 0.25,
        tag: format!("t{i}").into_bytes(),
        ok: i % 3 == 0,
        v: [i as f32, -(i as i64) as f32, 0.5],
        name: if i % 7 == 0 {
            "é整\u{1F600}".to_string()
        } else {
            format!("n{}", i % 1000)
        },
        h: f16::from_f32((i % 100) as f32),
        c: Complex::new(i as f32, 1.0),
        q: [u64::MAX - i as u64],
        i2: (i % 30000) as i16 - 15000,
    }
}

const PY_ROWS: &str = r#"
import numpy as np
def rows(n, order='='):
    dt = np.dtype([('id', 'i4'), ('val', 'f8'), ('tag', 'S8'), ('ok', 'b1'), ('v', 'f4', (3,)),
                   ('name', 'U5'), ('h', 'f2'), ('c', 'c8'), ('q', 'u8', (1,)), ('i2', 'i2')]).newbyteorder(order)
    a = np.zeros(n, dt)
    i = np.arange(n)
    a['id'] = i * 7 - 1000
    a['val'] = i * 0.25
    a['tag'] = [b't%d' % k for k in i]
    a['ok'] = i % 3 == 0
    a['v'][:, 0] = i
    a['v'][:, 1] = -i
    a['v'][:, 2] = 0.5
    a['name'] = ['é整\U0001F600' if k % 7 == 0 else 'n%d' % (k % 1000) for k in i]
    a['h'] = i % 100
    a['c'] = i + 1j
    a['q'][:, 0] = np.uint64(2**64 - 1) - i.astype(np.uint64)
    a['i2'] = i % 30000 - 15000
    return a
"#;

#[test]
fn bulk_rows_across_chunks_both_directions() {
    let scratch = Scratch::new("rows");
    let n = 20_011; // 69-byte records: several 256 KiB chunks and a partial one
    numpy(
        &scratch.0,
        &format!(
            "import sys\n{PY_ROWS}\nd = sys.argv[1]\nnp.save(f'{{d}}/le.npy', rows({n}, '<'))\nnp.save(f'{{d}}/be.npy', rows({n}, '>'))\n"
        ),
    );
    let want: Array1<Row> = (0..n).map(row).collect();
    for name in ["le.npy", "be.npy"] {
        let got = read_both::<Row>(&scratch, name);
        assert!(got == want, "{name}: values differ");
        let order = if name == "le.npy" {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        };
        let (a, b) = (ours(&want, order), scratch.read(name));
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        assert!(
            a == b,
            "{name}: bytes differ at {first:?} of {} / {}",
            a.len(),
            b.len()
        );
    }

    // Our writes in other layouts: numpy loads the same logical values.
    let grid = Array2::from_shape_vec((40, 25).f(), (0..1000).map(row).collect()).unwrap();
    let mut f_order = Vec::new();
    grid.write_npy(&mut f_order).unwrap();
    std::fs::write(scratch.path("fortran.npy"), &f_order).unwrap();
    let sliced = grid.slice(s![..;-3, 1..;2]).to_owned();
    let mut strided = Vec::new();
    grid.slice(s![..;-3, 1..;2])
        .write_npy(&mut strided)
        .unwrap();
    std::fs::write(scratch.path("strided.npy"), &strided).unwrap();
    assert_eq!(Array2::<Row>::read_npy(&f_order[..]).unwrap(), grid);
    assert_eq!(Array2::<Row>::read_npy(&strided[..]).unwrap(), sliced);
    let out = numpy(
        &scratch.0,
        &format!(
            r#"import sys, io
{PY_ROWS}
d = sys.argv[1]
g = rows(1000).reshape((40, 25), order='F')
for name, want in (('fortran.npy', g), ('strided.npy', g[::-3, 1::2])):
    raw = open(f'{{d}}/{{name}}', 'rb').read()
    a = np.load(f'{{d}}/{{name}}')
    assert a.dtype == want.dtype, (name, a.dtype, want.dtype)
    assert np.array_equal(a, want), name
    buf = io.BytesIO()
    np.save(buf, a)
    assert buf.getvalue() == raw, name
print('ok')
"#
        ),
    );
    assert_eq!(out.trim(), "ok");
}

#[test]
fn numpy_loads_what_we_write_and_saves_the_same_bytes() {
    let scratch = Scratch::new("ours");
    for (name, order) in [
        ("p_le.npy", ByteOrder::Little),
        ("p_be.npy", ByteOrder::Big),
    ] {
        std::fs::write(scratch.path(name), ours(&p_buffer(), order)).unwrap();
    }
    for (name, order) in [
        ("n_le.npy", ByteOrder::Little),
        ("n_be.npy", ByteOrder::Big),
    ] {
        std::fs::write(scratch.path(name), ours(&n_buffer(), order)).unwrap();
    }
    let rows: Array1<Row> = (0..3000).map(row).collect();
    std::fs::write(scratch.path("rows_be.npy"), ours(&rows, ByteOrder::Big)).unwrap();
    let deep: Array1<Deepest> = (0..2)
        .map(|i| Deepest {
            a: std::array::from_fn(|j| {
                std::array::from_fn(|k| {
                    std::array::from_fn(|l| Deep {
                        a: (i * 60 + j * 12 + k * 3 + l) as i64,
                        b: Ab {
                            a: l as i8,
                            b: -(k as i8),
                        },
                    })
                })
            }),
        })
        .collect();
    std::fs::write(scratch.path("deep.npy"), ours(&deep, ByteOrder::Little)).unwrap();
    let out = numpy(
        &scratch.0,
        &format!(
            r#"import sys, io
{PY_DESCRS}
{PY_ROWS}
d = sys.argv[1]
def check(name, want):
    raw = open(f'{{d}}/{{name}}', 'rb').read()
    a = np.load(f'{{d}}/{{name}}')
    assert a.dtype == want.dtype, (name, a.dtype, want.dtype)
    assert np.array_equal(a, want), (name, a, want)
    buf = io.BytesIO()
    np.save(buf, a)
    assert buf.getvalue() == raw, name
for o, tag in (('<', 'le'), ('>', 'be')):
    check(f'p_{{tag}}.npy', np.array(PbufferT, dtype=np.dtype(Pdescr).newbyteorder(o)))
    check(f'n_{{tag}}.npy', np.array(NbufferT, dtype=np.dtype(Ndescr).newbyteorder(o)))
check('rows_be.npy', rows(3000, '>'))
deep = np.zeros(2, [('a', [('a', '<i8'), ('b', [('a', 'i1'), ('b', 'i1')])], (5, 4, 3))])
idx = np.arange(2 * 60).reshape(2, 5, 4, 3)
deep['a']['a'] = idx
deep['a']['b']['a'] = np.arange(3)
deep['a']['b']['b'] = -np.arange(4)[:, None]
check('deep.npy', deep)
print('ok')
"#
        ),
    );
    assert_eq!(out.trim(), "ok");
}

/// A v1 file with `descr` and `shape`, padded as numpy pads, followed by `data`.
fn npy(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let header = Header {
        dtype: DType::from_descr(descr).unwrap(),
        fortran_order: false,
        shape: shape.to_vec(),
    };
    let mut out = header.to_bytes().unwrap();
    out.extend_from_slice(data);
    out
}

#[derive(NpyRecord, Debug)]
struct Flags {
    id: u16,
    ok: bool,
    more: [bool; 3],
}

#[derive(NpyRecord, Debug)]
struct Outer {
    n: Flags,
    #[npy(len = 2)]
    s: String,
}

/// The dtype of `Outer` records and five of them, as numpy lays them out.
fn outer_records() -> (&'static str, Vec<u8>) {
    let good = "[('n', [('id', '<u2'), ('ok', '|b1'), ('more', '|b1', (3,))]), ('s', '>U2')]";
    let mut data = Vec::new();
    for i in 0..5u8 {
        data.extend_from_slice(&[i, 0, 1, 0, 1, 0]);
        data.extend_from_slice(&[0, 0, 0, b'a' + i, 0, 0, 0, 0]);
    }
    (good, data)
}

#[test]
fn hostile_records_give_typed_errors() {
    // A field of the right name and the wrong type.
    let f = npy(
        "[('id', '<f8'), ('ok', '|b1'), ('more', '|b1', (3,))]",
        &[1],
        &[0; 12],
    );
    let err = crate::own::read::<Array1<Flags>>(&f[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!(err.field(), Some("id"));
    assert_eq!(err.dtype().unwrap().descr(), "'<f8'");
    assert_eq!(err.fault(), Some(ndnpy::Fault::FieldType), "{err}");
    // The wrong sub-array shape names the whole field.
    let f = npy(
        "[('id', '<u2'), ('ok', '|b1'), ('more', '|b1', (4,))]",
        &[1],
        &[0; 7],
    );
    let err = crate::own::read::<Array1<Flags>>(&f[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!(err.field(), Some("more"));
    assert_eq!(err.fault(), Some(ndnpy::Fault::FieldType), "{err}");
    // Missing fields, at the top and nested.
    let f = npy("[('ok', '|b1'), ('x', '<i4')]", &[1], &[0; 5]);
    let err = crate::own::read::<Array1<Flags>>(&f[..]).unwrap_err();
    // Missing fields of the array's element itself: no field path, no dtype (the message lists
    // the missing fields and the file's).
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!((err.field(), err.dtype()), (None, None));
    assert_eq!(err.fault(), Some(ndnpy::Fault::MissingFields), "{err}");
    let f = npy(
        "[('n', [('id', '<u2'), ('ok', '|b1')]), ('s', '<U2')]",
        &[1],
        &[0; 11],
    );
    let err = crate::own::read::<Array1<Outer>>(&f[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err:?}");
    assert_eq!((err.field(), err.dtype()), (Some("n"), None));
    assert_eq!(err.fault(), Some(ndnpy::Fault::MissingFields), "{err}");
    // Not a record at all.
    let f = npy("'<f8'", &[1], &[0; 8]);
    let err = crate::own::read::<Array1<Flags>>(&f[..]).unwrap_err();
    assert!(is_dtype_mismatch(&err), "{err:?}");
    // Truncated data, through a stream and with the length known.
    let (good, data) = outer_records();
    let f = npy(good, &[5], &data);
    let back = crate::own::read::<Array1<Outer>>(&f[..]).unwrap();
    assert_eq!(back[3].n.id, 3);
    assert_eq!(back[3].s, "d");
    assert_eq!(back[4].n.more, [false, true, false]);
    for cut in [1, 13, 14, 50] {
        let err = crate::own::read::<Array1<Outer>>(&f[..f.len() - cut]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Truncated, "{cut}: {err:?}");
        assert_eq!(err.byte_counts(), Some((70, 70 - cut as u64)), "{cut}");
    }
    let scratch = Scratch::new("hostile");
    std::fs::write(scratch.path("short.npy"), &f[..f.len() - 3]).unwrap();
    let err = crate::own::read_path::<_, Array1<Outer>>(scratch.path("short.npy")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    assert_eq!(err.byte_counts().unwrap().1, 67);
    // A huge claim on a short stream fails after reading what is there, without allocating
    // the claim.
    let f = npy(good, &[1 << 40], &data);
    let err = crate::own::read::<Array1<Outer>>(&f[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    assert_eq!(err.byte_counts().unwrap().1, 70);
    // Bool bytes other than 0 and 1, in a nested array field, with the record index.
    let mut bad = data.clone();
    bad[3 * 14 + 4] = 2;
    let err = crate::own::read::<Array1<Outer>>(&npy(good, &[5], &bad)[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!(
        (err.record_index(), err.field()),
        (Some(3), Some("n.more[1]"))
    );
    assert_eq!(err.fault(), Some(ndnpy::Fault::InvalidValue), "{err}");
    // A UCS-4 code unit that is not a char.
    let mut bad = data.clone();
    bad[2 * 14 + 6..2 * 14 + 10].copy_from_slice(&[0, 0, 0xd8, 0]);
    let err = crate::own::read::<Array1<Outer>>(&npy(good, &[5], &bad)[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!((err.record_index(), err.field()), (Some(2), Some("s")));
    assert_eq!(err.fault(), Some(ndnpy::Fault::InvalidValue), "{err}");
}

#[derive(NpyRecord, Debug, Clone)]
struct S {
    id: u8,
    #[npy(len = 3)]
    name: String,
    #[npy(len = 2)]
    raw: [Vec<u8>; 2],
}

impl S {
    fn ok() -> S {
        S {
            id: 1,
            name: "abc".into(),
            raw: [b"xy".to_vec(), vec![]],
        }
    }
}

#[test]
fn strings_too_long_to_write_are_usage_errors() {
    let ok = S::ok();
    let mut out = Vec::new();
    Array1::from(vec![ok.clone()]).write_npy(&mut out).unwrap();
    assert!(descr_of(&out).ends_with("U3'), ('raw', '|S2', (2,))]"));
    let long_name = S {
        name: "abcd".into(),
        ..ok.clone()
    };
    let err = ndnpy::Error::from(
        Array1::from(vec![ok.clone(), ok.clone(), long_name])
            .write_npy(&mut Vec::new())
            .unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!((err.record_index(), err.field()), (Some(2), Some("name")));
    let long_raw = S {
        raw: [vec![], b"xyz".to_vec()],
        ..ok
    };
    let err = ndnpy::Error::from(
        Array1::from(vec![long_raw])
            .write_npy(&mut Vec::new())
            .unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!((err.record_index(), err.field()), (Some(0), Some("raw[1]")));
}

#[test]
fn strings_strip_trailing_nuls_and_keep_inner_ones() {
    #[derive(NpyRecord, Debug, PartialEq)]
    struct T {
        #[npy(len = 4)]
        s: String,
        #[npy(len = 4)]
        b: Vec<u8>,
    }
    let a = Array1::from(vec![T {
        s: "a\0b".into(),
        b: b"\0x\0".to_vec(),
    }]);
    let mut out = Vec::new();
    a.write_npy(&mut out).unwrap();
    let back = Array1::<T>::read_npy(&out[..]).unwrap();
    assert_eq!(back[0].s, "a\0b");
    assert_eq!(back[0].b, b"\0x");
    // Any length in the file reads: U2 and S6 into len-4 fields.
    let f = npy(
        "[('b', '|S6'), ('s', '<U2')]",
        &[1],
        &[
            b'l', b'o', b'n', b'g', b'e', b'r', b'h', 0, 0, 0, b'i', 0, 0, 0,
        ],
    );
    let back = Array1::<T>::read_npy(&f[..]).unwrap();
    assert_eq!(
        back[0],
        T {
            s: "hi".into(),
            b: b"longer".to_vec()
        }
    );
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C, packed)]
struct Packed {
    id: i32,
    val: f64,
    tag: [u8; 8],
    ok: bool,
    v: [f32; 3],
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct Aligned {
    a: u8,
    b: u32,
    c: [u16; 3],
}

/// numpy's dtype of `Aligned` (`np.dtype([...], align=True)`), in native byte order.
fn aligned_dtype() -> DType {
    DType::from_descr(&native_descr(&[
        ("a", "'|u1'"),
        ("", "'|V3'"),
        ("b", "'=u4'"),
        ("c", "'=u2', (3,)"),
        ("", "'|V2'"),
    ]))
    .unwrap()
}

fn native_descr(fields: &[(&str, &str)]) -> String {
    let n = ByteOrder::NATIVE.as_char();
    let items: Vec<String> = fields
        .iter()
        .map(|(name, t)| format!("('{name}', {})", t.replace('=', &n.to_string())))
        .collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn zero_copy_views_of_matching_layouts() {
    let scratch = Scratch::new("views");
    numpy(
        &scratch.0,
        r#"
import sys
import numpy as np
d = sys.argv[1]
dt = np.dtype([('id', '=i4'), ('val', '=f8'), ('tag', 'u1', (8,)), ('ok', '?'), ('v', '=f4', (3,))])
a = np.zeros(4, dt)
a['id'] = np.arange(4)
a['val'] = np.arange(4) * 0.5
a['tag'][:, 2] = 7
a['ok'] = [True, False, True, False]
a['v'][:, 1] = 9
np.save(f'{d}/packed.npy', a)
dt = np.dtype([('a', 'u1'), ('b', '=u4'), ('c', '=u2', (3,))], align=True)
b = np.zeros(3, dt)
b['a'] = [1, 2, 3]
b['b'] = [10, 20, 30]
b['c'][:, 2] = 5
np.save(f'{d}/aligned.npy', b)
print(dt.itemsize)
"#,
    );
    let file = scratch.read("packed.npy");
    let view = ArrayView1::<Packed>::view_npy(&file).unwrap();
    let read = Array1::<Packed>::read_npy(&file[..]).unwrap();
    assert_eq!(view, read);
    assert_eq!({ view[3].id }, 3);
    assert_eq!({ view[1].val }, 0.5);
    assert_eq!({ view[2].tag }[2], 7);
    assert!(view[2].ok && !view[3].ok);
    assert_eq!({ view[0].v }, [0.0, 9.0, 0.0]);
    // A packed struct has no padding: it can be viewed mutably, and numpy sees the write.
    let mut file = file;
    {
        let mut m = ArrayViewMut1::<Packed>::view_mut_npy(&mut file).unwrap();
        m[1].id = -5;
        m[1].ok = true;
    }
    std::fs::write(scratch.path("packed2.npy"), &file).unwrap();
    let out = numpy(
        &scratch.0,
        "import sys\nimport numpy as np\na = np.load(sys.argv[1] + '/packed2.npy')\nprint(a['id'][1], a['ok'][1])",
    );
    assert_eq!(out.trim(), "-5 True");

    let file = scratch.read("aligned.npy");
    assert_eq!(std::mem::size_of::<Aligned>(), 16);
    let view = ArrayView1::<Aligned>::view_npy(&file).unwrap();
    assert_eq!(view, Array1::<Aligned>::read_npy(&file[..]).unwrap());
    assert_eq!(
        view[2],
        Aligned {
            a: 3,
            b: 30,
            c: [0, 0, 5]
        }
    );
    // #[repr(C)] with padding: read-only views only.
    let mut file = file;
    let err = ndnpy::Error::from(ArrayViewMut1::<Aligned>::view_mut_npy(&mut file).unwrap_err());
    assert_eq!(err.fault(), Some(ndnpy::Fault::Layout), "{err}");
}

#[test]
fn zero_copy_view_rejections_name_the_difference() {
    let dtype = |fields: &[(&str, &str)]| DType::from_descr(&native_descr(fields)).unwrap();
    let packed = [
        ("id", "'=i4'"),
        ("val", "'=f8'"),
        ("tag", "'|u1', (8,)"),
        ("ok", "'|b1'"),
        ("v", "'=f4', (3,)"),
    ];
    let good = dtype(&packed);
    let bytes = vec![0u8; 33 * 2];
    let view = ndnpy::record::derive_runtime::view::<Packed>(&bytes, &good, 2).unwrap();
    assert_eq!((view.len(), view[1].id, view[1].ok), (2, 0, false));
    let layout_reason =
        |d: &DType| match ndnpy::record::derive_runtime::view::<Packed>(&bytes, d, 2) {
            Err(err) => layout_difference(&err).unwrap_or_else(|| panic!("{err:?}")),
            other => panic!("{other:?}"),
        };
    // Another field order.
    let mut swapped = packed;
    swapped.swap(0, 1);
    assert_eq!(
        layout_reason(&dtype(&swapped)),
        "field 'id' is at offset 8 in the file and 0 in the Rust type"
    );
    // Another field type of the same size.
    let mut other = packed;
    other[0] = ("id", "'=f4'");
    assert!(
        layout_reason(&dtype(&other)).contains("field 'id' is '"),
        "{}",
        layout_reason(&dtype(&other))
    );
    // A missing field, and another record size.
    let mut renamed = packed;
    renamed[3] = ("okay", "'|b1'");
    assert_eq!(
        layout_reason(&dtype(&renamed)),
        "the file has no field 'ok'"
    );
    let longer = DType::from_descr(&format!(
        "{}, ('', '|V7')]",
        native_descr(&packed).trim_end_matches(']')
    ))
    .unwrap();
    assert_eq!(
        layout_reason(&longer),
        "the file's records are 40 bytes, the Rust type's 33"
    );
    // Non-native byte order.
    let foreign = good.with_byte_order(if cfg!(target_endian = "little") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    });
    let err = ndnpy::record::derive_runtime::view::<Packed>(&bytes, &foreign, 2).unwrap_err();
    assert!(is_byte_order(&err), "{err:?}");
    assert_eq!(err.dtype(), Some(&foreign));
    // Alignment: a 4-aligned struct one byte off.
    let adtype = aligned_dtype();
    let backing = [0u8; 64];
    let start = backing.as_ptr().align_offset(4);
    let raw = &backing[start..];
    let view = ndnpy::record::derive_runtime::view::<Aligned>(&raw[..48], &adtype, 3).unwrap();
    assert_eq!((view.len(), view[2].b, view[2].c), (3, 0, [0; 3]));
    let err = ndnpy::record::derive_runtime::view::<Aligned>(&raw[1..49], &adtype, 3).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.fault(), Some(ndnpy::Fault::Misaligned), "{err}");
    // Short and long buffers.
    let err = ndnpy::record::derive_runtime::view::<Aligned>(&raw[..47], &adtype, 3).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    assert_eq!(err.byte_counts(), Some((48, 47)));
    let err = ndnpy::record::derive_runtime::view::<Aligned>(&raw[..52], &adtype, 3).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TrailingBytes, "{err:?}");
    assert_eq!(err.byte_counts(), Some((48, 52)));
    // Invalid bools are found before viewing.
    let mut bytes = bytes;
    bytes[33 + 20] = 3;
    let err = ndnpy::record::derive_runtime::view::<Packed>(&bytes, &good, 2).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData, "{err:?}");
    assert_eq!((err.record_index(), err.field()), (Some(1), Some("ok")));
    // Through the file API too.
    let mut file = Vec::new();
    Array1::from(vec![Aligned {
        a: 1,
        b: 2,
        c: [3; 3],
    }])
    .write_npy(&mut file)
    .unwrap();
    // We write packed records (numpy's default); the padded struct cannot view them.
    let err = ndnpy::Error::from(ArrayView1::<Aligned>::view_npy(&file).unwrap_err());
    assert_eq!(err.fault(), Some(ndnpy::Fault::Layout), "{err}");
}

#[test]
fn generic_records_crate_attribute_and_streaming_writer() {
    mod renamed {
        pub use ndnpy as npy_crate;
    }
    #[derive(NpyRecord, Debug, Clone, PartialEq)]
    #[npy(crate = "renamed::npy_crate")]
    struct G<T> {
        r#type: T,
        #[npy(rename = "w")]
        weight: [T; 2],
    }
    let n = ByteOrder::NATIVE.as_char();
    assert_eq!(
        <G<f32> as FixedDType>::dtype().descr(),
        format!("[('type', '{n}f4'), ('w', '{n}f4', (2,))]")
    );
    let a = Array1::from(vec![
        G {
            r#type: 1u16,
            weight: [2, 3],
        },
        G {
            r#type: 4,
            weight: [5, 6],
        },
    ]);
    let mut whole = Vec::new();
    a.write_npy(&mut whole).unwrap();
    let mut streamed = Vec::new();
    let mut w = NpyWriter::<_, G<u16>>::new(&mut streamed, [2]).unwrap();
    w.write_slice(&a.as_slice().unwrap()[..1]).unwrap();
    w.write_slice(&a.as_slice().unwrap()[1..]).unwrap();
    w.finish().unwrap();
    assert_eq!(streamed, whole);
    assert_eq!(Array1::<G<u16>>::read_npy(&whole[..]).unwrap(), a);
    // RecordField directly: the plan of a generic record.
    let plan = G::<u16>::plan(&G::<u16>::npy_dtype(None)).unwrap();
    let bytes: Vec<u8> = [1u16, 2, 3].iter().flat_map(|x| x.to_ne_bytes()).collect();
    assert_eq!(
        G::<u16>::decode(&plan, &bytes),
        G {
            r#type: 1,
            weight: [2, 3]
        }
    );
}

#[test]
fn appending_partial_reads_and_memory_maps_of_records() {
    let scratch = Scratch::new("ooc");
    numpy(
        &scratch.0,
        &format!(
            "import sys\n{PY_ROWS}\nd = sys.argv[1]\nnp.save(f'{{d}}/log.npy', rows(2, '>'))\n"
        ),
    );
    // Append to numpy's big-endian file: the records are written in the file's byte order.
    let mut app = ndnpy::NpyAppender::<Row>::open(scratch.path("log.npy")).unwrap();
    app.append(&Array1::from_iter((2..4).map(row))).unwrap();
    app.append(&Array1::from_iter((4..7).map(row))).unwrap();
    assert_eq!(app.shape(), [7]);
    drop(app);
    let out = numpy(
        &scratch.0,
        &format!(
            "import sys\n{PY_ROWS}\nd = sys.argv[1]\na = np.load(f'{{d}}/log.npy')\nassert a.dtype == rows(1, '>').dtype, a.dtype\nassert np.array_equal(a, rows(7, '>')), a\nprint('ok')\n"
        ),
    );
    assert_eq!(out.trim(), "ok");
    // Partial reads decode only the rows asked for.
    let file = std::fs::File::open(scratch.path("log.npy")).unwrap();
    let mut npy = ndnpy::NpyReader::new(file).unwrap();
    let some: Array1<Row> = npy.read_rows(3..6).unwrap();
    assert_eq!(some, Array1::from_iter((3..6).map(row)));
    assert_eq!(npy.read_element::<Row>(&[6]).unwrap(), row(6));

    // Memory maps of plain records: created zeroed, filled in place, read by numpy.
    let path = scratch.path("mapped.npy");
    // SAFETY: nothing else maps or modifies this scratch file while it is mapped.
    let mut map = unsafe { ndnpy::NpyMmapMut::create::<Packed, _>(&path, 3) }.unwrap();
    {
        let mut v = map.view_mut::<Packed, ndarray::Ix1>().unwrap();
        v[2] = Packed {
            id: 9,
            val: 2.5,
            tag: *b"abcdefgh",
            ok: true,
            v: [1.0, 2.0, 3.0],
        };
    }
    map.flush().unwrap();
    drop(map);
    // SAFETY: as above.
    let map = unsafe { ndnpy::NpyMmap::open(&path) }.unwrap();
    let v = map.view::<Packed, ndarray::Ix1>().unwrap();
    assert_eq!({ v[2].id }, 9);
    assert!(!v[0].ok && v[2].ok);
    let out = numpy(
        &scratch.0,
        "import sys\nimport numpy as np\na = np.load(sys.argv[1] + '/mapped.npy')\nprint(a.dtype.descr[2], a['id'].tolist(), a['tag'][2].tobytes(), a['v'][2].tolist())",
    );
    assert_eq!(
        out.trim(),
        "('tag', '|u1', (8,)) [0, 0, 9] b'abcdefgh' [1.0, 2.0, 3.0]"
    );
}

#[derive(ndnpy::NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C, packed)]
struct Fixed5 {
    id: i32,
    value: f64,
    tag: ndnpy::element::FixedBytes<8>,
    ok: bool,
    vec: [f32; 3],
}

#[test]
fn fixed_size_string_fields_read_in_one_copy_and_view_in_place() {
    let dir = std::env::temp_dir().join(format!("ndnpy-fixed5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fixed5.npy");
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            r#"
import sys, numpy as np
dt = np.dtype([("id", "<i4"), ("value", "<f8"), ("tag", "S8"), ("ok", "?"), ("vec", "<f4", (3,))])
a = np.zeros(1000, dtype=dt)
a["id"] = np.arange(1000)
a["value"] = np.arange(1000) * 0.5
a["tag"] = [f"t{i}".encode() for i in range(1000)]
a["ok"] = np.arange(1000) % 3 == 0
a["vec"] = np.arange(3000).reshape(1000, 3)
np.save(sys.argv[1], a)
"#,
        )
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&path).unwrap();
    let a: ndarray::Array1<Fixed5> = ndnpy::read_npy(&path).unwrap();
    for (i, r) in a.iter().enumerate() {
        let Fixed5 {
            id,
            value,
            tag,
            ok,
            vec,
        } = *r;
        assert_eq!((id, value, ok), (i as i32, i as f64 * 0.5, i % 3 == 0));
        assert_eq!(tag.as_bytes(), format!("t{i}").as_bytes());
        assert_eq!(
            vec,
            [(3 * i) as f32, (3 * i + 1) as f32, (3 * i + 2) as f32]
        );
    }
    // Viewed in place (packed: alignment 1).
    let view = ndarray::ArrayView1::<Fixed5>::view_npy(&bytes).unwrap();
    assert_eq!(view, a);
    // Written back: numpy's exact bytes.
    let mut again = Vec::new();
    a.write_npy(&mut again).unwrap();
    assert_eq!(again, bytes);
    // A longer file field does not fit: a clear mismatch naming the field.
    let err = ndnpy::Error::from(
        ndarray::Array1::<Fixed5>::read_npy(&rewrite_tag_len(&bytes)[..]).unwrap_err(),
    );
    assert_eq!(err.field(), Some("tag"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same file claiming `|S9` for `tag` (a header-only change; the data is then short).
fn rewrite_tag_len(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(&bytes[10..128]).replace("'|S8'", "'|S9'");
    let mut out = bytes[..10].to_vec();
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&bytes[128..]);
    out
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let read_flags = |descr: &str, len: usize| {
        crate::own::read::<Array1<Flags>>(&npy(descr, &[1], &vec![0; len])[..]).unwrap_err()
    };
    let (good, mut bad) = outer_records();
    bad[3 * 14 + 4] = 2;
    let long_raw = S {
        raw: [vec![], b"xyz".to_vec()],
        ..S::ok()
    };
    let adtype = aligned_dtype();
    let backing = [0u8; 64];
    let raw = &backing[backing.as_ptr().align_offset(4)..];
    vec![
        Message::is(
            "a field's type",
            read_flags("[('id', '<f8'), ('ok', '|b1'), ('more', '|b1', (3,))]", 12),
            "field 'id': cannot read dtype '<f8' as u16",
        ),
        Message::is(
            "a field's sub-array",
            read_flags("[('id', '<u2'), ('ok', '|b1'), ('more', '|b1', (4,))]", 7),
            "field 'more': cannot read dtype ('|b1', (4,)) as [bool; 3]",
        ),
        Message::ends(
            "missing fields",
            read_flags("[('ok', '|b1'), ('x', '<i4')]", 5),
            "needs fields ['id', 'more'] that the file's record lacks; the file's fields are \
             ['ok', 'x']",
        ),
        Message::is(
            "a bad bool in a record",
            crate::own::read::<Array1<Outer>>(&npy(good, &[5], &bad)[..]).unwrap_err(),
            "record 3, field 'n.more[1]': byte 0x02 is not a bool; expected 0x00 or 0x01",
        ),
        Message::is(
            "a record's bytes too long",
            Array1::from(vec![long_raw])
                .write_npy(&mut Vec::new())
                .unwrap_err(),
            "error formatting data: cannot write record 0, field 'raw[1]': 3 bytes do not fit in \
             dtype '|S2'",
        ),
        Message::is(
            "a misaligned view",
            ndnpy::record::derive_runtime::view::<Aligned>(&raw[1..49], &adtype, 3).unwrap_err(),
            "cannot view the data in place: it is 1 bytes past a 4-byte boundary \
             (read it with ReadNpyExt, which copies)",
        ),
    ]
}
