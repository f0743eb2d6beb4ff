//! `.npy` and `.npz` files to [Apache Parquet](https://parquet.apache.org) and back
//! (feature `parquet`), through the parquet crate's Arrow writer and reader and the
//! conversions of [`arrow`](crate::arrow).
//!
//! - [`npy_to_parquet`] streams an `.npy` file into Parquet one row group at a time,
//!   whatever the file's size: rows are read and handed to the writer 256 KiB at a time, and
//!   memory holds what the Parquet writer keeps of a row group until it is flushed (32 MiB
//!   of array data by default, [`ParquetOptions::row_group_bytes`]). A record array becomes one column per field; any other array one
//!   column (named `values`, [`ParquetOptions::column_name`]), its axes after the first as
//!   fixed-size lists (an `(N, D)` array of embeddings: one list of `D` per row), or with
//!   [`ParquetOptions::tensor_extension`] one flat list per row with the canonical
//!   `arrow.fixed_shape_tensor` type. Fortran order and big-endian data are converted.
//! - [`npz_to_parquet`] writes an archive's arrays, which must have the same number of rows,
//!   as the columns of one file (each member read whole, one column per key); with
//!   [`ParquetOptions::per_member`] it writes one file per member into a directory instead,
//!   for members of different lengths.
//! - [`parquet_to_npy`] writes a Parquet file's columns as one record array (a field per
//!   column), or, when the file has one column or one is named
//!   ([`ParquetOptions::columns`]), that column's array, its fixed-size lists as axes. It
//!   reads one batch of rows at a time (twice when strings or binaries need their longest
//!   value to size the dtype). A column without nulls of floats or of 32- or 64-bit
//!   integers, or of fixed-size lists of them (the embeddings case), is read page by page
//!   instead, its values copied as they are stored.
//!
//! Types map as [`arrow`](crate::arrow) says. Compression is the Parquet writer's default
//! (none) unless [`ParquetOptions::compression`] names a codec: `snappy`, `zstd`, `lz4`
//! (LZ4 raw, what pyarrow writes), `gzip`, or `none`; reading understands each of them.
//! Outputs are written atomically: after an error (a truncated or foreign input, a type the
//! target lacks) no output file is left behind.
//!
//! # Examples
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-mod-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let emb = ndarray::Array2::<f32>::from_shape_fn((1000, 8), |(i, j)| (i * j) as f32);
//! ndnpy::write_npy(dir.join("emb.npy"), &emb)?;
//!
//! ndnpy::parquet::npy_to_parquet(dir.join("emb.npy"), dir.join("emb.parquet"))?;
//! ndnpy::parquet::parquet_to_npy(dir.join("emb.parquet"), dir.join("back.npy"))?;
//!
//! let back: ndarray::Array2<f32> = ndnpy::read_npy(dir.join("back.npy"))?;
//! assert_eq!(back, emb);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod dense;
mod footer;

use crate::array::dynamic::DynArray;
use crate::array::options::ReadOptions;
use crate::convert::arrow::{self as conv, ArrowOptions};
use crate::npz::NpzReader;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{FieldRef, Fields, Schema, SchemaRef};
use bytes::Bytes;
use ndnpy_engine::base::dtype::{DType, ScalarKind};
use ndnpy_engine::base::error::{
    conversion, with_path, Error, FormatError, MismatchError, UsageError,
};
use ndnpy_engine::format::header::{Header, HeaderInfo};
use ndnpy_engine::platform::fsutil::{write_file, Publish, Sync};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::{add_encoded_arrow_schema_to_metadata, ArrowSchemaConverter};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::data_type::{ByteArray, FixedLenByteArray, FixedLenByteArrayType};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

/// The array data in one row group unless [`ParquetOptions::row_group_bytes`] says otherwise.
///
/// ```
/// assert_eq!(ndnpy::parquet::DEFAULT_ROW_GROUP_BYTES, 32 << 20);
/// ```
pub const DEFAULT_ROW_GROUP_BYTES: usize = 32 << 20;

/// The array data converted and handed to the Parquet writer at a time.
const WRITE_BYTES: usize = 256 << 10;

/// Rows per batch when reading Parquet.
const READ_BATCH_ROWS: usize = 8192;

/// How a conversion to or from Parquet is made.
///
/// # Examples
///
/// ```
/// use ndnpy::parquet::ParquetOptions;
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-opts-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// ndnpy::write_npy(dir.join("x.npy"), &ndarray::Array2::<f64>::zeros((100, 3)))?;
/// ParquetOptions::new()
///     .compression("zstd")
///     .row_group_rows(10)
///     .column_name("x")
///     .npy_to_parquet(dir.join("x.npy"), dir.join("x.parquet"))?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParquetOptions {
    arrow: ArrowOptions,
    row_group_bytes: Option<usize>,
    row_group_rows: Option<usize>,
    compression: Option<String>,
    columns: Option<Vec<String>>,
    per_member: bool,
    durable: bool,
}

impl ParquetOptions {
    /// The defaults: row groups of 32 MiB of array data, no compression, all columns, an
    /// archive's members as columns of one file, not durable.
    ///
    /// ```
    /// assert_eq!(ndnpy::parquet::ParquetOptions::new(), Default::default());
    /// ```
    pub fn new() -> ParquetOptions {
        ParquetOptions::default()
    }

