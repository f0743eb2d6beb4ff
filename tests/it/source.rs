//! `NpyReader::new`: an `.npy` read through a byte source of a named type (`ReadAt`)
//! gives what `read_npy` gives, by every source this crate implements and by a caller's own,
//! reads a caller's source by its `read_many` in batches, and fails cleanly when the source
//! lies about its length or fails.

use crate::common::{numpy, Scratch};
use ndarray::{s, Array1, Array2, ArrayD, IxDyn, Slice, SliceInfo, SliceInfoElem};
use ndnpy::source::{ReadAt, Seeking};
use ndnpy::{ErrorKind, NpyReader, ReadNpyExt};
use std::fs::File;
use std::io::{self, BufReader, Cursor};

/// numpy's fixtures: both byte orders, both orders, a sliced (non-contiguous) source, 0-d,
/// empty.
const FIXTURES: &[&str] = &[
    "f8_le_c_2x3x4",
    "f8_be_f_3x4",
    "i4_be_c_2x3x4",
    "f8_le_s_4x3",
    "i4_le_0d",
    "f8_le_e03",
];

/// A file the caller wraps in a type of its own: only `size` and `read_at`, so it takes the
/// generic path (one read a merged window), counting its reads.
struct Wrapped {
    file: File,
    reads: usize,
}

impl ReadAt for Wrapped {
    fn size(&mut self) -> io::Result<u64> {
        self.file.size()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.reads += 1;
        self.file.read_at(offset, buf)
    }
}

/// Bytes in memory that read several ranges in one call, as a store would, counting calls.
struct Batching {
    bytes: Vec<u8>,
    batches: usize,
    ranges: usize,
}

impl ReadAt for Batching {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.bytes.read_at(offset, buf)
    }

    fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        self.batches += 1;
        self.ranges += reads.len();
        for (offset, buf) in reads.iter_mut() {
            self.bytes.read_at(*offset, buf)?;
        }
        Ok(())
    }
}

/// The elements' bits (numpy's fixtures hold NaN, which equals nothing).
fn bits<S: ndarray::Data<Elem = f64>, D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<S, D>,
) -> ArrayD<u64> {
    a.mapv(f64::to_bits).into_dyn()
}

/// A selection of `ndim` axes: `first` along the first, every other whole.
fn first_axis(ndim: usize, first: Slice) -> SliceInfo<Vec<SliceInfoElem>, IxDyn, IxDyn> {
    let mut elems = vec![SliceInfoElem::from(Slice::from(..)); ndim];
    elems[0] = first.into();
    SliceInfo::try_from(elems).unwrap()
}

/// Every read of `NpyReader` through `npy` agrees with the whole array `want`.
fn agrees<S: ReadAt>(mut npy: NpyReader<S>, want: &ArrayD<f64>, what: &str) {
    let all: ArrayD<f64> = npy.read_array().unwrap();
    assert_eq!(bits(&all), bits(want), "{what}: the whole array");
    if want.ndim() == 0 {
        let one = npy.read_element::<f64>(&[]).unwrap();
        assert_eq!(one.to_bits(), want[[]].to_bits(), "{what}");
        return;
    }
    let reversed = first_axis(want.ndim(), Slice::new(0, None, -1));
    let rev: ArrayD<f64> = npy.read_slice(&reversed).unwrap();
    assert_eq!(bits(&rev), bits(&want.slice(&reversed)), "{what}: reversed");
    if want.shape()[0] > 1 {
        let from_one = first_axis(want.ndim(), Slice::from(1..));
        let dynamic = npy.read_slice_dyn(&from_one).unwrap();
        let dynamic = dynamic.as_array::<f64>().unwrap().to_owned();
        assert_eq!(
            bits(&dynamic),
            bits(&want.slice(&from_one)),
            "{what}: runtime-typed"
        );
    }
    let mut into = ArrayD::<f64>::zeros(want.raw_dim());
    npy.read_into(into.view_mut()).unwrap();
    assert_eq!(bits(&into), bits(want), "{what}: into a buffer");
    if !want.is_empty() {
        let last: Vec<usize> = want.shape().iter().map(|&n| n - 1).collect();
        let one = npy.read_element::<f64>(&last).unwrap();
        assert_eq!(one.to_bits(), want[&last[..]].to_bits(), "{what}");
        let rows: ArrayD<f64> = npy.read_rows(1..2).unwrap();
        let axis = if npy.info().header.fortran_order {
            want.ndim() - 1
        } else {
            0
        };
        let mut expect = want.view();
        expect.slice_axis_inplace(ndarray::Axis(axis), (1..2).into());
        assert_eq!(bits(&rows), bits(&expect), "{what}: rows");
    }
}

