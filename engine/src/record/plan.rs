//! The plans a record field resolves once per read or write: whether a number is swapped,
//! a string's length in the file, each field's offset in a record.

use super::matching::*;
use super::*;
use crate::base::dtype::{ScalarKind, Structured};
use crate::base::error::{not_native, Error};

/// The plan of a scalar field: whether its bytes are swapped.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, record::RecordField};
/// let plan = f64::plan(&DType::from_descr("'=f8'")?)?;
/// assert_eq!(f64::decode(&plan, &1.5f64.to_ne_bytes()), 1.5);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarPlan {
    #[doc(hidden)]
    pub swap: bool,
}

/// The plan of a string field (`'|SN'` or `'<UN'`): its size in the file and byte order.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, record::RecordField};
/// let plan = String::plan(&DType::from_descr("'>U2'")?)?;
/// assert_eq!(String::decode(&plan, &[0, 0, 0, b'h', 0, 0, 0, b'i']), "hi");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPlan {
    #[doc(hidden)]
    pub size: usize,
    #[doc(hidden)]
    pub swap: bool,
}

/// The plan of a datetime or timedelta field with a declared unit
/// ([`DatetimeIn`](crate::element::DatetimeIn), [`TimedeltaIn`](crate::element::TimedeltaIn)): the field's
/// unit in the file, which values are converted from and to, and its byte order.
///
/// # Examples
///
/// ```
/// use ndnpy::{unit, DType, element::DatetimeIn, record::RecordField};
/// type Day = DatetimeIn<unit::Days>;
/// let plan = Day::plan(&DType::from_descr("'<M8[h]'")?)?;
/// assert_eq!(Day::decode(&plan, &48i64.to_le_bytes()), Day::new(2));
/// assert!(Day::check(&plan, &47i64.to_le_bytes()).is_err()); // not a whole day
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimePlan {
    /// The field's unit in the file (`None`: numpy's generic unit).
    #[doc(hidden)]
    pub file: Option<crate::base::dtype::DateTimeUnit>,
    /// The declared unit.
    #[doc(hidden)]
    pub want: crate::base::dtype::DateTimeUnit,
    #[doc(hidden)]
    pub swap: bool,
}

/// The plan of a sub-array field `[T; N]`: the plan of its elements and their stride.
///
/// # Examples
///
/// ```
/// use ndnpy::{DType, record::RecordField};
/// let plan = <[u8; 2]>::plan(&DType::from_descr("('|u1', (2,))")?)?;
/// assert_eq!(<[u8; 2]>::decode(&plan, &[4, 5]), [4, 5]);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayPlan<P> {
    #[doc(hidden)]
    pub stride: usize,
    #[doc(hidden)]
    pub elem: P,
}

/// One field of a record as resolved against a file: its offset within the record and the
/// plan of its type. The derive builds a tuple of these for each struct; the methods are
/// the steps of its generated code.
///
/// # Examples
///
/// A hand-written record, as the derive writes it:
///
/// ```
/// use ndnpy::record::derive_runtime::{record_dtype, record_of, FieldPlan};
/// use ndnpy::{DType, Error, record::RecordField};
///
/// struct Pair { a: u8, b: i16 }
///
/// impl RecordField for Pair {
///     type Plan = (FieldPlan<<u8 as RecordField>::Plan>, FieldPlan<<i16 as RecordField>::Plan>);
///     fn npy_dtype(_len: Option<usize>) -> DType {
///         record_dtype(vec![("a", u8::npy_dtype(None)), ("b", i16::npy_dtype(None))])
///     }
///     fn plan(found: &DType) -> Result<Self::Plan, Error> {
///         let record = record_of::<Self>(found, &["a", "b"])?;
///         Ok((FieldPlan::resolve::<u8>(record, "a")?, FieldPlan::resolve::<i16>(record, "b")?))
///     }
///     fn decode(plan: &Self::Plan, bytes: &[u8]) -> Self {
///         Pair { a: plan.0.decode::<u8>(bytes), b: plan.1.decode::<i16>(bytes) }
///     }
///     fn encode(&self, plan: &Self::Plan, out: &mut [u8]) -> Result<(), Error> {
///         plan.0.encode(&self.a, out, "a")?;
///         plan.1.encode(&self.b, out, "b")
///     }
/// }
///
/// // A file with the fields the other way round, padded, big-endian.
/// let found = DType::from_descr("[('b', '>i2'), ('', '|V2'), ('a', '|u1')]")?;
/// let plan = Pair::plan(&found)?;
/// let p = Pair::decode(&plan, &[1, 2, 0, 0, 9]);
/// assert_eq!((p.a, p.b), (9, 258));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlan<P> {
    #[doc(hidden)]
    pub offset: usize,
    #[doc(hidden)]
    pub plan: P,
}

