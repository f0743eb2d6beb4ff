//! Hostile `.npz` archives and `.npy` headers: resident memory stays within the bytes present
//! plus a small constant (a small multiple of a header's length), under an address space limit
//! too; failures are typed errors with messages of bounded length; and the messages users meet
//! first say what is wrong.
//!
//! Peak resident memory is measured per case in a child process (`common::child_peak_rss`):
//! the parent writes the input file, the child reads it and reports its `VmHWM`.

use crate::common::{
    child_case, child_peak_rss, child_say, numpy, run_child_case, status_bytes, Scratch,
};
use crate::error_checks::{is_dtype_mismatch, is_not_zip, is_zip_structure, member_fault};

use ndarray::{Array2, ArrayD, IxDyn, OwnedRepr};
use ndnpy::{
    npz::NpzValue, DType, Error, ErrorKind, Fault, Header, NpzReader, NpzWriter, ReadNpyExt,
    ReadOptions,
};
use std::io::Cursor;
use std::path::Path;

/// The constant allowed on top of the bytes present.
const SLACK: u64 = 20 << 20;

/// Deflate's largest expansion, the most a member may declare per compressed byte.
const MAX_RATIO: u64 = 1032;

/// A case for a child process: its name and the input file, in one string.
fn case_at(case: &str, path: &Path) -> String {
    format!("{case} {}", path.display())
}

/// The name and the input file of a child's case.
fn split_case(case: &str) -> (&str, &Path) {
    let (name, path) = case.split_once(' ').unwrap();
    (name, Path::new(path))
}

// ---- a ZIP writer that lies as told ---------------------------------------------------------

/// One member as the archive describes it; `data` is what the archive holds.
struct Member {
    name: Vec<u8>,
    method: u16,
    crc32: u32,
    /// The declared uncompressed size (written in a zip64 field when it needs one).
    size: u64,
    data: Vec<u8>,
}

/// An archive of `members`, each local header followed by its data, then the central
/// directory; sizes of 4 GiB and more go in zip64 extra fields.
fn zip(members: &[Member]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for m in members {
        offsets.push(out.len() as u64);
        out.extend(b"PK\x03\x04");
        out.extend(20u16.to_le_bytes());
        out.extend(0u16.to_le_bytes()); // flags
        out.extend(m.method.to_le_bytes());
        out.extend([0u8; 4]); // time, date
        out.extend(m.crc32.to_le_bytes());
        out.extend(u32::MAX.to_le_bytes()); // sizes in the directory only
        out.extend(u32::MAX.to_le_bytes());
        out.extend((m.name.len() as u16).to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend(&m.name);
        out.extend(&m.data);
    }
    let cd_start = out.len() as u64;
    for (m, &offset) in members.iter().zip(&offsets) {
        central_entry(
            &mut out,
            &m.name,
            m.method,
            m.crc32,
            m.data.len() as u64,
            m.size,
            offset,
        );
    }
    end_records(&mut out, members.len() as u64, cd_start);
    out
}

/// Appends a central directory entry; sizes and the offset of 4 GiB and more go in a zip64
/// extra field.
fn central_entry(
    out: &mut Vec<u8>,
    name: &[u8],
    method: u16,
    crc32: u32,
    csize: u64,
    size: u64,
    offset: u64,
) {
    let big = |v: u64| v >= u64::from(u32::MAX);
    let mut extra = Vec::new();
    for v in [size, csize, offset] {
        if big(v) {
            extra.extend(v.to_le_bytes());
        }
    }
    let extra = if extra.is_empty() {
        extra
    } else {
        let mut e = vec![1, 0];
        e.extend((extra.len() as u16).to_le_bytes());
        e.extend(extra);
        e
    };
    let small = |v: u64| if big(v) { u32::MAX } else { v as u32 };
    out.extend(b"PK\x01\x02");
    out.extend(20u16.to_le_bytes());
    out.extend(20u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend(method.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend(crc32.to_le_bytes());
    out.extend(small(csize).to_le_bytes());
    out.extend(small(size).to_le_bytes());
    out.extend((name.len() as u16).to_le_bytes());
    out.extend((extra.len() as u16).to_le_bytes());
    out.extend([0u8; 10]); // comment length, disk, attributes
    out.extend(small(offset).to_le_bytes());
    out.extend(name);
    out.extend(extra);
}

/// Appends the zip64 end record and locator and the end of central directory record.
fn end_records(out: &mut Vec<u8>, count: u64, cd_start: u64) {
    let cd_size = out.len() as u64 - cd_start;
    let rec = out.len() as u64;
    out.extend(b"PK\x06\x06");
    out.extend(44u64.to_le_bytes());
    out.extend([45, 0, 45, 0]);
    out.extend([0u8; 8]);
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(cd_size.to_le_bytes());
    out.extend(cd_start.to_le_bytes());
    out.extend(b"PK\x06\x07");
    out.extend(0u32.to_le_bytes());
    out.extend(rec.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend(b"PK\x05\x06");
    out.extend([0u8; 4]);
    out.extend([0xff; 4]);
    out.extend([0xff; 8]);
    out.extend(0u16.to_le_bytes());
}

/// A deflate stream of stored blocks holding `data`: it inflates to exactly `data`.
fn stored_deflate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65535 * 5 + 5);
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend([1, 0, 0, 0xff, 0xff]);
    }
    while let Some(c) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        out.extend((c.len() as u16).to_le_bytes());
        out.extend((!(c.len() as u16)).to_le_bytes());
        out.extend(c);
    }
    out
}

/// `len` bytes that do not compress, from a fixed seed.
fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend(x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// An `.npy` version 1.0 header for `descr` and `shape`.
fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
    let mut text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + text.len() + 1) % 64 != 0 {
        text.push(' ');
    }
    text.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((text.len() as u16).to_le_bytes());
    out.extend(text.as_bytes());
    out
}

// ---- F1: members that declare far more than their deflate stream holds ---------------------

