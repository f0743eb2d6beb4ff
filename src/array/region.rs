//! N-d region reads in ndarray's slice syntax (`s![..]`): the ndarray layer's side. Each
//! selection becomes the engine's ([`Select`], one per axis), which `source::region` plans as
//! runs of bytes and serves as a [`Read`]; the runs' bytes are decoded by the element readers
//! every other read uses, into that major's arrays.

use std::io::{self, Read};
use std::ops::Range;

use ndarray::{Array, ArrayViewMutD, IxDyn, SliceInfoElem};

use ndnpy_engine::source::region::Select;
pub(crate) use ndnpy_engine::source::region::{Plan, RegionRead};

use crate::array::dynamic::DynArray;
use crate::array::read::{array_from_vec, read_body_into};
use ndnpy_engine::base::error::{truncated, Error, UsageError};
use ndnpy_engine::element::{Input, ReadableElement};
use ndnpy_engine::format::header::{growth_axis, Header, HeaderInfo};
#[cfg(unix)]
use ndnpy_engine::source::FileAt;
use ndnpy_engine::source::{Merge, Positioned, ReadAt, Section, Seeking};

/// The engine's selection of ndarray's slice elements, one per axis of the file plus any
/// `NewAxis`.
pub(crate) fn select(elems: &[SliceInfoElem]) -> Vec<Select> {
    elems
        .iter()
        .map(|e| match *e {
            SliceInfoElem::Slice { start, end, step } => Select::Slice { start, end, step },
            SliceInfoElem::Index(i) => Select::Index(i),
            SliceInfoElem::NewAxis => Select::NewAxis,
        })
        .collect()
}

/// [`Plan::new`] of ndarray's slice elements.
pub(crate) fn plan_of(header: &Header, elems: &[SliceInfoElem]) -> Result<Plan, Error> {
    Plan::new(header, &select(elems))
}

/// Plans `selection` against `header` and checks that the result has `D`'s number of axes:
/// the errors a region read gives before it reads anything.
pub(crate) fn check<D: ndarray::Dimension>(
    header: &Header,
    selection: &[SliceInfoElem],
) -> Result<Plan, Error> {
    let plan = plan_of(header, selection)?;
    crate::array::nd::dimension::<D>(&plan.shape)?;
    Ok(plan)
}

/// The selection of steps `rows` along the growth axis (the first axis of a C-order file,
/// the last of a Fortran-order one), every other axis whole: what `read_rows` reads.
pub(crate) fn rows(header: &Header, rows: Range<usize>) -> Result<Vec<SliceInfoElem>, Error> {
    let axis = growth_axis(header)?;
    let len = header.shape[axis];
    if rows.start > rows.end || rows.end > len {
        return Err(UsageError::OutOfBounds {
            requested: format!("{rows:?}"),
            len,
        }
        .into());
    }
    let mut elems = whole(header);
    // Both fit in isize: they are at most an axis length of an array whose size fits.
    elems[axis] = SliceInfoElem::Slice {
        start: rows.start as isize,
        end: Some(rows.end as isize),
        step: 1,
    };
    Ok(elems)
}

/// The selection of the one element at `index` (one index per dimension): what
/// `read_element` reads.
pub(crate) fn element(header: &Header, index: &[usize]) -> Result<Vec<SliceInfoElem>, Error> {
    let shape = &header.shape;
    if index.len() != shape.len() || index.iter().zip(shape).any(|(&i, &d)| i >= d) {
        return Err(UsageError::OutOfBounds {
            requested: format!("{index:?}"),
            len: shape.iter().product(),
        }
        .into());
    }
    // Each index is below its axis's length, which fits in isize.
    Ok(index
        .iter()
        .map(|&i| SliceInfoElem::Index(i as isize))
        .collect())
}

/// The selection of the whole array.
pub(crate) fn whole(header: &Header) -> Vec<SliceInfoElem> {
    let all = SliceInfoElem::Slice {
        start: 0,
        end: None,
        step: 1,
    };
    vec![all; header.shape.len()]
}

