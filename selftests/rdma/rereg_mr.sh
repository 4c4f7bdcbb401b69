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
# the program's TAP lines ("ok N name") re-numbered into this script's
while IFS= read -r _l; do
	case $_l in
	"ok "*) _n=${_l#ok *[0-9] } && tap_ok "${_n#- }" ;;
	"not ok "*) _n=${_l#not ok *[0-9] } && tap_fail "${_n#- }" "rereg_mr" ;;
	"#"*) echo "$_l" ;;
	*) echo "# $_l" ;;
	esac
done </tmp/rereg_mr.out
tap_result "rereg_mr exits 0" "exit $rc" [ $rc = 0 ]
tap_done
