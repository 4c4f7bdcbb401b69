# SPDX-License-Identifier: MIT
"""qemu-device/model/include/scenic/admin.hpp: views over the bytes of each format (model)."""
from .formats import BANNER, Formats, Struct, camel, enum_type_bytes

UINT = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}

PRELUDE = """\
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>

// The card's control-path formats (docs/admin-formats.md). A view reads and writes one field of
// an entry in place: little endian, sub-fields shifted down and masked, other bits untouched.
// View<const uint8_t> reads only; View<uint8_t> (the default) also writes.
namespace scenic::admin {

namespace detail {
template <typename T, typename Byte>
constexpr T load(std::span<Byte> b, std::size_t off) {
    uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v |= uint64_t{b[off + i]} << (8 * i);
    return static_cast<T>(v);
}
template <typename T>
constexpr void store(std::span<uint8_t> b, std::size_t off, T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i) b[off + i] = static_cast<uint8_t>(uint64_t{v} >> (8 * i));
}
template <typename T, typename Byte>
constexpr T get(std::span<Byte> b, std::size_t off, T mask, unsigned shift) {
    return static_cast<T>((load<T>(b, off) & mask) >> shift);
}
template <typename T>
constexpr void set(std::span<uint8_t> b, std::size_t off, T mask, unsigned shift, T v) {
    const T raw = load<T>(b, off);
    store<T>(b, off, static_cast<T>((raw & static_cast<T>(~mask)) | (static_cast<T>(v << shift) & mask)));
}
inline std::size_t check_index(std::size_t i, std::size_t count) {
    if (i >= count) throw std::out_of_range("scenic::admin: array index out of range");
    return i;
}
}  // namespace detail

// One field: offset in the entry, width of one element, elements, mask within one element, and
// get/set through the generated view (index: the element of an array field, else 0).
struct FieldDef {
    std::string_view name;
    std::string_view member;
    uint32_t offset;
    uint32_t width;
    uint32_t count;
    uint64_t mask;
    uint32_t shift;
    uint64_t (*get)(std::span<const uint8_t> entry, std::size_t index);
    void (*set)(std::span<uint8_t> entry, std::size_t index, uint64_t value);
};

struct StructDef {
    std::string_view name;
    std::size_t size;
    std::span<const FieldDef> fields;
};

struct CommandDef {
    uint8_t opcode;
    std::string_view name;
    std::string_view request;
    std::string_view result;
};
"""


def _accessors(f) -> list[str]:
    t = UINT[f.width]
    args = f"{f.offset}, {t}{{0x{f.mask:x}}}, {f.shift}"
    if f.count == 1:
        return [f"    constexpr {t} {f.name}() const {{ return detail::get<{t}, Byte>(b_, {args}); }}",
                f"    constexpr void set_{f.name}({t} v) const",
                "        requires(!std::is_const_v<Byte>)",
                "    {", f"        detail::set<{t}>(b_, {args}, v);", "    }"]
    at = f"{f.offset} + {f.width} * detail::check_index(i, {f.count})"
    return [f"    {t} {f.name}(std::size_t i) const {{",
            f"        return detail::get<{t}, Byte>(b_, {at}, {t}{{0x{f.mask:x}}}, 0);", "    }",
            f"    void set_{f.name}(std::size_t i, {t} v) const",
            "        requires(!std::is_const_v<Byte>)", "    {",
            f"        detail::set<{t}>(b_, {at}, {t}{{0x{f.mask:x}}}, 0, v);", "    }"]


def _struct(s: Struct) -> list[str]:
    c = camel(s.name)
    o = [f"// {s.doc}", "template <typename Byte = uint8_t>", f"class {c} {{", "  public:",
         f"    static constexpr std::size_t kSize = {s.size};",
         f"    static constexpr std::string_view kName = \"{s.name}\";",
         f"    constexpr explicit {c}(std::span<Byte, kSize> bytes) : b_(bytes) {{}}",
         "    constexpr std::span<Byte, kSize> bytes() const { return b_; }"]
    for f in s.fields:
        o += _accessors(f)
    o += ["", "  private:", "    std::span<Byte, kSize> b_;", "};", ""]
    o.append(f"inline constexpr std::array<FieldDef, {len(s.fields)}> k{c}Fields{{{{")
    for f in s.fields:
        t = UINT[f.width]
        if f.count == 1:
            getter = f"{c}<const uint8_t>(e.first<{s.size}>()).{f.name}()"
            setter = f"{c}<>(e.first<{s.size}>()).set_{f.name}(static_cast<{t}>(v))"
            idx = "std::size_t"
        else:
            getter = f"{c}<const uint8_t>(e.first<{s.size}>()).{f.name}(i)"
            setter = f"{c}<>(e.first<{s.size}>()).set_{f.name}(i, static_cast<{t}>(v))"
            idx = "std::size_t i"
        o += [f"    {{\"{f.name}\", \"{f.member}\", {f.offset}, {f.width}, {f.count}, 0x{f.mask:x}, "
              f"{f.shift},",
              f"     [](std::span<const uint8_t> e, {idx}) -> uint64_t {{ return {getter}; }},",
              f"     [](std::span<uint8_t> e, {idx}, uint64_t v) {{ {setter}; }}}},"]
    o += ["}};", ""]
    return o


def gen_admin_cpp(fm: Formats) -> str:
    o = ["// SPDX-License-Identifier: MIT", f"// {BANNER}", PRELUDE]
    for e in fm.enums.values():
        t = UINT[enum_type_bytes(e)]
        o += [f"// {e.doc}", f"enum class {camel(e.name)} : {t} {{"]
        o += [f"    k{camel(v.name)} = 0x{v.value:02x}," for v in e.values]
        o += ["};", ""]
    for s in fm.structs.values():
        o += _struct(s)
    o.append(f"inline constexpr std::array<StructDef, {len(fm.structs)}> kStructs{{{{")
    o += [f"    {{\"{s.name}\", {s.size}, k{camel(s.name)}Fields}}," for s in fm.structs.values()]
    o += ["}};", "", f"inline constexpr std::array<CommandDef, {len(fm.commands)}> kCommands{{{{"]
    o += [f"    {{0x{c.opcode:02x}, \"{c.name}\", \"{c.request}\", \"{c.result}\"}},"
          for c in fm.commands]
    o += ["}};", "", "}  // namespace scenic::admin"]
    return "\n".join(o) + "\n"
