//! One column of fixed-width numbers, or of fixed-size lists of them (the embeddings case),
//! read page by page.
//!
//! The Arrow reader decodes a list column's levels value by value and builds validity and
//! offset buffers that a dense array of fixed-size lists does not need; for float16 it also
//! converts each two-byte value on its own. Here each data page's levels are only checked
//! against the one pattern a column without nulls can have (every definition level the
//! maximum, the repetition levels of one row repeated), and its values are copied as they
//! are: a `PLAIN` page's bytes straight to the output, a dictionary page's indices looked up.
//! This serves the values numpy and Parquet store alike, little-endian of one width: float16
//! (`FIXED_LEN_BYTE_ARRAY` of 2), float32, float64, and 32- and 64-bit integers, signed or
//! not. A page this module does not read (a null, another value encoding, the deprecated
//! bit-packed levels) is reported, and the caller reads the file the Arrow reader's way.
//!
//! What it pays, against the parquet crate's own reader doing the same job (a
//! `ParquetRecordBatchReader`, batches of 8,192 rows, each batch's list values written after
//! numpy's header: the other way here), in one run of `cargo run --release -p
//! ndnpy-benchmarks -- --case parquet --rows 43690 --rounds 7` (fresh processes, medians of
//! 7 interleaved rounds, 64 MiB of `(43690, 768)` values, every output byte for byte numpy's
//! `.npy`): float16 plain pages 56 ms against 437 ms (0.13x), float16 dictionary pages with
//! snappy 197 ms against 597 ms (0.33x), float32 dictionary pages 153 ms against 509 ms
//! (0.30x), the same with snappy 245 ms against 567 ms (0.43x); peak memory 10-11 MiB against
//! 101-157 MiB.

use super::{foreign, guarded, parquet_error};
use ndnpy_engine::base::dtype::ScalarKind;
use ndnpy_engine::base::error::{with_path, Error};
use ndnpy_engine::element::pod::{as_bytes, Pod};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::Page;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Values looked up in a dictionary are written this many at a time.
const SCRATCH: usize = 32 << 10;

/// Bit-packed values are handed on this many at a time.
const PACKED: usize = 512;

/// Why a page was not copied.
enum Stop {
    /// The column is not dense or not encoded as this module reads: read it the other way.
    Other,
    /// The file is damaged.
    Damaged(String),
    /// Writing the output failed.
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Failed(e)
    }
}

/// The Parquet type whose values are numpy's of `kind` and `size` byte for byte (both
/// little-endian), if there is one.
pub(super) fn physical(kind: ScalarKind, size: usize) -> Option<PhysicalType> {
    match (kind, size) {
        (ScalarKind::Float, 2) => Some(PhysicalType::FIXED_LEN_BYTE_ARRAY),
        (ScalarKind::Float, 4) => Some(PhysicalType::FLOAT),
        (ScalarKind::Float, 8) => Some(PhysicalType::DOUBLE),
        (ScalarKind::Int | ScalarKind::UInt, 4) => Some(PhysicalType::INT32),
        (ScalarKind::Int | ScalarKind::UInt, 8) => Some(PhysicalType::INT64),
        _ => None,
    }
}

/// Writes the values of the column `root` (a top-level field) of the Parquet file `input`,
/// of numpy's `kind` and `size` ([`physical`]), `rows` rows of `inner` (the shape after the
/// first axis) each, to `out` as little-endian bytes in C order. `Ok(false)`: the column is
/// not one this module reads (what was written to `out` is to be discarded).
pub(super) fn copy(
    input: &Path,
    root: usize,
    (kind, size): (ScalarKind, usize),
    rows: usize,
    inner: &[usize],
    out: &mut impl Write,
) -> Result<bool, Error> {
    match size {
        2 => copy_values::<u16>(input, root, kind, rows, inner, out),
        4 => copy_values::<u32>(input, root, kind, rows, inner, out),
        8 => copy_values::<u64>(input, root, kind, rows, inner, out),
        _ => Ok(false),
    }
}

/// A value as Parquet stores it: `size_of::<Self>()` little-endian bytes.
trait Value: Pod + Default {
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn from_le(bytes: &[u8]) -> $t {
                bytes.try_into().map(<$t>::from_le_bytes).unwrap_or_default()
            }
        }
    )*};
}
value!(u16, u32, u64);

