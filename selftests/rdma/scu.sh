#!/bin/sh
# SPDX-License-Identifier: MIT
# An unmodified application lands on the SCU named by SCENIC_DEFAULT_SCU: node 2 runs the
# ib_write_bw server with SCENIC_DEFAULT_SCU=5 (node 1 with the default, SCU 0) and, while the
# test runs, reads the card's view of its QP (rdma resource show qp -dd: CMD_QUERY_QP); the
# test's CQs and MRs show in rdma resource, the card's packet counters in rdma statistic.
. "$(dirname "$0")/lib.sh"

tap_plan 4
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
[ "$NODE" = 2 ] && want=5 || want=0
sync_peer scu-ready 60
if [ "$NODE" = 2 ]; then
	SCENIC_DEFAULT_SCU=$want timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -N -D 8 \
		-p 18700 >/tmp/scu.out 2>&1 &
	pid=$!
	sync_peer scu-srv 60
else
	sync_peer scu-srv 60
	sleep 1
	timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -N -D 8 -p 18700 "$PEER4" \
		>/tmp/scu.out 2>&1 &
	pid=$!
fi
sleep 4	# the test runs for 8 s: the QP exists now
# CQs and MRs first: the QP query goes through the card and is slow on a debug kernel, and
# perftest deregisters its MRs before it destroys its CQs.
res=$($RDMA resource show cq 2>&1; $RDMA resource show mr 2>&1)
qps=$($RDMA -dd resource show qp link "$DEV/1" 2>&1 | grep -v 'qpn 1 ')
tap_diag "$(echo "$qps" | tr -s ' \n' ' ')"
tx0=$(rstat tx_pkts)
wait $pid
rc=$?
tap_result "ib_write_bw (-D 8) ran to the end" "exit $rc: $(tail -n 3 /tmp/scu.out | tr '\n' ';')" \
	[ "$rc" = 0 ]
tap_result "the card holds this node's QP on SCU $want" "$(echo "$qps" | tr -s ' \n' ' ;')" \
	sh -c 'echo "$1" | grep -q "comm ib_write_bw" && echo "$1" | grep -q " drv_scu $2"' - "$qps" "$want"
tap_result "rdma resource shows the test's CQs and MR" "$(echo "$res" | tr -s ' \n' ' ;')" \
	sh -c 'echo "$1" | grep -q "cqn .*comm ib_write_bw" && echo "$1" | grep -q "mrn .*comm ib_write_bw"' - "$res"
tx=$(rstat tx_pkts) rx=$(rstat rx_pkts)
tap_result "rdma statistic: the card counted packets (tx_pkts $tx0 -> $tx, rx_pkts $rx)" \
	"$($RDMA statistic show link "$DEV/1" 2>&1 | head -c 300)" \
	[ "${tx:-0}" -gt 0 -a "${rx:-0}" -gt 0 ]
sync_peer scu-done 60
tap_done
