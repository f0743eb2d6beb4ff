//! A strided view of elements: what a write reads, whichever array type holds the elements.
//!
//! The element layer knows no array crate. A write hands it the elements as [`Strided`]: an
//! address, a shape and strides counted in elements, the three things every ndarray version's
//! views expose (`as_ptr`, `shape`, `strides`), so one gather serves them all. A contiguous
//! slice becomes one safely ([`Strided::contiguous`]); an array type's view becomes one through
//! [`Strided::from_raw_parts`], whose caller vouches for the addresses.
//!
//! Unsafe here: reading elements at the offsets the shape and strides give, which the
//! constructor's contract makes valid; every index is checked against the shape first.
#![allow(unsafe_code)]

use std::marker::PhantomData;

/// Moves `index` (within `shape`) to the next index in C order, and `offset` with it by
/// `strides`; past the last index it wraps to all zeros.
fn step(
    index: &mut [usize],
    offset: &mut isize,
    shape: &[usize],
    strides: impl Fn(usize) -> isize,
) {
    for axis in (0..shape.len()).rev() {
        index[axis] += 1;
        *offset = offset.wrapping_add(strides(axis));
        if index[axis] < shape[axis] {
            break;
        }
        *offset = offset.wrapping_sub((shape[axis] as isize).wrapping_mul(strides(axis)));
        index[axis] = 0;
    }
}

/// Whether elements of `shape` with `strides` lie one after another in C order (every axis
/// longer than one has its C-order stride), as ndarray's `as_slice` tells.
fn c_contiguous(shape: &[usize], strides: impl Fn(usize) -> isize) -> bool {
    let mut want = 1usize;
    for axis in (0..shape.len()).rev() {
        let d = shape[axis];
        if d > 1 && strides(axis) != want as isize {
            return false;
        }
        want = want.saturating_mul(d);
    }
    true
}

/// Elements laid out by a shape and strides (in elements, possibly negative), borrowed for
/// `'a`: a view of any array type, as the element traits' [`write_strided`] reads it.
///
/// [`write_strided`]: super::WritableElement::write_strided
///
/// # Examples
///
/// ```
/// use ndnpy::element::Strided;
/// let data = [1u8, 2, 3, 4, 5, 6];
/// let shape = [2, 3];
/// let c = Strided::contiguous(&data, &shape).unwrap();
/// assert_eq!(c.as_slice(), Some(&data[..]));
/// // The same memory read as its transpose, shape (3, 2): strides (1, 3).
/// let (t_shape, t_strides) = ([3, 2], [1, 3]);
/// // SAFETY: every index within (3, 2) reaches an element of `data`, which is borrowed.
/// let t = unsafe { Strided::from_raw_parts(data.as_ptr(), &t_shape, &t_strides) };
/// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [1, 4, 2, 5, 3, 6]);
/// assert_eq!(t.as_slice(), None);
/// ```
pub struct Strided<'a, T> {
    ptr: *const T,
    shape: &'a [usize],
    strides: &'a [isize],
    _elements: PhantomData<&'a T>,
}

impl<T> Clone for Strided<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Strided<'_, T> {}

// SAFETY: a `Strided` only reads `T`s through shared references, as a `&'a [T]` does, so it
// can be sent or shared between threads exactly when `&T` can.
unsafe impl<T: Sync> Send for Strided<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Strided<'_, T> {}

impl<T> std::fmt::Debug for Strided<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Strided")
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .finish_non_exhaustive()
    }
}

impl<'a, T> Strided<'a, T> {
    /// The elements of `slice` in C (row-major) order with `shape`, or `None` if the shape's
    /// element count is not the slice's length.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// assert!(Strided::contiguous(&[0.5f64; 6], &[2, 3]).is_some());
    /// assert!(Strided::contiguous(&[0.5f64; 6], &[4, 2]).is_none());
    /// ```
    pub fn contiguous(slice: &'a [T], shape: &'a [usize]) -> Option<Self> {
        let count = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
        if count != slice.len() {
            return None;
        }
        // C-order strides would need storage of their own; a contiguous view needs none, so
        // its strides are left empty and `stride` derives them from the shape.
        Some(Strided {
            ptr: slice.as_ptr(),
            shape,
            strides: &[],
            _elements: PhantomData,
        })
    }

