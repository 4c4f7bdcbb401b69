#!/bin/sh
# SPDX-License-Identifier: MIT
# offload.sh (both nodes): the ETH 1.1 offloads (docs/eth-offloads.md, docs/eth-path.md).
# A SCENIC node checks that `ethtool -k` lists scatter-gather, TX checksum (generic), TSO,
# TSO6 and RX checksum, that turning TX checksum off also turns SG and TSO off, and puts them
# back. Then node 1 sends a 1.3 MB file (TCP over IPv4, nc) four times, node 2 checks its
# SHA-256 each time, and both check the card's counters: (1) all on: node 1's tx_tso_packets
# and tx_csum move, its tx_tso_segments exceed its TSO packets, node 2's card counts
# rx_csum_good and never drops an oversize frame; (2) node 2 `rx off`: rx_csum_good stays, the
# kernel verifies every TCP checksum (Tcp InCsumErrors unchanged); (3) node 1 `tx off`: its
# tx_tso_packets and tx_csum stay; (4) UDP (iperf3 -u, checksum offload) and TCP over IPv6
# (TSO6) with node 2 still verifying in software: Udp/Tcp InCsumErrors unchanged, datagrams
# received. Finally node 1 has the wire deliver UDP frames with good and with bad checksums to
# itself: good ones count in rx_csum_good and reach UDP (NoPorts), bad ones count in the card's
# rx_csum_bad and the driver's rx_csum_err and are dropped by the kernel's own check (Udp
# InCsumErrors), so they were not marked CHECKSUM_UNNECESSARY. Last, node 1 reloads scenic_eth
# with max_minor=0 (the ETH 1.0 contract, as on a card without FEATURES): no offloads listed,
# a fourth transfer checked, the card's TX_CSUM register unchanged; then the defaults again.
. "$(dirname "$0")/lib.sh"

T=/tmp/eth-offload
mkdir -p $T
[ -n "$IFACE" ] || { tap_plan 1; tap_fail "test interface" "none with MAC $MYMAC"; tap_done; }
SCENIC=0
is_scenic && SCENIC=1
addr_setup	# fd00::N for the TCP over IPv6 run

# A file both nodes can make (deterministic, 1.3 MB), big enough for many TSO packets.
seq 1 200000 >$T/file
WANT=$(sha256sum <$T/file | cut -d' ' -f1)
SIZE=$(wc -c <$T/file)

# snmp PROTO FIELD: a /proc/net/snmp counter (e.g. snmp Udp InCsumErrors).
snmp() {
	awk -v p="$1:" -v f="$2" '$1 == p { if (!h) { for (i = 2; i <= NF; i++) k[i] = $i; h = 1 }
		else for (i = 2; i <= NF; i++) if (k[i] == f) print $i }' /proc/net/snmp
}
csum_errors_seen() { [ $(($(snmp Udp InCsumErrors) - udp_err)) -ge 20 ]; }
feature() { $ETHTOOL -k "$IFACE" | awk -v n="$1:" '$1 == n { print $2; exit }'; }
# features_are VALUE NAME...: every named feature reads VALUE.
features_are() {
	_fv=$1
	shift
	for _fn in "$@"; do
		[ "$(feature "$_fn")" = "$_fv" ] || { tap_diag "$_fn: $(feature "$_fn")"; return 1; }
	done
}
ALL="scatter-gather tx-checksum-ip-generic tcp-segmentation-offload tx-tcp-segmentation tx-tcp6-segmentation rx-checksumming"

