//! The pickle machine: opcodes of protocols 0 to 5 run on an arena of data objects.
//!
//! The stack, the marks and the memo hold indices into the arena, so that `DUP`, `GET` and
//! `BINGET` cost one index whatever they refer to, and containers that the memo shares (a
//! list memoized before its items are appended, as every pickler does) are the same object
//! wherever they are referred to. Each opcode adds at most one object, whose size is that of
//! the bytes the opcode read, so the arena is bounded by the pickle's length.

use super::globals::{self, Global};
use super::source::Source;
use ndnpy_engine::base::dtype::DType;
use ndnpy_engine::base::error::{Error, MismatchError};
use std::collections::HashMap;
use std::io::Read;
use std::rc::Rc;

/// The pickle opcodes, by the names `pickletools` gives them (protocols 0 to 5).
pub(super) mod op {
    pub(super) const MARK: u8 = b'(';
    pub(super) const EMPTY_TUPLE: u8 = b')';
    pub(super) const STOP: u8 = b'.';
    pub(super) const POP: u8 = b'0';
    pub(super) const POP_MARK: u8 = b'1';
    pub(super) const DUP: u8 = b'2';
    pub(super) const BINBYTES: u8 = b'B';
    pub(super) const SHORT_BINBYTES: u8 = b'C';
    pub(super) const FLOAT: u8 = b'F';
    pub(super) const BINFLOAT: u8 = b'G';
    pub(super) const INT: u8 = b'I';
    pub(super) const BININT: u8 = b'J';
    pub(super) const BININT1: u8 = b'K';
    pub(super) const LONG: u8 = b'L';
    pub(super) const BININT2: u8 = b'M';
    pub(super) const NONE: u8 = b'N';
    pub(super) const PERSID: u8 = b'P';
    pub(super) const BINPERSID: u8 = b'Q';
    pub(super) const REDUCE: u8 = b'R';
    pub(super) const STRING: u8 = b'S';
    pub(super) const BINSTRING: u8 = b'T';
    pub(super) const SHORT_BINSTRING: u8 = b'U';
    pub(super) const UNICODE: u8 = b'V';
    pub(super) const BINUNICODE: u8 = b'X';
    pub(super) const EMPTY_LIST: u8 = b']';
    pub(super) const APPEND: u8 = b'a';
    pub(super) const BUILD: u8 = b'b';
    pub(super) const GLOBAL: u8 = b'c';
    pub(super) const DICT: u8 = b'd';
    pub(super) const APPENDS: u8 = b'e';
    pub(super) const GET: u8 = b'g';
    pub(super) const BINGET: u8 = b'h';
    pub(super) const INST: u8 = b'i';
    pub(super) const LONG_BINGET: u8 = b'j';
    pub(super) const LIST: u8 = b'l';
    pub(super) const OBJ: u8 = b'o';
    pub(super) const PUT: u8 = b'p';
    pub(super) const BINPUT: u8 = b'q';
    pub(super) const LONG_BINPUT: u8 = b'r';
    pub(super) const SETITEM: u8 = b's';
    pub(super) const TUPLE: u8 = b't';
    pub(super) const SETITEMS: u8 = b'u';
    pub(super) const EMPTY_DICT: u8 = b'}';
    pub(super) const PROTO: u8 = 0x80;
    pub(super) const NEWOBJ: u8 = 0x81;
    pub(super) const EXT1: u8 = 0x82;
    pub(super) const EXT2: u8 = 0x83;
    pub(super) const EXT4: u8 = 0x84;
    pub(super) const TUPLE1: u8 = 0x85;
    pub(super) const TUPLE2: u8 = 0x86;
    pub(super) const TUPLE3: u8 = 0x87;
    pub(super) const NEWTRUE: u8 = 0x88;
    pub(super) const NEWFALSE: u8 = 0x89;
    pub(super) const LONG1: u8 = 0x8a;
    pub(super) const LONG4: u8 = 0x8b;
    pub(super) const SHORT_BINUNICODE: u8 = 0x8c;
    pub(super) const BINUNICODE8: u8 = 0x8d;
    pub(super) const BINBYTES8: u8 = 0x8e;
    pub(super) const EMPTY_SET: u8 = 0x8f;
    pub(super) const ADDITEMS: u8 = 0x90;
    pub(super) const FROZENSET: u8 = 0x91;
    pub(super) const NEWOBJ_EX: u8 = 0x92;
    pub(super) const STACK_GLOBAL: u8 = 0x93;
    pub(super) const MEMOIZE: u8 = 0x94;
    pub(super) const FRAME: u8 = 0x95;
    pub(super) const BYTEARRAY8: u8 = 0x96;
    pub(super) const NEXT_BUFFER: u8 = 0x97;
    pub(super) const READONLY_BUFFER: u8 = 0x98;
}

