//! The globals a pickle may name: numpy's array, dtype and scalar reconstruction (with the
//! ndarray subclasses whose pickles are plain data: `recarray`, `MaskedArray`) and Python's
//! data types, resolved by exact module and name. Nothing else is ever looked up.

/// A global the machine resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Global {
    /// `numpy._core.multiarray._reconstruct` (numpy 2) or `numpy.core.multiarray._reconstruct`
    /// (numpy 1), or `numpy.core._internal._reconstruct` (the name numpy before 1.0 wrote).
    Reconstruct,
    /// `numpy.ndarray`, the class `_reconstruct` is given.
    NdArray,
    /// `numpy.dtype`.
    DTypeClass,
    /// `numpy.rec.recarray` (numpy 2), `numpy.core.records.recarray` (numpy 1) or
    /// `numpy._core.records.recarray`: an ndarray subclass `_reconstruct` is given, rebuilt as
    /// the array it holds, marked a recarray.
    RecArray,
    /// `numpy.record` (`numpy.core.records.record` in numpy 1's pickles), the scalar type a
    /// recarray's dtype, and so its rows, are made from (`numpy.dtype(record)`).
    Record,
    /// `numpy.ma.core._mareconstruct`: a `MaskedArray` before its `BUILD`.
    MaReconstruct,
    /// `numpy.ma.MaskedArray` (numpy 2) or `numpy.ma.core.MaskedArray` (numpy 1), the class
    /// `_mareconstruct` is given.
    MaskedArray,
    /// `numpy._core.multiarray.scalar` / `numpy.core.multiarray.scalar`.
    Scalar,
    /// `numpy._core.numeric._frombuffer` / `numpy.core.numeric._frombuffer` (protocol 5).
    FromBuffer,
    /// `numpy._core._internal._convert_to_stringdtype_kwargs`.
    StringDType,
    /// `builtins.range` (Python 2's `__builtin__.xrange`): called, a range value; referred to,
    /// the class.
    Range,
    /// `builtins.complex`.
    Complex,
    /// `builtins.set`.
    Set,
    /// `builtins.frozenset`.
    FrozenSet,
    /// `builtins.bytearray`.
    ByteArray,
    /// `builtins.bytes` (protocols 0-2 write `b''` as `bytes()`).
    Bytes,
    /// `_codecs.encode` (protocols 0-2 write bytes as `encode(text, 'latin1')`).
    Encode,
    /// `datetime.date`.
    Date,
    /// `datetime.time`.
    Time,
    /// `datetime.datetime`.
    DateTime,
    /// `datetime.timedelta`.
    TimeDelta,
    /// `datetime.timezone`.
    TimeZone,
}

/// The global `module.name`, if it is one of those. Protocols 0 to 2 name builtins
/// `__builtin__.*` (Python 2's module, which Python 3 maps with `fix_imports`, as it maps
/// `__builtin__.xrange` to `builtins.range`).
pub(super) fn resolve(module: &str, name: &str, proto: u8) -> Option<Global> {
    let (module, name) = match (module, name) {
        ("__builtin__", "xrange") if proto < 3 => ("builtins", "range"),
        ("__builtin__", n) if proto < 3 => ("builtins", n),
        (m, n) => (m, n),
    };
    Some(match (module, name) {
        (
            "numpy._core.multiarray" | "numpy.core.multiarray" | "numpy.core._internal",
            "_reconstruct",
        ) => Global::Reconstruct,
        ("numpy._core.multiarray" | "numpy.core.multiarray", "scalar") => Global::Scalar,
        ("numpy._core.numeric" | "numpy.core.numeric", "_frombuffer") => Global::FromBuffer,
        ("numpy._core._internal", "_convert_to_stringdtype_kwargs") => Global::StringDType,
        ("numpy", "ndarray") => Global::NdArray,
        ("numpy", "dtype") => Global::DTypeClass,
        ("numpy.rec" | "numpy.core.records" | "numpy._core.records", "recarray") => {
            Global::RecArray
        }
        ("numpy" | "numpy.rec" | "numpy.core.records" | "numpy._core.records", "record") => {
            Global::Record
        }
        ("numpy.ma.core", "_mareconstruct") => Global::MaReconstruct,
        ("numpy.ma" | "numpy.ma.core", "MaskedArray") => Global::MaskedArray,
        ("builtins", "range") => Global::Range,
        ("builtins", "complex") => Global::Complex,
        ("builtins", "set") => Global::Set,
        ("builtins", "frozenset") => Global::FrozenSet,
        ("builtins", "bytearray") => Global::ByteArray,
        ("builtins", "bytes") => Global::Bytes,
        ("_codecs", "encode") => Global::Encode,
        ("datetime", "date") => Global::Date,
        ("datetime", "time") => Global::Time,
        ("datetime", "datetime") => Global::DateTime,
        ("datetime", "timedelta") => Global::TimeDelta,
        ("datetime", "timezone") => Global::TimeZone,
        _ => return None,
    })
}
