//! Every writer that takes a path has a durable mode: the file-system events the engine
//! records for tests (its feature `test-hooks`, on in this crate's tests) show what syncs.

use ndnpy_engine::platform::fsutil::{take_events, Event};
use std::fs;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ndnpy-durable-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every writer that takes a path, durable: the file is synced before it takes its name
/// and the directory after; without the option, nothing is synced.
#[test]
fn every_path_writer_has_a_durable_mode() {
    use crate::{NpyAppender, WriteNpyExt, WriteOptions};
    let dir = scratch("every");
    let a = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
    let durable = WriteOptions::new().durable(true);
    let published = [Event::SyncFile, Event::Publish, Event::SyncDir];
    take_events();

    durable.write_npy(dir.join("w.npy"), &a).unwrap();
    assert_eq!(take_events(), published, "write_npy_with_options");
    crate::write_npy(dir.join("w.npy"), &a).unwrap();
    assert_eq!(take_events(), [Event::Publish], "write_npy");

    crate::write_file_atomically(dir.join("f.npy"), &durable, |out| Ok(a.write_npy(out)?)).unwrap();
    assert_eq!(take_events(), published, "write_file_atomically, durable");
    crate::write_file_atomically(dir.join("f.npy"), &WriteOptions::new(), |out| {
        Ok(a.write_npy(out)?)
    })
    .unwrap();
    assert_eq!(take_events(), [Event::Publish], "write_file_atomically");
    assert_eq!(
        crate::read_npy::<_, ndarray::Array2<f64>>(dir.join("f.npy")).unwrap(),
        a
    );

    durable.create_new_npy(dir.join("c.npy"), &a).unwrap();
    assert_eq!(take_events(), published, "create_new_npy_with_options");
    crate::create_new_npy(dir.join("c2.npy"), &a).unwrap();
    assert_eq!(take_events(), [Event::Publish], "create_new_npy");

    #[cfg(feature = "npz")]
    {
        use crate::{npz::NpzWriteOptions, NpzWriter};
        let opts = NpzWriteOptions::new().durable(true);
        let mut npz = NpzWriter::create_with_options(dir.join("z.npz"), &opts).unwrap();
        npz.add_array("a", &a).unwrap();
        // Per member, the option means nothing.
        npz.add_array_with_options("b", &a, &NpzWriteOptions::new().durable(true))
            .unwrap();
        assert_eq!(take_events(), [], "nothing before finish");
        npz.finish().unwrap();
        assert_eq!(take_events(), published, "NpzWriter::create_with_options");
        let mut npz = NpzWriter::create(dir.join("z.npz")).unwrap();
        npz.add_array("a", &a).unwrap();
        npz.finish().unwrap();
        assert_eq!(take_events(), [Event::Publish], "NpzWriter::create");
    }

    #[cfg(feature = "mmap")]
    {
        use crate::NpyMmapMut;
        // SAFETY: the file is private to this test.
        let mut map = unsafe {
            NpyMmapMut::create_with_options::<f64, _>(dir.join("m.npy"), (2, 2), &durable)
        }
        .unwrap();
        assert_eq!(take_events(), published, "NpyMmapMut::create_with_options");
        map.view_mut::<f64, ndarray::Ix2>().unwrap().assign(&a);
        map.flush().unwrap();
        drop(map);
        assert_eq!(
            crate::read_npy::<_, ndarray::Array2<f64>>(dir.join("m.npy")).unwrap(),
            a
        );
        let be = WriteOptions::new().byte_order(ndnpy_engine::base::dtype::ByteOrder::Big);
        let native_be = ndnpy_engine::base::dtype::ByteOrder::NATIVE
            == ndnpy_engine::base::dtype::ByteOrder::Big;
        // SAFETY: as above.
        let r = unsafe { NpyMmapMut::create_with_options::<f64, _>(dir.join("b.npy"), 2, &be) };
        assert_eq!(r.is_ok(), native_be, "a map cannot view non-native data");
        take_events();
    }

    // The appender: a durable create, then each append syncs its data and its header.
    let mut app =
        NpyAppender::<f64>::create_with_options(dir.join("app.npy"), (0, 2), false, &durable)
            .unwrap();
    assert_eq!(take_events(), published, "NpyAppender::create_with_options");
    app.append(&a).unwrap();
    assert_eq!(take_events(), [Event::SyncData, Event::SyncData], "append");
    let mut app = NpyAppender::<f64>::create(dir.join("app.npy"), (0, 2), false).unwrap();
    app.append(&a).unwrap();
    assert_eq!(take_events(), [Event::Publish], "NpyAppender::create");

    // A header without room: the durable append rewrites the file like a durable write.
    let text = b"{'descr':'<i4','fortran_order':False,'shape':(9,)}";
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 64 - 10 - text.len() - 1;
    f.extend_from_slice(&((text.len() + pad + 1) as u16).to_le_bytes());
    f.extend_from_slice(text);
    f.extend(std::iter::repeat_n(b' ', pad));
    f.push(b'\n');
    f.extend((0..9i32).flat_map(|i| i.to_le_bytes()));
    fs::write(dir.join("compact.npy"), &f).unwrap();
    let mut app = NpyAppender::<i32>::open(dir.join("compact.npy")).unwrap();
    app.set_durable(true);
    app.append(&ndarray::array![9, 10]).unwrap();
    assert_eq!(
        take_events(),
        [
            Event::SyncData,
            Event::SyncFile,
            Event::Publish,
            Event::SyncDir
        ],
        "append with a rewrite"
    );
    assert_eq!(
        crate::read_npy::<_, ndarray::Array1<i32>>(dir.join("compact.npy")).unwrap(),
        ndarray::Array1::from_iter(0..11)
    );
    fs::remove_dir_all(&dir).unwrap();
}