/// Writes an archive whose two deflated members each hold `mib` MiB of deflate stream that
/// inflates to as much, and declare 1032 times that (deflate's maximum, so legal): "bytes",
/// whose content is not `.npy`, and "array", an `.npy` of `u8` as long as the declared size
/// allows. Returns its length.
fn write_liar(path: &Path, mib: usize) -> u64 {
    let mut body = noise(mib << 20);
    body[0] = b'x';
    let bytes = stored_deflate(&body);
    let declared = bytes.len() as u64 * MAX_RATIO;
    let header = npy_header("|u1", &format!("({},)", declared - 128));
    assert_eq!(header.len(), 128);
    body[..128].copy_from_slice(&header);
    let array = stored_deflate(&body);
    let archive = zip(&[
        Member {
            name: b"bytes".to_vec(),
            method: 8,
            crc32: 0,
            size: declared,
            data: bytes,
        },
        Member {
            name: b"array.npy".to_vec(),
            method: 8,
            crc32: 0,
            size: declared,
            data: array,
        },
    ]);
    std::fs::write(path, &archive).unwrap();
    archive.len() as u64
}

/// Reads the lying archive at `path` one way; each must fail as truncated.
fn liar_case(case: &str, path: &Path) {
    let mut npz = NpzReader::open(path).unwrap();
    let declared = npz.member(0).unwrap().info().size();
    assert!(declared > 4 << 30, "{declared}");
    // What the stream inflates to: its bytes less a 5-byte header per stored block.
    let compressed = npz.member(0).unwrap().info().compressed_size();
    let inflates_to = compressed - 5 * compressed.div_ceil(65540);
    let err = match case {
        "raw_bytes" => npz.member("bytes").and_then(|mut m| m.bytes()).unwrap_err(),
        "get" => match npz
            .member("bytes")
            .and_then(|mut m| m.get::<OwnedRepr<u8>, IxDyn>())
        {
            Ok(NpzValue::Bytes(b)) => panic!("{} bytes", b.len()),
            Ok(NpzValue::Array(a)) => panic!("{:?}", a.shape()),
            Ok(_) => panic!("a value of another kind"),
            Err(e) => e,
        },
        "by_name" => npz
            .by_name::<OwnedRepr<u8>, IxDyn>("array")
            .unwrap_err()
            .into(),
        "by_name_dyn" => npz
            .member("array")
            .and_then(|mut m| m.read_dyn())
            .unwrap_err(),
        "get_array" => npz
            .member("array")
            .and_then(|mut m| m.get::<OwnedRepr<u8>, IxDyn>())
            .unwrap_err(),
        "read_all" => {
            let all = npz.read_all::<OwnedRepr<u8>, IxDyn>();
            all.into_iter().nth(1).unwrap().1.unwrap_err()
        }
        other => panic!("no case {other}"),
    };
    child_say(&format!("{err:?}"));
    assert_eq!(member_fault(&err), Some("truncated"), "{case}: {err:?}");
    assert_eq!(err.byte_counts().unwrap().1, inflates_to, "{case}: {err:?}");
}

const LIAR_TEST: &str =
    "a_member_declaring_1032_times_its_bytes_fails_as_truncated_in_the_memory_it_used";

/// Every read of a member that declares 4.3 GB and inflates to 4 MiB fails as truncated, with
/// resident memory within the archive's bytes plus 20 MiB: allocated at once when the system
/// can reserve the declared size (its pages untouched beyond what arrived), else grown with
/// the bytes; and the same under an address space limit of 512 MiB more than the process has.
#[test]
fn a_member_declaring_1032_times_its_bytes_fails_as_truncated_in_the_memory_it_used() {
    if let Some(case) = child_case() {
        let (case, path) = split_case(&case);
        return run_child_case(|| liar_case(case, path));
    }
    let dir = Scratch::new("liar-4");
    let path = dir.path("liar.npz");
    let present = write_liar(&path, 4);
    for case in [
        "raw_bytes",
        "get",
        "by_name",
        "by_name_dyn",
        "get_array",
        "read_all",
    ] {
        for headroom in [None, Some(512 << 20)] {
            let p = child_peak_rss(module_path!(), LIAR_TEST, &case_at(case, &path), headroom);
            eprintln!(
                "{case} ({headroom:?}): rise {} for {present} bytes",
                p.rise()
            );
            assert!(
                p.rise() <= present + SLACK,
                "{case} ({headroom:?}): resident rose by {} for {present} bytes present",
                p.rise()
            );
        }
    }
}

/// The archive: 31 MiB of deflate stream declaring 32 GB. `raw_bytes` and `get` used
/// to abort the process allocating the declared size; now they fail as truncated, having
/// held what inflated.
#[test]
fn a_31_mib_member_declaring_32_gb_is_truncated_not_an_abort() {
    const TEST: &str = "a_31_mib_member_declaring_32_gb_is_truncated_not_an_abort";
    if let Some(case) = child_case() {
        let (case, path) = split_case(&case);
        return run_child_case(|| liar_case(case, path));
    }
    let dir = Scratch::new("liar-31");
    let path = dir.path("liar.npz");
    let present = write_liar(&path, 31);
    for (case, headroom) in [
        ("raw_bytes", None),
        ("get", Some(1 << 30)),
        ("by_name", None),
        ("by_name", Some(1 << 30)),
    ] {
        let p = child_peak_rss(module_path!(), TEST, &case_at(case, &path), headroom);
        eprintln!(
            "{case} ({headroom:?}): rise {} for {present} bytes",
            p.rise()
        );
        assert!(
            p.rise() <= present + SLACK,
            "{case} ({headroom:?}): resident rose by {} for {present} bytes present",
            p.rise()
        );
    }
}

// ---- F3: a large central directory ----------------------------------------------------------

/// Writes an archive of one empty stored member and `n` directory entries that all point at
/// its local header (listing them is legal; reading any is refused), named by their index in
/// hex. Returns its length.
fn write_directory(path: &Path, n: usize) -> u64 {
    let one = zip(&[Member {
        name: b"0".to_vec(),
        method: 0,
        crc32: 0,
        size: 0,
        data: Vec::new(),
    }]);
    let local_len = 31;
    let mut out = one[..local_len].to_vec();
    for i in 0..n {
        central_entry(&mut out, format!("{i:x}").as_bytes(), 0, 0, 0, 0, 0);
    }
    end_records(&mut out, n as u64, local_len as u64);
    std::fs::write(path, &out).unwrap();
    out.len() as u64
}

