#!/bin/sh
# SPDX-License-Identifier: MIT
# A stopped heartbeat under RDMA and Ethernet traffic: node 1 writes debugfs inject_hb_stall
# (FAULT_INJECT.hb_stall: the card's HEARTBEAT stops counting, nothing else changes). The
# driver's 1 s health poll sees it unchanged three times, reports drv_heartbeat within ~3-4 s
# and recovers by itself (the soft reset clears the stall); then users see what rec_after checks.
REC_NAME=hb
REC_PORT0=18660
REC_HB_MAX_S=${REC_HB_MAX_S:-6}	# three unchanged 1 s polls (3-4 s), plus TCG scheduling on a loaded host
. "$(dirname "$0")/recover_lib.sh"

hb_seen() { [ "$(rec_count 'card fault: drv_heartbeat')" -gt "$_hb0" ]; }

fault() {
	_hb0=$(rec_count 'card fault: drv_heartbeat')
	_h0=$(cut -d ' ' -f 1 /proc/uptime)
	tap_result "echo 1 > inject_hb_stall (reads back 1)" "write failed (card without fault-inject=on?)" \
		sh -c "echo 1 > $DBG/inject_hb_stall && [ \$(cat $DBG/inject_hb_stall) = 1 ]"
	wait_for 200 hb_seen
	_h1=$(cut -d ' ' -f 1 /proc/uptime)
	_hs=$(awk -v a="$_h0" -v b="$_h1" 'BEGIN { printf "%.1f", b - a }')
	tap_result "dmesg: card fault drv_heartbeat after $_hs s (at most $REC_HB_MAX_S s)" \
		"$(dmesg | grep -E 'card fault|heartbeat' | tail -n 2 | tr '\n' ';')" \
		sh -c "[ $(rec_count 'card fault: drv_heartbeat') -gt $_hb0 ] && awk -v s=$_hs -v m=$REC_HB_MAX_S 'BEGIN { exit !(s <= m) }'"
}

if [ "$NODE" = 1 ]; then tap_plan 15; else tap_plan 4; fi
rec_setup
rec_run drv_heartbeat fault
if [ "$NODE" = 1 ]; then
	tap_result "the heartbeat runs again after the recovery (inject_hb_stall reads 0)" \
		"$(cat "$DBG/inject_hb_stall" 2>&1)" [ "$(cat "$DBG/inject_hb_stall" 2>/dev/null)" = 0 ]
fi
tap_done
