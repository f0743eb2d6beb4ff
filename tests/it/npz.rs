//! `.npz` archives: the fixtures numpy wrote (testdata/generate_npz.py) read back exactly,
//! what we write reads back, and hostile or broken archives give typed errors, member by
//! member, without panics or large allocations.

use ndarray::{arr0, array, Array, Array0, Array1, Array2, ArrayD, IxDyn, OwnedRepr, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, npz::Compression, npz::NpzValue, npz::NpzWriteOptions, Error, ErrorKind,
    Fault, NpzReader, NpzWriter, ReadOptions, WriteNpzError,
};
use std::io::{Cursor, Write};

use crate::error_checks::{
    is_byte_order, is_dtype_mismatch, is_not_zip, is_zip_structure, member_fault,
};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("testdata/{name}")).unwrap()
}

fn open(bytes: &[u8]) -> NpzReader<Cursor<&[u8]>> {
    NpzReader::new(Cursor::new(bytes)).unwrap()
}

/// The arrays of `ARRAYS` in generate_npz.py.
fn check_arrays<R: std::io::Read + std::io::Seek>(npz: &mut NpzReader<R>) {
    let a: Array2<f64> = npz.by_name("a").unwrap();
    assert_eq!(a, array![[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
    let f: Array2<i32> = npz.by_name("fortran").unwrap();
    assert_eq!(
        f,
        Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as i32)
    );
    assert!(f.t().is_standard_layout(), "Fortran order is kept");
    let be: Array1<u16> = npz.by_name("big_endian").unwrap();
    assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
    let s: Array0<f32> = npz.by_name("scalar").unwrap();
    assert_eq!(s, arr0(3.5));
    let e: Array2<i64> = npz.by_name("empty").unwrap();
    assert_eq!(e.shape(), [0, 3]);
    let flags: Array1<bool> = npz.by_name("flags").unwrap();
    assert_eq!(flags, array![true, false, true]);
}

const KEYS: [&str; 6] = ["a", "fortran", "big_endian", "scalar", "empty", "flags"];

#[test]
fn reads_np_savez_stored() {
    let bytes = fixture("npz_stored.npz");
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), KEYS);
    assert!(npz
        .members()
        .all(|m| m.compression() == Some(Compression::Stored)));
    check_arrays(&mut npz);
}

#[test]
fn reads_np_savez_compressed() {
    let bytes = fixture("npz_compressed.npz");
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), KEYS);
    assert!(npz
        .members()
        .all(|m| m.compression() == Some(Compression::Deflated)));
    check_arrays(&mut npz);
}

#[test]
fn reads_from_a_file_path() {
    let mut npz = NpzReader::open("testdata/npz_compressed.npz").unwrap();
    check_arrays(&mut npz);
}

#[test]
fn reads_streamed_archives_with_data_descriptors() {
    for name in ["npz_streamed.npz", "npz_streamed_compressed.npz"] {
        let bytes = fixture(name);
        // Every local header has flag bit 3 and zero sizes: the sizes are in the directory.
        assert_eq!(bytes[6] & 8, 8, "{name}");
        let mut npz = open(&bytes);
        assert_eq!(
            npz.names().unwrap(),
            ["a", "fortran", "big_endian"],
            "{name}"
        );
        let a: Array2<f64> = npz.by_name("a").unwrap();
        assert_eq!(a, array![[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
        let f: Array2<i32> = npz.by_name("fortran").unwrap();
        assert_eq!(f[[2, 3]], 11);
        let be: Array1<u16> = npz.by_name("big_endian").unwrap();
        assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
    }
}

#[test]
fn reads_zip64_directories_and_end_records() {
    let bytes = fixture("npz_zip64.npz");
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), ["a", "big_endian"]);
    // The second member's directory entry has its sizes and offset in the zip64 field.
    let m = npz.member(1).unwrap();
    let m = m.info();
    assert_eq!((m.size(), m.compressed_size()), (138, 138));
    let be: Array1<u16> = npz.by_name("big_endian").unwrap();
    assert_eq!(be, array![0, 1000, 2000, 3000, 4000]);
    let a: Array2<f64> = npz.by_name("a").unwrap();
    assert_eq!(a[[1, 2]], 2.5);
}

#[test]
fn keywords_come_before_positional_arrays() {
    let mut npz = NpzReader::open("testdata/npz_keywords.npz").unwrap();
    assert_eq!(npz.names().unwrap(), ["weights", "bias", "arr_0", "arr_1"]);
    let w: Array2<f32> = npz.by_name("weights").unwrap();
    assert_eq!(w, array![[0.5, -1.0], [2.0, 0.25]]);
    let b: Array1<f32> = npz.by_name("bias.npy").unwrap();
    assert_eq!(b, array![0.125, -0.5]);
    let arr_0: Array1<i64> = npz.by_name("arr_0").unwrap();
    assert_eq!(arr_0, array![0, 1, 2]);
    let arr_1: Array2<i64> = npz.by_index(3).unwrap();
    assert_eq!(arr_1, array![[1, 2]]);
}

#[test]
fn the_empty_archive_has_no_members() {
    let bytes = fixture("npz_empty.npz");
    assert_eq!(bytes.len(), 22);
    let mut npz = open(&bytes);
    assert!(npz.is_empty());
    assert_eq!(npz.len(), 0);
    assert!(npz.names().unwrap().is_empty());
    let err = crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut npz, "a").unwrap_err();
    // No keys to list: the message says the archive is empty.
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    assert_eq!(err.fault(), Some(Fault::MissingMember), "{err:?}");
    let err = crate::own::by_index::<OwnedRepr<f64>, IxDyn, _>(&mut npz, 0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    assert_eq!(err.fault(), Some(Fault::MissingMember), "{err:?}");
    assert!(npz.read_all::<OwnedRepr<f64>, IxDyn>().is_empty());
}

#[test]
fn keys_follow_numpys_npy_suffix_rules() {
    let mut npz = NpzReader::open("testdata/npz_names.npz").unwrap();
    assert_eq!(
        npz.names().unwrap(),
        ["layer1/weight", "données/α", "x.npy", ""]
    );
    let w: Array1<i16> = npz.by_name("layer1/weight").unwrap();
    assert_eq!(w, array![1, 2, 3]);
    let d: Array1<f64> = npz.by_name("données/α").unwrap();
    assert_eq!(d, array![4.0]);
    // The key "x.npy" was stored as "x.npy.npy"; both names find it.
    let x: Array1<u8> = npz.by_name("x.npy").unwrap();
    assert_eq!(x, array![5]);
    let x: Array1<u8> = npz.by_name("x.npy.npy").unwrap();
    assert_eq!(x, array![5]);
    // The empty key is the member ".npy".
    let e: Array1<u32> = npz.by_name("").unwrap();
    assert_eq!(e, array![6, 7]);
    assert_eq!(npz.member(".npy").unwrap().info().index(), 3);
    assert!(!npz.contains("x"));
}

#[test]
fn the_exact_name_wins_over_the_npy_suffix_and_the_last_duplicate_wins() {
    // Members "a" (raw npy of [1]) and "a.npy" ([2]), as numpy resolves: "a" -> "a",
    // "a.npy" -> "a.npy".
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("a", &array![2i64]).unwrap();
    let mut npy = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&array![1i64], &mut npy).unwrap();
    w.add_bytes("a", &npy).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), ["a", "a"]);
    let a: Array1<i64> = npz.by_name("a").unwrap();
    assert_eq!(a, array![1]);
    let a: Array1<i64> = npz.by_name("a.npy").unwrap();
    assert_eq!(a, array![2]);

    // Two entries of the same name (the zip writer refuses them, so rename one by hand):
    // the last one is found, as in zipfile.
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("k", &array![1u8]).unwrap();
    w.add_array("j", &array![2u8]).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    for at in find_all(&bytes, b"j.npy") {
        bytes[at] = b'k';
    }
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), ["k", "k"]);
    let k: Array1<u8> = npz.by_name("k").unwrap();
    assert_eq!(k, array![2]);
}

