//! `.npz` archives read through `RemoteFile` by `NpzReader`: every member of numpy's archives
//! read remotely equals the local read; requests and bytes counted.

use crate::harness::*;
use ndarray::{s, Array1, Array2, Ix1};
use ndnpy::{
    npz::Compression, npz::NpzWriteOptions, remote::RemoteFile, remote::RemoteOptions, ErrorKind,
    NpzReader, NpzWriter,
};
use object_store::path::Path;
use object_store::ObjectStore;
use std::io::Cursor;
use std::sync::Arc;

/// `key` in `store` as an archive.
fn open(store: Arc<dyn ObjectStore>, key: &str) -> Result<NpzReader<RemoteFile>, ndnpy::Error> {
    Ok(NpzReader::new(RemoteFile::open(store, Path::from(key))?)?)
}

/// The same with `opts`.
fn open_with(store: Arc<dyn ObjectStore>, key: &str, opts: RemoteOptions) -> NpzReader<RemoteFile> {
    NpzReader::new(RemoteFile::open_with_options(store, Path::from(key), opts).unwrap()).unwrap()
}

/// Uploads testdata archive `name` and checks every member: header, `read_dyn` and `bytes`
/// equal the local reader's (or fail alike).
fn same_as_local(name: &str) {
    let store = moto().store();
    let bytes = std::fs::read(format!("testdata/{name}")).unwrap();
    let key = format!("npz/{name}");
    put(&store, &key, bytes.clone());
    let mut local = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    let mut remote = open(store, &key).unwrap();
    let keys: Vec<String> = local.keys().map(str::to_owned).collect();
    assert_eq!(remote.keys().collect::<Vec<_>>(), keys, "{name}");
    assert_eq!(remote.len(), local.len());
    for i in 0..local.len() {
        let what = format!("{name} member {i}");
        let mut l = local.member(i).unwrap();
        let mut r = remote.member(i).unwrap();
        let (li, ri) = (l.info(), r.info());
        assert_eq!(
            (ri.name(), ri.size(), ri.crc32()),
            (li.name(), li.size(), li.crc32()),
            "{what}"
        );
        assert_eq!(r.bytes().unwrap(), l.bytes().unwrap(), "{what}");
        match l.read_dyn() {
            Ok(array) => {
                let debug = format!("{array:?}");
                assert_eq!(format!("{:?}", r.read_dyn().unwrap()), debug, "{what}");
                assert_eq!(
                    format!("{:?}", r.header().unwrap()),
                    format!("{:?}", l.header().unwrap()),
                    "{what}"
                );
            }
            Err(e) => assert_eq!(r.read_dyn().unwrap_err().kind(), e.kind(), "{what}"),
        }
    }
}

#[test]
fn every_member_of_numpys_archives_equals_the_local_read() {
    for name in [
        "npz_stored.npz",
        "npz_compressed.npz",
        "npz_keywords.npz",
        "npz_names.npz",
        "npz_non_npy.npz",
        "npz_streamed.npz",
        "npz_streamed_compressed.npz",
        "npz_zip64.npz",
        "npz_empty.npz",
        "example.npz",
        "object/objects.npz",
    ] {
        same_as_local(name);
    }
}

#[cfg(not(feature = "object"))]
#[test]
fn without_the_object_feature_an_object_member_is_refused() {
    let real = moto().store();
    put(
        &real,
        "npz/objects.npz",
        std::fs::read("testdata/object/objects.npz").unwrap(),
    );
    let mut npz = open(real, "npz/objects.npz").unwrap();
    let err = npz.member("meta").unwrap().read_dyn().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.member(), Some("meta.npy"));
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType), "{err}");
    assert_eq!(
        err.dtype().map(|d| d.descr()).as_deref(),
        Some("'|O'"),
        "{err}"
    );
}

/// The length of the central directory of the archive `bytes` (no zip64, no comment).
fn directory_len(bytes: &[u8]) -> u64 {
    let eocd = &bytes[bytes.len() - 22..];
    assert_eq!(eocd[..4], *b"PK\x05\x06");
    u64::from(u32::from_le_bytes(eocd[12..16].try_into().unwrap()))
}

