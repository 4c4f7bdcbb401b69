#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run the kernel's checkpatch.pl --strict on the driver sources; exit non-zero
# on any error, warning or check. checkpatch comes from Debian's
# linux-source-6.1 package: the three files it needs are extracted once into
# $SCENIC_CHECKPATCH_DIR (default /var/cache/scenic/checkpatch).
#
#   kmod/checkpatch.sh                  # kmod/*/*.c kmod/*/*.h
#   kmod/checkpatch.sh FILE...          # just these files
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SCENIC_CHECKPATCH_DIR:-/var/cache/scenic/checkpatch}
tarball=/usr/src/linux-source-6.1.tar.xz
cp="$cache/scripts/checkpatch.pl"

if [ ! -x "$cp" ] || [ ! -f "$cache/scripts/spelling.txt" ] ||
   [ ! -f "$cache/scripts/const_structs.checkpatch" ]; then
	if [ ! -f "$tarball" ]; then
		echo "checkpatch: $tarball missing; apt-get install -y linux-source-6.1" >&2
		exit 2
	fi
	mkdir -p "$cache"
	echo "checkpatch: extracting checkpatch.pl from $tarball" >&2
	tar -xJf "$tarball" -C "$cache" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	chmod +x "$cp"
fi

if [ $# -gt 0 ]; then
	files="$*"
else
	# our sources, not the build's generated scenic.mod.c
	files=$(ls "$top"/kmod/*/*.c "$top"/kmod/*/*.h | grep -v '\.mod\.c$')
fi

# --no-tree: we are not in a kernel tree. Exit status is non-zero on any
# ERROR, WARNING or CHECK.
# shellcheck disable=SC2086
if ! "$cp" --strict --no-tree --quiet --show-types --summary-file \
	--ignore FILE_PATH_CHANGES -f $files; then
	echo "checkpatch: FAILED" >&2
	exit 1
fi
echo "checkpatch: clean ($(echo $files | wc -w) files)"