/// Reads the selection `elems` of the array `info` describes from `source` (offsets counted
/// from the data's first byte), as an array of dimension `D` in the file's layout: the array
/// `read_npy(..)?.slice(elems).to_owned()` would give. `available` is how many bytes of data
/// the source holds (`None`: the caller checked it holds them all); a selection reaching past
/// them is [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) before any read. Every
/// typed read of part or all of an `.npy`, local or remote, is one of these.
#[cfg_attr(not(feature = "mmap"), allow(dead_code))] // the map's read
pub(crate) fn read_region<A, D, S>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    source: S,
    merge: Merge,
    available: Option<u64>,
) -> Result<Array<A, D>, Error>
where
    A: ReadableElement,
    D: ndarray::Dimension,
    S: ReadAt,
{
    let plan = planned::<D>(info, elems, available)?;
    decode(info, &plan, RegionRead::new(&plan, source, merge))
}

/// [`read_region`] as a [`DynArray`]: the elements of any dtype the selection covers (not
/// objects, whose elements are pickled as a whole).
#[cfg_attr(not(feature = "mmap"), allow(dead_code))]
pub(crate) fn read_region_dyn<S: ReadAt>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    source: S,
    merge: Merge,
    available: Option<u64>,
) -> Result<DynArray, Error> {
    let plan = planned::<IxDyn>(info, elems, available)?;
    decode_dyn(info, &plan, &mut RegionRead::new(&plan, source, merge))
}

/// The plan of `elems` ([`check`]), and the truncation error of one that reaches past the
/// `available` bytes of data.
fn planned<D: ndarray::Dimension>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    available: Option<u64>,
) -> Result<Plan, Error> {
    let plan = check::<D>(&info.header, elems)?;
    if let Some(found) = available.filter(|&n| n < plan.extent()) {
        return Err(truncated(plan.extent(), found));
    }
    Ok(plan)
}

/// The elements `reader` (the bytes of `plan`'s runs) serves, decoded and shaped as `plan`
/// says.
fn decode<A, D, R>(info: &HeaderInfo, plan: &Plan, mut reader: R) -> Result<Array<A, D>, Error>
where
    A: ReadableElement,
    D: ndarray::Dimension,
    R: Read,
{
    let header = &info.header;
    let data = A::read_vec(
        &mut reader,
        &header.dtype,
        plan.count,
        Input::new(Some(plan.bytes())),
    )?;
    array_from_vec(
        data,
        plan.shape.clone(),
        header.fortran_order,
        header.dtype.itemsize(),
    )
}

/// The elements `reader` serves as a [`DynArray`] of `plan`'s shape: the data of an array of
/// that shape, in the file's dtype and order.
fn decode_dyn(info: &HeaderInfo, plan: &Plan, reader: &mut dyn Read) -> Result<DynArray, Error> {
    let header = Header {
        dtype: info.header.dtype.clone(),
        fortran_order: info.header.fortran_order,
        shape: plan.shape.clone(),
    };
    let part = crate::array::dynamic::in_memory(header)?;
    DynArray::read_body(reader, part, Input::new(Some(plan.bytes())))
}

/// The fewest runs for which a file's region read is split over two threads ([`Halves`]):
/// fewer are read in less time than a thread takes to start.
#[cfg(unix)]
const SPLIT_MIN_RUNS: u64 = 256;

/// The bytes of a plan's runs from a file, for a reader that may take them all at once:
/// then the first half of the runs is read on this thread and the second on another, each
/// into its own part of the reader's buffer, with its own windows. A scattered read of a
/// file is mostly system calls and the kernel's copies out of the page cache, which then run
/// on two cores. A reader that asks for less (the decoders of strings, dates and records
/// with conversions) is served by one [`RegionRead`].
#[cfg(unix)]
struct Halves<'p, 'f> {
    plan: &'p Plan,
    source: FileAt<'f>,
    /// `None` until the first read; then the reader of what is left (nothing, after a
    /// split read).
    rest: Option<RegionRead<'p, FileAt<'f>>>,
}

