#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# rdma_verify (selftests/rdma/rdma_verify.c): data integrity of WRITE, READ, SEND, the immediate
# variants and both atomics over 0 B .. 1 MiB at unaligned addresses, error completions for bad
# keys, invalid QP transitions. Node 2 serves, node 1 runs the tests. Args: [ROUNDS [quick [lossy]]]
# (lossy: the wire drops frames; a remote error whose NAK was lost ends in RETRY_EXC_ERR)
. /selftests/rdma/lib.sh

ROUNDS=${1:-1}
addr_setup
wait_rdma || echo "# no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer verify-ready 60
if [ "$NODE" = 2 ]; then
	tap_plan 1
	out=$(timeout 400 $VERIFY -s -d "$DEV" 2>&1)
	rc=$?
	tap_result "rdma_verify server (device $DEV) ran to the end" "exit $rc: $out" [ $rc = 0 ]
	sync_peer verify-done 60
	tap_done
fi
sleep 1
timeout 400 $VERIFY -c "$PEER4" -d "$DEV" -n "$ROUNDS" ${2:+-q} ${3:+-L}
rc=$?
sync_peer verify-done 60
exit $rc
