#!/bin/sh
# SPDX-License-Identifier: MIT
# Admin command timeout under RDMA and Ethernet traffic: node 1 writes debugfs inject_aq_stall
# (FAULT_INJECT.aq_stall: the card stops taking commands) and issues commands (ibv_rc_pingpong
# creating its resources). The verb fails with an error within the admin timeout (AQ_TIMEOUT_MS,
# 3 s on the model) and never hangs; the driver recovers by itself (docs/admin-queue.md 8).
REC_NAME=timeout
REC_PORT0=18640
. "$(dirname "$0")/recover_lib.sh"

fault() {
	tap_result "echo 1 > inject_aq_stall" "write failed (card without fault-inject=on?)" \
		sh -c "echo 1 > $DBG/inject_aq_stall"
	rec_cmd_during_fault
	# the timeout (3 s) plus the set-up of the program in TCG
	tap_result "a verb during the stall failed within the timeout (exit $REC_CMD_RC after $REC_CMD_S s)" \
		"$(head -n 3 /tmp/rec-cmd.out | tr '\n' ';')" \
		[ "$REC_CMD_RC" != 0 -a "$REC_CMD_RC" != 124 -a "${REC_CMD_S%.*}" -lt 15 ]
	tap_result "dmesg: card fault drv_timeout" "$(dmesg | grep -E 'card fault|timed out' | tail -n 2 | tr '\n' ';')" \
		sh -c "dmesg | grep -q 'card fault: drv_timeout'"
}

if [ "$NODE" = 1 ]; then tap_plan 15; else tap_plan 4; fi
rec_setup
rec_run drv_timeout fault
tap_done