# serve_file / fetch_file OUT: node 1 offers the file once, node 2 reads it until it has every
# byte or 60 s passed (lib's xfer_serve/xfer_fetch give 30 s / 4 s, too short for a loaded host
# with a virtio-net peer). busybox nc quits at EOF on its stdin: a sleep keeps that open; both
# it and nc are ended by pid.
serve_file() { timeout 70 nc -l -p $XFER_PORT <$T/file >/dev/null 2>&1 & }
got_all() { [ "$(wc -c <"$1" 2>/dev/null || echo 0)" -ge "$SIZE" ]; }
fetch_file() {
	rm -f "$1"
	{ sleep 61 & echo $! >$T/sleep.pid; wait; } | timeout 62 nc "$PEER4" $XFER_PORT >"$1" 2>/dev/null &
	_ff_nc=$!
	_ff_n=0
	while [ $_ff_n -lt 600 ] && ! got_all "$1" && kill -0 $_ff_nc 2>/dev/null; do
		sleep 0.1
		_ff_n=$((_ff_n + 1))
	done
	kill "$(cat $T/sleep.pid 2>/dev/null)" $_ff_nc 2>/dev/null
	wait $_ff_nc 2>/dev/null
	got_all "$1"
}
# One transfer, node 1 -> node 2; node 2 checks the data.
transfer() {
	if [ "$NODE" = 1 ]; then
		serve_file
		sync_peer "xfer-$1" 60
		sync_peer "xfer-$1-done" 120
		wait
	else
		sync_peer "xfer-$1" 60
		if fetch_file $T/got && [ "$(sha256sum <$T/got | cut -d' ' -f1)" = "$WANT" ]; then
			tap_ok "$1: 1.3 MB node 1 -> node 2 over TCP, SHA-256 matches"
		else
			tap_fail "$1: 1.3 MB node 1 -> node 2 over TCP" "got $(wc -c <$T/got 2>/dev/null) bytes, hash differs"
		fi
		rm -f $T/got
		sync_peer "xfer-$1-done" 120
	fi
}
# check NAME COND: tap_ok when the shell condition holds.
check() { if eval "$2"; then tap_ok "$1"; else tap_fail "$1" "$2"; fi; }

if [ "$NODE" = 1 ]; then tap_plan 15; else tap_plan 12; fi

# ---- local features
if [ $SCENIC = 1 ]; then
	tap_result "ethtool -k: $ALL on" "see diagnostics" features_are on $ALL
	$ETHTOOL -K "$IFACE" tx off >/dev/null 2>&1
	tap_result "ethtool -K tx off: SG and TSO follow" "see diagnostics" \
		features_are off tx-checksum-ip-generic scatter-gather tcp-segmentation-offload
	$ETHTOOL -K "$IFACE" tx on sg on tso on >/dev/null 2>&1
	tap_result "ethtool -K tx on sg on tso on: all back" "see diagnostics" features_are on $ALL
else
	tap_skip "ethtool -k" "not a SCENIC interface ($(iface_driver))"
	tap_skip "ethtool -K tx off" "not a SCENIC interface"
	tap_skip "ethtool -K tx on" "not a SCENIC interface"
fi
pin_neigh || tap_diag "no neighbour entry for $PEER4 yet"

# ---- (1) all on
snap $T/a
transfer on
snap $T/b
if [ "$NODE" = 1 ]; then
	tso=$(delta $T/a $T/b tx_tso_packets) segs=$(delta $T/a $T/b tx_tso_segments)
	csum=$(delta $T/a $T/b tx_csum)
	echo "# on: tx_tso_packets +$tso tx_tso_segments +$segs tx_csum +$csum"
	check "on: the card segmented TSO packets (+$tso) into more frames (+$segs)" \
		"[ $tso -gt 0 ] && [ $segs -gt $tso ]"
	check "on: the card inserted checksums (+$csum >= +$segs)" "[ $csum -ge $segs ]"
else
	if [ $SCENIC = 1 ]; then
		good=$(delta $T/a $T/b rx_csum_good) over=$(delta $T/a $T/b rx_drop_oversize)
		check "on: rx_csum_good +$good, rx_drop_oversize +$over (every segment <= MTU + 14)" \
			"[ $good -gt 300 ] && [ $over -eq 0 ]"
	else
		tap_skip "on: receiver counters" "not a SCENIC interface"
	fi
fi

