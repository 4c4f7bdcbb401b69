# SPDX-License-Identifier: MIT
"""Minimal writer for the cpio "newc" format that Linux unpacks as an initramfs.

Written by hand (stdlib only) so the image builder and the VM runner can create device
nodes and root-owned files without being root and without calling cpio(1).
"""

import os
import stat

_ALIGN = 4


def _pad(n):
    return (-n) % _ALIGN


class CpioWriter:
    """Streams entries into a binary file object. Parent directories are added on demand."""

    def __init__(self, out):
        self.out = out
        self.ino = 1
        self.dirs = {""}
        self.names = set()
        self.size = 0

    def _write(self, b):
        self.out.write(b)
        self.size += len(b)

    def _entry(self, name, mode, data=b"", rdev=(0, 0), nlink=1):
        name = name.strip("/")
        if name not in ("", "TRAILER!!!"):
            self._parents(name)
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(name) + 1, 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        nb = name.encode() + b"\0"
        self._write(hdr + nb + b"\0" * _pad(len(hdr) + len(nb)))
        if data:
            self._write(data + b"\0" * _pad(len(data)))
        self.names.add(name)

    def _parents(self, name):
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d not in self.dirs:
                self.add_dir(d)

    def add_dir(self, name, perm=0o755):
        name = name.strip("/")
        if name in self.dirs:
            return
        self.dirs.add(name)
        self._entry(name, stat.S_IFDIR | perm, nlink=2)

    def add_file(self, name, data, perm=0o644):
        self._entry(name, stat.S_IFREG | perm, data)

    def add_host_file(self, name, src, perm=None):
        st = os.stat(src)
        with open(src, "rb") as f:
            data = f.read()
        self.add_file(name, data, stat.S_IMODE(st.st_mode) if perm is None else perm)

    def add_symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def add_chardev(self, name, major, minor, perm=0o600):
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def close(self, align=512):
        """Writes the trailer and pads with zeros (the kernel skips zero padding between
        concatenated archives, and needs each uncompressed archive to start 4-aligned)."""
        self._entry("TRAILER!!!", 0)
        if align:
            self._write(b"\0" * ((-self.size) % align))