    /// Row groups of about `bytes` of array data (at least one row each).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().row_group_bytes(64 << 20);
    /// # let _ = opts;
    /// ```
    pub fn row_group_bytes(mut self, bytes: usize) -> ParquetOptions {
        self.row_group_bytes = Some(bytes.max(1));
        self
    }

    /// Row groups of `rows` rows (overrides [`row_group_bytes`](Self::row_group_bytes)).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().row_group_rows(100_000);
    /// # let _ = opts;
    /// ```
    pub fn row_group_rows(mut self, rows: usize) -> ParquetOptions {
        self.row_group_rows = Some(rows.max(1));
        self
    }

    /// The codec: `none`, `snappy`, `zstd`, `lz4`, `gzip` (or the parquet crate's spelling
    /// with a level, `zstd(3)`, `gzip(6)`); checked when the conversion starts.
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().compression("snappy");
    /// # let _ = opts;
    /// ```
    pub fn compression(mut self, codec: impl Into<String>) -> ParquetOptions {
        self.compression = Some(codec.into());
        self
    }

    /// Parquet to numpy: only these columns, in this order (one column: its array, not a
    /// record array).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().columns(["id", "emb"]);
    /// # let _ = opts;
    /// ```
    pub fn columns<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        names: I,
    ) -> ParquetOptions {
        self.columns = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// `.npz` to Parquet: one file per member, `<output>/<key>.parquet` (a key's `/`s as
    /// subdirectories; a key with `..` or a root is refused), instead of one file with a
    /// column per member. If a member fails, the files written before it are removed.
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().per_member(true);
    /// # let _ = opts;
    /// ```
    pub fn per_member(mut self, yes: bool) -> ParquetOptions {
        self.per_member = yes;
        self
    }

    /// The column name of an array that is not a record array (default `values`).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().column_name("embedding");
    /// # let _ = opts;
    /// ```
    pub fn column_name(mut self, name: impl Into<String>) -> ParquetOptions {
        self.arrow = self.arrow.column_name(name);
        self
    }

    /// Axes after the first as one `arrow.fixed_shape_tensor` list per row
    /// ([`ArrowOptions::tensor_extension`]).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().tensor_extension(true);
    /// # let _ = opts;
    /// ```
    pub fn tensor_extension(mut self, yes: bool) -> ParquetOptions {
        self.arrow = self.arrow.tensor_extension(yes);
        self
    }

    /// Parquet to numpy: the value written for nulls where numpy has none
    /// ([`ArrowOptions::fill_nulls`]).
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().fill_nulls(f64::NAN);
    /// # let _ = opts;
    /// ```
    pub fn fill_nulls(mut self, value: f64) -> ParquetOptions {
        self.arrow = self.arrow.fill_nulls(value);
        self
    }

    /// Flush outputs to the disk before they take their names.
    ///
    /// ```
    /// let opts = ndnpy::parquet::ParquetOptions::new().durable(true);
    /// # let _ = opts;
    /// ```
    pub fn durable(mut self, yes: bool) -> ParquetOptions {
        self.durable = yes;
        self
    }

    /// Streams the `.npy` file `input` into the Parquet file `output`, one row group at a
    /// time.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) for the files; the errors of reading an
    /// `.npy` header; [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) if the file is
    /// shorter than its array; [`ErrorKind::DType`](crate::ErrorKind::DType) for a dtype
    /// Arrow lacks; [`ErrorKind::Usage`](crate::ErrorKind::Usage) for an unknown codec.
    /// No output is left behind.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-npy-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("bad.npy"), b"not an npy file")?;
    /// let err = ndnpy::parquet::npy_to_parquet(dir.join("bad.npy"), dir.join("bad.parquet"))
    ///     .unwrap_err();
    /// assert!(err.kind().is_format());
    /// assert!(!dir.join("bad.parquet").exists());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn npy_to_parquet<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let input = input.as_ref();
        let codec = self.codec()?;
        let mut file = File::open(input).map_err(with_path("open", input))?;
        let info = Header::read(&mut file, &ReadOptions::default())?;
        let len = file.metadata().map_err(with_path("read", input))?.len();
        info.check_data_within(len)?;
        let mut rows = FileRows::new(file, &info)?;
        let header = info.header;
        // Refuse what Arrow lacks before creating anything.
        let schema = self.block(&header, &rows.read(0, 0)?, 0)?.schema();
        if is_f16(&header.dtype) && rows.inner > 0 {
            return self.f16_to_parquet(&mut rows, &header, &schema, codec, output.as_ref());
        }
        let per_group = self.rows_per_group(rows.row_bytes);
        // Rows go to the writer in small batches (its conversion of some types, float16
        // among them, takes tens of bytes per value while it runs); a row group ends every
        // `per_group` rows.
        let per_write = (WRITE_BYTES / rows.row_bytes.max(1)).clamp(1, per_group);
        write_parquet(output.as_ref(), self.sync(), codec, |sink| {
            let total = rows.rows;
            let mut start = 0;
            loop {
                let group_end = total.min(start + per_group);
                loop {
                    let end = group_end.min(start + per_write);
                    let bytes = rows.read(start, end)?;
                    let batch = self.block(&header, &bytes, end - start)?;
                    sink.write(&batch)?;
                    start = end;
                    if start >= group_end {
                        break;
                    }
                }
                sink.end_group()?;
                if start >= total {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Writes the arrays of the `.npz` archive `input` as the columns of the Parquet file
    /// `output` (or, with [`per_member`](Self::per_member), as files in the directory
    /// `output`).
    ///
    /// # Errors
    ///
    /// As [`npy_to_parquet`](Self::npy_to_parquet) and [`NpzReader`]'s errors;
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the members' first axes differ (one
    /// file), naming two of them.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-npz-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut npz = ndnpy::NpzWriter::create(dir.join("t.npz"))?;
    /// npz.add_array("id", &ndarray::array![1i64, 2, 3])?;
    /// npz.add_array("score", &ndarray::array![0.5f32, 0.25, 1.0])?;
    /// npz.finish()?;
    /// ndnpy::parquet::npz_to_parquet(dir.join("t.npz"), dir.join("t.parquet"))?;
    /// let t = ndnpy::parquet::parquet_to_dyn(dir.join("t.parquet"))?;
    /// assert_eq!(t.dtype().descr(), "[('id', '<i8'), ('score', '<f4')]");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn npz_to_parquet<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let (input, output) = (input.as_ref(), output.as_ref());
        let codec = self.codec()?;
        let mut npz = NpzReader::open(input)?;
        let keys: Vec<String> = npz.keys().map(str::to_string).collect();
        if self.per_member {
            std::fs::create_dir_all(output).map_err(with_path("create", output))?;
            // Each file is written atomically; if a member fails, the files written before it
            // are removed, so that a failed conversion leaves no output.
            let mut written = Vec::new();
            let result = keys.iter().try_for_each(|key| -> Result<(), Error> {
                let path = output.join(member_file(key)?);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(with_path("create", parent))?;
                }
                let array = npz.member(key.as_str())?.read_dyn()?;
                let opts = self.clone().column_name(key.clone());
                let batch = opts.arrow.to_record_batch(array)?;
                write_parquet(&path, self.sync(), codec, |sink| {
                    sink.write(&batch)?;
                    sink.end_group()
                })?;
                written.push(path);
                Ok(())
            });
            if result.is_err() {
                for path in &written {
                    let _ = std::fs::remove_file(path);
                }
            }
            return result;
        }
        let mut columns: Vec<(FieldRef, ArrayRef)> = Vec::with_capacity(keys.len());
        let mut rows: Option<(String, usize)> = None;
        for key in &keys {
            let array = npz.member(key.as_str())?.read_dyn()?;
            let n = array.shape().first().copied().unwrap_or(1);
            match &rows {
                Some((first, m)) if *m != n => {
                    return Err(conversion(format!(
                        "members {first:?} ({m} rows) and {key:?} ({n} rows) differ in length: \
                             columns of one Parquet file need the same number of rows; write one \
                             file per member instead (per_member, --per-member)"
                    )))
                }
                None => rows = Some((key.clone(), n)),
                _ => {}
            }
            columns.push(self.arrow.column(key, array)?);
        }
        let rows = rows.map_or(0, |(_, n)| n);
        let batch = record_batch(columns, rows)?;
        write_parquet(output, self.sync(), codec, |sink| {
            let per_group = self.rows_per_group(row_bytes(&batch));
            let mut start = 0;
            loop {
                let end = rows.min(start + per_group);
                sink.write(&batch.slice(start, end - start))?;
                sink.end_group()?;
                start = end;
                if start >= rows {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Writes the Parquet file `input` as the `.npy` file `output`: its columns as one
    /// record array, or one column's array (the file's only column, or the one named).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Header`](crate::ErrorKind::Header) for a file that is not Parquet or is
    /// damaged; [`ErrorKind::DType`](crate::ErrorKind::DType) for a column type numpy lacks;
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) for a column that does not exist, or a
    /// null where numpy has none without a fill value. No output is left behind.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-back-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("x.parquet"), b"PAR1 but not really")?;
    /// let err = ndnpy::parquet::parquet_to_npy(dir.join("x.parquet"), dir.join("x.npy")).unwrap_err();
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::Header);
    /// assert!(!dir.join("x.npy").exists());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parquet_to_npy<P: AsRef<Path>, Q: AsRef<Path>>(
        &self,
        input: P,
        output: Q,
    ) -> Result<(), Error> {
        let input = input.as_ref();
        let plan = self.plan(input)?;
        let header = plan.header();
        write_file(output.as_ref(), Publish::Replace, self.sync(), |file| {
            if let Some((root, kind)) = plan.fixed_column() {
                let mut out = BufWriter::with_capacity(1 << 20, &mut *file);
                out.write_all(&header.to_bytes()?)?;
                if dense::copy(input, root, kind, plan.rows, &header.shape[1..], &mut out)? {
                    out.flush()?;
                    return Ok(());
                }
                // Not a column read page by page: what was written goes, unflushed or not.
                let _ = out.into_parts();
                file.set_len(0)?;
                file.seek(SeekFrom::Start(0))?;
            }
            let mut out = BufWriter::with_capacity(1 << 20, file);
            out.write_all(&header.to_bytes()?)?;
            let mut written = 0usize;
            for batch in self.batches(input)? {
                let batch = batch?;
                let bytes = plan.encode(&batch, &self.arrow)?;
                written += batch.num_rows();
                if written > plan.rows {
                    break;
                }
                out.write_all(&bytes)?;
            }
            if written != plan.rows {
                return Err(foreign(format!(
                    "its metadata says {} rows, its data holds {written}",
                    plan.rows
                )));
            }
            out.flush()?;
            Ok(())
        })?;
        Ok(())
    }

    /// Reads the Parquet file `input` into memory as one array, as
    /// [`parquet_to_npy`](Self::parquet_to_npy) would write it.
    ///
    /// # Errors
    ///
    /// As [`parquet_to_npy`](Self::parquet_to_npy).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-dyn-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// ndnpy::write_npy(dir.join("a.npy"), &ndarray::array![1u8, 2, 3])?;
    /// ndnpy::parquet::npy_to_parquet(dir.join("a.npy"), dir.join("a.parquet"))?;
    /// let a = ndnpy::parquet::ParquetOptions::new().parquet_to_dyn(dir.join("a.parquet"))?;
    /// assert_eq!(a.into_array::<u8>()?, ndarray::array![1u8, 2, 3].into_dyn());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parquet_to_dyn<P: AsRef<Path>>(&self, input: P) -> Result<DynArray, Error> {
        let input = input.as_ref();
        let plan = self.plan(input)?;
        let header = plan.header();
        let mut bytes = Vec::new();
        if let Some((root, kind)) = plan.fixed_column() {
            if dense::copy(input, root, kind, plan.rows, &header.shape[1..], &mut bytes)? {
                return DynArray::from_raw(header.dtype, header.shape, false, bytes);
            }
            bytes = Vec::new();
        }
        let mut written = 0usize;
        for batch in self.batches(input)? {
            let batch = batch?;
            written += batch.num_rows();
            if written > plan.rows {
                break;
            }
            bytes.extend_from_slice(&plan.encode(&batch, &self.arrow)?);
        }
        if written != plan.rows {
            return Err(foreign(format!(
                "its metadata says {} rows, its data holds {written}",
                plan.rows
            )));
        }
        DynArray::from_raw(header.dtype, header.shape, false, bytes)
    }

    /// A float16 array (the embeddings case) through the column writer itself: the Arrow
    /// writer's float16 path allocates each two-byte value on its own, which made it 3x
    /// slower than pyarrow; here the values are slices of one buffer per batch.
    fn f16_to_parquet(
        &self,
        rows: &mut FileRows,
        header: &Header,
        schema: &Schema,
        codec: Compression,
        output: &Path,
    ) -> Result<(), Error> {
        let (descr, mut props) = writer_properties(schema, codec)?;
        add_encoded_arrow_schema_to_metadata(schema, &mut props);
        let leaf = descr.column(0);
        let (max_def, max_rep) = (leaf.max_def_level(), leaf.max_rep_level());
        let inner: &[usize] = header.shape.get(1..).unwrap_or(&[]);
        let pattern = if self.arrow.is_tensor() {
            // One flat list per row.
            (0..rows.inner).map(|j| i16::from(j > 0)).collect()
        } else {
            repetition(inner)
        };
        // The file's byte order (native when it says `=` or nothing).
        let big = header.dtype.as_scalar().is_some_and(|s| {
            s.byte_order() == ndnpy_engine::base::dtype::ByteOrder::Big
                || (s.byte_order() != ndnpy_engine::base::dtype::ByteOrder::Little
                    && ndnpy_engine::base::dtype::ByteOrder::NATIVE
                        == ndnpy_engine::base::dtype::ByteOrder::Big)
        });
        let per_group = self.rows_per_group(rows.row_bytes);
        let per_write = (WRITE_BYTES / rows.row_bytes.max(1)).clamp(1, per_group);
        let total = rows.rows;
        write_file(output, Publish::Replace, self.sync(), |file| {
            let out = BufWriter::with_capacity(1 << 20, file);
            let mut w = SerializedFileWriter::new(out, descr.root_schema_ptr(), Arc::new(props))
                .map_err(parquet_error)?;
            let (mut values, mut def, mut rep) = (Vec::new(), Vec::new(), Vec::new());
            let mut start = 0;
            while start < total {
                let group_end = total.min(start + per_group);
                let mut group = w.next_row_group().map_err(parquet_error)?;
                let mut column = group
                    .next_column()
                    .map_err(parquet_error)?
                    .expect("the schema has one column");
                let writer = column.typed::<FixedLenByteArrayType>();
                while start < group_end {
                    let end = group_end.min(start + per_write);
                    let bytes = rows.read(start, end)?;
                    let n = bytes.len() / 2;
                    values.clear();
                    values.extend(bytes.chunks_exact(2).map(|v| {
                        let v = [v[0], v[1]];
                        let v = if big {
                            u16::from_be_bytes(v)
                        } else {
                            u16::from_le_bytes(v)
                        };
                        f16_value(v)
                    }));
                    def.clear();
                    def.resize(n, max_def);
                    rep.clear();
                    if max_rep > 0 {
                        for _ in start..end {
                            rep.extend_from_slice(&pattern);
                        }
                    }
                    writer
                        .write_batch(
                            &values,
                            (max_def > 0).then_some(&def[..]),
                            (max_rep > 0).then_some(&rep[..]),
                        )
                        .map_err(parquet_error)?;
                    start = end;
                }
                column.close().map_err(parquet_error)?;
                group.close().map_err(parquet_error)?;
            }
            let mut out = w.into_inner().map_err(parquet_error)?;
            out.flush()?;
            Ok(())
        })?;
        Ok(())
    }

    fn sync(&self) -> Sync {
        Sync::durable_if(self.durable)
    }

    fn rows_per_group(&self, row_bytes: usize) -> usize {
        self.row_group_rows.unwrap_or_else(|| {
            (self.row_group_bytes.unwrap_or(DEFAULT_ROW_GROUP_BYTES) / row_bytes.max(1)).max(1)
        })
    }

    /// The codec, checked before anything is written.
    fn codec(&self) -> Result<Compression, Error> {
        match &self.compression {
            Some(codec) => parse_codec(codec),
            None => Ok(Compression::UNCOMPRESSED),
        }
    }

    /// One row block of the array as a record batch.
    fn block(&self, header: &Header, bytes: &[u8], rows: usize) -> Result<RecordBatch, Error> {
        let mut shape = header.shape.clone();
        if shape.is_empty() {
            shape.push(1);
        }
        shape[0] = rows;
        let columns = conv::block_columns(&header.dtype, bytes, &shape, &self.arrow)?;
        record_batch(columns, rows)
    }

    /// What the output will be: which columns, their dtype (strings sized by a first pass
    /// over the file), the rows.
    fn plan(&self, input: &Path) -> Result<Plan, Error> {
        let builder = reader_builder(input)?;
        let rows = usize::try_from(builder.metadata().file_metadata().num_rows())
            .map_err(|_| foreign("a negative row count".into()))?;
        let schema = builder.schema().clone();
        let indices = self.column_indices(&schema)?;
        let single = indices.len() == 1;
        let mut dtype: Option<DType> = None;
        let variable = indices
            .iter()
            .any(|&i| has_variable(schema.field(i).data_type()));
        // Fixed-size types have their dtype in the schema; only strings and binaries are
        // sized by their values.
        let batches = if variable {
            Some(self.project(builder, &indices)?)
        } else {
            None
        };
        for batch in batches.into_iter().flatten() {
            let batch = batch?;
            let d = batch_dtype(&batch, single)?;
            dtype = Some(match dtype {
                Some(prev) => conv::widen(&prev, &d),
                None => d,
            });
        }
        let dtype = match dtype {
            Some(d) => d,
            None => {
                // Fixed-size types, or no rows: the dtype from an empty batch of the schema.
                let fields: Vec<FieldRef> = indices
                    .iter()
                    .map(|&i| Arc::new(schema.field(i).clone()))
                    .collect();
                let empty = RecordBatch::new_empty(Arc::new(Schema::new(Fields::from(fields))));
                batch_dtype(&empty, single)?
            }
        };
        Ok(Plan {
            dtype,
            rows,
            single,
            column: indices.first().copied(),
        })
    }

    fn column_indices(&self, schema: &Schema) -> Result<Vec<usize>, Error> {
        match &self.columns {
            None => Ok((0..schema.fields().len()).collect()),
            Some(names) => names
                .iter()
                .map(|n| {
                    schema.index_of(n).map_err(|_| {
                        UsageError::NoSuchField {
                            name: n.clone(),
                            available: schema.fields().iter().map(|f| f.name().clone()).collect(),
                        }
                        .into()
                    })
                })
                .collect(),
        }
    }

    fn project(
        &self,
        builder: ParquetRecordBatchReaderBuilder<File>,
        indices: &[usize],
    ) -> Result<Batches, Error> {
        let mask = ProjectionMask::roots(builder.parquet_schema(), indices.iter().copied());
        let reader = guarded(|| {
            builder
                .with_projection(mask)
                .with_batch_size(READ_BATCH_ROWS)
                .build()
                .map_err(parquet_error)
        })?;
        // The projection keeps the file's column order; reorder as asked.
        let mut sorted: Vec<usize> = indices.to_vec();
        sorted.sort_unstable();
        let order: Vec<usize> = indices
            .iter()
            .map(|i| sorted.binary_search(i).unwrap_or(0))
            .collect();
        Ok(Batches {
            reader,
            order,
            failed: false,
        })
    }

    fn batches(&self, input: &Path) -> Result<Batches, Error> {
        let builder = reader_builder(input)?;
        let indices = self.column_indices(builder.schema())?;
        self.project(builder, &indices)
    }
}

/// The output of a Parquet read: records of the columns, or one column's array.
struct Plan {
    dtype: DType,
    rows: usize,
    single: bool,
    /// The first column's index among the file's top-level fields.
    column: Option<usize>,
}

impl Plan {
    /// The column and its numbers' kind and size, when the output is one column's array (of
    /// any shape) of numbers Parquet stores as numpy does, read page by page ([`dense`]).
    fn fixed_column(&self) -> Option<(usize, (ScalarKind, usize))> {
        let base = match &self.dtype {
            DType::SubArray(sub) => sub.base(),
            other => other,
        };
        let scalar = base.as_scalar()?;
        let kind = (scalar.kind(), scalar.size());
        dense::physical(kind.0, kind.1)?;
        self.single.then_some((self.column?, kind))
    }

    fn header(&self) -> Header {
        let mut shape = vec![self.rows];
        let dtype = match &self.dtype {
            DType::SubArray(sub) => {
                shape.extend_from_slice(sub.shape());
                sub.base().clone()
            }
            other => other.clone(),
        };
        Header {
            dtype,
            fortran_order: false,
            shape,
        }
    }

    /// The batch's rows as `.npy` data of the plan's dtype.
    fn encode(&self, batch: &RecordBatch, opts: &ArrowOptions) -> Result<Vec<u8>, Error> {
        let mut out = conv::zeroed(batch.num_rows(), self.dtype.itemsize())?;
        if self.single {
            let name = batch.schema().field(0).name().clone();
            conv::encode(
                &name,
                batch.column(0).as_ref(),
                &self.dtype,
                opts,
                &mut out,
                self.dtype.itemsize(),
            )?;
        } else {
            conv::encode_batch(batch, &self.dtype, opts, &mut out)?;
        }
        Ok(out)
    }
}

fn batch_dtype(batch: &RecordBatch, single: bool) -> Result<DType, Error> {
    if single {
        let schema = batch.schema();
        conv::infer(schema.field(0), batch.column(0).as_ref())
    } else {
        conv::batch_dtype(batch)
    }
}

/// The file of the member `key` within the output directory: `key.parquet`, its `/`s as
/// subdirectories; a key that would leave the directory (`..`, a root) is refused.
fn member_file(key: &str) -> Result<std::path::PathBuf, Error> {
    use std::path::Component;
    let path = Path::new(key);
    let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
    if !normal || key.is_empty() {
        return Err(conversion(format!(
            "member {key:?} does not name a file inside the output directory"
        )));
    }
    let mut file = path.as_os_str().to_owned();
    file.push(".parquet");
    Ok(file.into())
}

fn has_variable(t: &arrow_schema::DataType) -> bool {
    use arrow_schema::DataType as T;
    match t {
        T::Utf8 | T::LargeUtf8 | T::Utf8View | T::Binary | T::LargeBinary | T::BinaryView => true,
        T::FixedSizeList(item, _) => has_variable(item.data_type()),
        T::Struct(fields) => fields.iter().any(|f| has_variable(f.data_type())),
        _ => false,
    }
}

fn reader_builder(input: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, Error> {
    let mut file = File::open(input).map_err(with_path("open", input))?;
    footer::check(&mut file, input)?;
    guarded(|| ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet_error))
}

/// Runs a call into the parquet crate's reader, turning a panic of its on a damaged file
/// (some malformed metadata makes it panic rather than return an error) into an error. The
/// panic hook is the host's: a library does not change how its host's panics print (the
/// `ndnpy` command's hook prints nothing for these). With `panic = "abort"` a panic still
/// ends the process.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    result.unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(foreign(format!("the Parquet reader failed on it: {what}")))
    })
}

