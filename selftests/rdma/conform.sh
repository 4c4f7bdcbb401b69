#!/bin/sh
# SPDX-License-Identifier: MIT
# RC conformance (issue 6): rdma_conform (selftests/rdma/rdma_conform.c) runs the named scenarios
# between the nodes, node 2 serving and node 1 the client (SWAP=1: the other way round; the fault
# scenarios then use the PSNs of the boot's rules for a requester on node 2). Each scenario prints
# one TAP line per check with its expected outcome. The test interface gets MTU 9000 so that
# PMTU 4096 is available. Args: SCENARIO... (e.g. send rnr scale=1,128); the environment's
# CONFORM_T sets the scale scenario's seconds per run (default 8).
. "$(dirname "$0")/lib.sh"
# the fault scenarios rely on the wire-faults rules of the rdma-faults boots
for _s in "$@"; do
	case $_s in
	lost-* | dup | reorder | read-lost | corrupt | ecn) rig_only "wire-faults rules at the PSNs of scenario $_s" ;;
	esac
done

CONFORM=$(rdma_prog rdma_conform)
SERVER=2
[ "${SWAP:-0}" = 1 ] && SERVER=1
PORT=$((18900 + SERVER))
addr_setup
$IP link set dev "$IFACE" mtu 9000 || tap_diag "cannot set MTU 9000 on $IFACE: PMTU 4096 skipped"
wait_for 50 oper_up
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer "conform-ready-$SERVER" 60
if [ "$NODE" = "$SERVER" ]; then
	tap_plan 1
	out=$(timeout 900 $CONFORM -s -d "$DEV" -p $PORT 2>&1)
	rc=$?
	tap_result "rdma_conform server (device $DEV) ran to the end" "exit $rc: $out" [ $rc = 0 ]
	sync_peer "conform-done-$SERVER" 120
	$IP link set dev "$IFACE" mtu 1500
	tap_done
fi
sleep 1
swap=
[ "$SERVER" = 1 ] && swap=-r
t0=$(date +%s)
# shellcheck disable=SC2086
timeout 900 $CONFORM -c "$PEER4" -d "$DEV" -p $PORT $swap -T "${CONFORM_T:-8}" "$@"
rc=$?
echo "# rdma_conform $* ($DEV as client): exit $rc in $(($(date +%s) - t0)) s"
sync_peer "conform-done-$SERVER" 120
$IP link set dev "$IFACE" mtu 1500
exit $rc
