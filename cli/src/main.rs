//! `ndnpy`: list, print, check, summarise, compare and convert NumPy `.npy` and `.npz` files
//! from the command line. `ndnpy --help` lists the commands and the exit statuses.

/// `println!` for the tool's output: a reader that stops reading (`ndnpy ls big.npz | head`)
/// ends the program quietly with status 141, as SIGPIPE ends other tools, instead of a panic.
macro_rules! outln {
    () => {
        $crate::emit(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::emit(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the tool's output, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*))
    };
}

/// Writes to standard output; a closed pipe exits with 141 (128 + SIGPIPE), any other
/// failure to write exits with 3 (I/O).
fn emit(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("ndnpy: cannot write to standard output: {e}");
        std::process::exit(3);
    }
}

mod convert;
mod diff;
mod fail;
mod ls;
mod parquet;
mod plot;
mod print;
mod progress;
mod pyfmt;
mod safetensors;
mod select;
mod show;
mod source;
mod stats;
mod validate;

use fail::{Fail, Res, EXIT_USAGE};
use lexopt::prelude::*;
use progress::Progress;
use source::Target;
use std::ops::Range;

const HELP: &str = "\
ndnpy: inspect and convert NumPy .npy and .npz files

Usage:
  ndnpy ls [--json] FILE...
      For each .npy file and each .npz member: name, dtype, shape, order, size on
      disk and in memory, compression. Reads headers only.
  ndnpy show FILE[:MEMBER] [--rows A..B] [--field NAME]
      The values, printed as numpy's print(array) prints them (summarised with
      ... above 1000 elements; only the elements shown are read).
  ndnpy stats [--json] FILE[:MEMBER] [--rows A..B]
      count, NaN and infinity counts, min, max, mean, std (NaN left out, as
      numpy's nanmin, nanmax, nanmean, nanstd), per field for records; one
      streaming pass in 8 MiB chunks, so files larger than memory work.
  ndnpy diff [--json] [--rtol R] [--atol A] A B
      Differences of dtype, shape and values (exact, or within numpy's isclose
      tolerances |a - b| <= A + R * |b|; NaN equals NaN), with the first
      differing indices. Two archives: members removed, added and changed.
      A and B may be FILE:MEMBER. Exit status 1 when they differ.
  ndnpy convert IN[:MEMBER] OUT [--order C|F] [--byte-order <|>|=]
                [--dtype DTYPE] [--compress]
      Writes OUT (.npy, or .npz by its extension) as np.save/np.savez write the
      converted array: another layout, byte order or numeric dtype (as numpy's
      astype). An archive converts member by member; a .npy goes into an
      archive as the member named after its file. Streams in chunks unless the
      layout changes; OUT is replaced atomically.
  ndnpy convert IN.npz|IN.npy OUT.safetensors [--void-as bf16]
  ndnpy convert IN.safetensors[:TENSOR] OUT.npz|OUT.npy
      Arrays to tensors of the same names (a .npy: named after its file) and
      back, data little-endian C order, as safetensors.numpy.save_file and
      np.savez write them. --void-as bf16: '<V2' arrays (ml_dtypes' bfloat16 as
      numpy saves it) become BF16 tensors; BF16 comes back as '<V2'. Strings,
      records, objects, datetimes and complex128 are refused (exit 5).
  ndnpy convert IN.npy|IN.npz OUT.parquet [--compression CODEC]
                [--row-group-size ROWS] [--tensor] [--per-member]
  ndnpy convert IN.parquet OUT.npy [--columns A,B] [--fill-nulls V]
      Arrays to Parquet and back. A .npy streams in row groups (32 MiB of data
      each by default) in bounded memory: records become one column per field,
      other arrays one column 'values', axes after the first fixed-size lists
      (--tensor: arrow.fixed_shape_tensor). An archive's members, of equal
      length, become the columns of one file (--per-member: OUT is a directory
      of KEY.parquet files). CODEC: none (default), snappy, zstd, lz4, gzip.
      Back: all columns as one record array, or the one column there is or is
      named as its array; a null is an error (exit 2) unless --fill-nulls gives
      its value (datetimes take NaT).
  ndnpy plot FILE[:MEMBER] -o OUT.png [--kind line|hist|heatmap] [--bins N]
             [--field NAME]
      An 800x600 PNG: a heatmap of a 2-D array (viridis, colour bar; blocks of
      cells averaged when there are more than pixels), a line of a 1-D array
      (min-max per pixel column), or a histogram (--kind hist, 50 bins by
      default, numpy's bin edges). NaN left out. Streams over the file.
  ndnpy validate FILE...
      Reads every byte of every file and member: 'ok' or what is wrong, per file.

FILE:MEMBER names one member of a .npz archive (its key, as np.load gives it:
'a' for the member a.npy). An archive of one member needs no MEMBER.

FILE[SEL] and FILE:MEMBER[SEL] select part of the array in numpy's index
syntax, as a[SEL] (quote it for the shell): 'a.npy[10:20, ::2]', '[::-1, 3]',
'[..., 0]', '[-1]', '[None, 2:]'; chained brackets apply in turn, as numpy
applies them ('[0][1:]'). Only the bytes the selection covers are read
(a deflated member is inflated whole first). show, stats, plot, diff and
convert take it.

With the feature `remote` (cargo install ndnpy-cli --features remote), FILE may
be a URL, s3://BUCKET/KEY or http(s)://HOST/PATH, for show, stats, plot, diff
and convert: read by ranged requests, only the bytes needed. The endpoint,
region and keys come from the AWS_* environment variables (AWS_ENDPOINT,
AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ALLOW_HTTP).

Exit status:
  0  success (no differences; every file valid)
  1  diff found differences; validate found an invalid file
  2  usage error (unknown command or option, bad value, no such member)
  3  a file could not be opened, read or written
  4  a file is not a valid .npy/.npz file
  5  the file is valid but the command cannot handle it (e.g. pickled objects)
  141  standard output was closed early (a reader such as `head` stopped reading)
";

/// The last panic's message and place, kept by the command's panic hook for `main`.
static PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Runs the command. Panics print nothing where they happen: the library turns the parquet
/// crate's panics on some damaged files into errors (exit 4, one line); any other panic
/// ends the command here with one line that says it is a bug, and the exit status Rust
/// gives a panic (101).
fn main() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        if let Ok(mut last) = PANIC.lock() {
            *last = Some(format!("{what}{at}"));
        }
    }));
    let code = match std::panic::catch_unwind(run) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("ndnpy: {e}");
            if e.code == EXIT_USAGE {
                eprintln!("Try 'ndnpy --help'.");
            }
            e.code
        }
        Err(_) => {
            let what = PANIC
                .lock()
                .ok()
                .and_then(|mut p| p.take())
                .unwrap_or_default();
            eprintln!("ndnpy: internal error (a bug in ndnpy; please report it): {what}");
            101
        }
    };
    std::process::exit(code);
}

