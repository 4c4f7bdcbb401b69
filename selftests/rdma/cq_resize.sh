#!/bin/sh
# SPDX-License-Identifier: MIT
# CQ resize (docs/verbs-completeness.md 5.2): cq_resize (cq_resize.c) on each node alone, two
# QPs of the node's card through its loopback: the receive CQ resized right after each batch of
# SENDs is posted (receives before and after the RESIZE CQE), the send CQ too; every receive
# and signaled send completion exactly once, in order, with its data; a resize below the
# unpolled completions refused with EINVAL.
. "$(dirname "$0")/lib.sh"

PROG=$(rdma_prog cq_resize)
tap_plan 8
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
timeout 120 $PROG "$DEV" >/tmp/cq_resize.out 2>&1
rc=$?
tap_relay /tmp/cq_resize.out cq_resize
tap_result "cq_resize exits 0" "exit $rc" [ $rc = 0 ]
tap_done
