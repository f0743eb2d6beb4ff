#!/usr/bin/env python3
"""Checks that the folders of the engine (`engine/src/`) and of the ndarray layer (`src/`) stay
layers: each module uses only its own folder and the folders below it, and no two modules
import each other, directly or round a loop.

    python3 scripts/layers.py          # exit 1, with each offending use, if any
    python3 scripts/layers.py --src D  # one other tree holding every folder
                                       # (scripts/test_layers.py checks the checker)

The layers, from the bottom up, are `LAYERS` below (ARCHITECTURE.md names them in this order);
the engine's folders are one crate, the layer's another, and the two trees are checked as one.
A module is a file of either tree, or a folder's `mod.rs`. What counts as a use of another
module:

* a path `crate::a::b::X`, `ndnpy::a::b::X` or `ndnpy_engine::a::b::X` (the crates' own
  names), and every path of a grouped tree (`crate::{a::X, b::{c, d}}`); it names the module
  it reaches into, as deep as the path goes (`crate::format::header::Header` names
  `format/header`);
* `super::` (any number of them) and `self::`, resolved from the module they are written in;
* a call `T::f(` or `.f(` in a module of a lower layer than an inherent `impl T` that defines
  `f` (a type's methods can be defined in a layer above the type, and called from below
  without any path naming that layer: the one use no import shows).

The layers up to `remote` are the engine, which knows no array type: their code names no
`ndarray` (the crate does not depend on it; the ndarray layer, `array/` and above, converts to
and from the engine's types: `array/nd.rs` turns a view into the element layer's `Strided`).

Code means what is left without comments, string literals and `#[cfg(test)]` modules (a
test may call the crate's public API from any layer); code after an inline test module
counts. A path to a name that `lib.rs` re-exports (`crate::Error`) is an error: code names
where an item lives.
"""

import os
import re
import sys

LAYERS = [
    "base",
    "platform",
    "format",
    "source",
    "element",
    "record",
    "archive",
    "remote",
    "array",
    "object",
    "npz",
    "convert",
]

# The engine: the layers below `array`, which name no ndarray type.
ENGINE = LAYERS[: LAYERS.index("array")]
NDARRAY = re.compile(r"(?<!\w)ndarray\s*(?:::|as\b|;)")

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def modules(roots):
    """{module path ("format/header", "npz" for npz/mod.rs): file path}, over the trees."""
    out = {}
    for root in roots:
        out.update(modules_of(root))
    return out


def modules_of(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)[: -len(".rs")].replace(os.sep, "/")
            if rel == "lib":
                continue
            if rel.endswith("/mod"):
                rel = rel[: -len("/mod")]
            out[rel] = os.path.join(d, f)
    return out


def strip(text):
    """`text` with comments and string and char literals blanked (newlines kept, so offsets
    keep their line numbers)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 12]) and not re.match(r"\w", text[i - 1:i] or " "):
            hashes = len(re.match(r"r(#*)", text[i:]).group(1))
            end = text.find('"' + "#" * hashes, i + 2 + hashes)
            end = n if end < 0 else end + 1 + hashes
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + "".join(ch if ch == "\n" else " " for ch in text[i + 1:j]) + '"')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(code, open_at):
    """The offset just past the brace that closes the one at `open_at`."""
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(code)


TEST_MOD = re.compile(
    r"#\[cfg\((?:all\()?test\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*([;{])"
)


def code_of(path):
    """(code, test modules declared out of line): the file's code with its inline
    `#[cfg(test)]` modules blanked."""
    code = strip(open(path, encoding="utf-8").read())
    outline = []
    for m in reversed(list(TEST_MOD.finditer(code))):
        if m.group(2) == ";":
            outline.append(m.group(1))
            continue
        end = block_end(code, m.end() - 1)
        blank = "".join(ch if ch == "\n" else " " for ch in code[m.start():end])
        code = code[: m.start()] + blank + code[end:]
    return code, outline


def expand(tree):
    """The paths of a use tree's inside (`a::X, b::{c, d}` -> a::X, b::c, b::d)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(tree):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(tree[start:i])
            start = i + 1
    parts.append(tree[start:])
    out = []
    for part in parts:
        part = re.sub(r"\s+", "", part)
        if not part:
            continue
        if "{" in part:
            head, inner = part.split("{", 1)
            out += [head + p for p in expand(inner[: inner.rfind("}")])]
        else:
            out.append(part.split(" as ")[0])
    return out


PATH_START = re.compile(r"(?<![\w:])((?:(?:crate|ndnpy_engine|ndnpy)|(?:super|self)(?:::super)*)::)")


def paths_in(code):
    """(offset, root, rest) of every path from `crate`, `ndnpy`, `super` or `self` in code,
    grouped trees expanded."""
    out = []
    for m in PATH_START.finditer(code):
        root = m.group(1)[:-2]
        i = m.end()
        rest = ""
        while True:
            seg = re.match(r"\s*(" + IDENT + r")\s*", code[i:])
            if code[i:].lstrip().startswith("{"):
                open_at = code.index("{", i)
                end = block_end(code, open_at)
                for p in expand(code[open_at + 1:end - 1]):
                    out.append((m.start(), root, rest + p))
                break
            if not seg:
                if rest:
                    out.append((m.start(), root, rest.rstrip(":")))
                break
            rest += seg.group(1)
            i += seg.end()
            if code[i:].startswith("::"):
                rest += "::"
                i += 2
            else:
                out.append((m.start(), root, rest))
                break
    return out


