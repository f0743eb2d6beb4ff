//! numpy is the oracle: a real `python3` with numpy loads what we write (random dtypes, shapes,
//! layouts, byte orders), compares values bit for bit, and checks that `np.save` of the loaded
//! array gives exactly our bytes. In the other direction numpy writes random arrays and we read
//! them.
//!
//! These tests need `python3 -c "import numpy"` to work; `.ci/run` installs numpy.

use ndarray::{ArrayD, IxDyn, ShapeBuilder, SliceInfoElem};
use ndnpy::{
    dtype::ByteOrder, ReadNpyExt, ReadableElement, WritableElement, WriteNpyExt, WriteOptions,
};
use num_complex::Complex;
use std::fmt::Write as _;
use std::path::Path;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Element types with a constructor from random bits and their native bytes.
trait Elem: ReadableElement + WritableElement + Clone + std::fmt::Debug {
    const CODE: &'static str;
    fn from_bits(bits: u64) -> Self;
    fn push_ne_bytes(&self, out: &mut Vec<u8>);
}

macro_rules! elem {
    ($($t:ty, $code:literal, $from:expr, $bytes:expr;)*) => {$(
        impl Elem for $t {
            const CODE: &'static str = $code;
            fn from_bits(bits: u64) -> Self {
                let f: fn(u64) -> $t = $from;
                f(bits)
            }
            fn push_ne_bytes(&self, out: &mut Vec<u8>) {
                let f: fn(&$t, &mut Vec<u8>) = $bytes;
                f(self, out)
            }
        }
    )*};
}

elem! {
    bool, "b1", |b| b & 1 == 1, |x, o| o.push(*x as u8);
    i8, "i1", |b| b as i8, |x, o| o.extend(x.to_ne_bytes());
    u8, "u1", |b| b as u8, |x, o| o.extend(x.to_ne_bytes());
    i16, "i2", |b| b as i16, |x, o| o.extend(x.to_ne_bytes());
    u16, "u2", |b| b as u16, |x, o| o.extend(x.to_ne_bytes());
    i32, "i4", |b| b as i32, |x, o| o.extend(x.to_ne_bytes());
    u32, "u4", |b| b as u32, |x, o| o.extend(x.to_ne_bytes());
    i64, "i8", |b| b as i64, |x, o| o.extend(x.to_ne_bytes());
    u64, "u8", |b| b, |x, o| o.extend(x.to_ne_bytes());
    half::f16, "f2", |b| half::f16::from_bits(b as u16), |x, o| o.extend(x.to_ne_bytes());
    f32, "f4", |b| f32::from_bits(b as u32), |x, o| o.extend(x.to_ne_bytes());
    f64, "f8", f64::from_bits, |x, o| o.extend(x.to_ne_bytes());
    Complex<f32>, "c8", |b| Complex::new(f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32)),
        |x, o| { o.extend(x.re.to_ne_bytes()); o.extend(x.im.to_ne_bytes()) };
    Complex<f64>, "c16", |b| Complex::new(f64::from_bits(b), f64::from_bits(b.rotate_left(17))),
        |x, o| { o.extend(x.re.to_ne_bytes()); o.extend(x.im.to_ne_bytes()) };
}

fn native_char() -> char {
    ByteOrder::NATIVE.as_char()
}

use crate::common::{python, scratch_dir};

/// Writes a random array of logical `shape` in a random layout (C, Fortran, permuted axes,
/// or a strided and reversed slice of a larger array) in `order`. Returns the file bytes, the
/// logical values as native bytes in C order, and a layout label.
fn write_random<T: Elem>(
    rng: &mut Rng,
    shape: &[usize],
    order: ByteOrder,
) -> (Vec<u8>, Vec<u8>, &'static str) {
    let n: usize = shape.iter().product();
    let layout = rng.below(4);
    let mut fill = |len: usize| {
        (0..len)
            .map(|_| T::from_bits(rng.next()))
            .collect::<Vec<_>>()
    };
    let opts = WriteOptions::new().byte_order(order);
    let mut file = Vec::new();
    let mut values = Vec::new();
    let mut emit = |view: ndarray::ArrayViewD<'_, T>| {
        view.write_npy_with_options(&mut file, &opts).unwrap();
        view.iter().for_each(|x| x.push_ne_bytes(&mut values));
    };
    let label = match layout {
        0 => {
            emit(
                ArrayD::from_shape_vec(IxDyn(shape), fill(n))
                    .unwrap()
                    .view(),
            );
            "c"
        }
        1 => {
            emit(
                ArrayD::from_shape_vec(IxDyn(shape).f(), fill(n))
                    .unwrap()
                    .view(),
            );
            "f"
        }
        2 => {
            // Axes reversed (and so rotated for ndim >= 3).
            let nd = shape.len();
            let perm: Vec<usize> = (0..nd).rev().collect();
            let stored: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
            let base = ArrayD::from_shape_vec(IxDyn(&stored), fill(n)).unwrap();
            let view = base.view().permuted_axes(IxDyn(&perm));
            assert_eq!(view.shape(), shape);
            emit(view);
            "permuted"
        }
        _ => {
            let big: Vec<usize> = shape.iter().map(|&d| d * 2 + 1).collect();
            let m: usize = big.iter().product();
            let base = ArrayD::from_shape_vec(IxDyn(&big), fill(m)).unwrap();
            let info: Vec<SliceInfoElem> = (0..shape.len())
                .map(|i| SliceInfoElem::Slice {
                    start: 0,
                    end: Some((2 * shape[i]) as isize),
                    step: if i % 2 == 0 { 2 } else { -2 },
                })
                .collect();
            let view = base.slice(info.as_slice());
            assert_eq!(view.shape(), shape);
            emit(view);
            "sliced"
        }
    };
    (file, values, label)
}

