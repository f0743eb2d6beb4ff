//! A pickle reader that interprets data and never code: the pickles numpy writes after the
//! header of an object (`|O`) array, read into a tree of values.
//!
//! Python's unpickler calls whatever the pickle names (`GLOBAL`, `REDUCE`, `BUILD`), which is
//! why `np.load` refuses pickles unless `allow_pickle=True`. This machine runs the opcodes of
//! protocols 0 to 5 on its own objects instead, and resolves only the globals, by exact module
//! and name, that describe data (`GLOBALS`): numpy's array reconstruction
//! (`numpy._core.multiarray._reconstruct` / `numpy.core.multiarray._reconstruct`,
//! `numpy.ndarray`, `numpy.dtype` and its `BUILD` state; `numpy.core._internal._reconstruct`,
//! the name numpy before 1.0 wrote), protocol 5's
//! `numpy._core.numeric._frombuffer`, numpy scalars (`numpy._core.multiarray.scalar`),
//! `StringDType` (`numpy._core._internal._convert_to_stringdtype_kwargs`), the ndarray
//! subclasses whose pickles are plain data (`numpy.rec.recarray` with `numpy.record`, marked as
//! such; `numpy.ma.core._mareconstruct` with `numpy.ma.MaskedArray`) and the
//! builtins that pickles use for data (`complex`, `set`, `frozenset`, `bytearray`, `bytes`,
//! `_codecs.encode`, `range`, Python 2's `xrange`; the class `range` may also be a value), and
//! `datetime`'s `date`, `time`, `datetime`, `timedelta` and `timezone` (`time`).
//! Any other global is an [`ErrorKind::DType`](crate::ErrorKind::DType) error naming it.
//!
//! Hostile pickles are bounded like every other input:
//!
//! - every declared length is read only as far as the bytes exist (`source`);
//! - objects live in an arena indexed by the opcodes, so memo references (`GET`, `BINGET`) and
//!   repeated values cost one index, not a copy; the memo is a vector and a map (sized by the `PUT`s
//!   really present, whatever index they claim);
//! - the tree is built from the arena at the end, by a loop over an explicit stack (`tree`)
//!   whose depth is limited (`Limits::max_depth`, at most [`MAX_DEPTH`]) and which refuses
//!   cycles (a list appended to itself through the memo) as it meets them;
//! - the values built may repeat shared ones (a list of one string repeated a million times
//!   is two bytes per repeat in the pickle), but their total size is bounded by
//!   [`expansion_limit`]: [`EXPANSION`] bytes per pickle byte plus [`EXPANSION_BASE`].
//!

mod globals;
mod machine;
mod numpy;
mod source;
mod time;
mod tree;
pub(crate) mod write;

pub(crate) use numpy::object_dtype;

use ndnpy_engine::format::header::PickleEncoding;

use ndnpy_engine::base::dtype::DType;
use ndnpy_engine::base::error::Error;
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
    /// What a Python 2 `str` becomes.
    pub(crate) encoding: PickleEncoding,
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
    /// A numpy scalar: its dtype and its bytes, in that dtype's byte order, and whether it is
    /// a `numpy.record` (a recarray's row).
    Scalar(DType, Vec<u8>, bool),
    /// An array whose dtype holds no objects: its bytes, `itemsize` per element, in the
    /// dtype's byte order and in C or Fortran order as `ArrayMeta::fortran_order` says.
    Array(ArrayMeta, Vec<u8>),
    /// A `range(start, stop, step)` (`step` is not 0).
    Range(i64, i64, i64),
    /// A class referred to as a value, by its module and name (`builtins`, `range`).
    Class(&'static str, &'static str),
    /// A `datetime` value: a [`PyValue`](crate::PyValue) `Date`, `Time`, `DateTime`,
    /// `TimeDelta` or `TimeZone`.
    Time(crate::array::dynamic::PyValue),
    /// A `MaskedArray` of a scalar dtype: its data as [`Leaf::Array`]'s, its mask (one byte
    /// per element, in the data's order) and its fill value (a 0-d array), if set.
    Masked {
        data: (ArrayMeta, Vec<u8>),
        mask: Vec<u8>,
        fill: Option<(ArrayMeta, Vec<u8>)>,
    },
}

