#!/bin/sh
# SPDX-License-Identifier: MIT
# devlink health reporter "card" and devlink reload under RDMA and Ethernet traffic (node 1's
# card, -device scenic,fault-inject=on): show, diagnose; a second card fault within the grace
# period is reported and not recovered (state error, dump with the trigger, the last commands
# and the last AEQ events: the injected CARD_FATAL among them); `devlink health recover` and `devlink dev reload` bring the card back; then users
# see what rec_after checks (docs/recovery.md).
REC_NAME=dlhealth
REC_PORT0=18650
. "$(dirname "$0")/recover_lib.sh"

if [ "$NODE" = 1 ]; then tap_plan 21; else tap_plan 4; fi
rec_setup

state() { $DEVLINK health show "$DL" reporter card 2>&1 | tr '\n' ' '; }

if [ "$NODE" = 1 ]; then
	tap_result "card $BDF with fault injection (debugfs $DBG)" \
		"no scenic card or no inject_fatal file" [ -n "$BDF" -a -e "$DBG/inject_fatal" ]
	s=$(state)
	tap_result "devlink health show: reporter card, state healthy ($s)" "$s" \
		sh -c "echo '$s' | grep -q 'card' && echo '$s' | grep -q 'state healthy'"
	d=$($DEVLINK health diagnose "$DL" reporter card 2>&1 | tr '\n' ' ')
	tap_diag "diagnose: $d"
	tap_result "devlink health diagnose: fatal status, heartbeat, admin queue, counters" "$d" \
		sh -c "echo '$d' | grep -q fatal_status && echo '$d' | grep -q heartbeat && echo '$d' | grep -q admin_queue && echo '$d' | grep -q admin_cmds"
fi
rec_traffic_start "$REC_PORT0"
if [ "$NODE" = 1 ]; then
	tap_result "devlink health set grace_period 60000 auto_recover true" "$($DEVLINK health set "$DL" reporter card grace_period 60000 auto_recover true 2>&1)" \
		$DEVLINK health set "$DL" reporter card grace_period 60000 auto_recover true
	# devlink keeps the dump of an earlier fault (an earlier test's) until it is cleared
	$DEVLINK health dump clear "$DL" reporter card 2>/dev/null
	na0=$(rec_count 'not recovered automatically')
	rc0=$(rec_count 'recovered from')
	echo 1 >"$DBG/inject_fatal"
	either() { [ "$(rec_count 'not recovered automatically')" -gt "$na0" ] ||
		[ "$(rec_count 'recovered from')" -gt "$rc0" ]; }
	wait_for 300 either
	if [ "$(rec_count 'not recovered automatically')" -eq "$na0" ]; then
		# the previous recovery was more than a grace period ago: this one was the first
		tap_diag "first fault recovered automatically; a second one follows"
		wait_rdma
		sleep 2
		echo 1 >"$DBG/inject_fatal"
	fi
	more_na() { [ "$(rec_count 'not recovered automatically')" -gt "$na0" ]; }
	tap_result "a second fault within the grace period is reported, not recovered" \
		"$(dmesg | grep -E 'card fault|recover' | tail -n 3 | tr '\n' ';')" wait_for 300 more_na
	dmesg | grep 'not recovered automatically' | tail -n 1 | sed 's/^/# dmesg: /'
	s=$(state)
	tap_result "devlink health show: state error ($s)" "$s" sh -c "echo '$s' | grep -q 'state error'"
	d=$($DEVLINK health dump show "$DL" reporter card 2>&1 | tr '\n' ' ')
	tap_diag "dump: $(echo "$d" | cut -c 1-400)"
	tap_result "devlink health dump: trigger injected, fatal status, the last commands" "$d" \
		sh -c "echo '$d' | grep -q 'trigger' && echo '$d' | grep -q injected && echo '$d' | grep -q commands && echo '$d' | grep -q opcode"
	# the event history: every injected fatal of this test is a card_fatal event with code
	# injected (5); node 1's card has had no other fault since the last dump was cleared
	ev=$(echo "$d" | sed -n 's/.*events//p')
	tap_diag "dump events: $(echo "$ev" | cut -c 1-600)"
	nf=$(echo "$ev" | grep -o -E 'type:? card_fatal code_name:? injected code:? 5' | wc -l)
	tap_result "devlink health dump: the last AEQ events, the injected fatal among them ($nf card_fatal injected)" \
		"$(echo "$ev" | cut -c 1-300)" [ "$nf" -ge 1 ]
	nl=$(echo "$ev" | grep -o -E 'type:? link' | wc -l)
	nall=$(echo "$ev" | grep -o 'time_ns' | wc -l)
	tap_result "devlink health dump: at most 32 events ($nall), with time, seq, type, code, object ($nl link)" \
		"$(echo "$ev" | cut -c 1-300)" \
		sh -c "[ $nall -ge 1 ] && [ $nall -le 32 ] && echo '$ev' | grep -q 'seq' && echo '$ev' | grep -q 'obj'"
	r0=$(rec_count 'recovered from')
	out=$($DEVLINK health recover "$DL" reporter card 2>&1)
	rc=$?
	tap_result "devlink health recover: exit 0, card recovered" "exit $rc: $out" \
		[ $rc = 0 -a "$(rec_count 'recovered from')" -gt "$r0" ]
	wait_rdma
	r0=$(rec_count 'recovered from devlink_reload')
	out=$($DEVLINK dev reload "$DL" action driver_reinit 2>&1)
	rc=$?
	tap_result "devlink dev reload action driver_reinit: exit 0, card recovered ($out)" "exit $rc: $out" \
		[ $rc = 0 -a "$(rec_count 'recovered from devlink_reload')" -gt "$r0" ]
	s=$(state)
	tap_result "devlink health show: state healthy again" "$s" sh -c "echo '$s' | grep -q 'state healthy'"
	sync_peer "$REC_NAME-recovered" 120
else
	tap_ok "serving ib_write_bw to node 1 ($DEV)"
	sync_peer "$REC_NAME-recovered" 240
fi
rec_after
tap_done
