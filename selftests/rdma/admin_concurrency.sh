#!/bin/sh
# SPDX-License-Identifier: MIT
# The admin queue under concurrency (issue 16): 16 processes create, connect and destroy QPs and
# register and deregister MRs on this node's card at the same time (qp_rate -n 16 each). Every
# process succeeds with every QP verified in RTS, the admin counters moved by at least the commands
# issued, none failed or timed out, and admin_in_flight is back to 0.
. "$(dirname "$0")/lib.sh"

P=16
N=16
tap_plan 6
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

# the value after NAME in `rdma statistic show` (name value pairs)
stat() {
	$RDMA statistic show link "${DEV:-scenic_0}/1" 2>/dev/null | tr -s ' \t\n' '\n' |
		awk -v k="$1" 'p == k { print; exit } { p = $0 }'
}

cmds0=$(stat admin_cmds)
errs0=$(stat admin_cmd_errors)
tmo0=$(stat admin_cmd_timeouts)
dir=$(mktemp -d)
i=0
while [ $i -lt $P ]; do
	( timeout 100 "$QP_RATE" -d "${DEV:-scenic_0}" -n $N -s 16 >"$dir/$i.out" 2>&1
	  echo $? >"$dir/$i.rc" ) &
	i=$((i + 1))
done
wait
ok=0
verified=0
i=0
while [ $i -lt $P ]; do
	[ "$(cat "$dir/$i.rc" 2>/dev/null)" = 0 ] && ok=$((ok + 1))
	grep -qx "verified $N/$N QPs in RTS with their dest QPN" "$dir/$i.out" &&
		verified=$((verified + 1))
	i=$((i + 1))
done
fail=$(for f in "$dir"/*.out; do grep -v -E '^(create_qp|connect|setup_|destroy_qp|reg_mr|dereg_mr|verified)' "$f"; done | head -n 5)
tap_result "$P concurrent qp_rate -n $N processes exit 0" "$ok/$P exited 0: $fail" [ "$ok" = $P ]
tap_result "every process verified its $N QPs in RTS" "$verified/$P" [ "$verified" = $P ]
cmds1=$(stat admin_cmds)
errs1=$(stat admin_cmd_errors)
tmo1=$(stat admin_cmd_timeouts)
flight=$(stat admin_in_flight)
# at least CREATE_QP, DESTROY_QP, REG_MR and DEREG_MR for every QP and MR of every process
need=$((P * N * 4))
tap_result "admin_cmds rose by at least $need" "admin_cmds $cmds0 -> $cmds1" \
	sh -c '[ -n "$2" ] && [ $(($2 - $1)) -ge $3 ]' - "${cmds0:-0}" "$cmds1" "$need"
tap_result "no admin command failed" "admin_cmd_errors $errs0 -> $errs1" \
	sh -c '[ -n "$2" ] && [ "$1" = "$2" ]' - "$errs0" "$errs1"
tap_result "no admin command timed out" "admin_cmd_timeouts $tmo0 -> $tmo1" \
	sh -c '[ -n "$2" ] && [ "$1" = "$2" ]' - "$tmo0" "$tmo1"
tap_result "admin_in_flight is back to 0" "admin_in_flight '$flight'" [ "$flight" = 0 ]
tap_diag "$(cat /sys/kernel/debug/scenic/*/admin/stats 2>/dev/null | tr '\n' ';')"
rm -rf "$dir"
sync_peer admin-concurrency-done 120
tap_done
