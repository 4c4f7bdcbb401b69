#!/bin/sh
# SPDX-License-Identifier: MIT
# RDMA payload through an SCU slot (docs/scu.md 3 "RDMA payload as built"), on the card's
# loopback (one node: both QPs on this card, its own address): slot 1 and slot 2 hold the
# keyed-XOR test kind (xor.scu of mkimages.py, docs/scu.md 8 "Test kinds") and
# SCENIC_DEFAULT_SCU puts ibv_rc_pingpong's QP on a slot. ibv_rc_pingpong -c fills its buffers
# with zeros; its server checks the first byte of every page the client sent (only that
# direction is checked).
# 1. Both QPs on slot 1, KEY_TX = KEY_RX = K: each message is XORed on its way out and back on
#    its way in: the data arrives intact, and the slot counted every byte in both directions.
# 2. Client on slot 1 (KEY_TX = K), server on slot 2 (keys 0): the server gets the client's
#    zeros XORed once ("invalid data"); 3. server on slot 1 (KEY_RX = K), client on slot 2: the
#    same, by the receiver's key; slot 2 counted what passed it.
. "$(dirname "$0")/../rdma/lib.sh"
. "$(dirname "$0")/lib.sh"	# kernel_log_bad, SCU_IMAGES

SC=/usr/bin/scenicctl
IMG=$SCU_IMAGES/xor.scu
K=0x0123456789abcdef	# byte 0 (offset 0 of a page) is 0xef: never 0
PP="timeout 120 /usr/bin/ibv_rc_pingpong -c -s 4096 -n 20"
SIZE=4096 ITERS=20

tap_plan 9
dmesg -c >/dev/null
if [ ! -x "$SC" ] || [ ! -f "$IMG" ]; then
	tap_diag "scenicctl or $IMG missing (make runtime image)"
	tap_done
fi
scu_rdma_ready

# pingpong SRV_SLOT CLI_SLOT PORT: server and client on this node; sets src / rc.
pingpong() {
	SCENIC_DEFAULT_SCU=$1 $PP -d "$DEV" -g "$GIDX" -p "$3" >/tmp/pp-srv.out 2>&1 &
	_pid=$!
	sleep 1
	SCENIC_DEFAULT_SCU=$2 $PP -d "$DEV" -g "$GIDX" -p "$3" "$ADDR4" >/tmp/pp-cli.out 2>&1
	rc=$?
	wait $_pid
	src=$?
}

ok=1
for s in 1 2; do
	out=$($SC load $s "$IMG" 2>&1) || ok=0
	tap_diag "load $s: $out"
done
$SC csr write 1 1 $K >/dev/null && $SC csr write 1 2 $K >/dev/null || ok=0
key=$($SC csr read 1 1 2>&1)
tap_diag "slot 1 KEY_TX: $key"
tap_result "xor.scu loaded into slots 1 and 2, slot 1 keyed on TX and RX" "$key" \
	[ $ok = 1 -a "$((key))" = "$((K))" ]

tx0=$(slot_ctr 1 tx_bytes_out) rx0=$(slot_ctr 1 rx_bytes_out)
pingpong 1 1 18800
tap_diag "server: $(tail -n 2 /tmp/pp-srv.out | tr '\n' ';') client: $(tail -n 2 /tmp/pp-cli.out | tr '\n' ';')"
tap_result "both QPs on slot 1: ibv_rc_pingpong -c exits 0 on both sides" "server $src, client $rc" \
	[ "$src" = 0 -a "$rc" = 0 ]
tap_result "both QPs on slot 1: no invalid data (XOR out, XOR back in)" "$(grep -h invalid /tmp/pp-*.out | head -n 2)" \
	sh -c '! grep -q "invalid data" /tmp/pp-srv.out /tmp/pp-cli.out'
tx=$(($(slot_ctr 1 tx_bytes_out) - tx0)) rx=$(($(slot_ctr 1 rx_bytes_out) - rx0))
want=$((2 * SIZE * ITERS))	# ping and pong, every byte once per direction
tap_result "slot 1 counted $want bytes out on TX and on RX (tx $tx, rx $rx)" "tx $tx rx $rx" \
	[ "$tx" -ge $want -a "$rx" -ge $want -a "$tx" = "$rx" ]
pk=$(($($SC csr read 1 4 2>/dev/null || echo 0)))
tap_diag "slot 1 BYTES CSR: $pk"
tap_result "the XOR SCU's own BYTES CSR saw them too" "$pk" [ "$pk" -ge $((2 * want)) ]

b2=$(slot_ctr 2 rx_bytes_out)
pingpong 2 1 18801
tap_diag "server: $(tail -n 2 /tmp/pp-srv.out | tr '\n' ';') client: $(tail -n 2 /tmp/pp-cli.out | tr '\n' ';')"
tap_result "client on slot 1 (KEY_TX = K), server on slot 2 (keys 0): the server sees XORed data" \
	"$(head -c 300 /tmp/pp-srv.out)" grep -q "invalid data" /tmp/pp-srv.out
pingpong 1 2 18802
tap_diag "server: $(tail -n 2 /tmp/pp-srv.out | tr '\n' ';') client: $(tail -n 2 /tmp/pp-cli.out | tr '\n' ';')"
tap_result "server on slot 1 (KEY_RX = K), client on slot 2: the server sees XORed data" \
	"$(head -c 300 /tmp/pp-srv.out)" grep -q "invalid data" /tmp/pp-srv.out
rx2=$(($(slot_ctr 2 rx_bytes_out) - b2))
tap_result "slot 2 counted the bytes its QPs received ($rx2)" "$rx2" [ "$rx2" -ge $((2 * SIZE * ITERS)) ]

for s in 1 2; do $SC unload $s >/dev/null 2>&1; done
bad=$(kernel_log_bad)
tap_result "kernel log has no oops, WARN, BUG or lockdep report" "$bad" [ -z "$bad" ]
tap_done
