//! numpy's `datetime64` (`M8`) and `timedelta64` (`m8`) as element types that carry their
//! unit, every unit from years to attoseconds, multipliers (`M8[25ms]`), the generic unit and
//! NaT, in both byte orders.

use super::bulk;
use super::Input;
use super::{ReadableElement, WritableElement};
use crate::base::dtype::{ByteOrder, DType, DateTimeUnit, Scalar, ScalarKind, TimeUnit};
use crate::base::error::{wrong_dtype, Error, UsageError};
use crate::base::unit::Unit;
use std::io::{Read, Write};
use std::marker::PhantomData;

/// The value numpy uses for NaT ("not a time"): `i64::MIN`.
///
/// ```
/// use ndnpy::dtype::{DateTimeUnit, TimeUnit};
/// use ndnpy::{element::NAT, Datetime64};
/// let ms = Some(DateTimeUnit { unit: TimeUnit::Milliseconds, multiplier: 1 });
/// let t = ndarray::array![Datetime64::new(0, ms), Datetime64::nat(ms)];
/// assert_eq!(t[1].value, NAT);
/// let mut bytes = Vec::new();
/// ndnpy::WriteNpyExt::write_npy(&t, &mut bytes)?;
/// assert_eq!(bytes[128 + 8..], NAT.to_ne_bytes()); // what numpy reads as NaT
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub const NAT: i64 = i64::MIN;

macro_rules! time_type {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $letter:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name {
            /// The count of `unit`s (times its multiplier); [`NAT`] for not-a-time.
            pub value: i64,
            /// The unit with its multiplier, or `None` for numpy's generic unit.
            pub unit: Option<DateTimeUnit>,
        }

        impl $name {
            /// A value of `value` ticks of `unit`.
            ///
            /// ```
            /// use ndnpy::{dtype::DateTimeUnit, dtype::TimeUnit};
            #[doc = concat!("let t = ndnpy::element::", stringify!($name), "::new(5, Some(DateTimeUnit { unit: TimeUnit::Seconds, multiplier: 1 }));")]
            /// assert!(!t.is_nat());
            /// ```
            pub fn new(value: i64, unit: Option<DateTimeUnit>) -> Self {
                $name { value, unit }
            }

            /// NaT in `unit`.
            ///
            /// ```
            #[doc = concat!("assert!(ndnpy::element::", stringify!($name), "::nat(None).is_nat());")]
            /// ```
            pub fn nat(unit: Option<DateTimeUnit>) -> Self {
                $name { value: NAT, unit }
            }

            /// Whether this is NaT.
            ///
            /// ```
            #[doc = concat!("assert!(!ndnpy::element::", stringify!($name), "::new(0, None).is_nat());")]
            /// ```
            pub fn is_nat(&self) -> bool {
                self.value == NAT
            }

            fn dtype_with(unit: Option<DateTimeUnit>) -> DType {
                match Scalar::new(ScalarKind::$kind, ByteOrder::NATIVE, 8, unit) {
                    Ok(s) => DType::Scalar(s),
                    Err(_) => unreachable!("8-byte {} with a valid unit", $letter),
                }
            }

            /// The unit and byte order of `dtype`, if it is this kind.
            fn expect(dtype: &DType) -> Result<(Option<DateTimeUnit>, ByteOrder), Error> {
                match dtype.as_scalar() {
                    Some(s) if s.kind() == ScalarKind::$kind => Ok((s.unit(), s.byte_order())),
                    _ => Err(wrong_dtype(
                        concat!(stringify!($name), " (dtype '<", $letter, "8[unit]')"),
                        dtype.clone(),
                    )),
                }
            }
        }

        impl super::Sealed for $name {}

        impl ReadableElement for $name {
            fn read_vec<R: Read + ?Sized>(
                reader: &mut R,
                dtype: &DType,
                len: usize,
                input: Input,
            ) -> Result<Vec<Self>, Error> {
                let (unit, order) = Self::expect(dtype)?;
                let swap = order.needs_swap();
                bulk::read_decoded(reader, len, 8, input, |chunk, _, _, out| {
                    out.extend(chunk.chunks_exact(8).map(|b| {
                        let v = i64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                        $name {
                            value: if swap { v.swap_bytes() } else { v },
                            unit,
                        }
                    }));
                    Ok(())
                })
            }
        }

        impl WritableElement for $name {
            /// The unit of the first element (the generic unit for an empty array); every
            /// element must share it.
            fn dtype_of<'a, I: Iterator<Item = &'a Self>>(mut elems: I) -> DType {
                Self::dtype_with(elems.next().and_then(|t| t.unit))
            }

            fn write_iter<'a, W: Write + ?Sized, I: Iterator<Item = &'a Self>>(
                iter: I,
                writer: &mut W,
                dtype: &DType,
            ) -> Result<(), Error> {
                let (unit, order) = Self::expect(dtype)?;
                let swap = order.needs_swap();
                let mut check = Ok(());
                let values = iter.enumerate().map_while(|(index, t)| {
                    if t.unit != unit {
                        check = Err(UsageError::MixedUnits {
                            index,
                            expected: dtype.clone(),
                            found: Self::dtype_with(t.unit),
                        });
                        None
                    } else {
                        Some(t.value)
                    }
                });
                let mut buf: Vec<i64> = Vec::with_capacity(1 << 15);
                for v in values {
                    buf.push(v);
                    if buf.len() == buf.capacity() {
                        bulk::write_slice(&buf, writer, swap)?;
                        buf.clear();
                    }
                }
                check?;
                bulk::write_slice(&buf, writer, swap)
            }
        }
    };
}

