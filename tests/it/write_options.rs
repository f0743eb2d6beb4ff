//! Durable writes through every path writer, read back by numpy; create-new races; the
//! appender's block-shape error.

use ndarray::{array, Array1, Array2, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, npz::NpzWriteOptions, Error, ErrorKind, NpyAppender, NpyMmap, NpyMmapMut,
    NpyWriter, NpzWriter, WriteOptions,
};

use crate::common::{numpy, Scratch};

#[test]
fn durable_writes_of_every_path_writer_read_back_in_numpy() {
    let dir = Scratch::new("durable");
    let durable = WriteOptions::new().durable(true);
    let a = Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);

    durable.write_npy(dir.path("w.npy"), &a).unwrap();
    let be = durable.clone().byte_order(ByteOrder::Big);
    be.write_npy(dir.path("be.npy"), &a.t()).unwrap();
    durable.create_new_npy(dir.path("c.npy"), &a).unwrap();

    let opts = NpzWriteOptions::compressed().durable(true);
    let mut npz = NpzWriter::create_with_options(dir.path("z.npz"), &opts).unwrap();
    npz.add_array("a", &a).unwrap();
    npz.add_array_with_options("b", &array![1u8, 2], &NpzWriteOptions::new())
        .unwrap();
    npz.finish().unwrap();

    // SAFETY: the file is private to this test.
    let mut map = unsafe {
        NpyMmapMut::create_with_options::<f64, _>(dir.path("m.npy"), (3, 4).f(), &durable)
    }
    .unwrap();
    map.view_mut::<f64, ndarray::Ix2>().unwrap().assign(&a);
    map.flush().unwrap();
    drop(map);

    let mut app =
        NpyAppender::<i32>::create_with_options(dir.path("app.npy"), (0, 2), false, &be).unwrap();
    app.append(&array![[1, 2], [3, 4]]).unwrap();
    app.append(&array![5, 6]).unwrap();
    drop(app);

    let out = numpy(
        &dir.0,
        r#"
a = np.arange(12.0).reshape(3, 4)
w, be, c, m = (np.load(f"{d}/{n}.npy") for n in ["w", "be", "c", "m"])
z = np.load(f"{d}/z.npz")
app = np.load(f"{d}/app.npy")
assert (w == a).all() and w.dtype == "<f8"
assert (be == a.T).all() and be.dtype == ">f8" and be.flags.f_contiguous
assert (c == a).all()
assert (m == a).all() and m.flags.f_contiguous
assert (z["a"] == a).all() and z["b"].tolist() == [1, 2]
assert app.dtype == ">i4" and app.tolist() == [[1, 2], [3, 4], [5, 6]], app
print("ok")
"#,
    );
    assert_eq!(out, "ok");
    let mut names = dir.entries();
    names.sort();
    assert_eq!(
        names,
        ["app.npy", "be.npy", "c.npy", "m.npy", "w.npy", "z.npz"],
        "no temporary files"
    );
}

#[test]
fn a_memory_map_cannot_be_created_in_a_foreign_byte_order() {
    let dir = Scratch::new("mmap-order");
    let foreign = match ByteOrder::NATIVE {
        ByteOrder::Little => ByteOrder::Big,
        _ => ByteOrder::Little,
    };
    let opts = WriteOptions::new().byte_order(foreign);
    // SAFETY: the file is private to this test.
    let err = unsafe { NpyMmapMut::create_with_options::<f32, _>(dir.path("x.npy"), 3, &opts) }
        .unwrap_err();
    assert!(crate::error_checks::is_byte_order(&err), "{err:?}");
    assert!(dir.entries().is_empty(), "nothing was created");
    // One-byte elements have no byte order: any order is fine.
    // SAFETY: as above.
    unsafe { NpyMmapMut::create_with_options::<u8, _>(dir.path("u.npy"), 3, &opts) }.unwrap();
}

#[test]
fn memory_maps_of_an_empty_array() {
    let dir = Scratch::new("mmap-empty");
    let path = dir.path("e.npy");
    ndnpy::write_npy(&path, &Array2::<f64>::zeros((0, 5))).unwrap();
    // SAFETY: the file is private to this test.
    let map = unsafe { NpyMmap::open(&path) }.unwrap();
    assert_eq!(map.view::<f64, ndarray::Ix2>().unwrap().shape(), [0, 5]);
    // SAFETY: as above.
    let mut map = unsafe { NpyMmapMut::open(&path) }.unwrap();
    assert_eq!(map.view_mut::<f64, ndarray::Ix2>().unwrap().shape(), [0, 5]);
    // A file shorter than its header says is refused before mapping.
    let bytes = std::fs::read("testdata/example.npy").unwrap();
    std::fs::write(dir.path("short.npy"), &bytes[..bytes.len() - 1]).unwrap();
    // SAFETY: as above.
    let err = unsafe { NpyMmap::open(dir.path("short.npy")) }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
    assert_eq!(err.byte_counts(), Some((48, 47)));
}

