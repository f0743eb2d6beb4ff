//! `NpzReader::member` and its handle, `NpzMember`, against archives numpy writes: members
//! found by key (numpy's rules) and by index, the errors for missing members, and each of the
//! handle's methods (`info`, `header`, `read`, `read_dyn`, `bytes`, `get`, `stored_range`,
//! `stored_slice`, `view`) checked against what numpy and `zipfile` say of the same member.
//!
//! These tests need `python3 -c "import numpy"` to work.

use ndarray::{array, Array0, Array1, Array2, ArrayView1, ArrayView2, Ix1, IxDyn, OwnedRepr};
use ndnpy::{
    npz::Compression, npz::MemberKey, npz::NpzValue, npz::NpzWriteOptions, ErrorKind, Fault,
    NpzReader, NpzWriter,
};
use std::collections::BTreeMap;
use std::io::Cursor;

use crate::common::{numpy, Scratch};
use crate::error_checks::{is_byte_order, is_dtype_mismatch};

/// What numpy and zipfile say of one member.
#[derive(Debug, Clone, PartialEq)]
struct Facts {
    index: usize,
    key: String,
    size: u64,
    compressed_size: u64,
    crc32: u32,
    deflated: bool,
    /// The member's bytes, as `ZipFile.read` gives them.
    bytes: Vec<u8>,
    /// `np.load(...)[key]`: for an array, `(descr, shape, fortran_order)`; `None` for bytes.
    array: Option<(String, Vec<usize>, bool)>,
    /// For a member that is not an array: the bytes `np.load(...)[key]` returns.
    value_bytes: Option<Vec<u8>>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// numpy writes `stored.npz` (`np.savez`) and `deflated.npz` (`np.savez_compressed`) with the
/// same arrays, then `zipfile` appends a member that is not an array; returns each member's
/// facts by name, for both archives.
fn numpy_archives(dir: &Scratch) -> BTreeMap<(String, String), Facts> {
    let out = numpy(
        &dir.0,
        r#"
import zipfile
arrays = dict(
    a=np.arange(6, dtype="<f8").reshape(2, 3) * 0.5,
    fortran=np.asfortranarray(np.arange(12, dtype="<i4").reshape(3, 4)),
    big_endian=(np.arange(5) * 1000).astype(">u2"),
    scalar=np.array(3.5, dtype="<f4"),
    flags=np.array([True, False, True]),
    small=np.arange(7, dtype="u1"),
    text=np.array(["ab", "cde"], dtype="<U3"),
)
np.savez(d + "/stored.npz", **arrays)
np.savez_compressed(d + "/deflated.npz", **arrays)
for f, method in [("stored.npz", zipfile.ZIP_STORED), ("deflated.npz", zipfile.ZIP_DEFLATED)]:
    with zipfile.ZipFile(d + "/" + f, "a", compression=method) as z:
        z.writestr("meta.json", b'{"epoch": 3}')
    with zipfile.ZipFile(d + "/" + f) as z, np.load(d + "/" + f) as npz:
        for i, (info, key) in enumerate(zip(z.infolist(), npz.files)):
            v = npz[key]
            if isinstance(v, bytes):
                arr = "-"
                value = v.hex()
            else:
                fortran = v.flags.f_contiguous and not v.flags.c_contiguous and v.ndim > 1
                descr = repr(np.lib.format.dtype_to_descr(v.dtype))
                arr = descr + ";" + ",".join(map(str, v.shape)) + ";" + str(int(fortran))
                value = "-"
            print(f, info.filename, i, key, info.file_size, info.compress_size, info.CRC,
                  int(info.compress_type == zipfile.ZIP_DEFLATED), z.read(info).hex(), arr,
                  value, sep="\t")
"#,
    );
    let mut facts = BTreeMap::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 11, "{line}");
        let array = (f[9] != "-").then(|| {
            let parts: Vec<&str> = f[9].split(';').collect();
            let shape = parts[1]
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            (parts[0].to_string(), shape, parts[2] == "1")
        });
        let fact = Facts {
            index: f[2].parse().unwrap(),
            key: f[3].to_string(),
            size: f[4].parse().unwrap(),
            compressed_size: f[5].parse().unwrap(),
            crc32: f[6].parse().unwrap(),
            deflated: f[7] == "1",
            bytes: unhex(f[8]),
            array,
            value_bytes: (f[10] != "-").then(|| unhex(f[10])),
        };
        facts.insert((f[0].to_string(), f[1].to_string()), fact);
    }
    assert_eq!(facts.len(), 2 * 8, "{out}");
    facts
}