#[cfg(unix)]
impl Read for Halves<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let plan = self.plan;
        if self.rest.is_none() {
            let total = plan.bytes();
            let runs = plan.run_count();
            if (buf.len() as u64) < total {
                self.rest = Some(RegionRead::new(plan, self.source, Merge::LOCAL));
            } else {
                // Nothing is left after the split read.
                let empty = plan.runs_between(runs, runs);
                self.rest = Some(RegionRead::with_runs(empty, self.source, Merge::LOCAL));
                // The whole selection fits in `buf`: `total` is at most its length.
                let (mid_run, total) = (runs / 2, total as usize);
                let mid = (mid_run * plan.run_len) as usize;
                let (first, second) = buf[..total].split_at_mut(mid);
                let source = self.source;
                let half = |from, to, out: &mut [u8]| {
                    let runs = plan.runs_between(from, to);
                    RegionRead::with_runs(runs, source, Merge::LOCAL).read_exact(out)
                };
                // The second half goes to the thread, or back to this one if none can be
                // started (a thread limit, no memory).
                let second = std::sync::Mutex::new(Some(second));
                let take = || second.lock().unwrap_or_else(|e| e.into_inner()).take();
                std::thread::scope(|s| {
                    let other = std::thread::Builder::new()
                        .spawn_scoped(s, || take().map_or(Ok(()), |out| half(mid_run, runs, out)));
                    let here = half(0, mid_run, first);
                    let there = match other {
                        Ok(other) => other
                            .join()
                            .unwrap_or_else(|_| Err(io::Error::other("a reading thread panicked"))),
                        Err(_) => take().map_or(Ok(()), |out| half(mid_run, runs, out)),
                    };
                    here.and(there)
                })?;
                return Ok(total);
            }
        }
        match &mut self.rest {
            Some(rest) => rest.read(buf),
            None => Ok(0),
        }
    }
}

/// Reads the selection `elems` from `inner`, a source whose data starts at `start` and holds
/// `available` bytes (as [`read_region`]), as the door saw it (a reader's guess,
/// [`ndnpy_engine::source::positioned`], or a `SourceReader`'s own): a file by positioned
/// reads, a selection of many runs on two threads as `threads` allows ([`Halves`]); bytes in
/// memory copied straight; an object in a store by concurrent ranged requests; a source named
/// by its type as it reads; anything else by seeking.
pub(crate) fn read_from<A, D, R>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    inner: Positioned<'_, R>,
    start: u64,
    available: Option<u64>,
    threads: usize,
) -> Result<Array<A, D>, Error>
where
    A: ReadableElement,
    D: ndarray::Dimension,
    R: Read + io::Seek,
{
    let at = (start, available, threads);
    let typed = Typed::<A, D>(info, std::marker::PhantomData);
    read_from_with::<D, _, _>(info, elems, inner, at, typed)
}

/// [`read_from`] as a [`DynArray`] (see [`read_region_dyn`]).
pub(crate) fn read_from_dyn<R: Read + io::Seek>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    inner: Positioned<'_, R>,
    start: u64,
    available: Option<u64>,
    threads: usize,
) -> Result<DynArray, Error> {
    let at = (start, available, threads);
    read_from_with::<IxDyn, _, _>(info, elems, inner, at, Dyn(info))
}

/// [`read_from`] into `out`, memory the caller owns, which must have the selection's shape
/// (checked before anything is read).
pub(crate) fn read_from_into<A: ReadableElement, R: Read + io::Seek>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    inner: Positioned<'_, R>,
    (start, available, threads): (u64, Option<u64>, usize),
    out: ArrayViewMutD<'_, A>,
) -> Result<(), Error> {
    let at = (start, available, threads);
    read_from_with::<IxDyn, _, _>(info, elems, inner, at, IntoView(info, out))
}

