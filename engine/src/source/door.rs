//! The door: where a caller's reader or writer becomes a source (or a sink) of this crate.
//!
//! `ReadNpyExt::read_npy<R: Read>`, `NpzReader<R: Read + Seek>` and `WriteNpyExt::write_npy<W:
//! Write>` are generic (ndarray-npy fixed those signatures), but what users pass is nearly
//! always one of a few types: a `File`, a `BufReader<File>` or `BufWriter<File>`, bytes in
//! memory (`&[u8]`, a `Cursor`), an object in a store ([`RangedFile`](super::RangedFile)),
//! by value or by `&mut`. Behind those the whole input is reachable: a regular file has a
//! length and can be read at any offset (on several threads), bytes in memory can be copied
//! directly, an object can be fetched by concurrent ranged requests, and a file being written
//! can be given its space up front (as numpy's `tofile` does). Through a plain `Read` none of
//! that is possible. [`reader`], [`positioned`] and [`writer`] recognise those types by their
//! [`TypeId`]; everything else takes the generic path.
//!
//! This is the only module that looks at a type parameter's identity, and every type it
//! names is the standard library's or this layer's. Its `unsafe` operation is `cast_mut`,
//! whose callers below keep to the rule it states. No reader with a lifetime the cast chose
//! leaves this module: bytes in memory leave as a shared slice, and [`advance`] moves the
//! caller's slice or cursor on by writing a suffix of itself, never bytes from elsewhere.
#![allow(unsafe_code)]

use std::any::TypeId;
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read, Write};
use std::marker::PhantomData;

