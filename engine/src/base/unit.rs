//! Time units as types, for record fields whose unit is declared in the struct:
//! [`DatetimeIn<unit::Days>`](crate::element::DatetimeIn) is numpy's `datetime64[D]`,
//! [`TimedeltaIn<unit::Seconds>`](crate::element::TimedeltaIn) is `timedelta64[s]`.
//!
//! One marker type per unit numpy has, from [`Years`] (`Y`) to [`Attoseconds`] (`as`); each
//! implements [`Unit`], which names its [`TimeUnit`]. The markers are never built: they are
//! only type arguments.
//!
//! # Examples
//!
//! ```
//! use ndnpy::unit::{self, Unit};
//! use ndnpy::dtype::TimeUnit;
//! assert_eq!(unit::Days::UNIT, TimeUnit::Days);
//! assert_eq!(<unit::Microseconds as Unit>::UNIT.code(), "us");
//! ```

use crate::base::dtype::{DateTimeUnit, TimeUnit};

mod sealed {
    pub trait Sealed {}
}

/// A time unit as a type: the `U` of [`DatetimeIn<U>`](crate::element::DatetimeIn) and
/// [`TimedeltaIn<U>`](crate::element::TimedeltaIn). Sealed: implemented by the markers of this module
/// only, one per [`TimeUnit`].
///
/// # Examples
///
/// ```
/// use ndnpy::unit::{Hours, Unit};
/// fn code<U: Unit>() -> &'static str {
///     U::UNIT.code()
/// }
/// assert_eq!(code::<Hours>(), "h");
/// ```
pub trait Unit: sealed::Sealed + 'static {
    /// The unit this type stands for.
    const UNIT: TimeUnit;

    /// How a dtype mismatch names `DatetimeIn<Self>` when reading: the dtypes it reads.
    /// Not API.
    #[doc(hidden)]
    const DATETIME_READS: &'static str;

    /// How a dtype mismatch names `TimedeltaIn<Self>` when reading. Not API.
    #[doc(hidden)]
    const TIMEDELTA_READS: &'static str;

    /// How a layout mismatch names `DatetimeIn<Self>` (views need the exact dtype). Not API.
    #[doc(hidden)]
    const DATETIME_VIEWS: &'static str;

    /// How a layout mismatch names `TimedeltaIn<Self>`. Not API.
    #[doc(hidden)]
    const TIMEDELTA_VIEWS: &'static str;

    /// The unit with multiplier 1, as a dtype holds it.
    #[doc(hidden)]
    const DTYPE_UNIT: DateTimeUnit = DateTimeUnit {
        unit: Self::UNIT,
        multiplier: 1,
    };
}

macro_rules! units {
    ($($name:ident $code:literal, $timedeltas:literal;)*) => {$(
        #[doc = concat!("The unit `", $code, "`: [`DatetimeIn<", stringify!($name),
            ">`](crate::element::DatetimeIn) is `datetime64[", $code, "]`.")]
        ///
        /// ```
        #[doc = concat!("assert_eq!(<ndnpy::unit::", stringify!($name), " as ndnpy::unit::Unit>::UNIT.code(), \"", $code, "\");")]
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {}

        impl sealed::Sealed for $name {}

        impl Unit for $name {
            const UNIT: TimeUnit = TimeUnit::$name;
            const DATETIME_READS: &'static str = concat!(
                "DatetimeIn<", stringify!($name), "> (dtype 'M8[", $code, "]', or M8 of any unit)"
            );
            const TIMEDELTA_READS: &'static str = concat!(
                "TimedeltaIn<", stringify!($name), "> (dtype 'm8[", $code, "]', or m8 of ",
                $timedeltas, ")"
            );
            const DATETIME_VIEWS: &'static str =
                concat!("DatetimeIn<", stringify!($name), "> (dtype 'M8[", $code, "]')");
            const TIMEDELTA_VIEWS: &'static str =
                concat!("TimedeltaIn<", stringify!($name), "> (dtype 'm8[", $code, "]')");
        }
    )*};
}

// Timedeltas in years and months convert only to each other: a month has no fixed length.
units! {
    Years "Y", "years or months";
    Months "M", "years or months";
    Weeks "W", "any unit but years and months";
    Days "D", "any unit but years and months";
    Hours "h", "any unit but years and months";
    Minutes "m", "any unit but years and months";
    Seconds "s", "any unit but years and months";
    Milliseconds "ms", "any unit but years and months";
    Microseconds "us", "any unit but years and months";
    Nanoseconds "ns", "any unit but years and months";
    Picoseconds "ps", "any unit but years and months";
    Femtoseconds "fs", "any unit but years and months";
    Attoseconds "as", "any unit but years and months";
}
