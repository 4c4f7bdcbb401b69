#!/bin/sh
# SPDX-License-Identifier: MIT
# A card the driver must refuse (the VM was started with a bad-card device property, e.g.
# msix=off or x-bad-block-version=on): the driver is loaded but does not bind, says so in
# exactly one "refusing the card" line, creates no functions and leaves no vectors behind.
# First argument: an extended regex the refusal line must match (its reason). Without it the
# script exits 4 (KSFT_SKIP): a good card is what a plain `run_tests` finds, and this test needs
# a card the driver refuses (the VM rig passes the reason through run_kselftest.sh's
# KSELFTEST_BAD_CARD_SH_ARGS in its bad-msix and bad-block-version boots).
. "$(dirname "$0")/lib.sh"

REASON=$1
if [ -z "$REASON" ]; then
	echo "# SKIP: needs a card the driver refuses and the reason it must give (argument 1," \
		"KSELFTEST_BAD_CARD_SH_ARGS): the VM rig's msix=off and x-bad-block-version=on cards"
	exit "$KSFT_SKIP"
fi
tap_plan 8

bdf=$(scenic_bdf)
if [ -x "$LSPCI" ] && "$LSPCI" -nn | grep -q '\[10ee:5c01\]'; then
	tap_ok "lspci -nn shows [10ee:5c01]"
else
	tap_fail "lspci -nn shows [10ee:5c01]" "no SCENIC card on the bus"
fi
# Without the driver loaded "did not bind" would prove nothing.
tap_result "scenic driver registered" "no /sys/bus/pci/drivers/scenic" \
	[ -d /sys/bus/pci/drivers/scenic ]
not_bound() { [ -n "$bdf" ] && ! driver_bound "$bdf"; }
tap_result "driver did not bind the card" "bound, or no card (bdf '$bdf')" not_bound

n=$(dmesg_count "$REFUSE_RE")
tap_result "exactly one 'refusing the card' line" "found $n" [ "$n" -eq 1 ]
dmesg_diag "$REFUSE_RE" 3
names_reason() { dmesg | grep -E "$REFUSE_RE" | grep -q -i -E "$REASON"; }
tap_result "refusal names the reason (/$REASON/)" "line does not match" names_reason

n=$(ls -d /sys/bus/auxiliary/devices/scenic.* 2>/dev/null | wc -l)
tap_result "no scenic auxiliary devices" "found $n" [ "$n" -eq 0 ]
tap_result "no scenic vectors in /proc/interrupts" "$(grep scenic /proc/interrupts)" \
	[ "$(scenic_irq_lines)" -eq 0 ]
tap_result "no Oops/BUG/WARNING in dmesg" "see dmesg lines above" no_oops

tap_done
