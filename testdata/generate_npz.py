"""Writes the .npz fixtures in this folder with numpy (and Python's zipfile, which numpy uses).

Run from the repository root:  python3 testdata/generate_npz.py
The files are deterministic (numpy stamps every member 1980-01-01). tests/it/npz.rs rebuilds the
same values in Rust and reads every file.

  npz_stored.npz              np.savez(f, **ARRAYS)             stored members
  npz_compressed.npz          np.savez_compressed(f, **ARRAYS)  deflated members
  npz_keywords.npz            np.savez(f, arange(3), [[1, 2]], weights=..., bias=...):
                              keywords first, then arr_0, arr_1
  npz_empty.npz               np.savez(f): the 22-byte end record alone
  npz_names.npz               keys with "/", non-ASCII, a ".npy" suffix, and the empty key
  npz_non_npy.npz             zipfile: "metadata" (text), "test2" (.npy content, no suffix),
                              "a.npy" (as numpy's test_load_non_npy)
  npz_streamed.npz            np.savez to an unseekable file: data descriptors
  npz_streamed_compressed.npz np.savez_compressed to an unseekable file
  npz_zip64.npz               np.savez with zipfile's zip64 thresholds lowered: zip64 extra
                              fields in the central directory and a zip64 end record
"""
import io
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# Insertion order is member order.
ARRAYS = {
    "a": np.arange(6, dtype="<f8").reshape(2, 3) * 0.5,
    "fortran": np.asfortranarray(np.arange(12, dtype="<i4").reshape(3, 4)),
    "big_endian": (np.arange(5) * 1000).astype(">u2"),
    "scalar": np.array(3.5, dtype="<f4"),
    "empty": np.zeros((0, 3), dtype="<i8"),
    "flags": np.array([True, False, True]),
}


class Unseekable:
    """A file object numpy and zipfile can write to but not seek or tell: zipfile then writes
    data descriptors after each member."""

    def __init__(self):
        self.data = bytearray()

    def write(self, b):
        self.data += b
        return len(b)

    def read(self, *args):  # np.savez wants a `read` attribute on file objects
        raise io.UnsupportedOperation("read")

    def flush(self):
        pass


def path(name):
    return os.path.join(HERE, name)


def npy_bytes(a):
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()


def main():
    np.savez(path("npz_stored.npz"), **ARRAYS)
    np.savez_compressed(path("npz_compressed.npz"), **ARRAYS)
    np.savez(
        path("npz_keywords.npz"),
        np.arange(3, dtype="<i8"),
        np.array([[1, 2]], dtype="<i8"),
        weights=np.array([[0.5, -1.0], [2.0, 0.25]], dtype="<f4"),
        bias=np.array([0.125, -0.5], dtype="<f4"),
    )
    np.savez(path("npz_empty.npz"))
    np.savez(
        path("npz_names.npz"),
        **{
            "layer1/weight": np.array([1, 2, 3], dtype="<i2"),
            "données/α": np.array([4.0], dtype="<f8"),
            "x.npy": np.array([5], dtype="|u1"),
            "": np.array([6, 7], dtype="<u4"),
        },
    )

    with zipfile.ZipFile(path("npz_non_npy.npz"), "w") as z:
        stamp = (1980, 1, 1, 0, 0, 0)
        z.writestr(zipfile.ZipInfo("metadata", stamp), b"Name: Test")
        z.writestr(zipfile.ZipInfo("test2", stamp), npy_bytes(np.array([1, 2, 3], dtype="<i8")))
        z.writestr(zipfile.ZipInfo("a.npy", stamp), npy_bytes(np.array([4, 5, 6], dtype="<i8")))

    for name, save in [("npz_streamed.npz", np.savez),
                       ("npz_streamed_compressed.npz", np.savez_compressed)]:
        f = Unseekable()
        save(f, a=ARRAYS["a"], fortran=ARRAYS["fortran"], big_endian=ARRAYS["big_endian"])
        with open(path(name), "wb") as out:
            out.write(f.data)

    limits = (zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT)
    try:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 10, 1
        np.savez(path("npz_zip64.npz"), a=ARRAYS["a"], big_endian=ARRAYS["big_endian"])
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits

    # The fixtures are what they claim to be.
    with np.load(path("npz_streamed.npz")) as f:
        assert all(i.flag_bits & 8 for i in f.zip.infolist()), "no data descriptors"
    with open(path("npz_zip64.npz"), "rb") as f:
        assert b"PK\x06\x06" in f.read(), "no zip64 end record"
    for name in ["npz_stored.npz", "npz_compressed.npz", "npz_streamed.npz"]:
        with np.load(path(name)) as f:
            for k in f.files:
                v = ARRAYS[k]
                assert f[k].dtype == v.dtype and np.array_equal(f[k], v), (name, k)
                assert f[k].flags.f_contiguous == v.flags.f_contiguous, (name, k)


def deflated_mixed():
    """npz_deflated_mixed.npz: one deflated member of about 48 KiB mixing the data `.npz`
    files hold (runs of equal int64s, small integers, text, bytes that do not compress), so
    that the inflater's fast loop and every block kind run on numpy's zlib output
    (tests/unsafe_paths.rs reads it, under Miri too). Written on its own:
    `python3 testdata/generate_npz.py deflated_mixed`."""
    rng = np.random.default_rng(7)
    runs = (np.arange(2000, dtype="<i8") // 16 % 100).view("u1")
    small = rng.integers(0, 1000, 2000).astype("<i8").view("u1")
    text = np.frombuffer(b"".join(b"alpha_%d beta_%d " % (i % 97, i % 13) for i in range(800)), "u1")
    noise = rng.integers(0, 256, 4000, dtype="u1")
    mixed = np.concatenate([runs, small, text, noise])
    np.savez_compressed(path("npz_deflated_mixed.npz"), mixed=mixed)
    with np.load(path("npz_deflated_mixed.npz")) as f:
        assert np.array_equal(f["mixed"], mixed)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["deflated_mixed"]:
        deflated_mixed()
    else:
        main()
        deflated_mixed()
