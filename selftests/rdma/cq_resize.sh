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
# the program's TAP lines ("ok N name") re-numbered into this script's
while IFS= read -r _l; do
	case $_l in
	"ok "*) _n=${_l#ok *[0-9] } && tap_ok "${_n#- }" ;;
	"not ok "*) _n=${_l#not ok *[0-9] } && tap_fail "${_n#- }" "cq_resize" ;;
	"#"*) echo "$_l" ;;
	*) echo "# $_l" ;;
	esac
done </tmp/cq_resize.out
tap_result "cq_resize exits 0" "exit $rc" [ $rc = 0 ]
tap_done
