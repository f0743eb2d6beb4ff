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
//!
//! Below it, a member's deflate stream is inflated by [`inflate`] and deflated on every core by
//! [`deflate`]; the layers' `.npz` readers and writers drive the three.

pub mod deflate;
pub mod inflate;
pub mod member;

use crate::base::error::{Error, FormatError};
use crate::platform::ioutil::{read_full, read_part};
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
pub const LOCAL_LEN: usize = 30;

/// Compression method 0.
pub const STORED: u16 = 0;
/// Compression method 8.
pub const DEFLATED: u16 = 8;

/// Deflate's largest expansion: 258 bytes from a 1-bit length code and a 1-bit distance code.
pub const MAX_DEFLATE_RATIO: u64 = 1032;

/// Members whose compressed data is at most this long are read with their local header in one
/// call, then parsed from memory.
pub const SMALL_MEMBER: u64 = 64 << 10;

/// General purpose flag bits.
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_PATCHED: u16 = 1 << 5;
const FLAG_STRONG_ENCRYPTION: u16 = 1 << 6;
const FLAG_UTF8: u16 = 1 << 11;

/// What the central directory says about one member, its name aside, as [`Directory::entry`]
/// hands it out (the directory keeps it packed, see `Packed`).
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub flags: u16,
    pub method: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub size: u64,
    /// Absolute offset of the local header (the archive's leading bytes included), or
    /// [`NO_OFFSET`] when the recorded offset points outside the input.
    header_offset: u64,
}

/// One entry as the directory keeps it: 28 bytes, so that with its name it costs less than
/// its 46-plus-name bytes in the file. The two sizes and the local header offset are kept in
/// 32 bits; one that does not fit (it came from a zip64 extra field, 8 bytes in the file)
/// is marked in `flags` ([`WIDE`]), its high 32 bits kept in [`Directory::wide`].
#[derive(Debug, Clone, Copy)]
struct Packed {
    crc32: u32,
    /// The low 32 bits of the three values, in [`WIDE`]'s order: the compressed size, the
    /// uncompressed size, and the local header offset as recorded (before the archive's
    /// leading bytes are added: only zip64 offsets need more than 32 bits).
    narrow: [u32; 3],
    /// Offset of the central directory entry from the directory's start, for messages.
    entry_rel: u32,
    /// Where the name ends in [`Directory::names`] (it starts where the previous one ends).
    name_end: u32,
    method: u16,
    /// The general purpose flags this reader looks at ([`KEPT_FLAGS`]), and the [`WIDE`]
    /// marks.
    flags: u16,
}

/// The general purpose flags an [`Entry`] keeps; the others do not change how a member is
/// read.
const KEPT_FLAGS: u16 = FLAG_ENCRYPTED | FLAG_PATCHED | FLAG_STRONG_ENCRYPTION | FLAG_UTF8;

/// Marks, in [`Packed::flags`] (bits that [`KEPT_FLAGS`] leaves free), of the values of
/// [`Packed::narrow`] that are kept in [`Directory::wide`]: the compressed size, the
/// uncompressed size, the recorded local header offset.
const WIDE: [u16; 3] = [1 << 1, 1 << 2, 1 << 3];

/// The high 32 bits of the values of more than 32 bits (their low bits are in
/// [`Packed::narrow`]), by entry index times 3 plus the value's place in [`WIDE`], in
/// increasing order (entries are parsed in order): 8 bytes a value, for the 8 that its zip64
/// extra field takes in the file.
#[derive(Debug, Default)]
struct Wide {
    keys: Vec<u32>,
    high: Vec<u32>,
}

impl Wide {
    /// The high bits of value `key`, if it has any.
    fn high(&self, key: u32) -> Option<u32> {
        let at = self.keys.binary_search(&key).ok()?;
        self.high.get(at).copied()
    }

    fn bytes(&self) -> usize {
        self.keys.len() * 8
    }

