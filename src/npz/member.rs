//! An `.npz` member read as an array: the engine's checked member bytes
//! ([`MemberReader`]) through this layer's array reads.

use crate::array::dynamic::DynArray;
use crate::array::options::ReadOptions;
use crate::array::read::read_array;
use ndarray::{ArrayBase, DataOwned, Dimension};
use ndnpy_engine::archive::member::{drain, read_magic, read_npy_magic, read_rest};
use ndnpy_engine::archive::member::{lift, Content, MemberReader};
use ndnpy_engine::base::error::Error;
use ndnpy_engine::element::ReadableElement;
use ndnpy_engine::format::header::{Header, MAGIC};
use ndnpy_engine::source::span::HashingRead;
use std::io::Read;

/// Reads the array whose magic has been read, then the rest of the member (running the end
/// checks).
fn array_after_magic<A, S, D, B>(
    m: &mut MemberReader<'_, B>,
    magic: &[u8; 6],
    opts: &ReadOptions,
) -> Result<ArrayBase<S, D>, Error>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
    B: HashingRead,
{
    let whole = m.input();
    let array = read_array(&mut (&magic[..]).chain(&mut *m), opts, whole)?;
    drain(m)?;
    Ok(array)
}

/// Reads the member as an `.npy` array; a member without the magic is a
/// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy).
pub(crate) fn read_npy<A, S, D, B>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadOptions,
) -> Result<ArrayBase<S, D>, Error>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
    B: HashingRead,
{
    let mut inner = || {
        let magic = read_npy_magic(m)?;
        array_after_magic(m, &magic, opts)
    };
    inner().map_err(lift)
}

/// Reads the member's array into `out`, memory the caller owns, then the rest of the member
/// (running the end checks: size and CRC-32); a member without the magic is a
/// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy).
pub(crate) fn read_into<A: ReadableElement, B: HashingRead>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadOptions,
    out: ndarray::ArrayViewMutD<'_, A>,
) -> Result<(), Error> {
    let inner = || {
        let magic = read_npy_magic(m)?;
        let mut reader = (&magic[..]).chain(&mut *m);
        let info = Header::read(&mut reader, opts)?;
        let h = &info.header;
        crate::array::read::read_body_into(
            &mut reader,
            (&h.dtype, h.fortran_order, &h.shape),
            out,
        )?;
        drain(m)
    };
    inner().map_err(lift)
}

/// Reads the member as an `.npy` array of any dtype; a member without the magic is a
/// [`ErrorKind::NotNpy`](crate::ErrorKind::NotNpy).
pub(crate) fn read_dyn<B: HashingRead>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadOptions,
) -> Result<DynArray, Error> {
    let mut inner = || {
        let magic = read_npy_magic(m)?;
        let whole = m.input();
        let array = DynArray::read_sized(&mut (&magic[..]).chain(&mut *m), opts, whole)?;
        drain(m)?;
        Ok(array)
    };
    inner().map_err(lift)
}

/// Reads the member as numpy would: an array if it starts with the magic, else bytes.
pub(crate) fn read_content<A, S, D, B>(
    m: &mut MemberReader<'_, B>,
    opts: &ReadOptions,
) -> Result<Content<ArrayBase<S, D>>, Error>
where
    A: ReadableElement,
    S: DataOwned<Elem = A>,
    D: Dimension,
    B: HashingRead,
{
    let mut inner = || {
        let (magic, n) = read_magic(m)?;
        if magic[..n] != MAGIC[..] {
            let mut bytes = magic[..n].to_vec();
            read_rest(m, &mut bytes, opts)?;
            return Ok(Content::Bytes(bytes));
        }
        Ok(Content::Array(array_after_magic(m, &magic, opts)?))
    };
    inner().map_err(lift)
}
