#!/usr/bin/env python3
"""A/B of the benchmark binary against an earlier commit's, case by case.

    python3 scripts/bench_ab.py BASE [--passes 3] [--rounds 5] [--cases a,b,...]

Builds `ndnpy-benchmarks` at BASE (a git worktree, its own target directory) and at the
working tree, then, for every case both know, runs the two binaries back to back
(`--case C --rounds R`, one whole process each; the order alternates from pass to pass), and
prints one line per row both report: the row's median over numpy's in each binary, and the
new binary's median over the old's, per pass and their median. Two binaries cannot share a
process, so each row's figure is as "same run" as two processes a few seconds apart allow;
the ratio to numpy, taken inside each process, is the steadier of the two.

The markdown each run printed stays in the output directory (--out, default
target/bench-ab) for reading.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def cases_of(main_rs):
    """The names in `const CASES` of a benchmarks/src/main.rs text."""
    block = re.search(r"const CASES: \[&str; \d+\] = \[(.*?)\];", main_rs, re.S)
    return re.findall(r'"([a-z_0-9]+)"', block.group(1)) if block else []


def build(src, target, out):
    """Builds the benchmark binary in `src` into `target` and copies it to `out`."""
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "ndnpy-benchmarks"],
        cwd=src,
        env=env,
        check=True,
    )
    shutil.copy2(os.path.join(target, "release", "ndnpy-benchmarks"), out)


def tables(path):
    """[(table title, {row: median seconds})] of one run's markdown, in order (a case may
    print several tables; they are matched by position)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("### "):
                out.append((line[4:].strip(), {}))
            elif out and line.startswith("| ") and not line.startswith("| implementation"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                m = re.match(r"([\d.]+)\s*(ns|µs|us|ms|s)$", cells[1]) if len(cells) > 1 else None
                if m:
                    out[-1][1][cells[0]] = float(m.group(1)) * UNITS[m.group(2)]
    return out


def table(run, k):
    """The rows of table `k` of a run, or none."""
    return run[k][1] if k < len(run) else {}


def run_all(bins, cases, args):
    """Runs every case with both binaries, `args.passes` times: {(pass, case, which): tables}."""
    runs = {}
    for p in range(args.passes):
        order = ["base", "new"] if p % 2 == 0 else ["new", "base"]
        for case in cases:
            for which in order:
                path = os.path.join(args.out, f"{case}.{which}.{p + 1}.md")
                with open(path, "w", encoding="utf-8") as f:
                    subprocess.run(
                        [bins[which], "--case", case, "--rounds", str(args.rounds)],
                        stdout=f,
                        stderr=subprocess.STDOUT,
                        check=True,
                    )
                runs[(p, case, which)] = tables(path)
            print(f"pass {p + 1}: {case}", file=sys.stderr)

    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", help="the commit to compare against")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cases", help="comma-separated; default: every case both binaries know")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "bench-ab"))
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    worktree = os.path.join(args.out, "base-src")
    if os.path.exists(worktree):
        subprocess.run(["git", "worktree", "remove", "--force", worktree], cwd=ROOT, check=False)
        shutil.rmtree(worktree, ignore_errors=True)
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--force", worktree, args.base],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # The binaries find their numpy worker and scripts in their own source tree, so the
    # base's worktree stays until every run is done.
    try:
        bins = {"base": os.path.join(args.out, "base"), "new": os.path.join(args.out, "new")}
        build(worktree, os.path.join(args.out, "base-target"), bins["base"])
        build(ROOT, os.path.join(ROOT, "target"), bins["new"])
        with open(os.path.join(worktree, "benchmarks/src/main.rs"), encoding="utf-8") as f:
            base_cases = cases_of(f.read())
        with open(os.path.join(ROOT, "benchmarks/src/main.rs"), encoding="utf-8") as f:
            new_cases = cases_of(f.read())
        cases = args.cases.split(",") if args.cases else [c for c in new_cases if c in base_cases]
        runs = run_all(bins, cases, args)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", worktree], cwd=ROOT, check=False)

    print(f"A/B against {args.base}: {args.passes} passes of {args.rounds} rounds a case\n")
    print("| case | row | old ÷ numpy | new ÷ numpy | new ÷ old, each pass | median |")
    print("|---|---|---:|---:|---|---:|")
    for case in cases:
        first = runs[(0, case, "base")]
        for k, (title, rows) in enumerate(first):
            title = title.split(":")[0] if len(first) == 1 else title[:60]
            for row in rows:
                if not row.startswith("ndnpy"):
                    continue
                olds, news, quots = [], [], []
                for p in range(args.passes):
                    b = table(runs[(p, case, "base")], k)
                    n = table(runs[(p, case, "new")], k)
                    if row not in b or row not in n:
                        continue
                    quots.append(n[row] / b[row])
                    if "numpy" in b and "numpy" in n:
                        olds.append(b[row] / b["numpy"])
                        news.append(n[row] / n["numpy"])
                if not quots:
                    continue
                old = f"{statistics.median(olds):.2f}x" if olds else "-"
                new = f"{statistics.median(news):.2f}x" if news else "-"
                each = ", ".join(f"{q:.2f}" for q in quots)
                print(f"| {title} | {row} | {old} | {new} | {each} | {statistics.median(quots):.2f} |")


if __name__ == "__main__":
    main()