#[test]
fn listing_10000_members_transfers_the_directory_and_little_more() {
    let dir = std::env::temp_dir().join(format!("ndnpy-remote-npz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("many.npz");
    python(&format!(
        "import numpy as np\n\
         np.savez({:?}, **{{f't{{k}}': np.arange(k % 7, dtype='<f4') for k in range(10000)}})",
        path.to_str().unwrap()
    ));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let real = moto().store();
    put(&real, "npz/many.npz", bytes.clone());
    let store = Counting::new(real);
    let mut npz = open(store.clone(), "npz/many.npz").unwrap();
    let (requests, transferred) = store.take();
    let cd = directory_len(&bytes);
    eprintln!(
        "10,000 members, {} bytes, directory {cd} bytes: {requests} requests, {transferred} bytes",
        bytes.len()
    );
    // The first 4 KiB (the open), the tail (the end record and what precedes it, 64 KiB),
    // and the directory, read ahead in windows that double from 64 KiB.
    assert!(requests <= 8, "{requests} requests");
    // The directory's last window runs to the end, over the tail again: the directory,
    // and at most 4 KiB and two tails more; not the archive's 2.5 MB.
    assert!(transferred <= 4096 + cd + 2 * 65_557, "{transferred} bytes");
    let keys: Vec<&str> = npz.keys().collect();
    assert_eq!(keys.len(), 10_000);
    assert_eq!((keys[0], keys[9999]), ("t0", "t9999"));
    // A member: one GET, its local header and data together.
    let mut m = npz.member("t1234").unwrap();
    let a: Array1<f32> = m.read().unwrap();
    assert_eq!(a, Array1::from_iter((0..(1234 % 7)).map(|v| v as f32)));
    let (requests, transferred) = store.take();
    eprintln!("one member: {requests} requests, {transferred} bytes");
    assert_eq!(requests, 1);
    assert!(transferred <= 64 << 10, "{transferred} bytes");
}

/// An archive of `np.savez` (stored) or `np.savez_compressed`: `big` (4096 rows of 8 KiB)
/// and `small`.
fn big_archive(compressed: bool) -> (Array2<f64>, Vec<u8>) {
    let big = Array2::from_shape_fn((4096, 1024), |(i, j)| ((i * 1024 + j) % 1000) as f64);
    let mut out = Cursor::new(Vec::new());
    let opts = NpzWriteOptions::new().compression(if compressed {
        Compression::Deflated
    } else {
        Compression::Stored
    });
    let mut npz = NpzWriter::with_options(&mut out, &opts);
    npz.add_array("small", &ndarray::arr1(&[1i64, 2, 3]))
        .unwrap();
    npz.add_array("big", &big).unwrap();
    npz.finish().unwrap();
    (big, out.into_inner())
}

// As for the `.npy` rows test: 32 MiB over S3; the 1 GiB member is read over plain HTTP
// (`http::one_row_of_a_1_gib_array_or_member_is_two_small_requests_at_most`).
#[test]
fn a_row_of_a_stored_member_is_two_small_requests() {
    let (big, bytes) = big_archive(false);
    let real = moto().store();
    put(&real, "npz/big_stored.npz", bytes);
    let store = Counting::new(real);
    let mut npz = open(store.clone(), "npz/big_stored.npz").unwrap();
    store.take();
    let mut member = npz.member("big").unwrap();
    let row: Array2<f64> = member.read_slice(s![2048..2049, ..]).unwrap();
    assert_eq!(row, big.slice(s![2048..2049, ..]));
    let x: ndarray::Array0<f64> = member.read_slice(s![4095, 1023]).unwrap();
    assert_eq!(x.into_scalar(), big[[4095, 1023]]);
    let (requests, transferred) = store.take();
    eprintln!("one 8 KiB row and one element of a stored member: {requests} requests, {transferred} bytes");
    // The member's local header with the bytes after it, the row, the element.
    assert_eq!(requests, 3);
    assert!(transferred <= 80 << 10, "{transferred} bytes");
    // The whole member, in parts, its CRC-32 checked.
    let opts = RemoteOptions::new().part_size(4 << 20).concurrency(4);
    let mut npz = open_with(store.clone(), "npz/big_stored.npz", opts);
    let mut m = npz.member("big").unwrap();
    m.header().unwrap();
    store.take();
    let all: Array2<f64> = m.read().unwrap();
    assert_eq!(all, big);
    let (requests, transferred) = store.take();
    let compressed = m.info().compressed_size();
    eprintln!("a stored member of {compressed} bytes in 4 MiB parts: {requests} requests, {transferred} bytes");
    assert!(
        transferred <= compressed,
        "{transferred} of {compressed} bytes"
    );
    assert!(
        requests <= compressed.div_ceil(4 << 20) + 8,
        "{requests} requests"
    );
}

#[test]
fn a_deflated_member_is_inflated_as_it_arrives() {
    let (big, bytes) = big_archive(true);
    let real = moto().store();
    put(&real, "npz/big_deflated.npz", bytes);
    let store = Counting::new(real);
    let opts = RemoteOptions::new().part_size(64 << 10).concurrency(2);
    let mut npz = open_with(store.clone(), "npz/big_deflated.npz", opts);
    let mut m = npz.member("big").unwrap();
    assert_eq!(m.header().unwrap().header.shape, [4096, 1024]);
    store.take();
    let all: Array2<f64> = m.read().unwrap();
    assert_eq!(all, big);
    let (requests, transferred) = store.take();
    let compressed = m.info().compressed_size();
    eprintln!("a deflated member of {compressed} bytes, windows up to 128 KiB: {requests} requests, {transferred} bytes");
    // Read ahead in windows that double up to part_size * concurrency.
    assert!(transferred <= compressed + (128 << 10));
    assert!(requests >= compressed / (128 << 10));
    let small: Array1<i64> = npz.by_name("small").unwrap();
    assert_eq!(small, ndarray::arr1(&[1, 2, 3]));
}

/// `bytes` with one byte of the stored member `name` flipped, at `at` of its data.
fn flip(mut bytes: Vec<u8>, name: &str, at: fn(u64) -> u64) -> Vec<u8> {
    let mut npz = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    let range = npz.member(name).unwrap().stored_range().unwrap().unwrap();
    bytes[(range.start + at(range.end - range.start)) as usize] ^= 1;
    bytes
}

#[test]
fn a_flipped_byte_in_a_large_member_fails_its_crc_through_every_read() {
    let (_, bytes) = big_archive(false);
    // One byte in the middle of the array data, in the last byte of the data, in the first
    // bytes after the header.
    let cases: [fn(u64) -> u64; 3] = [|len| len / 2, |len| len - 1, |_| 200];
    let opts = RemoteOptions::new().part_size(1 << 20).concurrency(4);
    let s3 = moto().store();
    for (i, at) in cases.into_iter().enumerate() {
        let name = format!("npz/flipped{i}.npz");
        put(&s3, &name, flip(bytes.clone(), "big", at));
        let check = |err: ndnpy::Error, how: &str| {
            assert_eq!(err.kind(), ErrorKind::Archive, "{how}: {err}");
            assert_eq!(err.member(), Some("big.npy"), "{how}");
            assert_eq!(err.fault(), Some(ndnpy::Fault::Checksum), "{how}: {err}");
        };
        let mut npz = open_with(s3.clone(), &name, opts.clone());
        check(
            npz.by_name::<ndarray::OwnedRepr<f64>, ndarray::Ix2>("big")
                .unwrap_err()
                .into(),
            "read",
        );
        check(npz.member("big").unwrap().bytes().unwrap_err(), "bytes");
        check(npz.by_name_dyn("big").unwrap_err(), "read_dyn");
    }
}

/// `bytes` with the stored member `small.npy`'s last data byte flipped (its CRC-32 then
/// fails).
fn corrupt_small(mut bytes: Vec<u8>) -> Vec<u8> {
    let mut npz = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    let range = npz
        .member("small")
        .unwrap()
        .stored_range()
        .unwrap()
        .unwrap();
    bytes[range.end as usize - 1] ^= 1;
    bytes
}

#[test]
fn hostile_and_broken_archives_are_errors() {
    let store = moto().store();
    let (_, bytes) = big_archive(false);
    // A CRC-32 that does not match: a format error naming the member, as locally.
    put(&store, "npz/crc.npz", corrupt_small(bytes.clone()));
    let mut npz = open(Arc::clone(&store), "npz/crc.npz").unwrap();
    let err = ndnpy::Error::from(
        npz.by_name::<ndarray::OwnedRepr<i64>, Ix1>("small")
            .unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    assert_eq!(err.member(), Some("small.npy"));
    // Not an archive.
    put(&store, "npz/not.npz", b"not a zip file at all".to_vec());
    let err = open(Arc::clone(&store), "npz/not.npz").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    // Cut short: the directory points past the end.
    let cut = bytes[bytes.len() - 200_000..].to_vec();
    put(&store, "npz/cut.npz", cut);
    match open(Arc::clone(&store), "npz/cut.npz") {
        Err(e) => assert!(e.kind().is_format(), "{e}"),
        Ok(mut npz) => {
            let err = npz.member("big").and_then(|mut m| m.bytes()).unwrap_err();
            assert!(err.kind().is_format(), "{err}");
        }
    }
    // A missing member.
    let mut npz = open(Arc::clone(&store), "npz/crc.npz").unwrap();
    let err = npz.member("nope").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember);
    assert_eq!(err.fault(), Some(ndnpy::Fault::MissingMember));
    // Replaced after opening: an error, never a mix.
    put(&store, "npz/changing.npz", bytes.clone());
    let mut npz = open(Arc::clone(&store), "npz/changing.npz").unwrap();
    put(&store, "npz/changing.npz", corrupt_small(bytes));
    let err = npz.member("big").and_then(|mut m| m.bytes()).unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::Changed), "{err}");
}

