#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The generator refuses inconsistent formats with a clear message (tools/regmap/regmap/formats.py).

Each case is a small TOML snippet with one mistake; the message must name the table and the
problem. The last cases run gen_regmap.py itself on the real source with one field moved.
"""
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from regmap.formats import FormatError, load_formats  # noqa: E402

HDR = """
[[struct]]
name = "aq_sqe_hdr"
size = 8
fields = [ { name = "cmd_id", offset = 0, type = "u16" }, { name = "opcode", offset = 2, type = "u8" } ]
[[struct]]
name = "aq_cqe_hdr"
size = 8
fields = [ { name = "cmd_id", offset = 0, type = "u16" }, { name = "status", offset = 2, type = "u8" } ]
[[struct]]
name = "aq_cqe"
size = 32
base = "aq_cqe_hdr"
fields = []
[[struct]]
name = "aq_a"
size = 128
base = "aq_sqe_hdr"
fields = [ { name = "x", offset = 8, type = "u32" } ]
"""


def load(snippet: str, with_hdr: bool = True):
    return load_formats(tomllib.loads((HDR if with_hdr else "") + snippet))


class Refusals(unittest.TestCase):
    def refused(self, snippet: str, *words: str, with_hdr: bool = True) -> None:
        with self.assertRaises(FormatError) as cm:
            load(snippet, with_hdr)
        for w in words:
            self.assertIn(w, str(cm.exception))

    def test_valid_snippet_loads(self):
        fm = load('[[command]]\nname = "a"\nopcode = 0x10\nrequest = "aq_a"\n')
        self.assertEqual(fm.commands[0].result, "aq_cqe")
        self.assertEqual([f.member for f in fm.structs["aq_a"].fields], ["hdr.cmd_id", "hdr.opcode", "x"])
        self.assertEqual(fm.enums["aq_opcode"].values[0].value, 0x10)

    def test_overlapping_fields(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 0, type = "u32" },'
                     ' { name = "b", offset = 2, type = "u16" } ]\n', "struct s", "a and b overlap")

    def test_overlapping_sub_fields(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = ['
                     ' { name = "a", offset = 0, type = "u32", member = "w", bits = [4, 0] },'
                     ' { name = "b", offset = 0, type = "u32", member = "w", bits = [7, 4] } ]\n',
                     "a and b overlap")

    def test_disjoint_sub_fields_accepted(self):
        fm = load('[[struct]]\nname = "s"\nsize = 8\nfields = ['
                  ' { name = "a", offset = 0, type = "u32", member = "w", bits = [3, 0] },'
                  ' { name = "b", offset = 0, type = "u32", member = "w", bits = [31, 31] } ]\n')
        self.assertEqual(fm.structs["s"].fields[1].mask, 0x80000000)

    def test_base_field_overlapped(self):
        self.refused('[[struct]]\nname = "s"\nsize = 128\nbase = "aq_sqe_hdr"\n'
                     'fields = [ { name = "y", offset = 2, type = "u16" } ]\n', "inside the base")

    def test_field_outside_struct(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 8, type = "u32" } ]\n',
                     "struct s.a", "outside the struct")

    def test_array_outside_struct(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 4, type = "u8", count = 5 } ]\n',
                     "outside the struct")

    def test_misaligned_field(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 2, type = "u32" } ]\n',
                     "struct s.a", "not aligned")

    def test_bits_outside_type(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 0, type = "u8", bits = [8, 0] } ]\n',
                     "do not fit a u8")

    def test_implicit_padding(self):
        self.refused('[[struct]]\nname = "s"\nsize = 12\nfields = [ { name = "a", offset = 0, type = "u64" } ]\n',
                     "not a multiple of its alignment")

    def test_missing_ib_name(self):
        self.refused('[[enum]]\nname = "e"\ntranslate.ib = { type = "enum ib_wc_status", func = "f", fallback = "X" }\n'
                     'values = [ { name = "a", value = 0, ib = "IB_A" }, { name = "b", value = 1 } ]\n',
                     "enum e.b", "missing `ib` name")

    def test_missing_ibv_name(self):
        self.refused('[[enum]]\nname = "e"\ntranslate.ibv = { type = "enum ibv_wc_status", func = "f", fallback = "X" }\n'
                     'values = [ { name = "a", value = 0, ib = "IB_A" } ]\n', "missing `ibv` name")

    def test_reverse_translation_not_unique(self):
        self.refused('[[enum]]\nname = "e"\ntranslate.ib = { type = "t", func = "f", fallback = "X", from = "g", from_fallback = "-1" }\n'
                     'values = [ { name = "a", value = 0, ib = "IB_A" }, { name = "b", value = 1, ib = "IB_A" } ]\n',
                     "duplicate `ib` name")

    def test_duplicate_enum_value(self):
        self.refused('[[enum]]\nname = "e"\nvalues = [ { name = "a", value = 3 }, { name = "b", value = 3 } ]\n',
                     "enum e", "duplicate value 3")

    def test_duplicate_opcode(self):
        self.refused('[[command]]\nname = "a"\nopcode = 0x10\nrequest = "aq_a"\n'
                     '[[command]]\nname = "b"\nopcode = 0x10\nrequest = "aq_a"\n', "duplicate opcode '0x10'")

    def test_opcode_zero(self):
        self.refused('[[command]]\nname = "a"\nopcode = 0\nrequest = "aq_a"\n', "command a", "0 is never valid")

    def test_request_not_an_sqe(self):
        self.refused('[[command]]\nname = "a"\nopcode = 1\nrequest = "aq_cqe"\n', "must have base aq_sqe_hdr")

    def test_duplicate_event_type(self):
        self.refused('[[event]]\nqueue = "aeq"\nname = "a"\ntype = 1\nentry = "aq_a"\n'
                     '[[event]]\nqueue = "aeq"\nname = "b"\ntype = 1\nentry = "aq_a"\n', "duplicate event type 1")

    def test_unknown_enum_reference(self):
        self.refused('[[struct]]\nname = "s"\nsize = 8\nfields = [ { name = "a", offset = 0, type = "u8", enum = "nope" } ]\n',
                     "struct s.a", "no enum 'nope'")


class Generator(unittest.TestCase):
    """gen_regmap.py on the real source: a moved field fails with the message, exit status 1."""

    def run_gen(self, source: str):
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "regs.toml"
            src.write_text(source)
            return subprocess.run([sys.executable, str(HERE / "gen_regmap.py"), str(src), d],
                                  capture_output=True, text=True)

    def test_real_source_is_accepted(self):
        r = self.run_gen((HERE / "scenic-regs.toml").read_text())
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_moved_field_is_refused(self):
        text = (HERE / "scenic-regs.toml").read_text()
        bad = text.replace('{ name = "ring_addr", offset = 0x10,', '{ name = "ring_addr", offset = 0x0c,')
        self.assertNotEqual(bad, text)
        r = self.run_gen(bad)
        self.assertEqual(r.returncode, 1)
        self.assertIn("gen_regmap: struct aq_create_cq.ring_addr: offset 0xc is not aligned", r.stderr)


if __name__ == "__main__":
    unittest.main()
