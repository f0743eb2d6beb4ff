#!/usr/bin/env python3
"""Checks that the crate's folders stay layers: each module of `src/` imports only from its own
folder and the folders below it, and no two modules import each other, directly or round a
loop.

    python3 scripts/layers.py          # exit 1, with each offending import, if any

The layers, from the bottom up, are `LAYERS` below (ARCHITECTURE.md names them in this order).
An import is a path `crate::...` in code (comments, doc strings and `#[cfg(test)]` modules
are not code here: a test may call the crate's public API from any layer). A module is a file
of `src/`, or a folder's `mod.rs`; a path names the module it reaches into, as deep as the
path goes (`crate::format::header::Header` names `format/header`; `super::member::X` in
`npz/reader.rs` names `npz/member`). A path to a name that
`lib.rs` re-exports (`crate::Error`) is an error: code names where an item lives.
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
LAYERS = [
    "base",
    "platform",
    "format",
    "source",
    "element",
    "record",
    "array",
    "object",
    "npz",
    "remote",
    "convert",
]


CRATE_PATH = r"\bcrate::((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)"
SUPER_PATH = r"(?<![:\w])super::((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)"


def modules():
    """{module path ("format/header", "npz" for npz/mod.rs): file path}."""
    out = {}
    for d, _, files in os.walk(ROOT):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), ROOT)[: -len(".rs")]
            if rel == "lib":
                continue
            if rel.endswith("/mod"):
                rel = rel[: -len("/mod")]
            out[rel] = os.path.join(d, f)
    return out


def test_mod(lines, i):
    """If line `i` is `#[cfg(test)]` (or `#[cfg(all(test, ...))]`) on a module, past any
    comments and attributes between: (its name, whether its body is inline)."""
    if not re.match(r"\s*#\[cfg\((all\()?test\b", lines[i]):
        return None
    for line in lines[i + 1 :]:
        s = line.strip()
        if s.startswith("//") or s.startswith("#["):
            continue
        m = re.match(r"(pub(\(crate\))? )?mod (\w+)\s*([;{])", s)
        return (m.group(3), m.group(4) == "{") if m else None
    return None


def test_modules(mods):
    """Files that are `#[cfg(test)] mod x;` of their parent: test code throughout."""
    skip = set()
    for name, path in mods.items():
        lines = open(path, encoding="utf-8").read().split("\n")
        for i in range(len(lines)):
            found = test_mod(lines, i)
            if found and not found[1]:
                skip.add(f"{name}/{found[0]}")
    return skip


def code_lines(path):
    """(line number, text) of the code in `path`: no comments, no string literals, and
    nothing from an inline `#[cfg(test)]` module on (they end the files here)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        found = test_mod(lines, i)
        if found and found[1]:
            return
        if line.strip().startswith("//"):
            continue
        line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        yield i + 1, re.sub(r"//.*$", "", line)


def target(path, mods):
    """The module a `crate::a::b::c` path reaches into: its longest prefix that is one."""
    parts = path.split("::")
    for n in range(len(parts), 0, -1):
        name = "/".join(parts[:n])
        if name in mods:
            return name
    return None


def layer(module):
    return LAYERS.index(module.split("/")[0])


def main():
    mods = modules()
    tests = test_modules(mods)
    problems = []
    edges = {}
    for name, path in sorted(mods.items()):
        if name in tests:
            continue
        top = name.split("/")[0]
        if top not in LAYERS:
            problems.append(f"src/{os.path.relpath(path, ROOT)}: in no layer (add its folder to LAYERS)")
            continue
        for no, line in code_lines(path):
            paths = [m.group(1) for m in re.finditer(CRATE_PATH, line)]
            # `super::x` in a module of a folder: its sibling `x`, or the folder itself.
            parent = name.rsplit("/", 1)[0] if "/" in name else None
            if parent is not None:
                paths += [f"{parent.replace('/', '::')}::{m.group(1)}" for m in re.finditer(SUPER_PATH, line)]
            for p in paths:
                to = target(p, mods)
                where = f"src/{os.path.relpath(path, ROOT)}:{no}"
                if to is None:
                    problems.append(f"{where}: crate::{p} goes through lib.rs; name the module it lives in")
                    continue
                if to == name or name.startswith(to + "/") :
                    continue
                if layer(to) > layer(name):
                    problems.append(f"{where}: {name} ({top}) imports {to}, a layer up")
                edges.setdefault(name, set()).add(to)
    # Cycles between modules (a folder's mod.rs and its children count as one module each).
    state = {}
    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                loop = stack[stack.index(m):] + [m]
                problems.append("import cycle: " + " -> ".join(loop))
            elif m not in state:
                visit(m, stack)
        stack.pop()
        state[n] = 2
    for n in sorted(edges):
        if n not in state:
            visit(n, [])
    if "-v" in sys.argv:
        for n in sorted(edges):
            print(n, "->", ", ".join(sorted(edges[n])))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s); the layers, bottom up: {', '.join(LAYERS)}")
        return 1
    print(f"layers ok: {len(mods) - len(tests)} modules in {len(LAYERS)} layers, no upward import, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
