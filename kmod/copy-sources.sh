#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Copy the driver's build inputs (every Kbuild, *.c and *.h of kmod/ and its
# module folders, no build products) into DEST, keeping the folders. Used by
# build-check.sh and packaging/dkms/stage.sh, so a new module folder needs no
# change there.
#
#   kmod/copy-sources.sh DEST
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
kmod=$(cd "$(dirname "$0")" && pwd)
dest=$1

mkdir -p "$dest"
cp "$kmod/Kbuild" "$dest/"
for dir in "$kmod"/*/; do
	dir=${dir%/}
	sub=$(basename "$dir")
	mkdir -p "$dest/$sub"
	for f in "$dir"/Kbuild "$dir"/*.c "$dir"/*.h; do
		[ -f "$f" ] || continue
		case $f in *.mod.c) continue ;; esac
		cp "$f" "$dest/$sub/"
	done
done
