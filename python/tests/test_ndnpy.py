"""The Python package against numpy, the oracle: every fixture the repository ships (written
by numpy, testdata/generate*.py), numpy's own object-array files (Python 2 and 3), what
numpy writes in every layout; hostile pickles that run code under np.load refused with
nothing run or imported; damaged files as exceptions, never a crash."""

import datetime
import gc
import glob
import io
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import ndnpy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")
NUMPY_DATA = os.path.join(os.path.dirname(np.__file__), "lib", "tests", "data")


def same(a, b):
    """Equal as numpy holds them: type, dtype, shape, memory order and every element (NaN
    equal to NaN; object arrays element by element)."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        assert a.shape == b.shape
        assert a.flags.f_contiguous == b.flags.f_contiguous
        if a.dtype.names:
            # Field by field: numpy leaves padding between fields as it finds it (np.load
            # of a stream assigns fields and never writes the padding).
            for name in a.dtype.names:
                same(a[name], b[name])
        elif a.dtype.hasobject:
            for x, y in zip(a.ravel(order="K"), b.ravel(order="K")):
                same(x, y)
        else:
            assert a.tobytes(order="A") == b.tobytes(order="A")
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys())
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, (datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo)):
        # == of aware datetimes compares instants; the repr shows every field, fold and tzinfo.
        assert repr(a) == repr(b), (a, b)
    elif isinstance(a, float) and a != a:
        assert b != b
    else:
        assert a == b, (a, b)


def npy_fixtures():
    return sorted(glob.glob(os.path.join(TESTDATA, "*.npy")))


@pytest.mark.parametrize("path", npy_fixtures(), ids=os.path.basename)
def test_every_npy_fixture_loads_as_np_load_gives_it(path):
    try:
        try:
            want = np.load(path)
        except ValueError as e:
            if "Object arrays cannot be loaded" not in str(e):
                raise
            want = np.load(path, allow_pickle=True)
    except Exception:  # a file numpy refuses: ndnpy refuses it too
        with pytest.raises((ValueError, OSError, ndnpy.UnsafePickleError)):
            ndnpy.load(path)
        return
    got = ndnpy.load(path)
    same(got, want)
    # Through a file object too.
    with open(path, "rb") as f:
        same(ndnpy.load(f), want)


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(TESTDATA, "*.npz"))), ids=os.path.basename
)
def test_every_npz_fixture_loads_member_by_member(path):
    try:
        want = np.load(path, allow_pickle=True)
        keys = list(want.files)
    except Exception:
        with pytest.raises((ValueError, OSError, KeyError)):
            with ndnpy.load(path) as got:
                [got[k] for k in got.files]
        return
    with ndnpy.load(path) as got:
        assert got.files == keys
        for k in keys:
            try:
                w = want[k]
            except Exception:
                with pytest.raises((ValueError, OSError, ndnpy.UnsafePickleError)):
                    got[k]
                continue
            same(got[k], w)


@pytest.mark.parametrize(
    "name", ["py2-objarr.npy", "py3-objarr.npy", "py2-np0-objarr.npy", "python3.npy",
             "win64python2.npy"]
)
def test_numpys_own_object_and_python2_files(name):
    path = os.path.join(NUMPY_DATA, name)
    if not os.path.exists(path):
        pytest.skip("numpy's test data is not installed")
    want = np.load(path, allow_pickle=True, encoding="latin1")
    same(ndnpy.load(path, encoding="latin1"), want)


@pytest.mark.parametrize("name", ["py2-objarr.npz", "py3-objarr.npz"])
def test_numpys_own_object_archives(name):
    path = os.path.join(NUMPY_DATA, name)
    if not os.path.exists(path):
        pytest.skip("numpy's test data is not installed")
    want = np.load(path, allow_pickle=True, encoding="latin1")
    with ndnpy.load(path, encoding="latin1") as got:
        assert got.files == want.files
        for k in want.files:
            same(got[k], want[k])


DTYPES = ["?", "i1", "<u2", ">i4", "<i8", ">u8", "<f2", ">f4", "<f8", ">c8", "<c16",
          "<M8[ns]", ">m8[D]", "S5", "<U3", ">U2", "V4", "<g",
          [("x", "<i4"), ("y", ">f8", (2, 2)), ("z", "S3")],
          {"names": ["a", "b"], "formats": ["<i2", "<f4"], "offsets": [0, 4], "itemsize": 12}]


def sample(dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.random.default_rng(n).integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    if dtype.kind == "b":
        raw = raw % 2
    if dtype.kind == "U":
        raw = np.frombuffer(np.array(["ab", "c", "xyz"] * n, dtype="<U3")[:n].astype(dtype).tobytes(),
                            np.uint8)
    return np.frombuffer(raw.tobytes(), dtype=dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "0d", "empty"])
def test_save_writes_np_saves_bytes_and_load_reads_them_back(tmp_path, dtype, layout):
    a = sample(dtype, (3, 4))
    a = {"C": a, "F": np.asfortranarray(a), "strided": a[:, ::2], "0d": a[1, 2].reshape(()),
         "empty": a[:0]}[layout]
    np.save(tmp_path / "numpy.npy", a)
    ndnpy.save(tmp_path / "ours", a)  # .npy appended, as numpy appends it
    buf = io.BytesIO()
    ndnpy.save(buf, a)
    theirs = (tmp_path / "numpy.npy").read_bytes()
    fields = a.dtype.fields or {}
    if layout == "strided" and sum(f[0].itemsize for f in fields.values()) < a.dtype.itemsize:
        # Padding copied by np.save's nditer buffer is whatever that buffer held: compare
        # the fields only.
        for back in [np.load(tmp_path / "ours.npy"), np.load(io.BytesIO(buf.getvalue()))]:
            for name in fields:
                assert back[name].tobytes() == a[name].tobytes()
    else:
        assert (tmp_path / "ours.npy").read_bytes() == theirs
        assert buf.getvalue() == theirs
    same(ndnpy.load(tmp_path / "numpy.npy"), np.load(tmp_path / "numpy.npy"))
    same(ndnpy.load(io.BytesIO(buf.getvalue())), np.load(io.BytesIO(buf.getvalue())))


@pytest.mark.parametrize("mode", ["r", "r+", "c"])
def test_mmap_mode_gives_a_memmap_as_numpy(tmp_path, mode):
    a = np.asfortranarray(np.arange(24, dtype=">f4").reshape(4, 6))
    np.save(tmp_path / "a.npy", a)
    m = ndnpy.load(tmp_path / "a.npy", mmap_mode=mode)
    n = np.load(tmp_path / "a.npy", mmap_mode=mode)
    assert type(m) is type(n) is np.memmap
    assert m.dtype == n.dtype and m.flags.f_contiguous
    assert (m == n).all()
    if mode == "r+":
        m[1, 2] = 99
        m.flush()
        del m
        assert np.load(tmp_path / "a.npy")[1, 2] == 99


def test_savez_and_savez_compressed_are_read_by_np_load_and_zipfile(tmp_path):
    arrays = {"w": np.random.default_rng(0).standard_normal((300, 500)),
              "ids": np.arange(10, dtype=">i8"), "f": np.asfortranarray(np.ones((3, 4), "f4")),
              "labels": np.array(["a", "bc"]), "meta": np.array([{"k": 1}], dtype=object)}
    for fn, npfn, stored in [(ndnpy.savez, np.savez, True),
                             (ndnpy.savez_compressed, np.savez_compressed, False)]:
        fn(tmp_path / "ours", np.zeros(2), **arrays)
        npfn(tmp_path / "theirs", np.zeros(2), **arrays)
        ours, theirs = zipfile.ZipFile(tmp_path / "ours.npz"), zipfile.ZipFile(tmp_path / "theirs.npz")
        assert ours.namelist() == theirs.namelist()
        for name in theirs.namelist():
            assert ours.read(name) == theirs.read(name), name
            info = ours.getinfo(name)
            assert (info.compress_type == zipfile.ZIP_STORED) == stored
        with np.load(tmp_path / "ours.npz", allow_pickle=True) as back:
            for k, v in arrays.items():
                same(back[k], v)
        with ndnpy.load(tmp_path / "ours.npz") as back:
            assert back.files == list(arrays) + ["arr_0"]  # numpy's order
            for k, v in arrays.items():
                same(back[k], v)
                same(back[k + ".npy"], v)
            assert "w" in back and "nope" not in back
            assert [k for k in back] == back.files
            with pytest.raises(KeyError):
                back["nope"]


@pytest.mark.parametrize("compress", [False, True])
def test_savez_to_a_file_object_writes_what_a_path_gets(tmp_path, compress):
    fn = ndnpy.savez_compressed if compress else ndnpy.savez
    arrays = {"w": np.random.default_rng(1).standard_normal((200, 300)),
              "meta": np.array([{"k": 1}], dtype=object)}
    fn(tmp_path / "path", np.arange(3), **arrays)
    buf = io.BytesIO()
    buf.write(b"prefix")  # written where the file is
    fn(buf, np.arange(3), **arrays)
    assert buf.getvalue() == b"prefix" + (tmp_path / "path.npz").read_bytes()
    with open(tmp_path / "f.npz", "wb") as f:
        fn(f, np.arange(3), **arrays)
    with np.load(tmp_path / "f.npz", allow_pickle=True) as back:
        same(back["w"], arrays["w"])
        same(back["arr_0"], np.arange(3))


def test_savez_compressed_is_the_same_bytes_in_every_run(tmp_path):
    a = (np.arange(3_000_000, dtype=np.float64) * 0.37).reshape(-1, 6)
    sizes = set()
    for i in range(4):
        ndnpy.savez_compressed(tmp_path / f"d{i}.npz", a=a)
        sizes.add((tmp_path / f"d{i}.npz").read_bytes())
    assert len(sizes) == 1
    same(np.load(tmp_path / "d0.npz")["a"], a)


# --- Object arrays: values numpy pickles, read back with Python's types -------------------

OBJECTS = [
    {"lr": 0.1, "layers": [64, 32], "name": "net", "nested": {"a": (1, 2.5, None)}},
    [1, "two", b"three", 4.0, 5 + 6j, True, None, 2 ** 100, -(2 ** 70)],
    ("tuple", (1,), ()),
    {1, 2, 3}, frozenset({"a"}), bytearray(b"xy"), range(2, 10, 3),
    np.float32(1.5), np.int64(-3), np.datetime64("2020-01-02T03:04", "m"), np.bool_(True),
    np.arange(6).reshape(2, 3), np.array(["x", "yz"]), np.array([1.5, 2.5], ">f8"),
    np.array([{"inner": 1}, None], dtype=object),
    np.ma.MaskedArray([1.0, 2.0, 3.0], mask=[False, True, False]),
    "", "ünïcode \U0001F600", float("nan"), float("-inf"),
]


@pytest.mark.parametrize("value", OBJECTS, ids=lambda v: type(v).__name__)
def test_object_values_load_as_np_load_allow_pickle_gives_them(tmp_path, value):
    a = np.empty(2, dtype=object)
    a[0] = value
    a[1] = "label"
    np.save(tmp_path / "o.npy", a, allow_pickle=True)
    want = np.load(tmp_path / "o.npy", allow_pickle=True)
    got = ndnpy.load(tmp_path / "o.npy")
    assert got.dtype == object and got.shape == want.shape
    for x, y in zip(got, want):
        if isinstance(y, np.ma.MaskedArray):
            assert type(x) is np.ma.MaskedArray
            assert (x.mask == y.mask).all() and (x.data == y.data).all()
        else:
            same(x, y)


def test_object_arrays_of_every_shape_and_order(tmp_path):
    a = np.array([[{"i": i, "j": j} for j in range(3)] for i in range(2)], dtype=object)
    for arr in [a, np.asfortranarray(a), a.reshape(()) if a.size == 1 else a[:0], a[1:, 1:]]:
        np.save(tmp_path / "o.npy", arr, allow_pickle=True)
        same(ndnpy.load(tmp_path / "o.npy"), np.load(tmp_path / "o.npy", allow_pickle=True))


@pytest.mark.parametrize("kwargs", [{}, {"na_object": None}, {"na_object": float("nan")},
                                    {"na_object": "NA", "coerce": False}], ids=str)
def test_stringdtype_arrays_load_as_stringdtype(tmp_path, kwargs):
    if not hasattr(np.dtypes, "StringDType"):
        pytest.skip("numpy before 2.0 has no StringDType")
    dtype = np.dtypes.StringDType(**kwargs)
    values = ["a", "bcd", "ü" * 50] + ([kwargs["na_object"]] if "na_object" in kwargs else [])
    a = np.array(values, dtype=dtype).reshape(-1, 1 if len(values) % 2 else 2)
    with pytest.warns(UserWarning):
        np.save(tmp_path / "s.npy", np.asfortranarray(a), allow_pickle=True)
    want = np.load(tmp_path / "s.npy", allow_pickle=True)
    got = ndnpy.load(tmp_path / "s.npy")
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.f_contiguous == want.flags.f_contiguous
    assert got.tolist() == want.tolist() or str(got) == str(want)


def test_inspect_lists_dtype_shape_and_pickle_globals_without_loading(tmp_path):
    np.save(tmp_path / "w.npy", np.ones((2, 3), ">f4"))
    info = ndnpy.inspect(tmp_path / "w.npy")
    assert info == {"dtype": np.dtype(">f4"), "shape": (2, 3), "fortran_order": False}
    np.save(tmp_path / "o.npy", np.array([{"a": 1 + 2j}], dtype=object), allow_pickle=True)
    info = ndnpy.inspect(tmp_path / "o.npy")
    assert "builtins.complex" in info["pickle_globals"]
    assert any(g.endswith("multiarray._reconstruct") for g in info["pickle_globals"])
    np.savez(tmp_path / "z.npz", w=np.ones(2), o=np.array([Exploit()], dtype=object))
    info = ndnpy.inspect(tmp_path / "z.npz")
    assert info["w"]["shape"] == (2,) and "pickle_globals" not in info["w"]
    assert "posix.system" in info["o"]["pickle_globals"] or "os.system" in info["o"]["pickle_globals"]


# --- Hostile pickles ----------------------------------------------------------------------

class Exploit:
    def __reduce__(self):
        return (os.system, ("true",))


# Each is an object array whose pickle calls a callable an attacker chose: under
# np.load(allow_pickle=True) it writes the marker file, runs a command, or imports a module
# the process had not imported.
MAKERS = textwrap.dedent(
    """
    import os, sys, numpy as np
    kind, marker, out = sys.argv[1], sys.argv[2], sys.argv[3]
    def reduce_to(func, *args):
        class R:
            def __reduce__(self):
                return (func, args)
        return R()
    import subprocess, builtins, importlib, shutil, code, timeit, time, posix, functools
    import runpy, pickle
    touch = ['touch', marker]
    script = marker + '.py'
    open(script, 'w').write(f"open({marker!r}, 'w').close()")
    write = f"open({marker!r}, 'w').close()"
    table = {
        'os.system': lambda: reduce_to(os.system, 'touch ' + marker),
        'posix.system': lambda: reduce_to(posix.system, 'touch ' + marker),
        'os.popen': lambda: reduce_to(os.popen, 'touch ' + marker),
        'os.spawnlp': lambda: reduce_to(os.spawnlp, os.P_WAIT, 'touch', 'touch', marker),
        'os.mknod': lambda: reduce_to(os.mknod, marker),
        'subprocess.call': lambda: reduce_to(subprocess.call, touch),
        'subprocess.Popen': lambda: reduce_to(subprocess.Popen, touch),
        'subprocess.run': lambda: reduce_to(subprocess.run, touch),
        'subprocess.check_output': lambda: reduce_to(subprocess.check_output, touch),
        'builtins.eval': lambda: reduce_to(eval, write),
        'builtins.exec': lambda: reduce_to(exec, write),
        'builtins.open': lambda: reduce_to(open, marker, 'w'),
        'builtins.__import__': lambda: reduce_to(__import__, 'this'),
        'importlib.import_module': lambda: reduce_to(importlib.import_module, 'tabnanny'),
        'shutil.copyfile': lambda: reduce_to(shutil.copyfile, '/dev/null', marker),
        'runpy.run_path': lambda: reduce_to(runpy.run_path, script),
        'code.InteractiveInterpreter': lambda: reduce_to(code.InteractiveInterpreter),
        'timeit.timeit': lambda: reduce_to(timeit.timeit, write, 'pass', time.perf_counter, 1),
        'functools.partial': lambda: reduce_to(functools.partial(os.system, 'touch ' + marker)),
        'os.spawnv': lambda: reduce_to(os.spawnv, os.P_WAIT, '/usr/bin/touch', touch),
        'pickle.loads': lambda: reduce_to(pickle.loads, pickle.dumps(reduce_to(os.system, 'touch ' + marker))),
        'numpy.testing runstring': lambda: reduce_to(
            np.testing._private.utils.runstring, write, {}),
    }
    a = np.empty(2, dtype=object)
    a[0] = {'weights': table[kind]()}
    a[1] = 'label'
    np.save(out, a, allow_pickle=True)
    """
)
HOSTILE = ['os.system', 'posix.system', 'os.popen', 'os.spawnlp', 'os.mknod',
           'subprocess.call', 'subprocess.Popen', 'subprocess.run', 'subprocess.check_output',
           'builtins.eval', 'builtins.exec', 'builtins.open', 'builtins.__import__',
           'importlib.import_module', 'shutil.copyfile', 'runpy.run_path',
           'code.InteractiveInterpreter', 'timeit.timeit', 'functools.partial',
           'os.spawnv', 'pickle.loads', 'numpy.testing runstring']

# Whether loading ran code or imported a module: in a fresh interpreter, the marker file or
# a module that was not imported before.
CHILD = textwrap.dedent(
    """
    import sys, os
    loader, path, marker = sys.argv[1], sys.argv[2], sys.argv[3]
    import numpy as np, ndnpy
    before = set(sys.modules)
    try:
        if loader == 'numpy':
            np.load(path, allow_pickle=True)
        else:
            ndnpy.load(path)
        outcome = 'loaded'
    except ndnpy.UnsafePickleError as e:
        outcome = 'refused: ' + str(e)
    except Exception as e:
        outcome = 'error: ' + type(e).__name__ + ': ' + str(e)
    new = sorted(m for m in set(sys.modules) - before if not m.startswith('encodings'))
    print(outcome)
    print('ran' if os.path.exists(marker) else 'did not run')
    print(','.join(new))
    """
)


def child(loader, path, marker):
    r = subprocess.run([sys.executable, "-c", CHILD, loader, str(path), str(marker)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    outcome, ran, new = (r.stdout.splitlines() + ["", "", ""])[:3]
    return outcome, ran == "ran", [m for m in new.split(",") if m]


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_pickles_run_code_in_numpy_and_are_refused_here(tmp_path, kind):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.npy"
    made = subprocess.run([sys.executable, "-c", MAKERS, kind, str(marker), str(path)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    # The proof that it is hostile: numpy, trusting it, runs its code or imports a module.
    outcome, ran, new = child("numpy", path, marker)
    assert ran or new, f"{kind}: np.load ran nothing ({outcome})"
    if marker.exists():
        marker.unlink()
    # ndnpy refuses it, naming the global; nothing ran, nothing was imported.
    outcome, ran, new = child("ndnpy", path, marker)
    assert outcome.startswith("refused: the pickle calls"), outcome
    assert not ran, kind
    assert not new, new
    globals_named = ndnpy.inspect(path)["pickle_globals"]
    assert any(g.split(".")[-1] in outcome for g in globals_named), (outcome, globals_named)


def test_hostile_member_of_an_archive_is_refused_and_the_rest_loads(tmp_path):
    np.savez(tmp_path / "z.npz", w=np.arange(3.0), o=np.array([Exploit()], dtype=object))
    with ndnpy.load(tmp_path / "z.npz") as z:
        same(z["w"], np.arange(3.0))
        with pytest.raises(ndnpy.UnsafePickleError, match="system"):
            z["o"]
        assert isinstance(ndnpy.UnsafePickleError("x"), ValueError)


# --- Damaged files: exceptions, never a crash ------------------------------------------------

def test_truncated_and_corrupt_files_are_exceptions(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(1000.0))
    np.save(tmp_path / "o.npy", np.array([{"a": [1, 2]}, "x"], dtype=object), allow_pickle=True)
    np.savez_compressed(tmp_path / "z.npz", a=np.arange(1000.0), o=np.array([{"a": 1}], dtype=object))
    rng = np.random.default_rng(7)
    for name in ["a.npy", "o.npy", "z.npz"]:
        good = (tmp_path / name).read_bytes()
        for i in range(150):
            bad = bytearray(good)
            if i % 3 == 0:
                bad = bad[: rng.integers(0, len(bad))]
            else:
                for at in rng.integers(0, len(bad), 1 + i % 5):
                    bad[at] ^= 1 << rng.integers(0, 8)
            (tmp_path / "bad").write_bytes(bytes(bad))
            try:
                r = ndnpy.load(tmp_path / "bad")
                if isinstance(r, ndnpy.NpzFile):
                    with r:
                        for k in r.files:
                            try:
                                r[k]
                            except (ValueError, OSError, KeyError):
                                pass
            except (ValueError, OSError, KeyError):
                pass


def test_errors_are_the_exceptions_python_users_expect(tmp_path):
    with pytest.raises(OSError) as e:
        ndnpy.load(tmp_path / "missing.npy")
    assert e.value.filename is not None and "missing.npy" in str(e.value.filename)
    (tmp_path / "text.npy").write_bytes(b"hello, world, not numpy")
    with pytest.raises(ValueError):
        ndnpy.load(tmp_path / "text.npy")
    np.save(tmp_path / "a.npy", np.arange(10))
    (tmp_path / "cut.npy").write_bytes((tmp_path / "a.npy").read_bytes()[:-1])
    with pytest.raises(ValueError):
        ndnpy.load(tmp_path / "cut.npy")
    with pytest.raises(ValueError):
        ndnpy.load(tmp_path / "a.npy", max_header_size=10)


# The object fixtures numpy can load (fraction.npy runs Fraction, cycle.npy is a cycle).
OBJECT_FIXTURES = sorted(
    set(glob.glob(os.path.join(TESTDATA, "object", "*.npy")))
    - {os.path.join(TESTDATA, "object", n) for n in ("cycle.npy", "fraction.npy")})
PY2_FILES = [os.path.join(NUMPY_DATA, n) for n in ("py2-objarr.npy", "py2-np0-objarr.npy")]


@pytest.mark.parametrize("encoding", ["ASCII", "latin1", "bytes"])
@pytest.mark.parametrize("path", OBJECT_FIXTURES + PY2_FILES, ids=os.path.basename)
def test_object_files_load_as_numpy_loads_them_in_each_encoding(path, encoding):
    if not os.path.exists(path):
        pytest.skip("numpy's test data is not installed")
    try:
        want = np.load(path, allow_pickle=True, encoding=encoding)
    except UnicodeError:
        # A Python 2 str beyond ASCII under numpy's default: numpy's exception class.
        with pytest.raises(UnicodeError, match="not ASCII"):
            ndnpy.load(path, encoding=encoding)
        return
    same(ndnpy.load(path, encoding=encoding), want)


def test_encodings_other_than_numpys_three_are_refused(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(3))
    same(ndnpy.load(tmp_path / "a.npy", encoding="bytes"), np.arange(3))
    with pytest.raises(ValueError):
        ndnpy.load(tmp_path / "a.npy", encoding="utf8")


def test_datetime_objects_load_as_numpy_loads_them(tmp_path):
    tz = datetime.timezone(datetime.timedelta(hours=-5, minutes=-45), "X")
    values = [datetime.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=tz), datetime.date(1, 1, 1),
              datetime.datetime(2021, 11, 7, 1, 30, fold=1), datetime.time(0, 0, fold=1),
              datetime.timedelta(microseconds=-1), datetime.timezone.utc,
              {"at": [datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)]}]
    a = np.empty(len(values), dtype=object)
    a[:] = values
    np.save(tmp_path / "d.npy", a, allow_pickle=True)
    got = ndnpy.load(tmp_path / "d.npy")
    same(got, np.load(tmp_path / "d.npy", allow_pickle=True))
    assert got[5] is datetime.timezone.utc and got[2].fold == 1


def test_an_object_load_leaves_the_collector_as_it_found_it(tmp_path):
    a = np.empty(3, dtype=object)
    a[:] = [{"k": [1]}, ("t",), None]
    np.save(tmp_path / "o.npy", a, allow_pickle=True)
    evil = tmp_path / "evil.npy"
    evil.write_bytes((tmp_path / "o.npy").read_bytes().replace(b"_reconstruct", b"_reconstrucX"))
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            same(ndnpy.load(tmp_path / "o.npy"), a)
            assert gc.isenabled() is enabled
            with pytest.raises(ValueError):
                ndnpy.load(evil)
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_other_tzinfo_classes_are_refused_by_name(tmp_path):
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        zone = zoneinfo.ZoneInfo("Europe/Paris")
    except Exception:
        pytest.skip("no time zone database")
    a = np.array([datetime.datetime(2020, 1, 2, tzinfo=zone)], dtype=object)
    np.save(tmp_path / "z.npy", a, allow_pickle=True)
    # zoneinfo pickles ZoneInfo._unpickle through builtins.getattr, the first global met.
    with pytest.raises(ndnpy.UnsafePickleError, match="builtins.getattr"):
        ndnpy.load(tmp_path / "z.npy")



# --- Writers by path: atomic when killed, durable when asked ---------------------------------

# A child that rewrites one file with its `kind` of writer, round after round, each round's
# content telling its number; it says "ready" once the first file is whole.
WRITER_CHILD = r'''
import sys
import numpy as np
import ndnpy
path, kind = sys.argv[1], sys.argv[2]
i = 0
while True:
    a = np.full(60_000 + (i % 7) * 20_000, i, dtype=np.float64)
    if kind == "save":
        ndnpy.save(path, a)
    elif kind == "save_objects":
        ndnpy.save(path, np.array([{"i": i, "pad": "x" * (200_000 + i % 7)}], dtype=object))
    elif kind == "savez":
        ndnpy.savez(path, a=a, b=a[:10])
    else:
        ndnpy.savez_compressed(path, a=a + np.arange(a.size) % 3)
    if i == 0:
        print("ready", flush=True)
    i += 1
'''


def check_whole(path, kind):
    """The file numpy loads is one round's, whole."""
    if kind == "save":
        a = np.load(path)
        i = int(a[0])
        assert a.size == 60_000 + (i % 7) * 20_000 and (a == i).all()
    elif kind == "save_objects":
        v = np.load(path, allow_pickle=True)[0]
        assert v["pad"] == "x" * (200_000 + v["i"] % 7)
    else:
        with np.load(path) as z:
            a = z["a"]
            i = int(a[0])
            want = np.full(60_000 + (i % 7) * 20_000, i, dtype=np.float64)
            if kind == "savez_compressed":
                want = want + np.arange(want.size) % 3
            else:
                assert (z["b"] == want[:10]).all()
            assert (a == want).all()


