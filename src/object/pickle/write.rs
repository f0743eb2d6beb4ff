//! Writing pickles as Python's C pickler writes them with protocol 4 (what `np.save` uses):
//! framing (frames of at least 64 KiB closed at value boundaries, payloads of 64 KiB or more
//! written outside frames, frames under 4 bytes without a header), `MEMOIZE` after every
//! memoizable object, and memo references (`BINGET`) for the objects Python shares by
//! identity whatever the data: the globals and their module names, one-character Latin-1
//! `str`s and the empty `str`, `bytes` of at most one byte, the dtypes of numpy's builtin types
//! in native order, and `datetime.timezone`s (an array's values share their `tzinfo`). Other equal values are written again, as Python writes
//! equal values that are distinct objects.

use crate::array::dynamic::{PyTimeDelta, PyTimeZone};
use ndnpy_engine::base::dtype::{ByteOrder, DType, ScalarKind};
use ndnpy_engine::base::error::Error;
use std::collections::HashMap;

const FRAME_SIZE_TARGET: usize = 64 * 1024;
const FRAME_SIZE_MIN: usize = 4;
const FRAME_HEADER: usize = 9;
/// Python's pickler batches `APPENDS`, `SETITEMS` and `ADDITEMS` by this many items.
pub(crate) const BATCH: usize = 1000;

/// A key for objects Python shares by identity.
#[derive(Hash, PartialEq, Eq)]
enum Shared {
    Str(Vec<u8>),
    Bytes(Vec<u8>),
    Global(&'static str, &'static str),
    DType(String),
    /// The `(0,)` of `MaskedArray.__reduce__`, a constant of its code: one object.
    MaskedShape,
    /// A `datetime.timezone`: the values of one array share their `tzinfo` object
    /// (`timezone.utc` is one object), so equal ones are written once.
    TimeZone(PyTimeZone),
}

pub(crate) struct Pickler {
    out: Vec<u8>,
    /// Where the open frame's header is reserved, if a frame is open.
    frame_start: Option<usize>,
    framing: bool,
    memo_len: u32,
    shared: HashMap<Shared, u32>,
}

impl Pickler {
    /// A protocol 4 pickle.
    pub(crate) fn new() -> Pickler {
        Pickler {
            out: vec![0x80, 4],
            frame_start: None,
            framing: true,
            memo_len: 0,
            shared: HashMap::new(),
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.framing && self.frame_start.is_none() {
            self.frame_start = Some(self.out.len());
            self.out.extend_from_slice(&[0xfe; FRAME_HEADER]);
        }
        self.out.extend_from_slice(bytes);
    }

    fn commit_frame(&mut self) {
        let Some(start) = self.frame_start.take() else {
            return;
        };
        let len = self.out.len() - start - FRAME_HEADER;
        if len >= FRAME_SIZE_MIN {
            self.out[start] = 0x95;
            self.out[start + 1..start + FRAME_HEADER].copy_from_slice(&(len as u64).to_le_bytes());
        } else {
            self.out.drain(start..start + FRAME_HEADER);
        }
    }

    /// The end of one value: a frame of 64 KiB or more is closed.
    pub(crate) fn boundary(&mut self) {
        if let Some(start) = self.frame_start {
            if self.out.len() - start - FRAME_HEADER >= FRAME_SIZE_TARGET {
                self.commit_frame();
            }
        }
    }

    /// An opcode's header and its payload; a payload of 64 KiB or more goes outside frames.
    fn write_payload(&mut self, header: &[u8], payload: &[u8]) {
        if payload.len() >= FRAME_SIZE_TARGET {
            self.commit_frame();
            self.framing = false;
            self.write(header);
            self.write(payload);
            self.framing = true;
        } else {
            self.write(header);
            self.write(payload);
        }
    }

    /// Ends the pickle with `STOP`.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.write(b".");
        self.commit_frame();
        self.out
    }

    /// Ends a value written op by op (a container, a reduce).
    pub(crate) fn end_value(&mut self) {
        self.boundary();
    }

    pub(crate) fn op(&mut self, op: u8) {
        self.write(&[op]);
    }

    pub(crate) fn mark(&mut self) {
        self.op(b'(');
    }

    /// `MEMOIZE`: the object just written gets the next memo index.
    pub(crate) fn memoize(&mut self) -> u32 {
        self.op(0x94);
        self.memo_len += 1;
        self.memo_len - 1
    }

    fn get(&mut self, index: u32) {
        match u8::try_from(index) {
            Ok(i) => self.write(&[b'h', i]),
            Err(_) => {
                let mut b = vec![b'j'];
                b.extend_from_slice(&index.to_le_bytes());
                self.write(&b);
            }
        }
    }

