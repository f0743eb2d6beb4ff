//! `RemoteNpz` and `BlockingRemoteNpz`: every member of numpy's archives read remotely equals
//! the local read; requests and bytes counted.

use crate::harness::*;
use ndarray::{s, Array1, Array2, Ix1, Ix2, IxDyn};
use ndnpy::{
    npz::Compression, npz::NpzWriteOptions, remote::BlockingRemoteNpz, remote::RemoteNpz,
    remote::RemoteOptions, ErrorKind, NpzReader, NpzWriter,
};
use object_store::path::Path;
use object_store::ObjectStore;
use std::io::Cursor;
use std::sync::Arc;

/// Uploads testdata archive `name` and checks every member, async and blocking: header,
/// `read_dyn` and `bytes` equal the local reader's (or fail alike).
fn same_as_local(name: &str) {
    let store = moto().store();
    let bytes = std::fs::read(format!("testdata/{name}")).unwrap();
    let key = format!("npz/{name}");
    put(&store, &key, bytes.clone());
    let mut local = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    let remote = rt()
        .block_on(RemoteNpz::open(
            Arc::clone(&store),
            Path::from(key.as_str()),
        ))
        .unwrap();
    let blocking = BlockingRemoteNpz::open(store, Path::from(key.as_str())).unwrap();
    let keys: Vec<String> = local.keys().map(str::to_owned).collect();
    assert_eq!(remote.keys().collect::<Vec<_>>(), keys, "{name}");
    assert_eq!(remote.len(), local.len());
    for i in 0..local.len() {
        let what = format!("{name} member {i}");
        let mut l = local.member(i).unwrap();
        let info = l.info();
        let (lname, lsize, lcrc) = (info.name().to_owned(), info.size(), info.crc32());
        let r = rt().block_on(remote.member(i)).unwrap();
        assert_eq!(
            (r.info().name(), r.info().size(), r.info().crc32()),
            (lname.as_str(), lsize, lcrc),
            "{what}"
        );
        let lbytes = l.bytes().unwrap();
        assert_eq!(rt().block_on(r.bytes()).unwrap(), lbytes, "{what}");
        let b = blocking.member(i).unwrap();
        assert_eq!(b.bytes().unwrap(), lbytes, "{what} (blocking)");
        match l.read_dyn() {
            Ok(array) => {
                let debug = format!("{array:?}");
                assert_eq!(
                    format!("{:?}", rt().block_on(r.read_dyn()).unwrap()),
                    debug,
                    "{what}"
                );
                assert_eq!(format!("{:?}", b.read_dyn().unwrap()), debug, "{what}");
                assert_eq!(
                    format!("{:?}", r.header().unwrap()),
                    format!("{:?}", l.header().unwrap()),
                    "{what}"
                );
            }
            Err(e) => {
                let kind = e.kind();
                assert_eq!(
                    rt().block_on(r.read_dyn()).unwrap_err().kind(),
                    kind,
                    "{what}"
                );
                assert_eq!(b.read_dyn().unwrap_err().kind(), kind, "{what}");
            }
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
fn without_the_object_feature_an_object_member_is_refused_before_it_is_fetched() {
    let real = moto().store();
    put(
        &real,
        "npz/objects.npz",
        std::fs::read("testdata/object/objects.npz").unwrap(),
    );
    let store = Counting::new(real);
    let refused = |err: ndnpy::Error| {
        assert_eq!(err.kind(), ErrorKind::DType, "{err}");
        assert_eq!(err.member(), Some("meta.npy"));
        assert!(
            err.to_string()
                .contains("object arrays need ndnpy's `object` feature"),
            "{err}"
        );
    };
    let npz = rt()
        .block_on(RemoteNpz::open(store.clone(), "npz/objects.npz".into()))
        .unwrap();
    let member = rt().block_on(npz.member("meta")).unwrap();
    let blocking = BlockingRemoteNpz::open(store.clone(), "npz/objects.npz".into()).unwrap();
    let blocking_member = blocking.member("meta").unwrap();
    store.take();
    refused(rt().block_on(member.read_dyn()).unwrap_err());
    refused(blocking_member.read_dyn().unwrap_err());
    assert_eq!(store.take(), (0, 0));
}

/// The length of the central directory of the archive `bytes` (no zip64, no comment).
fn directory_len(bytes: &[u8]) -> u64 {
    let eocd = &bytes[bytes.len() - 22..];
    assert_eq!(eocd[..4], *b"PK\x05\x06");
    u64::from(u32::from_le_bytes(eocd[12..16].try_into().unwrap()))
}

#[test]
fn listing_10000_members_transfers_the_directory_only() {
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
    let npz = rt()
        .block_on(RemoteNpz::open(store.clone(), "npz/many.npz".into()))
        .unwrap();
    let (requests, transferred) = store.take();
    let cd = directory_len(&bytes);
    eprintln!(
        "10,000 members, {} bytes, directory {cd} bytes: {requests} requests, {transferred} bytes",
        bytes.len()
    );
    // The tail (the end record and what precedes it, 64 KiB) and the rest of the directory.
    assert_eq!(requests, 2);
    assert!(transferred <= cd + 22 + 65_535, "{transferred} bytes");
    assert_eq!(transferred, cd.max(65_557 - 22) + 22);
    let keys: Vec<&str> = npz.keys().collect();
    assert_eq!(keys.len(), 10_000);
    assert_eq!((keys[0], keys[9999]), ("t0", "t9999"));
    // A member: one GET, its local header and data together; reading it makes none.
    let m = rt().block_on(npz.member("t1234")).unwrap();
    let a: Array1<f32> = rt().block_on(m.read()).unwrap();
    assert_eq!(a, Array1::from_iter((0..(1234 % 7)).map(|v| v as f32)));
    let (requests, transferred) = store.take();
    assert_eq!(requests, 1);
    // The local header, its name and room for an extra field, and the data.
    let most = 30 + 9 + 128 + m.info().compressed_size();
    assert!(transferred <= most, "{transferred} bytes, {most} at most");
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
    let npz = rt()
        .block_on(RemoteNpz::open(store.clone(), "npz/big_stored.npz".into()))
        .unwrap();
    store.take();
    let member = rt().block_on(npz.member("big")).unwrap();
    let npy = member.npy().unwrap();
    let row: Array2<f64> = rt().block_on(npy.read_rows(2048..2049)).unwrap();
    assert_eq!(row, big.slice(s![2048..2049, ..]));
    let x: f64 = rt().block_on(npy.read_element(&[4095, 1023])).unwrap();
    assert_eq!(x, big[[4095, 1023]]);
    let (requests, transferred) = store.take();
    eprintln!("one 8 KiB row and one element of a stored member: {requests} requests, {transferred} bytes");
    // The member's local header with its first 4 KiB, the row, the element.
    assert_eq!(requests, 3);
    assert!(transferred <= 64 << 10, "{transferred} bytes");
    // The whole member, in parts, its CRC-32 checked.
    let opts = RemoteOptions::new().part_size(4 << 20).concurrency(4);
    let npz = rt()
        .block_on(RemoteNpz::open_with_options(
            store.clone(),
            "npz/big_stored.npz".into(),
            opts.clone(),
        ))
        .unwrap();
    let m = rt().block_on(npz.member("big")).unwrap();
    store.take();
    let all: Array2<f64> = rt().block_on(m.read()).unwrap();
    assert_eq!(all, big);
    let (requests, transferred) = store.take();
    let compressed = m.info().compressed_size();
    let parts = compressed.div_ceil(4 << 20);
    assert_eq!(parts, 9); // 32 MiB and the header
                          // What the member's opening brought (its header and the first bytes after) is not
                          // fetched again; the rest comes in 4 MiB parts.
    let rest = compressed - transferred;
    assert!(
        rest > 0 && rest <= 64 << 10,
        "{transferred} of {compressed} bytes"
    );
    assert_eq!(requests, transferred.div_ceil(4 << 20));
    let blocking =
        BlockingRemoteNpz::open_with_options(store.clone(), "npz/big_stored.npz".into(), opts)
            .unwrap();
    let bm = blocking.member("big").unwrap();
    store.take();
    assert_eq!(bm.read::<f64, Ix2>().unwrap(), big);
    assert_eq!(store.take(), (requests, transferred));
    assert_eq!(
        bm.npy().unwrap().read_rows::<f64, Ix2>(7..9).unwrap(),
        big.slice(s![7..9, ..])
    );
}

#[test]
fn a_deflated_member_is_inflated_as_it_arrives() {
    let (big, bytes) = big_archive(true);
    let real = moto().store();
    put(&real, "npz/big_deflated.npz", bytes);
    let store = Counting::new(real);
    let opts = RemoteOptions::new().part_size(64 << 10).concurrency(2);
    let npz =
        BlockingRemoteNpz::open_with_options(store.clone(), "npz/big_deflated.npz".into(), opts)
            .unwrap();
    let m = npz.member("big").unwrap();
    assert_eq!(m.remote().header().unwrap().header.shape, [4096, 1024]);
    store.take();
    assert_eq!(m.read::<f64, Ix2>().unwrap(), big);
    let (requests, transferred) = store.take();
    let compressed = m.remote().info().compressed_size();
    eprintln!("a deflated member of {compressed} bytes in 64 KiB parts: {requests} requests, {transferred} bytes");
    assert!(transferred <= compressed);
    assert!(requests >= compressed / (128 << 10));
    // The async read streams the same way (on the runtime's blocking pool): the same
    // requests, and what opening brought is not fetched again.
    assert_eq!(
        rt().block_on(m.remote().read::<f64, IxDyn>()).unwrap(),
        big.into_dyn()
    );
    assert_eq!(store.take(), (requests, transferred));
    assert!(transferred < compressed);
    let small: Array1<i64> = npz.member("small").unwrap().read().unwrap();
    assert_eq!(small, ndarray::arr1(&[1, 2, 3]));
    // Rows need a stored member.
    let err = m.npy().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CannotView);
    assert!(err.to_string().contains("big.npy"), "{err}");
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
    let (big, bytes) = big_archive(false);
    // One byte in the middle of the array data, in the last byte of the data, in the first
    // bytes after the header (which opening brings).
    let cases: [fn(u64) -> u64; 3] = [|len| len / 2, |len| len - 1, |_| 200];
    let opts = RemoteOptions::new().part_size(1 << 20).concurrency(4);
    let memory: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let s3 = moto().store();
    for (i, at) in cases.into_iter().enumerate() {
        let name = format!("npz/flipped{i}.npz");
        let bad = flip(bytes.clone(), "big", at);
        for store in [&s3, &memory] {
            put(store, &name, bad.clone());
        }
        let check = |err: ndnpy::Error, how: &str| {
            assert_eq!(err.kind(), ErrorKind::Archive, "{how}: {err}");
            assert_eq!(err.member(), Some("big.npy"), "{how}");
            assert!(err.to_string().contains("CRC"), "{how}: {err}");
        };
        let blocking =
            BlockingRemoteNpz::open_with_options(s3.clone(), name.as_str().into(), opts.clone())
                .unwrap();
        let m = blocking.member("big").unwrap();
        check(m.read::<f64, Ix2>().unwrap_err(), "blocking read");
        check(m.bytes().unwrap_err(), "blocking bytes");
        check(
            rt().block_on(m.remote().read::<f64, Ix2>()).unwrap_err(),
            "async read, tokio",
        );
        check(
            rt().block_on(m.remote().read_dyn()).unwrap_err(),
            "async read_dyn, tokio",
        );
        // Outside a tokio runtime the async read fetches the data whole, then checks it.
        let npz = futures::executor::block_on(RemoteNpz::open_with_options(
            memory.clone(),
            name.as_str().into(),
            opts.clone(),
        ))
        .unwrap();
        let m = futures::executor::block_on(npz.member("big")).unwrap();
        check(
            futures::executor::block_on(m.read::<f64, Ix2>()).unwrap_err(),
            "async read, another executor",
        );
    }
    // The intact archive reads the same through the executor's path.
    put(&memory, "npz/intact.npz", bytes);
    let npz =
        futures::executor::block_on(RemoteNpz::open(memory, "npz/intact.npz".into())).unwrap();
    let m = futures::executor::block_on(npz.member("big")).unwrap();
    assert_eq!(
        futures::executor::block_on(m.read::<f64, Ix2>()).unwrap(),
        big
    );
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
    let npz = BlockingRemoteNpz::open(Arc::clone(&store), "npz/crc.npz".into()).unwrap();
    let err = npz.member("small").unwrap().read::<i64, Ix1>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    assert_eq!(err.member(), Some("small.npy"));
    // Not an archive.
    put(&store, "npz/not.npz", b"not a zip file at all".to_vec());
    let err = BlockingRemoteNpz::open(Arc::clone(&store), "npz/not.npz".into()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    // Cut short: the directory points past the end.
    let cut = bytes[bytes.len() - 200_000..].to_vec();
    put(&store, "npz/cut.npz", cut);
    match BlockingRemoteNpz::open(Arc::clone(&store), "npz/cut.npz".into()) {
        Err(e) => assert!(e.kind().is_format(), "{e}"),
        Ok(npz) => {
            let err = npz.member("big").unwrap_err();
            assert!(err.kind().is_format(), "{err}");
        }
    }
    // A missing member lists the keys.
    let npz = BlockingRemoteNpz::open(Arc::clone(&store), "npz/crc.npz".into()).unwrap();
    let err = npz.member("nope").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember);
    assert!(err.to_string().contains("small"), "{err}");
    // Replaced after opening: an error, never a mix.
    put(&store, "npz/changing.npz", bytes.clone());
    let npz = BlockingRemoteNpz::open(Arc::clone(&store), "npz/changing.npz".into()).unwrap();
    put(&store, "npz/changing.npz", corrupt_small(bytes));
    let err = npz.member("big").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert!(err.to_string().contains("changed"), "{err}");
}

/// `ReadOptions::max_inflated_len` means what it means for `NpzReader`: the bytes read out of
/// the archive's members in all, a member refused before it is fetched if it would pass it.
#[test]
fn max_inflated_len_is_a_running_total_as_locally() {
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    for k in ["a", "b", "c"] {
        w.add_array(k, &Array1::<u8>::zeros(1000 - 128)).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let real = moto().store();
    put(&real, "npz/inflated.npz", bytes.clone());
    let store = Counting::new(real);
    let read = ndnpy::ReadOptions::new().max_inflated_len(Some(2500));
    let opts = RemoteOptions::new().read_options(read.clone());
    let npz = BlockingRemoteNpz::open_with_options(store.clone(), "npz/inflated.npz".into(), opts)
        .unwrap();
    let mut local = NpzReader::with_options(Cursor::new(&bytes[..]), &read).unwrap();
    for k in ["a", "b"] {
        let a: Array1<u8> = npz.member(k).unwrap().read().unwrap();
        assert_eq!(a, local.by_name::<ndarray::OwnedRepr<u8>, Ix1>(k).unwrap());
    }
    let c = npz.member("c").unwrap();
    store.take();
    let err = c.read::<u8, Ix1>().unwrap_err();
    let want = local
        .by_name::<ndarray::OwnedRepr<u8>, Ix1>("c")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
    assert_eq!(err.to_string(), want.to_string());
    assert_eq!(err.byte_counts(), Some((2500, 3000)));
    assert_eq!(store.take().0, 0); // refused before its data was fetched
                                   // The async reader of the same archive counts the same way.
    let npz = npz.remote();
    let err = rt()
        .block_on(async { npz.member("a").await?.read::<u8, Ix1>().await })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
}
