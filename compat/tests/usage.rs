//! The calls ndarray-npy 0.10 users make, written against `ndarray_npy` (ndnpy renamed in
//! `Cargo.toml`), with numpy as the oracle for every file written: numpy writes the reference
//! files, we read them, write them back through each API, and numpy loads what we wrote and
//! compares it value for value and byte for byte with `np.save`.

use ndarray::{
    arr0, array, aview0, Array, Array1, Array2, Array3, ArrayD, ArrayRef2, ArrayView2, ArrayView3,
    ArrayViewMut2, ArrayViewMut3, Dim, Ix2, ShapeBuilder,
};
use ndarray_npy::{
    create_new_npy, read_npy, write_npy, write_zeroed_npy, NpzReader, NpzWriter, ReadNpyExt,
    ReadableElement, ViewMutNpyExt, ViewNpyExt, WritableElement, WriteNpyError, WriteNpyExt,
};
use ndnpy_compat::{archive, load, load_array, load_from, save, save_new, save_to, unarchive};
use num_complex::Complex;
use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};

#[path = "../../tests/common/mod.rs"]
mod common;
use common::{numpy, Scratch};

/// An element type ndarray-npy 0.10 reads and writes, with the numpy dtype and the formula
/// (element `i` in C order) both sides use for the test values. (Complex imaginary parts are
/// `0.0 - x`, as in Python, so that element 0 is `+0.0` on both sides and the bytes match.)
trait Elem: ReadableElement + WritableElement + PartialEq + Debug + Clone {
    const DTYPE: &'static str;
    /// The numpy expression of element `i` (an array `i` of int64).
    const NUMPY: &'static str;
    fn value(i: usize) -> Self;
    /// The value of all-zero bytes.
    fn zero() -> Self;
}

macro_rules! elem_int {
    ($($ty:ty => $dtype:literal),* $(,)?) => {$(
        impl Elem for $ty {
            const DTYPE: &'static str = $dtype;
            const NUMPY: &'static str = "(i * 37 % 200 - (100 if np.dtype(dt).kind == 'i' else 0))";
            fn value(i: usize) -> Self {
                let v = (i * 37 % 200) as i64 - if <$ty>::MIN == 0 { 0 } else { 100 };
                v as $ty
            }
            fn zero() -> Self {
                0
            }
        }
    )*};
}
elem_int!(i8 => "i1", i16 => "i2", i32 => "i4", i64 => "i8",
          u8 => "u1", u16 => "u2", u32 => "u4", u64 => "u8");

impl Elem for f32 {
    const DTYPE: &'static str = "f4";
    const NUMPY: &'static str = "(i * 0.5 - 3)";
    fn value(i: usize) -> Self {
        i as f32 * 0.5 - 3.0
    }
    fn zero() -> Self {
        0.0
    }
}

impl Elem for f64 {
    const DTYPE: &'static str = "f8";
    const NUMPY: &'static str = "(i * 0.5 - 3)";
    fn value(i: usize) -> Self {
        i as f64 * 0.5 - 3.0
    }
    fn zero() -> Self {
        0.0
    }
}

impl Elem for bool {
    const DTYPE: &'static str = "?";
    const NUMPY: &'static str = "(i % 3 == 1)";
    fn value(i: usize) -> Self {
        i % 3 == 1
    }
    fn zero() -> Self {
        false
    }
}

impl Elem for Complex<f32> {
    const DTYPE: &'static str = "c8";
    const NUMPY: &'static str = "(i * 0.5 - 3 - 0.25j * i)";
    fn value(i: usize) -> Self {
        Complex::new(i as f32 * 0.5 - 3.0, 0.0 - i as f32 * 0.25)
    }
    fn zero() -> Self {
        Complex::new(0.0, 0.0)
    }
}

