#!/bin/sh
# SPDX-License-Identifier: MIT
# iperf.sh [full|tcp] (both nodes): node 2 runs the iperf3 server, node 1 the client, 10 s per
# run: TCP, TCP -R (node 2 sends), and with "full" (default) also UDP and UDP -R at 50 Mbit/s.
# Pass: the client exits 0 and the receiver's throughput is > 0 (numbers printed as # lines).
. "$(dirname "$0")/lib.sh"

MODE=${1:-full}
if [ "$MODE" = full ]; then RUNS="tcp tcp-R udp udp-R"; else RUNS="tcp tcp-R"; fi
T=/tmp/eth-iperf
mkdir -p $T
[ -n "$IFACE" ] || { tap_plan 1; tap_fail "test interface" "none with MAC $MYMAC"; tap_done; }

# mbps FILE: the receiver's throughput in Mbit/s from iperf3's summary ("receiver" line).
mbps() {
	awk '/receiver$/ { for (i = 2; i <= NF; i++) if ($i ~ /bits\/sec$/) { v = $(i - 1); u = $i } }
		END { if (u == "") exit 1
			m = (u ~ /^G/) ? 1000 : (u ~ /^M/) ? 1 : (u ~ /^K/) ? 0.001 : 0.000001
			printf "%.3f\n", v * m }' "$1"
}

if [ "$NODE" = 2 ]; then
	tap_plan 2
	$IPERF -s >$T/server.log 2>&1 &
	srv=$!
	if wait_for 50 sh -c "/usr/bin/ss -ltn | grep -q ':5201 '"; then
		tap_ok "iperf3 server listening"
	else
		tap_fail "iperf3 server listening" "nothing on port 5201"
	fi
	sync_peer iperf-ready 60
	sync_peer iperf-done 150
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	tap_result "no oops" "see dmesg" no_oops_eth
	tap_done
fi

n=0
for r in $RUNS; do n=$((n + 1)); done
tap_plan $((n + 1))
sync_peer iperf-ready 60
for r in $RUNS; do
	case $r in
	tcp) args="" what="TCP node1 -> node2" ;;
	tcp-R) args="-R" what="TCP node2 -> node1 (-R)" ;;
	udp) args="-u -b 50M" what="UDP node1 -> node2 (50 Mbit/s offered)" ;;
	udp-R) args="-u -b 50M -R" what="UDP node2 -> node1 (-R, 50 Mbit/s offered)" ;;
	esac
	# shellcheck disable=SC2086
	timeout 40 $IPERF -c "$PEER4" -t 10 --connect-timeout 5000 $args >$T/$r.out 2>&1
	s=$?
	v=$(mbps $T/$r.out)
	grep -E 'sender$|receiver$' $T/$r.out | sed "s/^/# $r: /"
	if [ $s -eq 0 ] && [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'; then
		tap_ok "iperf3 $what, 10 s: $v Mbit/s"
	else
		tail -n 3 $T/$r.out | sed "s/^/# $r: /"
		tap_fail "iperf3 $what, 10 s" "exit $s, receiver ${v:-?} Mbit/s"
	fi
	sleep 0.5
done
sync_peer iperf-done 60
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
