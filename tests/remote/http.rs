//! The HTTP store (`object_store::http`) against a plain HTTP server with Range support
//! (`scripts/range_server.py`): the same reads as over S3, and the same requests.

use crate::harness::*;
use ndarray::{s, Array2, Ix2};
use ndnpy::{BlockingRemoteNpy, BlockingRemoteNpz, ErrorKind, NpzWriter, RemoteNpy, WriteNpyExt};
use std::sync::Arc;

#[test]
fn npy_and_npz_over_plain_http_equal_local_reads() {
    let server = HttpServer::start();
    let a = Array2::from_shape_fn((4096, 1024), |(i, j)| (i * 1024 + j) as f64);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    std::fs::write(server.dir.join("a.npy"), &bytes).unwrap();
    let mut npz = NpzWriter::new(std::fs::File::create(server.dir.join("a.npz")).unwrap());
    npz.add_array("a", &a).unwrap();
    npz.add_array("small", &ndarray::arr1(&[1u8, 2, 3]))
        .unwrap();
    npz.finish().unwrap();

    let store = Counting::new(server.store());
    let npy = BlockingRemoteNpy::open(store.clone(), "a.npy".into()).unwrap();
    assert_eq!(npy.read::<f64, Ix2>().unwrap(), a);
    store.take();
    let row: Array2<f64> = npy.read_rows(2048..2049).unwrap();
    assert_eq!(row, a.slice(s![2048..2049, ..]));
    assert_eq!(store.take(), (1, 8192));
    let async_npy = rt()
        .block_on(RemoteNpy::open(store.clone(), "a.npy".into()))
        .unwrap();
    assert_eq!(rt().block_on(async_npy.read::<f64, Ix2>()).unwrap(), a);

    let npz = BlockingRemoteNpz::open(store.clone(), "a.npz".into()).unwrap();
    assert_eq!(npz.remote().keys().collect::<Vec<_>>(), ["a", "small"]);
    assert_eq!(npz.member("a").unwrap().read::<f64, Ix2>().unwrap(), a);
    let rows: Array2<f64> = npz
        .member("a")
        .unwrap()
        .npy()
        .unwrap()
        .read_rows(7..9)
        .unwrap();
    assert_eq!(rows, a.slice(s![7..9, ..]));

    // Missing, and not an archive.
    let err = BlockingRemoteNpy::open(store.clone(), "nope.npy".into()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(
        err.io_error().unwrap().kind(),
        std::io::ErrorKind::NotFound,
        "{err}"
    );
    let err = BlockingRemoteNpz::open(Arc::clone(&server.store()), "a.npy".into()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
}

/// The sizes: a 1 GiB `.npy` and a 1 GiB stored member of an `np.savez` archive, written
/// by numpy from `np.zeros` (so writing them commits almost no memory), one row set.
#[test]
fn one_row_of_a_1_gib_array_or_member_is_two_small_requests_at_most() {
    let server = HttpServer::start();
    let dir = server.dir.display();
    python(&format!(
        "import numpy as np\n\
         a = np.zeros((131072, 1024))\n\
         a[65536] = np.arange(1024) * 0.5\n\
         np.save(r'{dir}/big.npy', a)\n\
         np.savez(r'{dir}/big.npz', big=a)"
    ));
    let row = Array2::from_shape_fn((1, 1024), |(_, j)| j as f64 * 0.5);
    let store = Counting::new(server.store());
    let npy = BlockingRemoteNpy::open(store.clone(), "big.npy".into()).unwrap();
    assert_eq!(npy.remote().info().header.shape, [131072, 1024]);
    let opened = store.take();
    let got: Array2<f64> = npy.read_rows(65536..65537).unwrap();
    assert_eq!(got, row);
    let read = store.take();
    eprintln!("1 GiB .npy: open {opened:?}, one 8 KiB row {read:?} (requests, bytes)");
    assert_eq!(opened, (1, 4096));
    assert_eq!(read, (1, 8192));

    let npz = BlockingRemoteNpz::open(store.clone(), "big.npz".into()).unwrap();
    let opened = store.take();
    let member = npz.member("big").unwrap();
    let npy = member.npy().unwrap();
    let got: Array2<f64> = npy.read_rows(65536..65537).unwrap();
    assert_eq!(got, row);
    let (requests, bytes) = store.take();
    eprintln!("1 GiB stored member: open {opened:?}, the member and one row {requests} requests, {bytes} bytes");
    // The member's local header with the first bytes of its data (its `.npy` header), then
    // the row.
    assert!(requests <= 2, "{requests} requests");
    assert!(bytes <= 64 << 10, "{bytes} bytes");
    assert_eq!(member.remote().info().size(), 128 + (1 << 30));
}
