//! The standard types behind a generic reader or writer.
//!
//! `ReadNpyExt::read_npy<R: Read>` and `WriteNpyExt::write_npy<W: Write>` are generic, but what
//! users pass is nearly always one of a few standard types: a `File`, a `BufReader<File>` or
//! `BufWriter<File>`, bytes in memory (`&[u8]`, a `Cursor`), by value or by `&mut`. Behind
//! those the whole input is reachable: a regular file has a length and can be read at any
//! offset (on several threads), bytes in memory can be copied directly, and a file being
//! written can be given its space up front (as numpy's `tofile` does). Through a plain `Read`
//! none of that is possible. [`reader`] and [`writer`] recognise those types by their
//! [`TypeId`]; everything else takes the generic path.
//!
//! This is the only module that looks at a type parameter's identity. Its `unsafe` operation
//! is [`cast_mut`], whose callers below keep to the rule it states. The one result whose
//! lifetimes the cast chooses, the caller's slice or cursor, leaves this module only inside
//! [`InMemory`], which hands out the bytes left and a way to advance past them: no code
//! outside can write a slice of a shorter life into the caller's reader.
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
pub(crate) enum ConcreteReader<'r, R> {
    /// A `File`, `&File` or `&mut File` (a regular file, a pipe or a device).
    File(&'r File),
    /// A `BufReader<File>`, by value or `&mut`.
    BufFile(&'r mut BufReader<File>),
    /// Bytes in memory: a `&[u8]`, `Cursor<&[u8]>` or `Cursor<Vec<u8>>`, by value or `&mut`.
    Bytes(InMemory<'r>),
    /// Anything else.
    Other(&'r mut R),
}

/// The caller's bytes in memory, seen from the reader's position: what is left to read, and a
/// way to move the reader on. The caller's slice or cursor is private to this module and only
/// ever advanced ([`InMemory::advance`]), so no code outside it can store other bytes into
/// the caller's reader, whatever lifetime they have.
pub(crate) struct InMemory<'r>(Behind<'r>);

/// What [`InMemory`] holds: the caller's reader itself.
enum Behind<'r> {
    Slice(&'r mut &'r [u8]),
    CursorSlice(&'r mut Cursor<&'r [u8]>),
    CursorVec(&'r mut Cursor<Vec<u8>>),
}

impl InMemory<'_> {
    /// The bytes from the reader's position on (none if a cursor is past its end).
    pub(crate) fn remaining(&self) -> &[u8] {
        fn from<B: AsRef<[u8]>>(c: &Cursor<B>) -> &[u8] {
            let all = c.get_ref().as_ref();
            let start = usize::try_from(c.position()).map_or(all.len(), |p| p.min(all.len()));
            &all[start..]
        }
        match &self.0 {
            Behind::Slice(s) => s,
            Behind::CursorSlice(c) => from(c),
            Behind::CursorVec(c) => from(c),
        }
    }

    /// Moves the reader `n` bytes on (at most to the end of [`remaining`](Self::remaining)).
    pub(crate) fn advance(&mut self, n: usize) {
        let n = n.min(self.remaining().len());
        if n == 0 {
            return;
        }
        match &mut self.0 {
            Behind::Slice(s) => {
                let rest: &[u8] = s;
                **s = &rest[n..];
            }
            Behind::CursorSlice(c) => advance_cursor(c, n),
            Behind::CursorVec(c) => advance_cursor(c, n),
        }
    }
}

/// Moves a cursor `n` bytes on from its position, which is at most its length (`n` is
/// within what remains).
fn advance_cursor<B: AsRef<[u8]>>(c: &mut Cursor<B>, n: usize) {
    let len = c.get_ref().as_ref().len() as u64;
    let pos = c.position().min(len);
    c.set_position(pos + n as u64);
}

/// What `r` is, among the readers [`ConcreteReader`] names.
pub(crate) fn reader<R: Read>(r: &mut R) -> ConcreteReader<'_, R> {
    // SAFETY (every `cast_mut` below, each after its `is`): `File`, `BufReader<File>` and
    // `Cursor<Vec<u8>>` name no lifetime, so `R` is exactly that type. For the reference
    // types, `R` is the same type with lifetimes that outlive the borrow of `r` (`R: 'r`); the
    // results are given the borrow's lifetime. The slices and cursors go into an `InMemory`,
    // whose field no code outside this module can reach and whose only write sets a slice
    // to a suffix of itself or a cursor's position: never other bytes.
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
            in_memory(Behind::Slice(cast_mut::<R, &[u8]>(r)))
        } else if is::<R, &'static mut &'static [u8]>() {
            in_memory(Behind::Slice(cast_mut::<R, &mut &[u8]>(r)))
        } else if is::<R, Cursor<&'static [u8]>>() {
            in_memory(Behind::CursorSlice(cast_mut::<R, Cursor<&[u8]>>(r)))
        } else if is::<R, &'static mut Cursor<&'static [u8]>>() {
            in_memory(Behind::CursorSlice(cast_mut::<R, &mut Cursor<&[u8]>>(r)))
        } else if is::<R, Cursor<Vec<u8>>>() {
            in_memory(Behind::CursorVec(cast_mut::<R, Cursor<Vec<u8>>>(r)))
        } else if is::<R, &'static mut Cursor<Vec<u8>>>() {
            in_memory(Behind::CursorVec(cast_mut::<R, &mut Cursor<Vec<u8>>>(r)))
        } else {
            ConcreteReader::Other(r)
        }
    }
}

