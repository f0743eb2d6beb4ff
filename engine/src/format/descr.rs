//! Parsing and checking dtypes: every `descr` form numpy writes, and the lenient spellings
//! numpy's reader accepts.
//!
//! [`DType::from_descr`] accepts what numpy's reader accepts (the canonical `<`/`>`/`|` forms
//! and the lenient `=`, no prefix, `|` on multi-byte types, typecodes such as `'d'` and names
//! such as `'float64'`); the checked constructors [`Scalar::new`], [`Structured::new`] and
//! [`SubArray::new`] refuse what numpy cannot save. The values themselves, and their
//! formatting, are in `dtype`.

use crate::base::dtype::{
    ByteOrder, DType, DateTimeUnit, Field, Scalar, ScalarKind, Structured, SubArray, TimeUnit,
    MAX_DIMS,
};
use crate::base::error::{bad_descr, Detail, Error, FormatError};
use crate::base::pyrepr::repr_str;
use crate::format::literal::{self, Seq, Value};

impl Scalar {
    /// A scalar of `kind` and `size` bytes in `order`. The order is normalised to
    /// [`ByteOrder::NotApplicable`] where numpy writes `|` (one-byte numbers, bytes,
    /// objects), and a `NotApplicable` order on a multi-byte type becomes native. A void
    /// keeps the order it is given: numpy writes `'|V2'`, but `np.save` of an ml_dtypes
    /// `bfloat16` array writes `'<V2'`, and both are written back as they were read.
    ///
    /// # Errors
    ///
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) with [`ErrorKind::Header`](crate::ErrorKind::Header)
    /// if numpy has no such type (for example a 3-byte float) or the unit is given for a
    /// non-datetime kind.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, DType, dtype::Scalar, dtype::ScalarKind};
    /// let s = Scalar::new(ScalarKind::Float, ByteOrder::Big, 8, None)?;
    /// assert_eq!(DType::Scalar(s).descr(), "'>f8'");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new(
        kind: ScalarKind,
        order: ByteOrder,
        size: usize,
        unit: Option<DateTimeUnit>,
    ) -> Result<Scalar, Error> {
        let ok = match kind {
            ScalarKind::Bool => size == 1,
            ScalarKind::Int | ScalarKind::UInt => matches!(size, 1 | 2 | 4 | 8),
            ScalarKind::Float => matches!(size, 2 | 4 | 8 | 12 | 16),
            ScalarKind::Complex => matches!(size, 8 | 16 | 24 | 32),
            ScalarKind::Datetime | ScalarKind::Timedelta => size == 8,
            ScalarKind::Object => size == 8,
            ScalarKind::Unicode => size % 4 == 0,
            ScalarKind::Bytes | ScalarKind::Void => true,
        };
        let letter = kind.letter();
        if !ok {
            return Err(bad_descr(
                format!("{letter}{size}"),
                format!("numpy has no {size}-byte '{letter}' type"),
            ));
        }
        if unit.is_some() && !matches!(kind, ScalarKind::Datetime | ScalarKind::Timedelta) {
            return Err(bad_descr(
                format!("{letter}{size}"),
                "only datetime64 and timedelta64 take a unit",
            ));
        }
        if matches!(unit, Some(DateTimeUnit { multiplier: 0, .. })) {
            return Err(bad_descr(
                format!("{letter}{size}"),
                "a datetime unit multiplier must be at least 1",
            ));
        }
        let order = match (kind.has_order(size), order) {
            // numpy drops a void's byte order, but ml_dtypes' types (bfloat16, the float8s)
            // are voids saved with one (`np.save` writes `'<V2'`): it is kept, so that such
            // files are written back byte for byte, and `half::bf16` knows its bytes' order.
            _ if kind == ScalarKind::Void => order,
            (false, _) => ByteOrder::NotApplicable,
            (true, ByteOrder::NotApplicable) => ByteOrder::NATIVE,
            (true, o) => o,
        };
        Ok(Scalar {
            kind,
            order,
            size,
            unit,
        })
    }
}

