#!/bin/sh
# SPDX-License-Identifier: MIT
# Completion id mismatch under RDMA and Ethernet traffic: node 1 writes debugfs inject_swap_ids
# (FAULT_INJECT.swap_ids: the card's next admin completion carries a wrong id) and issues
# commands (ibv_rc_pingpong creating its resources). The driver refuses the completion, fails
# the command and recovers by itself (docs/admin-queue.md 8).
REC_NAME=badid
REC_PORT0=18630
. "$(dirname "$0")/recover_lib.sh"

fault() {
	tap_result "echo 1 > inject_swap_ids" "write failed" sh -c "echo 1 > $DBG/inject_swap_ids"
	rec_cmd_during_fault
	tap_result "the command with the wrong id failed (ibv_rc_pingpong exit $REC_CMD_RC after $REC_CMD_S s)" \
		"$(head -n 3 /tmp/rec-cmd.out | tr '\n' ';')" [ "$REC_CMD_RC" != 0 -a "$REC_CMD_RC" != 124 ]
	tap_result "dmesg: card fault drv_id_mismatch" "$(dmesg | grep -E 'card fault|id' | tail -n 2 | tr '\n' ';')" \
		sh -c "dmesg | grep -q 'card fault: drv_id_mismatch'"
}

if [ "$NODE" = 1 ]; then tap_plan 15; else tap_plan 4; fi
rec_setup
rec_run drv_id_mismatch fault
tap_done