#[test]
fn every_handle_method_agrees_with_numpy() {
    let dir = Scratch::new("npz-member-methods");
    let facts = numpy_archives(&dir);
    for file in ["stored.npz", "deflated.npz"] {
        let mut npz = NpzReader::open(dir.path(file)).unwrap();
        assert_eq!(npz.len(), 8);
        for ((f, name), want) in facts.iter().filter(|((f, _), _)| f == file) {
            let ctx = format!("{f} {name}");
            // By name, by key and by index: the same member.
            for key in [name.as_str(), want.key.as_str()] {
                assert_eq!(npz.member(key).unwrap().info().index(), want.index, "{ctx}");
            }
            let mut m = npz.member(want.index).unwrap();

            let info = m.info();
            assert_eq!(info.name(), name, "{ctx}");
            assert_eq!(info.key(), want.key, "{ctx}");
            assert_eq!(info.size(), want.size, "{ctx}");
            assert_eq!(info.compressed_size(), want.compressed_size, "{ctx}");
            assert_eq!(info.crc32(), want.crc32, "{ctx}");
            let compression = if want.deflated {
                Compression::Deflated
            } else {
                Compression::Stored
            };
            assert_eq!(info.compression(), Some(compression), "{ctx}");
            assert_eq!(info.method(), if want.deflated { 8 } else { 0 }, "{ctx}");

            assert_eq!(m.bytes().unwrap(), want.bytes, "{ctx}");

            let range = m.stored_range().unwrap();
            if want.deflated {
                assert_eq!(range, None, "{ctx}");
            } else {
                let range = range.expect("a stored member has a range");
                let archive = dir.read(file);
                let at = range.start as usize..range.end as usize;
                assert_eq!(archive[at], want.bytes[..], "{ctx}");
            }

            match &want.array {
                Some((descr, shape, fortran)) => {
                    let h = m.header().unwrap();
                    assert_eq!(&h.header.dtype.descr(), descr, "{ctx}");
                    assert_eq!(&h.header.shape, shape, "{ctx}");
                    assert_eq!(h.header.fortran_order, *fortran, "{ctx}");
                    let d = m.read_dyn().unwrap();
                    assert_eq!(d.dtype(), &h.header.dtype, "{ctx}");
                    assert_eq!(d.shape(), &shape[..], "{ctx}");
                    // Written back, the array is the member's bytes: numpy's.
                    let mut out = Vec::new();
                    d.write_npy(&mut out).unwrap();
                    assert_eq!(out, want.bytes, "{ctx}");
                    let v = m.get::<OwnedRepr<u8>, IxDyn>();
                    match want.key.as_str() {
                        "small" => {
                            let v = v.unwrap();
                            assert_eq!(
                                v,
                                NpzValue::Array(
                                    ndarray::ArrayD::from_shape_vec(IxDyn(&[7]), (0..7).collect(),)
                                        .unwrap()
                                )
                            );
                        }
                        _ => assert!(v.as_ref().is_err_and(is_dtype_mismatch), "{ctx}: {v:?}"),
                    }
                }
                None => {
                    let value = want.value_bytes.clone().unwrap();
                    assert_eq!(
                        m.get::<OwnedRepr<f64>, IxDyn>().unwrap(),
                        NpzValue::Bytes(value),
                        "{ctx}"
                    );
                    for err in [
                        m.header().unwrap_err(),
                        m.read::<OwnedRepr<f64>, IxDyn>().unwrap_err(),
                        m.read_dyn().unwrap_err(),
                    ] {
                        assert_eq!(err.kind(), ErrorKind::NotNpy, "{ctx}: {err:?}");
                        assert_eq!(err.member(), Some(name.as_str()), "{ctx}");
                    }
                }
            }
        }

        // Typed reads of the arrays numpy wrote, through the handle and the ndarray-npy calls.
        let a: Array2<f64> = npz.member("a").unwrap().read().unwrap();
        assert_eq!(a, array![[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
        let by_name: Array2<f64> = npz.by_name("a").unwrap();
        let by_index: Array2<f64> = npz.by_index(0).unwrap();
        assert_eq!((&by_name, &by_index), (&a, &a));
        let f: Array2<i32> = npz.member("fortran.npy").unwrap().read().unwrap();
        assert_eq!(
            f,
            Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as i32)
        );
        assert!(f.t().is_standard_layout());
        let be: Array1<u16> = npz.member("big_endian").unwrap().read().unwrap();
        assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
        let s: Array0<f32> = npz.member(3).unwrap().read().unwrap();
        assert_eq!(s[()], 3.5);
        let flags: Array1<bool> = npz.member("flags").unwrap().read().unwrap();
        assert_eq!(flags, array![true, false, true]);
        let text: Array1<String> = npz.member("text").unwrap().read().unwrap();
        assert_eq!(text, array!["ab".to_string(), "cde".to_string()]);
        let typed: Array2<f64> = npz
            .member("a")
            .unwrap()
            .read_dyn()
            .unwrap()
            .into_array::<f64>()
            .unwrap()
            .into_dimensionality()
            .unwrap();
        assert_eq!(typed, a);
    }
}

#[test]
fn keys_follow_numpy_rules() {
    let dir = Scratch::new("npz-member-keys");
    // What np.load answers for each lookup: the array's values, or "missing".
    let out = numpy(
        &dir.0,
        r#"
import warnings, zipfile
def npy(v):
    f = io.BytesIO(); np.save(f, np.array([v], dtype="<i8")); return f.getvalue()
warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
with zipfile.ZipFile(d + "/keys.npz", "w") as z:
    for name, v in [("a.npy", 1), ("x.npy.npy", 2), ("b", 3), ("b.npy", 4), ("c.npy", 5),
                    ("c.npy", 6), ("dir/é.npy", 7), (".npy", 8)]:
        z.writestr(name, npy(v))
with np.load(d + "/keys.npz") as f:
    print("|".join(f.files))
    for k in ["a", "a.npy", "x.npy", "x.npy.npy", "x", "b", "b.npy", "c", "c.npy", "dir/é",
              "dir/é.npy", "", ".npy", "é", "A"]:
        print(k, f[k][0] if k in f else "missing", sep="|")
"#,
    );
    let mut lines = out.lines();
    let files: Vec<&str> = lines.next().unwrap().split('|').collect();
    let mut npz = NpzReader::open(dir.path("keys.npz")).unwrap();
    assert_eq!(npz.names().unwrap(), files);
    assert_eq!(npz.keys().collect::<Vec<_>>(), files);
    let mut checked = 0;
    for line in lines {
        let (key, want) = line.split_once('|').unwrap();
        if want == "missing" {
            assert!(!npz.contains(key), "{key}");
            let err = npz.member(key).unwrap_err();
            assert_eq!(
                err.fault(),
                Some(ndnpy::Fault::MissingMember),
                "{key}: {err:?}"
            );
            let err = npz.by_name::<OwnedRepr<i64>, Ix1>(key).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::MissingMember, "{key}: {err:?}");
        } else {
            let want: i64 = want.parse().unwrap();
            assert!(npz.contains(key), "{key}");
            let got: Array1<i64> = npz.member(key).unwrap().read().unwrap();
            assert_eq!(got, array![want], "{key}");
            let got: Array1<i64> = npz.by_name(key).unwrap();
            assert_eq!(got, array![want], "{key}");
        }
        checked += 1;
    }
    assert_eq!(checked, 15);
    // The last of two members of one name is the one found, as in zipfile.
    assert_eq!(npz.member("c").unwrap().info().index(), 5);
    // The exact name wins over the name plus .npy.
    assert_eq!(npz.member("b").unwrap().info().name(), "b");
}

#[test]
fn members_by_index_and_their_errors() {
    let mut npz = NpzReader::open("testdata/npz_keywords.npz").unwrap();
    let keys: Vec<String> = npz.names().unwrap();
    for (i, key) in keys.iter().enumerate() {
        let m = npz.member(i).unwrap();
        assert_eq!((m.info().index(), m.info().key()), (i, key.as_str()));
    }
    let err = npz.member(4).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    let err = crate::own::by_index::<OwnedRepr<i64>, Ix1, _>(&mut npz, usize::MAX).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    let arr_0: Array1<i64> = npz.member(2).unwrap().read().unwrap();
    assert_eq!(arr_0, array![0, 1, 2]);

    let err = npz.member("nope").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    // The message names the key asked for, and lists the archive's 4 keys (`messages`).
    assert_eq!(err.fault(), Some(ndnpy::Fault::MissingMember), "{err:?}");

    let mut empty = NpzReader::open("testdata/npz_empty.npz").unwrap();
    let err = empty.member(0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    let err = empty.member("a").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
}

/// Every kind of key finds the same member.
#[test]
fn every_key_type_finds_the_member() {
    fn index<K: MemberKey>(npz: &mut NpzReader<std::fs::File>, key: K) -> usize {
        npz.member(key).unwrap().info().index()
    }
    let mut npz = NpzReader::open("testdata/npz_stored.npz").unwrap();
    let owned = String::from("big_endian");
    let names = ["big_endian"];
    assert_eq!(index(&mut npz, "big_endian"), 2);
    assert_eq!(index(&mut npz, "big_endian.npy"), 2);
    assert_eq!(index(&mut npz, &owned), 2);
    assert_eq!(index(&mut npz, owned.clone()), 2);
    assert_eq!(index(&mut npz, owned.as_str()), 2);
    let by_ref: &&str = &names[0];
    assert_eq!(index(&mut npz, by_ref), 2);
    assert_eq!(index(&mut npz, 2), 2);
    assert_eq!(index(&mut npz, 2usize), 2);
    let two: &usize = &2;
    assert_eq!(index(&mut npz, two), 2);
}

/// A handle reads its member as often as asked, each read checked on its own.
#[test]
fn a_handle_reads_its_member_again() {
    let mut npz = NpzReader::open("testdata/npz_compressed.npz").unwrap();
    let mut m = npz.member("fortran").unwrap();
    let header = m.header().unwrap();
    let first: Array2<i32> = m.read().unwrap();
    let again: Array2<i32> = m.read().unwrap();
    assert_eq!(first, again);
    assert_eq!(header.header.shape, first.shape());
    let bytes = m.bytes().unwrap();
    assert_eq!(bytes.len() as u64, m.info().size());
    assert!(format!("{m:?}").contains("fortran.npy"), "{m:?}");
    // The reader is usable again once the handle is no longer used.
    let a: Array2<f64> = npz.by_name("a").unwrap();
    assert_eq!(a.shape(), [2, 3]);
}

/// Views of the stored members of archives in memory: in place when aligned (ndnpy's
/// aligned archives, which numpy reads back; one-byte elements of numpy's own), refused
/// with the reason otherwise.
#[test]
fn views_of_stored_members_are_in_place() {
    let dir = Scratch::new("npz-member-views");
    let facts = numpy_archives(&dir);

    // numpy's stored archive, in a buffer aligned to 8 bytes so offsets are alignments.
    let archive = dir.read("stored.npz");
    let mut backing = vec![0u64; archive.len().div_ceil(8)];
    let buf = as_bytes(&mut backing);
    buf[..archive.len()].copy_from_slice(&archive);
    let buf = &buf[..archive.len()];
    let range = buf.as_ptr_range();
    let mut npz = NpzReader::new(Cursor::new(buf)).unwrap();
    let flags: ArrayView1<bool> = npz.member("flags").unwrap().view().unwrap();
    assert_eq!(flags, array![true, false, true]);
    assert!(range.contains(&flags.as_ptr().cast::<u8>()));
    let small: ArrayView1<u8> = npz.member("small.npy").unwrap().view().unwrap();
    assert_eq!(small, array![0, 1, 2, 3, 4, 5, 6]);
    // The slice is the member's bytes as zipfile reads them.
    let npy = npz.member("a").unwrap().stored_slice().unwrap().unwrap();
    assert_eq!(
        npy,
        &facts[&("stored.npz".into(), "a.npy".into())].bytes[..]
    );
    assert!(range.contains(&npy.as_ptr()));
    // An f8 member lies where numpy put it: viewed if that is aligned, refused if not.
    match npz.member("a").unwrap().view::<f64, ndarray::Ix2>() {
        Ok(v) => assert_eq!(v, array![[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]),
        Err(e) if e.kind() == ErrorKind::CannotView => {
            assert_eq!(e.member(), Some("a.npy"));
            assert_eq!(e.fault(), Some(ndnpy::Fault::Misaligned), "{e}");
        }
        Err(e) => panic!("{e}"),
    }
    // Big-endian data cannot be viewed on a little-endian machine, nor bytes as an array.
    if cfg!(target_endian = "little") {
        let err = npz
            .member("big_endian")
            .unwrap()
            .view::<u16, Ix1>()
            .unwrap_err();
        assert!(is_byte_order(&err), "{err:?}");
    }
    assert!(npz.member("meta.json").unwrap().view::<u8, Ix1>().is_err());

    // numpy's compressed archive: nothing is viewed in place.
    let archive = dir.read("deflated.npz");
    let mut npz = NpzReader::new(Cursor::new(&archive[..])).unwrap();
    let mut flags = npz.member("flags").unwrap();
    assert_eq!(flags.stored_slice().unwrap(), None);
    let err = flags.view::<bool, Ix1>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.member(), Some("flags.npy"));
    assert_eq!(err.fault(), Some(Fault::Compressed), "{err:?}");

    // An aligned archive written here, read by numpy, and viewed in place.
    let weights = Array2::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as f64 / 4.0);
    let ids = array![1i64, -2, 3];
    let mut w =
        NpzWriter::with_options(Cursor::new(Vec::new()), &NpzWriteOptions::new().align(true));
    w.add_array("weights", &weights).unwrap();
    w.add_array("ids", &ids).unwrap();
    w.add_array("t", &weights.t()).unwrap();
    let archive = w.finish().unwrap().into_inner();
    std::fs::write(dir.path("aligned.npz"), &archive).unwrap();
    let out = numpy(
        &dir.0,
        r#"
with np.load(d + "/aligned.npz") as f:
    w = np.arange(15).reshape(3, 5) / 4.0
    assert np.array_equal(f["weights"], w)
    assert np.array_equal(f["ids"], [1, -2, 3])
    assert np.array_equal(f["t"], w.T) and f["t"].flags.f_contiguous
    print("ok")
"#,
    );
    assert_eq!(out, "ok");
    let mut backing = vec![0u64; archive.len().div_ceil(8)];
    let buf = as_bytes(&mut backing);
    buf[..archive.len()].copy_from_slice(&archive);
    let buf = &buf[..archive.len()];
    let range = buf.as_ptr_range();
    let mut npz = NpzReader::new(Cursor::new(buf)).unwrap();
    let v: ArrayView2<f64> = npz.member("weights").unwrap().view().unwrap();
    assert_eq!(v, weights);
    assert!(range.contains(&v.as_ptr().cast::<u8>()));
    let v: ArrayView1<i64> = npz.member(1).unwrap().view().unwrap();
    assert_eq!(v, ids);
    let t: ArrayView2<f64> = npz.member("t").unwrap().view().unwrap();
    assert_eq!(t, weights.t());
    assert!(range.contains(&t.as_ptr().cast::<u8>()));
}

/// `get` on a member that is not an array gives its bytes, as `np.load(...)[key]` does, and
/// on an array member named without `.npy`, the array.
#[test]
fn get_returns_bytes_for_members_that_are_not_arrays() {
    let dir = Scratch::new("npz-member-get");
    let out = numpy(
        &dir.0,
        r#"
import zipfile
f = io.BytesIO(); np.save(f, np.array([[1, 2], [3, 4]], dtype="<i2")); npy = f.getvalue()
with zipfile.ZipFile(d + "/mixed.npz", "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("notes.txt", b"not an array\n")
    z.writestr("matrix", npy)
    z.writestr("empty", b"")
    z.writestr("short", b"\x93NUM")
with np.load(d + "/mixed.npz") as f:
    for k in f.files:
        v = f[k]
        print(k, v.hex() if isinstance(v, bytes) else "array " + str(v.tolist()), sep="|")
"#,
    );
    let mut npz = NpzReader::open(dir.path("mixed.npz")).unwrap();
    let mut seen = 0;
    for line in out.lines() {
        let (key, value) = line.split_once('|').unwrap();
        let got = npz
            .member(key)
            .unwrap()
            .get::<OwnedRepr<i16>, ndarray::Ix2>()
            .unwrap();
        match value.strip_prefix("array ") {
            Some(list) => {
                assert_eq!(list, "[[1, 2], [3, 4]]");
                assert_eq!(got, NpzValue::Array(array![[1, 2], [3, 4]]), "{key}");
            }
            None => {
                assert_eq!(got, NpzValue::Bytes(unhex(value)), "{key}");
                assert_eq!(npz.member(key).unwrap().bytes().unwrap(), unhex(value));
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}

fn as_bytes(v: &mut [u64]) -> &mut [u8] {
    let len = v.len() * 8;
    // SAFETY: u64 has no padding and every byte pattern is a valid u64; the slice covers the
    // vector's elements and takes over its exclusive borrow.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let mut npz = NpzReader::open("testdata/npz_keywords.npz").unwrap();
    vec![
        Message::is(
            "an index past the end",
            npz.member(4).unwrap_err(),
            "member index 4 is out of range for an archive of 4 members",
        ),
        Message::is(
            "the largest index",
            crate::own::by_index::<OwnedRepr<i64>, Ix1, _>(&mut npz, usize::MAX).unwrap_err(),
            format!(
                "member index {} is out of range for an archive of 4 members",
                usize::MAX
            ),
        ),
        Message::is(
            "a missing key, by handle",
            npz.member("nope").unwrap_err(),
            "no member \"nope\" (nor \"nope.npy\") in the archive; its 4 keys are \"weights\", \
             \"bias\", \"arr_0\", \"arr_1\"",
        ),
    ]
}

/// `read_data_into` fills a byte buffer with the member's data as stored (big-endian, Fortran
/// order kept), for stored and deflated members alike: the bytes numpy's `tobytes(order='A')`
/// gives. A buffer of another length is a usage error; a member whose bytes do not match its
/// CRC-32 is an error too.
#[test]
fn read_data_into_fills_a_byte_buffer_with_the_data_as_stored() {
    let dir = Scratch::new("npz-read-data-into");
    numpy(
        &dir.0,
        "a = np.asfortranarray(np.arange(12, dtype='>i4').reshape(3, 4))\n\
         r = np.zeros(2, [('x', '<i2'), ('y', '>f8')])\n\
         np.savez(d + '/s.npz', a=a, r=r)\n\
         np.savez_compressed(d + '/z.npz', a=a, r=r)\n\
         open(d + '/a.bin', 'wb').write(a.tobytes(order='A'))\n\
         open(d + '/r.bin', 'wb').write(r.tobytes())",
    );
    for archive in ["s.npz", "z.npz"] {
        let mut npz = NpzReader::open(dir.path(archive)).unwrap();
        for key in ["a", "r"] {
            let mut member = npz.member(key).unwrap();
            let len = member.header().unwrap().data_len;
            let mut out = vec![0u8; len];
            let info = member.read_data_into(&mut out).unwrap();
            assert_eq!(info.data_len, len);
            assert_eq!(out, dir.read(&format!("{key}.bin")), "{archive}:{key}");
            let mut short = vec![0u8; len - 1];
            let err = member.read_data_into(&mut short).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Usage, "{archive}:{key}: {err}");
        }
    }
    // A flipped data byte in a stored member: its CRC-32 no longer matches.
    let mut bytes = dir.read("s.npz");
    let data = dir.read("a.bin");
    let at = bytes.windows(data.len()).position(|w| w == data).unwrap();
    bytes[at + 7] ^= 0x10;
    let mut npz = NpzReader::new(Cursor::new(bytes)).unwrap();
    let mut member = npz.member("a").unwrap();
    let mut out = vec![0u8; member.header().unwrap().data_len];
    let err = member.read_data_into(&mut out).unwrap_err();
    assert!(err.kind().is_format(), "{err}");
}