fn copy_values<T: Value>(
    input: &Path,
    root: usize,
    kind: ScalarKind,
    rows: usize,
    inner: &[usize],
    out: &mut impl Write,
) -> Result<bool, Error> {
    let width = size_of::<T>();
    let per_row: usize = inner.iter().product();
    let Some(physical_type) = physical(kind, width) else {
        return Ok(false);
    };
    if per_row == 0 || cfg!(target_endian = "big") {
        return Ok(false);
    }
    let file = File::open(input).map_err(with_path("open", input))?;
    let reader = guarded(|| SerializedFileReader::new(file).map_err(parquet_error))?;
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    let mut leaves = (0..descr.num_columns()).filter(|&i| descr.get_column_root_idx(i) == root);
    let (Some(leaf), None) = (leaves.next(), leaves.next()) else {
        return Ok(false);
    };
    let column = descr.column(leaf);
    if column.physical_type() != physical_type
        || (physical_type == PhysicalType::FIXED_LEN_BYTE_ARRAY
            && usize::try_from(column.type_length()).ok() != Some(width))
    {
        return Ok(false);
    }
    let (max_def, max_rep) = (column.max_def_level(), column.max_rep_level());
    // The repetition levels of one row: a flat list, or nested lists over `inner`.
    let pattern = match usize::try_from(max_rep) {
        Ok(0) if per_row == 1 => vec![0],
        Ok(1) => (0..per_row).map(|j| i16::from(j > 0)).collect(),
        Ok(depth) if depth == inner.len() => super::repetition(inner),
        _ => return Ok(false),
    };
    let Some(total) = rows.checked_mul(per_row) else {
        return Err(foreign(format!("{rows} rows of {per_row} values overflow")));
    };
    let mut column = Column::<T> {
        max_def,
        max_rep,
        pattern,
        at: 0,
        values: 0,
        total,
        dict: Vec::new(),
        scratch: Vec::new(),
    };
    for group in 0..reader.num_row_groups() {
        let mut pages = guarded(|| {
            reader
                .get_row_group(group)
                .and_then(|g| g.get_column_page_reader(leaf))
                .map_err(parquet_error)
        })?;
        column.dict.clear();
        while let Some(page) = guarded(|| pages.get_next_page().map_err(parquet_error))? {
            match column.page(page, out) {
                Ok(()) => {}
                Err(Stop::Other) => return Ok(false),
                Err(Stop::Damaged(reason)) => return Err(foreign(reason)),
                Err(Stop::Failed(e)) => return Err(e),
            }
        }
    }
    if column.at != 0 || column.values != total {
        return Err(foreign(format!(
            "its metadata says {rows} rows, its data holds {}{}",
            column.values / per_row,
            if column.at != 0 {
                " and part of one"
            } else {
                ""
            }
        )));
    }
    Ok(true)
}

/// The state of one column's read across its pages.
struct Column<T> {
    max_def: i16,
    max_rep: i16,
    /// The repetition levels of one row.
    pattern: Vec<i16>,
    /// The position in `pattern` of the next level.
    at: usize,
    /// Values written so far, and at most.
    values: usize,
    total: usize,
    /// The row group's dictionary, and values looked up in it before they are written (both
    /// in native order, which is little-endian where this module is used).
    dict: Vec<T>,
    scratch: Vec<T>,
}

