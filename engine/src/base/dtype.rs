//! The dtype model: every `descr` form numpy writes, as values, and formatted byte-exact.
//!
//! A [`DType`] is a scalar type string (`'<f8'`, `'|S5'`, `'<M8[25ms]'`, …), a record
//! (a list of fields with offsets, padding and titles), or a sub-array `(dtype, shape)`.
//! [`DType::descr`] gives back exactly what `np.save` writes. Parsing and the checked
//! constructors (`DType::from_descr`, `Scalar::new`, `Structured::new`, `SubArray::new`) live in
//! `descr`, above the error module; this module depends on nothing but the Python-repr
//! helpers, so that errors can carry dtypes.
//!
//! # Examples
//!
//! ```
//! use ndnpy::dtype::{DType, ScalarKind};
//! let d = DType::from_descr("[('t', '<M8[us]'), ('v', '<f4', (3,))]")?;
//! let r = d.as_structured().unwrap();
//! assert_eq!(r.itemsize(), 8 + 12);
//! assert_eq!(r.fields()[0].dtype.as_scalar().unwrap().kind(), ScalarKind::Datetime);
//! assert_eq!(d.descr(), "[('t', '<M8[us]'), ('v', '<f4', (3,))]");
//! # Ok::<(), ndnpy::Error>(())
//! ```

use crate::base::pyrepr::{repr_str, write_shape};
use std::fmt::{self, Write as _};

/// The byte order of a scalar type.
///
/// ```
/// use ndnpy::dtype::ByteOrder;
/// let d = ndnpy::DType::from_descr("'>u2'")?;
/// assert_eq!(d.as_scalar().unwrap().byte_order(), ByteOrder::Big);
/// assert_eq!(d.with_byte_order(ByteOrder::Little).descr(), "'<u2'");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ByteOrder {
    /// Little-endian: `<`.
    Little,
    /// Big-endian: `>`.
    Big,
    /// Not applicable (one-byte numbers, bytes, void, objects): `|`.
    NotApplicable,
}

impl ByteOrder {
    /// The byte order of the machine this code runs on.
    ///
    /// ```
    /// use ndnpy::dtype::ByteOrder;
    /// assert_eq!(ByteOrder::NATIVE, if cfg!(target_endian = "little") {
    ///     ByteOrder::Little
    /// } else {
    ///     ByteOrder::Big
    /// });
    /// ```
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };

    /// The character numpy writes for this order: `<`, `>` or `|`.
    ///
    /// ```
    /// assert_eq!(ndnpy::dtype::ByteOrder::Big.as_char(), '>');
    /// ```
    pub fn as_char(self) -> char {
        match self {
            ByteOrder::Little => '<',
            ByteOrder::Big => '>',
            ByteOrder::NotApplicable => '|',
        }
    }

    /// Whether data in this order must be byte-swapped on this machine.
    ///
    /// ```
    /// use ndnpy::dtype::ByteOrder;
    /// assert!(!ByteOrder::NATIVE.needs_swap());
    /// assert!(!ByteOrder::NotApplicable.needs_swap());
    /// ```
    pub fn needs_swap(self) -> bool {
        self != ByteOrder::NATIVE && self != ByteOrder::NotApplicable
    }
}

/// The kind of a scalar type: the letter in its type string.
///
/// ```
/// use ndnpy::dtype::ScalarKind;
/// let kind = |descr| ndnpy::DType::from_descr(descr).map(|d| d.as_scalar().unwrap().kind());
/// assert_eq!(kind("'<M8[ns]'")?, ScalarKind::Datetime);
/// assert_eq!(kind("'|S5'")?, ScalarKind::Bytes);
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScalarKind {
    /// `b`: bool, one byte.
    Bool,
    /// `i`: signed integer.
    Int,
    /// `u`: unsigned integer.
    UInt,
    /// `f`: IEEE float (2, 4, 8 bytes) or x87 long double (12, 16 bytes).
    Float,
    /// `c`: complex, two floats.
    Complex,
    /// `S`: NUL-padded bytes.
    Bytes,
    /// `U`: UCS-4 text; the size is 4 bytes per character.
    Unicode,
    /// `V`: raw bytes.
    Void,
    /// `M`: datetime64.
    Datetime,
    /// `m`: timedelta64.
    Timedelta,
    /// `O`: a Python object (the array is pickled).
    Object,
}

