//! The ZIP container of an `.npz` archive, read the way Python's `zipfile` (and so `np.load`)
//! reads it: the end of central directory record found in the last 65,557 bytes, the zip64
//! record right before it when there is one, the central directory read in one piece, and each
//! member's local header only when the member is opened.
//!
//! Every length and offset is hostile. The central directory must lie before its end record,
//! so reading it never allocates more than the archive holds; an entry's name, extra field and
//! comment must lie inside the directory; a member's data must end before the next member's
//! local header (or the directory), and no two entries may share a local header, which
//! refuses overlapping members (the "better zip bomb"); a deflated member may not declare more than 1032 bytes per compressed byte, deflate's
//! maximum ratio; and a stored member's two sizes must agree.

use crate::error::{Error, FormatError};
use crate::header::{read_full, read_part};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::sync::OnceLock;

/// `PK\x03\x04`: a local file header.
const LOCAL_SIG: [u8; 4] = *b"PK\x03\x04";
/// `PK\x01\x02`: a central directory entry.
const CENTRAL_SIG: [u8; 4] = *b"PK\x01\x02";
/// `PK\x05\x06`: the end of central directory record.
const EOCD_SIG: [u8; 4] = *b"PK\x05\x06";
/// `PK\x06\x07`: the zip64 end of central directory locator.
const ZIP64_LOCATOR_SIG: [u8; 4] = *b"PK\x06\x07";
/// `PK\x06\x06`: the zip64 end of central directory record.
const ZIP64_EOCD_SIG: [u8; 4] = *b"PK\x06\x06";

const EOCD_LEN: u64 = 22;
const MAX_COMMENT: u64 = 65_535;
const ZIP64_LOCATOR_LEN: u64 = 20;
const ZIP64_EOCD_LEN: u64 = 56;
const CENTRAL_LEN: usize = 46;
pub(crate) const LOCAL_LEN: usize = 30;

/// Compression method 0.
pub(crate) const STORED: u16 = 0;
/// Compression method 8.
pub(crate) const DEFLATED: u16 = 8;

/// Deflate's largest expansion: 258 bytes from a 1-bit length code and a 1-bit distance code.
pub(crate) const MAX_DEFLATE_RATIO: u64 = 1032;

/// Members whose compressed data is at most this long are read with their local header in one
/// call, then parsed from memory.
pub(crate) const SMALL_MEMBER: u64 = 64 << 10;

/// General purpose flag bits.
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_PATCHED: u16 = 1 << 5;
const FLAG_STRONG_ENCRYPTION: u16 = 1 << 6;
const FLAG_UTF8: u16 = 1 << 11;

/// One member, as its central directory entry describes it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The name, decoded as UTF-8 (flag bit 11) or CP437, as `zipfile` decodes it.
    pub(crate) name: String,
    /// The name's bytes, to compare with the local header's.
    raw_name: Box<[u8]>,
    pub(crate) flags: u16,
    pub(crate) method: u16,
    pub(crate) crc32: u32,
    pub(crate) compressed_size: u64,
    pub(crate) size: u64,
    /// Absolute offset of the local header (the archive's leading bytes included), or `None`
    /// when the recorded offset points before the start of the input.
    header_offset: Option<u64>,
    /// Absolute offset of the central directory entry, for error messages.
    pub(crate) entry_offset: u64,
    /// The member's data must end at or before this offset: the next local header, or the
    /// central directory.
    end_bound: u64,
    /// Another directory entry points at the same local header.
    shares_header: bool,
}

impl Entry {
    /// The member's key: its name without one `.npy` suffix, as `NpzFile.files` lists it.
    pub(crate) fn key(&self) -> &str {
        self.name.strip_suffix(".npy").unwrap_or(&self.name)
    }