impl<T: Value> Column<T> {
    fn page(&mut self, page: Page, out: &mut impl Write) -> Result<(), Stop> {
        match page {
            Page::DictionaryPage {
                buf,
                num_values,
                encoding,
                ..
            } => {
                if !matches!(encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
                    return Err(Stop::Other);
                }
                let width = size_of::<T>();
                let len = (num_values as usize).checked_mul(width);
                let Some(values) = len.and_then(|len| buf.get(..len)) else {
                    return Err(damaged("a dictionary page holds fewer values than it says"));
                };
                self.dict.clear();
                self.dict.extend(values.chunks_exact(width).map(T::from_le));
                Ok(())
            }
            Page::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
                ..
            } => {
                let mut rest = &buf[..];
                let rep = if self.max_rep > 0 {
                    prefixed(&mut rest, rep_level_encoding)?
                } else {
                    &[]
                };
                let def = if self.max_def > 0 {
                    prefixed(&mut rest, def_level_encoding)?
                } else {
                    &[]
                };
                self.data(num_values as usize, rep, def, rest, encoding, out)
            }
            Page::DataPageV2 {
                buf,
                num_values,
                encoding,
                num_nulls,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                if num_nulls != 0 {
                    return Err(Stop::Other);
                }
                let (rep_len, def_len) =
                    (rep_levels_byte_len as usize, def_levels_byte_len as usize);
                if rep_len.saturating_add(def_len) > buf.len() {
                    return Err(damaged("a page's levels run past its end"));
                }
                let (rep, rest) = buf.split_at(rep_len);
                let (def, rest) = rest.split_at(def_len);
                self.data(num_values as usize, rep, def, rest, encoding, out)
            }
        }
    }

    /// A data page of `n` levels: checks them, then writes its `n` values.
    fn data(
        &mut self,
        n: usize,
        rep: &[u8],
        def: &[u8],
        values: &[u8],
        encoding: Encoding,
        out: &mut impl Write,
    ) -> Result<(), Stop> {
        if n > self.total - self.values {
            return Err(damaged(format!(
                "its data holds more than the {} values its metadata says",
                self.total
            )));
        }
        if self.max_rep > 0 {
            let (pattern, at) = (&self.pattern, &mut self.at);
            let mut check = |level: u32| {
                if u32::from(pattern[*at] as u16) != level {
                    return Err(Stop::Other);
                }
                *at += 1;
                if *at == pattern.len() {
                    *at = 0;
                }
                Ok(())
            };
            hybrid(rep, bit_width(self.max_rep), n, |run| match run {
                Run::Repeat(level, count) => (0..count).try_for_each(|_| check(level)),
                Run::Packed(levels) => levels.iter().try_for_each(|&l| check(l)),
            })?;
        }
        if self.max_def > 0 {
            let max = self.max_def as u32;
            hybrid(def, bit_width(self.max_def), n, |run| match run {
                Run::Repeat(level, _) if level == max => Ok(()),
                Run::Packed(levels) if levels.iter().all(|&l| l == max) => Ok(()),
                _ => Err(Stop::Other),
            })?;
        }
        match encoding {
            Encoding::PLAIN => {
                let bytes = n
                    .checked_mul(size_of::<T>())
                    .and_then(|len| values.get(..len))
                    .ok_or_else(|| damaged("a page holds fewer values than it says"))?;
                out.write_all(bytes).map_err(Error::from)?;
            }
            Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY => {
                let (&width, indices) = values
                    .split_first()
                    .ok_or_else(|| damaged("a dictionary-encoded page without its bit width"))?;
                if width > 32 {
                    return Err(damaged(format!("a dictionary index of {width} bits")));
                }
                let (dict, scratch) = (&self.dict, &mut self.scratch);
                scratch.clear();
                let beyond = |i: u32| {
                    damaged(format!(
                        "a dictionary index {i} beyond its {} entries",
                        dict.len()
                    ))
                };
                hybrid(indices, u32::from(width), n, |run| {
                    match run {
                        Run::Repeat(i, mut count) => {
                            let v = *dict.get(i as usize).ok_or_else(|| beyond(i))?;
                            while count > 0 {
                                let take = count.min(SCRATCH - scratch.len());
                                scratch.extend(std::iter::repeat_n(v, take));
                                count -= take;
                                if scratch.len() == SCRATCH {
                                    out.write_all(as_bytes(scratch)).map_err(Error::from)?;
                                    scratch.clear();
                                }
                            }
                        }
                        Run::Packed(indices) => {
                            if scratch.len() + indices.len() > SCRATCH {
                                out.write_all(as_bytes(scratch)).map_err(Error::from)?;
                                scratch.clear();
                            }
                            for &i in indices {
                                scratch.push(*dict.get(i as usize).ok_or_else(|| beyond(i))?);
                            }
                        }
                    }
                    Ok(())
                })?;
                out.write_all(as_bytes(scratch)).map_err(Error::from)?;
            }
            _ => return Err(Stop::Other),
        }
        self.values += n;
        Ok(())
    }
}

fn damaged(reason: impl Into<String>) -> Stop {
    Stop::Damaged(reason.into())
}

/// The bits of a level up to `max`.
fn bit_width(max: i16) -> u32 {
    32 - (max as u16 as u32).leading_zeros()
}

