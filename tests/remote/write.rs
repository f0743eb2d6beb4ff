//! `RemoteWriter` and `SpooledRemoteWriter`: what they upload (compared byte for byte with the
//! local writers, and loaded by numpy), how (requests counted), and that nothing is ever
//! visible at the path, nor left pending in the bucket, before `finish` or after an error.

use crate::harness::*;
use ndarray::{s, Array1, Array2, Array3};
use ndnpy::{
    npz::NpzWriteOptions, remote::RemoteFile, remote::RemoteOptions, remote::RemoteWriter,
    remote::SpooledRemoteWriter, remote::Uploaded, ErrorKind, NpyReader, NpyWriter, NpzWriter,
    WriteNpyExt,
};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

const MIB: usize = 1 << 20;

/// The object at `name`, or `None` if there is none.
fn download(store: &Arc<dyn ObjectStore>, name: &str) -> Option<Vec<u8>> {
    match rt().block_on(store.get(&Path::from(name))) {
        Ok(result) => Some(rt().block_on(result.bytes()).unwrap().to_vec()),
        Err(object_store::Error::NotFound { .. }) => None,
        Err(e) => panic!("GET {name}: {e}"),
    }
}

/// Whether HEAD finds the object `name`.
fn exists(store: &Arc<dyn ObjectStore>, name: &str) -> bool {
    match rt().block_on(store.head(&Path::from(name))) {
        Ok(_) => true,
        Err(object_store::Error::NotFound { .. }) => false,
        Err(e) => panic!("HEAD {name}: {e}"),
    }
}

/// The keys of the bucket's multipart uploads that are neither completed nor aborted
/// (ListMultipartUploads, asked of moto directly: object_store has no call for it).
fn pending_uploads(port: u16) -> Vec<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET /{BUCKET}?uploads HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let mut keys = Vec::new();
    let mut rest = response.as_str();
    while let Some(at) = rest.find("<Upload>") {
        rest = &rest[at..];
        let end = rest.find("</Upload>").unwrap();
        let upload = &rest[..end];
        let key = &upload[upload.find("<Key>").unwrap() + 5..upload.find("</Key>").unwrap()];
        keys.push(key.to_string());
        rest = &rest[end..];
    }
    keys
}

/// Asserts that moto holds no pending upload of `name`.
fn no_pending_upload(port: u16, name: &str) {
    let pending = pending_uploads(port);
    assert!(
        !pending.iter().any(|k| k == name),
        "pending uploads: {pending:?}"
    );
}

/// Runs `check` (Python, with `np` and `path` defined) on `bytes` saved as a file, and
/// asserts it prints `ok`.
fn numpy_check(bytes: &[u8], name: &str, check: &str) {
    let dir = std::env::temp_dir().join(format!("ndnpy-remote-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name.replace('/', "_"));
    std::fs::write(&path, bytes).unwrap();
    let script = format!("import sys\nimport numpy as np\npath = sys.argv[1]\n{check}\n");
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .arg(&path)
        .output()
        .expect("cannot run python3");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "ok",
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `np.arange(rows * cols).reshape(rows, cols) * 0.5`, the array numpy checks against.
fn halves(rows: usize, cols: usize) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols), |(i, j)| (i * cols + j) as f64 * 0.5)
}

/// Writes `a` as the `.npy` object `name` through a `RemoteWriter`.
fn upload<T: WriteNpyExt + ?Sized>(
    store: Arc<dyn ObjectStore>,
    name: &str,
    a: &T,
    opts: RemoteOptions,
) -> Result<Uploaded, ndnpy::Error> {
    let mut w = RemoteWriter::create_with_options(store, name.into(), opts);
    a.write_npy(&mut w)?;
    w.finish()
}

fn local_npy<T: WriteNpyExt + ?Sized>(a: &T) -> Vec<u8> {
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    bytes
}