const DIRECTORY_ENTRIES: usize = 1_000_000;

fn directory_case(case: &str, path: &Path) {
    let n = DIRECTORY_ENTRIES;
    let mut npz = NpzReader::open(path).unwrap();
    assert_eq!(npz.len(), n);
    // A copy of every key: 24 bytes for its `String` and 32 for the smallest allocation.
    let names = if case == "names" {
        npz.names().unwrap()
    } else {
        Vec::new()
    };
    if case != "open" {
        let last = format!("{:x}", n - 1);
        assert_eq!(npz.member(&last).unwrap().info().index(), n - 1);
        assert!(!npz.contains("nope"));
        assert_eq!(npz.keys().nth(10), Some("a"));
        // Reading a member locates it among the others (they all share one local header).
        let err = npz.member("a").and_then(|mut m| m.bytes()).unwrap_err();
        assert!(is_zip_structure(&err), "{err}");
        let err = npz.member("nope").and_then(|mut m| m.bytes()).unwrap_err();
        assert!(err.to_string().len() < 4096);
    }
    if case == "names" {
        assert_eq!(names.len(), n);
        assert_eq!(names[n - 1], format!("{:x}", n - 1));
    }
}

/// A million directory entries (46 to 51 bytes each in the file) cost about their bytes: the
/// directory is read through a small buffer into 28 bytes per entry plus the names, and
/// lookups add 4 bytes per entry for each order (by name, by offset). Listing the keys with
/// `names` as well (56 bytes or more a key) stays within twice the directory plus 16 MiB.
#[test]
fn a_large_central_directory_costs_about_its_bytes() {
    const TEST: &str = "a_large_central_directory_costs_about_its_bytes";
    if let Some(case) = child_case() {
        let (case, path) = split_case(&case);
        return run_child_case(|| directory_case(case, path));
    }
    let dir = Scratch::new("directory");
    let path = dir.path("directory.npz");
    let present = write_directory(&path, DIRECTORY_ENTRIES);
    for case in ["open", "lookup"] {
        let p = child_peak_rss(module_path!(), TEST, &case_at(case, &path), None);
        eprintln!("{case}: rise {} for {present} bytes", p.rise());
        assert!(
            p.rise() <= present + SLACK,
            "{case}: resident rose by {} for {present} bytes present",
            p.rise()
        );
    }
    let cd = cd_len(&std::fs::read(&path).unwrap());
    let p = child_peak_rss(module_path!(), TEST, &case_at("names", &path), None);
    eprintln!("names: rise {} for a directory of {cd} bytes", p.rise());
    assert!(
        p.rise() <= 2 * cd + DIRECTORY_SLACK,
        "names: resident rose by {} for a directory of {cd} bytes",
        p.rise()
    );
}

// ---- F3: directories of every shape cost at most twice their bytes plus 16 MiB -------------

/// What opening an archive may add, on top of twice its central directory's bytes.
const DIRECTORY_SLACK: u64 = 16 << 20;

/// The length of the central directory of the archive `bytes`, as its end records say (the
/// zip64 one when the plain one is saturated).
fn cd_len(bytes: &[u8]) -> u64 {
    let le = |at: usize, n: usize| {
        let mut x = [0u8; 8];
        x[..n].copy_from_slice(&bytes[at..at + n]);
        u64::from_le_bytes(x)
    };
    let eocd = bytes.len() - 22;
    assert_eq!(
        bytes[eocd..eocd + 4],
        *b"PK\x05\x06",
        "an archive without a comment"
    );
    match le(eocd + 12, 4) {
        0xFFFF_FFFF => le(eocd - 20 - 56 + 40, 8),
        n => n,
    }
}

/// `.npy` bytes of a 0-d `|u1` array holding `v`, as `np.save` writes them.
fn npy_scalar(v: u8) -> Vec<u8> {
    let mut b = npy_header("|u1", "()");
    b.push(v);
    b
}

/// The CRC-32 of `data` (bitwise: the members here are a few hundred bytes).
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// The keys of the archive shapes that `np.savez` writes: `arr_{i}` (`np.savez(f, *arrays)`),
/// or 4,092-character keywords (`np.savez(f, **arrays)`), 8,192 of which make 32 MiB of names.
fn savez_key(kind: &str, i: usize) -> String {
    match kind {
        "arr" => format!("arr_{i}"),
        "long" => format!("k{i:06}{}", "x".repeat(4085)),
        other => panic!("no shape {other}"),
    }
}

/// The archive `np.savez` writes for `n` 0-d `uint8` arrays holding `i % 256` under keys of
/// `kind` (see [`savez_key`]): stored members named `KEY.npy`, whose central directory is
/// numpy's byte count for byte count (`savez_shapes_are_numpys` checks).
fn savez_like(kind: &str, n: usize) -> Vec<u8> {
    let npys: Vec<Vec<u8>> = (0..=255u8).map(npy_scalar).collect();
    let crcs: Vec<u32> = npys.iter().map(|b| crc32(b)).collect();
    let members: Vec<Member> = (0..n)
        .map(|i| Member {
            name: format!("{}.npy", savez_key(kind, i)).into_bytes(),
            method: 0,
            crc32: crcs[i % 256],
            size: npys[i % 256].len() as u64,
            data: npys[i % 256].clone(),
        })
        .collect();
    zip(&members)
}