#[test]
fn create_new_races_have_exactly_one_winner() {
    let dir = Scratch::new("race");
    let path = dir.path("r.npy");
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let path = &path;
                s.spawn(move || {
                    let a = Array1::from_elem(200_000 + t, t as u32);
                    ndnpy::create_new_npy(path, &a).map(|()| t)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<usize> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().copied())
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    for r in &results {
        if let Err(e) = r {
            assert_eq!(e.kind(), ErrorKind::Io, "{e}");
            assert!(
                matches!(e, ndnpy::WriteNpyError::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists),
                "{e}"
            );
        }
    }
    let t = winners[0];
    let back: Array1<u32> = ndnpy::read_npy(&path).unwrap();
    assert_eq!(back, Array1::from_elem(200_000 + t, t as u32));
    assert_eq!(dir.entries(), ["r.npy"]);
}

#[test]
fn block_shape_errors_show_the_real_shapes() {
    let dir = Scratch::new("blockshape");
    let mut app = NpyAppender::<f64>::create(dir.path("a.npy"), (0, 3), false).unwrap();
    app.append(&Array2::<f64>::zeros((2, 3))).unwrap();
    // One row of the wrong length: shown as given, against the array's current shape.
    let err = app.append(&array![1.0, 2.0, 3.0, 4.0]).unwrap_err();
    // The message gives the array's shape ([2, 3]), the growth axis (0) and the block's shape
    // ([4]) (`messages`).
    assert_eq!(err.kind(), ErrorKind::Usage, "{err:?}");
    assert_eq!(err.fault(), Some(ndnpy::Fault::BlockShape), "{err}");
    let err = app.append(&Array2::<f64>::zeros((5, 2))).unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::BlockShape), "{err}");
    assert_eq!(app.shape(), [2, 3], "nothing was appended");

    // Fortran order grows along the last axis.
    let mut app = NpyAppender::<u8>::create(dir.path("f.npy"), (2, 2, 0), true).unwrap();
    let err = app.append(&Array2::<u8>::zeros((3, 2))).unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::BlockShape), "{err}");
    assert_eq!(app.shape(), [2, 2, 0], "nothing was appended");

    // The streaming writer says the same about its whole array.
    let mut w = NpyWriter::<_, i32>::new(Vec::new(), (4, 3)).unwrap();
    let err = w.write_block(&array![1, 2]).unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::BlockShape), "{err}");
}

#[cfg(unix)]
#[test]
fn write_npy_writes_through_a_symlink_as_np_save_does() {
    let dir = Scratch::new("symlink-write");
    let a = array![1.0f64, 2.0, 3.0];
    ndnpy::write_npy(dir.path("real.npy"), &array![0.0f64]).unwrap();
    std::os::unix::fs::symlink("real.npy", dir.path("link.npy")).unwrap();
    ndnpy::write_npy(dir.path("link.npy"), &a).unwrap();
    // The link is still a link, and the file it names holds the new array.
    let meta = std::fs::symlink_metadata(dir.path("link.npy")).unwrap();
    assert!(meta.file_type().is_symlink());
    let back: Array1<f64> = ndnpy::read_npy(dir.path("real.npy")).unwrap();
    assert_eq!(back, a);
    // A dangling link: the file is created where it points, as np.save would.
    std::os::unix::fs::symlink("new.npy", dir.path("dangling.npy")).unwrap();
    ndnpy::write_npy(dir.path("dangling.npy"), &a).unwrap();
    assert!(std::fs::symlink_metadata(dir.path("dangling.npy"))
        .unwrap()
        .file_type()
        .is_symlink());
    let out = numpy(
        &dir.0,
        "print(np.load(d + '/new.npy').tolist(), np.load(d + '/link.npy').tolist())",
    );
    assert_eq!(out, "[1.0, 2.0, 3.0] [1.0, 2.0, 3.0]");
    assert_eq!(
        dir.entries(),
        ["dangling.npy", "link.npy", "new.npy", "real.npy"]
    );
}

