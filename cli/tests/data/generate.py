"""Writes the fixtures of the `ndnpy` command's tests into the directory given (default: the
directory of this script). Run by the tests into a temporary directory, so nothing binary is
committed: `python3 cli/tests/data/generate.py OUTDIR`."""

import os
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)


def save(name, a):
    np.save(os.path.join(out, name), a)


rng = np.random.default_rng(14)

# Numbers: every kind, byte orders, layouts.
save("f8.npy", np.arange(6.0).reshape(2, 3) * 0.5 - 1)
save("f8_wide.npy", np.arange(30.0) / 7)
save("f8_exp.npy", np.array([1e-5, 1e10, -3.25, 0.0]))
save("f8_special.npy", np.array([1.5, np.nan, -np.inf, np.inf, -0.0]))
save("f8_round.npy", np.array([0.001953125, 0.1 + 0.2, 2.0 / 3]))
save("f4_be_f.npy", np.asfortranarray(((np.arange(12, dtype="<f4").reshape(3, 4) - 5) / 3).astype(">f4")))
save("rec_padded.npy", np.zeros(2, dtype={"names": ["a", "b"], "formats": ["<i4", "?"], "offsets": [0, 8], "itemsize": 12}))
save("rec_mixed.npy", np.zeros(2, dtype=[("a", "?"), ("b", "i1"), ("d", "S3"), ("e", ">U2"), ("f", "V4"), ("h", ">i4"), ("i", "<f8", (2, 3)), ("j", [("k", "<i2")])]))
save("f2.npy", np.array([0.1, 1.5, -2.25, 65504.0], dtype="<f2"))
save("i2_be.npy", np.array([-32768, 0, 7, 32767], dtype=">i2"))
save("u8.npy", np.array([0, 2**64 - 1, 12345], dtype="<u8"))
save("i8_3d.npy", np.arange(24, dtype="<i8").reshape(2, 3, 4) - 12)
save("b1.npy", np.array([[True, False, True], [False, False, True]]))
save("c16.npy", np.array([1 + 2j, 3 - 4.5j, -0.5 + 0j]))
save("c8.npy", np.array([1 + 1e-5j, 3 - 4.5j], dtype="<c8"))
save("scalar_f8.npy", np.array(1.5))
save("scalar_i4.npy", np.array(-7, dtype="<i4"))
save("empty.npy", np.zeros((0, 3)))
# Summarised: above numpy's threshold of 1000 elements.
save("big_1d.npy", np.arange(5000, dtype="<i4"))
save("big_2d.npy", rng.standard_normal((100, 50)))
save("big_3d_f.npy", np.asfortranarray(np.arange(2000.0).reshape(10, 20, 10)))
save("big_stats.npy", rng.standard_normal(300_000) * 3 + 1)
# Strings and dates.
save("U.npy", np.array(["ab", "it's", 'say "hi"', "", "é\n"]))
save("S.npy", np.array([b"a\x00\xff", b"'", b"plain"]))
save("dates.npy", np.array(["2020-01-01", "NaT", "1969-12-31", "-0768-02-03"], dtype="M8[D]"))
save("dates_ms.npy", np.array([0, 1000000, -1000001], dtype="M8[25ms]"))
save("td.npy", np.array([1, -2, "NaT"], dtype="m8[s]"))
# Records.
rec = np.array([(1, 2.5, b"x"), (3, 4.0, b"yz")], dtype=[("a", "<i4"), ("b", "<f8"), ("c", "S2")])
save("rec.npy", rec)
save("rec_sub.npy", np.array([(1, [1.5, 2]), (2, [3, 4])], dtype=[("a", "i2"), ("b", "f4", (2,))]))
save("rec_nan.npy", np.array([(1.0, 5), (np.nan, 6), (3.0, 7)], dtype=[("x", "<f8"), ("n", "<i4")]))
rec_floats = np.zeros(3, [("x", "<f4"), ("t", "M8[D]"), ("u", "<U3"), ("c", "<c8"), ("n", "<f8", (2,)), ("h", "<f2")])
rec_floats["x"], rec_floats["n"], rec_floats["h"] = [1e20, 3, -0.5], [[1, 2.5], [0, 1e-7], [np.inf, np.nan]], [1, 65504, 0.1]
save("rec_floats.npy", rec_floats)
# Archives.
np.savez(os.path.join(out, "ab.npz"), a=np.arange(5), b=np.eye(3), label=np.array(["x", "y"]))
np.savez_compressed(os.path.join(out, "ab_z.npz"), a=np.arange(5), b=np.eye(3))
np.savez(os.path.join(out, "one.npz"), np.arange(3.0))
# For diff: the same archive with one member changed, one removed, one added.
np.savez(os.path.join(out, "ab2.npz"), a=np.array([0, 1, 2, 30, 4]), b=np.eye(3), extra=np.ones(2))
save("f8_close.npy", np.arange(6.0).reshape(2, 3) * 0.5 - 1 + 1e-9)
save("f8_other_shape.npy", np.arange(6.0))
# Damaged files for validate.
good = open(os.path.join(out, "f8.npy"), "rb").read()
open(os.path.join(out, "bad_truncated.npy"), "wb").write(good[:-5])
open(os.path.join(out, "bad_magic.npy"), "wb").write(b"\x93NUMPX" + good[6:])
open(os.path.join(out, "bad_header.npy"), "wb").write(good.replace(b"'descr'", b"'dexcr'"))
bool_bad = bytearray(open(os.path.join(out, "b1.npy"), "rb").read())
bool_bad[-1] = 7
open(os.path.join(out, "bad_bool.npy"), "wb").write(bytes(bool_bad))
zbad = bytearray(open(os.path.join(out, "ab.npz"), "rb").read())
# Flip a data byte of the first member: its CRC-32 no longer matches.
pos = zbad.index(b"\x93NUMPY") + 130
zbad[pos] ^= 0xFF
open(os.path.join(out, "bad_crc.npz"), "wb").write(bytes(zbad))
save("object.npy", np.array([{"a": 1}, None], dtype=object))
# More for diff: the same values in the other layout, a few changes in larger arrays, a record
# field changed.
save("f8_f.npy", np.asfortranarray(np.arange(6.0).reshape(2, 3) * 0.5 - 1))
big = np.load(os.path.join(out, "big_2d.npy"))
big[[3, 50, 99], [7, 0, 49]] += [1e-12, 1.0, np.nan]
save("big_2d_changed.npy", big)
big3 = np.load(os.path.join(out, "big_3d_f.npy")).copy(order="F")
big3[9, 19, 0] = -1
big3[0, 1, 2] = -2
save("big_3d_f_changed.npy", big3)
rec2 = np.load(os.path.join(out, "rec_nan.npy"))
rec2["n"][2] = 70
save("rec_nan_changed.npy", rec2)
# For show: arrays that exercise numpy's printing rules (prefix pr_), and random ones of every
# number type, shape and magnitude (prefix rnd_), each compared with print(np.load(f)).
pr = {
    "f4_exp": rng.standard_normal((4, 30)).astype("f4"),
    "f4_tiny": rng.random(5).astype("f4") * 1e-6,
    "f4_1e6": (rng.standard_normal((4, 7)) * 1e6).astype("f4"),
    "f2": rng.standard_normal(12).astype("f2"),
    "f2_1e3": np.round(rng.standard_normal(40) * 1000).astype("f2"),
    "f8_1e8": np.array([1e8, 1, np.nan]),
    "f8_nan_inf": np.array([np.nan, np.inf]),
    "f8_1e16": np.arange(1e16, 1e16 + 5),
    "f8_signed_zero": np.array([-0.0, 0.0]),
    "f8_4d": rng.standard_normal((2, 2, 2, 2)),
    "f8_1001": rng.standard_normal(1001),
    "f8_ties": np.array([0.001953125, 1592905.25, 2.5]),
    "i8_wide": rng.integers(-10**12, 10**12, size=(3, 40)),
    "u1_50x50": rng.integers(0, 255, (50, 50)).astype("u1"),
    "b1_11x11x11": rng.random((11, 11, 11)) > 0.5,
    "U_wrap": np.array(["a" * 30, "b" * 20, "c" * 40]),
    "c16_small_imag": rng.standard_normal(8) + 1j * rng.standard_normal(8) * 1e-3,
    "c16_special": np.array([[1 + 2j, np.nan + 1j], [np.inf - 1j, 0j]]),
    "M8_minutes": np.array(["2001-01-01T10:00", "NaT"], "M8[m]"),
    "rec_fields": np.array([(1.5, "ab", [1, 2]), (np.nan, "c", [3, 4])], dtype=[("f", "f8"), ("s", "U2"), ("i", "i4", (2,))]),
}
# 0-d arrays print as their scalar's str (numpy's cutoffs per float type, units, reprs).
pr.update({
    "0d_bool": np.array(True),
    "0d_c16": np.array(1 + 2j),
    "0d_c16_imag": np.array(2j),
    "0d_M8": np.array("2020-01-01", "M8[D]"),
    "0d_M8_nat": np.array("NaT", "M8[s]"),
    "0d_U": np.array("hé"),
    "0d_S": np.array(b"ab\x00c"),
    "0d_rec": np.array((1, 2.5), "i4,f8"),
    "0d_f4": np.array(0.1, "f4"),
    "0d_f4_1e6": np.array(1e6, "f4"),
    "0d_f4_999999": np.array(999999.0, "f4"),
    "0d_f2_1e3": np.array(1000.0, "f2"),
    "0d_f8_1e20": np.array(1e20),
    "0d_nan": np.array(np.nan),
    "0d_u8": np.array(2**64 - 1, "u8"),
    "0d_m8_25ms": np.array(5, "m8[25ms]"),
    "0d_m8_generic": np.array(3, "m8"),
    "0d_m8_nat": np.array("NaT", "m8[s]"),
})
for name, a in pr.items():
    save(f"pr_{name}.npy", a)
