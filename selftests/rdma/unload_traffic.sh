#!/bin/sh
# SPDX-License-Identifier: MIT
# Unload and reset under RDMA traffic (issue 15). Node 2 streams RDMA WRITEs (ib_write_bw,
# 64 KiB) into node 1's QP; while they flow node 1 tears its side down:
#   round 1: rmmod scenic_rdma (ib_core disassociates the perftest process's context);
#   round 2: the card unbound from scenic.ko (the core removes its auxiliary devices under
#            traffic), then every scenic module unloaded;
#   round 3: a function-level reset (sysfs reset): the driver recovers by itself.
# Each round checks: the unload or reset returns within 60 s, nothing of the driver is left
# (modules, ib_device, interrupt vectors after round 2; "reset done" after round 3), node 2's QP
# goes to ERR (its ib_write_bw ends with an error completion well before its 60 s), and then a
# new ib_device carries 200 x 64 KiB WRITEs node 1 -> node 2 again. The boot's "dmesg clean" check then fails on any
# WARN, oops or leak report of either node.
. "$(dirname "$0")/lib.sh"

PORT=18800	# + 10 per round; + 1 for the check run
BW="/usr/bin/ib_write_bw -N -s 65536"

if [ "$NODE" = 1 ]; then tap_plan 20; else tap_plan 6; fi
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

# reload R: modules back (round 2: the core first, as load_unload.sh; round 3: none, the driver
# recovers by itself and registers a new ib_device), address, RDMA device.
reload() {
	if [ "$1" = 3 ]; then
		newdev() { _i=$($RDMA dev 2>/dev/null | awk -F: 'NR == 1 { print $1 }'); [ -n "$_i" ] && [ "$_i" != "$idx0" ]; }
		wait_for 600 newdev
	elif [ "$1" = 2 ]; then
		$MODPROBE scenic
		for _m in scenic_eth scenic_rdma scenic_scu; do $MODPROBE "$_m"; done
	else
		$MODPROBE scenic_rdma
	fi
	wait_for 100 find_iface >/dev/null
	IFACE=$(find_iface)
	addr_setup
	wait_rdma
}

peer_round() {
	_r=$1
	sync_peer "ut$_r-server" 60
	_t0=$(date +%s)
	timeout 120 $BW -d "$DEV" -x "$GIDX" -p $((PORT + 10 * _r)) -D 60 "$PEER4" >/tmp/ut.out 2>&1
	_rc=$?
	_dt=$(($(date +%s) - _t0))
	grep -E 'Failed status|error|Error' /tmp/ut.out | head -n 3 | sed 's/^/# ib_write_bw: /'
	tap_result "round $_r: this node's ib_write_bw into node 1 ends on an error completion after $_dt s (its QP went to ERR)" \
		"exit $_rc, $(tail -n 2 /tmp/ut.out | tr '\n' ';')" \
		sh -c "[ $_rc -ne 0 ] && [ $_dt -lt 50 ] && grep -q 'Failed status' /tmp/ut.out"
	sync_peer "ut$_r-back" 180
	timeout 120 $BW -d "$DEV" -x "$GIDX" -p $((PORT + 10 * _r + 1)) -n 200 >/tmp/ut-srv.out 2>&1 &
	_srv=$!
	sync_peer "ut$_r-check" 60
	wait $_srv
	_rc=$?
	tap_result "round $_r: afterwards node 1's ib_write_bw -n 200 into this node passes" \
		"exit $_rc, $(tail -n 2 /tmp/ut-srv.out | tr '\n' ';')" [ $_rc = 0 ]
	sync_peer "ut$_r-end" 120
}

if [ "$NODE" = 2 ]; then
	peer_round 1
	peer_round 2
	peer_round 3
	tap_done
fi

