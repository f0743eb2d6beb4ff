//! Selections in numpy's own index syntax (`a.npy[10:20, ::2]`): slices with any steps,
//! negative ones as numpy means them, single indices (negative from the end), `...` and
//! `None` (a new axis), made into the library's region selection for an array of a given shape.

use crate::fail::{Fail, Res};
use ndarray::SliceInfoElem;

/// One item of a selection, as written. Integers are Python's, of any size: kept in an
/// `i128`, saturated past its range (an index that far out is out of bounds either way, and
/// a slice clamps it as Python does).
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Index(i128),
    Slice(Option<i128>, Option<i128>, Option<i128>),
    Ellipsis,
    NewAxis,
}

/// Splits `FILE[SELECTION]` (`FILE` may be `FILE:MEMBER`) into its parts; `None` when
/// `operand` does not end with a bracketed selection. Only the last bracket is taken:
/// `a.npy[0][1]` splits into `a.npy[0]` and `1`.
pub fn split(operand: &str) -> Option<(&str, &str)> {
    let inner = operand.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    Some((&inner[..open], &inner[open + 1..]))
}

/// An axis of what a selection has made so far, as numpy's basic indexing makes it.
#[derive(Debug, Clone, Copy)]
enum Axis {
    /// `count` positions of the array's axis `axis`, from `first` in steps of `step`.
    Of {
        axis: usize,
        first: i128,
        step: i128,
        count: i128,
    },
    /// A new axis of length 1 (`None`).
    New,
}

impl Axis {
    fn len(self) -> i128 {
        match self {
            Axis::Of { count, .. } => count,
            Axis::New => 1,
        }
    }
}

/// The region selection `text` (what is between the brackets) names in an array of `shape`.
/// Chained selections (`0][1`, from `[0][1]`) apply in turn, each to what the one before
/// selected, as numpy applies them.
pub fn resolve(text: &str, shape: &[usize]) -> Res<Vec<SliceInfoElem>> {
    let mut axes: Vec<Axis> = (0..shape.len())
        .map(|axis| Axis::Of {
            axis,
            first: 0,
            step: 1,
            count: shape[axis] as i128,
        })
        .collect();
    // The array's axes an integer took away, with the position taken.
    let mut fixed: Vec<Option<i128>> = vec![None; shape.len()];
    let groups: Vec<&str> = text.split("][").collect();
    for group in &groups {
        if group.trim().is_empty() {
            return Err(Fail::usage(format!(
                "[{text}]: an empty [] selects nothing (numpy's a[] is a syntax error); [...] \
                 is the whole array"
            )));
        }
        axes = apply(group, &axes, &mut fixed)?;
    }
    // The array's axes in order, each as an index or a slice, and the new axes where they
    // stand among the kept ones (an index makes no axis, so where it goes among them does
    // not matter).
    let mut out = Vec::new();
    let mut next = 0;
    let take_fixed = |out: &mut Vec<SliceInfoElem>, upto: usize, next: &mut usize| {
        while *next < upto {
            if let Some(at) = fixed[*next] {
                out.push(SliceInfoElem::Index(at as isize));
            }
            *next += 1;
        }
    };
    for a in &axes {
        match *a {
            Axis::New => out.push(SliceInfoElem::NewAxis),
            Axis::Of {
                axis,
                first,
                step,
                count,
            } => {
                take_fixed(&mut out, axis, &mut next);
                out.push(slice_elem(first, step, count));
                next = axis + 1;
            }
        }
    }
    take_fixed(&mut out, shape.len(), &mut next);
    Ok(out)
}