@pytest.mark.parametrize("kind", ["save", "save_objects", "savez", "savez_compressed"])
def test_a_writer_killed_at_any_point_leaves_a_whole_file_and_no_temporary(tmp_path, kind):
    import random
    import time

    target = tmp_path / ("f.npz" if kind.startswith("savez") else "f.npy")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    rng = random.Random(kind)
    for _ in range(10):
        child = subprocess.Popen([sys.executable, "-c", WRITER_CHILD, str(target), kind],
                                 stdout=subprocess.PIPE, env=env)
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.08))
        child.kill()
        child.wait()
        child.stdout.close()
        check_whole(target, kind)
        # A replacement killed in the instant between linking its unnamed file to a temporary
        # name and renaming it over the target leaves that name; the next writer removes it.
        left = [n for n in os.listdir(tmp_path) if n != target.name]
        assert all(n.startswith(f".{target.name}.ndnpy-tmp-") for n in left), left
        assert len(left) <= 1, left
    # The next write, in this process, replaces the file and removes any temporary name.
    if kind.startswith("savez"):
        ndnpy.savez(target, a=np.zeros(3))
    else:
        ndnpy.save(target, np.zeros(3))
    assert os.listdir(tmp_path) == [target.name]


def test_durable_writes_wait_for_the_disk_and_others_do_not(tmp_path):
    import shutil

    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    script = textwrap.dedent("""
        import contextlib
        import sys
        import numpy as np
        import ndnpy
        d, durable = sys.argv[1], sys.argv[2] == "1"
        with ndnpy.durable() if durable else contextlib.nullcontext():
            ndnpy.save(d + "/a.npy", np.arange(10))
            ndnpy.save(d + "/o.npy", np.array([{"k": 1}], dtype=object))
            ndnpy.savez(d + "/z.npz", a=np.arange(10))
            ndnpy.savez_compressed(d + "/c.npz", a=np.arange(10))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    counts = {}
    for durable in ("0", "1"):
        log = tmp_path / f"strace{durable}.log"
        out = tmp_path / f"out{durable}"
        out.mkdir()
        subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync", "-o", str(log),
                        sys.executable, "-c", script, str(out), durable], env=env, check=True)
        counts[durable] = sum(1 for line in log.read_text().splitlines()
                              if "fsync(" in line or "fdatasync(" in line)
        for name in ("a.npy", "o.npy", "z.npz", "c.npz"):
            assert (out / name).exists()
    # Each durable write syncs its file and its directory: at least two per file.
    assert counts["0"] == 0 and counts["1"] >= 8, counts