BDF=$(scenic_bdf)
vectors() { grep -c "scenic.*@$BDF" /proc/interrupts; }
for r in 1 2 3; do
	timeout 150 $BW -d "$DEV" -x "$GIDX" -p $((PORT + 10 * r)) -D 60 >/tmp/ut-srv.out 2>&1 &
	srv=$!
	sleep 1
	sync_peer "ut$r-server" 60
	p0=$(rstat rx_pkts)
	flowing() { [ "$(rstat rx_pkts)" -gt "$((${p0:-0} + 100))" ]; }
	wait_for 200 flowing
	p1=$(rstat rx_pkts)
	tap_result "round $r: WRITEs from node 2 flow (rx_pkts ${p0:-?} -> ${p1:-?})" \
		"rx_pkts did not rise by 100 in 20 s: $(tail -n 2 /tmp/ut-srv.out | tr '\n' ';')" \
		[ "${p1:-0}" -gt "$((${p0:-0} + 100))" ]
	t0=$(date +%s)
	idx0=$($RDMA dev 2>/dev/null | awk -F: 'NR == 1 { print $1 }')
	rd0=$(dmesg_count 'reset done')
	if [ $r = 3 ]; then
		what="function-level reset (echo 1 > .../reset)"
		timeout 60 sh -c "echo 1 > /sys/bus/pci/devices/$BDF/reset"
		rc=$?
	elif [ $r = 1 ]; then
		what="rmmod scenic_rdma"
		timeout 60 $RMMOD scenic_rdma
		rc=$?
	else
		what="unbind from scenic.ko, then rmmod every scenic module"
		timeout 60 sh -c "echo $BDF > /sys/bus/pci/drivers/scenic/unbind"
		rc=$?
		for m in scenic_rdma scenic_eth scenic_scu scenic; do
			[ -d /sys/module/$m ] && { timeout 60 $RMMOD $m || rc=$?; }
		done
	fi
	tap_result "round $r: $what with a QP under traffic returns 0 within 60 s ($(($(date +%s) - t0)) s)" \
		"exit $rc" [ $rc = 0 ]
	left=$(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' ')
	if [ $r = 3 ]; then
		more_resets() { [ "$(dmesg_count 'reset done')" -gt "$rd0" ]; }
		tap_result "round 3: dmesg: reset done" "no new 'reset done' line" wait_for 300 more_resets
	elif [ $r = 1 ]; then
		tap_result "round 1: scenic_rdma gone, no ib_device left ($left)" "$left" \
			sh -c "[ ! -d /sys/module/scenic_rdma ] && [ -z '$left' ]"
	else
		mods=$(ls -d /sys/module/scenic* 2>/dev/null | tr '\n' ' ')
		tap_result "round 2: no scenic module, ib_device or interrupt vector left" \
			"modules '$mods', devices '$left', $(vectors) vectors" \
			sh -c "[ -z '$mods' ] && [ -z '$left' ] && [ $(vectors) = 0 ]"
	fi
	# the disassociated server: it may wait for its peer's socket; it has nothing left to do
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	reload $r
	tap_result "round $r: $DEV is back (index ${idx0:-?} -> $($RDMA dev 2>/dev/null | awk -F: 'NR == 1 { print $1 }')) with its RoCE v2 GID on $IFACE" \
		"no RDMA device: $($RDMA dev 2>&1 | tr '\n' ';')" wait_rdma
	sync_peer "ut$r-back" 180
	sleep 1
	sync_peer "ut$r-check" 60
	timeout 120 $BW -d "$DEV" -x "$GIDX" -p $((PORT + 10 * r + 1)) -n 200 "$PEER4" >/tmp/ut.out 2>&1
	rc=$?
	tap_result "round $r: ib_write_bw -n 200 x 64 KiB to node 2 on the new device passes" \
		"exit $rc, $(tail -n 2 /tmp/ut.out | tr '\n' ';')" [ $rc = 0 ]
	tap_result "round $r: ib_write_bw reports its bandwidth line" "$(tail -n 3 /tmp/ut.out | tr '\n' ';')" \
		grep -qE '^ *65536 +200 ' /tmp/ut.out
	sync_peer "ut$r-end" 120
done
tap_result "the card is bound to scenic again" "$BDF" sh -c "[ -e /sys/bus/pci/drivers/scenic/$BDF ]"
tap_result "kernel log: no WARN, BUG, oops or call trace" \
	"$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' | head -n 3 | tr '\n' ';')" \
	sh -c "! dmesg | grep -qE 'WARNING:|BUG:|Oops|Call Trace'"
tap_done
