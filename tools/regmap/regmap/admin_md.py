# SPDX-License-Identifier: MIT
"""docs/admin-formats.md (byte tables) and the SystemVerilog lines for the RTL's package."""
from .formats import BANNER, KINDS, Formats, Struct


def _bits(f) -> str:
    if f.count > 1:
        return f"{f.type}[{f.count}]"
    if not f.bits:
        return f.type
    msb, lsb = f.bits
    return f"{f.type} [{msb}]" if msb == lsb else f"{f.type} [{msb}:{lsb}]"


def _struct(s: Struct) -> list[str]:
    o = [f"### `{s.name}` ({s.size} bytes)", "", s.doc + (f" Starts with `{s.base}`." if s.base else ""),
         "", "| bytes | field | type | meaning |", "| --- | --- | --- | --- |"]
    for f in s.fields:
        end = f.offset + f.nbytes - 1
        rng = f"0x{f.offset:02x}" if end == f.offset else f"0x{f.offset:02x}..0x{end:02x}"
        name = f"`{f.name}`" + (f" (in `{f.member.split('.')[-1]}`)" if f.member.split('.')[-1] != f.name else "")
        doc = f.doc + (f" Values: [{f.enum}](#{f.enum})." if f.enum else "")
        o.append(f"| {rng} | {name} | {_bits(f)} | {doc.strip()} |")
    return o + ["", "Bytes and bits not listed are reserved: 0.", ""]


def gen_admin_md(fm: Formats) -> str:
    o = ["<!-- SPDX-License-Identifier: MIT -->", "# SCENIC control-path formats", "",
         f"<!-- {BANNER} -->", "",
         "The byte layout of the admin queue's entries, the commands' payloads and results, the",
         "event queues' entries and the card's codes. The protocol around them (rings, phase",
         "bits, ordering, errors, recovery) is in [admin-queue.md](admin-queue.md). All",
         "multi-byte fields are little endian; reserved bytes and bits are written 0 and the",
         "card refuses commands that set them (`MALFORMED`). `u32 [23:0]` is a sub-field: only",
         "those bits of the word are defined. The same tables generate `uapi/scenic_admin.h`",
         "(C structs with `_MASK`/`_SHIFT`), the model's `scenic/admin.hpp` and the translation",
         "headers `kmod/include/scenic_codes.h` and `providers/scenic/scenic_codes.h`.", "",
         "## Commands", "", "| opcode | command | request | result | what |",
         "| --- | --- | --- | --- | --- |"]
    for c in fm.commands:
        res = "none" if c.result == "aq_cqe" else f"[`{c.result}`](#{c.result}-32-bytes)"
        o.append(f"| `0x{c.opcode:02x}` | `{c.name.upper()}` | [`{c.request}`](#{c.request}"
                 f"-128-bytes) | {res} | {c.doc} |")
    o += ["", "## Event types", "", "| queue | type | name | entry | what |", "| --- | --- | --- | --- | --- |"]
    for e in fm.events:
        o.append(f"| {e.queue.upper()} | `0x{e.type:02x}` | `{e.name.upper()}` | `{e.entry}` | {e.doc} |")
    o += ["", "## Entries, payloads and results", ""]
    for s in fm.structs.values():
        o += _struct(s)
    o += ["## Codes", "",
          "Unknown values translate to the fallback named under each table; the driver counts them.", ""]
    for e in fm.enums.values():
        kinds = list(e.translate)
        o += [f"### {e.name}", "", e.doc, "",
              "| value | name | " + " | ".join(f"`{k}`" for k in kinds) + (" | " if kinds else "") + "meaning |",
              "| --- | --- | " + "--- | " * len(kinds) + "--- |"]
        for v in e.values:
            names = "".join(f"`{v.names[k]}` | " for k in kinds)
            o.append(f"| `0x{v.value:02x}` | `{v.name.upper()}` | {names}{v.doc} |")
        for k in kinds:
            spec = e.translate[k]
            side = "kernel" if KINDS[k] == "kernel" else "provider"
            rev = f"; the reverse is `{spec['from']}()` (`{spec['from_fallback']}` otherwise)" if "from" in spec else ""
            o.append("")
            o.append(f"`{spec['func']}()` ({side}): other values give `{spec['fallback']}`{rev}.")
        o.append("")
    return "\n".join(o)


def sv_lines(fm: Formats) -> list[str]:
    """Opcodes, event types and field positions as localparams for the RTL's decoders."""
    o = ["  // Control-path formats (docs/admin-formats.md): opcodes, event types, and per field",
         "  // <STRUCT>_<FIELD>_OFF (byte offset in the entry), _BYTES, and for sub-fields _LSB/_MSB."]
    for c in fm.commands:
        o.append(f"  localparam logic [7:0] AQ_OP_{c.name.upper()} = 8'h{c.opcode:02x};")
    for e in fm.events:
        o.append(f"  localparam logic [7:0] {e.queue.upper()}_TYPE_{e.name.upper()} = 8'h{e.type:02x};")
    for s in fm.structs.values():
        o.append(f"  localparam int unsigned {s.name.upper()}_SIZE = {s.size};")
        for f in s.own():
            n = f"{s.name.upper()}_{f.name.upper()}"
            o.append(f"  localparam int unsigned {n}_OFF = {f.offset};")
            o.append(f"  localparam int unsigned {n}_BYTES = {f.nbytes};")
            if f.bits:
                o.append(f"  localparam int unsigned {n}_LSB = {f.bits[1]};")
                o.append(f"  localparam int unsigned {n}_MSB = {f.bits[0]};")
    return o + [""]