struct Case {
    npy: String,
    descr: String,
    shape: Vec<usize>,
    bin: String,
}

fn write_case<T: Elem>(rng: &mut Rng, dir: &Path, id: usize, cases: &mut Vec<Case>) {
    let ndim = rng.below(5);
    let shape: Vec<usize> = (0..ndim)
        .map(|_| {
            if rng.below(8) == 0 {
                0
            } else {
                1 + rng.below(5)
            }
        })
        .collect();
    let order = if rng.below(2) == 0 {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };
    let (file, a, layout) = write_random::<T>(rng, &shape, order);
    let npy = format!("case{id}_{}_{layout}.npy", T::CODE);
    std::fs::write(dir.join(&npy), &file).unwrap();
    // Our own reader must give the same logical array back.
    let back = ArrayD::<T>::read_npy(&file[..]).unwrap();
    let mut b = Vec::new();
    back.iter().for_each(|x| x.push_ne_bytes(&mut b));
    assert!(a == b, "{npy}: our read differs from what we wrote");
    let bin = format!("case{id}.bin");
    std::fs::write(dir.join(&bin), &a).unwrap();
    let one_byte = matches!(T::CODE, "b1" | "i1" | "u1");
    let descr = if one_byte {
        format!("|{}", T::CODE)
    } else {
        format!("{}{}", native_char(), T::CODE)
    };
    cases.push(Case {
        npy,
        descr,
        shape,
        bin,
    });
}

const CHECK_OURS: &str = r#"
import io, sys
import numpy as np
d = sys.argv[1]
n = 0
for line in open(f"{d}/manifest.txt"):
    npy, descr, shape, binf = line.split("\t")
    shape = tuple(int(x) for x in shape.split(",") if x)
    raw = open(f"{d}/{npy}", "rb").read()
    a = np.load(f"{d}/{npy}")
    assert a.shape == shape, (npy, a.shape, shape)
    native = a if a.dtype.isnative else a.byteswap().view(a.dtype.newbyteorder("="))
    want = open(f"{d}/{binf.strip()}", "rb").read()
    assert native.dtype == np.dtype(descr), (npy, native.dtype, descr)
    assert native.tobytes(order="C") == want, f"{npy}: values differ"
    buf = io.BytesIO()
    np.save(buf, a)
    assert buf.getvalue() == raw, f"{npy}: np.save writes different bytes:\n{buf.getvalue()[:200]!r}\n{raw[:200]!r}"
    n += 1
print(f"checked {n}")
"#;

#[test]
fn numpy_loads_what_we_write_and_saves_the_same_bytes() {
    let dir = scratch_dir("oracle-write");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut cases = Vec::new();
    for id in 0..280 {
        match id % 14 {
            0 => write_case::<bool>(&mut rng, &dir, id, &mut cases),
            1 => write_case::<i8>(&mut rng, &dir, id, &mut cases),
            2 => write_case::<u8>(&mut rng, &dir, id, &mut cases),
            3 => write_case::<i16>(&mut rng, &dir, id, &mut cases),
            4 => write_case::<u16>(&mut rng, &dir, id, &mut cases),
            5 => write_case::<i32>(&mut rng, &dir, id, &mut cases),
            6 => write_case::<u32>(&mut rng, &dir, id, &mut cases),
            7 => write_case::<i64>(&mut rng, &dir, id, &mut cases),
            8 => write_case::<u64>(&mut rng, &dir, id, &mut cases),
            9 => write_case::<half::f16>(&mut rng, &dir, id, &mut cases),
            10 => write_case::<f32>(&mut rng, &dir, id, &mut cases),
            11 => write_case::<f64>(&mut rng, &dir, id, &mut cases),
            12 => write_case::<Complex<f32>>(&mut rng, &dir, id, &mut cases),
            _ => write_case::<Complex<f64>>(&mut rng, &dir, id, &mut cases),
        }
    }
    let mut manifest = String::new();
    for c in &cases {
        let shape: Vec<String> = c.shape.iter().map(|d| d.to_string()).collect();
        writeln!(
            manifest,
            "{}\t{}\t{}\t{}",
            c.npy,
            c.descr,
            shape.join(","),
            c.bin
        )
        .unwrap();
    }
    std::fs::write(dir.join("manifest.txt"), manifest).unwrap();
    let out = python(CHECK_OURS, &[&dir]);
    assert_eq!(out.trim(), format!("checked {}", cases.len()));
    std::fs::remove_dir_all(&dir).unwrap();
}