#[cfg(unix)]
#[test]
fn write_npy_to_a_pipe_or_a_device_writes_in_place() {
    use std::io::Read;
    let dir = Scratch::new("special-write");
    let fifo = dir.path("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only reads the NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let a = Array2::from_shape_fn((40, 30), |(i, j)| (i * 30 + j) as i32);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    ndnpy::write_npy(&fifo, &a).unwrap();
    let got = reader.join().unwrap();
    let mut expected = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&a, &mut expected).unwrap();
    assert_eq!(got, expected);
    // The pipe is still a pipe, with nothing beside it.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(dir.entries(), ["pipe"]);
    // A character device, written in place (and durably: syncing a device is not an error).
    WriteOptions::new()
        .durable(true)
        .write_npy("/dev/null", &a)
        .unwrap();
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn io_errors_of_every_path_name_the_path_and_the_reason() {
    // Each is an I/O error that keeps the operating system's; its text names the action, the
    // path and the reason (`messages`).
    let dir = Scratch::new("path-errors");
    for (door, _, e) in path_errors(&dir.path("no/such/dir/x.npy")) {
        assert_eq!(e.kind(), ErrorKind::Io, "{door}: {e:?}");
        let io = e.io_error().map(std::io::Error::kind);
        assert_eq!(io, Some(std::io::ErrorKind::NotFound), "{door}: {e:?}");
    }
}

/// The error of each of ndnpy's own doors that takes a path, at the path `missing` (in a
/// folder that does not exist), and the action its message names. ndarray-npy's doors
/// (`ndnpy::write_npy`) give the operating system's error as ndarray-npy did (`compat/`).
fn path_errors(missing: &std::path::Path) -> Vec<(&'static str, &'static str, Error)> {
    let a = array![1u8, 2];
    let opts = WriteOptions::new();
    let read = ndnpy::ReadOptions::new().read_npy::<_, Array1<u8>>(missing);
    vec![
        (
            "write_npy",
            "create",
            opts.write_npy(missing, &a).unwrap_err(),
        ),
        (
            "create_new_npy",
            "create",
            opts.create_new_npy(missing, &a).unwrap_err(),
        ),
        (
            "NpzWriter::create",
            "create",
            NpzWriter::create(missing).unwrap_err(),
        ),
        ("ReadOptions::read_npy", "open", read.unwrap_err()),
        (
            "read_npy_dyn",
            "open",
            ndnpy::read_npy_dyn(missing).unwrap_err(),
        ),
        (
            "NpyAppender::open",
            "open",
            NpyAppender::<u8>::open(missing).unwrap_err(),
        ),
        // SAFETY: the file does not exist; nothing is mapped.
        (
            "NpyMmap::open",
            "open",
            unsafe { NpyMmap::open(missing) }.unwrap_err(),
        ),
    ]
}

#[cfg(target_os = "linux")]
#[test]
fn descriptor_links_are_written_in_place_and_link_loops_are_errors() {
    use std::io::Read;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::fs::MetadataExt;
    let dir = Scratch::new("fd-links");
    let a = Array2::from_shape_fn((50, 20), |(i, j)| (i * 20 + j) as i16);
    let mut expected = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&a, &mut expected).unwrap();

    // /dev/fd/N of a pipe, as `/dev/stdout` is in `prog | other`: written into the pipe.
    let mut fds = [0; 2];
    // SAFETY: pipe writes two new descriptors into the array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are new and owned by nothing else.
    let (read_end, write_end) = unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut r = read_end;
        r.read_to_end(&mut bytes).unwrap();
        bytes
    });
    ndnpy::write_npy(format!("/dev/fd/{}", write_end.as_raw_fd()), &a).unwrap();
    drop(write_end);
    assert_eq!(reader.join().unwrap(), expected);

    // /dev/fd/N of a regular file: written in place, so the descriptor still holds the file.
    let path = dir.path("held.npy");
    ndnpy::write_npy(&path, &array![9u8]).unwrap();
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let ino = std::fs::metadata(&path).unwrap().ino();
    ndnpy::write_npy(format!("/dev/fd/{}", held.as_raw_fd()), &a).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().ino(),
        ino,
        "same file, not replaced"
    );
    assert_eq!(dir.read("held.npy"), expected);
    assert_eq!(dir.entries(), ["held.npy"]);

    // A loop of links is ELOOP, as for np.save, and nothing is created.
    std::os::unix::fs::symlink("b.npy", dir.path("a.npy")).unwrap();
    std::os::unix::fs::symlink("a.npy", dir.path("b.npy")).unwrap();
    let err = ndnpy::Error::from(ndnpy::write_npy(dir.path("a.npy"), &a).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    let io = err.io_error().unwrap();
    assert_eq!(io.raw_os_error(), Some(libc::ELOOP), "{io}");
    assert!(std::fs::symlink_metadata(dir.path("a.npy"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(dir.entries(), ["a.npy", "b.npy", "held.npy"]);
}

/// No writer writes a header a reader refuses (numpy's rules): more than 64 dimensions, or a
/// shape whose dimensions other than 0, times the item size, exceed `isize::MAX` bytes, even
/// for an array of no elements. Each is the caller's error, and nothing is left at the path.
#[test]
fn writers_refuse_headers_that_readers_refuse() {
    let dir = Scratch::new("refused-headers");
    let too_many = ndarray::ArrayD::<u8>::zeros(vec![1; 65]);
    let path = dir.path("a.npy");
    let err = WriteOptions::new().write_npy(&path, &too_many).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    assert_eq!(err.fault(), Some(ndnpy::Fault::TooLargeToWrite), "{err}");
    assert!(!path.exists());
    // ndarray-npy's doors: its FormatHeader variant.
    let err = ndnpy::write_npy(&path, &too_many).unwrap_err();
    assert!(
        matches!(err, ndnpy::WriteNpyError::FormatHeader(_)),
        "{err:?}"
    );
    assert!(ndnpy::WriteNpyExt::write_npy(&too_many, Vec::new()).is_err());
    let mut npz = ndnpy::NpzWriter::new(std::io::Cursor::new(Vec::new()));
    assert!(npz.add_array("a", &too_many).is_err());
    // 64 dimensions are numpy's limit, and fine.
    let mut out = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&ndarray::ArrayD::<u8>::zeros(vec![1; 64]), &mut out).unwrap();
    assert_eq!(
        ndnpy::DynArray::read_npy(&out[..]).unwrap().shape().len(),
        64
    );
    // A zero-size shape whose other dimension overflows with 4-byte items.
    let header = ndnpy::Header {
        dtype: ndnpy::DType::from_descr("'<i4'").unwrap(),
        fortran_order: false,
        shape: vec![1 << 61, 0],
    };
    let err = header.to_bytes().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    let refused = numpy(
        &dir.0,
        "try:\n    np.empty((2**61, 0), np.int32)\n    print('made')\nexcept ValueError:\n    print('refused')",
    );
    assert_eq!(refused.trim(), "refused");
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let dir = Scratch::new("messages");
    let mut app = NpyAppender::<f64>::create(dir.path("a.npy"), (0, 3), false).unwrap();
    app.append(&Array2::<f64>::zeros((2, 3))).unwrap();
    let mut fortran = NpyAppender::<u8>::create(dir.path("f.npy"), (2, 2, 0), true).unwrap();
    let mut w = NpyWriter::<_, i32>::new(Vec::new(), (4, 3)).unwrap();
    let too_many = ndarray::ArrayD::<u8>::zeros(vec![1; 65]);
    let mut m = vec![
        Message::is(
            "a row of the wrong length",
            app.append(&array![1.0, 2.0, 3.0, 4.0]).unwrap_err(),
            "block of shape [4] does not fit an array of shape [2, 3] growing along axis 0: \
             a block must have shape [n, 3], or [3] for one step",
        ),
        Message::is(
            "a block for a Fortran-order array",
            fortran.append(&Array2::<u8>::zeros((3, 2))).unwrap_err(),
            "block of shape [3, 2] does not fit an array of shape [2, 2, 0] growing along axis 2: \
             a block must have shape [2, 2, n], or [2, 2] for one step",
        ),
        Message::is(
            "a block for the streaming writer",
            w.write_block(&array![1, 2]).unwrap_err(),
            "block of shape [2] does not fit an array of shape [4, 3] growing along axis 0: \
             a block must have shape [n, 3], or [3] for one step",
        ),
        Message::is(
            "65 dimensions",
            WriteOptions::new()
                .write_npy(dir.path("b.npy"), &too_many)
                .unwrap_err(),
            "cannot write a shape of 65 dimensions: numpy arrays have at most 64",
        ),
    ];
    let missing = dir.path("no/such/dir/x.npy");
    for (door, action, e) in path_errors(&missing) {
        let shown = format!("cannot {action} {:?}", missing.display().to_string());
        m.push(Message::has(
            format!("{door} of a missing path"),
            e,
            &[&shown, "No such file or directory"],
        ));
    }
    m
}
