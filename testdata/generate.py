"""Writes the .npy fixtures in this folder with numpy (the reference implementation).

Run from the repository root:  python3 testdata/generate.py
Files are deterministic; tests/it/testdata.rs rebuilds the same values in Rust, reads every file
and compares values, and writes every numeric case and compares bytes.

Numeric files: <code>_<order>_<layout>.npy
  code   b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16
  order  le | be  (one-byte types: na)
  layout 0d (shape ()), e0 (0,), e03 (0, 3), c_5 (5,), c_2x3, f_3x4 (Fortran order),
         c_2x3x4, s_4x3 (a[::2, ::-1] of a 8x3 array: not contiguous, written in C order)
Values, by C-order (logical) index i, see value():
  bool   i % 3 == 0
  ints   [min, max, 0] then (i * 2654435761) mod 2**bits, two's complement for signed
  floats [nan, -0.0, inf, -inf, max, tiny, -max] then (i - 10) * 0.25
  complex real part as floats, imaginary part i * 0.5
"""
import io
import os
import sys

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))
CODES = ["b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16"]
LAYOUTS = {"0d": (), "e0": (0,), "e03": (0, 3), "c_5": (5,), "c_2x3": (2, 3), "f_3x4": (3, 4),
           "c_2x3x4": (2, 3, 4), "s_4x3": (4, 3)}


def float_value(dt, i):
    specials = [np.nan, -0.0, np.inf, -np.inf, np.finfo(dt).max, np.finfo(dt).tiny,
                -np.finfo(dt).max]
    return specials[i] if i < len(specials) else (i - 10) * 0.25


def value(code, i):
    kind, size = code[0], int(code[1:])
    if kind == "b":
        return i % 3 == 0
    if kind in "iu":
        info = np.iinfo(f"{kind}{size}")
        if i < 3:
            return [info.min, info.max, 0][i]
        v = (i * 2654435761) % 2 ** (8 * size)
        if kind == "i" and v >= 2 ** (8 * size - 1):
            v -= 2 ** (8 * size)
        return v
    if kind == "f":
        return float_value(np.dtype(code), i)
    if kind == "c":
        part = np.dtype(f"f{size // 2}")
        return complex(float_value(part, i), i * 0.5)
    raise ValueError(code)


def numeric_array(code, order, layout):
    shape = LAYOUTS[layout]
    dt = np.dtype(("<" if order == "le" else ">") + code) if order != "na" else np.dtype(code)
    n = int(np.prod(shape)) if shape else 1
    with np.errstate(over="ignore"):
        if layout == "s_4x3":
            # The logical values fill a[::2, ::-1]; the other rows hold junk.
            base = np.zeros((8, 3), dtype=dt)
            view = base[::2, ::-1]
            view[...] = np.array([value(code, i) for i in range(12)], dtype=dt).reshape(4, 3)
            assert not view.flags.c_contiguous and not view.flags.f_contiguous
            return view
        flat = np.array([value(code, i) for i in range(n)], dtype=dt)
        a = flat.reshape(shape)
    if layout.startswith("f_"):
        a = np.asfortranarray(a)
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    return a


def save(name, arr, **kw):
    np.save(os.path.join(HERE, name), arr, **kw)


