#!/bin/sh
# SPDX-License-Identifier: MIT
# Random MMIO and doorbells from a hostile guest root (issue 15): node 1 unbinds its card from
# scenic.ko, leaves bus mastering off (so whatever rings, DMA or MSI-X the card is told to use,
# it cannot write into guest RAM), and mmio_fuzz (mmio_fuzz.c) makes 100000 register and
# doorbell accesses with a fixed seed through the sysfs BAR files. Then: QEMU is still there
# (the script goes on), the card's fault registers are printed, a function-level reset and a
# bind bring the card back (identity line, auxiliary devices, netdev, ib_device), and ping and
# ib_write_bw to node 2 pass. Node 2 is the peer of that traffic.
. "$(dirname "$0")/lib.sh"
rig_only "random MMIO into a model card: a real card is not to be fuzzed"

SEED=${MMIO_SEED:-15}
OPS=${MMIO_OPS:-100000}
PORT=18830

if [ "$NODE" = 1 ]; then tap_plan 12; else tap_plan 1; fi
addr_setup
wait_rdma || tap_diag "no RDMA device with a RoCE v2 GID on $IFACE"

if [ "$NODE" = 2 ]; then
	sync_peer mmio-back 400
	timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -p $PORT -N -s 65536 -n 100 \
		>/tmp/mmio-srv.out 2>&1 &
	srv=$!
	sync_peer mmio-bw 60
	wait $srv
	rc=$?
	tap_result "ib_write_bw from node 1's card after its reset passes (server)" \
		"exit $rc, $(tail -n 2 /tmp/mmio-srv.out | tr '\n' ';')" [ $rc = 0 ]
	sync_peer mmio-end 120
	tap_done
fi

BDF=$(scenic_bdf)
reg() { devmem $((bar0 + $1)) 32 2>/dev/null; }
bar0=$(awk 'NR == 1 { print $1; exit }' "/sys/bus/pci/devices/$BDF/resource")
ids0=$(dmesg_count "$IDENTITY_RE")
tap_result "card $BDF unbound from scenic.ko" "unbind failed" \
	sh -c "echo $BDF > /sys/bus/pci/drivers/scenic/unbind && [ ! -e /sys/bus/pci/drivers/scenic/$BDF ]"
# memory decode on, bus mastering off: the card's DMA and MSI-X go nowhere
setpci -s "$BDF" COMMAND=0x0002:0x0006
cmd=$(setpci -s "$BDF" COMMAND)
tap_result "PCI command $cmd: memory on, bus master off" "COMMAND $cmd" \
	sh -c "[ \$((0x$cmd & 6)) = 2 ]"
t0=$(date +%s)
timeout 300 "$(rdma_prog mmio_fuzz)" -b "$BDF" -s "$SEED" -n "$OPS" >/tmp/mmio.out 2>&1
rc=$?
sed 's/^/# /' /tmp/mmio.out
tap_result "mmio_fuzz: $OPS accesses (seed $SEED) made in $(($(date +%s) - t0)) s, QEMU alive" \
	"exit $rc" [ $rc = 0 ]
tap_diag "after it: FATAL_STATUS $(reg 0x180) FATAL_DETAIL $(reg 0x184) AQ_STATUS $(reg 0x114)" \
	"AEQ_LOST $(reg 0x154) HEARTBEAT $(reg 0x188)"
tap_result "BAR0 still answers: core TYPE reads 0x5c1c0001 ($(reg 0))" "TYPE $(reg 0)" \
	hexeq "$(reg 0)" 0x5c1c0001
tap_result "function-level reset (sysfs reset)" "write failed" \
	sh -c "echo 1 > /sys/bus/pci/devices/$BDF/reset"
tap_result "FATAL_STATUS is 0 after the reset ($(reg 0x180))" "$(reg 0x180)" hexeq "$(reg 0x180)" 0
echo "$BDF" >/sys/bus/pci/drivers/scenic/bind
more_ids() { [ "$(dmesg_count "$IDENTITY_RE")" -gt "$ids0" ]; }
tap_result "bind: the driver probes the card again (identity line)" \
	"$(dmesg | grep -i scenic | tail -n 3 | tr '\n' ';')" wait_for 200 more_ids
tap_result "auxiliary devices eth, rdma and scu are back" \
	"eth $(aux_count eth) rdma $(aux_count rdma) scu $(aux_count scu)" \
	wait_for 100 aux_all_present
wait_for 100 find_iface >/dev/null
IFACE=$(find_iface)
addr_setup
tap_result "ib_device back with its RoCE v2 GID on $IFACE" "$($RDMA dev 2>&1 | tr '\n' ';')" wait_rdma
tap_result "ping node 2 through the card" "no reply" \
	sh -c "$PING -c 3 -W 5 $PEER4 >/dev/null || $PING -c 3 -W 5 $PEER4 >/dev/null"
sync_peer mmio-back 120
sleep 1
sync_peer mmio-bw 60
timeout 120 /usr/bin/ib_write_bw -d "$DEV" -x "$GIDX" -p $PORT -N -s 65536 -n 100 "$PEER4" \
	>/tmp/mmio-cli.out 2>&1
rc=$?
tap_result "ib_write_bw -n 100 x 64 KiB to node 2 passes" \
	"exit $rc, $(tail -n 2 /tmp/mmio-cli.out | tr '\n' ';')" [ $rc = 0 ]
tap_result "kernel log: no WARN, BUG, oops or call trace" \
	"$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' | head -n 3 | tr '\n' ';')" \
	sh -c "! dmesg | grep -qE 'WARNING:|BUG:|Oops|Call Trace'"
sync_peer mmio-end 120
tap_done
