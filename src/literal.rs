//! Python literals: the subset of `ast.literal_eval` that `.npy` headers use, and Python's
//! `repr` of strings.
//!
//! Accepted: dicts, lists, tuples (with Python's rule that `(x)` is just `x`), strings in
//! single, double or triple quotes with `r`/`u` prefixes, Python escapes and adjacent-literal
//! concatenation, integers (decimal, `0x`/`0o`/`0b`, `_` separators, unary `+`/`-`, and the
//! Python 2 `L` suffix when allowed), `True`, `False`, `None`, whitespace and `#` comments
//! between tokens, trailing commas. Refused: everything else (names, calls, arithmetic, floats,
//! bytes, sets). Parsing is one pass over the text, and nesting is bounded by a depth limit,
//! so the cost is linear in the header's length whatever it holds.

use crate::error::{syntax, Error, LimitError};
use std::fmt::{self, Write as _};

/// A parsed Python literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
}

impl fmt::Display for Value {
    /// Python's `repr` of the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => {
                let mut out = String::new();
                repr_str(s, &mut out);
                f.write_str(&out)
            }
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::None => f.write_str("None"),
            Value::Tuple(items) => {
                f.write_char('(')?;
                write_items(f, items)?;
                if items.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            Value::List(items) => {
                f.write_char('[')?;
                write_items(f, items)?;
                f.write_char(']')
            }
            Value::Dict(entries) => {
                f.write_char('{')?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
        }
    }
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Value]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// Parses `text` as one Python literal followed only by whitespace and comments.
///
/// `allow_long_suffix` accepts Python 2's `2L` integers (numpy does for format 1.0 and 2.0).
/// `max_depth` bounds the nesting of containers.
pub(crate) fn parse(text: &str, allow_long_suffix: bool, max_depth: usize) -> Result<Value, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        allow_long_suffix,
        max_depth,
    };
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err("end of header"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    allow_long_suffix: bool,
    max_depth: usize,
}

