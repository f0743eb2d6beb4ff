//! `RecordField` (and `PlainField`) for the built-in field types: numbers and `bool` (from the
//! table of scalar types, `element::scalars`), `half::bf16`, strings, fixed-size strings,
//! datetimes and timedeltas with a unit, and arrays.

use super::*;
use super::{matching::*, plan::*};
use crate::base::dtype::{ByteOrder, DType, DateTimeUnit, Scalar, ScalarKind, SubArray};
use crate::base::error::{not_native, wrong_dtype, Detail, Error, MismatchError};
use crate::base::unit::Unit;
use crate::element::{convert, convertible, Lost, NAT};
use crate::element::{DatetimeIn, FixedBytes, FixedDType, FixedUnicode, TimedeltaIn};

/// `RecordField` and `PlainField` for each row of the table of scalar types; how a row is
/// decoded follows from its kind.
macro_rules! scalar_field {
    ($($(#[$m:meta])* $ty:ty => $variant:ident $doc:literal, $kind:ident $size:literal, $unit:ty, $name:literal;)*) => {$(
        $(#[$m])*
        scalar_field!(@kind $kind, $ty, $size, $unit);
    )*};

    (@kind Bool, $ty:ty, $size:literal, $unit:ty) => {
        // The code below is for `bool` and no other type: this is `bool`.
        const _: fn($ty) -> bool = |b| b;

        /// `bool`: one byte, 0 or 1; other bytes are an [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) error.
        impl RecordField for bool {
            type Plan = ScalarPlan;
            const NEEDS_CHECK: bool = true;

            fn npy_dtype(_len: Option<usize>) -> DType {
                <bool as FixedDType>::dtype()
            }

            fn plan(found: &DType) -> Result<ScalarPlan, Error> {
                scalar_plan::<bool>(found, ScalarKind::Bool, $size)
            }

            #[inline(always)]
            fn check(_plan: &ScalarPlan, bytes: &[u8]) -> Result<(), Error> {
                match bytes.first() {
                    Some(0 | 1) => Ok(()),
                    Some(b) => Err(invalid(format!(
                        "byte {b:#04x} is not a bool; expected 0x00 or 0x01"
                    ))),
                    None => Err(invalid("no byte for a bool".into())),
                }
            }

            #[inline(always)]
            fn decode(_plan: &ScalarPlan, bytes: &[u8]) -> Self {
                matches!(bytes.first(), Some(&b) if b != 0)
            }

            #[inline(always)]
            fn encode(&self, _plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
                put(out, &[u8::from(*self)])
            }
        }

        // SAFETY: a bool is one byte, valid when 0 or 1, which `RecordField::check` verifies
        // (and zero is `false`); `check_layout` accepts only `|b1`, one byte.
        unsafe impl PlainField for bool {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                native_scalar::<bool>(found, ScalarKind::Bool, $size)
            }
        }
    };

    (@kind Complex, $ty:ty, $size:literal, $unit:ty) => {
        /// A complex number: two floats, each swapped on its own.
        impl RecordField for $ty {
            type Plan = ScalarPlan;

            fn npy_dtype(_len: Option<usize>) -> DType {
                <Self as FixedDType>::dtype()
            }

            fn plan(found: &DType) -> Result<ScalarPlan, Error> {
                scalar_plan::<Self>(found, ScalarKind::Complex, $size)
            }

            #[inline(always)]
            fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
                const HALF: usize = std::mem::size_of::<$unit>();
                let re = <$unit>::decode(plan, bytes);
                let im = <$unit>::decode(plan, bytes.get(HALF..).unwrap_or(&[]));
                num_complex::Complex::new(re, im)
            }

            #[inline(always)]
            fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
                const HALF: usize = std::mem::size_of::<$unit>();
                self.re.encode(plan, out)?;
                let have = out.len();
                match out.get_mut(HALF..) {
                    Some(rest) => self.im.encode(plan, rest),
                    None => Err(short_slot(have, $size)),
                }
            }
        }

        // SAFETY: `Complex` is #[repr(C)] { re, im } of two floats: every bit pattern is
        // valid, no padding, no interior mutability; `check_layout` accepts only the native
        // complex dtype of this size, which is `size_of::<$ty>()` (asserted in the element
        // impls).
        unsafe impl PlainField for $ty {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                native_scalar::<Self>(found, ScalarKind::Complex, $size)
            }
        }
    };

    // A number: one load of its bits and, for the other byte order, one `bswap`.
    (@kind $kind:ident, $ty:ty, $size:literal, $unit:ty) => {
        impl RecordField for $ty {
            type Plan = ScalarPlan;

            fn npy_dtype(_len: Option<usize>) -> DType {
                <$ty as FixedDType>::dtype()
            }

            fn plan(found: &DType) -> Result<ScalarPlan, Error> {
                scalar_plan::<$ty>(found, ScalarKind::$kind, $size)
            }

            #[inline(always)]
            fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
                let bits = <$unit>::from_ne_bytes(head::<$size>(bytes));
                let bits = if plan.swap { bits.swap_bytes() } else { bits };
                scalar_field!(@from $kind, $ty, bits)
            }

            #[inline(always)]
            fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
                let bits: $unit = scalar_field!(@to $kind, $unit, self);
                let bits = if plan.swap { bits.swap_bytes() } else { bits };
                put(out, &bits.to_ne_bytes())
            }
        }

        // SAFETY: every bit pattern of these numbers is a valid value, without padding or
        // interior mutability; `check_layout` accepts only the scalar of this kind and size
        // in native order, whose itemsize is `size_of::<$ty>()` (asserted in the element
        // impls).
        unsafe impl PlainField for $ty {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                native_scalar::<$ty>(found, ScalarKind::$kind, $size)
            }
        }
    };

    // A number from its bits, and its bits.
    (@from Int, $ty:ty, $bits:ident) => { $bits as $ty };
    (@from UInt, $ty:ty, $bits:ident) => { $bits };
    (@from Float, $ty:ty, $bits:ident) => { <$ty>::from_bits($bits) };
    (@to Int, $unit:ty, $x:ident) => { *$x as $unit };
    (@to UInt, $unit:ty, $x:ident) => { *$x };
    (@to Float, $unit:ty, $x:ident) => { $x.to_bits() };
}

