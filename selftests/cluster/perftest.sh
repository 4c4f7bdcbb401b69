#!/bin/sh
# SPDX-License-Identifier: MIT
# perftest.sh (every node of the cluster boot): node 2 -> node 3 unmodified ib_write_bw across
# scenic-switch (node 3 serves); the client must exit 0 with a result row of non-zero average
# bandwidth, the server must exit 0. Nodes 1 and 4 only join the barriers (TAP plan 0). The
# host then checks the switch's counters (selftests/run-vm-tests, boot cluster).
# Args: ITERS SIZE (default 200 65536).
. "$(dirname "$0")/../rdma/lib.sh"
rig_only "four nodes through scenic-switch, whose counters the host checks"

ITERS=${1:-200}
SIZE=${2:-65536}
SERVER=3 CLIENT=2
PORT=18620
case $NODE in
"$SERVER" | "$CLIENT") tap_plan 1 ;;
*) tap_plan 0 ;;
esac
addr_setup
if [ "$NODE" = $SERVER ] || [ "$NODE" = $CLIENT ]; then
	wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
fi
args="-N -s $SIZE -n $ITERS -p $PORT"
rc=1
if [ "$NODE" = $SERVER ]; then
	# shellcheck disable=SC2086
	timeout 300 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" $args >/tmp/perf.out 2>&1 &
	pid=$!
	sync_peer perf-go 90
	wait $pid
	rc=$?
elif [ "$NODE" = $CLIENT ]; then
	sync_peer perf-go 90
	sleep 1
	# shellcheck disable=SC2086
	timeout 300 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" $args "$(node_addr4 $SERVER)" >/tmp/perf.out 2>&1
	rc=$?
else
	sync_peer perf-go 90
fi
sync_peer perf-done 330
if [ "$NODE" = $SERVER ] || [ "$NODE" = $CLIENT ]; then
	out=$(cat /tmp/perf.out)
	# result row: #bytes #iterations BW-peak BW-average[MB/sec] MsgRate
	row=$(echo "$out" | grep -E '^ *[0-9]+ +[0-9]+ ' | tail -n 1)
	tap_diag "ib_write_bw $args (node$NODE): $(echo "$row" | tr -s ' ')"
	why="exit $rc: $(echo "$out" | grep -iE 'error|fail|couldn|unable' | head -n 3 | tr '\n' ';')"
	if [ "$NODE" = $CLIENT ]; then
		avg=$(echo "$row" | awk '{ print $4 + 0 }')
		nz=$(awk -v a="$avg" 'BEGIN { print (a > 0) ? 1 : 0 }')
		tap_result "ib_write_bw node2 -> node3 through the switch: $ITERS x $SIZE B, $avg MB/sec" \
			"$why; row '$row'" [ "$rc" = 0 -a "$nz" = 1 ]
	else
		tap_result "ib_write_bw server on node3: exit 0" "$why" [ "$rc" = 0 ]
	fi
fi
tap_done
