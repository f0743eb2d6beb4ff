//! A bounded walk over a Parquet footer before the parquet crate decodes it.
//!
//! The parquet crate reserves memory from counts in the footer before it checks them: a
//! schema element's `num_children` (an `i32`) becomes `Vec::with_capacity(n)`, and so does the
//! row-group list's length, whatever the footer really holds. A file of a few hundred bytes can
//! make it ask for tens of GiB, and a failed allocation aborts the process (`catch_unwind`
//! cannot stop that). This module walks the footer's Thrift (compact protocol) once, with
//! every step bounded by the bytes that are there, and refuses a footer whose counts the bytes
//! cannot back: a list longer than its remaining bytes, a `num_children` beyond the schema's
//! element count, nesting deeper than 64. What passes, parquet decodes as before; what the
//! walk cannot judge (no `PAR1` magic, a footer length beyond the file), parquet reports.
//!
//! Upstream, and when this goes: parquet 59.3.2, the version pinned here, bounds most Thrift
//! lists by the bytes left (apache/arrow-rs#10920, fixed by #10979 in 60.0.0 and backported to
//! 59.x, <https://github.com/apache/arrow-rs/issues/11186>), but still reserves two counts
//! unchecked: a schema element's `num_children` (`schema/types.rs`; bounded on the main line
//! by <https://github.com/apache/arrow-rs/pull/9884>) and the row-group list's length
//! (`file/metadata/thrift/mod.rs`; the remaining hardening is tracked in
//! <https://github.com/apache/arrow-rs/issues/9874>). This walk goes when the pinned parquet
//! bounds both; `footers_claiming_more_than_their_bytes_are_refused_before_allocating`
//! (`tests/it/parquet.rs`) holds a file of each kind.

use ndnpy_engine::base::error::{with_path, Error};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Nesting deeper than this is refused (parquet's own skip limit).
const MAX_DEPTH: u32 = 64;

/// Reads `file`'s footer and refuses one whose counts exceed what its bytes hold; leaves the
/// file at its start.
pub(super) fn check(file: &mut File, path: &Path) -> Result<(), Error> {
    let meta = read_footer(file).map_err(with_path("read", path))?;
    let Some(meta) = meta else { return Ok(()) };
    check_metadata(&meta).map_err(|reason| {
        super::foreign(format!(
            "its footer is damaged ({reason}), refused before decoding"
        ))
    })
}

/// The footer's Thrift bytes, or `None` where there is no footer to judge.
fn read_footer(file: &mut File) -> std::io::Result<Option<Vec<u8>>> {
    let len = file.seek(SeekFrom::End(0))?;
    if len < 12 {
        return Ok(None);
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(len - 8))?;
    file.read_exact(&mut tail)?;
    if &tail[4..] != b"PAR1" {
        return Ok(None);
    }
    let meta_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if meta_len + 12 > len {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(len - 8 - meta_len))?;
    let mut meta = Vec::new();
    // The length is at most the file's, and the bytes are there: parquet reads them too.
    file.by_ref().take(meta_len).read_to_end(&mut meta)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(Some(meta))
}

/// Walks a `FileMetaData` struct; `Err` says what is wrong.
fn check_metadata(meta: &[u8]) -> Result<(), String> {
    let mut walk = Walk {
        buf: meta,
        schema_len: None,
        children: Vec::new(),
    };
    walk.file_metadata()?;
    let elements = walk.schema_len.unwrap_or(0);
    for (i, &n) in walk.children.iter().enumerate() {
        if n < 0 || n as u64 > elements {
            return Err(format!(
                "schema element {i} claims {n} children, the schema has {elements} elements"
            ));
        }
    }
    Ok(())
}

/// Compact-protocol type codes.
const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

struct Walk<'a> {
    buf: &'a [u8],
    /// The schema list's length (`FileMetaData` field 2).
    schema_len: Option<u64>,
    /// Each schema element's `num_children` (`SchemaElement` field 5), where present.
    children: Vec<i64>,
}

