//! The paths through the crate's `unsafe` code that bytes in memory reach: bulk element reads
//! and writes of every dtype numpy wrote (`testdata/`), records of derived structs, strings,
//! zero-copy views, each at every misalignment of the buffer and cut short. Each assertion
//! holds natively; CI also runs this file under Miri (`scripts/miri.sh`), which checks that
//! no read or write strays outside its buffer, reads uninitialised memory or makes a
//! misaligned reference. Nothing here starts a process or maps a file, which Miri cannot do.

use ndarray::{Array1, Array2, Array3, ArrayView2, ArrayViewMut2, ShapeBuilder};
use ndnpy::{DynArray, NpyRecord, NpzReader, ReadNpyExt, ViewMutNpyExt, ViewNpyExt, WriteNpyExt};
use num_complex::Complex;
use std::io::Cursor;
use std::path::Path;

/// Under Miri, every third fixture (each kind still appears: the names sort by kind).
fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".npy"))
        .collect();
    names.sort();
    let step = if cfg!(miri) { 3 } else { 1 };
    names
        .into_iter()
        .step_by(step)
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

/// Shifts of a buffer off an 8-byte boundary: all seven; under Miri an odd one and 4 (each
/// element size of 2 bytes or more is then misaligned at least once).
fn shifts() -> &'static [usize] {
    if cfg!(miri) {
        &[1, 4]
    } else {
        &[1, 2, 3, 4, 5, 6, 7]
    }
}

/// Values compared as printed: NaN equals NaN, -0.0 differs from 0.0.
fn dbg<T: std::fmt::Debug>(v: &T) -> String {
    format!("{v:?}")
}

#[test]
fn every_fixture_reads_the_same_at_every_misalignment_and_fails_cut_short() {
    for (name, bytes) in fixtures() {
        let whole = DynArray::read_npy(&bytes[..]);
        for &shift in shifts() {
            let mut buf = vec![0u8; shift];
            buf.extend_from_slice(&bytes);
            let again = DynArray::read_npy(&buf[shift..]);
            match (&whole, &again) {
                (Ok(a), Ok(b)) => assert_eq!(dbg(a), dbg(b), "{name} at +{shift}"),
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name} at +{shift}"),
                _ => panic!("{name} at +{shift}: {whole:?} then {again:?}"),
            }
        }
        // Cut short by a byte or by a seventh: an error, never a read past the end.
        if let Ok(a) = &whole {
            if a.shape().iter().product::<usize>() > 0 && !name.starts_with("stream") {
                for cut in [1, bytes.len() / 7 + 1] {
                    let short = &bytes[..bytes.len() - cut];
                    assert!(DynArray::read_npy(short).is_err(), "{name} cut by {cut}");
                }
            }
        }
    }
}

#[test]
fn typed_reads_of_both_orders_and_byte_orders_agree_at_every_misalignment() {
    fn check<T: ndnpy::ReadableElement + PartialEq + std::fmt::Debug>(stem: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let want = Array2::<T>::read_npy(
            &std::fs::read(dir.join(format!("{stem}_le_c_2x3.npy"))).unwrap()[..],
        )
        .unwrap();
        for layout in ["le_c", "le_f", "be_c", "be_f"] {
            let file = match layout {
                "le_f" | "be_f" => format!("{stem}_{layout}_3x4.npy"),
                _ => format!("{stem}_{layout}_2x3.npy"),
            };
            let bytes = std::fs::read(dir.join(&file)).unwrap();
            let base = Array2::<T>::read_npy(&bytes[..]).unwrap();
            if layout.ends_with('c') {
                assert_eq!(dbg(&base), dbg(&want), "{file}");
            }
            for &shift in shifts() {
                let mut buf = vec![0u8; shift];
                buf.extend_from_slice(&bytes);
                assert_eq!(
                    dbg(&Array2::<T>::read_npy(&buf[shift..]).unwrap()),
                    dbg(&base),
                    "{file} +{shift}"
                );
            }
        }
    }
    check::<i16>("i2");
    check::<u32>("u4");
    check::<i64>("i8");
    check::<f32>("f4");
    check::<f64>("f8");
    check::<half::f16>("f2");
    check::<Complex<f32>>("c8");
    check::<Complex<f64>>("c16");
}

/// `a` as `.npy` bytes.
fn npy<S: ndarray::Data<Elem = f64>, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<S, D>,
) -> Vec<u8> {
    let mut out = Vec::new();
    a.write_npy(&mut out).unwrap();
    out
}