# ---- (2) receiver verifies in software
[ "$NODE" = 2 ] && [ $SCENIC = 1 ] && $ETHTOOL -K "$IFACE" rx off >/dev/null 2>&1
tcp_err=$(snmp Tcp InCsumErrors)
snap $T/a
transfer rx-off
snap $T/b
if [ "$NODE" = 1 ]; then
	tso=$(delta $T/a $T/b tx_tso_packets)
	check "rx-off: node 1 still sends TSO (+$tso)" "[ $tso -gt 0 ]"
else
	e=$(($(snmp Tcp InCsumErrors) - tcp_err))
	if [ $SCENIC = 1 ]; then
		good=$(delta $T/a $T/b rx_csum_good)
		check "rx-off: rx_csum_good +$good, kernel Tcp InCsumErrors +$e" "[ $good -eq 0 ] && [ $e -eq 0 ]"
	else
		check "rx-off: kernel Tcp InCsumErrors +$e" "[ $e -eq 0 ]"
	fi
fi

# ---- (3) sender without offloads
[ "$NODE" = 1 ] && $ETHTOOL -K "$IFACE" tx off sg off tso off >/dev/null 2>&1
snap $T/a
transfer tx-off
snap $T/b
if [ "$NODE" = 1 ]; then
	tso=$(delta $T/a $T/b tx_tso_packets) csum=$(delta $T/a $T/b tx_csum)
	frames=$(delta $T/a $T/b tx_frames)
	check "tx-off: tx_tso_packets +$tso, tx_csum +$csum, tx_frames +$frames" \
		"[ $tso -eq 0 ] && [ $csum -eq 0 ] && [ $frames -gt 300 ]"
	$ETHTOOL -K "$IFACE" tx on sg on tso on >/dev/null 2>&1
fi

# ---- (4) UDP checksum offload and TSO6, node 2 verifying in software
if [ "$NODE" = 2 ]; then
	udp_err=$(snmp Udp InCsumErrors) udp_in=$(snmp Udp InDatagrams) tcp_err=$(snmp Tcp InCsumErrors)
	$IPERF -s >$T/server.log 2>&1 &
	srv=$!
	wait_for 50 sh -c "/usr/bin/ss -ltn | grep -q ':5201 '"
	sync_peer off-iperf 60
	sync_peer off-iperf-done 120
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	ue=$(($(snmp Udp InCsumErrors) - udp_err)) ui=$(($(snmp Udp InDatagrams) - udp_in))
	te=$(($(snmp Tcp InCsumErrors) - tcp_err))
	check "udp: $ui datagrams received, Udp InCsumErrors +$ue" "[ $ui -gt 500 ] && [ $ue -eq 0 ]"
	check "tcp6: Tcp InCsumErrors +$te" "[ $te -eq 0 ]"
	[ $SCENIC = 1 ] && $ETHTOOL -K "$IFACE" rx on >/dev/null 2>&1
else
	snap $T/a
	sync_peer off-iperf 60
	timeout 30 $IPERF -c "$PEER4" -u -b 20M -l 1400 -t 3 --connect-timeout 5000 >$T/udp.out 2>&1
	us=$?
	snap $T/b
	timeout 30 $IPERF -6 -c "$PEER6" -t 3 --connect-timeout 5000 >$T/tcp6.out 2>&1
	ts=$?
	snap $T/c
	sync_peer off-iperf-done 120
	grep -E 'receiver$' $T/udp.out $T/tcp6.out | sed 's/^/# /'
	[ $ts -eq 0 ] || tail -n 3 $T/tcp6.out | sed 's/^/# tcp6: /'
	csum=$(delta $T/a $T/b tx_csum) tso6=$(delta $T/b $T/c tx_tso_packets)
	check "udp: iperf3 -u exit $us, tx_csum +$csum" "[ $us -eq 0 ] && [ $csum -gt 500 ]"
	check "tcp6: iperf3 -6 exit $ts, tx_tso_packets +$tso6" "[ $ts -eq 0 ] && [ $tso6 -gt 0 ]"
