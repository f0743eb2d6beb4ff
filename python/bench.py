"""Same-run timings of the Python package against numpy: interleaved rounds in one process
(which has done the other cases' work first), medians and minimums, ratios ndnpy / numpy.

    python3 -m maturin build --release --out /tmp/w --manifest-path python/Cargo.toml
    python3 -m pip install --force-reinstall --no-deps /tmp/w/*.whl
    python3 python/bench.py [--rounds 7] [--case load,npz,savez,objects,process]

Cases: `load`, a 256 MiB float64 `.npy` through a path, a file object and bytes in memory;
`npz`, every member of an archive of 10,000 small arrays; `savez`, `savez_compressed` of
64 MiB of floats, a ramp and normal noise (numpy on one core, ndnpy on all); `objects`, an object array of 100,000
dicts (numpy with allow_pickle=True, which runs the pickle; ndnpy without); `process`, whole
processes (`python3 -c`, interpreter start and imports included) that load the 256 MiB `.npy`
and every member of the 10,000-member archive, one process per round and side.
"""

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The installed package, not the source beside this script (which lacks the extension).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import numpy as np  # noqa: E402

import ndnpy  # noqa: E402


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def rounds(pairs, n):
    """Runs each (name, ndnpy_fn, numpy_fn) in interleaved order, alternating which goes
    first; prints median and minimum of each and the ratio of medians."""
    times = {name: ([], []) for name, _, _ in pairs}
    for r in range(n):
        for name, ours, theirs in pairs:
            order = [(0, ours), (1, theirs)] if r % 2 == 0 else [(1, theirs), (0, ours)]
            for side, f in order:
                t, out = timed(f)
                del out
                times[name][side].append(t)
    for name, (a, b) in times.items():
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{name:<44} ndnpy {ma * 1e3:9.1f} ms (min {min(a) * 1e3:8.1f})  "
              f"numpy {mb * 1e3:9.1f} ms (min {min(b) * 1e3:8.1f})  ratio {ma / mb:5.2f}x")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--case", default="load,npz,savez,objects,process")
    args = p.parse_args()
    cases = args.case.split(",")
    d = tempfile.mkdtemp(prefix="ndnpy-bench-")
    print(f"numpy {np.__version__}, {os.cpu_count()} cores, {args.rounds} rounds")

    if "load" in cases:
        big = os.path.join(d, "big.npy")
        np.save(big, np.random.default_rng(0).standard_normal(32 << 20))  # 256 MiB
        data = open(big, "rb").read()

        def with_file(load):
            with open(big, "rb") as f:
                return load(f)

        rounds([
            ("load 256 MiB f8 .npy: path", lambda: ndnpy.load(big), lambda: np.load(big)),
            ("load 256 MiB f8 .npy: open file object", lambda: with_file(ndnpy.load),
             lambda: with_file(np.load)),
            ("load 256 MiB f8 .npy: BytesIO", lambda: ndnpy.load(io.BytesIO(data)),
             lambda: np.load(io.BytesIO(data))),
        ], args.rounds)
        del data
        os.remove(big)

    if "npz" in cases:
        many = os.path.join(d, "many.npz")
        rng = np.random.default_rng(1)
        np.savez(many, **{f"layer{i}": rng.standard_normal(16) for i in range(10_000)})

        def every(load):
            with load(many) as z:
                return [z[k] for k in z.files]

        rounds([("every member of 10,000 small (.npz, stored)", lambda: every(ndnpy.load),
                 lambda: every(np.load))], args.rounds)
        os.remove(many)

    if "savez" in cases:
        a, b = os.path.join(d, "a.npz"), os.path.join(d, "b.npz")
        for what, w in [
            ("a ramp", (np.arange(8 << 20, dtype=np.float64) * 0.37).reshape(-1, 8)),
            ("normal", np.random.default_rng(2).standard_normal((1 << 20, 8))),
        ]:  # 64 MiB each
            rounds([(f"savez_compressed 64 MiB f8, {what}",
                     lambda: ndnpy.savez_compressed(a, w=w),
                     lambda: np.savez_compressed(b, w=w))], max(3, args.rounds // 2))
            print(f"  sizes: ndnpy {os.path.getsize(a):,} bytes, numpy {os.path.getsize(b):,}")
        os.remove(a)
        os.remove(b)

    if "objects" in cases:
        objs = os.path.join(d, "objs.npy")
        a = np.empty(100_000, dtype=object)
        for i in range(len(a)):
            a[i] = {"id": i, "label": f"item{i}", "score": i / 7, "tags": ["a", "b"]}
        np.save(objs, a, allow_pickle=True)
        rounds([("object array of 100,000 dicts", lambda: ndnpy.load(objs),
                 lambda: np.load(objs, allow_pickle=True))], args.rounds)
        os.remove(objs)
    if "process" in cases:
        big, many = os.path.join(d, "big.npy"), os.path.join(d, "many.npz")
        np.save(big, np.random.default_rng(0).standard_normal(32 << 20))  # 256 MiB
        rng = np.random.default_rng(1)
        np.savez(many, **{f"layer{i}": rng.standard_normal(16) for i in range(10_000)})
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

        def process(code, *args):
            return lambda: subprocess.run([sys.executable, "-c", code, *args], env=env,
                                          check=True)

        npy = "import sys, {m}; a = {m}.load(sys.argv[1]); assert a.size == 32 << 20"
        npz = ("import sys, {m}\nwith {m}.load(sys.argv[1]) as z:\n"
               "    assert len([z[k] for k in z.files]) == 10_000")
        rounds([
            ("process: load 256 MiB f8 .npy", process(npy.format(m="ndnpy"), big),
             process(npy.format(m="numpy"), big)),
            ("process: every member of 10,000 (.npz)", process(npz.format(m="ndnpy"), many),
             process(npz.format(m="numpy"), many)),
        ], args.rounds)
        os.remove(big)
        os.remove(many)
    os.rmdir(d)


if __name__ == "__main__":
    main()