impl Parser<'_> {
    fn err(&self, expected: &'static str) -> Error {
        syntax(self.pos, expected, self.excerpt(self.pos))
    }

    /// Up to 20 characters from byte `at`, quoted, or "end of header".
    fn excerpt(&self, at: usize) -> String {
        match self.text.get(at..) {
            Some("") | None => "end of header".to_string(),
            Some(rest) => {
                let cut: String = rest.chars().take(20).collect();
                format!("{cut:?}")
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => self.pos += 1,
                b'#' => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => self.dict(depth + 1),
            Some(b'[') => {
                let items = self.sequence(b']', depth + 1)?;
                Ok(Value::List(items.0))
            }
            Some(b'(') => {
                let (items, trailing_comma) = self.sequence(b')', depth + 1)?;
                if items.len() == 1 && !trailing_comma {
                    // `(x)` is a parenthesised `x`, not a tuple.
                    Ok(items.into_iter().next().unwrap_or(Value::None))
                } else {
                    Ok(Value::Tuple(items))
                }
            }
            Some(b'\'' | b'"') => self.strings(),
            Some(b'r' | b'R' | b'u' | b'U')
                if matches!(self.s.get(self.pos + 1), Some(b'\'' | b'"')) =>
            {
                self.strings()
            }
            Some(b'0'..=b'9' | b'+' | b'-') => self.int(),
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'_') => self.name(),
            _ => Err(self.err("a Python literal")),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), Error> {
        if depth > self.max_depth {
            Err(Error::Limit(LimitError::TooDeep {
                limit: self.max_depth,
            }))
        } else {
            Ok(())
        }
    }

    /// Items up to `close`; the flag says whether a comma followed the last item.
    fn sequence(&mut self, close: u8, depth: usize) -> Result<(Vec<Value>, bool), Error> {
        self.enter(depth)?;
        self.pos += 1; // the opening bracket
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok((items, trailing_comma));
            }
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    trailing_comma = true;
                }
                Some(c) if c == close => trailing_comma = false,
                _ => {
                    return Err(self.err(if close == b')' {
                        "',' or ')'"
                    } else {
                        "',' or ']'"
                    }))
                }
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, Error> {
        self.enter(depth)?;
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(Value::Dict(entries));
            }
            let key = self.value(depth)?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.err("':'"));
            }
            self.pos += 1;
            let value = self.value(depth)?;
            entries.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.err("',' or '}'")),
            }
        }
    }

    fn name(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
        ) {
            self.pos += 1;
        }
        match &self.s[start..self.pos] {
            b"True" => Ok(Value::Bool(true)),
            b"False" => Ok(Value::Bool(false)),
            b"None" => Ok(Value::None),
            _ => {
                self.pos = start;
                Err(self.err("a Python literal (True, False, None, a number, a string)"))
            }
        }
    }

    fn int(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let mut negative = false;
        // Python allows any run of unary signs: `-+-3`.
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            negative ^= c == b'-';
            self.pos += 1;
            self.skip_ws();
        }
        let digits_start = self.pos;
        let (radix, body_start) = match (self.peek(), self.s.get(self.pos + 1)) {
            (Some(b'0'), Some(b'x' | b'X')) => (16, self.pos + 2),
            (Some(b'0'), Some(b'o' | b'O')) => (8, self.pos + 2),
            (Some(b'0'), Some(b'b' | b'B')) => (2, self.pos + 2),
            _ => (10, self.pos),
        };
        self.pos = body_start;
        let mut magnitude: u128 = 0;
        let mut ndigits = 0usize;
        let mut first_digit_zero = false;
        let mut all_zero = true;
        let mut prev_underscore = radix == 10; // no leading '_' in decimal
        loop {
            match self.peek() {
                Some(b'_') if !prev_underscore || (radix != 10 && ndigits == 0) => {
                    prev_underscore = true;
                    self.pos += 1;
                }
                Some(c) if (c as char).is_digit(radix) => {
                    let d = (c as char).to_digit(radix).unwrap_or(0);
                    if ndigits == 0 {
                        first_digit_zero = d == 0;
                    }
                    all_zero &= d == 0;
                    ndigits += 1;
                    prev_underscore = false;
                    magnitude = magnitude
                        .checked_mul(u128::from(radix))
                        .and_then(|m| m.checked_add(u128::from(d)))
                        .ok_or_else(|| {
                            syntax(
                                digits_start,
                                "an integer that fits in 127 bits",
                                self.excerpt(digits_start),
                            )
                        })?;
                    self.pos += 1;
                }
                _ => break,
            }
        }
        if ndigits == 0 || prev_underscore && radix == 10 {
            self.pos = digits_start;
            return Err(self.err("an integer"));
        }
        if prev_underscore {
            return Err(self.err("a digit after '_'"));
        }
        if radix == 10 && first_digit_zero && !all_zero {
            self.pos = digits_start;
            return Err(self.err("a decimal integer without leading zeros"));
        }
        if self.allow_long_suffix && matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E' | b'j' | b'J')) {
            return Err(self.err("an integer (floats and complex numbers are not accepted)"));
        }
        if matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
            return Err(self.err("a separator after the integer"));
        }
        let value = i128::try_from(magnitude).map_err(|_| {
            syntax(
                start,
                "an integer that fits in 127 bits",
                self.excerpt(start),
            )
        })?;
        Ok(Value::Int(if negative { -value } else { value }))
    }

    /// One or more adjacent string literals, concatenated.
    fn strings(&mut self) -> Result<Value, Error> {
        let mut out = String::new();
        loop {
            self.string(&mut out)?;
            self.skip_ws();
            let next_is_string = match self.peek() {
                Some(b'\'' | b'"') => true,
                Some(b'r' | b'R' | b'u' | b'U') => {
                    matches!(self.s.get(self.pos + 1), Some(b'\'' | b'"'))
                }
                _ => false,
            };
            if !next_is_string {
                return Ok(Value::Str(out));
            }
        }
    }

    fn string(&mut self, out: &mut String) -> Result<(), Error> {
        let mut raw = false;
        if let Some(c @ (b'r' | b'R' | b'u' | b'U')) = self.peek() {
            raw = matches!(c, b'r' | b'R');
            self.pos += 1;
        }
        let start = self.pos;
        let quote = self.s[self.pos];
        let triple = self.s.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]);
        self.pos += if triple { 3 } else { 1 };
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(self.err("a closing quote"));
            };
            if c == quote {
                if !triple {
                    self.pos += 1;
                    return Ok(());
                }
                if self.s.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]) {
                    self.pos += 3;
                    return Ok(());
                }
            }
            if !triple && c == b'\n' {
                return Err(self.err("a closing quote before the end of the line"));
            }
            if c == b'\\' {
                if raw {
                    // A raw string keeps the backslash and the character after it.
                    out.push('\\');
                    self.pos += 1;
                    if let Some(ch) = self.next_char() {
                        out.push(ch);
                    }
                    continue;
                }
                self.escape(out)?;
                continue;
            }
            if c == 0 {
                return Err(self.err("a character other than NUL"));
            }
            if let Some(ch) = self.next_char() {
                out.push(ch);
            }
        }
    }

    /// The next character of the text, advancing past it.
    fn next_char(&mut self) -> Option<char> {
        let ch = self.text.get(self.pos..)?.chars().next()?;
        self.pos += ch.len_utf8();
        Some(ch)
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Error> {
        let at = self.pos;
        self.pos += 1; // the backslash
        let Some(c) = self.peek() else {
            return Err(self.err("an escape sequence"));
        };
        self.pos += 1;
        let simple = match c {
            b'\n' => Some(None), // line continuation
            b'\\' => Some(Some('\\')),
            b'\'' => Some(Some('\'')),
            b'"' => Some(Some('"')),
            b'a' => Some(Some('\x07')),
            b'b' => Some(Some('\x08')),
            b'f' => Some(Some('\x0c')),
            b'n' => Some(Some('\n')),
            b'r' => Some(Some('\r')),
            b't' => Some(Some('\t')),
            b'v' => Some(Some('\x0b')),
            _ => None,
        };
        if let Some(ch) = simple {
            out.extend(ch);
            return Ok(());
        }
        let code = match c {
            b'x' => self.hex_digits(2)?,
            b'u' => self.hex_digits(4)?,
            b'U' => self.hex_digits(8)?,
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                v
            }
            _ => {
                // Python keeps unknown escapes as they are (with a warning).
                out.push('\\');
                self.pos -= 1;
                return Ok(());
            }
        };
        match char::from_u32(code) {
            Some(ch) => {
                out.push(ch);
                Ok(())
            }
            None => Err(syntax(at, "a valid code point", self.excerpt(at))),
        }
    }

    fn hex_digits(&mut self, n: usize) -> Result<u32, Error> {
        let mut v: u32 = 0;
        for _ in 0..n {
            match self.peek().and_then(|c| (c as char).to_digit(16)) {
                Some(d) => {
                    v = v.wrapping_mul(16).wrapping_add(d);
                    self.pos += 1;
                }
                None => return Err(self.err("a hexadecimal digit")),
            }
        }
        Ok(v)
    }
}

