#!/bin/sh
# SPDX-License-Identifier: MIT
# UD QPs and address handles in the card (docs/verbs-completeness.md 1): ibv_ud_pingpong with
# data validation (-c) between the two nodes (each once as the server), over the IPv4 and the
# IPv6 link-local GID, and on each node alone through the card's loopback. Checked besides the
# programs' own results: the card's UD counters moved by at least the datagrams exchanged
# (ud_tx_pkts / ud_rx_pkts), no datagram found the receiver without a WQE, too long or with the
# wrong Q_Key, and the loopback round sent every datagram through the loopback block.
. "$(dirname "$0")/lib.sh"

UDPP=/usr/bin/ibv_ud_pingpong
tap_plan 6
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer ud-ready 60
tx0=$(rstat ud_tx_pkts)
rx0=$(rstat ud_rx_pkts)
bad0=$(($(rstat ud_rx_no_wqe) + $(rstat ud_rx_too_long) + $(rstat rx_drop_qkey)))

# round SERVER_NODE SIZE ITERS: between the nodes
round() {
	if [ "$NODE" = "$1" ]; then
		out=$(timeout 150 $UDPP -d "$DEV" -g "${G:-$GIDX}" -c -s "$2" -n "$3" -p 18600 2>&1)
	else
		sleep 1
		out=$(timeout 150 $UDPP -d "$DEV" -g "${G:-$GIDX}" -c -s "$2" -n "$3" -p 18600 \
			"$PEER4" 2>&1)
	fi
	rc=$?
	tap_diag "$(echo "$out" | grep -E 'bytes in|iters in|error|Failed|failed' | head -n 3 | tr '\n' ';')"
	tap_result "ibv_ud_pingpong -c -s $2 -n $3 -g ${G:-$GIDX}, server node $1, this node $NODE" \
		"exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && echo "$2" | grep -q "$3 iters in"' - "$rc" "$out" "$3"
	sync_peer "ud-$1-$2-${G:-v4}" 180
}
# 1024 bytes: below every port MTU the nodes run (ibv_ud_pingpong refuses a size above it)
round 2 1024 200
round 1 512 200
G=$(gid6_index "$DEV") || tap_diag "no RoCE v2 IPv6 link-local GID"
round 2 1024 100
G=

tx=$(($(rstat ud_tx_pkts) - tx0))
rx=$(($(rstat ud_rx_pkts) - rx0))
bad=$(($(rstat ud_rx_no_wqe) + $(rstat ud_rx_too_long) + $(rstat rx_drop_qkey) - bad0))
# each node sent and received one datagram per iteration of each round: 500 each way
tap_result "UD counters: ud_tx_pkts +$tx, ud_rx_pkts +$rx (>= 500 each), drops +$bad" \
	"ud_tx_pkts +$tx, ud_rx_pkts +$rx, drops (no WQE, too long, Q_Key) +$bad" \
	[ "$tx" -ge 500 -a "$rx" -ge 500 -a "$bad" = 0 ]

# Loopback: both ends on this node and its own address, one node at a time.
if [ "$NODE" = 2 ]; then
	sync_peer ud-lb-1 300
fi
lb0=$(rstat loopback_frames)
tx0=$(rstat ud_tx_pkts)
timeout 150 $UDPP -d "$DEV" -g "$GIDX" -c -s 1024 -n 200 -p 18650 >/tmp/ud-srv.out 2>&1 &
pid=$!
sleep 1
timeout 150 $UDPP -d "$DEV" -g "$GIDX" -c -s 1024 -n 200 -p 18650 "$ADDR4" >/tmp/ud-cli.out 2>&1
rc=$?
wait $pid
src=$?
out=$(cat /tmp/ud-srv.out /tmp/ud-cli.out)
tap_result "ibv_ud_pingpong -c -s 1024 -n 200, server and client on $DEV ($ADDR4)" \
	"exit $src/$rc: $(echo "$out" | grep -iE 'error|fail' | head -n 3 | tr '\n' ';')" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$(echo "$3" | grep -c "200 iters in")" = 2 ]' \
	- "$src" "$rc" "$out"
lb=$(($(rstat loopback_frames) - lb0))
tx=$(($(rstat ud_tx_pkts) - tx0))
tap_result "UD loopback: ud_tx_pkts +$tx, all through the loopback (loopback_frames +$lb)" \
	"ud_tx_pkts +$tx, loopback_frames +$lb" \
	[ "$tx" -ge 400 -a "$lb" -ge "$tx" ]
if [ "$NODE" = 1 ]; then
	sync_peer ud-lb-1 300
fi
sync_peer ud-done 300
tap_done
