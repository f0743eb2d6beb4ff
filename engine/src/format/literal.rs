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
//!
//! Memory stays small whatever the text: strings without escapes borrow from it, and a
//! container keeps its items only while they are few (`MAX_KEPT_ITEMS`, and at most
//! `MAX_KEPT_VALUES` values kept in the whole parse). A larger container is checked in full
//! but kept as its text ([`Seq::Text`]), and parsed again, item by item, when iterated: the
//! caller turns each item into what it needs (a record field, a dimension) and drops it.

#[cfg(test)]
use crate::base::error::Detail;
use crate::base::error::{syntax, Error, LimitError};
use crate::base::pyrepr::repr_str;
use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// The error for a string that cannot be allocated.
fn oom(bytes: usize) -> Error {
    Error::out_of_memory(bytes, "a string in the header")
}

/// A container with more items than this is kept as its text ([`Seq::Text`]).
const MAX_KEPT_ITEMS: usize = 64;

/// Once this many values are kept in containers, further containers of more than one item
/// are kept as their text.
const MAX_KEPT_VALUES: usize = 1024;

/// A parsed Python literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// A string, borrowed from the text when it has no escapes and no concatenation.
    Str(Cow<'a, str>),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Seq<'a>),
    List(Seq<'a>),
    /// Keys and values, alternating.
    Dict(Seq<'a>),
}

/// The items of a tuple, list or dict (keys and values alternating).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seq<'a> {
    /// The items, parsed.
    Items(Vec<Value<'a>>),
    /// Too many items to keep: the container's text, checked, to parse again when iterated.
    Text(Lazy<'a>),
}

/// A container kept as its text (see [`Seq::Text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lazy<'a> {
    /// The whole text parsed.
    text: &'a str,
    /// The byte offsets of the container's opening bracket and just past its closing one.
    start: usize,
    end: usize,
    /// The container's nesting depth.
    depth: usize,
    allow_long_suffix: bool,
    max_depth: usize,
}

impl<'a> Seq<'a> {
    /// The items in order (for a dict, keys and values alternating). Items kept in memory are
    /// cloned; a container kept as text is parsed again, one item at a time.
    #[doc(hidden)]
    pub fn iter(&self) -> SeqIter<'a, '_> {
        match self {
            Seq::Items(items) => SeqIter::Items(items.iter()),
            Seq::Text(lazy) => SeqIter::Text {
                p: Parser {
                    s: lazy.text.as_bytes(),
                    text: lazy.text,
                    pos: lazy.start + 1,
                    allow_long_suffix: lazy.allow_long_suffix,
                    max_depth: lazy.max_depth,
                    kept: 0,
                },
                depth: lazy.depth,
                close: lazy.text.as_bytes()[lazy.end - 1],
                expect_value: false,
                done: false,
            },
        }
    }

    /// The items when there are at most `max` of them, else `None` (without parsing past the
    /// `max + 1`th).
    #[doc(hidden)]
    pub fn up_to(&self, max: usize) -> Result<Option<Vec<Value<'a>>>, Error> {
        let mut out = Vec::new();
        for item in self.iter() {
            if out.len() == max {
                return Ok(None);
            }
            out.push(item?);
        }
        Ok(Some(out))
    }
}

/// The iterator of [`Seq::iter`].
pub enum SeqIter<'a, 's> {
    Items(std::slice::Iter<'s, Value<'a>>),
    Text {
        p: Parser<'a>,
        depth: usize,
        close: u8,
        /// In a dict, a key was just read: a value comes next.
        expect_value: bool,
        done: bool,
    },
}

impl<'a> Iterator for SeqIter<'a, '_> {
    type Item = Result<Value<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            SeqIter::Items(items) => items.next().cloned().map(Ok),
            SeqIter::Text {
                p,
                depth,
                close,
                expect_value,
                done,
            } => {
                if *done {
                    return None;
                }
                // Each item is handed over whole: the budget of kept values starts again.
                p.kept = 0;
                let r = (|| {
                    let dict = *close == b'}';
                    if dict && *expect_value {
                        // After the key: ':' was checked by the first pass.
                        p.skip_ws();
                        p.pos += 1;
                        let v = p.value(*depth)?;
                        p.skip_ws();
                        if p.peek() == Some(b',') {
                            p.pos += 1;
                        }
                        *expect_value = false;
                        return Ok(Some(v));
                    }
                    p.skip_ws();
                    if p.peek() == Some(*close) {
                        return Ok(None);
                    }
                    let v = p.value(*depth)?;
                    p.skip_ws();
                    if dict {
                        *expect_value = true;
                    } else if p.peek() == Some(b',') {
                        p.pos += 1;
                    }
                    Ok(Some(v))
                })();
                match r {
                    Ok(Some(v)) => Some(Ok(v)),
                    Ok(None) => {
                        *done = true;
                        None
                    }
                    Err(e) => {
                        *done = true;
                        Some(Err(e))
                    }
                }
            }
        }
    }
}

