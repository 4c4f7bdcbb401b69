#!/bin/sh
# SPDX-License-Identifier: MIT
# AEQ overflow, driver side (docs/admin-queue.md 4.3, 4.4; issue 16): node 1's card has
# -device scenic,fault-inject=on. event_overflow (event_overflow.c) stalls node 1's AEQ (debugfs
# inject_aeq_stall: the card drops and counts every event) while TLB misses (4 MiB transfers
# both ways through node 1's MR), a responder QP error, a requester QP error and an SQ drain
# happen, then un-stalls it (then a second move to SQD gets its own SQ_DRAINED). The driver
# must lose none of them: the transfers finish with the right data, each due async event
# reaches the application once (and none that was not due), aeq_overflows rises and the kernel
# log says so in one line per stall, without a splat. A second stall holds a QP error alone (no
# TLB miss pending to push the OVERFLOW out).
# Then the CEQ (ceq_overflow.c, node 1 alone, QPs looped back on its card): notifications for
# several CQs lost to a stalled CEQ (inject_ceq_stall), then every CQ's handler called after the
# OVERFLOW, every completion polled once with its data; and a QP pair and CQ destroyed while
# their events are owed by the stalled CEQ and AEQ, their numbers reused, the new ones getting
# none of the old ones' events.
# Then a card fatal error while the AEQ is stalled: the driver still recovers by itself.
. "$(dirname "$0")/lib.sh"
rig_only "node 1's card with fault-inject=on: debugfs AEQ stall and fatal error"

PORT=18790
EO=$(rdma_prog event_overflow)
CO=$(rdma_prog ceq_overflow)

# eo ARGS...: runs event_overflow (at most 150 s) and re-numbers its TAP lines (kselftest.h's
# "ok N name") into this script's; the program's exit status. co ARGS...: the same for
# ceq_overflow (at most 90 s).
eo() { tapped "$EO" 150 "$@"; }
co() { tapped "$CO" 90 "$@"; }
tapped() {
	_prog=$1 _limit=$2
	shift 2
	timeout "$_limit" "$_prog" "$@" >/tmp/eo.out 2>&1
	_eo_rc=$?
	tap_relay /tmp/eo.out event_overflow
	return $_eo_rc
}
# the programs' own TAP lines: 18 + 14 on node 1, 4 on node 2
if [ "$NODE" = 1 ]; then tap_plan 47; else tap_plan 5; fi
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

if [ "$NODE" = 2 ]; then
	sync_peer eo-start 60
	eo -s -d "$DEV" -p $PORT
	rc=$?
	tap_result "event_overflow (server) exits 0" "exit $rc" [ $rc = 0 ]
	sync_peer eo-done 300
	tap_done
fi

BDF=$(scenic_bdf)
DBG=/sys/kernel/debug/scenic/$BDF
LOST_RE='card events lost'
BAD_RE='WARNING:|BUG:|Oops|Call Trace:|INFO: task .* blocked'
ov0=$(rstat aeq_overflows)
rs0=$(rstat event_resyncs)
miss0=$(rstat tlb_misses)
lines0=$(dmesg | wc -l)
tap_result "inject_aeq_stall in debugfs (card with fault-inject=on)" "no $DBG/inject_aeq_stall" \
	[ -w "$DBG/inject_aeq_stall" ]
sync_peer eo-start 60
eo -c "$PEER4" -d "$DEV" -p $PORT -S "$DBG/inject_aeq_stall" -H 2000
rc=$?
# the card un-stalled even if the program died
echo 0 >"$DBG/inject_aeq_stall" 2>/dev/null
tap_result "event_overflow (client) exits 0" "exit $rc" [ $rc = 0 ]
ov1=$(rstat aeq_overflows)
rs1=$(rstat event_resyncs)
miss1=$(rstat tlb_misses)
tap_diag "aeq_overflows $ov0 -> $ov1, event_resyncs $rs0 -> $rs1, tlb_misses $miss0 -> $miss1," \
	"tlb_miss_dropped $(rstat tlb_miss_dropped), aeq_events $(rstat aeq_events)"
tap_result "aeq_overflows rose ($ov0 -> $ov1)" "rdma statistic: no overflow counted" \
	[ "${ov1:-0}" -gt "${ov0:-0}" ]
