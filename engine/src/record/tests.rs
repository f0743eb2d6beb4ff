//! Unit tests of the record runtime: plans, matching, field codecs, bulk reads and views.

use super::bulk::*;
use super::plan::*;
use super::*;
use crate::base::dtype::ByteOrder;
use crate::base::error::{Detail, FormatError};
use crate::element::Input;
use crate::ErrorKind;
// The derive, pointed at this crate (it names `::ndnpy` by default).
use ndnpy_derive::NpyRecord;
use std::sync::atomic::{AtomicUsize, Ordering};

fn native(descr: &str) -> DType {
    DType::from_descr(&descr.replace('=', &ByteOrder::NATIVE.as_char().to_string())).unwrap()
}

#[derive(NpyRecord, Debug, PartialEq)]
#[npy(crate = "crate")]
#[repr(C)]
struct Nothing {}

#[derive(NpyRecord, Debug, PartialEq)]
#[npy(crate = "crate")]
#[repr(C, align(8))]
struct AlignedNothing {}

#[test]
fn zero_sized_views_use_no_bytes_at_any_address() {
    let dtype = DType::from_descr("[]").unwrap();
    let v: &[Nothing] = view(&[], &dtype, 5).unwrap();
    assert_eq!(v.len(), 5);
    // An empty slice at an odd address is still a valid view of zero-sized values.
    let backing = [0u8; 3];
    let odd = &backing[1..1];
    let v: &[AlignedNothing] = view(odd, &dtype, 7).unwrap();
    assert_eq!(v.len(), 7);
    assert_eq!(std::mem::size_of::<AlignedNothing>(), 0);
    let mut none: [u8; 0] = [];
    assert_eq!(view_mut::<Nothing>(&mut none, &dtype, 2).unwrap().len(), 2);
    // Zero-sized values still need exactly zero bytes.
    assert!(matches!(
        view::<Nothing>(&[0], &dtype, 1).map_err(|e| e.kind()),
        Err(ErrorKind::TrailingBytes)
    ));
    // And a record dtype: padding-only records are not the empty struct's layout.
    assert!(view::<Nothing>(&[0; 8], &DType::from_descr("[('', '|V8')]").unwrap(), 1).is_err());
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[npy(crate = "crate")]
#[repr(C)]
struct Inner {
    b: [bool; 2],
    h: u16,
}

#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[npy(crate = "crate")]
#[repr(C)]
struct Outer {
    x: u32,
    inner: [Inner; 2],
}

#[test]
fn nested_plain_records_view_and_read_in_place() {
    const { assert!(!<Outer as PlainField>::HAS_PADDING) };
    const { assert!(<Counted as PlainField>::HAS_PADDING) };
    let dtype = native("[('x', '=u4'), ('inner', [('b', '|b1', (2,)), ('h', '=u2')], (2,))]");
    let mut bytes = Vec::new();
    for i in 0..3u32 {
        bytes.extend_from_slice(&i.to_ne_bytes());
        for j in 0..2u16 {
            bytes.extend_from_slice(&[1, 0]);
            bytes.extend_from_slice(&(j + 10).to_ne_bytes());
        }
    }
    let want = Outer {
        x: 2,
        inner: [
            Inner {
                b: [true, false],
                h: 10,
            },
            Inner {
                b: [true, false],
                h: 11,
            },
        ],
    };
    // Reads work from any buffer; the view needs a 4-aligned copy.
    let read: Vec<Outer> = read_vec_plain(&mut &bytes[..], &dtype, 3, Input::default()).unwrap();
    assert_eq!(read[2], want);
    let decoded: Vec<Outer> = read_vec(&mut &bytes[..], &dtype, 3, Input::default()).unwrap();
    assert_eq!(read, decoded);
    let mut aligned = vec![0u8; bytes.len() + 4];
    let start2 = aligned.as_ptr().align_offset(4);
    aligned[start2..start2 + bytes.len()].copy_from_slice(&bytes);
    let v: &[Outer] = view(&aligned[start2..start2 + bytes.len()], &dtype, 3).unwrap();
    assert_eq!(v[2], want);
    // An invalid bool deep inside is found before viewing.
    aligned[start2 + 12 * 2 + 4 + 4 + 1] = 9;
    let err = view::<Outer>(&aligned[start2..start2 + bytes.len()], &dtype, 3).unwrap_err();
    assert!(
        (err.kind(), err.record_index(), err.field())
            == (ErrorKind::InvalidData, Some(2), Some("inner[1].b[1]")),
        "{err:?}"
    );
}

static DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(NpyRecord, Debug, PartialEq)]
#[npy(crate = "crate")]
#[repr(C)]
struct Counted {
    a: [u64; 511],
    ok: bool,
}

impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn plain_reads_grow_with_a_stream_and_drop_only_checked_records() {
    let size = std::mem::size_of::<Counted>();
    assert_eq!(size, 4096);
    let dtype = native("[('a', '=u8', (511,)), ('ok', '|b1'), ('', '|V7')]");
    let n = 2500; // 39 parts of 64 records and a partial one; the capacity doubles 6 times
    let mut bytes = vec![0u8; n * size];
    for (i, rec) in bytes.chunks_exact_mut(size).enumerate() {
        rec[..8].copy_from_slice(&(i as u64).to_ne_bytes());
        rec[4088] = (i % 2) as u8;
        rec[4089..].fill(0xAA); // padding bytes: anything
    }
    let v: Vec<Counted> = read_vec_plain(&mut &bytes[..], &dtype, n, Input::default()).unwrap();
    assert_eq!(v.len(), n);
    assert!(v
        .iter()
        .enumerate()
        .all(|(i, r)| r.a[0] == i as u64 && r.ok == (i % 2 == 1)));
    DROPS.store(0, Ordering::SeqCst);
    drop(v);
    assert_eq!(DROPS.load(Ordering::SeqCst), n);
    // With the length known the array is allocated at once from zeroed pages and read in
    // the same parts: the same values.
    let w: Vec<Counted> = read_vec_plain(
        &mut &bytes[..],
        &dtype,
        n,
        Input::new(Some(bytes.len() as u64)),
    )
    .unwrap();
    assert_eq!((w.len(), w.capacity()), (n, n));
    assert!(w
        .iter()
        .enumerate()
        .all(|(i, r)| r.a[0] == i as u64 && r.ok == (i % 2 == 1) && r.a[1..] == [0; 510]));
    drop(w);
    // An input that ends before the length it claimed: truncated, checked records dropped.
    DROPS.store(0, Ordering::SeqCst);
    let half = &bytes[..1000 * size + 5];
    let err = read_vec_plain::<Counted, _>(
        &mut &half[..],
        &dtype,
        n,
        Input::new(Some(bytes.len() as u64)),
    )
    .unwrap_err();
    assert!(
        err.kind() == ErrorKind::Truncated && err.byte_counts().unwrap().1 == half.len() as u64,
        "{err:?}"
    );
    assert_eq!(DROPS.load(Ordering::SeqCst), 960);
    // An invalid bool in the third piece: the records of the first two are dropped, the
    // unchecked ones never become values.
    bytes[2100 * size + 4088] = 2;
    DROPS.store(0, Ordering::SeqCst);
    let err =
        read_vec_plain::<Counted, _>(&mut &bytes[..], &dtype, n, Input::default()).unwrap_err();
    assert!(
        matches!(
            err.detail(),
            Detail::Format(FormatError::InvalidField { index: 2100, .. })
        ),
        "{err:?}"
    );
    assert_eq!(DROPS.load(Ordering::SeqCst), 2048);
    // The same with the length known: allocated at once, read and checked in the same
    // parts.
    DROPS.store(0, Ordering::SeqCst);
    let err = read_vec_plain::<Counted, _>(
        &mut &bytes[..],
        &dtype,
        n,
        Input::new(Some(bytes.len() as u64)),
    )
    .unwrap_err();
    assert_eq!(
        (err.kind(), err.record_index()),
        (ErrorKind::InvalidData, Some(2100))
    );
    assert_eq!(DROPS.load(Ordering::SeqCst), 2048);
    // Truncated streams, in the first piece and later.
    bytes[2100 * size + 4088] = 0;
    for cut in [1, size * 1500 + 3] {
        DROPS.store(0, Ordering::SeqCst);
        let short = &bytes[..bytes.len() - cut];
        let err =
            read_vec_plain::<Counted, _>(&mut &short[..], &dtype, n, Input::default()).unwrap_err();
        let found = short.len() as u64;
        assert!(
            err.kind() == ErrorKind::Truncated && err.byte_counts().unwrap().1 == found,
            "{err:?}"
        );
        let err = read_vec_plain::<Counted, _>(&mut &short[..], &dtype, n, Input::new(Some(found)))
            .unwrap_err();
        assert!(matches!(
            err.detail(),
            Detail::Format(FormatError::Truncated { .. })
        ));
    }
}

#[test]
fn zero_itemsize_records_of_non_zero_sized_types() {
    #[derive(NpyRecord, Debug, PartialEq)]
    #[npy(crate = "crate")]
    struct Blank {
        #[npy(len = 0)]
        s: Vec<u8>,
        e: [f64; 0],
    }
    let dtype = Blank::npy_dtype(None);
    assert_eq!(
        dtype.descr(),
        format!(
            "[('s', '|S0'), ('e', '{}f8', (0,))]",
            ByteOrder::NATIVE.as_char()
        )
    );
    let v: Vec<Blank> = read_vec(&mut &[][..], &dtype, 3, Input::default()).unwrap();
    assert_eq!(v.len(), 3);
    let mut out = Vec::new();
    write_slice(&v, &mut out, &dtype).unwrap();
    assert!(out.is_empty());
    // Writing into a zero-size field still refuses a value that does not fit.
    let full = [Blank {
        s: b"x".to_vec(),
        e: [],
    }];
    assert!(write_slice(&full, &mut out, &dtype).is_err());
}

#[test]
fn decoders_never_panic_on_short_bytes() {
    let plan = i64::plan(&native("'=i8'")).unwrap();
    assert_eq!(i64::decode(&plan, &[1, 2]), 0);
    let plan = <[u16; 3]>::plan(&native("('=u2', (3,))")).unwrap();
    let first = u16::from_ne_bytes([1, 0]);
    assert_eq!(<[u16; 3]>::decode(&plan, &[1, 0, 2]), [first, 0, 0]);
    let plan = String::plan(&native("'=U4'")).unwrap();
    assert_eq!(String::decode(&plan, &[]), "");
    assert!(bool::check(&ScalarPlan { swap: false }, &[]).is_err());
    let mut out = [0u8; 1];
    assert!(7u32.encode(&ScalarPlan { swap: false }, &mut out).is_err());
    assert!("ab"
        .to_string()
        .encode(&String::plan(&native("'=U1'")).unwrap(), &mut out)
        .is_err());
}