impl Structured {
    /// A record of `fields` in records of `itemsize` bytes. Gaps between fields and after the
    /// last one are padding, written as numpy writes them (`('', '|V3')`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Header`](crate::ErrorKind::Header) if fields overlap, are
    /// not in offset order, do not fit in `itemsize`, or reuse a name or title (numpy cannot
    /// save such dtypes).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, dtype::Field, dtype::Structured};
    /// let i1 = DType::from_descr("'|i1'")?;
    /// let r = Structured::new(
    ///     vec![
    ///         Field { name: "a".into(), title: None, dtype: i1.clone(), offset: 0 },
    ///         Field { name: "b".into(), title: None, dtype: i1, offset: 4 },
    ///     ],
    ///     8,
    /// )?;
    /// assert_eq!(
    ///     DType::Structured(r).descr(),
    ///     "[('a', '|i1'), ('', '|V3'), ('b', '|i1'), ('', '|V3')]"
    /// );
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new(fields: Vec<Field>, itemsize: usize) -> Result<Structured, Error> {
        let mut end = 0usize;
        for f in &fields {
            if f.offset < end {
                return Err(bad_descr(
                    format_args!("{:?}", f.name),
                    "fields overlap or are out of offset order",
                ));
            }
            end = f
                .offset
                .checked_add(f.dtype.itemsize())
                .ok_or_else(|| bad_descr(format_args!("{:?}", f.name), "field offset overflows"))?;
        }
        // Names and titles must all differ: sorted, a repeat is next to its first use. (A
        // sort of borrowed names, not a set of copies: records may have millions of fields.)
        let mut keys: Vec<&str> = Vec::new();
        keys.try_reserve_exact(fields.len()).map_err(|_| {
            bad_descr(
                format_args!("{} fields", fields.len()),
                "too many fields to check for repeated names",
            )
        })?;
        for f in &fields {
            keys.push(&f.name);
            if let Some(t) = &f.title {
                keys.push(t);
            }
        }
        keys.sort_unstable();
        if let Some(pair) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(bad_descr(
                format_args!("{:?}", pair[0]),
                "name already used as a name or title",
            ));
        }
        if end > itemsize {
            return Err(bad_descr(
                format!("itemsize {itemsize}"),
                format!("fields need {end} bytes"),
            ));
        }
        Ok(Structured { fields, itemsize })
    }
}

impl SubArray {
    /// `shape` elements of `base`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Header`](crate::ErrorKind::Header) if the size overflows.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndnpy::{DType, dtype::SubArray};
    /// let s = SubArray::new(DType::from_descr("'<f8'")?, vec![5])?;
    /// assert_eq!(DType::SubArray(Box::new(s)).descr(), "('<f8', (5,))");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn new(base: DType, shape: Vec<usize>) -> Result<SubArray, Error> {
        let itemsize = shape
            .iter()
            .try_fold(base.itemsize(), |acc, &d| acc.checked_mul(d))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| bad_descr(format!("{shape:?}"), "sub-array size overflows"))?;
        Ok(SubArray {
            base,
            shape,
            itemsize,
        })
    }
}

/// Nesting limit for [`DType::from_descr`].
const DEFAULT_DEPTH: usize = 64;

impl DType {
    /// Parses a descr from its Python literal text: `'<f8'`, `[('a', '<i4')]`,
    /// `('<f8', (5,))`.
    ///
    /// # Errors
    ///
    /// a format error ([`ErrorKind::is_format`](crate::ErrorKind::is_format)) if the text is not a literal or not a descr numpy accepts;
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) if it nests deeper than 64 levels.
    ///
    /// # Examples
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("'>u2'")?;
    /// assert_eq!(d.itemsize(), 2);
    /// assert!(ndnpy::DType::from_descr("'<f3'").is_err());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn from_descr(text: &str) -> Result<DType, Error> {
        let value = literal::parse(text, false, DEFAULT_DEPTH)?;
        DType::from_value(&value)
    }

    /// The dtype of a parsed descr value (a string, a field list or a `(fmt, shape)` tuple).
    #[doc(hidden)]
    pub fn from_value(value: &Value<'_>) -> Result<DType, Error> {
        match value {
            Value::Str(s) => parse_type_str(s),
            Value::List(items) => parse_record(items),
            Value::Tuple(items) => match items.up_to(2)?.as_deref() {
                Some([fmt, shape]) => with_shape(DType::from_value(fmt)?, shape),
                _ => Err(bad_descr(value, "a tuple descr must be (format, shape)")),
            },
            other => Err(bad_descr(
                other,
                "expected a type string, a list of fields or a (format, shape) tuple",
            )),
        }
    }

    /// A scalar dtype from its type string (`"<f8"`, `"|S5"`, …) without Python quotes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Header`](crate::ErrorKind::Header) if numpy refuses it.
    ///
    /// # Examples
    ///
    /// ```
    /// let d = ndnpy::DType::from_type_str("<i8")?;
    /// assert_eq!(d.descr(), "'<i8'");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn from_type_str(s: &str) -> Result<DType, Error> {
        parse_type_str(s)
    }
}