    /// Checks what can be checked before reading: encryption, the compression method, and the
    /// declared sizes.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let unsupported = |feature: String| {
            Error::Format(FormatError::UnsupportedMember {
                member: self.name.clone(),
                feature,
            })
        };
        if self.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) != 0 {
            return Err(unsupported("encryption".into()));
        }
        if self.flags & FLAG_PATCHED != 0 {
            return Err(unsupported("compressed patched data (flag bit 5)".into()));
        }
        match self.method {
            STORED if self.size != self.compressed_size => Err(FormatError::Zip {
                offset: self.entry_offset,
                expected: format!(
                    "equal compressed and uncompressed sizes for stored member {:?}",
                    self.name
                ),
                found: format!(
                    "compressed size {}, uncompressed size {}",
                    self.compressed_size, self.size
                ),
            }
            .into()),
            STORED => Ok(()),
            DEFLATED if self.size > self.compressed_size.saturating_mul(MAX_DEFLATE_RATIO) => {
                Err(FormatError::Zip {
                    offset: self.entry_offset,
                    expected: format!(
                        "an uncompressed size deflate can reach from {} compressed bytes (at \
                         most {} times as many) for member {:?}",
                        self.compressed_size, MAX_DEFLATE_RATIO, self.name
                    ),
                    found: format!("uncompressed size {} (a zip bomb?)", self.size),
                }
                .into())
            }
            DEFLATED => Ok(()),
            m => Err(unsupported(format!(
                "compression method {m}{}",
                match m {
                    1 => " (shrink)",
                    6 => " (implode)",
                    9 => " (deflate64)",
                    12 => " (bzip2)",
                    14 => " (lzma)",
                    93 => " (zstd)",
                    95 => " (xz)",
                    98 => " (ppmd)",
                    _ => "",
                }
            ))),
        }
    }
}

#[cfg(test)]
impl Entry {
    /// An entry with these facts, for tests of the member reader.
    pub(crate) fn for_test(
        name: &str,
        method: u16,
        crc32: u32,
        compressed_size: u64,
        size: u64,
    ) -> Entry {
        Entry {
            name: name.into(),
            raw_name: name.as_bytes().into(),
            flags: 0,
            method,
            crc32,
            compressed_size,
            size,
            header_offset: Some(0),
            entry_offset: 0,
            end_bound: u64::MAX,
            shares_header: false,
        }
    }
}

/// Where a member's data is, once its local header has been read.
pub(crate) struct Located {
    /// Absolute offset of the first data byte.
    pub(crate) data_start: u64,
    /// When the data was read along with the header: its range in the scratch buffer.
    pub(crate) in_scratch: Option<std::ops::Range<usize>>,
}

