"""numpy side of the ndnpy benchmarks: a persistent worker driven over stdin/stdout.

One command per line, one reply line per command. Timed commands reply with the seconds
that `time.perf_counter()` measured around just the operation; errors reply `ERR ...`.

    version                        -> numpy and Python versions
    gen PATH KIND ROWS COLS        -> "ok"; np.save of (arange(ROWS*COLS) * 0.5).reshape(ROWS, COLS)
                                      as KIND: c, f (np.asfortranarray) or be (astype('>f8'))
    npz_store SRC DST              -> "ok"; np.savez(DST, a=np.load(SRC)): the same array as a
                                      stored member of an archive
    read PATH CONV                 -> seconds for np.load(PATH) [+ conversion to native order]
                                      CONV: none, inplace (byteswap(inplace=True) + view), astype
    check PATH CONV ROWS COLS      -> "ok SUM" if the loaded array is native f8 and equals the
                                      expected values, else "bad ..."
    prep KIND DIMS...              -> "ok"; the array later writes save, made untimed:
                                      c R C (C order), f R C (base.T, Fortran-contiguous),
                                      perm D0 D1 D2 (base.reshape(D0, D1, D2).transpose(2, 0, 1))
    write PATH                     -> seconds for np.save(PATH, array) (PATH deleted first, untimed)
    tiny_prep COUNT                -> "ok"; builds COUNT small .npy blobs in memory
    tiny_read                      -> seconds for np.load(io.BytesIO(b)) over all blobs
    tiny_check                     -> "ok SUM" (sum of every element of every loaded blob)
    tiny_dump PATH                 -> "ok"; writes the blobs concatenated, for comparison
    mmap_sum PATH                  -> seconds for np.load(PATH, mmap_mode='r').sum()
    mmap_check PATH                -> "ok SUM" if np.load(PATH, mmap_mode='r') is a native f8
                                      np.memmap; SUM is its sum
    view_many PATH COUNT           -> seconds for COUNT x np.load(PATH, mmap_mode='r') (each
                                      replaced, so unmapped, by the next)
    rows_read PATH N TOTAL COUNT MODE
                                   -> seconds for COUNT x m[a:a+N].copy(), call j with
                                      a = (TOTAL//2 - N//2 + j*N) % (TOTAL - N) (as RowReads in
                                      src/ooc.rs); MODE open: m = np.load(PATH, mmap_mode='r')
                                      in every call; kept: one m per PATH, made on first use
                                      (untimed) and kept
    region_gen PATH N              -> "ok": writes an (N, 128, 1024) f8 array of 0, 1, 2, ...
    region_read PATH SEL COUNT     -> seconds for COUNT np.load(PATH, mmap_mode='r')[SEL].copy()
    rows_check PATH A B            -> "ok SUM" if np.load(PATH, mmap_mode='r')[A:B].copy() is
                                      an f8 array equal to the expected rows; SUM its sum
    forget                         -> "ok"; drops the kept maps
    gen_str PATH COUNT             -> "ok"; np.save of COUNT strings text(i) as '<U16'
    str_read PATH MODE             -> seconds for np.load(PATH) (MODE load) or
                                      np.load(PATH).tolist() (MODE tolist)
    str_check PATH COUNT           -> "ok COUNT" if the loaded array is '<U16' and its items
                                      are text(0..COUNT)
    npz_tiny_gen PATH COUNT [compressed] -> "ok"; np.savez(PATH, t0=tiny_array(0), ...) (COUNT
                                      members; np.savez_compressed with "compressed")
    npz_load_all PATH              -> seconds for d = np.load(PATH); [d[k] for k in d.files];
                                      d.close()
    npz_names PATH                 -> seconds for d = np.load(PATH); d.files; d.close()
    npz_tiny_check PATH COUNT      -> "ok SUM" if the members are t0..t{COUNT-1}, each the f4
                                      tiny_array(k); SUM the sum of all their elements
    npz_int_gen PATH N MEMBERS     -> "ok"; np.savez_compressed of MEMBERS int64 arrays of N
                                      elements: key a (one member) or a0, a1, ... (int_array)
    npz_int_prep N                 -> "ok"; the array npz_compress saves, int_array(N, 0)
    npz_compress PATH              -> seconds for np.savez_compressed(PATH, a=array) (PATH
                                      deleted first, untimed)
    npz_read PATH KEY              -> seconds for np.load(PATH)[KEY] (the file closed after)
    npz_int_check PATH KEY N K     -> "ok SUM" if np.load(PATH)[KEY] is int64 and equals
                                      int_array(N, K); SUM its sum
    rec_gen PATH COUNT             -> "ok"; np.save of COUNT records (rec_array)
    rec_read PATH                  -> seconds for np.load(PATH)
    rec_check PATH COUNT           -> "ok COUNT" if np.load(PATH) has REC_DTYPE and equals
                                      rec_array(COUNT)
    many_load DIR COUNT            -> seconds for np.load(DIR/i.npy) for i in 0..COUNT
    many_region DIR COUNT A B      -> seconds for np.load(DIR/i.npy, mmap_mode='r')[A:B].copy()
                                      for i in 0..COUNT
    many_bytes DIR COUNT           -> seconds for np.load(io.BytesIO(b)) for the bytes b of
                                      each DIR/i.npy, i in 0..COUNT (read first, untimed)
    many_check DIR COUNT           -> "ok SUM" if every DIR/i.npy is a (64, 128) '<f8' array
                                      whose first element is i; SUM the sum of those
    inflate_gen PATH KIND BYTES    -> "ok SIZE CRC"; np.savez_compressed(PATH, a=inflate_array(KIND,
                                      BYTES)) and the member's raw deflate stream in PATH.deflate;
                                      SIZE and CRC: the member's uncompressed size and CRC-32
    quit
"""

