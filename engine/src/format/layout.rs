//! Shapes and memory order: the walk that turns Fortran-order data into C order. (What an
//! ndarray dimension or layout is, `array::nd` says: this layer knows no array type.)

#[cfg(feature = "arrow")]
use crate::base::error::Error;

/// Where each element of an array of `shape` stored in Fortran order lies (its index in the
/// data, in elements), taken in C order: the walk that turns Fortran-order bytes into C
/// order. Axis 0 is contiguous in the data, so an odometer over the C index moves by each
/// axis's Fortran stride.
#[cfg(any(feature = "arrow", feature = "safetensors"))]
pub fn fortran_offsets(shape: &[usize]) -> impl Iterator<Item = usize> + '_ {
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
pub fn fortran_to_c(data: &[u8], shape: &[usize], itemsize: usize) -> Result<Vec<u8>, Error> {
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

    /// Every index of `shape`, the first axis fastest (`fortran`) or the last (C order).
    fn indices(shape: &[usize], fortran: bool) -> Vec<Vec<usize>> {
        let count: usize = shape.iter().product();
        let mut out = Vec::with_capacity(count);
        let mut index = vec![0usize; shape.len()];
        for _ in 0..count {
            out.push(index.clone());
            let axes: Vec<usize> = if fortran {
                (0..shape.len()).collect()
            } else {
                (0..shape.len()).rev().collect()
            };
            for axis in axes {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        out
    }

    #[test]
    fn fortran_to_c_matches_the_naive_walk_for_every_shape() {
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
            let value = |i: &Vec<usize>| i.iter().fold(0u16, |a, &k| a * 10 + k as u16);
            // The array stored in Fortran order, then its items as 2-byte units.
            let bytes: Vec<u8> = indices(shape, true)
                .iter()
                .flat_map(|i| value(i).to_le_bytes())
                .collect();
            let back = fortran_to_c(&bytes, shape, 2).unwrap();
            let want: Vec<u8> = indices(shape, false)
                .iter()
                .flat_map(|i| value(i).to_le_bytes())
                .collect();
            assert_eq!(back, want, "{shape:?}");
            assert_eq!(fortran_offsets(shape).count(), n);
        }
    }
}