#[test]
fn every_source_reads_numpys_fixtures_as_read_npy_does() {
    for name in FIXTURES {
        let path = format!("testdata/{name}.npy");
        let want: ArrayD<f64> = match ArrayD::<f64>::read_npy(File::open(&path).unwrap()) {
            Ok(a) => a,
            Err(_) => ArrayD::<i32>::read_npy(File::open(&path).unwrap())
                .unwrap()
                .mapv(f64::from),
        };
        let is_int = name.starts_with("i4");
        let bytes = std::fs::read(&path).unwrap();
        // The elements are read as f64; the i4 fixtures through a dtype-converting DynArray
        // would not be: read them as i32 and compare converted.
        if is_int {
            let mut npy = NpyReader::new(&bytes[..]).unwrap();
            let all: ArrayD<i32> = npy.read_array().unwrap();
            assert_eq!(all.mapv(f64::from), want, "{name}: bytes");
            if want.ndim() != 3 {
                continue;
            }
            let mut npy = NpyReader::new(File::open(&path).unwrap()).unwrap();
            let all: ArrayD<i32> = npy.read_slice(s![.., .., ..;2]).unwrap().into_dyn();
            assert_eq!(
                all.mapv(f64::from),
                want.slice(s![.., .., ..;2]).into_dyn(),
                "{name}: file"
            );
            continue;
        }
        agrees(
            NpyReader::new(File::open(&path).unwrap()).unwrap(),
            &want,
            "File",
        );
        let file = File::open(&path).unwrap();
        agrees(NpyReader::new(&file).unwrap(), &want, "&File");
        agrees(NpyReader::new(&bytes[..]).unwrap(), &want, "&[u8]");
        agrees(NpyReader::new(bytes.clone()).unwrap(), &want, "Vec<u8>");
        let seeking = Seeking::new(Cursor::new(bytes.clone()));
        agrees(NpyReader::new(seeking).unwrap(), &want, "Seeking<Cursor>");
        let seeking = Seeking::new(BufReader::new(File::open(&path).unwrap()));
        agrees(
            NpyReader::new(seeking).unwrap(),
            &want,
            "Seeking<BufReader>",
        );
        let wrapped = Wrapped {
            file: File::open(&path).unwrap(),
            reads: 0,
        };
        agrees(NpyReader::new(wrapped).unwrap(), &want, "a caller's own");
        let mut borrowed = Batching {
            bytes: bytes.clone(),
            batches: 0,
            ranges: 0,
        };
        agrees(NpyReader::new(&mut borrowed).unwrap(), &want, "&mut of one");
    }
}

/// numpy's (600, 50) f64 array: a column is 600 runs, over the count a file splits over two
/// threads.
fn columns(dir: &Scratch) -> (std::path::PathBuf, Array2<f64>) {
    numpy(
        &dir.0,
        "np.save(d + '/cols.npy', np.arange(600 * 50, dtype='<f8').reshape(600, 50) / 4)",
    );
    let want = Array2::from_shape_fn((600, 50), |(i, j)| (i * 50 + j) as f64 / 4.0);
    (dir.path("cols.npy"), want)
}