#[test]
fn members_that_are_not_npy_are_bytes_not_errors() {
    let mut npz = NpzReader::open("testdata/npz_non_npy.npz").unwrap();
    assert_eq!(npz.names().unwrap(), ["metadata", "test2", "a"]);
    let meta = npz
        .member("metadata")
        .unwrap()
        .get::<OwnedRepr<i64>, IxDyn>()
        .unwrap();
    assert_eq!(meta, NpzValue::Bytes(b"Name: Test".to_vec()));
    // .npy content without the suffix is an array, as in numpy.
    let t = npz
        .member("test2")
        .unwrap()
        .get::<OwnedRepr<i64>, IxDyn>()
        .unwrap();
    assert_eq!(t, NpzValue::Array(array![1i64, 2, 3].into_dyn()));
    let a: Array1<i64> = npz.by_name("a").unwrap();
    assert_eq!(a, array![4, 5, 6]);
    assert_eq!(
        npz.member("metadata").unwrap().bytes().unwrap(),
        b"Name: Test"
    );
    // Asking for an array names the member and says how to read it.
    let err = crate::own::by_name::<OwnedRepr<i64>, IxDyn, _>(&mut npz, "metadata").unwrap_err();
    // The message gives the member's first bytes, b"Name: " (see `messages`).
    assert_eq!(err.kind(), ErrorKind::NotNpy, "{err:?}");
    assert_eq!(err.member(), Some("metadata"));
    assert_eq!(err.fault(), Some(Fault::NotNpy), "{err:?}");
    assert!(npz.member("metadata").and_then(|mut m| m.header()).is_err());
    // The iterator goes on past it.
    let results: Vec<(String, bool)> = npz
        .iter::<OwnedRepr<i64>, IxDyn>()
        .map(|(k, r)| (k, r.is_ok()))
        .collect();
    assert_eq!(
        results,
        [
            ("metadata".into(), false),
            ("test2".into(), true),
            ("a".into(), true)
        ]
    );
}

#[test]
fn header_peeks_read_dtype_shape_and_order_only() {
    for name in ["npz_stored.npz", "npz_compressed.npz"] {
        let mut npz = NpzReader::open(format!("testdata/{name}")).unwrap();
        let h = npz.member("fortran").unwrap().header().unwrap().header;
        assert_eq!(
            (h.dtype.descr(), h.shape, h.fortran_order),
            ("'<i4'".to_string(), vec![3, 4], true)
        );
        let h = npz.member(2).unwrap().header().unwrap().header;
        assert_eq!(h.dtype.descr(), "'>u2'");
        let h = npz.member("scalar").unwrap().header().unwrap().header;
        assert!(h.shape.is_empty());
    }
}

#[test]
fn read_all_and_iter_agree() {
    for name in ["npz_stored.npz", "npz_compressed.npz", "npz_non_npy.npz"] {
        let mut npz = NpzReader::open(format!("testdata/{name}")).unwrap();
        let all = npz.read_all::<OwnedRepr<i64>, IxDyn>();
        let seq: Vec<_> = npz.iter::<OwnedRepr<i64>, IxDyn>().collect();
        assert_eq!(all.len(), seq.len());
        for ((k1, r1), (k2, r2)) in all.iter().zip(&seq) {
            assert_eq!(k1, k2);
            match (r1, r2) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("{name} {k1}: read_all and iter differ"),
            }
        }
    }
}

#[test]
fn read_all_reads_many_deflated_members_exactly() {
    // Enough members and bytes to spread over threads with the parallel feature.
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    let arrays: Vec<Array1<i64>> = (0..40)
        .map(|k| Array1::from_shape_fn(20_000 + k * 1000, |i| ((i as i64) * (k as i64 + 1)) % 977))
        .collect();
    for (k, a) in arrays.iter().enumerate() {
        w.add_array(format!("m{k}"), a).unwrap();
    }
    w.add_array_with_options("stored", &array![1i64, 2], &NpzWriteOptions::new())
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = open(&bytes);
    let all = npz.read_all::<OwnedRepr<i64>, ndarray::Ix1>();
    assert_eq!(all.len(), 41);
    for (k, a) in arrays.iter().enumerate() {
        assert_eq!(all[k].0, format!("m{k}"));
        assert_eq!(all[k].1.as_ref().unwrap(), a);
    }
    assert_eq!(all[40].1.as_ref().unwrap(), array![1i64, 2]);
}

#[test]
fn member_facts_come_from_the_directory() {
    let mut npz = NpzReader::open("testdata/npz_compressed.npz").unwrap();
    let facts: Vec<(usize, &str, &str, u16)> = npz
        .members()
        .map(|m| (m.index(), m.name(), m.key(), m.method()))
        .collect();
    assert_eq!(facts[1], (1, "fortran.npy", "fortran", 8));
    let m = npz.member(0).unwrap();
    let m = m.info();
    assert_eq!(m.size(), 176);
    assert!(m.compressed_size() < m.size());
    assert_eq!(npz.keys().len(), 6);
}

// ---- writing -------------------------------------------------------------------------------

fn write_all_kinds(options: NpzWriteOptions) -> Vec<u8> {
    let mut w = NpzWriter::with_options(Cursor::new(Vec::new()), &options);
    w.add_array(
        "a",
        &(Array::range(0.0, 6.0, 1.0)
            .into_shape_with_order((2, 3))
            .unwrap()
            * 0.5),
    )
    .unwrap();
    let f = Array2::from_shape_fn((3, 4).f(), |(i, j)| (i * 4 + j) as i32);
    w.add_array("fortran", &f).unwrap();
    w.add_array_with_options(
        "big_endian",
        &(Array1::from_iter(0u16..5) * 1000),
        &options.byte_order(ByteOrder::Big),
    )
    .unwrap();
    w.add_array("scalar", &arr0(3.5f32)).unwrap();
    w.add_array("empty", &Array2::<i64>::zeros((0, 3))).unwrap();
    w.add_array("flags", &array![true, false, true]).unwrap();
    w.finish().unwrap().into_inner()
}

#[test]
fn what_we_write_reads_back() {
    for options in [
        NpzWriteOptions::new(),
        NpzWriteOptions::compressed(),
        NpzWriteOptions::new().align(true),
        NpzWriteOptions::compressed().level(Some(1)),
        NpzWriteOptions::compressed().level(Some(9)),
    ] {
        let bytes = write_all_kinds(options);
        let mut npz = open(&bytes);
        assert_eq!(npz.names().unwrap(), KEYS, "{options:?}");
        check_arrays(&mut npz);
        let h = npz.member("big_endian").unwrap().header().unwrap().header;
        assert_eq!(h.dtype.descr(), "'>u2'");
        for m in npz.members() {
            assert_eq!(m.compression(), Some(options.compression));
        }
    }
}

