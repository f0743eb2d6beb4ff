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