    /// Writes a reference to `key` if it was memoized; otherwise runs `write`, memoizes what
    /// it wrote and remembers it under `key`.
    fn shared(&mut self, key: Shared, write: impl FnOnce(&mut Pickler)) {
        if let Some(&i) = self.shared.get(&key) {
            self.get(i);
            return;
        }
        write(self);
        let i = self.memoize();
        self.shared.insert(key, i);
    }

    pub(crate) fn none(&mut self) {
        self.op(b'N');
        self.boundary();
    }

    pub(crate) fn bool(&mut self, b: bool) {
        self.op(if b { 0x88 } else { 0x89 });
        self.boundary();
    }

    pub(crate) fn int(&mut self, v: i64) {
        self.int_ops(v);
        self.boundary();
    }

    fn int_ops(&mut self, v: i64) {
        if (0..=0xff).contains(&v) {
            self.write(&[b'K', v as u8]);
        } else if (0..=0xffff).contains(&v) {
            let mut b = vec![b'M'];
            b.extend_from_slice(&(v as u16).to_le_bytes());
            self.write(&b);
        } else if let Ok(v) = i32::try_from(v) {
            let mut b = vec![b'J'];
            b.extend_from_slice(&v.to_le_bytes());
            self.write(&b);
        } else {
            self.long_ops(&v.to_le_bytes());
        }
    }

    /// An int from little-endian two's complement bytes, written in its shortest form.
    pub(crate) fn long(&mut self, le: &[u8]) {
        self.long_ops(le);
        self.boundary();
    }

    fn long_ops(&mut self, le: &[u8]) {
        let neg = le.last().is_some_and(|&b| b & 0x80 != 0);
        let fill = if neg { 0xff } else { 0 };
        let mut n = le.len();
        while n > 1 && le[n - 1] == fill && (le[n - 2] & 0x80 != 0) == neg {
            n -= 1;
        }
        if n <= 8 {
            let mut buf = [fill; 8];
            buf[..n].copy_from_slice(&le[..n]);
            let v = i64::from_le_bytes(buf);
            if i32::try_from(v).is_ok() {
                return self.int_ops(v);
            }
        }
        let bytes = &le[..n];
        match u8::try_from(n) {
            Ok(len) => self.write_payload(&[0x8a, len], bytes),
            Err(_) => {
                let mut h = vec![0x8b];
                h.extend_from_slice(&(n as i32).to_le_bytes());
                self.write_payload(&h, bytes);
            }
        }
    }

    pub(crate) fn float(&mut self, v: f64) {
        let mut b = vec![b'G'];
        b.extend_from_slice(&v.to_be_bytes());
        self.write(&b);
        self.boundary();
    }

    fn str_ops(&mut self, utf8: &[u8]) {
        let n = utf8.len();
        if let Ok(len) = u8::try_from(n) {
            self.write_payload(&[0x8c, len], utf8);
        } else if let Ok(len) = u32::try_from(n) {
            let mut h = vec![b'X'];
            h.extend_from_slice(&len.to_le_bytes());
            self.write_payload(&h, utf8);
        } else {
            let mut h = vec![0x8d];
            h.extend_from_slice(&(n as u64).to_le_bytes());
            self.write_payload(&h, utf8);
        }
    }

    /// A `str` from its UTF-8 (surrogates encoded as `surrogatepass` does); `chars` is its
    /// length in code points.
    pub(crate) fn str(&mut self, utf8: &[u8], first: Option<u32>, chars: usize) {
        // Python caches the empty str and the one-character Latin-1 ones: one object each.
        if chars == 0 || (chars == 1 && first.is_some_and(|c| c < 256)) {
            self.shared(Shared::Str(utf8.to_vec()), |p| p.str_ops(utf8));
        } else {
            self.str_ops(utf8);
            self.memoize();
        }
        self.boundary();
    }

    fn bytes_ops(&mut self, b: &[u8]) {
        let n = b.len();
        if let Ok(len) = u8::try_from(n) {
            self.write_payload(&[b'C', len], b);
        } else if let Ok(len) = u32::try_from(n) {
            let mut h = vec![b'B'];
            h.extend_from_slice(&len.to_le_bytes());
            self.write_payload(&h, b);
        } else {
            let mut h = vec![0x8e];
            h.extend_from_slice(&(n as u64).to_le_bytes());
            self.write_payload(&h, b);
        }
    }

