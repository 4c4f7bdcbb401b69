#!/bin/sh
# SPDX-License-Identifier: MIT
# rdma_verify (selftests/rdma/rdma_verify.c): data integrity of WRITE, READ, SEND, the immediate
# variants and both atomics over 0 B .. 1 MiB at unaligned addresses, error completions for bad
# keys, invalid QP transitions, 16-SGE lists. Node 2 serves, node 1 runs the tests (the other way
# round with SWAP=1 in the environment: verify_rev.sh). Args: [ROUNDS [quick [lossy]]]
# (lossy: the wire drops frames; a remote error whose NAK was lost ends in RETRY_EXC_ERR);
# ROUNDS may be a time, SECS followed by s (e.g. 60s): rounds repeated until SECS have passed
# (rdma_verify -t)
. "$(dirname "$0")/lib.sh"

ROUNDS=${1:-1}
case $ROUNDS in
*s) RUN="-t ${ROUNDS%s}" ;;
*) RUN="-n $ROUNDS" ;;
esac
addr_setup
wait_rdma || echo "# no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer verify-ready 60
SERVER=2
[ "${SWAP:-0}" = 1 ] && SERVER=1
if [ "$NODE" = "$SERVER" ]; then
	tap_plan 1
	out=$(timeout 400 $VERIFY -s -d "$DEV" 2>&1)
	rc=$?
	tap_result "rdma_verify server (device $DEV) ran to the end" "exit $rc: $out" [ $rc = 0 ]
	sync_peer verify-done 60
	tap_done
fi
sleep 1
t0=$(date +%s)
# shellcheck disable=SC2086
timeout 400 $VERIFY -c "$PEER4" -d "$DEV" $RUN ${2:+-q} ${3:+-L}
rc=$?
echo "# rdma_verify $RUN ($DEV as client): exit $rc in $(($(date +%s) - t0)) s"
sync_peer verify-done 60
exit $rc