crate::element::scalars::for_each_scalar!(scalar_field);

#[cfg(feature = "half")]
mod bf16 {
    use super::*;
    use crate::element::bf16_order;

    /// `half::bf16`: ml_dtypes' bfloat16, a two-byte void field (`('x', '<V2')`, as `np.save`
    /// writes a record with an ml_dtypes `bfloat16` field), read in its byte order (native for
    /// `'|V2'`). Any other dtype, `'<f2'` included, is a mismatch.
    ///
    /// ```
    /// use ndnpy::{DType, record::RecordField};
    /// let plan = half::bf16::plan(&DType::from_descr("'>V2'")?)?;
    /// assert_eq!(half::bf16::decode(&plan, &[0x3f, 0xc0]), half::bf16::from_f32(1.5));
    /// assert!(half::bf16::plan(&DType::from_descr("'<f2'")?).is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    impl RecordField for half::bf16 {
        type Plan = ScalarPlan;

        fn npy_dtype(_len: Option<usize>) -> DType {
            <half::bf16 as FixedDType>::dtype()
        }

        fn plan(found: &DType) -> Result<ScalarPlan, Error> {
            Ok(ScalarPlan {
                swap: bf16_order(found)?.needs_swap(),
            })
        }

        #[inline(always)]
        fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
            let bits = u16::from_ne_bytes(head::<2>(bytes));
            half::bf16::from_bits(if plan.swap { bits.swap_bytes() } else { bits })
        }

        #[inline(always)]
        fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
            let bits = self.to_bits();
            let bits = if plan.swap { bits.swap_bytes() } else { bits };
            put(out, &bits.to_ne_bytes())
        }
    }

    // SAFETY: `half::bf16` is #[repr(transparent)] over a u16: every bit pattern valid, no
    // padding, no interior mutability; `check_layout` accepts only a two-byte void whose bits
    // are in native order.
    unsafe impl PlainField for half::bf16 {
        const HAS_PADDING: bool = false;

        fn check_layout(found: &DType) -> Result<(), Error> {
            if bf16_order(found)?.needs_swap() {
                return Err(not_native(found.clone()));
            }
            Ok(())
        }
    }
}

