#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the SCU images of the scu selftest into a directory (docs/scu.md 5): two good
passthrough images, one of the keyed-XOR test kind (payload.sh), one of the aes-ctr kind with
the bytes aes.sh expects (aes-expected.txt, computed here with the host's openssl) and one broken
image per refusal the test checks. Each broken image is a good one with one field changed, its
header CRC recomputed unless the CRC is what is broken."""
import hashlib
import os
import struct
import subprocess
import sys
import zlib

HDR = 256
KIND_PASSTHROUGH = 1
KIND_AES_CTR = 2  # docs/scu-aes-ctr.md
KIND_XOR_TEST = 0x100  # the model's keyed-XOR test kind (docs/scu.md 8 "Test kinds")
IFACE = 0x00010000  # the card's SCU.IFACE_VERSION: 1.0
DATA_W = 512        # the model's slot stream width
MAX_IMAGE = 1 << 20  # SCU.MAX_IMAGE on the model


def image(name=b"selftest-pass", build_id=0x5c0de00000000001, payload=None, kind=KIND_PASSTHROUGH,
          kind_version=1, magic=b"SCENSCU\0", fmt=1, iface=IFACE, data_w=DATA_W, sha=None,
          reserved=False, crc=None):
    if payload is None:
        payload = b'{"creator": "selftests/scu/mkimages.py", "modules": {}}\n'
    h = bytearray(HDR)
    h[0x00:0x08] = magic
    struct.pack_into("<HHIIHHQ", h, 0x08, fmt, HDR, iface, kind, kind_version, 0, build_id)
    h[0x20:0x20 + len(name)] = name
    struct.pack_into("<IIIIII", h, 0x40, data_w, 1200, 1500, 0, 0, 0)
    struct.pack_into("<IIQ", h, 0x60, HDR, 0, len(payload))
    h[0x70:0x90] = sha if sha is not None else hashlib.sha256(payload).digest()
    if reserved:
        h[0x90] = 1
    struct.pack_into("<I", h, 0xfc, zlib.crc32(bytes(h[:0xfc])) if crc is None else crc)
    return bytes(h) + payload


# aes.sh's key and IV (CSRs KEY_HI/LO, IV_*_HI/LO) and scu_aes_rdma's source patterns
AES_KEY = "2b7e151628aed2a6abf7158809cf4f3c"
AES_IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
AES_PATTERNS = {"write": (3000, 7, 3), "send": (700, 13, 5), "read": (2500, 31, 11)}


def aes_expected():
    """What the receivers of scu_aes_rdma hold when one side's slot runs aes-ctr with AES_KEY,
    AES_IV on TX and RX and QPN_MASK 0 and the other side's slot passes: each message (offset 0)
    XORed with AES-128-CTR's keystream from counter AES_IV, by the host's openssl."""
    lines = []
    for tag, (n, mul, add) in AES_PATTERNS.items():
        plain = bytes((mul * i + add) & 0xff for i in range(n))
        r = subprocess.run(["openssl", "enc", "-aes-128-ctr", "-K", AES_KEY, "-iv", AES_IV],
                           input=plain, capture_output=True, check=True)
        lines.append(f"{tag} {r.stdout.hex()}\n")
        lines.append(f"plain-{tag} {plain.hex()}\n")
    return "".join(lines).encode()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = image()
    bad_crc = bytearray(good)
    bad_crc[0xfc] ^= 0xff
    imgs = {
        "good.scu": good,
        "good2.scu": image(name=b"selftest-pass-2", build_id=0x5c0de00000000002),
        "xor.scu": image(name=b"selftest-xor", build_id=0x5c0de00000000003, kind=KIND_XOR_TEST),
        "aes.scu": image(name=b"selftest-aes", build_id=0x5c0de00000000004, kind=KIND_AES_CTR),
        "aes-expected.txt": aes_expected(),
        "bad_magic.scu": image(magic=b"SCENSCX\0"),
        "bad_format.scu": image(fmt=2),
        "bad_crc.scu": bytes(bad_crc),
        "bad_reserved.scu": image(reserved=True),
        "bad_iface.scu": image(iface=0x00020000),
        "bad_kind.scu": image(kind=0x80000123),
        "bad_hash.scu": image(sha=bytes(32)),
        "bad_width.scu": image(data_w=1024),
        "too_large.scu": image(payload=bytes(MAX_IMAGE)),
        "short.scu": good[:100],
    }
    for name, data in imgs.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