impl ScalarKind {
    /// The kind of a typestr's letter (`'S'` and `'a'` are both bytes), as numpy reads it.
    #[doc(hidden)]
    pub fn from_letter(letter: char) -> Option<ScalarKind> {
        Some(match letter {
            'b' => ScalarKind::Bool,
            'i' => ScalarKind::Int,
            'u' => ScalarKind::UInt,
            'f' => ScalarKind::Float,
            'c' => ScalarKind::Complex,
            'S' | 'a' => ScalarKind::Bytes,
            'U' => ScalarKind::Unicode,
            'V' => ScalarKind::Void,
            'M' => ScalarKind::Datetime,
            'm' => ScalarKind::Timedelta,
            'O' => ScalarKind::Object,
            _ => return None,
        })
    }

    #[doc(hidden)]
    pub fn letter(self) -> char {
        match self {
            ScalarKind::Bool => 'b',
            ScalarKind::Int => 'i',
            ScalarKind::UInt => 'u',
            ScalarKind::Float => 'f',
            ScalarKind::Complex => 'c',
            ScalarKind::Bytes => 'S',
            ScalarKind::Unicode => 'U',
            ScalarKind::Void => 'V',
            ScalarKind::Datetime => 'M',
            ScalarKind::Timedelta => 'm',
            ScalarKind::Object => 'O',
        }
    }

    /// Whether the byte order is meaningful for this kind at this size.
    #[doc(hidden)]
    pub fn has_order(self, size: usize) -> bool {
        match self {
            ScalarKind::Bytes | ScalarKind::Void | ScalarKind::Object | ScalarKind::Bool => false,
            ScalarKind::Unicode => true,
            _ => size > 1,
        }
    }
}

/// A datetime64/timedelta64 unit.
///
/// ```
/// use ndnpy::dtype::TimeUnit;
/// let d = ndnpy::DType::from_descr("'<m8[us]'")?;
/// assert_eq!(d.as_scalar().unwrap().unit().map(|u| u.unit), Some(TimeUnit::Microseconds));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeUnit {
    /// `Y`
    Years,
    /// `M`
    Months,
    /// `W`
    Weeks,
    /// `D`
    Days,
    /// `h`
    Hours,
    /// `m`
    Minutes,
    /// `s`
    Seconds,
    /// `ms`
    Milliseconds,
    /// `us`
    Microseconds,
    /// `ns`
    Nanoseconds,
    /// `ps`
    Picoseconds,
    /// `fs`
    Femtoseconds,
    /// `as`
    Attoseconds,
}

impl TimeUnit {
    const ALL: [(TimeUnit, &'static str); 13] = [
        (TimeUnit::Years, "Y"),
        (TimeUnit::Months, "M"),
        (TimeUnit::Weeks, "W"),
        (TimeUnit::Days, "D"),
        (TimeUnit::Hours, "h"),
        (TimeUnit::Minutes, "m"),
        (TimeUnit::Seconds, "s"),
        (TimeUnit::Milliseconds, "ms"),
        (TimeUnit::Microseconds, "us"),
        (TimeUnit::Nanoseconds, "ns"),
        (TimeUnit::Picoseconds, "ps"),
        (TimeUnit::Femtoseconds, "fs"),
        (TimeUnit::Attoseconds, "as"),
    ];

    /// numpy's code for the unit (`"ns"`, `"D"`, …).
    ///
    /// ```
    /// assert_eq!(ndnpy::dtype::TimeUnit::Microseconds.code(), "us");
    /// ```
    pub fn code(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(u, _)| *u == self)
            .map_or("", |(_, c)| c)
    }

    #[doc(hidden)]
    pub fn from_code(code: &str) -> Option<TimeUnit> {
        let code = if code == "μs" { "us" } else { code };
        Self::ALL.iter().find(|(_, c)| *c == code).map(|(u, _)| *u)
    }
}

