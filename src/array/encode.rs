//! The engine under every `.npy` writer: one array's header and data into any `Write`, in
//! the memory order numpy would choose, and through the file behind a `File` or
//! `BufWriter<File>` when that is what the writer is.

use crate::array::nd::fortran_order_of;
use ndarray::{ArrayView, Dimension};
use ndnpy_engine::base::dtype::DType;
use ndnpy_engine::base::error::Error;
use ndnpy_engine::element::WritableElement;
use ndnpy_engine::format::header::Header;
use ndnpy_engine::platform::fsutil::Preallocating;
use ndnpy_engine::source::door::{self, ConcreteWriter};
use std::io::{BufWriter, Write};

/// Runs `write` and flushes: into the file behind a `File` or `BufWriter<File>`
/// ([`door::writer`]) through a buffer that reserves the file's extent before each large
/// write, as `np.save` does (the `BufWriter`'s own buffer is flushed first); into `writer`
/// itself otherwise.
pub(crate) fn write_through<W: Write>(
    writer: &mut W,
    write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = match door::writer(writer) {
        ConcreteWriter::File(file) => file,
        ConcreteWriter::BufFile(b) => {
            b.flush()?;
            b.get_ref()
        }
        ConcreteWriter::Other(w) => {
            write(w)?;
            w.flush()?;
            return Ok(());
        }
    };
    let mut w = BufWriter::new(Preallocating(file));
    write(&mut w)?;
    w.flush()?;
    Ok(())
}

/// Writes header and data of `arr` as `dtype` (the caller's choice of length and byte order),
/// choosing the memory order as numpy does.
pub(crate) fn write_with_dtype<A, D, W>(
    arr: &ArrayView<'_, A, D>,
    writer: &mut W,
    dtype: DType,
) -> Result<(), Error>
where
    A: WritableElement,
    D: Dimension,
    W: Write + ?Sized,
{
    let f_contiguous = fortran_order_of(arr);
    let header = Header {
        dtype,
        fortran_order: f_contiguous,
        shape: arr.shape().to_vec(),
    };
    writer.write_all(&header.to_bytes()?)?;
    match arr.as_slice_memory_order() {
        Some(slice) if f_contiguous => A::write_slice(slice, writer, &header.dtype),
        _ => write_c_order(arr, writer, &header.dtype),
    }
}

/// Writes the elements of `arr` in C (row-major) order: one `write_slice` if it is
/// C-contiguous, else gathered lane by lane along the last axis into reusable chunks.
pub(crate) fn write_c_order<A, D, W>(
    arr: &ArrayView<'_, A, D>,
    writer: &mut W,
    dtype: &DType,
) -> Result<(), Error>
where
    A: WritableElement,
    D: Dimension,
    W: Write + ?Sized,
{
    A::write_strided(crate::array::nd::strided(arr), writer, dtype)
}
