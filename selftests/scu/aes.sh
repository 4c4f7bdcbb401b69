#!/bin/sh
# SPDX-License-Identifier: MIT
# The aes-ctr SCU (docs/scu-aes-ctr.md) on RDMA payload, on the card's loopback (one node: both
# QPs on this card, its own address). aes.scu (mkimages.py) in slots 1 and 2, key and IV as
# SP 800-38A F.5.1, QPN_MASK 0 (the two QPs' numbers differ, so the QPN must stay out of the
# counter for the ends to agree). scu_aes_rdma WRITEs 3000 bytes, SENDs 700 and READs 2500
# between QP A and QP B and prints what the receivers hold.
# 1. Both QPs on slot 1 (CTRL = TX | RX): each message is encrypted on its way out and decrypted
#    on its way in: the receivers hold the plaintext; slot 1 counted every byte in both
#    directions.
# 2. A on slot 1 (TX | RX), B on slot 2 (CTRL 0, passes): B holds the ciphertext of the WRITE
#    and the SEND, and A the READ's data encrypted by its RX, each equal to what the host's
#    openssl computed (aes-expected.txt, mkimages.py); the slots counted their directions.
# 3. The runtime's examples (runtime/examples/aes_ctr.cpp, .py) with `make runtime`'s
#    aes_ctr.scuimg in slot 3: the C++ one's WRITE through the SCU arrives intact, the Python
#    one sets the SCU up and creates a QP on the slot.
. "$(dirname "$0")/../rdma/lib.sh"
. "$(dirname "$0")/lib.sh"	# kernel_log_bad, SCU_DIR, SCU_IMAGES

SC=/usr/bin/scenicctl
IMG=$SCU_IMAGES/aes.scu
EXP=$SCU_IMAGES/aes-expected.txt
PROG=$SCU_DIR/scu_aes_rdma
EX_CPP=/usr/bin/scenic_example_aes_ctr
EX_PY=/usr/share/scenic/examples/aes_ctr.py
EX_IMG=/usr/share/scenic/scu/aes_ctr.scuimg
WR=3000 SD=700 RD=2500

tap_plan 10
dmesg -c >/dev/null
if [ ! -x "$SC" ] || [ ! -f "$IMG" ] || [ ! -x "$PROG" ]; then
	tap_diag "scenicctl, $IMG or $PROG missing (make runtime image)"
	tap_done
fi
scu_rdma_ready

# csrs SLOT CTRL: key, IVs (TX = RX), QPN_MASK 0 and CTRL of the slot's aes-ctr
csrs() {
	$SC csr write "$1" 0 0x2b7e151628aed2a6 && $SC csr write "$1" 1 0xabf7158809cf4f3c &&
	$SC csr write "$1" 2 0xf0f1f2f3f4f5f6f7 && $SC csr write "$1" 3 0xf8f9fafbfcfdfeff &&
	$SC csr write "$1" 4 0xf0f1f2f3f4f5f6f7 && $SC csr write "$1" 5 0xf8f9fafbfcfdfeff &&
	$SC csr write "$1" 6 0 && $SC csr write "$1" 7 "$2"
} >/dev/null
# field FILE TAG: the hex of line TAG
field() { grep "^$2 " "$1" | cut -d' ' -f2; }
# same OUT PREFIX: the write/send/read lines of OUT equal PREFIX<tag> of aes-expected.txt
same() {
	for t in write send read; do
		[ "$(field "$1" $t)" = "$(field "$EXP" "$2$t")" ] || { tap_diag "$t differs"; return 1; }
	done
}
# run SLOT_A SLOT_B OUT
run() { timeout 120 "$PROG" -a "$1" -b "$2" -d "$DEV" >"$3" 2>/tmp/aes-err.out; }

ok=1
for s in 1 2; do
	out=$($SC load $s "$IMG" 2>&1) || ok=0
	tap_diag "load $s: $out"
done
csrs 1 3 && csrs 2 0 || ok=0
id=$($SC csr read 1 8 2>&1) ctl=$($SC csr read 1 7 2>&1)
tap_result "aes.scu loaded into slots 1 and 2, slot 1 keyed and enabled" "id $id ctrl $ctl" \
	[ $ok = 1 -a "$((id))" = "$((0x5343554145533031))" -a "$((ctl))" = 3 ]