/// Applies a sub-array shape (an int or a tuple of at most 64 ints) to `base`. An empty shape
/// is `base` itself, as in numpy.
fn with_shape(base: DType, shape: &Value<'_>) -> Result<DType, Error> {
    let invalid = || bad_descr(shape, "invalid shape in fixed-type tuple");
    let dims: Vec<usize> = match shape {
        Value::Int(n) => vec![dim(*n, shape)?],
        Value::Tuple(items) => {
            let Some(items) = items.up_to(MAX_DIMS)? else {
                return Err(invalid());
            };
            items
                .iter()
                .map(|v| match v {
                    Value::Int(n) => dim(*n, shape),
                    _ => Err(invalid()),
                })
                .collect::<Result<_, _>>()?
        }
        _ => return Err(invalid()),
    };
    if dims.is_empty() {
        return Ok(base);
    }
    Ok(DType::SubArray(Box::new(SubArray::new(base, dims)?)))
}

fn dim(n: i128, shape: &Value<'_>) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| {
        bad_descr(
            shape,
            "sub-array dimensions must be non-negative and fit in usize",
        )
    })
}

/// A record from its field list, converting each field as it is parsed (see
/// [`Seq::iter`]): the fields are what stays in memory.
fn parse_record(items: &Seq<'_>) -> Result<DType, Error> {
    let mut fields = Vec::new();
    let mut offset = 0usize;
    for item in items.iter() {
        let item = item?;
        let not_a_field = || {
            bad_descr(
                &item,
                "a field must be a (name, format) or (name, format, shape) tuple",
            )
        };
        let Value::Tuple(parts) = &item else {
            return Err(not_a_field());
        };
        let Some(parts) = parts.up_to(3)? else {
            return Err(not_a_field());
        };
        let (name_slot, fmt, shape) = match parts.as_slice() {
            [n, f] => (n, f, None),
            [n, f, s] => (n, f, Some(s)),
            _ => return Err(not_a_field()),
        };
        let mut dtype = DType::from_value(fmt)?;
        if let Some(shape) = shape {
            dtype = with_shape(dtype, shape)?;
        }
        let size = dtype.itemsize();
        // numpy's rule (descr_to_dtype): an unnamed field of a void type without fields is
        // padding. Sub-array dtypes are void too, so `('', '<i4', (3,))` is padding as well.
        let is_void = match &dtype {
            DType::Scalar(s) => s.kind == ScalarKind::Void,
            DType::SubArray(_) => true,
            DType::Structured(_) => false,
        };
        let is_pad = matches!(name_slot, Value::Str(s) if s.is_empty()) && is_void;
        if !is_pad {
            let (title, name) = match name_slot {
                Value::Str(n) => (None, n.to_string()),
                Value::Tuple(tn) => match tn.up_to(2)?.as_deref() {
                    Some([Value::Str(t), Value::Str(n)]) => (Some(t.to_string()), n.to_string()),
                    _ => {
                        return Err(bad_descr(
                            name_slot,
                            "a titled field name must be a (title, name) pair of strings",
                        ))
                    }
                },
                _ => return Err(bad_descr(name_slot, "field names must be strings")),
            };
            fields.try_reserve(1).map_err(|_| {
                bad_descr(
                    format_args!("{} fields", fields.len()),
                    "cannot allocate the record's fields",
                )
            })?;
            fields.push(Field {
                name,
                title,
                dtype,
                offset,
            });
        }
        offset = offset
            .checked_add(size)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| bad_descr(&item, "record size overflows"))?;
    }
    Ok(DType::Structured(Structured::new(fields, offset)?))
}

