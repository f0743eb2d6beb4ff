//! Selections in numpy's own index syntax (`a.npy[10:20, ::2]`): slices with any steps,
//! negative ones as numpy means them, single indices (negative from the end), `...` and
//! `None` (a new axis), made into the library's region selection for an array of a given shape.

use crate::fail::{Fail, Res};
use ndarray::SliceInfoElem;

/// One item of a selection, as written.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Index(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Ellipsis,
    NewAxis,
}

/// Splits `FILE[SELECTION]` (`FILE` may be `FILE:MEMBER`) into its parts; `None` when
/// `operand` does not end with a bracketed selection.
pub fn split(operand: &str) -> Option<(&str, &str)> {
    let inner = operand.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    Some((&inner[..open], &inner[open + 1..]))
}

/// The region selection `text` (what is between the brackets) names in an array of `shape`.
pub fn resolve(text: &str, shape: &[usize]) -> Res<Vec<SliceInfoElem>> {
    let items = parse(text)?;
    let bad = |why: String| Fail::usage(format!("[{text}]: {why}"));
    let indexed = items
        .iter()
        .filter(|i| matches!(i, Item::Index(_) | Item::Slice(..)))
        .count();
    if indexed > shape.len() {
        return Err(bad(format!(
            "too many indices for array: array is {}-dimensional, but {indexed} were indexed",
            shape.len()
        )));
    }
    if items.iter().filter(|i| **i == Item::Ellipsis).count() > 1 {
        return Err(bad(
            "an index can only have a single ellipsis ('...')".into()
        ));
    }
    let full = SliceInfoElem::Slice {
        start: 0,
        end: None,
        step: 1,
    };
    let mut out = Vec::new();
    let mut axis = 0;
    for item in &items {
        match *item {
            Item::NewAxis => out.push(SliceInfoElem::NewAxis),
            Item::Ellipsis => {
                for _ in 0..shape.len() - indexed {
                    out.push(full);
                    axis += 1;
                }
            }
            Item::Index(i) => {
                let n = shape[axis] as i64;
                let at = if i < 0 { i + n } else { i };
                if !(0..n).contains(&at) {
                    return Err(bad(format!(
                        "index {i} is out of bounds for axis {axis} with size {n}"
                    )));
                }
                out.push(SliceInfoElem::Index(at as isize));
                axis += 1;
            }
            Item::Slice(start, stop, step) => {
                out.push(slice(start, stop, step, shape[axis]).map_err(bad)?);
                axis += 1;
            }
        }
    }
    // Axes not named are taken whole, as numpy does.
    out.extend(std::iter::repeat_n(full, shape.len() - axis));
    Ok(out)
}

/// numpy's `slice(start, stop, step)` on an axis of length `n` (Python's `slice.indices`),
/// as ndarray's slice of the same elements: ndarray's negative steps walk its range from the
/// end, so the range is the one the elements span.
fn slice(
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
    n: usize,
) -> Result<SliceInfoElem, String> {
    let n = n as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v + n).max(lower),
        Some(v) => v.min(upper),
    };
    let first = clamp(start, if step > 0 { 0 } else { n - 1 });
    let stop = clamp(stop, if step > 0 { n } else { -1 });
    let count = if step > 0 {
        (stop - first + step - 1).max(0) / step
    } else {
        (first - stop - step - 1).max(0) / -step
    };
    if count == 0 {
        return Ok(SliceInfoElem::Slice {
            start: 0,
            end: Some(0),
            step: 1,
        });
    }
    let last = first + (count - 1) * step;
    let (lo, hi) = if step > 0 {
        (first, last + 1)
    } else {
        (last, first + 1)
    };
    Ok(SliceInfoElem::Slice {
        start: lo as isize,
        end: Some(hi as isize),
        step: step as isize,
    })
}

/// A Python integer literal in decimal: an optional sign, then digits with single
/// underscores between them (`5_000_000_000`).
fn python_int(t: &str) -> Option<i64> {
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t).trim_start();
    let bytes = digits.as_bytes();
    let valid = bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes.iter().all(|&b| b.is_ascii_digit() || b == b'_')
        && !digits.contains("__");
    if !valid {
        return None;
    }
    let plain: String = digits.chars().filter(|&c| c != '_').collect();
    let value: i64 = plain.parse().ok()?;
    Some(if t.starts_with('-') { -value } else { value })
}

