//! From the machine's arena to the caller's values: built bottom up by a loop over an
//! explicit stack of open containers (no recursion, whatever the nesting), depth limited,
//! cycles refused as they are met, and the copies of shared objects charged against the
//! expansion limit.

use super::globals::Global;
use super::machine::{ArrayObj, Id, MaskedObj, Obj, Payload};
use super::{ArrayMeta, Leaf, Limits, Seq, Sink, MAX_DEPTH};
use ndnpy_engine::base::error::{Error, FormatError, LimitError, MismatchError};
use ndnpy_engine::format::header::PickleEncoding;

struct Walker {
    arena: Vec<Obj>,
    /// References to each object from containers and arrays (and the root): the last one to
    /// be visited moves the object instead of copying it.
    refs: Vec<u32>,
    on_path: Vec<bool>,
    max_depth: usize,
    encoding: PickleEncoding,
    spent: u64,
    limit: u64,
    len: u64,
}

/// A container being built: its object, the children still to visit, the values built.
enum Open<V> {
    Seq {
        id: Id,
        kind: Seq,
        ids: std::vec::IntoIter<Id>,
        out: Vec<V>,
    },
    Array {
        id: Id,
        meta: ArrayMeta,
        ids: std::vec::IntoIter<Id>,
        out: Vec<V>,
    },
    Dict {
        id: Id,
        ids: std::vec::IntoIter<(Id, Id)>,
        key: Option<V>,
        pending: Option<Id>,
        out: Vec<(V, V)>,
    },
}

/// What visiting an object gave.
enum Visit<V> {
    Done(V),
    Open(Open<V>),
}

/// Builds the value `root` of `arena` into `sink`; `len` is the pickle's length, `spent` what
/// the machine already charged against `limit`.
pub(super) fn build<S: Sink>(
    arena: Vec<Obj>,
    root: Id,
    limits: Limits,
    limit: u64,
    len: u64,
    spent: u64,
    sink: &mut S,
) -> Result<S::Value, Error> {
    // Python's unpickler decodes every Python 2 str as its opcode is read, values, array data
    // and datetime states alike: under ASCII, any one beyond ASCII fails the whole load.
    if limits.encoding == PickleEncoding::Ascii {
        let high = arena.iter().find_map(|o| match o {
            Obj::Py2Str(b) if !b.is_ascii() => Some(b),
            _ => None,
        });
        if let Some(b) = high {
            return Err(MismatchError::PickleNotAscii {
                text: ndnpy_engine::base::error::excerpt(format_args!("'{}'", b.escape_ascii())),
            }
            .into());
        }
    }
    let mut refs = vec![0u32; arena.len()];
    let mut bump = |id: Id| refs[id] = refs[id].saturating_add(1);
    bump(root);
    for obj in &arena {
        match obj {
            Obj::List(v) | Obj::Tuple(v) | Obj::Set(v) | Obj::FrozenSet(v) => {
                v.iter().for_each(|&i| bump(i))
            }
            Obj::Dict(v) => v.iter().for_each(|&(k, x)| {
                bump(k);
                bump(x)
            }),
            Obj::Array(a) => match a.data {
                Payload::Raw(i) | Payload::Items(i) => bump(i),
            },
            Obj::Masked(ma) => {
                let (Payload::Raw(i) | Payload::Items(i)) = ma.array.data;
                bump(i);
                bump(ma.mask);
                ma.fill.into_iter().for_each(&mut bump);
            }
            _ => {}
        }
    }
    let n = arena.len();
    let mut w = Walker {
        arena,
        refs,
        on_path: vec![false; n],
        max_depth: limits.max_depth.clamp(1, MAX_DEPTH),
        encoding: limits.encoding,
        spent,
        limit,
        len,
    };
    let mut stack: Vec<Open<S::Value>> = Vec::new();
    let mut next = Some(root);
    loop {
        // Visit the next child, or close the innermost container.
        let done = match next.take() {
            Some(id) => match w.visit(id, stack.len() + 1, sink)? {
                Visit::Done(v) => v,
                Visit::Open(open) => {
                    stack.push(open);
                    next = child(stack.last_mut().expect("just pushed"));
                    continue;
                }
            },
            None => {
                let open = stack.pop().expect("a container is open");
                w.close(open, sink)?
            }
        };
        // Give the value to its container.
        let Some(top) = stack.last_mut() else {
            return Ok(done);
        };
        match top {
            Open::Seq { out, .. } | Open::Array { out, .. } => out.push(done),
            Open::Dict {
                key, pending, out, ..
            } => match (key.take(), pending.take()) {
                (None, Some(v)) => {
                    *key = Some(done);
                    next = Some(v);
                    continue;
                }
                (Some(k), None) => out.push((k, done)),
                _ => unreachable!("a dict is given a key, then its value"),
            },
        }
        next = child(top);
    }
}

