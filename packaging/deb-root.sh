#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the scenic .debs into ROOT, an image root with its own dpkg database, and builds the
# modules of scenic-dkms with DKMS for kernel KVER (what scenic-dkms' postinst does on a real
# system): ROOT/lib/modules/KVER/updates/dkms/*.ko. tools/vm/mkimage calls it when SCENIC_DEBS
# is set, so that a guest gets its scenic software only from the packages.
#
#   packaging/deb-root.sh ROOT KVER [DIR]      DIR: the .debs (default build/packages)
#
# The host is not changed: dpkg works on ROOT's database, DKMS on ROOT/var/lib/dkms through a
# wrapper, no module signing. ROOT is emptied first. Exit status 0 when the three modules built.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '3,12s/^# \{0,1\}//p' "$0"; exit 2; }
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/packaging/private-root.sh"
root=$(realpath -m "$1") kver=$2 dir=${3:-$top/build/packages}
pkgs=(scenic-dkms libscenic1 ibverbs-provider-scenic libscenic-runtime0 scenic-tools)
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$dir/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || { echo "deb-root: no $p .deb in $dir (packaging/build-packages.sh --deb)" >&2; exit 2; }
	debs+=("$f")
done
[ -d "/lib/modules/$kver/build" ] || { echo "deb-root: no headers for $kver" >&2; exit 2; }

rm -rf "$root"
private_root "$root" "$root/.bin"
mkdir -p "$root/lib/modules/$kver"

# --unpack: the packages' postinst would build for the host's kernels (done below for KVER)
dpkg --root="$root" --force-depends --force-script-chrootless --unpack "${debs[@]}" \
	>"$root/.bin/dpkg.log" 2>&1 || { cat "$root/.bin/dpkg.log" >&2; exit 1; }
# the others have no maintainer script of their own (ldconfig is a trigger): configure them,
# which also puts the conffile /etc/libibverbs.d/scenic.driver in place
dpkg --root="$root" --force-depends --force-script-chrootless --configure "${pkgs[@]:1}" \
	>>"$root/.bin/dpkg.log" 2>&1 || { cat "$root/.bin/dpkg.log" >&2; exit 1; }
ver=$(dpkg-deb -f "${debs[0]}" Version)
dkms add -m scenic -v "$ver" >/dev/null
dkms build -m scenic -v "$ver" -k "$kver" >"$root/.bin/build.log" 2>&1 ||
	{ tail -n 20 "$root/.bin/build.log" >&2; exit 1; }
dkms install -m scenic -v "$ver" -k "$kver" >"$root/.bin/install.log" 2>&1 ||
	{ tail -n 20 "$root/.bin/install.log" >&2; exit 1; }
ls "$root/lib/modules/$kver/updates/dkms/"
