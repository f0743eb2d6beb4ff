//! Values spelled the way numpy prints them: floats as numpy's `FloatingFormat` (Dragon4,
//! `floatmode='maxprec'`, 8 digits), Python's `repr` of strings and bytes, datetimes as ISO
//! strings.

use ndnpy::{dtype::DateTimeUnit, dtype::TimeUnit};

/// numpy's default `precision`.
const PRECISION: usize = 8;

/// The shortest decimal digits that read back as the same float, and the decimal exponent:
/// the value is `0.d1d2d3... * 10^exp` ... written as `d1.d2d3... e(exp-1)`.
#[derive(Debug, Clone)]
struct Digits {
    negative: bool,
    /// At least one digit, no trailing zeros (except a single "0" for zero).
    digits: Vec<u8>,
    /// The exponent of the first digit: value = d1.d2d3... * 10^exp.
    exp: i32,
}

fn parse_sci(s: &str) -> Digits {
    // `-d.ddde-5` as Rust's `{:e}` writes it.
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    Digits {
        negative,
        digits,
        exp: exp.parse().unwrap_or(0),
    }
}

/// A finite float of any width, as f64 (exact) and its shortest digits at its own width.
#[derive(Debug, Clone, Copy)]
pub struct Float {
    /// The value (exact in f64).
    pub value: f64,
    /// Significant bits: 11 (f16), 24 (f32), 53 (f64).
    pub width: Width,
}

/// The float's storage width, which decides its shortest round-trip digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// `float16`
    F16,
    /// `float32`
    F32,
    /// `float64`
    F64,
}

impl Float {
    fn shortest(self) -> Digits {
        let d = self.shortest_any();
        // Of two shortest candidates equally near the value, Dragon4 (numpy) takes the even
        // last digit; Rust's may take the other. The value correctly rounded (ties to even)
        // to the same number of digits is the one numpy prints, whenever it reads back.
        let p = d.digits.len() - 1;
        let s = format!("{:.p$e}", self.value);
        let back = s.parse::<f64>().ok();
        let same = match (self.width, back) {
            (Width::F64, Some(b)) => b == self.value,
            (Width::F32, Some(b)) => b as f32 == self.value as f32,
            (Width::F16, Some(b)) => half::f16::from_f64(b) == half::f16::from_f64(self.value),
            _ => false,
        };
        if same {
            parse_sci(&s)
        } else {
            d
        }
    }

    fn shortest_any(self) -> Digits {
        match self.width {
            Width::F64 => parse_sci(&format!("{:e}", self.value)),
            Width::F32 => parse_sci(&format!("{:e}", self.value as f32)),
            Width::F16 => {
                let target = half::f16::from_f64(self.value);
                for p in 0..8 {
                    let s = format!("{:.p$e}", self.value);
                    if let Ok(back) = s.parse::<f64>() {
                        if half::f16::from_f64(back) == target {
                            return parse_sci(&s);
                        }
                    }
                }
                parse_sci(&format!("{:e}", self.value))
            }
        }
    }

    /// Digits of the exact value rounded to `frac` fractional digits (positional).
    fn rounded_positional(self, frac: usize) -> Digits {
        let s = format!("{:.frac$}", self.value);
        // Back to scientific digits.
        let negative = s.starts_with('-');
        let body = s.trim_start_matches('-');
        let (int, fr) = body.split_once('.').unwrap_or((body, ""));
        let all: Vec<u8> = int.bytes().chain(fr.bytes()).collect();
        let first = all.iter().position(|&b| b != b'0');
        match first {
            None => Digits {
                negative,
                digits: vec![b'0'],
                exp: 0,
            },
            Some(i) => {
                let mut digits = all[i..].to_vec();
                while digits.len() > 1 && digits.last() == Some(&b'0') {
                    digits.pop();
                }
                Digits {
                    negative,
                    digits,
                    exp: int.len() as i32 - 1 - i as i32,
                }
            }
        }
    }

    /// Digits of the exact value rounded to `frac` fractional digits in scientific notation.
    fn rounded_scientific(self, frac: usize) -> Digits {
        parse_sci(&format!("{:.frac$e}", self.value))
    }

