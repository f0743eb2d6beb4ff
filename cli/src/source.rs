//! Where an array's bytes come from: a `.npy` file, or one member of a `.npz` archive, read
//! in chunks of elements (in storage order) so that no command needs the whole array in memory.

use crate::fail::{Fail, Res};
use ndnpy::source::Section;
use ndnpy::{header::HeaderInfo, DType, DynArray, Header, NpzReader, ReadOptions};
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of element data read at once when streaming (8 MiB).
pub const CHUNK_BYTES: usize = 8 << 20;

/// A command-line operand: `FILE` or `FILE:MEMBER`, either followed by a selection in
/// numpy's index syntax (`FILE[10:20, ::2]`).
#[derive(Debug, Clone)]
pub struct Target {
    /// The file.
    pub path: PathBuf,
    /// The archive member, if one was named.
    pub member: Option<String>,
    /// The selection, as written between the brackets, if one was given (chained ones
    /// joined as written: `0][1` for `[0][1]`).
    pub selection: Option<String>,
}

impl Target {
    /// `FILE:MEMBER` when `FILE` exists and the whole operand does not; otherwise `FILE`;
    /// either with a trailing `[SELECTION]` when the operand with it is not a file. A URL
    /// (`s3://bucket/a.npz:w[0:10]`, `https://host/a.npy`) names its member after the last
    /// `:` that no `/` follows.
    pub fn parse(operand: &str) -> Target {
        if is_url(operand) {
            // Chained selections (`[0][1]`), applied in turn as numpy applies them.
            let (mut rest, mut selection) = (operand, None::<String>);
            while let Some((before, text)) = crate::select::split(rest) {
                selection = Some(match selection {
                    Some(after) => format!("{text}][{after}"),
                    None => text.to_string(),
                });
                rest = before;
            }
            let (url, member) = match rest.rsplit_once(':') {
                Some((url, member)) if is_url(url) && !member.contains('/') => {
                    (url, Some(member.to_string()))
                }
                _ => (rest, None),
            };
            return Target {
                path: url.into(),
                member,
                selection,
            };
        }
        if !Path::new(operand).exists() {
            if let Some((rest, selection)) = crate::select::split(operand) {
                // `FILE[0][1]`: the brackets before this one, applied first.
                let inner = Target::parse(rest);
                let selection = match &inner.selection {
                    Some(first) => format!("{first}][{selection}"),
                    None => selection.to_string(),
                };
                return Target {
                    selection: Some(selection),
                    ..inner
                };
            }
        }
        if !Path::new(operand).exists() {
            if let Some((file, member)) = operand.rsplit_once(':') {
                if Path::new(file).is_file() {
                    return Target {
                        path: file.into(),
                        member: Some(member.to_string()),
                        selection: None,
                    };
                }
            }
        }
        Target {
            path: operand.into(),
            member: None,
            selection: None,
        }
    }

    /// Whether the operand is a URL, read from an object store or an HTTP server.
    pub fn is_url(&self) -> bool {
        self.path.to_str().is_some_and(is_url)
    }

    /// How the operand is shown in messages (without its selection).
    pub fn display(&self) -> String {
        match &self.member {
            Some(m) => format!("{}:{m}", self.path.display()),
            None => self.path.display().to_string(),
        }
    }
}

/// Whether `operand` starts with a URL scheme (`s3://`, `https://`, ...), not a path.
fn is_url(operand: &str) -> bool {
    operand.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// What a file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A `.npy` file (`\x93NUMPY`).
    Npy,
    /// A ZIP archive (`PK`), read as `.npz`.
    Npz,
}

/// The kind of the file at `path`, by its magic bytes. A URL is a usage error: the
/// commands that read URLs read them as one array ([`ArraySource::open`]).
pub fn file_kind(path: &Path) -> Res<FileKind> {
    if path.to_str().is_some_and(is_url) {
        return Err(Fail::usage(format!(
            "{}: a URL is read as one array or archive member, by show, stats, plot, diff and \
             convert (name a member as URL:MEMBER); ls and validate read local files",
            path.display()
        )));
    }
    let mut file = File::open(path).map_err(|e| Fail::io(path, "open", e))?;
    kind_of(&mut file, path)
}