#[test]
fn members_hold_exactly_the_npy_bytes() {
    let a = array![[1.5f64, 2.5], [3.5, 4.5]];
    let mut npy = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&a.t(), &mut npy).unwrap();
    for options in [NpzWriteOptions::new(), NpzWriteOptions::compressed()] {
        let mut w = NpzWriter::with_options(Cursor::new(Vec::new()), &options);
        w.add_array("t", &a.t()).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        assert_eq!(open(&bytes).member("t").unwrap().bytes().unwrap(), npy);
    }
}

#[test]
fn the_npy_length_hint_is_the_length_written() {
    use ndnpy::{WriteNpyExt, WriteOptions};
    let big = Array2::from_shape_fn((40, 30), |(i, j)| (i * 30 + j) as i64);
    fn check<T: WriteNpyExt + ?Sized>(a: &T) {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let opts = WriteOptions::new().byte_order(order);
            let mut out = Vec::new();
            a.write_npy_with_options(&mut out, &opts).unwrap();
            assert_eq!(a.npy_len(&opts), Some(out.len() as u64));
        }
    }
    check(&big);
    check(&big.t());
    check(&big.slice(ndarray::s![..;3, ..;-2]));
    check(&*big.view()); // an ArrayRef
    check(&arr0(1.5f64));
    check(&Array2::<f32>::zeros((0, 7)));
    check(&Array2::<u8>::zeros((1, 5)).t());
    // numpy's most dimensions, 64 (more are refused: no reader takes them).
    let deep = ArrayD::<u8>::zeros(IxDyn(&[1; 64]));
    check(&deep);
    assert!(ArrayD::<u8>::zeros(IxDyn(&[1; 65]))
        .npy_len(&WriteOptions::new())
        .is_none());
}

#[test]
fn output_is_deterministic_with_numpys_timestamp_and_permissions() {
    let one = write_all_kinds(NpzWriteOptions::compressed());
    let two = write_all_kinds(NpzWriteOptions::compressed());
    assert_eq!(one, two);
    // Local header: version 20, flags 0, DOS time 0 and date 0x21 (1980-01-01).
    assert_eq!(&one[..4], b"PK\x03\x04");
    assert_eq!(u16::from_le_bytes([one[10], one[11]]), 0);
    assert_eq!(u16::from_le_bytes([one[12], one[13]]), 0x21);
    // Central entries: permissions 0o600 in the external attributes, as numpy's (the zip
    // crate adds the regular-file type bits numpy leaves out).
    for at in find_all(&one, b"PK\x01\x02") {
        let attr = u32::from_le_bytes(one[at + 38..at + 42].try_into().unwrap());
        assert_eq!((attr >> 16) & 0o777, 0o600);
    }
    // Small members need no zip64 field.
    assert!(find_all(&one, b"PK\x06\x06").is_empty());
}

#[test]
fn aligned_stored_members_put_array_data_on_64_byte_boundaries() {
    let bytes = write_all_kinds(NpzWriteOptions::new().align(true));
    let mut npz = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    for key in KEYS {
        let range = npz.member(key).unwrap().stored_range().unwrap().unwrap();
        let npy = npz.member(key).unwrap().stored_slice().unwrap().unwrap();
        assert_eq!(npy.len() as u64, range.end - range.start);
        let info = ndnpy::Header::read(&mut &npy[..], &ReadOptions::default()).unwrap();
        assert_eq!((range.start + info.data_offset) % 64, 0, "{key}");
    }
    // numpy's archives are not aligned, and neither are ours by default.
    let plain = write_all_kinds(NpzWriteOptions::new());
    let mut npz = open(&plain);
    let starts: Vec<u64> = KEYS
        .iter()
        .map(|k| {
            npz.member(k)
                .unwrap()
                .stored_range()
                .unwrap()
                .unwrap()
                .start
                % 64
        })
        .collect();
    assert!(starts.iter().any(|&s| s != 0));
    // Compressed members have no stored range.
    let z = write_all_kinds(NpzWriteOptions::compressed());
    assert_eq!(open(&z).member("a").unwrap().stored_range().unwrap(), None);
}

#[test]
fn more_than_65535_members_get_a_zip64_end_record() {
    let n = 70_000;
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    for i in 0..n {
        w.add_array(format!("m{i}"), &arr0(i as u32)).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(
        find_all(&bytes[bytes.len() - 200..], b"PK\x06\x06").len(),
        1
    );
    let mut npz = open(&bytes);
    assert_eq!(npz.len(), n);
    for i in [0, 65_535, 65_536, n - 1] {
        let a: Array0<u32> = npz.by_name(&format!("m{i}")).unwrap();
        assert_eq!(a[()], i as u32);
    }
    let err = crate::own::by_name::<OwnedRepr<u32>, IxDyn, _>(&mut npz, "nope").unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::MissingMember), "{err}");
}

#[test]
fn positional_names_and_duplicates() {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("arr_1", &array![9u8]).unwrap();
    assert_eq!(w.add_positional(&array![0u8]).unwrap(), "arr_0");
    let err = w.add_positional(&array![1u8]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!(err.fault(), Some(Fault::DuplicateMember));
    // The writer stays usable after a refused member.
    assert!(w.add_array("x", &array![1u8]).is_ok());
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), ["arr_1", "arr_0", "x"]);
}