    /// numpy's `dragon4_positional(x, precision=8, unique=True, fractional=True)`:
    /// (sign and integer part, fractional digits).
    fn positional_parts(self) -> (String, String) {
        let mut d = self.shortest();
        let frac_len = (d.digits.len() as i32 - 1 - d.exp).max(0) as usize;
        if frac_len > PRECISION {
            d = self.rounded_positional(PRECISION);
        }
        let zero = d.digits == [b'0'];
        let mut int = String::new();
        if d.negative {
            int.push('-');
        }
        let mut frac = String::new();
        if zero || d.exp < 0 {
            int.push('0');
            if !zero {
                for _ in 0..(-d.exp - 1) {
                    frac.push('0');
                }
                frac.extend(d.digits.iter().map(|&b| b as char));
            }
        } else {
            let e = d.exp as usize;
            for i in 0..=e {
                int.push(*d.digits.get(i).unwrap_or(&b'0') as char);
            }
            if d.digits.len() > e + 1 {
                frac.extend(d.digits[e + 1..].iter().map(|&b| b as char));
            }
        }
        (int, frac)
    }

    /// numpy's `dragon4_scientific(x, precision=8, unique=True)`: (sign and first digit,
    /// fractional digits, exponent with sign and at least two digits).
    fn scientific_parts(self) -> (String, String, i32) {
        let mut d = self.shortest();
        if d.digits.len() - 1 > PRECISION {
            d = self.rounded_scientific(PRECISION);
        }
        let mut int = String::new();
        if d.negative {
            int.push('-');
        }
        int.push(d.digits[0] as char);
        let frac: String = d.digits[1..].iter().map(|&b| b as char).collect();
        let exp = if d.digits == [b'0'] { 0 } else { d.exp };
        (int, frac, exp)
    }
}

/// numpy's `FloatingFormat` for one column of values (`sign` `'-'` or `'+'`), fitted to the
/// values shown.
#[derive(Debug, Clone)]
pub struct FloatFormat {
    exp_format: bool,
    pad_left: usize,
    pad_right: usize,
    /// Fractional digits of every value in exponential format.
    precision: usize,
    exp_size: usize,
    plus: bool,
}

impl FloatFormat {
    /// The format fitted to `values` (NaN and infinities included).
    pub fn new(values: &[Float], plus: bool) -> FloatFormat {
        let finite: Vec<Float> = values
            .iter()
            .copied()
            .filter(|f| f.value.is_finite())
            .collect();
        let nonzero: Vec<f64> = finite
            .iter()
            .map(|f| f.value.abs())
            .filter(|&v| v != 0.0)
            .collect();
        let mut exp_format = false;
        if !nonzero.is_empty() {
            let max = nonzero.iter().copied().fold(f64::MIN, f64::max);
            let min = nonzero.iter().copied().fold(f64::MAX, f64::min);
            // numpy 2.3+: the cutoff is 10^min(8, decimal digits of the type).
            let cutoff = match values.first().map(|f| f.width) {
                Some(Width::F16) => 1e3,
                Some(Width::F32) => 1e6,
                _ => 1e8,
            };
            if max >= cutoff || min < 0.0001 || max / min > 1000.0 {
                exp_format = true;
            }
        }
        let sign_len = |int: &str| {
            if plus && !int.starts_with('-') {
                int.len() + 1
            } else {
                int.len()
            }
        };
        let mut f = FloatFormat {
            exp_format,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_size: 0,
            plus,
        };
        if finite.is_empty() {
            f.exp_format = false;
        } else if exp_format {
            let parts: Vec<_> = finite.iter().map(|x| x.scientific_parts()).collect();
            f.exp_size = parts
                .iter()
                .map(|p| p.2.unsigned_abs().to_string().len().max(2))
                .max()
                .unwrap_or(2);
            f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            f.pad_left = parts.iter().map(|p| sign_len(&p.0)).max().unwrap_or(0);
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let parts: Vec<_> = finite.iter().map(|x| x.positional_parts()).collect();
            f.pad_left = parts.iter().map(|p| sign_len(&p.0)).max().unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        }
        if finite.len() != values.len() {
            let neginf = plus || values.iter().any(|v| v.value == f64::NEG_INFINITY);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + usize::from(neginf)).saturating_sub(offset));
        }
        f
    }

    /// One value, padded to the column.
    pub fn format(&self, x: Float) -> String {
        let v = x.value;
        if !v.is_finite() {
            let ret = if v.is_nan() {
                if self.plus { "+nan" } else { "nan" }.to_string()
            } else if v < 0.0 {
                "-inf".to_string()
            } else if self.plus {
                "+inf".to_string()
            } else {
                "inf".to_string()
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{ret:>width$}");
        }
        let with_sign = |int: String| {
            if self.plus && !int.starts_with('-') {
                format!("+{int}")
            } else {
                int
            }
        };
        if self.exp_format {
            let (mut int, mut frac, mut exp) = x.scientific_parts();
            if frac.len() < self.precision {
                // numpy's Dragon4 pads with the exact value's further digits (a float32's
                // 1.227352 is 1.22735202 at 8 digits), rounded at the last one.
                let d = x.rounded_scientific(self.precision);
                int = format!(
                    "{}{}",
                    if d.negative { "-" } else { "" },
                    d.digits[0] as char
                );
                frac = d.digits[1..].iter().map(|&b| b as char).collect();
                if d.digits != [b'0'] {
                    exp = d.exp;
                }
            }
            while frac.len() < self.precision {
                frac.push('0');
            }
            let int = with_sign(int);
            let sign = if exp < 0 { '-' } else { '+' };
            let digits = format!("{:0w$}", exp.unsigned_abs(), w = self.exp_size);
            format!("{int:>pl$}.{frac}e{sign}{digits}", pl = self.pad_left)
        } else {
            let (int, frac) = x.positional_parts();
            let int = with_sign(int);
            format!(
                "{int:>pl$}.{frac:<pr$}",
                pl = self.pad_left,
                pr = self.pad_right
            )
        }
    }
}