/// The kind of the file `reader` reads from its current position, by its magic bytes.
fn kind_of(reader: &mut impl Read, path: &Path) -> Res<FileKind> {
    let mut magic = [0u8; 6];
    let mut got = 0;
    while got < magic.len() {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(Fail::io(path, "read", e)),
        }
    }
    if magic.starts_with(b"PK") {
        Ok(FileKind::Npz)
    } else if magic.starts_with(b"\x93NUMPY") {
        Ok(FileKind::Npy)
    } else {
        Err(Fail::bad(
            path,
            "neither a .npy file (no \\x93NUMPY magic) nor a .npz archive (no PK magic)",
        ))
    }
}

/// One array, open for reading by chunks.
pub struct ArraySource {
    /// The header and the facts about its encoding.
    pub info: HeaderInfo,
    /// The name shown in messages (`file` or `file:member`).
    pub name: String,
    data: Data,
}

enum Data {
    /// The data starts at this offset of the file.
    File(File, u64),
    /// The data starts at this offset of the object (a URL's).
    #[cfg(feature = "remote")]
    Remote(std::cell::RefCell<ndnpy::remote::RemoteFile>, u64),
    /// The whole `.npy` bytes, in memory (an inflated archive member).
    Memory(Vec<u8>),
}

impl ArraySource {
    /// Opens a `.npy` file, or a member of a `.npz` archive (the only member when the archive
    /// has one and none is named); with a selection, the selected elements alone, read by
    /// the library's region reads (only the runs of bytes they cover, but for a deflated
    /// member, which is inflated whole), as an array in memory.
    pub fn open(target: &Target) -> Res<ArraySource> {
        let src = ArraySource::open_whole(target)?;
        let Some(text) = &target.selection else {
            return Ok(src);
        };
        let name = format!("{}[{text}]", src.name);
        if src.dtype().has_object() {
            return Err(Fail::unsupported(
                &name,
                "holds pickled Python objects, whose elements cannot be selected apart",
            ));
        }
        let elems = crate::select::resolve(text, src.shape())?;
        let selected = match &src.data {
            // Only the selected runs are fetched, by concurrent ranged requests.
            #[cfg(feature = "remote")]
            Data::Remote(file, start) => {
                let mut file = file.borrow_mut();
                let npy = Section::new(&mut *file, start - src.info.data_offset, u64::MAX);
                ndnpy::NpyReader::new(npy).and_then(|mut npy| npy.read_slice_dyn(&elems[..]))
            }
            Data::File(file, start) => {
                let npy = Section::new(file, start - src.info.data_offset, u64::MAX);
                ndnpy::NpyReader::new(npy).and_then(|mut npy| npy.read_slice_dyn(&elems[..]))
            }
            Data::Memory(bytes) => {
                ndnpy::NpyReader::new(&bytes[..]).and_then(|mut npy| npy.read_slice_dyn(&elems[..]))
            }
        };
        let a = selected.map_err(|e| Fail::lib(&name, e))?;
        ArraySource::from_array(&name, &a)
    }

    /// [`ArraySource::open`] without the selection.
    fn open_whole(target: &Target) -> Res<ArraySource> {
        if target.is_url() {
            return ArraySource::open_url(target);
        }
        let path = &target.path;
        match (file_kind(path)?, &target.member) {
            (FileKind::Npy, None) => ArraySource::open_npy(path),
            (FileKind::Npy, Some(m)) => Err(Fail::usage(format!(
                "{} is a .npy file, it has no member {m:?}; name the file alone",
                path.display()
            ))),
            (FileKind::Npz, _) => {
                let mut npz = NpzReader::open(path).map_err(|e| Fail::lib(&target.display(), e))?;
                let key = member_key(target, &npz)?;
                ArraySource::open_member(path, &mut npz, &key)
            }
        }
    }