#[test]
fn a_refused_member_leaves_the_archive_valid() {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("a", &array![1i32]).unwrap();
    for level in [0, 10] {
        let err = w
            .add_array_with_options(
                "b",
                &array![1i32],
                &NpzWriteOptions::compressed().level(Some(level)),
            )
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
        // ndarray-npy's error for a level the zip crate refuses.
        assert!(
            matches!(
                err,
                WriteNpzError::Zip(zip::result::ZipError::UnsupportedArchive(_))
            ),
            "{err:?}"
        );
    }
    let long = "n".repeat(70_000);
    let err = w.add_array(long, &array![1i32]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert!(
        matches!(
            err,
            WriteNpzError::Zip(zip::result::ZipError::InvalidArchive(_))
        ),
        "{err:?}"
    );
    w.add_array("c", &array![3i32]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = open(&bytes);
    assert_eq!(npz.names().unwrap(), ["a", "c"]);
    let c: Array1<i32> = npz.by_name("c").unwrap();
    assert_eq!(c, array![3]);
}

#[test]
fn a_writer_error_is_reported_and_the_member_left_out() {
    /// Fails every write after `budget` bytes.
    struct Budget {
        inner: Cursor<Vec<u8>>,
        budget: usize,
    }
    impl Write for Budget {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.inner.get_ref().len() + buf.len() > self.budget {
                return Err(std::io::Error::other("disk full"));
            }
            self.inner.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl std::io::Seek for Budget {
        fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(pos)
        }
    }
    let mut w = NpzWriter::new(Budget {
        inner: Cursor::new(Vec::new()),
        budget: 4096,
    });
    let err = ndnpy::Error::from(
        w.add_array("big", &Array1::<f64>::zeros(10_000))
            .unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert_eq!(err.io_error().unwrap().to_string(), "disk full");
}

#[test]
fn ndarray_npy_calls_compile_unchanged() {
    // ndarray-npy 0.10's documented use of NpzWriter and NpzReader, with only the crate name
    // changed.
    use ndarray::aview0;
    use ndnpy::{NpzReader, NpzWriter};
    use std::fs::File;

    let dir = std::env::temp_dir().join(format!("ndnpy-npz-compat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arrays.npz");

    let write = || -> Result<(), Box<dyn std::error::Error>> {
        let mut npz = NpzWriter::new(File::create(&path)?);
        let a: Array2<i32> = array![[1, 2, 3], [4, 5, 6]];
        let b: Array1<i32> = array![7, 8, 9];
        npz.add_array("a", &a)?;
        npz.add_array("b", &b)?;
        npz.add_array("c", &aview0(&10))?;
        npz.finish()?;
        let mut npz = NpzWriter::new_compressed(File::create(path.with_extension("z.npz"))?);
        npz.add_array("a", &a)?;
        npz.finish()?;
        Ok(())
    };
    write().unwrap();
    let read = || -> Result<(), Box<dyn std::error::Error>> {
        let mut npz = NpzReader::new(File::open(&path)?)?;
        assert_eq!(npz.len(), 3);
        assert!(!npz.is_empty());
        assert_eq!(npz.names()?, ["a", "b", "c"]);
        let a: Array2<i32> = npz.by_name("a")?;
        let b: Array1<i32> = npz.by_name("b")?;
        let c: Array0<i32> = npz.by_index(2)?;
        assert_eq!((a[[1, 2]], b[2], c[()]), (6, 9, 10));
        let mut z = NpzReader::new(File::open(path.with_extension("z.npz"))?)?;
        let a: Array2<i32> = z.by_name("a")?;
        assert_eq!(a[[0, 0]], 1);
        Ok(())
    };
    read().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- broken and hostile archives -----------------------------------------------------------

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

fn put32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The central directory entries of `bytes` (fixtures whose data has no `PK\x01\x02`).
fn central(bytes: &[u8]) -> Vec<usize> {
    let at = find_all(bytes, b"PK\x01\x02");
    assert_eq!(at.len(), open(bytes).len());
    at
}

fn local(bytes: &[u8]) -> Vec<usize> {
    let at = find_all(bytes, b"PK\x03\x04");
    assert_eq!(at.len(), open(bytes).len());
    at
}

#[test]
fn non_zip_inputs_are_not_zip_errors() {
    for input in [
        std::fs::read("testdata/f8_le_c_2x3.npy").unwrap(),
        Vec::new(),
        b"PK".to_vec(),
        vec![0u8; 100_000],
    ] {
        let err = crate::own::open_npz(Cursor::new(&input)).err().unwrap();
        assert!(is_not_zip(&err), "{err:?}");
    }
    let err = crate::own::open_npz(Cursor::new(b"hello")).err().unwrap();
    assert!(is_not_zip(&err), "{err:?}");
}

/// Where each member's stored bytes (its data as the archive holds it, compressed or not) are
/// in `bytes`, found from its local header and its directory entry.
fn member_data(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut npz = open(bytes);
    local(bytes)
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            let name = u16::from_le_bytes([bytes[l + 26], bytes[l + 27]]) as usize;
            let extra = u16::from_le_bytes([bytes[l + 28], bytes[l + 29]]) as usize;
            let start = l + 30 + name + extra;
            start..start + npz.member(i).unwrap().info().compressed_size() as usize
        })
        .collect()
}

/// Whether `e` is an error of reading a corrupt archive: a format error, or the data claiming
/// more than a limit allows or a type it is not, never an I/O error (the input is in memory)
/// nor a usage error (the calls are valid).
fn is_corrupt_input_error(e: &Error) -> bool {
    e.kind().is_format() || e.kind() == ErrorKind::Limit || e.kind().is_mismatch()
}

#[test]
fn every_truncation_of_numpys_archives_is_not_a_zip_with_its_length() {
    for name in [
        "npz_stored.npz",
        "npz_compressed.npz",
        "npz_zip64.npz",
        "npz_streamed.npz",
    ] {
        let bytes = fixture(name);
        for cut in 0..bytes.len() {
            // The end record is the archive's last 22 bytes: without its end, no archive.
            match NpzReader::with_options(Cursor::new(&bytes[..cut]), &ReadOptions::default()) {
                Err(e) => assert!(is_not_zip(&e), "{name} cut at {cut}: {e:?}"),
                Ok(npz) => panic!("{name} cut at {cut}: opened, {} members", npz.len()),
            }
        }
    }
}

/// Every byte of numpy's archives flipped three ways (0x01, 0x80, 0xff): a flip inside a
/// member's stored bytes fails that member's read (for stored members, exactly as a CRC-32
/// mismatch naming it) and leaves every other member reading numpy's bytes; a flip anywhere
/// else fails to open or to read as a typed error, or reads numpy's bytes. No corruption
/// reads as other values, and none is an I/O or usage error.
#[test]
fn every_single_byte_corruption_fails_its_member_by_checksum_or_reads_numpys_bytes() {
    for name in ["npz_stored.npz", "npz_compressed.npz", "npz_zip64.npz"] {
        let bytes = fixture(name);
        let mut npz = open(&bytes);
        let members: Vec<(String, bool)> = npz
            .members()
            .map(|m| {
                (
                    m.name().to_string(),
                    m.compression() == Some(Compression::Stored),
                )
            })
            .collect();
        let raw: Vec<Vec<u8>> = (0..members.len())
            .map(|i| npz.member(i).and_then(|mut m| m.bytes()).unwrap())
            .collect();
        let data = member_data(&bytes);
        let mut caught = 0;
        for at in 0..bytes.len() {
            let hit = data.iter().position(|r| r.contains(&at));
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[at] ^= flip;
                let case = format!("{name}: byte {at} ^ {flip:#04x}");
                let mut npz =
                    match NpzReader::with_options(Cursor::new(&b[..]), &ReadOptions::default()) {
                        Ok(npz) => npz,
                        Err(e) => {
                            // Member data is not read to open the archive.
                            assert!(hit.is_none(), "{case}: {e:?}");
                            assert!(e.kind().is_format(), "{case}: {e:?}");
                            continue;
                        }
                    };
                if let Err(e) = npz.names() {
                    assert!(is_corrupt_input_error(&e.into()), "{case}");
                }
                for i in 0..npz.len().min(members.len()) {
                    let (member, stored) = &members[i];
                    let got = npz.member(i).and_then(|mut m| m.bytes());
                    let dynamic = npz.member(i).and_then(|mut m| m.read_dyn());
                    if let Err(e) = npz.member(i).and_then(|mut m| m.header()) {
                        assert!(is_corrupt_input_error(&e), "{case}, {member}: {e:?}");
                    }
                    match (hit, &got) {
                        (Some(h), Err(e)) if h == i && *stored => {
                            assert_eq!(
                                member_fault(e),
                                Some("checksum"),
                                "{case}, {member}: {e:?}"
                            );
                            assert_eq!(e.member(), Some(member.as_str()), "{case}");
                            caught += 1;
                        }
                        (Some(h), Err(e)) if h == i => {
                            assert!(
                                matches!(
                                    member_fault(e),
                                    Some("corrupt" | "checksum" | "truncated" | "overrun")
                                ),
                                "{case}, {member}: {e:?}"
                            );
                            caught += 1;
                        }
                        (Some(h), Ok(_)) if h == i && *stored => {
                            panic!("{case}, {member}: a corrupt stored member read")
                        }
                        // Every other member, and a deflated member whose flip inflates to
                        // the same bytes (bits past the end of its stream), reads numpy's.
                        (Some(_), _) => {
                            assert_eq!(got.as_ref().ok(), Some(&raw[i]), "{case}, {member}")
                        }
                        (None, Ok(r)) => assert_eq!(r, &raw[i], "{case}, {member}"),
                        (None, Err(e)) => {
                            assert!(is_corrupt_input_error(e), "{case}, {member}: {e:?}")
                        }
                    }
                    // Decoded, the member is numpy's array (written back: numpy's bytes), or
                    // fails as its raw bytes do.
                    match dynamic {
                        Ok(a) => {
                            let mut out = Vec::new();
                            a.write_npy(&mut out).unwrap();
                            assert_eq!(out, raw[i], "{case}, {member}: read as other values");
                        }
                        Err(e) => {
                            assert!(is_corrupt_input_error(&e), "{case}, {member}: {e:?}");
                            assert!(
                                got.is_err(),
                                "{case}, {member}: its bytes read, its array failed: {e:?}"
                            );
                        }
                    }
                }
            }
        }
        // Each flip inside a stored member was caught; deflated ones nearly all.
        let inside: usize = data.iter().map(|r| r.len() * 3).sum();
        if members.iter().all(|(_, stored)| *stored) {
            assert_eq!(caught, inside, "{name}");
        } else {
            assert!(caught * 10 >= inside * 9, "{name}: {caught} of {inside}");
        }
    }
}

#[test]
fn a_corrupt_member_fails_alone() {
    let mut bytes = fixture("npz_stored.npz");
    // Flip a data byte of "fortran" (member 1): its CRC-32 no longer matches.
    let start = open(&bytes)
        .member("fortran")
        .unwrap()
        .stored_range()
        .unwrap()
        .unwrap()
        .start as usize;
    bytes[start + 130] ^= 0x40;
    let mut npz = open(&bytes);
    let err = ndnpy::Error::from(npz.by_name::<OwnedRepr<i32>, IxDyn>("fortran").unwrap_err());
    assert_eq!(member_fault(&err), Some("checksum"), "{err:?}");
    assert_eq!(err.member(), Some("fortran.npy"));
    // The header alone is still readable, and every other member is fine.
    assert_eq!(
        npz.member("fortran")
            .unwrap()
            .header()
            .unwrap()
            .header
            .shape,
        [3, 4]
    );
    check_others(&mut npz);

    let mut bytes = fixture("npz_compressed.npz");
    let locals = local(&bytes);
    // Garble the middle of the deflate stream of member 1.
    let mid = (locals[1] + locals[2]) / 2;
    for b in &mut bytes[mid..mid + 8] {
        *b ^= 0x5a;
    }
    let mut npz = open(&bytes);
    let err = ndnpy::Error::from(npz.by_name::<OwnedRepr<i32>, IxDyn>("fortran").unwrap_err());
    assert!(
        matches!(
            member_fault(&err),
            Some("corrupt" | "checksum" | "truncated" | "overrun")
        ),
        "{err:?}"
    );
    check_others(&mut npz);
}

fn check_others<R: std::io::Read + std::io::Seek>(npz: &mut NpzReader<R>) {
    let a: Array2<f64> = npz.by_name("a").unwrap();
    assert_eq!(a[[1, 2]], 2.5);
    let be: Array1<u16> = npz.by_name("big_endian").unwrap();
    assert_eq!(be[4], 4000);
    let results = npz.read_all::<OwnedRepr<f64>, IxDyn>();
    let first = results[0].1.as_ref().expect("the first member reads");
    assert_eq!(first.shape(), a.shape());
    assert!(results[1].1.is_err());
}

#[test]
fn a_zip_bomb_stops_at_the_declared_size() {
    // A deflated member that declares 1000 bytes and inflates to 16 MiB.
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_bytes("bomb", &vec![0u8; 16 << 20]).unwrap();
    w.add_array("ok", &array![1u8, 2]).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    let (c, l) = (central(&bytes)[0], local(&bytes)[0]);
    put32(&mut bytes, c + 24, 1000);
    put32(&mut bytes, l + 22, 1000);
    let mut npz = open(&bytes);
    assert_eq!(npz.member(0).unwrap().info().size(), 1000);
    let err = npz.member("bomb").and_then(|mut m| m.bytes()).unwrap_err();
    assert_eq!(member_fault(&err), Some("overrun"), "{err:?}");
    let ok: Array1<u8> = npz.by_name("ok").unwrap();
    assert_eq!(ok, array![1, 2]);

    // An .npy member whose data is longer than its declared size: the header's length is
    // checked against the declared size before anything is allocated.
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_array("big", &Array1::<u64>::zeros(1 << 20)).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    let c = central(&bytes)[0];
    put32(&mut bytes, c + 24, 4096);
    let mut npz = open(&bytes);
    let err = crate::own::by_name::<OwnedRepr<u64>, IxDyn, _>(&mut npz, "big").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err:?}");
    assert_eq!(err.member(), Some("big.npy"));
    let (expected, found) = err.byte_counts().unwrap();
    assert!(found < expected, "{err:?}");
}

#[test]
fn large_deflated_members_read_exactly_and_fail_cleanly() {
    // 17 MiB members: past the 16 MiB where, with the `parallel` feature, a helper thread
    // faults the array in ahead of the inflater (typed and runtime-typed reads).
    let n = (17 << 20) / 8;
    let a = Array1::from_shape_fn(n, |i| (i as u64).wrapping_mul(0x9E37_79B9) >> 7);
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_array("a", &a).unwrap();
    w.add_array("b", &array![5u64]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = open(&bytes);
    let back: Array1<u64> = npz.by_name("a").unwrap();
    assert_eq!(back, a);
    let dynamic = npz.member("a").unwrap().read_dyn().unwrap();
    assert_eq!(dynamic.into_array::<u64>().unwrap(), a.clone().into_dyn());

    // A flipped bit in the compressed data: an error (corrupt stream or CRC), not a panic
    // or a hang, and the other member still reads.
    let c = central(&bytes)[0];
    let l = local(&bytes)[0];
    let data = l
        + 30
        + u16::from_le_bytes([bytes[l + 26], bytes[l + 27]]) as usize
        + u16::from_le_bytes([bytes[l + 28], bytes[l + 29]]) as usize;
    let comp = u32::from_le_bytes(bytes[c + 20..c + 24].try_into().unwrap()) as usize;
    let mut bad = bytes.clone();
    bad[data + comp / 2] ^= 0x10;
    let mut npz = open(&bad);
    let stream_or_crc = |err: &Error| {
        matches!(member_fault(err), Some("corrupt" | "checksum")) && err.member() == Some("a.npy")
    };
    let err = ndnpy::Error::from(
        npz.by_name::<OwnedRepr<u64>, ndarray::Ix1>("a")
            .unwrap_err(),
    );
    assert!(stream_or_crc(&err), "{err:?}");
    let err = npz.member("a").and_then(|mut m| m.read_dyn()).unwrap_err();
    assert!(stream_or_crc(&err), "{err:?}");
    let b: Array1<u64> = npz.by_name("b").unwrap();
    assert_eq!(b, array![5]);

    // The member's compressed size cut to a tenth: the deflate stream ends early, typed.
    let mut short = bytes.clone();
    put32(&mut short, c + 20, (comp / 10) as u32);
    put32(&mut short, l + 18, (comp / 10) as u32);
    let mut npz = open(&short);
    let err = ndnpy::Error::from(
        npz.by_name::<OwnedRepr<u64>, ndarray::Ix1>("a")
            .unwrap_err(),
    );
    assert_eq!(member_fault(&err), Some("corrupt"), "{err:?}");
}

#[test]
fn an_impossible_declared_size_is_refused_before_inflating() {
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_array("a", &array![1.0f64, 2.0]).unwrap();
    w.add_array("b", &array![3.0f64]).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    let c = central(&bytes)[0];
    put32(&mut bytes, c + 24, 0xffff_fff0);
    let mut npz = open(&bytes);
    // Listing is unaffected; reading the member is refused, the other member is fine.
    assert_eq!(npz.names().unwrap(), ["a", "b"]);
    let err = crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut npz, "a").unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");
    assert!(npz.member("a").and_then(|mut m| m.bytes()).is_err());
    let b: Array1<f64> = npz.by_name("b").unwrap();
    assert_eq!(b, array![3.0]);
}

#[test]
fn lying_sizes_and_offsets_are_typed_errors() {
    let base = fixture("npz_stored.npz");
    let c = central(&base);
    let l = local(&base);

    // A stored member whose two sizes differ.
    let mut b = base.clone();
    put32(&mut b, c[0] + 24, 100);
    let err = crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut open(&b), "a").unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");

    // A member whose data runs into the next member (overlapping members).
    let mut b = base.clone();
    put32(&mut b, c[0] + 20, 5000);
    put32(&mut b, c[0] + 24, 5000);
    let err = open(&b)
        .member("a")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");
    assert!(open(&b)
        .member("fortran")
        .and_then(|mut m| m.bytes())
        .is_ok());

    // Two entries pointing at the same local header: each would read the same data, an
    // amplification (the overlapping-files zip bomb).
    let mut b = base.clone();
    put32(&mut b, c[1] + 42, 0);
    let mut npz = open(&b);
    let err = npz.member(1).and_then(|mut m| m.bytes()).unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");
    assert!(npz.member(0).and_then(|mut m| m.bytes()).is_err());
    let bytes = npz
        .member("big_endian")
        .and_then(|mut m| m.bytes())
        .unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY"), "{:?}", &bytes[..8]);

    // A local header offset past the end of the archive, and a local header whose name
    // differs from its directory entry's.
    let mut b = base.clone();
    put32(&mut b, c[1] + 42, 1 << 30);
    let mut npz = open(&b);
    let err = npz
        .member("fortran")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");
    let bytes = npz.member("a").and_then(|mut m| m.bytes()).unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY"), "{:?}", &bytes[..8]);
    let mut b = base.clone();
    b[l[1] + 30] = b'F';
    let err = open(&b)
        .member("fortran")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert!(is_zip_structure(&err), "{err:?}");

    // A central directory larger than the bytes before the end record.
    let mut b = base.clone();
    let eocd = b.len() - 22;
    put32(&mut b, eocd + 12, 1 << 30);
    let err = crate::own::open_npz(Cursor::new(&b)).err().unwrap();
    assert!(is_zip_structure(&err), "{err:?}");

    // A directory entry whose name runs past the directory.
    let mut b = base.clone();
    b[c[5] + 28] = 0xff;
    b[c[5] + 29] = 0xff;
    let err = crate::own::open_npz(Cursor::new(&b)).err().unwrap();
    assert!(is_zip_structure(&err), "{err:?}");

    // A declared size larger than the member: truncated.
    let mut b = fixture("npz_compressed.npz");
    let c = central(&b);
    let size = u32::from_le_bytes(b[c[0] + 24..c[0] + 28].try_into().unwrap());
    put32(&mut b, c[0] + 24, size + 10);
    let err = open(&b)
        .member("a")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert_eq!(member_fault(&err), Some("truncated"), "{err:?}");
    assert_eq!(
        err.byte_counts(),
        Some((u64::from(size) + 10, u64::from(size)))
    );
}