impl Elem for Complex<f64> {
    const DTYPE: &'static str = "c16";
    const NUMPY: &'static str = "(i * 0.5 - 3 - 0.25j * i)";
    fn value(i: usize) -> Self {
        Complex::new(i as f64 * 0.5 - 3.0, 0.0 - i as f64 * 0.25)
    }
    fn zero() -> Self {
        Complex::new(0.0, 0.0)
    }
}

/// numpy writes `ref_<name>.npy` (C order, 3x4), `ref_<name>_f.npy` (Fortran order) and
/// `ref_<name>_be.npy` (big-endian) with the formula of `A`.
fn numpy_references<A: Elem>(dir: &Scratch, name: &str) {
    numpy(
        &dir.0,
        &format!(
            "dt = '{dt}'\ni = np.arange(12, dtype=np.int64).reshape(3, 4)\n\
             a = np.asarray({expr}).astype(dt)\n\
             np.save(f'{{d}}/ref_{name}.npy', a)\n\
             np.save(f'{{d}}/ref_{name}_f.npy', np.asfortranarray(a))\n\
             np.save(f'{{d}}/ref_{name}_be.npy', a.astype(np.dtype(dt).newbyteorder('>')))",
            dt = A::DTYPE,
            expr = A::NUMPY,
        ),
    );
}

/// Reads numpy's files through several ndarray-npy entry points, checks the values, and writes
/// them back through several others; returns the names of the files written, each of which
/// must equal numpy's `ref_<name>.npy` (or `_f`) byte for byte.
fn read_and_write_back<A: Elem>(dir: &Scratch, name: &str) -> Vec<String> {
    let expected = Array2::from_shape_fn((3, 4), |(r, c)| A::value(r * 4 + c));
    let c_path = dir.path(&format!("ref_{name}.npy"));

    // Reading: the free function, generic code bounded on ReadNpyExt and on the element
    // traits, and the trait method on a File, a BufReader, a byte slice and a Cursor.
    let a: Array2<A> = read_npy(&c_path).unwrap();
    assert_eq!(a, expected, "{name}");
    assert_eq!(load::<Array2<A>, _>(&c_path).unwrap(), expected);
    assert_eq!(load_array::<A, Ix2>(&c_path).unwrap(), expected);
    assert_eq!(
        Array2::<A>::read_npy(File::open(&c_path).unwrap()).unwrap(),
        expected
    );
    let bytes = std::fs::read(&c_path).unwrap();
    let from_buf: ArrayD<A> = load_from(BufReader::new(File::open(&c_path).unwrap())).unwrap();
    assert_eq!(from_buf, expected.clone().into_dyn());
    assert_eq!(Array2::<A>::read_npy(&bytes[..]).unwrap(), expected);
    assert_eq!(
        Array2::<A>::read_npy(Cursor::new(&bytes)).unwrap(),
        expected
    );

    // Fortran order and big-endian files read to the same values, Fortran in Fortran layout.
    let f: Array2<A> = read_npy(dir.path(&format!("ref_{name}_f.npy"))).unwrap();
    assert_eq!(f, expected);
    assert!(f.t().is_standard_layout());
    let be: Array2<A> = read_npy(dir.path(&format!("ref_{name}_be.npy"))).unwrap();
    assert_eq!(be, expected);

    // Writing: write_npy with an array, a view and an ArrayRef; create_new_npy; the trait
    // method into a File, a BufWriter, a Vec and a Cursor; generic code bounded on the traits.
    let mut written = Vec::new();
    let mut out = |suffix: &str| {
        let file = format!("out_{name}_{suffix}.npy");
        written.push(file.clone());
        dir.path(&file)
    };
    write_npy(out("array"), &expected).unwrap();
    write_npy(out("view"), &expected.view()).unwrap();
    let as_ref: &ArrayRef2<A> = &expected;
    write_npy(out("arrayref"), as_ref).unwrap();
    create_new_npy(out("new"), &expected).unwrap();
    expected
        .write_npy(File::create(out("file")).unwrap())
        .unwrap();
    expected
        .write_npy(BufWriter::new(File::create(out("bufwriter")).unwrap()))
        .unwrap();
    let mut vec = Vec::new();
    expected.write_npy(&mut vec).unwrap();
    std::fs::write(out("vec"), &vec).unwrap();
    let mut cursor = Cursor::new(Vec::new());
    expected.view().write_npy(&mut cursor).unwrap();
    std::fs::write(out("cursor"), cursor.into_inner()).unwrap();
    save(out("generic"), &expected).unwrap();
    save_new(&out("generic_new"), &expected).unwrap();
    let mut via_writer = Vec::new();
    save_to(&expected, &mut via_writer).unwrap();
    std::fs::write(out("generic_writer"), via_writer).unwrap();
    // A transposed view is Fortran-contiguous: written in Fortran order, as numpy would.
    write_npy(out("transposed_f"), &f.t().t()).unwrap();
    written
}