/// The central directory of an archive.
#[derive(Debug)]
pub(crate) struct Directory {
    pub(crate) entries: Vec<Entry>,
    /// Name -> index of the last entry of that name (zipfile's `NameToInfo`), built on the
    /// first lookup.
    by_name: OnceLock<HashMap<String, usize>>,
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// Shorthand for a malformed structure.
fn zip_err(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Error {
    Error::Format(FormatError::Zip {
        offset,
        expected: expected.into(),
        found: found.into(),
    })
}

/// The bytes as a Python bytes literal body, for messages.
fn show(bytes: &[u8]) -> String {
    format!("b\"{}\"", bytes.escape_ascii())
}

/// Reads exactly `buf.len()` bytes at `offset`, or reports `part` as truncated.
fn read_at<R: Read + Seek>(
    r: &mut R,
    offset: u64,
    buf: &mut [u8],
    part: &'static str,
) -> Result<(), Error> {
    r.seek(SeekFrom::Start(offset))?;
    read_part(r, buf, part)
}

impl Directory {
    /// Reads the central directory of the archive `r` holds.
    pub(crate) fn read<R: Read + Seek>(r: &mut R) -> Result<Directory, Error> {
        let len = r.seek(SeekFrom::End(0))?;
        let tail_len = len.min(EOCD_LEN + MAX_COMMENT);
        let tail_start = len - tail_len;
        // At most 65,557 bytes, and only as many as the input holds.
        let mut tail = vec![0u8; tail_len as usize];
        read_at(r, tail_start, &mut tail, "end of central directory")?;
        let Some(at) = find_eocd(&tail) else {
            let mut head = [0u8; 4];
            r.seek(SeekFrom::Start(0))?;
            let n = read_full(r, &mut head)?;
            return Err(FormatError::NotZip {
                len,
                found: head[..n].to_vec(),
            }
            .into());
        };
        let eocd = &tail[at..at + EOCD_LEN as usize];
        let eocd_pos = tail_start + at as u64;
        let mut cd_size = u64::from(le32(eocd, 12));
        let mut cd_offset = u64::from(le32(eocd, 16));
        let mut cd_end = eocd_pos;

        // The zip64 locator, when present, sits right before the end record, and the zip64
        // end record right before it (zipfile assumes no extensible data sector, and so do we).
        if eocd_pos >= ZIP64_LOCATOR_LEN + ZIP64_EOCD_LEN {
            let loc_pos = eocd_pos - ZIP64_LOCATOR_LEN;
            let mut loc = [0u8; ZIP64_LOCATOR_LEN as usize];
            read_at(
                r,
                loc_pos,
                &mut loc,
                "zip64 end of central directory locator",
            )?;
            if loc[..4] == ZIP64_LOCATOR_SIG {
                let (disk, disks) = (le32(&loc, 4), le32(&loc, 16));
                if disk != 0 || disks > 1 {
                    return Err(zip_err(
                        loc_pos,
                        "a single-disk archive",
                        format!("a zip64 locator for disk {disk} of {disks} (spanned archive)"),
                    ));
                }
                let rec_pos = loc_pos - ZIP64_EOCD_LEN;
                let mut rec = [0u8; ZIP64_EOCD_LEN as usize];
                read_at(r, rec_pos, &mut rec, "zip64 end of central directory")?;
                if rec[..4] == ZIP64_EOCD_SIG {
                    cd_size = le64(&rec, 40);
                    cd_offset = le64(&rec, 48);
                    cd_end = rec_pos;
                }
            }
        }

        // The directory ends where its end record starts. Bytes before the archive proper (a
        // self-extractor stub, say) shift every offset: zipfile's "concat".
        let Some(cd_start) = cd_end.checked_sub(cd_size) else {
            return Err(zip_err(
                eocd_pos,
                format!("a central directory of at most {cd_end} bytes (the bytes before it)"),
                format!("{cd_size} bytes"),
            ));
        };
        let concat = i128::from(cd_start) - i128::from(cd_offset);

        // cd_size <= cd_end <= len: the allocation is bounded by the input's length.
        let cd_len = usize::try_from(cd_size).map_err(|_| {
            zip_err(
                eocd_pos,
                "a central directory that fits in memory",
                format!("{cd_size} bytes"),
            )
        })?;
        let mut cd = vec![0u8; cd_len];
        read_at(r, cd_start, &mut cd, "central directory")?;
        let mut entries = Vec::new();
        let mut pos = 0usize;
        while pos < cd.len() {
            let entry_offset = cd_start + pos as u64;
            let fixed = cd.get(pos..pos + CENTRAL_LEN).ok_or_else(|| {
                zip_err(
                    entry_offset,
                    format!("a {CENTRAL_LEN}-byte central directory entry"),
                    format!("{} bytes left in the directory", cd.len() - pos),
                )
            })?;
            if fixed[..4] != CENTRAL_SIG {
                return Err(zip_err(
                    entry_offset,
                    format!("central directory entry signature {}", show(&CENTRAL_SIG)),
                    show(&fixed[..4]),
                ));
            }
            let flags = le16(fixed, 8);
            let method = le16(fixed, 10);
            let crc32 = le32(fixed, 16);
            let mut compressed_size = u64::from(le32(fixed, 20));
            let mut size = u64::from(le32(fixed, 24));
            let (n, m, k) = (
                usize::from(le16(fixed, 28)),
                usize::from(le16(fixed, 30)),
                usize::from(le16(fixed, 32)),
            );
            let mut header_offset = u64::from(le32(fixed, 42));
            let body_start = pos + CENTRAL_LEN;
            let body_end = body_start + n + m + k;
            let body = cd.get(body_start..body_end).ok_or_else(|| {
                zip_err(
                    entry_offset,
                    format!(
                        "a name, extra field and comment of {} bytes inside the central \
                         directory",
                        n + m + k
                    ),
                    format!("{} bytes left in the directory", cd.len() - body_start),
                )
            })?;
            let raw_name = &body[..n];
            let extra = &body[n..n + m];
            parse_zip64_extra(
                extra,
                &mut size,
                &mut compressed_size,
                &mut header_offset,
                entry_offset,
            )?;
            let name = decode_name(raw_name, flags & FLAG_UTF8 != 0);
            let header_offset = u64::try_from(i128::from(header_offset) + concat).ok();
            entries.push(Entry {
                name,
                raw_name: raw_name.into(),
                flags,
                method,
                crc32,
                compressed_size,
                size,
                header_offset,
                entry_offset,
                end_bound: cd_start,
                shares_header: false,
            });
            pos = body_end;
        }
        set_end_bounds(&mut entries, cd_start);
        Ok(Directory {
            entries,
            by_name: OnceLock::new(),
        })
    }

    /// The index of the member named exactly `name` (the last one, if several are).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.by_name
            .get_or_init(|| {
                let mut map = HashMap::with_capacity(self.entries.len());
                for (i, e) in self.entries.iter().enumerate() {
                    map.insert(e.name.clone(), i);
                }
                map
            })
            .get(name)
            .copied()
    }

    /// numpy's lookup: the member named `key`, else the member named `key + ".npy"`.
    pub(crate) fn lookup(&self, key: &str) -> Option<usize> {
        self.find(key).or_else(|| self.find(&format!("{key}.npy")))
    }

    /// Reads member `index`'s local header and checks where its data lies. When the data is
    /// at most [`SMALL_MEMBER`] bytes it is read in the same call into `scratch`.
    pub(crate) fn locate<R: Read + Seek>(
        &self,
        r: &mut R,
        index: usize,
        scratch: &mut Vec<u8>,
    ) -> Result<Located, Error> {
        let e = &self.entries[index];
        let header_offset = e.header_offset.ok_or_else(|| {
            zip_err(
                e.entry_offset,
                format!(
                    "a local header offset inside the archive for member {:?}",
                    e.name
                ),
                "an offset before the start of the input",
            )
        })?;
        if e.shares_header {
            return Err(zip_err(
                e.entry_offset,
                format!("a local header of member {:?}'s own", e.name),
                format!(
                    "the local header at byte {header_offset}, which another entry points to \
                     too (overlapping members: a zip bomb?)"
                ),
            ));
        }
        // Header, name, room for a zip64 and an alignment field, and small data.
        let guess = (LOCAL_LEN + e.raw_name.len() + 128) as u64
            + if e.compressed_size <= SMALL_MEMBER {
                e.compressed_size
            } else {
                0
            };
        let want = guess.min(e.end_bound.saturating_sub(header_offset));
        scratch.clear();
        scratch.resize(want as usize, 0);
        r.seek(SeekFrom::Start(header_offset))?;
        let got = read_full(r, scratch)?;
        scratch.truncate(got);
        let local = scratch.get(..LOCAL_LEN).ok_or_else(|| {
            zip_err(
                header_offset,
                format!(
                    "a {LOCAL_LEN}-byte local file header for member {:?}",
                    e.name
                ),
                format!("{got} bytes before the next member or the central directory"),
            )
        })?;
        if local[..4] != LOCAL_SIG {
            return Err(zip_err(
                header_offset,
                format!(
                    "local file header signature {} for member {:?}",
                    show(&LOCAL_SIG),
                    e.name
                ),
                show(&local[..4]),
            ));
        }
        let (n, m) = (usize::from(le16(local, 26)), usize::from(le16(local, 28)));
        let local_name = scratch.get(LOCAL_LEN..LOCAL_LEN + n);
        if local_name != Some(&e.raw_name[..]) {
            let found = match local_name {
                Some(b) => show(b),
                None => format!("a name of {n} bytes"),
            };
            return Err(zip_err(
                header_offset,
                format!(
                    "the local header to repeat the member name {}",
                    show(&e.raw_name)
                ),
                found,
            ));
        }
        let data_start = header_offset + (LOCAL_LEN + n + m) as u64;
        let data_end = data_start.checked_add(e.compressed_size);
        if data_end.is_none_or(|end| end > e.end_bound) {
            return Err(zip_err(
                data_start,
                format!(
                    "member {:?}'s {} bytes of data to end by byte {} (the next member or \
                     the central directory)",
                    e.name, e.compressed_size, e.end_bound
                ),
                "data running past it (a truncated archive, or overlapping members)",
            ));
        }
        let skip = LOCAL_LEN + n + m;
        let in_scratch = (skip as u64 + e.compressed_size <= got as u64)
            .then(|| skip..skip + e.compressed_size as usize);
        Ok(Located {
            data_start,
            in_scratch,
        })
    }
}

/// The offset of the end of central directory record in `tail` (the input's last bytes):
/// the last signature with room for a record after it, as zipfile finds it.
fn find_eocd(tail: &[u8]) -> Option<usize> {
    let last = tail.len().checked_sub(EOCD_LEN as usize)?;
    // The usual case: no comment, the record ends the input.
    if tail[last..last + 4] == EOCD_SIG && tail[last + 20..] == [0, 0] {
        return Some(last);
    }
    (0..=last).rev().find(|&i| tail[i..i + 4] == EOCD_SIG)
}

/// Applies the zip64 extended information field (id 1): each size or offset saturated at
/// `0xFFFFFFFF` in the entry is read from it, in order, as zipfile's `_decodeExtra` does.
fn parse_zip64_extra(
    mut extra: &[u8],
    size: &mut u64,
    compressed_size: &mut u64,
    header_offset: &mut u64,
    entry_offset: u64,
) -> Result<(), Error> {
    while extra.len() >= 4 {
        let (id, len) = (le16(extra, 0), usize::from(le16(extra, 2)));
        let Some(data) = extra.get(4..4 + len) else {
            return Err(zip_err(
                entry_offset,
                format!("extra field {id:#06x} of {len} bytes inside the entry's extra data"),
                format!("{} bytes", extra.len() - 4),
            ));
        };
        if id == 1 {
            let mut rest = data;
            for (field, what) in [
                (&mut *size, "uncompressed size"),
                (&mut *compressed_size, "compressed size"),
                (&mut *header_offset, "local header offset"),
            ] {
                if *field == u64::from(u32::MAX) {
                    if rest.len() < 8 {
                        return Err(zip_err(
                            entry_offset,
                            format!("the {what} in the zip64 extra field"),
                            format!("{} bytes left in it", rest.len()),
                        ));
                    }
                    *field = le64(rest, 0);
                    rest = &rest[8..];
                }
            }
        }
        extra = &extra[4 + len..];
    }
    Ok(())
}

/// Sets each entry's `end_bound`: the next local header offset above its own, or the central
/// directory's start; and marks entries that share their local header with another.
fn set_end_bounds(entries: &mut [Entry], cd_start: u64) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_unstable_by_key(|&i| entries[i].header_offset);
    let mut bound = cd_start;
    let mut k = order.len();
    while k > 0 {
        let offset = entries[order[k - 1]].header_offset;
        let group_end = k;
        while k > 0 && entries[order[k - 1]].header_offset == offset {
            entries[order[k - 1]].end_bound = bound;
            k -= 1;
        }
        if group_end - k > 1 {
            for &i in &order[k..group_end] {
                entries[i].shares_header = true;
            }
        }
        if let Some(o) = offset {
            bound = bound.min(o);
        }
    }
}

