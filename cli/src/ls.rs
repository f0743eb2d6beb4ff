//! `ndnpy ls`: what each file holds, from the headers alone.

use crate::fail::{Fail, Res, EXIT_OK};
use crate::source::{file_kind, FileKind};
use ndnpy::{
    dtype::ByteOrder, dtype::ScalarKind, dtype::Structured, header::HeaderInfo, DType, NpzReader,
    ReadOptions,
};
use serde_json::{json, Value};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// numpy's `str(dtype)`: `float64` for native numbers, the type string (`>i2`, `<U3`, `|S5`)
/// otherwise, the descr list for records.
pub fn numpy_name(d: &DType) -> String {
    let descr = d.descr();
    let Some(s) = d.as_scalar() else {
        return match d {
            DType::Structured(r) => record_str(r),
            _ => descr,
        };
    };
    let type_str = descr.trim_matches('\'').to_string();
    let native =
        matches!(s.byte_order(), ByteOrder::NotApplicable) || s.byte_order() == ByteOrder::NATIVE;
    let bits = s.size() * 8;
    match s.kind() {
        ScalarKind::Bool => "bool".into(),
        ScalarKind::Object => "object".into(),
        _ if !native => type_str,
        ScalarKind::Int => format!("int{bits}"),
        ScalarKind::UInt => format!("uint{bits}"),
        ScalarKind::Float => format!("float{bits}"),
        ScalarKind::Complex => format!("complex{bits}"),
        ScalarKind::Datetime | ScalarKind::Timedelta => {
            let name = if s.kind() == ScalarKind::Datetime {
                "datetime64"
            } else {
                "timedelta64"
            };
            match type_str.find('[') {
                Some(i) => format!("{name}{}", &type_str[i..]),
                None => name.into(),
            }
        }
        _ => type_str,
    }
}

/// numpy's `str()` of a record dtype: the list form when the fields are packed in order,
/// the dict form (names, formats, offsets, itemsize) otherwise.
fn record_str(r: &Structured) -> String {
    let mut offset = 0;
    let packed = r.fields().iter().all(|f| {
        let ok = f.offset == offset;
        offset += f.dtype.itemsize();
        ok
    }) && offset == r.itemsize();
    let name = |f: &ndnpy::dtype::Field| match &f.title {
        Some(t) => format!("({}, {})", repr_str(t), repr_str(&f.name)),
        None => repr_str(&f.name),
    };
    if packed {
        let fields: Vec<String> = r
            .fields()
            .iter()
            .map(|f| match &f.dtype {
                DType::SubArray(sub) => format!(
                    "({}, {}, {})",
                    name(f),
                    field_str(sub.base()),
                    shape_tuple(sub.shape())
                ),
                d => format!("({}, {})", name(f), field_str(d)),
            })
            .collect();
        format!("[{}]", fields.join(", "))
    } else {
        let list = |v: Vec<String>| format!("[{}]", v.join(", "));
        let fs = r.fields();
        let mut s = format!(
            "{{'names': {}, 'formats': {}, 'offsets': {}",
            list(fs.iter().map(|f| repr_str(&f.name)).collect()),
            list(fs.iter().map(|f| field_str(&f.dtype)).collect()),
            list(fs.iter().map(|f| f.offset.to_string()).collect()),
        );
        if fs.iter().any(|f| f.title.is_some()) {
            let titles = fs
                .iter()
                .map(|f| f.title.as_deref().map_or("None".into(), repr_str))
                .collect();
            s.push_str(&format!(", 'titles': {}", list(titles)));
        }
        s.push_str(&format!(", 'itemsize': {}}}", r.itemsize()));
        s
    }
}

/// A field's dtype as numpy's record `str()` spells it: `'?'`, `'i1'`, `'S3'`, `'<f8'`,
/// a nested record's list, a sub-array's `('<f8', (2, 3))`.
fn field_str(d: &DType) -> String {
    match d {
        DType::Structured(r) => record_str(r),
        DType::SubArray(sub) => {
            format!("({}, {})", field_str(sub.base()), shape_tuple(sub.shape()))
        }
        DType::Scalar(s) => {
            let t = d.descr();
            let t = t.trim_matches('\'');
            let short = match s.kind() {
                ScalarKind::Bool => "?".to_string(),
                _ if s.byte_order() == ByteOrder::NotApplicable => {
                    t.trim_start_matches('|').to_string()
                }
                _ => t.to_string(),
            };
            format!("'{short}'")
        }
        _ => d.descr(),
    }
}

/// Python's `repr` of a string.
fn repr_str(s: &str) -> String {
    crate::pyfmt::repr_str(s)
}

/// `s` padded with spaces to `width` characters, on the left when `right` (right-aligned).
/// (`format!`'s widths stop at 65,535, which a hostile file's dtype can exceed.)
pub fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(s.chars().count()));
    if right {
        fill + s
    } else {
        format!("{s}{fill}")
    }
}