pub(super) type Id = usize;

/// An object the pickle built.
#[derive(Debug)]
pub(super) enum Obj {
    None,
    Bool(bool),
    Int(i64),
    BigInt(Vec<u8>),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    CodePoints(Vec<u32>),
    /// A Python 2 `str` (`STRING`, `BINSTRING`, `SHORT_BINSTRING`): read as `np.load(...,
    /// encoding='latin1')` does, text decoded as Latin-1 where it is a value, its bytes where
    /// it is an array's data.
    Py2Str(Vec<u8>),
    Bytes(Vec<u8>),
    ByteArray(Vec<u8>),
    List(Vec<Id>),
    Tuple(Vec<Id>),
    Dict(Vec<(Id, Id)>),
    Set(Vec<Id>),
    FrozenSet(Vec<Id>),
    Global(Global),
    /// `numpy.dtype(typestr, align, copy)` before its `BUILD`; `true` for
    /// `numpy.dtype(numpy.record, ...)` (a recarray's).
    DTypeNew(String, bool),
    /// A built dtype, its nesting depth, its node count, and whether it is a `numpy.record`
    /// dtype.
    DType(Rc<DType>, usize, u64, bool),
    /// A `StringDType` (from `_convert_to_stringdtype_kwargs`).
    StringDType,
    /// `_reconstruct(ndarray, (0,), b'b')` before its `BUILD`; `true` for `recarray`.
    ArrayNew(bool),
    Array(Box<ArrayObj>),
    /// `_mareconstruct(MaskedArray, ndarray, (0,), 'b')` before its `BUILD`.
    MaskedNew,
    /// A built `MaskedArray`.
    Masked(Box<MaskedObj>),
    /// `range(start, stop, step)`: the value, never its items.
    Range(i64, i64, i64),
    /// A numpy scalar: its dtype, node count, bytes, and whether it is a `numpy.record`.
    Scalar(Rc<DType>, u64, Vec<u8>, bool),
    /// A `datetime` value (`time`): a `PyValue` `Date`, `Time`, `DateTime`, `TimeDelta` or
    /// `TimeZone`, which holds no other object.
    Time(Box<crate::array::dynamic::PyValue>),
    /// Moved out into the tree.
    Taken,
}

#[derive(Debug)]
pub(super) struct ArrayObj {
    pub(super) dtype: Rc<DType>,
    pub(super) dtype_nodes: u64,
    pub(super) string_dtype: bool,
    /// A `numpy.recarray` (rebuilt by `_reconstruct(numpy.rec.recarray, ...)`).
    pub(super) recarray: bool,
    pub(super) shape: Vec<usize>,
    pub(super) fortran_order: bool,
    /// Whether numpy would swap the array into native byte order as it loads it (arrays
    /// rebuilt by `_reconstruct` and `BUILD`; not protocol 5's `_frombuffer`).
    pub(super) to_native: bool,
    pub(super) data: Payload,
}

/// A `MaskedArray`: its data (an array of a scalar dtype without objects), its mask (bytes,
/// one `bool` per element, in the data's order) and its fill value (a 0-d array), if set.
#[derive(Debug)]
pub(super) struct MaskedObj {
    pub(super) array: ArrayObj,
    pub(super) mask: Id,
    pub(super) fill: Option<Id>,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Payload {
    /// A bytes-like object (checked at `BUILD` to hold the array's bytes).
    Raw(Id),
    /// A list (checked at `BUILD` to hold one item per element).
    Items(Id),
}

/// What `REDUCE` and `BUILD` do with a resolved global. The machine knows the opcodes; its
/// host (`numpy::Numpy`) knows what numpy's and Python's globals build, and is passed in, so
/// that the machine does not depend on it.
pub(super) trait Host {
    /// Calls `g` with `args` (`REDUCE`, `NEWOBJ`).
    fn call<R: Read + ?Sized>(
        m: &mut Machine,
        g: Global,
        args: &[Id],
        src: &Source<'_, R>,
    ) -> Result<Called, Error>;

