#!/bin/sh
# SPDX-License-Identifier: MIT
# The recovery's fallback to a function-level reset (docs/admin-queue.md 8, step 4): node 1 sets
# debugfs inject_sticky_fatal (FAULT_INJECT.sticky_fatal: a soft reset leaves FATAL_STATUS set,
# an FLR clears it) and injects a card fatal under RDMA and Ethernet traffic. The soft reset
# does not help, so the driver falls back once to pci_try_reset_function() (its own reset
# handlers stand aside) and recovers by itself; then users see what rec_after checks.
REC_NAME=flrfb
REC_PORT0=18670
. "$(dirname "$0")/recover_lib.sh"

fallbacks() { awk '$1 == "flr_fallbacks" { print $2 }' "$DBG/health"; }

fault() {
	_fb0=$(fallbacks)
	_sr0=$(rec_count 'soft reset did not help')
	_flr0=$(rec_count 'recovered from drv_flr')
	tap_result "echo 1 > inject_sticky_fatal (reads back 1)" "write failed (card without fault-inject=on?)" \
		sh -c "echo 1 > $DBG/inject_sticky_fatal && [ \$(cat $DBG/inject_sticky_fatal) = 1 ]"
	tap_result "echo 1 > inject_fatal" "write failed" sh -c "echo 1 > $DBG/inject_fatal"
}

if [ "$NODE" = 1 ]; then tap_plan 18; else tap_plan 4; fi
rec_setup
rec_run injected fault
if [ "$NODE" = 1 ]; then
	tap_result "dmesg: the soft reset did not help, a function-level reset followed" \
		"$(dmesg | grep -E 'soft reset|function-level|recover' | tail -n 3 | tr '\n' ';')" \
		[ "$(rec_count 'soft reset did not help')" -gt "$_sr0" ]
	_fb1=$(fallbacks)
	tap_result "health: flr_fallbacks ${_fb0:-?} -> ${_fb1:-?} (one per recovery)" \
		"$(tr '\n' ';' <"$DBG/health")" [ "${_fb1:-0}" = $((${_fb0:-0} + 1)) ]
	# our own FLR is part of this recovery, not a second one through reset_prepare/reset_done
	tap_result "the driver's reset handlers stood aside (no drv_flr recovery)" \
		"$(dmesg | grep 'recovered from' | tail -n 3 | tr '\n' ';')" \
		[ "$(rec_count 'recovered from drv_flr')" = "$_flr0" ]
	tap_result "the fault is gone with the FLR (inject_sticky_fatal reads 0)" \
		"$(cat "$DBG/inject_sticky_fatal" 2>&1)" [ "$(cat "$DBG/inject_sticky_fatal" 2>/dev/null)" = 0 ]
fi
tap_done
