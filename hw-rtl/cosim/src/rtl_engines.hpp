// SPDX-License-Identifier: MIT
// The Verilated implementations behind the co-simulation interfaces (scenic_rtl_cosim only) and
// the AXI4-Stream byte lane helpers they share.
#pragma once

#include <verilated.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "scenic/cosim/blocks.hpp"

namespace scenic::cosim {

std::unique_ptr<PrefilterEngine> make_rtl_prefilter();
std::unique_ptr<IcrcEngine> make_rtl_icrc();
// Adds one transaction of `cycles` cycles to rtl_totals().
void account_rtl(uint64_t cycles) noexcept;

// Byte lane i of a Verilated data bus is bits [8i+7:8i]: on a little-endian host the word array
// of a VlWide holds the lanes in memory order.
static_assert(std::endian::native == std::endian::little, "lane packing assumes little endian");

template <std::size_t N>
void put_lanes(VlWide<N>& bus, std::span<const uint8_t> bytes) {
    static_assert(sizeof(bus.m_storage) == N * 4);
    std::memset(bus.data(), 0, sizeof(bus.m_storage));
    std::memcpy(bus.data(), bytes.data(), std::min(bytes.size(), sizeof(bus.m_storage)));
}

template <std::size_t N>
void get_lanes(const VlWide<N>& bus, unsigned n, uint8_t* out) {
    std::memcpy(out, bus.data(), std::min<std::size_t>(n, sizeof(bus.m_storage)));
}

// tkeep of the first n lanes (n <= 64).
inline uint64_t keep_mask(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }
// Lanes of a contiguous tkeep.
inline unsigned keep_lanes(uint64_t keep) { return static_cast<unsigned>(std::popcount(keep)); }

}  // namespace scenic::cosim