/// numpy loads every file written and finds it equal to its reference, dtype included, and
/// byte-identical to `np.save` of the reference (in the same memory order).
fn numpy_agrees(dir: &Scratch, files: &[String]) {
    let list = files
        .iter()
        .map(|f| format!("'{f}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let out = numpy(
        &dir.0,
        &format!(
            "import re\n\
             for f in [{list}]:\n    \
                 name = re.match(r'out_(.+?)_[a-z_]+\\.npy$', f).group(1)\n    \
                 ref = f'{{d}}/ref_{{name}}_f.npy' if f.endswith('_f.npy') else f'{{d}}/ref_{{name}}.npy'\n    \
                 a, r = np.load(f'{{d}}/{{f}}'), np.load(ref)\n    \
                 assert a.dtype == r.dtype and a.shape == r.shape, (f, a.dtype, r.dtype)\n    \
                 assert np.array_equal(a, r), f\n    \
                 assert open(f'{{d}}/{{f}}', 'rb').read() == open(ref, 'rb').read(), f\n\
             print(len([{list}]))"
        ),
    );
    assert_eq!(out, files.len().to_string());
}

fn round_trip<A: Elem>(name: &str) {
    let dir = Scratch::new(&format!("compat-usage-{name}"));
    numpy_references::<A>(&dir, name);
    let files = read_and_write_back::<A>(&dir, name);
    numpy_agrees(&dir, &files);
}

#[test]
fn signed_integers_read_and_write_like_numpy() {
    round_trip::<i8>("i1");
    round_trip::<i16>("i2");
    round_trip::<i32>("i4");
    round_trip::<i64>("i8");
}

#[test]
fn unsigned_integers_read_and_write_like_numpy() {
    round_trip::<u8>("u1");
    round_trip::<u16>("u2");
    round_trip::<u32>("u4");
    round_trip::<u64>("u8");
}

#[test]
fn floats_and_bools_read_and_write_like_numpy() {
    round_trip::<f32>("f4");
    round_trip::<f64>("f8");
    round_trip::<bool>("b1");
}

/// `num_complex::Complex` is an element with the `num-complex-0_4` feature, as in
/// ndarray-npy.
#[test]
fn complex_numbers_read_and_write_like_numpy() {
    round_trip::<Complex<f32>>("c8");
    round_trip::<Complex<f64>>("c16");
}

#[test]
fn arrays_of_any_dimension_and_zero_d_scalars_round_trip() {
    let dir = Scratch::new("compat-usage-dims");
    let scalar = arr0(2.5f64);
    write_npy(dir.path("scalar.npy"), &scalar).unwrap();
    write_npy(dir.path("aview0.npy"), &aview0(&7i32)).unwrap();
    let cube = Array3::<u16>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as u16);
    write_npy(dir.path("cube.npy"), &cube).unwrap();
    let permuted = cube.view().permuted_axes([2, 0, 1]);
    write_npy(dir.path("permuted.npy"), &permuted).unwrap();
    let empty = Array2::<f32>::zeros((0, 3));
    write_npy(dir.path("empty.npy"), &empty).unwrap();

    assert_eq!(
        load::<ndarray::Array0<f64>, _>(dir.path("scalar.npy")).unwrap(),
        scalar
    );
    assert_eq!(
        load::<ArrayD<u16>, _>(dir.path("cube.npy")).unwrap(),
        cube.clone().into_dyn()
    );
    assert_eq!(
        load::<Array3<u16>, _>(dir.path("permuted.npy")).unwrap(),
        permuted
    );
    assert_eq!(
        load::<Array2<f32>, _>(dir.path("empty.npy")).unwrap(),
        empty
    );

    let out = numpy(
        &dir.0,
        "s, v, c, p, e = (np.load(f'{d}/{n}.npy') for n in ['scalar', 'aview0', 'cube', 'permuted', 'empty'])\n\
         assert s.shape == () and s.dtype == np.float64 and s == 2.5\n\
         assert v.shape == () and v.dtype == np.int32 and v == 7\n\
         i, j, k = np.indices((2, 3, 4))\n\
         ref = (i * 100 + j * 10 + k).astype(np.uint16)\n\
         assert np.array_equal(c, ref) and np.array_equal(p, ref.transpose(2, 0, 1))\n\
         assert p.flags.c_contiguous\n\
         assert e.shape == (0, 3) and e.dtype == np.float32\n\
         print('ok')",
    );
    assert_eq!(out, "ok");
}

