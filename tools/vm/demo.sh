#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: boot two emulated SCENIC nodes wired back to back and show the card in each:
# lspci, the driver's identity line, the auxiliary devices, devlink info and the netdev; then
# node 1 pings node 2 over the card's fallback path.
set -euo pipefail
cd "$(dirname "$0")/../.."

show='
echo "== $(hostname): lspci -nn -d 10ee:"
lspci -nn -d 10ee:
echo "== $(hostname): dmesg identity"
dmesg | grep -E "SCENIC .* build [0-9a-f]{8}"
echo "== $(hostname): /sys/bus/auxiliary/devices"
ls /sys/bus/auxiliary/devices
echo "== $(hostname): devlink dev info"
devlink dev info
echo "== $(hostname): ip -br addr"
ip -br addr
scenic-barrier shown
'
exec tools/vm/scenic-vm -n 2 --name demo --timeout 300 \
	--cmd "1:$show"'
echo "== node1: ping -c 3 10.0.0.2 (over the SCENIC card)"
ping -c 3 -W 5 10.0.0.2' \
	--cmd "2:sleep 3; $show"
