#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts the explorer in a real X server (Xvfb) on a scenario (default: the default scenario), lets
# it compute its views and verdicts, and saves the window as a PNG. Used for the README picture.
#
#   bash scripts/screenshot.sh [OUT.png] [SCENARIO]
#   bash scripts/screenshot.sh OUT.png --model DIR [--text "a sentence"]   # a Hugging Face checkpoint
#   ATTNLAB_SCREEN=1280x720 bash scripts/screenshot.sh ...   # another screen size (default 1700x1000)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/docs/screenshot.png}
shift || true
app=${ATTNLAB_APP:-$root/build/app/attnlab}
mkdir -p "$(dirname "$out")"
config=$(mktemp -d) # fresh settings: no remembered geometry or recent files
trap 'rm -rf "$config"' EXIT
XDG_CONFIG_HOME=$config QT_QPA_PLATFORM=xcb timeout 120 \
    xvfb-run -a -s "-screen 0 ${ATTNLAB_SCREEN:-1700x1000}x24" "$app" --screenshot "$out" "$@"
echo "wrote $out"
