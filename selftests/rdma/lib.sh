# SPDX-License-Identifier: MIT
# Helpers of the RDMA selftests: two nodes on one wire (tools/vm/scenic-vm -n 2); node 1 is the
# client, node 2 the server, unless a test swaps them. The device is this node's scenic_N, or
# rxe0 on a virtio-net interop peer. Source it: . "$(dirname "$0")/lib.sh" (from elsewhere in the
# VM rig: . /selftests/rdma/lib.sh)
#
# The folder holds the collection (selftests/rdma, or rdma/ of an installed kselftest tree);
# the eth and scenic collections sit next to it (their lib.sh: TAP helpers, NODE, IFACE,
# sync_peer, addresses, two-host mode). On two hosts (selftests/README.md, "RDMA between two
# hosts") the environment also names the RDMA device and its GID index when they cannot be
# found from SCENIC_IFACE and SCENIC_ADDR4: SCENIC_RDMA_DEV, SCENIC_GID_INDEX.

RDMA_DIR=$(cd "$(dirname "$0")" && pwd)
# sourced by a script of another collection (scenic/recover_*.sh, cluster/): the rdma collection
# next to it; from elsewhere (tools/bench jobs): the VM rig's copy
[ -e "$RDMA_DIR/verify.sh" ] || RDMA_DIR=$(cd "$(dirname "$0")/../rdma" 2>/dev/null && pwd)
[ -e "$RDMA_DIR/verify.sh" ] || RDMA_DIR=/selftests/rdma
ETH_DIR=$RDMA_DIR/../eth
. "$ETH_DIR/lib.sh"

IBV_DEVINFO=/usr/bin/ibv_devinfo
RDMA=/usr/sbin/rdma

# rdma_prog NAME: the collection's own build of a test program (kselftest tree, or
# make -C selftests/rdma), else the one the VM rig put into /usr/bin.
rdma_prog() {
	if [ -x "$RDMA_DIR/$1" ]; then echo "$RDMA_DIR/$1"; else echo "/usr/bin/$1"; fi
}
VERIFY=$(rdma_prog rdma_verify)
QP_RATE=$(rdma_prog qp_rate)

# rig_only WHAT: outside the VM rig, the whole script is skipped (exit 4, KSFT_SKIP): WHAT
# says which part of the rig it needs.
rig_only() {
	[ "$VM_RIG" = 1 ] && return 0
	echo "# SKIP: needs the VM rig ($1): selftests/run-vm-tests"
	exit "$KSFT_SKIP"
}

# The RDMA device on this node's test interface.
rdma_dev() {
	[ -n "${SCENIC_RDMA_DEV:-}" ] && { echo "$SCENIC_RDMA_DEV"; return 0; }
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		for n in "$d"/ports/1/gid_attrs/ndevs/*; do
			[ "$(cat "$n" 2>/dev/null)" = "$IFACE" ] && { echo "${d##*/}"; return 0; }
		done
	done
	return 1
}

# gid_index DEV: the port-1 GID index of type RoCE v2 holding this node's IPv4 address.
gid_index() {
	[ -n "${SCENIC_GID_INDEX:-}" ] && { echo "$SCENIC_GID_INDEX"; return 0; }
	_want=$(echo "$ADDR4" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		_i=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$_want" ] || continue
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$_i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$_i"; return 0; }
	done
	return 1
}

# On a virtio-net interop peer of the rig, Linux rxe is the RDMA device (created once).
if [ "$VM_RIG" = 1 ] && ! is_scenic && [ ! -e /sys/class/infiniband/rxe0 ]; then
	$MODPROBE rdma_rxe 2>/dev/null
	$RDMA link add rxe0 type rxe netdev "$IFACE" 2>/dev/null
fi

# gid6_index DEV: the port-1 GID index of type RoCE v2 holding this node's IPv6 link-local address.
gid6_index() {
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		_i=${g##*/}
		case $(cat "$g" 2>/dev/null) in fe80:*) ;; *) continue ;; esac
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$_i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$_i"; return 0; }
	done
	return 1
}

# wait_rdma: wait (up to 20 s) until this node's device exists with its RoCE v2 IPv4 GID and an
# ACTIVE port; sets DEV and GIDX.
wait_rdma() {
	_n=0
	while [ $_n -lt 100 ]; do
		DEV=$(rdma_dev) && GIDX=$(gid_index "$DEV") &&
			grep -q ACTIVE "/sys/class/infiniband/$DEV/ports/1/state" 2>/dev/null && return 0
		sleep 0.2
		_n=$((_n + 1))
	done
	return 1
}

# rstat NAME: one counter of `rdma statistic show` for this node's device (empty if none).
rstat() {
	$RDMA statistic show link "$DEV/1" 2>/dev/null |
		tr ' ' '\n' | awk -v n="$1" 'p { print; exit } $0 == n { p = 1 }'
}

# perftest calibrates its clock at start-up (TSC against gettimeofday) and exits 1 without a
# report when the fit is poor ("Correlation coefficient r^2: 0.88 < 0.9"), which a loaded TCG
# host causes now and then. perf_done FILE NAME, after a perftest run whose output is FILE:
# meets the other node at barrier NAME (a side whose calibration failed first leaves it a note,
# /run/barrier/NAME-again.N, through scenic-barrier-recv); true if either side's failed, so
# that both repeat the run.
perf_done() {
	_failed=0
	grep -q 'Correlation coefficient r^2' "$1" && _failed=1
	[ $_failed = 1 ] &&
		echo "$2-again $NODE" | timeout 3 nc -w 2 "$PEER4" 5790 >/dev/null 2>&1
	sync_peer "$2" 330
	[ $_failed = 1 ] || [ -e "/run/barrier/$2-again.$((3 - NODE))" ]
}

# rping_teardown_race RC FILE: true when rping (whose output is FILE) exited 255 only because of
# its own exit race, fixed upstream in rdma-core PR 1622 (2025) and present in Debian 12's
# rdma-core 44: after the last DISCONNECT event the main thread destroys the event channel while
# the CM thread calls rdma_get_cm_event on it again, which fails with EBADF and exits -1. The
# pings' data is checked separately; this only keeps that race from failing a verified run.
rping_teardown_race() {
	[ "$1" = 255 ] && grep -q 'DISCONNECT EVENT' "$2" &&
		[ "$(grep -v '^$' "$2" | tail -n 1)" = "rdma_get_cm_event: Bad file descriptor" ] || return 1
	tap_diag "rping exited 255 from its CM thread after the last DISCONNECT (rping's teardown race)"
}

# tap_relay FILE NAME: a test program's TAP lines in FILE ("ok N name", "not ok N name")
# re-numbered into this script's plan; the program's own plan line is dropped and any other
# line becomes a diagnostic. NAME labels a failure.
tap_relay() {
	while IFS= read -r _l; do
		case $_l in
		"ok "*) _n=${_l#ok *[0-9] } && tap_ok "${_n#- }" ;;
		"not ok "*) _n=${_l#not ok *[0-9] } && tap_fail "${_n#- }" "$2" ;;
		"1.."*) ;;
		"#"*) echo "$_l" ;;
		*) echo "# $_l" ;;
		esac
	done <"$1"
}
