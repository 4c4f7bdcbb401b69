#!/bin/sh
# SPDX-License-Identifier: MIT
# A dead card leaves host memory alone: node 1's card gets a forced fatal (debugfs inject_fatal)
# under ib_write_bw + ping -f with the health reporter's auto_recover off, so the dead state
# holds. ib_write_bw keeps its QP and its mapped doorbells; the card's engines must still neither
# send nor write completions: the driver cleared bus mastering on entering the dead state (the
# model's DMA and MSI-X then fail, counted in the engines' DMA error counters). The card's
# counters (debugfs regs) must not move for REC_DEAD_S seconds; then `devlink health recover`
# sets bus mastering again with the re-initialised card and rec_after checks that traffic is
# back (docs/recovery.md).
REC_NAME=quiet
REC_PORT0=18690
REC_DEAD_S=${REC_DEAD_S:-5}	# how long the dead card is watched
. "$(dirname "$0")/recover_lib.sh"

# counters of node 1's card that move only when it sends, or writes frames or CQEs to memory
QUIET_REGS="rdma.TX_PKTS rdma.CQE_WRITTEN eth.TX_FRAMES eth.RX_FRAMES"

if [ "$NODE" = 1 ]; then tap_plan 18; else tap_plan 4; fi
rec_setup

state() { awk '$1 == "state" { print $2 }' "$DBG/health" 2>/dev/null; }
is_down() { [ "$(state)" = down ]; }
# counters: "NAME=VALUE ..." of QUIET_REGS, read from the debugfs register dump
counters() {
	awk -v want="$QUIET_REGS" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) k[w[i]] = i }
		$1 in k { v[k[$1]] = $3 }
		END { for (i = 1; i <= n; i++) printf "%s%s=%s", (i > 1 ? " " : ""), w[i], (i in v ? v[i] : "?") }' \
		"$DBG/regs" 2>/dev/null
}
# master: PCI_COMMAND of the card in hex (bit 2: bus master), from its config space in sysfs
master() { od -An -tx2 -j4 -N2 "/sys/bus/pci/devices/$BDF/config" 2>/dev/null | tr -d ' '; }

if [ "$NODE" = 1 ]; then
	tap_result "card $BDF with fault injection (debugfs $DBG)" \
		"no scenic card or no inject_fatal file" [ -n "$BDF" -a -e "$DBG/inject_fatal" ]
	tap_result "devlink health set auto_recover false: the dead state holds" \
		"$($DEVLINK health set "$DL" reporter card grace_period 0 auto_recover false 2>&1)" \
		$DEVLINK health set "$DL" reporter card grace_period 0 auto_recover false
fi
rec_t "start"
rec_traffic_start "$REC_PORT0"
rec_t "traffic runs"
if [ "$NODE" = 1 ]; then
	_before=$(rec_count 'recovered from')
	tap_result "echo 1 > inject_fatal" "write failed" sh -c "echo 1 > $DBG/inject_fatal"
	tap_result "health: state down, no automatic recovery" "$(tr '\n' ';' <"$DBG/health")" \
		wait_for 100 is_down
	# what was in flight when the fault hit has landed or failed by now
	sleep 1
	_c0=$(counters)
	_m0=$(master)
	tap_diag "dead: counters $_c0, PCI COMMAND ${_m0:-?}"
	sleep "$REC_DEAD_S"
	_c1=$(counters)
	tap_result "the dead card sends and writes nothing for $REC_DEAD_S s under traffic ($_c1)" \
		"counters moved: $_c0 -> $_c1" \
		sh -c "[ '$_c0' = '$_c1' ] && ! echo '$_c0' | grep -q '?'"
	# PCI_COMMAND bit 2: bus master
	tap_result "bus mastering is off while dead (PCI COMMAND ${_m0:-?})" "PCI COMMAND ${_m0:-unreadable}: the bus master bit (4) is set" \
		sh -c "[ -n '$_m0' ] && [ \$((0x$_m0 & 4)) = 0 ]"
	tap_result "still down after $REC_DEAD_S s ($(state))" "$(tr '\n' ';' <"$DBG/health")" is_down
	_out=$($DEVLINK health recover "$DL" reporter card 2>&1)
	_rc=$?
	tap_result "devlink health recover: exit 0, card recovered" "exit $_rc: $_out" \
		sh -c "[ $_rc = 0 ] && [ $(rec_count 'recovered from') -gt $_before ]"
	_m1=$(master)
	$DEVLINK health set "$DL" reporter card auto_recover true 2>/dev/null
	tap_result "bus mastering is on again (PCI COMMAND ${_m1:-?})" "PCI COMMAND ${_m1:-unreadable}: the bus master bit (4) is clear" \
		sh -c "[ -n '$_m1' ] && [ \$((0x$_m1 & 4)) = 4 ]"
	sync_peer "$REC_NAME-recovered" 120
else
	tap_ok "serving ib_write_bw to node 1 ($DEV)"
	sync_peer "$REC_NAME-recovered" $((REC_DEAD_S + 120))
fi
rec_after
tap_done