fi

# ---- bad checksums on RX (node 1 receives frames the wire injects: 10.0.0.2 -> 10.0.0.1:9)
GOOD=5254005c00015254005c000208004500003c123440004011147b0a0000020a0000019c4000090028b5937363656e69632d6f66666c6f61642d6373756d2d746573740000000000000000
BAD=5254005c00015254005c000208004500003c123440004011147b0a0000020a0000019c4000090028b5937363656e69632d6f66666c6f61642d6373756d2d74657374000000000000005a
if [ "$NODE" = 1 ]; then
	if [ $VM_RIG = 1 ]; then
		wait_quiet
		snap $T/a
		udp_err=$(snmp Udp InCsumErrors) noports=$(snmp Udp NoPorts)
		wire_inject "count=20 hex=$GOOD"
		wire_inject "count=20 hex=$BAD"
		wait_for 100 csum_errors_seen
		sleep 1
		snap $T/b
		ue=$(($(snmp Udp InCsumErrors) - udp_err)) np=$(($(snmp Udp NoPorts) - noports))
		bad=$(delta $T/a $T/b rx_csum_bad) err=$(delta $T/a $T/b rx_csum_err)
		good=$(delta $T/a $T/b rx_csum_good)
		check "bad UDP checksums: card rx_csum_bad +$bad, driver rx_csum_err +$err, kernel InCsumErrors +$ue" \
			"[ $bad -eq 20 ] && [ $err -eq 20 ] && [ $ue -eq 20 ]"
		check "good UDP checksums: rx_csum_good +$good >= 20, Udp NoPorts +$np" \
			"[ $good -ge 20 ] && [ $np -eq 20 ]"
	else
		tap_skip "bad UDP checksums" "needs the VM rig's wire injection"
		tap_skip "good UDP checksums" "needs the VM rig's wire injection"
	fi
fi
# ---- the ETH 1.0 contract: node 1 reloads scenic_eth with max_minor=0 (what a card without
# FEATURES gets): no offloads in ethtool -k, traffic as before, the card inserts no checksum
# (its TX_CSUM register, read on BAR0), then back to the defaults.
# card_reg OFFSET: an ETH 1.1 register of the card on BAR0 (the VM boots with iomem=relaxed).
card_reg() {
	_bar0=$(awk 'NR == 1 { print $1; exit }' "/sys/bus/pci/devices/$(scenic_bdf)/resource")
	printf '%d\n' "$(devmem $((_bar0 + $1)) 32 2>/dev/null)"
}
reload_eth() {
	$RMMOD scenic_eth && $MODPROBE scenic_eth "$@" || return 1
	iface_back() { find_iface >/dev/null; }
	wait_for 50 iface_back
	IFACE=$(find_iface)
	[ -n "$IFACE" ] && addr_setup && pin_neigh_retry
}
pin_neigh_retry() { $PING -c 1 -w 5 "$PEER4" >/dev/null 2>&1; pin_neigh; true; }
if [ "$NODE" = 1 ]; then
	reload_eth max_minor=0 || tap_diag "reload with max_minor=0 failed"
	sync_peer compat-ready 90
	tap_result "max_minor=0: $ALL off" "see diagnostics" features_are off $ALL
	csum0=$(card_reg 0x1210)
	snap $T/a
	transfer compat
	snap $T/b
	csum1=$(card_reg 0x1210)
	frames=$(delta $T/a $T/b tx_frames)
	check "max_minor=0: tx_frames +$frames, card TX_CSUM $csum0 -> $csum1" \
		"[ $frames -gt 300 ] && [ -n '$csum0' ] && [ '$csum0' = '$csum1' ]"
	reload_eth || tap_diag "reload with the defaults failed"
	tap_result "reloaded with the defaults: $ALL on" "see diagnostics" features_are on $ALL
else
	sync_peer compat-ready 90
	transfer compat
fi
tap_result "no oops" "see dmesg" no_oops_eth
tap_done
