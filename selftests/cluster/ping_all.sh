#!/bin/sh
# SPDX-License-Identifier: MIT
# ping_all.sh (every node of the cluster boot): this node pings each other node through
# scenic-switch, the three pings in parallel; every pair must answer (12 pairs with 4 nodes).
# A pair with no reply is tried once more (the first ARP through the switch may be slow in TCG)
# and its TAP line says so. The nodes' addresses: node_addr4 (eth/lib.sh, SCENIC_NODE_ADDRS4).
. "$(dirname "$0")/../rdma/lib.sh"
rig_only "four nodes through scenic-switch"

tap_plan $((NODES - 1))
[ -n "$IFACE" ] || { tap_fail "test interface" "none with MAC $MYMAC"; tap_done; }
addr_setup
sync_peer ping-all-ready 60
T=/tmp/ping-all
mkdir -p $T

# replies FILE: the "N received" count of a ping output (0 when missing).
replies() { sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' "$1" | tail -n 1 | awk '{ print $1 + 0 }'; }

j=1
while [ $j -le "$NODES" ]; do
	[ $j = "$NODE" ] || $PING -c 2 -i 0.2 -W 2 "$(node_addr4 $j)" >$T/$j.out 2>&1 &
	j=$((j + 1))
done
wait
j=1
while [ $j -le "$NODES" ]; do
	if [ $j != "$NODE" ]; then
		n=$(replies $T/$j.out) again=
		if [ "$n" = 0 ]; then
			$PING -c 2 -i 0.2 -W 2 "$(node_addr4 $j)" >$T/$j.out 2>&1
			n=$(replies $T/$j.out) again=" (second try)"
		fi
		tap_result "node$NODE -> node$j ($(node_addr4 $j)): $n of 2 replies$again" \
			"$(tail -n 2 $T/$j.out | tr '\n' ';')" [ "$n" -ge 1 ]
	fi
	j=$((j + 1))
done
# the other nodes may still be pinging this one
sync_peer ping-all-done 60
tap_done
