#!/bin/sh
# SPDX-License-Identifier: MIT
# runt.sh (both nodes; node 1 SCENIC receiver, node 2 any sender, e.g. the virtio-net peer):
# frames shorter than an Ethernet header from the wire. No Linux guest can send one: AF_PACKET
# refuses frames under the device's min_header_len (14) with EINVAL whatever the capabilities
# (node 2 tries, printed as a # line). So node 1 asks the VM runner to inject them into its end
# of the wire (SCENIC-WIRE-INJECT, run-vm-tests runs this boot with injection on): 10 frames of
# 10 bytes, 5 of 13 bytes, 1 of 1 byte, plus 4 frames of 1600 bytes (> MTU 1500 + 18). Node 1:
# rx_drop_runt grows by exactly 16, rx_drop_oversize by exactly 4, nothing shorter than 14 or
# longer than 1518 bytes reaches its stack, and node 2's 5 control frames (60 bytes, 0x88b5) do.
. "$(dirname "$0")/lib.sh"
if [ $VM_RIG = 0 ]; then
	echo "# SKIP: runt frames are injected into the wire by the VM rig (no host can send them)"
	exit "$KSFT_SKIP"
fi
T=/tmp/eth-runt
mkdir -p $T

if [ "$NODE" = 2 ]; then
	tap_plan 2
	$PING -c 2 -w 5 "$PEER4" >/dev/null 2>&1
	peer_lladdr || PEER_LLADDR=$PEERMAC
	tap_diag "AF_PACKET runt from $(iface_driver): $($RAWSEND -i "$IFACE" -d "$PEER_LLADDR" -l 10 -n 1 2>&1)"
	sync_peer runt-go 60
	out=$($RAWSEND -i "$IFACE" -d "$PEER_LLADDR" -l 60 -n 5 -g 20000)
	tap_result "rawsend 5 x 60 bytes (control) to node1: $out" "$out" [ "$out" = "sent 5 of 5 frames of 60 bytes" ]
	sync_peer runt-sent 60
	sync_peer runt-end 60
	tap_result "no oops" "see dmesg" no_oops_eth
	tap_done
fi

tap_plan 6
is_scenic || { tap_fail "node1 is a SCENIC netdev" "driver $(iface_driver)"; tap_done; }
big=$(awk 'BEGIN { for (i = 0; i < 1600; i++) printf "%02x", i % 256 }')
snap $T/s0
$RAWSEND -r -i "$IFACE" -w 10 >$T/recv.out 2>&1 &
rpid=$!
sleep 0.5
sync_peer runt-go 60
wire_inject "count=10 hex=$(echo "$MYMAC" | tr -d :)ffffffff"
wire_inject "count=5 hex=$(echo "$MYMAC" | tr -d :)$(echo "$PEERMAC" | tr -d :)88"
wire_inject "count=1 hex=ff"
wire_inject "count=4 hex=$(echo "$MYMAC" | tr -d :)$big"
sync_peer runt-sent 60
# the injected frames arrive within milliseconds; give them 5 s before judging
wait_for 50 sh -c "[ \$($ETHTOOL -S $IFACE | awk '\$1 == \"rx_drop_runt:\" { print \$2 }') -ge \$(( $(awk '$1 == "rx_drop_runt" { print $2 }' $T/s0) + 16 )) ]"
wait $rpid
snap $T/s1
runt=$(delta $T/s0 $T/s1 rx_drop_runt) over=$(delta $T/s0 $T/s1 rx_drop_oversize)
tap_diag "rawsend -r: $(cat $T/recv.out); rx_drop_runt +$runt, rx_drop_oversize +$over, rx_frames +$(delta $T/s0 $T/s1 rx_frames), rx_bad_tag +$(delta $T/s0 $T/s1 rx_bad_tag)"
set -- $(sed -n 's/^received \([0-9]*\) frames (type 0x[0-9a-f]*: \([0-9]*\)), min \([0-9]*\) max \([0-9]*\) bytes$/\1 \2 \3 \4/p' $T/recv.out)
tap_result "rx_drop_runt grew by exactly 16 (10 + 5 + 1 injected)" "+$runt" [ "$runt" -eq 16 ]
tap_result "rx_drop_oversize grew by exactly 4 (1600-byte frames at MTU 1500)" "+$over" [ "$over" -eq 4 ]
tap_result "nothing under 14 bytes delivered (smallest ${3:-?})" "smallest ${3:-?}" [ "${3:-0}" -ge 14 ]
tap_result "nothing over 1518 bytes delivered (largest ${4:-?})" "largest ${4:-?}" [ "${4:-99999}" -le 1518 ]
tap_result "control frames from node2 delivered: ${2:-?} of 5 (>= 4)" "${2:-?}" [ "${2:-0}" -ge 4 ]
sync_peer runt-end 60
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
