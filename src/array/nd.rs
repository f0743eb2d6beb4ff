//! The ndarray layer's shapes, orders and views: the header's shape as an ndarray dimension,
//! numpy's rule for which order an array is written in, and an ndarray view as the element
//! layer's [`Strided`] or [`StridedMut`] (the element layer knows no array type).
//!
//! Unsafe here: two blocks, handing a view's address, shape and strides to
//! [`Strided::from_raw_parts`] and [`StridedMut::from_raw_parts`].
#![allow(unsafe_code)]

use ndarray::{ArrayBase, ArrayView, ArrayViewMutD, Data, Dimension, ShapeBuilder};
use ndnpy_engine::base::error::{Error, MismatchError, UsageError};
use ndnpy_engine::element::{Strided, StridedMut};

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
pub(crate) fn fortran_order_of<S: Data, D: Dimension>(arr: &ArrayBase<S, D>) -> bool {
    !arr.is_standard_layout() && arr.t().is_standard_layout()
}

/// The shape and order (Fortran or not) of a shape builder such as `(3, 4)` or `(3, 4).f()`,
/// following numpy's rule: a shape that is both C- and Fortran-contiguous is C order.
pub(crate) fn shape_and_order<Sh: ShapeBuilder>(shape: Sh) -> Result<(Vec<usize>, bool), Error> {
    #[cfg(not(nd15))]
    let shape = shape.into_shape_with_order();
    #[cfg(nd15)]
    let shape = shape.into_shape();
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

/// An owned array's vector and the offset of its first element in it (`None` when the array
/// is empty), as ndarray 0.16's `into_raw_vec_and_offset`
/// gives them (ndarray 0.15 gives only the vector). The Arrow conversions take an array's
/// vector this way.
#[cfg(feature = "arrow")]
pub(crate) fn into_raw_vec_and_offset<A, D: Dimension>(
    array: ndarray::Array<A, D>,
) -> (Vec<A>, Option<usize>) {
    #[cfg(not(nd15))]
    return array.into_raw_vec_and_offset();
    #[cfg(nd15)]
    {
        let (first, empty) = (array.as_ptr() as usize, array.is_empty());
        let vec = array.into_raw_vec();
        // The vector keeps the array's allocation, so a non-empty array's first element is
        // still at `first`, `offset` elements after the vector's start (0 for elements that
        // take no space, as ndarray 0.16 says).
        let offset = (!empty).then(|| {
            (first - vec.as_ptr() as usize)
                .checked_div(std::mem::size_of::<A>())
                .unwrap_or(0)
        });
        (vec, offset)
    }
}

/// The elements of `arr` as a [`Strided`] view (no copy), borrowed as long as `arr` is.
pub(crate) fn strided<'s, A, D: Dimension>(arr: &'s ArrayView<'_, A, D>) -> Strided<'s, A> {
    // SAFETY: ndarray guarantees that every index within `arr.shape()` offset by
    // `arr.strides()` (in elements) from `arr.as_ptr()` reaches an initialised element of
    // one allocation, and `arr` is borrowed shared for the result's lifetime, so nothing
    // mutates those elements meanwhile; `strides()` has one entry per axis.
    unsafe { Strided::from_raw_parts(arr.as_ptr(), arr.shape(), arr.strides()) }
}

/// The elements of `view` as the element layer's [`StridedMut`] (no copy), borrowed as the
/// view was.
pub(crate) fn strided_mut<A>(mut view: ArrayViewMutD<'_, A>) -> StridedMut<'_, A> {
    let (shape, strides) = (view.shape().to_vec(), view.strides().to_vec());
    // SAFETY: ndarray guarantees that every index within the view's shape, offset by its
    // strides from `as_mut_ptr()`, reaches an initialised element of one allocation, that a
    // mutable view's distinct indices reach distinct elements, and that the view holds the
    // only borrow of them for its lifetime, which the result takes over (the view is
    // consumed).
    unsafe { StridedMut::from_raw_parts(view.as_mut_ptr(), shape, strides) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array3, Axis, ShapeBuilder};

    /// An owned array's vector and its first element's offset, as ndarray 0.16 gives them
    /// (computed from addresses on ndarray 0.15): sliced from the front, empty, zero-sized.
    #[cfg(feature = "arrow")]
    #[test]
    fn raw_vec_and_offset_as_ndarray_0_16_gives_them() {
        let a = ndarray::Array1::from_iter(0..10u32);
        let mut b = a.clone();
        b.slice_collapse(s![3..7]);
        assert_eq!(into_raw_vec_and_offset(a), ((0..10).collect(), Some(0)));
        assert_eq!(into_raw_vec_and_offset(b), ((0..10).collect(), Some(3)));
        let mut e = ndarray::Array1::from_iter(0..4u8);
        e.slice_collapse(s![4..]);
        assert_eq!(into_raw_vec_and_offset(e).1, None);
        let units = ndarray::Array1::from_elem(3, ());
        assert_eq!(into_raw_vec_and_offset(units), (vec![(); 3], Some(0)));
    }

    /// Views ndarray makes (sliced, stepped, reversed, permuted, split mutably, broadcast,
    /// empty) read as ndarray iterates them, and as one slice exactly when ndarray gives one.
    #[test]
    fn ndarray_views_read_as_ndarray_iterates_them() {
        let mut a = Array3::from_shape_fn((4, 3, 5), |(i, j, k)| (i * 100 + j * 10 + k) as u32);
        let check = |v: ndarray::ArrayViewD<'_, u32>| {
            let s = strided(&v);
            assert_eq!(s.shape(), v.shape());
            assert_eq!(
                s.iter().copied().collect::<Vec<_>>(),
                v.iter().copied().collect::<Vec<_>>()
            );
            assert_eq!(s.as_slice(), v.as_slice());
        };
        check(a.view().into_dyn());
        check(a.slice(s![1.., ..;2, ..]).into_dyn());
        check(a.slice(s![..;-1, .., 1..4;-2]).into_dyn());
        check(a.view().permuted_axes([2, 0, 1]).into_dyn());
        check(a.slice(s![.., 1, ..]).into_dyn());
        check(a.slice(s![.., 1..1, ..]).into_dyn());
        check(a.slice(s![2, 1, 3]).into_dyn());
        check(a.slice(s![2, .., 3]).broadcast((2, 3)).unwrap().into_dyn());
        // Mutable views (stepped, reversed, Fortran-ordered) fill as ndarray assigns.
        let mut b = Array3::<u32>::zeros((4, 3, 5));
        let mut want = Array3::<u32>::zeros((4, 3, 5));
        for (k, x) in strided_mut(b.slice_mut(s![..;2, ..;-1, 1..]).into_dyn())
            .into_iter_mut()
            .enumerate()
        {
            *x = k as u32 + 1;
        }
        let mut k = 0;
        want.slice_mut(s![..;2, ..;-1, 1..])
            .iter_mut()
            .for_each(|x| {
                k += 1;
                *x = k;
            });
        assert_eq!(b, want);
        let mut f = ndarray::Array2::<u8>::zeros((2, 3).f());
        let mut sf = strided_mut(f.view_mut().reversed_axes().into_dyn());
        sf.as_slice_mut()
            .unwrap()
            .copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(f, ndarray::array![[1, 3, 5], [2, 4, 6]]);
        // Two interleaved mutable halves: the left one read while the right one is held.
        let (left, mut right) = a.view_mut().split_at(Axis(2), 2);
        right.fill(7);
        check(left.view().into_dyn());
        assert!(right.iter().all(|&x| x == 7));
    }
}