/// Entries of a hostile directory: `n` entries, all pointing at one empty stored member's
/// local header (listing them is legal; reading any is refused), named as `kind` says:
/// `zip64`, one hex digit each, with sizes and offset past 4 GiB in zip64 extra fields; `cp437`, 4,096 bytes of 0xB0 without the UTF-8 flag (CP437's `░`,
/// 3 bytes decoded).
fn hostile_directory(kind: &str, n: usize) -> Vec<u8> {
    let one = zip(&[Member {
        name: b"0".to_vec(),
        method: 0,
        crc32: 0,
        size: 0,
        data: Vec::new(),
    }]);
    let local_len = 31;
    let mut out = one[..local_len].to_vec();
    let cp437 = vec![0xB0u8; 4096];
    for i in 0..n {
        let hex = [b"0123456789abcdef"[i % 16]];
        match kind {
            "zip64" => central_entry(&mut out, &hex, 8, 0, 5 << 30, 6 << 30, 7 << 30),
            "cp437" => central_entry(&mut out, &cp437, 0, 0, 0, 0, 0),
            other => panic!("no shape {other}"),
        }
    }
    end_records(&mut out, n as u64, local_len as u64);
    out
}

/// The archives of the directory test, as (shape, members); [`directory_shape`] writes them.
const DIRECTORY_SHAPES: [(&str, usize); 4] = [
    ("arr", 200_000),
    ("long", 8192),
    ("zip64", 100_000),
    ("cp437", 8192),
];

/// The bytes of a shape of [`DIRECTORY_SHAPES`].
fn directory_shape(shape: &str, n: usize) -> Vec<u8> {
    match shape {
        "arr" | "long" => savez_like(shape, n),
        _ => hostile_directory(shape, n),
    }
}

/// Opens the archive (and says the peak resident size then), then does what a caller listing
/// it does: `len`, `names` (a copy of every key), then the last member by key, read.
fn shape_case(case: &str, path: &Path) {
    let (shape, n) = case.split_once(':').unwrap();
    let n: usize = n.parse().unwrap();
    let opened = NpzReader::open(path);
    child_say(&status_bytes("VmHWM").to_string());
    if shape == "cp437" {
        // 32 MiB of names that decode to 96 MiB: more than the directory may take.
        let err = opened.unwrap_err();
        assert!(is_zip_structure(&err), "{err:?}");
        assert!(err.to_string().len() < 1024, "{err}");
        return;
    }
    let mut npz = opened.unwrap();
    assert_eq!(npz.len(), n);
    let names = npz.names().unwrap();
    assert_eq!(names.len(), n);
    let last = names[n - 1].clone();
    let mut member = npz.member(last.as_str()).unwrap();
    let read = member.bytes();
    match shape {
        "arr" | "long" => {
            assert_eq!(last, savez_key(shape, n - 1));
            assert_eq!(read.unwrap(), npy_scalar(((n - 1) % 256) as u8));
        }
        // Every entry shares one local header, or points past the input.
        _ => assert!(read.unwrap_err().kind().is_format()),
    }
    drop(names);
}

/// Opening an archive costs at most twice its central directory's bytes plus 16 MiB, whatever
/// the directory's shape, and so does listing its keys with `names` (a copy of each) and
/// reading the last member: 200,000 members as `np.savez(f, *arrays)` writes them (12 MB of
/// directory), 32 MiB of names as `np.savez(f, **arrays)` writes them with long keywords,
/// 100,000 entries with zip64 fields, and 32 MiB of CP437 names, which decode to three times
/// their bytes and are refused once the directory would take more than its bytes plus 8 MiB
/// (a million short names: `a_large_central_directory_costs_about_its_bytes`).
#[test]
fn any_central_directory_costs_at_most_twice_its_bytes_plus_16_mib() {
    const TEST: &str = "any_central_directory_costs_at_most_twice_its_bytes_plus_16_mib";
    if let Some(case) = child_case() {
        let (case, path) = split_case(&case);
        return run_child_case(|| shape_case(case, path));
    }
    let dir = Scratch::new("directory-shapes");
    for (shape, n) in DIRECTORY_SHAPES {
        let path = dir.path(&format!("{shape}.npz"));
        let bytes = directory_shape(shape, n);
        std::fs::write(&path, &bytes).unwrap();
        let cd = cd_len(&bytes);
        drop(bytes);
        let case = format!("{shape}:{n}");
        let p = child_peak_rss(module_path!(), TEST, &case_at(&case, &path), None);
        let open = p.said[0].parse::<u64>().unwrap().saturating_sub(p.baseline);
        for (what, rise) in [("open", open), ("open, names, last member", p.rise())] {
            eprintln!(
                "{case}: {what}: rise {rise} for a directory of {cd} bytes ({:.2}x)",
                rise as f64 / cd as f64
            );
            assert!(
                rise <= 2 * cd + DIRECTORY_SLACK,
                "{case}: {what}: resident rose by {rise} for a directory of {cd} bytes"
            );
        }
        std::fs::remove_file(&path).unwrap();
    }
}

/// The numpy-shaped archives above have numpy's central directory: the same keys and the same
/// directory length as `np.savez` writes (checked at 1,000 and 64 members).
#[test]
fn savez_shapes_are_numpys() {
    let dir = Scratch::new("savez-shapes");
    numpy(
        &dir.0,
        "np.savez(d + '/arr.npz', *[np.uint8(i % 256) for i in range(1000)])\n\
         k = lambda i: 'k%06d' % i + 'x' * 4085\n\
         np.savez(d + '/long.npz', **{k(i): np.uint8(i % 256) for i in range(64)})",
    );
    for (kind, n) in [("arr", 1000), ("long", 64)] {
        let ours = savez_like(kind, n);
        let theirs = dir.read(&format!("{kind}.npz"));
        assert_eq!(cd_len(&ours), cd_len(&theirs), "{kind}");
        let keys = |b: &[u8]| NpzReader::new(Cursor::new(b)).unwrap().names().unwrap();
        assert_eq!(keys(&ours), keys(&theirs), "{kind}");
        let mut npz = NpzReader::new(Cursor::new(&theirs[..])).unwrap();
        let last = savez_key(kind, n - 1);
        let bytes = npz.member(last.as_str()).unwrap().bytes().unwrap();
        assert_eq!(bytes, npy_scalar(((n - 1) % 256) as u8), "{kind}");
    }
}