    /// Sets the state of `target` (`BUILD`).
    fn build<R: Read + ?Sized>(
        m: &mut Machine,
        target: Id,
        state: Id,
        src: &Source<'_, R>,
    ) -> Result<(), Error>;
}

/// What a call gave: a new object, or one already in the arena.
pub(super) enum Called {
    New(Obj),
    Same(Id),
}

/// The machine's state.
pub(super) struct Machine {
    pub(super) arena: Vec<Obj>,
    stack: Vec<Id>,
    marks: Vec<usize>,
    memo: Memo,
    /// Bytes charged so far against the expansion limit (dtype copies).
    pub(super) spent: std::cell::Cell<u64>,
    /// The offset of the opcode being run, for errors.
    pub(super) at: u64,
    /// The protocol declared by `PROTO` (0 if none).
    proto: u8,
}

/// The memo. Picklers number its keys 0, 1, 2, ... (`MEMOIZE` takes the next), so the keys
/// below `dense.len()` live in a vector and only the others in a map: every key in `sparse`
/// is at least `dense.len()`, and both grow only by a `PUT` really present in the input.
#[derive(Default)]
struct Memo {
    dense: Vec<Id>,
    sparse: HashMap<u64, Id>,
    /// How many keys are set (`len(memo)` in Python's unpickler).
    len: usize,
}

/// A `dense` slot no `PUT` has set.
const UNSET: Id = Id::MAX;

impl Memo {
    fn get(&self, key: u64) -> Option<Id> {
        match usize::try_from(key) {
            Ok(k) if k < self.dense.len() => Some(self.dense[k]).filter(|&id| id != UNSET),
            _ => self.sparse.get(&key).copied(),
        }
    }

    fn put(&mut self, key: u64, id: Id) {
        let dense = self.dense.len();
        match usize::try_from(key) {
            Ok(k) if k < dense => {
                if self.dense[k] == UNSET {
                    self.len += 1;
                }
                self.dense[k] = id;
            }
            Ok(k) if k == dense => {
                if self.sparse.remove(&key).is_none() {
                    self.len += 1;
                }
                self.dense.push(id);
            }
            _ => {
                if self.sparse.insert(key, id).is_none() {
                    self.len += 1;
                }
            }
        }
    }
}

/// The highest protocol this machine reads (Python 3.8's).
const HIGHEST_PROTOCOL: u8 = 5;

/// Runs the pickle to its `STOP`; returns the arena, the object `STOP` took and the bytes
/// charged against the expansion limit.
pub(super) fn run<H: Host, R: Read + ?Sized>(
    src: &mut Source<'_, R>,
) -> Result<(Vec<Obj>, Id, u64), Error> {
    let mut m = Machine {
        arena: Vec::new(),
        stack: Vec::new(),
        marks: Vec::new(),
        memo: Memo::default(),
        spent: std::cell::Cell::new(0),
        at: 0,
        proto: 0,
    };
    loop {
        m.at = src.offset;
        let op = src.byte()?;
        if op == op::STOP {
            let root = m.pop(src)?;
            return Ok((m.arena, root, m.spent.get()));
        }
        m.step::<H, R>(op, src)?;
    }
}

impl Machine {
    pub(super) fn bad<R: Read + ?Sized>(
        &self,
        src: &Source<'_, R>,
        reason: impl std::fmt::Display,
    ) -> Error {
        src.bad(self.at, reason)
    }

    fn push_obj(&mut self, obj: Obj) -> Id {
        let id = self.arena.len();
        self.arena.push(obj);
        self.stack.push(id);
        id
    }

    pub(super) fn pop<R: Read + ?Sized>(&mut self, src: &Source<'_, R>) -> Result<Id, Error> {
        let floor = self.marks.last().copied().unwrap_or(0);
        match self.stack.pop() {
            Some(id) if self.stack.len() >= floor => Ok(id),
            _ => Err(self.bad(src, "an opcode pops an empty stack (or past a mark)")),
        }
    }

    fn top<R: Read + ?Sized>(&self, src: &Source<'_, R>) -> Result<Id, Error> {
        match (self.stack.last(), self.marks.last()) {
            (Some(_), Some(&m)) if self.stack.len() <= m => {
                Err(self.bad(src, "an opcode needs an object above the mark"))
            }
            (Some(&id), _) => Ok(id),
            (None, _) => Err(self.bad(src, "an opcode needs an object on an empty stack")),
        }
    }

    fn pop_mark<R: Read + ?Sized>(&mut self, src: &Source<'_, R>) -> Result<Vec<Id>, Error> {
        let mark = self
            .marks
            .pop()
            .ok_or_else(|| self.bad(src, "an opcode needs a mark and there is none"))?;
        Ok(self.stack.split_off(mark))
    }

    fn pop_n<R: Read + ?Sized>(&mut self, n: usize, src: &Source<'_, R>) -> Result<Vec<Id>, Error> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() < floor + n {
            return Err(self.bad(
                src,
                format_args!("an opcode needs {n} objects on the stack"),
            ));
        }
        Ok(self.stack.split_off(self.stack.len() - n))
    }

    fn memo_get<R: Read + ?Sized>(&mut self, key: u64, src: &Source<'_, R>) -> Result<(), Error> {
        let id = self
            .memo
            .get(key)
            .ok_or_else(|| self.bad(src, format_args!("memo key {key} was never set")))?;
        self.stack.push(id);
        Ok(())
    }

