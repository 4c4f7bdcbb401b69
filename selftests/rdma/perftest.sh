#!/bin/sh
# SPDX-License-Identifier: MIT
# Unmodified perftest between the two nodes: node 2 serves, node 1 is the client (or the other
# way round with SWAP=1 in the environment). Args: a list of "TEST[:EXTRA ARGS]" items, e.g.
#   perftest.sh 'ib_write_bw:-a -n 20' 'ib_write_bw:-q 16 -s 65536 -n 20'
# Every run must exit 0 and print its result table. Bandwidth tests get -N (no peak computation:
# slow in TCG; the latency tests refuse it); never -F (it makes perftest report 0 on a loaded
# host); see DESIGN.md 10. Each run's wall time is measured; a duration run (-D SECS) must also
# last at least SECS and count at least one iteration on the client (perftest counts only the
# completions polled between its warm-up and cool-down margins, a quarter of SECS each, and
# still exits 0 when there were none), and its TAP line carries the time, the iterations and
# perftest's average bandwidth (MB/sec: MiB/s) of the counted middle half.
. "$(dirname "$0")/lib.sh"

# run_kselftest.sh splits its KSELFTEST_PERFTEST_SH_ARGS at blanks: run-vm-tests sends the blanks
# inside one item as '~', turned back here
n=$#
for a in "$@"; do set -- "$@" "$(printf '%s\n' "$a" | tr '~' ' ')"; done
shift "$n"

tap_plan $#
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
SERVER=2
[ "${SWAP:-0}" = 1 ] && SERVER=1
sync_peer "perf-ready-$SERVER" 60

# A run whose clock calibration failed on either side (perf_done, lib.sh) is repeated once, on a
# new port, and its TAP line says so; no other failure is repeated.

# One run of $t $args on $port, output in /tmp/perf.out; sets rc (and secs on the client).
run_once() {
	if [ "$NODE" = "$SERVER" ]; then
		# shellcheck disable=SC2086
		timeout 300 /usr/bin/$t -d "$DEV" -x "$GIDX" -p $port $args >/tmp/perf.out 2>&1 &
		pid=$!
		sync_peer "perf-$port" 60
		wait $pid
		rc=$?
	else
		sync_peer "perf-$port" 60
		sleep 1
		t0=$(cut -d ' ' -f 1 /proc/uptime)
		# shellcheck disable=SC2086
		timeout 300 /usr/bin/$t -d "$DEV" -x "$GIDX" -p $port $args "$PEER4" >/tmp/perf.out 2>&1
		rc=$?
		secs=$(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime)
	fi
}

port=18600
for item in "$@"; do
	t=${item%%:*}
	args=
	[ "$item" != "$t" ] && args=${item#*:}
	case $t in *_bw) args="-N $args" ;; esac
	dur=$(echo " $args " | sed -n 's/.* -D \([0-9][0-9]*\) .*/\1/p')
	port=$((port + 1))
	run_once
	retried=
	if perf_done /tmp/perf.out "perf-done-$port"; then
		retried=" (repeated once: perftest's clock calibration failed, r^2 < 0.9)"
		port=$((port + 1))
		run_once
		sync_peer "perf-done-$port" 330
	fi
	out=$(cat /tmp/perf.out)
	rows=$(echo "$out" | grep -cE '^ *[0-9]+ +[0-9]+ ')
	role=client
	[ "$NODE" = "$SERVER" ] && role=server
	tap_diag "$t $args ($role, $DEV): $(echo "$out" | grep -E '^ *[0-9]+ +[0-9]+ ' | tail -n 3 | tr -s ' ' | tr '\n' ';')"
	# the server side of some latency tests prints no table: only the client must
	need=1
	[ "$role" = server ] && need=0
	why="exit $rc: $(echo "$out" | grep -iE 'error|fail|couldn|unable' | head -n 3 | tr '\n' ';')"
	if [ -n "$dur" ] && [ "$role" = client ]; then
		# the last table row: #bytes #iterations BW-peak BW-average[MB/sec] MsgRate
		row=$(echo "$out" | grep -E '^ *[0-9]+ +[0-9]+ ' | tail -n 1)
		bytes=$(echo "$row" | awk '{ print $1 + 0 }')
		iters=$(echo "$row" | awk '{ print $2 + 0 }')
		avg=$(echo "$row" | awk '{ print $4 + 0 }')
		long=$(awk -v s="$secs" -v d="$dur" 'BEGIN { print (s >= d) ? 1 : 0 }')
		# perftest counts the middle half: its margins are a quarter of -D each (-D 60: 15 s)
		tap_result "$t $args as client: ran $secs s (>= $dur), $iters x $bytes B in the counted middle $((dur / 2)) s, $avg MB/sec, exit 0$retried" \
			"$why" [ "$rc" = 0 -a "$rows" -ge 1 -a "$iters" -gt 0 -a "$long" = 1 ]
	elif [ "$role" = client ]; then
		tap_result "$t $args as client: exit 0 with $rows result rows ($secs s)$retried" "$why" \
			[ "$rc" = 0 -a "$rows" -ge "$need" ]
	else
		tap_result "$t $args as $role: exit 0 with $rows result rows$retried" "$why" \
			[ "$rc" = 0 -a "$rows" -ge "$need" ]
	fi
done
tap_done