    /// The elements at `ptr` laid out by `shape` and `strides` (in elements): the element at
    /// index `i` is at `ptr.offset(Σ i[k] * strides[k])`.
    ///
    /// # Safety
    ///
    /// `strides` has `shape`'s length, and for every index within `shape` that offset is in
    /// bounds of one allocation and holds an initialised `T` that nothing mutates during `'a`
    /// (as for a view of an array type: `as_ptr`, `shape` and `strides` of an ndarray view
    /// qualify while the view is borrowed). If the shape holds no element, nothing is read
    /// and `ptr` may dangle.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// let data = [1u16, 2, 3, 4];
    /// // Every second element, backwards: 4, 2.
    /// // SAFETY: offsets 3 and 1 are within `data`.
    /// let v = unsafe { Strided::from_raw_parts(data.as_ptr().add(3), &[2], &[-2]) };
    /// assert_eq!(v.iter().copied().collect::<Vec<_>>(), [4, 2]);
    /// ```
    pub unsafe fn from_raw_parts(ptr: *const T, shape: &'a [usize], strides: &'a [isize]) -> Self {
        debug_assert_eq!(shape.len(), strides.len());
        Strided {
            ptr,
            shape,
            strides,
            _elements: PhantomData,
        }
    }

    /// The shape.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// assert_eq!(Strided::contiguous(&[0u8; 6], &[2, 3]).unwrap().shape(), &[2, 3]);
    /// ```
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }

    /// The number of axes.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// assert_eq!(Strided::contiguous(&[0u8; 6], &[2, 3]).unwrap().ndim(), 2);
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// assert_eq!(Strided::contiguous(&[0u8; 6], &[2, 3]).unwrap().len(), 6);
    /// ```
    pub fn len(&self) -> usize {
        // The constructors' contracts make the count that of elements that exist.
        self.shape.iter().product()
    }

    /// Whether the view holds no element.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// assert!(Strided::<u8>::contiguous(&[], &[3, 0]).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// The stride of `axis`, in elements.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// let v = Strided::contiguous(&[0u8; 24], &[2, 3, 4]).unwrap();
    /// assert_eq!((0..3).map(|a| v.stride(a)).collect::<Vec<_>>(), [12, 4, 1]);
    /// ```
    pub fn stride(&self, axis: usize) -> isize {
        if self.strides.is_empty() && !self.shape.is_empty() {
            // Contiguous: C-order strides (they fit, as the count fits memory).
            self.shape[axis + 1..].iter().product::<usize>() as isize
        } else {
            self.strides[axis]
        }
    }

    /// The elements as one slice in C order, if they lie so in memory (every axis longer
    /// than one has its C-order stride), as ndarray's `as_slice` tells.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// let data = [1u8, 2, 3];
    /// assert_eq!(Strided::contiguous(&data, &[3]).unwrap().as_slice(), Some(&data[..]));
    /// ```
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if self.is_empty() {
            return Some(&[]);
        }
        if !c_contiguous(self.shape, |a| self.stride(a)) {
            return None;
        }
        // SAFETY: the view's elements exist (the constructors' contract) and lie one after
        // another from `ptr`, as just checked: `len()` of them, borrowed for 'a.
        Some(unsafe { std::slice::from_raw_parts(self.ptr, self.len()) })
    }

    /// The element at `index` (one entry per axis), or `None` if it is outside the shape.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// let v = Strided::contiguous(&[1u8, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    /// assert_eq!(v.get(&[1, 0]), Some(&4));
    /// assert_eq!(v.get(&[2, 0]), None);
    /// ```
    pub fn get(&self, index: &[usize]) -> Option<&'a T> {
        if index.len() != self.ndim() || index.iter().zip(self.shape).any(|(&i, &d)| i >= d) {
            return None;
        }
        let offset = (0..self.ndim()).fold(0isize, |acc, a| {
            acc.wrapping_add((index[a] as isize).wrapping_mul(self.stride(a)))
        });
        // SAFETY: `index` is within the shape (checked), so its offset is an element's.
        Some(unsafe { self.at(offset) })
    }

    /// The element `offset` elements from `ptr`.
    ///
    /// # Safety
    ///
    /// `offset` is that of an index within the shape.
    unsafe fn at(&self, offset: isize) -> &'a T {
        // SAFETY: the caller's offset is an element's, which exists and is not mutated for 'a.
        unsafe { &*self.ptr.offset(offset) }
    }

    /// The elements in C (row-major) order.
    ///
    /// ```
    /// use ndnpy::element::Strided;
    /// let v = Strided::contiguous(&[1u8, 2, 3, 4], &[2, 2]).unwrap();
    /// assert_eq!(v.iter().count(), 4);
    /// ```
    pub fn iter(&self) -> Iter<'a, T> {
        Iter {
            view: *self,
            index: vec![0; self.ndim()],
            offset: 0,
            left: if self.is_empty() { 0 } else { self.len() },
        }
    }

    /// The rows along the last axis as slices, in C order, if that axis is contiguous
    /// (stride 1, or at most one element long): what a gather copies a run at a time.
    #[doc(hidden)]
    pub fn rows(&self) -> Option<impl Iterator<Item = &'a [T]> + 'a>
    where
        T: 'a,
    {
        let nd = self.ndim();
        let row = if nd == 0 { 1 } else { self.shape[nd - 1] };
        if nd > 0 && row > 1 && self.stride(nd - 1) != 1 {
            return None;
        }
        let lead = &self.shape[..nd.saturating_sub(1)];
        let count = if self.is_empty() {
            0
        } else {
            lead.iter().product::<usize>()
        };
        let view = *self;
        let mut index = vec![0usize; lead.len()];
        let mut offset = 0isize;
        Some((0..count).map(move |_| {
            // SAFETY: `index` is within the leading axes (`step` below wraps each at
            // its length, and there are `count` rows), and the last axis is contiguous, so
            // the `row` elements from `offset` are the row's, each existing for 'a.
            let slice = unsafe { std::slice::from_raw_parts(view.ptr.offset(offset), row) };
            step(&mut index, &mut offset, lead, |a| view.stride(a));
            slice
        }))
    }

    /// Copies, for the index `lead` of the axes before `p` and the indices
    /// `start..start + out.len() / inner` of axis `p`, the elements into `out` in C order of
    /// the axes from `p` on (`inner` is the element count of the axes after `p`), reading
    /// along `p` innermost: the tiled gather's one block. Nothing is copied unless every index
    /// is within the shape and `out`'s length is a multiple of `inner`.
    #[doc(hidden)]
    pub fn copy_block(&self, lead: &[usize], p: usize, start: usize, out: &mut [T]) -> bool
    where
        T: Copy,
    {
        let nd = self.ndim();
        let inner: usize = self.shape.get(p + 1..).map_or(0, |s| s.iter().product());
        if p >= nd || lead.len() != p || inner == 0 || out.len() % inner != 0 {
            return false;
        }
        let t = out.len() / inner;
        if lead.iter().zip(self.shape).any(|(&i, &d)| i >= d)
            || start.checked_add(t).is_none_or(|end| end > self.shape[p])
        {
            return false;
        }
        let st: Vec<isize> = (0..nd).map(|a| self.stride(a)).collect();
        let sp = st[p];
        // The offset of (lead, start, 0, ...).
        let first = (0..p)
            .fold(0isize, |acc, a| {
                acc.wrapping_add((lead[a] as isize).wrapping_mul(st[a]))
            })
            .wrapping_add((start as isize).wrapping_mul(sp));
        // The axes after p: rows along the last of them, an odometer over the others.
        let (rest, rest_st) = (&self.shape[p + 1..], &st[p + 1..]);
        let (row_len, row_st) = match (rest.last(), rest_st.last()) {
            (Some(&len), Some(&stride)) => (len, stride),
            _ => (1, 0),
        };
        let (outer, outer_st) = (
            &rest[..rest.len().saturating_sub(1)],
            &rest_st[..rest_st.len().saturating_sub(1)],
        );
        let mut idx = vec![0usize; outer.len()];
        let mut outer_offset = 0isize;
        let mut r = 0usize;
        for _ in 0..inner / row_len {
            let mut row_offset = first.wrapping_add(outer_offset);
            for _ in 0..row_len {
                let mut src = row_offset;
                // Output r of each of the t blocks (`r < inner`, `out.len() == t * inner`):
                // stepping the slice leaves no bounds check in the gather.
                for o in out[r..].iter_mut().step_by(inner) {
                    // SAFETY: `src` is the offset of (lead, start + j, idx, q) for the j-th
                    // output and the q-th element of the row: `lead` and `start..start + t`
                    // are within the shape (checked above) and the odometer keeps `idx` and
                    // `q` within the axes after p, so it is an element's offset.
                    *o = unsafe { *self.at(src) };
                    src = src.wrapping_add(sp);
                }
                row_offset = row_offset.wrapping_add(row_st);
                r += 1;
            }
            // The next index of the axes after p but the last, in C order.
            step(&mut idx, &mut outer_offset, outer, |k| outer_st[k]);
        }
        true
    }
}

