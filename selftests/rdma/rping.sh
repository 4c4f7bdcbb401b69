#!/bin/sh
# SPDX-License-Identifier: MIT
# rdma_cm end to end: rping -v -V (connection setup through QP1 / ib_cm, then RC SEND, READ and
# WRITE), each node once as the server and once as the client; ib_mad must have opened the port
# (no "Couldn't open port" in the kernel log). The data is checked twice: the client's -V compares
# what came back with what it sent (a mismatch prints "data mismatch!" and exits non-zero), and
# rping_data below checks every line that -v printed on both sides against rping's own pattern.
. "$(dirname "$0")/lib.sh"

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

# rping_data FILE PREFIX: how many lines of FILE are "PREFIXrdma-ping-N: DATA" for N = 0, 1, ...
# in order, with DATA exactly what rping's client puts in its 64-byte buffer for ping N: the
# letters 'A'..'z' (58 of them, cyclic) starting N after 'A', up to byte 63. Lines that start
# with PREFIX but differ are printed as diagnostics.
rping_data() {
	awk -v pre="$2" '
	BEGIN { for (k = 0; k < 58; k++) ch[k] = sprintf("%c", 65 + k) }
	index($0, pre "rdma-ping-") == 1 {
		want = sprintf("rdma-ping-%d: ", n)
		cc = length(want)
		for (k = cc; k < 63; k++)
			want = want ch[(n + k - cc) % 58]
		if ($0 == pre want)
			good++
		else
			printf "# ping %d differs: got \"%s\", want \"%s\"\n", n, $0, pre want > "/dev/stderr"
		n++
	}
	END { print good + 0 }' "$1"
}

# round SERVER_NODE: rping between the nodes, the server on SERVER_NODE's address.
round() {
	[ "$NODE" = "$1" ] && srv=$ADDR4 || srv=$PEER4
	if [ "$NODE" = "$1" ]; then
		timeout 60 $RPING -s -v -V -C $COUNT -a "$srv" >/tmp/rping.out 2>&1 &
		pid=$!
		sync_peer "rping-$1" 60
		wait $pid
		rc=$?
		role=server
	else
		sync_peer "rping-$1" 60
		sleep 1
		timeout 60 $RPING -c -v -V -C $COUNT -a "$srv" >/tmp/rping.out 2>&1
		rc=$?
		role=client
	fi
	rping_teardown_race "$rc" /tmp/rping.out && rc=0
	out=$(cat /tmp/rping.out)
	pre="ping data: "
	[ "$role" = server ] && pre="server ping data: "
	n=$(rping_data /tmp/rping.out "$pre" 2>/tmp/rping.bad)
	cat /tmp/rping.bad
	mismatch=$(grep -c 'data mismatch' /tmp/rping.out)
	tap_diag "$(echo "$out" | grep -vE 'ping data' | head -n 3 | tr '\n' ';')"
	tap_result "rping -v -V -C $COUNT, server node $1, this node $NODE ($role): every ping's data verified" \
		"exit $rc, $n of $COUNT pings with the right data, $mismatch 'data mismatch': $(echo "$out" | tail -n 2 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && [ "$2" = "$3" ] && [ "$4" = 0 ]' - "$rc" "$n" "$COUNT" "$mismatch"
	sync_peer "rping-$1-done" 90
}
round 2
round 1
tap_done
