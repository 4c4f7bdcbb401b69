#!/bin/sh
# SPDX-License-Identifier: MIT
# The hash-partition SCU (docs/scu-hash-partition.md) on the card's loopback (one node: both QPs
# on this card, its own address), through the runtime's examples (runtime/examples/
# hash_partition.cpp, .py) with `make runtime`'s hash_partition.scuimg in slot 3.
# 1. The C++ example WRITEs 20000 16-byte rows (8-byte key, 8-byte row number) into 4
#    partitions: every row is in its key's partition, once, with its payload; the partitions'
#    row counts add up; the WRITE's own target stays untouched; slot 3's memory port wrote
#    every row's bytes (mem_wr_bytes) and faulted never.
# 2. The same with 16 partitions and 5000 rows.
# 3. The Python example sets the SCU up (PD bound, buffers registered, CSRs) and creates a QP.
. "$(dirname "$0")/../rdma/lib.sh"
. "$(dirname "$0")/lib.sh"	# kernel_log_bad, slot_ctr, scu_rdma_ready

SC=/usr/bin/scenicctl
EX_CPP=/usr/bin/scenic_example_hash_partition
EX_PY=/usr/share/scenic/examples/hash_partition.py
IMG=/usr/share/scenic/scu/hash_partition.scuimg

tap_plan 8
dmesg -c >/dev/null
if [ ! -x "$SC" ] || [ ! -x "$EX_CPP" ] || [ ! -f "$IMG" ]; then
	tap_diag "scenicctl, $EX_CPP or $IMG missing (make runtime image)"
	tap_done
fi
scu_rdma_ready

# run ROWS PARTS OUT: the C++ example on slot 3
run() { timeout 240 "$EX_CPP" "$IMG" 3 "$1" "$2" >"$3" 2>&1; }
# rows_sum OUT: the sum of the "partition p: N rows" lines
rows_sum() {
	_s=0
	for _n in $(sed -n 's/^partition [0-9]*: \([0-9]*\) rows.*/\1/p' "$1"); do _s=$((_s + _n)); done
	echo $_s
}

for case in "20000 4" "5000 16"; do
	set -- $case
	n=$1 p=$2 out=/tmp/partition-$2.out
	wr0=$(slot_ctr 3 mem_wr_bytes) f0=$(slot_ctr 3 mem_faults)
	run "$n" "$p" "$out"
	rc=$?
	tap_diag "$(tail -n 3 "$out")"
	tap_result "$n rows into $p partitions: every row is in its partition" "exit $rc" \
		sh -c "[ $rc = 0 ] && grep -q '^every row is in its partition ($n rows, $p partitions)' $out"
	sum=$(rows_sum "$out") parts=$(grep -c '^partition ' "$out")
	tap_result "$p partitions' row counters add up to $n" "sum $sum of $parts" \
		[ "$sum" = "$n" -a "$parts" = "$p" ]
	wr=$(($(slot_ctr 3 mem_wr_bytes) - ${wr0:-0})) f=$(($(slot_ctr 3 mem_faults) - ${f0:-0}))
	tap_result "slot 3's memory port wrote $((n * 16)) bytes, no fault" "wrote $wr faults $f" \
		[ "$wr" = $((n * 16)) -a "$f" = 0 ]
done

if [ -x /usr/bin/python3 ] && [ -f "$EX_PY" ]; then
	out=$(timeout 120 /usr/bin/python3 "$EX_PY" "$IMG" 3 8 2>&1)
	rc=$?
else
	out="python3 or $EX_PY missing" rc=1
fi
tap_diag "$out"
echo "$out" >/tmp/partition-py.out
tap_result "runtime example hash_partition.py: PD bound, 8 partitions set, QP created on slot 3" \
	"exit $rc" sh -c "[ $rc = 0 ] && grep -q '^QP [0-9]* on slot 3: rows of 16 bytes into 8 partitions, status 0' /tmp/partition-py.out"

$SC unload 3 >/dev/null 2>&1
bad=$(kernel_log_bad)
tap_result "kernel log has no oops, WARN, BUG or lockdep report" "$bad" [ -z "$bad" ]
tap_done
