#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The paper's Code 1 (section 7.3) in a guest, TAP 13 output: load an image into SCU 2, set a
CSR, read a completion counter; then what the runtime promises around it (docs/scu.md 7).

Usage: code1.py [IMAGE]   (default /usr/share/scenic/scu/passthrough.scuimg; needs python3, the
scenic module, scenic_scu.ko and a card with at least 3 slots)"""
import errno
import os
import sys
import tempfile

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


PASSTHROUGH_ID = 0x5343555041535331  # "SCUPASS1", CSR 0 of the passthrough (docs/scu.md 8)
IMAGE = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/scenic/scu/passthrough.scuimg"


@test
def code1_as_printed():
    from scenic import ScenicReconfig, ScenicThread
    # Load target application to SCU 2
    ScenicReconfig().reconfigure_app(2, IMAGE)
    # Create a thread and assign it to SCU 2
    scenic_thread = ScenicThread(2)
    # Set control register, e.g., encryption key
    scenic_thread.set_csr(0x9f3c7a2b6e41d8c5, 0)
    # Check completions, for e.g., RDMA WRITE
    n = scenic_thread.get_completed("remote_write")
    assert isinstance(n, int) and n >= 0, n
    # The passthrough's CSR 0 is its read-only ID: the write above must not have changed it.
    assert scenic_thread.get_csr(0) == PASSTHROUGH_ID, hex(scenic_thread.get_csr(0))


@test
def loaded_image_is_reported():
    import scenic
    info = scenic.ScenicReconfig().info(2)
    want = scenic.image_info(IMAGE)
    assert info.image_sha256 == want["payload_sha256"], (info.image_sha256, want)
    assert info.state == "RUNNING" and info.kind == want["kind"], info


@test
def csr_round_trip_through_the_mapping():
    import scenic
    t = scenic.ScenicThread(2)
    assert t.csr_mapped, "the CSR window was not mapped"
    for v in (0, 0xffffffffffffffff, 0x0123456789abcdef):
        t.set_csr(v, 1)  # SCRATCH
        assert t.get_csr(1) == v, (hex(v), hex(t.get_csr(1)))


@test
def wait_irq_times_out():
    import scenic
    assert scenic.ScenicThread(2).wait_irq(20) == 0


@test
def irq_raised_by_the_scu_reaches_this_process():
    import os as _os
    import select
    import scenic
    t = scenic.ScenicThread(2)
    efd = t.irq_fd(3)
    t.set_csr(1 << 1 | 1 << 3, 7)  # the passthrough's IRQ_RAISE: lines 1 and 3 (docs/scu.md 8)
    lines = t.wait_irq(2000)
    assert lines == 0b1010, bin(lines)
    r, _, _ = select.select([efd], [], [], 2.0)
    assert r == [efd], "the eventfd of line 3 was not signalled"
    assert int.from_bytes(_os.read(efd, 8), "little") >= 1


@test
def bad_image_refused_old_scu_kept():
    import scenic
    with open(IMAGE, "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 1
    before = scenic.ScenicReconfig().info(2)
    with tempfile.NamedTemporaryFile(suffix=".scuimg") as bad:
        bad.write(data)
        bad.flush()
        try:
            scenic.ScenicReconfig().reconfigure_app(2, bad.name)
        except OSError as e:
            assert e.errno == errno.ENOEXEC and e.status_name == "HASH_MISMATCH", (e.errno, str(e))
        else:
            raise AssertionError("a corrupted image was loaded")
    after = scenic.ScenicReconfig().info(2)
    assert after.image_sha256 == before.image_sha256 and after.loads == before.loads


@test
def numpy_buffer_registered_without_copy():
    import scenic
    try:
        import numpy
    except ImportError:
        return "SKIP no numpy in the guest"
    t = scenic.ScenicThread(2)
    a = numpy.zeros(1 << 16, dtype=numpy.uint8)
    mr = t.reg(a)
    assert mr.addr == a.ctypes.data and mr.length == a.nbytes, (mr.addr, a.ctypes.data)
    return None


@test
def unload_back_to_passthrough():
    import scenic
    r = scenic.ScenicReconfig().unload(2)
    assert r.pause_ns > 0, r
    assert scenic.ScenicReconfig().info(2).kind == 1


def main():
    print("TAP version 13")
    print(f"1..{len(TESTS)}")
    failed = 0
    if not os.path.exists(IMAGE):
        for i, fn in enumerate(TESTS, 1):
            print(f"ok {i} - {fn.__name__} # SKIP no image {IMAGE}")
        return 0
    for i, fn in enumerate(TESTS, 1):
        try:
            res = fn()
        except Exception as e:  # every failure is reported, the next test still runs
            failed += 1
            print(f"not ok {i} - {fn.__name__} # {type(e).__name__}: {e}")
            continue
        if isinstance(res, str) and res.startswith("SKIP"):
            print(f"ok {i} - {fn.__name__} # {res}")
        else:
            print(f"ok {i} - {fn.__name__}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