time_type!(
    /// A numpy `datetime64` value: ticks since 1970-01-01T00:00:00 in its unit.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{Datetime64, dtype::DateTimeUnit, ReadNpyExt, dtype::TimeUnit, WriteNpyExt};
    /// let ms25 = Some(DateTimeUnit { unit: TimeUnit::Milliseconds, multiplier: 25 });
    /// let a = ndarray::array![Datetime64::new(40, ms25), Datetime64::nat(ms25)];
    /// let mut file = Vec::new();
    /// a.write_npy(&mut file)?;
    /// assert!(file.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<M8[25ms]'"));
    /// assert_eq!(ndarray::Array1::<Datetime64>::read_npy(&file[..])?, a);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    Datetime64,
    Datetime,
    "M"
);

time_type!(
    /// A numpy `timedelta64` value: a count of its unit.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::DateTimeUnit, Timedelta64, dtype::TimeUnit};
    /// // np.save("dt_m8_7D.npy", np.zeros((2, 3), "<m8[7D]"))
    /// let b: ndarray::Array2<Timedelta64> = ndnpy::read_npy("testdata/dt_m8_7D.npy")?;
    /// assert_eq!(b[[0, 0]].unit, Some(DateTimeUnit { unit: TimeUnit::Days, multiplier: 7 }));
    /// assert_eq!(b[[1, 2]].value, 0);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    Timedelta64,
    Timedelta,
    "m"
);