#[test]
fn an_array_smaller_than_a_part_is_one_put() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    let a = halves(100, 100); // 80 KB
    let done = upload(store.clone(), "w/small.npy", &a, RemoteOptions::new()).unwrap();
    let counts = store.uploads.take();
    eprintln!("80 KB, blocking: (puts, creates, parts, completes, aborts) = {counts:?}");
    assert_eq!(counts, (1, 0, 0, 0, 0));
    let local = local_npy(&a);
    assert_eq!(done.size, local.len() as u64);
    assert_eq!(done.parts, 0);
    assert!(done.e_tag.is_some());
    let remote = download(&real, "w/small.npy").unwrap();
    assert_eq!(remote, local);
    numpy_check(
        &remote,
        "small.npy",
        "a = np.load(path)\n\
         print('ok' if a.dtype == '<f8' and np.array_equal(a, np.arange(10000).reshape(100, 100) * 0.5) else a)",
    );

    // Views numpy orders differently: Fortran order, and a strided, reversed view written in
    // C order through the lane gatherer. Same bytes as local.
    let t = a.t();
    let done = upload(store.clone(), "w/small_f.npy", &t, RemoteOptions::new()).unwrap();
    assert_eq!(store.uploads.take(), (1, 0, 0, 0, 0));
    assert_eq!(done.size, local_npy(&t).len() as u64);
    let remote = download(&real, "w/small_f.npy").unwrap();
    assert_eq!(remote, local_npy(&t));
    assert!(remote.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': True"));
    numpy_check(
        &remote,
        "small_f.npy",
        "a = np.load(path)\n\
         print('ok' if np.array_equal(a, (np.arange(10000).reshape(100, 100) * 0.5).T) else a)",
    );
    let strided = a.slice(s![..;-3, 1..;2]);
    upload(
        store.clone(),
        "w/small_s.npy",
        &strided,
        RemoteOptions::new(),
    )
    .unwrap();
    assert_eq!(
        download(&real, "w/small_s.npy").unwrap(),
        local_npy(&strided)
    );
    // Strings: numpy's dtype is the longest item's.
    let words = Array1::from_iter((0..1000).map(|i| "x".repeat(i % 7)));
    upload(store.clone(), "w/words.npy", &words, RemoteOptions::new()).unwrap();
    let remote = download(&real, "w/words.npy").unwrap();
    assert_eq!(remote, local_npy(&words));
    numpy_check(
        &remote,
        "words.npy",
        "a = np.load(path)\n\
         print('ok' if a.dtype == '<U6' and list(a) == ['x' * (i % 7) for i in range(1000)] else a)",
    );
    assert_eq!(store.uploads.take(), (2, 0, 0, 0, 0));
    // An empty object is one PUT too.
    let w = RemoteWriter::create(store.clone(), "w/empty".into());
    assert_eq!(w.finish().unwrap().size, 0);
    assert_eq!(download(&real, "w/empty").unwrap(), b"");
}