    fn memo_put<R: Read + ?Sized>(&mut self, key: u64, src: &Source<'_, R>) -> Result<(), Error> {
        let id = self.top(src)?;
        self.memo.put(key, id);
        Ok(())
    }

    /// Runs one opcode (not `STOP`).
    fn step<H: Host, R: Read + ?Sized>(
        &mut self,
        op: u8,
        src: &mut Source<'_, R>,
    ) -> Result<(), Error> {
        match op {
            // Framing and protocol.
            op::PROTO => {
                let p = src.byte()?;
                if p > HIGHEST_PROTOCOL {
                    return Err(self.bad(src, format_args!("unsupported pickle protocol {p}")));
                }
                self.proto = p;
            }
            op::FRAME => {
                let len = u64::from_le_bytes(src.array()?);
                src.start_frame(len)?;
            }
            // Marks and stack.
            op::MARK => self.marks.push(self.stack.len()),
            op::POP => {
                if self.stack.len() > self.marks.last().copied().unwrap_or(0) {
                    self.pop(src)?;
                } else {
                    self.pop_mark(src)?;
                }
            }
            op::POP_MARK => {
                self.pop_mark(src)?;
            }
            op::DUP => {
                let id = self.top(src)?;
                self.stack.push(id);
            }
            // Memo.
            op::GET => {
                let key = decimal_key(&src.line()?).ok_or_else(|| self.bad(src, "bad GET key"))?;
                self.memo_get(key, src)?;
            }
            op::BINGET => {
                let key = src.byte()?;
                self.memo_get(key.into(), src)?;
            }
            op::LONG_BINGET => {
                let key = u32::from_le_bytes(src.array()?);
                self.memo_get(key.into(), src)?;
            }
            op::PUT => {
                let key = decimal_key(&src.line()?).ok_or_else(|| self.bad(src, "bad PUT key"))?;
                self.memo_put(key, src)?;
            }
            op::BINPUT => {
                let key = src.byte()?;
                self.memo_put(key.into(), src)?;
            }
            op::LONG_BINPUT => {
                let key = u32::from_le_bytes(src.array()?);
                self.memo_put(key.into(), src)?;
            }
            op::MEMOIZE => {
                let key = self.memo.len as u64;
                self.memo_put(key, src)?;
            }
            // Constants and numbers.
            op::NONE => {
                self.push_obj(Obj::None);
            }
            op::NEWTRUE => {
                self.push_obj(Obj::Bool(true));
            }
            op::NEWFALSE => {
                self.push_obj(Obj::Bool(false));
            }
            op::INT => {
                let line = src.line()?;
                let obj = match &line[..] {
                    b"01" => Obj::Bool(true),
                    b"00" => Obj::Bool(false),
                    text => int_from_decimal(text).ok_or_else(|| {
                        self.bad(src, format_args!("bad INT {:?}", text.escape_ascii()))
                    })?,
                };
                self.push_obj(obj);
            }
            op::LONG => {
                let line = src.line()?;
                let text = line.strip_suffix(b"L").unwrap_or(&line);
                let obj = int_from_decimal(text).ok_or_else(|| {
                    self.bad(src, format_args!("bad LONG {:?}", text.escape_ascii()))
                })?;
                self.push_obj(obj);
            }
            op::BININT => {
                self.push_obj(Obj::Int(i32::from_le_bytes(src.array()?).into()));
            }
            op::BININT1 => {
                self.push_obj(Obj::Int(src.byte()?.into()));
            }
            op::BININT2 => {
                self.push_obj(Obj::Int(u16::from_le_bytes(src.array()?).into()));
            }
            op::LONG1 => {
                let n = src.byte()?;
                let bytes = src.take(n.into())?;
                self.push_obj(int_from_le(bytes));
            }
            op::LONG4 => {
                let n = i32::from_le_bytes(src.array()?);
                let n =
                    u64::try_from(n).map_err(|_| self.bad(src, "LONG4 with a negative length"))?;
                let bytes = src.take(n)?;
                self.push_obj(int_from_le(bytes));
            }
            op::FLOAT => {
                let line = src.line()?;
                let v = std::str::from_utf8(&line)
                    .ok()
                    .and_then(|s| s.trim().parse::<f64>().ok())
                    .ok_or_else(|| {
                        self.bad(src, format_args!("bad FLOAT {:?}", line.escape_ascii()))
                    })?;
                self.push_obj(Obj::Float(v));
            }
            op::BINFLOAT => {
                self.push_obj(Obj::Float(f64::from_be_bytes(src.array()?)));
            }
            // Text and bytes.
            op::STRING => {
                let line = src.line()?;
                let bytes = unquote(&line).ok_or_else(|| {
                    self.bad(src, "STRING argument is not a quoted, escaped string")
                })?;
                self.push_obj(Obj::Py2Str(bytes));
            }
            op::BINSTRING => {
                let n = i32::from_le_bytes(src.array()?);
                let n = u64::try_from(n)
                    .map_err(|_| self.bad(src, "BINSTRING with a negative length"))?;
                let bytes = src.take(n)?;
                self.push_obj(Obj::Py2Str(bytes));
            }
            op::SHORT_BINSTRING => {
                let n = src.byte()?;
                let bytes = src.take(n.into())?;
                self.push_obj(Obj::Py2Str(bytes));
            }
            op::UNICODE => {
                let line = src.line()?;
                let obj = raw_unicode_escape(&line)
                    .ok_or_else(|| self.bad(src, "UNICODE argument has a bad escape"))?;
                self.push_obj(obj);
            }
            op::BINUNICODE => {
                let n = u32::from_le_bytes(src.array()?);
                self.text(n.into(), src)?;
            }
            op::SHORT_BINUNICODE => {
                let n = src.byte()?;
                self.text(n.into(), src)?;
            }
            op::BINUNICODE8 => {
                let n = u64::from_le_bytes(src.array()?);
                self.text(n, src)?;
            }
            op::BINBYTES => {
                let n = u32::from_le_bytes(src.array()?);
                let bytes = src.take(n.into())?;
                self.push_obj(Obj::Bytes(bytes));
            }
            op::SHORT_BINBYTES => {
                let n = src.byte()?;
                let bytes = src.take(n.into())?;
                self.push_obj(Obj::Bytes(bytes));
            }
            op::BINBYTES8 => {
                let n = u64::from_le_bytes(src.array()?);
                let bytes = src.take(n)?;
                self.push_obj(Obj::Bytes(bytes));
            }
            op::BYTEARRAY8 => {
                let n = u64::from_le_bytes(src.array()?);
                let bytes = src.take(n)?;
                self.push_obj(Obj::ByteArray(bytes));
            }
            // Containers.
            op::EMPTY_LIST => {
                self.push_obj(Obj::List(Vec::new()));
            }
            op::EMPTY_TUPLE => {
                self.push_obj(Obj::Tuple(Vec::new()));
            }
            op::EMPTY_DICT => {
                self.push_obj(Obj::Dict(Vec::new()));
            }
            op::EMPTY_SET => {
                self.push_obj(Obj::Set(Vec::new()));
            }
            op::LIST => {
                let items = self.pop_mark(src)?;
                self.push_obj(Obj::List(items));
            }
            op::TUPLE => {
                let items = self.pop_mark(src)?;
                self.push_obj(Obj::Tuple(items));
            }
            op::TUPLE1 | op::TUPLE2 | op::TUPLE3 => {
                let items = self.pop_n(usize::from(op - op::TUPLE1 + 1), src)?;
                self.push_obj(Obj::Tuple(items));
            }
            op::FROZENSET => {
                let items = self.pop_mark(src)?;
                self.push_obj(Obj::FrozenSet(items));
            }
            op::DICT => {
                let items = self.pop_mark(src)?;
                let pairs = self.pairs(items, src)?;
                self.push_obj(Obj::Dict(pairs));
            }
            op::APPEND => {
                let item = self.pop(src)?;
                self.extend_list(vec![item], src)?;
            }
            op::APPENDS => {
                let items = self.pop_mark(src)?;
                self.extend_list(items, src)?;
            }
            op::SETITEM => {
                let items = self.pop_n(2, src)?;
                let pairs = self.pairs(items, src)?;
                self.extend_dict(pairs, src)?;
            }
            op::SETITEMS => {
                let items = self.pop_mark(src)?;
                let pairs = self.pairs(items, src)?;
                self.extend_dict(pairs, src)?;
            }
            op::ADDITEMS => {
                let items = self.pop_mark(src)?;
                let target = self.top(src)?;
                match &mut self.arena[target] {
                    Obj::Set(set) => set.extend(items),
                    _ => return Err(self.bad(src, "ADDITEMS to an object that is not a set")),
                }
            }
            // Globals and calls: only data, never code.
            op::GLOBAL => {
                let module = src.line()?;
                let name = src.line()?;
                let module = self.ascii_name(module, src)?;
                let name = self.ascii_name(name, src)?;
                let g = self.resolve(&module, &name)?;
                self.push_obj(Obj::Global(g));
            }
            op::STACK_GLOBAL => {
                let name = self.pop(src)?;
                let module = self.pop(src)?;
                let (Some(module), Some(name)) = (self.text_of(module), self.text_of(name)) else {
                    return Err(self.bad(src, "STACK_GLOBAL needs two strings"));
                };
                let g = self.resolve(&module, &name)?;
                self.push_obj(Obj::Global(g));
            }
            op::INST => {
                // INST names a class and instantiates it: refused by name, or as code.
                let module = src.line()?;
                let name = src.line()?;
                let module = self.ascii_name(module, src)?;
                let name = self.ascii_name(name, src)?;
                self.resolve(&module, &name)?;
                return Err(self.bad(src, "INST builds a class instance, which is not data"));
            }
            op::REDUCE => {
                let args = self.pop(src)?;
                let callable = self.pop(src)?;
                // Every global resolved takes at most 4 arguments: more are refused before
                // they are copied (the same huge tuple can be handed to many REDUCEs).
                let args = match &self.arena[args] {
                    Obj::Tuple(a) if a.len() <= 4 => a.clone(),
                    Obj::Tuple(_) => return Err(self.bad(src, "REDUCE with too many arguments")),
                    _ => return Err(self.bad(src, "REDUCE arguments are not a tuple")),
                };
                let Obj::Global(g) = &self.arena[callable] else {
                    return Err(self.bad(src, "REDUCE of an object that is not a global"));
                };
                let g = *g;
                let obj = H::call(self, g, &args, src)?;
                match obj {
                    Called::New(obj) => {
                        self.push_obj(obj);
                    }
                    Called::Same(id) => self.stack.push(id),
                }
            }
            op::BUILD => {
                let state = self.pop(src)?;
                let target = self.top(src)?;
                H::build(self, target, state, src)?;
            }
            op::OBJ | op::NEWOBJ | op::NEWOBJ_EX => {
                return Err(self.bad(
                    src,
                    "the pickle builds a class instance (OBJ, NEWOBJ or NEWOBJ_EX), which is \
                     not data",
                ))
            }
            op::PERSID | op::BINPERSID => {
                return Err(self.bad(src, "persistent ids refer to objects outside the pickle"))
            }
            op::EXT1 | op::EXT2 | op::EXT4 => {
                return Err(self.bad(src, "extension codes name globals by number; refused"))
            }
            op::NEXT_BUFFER => {
                return Err(self.bad(
                    src,
                    "out-of-band buffers (NEXT_BUFFER) are not part of an .npy file",
                ))
            }
            op::READONLY_BUFFER => {
                let top = self.top(src)?;
                if let Obj::ByteArray(b) = &mut self.arena[top] {
                    let bytes = std::mem::take(b);
                    self.arena[top] = Obj::Bytes(bytes);
                }
            }
            other => {
                return Err(self.bad(src, format_args!("unknown opcode {other:#04x}")));
            }
        }
        Ok(())
    }