/// The [`TypeId`] of `T` with its lifetimes erased: `&'a File` has the id of
/// `&'static File`. (Rust's `TypeId` never distinguishes lifetimes; only `TypeId::of` asks for
/// `'static`.) The trick is dtolnay's `typeid` crate's.
fn erased_type_id<T: ?Sized>() -> TypeId {
    trait NonStaticAny {
        fn id(&self) -> TypeId
        where
            Self: 'static;
    }
    impl<T: ?Sized> NonStaticAny for PhantomData<T> {
        fn id(&self) -> TypeId
        where
            Self: 'static,
        {
            TypeId::of::<T>()
        }
    }
    let phantom = PhantomData::<T>;
    let object: &dyn NonStaticAny = &phantom;
    // SAFETY: only the lifetime of the trait object is extended; `id` reads nothing from
    // `self` (a zero-sized `PhantomData`), it only returns a constant of its type.
    let object: &(dyn NonStaticAny + 'static) =
        unsafe { std::mem::transmute::<&dyn NonStaticAny, &(dyn NonStaticAny + 'static)>(object) };
    object.id()
}

/// Whether `R` is `T` once lifetimes are erased (`&'a [u8]` is `&'static [u8]`).
fn is<R: ?Sized, T: ?Sized + 'static>() -> bool {
    erased_type_id::<R>() == TypeId::of::<T>()
}

/// `r` as a `&mut T`.
///
/// # Safety
///
/// [`is::<R, T'>`](is) must hold, where `T'` is `T` with `'static` for its lifetimes: `R` and
/// `T` are then the same type up to lifetimes. Lifetimes are not compared, so when `T` names
/// one, the caller chooses it and must use the result only as `R` with its real lifetimes
/// allows: read through it, and write back only values taken from it (a suffix of a slice, a
/// position), never a value from elsewhere.
unsafe fn cast_mut<R, T>(r: &mut R) -> &mut T {
    // SAFETY: `R` and `T` are the same type up to lifetimes (the caller checked), so the cast
    // keeps size, alignment and layout; the lifetimes are the caller's rule.
    unsafe { &mut *(r as *mut R).cast::<T>() }
}

/// A reader seen through to the standard type it is.
pub enum ConcreteReader<'r, R> {
    /// A `File`, `&File` or `&mut File` (a regular file, a pipe or a device).
    File(&'r File),
    /// A `BufReader<File>`, by value or `&mut`.
    BufFile(&'r mut BufReader<File>),
    /// Bytes in memory (a `&[u8]`, `Cursor<&[u8]>` or `Cursor<Vec<u8>>`, by value or `&mut`):
    /// those from the reader's position on (none if a cursor is past its end). [`advance`]
    /// moves the reader past what was read of them.
    Bytes(&'r [u8]),
    /// Anything else.
    Other(&'r mut R),
}

/// The bytes from a cursor's position on (none if it is past its end).
fn rest_of<B: AsRef<[u8]>>(c: &Cursor<B>) -> &[u8] {
    let all = c.get_ref().as_ref();
    let start = usize::try_from(c.position()).map_or(all.len(), |p| p.min(all.len()));
    &all[start..]
}

/// Moves a cursor `n` bytes on from its position, at most to its end (one past its end stays
/// where it is).
fn advance_cursor<B: AsRef<[u8]>>(c: &mut Cursor<B>, n: usize) {
    let n = n.min(rest_of(c).len());
    if n > 0 {
        c.set_position(c.position() + n as u64);
    }
}

/// What `r` is, among the readers [`ConcreteReader`] names.
pub fn reader<R: Read>(r: &mut R) -> ConcreteReader<'_, R> {
    // SAFETY (every `cast_mut` below, each after its `is`): `File`, `BufReader<File>` and
    // `Cursor<Vec<u8>>` name no lifetime, so `R` is exactly that type. For the reference
    // types, `R` is the same type with lifetimes that outlive the borrow of `r` (`R: 'r`); the
    // results are given the borrow's lifetime, and only shared borrows of the bytes leave.
    unsafe {
        if is::<R, File>() {
            ConcreteReader::File(cast_mut::<R, File>(r))
        } else if is::<R, &'static File>() {
            ConcreteReader::File(cast_mut::<R, &File>(r))
        } else if is::<R, &'static mut File>() {
            ConcreteReader::File(cast_mut::<R, &mut File>(r))
        } else if is::<R, BufReader<File>>() {
            ConcreteReader::BufFile(cast_mut::<R, BufReader<File>>(r))
        } else if is::<R, &'static mut BufReader<File>>() {
            ConcreteReader::BufFile(cast_mut::<R, &mut BufReader<File>>(r))
        } else if is::<R, &'static [u8]>() {
            ConcreteReader::Bytes(cast_mut::<R, &[u8]>(r))
        } else if is::<R, &'static mut &'static [u8]>() {
            ConcreteReader::Bytes(cast_mut::<R, &mut &[u8]>(r))
        } else if is::<R, Cursor<&'static [u8]>>() {
            ConcreteReader::Bytes(rest_of(cast_mut::<R, Cursor<&[u8]>>(r)))
        } else if is::<R, &'static mut Cursor<&'static [u8]>>() {
            ConcreteReader::Bytes(rest_of(cast_mut::<R, &mut Cursor<&[u8]>>(r)))
        } else if is::<R, Cursor<Vec<u8>>>() {
            ConcreteReader::Bytes(rest_of(cast_mut::<R, Cursor<Vec<u8>>>(r)))
        } else if is::<R, &'static mut Cursor<Vec<u8>>>() {
            ConcreteReader::Bytes(rest_of(cast_mut::<R, &mut Cursor<Vec<u8>>>(r)))
        } else {
            ConcreteReader::Other(r)
        }
    }
}