#[test]
fn a_large_array_is_uploaded_in_concurrent_parts() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    // 23 MiB of data in parts of 5 MiB: four full parts and a last one of 3 MiB + header.
    let a = halves(2944, 1024);
    let local = local_npy(&a);
    assert_eq!(local.len(), 23 * MIB + 128);
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(3);
    let done = upload(store.clone(), "w/large.npy", &a, opts.clone()).unwrap();
    let max_in_flight = store.uploads.max_in_flight.load(Ordering::SeqCst);
    let bytes = store.uploads.bytes.load(Ordering::SeqCst);
    let counts = store.uploads.take();
    eprintln!(
        "23 MiB in 5 MiB parts: (puts, creates, parts, completes, aborts) = \
         {counts:?}, at most {max_in_flight} parts at once, {bytes} bytes sent"
    );
    assert_eq!(counts, (0, 1, 5, 1, 0));
    assert!((1..=3).contains(&max_in_flight), "{max_in_flight}");
    assert_eq!(bytes, local.len() as u64);
    assert_eq!((done.size, done.parts), (local.len() as u64, 5));
    // S3's ETag of a multipart object ends with its number of parts.
    assert!(done.e_tag.as_deref().unwrap().ends_with("-5\""), "{done:?}");
    let remote = download(&real, "w/large.npy").unwrap();
    assert!(
        remote == local,
        "the uploaded bytes differ from write_npy's"
    );
    numpy_check(
        &remote,
        "large.npy",
        "a = np.load(path)\n\
         print('ok' if np.array_equal(a, np.arange(2944 * 1024).reshape(2944, 1024) * 0.5) else a)",
    );

    // Fortran order (the transpose's memory order).
    let t = a.t();
    let done = upload(store.clone(), "w/large_f.npy", &t, opts).unwrap();
    let max_in_flight = store.uploads.max_in_flight.load(Ordering::SeqCst);
    let counts = store.uploads.take();
    eprintln!("23 MiB, Fortran order: {counts:?}, at most {max_in_flight} parts at once");
    assert_eq!(counts, (0, 1, 5, 1, 0));
    assert!((1..=3).contains(&max_in_flight), "{max_in_flight}");
    assert_eq!(done.parts, 5);
    let remote = download(&real, "w/large_f.npy").unwrap();
    assert!(remote == local_npy(&t), "the Fortran-order upload differs");
    assert!(exists(&real, "w/large_f.npy"));
    no_pending_upload(moto().port, "w/large.npy");
    no_pending_upload(moto().port, "w/large_f.npy");
}

#[test]
fn rows_streamed_by_an_npy_writer() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    // 1536 rows of 4 KiB: 6 MiB, two parts of 5 MiB; written one row at a time.
    let rows = 1536;
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(2);
    let w = RemoteWriter::create_with_options(store.clone(), "w/rows.npy".into(), opts);
    assert_eq!(w.part_size(), 5 * MIB);
    let mut npy = NpyWriter::<_, f32>::new(w, (rows, 1024)).unwrap();
    for i in 0..rows {
        let row = Array1::from_shape_fn(1024, |j| (i * 1024 + j) as f32);
        npy.write_block(&row).unwrap();
    }
    let w = npy.finish().unwrap();
    assert_eq!(w.bytes_written(), 128 + 6 * MIB as u64);
    let done = w.finish().unwrap();
    let counts = store.uploads.take();
    eprintln!("6 MiB streamed row by row: {counts:?}");
    assert_eq!(counts, (0, 1, 2, 1, 0));
    assert_eq!(done.parts, 2);
    let expected = Array2::from_shape_fn((rows, 1024), |(i, j)| (i * 1024 + j) as f32);
    let remote = download(&real, "w/rows.npy").unwrap();
    assert!(remote == local_npy(&expected));
    numpy_check(
        &remote,
        "rows.npy",
        "a = np.load(path)\n\
         print('ok' if a.dtype == '<f4' and np.array_equal(a, np.arange(1536 * 1024, dtype='f4').reshape(1536, 1024)) else a)",
    );
}

/// The archive `npz_into` writes: a stored member of 6 MiB, a deflated one, a small one.
fn npz_into<W: Write + std::io::Seek>(w: W) -> W {
    let mut npz = NpzWriter::new(w);
    let big = Array3::from_shape_fn((96, 64, 128), |(i, j, k)| (i * 8192 + j * 128 + k) as i64);
    npz.add_array("big", &big).unwrap();
    // Deflated in chunks on every core (1.6 MB), which the spool takes like any member.
    let zeros = Array2::<f64>::zeros((2000, 100));
    npz.add_array_with_options("zeros", &zeros, &NpzWriteOptions::compressed())
        .unwrap();
    npz.add_array("small", &ndarray::array![1u8, 2, 3]).unwrap();
    npz.finish().unwrap()
}

