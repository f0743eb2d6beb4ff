//! Every door a user reads and writes by gives the same result, and leaves the reader or
//! writer where a plain `Read` or `Write` would: `File`, `&File`, `&mut File`,
//! `BufReader<File>` (with bytes already in its buffer), `&[u8]`, `&mut &[u8]`, `Cursor`s,
//! pipes, and for writes `File` and `BufWriter<File>` (with bytes already buffered). These
//! standard types are read and written through the file or bytes behind them; these tests pin
//! that the result is the generic path's, byte for byte, on arrays above and below the size
//! at which reads are split over threads, from a start that is not the input's first byte.

use crate::common::{numpy, Scratch};
use ndarray::{Array2, ArrayD};
use ndnpy::{DynArray, Error, ErrorKind, ReadNpyExt, WriteNpyExt};
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};

/// 3 x 1,000,003 f64 (24 MB, over the 16 MiB at which reads are split), then a small array.
const COLS: usize = 1_000_003;

/// The stream every read test reads: a prefix, the big array, the small one, a trailer.
struct Stream {
    bytes: Vec<u8>,
    prefix: usize,
    big: Array2<f64>,
    small: Array2<f64>,
    /// Where the small array ends (the trailer starts).
    end: usize,
}

const PREFIX: &[u8] = b"not npy: 13b";
const TRAILER: &[u8] = b"trailing bytes numpy leaves unread";

fn stream(dir: &Scratch, order: &str) -> Stream {
    numpy(
        &dir.0,
        &format!(
            "a = np.{order}((np.arange(3 * {COLS}) * 0.5).reshape(3, {COLS}))\n\
             np.save(d + '/big.npy', a)\n\
             np.save(d + '/small.npy', np.arange(6.0).reshape(2, 3) - 1)"
        ),
    );
    let big_file = dir.read("big.npy");
    let small_file = dir.read("small.npy");
    let mut bytes = PREFIX.to_vec();
    bytes.extend_from_slice(&big_file);
    bytes.extend_from_slice(&small_file);
    let end = bytes.len();
    bytes.extend_from_slice(TRAILER);
    std::fs::write(dir.path("stream"), &bytes).unwrap();
    Stream {
        bytes,
        prefix: PREFIX.len(),
        big: Array2::from_shape_fn((3, COLS), |(i, j)| (i * COLS + j) as f64 * 0.5),
        small: Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64 - 1.0),
        end,
    }
}

/// Reads the two arrays in turn through `&mut r`, then what is left.
fn two_then_rest<R: Read>(s: &Stream, r: &mut R, name: &str) {
    let big: Array2<f64> = Array2::read_npy(&mut *r).unwrap();
    assert_eq!(big, s.big, "{name}: the big array");
    let small = DynArray::read_npy(&mut *r).unwrap();
    assert_eq!(
        small.into_array::<f64>().unwrap(),
        s.small.clone().into_dyn(),
        "{name}: the small array after it"
    );
    let mut rest = Vec::new();
    r.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, TRAILER, "{name}: the bytes after the arrays");
}

#[test]
fn every_reader_door_reads_the_same_arrays_and_stops_just_past_them() {
    let dir = Scratch::new("doors-read");
    for order in ["ascontiguousarray", "asfortranarray"] {
        let s = stream(&dir, order);
        let at_prefix = || {
            let mut f = File::open(dir.path("stream")).unwrap();
            f.seek(SeekFrom::Start(s.prefix as u64)).unwrap();
            f
        };

        two_then_rest(&s, &mut at_prefix(), "&mut File");
        // `&File` by value.
        let f = at_prefix();
        let big = Array2::<f64>::read_npy(&f).unwrap();
        assert_eq!(big, s.big, "&File");
        assert_eq!(
            (&f).stream_position().unwrap() as usize,
            s.end - s.small.len() * 8 - 128,
            "&File: past the big array"
        );

        // A buffer that already holds the start of the header (and, for the small array,
        // the whole of it and the trailer).
        let mut b = BufReader::with_capacity(1 << 20, at_prefix());
        assert!(!b.fill_buf_is_empty());
        two_then_rest(&s, &mut b, "&mut BufReader<File>");

        let mut bytes = &s.bytes[s.prefix..];
        two_then_rest(&s, &mut bytes, "&mut &[u8]");

        let mut c = Cursor::new(&s.bytes[..]);
        c.set_position(s.prefix as u64);
        two_then_rest(&s, &mut c, "&mut Cursor<&[u8]>");
        assert_eq!(c.position() as usize, s.bytes.len());

        let mut c = Cursor::new(s.bytes.clone());
        c.set_position(s.prefix as u64);
        two_then_rest(&s, &mut c, "&mut Cursor<Vec<u8>>");

        // By value: one array, as users call it.
        let a = Array2::<f64>::read_npy(at_prefix()).unwrap();
        assert_eq!(a, s.big, "File by value ({order})");
        let a = Array2::<f64>::read_npy(BufReader::new(at_prefix())).unwrap();
        assert_eq!(a, s.big, "BufReader<File> by value ({order})");
        let a = ArrayD::<f64>::read_npy(&s.bytes[s.prefix..]).unwrap();
        assert_eq!(a, s.big.clone().into_dyn(), "&[u8] by value ({order})");
        let a = Array2::<f64>::read_npy(Cursor::new(s.bytes[s.prefix..].to_vec())).unwrap();
        assert_eq!(a, s.big, "Cursor<Vec<u8>> by value ({order})");
        assert!(s.end < s.bytes.len());
    }
}

