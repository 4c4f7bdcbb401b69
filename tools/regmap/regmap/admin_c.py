# SPDX-License-Identifier: MIT
"""uapi/scenic_admin.h: the formats as C structs, masks, enums and the SCENIC_ADMIN_FIELDS list."""
from .formats import BANNER, Formats, Struct

SPDX_UAPI = "((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB)"
C_TYPE = {"u8": "__u8", "u16": "__le16", "u32": "__le32", "u64": "__le64"}


def _lit(value: int, width: int) -> str:
    return f"0x{value:x}ULL" if width == 8 else f"0x{value:x}U"


def _comment(text: str) -> str:
    return f"\t/* {text} */" if text else ""


def _block_comment(text: str, indent: str) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(indent.expandtabs(8)) + 3 + len(cur) + 1 + len(w) > 96:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    if len(lines) == 1:
        return [f"{indent}/* {lines[0]} */"]
    return [f"{indent}/*"] + [f"{indent} * {ln}" for ln in lines] + [f"{indent} */"]


def mask_name(s: Struct, f) -> str:
    return f"SCENIC_{f.owner.upper()}_{f.name.upper()}_MASK"


def _struct(s: Struct, structs) -> list[str]:
    o = _block_comment(s.doc, "") + [f"struct scenic_{s.name} {{"]
    pos = 0
    if s.base:
        o.append(f"\tstruct scenic_{s.base} hdr;")
        pos = structs[s.base].size
    members = {}
    for f in s.own():
        members.setdefault(f.member, []).append(f)
    for member, group in sorted(members.items(), key=lambda kv: kv[1][0].offset):
        f = group[0]
        if f.offset > pos:
            o.append(f"\t__u8 reserved_0x{pos:02x}[{f.offset - pos}];")
        arr = f"[{f.count}]" if f.count > 1 else ""
        note = ", ".join(g.name for g in group) if len(group) > 1 else ""
        o.append(f"\t{C_TYPE[f.type]} {member}{arr};{_comment(f'0x{f.offset:02x} {note}'.strip())}")
        pos = f.offset + f.nbytes
    if pos < s.size:
        o.append(f"\t__u8 reserved_0x{pos:02x}[{s.size - pos}];")
    o += ["};", "", f"SCENIC_ADMIN_STATIC_ASSERT(sizeof(struct scenic_{s.name}) == {s.size});"]
    for f in s.own():
        if f.bits:
            n = f"SCENIC_{s.name.upper()}_{f.name.upper()}"
            o.append(f"#define {n}_MASK {_lit(f.mask, f.width)}")
            o.append(f"#define {n}_SHIFT {f.shift}")
    return o + [""]


def gen_admin_c(fm: Formats) -> str:
    o = [f"/* SPDX-License-Identifier: {SPDX_UAPI} */", f"/* {BANNER} */",
         "/*", " * The card's control-path formats (docs/admin-formats.md): admin queue entries and",
         " * payloads, AEQ and CEQ entries, the card's codes. All multi-byte fields are little",
         " * endian; reserved bytes and bits are written 0. Sub-fields have _MASK/_SHIFT for",
         " * FIELD_GET()/FIELD_PREP() on the converted member.", " */",
         "#ifndef SCENIC_ADMIN_H", "#define SCENIC_ADMIN_H", "", "#include <linux/types.h>", "",
         "#ifdef __cplusplus", "#define SCENIC_ADMIN_STATIC_ASSERT(e) static_assert(e, #e)", "#else",
         "#define SCENIC_ADMIN_STATIC_ASSERT(e) _Static_assert(e, #e)", "#endif", ""]
    for e in fm.enums.values():
        prefix = "SCENIC_AQ_OP_" if e.name == "aq_opcode" else e.c_prefix
        o += _block_comment(e.doc, "") + [f"enum scenic_{e.name} {{"]
        for v in e.values:
            line = f"\t{prefix}{v.name.upper()} = 0x{v.value:02x},"
            if len((line + _comment(v.doc)).expandtabs(8)) > 100:
                o += _block_comment(v.doc, "\t")
                o.append(line)
            else:
                o.append(line + _comment(v.doc))
        o += ["};", "", f"/* X(ENUMERATOR, \"name\") for every value of enum scenic_{e.name} */",
              f"#define SCENIC_{e.name.upper()}_VALUES(X) \\"]
        o += [f"\tX({prefix}{v.name.upper()}, \"{v.name}\") \\" for v in e.values]
        o[-1] = o[-1][:-2]
        o.append("")
    for s in fm.structs.values():
        o += _struct(s, fm.structs)
    o += ["/* X(OPCODE, name, request struct, result struct) for every admin command */",
          "#define SCENIC_AQ_COMMANDS(X) \\"]
    o += [f"\tX(SCENIC_AQ_OP_{c.name.upper()}, {c.name}, {c.request}, {c.result}) \\"
          for c in fm.commands]
    o[-1] = o[-1][:-2]
    for q in ("aeq", "ceq"):
        o += ["", f"/* X(TYPE, name, entry struct) for every {q.upper()} entry type */",
              f"#define SCENIC_{q.upper()}_EVENTS(X) \\"]
        o += [f"\tX(SCENIC_{q.upper()}_TYPE_{e.name.upper()}, {e.name}, {e.entry}) \\"
              for e in fm.events if e.queue == q]
        o[-1] = o[-1][:-2]
    o += ["", "/*",
          " * X(struct, member, field, offset, size, mask) for every field of every struct:",
          " * member is the C member (a path into the embedded header for inherited fields),",
          " * size is sizeof(member), mask the field's bits within one element of the member.",
          " */", "#define SCENIC_ADMIN_FIELDS(X) \\"]
    for s in fm.structs.values():
        for f in s.fields:
            mask = mask_name(s, f) if f.bits else _lit(f.mask, f.width)
            line = f"\tX({s.name}, {f.member}, {f.name}, 0x{f.offset:02x}, {f.nbytes}, {mask}) \\"
            if len(line.expandtabs(8)) > 100:
                o.append(f"\tX({s.name}, {f.member}, {f.name}, 0x{f.offset:02x}, {f.nbytes}, \\")
                line = f"\t  {mask}) \\"
            o.append(line)
    o[-1] = o[-1][:-2]
    o += ["", "#endif /* SCENIC_ADMIN_H */"]
    return "\n".join(o) + "\n"