#[test]
fn several_arrays_read_in_turn_from_one_reader() {
    let mut stream = Vec::new();
    array![1i32, 2, 3].write_npy(&mut stream).unwrap();
    array![[4.0f64]].write_npy(&mut stream).unwrap();
    let mut reader: &[u8] = &stream;
    assert_eq!(
        Array1::<i32>::read_npy(&mut reader).unwrap(),
        array![1, 2, 3]
    );
    assert_eq!(Array2::<f64>::read_npy(&mut reader).unwrap(), array![[4.0]]);
    assert!(reader.is_empty());
}

#[test]
fn create_new_npy_refuses_an_existing_file_with_already_exists() {
    let dir = Scratch::new("compat-usage-create-new");
    let path = dir.path("a.npy");
    std::fs::write(&path, b"keep me").unwrap();
    // ndarray-npy users match `WriteNpyError::Io(e)`.
    let r: Result<(), WriteNpyError> = create_new_npy(&path, &array![1u8]);
    let err = r.expect_err("expected an I/O error");
    assert!(
        matches!(&err, WriteNpyError::Io(e) if e.kind() == std::io::ErrorKind::AlreadyExists),
        "{err:?}"
    );
    assert_eq!(err.kind(), ndarray_npy::ErrorKind::Io, "{err:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"keep me");
}

/// ndarray-npy's documented workflow: `write_zeroed_npy` then a memory map and
/// `view_mut_npy`; numpy sees zeros and the one value written through the map.
#[test]
fn zeroed_file_filled_through_a_memory_map_loads_in_numpy() {
    let dir = Scratch::new("compat-usage-zeroed-mmap");
    let path = dir.path("big.npy");
    let file = File::create(&path).unwrap();
    write_zeroed_npy::<f64, _>(&file, (40, 50, 60)).unwrap();
    drop(file);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    // SAFETY: the file is private to this test and not resized while mapped.
    let mut mmap = unsafe { memmap2::MmapMut::map_mut(&file).unwrap() };
    {
        let mut view = ArrayViewMut3::<f64>::view_mut_npy(&mut mmap).unwrap();
        view[[30, 40, 50]] = 3.25;
    }
    mmap.flush().unwrap();
    // SAFETY: as above.
    let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
    let view = ArrayView3::<f64>::view_npy(&map).unwrap();
    assert_eq!(view[[30, 40, 50]], 3.25);
    assert_eq!(view.sum(), 3.25);
    let out = numpy(
        &dir.0,
        "a = np.load(f'{d}/big.npy')\n\
         ref = np.zeros((40, 50, 60))\nref[30, 40, 50] = 3.25\n\
         assert a.dtype == np.float64 and np.array_equal(a, ref)\nprint('ok')",
    );
    assert_eq!(out, "ok");
}

/// Generic code `fn f<A: WritableElement, D: IntoDimension>` calling `write_zeroed_npy`, for
/// every element type ndarray-npy has and every way to spell a shape; the file starts at the
/// cursor (bytes before it are kept) and numpy loads it as `np.zeros(shape, dtype)`.
#[test]
fn zeroed_files_of_every_element_type_load_in_numpy_as_zeros() {
    fn zeroed_after_prefix<A: Elem, D: ndarray::IntoDimension>(dir: &Scratch, shape: D) {
        let path = dir.path(&format!("zero_{}.npy", A::DTYPE));
        let mut file = File::create(&path).unwrap();
        file.write_all(b"prefix").unwrap();
        ndnpy_compat::zeroed::<A, D>(&file, shape).unwrap();
        let mut file = File::open(&path).unwrap();
        let mut prefix = [0; 6];
        file.read_exact(&mut prefix).unwrap();
        assert_eq!(&prefix, b"prefix");
        let back = ArrayD::<A>::read_npy(&mut file).unwrap();
        assert!(back.iter().all(|x| *x == A::zero()), "{}", A::DTYPE);
    }
    let dir = Scratch::new("compat-usage-zeroed");
    zeroed_after_prefix::<i8, _>(&dir, [2, 3, 4]);
    zeroed_after_prefix::<i16, _>(&dir, (2, 3));
    zeroed_after_prefix::<i32, _>(&dir, 5);
    zeroed_after_prefix::<i64, _>(&dir, vec![1, 2, 3, 4]);
    zeroed_after_prefix::<u8, _>(&dir, Dim([3, 3]));
    zeroed_after_prefix::<u16, _>(&dir, [0, 7]);
    zeroed_after_prefix::<u32, _>(&dir, ());
    zeroed_after_prefix::<u64, _>(&dir, [2, 2]);
    zeroed_after_prefix::<f32, _>(&dir, (4, 1));
    zeroed_after_prefix::<f64, _>(&dir, [6]);
    zeroed_after_prefix::<bool, _>(&dir, (2, 5));
    zeroed_after_prefix::<Complex<f32>, _>(&dir, (3, 2, 1));
    zeroed_after_prefix::<Complex<f64>, _>(&dir, [2, 3]);
    let out = numpy(
        &dir.0,
        "import glob\n\
         shapes = {'i1': (2, 3, 4), 'i2': (2, 3), 'i4': (5,), 'i8': (1, 2, 3, 4), 'u1': (3, 3),\n\
                   'u2': (0, 7), 'u4': (), 'u8': (2, 2), 'f4': (4, 1), 'f8': (6,), '?': (2, 5),\n\
                   'c8': (3, 2, 1), 'c16': (2, 3)}\n\
         for dt, shape in shapes.items():\n    \
             raw = open(f'{d}/zero_{dt}.npy', 'rb').read()\n    \
             assert raw[:6] == b'prefix'\n    \
             a = np.load(io.BytesIO(raw[6:]))\n    \
             ref = np.zeros(shape, dtype=dt)\n    \
             assert a.dtype == ref.dtype and a.shape == shape and np.array_equal(a, ref), dt\n    \
             b = io.BytesIO(); np.save(b, ref)\n    \
             assert raw[6:] == b.getvalue(), dt\n\
         print(len(shapes))",
    );
    assert_eq!(out, "13");
}

/// Element types whose dtype depends on the values (strings, datetimes) are written zeroed with
/// the dtype `np.save` gives an empty array of them, and numpy loads them as `np.zeros`.
#[test]
fn zeroed_value_dependent_dtypes_load_in_numpy_as_zeros() {
    use ndarray_npy::{Datetime64, Timedelta64};
    fn zeroed_generic<A: WritableElement>(file: &File) -> Result<(), WriteNpyError> {
        write_zeroed_npy::<A, _>(file, (2, 3).f())
    }
    let dir = Scratch::new("compat-usage-zeroed-str");
    let create = |name: &str| File::create(dir.path(name)).unwrap();
    zeroed_generic::<String>(&create("u.npy")).unwrap();
    zeroed_generic::<&str>(&create("u_str.npy")).unwrap();
    zeroed_generic::<Vec<u8>>(&create("s.npy")).unwrap();
    zeroed_generic::<Datetime64>(&create("m.npy")).unwrap();
    zeroed_generic::<Timedelta64>(&create("td.npy")).unwrap();
    let u: Array2<String> = read_npy(dir.path("u.npy")).unwrap();
    assert_eq!(u, Array2::<String>::default((2, 3)));
    let s: Array2<Vec<u8>> = read_npy(dir.path("s.npy")).unwrap();
    assert_eq!(s, Array2::<Vec<u8>>::default((2, 3)));
    let m: Array2<Datetime64> = read_npy(dir.path("m.npy")).unwrap();
    assert!(m.iter().all(|t| t.value == 0 && t.unit.is_none()));
    let out = numpy(
        &dir.0,
        "for n, dt in [('u', '<U1'), ('u_str', '<U1'), ('s', 'S1'), ('m', '<M8'), ('td', '<m8')]:\n    \
             a = np.load(f'{d}/{n}.npy')\n    \
             ref = np.zeros((2, 3), dt, order='F')\n    \
             assert a.dtype == ref.dtype and a.flags.f_contiguous, (n, a.dtype)\n    \
             assert (a.view('i8') == 0).all() if dt[1] in 'Mm' else np.array_equal(a, ref), n\n    \
             b = io.BytesIO(); np.save(b, ref)\n    \
             assert open(f'{d}/{n}.npy', 'rb').read() == b.getvalue(), n\n\
         print('ok')",
    );
    assert_eq!(out, "ok");
}

/// ndarray-npy panics when the shape overflows; ndnpy returns an error and writes nothing.
#[test]
fn zeroed_file_with_an_overflowing_shape_is_an_error() {
    let dir = Scratch::new("compat-usage-zeroed-overflow");
    let file = File::create(dir.path("huge.npy")).unwrap();
    let err = write_zeroed_npy::<f64, _>(&file, [1 << 40, 1 << 40]).unwrap_err();
    // The caller's shape is at fault, not a file; the message gives the shape.
    assert_eq!(err.kind(), ndarray_npy::ErrorKind::Usage, "{err:?}");
    assert_eq!(
        err.to_string(),
        "error formatting header: error formatting Python value: shape [1099511627776, \
         1099511627776] has more elements than the address space holds"
    );
    assert_eq!(file.metadata().unwrap().len(), 0);
}

/// Views over numpy's own files (C and Fortran order), a memory map as ndarray-npy's docs
/// show, and mutable views whose writes numpy sees.
#[test]
fn views_of_numpy_files_in_place() {
    let dir = Scratch::new("compat-usage-views");
    numpy_references::<i32>(&dir, "i4");
    numpy_references::<bool>(&dir, "b1");
    let expected = Array2::from_shape_fn((3, 4), |(r, c)| i32::value(r * 4 + c));

    let file = File::open(dir.path("ref_i4.npy")).unwrap();
    // SAFETY: the file is private to this test.
    let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
    let view = ArrayView2::<i32>::view_npy(&map).unwrap();
    assert_eq!(view, expected);
    assert_eq!(ndnpy_compat::view::<i32, Ix2>(&map).unwrap(), expected);

    let fortran = std::fs::read(dir.path("ref_i4_f.npy")).unwrap();
    let fview = ArrayView2::<i32>::view_npy(&fortran).unwrap();
    assert_eq!(fview, expected);
    assert!(fview.t().is_standard_layout());

    let bools = std::fs::read(dir.path("ref_b1.npy")).unwrap();
    let bview = ArrayView2::<bool>::view_npy(&bools).unwrap();
    assert_eq!(
        bview,
        Array2::from_shape_fn((3, 4), |(r, c)| bool::value(r * 4 + c))
    );

    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.path("ref_i4_f.npy"))
        .unwrap();
    // SAFETY: as above.
    let mut map = unsafe { memmap2::MmapMut::map_mut(&file).unwrap() };
    {
        let mut v = ArrayViewMut2::<i32>::view_mut_npy(&mut map).unwrap();
        v[[2, 1]] = -7;
    }
    ndnpy_compat::view_mut::<i32, Ix2>(&mut map).unwrap()[[0, 3]] = 1234;
    map.flush().unwrap();
    let out = numpy(
        &dir.0,
        "a = np.load(f'{d}/ref_i4_f.npy')\n\
         i = np.arange(12).reshape(3, 4)\nref = (i * 37 % 200 - 100).astype('i4')\n\
         ref[2, 1] = -7\nref[0, 3] = 1234\n\
         assert a.flags.f_contiguous and np.array_equal(a, ref)\nprint('ok')",
    );
    assert_eq!(out, "ok");
}