tx0=$(slot_ctr 1 tx_bytes_out) rx0=$(slot_ctr 1 rx_bytes_out) by0=$(($($SC csr read 1 10)))
run 1 1 /tmp/aes-both.out
rc=$?
tap_diag "$(head -n 1 /tmp/aes-both.out) $(cat /tmp/aes-err.out)"
tap_result "both QPs on slot 1: WRITE, SEND and READ completed" "exit $rc" [ $rc = 0 ]
tap_result "both QPs on slot 1: the receivers hold the plaintext" "" same /tmp/aes-both.out plain-
tx=$(($(slot_ctr 1 tx_bytes_out) - tx0)) rx=$(($(slot_ctr 1 rx_bytes_out) - rx0))
by=$(($($SC csr read 1 10) - by0)) want=$((WR + SD + RD))
tap_result "slot 1 counted $want bytes out on TX and on RX, the SCU's BYTES $((2 * want))" \
	"tx $tx rx $rx bytes $by" [ "$tx" = $want -a "$rx" = $want -a "$by" = $((2 * want)) ]

t1=$(slot_ctr 1 tx_bytes_out) r1=$(slot_ctr 1 rx_bytes_out) t2=$(slot_ctr 2 tx_bytes_out) r2=$(slot_ctr 2 rx_bytes_out)
run 1 2 /tmp/aes-one.out
rc=$?
tap_diag "$(head -n 1 /tmp/aes-one.out) $(cat /tmp/aes-err.out)"
tap_result "A on slot 1, B on slot 2 (passes): WRITE, SEND and READ completed" "exit $rc" [ $rc = 0 ]
tap_result "B holds the ciphertext the host computed, A the READ's data encrypted by its RX" "" \
	same /tmp/aes-one.out ""
t1=$(($(slot_ctr 1 tx_bytes_out) - t1)) r1=$(($(slot_ctr 1 rx_bytes_out) - r1))
t2=$(($(slot_ctr 2 tx_bytes_out) - t2)) r2=$(($(slot_ctr 2 rx_bytes_out) - r2))
tap_result "slot 1 out: tx $((WR + SD)) rx $RD; slot 2 out: tx $RD rx $((WR + SD))" \
	"slot 1 tx $t1 rx $r1, slot 2 tx $t2 rx $r2" \
	[ "$t1" = $((WR + SD)) -a "$r1" = $RD -a "$t2" = $RD -a "$r2" = $((WR + SD)) ]

if [ -x "$EX_CPP" ] && [ -f "$EX_IMG" ]; then
	out=$(timeout 120 "$EX_CPP" "$EX_IMG" 3 2>&1)
	rc=$?
else
	out="$EX_CPP or $EX_IMG missing (make runtime)" rc=1
fi
tap_diag "$out"
echo "$out" >/tmp/aes-excpp.out
tap_result "runtime example aes_ctr (C++): the WRITE through slot 3 arrived intact" "exit $rc" \
	sh -c "[ $rc = 0 ] && grep -q 'arrived intact' /tmp/aes-excpp.out"
if [ -x /usr/bin/python3 ] && [ -f "$EX_PY" ] && [ -f "$EX_IMG" ]; then
	out=$(timeout 120 /usr/bin/python3 "$EX_PY" "$EX_IMG" 3 2>&1)
	rc=$?
else
	out="python3, $EX_PY or $EX_IMG missing" rc=1
fi
tap_diag "$out"
echo "$out" >/tmp/aes-expy.out
tap_result "runtime example aes_ctr.py: SCU set up, QP created on slot 3" "exit $rc" \
	sh -c "[ $rc = 0 ] && grep -q '^QP [0-9]* on slot 3' /tmp/aes-expy.out"

for s in 1 2 3; do $SC unload $s >/dev/null 2>&1; done
bad=$(kernel_log_bad)
tap_result "kernel log has no oops, WARN, BUG or lockdep report" "$bad" [ -z "$bad" ]
tap_done