/// A datetime64/timedelta64 unit with its multiplier: the `[25ms]` in `'<M8[25ms]'`.
///
/// ```
/// use ndnpy::dtype::{DateTimeUnit, TimeUnit};
/// let d = ndnpy::DType::from_descr("'<M8[25ms]'")?;
/// let unit = d.as_scalar().unwrap().unit();
/// assert_eq!(unit, Some(DateTimeUnit { unit: TimeUnit::Milliseconds, multiplier: 25 }));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTimeUnit {
    /// The base unit.
    pub unit: TimeUnit,
    /// How many base units one tick is (1 for plain `[ms]`).
    pub multiplier: u32,
}

/// A scalar (non-record) dtype: kind, byte order, size in bytes and datetime unit.
///
/// ```
/// use ndnpy::dtype::{ByteOrder, ScalarKind};
/// let d = ndnpy::DType::from_descr("'<U7'")?;
/// let s = d.as_scalar().unwrap();
/// assert_eq!((s.kind(), s.byte_order(), s.size()), (ScalarKind::Unicode, ByteOrder::Little, 28));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scalar {
    #[doc(hidden)]
    pub kind: ScalarKind,
    #[doc(hidden)]
    pub order: ByteOrder,
    #[doc(hidden)]
    pub size: usize,
    #[doc(hidden)]
    pub unit: Option<DateTimeUnit>,
}

impl Scalar {
    /// A scalar of `kind` and `size` in this machine's byte order where the order matters
    /// (`'<i4'`, `'|i1'`, `'|S3'`, `'<U2'`), without a unit; `size` must be one numpy has.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    #[doc(hidden)]
    pub fn native(kind: ScalarKind, size: usize) -> Scalar {
        let order = if kind.has_order(size) {
            ByteOrder::NATIVE
        } else {
            ByteOrder::NotApplicable
        };
        Scalar {
            kind,
            order,
            size,
            unit: None,
        }
    }

    /// The kind.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("'<c16'")?;
    /// assert_eq!(d.as_scalar().unwrap().kind(), ndnpy::dtype::ScalarKind::Complex);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn kind(&self) -> ScalarKind {
        self.kind
    }

    /// The byte order.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("'>i4'")?;
    /// assert_eq!(d.as_scalar().unwrap().byte_order(), ndnpy::dtype::ByteOrder::Big);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn byte_order(&self) -> ByteOrder {
        self.order
    }

    /// The size of one element in bytes (4 per character for `U`).
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("'<U3'")?;
    /// assert_eq!(d.as_scalar().unwrap().size(), 12);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn size(&self) -> usize {
        self.size
    }

    /// The datetime unit (`None` for other kinds and for generic `'<M8'`).
    ///
    /// ```
    /// use ndnpy::{DType, dtype::TimeUnit};
    /// let d = DType::from_descr("'<M8[25ms]'")?;
    /// let unit = d.as_scalar().unwrap().unit().unwrap();
    /// assert_eq!((unit.unit, unit.multiplier), (TimeUnit::Milliseconds, 25));
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn unit(&self) -> Option<DateTimeUnit> {
        self.unit
    }

    fn write_type_str(&self, out: &mut String) {
        out.push(self.order.as_char());
        out.push(self.kind.letter());
        match self.kind {
            ScalarKind::Object => {}
            ScalarKind::Unicode => {
                let _ = write!(out, "{}", self.size / 4);
            }
            _ => {
                let _ = write!(out, "{}", self.size);
            }
        }
        if let Some(u) = self.unit {
            out.push('[');
            if u.multiplier != 1 {
                let _ = write!(out, "{}", u.multiplier);
            }
            out.push_str(u.unit.code());
            out.push(']');
        }
    }
}

/// One named field of a record dtype.
///
/// ```
/// let d = ndnpy::DType::from_descr("[(('Speed', 'v'), '<f4'), ('n', '<i8')]")?;
/// let f = &d.as_structured().unwrap().fields()[0];
/// assert_eq!((f.name.as_str(), f.title.as_deref(), f.offset), ("v", Some("Speed"), 0));
/// assert_eq!(f.dtype.descr(), "'<f4'");
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field's name (may be empty for a non-padding field).
    pub name: String,
    /// numpy's optional title (the `'aa'` in `(('aa', 'a'), '<i4')`).
    pub title: Option<String>,
    /// The field's dtype.
    pub dtype: DType,
    /// The byte offset of the field within one record.
    pub offset: usize,
}