/// The next child of `open` to visit, if any.
fn child<V>(open: &mut Open<V>) -> Option<Id> {
    match open {
        Open::Seq { ids, .. } | Open::Array { ids, .. } => ids.next(),
        Open::Dict { ids, pending, .. } => {
            let (k, v) = ids.next()?;
            *pending = Some(v);
            Some(k)
        }
    }
}

/// What one value is counted as, besides its text, bytes and children.
const NODE: u64 = 64;

impl Walker {
    fn charge(&mut self, bytes: u64) -> Result<(), Error> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > self.limit {
            return Err(LimitError::PickleExpansion {
                pickle_len: self.len,
                limit: self.limit,
            }
            .into());
        }
        Ok(())
    }

    /// The object `id`, moved out if this is its last reference, else copied (only leaves
    /// and child lists are copied; the copy is charged).
    fn take(&mut self, id: Id) -> Obj {
        self.refs[id] = self.refs[id].saturating_sub(1);
        if self.refs[id] == 0 {
            return std::mem::replace(&mut self.arena[id], Obj::Taken);
        }
        let copy = self.copy(id);
        // The copy's children are referred to once more.
        match &copy {
            Obj::List(v) | Obj::Tuple(v) | Obj::Set(v) | Obj::FrozenSet(v) => {
                for &i in v {
                    self.refs[i] = self.refs[i].saturating_add(1);
                }
            }
            Obj::Dict(v) => {
                for &(k, x) in v {
                    self.refs[k] = self.refs[k].saturating_add(1);
                    self.refs[x] = self.refs[x].saturating_add(1);
                }
            }
            Obj::Array(a) => {
                let (Payload::Raw(i) | Payload::Items(i)) = a.data;
                self.refs[i] = self.refs[i].saturating_add(1);
            }
            Obj::Masked(ma) => {
                let (Payload::Raw(i) | Payload::Items(i)) = ma.array.data;
                for j in [i, ma.mask].into_iter().chain(ma.fill) {
                    self.refs[j] = self.refs[j].saturating_add(1);
                }
            }
            _ => {}
        }
        copy
    }

    fn copy(&self, id: Id) -> Obj {
        match &self.arena[id] {
            Obj::None => Obj::None,
            Obj::Bool(b) => Obj::Bool(*b),
            Obj::Int(v) => Obj::Int(*v),
            Obj::BigInt(b) => Obj::BigInt(b.clone()),
            Obj::Float(v) => Obj::Float(*v),
            Obj::Complex(r, i) => Obj::Complex(*r, *i),
            Obj::Str(s) => Obj::Str(s.clone()),
            Obj::CodePoints(p) => Obj::CodePoints(p.clone()),
            Obj::Py2Str(b) => Obj::Py2Str(b.clone()),
            Obj::Bytes(b) => Obj::Bytes(b.clone()),
            Obj::ByteArray(b) => Obj::ByteArray(b.clone()),
            Obj::List(v) => Obj::List(v.clone()),
            Obj::Tuple(v) => Obj::Tuple(v.clone()),
            Obj::Set(v) => Obj::Set(v.clone()),
            Obj::FrozenSet(v) => Obj::FrozenSet(v.clone()),
            Obj::Dict(v) => Obj::Dict(v.clone()),
            Obj::Scalar(d, n, b, r) => Obj::Scalar(d.clone(), *n, b.clone(), *r),
            Obj::Array(a) => Obj::Array(Box::new(copy_array(a))),
            Obj::Masked(ma) => Obj::Masked(Box::new(MaskedObj {
                array: copy_array(&ma.array),
                mask: ma.mask,
                fill: ma.fill,
            })),
            Obj::Range(a, b, c) => Obj::Range(*a, *b, *c),
            Obj::Time(v) => Obj::Time(v.clone()),
            Obj::MaskedNew => Obj::MaskedNew,
            // Not values: reported by `value`.
            Obj::Global(g) => Obj::Global(*g),
            Obj::DTypeNew(_, r) => Obj::DTypeNew(String::new(), *r),
            Obj::DType(d, a, n, r) => Obj::DType(d.clone(), *a, *n, *r),
            Obj::StringDType => Obj::StringDType,
            Obj::ArrayNew(r) => Obj::ArrayNew(*r),
            Obj::Taken => Obj::Taken,
        }
    }

    /// The bytes of an array's data (`Payload::Raw`), taken out and charged.
    fn raw(&mut self, data: Payload) -> Result<Vec<u8>, Error> {
        // Checked at BUILD to be bytes of the right length; nothing changes a bytes object
        // afterwards.
        let raw = match data {
            Payload::Raw(i) => match self.take(i) {
                Obj::Bytes(b) | Obj::ByteArray(b) | Obj::Py2Str(b) => b,
                _ => return Err(self.unsupported("an array whose data is not bytes")),
            },
            Payload::Items(_) => return Err(self.unsupported("an array whose data is not bytes")),
        };
        self.charge(raw.len() as u64)?;
        Ok(raw)
    }

    /// A 0-d or larger array of a dtype without objects, as a leaf's parts.
    fn plain_array(&mut self, a: ArrayObj) -> Result<(ArrayMeta, Vec<u8>), Error> {
        let raw = self.raw(a.data)?;
        Ok((
            ArrayMeta {
                dtype: (*a.dtype).clone(),
                shape: a.shape,
                fortran_order: a.fortran_order,
                to_native: a.to_native,
                recarray: a.recarray,
            },
            raw,
        ))
    }

    /// Visits `id` at `depth`: a leaf is built at once; a container is opened.
    fn visit<S: Sink>(
        &mut self,
        id: Id,
        depth: usize,
        sink: &mut S,
    ) -> Result<Visit<S::Value>, Error> {
        if self.on_path[id] {
            return Err(self.unsupported(
                "a cycle (a container that contains itself), which a tree of values cannot \
                 hold",
            ));
        }
        let obj = self.take(id);
        let heap = match &obj {
            Obj::BigInt(b) | Obj::Py2Str(b) | Obj::Bytes(b) | Obj::ByteArray(b) => b.len() as u64,
            Obj::Str(s) => s.len() as u64,
            Obj::CodePoints(p) => 4 * p.len() as u64,
            Obj::Scalar(_, n, b, _) => 64 * n + b.len() as u64,
            Obj::Array(a) => 64 * a.dtype_nodes + 8 * a.shape.len() as u64,
            Obj::Masked(ma) => 2 * (64 * ma.array.dtype_nodes + 8 * ma.array.shape.len() as u64),
            Obj::Time(_) => 64,
            _ => 0,
        };
        self.charge(NODE + heap)?;
        let open = |w: &mut Walker, ids: Vec<Id>| -> Result<std::vec::IntoIter<Id>, Error> {
            if depth > w.max_depth {
                return Err(LimitError::PickleTooDeep { limit: w.max_depth }.into());
            }
            w.on_path[id] = true;
            w.charge(NODE * ids.len() as u64)?;
            Ok(ids.into_iter())
        };
        let seq = |kind: Seq, ids: std::vec::IntoIter<Id>| {
            Visit::Open(Open::Seq {
                id,
                kind,
                out: Vec::with_capacity(ids.len()),
                ids,
            })
        };
        let leaf = match obj {
            Obj::None => Leaf::None,
            Obj::Bool(b) => Leaf::Bool(b),
            Obj::Int(v) => Leaf::Int(v),
            Obj::BigInt(b) => Leaf::BigInt(b),
            Obj::Float(v) => Leaf::Float(v),
            Obj::Complex(r, i) => Leaf::Complex(r, i),
            Obj::Str(s) => Leaf::Str(s),
            Obj::CodePoints(p) => Leaf::CodePoints(p),
            // A Python 2 str, as np.load(..., encoding=...) decodes it.
            Obj::Py2Str(b) => match self.encoding {
                PickleEncoding::Bytes => Leaf::Bytes(b),
                // Latin1, and Ascii (whose strings are checked to be ASCII before the walk);
                // the enum is the engine's and non-exhaustive.
                _ => Leaf::Str(b.iter().map(|&c| char::from(c)).collect()),
            },
            Obj::Bytes(b) => Leaf::Bytes(b),
            Obj::ByteArray(b) => Leaf::ByteArray(b),
            Obj::Scalar(d, _, b, record) => Leaf::Scalar((*d).clone(), b, record),
            Obj::List(v) => return Ok(seq(Seq::List, open(self, v)?)),
            Obj::Tuple(v) => return Ok(seq(Seq::Tuple, open(self, v)?)),
            Obj::Set(v) => return Ok(seq(Seq::Set, open(self, v)?)),
            Obj::FrozenSet(v) => return Ok(seq(Seq::FrozenSet, open(self, v)?)),
            Obj::Dict(pairs) => {
                if depth > self.max_depth {
                    return Err(LimitError::PickleTooDeep {
                        limit: self.max_depth,
                    }
                    .into());
                }
                self.on_path[id] = true;
                self.charge(2 * NODE * pairs.len() as u64)?;
                return Ok(Visit::Open(Open::Dict {
                    id,
                    out: Vec::with_capacity(pairs.len()),
                    ids: pairs.into_iter(),
                    key: None,
                    pending: None,
                }));
            }
            Obj::Array(a) => {
                let meta = ArrayMeta {
                    dtype: (*a.dtype).clone(),
                    shape: a.shape,
                    fortran_order: a.fortran_order,
                    to_native: a.to_native,
                    recarray: a.recarray,
                };
                match a.data {
                    Payload::Raw(_) => Leaf::Array(meta, self.raw(a.data)?),
                    Payload::Items(i) => {
                        // The list was checked at BUILD; a later APPEND may have grown it.
                        let count = meta.shape.iter().product::<usize>();
                        let ids = match self.take(i) {
                            Obj::List(v) if v.len() == count => v,
                            _ => {
                                return Err(FormatError::Pickle {
                                    offset: self.len,
                                    reason: "an object array's list changed after the array \
                                             was built"
                                        .into(),
                                }
                                .into())
                            }
                        };
                        let ids = open(self, ids)?;
                        return Ok(Visit::Open(Open::Array {
                            id,
                            meta,
                            out: Vec::with_capacity(ids.len()),
                            ids,
                        }));
                    }
                }
            }
            Obj::Range(start, stop, step) => Leaf::Range(start, stop, step),
            Obj::Time(v) => Leaf::Time(*v),
            Obj::Masked(ma) => {
                let MaskedObj { array, mask, fill } = *ma;
                let data = self.plain_array(array)?;
                let mask = self.raw(Payload::Raw(mask))?;
                let fill = match fill.map(|f| self.take(f)) {
                    None => None,
                    Some(Obj::Array(f)) => Some(self.plain_array(*f)?),
                    Some(Obj::None) => None,
                    Some(_) => return Err(self.unsupported("a MaskedArray's fill value")),
                };
                Leaf::Masked { data, mask, fill }
            }
            // The class range (numpy's own test files hold it), referred to, never called.
            Obj::Global(Global::Range) => Leaf::Class("builtins", "range"),
            Obj::Global(_) => return Err(self.unsupported("a global (a function or class)")),
            Obj::DType(..) | Obj::StringDType => {
                return Err(self.unsupported("a numpy dtype object as a value"))
            }
            Obj::DTypeNew(..) | Obj::ArrayNew(_) | Obj::MaskedNew => {
                return Err(self.unsupported("a numpy dtype or array that BUILD never set up"))
            }
            Obj::Taken => return Err(self.unsupported("an object met twice")),
        };
        Ok(Visit::Done(sink.leaf(leaf)?))
    }

    /// Builds a container whose children are all built.
    fn close<S: Sink>(&mut self, open: Open<S::Value>, sink: &mut S) -> Result<S::Value, Error> {
        match open {
            Open::Seq { id, kind, out, .. } => {
                self.on_path[id] = false;
                sink.seq(kind, out)
            }
            Open::Array { id, meta, out, .. } => {
                self.on_path[id] = false;
                sink.object_array(meta, out)
            }
            Open::Dict { id, out, .. } => {
                self.on_path[id] = false;
                sink.dict(out)
            }
        }
    }

    fn unsupported(&self, what: &str) -> Error {
        MismatchError::PickleUnsupported {
            offset: self.len,
            what: what.into(),
        }
        .into()
    }
}

fn copy_array(a: &ArrayObj) -> ArrayObj {
    ArrayObj {
        dtype: a.dtype.clone(),
        dtype_nodes: a.dtype_nodes,
        string_dtype: a.string_dtype,
        recarray: a.recarray,
        shape: a.shape.clone(),
        fortran_order: a.fortran_order,
        to_native: a.to_native,
        data: a.data,
    }
}
