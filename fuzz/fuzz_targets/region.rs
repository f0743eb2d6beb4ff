//! Region reads (`read_slice`) of arbitrary files with arbitrary selections, through a reader
//! and through a memory map of the same bytes (whose runs are gathered straight from memory):
//! errors, never panics, nothing allocated beyond the output; a selection that reads equals
//! the same selection (ndarray's `slice`) of the whole array.
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use ndarray::{ArrayD, SliceInfoElem};
use ndnpy::{NpyMmap, NpyReader, ReadNpyExt};
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(raw) = Vec::<(u8, i16, i16, i8)>::arbitrary(&mut u) else {
        return;
    };
    let sel: Vec<SliceInfoElem> = raw
        .iter()
        .take(40)
        .map(|&(kind, a, b, step)| match kind % 4 {
            0 => SliceInfoElem::Index(a as isize),
            1 => SliceInfoElem::NewAxis,
            2 => SliceInfoElem::Slice {
                start: a as isize,
                end: None,
                step: step as isize,
            },
            _ => SliceInfoElem::Slice {
                start: a as isize,
                end: Some(b as isize),
                step: step as isize,
            },
        })
        .collect();
    let file = u.take_rest();
    let Ok(mut reader) = NpyReader::new(Cursor::new(file)) else {
        return;
    };
    let _ = reader.read_slice::<u16, _>(&sel[..]);
    let _ = reader.read_slice::<String, _>(&sel[..]);
    let map = memmap2::MmapMut::map_anon(file.len())
        .ok()
        .and_then(|mut anon| {
            anon.copy_from_slice(file);
            NpyMmap::from_mmap(anon.make_read_only().ok()?).ok()
        });
    if let Some(map) = &map {
        let _ = map.read_slice::<u16, _>(&sel[..]);
        let _ = map.read_slice::<String, _>(&sel[..]);
    }
    let parts = [
        reader.read_slice::<f64, _>(&sel[..]).ok(),
        map.and_then(|m| m.read_slice::<f64, _>(&sel[..]).ok()),
    ];
    for part in parts.into_iter().flatten() {
        if let Ok(whole) = ArrayD::<f64>::read_npy(file) {
            // The planner accepted the selection, so ndarray's slice does not panic on it.
            let want = whole.slice(&sel[..]);
            let same = part
                .iter()
                .zip(want.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same && part.shape() == want.shape());
        }
    }
});
