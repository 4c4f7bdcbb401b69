#!/bin/sh
# SPDX-License-Identifier: MIT
# ibv_rc_pingpong with data validation (-c), each node once as the server and once as the client.
. "$(dirname "$0")/lib.sh"

PINGPONG=/usr/bin/ibv_rc_pingpong
tap_plan 6
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
sync_peer pp-ready 60

# round SERVER_NODE SIZE ITERS [-e: completion events (ibv_req_notify_cq + channel)]
round() {
	if [ "$NODE" = "$1" ]; then
		out=$(timeout 120 $PINGPONG -d "$DEV" -g "${G:-$GIDX}" -c -s "$2" -n "$3" $4 2>&1)
	else
		sleep 1
		out=$(timeout 120 $PINGPONG -d "$DEV" -g "${G:-$GIDX}" -c -s "$2" -n "$3" $4 "$PEER4" 2>&1)
	fi
	rc=$?
	tap_diag "$(echo "$out" | grep -E 'bytes in|iters in|error|Failed|failed' | head -n 3 | tr '\n' ';')"
	tap_result "ibv_rc_pingpong -c -s $2 -n $3${4:+ $4} -g ${G:-$GIDX}, server node $1, this node $NODE" \
		"exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ';')" \
		sh -c '[ "$1" = 0 ] && echo "$2" | grep -q "$3 iters in"' - "$rc" "$out" "$3"
	sync_peer "pp-$1-$2$4-${G:-v4}" 150
}
round 2 4096 200
round 1 4096 200
round 2 65536 50
round 1 1 500
round 2 4096 100 -e
# RoCE v2 over IPv6: the link-local GID (the GRH / IPv6 header path of card and driver)
G=$(gid6_index "$DEV") || tap_diag "no RoCE v2 IPv6 link-local GID"
round 1 4096 100 ""
tap_done