def write_raw(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    for code in CODES:
        orders = ["na"] if code in ("b1", "i1", "u1") else ["le", "be"]
        for order in orders:
            for layout in LAYOUTS:
                save(f"{code}_{order}_{layout}.npy", numeric_array(code, order, layout))

    # The README / lib.rs example.
    save("example.npy", np.arange(6.0).reshape(2, 3) * 0.5 - 1)

    # Headers of every dtype family (read the header, compare its bytes; data is not typed yet).
    dtypes = {
        "dt_S5": "S5", "dt_U3_le": "<U3", "dt_U3_be": ">U3", "dt_V8": "V8",
        "dt_M8_ns": "<M8[ns]", "dt_M8_25ms": "<M8[25ms]", "dt_M8_D_be": ">M8[D]",
        "dt_M8_generic": "<M8", "dt_m8_7D": "<m8[7D]", "dt_f16_longdouble": np.longdouble,
        "dt_c32": np.clongdouble,
        "rec_flat": [("a", "<i4"), ("b", "<f8"), ("c", "S3"), ("d", "?")],
        "rec_pdescr": [("x", "i4", (2,)), ("y", "f8", (2, 2)), ("z", "u1")],
        "rec_pdescr_be": [("x", ">i4", (2,)), ("y", ">f8", (2, 2)), ("z", "u1")],
        "rec_nested": [("a", "<i2"), ("n", [("x", "<f4"), ("y", "u1", (2,))])],
        "rec_subsub": [("c", ("<f8", (5,)), (2,))],
        "rec_aligned": np.dtype("i1,i4,i1", align=True),
        "rec_offsets": np.dtype({"names": ["a", "b"], "formats": ["<i4", "<i4"],
                                 "offsets": [1, 6], "itemsize": 10}),
        "rec_trailing": np.dtype({"names": ["a"], "formats": ["<i2"], "itemsize": 8}),
        "rec_titles": np.dtype({"names": ["a", "b"], "formats": ["<i4", "<i4"],
                                "offsets": [1, 6], "titles": ["aa", "bb"], "itemsize": 10}),
        "rec_nofields": np.dtype({"names": [], "formats": [], "itemsize": 8}),
        "rec_empty_name": [("a", "<i4"), ("", "<i4"), ("b", "<i4")],
        "rec_sub_padded": np.dtype([("x", (np.dtype("i1,i4,i1", align=True), (3,)), (4,))]),
        "rec_quotes": [("it's", "u1"), ("both ' and \"", "u1"), ("tab\there", "u1")],
        "rec_latin1": [("é", "u1")],
        "rec_unicode": [("整形", "<i4")],
        "rec_escaped": [("\u200b", "u1")],
        # numpy's Ndescr (test_format.py), a two-level nested record.
        "rec_ndescr": [("x", "i4", (2,)),
                       ("Info", [("value", "c16"), ("y2", "f8"),
                                 ("Info2", [("name", "S2"), ("value", "c16", (2,)),
                                            ("y3", "f8", (2,)), ("z3", "u4", (2,))]),
                                 ("name", "S2"), ("z2", "b1")]),
                       ("color", "S2"), ("info", [("Name", "U8"), ("Value", "c16")]),
                       ("y", "f8", (2, 2)), ("z", "u1")],
    }
    for name, dt in dtypes.items():
        save(f"{name}.npy", np.zeros((2, 3), dtype=dt))
    save("rec_itemsize0.npy", np.zeros(3, dtype=np.dtype([])))
    save("dt_object.npy", np.array([1, "a", None], dtype=object))

    # Versions: an explicit 2.0 header; a huge header numpy writes as 2.0 on its own.
    buf = io.BytesIO()
    npformat.write_array(buf, np.arange(3, dtype="<i8"), version=(2, 0))
    write_raw("v2_small.npy", buf.getvalue())
    buf = io.BytesIO()
    npformat.write_array(buf, np.arange(3, dtype="<i8"), version=(3, 0))
    write_raw("v3_small.npy", buf.getvalue())
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save("v2_huge_header.npy", np.zeros((), dtype="i," * 10000 + "i"))

    # Python 2's long suffix, as numpy's own tests/data/win64python2.npy has it.
    text = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }"
    hlen = len(text) + 1
    pad = 64 - (10 + hlen) % 64
    header = b"\x93NUMPY\x01\x00" + (hlen + pad).to_bytes(2, "little") + text.encode() + b" " * pad + b"\n"
    write_raw("py2_long_suffix.npy", header + np.ones(2, "<f8").tobytes())

    # Several arrays in one stream, and trailing bytes after an array.
    buf = io.BytesIO()
    np.save(buf, np.int64(1))
    np.save(buf, np.array([2.0, 3.0]))
    np.save(buf, np.array([[True], [False]]))
    write_raw("stream_three_arrays.npy", buf.getvalue())

    # Lone UTF-16 surrogates in `U` strings: numpy's str allows them and np.save keeps the code
    # units (npyz's test data has such files); big-endian and Fortran-order ones too.
    np.save(os.path.join(HERE, "U_surrogates.npy"), np.array(["a\ud800b", "ok"]))
    np.save(os.path.join(HERE, "U_surrogates_be_f.npy"),
            np.asfortranarray(np.array([["\udfff", "x"], ["yz", "w\ud83dz"]], dtype=">U3")))

    # The README's example archive: a small model and its data, as np.savez writes it.
    rng = np.random.default_rng(2024)
    np.savez(
        os.path.join(HERE, "example.npz"),
        weights=rng.standard_normal((4, 3)).astype(np.float32),
        bias=np.array([0.5, -0.25, 0.125]),
        labels=np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int64),
        names=np.array(["setosa", "versicolor", "virginica"]),
        recorded=np.array(["2024-03-01T12:00", "2024-03-02T08:30", "NaT"], dtype="M8[m]"),
        samples=np.array([(1, 0.25, b"ab"), (2, 0.5, b"cd")],
                         dtype=[("id", "<i4"), ("score", "<f8"), ("tag", "S2")]),
    )

    print(f"numpy {np.__version__}, python {sys.version.split()[0]}: wrote fixtures to {HERE}")


if __name__ == "__main__":
    main()