/// `str()` of a numpy float scalar: Python's `repr` rules (positional from 1e-4 up to 1e16
/// for float64, 1e6 for float32, 1e3 for float16).
pub fn scalar_float(x: Float) -> String {
    let v = x.value;
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    let d = x.shortest();
    let sign = if d.negative { "-" } else { "" };
    let zero = d.digits == [b'0'];
    // numpy's scalar cutoff for positional notation depends on the type.
    let cutoff = match x.width {
        Width::F16 => 1e3,
        Width::F32 => 1e6,
        Width::F64 => 1e16,
    };
    if zero || (v.abs() >= 1e-4 && v.abs() < cutoff) {
        let mut s = String::from(sign);
        if zero {
            s.push_str("0.0");
        } else if d.exp < 0 {
            s.push_str("0.");
            for _ in 0..(-d.exp - 1) {
                s.push('0');
            }
            s.extend(d.digits.iter().map(|&b| b as char));
        } else {
            let e = d.exp as usize;
            for i in 0..=e {
                s.push(*d.digits.get(i).unwrap_or(&b'0') as char);
            }
            s.push('.');
            if d.digits.len() > e + 1 {
                s.extend(d.digits[e + 1..].iter().map(|&b| b as char));
            } else {
                s.push('0');
            }
        }
        s
    } else {
        let mut s = String::from(sign);
        s.push(d.digits[0] as char);
        if d.digits.len() > 1 {
            s.push('.');
            s.extend(d.digits[1..].iter().map(|&b| b as char));
        }
        let esign = if d.exp < 0 { '-' } else { '+' };
        s.push_str(&format!("e{esign}{:02}", d.exp.unsigned_abs()));
        s
    }
}

/// `str()` of a numpy timedelta scalar: `125 milliseconds` (the count in the base unit),
/// `3 generic time units`, `NaT`.
pub fn timedelta(value: i64, nat: bool, unit: Option<DateTimeUnit>) -> String {
    if nat {
        return "NaT".into();
    }
    let Some(unit) = unit else {
        return format!("{value} generic time units");
    };
    let name = match unit.unit {
        TimeUnit::Years => "years",
        TimeUnit::Months => "months",
        TimeUnit::Weeks => "weeks",
        TimeUnit::Days => "days",
        TimeUnit::Hours => "hours",
        TimeUnit::Minutes => "minutes",
        TimeUnit::Seconds => "seconds",
        TimeUnit::Milliseconds => "milliseconds",
        TimeUnit::Microseconds => "microseconds",
        TimeUnit::Nanoseconds => "nanoseconds",
        TimeUnit::Picoseconds => "picoseconds",
        TimeUnit::Femtoseconds => "femtoseconds",
        TimeUnit::Attoseconds => "attoseconds",
        _ => "",
    };
    format!("{} {name}", i128::from(value) * i128::from(unit.multiplier))
}

