"""numpy side of the ndnpy benchmarks: a persistent worker driven over stdin/stdout.

One command per line, one reply line per command. Timed commands reply with the seconds
that `time.perf_counter()` measured around just the operation; errors reply `ERR ...`.

    version                        -> numpy and Python versions
    gen PATH KIND ROWS COLS        -> "ok"; np.save of (arange(ROWS*COLS) * 0.5).reshape(ROWS, COLS)
                                      as KIND: c, f (np.asfortranarray) or be (astype('>f8'))
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
    rows_check PATH A B            -> "ok SUM" if np.load(PATH, mmap_mode='r')[A:B].copy() is
                                      an f8 array equal to the expected rows; SUM its sum
    forget                         -> "ok"; drops the kept maps
    gen_str PATH COUNT             -> "ok"; np.save of COUNT strings text(i) as '<U16'
    str_read PATH MODE             -> seconds for np.load(PATH) (MODE load) or
                                      np.load(PATH).tolist() (MODE tolist)
    str_check PATH COUNT           -> "ok COUNT" if the loaded array is '<U16' and its items
                                      are text(0..COUNT)
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
