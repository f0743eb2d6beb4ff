//! `half::bf16`, ml_dtypes' bfloat16 (feature `half`): its element impls. numpy has no
//! bfloat16 dtype; np.save writes ml_dtypes' `bfloat16` arrays as two-byte voids (`'<V2'`), so a
//! two-byte void is bf16 only because the caller asks for `bf16`.
//!
//! Unsafe here: the `Pod` impl (every bit pattern of the `u16` inside is a value).
#![allow(unsafe_code)]

use super::bulk;
use super::pod::{self, Pod};
use super::primitive::needs_swap;
use super::Input;
use super::{FixedDType, ReadableElement, ViewElement, ViewMutElement, WritableElement};
use crate::base::dtype::{ByteOrder, DType, Scalar, ScalarKind};
use crate::base::error::{not_native, wrong_dtype, Error};
use std::io::{Read, Write};

/// How a mismatch names `half::bf16`, with the dtypes it reads.
const BF16: &str =
    "half::bf16 (dtype '<V2', '>V2' or '|V2', as np.save writes ml_dtypes' bfloat16)";

/// The byte order of the bfloat16 bits stored as `dtype`, which must be a two-byte void:
/// its own order (`'<V2'`, what `np.save` of an ml_dtypes `bfloat16` array writes), or
/// native for `'|V2'` (what numpy writes once it has loaded such a file; numpy's
/// `.view(ml_dtypes.bfloat16)` reads the bytes in native order).
///
/// numpy has no bfloat16: a two-byte void is bf16 only because the caller asks for `bf16`.
/// Any other dtype (`'<f2'` and `'<u2'` included) is a mismatch.
pub fn bf16_order(dtype: &DType) -> Result<ByteOrder, Error> {
    match dtype {
        DType::Scalar(s) if s.kind() == ScalarKind::Void && s.size() == 2 => {
            Ok(match s.byte_order() {
                ByteOrder::NotApplicable => ByteOrder::NATIVE,
                order => order,
            })
        }
        _ => Err(wrong_dtype(BF16, dtype.clone())),
    }
}

// `half::bf16` is not a row of the scalar table: numpy has no bfloat16 dtype, so it has no
// `DynData` variant (`read_npy_dyn` cannot know that a two-byte void is one) and its dtype is
// a void, which the table's kinds do not describe.
const _: () = assert!(std::mem::size_of::<half::bf16>() == 2);
impl super::Sealed for half::bf16 {}

// SAFETY: `half::bf16` is #[repr(transparent)] over a u16: every bit pattern is a value, no
// padding; its bytes are swapped as one u16.
unsafe impl Pod for half::bf16 {
    const SWAP: usize = 2;
}

impl ReadableElement for half::bf16 {
    fn read_vec<R: Read + ?Sized>(
        reader: &mut R,
        dtype: &DType,
        len: usize,
        input: Input,
    ) -> Result<Vec<Self>, Error> {
        let order = bf16_order(dtype)?;
        let mut v: Vec<half::bf16> = bulk::read_vec(reader, len, input)?;
        if order.needs_swap() {
            pod::swap_in_place(pod::as_bytes_mut(&mut v), 2);
        }
        Ok(v)
    }
}

/// Checks that `dtype` holds bf16 bits in native order (for views).
fn bf16_native(dtype: &DType) -> Result<(), Error> {
    if bf16_order(dtype)?.needs_swap() {
        return Err(not_native(dtype.clone()));
    }
    Ok(())
}

impl ViewElement for half::bf16 {
    fn bytes_as_slice<'a>(bytes: &'a [u8], dtype: &DType, len: usize) -> Result<&'a [Self], Error> {
        bf16_native(dtype)?;
        pod::cast_slice(bytes, len)
    }
}

impl ViewMutElement for half::bf16 {
    fn bytes_as_mut_slice<'a>(
        bytes: &'a mut [u8],
        dtype: &DType,
        len: usize,
    ) -> Result<&'a mut [Self], Error> {
        bf16_native(dtype)?;
        pod::cast_slice_mut(bytes, len)
    }
}

impl FixedDType for half::bf16 {
    /// `'<V2'` on a little-endian machine: what `np.save` writes for an ml_dtypes
    /// `bfloat16` array.
    fn dtype() -> DType {
        match Scalar::new(ScalarKind::Void, ByteOrder::NATIVE, 2, None) {
            Ok(s) => DType::Scalar(s),
            Err(_) => unreachable!("a two-byte void is a numpy dtype"),
        }
    }
}

super::primitive::writable_pod!(half::bf16);