import io
import os
import platform
import sys
import time

import numpy as np

# Must match TINY_SHAPES and tiny_values in src/main.rs.
TINY_SHAPES = [(3,), (2, 2), (5,), (2, 3)]


def base(rows, cols):
    return (np.arange(rows * cols, dtype="<f8") * 0.5).reshape(rows, cols)


def tiny_array(k):
    shape = TINY_SHAPES[k % len(TINY_SHAPES)]
    n = int(np.prod(shape))
    return ((k % 1000) + 0.25 * np.arange(n, dtype="<f4")).astype("<f4").reshape(shape)


def text(i):
    """String i of the strings case; must match text() in src/strings.rs. At most 16 chars."""
    n = i % 10_000_000
    k = i % 6
    if k == 0:
        return f"s{n}"
    if k == 1:
        return f"\u00e9{n}\u00fc"  # é, ü: two-byte UTF-8
    if k == 2:
        return f"\u65e5\u672c{n}"  # 日本: three-byte UTF-8
    if k == 3:
        return f"{n}\U0001f642"  # 🙂: outside the BMP, four-byte UTF-8
    if k == 4:
        return f"abcdefgh{n}"  # up to 15 characters
    return ""


def int_array(n, k):
    """Member k of the npz cases: ((arange(n) + k * n) // 16) % 100000 as int64 (runs of 16
    equal values: compressible). Must match int_value in src/npz.rs."""
    return (((np.arange(n, dtype="<i8") + k * n) // 16) % 100000).astype("<i8")


# Must match the record structs in src/records.rs.
REC_DTYPE = np.dtype([("id", "<i4"), ("val", "<f8"), ("tag", "S8"), ("ok", "?"), ("v", "<f4", (3,))])


def rec_array(count):
    """Record i: id 7i - 3, val 0.5i, tag b"r%d" % (i % 10**7), ok i % 3 == 0,
    v (0.25i, -i, 1.5) (all exact). Must match expected_record in src/records.rs."""
    i = np.arange(count, dtype=np.int64)
    a = np.zeros(count, REC_DTYPE)
    a["id"] = (7 * i - 3).astype("<i4")
    a["val"] = i * 0.5
    a["tag"] = np.char.add(b"r", (i % 10**7).astype("S7"))
    a["ok"] = i % 3 == 0
    a["v"][:, 0] = i * 0.25
    a["v"][:, 1] = -i
    a["v"][:, 2] = 1.5
    return a


def inflate_array(kind, nbytes):
    """About NBYTES of data of one kind, as measurements and tables hold it (seeded):
    floats: normal values rounded to 3 decimals (f8); ints: counts below 1000 (i8);
    strings: words with a number, '<U16'; records: REC_DTYPE with random values."""
    rng = np.random.default_rng(22)
    if kind == "floats":
        return np.round(rng.standard_normal(nbytes // 8), 3)
    if kind == "ints":
        return rng.integers(0, 1000, nbytes // 8, dtype="<i8")
    if kind == "strings":
        n = nbytes // 64
        words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
        nums = rng.integers(0, 100000, n).astype("U6")
        return np.char.add(np.char.add(words[rng.integers(0, 6, n)], "_"), nums).astype("<U16")
    if kind == "records":
        n = nbytes // REC_DTYPE.itemsize
        a = np.zeros(n, REC_DTYPE)
        a["id"] = rng.integers(0, 10**6, n)
        a["val"] = np.round(rng.standard_normal(n), 3)
        a["tag"] = np.char.add(b"t", rng.integers(0, 10**5, n).astype("S6"))
        a["ok"] = rng.integers(0, 2, n).astype(bool)
        a["v"] = np.round(rng.standard_normal((n, 3)), 2)
        return a
    raise ValueError(f"unknown kind {kind}")


def to_native(a, conv):
    if conv == "inplace":
        a.byteswap(inplace=True)
        return a.view(a.dtype.newbyteorder())
    if conv == "astype":
        return a.astype(a.dtype.newbyteorder("="))
    return a


class Worker:
    def __init__(self):
        self.array = None
        self.blobs = []
        self.kept = {}

    def handle(self, cmd, args):
        if cmd == "version":
            return f"{np.__version__} (Python {platform.python_version()})"
        if cmd == "gen":
            path, kind, rows, cols = args[0], args[1], int(args[2]), int(args[3])
            a = base(rows, cols)
            if kind == "f":
                a = np.asfortranarray(a)
            elif kind == "be":
                a = a.astype(">f8")
            np.save(path, a)
            return "ok"
        if cmd == "npz_store":
            src, dst = args
            np.savez(dst, a=np.load(src))
            return "ok"
        if cmd == "read":
            path, conv = args
            t0 = time.perf_counter()
            a = to_native(np.load(path), conv)
            t1 = time.perf_counter()
            del a
            return repr(t1 - t0)
        if cmd == "check":
            path, conv, rows, cols = args[0], args[1], int(args[2]), int(args[3])
            a = to_native(np.load(path), conv)
            if not (a.dtype.isnative and a.dtype.kind == "f" and a.dtype.itemsize == 8):
                return f"bad dtype {a.dtype.str}"
            if not np.array_equal(a, base(rows, cols)):
                return "bad values"
            return f"ok {float(a.sum())!r}"
        if cmd == "prep":
            kind, dims = args[0], [int(x) for x in args[1:]]
            if kind == "c":
                self.array = base(*dims)
            elif kind == "f":
                self.array = base(*dims).T
            elif kind == "perm":
                d0, d1, d2 = dims
                self.array = base(d0, d1 * d2).reshape(d0, d1, d2).transpose(2, 0, 1)
            else:
                return f"ERR unknown kind {kind}"
            return "ok"
        if cmd == "write":
            (path,) = args
            a = self.array
            if os.path.exists(path):
                os.unlink(path)
            t0 = time.perf_counter()
            np.save(path, a)
            t1 = time.perf_counter()
            return repr(t1 - t0)
        if cmd == "tiny_prep":
            count = int(args[0])
            self.blobs = []
            for k in range(count):
                buf = io.BytesIO()
                np.save(buf, tiny_array(k))
                self.blobs.append(buf.getvalue())
            return "ok"
        if cmd == "tiny_read":
            blobs = self.blobs
            t0 = time.perf_counter()
            for b in blobs:
                np.load(io.BytesIO(b))
            t1 = time.perf_counter()
            return repr(t1 - t0)
        if cmd == "tiny_check":
            total = 0.0
            for b in self.blobs:
                total += float(np.load(io.BytesIO(b)).sum(dtype="f8"))
            return f"ok {total!r}"
        if cmd == "tiny_dump":
            with open(args[0], "wb") as f:
                for b in self.blobs:
                    f.write(b)
            return "ok"
        if cmd == "mmap_sum":
            (path,) = args
            t0 = time.perf_counter()
            s = np.load(path, mmap_mode="r").sum()
            t1 = time.perf_counter()
            del s
            return repr(t1 - t0)
        if cmd == "mmap_check":
            (path,) = args
            a = np.load(path, mmap_mode="r")
            if not isinstance(a, np.memmap):
                return f"bad type {type(a).__name__}"
            if not (a.dtype.isnative and a.dtype.kind == "f" and a.dtype.itemsize == 8):
                return f"bad dtype {a.dtype.str}"
            return f"ok {float(a.sum())!r}"
        if cmd == "view_many":
            path, count = args[0], int(args[1])
            a = None
            t0 = time.perf_counter()
            for _ in range(count):
                a = np.load(path, mmap_mode="r")
            t1 = time.perf_counter()
            del a
            return repr(t1 - t0)
        if cmd == "rows_read":
            path, n, total, count, mode = args[0], int(args[1]), int(args[2]), int(args[3]), args[4]
            starts = [(total // 2 - n // 2 + j * n) % (total - n) for j in range(count)]
            if mode == "kept":
                m = self.kept.get(path)
                if m is None:
                    m = self.kept[path] = np.load(path, mmap_mode="r")
                t0 = time.perf_counter()
                for a in starts:
                    r = m[a : a + n].copy()
                t1 = time.perf_counter()
            elif mode == "open":
                t0 = time.perf_counter()
                for a in starts:
                    r = np.load(path, mmap_mode="r")[a : a + n].copy()
                t1 = time.perf_counter()
            else:
                return f"ERR unknown mode {mode}"
            del r
            return repr(t1 - t0)
        if cmd == "region_gen":
            path, planes = args[0], int(args[1])
            a = np.lib.format.open_memmap(path, mode="w+", dtype="<f8", shape=(planes, 128, 1024))
            for i in range(planes):
                a[i] = np.arange(i * 131072, (i + 1) * 131072, dtype="<f8").reshape(128, 1024)
            a.flush()
            del a
            return "ok"
        if cmd == "region_read":
            path, expr, count = args[0], args[1], int(args[2])
            sel = eval("np.s_[" + expr + "]", {"np": np})
            t0 = time.perf_counter()
            for _ in range(count):
                r = np.load(path, mmap_mode="r")[sel].copy()
            t1 = time.perf_counter()
            del r
            return repr(t1 - t0)
        if cmd == "rows_check":
            path, a, b = args[0], int(args[1]), int(args[2])
            m = np.load(path, mmap_mode="r")
            r = m[a:b].copy()
            # The copy is a np.memmap instance not backed by the file: it owns its memory.
            if not r.flags.owndata or np.shares_memory(r, m):
                return "bad result: not a copy"
            if r.dtype != np.dtype("<f8") or r.ndim != 2:
                return f"bad result {r.dtype.str} {r.shape}"
            cols = r.shape[1]
            expected = (np.arange(a * cols, b * cols, dtype="<f8") * 0.5).reshape(b - a, cols)
            if not np.array_equal(r, expected):
                return "bad values"
            return f"ok {float(r.sum())!r}"
        if cmd == "forget":
            self.kept = {}
            return "ok"
        if cmd == "gen_str":
            path, count = args[0], int(args[1])
            np.save(path, np.array([text(i) for i in range(count)], dtype="<U16"))
            return "ok"
        if cmd == "str_read":
            path, mode = args
            if mode == "load":
                t0 = time.perf_counter()
                a = np.load(path)
                t1 = time.perf_counter()
            elif mode == "tolist":
                t0 = time.perf_counter()
                a = np.load(path).tolist()
                t1 = time.perf_counter()
            else:
                return f"ERR unknown mode {mode}"
            del a
            return repr(t1 - t0)
        if cmd == "str_check":
            path, count = args[0], int(args[1])
            a = np.load(path)
            if a.dtype != np.dtype("<U16") or a.shape != (count,):
                return f"bad array {a.dtype.str} {a.shape}"
            items = a.tolist()
            if not all(isinstance(s, str) for s in items):
                return "bad item type"
            if items != [text(i) for i in range(count)]:
                return "bad values"
            return f"ok {float(count)!r}"
        if cmd == "npz_tiny_gen":
            path, count = args[0], int(args[1])
            save = np.savez_compressed if args[2:] == ["compressed"] else np.savez
            save(path, **{f"t{k}": tiny_array(k) for k in range(count)})
            return "ok"
        if cmd == "npz_load_all":
            (path,) = args
            t0 = time.perf_counter()
            d = np.load(path)
            arrays = [d[k] for k in d.files]
            d.close()
            t1 = time.perf_counter()
            del arrays
            return repr(t1 - t0)
        if cmd == "npz_names":
            (path,) = args
            t0 = time.perf_counter()
            d = np.load(path)
            files = d.files
            d.close()
            t1 = time.perf_counter()
            del files
            return repr(t1 - t0)
        if cmd == "npz_tiny_check":
            path, count = args[0], int(args[1])
            with np.load(path) as d:
                if d.files != [f"t{k}" for k in range(count)]:
                    return "bad names"
                total = 0.0
                for k, name in enumerate(d.files):
                    a = d[name]
                    if a.dtype != np.dtype("<f4") or not np.array_equal(a, tiny_array(k)):
                        return f"bad member {name}"
                    total += float(a.sum(dtype="f8"))
            return f"ok {total!r}"
        if cmd == "npz_int_gen":
            path, n, members = args[0], int(args[1]), int(args[2])
            if members == 1:
                np.savez_compressed(path, a=int_array(n, 0))
            else:
                np.savez_compressed(path, **{f"a{k}": int_array(n, k) for k in range(members)})
            return "ok"
        if cmd == "npz_int_prep":
            self.array = int_array(int(args[0]), 0)
            return "ok"
        if cmd == "npz_compress":
            (path,) = args
            a = self.array
            if os.path.exists(path):
                os.unlink(path)
            t0 = time.perf_counter()
            np.savez_compressed(path, a=a)
            t1 = time.perf_counter()
            return repr(t1 - t0)
        if cmd == "npz_read":
            path, key = args
            t0 = time.perf_counter()
            with np.load(path) as d:
                a = d[key]
            t1 = time.perf_counter()
            del a
            return repr(t1 - t0)
        if cmd == "npz_int_check":
            path, key, n, k = args[0], args[1], int(args[2]), int(args[3])
            with np.load(path) as d:
                a = d[key]
            if a.dtype != np.dtype("<i8"):
                return f"bad dtype {a.dtype.str}"
            if not np.array_equal(a, int_array(n, k)):
                return "bad values"
            return f"ok {float(a.sum())!r}"
        if cmd == "rec_gen":
            path, count = args[0], int(args[1])
            np.save(path, rec_array(count))
            return "ok"
        if cmd == "rec_read":
            (path,) = args
            t0 = time.perf_counter()
            a = np.load(path)
            t1 = time.perf_counter()
            del a
            return repr(t1 - t0)
        if cmd == "rec_check":
            path, count = args[0], int(args[1])
            a = np.load(path)
            if a.dtype != REC_DTYPE or a.shape != (count,):
                return f"bad array {a.dtype} {a.shape}"
            if not np.array_equal(a, rec_array(count)):
                return "bad values"
            return f"ok {float(count)!r}"
        if cmd == "inflate_gen":
            import zipfile
            import zlib

            path, kind, nbytes = args[0], args[1], int(args[2])
            np.savez_compressed(path, a=inflate_array(kind, nbytes))
            with zipfile.ZipFile(path) as z:
                info = z.getinfo("a.npy")
            with open(path, "rb") as f:
                f.seek(info.header_offset)
                local = f.read(30)
                names = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
                f.seek(info.header_offset + 30 + names)
                raw = f.read(info.compress_size)
            # The stream must be the member: inflated, it gives the member's bytes.
            if zlib.crc32(zlib.decompress(raw, -15)) != info.CRC:
                return "bad raw stream"
            with open(path + ".deflate", "wb") as f:
                f.write(raw)
            return f"ok {info.file_size} {info.CRC}"
        if cmd == "many_load":
            d, count = args[0], int(args[1])
            paths = [os.path.join(d, f"{i}.npy") for i in range(count)]
            t0 = time.perf_counter()
            for p in paths:
                r = np.load(p)
            t1 = time.perf_counter()
            del r
            return repr(t1 - t0)
        if cmd == "many_region":
            d, count, a, b = args[0], int(args[1]), int(args[2]), int(args[3])
            paths = [os.path.join(d, f"{i}.npy") for i in range(count)]
            t0 = time.perf_counter()
            for p in paths:
                r = np.load(p, mmap_mode="r")[a:b].copy()
            t1 = time.perf_counter()
            del r
            return repr(t1 - t0)
        if cmd == "many_bytes":
            d, count = args[0], int(args[1])
            blobs = []
            for i in range(count):
                with open(os.path.join(d, f"{i}.npy"), "rb") as f:
                    blobs.append(f.read())
            t0 = time.perf_counter()
            for b in blobs:
                r = np.load(io.BytesIO(b))
            t1 = time.perf_counter()
            del r, blobs
            return repr(t1 - t0)
        if cmd == "many_check":
            d, count = args[0], int(args[1])
            total = 0.0
            for i in range(count):
                a = np.load(os.path.join(d, f"{i}.npy"))
                if a.dtype != np.dtype("<f8") or a.shape != (64, 128) or a[0, 0] != i:
                    return f"bad file {i}"
                total += float(a[0, 0])
            return f"ok {total!r}"
        return f"ERR unknown command {cmd}"


def main():
    worker = Worker()
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "quit":
            break
        try:
            reply = worker.handle(parts[0], parts[1:])
        except Exception as e:  # report, keep serving
            reply = f"ERR {type(e).__name__}: {e}"
        sys.stdout.write(reply.replace("\n", " ") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