/// A text dtype of `len` units of `kind` (`Bytes` or `Unicode`) in native order.
pub fn text_dtype(kind: ScalarKind, len: Option<usize>, unit: usize) -> DType {
    let size = len
        .unwrap_or(0)
        .checked_mul(unit)
        .filter(|&n| n <= isize::MAX as usize)
        .unwrap_or_else(|| panic!("string length {len:?} overflows isize::MAX bytes"));
    match Scalar::new(kind, ByteOrder::NATIVE, size, None) {
        Ok(s) => DType::Scalar(s),
        Err(e) => panic!("invalid string dtype: {e}"),
    }
}

pub fn text_plan<T>(found: &DType, kind: ScalarKind) -> Result<TextPlan, Error> {
    match found {
        DType::Scalar(s) if s.kind() == kind => Ok(TextPlan {
            size: s.size(),
            swap: s.byte_order().needs_swap(),
        }),
        _ => Err(mismatch::<T>(found)),
    }
}

/// The code units of a `U` field, in native order.
pub fn ucs4_units<'a>(plan: &TextPlan, bytes: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
    let swap = plan.swap;
    let end = plan.size.min(bytes.len());
    bytes[..end].chunks_exact(4).map(move |c| {
        let u = u32::from_ne_bytes(head(c));
        if swap {
            u.swap_bytes()
        } else {
            u
        }
    })
}

/// `String`: a numpy `U` field of `#[npy(len = N)]` characters (`'<UN'`, UCS-4). Reading
/// accepts any length in the file and drops trailing NULs, as numpy does; writing pads with
/// NULs and refuses a string of more than `N` characters.
impl RecordField for String {
    type Plan = TextPlan;
    const TAKES_LEN: bool = true;
    const NEEDS_CHECK: bool = true;

    fn npy_dtype(len: Option<usize>) -> DType {
        text_dtype(ScalarKind::Unicode, len, 4)
    }

    fn plan(found: &DType) -> Result<TextPlan, Error> {
        text_plan::<String>(found, ScalarKind::Unicode)
    }

    fn check(plan: &TextPlan, bytes: &[u8]) -> Result<(), Error> {
        for (i, u) in ucs4_units(plan, bytes).enumerate() {
            if char::from_u32(u).is_none() {
                return Err(invalid(format!(
                    "character {i} is code point {u:#x}, not a Unicode scalar value"
                )));
            }
        }
        Ok(())
    }

    fn decode(plan: &TextPlan, bytes: &[u8]) -> Self {
        let n = ucs4_units(plan, bytes)
            .enumerate()
            .filter(|&(_, u)| u != 0)
            .last()
            .map_or(0, |(i, _)| i + 1);
        ucs4_units(plan, bytes)
            .take(n)
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    fn encode(&self, plan: &TextPlan, out: &mut [u8]) -> Result<(), Error> {
        let cap = plan.size / 4;
        let have = out.len();
        let Some(slot) = out.get_mut(..plan.size) else {
            return Err(short_slot(have, plan.size));
        };
        let mut chars = self.chars();
        for unit in slot.chunks_exact_mut(4) {
            let u = chars.next().map_or(0, u32::from);
            let u = if plan.swap { u.swap_bytes() } else { u };
            unit.copy_from_slice(&u.to_ne_bytes());
        }
        if chars.next().is_some() {
            return Err(unfit(format!(
                "a string of {} characters does not fit in dtype '{}U{cap}'",
                self.chars().count(),
                order_char(plan.swap)
            )));
        }
        Ok(())
    }
}

pub fn order_char(swap: bool) -> char {
    match (ByteOrder::NATIVE, swap) {
        (o, false) => o.as_char(),
        (ByteOrder::Little, true) => '>',
        _ => '<',
    }
}

/// `Vec<u8>`: a numpy `S` field of `#[npy(len = N)]` bytes (`'|SN'`). Reading accepts any
/// length in the file and drops trailing NULs, as numpy does; writing pads with NULs and
/// refuses more than `N` bytes.
impl RecordField for Vec<u8> {
    type Plan = TextPlan;
    const TAKES_LEN: bool = true;

