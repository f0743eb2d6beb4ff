"""numpy's ``.npy`` and ``.npz`` files on ndnpy's engine, with numpy's calls.

``load``, ``save``, ``savez`` and ``savez_compressed`` take numpy's arguments and give numpy's
results, with two differences that are the point of this package:

* Object arrays load **without running pickle code** and without any flag: the pickle is
  read by ndnpy's own reader, which rebuilds numpy arrays, dtypes and scalars and Python's
  data (dicts, lists, tuples, str, bytes, int, float, complex, bool, None, sets, ranges,
  masked arrays) and nothing else. A pickle that names any other global (``os.system``,
  ``builtins.eval``, a class of your own) raises :class:`UnsafePickleError` naming it, and
  nothing of it is imported or run. ``allow_pickle`` is accepted for numpy's signature and
  changes nothing: this package never runs a file's code.
* ``savez_compressed`` deflates on every core; the archive is the same bytes whatever the
  number of cores, and ``np.load`` and ``zipfile`` read it.

:func:`inspect` lists what a file holds (dtype, shape, and for object arrays the pickle's
globals) without loading it.
"""

import ast
import contextlib
import contextvars
import gc
import io
import os
import pickletools
import stat
import threading
import zipfile

import numpy as np
from numpy.lib import format as _format

from . import _ndnpy
from ._ndnpy import UnsafePickleError

__all__ = [
    "load",
    "save",
    "savez",
    "savez_compressed",
    "inspect",
    "durable",
    "NpzFile",
    "UnsafePickleError",
]

_MAX_HEADER_SIZE = getattr(_format, "_MAX_HEADER_SIZE", 10000)
_MAGIC = b"\x93NUMPY"
_ZIP = b"PK\x03\x04"
_EMPTY_ZIP = b"PK\x05\x06"


def _dtype(descr):
    """numpy's dtype for the descr literal the engine read (a Python literal, evaluated as
    a literal, never as code)."""
    return _format.descr_to_dtype(ast.literal_eval(descr))


def _address(array):
    return array.__array_interface__["data"][0]


def _new_array(descr, fortran, shape):
    dtype = _dtype(descr)
    return np.empty(shape, dtype=dtype, order="F" if fortran else "C")


def _array_from_npy(data):
    return _format.read_array(io.BytesIO(data), allow_pickle=False)


def _object_array(shape, fortran, values):
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    out = out.reshape(shape)
    return np.asfortranarray(out) if fortran and out.ndim > 1 else out


def _bytes_of(array, fortran):
    """The bytes of a contiguous array in its memory order, as a uint8 view (no copy)."""
    return array.ravel(order="F" if fortran else "C").view(np.uint8)


def _masked(data, mask, fill_value):
    return np.ma.MaskedArray(data, mask=mask, fill_value=fill_value)


_STRINGDTYPE = b"_convert_to_stringdtype_kwargs"


def _stringdtype(pickle):
    """The ``StringDType`` a pickle's array was saved with (numpy pickles its arguments,
    ``coerce`` and ``na_object``, as literals), read by opcode without running anything;
    ``None`` if it holds no such array."""
    if _STRINGDTYPE not in pickle or not hasattr(np.dtypes, "StringDType"):
        return None
    literals, after, strings = [], False, []
    try:
        for op, arg, _ in pickletools.genops(pickle):
            if "UNICODE" in op.name:
                strings.append(arg)
            named = op.name == "STACK_GLOBAL" and strings[-1:] == [_STRINGDTYPE.decode()]
            if named or (op.name == "GLOBAL" and arg.endswith(" " + _STRINGDTYPE.decode())):
                after, literals = True, []
            elif not after:
                continue
            elif op.name in ("BININT", "BININT1", "BININT2", "INT", "LONG1"):
                literals.append(int(arg))
            elif op.name in ("NEWTRUE", "NEWFALSE"):
                literals.append(op.name == "NEWTRUE")
            elif op.name == "NONE":
                literals.append(None)
            elif op.name in ("BINFLOAT", "FLOAT"):
                literals.append(float(arg))
            elif "UNICODE" in op.name:
                literals.append(arg)
            elif op.name in ("TUPLE1", "TUPLE2", "TUPLE3"):
                n = int(op.name[-1])
                args = literals[-n:]
                kwargs = {"coerce": bool(args[0])}
                if n >= 2:
                    kwargs["na_object"] = args[1]
                return np.dtypes.StringDType(**kwargs)
    except Exception:
        pass
    return np.dtypes.StringDType()


