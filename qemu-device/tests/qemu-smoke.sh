#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke test of the QEMU device (glue + model) without any driver: boots Debian's kernel with a
# busybox initramfs and three scenic devices, and pokes them from the guest through sysfs and
# /dev/mem: PCI identity and capabilities, register blocks, scratch, soft reset, FLR, the
# interrupt self-test (seen in the MSI-X PBA), the DMA self-test (with and without bus
# mastering), hostile accesses, msix=off and x-bad-block-version=on. Output is TAP.
#
#   qemu-device/tests/qemu-smoke.sh [path/to/qemu-system-x86_64]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
qemu=${1:-$top/build/qemu/qemu-system-x86_64}
kver=${SCENIC_GUEST_KERNEL:-6.1.0-57-amd64}
kernel=/boot/vmlinuz-$kver
busybox=/bin/busybox
timeout_s=${SCENIC_SMOKE_TIMEOUT:-180}

[ -x "$qemu" ] || { echo "qemu-smoke: $qemu not found (run qemu-device/build-qemu.sh)" >&2; exit 1; }
[ -r "$kernel" ] || { echo "qemu-smoke: $kernel not found" >&2; exit 1; }
file -L "$busybox" | grep -q 'statically linked' ||
	{ echo "qemu-smoke: $busybox is not static (install busybox-static)" >&2; exit 1; }

work=$(mktemp -d)
qpid=
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev"
cp "$busybox" "$work/root/bin/busybox"
cat >"$work/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
# check DESCRIPTION EXPECTED ACTUAL (numbers, any base the shell understands)
check() {
	if [ -n "$3" ] && [ "$(($2))" -eq "$(($3))" ] 2>/dev/null; then ok "$1"; else notok "$1: expected $2, got $3"; fi
}
cfg8() { echo $(od -An -tu1 -j $(($2)) -N1 "$1/config"); }
cfg16() { echo $(od -An -tu2 -j $(($2)) -N2 "$1/config"); }
cfg32() { echo $(od -An -tu4 -j $(($2)) -N4 "$1/config"); }
setcfg8() { printf "\\$(printf %o $(($3)))" | dd of="$1/config" bs=1 seek=$(($2)) count=1 conv=notrunc 2>/dev/null; }
# Offset of capability ID $2 in the standard list, 0 if absent.
findcap() {
	off=$(cfg8 "$1" 0x34)
	while [ "$off" -ne 0 ]; do
		[ "$(cfg8 "$1" "$off")" -eq "$(($2))" ] && { echo "$off"; return; }
		off=$(cfg8 "$1" $((off + 1)))
	done
	echo 0
}
bar() { set -- $(sed -n "$(($2 + 1))p" "$1/resource"); echo "$1"; }
rd() { devmem $(($1)) 32; }
wr() { devmem $(($1)) 32 $(($2)); }

A=/sys/bus/pci/devices/0000:00:10.0 # default: msix=on, netdev, mac 02:5c:00:00:00:07
B=/sys/bus/pci/devices/0000:00:11.0 # msix=off
C=/sys/bus/pci/devices/0000:00:12.0 # x-bad-block-version=on
DMABUF=0x10000000                   # reserved with memmap= on the command line

for d in $A $B $C; do
	[ -e $d/config ] || { echo "Bail out! $d missing"; echo "SMOKE-RESULT fail=missing"; poweroff -f; }
	check "$d vendor" 0x10ee "$(cat $d/vendor)"
	check "$d device" 0x5c01 "$(cat $d/device)"
	check "$d class" 0x020000 "$(cat $d/class)"
	check "$d subsystem vendor" 0x10ee "$(cat $d/subsystem_vendor)"
	check "$d subsystem device" 0x0001 "$(cat $d/subsystem_device)"
	setcfg8 $d 4 0x06 # memory decoding and bus mastering
done

a=$(bar $A 0)
# Register blocks: follow NEXT from 0.
off=0
types=
while :; do
	types="$types $(rd $a+$off)"
	off=$(rd $a+$off+8)
	[ $((off)) -eq 0 ] && break
	[ $((off)) -ge 65536 ] && break