/// What a reconstructed `numpy.ndarray` is, apart from its elements.
#[derive(Debug)]
pub(crate) struct ArrayMeta {
    /// The dtype; `'|O'` for object and `StringDType` arrays.
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<usize>,
    pub(crate) fortran_order: bool,
    /// Whether numpy swaps the array into native byte order as it unpickles it (an array
    /// rebuilt by `_reconstruct`, whose `__setstate__` swaps; not one of protocol 5's
    /// `_frombuffer`, which keeps the order).
    pub(crate) to_native: bool,
    /// A `numpy.recarray`.
    pub(crate) recarray: bool,
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
    let (arena, root, spent) = machine::run::<numpy::Numpy, _>(&mut source)?;
    let len = source.offset;
    tree::build(arena, root, limits, expansion_limit(len), len, spent, sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds values as text, to look at the tree a pickle gives.
    struct Text;

    impl Sink for Text {
        type Value = String;
        fn leaf(&mut self, leaf: Leaf) -> Result<String, Error> {
            Ok(match leaf {
                Leaf::Str(s) => format!("{s:?}"),
                Leaf::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(&b)),
                other => format!("{other:?}"),
            })
        }
        fn seq(&mut self, kind: Seq, items: Vec<String>) -> Result<String, Error> {
            Ok(format!("{kind:?}[{}]", items.join(", ")))
        }
        fn dict(&mut self, pairs: Vec<(String, String)>) -> Result<String, Error> {
            let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            Ok(format!("{{{}}}", pairs.join(", ")))
        }
        fn object_array(&mut self, meta: ArrayMeta, items: Vec<String>) -> Result<String, Error> {
            Ok(format!("array{:?}[{}]", meta.shape, items.join(", ")))
        }
    }

    fn load_text(pickle: &[u8]) -> Result<String, Error> {
        let limits = Limits {
            max_depth: 16,
            encoding: PickleEncoding::Latin1,
        };
        let mut r = pickle;
        let text = load(&mut r, Some(pickle.len() as u64), limits, &mut Text)?;
        assert!(r.is_empty(), "the pickle is read to its STOP");
        Ok(text)
    }

    const EXPECTED: &str = "List[Int(1), BigInt([0, 0, 0, 0, 0, 0, 0, 0, 192]), Float(1.5), \
        CodePoints([233, 55296]), None, Tuple[Bool(true), b\"x\"], {\"k\": Set[Int(1), Int(2)]}]";

    #[test]
    fn protocol_0_text_opcodes() {
        // pickle.dumps([1, -2**70, 1.5, 'é\ud800', None, (True, b'x'), {'k': {1, 2}}],
        // protocol=0)
        let p0 = b"(lp0\nI1\naL-1180591620717411303424L\naF1.5\naV\xe9\\ud800\np1\naNa(I01\n\
            c_codecs\nencode\np2\n(Vx\np3\nVlatin1\np4\ntp5\nRp6\ntp7\na(dp8\nVk\np9\n\
            c__builtin__\nset\np10\n((lp11\nI1\naI2\natp12\nRp13\nsa.";
        assert_eq!(load_text(p0).unwrap(), EXPECTED);
    }

    #[test]
    fn protocol_1_binary_opcodes() {
        // The same with protocol=1.
        let p1 = b"]q\x00(K\x01L-1180591620717411303424L\nG?\xf8\x00\x00\x00\x00\x00\x00\
            X\x05\x00\x00\x00\xc3\xa9\xed\xa0\x80q\x01N(I01\nc_codecs\nencode\nq\x02\
            (X\x01\x00\x00\x00xq\x03X\x06\x00\x00\x00latin1q\x04tq\x05Rq\x06tq\x07}q\x08\
            X\x01\x00\x00\x00kq\tc__builtin__\nset\nq\n(]q\x0b(K\x01K\x02etq\x0cRq\rse.";
        assert_eq!(load_text(p1).unwrap(), EXPECTED);
    }

    #[test]
    fn shared_values_are_built_at_each_place_and_cycles_refused() {
        // [s, s, l, l] with s a str and l a list, through the memo.
        let shared = b"\x80\x04](\x8c\x01s\x94h\x00]\x94K\x07ah\x01e.";
        assert_eq!(
            load_text(shared).unwrap(),
            "List[\"s\", \"s\", List[Int(7)], List[Int(7)]]"
        );
        let cycle = b"\x80\x04]\x94h\x00a.";
        assert!(matches!(
            load_text(cycle).map_err(Error::into_detail),
            Err(ndnpy_engine::base::error::Detail::Mismatch(
                ndnpy_engine::base::error::MismatchError::PickleUnsupported { .. }
            ))
        ));
        let deep = [&[0x80, 4][..], &[b']'; 40], &[b'a'; 39], b"."].concat();
        assert!(matches!(
            load_text(&deep).map_err(Error::into_detail),
            Err(ndnpy_engine::base::error::Detail::Limit(
                ndnpy_engine::base::error::LimitError::PickleTooDeep { limit: 16 }
            ))
        ));
    }
}