    fn npy_dtype(len: Option<usize>) -> DType {
        text_dtype(ScalarKind::Bytes, len, 1)
    }

    fn plan(found: &DType) -> Result<TextPlan, Error> {
        text_plan::<Vec<u8>>(found, ScalarKind::Bytes)
    }

    fn decode(plan: &TextPlan, bytes: &[u8]) -> Self {
        let field = &bytes[..plan.size.min(bytes.len())];
        let end = field.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        field[..end].to_vec()
    }

    fn encode(&self, plan: &TextPlan, out: &mut [u8]) -> Result<(), Error> {
        if self.len() > plan.size {
            return Err(unfit(format!(
                "{} bytes do not fit in dtype '|S{}'",
                self.len(),
                plan.size
            )));
        }
        let have = out.len();
        let Some(slot) = out.get_mut(..plan.size) else {
            return Err(short_slot(have, plan.size));
        };
        let (data, pad) = slot.split_at_mut(self.len());
        data.copy_from_slice(self);
        pad.fill(0);
        Ok(())
    }
}

/// `FixedBytes<N>`: a numpy `|SN` field of exactly `N` bytes, kept as stored (NUL padding
/// included). Fixed-size, so records holding it can be read in one copy and viewed in place.
///
/// ```
/// use ndnpy::{DType, element::FixedBytes, record::RecordField};
/// let plan = FixedBytes::<3>::plan(&DType::from_descr("'|S3'")?)?;
/// assert_eq!(FixedBytes::<3>::decode(&plan, b"ab\0").as_bytes(), b"ab");
/// assert!(FixedBytes::<3>::plan(&DType::from_descr("'|S4'")?).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
impl<const N: usize> RecordField for FixedBytes<N> {
    type Plan = ScalarPlan;

    fn npy_dtype(_len: Option<usize>) -> DType {
        <Self as FixedDType>::dtype()
    }

    fn plan(found: &DType) -> Result<ScalarPlan, Error> {
        scalar_plan::<Self>(found, ScalarKind::Bytes, N)
    }

    #[inline(always)]
    fn decode(_plan: &ScalarPlan, bytes: &[u8]) -> Self {
        FixedBytes(head(bytes))
    }

    #[inline(always)]
    fn encode(&self, _plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
        put(out, &self.0)
    }
}

// SAFETY: FixedBytes<N> is #[repr(transparent)] over [u8; N]: N bytes, any value valid, no
// padding, no interior mutability; `check_layout` accepts only `|SN`, N bytes.
unsafe impl<const N: usize> PlainField for FixedBytes<N> {
    const HAS_PADDING: bool = false;

    fn check_layout(found: &DType) -> Result<(), Error> {
        native_scalar::<Self>(found, ScalarKind::Bytes, N)
    }
}

/// `FixedUnicode<N>`: a numpy `<UN` field of exactly `N` code units, swapped to native order
/// on reading. Code units are not checked here ([`FixedUnicode::to_string`] does), so
/// records holding it can be read in one copy and viewed in place.
///
/// ```
/// use ndnpy::{DType, element::FixedUnicode, record::RecordField};
/// let plan = FixedUnicode::<2>::plan(&DType::from_descr("'>U2'")?)?;
/// let v = FixedUnicode::<2>::decode(&plan, &[0, 0, 0, b'h', 0, 0, 0, b'i']);
/// assert_eq!(v.to_string()?, "hi");
/// # Ok::<(), ndnpy::Error>(())
/// ```
impl<const N: usize> RecordField for FixedUnicode<N> {
    type Plan = ScalarPlan;