    fn text<R: Read + ?Sized>(&mut self, n: u64, src: &mut Source<'_, R>) -> Result<(), Error> {
        let bytes = src.take(n)?;
        let obj = decode_surrogatepass(bytes)
            .ok_or_else(|| self.bad(src, "str argument is not UTF-8 (surrogates allowed)"))?;
        self.push_obj(obj);
        Ok(())
    }

    /// A `GLOBAL` line: Python 3 reads it as UTF-8; module and attribute names of the globals
    /// allowed here are ASCII.
    fn ascii_name<R: Read + ?Sized>(
        &self,
        line: Vec<u8>,
        src: &Source<'_, R>,
    ) -> Result<String, Error> {
        String::from_utf8(line).map_err(|_| self.bad(src, "GLOBAL name is not UTF-8"))
    }

    /// The text of a `str` object (a Python 2 `str` read as Latin-1).
    pub(super) fn text_of(&self, id: Id) -> Option<String> {
        match &self.arena[id] {
            Obj::Str(s) => Some(s.clone()),
            Obj::Py2Str(b) => Some(b.iter().map(|&c| char::from(c)).collect()),
            _ => None,
        }
    }

    fn resolve(&self, module: &str, name: &str) -> Result<Global, Error> {
        globals::resolve(module, name, self.proto).ok_or_else(|| {
            MismatchError::PickleGlobal {
                module: ndnpy_engine::base::error::excerpt(module),
                name: ndnpy_engine::base::error::excerpt(name),
            }
            .into()
        })
    }

