# SPDX-License-Identifier: MIT
# Helpers of the recovery tests (recover_*.sh, devlink_health.sh): two SCENIC nodes on one wire,
# node 1's card has -device scenic,fault-inject=on and is the one faulted; node 2 is the peer of
# the traffic. Source it after setting REC_NAME (unique barrier prefix):
#   REC_NAME=fatal; . "$(dirname "$0")/recover_lib.sh"
# docs/recovery.md describes what a user sees; docs/admin-queue.md section 8 the sequence.
# The rdma and eth collections sit next to this one (their lib.sh: NODE, PEER4, the barrier,
# two-host mode). SCENIC_FAULT_INJECT=1 says that node 1's card has the model's fault injection
# (fault-inject=on): set on both nodes (run-vm-tests does it in the boots with such a card), else
# every recovery script exits 4 (KSFT_SKIP) on both nodes alike, so neither waits for the other.

. "$(dirname "$0")/../rdma/lib.sh"

if [ "${SCENIC_FAULT_INJECT:-0}" != 1 ] || [ "${NODES:-2}" -lt 2 ]; then
	echo "# SKIP: needs two nodes and node 1's card with fault injection (the model's" \
		"fault-inject=on, as in the VM rig's recover boot): SCENIC_FAULT_INJECT=1 on both says so"
	exit "$KSFT_SKIP"
fi

DEVLINK=/usr/sbin/devlink
REC_RECOVER_S=${REC_RECOVER_S:-60}	# automatic recovery must end within this

# rec_setup: addresses, the RDMA device (DEV, GIDX), BDF, DL (devlink handle), DBG (debugfs).
rec_setup() {
	addr_setup
	wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
	BDF=$(scenic_bdf)
	DL=pci/$BDF
	DBG=/sys/kernel/debug/scenic/$BDF
	REC_IFINDEX=$(cat "/sys/class/net/$IFACE/ifindex" 2>/dev/null)
	REC_DEVIDX=$(rdma_index "$DEV")
}

# rdma_index DEV: the ib_device's index (`rdma dev`); a re-created device gets a new one.
rdma_index() { $RDMA dev show "$1" 2>/dev/null | awk -F: 'NR == 1 { print $1 }'; }

# rec_t LABEL: a diagnostic line with the guest's uptime (where a test spends its time).
rec_t() { tap_diag "t=$(cut -d ' ' -f 1 /proc/uptime) $1"; }

# rec_count REGEX: matching kernel log lines so far.
rec_count() { dmesg | grep -c -E "$1"; }

# rec_traffic_start PORT: ib_write_bw (node 2 serves, node 1 sends, 64 KiB messages, 60 s at most)
# plus ping -f from node 1, and ibv_asyncwatch on node 1 to see the device's async events.
rec_traffic_start() {
	REC_PORT=$1
	if [ "$NODE" = 2 ]; then
		timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -p "$REC_PORT" -N -s 65536 \
			-D 60 >/tmp/rec-srv.out 2>&1 &
		REC_SRV=$!
		sync_peer "$REC_NAME-traffic" 60
		return
	fi
	timeout 150 /usr/bin/ibv_asyncwatch -d "$DEV" >/tmp/rec-async.out 2>&1 &
	REC_ASYNC=$!
	sync_peer "$REC_NAME-traffic" 60
	sleep 1
	timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -p "$REC_PORT" -N -s 65536 -D 60 \
		"$PEER4" >/tmp/rec-cli.out 2>&1 &
	REC_CLI=$!
	timeout 90 $PING -f -q -w 60 "$PEER4" >/tmp/rec-ping.out 2>&1 &
	REC_PING=$!
	_p0=$(rstat tx_pkts)
	sleep 3
	_p1=$(rstat tx_pkts)
	tap_result "traffic flows before the fault: ib_write_bw and ping -f (tx_pkts ${_p0:-?} -> ${_p1:-?})" \
		"the card sent nothing in 3 s: $(tail -n 2 /tmp/rec-cli.out | tr '\n' ';')" \
		[ "${_p1:-0}" -gt "${_p0:-0}" ]
}

# rec_traffic_stop: end what rec_traffic_start left running (the faulted run fails; that is
# expected: its applications got IB_EVENT_DEVICE_FATAL and must reopen).
rec_traffic_stop() {
	for _pid in $REC_CLI $REC_PING $REC_SRV; do
		kill "$_pid" 2>/dev/null
		wait "$_pid" 2>/dev/null
	done
	REC_CLI='' REC_PING='' REC_SRV=''
}

