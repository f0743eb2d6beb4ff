//! Reading hostile input commits at most the bytes really present plus 20 MiB, through every
//! door a user reads by: a path, a `File`, a `BufReader<File>`, bytes in memory, a `Cursor`,
//! a reader that trickles like a pipe, and an `.npz` member.
//!
//! Memory is measured as the growth of resident memory (VmHWM, the peak resident set) of a
//! child process that runs one case through one door and nothing else: reserving address
//! space commits nothing, so counting allocations would not say what the process really
//! holds. Linux only (`/proc/self/status`).

use crate::common::Scratch;
use ndarray::ArrayD;
use ndnpy::{element::FixedBytes, DynArray, Error, ErrorKind, NpzReader, NpzWriter, ReadNpyExt};
use std::fs::File;
use std::io::{BufReader, Cursor, Read};
use std::path::Path;

/// What a hostile read may commit on top of the bytes present.
const SLACK: u64 = 20 << 20;

fn v1(text: &str, data: &[u8]) -> Vec<u8> {
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    let pad = (64 - (10 + text.len() + 1) % 64) % 64;
    let header = format!("{text}{}\n", " ".repeat(pad));
    f.extend_from_slice(&(header.len() as u16).to_le_bytes());
    f.extend_from_slice(header.as_bytes());
    f.extend_from_slice(data);
    f
}

fn header(descr: &str, shape: &str) -> String {
    format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}")
}

#[derive(ndnpy::NpyRecord, Debug)]
struct Named {
    #[npy(len = 4)]
    s: Vec<u8>,
    x: f64,
}

#[derive(ndnpy::NpyRecord, Debug)]
struct Nothing {}

#[derive(ndnpy::NpyRecord, Debug)]
struct FourStrings {
    #[npy(len = 0)]
    a: String,
    #[npy(len = 0)]
    b: String,
    #[npy(len = 0)]
    c: String,
    #[npy(len = 0)]
    d: String,
}

/// How a case reads its input.
#[derive(Clone, Copy, Debug)]
enum As {
    Dyn,
    F64,
    String,
    Bytes8,
    Named,
    Nothing,
    FourStrings,
}

/// A hostile file: its header, the bytes present after it, how it is read, and the error kind
/// expected ("format" for truncated data, "limit" for a refused zero-size claim).
///
/// `owned` is what one value decoded into owned memory costs beyond the file's bytes, per
/// `itemsize` bytes present (a `Vec<u8>` field: its 24 bytes plus the allocator's smallest
/// block), 0 where the file's bytes are the array's memory: a stream's values are decoded as
/// its bytes arrive, so those values are what the process holds when the stream stops short.
struct Case {
    descr: &'static str,
    shape: &'static str,
    present: usize,
    read_as: As,
    expect: &'static str,
    itemsize: usize,
    owned: u64,
    /// The first bytes after the header (a pickle's opcodes); the rest of the `present`
    /// bytes are `fill`.
    prefix: fn() -> Vec<u8>,
    fill: u8,
}

fn no_prefix() -> Vec<u8> {
    Vec::new()
}

/// The opcodes of an object array of one element (protocol 2, as numpy 1 wrote), up to the
/// `MARK` before its items.
fn object_head() -> Vec<u8> {
    let mut out = b"\x80\x02cnumpy._core.multiarray\n_reconstruct\ncnumpy\nndarray\n".to_vec();
    out.extend_from_slice(b"K\x00\x85C\x01b\x87R(K\x01K\x01\x85cnumpy\ndtype\nX\x02\x00\x00\x00O8");
    out.extend_from_slice(
        b"\x89\x88\x87R(K\x03X\x01\x00\x00\x00|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xff",
    );
    out.extend_from_slice(b"K?tb\x89](");
    out
}

/// BINBYTES8 claiming 2**60 bytes.
fn pickle_bytes_claim() -> Vec<u8> {
    b"\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x10".to_vec()
}

/// A FRAME claiming 2**60 bytes.
fn pickle_frame_claim() -> Vec<u8> {
    b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x10".to_vec()
}

/// A memo bomb: a 16-byte str, then 60 tuples each holding the one before twice (2**60 strs
/// from 500 bytes), as the one element of an object array.
fn pickle_memo_bomb() -> Vec<u8> {
    let mut out = object_head();
    out.extend_from_slice(b"\x8c\x10abcdefghijklmnop\x940");
    for k in 0u8..60 {
        out.extend_from_slice(&[b'h', k, b'h', k, 0x86, 0x94, b'0']);
    }
    out.extend_from_slice(b"h\x3cetb.");
    out
}

