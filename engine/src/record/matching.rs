//! Matching a file's record dtype to a struct: the dtype a derived struct writes, the file's
//! fields found by name, layouts checked for zero-copy views, and the errors that say why not.

use super::*;
use crate::base::dtype::{DType, Field, Structured};
use crate::base::error::{wrong_dtype, Detail, Error, FormatError, MismatchError, UsageError};
use std::any::type_name;
use std::mem::size_of;

/// The packed record dtype of `fields` (name, dtype) in order, as numpy builds it from a
/// list of `(name, format)` pairs: each field right after the previous one, no padding.
///
/// # Panics
///
/// If two fields share a name, or the record's size overflows `isize::MAX` bytes. The derive
/// refuses duplicate names at compile time.
///
/// # Examples
///
/// ```
/// use ndnpy::record::derive_runtime::record_dtype;
/// use ndnpy::DType;
/// let d = record_dtype(vec![("a", DType::from_descr("'<i4'")?), ("b", DType::from_descr("'|S3'")?)]);
/// assert_eq!(d.descr(), "[('a', '<i4'), ('b', '|S3')]");
/// assert_eq!(d.itemsize(), 7);
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn record_dtype(fields: Vec<(&str, DType)>) -> DType {
    let mut offset = 0usize;
    let mut out = Vec::with_capacity(fields.len());
    for (name, dtype) in fields {
        let size = dtype.itemsize();
        out.push(Field {
            name: name.to_string(),
            title: None,
            dtype,
            offset,
        });
        offset = offset
            .checked_add(size)
            .filter(|&n| n <= isize::MAX as usize)
            .unwrap_or_else(|| panic!("record size overflows isize::MAX at field {name:?}"));
    }
    match Structured::new(out, offset) {
        Ok(r) => DType::Structured(r),
        Err(e) => panic!("invalid record type: {e}"),
    }
}

/// The record `found` is, after checking it has every field in `names` (by name or title).
///
/// # Errors
///
/// [`ErrorKind::DType`](crate::ErrorKind::DType) if `found` is not a record; [`ErrorKind::DType`](crate::ErrorKind::DType)
/// listing the names it lacks and the names it has.
///
/// # Examples
///
/// ```
/// use ndnpy::record::derive_runtime::record_of;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '<i4'), ('c', '<i4')]")?;
/// assert!(record_of::<()>(&d, &["c", "a"]).is_ok());
/// let err = record_of::<()>(&d, &["a", "b"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "record type () needs fields ['b'] that the file's record lacks; the file's fields are ['a', 'c']"
/// );
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn record_of<'d, T>(found: &'d DType, names: &[&str]) -> Result<&'d Structured, Error> {
    let DType::Structured(record) = found else {
        return Err(mismatch::<T>(found));
    };
    let absent: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| find_field(record, n).is_none())
        .collect();
    if !absent.is_empty() {
        return Err(missing::<T>(record, &absent));
    }
    Ok(record)
}

/// The record `found` is, after checking its size is `size_of::<T>()` (for views).
///
/// # Errors
///
/// [`ErrorKind::DType`](crate::ErrorKind::DType) if `found` is not a record; [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if its
/// size differs.
///
/// # Examples
///
/// ```
/// use ndnpy::record::derive_runtime::layout_of;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '<i4'), ('b', '<i4')]")?;
/// assert!(layout_of::<[i32; 2]>(&d).is_ok());
/// assert!(layout_of::<[i32; 3]>(&d).is_err());
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn layout_of<T>(found: &DType) -> Result<&Structured, Error> {
    let DType::Structured(record) = found else {
        return Err(mismatch::<T>(found));
    };
    if record.itemsize() != size_of::<T>() {
        return Err(layout::<T>(
            found,
            format!(
                "the file's records are {} bytes, the Rust type's {}",
                record.itemsize(),
                size_of::<T>()
            ),
        ));
    }
    Ok(record)
}