fn in_memory<R>(behind: Behind<'_>) -> ConcreteReader<'_, R> {
    ConcreteReader::Bytes(InMemory(behind))
}

/// The file behind `r` if it is a `File` or `BufReader<File>` (by value or reference), to be
/// read at offsets of the caller's choosing (the reader's position is then not the caller's
/// to rely on); else `r` back.
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) fn file_behind<R: Read>(r: &mut R) -> Result<&File, &mut R> {
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

/// A type that holds no borrows (it names no lifetime), so that a reader whose erased type
/// is its own, or `&mut` of it, is that very type: [`downcast_mut`] may hand it out.
///
/// # Safety
///
/// The type must have no lifetime parameters (and be `'static`).
pub(crate) unsafe trait Unborrowed: 'static {}

/// `r` as the `T` it is, by value or `&mut` (`R` is `T` or `&mut T`); else `None`.
#[cfg_attr(not(feature = "object_store"), allow(dead_code))]
pub(crate) fn downcast_mut<R, T: Unborrowed>(r: &mut R) -> Option<&mut T> {
    // SAFETY: `T` names no lifetime (its `Unborrowed` contract), so `R` is exactly `T`, or
    // `&'a mut T` with the erased lifetime `'a` outliving this borrow of `r`; the result only
    // reborrows through it, never writing a value of another life back.
    unsafe {
        if is::<R, T>() {
            Some(cast_mut::<R, T>(r))
        } else if is::<R, &'static mut T>() {
            Some(&mut **cast_mut::<R, &mut T>(r))
        } else {
            None
        }
    }
}

/// A writer seen through to the standard type it is.
pub(crate) enum ConcreteWriter<'w, W> {
    /// A `File`, `&File` or `&mut File`.
    File(&'w File),
    /// A `BufWriter<File>`, by value or `&mut`.
    BufFile(&'w mut BufWriter<File>),
    /// Anything else.
    Other(&'w mut W),
}

/// What `w` is, among the writers [`ConcreteWriter`] names.
pub(crate) fn writer<W: Write>(w: &mut W) -> ConcreteWriter<'_, W> {
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
            ConcreteReader::Bytes(InMemory(Behind::Slice(_))) => "bytes",
            ConcreteReader::Bytes(InMemory(Behind::CursorSlice(_))) => "cursor slice",
            ConcreteReader::Bytes(InMemory(Behind::CursorVec(_))) => "cursor vec",
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
        assert_eq!(kind(Cursor::new(&bytes[..])), "cursor slice");
        assert_eq!(kind(&mut Cursor::new(&bytes[..])), "cursor slice");
        assert_eq!(kind(Cursor::new(bytes.clone())), "cursor vec");
        assert_eq!(kind(&mut Cursor::new(bytes.clone())), "cursor vec");
        // Other types, and the same types wrapped, take the generic path.
        assert_eq!(kind(Cursor::new(&bytes)), "other");
        assert_eq!(kind(BufReader::new(&bytes[..])), "other");
        assert_eq!(kind((&bytes[..]).chain(&bytes[..])), "other");
        assert_eq!(kind(&mut &mut &bytes[..]), "other");
        assert_eq!(kind(Box::new(&bytes[..]) as Box<dyn Read>), "other");
        assert!(file_behind(&mut File::open(&path).unwrap()).is_ok());
        assert!(file_behind(&mut BufReader::new(File::open(&path).unwrap())).is_ok());
        assert!(file_behind(&mut &bytes[..]).is_err());

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
        let bytes = [1u8, 2, 3, 4];
        let mut s = &bytes[1..];
        if let ConcreteReader::Bytes(mut b) = reader(&mut s) {
            assert_eq!(b.remaining(), [2, 3, 4]);
            b.advance(2);
            assert_eq!(b.remaining(), [4]);
            b.advance(7); // at most to the end
        } else {
            panic!("not seen as bytes");
        }
        assert!(s.is_empty());
        let mut c = Cursor::new(&bytes[..]);
        c.set_position(1);
        if let ConcreteReader::Bytes(mut m) = reader(&mut c) {
            assert_eq!(m.remaining(), [2, 3, 4]);
            m.advance(2);
        } else {
            panic!("not seen as bytes");
        }
        assert_eq!(c.position(), 3);
        // A cursor past its end has nothing left and stays where it is.
        let mut v = Cursor::new(bytes.to_vec());
        v.set_position(10);
        if let ConcreteReader::Bytes(mut m) = reader(&mut v) {
            assert!(m.remaining().is_empty());
            m.advance(1);
        } else {
            panic!("not seen as bytes");
        }
        assert_eq!(v.position(), 10);
    }
}
