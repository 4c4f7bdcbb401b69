#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Example: set up the aes-ctr SCU (docs/scu-aes-ctr.md) on a slot and a QP on it. Copy it as
the start of your own SCU program.

    aes_ctr.py IMAGE [SLOT]     (IMAGE: aes_ctr.scuimg from `make runtime`; SLOT default 2)

Loads the image (the paper's Code 1: ScenicReconfig, then a ScenicThread on the slot), sets the
key, the IVs and the enables through the CSRs, creates a QP whose payload goes through the SCU
and prints what the slot counted. Connect the QP with your verbs code (pyverbs, or the C++
example aes_ctr.cpp, which also runs a WRITE through it): on the peer, the same key with its
IV_RX equal to this side's IV_TX (and the other way round) decrypts."""
import sys

import scenic

# aes-ctr's CSRs (hw-rtl/scu/aes_ctr/scu.toml)
KEY_HI, KEY_LO, IV_TX_HI, IV_TX_LO, IV_RX_HI, IV_RX_LO, QPN_MASK, CTRL, ID = range(9)
BYTES = 10
CTRL_TX, CTRL_RX = 1, 2
AES_ID = 0x5343554145533031  # "SCUAES01"


def main():
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} IMAGE [SLOT]", file=sys.stderr)
        return 2
    image = sys.argv[1]
    slot = int(sys.argv[2], 0) if len(sys.argv) > 2 else 2

    # 1. Load the SCU and become the slot's owner.
    r = scenic.ScenicReconfig().reconfigure_app(slot, image)
    print(f"loaded {image} into slot {slot}, pause {r.pause_ns / 1e6:.3f} ms")
    t = scenic.ScenicThread(slot)
    if t.get_csr(ID) != AES_ID:
        print(f"slot {slot} does not run aes-ctr", file=sys.stderr)
        return 1

    # 2. Key and IVs (SP 800-38A's example values: use your own secret ones). Code 1's
    #    set_csr(key, 0) is the first half of the key.
    t.set_csr(0x2b7e151628aed2a6, KEY_HI)
    t.set_csr(0xabf7158809cf4f3c, KEY_LO)
    t.set_csr(0xf0f1f2f3f4f5f6f7, IV_TX_HI)
    t.set_csr(0xf8f9fafbfcfdfeff, IV_TX_LO)
    t.set_csr(0x0f0e0d0c0b0a0908, IV_RX_HI)  # the peer's IV_TX
    t.set_csr(0x0706050403020100, IV_RX_LO)
    t.set_csr(0xffffff, QPN_MASK)  # the QPN enters the counter: both QPs need the same number
    t.set_csr(CTRL_TX | CTRL_RX, CTRL)

    # 3. A QP on the slot: its SEND / WRITE data and READ responses leave encrypted, what it
    #    receives is decrypted before it reaches memory.
    qp = t.create_qp()
    print(f"QP {qp.qp_num} on slot {slot}; key and IVs set, CTRL {t.get_csr(CTRL)}")
    c = t.counters()
    print(f"slot {slot}: SCU BYTES {t.get_csr(BYTES)}, tx_bytes_out {c['tx_bytes_out']}, "
          f"rx_bytes_out {c['rx_bytes_out']}, remote_write {t.get_completed('remote_write')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