/// A `BufReader` whose buffer is filled before the read starts.
trait FillFirst {
    fn fill_buf_is_empty(&mut self) -> bool;
}

impl<R: Read> FillFirst for BufReader<R> {
    fn fill_buf_is_empty(&mut self) -> bool {
        std::io::BufRead::fill_buf(self).unwrap().is_empty()
    }
}

#[test]
fn a_file_or_bytes_cut_short_fail_as_truncated_through_every_door() {
    let dir = Scratch::new("doors-truncated");
    let s = stream(&dir, "ascontiguousarray");
    // The big array less its last byte.
    let cut = &s.bytes[s.prefix..s.prefix + s.big.len() * 8 + 128 - 1];
    std::fs::write(dir.path("cut.npy"), cut).unwrap();
    fn truncated<E: Into<Error>>(r: Result<Array2<f64>, E>, name: &str) {
        match r.map_err(Into::into) {
            Err(e) if e.kind() == ErrorKind::Truncated => {}
            other => panic!("{name}: {other:?}"),
        }
    }
    truncated(
        Array2::read_npy(File::open(dir.path("cut.npy")).unwrap()),
        "File",
    );
    truncated(
        Array2::read_npy(BufReader::new(File::open(dir.path("cut.npy")).unwrap())),
        "BufReader<File>",
    );
    truncated(Array2::read_npy(cut), "&[u8]");
    truncated(Array2::read_npy(Cursor::new(cut)), "Cursor<&[u8]>");
    truncated(ndnpy::read_npy(dir.path("cut.npy")), "path");
}

#[cfg(unix)]
#[test]
fn a_file_that_is_a_pipe_is_read_as_a_stream() {
    let dir = Scratch::new("doors-pipe");
    let s = stream(&dir, "ascontiguousarray");
    let fifo = dir.path("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let body = s.bytes[s.prefix..s.end].to_vec();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || File::create(fifo).unwrap().write_all(&body).unwrap())
    };
    let mut f = File::open(&fifo).unwrap();
    let big = Array2::<f64>::read_npy(&mut f).unwrap();
    let mut b = BufReader::new(f);
    let small = Array2::<f64>::read_npy(&mut b).unwrap();
    writer.join().unwrap();
    assert_eq!(big, s.big);
    assert_eq!(small, s.small);
}

#[test]
fn every_writer_door_writes_np_save_bytes_after_what_came_before() {
    let dir = Scratch::new("doors-write");
    numpy(
        &dir.0,
        &format!(
            "a = np.asfortranarray((np.arange(3 * {COLS}) * 0.5).reshape(3, {COLS}))\n\
             np.save(d + '/want.npy', a)"
        ),
    );
    let want = dir.read("want.npy");
    let a = Array2::<f64>::read_npy(&want[..]).unwrap();
    let d = DynArray::read_npy(&want[..]).unwrap();
    let mut expected = PREFIX.to_vec();
    expected.extend_from_slice(&want);
    expected.extend_from_slice(TRAILER);

    let check = |name: &str| {
        assert!(dir.read("out") == expected, "{name}");
    };
    let mut f = File::create(dir.path("out")).unwrap();
    f.write_all(PREFIX).unwrap();
    a.write_npy(&mut f).unwrap();
    f.write_all(TRAILER).unwrap();
    drop(f);
    check("&mut File");

    let mut f = File::create(dir.path("out")).unwrap();
    f.write_all(PREFIX).unwrap();
    a.view().write_npy(&f).unwrap();
    (&f).write_all(TRAILER).unwrap();
    drop(f);
    check("&File");

    // The prefix is still in the BufWriter's buffer when the array is written.
    let mut w = BufWriter::new(File::create(dir.path("out")).unwrap());
    w.write_all(PREFIX).unwrap();
    a.write_npy(&mut w).unwrap();
    w.write_all(TRAILER).unwrap();
    drop(w);
    check("&mut BufWriter<File>");

    let mut w = BufWriter::new(File::create(dir.path("out")).unwrap());
    w.write_all(PREFIX).unwrap();
    d.write_npy(&mut w).unwrap();
    w.write_all(TRAILER).unwrap();
    drop(w);
    check("DynArray into &mut BufWriter<File>");

    // By value, as users call it.
    a.write_npy(File::create(dir.path("out")).unwrap()).unwrap();
    assert!(dir.read("out") == want, "File by value");
    a.write_npy(BufWriter::new(File::create(dir.path("out")).unwrap()))
        .unwrap();
    assert!(dir.read("out") == want, "BufWriter<File> by value");
}
