#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scu-image-build on a small RTL fixture: the payload is yosys' netlist of the SCU alone,
the resource figures are yosys', the header says "rtl", and the image passes the check.

Usage: test_image_build.py SCENICCTL BUILDER   (ctest runs it; skipped without yosys)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    scenicctl, builder = sys.argv[1], sys.argv[2]
    if not shutil.which("yosys"):
        print("SKIP: no yosys")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "demo.scuimg")
        subprocess.run([sys.executable, builder, "--scenicctl", scenicctl, "--out", out,
                        os.path.join(HERE, "rtl_fixture", "scu", "demo")], check=True,
                       timeout=600)
        info = json.loads(subprocess.run([scenicctl, "--json", "image", "info", out],
                                         check=True, capture_output=True, text=True).stdout)
        h = info["header"]
        assert info["ok"], info
        assert h["kind"] == 0x80000000 and h["name"] == "demo", h
        assert h["flags"] == 1 | 4, h  # memory-port from scu.toml, rtl from the builder
        assert h["resources"]["luts"] >= 32 and h["resources"]["ffs"] == 64, h["resources"]
        with open(out, "rb") as f:
            f.seek(h["payload_offset"])
            netlist = json.loads(f.read(h["payload_size"]))
        assert list(netlist["modules"]) == ["scu_demo"], list(netlist["modules"])[:5]
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
