//! An object read by ranged requests, by value or behind `&mut`, reaches the engine's
//! batched fetches through the layer's readers (the engine's door knows its type).

use ndnpy_engine::source::ranged::{Ranged, RangedFile};
use ndnpy_engine::source::{positioned, Merge, Positioned};
use std::any::Any;
use std::io::{self, Seek};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes in memory as a ranged source that counts its batched fetches.
#[derive(Debug)]
struct Counted {
    bytes: Vec<u8>,
    batches: Arc<AtomicUsize>,
}

impl Ranged for Counted {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn fetch(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = offset as usize;
        buf.copy_from_slice(&self.bytes[start..start + buf.len()]);
        Ok(())
    }

    fn fetch_many(&self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        for (offset, buf) in reads.iter_mut() {
            self.fetch(*offset, buf)?;
        }
        Ok(())
    }

    fn merge(&self) -> Merge {
        Merge {
            gap: 0,
            block: 1 << 20,
            batch: 8,
            batch_bytes: usize::MAX,
            direct: false,
        }
    }

    fn max_window(&self) -> usize {
        1 << 20
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A 50 x 40 array, its `.npy` as a ranged file, and the count of its batched fetches.
fn counted_file() -> (ndarray::Array2<f64>, RangedFile, Arc<AtomicUsize>) {
    use crate::WriteNpyExt;
    let a = ndarray::Array2::from_shape_fn((50, 40), |(i, j)| (i * 40 + j) as f64);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    let batches = Arc::new(AtomicUsize::new(0));
    let source = Counted {
        bytes,
        batches: Arc::clone(&batches),
    };
    (a, RangedFile::new(Box::new(source), Vec::new()), batches)
}

#[test]
fn a_ranged_file_by_value_or_behind_mut_is_read_by_batched_fetches() {
    use crate::NpyReader;
    use ndarray::s;
    let (a, mut file, batches) = counted_file();
    assert!(matches!(positioned(&mut file), Positioned::Ranged(_)));
    assert!(matches!(positioned(&mut &mut file), Positioned::Ranged(_)));

    // Behind `&mut`: a column is 50 runs, fetched in batches, not read by seeking.
    let mut npy = NpyReader::new(&mut file).unwrap();
    let column: ndarray::Array1<f64> = npy.read_slice(s![.., 3]).unwrap();
    assert_eq!(column, a.column(3));
    let behind_mut = batches.swap(0, Ordering::Relaxed);
    assert!(behind_mut > 0);
    // By value: the same.
    file.rewind().unwrap();
    let mut npy = NpyReader::new(file).unwrap();
    let column: ndarray::Array1<f64> = npy.read_slice(s![.., 7]).unwrap();
    assert_eq!(column, a.column(7));
    assert_eq!(batches.load(Ordering::Relaxed), behind_mut);
}

#[test]
fn a_ranged_file_named_as_a_source_is_read_by_batched_fetches() {
    use crate::NpyReader;
    use ndarray::s;
    let (a, file, batches) = counted_file();
    let mut npy = NpyReader::new(file).unwrap();
    let column: ndarray::Array1<f64> = npy.read_slice(s![.., 3]).unwrap();
    assert_eq!(column, a.column(3));
    let named = batches.swap(0, Ordering::Relaxed);
    // The same read through an `.npz`'s door, which knows the type: the same batches.
    let mut file = npy.into_inner();
    file.rewind().unwrap();
    let info = ndnpy_engine::format::header::Header::read(&mut file, &Default::default()).unwrap();
    let start = info.data_offset;
    let elems = s![.., 3];
    let door = positioned(&mut file);
    let column: ndarray::Array1<f64> =
        crate::array::region::read_from(&info, elems.as_ref(), door, start, None, 2).unwrap();
    assert_eq!(column, a.column(3));
    assert!(named > 0);
    assert_eq!(batches.load(Ordering::Relaxed), named);
}
