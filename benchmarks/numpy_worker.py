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