    /// The low 32 bits of entry `index`'s three values (in [`WIDE`]'s order), keeping the
    /// high bits of any that has them here and marking it in `flags`.
    fn split(
        &mut self,
        index: usize,
        values: [u64; 3],
        flags: &mut u16,
    ) -> Result<[u32; 3], Error> {
        let mut narrow = [0u32; 3];
        for (place, value) in values.into_iter().enumerate() {
            narrow[place] = value as u32;
            let high = (value >> 32) as u32;
            if high != 0 {
                *flags |= WIDE[place];
                // index * 3 + 2 < 2^32: entries take 46 bytes or more of a directory of
                // less than 4 GiB.
                let key = (index * 3 + place) as u32;
                self.keys
                    .try_reserve(1)
                    .and_then(|()| self.high.try_reserve(1))
                    .map_err(|_| oom("the central directory", self.bytes() + 8))?;
                self.keys.push(key);
                self.high.push(high);
            }
        }
        Ok(narrow)
    }
}

/// The fixed part of a central directory entry: what [`Directory::parse`] takes from it.
struct Fixed {
    flags: u16,
    method: u16,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    /// The lengths of the name, the extra field and the comment that follow.
    lens: (usize, usize, usize),
    header_offset: u64,
}

impl Fixed {
    /// Reads the fixed part of the entry at `entry_offset` into `buf` and takes its fields.
    fn read(
        cd: &mut impl Read,
        buf: &mut [u8; CENTRAL_LEN],
        entry_offset: u64,
    ) -> Result<Fixed, Error> {
        read_part(cd, buf, "central directory")?;
        if buf[..4] != CENTRAL_SIG {
            return Err(zip_err(
                entry_offset,
                format!("central directory entry signature {}", show(&CENTRAL_SIG)),
                show(&buf[..4]),
            ));
        }
        Ok(Fixed {
            flags: le16(buf, 8),
            method: le16(buf, 10),
            crc32: le32(buf, 16),
            compressed_size: u64::from(le32(buf, 20)),
            size: u64::from(le32(buf, 24)),
            lens: (
                usize::from(le16(buf, 28)),
                usize::from(le16(buf, 30)),
                usize::from(le16(buf, 32)),
            ),
            header_offset: u64::from(le32(buf, 42)),
        })
    }
}

/// The error for a directory whose entries and decoded names pass its memory budget.
fn over_budget(
    entry_offset: u64,
    budget: usize,
    cd_len: usize,
    held: usize,
    index: usize,
) -> Error {
    zip_err(
        entry_offset,
        format!(
            "a central directory that takes at most {budget} bytes in memory (its {cd_len} \
             bytes plus {DIRECTORY_SLACK}), at {} bytes per entry plus the names decoded",
            size_of::<Packed>()
        ),
        format!(
            "{held} bytes by entry {index}: names that decode to more bytes than they take \
             (CP437, or UTF-8 with invalid bytes)"
        ),
    )
}

/// What the directory in memory may take beyond its bytes in the file. Names that decode to
/// more bytes than they take (CP437 and invalid UTF-8: up to 3 bytes a byte) may use it, and
/// no more: an archive whose names would is refused.
const DIRECTORY_SLACK: usize = 8 << 20;

/// A local header offset outside the input.
const NO_OFFSET: u64 = u64::MAX;

/// One member: its directory facts and its name.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'d> {
    /// The name, decoded as UTF-8 (flag bit 11) or CP437, as `zipfile` decodes it.
    pub name: &'d str,
    /// Absolute offset of the central directory entry, for messages.
    pub entry_offset: u64,
    facts: Entry,
}

impl std::ops::Deref for EntryRef<'_> {
    type Target = Entry;

    fn deref(&self) -> &Entry {
        &self.facts
    }
}

/// A name quoted for a message, cut to a readable length.
pub fn quoted(name: &str) -> String {
    crate::base::error::excerpt(format_args!("{name:?}"))
}

impl<'d> EntryRef<'d> {
    /// The member's key: its name without one `.npy` suffix, as `NpzFile.files` lists it.
    pub fn key(&self) -> &'d str {
        self.name.strip_suffix(".npy").unwrap_or(self.name)
    }

    /// Checks what can be checked before reading: encryption, the compression method, and the
    /// declared sizes.
    pub fn check(&self) -> Result<(), Error> {
        let unsupported = |feature: String| {
            Error::from(FormatError::UnsupportedMember { feature }).in_member(self.name)
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
                    "equal compressed and uncompressed sizes for stored member {}",
                    quoted(self.name)
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
                         most {} times as many) for member {}",
                        self.compressed_size,
                        MAX_DEFLATE_RATIO,
                        quoted(self.name)
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
    pub fn for_test(method: u16, crc32: u32, compressed_size: u64, size: u64) -> Entry {
        Entry {
            flags: 0,
            method,
            crc32,
            compressed_size,
            size,
            header_offset: 0,
        }
    }

    /// This entry under `name`, for tests of the member reader.
    pub fn named<'d>(&'d self, name: &'d str) -> EntryRef<'d> {
        EntryRef {
            name,
            entry_offset: 0,
            facts: *self,
        }
    }
}

