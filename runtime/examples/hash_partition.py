#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Example: set up the hash-partition SCU (docs/scu-hash-partition.md) on a slot. Copy it as the
start of your own SCU program.

    hash_partition.py IMAGE [SLOT [PARTS]]   (IMAGE: hash_partition.scuimg from `make runtime`)

Loads the image (the paper's Code 1: ScenicReconfig, then a ScenicThread on the slot), binds the
thread's PD to the slot's memory port, registers one output buffer per partition (bytearrays:
any writable buffer, NumPy arrays too, is registered without a copy), writes the row format and
the buffers into the CSRs, enables the SCU and creates a QP on the slot: every RDMA WRITE that
QP receives is partitioned into the buffers. The module has no verbs calls to post the WRITE
(use pyverbs, or the C++ example hash_partition.cpp, which runs one and checks every row); this
one checks what a peer sent with check(), a reference of the SCU's hash in Python."""
import sys

import scenic

# hash-partition's CSRs (hw-rtl/scu/hash_partition/scu.toml)
ID, CTRL, ROW_BYTES, KEY_OFFSET, KEY_BYTES, PARTS, FLUSH, STATUS, PKTS, ROWS = range(10)
PART0, PART_STRIDE = 16, 8  # partition p at 16 + 8p: OUT_KEY, OUT_IOVA, OUT_SIZE, ROWS, BYTES
OUT_KEY, OUT_IOVA, OUT_SIZE, PART_ROWS, PART_BYTES = range(5)
CTRL_ENABLE = 1
HP_ID = 0x5343554850543031  # "SCUHPT01"
ROW = 16  # an 8-byte key, then an 8-byte payload


def partition_of(key, parts):
    """The SCU's hash: fold the key's halves, times 0x9e3779b1 mod 2^32, top log2(P) bits."""
    h = (((key ^ (key >> 32)) & 0xffffffff) * 0x9e3779b1) & 0xffffffff
    bits = parts.bit_length() - 1
    return h >> (32 - bits) if bits else 0


def check(t, bufs, parts):
    """Every row the SCU wrote is in the partition of its key; returns the rows counted."""
    total = 0
    for p, buf in enumerate(bufs):
        n = t.get_csr(PART0 + PART_STRIDE * p + PART_ROWS)
        for j in range(n):
            key = int.from_bytes(buf[j * ROW:j * ROW + 8], "little")
            if partition_of(key, parts) != p:
                raise SystemExit(f"row {j} of partition {p} belongs to {partition_of(key, parts)}")
        total += n
    return total


def main():
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} IMAGE [SLOT [PARTS]]", file=sys.stderr)
        return 2
    image = sys.argv[1]
    slot = int(sys.argv[2], 0) if len(sys.argv) > 2 else 2
    parts = int(sys.argv[3], 0) if len(sys.argv) > 3 else 4

    # 1. Load the SCU, become the slot's owner, bind the PD.
    r = scenic.ScenicReconfig().reconfigure_app(slot, image)
    print(f"loaded {image} into slot {slot}, pause {r.pause_ns / 1e6:.3f} ms")
    t = scenic.ScenicThread(slot)
    if t.get_csr(ID) != HP_ID:
        print(f"slot {slot} does not run hash-partition", file=sys.stderr)
        return 1
    t.bind_pd()

    # 2. One registered output buffer per partition, and the CSRs.
    size = 1 << 20
    bufs = [bytearray(size) for _ in range(parts)]
    mrs = [t.reg(b) for b in bufs]
    t.set_csr(0, CTRL)
    t.set_csr(ROW, ROW_BYTES)
    t.set_csr(0, KEY_OFFSET)
    t.set_csr(8, KEY_BYTES)
    t.set_csr(parts, PARTS)
    for p, mr in enumerate(mrs):
        base = PART0 + PART_STRIDE * p
        t.set_csr(mr.lkey, base + OUT_KEY)
        t.set_csr(mr.addr, base + OUT_IOVA)
        t.set_csr(size, base + OUT_SIZE)
    t.set_csr(CTRL_ENABLE, CTRL)

    # 3. A QP on the slot: the WRITEs it receives are partitioned into bufs.
    qp = t.create_qp()
    print(f"QP {qp.qp_num} on slot {slot}: rows of {t.get_csr(ROW_BYTES)} bytes into "
          f"{t.get_csr(PARTS)} partitions, status {t.get_csr(STATUS)}")
    t.set_csr(1, FLUSH)
    print(f"rows so far {check(t, bufs, parts)}, SCU ROWS {t.get_csr(ROWS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
