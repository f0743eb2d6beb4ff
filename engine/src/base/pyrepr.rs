//! Python's `repr` of strings and shape tuples, as numpy writes them into headers and as
//! error messages quote them. A leaf: it depends on nothing in the crate but the table of
//! printable characters.

use std::fmt::Write as _;

/// Appends Python's `repr()` of the string `s` to `out`.
///
/// Single quotes unless the string holds `'` and no `"`; backslash escapes for `\\`, `\t`,
/// `\n`, `\r` and the quote in use; `\xNN`, `\uNNNN` or `\UNNNNNNNN` for characters Python
/// does not consider printable; every other character as it is.
pub fn repr_str(s: &str, out: &mut String) {
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
    // An even count of edges at or below `cp` puts it in a printable run.
    crate::base::printable_table::NON_PRINTABLE_EDGES.partition_point(|&edge| edge <= cp) % 2 == 0
}

/// Python's repr of a shape tuple: `()`, `(3,)`, `(2, 3)`.
pub fn write_shape(shape: &[usize], out: &mut String) {
    out.push('(');
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{d}");
    }
    if shape.len() == 1 {
        out.push(',');
    }
    out.push(')');
}
