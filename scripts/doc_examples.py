#!/usr/bin/env python3
"""Every public item has rustdoc with an example: checks the crates' rustdoc JSON.

    cargo +nightly rustdoc -p ndnpy --all-features -- -Z unstable-options --output-format json
    cargo +nightly rustdoc -p ndnpy-engine --all-features -- -Z unstable-options \
        --output-format json --document-hidden-items
    python3 scripts/doc_examples.py [target/doc/ndnpy.json [target/doc/ndnpy_engine.json]]

Walks the public API from ndnpy's root (modules, re-exports, types, traits, inherent methods,
constants) and fails, listing them, if any item's docs hold no code block. The items ndnpy
re-exports from its engine are followed into the engine's JSON (written with its hidden items,
since its modules are hidden; items marked `#[doc(hidden)]` are skipped). An item re-exported
under another name may carry its example on the re-export. Enum variants and struct fields are
documented by their type's example.
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "target/doc/ndnpy.json"
engine_path = sys.argv[2] if len(sys.argv) > 2 else path.replace("ndnpy.json", "ndnpy_engine.json")
docs_of = {"ndnpy": json.load(open(path)), "engine": json.load(open(engine_path))}


def kind(item):
    return next(iter(item["inner"]))


def hidden(item):
    return any("hidden" in json.dumps(a) for a in item.get("attrs", []))


# Docs written on re-exports, by the item they re-export (in either crate).
reexport_docs = {}
for name, doc in docs_of.items():
    for item in doc["index"].values():
        if item["crate_id"] == 0 and kind(item) == "use":
            target = item["inner"]["use"].get("id")
            if target is not None:
                key = (name, str(target))
                src = doc["paths"].get(str(target))
                if name == "ndnpy" and src is not None and src["crate_id"] != 0:
                    key = ("path", tuple(src["path"][1:]))
                reexport_docs.setdefault(key, []).append(item.get("docs") or "")

# The engine's items by their path, for ndnpy's re-exports of them.
engine = docs_of["engine"]
engine_by_path = {
    tuple(p["path"][1:]): i for i, p in engine["paths"].items() if p["crate_id"] == 0
}

seen, missing, checked = set(), [], 0


def walk(crate, item_id, path):
    global checked
    doc = docs_of[crate]
    index = doc["index"]
    item_id = str(item_id)
    if (crate, item_id) in seen:
        return
    seen.add((crate, item_id))
    if item_id not in index or index[item_id]["crate_id"] != 0:
        src = doc["paths"].get(item_id)
        if crate == "ndnpy" and src is not None and src["path"][0] == "ndnpy_engine":
            target = engine_by_path.get(tuple(src["path"][1:]))
            if target is not None:
                walk("engine", target, path)
        return
    item = index[item_id]
    if hidden(item):
        return
    k, inner = kind(item), item["inner"][kind(item)]
    if k == "use":
        target = inner.get("id")
        if target is not None and inner.get("is_glob"):
            # A glob re-exports the module's items, not the module.
            module = index.get(str(target))
            if module is not None and kind(module) == "module":
                for child in module["inner"]["module"]["items"]:
                    walk(crate, child, path)
                return
        if target is not None:
            walk(crate, target, path)
        return
    if item["visibility"] != "public":
        return
    name = path + [item["name"]] if item.get("name") else path
    key_path = ("path", tuple(doc["paths"][item_id]["path"][1:])) if item_id in doc["paths"] else None
    docs = (item.get("docs") or "") + "".join(reexport_docs.get((crate, item_id), []))
    if crate == "engine" and key_path is not None:
        docs += "".join(reexport_docs.get(key_path, []))
    checked += 1
    if "```" not in docs:
        missing.append(f"{k} {'::'.join(name)}")
    if k == "module":
        for child in inner["items"]:
            walk(crate, child, name)
    elif k in ("struct", "enum", "union"):
        for impl_id in inner.get("impls", []):
            impl = index[str(impl_id)]["inner"]["impl"]
            if impl.get("trait") is None and not impl.get("is_synthetic") and not impl.get("blanket_impl"):
                for child in impl["items"]:
                    walk(crate, child, name)
    elif k == "trait":
        for child in inner["items"]:
            walk(crate, child, name)


walk("ndnpy", docs_of["ndnpy"]["root"], [])
if missing:
    print(f"public items without an example ({len(missing)} of {checked}):", file=sys.stderr)
    for m in missing:
        print("  " + m, file=sys.stderr)
    sys.exit(1)
print(f"doc examples: all {checked} public items have one")