/// Where a member's data is, once its local header has been read.
pub struct Located {
    /// Absolute offset of the first data byte.
    pub data_start: u64,
    /// When the data was read along with the header: its range in the scratch buffer.
    pub in_scratch: Option<std::ops::Range<usize>>,
}

/// The central directory of an archive, kept compact: per entry, 28 bytes of facts
/// (`Packed`) and its name in one shared string (with 8 bytes for each zip64 value that
/// needs more than 32 bits); the two orders below add 4 bytes per entry each, when first
/// needed. Entries and names together take at most the directory's bytes in the file plus
/// `DIRECTORY_SLACK`.
#[derive(Debug)]
pub struct Directory {
    entries: Vec<Packed>,
    /// Every name, decoded, one after another.
    names: String,
    /// The zip64 values that do not fit in an entry.
    wide: Wide,
    /// Absolute offset of the central directory: where the last member's data must end.
    cd_start: u64,
    /// The input's length: a local header lies before it.
    len: u64,
    /// What to add to a recorded offset to make it absolute ([`Span::concat`]).
    concat: i128,
    /// Entry indices sorted by name, then index (for `zipfile`'s "the last of that name"),
    /// built on the first lookup; `None` if there was no memory for it (lookups then scan).
    by_name: OnceLock<Option<Box<[u32]>>>,
    /// Entry indices sorted by local header offset, then index, built when a member is first
    /// located: a member's data must end before the next local header, and no two entries
    /// may share one. `None` if there was no memory for it (each member then scans).
    by_offset: OnceLock<Option<Box<[u32]>>>,
}

/// The indices of `n` entries sorted by `key`, or `None` if they cannot be allocated.
fn sorted_indices<K: Ord>(n: usize, key: impl Fn(u32) -> K) -> Option<Box<[u32]>> {
    let mut order: Vec<u32> = Vec::new();
    order.try_reserve_exact(n).ok()?;
    // n fits in u32: the directory is under 4 GiB and entries take 46 bytes or more.
    order.extend(0..n as u32);
    order.sort_unstable_by_key(|&i| key(i));
    Some(order.into_boxed_slice())
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
    Error::from(FormatError::Zip {
        offset,
        expected: expected.into(),
        found: found.into(),
    })
}

/// The bytes as a Python bytes literal body, for messages, cut to a readable length.
fn show(bytes: &[u8]) -> String {
    crate::base::error::excerpt(format_args!("b\"{}\"", bytes.escape_ascii()))
}

/// The error for an allocation of `bytes` that failed.
fn oom(what: &str, bytes: usize) -> Error {
    Error::out_of_memory(bytes, what)
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

/// The smallest central directory entry: its fixed part.
const MIN_ENTRY: u64 = CENTRAL_LEN as u64;

/// Where an archive's central directory lies, as its end records say: found by
/// [`Directory::span`], read by [`Directory::parse`].
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// The input's length.
    len: u64,
    /// Absolute offset of the central directory.
    cd_start: u64,
    /// Its length in bytes (less than 4 GiB).
    cd_size: u64,
    /// What to add to the offsets the directory records to make them absolute: bytes before
    /// the archive proper (a self-extractor stub, say), zipfile's "concat".
    concat: i128,
}

impl Directory {
    /// Reads the central directory of the archive `r` holds: [`Directory::span`], then
    /// [`Directory::parse`].
    pub fn read<R: Read + Seek>(r: &mut R) -> Result<Directory, Error> {
        let span = Directory::span(r)?;
        r.seek(SeekFrom::Start(span.cd_start))?;
        Directory::parse(r, &span)
    }

