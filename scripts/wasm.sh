#!/usr/bin/env bash
# ndnpy on WebAssembly: the library is checked, lint-clean, for wasm32-unknown-unknown with the
# features that make sense there (no maps, threads or object stores: `npz`, `derive`, `object`,
# `chrono`, `arrow`, `safetensors`), and tests/in_memory.rs (`.npy` and `.npz` read and written
# in memory) is built for wasm32-wasip1 and run under Node.js's WASI. Adds the targets with
# rustup if they are missing.
#
#   scripts/wasm.sh [WORKDIR]     # WORKDIR (default /tmp/ndnpy-wasm) holds the build
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${1:-/tmp/ndnpy-wasm}
cd "$repo"
for target in wasm32-unknown-unknown wasm32-wasip1; do
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done
cargo clippy --quiet -p ndnpy --target wasm32-unknown-unknown --no-default-features \
    --features npz,derive,object,chrono,arrow,safetensors -- -D warnings
CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings $repo/scripts/wasi-run.mjs" \
    cargo test --quiet -p ndnpy --target wasm32-wasip1 --no-default-features \
    --features npz,derive,object --test in_memory
echo "wasm32: ok"
