//! Python's `datetime` types as a pickle rebuilds them: `date`, `time` and `datetime` from the
//! packed bytes their `__reduce__` gives (with a `timezone` as `tzinfo`), `timedelta` from its
//! three ints, `timezone` from its offset and name. Every field is checked as Python's
//! constructors check them; nothing else of the `datetime` module is resolved.

use super::globals::Global;
use super::machine::{Called, Id, Machine, Obj};
use super::source::Source;
use crate::array::dynamic::{PyDate, PyTime, PyTimeDelta, PyTimeZone, PyValue};
use ndnpy_engine::base::error::Error;
use std::io::Read;

/// The most days a `timedelta` holds (`timedelta.max.days`).
const MAX_DAYS: i64 = 999_999_999;

const US_PER_DAY: i128 = 86_400 * 1_000_000;

/// Calls `datetime.date`, `.time`, `.datetime`, `.timedelta` or `.timezone` with `args`.
pub(super) fn call<R: Read + ?Sized>(
    m: &mut Machine,
    g: Global,
    args: &[Id],
    src: &Source<'_, R>,
) -> Result<Called, Error> {
    let what = match g {
        Global::Date => "datetime.date",
        Global::Time => "datetime.time",
        Global::DateTime => "datetime.datetime",
        Global::TimeDelta => "datetime.timedelta",
        _ => "datetime.timezone",
    };
    let value = match g {
        Global::Date => date(m, args),
        Global::Time => time(m, args),
        Global::DateTime => datetime(m, args),
        Global::TimeDelta => timedelta(m, args).map(PyValue::TimeDelta),
        _ => timezone(m, args).map(|tz| PyValue::TimeZone(Box::new(tz))),
    };
    match value {
        Some(v) => Ok(Called::New(Obj::Time(Box::new(v)))),
        None => Err(m.bad(src, format_args!("bad arguments to {what}"))),
    }
}

/// The packed state of a `date`, `time` or `datetime` (bytes; a Python 2 `str`, or Python 3's
/// `_codecs.encode(text, 'latin1')`, already bytes here).
fn state(m: &Machine, id: Id, len: usize) -> Option<Vec<u8>> {
    match &m.arena[id] {
        Obj::Bytes(b) | Obj::Py2Str(b) if b.len() == len => Some(b.clone()),
        _ => None,
    }
}

fn int(m: &Machine, id: Id) -> Option<i64> {
    match m.arena[id] {
        Obj::Int(v) => Some(v),
        Obj::Bool(b) => Some(b.into()),
        _ => None,
    }
}

/// The arguments `(state[, tzinfo])` of a `time` or `datetime`: the packed state of `len`
/// bytes and the `tzinfo`.
fn state_and_tzinfo(
    m: &Machine,
    args: &[Id],
    len: usize,
) -> Option<(Vec<u8>, Option<Box<PyTimeZone>>)> {
    let (s, tz) = match args {
        [s] => (*s, None),
        [s, tz] => (*s, Some(tz)),
        _ => return None,
    };
    Some((state(m, s, len)?, tzinfo(m, tz)?))
}

/// A `tzinfo` argument: a `timezone`, or `None`.
fn tzinfo(m: &Machine, id: Option<&Id>) -> Option<Option<Box<PyTimeZone>>> {
    match id.map(|&i| &m.arena[i]) {
        None | Some(Obj::None) => Some(None),
        Some(Obj::Time(v)) => match &**v {
            PyValue::TimeZone(tz) => Some(Some(tz.clone())),
            _ => None,
        },
        Some(_) => None,
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn checked_date(year: i64, month: i64, day: i64) -> Option<PyDate> {
    let year = u16::try_from(year)
        .ok()
        .filter(|y| (1..=9999).contains(y))?;
    let month = u8::try_from(month).ok().filter(|m| (1..=12).contains(m))?;
    let day = u8::try_from(day)
        .ok()
        .filter(|&d| d >= 1 && d <= days_in_month(year, month))?;
    Some(PyDate { year, month, day })
}

fn checked_time(hms: [u8; 3], microsecond: u32, fold: bool) -> Option<PyTime> {
    let [hour, minute, second] = hms;
    (hour < 24 && minute < 60 && second < 60 && microsecond < 1_000_000).then_some(PyTime {
        hour,
        minute,
        second,
        microsecond,
        fold,
        tzinfo: None,
    })
}

fn micros(b: &[u8]) -> u32 {
    u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2])
}