/// Python's `repr` of a `str`.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a `bytes`.
pub fn repr_bytes(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote as char);
    out
}

/// Days since 1970-01-01 as (year, month, day) in the proleptic Gregorian calendar.
fn civil(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn year(y: i128) -> String {
    if y < 0 {
        y.to_string()
    } else {
        format!("{y:04}")
    }
}

/// numpy's `datetime_as_string` of `value` ticks of `unit` (in the unit's base: weeks and
/// days as dates, sub-second units with 3, 6, ... fractional digits).
pub fn datetime(value: i64, unit: DateTimeUnit) -> String {
    let v = i128::from(value) * i128::from(unit.multiplier);
    let per_day_frac = |per_second: i128, digits: usize| -> String {
        let per_day = 86_400 * per_second;
        let days = v.div_euclid(per_day);
        let rest = v.rem_euclid(per_day);
        let (y, m, d) = civil(days);
        let secs = rest / per_second;
        let frac = rest % per_second;
        let mut s = format!(
            "{}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            year(y),
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        if digits > 0 {
            s.push_str(&format!(".{frac:0digits$}"));
        }
        s
    };
    match unit.unit {
        TimeUnit::Years => year(1970 + v),
        TimeUnit::Months => {
            let y = 1970 + v.div_euclid(12);
            format!("{}-{:02}", year(y), v.rem_euclid(12) + 1)
        }
        TimeUnit::Weeks | TimeUnit::Days => {
            let days = if unit.unit == TimeUnit::Weeks {
                v * 7
            } else {
                v
            };
            let (y, m, d) = civil(days);
            format!("{}-{m:02}-{d:02}", year(y))
        }
        TimeUnit::Hours => {
            let (days, h) = (v.div_euclid(24), v.rem_euclid(24));
            let (y, m, d) = civil(days);
            format!("{}-{m:02}-{d:02}T{h:02}", year(y))
        }
        TimeUnit::Minutes => {
            let (days, mins) = (v.div_euclid(1440), v.rem_euclid(1440));
            let (y, m, d) = civil(days);
            format!(
                "{}-{m:02}-{d:02}T{:02}:{:02}",
                year(y),
                mins / 60,
                mins % 60
            )
        }
        TimeUnit::Seconds => per_day_frac(1, 0),
        TimeUnit::Milliseconds => per_day_frac(1_000, 3),
        TimeUnit::Microseconds => per_day_frac(1_000_000, 6),
        TimeUnit::Nanoseconds => per_day_frac(1_000_000_000, 9),
        TimeUnit::Picoseconds => per_day_frac(1_000_000_000_000, 12),
        TimeUnit::Femtoseconds => per_day_frac(1_000_000_000_000_000, 15),
        TimeUnit::Attoseconds => per_day_frac(1_000_000_000_000_000_000, 18),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> Float {
        Float {
            value: v,
            width: Width::F64,
        }
    }

    #[test]
    fn column_of_floats_as_numpy() {
        let vals = [f(-1.0), f(-0.5), f(0.0)];
        let ff = FloatFormat::new(&vals, false);
        let s: Vec<String> = vals.iter().map(|&v| ff.format(v)).collect();
        assert_eq!(s, ["-1. ", "-0.5", " 0. "]);
        let vals = [f(1e-5), f(1e10)];
        let ff = FloatFormat::new(&vals, false);
        assert_eq!(ff.format(vals[0]), "1.e-05");
        assert_eq!(ff.format(f(0.001953125)), "1.953125e-03");
        let ff = FloatFormat::new(&[f(0.001953125)], false);
        assert_eq!(ff.format(f(0.001953125)), "0.00195312");
    }

    #[test]
    fn dates_as_numpy() {
        let d = |u, m| DateTimeUnit {
            unit: u,
            multiplier: m,
        };
        assert_eq!(datetime(-1000001, d(TimeUnit::Days, 1)), "-768-02-03");
        assert_eq!(
            datetime(-1000001, d(TimeUnit::Milliseconds, 25)),
            "1969-12-31T17:03:19.975"
        );
        assert_eq!(datetime(1000000, d(TimeUnit::Months, 1)), "85303-05");
    }
}