/// CP437 names (no UTF-8 flag) decode as Python's `cp437` codec does, to up to 3 bytes a
/// byte, within the 8 MiB the directory may take beyond its bytes: 512 names of 4,096 bytes
/// open (6 MiB decoded from 2 MiB); 4,096 of them (24 MiB from 16 MiB) are refused, naming
/// the entry where the names went over.
#[test]
fn names_that_decode_larger_may_take_8_mib_more_than_the_directory() {
    let bytes = hostile_directory("cp437", 512);
    let npz = crate::own::open_npz(Cursor::new(&bytes[..])).unwrap();
    assert_eq!(npz.len(), 512);
    assert!(npz.keys().all(|k| k == "░".repeat(4096)));
    let bytes = hostile_directory("cp437", 4096);
    let err = crate::own::open_npz(Cursor::new(&bytes[..])).unwrap_err();
    // A structure error, at the entry where the names went over.
    assert!(is_zip_structure(&err), "{err:?}");
    assert!(err.to_string().len() < 1024, "{err}");
}

// ---- F3: a large header with the header length limit raised ---------------------------------

/// A version 2.0 `.npy` header of about `len` bytes, of one of several shapes.
fn big_header(kind: &str, len: usize) -> Vec<u8> {
    let text = match kind {
        // Many small fields: the dtype itself is large.
        "fields" => {
            let mut fields = String::from("[");
            let mut i = 0;
            while fields.len() < len - 200 {
                fields.push_str(&format!("('f{i}', '|u1'), "));
                i += 1;
            }
            fields.push(']');
            format!("{{'descr': {fields}, 'fortran_order': False, 'shape': (1,), }}")
        }
        // Millions of dimensions, numpy's limit being 64.
        "shape" => {
            let dims = "0, ".repeat((len - 200) / 3);
            format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({dims}), }}")
        }
        // Millions of empty tuples where fields belong.
        "empty_tuples" => {
            let items = "(), ".repeat((len - 200) / 4);
            format!("{{'descr': [{items}], 'fortran_order': False, 'shape': (1,), }}")
        }
        // Millions of keys.
        "keys" => {
            let mut keys = String::new();
            let mut i = 0;
            while keys.len() < len - 200 {
                keys.push_str(&format!("'k{i}': 0, "));
                i += 1;
            }
            format!("{{{keys}'descr': '<f8', 'fortran_order': False, 'shape': (1,), }}")
        }
        // Lists nested 60 deep, each holding many small lists.
        "nested" => {
            let inner = format!("[{}]", ["[0]"; 1000].join(", "));
            let mut text = String::new();
            while text.len() < len - 200 - inner.len() {
                text.push_str(&inner);
                text.push_str(", ");
            }
            format!(
                "{{'descr': {}{text}{}, 'fortran_order': False, 'shape': (1,), }}",
                "[".repeat(30),
                "]".repeat(30)
            )
        }
        other => panic!("no header {other}"),
    };
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend((text.len() as u32).to_le_bytes());
    f.extend(text.as_bytes());
    f
}

const HEADER_LEN: usize = 8 << 20;

/// Headers of 8 MiB, read with the header length limit raised to allow them. Only a header of
/// fields costs more than its bytes: the record dtype it describes (about 130 bytes per field,
/// a field being about 16 bytes of text here), 8 times the header in all; the others cost the
/// header's bytes, as containers too large to keep are parsed again as they are used. Before,
/// these cost 22, 14, 9, 12 times the header.
#[test]
fn a_large_header_costs_a_small_multiple_of_its_bytes() {
    const TEST: &str = "a_large_header_costs_a_small_multiple_of_its_bytes";
    if let Some(case) = child_case() {
        let (case, path) = split_case(&case);
        return run_child_case(|| {
            let opts = ReadOptions::new().max_header_len(HEADER_LEN + 1000);
            let mut f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
            let r = Header::read(&mut f, &opts);
            match case {
                "fields" => {
                    let fields = r
                        .unwrap()
                        .header
                        .dtype
                        .as_structured()
                        .unwrap()
                        .fields()
                        .len();
                    assert!(fields > 400_000, "{fields}");
                }
                "shape" => {
                    let err = r.unwrap_err();
                    assert_eq!(err.fault(), Some(Fault::Shape), "{err:?}");
                }
                _ => {
                    let e = r.unwrap_err();
                    assert!(e.to_string().len() < 1024, "{e}");
                }
            }
        });
    }
    let dir = Scratch::new("header");
    for (case, times) in [
        ("fields", 9),
        ("shape", 1),
        ("empty_tuples", 1),
        ("keys", 1),
        ("nested", 1),
    ] {
        let path = dir.path(case);
        let header = big_header(case, HEADER_LEN);
        std::fs::write(&path, &header).unwrap();
        let present = header.len() as u64;
        let p = child_peak_rss(module_path!(), TEST, &case_at(case, &path), None);
        eprintln!("{case}: rise {} for {present} bytes", p.rise());
        assert!(
            p.rise() <= times * present + SLACK,
            "{case}: resident rose by {} for a header of {present} bytes",
            p.rise()
        );
    }
}

// ---- F3: a limit on what an archive inflates in all -----------------------------------------