/// What a region read makes of the bytes of a plan's runs: [`decode`]'s typed array or
/// [`decode_dyn`]'s `DynArray`, each generic over the reader (monomorphic, as the hot
/// paths of small reads want).
trait Decoder {
    type Out;
    fn decode<R: Read>(self, plan: &Plan, reader: R) -> Result<Self::Out, Error>;
}

/// [`decode`] of the array `.0` describes.
struct Typed<'i, A, D>(&'i HeaderInfo, std::marker::PhantomData<(A, D)>);

impl<A: ReadableElement, D: ndarray::Dimension> Decoder for Typed<'_, A, D> {
    type Out = Array<A, D>;
    fn decode<R: Read>(self, plan: &Plan, reader: R) -> Result<Array<A, D>, Error> {
        decode(self.0, plan, reader)
    }
}

/// [`decode_dyn`] of the array `.0` describes.
struct Dyn<'i>(&'i HeaderInfo);

impl Decoder for Dyn<'_> {
    type Out = DynArray;
    fn decode<R: Read>(self, plan: &Plan, mut reader: R) -> Result<DynArray, Error> {
        decode_dyn(self.0, plan, &mut reader)
    }
}

/// [`read_body_into`] of the selection `.0` plans, into the caller's `.1`.
struct IntoView<'i, 'o, A>(&'i HeaderInfo, ArrayViewMutD<'o, A>);

impl<A: ReadableElement> Decoder for IntoView<'_, '_, A> {
    type Out = ();
    fn decode<R: Read>(self, plan: &Plan, mut reader: R) -> Result<(), Error> {
        let header = &self.0.header;
        let layout = (&header.dtype, header.fortran_order, &plan.shape[..]);
        read_body_into(&mut reader, layout, self.1)
    }
}

/// [`read_from`] as the selection's bytes as the file holds them (its dtype and byte order),
/// in C order whatever the file's: what a conversion that takes `.npy` bytes as they are
/// reads.
#[cfg(feature = "parquet")]
pub(crate) fn read_from_bytes<R: Read + io::Seek>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    inner: Positioned<'_, R>,
    at: (u64, Option<u64>, usize),
) -> Result<Vec<u8>, Error> {
    read_from_with::<IxDyn, _, _>(info, elems, inner, at, Bytes(info))
}

/// The bytes of a plan's runs, in C order, of the array `.0` describes.
#[cfg(feature = "parquet")]
struct Bytes<'i>(&'i HeaderInfo);

#[cfg(feature = "parquet")]
impl Decoder for Bytes<'_> {
    type Out = Vec<u8>;
    fn decode<R: Read>(self, plan: &Plan, mut reader: R) -> Result<Vec<u8>, Error> {
        let len = usize::try_from(plan.bytes())
            .map_err(|_| Error::out_of_memory(usize::MAX, "the selection"))?;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| Error::out_of_memory(len, "the selection"))?;
        data.resize(len, 0);
        ndnpy_engine::element::bulk::read_exact_into(&mut reader, &mut data)?;
        let header = &self.0.header;
        if header.fortran_order && plan.shape.len() > 1 {
            return ndnpy_engine::format::layout::fortran_to_c(
                &data,
                &plan.shape,
                header.dtype.itemsize(),
            );
        }
        Ok(data)
    }
}