/// Decodes a member name as zipfile does: UTF-8 when flag bit 11 is set (invalid sequences
/// become U+FFFD here, where zipfile refuses the whole archive), else code page 437.
fn decode_name(raw: &[u8], utf8: bool) -> String {
    if utf8 || raw.is_ascii() {
        return String::from_utf8_lossy(raw).into_owned();
    }
    raw.iter()
        .map(|&b| match b {
            0..=0x7f => char::from(b),
            _ => CP437_HIGH[usize::from(b - 0x80)],
        })
        .collect()
}

/// Code page 437, bytes 0x80 to 0xFF (Python's `cp437` codec).
const CP437_HIGH: [char; 128] = [
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å', //
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ', //
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»', //
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐', //
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧', //
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀', //
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩', //
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{a0}',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp437_matches_python() {
        // bytes(range(0x80, 0x100)).decode("cp437"), spot-checked.
        assert_eq!(decode_name(b"\x80\x9b\xe1\xff", false), "Ç¢ß\u{a0}");
        assert_eq!(decode_name("é".as_bytes(), true), "é");
        assert_eq!(decode_name(b"\xff", true), "\u{fffd}");
    }

    #[test]
    fn eocd_is_the_last_signature_with_room_for_a_record() {
        let mut tail = vec![0u8; 30];
        tail[2..6].copy_from_slice(&EOCD_SIG);
        assert_eq!(find_eocd(&tail), Some(2));
        tail[8..12].copy_from_slice(&EOCD_SIG);
        assert_eq!(find_eocd(&tail), Some(8));
        // A signature with fewer than 22 bytes after it is not a record.
        tail[20..24].copy_from_slice(&EOCD_SIG);
        assert_eq!(find_eocd(&tail), Some(8));
        assert_eq!(find_eocd(&tail[..21]), None);
    }

    #[test]
    fn zip64_extra_replaces_only_saturated_fields() {
        let mut extra = vec![1, 0, 16, 0];
        extra.extend(5u64.to_le_bytes());
        extra.extend(7u64.to_le_bytes());
        let (mut size, mut csize, mut off) = (u64::from(u32::MAX), u64::from(u32::MAX), 3);
        parse_zip64_extra(&extra, &mut size, &mut csize, &mut off, 0).unwrap();
        assert_eq!((size, csize, off), (5, 7, 3));
        // A saturated offset with no room left for it is an error, not a panic.
        let mut off = u64::from(u32::MAX);
        let (mut size, mut csize) = (u64::from(u32::MAX), u64::from(u32::MAX));
        assert!(parse_zip64_extra(&extra, &mut size, &mut csize, &mut off, 0).is_err());
        // A field longer than the extra data is an error.
        assert!(parse_zip64_extra(&[1, 0, 200, 0, 1], &mut 0, &mut 0, &mut 0, 0).is_err());
    }

    #[test]
    fn end_bounds_are_the_next_header_or_the_directory() {
        let entry = |off: u64| Entry {
            name: String::new(),
            raw_name: Box::new([]),
            flags: 0,
            method: 0,
            crc32: 0,
            compressed_size: 0,
            size: 0,
            header_offset: Some(off),
            entry_offset: 0,
            end_bound: 0,
            shares_header: false,
        };
        let mut entries = vec![entry(50), entry(0), entry(50), entry(120)];
        set_end_bounds(&mut entries, 200);
        let bounds: Vec<u64> = entries.iter().map(|e| e.end_bound).collect();
        assert_eq!(bounds, [120, 50, 120, 200]);
        let shared: Vec<bool> = entries.iter().map(|e| e.shares_header).collect();
        assert_eq!(shared, [true, false, true, false]);
    }
}