impl Case {
    /// The most resident memory the read may add.
    fn bound(&self) -> u64 {
        let values = (self.present / self.itemsize.max(1)) as u64;
        self.present as u64 + values * self.owned + SLACK
    }
}

/// What an object array's case gives: its pickle's error, or, without the feature `object`,
/// the refusal of the dtype before any of the pickle is read (a mismatch).
const fn pickled(expect: &'static str) -> &'static str {
    if cfg!(feature = "object") {
        expect
    } else {
        "mismatch"
    }
}

const CASES: &[Case] = &[
    Case {
        descr: "'<f8'",
        shape: "(1000000000000,)",
        present: 100,
        read_as: As::Dyn,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'<f8'",
        shape: "(1000000000000,)",
        present: 100,
        read_as: As::F64,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'<f8'",
        shape: "(1000000000,)",
        present: 10 << 20,
        read_as: As::F64,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'|u1'",
        shape: "(4000000000,)",
        present: 40 << 20,
        read_as: As::Dyn,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'<c16'",
        shape: "(100000, 100000)",
        present: 3 << 20,
        read_as: As::Dyn,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'|b1'",
        shape: "(1000000000000,)",
        present: 1000,
        read_as: As::Dyn,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'<U16'",
        shape: "(1000000000,)",
        present: 5 << 20,
        read_as: As::String,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'|S8'",
        shape: "(1000000000,)",
        present: 5000,
        read_as: As::Bytes8,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "'<U0'",
        shape: "(1000000000000,)",
        present: 0,
        read_as: As::String,
        expect: "limit",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "[('s', '|S4'), ('x', '<f8')]",
        shape: "(1000000000,)",
        present: 10 << 20,
        read_as: As::Named,
        expect: "format",
        itemsize: 12,
        owned: 64,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "[('s', '|S999999999999'), ('x', '<f8')]",
        shape: "(1,)",
        present: 4000,
        read_as: As::Named,
        expect: "format",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    Case {
        descr: "[]",
        shape: "(1000000000000,)",
        present: 0,
        read_as: As::Nothing,
        expect: "limit",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    // 128 bytes of file: four zero-size strings per record, a million records.
    Case {
        descr: "[('a', '<U0'), ('b', '<U0'), ('c', '<U0'), ('d', '<U0')]",
        shape: "(1048576,)",
        present: 0,
        read_as: As::FourStrings,
        expect: "limit",
        itemsize: 0,
        owned: 0,
        prefix: no_prefix,
        fill: 7,
    },
    // Object arrays: pickles claiming huge lengths, a memo bomb, and a long run of one-byte
    // opcodes (each one object of the pickle machine: the one input whose memory grows
    // faster than its bytes, by at most 64 bytes per byte while it runs).
    Case {
        descr: "'|O'",
        shape: "(1,)",
        present: 10 << 20,
        read_as: As::Dyn,
        expect: pickled("format"),
        itemsize: 0,
        owned: 0,
        prefix: pickle_bytes_claim,
        fill: 7,
    },
    Case {
        descr: "'|O'",
        shape: "(1,)",
        present: 10 << 20,
        read_as: As::Dyn,
        expect: pickled("format"),
        itemsize: 0,
        owned: 0,
        prefix: pickle_frame_claim,
        fill: 7,
    },
    Case {
        descr: "'|O'",
        shape: "(1,)",
        present: 0,
        read_as: As::Dyn,
        expect: pickled("limit"),
        itemsize: 0,
        owned: 0,
        prefix: pickle_memo_bomb,
        fill: 7,
    },
    Case {
        descr: "'|O'",
        shape: "(1,)",
        present: 1 << 20,
        read_as: As::Dyn,
        expect: pickled("format"),
        itemsize: 1,
        owned: 64,
        prefix: object_head,
        fill: b'N',
    },
];

const DOORS: &[&str] = &[
    "path",
    "file",
    "bufreader",
    "slice",
    "cursor",
    "trickle",
    "npz",
];

/// A reader that hands out at most 4 KiB per call, as a pipe does.
struct Trickle<R>(R);

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(4096);
        self.0.read(&mut buf[..n])
    }
}

/// Reads `case` through a reader; `Err` carries the error kind.
fn read_with<R: Read>(reader: R, read_as: As) -> Result<(), Error> {
    match read_as {
        As::Dyn => DynArray::read_npy(reader).map(drop),
        As::F64 => ArrayD::<f64>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
        As::String => ArrayD::<String>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
        As::Bytes8 => ArrayD::<FixedBytes<8>>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
        As::Named => ArrayD::<Named>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
        As::Nothing => ArrayD::<Nothing>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
        As::FourStrings => ArrayD::<FourStrings>::read_npy(reader)
            .map(drop)
            .map_err(Error::from),
    }
}

fn read_path(path: &Path, read_as: As) -> Result<(), Error> {
    match read_as {
        As::Dyn => ndnpy::read_npy_dyn(path).map(drop),
        As::F64 => ndnpy::read_npy::<_, ArrayD<f64>>(path)
            .map(drop)
            .map_err(Error::from),
        As::String => ndnpy::read_npy::<_, ArrayD<String>>(path)
            .map(drop)
            .map_err(Error::from),
        As::Bytes8 => ndnpy::read_npy::<_, ArrayD<FixedBytes<8>>>(path)
            .map(drop)
            .map_err(Error::from),
        As::Named => ndnpy::read_npy::<_, ArrayD<Named>>(path)
            .map(drop)
            .map_err(Error::from),
        As::Nothing => ndnpy::read_npy::<_, ArrayD<Nothing>>(path)
            .map(drop)
            .map_err(Error::from),
        As::FourStrings => ndnpy::read_npy::<_, ArrayD<FourStrings>>(path)
            .map(drop)
            .map_err(Error::from),
    }
}

fn read_member(npz: &Path, read_as: As) -> Result<(), Error> {
    let mut z = NpzReader::open(npz)?;
    match read_as {
        As::Dyn => z.member("a").and_then(|mut m| m.read_dyn()).map(drop),
        As::F64 => z
            .by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
        As::String => z
            .by_name::<ndarray::OwnedRepr<String>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
        As::Bytes8 => z
            .by_name::<ndarray::OwnedRepr<FixedBytes<8>>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
        As::Named => z
            .by_name::<ndarray::OwnedRepr<Named>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
        As::Nothing => z
            .by_name::<ndarray::OwnedRepr<Nothing>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
        As::FourStrings => z
            .by_name::<ndarray::OwnedRepr<FourStrings>, ndarray::IxDyn>("a")
            .map(drop)
            .map_err(Error::from),
    }
}

fn kind(r: &Result<(), Error>) -> &'static str {
    match r {
        Ok(()) => "ok",
        Err(e) if e.kind().is_format() => "format",
        Err(e) if e.kind() == ErrorKind::Limit => "limit",
        Err(e) if e.kind() == ErrorKind::Io => "io",
        Err(e) if e.kind() == ErrorKind::OutOfMemory => "out of memory",
        Err(e) if e.kind().is_mismatch() => "mismatch",
        Err(_) => "other",
    }
}