# rec_wait_recovered BEFORE: true once "recovered from" lines exceed BEFORE (REC_RECOVER_S).
rec_wait_recovered() {
	_rw_n=0
	while [ "$(rec_count 'recovered from')" -le "$1" ]; do
		_rw_n=$((_rw_n + 1))
		[ $_rw_n -gt $((REC_RECOVER_S * 5)) ] && return 1
		sleep 0.2
	done
	return 0
}

# rec_async_fatal: ibv_asyncwatch (started before the fault) printed IB_EVENT_DEVICE_FATAL (8)
# within 20 s; then it is stopped (it keeps waiting on the old device's event file).
rec_async_fatal() {
	_ra_n=0
	while ! grep -q 'event_type .*(8)' /tmp/rec-async.out && [ $_ra_n -lt 100 ] &&
		kill -0 "$REC_ASYNC" 2>/dev/null; do
		sleep 0.2
		_ra_n=$((_ra_n + 1))
	done
	kill "$REC_ASYNC" 2>/dev/null
	wait "$REC_ASYNC" 2>/dev/null
	grep -q 'event_type .*(8)' /tmp/rec-async.out
}

# rec_perf_once NAME PORT TEST: one perftest run between the nodes (node 2 serves); sets _rc.
rec_perf_once() {
	if [ "$NODE" = 2 ]; then
		timeout 120 /usr/bin/$3 -d "$DEV" -x "$GIDX" -p "$2" -N -s 65536 -n 200 \
			>/tmp/rec-perf.out 2>&1 &
		_pp=$!
		sync_peer "$REC_NAME-$1" 120
		wait $_pp
		_rc=$?
		return
	fi
	sync_peer "$REC_NAME-$1" 120
	sleep 1
	timeout 120 /usr/bin/$3 -d "$DEV" -x "$GIDX" -p "$2" -N -s 65536 -n 200 "$PEER4" \
		>/tmp/rec-perf.out 2>&1
	_rc=$?
}

# rec_perf NAME PORT TEST: rec_perf_once, repeated once on PORT + 5 when perftest's clock
# calibration failed on either side (perf_done, rdma/lib.sh); a TAP line on each node.
rec_perf() {
	_again=
	rec_perf_once "$1" "$2" "$3"
	if perf_done /tmp/rec-perf.out "$REC_NAME-$1-done"; then
		_again=" (repeated once: perftest's clock calibration failed)"
		rec_perf_once "$1-again" $(($2 + 5)) "$3"
		sync_peer "$REC_NAME-$1-again-done" 120
	fi
	_why="exit $_rc: $(grep -v '^ *$' /tmp/rec-perf.out | tail -n 3 | tr '\n' ';' | cut -c 1-300)"
	if [ "$NODE" = 2 ]; then
		tap_result "$3 server after the recovery$_again" "$_why" [ $_rc = 0 ]
		return
	fi
	_row=$(grep -E '^ *[0-9]+ +[0-9]+ ' /tmp/rec-perf.out | tail -n 1 | tr -s ' ')
	tap_result "$3 after the recovery: exit 0 ($_row)$_again" "$_why" [ $_rc = 0 -a -n "$_row" ]
}