#[test]
fn an_npz_archive_is_spooled_and_uploaded() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    let local = npz_into(std::io::Cursor::new(Vec::new())).into_inner();
    assert!(local.len() > 6 * MIB);
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(2);
    let dir = std::env::temp_dir().join(format!("ndnpy-spool-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spool =
        SpooledRemoteWriter::create_in(store.clone(), "w/arrays.npz".into(), opts, &dir).unwrap();
    // The spool leaves no name in its directory, even while it is written.
    let spool = npz_into(spool);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    assert!(!exists(&real, "w/arrays.npz"));
    let done = spool.finish().unwrap();
    std::fs::remove_dir(&dir).unwrap();
    let counts = store.uploads.take();
    eprintln!("a {} byte .npz: {counts:?}", local.len());
    assert_eq!(counts, (0, 1, 2, 1, 0));
    assert_eq!(done.size, local.len() as u64);
    let remote = download(&real, "w/arrays.npz").unwrap();
    assert!(
        remote == local,
        "the archive differs from the local writer's"
    );
    numpy_check(
        &remote,
        "arrays.npz",
        "import zipfile\n\
         z = zipfile.ZipFile(path)\n\
         methods = {i.filename: i.compress_type for i in z.infolist()}\n\
         f = np.load(path)\n\
         ok = (sorted(f.files) == ['big', 'small', 'zeros']\n\
               and methods == {'big.npy': 0, 'zeros.npy': 8, 'small.npy': 0}\n\
               and np.array_equal(f['big'], np.arange(96 * 64 * 128).reshape(96, 64, 128))\n\
               and np.array_equal(f['zeros'], np.zeros((2000, 100)))\n\
               and list(f['small']) == [1, 2, 3] and f['small'].dtype == np.uint8)\n\
         print('ok' if ok else (f.files, methods))",
    );

    // A small archive is one PUT; a spool dropped unfinished uploads nothing.
    let spool = SpooledRemoteWriter::create(store.clone(), "w/one.npz".into()).unwrap();
    let mut npz = NpzWriter::new_compressed(spool);
    npz.add_array("a", &ndarray::array![1.0f64, 2.0]).unwrap();
    npz.finish().unwrap().finish().unwrap();
    assert_eq!(store.uploads.take(), (1, 0, 0, 0, 0));
    numpy_check(
        &download(&real, "w/one.npz").unwrap(),
        "one.npz",
        "print('ok' if list(np.load(path)['a']) == [1.0, 2.0] else 'no')",
    );
    let mut spool = SpooledRemoteWriter::create(store.clone(), "w/dropped.npz".into()).unwrap();
    spool.write_all(&[0; 1000]).unwrap();
    drop(spool);
    assert_eq!(store.uploads.take(), (0, 0, 0, 0, 0));
    assert!(!exists(&real, "w/dropped.npz"));
}

#[test]
fn an_upload_in_progress_is_not_visible() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    // An old object at the path stays what readers see until the new one is complete.
    put(&real, "w/replaced.bin", b"old".to_vec());
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(2);
    let mut w = RemoteWriter::create_with_options(store.clone(), "w/replaced.bin".into(), opts);
    let data: Vec<u8> = (0..12 * MIB).map(|i| (i % 251) as u8).collect();
    w.write_all(&data).unwrap();
    // Two parts handed over (the third, 2 MiB, is buffered); flush waits for them.
    w.flush().unwrap();
    assert_eq!(store.uploads.take(), (0, 1, 2, 0, 0));
    assert_eq!(download(&real, "w/replaced.bin").unwrap(), b"old");
    assert!(pending_uploads(moto().port).contains(&"w/replaced.bin".to_string()));
    let done = w.finish().unwrap();
    assert_eq!(store.uploads.take(), (0, 0, 1, 1, 0));
    assert_eq!(done.size, data.len() as u64);
    assert!(download(&real, "w/replaced.bin").unwrap() == data);
    no_pending_upload(moto().port, "w/replaced.bin");

    // A new path: not there at all (HEAD and GET say NotFound) until finish.
    let mut w = RemoteWriter::create_with_options(
        store.clone(),
        "w/new.bin".into(),
        RemoteOptions::new().part_size(5 * MIB),
    );
    w.write_all(&data).unwrap();
    w.flush().unwrap();
    assert!(!exists(&real, "w/new.bin"));
    assert_eq!(download(&real, "w/new.bin"), None);
    w.finish().unwrap();
    assert!(exists(&real, "w/new.bin"));
    store.uploads.take();
}