def _objects(source, offset, max_header_size, encoding="ASCII"):
    """An object array (or any array) from a whole `.npy` file's bytes, `source`; Python 2
    ``str`` objects as numpy's ``encoding`` reads them."""
    # The objects built are new and hold no cycles: the collector, which would otherwise walk
    # every container made so far again and again as their count grows, waits till they are.
    collecting = gc.isenabled()
    gc.disable()
    try:
        out = _ndnpy.load_objects(
            source, offset, max_header_size, encoding, _array_from_npy, _object_array, _masked
        )
    finally:
        if collecting:
            gc.enable()
    if isinstance(out, np.ndarray) and out.dtype == object:
        data = source[offset:]
        if _STRINGDTYPE in data:
            data = data[_ndnpy.parse_header(data, 1 << 30)[3]:]
        dtype = _stringdtype(data)
        if dtype is not None:
            out = np.array(out, dtype=dtype, order="K")
    return out


def _path_of(file):
    if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
        return os.fsdecode(os.fspath(file))
    return None


def _regular_file(fp):
    """The descriptor of a file object over a regular file on disk, else None."""
    if not hasattr(_ndnpy, "read_into_fd"):
        return None
    try:
        fd = fp.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not fp.seekable():
            return None
        return fd
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _read_header_stream(fp, max_header_size):
    """The header of the `.npy` file at the stream's position: its bytes are read from the
    stream (numpy's reads), the fields by the engine."""
    start = fp.read(10)
    if len(start) < 10 or not start.startswith(_MAGIC):
        raise ValueError(
            "the file is not a .npy file: it does not start with numpy's magic string"
            if len(start) >= 6
            else "the file is truncated: it ends within the .npy magic string"
        )
    if start[6] == 1:
        length = int.from_bytes(start[8:10], "little")
        prefix = start
    else:
        more = fp.read(2)
        prefix = start + more
        if len(prefix) < 12:
            raise ValueError("the file is truncated: it ends within the .npy header length")
        length = int.from_bytes(prefix[8:12], "little")
    if length > max_header_size:
        raise ValueError(
            f"Header info length ({length}) is large and may not be safe to load securely. "
            "To allow loading, adjust `max_header_size`."
        )
    header = fp.read(length)
    return prefix + header, _ndnpy.parse_header(prefix + header, max_header_size)


def _load_npy_path(path, mmap_mode, max_header_size, encoding="ASCII"):
    descr, fortran, shape, data_offset, nbytes = _ndnpy.header_at(path, 0, max_header_size)
    dtype = _dtype(descr)
    if dtype.hasobject:
        if mmap_mode:
            raise ValueError("Array can't be memory-mapped: Python objects in dtype.")
        # Read once: the engine rebuilds the objects from these bytes, and a StringDType's
        # arguments are looked up in the same bytes.
        with open(path, "rb") as f:
            return _objects(f.read(), 0, max_header_size, encoding)
    if mmap_mode:
        order = "F" if fortran else "C"
        if mmap_mode == "w+":
            mmap_mode = "r+"
        return np.memmap(path, dtype=dtype, shape=tuple(shape), order=order,
                         mode=mmap_mode, offset=data_offset)
    out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    _ndnpy.read_into(path, data_offset, _address(out), nbytes)
    return out


def _load_npy_stream(fp, max_header_size, encoding="ASCII"):
    prefix, (descr, fortran, shape, data_offset, nbytes) = _read_header_stream(fp, max_header_size)
    dtype = _dtype(descr)
    if dtype.hasobject:
        return _objects(prefix + fp.read(), 0, max_header_size, encoding)
    out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    fd = _regular_file(fp)
    if nbytes and fd is not None:
        # A file on disk: read in place by the engine's positioned reads, then leave the
        # file just past the array, as numpy does.
        start = fp.tell()
        _ndnpy.read_into_fd(os.dup(fd), start, _address(out), nbytes)
        fp.seek(start + nbytes)
    elif nbytes:
        view = memoryview(_bytes_of(out, fortran))
        got = fp.readinto(view) if hasattr(fp, "readinto") else None
        if got is None:
            data = fp.read(nbytes)
            view[: len(data)] = data
            got = len(data)
        while got < nbytes:
            n = fp.readinto(view[got:])
            if not n:
                break
            got += n
        if got < nbytes:
            raise ValueError(
                f"EOF: reading array data, expected {nbytes} bytes got {got}"
            )
    return out