#[test]
fn writes_of_every_layout_match_a_copy_in_standard_order() {
    let a = Array3::<f64>::from_shape_fn((3, 4, 5), |(i, j, k)| (i * 100 + j * 10 + k) as f64);
    assert_eq!(npy(&a).len(), 128 + 3 * 4 * 5 * 8);
    // Fortran order is written as such and reads back equal.
    let mut fortran = Array3::<f64>::zeros((3, 4, 5).f());
    fortran.assign(&a);
    assert_eq!(Array3::<f64>::read_npy(&npy(&fortran)[..]).unwrap(), a);
    // Permuted, strided and negatively strided views write their standard-order copy's bytes.
    let permuted = a.view().permuted_axes([2, 0, 1]);
    let sliced = a.slice(ndarray::s![.., 1.., ..;2]);
    let flipped = a.slice(ndarray::s![..;-1, .., ..;-2]);
    for (what, view) in [
        ("permuted", permuted),
        ("sliced", sliced),
        ("flipped", flipped),
    ] {
        assert_eq!(npy(&view), npy(&view.as_standard_layout()), "{what}");
    }
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct Pt {
    x: f64,
    id: i32,
    flag: u8,
    tag: [u8; 3],
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Loose {
    #[npy(len = 4)]
    name: String,
    v: [f32; 2],
    n: i16,
}

#[test]
fn records_round_trip_at_every_misalignment() {
    let pts = Array1::from_shape_fn(37, |i| Pt {
        x: i as f64 / 3.0,
        id: -(i as i32),
        flag: (i % 2) as u8,
        tag: [i as u8, 1, 2],
    });
    let mut bytes = Vec::new();
    pts.write_npy(&mut bytes).unwrap();
    let loose = Array1::from_shape_fn(11, |i| Loose {
        name: "x".repeat(i % 4),
        v: [i as f32, -1.5],
        n: i as i16,
    });
    let mut loose_bytes = Vec::new();
    loose.write_npy(&mut loose_bytes).unwrap();
    for shift in 0..8 {
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&bytes);
        assert_eq!(
            Array1::<Pt>::read_npy(&buf[shift..]).unwrap(),
            pts,
            "+{shift}"
        );
        assert!(Array1::<Pt>::read_npy(&buf[shift..buf.len() - 5]).is_err());
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&loose_bytes);
        assert_eq!(
            Array1::<Loose>::read_npy(&buf[shift..]).unwrap(),
            loose,
            "+{shift}"
        );
    }
}

/// A buffer holding `bytes` at `shift` bytes past an 8-byte boundary, and where they start.
fn at_offset(bytes: &[u8], shift: usize) -> (Vec<u8>, usize) {
    let mut store = vec![0u8; bytes.len() + 16];
    let start = (8 - store.as_ptr() as usize % 8) % 8 + shift;
    store[start..start + bytes.len()].copy_from_slice(bytes);
    (store, start)
}

#[test]
fn views_need_alignment_and_see_the_buffer() {
    let a = Array2::<f64>::from_shape_fn((4, 6), |(i, j)| (i * 6 + j) as f64);
    let mut bytes = Vec::new();
    a.write_npy(&mut bytes).unwrap();
    for shift in 0..8 {
        let (mut store, start) = at_offset(&bytes, shift);
        let end = start + bytes.len();
        match ArrayView2::<f64>::view_npy(&store[start..end]) {
            Ok(v) => {
                assert_eq!(shift, 0, "a view at +{shift}");
                assert_eq!(v, a);
            }
            Err(e) => assert_ne!(shift, 0, "{e}"),
        }
        // A mutable view writes through to the buffer.
        if let Ok(mut v) = ArrayViewMut2::<f64>::view_mut_npy(&mut store[start..end]) {
            v[[1, 2]] = -1.0;
            assert_eq!(
                ArrayView2::<f64>::view_npy(&store[start..end]).unwrap()[[1, 2]],
                -1.0
            );
        } else {
            assert_ne!(shift, 0);
        }
        // Short by one byte: an error, aligned or not.
        assert!(ArrayView2::<f64>::view_npy(&store[start..end - 1]).is_err());
    }
}

/// Every member of every archive numpy wrote in `testdata/`, stored or deflated by numpy's
/// zlib (`npz_deflated_mixed.npz`: 48 KiB of runs, small integers, text and noise), read from
/// memory: each member's CRC-32 is checked against what the inflater produced. A damaged
/// deflated stream is an error.
#[test]
fn every_archive_member_inflates_from_memory() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut members = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "npz") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut npz = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
        for name in npz.names().unwrap() {
            if let Ok(a) = npz.by_name_dyn(&name) {
                members += 1;
                if name == "mixed" {
                    assert_eq!(a.shape(), [48_893]);
                }
            }
        }
    }
    assert!(members >= 30, "{members} members read");
    // Flip bytes inside the deflated stream: an error each time (a bad block or a bad CRC).
    let good = std::fs::read(dir.join("npz_deflated_mixed.npz")).unwrap();
    for at in [200, 3000, 9000] {
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        let read = match NpzReader::new(Cursor::new(&bad[..])) {
            Ok(mut z) => z.by_name_dyn("mixed").map(drop).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        assert!(read.is_err(), "a flipped byte at {at} read");
    }
}
