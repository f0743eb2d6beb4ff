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
