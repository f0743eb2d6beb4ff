//! A build without the feature `object` (no pickle reader or writer): every door that meets an
//! object array refuses it with `ErrorKind::DType` and a message naming the feature, before
//! reading its pickle, and the other arrays of the same archive still read. Compiled only
//! without the feature: `cargo test --no-default-features --features npz,mmap,derive --test it
//! no_object`.

use ndnpy::{read_npy_dyn, DynArray, Error, ErrorKind, ReadNpyExt, ReadOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/object")
        .join(name)
}

/// The refusal of an object array read as a `DynArray` in this build (its text, the same
/// through every door, names the feature: `messages`).
fn assert_refused(err: &Error, door: &str) {
    assert_eq!(err.kind(), ErrorKind::DType, "{door}: {err}");
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType), "{door}: {err}");
    assert_eq!(
        err.dtype().map(|d| d.descr()).as_deref(),
        Some("'|O'"),
        "{door}"
    );
}

/// A reader that counts the bytes it hands out (and is not seen through as a file or slice).
struct Counting<R> {
    inner: R,
    count: usize,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n;
        Ok(n)
    }
}

#[test]
fn every_local_door_refuses_an_object_array_naming_the_feature() {
    let path = fixture("meta.npy"); // np.save("meta.npy", {"lr": 0.1, ...})
    let bytes = std::fs::read(&path).unwrap();
    assert_refused(&read_npy_dyn(&path).unwrap_err(), "read_npy_dyn");
    assert_refused(
        &DynArray::read_npy(&bytes[..]).unwrap_err(),
        "DynArray::read_npy",
    );
    assert_refused(
        &DynArray::read_npy(std::fs::File::open(&path).unwrap()).unwrap_err(),
        "DynArray::read_npy of a File",
    );
    let strict = ReadOptions::new().max_pickle_depth(4);
    assert_refused(
        &DynArray::read_npy_with_options(&bytes[..], &strict).unwrap_err(),
        "DynArray::read_npy_with_options",
    );
}

#[test]
fn the_refusal_comes_before_the_pickle_is_read() {
    let bytes = std::fs::read(fixture("meta.npy")).unwrap();
    let info = ndnpy::Header::read(&mut &bytes[..], &ReadOptions::default()).unwrap();
    let mut reader = Counting {
        inner: &bytes[..],
        count: 0,
    };
    assert_refused(&DynArray::read_npy(&mut reader).unwrap_err(), "a stream");
    // The header only: not one byte of the pickle after it.
    assert_eq!(reader.count as u64, info.data_offset);
    assert!(bytes.len() as u64 > info.data_offset);
}

#[test]
fn a_typed_read_of_an_object_array_names_the_feature() {
    let bytes = std::fs::read(fixture("meta.npy")).unwrap();
    // ndarray-npy's door: its variant and message, ndnpy's in the detail.
    let err = ndarray::ArrayD::<f64>::read_npy(&bytes[..]).unwrap_err();
    assert!(
        matches!(err, ndnpy::ReadNpyError::WrongDescriptor(_)),
        "{err:?}"
    );
    let err = Error::from(err);
    assert_eq!(err.kind(), ErrorKind::DType);
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType));
}

#[cfg(feature = "npz")]
#[test]
fn archive_members_that_hold_objects_are_refused_by_name() {
    // np.savez("objects.npz", meta={"lr": 0.1}, labels=np.array([...], dtype=object))
    let mut npz = ndnpy::NpzReader::open(fixture("objects.npz")).unwrap();
    let err = npz.by_name_dyn("meta").unwrap_err();
    assert_refused(&err, "NpzReader::by_name_dyn");
    assert_eq!(err.member(), Some("meta.npy"));
    let mut member = npz.member("labels").unwrap();
    assert_refused(&member.read_dyn().unwrap_err(), "NpzMember::read_dyn");
    // The header of an object member still reads: only its pickle needs the feature.
    assert_eq!(member.header().unwrap().header.shape, [4]);
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let bytes = std::fs::read(fixture("meta.npy")).unwrap();
    let typed = || ndarray::ArrayD::<f64>::read_npy(&bytes[..]).unwrap_err();
    vec![
        Message::starts(
            "a DynArray read",
            read_npy_dyn(fixture("meta.npy")).unwrap_err(),
            "object arrays need ndnpy's `object` feature: the file holds",
        ),
        Message::is(
            "a typed read, as ReadNpyError",
            typed(),
            "incorrect descriptor ('|O') for this type",
        ),
        Message::is(
            "a typed read",
            Error::from(typed()),
            "the file holds pickled Python objects (dtype '|O'), which cannot be read as f64 \
             (dtype '<f8' or '>f8'); object arrays need ndnpy's `object` feature, with which \
             read_npy_dyn reads them as PyValues",
        ),
    ]
}
