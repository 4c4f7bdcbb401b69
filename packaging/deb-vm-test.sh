#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke tests in guests whose scenic software comes only from the built .debs: the image
# (build/vm-debs/) gets the packages' files through packaging/deb-root.sh (dpkg into the
# image root, DKMS builds the modules for the guest kernel 6.1), nothing from kmod/ or
# build/provider/. Then the selftests probe, ping, devinfo, pingpong and perftest (three boots).
#
#   packaging/deb-vm-test.sh [DIR]       DIR: the .debs (default build/packages)
#
# Needs the QEMU build (build/qemu/qemu-system-x86_64). Prints run-vm-tests' TAP and
# "N passed, N failed"; exit status as run-vm-tests.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SCENIC_DEBS=$(realpath "${1:-$top/build/packages}")
export SCENIC_VM_DIR=$top/build/vm-debs
ls "$SCENIC_DEBS"/scenic-dkms_*.deb >/dev/null || { echo "deb-vm-test: no .debs in $SCENIC_DEBS" >&2; exit 2; }
exec "$top/selftests/run-vm-tests" --boot scenic --boot eth --boot rdma \
	--only probe --only ping --only devinfo --only pingpong --only perftest
