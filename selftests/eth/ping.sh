#!/bin/sh
# SPDX-License-Identifier: MIT
# ping.sh (both nodes): IPv4 and IPv6 ping both ways; MTU 9000 on both sides with
# `ping -M do -s 8972` (and 8973 refused, so the MTU really is 9000); then node 1 flood-pings
# node 2 for 10 s and every lost ping must be accounted for by the counters:
#
#   ping lost (T - R)  ==  path loss 1->2 + path loss 2->1 + late replies
#   path loss a->b     ==  ICMP echoes (requests/replies) sent by a's stack but not received by b's
#                      ==  frames sent by a's card (tx_frames) - frames delivered by b's driver
#                          (rx_packets)                                    [checked: equal]
#                      ==  host wire loss (tx_frames_a - frames b's card saw: rx_frames + rx_drop_*)
#                        + b's card drops (rx_drop_*) + b's driver drops (rx_frames - rx_packets)
#   late replies       ==  echo replies node 1's stack got after ping's 10 s deadline.
#
# The host wire (-netdev dgram on 127.0.0.1) drops datagrams under load (DESIGN.md 10); that
# loss is invisible to both cards and is computed from the two cards' counters. Node 2 sends its
# counters to node 1 over TCP (nc) after the flood. The flood part needs SCENIC on both nodes
# (a virtio-net peer has no card counters): skipped otherwise.
. "$(dirname "$0")/lib.sh"

tap_plan 10
[ -n "$IFACE" ] || { tap_fail "test interface" "none with MAC $MYMAC"; tap_done; }
addr_setup
tap_diag "node$NODE: $IFACE driver $(iface_driver), peer $PEER4 / $PEER6"
T=/tmp/eth-ping
mkdir -p $T

# ping_ok NAME MIN ARGS...: at least MIN replies (the wire is lossy: DESIGN.md 10).
ping_ok() {
	_po_name=$1 _po_min=$2
	shift 2
	$PING "$@" >$T/p.out 2>&1
	set -- $(ping_count $T/p.out)
	tap_diag "$_po_name: ${1:-?} sent, ${2:-?} received"
	if [ -n "$2" ] && [ "$2" -ge "$_po_min" ]; then
		tap_ok "$_po_name"
	else
		tail -n 3 $T/p.out | sed 's/^/# /'
		tap_fail "$_po_name" "fewer than $_po_min replies"
	fi
}

sync_peer ping-v4 60
ping_ok "IPv4 ping $ADDR4 -> $PEER4 (>= 4 of 5 replies)" 4 -c 5 -i 0.2 -w 15 "$PEER4"
sync_peer ping-v6
ping_ok "IPv6 ping $ADDR6 -> $PEER6 (>= 4 of 5 replies)" 4 -c 5 -i 0.2 -w 15 "$PEER6"
sync_peer ping-mtu
$IP link set dev "$IFACE" mtu 9000
if [ "$(cat /sys/class/net/"$IFACE"/mtu)" = 9000 ] && wait_for 50 oper_up; then
	tap_ok "MTU 9000 set"
else
	tap_fail "MTU 9000 set" "mtu $(cat /sys/class/net/"$IFACE"/mtu), operstate $(cat /sys/class/net/"$IFACE"/operstate)"
fi
sync_peer ping-jumbo
ping_ok "ping -M do -s 8972 (9000-byte IPv4 packets) -> $PEER4 (>= 2 of 3)" 2 -M do -s 8972 -c 3 -i 0.3 -w 15 "$PEER4"
if $PING -M do -s 8973 -c 1 -w 3 "$PEER4" >$T/big.out 2>&1; then
	tap_fail "ping -M do -s 8973 refused (MTU is 9000, not more)" "it was answered"
elif grep -q -i 'too long' $T/big.out; then
	tap_ok "ping -M do -s 8973 refused (MTU is 9000, not more)"
else
	sed 's/^/# /' $T/big.out | tail -n 3
	tap_fail "ping -M do -s 8973 refused (MTU is 9000, not more)" "no 'message too long'"
fi
sync_peer ping-mtu-back
$IP link set dev "$IFACE" mtu 1500
wait_for 50 oper_up
sync_peer ping-v4-again
ping_ok "IPv4 ping after MTU 9000 -> 1500 (>= 4 of 5)" 4 -c 5 -i 0.2 -w 15 "$PEER4"

# ---- flood ----
if ! is_scenic || ! peer_is_scenic; then
	for t in 1 2 3; do tap_skip "flood accounting $t" "needs SCENIC on both nodes"; done
	tap_result "no oops" "see dmesg" no_oops_eth
	tap_done
fi
pin_neigh || tap_diag "no neighbour entry for $PEER4"
# The counter windows must start and end with a quiet wire: a barrier's last TCP exchange can
# still be on its way when the other node returns from it: each snapshot waits until its card's
# frame counters stood still for 3 s.
sync_peer flood-pre
wait_quiet
snap $T/before
sleep 3	# send nothing until the peer has taken its snapshot too (its quiet wait ends within ~1 s)
sync_peer flood-go
if [ "$NODE" = 1 ]; then
	$PING -f -w 10 "$PEER4" >$T/flood.out 2>&1
	sleep 1	# replies still on their way when ping stopped
