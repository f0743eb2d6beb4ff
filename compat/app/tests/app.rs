//! The application's tests, run against ndnpy's crate for each ndarray (`cargo test -p
//! ndnpy-compat-app`, `-p ndnpy-compat-app09`, `-p ndnpy-compat-app08`) and against the
//! ndarray-npy version on the same ndarray (`-p ndnpy-compat-app-real`, `app09-real`,
//! `app08-real`): the same source, the same assertions, ndarray-npy's variants and messages.
//! The files are numpy's (`testdata/`).

use ndarray::{array, Array1, Array2};
use ndarray_npy::{ReadNpyError, ReadNpzError, ViewNpyError, WriteNpyError, WriteNpzError};
// The application's code, compiled into this test (one source for both packages, and no
// library of the same name built twice).
#[path = "../src/application.rs"]
mod application;

use application::{
    archive_in_memory, describe, load_as_matrix, load_matrix, load_matrix_buffered,
    load_matrix_from_bytes, load_matrix_from_file, load_vector, member_name, names, round_trip,
    view_bytes, AppError,
};
use std::io::Cursor;
use std::path::PathBuf;
use zip::result::ZipError;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ndnpy-compat-app-{}-{}",
        env!("CARGO_PKG_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn every_door_reads_a_matrix() {
    let path = testdata("example.npy");
    let bytes = std::fs::read(&path).unwrap();
    let a = load_matrix(&path).unwrap();
    assert_eq!(a.shape(), [2, 3]);
    assert_eq!(load_matrix_from_file(&path).unwrap(), a);
    assert_eq!(load_matrix_buffered(&path).unwrap(), a);
    assert_eq!(load_matrix_from_bytes(&bytes).unwrap(), a);
}

#[test]
fn a_missing_file_is_io_with_the_os_error() {
    let err = load_matrix(&testdata("no-such-file.npy")).unwrap_err();
    let AppError::Read(ReadNpyError::Io(io)) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(io.raw_os_error(), Some(2));
    assert_eq!(describe(&err), "io");
    assert_eq!(
        err.to_string(),
        "cannot read array: I/O error: No such file or directory (os error 2)"
    );
}

#[test]
fn another_dimension_and_another_type_are_ndarray_npys_variants() {
    let vector = testdata("f8_le_c_5.npy");
    for err in [
        load_matrix(&vector).unwrap_err(),
        load_matrix_from_file(&vector).unwrap_err(),
        load_matrix_buffered(&vector).unwrap_err(),
        load_matrix_from_bytes(&std::fs::read(&vector).unwrap()).unwrap_err(),
    ] {
        assert!(
            matches!(err, AppError::Read(ReadNpyError::WrongNdim(Some(2), 1))),
            "{err:?}"
        );
        assert_eq!(describe(&err), "wrong number of dimensions");
        assert_eq!(
            err.to_string(),
            "cannot read array: ndim 1 of array did not match Dimension type with NDIM = Some(2)"
        );
    }
    let ints = testdata("i4_le_c_2x3.npy");
    let err = load_matrix(&ints).unwrap_err();
    let AppError::Read(ReadNpyError::WrongDescriptor(descr)) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(descr.to_string(), "'<i4'");
    assert_eq!(
        err.to_string(),
        "cannot read array: incorrect descriptor ('<i4') for this type"
    );
}

