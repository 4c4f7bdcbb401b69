#!/bin/sh
# SPDX-License-Identifier: MIT
# Behaviours 8 (ACK coalescing, implicit ACKs) and 11 (malformed requests: Invalid Request NAK)
# of issue 6 with hand-made RoCE v2 frames: roce_raw (selftests/rdma/roce_raw.c) plays one end of
# each RC connection with AF_PACKET frames, a real device the other (verbs, roce_raw -s). Each
# check is one TAP line with its expected outcome in the name.
#
# Needs the rdma-conform-interop rig: only the virtio-net node can capture RoCE frames (a SCENIC
# card's engine consumes UDP 4791).
#   1. node 1's SCENIC card serves; node 2 is the raw side on its test interface, with raw QPNs
#      (0x5a0000..) that rxe0, which shares the interface, never owns (it drops their frames).
#   2. node 2 alone, against Linux rxe: rxe_veth on vethA (init netns, 10.9.0.1), the raw side
#      on its peer vethB in the netns rawns (10.9.0.2).
. "$(dirname "$0")/lib.sh"
rig_only "a virtio-net + rxe peer that captures RoCE frames"

ROCE_RAW=$(rdma_prog roce_raw)
PORT=18950
NS=rawns
RXE_DEV=rxe_veth
P=$($ROCE_RAW -P) || P=0
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

if is_scenic; then
	tap_plan 1
	if peer_is_scenic; then
		tap_skip "roce_raw server (device $DEV)" "the peer is a SCENIC card: no node can capture RoCE frames"
		tap_done
	fi
	sync_peer raw-ready 60
	out=$(timeout 120 $ROCE_RAW -s -d "$DEV" -p $PORT 2>&1)
	rc=$?
	tap_result "roce_raw server (device $DEV) ran to the end" "exit $rc: $out" [ $rc = 0 ]
	sync_peer raw-done 240
	tap_done
fi

tap_plan $((2 * (P + 1) + 1))

# raw_tap FILE: the TAP lines of a roce_raw client run (kselftest.h's "ok N name", "not ok N
# name", "ok N # SKIP name"), renumbered into this script's stream; RAW_N: how many there were.
raw_tap() {
	RAW_N=0
	while IFS= read -r _l; do
		case $_l in
		"ok "*"# SKIP "*)
			RAW_N=$((RAW_N + 1))
			TAP_N=$((TAP_N + 1))
			echo "ok $TAP_N # SKIP ${_l#ok *# SKIP }" ;;
		"ok "*)
			RAW_N=$((RAW_N + 1))
			_n=${_l#ok *[0-9] }
			tap_ok "${_n#- }" ;;
		"not ok "*)
			RAW_N=$((RAW_N + 1))
			TAP_N=$((TAP_N + 1))
			TAP_FAILED=$((TAP_FAILED + 1))
			_n=${_l#not ok *[0-9] }
			echo "not ok $TAP_N - ${_n#- }" ;;
		"TAP version"* | 1..*) ;;
		"#"*) echo "$_l" ;;
		*) tap_diag "$_l" ;;
		esac
	done <"$1"
}
# ran WHAT RC: roce_raw ended by itself (0: all passed, 1: a check failed) after all its checks.
ran() {
	tap_result "roce_raw against $1 ran to the end ($P checks)" "exit $2, $RAW_N checks" \
		[ "$2" -le 1 -a "$RAW_N" = "$P" ]
}

# 1. the SCENIC card of node 1 as the responder and as the requester
sync_peer raw-ready 60
sleep 1
t0=$(date +%s)
timeout 120 $ROCE_RAW -c "$PEER4" -i "$IFACE" -p $PORT >/tmp/roce_raw.out 2>&1
rc=$?
raw_tap /tmp/roce_raw.out
ran "SCENIC ($PEER4)" $rc
tap_diag "SCENIC part: $(($(date +%s) - t0)) s"

# 2. Linux rxe across a veth pair, the raw side in its own network namespace
t0=$(date +%s)
rxe_gid() { grep -q '0000:0000:0000:0000:0000:ffff:0a09:0001' /sys/class/infiniband/$RXE_DEV/ports/1/gids/* 2>/dev/null; }
setup_veth() {
	$MODPROBE veth || return 1
	$IP netns add $NS || return 1
	$IP link add vethA type veth peer name vethB || return 1
	$IP link set vethB netns $NS || return 1
	$IP addr add 10.9.0.1/24 dev vethA && $IP link set vethA up || return 1
	$IP netns exec $NS $IP link set lo up
	$IP netns exec $NS $IP addr add 10.9.0.2/24 dev vethB || return 1
	$IP netns exec $NS $IP link set vethB up || return 1
	$RDMA link add $RXE_DEV type rxe netdev vethA || return 1
	wait_for 100 rxe_gid
}
if out=$(setup_veth 2>&1); then
	tap_ok "rxe on a veth pair: $RXE_DEV on vethA (10.9.0.1), raw side on vethB in netns $NS (10.9.0.2)"
	timeout 120 $ROCE_RAW -s -d $RXE_DEV -p $((PORT + 1)) >/tmp/roce_raw_srv.out 2>&1 &
	spid=$!
	sleep 0.5
	timeout 120 $IP netns exec $NS $ROCE_RAW -c 10.9.0.1 -i vethB -p $((PORT + 1)) \
		>/tmp/roce_raw.out 2>&1
	rc=$?
	wait $spid
	src=$?
	raw_tap /tmp/roce_raw.out
	ran "rxe ($RXE_DEV)" $rc
	[ $src = 0 ] || tap_diag "roce_raw server on $RXE_DEV: exit $src: $(cat /tmp/roce_raw_srv.out)"
else
	tap_fail "rxe on a veth pair: $RXE_DEV on vethA, raw side on vethB in netns $NS" "$out"
fi
$RDMA link delete $RXE_DEV 2>/dev/null
$IP link del vethA 2>/dev/null
$IP netns del $NS 2>/dev/null
tap_diag "rxe part: $(($(date +%s) - t0)) s"
sync_peer raw-done 240
tap_done