/// numpy's stored archive with its member `a` marked bzip2 (method 12), and with its member
/// `fortran` marked encrypted.
fn unsupported_archives() -> (Vec<u8>, Vec<u8>) {
    let base = fixture("npz_stored.npz");
    let c = central(&base);
    let mut bzip2 = base.clone();
    bzip2[c[0] + 10] = 12;
    let mut encrypted = base;
    encrypted[c[1] + 8] |= 1;
    (bzip2, encrypted)
}

#[test]
fn unsupported_members_say_what_they_use() {
    let (bzip2, encrypted) = unsupported_archives();
    let mut npz = open(&bzip2);
    let err = npz.member("a").and_then(|mut m| m.bytes()).unwrap_err();
    assert_eq!(member_fault(&err), Some("unsupported"), "{err:?}");
    assert_eq!(err.member(), Some("a.npy"));
    assert_eq!(npz.member(0).unwrap().info().compression(), None);
    let err = open(&encrypted)
        .member("fortran")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert_eq!(member_fault(&err), Some("unsupported"), "{err:?}");
}

#[test]
fn leading_bytes_before_the_archive_are_skipped_as_zipfile_does() {
    let mut b = b"#!/bin/sh\nexit 0\n".to_vec();
    b.extend(fixture("npz_compressed.npz"));
    let mut npz = open(&b);
    check_arrays(&mut npz);
}

