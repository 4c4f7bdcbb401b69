#!/bin/sh
# SPDX-License-Identifier: MIT
# RDMA payload through SCU slots between two nodes (docs/scu.md 3 "RDMA payload as built"):
# both cards hold the keyed-XOR test kind (xor.scu of selftests/scu/mkimages.py, docs/scu.md 8
# "Test kinds") in slots 1 and 2; SCENIC_DEFAULT_SCU puts ibv_rc_pingpong's QP on a slot; node 2
# is the server, node 1 the client. ibv_rc_pingpong -c sends zeros and its server checks the
# first byte of every page the client sent.
# 1. Keyed on one side only: the client's slot 1 has KEY_TX = KEY_RX = K, the server's QP is on
#    slot 2 (keys 0): every ping reaches the server XORed ("invalid data"), every pong is XORed
#    back at the client, so the client's buffer stays zeros and the next ping is XORed again.
#    (KEY_TX alone would alternate: the client would echo the XORed pong, which arrives as
#    zeros, and the server's check of its last message would depend on the iteration count.)
# 2. Keyed on both sides: both QPs on slot 1, KEY_TX = KEY_RX = K on both cards: the XOR on the
#    way out is undone on the way in, the bytes arrive identical.
# Each node checks its own slots' counters (scenicctl --json counters) for both rounds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scu/lib.sh"	# slot_ctr, scu_rdma_ready, SCU_IMAGES

SC=/usr/bin/scenicctl
IMG=$SCU_IMAGES/xor.scu
K=0x0123456789abcdef	# byte 0 (offset 0 of a page) is 0xef: never 0
SIZE=4096 ITERS=20
PP="timeout 120 /usr/bin/ibv_rc_pingpong -c -s $SIZE -n $ITERS"

# node 2 checks what its server received (2 results in round 1), node 1 its counter (1)
[ "$NODE" = 2 ] && tap_plan 6 || tap_plan 5
if [ ! -x "$SC" ] || [ ! -f "$IMG" ]; then
	tap_diag "scenicctl or $IMG missing (make runtime image)"
	tap_done
fi
scu_rdma_ready

# round SRV_SLOT CLI_SLOT PORT NAME: node 2 serves on SRV_SLOT, node 1 connects from CLI_SLOT;
# sets rc and out (this node's side).
round() {
	if [ "$NODE" = 2 ]; then
		SCENIC_DEFAULT_SCU=$1 $PP -d "$DEV" -g "$GIDX" -p "$3" >/tmp/scup.out 2>&1 &
		_pid=$!
		sync_peer "scup-$4-srv" 60
		wait $_pid
		rc=$?
	else
		sync_peer "scup-$4-srv" 60
		sleep 1
		SCENIC_DEFAULT_SCU=$2 $PP -d "$DEV" -g "$GIDX" -p "$3" "$PEER4" >/tmp/scup.out 2>&1
		rc=$?
	fi
	out=$(cat /tmp/scup.out)
	tap_diag "node $NODE: exit $rc: $(echo "$out" | tail -n 2 | tr '\n' ';')"
	sync_peer "scup-$4-done" 150
}

ok=1
for s in 1 2; do
	$SC load $s "$IMG" >/tmp/scup-load.out 2>&1 || ok=0
	tap_diag "node $NODE load $s: $(cat /tmp/scup-load.out)"
done
[ "$NODE" = 1 ] && { $SC csr write 1 1 $K >/dev/null && $SC csr write 1 2 $K >/dev/null || ok=0; }
key=$($SC csr read 1 1 2>&1)
[ "$NODE" = 1 ] && want=$K || want=0
tap_result "node $NODE: xor.scu in slots 1 and 2, slot 1 keys $want" "$key" \
	[ $ok = 1 -a "$((key))" = "$((want))" ]
sync_peer scup-loaded 120

# 1. one side keyed
tx1=$(slot_ctr 1 tx_bytes_out) rx2=$(slot_ctr 2 rx_bytes_out)
round 2 1 18900 one
n=$((SIZE * ITERS))
if [ "$NODE" = 2 ]; then
	tap_result "one side keyed: the server (slot 2, keys 0) sees the client's XORed bytes" \
		"$(echo "$out" | head -c 300)" sh -c 'echo "$1" | grep -q "invalid data"' - "$out"
	d=$(($(slot_ctr 2 rx_bytes_out) - rx2))
	tap_result "one side keyed: server slot 2 counted $n bytes out on RX (got $d)" "$d" [ "$d" -ge $n ]
else
	d=$(($(slot_ctr 1 tx_bytes_out) - tx1))
	tap_result "one side keyed: client slot 1 counted $n bytes out on TX (got $d)" "$d" [ "$d" -ge $n ]
fi

# 2. both sides keyed, both directions
$SC csr write 1 1 $K >/dev/null && $SC csr write 1 2 $K >/dev/null
tx1=$(slot_ctr 1 tx_bytes_out) rx1=$(slot_ctr 1 rx_bytes_out) b1=$(($($SC csr read 1 4)))
sync_peer scup-keyed 60
round 1 1 18901 both
tap_result "both sides keyed: ibv_rc_pingpong -c exits 0 on node $NODE" "exit $rc" [ "$rc" = 0 ]
tap_result "both sides keyed: identical bytes (no invalid data on node $NODE)" \
	"$(echo "$out" | grep invalid | head -n 2)" sh -c '! echo "$1" | grep -q "invalid data"' - "$out"
tx=$(($(slot_ctr 1 tx_bytes_out) - tx1)) rx=$(($(slot_ctr 1 rx_bytes_out) - rx1))
b=$(($($SC csr read 1 4) - b1))
tap_diag "node $NODE slot 1: tx $tx rx $rx, SCU BYTES +$b"
tap_result "both sides keyed: node $NODE slot 1 counted >= $n bytes out on TX and on RX, its SCU >= $((2 * n))" \
	"tx $tx rx $rx bytes $b" [ "$tx" -ge $n -a "$rx" -ge $n -a "$b" -ge $((2 * n)) ]

sync_peer scup-end 60
for s in 1 2; do $SC unload $s >/dev/null 2>&1; done
tap_done