impl Walk<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let (&b, rest) = self.buf.split_first().ok_or("it ends early")?;
        self.buf = rest;
        Ok(b)
    }

    fn skip(&mut self, n: u64) -> Result<(), String> {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.buf.len())
            .ok_or("a length runs past its end")?;
        self.buf = &self.buf[n..];
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint runs over 10 bytes".into())
    }

    fn zigzag(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A list or set header: element type and count, the count bounded by the bytes left
    /// (each element takes at least one byte).
    fn list_header(&mut self) -> Result<(u8, u64), String> {
        let h = self.byte()?;
        let count = match h >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        if count > self.buf.len() as u64 {
            return Err(format!(
                "a list claims {count} elements in {} bytes",
                self.buf.len()
            ));
        }
        Ok((h & 0x0f, count))
    }

    /// The fields of a struct, handing each `(id, type)` to `field`, which consumes the value
    /// or returns `false` to have it skipped.
    fn fields(
        &mut self,
        depth: u32,
        mut field: impl FnMut(&mut Self, i16, u8) -> Result<bool, String>,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("it nests deeper than {MAX_DEPTH}"));
        }
        let mut last = 0i16;
        loop {
            let h = self.byte()?;
            if h == 0 {
                return Ok(());
            }
            let ty = h & 0x0f;
            let id = match h >> 4 {
                0 => i16::try_from(self.zigzag()?).map_err(|_| "a field id is out of range")?,
                delta => last.wrapping_add(i16::from(delta)),
            };
            last = id;
            if !field(self, id, ty)? {
                self.value(ty, depth + 1)?;
            }
        }
    }

    /// Skips one value of type `ty` (a field's type code; in a list, a boolean is a byte).
    fn value(&mut self, ty: u8, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("it nests deeper than {MAX_DEPTH}"));
        }
        match ty {
            BOOL_TRUE | BOOL_FALSE => Ok(()),
            BYTE => self.skip(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.skip(8),
            BINARY => {
                let n = self.varint()?;
                self.skip(n)
            }
            LIST | SET => {
                let (elem, count) = self.list_header()?;
                for _ in 0..count {
                    self.element(elem, depth + 1)?;
                }
                Ok(())
            }
            MAP => {
                let count = self.varint()?;
                if count == 0 {
                    return Ok(());
                }
                if count > self.buf.len() as u64 {
                    return Err(format!("a map claims {count} entries"));
                }
                let kv = self.byte()?;
                for _ in 0..count {
                    self.element(kv >> 4, depth + 1)?;
                    self.element(kv & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => self.fields(depth, |_, _, _| Ok(false)),
            other => Err(format!("unknown Thrift type {other}")),
        }
    }

    /// One list element: as [`Walk::value`], except that a boolean takes a byte.
    fn element(&mut self, ty: u8, depth: u32) -> Result<(), String> {
        match ty {
            BOOL_TRUE | BOOL_FALSE => self.skip(1),
            _ => self.value(ty, depth),
        }
    }

    fn file_metadata(&mut self) -> Result<(), String> {
        self.fields(0, |w, id, ty| {
            if id != 2 || ty != LIST {
                return Ok(false);
            }
            let (elem, count) = w.list_header()?;
            w.schema_len = Some(count);
            for _ in 0..count {
                if elem != STRUCT {
                    w.element(elem, 1)?;
                    continue;
                }
                w.fields(1, |w, id, ty| {
                    if id == 5 && ty == I32 {
                        let n = w.zigzag()?;
                        w.children.push(n);
                        return Ok(true);
                    }
                    Ok(false)
                })?;
            }
            Ok(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compact-protocol writer for the footers of these tests.
    #[derive(Default)]
    struct Out(Vec<u8>);

    impl Out {
        fn varint(&mut self, mut v: u64) -> &mut Self {
            while v >= 0x80 {
                self.0.push(v as u8 | 0x80);
                v >>= 7;
            }
            self.0.push(v as u8);
            self
        }
        fn field(&mut self, delta: u8, ty: u8) -> &mut Self {
            self.0.push(delta << 4 | ty);
            self
        }
        fn int(&mut self, v: i64) -> &mut Self {
            self.varint(((v << 1) ^ (v >> 63)) as u64)
        }
        fn bytes(&mut self, b: &[u8]) -> &mut Self {
            self.varint(b.len() as u64);
            self.0.extend_from_slice(b);
            self
        }
        fn list(&mut self, ty: u8, n: u64) -> &mut Self {
            if n < 15 {
                self.0.push((n as u8) << 4 | ty);
                self
            } else {
                self.0.push(0xf0 | ty);
                self.varint(n)
            }
        }
        fn stop(&mut self) -> &mut Self {
            self.0.push(0);
            self
        }
    }

    /// A footer with a root of `children` children and one `INT32` leaf.
    fn footer(children: i64, row_groups: u64) -> Vec<u8> {
        let mut o = Out::default();
        o.field(1, I32).int(1);
        o.field(1, LIST).list(STRUCT, 2);
        // root: name (4), num_children (5)
        o.field(4, BINARY)
            .bytes(b"schema")
            .field(1, I32)
            .int(children)
            .stop();
        // leaf: type (1), repetition (3), name (4)
        o.field(1, I32)
            .int(1)
            .field(2, I32)
            .int(0)
            .field(1, BINARY)
            .bytes(b"a")
            .stop();
        o.field(1, I64).int(0);
        o.field(1, LIST).list(STRUCT, row_groups);
        o.stop();
        o.0
    }

    #[test]
    fn a_consistent_footer_passes() {
        check_metadata(&footer(1, 0)).unwrap();
    }

    #[test]
    fn counts_the_bytes_cannot_back_are_refused() {
        let e = check_metadata(&footer(i32::MAX.into(), 0)).unwrap_err();
        assert!(e.contains("2147483647 children"), "{e}");
        let e = check_metadata(&footer(-1, 0)).unwrap_err();
        assert!(e.contains("-1 children"), "{e}");
        let e = check_metadata(&footer(1, 1 << 30)).unwrap_err();
        assert!(e.contains("1073741824 elements"), "{e}");
    }

    #[test]
    fn truncations_and_deep_nesting_are_refused() {
        let full = footer(1, 0);
        for cut in 0..full.len() {
            assert!(check_metadata(&full[..cut]).is_err(), "cut at {cut}");
        }
        // 100 nested structs in an unknown field.
        let mut o = Out::default();
        for _ in 0..100 {
            o.field(9, STRUCT);
        }
        assert!(check_metadata(&o.0).unwrap_err().contains("deeper"));
    }
}
