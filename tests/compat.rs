//! ndarray-npy 0.10's documented usage, with only the crate name changed, compiles and works:
//! switching is a one-line change.

use memmap2::MmapMut;
use ndarray::{array, Array1, Array2, Array3, ArrayView2, ArrayViewMut3};
use ndnpy::{
    create_new_npy, read_npy, write_npy, write_zeroed_npy, NpzReader, NpzWriter, ReadNpyError,
    ReadNpyExt, ReadNpzError, ReadableElement, ViewMutNpyExt, ViewNpyError, ViewNpyExt,
    WritableElement, WriteNpyError, WriteNpyExt, WriteNpzError,
};
use std::fs::{File, OpenOptions};
use std::io::BufWriter;

mod common;
use common::Scratch;

// Generic code bounded on the element traits, as users of ndarray-npy write it.
fn load<T: ReadableElement>(path: &std::path::Path) -> Result<Array2<T>, ReadNpyError> {
    read_npy(path)
}

fn save<T: WritableElement>(path: &std::path::Path, a: &Array2<T>) -> Result<(), WriteNpyError> {
    write_npy(path, a)
}

#[test]
fn ndarray_npy_examples_work_unchanged() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Scratch::new("compat");

    // read_npy / write_npy / create_new_npy
    let arr = array![[1, 2, 3], [4, 5, 6]];
    write_npy(dir.path("array.npy"), &arr)?;
    let back: Array2<i32> = read_npy(dir.path("array.npy"))?;
    assert_eq!(back, arr);
    create_new_npy(dir.path("new_array.npy"), &arr)?;
    assert!(create_new_npy(dir.path("new_array.npy"), &arr).is_err());

    // ReadNpyExt / WriteNpyExt with a reader and a BufWriter
    let writer = BufWriter::new(File::create(dir.path("array2.npy"))?);
    arr.write_npy(writer)?;
    let reader = File::open(dir.path("array2.npy"))?;
    assert_eq!(Array2::<i32>::read_npy(reader)?, arr);
    let f: Array2<f64> = load(&dir.path("array.npy")).map(|a: Array2<i32>| a.mapv(f64::from))?;
    save(&dir.path("f.npy"), &f)?;

    // Views over a buffer, and write_zeroed_npy + a memory map + view_mut_npy
    let bytes = std::fs::read(dir.path("array.npy"))?;
    let view = ArrayView2::<i32>::view_npy(&bytes)?;
    assert_eq!(view, arr);
    let path = dir.path("zeros.npy");
    let file = File::create(&path)?;
    write_zeroed_npy::<f64, _>(&file, (4, 5, 6))?;
    let file = OpenOptions::new().read(true).write(true).open(&path)?;
    // SAFETY: the file is private to this test.
    let mut mmap = unsafe { MmapMut::map_mut(&file)? };
    {
        let mut view_mut = ArrayViewMut3::<f64>::view_mut_npy(&mut mmap)?;
        view_mut[[3, 4, 5]] = 2.5;
    }
    mmap.flush()?;
    let z: Array3<f64> = read_npy(&path)?;
    assert_eq!(z[[3, 4, 5]], 2.5);
    let _: Result<(), ViewNpyError> = Ok(());

    // NpzWriter / NpzReader, stored and compressed
    let mut npz = NpzWriter::new(File::create(dir.path("arrays.npz"))?);
    let a: Array2<i32> = array![[1, 2, 3], [4, 5, 6]];
    let b: Array1<i32> = array![7, 8, 9];
    npz.add_array("a", &a)?;
    npz.add_array("b", &b)?;
    npz.finish()?;
    let mut npz = NpzReader::new(File::open(dir.path("arrays.npz"))?)?;
    assert_eq!(npz.names()?, ["a", "b"]);
    assert_eq!(npz.len(), 2);
    assert!(!npz.is_empty());
    let a2: Array2<i32> = npz.by_name("a")?;
    let b2: Array1<i32> = npz.by_index(1)?;
    assert_eq!((a2, b2), (a.clone(), b));
    let mut npz = NpzWriter::new_compressed(File::create(dir.path("c.npz"))?);
    npz.add_array("a", &a)?;
    npz.finish()?;
    let res: Result<Array2<i32>, ReadNpzError> =
        NpzReader::new(File::open(dir.path("c.npz"))?)?.by_name("a");
    assert_eq!(res?, a);
    let _: Result<(), WriteNpzError> = Ok(());
    Ok(())
}