    /// A `bytes`.
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        // Python caches the empty bytes and the one-byte ones.
        if b.len() <= 1 {
            self.shared(Shared::Bytes(b.to_vec()), |p| p.bytes_ops(b));
        } else {
            self.bytes_ops(b);
            self.memoize();
        }
        self.boundary();
    }

    /// The global `module.name` (`STACK_GLOBAL`), memoized once.
    pub(crate) fn global(&mut self, module: &'static str, name: &'static str) {
        self.shared(Shared::Global(module, name), |p| {
            // A class's `__module__` is one interned object: written once, then referred to.
            // Its name is split off its qualified name afresh: a new object (`datetime.datetime`
            // writes "datetime" twice).
            p.shared(Shared::Str(module.as_bytes().to_vec()), |p| {
                p.str_ops(module.as_bytes())
            });
            p.boundary();
            p.str_ops(name.as_bytes());
            p.memoize();
            p.boundary();
            p.op(0x93);
        });
        self.boundary();
    }

    /// A `datetime.date`, `time` or `datetime` from its packed state (`__reduce__`'s), with
    /// its `tzinfo`.
    pub(crate) fn packed_time(
        &mut self,
        class: &'static str,
        state: &[u8],
        tzinfo: Option<&PyTimeZone>,
    ) {
        self.global("datetime", class);
        self.bytes(state);
        if let Some(tz) = tzinfo {
            self.timezone(tz);
        }
        self.tuple(1 + usize::from(tzinfo.is_some()));
        self.op(b'R');
        self.memoize();
        self.end_value();
    }

    /// A `datetime.timedelta`: `timedelta(days, seconds, microseconds)`.
    pub(crate) fn timedelta(&mut self, d: &PyTimeDelta) {
        self.global("datetime", "timedelta");
        for v in [d.days, d.seconds, d.microseconds] {
            self.int(v.into());
        }
        self.tuple(3);
        self.op(b'R');
        self.memoize();
        self.end_value();
    }

    /// A `datetime.timezone`: `timezone(offset[, name])`, written once per pickle.
    pub(crate) fn timezone(&mut self, tz: &PyTimeZone) {
        self.shared(Shared::TimeZone(tz.clone()), |p| {
            p.global("datetime", "timezone");
            p.timedelta(&tz.offset);
            if let Some(name) = &tz.name {
                let first = name.chars().next().map(u32::from);
                p.str(name.as_bytes(), first, name.chars().count());
            }
            p.tuple(1 + usize::from(tz.name.is_some()));
            p.op(b'R');
        });
        self.end_value();
    }

    /// The tuple `(0,)` that `MaskedArray.__reduce__` hands to `_mareconstruct`, memoized
    /// once (a constant of numpy's code, so one object in every pickle).
    pub(crate) fn masked_shape(&mut self) {
        self.shared(Shared::MaskedShape, |p| {
            p.int_ops(0);
            p.boundary();
            p.op(0x85);
        });
        self.boundary();
    }

    /// A tuple of `n` values already written (after a `mark` if `n > 3`).
    pub(crate) fn tuple(&mut self, n: usize) {
        match n {
            0 => self.op(b')'),
            1..=3 => {
                self.op(0x84 + n as u8);
                self.memoize();
            }
            _ => {
                self.op(b't');
                self.memoize();
            }
        }
        self.boundary();
    }

    /// A shape tuple.
    pub(crate) fn shape(&mut self, shape: &[usize]) {
        if shape.len() > 3 {
            self.mark();
        }
        for &d in shape {
            self.int(d as i64);
        }
        self.tuple(shape.len());
    }

    /// A numpy dtype (`numpy.dtype(typestr, False, True)` and its `BUILD` state), shared as
    /// Python shares the builtin ones. Records are written unaligned (alignment 1, as numpy
    /// pickles a record dtype made without `align=True`), with their titles.
    pub(crate) fn dtype(&mut self, dtype: &DType) -> Result<(), Error> {
        self.dtype_of(dtype, false)
    }

    /// A `numpy.record` dtype (a recarray's, and its rows'): `numpy.dtype(numpy.record,
    /// False, True)` with the record's `BUILD` state.
    pub(crate) fn record_dtype(&mut self, dtype: &DType) -> Result<(), Error> {
        self.dtype_of(dtype, true)
    }

    fn dtype_of(&mut self, dtype: &DType, record: bool) -> Result<(), Error> {
        let builtin = !record
            && matches!(dtype, DType::Scalar(s) if matches!(
            s.kind(),
            ScalarKind::Bool
                | ScalarKind::Int
                | ScalarKind::UInt
                | ScalarKind::Float
                | ScalarKind::Complex
                | ScalarKind::Object
        ) && !s.byte_order().needs_swap());
        let key = Shared::DType(dtype.descr());
        if builtin {
            if let Some(&i) = self.shared.get(&key) {
                self.get(i);
                self.boundary();
                return Ok(());
            }
        }
        self.global("numpy", "dtype");
        let typestr = match dtype {
            DType::Scalar(s) => match s.kind() {
                ScalarKind::Unicode => format!("U{}", s.size() / 4),
                ScalarKind::Datetime | ScalarKind::Timedelta => {
                    format!("{}8", s.kind().letter())
                }
                k => format!("{}{}", k.letter(), s.size()),
            },
            other => format!("V{}", other.itemsize()),
        };
        if record {
            self.global("numpy", "record");
        } else {
            self.str(typestr.as_bytes(), None, typestr.len());
        }
        self.bool(false);
        self.bool(true);
        self.tuple(3);
        self.op(b'R');
        // The dtype object is memoized when built, before its state.
        let index = self.memoize();
        if builtin {
            self.shared.insert(key, index);
        }
        let scalar = dtype.as_scalar();
        let datetime = scalar
            .is_some_and(|s| matches!(s.kind(), ScalarKind::Datetime | ScalarKind::Timedelta));
        self.mark();
        self.int(if datetime { 4 } else { 3 });
        let order = match scalar.map(|s| s.byte_order()) {
            Some(ByteOrder::Little) => "<",
            Some(ByteOrder::Big) => ">",
            _ => "|",
        };
        self.str(order.as_bytes(), order.chars().next().map(u32::from), 1);
        // subarray, names, fields
        match dtype {
            DType::SubArray(sub) => {
                self.dtype(sub.base())?;
                self.shape(sub.shape());
                self.tuple(2);
                self.none();
                self.none();
            }
            DType::Structured(r) => {
                self.none();
                if r.fields().len() > 3 {
                    self.mark();
                }
                for f in r.fields() {
                    let first = f.name.chars().next().map(u32::from);
                    self.str(f.name.as_bytes(), first, f.name.chars().count());
                }
                self.tuple(r.fields().len());
                self.op(b'}');
                self.memoize();
                let mut entries = Vec::new();
                for f in r.fields() {
                    entries.push((&f.name, f));
                    if let Some(t) = &f.title {
                        entries.push((t, f));
                    }
                }
                let one = entries.len() == 1;
                for batch in entries.chunks(BATCH) {
                    if !one {
                        self.mark();
                    }
                    for (key, f) in batch {
                        let first = key.chars().next().map(u32::from);
                        self.str(key.as_bytes(), first, key.chars().count());
                        self.dtype(&f.dtype)?;
                        self.int(f.offset as i64);
                        match &f.title {
                            Some(t) => {
                                let first = t.chars().next().map(u32::from);
                                self.str(t.as_bytes(), first, t.chars().count());
                                self.tuple(3);
                            }
                            None => self.tuple(2),
                        }
                    }
                    self.op(if one { b's' } else { b'u' });
                }
                self.boundary();
            }
            _ => {
                self.none();
                self.none();
                self.none();
            }
        }
        let (elsize, align, flags) = match dtype {
            DType::Scalar(s) => match s.kind() {
                ScalarKind::Bytes | ScalarKind::Void => (s.size() as i64, 1, 0),
                ScalarKind::Unicode => (s.size() as i64, 4, 8),
                ScalarKind::Object => (-1, -1, 63),
                _ => (-1, -1, 0),
            },
            DType::SubArray(sub) => (dtype.itemsize() as i64, alignment(sub.base()), 0),
            _ => (dtype.itemsize() as i64, 1, 16),
        };
        self.int(elsize);
        self.int(align);
        self.int(flags);
        if let (true, Some(s)) = (datetime, scalar) {
            self.none();
            let unit = s.unit();
            let code = unit.map_or("generic", |u| u.unit.code());
            self.mark();
            self.bytes(code.as_bytes());
            self.int(unit.map_or(1, |u| u.multiplier.into()));
            self.int(1);
            self.int(1);
            self.tuple(4);
            self.tuple(2);
        }
        self.tuple(if datetime { 9 } else { 8 });
        self.op(b'b');
        self.boundary();
        Ok(())
    }
}

/// numpy's alignment of a dtype (records written unaligned: 1).
fn alignment(dtype: &DType) -> i64 {
    match dtype {
        DType::Scalar(s) => match s.kind() {
            ScalarKind::Bytes | ScalarKind::Void | ScalarKind::Bool => 1,
            ScalarKind::Unicode => 4,
            ScalarKind::Complex => (s.size() / 2) as i64,
            _ => s.size() as i64,
        },
        DType::SubArray(sub) => alignment(sub.base()),
        _ => 1,
    }
}