/// Moves `r`, a reader [`reader`] saw as [`ConcreteReader::Bytes`], `n` bytes on (at most
/// to the end of those bytes); any other reader is left as it is.
pub fn advance<R: Read>(r: &mut R, n: usize) {
    if n == 0 {
        return;
    }
    // SAFETY: as in `reader`. The one value written into the caller's reader is a suffix of
    // its own slice, or a position within its own cursor: never bytes from elsewhere, so the
    // lifetime the cast gives the slice is never observed.
    unsafe {
        if is::<R, &'static [u8]>() {
            let s = cast_mut::<R, &[u8]>(r);
            *s = &s[n.min(s.len())..];
        } else if is::<R, &'static mut &'static [u8]>() {
            let s = &mut **cast_mut::<R, &mut &[u8]>(r);
            *s = &s[n.min(s.len())..];
        } else if is::<R, Cursor<&'static [u8]>>() {
            advance_cursor(cast_mut::<R, Cursor<&[u8]>>(r), n);
        } else if is::<R, &'static mut Cursor<&'static [u8]>>() {
            advance_cursor(*cast_mut::<R, &mut Cursor<&[u8]>>(r), n);
        } else if is::<R, Cursor<Vec<u8>>>() {
            advance_cursor(cast_mut::<R, Cursor<Vec<u8>>>(r), n);
        } else if is::<R, &'static mut Cursor<Vec<u8>>>() {
            advance_cursor(*cast_mut::<R, &mut Cursor<Vec<u8>>>(r), n);
        }
    }
}

/// A caller's `Read + Seek` seen as a positioned source: what region reads and a stored
/// `.npz` member's reads take from it. The reader's position is then not the caller's to
/// rely on.
pub enum Positioned<'r, R> {
    /// A `File` or `BufReader<File>` (by value or reference), on Unix: read at offsets on
    /// any thread.
    #[cfg(unix)]
    File(&'r File),
    /// A `Cursor` over bytes in memory (by value or `&mut`): all its bytes.
    Bytes(&'r [u8]),
    /// An object in a store, read by ranged requests.
    Ranged(&'r mut super::RangedFile),
    /// A source named by its type ([`SourceReader`](super::SourceReader)): read as it reads.
    Source(&'r mut dyn super::ReadAt),
    /// Anything else: seek, then read.
    Other(&'r mut R),
}

/// How a reader of type `R` is seen as a positioned source: [`positioned`]'s guess for any
/// reader, or a [`SourceReader`](super::SourceReader)'s own.
pub type Door<R> = for<'r> fn(&'r mut R) -> Positioned<'r, R>;

/// What `r` is, among the sources [`Positioned`] names.
pub fn positioned<R: Read>(r: &mut R) -> Positioned<'_, R> {
    #[cfg(unix)]
    let r = match file_behind(r) {
        Ok(file) => return Positioned::File(file),
        Err(r) => r,
    };
    // SAFETY: as in `reader`; only shared references leave. `RangedFile` names no lifetime
    // (it is this layer's, and holds only owned values), so `R` is exactly it or `&mut` of it.
    unsafe {
        if is::<R, Cursor<&'static [u8]>>() {
            return Positioned::Bytes(cast_mut::<R, Cursor<&[u8]>>(r).get_ref());
        } else if is::<R, &'static mut Cursor<&'static [u8]>>() {
            return Positioned::Bytes(cast_mut::<R, &mut Cursor<&[u8]>>(r).get_ref());
        } else if is::<R, Cursor<Vec<u8>>>() {
            return Positioned::Bytes(cast_mut::<R, Cursor<Vec<u8>>>(r).get_ref());
        } else if is::<R, &'static mut Cursor<Vec<u8>>>() {
            return Positioned::Bytes(cast_mut::<R, &mut Cursor<Vec<u8>>>(r).get_ref());
        }
        if is::<R, super::RangedFile>() {
            return Positioned::Ranged(cast_mut::<R, super::RangedFile>(r));
        } else if is::<R, &'static mut super::RangedFile>() {
            return Positioned::Ranged(cast_mut::<R, &mut super::RangedFile>(r));
        }
    }
    Positioned::Other(r)
}

