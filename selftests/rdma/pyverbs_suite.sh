#!/bin/sh
# SPDX-License-Identifier: MIT
# rdma-core's own test suite (Debian's python3-pyverbs, the image's pyverbs layer) against
# scenic_0 and, in the same guest, against Linux rxe (docs/verbs-completeness.md 8):
# run_tests.py -v on each device under a time limit, then pyverbs_suite.py counts, compares and
# prints TAP. One after the other: until QP1 moves into the card (verbs-completeness.md 2.3)
# scenic_rdma's QP1 and rxe both need UDP port 4791 in init_net, so scenic_rdma is unloaded
# after its run and only then is rdma_rxe loaded, on the card's netdev (scenic_eth stays; rxe's
# traffic to its own address loops inside rxe). rxe 6.1 has no parent device, so the suite finds
# no /sys/class/infiniband/rxe0/device/net and skips its rdma_cm tests on rxe0, on any netdev.
# Each run's output goes to the console as "SUITE-LOG <dev> <line>" and each result as a
# "SUITE-TSV" line: run-vm-tests keeps them as build/vm/suite-<dev>.{log,tsv}.
# Without the suite and pyverbs (Debian's python3-pyverbs; in the VM rig the image's pyverbs
# layer, mkimage --pyverbs) it exits 4 (KSFT_SKIP), unless the second argument is "required"
# (the rig's rdma-suite boot, whose image has the layer): then that is a failure. One node: on two
# hosts each runs it on its own card. At the end scenic_rdma is loaded again and rxe0 removed.
# In a two-node boot (the rig's rdma boot) the third argument node=N runs it on node N only: the
# other node reports a skip.
# Arguments: [seconds per device (default 1200)] [required] [node=N].
. "$(dirname "$0")/lib.sh"

case ${3:-} in
node=*)
	if [ "${3#node=}" != "$NODE" ]; then
		echo "# SKIP: the suite runs on node ${3#node=} of this boot, this is node $NODE"
		exit "$KSFT_SKIP"
	fi
	;;
esac

LIMIT=${1:-1200}
SUITE=/usr/share/doc/rdma-core/tests/run_tests.py
RXE_DEV=rxe0
# the skip table the parser checks scenic_0's skips against: the installed collection's copy
# (TEST_FILES), else the source tree's, else the one the VM rig put into the image
RDMA_MD=$RDMA_DIR/rdma.md
[ -r "$RDMA_MD" ] || RDMA_MD=$RDMA_DIR/../../docs/rdma.md
[ -r "$RDMA_MD" ] || RDMA_MD=/usr/share/scenic/rdma.md

fail_setup() {
	tap_plan 1
	tap_fail "$1" "$2"
	tap_done
	exit 1
}

if [ ! -f "$SUITE" ] || ! python3 -c 'import pyverbs.device' 2>/dev/null; then
	if [ "${2:-}" != required ]; then
		echo "# SKIP: no rdma-core test suite with pyverbs here ($SUITE, python3-pyverbs;" \
			"the VM rig's image has them with mkimage --pyverbs, boot rdma-suite)"
		exit "$KSFT_SKIP"
	fi
	fail_setup "pyverbs and the suite are in the image (mkimage --pyverbs)" \
		"$(ls "$SUITE" 2>&1); $(python3 -c 'import pyverbs.device' 2>&1 | tail -n 2)"
fi
addr_setup
wait_rdma || fail_setup "scenic device with its RoCE v2 IPv4 GID" "$(ls /sys/class/infiniband 2>&1)"

setup_rxe() {
	$MODPROBE rdma_rxe || return 1
	$RDMA link add $RXE_DEV type rxe netdev "$IFACE" || return 1
	_n=0
	while [ $_n -lt 100 ]; do
		gid_index $RXE_DEV >/dev/null && return 0
		sleep 0.2
		_n=$((_n + 1))
	done
	echo "no RoCE v2 GID of $ADDR4 on $RXE_DEV"
	return 1
}

run_suite() {	# DEV GID
	_t=$(date +%s)
	timeout -s KILL "$LIMIT" python3 "$SUITE" --dev "$1" --gid "$2" -v >"/tmp/suite-$1.log" 2>&1
	echo "# $1: run_tests.py exited with $? after $(($(date +%s) - _t)) s"
	sed "s/^/SUITE-LOG $1 /" "/tmp/suite-$1.log"
}
echo "# scenic: $DEV gid $GIDX; limit $LIMIT s per device"
run_suite "$DEV" "$GIDX"
# port 4791: scenic_rdma's QP1 socket goes with the module
out=$($MODPROBE -r scenic_rdma 2>&1 && setup_rxe 2>&1) ||
	fail_setup "scenic_rdma unloaded, $RXE_DEV on $IFACE" "$out"
RXE_GIDX=$(gid_index $RXE_DEV)
echo "# rxe: $RXE_DEV on $IFACE gid $RXE_GIDX"
run_suite $RXE_DEV "$RXE_GIDX"
# the parser names the devices scenic_0 and rxe0 (the TSV and TAP names)
python3 "$RDMA_DIR/pyverbs_suite.py" lane --doc "$RDMA_MD" \
	"/tmp/suite-$DEV.log" "/tmp/suite-$RXE_DEV.log"
rc=$?
# the card as it was for whatever runs next (a host's own rxe0, if any, is not ours to keep)
$RDMA link delete $RXE_DEV 2>/dev/null
$MODPROBE scenic_rdma 2>/dev/null
exit $rc