/// A Parquet reader's batches, in the column order asked for, with its panics made errors
/// (after which it ends).
struct Batches {
    reader: parquet::arrow::arrow_reader::ParquetRecordBatchReader,
    order: Vec<usize>,
    failed: bool,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let (reader, order) = (&mut self.reader, &self.order);
        let next = guarded(|| {
            Ok(reader
                .next()
                .map(|b| b.and_then(|b| b.project(order)).map_err(arrow_read_error)))
        });
        match next {
            Ok(item) => item,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn foreign(reason: String) -> Error {
    FormatError::Foreign {
        format: "Parquet",
        reason,
    }
    .into()
}

fn parquet_error(e: parquet::errors::ParquetError) -> Error {
    match e {
        parquet::errors::ParquetError::External(inner) => {
            match inner.downcast::<std::io::Error>() {
                Ok(io) => io_error(*io),
                Err(other) => foreign(other.to_string()),
            }
        }
        other => foreign(other.to_string()),
    }
}

fn arrow_read_error(e: arrow_schema::ArrowError) -> Error {
    match e {
        arrow_schema::ArrowError::IoError(_, io) => io_error(io),
        other => foreign(other.to_string()),
    }
}

/// An I/O error the parquet crate passed on: the operating system's (reading or writing a
/// file: a raw OS error) is [`ErrorKind::Io`](crate::ErrorKind::Io); any other describes the
/// file's bytes, so the file is invalid: a codec's ("Data corruption detected" from zstd,
/// "corrupt deflate stream" from gzip), or a page that ends before its header says.
fn io_error(io: std::io::Error) -> Error {
    if io.raw_os_error().is_some() {
        Error::from(io)
    } else {
        foreign(io.to_string())
    }
}

/// `none`, `snappy`, `zstd`, `lz4`, `gzip`, or the parquet crate's own spelling.
fn parse_codec(name: &str) -> Result<Compression, Error> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        "lz4" | "lz4_raw" => Compression::LZ4_RAW,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        other => other.parse().map_err(|_| -> Error {
            conversion(format!(
                    "compression {name:?}: expected none, snappy, zstd, lz4 or gzip (with a level: zstd(3), gzip(6))"
                ))
        })?,
    })
}