impl fmt::Display for Value<'_> {
    /// Python's `repr` of the value; a container kept as text is written as it is in the
    /// text.
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
            Value::Tuple(Seq::Items(items)) => {
                f.write_char('(')?;
                write_items(f, items)?;
                if items.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            Value::List(Seq::Items(items)) => {
                f.write_char('[')?;
                write_items(f, items)?;
                f.write_char(']')
            }
            Value::Dict(Seq::Items(items)) => {
                f.write_char('{')?;
                for (i, kv) in items.chunks(2).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match kv {
                        [k, v] => write!(f, "{k}: {v}")?,
                        [k] => write!(f, "{k}")?,
                        _ => {}
                    }
                }
                f.write_char('}')
            }
            Value::Tuple(Seq::Text(l)) | Value::List(Seq::Text(l)) | Value::Dict(Seq::Text(l)) => {
                f.write_str(l.text.get(l.start..l.end).unwrap_or_default())
            }
        }
    }
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Value<'_>]) -> fmt::Result {
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
pub fn parse(text: &str, allow_long_suffix: bool, max_depth: usize) -> Result<Value<'_>, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        allow_long_suffix,
        max_depth,
        kept: 0,
    };
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err("end of header"));
    }
    Ok(v)
}

pub struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    allow_long_suffix: bool,
    max_depth: usize,
    /// Values kept in containers so far (see [`MAX_KEPT_VALUES`]).
    kept: usize,
}

impl<'a> Parser<'a> {
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

    fn value(&mut self, depth: usize) -> Result<Value<'a>, Error> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => self.dict(depth + 1),
            Some(b'[') => {
                let (items, _) = self.sequence(b']', depth + 1)?;
                Ok(Value::List(items))
            }
            Some(b'(') => {
                let (items, trailing_comma) = self.sequence(b')', depth + 1)?;
                match items {
                    // `(x)` is a parenthesised `x`, not a tuple.
                    Seq::Items(mut one) if one.len() == 1 && !trailing_comma => {
                        self.kept -= 1;
                        Ok(one.pop().unwrap_or(Value::None))
                    }
                    items => Ok(Value::Tuple(items)),
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
            Err(Error::from(LimitError::TooDeep {
                limit: self.max_depth,
            }))
        } else {
            Ok(())
        }
    }

    /// Adds `v` to a container's `items`, or, once the container has too many or the parse
    /// keeps too many values, drops them all and marks the container to be kept as its text.
    fn keep(&mut self, items: &mut Option<Vec<Value<'a>>>, kept_before: usize, v: Value<'a>) {
        let Some(list) = items else {
            // Whatever `v` kept is dropped with it.
            self.kept = kept_before;
            return;
        };
        // A single item is always kept: `(x)` is `x` itself.
        if !list.is_empty() && (list.len() >= MAX_KEPT_ITEMS || self.kept >= MAX_KEPT_VALUES) {
            *items = None;
            self.kept = kept_before;
            return;
        }
        list.push(v);
        self.kept += 1;
    }

