#!/bin/sh
# SPDX-License-Identifier: MIT
# UC QPs in the card (docs/verbs-completeness.md 6): ibv_uc_pingpong with data validation (-c)
# between the two nodes (each once as the server) with 4096-byte messages (four packets at
# the 1024-byte path MTU, so FIRST / MIDDLE / LAST), and on each node alone through the card's
# loopback. Checked besides the programs' own results: no ACK or NAK left either card for the UC
# traffic (acks_sent, seq_naks_sent, rnr_naks_sent unchanged) and the loopback round sent every
# packet through the loopback block.
. "$(dirname "$0")/lib.sh"

UCPP=/usr/bin/ibv_uc_pingpong
tap_plan 5
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer uc-ready 60
answers() { echo $(($(rstat acks_sent) + $(rstat seq_naks_sent) + $(rstat rnr_naks_sent))); }
ans0=$(answers)
tx0=$(rstat tx_pkts)

# round SERVER_NODE SIZE ITERS: between the nodes
round() {
	if [ "$NODE" = "$1" ]; then
		out=$(timeout 150 $UCPP -d "$DEV" -g "$GIDX" -c -s "$2" -n "$3" -p 18700 2>&1)
	else
		sleep 1
		out=$(timeout 150 $UCPP -d "$DEV" -g "$GIDX" -c -s "$2" -n "$3" -p 18700 \
			"$PEER4" 2>&1)
	fi
	rc=$?
	tap_diag "$(echo "$out" | grep -E 'bytes in|iters in|error|Failed|failed' | head -n 3 | tr '\n' ';')"
	tap_result "ibv_uc_pingpong -c -s $2 -n $3, server node $1, this node $NODE" \
		"exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && echo "$2" | grep -q "$3 iters in"' - "$rc" "$out" "$3"
	sync_peer "uc-$1-$2" 180
}
round 2 4096 200
round 1 100 200

tx=$(($(rstat tx_pkts) - tx0))
ans=$(($(answers) - ans0))
# 200 four-packet and 200 one-packet messages each way: at least 1000 packets sent
tap_result "UC: tx_pkts +$tx (>= 1000), no ACK / NAK sent (+$ans)" \
	"tx_pkts +$tx, acks_sent + seq_naks_sent + rnr_naks_sent +$ans" \
	[ "$tx" -ge 1000 -a "$ans" = 0 ]

# Loopback: both ends on this node and its own address, one node at a time.
if [ "$NODE" = 2 ]; then
	sync_peer uc-lb-1 300
fi
lb0=$(rstat loopback_frames)
tx0=$(rstat tx_pkts)
timeout 150 $UCPP -d "$DEV" -g "$GIDX" -c -s 4096 -n 100 -p 18750 >/tmp/uc-srv.out 2>&1 &
pid=$!
sleep 1
timeout 150 $UCPP -d "$DEV" -g "$GIDX" -c -s 4096 -n 100 -p 18750 "$ADDR4" >/tmp/uc-cli.out 2>&1
rc=$?
wait $pid
src=$?
out=$(cat /tmp/uc-srv.out /tmp/uc-cli.out)
tap_result "ibv_uc_pingpong -c -s 4096 -n 100, server and client on $DEV ($ADDR4)" \
	"exit $src/$rc: $(echo "$out" | grep -iE 'error|fail' | head -n 3 | tr '\n' ';')" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && [ "$(echo "$3" | grep -c "100 iters in")" = 2 ]' \
	- "$src" "$rc" "$out"
lb=$(($(rstat loopback_frames) - lb0))
tx=$(($(rstat tx_pkts) - tx0))
# 100 messages of 4 packets each way
tap_result "UC loopback: tx_pkts +$tx (>= 800), all through the loopback (loopback_frames +$lb)" \
	"tx_pkts +$tx, loopback_frames +$lb" \
	[ "$tx" -ge 800 -a "$lb" -ge "$tx" ]
if [ "$NODE" = 1 ]; then
	sync_peer uc-lb-1 300
fi
sync_peer uc-done 300
tap_done
