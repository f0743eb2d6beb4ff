//! A pickle reader that interprets data and never code: the pickles numpy writes after the
//! header of an object (`|O`) array, read into a tree of values.
//!
//! Python's unpickler calls whatever the pickle names (`GLOBAL`, `REDUCE`, `BUILD`), which is
//! why `np.load` refuses pickles unless `allow_pickle=True`. This machine runs the opcodes of
//! protocols 0 to 5 on its own objects instead, and resolves only the globals, by exact module
//! and name, that describe data (`GLOBALS`): numpy's array reconstruction
//! (`numpy._core.multiarray._reconstruct` / `numpy.core.multiarray._reconstruct`,
//! `numpy.ndarray`, `numpy.dtype` and its `BUILD` state), protocol 5's
//! `numpy._core.numeric._frombuffer`, numpy scalars (`numpy._core.multiarray.scalar`),
//! `StringDType` (`numpy._core._internal._convert_to_stringdtype_kwargs`) and the builtins
//! that pickles use for data (`complex`, `set`, `frozenset`, `bytearray`, `bytes`,
//! `_codecs.encode`). Any other global is a [`MismatchError::PickleGlobal`] naming it.
//!
//! Hostile pickles are bounded like every other input:
//!
//! - every declared length is read only as far as the bytes exist (`source`);
//! - objects live in an arena indexed by the opcodes, so memo references (`GET`, `BINGET`) and
//!   repeated values cost one index, not a copy; the memo is a map (sized by the `PUT`s
//!   really present, whatever index they claim);
//! - the tree is built from the arena at the end, by a recursion whose depth is limited
//!   (`Limits::max_depth`, at most [`MAX_DEPTH`]) and which refuses cycles (a list appended to
//!   itself through the memo) as it meets them;
//! - the values built may repeat shared ones (a list of one string repeated a million times
//!   is two bytes per repeat in the pickle), but their total size is bounded by
//!   [`expansion_limit`]: [`EXPANSION`] bytes per pickle byte plus [`EXPANSION_BASE`].
//!
//! [`MismatchError::PickleGlobal`]: crate::MismatchError::PickleGlobal

mod machine;
mod numpy;
mod source;
mod tree;
pub(crate) mod write;

pub(crate) use numpy::object_dtype;

use crate::dtype::DType;
use crate::error::Error;
use std::io::Read;

/// The deepest nesting of values [`Limits::max_depth`] can allow: Python's own default
/// recursion limit, about the deepest its pickler writes.
pub(crate) const MAX_DEPTH: usize = 1000;

/// Values built from a pickle take at most this many bytes per pickle byte...
pub(crate) const EXPANSION: u64 = 64;
/// ...plus this many.
pub(crate) const EXPANSION_BASE: u64 = 16 << 20;

/// The most bytes of values (their nodes, text, bytes and array data) a pickle of `len` bytes
/// may decode to.
pub(crate) fn expansion_limit(len: u64) -> u64 {
    len.saturating_mul(EXPANSION).saturating_add(EXPANSION_BASE)
}

/// The limits of one pickle read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The deepest nesting of containers (lists, tuples, dicts, sets, arrays of objects), the
    /// top-level array being depth 1; clamped to [`MAX_DEPTH`].
    pub(crate) max_depth: usize,
}

/// A value without children, as the pickle describes it.
#[derive(Debug)]
pub(crate) enum Leaf {
    None,
    Bool(bool),
    Int(i64),
    /// An int outside `i64`: little-endian two's complement, as `LONG1`/`LONG4` store it,
    /// minimal (no redundant sign byte).
    BigInt(Vec<u8>),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    /// A `str` holding surrogate code points, which a `String` cannot: its code points.
    CodePoints(Vec<u32>),
    Bytes(Vec<u8>),
    ByteArray(Vec<u8>),
    /// A numpy scalar: its dtype and its bytes, in that dtype's byte order.
    Scalar(DType, Vec<u8>),
    /// An array whose dtype holds no objects: its bytes, `itemsize` per element, in the
    /// dtype's byte order and in C or Fortran order as `ArrayMeta::fortran_order` says.
    Array(ArrayMeta, Vec<u8>),
}

/// What a reconstructed `numpy.ndarray` is, apart from its elements.
#[derive(Debug)]
pub(crate) struct ArrayMeta {
    /// The dtype; `'|O'` for object and `StringDType` arrays.
    pub(crate) dtype: DType,
    /// Whether numpy's dtype was a `StringDType` (the items are then `str`, or its NA object).
    #[allow(dead_code)]
    pub(crate) string_dtype: bool,
    pub(crate) shape: Vec<usize>,
    pub(crate) fortran_order: bool,
    /// Whether numpy swaps the array into native byte order as it unpickles it (an array
    /// rebuilt by `_reconstruct`, whose `__setstate__` swaps; not one of protocol 5's
    /// `_frombuffer`, which keeps the order).
    pub(crate) to_native: bool,
}

/// A container of items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seq {
    List,
    Tuple,
    Set,
    FrozenSet,
}

/// What the values of a pickle are built into, bottom up (children before their container).
pub(crate) trait Sink {
    /// A built value.
    type Value;
    fn leaf(&mut self, leaf: Leaf) -> Result<Self::Value, Error>;
    fn seq(&mut self, kind: Seq, items: Vec<Self::Value>) -> Result<Self::Value, Error>;
    /// A dict's (key, value) pairs in insertion order.
    fn dict(&mut self, pairs: Vec<(Self::Value, Self::Value)>) -> Result<Self::Value, Error>;
    /// An object (or `StringDType`) array's items, one per element in C (logical) order,
    /// whatever its `fortran_order`.
    fn object_array(
        &mut self,
        meta: ArrayMeta,
        items: Vec<Self::Value>,
    ) -> Result<Self::Value, Error>;
}

/// Reads one pickle from `reader`, up to and including its `STOP` opcode and not a byte more,
/// and builds its value into `sink`. `available` is how many bytes the reader still holds,
/// when known.
pub(crate) fn load<R: Read + ?Sized, S: Sink>(
    reader: &mut R,
    available: Option<u64>,
    limits: Limits,
    sink: &mut S,
) -> Result<S::Value, Error> {
    let mut source = source::Source::new(reader, available);
    let (arena, root, spent) = machine::run(&mut source)?;
    let len = source.offset;
    tree::build(arena, root, limits, expansion_limit(len), len, spent, sink)
}