/// A version 1 page's levels: a four-byte length, then that many bytes of the RLE/bit-packed
/// hybrid; another level encoding is not read here.
fn prefixed<'a>(rest: &mut &'a [u8], encoding: Encoding) -> Result<&'a [u8], Stop> {
    if encoding != Encoding::RLE {
        return Err(Stop::Other);
    }
    let Some((len, after)) = rest.split_first_chunk::<4>() else {
        return Err(damaged("a page's levels without their length"));
    };
    let len = u32::from_le_bytes(*len) as usize;
    if len > after.len() {
        return Err(damaged("a page's levels run past its end"));
    }
    let (levels, after) = after.split_at(len);
    *rest = after;
    Ok(levels)
}

/// A run of Parquet's RLE/bit-packed hybrid.
enum Run<'a> {
    /// One value, this many times.
    Repeat(u32, usize),
    /// Values bit-packed in the stream, unpacked (at most [`PACKED`] at a time).
    Packed(&'a [u32]),
}

/// Decodes `n` values of `width` bits from Parquet's RLE/bit-packed hybrid, handing them to
/// `f` run by run.
fn hybrid(
    mut data: &[u8],
    width: u32,
    n: usize,
    mut f: impl FnMut(Run<'_>) -> Result<(), Stop>,
) -> Result<(), Stop> {
    let mut left = n;
    let value_bytes = width.div_ceil(8) as usize;
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    let mut unpacked = [0u32; PACKED];
    while left > 0 {
        let header = varint(&mut data)?;
        if header & 1 == 0 {
            // A value repeated.
            let count = usize::try_from(header >> 1).unwrap_or(usize::MAX).min(left);
            if count == 0 {
                return Err(damaged("an empty run of levels or indices"));
            }
            let Some((bytes, after)) = data.split_at_checked(value_bytes) else {
                return Err(damaged("a run of levels or indices past the page's end"));
            };
            let mut le = [0u8; 4];
            le[..value_bytes].copy_from_slice(bytes);
            data = after;
            f(Run::Repeat(u32::from_le_bytes(le) & mask, count))?;
            left -= count;
        } else {
            // Groups of eight values packed in `width` bits each, least significant first.
            let groups = usize::try_from(header >> 1).unwrap_or(usize::MAX);
            let len = groups.saturating_mul(width as usize);
            let Some((packed, after)) = data.split_at_checked(len) else {
                return Err(damaged("bit-packed levels or indices past the page's end"));
            };
            data = after;
            let count = groups.saturating_mul(8).min(left);
            if count == 0 {
                return Err(damaged("an empty run of levels or indices"));
            }
            let mut done = 0;
            while done < count {
                let k = (count - done).min(PACKED);
                for (j, slot) in unpacked[..k].iter_mut().enumerate() {
                    let bit = (done + j) * width as usize;
                    let at = bit / 8;
                    let word = match packed.get(at..at + 8) {
                        Some(w) => u64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
                        None => {
                            let mut w = [0u8; 8];
                            w[..packed.len() - at].copy_from_slice(&packed[at..]);
                            u64::from_le_bytes(w)
                        }
                    };
                    *slot = (word >> (bit % 8)) as u32 & mask;
                }
                f(Run::Packed(&unpacked[..k]))?;
                done += k;
            }
            left -= count;
        }
    }
    Ok(())
}

/// An unsigned LEB128 number of at most 64 bits.
fn varint(data: &mut &[u8]) -> Result<u64, Stop> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let Some((&byte, rest)) = data.split_first() else {
            return Err(damaged("a run header past the page's end"));
        };
        *data = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(damaged("a run header longer than ten bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16: (ScalarKind, usize) = (ScalarKind::Float, 2);

    fn runs(data: &[u8], width: u32, n: usize) -> Result<Vec<(u32, usize)>, String> {
        let mut v = Vec::new();
        hybrid(data, width, n, |run| {
            match run {
                Run::Repeat(x, c) => v.push((x, c)),
                Run::Packed(xs) => v.extend(xs.iter().map(|&x| (x, 1))),
            }
            Ok(())
        })
        .map_err(|e| match e {
            Stop::Other => "other".to_string(),
            Stop::Damaged(r) => r,
            Stop::Failed(e) => e.to_string(),
        })?;
        Ok(v)
    }

    #[test]
    fn hybrid_runs_and_packed_groups() {
        // A run of 5 threes (header 5 << 1), then one group of 8 values of 3 bits:
        // 0..8 packed least significant first (the spec's own example).
        let data = [10, 3, 0b11, 0b1000_1000, 0b1100_0110, 0b1111_1010];
        let got = runs(&data, 3, 13).unwrap();
        let mut want = vec![(3, 5)];
        want.extend((0..8).map(|v| (v, 1)));
        assert_eq!(got, want);
        // Fewer values asked than the group holds: the padding is not handed on.
        assert_eq!(runs(&data, 3, 7).unwrap().len(), 3);
    }

    #[test]
    fn hybrid_refuses_what_is_not_there() {
        // A run whose value is missing; a packed group cut short; an empty run; a header
        // that never ends; bits past 32.
        assert!(runs(&[10], 8, 5).unwrap_err().contains("past"));
        assert!(runs(&[3, 0], 3, 8).unwrap_err().contains("past"));
        assert!(runs(&[0, 1], 1, 1).unwrap_err().contains("empty"));
        assert!(runs(&[0x80; 11], 1, 1).unwrap_err().contains("ten bytes"));
        // A run that says more values than asked is cut to what was asked.
        assert_eq!(
            runs(&[0xfe, 0xff, 0xff, 0xff, 0x0f, 1], 1, 4).unwrap(),
            [(1, 4)]
        );
    }

    /// What pyarrow writes (dictionary and plain pages, version 2 pages, codecs, small pages
    /// and row groups, a dictionary that falls back to plain, nested lists, the tensor type,
    /// one axis, a column among others; float16, float32, float64, 32- and 64-bit integers)
    /// is read page by page, byte for byte what numpy holds; nulls, byte-stream-split pages
    /// and integers Parquet stores wider than numpy are left to the Arrow reader.
    #[test]
    fn reads_what_pyarrow_writes_page_by_page() {
        let dir = std::env::temp_dir().join(format!("ndnpy-dense-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = "
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
rng = np.random.default_rng(1)
a = rng.standard_normal((300, 12)).astype(np.float16)
a[5, 3], a[7] = np.nan, np.inf
b = (np.arange(600) % 97).astype(np.float16).reshape(50, 3, 4)
c = rng.standard_normal(1000).astype(np.float16)
for name, x in [('a', a), ('b', b), ('c', c)]:
    open(d + '/' + name + '.bin', 'wb').write(x.tobytes())
lists = pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), 12)
t = pa.table({'values': lists})
for name, kw in [('dict', {}), ('plain', dict(use_dictionary=False)),
                 ('v2', dict(data_page_version='2.0', compression='zstd')),
                 ('small', dict(compression='snappy', data_page_size=512, row_group_size=37)),
                 ('fallback', dict(dictionary_pagesize_limit=64, data_page_size=256)),
                 ('bss', dict(use_dictionary=False, use_byte_stream_split=True))]:
    pq.write_table(t, d + '/a_' + name + '.parquet', **kw)
nested = pa.FixedSizeListArray.from_arrays(
    pa.FixedSizeListArray.from_arrays(pa.array(b.reshape(-1)), 4), 3)
pq.write_table(pa.table({'values': nested}), d + '/b.parquet', data_page_size=100)
pq.write_table(pa.table({'values': pa.FixedShapeTensorArray.from_numpy_ndarray(b)}),
               d + '/b_tensor.parquet')
pq.write_table(pa.table({'i': np.arange(1000), 'values': pa.array(c)}), d + '/c.parquet',
               row_group_size=300)
holes = pa.array(c, mask=np.arange(1000) % 10 == 3)
pq.write_table(pa.table({'values': holes}), d + '/c_nulls.parquet')
# Other widths and kinds: (name, array, writer options).
others = [
    ('f4', rng.standard_normal((200, 6)).astype('<f4'), {}),
    ('f8', rng.standard_normal(500), dict(use_dictionary=False)),
    ('i4', rng.integers(-2**31, 2**31, (100, 2, 3), dtype='<i4'), dict(data_page_version='2.0')),
    ('u4', rng.integers(0, 2**32, 300, dtype='<u4'), dict(compression='zstd')),
    ('i8', rng.integers(-2**63, 2**63, (50, 4), dtype='<i8'), dict(data_page_size=64)),
    ('u8', (np.arange(400, dtype='<u8') % 7) * 2**61, {}),
    ('u1', np.arange(300, dtype='u1'), {}),
]
for name, x, kw in others:
    open(d + '/' + name + '.bin', 'wb').write(x.tobytes())
    col = pa.array(x.reshape(-1))
    for n in reversed(x.shape[1:]):
        col = pa.FixedSizeListArray.from_arrays(col, n)
    pq.write_table(pa.table({'values': col}), d + '/' + name + '.parquet', **kw)
";
        let status = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success());
        let cases: [(&str, usize, &[usize], &str, bool); 11] = [
            ("a_dict", 0, &[12], "a", true),
            ("a_plain", 0, &[12], "a", true),
            ("a_v2", 0, &[12], "a", true),
            ("a_small", 0, &[12], "a", true),
            ("a_fallback", 0, &[12], "a", true),
            ("a_bss", 0, &[12], "a", false),
            ("b", 0, &[3, 4], "b", true),
            ("b_tensor", 0, &[3, 4], "b", true),
            ("c", 1, &[], "c", true),
            ("c", 0, &[], "c", false),
            ("c_nulls", 0, &[], "c", false),
        ];
        for (file, root, inner, want, dense) in cases {
            let want = std::fs::read(dir.join(format!("{want}.bin"))).unwrap();
            let rows = want.len() / 2 / inner.iter().product::<usize>();
            let mut out = Vec::new();
            let read = copy(
                &dir.join(format!("{file}.parquet")),
                root,
                F16,
                rows,
                inner,
                &mut out,
            );
            assert_eq!(read.unwrap(), dense, "{file}");
            if dense {
                assert!(out == want, "{file}: other bytes");
            }
        }
        type Case<'a> = (&'a str, (ScalarKind, usize), &'a [usize], bool);
        let kinds: [Case<'_>; 7] = [
            ("f4", (ScalarKind::Float, 4), &[6], true),
            ("f8", (ScalarKind::Float, 8), &[], true),
            ("i4", (ScalarKind::Int, 4), &[2, 3], true),
            ("u4", (ScalarKind::UInt, 4), &[], true),
            ("i8", (ScalarKind::Int, 8), &[4], true),
            ("u8", (ScalarKind::UInt, 8), &[], true),
            // Stored as 32-bit integers: not numpy's bytes.
            ("u1", (ScalarKind::UInt, 1), &[], false),
        ];
        for (file, kind, inner, dense) in kinds {
            let want = std::fs::read(dir.join(format!("{file}.bin"))).unwrap();
            let rows = want.len() / kind.1 / inner.iter().product::<usize>();
            let mut out = Vec::new();
            let path = dir.join(format!("{file}.parquet"));
            assert_eq!(
                copy(&path, 0, kind, rows, inner, &mut out).unwrap(),
                dense,
                "{file}"
            );
            assert!(!dense || out == want, "{file}: other bytes");
        }
        // A float32 column is not read as float64, nor float16 as an integer.
        let f4 = dir.join("f4.parquet");
        assert!(!copy(&f4, 0, (ScalarKind::Float, 8), 200, &[3], &mut Vec::new()).unwrap());
        let f2 = dir.join("a_plain.parquet");
        assert!(!copy(&f2, 0, (ScalarKind::Int, 2), 300, &[12], &mut Vec::new()).unwrap());
        // A failed write is the writer's error, not a damaged file.
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        for file in ["a_plain", "a_dict"] {
            let path = dir.join(format!("{file}.parquet"));
            let err = copy(&path, 0, F16, 300, &[12], &mut Full).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Io, "{file}: {err}");
        }
        // A row count other than the file's is an error.
        let err = copy(
            &dir.join("a_dict.parquet"),
            0,
            F16,
            301,
            &[12],
            &mut Vec::new(),
        );
        assert!(err.unwrap_err().to_string().contains("its data holds 300"));
        let err = copy(
            &dir.join("a_plain.parquet"),
            0,
            F16,
            299,
            &[12],
            &mut Vec::new(),
        );
        assert!(err.unwrap_err().to_string().contains("more than"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bit_widths() {
        assert_eq!(
            [1, 2, 3, 4, 7, 8].map(bit_width),
            [1, 2, 2, 3, 3, 4],
            "ceil(log2(max + 1))"
        );
    }
}
