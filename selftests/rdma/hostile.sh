#!/bin/sh
# SPDX-License-Identifier: MIT
# rdma_hostile (selftests/rdma/rdma_hostile.c): a hostile local process against the driver:
# doorbell pages kept after destroy and number reuse, read-only mappings, huge and wrapping MRs,
# RLIMIT_MEMLOCK and the per-context cap on rings, kill -9 in the middle of traffic, an MR
# deregistered while WRITEs and READs into it wait for TLB misses. Node 1 runs
# it; node 2 only has to be there (the QPs point at it). Then the kernel log must be clean.
# HOSTILE_PARTS=de (say) runs only those parts of rdma_hostile.
. "$(dirname "$0")/lib.sh"

addr_setup
wait_rdma || echo "# no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer hostile-ready 60
if [ "$NODE" = 2 ]; then
	tap_plan 1
	sync_peer hostile-done 540
	tap_result "node 1 ran rdma_hostile (this node is its peer)" "" true
	tap_done
fi
echo "TAP version 13"
dmesg -c >/dev/null
t0=$(date +%s)
# shellcheck disable=SC2086
timeout 400 "$(rdma_prog rdma_hostile)" -d "$DEV" -p "$PEER4" ${HOSTILE_PARTS:+-o $HOSTILE_PARTS} >/tmp/hostile.tap 2>/tmp/hostile.err
rc=$?
sync_peer hostile-done 60
# the program's TAP, then one more check of our own: no oops or warning in the kernel log
n=$(grep -c '^ok\|^not ok' /tmp/hostile.tap)
grep -v '^1\.\.\|^TAP version' /tmp/hostile.tap  # this script's header and plan
sed 's/^/# /' /tmp/hostile.err
bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|Out of memory' | head -n 5)
if [ -z "$bad" ]; then
	echo "ok $((n + 1)) - kernel log has no oops, WARN, BUG or OOM after rdma_hostile"
else
	echo "not ok $((n + 1)) - kernel log has no oops, WARN, BUG or OOM after rdma_hostile"
	echo "$bad" | sed 's/^/# /'
	rc=1
fi
echo "1..$((n + 1))"
echo "# rdma_hostile: exit $rc in $(($(date +%s) - t0)) s"
exit $rc
