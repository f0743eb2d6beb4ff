//! `ndnpy convert` to and from Parquet, chosen by the `.parquet` extension: the library's
//! `ndnpy::parquet` does the work (`.npy` streamed in row groups, atomic output); this maps
//! the command line onto it.

use crate::convert::Options;
use crate::fail::{Fail, Res};
use crate::source::{file_kind, FileKind, Target};
use ndnpy::parquet::ParquetOptions;
use std::path::Path;

/// Whether `path` names a Parquet file, by its extension.
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Whether this conversion is one of ours: either side is a `.parquet` file, or
/// `--per-member` asks for a directory of them.
pub fn involved(input: &Target, output: &Path, flags: &Flags) -> bool {
    is_parquet(&input.path) || is_parquet(output) || flags.per_member
}

/// What the Parquet options of the command line ask for.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--row-group-size ROWS`.
    pub row_group_rows: Option<usize>,
    /// `--compression CODEC`.
    pub compression: Option<String>,
    /// `--columns A,B` (Parquet input).
    pub columns: Option<Vec<String>>,
    /// `--per-member` (`.npz` input: one file per member in the directory OUT).
    pub per_member: bool,
    /// `--tensor`: axes after the first as `arrow.fixed_shape_tensor`.
    pub tensor: bool,
    /// `--fill-nulls V` (Parquet input).
    pub fill_nulls: Option<f64>,
}

impl Flags {
    /// Whether any flag was given (they apply to Parquet conversions only).
    pub fn any(&self) -> bool {
        self.row_group_rows.is_some()
            || self.compression.is_some()
            || self.columns.is_some()
            || self.per_member
            || self.tensor
            || self.fill_nulls.is_some()
    }
}

/// The library's error as the command's: what the command line must change (a codec, a
/// column, a fill value for nulls, `--per-member`) is a usage error (exit 2); the rest as
/// every command maps them (an output numpy cannot hold, say, is exit 5).
fn fail(name: &str, e: ndnpy::Error) -> Fail {
    use ndnpy::Fault;
    if matches!(e.fault(), Some(Fault::Conversion | Fault::NoSuchField)) {
        return Fail::usage(format!("{name}: {e}"));
    }
    Fail::lib(name, e)
}

/// Converts `input` into `output`, one of them Parquet.
pub fn run(input: &Target, output: &Path, opts: &Options, flags: &Flags) -> Res<()> {
    if opts.fortran.is_some()
        || opts.byte_order.is_some()
        || opts.dtype.is_some()
        || opts.compress
        || opts.void_as_bf16
    {
        return Err(Fail::usage(
            "--order, --byte-order, --dtype, --compress and --void-as do not apply to Parquet \
             conversions (numpy data is written in this machine's order, C order)",
        ));
    }
    let f = flags;
    let mut pq = ParquetOptions::new().tensor_extension(f.tensor);
    if let Some(rows) = f.row_group_rows {
        pq = pq.row_group_rows(rows);
    }
    if let Some(codec) = &f.compression {
        pq = pq.compression(codec.clone());
    }
    if let Some(columns) = &f.columns {
        pq = pq.columns(columns.clone());
    }
    if let Some(v) = f.fill_nulls {
        pq = pq.fill_nulls(v);
    }
    let name = input.display();
    let out_name = output.display().to_string();
    if is_parquet(&input.path) {
        if input.member.is_some() {
            return Err(Fail::usage(format!(
                "{name}: a Parquet file has no members; choose columns with --columns"
            )));
        }
        if f.per_member || f.row_group_rows.is_some() || f.compression.is_some() || f.tensor {
            return Err(Fail::usage(
                "--per-member, --row-group-size, --compression and --tensor apply to Parquet \
                 output",
            ));
        }
        if is_parquet(output)
            || !output
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
        {
            return Err(Fail::usage(format!(
                "{name} converts to a .npy file, not {out_name}"
            )));
        }
        return pq
            .parquet_to_npy(&input.path, output)
            .map_err(|e| fail(&name, e));
    }
    if f.columns.is_some() || f.fill_nulls.is_some() {
        return Err(Fail::usage(
            "--columns and --fill-nulls apply to Parquet input",
        ));
    }
    if input.member.is_some() {
        return Err(Fail::usage(format!(
            "{name}: convert the whole archive (its members become columns), or the member to \
             .npy first"
        )));
    }
    match file_kind(&input.path)? {
        FileKind::Npz => {
            if !f.per_member && !is_parquet(output) {
                return Err(Fail::usage(format!(
                    "{out_name}: an archive converts to one .parquet file, or with --per-member \
                     to a directory of them"
                )));
            }
            pq.per_member(f.per_member)
                .npz_to_parquet(&input.path, output)
                .map_err(|e| fail(&name, e))
        }
        _ => {
            if f.per_member {
                return Err(Fail::usage("--per-member applies to .npz input"));
            }
            pq.npy_to_parquet(&input.path, output)
                .map_err(|e| fail(&name, e))
        }
    }
}