/// The engine of [`read_from`], [`read_from_dyn`] and [`read_from_into`]: the plan of `elems` (checked as a
/// selection of dimension `D`), the reader of its bytes that the door's source gives, and
/// `decoder`'s work on the two. `at` is the data's start in `inner`, the bytes it holds, and the
/// threads a file's read may use.
fn read_from_with<D, T, R>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    inner: Positioned<'_, R>,
    (start, available, threads): (u64, Option<u64>, usize),
    decoder: T,
) -> Result<T::Out, Error>
where
    D: ndarray::Dimension,
    T: Decoder,
    R: Read + io::Seek,
{
    #[cfg(not(unix))]
    let _ = threads;
    match inner {
        #[cfg(unix)]
        Positioned::File(file) => {
            from_file::<D, T>(info, elems, file, (start, available, threads), decoder)
        }
        Positioned::Bytes(all) => {
            let data = usize::try_from(start)
                .ok()
                .and_then(|s| all.get(s..))
                .unwrap_or(&[]);
            let held = data.len() as u64;
            let available = Some(available.map_or(held, |a| a.min(held)));
            let plan = planned::<D>(info, elems, available)?;
            decoder.decode(&plan, RegionRead::new(&plan, data, Merge::MEMORY))
        }
        Positioned::Ranged(file) => {
            let merge = file.source().merge();
            let plan = planned::<D>(info, elems, available)?;
            decoder.decode(&plan, RegionRead::new(&plan, file.at(start), merge))
        }
        Positioned::Other(inner) => {
            let plan = planned::<D>(info, elems, available)?;
            let source = Seeking::from(inner, start);
            decoder.decode(&plan, RegionRead::new(&plan, source, Merge::LOCAL))
        }
        Positioned::Source(source) => {
            #[cfg(unix)]
            if let Some((file, base)) = source.file() {
                let start = base
                    .checked_add(start)
                    .ok_or_else(|| truncated(u64::MAX, 0))?;
                return from_file::<D, T>(info, elems, file, (start, available, threads), decoder);
            }
            let merge = source.merge();
            let plan = planned::<D>(info, elems, available)?;
            let source = Section::new(source, start, u64::MAX);
            decoder.decode(&plan, RegionRead::new(&plan, source, merge))
        }
    }
}

