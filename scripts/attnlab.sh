#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The two set-up commands of the README: installs what is missing on Debian 12 (as root, or via
# sudo), configures and builds into build/, then either runs the main job or the whole test suite.
#
#   bash scripts/attnlab.sh run [SCENARIO]  # build the two executables only, then open the
#                                  # explorer (default scenario); without a display, draw it under
#                                  # Xvfb and print the CLI's run of the same scenario
#   bash scripts/attnlab.sh test   # build, then run every test (ctest), the installation and
#                                  # .deb of build/ (scripts/install-check.sh), the core, cli and
#                                  # gpu tests again in the reliability build (build-reliability/:
#                                  # no UI, clang, ASan + UBSan) and a short run of every fuzz
#                                  # target (scripts/fuzz.sh, FUZZ_SECONDS each, default 20)
#
# Environment: BUILD_DIR (default build), JOBS (default 2), CMAKE_ARGS (extra configure flags),
# RELIABILITY_BUILD_DIR (default build-reliability), FUZZ_SECONDS (default 20).
# The CUDA backend needs no package: it is built when the machine's CUDA toolkit (nvcc) and an
# NVIDIA driver are found, and by the test command wherever nvcc is.
set -euo pipefail

mode=${1:-run}
case "$mode" in run | test) ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}

# What building and running need; the test command adds what only the tests need.
packages=(
    build-essential cmake ninja-build pkg-config git ccache
    qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev fonts-dejavu-core
    libeigen3-dev nlohmann-json3-dev libgmp-dev libpng-dev
    ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd clinfo # OpenCL backend, PoCL device
    xvfb xauth
    python3-numpy # the probe's example programs (examples/probe) and its tests
)
if [ "$mode" = test ]; then
    packages+=(
        help2man desktop-file-utils appstream man-db dpkg-dev # man pages, install and .deb checks
        clang libclang-rt-14-dev llvm # fuzz targets (libFuzzer), llvm-symbolizer for sanitizer traces
    )
fi

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Runs a step, then says how long it took.
timed() {
    local what=$1 started=$SECONDS
    shift
    "$@"
    echo "== $what took $((SECONDS - started)) s"
}

timed "checking Debian packages" install_missing
# ccache: a build from a clean tree, or into another build directory with the same flags, reuses
# what was compiled before, precompiled headers included.
cached=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# The CUDA backend is built where an NVIDIA driver is (cmake/Backends.cmake); the test command
# also builds it wherever nvcc is, so that CUDA code is compiled and linked on machines without a GPU.
backends=()
if [ "$mode" = test ] && command -v nvcc >/dev/null; then backends=(-DATTNLAB_CUDA=ON); fi
configure() {
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cached[@]}" \
        "${backends[@]}" ${CMAKE_ARGS:-} >/dev/null
}
echo "== configuring in $build"
timed "configuring" configure
if [ "$mode" = run ]; then
    echo "== building attnlab and attnlab-cli with $jobs jobs"
    timed "the build" cmake --build "$build" -j "$jobs" --target attnlab attnlab-cli
else
    echo "== building everything (executables, tests, benchmarks) with $jobs jobs"
    timed "the build" cmake --build "$build" -j "$jobs"
fi

# The reliability build (CMakePresets.json): the core and CLI without the UI, built with clang
# for this CPU under ASan + UBSan with libFuzzer's coverage. It proves the core needs no Qt
# widgets, runs the core, cli and gpu tests sanitized, and holds the fuzz targets that
# scripts/fuzz.sh runs next. One build for the three keeps CI well inside its time.
reliability=${RELIABILITY_BUILD_DIR:-$root/build-reliability}
reliability_build_and_tests() {
    echo "== reliability build (clang, ASan + UBSan, fuzz targets, no UI) in $reliability"
    # shellcheck disable=SC2086
    (cd "$root" && cmake --preset reliability -B "$reliability" "${cached[@]}" ${CMAKE_ARGS:-} >/dev/null)
    cmake --build "$reliability" -j "$jobs"
    ctest --test-dir "$reliability" --output-on-failure -j "$jobs"
}

if [ "$mode" = test ]; then
    export QT_QPA_PLATFORM=offscreen
    timed "the tests" ctest --test-dir "$build" --output-on-failure -j "$jobs"
    # What the build installs and its Debian package (with CI=true: installed with apt-get too).
    timed "the install check" bash "$root/scripts/install-check.sh" "$build"
    timed "the reliability build and its tests" reliability_build_and_tests
    echo "== short fuzz runs"
    FUZZ_BUILD_DIR=$reliability timed "the fuzz runs" bash "$root/scripts/fuzz.sh" "${FUZZ_SECONDS:-20}"
    # In CI only (it adds the arm64 architecture to dpkg): the core and CLI built for aarch64.
    if [ "${CI:-}" = true ]; then
        timed "the aarch64 cross build" bash "$root/scripts/aarch64-check.sh" "$root/build-aarch64"
    fi
    echo "== every test passed; $((SECONDS / 60)) min $((SECONDS % 60)) s in all"
elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "== opening the explorer on ${2:-its default scenario}"
    exec "$build/app/attnlab" "${@:2}"
else
    scenario=${2:-builtin:positional-counterexample}
    echo "== no display (DISPLAY and WAYLAND_DISPLAY are unset): the explorer needs a desktop session."
    echo "   Drawing it on $scenario under Xvfb instead; the picture is $build/attnlab-screenshot.png"
    ATTNLAB_APP="$build/app/attnlab" bash "$root/scripts/screenshot.sh" "$build/attnlab-screenshot.png" "$scenario"
    echo "== attnlab-cli run $scenario"
    "$build/app/attnlab-cli" run "$scenario"
fi