# rec_after: the checks after an automatic recovery on node 1 (5 TAP lines), then both nodes meet
# and run ib_write_bw and ib_read_bw (1 line each) and check the kernel log (1 line).
# Node 2 reports 3 lines here.
rec_after() {
	rec_t "recovered"
	if [ "$NODE" = 1 ]; then
		tap_result "the application got IB_EVENT_DEVICE_FATAL (ibv_asyncwatch)" \
			"asyncwatch: $(tr '\n' ';' </tmp/rec-async.out | cut -c 1-200)" rec_async_fatal
		rec_t "asyncwatch done"
		wait_rdma
		rec_t "new device ready"
		_idx=$(rdma_index "$DEV")
		tap_result "a new ib_device registered: $DEV index $REC_DEVIDX -> ${_idx:-none}, port ACTIVE" \
			"rdma dev: $($RDMA dev 2>&1 | tr '\n' ';')" \
			[ -n "$_idx" -a "$_idx" != "$REC_DEVIDX" ]
		_ifi=$(cat "/sys/class/net/$IFACE/ifindex" 2>/dev/null)
		_drv=$($ETHTOOL -i "$IFACE" 2>/dev/null | awk '$1 == "driver:" { print $2 }')
		tap_result "eth stayed bound: $IFACE ifindex $REC_IFINDEX -> ${_ifi:-none}, driver ${_drv:-none}" \
			"the netdev was re-created or is gone" \
			[ "$_ifi" = "$REC_IFINDEX" -a "$_drv" = scenic_eth ]
		wait_for 100 oper_up
		tap_result "ping after the recovery" "$($PING -c 3 -W 2 "$PEER4" 2>&1 | tail -n 2 | tr '\n' ';')" \
			$PING -c 3 -W 2 "$PEER4"
		tap_result "card healthy again (debugfs health: $(awk '$1 == "state" { print $2 }' "$DBG/health"))" \
			"$(tr '\n' ';' <"$DBG/health")" \
			[ "$(awk '$1 == "state" { print $2 }' "$DBG/health")" = running ]
	fi
	rec_traffic_stop
	rec_t "checks done, perftest"
	rec_perf write $((REC_PORT + 1)) ib_write_bw
	rec_t "ib_write_bw done"
	rec_perf read $((REC_PORT + 2)) ib_read_bw
	rec_t "ib_read_bw done"
	tap_result "kernel log: no WARN/BUG/oops/lockdep splat" "see the dmesg lines above" rec_dmesg_clean
	sync_peer "$REC_NAME-end" 120
}

rec_dmesg_clean() {
	_bad='WARNING:|BUG:|Oops|general protection|circular locking|inconsistent lock state|suspicious RCU|blocked for more than|Call Trace:'
	if dmesg | grep -q -E "$_bad"; then
		dmesg | grep -E "$_bad" | tail -n 5 | sed 's/^/# dmesg: /'
		return 1
	fi
	return 0
}

# rec_run CODE FAULT_FN: the whole automatic-recovery test. Node 1 starts traffic, runs FAULT_FN
# (which injects the fault and may print TAP lines of its own), waits for "recovered from CODE"
# and checks what users see. Node 1: 3 + FAULT_FN's lines + 8; node 2: 4.
rec_run() {
	_code=$1 _fault=$2
	if [ "$NODE" = 1 ]; then
		tap_result "card $BDF with fault injection (debugfs $DBG)" \
			"no scenic card or no inject_fatal file" [ -n "$BDF" -a -e "$DBG/inject_fatal" ]
		# a fault of the previous test must not make this one "within the grace period"
		$DEVLINK health set "$DL" reporter card grace_period 0 2>/dev/null
	fi
	rec_t "start"
	rec_traffic_start "$REC_PORT0"
	rec_t "traffic runs"
	if [ "$NODE" = 1 ]; then
		_before=$(rec_count 'recovered from')
		_t0=$(cut -d ' ' -f 1 /proc/uptime)
		$_fault
		if rec_wait_recovered "$_before"; then
			_t1=$(cut -d ' ' -f 1 /proc/uptime)
			tap_ok "recovered by itself in $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }') s: $(dmesg | grep 'recovered from' | tail -n 1 | sed 's/.*: recovered/recovered/')"
		else
			tap_fail "recovered by itself within $REC_RECOVER_S s" \
				"$(dmesg | grep -E 'card fault|recover|reset' | tail -n 3 | tr '\n' ';')"
		fi
		tap_result "the trigger was $_code" "$(dmesg | grep 'recovered from' | tail -n 1)" \
			sh -c "dmesg | grep 'recovered from' | tail -n 1 | grep -q -E 'recovered from ($_code) '"
		sync_peer "$REC_NAME-recovered" 120
	else
		tap_ok "serving ib_write_bw to node 1 ($DEV)"
		sync_peer "$REC_NAME-recovered" $((REC_RECOVER_S + 60))
	fi
	rec_after
}

# rec_cmd_during_fault: a verb that needs admin commands (ibv_rc_pingpong creating its CQ, QP and
# MR as a server) while the fault holds. Sets REC_CMD_RC and REC_CMD_S; 124 means it hung.
rec_cmd_during_fault() {
	_c0=$(cut -d ' ' -f 1 /proc/uptime)
	timeout 30 /usr/bin/ibv_rc_pingpong -d "$DEV" -g "$GIDX" -p 18799 >/tmp/rec-cmd.out 2>&1
	REC_CMD_RC=$?
	REC_CMD_S=$(awk -v a="$_c0" -v b="$(cut -d ' ' -f 1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
}