/// The child's side of every test here: runs case `i` through `door` on the files in `dir`
/// (the case string `"i door dir"`) and tells the parent the result's kind.
fn run_case(spec: &str) {
    let mut parts = spec.splitn(3, ' ');
    let (i, door, dir) = (
        parts.next().unwrap().parse::<usize>().unwrap(),
        parts.next().unwrap(),
        Path::new(parts.next().unwrap()),
    );
    let case = &CASES[i];
    let npy = dir.join(format!("c{i}.npy"));
    let npz = dir.join(format!("c{i}.npz"));
    let result = match door {
        "path" => read_path(&npy, case.read_as),
        "file" => read_with(File::open(&npy).unwrap(), case.read_as),
        "bufreader" => read_with(BufReader::new(File::open(&npy).unwrap()), case.read_as),
        // These doors read the file into memory first: the caller's input, which
        // `run_child` takes off the rise.
        "slice" => read_with(&std::fs::read(&npy).unwrap()[..], case.read_as),
        "cursor" => read_with(Cursor::new(std::fs::read(&npy).unwrap()), case.read_as),
        "trickle" => read_with(Trickle(&std::fs::read(&npy).unwrap()[..]), case.read_as),
        "npz" => read_member(&npz, case.read_as),
        other => panic!("unknown door {other}"),
    };
    crate::common::child_say(kind(&result));
}

