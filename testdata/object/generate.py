"""Writes the object-array (pickled) fixtures in this folder with numpy and Python's pickle.

Run from the repository root:  python3 testdata/object/generate.py
Files are deterministic. tests/it/object.rs reads each one and compares every value with what
np.load(..., allow_pickle=True, encoding='latin1') gives for it (through canon() below, which
the test runs too).

Files written by np.save (protocol 4, numpy 2 module paths):
  meta.npy            a 0-d object array holding a dict (np.save of a dict)
  labels.npy          an object array of str
  ragged_f8.npy       an object array of float64 arrays of lengths 3, 1, 0
  kinds.npy           one element of each value kind ndnpy reads (KINDS below)
  nested.npy          containers nested in containers, and arrays of objects in arrays
  fortran.npy         a 2x3 Fortran-ordered object array
  stringdtype.npy     a numpy 2 StringDType array (np.save pickles it, with a warning)
  stringdtype_na.npy  StringDType(na_object=None) with a missing value
  shared.npy          one list and one str referred to several times (memo references)
  cycle.npy           a list that contains itself (ndnpy refuses cycles)
  fraction.npy        a fractions.Fraction (a global ndnpy does not resolve)
  objects.npz         np.savez of meta and labels
  subclasses.npy      ndarray subclasses whose pickles are plain data, and ranges (SUBCLASSES
                      below): a numpy.rec.recarray, numpy.ma.MaskedArrays (float, int with a
                      fill value, Fortran-ordered 2-d, nothing masked, big-endian, str),
                      range values and the class range
Files written by pickle.dump after numpy's own header (np.save always uses protocol 4):
  kinds_p0.npy .. kinds_p5.npy   KINDS pickled with protocols 0 to 5 (5 pickles arrays
                                 in-band through numpy._core.numeric._frombuffer)
  subclasses_p0.npy .. subclasses_p5.npy   SUBCLASSES pickled with protocols 0 to 5
  records.npy         record scalars (RECORDS): rows of a recarray (numpy.record) and of a
                      structured array (numpy.void)
  datetimes.npy       the datetime module's values (DATETIMES): dates, times and datetimes,
                      naive, with fold=1 and with timezones (utc, named, negative offsets),
                      timedeltas (max and min included), timezones as values; np.save's bytes
  datetimes_p0.npy .. datetimes_p5.npy   DATETIMES pickled with protocols 0 to 5
Files crafted here (numpy 2.4 cannot write them; each is checked to load in numpy):
  kinds_np1.npy       KINDS pickled with protocol 3, as numpy 1.x's np.save did, with the
                      numpy 1 module paths (numpy.core.multiarray, numpy.core.numeric): the
                      GLOBAL opcode's text is rewritten, which changes no length field
  py2_latin1.npy      a Python 2 style file: protocol 2 written opcode by opcode (no framing),
                      Python 2 byte strings (SHORT_BINSTRING, BINSTRING) as the items, the
                      dtype's arguments and a nested float64 array's data, numpy 1 module
                      paths; np.load reads it with encoding='latin1'
  py2_datetime.npy    a Python 2 style file: a datetime, a date and a time whose states are
                      Python 2 byte strings (SHORT_BINSTRING), and a timedelta
  records_np1.npy     RECORDS pickled with protocol 2, with the numpy 1 module paths
                      (numpy.core.multiarray.scalar, numpy.core.records.record)
  subclasses_np1.npy  SUBCLASSES pickled with protocol 2, with the numpy 1 module paths of
                      the classes (numpy.core.records.recarray, numpy.ma.core.MaskedArray,
                      numpy.core.multiarray): GLOBAL text rewritten, no length field changed

numpy's own object-array files (numpy/lib/tests/data/ in the numpy wheel: py2-objarr.npy,
py3-objarr.npy, py2-np0-objarr.npy and the .npz forms, which hold None, the class range
(Python 2's __builtin__.xrange), a str and a Python 2 str or bytes) are not copied here:
tests/it/object.rs finds them in the installed numpy and compares them through canon() too
(for an .npz, this script prints one line per member).
"""
import datetime as dt
import fractions
import io
import os
import pickle
import struct
import sys
import warnings

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))


def obj_array(items, shape=None):
    a = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        a[i] = x
    return a if shape is None else a.reshape(shape)