    /// Opens a `.npy` object, or a member of a `.npz` one, at a URL (`s3://`, `http(s)://`):
    /// the header from the first ranged request, then only the bytes
    /// asked for (a deflated member is inflated whole into memory, as for a local file).
    /// Credentials and endpoints come from the `AWS_*` environment variables, as the AWS
    /// tools take them.
    #[cfg(feature = "remote")]
    fn open_url(target: &Target) -> Res<ArraySource> {
        use std::io::{Seek, SeekFrom};
        let url = target.path.to_string_lossy().into_owned();
        let shown = target.display();
        // Every AWS_* variable as the store's option of that name (`AWS_ENDPOINT` is
        // `aws_endpoint`); plain HTTP where the URL asks for it.
        let mut options: Vec<(String, String)> = std::env::vars()
            .filter(|(k, _)| k.starts_with("AWS_"))
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        if url.starts_with("http://") {
            options.push(("allow_http".into(), "true".into()));
        }
        let opts = ndnpy::remote::RemoteOptions::new();
        let mut file = ndnpy::remote::RemoteFile::open_url(&url, options, opts)
            .map_err(|e| Fail::lib(&shown, e))?;
        let kind = kind_of(&mut file, &target.path)?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| Fail::io_named(&shown, "read", e))?;
        let (size, _) = file.object();
        match (kind, &target.member) {
            (FileKind::Npy, None) => {
                let info = Header::read(&mut file, &ReadOptions::default())
                    .map_err(|e| Fail::lib(&shown, e))?;
                let start = info.data_offset;
                check_holds(&shown, &info, size.saturating_sub(start), "object")?;
                Ok(ArraySource {
                    info,
                    name: shown,
                    data: Data::Remote(std::cell::RefCell::new(file), start),
                })
            }
            (FileKind::Npy, Some(m)) => Err(Fail::usage(format!(
                "{url} is a .npy file, it has no member {m:?}; name the file alone"
            ))),
            (FileKind::Npz, _) => {
                let mut npz = NpzReader::with_options(file, &ReadOptions::default())
                    .map_err(|e| Fail::lib(&shown, e))?;
                let key = member_key(target, &npz)?;
                let name = format!("{url}:{key}");
                let mut member = npz.member(&key).map_err(|e| Fail::lib(&name, e))?;
                let info = member_header(&name, &mut member)?;
                match member.stored_range().map_err(|e| Fail::lib(&name, e))? {
                    Some(range) => {
                        let start = range.start + info.data_offset;
                        check_holds(&name, &info, range.end.saturating_sub(start), "member")?;
                        let file = npz.into_inner();
                        Ok(ArraySource {
                            info,
                            name,
                            data: Data::Remote(std::cell::RefCell::new(file), start),
                        })
                    }
                    None => {
                        let bytes = member.bytes().map_err(|e| Fail::lib(&name, e))?;
                        ArraySource::in_memory(name, info, bytes)
                    }
                }
            }
        }
    }

    /// Without the feature `remote`, a URL is a usage error that says how to get it.
    #[cfg(not(feature = "remote"))]
    fn open_url(target: &Target) -> Res<ArraySource> {
        Err(Fail::usage(format!(
            "{}: this ndnpy reads no URLs; install it with `cargo install ndnpy-cli --features \
             remote` to read from S3 and HTTP",
            target.display()
        )))
    }

    /// Opens the `.npy` file at `path`.
    pub fn open_npy(path: &Path) -> Res<ArraySource> {
        let name = path.display().to_string();
        let mut file = File::open(path).map_err(|e| Fail::io(path, "open", e))?;
        let info =
            Header::read(&mut file, &ReadOptions::default()).map_err(|e| Fail::lib(&name, e))?;
        let start = info.data_offset;
        // Every length in a file is hostile: the data the header declares must be there
        // before anything is sized from it (object arrays hold a pickle of another length).
        let len = file
            .metadata()
            .map_err(|e| Fail::io(path, "read", e))?
            .len();
        if !info.header.dtype.has_object() && len < start + info.data_len as u64 {
            return Err(Fail::bad(
                path,
                &format!(
                    "truncated: the header declares {} data bytes, the file holds {}; `ndnpy validate` checks the whole file",
                    info.data_len,
                    len.saturating_sub(start)
                ),
            ));
        }
        Ok(ArraySource {
            info,
            name,
            data: Data::File(file, start),
        })
    }

    /// Opens the member `key` of an archive: stored members are read in place from the
    /// archive file, deflated ones are inflated into memory.
    pub fn open_member(path: &Path, npz: &mut NpzReader<File>, key: &str) -> Res<ArraySource> {
        let name = format!("{}:{key}", path.display());
        let mut member = npz.member(key).map_err(|e| Fail::lib(&name, e))?;
        let info = member_header(&name, &mut member)?;
        if let Ok(Some(range)) = member.stored_range() {
            let file = File::open(path).map_err(|e| Fail::io(path, "open", e))?;
            let start = range.start + info.data_offset;
            check_holds(&name, &info, range.end.saturating_sub(start), "member")?;
            return Ok(ArraySource {
                info,
                name,
                data: Data::File(file, start),
            });
        }
        let bytes = member.bytes().map_err(|e| Fail::lib(&name, e))?;
        ArraySource::in_memory(name, info, bytes)
    }

    /// A member's whole `.npy` bytes, inflated, whose header is `info`.
    fn in_memory(name: String, info: HeaderInfo, bytes: Vec<u8>) -> Res<ArraySource> {
        let have = bytes.len() as u64;
        if have < info.data_offset + info.data_len as u64 {
            return Err(Fail::bad_named(
                &name,
                format!(
                    "truncated: the header declares {} data bytes, the member holds {}",
                    info.data_len,
                    have.saturating_sub(info.data_offset)
                ),
            ));
        }
        Ok(ArraySource {
            info,
            name,
            data: Data::Memory(bytes),
        })
    }

    /// The dtype.
    pub fn dtype(&self) -> &DType {
        &self.info.header.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.info.header.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.info.num_elements
    }

    /// Elements per chunk when streaming.
    pub fn chunk_elements(&self) -> usize {
        (CHUNK_BYTES / self.dtype().itemsize().max(1)).max(1)
    }

    /// The raw bytes of elements `range` (storage order).
    pub fn raw(&self, range: Range<usize>) -> Res<Vec<u8>> {
        let itemsize = self.dtype().itemsize();
        let start = (range.start * itemsize) as u64;
        let len = range.len() * itemsize;
        match &self.data {
            Data::File(file, offset) => {
                let mut buf = vec![0u8; len];
                file.read_exact_at(&mut buf, offset + start).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        Fail::bad_named(
                            &self.name,
                            format!(
                                "truncated: the header declares {} data bytes, the file ends before",
                                self.info.data_len
                            ),
                        )
                    } else {
                        Fail::io_named(&self.name, "read", e)
                    }
                })?;
                Ok(buf)
            }
            #[cfg(feature = "remote")]
            Data::Remote(file, offset) => {
                use std::io::{Seek, SeekFrom};
                let mut file = file.borrow_mut();
                let mut buf = vec![0u8; len];
                file.seek(SeekFrom::Start(offset + start))
                    .and_then(|_| file.read_exact(&mut buf))
                    .map_err(|e| Fail::io_named(&self.name, "read", e))?;
                Ok(buf)
            }
            Data::Memory(bytes) => {
                let s = self.info.data_offset as usize + start as usize;
                bytes.get(s..s + len).map(<[u8]>::to_vec).ok_or_else(|| {
                    Fail::bad_named(
                        &self.name,
                        "truncated: the data ends before the header says",
                    )
                })
            }
        }
    }

    /// Elements `range` (storage order) as a 1-D array.
    pub fn elements(&self, range: Range<usize>) -> Res<DynArray> {
        let shape = vec![range.len()];
        let raw = self.raw(range)?;
        self.decode(raw, shape, false)
    }

    /// `bytes` (elements in the file's dtype) as an array of `shape`.
    pub fn decode(&self, bytes: Vec<u8>, shape: Vec<usize>, fortran_order: bool) -> Res<DynArray> {
        let header = Header {
            dtype: self.dtype().clone(),
            fortran_order,
            shape,
        };
        let mut npy = header.to_bytes().map_err(|e| Fail::lib(&self.name, e))?;
        npy.extend_from_slice(&bytes);
        DynArray::read_npy(&npy[..]).map_err(|e| Fail::lib(&self.name, e))
    }

    /// The whole array, in the file's layout.
    pub fn read_all(&self) -> Res<DynArray> {
        let raw = self.raw(0..self.len())?;
        self.decode(raw, self.shape().to_vec(), self.info.header.fortran_order)
    }

    /// Rows `rows` along the first axis (`a[A:B]`): read alone for C order, sliced out of the
    /// whole array for Fortran order (whose rows are not contiguous).
    pub fn read_rows(&self, rows: Range<usize>) -> Res<DynArray> {
        let shape = self.shape();
        let Some(&n) = shape.first() else {
            return Err(Fail::usage(format!(
                "{}: --rows needs an array of at least one dimension",
                self.name
            )));
        };
        if rows.start > rows.end || rows.end > n {
            return Err(Fail::usage(format!(
                "{}: --rows {}..{} is outside the first axis (length {n})",
                self.name, rows.start, rows.end
            )));
        }
        let mut new_shape = shape.to_vec();
        new_shape[0] = rows.len();
        if self.info.header.fortran_order && shape.len() > 1 {
            // Storage positions of the rows' elements, in Fortran order of the result.
            let total: usize = new_shape.iter().product();
            let mut indices = Vec::with_capacity(total);
            let mut idx = vec![0usize; shape.len()];
            for _ in 0..total {
                let mut storage = 0;
                let mut stride = 1;
                for (k, &i) in idx.iter().enumerate() {
                    let i = if k == 0 { i + rows.start } else { i };
                    storage += i * stride;
                    stride *= shape[k];
                }
                indices.push(storage);
                // Next index, first axis fastest.
                for (k, i) in idx.iter_mut().enumerate() {
                    *i += 1;
                    if *i < new_shape[k] {
                        break;
                    }
                    *i = 0;
                }
            }
            let raw = self.gather_raw(&indices)?;
            return self.decode(raw, new_shape, true);
        }
        let per_row: usize = shape[1..].iter().product();
        let raw = self.raw(rows.start * per_row..rows.end * per_row)?;
        self.decode(raw, new_shape, self.info.header.fortran_order)
    }

    /// An array already in memory, as a source.
    pub fn from_array(name: &str, a: &DynArray) -> Res<ArraySource> {
        let mut bytes = Vec::new();
        a.write_npy(&mut bytes).map_err(|e| Fail::lib(name, e))?;
        let info = Header::read(&mut &bytes[..], &ReadOptions::default())
            .map_err(|e| Fail::lib(name, e))?;
        Ok(ArraySource {
            info,
            name: name.to_string(),
            data: Data::Memory(bytes),
        })
    }

    /// The raw bytes of the elements at storage positions `indices`, in that order; runs of
    /// consecutive positions are read at once.
    pub fn gather_raw(&self, indices: &[usize]) -> Res<Vec<u8>> {
        let itemsize = self.dtype().itemsize();
        let mut out = Vec::with_capacity(indices.len() * itemsize);
        let mut i = 0;
        while i < indices.len() {
            let start = indices[i];
            let mut end = start + 1;
            let mut j = i + 1;
            while j < indices.len() && indices[j] == end && end - start < self.chunk_elements() {
                end += 1;
                j += 1;
            }
            out.extend_from_slice(&self.raw(start..end)?);
            i = j;
        }
        Ok(out)
    }

    /// The storage position of the element at the multi-index `index`.
    pub fn storage_index(&self, index: &[usize]) -> usize {
        let shape = self.shape();
        let mut pos = 0;
        if self.info.header.fortran_order {
            for (k, &i) in index.iter().enumerate().rev() {
                pos = pos * shape[k] + i;
            }
        } else {
            for (k, &i) in index.iter().enumerate() {
                pos = pos * shape[k] + i;
            }
        }
        pos
    }

    /// Calls `f` with successive chunks of elements in storage order, with the index of each
    /// chunk's first element; `progress` is told how many elements are done.
    pub fn for_each_chunk(
        &self,
        range: Range<usize>,
        mut f: impl FnMut(usize, &DynArray) -> Res<()>,
        progress: &mut dyn FnMut(usize),
    ) -> Res<()> {
        let step = self.chunk_elements();
        let mut first = range.start;
        while first < range.end {
            let end = (first + step).min(range.end);
            let chunk = self.elements(first..end)?;
            f(first, &chunk)?;
            progress(end - range.start);
            first = end;
        }
        Ok(())
    }
}