/// Appends Python's `repr()` of the string `s` to `out`.
///
/// Single quotes unless the string holds `'` and no `"`; backslash escapes for `\\`, `\t`,
/// `\n`, `\r` and the quote in use; `\xNN`, `\uNNNN` or `\UNNNNNNNN` for characters Python
/// does not consider printable; every other character as it is.
pub(crate) fn repr_str(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one character.
fn is_printable(c: char) -> bool {
    let cp = c as u32;
    if cp < 0x100 {
        // Latin-1: controls, DEL, the C1 controls, NBSP and the soft hyphen are not printable.
        return (0x20..0x7f).contains(&cp) || (cp > 0xa0 && cp != 0xad);
    }
    crate::printable_table::NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Value, Error> {
        parse(s, true, 32)
    }

    #[test]
    fn parses_the_header_numpy_writes() {
        let v = p("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }     \n").unwrap();
        assert_eq!(
            v,
            Value::Dict(vec![
                (Value::Str("descr".into()), Value::Str("<f8".into())),
                (Value::Str("fortran_order".into()), Value::Bool(false)),
                (
                    Value::Str("shape".into()),
                    Value::Tuple(vec![Value::Int(3)])
                ),
            ])
        );
    }

    #[test]
    fn parenthesised_value_is_not_a_tuple() {
        assert_eq!(p("(3)").unwrap(), Value::Int(3));
        assert_eq!(p("(3,)").unwrap(), Value::Tuple(vec![Value::Int(3)]));
        assert_eq!(p("()").unwrap(), Value::Tuple(vec![]));
    }

    #[test]
    fn accepts_literal_eval_spellings() {
        assert_eq!(p("0x10").unwrap(), Value::Int(16));
        assert_eq!(p("0o10").unwrap(), Value::Int(8));
        assert_eq!(p("0b11").unwrap(), Value::Int(3));
        assert_eq!(p("1_2").unwrap(), Value::Int(12));
        assert_eq!(p("+3").unwrap(), Value::Int(3));
        assert_eq!(p("-0").unwrap(), Value::Int(0));
        assert_eq!(p("00").unwrap(), Value::Int(0));
        assert_eq!(p("2L").unwrap(), Value::Int(2));
        assert_eq!(p("'\\x3cf8'").unwrap(), Value::Str("<f8".into()));
        assert_eq!(p("'<' \"f8\"").unwrap(), Value::Str("<f8".into()));
        assert_eq!(p("r'a\\b'").unwrap(), Value::Str("a\\b".into()));
        assert_eq!(p("'''it's'''").unwrap(), Value::Str("it's".into()));
        assert_eq!(p("'\\u00e9\\q'").unwrap(), Value::Str("é\\q".into()));
        assert_eq!(p("  [1, 2,] # comment").unwrap(), p("[1,2]").unwrap());
    }

    #[test]
    fn refuses_what_literal_eval_refuses() {
        for bad in [
            "03", "0_3", "1__2", "1_", "int(3)", "1+2", "false", "1.5", "1e3", "2j", "{1, 2}",
            "'abc", "'a\nb'", "b'x'", "", "(1 2)", "{'a' 1}", "'\0'",
        ] {
            assert!(p(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(parse("2L", false, 32).is_err());
    }

    #[test]
    fn huge_integers_are_errors_not_panics() {
        assert!(p("99999999999999999999999999999999999999999999").is_err());
        assert_eq!(
            p("99999999999999999999999").unwrap(),
            Value::Int(99999999999999999999999)
        );
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(matches!(
            parse(&deep, false, 64),
            Err(Error::Limit(LimitError::TooDeep { limit: 64 }))
        ));
        let ok = "[".repeat(10) + &"]".repeat(10);
        assert!(parse(&ok, false, 64).is_ok());
    }

    #[test]
    fn repr_follows_python() {
        let r = |s: &str| {
            let mut o = String::new();
            repr_str(s, &mut o);
            o
        };
        assert_eq!(r("abc"), "'abc'");
        assert_eq!(r("it's"), "\"it's\"");
        assert_eq!(r("both ' and \""), "'both \\' and \"'");
        assert_eq!(r("a\\b\t\n\r"), "'a\\\\b\\t\\n\\r'");
        assert_eq!(r("\u{80}\u{a0}\u{ad}é"), "'\\x80\\xa0\\xadé'");
        assert_eq!(r("\u{200b}整形😀"), "'\\u200b整形😀'");
        assert_eq!(r("\u{e0001}"), "'\\U000e0001'");
        assert_eq!(r("\x01\x7f"), "'\\x01\\x7f'");
    }
}