macro_rules! unit_time_type {
    ($(#[$doc:meta])* $name:ident, $dynamic:ident, $calendar:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        pub struct $name<U: Unit> {
            /// The count of `U`s; [`NAT`] for not-a-time.
            pub value: i64,
            unit: PhantomData<fn() -> U>,
        }

        impl<U: Unit> $name<U> {
            /// NaT, not-a-time.
            ///
            /// ```
            #[doc = concat!("assert!(ndnpy::element::", stringify!($name), "::<ndnpy::unit::Days>::NAT.is_nat());")]
            /// ```
            pub const NAT: Self = Self::new(NAT);

            /// `value` ticks of `U`.
            ///
            /// ```
            #[doc = concat!("let t = ndnpy::element::", stringify!($name), "::<ndnpy::unit::Seconds>::new(90);")]
            /// assert_eq!(t.value, 90);
            /// ```
            pub const fn new(value: i64) -> Self {
                $name {
                    value,
                    unit: PhantomData,
                }
            }

            /// Whether this is NaT.
            ///
            /// ```
            #[doc = concat!("assert!(!ndnpy::element::", stringify!($name), "::<ndnpy::unit::Days>::new(0).is_nat());")]
            /// ```
            pub const fn is_nat(&self) -> bool {
                self.value == NAT
            }

            /// The unit, `U`'s, with multiplier 1.
            ///
            /// ```
            /// use ndnpy::{dtype::DateTimeUnit, dtype::TimeUnit};
            #[doc = concat!("let unit = ndnpy::element::", stringify!($name), "::<ndnpy::unit::Days>::unit();")]
            /// assert_eq!(unit, DateTimeUnit { unit: TimeUnit::Days, multiplier: 1 });
            /// ```
            pub const fn unit() -> DateTimeUnit {
                U::DTYPE_UNIT
            }
        }

        // By hand: the derives would ask `U` (an uninhabited marker) for the same traits.
        impl<U: Unit> Clone for $name<U> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<U: Unit> Copy for $name<U> {}
        impl<U: Unit> PartialEq for $name<U> {
            fn eq(&self, other: &Self) -> bool {
                self.value == other.value
            }
        }
        impl<U: Unit> Eq for $name<U> {}
        impl<U: Unit> std::hash::Hash for $name<U> {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.value.hash(state)
            }
        }
        impl<U: Unit> Default for $name<U> {
            /// Zero: the epoch for a datetime, no time for a timedelta.
            fn default() -> Self {
                Self::new(0)
            }
        }
        impl<U: Unit> std::fmt::Debug for $name<U> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let unit = U::UNIT.code();
                if self.is_nat() {
                    write!(f, "{}<{unit}>(NaT)", stringify!($name))
                } else {
                    write!(f, "{}<{unit}>({})", stringify!($name), self.value)
                }
            }
        }

        /// The same value with its unit in it; lossless.
        impl<U: Unit> From<$name<U>> for $dynamic {
            fn from(t: $name<U>) -> $dynamic {
                $dynamic::new(t.value, Some(U::DTYPE_UNIT))
            }
        }

        /// The value in `U`, converted exactly as a record field is read (see
        #[doc = concat!("[`", stringify!($name), "`]); the error gives the value back when")]
        /// it is not a whole number of `U`, does not fit in 64 bits, or cannot be converted.
        impl<U: Unit> TryFrom<$dynamic> for $name<U> {
            type Error = $dynamic;

            fn try_from(t: $dynamic) -> Result<Self, $dynamic> {
                if !convertible(t.unit, U::UNIT, $calendar) {
                    return Err(t);
                }
                convert(t.value, t.unit, U::DTYPE_UNIT, $calendar)
                    .map(Self::new)
                    .map_err(|_| t)
            }
        }
    };
}

unit_time_type!(
    /// A numpy `datetime64` whose unit is the type's: `DatetimeIn<unit::Days>` is
    /// `datetime64[D]`, ticks of `U` since 1970-01-01. It is what a record field of a
    /// datetime dtype is declared as (a [`Datetime64`] carries its unit in each value, so
    /// it cannot be one).
    ///
    /// As a record field ([`RecordField`](crate::record::RecordField)) it is written as `'<M8[U]'`
    /// (native byte order), and read from a field of any datetime unit in either byte order,
    /// converted the way numpy's `astype` converts, but only where that loses nothing:
    ///
    /// - NaT reads as NaT;
    /// - a coarser unit is multiplied (`M8[D]` into seconds: 86,400 per day), months and
    ///   years through the calendar (`M8[M]` into days gives the first day of the month);
    /// - a finer unit is divided, and a value that is not a whole number of `U` is an
    ///   [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) error naming the record
    ///   and field (numpy would round it down);
    /// - a value that overflows 64 bits in `U` is the same error (numpy would wrap);
    /// - numpy's generic unit (`'<M8'`) keeps the count, as numpy's cast does.
    ///
    /// A `#[repr(C)]` record of such fields is viewed in place when the file's unit is `U`.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use ndarray::{array, Array1};
    /// use ndnpy::{unit, element::DatetimeIn, NpyRecord, ReadNpyExt, WriteNpyExt};
    ///
    /// #[derive(NpyRecord, Debug, PartialEq)]
    /// struct Quote {
    ///     date: DatetimeIn<unit::Days>, // numpy's datetime64[D]
    ///     close: f64,
    /// }
    ///
    /// let a = array![Quote { date: DatetimeIn::new(11017), close: 101.5 }];
    /// let mut file = Vec::new();
    /// a.write_npy(&mut file)?;
    /// let header = ndnpy::Header::read(&mut &file[..], &Default::default())?.header;
    /// let n = ndnpy::dtype::ByteOrder::NATIVE.as_char();
    /// assert_eq!(header.dtype.descr(), format!("[('date', '{n}M8[D]'), ('close', '{n}f8')]"));
    /// assert_eq!(Array1::<Quote>::read_npy(&file[..])?, a);
    ///
    /// // The same field in seconds converts, exactly; 12:00 on that day is not a whole day.
    /// #[derive(NpyRecord, Debug, PartialEq)]
    /// struct QuoteS {
    ///     date: DatetimeIn<unit::Seconds>,
    ///     close: f64,
    /// }
    /// let s = Array1::<QuoteS>::read_npy(&file[..])?;
    /// assert_eq!(s[0].date.value, 11017 * 86_400);
    /// let noon = array![QuoteS { date: DatetimeIn::new(11017 * 86_400 + 43_200), close: 1.0 }];
    /// let mut file = Vec::new();
    /// noon.write_npy(&mut file)?;
    /// let err = Array1::<Quote>::read_npy(&file[..]).unwrap_err();
    /// assert_eq!(err.kind(), ndnpy::ErrorKind::InvalidData);
    ///
    /// // To and from a `Datetime64`, which carries its unit in the value.
    /// let d = ndnpy::Datetime64::from(a[0].date);
    /// assert_eq!(DatetimeIn::<unit::Hours>::try_from(d).unwrap().value, 11017 * 24);
    /// assert_eq!(DatetimeIn::<unit::Months>::try_from(d).unwrap().value, 362); // 2000-03
    /// assert!(DatetimeIn::<unit::Weeks>::try_from(d).is_err()); // not a whole week
    /// # }
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    DatetimeIn,
    Datetime64,
    true
);