#[test]
fn a_column_of_many_runs_is_read_by_each_sources_own_path() {
    let dir = Scratch::new("source-columns");
    let (path, want) = columns(&dir);
    let bytes = std::fs::read(&path).unwrap();

    // A file, on two threads where it can.
    let mut npy = NpyReader::new(File::open(&path).unwrap()).unwrap();
    let col: Array1<f64> = npy.read_slice(s![.., 7]).unwrap();
    assert_eq!(col, want.column(7));

    // A source that batches: the runs are merged (a page apart) and handed over together,
    // not one call each.
    let batching = Batching {
        bytes: bytes.clone(),
        batches: 0,
        ranges: 0,
    };
    let mut npy = NpyReader::new(batching).unwrap();
    let col: Array1<f64> = npy.read_slice(s![.., 7]).unwrap();
    assert_eq!(col, want.column(7));
    let source = npy.into_inner();
    assert!(source.batches >= 1);
    assert!(source.batches < 600 / 10, "{} batches", source.batches);
    assert!(source.ranges < 600, "{} ranges: merged", source.ranges);

    // A caller's own file with only `read_at`: merged windows, far fewer reads than runs.
    let wrapped = Wrapped {
        file: File::open(&path).unwrap(),
        reads: 0,
    };
    let mut npy = NpyReader::new(wrapped).unwrap();
    let col: ArrayD<f64> = npy.read_slice(s![.., 7]).unwrap().into_dyn();
    assert_eq!(col, want.column(7).into_dyn());
    let reads = npy.into_inner().reads;
    assert!(reads < 600 / 10, "{reads} reads for 600 runs");

    // Every 3rd column of every 2nd row, of bytes in memory: copied straight.
    let mut npy = NpyReader::new(&bytes[..]).unwrap();
    let picked = npy.read_slice_dyn(s![..;2, ..;3]).unwrap();
    let picked = picked
        .as_array::<f64>()
        .unwrap()
        .to_owned()
        .into_dimensionality::<IxDyn>();
    assert_eq!(picked.unwrap(), want.slice(s![..;2, ..;3]).into_dyn());
}

#[test]
fn a_source_shorter_than_its_header_says_is_truncated_and_a_failing_one_an_io_error() {
    let bytes = std::fs::read("testdata/f8_le_c_2x3x4.npy").unwrap();
    let short = &bytes[..bytes.len() - 8];
    let mut npy = NpyReader::new(short).unwrap();
    let e = npy.read_array::<f64, ndarray::Ix3>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    // The first rows are all there and read.
    let first: ArrayD<f64> = npy.read_rows(0..1).unwrap();
    assert_eq!(first.shape(), [1, 3, 4]);

    /// Says it holds more than it does: its reads past the end fail, so the window read
    /// ahead of the header does, and the open fails with the source's error.
    #[derive(Debug)]
    struct Lying(Vec<u8>);
    impl ReadAt for Lying {
        fn size(&mut self) -> io::Result<u64> {
            Ok(u64::MAX / 2)
        }
        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.0.read_at(offset, buf)
        }
    }
    let e = NpyReader::new(Lying(short.to_vec())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");

    /// Fails every read at or past `.1`.
    #[derive(Debug)]
    struct Failing(Vec<u8>, std::rc::Rc<std::cell::Cell<u64>>);
    impl ReadAt for Failing {
        fn size(&mut self) -> io::Result<u64> {
            Ok(self.0.len() as u64)
        }
        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            if offset >= self.1.get() {
                return Err(io::Error::other("the store went away"));
            }
            self.0.read_at(offset, buf)
        }
    }
    let data_at = NpyReader::new(&bytes[..]).unwrap().info().data_offset;
    let fail_at = std::rc::Rc::new(std::cell::Cell::new(0));
    // A source that fails at once fails the open; one that fails only in the data fails the
    // read.
    let e = NpyReader::new(Failing(bytes.clone(), fail_at.clone())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    fail_at.set(u64::MAX);
    let mut npy = NpyReader::new(Failing(bytes.clone(), fail_at.clone())).unwrap();
    fail_at.set(data_at);
    let e = npy.read_slice::<f64, _>(s![1, .., ..]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert!(e.to_string().contains("the store went away"), "{e}");
}