    fn pairs<R: Read + ?Sized>(
        &self,
        items: Vec<Id>,
        src: &Source<'_, R>,
    ) -> Result<Vec<(Id, Id)>, Error> {
        if items.len() % 2 != 0 {
            return Err(self.bad(src, "a dict needs an even number of keys and values"));
        }
        Ok(items.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    fn extend_list<R: Read + ?Sized>(
        &mut self,
        items: Vec<Id>,
        src: &Source<'_, R>,
    ) -> Result<(), Error> {
        let target = self.top(src)?;
        match &mut self.arena[target] {
            Obj::List(list) => {
                list.extend(items);
                Ok(())
            }
            _ => Err(self.bad(src, "APPEND to an object that is not a list")),
        }
    }

    fn extend_dict<R: Read + ?Sized>(
        &mut self,
        pairs: Vec<(Id, Id)>,
        src: &Source<'_, R>,
    ) -> Result<(), Error> {
        let target = self.top(src)?;
        match &mut self.arena[target] {
            Obj::Dict(dict) => {
                dict.extend(pairs);
                Ok(())
            }
            _ => Err(self.bad(src, "SETITEM on an object that is not a dict")),
        }
    }
}

/// A memo key in decimal text (protocol 0's `GET` and `PUT`).
fn decimal_key(text: &[u8]) -> Option<u64> {
    std::str::from_utf8(text).ok()?.trim().parse().ok()
}

/// An int from its decimal text (protocol 0's `INT` and `LONG`). Python refuses more than
/// 4300 digits (`sys.int_info.default_max_str_digits`), and so does this.
fn int_from_decimal(text: &[u8]) -> Option<Obj> {
    let s = std::str::from_utf8(text).ok()?.trim();
    if let Ok(v) = s.parse::<i64>() {
        return Some(Obj::Int(v));
    }
    let (neg, digits) = match s.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    if digits.is_empty() || digits.len() > 4300 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Magnitude in little-endian base 256.
    let mut mag: Vec<u8> = Vec::new();
    for &d in digits {
        let mut carry = u32::from(d - b'0');
        for byte in mag.iter_mut() {
            let v = u32::from(*byte) * 10 + carry;
            *byte = v as u8;
            carry = v >> 8;
        }
        while carry > 0 {
            mag.push(carry as u8);
            carry >>= 8;
        }
    }
    Some(int_from_le(twos_complement(mag, neg)))
}

/// Two's complement little-endian bytes of `±mag`, with room for the sign bit.
pub(crate) fn twos_complement(mut mag: Vec<u8>, neg: bool) -> Vec<u8> {
    mag.push(0);
    if neg {
        let mut carry = 1u16;
        for b in mag.iter_mut() {
            let v = u16::from(!*b) + carry;
            *b = v as u8;
            carry = v >> 8;
        }
    }
    mag
}

/// An int from little-endian two's complement bytes (`LONG1`, `LONG4`): `Int` if it fits in
/// `i64`, else `BigInt` with redundant sign bytes removed.
fn int_from_le(mut bytes: Vec<u8>) -> Obj {
    let neg = bytes.last().is_some_and(|&b| b & 0x80 != 0);
    let fill = if neg { 0xff } else { 0 };
    while bytes.len() > 1 {
        let n = bytes.len();
        if bytes[n - 1] == fill && (bytes[n - 2] & 0x80 != 0) == neg {
            bytes.pop();
        } else {
            break;
        }
    }
    if bytes.is_empty() {
        return Obj::Int(0);
    }
    if bytes.len() <= 8 {
        let mut buf = [fill; 8];
        buf[..bytes.len()].copy_from_slice(&bytes);
        return Obj::Int(i64::from_le_bytes(buf));
    }
    Obj::BigInt(bytes)
}

/// Python's `str` from `BINUNICODE` bytes: UTF-8, with surrogates encoded as three bytes
/// (`surrogatepass`, which is how pickle writes a `str` holding lone surrogates).
fn decode_surrogatepass(bytes: Vec<u8>) -> Option<Obj> {
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => return Some(Obj::Str(s)),
        Err(e) => e.into_bytes(),
    };
    let mut points = Vec::new();
    let mut i = 0;
    let mut surrogate = false;
    while i < bytes.len() {
        let b = bytes[i];
        let (len, init) = match b {
            0x00..=0x7f => (1, u32::from(b)),
            0xc2..=0xdf => (2, u32::from(b & 0x1f)),
            0xe0..=0xef => (3, u32::from(b & 0x0f)),
            0xf0..=0xf4 => (4, u32::from(b & 0x07)),
            _ => return None,
        };
        let cont = bytes.get(i + 1..i + len)?;
        let mut c = init;
        for &x in cont {
            if x & 0xc0 != 0x80 {
                return None;
            }
            c = (c << 6) | u32::from(x & 0x3f);
        }
        // Overlong forms and values past U+10FFFF are refused, as Python does.
        let min = [0, 0, 0x80, 0x800, 0x10000][len];
        if c < min || c > 0x10ffff {
            return None;
        }
        surrogate |= (0xd800..=0xdfff).contains(&c);
        points.push(c);
        i += len;
    }
    if surrogate {
        Some(Obj::CodePoints(points))
    } else {
        // Valid UTF-8 would have decoded above.
        None
    }
}

/// Code points as a `str` object: a `String` unless there are surrogates.
fn str_of_points(points: Vec<u32>) -> Obj {
    let s: Option<String> = points.iter().map(|&c| char::from_u32(c)).collect();
    match s {
        Some(s) => Obj::Str(s),
        None => Obj::CodePoints(points),
    }
}

/// `UNICODE`'s argument: `raw-unicode-escape` (Latin-1, with `\uXXXX` and `\UXXXXXXXX`).
fn raw_unicode_escape(line: &[u8]) -> Option<Obj> {
    let mut points = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b == b'\\' && matches!(line.get(i + 1), Some(b'u' | b'U')) {
            // An odd run of backslashes before `u` starts an escape; Python counts them.
            let run = line[..i].iter().rev().take_while(|&&c| c == b'\\').count();
            if run % 2 == 0 {
                let n = if line[i + 1] == b'u' { 4 } else { 8 };
                let hex = line.get(i + 2..i + 2 + n)?;
                let c = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                if c > 0x10ffff {
                    return None;
                }
                points.push(c);
                i += 2 + n;
                continue;
            }
        }
        points.push(u32::from(b));
        i += 1;
    }
    Some(str_of_points(points))
}

