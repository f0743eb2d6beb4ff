#!/usr/bin/env python3
"""Tests of scripts/layers.py: a small tree of layers that it passes, and each kind of upward
use it must catch (a grouped `crate::{..}` tree, an `ndnpy::` path, `super::super`, code
after an inline test module, a method an upper layer defines on a lower layer's type and
the lower layer calls, by path or as a method, ndarray named in an engine layer), each alone
in a copy of that tree.

    python3 scripts/test_layers.py     # exit 1 if the checker misses one or flags the clean tree
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CLEAN = {
    "base/mod.rs": "pub mod inner;\npub struct Kind;\nimpl Kind {\n    pub fn base_only(&self) {}\n}\n",
    "base/inner.rs": "use super::Kind;\npub fn f(k: &Kind) { k.base_only() }\n",
    "array/mod.rs": "use crate::base::{inner, Kind};\npub struct Dyn;\npub fn g(k: &Kind) { inner::f(k) }\n",
    "object/mod.rs": (
        "use crate::array::Dyn;\nuse crate::base::Kind;\n"
        "impl Dyn {\n    pub fn object_door() {}\n    pub fn unpickle_all(&self) {}\n}\n"
        "pub fn h() { Dyn::object_door(); let _ = \"crate::convert::x\"; }\n"
        "// crate::convert::y in a comment\n"
        "#[cfg(test)]\nmod tests {\n    use crate::convert::Z;\n}\n"
    ),
    "convert/mod.rs": "pub struct Z;\nuse crate::object::h;\n",
    # Above the engine, ndarray is the layer's to name.
    "array/nd.rs": "use ndarray::ArrayViewD;\npub fn v(_: ArrayViewD<'_, u8>) {}\n",
}

UPWARD = {
    "a grouped tree": ("base/inner.rs", "use crate::{array::Dyn, base::Kind};\n"),
    "a nested grouped tree": ("base/inner.rs", "use crate::{base::{inner}, object::{h}};\n"),
    "an ndnpy:: path": ("base/inner.rs", "pub fn u() { ndnpy::array::g; }\n"),
    "an ndnpy_engine:: path": ("base/inner.rs", "pub fn u() { ndnpy_engine::array::g; }\n"),
    "super::super": ("base/inner.rs", "use super::super::object::h;\n"),
    "super from a folder's mod.rs": ("base/mod.rs", "use super::array::Dyn;\n"),
    "code after an inline test module": (
        "base/mod.rs",
        "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\npub fn after() { crate::object::h() }\n",
    ),
    "an upper layer's method called by path": ("array/mod.rs", "pub fn k() { Dyn::object_door() }\n"),
    "an upper layer's method called as a method": (
        "array/mod.rs", "pub fn k(d: &Dyn) { d.unpickle_all() }\n"),
    "an import cycle within a layer": ("base/other.rs", "use super::inner::f;\npub fn o() {}\n"),
    "ndarray named in the engine": ("base/inner.rs", "use ndarray::ArrayViewD;\n"),
    "ndarray named in a grouped engine use": ("base/inner.rs", "use {ndarray::Axis, std::io};\n"),
    "ndarray from the root in the engine": ("base/inner.rs", "fn z(_: ::ndarray::Ix1) {}\n"),
    "ndarray renamed in the engine": ("base/inner.rs", "use ndarray as nd;\n"),
}
# The second half of the cycle above: inner uses other.
CYCLE = ("base/inner.rs", "use crate::base::other::o;\n")


def run(tree):
    with tempfile.TemporaryDirectory() as d:
        for rel, text in tree.items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, os.path.join(HERE, "layers.py"), "--src", d],
                           capture_output=True, text=True)
        return r.returncode, r.stdout


def main():
    failures = []
    code, out = run(CLEAN)
    if code != 0:
        failures.append(f"the clean tree was flagged:\n{out}")
    for kind, (rel, extra) in UPWARD.items():
        tree = dict(CLEAN)
        tree[rel] = tree.get(rel, "") + extra
        if kind == "an import cycle within a layer":
            tree[CYCLE[0]] += CYCLE[1]
            tree["base/mod.rs"] += "pub mod other;\n"
        code, out = run(tree)
        if code == 0:
            failures.append(f"missed {kind}")
    for f in failures:
        print(f)
    print(f"{len(UPWARD) + 1 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