class NpzFile:
    """An `.npz` archive, read lazily as ``np.load`` gives it: ``files``, ``f[key]`` (with
    or without ``.npy``), iteration over the keys, ``with``, ``close``. Members are read
    when asked for; object arrays without running code, as :func:`load` reads them."""

    def __init__(self, path, own_file=None, max_header_size=_MAX_HEADER_SIZE,
                 encoding="ASCII"):
        self._archive = _ndnpy.Archive(path, max_header_size)
        self._encoding = encoding
        self._path = path
        self._own = own_file
        self._lock = threading.Lock()
        self._names = self._archive.names()
        self.files = [n[:-4] if n.endswith(".npy") else n for n in self._names]
        self._by_key = {}
        for key, name in zip(self.files, self._names):
            self._by_key.setdefault(key, name)
        for name in self._names:
            self._by_key.setdefault(name, name)
        self.zip = None
        self.fid = own_file

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the archive (and the file it opened)."""
        self._archive.close()
        if self._own is not None:
            self._own.close()
            self._own = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __len__(self):
        return len(self.files)

    def __iter__(self):
        return iter(self.files)

    def __contains__(self, key):
        return key in self._by_key

    def keys(self):
        return self.files

    def values(self):
        return [self[k] for k in self.files]

    def items(self):
        return [(k, self[k]) for k in self.files]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __getitem__(self, key):
        name = self._by_key.get(key)
        if name is None:
            raise KeyError(f"{key} is not a file in the archive")
        with self._lock:
            if not name.endswith(".npy"):
                # As numpy: a member of another name is an array if it is a .npy file.
                data = self._archive.bytes(name)
                if not data.startswith(_MAGIC):
                    return data
                return _load_npy_stream(io.BytesIO(data), self._archive.max_header_size,
                                        self._encoding)
            (descr, fortran, shape, data_offset, nbytes), stored_at = self._archive.header(name)
            dtype = _dtype(descr)
            if dtype.hasobject:
                data = self._archive.bytes(name)
                return _objects(data, 0, self._archive.max_header_size, self._encoding)
            out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
            if stored_at is not None and nbytes:
                _ndnpy.read_into(self._path, stored_at + data_offset, _address(out), nbytes)
            else:
                self._archive.read_into(name, _address(out), nbytes)
            return out

    def __repr__(self):
        return f"NpzFile {self._path!r} with keys: {', '.join(self.files[:5])}" + (
            "..." if len(self.files) > 5 else ""
        )


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII",
         *, max_header_size=_MAX_HEADER_SIZE):
    """Loads arrays from a ``.npy`` or ``.npz`` file, as ``numpy.load`` does.

    ``file`` is a path, a path-like, or a binary file object. A ``.npy`` file gives an array
    (a ``numpy.memmap`` with ``mmap_mode``); an ``.npz`` archive an :class:`NpzFile` (for a
    path, or a file object of a file on disk).

    Object arrays load without ``allow_pickle``: their pickle is read without running code
    (see the module's documentation); a pickle that would run code raises
    :class:`UnsafePickleError`. ``allow_pickle``, ``fix_imports`` and ``encoding`` are
    accepted for numpy's signature (``allow_pickle=True`` lifts ``max_header_size``, as in
    numpy, and runs no code). Python 2 pickles' ``str`` objects read as numpy reads them:
    text if ASCII (else ``UnicodeError``) by default, text with ``encoding="latin1"``, bytes
    with ``encoding="bytes"``. ``datetime`` dates, times, datetimes, timedeltas and
    timezones load; other classes (``zoneinfo``, ``pytz`` timezones among them) are refused
    with :class:`UnsafePickleError`.

    Raises ``OSError`` (with the path) if the file cannot be read, ``ValueError`` if it is
    not a valid file, :class:`UnsafePickleError` (a ``ValueError``) as above.
    """
    if encoding not in ("ASCII", "latin1", "bytes"):
        raise ValueError("encoding must be 'ASCII', 'latin1', or 'bytes'")
    if allow_pickle:
        # numpy ignores max_header_size when the caller vouches for the file.
        max_header_size = 1 << 30
    path = _path_of(file)
    if path is not None:
        with open(path, "rb") as fp:
            magic = fp.read(6)
        if magic.startswith(_ZIP) or magic.startswith(_EMPTY_ZIP):
            return NpzFile(path, max_header_size=max_header_size, encoding=encoding)
        if magic == _MAGIC:
            return _load_npy_path(path, mmap_mode, max_header_size, encoding)
        raise ValueError(f"{path}: not a .npy or .npz file (it starts with {magic!r})")
    fp = file
    start = fp.tell() if hasattr(fp, "tell") else None
    magic = fp.read(6)
    if start is not None:
        fp.seek(start)
    if magic.startswith(_ZIP) or magic.startswith(_EMPTY_ZIP):
        name = getattr(fp, "name", None)
        if isinstance(name, str) and os.path.isfile(name) and start == 0:
            return NpzFile(name, max_header_size=max_header_size, encoding=encoding)
        raise ValueError("an .npz archive is read from a path or a file on disk")
    if magic == _MAGIC:
        if mmap_mode:
            name = getattr(fp, "name", None)
            if isinstance(name, str) and os.path.isfile(name) and start == 0:
                return _load_npy_path(name, mmap_mode, max_header_size, encoding)
        return _load_npy_stream(fp, max_header_size, encoding)
    raise ValueError(f"not a .npy or .npz file (it starts with {magic!r})")


def _raw_member(array):
    """An array as the engine writes it: its memory (C or Fortran order) and its header's
    fields. An array in neither order is copied as ``np.save`` copies it, chunk by chunk in C
    order through ``nditer``, so that even padding bytes are numpy's."""
    array = np.asanyarray(array)
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    fortran = array.flags.f_contiguous and not array.flags.c_contiguous
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        buffersize = max(16 * 1024 ** 2 // array.itemsize, 1)
        chunks = np.nditer(array, flags=["external_loop", "buffered", "zerosize_ok"],
                           buffersize=buffersize, order="C")
        data = b"".join(chunk.tobytes("C") for chunk in chunks)
        array = np.frombuffer(data, dtype=array.dtype).reshape(array.shape)
    descr = repr(_format.dtype_to_descr(array.dtype))
    return array, descr, fortran


_DURABLE = contextvars.ContextVar("ndnpy_durable", default=False)


@contextlib.contextmanager
def durable():
    """Makes every file :func:`save`, :func:`savez` and :func:`savez_compressed` write by
    path inside the ``with`` block durable: the file and its directory reach the disk
    (``fsync``) before the call returns, so that a power cut after it leaves the new file.
    Without it, writes by path are atomic (a reader, or a crash of the process, sees the
    old file or the new one, never a part) but may stay in the page cache a while.

    ::

        with ndnpy.durable():
            ndnpy.savez("checkpoint.npz", w=w)
    """
    token = _DURABLE.set(True)
    try:
        yield
    finally:
        _DURABLE.reset(token)


def save(file, arr, allow_pickle=True, fix_imports=True):
    """Saves an array to a ``.npy`` file, the same bytes as ``numpy.save``. A path gets
    ``.npy`` appended as numpy does and is written atomically (durably inside
    :func:`durable`); a file object is written where it is. Object arrays are pickled as
    numpy pickles them (writing runs no file's code)."""
    array = np.asanyarray(arr)
    path = _path_of(file)
    if path is not None and not path.endswith(".npy"):
        path += ".npy"
    if array.dtype.hasobject:
        if not allow_pickle:
            raise ValueError("Object arrays cannot be saved when allow_pickle=False")
        if path is None:
            return np.save(file, array, allow_pickle=True)
        buf = io.BytesIO()
        np.save(buf, array, allow_pickle=True)
        return _ndnpy.write_file(path, buf.getvalue(), _DURABLE.get())
    array, descr, fortran = _raw_member(array)
    if path is None:
        file.write(_ndnpy.header_bytes(descr, fortran, list(array.shape)))
        if array.size:
            file.write(memoryview(_bytes_of(array, fortran)))
        return
    _ndnpy.write_npy(path, descr, fortran, list(array.shape), _address(array), array.nbytes,
                     _DURABLE.get())


def _savez(file, args, kwds, compress):
    # numpy's order: the keywords, then the positional arrays.
    named = dict(kwds)
    for i, a in enumerate(args):
        key = f"arr_{i}"
        if key in kwds:
            raise ValueError(f"Cannot use un-named variables and keyword {key}")
        named[key] = a
    path = _path_of(file)
    if path is not None and not path.endswith(".npz"):
        path += ".npz"
    members, keep = [], []
    for key, value in named.items():
        array = np.asanyarray(value)
        if array.dtype.hasobject:
            buf = io.BytesIO()
            np.save(buf, array, allow_pickle=True)
            members.append((key, buf.getvalue()))
            continue
        array, descr, fortran = _raw_member(array)
        keep.append(array)
        members.append((key, descr, fortran, list(array.shape), _address(array), array.nbytes))
    if path is None:
        # A file object: the archive a path would get, written where the file is.
        file.write(_ndnpy.npz_bytes(members, compress))
        return
    _ndnpy.write_npz(path, members, compress, _DURABLE.get())


def savez(file, *args, allow_pickle=True, **kwds):
    """Saves arrays into an uncompressed ``.npz`` archive, as ``numpy.savez`` does (members
    ``arr_0``, ... for positional arrays, keywords by name); a path is written atomically
    (durably inside :func:`durable`), a binary file object gets the same bytes where it is."""
    _savez(file, args, kwds, False)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """As :func:`savez`, deflated on every core (the same bytes whatever their number)."""
    _savez(file, args, kwds, True)


def _pickle_globals(data):
    """The globals a pickle names (each ``module.name``), read opcode by opcode:
    ``pickletools.genops`` parses and runs nothing. The two strings ``STACK_GLOBAL`` takes
    are followed through the memo; a malformed pickle lists what came before the fault and
    ``<malformed pickle>``."""
    found, stack, memo = [], [], {}
    try:
        for op, arg, _ in pickletools.genops(data):
            name = op.name
            if name == "GLOBAL":
                module, attr = arg.split(" ", 1)
                found.append(f"{module}.{attr}")
                stack.append(None)
            elif name == "STACK_GLOBAL":
                pair = stack[-2:] if len(stack) >= 2 else [None, None]
                found.append(
                    f"{pair[0]}.{pair[1]}" if None not in pair else "<a computed global>"
                )
                stack.append(None)
            elif "UNICODE" in name or name in ("STRING", "BINSTRING", "SHORT_BINSTRING"):
                stack.append(arg if isinstance(arg, str) else None)
            elif name == "MEMOIZE":
                memo[len(memo)] = stack[-1] if stack else None
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[arg] = stack[-1] if stack else None
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                stack.append(memo.get(arg))
            elif name == "STOP":
                break
            else:
                stack.append(None)
    except Exception:
        found.append("<malformed pickle>")
    return sorted(set(found))


def _describe(header, npy_bytes=None):
    descr, fortran, shape, data_offset, nbytes = header
    dtype = _dtype(descr)
    out = {"dtype": dtype, "shape": tuple(shape), "fortran_order": fortran}
    if dtype.hasobject:
        out["pickle_globals"] = _pickle_globals(npy_bytes[data_offset:]) if npy_bytes else []
    return out


def inspect(file, max_header_size=_MAX_HEADER_SIZE):
    """What loading ``file`` would need, without loading it: for a ``.npy`` file a dict of
    ``dtype``, ``shape``, ``fortran_order`` and, for an object array, ``pickle_globals``
    (the globals its pickle names, each ``module.name``); for an ``.npz`` archive a dict of
    those by key. Nothing is unpickled."""
    path = _path_of(file)
    if path is None:
        raise TypeError("inspect takes a path")
    with open(path, "rb") as fp:
        magic = fp.read(6)
    if magic.startswith(_ZIP) or magic.startswith(_EMPTY_ZIP):
        archive = _ndnpy.Archive(path, max_header_size)
        try:
            out = {}
            for name in archive.names():
                key = name[:-4] if name.endswith(".npy") else name
                if not name.endswith(".npy"):
                    continue
                header, _ = archive.header(name)
                npy = archive.bytes(name) if _dtype(header[0]).hasobject else None
                out[key] = _describe(header, npy)
            return out
        finally:
            archive.close()
    header = _ndnpy.header_at(path, 0, max_header_size)
    npy = None
    if _dtype(header[0]).hasobject:
        with open(path, "rb") as fp:
            npy = fp.read()
    return _describe(header, npy)