#[test]
fn a_writer_dropped_or_aborted_leaves_nothing() {
    let real = moto().store();
    let store = Counting::new(real.clone());
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(2);
    let data = vec![7u8; 12 * MIB];

    // Blocking, dropped: the abort is done when drop returns.
    let mut w =
        RemoteWriter::create_with_options(store.clone(), "w/dropped.bin".into(), opts.clone());
    w.write_all(&data).unwrap();
    w.flush().unwrap();
    assert!(pending_uploads(moto().port).contains(&"w/dropped.bin".to_string()));
    drop(w);
    assert_eq!(store.uploads.take(), (0, 1, 2, 0, 1));
    assert!(!exists(&real, "w/dropped.bin"));
    no_pending_upload(moto().port, "w/dropped.bin");

    // Blocking, dropped with parts still in flight (no flush): they are cancelled or land
    // before the abort, which removes them either way.
    let mut w =
        RemoteWriter::create_with_options(store.clone(), "w/dropped2.bin".into(), opts.clone());
    w.write_all(&data).unwrap();
    drop(w);
    assert_eq!(store.uploads.take(), (0, 1, 2, 0, 1));
    assert!(!exists(&real, "w/dropped2.bin"));
    no_pending_upload(moto().port, "w/dropped2.bin");

    // Blocking, aborted: later calls are errors.
    let mut w =
        RemoteWriter::create_with_options(store.clone(), "w/aborted.bin".into(), opts.clone());
    w.write_all(&data).unwrap();
    w.abort().unwrap();
    assert_eq!(store.uploads.take(), (0, 1, 2, 0, 1));
    assert!(!exists(&real, "w/aborted.bin"));
    no_pending_upload(moto().port, "w/aborted.bin");

    // A small writer dropped has made no request at all.
    let mut w = RemoteWriter::create(store.clone(), "w/tiny.bin".into());
    w.write_all(b"tiny").unwrap();
    drop(w);
    assert_eq!(store.uploads.take(), (0, 0, 0, 0, 0));
    assert!(!exists(&real, "w/tiny.bin"));
}

/// A loopback HTTP proxy in front of `upstream` that answers `503 Slow Down` to every upload
/// of part `part` (its retries too), and forwards everything else.
fn failing_part_proxy(upstream: u16, part: u32) -> String {
    let fail = format!("partNumber={part}");
    failing_proxy(upstream, move |head| {
        let target = head.split(' ').nth(1).unwrap_or("");
        let query = target.split_once('?').map_or("", |(_, q)| q);
        head.starts_with("PUT ") && query.split('&').any(|p| p == fail)
    })
}