    fn npy_dtype(_len: Option<usize>) -> DType {
        <Self as FixedDType>::dtype()
    }

    fn plan(found: &DType) -> Result<ScalarPlan, Error> {
        scalar_plan::<Self>(found, ScalarKind::Unicode, 4 * N)
    }

    fn decode(plan: &ScalarPlan, bytes: &[u8]) -> Self {
        let mut units = [0u32; N];
        for (u, b) in units.iter_mut().zip(bytes.chunks_exact(4)) {
            let v = u32::from_ne_bytes(head(b));
            *u = if plan.swap { v.swap_bytes() } else { v };
        }
        FixedUnicode(units)
    }

    fn encode(&self, plan: &ScalarPlan, out: &mut [u8]) -> Result<(), Error> {
        let have = out.len();
        let Some(slot) = out.get_mut(..4 * N) else {
            return Err(short_slot(have, 4 * N));
        };
        for (b, u) in slot.chunks_exact_mut(4).zip(self.0) {
            let v = if plan.swap { u.swap_bytes() } else { u };
            b.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    }
}

// SAFETY: FixedUnicode<N> is #[repr(transparent)] over [u32; N]: any bytes are valid, no
// padding, no interior mutability; `check_layout` accepts only native-order `UN`, 4N bytes.
unsafe impl<const N: usize> PlainField for FixedUnicode<N> {
    const HAS_PADDING: bool = false;

