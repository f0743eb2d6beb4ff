#!/usr/bin/env bash
# Miri over the code that holds `unsafe`: the unit tests of those modules (element reads and
# writes, strided views and the ndarray views that become them, lazily zeroed reservations,
# concrete element copies, records, the door that sees what type a caller's reader is)
# and tests/unsafe_paths.rs (every dtype numpy wrote, records and views, at every misalignment
# and cut short; every archive member numpy wrote, inflated by the crate's decoder, its
# fast loop included). Default features, `derive` and `half`.
#
# What Miri cannot run is left out, and said where: system calls it does not implement
# (madvise is refused there, as a kernel may refuse it, and callers take that path; fallocate
# is skipped), and so the prefault module, whose one unsafe call is madvise, and mapping files
# (the `mmap` module's views) are tested natively only. zlib-rs is not reached: it has undefined
# behaviour when an `Inflate` or `Deflate` is dropped (zlib-rs issue 491; the fix, pull
# request 555, is not released), so these tests deflate nothing, and the inflater's unit
# tests, which take zlib as their oracle and are sized for native speed, run natively only.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
    rustup component add --toolchain nightly miri rust-src
fi
# Tests sized for native speed take smaller sizes under Miri (`cfg(miri)`): fewer fixtures and
# misalignments, smaller streams and read parts; each path is still reached.
# Files are read and written in temporary directories: isolation off for the file system.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
# element::datetime holds no `unsafe` (its calendar arithmetic and property test took three of
# this step's ten minutes under Miri).
cargo +nightly miri test -p ndnpy-engine --features derive,half --lib -- element:: source::door:: record:: \
    --skip element::datetime::
cargo +nightly miri test -p ndnpy --features derive,half --lib -- array::nd::
cargo +nightly miri test -p ndnpy --features derive,half --test unsafe_paths