done
[ "$types" = " 0x5C1C0001 0x5C1C0002 0x5C1C0003 0x5C1C0004" ] && ok "block walk" || notok "block walk:$types"
check "core version" 0x00020000 "$(rd $a+4)"
check "eth version" 0x00010001 "$(rd $a+0x1004)"
check "core id (emulated, U55C)" 0x80000001 "$(rd $a+0x0c)"
check "msix_vectors" 32 "$(rd $a+0x20)"
check "mac_hi" 0x025c "$(rd $a+0x1010)"
check "mac_lo" 0x00000007 "$(rd $a+0x100c)"
check "link up, 100G" 0x6401 "$(rd $a+0x1014)"
check "max_mtu" 9000 "$(rd $a+0x1018)"

pcie=$(findcap $A 0x10)
[ "$pcie" -ne 0 ] && ok "PCIe capability" || notok "no PCIe capability"
check "FLR capable" 1 "$(( ($(cfg32 $A $((pcie + 4))) >> 28) & 1 ))"
msix=$(findcap $A 0x11)
[ "$msix" -ne 0 ] && ok "MSI-X capability" || notok "no MSI-X capability"
check "MSI-X table size" 31 "$(( $(cfg16 $A $((msix + 2))) & 0x7ff ))"
check "MSI-X in BAR2" 2 "$(( $(cfg32 $A $((msix + 4))) & 7 ))"

# Scratch, soft reset, FLR.
wr $a+0x1c 0xa5a5f00d
check "scratch" 0xa5a5f00d "$(rd $a+0x1c)"
wr $a+0x18 1
check "soft reset clears scratch" 0 "$(rd $a+0x1c)"
wr $a+0x1c 0x12345678
echo flr >$A/reset_method 2>/dev/null && ok "reset method flr" || notok "reset method flr refused"
echo 1 >$A/reset
check "FLR clears scratch" 0 "$(rd $a+0x1c)"
setcfg8 $A 4 0x06 # the reset cleared the command register

# Interrupt self-test: enable MSI-X with every vector masked, the vector shows up in the PBA.
setcfg8 $A $((msix + 3)) 0x80
a2=$(bar $A 2)
pba=$(( $(cfg32 $A $((msix + 8))) & ~7 ))
check "PBA clear" 0 "$(rd $a2+$pba)"
wr $a+0x24 5
check "irq_test vector 5 pending" 0x20 "$(rd $a2+$pba)"
check "irq_test_count" 1 "$(rd $a+0x28)"
wr $a+0x24 32
check "irq_test out of range refused" 1 "$(rd $a+0x2c)"
check "irq_test out of range raises nothing" 0x20 "$(rd $a2+$pba)"

# DMA self-test: CRC-32 of "123456789" is 0xcbf43926, written back after the buffer.
i=0
for c in 0x31 0x32 0x33 0x34 0x35 0x36 0x37 0x38 0x39 0 0 0 0; do
	devmem $((DMABUF + i)) 8 $c
	i=$((i + 1))
done
wr $a+0x30 $DMABUF
wr $a+0x34 0
wr $a+0x38 9
wr $a+0x3c 1
sleep 1
check "dma test done" 2 "$(rd $a+0x3c)"
check "dma test crc" 0xcbf43926 "$(rd $a+0x40)"
got=0
for i in 12 11 10 9; do got=$(( (got << 8) | $(devmem $((DMABUF + i)) 8) )); done
check "dma test crc written to host memory" 0xcbf43926 "$got"
check "dma test raised vector 0" 0x21 "$(rd $a2+$pba)"
setcfg8 $A 4 0x02 # no bus mastering: the DMA must fail
wr $a+0x3c 1
sleep 1
check "dma without bus mastering: error" 6 "$(rd $a+0x3c)"
setcfg8 $A 4 0x06
wr $a+0x38 5000
wr $a+0x3c 1
sleep 1
check "dma length out of range: error" 6 "$(rd $a+0x3c)"