    /// The container that started at `start` (its opening bracket), at `depth`, now that its
    /// closing bracket has been read.
    fn seq(&self, items: Option<Vec<Value<'a>>>, start: usize, depth: usize) -> Seq<'a> {
        match items {
            Some(items) => Seq::Items(items),
            None => Seq::Text(Lazy {
                text: self.text,
                start,
                end: self.pos,
                depth,
                allow_long_suffix: self.allow_long_suffix,
                max_depth: self.max_depth,
            }),
        }
    }

    /// Items up to `close`; the flag says whether a comma followed the last item.
    fn sequence(&mut self, close: u8, depth: usize) -> Result<(Seq<'a>, bool), Error> {
        self.enter(depth)?;
        let start = self.pos;
        let kept_before = self.kept;
        self.pos += 1; // the opening bracket
        let mut items = Some(Vec::new());
        let mut trailing_comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok((self.seq(items, start, depth), trailing_comma));
            }
            let v = self.value(depth)?;
            self.keep(&mut items, kept_before, v);
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

    fn dict(&mut self, depth: usize) -> Result<Value<'a>, Error> {
        self.enter(depth)?;
        let start = self.pos;
        let kept_before = self.kept;
        self.pos += 1;
        let mut items = Some(Vec::new());
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(Value::Dict(self.seq(items, start, depth)));
            }
            let key = self.value(depth)?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.err("':'"));
            }
            self.pos += 1;
            let value = self.value(depth)?;
            // Keys and values are kept or dropped in pairs.
            if items
                .as_ref()
                .is_some_and(|l| l.len() + 2 > 2 * MAX_KEPT_ITEMS)
                || self.kept >= MAX_KEPT_VALUES && items.as_ref().is_some_and(|l| !l.is_empty())
            {
                items = None;
                self.kept = kept_before;
            }
            match &mut items {
                Some(list) => {
                    list.push(key);
                    list.push(value);
                    self.kept += 2;
                }
                // Whatever the pair kept is dropped with it.
                None => self.kept = kept_before,
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.err("',' or '}'")),
            }
        }
    }

    fn name(&mut self) -> Result<Value<'a>, Error> {
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

    fn int(&mut self) -> Result<Value<'a>, Error> {
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
    fn strings(&mut self) -> Result<Value<'a>, Error> {
        let mut out = self.string()?;
        loop {
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
            let more = self.string()?;
            let out = out.to_mut();
            out.try_reserve(more.len())
                .map_err(|_| oom(out.len() + more.len()))?;
            out.push_str(&more);
        }
    }

    /// One string literal's value: borrowed from the text when it has no backslash (nothing
    /// to decode), else decoded.
    fn string(&mut self) -> Result<Cow<'a, str>, Error> {
        let mut raw = false;
        if let Some(c @ (b'r' | b'R' | b'u' | b'U')) = self.peek() {
            raw = matches!(c, b'r' | b'R');
            self.pos += 1;
        }
        let start = self.pos;
        let quote = self.s[self.pos];
        let triple = self.s.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]);
        self.pos += if triple { 3 } else { 1 };
        let body = self.pos;
        let mut i = body;
        while let Some(&c) = self.s.get(i) {
            if c == b'\\' || c == 0 || (c == b'\n' && !triple) {
                break;
            }
            if c == quote {
                let len = if triple { 3 } else { 1 };
                if self.s.get(i..i + len) == Some(&[quote; 3][..len]) {
                    // Both ends are ASCII quotes, so char boundaries.
                    if let Some(text) = self.text.get(body..i) {
                        self.pos = i + len;
                        return Ok(Cow::Borrowed(text));
                    }
                    break;
                }
            }
            i += 1;
        }
        // Decoding never makes a literal longer than its text (an escape gives one character
        // of at most 4 bytes from 2 to 10): one fallible reservation up to the closing quote.
        let mut out = String::new();
        let mut end = i;
        while let Some(&c) = self.s.get(end) {
            if c == quote && (!triple || self.s.get(end..end + 3) == Some(&[quote; 3][..])) {
                break;
            }
            end += if c == b'\\' { 2 } else { 1 };
        }
        let len = end.min(self.s.len()) - body;
        out.try_reserve_exact(len).map_err(|_| oom(len))?;
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(self.err("a closing quote"));
            };
            if c == quote {
                if !triple {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                if self.s.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]) {
                    self.pos += 3;
                    return Ok(Cow::Owned(out));
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
                self.escape(&mut out)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Value<'_>, Error> {
        parse(s, true, 32)
    }

    #[test]
    fn parses_the_header_numpy_writes() {
        let v = p("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }     \n").unwrap();
        assert_eq!(
            v,
            Value::Dict(Seq::Items(vec![
                Value::Str("descr".into()),
                Value::Str("<f8".into()),
                Value::Str("fortran_order".into()),
                Value::Bool(false),
                Value::Str("shape".into()),
                Value::Tuple(Seq::Items(vec![Value::Int(3)])),
            ]))
        );
    }

    #[test]
    fn parenthesised_value_is_not_a_tuple() {
        assert_eq!(p("(3)").unwrap(), Value::Int(3));
        assert_eq!(
            p("(3,)").unwrap(),
            Value::Tuple(Seq::Items(vec![Value::Int(3)]))
        );
        assert_eq!(p("()").unwrap(), Value::Tuple(Seq::Items(vec![])));
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
            parse(&deep, false, 64).map_err(Error::into_detail),
            Err(Detail::Limit(LimitError::TooDeep { limit: 64 }))
        ));
        let ok = "[".repeat(10) + &"]".repeat(10);
        let parsed = parse(&ok, false, 64).unwrap();
        assert_eq!(
            format!("{parsed:?}").matches("List").count(),
            10,
            "{parsed:?}"
        );
    }

    #[test]
    fn strings_without_escapes_borrow_from_the_text() {
        let text = "('abc', 'a\\tb', 'x' 'y', r'\\d', '''q''')";
        let Value::Tuple(Seq::Items(items)) = p(text).unwrap() else {
            panic!()
        };
        let borrowed: Vec<bool> = items
            .iter()
            .map(|v| matches!(v, Value::Str(Cow::Borrowed(_))))
            .collect();
        assert_eq!(borrowed, [true, false, false, false, true]);
        let strs: Vec<String> = items.iter().map(|v| v.to_string()).collect();
        assert_eq!(strs, ["'abc'", "'a\\tb'", "'xy'", "'\\\\d'", "'q'"]);
    }

    #[test]
    fn large_containers_are_kept_as_text_and_parsed_again_when_iterated() {
        // 1000 items: more than a container keeps.
        let items: Vec<String> = (0..1000).map(|i| format!("('f{i}', [{i}, 'x'])")).collect();
        let text = format!("[{}]", items.join(", "));
        let v = p(&text).unwrap();
        let Value::List(seq @ Seq::Text(_)) = &v else {
            panic!("{v:?}")
        };
        assert_eq!(v.to_string(), text);
        let back: Vec<String> = seq.iter().map(|v| v.unwrap().to_string()).collect();
        let want: Vec<String> = (0..1000).map(|i| format!("('f{i}', [{i}, 'x'])")).collect();
        assert_eq!(back, want);
        assert!(seq.up_to(999).unwrap().is_none());
        assert_eq!(seq.up_to(1000).unwrap().unwrap().len(), 1000);
        // A large dict, key and value alternating, and a large tuple.
        let entries: Vec<String> = (0..100).map(|i| format!("'k{i}': ({i},)")).collect();
        let text = format!("{{{}}}", entries.join(", "));
        let Value::Dict(seq @ Seq::Text(_)) = p(&text).unwrap() else {
            panic!()
        };
        let flat: Vec<String> = seq.iter().map(|v| v.unwrap().to_string()).collect();
        assert_eq!(flat.len(), 200);
        assert_eq!((flat[198].as_str(), flat[199].as_str()), ("'k99'", "(99,)"));
        let text = format!("({})", "7, ".repeat(70));
        let Value::Tuple(seq @ Seq::Text(_)) = p(&text).unwrap() else {
            panic!()
        };
        assert_eq!(seq.iter().count(), 70);
        // Errors inside a large container are found by the first pass.
        let text = format!("[{}, (1 2)]", "0, ".repeat(100));
        assert!(p(&text).is_err());
        // Many small containers: past the budget of kept values, they are kept as text too,
        // and still read back the same.
        let inner = format!("[{}]", ["[1, 2, 3]"; 60].join(", "));
        let text = format!("[{}]", [inner.as_str(); 20].join(", "));
        // 20 x 60 x 4 values: more than the budget, so the first inner lists are kept and the
        // later ones kept as text; all read back the same.
        let Value::List(Seq::Items(outer)) = p(&text).unwrap() else {
            panic!()
        };
        assert!(matches!(outer[0], Value::List(Seq::Items(_))));
        for v in &outer {
            assert_eq!(v.to_string(), inner);
        }
        let Value::List(last @ Seq::Text(_)) = &outer[19] else {
            panic!()
        };
        assert_eq!(last.iter().count(), 60);
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
