#!/usr/bin/env python3
"""Every public item has rustdoc with an example: checks the crate's rustdoc JSON.

    cargo +nightly rustdoc -p ndnpy --all-features -- -Z unstable-options --output-format json
    python3 scripts/doc_examples.py [target/doc/ndnpy.json]

Walks the public API from the crate root (modules, re-exports, types, traits, inherent
methods, constants) and fails, listing them, if any item's docs hold no code block. An item
re-exported under another name may carry its example on the re-export. Enum variants and
struct fields are documented by their type's example.
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "target/doc/ndnpy.json"
doc = json.load(open(path))
index = doc["index"]


def kind(item):
    return next(iter(item["inner"]))


# Docs written on re-exports, by the item they re-export.
reexport_docs = {}
for item in index.values():
    if item["crate_id"] == 0 and kind(item) == "use":
        target = item["inner"]["use"].get("id")
        if target is not None:
            reexport_docs.setdefault(str(target), []).append(item.get("docs") or "")

seen, missing, checked = set(), [], 0


def walk(item_id, path):
    global checked
    item_id = str(item_id)
    if item_id in seen or item_id not in index:
        return
    seen.add(item_id)
    item = index[item_id]
    if item["crate_id"] != 0:
        return
    k, inner = kind(item), item["inner"][kind(item)]
    if k == "use":
        target = inner.get("id")
        if target is not None and inner.get("is_glob"):
            # A glob re-exports the module's items, not the module.
            module = index.get(str(target))
            if module is not None and kind(module) == "module":
                for child in module["inner"]["module"]["items"]:
                    walk(child, path)
                return
        if target is not None:
            walk(target, path)
        return
    if item["visibility"] != "public":
        return
    name = path + [item["name"]] if item.get("name") else path
    docs = (item.get("docs") or "") + "".join(reexport_docs.get(item_id, []))
    checked += 1
    if "```" not in docs:
        missing.append(f"{k} {'::'.join(name)}")
    if k == "module":
        for child in inner["items"]:
            walk(child, name)
    elif k in ("struct", "enum", "union"):
        for impl_id in inner.get("impls", []):
            impl = index[str(impl_id)]["inner"]["impl"]
            if impl.get("trait") is None and not impl.get("is_synthetic") and not impl.get("blanket_impl"):
                for child in impl["items"]:
                    walk(child, name)
    elif k == "trait":
        for child in inner["items"]:
            walk(child, name)


walk(doc["root"], [])
if missing:
    print(f"public items without an example ({len(missing)} of {checked}):", file=sys.stderr)
    for m in missing:
        print("  " + m, file=sys.stderr)
    sys.exit(1)
print(f"doc examples: all {checked} public items have one")
