#!/usr/bin/env bash
# Seeds the corpora from testdata/ and runs the fuzz targets.
#
#   fuzz/run.sh                 # every target for 10 minutes each, one after another
#   fuzz/run.sh 60 header view  # 60 seconds each, these targets only
#   FUZZ_JOBS=2 fuzz/run.sh 10  # two targets at a time (CI: one a core)
#
# Each target first replays its whole corpus (the seeds below and
# fuzz/corpora/<target>.tar.gz), then tries new inputs for the seconds given. It exits non-zero if any target finds a crash
# (a panic, an abort, a leak, memory over the limit, a timeout), after running the others: CI
# replays every corpus and fuzzes each target briefly.
#
# To grow a committed corpus: run a target longer, keep the inputs that add coverage, and
# pack them (the fixtures among them may stay; they are seeded anyway):
#   fuzz/run.sh 600 header && RUSTC_BOOTSTRAP=1 cargo fuzz cmin -O header corpus/header
#   tar -C corpus/header -czf corpora/header.tar.gz --sort=name --mtime=@0 .
#
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 enables them on the stable toolchain.
# Install it with `cargo install cargo-fuzz`. Crashes land in fuzz/artifacts/<target>/; turn
# each into a regression test in tests/it/malformed.rs before fixing it.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
shift || true
targets=("$@")
build_all=false
if [ ${#targets[@]} -eq 0 ]; then
    build_all=true
    targets=(header descr read_typed read_dyn view roundtrip npz mmap record read_rows region appender pickle inflate safetensors parquet)
fi
# Seeds: the fixtures up to 4 KiB (inputs are capped at 4 KiB so each run stays fast; the
# large-header cases are covered by tests/it/malformed.rs).
for t in header read_typed read_dyn view roundtrip npz mmap record read_rows region appender; do
    mkdir -p "corpus/$t"
done
# And each target's committed corpus (fuzz/corpora/<target>.tar.gz: what longer runs found,
# kept minimal with `cargo fuzz cmin`, less the fixtures), replayed input by input before any
# new input is tried.
for archive in corpora/*.tar.gz; do
    [ -f "$archive" ] || continue
    t=$(basename "$archive" .tar.gz)
    mkdir -p "corpus/$t"
    tar -xzf "$archive" -C "corpus/$t" --skip-old-files
done
find ../testdata -name '*.npz' -size -4097c -exec cp -n {} corpus/npz/ \;
for t in header read_typed read_dyn view mmap record read_rows region appender; do
    find ../testdata -name '*.npy' -size -4097c -exec cp -n {} "corpus/$t/" \;
done
mkdir -p corpus/descr corpus/pickle corpus/inflate
# The safetensors target reads its input as a safetensors file, and as an archive or .npy file
# to convert: the small archives and .npy files, and safetensors files of a few tensors.
mkdir -p corpus/safetensors
find ../testdata -name '*.np[yz]' -size -1025c -exec cp -n {} corpus/safetensors/ \;
python3 - <<'PY' || true
import json, struct
def write(name, tensors, metadata=None):
    header, data = {}, b""
    for key, (dtype, shape, raw) in tensors.items():
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    open("corpus/safetensors/" + name, "wb").write(struct.pack("<Q", len(text)) + text + data)
write("f32.safetensors", {"w": ("F32", [2, 2], struct.pack("<4f", 0.5, 1.5, 2.5, 3.5))})
write("mixed.safetensors", {"b": ("I64", [2], struct.pack("<2q", 1, 2)), "h": ("BF16", [3], b"\x80\x3f" * 3),
                            "m": ("BOOL", [1, 2], b"\x01\x00"), "e": ("U8", [0], b"")},
      {"format": "np"})
PY
# The parquet target reads its input as a Parquet file, and as an .npy file to convert: the
# small .npy fixtures, and small tables pyarrow writes (with each codec; dense columns that
# take the page-by-page reader, and strings, nulls and lists that take the batch reader).
mkdir -p corpus/parquet
find ../testdata -name '*.npy' -size -1025c -exec cp -n {} corpus/parquet/ \;
python3 - <<'PY' || true
import pyarrow as pa, pyarrow.parquet as pq
dense = pa.table({"x": pa.array([0.5 * i for i in range(20)]), "n": pa.array(range(20), pa.int32())})
emb = pa.table({"v": pa.array([[float(i), 1.0, 2.0, 3.0] for i in range(6)], pa.list_(pa.float32(), 4))})
mixed = pa.table({"s": ["a", "bc", None, "def"], "b": [True, False, None, True], "t": pa.array([1, 2, 3, 4], pa.timestamp("ms"))})
for codec in ["none", "snappy", "zstd", "lz4", "gzip"]:
    pq.write_table(dense, f"corpus/parquet/dense-{codec}.parquet", compression=codec, use_dictionary=False)
pq.write_table(emb, "corpus/parquet/emb.parquet", compression="none", use_dictionary=False)
pq.write_table(mixed, "corpus/parquet/mixed.parquet", compression="snappy")
pq.write_table(dense, "corpus/parquet/dense-v1-dict.parquet", data_page_version="1.0", use_dictionary=True)
PY
# The inflate target takes a raw deflate stream: each deflated member's compressed bytes.
python3 - <<'PY' || true
import glob, os, struct, zipfile
for path in glob.glob("../testdata/**/*.npz", recursive=True):
    try:
        z = zipfile.ZipFile(path)
        raw = open(path, "rb").read()
    except Exception:
        continue
    for i in z.infolist():
        if i.compress_type != zipfile.ZIP_DEFLATED or i.compress_size > 4096:
            continue
        at = i.header_offset
        start = at + 30 + sum(struct.unpack("<HH", raw[at + 26:at + 30]))
        name = os.path.basename(path) + "." + i.filename
        open("corpus/inflate/" + name, "wb").write(raw[start:start + i.compress_size])
PY
# The pickle target takes a shape byte and a pickle: each object fixture's data after its
# 128-byte header, with the shape byte that matches it.
# (One Python process for every file: a process a file was half a minute of this script.)
python3 - ../testdata/object/*.npy <<'PY' || true
import sys, ast, os
for path in sys.argv[1:]:
    try:
        raw = open(path, "rb").read()
        n = 10 + int.from_bytes(raw[8:10], "little")
        shape = ast.literal_eval(raw[10:n].decode("latin1"))["shape"]
    except Exception:
        continue
    if len(shape) == 1 and shape[0] < 64:
        open("corpus/pickle/" + os.path.basename(path), "wb").write(bytes([shape[0]]) + raw[n:])
PY
# The descr text of each fixture's header, as a seed for the descr parser (empty where the
# header does not parse).
mapfile -t small < <(find ../testdata -name '*.npy' -size -4097c)
python3 - "${small[@]}" <<'PY' || true
import sys, ast, os
for path in sys.argv[1:]:
    with open("corpus/descr/" + os.path.basename(path) + ".txt", "w") as out:
        try:
            raw = open(path, "rb").read()
            n = 10 + int.from_bytes(raw[8:10], "little") if raw[6] == 1 else 12 + int.from_bytes(raw[8:12], "little")
            text = raw[10 if raw[6] == 1 else 12:n].decode("latin1")
            out.write(repr(ast.literal_eval(text)["descr"]))
        except Exception:
            pass
PY
# Reads reserve an array's address space at once and commit memory only as data arrives
# (docs/safety.md, "Reading untrusted files"); a reservation the system refuses returns null and the
# read grows with the bytes instead. AddressSanitizer aborts on such a refusal by default and
# libFuzzer flags any single allocation over its malloc limit, neither of which the real
# allocator does, so both are told to behave like it; -rss_limit_mb still fails any input that
# makes the process really hold more than 2 GiB.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
# Every target at once: one cargo run builds the library once and links the targets side by
# side, and each run below finds its target built.
if $build_all; then
    RUSTC_BOOTSTRAP=1 cargo fuzz build -O
fi
# FUZZ_JOBS targets run at once (default 1; CI runs 2, one a core, once the build is done):
# each still fuzzes for its own `seconds`, and the logs are shown in the targets' order.
jobs=${FUZZ_JOBS:-1}
logs=$(mktemp -d)
run_target() {
    local t=$1 max_len=4096 status=0
    # Deflate streams longer than 4 KiB reach the inflater's fast loop and its history ring.
    [ "$t" = inflate ] && max_len=65536
    RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=4194304 -timeout=10 \
        -print_final_stats=1 > "$logs/$t.log" 2>&1 || status=$?
    echo "$status" > "$logs/$t.status"
}
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    run_target "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
    echo "== $t: ${seconds}s"
    grep -E "^(stat::|==|Done|.*ERROR|.*panicked|SUMMARY)" "$logs/$t.log" \
        | grep -v "WARNING: AddressSanitizer failed to allocate" || true
    if [ "$(cat "$logs/$t.status" 2>/dev/null || echo missing)" != 0 ]; then
        tail -40 "$logs/$t.log"
        failed+=("$t")
    fi
done
rm -rf "$logs"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz targets that found a crash: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crash"