unit_time_type!(
    /// A numpy `timedelta64` whose unit is the type's: `TimedeltaIn<unit::Seconds>` is
    /// `timedelta64[s]`, a count of `U`s. It is what a record field of a timedelta dtype is
    /// declared as (a [`Timedelta64`] carries its unit in each value, so it cannot be one).
    ///
    /// As a record field it is written as `'<m8[U]'` (native byte order) and read from a
    /// field of any timedelta unit in either byte order with the rules of
    /// [`DatetimeIn`]: exact conversions only, NaT to NaT, an
    /// [`ErrorKind::InvalidData`](crate::ErrorKind::InvalidData) error for a value that is
    /// not a whole number of `U` or overflows. Years and months convert to each other but not
    /// to the other units (a month has no fixed length; numpy's `astype` uses an average
    /// year): such a field is an [`ErrorKind::DType`](crate::ErrorKind::DType) error.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{unit, DType, record::RecordField, element::TimedeltaIn};
    /// type Ms = TimedeltaIn<unit::Milliseconds>;
    /// let plan = Ms::plan(&DType::from_descr("'>m8[s]'")?)?; // a big-endian field in seconds
    /// assert_eq!(Ms::decode(&plan, &3i64.to_be_bytes()), Ms::new(3000));
    /// assert!(Ms::plan(&DType::from_descr("'<m8[M]'")?).is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    TimedeltaIn,
    Timedelta64,
    false
);

#[cfg(feature = "chrono")]
mod chrono_conv {
    use super::{Datetime64, Timedelta64, NAT};
    use crate::base::dtype::{DateTimeUnit, TimeUnit};
    use chrono::{Datelike, NaiveDate, NaiveDateTime, TimeDelta};

    /// Nanoseconds per tick of a linear unit (None for years and months, and for units
    /// finer than a nanosecond, which give the divisor instead).
    fn ns_per(unit: TimeUnit) -> Result<i64, i64> {
        Ok(match unit {
            TimeUnit::Weeks => 7 * 86_400_000_000_000,
            TimeUnit::Days => 86_400_000_000_000,
            TimeUnit::Hours => 3_600_000_000_000,
            TimeUnit::Minutes => 60_000_000_000,
            TimeUnit::Seconds => 1_000_000_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Nanoseconds => 1,
            TimeUnit::Picoseconds => return Err(1_000),
            TimeUnit::Femtoseconds => return Err(1_000_000),
            TimeUnit::Attoseconds => return Err(1_000_000_000),
            TimeUnit::Years | TimeUnit::Months => return Err(0),
        })
    }

    /// `ticks` of a linear unit as a duration, rounded down to whole nanoseconds; `None` if
    /// it does not fit (TimeDelta spans about ±292 years at nanosecond precision).
    fn linear(ticks: i128, unit: TimeUnit) -> Option<TimeDelta> {
        let ns: i128 = match ns_per(unit) {
            Ok(per) => ticks.checked_mul(i128::from(per))?,
            Err(0) => return None,
            Err(div) => ticks.div_euclid(i128::from(div)),
        };
        let secs = i64::try_from(ns.div_euclid(1_000_000_000)).ok()?;
        let nanos = ns.rem_euclid(1_000_000_000) as u32;
        TimeDelta::new(secs, nanos)
    }

