#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks what a build installs (cmake/Install.cmake) and packages (cmake/Package.cmake): installs
# it into a staging directory (DESTDIR, prefix /usr), validates the desktop entry, the AppStream
# metadata and the licence files (GPL-3.0-or-later), runs the installed attnlab-cli and draws the
# installed explorer under Xvfb (scripts/screenshot.sh), renders both man pages, then builds the
# .deb with cpack and inspects its control fields and contents. With CI=true it also installs the
# .deb with apt-get, runs attnlab-cli from PATH and removes the package again. Called by
# `scripts/attnlab.sh test`.
#
#   bash scripts/install-check.sh [BUILD_DIR]   # a build with the UI, default build/
#
# Needs desktop-file-utils, appstream, help2man (at build time), man-db, dpkg-dev, xvfb.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
id=io.github.attnlab.AttnLab
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || { echo "install-check: no project version in $build/CMakeCache.txt" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "install-check: FAILED: $*" >&2; exit 1; }
step() { echo "== install-check: $*"; }

step "cmake --install into a staging directory (DESTDIR, prefix /usr)"
DESTDIR=$work/stage cmake --install "$build" --prefix /usr >/dev/null
usr=$work/stage/usr
expected=(bin/attnlab bin/attnlab-cli "share/applications/$id.desktop"
    "share/metainfo/$id.metainfo.xml" "share/icons/hicolor/scalable/apps/$id.svg"
    share/man/man1/attnlab.1 share/man/man1/attnlab-cli.1
    share/doc/attnlab/copyright share/doc/attnlab/LICENSE)
for size in 16 32 48 64 128 256; do expected+=("share/icons/hicolor/${size}x$size/apps/$id.png"); done
[ -d "$root/docs" ] && expected+=(share/doc/attnlab)
for f in "${expected[@]}"; do [ -e "$usr/$f" ] || fail "not installed: $f"; done
# A PNG's width and height are the big-endian words at bytes 16 and 20.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*2^24+$2*2^16+$3*2^8+$4 "x" $5*2^24+$6*2^16+$7*2^8+$8}'; }
for size in 16 32 48 64 128 256; do
    [ "$(png_size "$usr/share/icons/hicolor/${size}x$size/apps/$id.png")" = "${size}x$size" ] ||
        fail "icon ${size}x$size has the wrong size"
done

step "desktop-file-validate, appstreamcli validate --no-net"
desktop-file-validate "$usr/share/applications/$id.desktop"
grep -qx 'Exec=attnlab %f' "$usr/share/applications/$id.desktop" || fail "Exec does not take a file (%f)"
appstreamcli validate --no-net "$usr/share/metainfo/$id.metainfo.xml"
grep -q "<release version=\"$version\"" "$usr/share/metainfo/$id.metainfo.xml" ||
    fail "metainfo has no release $version"

step "the licence: Debian copyright file (DEP-5), GPL-3 text, AppStream project_license"
doc=$usr/share/doc/attnlab
dep5=https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
[ "$(head -n1 "$doc/copyright")" = "Format: $dep5" ] ||
    fail "share/doc/attnlab/copyright is not a machine-readable (DEP-5) copyright file"
grep -qx 'License: GPL-3.0-or-later' "$doc/copyright" ||
    fail "share/doc/attnlab/copyright does not name License: GPL-3.0-or-later"
for line in 'GNU GENERAL PUBLIC LICENSE' 'Version 3, 29 June 2007'; do
    grep -q "$line" "$doc/LICENSE" || fail "share/doc/attnlab/LICENSE is not the GPL-3 text (no '$line')"
done
grep -q '<project_license>GPL-3.0-or-later</project_license>' "$usr/share/metainfo/$id.metainfo.xml" ||
    fail "metainfo has no project_license GPL-3.0-or-later"

step "the installed executables"
[ "$("$usr/bin/attnlab-cli" --version)" = "attnlab-cli $version" ] || fail "attnlab-cli --version"
"$usr/bin/attnlab-cli" run builtin:positional-counterexample >"$work/run.txt" || fail "attnlab-cli run"
[ -s "$work/run.txt" ] || fail "attnlab-cli run printed nothing"
out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$usr/bin/attnlab" --version) ||
    fail "attnlab --version without a display"
[ "$out" = "AttnLab $version" ] || fail "attnlab --version printed '$out'"
ATTNLAB_APP=$usr/bin/attnlab bash "$root/scripts/screenshot.sh" "$work/screenshot.png" >/dev/null
[ "$(stat -c %s "$work/screenshot.png")" -gt 20000 ] || fail "the installed explorer's screenshot is near empty"
echo "screenshot $(png_size "$work/screenshot.png"), $(stat -c %s "$work/screenshot.png") bytes"

step "man -l renders the man pages"
for page in attnlab attnlab-cli; do
    MANWIDTH=80 MANPAGER=cat man --warnings -l "$usr/share/man/man1/$page.1" >"$work/$page.txt" 2>"$work/$page.err"
    [ ! -s "$work/$page.err" ] || { cat "$work/$page.err" >&2; fail "man warnings on $page.1"; }
    grep -q "$version" "$work/$page.txt" || fail "$page.1 does not name version $version"
    grep -q "SYNOPSIS\|USAGE\|usage" "$work/$page.txt" || fail "$page.1 has no usage"
done
grep -q "attnlab-cli check" "$work/attnlab-cli.txt" || fail "attnlab-cli.1 lacks the subcommands"

step "cpack -G DEB"
rm -f "$build"/attnlab_*.deb
(cd "$build" && cpack -G DEB >"$work/cpack.log") || { cat "$work/cpack.log" >&2; fail "cpack"; }
deb=$build/attnlab_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $deb"
dpkg-deb --info "$deb" >"$work/info.txt"
depends=$(sed -n 's/^ Depends: //p' "$work/info.txt")
[ -n "$depends" ] || fail "the package has no Depends"
grep -q 'libqt6core6' <<<"$depends" || fail "Depends lists no Qt 6: $depends"
grep -q 'Section: science' "$work/info.txt" || fail "the package is not in section science"
dpkg-deb --contents "$deb" | awk '{print $6}' >"$work/contents.txt"
for f in "${expected[@]}"; do grep -qx "\./usr/$f/\?" "$work/contents.txt" || fail "not in the package: /usr/$f"; done
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes, Depends: $depends"

if [ "${CI:-}" = true ]; then
    step "CI: apt-get install the package, attnlab-cli from PATH, remove it"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$deb" >/dev/null
    [ "$(command -v attnlab-cli)" = /usr/bin/attnlab-cli ] || fail "attnlab-cli is not on PATH"
    attnlab-cli run builtin:positional-counterexample >/dev/null || fail "installed attnlab-cli run"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -q attnlab >/dev/null
fi
step "OK"