/// `STRING`'s argument: a quoted Python 2 string literal, escapes decoded
/// (`codecs.escape_decode`).
fn unquote(line: &[u8]) -> Option<Vec<u8>> {
    let q = *line.first()?;
    if line.len() < 2 || !(q == b'\'' || q == b'"') || *line.last()? != q {
        return None;
    }
    let body = &line[1..line.len() - 1];
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let e = *body.get(i)?;
        i += 1;
        match e {
            b'\n' => {}
            b'\\' | b'\'' | b'"' => out.push(e),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'x' => {
                let hex = body.get(i..i + 2)?;
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 2;
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match body.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(v as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_keeps_every_key_as_pythons_dict_would() {
        let mut m = Memo::default();
        // Out of order and far: the map; then the vector grows through a key the map held.
        m.put(2, 20);
        m.put(1 << 40, 99);
        m.put(0, 0);
        m.put(1, 10);
        assert_eq!(m.len, 4);
        m.put(2, 21); // reaches the vector's end: moves out of the map
        m.put(0, 1); // overwrites
        assert_eq!(m.len, 4);
        assert_eq!(m.dense, [1, 10, 21]);
        assert!(!m.sparse.contains_key(&2));
        assert_eq!(
            [0, 1, 2, 3, 1 << 40].map(|k| m.get(k)),
            [Some(1), Some(10), Some(21), None, Some(99)]
        );
    }

    #[test]
    fn objects_are_small() {
        // The arena holds one per opcode: its size bounds a pickle's memory per byte.
        assert!(
            std::mem::size_of::<Obj>() <= 48,
            "{}",
            std::mem::size_of::<Obj>()
        );
    }

    #[test]
    fn ints_from_le_are_minimal() {
        assert!(matches!(int_from_le(vec![]), Obj::Int(0)));
        assert!(matches!(int_from_le(vec![0xff]), Obj::Int(-1)));
        assert!(matches!(int_from_le(vec![0xff, 0xff, 0xff]), Obj::Int(-1)));
        assert!(matches!(int_from_le(vec![0x80, 0x00]), Obj::Int(128)));
        let big = int_from_le(vec![0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0]);
        assert!(matches!(big, Obj::BigInt(ref b) if b == &[0, 0, 0, 0, 0, 0, 0, 0, 0x40]));
    }

    #[test]
    fn decimal_ints_beyond_i64() {
        let Some(Obj::BigInt(b)) = int_from_decimal(b"-1180591620717411303424") else {
            panic!("not a big int")
        };
        // -2**70: bytes 0..8 zero, byte 8 = 0xc0.
        assert_eq!(b, [0, 0, 0, 0, 0, 0, 0, 0, 0xc0]);
        assert!(matches!(
            int_from_decimal(b"-9223372036854775808"),
            Some(Obj::Int(i64::MIN))
        ));
        assert!(int_from_decimal(&[b'1'; 4301]).is_none());
    }

    #[test]
    fn strings_with_surrogates_keep_their_code_points() {
        let Some(Obj::CodePoints(p)) = decode_surrogatepass(b"a\xed\xa0\x80".to_vec()) else {
            panic!()
        };
        assert_eq!(p, [0x61, 0xd800]);
        assert!(decode_surrogatepass(b"\xc0\x80".to_vec()).is_none());
        assert!(matches!(raw_unicode_escape(b"a\\u00e9"), Some(Obj::Str(s)) if s == "aé"));
        assert_eq!(unquote(b"'a\\x00\\'\\n'").unwrap(), b"a\x00'\n");
    }
}
