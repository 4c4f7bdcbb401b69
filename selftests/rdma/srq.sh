#!/bin/sh
# SPDX-License-Identifier: MIT
# Shared receive queues (docs/verbs-completeness.md 3) between the two nodes: ibv_srq_pingpong -c
# with 16 QPs on one SRQ (node 2 serves), then srq_verify (srq_verify.c): one SRQ of node 2
# shared by 64 RC QPs receiving 432 messages from node 1's 64 QPs, every completion's QP, CQ,
# wr_id, length and data checked, ring slots reused, the limit event once, destroy while
# attached EBUSY, LAST_WQE_REACHED; the driver's srq_limit_events counter rose by 1.
. "$(dirname "$0")/lib.sh"

PP=/usr/bin/ibv_srq_pingpong
SRQV=$(rdma_prog srq_verify)
addr_setup
wait_rdma || echo "# no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer srq-ready 60
if [ "$NODE" = 2 ]; then
	tap_plan 3
	out=$(timeout 120 $PP -d "$DEV" -g "$GIDX" -c -q 16 -s 4096 -n 50 2>&1)
	rc=$?
	tap_result "ibv_srq_pingpong -c -q 16 -s 4096 -n 50 server" "exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && echo "$2" | grep -q "50 iters in"' - "$rc" "$out"
	sync_peer srq-pp-done 150
	ev0=$(rstat srq_limit_events)
	out=$(timeout 150 $SRQV -s -d "$DEV" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	tap_result "srq_verify server (device $DEV) passed every check" "exit $rc" [ $rc = 0 ]
	ev1=$(rstat srq_limit_events)
	tap_result "rdma statistic srq_limit_events rose by the one limit event ($ev0 -> $ev1)" \
		"srq_limit_events $ev0 -> $ev1" [ "$((ev1 - ev0))" = 1 ]
	sync_peer srq-done 150
	tap_done
fi
sleep 1
t0=$(date +%s)
out=$(timeout 120 $PP -d "$DEV" -g "$GIDX" -c -q 16 -s 4096 -n 50 "$PEER4" 2>&1)
rc=$?
echo "$out" | grep -E 'bytes in|iters in|rror|ailed' | head -n 4 | sed 's/^/# /'
echo "# ibv_srq_pingpong client: exit $rc in $(($(date +%s) - t0)) s"
sync_peer srq-pp-done 150
sleep 1
timeout 150 $SRQV -c "$PEER4" -d "$DEV"
rc2=$?
sync_peer srq-done 150
[ $rc = 0 ] && [ $rc2 = 0 ]