#[test]
fn the_inflated_total_is_limited_when_asked() {
    let mut w = NpzWriter::new_compressed(Cursor::new(Vec::new()));
    for k in ["a", "b", "c"] {
        w.add_array(k, &ndarray::Array1::<u8>::zeros(1000 - 128))
            .unwrap();
    }
    w.add_bytes("raw", &[7u8; 500]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let opts = ReadOptions::new().max_inflated_len(Some(2500));
    let mut npz = NpzReader::with_options(Cursor::new(&bytes[..]), &opts).unwrap();
    // A header read counts only what it inflates.
    assert_eq!(
        npz.member("c").unwrap().header().unwrap().header.shape,
        [872]
    );
    let zeros = ndarray::Array1::<u8>::zeros(872);
    let a: ndarray::Array1<u8> = npz.by_name("a").unwrap();
    assert_eq!(a, zeros);
    let b: ndarray::Array1<u8> = npz.by_name("b").unwrap();
    assert_eq!(b, zeros);
    let err = ndnpy::Error::from(npz.by_name::<OwnedRepr<u8>, IxDyn>("c").unwrap_err());
    assert_eq!(err.kind(), ErrorKind::Limit, "{err:?}");
    assert_eq!(err.member(), Some("c.npy"));
    assert_eq!(err.byte_counts(), Some((2500, 2000 + 128 + 1000)));
    assert!(is_inflated_too_large(&err), "{err}");
    // 372 bytes are left: the raw member of 500 is refused too, before anything is inflated.
    let err = npz.member("raw").and_then(|mut m| m.bytes()).unwrap_err();
    assert!(is_inflated_too_large(&err), "{err:?}");
    // read_all, whichever way it runs, reads up to the limit and refuses the rest.
    let mut npz = NpzReader::with_options(Cursor::new(&bytes[..]), &opts).unwrap();
    let all = npz.read_all::<OwnedRepr<u8>, IxDyn>();
    let ok: Vec<bool> = all.iter().map(|(_, r)| r.is_ok()).collect();
    assert_eq!(ok, [true, true, false, false]);
    assert!(
        all[2].1.as_ref().is_err_and(is_inflated_too_large),
        "{:?}",
        all[2].1
    );
    // No limit by default.
    let mut npz = NpzReader::new(Cursor::new(&bytes[..])).unwrap();
    for _ in 0..10 {
        let a: ndarray::Array1<u8> = npz.by_name("a").unwrap();
        assert_eq!(a, zeros);
    }
}

/// Whether `err` refuses a member because reading it would take the bytes read out of the
/// archive past `ReadOptions::max_inflated_len`. A limit naming the member with byte counts
/// is this one or `MemberTooLarge`; no accessor tells them apart, so the message does.
fn is_inflated_too_large(err: &Error) -> bool {
    let Some(member) = err.member() else {
        return false;
    };
    err.fault() == Some(Fault::InflatedLimit) && !member.is_empty() && err.byte_counts().is_some()
}

// ---- F4: messages quote a bounded amount ----------------------------------------------------

fn v2(text: &str) -> Vec<u8> {
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend((text.len() as u32).to_le_bytes());
    f.extend(text.as_bytes());
    f.extend([0u8; 64]);
    f
}

/// The longest error message allowed from any input.
const MESSAGE_MAX: usize = 4096;

#[test]
fn a_2_mb_header_gives_a_message_of_a_few_hundred_bytes() {
    const MB2: usize = 2 << 20;
    let fields = |n: usize| -> String {
        (0..n)
            .map(|i| format!("('f{i}', '|u1')"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let big_list = format!("[{}]", "1, ".repeat(MB2 / 3));
    let big_str = "x".repeat(MB2);
    let cases = [
        // A field list whose last item is not a field.
        format!(
            "{{'descr': [{}, {big_list}], 'fortran_order': False, 'shape': (1,), }}",
            fields(1000)
        ),
        // A descr that is one huge string.
        format!("{{'descr': '{big_str}', 'fortran_order': False, 'shape': (1,), }}"),
        // A tuple descr of three items.
        format!("{{'descr': ('<f8', (2,), {big_list}), 'fortran_order': False, 'shape': (1,), }}"),
        // A sub-array shape of a million dimensions.
        format!(
            "{{'descr': [('a', '<f8', ({}))], 'fortran_order': False, 'shape': (1,), }}",
            "1, ".repeat(MB2 / 3)
        ),
        // fortran_order and shape that are huge lists.
        format!("{{'descr': '<f8', 'fortran_order': {big_list}, 'shape': (1,), }}"),
        format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({big_list},), }}"),
        // A huge extra key, and many extra keys.
        format!("{{'descr': '<f8', 'fortran_order': False, 'shape': (1,), '{big_str}': 1}}"),
        format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (1,), {}}}",
            (0..200_000)
                .map(|i| format!("'k{i}': 0, "))
                .collect::<String>()
        ),
        // Not a dict, and a syntax error at the end.
        big_list.clone(),
        format!(
            "{{'descr': [{}], 'fortran_order': False, 'shape': (1,), ",
            fields(100_000)
        ),
        // The same field name twice among many (long names).
        format!(
            "{{'descr': [{}, ('{big_str}', '<f8'), ('{big_str}', '<f8')], 'fortran_order': \
             False, 'shape': (1,), }}",
            fields(10)
        ),
    ];
    let opts = ReadOptions::new().max_header_len(16 << 20);
    for (i, text) in cases.iter().enumerate() {
        let err = Header::read(&mut &v2(text)[..], &opts).unwrap_err();
        assert!(err.kind().is_format(), "case {i}: {err:?}");
        let msg = err.to_string();
        assert!(
            msg.len() < MESSAGE_MAX,
            "case {i}: a message of {} bytes: {}...",
            msg.len(),
            &msg[..300]
        );
        // The Debug form, which holds the same fields, is bounded too.
        assert!(format!("{err:?}").len() < MESSAGE_MAX, "case {i}");
    }
    // A valid file of a 100,000-field record read as f64: the dtype in the message is cut.
    let text = format!(
        "{{'descr': [{}], 'fortran_order': False, 'shape': (1,), }}",
        fields(100_000)
    );
    let mut file = v2(&text);
    file.truncate(file.len() - 64);
    file.extend([0u8; 100_000]);
    let err = ArrayD::<f64>::read_npy_with_options(&file[..], &opts).unwrap_err();
    assert!(is_dtype_mismatch(&err), "{err:?}");
    let msg = err.to_string();
    assert!(msg.len() < MESSAGE_MAX, "{} bytes", msg.len());
    // The dtype is quoted cut short, with its length.
    assert!(msg.contains("… (1888890 bytes in all) as f64"), "{msg}");
}