KINDS = [
    None, True, False, 0, -1, 255, 65536, -2**31, 2**63 - 1, -2**63, 2**64, -2**70, 10**40,
    1.5, float("inf"), -0.0, complex(1, -2), "", "text", "é🦀", "lone \ud800 surrogate",
    b"", b"by\x00tes", bytearray(b"ba"), [1, [2, "x"]], (), (1, "a"), {"k": [1.5], 2: None},
    {1, 2}, frozenset({3}),
    np.float32(1.5), np.int64(-3), np.uint8(200), np.bool_(True), np.str_("ab"),
    np.bytes_(b"cd"), np.complex64(1 - 1j), np.datetime64("2020-01-02", "D"),
    np.timedelta64(25, "ms"),
    np.arange(6, dtype="<i8").reshape(2, 3), np.arange(4, dtype=">f4"),
    np.asfortranarray(np.arange(6, dtype="<u2").reshape(2, 3)),
    np.array(["ab", "c"], dtype="<U2"), np.array([b"xyz"], dtype="S3"),
    np.array([True, False]), np.array(["2020-01-01T00:00", "NaT"], dtype="M8[m]"),
    np.zeros(2, dtype=[("a", "<i4"), ("b", ">f8", (2,)), ("c", "S2")]),
    np.zeros(1, dtype=np.dtype({"names": ["x"], "formats": ["<i2"], "offsets": [2],
                                "titles": ["the x"], "itemsize": 8})),
    np.float16(0.5), np.zeros((0, 2)), np.array(7.0),
]


def masked_fortran():
    data = np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3))
    m = np.ma.masked_array(data, mask=np.asfortranarray([[0, 1, 0], [1, 0, 0]], dtype=bool))
    assert m.flags.fnc
    return m


SUBCLASSES = [
    np.rec.array([(1, 2.5, b"ab"), (3, 4.5, b"c")],
                 dtype=[("a", "<i4"), ("b", "<f8"), ("c", "S2")]),
    np.ma.masked_array([1.5, 2.5, 3.5], mask=[False, True, False]),
    np.ma.masked_array(np.arange(4, dtype="<i2"), mask=[1, 0, 0, 1], fill_value=7),
    masked_fortran(),
    np.ma.masked_array(np.array([1, 2], dtype=">u4")),
    np.ma.masked_array(np.array(["ab", "c"]), mask=[0, 1], fill_value="zz"),
    range(1, 10, 2), range(-5), range(0, 2**62, 3), range(7, -7, -2), range,
]


_REC = np.rec.array([(1, 2.5, b"ab"), (3, 4.5, b"c")],
                    dtype=[("a", "<i4"), ("b", "<f8"), ("c", "S2")])
# Record scalars, as an object array holds rows taken from a recarray (numpy.record) or from a
# structured array (numpy.void).
RECORDS = [_REC[0], _REC[1], np.array([(7, b"xy")], dtype=[("i", ">i2"), ("s", "S2")])[0]]


CET = dt.timezone(dt.timedelta(hours=1), "CET")
WEST = dt.timezone(-dt.timedelta(hours=3, minutes=30))
DATETIMES = [
    dt.date(2024, 2, 29), dt.date(1, 1, 1), dt.date(9999, 12, 31),
    dt.time(23, 59, 58, 999999), dt.time(1, 2, 3, fold=1), dt.time(4, 5, tzinfo=CET),
    dt.datetime(2024, 5, 6, 7, 8, 9, 123456), dt.datetime(2021, 11, 7, 1, 30, fold=1),
    dt.datetime(2024, 5, 6, tzinfo=dt.timezone.utc),
    dt.datetime(2000, 1, 1, 12, tzinfo=dt.timezone.utc),
    dt.datetime(1999, 12, 31, 23, 59, 59, tzinfo=CET), dt.datetime(2010, 6, 1, tzinfo=WEST),
    dt.datetime.max, dt.datetime.min,
    dt.timedelta(days=-3, seconds=5, microseconds=7), dt.timedelta(0), dt.timedelta.max,
    dt.timedelta.min, dt.timezone.utc, CET, WEST,
    [dt.date(2020, 1, 1), {"when": dt.datetime(2020, 1, 1, 0, 0)}],
]


