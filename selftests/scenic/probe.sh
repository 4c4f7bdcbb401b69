#!/bin/sh
# SPDX-License-Identifier: MIT
# Probe of a good card, as left by boot: PCI identity, the driver's single identity line,
# the auxiliary devices of the three functions, debugfs, and a clean kernel log.
# Must run first after boot (it counts the boot-time identity lines).
. "$(dirname "$0")/lib.sh"

tap_plan 9

bdf=$(scenic_bdf)
tap_result "SCENIC PCI function present" "no ${SCENIC_VENDOR#0x}:${SCENIC_DEVICE#0x} in sysfs" \
	[ -n "$bdf" ]
[ -n "$bdf" ] && tap_diag "card at $bdf"

if [ ! -x "$LSPCI" ]; then
	tap_fail "lspci -nn shows [10ee:5c01]" "$LSPCI missing from the image"
elif "$LSPCI" -nn | grep -q '\[10ee:5c01\]'; then
	tap_ok "lspci -nn shows [10ee:5c01]"
	"$LSPCI" -nn | grep '\[10ee:5c01\]' | sed 's/^/# /'
else
	tap_fail "lspci -nn shows [10ee:5c01]" "not listed"
	"$LSPCI" -nn | sed 's/^/# /'
fi

tap_result "scenic module loaded" "no /sys/module/scenic" [ -d /sys/module/scenic ]
tap_result "driver bound to the card" "no /sys/bus/pci/drivers/scenic/$bdf" \
	driver_bound "${bdf:-none}"

n=$(dmesg_count "$IDENTITY_RE")
tap_result "exactly one identity line in dmesg" "found $n" [ "$n" -eq 1 ]
dmesg_diag "$IDENTITY_RE" 3

for f in eth rdma scu; do
	n=$(aux_count $f)
	tap_result "auxiliary device scenic.$f.* present" "found $n" [ "$n" -ge 1 ]
done
ls /sys/bus/auxiliary/devices/ 2>/dev/null | sed 's/^/# aux: /'

tap_result "no Oops/BUG/WARNING in dmesg" "see dmesg lines above" no_oops

tap_done
