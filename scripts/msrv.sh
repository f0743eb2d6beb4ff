#!/usr/bin/env bash
# Builds ndnpy with the minimum Rust its manifests declare (`rust-version`), with default
# features and with all features, and the CLI and the derive macro: the versions of the
# dependencies are those a project on that Rust gets from cargo's Rust-version-aware resolver
# (`incompatible-rust-versions = "fallback"`, the default of resolver 3).
#
#   scripts/msrv.sh [WORKDIR]     # WORKDIR defaults to /tmp/ndnpy-msrv
#
# Installs the toolchain with rustup if it is missing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/ndnpy-msrv}
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' "$repo/Cargo.toml")
for manifest in cli/Cargo.toml ndnpy-derive/Cargo.toml; do
    declared=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' "$repo/$manifest")
    if [ "$declared" != "$msrv" ]; then
        echo "$manifest declares rust-version $declared; Cargo.toml declares $msrv" >&2
        exit 1
    fi
done
if ! cargo "+$msrv" --version >/dev/null 2>&1; then
    rustup toolchain install "$msrv" --profile minimal
fi
rm -rf "$work"
mkdir -p "$work/repo"
# -P: links (engine/testdata, the licences) are copied as links.
(cd "$repo" && git ls-files -z | xargs -0 cp -P --parents -t "$work/repo")
export CARGO_TARGET_DIR="$work/target"
cd "$work/repo"
CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo "+$msrv" update --quiet
cargo "+$msrv" check --quiet -p ndnpy
cargo "+$msrv" check --quiet -p ndnpy --all-features
cargo "+$msrv" check --quiet -p ndnpy-cli -p ndnpy-derive
cargo "+$msrv" check --quiet -p ndnpy-cli --features remote
echo "minimum Rust $msrv: ok"