/// Rows of the batch's bytes per row (the sizes of its columns' values).
fn row_bytes(batch: &RecordBatch) -> usize {
    let rows = batch.num_rows().max(1);
    batch
        .columns()
        .iter()
        .map(|c| c.get_array_memory_size() / rows)
        .sum::<usize>()
        .max(1)
}

fn record_batch(columns: Vec<(FieldRef, ArrayRef)>, rows: usize) -> Result<RecordBatch, Error> {
    let (fields, arrays): (Vec<FieldRef>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema: SchemaRef = Arc::new(Schema::new(Fields::from(fields)));
    let opts = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &opts).map_err(|e| conversion(e.to_string()))
}

/// The Parquet writer given to a conversion: batches in, one row group each.
struct Sink<'a> {
    writer: Option<ArrowWriter<BufWriter<&'a mut File>>>,
    codec: Compression,
    file: Option<&'a mut File>,
}

impl Sink<'_> {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        if self.writer.is_none() {
            let file = self.file.take().expect("the file until the first batch");
            let (_, props) = writer_properties(&batch.schema(), self.codec)?;
            self.writer = Some(
                ArrowWriter::try_new(
                    BufWriter::with_capacity(1 << 20, file),
                    batch.schema(),
                    Some(props),
                )
                .map_err(parquet_error)?,
            );
        }
        let writer = self.writer.as_mut().expect("created above");
        writer.write(batch).map_err(parquet_error)
    }

    /// Ends the row group.
    fn end_group(&mut self) -> Result<(), Error> {
        match self.writer.as_mut() {
            Some(w) => w.flush().map_err(parquet_error),
            None => Ok(()),
        }
    }
}