#[test]
fn an_archive_comment_is_tolerated() {
    let mut b = fixture("npz_stored.npz");
    let eocd = b.len() - 22;
    b[eocd + 20] = 11;
    b.extend(b"hello PK!!!");
    let mut npz = open(&b);
    check_arrays(&mut npz);
}

/// An archive of a member with a 200 kB (version 2.0) header next to an ordinary one.
fn huge_header_archive() -> Vec<u8> {
    let text = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
    let mut header = text.to_string();
    header.push_str(&" ".repeat(200_000 - text.len() - 1));
    header.push('\n');
    let mut npy = b"\x93NUMPY\x02\x00".to_vec();
    npy.extend((header.len() as u32).to_le_bytes());
    npy.extend(header.as_bytes());
    npy.extend(7.5f64.to_le_bytes());
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_bytes("huge_header.npy", &npy).unwrap();
    w.add_array("small", &array![1.0f64]).unwrap();
    w.finish().unwrap().into_inner()
}

#[test]
fn limits_apply_per_member_when_it_is_read() {
    let bytes = huge_header_archive();

    let mut npz = open(&bytes);
    let h: Array1<f64> = npz.by_name("huge_header").unwrap();
    assert_eq!(h, array![7.5]);

    let opts = ReadOptions::new().max_header_len(10_000);
    let mut npz = NpzReader::with_options(Cursor::new(&bytes), &opts).unwrap();
    assert_eq!(npz.names().unwrap(), ["huge_header", "small"]);
    let err = ndnpy::Error::from(
        npz.by_name::<OwnedRepr<f64>, IxDyn>("huge_header")
            .unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::Limit, "{err:?}");
    assert_eq!(err.byte_counts().unwrap().1, 200_000);
    assert_eq!(err.member(), Some("huge_header.npy"));
    assert!(npz
        .member("huge_header")
        .and_then(|mut m| m.header())
        .is_err());
    let s: Array1<f64> = npz.by_name("small").unwrap();
    assert_eq!(s, array![1.0]);

    let opts = ReadOptions::new().max_data_len(Some(1000));
    let mut npz = NpzReader::with_options(Cursor::new(&bytes), &opts).unwrap();
    let err = npz
        .member("huge_header")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err:?}");
    assert_eq!(err.member(), Some("huge_header.npy"));
    let (limit, found) = err.byte_counts().unwrap();
    assert_eq!(limit, 1000);
    assert!(found > limit);
}