/// `NpzWriter::new` / `new_compressed` / `add_array` / `finish` over a `File` and a `Cursor`;
/// numpy loads both archives, stored and deflated as asked.
#[test]
fn npz_archives_written_load_in_numpy() {
    let dir = Scratch::new("compat-usage-npz-write");
    let a: Array2<i32> = array![[1, 2, 3], [4, 5, 6]];
    let b: Array1<f64> = array![0.5, -1.5];
    let c = Array::from_shape_fn((2, 2).f(), |(i, j)| Complex::new(i as f32, j as f32));
    for (name, compressed) in [("stored.npz", false), ("deflated.npz", true)] {
        let file = File::create(dir.path(name)).unwrap();
        let mut npz = if compressed {
            NpzWriter::new_compressed(file)
        } else {
            NpzWriter::new(file)
        };
        npz.add_array("a", &a).unwrap();
        npz.add_array(String::from("b"), &b.view()).unwrap();
        let c_ref: &ndarray::ArrayRef2<Complex<f32>> = &c;
        npz.add_array("c", c_ref).unwrap();
        npz.add_array("scalar", &aview0(&true)).unwrap();
        let file: File = npz.finish().unwrap();
        drop(file);
    }
    // Generic code: archive() bounded on WritableElement, into an in-memory Cursor.
    let cursor = archive(
        Cursor::new(Vec::new()),
        &[("x", a.view()), ("y", a.t())],
        true,
    )
    .unwrap();
    std::fs::write(dir.path("generic.npz"), cursor.into_inner()).unwrap();

    let out = numpy(
        &dir.0,
        "import zipfile\n\
         for name, method in [('stored', zipfile.ZIP_STORED), ('deflated', zipfile.ZIP_DEFLATED)]:\n    \
             with np.load(f'{d}/{name}.npz') as z:\n        \
                 assert list(z.keys()) == ['a', 'b', 'c', 'scalar'], list(z.keys())\n        \
                 assert np.array_equal(z['a'], np.array([[1, 2, 3], [4, 5, 6]], 'i4'))\n        \
                 assert z['a'].dtype == np.int32\n        \
                 assert np.array_equal(z['b'], np.array([0.5, -1.5]))\n        \
                 i, j = np.indices((2, 2))\n        \
                 assert z['c'].dtype == np.complex64 and z['c'].flags.f_contiguous\n        \
                 assert np.array_equal(z['c'], i + 1j * j)\n        \
                 assert z['scalar'].shape == () and z['scalar'] == True\n    \
             with zipfile.ZipFile(f'{d}/{name}.npz') as zf:\n        \
                 assert {m.compress_type for m in zf.infolist()} == {method}\n\
         with np.load(f'{d}/generic.npz') as z:\n    \
             assert np.array_equal(z['y'], z['x'].T) and z['y'].flags.f_contiguous\n\
         print('ok')",
    );
    assert_eq!(out, "ok");
}

