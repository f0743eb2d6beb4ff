//! numpy is the oracle for `.npz`: a real `python3` with numpy loads every archive we write
//! (stored, compressed, aligned, empty, names with `/` and non-ASCII, Fortran-order and
//! big-endian members, raw byte members) and reports each member's dtype, shape, order and
//! bytes; in the other direction numpy writes random archives (`savez`, `savez_compressed`,
//! keyword and positional names, streamed to an unseekable file) and we read every value back.
//!
//! These tests need `python3 -c "import numpy"` to work; `.ci/run` installs numpy.

use half::f16;
use ndarray::{arr0, array, Array1, Array2, ArrayD, IxDyn, OwnedRepr, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, npz::NpzWriteOptions, NpzReader, NpzWriter, ReadableElement, WritableElement,
};
use num_complex::Complex;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::common::{python, scratch_dir};

/// Element types and their bytes in a given order.
trait Elem: ReadableElement + WritableElement + Clone {
    fn push(&self, order: ByteOrder, out: &mut Vec<u8>);
}

macro_rules! elem_num {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn push(&self, order: ByteOrder, out: &mut Vec<u8>) {
                match order {
                    ByteOrder::Big => out.extend(self.to_be_bytes()),
                    _ => out.extend(self.to_le_bytes()),
                }
            }
        }
    )*};
}
elem_num!(i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64);

impl Elem for bool {
    fn push(&self, _: ByteOrder, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
}

impl Elem for Complex<f64> {
    fn push(&self, order: ByteOrder, out: &mut Vec<u8>) {
        self.re.push(order, out);
        self.im.push(order, out);
    }
}

impl Elem for Complex<f32> {
    fn push(&self, order: ByteOrder, out: &mut Vec<u8>) {
        self.re.push(order, out);
        self.im.push(order, out);
    }
}

/// The logical (C-order) bytes of `a` in `order`, as hex: what numpy's
/// `a.tobytes(order="C").hex()` prints.
fn hex<T: Elem, D: ndarray::Dimension>(a: &ndarray::ArrayRef<T, D>, order: ByteOrder) -> String {
    let mut bytes = Vec::new();
    a.iter().for_each(|x| x.push(order, &mut bytes));
    to_hex(&bytes)
}

fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        write!(s, "{b:02x}").unwrap();
    }
    s
}

/// What numpy reports for one member.
#[derive(Debug, PartialEq)]
struct Member {
    kind: String,
    descr: String,
    shape: String,
    fortran: bool,
    hex: String,
}

/// Prints, for every member of each archive: key, kind, dtype.str, shape, Fortran order, and
/// the C-order bytes (arrays) or raw bytes as hex. Keys are printed as their UTF-8 hex so any
/// name survives the trip.
const DESCRIBE: &str = r#"
import sys, numpy as np
for path in sys.argv[1:]:
    with np.load(path) as f:
        print("archive", path, len(f.files))
        for k in f.files:
            v = f[k]
            kh = k.encode().hex()
            if isinstance(v, bytes):
                print("member", kh or "-", "bytes", "-", "-", 0, v.hex() or "-")
            else:
                fortran = int(v.flags.f_contiguous and not v.flags.c_contiguous)
                shape = ",".join(map(str, v.shape)) or "()"
                print("member", kh or "-", "array", v.dtype.str, shape, fortran,
                      v.tobytes(order="C").hex() or "-")
"#;