/// Applies the selection `text` (one pair of brackets' worth) to `axes`, what the selections
/// before it made; the axes it makes. An integer on an axis of the array records the position
/// in `fixed`.
fn apply(text: &str, axes: &[Axis], fixed: &mut [Option<i128>]) -> Res<Vec<Axis>> {
    let items = parse(text)?;
    let bad = |why: String| Fail::usage(format!("[{text}]: {why}"));
    let indexed = items
        .iter()
        .filter(|i| matches!(i, Item::Index(_) | Item::Slice(..)))
        .count();
    if indexed > axes.len() {
        return Err(bad(format!(
            "too many indices for array: array is {}-dimensional, but {indexed} were indexed",
            axes.len()
        )));
    }
    if items.iter().filter(|i| **i == Item::Ellipsis).count() > 1 {
        return Err(bad(
            "an index can only have a single ellipsis ('...')".into()
        ));
    }
    let mut out = Vec::new();
    let mut k = 0;
    for item in &items {
        match *item {
            Item::NewAxis => out.push(Axis::New),
            Item::Ellipsis => {
                let n = axes.len() - indexed;
                out.extend_from_slice(&axes[k..k + n]);
                k += n;
            }
            Item::Index(i) => {
                let a = axes[k];
                let n = a.len();
                let at = if i < 0 { i + n } else { i };
                if !(0..n).contains(&at) {
                    return Err(bad(format!(
                        "index {i} is out of bounds for axis {k} with size {n}"
                    )));
                }
                if let Axis::Of {
                    axis, first, step, ..
                } = a
                {
                    fixed[axis] = Some(first + at * step);
                }
                k += 1;
            }
            Item::Slice(start, stop, step) => {
                let a = axes[k];
                let (s0, s1, count) = indices(start, stop, step, a.len()).map_err(bad)?;
                out.push(match a {
                    Axis::Of {
                        axis, first, step, ..
                    } => {
                        // One position or none: any step selects it; 1 keeps steps small.
                        let s1 = if count > 1 { s1 } else { 1 };
                        Axis::Of {
                            axis,
                            first: first + s0 * step,
                            step: step * s1,
                            count,
                        }
                    }
                    Axis::New if count == 1 => Axis::New,
                    Axis::New => {
                        return Err(bad("selects none of a new axis (an empty axis where \
                                        None made one), which this command does not make; \
                                        slice before the None"
                            .to_string()))
                    }
                });
                k += 1;
            }
        }
    }
    // Axes not named are taken whole, as numpy does.
    out.extend_from_slice(&axes[k..]);
    Ok(out)
}

/// Python's `slice(start, stop, step).indices(n)` with the count of positions: the first, the
/// step and how many. Integers past 64 bits clamp to them first, as `PySlice_Unpack` does
/// (numpy's indices are `ssize_t`s).
fn indices(
    start: Option<i128>,
    stop: Option<i128>,
    step: Option<i128>,
    n: i128,
) -> Result<(i128, i128, i128), String> {
    let clamp = |v: i128| v.clamp(i64::MIN.into(), i64::MAX.into());
    let step = step.map_or(1, |s| clamp(s).max(-i128::from(i64::MAX)));
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let adjust = |v: Option<i128>, none: i128| {
        let v = v.map_or(none, clamp);
        if v < 0 {
            let v = v + n;
            if v < 0 {
                if step < 0 {
                    -1
                } else {
                    0
                }
            } else {
                v
            }
        } else if v >= n {
            if step < 0 {
                n - 1
            } else {
                n
            }
        } else {
            v
        }
    };
    let (max, min) = (i128::from(i64::MAX), i128::from(i64::MIN));
    let first = adjust(start, if step < 0 { max } else { 0 });
    let stop = adjust(stop, if step < 0 { min } else { max });
    let count = if step < 0 {
        if stop < first {
            (first - stop - 1) / -step + 1
        } else {
            0
        }
    } else if first < stop {
        (stop - first - 1) / step + 1
    } else {
        0
    };
    Ok((first, step, count))
}

/// The positions `first + i * step` for `i` below `count` as ndarray's slice: ndarray's
/// negative steps walk its range from the end, so the range is the one the positions span.
fn slice_elem(first: i128, step: i128, count: i128) -> SliceInfoElem {
    if count == 0 {
        return SliceInfoElem::Slice {
            start: 0,
            end: Some(0),
            step: 1,
        };
    }
    let last = first + (count - 1) * step;
    let (lo, hi) = if step > 0 {
        (first, last + 1)
    } else {
        (last, first + 1)
    };
    // Positions are within the axis and steps at most its length (or 1, for one position).
    SliceInfoElem::Slice {
        start: lo as isize,
        end: Some(hi as isize),
        step: step as isize,
    }
}

/// A Python integer literal in decimal: an optional sign, then digits with single
/// underscores between them (`5_000_000_000`). Past `i128`, saturated.
fn python_int(t: &str) -> Option<i128> {
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t).trim_start();
    let bytes = digits.as_bytes();
    let valid = bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes.iter().all(|&b| b.is_ascii_digit() || b == b'_')
        && !digits.contains("__");
    if !valid {
        return None;
    }
    let value = bytes.iter().filter(|&&b| b != b'_').fold(0i128, |v, &b| {
        v.saturating_mul(10).saturating_add(i128::from(b - b'0'))
    });
    Some(if t.starts_with('-') { -value } else { value })
}

