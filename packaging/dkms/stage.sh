#!/bin/sh
# SPDX-License-Identifier: MIT
# Assemble the DKMS source tree of scenic.ko: $DESTDIR/usr/src/scenic-<version>/
# with Kbuild, kmod/ (Kbuild files and sources only, one folder per module),
# uapi/ (headers) and dkms.conf. Then, as root:
#   dkms add scenic/<version> && dkms build scenic/<version> && dkms install scenic/<version>
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/packaging/dkms/dkms.conf")
dest=${DESTDIR:-}/usr/src/scenic-$ver

rm -rf "$dest"
mkdir -p "$dest/uapi/rdma"
cp "$top/Kbuild" "$top/packaging/dkms/dkms.conf" "$dest/"
sh "$top/kmod/copy-sources.sh" "$dest/kmod"
# kmod/*/ include "scenic_*.h" and "rdma/scenic-abi.h" from uapi/
cp "$top"/uapi/*.h "$dest/uapi/"
cp "$top"/uapi/rdma/*.h "$dest/uapi/rdma/"
echo "$dest"
