#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets in the reliability build (CMakePresets.json: clang, ASan + UBSan,
# no UI; build-reliability/) and runs each for a given time on a scratch copy of its seed corpus
# (fuzz/corpus/<target>/, which stays untouched).
#
#   bash scripts/fuzz.sh [TARGET...] [SECONDS]   # targets: scenario mask table npy npy_mask
#                                                # cycles tokenizer safetensors hf_config (default
#                                                # all),
#                                                # SECONDS per target (default 60)
#
# Prints the executions of each run; a crash, sanitizer report, uncaught non-InputError
# exception, hang (> FUZZ_TIMEOUT s, default 10) or allocation over 2 GiB is a finding: the
# input is kept in build-reliability/findings/<target>/ and the script exits 1 after the last
# target. Environment: FUZZ_BUILD_DIR (default build-reliability), JOBS (default 2).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-reliability}
jobs=${JOBS:-2}
all=(scenario mask table npy npy_mask cycles tokenizer safetensors hf_config)
declare -A max_len=([scenario]=8192 [mask]=2048 [table]=4096 [npy]=4096 [npy_mask]=4096 [cycles]=512
    [tokenizer]=8192 [safetensors]=4096 [hf_config]=4096)

targets=()
seconds=60
for arg in "$@"; do
    if [[ $arg =~ ^[0-9]+$ ]]; then
        seconds=$arg
    elif [ -n "${max_len[$arg]:-}" ]; then
        targets+=("$arg")
    else
        echo "usage: $0 [${all[*]}]... [SECONDS]" >&2
        exit 2
    fi
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

echo "== building fuzz targets (${targets[*]}) in $build"
(cd "$root" && cmake --preset reliability -B "$build" >/dev/null)
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t" "$build/findings/$t" "$build/fuzz-logs"
    cp "$root/fuzz/corpus/$t/"* "$scratch/$t/"
    log=$build/fuzz-logs/$t.log
    echo "== fuzz_$t for ${seconds}s (max_len ${max_len[$t]}, log $log)"
    if "$build/fuzz/fuzz_$t" "$scratch/$t" -max_total_time="$seconds" \
        -max_len="${max_len[$t]}" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1 \
        -artifact_prefix="$build/findings/$t/" >"$log" 2>&1; then
        grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added" \
            "$log" | sed 's/^/   /'
        echo "   corpus: $(ls "$scratch/$t" | wc -l) inputs; no findings"
    else
        failed+=("$t")
        echo "   FINDING in fuzz_$t:"
        grep -E -A30 "^==[0-9]+==ERROR|runtime error|FINDING|deadly signal|timeout|out-of-memory|uncaught" \
            "$log" | head -60 | sed 's/^/   /'
        ls "$build/findings/$t" | sed 's/^/   kept: /'
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "== findings in: ${failed[*]}"
    exit 1
fi
echo "== fuzzing: no findings (${targets[*]}, ${seconds}s each)"