/// The elements of a [`Strided`] view in C order, from [`Strided::iter`].
///
/// ```
/// use ndnpy::element::Strided;
/// let v = Strided::contiguous(&[1u8, 2], &[2]).unwrap();
/// let mut it = v.iter();
/// assert_eq!((it.next(), it.next(), it.next()), (Some(&1), Some(&2), None));
/// ```
pub struct Iter<'a, T> {
    view: Strided<'a, T>,
    index: Vec<usize>,
    offset: isize,
    left: usize,
}

impl<T> std::fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter")
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        if self.left == 0 {
            return None;
        }
        // SAFETY: `index` is within the shape while elements are left (it starts at zero in
        // a non-empty view and `step` below wraps each axis at its length), and
        // `offset` is its offset.
        let item = unsafe { self.view.at(self.offset) };
        self.left -= 1;
        let view = self.view;
        step(&mut self.index, &mut self.offset, view.shape, |a| {
            view.stride(a)
        });
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

/// Elements laid out by a shape and strides, borrowed exclusively for `'a`: what a read into
/// the caller's buffer fills, whichever array type holds it.
pub struct StridedMut<'a, T> {
    ptr: *mut T,
    shape: Vec<usize>,
    strides: Vec<isize>,
    _elements: PhantomData<&'a mut T>,
}

