#!/usr/bin/env bash
# Checks that ndnpy's dependency requirements resolve where users' lockfiles are:
#
# 1. Every lower bound in the manifests is real: with each workspace member's direct
#    dependencies at the lowest versions their requirements allow
#    (`cargo +nightly update -Z direct-minimal-versions`), the library builds with default
#    features and with all features, and so do the CLI and the compatibility crates.
# 2. A project whose lockfile already holds flate2 1.1.9 (the last release without the
#    `runtime_detection` feature) adds ndnpy without `cargo update`.
#
# Runs in copies under WORKDIR (default /tmp/ndnpy-floors); needs the nightly toolchain and
# crates.io.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/ndnpy-floors}
rm -rf "$work"
mkdir -p "$work/repo"
# -P: links (engine/testdata, the licences) are copied as links.
(cd "$repo" && git ls-files -z | xargs -0 cp -P --parents -t "$work/repo")
# The Python package is not a Rust dependency of anyone's (pip builds it, with a lockfile of
# its own making): its PyO3 needs a newer quote than ndnpy-derive's floor, which minimal
# versions would pin for the whole workspace, so the copy's workspace leaves it out.
sed -i 's/, "python"//g' "$work/repo/Cargo.toml"
export CARGO_TARGET_DIR="$work/target"

echo "== direct minimal versions"
(cd "$work/repo" && cargo +nightly update -Z direct-minimal-versions --quiet)
(cd "$work/repo" && cargo +nightly check --quiet -p ndnpy)
(cd "$work/repo" && cargo +nightly check --quiet -p ndnpy --all-features)
(cd "$work/repo" && cargo +nightly check --quiet -p ndnpy-cli -p ndnpy-compat -p ndnpy-compat-app)
# The crates for ndarray 0.16 and 0.15, at their ndarray floors (0.16.0, 0.15.2).
(cd "$work/repo" && cargo +nightly check --quiet -p ndnpy-ndarray16 -p ndnpy-ndarray15)
(cd "$work/repo" && cargo +nightly check --quiet -p ndnpy-cli --features remote)

echo "== an existing lockfile with flate2 1.1.9"
mkdir -p "$work/app/src"
cat > "$work/app/Cargo.toml" <<TOML
[package]
name = "lockfile-app"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
flate2 = "1.1"

[workspace]
TOML
echo 'fn main() {}' > "$work/app/src/main.rs"
(cd "$work/app" && cargo generate-lockfile --quiet && cargo update --quiet -p flate2 --precise 1.1.9)
sed -i "s|^flate2 = \"1.1\"|flate2 = \"1.1\"\nndnpy = { path = \"$work/repo\" }|" "$work/app/Cargo.toml"
(cd "$work/app" && cargo check --quiet)
grep -A1 'name = "flate2"' "$work/app/Cargo.lock" | grep -q 'version = "1.1.9"' || {
    echo "flate2 1.1.9 was not kept in the lockfile" >&2
    exit 1
}
echo "dependency floors: ok"
