#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Proves the default build is not tied to x86-64: cross-compiles the core and attnlab-cli for
# aarch64 with Debian's cross toolchain (cmake/toolchains/aarch64-linux-gnu.cmake) and runs the
# result under qemu-user on a preset and a check. Installs what it needs, including the arm64
# architecture in dpkg, so the test command runs it only in CI (CI=true).
#
#   bash scripts/aarch64-check.sh [BUILD_DIR]   # default build-aarch64
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-aarch64}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

step() { echo "== aarch64-check: $*"; }

step "the cross toolchain, arm64 libraries and qemu-user"
dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
$sudo apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    g++-aarch64-linux-gnu libgmp-dev:arm64 libpng-dev:arm64 qemu-user file >/dev/null

step "configuring and building the core and attnlab-cli in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DATTNLAB_BUILD_UI=OFF -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF \
    -DATTNLAB_OPENCL=OFF -DATTNLAB_CUDA=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build "$build" -j "${JOBS:-2}"
cli=$build/app/attnlab-cli
file "$cli" | grep -q "ARM aarch64" || { echo "aarch64-check: $cli is not an aarch64 executable" >&2; exit 1; }

step "running it under qemu-aarch64"
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
export LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu:/usr/aarch64-linux-gnu/lib
qemu-aarch64 "$cli" devices | grep "cpu backend"
qemu-aarch64 "$cli" run builtin:positional-counterexample | grep -q "largest |f(P X) - P f(X)| = 5/9" ||
    { echo "aarch64-check: the counterexample's difference is not 5/9" >&2; exit 1; }
# float32 on the kernels: tiling holds (exit status 0: every checked property holds)
qemu-aarch64 "$cli" check builtin:flash-tiling-float32 --property tiling
step "OK"