#[test]
fn dtype_and_dimension_mismatches_are_per_member() {
    let mut npz = NpzReader::open("testdata/npz_stored.npz").unwrap();
    let err = crate::own::by_name::<OwnedRepr<f32>, IxDyn, _>(&mut npz, "a").unwrap_err();
    assert!(is_dtype_mismatch(&err), "{err:?}");
    assert_eq!(err.member(), Some("a.npy"));
    let err = crate::own::by_name::<OwnedRepr<f64>, ndarray::Ix1, _>(&mut npz, "a").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim, "{err:?}");
    assert_eq!(err.shape(), Some(&[2, 3][..]));
    assert_eq!(err.member(), Some("a.npy"));
    let a: ArrayD<f64> = npz.by_name("a").unwrap();
    assert_eq!(a.shape(), [2, 3]);
}

#[test]
fn stored_aligned_members_view_in_place_others_say_why_not() {
    use ndnpy::{npz::NpzWriteOptions, NpzWriter};
    use std::io::Cursor;
    let a = ndarray::Array2::from_shape_fn((5, 7), |(i, j)| (i * 7 + j) as f64);
    let mut w =
        NpzWriter::with_options(Cursor::new(Vec::new()), &NpzWriteOptions::new().align(true));
    w.add_array("aligned", &a).unwrap();
    w.add_array_with_options(
        "deflated",
        &a,
        &NpzWriteOptions::new().compression(ndnpy::npz::Compression::Deflated),
    )
    .unwrap();
    let archive = w.finish().unwrap().into_inner();
    // Copy into a 64-aligned buffer so the archive's offsets are the real alignments.
    let mut backing = vec![0u64; archive.len() / 8 + 1];
    let bytes: &mut [u8] = unsafe_bytes(&mut backing);
    bytes[..archive.len()].copy_from_slice(&archive);
    let bytes = &bytes[..archive.len()];
    let mut npz = ndnpy::NpzReader::new(Cursor::new(bytes)).unwrap();
    let view: ndarray::ArrayView2<f64> = npz.member("aligned").unwrap().view().unwrap();
    assert_eq!(view, a);
    let at = view.as_ptr() as usize;
    let range = bytes.as_ptr() as usize..bytes.as_ptr() as usize + bytes.len();
    assert!(range.contains(&at), "a view into the archive, not a copy");
    let err = npz
        .member("deflated")
        .and_then(|mut m| m.view::<f64, ndarray::Ix2>())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
    assert_eq!(err.member(), Some("deflated.npy"));
    assert_eq!(err.fault(), Some(Fault::Compressed), "{err:?}");
}

/// numpy's `npz_stored.npz` puts each member's data where the zip layout leaves it: "a"
/// (`<f8`) 7 bytes past an 8-byte boundary, "scalar" (`<f4`) 2 past a 4-byte one, the others
/// aligned for their type (or empty, or of one-byte items). Exactly those two are refused a
/// view in place, with the offset and the way to read them; `by_name` copies them, and every
/// member reads numpy's values either way.
#[test]
fn in_numpys_archive_exactly_the_misaligned_members_are_refused_a_view_and_read_by_copy() {
    let numpy_archive = fixture("npz_stored.npz");
    // An 8-aligned copy, so that addresses modulo 8 are offsets in the archive.
    let mut backing = vec![0u64; numpy_archive.len() / 8 + 1];
    let nb: &mut [u8] = unsafe_bytes(&mut backing);
    nb[..numpy_archive.len()].copy_from_slice(&numpy_archive);
    let nb = &nb[..numpy_archive.len()];
    let mut npz = NpzReader::new(Cursor::new(nb)).unwrap();

    // Where each member's data starts, from its stored range and its .npy header.
    let mut misaligned = Vec::new();
    for (key, align) in [("a", 8), ("fortran", 4), ("big_endian", 2), ("scalar", 4)] {
        let range = npz.member(key).unwrap().stored_range().unwrap().unwrap();
        let info = npz.member(key).unwrap().header().unwrap();
        let offset = ((range.start + info.data_offset) % align) as usize;
        if offset != 0 {
            misaligned.push((key, align as usize, offset));
        }
    }
    assert_eq!(misaligned, [("a", 8, 7), ("scalar", 4, 2)]);

    // Each refusal names the member; its text names the offset and boundary (`messages`).
    let refused = |e: Error, key: &str| {
        assert_eq!(e.kind(), ErrorKind::CannotView, "{key}: {e:?}");
        assert_eq!(e.fault(), Some(Fault::Misaligned), "{key}: {e:?}");
        let name = format!("{key}.npy");
        assert_eq!(e.member(), Some(name.as_str()));
    };
    refused(
        npz.member("a")
            .and_then(|mut m| m.view::<f64, ndarray::Ix2>())
            .unwrap_err(),
        "a",
    );
    refused(
        npz.member("scalar")
            .and_then(|mut m| m.view::<f32, ndarray::Ix0>())
            .unwrap_err(),
        "scalar",
    );
    // The aligned members view in place, inside the archive's bytes.
    let inside = nb.as_ptr_range();
    let f = npz
        .member("fortran")
        .and_then(|mut m| m.view::<i32, ndarray::Ix2>())
        .unwrap();
    assert_eq!(
        f,
        Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as i32)
    );
    assert!(inside.contains(&f.as_ptr().cast()));
    let flags = npz
        .member("flags")
        .and_then(|mut m| m.view::<bool, ndarray::Ix1>())
        .unwrap();
    assert_eq!(flags, array![true, false, true]);
    assert!(inside.contains(&flags.as_ptr().cast()));
    assert_eq!(
        npz.member("empty")
            .and_then(|mut m| m.view::<i64, ndarray::Ix2>())
            .unwrap()
            .shape(),
        [0, 3]
    );
    // ">u2" is aligned, but a view needs native byte order.
    let be = npz
        .member("big_endian")
        .and_then(|mut m| m.view::<u16, ndarray::Ix1>());
    if cfg!(target_endian = "little") {
        assert!(be.as_ref().is_err_and(is_byte_order), "{be:?}");
    } else {
        assert_eq!(be.unwrap(), array![0, 1000, 2000, 3000, 4000]);
    }
    // Copies of every member, the refused ones included: numpy's values.
    check_arrays(&mut npz);
}