kinds = ["f8", "f4", "f2", "c16", "c8", "i8", "u2", "i1", "b1"]
for k in range(90):
    dt = kinds[k % len(kinds)]
    shape = tuple(int(x) for x in rng.integers(1, 14 if k % 5 else 40, size=rng.integers(1, 4)))
    if dt[0] in "fc":
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-12, 12)
        if rng.random() < 0.3:
            a = np.round(a)
        if dt[0] == "c":
            a = a + 1j * rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6)
        a = a.astype(dt)
        if rng.random() < 0.2:
            a.flat[0] = np.nan
        if rng.random() < 0.1:
            a.flat[-1] = -np.inf
    elif dt == "b1":
        a = rng.standard_normal(shape) > 0
    else:
        a = np.clip(rng.standard_normal(shape) * 100, -100, 100).astype(dt)
    save(f"rnd_{k:02d}.npy", a)
# An archive with a member that is not an array (np.load gives its bytes).
import zipfile

np.savez(os.path.join(out, "non_array.npz"), a=np.arange(3))
with zipfile.ZipFile(os.path.join(out, "non_array.npz"), "a") as z:
    z.writestr("notes.txt", b"made by generate.py")
np.savez(os.path.join(out, "non_array2.npz"), a=np.arange(3))
with zipfile.ZipFile(os.path.join(out, "non_array2.npz"), "a") as z:
    z.writestr("notes.txt", b"made by generate.py, changed")
np.savez(os.path.join(out, "with_object.npz"), a=np.arange(3.0), o=np.array([{"k": 1}, None], dtype=object))
save("f8_be.npy", np.load(os.path.join(out, "f8.npy")).astype(">f8"))
