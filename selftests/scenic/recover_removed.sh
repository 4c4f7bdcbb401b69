#!/bin/sh
# SPDX-License-Identifier: MIT
# Surprise removal under RDMA and Ethernet traffic: node 1 writes debugfs inject_link_down
# (FAULT_INJECT.link_down: from then on every BAR read returns all-ones, writes are ignored and
# the card neither DMAs nor interrupts, as when its PCIe link goes down). The driver must see
# `removed` and stay dead: no recovery attempt, no loop, no flood of log lines; applications get
# IB_EVENT_DEVICE_FATAL and errors, never a hang; the modules still unload. It kills node 1's
# card for the rest of the boot: the last script of the recover boot.
REC_NAME=removed
REC_PORT0=18680
REC_QUIET_S=${REC_QUIET_S:-10}	# how long the dead card is watched for loops and log lines
REC_LOG_MAX=${REC_LOG_MAX:-30}	# kernel log lines allowed from the removal on (all of them)
. "$(dirname "$0")/recover_lib.sh"

if [ "$NODE" = 1 ]; then tap_plan 13; else tap_plan 2; fi
rec_setup

state() { awk '$1 == "state" { print $2 }' "$DBG/health" 2>/dev/null; }
gone_logged() { [ "$(rec_count 'card reads all-ones')" -gt 0 ]; }

if [ "$NODE" = 1 ]; then
	tap_result "card $BDF with fault injection (debugfs $DBG)" \
		"no scenic card or no inject_link_down file" [ -n "$BDF" -a -e "$DBG/inject_link_down" ]
fi
rec_traffic_start "$REC_PORT0"
# node 1's card leaves the test network for the rest of the boot (tools/vm/guest/init)
[ "$VM_RIG" = 1 ] && mkdir -p /run/scenicvm && : >/run/scenicvm/no-end-barrier
if [ "$NODE" = 1 ]; then
	_rc0=$(rec_count 'recovered from')
	_rs0=$(rec_count 'soft reset did not help|recovery from .* failed|card fault')
	_l0=$(dmesg | wc -l)
	_t0=$(cut -d ' ' -f 1 /proc/uptime)
	tap_result "echo 1 > inject_link_down" "write failed (card without fault-inject=on?)" \
		sh -c "echo 1 > $DBG/inject_link_down"
	wait_for 100 gone_logged
	_t1=$(cut -d ' ' -f 1 /proc/uptime)
	tap_result "dmesg: the card reads all-ones, seen after $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }') s" \
		"$(dmesg | tail -n 3 | tr '\n' ';')" gone_logged
	tap_result "health: state removed ($(state))" "$(tr '\n' ';' <"$DBG/health")" [ "$(state)" = removed ]
	tap_result "the application got IB_EVENT_DEVICE_FATAL (ibv_asyncwatch)" \
		"asyncwatch: $(tr '\n' ';' </tmp/rec-async.out | cut -c 1-200)" rec_async_fatal
	rec_cmd_during_fault
	tap_result "a new verb fails, does not hang (ibv_rc_pingpong exit $REC_CMD_RC after $REC_CMD_S s)" \
		"$(head -n 3 /tmp/rec-cmd.out | tr '\n' ';')" \
		[ "$REC_CMD_RC" != 0 -a "$REC_CMD_RC" != 124 -a "${REC_CMD_S%.*}" -lt 15 ]
	_ip=$($IP link show "$IFACE" 2>&1 | head -n 1)
	_car=$(cat "/sys/class/net/$IFACE/carrier" 2>&1)
	# ethtool -i fails on a detached netdev: the auxiliary device's driver link instead
	_drv=$(for _a in /sys/bus/auxiliary/devices/scenic.eth.*; do
		basename "$(readlink "$_a/driver")"; done 2>/dev/null | head -n 1)
	_ifi=$(cat "/sys/class/net/$IFACE/ifindex" 2>/dev/null)
	tap_result "eth stays bound (${_drv:-no driver}, $IFACE ifindex $REC_IFINDEX -> ${_ifi:-none}) without a carrier (carrier ${_car:-?})" \
		"$_ip" sh -c "case '$_drv' in scenic_eth*) ;; *) exit 1 ;; esac && [ '$_ifi' = '$REC_IFINDEX' -a '$_car' = 0 ]"
	rec_traffic_stop
	tap_diag "watching the dead card for $REC_QUIET_S s"
	sleep "$REC_QUIET_S"
	tap_result "no recovery attempted (no new 'recovered from', 'card fault' or reset line)" \
		"$(dmesg | grep -E 'recover|reset|card fault' | tail -n 3 | tr '\n' ';')" \
		[ "$(rec_count 'recovered from')" = "$_rc0" -a \
		  "$(rec_count 'soft reset did not help|recovery from .* failed|card fault')" = "$_rs0" ]
	_n=$(($(dmesg | wc -l) - _l0))
	tap_result "one 'all-ones' line and $_n kernel log lines in all since the removal (at most $REC_LOG_MAX)" \
		"$(dmesg | tail -n 5 | tr '\n' ';')" \
		[ "$(rec_count 'card reads all-ones')" = 1 -a "$_n" -le "$REC_LOG_MAX" ]
	dmesg | tail -n "$_n" | sed 's/^/# dmesg: /' | tail -n 20
	_r0=$(cut -d ' ' -f 1 /proc/uptime)
	timeout 60 $RMMOD scenic_scu scenic_rdma scenic_eth scenic >/tmp/rec-rmmod.out 2>&1
	_rc=$?
	_rs=$(awk -v a="$_r0" -v b="$(cut -d ' ' -f 1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
	tap_result "rmmod scenic_scu scenic_rdma scenic_eth scenic: exit 0 after $_rs s" \
		"exit $_rc: $(tr '\n' ';' </tmp/rec-rmmod.out)" [ $_rc = 0 ]
	tap_result "the modules are gone (lsmod)" "$(grep scenic /proc/modules | tr '\n' ';')" \
		sh -c "! grep -q '^scenic' /proc/modules"
	tap_result "kernel log: no WARN/BUG/oops/lockdep splat" "see the dmesg lines above" rec_dmesg_clean
else
	# the barrier runs over the test network, which node 1's card takes down with it: no
	# barrier after the traffic started, nor at the end of the boot
	tap_ok "serving ib_write_bw to node 1 ($DEV)"
	sleep 20
	rec_traffic_stop
	tap_result "kernel log: no WARN/BUG/oops/lockdep splat" "see the dmesg lines above" rec_dmesg_clean
fi
tap_done
