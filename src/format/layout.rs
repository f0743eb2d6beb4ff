//! Shapes and memory order: the header's shape as an ndarray dimension, and numpy's rules
//! for which order an array is written in.

use crate::base::error::{Error, MismatchError, UsageError};
use ndarray::{ArrayRef, ArrayView, Dimension, ShapeBuilder};

/// `D` with the header's shape, after checking the number of dimensions.
pub(crate) fn dimension<D: Dimension>(shape: &[usize]) -> Result<D, Error> {
    if let Some(ndim) = D::NDIM {
        if ndim != shape.len() {
            return Err(MismatchError::Ndim {
                expected: ndim,
                found: shape.len(),
                shape: shape.to_vec(),
            }
            .into());
        }
    }
    let mut dim = D::zeros(shape.len());
    dim.slice_mut().copy_from_slice(shape);
    Ok(dim)
}

/// Whether `arr` is written in Fortran order. numpy's rule (header_data_from_array_1_0):
/// C-contiguous first, so 1-D, 0-d, empty and (1, n)-in-F arrays are all C order;
/// F-contiguous next; anything else is written in C order.
pub(crate) fn fortran_order_of<A, D: Dimension>(arr: &ArrayRef<A, D>) -> bool {
    !arr.is_standard_layout() && arr.t().is_standard_layout()
}

/// The shape and order (Fortran or not) of a shape builder such as `(3, 4)` or `(3, 4).f()`,
/// following numpy's rule: a shape that is both C- and Fortran-contiguous is C order.
pub(crate) fn shape_and_order<Sh: ShapeBuilder>(shape: Sh) -> Result<(Vec<usize>, bool), Error> {
    let shape = shape.into_shape_with_order();
    let dims = shape.raw_dim().slice().to_vec();
    let overflow = || UsageError::ShapeOverflow {
        shape: dims.clone(),
        itemsize: 0,
    };
    let n = shape.raw_dim().size_checked().ok_or_else(overflow)?;
    // A view of zero-sized elements costs nothing and tells the order ndarray resolved.
    let units = vec![(); n];
    let view = ArrayView::from_shape(shape, &units[..]).map_err(|_| overflow())?;
    Ok((dims, !view.is_standard_layout()))
}

/// Where each element of an array of `shape` stored in Fortran order lies (its index in the
/// data, in elements), taken in C order: the walk that turns Fortran-order bytes into C
/// order. Axis 0 is contiguous in the data, so an odometer over the C index moves by each
/// axis's Fortran stride.
#[cfg(any(feature = "arrow", feature = "safetensors"))]
pub(crate) fn fortran_offsets(shape: &[usize]) -> impl Iterator<Item = usize> + '_ {
    let mut strides = Vec::with_capacity(shape.len());
    let mut stride = 1usize;
    for &d in shape {
        strides.push(stride);
        // The product is the element count, which the caller's data holds.
        stride = stride.saturating_mul(d);
    }
    let count: usize = shape.iter().product();
    let mut index = vec![0usize; shape.len()];
    let mut at = 0usize;
    (0..count).map(move |_| {
        let here = at;
        // The next index in C order: the last axis moves fastest.
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            at += strides[axis];
            if index[axis] < shape[axis] {
                break;
            }
            at -= strides[axis] * shape[axis];
            index[axis] = 0;
        }
        here
    })
}

/// Fortran-order `data` of `shape` (items of `itemsize` bytes) in C order, allocated
/// fallibly. `data` holds every element.
#[cfg(feature = "arrow")]
pub(crate) fn fortran_to_c(
    data: &[u8],
    shape: &[usize],
    itemsize: usize,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    out.try_reserve_exact(data.len())
        .map_err(|_| Error::out_of_memory(data.len(), "the array in C order"))?;
    for k in fortran_offsets(shape) {
        out.extend_from_slice(&data[k * itemsize..][..itemsize]);
    }
    Ok(out)
}

#[cfg(all(test, feature = "arrow"))]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn};

    #[test]
    fn fortran_to_c_matches_ndarray_for_every_shape() {
        for shape in [
            &[][..],
            &[0][..],
            &[5],
            &[2, 3],
            &[3, 1, 4],
            &[2, 0, 3],
            &[2, 3, 4, 2],
        ] {
            let n: usize = shape.iter().product();
            let c = ArrayD::from_shape_fn(IxDyn(shape), |i| {
                i.slice().iter().fold(0u16, |a, &k| a * 10 + k as u16)
            });
            // The same array stored in Fortran order, then its items as 2-byte units.
            let f: Vec<u16> = c.t().iter().copied().collect();
            let bytes: Vec<u8> = f.iter().flat_map(|v| v.to_le_bytes()).collect();
            let back = fortran_to_c(&bytes, shape, 2).unwrap();
            let want: Vec<u8> = c.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(back, want, "{shape:?}");
            assert_eq!(fortran_offsets(shape).count(), n);
        }
    }
}