/// Checks that the field `name` of `record` (by name or title) lies at `offset` (the Rust
/// field's offset) and has `T`'s layout: a step of the derive's
/// [`PlainField::check_layout`].
///
/// # Errors
///
/// [`ErrorKind::CannotView`](crate::ErrorKind::CannotView) if the field is missing or elsewhere; the errors of `T`'s
/// [`PlainField::check_layout`].
///
/// # Examples
///
/// ```
/// use ndnpy::record::derive_runtime::layout_field;
/// use ndnpy::DType;
/// let d = DType::from_descr("[('a', '=i4'), ('b', '=i4')]")?;
/// let r = d.as_structured().unwrap();
/// assert!(layout_field::<i32, ()>(r, "b", 4).is_ok());
/// let err = layout_field::<i32, ()>(r, "b", 0).unwrap_err();
/// assert!(err.to_string().contains("field 'b' is at offset 4 in the file and 0 in the Rust type"));
/// # Ok::<(), ndnpy::Error>(())
/// ```
pub fn layout_field<T: PlainField, R>(
    record: &Structured,
    name: &str,
    offset: usize,
) -> Result<(), Error> {
    let whole = || DType::Structured(record.clone());
    let Some(field) = find_field(record, name) else {
        return Err(layout::<R>(
            &whole(),
            format!("the file has no field {}", quoted(name)),
        ));
    };
    if field.offset != offset {
        return Err(layout::<R>(
            &whole(),
            format!(
                "field {} is at offset {} in the file and {offset} in the Rust type",
                quoted(name),
                field.offset
            ),
        ));
    }
    T::check_layout(&field.dtype).map_err(|e| match e.detail() {
        Detail::Mismatch(MismatchError::Layout { reason, .. }) => {
            layout::<R>(&whole(), format!("in field {}: {reason}", quoted(name)))
        }
        Detail::Mismatch(MismatchError::DType { requested, found }) => layout::<R>(
            &whole(),
            format!(
                "field {} is {found} in the file, {requested} in the Rust type",
                quoted(name)
            ),
        ),
        _ => e,
    })
}

/// The field `name` of `record`, matched by name, then by title.
pub fn find_field<'r>(record: &'r Structured, name: &str) -> Option<&'r Field> {
    record.field(name).or_else(|| {
        record
            .fields()
            .iter()
            .find(|f| f.title.as_deref() == Some(name))
    })
}

pub fn missing<T>(record: &Structured, names: &[&str]) -> Error {
    MismatchError::MissingFields {
        field: String::new(),
        requested: type_name::<T>(),
        missing: names.iter().map(|n| n.to_string()).collect(),
        found: record.fields().iter().map(|f| f.name.clone()).collect(),
    }
    .into()
}

pub fn layout<T>(found: &DType, reason: String) -> Error {
    MismatchError::Layout {
        requested: type_name::<T>(),
        found: found.clone(),
        reason,
    }
    .into()
}

pub fn quoted(name: &str) -> String {
    let mut out = String::new();
    crate::base::pyrepr::repr_str(name, &mut out);
    out
}

pub fn mismatch<T>(found: &DType) -> Error {
    wrong_dtype(type_name::<T>(), found.clone())
}

/// A value error at this field (the record index and path are filled in on the way out).
pub fn invalid(reason: String) -> Error {
    FormatError::InvalidField {
        index: 0,
        field: String::new(),
        reason,
    }
    .into()
}

pub fn unfit(reason: String) -> Error {
    UsageError::FieldValue {
        index: 0,
        field: String::new(),
        reason,
    }
    .into()
}

pub fn short_slot(have: usize, need: usize) -> Error {
    unfit(format!(
        "the output holds {have} bytes for a field that needs more than {need}"
    ))
}

/// The first `N` bytes of `bytes`, or zeros if there are fewer.
#[inline(always)]
pub fn head<const N: usize>(bytes: &[u8]) -> [u8; N] {
    match bytes.first_chunk::<N>() {
        Some(b) => *b,
        None => [0; N],
    }
}

/// Copies `b` to the start of `out`.
#[inline(always)]
pub fn put(out: &mut [u8], b: &[u8]) -> Result<(), Error> {
    let have = out.len();
    match out.get_mut(..b.len()) {
        Some(dst) => {
            dst.copy_from_slice(b);
            Ok(())
        }
        None => Err(short_slot(have, b.len())),
    }
}