/// A structured dtype: fields at offsets within records of a fixed size.
///
/// ```
/// let d = ndnpy::DType::from_descr("[('x', '<f8'), ('y', '<f8')]")?;
/// let r = d.as_structured().unwrap();
/// assert_eq!((r.fields().len(), r.itemsize()), (2, 16));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Structured {
    #[doc(hidden)]
    pub fields: Vec<Field>,
    #[doc(hidden)]
    pub itemsize: usize,
}

impl Structured {
    /// The fields in offset order (padding is not a field).
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("[('x', '<i4'), ('', '|V4'), ('y', '<f8')]")?;
    /// let r = d.as_structured().unwrap();
    /// assert_eq!(r.fields().iter().map(|f| f.offset).collect::<Vec<_>>(), [0, 8]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The size of one record in bytes, padding included.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("[('a', '<i2'), ('', '|V6')]")?;
    /// assert_eq!(d.as_structured().unwrap().itemsize(), 8);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn itemsize(&self) -> usize {
        self.itemsize
    }

    /// The field named `name`, if any.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("[('a', '<i2'), ('b', '>f4')]")?;
    /// assert_eq!(d.as_structured().unwrap().field("b").unwrap().offset, 2);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A sub-array dtype: `shape` elements of `base` (a field `('x', '<i4', (2, 3))`).
///
/// ```
/// let d = ndnpy::DType::from_descr("[('pos', '<f4', (3,))]")?;
/// let field = &d.as_structured().unwrap().fields()[0];
/// let ndnpy::DType::SubArray(s) = &field.dtype else { unreachable!() };
/// assert_eq!((s.base().descr().as_str(), s.shape()), ("'<f4'", &[3][..]));
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubArray {
    #[doc(hidden)]
    pub base: DType,
    #[doc(hidden)]
    pub shape: Vec<usize>,
    #[doc(hidden)]
    pub itemsize: usize,
}

impl SubArray {
    /// The element dtype.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("('<f8', (2, 3))")?;
    /// let DType::SubArray(s) = &d else { unreachable!() };
    /// assert_eq!(s.base().descr(), "'<f8'");
    /// # use ndnpy::DType;
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn base(&self) -> &DType {
        &self.base
    }

    /// The sub-array's shape.
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("('<f8', (2, 3))")?;
    /// let ndnpy::DType::SubArray(s) = &d else { unreachable!() };
    /// assert_eq!(s.shape(), [2, 3]);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}

/// A numpy dtype, as described by an `.npy` header's `descr`.
///
/// Display gives the descr text exactly as `np.save` writes it.
///
/// # Examples
///
/// ```
/// use ndnpy::DType;
/// let d = DType::from_descr("[('x', '<i4', (2,)), ('y', ('<f8', (5,)), (2,))]")?;
/// assert_eq!(d.itemsize(), 8 + 80);
/// assert_eq!(d.to_string(), "[('x', '<i4', (2,)), ('y', ('<f8', (5,)), (2,))]");
/// // Lenient spellings are normalised to what numpy writes:
/// assert_eq!(DType::from_descr("'float32'")?.descr(), DType::from_descr("'=f4'")?.descr());
/// # Ok::<(), ndnpy::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// A type string such as `'<f8'`.
    Scalar(Scalar),
    /// A structured dtype (a list of fields).
    Structured(Structured),
    /// A `(dtype, shape)` sub-array.
    SubArray(Box<SubArray>),
}