/// A shape as a Python tuple: `()`, `(5,)`, `(2, 3)`.
pub fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Bytes in binary units, one decimal (`176 B`, `1.5 KiB`, `100.0 GiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// One row of the listing.
struct Row {
    name: String,
    info: Option<HeaderInfo>,
    /// Why there is no header: not an array, or an error.
    note: Option<String>,
    disk: u64,
    compression: &'static str,
}

impl Row {
    fn json(&self) -> Value {
        let mut v = json!({
            "name": self.name,
            "disk_bytes": self.disk,
            "compression": self.compression,
        });
        if let Some(info) = &self.info {
            let h = &info.header;
            v["dtype"] = json!(numpy_name(&h.dtype));
            v["descr"] = json!(h.dtype.descr());
            v["shape"] = json!(h.shape);
            v["order"] = json!(if h.fortran_order { "F" } else { "C" });
            v["memory_bytes"] = json!(info.data_len);
            v["format_version"] = json!(info.version.to_string());
        }
        if let Some(note) = &self.note {
            v["note"] = json!(note);
        }
        v
    }
}

/// Lists `paths`; returns the exit status (4 if a file or member could not be read).
pub fn run(paths: &[String], as_json: bool) -> Res<i32> {
    let mut code = EXIT_OK;
    let mut out = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let path = Path::new(p);
        match list(path) {
            Ok((kind, rows)) => {
                if rows.iter().any(|r| {
                    r.info.is_none() && r.note.as_deref().is_some_and(|n| n.starts_with("error"))
                }) {
                    code = code.max(crate::fail::EXIT_BAD_FILE);
                }
                if as_json {
                    out.push(json!({
                        "file": p,
                        "kind": kind,
                        "arrays": rows.iter().map(Row::json).collect::<Vec<_>>(),
                    }));
                } else {
                    if i > 0 {
                        outln!();
                    }
                    print_table(p, kind, &rows);
                }
            }
            Err(e) => {
                eprintln!("ndnpy: {e}");
                code = code.max(e.code);
                if as_json {
                    out.push(json!({"file": p, "error": e.message}));
                }
            }
        }
    }
    if as_json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(out)).unwrap_or_default()
        );
    }
    Ok(code)
}

fn list(path: &Path) -> Res<(&'static str, Vec<Row>)> {
    let name = path.display().to_string();
    let kind = file_kind(path)?;
    let meta = std::fs::metadata(path).map_err(|e| Fail::io(path, "read", e))?;
    match kind {
        FileKind::Npy => {
            let file = File::open(path).map_err(|e| Fail::io(path, "open", e))?;
            let info = ndnpy::Header::read(&mut BufReader::new(file), &ReadOptions::default())
                .map_err(|e| Fail::lib(&name, e))?;
            Ok((
                "npy",
                vec![Row {
                    name,
                    info: Some(info),
                    note: None,
                    disk: meta.len(),
                    compression: "none",
                }],
            ))
        }
        FileKind::Npz => {
            let mut npz = NpzReader::open(path).map_err(|e| Fail::lib(&name, e))?;
            let mut rows = Vec::with_capacity(npz.len());
            for index in 0..npz.len() {
                let mut member = npz.member(index).map_err(|e| Fail::lib(&name, e))?;
                let (key, disk, compression) = {
                    let info = member.info();
                    let compression = match info.compression() {
                        Some(ndnpy::npz::Compression::Stored) => "stored",
                        Some(ndnpy::npz::Compression::Deflated) => "deflated",
                        _ => "other",
                    };
                    (info.key().to_string(), info.compressed_size(), compression)
                };
                let (info, note) = match member.header() {
                    Ok(info) => (Some(info), None),
                    Err(e) if e.kind() == ndnpy::ErrorKind::NotNpy => (
                        None,
                        Some(format!("not an array ({} bytes)", member.info().size())),
                    ),
                    Err(e) => (None, Some(format!("error: {e}"))),
                };
                rows.push(Row {
                    name: key,
                    info,
                    note,
                    disk,
                    compression,
                });
            }
            Ok(("npz", rows))
        }
    }
}

fn print_table(path: &str, kind: &str, rows: &[Row]) {
    if kind == "npz" {
        let n = rows.len();
        outln!(
            "{path}: .npz archive, {n} member{}",
            if n == 1 { "" } else { "s" }
        );
    } else {
        outln!("{path}: .npy file");
    }
    let mut table = vec![[
        "name",
        "dtype",
        "shape",
        "order",
        "on disk",
        "in memory",
        "compression",
    ]
    .map(String::from)
    .to_vec()];
    for r in rows {
        let name = if kind == "npy" {
            Path::new(&r.name)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| r.name.clone())
        } else {
            r.name.clone()
        };
        match &r.info {
            Some(info) => {
                let h = &info.header;
                table.push(vec![
                    name,
                    numpy_name(&h.dtype),
                    shape_tuple(&h.shape),
                    if h.fortran_order { "F" } else { "C" }.into(),
                    human(r.disk),
                    human(info.data_len as u64),
                    r.compression.into(),
                ]);
            }
            None => table.push(vec![
                name,
                "-".into(),
                "-".into(),
                "-".into(),
                human(r.disk),
                "-".into(),
                format!("{}  {}", r.compression, r.note.as_deref().unwrap_or("")),
            ]),
        }
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| {
            table
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            // Sizes right-aligned, the rest left.
            if c == 4 || c == 5 {
                line.push_str(&format!("  {}", pad(cell, widths[c], true)));
            } else {
                line.push_str(&format!("  {}", pad(cell, widths[c], false)));
            }
        }
        outln!("{}", line.trim_end());
    }
}
