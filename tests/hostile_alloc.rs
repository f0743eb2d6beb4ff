//! Reading hostile input allocates at most the bytes really present plus a small constant.
//! A counting global allocator (this test binary only) measures the peak of live bytes.
#![cfg(feature = "derive")]

use ndarray::ArrayD;
use ndnpy::{DynArray, Error, FixedBytes, Header, ReadNpyExt, ReadOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: delegates to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as growing in place: glibc moves blocks of 32 MiB and more with mremap,
        // without a second buffer, and smaller copies are within the slack below.
        let now = if new_size >= layout.size() {
            LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size()
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed) - (layout.size() - new_size)
        };
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The tests in this binary share the counters: run them one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Peak bytes allocated (above what was live before) while running `f`.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

fn v1(text: &str, data: &[u8]) -> Vec<u8> {
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(text.len() as u16).to_le_bytes());
    f.extend_from_slice(text.as_bytes());
    f.extend_from_slice(data);
    f
}

/// The constant allowed on top of the bytes present: one growth step (16 MiB) and change.
const SLACK: usize = 20 << 20;

#[test]
fn huge_claims_allocate_only_what_arrives() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (descr, shape, present) in [
        ("<f8", "(1000000000000,)", 100usize),
        ("<f8", "(1000000000,)", 10 << 20),
        ("|u1", "(4000000000,)", 40 << 20),
        ("<c16", "(100000, 100000)", 3 << 20),
        ("|b1", "(1000000000000,)", 1000),
    ] {
        let file = v1(
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"),
            &vec![0u8; present],
        );
        let (result, peak) = peak_during(|| DynArray::read_npy(&file[..]));
        assert!(
            matches!(result, Err(Error::Format(_))),
            "{descr} {shape}: {result:?}"
        );
        assert!(
            peak <= present + SLACK,
            "{descr} {shape}: peak {peak} for {present} bytes"
        );
        assert!(peak < 64 << 20, "{descr} {shape}: peak {peak}");
    }
}

#[test]
fn hostile_headers_stay_small() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A v2 header length of 4 GiB with the cap lifted: grows only with the bytes present.
    let mut f = b"\x93NUMPY\x02\x00\xff\xff\xff\xff".to_vec();
    f.extend_from_slice(&[b' '; 1000]);
    let opts = ReadOptions::new().max_header_len(usize::MAX);
    let (r, peak) = peak_during(|| Header::read(&mut &f[..], &opts));
    assert!(r.is_err());
    assert!(peak < 1 << 20, "peak {peak}");
    // Nesting 100,000 deep.
    let deep = format!(
        "{{'descr': {}'<f8'{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend_from_slice(&(deep.len() as u32).to_le_bytes());
    f.extend_from_slice(deep.as_bytes());
    let (r, peak) = peak_during(|| Header::read(&mut &f[..], &ReadOptions::default()));
    assert!(matches!(r, Err(Error::Limit(_))));
    assert!(peak < 4 << 20, "peak {peak}");
    // A 1 MiB header of many small fields: linear in the header, well under 64 MiB.
    let mut fields = String::from("[");
    let mut i = 0;
    while fields.len() < (1 << 20) - 200 {
        fields.push_str(&format!("('f{i}', '|u1'), "));
        i += 1;
    }
    fields.push(']');
    let text = format!("{{'descr': {fields}, 'fortran_order': False, 'shape': (1,), }}");
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend_from_slice(&(text.len() as u32).to_le_bytes());
    f.extend_from_slice(text.as_bytes());
    let (r, peak) = peak_during(|| Header::read(&mut &f[..], &ReadOptions::default()));
    assert!(r.is_ok(), "{r:?}");
    assert!(peak < 64 << 20, "peak {peak} for {} fields", i);
}

#[test]
fn zero_size_items_and_fixed_strings_are_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let file = v1(
        "{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000,), }",
        &[],
    );
    let (r, peak) = peak_during(|| ArrayD::<String>::read_npy(&file[..]));
    assert!(matches!(r, Err(Error::Limit(_))));
    assert!(peak < 1 << 20, "peak {peak}");
    let file = v1(
        "{'descr': '|S8', 'fortran_order': False, 'shape': (1000000000,), }",
        &[7u8; 5000],
    );
    let (r, peak) = peak_during(|| ArrayD::<FixedBytes<8>>::read_npy(&file[..]));
    assert!(matches!(r, Err(Error::Format(_))));
    assert!(peak <= 5000 + SLACK, "peak {peak}");
}

#[derive(ndnpy::NpyRecord, Debug)]
struct Named {
    #[npy(len = 4)]
    s: Vec<u8>,
    x: f64,
}

#[derive(ndnpy::NpyRecord, Debug)]
struct Nothing {}

#[test]
fn hostile_record_dtypes_are_bounded() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // One record declared with a terabyte string field, a few bytes present.
    let file = v1(
        "{'descr': [('s', '|S999999999999'), ('x', '<f8')], 'fortran_order': False, 'shape': (1,), }",
        &[0u8; 4000],
    );
    let (r, peak) = peak_during(|| ArrayD::<Named>::read_npy(&file[..]));
    assert!(matches!(r, Err(Error::Format(_))), "{r:?}");
    assert!(peak < 1 << 20, "peak {peak}");
    // A trillion records of no bytes.
    let file = v1(
        "{'descr': [], 'fortran_order': False, 'shape': (1000000000000,), }",
        &[],
    );
    let (r, peak) = peak_during(|| ArrayD::<Nothing>::read_npy(&file[..]));
    assert!(matches!(r, Err(Error::Limit(_))), "{r:?}");
    assert!(peak < 1 << 20, "peak {peak}");
    // Records claimed by the billion, 10 MiB present.
    let file = v1(
        "{'descr': [('s', '|S4'), ('x', '<f8')], 'fortran_order': False, 'shape': (1000000000,), }",
        &vec![0u8; 10 << 20],
    );
    let (r, peak) = peak_during(|| ArrayD::<Named>::read_npy(&file[..]));
    assert!(matches!(r, Err(Error::Format(_))), "{r:?}");
    assert!(peak < 64 << 20, "peak {peak}");
}