#[test]
fn an_archive_of_100k_keys_gives_messages_of_a_few_hundred_bytes() {
    let n = 100_000;
    let long = "n".repeat(60_000);
    let mut members: Vec<Member> = (0..n)
        .map(|i| Member {
            name: format!("key_{i:06}.npy").into_bytes(),
            method: 0,
            crc32: 0,
            size: 0,
            data: Vec::new(),
        })
        .collect();
    members[0].name = format!("{long}.npy").into_bytes();
    members[1].crc32 = 1;
    let bytes = zip(&members);
    let mut npz = crate::own::open_npz(Cursor::new(&bytes[..])).unwrap();
    let err = crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut npz, "missing").unwrap_err();
    let msg = err.to_string();
    assert!(msg.len() < MESSAGE_MAX, "{} bytes", msg.len());
    // The archive's 100,000 keys, of which the first 10 are listed: the long one, then 1 to 9.
    assert_eq!(err.kind(), ErrorKind::MissingMember, "{err:?}");
    let listed: Vec<String> = (1..10).map(|i| format!("\"key_{i:06}\"")).collect();
    assert!(
        msg.ends_with(&format!(
            "… (60002 bytes in all), {}, ...",
            listed.join(", ")
        )),
        "{msg}"
    );
    assert!(format!("{err:?}").len() < 2 * 60_000 + MESSAGE_MAX);
    // A member with a 60,000-byte name that is not an array, and one whose CRC is wrong.
    let err = crate::own::by_index::<OwnedRepr<f64>, IxDyn, _>(&mut npz, 0).unwrap_err();
    assert!(
        member_fault(&err) == Some("truncated") || err.kind() == ErrorKind::NotNpy,
        "{err:?}"
    );
    assert!(
        err.to_string().len() < MESSAGE_MAX,
        "{}",
        err.to_string().len()
    );
    let err = npz.member(1).and_then(|mut m| m.bytes()).unwrap_err();
    assert_eq!(member_fault(&err), Some("checksum"), "{err:?}");
    let err = crate::own::by_name::<OwnedRepr<f64>, IxDyn, _>(&mut npz, &long).unwrap_err();
    assert!(
        err.to_string().len() < MESSAGE_MAX,
        "{}",
        err.to_string().len()
    );
    // The reader's Debug form lists a few keys, not all.
    assert!(format!("{npz:?}").len() < MESSAGE_MAX);
}

// ---- F8: offsets, zero dimensions, truncated archives ---------------------------------------

#[test]
fn a_local_header_offset_of_2_pow_63_is_a_format_error() {
    for offset in [1u64 << 63, u64::MAX - 1, 1 << 40] {
        let mut out = zip(&[Member {
            name: b"a.npy".to_vec(),
            method: 0,
            crc32: 0,
            size: 0,
            data: Vec::new(),
        }]);
        // Replace the directory with one whose offset is `offset` (in a zip64 field).
        let cd_start = 35;
        out.truncate(cd_start);
        central_entry(&mut out, b"a.npy", 0, 0, 0, 0, offset);
        end_records(&mut out, 1, cd_start as u64);
        let mut npz = NpzReader::new(Cursor::new(&out[..])).unwrap();
        let err = npz.member("a").and_then(|mut m| m.bytes()).unwrap_err();
        assert!(is_zip_structure(&err), "{offset}: {err:?}");
        assert!(npz.member("a").and_then(|mut m| m.stored_range()).is_err());
        assert!(npz.member("a").and_then(|mut m| m.header()).is_err());
    }
}

/// numpy's rule for shapes with a zero dimension, from `np.empty`: the nonzero dimensions
/// times the item size must fit in `isize`, wherever the zero is. Checked here against numpy
/// itself, for `Header::sizes` and for reads.
#[test]
fn shapes_with_a_zero_follow_numpys_rule_wherever_the_zero_is() {
    let shapes: &[&[u64]] = &[
        &[0, 1 << 40, 1 << 40],
        &[1 << 40, 1 << 40, 0],
        &[1 << 40, 0, 1 << 40],
        &[0, 1 << 62],
        &[1 << 62, 0],
        &[0, (1 << 63) - 1],
        &[(1 << 63) - 1, 0],
        &[0, 1 << 60, 8],
        &[8, 1 << 60, 0],
        &[0, 1 << 59, 8],
        &[3, 0, 5],
        &[0],
    ];
    let descrs = ["|u1", "<f8", "<c16"];
    let tuple = |s: &[u64]| -> String {
        let inner: Vec<String> = s.iter().map(|d| d.to_string()).collect();
        format!("({},)", inner.join(", "))
    };
    let mut script = String::from("for s, d in [");
    for s in shapes {
        for d in descrs {
            script.push_str(&format!("({}, '{d}'), ", tuple(s)));
        }
    }
    script.push_str(
        "]:\n    try:\n        np.empty(s, dtype=d); print('ok')\n    except ValueError:\n        \
         print('refused')\n",
    );
    let dir = Scratch::new("zero-dims");
    let oracle = numpy(&dir.0, &script);
    let mut oracle = oracle.lines();
    for s in shapes {
        for d in descrs {
            let numpy_accepts = oracle.next().unwrap() == "ok";
            let shape: Vec<usize> = s.iter().map(|&x| x as usize).collect();
            let h = Header {
                dtype: DType::from_type_str(d).unwrap(),
                fortran_order: false,
                shape: shape.clone(),
            };
            assert_eq!(h.sizes().is_ok(), numpy_accepts, "{s:?} {d}");
            let file = npy_header(d, &tuple(s));
            let read = crate::own::read::<ArrayD<u8>>(&file[..]);
            if d == "|u1" {
                match read {
                    Ok(a) => {
                        assert!(numpy_accepts, "{s:?}");
                        assert_eq!(a.shape(), shape);
                    }
                    Err(e) if e.kind() == ErrorKind::Header && e.fault() == Some(Fault::Shape) => {
                        assert!(!numpy_accepts, "{s:?}")
                    }
                    Err(e) => panic!("{s:?}: {e:?}"),
                }
            }
        }
    }
}

