#!/bin/sh
# SPDX-License-Identifier: MIT
# badframes.sh (both nodes, SCENIC on both): oversize frames from the wire. Node 1 raises its
# MTU to 9000 and sends with rawsend (AF_PACKET, EtherType 0x88b5, 20 ms apart): 5 frames of
# 100 bytes (control: must arrive) and 20 frames of 3000 bytes; node 2 stays at MTU 1500. Node 2:
# rx_drop_oversize grows by exactly 20 and nothing longer than 1518 bytes reaches its stack
# (rawsend -r counts every frame the interface delivers), while the control frames do arrive.
. "$(dirname "$0")/lib.sh"
T=/tmp/eth-bad
mkdir -p $T

if [ "$NODE" = 1 ]; then
	tap_plan 4
	$PING -c 2 -w 5 "$PEER4" >/dev/null 2>&1
	peer_lladdr || PEER_LLADDR=$PEERMAC
	$IP link set dev "$IFACE" mtu 9000
	wait_for 50 oper_up
	sync_peer bad-ready 60
	sync_peer bad-go 30
	out=$($RAWSEND -i "$IFACE" -d "$PEER_LLADDR" -l 100 -n 5 -g 20000)
	tap_result "rawsend 5 x 100 bytes to $PEER_LLADDR: $out" "$out" [ "$out" = "sent 5 of 5 frames of 100 bytes" ]
	out=$($RAWSEND -i "$IFACE" -d "$PEER_LLADDR" -l 3000 -n 20 -g 20000)
	tap_result "rawsend 20 x 3000 bytes at MTU 9000: $out" "$out" [ "$out" = "sent 20 of 20 frames of 3000 bytes" ]
	sync_peer bad-sent 30
	sync_peer bad-checked 60
	$IP link set dev "$IFACE" mtu 1500
	wait_for 50 oper_up
	sync_peer bad-end 30
	tap_result "ping node2 afterwards (>= 4 of 5)" "lost" sh -c "$PING -c 5 -i 0.2 -w 15 $PEER4 | grep -q -E ' [45] received'"
	tap_result "no oops" "see dmesg" no_oops_eth
	tap_done
fi

tap_plan 5
is_scenic || { tap_fail "node2 is a SCENIC netdev" "driver $(iface_driver)"; tap_done; }
sync_peer bad-ready 60
snap $T/s0
$RAWSEND -r -i "$IFACE" -w 8 >$T/recv.out 2>&1 &
rpid=$!
sleep 0.5
sync_peer bad-go 30
sync_peer bad-sent 30
wait $rpid
snap $T/s1
over=$(delta $T/s0 $T/s1 rx_drop_oversize)
tap_diag "rawsend -r: $(cat $T/recv.out); rx_drop_oversize +$over, rx_frames +$(delta $T/s0 $T/s1 rx_frames), rx_bad_tag +$(delta $T/s0 $T/s1 rx_bad_tag)"
set -- $(sed -n 's/^received \([0-9]*\) frames (type 0x[0-9a-f]*: \([0-9]*\)), min \([0-9]*\) max \([0-9]*\) bytes$/\1 \2 \3 \4/p' $T/recv.out)
tap_result "rx_drop_oversize grew by exactly 20" "+$over" [ "$over" -eq 20 ]
tap_result "no frame over 1518 bytes delivered (largest ${4:-?})" "largest ${4:-?}" [ "${4:-99999}" -le 1518 ]
tap_result "control frames (100 bytes, 0x88b5) delivered: ${2:-?} of 5 (>= 4)" "${2:-?}" [ "${2:-0}" -ge 4 ]
tap_result "rx_length_errors (ip -s link) counts them" "$(cat /sys/class/net/$IFACE/statistics/rx_length_errors)" \
	[ "$(cat /sys/class/net/$IFACE/statistics/rx_length_errors)" -ge 20 ]
sync_peer bad-checked 60
sync_peer bad-end 30
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