/// The file behind `r` if it is a `File` or `BufReader<File>` (by value or reference), to be
/// read at offsets of the caller's choosing (the reader's position is then not the caller's
/// to rely on); else `r` back.
#[cfg(unix)]
pub fn file_behind<R: Read>(r: &mut R) -> Result<&File, &mut R> {
    // SAFETY: as in `reader`; only shared references leave.
    unsafe {
        if is::<R, File>() {
            Ok(cast_mut::<R, File>(r))
        } else if is::<R, &'static File>() {
            Ok(*cast_mut::<R, &File>(r))
        } else if is::<R, &'static mut File>() {
            Ok(&**cast_mut::<R, &mut File>(r))
        } else if is::<R, BufReader<File>>() {
            Ok(cast_mut::<R, BufReader<File>>(r).get_ref())
        } else if is::<R, &'static mut BufReader<File>>() {
            Ok(cast_mut::<R, &mut BufReader<File>>(r).get_ref())
        } else {
            Err(r)
        }
    }
}

/// A writer seen through to the standard type it is.
pub enum ConcreteWriter<'w, W> {
    /// A `File`, `&File` or `&mut File`.
    File(&'w File),
    /// A `BufWriter<File>`, by value or `&mut`.
    BufFile(&'w mut BufWriter<File>),
    /// Anything else.
    Other(&'w mut W),
}

/// What `w` is, among the writers [`ConcreteWriter`] names.
pub fn writer<W: Write>(w: &mut W) -> ConcreteWriter<'_, W> {
    // SAFETY: as in `reader`; nothing is written through these references but bytes to the
    // file.
    unsafe {
        if is::<W, File>() {
            ConcreteWriter::File(cast_mut::<W, File>(w))
        } else if is::<W, &'static File>() {
            ConcreteWriter::File(cast_mut::<W, &File>(w))
        } else if is::<W, &'static mut File>() {
            ConcreteWriter::File(cast_mut::<W, &mut File>(w))
        } else if is::<W, BufWriter<File>>() {
            ConcreteWriter::BufFile(cast_mut::<W, BufWriter<File>>(w))
        } else if is::<W, &'static mut BufWriter<File>>() {
            ConcreteWriter::BufFile(cast_mut::<W, &mut BufWriter<File>>(w))
        } else {
            ConcreteWriter::Other(w)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind<R: Read>(mut r: R) -> &'static str {
        match reader(&mut r) {
            ConcreteReader::File(_) => "file",
            ConcreteReader::BufFile(_) => "buf",
            ConcreteReader::Bytes(_) => "bytes",
            ConcreteReader::Other(_) => "other",
        }
    }

    fn write_kind<W: Write>(mut w: W) -> &'static str {
        match writer(&mut w) {
            ConcreteWriter::File(_) => "file",
            ConcreteWriter::BufFile(_) => "buf",
            ConcreteWriter::Other(_) => "other",
        }
    }

    #[test]
    fn the_standard_readers_are_recognised_by_value_and_by_reference() {
        let path = std::env::temp_dir().join(format!("ndnpy-concrete-{}", std::process::id()));
        std::fs::write(&path, b"abc").unwrap();
        let mut f = File::open(&path).unwrap();
        assert_eq!(kind(&f), "file");
        assert_eq!(kind(&mut f), "file");
        assert_eq!(kind(File::open(&path).unwrap()), "file");
        let mut b = BufReader::new(File::open(&path).unwrap());
        assert_eq!(kind(&mut b), "buf");
        assert_eq!(kind(b), "buf");
        let bytes = vec![1u8, 2, 3];
        let mut s = &bytes[..];
        assert_eq!(kind(&mut s), "bytes");
        assert_eq!(kind(s), "bytes");
        assert_eq!(kind(Cursor::new(&bytes[..])), "bytes");
        assert_eq!(kind(&mut Cursor::new(&bytes[..])), "bytes");
        assert_eq!(kind(Cursor::new(bytes.clone())), "bytes");
        assert_eq!(kind(&mut Cursor::new(bytes.clone())), "bytes");
        // Other types, and the same types wrapped, take the generic path.
        assert_eq!(kind(Cursor::new(&bytes)), "other");
        assert_eq!(kind(BufReader::new(&bytes[..])), "other");
        assert_eq!(kind((&bytes[..]).chain(&bytes[..])), "other");
        assert_eq!(kind(&mut &mut &bytes[..]), "other");
        assert_eq!(kind(Box::new(&bytes[..]) as Box<dyn Read>), "other");
        fn at<R>(p: Positioned<'_, R>) -> &'static str {
            match p {
                #[cfg(unix)]
                Positioned::File(_) => "file",
                Positioned::Bytes(_) => "bytes",
                Positioned::Ranged(_) => "ranged",
                Positioned::Source(_) => "source",
                Positioned::Other(_) => "other",
            }
        }
        assert_eq!(at(positioned(&mut File::open(&path).unwrap())), "file");
        assert_eq!(at(positioned(&mut &File::open(&path).unwrap())), "file");
        let mut b = BufReader::new(File::open(&path).unwrap());
        assert_eq!(at(positioned(&mut b)), "file");
        assert_eq!(at(positioned(&mut &mut b)), "file");
        assert_eq!(at(positioned(&mut Cursor::new(&bytes[..]))), "bytes");
        assert_eq!(
            at(positioned(&mut &mut Cursor::new(bytes.clone()))),
            "bytes"
        );
        assert_eq!(at(positioned(&mut &bytes[..])), "other");
        assert_eq!(
            at(positioned(&mut BufReader::new(Cursor::new(&bytes[..])))),
            "other"
        );
        // A cursor's bytes are all of them, wherever its position is.
        let mut c = Cursor::new(&bytes[..]);
        c.set_position(2);
        assert!(matches!(positioned(&mut c), Positioned::Bytes([1, 2, 3])));

        assert_eq!(write_kind(File::create(&path).unwrap()), "file");
        let mut f = File::create(&path).unwrap();
        assert_eq!(write_kind(&f), "file");
        assert_eq!(write_kind(&mut f), "file");
        let mut w = BufWriter::new(f);
        assert_eq!(write_kind(&mut w), "buf");
        assert_eq!(write_kind(w), "buf");
        assert_eq!(write_kind(Vec::new()), "other");
        assert_eq!(write_kind(BufWriter::new(Vec::new())), "other");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_recognised_slice_is_the_callers_slice() {
        fn rest<R: Read>(r: &mut R) -> Vec<u8> {
            match reader(r) {
                ConcreteReader::Bytes(b) => b.to_vec(),
                _ => panic!("not seen as bytes"),
            }
        }
        let bytes = [1u8, 2, 3, 4];
        let mut s = &bytes[1..];
        assert_eq!(rest(&mut s), [2, 3, 4]);
        advance(&mut s, 2);
        assert_eq!(rest(&mut &mut s), [4]);
        advance(&mut &mut s, 7); // at most to the end
        assert!(s.is_empty());
        let mut c = Cursor::new(&bytes[..]);
        c.set_position(1);
        assert_eq!(rest(&mut c), [2, 3, 4]);
        advance(&mut &mut c, 2);
        assert_eq!(c.position(), 3);
        advance(&mut c, 9);
        assert_eq!(c.position(), 4);
        // A cursor past its end has nothing left and stays where it is.
        let mut v = Cursor::new(bytes.to_vec());
        v.set_position(10);
        assert!(rest(&mut v).is_empty());
        advance(&mut v, 1);
        assert_eq!(v.position(), 10);
        v.set_position(0);
        advance(&mut &mut v, 3);
        assert_eq!(rest(&mut v), [4]);
        // Another reader is not moved.
        let mut other = std::io::BufReader::new(&bytes[..]);
        advance(&mut other, 2);
        assert_eq!(std::io::BufRead::fill_buf(&mut other).unwrap(), bytes);
    }
}