tap_result "event_resyncs rose ($rs0 -> $rs1): the rdma driver resynchronised" \
	"no rdma resync" [ "${rs1:-0}" -gt "${rs0:-0}" ]
new=$(dmesg | tail -n +$((lines0 + 1)))
echo "$new" | grep -i scenic | head -n 10 | sed 's/^/# dmesg: /'
n=$(echo "$new" | grep -c "$LOST_RE")
tap_result "dmesg: one line per stall says what happened ($n x '$LOST_RE')" \
	"$(echo "$new" | grep "$LOST_RE" | tr '\n' ';' | cut -c 1-300)" [ "$n" = 2 ]
tap_result "dmesg: no WARN, BUG, oops or call trace" \
	"$(echo "$new" | grep -E "$BAD_RE" | head -n 3 | tr '\n' ';')" \
	sh -c "! echo \"\$1\" | grep -qE '$BAD_RE'" - "$new"

# The CEQ: overflow while completions arrive on several CQs; destroy and number reuse while
# events are owed (ceq_overflow.c).
cov0=$(rstat ceq_overflows)
lines0=$(dmesg | wc -l)
t0=$(date +%s)
tap_result "inject_ceq_stall in debugfs" "no $DBG/inject_ceq_stall" [ -w "$DBG/inject_ceq_stall" ]
co -d "$DEV" -C "$DBG/inject_ceq_stall" -A "$DBG/inject_aeq_stall" -H 500
rc=$?
echo 0 >"$DBG/inject_ceq_stall" 2>/dev/null
echo 0 >"$DBG/inject_aeq_stall" 2>/dev/null
tap_result "ceq_overflow exits 0 ($(($(date +%s) - t0)) s)" "exit $rc" [ $rc = 0 ]
cov1=$(rstat ceq_overflows)
tap_result "ceq_overflows rose ($cov0 -> $cov1): the driver saw the CEQ's OVERFLOW" \
	"rdma statistic: no CEQ overflow counted" [ "${cov1:-0}" -gt "${cov0:-0}" ]
new=$(dmesg | tail -n +$((lines0 + 1)))
echo "$new" | grep -i scenic | head -n 10 | sed 's/^/# dmesg: /'
tap_result "dmesg: the driver says CQ notifications were lost" \
	"no 'CQ notifications lost' line" sh -c "echo \"\$1\" | grep -q 'CQ notifications lost'" - "$new"
tap_result "dmesg: no WARN, BUG, oops or call trace (CEQ part)" \
	"$(echo "$new" | grep -E "$BAD_RE" | head -n 3 | tr '\n' ';')" \
	sh -c "! echo \"\$1\" | grep -qE '$BAD_RE'" - "$new"

# A fatal error while the AEQ cannot take its CARD_FATAL entry: the card sets FATAL_STATUS
# first and raises the vector; the driver must still recover (docs/admin-queue.md 4.3).
rec0=$(dmesg | grep -c 'recovered from')
idx0=$($RDMA dev show "$DEV" 2>/dev/null | awk -F: 'NR == 1 { print $1 }')
echo 1 >"$DBG/inject_aeq_stall" && echo 1 >"$DBG/inject_fatal"
tap_result "inject_aeq_stall 1 then inject_fatal 1" "write failed" [ $? = 0 ]
wait_for 600 sh -c "[ \$(dmesg | grep -c 'recovered from') -gt $rec0 ]"
tap_result "recovered by itself within 60 s: $(dmesg | grep 'recovered from' | tail -n 1 | cut -c 1-120)" \
	"$(dmesg | grep -E 'card fault|recover' | tail -n 3 | tr '\n' ';')" \
	sh -c "[ \$(dmesg | grep -c 'recovered from') -gt $rec0 ]"
tap_result "the reset cleared the stall (inject_aeq_stall reads 0)" \
	"reads $(cat "$DBG/inject_aeq_stall" 2>&1)" [ "$(cat "$DBG/inject_aeq_stall" 2>/dev/null)" = 0 ]
wait_rdma
idx1=$($RDMA dev show "$DEV" 2>/dev/null | awk -F: 'NR == 1 { print $1 }')
tap_result "a new ib_device is up: $DEV index $idx0 -> ${idx1:-none}" "$($RDMA dev 2>&1 | tr '\n' ';')" \
	[ -n "$idx1" -a "$idx1" != "$idx0" ]
sync_peer eo-done 200
tap_done
