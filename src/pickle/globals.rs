//! The globals a pickle may name: numpy's array, dtype and scalar reconstruction and
//! Python's data types, resolved by exact module and name. Nothing else is ever looked up.

/// A global the machine resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Global {
    /// `numpy._core.multiarray._reconstruct` (numpy 2) or `numpy.core.multiarray._reconstruct`
    /// (numpy 1).
    Reconstruct,
    /// `numpy.ndarray`, the class `_reconstruct` is given.
    NdArray,
    /// `numpy.dtype`.
    DTypeClass,
    /// `numpy._core.multiarray.scalar` / `numpy.core.multiarray.scalar`.
    Scalar,
    /// `numpy._core.numeric._frombuffer` / `numpy.core.numeric._frombuffer` (protocol 5).
    FromBuffer,
    /// `numpy._core._internal._convert_to_stringdtype_kwargs`.
    StringDType,
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
}

/// The global `module.name`, if it is one of those. Protocols 0 to 2 name builtins
/// `__builtin__.*` (Python 2's module, which Python 3 maps with `fix_imports`).
pub(super) fn resolve(module: &str, name: &str, proto: u8) -> Option<Global> {
    let module = match module {
        "__builtin__" if proto < 3 => "builtins",
        m => m,
    };
    Some(match (module, name) {
        ("numpy._core.multiarray" | "numpy.core.multiarray", "_reconstruct") => Global::Reconstruct,
        ("numpy._core.multiarray" | "numpy.core.multiarray", "scalar") => Global::Scalar,
        ("numpy._core.numeric" | "numpy.core.numeric", "_frombuffer") => Global::FromBuffer,
        ("numpy._core._internal", "_convert_to_stringdtype_kwargs") => Global::StringDType,
        ("numpy", "ndarray") => Global::NdArray,
        ("numpy", "dtype") => Global::DTypeClass,
        ("builtins", "complex") => Global::Complex,
        ("builtins", "set") => Global::Set,
        ("builtins", "frozenset") => Global::FrozenSet,
        ("builtins", "bytearray") => Global::ByteArray,
        ("builtins", "bytes") => Global::Bytes,
        ("_codecs", "encode") => Global::Encode,
        _ => return None,
    })
}
