# SPDX-License-Identifier: MIT
# Helpers of the ETH (fallback path) selftests: two-node tests run on both nodes (node 1 is the
# sender / client, node 2 the receiver / server). Source it: . "$(dirname "$0")/lib.sh"
# (it sources ../scenic/lib.sh for the TAP helpers).
#
# The nodes: the VM rig's /run/scenicvm.env (NODE NODES IFACE; addresses 10.0.0.N, fd00::N), or
# on two hosts the environment (README.md): SCENIC_NODE (1 or 2), SCENIC_IFACE, and, when not
# the defaults, SCENIC_ADDR4 / SCENIC_PEER4 / SCENIC_ADDR6 / SCENIC_PEER6 and SCENIC_PEER_MAC.

# This folder: the script's own when it is an eth script; a library that sources this one from
# elsewhere (rdma/lib.sh, the benchmarks' jobs) sets ETH_DIR first.
ETH_DIR=${ETH_DIR:-$(cd "$(dirname "$0")" && pwd)}
. "$ETH_DIR/../scenic/lib.sh"

if [ -r /run/scenicvm.env ]; then
	. /run/scenicvm.env
	VM_RIG=1
else
	VM_RIG=0 NODES=2
	NODE=${SCENIC_NODE:-} IFACE=${SCENIC_IFACE:-}
	case $NODE in
	1 | 2) ;;
	*)
		echo "# SKIP: not in the VM rig: set SCENIC_NODE=1 (sender) or 2 (receiver) and" \
			"SCENIC_IFACE on both hosts (selftests/eth/README.md)"
		exit "$KSFT_SKIP"
		;;
	esac
fi

IP=/usr/sbin/ip
PING=/usr/bin/ping
ETHTOOL=/usr/sbin/ethtool
IPERF=/usr/bin/iperf3
RAWSEND=$ETH_DIR/rawsend
PEER=$((3 - NODE))
ADDR4=${SCENIC_ADDR4:-10.0.0.$NODE}
PEER4=${SCENIC_PEER4:-10.0.0.$PEER}
ADDR6=${SCENIC_ADDR6:-fd00::$NODE}
PEER6=${SCENIC_PEER6:-fd00::$PEER}
if [ $VM_RIG = 1 ]; then
	MYMAC=$(printf '52:54:00:5c:00:%02x' "$NODE")
	PEERMAC=$(printf '52:54:00:5c:00:%02x' "$PEER")
else
	MYMAC=$(cat "/sys/class/net/$IFACE/address" 2>/dev/null)
	PEERMAC=${SCENIC_PEER_MAC:-}
	export SCENIC_NODE SCENIC_PEER4="$PEER4"	# for scenic-barrier
	# the barrier's listener (busybox nc), for as long as this script runs
	BARRIER_DIR=$ETH_DIR
	[ -x "$BARRIER_DIR/scenic-barrier" ] || BARRIER_DIR=$ETH_DIR/../../tools/vm/guest
	PATH=$BARRIER_DIR:$PATH
	busybox nc -ll -p 5790 -e "$BARRIER_DIR/scenic-barrier-recv" 2>/dev/null &
	BARRIER_LISTENER=$!
	trap 'kill $BARRIER_LISTENER 2>/dev/null' EXIT
fi
XFER_PORT=5791

# node_addr4 N: the IPv4 address of node N of a cluster (selftests/cluster): the Nth word of
# SCENIC_NODE_ADDRS4 when set, else the rig's 10.0.0.N.
node_addr4() {
	# shellcheck disable=SC2086
	[ -n "${SCENIC_NODE_ADDRS4:-}" ] && { set -- "$1" $SCENIC_NODE_ADDRS4; shift "$1"; echo "$1"; return; }
	echo "10.0.0.$1"
}

# sync_peer NAME [TIMEOUT_S]: barrier with the other node (over the wire under test).
sync_peer() {
	scenic-barrier "$1" "${2:-30}" || { tap_diag "barrier $1 timed out"; return 1; }
}