impl<'a, T> StridedMut<'a, T> {
    /// The elements at `ptr` laid out by `shape` and `strides` (in elements).
    ///
    /// # Safety
    ///
    /// `strides` has `shape`'s length; for every index within `shape` the offset
    /// `Σ index[k] * strides[k]` from `ptr` is in bounds of one allocation and holds an
    /// initialised `T`; distinct indices reach distinct elements; and nothing else reads or
    /// writes those elements during `'a` (as for a mutable view of an array type). If the
    /// shape holds no element, nothing is touched and `ptr` may dangle.
    #[doc(hidden)]
    pub unsafe fn from_raw_parts(ptr: *mut T, shape: Vec<usize>, strides: Vec<isize>) -> Self {
        debug_assert_eq!(shape.len(), strides.len());
        StridedMut {
            ptr,
            shape,
            strides,
            _elements: PhantomData,
        }
    }

    /// The shape.
    #[doc(hidden)]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The same elements with the axes in reverse order (a Fortran-order file's storage order
    /// is the C order of its reversed axes).
    #[doc(hidden)]
    pub fn reversed_axes(mut self) -> Self {
        self.shape.reverse();
        self.strides.reverse();
        self
    }

    /// The elements as one slice in C order, if they lie so in memory.
    #[doc(hidden)]
    pub fn as_slice_mut(&mut self) -> Option<&mut [T]> {
        let len: usize = self.shape.iter().product();
        if self.shape.contains(&0) {
            return Some(&mut []);
        }
        if !c_contiguous(&self.shape, |a| self.strides[a]) {
            return None;
        }
        // SAFETY: the `len` elements exist and lie one after another from `ptr` (just
        // checked), and are borrowed exclusively, for no longer than `self` is.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr, len) })
    }

