#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU checks of the CUDA backend, for a machine with an NVIDIA GPU and the CUDA toolkit
# (nvcc, compute-sanitizer) besides the packages of scripts/attnlab.sh; CI has no GPU and does
# not run this. In order, each step's output under OUT_DIR (default gpu-check-out/):
#   1. builds the core, the CLI and the tests with the CUDA backend required (build-gpu/);
#   2. runs the `gpu` tests (every CUDA request and whole layer against the CPU);
#   3. runs the CUDA tests under compute-sanitizer memcheck and racecheck;
#   4. lists the devices, runs `attnlab-cli bench --backend cuda` (the suite) into bench.json;
#   5. times `check` of every preset on the CPU and on CUDA (float32 and float64 presets compute
#      on the GPU; exact ones fall back to the CPU, which `layer_backends` shows);
#   6. times the explorer's views and checks of a 4096-token scenario (attnlab-check-bench) on
#      both;
#   7. prints the GPU path's targets against what steps 4-6 measured.
#
#   bash scripts/gpu-check.sh            # JOBS (default: every core), OUT_DIR, BUILD_DIR
# The exit status is 1 when a test or a sanitizer failed (the later steps still run).
set -euo pipefail
export LC_ALL=C # decimal points in the timings
failed=0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
out=${OUT_DIR:-$root/gpu-check-out}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
cli=$build/app/attnlab-cli

command -v nvidia-smi >/dev/null && nvidia-smi -L || {
    echo "gpu-check: no NVIDIA GPU here (nvidia-smi)" >&2
    exit 2
}
command -v nvcc >/dev/null || {
    echo "gpu-check: no CUDA toolkit (nvcc) on PATH" >&2
    exit 2
}

echo "== 1. build ($build)"
# CUDA code for sm_90 (H100, H200) unless CMAKE_ARGS says otherwise
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_UI=OFF \
    -DATTNLAB_CUDA=ON ${CMAKE_ARGS:-} >"$out/configure.log"
cmake --build "$build" -j "$jobs" | tail -n 3

echo "== 2. gpu tests"
ctest --test-dir "$build" -L gpu --output-on-failure -V >"$out/gpu-tests.log" 2>&1 || failed=1
grep -E "QINFO|PASS|FAIL|SKIP|tests passed" "$out/gpu-tests.log" || true

echo "== 3. compute-sanitizer memcheck and racecheck"
for tool in memcheck racecheck; do
    for run in "test_gpu_backends cudaMatchesTheCpu" "test_gpu_layers cudaLayersMatchTheCpu"; do
        set -- $run
        log="$out/$tool-$1.log"
        compute-sanitizer --tool "$tool" --error-exitcode 1 "$build/tests/$1" "$2" >"$log" 2>&1 &&
            echo "$tool $1: clean" || {
            echo "$tool $1: FAILED, see $log"
            failed=1
        }
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" || true
    done
done

echo "== 4. devices and bench --backend cuda"
"$cli" devices | tee "$out/devices.txt"
"$cli" bench --backend cuda --json >"$out/bench.json"
"$cli" bench --backend cuda --skip-probe --n 4096 --heads 16 | tail -n 1

echo "== 5. check of every preset, cpu and cuda (seconds, wall clock of the whole command)"
seconds() { # seconds COMMAND...: runs it, prints its wall-clock time
    local start=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}
: >"$out/checks.tsv"
for preset in $("$cli" presets | awk '{print $1}'); do
    cpu=$(seconds "$cli" check "$preset" --backend cpu)
    gpu=$(seconds "$cli" check "$preset" --backend cuda)
    # check exits 1 when a property fails: the JSON is still there
    where=$({ "$cli" check "$preset" --backend cuda --json 2>/dev/null || true; } |
        python3 -c 'import json,sys; print(",".join(json.load(sys.stdin)["layer_backends"]))' ||
        echo "?")
    printf '%s\t%s\t%s\t%s\n' "$preset" "$cpu" "$gpu" "$where" | tee -a "$out/checks.tsv"
done

echo "== 6. the explorer's views and checks at n = 4096 (attnlab-check-bench), cpu and cuda"
for backend in cpu cuda; do
    "$build/bench/attnlab-check-bench" --n 4096 --backend "$backend" --repeat 5 --warmup 1 |
        tee "$out/check-bench-$backend.json"
done

echo "== 7. targets"
python3 - "$out/bench.json" "$out/checks.tsv" "$out/check-bench-cuda.json" <<'EOF'
import json, sys
bench = json.load(open(sys.argv[1]))
f32 = [c for c in bench["cases"] if c["precision"] == "float32"]
window = next(c for c in f32 if c["mask"] == "window:256")
dense = min((c for c in f32 if c["mask"] == "all"), key=lambda c: c["n"])
dense_long = next(c for c in f32 if c["mask"] == "all" and c["n"] == window["n"])
peak = bench["peak_tflops"]
print(f"peak (probe): {peak:.1f} TFLOP/s" if peak else "peak: not probed (not a GPU)")
print(f"dense fp32 n={dense['n']} d=64 16 heads: {dense['tflops_dense']:.2f} TFLOP/s "
      f"(target at n=16384: >= 25): {'met' if dense['tflops_dense'] >= 25 else 'NOT met'}")
ratio = dense_long["seconds_median"] / window["seconds_median"]
print(f"window:256 vs dense at n={window['n']}: {ratio:.1f}x (target at n=65536: >= 30): "
      f"{'met' if ratio >= 30 else 'NOT met'}")
slower = [l.split("\t")[0] for l in open(sys.argv[2])
          if float(l.split("\t")[2]) >= float(l.split("\t")[1])]
print("check on cuda faster than cpu on every preset: "
      + ("met" if not slower else "NOT met: " + ", ".join(slower)))
views = json.load(open(sys.argv[3]))["ms"]["views"]["median"]
print(f"views of a 4096-token scenario: {views:.0f} ms (target < 100 ms): "
      f"{'met' if views < 100 else 'NOT met'}")
EOF
exit "$failed"