/// The Parquet schema of `schema` and the writer's properties: the codec, row groups ended
/// by the caller, and no min/max statistics for the values of lists (per value, for float16,
/// they cost more than the rest of the write; scalar columns keep them).
fn writer_properties(
    schema: &Schema,
    codec: Compression,
) -> Result<(SchemaDescriptor, WriterProperties), Error> {
    let descr = ArrowSchemaConverter::new()
        .convert(schema)
        .map_err(parquet_error)?;
    let mut b = WriterProperties::builder()
        .set_compression(codec)
        .set_max_row_group_row_count(Some(usize::MAX));
    for column in descr.columns() {
        if column.max_rep_level() > 0 {
            b = b.set_column_statistics_enabled(column.path().clone(), EnabledStatistics::None);
        }
    }
    Ok((descr, b.build()))
}

/// The repetition levels of one row's values for nested lists over `inner` (C order): 0
/// first, then the depth of the outermost list that moves on.
fn repetition(inner: &[usize]) -> Vec<i16> {
    let total: usize = inner.iter().product();
    let mut levels = Vec::with_capacity(total);
    let mut index = vec![0usize; inner.len()];
    for j in 0..total {
        if j == 0 {
            levels.push(0);
            continue;
        }
        let mut axis = inner.len();
        while axis > 0 {
            axis -= 1;
            index[axis] += 1;
            if index[axis] < inner[axis] {
                break;
            }
            index[axis] = 0;
        }
        levels.push(axis as i16 + 1);
    }
    levels
}