def save_with_protocol(path, arr, protocol, rewrite=None):
    """numpy's header, then the array pickled with `protocol` (np.save uses 4)."""
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, npformat.header_data_from_array_1_0(arr))
    data = pickle.dumps(arr, protocol=protocol)
    if rewrite:
        for old, new in rewrite:
            data = data.replace(old, new)
    buf.write(data)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def py2_datetime_pickle():
    """A protocol 2 pickle as Python 2 wrote datetime values: an object array of
    [datetime(2024, 5, 6, 7, 8, 9, 123456), date(2024, 5, 6), time(1, 2, 3, 4),
    timedelta(-3, 5, 7)], the packed states as Python 2 byte strings (SHORT_BINSTRING)."""
    out = bytearray(b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85")
    out.extend(b"U\x01b\x87R(K\x01K\x04\x85cnumpy\ndtype\nU\x02O8K\x00K\x01\x87R(K\x03U\x01|")
    out.extend(b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](")
    for name, state in [(b"datetime", b"\x07\xe8\x05\x06\x07\x08\x09\x01\xe2\x40"),
                        (b"date", b"\x07\xe8\x05\x06"), (b"time", b"\x01\x02\x03\x00\x00\x04")]:
        out.extend(b"cdatetime\n" + name + b"\nU" + bytes([len(state)]) + state + b"\x85R")
    out.extend(b"cdatetime\ntimedelta\nJ\xfd\xff\xff\xffK\x05K\x07\x87R")
    out.extend(b"etb.")
    return bytes(out)


def py2_pickle():
    """A protocol 2 pickle as Python 2 and numpy 1 wrote it, opcode by opcode: an object array
    of [b'caf\\xe9' (a Python 2 str), u'x', 1, 2.5, None, array([1.5, -2.0]), [b'']]."""
    out = bytearray(b"\x80\x02")

    def glob(module, name):
        out.extend(b"c" + module + b"\n" + name + b"\n")

    def sbs(b):  # SHORT_BINSTRING
        out.extend(b"U" + bytes([len(b)]) + b)

    def dtype(typestr, endian, elsize=-1, flags=0):
        glob(b"numpy", b"dtype")
        sbs(typestr)
        out.extend(b"K\x00K\x01\x87R")  # (typestr, 0, 1) REDUCE
        out.extend(b"(K\x03")
        sbs(endian)
        out.extend(b"NNN" + b"J" + struct.pack("<i", elsize) + b"J" + struct.pack("<i", -1)
                   + b"K" + bytes([flags]) + b"tb")

    def reconstruct():
        glob(b"numpy.core.multiarray", b"_reconstruct")
        glob(b"numpy", b"ndarray")
        out.extend(b"K\x00\x85")
        sbs(b"b")
        out.extend(b"\x87R")

    reconstruct()
    out.extend(b"(K\x01K\x07\x85")
    dtype(b"O8", b"|", flags=63)
    out.extend(b"\x89]q\x00(")
    sbs(b"caf\xe9")
    out.extend(b"X\x01\x00\x00\x00x")  # BINUNICODE u'x'
    out.extend(b"K\x01G" + struct.pack(">d", 2.5) + b"N")
    # The nested array: its data is a Python 2 str (BINSTRING).
    reconstruct()
    out.extend(b"(K\x01K\x02\x85")
    dtype(b"f8", b"<")
    out.extend(b"\x89T" + struct.pack("<i", 16) + struct.pack("<2d", 1.5, -2.0) + b"tb")
    # An empty Python 2 str, as bytes in a list.
    out.extend(b"]q\x01")
    sbs(b"")
    out.extend(b"a")
    out.extend(b"etb.")
    return bytes(out)


def canon(x):
    """A canonical text of a loaded value, which tests/it/object.rs computes for ndnpy's."""
    if isinstance(x, np.ma.MaskedArray):
        # numpy sets the fill value as it loads a pickle whose fill value is None, to
        # np.ma.default_fill_value(dtype): that default is "N", as ndnpy's None.
        fill = x._fill_value
        default = np.asarray(np.ma.default_fill_value(x.dtype))
        if fill is None or (fill.shape == () and fill.tobytes() == default.astype(fill.dtype).tobytes()):
            fill = "N"
        else:
            fill = canon(np.asarray(fill))
        return "M[%s,%s,%s]" % (canon(np.asarray(x.data)), canon(np.ma.getmaskarray(x)), fill)
    if isinstance(x, range):
        return "Q[%d,%d,%d]" % (x.start, x.stop, x.step)
    if isinstance(x, type):
        return "K" + x.__module__ + "." + x.__qualname__
    if isinstance(x, np.rec.recarray):
        return "P" + canon(np.asarray(x))  # the array it holds
    if isinstance(x, np.record):
        buf = io.BytesIO()
        np.save(buf, np.array(x))
        return "J" + buf.getvalue().hex()
    if isinstance(x, np.ndarray):
        if x.dtype == object or isinstance(x.dtype, np.dtypes.StringDType):
            flat = [canon(v) for v in x.ravel(order="C")]
            return "O%s[%s]" % (list(x.shape), ",".join(flat))
        buf = io.BytesIO()
        np.save(buf, x)
        return "A" + buf.getvalue().hex()
    if isinstance(x, np.generic):
        buf = io.BytesIO()
        np.save(buf, np.array(x))
        return "Z" + buf.getvalue().hex()
    if isinstance(x, dt.timedelta):
        return "Xd[%d,%d,%d]" % (x.days, x.seconds, x.microseconds)
    if isinstance(x, dt.timezone):
        args = x.__getinitargs__()
        return "Xz[%s,%s]" % (canon(args[0]), canon(args[1]) if len(args) > 1 else "N")
    if isinstance(x, dt.datetime):
        return "Xw[%d,%d,%d,%s]" % (x.year, x.month, x.day, canon_time(x))
    if isinstance(x, dt.date):
        return "Xa[%d,%d,%d]" % (x.year, x.month, x.day)
    if isinstance(x, dt.time):
        return "Xt[%s]" % canon_time(x)
    if x is None:
        return "N"
    if isinstance(x, bool):
        return "B%d" % x
    if isinstance(x, int):
        return "I%d" % x
    if isinstance(x, float):
        return "F" + struct.pack("<d", x).hex()
    if isinstance(x, complex):
        return "C" + struct.pack("<dd", x.real, x.imag).hex()
    if isinstance(x, str):
        return "S" + x.encode("utf-8", "surrogatepass").hex()
    if isinstance(x, bytearray):
        return "R" + bytes(x).hex()
    if isinstance(x, bytes):
        return "Y" + x.hex()
    if isinstance(x, list):
        return "L[%s]" % ",".join(canon(v) for v in x)
    if isinstance(x, tuple):
        return "T[%s]" % ",".join(canon(v) for v in x)
    if isinstance(x, dict):
        return "D[%s]" % ",".join("%s:%s" % (canon(k), canon(v)) for k, v in x.items())
    if isinstance(x, frozenset):
        return "G[%s]" % ",".join(sorted(canon(v) for v in x))
    if isinstance(x, set):
        return "E[%s]" % ",".join(sorted(canon(v) for v in x))
    raise TypeError(type(x))


def canon_time(x):
    return "%d,%d,%d,%d,%d,%s" % (x.hour, x.minute, x.second, x.microsecond, x.fold,
                                  canon(x.tzinfo) if x.tzinfo is not None else "N")


def load_canon(path, encoding="latin1"):
    """canon() of what numpy loads from `path`: a .npy file, or an .npz, one line per member
    in the archive's order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = np.load(path, allow_pickle=True, encoding=encoding)
        if isinstance(loaded, np.lib.npyio.NpzFile):
            with loaded:
                return "\n".join(canon(loaded[k]) for k in loaded.files)
        return canon(loaded)


def main():
    warnings.simplefilter("ignore")
    p = lambda name: os.path.join(HERE, name)
    np.save(p("meta.npy"), {"lr": 0.1, "classes": ["cat", "dog"], "epochs": 3})
    labels = obj_array(["cat", "dog", "émeu", "🦀"])
    np.save(p("labels.npy"), labels)
    np.save(p("ragged_f8.npy"), obj_array([np.arange(3) * 0.5, np.array([7.0]), np.zeros(0)]))
    kinds = obj_array(KINDS)
    np.save(p("kinds.npy"), kinds)
    inner = obj_array(["in", obj_array([1, None])])
    np.save(p("nested.npy"), obj_array([[[[{"deep": (1, [2, {3: b"x"}])}]]], inner,
                                        {"arr": np.arange(2.0), "set": frozenset({"a"})}]))
    np.save(p("fortran.npy"),
            np.asfortranarray(obj_array([1, "b", None, 2.5, [3], (4,)], shape=(2, 3))))
    np.save(p("stringdtype.npy"), np.array(["a", "bc", "", "é🦀"], dtype=np.dtypes.StringDType()))
    np.save(p("stringdtype_na.npy"),
            np.array(["a", None, "bc"], dtype=np.dtypes.StringDType(na_object=None)))
    s = "shared string"
    l = [1, 2]
    np.save(p("shared.npy"), obj_array([s, s, l, l, [l, s]]))
    cyc = []
    cyc.append(cyc)
    np.save(p("cycle.npy"), obj_array([cyc]))
    np.save(p("fraction.npy"), obj_array([fractions.Fraction(1, 3)]))
    np.savez(p("objects.npz"), meta={"lr": 0.1}, labels=labels)
    for proto in range(6):
        save_with_protocol(p("kinds_p%d.npy" % proto), kinds, proto)
    save_with_protocol(p("kinds_np1.npy"), kinds, 3,
                       rewrite=[(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n"),
                                (b"cnumpy._core.numeric\n", b"cnumpy.core.numeric\n")])
    subclasses = obj_array(SUBCLASSES)
    np.save(p("subclasses.npy"), subclasses)
    for proto in range(6):
        save_with_protocol(p("subclasses_p%d.npy" % proto), subclasses, proto)
    save_with_protocol(p("subclasses_np1.npy"), subclasses, 2,
                       rewrite=[(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n"),
                                (b"cnumpy.rec\nrecarray\n", b"cnumpy.core.records\nrecarray\n"),
                                (b"cnumpy.ma\nMaskedArray\n", b"cnumpy.ma.core\nMaskedArray\n")])
    records = obj_array(RECORDS)
    np.save(p("records.npy"), records)
    save_with_protocol(p("records_np1.npy"), records, 2,
                       rewrite=[(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n"),
                                (b"cnumpy\nrecord\n", b"cnumpy.core.records\nrecord\n")])
    with open(p("records_np1.npy"), "rb") as f:
        assert b"numpy.core.records\nrecord" in f.read()
    arr = obj_array([0] * 7)
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, npformat.header_data_from_array_1_0(arr))
    with open(p("py2_latin1.npy"), "wb") as f:
        f.write(buf.getvalue() + py2_pickle())
    datetimes = obj_array(DATETIMES)
    np.save(p("datetimes.npy"), datetimes)
    for proto in range(6):
        save_with_protocol(p("datetimes_p%d.npy" % proto), datetimes, proto)
    arr = obj_array([0] * 4)
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, npformat.header_data_from_array_1_0(arr))
    with open(p("py2_datetime.npy"), "wb") as f:
        f.write(buf.getvalue() + py2_datetime_pickle())
    assert list(np.load(p("py2_datetime.npy"), allow_pickle=True, encoding="latin1")) == [
        dt.datetime(2024, 5, 6, 7, 8, 9, 123456), dt.date(2024, 5, 6), dt.time(1, 2, 3, 4),
        dt.timedelta(-3, 5, 7)]
    # Every file loads in numpy (the crafted ones included), and the numpy 1 paths are there.
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".npy") and name not in ("cycle.npy", "fraction.npy"):
            load_canon(p(name))
    with open(p("kinds_np1.npy"), "rb") as f:
        data = f.read()
        assert b"numpy.core.multiarray" in data and b"numpy._core" not in data
    with open(p("subclasses_np1.npy"), "rb") as f:
        data = f.read()
        assert b"numpy.core.records\nrecarray" in data and b"numpy.ma.core\nMaskedArray" in data
        assert b"numpy._core" not in data and b"numpy.rec\n" not in data
    loaded = np.load(p("subclasses.npy"), allow_pickle=True)
    assert type(loaded[0]) is np.rec.recarray and type(loaded[1]) is np.ma.MaskedArray
    assert loaded[3].flags.fnc and loaded[-1] is range
    assert "caf\xe9" in repr(np.load(p("py2_latin1.npy"), allow_pickle=True, encoding="latin1"))


if __name__ == "__main__":
    if len(sys.argv) >= 2:
        # tests/it/object.rs: print canon() of each file given, one per line (loaded with
        # encoding='latin1', or the encoding of a first argument --encoding=...).
        paths, encoding = sys.argv[1:], "latin1"
        if paths[0].startswith("--encoding="):
            encoding = paths.pop(0)[len("--encoding="):]
        for path in paths:
            print(load_canon(path, encoding))
    else:
        main()
