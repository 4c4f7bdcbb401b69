#!/usr/bin/env bash
# `make demo`: boot two emulated SCENIC nodes wired back to back and show the card in each:
# lspci, the driver's identity line, the auxiliary devices, devlink info and the netdev.
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
echo "== $(hostname): ip -br link"
ip -br link
'
exec tools/vm/scenic-vm -n 2 -q --name demo --timeout 240 --cmd "1:$show" --cmd "2:sleep 2; $show" \
	2> >(grep -v '^$' >&2) | cat