/// The items of `text`, comma-separated (a trailing comma allowed, as in Python).
fn parse(text: &str) -> Res<Vec<Item>> {
    let bad = |part: &str, why: &str| Fail::usage(format!("[{text}]: {part:?} {why}"));
    let mut parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.last() == Some(&"") {
        parts.pop();
    }
    let int = |part: &str, t: &str| -> Res<Option<i128>> {
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
                        let (first, step1, count) = indices(
                            start.map(i128::from),
                            stop.map(i128::from),
                            step.map(i128::from),
                            n as i128,
                        )
                        .unwrap();
                        let elem = slice_elem(first, step1, count);
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
        assert_eq!(resolve("...", &[3, 4]).unwrap().len(), 2);
        assert_eq!(
            resolve("0][1", &[3, 4]).unwrap()[..2],
            [SliceInfoElem::Index(0), SliceInfoElem::Index(1)]
        );
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
            ("", "an empty []"),
            ("0][", "an empty []"),
            ("0][0][0", "too many indices"),
        ] {
            let e = resolve(text, &[3, 4]).unwrap_err();
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
    }

    /// Random selections, chained ones and 64-bit extremes among them, against numpy's own
    /// indexing of the same array: where numpy answers, the same shape and elements (or, for
    /// an empty new axis alone, a refusal); where numpy raises, a usage error.
    #[test]
    fn random_selections_answer_as_numpy_does() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let ints = [
            "0",
            "1",
            "2",
            "-1",
            "-2",
            "3",
            "-4",
            "5",
            "+1",
            "- 3",
            "1_0",
            "9223372036854775807",
            "-9223372036854775807",
            "-9223372036854775808",
            "9223372036854775806",
            "9223372036854775808",
            "-9223372036854775809",
            "1000000000000000000000000000000",
            "-1000000000000000000000000000000",
        ];
        let garbage = ["1.5", "x", "1__0", "", "1:2:3:4", "1_"];
        let mut cases = Vec::new();
        for _ in 0..6000 {
            let shape: Vec<usize> = (0..rand(4)).map(|_| rand(6)).collect();
            let groups: Vec<String> = (0..1 + rand(2) + rand(2))
                .map(|_| {
                    let items: Vec<String> = (0..1 + rand(3))
                        .map(|_| match rand(20) {
                            0..=5 => ints[rand(ints.len())].to_string(),
                            6..=14 => {
                                let mut part = |none_odds: usize| match rand(none_odds) {
                                    0 => String::new(),
                                    _ => ints[rand(ints.len())].to_string(),
                                };
                                let (a, b, c) = (part(2), part(2), part(3));
                                if rand(3) == 0 {
                                    format!("{a}:{b}")
                                } else {
                                    format!("{a}:{b}:{c}")
                                }
                            }
                            15 | 16 => "...".to_string(),
                            17 | 18 => "None".to_string(),
                            _ => garbage[rand(garbage.len())].to_string(),
                        })
                        .collect();
                    items.join(if rand(2) == 0 { ", " } else { "," })
                })
                .collect();
            cases.push((shape, groups));
        }
        let input: String = cases
            .iter()
            .map(|(shape, groups)| {
                format!(
                    "{}\n",
                    serde_json::json!({ "shape": shape, "groups": groups })
                )
            })
            .collect();
        let script = "import sys, json, numpy as np\n\
            for line in sys.stdin:\n\
            \x20   c = json.loads(line)\n\
            \x20   a = np.arange(int(np.prod(c['shape'])), dtype=np.int64).reshape(c['shape'])\n\
            \x20   try:\n\
            \x20       r = np.asarray(eval('a' + ''.join('[' + g + ']' for g in c['groups'])))\n\
            \x20       print(json.dumps({'shape': list(r.shape), 'values': r.ravel().tolist()}))\n\
            \x20   except Exception as e:\n\
            \x20       print(json.dumps({'error': type(e).__name__}))\n";
        let mut child = std::process::Command::new("python3")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(out.status.success(), "numpy's side failed");
        let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), cases.len());
        let mut answered = 0;
        for ((shape, groups), want) in cases.iter().zip(&answers) {
            let text = groups.join("][");
            let case = format!("{shape:?}[{text}]: numpy {want}");
            let ours = resolve(&text, shape);
            if want.get("error").is_some() {
                let e = ours.expect_err(&case);
                assert_eq!(e.code, crate::fail::EXIT_USAGE, "{case}");
                continue;
            }
            let elems = match ours {
                Ok(elems) => elems,
                Err(e) if e.message.contains("none of a new axis") => {
                    assert_eq!(want["values"].as_array().unwrap().len(), 0, "{case}");
                    continue;
                }
                Err(e) => panic!("{case}: {e}"),
            };
            let n = shape.iter().product::<usize>() as i64;
            let a = ndarray::ArrayD::from_shape_vec(shape.clone(), (0..n).collect()).unwrap();
            let info =
                ndarray::SliceInfo::<_, ndarray::IxDyn, ndarray::IxDyn>::try_from(elems).unwrap();
            let got = a.slice(info);
            let want_shape: Vec<usize> = want["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            let want_values: Vec<i64> = want["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(got.shape(), &want_shape[..], "{case}");
            assert_eq!(
                got.iter().copied().collect::<Vec<_>>(),
                want_values,
                "{case}"
            );
            answered += 1;
        }
        // Enough of them are answers, not errors, to mean something.
        assert!(answered > 600, "{answered} answered");
    }
}