fn unsafe_bytes(v: &mut [u64]) -> &mut [u8] {
    let len = v.len() * 8;
    // SAFETY: u64 has no padding and every byte pattern is a valid u64; the slice covers the
    // vector's elements and takes over its exclusive borrow.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

#[test]
fn every_fixture_member_reads_as_a_dyn_array_like_its_typed_read() {
    let mut members = 0;
    for entry in std::fs::read_dir("testdata").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("npz") {
            continue;
        }
        let mut npz = ndnpy::NpzReader::open(&path).unwrap();
        for name in npz.names().unwrap() {
            let Ok(header) = npz.member(&name).and_then(|mut m| m.header()) else {
                continue;
            };
            let a = npz
                .member(&name)
                .and_then(|mut m| m.read_dyn())
                .unwrap_or_else(|e| panic!("{path:?} {name}: {e}"));
            assert_eq!(a.dtype(), &header.header.dtype, "{path:?} {name}");
            assert_eq!(a.shape(), &header.header.shape[..], "{path:?} {name}");
            // Written back, the member's npy bytes are numpy's.
            let mut out = Vec::new();
            a.write_npy(&mut out).unwrap();
            assert_eq!(
                out,
                npz.member(&name).unwrap().bytes().unwrap(),
                "{path:?} {name}"
            );
            members += 1;
        }
    }
    assert!(members >= 20, "{members}");
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let empty_bytes = fixture("npz_empty.npz");
    let mut empty = open(&empty_bytes);
    let mut stored = NpzReader::open("testdata/npz_stored.npz").unwrap();
    let mut keywords = NpzReader::open("testdata/npz_keywords.npz").unwrap();
    let mut m = vec![
        Message::is(
            "no member in an empty archive",
            crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut empty, "a").unwrap_err(),
            "no member \"a\" (nor \"a.npy\") in the archive, which is empty",
        ),
        Message::is(
            "no index in an empty archive",
            crate::own::by_index::<OwnedRepr<f64>, IxDyn, _>(&mut empty, 0).unwrap_err(),
            "member index 0 is out of range for an archive of 0 members",
        ),
        Message::is(
            "a missing member lists the keys",
            crate::own::by_name::<OwnedRepr<f32>, IxDyn, _>(&mut keywords, "weight").unwrap_err(),
            "no member \"weight\" (nor \"weight.npy\") in the archive; its 4 keys are \
             \"weights\", \"bias\", \"arr_0\", \"arr_1\"",
        ),
        Message::is(
            "dimensions of a member",
            crate::own::by_name::<OwnedRepr<f64>, ndarray::Ix1, _>(&mut stored, "a").unwrap_err(),
            "archive member \"a.npy\": expected an array of 1 dimension, found one of 2: \
             shape (2, 3)",
        ),
        Message::is(
            "not a zip archive",
            crate::own::open_npz(Cursor::new(b"hello")).err().unwrap(),
            "not an .npz (zip) archive: no end of central directory record in its 5 bytes (it \
             starts with b\"hell\"; a truncated archive looks like this too)",
        ),
    ];
    // A member that is not an array.
    let mut npz = NpzReader::open("testdata/npz_non_npy.npz").unwrap();
    m.push(Message::is(
        "not an array",
        crate::own::by_name::<OwnedRepr<i64>, IxDyn, _>(&mut npz, "metadata").unwrap_err(),
        "archive member \"metadata\" is not an .npy array: expected magic b\"\\x93NUMPY\", \
         found b\"Name: \" (read its bytes with NpzMember::bytes)",
    ));
    // Names the writer refuses.
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("arr_1", &array![9u8]).unwrap();
    w.add_positional(&array![0u8]).unwrap();
    m.push(Message::is(
        "a duplicate",
        w.add_positional(&array![1u8]).unwrap_err(),
        "the archive already has a member named \"arr_1.npy\"",
    ));
    m.push(Message::is(
        "a name too long",
        w.add_array("n".repeat(70_000), &array![1i32]).unwrap_err(),
        "zip file error: invalid Zip archive: member name of 70004 bytes is longer than a zip \
         entry can hold (65535 bytes)",
    ));
    // A member whose data is longer than its declared size.
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    w.add_array("big", &Array1::<u64>::zeros(1 << 20)).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    let c = central(&bytes)[0];
    put32(&mut bytes, c + 24, 4096);
    let err =
        crate::own::by_name::<OwnedRepr<u64>, IxDyn, _>(&mut open(&bytes), "big").unwrap_err();
    let (expected, found) = err.byte_counts().unwrap();
    m.push(Message::is(
        "a member's data cut short",
        err,
        format!(
            "archive member \"big.npy\": file ends in the array data: \
             expected {expected} bytes, found {found}"
        ),
    ));
    // Members this crate does not read.
    let (bzip2, encrypted) = unsupported_archives();
    m.push(Message::is(
        "bzip2",
        open(&bzip2)
            .member("a")
            .and_then(|mut m| m.bytes())
            .unwrap_err(),
        "archive member \"a.npy\" uses compression method 12 (bzip2), which ndnpy does not \
         read (it reads stored and deflated members, as numpy writes them)",
    ));
    m.push(Message::is(
        "encryption",
        open(&encrypted)
            .member("fortran")
            .and_then(|mut m| m.bytes())
            .unwrap_err(),
        "archive member \"fortran.npy\" uses encryption, which ndnpy does not read \
         (it reads stored and deflated members, as numpy writes them)",
    ));
    // Limits, named with the option that raises them.
    let bytes = huge_header_archive();
    let opts = ReadOptions::new().max_header_len(10_000);
    let mut npz = NpzReader::with_options(Cursor::new(&bytes), &opts).unwrap();
    let err = npz
        .by_name::<OwnedRepr<f64>, IxDyn>("huge_header")
        .unwrap_err();
    // ndarray-npy's chain of errors, then the same error as one.
    m.push(Message::is(
        "a member's header limit, as ReadNpzError",
        &err,
        "error reading npy file in npz archive: error parsing header: error parsing metadata \
         dict: archive member \"huge_header.npy\": header of 200000 bytes exceeds the limit \
         of 10000 bytes (raise it with ReadOptions::max_header_len)",
    ));
    m.push(Message::is(
        "a member's header limit",
        ndnpy::Error::from(err),
        "archive member \"huge_header.npy\": header of 200000 bytes exceeds the limit of \
         10000 bytes (raise it with ReadOptions::max_header_len)",
    ));
    let opts = ReadOptions::new().max_data_len(Some(1000));
    let mut npz = NpzReader::with_options(Cursor::new(&bytes), &opts).unwrap();
    let err = npz
        .member("huge_header")
        .and_then(|mut m| m.bytes())
        .unwrap_err();
    let (_, found) = err.byte_counts().unwrap();
    m.push(Message::is(
        "a member's data limit",
        err,
        format!(
            "archive member \"huge_header.npy\" of {found} bytes exceeds the limit of 1000 \
             bytes (raise it with ReadOptions::max_data_len)"
        ),
    ));
    // A view of a misaligned member (an 8-aligned copy of numpy's archive).
    let base = fixture("npz_stored.npz");
    let mut backing = vec![0u64; base.len() / 8 + 1];
    let nb: &mut [u8] = unsafe_bytes(&mut backing);
    nb[..base.len()].copy_from_slice(&base);
    let mut npz = NpzReader::new(Cursor::new(&nb[..base.len()])).unwrap();
    m.push(Message::is(
        "a misaligned member",
        npz.member("a")
            .and_then(|mut m| m.view::<f64, ndarray::Ix2>())
            .unwrap_err(),
        "cannot view archive member \"a.npy\" in place: its data is 7 bytes past a 8-byte \
         boundary (read it with NpzReader::by_name, which copies; archives written with \
         NpzWriteOptions::align can be viewed)",
    ));
    m
}
