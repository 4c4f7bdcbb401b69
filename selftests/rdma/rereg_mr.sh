#!/bin/sh
# SPDX-License-Identifier: MIT
# rereg_mr (docs/verbs-completeness.md 5.3): rereg_mr (rereg_mr.c) on each node alone, two QPs
# of the node's card through its loopback: the MR moved to a new buffer while WRITEs to the old
# one are in flight (same rkey; the old buffer unchanged once ibv_rereg_mr returned; the new one
# written and read), then access and PD changes enforced on the next access.
. "$(dirname "$0")/lib.sh"

PROG=$(rdma_prog rereg_mr)
tap_plan 15
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
timeout 120 $PROG "$DEV" >/tmp/rereg_mr.out 2>&1
rc=$?
tap_relay /tmp/rereg_mr.out rereg_mr
tap_result "rereg_mr exits 0" "exit $rc" [ $rc = 0 ]
tap_done