    /// Finds the central directory from the end records: reads the input's last 65,557 bytes
    /// (at most), the zip64 records before the end record when there are, and, for an input
    /// that is no archive, its first 4 bytes for the message.
    pub fn span<R: Read + Seek>(r: &mut R) -> Result<Span, Error> {
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
        // Entries keep 32-bit offsets into the directory and into the names.
        if cd_size > u64::from(u32::MAX) {
            return Err(zip_err(
                eocd_pos,
                "a central directory of less than 4 GiB (about 90 million members)",
                format!("{cd_size} bytes"),
            ));
        }

        Ok(Span {
            len,
            cd_start,
            cd_size,
            concat,
        })
    }

    /// Parses the central directory that [`Directory::span`] found, `r` positioned at its
    /// start.
    ///
    /// The directory is read through a 64 KiB buffer, entry by entry, and kept compact (see
    /// [`Directory`]); the allocations it makes, for the entries and the names, are bounded by
    /// the directory's length (plus `DIRECTORY_SLACK` for names that decode to more bytes),
    /// which is bounded by the input's, and only the pages the entries and names use are
    /// touched.
    pub fn parse<R: Read>(r: R, span: &Span) -> Result<Directory, Error> {
        let Span {
            len,
            cd_start,
            cd_size,
            concat,
        } = *span;
        // cd_size <= cd_end <= len: the reservations are bounded by the input's length; the
        // pages they do not use are never touched, and neither grows.
        let cd_len = cd_size as usize;
        // What entries, names and wide values may take in all.
        let budget = cd_len.saturating_add(DIRECTORY_SLACK);
        let mut entries: Vec<Packed> = Vec::new();
        let most = cd_len / CENTRAL_LEN;
        entries
            .try_reserve_exact(most)
            .map_err(|_| oom("the central directory", most * size_of::<Packed>()))?;
        // Names take at most 3 bytes a byte decoded, and at most the budget.
        let names_cap = cd_len.saturating_mul(3).min(budget);
        let mut names = String::new();
        names
            .try_reserve_exact(names_cap)
            .map_err(|_| oom("the member names", names_cap))?;
        let mut wide = Wide::default();
        // One name decoded, before it joins the others (at most 3 times 64 KiB).
        let mut decoded = String::new();

        let buffer = cd_len.min(64 << 10);
        let mut cd = std::io::BufReader::with_capacity(buffer, r.take(cd_size));
        let mut fixed = [0u8; CENTRAL_LEN];
        // The name and the extra field of one entry (at most 64 KiB each).
        let mut body: Vec<u8> = Vec::new();
        let mut pos = 0u64;
        while pos < cd_size {
            let entry_offset = cd_start + pos;
            let left = cd_size - pos;
            if left < MIN_ENTRY {
                return Err(zip_err(
                    entry_offset,
                    format!("a {CENTRAL_LEN}-byte central directory entry"),
                    format!("{left} bytes left in the directory"),
                ));
            }
            let Fixed {
                flags,
                method,
                crc32,
                mut compressed_size,
                mut size,
                lens: (n, m, k),
                mut header_offset,
            } = Fixed::read(&mut cd, &mut fixed, entry_offset)?;
            let body_len = (n + m + k) as u64;
            if body_len > left - MIN_ENTRY {
                return Err(zip_err(
                    entry_offset,
                    format!(
                        "a name, extra field and comment of {body_len} bytes inside the central \
                         directory"
                    ),
                    format!("{} bytes left in the directory", left - MIN_ENTRY),
                ));
            }
            body.clear();
            body.resize(n + m, 0);
            read_part(&mut cd, &mut body, "central directory")?;
            std::io::copy(&mut (&mut cd).take(k as u64), &mut std::io::sink())?;
            let (raw_name, extra) = body.split_at(n);
            parse_zip64_extra(
                extra,
                &mut size,
                &mut compressed_size,
                &mut header_offset,
                entry_offset,
            )?;
            let index = entries.len();
            decoded.clear();
            decode_name(raw_name, flags & FLAG_UTF8 != 0, &mut decoded)?;
            let mut flags = flags & KEPT_FLAGS;
            let narrow = wide.split(index, [compressed_size, size, header_offset], &mut flags)?;
            // Names that decode to more bytes than they take may use the slack, and no more;
            // then the names never outgrow their reservation.
            let held =
                (index + 1) * size_of::<Packed>() + names.len() + decoded.len() + wide.bytes();
            if held > budget {
                return Err(over_budget(entry_offset, budget, cd_len, held, index));
            }
            names.push_str(&decoded);
            let name_end = u32::try_from(names.len()).map_err(|_| {
                zip_err(
                    entry_offset,
                    "member names of less than 4 GiB in all",
                    format!("{} bytes of names so far", names.len()),
                )
            })?;
            if entries.len() == entries.capacity() {
                // Not reached: every entry takes at least CENTRAL_LEN bytes.
                entries
                    .try_reserve(1)
                    .map_err(|_| oom("the central directory", size_of::<Packed>()))?;
            }
            entries.push(Packed {
                crc32,
                narrow,
                entry_rel: pos as u32,
                name_end,
                method,
                flags,
            });
            pos += MIN_ENTRY + body_len;
        }
        entries.shrink_to_fit();
        names.shrink_to_fit();
        wide.keys.shrink_to_fit();
        wide.high.shrink_to_fit();
        Ok(Directory {
            entries,
            names,
            wide,
            cd_start,
            len,
            concat,
            by_name: OnceLock::new(),
            by_offset: OnceLock::new(),
        })
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive holds no member.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The name of member `index` (which exists).
    fn name(&self, index: usize) -> &str {
        let start = match index {
            0 => 0,
            i => self.entries[i - 1].name_end as usize,
        };
        self.names
            .get(start..self.entries[index].name_end as usize)
            .unwrap_or_default()
    }

    /// Value `place` (in [`WIDE`]'s order) of member `index` (which exists).
    fn value(&self, index: usize, place: usize) -> u64 {
        let e = &self.entries[index];
        let low = u64::from(e.narrow[place]);
        if e.flags & WIDE[place] == 0 {
            return low;
        }
        // Parsing put the high bits of every marked value in the table.
        let high = self.wide.high((index * 3 + place) as u32).unwrap_or(0);
        u64::from(high) << 32 | low
    }

    /// The absolute offset of member `index`'s local header, or [`NO_OFFSET`] when the
    /// recorded one points outside the input.
    fn header_offset(&self, index: usize) -> u64 {
        u64::try_from(i128::from(self.value(index, 2)) + self.concat)
            .ok()
            .filter(|&o| o < self.len)
            .unwrap_or(NO_OFFSET)
    }

    /// The facts about member `index` (which exists).
    fn facts(&self, index: usize) -> EntryRef<'_> {
        let e = &self.entries[index];
        EntryRef {
            name: self.name(index),
            entry_offset: self.cd_start + u64::from(e.entry_rel),
            facts: Entry {
                flags: e.flags & KEPT_FLAGS,
                method: e.method,
                crc32: e.crc32,
                compressed_size: self.value(index, 0),
                size: self.value(index, 1),
                header_offset: self.header_offset(index),
            },
        }
    }

