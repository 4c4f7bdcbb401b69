#!/bin/sh
# SPDX-License-Identifier: MIT
# dma-buf memory registration (issue 20; docs/rdma.md, "dma-buf memory"): dmabuf_mr
# (dmabuf_mr.c) registers a udmabuf on both nodes with ibv_reg_dmabuf_mr, the client WRITEs into
# and READs from the server's at 1 B .. 1 MiB, unaligned, through a whole-buffer MR and one at an
# unaligned offset into the buffer; both sides check the bytes through the memfd and every
# completion. Refusals (bad fd, not a dma-buf, range beyond the buffer, length 0) fail with
# EBADF / EINVAL and are counted in bad_requests. A kernel without /dev/udmabuf (Debian's 6.1
# has no CONFIG_UDMABUF) runs only the refusals that need no dma-buf and skips the data part.
. "$(dirname "$0")/lib.sh"

PORT=18800
PROG=$(rdma_prog dmabuf_mr)

# prog ARGS...: runs dmabuf_mr (at most 200 s) and re-numbers its TAP lines (kselftest.h's
# "ok N name") into this script's; the program's exit status.
prog() {
	timeout 200 $PROG "$@" >/tmp/dmabuf_mr.out 2>&1
	_rc=$?
	tap_relay /tmp/dmabuf_mr.out dmabuf_mr
	return $_rc
}

$MODPROBE udmabuf 2>/dev/null
if [ -c /dev/udmabuf ]; then
	MODE=
	NREFUSED=5
	# the program's TAP lines: 2 MRs, 5 refusals, 24 transfers (client), 2 deregistrations
	if [ "$NODE" = 1 ]; then tap_plan 35; else tap_plan 11; fi
else
	MODE=-U
	NREFUSED=2
	tap_plan 5
	tap_skip "WRITE and READ into udmabuf MRs" "no /dev/udmabuf in kernel $(uname -r)"
fi
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
bad0=$(rstat bad_requests)
sync_peer dmabuf-start 60
if [ "$NODE" = 2 ]; then
	prog -s -d "$DEV" -p $PORT $MODE
else
	sleep 1
	prog -c "$PEER4" -d "$DEV" -p $PORT $MODE
fi
rc=$?
tap_result "dmabuf_mr ($DEV, node $NODE) exits 0" "exit $rc" [ $rc = 0 ]
bad1=$(rstat bad_requests)
tap_result "bad_requests counted the $NREFUSED refusals (${bad0:-?} -> ${bad1:-?})" \
	"rdma statistic bad_requests ${bad0:-none} -> ${bad1:-none}" \
	[ "${bad1:-0}" -ge $((${bad0:-0} + NREFUSED)) ]
sync_peer dmabuf-done 200
tap_done