#[test]
fn a_5xx_on_one_part_is_an_error_and_leaves_nothing() {
    let real = moto().store();
    put(&real, "w/flaky.bin", b"old".to_vec());
    let proxied: Arc<dyn ObjectStore> = Arc::new(store_at(&failing_part_proxy(moto().port, 2)));
    let store = Counting::new(proxied);
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(2);
    let mut w = RemoteWriter::create_with_options(store.clone(), "w/flaky.bin".into(), opts);
    let data = vec![1u8; 17 * MIB];
    // The error comes from whichever call first sees part 2's result: a write, or finish.
    let err = match w.write_all(&data) {
        Err(e) => {
            let e = ndnpy::Error::from(e);
            // Later calls fail too, saying why.
            let again = w.write_all(b"more").unwrap_err();
            assert!(again.to_string().contains("earlier error"), "{again}");
            assert!(w.finish().is_err());
            e
        }
        Ok(()) => w.finish().unwrap_err(),
    };
    eprintln!("{err}");
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "cannot upload part 2 (bytes {}..{}) of \"w/flaky.bin\"",
            5 * MIB,
            10 * MIB
        )),
        "{text}"
    );
    assert!(text.contains("503"), "{text}");
    assert!(text.contains("aborted"), "{text}");
    let source = std::error::Error::source(err.io_error().unwrap().get_ref().unwrap());
    assert!(
        source
            .and_then(|s| s.downcast_ref::<object_store::Error>())
            .is_some(),
        "{source:?}"
    );
    let counts = store.uploads.take();
    eprintln!("a failed part: {counts:?}");
    assert_eq!((counts.0, counts.1, counts.3, counts.4), (0, 1, 0, 1));
    // The old object is untouched and no upload is left.
    assert_eq!(download(&real, "w/flaky.bin").unwrap(), b"old");
    no_pending_upload(moto().port, "w/flaky.bin");
}

#[test]
fn a_server_killed_mid_upload_is_an_error_not_a_hang() {
    let own = Moto::start();
    let store = own.store();
    let opts = RemoteOptions::new().part_size(5 * MIB).concurrency(1);
    let mut w = RemoteWriter::create_with_options(store, "w/killed.bin".into(), opts);
    w.write_all(&vec![3u8; 11 * MIB]).unwrap();
    w.flush().unwrap();
    drop(own);
    let started = Instant::now();
    let err = w.finish().unwrap_err();
    eprintln!("{:?} later: {err}", started.elapsed());
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert!(err.to_string().contains("w/killed.bin"), "{err}");
}

#[test]
fn create_url_builds_the_store_from_the_url() {
    let mut w = RemoteWriter::create_url(
        &format!("s3://{BUCKET}/w/url.npy"),
        [
            ("aws_endpoint", moto().endpoint()),
            ("aws_allow_http", "true".into()),
            ("aws_region", "us-east-1".into()),
            ("aws_access_key_id", "test".into()),
            ("aws_secret_access_key", "test".into()),
        ],
        RemoteOptions::new(),
    )
    .unwrap();
    let a = ndarray::array![[1i32, 2], [3, 4]];
    a.write_npy(&mut w).unwrap();
    w.finish().unwrap();
    let file = RemoteFile::open(moto().store(), "w/url.npy".into()).unwrap();
    assert_eq!(
        NpyReader::new(file)
            .unwrap()
            .read_array::<i32, ndarray::Ix2>()
            .unwrap(),
        a
    );
    let err =
        RemoteWriter::create_url("not a url", [("a", "b")], RemoteOptions::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
}

#[test]
fn a_write_error_in_a_later_piece_names_the_element_as_a_local_write_does() {
    use ndnpy::{dtype::DateTimeUnit, dtype::TimeUnit, Datetime64};
    let unit = |unit| {
        Some(DateTimeUnit {
            unit,
            multiplier: 1,
        })
    };
    // The odd unit is in the second MiB of the data.
    let mut values = vec![Datetime64::new(1, unit(TimeUnit::Seconds)); 300_000];
    values[200_000] = Datetime64::new(1, unit(TimeUnit::Days));
    let a = Array1::from(values);
    let local = ndnpy::Error::from(a.write_npy(Vec::new()).unwrap_err());
    let store = moto().store();
    let remote = upload(store.clone(), "w/mixed.npy", &a, RemoteOptions::new()).unwrap_err();
    assert!(!exists(&store, "w/mixed.npy"));
    assert_eq!(
        remote.fault(),
        Some(ndnpy::Fault::ValueDoesNotFit),
        "{remote}"
    );
    assert_eq!(local.fault(), remote.fault());
    assert_eq!(local.element_index(), Some(200_000), "{local}");
    assert_eq!(remote.element_index(), Some(200_000), "{remote}");
}