/// `NpzReader::new` / `len` / `is_empty` / `names` / `by_name` (with and without `.npy`) /
/// `by_index` over archives numpy wrote with `savez` and `savez_compressed`.
#[test]
fn npz_archives_numpy_wrote_read_by_name_and_index() {
    let dir = Scratch::new("compat-usage-npz-read");
    numpy(
        &dir.0,
        "w = np.arange(6, dtype='f4').reshape(2, 3)\n\
         labels = np.array([3, 1, 2], dtype='i8')\n\
         np.savez(f'{d}/plain.npz', weights=w, labels=labels)\n\
         np.savez_compressed(f'{d}/packed.npz', weights=w, labels=labels)\n\
         np.savez(f'{d}/empty.npz')",
    );
    let weights = array![[0.0f32, 1.0, 2.0], [3.0, 4.0, 5.0]];
    let labels = array![3i64, 1, 2];
    for name in ["plain.npz", "packed.npz"] {
        let mut npz = NpzReader::new(File::open(dir.path(name)).unwrap()).unwrap();
        assert_eq!(npz.len(), 2);
        assert!(!npz.is_empty());
        assert_eq!(npz.names().unwrap(), ["weights", "labels"]);
        let w: Array2<f32> = npz.by_name("weights").unwrap();
        assert_eq!(w, weights);
        let w: Array2<f32> = npz.by_name("weights.npy").unwrap();
        assert_eq!(w, weights);
        let l: Array1<i64> = npz.by_index(1).unwrap();
        assert_eq!(l, labels);
        let l: ArrayD<i64> = npz.by_name("labels").unwrap();
        assert_eq!(l, labels.clone().into_dyn());
        assert!(npz
            .by_name::<ndarray::OwnedRepr<i64>, ndarray::Ix1>("labels.npy.npy")
            .is_err());
    }
    let bytes = std::fs::read(dir.path("packed.npz")).unwrap();
    let mut npz = NpzReader::new(Cursor::new(&bytes)).unwrap();
    let l: Array1<i64> = npz.by_name("labels").unwrap();
    assert_eq!(l, labels);
    let all = unarchive::<_, f32, ndarray::IxDyn>(Cursor::new(
        archive(Cursor::new(Vec::new()), &[("w", weights.view())], false)
            .unwrap()
            .into_inner(),
    ))
    .unwrap();
    assert_eq!(all, [("w".to_string(), weights.into_dyn())]);

    let npz = NpzReader::new(File::open(dir.path("empty.npz")).unwrap()).unwrap();
    assert!(npz.is_empty());
    assert_eq!(npz.len(), 0);
}

/// A reader that ndarray-npy users pass by `&mut` and reuse: the position after a read is the
/// end of the array, so a file with a prefix and a suffix reads as numpy's `np.load` of an
/// open file does.
#[test]
fn reading_from_a_file_at_an_offset_stops_after_the_array() {
    let dir = Scratch::new("compat-usage-offset");
    let path = dir.path("framed.bin");
    let mut file = File::create(&path).unwrap();
    file.write_all(b"HEAD").unwrap();
    array![[1u8, 2], [3, 4]].write_npy(&mut file).unwrap();
    file.write_all(b"TAIL").unwrap();
    drop(file);
    let mut file = File::open(&path).unwrap();
    file.seek(SeekFrom::Start(4)).unwrap();
    let a = Array2::<u8>::read_npy(&mut file).unwrap();
    assert_eq!(a, array![[1, 2], [3, 4]]);
    let mut rest = Vec::new();
    file.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, b"TAIL");
    let out = numpy(
        &dir.0,
        "f = open(f'{d}/framed.bin', 'rb'); f.seek(4)\n\
         a = np.load(f)\nassert np.array_equal(a, [[1, 2], [3, 4]])\nprint(f.read())",
    );
    assert_eq!(out, "b'TAIL'");
}