#[test]
fn more_than_64_dimensions_are_refused_as_numpy_does() {
    let ok = npy_header("|u1", &format!("({})", "1, ".repeat(64)));
    let mut file = ok.clone();
    file.push(9);
    let a = crate::own::read::<ArrayD<u8>>(&file[..]).unwrap();
    assert_eq!(a.ndim(), 64);
    let file = npy_header("|u1", &format!("({})", "1, ".repeat(65)));
    let err = crate::own::read::<ArrayD<u8>>(&file[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Header, "{err:?}");
    assert_eq!(err.fault(), Some(Fault::Shape), "{err:?}");
    // A sub-array dtype too, with numpy's message.
    let DType::SubArray(s) =
        DType::from_descr(&format!("('<f8', ({}))", "1, ".repeat(64))).unwrap()
    else {
        panic!("a sub-array dtype")
    };
    assert_eq!(s.shape(), [1; 64]);
    let err = DType::from_descr(&format!("('<f8', ({}))", "1, ".repeat(65))).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::Descr), "{err}");
}

#[test]
fn a_truncated_archive_says_it_may_be_truncated() {
    for name in ["npz_stored.npz", "npz_compressed.npz", "npz_zip64.npz"] {
        let bytes = std::fs::read(format!("testdata/{name}")).unwrap();
        let mut x = 12345u64;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let cut = (x >> 33) as usize % bytes.len();
            let err = crate::own::open_npz(Cursor::new(&bytes[..cut])).unwrap_err();
            assert!(is_not_zip(&err), "{name} cut at {cut}: {err:?}");
        }
        // Its text says it may be truncated (`messages`).
        let cut = bytes.len() - 1;
        let err = crate::own::open_npz(Cursor::new(&bytes[..cut])).unwrap_err();
        assert!(is_not_zip(&err), "{name} cut at {cut}: {err:?}");
    }
}

// ---- errors users meet first (their texts are in `messages`) -----------------------------------

#[test]
fn a_missing_file_names_the_path_and_the_reason() {
    let err = crate::own::read_path::<_, ArrayD<f64>>("no/such/x.npy").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert_eq!(err.io_error().unwrap().kind(), std::io::ErrorKind::NotFound);
    // The message holds the reason, so the error has no source to print it again.
    assert!(std::error::Error::source(&err).is_none());
    let err = NpzReader::open("no/such/x.npz").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert!(std::error::Error::source(&err).is_none());
}

#[test]
fn a_dimension_mismatch_shows_the_shape() {
    let mut file = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&ndarray::Array3::<f64>::zeros((2, 3, 4)), &mut file).unwrap();
    let err = crate::own::read::<Array2<f64>>(&file[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Ndim, "{err:?}");
    assert_eq!(err.shape(), Some(&[2, 3, 4][..]));
}

/// `f` of an archive in 8-aligned memory whose member `x` (two f64) is not 8-aligned:
/// without alignment, the member's data starts 30 + 5 + 128 bytes in.
fn with_misaligned_member<T>(f: impl FnOnce(&mut NpzReader<Cursor<&[u8]>>) -> T) -> T {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add_array("x", &ndarray::array![1.0f64, 2.0]).unwrap();
    let archive = w.finish().unwrap().into_inner();
    let mut backing = vec![0u64; archive.len() / 8 + 1];
    // SAFETY: a u64 buffer viewed as its bytes; u8 has no alignment or validity requirement.
    let bytes: &mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(backing.as_mut_ptr().cast(), archive.len()) };
    bytes.copy_from_slice(&archive);
    f(&mut NpzReader::new(Cursor::new(&bytes[..])).unwrap())
}

fn view_x(npz: &mut NpzReader<Cursor<&[u8]>>) -> Error {
    npz.member("x")
        .and_then(|mut m| m.view::<f64, ndarray::Ix1>())
        .unwrap_err()
}

#[test]
fn a_misaligned_member_view_names_by_name() {
    with_misaligned_member(|npz| {
        let err = view_x(npz);
        assert_eq!(err.kind(), ErrorKind::CannotView, "{err:?}");
        assert_eq!(err.fault(), Some(Fault::Misaligned), "{err:?}");
        assert_eq!(err.member(), Some("x.npy"));
        let back: ndarray::Array1<f64> = npz.by_name("x").unwrap();
        assert_eq!(back, ndarray::array![1.0, 2.0]);
    });
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let too_many = npy_header("|u1", &format!("({})", "1, ".repeat(65)));
    let stored = std::fs::read("testdata/npz_stored.npz").unwrap();
    let cut = stored.len() - 1;
    let mut three = Vec::new();
    ndnpy::WriteNpyExt::write_npy(&ndarray::Array3::<f64>::zeros((2, 3, 4)), &mut three).unwrap();
    vec![
        Message::is(
            "65 dimensions",
            crate::own::read::<ArrayD<u8>>(&too_many[..]).unwrap_err(),
            "shape has 65 dimensions; numpy arrays have at most 64",
        ),
        Message::is(
            "a truncated archive",
            crate::own::open_npz(Cursor::new(&stored[..cut])).unwrap_err(),
            format!(
                "no end of central directory record in the last bytes of this {cut}-byte .npz \
                 (zip) archive: it may be truncated (it starts with a zip member, b\"PK\\x03\\x04\")"
            ),
        ),
        Message::is(
            "a missing .npy",
            crate::own::read_path::<_, ArrayD<f64>>("no/such/x.npy").unwrap_err(),
            "cannot open \"no/such/x.npy\": No such file or directory (os error 2)",
        ),
        Message::is(
            "a missing .npz",
            NpzReader::open("no/such/x.npz").unwrap_err(),
            "cannot open \"no/such/x.npz\": No such file or directory (os error 2)",
        ),
        Message::is(
            "another I/O error",
            Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
            "i/o error: broken pipe",
        ),
        Message::is(
            "dimensions",
            crate::own::read::<Array2<f64>>(&three[..]).unwrap_err(),
            "expected an array of 2 dimensions, found one of 3: shape (2, 3, 4)",
        ),
        Message::is(
            "a misaligned member",
            with_misaligned_member(view_x),
            "cannot view archive member \"x.npy\" in place: its data is 3 bytes past a 8-byte \
             boundary (read it with NpzReader::by_name, which copies; archives written with \
             NpzWriteOptions::align can be viewed)",
        ),
    ]
}