/// The member `target` names, or the archive's only member when it names none.
fn member_key<R: Read + std::io::Seek>(target: &Target, npz: &NpzReader<R>) -> Res<String> {
    let shown = target.path.display();
    match &target.member {
        Some(m) => Ok(m.clone()),
        None if npz.len() == 1 => Ok(npz.keys().next().unwrap_or_default().to_string()),
        None if npz.is_empty() => Err(Fail::unsupported(
            &target.display(),
            "the archive has no members",
        )),
        None => {
            let keys: Vec<&str> = npz.keys().take(10).collect();
            Err(Fail::usage(format!(
                "{shown} is an archive of {} members: name one as {shown}:MEMBER (members: {})",
                npz.len(),
                keys.join(", ")
            )))
        }
    }
}

/// The header of the archive member `name`; a member that is not an array says so.
fn member_header<R: Read + std::io::Seek>(
    name: &str,
    member: &mut ndnpy::npz::NpzMember<'_, R>,
) -> Res<HeaderInfo> {
    member.header().map_err(|e| {
        if e.kind() == ndnpy::ErrorKind::NotNpy {
            Fail::unsupported(
                name,
                format!(
                    "not an array but {} bytes of something else (np.load gives them as bytes)",
                    member.info().size()
                ),
            )
        } else {
            Fail::lib(name, e)
        }
    })
}