#[test]
fn truncated_data_is_missing_data() {
    let bytes = std::fs::read(testdata("f8_le_c_2x3.npy")).unwrap();
    let err = load_matrix_from_bytes(&bytes[..bytes.len() - 4]).unwrap_err();
    assert!(
        matches!(err, AppError::Read(ReadNpyError::MissingData)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "cannot read array: reached EOF before reading all data"
    );
}

fn load_or_panic(bytes: &[u8]) -> Array2<f64> {
    load_matrix_from_bytes(bytes).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
#[should_panic(expected = "error parsing header: start does not match magic string")]
fn not_an_npy_file_panics_with_ndarray_npys_message() {
    load_or_panic(b"This is not an .npy file at all");
}

#[test]
fn archive_members_by_name() {
    let path = testdata("npz_compressed.npz");
    let keys = ["a", "fortran", "big_endian", "scalar", "empty", "flags"];
    assert_eq!(names(&path).unwrap(), keys.map(member_name));
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let a = load_as_matrix(&mut npz, &member_name("a")).unwrap();
    assert_eq!(a.shape(), [2, 3]);
    // A member of another dimension: the variant built by hand.
    let err = load_vector(&mut npz, &member_name("a")).unwrap_err();
    assert!(
        matches!(
            err,
            AppError::ReadNpz(ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(1), 2)))
        ),
        "{err:?}"
    );
    let bytes = archive_in_memory(&[("v", &array![1.0, 2.0])]).unwrap();
    let mut vectors = ndarray_npy::NpzReader::new(Cursor::new(&bytes)).unwrap();
    let err = load_as_matrix(&mut vectors, "v").unwrap_err();
    assert!(matches!(
        err,
        AppError::ReadNpz(ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), 1)))
    ));
    assert_eq!(
        err.to_string(),
        "cannot read archive: error reading npy file in npz archive: ndim 1 of array did not \
         match Dimension type with NDIM = Some(2)"
    );
    // No such member.
    let err = load_vector(&mut npz, "nope").unwrap_err();
    assert!(matches!(
        err,
        AppError::ReadNpz(ReadNpzError::Zip(ZipError::FileNotFound))
    ));
    assert_eq!(describe(&err), "no such array");
    assert_eq!(
        err.to_string(),
        "cannot read archive: zip file error: specified file not found in archive"
    );
    // Its source is the `zip` crate's error, of the major the `zip` line names.
    let AppError::ReadNpz(inner) = &err else {
        panic!("{err:?}")
    };
    let zip = std::error::Error::source(inner).and_then(|s| s.downcast_ref::<ZipError>());
    assert!(matches!(zip, Some(ZipError::FileNotFound)), "{zip:?}");
    // Not an archive.
    let err = names(&testdata("f8_le_c_2x3.npy")).unwrap_err();
    assert!(matches!(
        err,
        AppError::ReadNpz(ReadNpzError::Zip(ZipError::InvalidArchive(_)))
    ));
    assert_eq!(describe(&err), "not an archive");
}

#[test]
fn archives_written_and_read_back() {
    let a = array![1.0, 2.0, 3.0];
    let b = array![4.0];
    let bytes = archive_in_memory(&[("a", &a), ("b", &b)]).unwrap();
    let mut npz = ndarray_npy::NpzReader::new(Cursor::new(&bytes)).unwrap();
    assert_eq!(load_vector(&mut npz, "b").unwrap(), b);
    // A second member of the same name: ndarray-npy 0.8 (on zip 0.5, which does not check)
    // writes both, an archive whose first "a" numpy then cannot reach; ndnpy refuses it in
    // every crate, as ndarray-npy 0.9 and 0.10 do.
    if cfg!(ndarray_npy = "0.8") && !cfg!(ndnpy) {
        assert!(archive_in_memory(&[("a", &a), ("a", &b)]).is_ok());
        return;
    }
    let err = archive_in_memory(&[("a", &a), ("a", &b)]).unwrap_err();
    assert!(matches!(
        err,
        AppError::WriteNpz(WriteNpzError::Zip(ZipError::InvalidArchive(_)))
    ));
    assert_eq!(describe(&err), "archive refused");
    // ndarray-npy 0.9 and later name the member "a.npy", and their zip (2, 6) prints the
    // detail of `InvalidArchive`; 0.8's zip 0.5 prints none.
    let expected = if cfg!(ndarray_npy = "0.8") {
        "cannot write archive: zip file error: invalid Zip archive".to_owned()
    } else {
        "cannot write archive: zip file error: invalid Zip archive: Duplicate filename: a.npy"
            .to_owned()
    };
    assert_eq!(err.to_string(), expected);
}