// `NpzReader::from_source` of a `RemoteFile` reads as `NpzReader::new` of it: a row of a
// stored member in a few small requests, the whole member in parts with its CRC-32 checked
// (a flipped byte fails it), and a stored member as a source `NpyReader` reads rows of.
#[test]
fn an_archive_named_as_a_source_and_its_stored_member_read_as_the_store_reads() {
    let (big, bytes) = big_archive(false);
    let real = moto().store();
    put(&real, "npz/big_source.npz", bytes.clone());
    put(
        &real,
        "npz/big_source_flipped.npz",
        flip(bytes, "big", |len| len / 2),
    );
    let store = Counting::new(real);
    let opts = RemoteOptions::new().part_size(4 << 20).concurrency(4);
    let file = RemoteFile::open_with_options(
        store.clone(),
        Path::from("npz/big_source.npz"),
        opts.clone(),
    );
    let mut npz = NpzReader::from_source(file.unwrap()).unwrap();
    store.take();
    let mut member = npz.member("big").unwrap();
    let row: Array2<f64> = member.read_slice(s![2048..2049, ..]).unwrap();
    assert_eq!(row, big.slice(s![2048..2049, ..]));
    let (requests, transferred) = store.take();
    eprintln!(
        "one 8 KiB row of a stored member by source: {requests} requests, {transferred} bytes"
    );
    assert!(requests <= 3, "{requests} requests");
    assert!(transferred <= 80 << 10, "{transferred} bytes");

    // The member as a source of its own: rows by `NpyReader`.
    let npy = member.stored_source().unwrap().expect("stored");
    let mut npy = ndnpy::NpyReader::new(npy).unwrap();
    store.take();
    let rows: Array2<f64> = npy.read_rows(100..102).unwrap();
    assert_eq!(rows, big.slice(s![100..102, ..]));
    let (requests, transferred) = store.take();
    eprintln!(
        "two rows of a stored member through NpyReader: {requests} requests, {transferred} bytes"
    );
    assert!(requests <= 2, "{requests} requests");
    assert!(transferred <= 64 << 10, "{transferred} bytes");
    drop(npy);

    // The whole member, in parts, its CRC-32 checked.
    member.header().unwrap();
    store.take();
    let all: Array2<f64> = member.read().unwrap();
    assert_eq!(all, big);
    let (requests, transferred) = store.take();
    let compressed = member.info().compressed_size();
    eprintln!(
        "a stored member of {compressed} bytes by source: {requests} requests, {transferred} bytes"
    );
    assert!(
        transferred <= compressed + (64 << 10),
        "{transferred} of {compressed}"
    );
    assert!(
        requests <= compressed.div_ceil(4 << 20) + 8,
        "{requests} requests"
    );
    let small: Array1<i64> = npz.by_name("small").unwrap();
    assert_eq!(small, ndarray::arr1(&[1, 2, 3]));

    let file = RemoteFile::open_with_options(store, Path::from("npz/big_source_flipped.npz"), opts);
    let mut npz = NpzReader::from_source(file.unwrap()).unwrap();
    let err = npz
        .member("big")
        .unwrap()
        .read::<ndarray::OwnedRepr<f64>, ndarray::Ix2>();
    let err = err.unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::Checksum), "{err}");
    assert_eq!(err.member(), Some("big.npy"));
}