/// Fails unless the `available` bytes after the header of `info` (in a `what`: a member, an
/// object) hold the data it declares: every length in a file is hostile.
fn check_holds(name: &str, info: &HeaderInfo, available: u64, what: &str) -> Res<()> {
    if !info.header.dtype.has_object() && available < info.data_len as u64 {
        return Err(Fail::bad_named(
            name,
            format!(
                "truncated: the header declares {} data bytes, the {what} holds {available}",
                info.data_len
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_their_member_after_the_last_colon_no_slash_follows() {
        for (operand, path, member, selection) in [
            ("s3://b/a.npy", "s3://b/a.npy", None, None),
            ("s3://b/a.npz:w", "s3://b/a.npz", Some("w"), None),
            (
                "s3://b/a.npz:w[0:10, ::2]",
                "s3://b/a.npz",
                Some("w"),
                Some("0:10, ::2"),
            ),
            (
                "http://127.0.0.1:8000/a.npy",
                "http://127.0.0.1:8000/a.npy",
                None,
                None,
            ),
            (
                "http://127.0.0.1:8000/a.npy[-3:]",
                "http://127.0.0.1:8000/a.npy",
                None,
                Some("-3:"),
            ),
            (
                "https://h/x/a.npz:m.npy",
                "https://h/x/a.npz",
                Some("m.npy"),
                None,
            ),
        ] {
            let t = Target::parse(operand);
            assert!(t.is_url(), "{operand}");
            assert_eq!(t.path, PathBuf::from(path), "{operand}");
            assert_eq!(t.member.as_deref(), member, "{operand}");
            assert_eq!(t.selection.as_deref(), selection, "{operand}");
        }
        for local in ["a.npy", "dir/a.npz:w", "C:/x.npy", "://x", "a b://c"] {
            assert!(!Target::parse(local).is_url(), "{local}");
        }
        let e = file_kind(Path::new("s3://b/a.npz")).unwrap_err();
        assert_eq!(e.code, crate::fail::EXIT_USAGE);
        assert!(
            e.message.contains("ls and validate read local files"),
            "{}",
            e.message
        );
    }

    #[cfg(not(feature = "remote"))]
    #[test]
    fn without_the_feature_a_url_says_how_to_get_it() {
        let e = ArraySource::open(&Target::parse("s3://b/a.npy"))
            .err()
            .unwrap();
        assert_eq!(e.code, crate::fail::EXIT_USAGE);
        assert!(e.message.contains("--features remote"), "{}", e.message);
    }
}
