# SPDX-License-Identifier: MIT
"""The translation headers: card code -> ib_* / errno (kernel) and -> ibv_* (provider)."""
from .formats import BANNER, KINDS, Enum, Formats


def _functions(e: Enum, kind: str, code_type: str) -> list[str]:
    spec = e.translate[kind]
    o = [f"static inline {spec['type']} {spec['func']}({code_type} code)", "{", "\tswitch (code) {"]
    for v in e.values:
        o += [f"\tcase {e.c_prefix}{v.name.upper()}:", f"\t\treturn {v.names[kind]};"]
    o += ["\tdefault:", f"\t\treturn {spec['fallback']};", "\t}", "}", ""]
    if "from" in spec:
        o += [f"static inline int {spec['from']}({spec['type']} value)", "{", "\tswitch (value) {"]
        for v in e.values:
            o += [f"\tcase {v.names[kind]}:", f"\t\treturn {e.c_prefix}{v.name.upper()};"]
        o += ["\tdefault:", f"\t\treturn {spec['from_fallback']};", "\t}", "}", ""]
    return o


def _body(fm: Formats, side: str, code_type: str) -> list[str]:
    o = []
    for e in fm.enums.values():
        for kind in e.translate:
            if KINDS[kind] == side:
                o += [f"/* enum scenic_{e.name} -> {e.translate[kind]['type']}; other values: "
                      f"{e.translate[kind]['fallback']} */"]
                o += _functions(e, kind, code_type)
    return o


def gen_kernel_codes(fm: Formats) -> str:
    o = ["/* SPDX-License-Identifier: GPL-2.0-only */", f"/* {BANNER} */",
         "/* The card's codes translated to the kernel's (docs/admin-formats.md, Codes). */",
         "#ifndef SCENIC_CODES_H", "#define SCENIC_CODES_H", "", "#include <linux/errno.h>",
         "#include <rdma/ib_verbs.h>", "", '#include "scenic_admin.h"', ""]
    o += _body(fm, "kernel", "unsigned int")
    o.append("#endif /* SCENIC_CODES_H */")
    return "\n".join(o) + "\n"


def gen_provider_codes(fm: Formats) -> str:
    o = ["/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */", f"/* {BANNER} */",
         "/* The card's codes translated to libibverbs' (docs/admin-formats.md, Codes). */",
         "#ifndef SCENIC_PROVIDER_CODES_H", "#define SCENIC_PROVIDER_CODES_H", "",
         "#include <infiniband/verbs.h>", "#include <scenic_admin.h>", ""]
    o += _body(fm, "provider", "unsigned int")
    o.append("#endif /* SCENIC_PROVIDER_CODES_H */")
    return "\n".join(o) + "\n"