/// Every float16 bit pattern's two little-endian bytes (Parquet's order), so that a value
/// handed to the column writer is a static slice: no allocation, no reference count.
static F16_BYTES: [u8; 1 << 17] = {
    let mut table = [0u8; 1 << 17];
    let mut i = 0;
    while i < 1 << 16 {
        table[2 * i] = (i & 0xff) as u8;
        table[2 * i + 1] = (i >> 8) as u8;
        i += 1;
    }
    table
};

fn f16_value(bits: u16) -> FixedLenByteArray {
    let at = 2 * bits as usize;
    FixedLenByteArray::from(ByteArray::from(Bytes::from_static(&F16_BYTES[at..at + 2])))
}

fn is_f16(dtype: &DType) -> bool {
    dtype
        .as_scalar()
        .is_some_and(|s| s.kind() == ndnpy_engine::base::dtype::ScalarKind::Float && s.size() == 2)
}

/// Writes `output` atomically: `fill` writes batches, the writer is closed after it.
fn write_parquet(
    output: &Path,
    sync: Sync,
    codec: Compression,
    fill: impl FnOnce(&mut Sink<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    write_file(output, Publish::Replace, sync, |file| {
        let mut sink = Sink {
            writer: None,
            codec,
            file: Some(file),
        };
        fill(&mut sink)?;
        let writer = sink.writer.ok_or_else(|| conversion("nothing to write"))?;
        let mut out = writer.into_inner().map_err(parquet_error)?;
        out.flush()?;
        Ok(())
    })?;
    Ok(())
}

/// The rows (steps along the first axis) of an `.npy` file's array, read as every region of
/// an `.npy` is ([`crate::array::region::read_from_bytes`]): the file's bytes in C order,
/// whatever the file's order.
struct FileRows {
    file: File,
    info: HeaderInfo,
    rows: usize,
    /// Elements per row (the product of the axes after the first).
    inner: usize,
    row_bytes: usize,
}

impl FileRows {
    fn new(file: File, info: &HeaderInfo) -> Result<FileRows, Error> {
        let h = &info.header;
        if h.dtype.has_object() {
            return Err(MismatchError::NoEquivalent {
                name: "values".into(),
                dtype: h.dtype.descr(),
                target: "Arrow",
                hint: "Python objects have no Arrow type".into(),
            }
            .into());
        }
        let (rows, inner) = match h.shape.split_first() {
            Some((&r, rest)) => (r, rest.iter().product::<usize>()),
            None => (1, 1),
        };
        let itemsize = h.dtype.itemsize();
        // Elements of no bytes (numpy's `V0`) take no room in the file, so their count is
        // not bounded by it: a header could ask for 10^15 of them. They hold nothing to put
        // in a column, so they are refused before anything is allocated.
        if itemsize == 0 && info.num_elements > 0 {
            return Err(MismatchError::NoEquivalent {
                name: "values".into(),
                dtype: h.dtype.descr(),
                target: "Arrow",
                hint: "elements of zero bytes".into(),
            }
            .into());
        }
        Ok(FileRows {
            file,
            info: info.clone(),
            rows,
            inner,
            row_bytes: inner * itemsize,
        })
    }

    /// Rows `start..end` in C order.
    fn read(&mut self, start: usize, end: usize) -> Result<Vec<u8>, Error> {
        if start == end {
            return Ok(Vec::new());
        }
        let mut elems = crate::array::region::whole(&self.info.header);
        if let Some(first) = elems.first_mut() {
            // Both fit in isize: they are at most the length of an axis of the file's array.
            *first = ndarray::SliceInfoElem::Slice {
                start: start as isize,
                end: Some(end as isize),
                step: 1,
            };
        }
        let at = (self.info.data_offset, None, 1);
        let file = ndnpy_engine::source::positioned(&mut self.file);
        crate::array::region::read_from_bytes(&self.info, &elems, file, at)
    }
}

/// Streams the `.npy` file `input` into the Parquet file `output` with the default
/// [`ParquetOptions`].
///
/// # Errors
///
/// As [`ParquetOptions::npy_to_parquet`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-f-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// ndnpy::write_npy(dir.join("t.npy"), &ndarray::array![1.5f64, 2.5])?;
/// ndnpy::parquet::npy_to_parquet(dir.join("t.npy"), dir.join("t.parquet"))?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn npy_to_parquet<P: AsRef<Path>, Q: AsRef<Path>>(input: P, output: Q) -> Result<(), Error> {
    ParquetOptions::new().npy_to_parquet(input, output)
}

