#!/bin/sh
# SPDX-License-Identifier: MIT
# Load/unload cycles of the driver (default 50; first argument overrides): every load probes
# the card again, every unload releases all of its interrupt vectors, and slab memory does not
# grow with the number of cycles.
#
# Slab tolerance: /proc/slabinfo is read after the warm-up and after every fifth of the cycles,
# each time after dropping the dentry/inode caches, waiting for RCU frees, shrinking every
# cache (/sys/kernel/slab/*/shrink flushes the per-CPU slabs, whose free objects SLUB counts as
# active) and waiting for the RCU frees of the files that loop opened. What remains is noise that
# jumps between a few levels, measured in guests that load nothing: kmalloc-96 485 <-> 672
# objects, filp 32 <-> 48, others within one slab. A leak grows every interval; noise cannot
# rise in more than about half of them. So a cache fails when it grew by at least 9/10 of an
# object per cycle over the run AND in at least 4 of the 5 intervals (a per-cycle leak of any
# size whose growth stands out of the noise: in kmalloc-96 about 5 objects per cycle). The total
# of all caches may grow by at most 1 KiB per cycle (leaks spread over several caches).
. "$(dirname "$0")/lib.sh"

CYCLES=${1:-50}
WARMUP=2
tap_plan 8

bdf=$(scenic_bdf)
if [ -z "$bdf" ] || ! driver_bound "$bdf"; then
	tap_fail "card bound to scenic" "no bound SCENIC card (bdf '${bdf}')"
	tap_done
fi
tap_ok "card bound to scenic"

# This project's modules that are loaded; unload the others (function drivers) before scenic.
others=
for ko in /lib/modules/"$(uname -r)"/extra/*.ko; do
	m=$(basename "$ko" .ko | tr - _)
	[ "$m" != scenic ] && [ -d "/sys/module/$m" ] && others="$others $m"
done
tap_diag "cycling:$others scenic"
unload() {
	for m in $others scenic; do
		[ -d "/sys/module/$m" ] && { $RMMOD "$m" || return 1; }
	done
	return 0
}
load() {
	$MODPROBE scenic || return 1
	for m in $others; do $MODPROBE "$m" || return 1; done
	wait_for 100 driver_bound "$bdf"
}
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1	# RCU-deferred frees (dentries, inodes, files)
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f"; done 2>/dev/null
	# The ~200 files this loop opened are freed after an RCU grace period: without this,
	# filp moved by up to ~50 objects between otherwise identical snapshots.
	sleep 1
	echo 1 >/sys/kernel/slab/filp/shrink 2>/dev/null
}
slab_snapshot() { awk 'NR > 2 { print $1, $2, $4, $5 }' /proc/slabinfo >"$1"; }

ids0=$(dmesg_count "$IDENTITY_RE")
i=0
while [ $i -lt $WARMUP ]; do
	if ! { unload && load; }; then break; fi
	i=$((i + 1))
done
# Vectors of a fresh load (after the warm-up; at boot init also brought the netdev up, which may
# request more vectors): the last load must end with as many.
fresh_lines=$(scenic_irq_lines)
INTERVALS=5
step=$((CYCLES / INTERVALS))
[ "$step" -ge 1 ] || step=1
settle
slab_snapshot /tmp/slab.0

i=0 failed='' leftover=0
snaps=/tmp/slab.0
while [ $i -lt "$CYCLES" ]; do
	if [ $i -gt 0 ] && [ $((i % step)) -eq 0 ] && [ $((i / step)) -lt $INTERVALS ]; then
		settle
		slab_snapshot /tmp/slab.$((i / step))
		snaps="$snaps /tmp/slab.$((i / step))"
	fi
	i=$((i + 1))
	if ! unload; then failed="rmmod failed in cycle $i"; break; fi
	if [ "$(scenic_irq_lines)" -ne 0 ]; then
		leftover=$((leftover + 1))
		[ $leftover -eq 1 ] && grep scenic /proc/interrupts | sed "s/^/# cycle $i: /"
	fi
	if ! load; then failed="load or bind failed in cycle $i"; break; fi
done
tap_result "$CYCLES rmmod/modprobe cycles" "$failed" [ -z "$failed" ]
tap_diag "$i cycles run"

ids=$(( $(dmesg_count "$IDENTITY_RE") - ids0 ))
tap_result "every load printed the identity line" "$ids lines for $((i + WARMUP)) loads" \
	[ "$ids" -eq $((i + WARMUP)) ]
tap_result "no scenic vectors left in /proc/interrupts after rmmod" \
	"left over after $leftover of $i unloads" [ "$leftover" -eq 0 ]
c=$(irq_count "scenic-core@$bdf")
lines=$(scenic_irq_lines)
as_fresh() { [ "$lines" -eq "$fresh_lines" ] && [ "${c:-0}" -ge 1 ]; }
tap_result "after the last load: $fresh_lines scenic vector(s) as after the first, core fired" \
	"$lines line(s), core count '${c:-none}'" as_fresh

settle
slab_snapshot /tmp/slab.end
snaps="$snaps /tmp/slab.end"
if [ "$i" -lt 20 ]; then
	# the noise (up to ~20 objects in a cache) would look like a leak
	tap_skip "slab: no cache grows with the cycles" "fewer than 20 cycles"
	tap_skip "slab total grew by at most 1 KiB per cycle" "fewer than 20 cycles"
else
	# shellcheck disable=SC2086 # $snaps: the snapshot files, in order
	awk -v cycles="$i" -v nsnap="$(echo $snaps | wc -w)" '
		FNR == 1 { f++ }
		{ v[f, $1] = $2; size[$1] = $3 }
		END {
			for (c in size) {
				up = 0
				for (k = 2; k <= nsnap; k++) {
					d = v[k, c] - v[k - 1, c]
					if (d * 10 * (nsnap - 1) >= cycles * 9)
						up++
				}
				total = v[nsnap, c] - v[1, c]
				if (up >= nsnap - 2 && total * 10 >= cycles * 9)
					printf "%s grew by %d objects of %d bytes, in %d of %d intervals\n",
						c, total, size[c], up, nsnap - 1
			}
		}' $snaps >/tmp/slab.leaks
	tap_result "slab: no cache grows with the cycles" "$(head -n 3 /tmp/slab.leaks | tr '\n' ';')" \
		[ ! -s /tmp/slab.leaks ]
	sed 's/^/# /' /tmp/slab.leaks
	total=$(awk 'NR == FNR { a[$1] = $2 * $3; next } { t += $2 * $3 - a[$1] } END { print t + 0 }' \
		/tmp/slab.0 /tmp/slab.end)
	tap_diag "slab total changed by $total bytes over $i cycles"
	tap_result "slab total grew by at most 1 KiB per cycle" "$total bytes" \
		[ "$total" -le $((i * 1024)) ]
fi

tap_result "no Oops/BUG/WARNING in dmesg" "see dmesg lines above" no_oops

tap_done