impl DType {
    /// The descr text `np.save` writes for this dtype (the Python repr of `dtype.descr` for
    /// records, of `dtype.str` otherwise).
    ///
    /// ```
    /// let d = ndnpy::DType::from_descr("[(('title', 'a'), '>i2'), ('', '|V2')]")?;
    /// assert_eq!(d.descr(), "[(('title', 'a'), '>i2'), ('', '|V2')]");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn descr(&self) -> String {
        let mut out = String::new();
        self.write_descr(&mut out);
        out
    }

    #[doc(hidden)]
    pub fn write_descr(&self, out: &mut String) {
        match self {
            DType::Scalar(s) => {
                out.push('\'');
                s.write_type_str(out);
                out.push('\'');
            }
            DType::SubArray(sub) => {
                out.push('(');
                sub.base.write_descr(out);
                out.push_str(", ");
                write_shape(&sub.shape, out);
                out.push(')');
            }
            DType::Structured(r) => {
                out.push('[');
                let mut pos = 0usize;
                let mut first = true;
                let mut sep = |out: &mut String| {
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                };
                for f in &r.fields {
                    if f.offset > pos {
                        sep(out);
                        let _ = write!(out, "('', '|V{}')", f.offset - pos);
                    }
                    sep(out);
                    out.push('(');
                    match &f.title {
                        Some(t) => {
                            out.push('(');
                            repr_str(t, out);
                            out.push_str(", ");
                            repr_str(&f.name, out);
                            out.push(')');
                        }
                        None => repr_str(&f.name, out),
                    }
                    out.push_str(", ");
                    match &f.dtype {
                        DType::SubArray(sub) => {
                            sub.base.write_descr(out);
                            out.push_str(", ");
                            write_shape(&sub.shape, out);
                        }
                        other => other.write_descr(out),
                    }
                    out.push(')');
                    pos = f.offset + f.dtype.itemsize();
                }
                if r.itemsize > pos {
                    sep(out);
                    let _ = write!(out, "('', '|V{}')", r.itemsize - pos);
                }
                out.push(']');
            }
        }
    }

    /// The size of one element in bytes.
    ///
    /// ```
    /// assert_eq!(ndnpy::DType::from_descr("'<U5'")?.itemsize(), 20);
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn itemsize(&self) -> usize {
        match self {
            DType::Scalar(s) => s.size,
            DType::Structured(r) => r.itemsize,
            DType::SubArray(s) => s.itemsize,
        }
    }

    /// The scalar, if this is one.
    ///
    /// ```
    /// assert!(ndnpy::DType::from_descr("'<f8'")?.as_scalar().is_some());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match self {
            DType::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The structured dtype (fields), if this is one.
    ///
    /// ```
    /// assert!(ndnpy::DType::from_descr("[('a', '<f8')]")?.as_structured().is_some());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn as_structured(&self) -> Option<&Structured> {
        match self {
            DType::Structured(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the dtype holds Python objects anywhere (numpy then pickles the array).
    ///
    /// ```
    /// assert!(ndnpy::DType::from_descr("[('a', '|O'), ('b', '<i4')]")?.has_object());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn has_object(&self) -> bool {
        match self {
            DType::Scalar(s) => s.kind == ScalarKind::Object,
            DType::Structured(r) => r.fields.iter().any(|f| f.dtype.has_object()),
            DType::SubArray(s) => s.base.has_object(),
        }
    }

    /// The same dtype with every multi-byte scalar in `order` (how the data would be stored
    /// in that byte order).
    ///
    /// ```
    /// use ndnpy::{dtype::ByteOrder, DType};
    /// let d = DType::from_descr("[('a', '<i4'), ('b', '|u1')]")?;
    /// assert_eq!(d.with_byte_order(ByteOrder::Big).descr(), "[('a', '>i4'), ('b', '|u1')]");
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    pub fn with_byte_order(&self, order: ByteOrder) -> DType {
        match self {
            DType::Scalar(s) => {
                let mut s = s.clone();
                if s.order != ByteOrder::NotApplicable && order != ByteOrder::NotApplicable {
                    s.order = order;
                }
                DType::Scalar(s)
            }
            DType::Structured(r) => DType::Structured(Structured {
                fields: r
                    .fields
                    .iter()
                    .map(|f| Field {
                        dtype: f.dtype.with_byte_order(order),
                        ..f.clone()
                    })
                    .collect(),
                itemsize: r.itemsize,
            }),
            DType::SubArray(s) => DType::SubArray(Box::new(SubArray {
                base: s.base.with_byte_order(order),
                ..(**s).clone()
            })),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.descr())
    }
}

/// The most dimensions of a numpy array, and of a sub-array dtype (`NPY_MAXDIMS`).
#[doc(hidden)]
pub const MAX_DIMS: usize = 64;
