#!/bin/sh
# SPDX-License-Identifier: MIT
# Assemble the DKMS source tree of scenic.ko: $DESTDIR/usr/src/scenic-<version>/
# with Kbuild, kmod/ (sources only), uapi/ (headers) and dkms.conf. Then, as root:
#   dkms add scenic/<version> && dkms build scenic/<version> && dkms install scenic/<version>
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/packaging/dkms/dkms.conf")
dest=${DESTDIR:-}/usr/src/scenic-$ver

rm -rf "$dest"
mkdir -p "$dest/kmod" "$dest/uapi/rdma"
cp "$top/Kbuild" "$top/packaging/dkms/dkms.conf" "$dest/"
cp "$top/kmod/Kbuild" "$top"/kmod/*.c "$top"/kmod/*.h "$dest/kmod/"
rm -f "$dest"/kmod/*.mod.c
# kmod/ includes "scenic_*.h" and "rdma/scenic-abi.h" from uapi/
cp "$top"/uapi/*.h "$dest/uapi/"
cp "$top"/uapi/rdma/*.h "$dest/uapi/rdma/"
echo "$dest"