# The test interface: the one with this node's MAC (its name may change after rmmod/modprobe).
find_iface() {
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$MYMAC" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

iface_driver() { basename "$(readlink "/sys/class/net/$IFACE/device/driver" 2>/dev/null)" 2>/dev/null; }
# True when this node's interface is the SCENIC card's netdev (else e.g. a virtio-net peer).
is_scenic() { $ETHTOOL -i "$IFACE" 2>/dev/null | grep -q '^driver: scenic'; }
peer_is_scenic() { [ "${PEER_NIC:-scenic}" = scenic ]; }

# IPv6 address (no DAD: usable at once) and both addresses re-added after a re-probe.
addr_setup() {
	$IP link set dev "$IFACE" up
	$IP addr add "$ADDR4/24" dev "$IFACE" 2>/dev/null
	$IP -6 addr add "$ADDR6/64" dev "$IFACE" nodad 2>/dev/null
	wait_for 50 oper_up
}
oper_up() { [ "$(cat "/sys/class/net/$IFACE/operstate" 2>/dev/null)" = up ]; }

# estat NAME: one `ethtool -S` value (empty when there is no such counter).
estat() { $ETHTOOL -S "$IFACE" 2>/dev/null | awk -v n="$1:" '$1 == n { print $2; exit }'; }
# snap FILE: all `ethtool -S` counters plus the ICMP counters, as "name value" lines.
snap() {
	{
		$ETHTOOL -S "$IFACE" 2>/dev/null | awk -F: 'NF == 2 { gsub(/ /, ""); print $1, $2 }'
		awk '/^Icmp:/ { if (!h) { for (i = 2; i <= NF; i++) k[i] = $i; h = 1 }
			else for (i = 2; i <= NF; i++) print "icmp_" k[i], $i }' /proc/net/snmp
		echo "eth_irqs $(eth_irqs)"
	} >"$1"
}
# delta A B NAME: B - A for NAME in two snap files (0 when missing).
delta() {
	awk -v n="$3" 'FNR == NR { if ($1 == n) a = $2; next } $1 == n { b = $2 } END { print b - a }' "$1" "$2"
}
# Interrupts of this card's ETH vector (sum over CPUs of the scenic-eth@<bdf> lines).
eth_irqs() {
	awk '$NF ~ /^scenic-eth/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; else break }
		END { print s + 0 }' /proc/interrupts
}
# reg NAME: an ETH register of the card, e.g. reg IRQ_COAL -> 0x00000040: from the driver's
# debugfs "regs" (eth.NAME) when it lists it, else read on BAR0 with devmem (the VM boots with
# iomem=relaxed); REG_SRC says which. Offsets: docs/register-map.md, block eth at 0x1000.
reg() {
	REG_SRC=debugfs
	_rg=$(cat /sys/kernel/debug/scenic/*/regs 2>/dev/null | awk -v n="eth.$1" '$1 == n { print $3; exit }')
	[ -n "$_rg" ] && { echo "$_rg"; return 0; }
	REG_SRC=devmem
	case $1 in
	CTRL) _ro=0x101c ;; MTU) _ro=0x1020 ;; RX_RING_STRIDE) _ro=0x1038 ;;
	RX_RING_SIZE) _ro=0x103c ;; TX_RING_SIZE) _ro=0x1058 ;;
	IRQ_COAL) _ro=0x1070 ;; IRQ_TIME) _ro=0x1074 ;; IRQ_MASK) _ro=0x1078 ;;
	*) return 1 ;;
	esac
	_bdf=$(scenic_bdf) || return 1
	_bar0=$(awk 'NR == 1 { print $1; exit }' "/sys/bus/pci/devices/$_bdf/resource")
	devmem $((_bar0 + _ro)) 32 2>/dev/null
}
# debugfs_has NAME: the driver's debugfs "regs" lists eth.NAME.
debugfs_has() { cat /sys/kernel/debug/scenic/*/regs 2>/dev/null | awk -v n="eth.$1" '$1 == n { f = 1 } END { exit !f }'; }

# ping_count OUTPUT_FILE: "transmitted received" from a saved ping output.
ping_count() {
	sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) \(packets \)\{0,1\}received.*/\1 \2/p' "$1"
}

