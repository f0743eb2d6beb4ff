#!/usr/bin/env bash
# Packages the six publishable crates as crates.io will receive them and checks them:
# `cargo package` builds each from its own tarball (ndnpy-derive and ndnpy-engine, then ndnpy
# and its twins for ndarray 0.16 and 0.15, ndnpy-ndarray16 and ndnpy-ndarray15, against them,
# then ndnpy-cli against all; the twins' src/ is a link that the tarball holds as files), and
# the tests that ship with ndnpy run from the unpacked package
# (the integration tests that read the numpy files of testdata/, with default features and
# `half`, which the sweep of every dtype needs).
#
#   scripts/package.sh [WORKDIR]     # WORKDIR defaults to /tmp/ndnpy-package
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/ndnpy-package}
rm -rf "$work"
mkdir -p "$work"
export CARGO_TARGET_DIR="$work/target"
# Cargo verifies ndnpy-cli against the ndnpy just packaged through a registry in
# $work/target/package, which it unpacks under $CARGO_HOME/registry/src/-HASH (the hash of
# that path) and never unpacks again while the directory is there: a run from the same
# WORKDIR would build the CLI against an earlier run's ndnpy. Only such local registries'
# directories are named with a leading '-'; their copies of these crates go first.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rm -rf "$cargo_home"/registry/src/-*/ndnpy-[0-9]* "$cargo_home"/registry/src/-*/ndnpy-derive-* \
    "$cargo_home"/registry/src/-*/ndnpy-engine-* "$cargo_home"/registry/src/-*/ndnpy-cli-* \
    "$cargo_home"/registry/src/-*/ndnpy-ndarray1[56]-*
cd "$repo"
cargo package --quiet -p ndnpy-derive -p ndnpy-engine -p ndnpy -p ndnpy-ndarray16 \
    -p ndnpy-ndarray15 -p ndnpy-cli
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
# Each twin ships the whole of ndnpy's source, nothing missing behind the link.
for twin in ndnpy-ndarray16 ndnpy-ndarray15; do
    diff <(tar -tzf "$work/target/package/ndnpy-$version.crate" | sed -n 's|^[^/]*/src/|src/|p' | sort) \
        <(tar -tzf "$work/target/package/$twin-$version.crate" | sed -n 's|^[^/]*/src/|src/|p' | sort)
done
tar -xzf "$work/target/package/ndnpy-$version.crate" -C "$work"
tar -xzf "$work/target/package/ndnpy-derive-$version.crate" -C "$work"
tar -xzf "$work/target/package/ndnpy-engine-$version.crate" -C "$work"
# The unpacked package builds on its own, with the unpacked ndnpy-derive and ndnpy-engine (not
# yet on crates.io).
cd "$work/ndnpy-$version"
cat >> Cargo.toml <<TOML

[patch.crates-io]
ndnpy-derive = { path = "$work/ndnpy-derive-$version" }
ndnpy-engine = { path = "$work/ndnpy-engine-$version" }

[workspace]
TOML
cargo test --quiet --features half --test it -- testdata:: npz::
echo "packages: ok"