def resolve(root, rest, name):
    """The crate path (`a::b::X`) that `root::rest` names, written in module `name` (`self`
    is the module itself, each `super` one step up, whether the module is a file or a
    folder's `mod.rs`)."""
    if root in ("crate", "ndnpy", "ndnpy_engine"):
        return rest
    base = name.split("/")
    for step in root.split("::"):
        if step == "super":
            base = base[:-1]
    return "::".join(base + [rest])


def target(path, mods):
    """The module a crate path reaches into: its longest prefix that is one."""
    parts = path.split("::")
    for n in range(len(parts), 0, -1):
        name = "/".join(parts[:n])
        if name in mods:
            return name
    return None


def layer(module):
    return LAYERS.index(module.split("/")[0])


IMPL = re.compile(
    r"(?m)^\s*impl(?:<[^{;]*?>)?\s+(?:(?:crate|super|self|ndnpy|" + IDENT + r")::)*(" + IDENT
    + r")(?:<[^{;]*?>)?\s*(?:where[^{]*)?\{"
)
DEF = re.compile(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|union|type)\s+(" + IDENT + r")")
FN = re.compile(r"\bfn\s+(" + IDENT + r")")
# Methods of the standard library's types that a crate's own method may share a name with.
COMMON = {
    "get", "get_mut", "len", "is_empty", "iter", "iter_mut", "into_iter", "map", "push",
    "insert", "remove", "contains", "clone", "as_str", "as_ref", "as_mut", "as_slice",
    "first", "last", "take", "read", "write", "flush", "new", "default", "from", "into",
    "to_string", "fmt", "eq", "cmp", "hash", "next", "extend", "clear", "keys", "values",
}


def check(roots):
    if isinstance(roots, str):
        roots = [roots]
    mods = modules(roots)
    top_dir = os.path.commonpath([os.path.dirname(r) for r in roots]) if len(roots) > 1 else None
    shown = lambda path: os.path.relpath(path, top_dir) if top_dir else f"src/{os.path.relpath(path, roots[0])}"
    codes, skip = {}, set()
    for name, path in mods.items():
        codes[name], outline = code_of(path)
        skip.update(f"{name}/{t}" for t in outline)
    mods = {n: p for n, p in mods.items() if n not in skip}
    problems, edges = [], {}

    def line_of(name, offset):
        return codes[name].count("\n", 0, offset) + 1

    defined, fns = {}, {}
    for name in sorted(mods):
        if name.split("/")[0] not in LAYERS:
            continue
        for m in DEF.finditer(codes[name]):
            defined.setdefault(m.group(1), set()).add(name)
        fns[name] = set(FN.findall(codes[name]))
    for name, path in sorted(mods.items()):
        top = name.split("/")[0]
        where = lambda off: f"{shown(path)}:{line_of(name, off)}"
        if top not in LAYERS:
            problems.append(f"{shown(path)}: in no layer (add its folder to LAYERS)")
            continue
        if top in ENGINE:
            for m in NDARRAY.finditer(codes[name]):
                problems.append(f"{where(m.start())}: {name} ({top}) names ndarray; the engine knows no array type")
        for off, r, rest in paths_in(codes[name]):
            p = resolve(r, rest, name)
            to = target(p, mods)
            if to is None:
                if r in ("crate", "ndnpy", "ndnpy_engine"):
                    problems.append(f"{where(off)}: {r}::{rest} goes through lib.rs; name the module it lives in")
                continue
            if to == name or name.startswith(to + "/"):
                continue
            if layer(to) > layer(name):
                problems.append(f"{where(off)}: {name} ({top}) uses {to}, a layer up")
            edges.setdefault(name, set()).add(to)
    # Methods a higher layer defines on a lower layer's type, called from below.
    for name in sorted(mods):
        if name.split("/")[0] not in LAYERS:
            continue
        code = codes[name]
        for m in IMPL.finditer(code):
            ty = m.group(1)
            # The type's own module: this one if it defines a type of that name, else the
            # one module that does (names shared by several types are left alone).
            homes = defined.get(ty, set())
            if name in homes or len(homes) != 1:
                continue
            home = next(iter(homes))
            if layer(home) >= layer(name):
                continue
            body = code[m.end() - 1:block_end(code, m.end() - 1)]
            methods = set(FN.findall(body))
            for other in sorted(mods):
                if other.split("/")[0] not in LAYERS or layer(other) >= layer(name):
                    continue
                below = set().union(*(fns[o] for o in fns if layer(o) <= layer(other)))
                names_type = re.search(r"\b" + ty + r"\b", codes[other]) is not None
                for f in sorted(methods):
                    pat = r"\b" + ty + r"\s*::\s*" + f + r"\s*\("
                    # A method call `.f(` with no type in sight: counted where the module
                    # names the type and no function of that name is in reach otherwise
                    # (the crate's lower layers, or the standard library's common ones).
                    if names_type and f not in below and f not in COMMON:
                        pat += r"|\.\s*" + f + r"\s*\("
                    for c in re.finditer(pat, codes[other]):
                        problems.append(
                            f"{shown(mods[other])}:{line_of(other, c.start())}: "
                            f"{other} calls {ty}::{f}, which {name} defines, a layer up"
                        )
    # Cycles between modules.
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
    return problems, len(mods), edges


def main():
    args = sys.argv[1:]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = [os.path.join(repo, "engine", "src"), os.path.join(repo, "src")]
    if "--src" in args:
        roots = [args[args.index("--src") + 1]]
    problems, count, edges = check(roots)
    if "-v" in args:
        for n in sorted(edges):
            print(n, "->", ", ".join(sorted(edges[n])))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s); the layers, bottom up: {', '.join(LAYERS)}")
        return 1
    print(f"layers ok: {count} modules in {len(LAYERS)} layers, no upward use, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