    fn epoch() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(1970, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .unwrap_or_default()
    }

    /// Ticks of `unit` in `d`, rounded down (toward negative infinity), as numpy converts.
    fn ticks_in(d: TimeDelta, unit: TimeUnit) -> Option<i128> {
        let ns = i128::from(d.num_seconds()) * 1_000_000_000 + i128::from(d.subsec_nanos());
        match ns_per(unit) {
            Ok(per) => Some(ns.div_euclid(i128::from(per))),
            Err(0) => None,
            Err(mul) => ns.checked_mul(i128::from(mul)),
        }
    }

    fn apply_multiplier(ticks: i128, unit: DateTimeUnit) -> Option<i64> {
        i64::try_from(ticks.div_euclid(i128::from(unit.multiplier)))
            .ok()
            .filter(|&v| v != NAT)
    }

    impl Datetime64 {
        /// The date and time (UTC), rounded down to nanoseconds; `None` for NaT, the generic
        /// unit, or a value chrono cannot hold.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{Datetime64, dtype::DateTimeUnit, dtype::TimeUnit};
        /// let months = Some(DateTimeUnit { unit: TimeUnit::Months, multiplier: 1 });
        /// let t = Datetime64::new(-1, months).to_chrono().unwrap();
        /// assert_eq!(t.to_string(), "1969-12-01 00:00:00");
        /// ```
        pub fn to_chrono(&self) -> Option<NaiveDateTime> {
            let unit = self.unit?;
            if self.is_nat() {
                return None;
            }
            let ticks = i128::from(self.value) * i128::from(unit.multiplier);
            match unit.unit {
                TimeUnit::Years => {
                    let year = i32::try_from(1970 + ticks).ok()?;
                    NaiveDate::from_ymd_opt(year, 1, 1)?.and_hms_opt(0, 0, 0)
                }
                TimeUnit::Months => {
                    let year = i32::try_from(1970 + ticks.div_euclid(12)).ok()?;
                    let month = ticks.rem_euclid(12) as u32 + 1;
                    NaiveDate::from_ymd_opt(year, month, 1)?.and_hms_opt(0, 0, 0)
                }
                u => epoch().checked_add_signed(linear(ticks, u)?),
            }
        }

        /// `t` (UTC) in `unit`, rounded down as numpy's `astype` does; `None` if it does not
        /// fit in 64 bits.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{Datetime64, dtype::DateTimeUnit, dtype::TimeUnit};
        /// let t = chrono::NaiveDate::from_ymd_opt(2000, 3, 1).unwrap().and_hms_opt(12, 0, 0).unwrap();
        /// let days = DateTimeUnit { unit: TimeUnit::Days, multiplier: 1 };
        /// assert_eq!(Datetime64::from_chrono(t, days).unwrap().value, 11017);
        /// ```
        pub fn from_chrono(t: NaiveDateTime, unit: DateTimeUnit) -> Option<Datetime64> {
            let ticks: i128 = match unit.unit {
                TimeUnit::Years => i128::from(t.year()) - 1970,
                TimeUnit::Months => (i128::from(t.year()) - 1970) * 12 + i128::from(t.month0()),
                u => ticks_in(t.signed_duration_since(epoch()), u)?,
            };
            Some(Datetime64::new(apply_multiplier(ticks, unit)?, Some(unit)))
        }
    }

    impl Timedelta64 {
        /// The duration, rounded down to nanoseconds; `None` for NaT, the generic unit, years
        /// and months (not fixed lengths), or a value chrono cannot hold.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{dtype::DateTimeUnit, Timedelta64, dtype::TimeUnit};
        /// let d = Timedelta64::new(3, Some(DateTimeUnit { unit: TimeUnit::Days, multiplier: 7 }));
        /// assert_eq!(d.to_chrono().unwrap().num_days(), 21);
        /// ```
        pub fn to_chrono(&self) -> Option<TimeDelta> {
            let unit = self.unit?;
            if self.is_nat() {
                return None;
            }
            linear(
                i128::from(self.value) * i128::from(unit.multiplier),
                unit.unit,
            )
        }