/// Writes the arrays of an `.npz` archive as the columns of one Parquet file, with the
/// default [`ParquetOptions`].
///
/// # Errors
///
/// As [`ParquetOptions::npz_to_parquet`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-z-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let mut npz = ndnpy::NpzWriter::create(dir.join("t.npz"))?;
/// npz.add_array("a", &ndarray::array![1i32, 2])?;
/// npz.add_array("b", &ndarray::array![1i32, 2, 3])?;
/// npz.finish()?;
/// let err = ndnpy::parquet::npz_to_parquet(dir.join("t.npz"), dir.join("t.parquet")).unwrap_err();
/// assert_eq!(err.kind(), ndnpy::ErrorKind::Usage); // lengths differ: use per_member
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn npz_to_parquet<P: AsRef<Path>, Q: AsRef<Path>>(input: P, output: Q) -> Result<(), Error> {
    ParquetOptions::new().npz_to_parquet(input, output)
}

/// Writes a Parquet file as an `.npy` file with the default [`ParquetOptions`].
///
/// # Errors
///
/// As [`ParquetOptions::parquet_to_npy`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-b-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// ndnpy::write_npy(dir.join("t.npy"), &ndarray::array![[1i16, 2], [3, 4]])?;
/// ndnpy::parquet::npy_to_parquet(dir.join("t.npy"), dir.join("t.parquet"))?;
/// ndnpy::parquet::parquet_to_npy(dir.join("t.parquet"), dir.join("u.npy"))?;
/// assert_eq!(std::fs::read(dir.join("t.npy"))?, std::fs::read(dir.join("u.npy"))?);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parquet_to_npy<P: AsRef<Path>, Q: AsRef<Path>>(input: P, output: Q) -> Result<(), Error> {
    ParquetOptions::new().parquet_to_npy(input, output)
}

/// Reads a Parquet file into memory as one array with the default [`ParquetOptions`].
///
/// # Errors
///
/// As [`ParquetOptions::parquet_to_npy`].
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ndnpy-doc-pq-d-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// ndnpy::write_npy(dir.join("t.npy"), &ndarray::array![true, false])?;
/// ndnpy::parquet::npy_to_parquet(dir.join("t.npy"), dir.join("t.parquet"))?;
/// let t = ndnpy::parquet::parquet_to_dyn(dir.join("t.parquet"))?;
/// assert_eq!(t.dtype().descr(), "'|b1'");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parquet_to_dyn<P: AsRef<Path>>(input: P) -> Result<DynArray, Error> {
    ParquetOptions::new().parquet_to_dyn(input)
}