fi
sync_peer flood-done 60
wait_quiet
snap $T/after
sleep 3
if [ "$NODE" = 2 ]; then
	{ sed 's/^/b /' $T/before; sed 's/^/a /' $T/after; } >$T/mine
	xfer_serve $T/mine
	sync_peer flood-xfer
	for n in rx_frames rx_packets rx_bad_tag rx_drop_ring_full; do
		eval "d_$n=$(delta $T/before $T/after $n)"
	done
	tap_diag "node2: card rx_frames +$d_rx_frames, driver rx_packets +$d_rx_packets, rx_bad_tag +$d_rx_bad_tag, rx_drop_ring_full +$d_rx_drop_ring_full"
	if [ "$d_rx_frames" -gt 0 ] && [ "$d_rx_frames" -eq $((d_rx_packets + d_rx_bad_tag)) ]; then
		tap_ok "flood: node2 driver delivered every frame the card wrote (rx_frames == rx_packets + rx_bad_tag)"
	else
		tap_fail "flood: node2 driver delivered every frame the card wrote (rx_frames == rx_packets + rx_bad_tag)" "see numbers"
	fi
	tap_result "flood: no bad tags on node2" "rx_bad_tag +$d_rx_bad_tag" [ "$d_rx_bad_tag" -eq 0 ]
	sync_peer flood-fetched 30
	tap_result "flood: node2's card counted the flood (rx_frames >= 100)" "rx_frames +$d_rx_frames" \
		[ "$d_rx_frames" -ge 100 ]
else
	sync_peer flood-xfer
	xfer_fetch $T/peer || tap_diag "could not fetch node2's counters"
	sync_peer flood-fetched 30
	sed -n 's/^b //p' $T/peer >$T/pbefore
	sed -n 's/^a //p' $T/peer >$T/pafter
	set -- $(ping_count $T/flood.out)
	tx=${1:-0} rx=${2:-0}
	tap_diag "flood: $(grep -E 'transmitted|rtt' $T/flood.out | tr '\n' ' ')"
	if [ "$tx" -ge 100 ] && [ "$rx" -gt 0 ]; then
		tap_ok "flood: ping -f -w 10 ran (>= 100 sent, > 0 received)"
	else
		tap_fail "flood: ping -f -w 10 ran (>= 100 sent, > 0 received)" "sent $tx received $rx"
	fi
	d1() { delta $T/before $T/after "$1"; }
	d2() { delta $T/pbefore $T/pafter "$1"; }
	drops() {	# card RX drops
		_s=0
		for c in rx_drop_ring_full rx_drop_runt rx_drop_oversize rx_drop_filter rx_drop_disabled rx_dma_errors; do
			_s=$((_s + $($1 $c)))
		done
		echo $_s
	}
	if [ ! -s $T/pafter ]; then
		tap_fail "flood: ICMP path loss == frame path loss" "no counters from node2"
		tap_fail "flood: ping lost == path loss + late replies" "no counters from node2"
		tap_result "no oops" "see dmesg" no_oops_eth
		tap_done
	fi
	tx1=$(d1 tx_frames) rxp1=$(d1 rx_packets) rxf1=$(d1 rx_frames) cd1=$(drops d1)
	tx2=$(d2 tx_frames) rxp2=$(d2 rx_packets) rxf2=$(d2 rx_frames) cd2=$(drops d2)
	wire12=$((tx1 - rxf2 - cd2)) wire21=$((tx2 - rxf1 - cd1))
	drv2=$((rxf2 - rxp2)) drv1=$((rxf1 - rxp1))
	req_lost=$(($(d1 icmp_OutEchos) - $(d2 icmp_InEchos)))
	rep_lost=$(($(d2 icmp_OutEchoReps) - $(d1 icmp_InEchoReps)))
	late=$(($(d1 icmp_InEchoReps) - rx))
	lost=$((tx - rx))
	tap_diag "flood: ping lost $lost = requests lost $req_lost + replies lost $rep_lost + late replies $late"
	tap_diag "flood: frames 1->2: node1 card sent $tx1, node2 card saw $((rxf2 + cd2)) (host wire lost $wire12), node2 card dropped $cd2 (ring_full $(d2 rx_drop_ring_full)), node2 driver dropped $drv2, delivered $rxp2"
	tap_diag "flood: frames 2->1: node2 card sent $tx2, node1 card saw $((rxf1 + cd1)) (host wire lost $wire21), node1 card dropped $cd1 (ring_full $(d1 rx_drop_ring_full)), node1 driver dropped $drv1, delivered $rxp1"
	path12=$((tx1 - rxp2)) path21=$((tx2 - rxp1))
	# The two nodes cannot cut their counter windows at the same instant: the in-band barrier's
	# TCP exchange (a handful of frames) can fall in one node's window and not the other's, seen
	# as up to +-6 here. SLACK bounds that; silent losses beyond it fail.
	SLACK=16
	within() { [ "$1" -le $(($2 + SLACK)) ] && [ "$1" -ge $(($2 - SLACK)) ]; }
	if within "$req_lost" "$path12" && within "$rep_lost" "$path21" &&
		[ "$wire12" -ge -$SLACK ] && [ "$wire21" -ge -$SLACK ]; then
		tap_ok "flood: ICMP path loss == frame path loss (wire + card drops + driver drops) +-$SLACK barrier frames, both ways ($req_lost/$path12, $rep_lost/$path21)"
	else
		tap_fail "flood: ICMP path loss == frame path loss (wire + card drops + driver drops) +-$SLACK barrier frames, both ways" \
			"1->2 icmp $req_lost vs frames $path12, 2->1 icmp $rep_lost vs frames $path21, wire $wire12/$wire21"
	fi
	if [ "$lost" -eq $((req_lost + rep_lost + late)) ] && [ "$late" -ge 0 ]; then
		tap_ok "flood: ping lost ($lost) == path loss ($req_lost + $rep_lost) + late replies ($late)"
	else
		tap_fail "flood: ping lost ($lost) == path loss ($req_lost + $rep_lost) + late replies ($late)" "mismatch"
	fi
fi
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
