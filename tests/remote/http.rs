//! The HTTP store (`object_store::http`) against a plain HTTP server with Range support
//! (`scripts/range_server.py`): the same reads as over S3, and the same requests.

use crate::harness::*;
use ndarray::{s, Array2, Ix2};
use ndnpy::{remote::RemoteFile, ErrorKind, NpyReader, NpzReader, NpzWriter, WriteNpyExt};
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
    let mut npy = NpyReader::new(RemoteFile::open(store.clone(), "a.npy".into()).unwrap()).unwrap();
    assert_eq!(npy.read_array::<f64, Ix2>().unwrap(), a);
    store.take();
    let row: Array2<f64> = npy.read_rows(2048..2049).unwrap();
    assert_eq!(row, a.slice(s![2048..2049, ..]));
    assert_eq!(store.take(), (1, 8192));

    let file = RemoteFile::open(store.clone(), "a.npz".into()).unwrap();
    let mut npz = NpzReader::new(file).unwrap();
    assert_eq!(npz.keys().collect::<Vec<_>>(), ["a", "small"]);
    assert_eq!(npz.by_name::<ndarray::OwnedRepr<f64>, Ix2>("a").unwrap(), a);
    let rows: Array2<f64> = npz.member("a").unwrap().read_slice(s![7..9, ..]).unwrap();
    assert_eq!(rows, a.slice(s![7..9, ..]));

    // Missing, and not an archive.
    let err = RemoteFile::open(store.clone(), "nope.npy".into()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(
        err.io_error().unwrap().kind(),
        std::io::ErrorKind::NotFound,
        "{err}"
    );
    let file = RemoteFile::open(Arc::clone(&server.store()), "a.npy".into()).unwrap();
    let err = NpzReader::new(file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
}

/// The sizes: a 1 GiB `.npy` and a 1 GiB stored member of an `np.savez` archive, one row
/// set. numpy writes the `.npy` through `open_memmap`, a sparse file on most file systems, and
/// the archive from `np.zeros` (so writing them commits almost no memory).
#[test]
fn one_row_of_a_1_gib_array_or_member_is_two_small_requests_at_most() {
    let server = HttpServer::start();
    let dir = server.dir.display();
    python(&format!(
        "import numpy as np\n\
         m = np.lib.format.open_memmap(r'{dir}/big.npy', mode='w+', dtype='<f8', shape=(131072, 1024))\n\
         m[65536] = np.arange(1024) * 0.5\n\
         m.flush()\n\
         del m\n\
         a = np.zeros((131072, 1024))\n\
         a[65536] = np.arange(1024) * 0.5\n\
         np.savez(r'{dir}/big.npz', big=a)"
    ));
    let row = Array2::from_shape_fn((1, 1024), |(_, j)| j as f64 * 0.5);
    let store = Counting::new(server.store());
    let mut npy =
        NpyReader::new(RemoteFile::open(store.clone(), "big.npy".into()).unwrap()).unwrap();
    assert_eq!(npy.info().header.shape, [131072, 1024]);
    let opened = store.take();
    let got: Array2<f64> = npy.read_rows(65536..65537).unwrap();
    assert_eq!(got, row);
    let read = store.take();
    eprintln!("1 GiB .npy: open {opened:?}, one 8 KiB row {read:?} (requests, bytes)");
    assert_eq!(opened, (1, 4096));
    assert_eq!(read, (1, 8192));

    let file = RemoteFile::open(store.clone(), "big.npz".into()).unwrap();
    let mut npz = NpzReader::new(file).unwrap();
    let opened = store.take();
    let mut member = npz.member("big").unwrap();
    let got: Array2<f64> = member.read_slice(s![65536..65537, ..]).unwrap();
    assert_eq!(got, row);
    let (requests, bytes) = store.take();
    eprintln!("1 GiB stored member: open {opened:?}, the member and one row {requests} requests, {bytes} bytes");
    // The member's local header with the first bytes of its data (its `.npy` header), then
    // the row.
    assert_eq!(requests, 2);
    assert!(bytes <= (64 << 10) + 8192, "{bytes} bytes");
    assert_eq!(member.info().size(), 128 + (1 << 30));
}

/// Region reads over HTTP, from a `.npy` and from a stored member, equal
/// local region reads of the same file (a Fortran-order big-endian array, strings too).
#[test]
fn region_reads_over_http_equal_local_ones() {
    let server = HttpServer::start();
    let dir = server.dir.display();
    python(&format!(
        "import numpy as np\n\
         a = np.asfortranarray((np.arange(4 * 50 * 60, dtype='>f8') * 0.25).reshape(4, 50, 60))\n\
         u = np.array([str(i) * (i % 3) for i in range(300)], dtype='<U2').reshape(20, 15)\n\
         np.save(r'{dir}/a.npy', a)\n\
         np.save(r'{dir}/u.npy', u)\n\
         np.savez(r'{dir}/both.npz', a=a, u=u)"
    ));
    let sels = [
        s![1..3, .., ..].as_ref().to_vec(),
        s![.., 10..20;3, ..;-7].as_ref().to_vec(),
        s![2, 49, 59].as_ref().to_vec(),
        s![ndarray::NewAxis, -1, 5.., 0..0].as_ref().to_vec(),
    ];
    let local = |name: &str| {
        ndnpy::NpyReader::new(std::fs::File::open(server.dir.join(name)).unwrap()).unwrap()
    };
    let store = Counting::new(server.store());
    let mut npy = NpyReader::new(RemoteFile::open(store.clone(), "a.npy".into()).unwrap()).unwrap();
    let mut npz =
        NpzReader::new(RemoteFile::open(store.clone(), "both.npz".into()).unwrap()).unwrap();
    for sel in &sels {
        let want: ndarray::ArrayD<f64> = local("a.npy").read_slice(&sel[..]).unwrap();
        assert_eq!(npy.read_slice::<f64, _>(&sel[..]).unwrap(), want, "{sel:?}");
        let got = npz
            .member("a")
            .unwrap()
            .read_slice::<f64, _>(&sel[..])
            .unwrap();
        assert_eq!(got, want, "member {sel:?}");
        // Runtime-typed: the same dtype and elements as the local typed read.
        for got in [
            npy.read_slice_dyn(&sel[..]).unwrap(),
            npz.member("a").unwrap().read_slice_dyn(&sel[..]).unwrap(),
        ] {
            assert_eq!(got.dtype().descr(), "'<f8'"); // `* 0.25` made it native
            assert_eq!(got.into_array::<f64>().unwrap(), want, "dyn {sel:?}");
        }
    }
    let mut u = NpyReader::new(RemoteFile::open(store.clone(), "u.npy".into()).unwrap()).unwrap();
    let want: ndarray::Array1<String> = local("u.npy").read_slice(s![3..17;2, 4]).unwrap();
    assert_eq!(u.read_slice::<String, _>(s![3..17;2, 4]).unwrap(), want);
    let got = u.read_slice_dyn(s![3..17;2, 4]).unwrap();
    assert_eq!(got.into_array::<String>().unwrap(), want.into_dyn());
    // A selection outside the shape is refused before any request.
    let mut member = npz.member("a").unwrap();
    member.header().unwrap();
    store.take();
    let err = npy.read_slice::<f64, _>(s![.., 50, ..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    let err = member.read_slice::<f64, _>(s![5.., .., ..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    assert_eq!(store.take(), (0, 0));
}

/// The region reads of a 1 GiB `(1024, 128, 1024)` `f8` file (numpy writes it through
/// `open_memmap`, sparse on most file systems, with one plane of values): the requests and bytes each one costs, with the
/// default options (runs up to 256 KiB apart merged, GETs up to 8 MiB).
#[test]
fn region_reads_of_a_1_gib_array_fetch_about_what_they_select() {
    let server = HttpServer::start();
    let dir = server.dir.display();
    python(&format!(
        "import numpy as np\n\
         m = np.lib.format.open_memmap(r'{dir}/big.npy', mode='w+', dtype='<f8', shape=(1024, 128, 1024))\n\
         m[600] = np.arange(128 * 1024).reshape(128, 1024)\n\
         m.flush()\n\
         del m"
    ));
    let plane = |j: usize, k: usize| (j * 1024 + k) as f64;
    let store = Counting::new(server.store());
    let mut npy =
        NpyReader::new(RemoteFile::open(store.clone(), "big.npy".into()).unwrap()).unwrap();
    store.take();
    // A band of rows: two planes, 2 MiB, one GET.
    let band: ndarray::Array3<f64> = npy.read_slice(s![600..602, .., ..]).unwrap();
    assert_eq!(band[[0, 5, 7]], plane(5, 7));
    let band_cost = store.take();
    // A block of columns: 128 columns of one row in every plane, 1 KiB runs 1 MiB apart.
    let cols: Array2<f64> = npy.read_slice(s![.., 5, 100..228]).unwrap();
    assert_eq!(cols[[600, 0]], plane(5, 100));
    let cols_cost = store.take();
    // A strided box: every 10th plane, 16th row, 128th column; runs within a plane are
    // less than 256 KiB apart, so one GET a plane.
    let boxed: ndarray::Array3<f64> = npy.read_slice(s![510..610;10, ..;16, ..;128]).unwrap();
    assert_eq!(boxed.shape(), [10, 8, 8]);
    assert_eq!(boxed[[9, 3, 2]], plane(48, 256));
    let box_cost = store.take();
    // One element.
    let one: ndarray::Array0<f64> = npy.read_slice(s![600, 127, 1023]).unwrap();
    assert_eq!(one[()], plane(127, 1023));
    let one_cost = store.take();
    eprintln!(
        "1 GiB region reads (requests, bytes): band {band_cost:?}, columns {cols_cost:?}, \
         strided box {box_cost:?}, one element {one_cost:?}"
    );
    assert_eq!(band_cost, (1, 2 << 20));
    assert_eq!(cols_cost, (1024, 1024 * 1024));
    assert_eq!(box_cost, (10, 10 * (7 * 16 * 8192 + 7 * 1024 + 8)));
    assert_eq!(one_cost, (1, 8));
}