/// numpy's type names accepted as a leniency, with the type string each stands for.
const NAMES: &[(&str, &str)] = &[
    ("bool", "|b1"),
    ("int8", "|i1"),
    ("uint8", "|u1"),
    ("int16", "=i2"),
    ("uint16", "=u2"),
    ("int32", "=i4"),
    ("uint32", "=u4"),
    ("int64", "=i8"),
    ("uint64", "=u8"),
    ("float16", "=f2"),
    ("float32", "=f4"),
    ("float64", "=f8"),
    ("complex64", "=c8"),
    ("complex128", "=c16"),
    ("object", "|O"),
    ("bytes", "|S0"),
    ("str", "=U0"),
    ("void", "|V0"),
    ("datetime64", "=M8"),
    ("timedelta64", "=m8"),
];

/// Single-character typecodes (`np.dtype('d')`), with their type strings.
fn typecode(c: u8) -> Option<&'static str> {
    const LONG: &str = if std::mem::size_of::<std::ffi::c_long>() == 8 {
        "=i8"
    } else {
        "=i4"
    };
    const ULONG: &str = if std::mem::size_of::<std::ffi::c_long>() == 8 {
        "=u8"
    } else {
        "=u4"
    };
    Some(match c {
        b'?' => "|b1",
        b'b' => "|i1",
        b'B' => "|u1",
        b'h' => "=i2",
        b'H' => "=u2",
        b'i' => "=i4",
        b'I' => "=u4",
        b'l' => LONG,
        b'L' => ULONG,
        b'q' => "=i8",
        b'Q' => "=u8",
        b'p' => "=i8",
        b'P' => "=u8",
        b'e' => "=f2",
        b'f' => "=f4",
        b'd' => "=f8",
        b'F' => "=c8",
        b'D' => "=c16",
        b'c' => "|S1",
        b'S' | b'a' => "|S0",
        b'U' => "=U0",
        b'V' => "|V0",
        b'O' => "|O",
        b'M' => "=M8",
        b'm' => "=m8",
        _ => return None,
    })
}

/// Parses a type string such as `<f8`, `|S5`, `>M8[25ms]`, `f8`, `d`, `float64`.
fn parse_type_str(s: &str) -> Result<DType, Error> {
    let quoted = || {
        let mut q = String::new();
        repr_str(s, &mut q);
        q
    };
    let (order, rest) = match s.as_bytes().first() {
        Some(b'<') => (ByteOrder::Little, &s[1..]),
        Some(b'>') => (ByteOrder::Big, &s[1..]),
        Some(b'=') | Some(b'|') => (ByteOrder::NotApplicable, &s[1..]),
        _ => (ByteOrder::NotApplicable, s),
    };
    // Names and typecodes, for the readers that accept them.
    if order == ByteOrder::NotApplicable && !s.starts_with(['=', '|']) {
        let (name, unit) = match s.find('[') {
            Some(i) => (&s[..i], &s[i..]),
            None => (s, ""),
        };
        if let Some((_, t)) = NAMES.iter().find(|(n, _)| *n == name) {
            return parse_type_str(&format!("{t}{unit}"));
        }
    }
    let bytes = rest.as_bytes();
    if bytes.len() == 1 {
        if let Some(t) = typecode(bytes[0]) {
            // `=` before a typecode means native, like no prefix at all.
            let t = match order {
                ByteOrder::Little | ByteOrder::Big if t.starts_with('=') => {
                    format!("{}{}", order.as_char(), &t[1..])
                }
                _ => t.to_string(),
            };
            return parse_canonical(&t).map_err(|_| bad_descr(quoted(), "not a numpy dtype"));
        }
    }
    parse_canonical(&format!("{}{rest}", order.as_char())).map_err(|e| match e.detail() {
        Detail::Format(FormatError::InvalidDescr { reason, .. }) => bad_descr(quoted(), reason),
        _ => e,
    })
}

