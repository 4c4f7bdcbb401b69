// SPDX-License-Identifier: MIT
// 24-bit Packet Sequence Number arithmetic (IBA ch. 9): PSNs wrap modulo 2^24 and are compared
// in a window of 2^23 either side, as rxe's psn_compare() does.
#pragma once

#include <cstdint>

namespace scenic::roce {

inline constexpr uint32_t kPsnMask = 0x00ffffffu;

constexpr uint32_t psn_add(uint32_t psn, uint32_t n) { return (psn + n) & kPsnMask; }

// Signed distance a - b in [-2^23, 2^23): shift the 24-bit difference into the top of a 32-bit
// word and read it back as two's complement (well defined since C++20).
constexpr int32_t psn_diff(uint32_t a, uint32_t b) {
    return static_cast<int32_t>(((a - b) & kPsnMask) << 8) >> 8;
}

// < 0: a is before b, 0: equal, > 0: a is after b (modulo 2^24).
constexpr int psn_compare(uint32_t a, uint32_t b) {
    const int32_t d = psn_diff(a, b);
    return d < 0 ? -1 : (d > 0 ? 1 : 0);
}

constexpr bool psn_before(uint32_t a, uint32_t b) { return psn_compare(a, b) < 0; }
constexpr bool psn_after(uint32_t a, uint32_t b) { return psn_compare(a, b) > 0; }

}  // namespace scenic::roce
