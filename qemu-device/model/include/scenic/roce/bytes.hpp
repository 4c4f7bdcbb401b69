// SPDX-License-Identifier: MIT
// Big-endian field access for the wire codecs. Callers check the span's size first; every
// access is still bounds-checked in debug builds through std::span::operator[] + the asserts.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>

namespace scenic::roce::be {

template <size_t N>
constexpr uint64_t load(std::span<const uint8_t> b, size_t off) {
    static_assert(N >= 1 && N <= 8);
    assert(off + N <= b.size());
    uint64_t v = 0;
    for (size_t i = 0; i < N; ++i) v = (v << 8) | b[off + i];
    return v;
}

template <size_t N>
constexpr void store(std::span<uint8_t> b, size_t off, uint64_t v) {
    static_assert(N >= 1 && N <= 8);
    assert(off + N <= b.size());
    for (size_t i = 0; i < N; ++i) b[off + N - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
}

constexpr uint16_t load16(std::span<const uint8_t> b, size_t off) {
    return static_cast<uint16_t>(load<2>(b, off));
}
constexpr uint32_t load24(std::span<const uint8_t> b, size_t off) {
    return static_cast<uint32_t>(load<3>(b, off));
}
constexpr uint32_t load32(std::span<const uint8_t> b, size_t off) {
    return static_cast<uint32_t>(load<4>(b, off));
}
constexpr uint64_t load64(std::span<const uint8_t> b, size_t off) { return load<8>(b, off); }

}  // namespace scenic::roce::be
