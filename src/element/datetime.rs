//! numpy's `datetime64` (`M8`) and `timedelta64` (`m8`) as element types that carry their
//! unit, every unit from years to attoseconds, multipliers (`M8[25ms]`), the generic unit and
//! NaT, in both byte orders.

use super::bulk;
use super::Input;
use super::{ReadableElement, WritableElement};
use crate::dtype::{ByteOrder, DType, DateTimeUnit, Scalar, ScalarKind};
use crate::error::{Error, MismatchError, UsageError};
use std::io::{Read, Write};

/// The value numpy uses for NaT ("not a time"): `i64::MIN`.
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
            /// use ndnpy::{DateTimeUnit, TimeUnit};
            #[doc = concat!("let t = ndnpy::", stringify!($name), "::new(5, Some(DateTimeUnit { unit: TimeUnit::Seconds, multiplier: 1 }));")]
            /// assert!(!t.is_nat());
            /// ```
            pub fn new(value: i64, unit: Option<DateTimeUnit>) -> Self {
                $name { value, unit }
            }

            /// NaT in `unit`.
            ///
            /// ```
            #[doc = concat!("assert!(ndnpy::", stringify!($name), "::nat(None).is_nat());")]
            /// ```
            pub fn nat(unit: Option<DateTimeUnit>) -> Self {
                $name { value: NAT, unit }
            }

            /// Whether this is NaT.
            ///
            /// ```
            #[doc = concat!("assert!(!ndnpy::", stringify!($name), "::new(0, None).is_nat());")]
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
                    _ => Err(MismatchError::DType {
                        requested: concat!(stringify!($name), " (dtype '<", $letter, "8[unit]')"),
                        found: dtype.clone(),
                    }
                    .into()),
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
    /// use ndnpy::{Datetime64, DateTimeUnit, ReadNpyExt, TimeUnit, WriteNpyExt};
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
    /// use ndnpy::{DateTimeUnit, Timedelta64, TimeUnit};
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

#[cfg(feature = "chrono")]
mod chrono_conv {
    use super::{Datetime64, Timedelta64, NAT};
    use crate::dtype::{DateTimeUnit, TimeUnit};
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
        /// use ndnpy::{Datetime64, DateTimeUnit, TimeUnit};
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
        /// use ndnpy::{Datetime64, DateTimeUnit, TimeUnit};
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
        /// use ndnpy::{DateTimeUnit, Timedelta64, TimeUnit};
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
        /// use ndnpy::{DateTimeUnit, Timedelta64, TimeUnit};
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
