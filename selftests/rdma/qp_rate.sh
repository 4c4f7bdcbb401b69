#!/bin/sh
# SPDX-License-Identifier: MIT
# qp_rate (selftests/rdma/qp_rate.c, the program of tools/bench/qp-rate) with 64 QPs on this
# node's own device: every verb succeeds, every phase prints its line with its timing, and every
# QP reached RTS with the dest QPN it was given. Both nodes run it, each on its own card.
. "$(dirname "$0")/lib.sh"

N=64
tap_plan 8
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
out=$(timeout 40 "$QP_RATE" -d "${DEV:-scenic_0}" -n $N 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
tap_result "qp_rate -n $N on ${DEV:-?} exits 0" "exit $rc" [ $rc = 0 ]
for p in create_qp connect setup_$N destroy_qp reg_mr dereg_mr; do
	tap_result "$p: line with N=$N and its timing" "no such line" \
		sh -c 'echo "$1" | grep -Eq "^$2 N=$3 total_ms=[0-9]+\.[0-9]+ per_op_us=[0-9]+\.[0-9]+$"' \
		- "$out" "$p" "$N"
done
tap_result "all $N QPs verified in RTS with their dest QPN (ibv_query_qp)" \
	"$(echo "$out" | grep '^verified')" \
	sh -c 'echo "$1" | grep -qx "verified $2/$2 QPs in RTS with their dest QPN"' - "$out" "$N"
sync_peer qp-rate-done 60
tap_done
