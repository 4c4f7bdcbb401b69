#!/bin/sh
# SPDX-License-Identifier: MIT
# linkflap.sh (both nodes, SCENIC on both): disruptions while iperf3 runs (node 1 client ->
# node 2 server, 12 s). 1) node 2 sets its link down for 2 s and up again: the interface comes
# back up and the client ends (bounded). 2) node 1 removes scenic_eth (rmmod) mid-run: rmmod
# returns within 30 s, the netdev and its scenic-eth vector are gone, modprobe brings back an
# interface with the same MAC, the client ends (bounded). Afterwards ping works both ways and
# neither dmesg has an oops, hung task or soft lockup.
. "$(dirname "$0")/lib.sh"
T=/tmp/eth-flap
mkdir -p $T

ping5() { $PING -c 5 -i 0.2 -w 15 "$PEER4" 2>&1 | grep -q -E ' [45] received'; }
# wait_pid PID SECONDS: true if PID ended within SECONDS (else it is killed).
wait_pid() {
	_wp=$(($2 * 10))
	while [ $_wp -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		_wp=$((_wp - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 1
	fi
	wait "$1" 2>/dev/null
	return 0
}

if [ "$NODE" = 2 ]; then
	tap_plan 5
	is_scenic || { tap_fail "node2 is a SCENIC netdev" "driver $(iface_driver)"; tap_done; }
	$IPERF -s >$T/server1.log 2>&1 &
	srv=$!
	sync_peer flap-ready 60
	sleep 3
	$IP link set dev "$IFACE" down
	sleep 2
	$IP link set dev "$IFACE" up
	tap_result "link down / up during iperf3: $IFACE up again within 5 s" \
		"operstate $(cat /sys/class/net/$IFACE/operstate)" wait_for 50 oper_up
	sync_peer flap-done 90
	tap_result "ping node1 after the link flap (>= 4 of 5)" "lost" ping5
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	$IPERF -s >$T/server2.log 2>&1 &
	srv=$!
	sync_peer rmmod-ready 60
	snap $T/s0
	sync_peer rmmod-done 120
	tap_result "ping node1 after its rmmod / modprobe (>= 4 of 5)" "lost" ping5
	snap $T/s1
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	sync_peer flap-end 60
	rf=$(delta $T/s0 $T/s1 rx_frames)
	tap_result "node2's card kept receiving after its link flap (rx_frames +$rf >= 100)" "+$rf" [ "$rf" -ge 100 ]
	tap_result "no oops, hung task or soft lockup" "see dmesg" no_oops_eth
	tap_done
fi

tap_plan 8
is_scenic || { tap_fail "node1 is a SCENIC netdev" "driver $(iface_driver)"; tap_done; }
sync_peer flap-ready 60
timeout 60 $IPERF -c "$PEER4" -t 12 --connect-timeout 5000 >$T/c1.out 2>&1 &
cl=$!
if wait_pid $cl 60; then
	tap_ok "iperf3 client ended within 60 s across node2's link flap"
else
	tap_fail "iperf3 client ended within 60 s across node2's link flap" "killed"
fi
grep -E 'sender$|receiver$|error' $T/c1.out | sed 's/^/# flap: /'
sync_peer flap-done 90
sync_peer rmmod-ready 60
timeout 60 $IPERF -c "$PEER4" -t 12 --connect-timeout 5000 >$T/c2.out 2>&1 &
cl=$!
sleep 3
t0=$(cut -d' ' -f1 /proc/uptime)
timeout 30 $RMMOD scenic_eth >$T/rmmod.out 2>&1
rc=$?
tap_diag "rmmod scenic_eth: exit $rc after $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s $(cat $T/rmmod.out)"
tap_result "rmmod scenic_eth during iperf3 returned 0 within 30 s" "exit $rc" [ $rc -eq 0 ]
if [ -z "$(find_iface)" ] && [ "$(eth_irqs)" = 0 ] && ! grep -q scenic-eth /proc/interrupts; then
	tap_ok "netdev and scenic-eth vector gone after rmmod"
else
	tap_fail "netdev and scenic-eth vector gone after rmmod" "iface $(find_iface), $(grep scenic-eth /proc/interrupts)"
fi
$MODPROBE scenic_eth
iface_back() { find_iface >/dev/null; }
wait_for 50 iface_back
IFACE=$(find_iface)
if [ -n "$IFACE" ]; then
	addr_setup
	tap_result "modprobe scenic_eth: $IFACE with $MYMAC back and up" "operstate $(cat /sys/class/net/$IFACE/operstate)" oper_up
else
	tap_fail "modprobe scenic_eth: interface with $MYMAC back" "none"
fi
if wait_pid $cl 60; then
	tap_ok "iperf3 client ended within 60 s across the rmmod"
else
	tap_fail "iperf3 client ended within 60 s across the rmmod" "killed"
fi
grep -E 'sender$|receiver$|error' $T/c2.out | sed 's/^/# rmmod: /'
tap_result "scenic-eth vector back in /proc/interrupts" "$(grep scenic /proc/interrupts)" grep -q scenic-eth /proc/interrupts
sync_peer rmmod-done 120
tap_result "ping node2 after rmmod / modprobe (>= 4 of 5)" "lost" ping5
sync_peer flap-end 60
tap_result "no oops, hung task or soft lockup" "see dmesg" no_oops_eth
tap_done