/// `date(state)` (what `date.__reduce__` gives: year high, year low, month, day) or
/// `date(year, month, day)`.
fn date(m: &Machine, args: &[Id]) -> Option<PyValue> {
    let d = match args {
        [s] => {
            let b = state(m, *s, 4)?;
            checked_date(
                i64::from(b[0]) << 8 | i64::from(b[1]),
                b[2].into(),
                b[3].into(),
            )?
        }
        [y, mo, d] => checked_date(int(m, *y)?, int(m, *mo)?, int(m, *d)?)?,
        _ => return None,
    };
    Some(PyValue::Date(d))
}

/// `time(state[, tzinfo])`: hour (plus 128 when `fold` is 1), minute, second and three bytes
/// of microseconds.
fn time(m: &Machine, args: &[Id]) -> Option<PyValue> {
    let (b, tz) = state_and_tzinfo(m, args, 6)?;
    let fold = b[0] & 0x80 != 0;
    let mut t = checked_time([b[0] & 0x7f, b[1], b[2]], micros(&b[3..6]), fold)?;
    t.tzinfo = tz;
    Some(PyValue::Time(t))
}

/// `datetime(state[, tzinfo])`: the year's two bytes, the month (plus 128 when `fold` is 1),
/// day, hour, minute, second and three bytes of microseconds.
fn datetime(m: &Machine, args: &[Id]) -> Option<PyValue> {
    let (b, tz) = state_and_tzinfo(m, args, 10)?;
    let fold = b[2] & 0x80 != 0;
    let d = checked_date(
        i64::from(b[0]) << 8 | i64::from(b[1]),
        (b[2] & 0x7f).into(),
        b[3].into(),
    )?;
    let mut t = checked_time([b[4], b[5], b[6]], micros(&b[7..10]), fold)?;
    t.tzinfo = tz;
    Some(PyValue::DateTime(d, t))
}

/// `timedelta(days, seconds, microseconds)` (any of them left out is 0), normalized as
/// Python normalizes it; beyond ±999,999,999 days Python raises, and so does this.
fn timedelta(m: &Machine, args: &[Id]) -> Option<PyTimeDelta> {
    if args.len() > 3 {
        return None;
    }
    let mut parts = [0i128; 3];
    for (p, &a) in parts.iter_mut().zip(args) {
        *p = int(m, a)?.into();
    }
    let total = parts[0] * US_PER_DAY + parts[1] * 1_000_000 + parts[2];
    let days = total.div_euclid(US_PER_DAY);
    let rest = total.rem_euclid(US_PER_DAY);
    if days.abs() > MAX_DAYS.into() {
        return None;
    }
    Some(PyTimeDelta {
        days: days as i32,
        seconds: (rest / 1_000_000) as i32,
        microseconds: (rest % 1_000_000) as i32,
    })
}

/// `timezone(offset[, name])`: the offset strictly within a day, as Python checks it.
fn timezone(m: &Machine, args: &[Id]) -> Option<PyTimeZone> {
    let (offset, name) = match args {
        [o] => (*o, None),
        [o, n] => (*o, Some(m.text_of(*n)?)),
        _ => return None,
    };
    let offset = match &m.arena[offset] {
        Obj::Time(v) => match &**v {
            PyValue::TimeDelta(d) => *d,
            _ => return None,
        },
        _ => return None,
    };
    // Strictly between -timedelta(hours=24) and timedelta(hours=24).
    let inside = match offset.days {
        0 => true,
        -1 => offset.seconds > 0 || offset.microseconds > 0,
        _ => false,
    };
    inside.then_some(PyTimeZone { offset, name })
}
