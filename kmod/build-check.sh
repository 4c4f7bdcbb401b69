#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build scenic.ko, scenic_eth.ko, scenic_rdma.ko and scenic_scu.ko with W=1 (and sparse, if
# installed) against every kernel we support and fail on any warning. Each
# build runs in its own temporary copy of Kbuild, kmod/ (Kbuild files and
# sources only) and uapi/, so no object of one kernel ends up in the tree or in
# another build.
#
#   kmod/build-check.sh                 # Debian 6.1 and bookworm-backports 6.12
#   kmod/build-check.sh /path/to/kdir   # just these kernel build directories
#
# Install the 6.12 headers with:
#   apt-get install -y -t bookworm-backports linux-headers-amd64
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -gt 0 ]; then
	kdirs="$*"
else
	kdirs=/lib/modules/6.1.0-57-amd64/build
	k612=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$k612" ]; then
		echo "build-check: no 6.12 headers in /usr/src;" \
		     "apt-get install -y -t bookworm-backports linux-headers-amd64" >&2
		exit 1
	fi
	kdirs="$kdirs $k612"
fi

# sparse too (tools/setup-host.sh installs it; skipped where it is missing)
check=
command -v sparse >/dev/null 2>&1 && check=C=2

tmp=$(mktemp -d /tmp/scenic-build-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail=0
for kdir in $kdirs; do
	name=$(basename "$(readlink -f "$kdir")")
	src="$tmp/$name"
	mkdir -p "$src"
	cp "$top/Kbuild" "$src/"
	cp -r "$top/uapi" "$src/"
	sh "$top/kmod/copy-sources.sh" "$src/kmod"
	log="$tmp/$name.log"
	# shellcheck disable=SC2086
	if ! make -C "$kdir" M="$src" W=1 $check modules >"$log" 2>&1; then
		cat "$log"
		echo "build-check: $name: build FAILED" >&2
		fail=1
		continue
	fi
	if grep -Ei 'warning|error' "$log"; then
		echo "build-check: $name: warnings" >&2
		fail=1
		continue
	fi
	missing=
	for ko in core/scenic eth/scenic_eth rdma/scenic_rdma scu/scenic_scu; do
		[ -f "$src/kmod/$ko.ko" ] || missing="$missing kmod/$ko.ko"
	done
	if [ -n "$missing" ]; then
		echo "build-check: $name: missing$missing" >&2
		fail=1
		continue
	fi
	echo "build-check: $name: W=1 ${check:+(and sparse) }clean"
done
exit $fail