/// [`read_from_with`] of a file, by positioned reads: a selection of many runs on two
/// threads as `threads` allows ([`Halves`]).
#[cfg(unix)]
fn from_file<D: ndarray::Dimension, T: Decoder>(
    info: &HeaderInfo,
    elems: &[SliceInfoElem],
    file: &std::fs::File,
    (start, available, threads): (u64, Option<u64>, usize),
    decoder: T,
) -> Result<T::Out, Error> {
    let source = FileAt { file, start };
    let plan = planned::<D>(info, elems, available)?;
    if plan.run_count() < SPLIT_MIN_RUNS || ndnpy_engine::source::pio::parts(threads) < 2 {
        return decoder.decode(&plan, RegionRead::new(&plan, source, Merge::LOCAL));
    }
    let halves = Halves {
        plan: &plan,
        source,
        rest: None,
    };
    decoder.decode(&plan, halves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, ArrayD, IxDyn, NewAxis, ShapeBuilder, SliceArg};
    use ndnpy_engine::base::dtype::DType;

    fn header(shape: &[usize], fortran: bool) -> Header {
        Header {
            dtype: DType::from_descr("'<i4'").unwrap(),
            fortran_order: fortran,
            shape: shape.to_vec(),
        }
    }

    /// `read_region` of a selection of an `i32` array's bytes.
    fn read_slice<I: SliceArg<IxDyn>>(
        info: &HeaderInfo,
        selection: I,
        bytes: &[u8],
        merge: Merge,
    ) -> Result<Array<i32, I::OutDim>, Error> {
        read_region(info, selection.as_ref(), bytes, merge, None)
    }

    /// The array, its bytes in storage order, and its header.
    fn array(shape: &[usize], fortran: bool) -> (ArrayD<i32>, Vec<u8>, HeaderInfo) {
        let n: usize = shape.iter().product();
        let a =
            ArrayD::from_shape_vec(IxDyn(shape).set_f(fortran), (0..n as i32).collect()).unwrap();
        let bytes: Vec<u8> = (0..n as i32).flat_map(|x| x.to_le_bytes()).collect();
        let h = header(shape, fortran);
        let info = HeaderInfo::in_memory(h).unwrap();
        assert_eq!(info.data_len, bytes.len());
        (a, bytes, info)
    }

    fn check(shape: &[usize], sel: &[SliceInfoElem]) {
        for fortran in [false, true] {
            let (a, bytes, info) = array(shape, fortran);
            let want = a.slice(sel).to_owned();
            for merge in [
                Merge::LOCAL,
                Merge::MEMORY,
                Merge {
                    gap: 0,
                    block: 8,
                    batch: 3,
                    batch_bytes: usize::MAX,
                    direct: false,
                },
                Merge {
                    gap: 4,
                    block: 8,
                    batch: 100,
                    batch_bytes: 20,
                    direct: true,
                },
            ] {
                let got: ArrayD<i32> = read_slice(&info, sel, &bytes[..], merge).unwrap();
                assert_eq!(got, want, "{shape:?} {sel:?} fortran {fortran} {merge:?}");
            }
        }
    }

    #[test]
    fn selections_read_what_ndarray_slices() {
        let shape = [4, 3, 5];
        check(&shape, s![1..3, .., ..].as_ref());
        check(&shape, s![.., 2, 1..;2].as_ref());
        check(&shape, s![NewAxis, ..;-1, .., -2..].as_ref());
        check(&shape, s![3..3, .., ..].as_ref());
        check(&shape, s![-1, -1, ..;-2].as_ref());
        check(&shape, s![1..4;2, NewAxis, 0..3;-1, 4].as_ref());
        // A 0-d array, and an empty axis.
        let (a, bytes, info) = array(&[], false);
        let got: ndarray::Array0<i32> = read_slice(&info, s![], &bytes[..], Merge::LOCAL).unwrap();
        assert_eq!(got, a.into_dimensionality().unwrap());
        check(&[0, 3], s![.., 1..2].as_ref());
    }

    #[test]
    fn outside_the_shape_is_a_usage_error_naming_the_axis() {
        let (_, bytes, info) = array(&[4, 3], false);
        for sel in [s![0..5, ..], s![.., 4..4], s![-5.., ..]] {
            let err = read_slice(&info, sel, &bytes[..], Merge::LOCAL).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Usage, "{err}");
            assert!(err.to_string().contains("of axis"), "{err}");
        }
        let err = read_slice(&info, s![.., 3], &bytes[..], Merge::LOCAL).unwrap_err();
        assert!(err.to_string().contains("index 3 of axis 1"), "{err}");
        let err = read_slice(&info, s![..], &bytes[..], Merge::LOCAL).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Usage, "{err}");
    }

    #[test]
    fn rows_are_one_run_and_columns_one_run_a_row() {
        let h = header(&[100, 50], false);
        let p = plan_of(&h, s![10..20, ..].as_ref()).unwrap();
        assert_eq!(p.runs().collect::<Vec<_>>(), [(10 * 200, 10 * 200)]);
        let p = plan_of(&h, s![.., 5..8].as_ref()).unwrap();
        assert_eq!(p.runs().count(), 100);
        assert_eq!(p.runs().nth(1), Some((200 + 20, 12)));
        let p = plan_of(&h, s![3, 4].as_ref()).unwrap();
        assert_eq!(p.runs().collect::<Vec<_>>(), [(3 * 200 + 16, 4)]);
    }

    /// A source that counts its reads.
    struct Counted<'b> {
        bytes: &'b [u8],
        reads: usize,
    }

    impl ReadAt for Counted<'_> {
        fn size(&mut self) -> io::Result<u64> {
            Ok(self.bytes.len() as u64)
        }

        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.reads += 1;
            let mut bytes = self.bytes;
            bytes.read_at(offset, buf)
        }
    }

    /// Counts the batches handed to the source, and the largest.
    struct Batches<'b> {
        bytes: &'b [u8],
        batches: usize,
        windows: usize,
        largest: usize,
    }

    impl ReadAt for Batches<'_> {
        fn size(&mut self) -> io::Result<u64> {
            Ok(self.bytes.len() as u64)
        }

        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.read_many(&mut [(offset, buf)])
        }

        fn read_many(&mut self, reads: &mut [(u64, &mut [u8])]) -> io::Result<()> {
            self.batches += 1;
            self.windows += reads.len();
            let total = reads.iter().map(|(_, b)| b.len()).sum::<usize>();
            self.largest = self.largest.max(total);
            for (offset, buf) in reads.iter_mut() {
                let mut bytes = self.bytes;
                bytes.read_at(*offset, buf)?;
            }
            Ok(())
        }
    }

    #[test]
    fn runs_split_anywhere_are_the_runs_in_order() {
        for (shape, fortran, sel) in [
            (vec![4, 3, 5], false, s![.., ..;2, 1..;2].as_ref().to_vec()),
            (vec![4, 3, 5], true, s![..;-1, 1, ..;3].as_ref().to_vec()),
            (vec![6, 7], false, s![1..6;2, ..;-3].as_ref().to_vec()),
            (vec![2, 3], false, s![.., ..].as_ref().to_vec()),
            (vec![3, 0, 2], false, s![.., .., ..].as_ref().to_vec()),
        ] {
            let h = header(&shape, fortran);
            let plan = plan_of(&h, &sel).unwrap();
            let all: Vec<(u64, u64)> = plan.runs().collect();
            let n = plan.run_count();
            assert_eq!(all.len() as u64, n, "{shape:?} {sel:?}");
            for k in 0..=n {
                let mut joined: Vec<(u64, u64)> = plan.runs_between(0, k).collect();
                joined.extend(plan.runs_between(k, n));
                assert_eq!(joined, all, "{shape:?} {sel:?} split at {k}");
            }
        }
    }

    #[test]
    fn local_windows_are_read_in_batches_of_about_64_kib() {
        // 256 x 1024 i4: every 4th element of every other row, 1 KiB windows 8 KiB apart.
        let (a, bytes, info) = array(&[256, 1024], false);
        let sel = s![..;2, ..;4];
        let plan = plan_of(&info.header, sel.as_ref()).unwrap();
        let source = Batches {
            bytes: &bytes,
            batches: 0,
            windows: 0,
            largest: 0,
        };
        let mut region = RegionRead::new(&plan, source, Merge::LOCAL);
        let mut out = vec![0u8; plan.bytes() as usize];
        region.read_exact(&mut out).unwrap();
        let got: Vec<i32> = out
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, a.slice(sel).iter().copied().collect::<Vec<_>>());
        // 128 windows of 4,084 bytes (a row's selected elements), 17 to a batch: a batch
        // ends with the window that passes 64 KiB.
        assert_eq!(region.source.windows, 128);
        assert_eq!(region.source.batches, 8);
        assert!(region.source.largest < (64 << 10) + 4096);
        // The scratch is reused, never grown past one batch.
        assert!(region.scratch.len() < (64 << 10) + 4096);
    }

    #[test]
    fn a_long_run_read_in_small_pieces_is_read_in_windows_of_a_block() {
        let (_, bytes, info) = array(&[6, 5], false);
        let plan = plan_of(&info.header, s![1..5, ..].as_ref()).unwrap(); // one run, 80 bytes
        let source = Counted {
            bytes: &bytes,
            reads: 0,
        };
        let merge = Merge {
            gap: 0,
            block: 16,
            batch: 2,
            batch_bytes: usize::MAX,
            direct: false,
        };
        let mut region = RegionRead::new(&plan, source, merge);
        let (mut out, mut buf) = (Vec::new(), [0u8; 3]);
        loop {
            let n = region.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out, bytes[20..100]);
        assert_eq!(region.source.reads, 5); // 80 bytes in windows of 16, not 27 reads of 3

        // A reader asking for a block or more gets it straight from the source.
        let source = Counted {
            bytes: &bytes,
            reads: 0,
        };
        let mut region = RegionRead::new(&plan, source, merge);
        let mut all = [0u8; 80];
        region.read_exact(&mut all).unwrap();
        assert_eq!(all[..], bytes[20..100]);
        assert_eq!(region.source.reads, 1);
    }

    #[test]
    fn memory_runs_are_gathered_in_batches_whatever_the_reader_asks_for() {
        // Runs of 4 bytes (one element) and of 12 (three), over 64 of them: several batches.
        let (a, bytes, info) = array(&[9, 50, 7], false);
        for sel in [s![..;2, ..;3, 1..;2], s![..;-1, 1.., 2..5]].map(|s| s.as_ref().to_vec()) {
            let want: Vec<u8> = a
                .slice(&sel[..])
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            let plan = plan_of(&info.header, &sel).unwrap();
            assert!(plan.run_count() > 64, "{sel:?}");
            // Whole, then in pieces that split runs and batches anywhere.
            for piece in [want.len(), 1, 3, 5, 13, 257] {
                let mut region = RegionRead::new(&plan, &bytes[..], Merge::MEMORY);
                let mut got = vec![0u8; want.len()];
                got.chunks_mut(piece)
                    .for_each(|c| region.read_exact(c).unwrap());
                assert_eq!(region.read(&mut [0]).unwrap(), 0);
                assert_eq!(got, want, "{sel:?} in pieces of {piece}");
            }
        }
        // Bytes shorter than the plan: an error at the first run past them, never a panic.
        let plan = plan_of(&info.header, s![.., ..;3, ..].as_ref()).unwrap();
        let short = &bytes[..bytes.len() - 30];
        let mut out = vec![0u8; plan.bytes() as usize];
        let err = RegionRead::new(&plan, short, Merge::MEMORY)
            .read_exact(&mut out)
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_run_with_no_neighbour_goes_straight_into_the_destination() {
        let (_, bytes, info) = array(&[64, 5], false);
        let merge = Merge {
            gap: 4,
            block: 1 << 20,
            batch: 1,
            batch_bytes: 0,
            direct: true,
        };
        // Rows 10..20: one run, shorter than a block.
        let plan = plan_of(&info.header, s![10..20, ..].as_ref()).unwrap();
        let source = Counted {
            bytes: &bytes,
            reads: 0,
        };
        let mut region = RegionRead::new(&plan, source, merge);
        let mut out = [0u8; 200];
        region.read_exact(&mut out).unwrap();
        assert_eq!(out[..], bytes[200..400]);
        assert_eq!(region.source.reads, 1);
        assert_eq!(region.scratch.capacity(), 0); // no window allocated

        // Elements 4 bytes apart merge into one window; rows far apart are read alone.
        let plan = plan_of(&info.header, s![..;8, ..;2].as_ref()).unwrap();
        let source = Counted {
            bytes: &bytes,
            reads: 0,
        };
        let mut region = RegionRead::new(&plan, source, merge);
        let mut out = vec![0u8; plan.bytes() as usize];
        region.read_exact(&mut out).unwrap();
        assert_eq!(region.source.reads, 8); // one window a row

        // A source that batches its windows (remote) still takes a last run straight: a band
        // of rows is fetched into the destination, not through a window.
        let batching = Merge {
            gap: 4,
            block: 1 << 20,
            batch: 8,
            batch_bytes: usize::MAX,
            direct: false,
        };
        let plan = plan_of(&info.header, s![10..20, ..].as_ref()).unwrap();
        let source = Counted {
            bytes: &bytes,
            reads: 0,
        };
        let mut region = RegionRead::new(&plan, source, batching);
        let mut out = [0u8; 200];
        region.read_exact(&mut out).unwrap();
        assert_eq!(out[..], bytes[200..400]);
        assert_eq!(region.source.reads, 1);
        assert_eq!(region.scratch.capacity(), 0);
    }
}