const WRITE_THEIRS: &str = r#"
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(12345)
codes = ["b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16"]
with open(f"{d}/manifest.txt", "w") as m:
    for i in range(280):
        code = codes[i % len(codes)]
        order = "<>"[int(rng.integers(2))] if code not in ("b1", "i1", "u1") else "|"
        dt = np.dtype(order + code)
        shape = tuple(int(x) for x in rng.integers(0, 5, size=int(rng.integers(0, 5))))
        n = int(np.prod(shape)) if shape else 1
        raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
        if code == "b1":
            raw = bytes(b & 1 for b in raw)
        a = np.frombuffer(raw, dtype=dt).reshape(shape)
        layout = ["c", "f", "t", "s"][int(rng.integers(4))]
        if layout == "f":
            a = np.asfortranarray(a)
        elif layout == "t":
            a = a.T
        elif layout == "s" and a.ndim:
            big = np.zeros(tuple(2 * s for s in a.shape), dtype=dt)
            idx = tuple(slice(None, None, 2) if k % 2 == 0 else slice(None, None, -2) for k in range(a.ndim))
            big[idx] = a
            a = big[idx]
        name = f"theirs{i}_{code}.npy"
        np.save(f"{d}/{name}", a)
        native = a if a.dtype.isnative else a.byteswap().view(a.dtype.newbyteorder("="))
        open(f"{d}/theirs{i}.bin", "wb").write(native.tobytes(order="C"))
        m.write(f"{name}\t{code}\t{','.join(map(str, a.shape))}\ttheirs{i}.bin\n")
print("written")
"#;

fn check_theirs<T: Elem>(dir: &Path, npy: &str, shape: &[usize], bin: &str) {
    let file = std::fs::read(dir.join(npy)).unwrap();
    let a = ArrayD::<T>::read_npy(&file[..]).unwrap_or_else(|e| panic!("{npy}: {e}"));
    assert_eq!(a.shape(), shape, "{npy}");
    let mut got = Vec::new();
    a.iter().for_each(|x| x.push_ne_bytes(&mut got));
    assert!(
        got == std::fs::read(dir.join(bin)).unwrap(),
        "{npy}: values differ"
    );
    // Writing it back gives numpy's bytes (same layout rules, same byte order).
    let order = ndnpy::Header::read(&mut &file[..], &Default::default())
        .unwrap()
        .header
        .dtype
        .as_scalar()
        .unwrap()
        .byte_order();
    let mut out = Vec::new();
    a.write_npy_with_options(&mut out, &WriteOptions::new().byte_order(order))
        .unwrap();
    assert!(out == file, "{npy}: rewriting gives different bytes");
}

#[test]
fn we_read_what_numpy_writes_and_write_it_back_identically() {
    let dir = scratch_dir("oracle-read");
    assert_eq!(python(WRITE_THEIRS, &[&dir]).trim(), "written");
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    let mut n = 0;
    for line in manifest.lines() {
        let parts: Vec<&str> = line.split('\t').collect();
        let [npy, code, shape, bin] = parts[..] else {
            panic!("bad manifest line {line}")
        };
        let shape: Vec<usize> = shape
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        match code {
            "b1" => check_theirs::<bool>(&dir, npy, &shape, bin),
            "i1" => check_theirs::<i8>(&dir, npy, &shape, bin),
            "u1" => check_theirs::<u8>(&dir, npy, &shape, bin),
            "i2" => check_theirs::<i16>(&dir, npy, &shape, bin),
            "u2" => check_theirs::<u16>(&dir, npy, &shape, bin),
            "i4" => check_theirs::<i32>(&dir, npy, &shape, bin),
            "u4" => check_theirs::<u32>(&dir, npy, &shape, bin),
            "i8" => check_theirs::<i64>(&dir, npy, &shape, bin),
            "u8" => check_theirs::<u64>(&dir, npy, &shape, bin),
            "f2" => check_theirs::<half::f16>(&dir, npy, &shape, bin),
            "f4" => check_theirs::<f32>(&dir, npy, &shape, bin),
            "f8" => check_theirs::<f64>(&dir, npy, &shape, bin),
            "c8" => check_theirs::<Complex<f32>>(&dir, npy, &shape, bin),
            "c16" => check_theirs::<Complex<f64>>(&dir, npy, &shape, bin),
            other => panic!("unknown code {other}"),
        }
        n += 1;
    }
    assert_eq!(n, 280);
    std::fs::remove_dir_all(&dir).unwrap();
}
