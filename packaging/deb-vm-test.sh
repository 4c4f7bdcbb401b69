#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Guests whose scenic software comes only from the built .debs: the image gets the packages'
# files through packaging/deb-root.sh (dpkg into the image root, DKMS builds the modules for the
# guest kernel), nothing from kmod/ or build/provider/. Then the selftests: probe and FLR, ping
# and iperf, devinfo, pingpong, verify, perftest and dma-buf MRs (dmabuf_mr: WRITE/READ into
# udmabufs on 6.12, only the refusals on 6.1), perftest against rxe, RC conformance, the SCU
# slot devices (scu_slots; six boots; perftest runs run-vm-tests' short --smoke list).
#
#   packaging/deb-vm-test.sh [--kver KVER] [DIR]
#
# DIR: the .debs (default build/packages). KVER: the guest kernel, one with /boot/vmlinuz-KVER
# and its headers on the host (default: tools/vm/mkimage's, the newest 6.1; `--kver 6.12` picks
# the newest installed 6.12). Each kernel gets its own image directory, build/vm-debs-KVER.
# Needs the QEMU build (build/qemu/qemu-system-x86_64). Prints run-vm-tests' TAP and
# "N passed, N failed"; exit status as run-vm-tests.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=
if [ "${1:-}" = --kver ]; then
	kver=${2:?--kver needs a kernel version}
	shift 2
fi
if [ -n "$kver" ] && [ ! -e "/boot/vmlinuz-$kver" ]; then
	full=$(find /boot -maxdepth 1 -name "vmlinuz-$kver.*" -printf '%f\n' | sed 's/^vmlinuz-//' |
		sort -V | tail -n 1)
	[ -n "$full" ] || { echo "deb-vm-test: no /boot/vmlinuz-$kver*" >&2; exit 2; }
	kver=$full
fi
export SCENIC_DEBS=$(realpath "${1:-$top/build/packages}")
export SCENIC_VM_DIR=$top/build/vm-debs${kver:+-$kver}
[ -z "$kver" ] || export SCENIC_KVER=$kver
ls "$SCENIC_DEBS"/scenic-dkms_*.deb >/dev/null || { echo "deb-vm-test: no .debs in $SCENIC_DEBS" >&2; exit 2; }
echo "deb-vm-test: guest kernel ${kver:-the default of tools/vm/mkimage}, image $SCENIC_VM_DIR" >&2
exec "$top/selftests/run-vm-tests" --smoke \
	--boot scenic --boot eth --boot rdma --boot rdma-interop --boot rdma-conform --boot scu \
	--only probe --only flr --only ping --only iperf --only devinfo --only pingpong \
	--only verify --only perftest --only conform --only dmabuf_mr --only scu_slots