impl<P> FieldPlan<P> {
    /// Resolves the field `name` of `record` (matched by name, then by title) as a `T`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DType`](crate::ErrorKind::DType) if there is no such field; the errors of
    /// [`RecordField::plan`], with `name` prefixed to the field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::derive_runtime::FieldPlan;
    /// use ndnpy::DType;
    /// let d = DType::from_descr("[('', '|V4'), (('Title', 'x'), '<f4')]")?;
    /// let record = d.as_structured().unwrap();
    /// assert_eq!(FieldPlan::resolve::<f32>(record, "x")?.offset(), 4);
    /// assert_eq!(FieldPlan::resolve::<f32>(record, "Title")?.offset(), 4);
    /// assert!(FieldPlan::resolve::<f64>(record, "x").is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn resolve<T: RecordField<Plan = P>>(
        record: &Structured,
        name: &str,
    ) -> Result<Self, Error> {
        let field = find_field(record, name).ok_or_else(|| missing::<T>(record, &[name]))?;
        let plan = T::plan(&field.dtype).map_err(|e| e.in_field(name))?;
        Ok(FieldPlan {
            offset: field.offset,
            plan,
        })
    }

    /// The field's byte offset within the record.
    ///
    /// ```
    /// use ndnpy::record::derive_runtime::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '<i8'), ('b', '|u1')]")?;
    /// assert_eq!(FieldPlan::resolve::<u8>(d.as_structured().unwrap(), "b")?.offset(), 8);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Runs `T`'s [`check`](RecordField::check) on this field of `record` (the whole
    /// record's bytes); nothing when `T` needs no check.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData), with `name` prefixed to the field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::derive_runtime::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('ok', '|b1')]")?;
    /// let ok = FieldPlan::resolve::<bool>(d.as_structured().unwrap(), "ok")?;
    /// assert!(ok.check::<bool>(&[7, 1], "ok").is_ok());
    /// let err = ok.check::<bool>(&[7, 2], "ok").unwrap_err();
    /// assert_eq!(err.to_string(), "record 0, field 'ok': byte 0x02 is not a bool; expected 0x00 or 0x01");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn check<T: RecordField<Plan = P>>(&self, record: &[u8], name: &str) -> Result<(), Error> {
        if !T::NEEDS_CHECK {
            return Ok(());
        }
        T::check(&self.plan, record.get(self.offset..).unwrap_or(&[])).map_err(|e| e.in_field(name))
    }

    /// Decodes this field of `record` (the whole record's bytes) as a `T`.
    ///
    /// ```
    /// use ndnpy::record::derive_runtime::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('b', '>u2')]")?;
    /// let b = FieldPlan::resolve::<u16>(d.as_structured().unwrap(), "b")?;
    /// assert_eq!(b.decode::<u16>(&[9, 1, 0]), 256);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn decode<T: RecordField<Plan = P>>(&self, record: &[u8]) -> T {
        T::decode(&self.plan, record.get(self.offset..).unwrap_or(&[]))
    }

    /// Encodes `value` into this field of `out` (the whole record's bytes).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Usage`](crate::ErrorKind::Usage) if the value does not fit, with `name` prefixed to the
    /// field path.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::record::derive_runtime::FieldPlan;
    /// let d = ndnpy::DType::from_descr("[('a', '|u1'), ('s', '|S3')]")?;
    /// let s = FieldPlan::resolve::<Vec<u8>>(d.as_structured().unwrap(), "s")?;
    /// let mut out = [0u8; 4];
    /// s.encode(&b"ab".to_vec(), &mut out, "s")?;
    /// assert_eq!(out, [0, b'a', b'b', 0]);
    /// assert!(s.encode(&b"abcd".to_vec(), &mut out, "s").is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[inline]
    pub fn encode<T: RecordField<Plan = P>>(
        &self,
        value: &T,
        out: &mut [u8],
        name: &str,
    ) -> Result<(), Error> {
        let len = out.len();
        match out.get_mut(self.offset..) {
            Some(slot) => value.encode(&self.plan, slot),
            None => Err(short_slot(len, self.offset)),
        }
        .map_err(|e| e.in_field(name))
    }
}

/// The plan of a scalar field of `kind` and `size` read as `found`: whether it is swapped.
pub fn scalar_plan<T>(found: &DType, kind: ScalarKind, size: usize) -> Result<ScalarPlan, Error> {
    match found {
        DType::Scalar(s) if s.kind() == kind && s.size() == size && s.unit().is_none() => {
            Ok(ScalarPlan {
                swap: s.byte_order().needs_swap(),
            })
        }
        _ => Err(mismatch::<T>(found)),
    }
}

/// Checks that `found` is the scalar of `kind` and `size` in native byte order (a field viewed
/// in place).
pub fn native_scalar<T>(found: &DType, kind: ScalarKind, size: usize) -> Result<(), Error> {
    if scalar_plan::<T>(found, kind, size)?.swap {
        return Err(not_native(found.clone()));
    }
    Ok(())
}
