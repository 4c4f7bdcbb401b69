# SPDX-License-Identifier: MIT
# Shared helpers of the SCENIC guest selftests (POSIX / busybox sh). Source it:
#   . "$(dirname "$0")/lib.sh"
# TAP 13 output: tap_plan N; tap_ok NAME; tap_fail NAME REASON; tap_skip NAME REASON;
# tap_done (exits 1 if any test failed or the plan was not met). Diagnostics: tap_diag LINE.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# Real tools by full path: busybox applets shadow some of them (DESIGN.md 10).
LSPCI=/usr/bin/lspci
MODPROBE=/usr/sbin/modprobe
RMMOD=/usr/sbin/rmmod

SCENIC_VENDOR=0x10ee
SCENIC_DEVICE=0x5c01
IDENTITY_RE='SCENIC .* build [0-9a-f]{8}'
REFUSE_RE='refusing the card'
OOPS_RE='Oops|BUG|WARNING'
KSFT_SKIP=4	# the exit status of a script that cannot run here (kselftest)

TAP_N=0
TAP_FAILED=0
TAP_PLAN=0

tap_plan() {
	TAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}
tap_diag() { echo "# $*"; }
tap_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}
tap_fail() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1 # $2"
}
tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}
# tap_result NAME REASON_IF_FAILED CMD...: ok when CMD succeeds.
tap_result() {
	_tr_name=$1 _tr_reason=$2
	shift 2
	if "$@"; then tap_ok "$_tr_name"; else tap_fail "$_tr_name" "$_tr_reason"; fi
}
# Exits the script; tests not reached (an early bail-out) are reported as failures.
tap_done() {
	while [ "$TAP_N" -lt "$TAP_PLAN" ]; do
		tap_fail "test $((TAP_N + 1)) not run" "script ended early"
	done
	[ "$TAP_N" -eq "$TAP_PLAN" ] || { tap_diag "plan was $TAP_PLAN, ran $TAP_N"; exit 1; }
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}

# wait_for TENTHS CMD...: polls CMD every 0.1 s, at most TENTHS times; status of the last try.
wait_for() {
	_wf_n=$1
	shift
	while [ "$_wf_n" -gt 0 ]; do
		"$@" && return 0
		_wf_n=$((_wf_n - 1))
		sleep 0.1
	done
	"$@"
}

# The SCENIC PCI function's address (first one found), empty if there is none.
scenic_bdf() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor" 2>/dev/null)" = "$SCENIC_VENDOR" ] &&
			[ "$(cat "$d/device" 2>/dev/null)" = "$SCENIC_DEVICE" ] &&
			{ echo "${d##*/}"; return 0; }
	done
	return 1
}

# Count of kernel log lines matching an extended regex.
dmesg_count() { dmesg | grep -c -E "$1"; }
# Prints kernel log lines matching an extended regex as TAP diagnostics.
dmesg_diag() { dmesg | grep -E "$1" | tail -n "${2:-5}" | sed 's/^/# dmesg: /'; }

no_oops() {
	if dmesg | grep -q -E "$OOPS_RE"; then
		dmesg_diag "$OOPS_RE" 10
		return 1
	fi
	return 0
}

# Auxiliary devices of a function (eth, rdma, scu): number present.
aux_count() {
	ls -d /sys/bus/auxiliary/devices/scenic."$1".* 2>/dev/null | wc -l
}
aux_all_present() {
	[ "$(aux_count eth)" -ge 1 ] && [ "$(aux_count rdma)" -ge 1 ] && [ "$(aux_count scu)" -ge 1 ]
}

# Total of the per-CPU counts of the /proc/interrupts line whose name is $1; empty if none.
irq_count() {
	awk -v name="$1" '$NF == name {
		s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; else break
		print s; found = 1; exit }' /proc/interrupts
}
scenic_irq_lines() { grep -c 'scenic' /proc/interrupts; }

driver_bound() { [ -e "/sys/bus/pci/drivers/scenic/$1" ]; }

# hexeq A B: A (hex 0x... or decimal, as read from a file) equals B. False for anything that
# is not a number (e.g. a "# card is being reset" line), without a shell arithmetic error.
hexeq() {
	case "$1" in
	"" | *[!0-9a-fA-FxX]*) return 1 ;;
	0[xX]*) case "${1#0[xX]}" in "" | *[!0-9a-fA-F]*) return 1 ;; esac ;;
	*[!0-9]*) return 1 ;;
	esac
	[ $(($1)) -eq $(($2)) ]
}