fn usage_err(e: lexopt::Error) -> Fail {
    Fail::usage(e.to_string())
}

/// The value of the option just read, as text.
fn value(parser: &mut lexopt::Parser) -> Res<String> {
    parser
        .value()
        .map_err(usage_err)?
        .string()
        .map_err(usage_err)
}

/// The commands, for messages.
const COMMANDS: &str = "ls, show, stats, diff, convert, plot, validate";

/// `--rows A..B` made concrete: an open end is the start or the end of the first axis.
fn resolve_rows(target: &Target, rows: Option<&str>) -> Res<Option<Range<usize>>> {
    let Some((a, b)) = rows.map(parse_range).transpose()? else {
        return Ok(None);
    };
    let end = match b {
        Some(b) => b,
        None => source::ArraySource::open(target)?
            .shape()
            .first()
            .copied()
            .unwrap_or(0),
    };
    Ok(Some(a.unwrap_or(0)..end))
}

/// `A..B` (either end may be left out).
fn parse_range(s: &str) -> Res<(Option<usize>, Option<usize>)> {
    let bad = || {
        Fail::usage(format!(
            "--rows {s:?}: expected A..B, such as 0..10, 5.. or ..5"
        ))
    };
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let num = |t: &str| -> Res<Option<usize>> {
        if t.is_empty() {
            Ok(None)
        } else {
            t.parse().map(Some).map_err(|_| bad())
        }
    };
    Ok((num(a)?, num(b)?))
}