    /// Member `index`, if there is one.
    pub fn entry(&self, index: usize) -> Option<EntryRef<'_>> {
        (index < self.len()).then(|| self.facts(index))
    }

    /// Every member, in archive order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> + '_ {
        (0..self.len()).map(|index| self.facts(index))
    }

    /// The index of the member named exactly `name` (the last one, if several are).
    pub fn find(&self, name: &str) -> Option<usize> {
        let order = self
            .by_name
            .get_or_init(|| sorted_indices(self.len(), |i| (self.name(i as usize), i)));
        let Some(order) = order else {
            return (0..self.len()).rev().find(|&i| self.name(i) == name);
        };
        // The last of the names equal to `name`: the one before the first greater name.
        let after = order.partition_point(|&i| self.name(i as usize) <= name);
        let i = *order.get(after.checked_sub(1)?)? as usize;
        (self.name(i) == name).then_some(i)
    }

    /// numpy's lookup: the member named `key`, else the member named `key + ".npy"`.
    pub fn lookup(&self, key: &str) -> Option<usize> {
        self.find(key).or_else(|| self.find(&format!("{key}.npy")))
    }

    /// Where member `index`'s data must end (the next local header above its own, or the
    /// central directory), and whether another entry shares its local header.
    fn bound(&self, index: usize) -> (u64, bool) {
        let offset = |i: u32| self.header_offset(i as usize);
        let order = self
            .by_offset
            .get_or_init(|| sorted_indices(self.len(), |i| (offset(i), i)));
        let own = self.header_offset(index);
        let Some(order) = order else {
            let (mut next, mut same) = (self.cd_start, 0usize);
            for i in 0..self.len() {
                let o = self.header_offset(i);
                if o > own {
                    next = next.min(o);
                }
                same += usize::from(o == own);
            }
            return (next, same > 1);
        };
        let first = order.partition_point(|&i| offset(i) < own);
        let after = order.partition_point(|&i| offset(i) <= own);
        let next = order
            .get(after)
            .map_or(self.cd_start, |&i| offset(i).min(self.cd_start));
        (next, after - first > 1)
    }

    /// Reads member `index`'s local header and checks where its data lies. When the data is
    /// at most [`SMALL_MEMBER`] bytes it is read in the same call into `scratch`.
    pub fn locate<R: Read + Seek>(
        &self,
        r: &mut R,
        index: usize,
        scratch: &mut Vec<u8>,
    ) -> Result<Located, Error> {
        let Some(e) = self.entry(index) else {
            return Err(Error::from(
                crate::base::error::MismatchError::MemberIndex {
                    index,
                    len: self.len(),
                },
            ));
        };
        let (end_bound, shares_header) = self.bound(index);
        let header_offset = e.header_offset;
        // Local headers lie before the central directory (and so inside the input).
        if header_offset == NO_OFFSET || header_offset >= self.cd_start {
            return Err(zip_err(
                e.entry_offset,
                format!(
                    "a local header offset before the central directory (byte {}) for member \
                     {}",
                    self.cd_start,
                    quoted(e.name)
                ),
                if header_offset == NO_OFFSET {
                    "an offset outside the input".to_string()
                } else {
                    format!("byte {header_offset}")
                },
            ));
        }
        if shares_header {
            return Err(zip_err(
                e.entry_offset,
                format!("a local header of member {}'s own", quoted(e.name)),
                format!(
                    "the local header at byte {header_offset}, which another entry points to \
                     too (overlapping members: a zip bomb?)"
                ),
            ));
        }
        // Header, name, room for a zip64 and an alignment field, and small data.
        let guess = (LOCAL_LEN + e.name.len() + 128) as u64
            + if e.compressed_size <= SMALL_MEMBER {
                e.compressed_size
            } else {
                0
            };
        let want = guess.min(end_bound.saturating_sub(header_offset));
        scratch.clear();
        scratch.resize(want as usize, 0);
        r.seek(SeekFrom::Start(header_offset))?;
        let got = read_full(r, scratch)?;
        scratch.truncate(got);
        let local = scratch.get(..LOCAL_LEN).ok_or_else(|| {
            zip_err(
                header_offset,
                format!(
                    "a {LOCAL_LEN}-byte local file header for member {}",
                    quoted(e.name)
                ),
                format!("{got} bytes before the next member or the central directory"),
            )
        })?;
        if local[..4] != LOCAL_SIG {
            return Err(zip_err(
                header_offset,
                format!(
                    "local file header signature {} for member {}",
                    show(&LOCAL_SIG),
                    quoted(e.name)
                ),
                show(&local[..4]),
            ));
        }
        let (n, m) = (usize::from(le16(local, 26)), usize::from(le16(local, 28)));
        // zipfile compares the names decoded (with the directory entry's encoding flag).
        let mut local_name = String::new();
        let same = match scratch.get(LOCAL_LEN..LOCAL_LEN + n) {
            Some(raw) => {
                decode_name(raw, e.flags & FLAG_UTF8 != 0, &mut local_name)?;
                local_name == e.name
            }
            None => false,
        };
        if !same {
            let found = match scratch.get(LOCAL_LEN..LOCAL_LEN + n) {
                Some(b) => show(b),
                None => format!("a name of {n} bytes"),
            };
            return Err(zip_err(
                header_offset,
                format!(
                    "the local header to repeat the member name {}",
                    quoted(e.name)
                ),
                found,
            ));
        }
        let data_start = header_offset + (LOCAL_LEN + n + m) as u64;
        let data_end = data_start.checked_add(e.compressed_size);
        if data_end.is_none_or(|end| end > end_bound) {
            return Err(zip_err(
                data_start,
                format!(
                    "member {}'s {} bytes of data to end by byte {} (the next member or the \
                     central directory)",
                    quoted(e.name),
                    e.compressed_size,
                    end_bound
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

/// Appends a member name to `out` decoded as zipfile decodes it: UTF-8 when flag bit 11 is
/// set (invalid sequences become U+FFFD here, where zipfile refuses the whole archive), else
/// code page 437. Fails only if `out` cannot grow.
fn decode_name(raw: &[u8], utf8: bool, out: &mut String) -> Result<(), Error> {
    let grow = |out: &mut String, more: usize| {
        out.try_reserve(more)
            .map_err(|_| oom("the member names", out.len().saturating_add(more)))
    };
    if utf8 || raw.is_ascii() {
        let name = String::from_utf8_lossy(raw);
        grow(out, name.len())?;
        out.push_str(&name);
        return Ok(());
    }
    // At most 3 bytes of UTF-8 per byte.
    grow(out, raw.len() * 3)?;
    out.extend(raw.iter().map(|&b| match b {
        0..=0x7f => char::from(b),
        _ => CP437_HIGH[usize::from(b - 0x80)],
    }));
    Ok(())
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

    fn decoded(raw: &[u8], utf8: bool) -> String {
        let mut out = String::new();
        decode_name(raw, utf8, &mut out).unwrap();
        out
    }

    #[test]
    fn cp437_matches_python() {
        // bytes(range(0x80, 0x100)).decode("cp437"), spot-checked.
        assert_eq!(decoded(b"\x80\x9b\xe1\xff", false), "Ç¢ß\u{a0}");
        assert_eq!(decoded("é".as_bytes(), true), "é");
        assert_eq!(decoded(b"\xff", true), "\u{fffd}");
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

    /// A directory of entries at these recorded local header offsets, with these names, in
    /// an input of 300 bytes whose central directory starts at byte 200; offsets of 4 GiB
    /// and more go to the wide values, as from zip64 fields.
    fn directory(entries: &[(u64, &str)]) -> Directory {
        let mut names = String::new();
        let mut wide = Wide::default();
        let packed = entries
            .iter()
            .enumerate()
            .map(|(index, &(offset, name))| {
                names.push_str(name);
                let mut flags = 0;
                if offset > u64::from(u32::MAX) {
                    flags |= WIDE[2];
                    wide.keys.push(index as u32 * 3 + 2);
                    wide.high.push((offset >> 32) as u32);
                }
                Packed {
                    crc32: 0,
                    narrow: [0, 0, offset as u32],
                    entry_rel: 0,
                    name_end: names.len() as u32,
                    method: 0,
                    flags,
                }
            })
            .collect();
        Directory {
            entries: packed,
            names,
            wide,
            cd_start: 200,
            len: 300,
            concat: 0,
            by_name: OnceLock::new(),
            by_offset: OnceLock::new(),
        }
    }

    #[test]
    fn an_entry_is_28_bytes() {
        assert_eq!(size_of::<Packed>(), 28);
    }

    #[test]
    fn end_bounds_are_the_next_header_or_the_directory() {
        // The last two point outside the input: past its end, and past 4 GiB (whose low 32
        // bits, 50, must not be taken for the offset).
        let entries = [
            (50, "a"),
            (0, "b"),
            (50, "c"),
            (120, "a"),
            (400, "a"),
            ((1 << 32) + 50, "e"),
        ];
        let dir = directory(&entries);
        // Without memory for the orders, scans give the same answers.
        let mut scanning = directory(&entries);
        scanning.by_name = OnceLock::from(None);
        scanning.by_offset = OnceLock::from(None);
        for i in 0..6 {
            assert_eq!(scanning.bound(i), dir.bound(i), "{i}");
        }
        for name in ["a", "b", "c", "", "d", "e"] {
            assert_eq!(scanning.find(name), dir.find(name), "{name}");
        }
        let bounds: Vec<(u64, bool)> = (0..6).map(|i| dir.bound(i)).collect();
        assert_eq!(
            bounds,
            [
                (120, true),
                (50, false),
                (120, true),
                (200, false),
                (200, true),
                (200, true)
            ]
        );
        assert_eq!(dir.entry(5).unwrap().header_offset, NO_OFFSET);
        assert_eq!(dir.entry(0).unwrap().header_offset, 50);
        let names: Vec<&str> = dir.entries().map(|e| e.name).collect();
        assert_eq!(names, ["a", "b", "c", "a", "a", "e"]);
        // The last entry of a name wins, as in zipfile.
        assert_eq!(dir.find("a"), Some(4));
        assert_eq!(dir.find("c"), Some(2));
        assert_eq!(dir.find(""), None);
        assert_eq!(dir.find("d"), None);
    }
}
