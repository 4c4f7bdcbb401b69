#!/bin/sh
# SPDX-License-Identifier: MIT
# Forced card fatal under RDMA and Ethernet traffic: node 1 writes debugfs inject_fatal
# (FAULT_INJECT.fatal, -device scenic,fault-inject=on); the card raises CARD_FATAL and sets
# FATAL_STATUS; the driver recovers by itself (docs/admin-queue.md 8): users get
# IB_EVENT_DEVICE_FATAL, a new ib_device registers, eth stays bound, perftest and ping pass.
REC_NAME=fatal
REC_PORT0=18610
. "$(dirname "$0")/recover_lib.sh"

fault() {
	tap_result "echo 1 > inject_fatal" "write failed" sh -c "echo 1 > $DBG/inject_fatal"
}

if [ "$NODE" = 1 ]; then tap_plan 13; else tap_plan 4; fi
rec_setup
rec_run injected fault
tap_done
