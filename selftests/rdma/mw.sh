#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory windows (docs/verbs-completeness.md 5.1): mw_verify (mw_verify.c) on each node alone,
# two QPs of the node's card through its loopback: type 1 and type 2 binds, WRITE / READ
# through the windows' rkeys with the data checked, REM_ACCESS_ERR outside a window and after
# LOCAL_INV, SEND_WITH_INV (the receive's IBV_WC_WITH_INV and key), dereg_mr refused while a
# window is bound.
. "$(dirname "$0")/lib.sh"

MW=$(rdma_prog mw_verify)
tap_plan 16
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
timeout 120 $MW "$DEV" >/tmp/mw.out 2>&1
rc=$?
tap_relay /tmp/mw.out mw_verify
tap_result "mw_verify exits 0" "exit $rc" [ $rc = 0 ]
tap_done