/// Parses `<order><letter><digits>[unit]` where order is `<`, `>` or `|` (`|` = native or
/// not applicable).
fn parse_canonical(s: &str) -> Result<DType, Error> {
    let order = match s.as_bytes()[0] {
        b'<' => ByteOrder::Little,
        b'>' => ByteOrder::Big,
        b'=' => ByteOrder::NATIVE,
        _ => ByteOrder::NotApplicable,
    };
    let rest = &s[1..];
    let (head, unit) = match rest.find('[') {
        Some(i) => (&rest[..i], Some(&rest[i..])),
        None => (rest, None),
    };
    let mut chars = head.chars();
    let letter = chars
        .next()
        .ok_or_else(|| bad_descr(s, "empty type string"))?;
    let digits = chars.as_str();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_descr(s, "not a numpy dtype"));
    }
    let n: Option<usize> = if digits.is_empty() {
        None
    } else {
        Some(
            digits
                .parse()
                .map_err(|_| bad_descr(s, "size does not fit in usize"))?,
        )
    };
    let kind = match ScalarKind::from_letter(letter) {
        Some(kind) => kind,
        None => return Err(bad_descr(s, "not a numpy dtype")),
    };
    let size = match (kind, n) {
        (ScalarKind::Object, None | Some(4) | Some(8)) => 8,
        (ScalarKind::Object, Some(_)) => return Err(bad_descr(s, "an object dtype is 'O'")),
        (ScalarKind::Unicode, n) => n
            .unwrap_or(0)
            .checked_mul(4)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| bad_descr(s, "string length overflows"))?,
        (ScalarKind::Bytes | ScalarKind::Void, n) => n.unwrap_or(0),
        (ScalarKind::Datetime | ScalarKind::Timedelta, None) => 8,
        (_, Some(n)) => n,
        (_, None) => return Err(bad_descr(s, "a size is required")),
    };
    let unit = match unit {
        None => None,
        Some(u) if matches!(kind, ScalarKind::Datetime | ScalarKind::Timedelta) => {
            parse_unit(u).ok_or_else(|| bad_descr(s, "invalid datetime unit"))?
        }
        Some(_) => return Err(bad_descr(s, "only datetime64 and timedelta64 take a unit")),
    };
    Ok(DType::Scalar(Scalar::new(kind, order, size, unit)?))
}

