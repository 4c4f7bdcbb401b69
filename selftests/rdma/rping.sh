#!/bin/sh
# SPDX-License-Identifier: MIT
# rdma_cm end to end: rping -v (connection setup through QP1 / ib_cm, then RC SEND, READ and
# WRITE with data checks), each node once as the server and once as the client; ib_mad must
# have opened the port (no "Couldn't open port" in the kernel log).
. /selftests/rdma/lib.sh

RPING=/usr/bin/rping
COUNT=5
tap_plan 3
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

# ib_mad logs "Couldn't open port" when it cannot create QP1
mad_port_open() { ! dmesg | grep -q "Couldn't open port"; }
tap_result "ib_mad opened the port of $DEV" \
	"$(dmesg | grep "Couldn't open port" | head -n 1)" mad_port_open
sync_peer rping-ready 60

# round SERVER_NODE: rping between the nodes, the server on SERVER_NODE's address.
round() {
	srv=10.0.0.$1
	if [ "$NODE" = "$1" ]; then
		timeout 60 $RPING -s -v -C $COUNT -a "$srv" >/tmp/rping.out 2>&1 &
		pid=$!
		sync_peer "rping-$1" 60
		wait $pid
		rc=$?
		role=server
	else
		sync_peer "rping-$1" 60
		sleep 1
		timeout 60 $RPING -c -v -C $COUNT -a "$srv" >/tmp/rping.out 2>&1
		rc=$?
		role=client
	fi
	out=$(cat /tmp/rping.out)
	n=$(echo "$out" | grep -c 'ping data: rdma-ping-')
	tap_diag "$(echo "$out" | grep -vE 'ping data' | head -n 3 | tr '\n' ';')"
	tap_result "rping -v -C $COUNT, server node $1, this node $NODE ($role)" \
		"exit $rc, $n of $COUNT pings: $(echo "$out" | tail -n 2 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && [ "$2" = "$3" ]' - "$rc" "$n" "$COUNT"
	sync_peer "rping-$1-done" 90
}
round 2
round 1
tap_done
