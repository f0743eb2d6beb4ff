//! `ndnpy validate`: every byte of every file read and checked, one verdict per file.

use crate::fail::{Fail, Res, EXIT_FOUND, EXIT_IO, EXIT_OK};
use crate::source::{file_kind, ArraySource, FileKind};
use ndnpy::{DynArray, ErrorKind, NpzReader, ReadOptions};
use std::path::Path;

/// Checks `paths`; prints `FILE: ok` or `FILE: invalid: why` for each. Returns 0 when all
/// are valid, 1 when one is not, 3 when one could not be read at all.
pub fn run(paths: &[String], progress: &mut crate::progress::Progress) -> Res<i32> {
    let mut code = EXIT_OK;
    for p in paths {
        match check(Path::new(p), progress) {
            Ok(notes) => {
                if notes.is_empty() {
                    outln!("{p}: ok");
                } else {
                    outln!("{p}: ok ({})", notes.join("; "));
                }
            }
            // A URL: the whole command is a usage error, as for any command.
            Err(e) if e.code == crate::fail::EXIT_USAGE => return Err(e),
            Err(e) if e.code == EXIT_IO => {
                outln!("{p}: unreadable: {}", strip(&e.message, p));
                code = code.max(EXIT_IO);
            }
            Err(e) => {
                outln!("{p}: invalid: {}", strip(&e.message, p));
                code = code.max(EXIT_FOUND);
            }
        }
    }
    Ok(code)
}

/// The message without the leading `path: ` (the verdict line names the file already).
fn strip(message: &str, path: &str) -> String {
    let message = match message.strip_prefix(path) {
        Some(rest) => match rest.strip_prefix(": ") {
            Some(m) => m.to_string(),
            // `path:member: why`
            None => format!("member {}", rest.trim_start_matches(':')),
        },
        None => message.to_string(),
    };
    message.replace("; `ndnpy validate` checks the whole file", "")
}

/// What is worth saying about a valid file (pickled members not checked, trailing bytes).
fn check(path: &Path, progress: &mut crate::progress::Progress) -> Res<Vec<String>> {
    let mut notes = Vec::new();
    match file_kind(path)? {
        FileKind::Npy => {
            let src = ArraySource::open_npy(path)?;
            if src.dtype().has_object() {
                // The data is a pickle, whose length the header does not give.
                notes.push("pickled Python objects, not checked".into());
                return Ok(notes);
            }
            let len = std::fs::metadata(path)
                .map_err(|e| Fail::io(path, "read", e))?
                .len();
            let end = src.info.data_offset + src.info.data_len as u64;
            if len < end {
                return Err(Fail::bad(
                    path,
                    &format!(
                        "truncated: the header declares {} data bytes, the file holds {}",
                        src.info.data_len,
                        len.saturating_sub(src.info.data_offset)
                    ),
                ));
            }
            if len > end {
                notes.push(format!(
                    "{} bytes after the array, ignored by numpy",
                    len - end
                ));
            }
            progress.start(&src.name, src.len() as u64, src.dtype().itemsize() as u64);
            src.for_each_chunk(0..src.len(), |_, _| Ok(()), &mut |done| {
                progress.set(done as u64)
            })?;
            progress.finish();
        }
        FileKind::Npz => {
            let name = path.display().to_string();
            let mut npz = NpzReader::open(path).map_err(|e| Fail::lib(&name, e))?;
            let keys: Vec<String> = npz.keys().map(str::to_string).collect();
            for key in keys {
                let member_name = format!("{name}:{key}");
                let mut member = npz
                    .member(key.as_str())
                    .map_err(|e| Fail::lib(&member_name, e))?;
                // What the archive's reader says the member is (numpy reads a member whose
                // name has no `.npy` and that is not an array as bytes).
                let is_array = match member.header() {
                    Ok(_) => true,
                    Err(e) if e.kind() == ErrorKind::NotNpy => false,
                    Err(e) => return Err(Fail::lib(&member_name, e)),
                };
                // The whole member: sizes and CRC-32 checked by the reader.
                let bytes = member.bytes().map_err(|e| Fail::lib(&member_name, e))?;
                if !is_array {
                    notes.push(format!("member {key:?} is not an array"));
                    continue;
                }
                let info = ndnpy::Header::read(&mut &bytes[..], &ReadOptions::default())
                    .map_err(|e| Fail::lib(&member_name, e))?;
                if info.header.dtype.has_object() {
                    notes.push(format!(
                        "member {key:?} holds pickled Python objects, not checked"
                    ));
                    continue;
                }
                DynArray::read_npy(&bytes[..]).map_err(|e| Fail::lib(&member_name, e))?;
            }
        }
    }
    Ok(notes)
}