/// `[25ms]` → Some(Some(25 ms)); `[generic]` → Some(None); anything invalid → None.
fn parse_unit(u: &str) -> Option<Option<DateTimeUnit>> {
    let inner = u.strip_prefix('[')?.strip_suffix(']')?;
    if inner == "generic" {
        return Some(None);
    }
    let split = inner
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(inner.len());
    let (num, code) = inner.split_at(split);
    let multiplier = if num.is_empty() {
        1
    } else {
        num.parse::<u32>()
            .ok()
            .filter(|&m| m >= 1 && m <= i32::MAX as u32)?
    };
    let unit = TimeUnit::from_code(code)?;
    Some(Some(DateTimeUnit { unit, multiplier }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(descr: &str) {
        let d = DType::from_descr(descr).unwrap_or_else(|e| panic!("{descr}: {e}"));
        assert_eq!(d.descr(), descr);
    }

    #[test]
    fn canonical_descrs_round_trip() {
        for d in [
            "'|b1'",
            "'|i1'",
            "'|u1'",
            "'<i2'",
            "'>i8'",
            "'<u4'",
            "'<f2'",
            "'>f4'",
            "'<f8'",
            "'<f16'",
            "'<f12'",
            "'<c8'",
            "'>c16'",
            "'<c32'",
            "'|S5'",
            "'|S0'",
            "'<U3'",
            "'>U0'",
            "'|V8'",
            "'<M8[ns]'",
            "'<M8[25ms]'",
            "'>M8[D]'",
            "'<M8'",
            "'<m8[s]'",
            "'<m8[7D]'",
            "'<m8'",
            "'|O'",
            "[('a', '<i4'), ('b', '<f8'), ('c', '|S3'), ('d', '|b1')]",
            "[('x', '<i4', (2,)), ('y', '<f8', (2, 3))]",
            "[('a', '<i2'), ('n', [('x', '<f4'), ('y', '|u1', (2,))])]",
            "[('c', ('<f8', (5,)), (2,))]",
            "[('x', ([('a', '|i1'), ('', '|V3'), ('b', '|i1'), ('', '|V3')], (3,)), (4,))]",
            "[('f0', '|i1'), ('', '|V3'), ('f1', '<i4'), ('f2', '|i1'), ('', '|V3')]",
            "[('', '|V1'), ('a', '<i4'), ('', '|V1'), ('b', '<i4')]",
            "[('a', '<i2'), ('', '|V6')]",
            "[('', '|V1'), (('aa', 'a'), '<i4'), ('', '|V1'), (('bb', 'b'), '<i4')]",
            "[('', '|V8')]",
            "[]",
            "[('a', '<i4'), ('', '<i4'), ('b', '<i4')]",
            "[('a', '|O'), ('b', '<i4')]",
            "[(\"it's\", '|u1'), ('both \\' and \"', '|u1'), ('é', '|u1')]",
            "('<f8', (5,))",
        ] {
            roundtrip(d);
        }
    }

    #[test]
    fn lenient_spellings_normalise() {
        let native = if cfg!(target_endian = "little") {
            '<'
        } else {
            '>'
        };
        for (given, want) in [
            ("'=f8'", format!("'{native}f8'")),
            ("'f8'", format!("'{native}f8'")),
            ("'|f8'", format!("'{native}f8'")),
            ("'d'", format!("'{native}f8'")),
            ("'float64'", format!("'{native}f8'")),
            ("'<b1'", "'|b1'".into()),
            ("'>i1'", "'|i1'".into()),
            ("'<S5'", "'|S5'".into()),
            ("'|U5'", format!("'{native}U5'")),
            ("'|O8'", "'|O'".into()),
            ("'O4'", "'|O'".into()),
            ("'<O'", "'|O'".into()),
            ("'S'", "'|S0'".into()),
            ("'a5'", "'|S5'".into()),
            ("'?'", "'|b1'".into()),
            ("'c'", "'|S1'".into()),
            ("'M8[1ns]'", format!("'{native}M8[ns]'")),
            ("'datetime64[us]'", format!("'{native}M8[us]'")),
            ("'>D'", "'>c16'".into()),
            ("[('x', '<i4', 2)]", "[('x', '<i4', (2,))]".into()),
            ("[('x', '<i4', ())]", "[('x', '<i4')]".into()),
        ] {
            assert_eq!(DType::from_descr(given).unwrap().descr(), want, "{given}");
        }
    }

    #[test]
    fn refuses_what_numpy_refuses() {
        for bad in [
            "'<f1'",
            "'<f3'",
            "'<f10'",
            "'<i16'",
            "'<u16'",
            "'<c4'",
            "'<c20'",
            "'<M4'",
            "'<m4'",
            "'<M16'",
            "'<M8[xs]'",
            "'!f8'",
            "'^f8'",
            "'@f8'",
            "'<F8'",
            "'<f8 '",
            "''",
            "'garbage'",
            "'|T16'",
            "None",
            "3",
            "{'a': 1}",
            "[('a',)]",
            "[(1, '<i4')]",
            "[('a', '<i4'), ('a', '<f8')]",
            "[(('t', 'a'), '<i4'), ('t', '<f8')]",
            "[('a', '<i4', (-1,))]",
            "[('a', '<f8', (4611686018427387904, 4))]",
            "('<f8', 'x')",
            "'<M8[0ns]'",
            "'U99999999999999999999'",
        ] {
            assert!(DType::from_descr(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn unnamed_void_and_subarray_fields_are_padding() {
        let d = DType::from_descr("[('a', '<i4'), ('', '<i4', (3,)), ('b', '|u1')]").unwrap();
        let r = d.as_structured().unwrap();
        assert_eq!(r.fields().len(), 2);
        assert_eq!(r.field("b").unwrap().offset, 16);
        assert_eq!(r.itemsize(), 17);
        assert_eq!(d.descr(), "[('a', '<i4'), ('', '|V12'), ('b', '|u1')]");
    }
}