# SCU: BAR3 is a 32-bit BAR of 16 x 64 KiB CSR windows; slot 5's passthrough IRQ_RAISE (CSR 7)
# raises vector 16 + 5 (pending in the PBA: every table entry is masked).
check "scu block version 1.2" 0x00010002 "$(rd $a+0x3004)"
check "scu irq_lines" 4 "$(rd $a+0x3018)"
check "scu reconfig_us default" 8000 "$(rd $a+0x3020)"
check "BAR3 is 32-bit memory" 0 "$(( $(cfg32 $A 0x1c) & 7 ))"
set -- $(sed -n 4p $A/resource)
check "BAR3 size" 0x100000 "$(( $2 - $1 + 1 ))"
a3=$(bar $A 3)
check "BAR3 slot 3 ID low" 0x41535331 "$(rd $a3+0x30000)"
check "BAR3 slot 3 ID high" 0x53435550 "$(rd $a3+0x30004)"
check "BAR3 slot 0 reads 0" 0 "$(rd $a3+0x0)"
wr $a3+0x50008 0xcafef00d
check "BAR3 slot 5 scratch" 0xcafef00d "$(rd $a3+0x50008)"
check "BAR3 slot 6 scratch untouched" 0 "$(rd $a3+0x60008)"
wr $a3+0x50038 2
check "scu slot 5 irq status" 2 "$(rd $a+0x3154)"
check "scu slot 5 vector 21 pending" 0x200021 "$(rd $a2+$pba)"
wr $a+0x3154 2
check "scu slot 5 irq status w1c" 0 "$(rd $a+0x3154)"

# Hostile accesses read 0 and change nothing (sizes other than 4 bytes).
wr $a+0x1c 0x11223344
check "8-bit read" 0 "$(devmem $a 8)"
check "16-bit read" 0 "$(devmem $a 16)"
# (busybox's devmem has no 64-bit accesses. TCG splits an unaligned load into aligned loads of
# the same size, so an unaligned 16-bit read reaches the device as two 16-bit reads.)
check "unaligned 16-bit read" 0 "$(devmem $((a + 0x1d)) 16)"
devmem $((a + 0x1c)) 8 0xff
devmem $((a + 0x1e)) 32 0xffffffff
check "partial writes ignored" 0x11223344 "$(rd $a+0x1c)"
check "hole reads 0" 0 "$(rd $a+0x8000)"
check "end of BAR0 reads 0" 0 "$(rd $a+0xfffc)"

# msix=off: no MSI-X capability, MSIX_VECTORS 0, IRQ_TEST refused.
b=$(bar $B 0)
check "msix=off: no MSI-X capability" 0 "$(findcap $B 0x11)"
check "msix=off: msix_vectors" 0 "$(rd $b+0x20)"
wr $b+0x24 0
check "msix=off: irq_test refused" 1 "$(rd $b+0x2c)"

# x-bad-block-version=on: the ETH block has major 0x7f.
c=$(bar $C 0)
check "bad block version" 0x007f0000 "$(rd $c+0x1004)"
check "bad block version: core unchanged" 0x00020000 "$(rd $c+4)"
check "scu-reconfig-us=250" 250 "$(rd $c+0x3020)"

echo "1..$n"
echo "SMOKE-RESULT fail=$fail"
poweroff -f
INIT
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

"$qemu" -L /usr/share/seabios -L /usr/share/qemu -machine q35 -m 512 -smp 1 \
	-nographic -no-reboot -nic none \
	-netdev dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=0,remote.type=inet,remote.host=127.0.0.1,remote.port=9 \
	-device scenic,addr=0x10,netdev=n0,mac=02:5c:00:00:00:07 \
	-device scenic,addr=0x11,msix=off \
	-device scenic,addr=0x12,x-bad-block-version=on,scu-reconfig-us=250 \
	-kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 memmap=1M\$0x10000000" \
	>"$work/console.log" 2>&1 </dev/null &
qpid=$!
for _ in $(seq "$timeout_s"); do
	kill -0 "$qpid" 2>/dev/null || break
	sleep 1
done
if kill -0 "$qpid" 2>/dev/null; then
	echo "qemu-smoke: guest did not finish within ${timeout_s}s" >&2
	tail -n 30 "$work/console.log" >&2
	exit 1
fi
wait "$qpid" || true
qpid=

tr -d '\r' <"$work/console.log" | grep -E '^(ok|not ok|1\.\.)' || true
if ! grep -q 'SMOKE-RESULT fail=0' "$work/console.log"; then
	echo "qemu-smoke: FAILED" >&2
	tr -d '\r' <"$work/console.log" | tail -n 40 >&2
	exit 1
fi
echo "qemu-smoke: all passed"
