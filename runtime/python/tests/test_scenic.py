# SPDX-License-Identifier: MIT
"""import scenic on the host, against the runtime's fake card (scenic.testing)."""
import errno
import os
import tempfile
import threading
import time
import unittest

import scenic
import scenic.testing

try:
    import numpy
except ImportError:  # python3-numpy is optional for these tests
    numpy = None

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGE_DIR = os.environ.get("SCENIC_SCU_IMAGES", os.path.join(HERE, "..", "..", "..", "build", "scu"))


class Code1(unittest.TestCase):
    def setUp(self):
        self.card = scenic.testing.FakeCard(4)
        scenic.testing.install(self.card)
        self.image = os.path.join(IMAGE_DIR, "passthrough.scuimg")
        if not os.path.exists(self.image):
            self.skipTest(f"{self.image} not built (make scu-images)")

    def tearDown(self):
        scenic.testing.uninstall()

    def test_code1_as_printed(self):
        # Paper, Code 1 (section 7.3), names as printed there.
        scenic.ScenicReconfig().reconfigure_app(2, self.image)
        scenic_thread = scenic.ScenicThread(2)
        scenic_thread.set_csr(0x9f3c7a2b6e41d8c5, 0)
        self.assertEqual(self.card.csr(2, 0), 0x9f3c7a2b6e41d8c5)
        self.card.set_completed(2, "remote_write", 7)
        self.assertEqual(scenic_thread.get_completed("remote_write"), 7)
        self.assertEqual(scenic.ScenicReconfig().info(2).name, "passthrough")

    def test_reconfigure_result_and_info(self):
        r = scenic.ScenicReconfig().reconfigure_app(1, self.image)
        self.assertEqual(r.pause_ns, 8_000_000)
        info = scenic.ScenicReconfig().info(1)
        self.assertEqual((info.kind, info.state, info.loads), (1, "RUNNING", 1))
        self.assertEqual(info.image_sha256, scenic.image_info(self.image)["payload_sha256"])
        self.assertEqual(len(scenic.ScenicReconfig().slots()), 4)

    def test_bad_image_is_oserror_with_errno_and_status(self):
        with open(self.image, "rb") as f:
            data = bytearray(f.read())
        data[-1] ^= 1
        with tempfile.NamedTemporaryFile(suffix=".scuimg") as bad:
            bad.write(data)
            bad.flush()
            self.assertEqual(scenic.image_info(bad.name)["status"], "HASH_MISMATCH")
            with self.assertRaises(OSError) as cm:
                scenic.ScenicReconfig().reconfigure_app(1, bad.name)
        e = cm.exception
        self.assertIsInstance(e, scenic.ScenicError)
        self.assertEqual(e.errno, errno.ENOEXEC)
        self.assertEqual(e.status_name, "HASH_MISMATCH")
        self.assertEqual(e.status, 6)
        self.assertIn("SHA-256", str(e))

    def test_busy_and_fixed_slots(self):
        t = scenic.ScenicThread(3)
        self.assertTrue(self.card.owned(3))
        scenic.ScenicThread(3).set_csr(1, 1)  # same process: the one owner fd is shared
        with self.assertRaises(OSError) as cm:
            scenic.ScenicThread(0)
        self.assertEqual(cm.exception.errno, errno.EPERM)
        del t

    def test_missing_file_is_enoent(self):
        with self.assertRaises(OSError) as cm:
            scenic.ScenicReconfig().reconfigure_app(1, "/nonexistent/x.scuimg")
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_wait_irq(self):
        t = scenic.ScenicThread(1)
        start = time.monotonic()
        self.assertEqual(t.wait_irq(30), 0)
        self.assertGreaterEqual(time.monotonic() - start, 0.03)
        threading.Timer(0.02, lambda: self.card.raise_irq(1, 0b1000)).start()
        self.assertEqual(t.wait_irq(2000), 0b1000)  # the GIL is released while waiting

    def test_counters_and_bad_names(self):
        self.card.set_traffic(1, "irqs", 5)
        self.assertEqual(scenic.ScenicReconfig().counters(1)["irqs"], 5)
        t = scenic.ScenicThread(1)
        self.assertEqual(t.counters()["remote_write"], 0)
        with self.assertRaises(OSError) as cm:
            t.get_completed("nope")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError):
            t.set_csr(1, 8192)
        with self.assertRaises(OSError):
            scenic.ScenicReconfig().set_policy(1, "everyone")
        scenic.ScenicReconfig().set_policy(1, "any")
        self.assertEqual(scenic.ScenicReconfig().info(1).qp_policy, "any")

    def test_steering(self):
        r = scenic.ScenicReconfig()
        first = r.steer_add(1, dst_ip="10.0.0.0/8", ip_proto=17, dst_port=4791, dir="both")
        second = r.steer_add(1, src_ip="fd00::/16")
        self.assertEqual(second, first + 1)
        self.assertEqual(r.info(1).steer_rules_used, 2)
        r.steer_del(1, first)
        with self.assertRaises(OSError) as cm:
            r.steer_del(1, first)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        with self.assertRaises(OSError) as cm:
            r.steer_add(1, dst_ip="10.0.0.1/40")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError):
            r.steer_add(1, dir="sideways")

    def test_reg_refuses_read_only_buffers(self):
        t = scenic.ScenicThread(1)
        with self.assertRaises(BufferError):
            t.reg(b"read-only bytes")
        # Writable memory reaches the verbs side, which on a host without scenic_0 says ENODEV.
        buf = numpy.zeros(4096, dtype=numpy.uint8) if numpy is not None else bytearray(4096)
        with self.assertRaises(OSError) as cm:
            t.reg(buf)
        self.assertEqual(cm.exception.errno, errno.ENODEV)


if __name__ == "__main__":
    unittest.main()