fn describe(paths: &[&Path]) -> BTreeMap<String, Vec<(String, Member)>> {
    let out = python(DESCRIBE, paths);
    let mut archives = BTreeMap::new();
    let mut current = String::new();
    for line in out.lines() {
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "archive" => {
                current = w[1].to_string();
                archives.insert(current.clone(), Vec::new());
            }
            "member" => {
                let key = if w[1] == "-" {
                    String::new()
                } else {
                    let bytes: Vec<u8> = (0..w[1].len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&w[1][i..i + 2], 16).unwrap())
                        .collect();
                    String::from_utf8(bytes).unwrap()
                };
                let m = Member {
                    kind: w[2].into(),
                    descr: w[3].into(),
                    shape: w[4].into(),
                    fortran: w[5] == "1",
                    hex: if w[6] == "-" {
                        String::new()
                    } else {
                        w[6].into()
                    },
                };
                archives.get_mut(&current).unwrap().push((key, m));
            }
            _ => panic!("unexpected line {line}"),
        }
    }
    archives
}

fn array_member<T: Elem, D: ndarray::Dimension>(
    a: &ndarray::ArrayRef<T, D>,
    descr: &str,
    fortran: bool,
    order: ByteOrder,
) -> Member {
    let shape = if a.ndim() == 0 {
        "()".to_string()
    } else {
        a.shape()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    Member {
        kind: "array".into(),
        descr: descr.into(),
        shape,
        fortran,
        hex: hex(a, order),
    }
}

/// Writes one archive of every kind of member with `options`; returns what numpy should see.
fn write_archive(path: &Path, options: NpzWriteOptions) -> Vec<(String, Member)> {
    let le = ByteOrder::Little;
    let mut w = NpzWriter::with_options(
        std::io::BufWriter::new(std::fs::File::create(path).unwrap()),
        &options,
    );
    let mut expect = Vec::new();

    let a = array![[0.0f64, 0.5, 1.0], [1.5, 2.0, 2.5]];
    w.add_array("a", &a).unwrap();
    expect.push(("a".into(), array_member(&a, "<f8", false, le)));

    let f = Array2::from_shape_fn((3, 4).f(), |(i, j)| (i * 4 + j) as i32);
    w.add_array("fortran", &f).unwrap();
    expect.push(("fortran".into(), array_member(&f, "<i4", true, le)));

    let be = Array1::from_iter((0u16..5).map(|i| i * 1000));
    w.add_array_with_options("big_endian", &be, &options.byte_order(ByteOrder::Big))
        .unwrap();
    expect.push((
        "big_endian".into(),
        array_member(&be, ">u2", false, ByteOrder::Big),
    ));

    let bef = Array2::from_shape_fn((2, 3).f(), |(i, j)| (i as f64) - (j as f64) * 0.25);
    w.add_array_with_options("be_fortran", &bef, &options.byte_order(ByteOrder::Big))
        .unwrap();
    expect.push((
        "be_fortran".into(),
        array_member(&bef, ">f8", true, ByteOrder::Big),
    ));

    let s = arr0(3.5f32);
    w.add_array("scalar", &s).unwrap();
    expect.push(("scalar".into(), array_member(&s, "<f4", false, le)));

    let e = Array2::<i64>::zeros((0, 3));
    w.add_array("empty", &e).unwrap();
    expect.push(("empty".into(), array_member(&e, "<i8", false, le)));

    let b = array![true, false, true];
    w.add_array("flags", &b).unwrap();
    expect.push(("flags".into(), array_member(&b, "|b1", false, le)));

    let lw = Array2::from_shape_fn((4, 2), |(i, j)| f16::from_f32(i as f32 * 0.5 - j as f32));
    w.add_array("layer1/weight", &lw).unwrap();
    expect.push(("layer1/weight".into(), array_member(&lw, "<f2", false, le)));

    let c = array![Complex::new(1.0f64, -2.0), Complex::new(0.5, 0.25)];
    w.add_array("données/α", &c).unwrap();
    expect.push(("données/α".into(), array_member(&c, "<c16", false, le)));

    let x = array![5u8, 6];
    w.add_array("x.npy", &x).unwrap();
    expect.push(("x.npy".into(), array_member(&x, "|u1", false, le)));

    let big = Array2::from_shape_fn((300, 70), |(i, j)| (i * 70 + j) as i64 % 1009);
    let permuted = big.t(); // Fortran order
    w.add_array("permuted", &permuted).unwrap();
    expect.push(("permuted".into(), array_member(&permuted, "<i8", true, le)));
    let sliced = big.slice(ndarray::s![..;7, ..;-3]); // neither: written in C order
    w.add_array("sliced", &sliced).unwrap();
    expect.push(("sliced".into(), array_member(&sliced, "<i8", false, le)));

    let z = array![Complex::new(1.5f32, 2.5)];
    w.add_array("", &z).unwrap();
    expect.push(("".into(), array_member(&z, "<c8", false, le)));

    for k in 0..2i64 {
        let p = Array1::from_iter((0..3).map(|i| i * 10 + k));
        assert_eq!(w.add_positional(&p).unwrap(), format!("arr_{k}"));
        expect.push((format!("arr_{k}"), array_member(&p, "<i8", false, le)));
    }

    w.add_bytes("meta.txt", b"epoch=3\n").unwrap();
    expect.push((
        "meta.txt".into(),
        Member {
            kind: "bytes".into(),
            descr: "-".into(),
            shape: "-".into(),
            fortran: false,
            hex: to_hex(b"epoch=3\n"),
        },
    ));
    w.finish().unwrap();
    expect
}

#[test]
fn numpy_loads_what_we_write() {
    let dir = scratch_dir("write");
    let variants = [
        ("stored", NpzWriteOptions::new()),
        ("compressed", NpzWriteOptions::compressed()),
        ("aligned", NpzWriteOptions::new().align(true)),
        ("level1", NpzWriteOptions::compressed().level(Some(1))),
        ("level9", NpzWriteOptions::compressed().level(Some(9))),
    ];
    let mut expected = BTreeMap::new();
    let mut paths = Vec::new();
    for (name, options) in variants {
        let path = dir.join(format!("{name}.npz"));
        expected.insert(
            path.to_str().unwrap().to_string(),
            write_archive(&path, options),
        );
        paths.push(path);
    }
    let empty = dir.join("empty.npz");
    NpzWriter::create(&empty).unwrap().finish().unwrap();
    expected.insert(empty.to_str().unwrap().to_string(), Vec::new());
    paths.push(empty);

    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let seen = describe(&refs);
    assert_eq!(seen.len(), expected.len());
    for (path, members) in &expected {
        let got = &seen[path];
        assert_eq!(got.len(), members.len(), "{path}");
        for ((k1, m1), (k2, m2)) in members.iter().zip(got) {
            assert_eq!(k1, k2, "{path}");
            assert_eq!(m1, m2, "{path}: member {k1:?}");
        }
    }
    // The empty archive is np.savez's 22 bytes.
    assert_eq!(std::fs::read(dir.join("empty.npz")).unwrap().len(), 22);

    // In the aligned archive every array's data starts on a 64-byte boundary, as numpy's
    // zipfile finds the members (local headers parsed independently of our reader).
    let out = python(
        r#"
import sys, zipfile, struct
path = sys.argv[1]
raw = open(path, "rb").read()
for info in zipfile.ZipFile(path).infolist():
    h = info.header_offset
    n, m = struct.unpack("<HH", raw[h + 26:h + 30])
    start = h + 30 + n + m
    if raw[start:start + 6] != b"\x93NUMPY":
        continue
    hlen = struct.unpack("<H", raw[start + 8:start + 10])[0]
    print(info.filename, (start + 10 + hlen) % 64)
"#,
        &[&dir.join("aligned.npz")],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15, "{out}");
    assert!(lines.iter().all(|l| l.ends_with(" 0")), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// numpy writes random archives and a manifest; we read every member and compare.
const NUMPY_WRITES: &str = r#"
import sys, io, numpy as np
out, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed)
dtypes = ["<f8", ">f8", "<f4", ">f4", "<f2", "<i8", ">i4", "<i2", "|i1", "|u1", ">u2", "<u4",
          ">u8", "|b1", "<c16", ">c8"]

class Unseekable:
    def __init__(self): self.data = bytearray()
    def write(self, b): self.data += b; return len(b)
    def read(self, *a): raise io.UnsupportedOperation("read")
    def flush(self): pass

def random_array():
    dt = np.dtype(dtypes[rng.integers(len(dtypes))])
    ndim = int(rng.integers(0, 4))
    shape = tuple(int(rng.integers(0, 5)) for _ in range(ndim))
    n = int(np.prod(shape)) if shape else 1
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
    if dt.kind == "b":
        raw = bytes(b & 1 for b in raw)
    a = np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    if ndim >= 2 and rng.integers(2):
        a = np.asfortranarray(a)
    return a

with open(out + ".manifest", "w") as man:
    for kind in ["savez", "savez_compressed", "streamed", "streamed_compressed"]:
        positional = [random_array() for _ in range(int(rng.integers(0, 3)))]
        keywords = {f"k{i}/{kind}": random_array() for i in range(int(rng.integers(1, 6)))}
        path = f"{out}.{kind}.npz"
        save = np.savez_compressed if kind.endswith("compressed") else np.savez
        if kind.startswith("streamed"):
            f = Unseekable()
            save(f, *positional, **keywords)
            open(path, "wb").write(f.data)
        else:
            save(path, *positional, **keywords)
        with np.load(path) as f:
            man.write(f"archive {path} {len(f.files)}\n")
            for k in f.files:
                v = f[k]
                fortran = int(v.flags.f_contiguous and not v.flags.c_contiguous)
                shape = ",".join(map(str, v.shape)) or "()"
                man.write(f"member {k} {v.dtype.str} {shape} {fortran} {v.tobytes(order='C').hex() or '-'}\n")
"#;

fn read_hex<T: Elem>(npz: &mut NpzReader<std::fs::File>, key: &str, order: ByteOrder) -> String {
    let a: ArrayD<T> = npz.by_name(key).unwrap();
    hex(&a, order)
}

#[test]
fn we_read_what_numpy_writes() {
    let dir = scratch_dir("read");
    for seed in 0..6u64 {
        let base = dir.join(format!("r{seed}"));
        python(NUMPY_WRITES, &[&base, Path::new(&seed.to_string())]);
        let manifest = std::fs::read_to_string(base.with_extension("manifest")).unwrap();
        let mut npz: Option<NpzReader<std::fs::File>> = None;
        let mut keys = Vec::new();
        let mut checked = 0;
        for line in manifest.lines() {
            let w: Vec<&str> = line.split(' ').collect();
            if w[0] == "archive" {
                if let Some(mut prev) = npz.take() {
                    assert_eq!(prev.names().unwrap(), keys);
                }
                npz = Some(NpzReader::open(w[1]).unwrap());
                keys.clear();
                continue;
            }
            let npz = npz.as_mut().unwrap();
            let (key, descr, shape, fortran) = (w[1], w[2], w[3], w[4] == "1");
            let want = if w[5] == "-" { "" } else { w[5] };
            keys.push(key.to_string());
            let info = npz.member(key).unwrap().header().unwrap();
            assert_eq!(info.header.dtype.descr(), format!("'{descr}'"), "{line}");
            let dims: Vec<String> = info.header.shape.iter().map(|d| d.to_string()).collect();
            let dims = if dims.is_empty() {
                "()".into()
            } else {
                dims.join(",")
            };
            assert_eq!(dims, shape, "{key}");
            // numpy reports Fortran order for arrays that are only F-contiguous; a file
            // may say fortran_order for shapes where both orders coincide.
            if fortran {
                assert!(info.header.fortran_order, "{key}");
            }
            let order = match descr.as_bytes()[0] {
                b'>' => ByteOrder::Big,
                _ => ByteOrder::Little,
            };
            let got = match &descr[1..] {
                "f8" => read_hex::<f64>(npz, key, order),
                "f4" => read_hex::<f32>(npz, key, order),
                "f2" => read_hex::<f16>(npz, key, order),
                "i8" => read_hex::<i64>(npz, key, order),
                "i4" => read_hex::<i32>(npz, key, order),
                "i2" => read_hex::<i16>(npz, key, order),
                "i1" => read_hex::<i8>(npz, key, order),
                "u1" => read_hex::<u8>(npz, key, order),
                "u2" => read_hex::<u16>(npz, key, order),
                "u4" => read_hex::<u32>(npz, key, order),
                "u8" => read_hex::<u64>(npz, key, order),
                "b1" => read_hex::<bool>(npz, key, order),
                "c16" => read_hex::<Complex<f64>>(npz, key, order),
                "c8" => read_hex::<Complex<f32>>(npz, key, order),
                other => panic!("no element type for {other}"),
            };
            assert_eq!(got, want, "seed {seed}: {line}");
            checked += 1;
        }
        if let Some(mut last) = npz {
            assert_eq!(last.names().unwrap(), keys);
        }
        assert!(checked >= 4, "seed {seed}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The zip64 offsets of [`members_of_4_gib_and_more_use_zip64`] without its 4.5 GB of disk
/// and 9 GB of memory: numpy's `np.savez` writes a 4 GiB + 100 byte member and one after it
/// into a file whose zero runs are holes (a lazily zeroed array, written through a file object
/// that seeks over chunks of zeros), so the archive has zip64 sizes (the member's 4 GiB) and a
/// zip64 offset (the member after it), as Python's `zipfile` confirms. We read its directory,
/// the big member's header and bytes at offsets 0, 2**31, 4 GiB + 3 and its last (region
/// reads, in place), and the member after it, checked against its CRC-32.
#[test]
fn a_sparse_archive_has_the_zip64_offsets_of_a_4_gib_member() {
    let dir = scratch_dir("zip64-sparse");
    let path = dir.join("sparse.npz");
    let out = python(
        r#"
import sys, zipfile, numpy as np
class Sparse:
    """A file that seeks over writes of zeros, leaving holes."""
    def __init__(self, f): self.f = f
    def write(self, b):
        b = memoryview(b).cast("B")
        if bytes(b).count(0) == len(b):
            self.f.seek(len(b), 1)
        else:
            self.f.write(b)
        return len(b)
    def read(self, *a): return self.f.read(*a)
    def seek(self, *a): return self.f.seek(*a)
    def tell(self): return self.f.tell()
    def seekable(self): return True
    def flush(self): self.f.flush()
n = (4 << 30) + 100
a = np.zeros(n, np.uint8)
for i, v in [(0, 1), (1 << 31, 2), ((4 << 30) + 3, 3), (n - 1, 4)]:
    a[i] = v
with open(sys.argv[1], "w+b") as f:
    np.savez(Sparse(f), stored=a, after=np.array([7, 8], np.int32))
    f.truncate(f.tell())
z = zipfile.ZipFile(sys.argv[1])
s, t = z.getinfo("stored.npy"), z.getinfo("after.npy")
print(s.file_size, t.header_offset, np.load(sys.argv[1])["after"].tolist())
"#,
        &[&path],
    );
    let n = (4u64 << 30) + 100;
    let fields: Vec<&str> = out.split_whitespace().collect();
    let after_offset: u64 = fields[1].parse().unwrap();
    assert_eq!(fields[0], (n + 128).to_string(), "{out}");
    assert!(after_offset > u32::MAX as u64, "{out}");
    assert_eq!(fields[2..], ["[7,", "8]"], "{out}");

    let mut npz = NpzReader::open(&path).unwrap();
    assert_eq!(npz.names().unwrap(), ["stored", "after"]);
    let mut big = npz.member("stored").unwrap();
    assert_eq!(big.info().size(), n + 128);
    let range = big.stored_range().unwrap().unwrap();
    assert_eq!(range.end - range.start, n + 128);
    assert_eq!(big.header().unwrap().header.shape, [n as usize]);
    for (at, want) in [
        (0usize, 1u8),
        (1 << 31, 2),
        ((4 << 30) + 3, 3),
        (n as usize - 1, 4),
    ] {
        let got: Array1<u8> = big.read_slice(ndarray::s![at - at.min(1)..at + 1]).unwrap();
        assert_eq!(got[got.len() - 1], want, "stored[{at}]");
    }
    let after: Array1<i32> = npz.by_name("after").unwrap();
    assert_eq!(after, array![7, 8]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Members of 4 GiB and more get zip64 sizes, and members after them zip64 offsets; numpy
/// reads the archive, and so do we. Needs about 4.5 GB of disk and 9 GB of memory, so it runs
/// only on request: `cargo test --release --test it npz_numpy:: -- --ignored`. The same
/// offsets on the reading side run in every test run, in a sparse archive numpy writes
/// ([`a_sparse_archive_has_the_zip64_offsets_of_a_4_gib_member`]); this one adds our writer's
/// zip64 records for a member of 4 GiB, stored and deflated.
#[test]
#[ignore = "writes a 4 GiB archive; run with --ignored"]
fn members_of_4_gib_and_more_use_zip64() {
    let dir = scratch_dir("zip64");
    let path = dir.join("big.npz");
    let n = (4usize << 30) + 100;
    let marks = [(0usize, 1u8), (1 << 31, 2), ((4 << 30) + 3, 3), (n - 1, 4)];
    {
        let mut big = vec![0u8; n];
        for &(i, v) in &marks {
            big[i] = v;
        }
        let big = Array1::from_vec(big);
        let mut w = NpzWriter::create(&path).unwrap();
        w.add_array("stored", &big).unwrap();
        w.add_array_with_options(
            "deflated",
            &big,
            &NpzWriteOptions::compressed().level(Some(1)),
        )
        .unwrap();
        w.add_array("after", &array![7i32, 8]).unwrap();
        w.finish().unwrap();
    }
    {
        let mut npz = NpzReader::open(&path).unwrap();
        assert_eq!(npz.names().unwrap(), ["stored", "deflated", "after"]);
        let after: Array1<i32> = npz.by_name("after").unwrap();
        assert_eq!(after, array![7, 8]);
        for key in ["stored", "deflated"] {
            assert_eq!(npz.member(key).unwrap().header().unwrap().header.shape, [n]);
            let a: Array1<u8> = npz.by_name(key).unwrap();
            for &(i, v) in &marks {
                assert_eq!(a[i], v, "{key}[{i}]");
            }
            assert_eq!(a.iter().map(|&x| u64::from(x)).sum::<u64>(), 10, "{key}");
        }
    }
    let out = python(
        r#"
import sys, numpy as np
with np.load(sys.argv[1]) as f:
    print(list(f.files), f["after"].tolist())
    for k in ["stored", "deflated"]:
        a = f[k]
        print(k, a.shape[0], a[0], a[1 << 31], a[(4 << 30) + 3], a[-1], int(a.sum(dtype=np.uint64)))
        del a
"#,
        &[&path],
    );
    let expect = format!(
        "['stored', 'deflated', 'after'] [7, 8]\nstored {n} 1 2 3 4 10\ndeflated {n} 1 2 3 4 10\n"
    );
    assert_eq!(out, expect);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn numpy_reads_archives_of_more_than_65535_members() {
    let dir = scratch_dir("many");
    let path = dir.join("many.npz");
    // Stored: numpy's zipfile reads 70,000 members quickly, and the zip64 end record does
    // not depend on compression.
    let mut w = NpzWriter::new(std::io::BufWriter::new(
        std::fs::File::create(&path).unwrap(),
    ));
    for i in 0..70_000u32 {
        w.add_array(format!("m{i}"), &arr0(i)).unwrap();
    }
    w.finish().unwrap();
    let out = python(
        r#"
import sys, numpy as np
with np.load(sys.argv[1]) as f:
    print(len(f.files), f.files[-1], int(f["m65536"]), int(f["m69999"]))
"#,
        &[&path],
    );
    assert_eq!(out, "70000 m69999 65536 69999\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn numpy_reads_zip64_fields_for_small_members_too() {
    // A member of unknown length (a WriteNpyExt without a length hint) gets zip64 sizes;
    // exercise that path through a type that implements only the required methods.
    use ndnpy::WriteNpyExt;
    struct Opaque(Array1<f64>);
    impl WriteNpyExt for Opaque {
        fn write_npy<W: std::io::Write>(&self, w: W) -> Result<(), ndnpy::WriteNpyError> {
            self.0.write_npy(w)
        }
        fn write_npy_with_options<W: std::io::Write>(
            &self,
            w: W,
            opts: &ndnpy::WriteOptions,
        ) -> Result<(), ndnpy::Error> {
            self.0.write_npy_with_options(w, opts)
        }
    }
    let dir = scratch_dir("zip64small");
    let path = dir.join("z.npz");
    for (name, options) in [
        ("stored", NpzWriteOptions::new()),
        ("deflated", NpzWriteOptions::compressed()),
        ("aligned", NpzWriteOptions::new().align(true)),
    ] {
        let mut w = NpzWriter::with_options(std::fs::File::create(&path).unwrap(), &options);
        w.add_array("opaque", &Opaque(array![1.0, 2.0])).unwrap();
        w.add_array("plain", &array![3u8]).unwrap();
        w.finish().unwrap();
        let mut npz = NpzReader::open(&path).unwrap();
        let a: Array1<f64> = npz.by_name("opaque").unwrap();
        assert_eq!(a, array![1.0, 2.0], "{name}");
        let out = python(
            r#"
import sys, numpy as np
with np.load(sys.argv[1]) as f:
    print(f["opaque"].tolist(), f["plain"].tolist(), f.zip.infolist()[0].extra[:2].hex())
"#,
            &[&path],
        );
        assert!(out.starts_with("[1.0, 2.0] [3] 0100"), "{name}: {out}");
        let plain: Array1<u8> = npz.by_name("plain").unwrap();
        assert_eq!(plain, array![3], "{name}");
        // All members read: the f64 one as f64, the u8 one refused as what it is not.
        let all = npz.read_all::<OwnedRepr<f64>, IxDyn>();
        assert_eq!(all.len(), 2, "{name}");
        assert_eq!(all[0].0, "opaque");
        assert_eq!(
            all[0].1.as_ref().unwrap(),
            array![1.0, 2.0].into_dyn(),
            "{name}"
        );
        assert_eq!(all[1].0, "plain");
        let err = all[1].1.as_ref().unwrap_err();
        assert!(
            crate::error_checks::is_dtype_mismatch(err),
            "{name}: {err:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A large deflated member is compressed in chunks on every core: the archive is the same
/// bytes whatever the number of threads and whichever door writes it (a path, a `File`, a
/// `BufWriter`, memory), numpy loads every member and Python's `zipfile` checks every CRC,
/// and it is within 0.5% of the one-stream archive that `threads(1)` writes.
#[test]
fn large_deflated_members_on_every_core_are_one_standard_stream() {
    let dir = scratch_dir("chunked");
    // 3 MiB of compressible doubles (a wave with a little noise), a raw byte member of
    // 1.5 MiB, and small members on either side (one stream each, as before).
    let mut x = 12345u64;
    let wave = Array2::from_shape_fn((3 << 10, 128), |(i, j)| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((i * 128 + j) as f64 / 5000.0).sin() + ((x >> 60) as f64) / 64.0
    });
    let fortran = wave.t().as_standard_layout().into_owned(); // its transpose is Fortran order
    let bytes: Vec<u8> = (0..3 << 19).map(|i: u32| (i / 1000 % 251) as u8).collect();
    fn members<W: std::io::Write + std::io::Seek>(
        npz: &mut NpzWriter<W>,
        (wave, fortran, bytes): (&Array2<f64>, &Array2<f64>, &[u8]),
    ) {
        npz.add_array("small", &array![1i32, 2, 3]).unwrap();
        npz.add_array("wave", wave).unwrap();
        npz.add_array("fortran", &fortran.t()).unwrap();
        npz.add_bytes("raw.bin", bytes).unwrap();
        npz.add_array("after", &array![4.5f32]).unwrap();
    }
    let data = (&wave, &fortran, &bytes[..]);
    let archive = |options: &NpzWriteOptions| {
        let mut npz = NpzWriter::with_options(std::io::Cursor::new(Vec::new()), options);
        members(&mut npz, data);
        npz.finish().unwrap().into_inner()
    };
    let opts = NpzWriteOptions::compressed();
    let chunked = archive(&opts);
    for threads in [2, 3, 8] {
        assert!(
            chunked == archive(&opts.threads(threads)),
            "threads {threads}"
        );
    }
    let one = archive(&opts.threads(1));
    assert!(one != chunked);
    let ratio = chunked.len() as f64 / one.len() as f64;
    assert!(ratio < 1.005, "{} vs {} bytes", chunked.len(), one.len());

    // Every door gives the same archive.
    let by_path = dir.join("path.npz");
    let mut npz = NpzWriter::create_with_options(&by_path, &opts).unwrap();
    members(&mut npz, data);
    npz.finish().unwrap();
    let by_file = dir.join("file.npz");
    let mut npz = NpzWriter::with_options(std::fs::File::create(&by_file).unwrap(), &opts);
    members(&mut npz, data);
    npz.finish().unwrap();
    let by_buf = dir.join("buf.npz");
    let file = std::fs::File::create(&by_buf).unwrap();
    let mut npz = NpzWriter::with_options(std::io::BufWriter::new(file), &opts);
    members(&mut npz, data);
    npz.finish().unwrap();
    for path in [&by_path, &by_file, &by_buf] {
        assert!(
            std::fs::read(path).unwrap() == chunked,
            "{}",
            path.display()
        );
    }

    // We read it back, and so do numpy and zipfile.
    let mut npz = NpzReader::open(&by_path).unwrap();
    let (w, f): (Array2<f64>, Array2<f64>) = (
        npz.by_name("wave").unwrap(),
        npz.by_name("fortran").unwrap(),
    );
    assert_eq!((w, f), (wave.clone(), wave.clone()));
    assert_eq!(npz.member("raw.bin").unwrap().bytes().unwrap(), bytes);
    let out = python(
        r#"
import sys, zipfile, numpy as np
z = zipfile.ZipFile(sys.argv[1])
print(z.testzip(), [(i.filename, i.compress_type) for i in z.infolist()])
with np.load(sys.argv[1]) as f:
    w, t = f["wave"], f["fortran"]
    i = np.arange(w.size).reshape(w.shape)
    print(w.shape, t.flags.f_contiguous, bool((t == w).all()), f["small"].tolist(), f["after"].tolist())
    print(len(f["raw.bin"]), f["raw.bin"][:3].hex(), float(np.abs(w - np.sin(i / 5000.0)).max()) < 0.25)
"#,
        &[&by_path],
    );
    assert_eq!(
        out,
        "None [('small.npy', 8), ('wave.npy', 8), ('fortran.npy', 8), ('raw.bin', 8), ('after.npy', 8)]\n\
         (3072, 128) True True [1, 2, 3] [4.5]\n1572864 000000 True\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
