#!/bin/sh
# SPDX-License-Identifier: MIT
# MSI-X: the driver's probe-time interrupt self-test fires the core vector, and a fresh probe
# (unbind + bind) requests it again and fires it again.
. "$(dirname "$0")/lib.sh"

tap_plan 6

bdf=$(scenic_bdf)
name="scenic-core@$bdf"
if [ -z "$bdf" ] || ! driver_bound "$bdf"; then
	tap_fail "card bound to scenic" "no bound SCENIC card (bdf '${bdf}')"
	tap_done
fi
tap_ok "card bound to scenic"

c=$(irq_count "$name")
tap_result "$name in /proc/interrupts with count >= 1" "count '${c:-no line}'" \
	[ "${c:-0}" -ge 1 ]
grep scenic /proc/interrupts | sed 's/^/# /'

echo "$bdf" >/sys/bus/pci/drivers/scenic/unbind
gone() { [ -z "$(irq_count "$name")" ]; }
tap_result "vector released on unbind" "$name still in /proc/interrupts" wait_for 50 gone

echo "$bdf" >/sys/bus/pci/drivers/scenic/bind
back() { [ "$(irq_count "$name")" ] && [ "$(irq_count "$name")" -ge 1 ]; }
wait_for 100 back
c=$(irq_count "$name")
tap_result "rebind: $name fired again (count >= 1)" "count '${c:-no line}'" [ "${c:-0}" -ge 1 ]
grep scenic /proc/interrupts | sed 's/^/# /'
tap_result "rebind: driver bound again" "not bound" driver_bound "$bdf"

tap_result "no Oops/BUG/WARNING in dmesg" "see dmesg lines above" no_oops

tap_done
