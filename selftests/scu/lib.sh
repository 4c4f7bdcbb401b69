# SPDX-License-Identifier: MIT
# Helpers of the SCU selftests (POSIX / busybox sh). Source it: . "$(dirname "$0")/lib.sh"
# Each script empties the kernel log first (dmesg -c), so what is there afterwards is its own.

# The collection's folder (selftests/scu, or scu/ of an installed kselftest tree; the rdma
# collection's scu_payload.sh sources this file too) and what its Makefile builds there:
# scu_test and the test images (scu-images/, mkimages.py).
SCU_DIR=$(cd "$(dirname "$0")/../scu" && pwd)
SCU_TEST=$SCU_DIR/scu_test
SCU_IMAGES=$SCU_DIR/scu-images

# kernel_log_bad: up to 5 kernel log lines with an oops, WARN, BUG or lockdep report.
kernel_log_bad() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|lockdep|circular locking' |
		head -n 5
}

# slot_ctr SLOT NAME: one counter of the slot (scenicctl --json counters: a flushed status page).
slot_ctr() {
	/usr/bin/scenicctl --json counters "$1" | tr -d ' \n' | grep -o "\"$2\":[0-9]*" | cut -d: -f2
}

# scu_rdma_ready: this node's address, an RDMA device with a RoCE v2 GID on $IFACE and the
# slot devices (rdma/lib.sh's addr_setup and wait_rdma: source that first).
scu_rdma_ready() {
	addr_setup
	wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"
	_sr_i=0
	while [ ! -e /dev/scenic0/scu2 ] && [ $_sr_i -lt 50 ]; do
		sleep 0.1
		_sr_i=$((_sr_i + 1))
	done
}

# run_tap NAME LIMIT CMD...: runs CMD (a program printing TAP results) for at most LIMIT s,
# passes its results and its stderr (as diagnostics) on, adds the kernel log check, prints the
# plan and exits: 0 only when CMD exited 0, printed a result and the log is clean.
run_tap() {
	_rt_name=$1 _rt_limit=$2
	shift 2
	timeout "$_rt_limit" "$@" >"/tmp/$_rt_name.tap" 2>"/tmp/$_rt_name.err"
	_rt_rc=$?
	echo "TAP version 13"
	grep -v '^1\.\.\|^TAP version' "/tmp/$_rt_name.tap"	# this script's header and plan
	sed 's/^/# /' "/tmp/$_rt_name.err"
	_rt_n=$(grep -c '^ok\|^not ok' "/tmp/$_rt_name.tap")
	if [ "$_rt_n" -eq 0 ]; then
		echo "not ok 1 - $_rt_name printed no result (exit $_rt_rc)"
		_rt_n=1 _rt_rc=1
	fi
	_rt_bad=$(kernel_log_bad)
	_rt_check="kernel log has no oops, WARN, BUG or lockdep report after $_rt_name"
	if [ -z "$_rt_bad" ]; then
		echo "ok $((_rt_n + 1)) - $_rt_check"
	else
		echo "not ok $((_rt_n + 1)) - $_rt_check"
		echo "$_rt_bad" | sed 's/^/# /'
		_rt_rc=1
	fi
	echo "1..$((_rt_n + 1))"
	exit $_rt_rc
}