# xfer_serve FILE: offer FILE to the peer once (background, bounded); xfer_fetch OUT: get it.
xfer_serve() { timeout 30 nc -l -p $XFER_PORT <"$1" >/dev/null 2>&1 & }
xfer_fetch() {
	_xf_i=0
	while [ $_xf_i -lt 10 ]; do
		# busybox nc quits at EOF on stdin: keep it open while the peer sends (and closes)
		sleep 3 | timeout 4 nc "$PEER4" $XFER_PORT >"$1" 2>/dev/null
		[ -s "$1" ] && return 0
		_xf_i=$((_xf_i + 1))
		sleep 0.3
	done
	return 1
}

# wire_inject "count=N hex=BYTES": asks the VM runner to put frames into this node's end of the
# wire (tools/vm/README.md); on the console, which the runner reads as it goes, not in the TAP.
wire_inject() { echo "SCENIC-WIRE-INJECT $1" >/dev/console; }

# no_oops_eth: no kernel WARN/BUG/oops/hung task/lockup line since this script started (a host
# that is not the VM rig may have such lines from before, e.g. from its own boot).
OOPS_ETH_RE='Oops|BUG|WARNING|hung_task|soft lockup|rcu_sched detected'
OOPS_ETH_AT_START=$(dmesg 2>/dev/null | grep -c -E "$OOPS_ETH_RE")
no_oops_eth() {
	_no_new=$(($(dmesg | grep -c -E "$OOPS_ETH_RE") - OOPS_ETH_AT_START))
	if [ "$_no_new" -gt 0 ]; then
		dmesg | grep -E "$OOPS_ETH_RE" | tail -n "$_no_new" | tail -n 5 | sed 's/^/# dmesg: /'
		return 1
	fi
	return 0
}

# peer_lladdr: the peer's MAC as learnt by ARP (after a ping), into PEER_LLADDR.
peer_lladdr() {
	PEER_LLADDR=$($IP neigh show "$PEER4" dev "$IFACE" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	[ -n "$PEER_LLADDR" ]
}

# wait_quiet: until this card's rx_frames + tx_frames did not move for 3 s (at most 12 s): the
# last frames of a barrier (TCP teardown, nc idle timeouts of 2 s) are off the wire.
wait_quiet() {
	_wq_last=-1 _wq_same=0 _wq_n=0
	while [ $_wq_n -lt 12 ]; do
		_wq_v=$(( $(estat rx_frames) + $(estat tx_frames) ))
		if [ "$_wq_v" = "$_wq_last" ]; then
			_wq_same=$((_wq_same + 1))
			[ $_wq_same -ge 3 ] && return 0
		else
			_wq_same=0
		fi
		_wq_last=$_wq_v
		_wq_n=$((_wq_n + 1))
		sleep 1
	done
	tap_diag "wire not quiet after 12 s"
	return 1
}

# Pin the peer's neighbour entries (no ARP/ND traffic inside measurement windows).
pin_neigh() {
	_pn_mac=$($IP neigh show "$PEER4" dev "$IFACE" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }')
	[ -n "$_pn_mac" ] || return 1
	PEER_LLADDR=$_pn_mac
	$IP neigh replace "$PEER4" lladdr "$_pn_mac" dev "$IFACE" nud permanent
	$IP -6 neigh replace "$PEER6" lladdr "$_pn_mac" dev "$IFACE" nud permanent
}

[ -n "$IFACE" ] || IFACE=$(find_iface)
