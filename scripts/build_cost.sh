#!/usr/bin/env bash
# The build cost a user pays: a clean debug build of the same small application against
# ndnpy (renamed to `ndarray-npy`, the one-line switch) and against ndarray-npy 0.10, each with
# its default features, in interleaved rounds. Prints each build's wall time, the medians and
# the ratio ndnpy / ndarray-npy. Dependencies come from the local cargo registry (fetched once
# before the rounds), so the rounds time compilation only.
#
#   scripts/build_cost.sh [ROUNDS] [WORKDIR]       # defaults: 3, /tmp/ndnpy-build-cost
#
# FEATURES (default: ndnpy's defaults) builds ndnpy with `default-features = false` and those
# features instead, e.g. FEATURES=npz. VERSION (default 0.10) compares ndarray-npy 0.9 with
# ndnpy-ndarray16, or 0.8 with ndnpy-ndarray15, on their ndarray.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
work=${2:-/tmp/ndnpy-build-cost}
version=${VERSION:-0.10}
case "$version" in
    0.10) package=ndnpy crate="$repo" ndarray=0.17 ;;
    0.9) package=ndnpy-ndarray16 crate="$repo/nd16" ndarray=0.16 ;;
    0.8) package=ndnpy-ndarray15 crate="$repo/nd15" ndarray=0.15 ;;
    *) echo "no ndnpy crate for ndarray-npy $version" >&2; exit 2 ;;
esac
rm -rf "$work"
mkdir -p "$work"
if [ -n "${FEATURES+x}" ]; then
    ndnpy_dep="{ package = \"$package\", path = \"$crate\", default-features = false, features = [$(echo "$FEATURES" | sed 's/[^,][^,]*/"&"/g')] }"
else
    ndnpy_dep="{ package = \"$package\", path = \"$crate\" }"
fi
for which in ndnpy ndarray-npy; do
    mkdir -p "$work/$which/src"
    if [ "$which" = ndnpy ]; then dep=$ndnpy_dep; else dep="\"=$version\""; fi
    cat > "$work/$which/Cargo.toml" <<TOML
[package]
name = "app-$which"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
ndarray = "$ndarray"
ndarray-npy = $dep

[workspace]
TOML
    cat > "$work/$which/src/main.rs" <<'RS'
use ndarray::Array2;
use ndarray_npy::{read_npy, write_npy, NpzReader, NpzWriter, ReadNpyExt};
use std::fs::File;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = Array2::<f64>::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);
    let dir = std::env::temp_dir();
    write_npy(dir.join("app.npy"), &a)?;
    let b: Array2<f64> = read_npy(dir.join("app.npy"))?;
    let c = Array2::<f64>::read_npy(File::open(dir.join("app.npy"))?)?;
    let mut z = NpzWriter::new(File::create(dir.join("app.npz"))?);
    z.add_array("a", &a)?;
    z.finish()?;
    let d: Array2<f64> = NpzReader::new(File::open(dir.join("app.npz"))?)?.by_name("a")?;
    assert!(a == b && b == c && c == d);
    Ok(())
}
RS
    (cd "$work/$which" && cargo fetch --quiet)
done
declare -A times
for round in $(seq "$rounds"); do
    for which in ndnpy ndarray-npy; do
        rm -rf "$work/$which/target"
        start=$(date +%s.%N)
        (cd "$work/$which" && cargo build --quiet --offline)
        t=$(echo "$(date +%s.%N) - $start" | bc)
        times[$which]="${times[$which]:-} $t"
        printf 'round %d  %-12s %6.1f s\n' "$round" "$which" "$t"
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
a=$(echo "${times[ndnpy]}" | median)
b=$(echo "${times[ndarray-npy]}" | median)
printf "median: $package %.1f s, ndarray-npy $version %.1f s, ratio %.2fx\n" "$a" "$b" "$(echo "$a / $b" | bc -l)"