    fn check_layout(found: &DType) -> Result<(), Error> {
        native_scalar::<Self>(found, ScalarKind::Unicode, 4 * N)
    }
}

/// `[25ms]`, `[D]`, `[generic]`: a unit as numpy writes it in a dtype.
fn unit_text(unit: Option<DateTimeUnit>) -> String {
    match unit {
        None => "[generic]".into(),
        Some(u) if u.multiplier == 1 => format!("[{}]", u.unit.code()),
        Some(u) => format!("[{}{}]", u.multiplier, u.unit.code()),
    }
}

/// Why `value` of `from` cannot be stored in `to`.
fn lost_reason(lost: Lost, value: i64, from: Option<DateTimeUnit>, to: DateTimeUnit) -> String {
    let (from, to) = (unit_text(from), unit_text(Some(to)));
    match lost {
        Lost::Inexact => format!(
            "{value} ticks of {from} are not a whole number of {to}, and converting would lose \
             the rest"
        ),
        Lost::Overflow => format!("{value} ticks of {from} overflow 64 bits in {to}"),
    }
}

/// `DatetimeIn<U>` and `TimedeltaIn<U>`: a time field whose unit is the type's, converted
/// exactly from and to the file's unit (see the types' docs for the rules).
macro_rules! unit_time_field {
    ($name:ident, $kind:ident, $calendar:literal, $reads:ident, $views:ident) => {
        impl<U: Unit> RecordField for $name<U> {
            type Plan = TimePlan;
            const NEEDS_CHECK: bool = true;

            fn npy_dtype(_len: Option<usize>) -> DType {
                match Scalar::new(ScalarKind::$kind, ByteOrder::NATIVE, 8, Some(U::DTYPE_UNIT)) {
                    Ok(s) => DType::Scalar(s),
                    Err(e) => panic!("invalid time dtype: {e}"),
                }
            }

            fn plan(found: &DType) -> Result<TimePlan, Error> {
                match found {
                    DType::Scalar(s)
                        if s.kind() == ScalarKind::$kind
                            && s.size() == 8
                            && convertible(s.unit(), U::UNIT, $calendar) =>
                    {
                        Ok(TimePlan {
                            file: s.unit(),
                            want: U::DTYPE_UNIT,
                            swap: s.byte_order().needs_swap(),
                        })
                    }
                    _ => Err(wrong_dtype(U::$reads, found.clone())),
                }
            }

            #[inline]
            fn check(plan: &TimePlan, bytes: &[u8]) -> Result<(), Error> {
                let v = time_bits(plan, bytes);
                match convert(v, plan.file, plan.want, $calendar) {
                    Ok(_) => Ok(()),
                    Err(lost) => Err(invalid(lost_reason(lost, v, plan.file, plan.want))),
                }
            }

            #[inline]
            fn decode(plan: &TimePlan, bytes: &[u8]) -> Self {
                let v = time_bits(plan, bytes);
                Self::new(convert(v, plan.file, plan.want, $calendar).unwrap_or(NAT))
            }

            fn encode(&self, plan: &TimePlan, out: &mut [u8]) -> Result<(), Error> {
                let v = match plan.file {
                    _ if self.is_nat() => NAT,
                    None => {
                        return Err(unfit(format!(
                            "{} ticks of {} cannot be stored in a field of the generic unit",
                            self.value,
                            unit_text(Some(plan.want))
                        )))
                    }
                    Some(file) => {
                        convert(self.value, Some(plan.want), file, $calendar).map_err(|lost| {
                            unfit(lost_reason(lost, self.value, Some(plan.want), file))
                        })?
                    }
                };
                let v = if plan.swap { v.swap_bytes() } else { v };
                put(out, &v.to_ne_bytes())
            }
        }

        // SAFETY: the type is #[repr(transparent)] over an i64 (the other field is a
        // zero-sized PhantomData): 8 bytes, every bit pattern valid, no padding, no interior
        // mutability; `check_layout` accepts only the native-order 8-byte dtype of this kind
        // in exactly the unit `U` (so no conversion is due and `check` accepts every value).
        unsafe impl<U: Unit> PlainField for $name<U> {
            const HAS_PADDING: bool = false;

            fn check_layout(found: &DType) -> Result<(), Error> {
                match found {
                    DType::Scalar(s)
                        if s.kind() == ScalarKind::$kind
                            && s.size() == 8
                            && s.unit() == Some(U::DTYPE_UNIT) =>
                    {
                        if s.byte_order().needs_swap() {
                            return Err(not_native(found.clone()));
                        }
                        Ok(())
                    }
                    _ => Err(wrong_dtype(U::$views, found.clone())),
                }
            }
        }
    };
}

/// The raw count of a time field, in native order.
#[inline(always)]
fn time_bits(plan: &TimePlan, bytes: &[u8]) -> i64 {
    let v = i64::from_ne_bytes(head(bytes));
    if plan.swap {
        v.swap_bytes()
    } else {
        v
    }
}

const _: () = assert!(std::mem::size_of::<DatetimeIn<crate::base::unit::Days>>() == 8);
const _: () = assert!(std::mem::size_of::<TimedeltaIn<crate::base::unit::Days>>() == 8);
unit_time_field!(DatetimeIn, Datetime, true, DATETIME_READS, DATETIME_VIEWS);
unit_time_field!(
    TimedeltaIn,
    Timedelta,
    false,
    TIMEDELTA_READS,
    TIMEDELTA_VIEWS
);

/// The dtype of `n` elements of `elem`: one more outer dimension for a sub-array element, as
/// numpy writes `('y', '<f8', (2, 2))`.
pub fn sub_array(elem: DType, n: usize) -> DType {
    let (base, shape) = match elem {
        DType::SubArray(s) => {
            let mut shape = Vec::with_capacity(s.shape().len() + 1);
            shape.push(n);
            shape.extend_from_slice(s.shape());
            (s.base().clone(), shape)
        }
        other => (other, vec![n]),
    };
    match SubArray::new(base, shape) {
        Ok(s) => DType::SubArray(Box::new(s)),
        Err(e) => panic!("sub-array type too large: {e}"),
    }
}

/// The element dtype of `found` seen as `n` elements: a sub-array whose first dimension is
/// `n`, minus that dimension.
pub fn peel(found: &DType, n: usize) -> Option<DType> {
    let DType::SubArray(s) = found else {
        return None;
    };
    let (&first, rest) = s.shape().split_first()?;
    if first != n {
        return None;
    }
    if rest.is_empty() {
        Some(s.base().clone())
    } else {
        SubArray::new(s.base().clone(), rest.to_vec())
            .ok()
            .map(|s| DType::SubArray(Box::new(s)))
    }
}

/// The bytes of element `i` of a sub-array (empty if out of range).
#[inline(always)]
pub fn elem_bytes(bytes: &[u8], i: usize, stride: usize) -> &[u8] {
    i.checked_mul(stride)
        .and_then(|o| bytes.get(o..))
        .unwrap_or(&[])
}

/// `[T; N]`: a sub-array field of `N` elements of `T`. Nested arrays give multi-dimensional
/// sub-arrays: `[[f64; 2]; 3]` is `('<f8', (3, 2))`; reading also accepts numpy's
/// sub-array-of-sub-array spelling `(('<f8', (2,)), (3,))`.
impl<T: RecordField, const N: usize> RecordField for [T; N] {
    type Plan = ArrayPlan<T::Plan>;
    const TAKES_LEN: bool = T::TAKES_LEN;
    const NEEDS_CHECK: bool = T::NEEDS_CHECK;