/// The items of `text`, comma-separated (a trailing comma allowed, as in Python).
fn parse(text: &str) -> Res<Vec<Item>> {
    let bad = |part: &str, why: &str| Fail::usage(format!("[{text}]: {part:?} {why}"));
    let mut parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.last() == Some(&"") {
        parts.pop();
    }
    let int = |part: &str, t: &str| -> Res<Option<i64>> {
        if t.is_empty() {
            return Ok(None);
        }
        python_int(t)
            .map(Some)
            .ok_or_else(|| bad(part, "is not an integer, a slice, '...' or None"))
    };
    parts
        .into_iter()
        .map(|part| {
            Ok(match part {
                "" => return Err(bad(part, "is empty")),
                "..." | "Ellipsis" => Item::Ellipsis,
                "None" | "np.newaxis" | "numpy.newaxis" => Item::NewAxis,
                _ if part.contains(':') => {
                    let fields: Vec<&str> = part.split(':').map(str::trim).collect();
                    if fields.len() > 3 {
                        return Err(bad(part, "has more than two colons"));
                    }
                    let get = |k: usize| fields.get(k).map_or(Ok(None), |t| int(part, t));
                    Item::Slice(get(0)?, get(1)?, get(2)?)
                }
                _ => Item::Index(int(part, part)?.unwrap_or_default()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions `elem` selects along an axis of length `n`, as ndarray's slice gives them.
    fn positions(elem: SliceInfoElem, n: usize) -> Vec<usize> {
        let a = ndarray::Array1::from_iter(0..n);
        let info =
            ndarray::SliceInfo::<_, ndarray::Ix1, ndarray::IxDyn>::try_from(vec![elem]).unwrap();
        a.slice(info).iter().copied().collect()
    }

    /// Python's `list(range(n))[start:stop:step]`.
    fn python(start: Option<i64>, stop: Option<i64>, step: Option<i64>, n: usize) -> Vec<usize> {
        let n = n as i64;
        let step = step.unwrap_or(1);
        let norm = |v: i64| if v < 0 { v + n } else { v };
        let mut out = Vec::new();
        if step > 0 {
            let mut i = start.map_or(0, |v| norm(v).clamp(0, n));
            let stop = stop.map_or(n, |v| norm(v).clamp(0, n));
            while i < stop {
                out.push(i as usize);
                i += step;
            }
        } else {
            let mut i = start.map_or(n - 1, |v| norm(v).clamp(-1, n - 1));
            let stop = stop.map_or(-1, |v| norm(v).clamp(-1, n - 1));
            while i > stop {
                out.push(i as usize);
                i += step;
            }
        }
        out
    }

    #[test]
    fn slices_select_what_python_selects() {
        let ends = [
            None,
            Some(-12),
            Some(-5),
            Some(-1),
            Some(0),
            Some(1),
            Some(3),
            Some(7),
            Some(12),
        ];
        let steps = [
            None,
            Some(1),
            Some(2),
            Some(3),
            Some(-1),
            Some(-2),
            Some(-4),
        ];
        for n in [0, 1, 5, 7] {
            for start in ends {
                for stop in ends {
                    for step in steps {
                        let elem = slice(start, stop, step, n).unwrap();
                        let want = python(start, stop, step, n);
                        assert_eq!(
                            positions(elem, n),
                            want,
                            "{start:?}:{stop:?}:{step:?} of {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn items_ellipsis_and_errors() {
        let r = resolve("1, ..., ::-1", &[3, 4, 5, 6]).unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[0], SliceInfoElem::Index(1));
        assert_eq!(resolve("-1", &[3, 4]).unwrap()[0], SliceInfoElem::Index(2));
        assert_eq!(resolve("- 1", &[3, 4]).unwrap()[0], SliceInfoElem::Index(2));
        assert_eq!(resolve("1_0", &[30]).unwrap()[0], SliceInfoElem::Index(10));
        assert_eq!(resolve("+1", &[3]).unwrap()[0], SliceInfoElem::Index(1));
        assert_eq!(resolve("None, 2,", &[3]).unwrap().len(), 2);
        assert_eq!(resolve("", &[3, 4]).unwrap().len(), 2);
        assert_eq!(split("a.npz:w[1:2, ::3]"), Some(("a.npz:w", "1:2, ::3")));
        assert_eq!(split("a.npy"), None);
        for (text, why) in [
            ("1, 2, 3", "too many indices"),
            ("5", "index 5 is out of bounds for axis 0 with size 3"),
            ("::0", "slice step cannot be zero"),
            ("..., ...", "single ellipsis"),
            ("1.5", "is not an integer"),
            ("1__0", "is not an integer"),
            ("_1", "is not an integer"),
            ("1_", "is not an integer"),
            ("--1", "is not an integer"),
            ("1:2:3:4", "more than two colons"),
        ] {
            let e = resolve(text, &[3, 4]).unwrap_err();
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
    }
}