    /// The elements in C order, each once.
    #[doc(hidden)]
    pub fn into_iter_mut(self) -> IterMut<'a, T> {
        let left = if self.shape.contains(&0) {
            0
        } else {
            self.shape.iter().product()
        };
        IterMut {
            index: vec![0; self.shape.len()],
            view: self,
            offset: 0,
            left,
        }
    }
}

/// The elements of a [`StridedMut`] in C order, each borrowed mutably once.
pub struct IterMut<'a, T> {
    view: StridedMut<'a, T>,
    index: Vec<usize>,
    offset: isize,
    left: usize,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;

    fn next(&mut self) -> Option<&'a mut T> {
        if self.left == 0 {
            return None;
        }
        // SAFETY: `index` is within the shape while elements are left (`step` below
        // wraps each axis at its length) and `offset` is its offset, so the element exists;
        // each index is visited once and distinct indices reach distinct elements, so no two
        // references handed out alias, and the view's exclusive borrow lasts 'a.
        let item = unsafe { &mut *self.view.ptr.offset(self.offset) };
        self.left -= 1;
        let view = &self.view;
        step(&mut self.index, &mut self.offset, &view.shape, |a| {
            view.strides[a]
        });
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation and reversal of a small array's axes: `iter`, `get`, `as_slice` and
    /// `copy_block` agree with the naive offset of each index.
    #[test]
    fn strided_reads_match_the_naive_offsets() {
        let data: Vec<u32> = (0..60).collect();
        let shape = [3usize, 4, 5];
        let c = [20isize, 5, 1];
        for perm in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]] {
            for flip in 0..8u32 {
                let sh: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
                let mut st: Vec<isize> = perm.iter().map(|&a| c[a]).collect();
                let mut start = 0isize;
                for (a, s) in st.iter_mut().enumerate() {
                    if flip & (1 << a) != 0 {
                        start += (sh[a] as isize - 1) * *s;
                        *s = -*s;
                    }
                }
                // SAFETY: `start` plus every index's offset lies in 0..60, within `data`.
                let v = unsafe { Strided::from_raw_parts(data.as_ptr().offset(start), &sh, &st) };
                let mut naive = Vec::new();
                for i in 0..sh[0] {
                    for j in 0..sh[1] {
                        for k in 0..sh[2] {
                            let off = start
                                + i as isize * st[0]
                                + j as isize * st[1]
                                + k as isize * st[2];
                            naive.push(data[off as usize]);
                            assert_eq!(v.get(&[i, j, k]), Some(&data[off as usize]));
                        }
                    }
                }
                assert_eq!(v.iter().copied().collect::<Vec<_>>(), naive);
                match v.rows() {
                    Some(rows) => {
                        assert_eq!(st[2], 1);
                        assert_eq!(rows.flatten().copied().collect::<Vec<_>>(), naive);
                    }
                    None => assert_ne!(st[2], 1),
                }
                assert_eq!(v.iter().len(), 60);
                let contiguous = perm == [0, 1, 2] && flip == 0;
                assert_eq!(v.as_slice().is_some(), contiguous, "{perm:?} {flip}");
                // Blocks along axis 1, for each index of axis 0, two indices at a time.
                let mut blocks = Vec::new();
                for i in 0..sh[0] {
                    let mut s = 0;
                    while s < sh[1] {
                        let t = 2.min(sh[1] - s);
                        let mut out = vec![0u32; t * sh[2]];
                        assert!(v.copy_block(&[i], 1, s, &mut out));
                        blocks.extend(out);
                        s += t;
                    }
                }
                assert_eq!(blocks, naive, "{perm:?} {flip}");
            }
        }
    }

    /// A mutable view of every second column, reversed: each element written once, the
    /// others untouched; its reversed axes and contiguous slices.
    #[test]
    fn mutable_views_write_each_element_once() {
        let mut data: Vec<i32> = (0..12).collect();
        // Shape (3, 2): rows 0..3 of a (3, 4) array, columns 3 and 1.
        // SAFETY: offsets 3 + 4i - 2j for i < 3, j < 2 are distinct and within `data`.
        let v = unsafe {
            StridedMut::from_raw_parts(data.as_mut_ptr().add(3), vec![3, 2], vec![4, -2])
        };
        assert_eq!(v.shape(), &[3, 2]);
        let mut v = v.reversed_axes();
        assert!(v.as_slice_mut().is_none());
        let it = v.into_iter_mut();
        assert_eq!(it.len(), 6);
        for (k, x) in it.enumerate() {
            *x = 100 + k as i32;
        }
        // Reversed axes: shape (2, 3), C order walks column 3 down, then column 1.
        assert_eq!(data, [0, 103, 2, 100, 4, 104, 6, 101, 8, 105, 10, 102]);
        let mut whole: Vec<u8> = vec![0; 6];
        // SAFETY: C-order strides of (2, 3) over six elements.
        let mut w =
            unsafe { StridedMut::from_raw_parts(whole.as_mut_ptr(), vec![2, 3], vec![3, 1]) };
        w.as_slice_mut()
            .unwrap()
            .copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(whole, [1, 2, 3, 4, 5, 6]);
        // SAFETY: the shape holds no element, so the pointer is never used.
        let empty: StridedMut<'_, u8> =
            unsafe { StridedMut::from_raw_parts(std::ptr::dangling_mut(), vec![0, 2], vec![2, 1]) };
        assert_eq!(empty.into_iter_mut().count(), 0);
    }

    #[test]
    fn out_of_shape_requests_read_nothing() {
        let data = [1u8, 2, 3, 4, 5, 6];
        let v = Strided::contiguous(&data, &[2, 3]).unwrap();
        assert_eq!(v.get(&[0, 3]), None);
        assert_eq!(v.get(&[0]), None);
        let mut out = [0u8; 3];
        assert!(!v.copy_block(&[2], 1, 0, &mut out));
        assert!(!v.copy_block(&[0], 1, 1, &mut out));
        assert!(!v.copy_block(&[], 2, 0, &mut out));
        assert!(!v.copy_block(&[], 0, 0, &mut out[..2]));
        assert!(v.copy_block(&[], 0, 1, &mut out));
        assert_eq!(out, [4, 5, 6]);
        // An empty view reads nothing, its pointer unused.
        // SAFETY: the shape holds no element, so the pointer is never read.
        let none: Strided<'_, u8> =
            unsafe { Strided::from_raw_parts(std::ptr::dangling(), &[0, 3], &[3, 1]) };
        assert_eq!(none.iter().next(), None);
        assert_eq!(none.as_slice(), Some(&[][..]));
        // A zero-dimensional view holds one element.
        let one = Strided::contiguous(&data[..1], &[]).unwrap();
        assert_eq!(one.iter().copied().collect::<Vec<_>>(), [1]);
        assert_eq!(one.as_slice(), Some(&data[..1]));
        assert_eq!(one.rows().unwrap().collect::<Vec<_>>(), [&data[..1]]);
        assert_eq!(none.rows().unwrap().count(), 0);
    }
}
