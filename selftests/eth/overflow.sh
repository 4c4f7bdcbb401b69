#!/bin/sh
# SPDX-License-Identifier: MIT
# overflow.sh (both nodes, SCENIC on node 2): node 2 shrinks its RX ring to the minimum
# (`ethtool -G rx 8`: ethtool -g and the card's eth.RX_RING_SIZE show 8), node 1 floods it
# (`ping -f -l 64 -s 1400`: bursts of 64 frames); node 2's `ethtool -S rx_drop_ring_full` must
# grow. Afterwards ping works with the small ring and again with the default ring (256), and
# dmesg has no oops.
. "$(dirname "$0")/lib.sh"
T=/tmp/eth-overflow
mkdir -p $T

ping5() { $PING -c 5 -i 0.2 -w 15 "$PEER4" 2>&1 | grep -q -E ' [45] received'; }

if [ "$NODE" = 1 ]; then
	tap_plan 3
	sync_peer ovf-go 60
	$PING -f -l 64 -s 1400 -w 8 "$PEER4" >$T/flood.out 2>&1
	set -- $(ping_count $T/flood.out)
	tap_diag "flood: ${1:-?} sent, ${2:-?} received"
	tap_result "flood ping -f -l 64 -s 1400 -w 8 ran (>= 64 sent)" "sent ${1:-?}" [ "${1:-0}" -ge 64 ]
	sync_peer ovf-flooded 60
	sync_peer ovf-restored 60
	tap_result "ping node2 after the overflow (>= 4 of 5)" "lost" ping5
	sync_peer ovf-end 30
	tap_result "no oops" "see dmesg" no_oops_eth
	tap_done
fi

tap_plan 7
is_scenic || { tap_fail "node2 is a SCENIC netdev" "driver $(iface_driver)"; tap_done; }
$ETHTOOL -G "$IFACE" rx 8 >$T/g.out 2>&1
rc=$?
wait_for 50 oper_up
cur=$($ETHTOOL -g "$IFACE" | awk '/^Current/ { c = 1 } c && $1 == "RX:" { print $2; exit }')
rs=$(reg RX_RING_SIZE)
tap_diag "ethtool -G rx 8: exit $rc $(cat $T/g.out); ethtool -g current RX $cur; eth.RX_RING_SIZE $rs"
if [ $rc -eq 0 ] && [ "$cur" = 8 ] && hexeq "$rs" 8; then
	tap_ok "ethtool -G rx 8: ethtool -g and eth.RX_RING_SIZE show 8"
else
	tap_fail "ethtool -G rx 8: ethtool -g and eth.RX_RING_SIZE show 8" "see # lines"
fi
snap $T/s0
sync_peer ovf-go 60
sync_peer ovf-flooded 60
snap $T/s1
full=$(delta $T/s0 $T/s1 rx_drop_ring_full)
tap_diag "during the flood: rx_frames +$(delta $T/s0 $T/s1 rx_frames), rx_drop_ring_full +$full, rx_packets +$(delta $T/s0 $T/s1 rx_packets), interrupts +$(delta $T/s0 $T/s1 eth_irqs)"
tap_result "rx_drop_ring_full grew during the flood" "+$full" [ "$full" -gt 0 ]
missed=$(cat "/sys/class/net/$IFACE/statistics/rx_missed_errors")
tap_result "rx_missed_errors (ip -s link) covers the ring-full drops ($missed >= $full)" "missed $missed" \
	[ "$missed" -ge "$full" ]
tap_result "ping node1 with the 8-slot ring (>= 4 of 5)" "lost" ping5
$ETHTOOL -G "$IFACE" rx 256 >$T/g.out 2>&1
wait_for 50 oper_up
tap_result "ethtool -G rx 256: eth.RX_RING_SIZE 0x100" "$(cat $T/g.out) reg $(reg RX_RING_SIZE)" hexeq "$(reg RX_RING_SIZE)" 256
sync_peer ovf-restored 60
tap_result "ping node1 with the default ring (>= 4 of 5)" "lost" ping5
sync_peer ovf-end 30
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