fn run() -> Res<i32> {
    let mut parser = lexopt::Parser::from_env();
    let command = match parser.next().map_err(usage_err)? {
        Some(Value(v)) => v.string().map_err(usage_err)?,
        Some(Long("help") | Short('h')) => {
            out!("{HELP}");
            return Ok(0);
        }
        Some(Long("version") | Short('V')) => {
            outln!("ndnpy {}", env!("CARGO_PKG_VERSION"));
            return Ok(0);
        }
        Some(other) => return Err(Fail::usage(other.unexpected().to_string())),
        None => return Err(Fail::usage(format!("no command given ({COMMANDS})"))),
    };
    let mut operands: Vec<String> = Vec::new();
    let mut json = false;
    let mut rows: Option<String> = None;
    let mut field: Option<String> = None;
    let mut conv = convert::Options::default();
    let mut pq = parquet::Flags::default();
    let mut plot_out: Option<String> = None;
    let mut plot_kind = plot::Kind::Auto;
    let mut bins = 50usize;
    let mut tol = diff::Tolerance {
        rtol: 0.0,
        atol: 0.0,
    };
    while let Some(arg) = parser.next().map_err(usage_err)? {
        match arg {
            Value(v) => operands.push(v.string().map_err(usage_err)?),
            Long("help") | Short('h') => {
                out!("{HELP}");
                return Ok(0);
            }
            Long("json") if matches!(command.as_str(), "ls" | "stats" | "diff") => json = true,
            Long("rows") if matches!(command.as_str(), "show" | "stats") => {
                rows = Some(value(&mut parser)?)
            }
            Long(opt @ ("rtol" | "atol")) if command == "diff" => {
                let opt = opt.to_string();
                let text = value(&mut parser)?;
                let v: f64 = text
                    .parse()
                    .ok()
                    .filter(|v: &f64| *v >= 0.0 && v.is_finite())
                    .ok_or_else(|| {
                        Fail::usage(format!("--{opt} {text:?}: expected a number >= 0"))
                    })?;
                if opt == "rtol" {
                    tol.rtol = v;
                } else {
                    tol.atol = v;
                }
            }
            Long("order") if command == "convert" => {
                let v = value(&mut parser)?;
                conv.fortran = Some(match v.as_str() {
                    "C" | "c" => false,
                    "F" | "f" => true,
                    _ => return Err(Fail::usage(format!("--order {v:?}: expected C or F"))),
                });
            }
            Long("byte-order") if command == "convert" => {
                let v = value(&mut parser)?;
                conv.byte_order = Some(convert::parse_byte_order(&v)?);
            }
            Long("dtype") if command == "convert" => {
                let v = value(&mut parser)?;
                conv.dtype = Some(convert::parse_dtype(&v)?);
            }
            Long("compress") if command == "convert" => conv.compress = true,
            Long("void-as") if command == "convert" => {
                conv.void_as_bf16 = safetensors::parse_void_as(&value(&mut parser)?)?;
            }
            Long("row-group-size") if command == "convert" => {
                let v = value(&mut parser)?;
                let rows = v.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                    Fail::usage(format!(
                        "--row-group-size {v:?}: expected a number of rows > 0"
                    ))
                })?;
                pq.row_group_rows = Some(rows);
            }
            Long("compression") if command == "convert" => {
                pq.compression = Some(value(&mut parser)?);
            }
            Long("columns") if command == "convert" => {
                let v = value(&mut parser)?;
                pq.columns = Some(v.split(',').map(str::to_string).collect());
            }
            Long("per-member") if command == "convert" => pq.per_member = true,
            Long("tensor") if command == "convert" => pq.tensor = true,
            Long("fill-nulls") if command == "convert" => {
                let v = value(&mut parser)?;
                let x = v.parse::<f64>().map_err(|_| {
                    Fail::usage(format!(
                        "--fill-nulls {v:?}: expected a number (nan allowed)"
                    ))
                })?;
                pq.fill_nulls = Some(x);
            }
            Short('o') | Long("output") if command == "plot" => {
                plot_out = Some(value(&mut parser)?);
            }
            Long("kind") if command == "plot" => {
                let v = value(&mut parser)?;
                plot_kind = match v.as_str() {
                    "line" => plot::Kind::Line,
                    "hist" => plot::Kind::Hist,
                    "heatmap" => plot::Kind::Heatmap,
                    _ => {
                        return Err(Fail::usage(format!(
                            "--kind {v:?}: expected line, hist or heatmap"
                        )))
                    }
                };
            }
            Long("bins") if command == "plot" => {
                let v = value(&mut parser)?;
                bins = v
                    .parse()
                    .ok()
                    .filter(|&b| (1..=10_000).contains(&b))
                    .ok_or_else(|| Fail::usage(format!("--bins {v:?}: expected 1 to 10000")))?;
            }
            Long("field") if matches!(command.as_str(), "show" | "plot") => {
                field = Some(value(&mut parser)?)
            }
            other => {
                return Err(Fail::usage(format!(
                    "{} for `ndnpy {command}`",
                    other.unexpected()
                )))
            }
        }
    }
    let one = |what: &str| -> Res<Target> {
        match operands.as_slice() {
            [one] => Ok(Target::parse(one)),
            _ => Err(Fail::usage(format!(
                "`ndnpy {command}` takes one {what}, {} given",
                operands.len()
            ))),
        }
    };
    let some = |ops: &[String]| -> Res<()> {
        if ops.is_empty() {
            Err(Fail::usage(format!(
                "`ndnpy {command}` needs at least one FILE"
            )))
        } else {
            Ok(())
        }
    };
    match command.as_str() {
        "ls" => {
            some(&operands)?;
            ls::run(&operands, json)
        }
        "show" => {
            let target = one("FILE[:MEMBER]")?;
            let range = resolve_rows(&target, rows.as_deref())?;
            show::run(&target, range, field.as_deref())?;
            Ok(0)
        }
        "stats" => {
            let target = one("FILE[:MEMBER]")?;
            let range = resolve_rows(&target, rows.as_deref())?;
            stats::run(&target, range, json, &mut Progress::new())?;
            Ok(0)
        }
        "diff" => match operands.as_slice() {
            [a, b] => diff::run(
                &Target::parse(a),
                &Target::parse(b),
                tol,
                json,
                &mut Progress::new(),
            ),
            _ => Err(Fail::usage(format!(
                "`ndnpy diff` compares two files (A B), {} given",
                operands.len()
            ))),
        },
        "convert" => match operands.as_slice() {
            [a, b] => {
                let (input, output) = (Target::parse(a), std::path::Path::new(b));
                let other = |p: &std::path::Path| {
                    p.extension().is_some_and(|e| {
                        e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("safetensors")
                    })
                };
                if input.selection.is_some() && (other(&input.path) || other(output) || pq.any()) {
                    return Err(Fail::usage(
                        "a selection (IN[SEL]) applies to conversions between .npy and .npz",
                    ));
                }
                // The file kinds choose the converter.
                if parquet::involved(&input, output, &pq) {
                    parquet::run(&input, output, &conv, &pq)?;
                } else if pq.any() {
                    return Err(Fail::usage(
                        "--row-group-size, --compression, --columns, --per-member, --tensor \
                         and --fill-nulls apply to conversions to and from .parquet",
                    ));
                } else if safetensors::involved(&input, output) {
                    safetensors::run(&input, output, &conv)?;
                } else {
                    convert::run(&input, output, &conv, &mut Progress::new())?;
                }
                Ok(0)
            }
            _ => Err(Fail::usage(format!(
                "`ndnpy convert` takes IN and OUT, {} given",
                operands.len()
            ))),
        },
        "plot" => {
            let target = one("FILE[:MEMBER]")?;
            let out = plot_out.ok_or_else(|| Fail::usage("`ndnpy plot` needs -o OUT.png"))?;
            plot::run(
                &target,
                field.as_deref(),
                plot_kind,
                bins,
                std::path::Path::new(&out),
            )?;
            Ok(0)
        }
        "validate" => {
            some(&operands)?;
            validate::run(&operands, &mut Progress::new())
        }
        other => Err(Fail::usage(format!(
            "unknown command {other:?} ({COMMANDS})"
        ))),
    }
}