    fn npy_dtype(len: Option<usize>) -> DType {
        sub_array(T::npy_dtype(len), N)
    }

    fn plan(found: &DType) -> Result<Self::Plan, Error> {
        let elem = peel(found, N).ok_or_else(|| mismatch::<Self>(found))?;
        let plan = T::plan(&elem).map_err(|e| match e.detail() {
            // Report the whole field, not the element, when its type is wrong.
            Detail::Mismatch(MismatchError::DType { .. }) => mismatch::<Self>(found),
            _ => e,
        })?;
        Ok(ArrayPlan {
            stride: elem.itemsize(),
            elem: plan,
        })
    }

    fn check(plan: &Self::Plan, bytes: &[u8]) -> Result<(), Error> {
        for i in 0..N {
            T::check(&plan.elem, elem_bytes(bytes, i, plan.stride))
                .map_err(|e| e.in_field(&format!("[{i}]")))?;
        }
        Ok(())
    }

    #[inline]
    fn decode(plan: &Self::Plan, bytes: &[u8]) -> Self {
        std::array::from_fn(|i| T::decode(&plan.elem, elem_bytes(bytes, i, plan.stride)))
    }

    #[inline]
    fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error> {
        for (i, v) in self.iter().enumerate() {
            let have = out.len();
            let slot = i
                .checked_mul(plan.stride)
                .and_then(|o| out.get_mut(o..))
                .ok_or_else(|| short_slot(have, i.saturating_mul(plan.stride)))?;
            v.encode(&plan.elem, slot)
                .map_err(|e| e.in_field(&format!("[{i}]")))?;
        }
        Ok(())
    }
}

// SAFETY: an array of plain values is plain: its elements lie `size_of::<T>()` apart with no
// bytes between them, so it has padding only where `T` has; `check_layout` accepts a
// sub-array of `N` elements whose element dtype `T` accepts, i.e. of itemsize
// `size_of::<T>()`, so the whole is `N * size_of::<T>()` bytes; `check` checks every element.
unsafe impl<T: PlainField, const N: usize> PlainField for [T; N] {
    const HAS_PADDING: bool = T::HAS_PADDING;

    fn check_layout(found: &DType) -> Result<(), Error> {
        let elem = peel(found, N).ok_or_else(|| mismatch::<Self>(found))?;
        T::check_layout(&elem).map_err(|e| match e.detail() {
            Detail::Mismatch(MismatchError::DType { .. }) => mismatch::<Self>(found),
            _ => e,
        })
    }
}

/// Bytes of file data decoded per step.
pub const CHUNK: usize = 256 << 10;