/// Runs case `i` through `door` in a child process (this test binary, test `test`), with
/// `vm_headroom` bytes of address space beyond what the child holds when the case starts;
/// returns how far resident memory rose and the result's kind.
fn run_child(
    test: &str,
    i: usize,
    door: &str,
    dir: &Path,
    vm_headroom: Option<u64>,
) -> (u64, String) {
    let spec = format!("{i} {door} {}", dir.display());
    let peak = crate::common::child_peak_rss(module_path!(), test, &spec, vm_headroom);
    let mut rise = peak.rise();
    // The doors that hold the whole file in memory hold its bytes from the case's start.
    if matches!(door, "slice" | "cursor" | "trickle") {
        rise = rise.saturating_sub(
            std::fs::metadata(dir.join(format!("c{i}.npy")))
                .unwrap()
                .len(),
        );
    }
    (rise, peak.said.concat())
}

/// Writes every case as `c{i}.npy` and as member `a` of `c{i}.npz` (stored).
fn write_cases(dir: &Path) {
    for (i, case) in CASES.iter().enumerate() {
        let mut data = (case.prefix)();
        data.extend(std::iter::repeat_n(case.fill, case.present));
        let file = v1(&header(case.descr, case.shape), &data);
        std::fs::write(dir.join(format!("c{i}.npy")), &file).unwrap();
        let mut z = NpzWriter::new(File::create(dir.join(format!("c{i}.npz"))).unwrap());
        z.add_bytes("a.npy", &file).unwrap();
        z.finish().unwrap();
    }
}

#[test]
fn hostile_claims_commit_only_what_arrives_through_every_door() {
    if let Some(spec) = crate::common::child_case() {
        return crate::common::run_child_case(|| run_case(&spec));
    }
    let dir = Scratch::new("hostile-doors");
    write_cases(&dir.0);
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        for door in DOORS {
            let (grew, kind) = run_child(
                "hostile_claims_commit_only_what_arrives_through_every_door",
                i,
                door,
                &dir.0,
                None,
            );
            let bound = case.bound();
            if kind != case.expect || grew > bound {
                failures.push(format!(
                    "{} {} as {:?} through {door}: {kind} (expected {}), resident grew {grew} \
                     bytes for {} present (bound {bound})",
                    case.descr, case.shape, case.read_as, case.expect, case.present
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn huge_claims_under_an_address_space_limit_fail_cleanly() {
    if let Some(spec) = crate::common::child_case() {
        return crate::common::run_child_case(|| run_case(&spec));
    }
    // With 2 GiB of address space, the terabyte claims cannot even be reserved: the reads fall
    // back to growing with the bytes that arrive, and still fail as truncated, without abort.
    let dir = Scratch::new("hostile-ulimit");
    write_cases(&dir.0);
    for (i, case) in CASES
        .iter()
        .enumerate()
        .filter(|(_, c)| c.present <= 10 << 20)
    {
        for door in ["file", "slice", "trickle"] {
            let (grew, kind) = run_child(
                "huge_claims_under_an_address_space_limit_fail_cleanly",
                i,
                door,
                &dir.0,
                Some(2 << 30),
            );
            assert_eq!(
                kind, case.expect,
                "{} {} through {door}",
                case.descr, case.shape
            );
            assert!(
                grew <= case.bound(),
                "{} {}: {grew}",
                case.descr,
                case.shape
            );
        }
    }
}

#[test]
fn a_whole_stream_reads_under_an_address_space_limit() {
    if let Some(spec) = crate::common::child_case() {
        return crate::common::run_child_case(|| run_case(&spec));
    }
    // A real 64 MiB array through a File under a 1 GiB address-space limit: the reservation
    // fits, and the read gives the array.
    let dir = Scratch::new("hostile-ulimit-ok");
    let n = 8 << 20;
    let data: Vec<u8> = (0..n * 8).map(|i| (i % 251) as u8).collect();
    let file = v1(&header("'<f8'", &format!("({n},)")), &data);
    // Case 2 reads as f64: give it this file instead.
    let npz = dir.path("c2.npz");
    let mut z = NpzWriter::new(File::create(&npz).unwrap());
    z.add_bytes("a.npy", &file).unwrap();
    z.finish().unwrap();
    std::fs::write(dir.path("c2.npy"), &file).unwrap();
    for door in ["file", "trickle", "npz"] {
        let (grew, kind) = run_child(
            "a_whole_stream_reads_under_an_address_space_limit",
            2,
            door,
            &dir.0,
            Some(1 << 30),
        );
        assert_eq!(kind, "ok", "through {door}");
        assert!(grew <= (n * 8) as u64 + SLACK, "through {door}: {grew}");
    }
}