#[test]
fn files_written_and_read_back() {
    let a = array![[1.0, 2.0], [3.0, 4.0]];
    let path = scratch("m.npy");
    assert_eq!(round_trip(&path, &a).unwrap(), a);
    let err = round_trip(&scratch("no/such/dir/m.npy"), &a).unwrap_err();
    assert!(
        matches!(&err, AppError::Write(WriteNpyError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert_eq!(describe(&err), "io");
}

#[test]
fn views_in_place() {
    let bytes = std::fs::read(testdata("u1_na_c_5.npy")).unwrap();
    assert_eq!(view_bytes(&bytes).unwrap().len(), 5);
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 3]);
    let err = view_bytes(&longer).unwrap_err();
    assert!(
        matches!(err, AppError::View(ViewNpyError::ExtraBytes(3))),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "cannot view array: file had 3 extra bytes before EOF"
    );
    let err = view_bytes(&bytes[..bytes.len() - 2]).unwrap_err();
    assert!(
        matches!(err, AppError::View(ViewNpyError::MissingBytes(2))),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "cannot view array: missing 2 bytes of data specified in header"
    );
}

#[test]
fn errors_box_and_chain() {
    fn boxed() -> Result<Array2<f64>, Box<dyn std::error::Error + Send + Sync>> {
        Ok(load_matrix(&testdata("f8_le_c_5.npy"))?)
    }
    let err = boxed().unwrap_err();
    let source = std::error::Error::source(&*err).unwrap();
    assert_eq!(
        source.to_string(),
        "ndim 1 of array did not match Dimension type with NDIM = Some(2)"
    );
    // Built by hand and printed.
    let built = ReadNpzError::Npy(ReadNpyError::WrongNdim(Some(2), 3));
    assert_eq!(
        built.to_string(),
        "error reading npy file in npz archive: ndim 3 of array did not match Dimension type \
         with NDIM = Some(2)"
    );
    let built: Array1<f64> = Array1::zeros(0);
    assert_eq!(built.len(), 0);
}

/// Deflate, as the `zip` crate's options say it.
#[cfg(not(ndarray_npy = "0.8"))]
fn deflated() -> zip::write::SimpleFileOptions {
    zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated)
}

/// The method member `name` of `archive` was stored with.
#[cfg(not(ndarray_npy = "0.8"))]
fn compression(archive: &[u8], name: &str) -> zip::CompressionMethod {
    let mut zip = zip::ZipArchive::new(Cursor::new(archive)).unwrap();
    let method = zip.by_name(name).unwrap().compression();
    method
}

/// ndarray-npy's writer options are the `zip` crate's (0.9 and later): the compression
/// method of each member as they say, read back by numpy's rules.
#[cfg(not(ndarray_npy = "0.8"))]
#[test]
fn zip_options_choose_the_compression() {
    let zeros = Array1::<f64>::zeros(10_000);
    let out =
        application::save_with_zip_options(Cursor::new(Vec::new()), deflated(), &[("z", &zeros)])
            .unwrap()
            .into_inner();
    assert_eq!(compression(&out, "z.npy"), zip::CompressionMethod::Deflated);
    let mut npz = ndarray_npy::NpzReader::new(Cursor::new(&out)).unwrap();
    assert_eq!(load_vector(&mut npz, "z").unwrap(), zeros);
}

/// A member's own options (ndarray-npy 0.10), over the writer's.
#[cfg(ndarray_npy = "0.10")]
#[test]
fn zip_options_choose_each_members_compression() {
    let zeros = Array1::<f64>::zeros(10_000);
    let out = application::save_with_member_options(
        Cursor::new(Vec::new()),
        deflated(),
        &[("z", &zeros)],
        ("s", &zeros),
    )
    .unwrap()
    .into_inner();
    assert_eq!(compression(&out, "z.npy"), zip::CompressionMethod::Deflated);
    assert_eq!(compression(&out, "s.npy"), zip::CompressionMethod::Stored);
    let mut npz = ndarray_npy::NpzReader::new(Cursor::new(&out)).unwrap();
    assert_eq!(load_vector(&mut npz, "z").unwrap(), zeros);
    assert_eq!(load_vector(&mut npz, "s").unwrap(), zeros);
}