        /// `d` in `unit`, rounded down; `None` for years and months or if it does not fit.
        ///
        /// # Examples
        ///
        /// ```
        /// use ndnpy::{dtype::DateTimeUnit, Timedelta64, dtype::TimeUnit};
        /// let ms = DateTimeUnit { unit: TimeUnit::Milliseconds, multiplier: 1 };
        /// let d = Timedelta64::from_chrono(chrono::TimeDelta::microseconds(2500), ms).unwrap();
        /// assert_eq!(d.value, 2);
        /// ```
        pub fn from_chrono(d: TimeDelta, unit: DateTimeUnit) -> Option<Timedelta64> {
            let ticks = ticks_in(d, unit.unit)?;
            Some(Timedelta64::new(apply_multiplier(ticks, unit)?, Some(unit)))
        }
    }
}

/// Why a time value cannot be converted to another unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// It is not a whole number of the target unit (numpy's `astype` would round it down).
    Inexact,
    /// It does not fit in 64 bits in the target unit (numpy's `astype` would wrap), or it
    /// would become [`NAT`].
    Overflow,
}

/// Attoseconds per tick of a linear unit; `None` for years and months (calendar units).
fn attos(unit: TimeUnit) -> Option<i128> {
    const S: i128 = 1_000_000_000_000_000_000;
    Some(match unit {
        TimeUnit::Years | TimeUnit::Months => return None,
        TimeUnit::Weeks => 7 * 86_400 * S,
        TimeUnit::Days => 86_400 * S,
        TimeUnit::Hours => 3_600 * S,
        TimeUnit::Minutes => 60 * S,
        TimeUnit::Seconds => S,
        TimeUnit::Milliseconds => S / 1_000,
        TimeUnit::Microseconds => S / 1_000_000,
        TimeUnit::Nanoseconds => S / 1_000_000_000,
        TimeUnit::Picoseconds => 1_000_000,
        TimeUnit::Femtoseconds => 1_000,
        TimeUnit::Attoseconds => 1,
    })
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `ticks` of the linear unit `from` in the linear unit `to`, exactly.
fn linear(ticks: i128, from: i128, to: i128) -> Result<i128, Lost> {
    let g = gcd(from, to);
    let (num, den) = (from / g, to / g);
    // `num` and `den` are coprime: the result is whole exactly when `den` divides `ticks`.
    if ticks % den != 0 {
        return Err(Lost::Inexact);
    }
    (ticks / den).checked_mul(num).ok_or(Lost::Overflow)
}

/// Days since 1970-01-01 of the first day of `month` (0-based) of `year`, proleptic
/// Gregorian (Howard Hinnant's `days_from_civil`); exact in `i128` for every year a
/// `datetime64` can hold (at most 2^95 in magnitude).
fn days_from_civil(year: i128, month0: i128) -> i128 {
    let (y, m) = if month0 < 2 {
        (year - 1, month0 + 13)
    } else {
        (year, month0 + 1)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m - 3) + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year, 0-based month and 0-based day of `days` since 1970-01-01 (`civil_from_days`).
fn civil_from_days(days: i128) -> (i128, i128, i128) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day0 = doy - (153 * mp + 2) / 5;
    let month0 = if mp < 10 { mp + 2 } else { mp - 10 };
    let year = yoe + era * 400 + i128::from(month0 < 2);
    (year, month0, day0)
}

/// Whether values of `from` can be converted to `to` at all: always for datetimes (years
/// and months through the calendar); for timedeltas, not between a calendar unit (years,
/// months) and a linear one, as a month has no fixed length.
pub fn convertible(from: Option<DateTimeUnit>, to: TimeUnit, calendar: bool) -> bool {
    match from {
        None => true,
        Some(f) => calendar || attos(f.unit).is_some() == attos(to).is_some(),
    }
}

/// `value` of `from` (`None`: numpy's generic unit, whose count is kept as is) in `to`,
/// exactly: NaT stays NaT; a value that is not a whole number of `to`, or does not fit,
/// is an error (where numpy's `astype` rounds down, or wraps). `calendar` (datetimes)
/// converts years and months to days and back through the proleptic Gregorian calendar, as
/// numpy does; timedeltas between a calendar unit and a linear one are refused (see
/// [`convertible`]).
pub fn convert(
    value: i64,
    from: Option<DateTimeUnit>,
    to: DateTimeUnit,
    calendar: bool,
) -> Result<i64, Lost> {
    let Some(from) = from else {
        return Ok(value);
    };
    if value == NAT || from == to {
        return Ok(value);
    }
    let ticks = i128::from(value) * i128::from(from.multiplier);
    let base = match (attos(from.unit), attos(to.unit)) {
        (Some(f), Some(t)) => linear(ticks, f, t)?,
        (None, None) => {
            let months = match from.unit {
                TimeUnit::Years => ticks * 12,
                _ => ticks,
            };
            match to.unit {
                TimeUnit::Years if months % 12 != 0 => return Err(Lost::Inexact),
                TimeUnit::Years => months / 12,
                _ => months,
            }
        }
        _ if !calendar => return Err(Lost::Inexact),
        (None, Some(t)) => {
            let months = match from.unit {
                TimeUnit::Years => ticks * 12,
                _ => ticks,
            };
            let days = days_from_civil(1970 + months.div_euclid(12), months.rem_euclid(12));
            linear(days, 86_400 * attos(TimeUnit::Seconds).unwrap_or(1), t)?
        }
        (Some(f), None) => {
            let days = linear(ticks, f, 86_400 * attos(TimeUnit::Seconds).unwrap_or(1))?;
            let (year, month0, day0) = civil_from_days(days);
            if day0 != 0 || (to.unit == TimeUnit::Years && month0 != 0) {
                return Err(Lost::Inexact);
            }
            match to.unit {
                TimeUnit::Years => year - 1970,
                _ => (year - 1970) * 12 + month0,
            }
        }
    };
    let mult = i128::from(to.multiplier);
    if mult == 0 || base % mult != 0 {
        return Err(Lost::Inexact);
    }
    i64::try_from(base / mult)
        .ok()
        .filter(|&v| v != NAT)
        .ok_or(Lost::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const UNITS: [TimeUnit; 13] = [
        TimeUnit::Years,
        TimeUnit::Months,
        TimeUnit::Weeks,
        TimeUnit::Days,
        TimeUnit::Hours,
        TimeUnit::Minutes,
        TimeUnit::Seconds,
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
        TimeUnit::Nanoseconds,
        TimeUnit::Picoseconds,
        TimeUnit::Femtoseconds,
        TimeUnit::Attoseconds,
    ];

    fn unit() -> impl Strategy<Value = DateTimeUnit> {
        (
            0..UNITS.len(),
            prop_oneof![Just(1u32), 1..1000u32, Just(u32::MAX)],
        )
            .prop_map(|(i, multiplier)| DateTimeUnit {
                unit: UNITS[i],
                multiplier,
            })
    }

    fn value() -> impl Strategy<Value = i64> {
        prop_oneof![
            -100_000i64..100_000,
            any::<i64>(),
            Just(NAT),
            Just(i64::MAX)
        ]
    }

    proptest! {
        /// What converts exactly converts back to the same value; NaT stays NaT.
        #[test]
        fn exact_conversions_invert(v in value(), a in unit(), b in unit(), calendar in any::<bool>()) {
            prop_assume!(convertible(Some(a), b.unit, calendar));
            if let Ok(w) = convert(v, Some(a), b, calendar) {
                prop_assert_eq!(w == NAT, v == NAT);
                prop_assert_eq!(convert(w, Some(b), a, calendar), Ok(v));
            }
        }
    }

    #[test]
    fn calendar_days_are_numpys() {
        // np.array(['2000-03', '1600-02', '1969-12'], 'M8[M]').astype('M8[D]').view('i8')
        let month = |m| {
            convert(
                m,
                Some(DateTimeUnit {
                    unit: TimeUnit::Months,
                    multiplier: 1,
                }),
                DateTimeUnit {
                    unit: TimeUnit::Days,
                    multiplier: 1,
                },
                true,
            )
        };
        assert_eq!(month(30 * 12 + 2), Ok(11_017));
        assert_eq!(month(-370 * 12 + 1), Ok(-135_109));
        assert_eq!(month(-1), Ok(-31));
        // No fixed length for a timedelta month; a zero multiplier never divides.
        assert!(!convertible(
            Some(DateTimeUnit {
                unit: TimeUnit::Months,
                multiplier: 1
            }),
            TimeUnit::Days,
            false
        ));
        let zero = DateTimeUnit {
            unit: TimeUnit::Days,
            multiplier: 0,
        };
        let s = DateTimeUnit {
            unit: TimeUnit::Seconds,
            multiplier: 1,
        };
        assert_eq!(convert(5, Some(s), zero, false), Err(Lost::Inexact));
    }
}
