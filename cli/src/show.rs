//! `ndnpy show`: values printed as numpy's `print(array)` prints them.

use crate::fail::{Fail, Res};
use crate::print::{format_column, format_scalar, layout, shown, THRESHOLD};
use crate::source::{ArraySource, Target};
use std::ops::Range;

/// Prints `target` (all of it, `rows` of its first axis, or one record field).
pub fn run(target: &Target, rows: Option<Range<usize>>, field: Option<&str>) -> Res<()> {
    let mut src = ArraySource::open(target)?;
    let name = src.name.clone();
    if rows.is_some() || field.is_some() {
        let mut a = match rows {
            Some(r) => src.read_rows(r)?,
            None => src.read_all()?,
        };
        if let Some(f) = field {
            if a.dtype().as_structured().is_none() {
                return Err(Fail::usage(format!(
                    "{name}: --field needs a record array, this one is {}",
                    crate::ls::numpy_name(a.dtype())
                )));
            }
            a = a
                .field(f)
                .map_err(|e| Fail::usage(format!("{name}: {e}")))?;
        }
        src = ArraySource::from_array(&name, &a)?;
    }
    outln!("{}", render(&src)?);
    Ok(())
}

/// numpy's `str()` of the array behind `src`, reading only the elements shown.
pub fn render(src: &ArraySource) -> Res<String> {
    if src.info.header.dtype.has_object() {
        return Err(Fail::unsupported(
            &src.name,
            "holds pickled Python objects, which only numpy can read (np.load(..., allow_pickle=True))",
        ));
    }
    let shape = src.shape().to_vec();
    if shape.is_empty() {
        let a = src.elements(0..1)?;
        return format_scalar(&a, &src.name);
    }
    if src.len() == 0 {
        return Ok("[]".into());
    }
    let summarise = src.len() > THRESHOLD;
    let per_axis: Vec<Vec<usize>> = shape.iter().map(|&n| shown(n, summarise)).collect();
    let summarised: Vec<bool> = shape
        .iter()
        .zip(&per_axis)
        .map(|(&n, s)| s.len() < n)
        .collect();
    let shown_shape: Vec<usize> = per_axis.iter().map(Vec::len).collect();
    // The shown elements' storage positions, in C order of the shown shape.
    let total: usize = shown_shape.iter().product();
    let mut indices = Vec::with_capacity(total);
    let mut idx = vec![0usize; shape.len()];
    let mut full = vec![0usize; shape.len()];
    for _ in 0..total {
        for (k, &i) in idx.iter().enumerate() {
            full[k] = per_axis[k][i];
        }
        indices.push(src.storage_index(&full));
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < shown_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    let raw = src.gather_raw(&indices)?;
    let values = src.decode(raw, vec![total], false)?;
    let cells = format_column(&values, &src.name)?;
    Ok(layout(&cells, &shown_shape, &summarised))
}
